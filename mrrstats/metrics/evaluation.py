"""``evaluate``: runs and qrels in, per-query and aggregate measures out.

Which queries count is an explicit choice (``queries=``), with trec_eval's
names, and every evaluation reports how many queries were in the qrels only,
in the run only (unjudged), or had no relevant document.

=========== ==================================================================
``queries`` meaning
=========== ==================================================================
"both"      queries in both the qrels and the run (trec_eval's default); the
            judged queries left out are counted (``counts[run].qrels_only``)
            and warned about (:class:`mrrstats.QueriesLeftOutWarning`).
"qrels"     every qrels query; a query the run misses scores 0 on every measure
            (``trec_eval -c``).
"msmarco"   the MS MARCO passage-ranking script's convention: the run's rank
            column gives the order (``ties="rank"`` unless set otherwise),
            every listed qrels pair is relevant whatever its grade, every
            qrels query counts (missing ones score 0) and the default measure
            is ``RR@10``.
=========== ==================================================================

``queries=None`` (the default of :func:`evaluate`) is resolved per run by
:func:`mrrstats.defaults.default_queries`: a run given as lists or dicts of ids
(``{query: [doc, ...]}``, ``{query: {doc: score}}``, a ranx run: the RAG/QA door)
is scored under ``"qrels"``, so a question whose retrieval is empty or missing
scores 0 (as the RAG tools and ranx's ``make_comparable=True`` count it); every
other run (TREC files, frames, tables, the stream and Dask engines) under
``"both"``, trec_eval's default.
"""

from __future__ import annotations

import json
import math
import os
import sys
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING

import numpy as np

from ..defaults import EMPTY_TARGET as EMPTY_TARGET_DEFAULT
from ..defaults import REL, default_queries, default_ties
from ..defaults import UNJUDGED as UNJUDGED_DEFAULT
from ..errors import InputError, ParameterError, ParameterTypeError, QueriesLeftOutWarning
from ..io.doors import is_records
from ..io.flat import flat_to_qrels_run
from ..io.hashing import encode_strings
from ..io.trec import Qrels, Run, qrels_iv, run_iv
from ..lazy import deferred, is_instance
from ..model.ranking import TIES, judged_from_qrels, rank_run
from ..numerics import no_hugepage_madvise
from ..options import EMPTY_TARGET, ENGINES, QUERIES
from ..scale.engines import evaluate_groups  # dask/duckdb are optional
from ..validation import bool_iv, int_iv
from .flat_xp import evaluate_group_flat, flat_namespace
from .kernels import COMPILED_MIN_ROWS, relevant_retrieved, score_ranked_run
from .measures import GM_FLOOR, measures_iv
from .unjudged import UNJUDGED, score_with_unjudged

if TYPE_CHECKING:
    from typing import Any

    from numpy.typing import ArrayLike

    from .._typing import MeasuresInput, QrelsInput, RunsInput
    from .measures import Measure

if TYPE_CHECKING:
    import pandas as pd
else:  # imported when first used: the TREC-file path builds no DataFrame
    pd = deferred("pandas")

__all__ = ["evaluate", "evaluate_flat", "Evaluation", "QueryCounts", "QUERIES", "EMPTY_TARGET",
           "ENGINES", "evaluate_group"]

#: The statistics :meth:`Evaluation.aggregate` gives over queries.
AGGREGATES = ("mean", "median", "gmean", "sum")

_EMPTY_WORDS = {"neg": "scored 0", "pos": "scored 1", "skip": "left out",
                "error": "refused"}


@dataclass(frozen=True, repr=False)
class QueryCounts:
    """Which queries were evaluated, and which were not (nothing is dropped silently).

    Attributes
    ----------
    evaluated : int
        Queries whose values enter the means.
    qrels_only : tuple of str
        Judged queries the run has no results for (scored 0 under
        ``queries="qrels"``/``"msmarco"`` and for lists and dicts of ids, left
        out under ``"both"``, with a :class:`mrrstats.QueriesLeftOutWarning`).
    run_only : tuple of str
        Queries of the run without any judgement (always left out).
    no_relevant : tuple of str
        Counted queries (before ``empty_target="skip"`` removes them) without
        any relevant judged document (grade >= ``rel``).
    empty_target : str
        The policy applied to them: ``"neg"`` (score 0, ``Rank`` inf: trec_eval),
        ``"pos"`` (score 1, ``Rank`` 1), ``"skip"`` (left out of ``evaluated``).
    queries : str
        The query convention applied to the run (``"both"``: ``qrels_only``
        left out; ``"qrels"``/``"msmarco"``: scored 0 and counted in
        ``evaluated``).
    """

    evaluated: int
    qrels_only: tuple
    run_only: tuple
    no_relevant: tuple
    empty_target: str = "neg"
    queries: str = "both"

    def to_dict(self) -> dict:
        """How many queries of each kind (counts, not ids: the ids are the attributes)."""
        return {"evaluated": self.evaluated, "qrels_only": len(self.qrels_only),
                "run_only": len(self.run_only), "no_relevant": len(self.no_relevant),
                "empty_target": self.empty_target}

    def __repr__(self) -> str:
        """The attributes as they are: ``evaluated`` a count, the others tuples of ids
        (a long tuple shows its first ids and how many there are)."""
        def ids(t, n=3):
            t = tuple(t)
            if len(t) <= n:
                return repr(t)
            return "(" + ", ".join(map(repr, t[:n])) + f", ... {len(t)} ids)"
        return (f"QueryCounts(evaluated={self.evaluated}, qrels_only={ids(self.qrels_only)}, "
                f"run_only={ids(self.run_only)}, no_relevant={ids(self.no_relevant)}, "
                f"empty_target={self.empty_target!r})")

    def __str__(self) -> str:
        d = self.to_dict()
        fate = ""
        if self.qrels_only:
            fate = " (left out)" if self.queries == "both" else " (scored 0)"
        return (f"{d['evaluated']} evaluated; {d['qrels_only']} in qrels only{fate}; "
                f"{d['run_only']} in run only (unjudged); {d['no_relevant']} without relevant "
                f"({_EMPTY_WORDS[self.empty_target]})")


