r"""Incomplete judgments: measures under each convention for unjudged documents, and the
per-query bounds they give (:func:`judgment_bounds`).

A run that retrieves documents no one judged is scored by trec_eval as if they
were non-relevant: the value is a lower end. Counting every unjudged retrieved
document relevant gives the other end. For RR, P@k, Success@k (and Rank) every
complete judgment of the unjudged documents gives a value between the two
(each can only move the first relevant document up, or add relevant documents
to the top k). For nDCG the two ends are computed as bounds: a completion can
only raise the DCG (at most to every unjudged retrieved document at the qrels'
highest grade) and the ideal DCG (at least the judged one, at most with every
unjudged retrieved document at the highest grade), so
:math:`DCG_0 / IDCG_{max} \le nDCG \le \min(1, DCG_{max} / IDCG_0)` over every
judgment of the retrieved documents. For AP and R the two values are the two
conventions' values, not bounds (a relevant document added to the judged set also
raises the number of relevant documents): ``guaranteed`` is False for them.

A run whose Judged@10 is far below the other runs' was probably not in the pool
(a new system): its value is the most biased (Buckley et al. 2007; Sakai 2007);
:func:`judgment_bounds` warns about it (:class:`PoolingBiasWarning`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..defaults import REL, TIES
from ..io.trec import qrels_iv, run_iv
from ..model.ranking import rank_run
from .evaluation import _runs_iv, evaluate
from .judged import fill_unjudged
from .kernels import _ideal_dcg, _ideal_terms, score_ranked_run
from .measures import measures_iv, parse_measures

if TYPE_CHECKING:
    from .._typing import MeasuresInput, QrelsInput, RunsInput
    from ..stats.methods import MethodsText

__all__ = ["JudgmentBounds", "judgment_bounds", "PoolingBiasWarning", "POOLING_BIAS",
           "GUARANTEED"]

#: Measure families for which every complete judgment lies between the two values.
GUARANTEED = ("RR", "P", "Success", "Rank", "Judged", "nDCG")
#: A run is flagged when its mean Judged@10 is below ``ratio`` times the median of the
#: other runs' and at least ``gap`` below it.
POOLING_BIAS = {"ratio": 0.75, "gap": 0.10, "k": 10}


class PoolingBiasWarning(UserWarning):
    """A run's Judged@10 is far below the other runs': it was probably not pooled."""


@dataclass(frozen=True, eq=False)
class JudgmentBounds:
    """Result of :func:`judgment_bounds`.

    Attributes
    ----------
    per_query : pandas.DataFrame
        ``run, query, measure, value`` (unjudged non-relevant: trec_eval's),
        ``lower``, ``upper`` (the smaller and the larger of that value and the
        value with every unjudged retrieved document relevant; for nDCG the
        bounds over every judgment of the retrieved documents, see the module
        documentation), ``guaranteed`` (whether every complete judgment lies
        in ``[lower, upper]``: RR, P, Success, Rank, nDCG; not AP, R).
    systems : pandas.DataFrame
        Per run and measure the means: ``run, measure, value, lower, upper,
        guaranteed``, the run's mean ``judged`` (Judged@10) and
        ``pooling_bias`` (flagged: far below the other runs').
    measures : tuple of str
    runs : tuple of str
    flagged : tuple of str
        Runs flagged for pooling bias.
    """

    per_query: pd.DataFrame = field(repr=False)
    systems: pd.DataFrame = field(repr=False)
    measures: tuple
    runs: tuple
    flagged: tuple

    def methods(self) -> MethodsText:
        """The methods paragraph and its references (:mod:`mrrstats.stats.methods`)."""
        import importlib

        # the paragraph generator lives with the statistics (mrrstats.stats), which import
        # the metrics; imported at call time so that metrics never imports stats
        readers = importlib.import_module("mrrstats.stats.methods_readers")
        return readers.methods_text(self)

    def to_frame(self) -> pd.DataFrame:
        """The long per-query frame (``run, query, measure, lower, upper, value,
        guaranteed``)."""
        return self.per_query[["run", "query", "measure", "lower", "upper", "value",
                               "guaranteed"]].copy()


def _flag_pooling_bias(judged: pd.Series) -> list:
    """Runs whose mean Judged@k is far below the median of the other runs'."""
    flagged = []
    for run, value in judged.items():
        others = judged.drop(run)
        if others.empty:
            continue
        med = float(others.median())
        if value < POOLING_BIAS["ratio"] * med and value <= med - POOLING_BIAS["gap"]:
            flagged.append(run)
    return flagged


def _run_sources(runs: RunsInput) -> list[Any]:
    """The runs as evaluate reads them, in its order."""
    return [source for _, source in _runs_iv(runs)]


def _ndcg_bounds(qrels, source, measures, queries, *, ties, max_depth) -> dict:
    """``{name: (lower, upper)}`` per query (in ``queries`` order) of each nDCG measure:
    the bounds over every judgment of the retrieved documents (module documentation)."""
    q = qrels_iv(qrels)
    top = int(np.max(q.grade)) if q.grade.size else 1
    ranked = rank_run(q, run_iv(source), ties=ties, max_depth=max_depth)
    filled = fill_unjudged(ranked, grade=max(top, 1))
    v0 = score_ranked_run(ranked, measures).to_numpy(dtype=np.float64)
    vg = score_ranked_run(filled, measures).to_numpy(dtype=np.float64)
    ids = ranked.query_ids.astype(str)
    out = {}
    for col, m in enumerate(measures):
        idcg0 = _ideal_dcg(_ideal_terms(ranked.judged), m.k, ranked.n_queries)
        idcgg = _ideal_dcg(_ideal_terms(filled.judged), m.k, ranked.n_queries)
        dcg0, dcgg = v0[:, col] * idcg0, vg[:, col] * idcgg
        with np.errstate(divide="ignore", invalid="ignore"):
            lower = np.where(idcgg > 0, dcg0 / idcgg, 0.0)
            upper = np.where(idcg0 > 0, np.minimum(1.0, dcgg / idcg0),
                             np.where(dcgg > 0, 1.0, 0.0))
        # trec_eval's value is one of the fills: the bounds hold it whatever the rounding
        lower, upper = np.minimum(lower, v0[:, col]), np.maximum(upper, v0[:, col])
        # queries the run has no results for (scored 0 under queries="qrels"): 0, 0
        lo_s = pd.Series(lower, index=ids).reindex(queries).fillna(0.0).to_numpy()
        hi_s = pd.Series(upper, index=ids).reindex(queries).fillna(0.0).to_numpy()
        out[str(m)] = (lo_s, hi_s)
    return out


def judgment_bounds(qrels: QrelsInput, runs: RunsInput, measures: MeasuresInput | None = None, *,
                    ties: str = TIES, rel: int = REL,
                    max_depth: int | None = None) -> JudgmentBounds:
    r"""Per-query and per-system values of every measure under both ends of the unknown.

    Parameters
    ----------
    qrels, runs
        As :func:`mrrstats.evaluate` takes them.
    measures : str or sequence of str, optional
        Default ``("RR",)``.
    ties, rel, max_depth : keyword-only
        As in :func:`mrrstats.evaluate`.

    Returns
    -------
    JudgmentBounds
        ``.to_frame()`` is the long per-query frame, ``.systems`` the means.

    Warns
    -----
    PoolingBiasWarning
        A run's mean Judged@10 is below 0.75 times the median of the other
        runs' and at least 0.10 below it.

    Notes
    -----
    The lower value counts unjudged documents non-relevant (trec_eval), the
    upper one judges every document the run retrieved for a judged query that
    the qrels lack with grade ``rel`` (1 by default; 1 as nDCG's gain), so
    it also enters the number of relevant documents and nDCG's ideal ranking
    (:func:`mrrstats.metrics.judged.fill_unjudged`). For RR, P@k, Success@k and
    Rank every complete judgment of the missing documents lies between them
    (``guaranteed``). For nDCG the ends are true bounds over every judgment of
    the documents the run retrieved (unretrieved unjudged documents stay
    non-relevant, as in every measure): :math:`DCG_0 / IDCG_{max}` and
    :math:`\min(1, DCG_{max} / IDCG_0)`, with :math:`DCG_0, IDCG_0` trec_eval's
    and :math:`DCG_{max}, IDCG_{max}` those with every unjudged retrieved
    document at the qrels' highest grade (wider than the two conventions'
    values, which a completion can leave). For AP and R it does not always
    hold and the reported pair is the two conventions' values, not bounds
    (``guaranteed`` False). The system-level interval is the pair of
    means over the queries, so it bounds the system's mean under any complete
    judgment for the guaranteed measures.

    References
    ----------
    .. [1] C. Buckley, D. Dimmick, I. Soboroff and E. Voorhees, "Bias and the
       limits of pooling for large collections", Information Retrieval 10(6),
       491-508, 2007.
    .. [2] T. Sakai, "Alternatives to bpref", SIGIR 2007, 71-78.

    Examples
    --------
    >>> import mrrstats
    >>> qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d7": 1}}
    >>> runs = {"old": {"q1": ["d2", "x"], "q2": ["d7", "d8"]},
    ...         "new": {"q1": ["d5", "d1"], "q2": ["d9", "d7"]}}
    >>> b = mrrstats.judgment_bounds(qrels, runs, ["RR", "Judged@2"])
    >>> print(b.systems[["run", "measure", "value", "lower", "upper"]].to_string(index=False))
    run  measure  value  lower  upper
    old       RR    0.5    0.5   0.75
    old Judged@2    0.5    0.5   0.50
    new       RR    0.5    0.5   1.00
    new Judged@2    0.5    0.5   0.50

    Both runs score 0.5 as trec_eval counts them; ``new`` could score 1.0 if its
    unjudged documents were relevant, ``old`` at most 0.75.
    """
    measures = measures_iv(("RR",) if measures is None else measures)
    k = POOLING_BIAS["k"]
    extra = parse_measures(f"Judged@{k}")[0]
    asked = list(measures) + ([extra] if extra not in measures else [])
    lo = evaluate(qrels, runs, asked, ties=ties, rel=rel, max_depth=max_depth)
    hi = evaluate(qrels, runs, asked, ties=ties, rel=rel, max_depth=max_depth,
                  unjudged="relevant")
    rows, sys_rows = [], []
    judged = pd.Series({run: float(lo.values[run][str(extra)].mean()) for run in lo.runs})
    flagged = _flag_pooling_bias(judged)
    ndcg = [m for m in measures if m.name == "nDCG"]
    sources = dict(zip(lo.runs, _run_sources(runs), strict=True)) if ndcg else {}
    for run in lo.runs:
        a, b = lo.values[run], hi.values[run]
        nb = (_ndcg_bounds(qrels, sources[run], ndcg, a.index.astype(str), ties=ties,
                           max_depth=max_depth) if ndcg else {})
        for m in measures:
            name = str(m)
            v, w = a[name].to_numpy(), b[name].to_numpy()
            guaranteed = m.name in GUARANTEED
            lower, upper = np.minimum(v, w), np.maximum(v, w)
            if name in nb:
                lower, upper = nb[name]
            rows.append(pd.DataFrame({"run": run, "query": a.index.astype(str), "measure": name,
                                      "lower": lower, "upper": upper,
                                      "value": v, "guaranteed": guaranteed}))
            agg = np.median if m.name == "Rank" else np.mean
            sys_rows.append({"run": run, "measure": name, "value": float(agg(v)),
                             "lower": float(agg(lower)), "upper": float(agg(upper)),
                             "guaranteed": guaranteed, "judged": judged[run],
                             "pooling_bias": run in flagged})
    for run in flagged:
        others = judged.drop(run)
        warnings.warn(
            f"run {run!r}: mean Judged@{k} {judged[run]:.2f} against a median of "
            f"{others.median():.2f} for the other runs; it was probably not pooled, and its "
            "values (unjudged counted non-relevant) are biased low: read its upper bound too",
            PoolingBiasWarning, stacklevel=2)
    return JudgmentBounds(pd.concat(rows, ignore_index=True), pd.DataFrame(sys_rows),
                          tuple(str(m) for m in measures), tuple(lo.runs), tuple(flagged))
