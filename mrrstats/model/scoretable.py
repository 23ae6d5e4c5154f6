"""The score table: per-query values of one measure, queries x systems.

Every statistic in mrrstats (tests, intervals, multiple comparisons, power,
agreement, plots, the report) takes its per-query numbers through ONE coercion
function, :func:`as_score_table` (and :func:`as_score_tables` for several
measures at once, which calls it per measure). The accepted shapes, the missing
value policy and the error messages therefore live here and nowhere else.

Accepted inputs
---------------
* a :class:`ScoreTable` (returned as it is, or re-checked);
* a pandas DataFrame: one row per query, one column per system (the measure
  name may ride along in ``frame.attrs["measure"]``);
* a pandas Series or a 1-D array: one system;
* a 2-D array of shape ``(n_systems, n_queries)`` (scipy's convention of
  samples along the last axis);
* a path to a score-matrix CSV (:func:`mrrstats.read_score_matrix`);
* a mapping ``{measure: DataFrame | path}`` or an
  :class:`~mrrstats.Evaluation` (then ``measure`` picks one).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import ParameterError, ParameterTypeError
from ..io.trec import read_score_matrix  # io reads files; model must not import io eagerly
from ..validation import missing_iv

__all__ = ["ScoreTable", "as_score_table", "as_score_tables", "score_sources"]


@dataclass(frozen=True, eq=False)
class ScoreTable:
    """Per-query values of one measure for several systems on the same queries.

    Attributes
    ----------
    values : ndarray, shape (n_queries, n_systems)
        Float64, C-contiguous, read-only.
    systems : tuple of str
        Column names, unique.
    queries : tuple of str
        Row names (query ids).
    measure : str
        The measure's canonical name (``"score"`` when unknown).
    dropped : tuple of str
        Queries left out because some system had no value (``missing="drop"``).

    Whether higher is better is a fact of the measure, not of the table:
    :func:`mrrstats.metrics.measures.higher_is_better`.
    """

    values: np.ndarray
    systems: tuple
    queries: tuple
    measure: str = "score"
    dropped: tuple = ()

    @property
    def n_queries(self) -> int:
        return self.values.shape[0]

    @property
    def n_systems(self) -> int:
        return self.values.shape[1]

    def column(self, system) -> np.ndarray:
        """The per-query values of one system (by name or position)."""
        if isinstance(system, str):
            try:
                system = self.systems.index(system)
            except ValueError:
                raise ParameterError(
                    f"unknown system {system!r}; have {list(self.systems)}") from None
        return self.values[:, system]

    def by_system(self) -> np.ndarray:
        """The values as ``(n_systems, n_queries)`` (samples along the last axis)."""
        return self.values.T

    def means(self) -> pd.Series:
        """Mean over queries per system."""
        return pd.Series(self.values.mean(axis=0), index=list(self.systems), name=self.measure)

    def select(self, systems) -> ScoreTable:
        """The table restricted to ``systems`` (names), in that order."""
        idx = [self.systems.index(s) if isinstance(s, str) else int(s) for s in systems]
        vals = np.ascontiguousarray(self.values[:, idx])
        vals.flags.writeable = False
        return ScoreTable(vals, tuple(self.systems[i] for i in idx), self.queries,
                          self.measure, self.dropped)

    def to_frame(self) -> pd.DataFrame:
        """A DataFrame: index ``query``, one column per system, ``attrs['measure']`` set."""
        frame = pd.DataFrame(np.array(self.values), columns=list(self.systems),
                             index=pd.Index(list(self.queries), name="query"))
        frame.attrs["measure"] = self.measure
        if self.dropped:
            frame.attrs["dropped_queries"] = list(self.dropped)
        return frame

    def __repr__(self) -> str:
        extra = f", {len(self.dropped)} dropped" if self.dropped else ""
        return (f"ScoreTable(measure={self.measure!r}, {self.n_queries} queries x "
                f"{self.n_systems} systems{extra})")


def _is_evaluation(x) -> bool:
    return hasattr(x, "measure_names") and callable(getattr(x, "scores", None))


def _read_path(path) -> pd.DataFrame:
    return read_score_matrix(path)


def _pick(mapping_names, measure, name):
    names = list(mapping_names)
    if measure is None:
        if len(names) != 1:
            raise ParameterError(f"`measure` must name one of the measures of `{name}` ({names})")
        return names[0]
    measure = str(measure)
    if measure not in names:
        raise ParameterError(f"`measure` {measure!r} is not in `{name}` (have {names})")
    return measure


def as_score_table(scores, *, measure=None, missing="raise", min_systems=1, min_queries=1,
                   finite=True, name="scores") -> ScoreTable:
    """Coerce any accepted score input to a :class:`ScoreTable` (the one coercion).

    Parameters
    ----------
    scores : ScoreTable, DataFrame, Series, array_like, path, mapping or Evaluation
        See the module docstring for the accepted shapes.
    measure : str, optional
        Which measure to take from a mapping or an Evaluation (required when
        it holds several); the name given to a frame or array otherwise.
    missing : {"raise", "drop"}
        A query with a missing (NaN) value for some system raises a
        ``ValueError`` naming it, or is dropped for every system and listed
        in ``ScoreTable.dropped``.
    min_systems, min_queries : int
        Smallest accepted table (after dropping).
    finite : bool
        Whether infinite values are an error (``True``; ``Rank`` may be inf).
    name : str
        The parameter name used in error messages.

    Returns
    -------
    ScoreTable

    Examples
    --------
    >>> import numpy as np
    >>> from mrrstats.model.scoretable import as_score_table
    >>> t = as_score_table(np.array([[1.0, 0.5, 0.25], [0.5, 0.5, 1.0]]), measure="RR")
    >>> t.systems, t.queries, t.values.shape
    (('0', '1'), ('0', '1', '2'), (3, 2))
    """
    missing_iv(missing)
    if measure is not None and not isinstance(measure, str) and type(measure).__name__ != \
            "Measure":
        raise ParameterTypeError(f"`measure` must be a measure name or None, got "
                                 f"{type(measure).__name__}", name="measure")
    from_evaluation = False
    if isinstance(scores, ScoreTable):
        frame_measure = scores.measure if measure is None else str(measure)
        X, systems, queries = scores.values, scores.systems, scores.queries
        dropped0 = scores.dropped
    else:
        dropped0 = ()
        from_evaluation = _is_evaluation(scores)
        if from_evaluation:
            m = _pick(scores.measure_names, measure, name)
            scores = scores.scores(m)
            measure = m
        elif isinstance(scores, Mapping):
            if not scores:
                raise ParameterError(f"`{name}` is an empty mapping")
            m = _pick([str(k) for k in scores], measure, name)
            value = {str(k): v for k, v in scores.items()}[m]
            if isinstance(value, (str, os.PathLike)):
                value = _read_path(value)
            if not isinstance(value, (pd.DataFrame, ScoreTable)):
                raise ParameterTypeError(
                    f"`{name}[{m!r}]` must be a DataFrame (rows = queries, columns "
                    f"= systems) or a path, got {type(value).__name__}")
            return as_score_table(value, measure=m, missing=missing, min_systems=min_systems,
                                  min_queries=min_queries, finite=finite, name=name)
        elif isinstance(scores, (str, os.PathLike)):
            scores = _read_path(scores)
        if isinstance(scores, pd.Series):
            label = scores.name if scores.name is not None else "system"
            if measure is None:
                measure = scores.attrs.get("measure")
            scores = scores.to_frame(str(label))
        if isinstance(scores, pd.DataFrame):
            if measure is None:
                measure = scores.attrs.get("measure")
            dropped0 = tuple(scores.attrs.get("dropped_queries", ()))
            try:
                X = scores.to_numpy(dtype=np.float64)
            except (TypeError, ValueError):
                raise ParameterTypeError(
                    f"`{name}` must hold numbers only (one column per system)") \
                    from None
            systems = tuple(str(c) for c in scores.columns)
            queries = tuple(str(q) for q in scores.index)
        else:
            try:
                arr = np.asarray(scores, dtype=np.float64)
            except (TypeError, ValueError):
                raise ParameterTypeError(
                    f"`{name}` must be a DataFrame (rows = queries, columns = "
                    "systems), a 1-D array (one system), an array (n_systems, "
                    "n_queries), a path, a mapping {measure: frame} or an "
                    f"Evaluation; got {type(scores).__name__}") from None
            if arr.ndim == 1:
                arr = arr[None, :]
            if arr.ndim != 2:
                raise ParameterError(f"`{name}` must be 1-D (one system) or 2-D (n_systems, "
                                 f"n_queries); got shape {arr.shape}")
            X = arr.T
            systems = tuple(str(i) for i in range(X.shape[1])) if X.shape[1] > 1 else ("0",)
            queries = tuple(str(i) for i in range(X.shape[0]))
        frame_measure = "score" if measure is None else str(measure)
    if len(set(systems)) != len(systems):
        raise ParameterError(f"`{name}` has duplicate system names")
    if finite and np.isinf(X).any():
        raise ParameterError(f"`{name}` must be finite")
    bad = np.isnan(X).any(axis=1)
    dropped = dropped0
    if bad.any():
        if missing == "raise":
            q = int(np.flatnonzero(bad)[0])
            s = int(np.flatnonzero(np.isnan(X[q]))[0])
            if from_evaluation:  # a run without results for a judged query
                raise ParameterError(
                    f"`{name}` has a missing value for system {systems[s]!r} on query "
                    f"{queries[q]!r} (the run has no results for it); evaluate with "
                    "queries='qrels' to score such queries 0 (trec_eval -c), or pass "
                    "missing='drop' to drop the queries that some system lacks")
            raise ParameterError(f"`{name}` has a missing value for system {systems[s]!r} on "
                             f"query {queries[q]!r}; pass missing='drop' to drop the "
                             "queries that some system lacks")
        dropped = dropped0 + tuple(q for q, b in zip(queries, bad, strict=True) if b)  # type: ignore[arg-type]
        X = X[~bad]
        queries = tuple(q for q, b in zip(queries, bad, strict=True) if not b)  # type: ignore[arg-type]
    if X.shape[1] < min_systems:
        raise ParameterError(f"`{name}` needs at least {min_systems} systems, got {X.shape[1]}")
    if X.shape[0] < min_queries:
        raise ParameterError(f"`{name}` needs at least {min_queries} queries, got {X.shape[0]}")
    X = np.ascontiguousarray(X, dtype=np.float64)
    if X is scores or (isinstance(scores, ScoreTable) and X is scores.values):
        X = X.copy()
    X.flags.writeable = False
    return ScoreTable(X, systems, queries, frame_measure, dropped)


def score_sources(scores, name="scores"):
    """(measure, source) pairs of a path list with ``NAME=PATH`` entries."""
    items = []
    for spec in scores:
        if isinstance(spec, (pd.DataFrame, ScoreTable)):
            m = spec.measure if isinstance(spec, ScoreTable) else spec.attrs.get("measure")
            if m is None:
                raise ParameterError(f"`{name}`: a DataFrame needs frame.attrs['measure'] or "
                                 "pass a dict {measure: frame}")
            items.append((str(m), spec))
        elif isinstance(spec, (str, os.PathLike)):
            s = os.fspath(spec)
            if "=" in s and not Path(s).exists():
                m, path = s.split("=", 1)
                items.append((m, path))
            else:
                items.append((Path(s).name.split(".")[0], s))
        else:
            raise ParameterTypeError(
                f"`{name}` must be a path, a list of paths (NAME=PATH allowed), "
                "a DataFrame, a dict measure -> DataFrame or path, or an "
                "Evaluation")
    return items


def as_score_tables(scores, *, measures=None, missing="raise", min_systems=1, min_queries=1,
                    finite=True, name="scores") -> dict:
    """Coerce several measures at once: ``{measure: ScoreTable}``, in input order.

    Accepts everything :func:`as_score_table` accepts (a single table gives a
    one-entry dict), plus a list of paths or frames (``NAME=PATH`` names a
    path's measure; otherwise the file name up to its first dot). ``measures``
    selects and orders the measures.
    """
    if _is_evaluation(scores):
        names = list(scores.measure_names) if measures is None else None
        source = {m: scores for m in (names if names is not None else [])}
    elif isinstance(scores, Mapping):
        if not scores:
            raise ParameterError(f"`{name}` is an empty mapping")
        for k in scores:
            if not isinstance(k, str) or not k:
                raise ParameterTypeError(
                    f"`{name}` keys must be non-empty measure names (str), got {k!r}")
        source = {k: {k: v} for k, v in scores.items()}
    elif isinstance(scores, (list, tuple)) and scores and all(
            isinstance(s, (str, os.PathLike, pd.DataFrame, ScoreTable)) for s in scores):
        items = score_sources(scores, name)
        ms = [m for m, _ in items]
        if len(set(ms)) != len(ms):
            raise ParameterError(f"`{name}` gives measure names {ms}: each must be unique")
        source = {m: {m: v} for m, v in items}
    else:
        t = as_score_table(scores, measure=None if measures is None else
                           (measures if isinstance(measures, str) else None),
                           missing=missing, min_systems=min_systems, min_queries=min_queries,
                           finite=finite, name=name)
        source = {t.measure: t}
    if measures is not None:
        wanted = [measures] if isinstance(measures, str) else [str(m) for m in measures]
        if _is_evaluation(scores):
            source = {m: scores for m in wanted}
        else:
            absent = [m for m in wanted if m not in source]
            if absent:
                raise ParameterError(f"`measure` {absent} not in `{name}` (have {list(source)})")
            source = {m: source[m] for m in wanted}
    if not source:
        raise ParameterError(f"`{name}` holds no measure")
    return {m: as_score_table(v, measure=m, missing=missing, min_systems=min_systems,
                              min_queries=min_queries, finite=finite, name=name)
            for m, v in source.items()}