@dataclass(frozen=True, eq=False)
class Evaluation:
    """The result of :func:`evaluate`.

    Attributes
    ----------
    measures : tuple of Measure
        The measures, in the order asked.
    runs : tuple of str
        Run names, in the order given.
    values : dict of str -> pandas.DataFrame
        Per run, a frame indexed by query with one column per measure name.
    counts : dict of str -> QueryCounts
        Per run, which queries were evaluated and which were not.
    query_stats : pandas.DataFrame
        Long frame ``run, query, num_ret, num_rel, num_rel_ret, num_judged``.
    settings : dict
        Every convention used: ``ties``, ``rel``, ``queries``, ``max_depth``.
    """

    measures: tuple[Measure, ...]
    runs: tuple[str, ...]
    values: dict[str, pd.DataFrame]
    counts: dict[str, QueryCounts]
    query_stats: pd.DataFrame
    settings: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        """A short summary: runs, measures, query counts and conventions (not the values)."""
        def names(items, room=80):
            items = [str(x) for x in items]
            shown = []
            for x in items:
                if shown and len(", ".join([*shown, x])) > room:
                    break
                shown.append(x)
            more = f", ... ({len(items)} in all)" if len(shown) < len(items) else ""
            return ", ".join(shown) + more

        def spread(values):
            lo, hi = min(values), max(values)
            return f"{lo}" if lo == hi else f"{lo}-{hi}"

        counts = list(self.counts.values())
        policy = _EMPTY_WORDS.get(self.settings.get("empty_target", "neg"), "")
        conv = ", ".join(f"{k}={v!r}" if isinstance(v, str) else f"{k}={v}"
                         for k, v in self.settings.items())
        lines = [f"<Evaluation: {len(self.runs)} run{'s' * (len(self.runs) != 1)} x "
                 f"{len(self.measures)} measure{'s' * (len(self.measures) != 1)}>",
                 f"  runs: {names(self.runs)}",
                 f"  measures: {names(self.measure_names)}"]
        if counts:
            lines.append(
                f"  queries per run: {spread([c.evaluated for c in counts])} evaluated; "
                f"{spread([len(c.qrels_only) for c in counts])} in qrels only; "
                f"{spread([len(c.run_only) for c in counts])} in run only; "
                f"{spread([len(c.no_relevant) for c in counts])} without relevant ({policy})")
        lines.append(f"  conventions: {conv}")
        return "\n".join(lines)

    @property
    def measure_names(self) -> list[str]:
        return [str(m) for m in self.measures]

    def scores(self, measure: str | Measure) -> pd.DataFrame:
        """Per-query values of one measure: index ``query``, one column per run.

        Runs evaluated on different query sets are aligned on the union of
        queries; a query a run was not evaluated on is NaN.
        """
        name = str(measures_iv(measure, "measure")[0])
        if name not in self.measure_names:
            raise KeyError(f"measure {name!r} was not evaluated; have {self.measure_names}")
        frame = pd.concat({run: self.values[run][name] for run in self.runs}, axis=1)
        frame.index.name = "query"
        frame.columns.name = "run"
        return frame

    def aggregate(self, stat: str = "mean") -> pd.DataFrame:
        """One row per run, one column per measure.

        ``stat="mean"`` (default) averages over the evaluated queries; for
        ``Rank`` (first relevant rank, ``inf`` when none) the median is
        reported instead, since the mean is infinite as soon as one query has
        no relevant document. ``stat="median"`` gives medians throughout
        (e.g. median RR). ``stat="gmean"`` gives trec_eval's geometric mean,
        ``exp(mean(log(max(x, 1e-5))))`` (``gm_map`` for ``AP``, ``gm_bpref``
        for ``Bpref``; ``Rank`` keeps its median), and ``stat="sum"`` the sum
        over queries (trec_eval's ``num_ret``, ``num_rel``, ``num_rel_ret``
        for ``NumRet``, ``NumRel``, ``NumRelRet``).
        """
        if not isinstance(stat, str) or stat not in AGGREGATES:
            raise ParameterError(f"`stat` must be one of {', '.join(map(repr, AGGREGATES))}, "
                                 f"got {stat!r}")
        rows = {}
        for run in self.runs:
            v = self.values[run]
            rows[run] = {str(m): aggregate_values(v[str(m)].to_numpy(dtype=np.float64), m, stat)
                         for m in self.measures}
        frame = pd.DataFrame.from_dict(rows, orient="index")[self.measure_names]
        frame.index.name = "run"
        frame.columns.name = "measure"
        return frame

    @property
    def per_query(self) -> pd.DataFrame:
        """Long frame ``run, query, measure, value`` (queries sorted, measures in order)."""
        parts = []
        for run in self.runs:
            v = self.values[run]
            long = v.reset_index().melt(id_vars="query", var_name="measure", value_name="value")
            long.insert(0, "run", run)
            parts.append(long)
        out = pd.concat(parts, ignore_index=True)
        return out[["run", "query", "measure", "value"]]

    def to_frame(self) -> pd.DataFrame:
        """Wide per-query frame: index ``(run, query)``, one column per measure."""
        return pd.concat({run: self.values[run] for run in self.runs}, names=["run", "query"])

    # -- output formats used by the CLI --------------------------------------
    def to_tsv(self, *, per_query: bool = True, stat: str = "mean") -> str:
        """Long, stable TSV: ``run  query  measure  value``; aggregates have query ``all``."""
        bool_iv(per_query, "per_query")
        lines = ["run\tquery\tmeasure\tvalue"]
        agg = self.aggregate(stat)
        for run in self.runs:
            if per_query:
                v = self.values[run]
                for q, row in zip(v.index, v.itertuples(index=False), strict=True):
                    for name, value in zip(self.measure_names, row, strict=True):
                        lines.append(f"{run}\t{q}\t{name}\t{_fmt(value)}")
            for name in self.measure_names:
                lines.append(f"{run}\tall\t{name}\t{_fmt(agg.loc[run, name])}")
        return "\n".join(lines) + "\n"

    def to_dict(self, *, per_query: bool = False, stat: str = "mean") -> dict:
        bool_iv(per_query, "per_query")
        agg = self.aggregate(stat)
        out = {"settings": dict(self.settings), "aggregate": stat,
               "measures": self.measure_names, "runs": {}}
        for run in self.runs:
            entry = {"aggregate": {k: _json_num(v) for k, v in agg.loc[run].items()},
                     "counts": self.counts[run].to_dict()}
            if per_query:
                entry["per_query"] = {
                    str(q): {k: _json_num(x) for k, x in row.items()}
                    for q, row in self.values[run].to_dict(orient="index").items()}
            out["runs"][run] = entry  # type: ignore[index]
        return out

    def to_json(self, *, per_query: bool = False, stat: str = "mean") -> str:
        return json.dumps(self.to_dict(per_query=per_query, stat=stat), indent=2)


