"""Controlled perturbations of real runs, for teaching what each measure sees.

Each function takes qrels and one or more runs, changes every query's ranking
in one controlled way, scores the ranking before and after with the
trec_eval definitions of :func:`mrrstats.score_rankings` and returns a tidy
frame (one row per run, query, setting and measure) ready to plot:

* :func:`move_first_relevant`: the first relevant document placed at rank
  ``r`` and then moved to ``r + 1``. RR loses ``1/r - 1/(r+1)``: half its value
  at ``r = 1``, 0.0004 at ``r = 50``.
* :func:`swap_relevant`: two relevant documents below the first trade places.
  RR and binary AP and P@10 cannot see it; nDCG sees it when their grades differ.
* :func:`add_relevant`: more relevant documents placed right below the first.
  RR cannot see it; AP, nDCG and P@10 rise.

Common columns of the returned frames:

``run``, ``query``
    Run name and query id.
``measure``
    Canonical measure name (e.g. ``"RR"``, ``"P@10"``).
``before``, ``after``, ``difference``
    The measure on the ranking before and after the perturbation and
    ``after - before``. NaN when the perturbation is not defined for the query
    (``eligible`` is False).
``eligible``
    Whether the perturbation could be applied to the query (the reasons are
    given with each function).
``first_rank``
    Rank of the first relevant document in the real run (NaN if none).
``num_rel``
    Number of relevant documents of the query in the qrels.

Queries of a run that are not in the qrels are left out (as trec_eval does).
Only the grades of the ranked documents matter to the measures, so the
perturbations act on each query's list of grades (``rank_run(...).rankings()``):
unjudged documents (NaN) count as non-relevant, and a document is relevant when
its grade is ``>= rel`` (and > 0), as in trec_eval.
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..errors import ParameterError, ParameterTypeError
from ..io.trec import run_iv
from ..metrics.kernels import score_rankings
from ..metrics.measures import measures_iv
from ..model.ranking import rank_run

if TYPE_CHECKING:
    from .._typing import QrelsInput, RunsInput

__all__ = ["move_first_relevant", "swap_relevant", "add_relevant", "perturbation_summary"]

_DEFAULT_MEASURES = ("RR", "AP", "nDCG", "P@10")
_COMMON = ["run", "query", "measure", "before", "after", "difference", "eligible", "first_rank",
           "num_rel"]


# --------------------------------------------------------------------------
# shared plumbing
# --------------------------------------------------------------------------

def _named_runs(runs) -> list[tuple[str, object]]:
    """[(name, run)] from one run, a list of runs or a {name: run} mapping."""
    first = next(iter(runs.values()), None) if isinstance(runs, Mapping) else None
    if isinstance(runs, Mapping) and not (isinstance(first, Mapping) and not any(
            isinstance(v, Mapping) for v in first.values())):
        # {name: run}; a {query: {doc: score}} dict is one run (handled below)
        items = [(str(k), run_iv(v, run_name=str(k))) for k, v in runs.items()]
    elif isinstance(runs, (str, os.PathLike, Mapping)) or not isinstance(runs, Sequence):
        run = run_iv(runs)
        items = [(str(run.name), run)]
    else:
        items = []
        for r in runs:
            run = run_iv(r)
            items.append((str(run.name), run))
    if not items:
        raise ParameterError("`runs` holds no run")
    names = [n for n, _ in items]
    if len(set(names)) != len(names):
        raise ParameterError(f"`runs` has duplicate run names {names}; pass a dict "
                         "{name: run} to name them")
    return items  # type: ignore[return-value]


def _measure_names(measures) -> list[str]:
    if isinstance(measures, str):
        measures = [measures]
    return [str(m) for m in measures_iv(measures)]


def _check_rel(rel):
    if isinstance(rel, bool) or not isinstance(rel, numbers.Integral) or rel < 1:
        raise ParameterError(f"`rel` must be an integer >= 1, got {rel!r}")
    return int(rel)


def _check_steps(values, param, minimum):
    if isinstance(values, numbers.Integral) and not isinstance(values, bool):
        values = [values]
    try:
        values = list(values)
    except TypeError:
        raise ParameterTypeError(
            f"`{param}` must be an integer or a sequence of integers") from None
    if not values:
        raise ParameterError(f"`{param}` is empty")
    for v in values:
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < minimum:
            raise ParameterError(f"`{param}` must hold integers >= {minimum}, got {v!r}")
    if len(set(values)) != len(values):
        raise ParameterError(f"`{param}` has duplicates: {values}")
    return [int(v) for v in values]


def _is_rel(grades: np.ndarray, rel: int) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return np.nan_to_num(grades, nan=0.0) >= rel


def _run_perturbation(qrels, runs, measures, rel, ties, settings, build, setting_col):
    """Score ``build(grades, judged, setting) -> (before, after) or None`` for every
    run, query and setting; return the tidy frame."""

    names = _measure_names(measures)
    records = []  # (run, query, setting, first_rank, num_rel, eligible)
    rankings, judged_lists = [], []
    for run_name, run in _named_runs(runs):
        ranked = rank_run(qrels, run, ties=ties)
        for qid, grades, judged in zip(ranked.query_ids, ranked.rankings(),
                                       ranked.judged_lists(), strict=True):
            if len(judged) == 0:
                continue  # not in the qrels: trec_eval ignores such queries
            grades = np.asarray(grades, dtype=np.float64)
            judged = np.asarray(judged, dtype=np.float64)
            is_rel = _is_rel(grades, rel)
            first = float(np.argmax(is_rel) + 1) if is_rel.any() else np.nan
            num_rel = int(_is_rel(judged, rel).sum())
            for s in settings:
                pair = build(grades, judged, s)
                records.append((run_name, str(qid), s, first, num_rel, pair is not None))
                if pair is not None:
                    rankings.extend(pair)
                    judged_lists.extend([judged, judged])
    n_rows = len(records)
    values = np.full((n_rows, 2, len(names)), np.nan)
    if rankings:
        scored = score_rankings(rankings, names, judged=judged_lists, rel=rel)
        scored = scored[names].to_numpy(dtype=np.float64).reshape(-1, 2, len(names))
        ok = np.array([r[5] for r in records], dtype=bool)
        values[ok] = scored
    rec = pd.DataFrame(records, columns=["run", "query", setting_col, "first_rank",
                                         "num_rel", "eligible"])
    # one row per (record, measure), in record order
    out = rec.loc[rec.index.repeat(len(names))].reset_index(drop=True)
    out["measure"] = np.tile(np.asarray(names, dtype=object), n_rows)
    out["before"] = values[:, 0, :].ravel()
    out["after"] = values[:, 1, :].ravel()
    out["difference"] = out["after"] - out["before"]
    return out[_COMMON[:2] + [setting_col] + _COMMON[2:]]


# --------------------------------------------------------------------------
# the three perturbations
# --------------------------------------------------------------------------

def _move_first_relevant_iv(ranks, rel):
    return _check_steps(ranks, "ranks", 1), _check_rel(rel)


def move_first_relevant(qrels: QrelsInput, runs: RunsInput, *,
                        ranks: int | Sequence[int] = (1, 2, 5, 10, 50),
                        measures: Sequence[str] = _DEFAULT_MEASURES, rel: int = 1,
                        ties: str = "trec_eval") -> pd.DataFrame:
    r"""Move the first relevant document from rank ``r`` to rank ``r + 1``.

    For each query of a real run and each ``r``, the first relevant document
    is taken out of the ranking and put back at rank ``r`` (the *before*
    ranking: everything else keeps its order); then it trades places with the
    document below it (the *after* ranking, first relevant at ``r + 1``).

    Parameters
    ----------
    qrels, runs
        As for :func:`mrrstats.evaluate`: paths or objects; ``runs`` is one run,
        a list of runs or a ``{name: run}`` mapping.
    ranks : int or sequence of int, keyword-only
        The ranks ``r >= 1`` to start from (default 1, 2, 5, 10, 50).
    measures : sequence of str, keyword-only
        Measures to report (default RR, AP, nDCG, P@10).
    rel : int, keyword-only
        Minimum grade that counts as relevant (default 1).
    ties : str, keyword-only
        Tie handling of the run's scores, as in :func:`mrrstats.rank_run`.

    Returns
    -------
    pandas.DataFrame
        The common columns of :mod:`mrrstats.agreement.perturb` plus ``r``. A query is
        eligible for ``r`` when it has a relevant document retrieved, the
        documents above rank ``r`` in the *before* ranking are all
        non-relevant (so the moved document is the first relevant one at
        rank ``r``) and the document at rank ``r + 1`` exists and is
        non-relevant (so afterwards the first relevant is at ``r + 1``). In
        the real run with the second relevant document at rank :math:`s`
        (or the list of length :math:`n` when there is none), that is
        :math:`r \le s - 2` (resp. :math:`r \le n - 1`).

    Notes
    -----
    Only the moved document changes rank, by one; every other relevant
    document stays below it at its rank. With :math:`R` relevant documents,
    grade :math:`g` of the moved document and ideal DCG :math:`I`:

    .. math::

        \Delta RR = \frac{1}{r+1} - \frac{1}{r}, \quad
        \Delta AP = \frac{\Delta RR}{R}, \quad
        \Delta nDCG = \frac{g}{I}\Big(\frac{1}{\log_2(r+2)} -
                                     \frac{1}{\log_2(r+1)}\Big),

    and :math:`\Delta P@10 = -1/10` when :math:`r = 10`, else 0.

    Examples
    --------
    >>> import pandas as pd
    >>> from mrrstats import move_first_relevant
    >>> qrels = pd.DataFrame({"query": ["q1"] * 2, "doc": ["d2", "d4"], "grade": [1, 1]})
    >>> run = pd.DataFrame({"query": ["q1"] * 5, "doc": ["d1", "d2", "d3", "d4", "d5"],
    ...                     "score": [5.0, 4.0, 3.0, 2.0, 1.0]})
    >>> out = move_first_relevant(qrels, {"bm25": run}, ranks=[1, 2], measures=["RR", "AP"])
    >>> cols = ["r", "measure", "before", "after", "difference"]
    >>> print(out[cols].round(4).to_string(index=False))
     r measure  before  after  difference
     1      RR    1.00 0.5000 -0.5000
     1      AP    0.75 0.5000 -0.2500
     2      RR    0.50 0.3333 -0.1667
     2      AP    0.50 0.4167 -0.0833
    """
    ranks, rel = _move_first_relevant_iv(ranks, rel)

    def build(grades, judged, r):
        is_rel = _is_rel(grades, rel)
        if not is_rel.any():
            return None
        f = int(np.argmax(is_rel))
        rest = np.delete(grades, f)
        rest_rel = _is_rel(rest, rel)
        second = int(np.argmax(rest_rel)) if rest_rel.any() else rest.size
        # before: inserted at 0-based r-1, needs rest[:r-1] non-relevant (r-1 <= second)
        # and a non-relevant document right below it: rest[r-1] exists, r-1 < second.
        if not r - 1 < second:
            return None
        before = np.insert(rest, r - 1, grades[f])
        after = np.insert(rest, r, grades[f])
        return before, after

    return _run_perturbation(qrels, runs, measures, rel, ties, ranks, build, "r")


def _swap_relevant_iv(which, rel):
    try:
        which = tuple(which)
    except TypeError:
        raise ParameterTypeError("`which` must be a pair of integers, e.g. (2, 3)") from None
    if len(which) != 2:
        raise ParameterError(f"`which` must be a pair of integers, got {which!r}")
    return tuple(_check_steps(which, "which", 2)), _check_rel(rel)


def swap_relevant(qrels: QrelsInput, runs: RunsInput, *, which: tuple[int, int] = (2, 3),
                  measures: Sequence[str] = _DEFAULT_MEASURES, rel: int = 1,
                  ties: str = "trec_eval") -> pd.DataFrame:
    """Swap two relevant documents below the first relevant one.

    Parameters
    ----------
    qrels, runs
        As for :func:`move_first_relevant`.
    which : pair of int, keyword-only
        Which relevant documents to swap, counted in rank order among the
        retrieved relevant documents (1 is the first relevant, which stays
        put; default the 2nd and 3rd).
    measures, rel, ties
        As for :func:`move_first_relevant`.

    Returns
    -------
    pandas.DataFrame
        The common columns of :mod:`mrrstats.agreement.perturb` plus ``pair`` (e.g.
        ``"2-3"``). A query is eligible when the run retrieved at least
        ``max(which)`` relevant documents; ``before`` is the real run.

    Notes
    -----
    Binary measures (RR, AP, P@k, R@k, Success@k) depend only on which ranks
    hold relevant documents, so they cannot change: ``difference`` is 0. nDCG
    changes when the two grades differ: the higher grade moving up raises it.
    This is the teaching point: graded relevance below the top is invisible
    to RR, and grades are invisible to every binary measure.

    Examples
    --------
    >>> import pandas as pd
    >>> from mrrstats import swap_relevant
    >>> qrels = pd.DataFrame({"query": ["q1"] * 3, "doc": ["d1", "d3", "d4"],
    ...                       "grade": [1, 1, 3]})
    >>> run = pd.DataFrame({"query": ["q1"] * 4, "doc": ["d1", "d2", "d3", "d4"],
    ...                     "score": [4.0, 3.0, 2.0, 1.0]})
    >>> out = swap_relevant(qrels, {"bm25": run}, measures=["RR", "AP", "nDCG"])
    >>> print(out[["measure", "difference"]].round(4).to_string(index=False))
    measure  difference
         RR 0.0000
         AP 0.0000
       nDCG 0.0336
    """
    (i, j), rel = _swap_relevant_iv(which, rel)
    label = f"{i}-{j}"

    def build(grades, judged, _):
        pos = np.flatnonzero(_is_rel(grades, rel))
        if pos.size < max(i, j):
            return None
        after = grades.copy()
        a, b = pos[i - 1], pos[j - 1]
        after[a], after[b] = grades[b], grades[a]
        return grades, after

    return _run_perturbation(qrels, runs, measures, rel, ties, [label], build, "pair")


def _add_relevant_iv(n, rel):
    return _check_steps(n, "n", 1), _check_rel(rel)


def add_relevant(qrels: QrelsInput, runs: RunsInput, *, n: int | Sequence[int] = (1, 2, 5),
                 measures: Sequence[str] = _DEFAULT_MEASURES, rel: int = 1,
                 ties: str = "trec_eval") -> pd.DataFrame:
    """Put ``n`` more relevant documents directly below the first relevant one.

    The documents are the query's own relevant documents: first those the run
    ranks lower (2nd, 3rd, ... relevant, in their order), then, if the run
    retrieved fewer than ``n + 1``, relevant documents of the qrels it did not
    retrieve (highest grade first), which lengthen the list. Everything else
    keeps its relative order, shifted down. The number of relevant documents
    of the query (and so the AP and nDCG normalisation) does not change.

    Parameters
    ----------
    qrels, runs
        As for :func:`move_first_relevant`.
    n : int or sequence of int, keyword-only
        Numbers of relevant documents to place below the first (default 1, 2,
        5).
    measures, rel, ties
        As for :func:`move_first_relevant`.

    Returns
    -------
    pandas.DataFrame
        The common columns of :mod:`mrrstats.agreement.perturb` plus ``n``. A query is
        eligible when the run retrieved a relevant document and the qrels
        hold at least ``n + 1`` relevant documents; ``before`` is the real
        run.

    Notes
    -----
    RR depends only on the first relevant document, so its ``difference`` is 0:
    a run that finds one relevant document and one that finds ten right
    behind it have the same RR. AP, nDCG and P@10 (when the first relevant is
    above rank 10) increase.

    Examples
    --------
    >>> import pandas as pd
    >>> from mrrstats import add_relevant
    >>> qrels = pd.DataFrame({"query": ["q1"] * 2, "doc": ["d1", "d4"], "grade": [1, 1]})
    >>> run = pd.DataFrame({"query": ["q1"] * 4, "doc": ["d1", "d2", "d3", "d4"],
    ...                     "score": [4.0, 3.0, 2.0, 1.0]})
    >>> out = add_relevant(qrels, {"bm25": run}, n=1, measures=["RR", "AP"])
    >>> print(out[["measure", "before", "after"]].round(4).to_string(index=False))
    measure  before  after
         RR    1.00    1.0
         AP    0.75    1.0
    """
    steps, rel = _add_relevant_iv(n, rel)

    def build(grades, judged, k):
        is_rel = _is_rel(grades, rel)
        judged_rel = judged[_is_rel(judged, rel)]
        if not is_rel.any() or judged_rel.size < k + 1:
            return None
        pos = np.flatnonzero(is_rel)
        f = pos[0]
        lower = pos[1:k + 1]  # the run's own lower-ranked relevant documents
        moved = list(grades[lower])
        if len(moved) < k:
            # relevant grades of the qrels the run did not retrieve (multiset difference)
            pool = list(np.sort(judged_rel)[::-1])
            for g in grades[is_rel]:
                pool.remove(g)
            moved += pool[:k - len(moved)]
        rest = np.delete(grades, lower)
        after = np.insert(rest, f + 1, np.asarray(moved, dtype=np.float64))
        return grades, after

    return _run_perturbation(qrels, runs, measures, rel, ties, steps, build, "n")


def _perturbation_summary_iv(frame):
    if not isinstance(frame, pd.DataFrame) or not set(_COMMON) <= set(frame.columns):
        raise ParameterTypeError("`frame` must be a frame returned by move_first_relevant, "
                        "swap_relevant or add_relevant")
    setting = [c for c in frame.columns if c not in _COMMON]
    if len(setting) != 1:
        raise ParameterError("`frame` must have exactly one setting column (r, pair or n)")
    return frame, setting[0]


def perturbation_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean effect of a perturbation per run, setting and measure.

    Parameters
    ----------
    frame : pandas.DataFrame
        The output of :func:`move_first_relevant`, :func:`swap_relevant` or
        :func:`add_relevant`.

    Returns
    -------
    pandas.DataFrame
        One row per (run, setting, measure) with ``n_queries`` (all),
        ``n_eligible``, ``mean_before``, ``mean_after``, ``difference_mean`` (over
        the eligible queries) and ``difference_min``, ``difference_max``.

    Examples
    --------
    >>> import pandas as pd
    >>> from mrrstats import move_first_relevant, perturbation_summary
    >>> qrels = pd.DataFrame({"query": ["q1", "q2"], "doc": ["d2", "d1"], "grade": [1, 1]})
    >>> run = pd.DataFrame({"query": ["q1"] * 3 + ["q2"] * 3,
    ...                     "doc": ["d1", "d2", "d3"] * 2, "score": [3.0, 2.0, 1.0] * 2})
    >>> out = perturbation_summary(move_first_relevant(qrels, {"r": run}, ranks=[1],
    ...                                                measures=["RR"]))
    >>> print(out[["r", "n_eligible", "difference_mean"]].to_string(index=False))
     r  n_eligible  difference_mean
     1           2             -0.5
    """
    frame, setting = _perturbation_summary_iv(frame)
    keys = ["run", setting, "measure"]
    g = frame.groupby(keys, sort=False)
    out = g.agg(n_queries=("query", "size"), n_eligible=("eligible", "sum"),
                mean_before=("before", "mean"), mean_after=("after", "mean"),
                difference_mean=("difference", "mean"), difference_min=("difference", "min"),
                difference_max=("difference", "max")).reset_index()
    out["n_eligible"] = out["n_eligible"].astype(int)
    return out
