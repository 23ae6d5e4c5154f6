"""Random-ranking baselines and how measures credit a rank (for teaching).

* :func:`observed_vs_random` -- observed MRR against its random-ranking
  expectation (a computed table);
* :func:`expected_mrr_curve` -- expected RR of a random ranking against the
  number of candidates;
* :func:`rank_credit` -- how RR, AP and nDCG credit a relevant document as its
  rank grows.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ...baselines.random_ranking import expected_rr
from ...errors import ParameterError, ParameterTypeError
from ...metrics.kernels import score_rankings
from ...metrics.measures import mean_label, parse_measures
from ...validation import confidence_level_iv
from .inputs import is_evaluation
from .style import GREY, MAX_SERIES, finish, new_axes, plain_log_ticks, series_style

if TYPE_CHECKING:
    from collections.abc import Sequence

    from matplotlib.axes import Axes
    from numpy.typing import ArrayLike

__all__ = ["observed_vs_random", "expected_mrr_curve", "rank_credit"]


def _observed_vs_random_iv(baseline, random, measure, confidence_level):
    cl = confidence_level_iv(confidence_level)
    if is_evaluation(baseline):
        raise ParameterTypeError("observed_vs_random() draws a computed table: pass "
                        "mrrstats.evaluation_baseline(evaluation, random=...) (the one place "
                        "the random baseline of each system is computed)")
    if isinstance(baseline, pd.DataFrame):
        if not {"observed", "expected"} <= set(baseline.columns):
            raise ParameterError("`baseline` must have columns 'observed' and 'expected' (and "
                             "optionally 'std'), e.g. the output of evaluation_baseline")
        table = baseline
        name = str(baseline["measure"].iloc[0]) if "measure" in baseline.columns else measure
    else:
        raise ParameterTypeError(
            f"`baseline` must be a DataFrame (e.g. mrrstats.evaluation_baseline), "
            f"got {type(baseline).__name__}")
    return table, name, cl


def observed_vs_random(baseline: pd.DataFrame, *, random: None = None, measure: str = "RR",
                       confidence_level: float = 0.95, ax: Axes | None = None) -> Axes:
    """Observed MRR against the MRR expected from a uniformly random ranking.

    Parameters
    ----------
    baseline : DataFrame
        A table with columns ``observed`` and ``expected`` (and optionally
        ``std``, the standard deviation of the random MRR), one row per
        system or data set (the index labels the rows): the output of
        :func:`mrrstats.evaluation_baseline`. Nothing is computed here.
    random : None, keyword-only
        Kept for backward compatibility; an Evaluation is no longer accepted.
    measure : str, keyword-only
        Measure name for the labels when the table has no ``measure`` column.
    confidence_level : float, keyword-only
        Central range of the random MRR drawn around its expectation (normal
        approximation ``E ± z sd``).
    ax : matplotlib Axes, optional, keyword-only

    Returns
    -------
    matplotlib.axes.Axes
        One row per system: the expected MRR (grey open circle, with its
        range), the observed MRR (filled blue square), joined by a thin line;
        the tick labels carry the adjusted MRR ``(M - E) / (1 - E)``.
    """
    table, name, cl = _observed_vs_random_iv(baseline, random, measure, confidence_level)
    from scipy import stats

    obs = table["observed"].to_numpy(np.float64)
    exp = table["expected"].to_numpy(np.float64)
    adj = (obs - exp) / (1 - exp)
    k = obs.size
    y = np.arange(k)[::-1]
    ax = new_axes(ax, figsize=(7.5, min(10.0, max(2.6, 1.2 + 0.4 * k))))
    ax.hlines(y, exp, obs, color=GREY, linewidth=0.8, zorder=1)
    if "std" in table.columns:
        z = stats.norm.ppf(0.5 + cl / 2)
        sd = table["std"].to_numpy(np.float64)
        ax.errorbar(exp, y, xerr=z * sd, fmt="o", mfc="white", color=GREY, capsize=3,
                    zorder=2, label=f"random ranking: E[{mean_label(name)}] ± {cl:.0%} range")
    else:
        ax.plot(exp, y, "o", mfc="white", color=GREY, zorder=2,
                label=f"random ranking: E[{mean_label(name)}]")
    st = series_style(0)
    ax.plot(obs, y, marker="s", linestyle="none", color=st["color"], zorder=3,
            label=f"observed {mean_label(name)}")
    for yi, e in zip(y, exp, strict=True):        # the random expectation, labelled
        ax.annotate(f"E = {e:.3f}", (e, yi), xytext=(0, -9), textcoords="offset points",
                    ha="center", va="top", fontsize=6.5, color="#4d4d4d")
    labels = [f"{lab}\nadjusted {a:.3f}" for lab, a in zip(table.index, adj, strict=True)]
    ax.set_yticks(y, labels, fontsize=7.5)
    ax.set_ylim(-0.6, k - 0.4)
    ax.set_xlim(0, 1)
    return finish(ax, f"{mean_label(name)}", "", legend_loc="right")


def _expected_mrr_curve_iv(n_candidates, n_relevant, k):
    if n_candidates is None:
        N = np.unique(np.geomspace(1, 1e6, 241).round().astype(np.int64))
    else:
        N = np.unique(np.asarray(n_candidates, dtype=np.int64))
        if N.ndim != 1 or N.size < 2 or N.min() < 1:
            raise ParameterError("`n_candidates` must hold at least two counts >= 1")
    R = np.atleast_1d(np.asarray(n_relevant))
    if R.ndim != 1 or R.size == 0 or R.size > MAX_SERIES or R.min() < 1 or \
            not np.issubdtype(R.dtype, np.integer):
        raise ParameterError(f"`n_relevant` must hold 1 to {MAX_SERIES} integers >= 1, got "
                         f"{n_relevant!r}")
    if k is not None and (isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1):
        raise ParameterError(f"`k` must be a positive integer, got {k!r}")
    return N, R, k


def expected_mrr_curve(n_candidates: ArrayLike | None = None, *,
                       n_relevant: Sequence[int] = (1, 2, 5, 10), k: int | None = None,
                       ax: Axes | None = None) -> Axes:
    """Expected RR of a uniformly random ranking against the number of candidates.

    Parameters
    ----------
    n_candidates : array_like of int, optional
        Candidate counts ``N`` on the x axis (default 1 to 10**6, log-spaced).
    n_relevant : sequence of int, keyword-only
        Relevant candidates ``R``: one curve each (at most 8).
    k : int, optional, keyword-only
        Also draw ``E[RR@k]`` (thin lines of the same colour).
    ax : matplotlib Axes, optional, keyword-only

    Returns
    -------
    matplotlib.axes.Axes
        Log-log axes with :func:`mrrstats.expected_rr` (``H(N)/N`` for
        ``R = 1``) per ``R``, and a line of slope -1 (``1/N``) for reference.
    """
    N, R, k = _expected_mrr_curve_iv(n_candidates, n_relevant, k)

    ax = new_axes(ax)
    for i, r in enumerate(R):
        st = series_style(i)
        n = N[N >= r]
        ax.plot(n, expected_rr(n, int(r)), color=st["color"], linestyle=st["linestyle"],
                marker=st["marker"], markevery=0.1, markersize=4, label=f"R = {r}")
        if k is not None:
            ax.plot(n, expected_rr(n, int(r), k=k), color=st["color"], linewidth=0.8,
                    linestyle=st["linestyle"], alpha=0.7)
    ax.plot(N, 1.0 / N, color=GREY, linewidth=0.8, linestyle=":", label="1/N")
    if k is not None:
        ax.plot([], [], color="black", linewidth=0.8, label=f"thin: E[RR@{k}]")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(N.min(), N.max())
    return finish(ax, "number of candidates N (log scale)",
                   "expected RR of a random ranking (log scale)", legend_loc="lower left",
                   title="relevant candidates")


def _rank_credit_iv(max_rank, n_relevant, measures):
    for name, v, lo in (("max_rank", max_rank, 2), ("n_relevant", n_relevant, 1)):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < lo:
            raise ParameterError(f"`{name}` must be an integer >= {lo}, got {v!r}")
    if max_rank > 100000:
        raise ParameterError(f"`max_rank` must be at most 100000, got {max_rank}")

    ms = parse_measures(measures)
    if not 1 <= len(ms) <= MAX_SERIES:
        raise ParameterError(f"`measures` must name 1 to {MAX_SERIES} measures")
    return [str(m) for m in ms]


def rank_credit(*, max_rank: int = 100, n_relevant: int = 1,
                measures: Sequence[str] = ("RR", "AP", "nDCG"), ax: Axes | None = None) -> Axes:
    """How RR, AP and nDCG credit a relevant document as its rank grows (for teaching).

    Parameters
    ----------
    max_rank : int, keyword-only
        Deepest rank shown (the ranking has this many documents).
    n_relevant : int, keyword-only
        Relevant documents of the query: one is retrieved at rank ``r``, the
        other ``n_relevant - 1`` are not retrieved (they lower AP and nDCG).
    measures : sequence of str, keyword-only
        Measures to draw, computed with :func:`mrrstats.score_rankings` (so
        with the package's trec_eval definitions).
    ax : matplotlib Axes, optional, keyword-only

    Returns
    -------
    matplotlib.axes.Axes
        One curve per measure against the rank (log scale). With one relevant
        document AP equals RR exactly; the curves are drawn with different
        markers and line styles so that coinciding ones stay visible.
    """
    names = _rank_credit_iv(max_rank, n_relevant, measures)

    ranks = np.arange(1, max_rank + 1)
    rankings = []
    for r in ranks:
        g = np.zeros(max_rank)
        g[r - 1] = 1.0
        rankings.append(g)
    judged = [np.ones(n_relevant, dtype=np.int64)] * max_rank
    values = score_rankings(rankings, names, judged=judged)
    same = {m: [o for o in names[:i] if np.array_equal(values[m], values[o])]
            for i, m in enumerate(names)}
    ax = new_axes(ax)
    widths = np.linspace(2.6, 1.2, len(names))
    for i, m in enumerate(names):
        st = series_style(i)
        ax.plot(ranks, values[m].to_numpy(), color=st["color"], linestyle=st["linestyle"],
                linewidth=widths[i], marker=st["marker"], markevery=(i * 0.03, 0.12),
                markersize=5, label=m + (f" (= {same[m][0]} here)" if same[m] else ""))
    ax.set_xscale("log")
    ax.set_xlim(1, max_rank)
    plain_log_ticks(ax.xaxis)
    ax.set_ylim(0, 1.04)
    rel = "one relevant document" if n_relevant == 1 else \
        f"{n_relevant} relevant, 1 retrieved"
    return finish(ax, "rank of the relevant document (log scale)",
                   "score of the query", legend_loc="upper right", title=rel)