def _fmt(value) -> str:
    value = float(value)
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if math.isnan(value):
        return "nan"
    return repr(value)


def _json_num(value):
    value = float(value)
    if math.isnan(value) or math.isinf(value):
        return None if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


def _is_one_run(mapping: Mapping) -> bool:
    """``{query: {doc: score}}`` or ``{query: [doc, ...]}`` is one run;
    ``{name: run}`` (a run being a path, frame, Run or such a dict) is several."""
    for value in mapping.values():
        if is_records(value):
            return False  # {name: named-tuple records}
        if isinstance(value, (list, tuple, np.ndarray)):
            return True  # {query: [doc, ...]}
        if not isinstance(value, Mapping):
            return False  # {name: path / frame / Run}
        for inner in value.values():
            # {query: {doc: score}}: a number; {name: {query: ...}}: a dict or list
            return isinstance(inner, (int, float, np.integer, np.floating))
    return True


def _runs_iv(runs) -> list:
    """Normalise ``runs`` to a list of (name or None, source)."""
    if type(runs).__module__.split(".")[0] in ("dask", "dask_expr"):  # engine="dask"
        return [(None, runs)]
    if isinstance(runs, (Run, str)) or is_instance(runs, "pandas", "DataFrame") \
            or hasattr(runs, "__fspath__"):
        return [(None, runs)]
    if isinstance(runs, Mapping):
        if _is_one_run(runs):
            return [(None, runs)]
        return [(str(k), v) for k, v in runs.items()]
    if is_records(runs):  # named tuples (ir_datasets, ir_measures): one run
        return [(None, runs)]
    if isinstance(runs, (list, tuple)):
        if not runs:
            raise ParameterError("`runs` is empty")
        return [(None, r) for r in runs]
    if type(runs).__module__.split(".")[0] in ("pyarrow", "polars", "ranx"):
        return [(None, runs)]
    raise ParameterTypeError(
        "`runs` must be a run (path, DataFrame, dict or Run), a list of runs or a "
        f"dict of name -> run; got {type(runs).__name__}")


def empty_target_iv(empty_target: str) -> str:
    """Validate ``empty_target`` (shared by every entry point)."""
    if not isinstance(empty_target, str | None) or empty_target not in EMPTY_TARGET:
        raise ParameterError(
            f"`empty_target` must be one of {', '.join(map(repr, EMPTY_TARGET))}, "
            f"got {empty_target!r}")
    return empty_target


