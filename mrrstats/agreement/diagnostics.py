"""Distribution diagnostics that expose what MRR hides, per system.

RR takes few values (1, 1/2, 1/3, ...) and piles up at 1: on TREC ad hoc runs
about half of all per-query RR values are exactly 1, so the median RR is often
exactly 1 and says nothing, and the mean is driven by a few queries whose
first relevant document is far down. :func:`rr_diagnostics` shows this per
system; :func:`mrr_vs_map` checks on data the identity MRR = MAP on queries with
exactly one relevant document.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..errors import ParameterError, ParameterTypeError
from ..metrics.measures import measure_iv

if TYPE_CHECKING:
    from typing import Literal

    from .._typing import Scores
    from ..metrics.evaluation import Evaluation

__all__ = ["rr_diagnostics", "mrr_vs_map"]

_UNRETRIEVED = ("exclude", "inf")


def _rr_frame(scores, measure, param="scores") -> pd.DataFrame:
    if hasattr(scores, "per_query") and callable(getattr(scores, "scores", None)):
        measures = set(scores.per_query["measure"].astype(str))
        if measure not in measures:
            raise ParameterError(f"`measure` {measure!r} is not in the evaluation; it has "
                             f"{sorted(measures)}")
        frame = scores.scores(measure)
    elif isinstance(scores, pd.DataFrame):
        frame = scores
    else:
        raise ParameterTypeError(f"`{param}` must be an Evaluation or a DataFrame of per-query RR "
                        f"(rows = queries, columns = systems), got {type(scores).__name__}")
    frame = frame.astype(np.float64)
    values = frame.to_numpy()
    if values.size == 0:
        raise ParameterError(f"`{param}` is empty")
    if np.isnan(values).any():
        raise ParameterError(f"`{param}` has missing values; drop or fill them first")
    if (values < 0).any() or (values > 1).any():
        raise ParameterError(f"`{param}` must hold RR values in [0, 1]")
    return frame


def _rr_diagnostics_iv(scores, measure, unretrieved, atol):
    if not isinstance(measure, str):
        raise ParameterTypeError(f"`measure` must be a measure name (str), got {measure!r}")
    if measure_iv(measure).name != "RR":
        raise ParameterError(f"`measure` must name a reciprocal-rank measure (RR, RR@k), got "
                             f"{measure!r}", name="measure")
    frame = _rr_frame(scores, measure)
    if isinstance(unretrieved, str):
        if not isinstance(unretrieved, str | None) or unretrieved not in _UNRETRIEVED:
            raise ParameterError(f"`unretrieved` must be 'exclude', 'inf' or a rank >= 1, got "
                             f"{unretrieved!r}")
    elif isinstance(unretrieved, numbers.Real) and not isinstance(unretrieved, bool):
        if not np.isfinite(unretrieved) or unretrieved < 1:
            raise ParameterError(f"`unretrieved` must be 'exclude', 'inf' or a finite rank >= 1,"
                             f" got {unretrieved!r}")
        unretrieved = float(unretrieved)
    else:
        raise ParameterTypeError(f"`unretrieved` must be 'exclude', 'inf' or a number, got "
                        f"{unretrieved!r}")
    if isinstance(atol, bool) or not isinstance(atol, (int, float, np.floating)) or not (
            0 <= atol < 1):
        raise ParameterError(f"`atol` must be a number in [0, 1), got {atol!r}")
    return frame, unretrieved, float(atol)


def rr_diagnostics(scores: Scores, *, measure: str = "RR",
                   unretrieved: Literal["exclude", "inf"] = "exclude",
                   atol: float = 1e-9) -> pd.DataFrame:
    r"""Per-system distribution of RR and of the rank of the first relevant document.

    Parameters
    ----------
    scores : Evaluation or pandas.DataFrame
        Per-query RR: an :class:`~mrrstats.Evaluation` holding ``measure``, or
        a frame with one row per query and one column per system (e.g. a TREC
        score matrix read with :func:`mrrstats.read_score_matrix`).
    measure : str, keyword-only
        Measure to read from an Evaluation (default ``"RR"``; ``"RR@10"``
        works too: then RR = 0 means "nothing relevant in the top 10").
    unretrieved : {"exclude", "inf"} or float, keyword-only
        How queries with RR = 0 (no relevant document retrieved, so no first
        relevant rank) enter the three mean ranks:

        * ``"exclude"`` (default): left out; the mean ranks describe the
          queries where something relevant was found.
        * ``"inf"``: their rank is infinite. The harmonic mean rank is then
          :math:`1/\mathrm{MRR}` over all queries; the geometric and
          arithmetic means are infinite whenever such a query exists.
        * a number ``>= 1``: their rank is set to it (e.g. 1001 for runs of
          depth 1000: "just below the end of the list").

        Their number is always reported in ``n_unretrieved``.
    atol : float, keyword-only
        RR counts as 1 when ``>= 1 - atol`` and as 0 when ``<= atol``.

    Returns
    -------
    pandas.DataFrame
        One row per system (index ``system``), columns:

        ``n_queries``
            Number of queries.
        ``mrr``
            Mean RR over all queries.
        ``share_rr_one``, ``share_rr_zero``
            Share of queries with RR = 1 (first document relevant) and RR = 0.
        ``median_rr``
            Median RR over all queries.
        ``median_is_one``
            True when the median is exactly 1 (degenerate: at least half of
            the queries are perfect, and the median cannot tell two such
            systems apart).
        ``n_unretrieved``
            Queries with RR = 0.
        ``mrr_retrieved``
            Mean RR over the queries with a relevant document retrieved.
        ``harmonic_mean_rank``, ``geometric_mean_rank``, ``arithmetic_mean_rank``
            Means of the first-relevant rank :math:`r = 1/RR`, with the
            queries without one treated as ``unretrieved`` says.

        ``frame.attrs["unretrieved"]`` records the treatment.

    Notes
    -----
    With :math:`r_q = 1/RR_q` over the :math:`m` queries counted,

    .. math::

        \mathrm{HM} = \frac{m}{\sum_q 1/r_q}, \qquad
        \mathrm{GM} = \exp\Big(\frac{1}{m}\sum_q \log r_q\Big), \qquad
        \mathrm{AM} = \frac{1}{m}\sum_q r_q,

    and :math:`\mathrm{HM} \le \mathrm{GM} \le \mathrm{AM}`. The harmonic
    mean rank over the retrieved queries is ``1 / mrr_retrieved``: MRR is the
    reciprocal of a harmonic mean, so it is dominated by the small ranks,
    whereas the arithmetic mean rank is dominated by the large ones.

    Ranks are recovered as ``1/RR``. For trec_eval's tie handling RR is the
    reciprocal of an integer rank and so is this; under ``ties="expected"``
    or ``"realistic"``, or with score matrices rounded to 4 decimals (the TREC
    matrices in ``tests/data/score_matrices``), ``1/RR`` is an effective, non-integer rank.

    Examples
    --------
    >>> import pandas as pd
    >>> from mrrstats import rr_diagnostics
    >>> rr = pd.DataFrame({"a": [1.0, 1.0, 0.5, 0.0, 1.0],
    ...                    "b": [1.0, 0.25, 0.5, 0.2, 1 / 3]})
    >>> out = rr_diagnostics(rr)
    >>> cols = ["mrr", "median_rr", "median_is_one", "n_unretrieved"]
    >>> print(out[cols].round(4).reset_index().to_string(index=False))
    system    mrr  median_rr  median_is_one  n_unretrieved
         a 0.7000     1.0000           True              1
         b 0.4567     0.3333          False              0
    >>> print(out["arithmetic_mean_rank"].round(3).tolist())
    [1.25, 3.0]
    """
    frame, unretrieved, atol = _rr_diagnostics_iv(scores, measure, unretrieved, atol)
    values = frame.to_numpy()
    n_q = values.shape[0]
    is_zero = values <= atol
    is_one = values >= 1.0 - atol
    with np.errstate(divide="ignore"):
        ranks = np.where(is_zero, np.inf, 1.0 / np.where(is_zero, 1.0, values))
    if unretrieved == "exclude":
        use = ~is_zero
    else:
        use = np.ones_like(is_zero)
        if unretrieved != "inf":
            ranks = np.where(is_zero, unretrieved, ranks)
    m = use.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        inv_sum = np.where(use, 1.0 / ranks, 0.0).sum(axis=0)
        hm = np.where(m > 0, m / inv_sum, np.nan)
        log_sum = np.where(use, np.log(ranks), 0.0).sum(axis=0)
        gm = np.where(m > 0, np.exp(log_sum / np.maximum(m, 1)), np.nan)
        am = np.where(m > 0, np.where(use, ranks, 0.0).sum(axis=0) / np.maximum(m, 1),
                      np.nan)
        n_ret = (~is_zero).sum(axis=0)
        mrr_ret = np.where(n_ret > 0, np.where(is_zero, 0.0, values).sum(axis=0)
                           / np.maximum(n_ret, 1), np.nan)
    median = np.median(values, axis=0)
    out = pd.DataFrame({
        "n_queries": n_q,
        "mrr": values.mean(axis=0),
        "share_rr_one": is_one.mean(axis=0),
        "share_rr_zero": is_zero.mean(axis=0),
        "median_rr": median,
        "median_is_one": median >= 1.0 - atol,
        "n_unretrieved": is_zero.sum(axis=0),
        "mrr_retrieved": mrr_ret,
        "harmonic_mean_rank": hm,
        "geometric_mean_rank": gm,
        "arithmetic_mean_rank": am,
    }, index=pd.Index(frame.columns, name="system"))
    out.attrs["unretrieved"] = unretrieved
    return out


def _mrr_vs_map_iv(evaluation, rr, ap):
    if not (hasattr(evaluation, "query_stats") and callable(getattr(evaluation, "scores",
                                                                    None))):
        raise ParameterTypeError(
            "`evaluation` must be an Evaluation (from mrrstats.evaluate) with "
            f"per-query stats, got {type(evaluation).__name__}")
    measures = set(evaluation.per_query["measure"].astype(str))
    for name, value in (("rr", rr), ("ap", ap)):
        if not isinstance(value, str) or value not in measures:
            raise ParameterError(f"`{name}` measure {value!r} is not in the evaluation; it has "
                             f"{sorted(measures)}")
    return evaluation, rr, ap


def mrr_vs_map(evaluation: Evaluation, *, rr: str = "RR", ap: str = "AP") -> pd.DataFrame:
    r"""MRR and MAP side by side, and the identity RR = AP on single-relevant queries.

    With exactly one relevant document, AP is the precision at that document
    divided by 1, i.e. 1/rank = RR; so MRR = MAP on any set of such queries.
    This function checks it on an evaluation.

    Parameters
    ----------
    evaluation : Evaluation
        Result of :func:`mrrstats.evaluate` with both measures, e.g.
        ``evaluate(qrels, runs, ["RR", "AP"])``.
    rr, ap : str, keyword-only
        Names of the two measures (e.g. ``"RR@10"`` and ``"AP@10"``: the
        identity holds with the same cutoff).

    Returns
    -------
    pandas.DataFrame
        One row per run (index ``run``), columns ``n_queries``,
        ``n_single_relevant`` (queries with exactly one relevant document in
        the qrels at the evaluation's relevance level), ``mrr`` and ``map``
        (over all queries), ``mrr_single`` and ``map_single`` (over the
        single-relevant queries; NaN if none) and ``max_abs_diff_single``
        (largest per-query ``|RR - AP|`` on those queries; 0 up to rounding
        when the identity holds).

    Notes
    -----
    For a query with :math:`R` relevant documents at ranks
    :math:`r_1 < \dots < r_k` (:math:`k \le R` retrieved),
    :math:`AP = \frac{1}{R}\sum_{j=1}^{k} j / r_j` and :math:`RR = 1/r_1`;
    :math:`R = 1` gives :math:`AP = 1/r_1 = RR` (and both are 0 when the
    document is not retrieved). With more relevant documents only
    :math:`RR/R \le AP \le 1` holds: AP can be above RR (first relevant at 2,
    second at 3: AP = 0.583 > 0.5) or below it (first at 1, second missing:
    AP = 0.5 < 1), and MAP and MRR diverge.
    """
    evaluation, rr, ap = _mrr_vs_map_iv(evaluation, rr, ap)
    rr_f = evaluation.scores(rr)
    ap_f = evaluation.scores(ap).reindex(index=rr_f.index, columns=rr_f.columns)
    qs = evaluation.query_stats
    rows = []
    for run in rr_f.columns:
        stats_run = qs[qs["run"] == run].set_index("query")["num_rel"]
        x = rr_f[run]
        y = ap_f[run]
        ok = x.notna() & y.notna()
        x, y = x[ok], y[ok]
        num_rel = stats_run.reindex(x.index)
        single = (num_rel == 1).to_numpy()
        xs, ys = x.to_numpy()[single], y.to_numpy()[single]
        rows.append({
            "run": run, "n_queries": int(x.size), "n_single_relevant": int(single.sum()),
            "mrr": float(x.mean()), "map": float(y.mean()),
            "mrr_single": float(xs.mean()) if xs.size else np.nan,
            "map_single": float(ys.mean()) if ys.size else np.nan,
            "max_abs_diff_single": float(np.max(np.abs(xs - ys))) if xs.size else np.nan,
        })
    return pd.DataFrame(rows).set_index("run")