def _evaluate_iv(ties, rel, queries, max_depth, measures):
    if queries is not None and (not isinstance(queries, str) or queries not in QUERIES):
        raise ParameterError(f"`queries` must be one of {', '.join(map(repr, QUERIES))}, "
                         f"got {queries!r}")
    if ties is None:
        ties = default_ties(queries)
    if not isinstance(ties, str | None) or ties not in TIES:
        raise ParameterError(f"`ties` must be one of {', '.join(map(repr, TIES))}, got {ties!r}")
    if isinstance(rel, bool) or not isinstance(rel, (int, np.integer)) or not 1 <= rel < 2**62:
        raise ParameterError(f"`rel` must be an integer >= 1 (grades <= 0 are never relevant), "
                         f"got {rel!r}")
    int_iv(max_depth, "max_depth", allow_none=True)
    if measures is None:
        measures = ("RR@10",) if queries == "msmarco" else ("RR",)
    return ties, int(rel), measures_iv(measures)


def _msmarco_qrels(qrels: Qrels) -> Qrels:
    """Every listed pair relevant (grade 1), as the MS MARCO script reads qrels."""
    return Qrels(qrels.query, qrels.doc, np.ones_like(qrels.grade), qrels.source,
                 qrels.empty_queries)


def evaluate(qrels: QrelsInput, runs: RunsInput, measures: MeasuresInput | None = None, *,
             ties: str | None = None, rel: int = REL, queries: str | None = None,
             max_depth: int | None = None, empty_target: str = EMPTY_TARGET_DEFAULT,
             engine: str = "memory", unjudged: str = UNJUDGED_DEFAULT) -> Evaluation:
    """Evaluate one or more runs against qrels, per query and on average.

    Parameters
    ----------
    qrels : path, DataFrame, dict, Qrels, Arrow/polars table or ranx.Qrels
        Relevance judgements (see :func:`mrrstats.read_qrels`): also
        ``{query: {doc, ...}}`` or ``{query: [doc, ...]}`` (binary relevance).
    runs : a run, a list of runs, or a dict name -> run
        A run is a path, DataFrame, Arrow/polars table, ranx.Run, Run,
        ``{query: {doc: score}}`` or ``{query: [doc, ...]}`` (a ranked list:
        the list order is the ranking whatever ``ties`` says). Several runs:
        ``{name: run}``. Names default to the file names.
    measures : str or sequence of str, optional
        Measure names such as ``"RR"``, ``"RR@10"``, ``"AP"``, ``"nDCG@10"``,
        ``"P@10"``, ``"R@100"``, ``"Success@10"``, ``"Rank"`` (trec_eval and
        other common names such as ``"MRR@10"``, ``"recip_rank"``, ``"P_10"``,
        ``"Hits@10"`` are read too). Default ``("RR",)`` (``("RR@10",)`` under
        ``queries="msmarco"``).
    ties : str, optional, keyword-only
        Tie convention (:data:`mrrstats.TIES`); default ``"trec_eval"``
        (``"rank"`` under ``queries="msmarco"``). A dict run whose scores are
        all equal within every query under ``"trec_eval"`` warns: the document
        ids decide its order.
    rel : int, keyword-only
        Minimum grade that counts as relevant (trec_eval ``-l``), default 1.
        Grades <= 0 are never relevant. A measure's own ``rel=`` wins.
    queries : {"both", "qrels", "msmarco"} or None, keyword-only
        Which queries count; see the module documentation. ``None`` (default):
        the run's door decides (:func:`mrrstats.defaults.default_queries`).
        Lists and dicts of ids (``{query: [doc, ...]}``, ``{query: {doc:
        score}}``, a ranx run: the RAG/QA door) count every judged question,
        and a question whose retrieval is empty or missing scores 0 on every
        measure (``"qrels"``, ranx's ``make_comparable=True``). TREC files,
        frames, tables and the stream and Dask engines keep trec_eval's
        ``"both"``: judged queries the run has no results for are left out,
        listed in ``counts[run].qrels_only`` and warned about
        (:class:`mrrstats.QueriesLeftOutWarning`, which names
        ``queries="qrels"``).
    max_depth : int, optional, keyword-only
        Only the first ``max_depth`` documents per query count (trec_eval ``-M``).
    empty_target : {"neg", "pos", "skip", "error"}, keyword-only
        What a counted query without any relevant document (grade >= ``rel``)
        becomes: ``"neg"`` (default; every measure 0 and ``Rank`` inf, as
        trec_eval scores it, and ranx and torchmetrics' default), ``"pos"`` (1),
        ``"skip"`` (left out of the means, with a
        :class:`mrrstats.QueriesLeftOutWarning`) or ``"error"`` (an
        :class:`InputError` naming them). torchmetrics' names; the queries are
        listed in ``counts[run].no_relevant``.
    engine : {"memory", "stream", "dask", "auto"}, keyword-only
        Where the per-query values are computed (the values are identical,
        bit for bit, whichever engine): ``"memory"`` reads each run whole;
        ``"stream"`` reads a run file (TREC text, or Parquet files: a path, a
        directory or a glob) in pieces with bounded memory: a run whose
        queries' lines come together is evaluated piece by piece, any other
        row order is partitioned by query into buckets on disk and evaluated
        one bucket at a time; ``"dask"`` evaluates a Dask DataFrame or Parquet files
        partition by partition on the current Dask client (shuffling by query
        when a query spans partitions); ``"auto"`` picks ``"stream"`` for run
        files too large for the free memory and ``"memory"`` otherwise. See
        :mod:`mrrstats.scale`.
    unjudged : {"nonrelevant", "condense", "relevant"}, keyword-only
        A retrieved document the qrels do not judge counts as non-relevant
        (trec_eval, default), is removed before scoring (``"condense"``: the
        condensed list of Sakai 2007, the judged documents moving up), or
        counts as relevant with grade ``rel`` and joins the judged set (the
        upper end of :func:`mrrstats.judgment_bounds`). ``Judged@k`` is
        always the share of the ranking as retrieved.

    Returns
    -------
    Evaluation

    Raises
    ------
    InputError
        A run with no query in common with the qrels (unless ``queries`` is
        ``"qrels"`` or ``"msmarco"``, or the run is lists or dicts of ids, which
        score it 0 on every qrels query).

    Warns
    -----
    mrrstats.QueriesLeftOutWarning
        Judged queries left out of the means (under ``queries="both"``), or
        queries without a relevant document left out (``empty_target="skip"``):
        how many, and the option that counts them.

    Examples
    --------
    >>> import mrrstats
    >>> qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d7": 2}}
    >>> run = {"q1": {"d2": 0.9, "d1": 0.8}, "q2": {"d7": 0.1, "d9": 0.5}}
    >>> ev = mrrstats.evaluate(qrels, {"bm25": run}, ["RR", "P@1"])
    >>> ev.aggregate()
    measure   RR  P@1
    run
    bm25     0.5  0.0
    >>> ev.scores("RR")["bm25"].tolist()
    [0.5, 0.5]

    Retrieved lists and relevant sets (a RAG evaluation): a question whose
    retrieval is empty or missing scores 0.

    >>> relevant = {"q1": {"d1"}, "q2": ["d7", "d8"], "q3": {"d4"}}
    >>> retrieved = {"q1": ["d2", "d1"], "q2": ["d8", "d9"], "q3": []}
    >>> mrrstats.evaluate(relevant, {"rag": retrieved}, "MRR@5").scores("RR@5")["rag"].tolist()
    [0.5, 1.0, 0.0]
    """
    ties, rel, measures = _evaluate_iv(ties, rel, queries, max_depth, measures)
    empty_target = empty_target_iv(empty_target)
    if not isinstance(engine, str | None) or engine not in ENGINES:
        raise ParameterError(f"`engine` must be one of {', '.join(map(repr, ENGINES))}, "
                         f"got {engine!r}")
    if not isinstance(unjudged, str | None) or unjudged not in UNJUDGED:
        raise ParameterError(f"`unjudged` must be one of {', '.join(map(repr, UNJUDGED))}, "
                         f"got {unjudged!r}")
    # The result holds DataFrames: pandas comes, and imports pyarrow.compute with it.
    # Imported first, the readers use Arrow's kernels rather than the numpy takes and
    # sorts that spare the command line's array path (mrrstats.metrics.files) that import.
    import pyarrow.compute  # noqa: F401

    with no_hugepage_madvise():
        return _evaluate(qrels, runs, measures, ties, rel, queries, max_depth, empty_target,
                         engine, unjudged)


def evaluate_group(qrels, run, *, measures, ties, rel, max_depth,
                   unjudged=UNJUDGED_DEFAULT) -> tuple:
    """Per-query values of a run holding whole queries (the unit every engine feeds).

    Returns ``(values, run_ids, depth, rel_retrieved)``: the per-query frame
    of every query of ``run`` (index ``query``), the query ids, documents
    retrieved and relevant documents retrieved per query. A query's values
    depend only on its own rows (in file order), so any grouping of whole
    queries gives the same values.
    """
    ranked = rank_run(qrels, run, ties=ties, max_depth=max_depth)
    if unjudged == UNJUDGED_DEFAULT:
        per_q = score_ranked_run(ranked, measures, rel=rel)
    else:  # condensed lists, or unjudged counted relevant (metrics.unjudged)
        per_q, ranked = score_with_unjudged(ranked, measures, rel=rel, unjudged=unjudged)
    return per_q, ranked.query_ids.astype(str), ranked.depth(), _rel_retrieved(ranked, rel)


def _combine_groups(parts) -> tuple:
    """One result from the results of groups of whole queries, queries sorted as in memory."""
    parts = [p for p in parts if len(p[1])]
    if len(parts) == 1:
        return parts[0]
    if not parts:
        raise ParameterError("the run has no rows")
    run_ids = np.concatenate([p[1] for p in parts])
    if np.unique(run_ids).size != run_ids.size:
        raise ParameterError("a query was split across groups (internal error)")
    order = np.argsort(run_ids, kind="stable")
    per_q = pd.concat([p[0] for p in parts]).iloc[order]
    return (per_q, run_ids[order], np.concatenate([p[2] for p in parts])[order],
            np.concatenate([p[3] for p in parts])[order])


def _evaluate_run(given_name, source, group, engine, ties) -> tuple:
    """``(name, values, run_ids, depth, rel_retrieved, source, kind)`` of one run via
    ``engine``; ``kind`` is ``"list"``/``"dict"`` for lists and dicts of ids, else None."""
    if engine != "memory":
        name, parts = evaluate_groups(source, group, engine=engine, name=given_name)
        if parts is not None:
            return (name, *_combine_groups(parts), str(source), None)
    run = run_iv(source, run_name=given_name)
    _warn_equal_scores(run, ties)
    return (run.name, *group(run), run.source, run._meta.get("from_dict"))


def _evaluate(qrels, runs, measures, ties, rel, queries, max_depth,
              empty_target="neg", engine="memory", unjudged=UNJUDGED_DEFAULT) -> Evaluation:
    qrels = qrels_iv(qrels)
    if queries == "msmarco":
        qrels = _msmarco_qrels(qrels)
    items = _runs_iv(runs)
    values, counts, stats, names, conventions = {}, {}, [], [], {}
    group = partial(evaluate_group, measures=measures, ties=ties, rel=rel, max_depth=max_depth,
                    unjudged=unjudged)
    for given_name, source in items:
        name, per_q, run_ids, depth, info, src, kind = _evaluate_run(
            given_name, source, partial(group, qrels), engine, ties)
        if name in values:
            raise ParameterError(f"two runs are named {name!r}; pass a dict {{name: run}} to name "
                             "them apart")
        names.append(name)
        conventions[name] = queries if queries is not None else default_queries(kind)
        values[name], counts[name], st = _finish_run(
            qrels, name, src, per_q, run_ids, depth, info, measures, rel=rel,
            queries=conventions[name], empty_target=empty_target,
            refuse_disjoint=queries is None)
        stats.append(st)
    if len(set(conventions.values())) == 1:
        resolved = next(iter(conventions.values()))
    else:  # runs of different doors: each run's convention
        resolved = conventions
    return _evaluation(measures, names, values, counts, stats, ties=ties, rel=rel,
                       queries=resolved, max_depth=max_depth, empty_target=empty_target,
                       unjudged=unjudged)


def _evaluation(measures, names, values, counts, stats, *, ties, rel, queries, max_depth,
                empty_target, unjudged=UNJUDGED_DEFAULT) -> Evaluation:
    settings = {"ties": ties, "rel": rel, "queries": queries, "max_depth": max_depth,
                "empty_target": empty_target}
    if unjudged != UNJUDGED_DEFAULT:  # named only when not trec_eval's
        settings["unjudged"] = unjudged
    return Evaluation(measures=measures, runs=tuple(names), values=values, counts=counts,
                      query_stats=pd.concat(stats, ignore_index=True), settings=settings)


def evaluate_flat(preds: ArrayLike, target: ArrayLike, indexes: ArrayLike,
                  measures: MeasuresInput | None = None, *,
                  empty_target: str = EMPTY_TARGET_DEFAULT,
                  ties: str = "expected", rel: int = 1, max_depth: int | None = None,
                  name: str = "run") -> Evaluation:
    """Evaluate flat ``preds``, ``target``, ``indexes`` arrays (torchmetrics' contract).

    Parameters
    ----------
    preds : array
        Score of each (query, document) row; higher is better. NumPy, or any
        array-API / DLPack array (torch in any float dtype including float16
        and bfloat16, ``requires_grad`` or not, on CPU or GPU; CuPy; JAX): it
        is widened to float64 on its device, never rounded. When ``preds``,
        ``target`` and ``indexes`` are arrays of one such library on one
        device (integer ``indexes``), they are checked and ranked there and
        only small per-query results come back (:mod:`mrrstats.metrics.flat_xp`);
        the values are the NumPy path's, bit for bit.
    target : array
        Grade of each row: bool or integer (``0``/``False``: judged
        non-relevant; graded targets feed nDCG).
    indexes : array
        Query of each row (integers, or strings in a NumPy array).
    measures : str or sequence of str, optional
        As in :func:`evaluate`; default ``("RR",)``.
    empty_target : {"neg", "pos", "skip", "error"}, keyword-only
        A query without any relevant row: scored 0 (default, as every
        torchmetrics retrieval metric's ``empty_target_action="neg"``), scored
        1, left out (with a :class:`mrrstats.QueriesLeftOutWarning`; still
        listed in ``counts[name].no_relevant``), or an error (``"skip"`` was
        the default of mrrstats 0.1).
    ties : str, keyword-only
        Tie convention (:data:`mrrstats.TIES`). Default ``"expected"``: the
        exact expectation over random tie-breaking (torchmetrics' sort leaves
        ties in an unspecified order). Document ids are row numbers.
    rel : int, keyword-only
        Minimum grade that counts as relevant, default 1.
    max_depth : int, optional, keyword-only
        Only the first ``max_depth`` documents per query count.
    name : str, keyword-only
        The run's name in the result.

    Returns
    -------
    Evaluation
        The same object :func:`evaluate` returns (queries are the ``indexes``
        values as strings), so :func:`mrrstats.compare`, the baselines and the
        report accept it.

    Examples
    --------
    >>> import numpy as np, mrrstats
    >>> preds = np.array([0.2, 0.3, 0.5, 0.1, 0.3, 0.5, 0.2], dtype=np.float16)
    >>> target = np.array([False, False, True, False, True, False, True])
    >>> indexes = np.array([0, 0, 0, 1, 1, 1, 1])
    >>> ev = mrrstats.evaluate_flat(preds, target, indexes, ["RR", "P@2"])
    >>> ev.aggregate()
    measure    RR   P@2
    run
    run      0.75  0.5
    """
    ties, rel, measures = _evaluate_iv(ties, rel, "both", max_depth, measures)
    empty_target = empty_target_iv(empty_target)
    if not isinstance(name, str):
        raise ParameterTypeError(f"`name` must be a str, got {type(name).__name__}")
    with no_hugepage_madvise():
        xp = flat_namespace(preds, target, indexes)
        if xp is not None:  # torch, CuPy, ... arrays: ranked where they are (metrics.flat_xp)
            per_q, run_ids, depth, info, judged = evaluate_group_flat(
                xp, preds, target, indexes, measures=measures, ties=ties, rel=rel,
                max_depth=max_depth)
            values, counts, st = _finish_run("<target>", name, "<preds>", per_q, run_ids, depth,
                                             info, measures, rel=rel, queries="both",
                                             empty_target=empty_target, judged=judged)
            return _evaluation(measures, [name], {name: values}, {name: counts}, [st],
                               ties=ties, rel=rel, queries="both", max_depth=max_depth,
                               empty_target=empty_target)
        qrels, run = flat_to_qrels_run(preds, target, indexes, name=name)
        return _evaluate(qrels, {name: run}, measures, ties, rel, "both", max_depth,
                         empty_target)


def _warn_equal_scores(run: Run, ties: str) -> None:
    if ties != "trec_eval" or run._meta.get("from_dict") != "dict" or len(run) < 2:
        return
    if _every_query_one_score(run):
        warnings.warn(
            f"run {run.name!r}: every query's documents have the same score, so under "
            "ties='trec_eval' the document ids decide the order; give each query's documents "
            "as a list in rank order ({query: [doc, ...]}) if that order is the ranking",
            UserWarning, stacklevel=4)


def _every_query_one_score(run: Run) -> bool:
    """Whether some query has several documents and every such query one score only
    (on the query codes: no Python object per row)."""
    codes = run._meta.get("query_codes")
    if codes is None:
        codes = encode_strings(run.query)[1]
    codes = np.asarray(codes, dtype=np.int64)
    size = np.bincount(codes)
    if not (size > 1).any():
        return False
    starts = np.flatnonzero(np.diff(codes)) + 1
    if starts.size + 1 == size.size:  # each query in one block of rows (a dict's layout)
        starts = np.concatenate(([0], starts))
        low = np.minimum.reduceat(run.score, starts)
        high = np.maximum.reduceat(run.score, starts)
        size = size[codes[starts]]
    else:
        low = np.full(size.size, np.inf)
        high = np.full(size.size, -np.inf)
        np.minimum.at(low, codes, run.score)
        np.maximum.at(high, codes, run.score)
    several = size > 1
    return bool((low[several] == high[several]).all())


def _finish_run(qrels, name, source, per_q, run_ids, depth, info, measures, *, rel, queries,
                empty_target, judged=None, refuse_disjoint=False):
    """Apply the query policies (``queries``, ``empty_target``) to one run's values.

    ``judged`` (the flat door on a device) stands for ``judged_from_qrels(qrels)``;
    ``qrels`` is then only the qrels' source name. ``refuse_disjoint``: a run with
    queries but none in common with the qrels is an error whatever ``queries`` says
    (the convention came from the door, not from the caller: mismatched ids).
    """
    judged_all = judged_from_qrels(qrels) if judged is None else judged
    qrels_source = qrels if judged is not None else qrels.source
    qrels_ids = judged_all.query_ids.astype(str)
    num_rel_all = judged_all.num_rel(rel)
    judged_mask = np.isin(run_ids, qrels_ids)
    run_only = tuple(str(q) for q in run_ids[~judged_mask])
    qrels_only = tuple(str(q) for q in qrels_ids[~np.isin(qrels_ids, run_ids)])
    if not judged_mask.any() and (queries == "both" or (refuse_disjoint and run_ids.size)):
        raise InputError(
            f"run {name!r} ({source}) has no query in common with the qrels "
            f"({qrels_source}): run queries {_few(run_ids)}, qrels queries "
            f"{_few(qrels_ids)} (pass queries='qrels' to score every qrels query 0)")
    per_q = per_q.loc[judged_mask]
    depth = depth[judged_mask]
    info = info[judged_mask]
    if queries == "both" and qrels_only:
        warn_qrels_only(name, qrels_only, len(qrels_ids))
    if queries in ("qrels", "msmarco") and qrels_only:
        fill = {str(m): m.spec.no_relevant_retrieved for m in measures}
        missing = pd.DataFrame([fill] * len(qrels_only),
                               index=pd.Index(list(qrels_only), name="query"))
        for m in measures:  # a query the run misses still has its relevant documents
            if m.name == "NumRel":  # (trec_eval -c prints them)
                at = np.searchsorted(qrels_ids, np.asarray(qrels_only, dtype=str))
                missing[str(m)] = judged_all.num_rel(m.rel or rel)[at].astype(np.float64)
        per_q = pd.concat([per_q, missing])
        per_q = per_q.sort_index(key=lambda idx: idx.astype(str))
    per_q.columns.name = "measure"
    evaluated = per_q.index.astype(str).to_numpy()
    pos = np.searchsorted(qrels_ids, evaluated)
    empty = num_rel_all[pos] == 0
    no_rel = tuple(str(q) for q in evaluated[empty])
    if empty.any():
        if empty_target == "error":
            raise InputError(
                f"run {name!r}: {int(empty.sum())} queries have no relevant document "
                f"(grade >= {rel}): {_few(evaluated[empty])} (pass empty_target='neg', 'pos' "
                "or 'skip')", source=qrels_source)
        if empty_target == "pos":
            per_q = per_q.copy()
            # Judged and the counts (NumRet, ...) are not scores of relevance
            cols = [str(m) for m in measures if m.name != "Judged" and not m.spec.count]
            per_q.loc[empty, cols] = 1.0
        elif empty_target == "skip":
            per_q = per_q.loc[~empty]
            evaluated, pos = evaluated[~empty], pos[~empty]
            warn_skipped(name, no_rel)
    counts = QueryCounts(len(evaluated), qrels_only, run_only, no_rel, empty_target, queries)
    # query statistics (for baselines and reports)
    ret = pd.Series(depth, index=run_ids[judged_mask])
    relret = pd.Series(info, index=run_ids[judged_mask])
    st = pd.DataFrame({"query": evaluated})
    st["num_ret"] = ret.reindex(evaluated).fillna(0).astype(np.int64).to_numpy()
    st["num_rel"] = num_rel_all[pos].astype(np.int64)
    st["num_rel_ret"] = relret.reindex(evaluated).fillna(0).astype(np.int64).to_numpy()
    st["num_judged"] = judged_all.num_judged()[pos].astype(np.int64)
    st.insert(0, "run", name)
    return per_q, counts, st


def _warn_left_out(message: str) -> None:
    """A :class:`QueriesLeftOutWarning` attributed to the caller's first frame outside
    mrrstats (whichever door or engine led here)."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    level, frame = 2, sys._getframe(1)  # stacklevel 2: the function that called this one
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        level, frame = level + 1, frame.f_back
    warnings.warn(message, QueriesLeftOutWarning, stacklevel=level)


def warn_qrels_only(name: str, qrels_only, n_judged: int) -> None:
    """Warn that ``queries="both"`` left judged queries the run has no results for out."""
    _warn_left_out(
        f"run {name!r}: {len(qrels_only)} of the {n_judged} judged queries have no "
        f"results in the run and are left out of the means (queries='both', trec_eval's "
        f"default): {_few(qrels_only)}; pass queries='qrels' to score them 0 "
        "(counts[run].qrels_only lists them)")


def aggregate_values(col, measure, stat: str) -> float:
    """One cell of :meth:`Evaluation.aggregate`: the per-query values ``col`` of
    ``measure`` under ``stat`` (NaN for no query; Rank's is always the median)."""
    col = np.asarray(col, dtype=np.float64)
    if col.size == 0:
        return np.nan
    if stat == "median" or measure.name == "Rank":
        return float(np.median(col))
    if stat == "gmean":  # trec_eval's te_calc_avg_meas_s_gm
        return float(np.exp(np.mean(np.log(np.maximum(col, GM_FLOOR)))))
    if stat == "sum":
        return float(np.sum(col))
    return float(np.mean(col))


def warn_skipped(name: str, no_relevant) -> None:
    """Warn that ``empty_target="skip"`` left queries without a relevant document out."""
    _warn_left_out(
        f"run {name!r}: {len(no_relevant)} queries without any relevant document are left "
        f"out of the means (empty_target='skip'): {_few(no_relevant)}; pass "
        "empty_target='neg' to score them 0 (counts[run].no_relevant lists them)")


def _few(ids, n: int = 3) -> str:
    ids = [str(i) for i in ids]
    shown = ", ".join(repr(i) for i in ids[:n])
    return f"[{shown}{', ...' if len(ids) > n else ''}] ({len(ids)})"


def _rel_retrieved(ranked, rel: int) -> np.ndarray:
    """Relevant documents retrieved per query (within max_depth)."""
    n_q = ranked.n_queries
    if n_q == 0:
        return np.zeros(0, dtype=np.int64)
    if ranked.grades.size >= COMPILED_MIN_ROWS:  # one compiled pass, no run-sized temporaries
        out = relevant_retrieved(ranked.offsets, ranked.grades, rel=rel,
                                 max_depth=ranked.max_depth)
        if out is not None:
            return out
    if ranked.max_depth is None and (np.diff(ranked.offsets) > 0).all():  # no empty query
        relevant = (ranked.grades >= rel).view(np.int8)
        return np.add.reduceat(relevant, ranked.offsets[:-1], dtype=np.int64)
    lens = np.diff(ranked.offsets)
    qidx = np.repeat(np.arange(n_q), lens)
    pos = np.arange(ranked.grades.size) - ranked.offsets[:-1][qidx] + 1
    keep = ranked.grades >= rel
    if ranked.max_depth is not None:
        keep &= pos <= ranked.max_depth
    return np.bincount(qidx[keep], minlength=n_q)

