r"""Plots for MRR and its companions: distributions, comparisons, baselines, power.

Every function takes ``ax=None`` (a new figure is created when it is None),
draws on that Axes and returns it; none calls ``show()``. The plots draw
results: no function here runs a test or a resampling procedure (pass the
intervals, pairwise results, power tables and baselines your analysis
computed). Score input goes through the package's one coercion,
:func:`mrrstats.model.scoretable.as_score_table`. matplotlib is
imported inside the functions, so ``import mrrstats`` does not import it.

The style is shared by all functions: the Okabe-Ito colour-blind-safe palette
(:data:`PALETTE`), and series that also differ by marker, line style or
hatch, so that every figure stays readable in greyscale. Random-ranking
references are always grey. Axis labels name the quantity and its unit or
scale. :func:`style_context` applies the package's rcParams (font sizes,
embedded TrueType fonts in PDF) for publication figures.

Functions
---------
============================  ===========================================================
:func:`rr_histogram`          per-query RR per system, with the RR distribution of a random ranking
:func:`rank_ecdf`             ECDF of the first-relevant rank (log axis), with the random CDF
:func:`paired_differences`    sorted per-query differences of two systems, mean and a given CI
:func:`forest_means`          each system's mean (MRR) with its computed confidence interval
:func:`forest_differences`    a pairwise result against a baseline: intervals and decisions
:func:`null_distribution`     null or bootstrap distribution of a statistic and the observed value
:func:`measure_scatter`       system means under two measures, Kendall's tau in the title
:func:`tau_heatmap`           measure-by-measure matrix of rank correlations
:func:`power_curve`           a computed power table against the number of queries
:func:`observed_vs_random`    observed MRR against its random-ranking expectation
:func:`expected_mrr_curve`    expected RR of a random ranking against the number of candidates
:func:`rank_credit`           how RR, AP and nDCG credit a relevant document as its rank grows
:func:`rank_intervals_plot`   each system's rank and simultaneous rank interval, per measure
:func:`clustered_intervals`   each pair's interval with queries independent and clusters resampled
:func:`multiverse_plot`       each system's rank under each convention that changes one option
:func:`segment_means`         each segment's mean and interval per run (one row per segment)
:func:`judge_intervals`       human-label means: PPI, people only, judge only, with intervals
:func:`bound_bars`            per run, trec_eval's value and the range unjudged documents allow
============================  ===========================================================

Examples
--------
>>> import numpy as np, pandas as pd
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> import mrrstats.plots as mp
>>> rr = pd.DataFrame({"bm25": [1, 0.5, 1, 0.25, 0.2], "dense": [1, 1, 0.5, 1, 0.1]})
>>> ax = mp.rr_histogram(rr, n_candidates=100)
>>> ax.get_xlabel()
'RR of the query (1 / rank of the first relevant document)'
>>> import matplotlib.pyplot as plt; plt.close("all")
"""

from __future__ import annotations

import contextlib
import math
import numbers
import os
import textwrap
from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..agreement.measures import agreement_matrix, ranking_agreement
from ..baselines.random_ranking import (
    FirstRelevantRank,
    expected_mrr,
    expected_rr,
    random_baseline_counts,
)
from ..formatting import interval_text
from ..metrics.evaluation import Evaluation
from ..metrics.kernels import score_rankings
from ..metrics.measures import higher_is_better, mean_label, parse_measure, parse_measures
from ..model.scoretable import as_score_table, as_score_tables

__all__ = [
    "PALETTE",
    "style_context",
    "interval_name",
    "rr_histogram",
    "rank_ecdf",
    "paired_differences",
    "forest_means",
    "forest_differences",
    "segment_means",
    "null_distribution",
    "measure_scatter",
    "tau_heatmap",
    "power_curve",
    "observed_vs_random",
    "expected_mrr_curve",
    "rank_credit",
    "short_names",
    "rank_intervals_plot",
    "clustered_intervals",
    "estimation_intervals",
    "one_option_at_a_time",
    "multiverse_plot",
    "judge_intervals",
    "bound_bars",
]

#: Okabe-Ito colours (Okabe & Ito, "Color Universal Design", 2008), in the
#: order used for series: blue, vermillion, bluish green, orange, reddish
#: purple, sky blue, black, yellow.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#E69F00", "#CC79A7", "#56B4E9", "#000000",
           "#F0E442")
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
_LINESTYLES = ("-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)), (0, (1, 1)),
               (0, (8, 2, 2, 2)))
_HATCHES = ("", "//", "\\\\", "xx", "..", "++", "||", "--")
_GREY = "#7f7f7f"          # random-ranking references
_LIGHT = "#d9d9d9"         # filled reference areas
_MAX_SERIES = len(PALETTE)

_RC = {
    "font.size": 9,
    "axes.titlesize": 9.5,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": False,
    "legend.frameon": False,
    "lines.linewidth": 1.5,
    "pdf.fonttype": 42,      # embed TrueType fonts (publishers reject Type 3)
    "ps.fonttype": 42,
    "savefig.dpi": 200,
    "savefig.bbox": "tight",
}


# --------------------------------------------------------------------------
# style helpers
# --------------------------------------------------------------------------
@contextlib.contextmanager
def style_context(**rc):
    """Context manager applying the package's matplotlib style (and any overrides).

    Parameters
    ----------
    **rc
        rcParams that override the package defaults; names contain dots, so
        pass them as ``**{"font.size": 10}``.

    Returns
    -------
    contextlib.AbstractContextManager
        Like ``matplotlib.rc_context`` with font sizes, no top/right spines,
        ``pdf.fonttype = 42`` (embedded TrueType fonts) and 200 dpi output,
        except that ``interactive`` keeps the value it has on exit: when the
        first figure of a notebook is drawn inside the context, the inline
        backend switches interactive mode on, and restoring it would stop
        every later figure from showing.

    Examples
    --------
    >>> import mrrstats.plots as mp
    >>> with mp.style_context():
    ...     import matplotlib
    ...     print(matplotlib.rcParams["pdf.fonttype"])
    42
    """
    import matplotlib as mpl

    params = dict(_RC)
    params.update(rc)
    interactive = mpl.rcParams["interactive"]
    try:
        with mpl.rc_context(params):
            try:
                yield
            finally:
                interactive = mpl.rcParams["interactive"]
    finally:
        mpl.rcParams["interactive"] = interactive


def _style(i: int) -> dict:
    """Colour, marker, line style and hatch of the i-th series (cycled)."""
    return {"color": PALETTE[i % len(PALETTE)], "marker": _MARKERS[i % len(_MARKERS)],
            "linestyle": _LINESTYLES[i % len(_LINESTYLES)], "hatch": _HATCHES[i % len(_HATCHES)]}


def _axes(ax, figsize=(5.0, 3.4)):
    """The given Axes, or a new one on a new constrained-layout figure."""
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    with style_context():
        _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def _finish(ax, xlabel, ylabel, *, legend=True, legend_loc="best", **legend_kw):
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    if legend:
        handles, labels = ax.get_legend_handles_labels()
        if handles:
            if legend_loc == "right":      # outside the axes: hides no data, no title
                legend_kw = {"bbox_to_anchor": (1.02, 1.0), "borderaxespad": 0.0,
                             **legend_kw}
                legend_loc = "upper left"
            ax.legend(loc=legend_loc, frameon=False, **legend_kw)
    return ax


def _plain_log_ticks(axis):
    """Tick labels 1, 10, 100, 1,000 instead of powers of ten on a log axis."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1 else f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


# --------------------------------------------------------------------------
# input helpers
# --------------------------------------------------------------------------
def _is_evaluation(x) -> bool:
    return isinstance(x, Evaluation)


def _mean_label(measure) -> str:
    """MRR for RR, MAP for AP, mean X otherwise (the measure spec's own label)."""
    return mean_label(measure)


def _frame(scores, measure, param="scores"):
    """Scores as (DataFrame rows = queries, columns = systems, measure name).

    The one coercion of the package (:func:`mrrstats.model.scoretable.as_score_table`);
    a query without a value for some system is left out for all of them, so
    every figure draws the same queries for every system.
    """
    table = as_score_table(scores, measure=measure, missing="drop", finite=False,
                           name=param)
    return table.to_frame(), table.measure


def _select(frame, systems, param="systems", limit=_MAX_SERIES):
    if systems is None:
        cols = list(frame.columns)
        if limit is not None and len(cols) > limit:
            raise ValueError(f"`{param}`: {len(cols)} systems are too many for one panel "
                             f"(at most {limit}); choose some with systems=[...]")
        return cols
    if isinstance(systems, str):
        systems = [systems]
    cols = list(systems)
    missing = [s for s in cols if s not in frame.columns]
    if missing:
        raise ValueError(f"`{param}`: unknown systems {missing}; have {list(frame.columns)}")
    if not cols:
        raise ValueError(f"`{param}` must name at least one system")
    if limit is not None and len(cols) > limit:
        raise ValueError(f"`{param}`: at most {limit} systems per panel, got {len(cols)}")
    return cols


def _confidence_level(cl):
    if isinstance(cl, bool) or not isinstance(cl, numbers.Real) or not 0 < cl < 1:
        raise ValueError(f"`confidence_level` must be in (0, 1), got {cl!r}")
    return float(cl)


def _random_counts(frame, systems, scores, random, n_candidates, n_relevant, k):
    """(N, R) arrays of the random model, or None when no model was asked for."""
    if random is not None:
        if not _is_evaluation(scores):
            raise ValueError("`random` needs an Evaluation as `scores`; for score matrices "
                             "give `n_candidates` (and `n_relevant`) instead")
        if n_candidates is not None:
            raise ValueError("give either `random` or `n_candidates`, not both")

        counts = random_baseline_counts(scores, random=random)
        counts = counts[counts["run"].isin(systems)]
        return (counts["n_candidates"].to_numpy(np.int64),
                counts["n_relevant"].to_numpy(np.int64))
    if n_candidates is None:
        return None
    N, R = np.broadcast_arrays(np.asarray(n_candidates), np.asarray(n_relevant))
    N, R = N.ravel(), R.ravel()

    expected_mrr(N, R, k=k)  # validates the counts with the baselines' messages
    return N.astype(np.int64), R.astype(np.int64)


def _random_rr_mass(N, R, k, edges):
    """Share of queries whose random-ranking RR falls in each histogram bin (exact)."""
    first = edges[1] if edges[0] <= 0 else edges[0]
    J = int(math.ceil(1.0 / first)) + 1       # ranks below 1/J fall in the first bin
    mass = np.zeros(edges.size - 1)
    pairs, weight = np.unique(np.column_stack([N, R]), axis=0, return_counts=True)
    for (n, r), w in zip(pairs, weight, strict=True):
        if r == 0 or n == 0:
            mass[0] += w                       # RR = 0 under every permutation
            continue
        d = FirstRelevantRank(int(n), int(r))
        top = min(J, d.support[1], J if k is None else int(k))
        j = np.arange(1, top + 1)
        p = d.pmf(j)
        h, _ = np.histogram(1.0 / j, bins=edges, weights=p)
        h[0] += max(0.0, 1.0 - p.sum())        # deeper ranks or beyond the cutoff
        mass += w * h
    return mass / weight.sum()


def _random_rank_cdf(N, R, grid):
    """Mixture CDF of the first relevant rank over the queries (R = 0: never found)."""
    cdf = np.zeros(grid.size)
    pairs, weight = np.unique(np.column_stack([N, R]), axis=0, return_counts=True)
    for (n, r), w in zip(pairs, weight, strict=True):
        if r > 0 and n > 0:
            cdf += w * FirstRelevantRank(int(n), int(r)).cdf(grid)
    return cdf / weight.sum()


# --------------------------------------------------------------------------
# 1. distributions of RR and of the first relevant rank
# --------------------------------------------------------------------------
def _rr_histogram_iv(scores, systems, measure, n_candidates, n_relevant, k, random, bins):
    frame, name = _frame(scores, measure)
    cols = _select(frame, systems)
    if isinstance(bins, numbers.Integral) and not isinstance(bins, bool):
        if bins < 2:
            raise ValueError(f"`bins` must be at least 2, got {bins}")
        edges = np.linspace(0.0, 1.0, int(bins) + 1)
    else:
        edges = np.asarray(bins, dtype=np.float64)
        if edges.ndim != 1 or edges.size < 3 or np.any(np.diff(edges) <= 0) or \
                edges[0] != 0 or edges[-1] < 1:
            raise ValueError("`bins` must be an int or increasing edges from 0 to >= 1")
    if k is None and _is_evaluation(scores):
        k = parse_measure(name).k
    counts = _random_counts(frame, cols, scores, random, n_candidates, n_relevant, k)
    return frame, name, cols, edges, k, counts


def rr_histogram(scores, *, systems=None, measure="RR", n_candidates=None, n_relevant=1,
                 k=None, random=None, bins=20, ax=None):
    r"""Histogram of per-query RR per system, with the RR distribution of a random ranking.

    Parameters
    ----------
    scores : DataFrame, Series, 1-D array, mapping or Evaluation
        Per-query RR: rows = queries, columns = systems (at most 8 shown).
    systems : list of str, optional, keyword-only
        Systems to show (default all, if there are at most 8).
    measure : str, keyword-only
        Measure to take from an Evaluation or a mapping (default ``"RR"``).
    n_candidates, n_relevant : int or array_like, optional, keyword-only
        Candidates ``N`` and relevant candidates ``R`` per query (scalars
        broadcast) of the random model to draw.
    k : int, optional, keyword-only
        Cutoff of the random model's ``RR@k`` (taken from ``measure`` for an
        Evaluation).
    random : {"retrieved", "judged"}, optional, keyword-only
        With an Evaluation: the random model of
        :func:`mrrstats.random_baseline_counts`, pooled over the shown runs.
    bins : int or array_like, keyword-only
        Number of equal bins on [0, 1] or bin edges from 0 to 1.
    ax : matplotlib Axes, optional, keyword-only

    Returns
    -------
    matplotlib.axes.Axes
        One step outline per system (share of its queries per bin) and a
        vertical line at its MRR; with a random model, grey hatched bars with
        the expected share of queries per bin and a grey dotted line at the
        expected MRR.

    Notes
    -----
    The random reference is exact: with :math:`P(K = j) = \binom{N-j}{R-1} /
    \binom{N}{R}` (:class:`mrrstats.FirstRelevantRank`), the expected share
    of queries in bin :math:`[a, b)` is the mean over the queries of
    :math:`\sum_{j : a \le 1/j < b} P(K = j)`, with all ranks deeper than the
    cutoff (and queries with ``R = 0``) at RR = 0.
    """
    frame, name, cols, edges, k, counts = _rr_histogram_iv(
        scores, systems, measure, n_candidates, n_relevant, k, random, bins)
    ax = _axes(ax, figsize=(7.5, 3.4))
    if counts is not None:
        N, R = counts
        mass = _random_rr_mass(N, R, k, edges)
        ax.bar(edges[:-1], mass, width=np.diff(edges), align="edge", color=_LIGHT,
               edgecolor=_GREY, linewidth=0.5, hatch="///", zorder=1,
               label="uniformly random ranking (expected share)")
        e = expected_mrr(N, R, k=k)
        ax.axvline(e, color=_GREY, linestyle=":", linewidth=1.5, zorder=2,
                   label=f"random ranking: E[{_mean_label(name)}] = {e:.3f}")
    for i, s in enumerate(cols):
        x = frame[s].to_numpy()
        x = x[~np.isnan(x)]
        st = _style(i)
        ax.hist(x, bins=edges, weights=np.full(x.size, 1.0 / max(x.size, 1)),
                histtype="step", color=st["color"], linestyle=st["linestyle"], linewidth=1.6,
                zorder=3, label=f"{s} ({_mean_label(name)} = {x.mean():.3f})")
        ax.axvline(x.mean(), color=st["color"], linestyle=st["linestyle"], linewidth=1.0,
                   zorder=3)
    ax.set_xlim(0, 1)
    ax.set_ylim(bottom=0)
    sizes = sorted({int(frame[s].notna().sum()) for s in cols})
    n_text = f"n = {sizes[0]}" if len(sizes) == 1 else f"n = {sizes[0]}-{sizes[-1]}"
    return _finish(ax, f"{name} of the query (1 / rank of the first relevant document)",
                   f"share of queries ({n_text})", legend_loc="right")


def _rank_ecdf_iv(scores, systems, measure, n_candidates, n_relevant, random):
    if measure is None and _is_evaluation(scores):
        measure = "Rank" if "Rank" in scores.measure_names else "RR"
    frame, name = _frame(scores, measure)
    cols = _select(frame, systems)
    values = frame[cols].to_numpy(np.float64)
    m = name.split("(")[0].split("@")[0]
    # ranks (lower is better, by the measure spec) or, for unnamed frames, values above 1
    if not _higher_is_better(name) or (m not in ("RR",) and np.nanmax(values) > 1):
        ranks = values
        if np.any(ranks[~np.isnan(ranks)] < 1):
            raise ValueError("`scores`: ranks must be >= 1 (inf when none is retrieved)")
    else:
        if np.any((values < 0) | (values > 1)):
            raise ValueError("`scores`: RR values must lie in [0, 1]")
        with np.errstate(divide="ignore"):
            ranks = np.where(values > 0, np.round(1.0 / values), np.inf)
    counts = _random_counts(frame, cols, scores, random, n_candidates, n_relevant, None)
    return cols, ranks, counts


def rank_ecdf(scores, *, systems=None, measure=None, n_candidates=None, n_relevant=1,
              random=None, ax=None):
    r"""Empirical CDF of the rank of the first relevant document, on a log axis.

    Parameters
    ----------
    scores : DataFrame, Series, 1-D array, mapping or Evaluation
        Per-query first-relevant ranks (measure ``Rank``, ``inf`` when none is
        retrieved) or RR values, from which ranks are recovered as
        ``round(1 / RR)`` (RR = 0: none retrieved). Rows = queries, columns =
        systems (at most 8 shown).
    systems : list of str, optional, keyword-only
    measure : str, optional, keyword-only
        ``"Rank"`` or ``"RR"``/``"RR@k"``. Default: ``"Rank"`` if an
        Evaluation has it, else ``"RR"``; for frames, values above 1 are ranks.
    n_candidates, n_relevant, random
        The random model to draw, as in :func:`rr_histogram`.
    ax : matplotlib Axes, optional, keyword-only

    Returns
    -------
    matplotlib.axes.Axes
        One step line per system; a query without a relevant document
        retrieved never enters the ECDF, so a line ends below 1 at the share
        of queries with one (stated in the legend). The random model is drawn
        as a grey dashed step line: the mean over queries of
        :math:`P(K \le x)` (:meth:`mrrstats.FirstRelevantRank.cdf`).

    Notes
    -----
    Recovering ranks from RR rounded to 4 decimals (as in published score
    matrices) is exact up to rank 70 or so and may be off by a few ranks
    beyond; pass ranks when you have them.
    """
    cols, ranks, counts = _rank_ecdf_iv(scores, systems, measure, n_candidates, n_relevant,
                                        random)
    ax = _axes(ax, figsize=(7.5, 3.4))
    finite = ranks[np.isfinite(ranks)]
    right = float(finite.max()) if finite.size else 10.0
    if counts is not None:
        right = max(right, float(counts[0].max()))
    right = max(right, 10.0)
    for i, s in enumerate(cols):
        r = ranks[:, i]
        r = r[~np.isnan(r)]
        n = r.size
        fin = np.sort(r[np.isfinite(r)])
        u, c = np.unique(fin, return_counts=True)
        cum = np.cumsum(c) / n
        # a step that starts at the first observed rank (no drop to 0 at rank 1)
        xs = np.concatenate((u, [right])) if u.size else np.array([1.0, right])
        ys = np.concatenate((cum, [cum[-1]])) if cum.size else np.zeros(2)
        st = _style(i)
        found = fin.size / n
        label = f"{s} (median rank {np.median(r):.0f})"
        if found < 1:
            label += f", {1 - found:.0%} none found"
        ax.step(xs, ys, where="post", color=st["color"], linestyle=st["linestyle"],
                marker=st["marker"], markevery=0.12, markersize=4, label=label, zorder=3)
    if counts is not None:
        N, R = counts
        top = int(right)
        grid = np.arange(1, top + 1) if top <= 20000 else \
            np.unique(np.geomspace(1, top, 4000).astype(np.int64))
        cdf = _random_rank_cdf(N, R, grid)
        ax.step(grid, cdf, where="post", color=_GREY, linestyle="--", linewidth=1.5, zorder=2,
                label="uniformly random ranking")
    ax.set_xscale("log")
    ax.set_xlim(0.9, right * 1.1)
    _plain_log_ticks(ax.xaxis)
    ax.set_ylim(0, 1.02)
    return _finish(ax, "rank of the first relevant document (log scale)",
                   "share of queries with rank ≤ x", legend_loc="right")


# --------------------------------------------------------------------------
# 2. per-query differences of two systems
# --------------------------------------------------------------------------
#: How an interval's ``method`` is named in legends and captions.
_METHOD_NAMES = {"t": "paired t", "bca": "BCa bootstrap", "percentile": "percentile bootstrap",
                 "basic": "basic bootstrap", "studentized": "studentized bootstrap",
                 "bootstrap-t": "studentized bootstrap",
                 "holm-sb2008": "Holm-compatible (Strassburger & Bretz 2008)",
                 "fcr-by2005": "FCR-adjusted (Benjamini & Yekutieli 2005)",
                 "bonferroni": "Bonferroni", "marginal": "marginal",
                 "maxt-step-down": "max-T step-down compatible",
                 "maxt-single-step": "max-T single-step simultaneous",
                 "tukey-simultaneous": "randomised Tukey simultaneous"}


def interval_name(method) -> str:
    """Readable name of an interval method (``"bca"`` -> ``"BCa bootstrap"``).

    >>> interval_name("bca"), interval_name("t")
    ('BCa bootstrap', 'paired t')
    """
    m = "" if method is None else str(method)
    if m.endswith(")") and "(" in m:         # "holm-sb2008(randomization)": how(test)
        how, test = m[:-1].split("(", 1)
        return f"{_METHOD_NAMES.get(how, how)}, inverting the {test} test"
    return _METHOD_NAMES.get(m, m)


def _interval_iv(interval, param="interval"):
    """(low, high, confidence level or None, method name) of an interval-like value.

    Accepted: a :class:`mrrstats.ConfidenceInterval`; a result with
    ``confidence_interval()`` (it is asked, not recomputed); a row of a
    pairwise frame (mapping or Series with ``ci_low``/``ci_high`` and
    optionally ``confidence_level``/``ci_method``); a ``(low, high)`` pair.
    """
    if interval is None:
        return None
    cl = method = None
    if hasattr(interval, "confidence_interval") and not hasattr(interval, "low"):
        interval = interval.confidence_interval()
    if hasattr(interval, "low") and hasattr(interval, "high"):
        cl = getattr(interval, "confidence_level", None)
        method = getattr(interval, "method", None)
        lo, hi = interval.low, interval.high
    elif isinstance(interval, (Mapping, pd.Series)) and "ci_low" in interval:
        lo, hi = interval["ci_low"], interval["ci_high"]
        cl = interval.get("confidence_level")
        method = interval.get("ci_method")
    else:
        try:
            lo, hi = interval
        except (TypeError, ValueError):
            raise TypeError(f"`{param}` must be a ConfidenceInterval, a result with "
                            f"confidence_interval(), a pairwise row with ci_low/ci_high or a "
                            f"(low, high) pair, got {interval!r}") from None
    lo, hi = float(lo), float(hi)
    if not lo <= hi:       # an end may be infinite (one-sided or compatible intervals)
        raise ValueError(f"`{param}`: low {lo} is above high {hi}")
    return lo, hi, (None if cl is None else float(cl)), interval_name(method)


def _wrap(text, width=28):
    """Legend text broken into lines of at most ``width`` characters."""
    return "\n".join(textwrap.wrap(str(text), width)) or str(text)


def _paired_differences_iv(a, b, names, measure, interval):
    na = getattr(a, "name", None)
    nb = getattr(b, "name", None)
    if isinstance(a, pd.Series) and isinstance(b, pd.Series):
        if set(a.index) != set(b.index) or a.index.has_duplicates:
            raise ValueError("`a` and `b` must hold the same queries (index)")
        b = b.reindex(a.index)
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError(f"`a` and `b` must be 1-D and of equal length, got {x.shape} and "
                         f"{y.shape}")
    if x.size < 2 or np.isnan(x).any() or np.isnan(y).any():
        raise ValueError("`a` and `b` need at least 2 queries and no NaN")
    if names is None:
        names = (str(na) if na is not None else "a", str(nb) if nb is not None else "b")
    elif isinstance(names, str) or len(names) != 2:
        raise ValueError(f"`names` must be a pair of system names, got {names!r}")
    if measure is None:
        measure = getattr(a, "attrs", {}).get("measure", "score")
    return x, y, tuple(map(str, names)), str(measure), _interval_iv(interval)


def paired_differences(a, b, *, interval=None, names=None, measure=None, ax=None, **removed):
    """Sorted per-query differences ``a - b`` with the mean difference and its interval.

    Parameters
    ----------
    a, b : array_like or Series, 1-D
        Aligned per-query scores of two systems (Series are aligned on their
        index and named after ``.name``).
    interval : ConfidenceInterval, result, pairwise row or (low, high), optional, keyword-only
        The interval of the mean difference to draw, as computed by the
        analysis that the figure illustrates: a
        :class:`mrrstats.ConfidenceInterval`, a result with
        ``confidence_interval()`` (e.g. :func:`mrrstats.paired_ttest`,
        :func:`mrrstats.bootstrap_ci`), the row of the pair in
        ``PairwiseResult.to_frame()`` (so the figure shows the table's
        interval), or a ``(low, high)`` pair. Its method is named in the
        legend. None draws no interval. Nothing is computed here.
    names : pair of str, optional, keyword-only
        System names for the labels.
    measure : str, optional, keyword-only
        Measure name for the axis label (default ``a.attrs["measure"]`` or "score").
    ax : matplotlib Axes, optional, keyword-only

    Returns
    -------
    matplotlib.axes.Axes
        One bar per query where the systems differ (``a`` better: blue, plain;
        ``b`` better: vermillion, hatched), sorted from the largest to the
        smallest difference; ties are counted in the x label. A black line at
        the mean difference and a grey band for its interval.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import mrrstats, mrrstats.plots as mp
    >>> a, b = [1, 0.5, 1, 0.25, 1, 0.5], [0.5, 0.5, 0.2, 0.25, 0.5, 0.33]
    >>> ax = mp.paired_differences(a, b, interval=mrrstats.paired_ttest(a, b))
    >>> [t.get_text() for t in ax.get_legend().get_texts() if "CI" in t.get_text()]
    ['95% CI [-0.011, +0.667] (paired t)']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    if removed:
        raise TypeError(f"paired_differences() no longer computes an interval "
                        f"({sorted(removed)}): pass the one your analysis computed as "
                        "interval=, e.g. interval=mrrstats.paired_ttest(a, b)")
    x, y, names, measure, iv = _paired_differences_iv(a, b, names, measure, interval)
    d = x - y
    order = np.argsort(-d, kind="stable")
    ds = d[order]
    pos = np.arange(1, d.size + 1)
    ax = _axes(ax, figsize=(7.5, 3.2))
    win, loss = ds > 0, ds < 0
    s0, s1 = _style(0), _style(1)
    ax.bar(pos[win], ds[win], width=0.85, color=s0["color"], edgecolor=s0["color"],
           label=f"{names[0]} better ({win.sum()} queries)")
    ax.bar(pos[loss], ds[loss], width=0.85, color="white", edgecolor=s1["color"],
           hatch="////", linewidth=0.8, label=f"{names[1]} better ({loss.sum()} queries)")
    ax.axhline(0, color="black", linewidth=0.6)
    if iv is not None:
        lo, hi, cl, how = iv
        level = "" if cl is None else f"{cl:.0%} "
        how = f" ({how})" if how else ""
        ymin, ymax = ax.get_ylim()
        ax.axhspan(max(lo, ymin), min(hi, ymax), color=_GREY, alpha=0.3, linewidth=0,
                   label=_wrap(f"{level}CI {interval_text(lo, hi)}{how}", 34))
        ax.set_ylim(ymin, ymax)        # an infinite end runs to the edge
    ax.axhline(d.mean(), color="black", linewidth=1.5, linestyle="--",
               label=f"mean difference {d.mean():+.3f}")
    ax.set_xlim(0.3, d.size + 0.7)
    ties = int(d.size - win.sum() - loss.sum())
    return _finish(ax, f"queries sorted by difference (n = {d.size}, {ties} ties)",
                   f"per-query difference in {measure}", legend_loc="right")


# --------------------------------------------------------------------------
# 3. forest plots
# --------------------------------------------------------------------------
def _forest_means_iv(intervals, measure, systems):
    if isinstance(intervals, pd.DataFrame) and {"mean", "ci_low", "ci_high"} <= set(
            intervals.columns):
        table = intervals
        if "system" in table.columns:
            table = table.set_index("system")
        if "measure" in table.columns and measure is not None:
            table = table[table["measure"] == measure]
        if table.empty:
            raise ValueError(f"`intervals` has no row for measure {measure!r}")
        if "measure" in table.columns and table["measure"].nunique() > 1:
            raise ValueError("`intervals` holds several measures: choose one with measure=")
        name = measure if measure is not None else (
            str(table["measure"].iloc[0]) if "measure" in table.columns else
            table.attrs.get("measure", "score"))
        method = table["method"].iloc[0] if "method" in table.columns else \
            table.attrs.get("method")
        cl = table["confidence_level"].iloc[0] if "confidence_level" in table.columns else \
            table.attrs.get("confidence_level")
        nq = int(table["n_queries"].iloc[0]) if "n_queries" in table.columns else None
        frame = table[["mean", "ci_low", "ci_high"]].astype(np.float64)
    elif isinstance(intervals, Mapping) and intervals and all(
            hasattr(r, "confidence_interval") for r in intervals.values()):
        rows = {}
        method = cl = nq = None
        for s, r in intervals.items():
            ci = r.confidence_interval()
            stat = getattr(r, "statistic", None)
            if stat is None:
                raise TypeError(f"`intervals[{s!r}]` has no `statistic` (the mean)")
            rows[str(s)] = {"mean": float(stat), "ci_low": float(ci.low),
                            "ci_high": float(ci.high)}
            method, cl = getattr(ci, "method", None), getattr(ci, "confidence_level", None)
            nq = getattr(r, "n", nq)
        frame = pd.DataFrame.from_dict(rows, orient="index")
        name = "score" if measure is None else measure
    else:
        raise TypeError("forest_means() draws computed intervals: `intervals` must be a "
                        "DataFrame with columns mean, ci_low, ci_high (one row per system) "
                        "or a mapping {system: result with statistic and "
                        "confidence_interval()}, e.g. {s: mrrstats.bootstrap_ci(x) ...}; got "
                        f"{type(intervals).__name__}")
    frame.index = [str(i) for i in frame.index]
    cols = _select(frame.T, systems, param="systems", limit=None)
    return frame.loc[cols], str(name), method, cl, nq


def forest_means(intervals, *, measure=None, systems=None, sort=True, ax=None, **removed):
    """Forest plot of each system's mean (MRR) with its confidence interval.

    Parameters
    ----------
    intervals : DataFrame or mapping
        The computed means and intervals: a DataFrame with one row per system
        (index or column ``system``) and columns ``mean, ci_low, ci_high``
        (optionally ``measure``, ``method``, ``confidence_level``,
        ``n_queries``, named in the axis label), or a mapping ``{system:
        result}`` of results with ``statistic`` and ``confidence_interval()``
        (e.g. :func:`mrrstats.bootstrap_ci` of each system). Nothing is
        computed here.
    measure : str, optional, keyword-only
        The measure (selects the rows of a table with a ``measure`` column).
    systems : list of str, optional, keyword-only
        Systems to show (default all).
    sort : bool, keyword-only
        Best system at the top (default); otherwise input order, top down.
    ax : matplotlib Axes, optional, keyword-only

    Returns
    -------
    matplotlib.axes.Axes
        One row per system: the mean (dot) and the interval (line with caps).

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import pandas as pd, mrrstats.plots as mp
    >>> t = pd.DataFrame({"mean": [0.5, 0.6], "ci_low": [0.4, 0.5], "ci_high": [0.6, 0.7],
    ...                   "method": "t", "confidence_level": 0.95}, index=["bm25", "dense"])
    >>> mp.forest_means(t, measure="RR").get_xlabel()
    'MRR with 95% paired t CI'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    if removed:
        raise TypeError(f"forest_means() no longer computes intervals ({sorted(removed)}): "
                        "pass the means and intervals your analysis computed")
    frame, name, method, cl, nq = _forest_means_iv(intervals, measure, systems)
    means = frame["mean"].to_numpy()
    lows, highs = frame["ci_low"].to_numpy(), frame["ci_high"].to_numpy()
    labels = np.asarray(frame.index, dtype=object)
    order = np.argsort(means, kind="stable") if sort else np.arange(means.size)[::-1]
    if not _higher_is_better(name) and sort:
        order = order[::-1]
    k = means.size
    ax = _axes(ax, figsize=(5.0, min(9.0, max(2.0, 0.9 + 0.22 * k))))
    y = np.arange(k)
    st = _style(0)
    small = k > 30
    ax.errorbar(means[order], y, xerr=[means[order] - lows[order], highs[order] - means[order]],
                fmt=st["marker"], color=st["color"], markersize=3 if small else 5,
                capsize=1.5 if small else 2.5, elinewidth=1.0 if small else 1.2)
    ax.set_yticks(y, labels[order], fontsize=8 if not small else max(3.5, 8 - k / 25))
    ax.set_ylim(-0.7, k - 0.3)
    level = "" if cl is None else f"{float(cl):.0%} "
    how = f"{interval_name(method)} " if method else ""
    queries = f" ({nq} queries)" if nq else ""
    return _finish(ax, f"{_mean_label(name)} with {level}{how}CI{queries}", "system",
                   legend=False)


def _higher_is_better(measure) -> bool:
    return higher_is_better(measure)


_FAMILY_NAMES = {"tukey": "randomised Tukey HSD", "maxt": "Westfall-Young max-T",
                 "anova-hsd": "Tukey HSD"}


def _pairs_frame(result, measure, param):
    """A pairwise result (PairwiseResult, Comparison or their frame) as a DataFrame."""
    if hasattr(result, "results") and hasattr(result, "measures"):      # Comparison
        key = measure if measure in result.results else result.measures[0]
        result = result.results[key]
    if hasattr(result, "to_frame") and hasattr(result, "ci_low"):       # PairwiseResult
        frame = result.to_frame()
        frame["ci_method"] = result.ci_method
        frame["confidence_level"] = result.confidence_level
        frame["alpha"] = result.alpha
        return frame
    if isinstance(result, pd.DataFrame):
        frame = result
        if measure is not None and "measure" in frame.columns and \
                frame["measure"].nunique() > 1:
            frame = frame[frame["measure"] == measure]
        return frame
    raise TypeError(f"`{param}` must be a PairwiseResult, a Comparison or a frame of their "
                    f"pairs (to_frame()), got {type(result).__name__}")


def _versus(frame, baseline, param):
    """Rows ``system, diff, ci_low, ci_high, reject`` oriented system - baseline."""
    need = {"diff", "ci_low", "ci_high"}
    if not need <= set(frame.columns):
        raise ValueError(f"`{param}` needs columns {sorted(need)}")
    if "system" in frame.columns:                 # already against the baseline
        out = frame.set_index("system")[["diff", "ci_low", "ci_high"]].copy()
        out["reject"] = frame["reject"].to_numpy(bool) if "reject" in frame.columns else False
        return out
    rows = {}
    for r in frame.to_dict("records"):
        if r["b"] == baseline:
            rows[r["a"]] = (r["diff"], r["ci_low"], r["ci_high"], r.get("reject", False))
        elif r["a"] == baseline:
            rows[r["b"]] = (-r["diff"], -r["ci_high"], -r["ci_low"], r.get("reject", False))
    if not rows:
        raise ValueError(f"`baseline` {baseline!r} is in no pair of `{param}`")
    out = pd.DataFrame.from_dict(rows, orient="index",
                                 columns=["diff", "ci_low", "ci_high", "reject"])
    out["reject"] = out["reject"].astype(bool)
    return out


def _first(frame, col, default=None):
    return frame[col].iloc[0] if col in frame.columns and len(frame) else \
        frame.attrs.get(col, default)


def forest_differences(pairwise, baseline, *, simultaneous=None, measure=None, sort=True,
                       ax=None, **removed):
    """Differences to a baseline with their intervals and decisions, as computed.

    Parameters
    ----------
    pairwise : PairwiseResult, Comparison or DataFrame
        The comparison to draw: :func:`mrrstats.pairwise_tests` or
        :func:`mrrstats.compare` output, the frame of its pairs
        (``to_frame()``: columns ``a, b, diff, ci_low, ci_high, reject``), or a
        frame already oriented against the baseline (columns ``system, diff,
        ci_low, ci_high, reject``, as a report's ``versus_baseline``). Its
        intervals are drawn as thick bars, its decisions as filled markers.
    baseline : str
        The system every other one is compared with (difference = system - baseline).
    simultaneous : PairwiseResult, Comparison or DataFrame, optional, keyword-only
        A family-wise result (``test="tukey"``, ``"maxt"`` or ``"anova-hsd"``)
        whose simultaneous intervals are drawn as thin capped lines.
    measure : str, optional, keyword-only
        Measure of a Comparison (default its first) and of the axis label.
    sort : bool, keyword-only
        Largest difference at the top.
    ax : matplotlib Axes, optional, keyword-only

    Returns
    -------
    matplotlib.axes.Axes

    Notes
    -----
    Nothing is computed: the figure shows the intervals and decisions of
    the results it is given, so that it agrees with their tables. Intervals
    and decisions agree when the result makes them agree (a pair is rejected
    exactly when 0 lies outside its interval).

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import pandas as pd, mrrstats.plots as mp
    >>> pairs = pd.DataFrame({"a": ["x", "y"], "b": ["base", "base"], "diff": [0.1, -0.02],
    ...                       "ci_low": [0.04, -0.08], "ci_high": [0.16, 0.04],
    ...                       "reject": [True, False], "ci_method": "t"})
    >>> mp.forest_differences(pairs, "base", measure="RR").get_xlabel()
    'difference in MRR (system − base)'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    if removed:
        raise TypeError(f"forest_differences() no longer runs tests ({sorted(removed)}): "
                        "pass the PairwiseResult or Comparison your analysis computed")
    if not isinstance(baseline, str):
        raise TypeError(f"`baseline` must be a system name, got {baseline!r}")
    frame = _pairs_frame(pairwise, measure, "pairwise")
    if measure is None:
        measure = _first(frame, "measure", "score")
    vs = _versus(frame, baseline, "pairwise")
    fam = None
    if simultaneous is not None:
        fframe = _pairs_frame(simultaneous, measure, "simultaneous")
        if _first(fframe, "test") not in _FAMILY_NAMES:
            raise ValueError("`simultaneous` must be a result of test='tukey', 'maxt' or "
                             "'anova-hsd'")
        fam = _versus(fframe, baseline, "simultaneous").reindex(vs.index)
        if fam["diff"].isna().any():
            raise ValueError("`simultaneous` was computed on other systems than `pairwise`")
    diff = vs["diff"].to_numpy(np.float64)
    mlo, mhi = vs["ci_low"].to_numpy(np.float64), vs["ci_high"].to_numpy(np.float64)
    rej = vs["reject"].to_numpy(bool)
    # an infinite end (one-sided or compatible intervals) is drawn to the plot's edge
    ends = np.concatenate([diff, mlo[np.isfinite(mlo)], mhi[np.isfinite(mhi)], [0.0]])
    span = max(float(ends.max() - ends.min()), 1e-12)
    edge = (float(ends.min()) - 0.15 * span, float(ends.max()) + 0.15 * span)
    open_ends = ~np.isfinite(mlo) | ~np.isfinite(mhi)
    mlo, mhi = np.clip(mlo, *edge), np.clip(mhi, *edge)
    order = np.argsort(diff, kind="stable") if sort else np.arange(diff.size)[::-1]
    k = diff.size
    ax = _axes(ax, figsize=(8.0, min(10.0, max(2.0, 1.1 + 0.25 * k))))
    y = np.arange(k)
    s0, s1 = _style(0), _style(1)
    cl = _first(frame, "confidence_level")
    level = "" if cl is None else f"{float(cl):.0%} "
    how = interval_name(_first(frame, "ci_method"))
    small = k > 30
    ax.hlines(y, mlo[order], mhi[order], color=s0["color"], linewidth=2.5 if small else 5,
              alpha=0.55, label=f"{level}CI" + (f"\n({_wrap(how)})" if how else ""), zorder=2)
    if fam is not None:
        fcl = _first(_pairs_frame(simultaneous, measure, "simultaneous"), "confidence_level")
        flevel = "" if fcl is None else f"{float(fcl):.0%} "
        ax.errorbar(diff[order], y, xerr=[diff[order] - fam["ci_low"].to_numpy()[order],
                                          fam["ci_high"].to_numpy()[order] - diff[order]],
                    fmt="none", ecolor="black", elinewidth=0.9, capsize=2 if small else 3.5,
                    label=f"simultaneous {flevel}CI "
                          f"({_FAMILY_NAMES[_first(fframe, 'test')]})", zorder=3)
    alpha = _first(frame, "alpha")
    filled = rej[order]
    ax.scatter(diff[order][filled], y[filled], marker="D", s=14 if small else 30,
               color=s1["color"], edgecolor="black", linewidth=0.6, zorder=4,
               label="significant" + ("" if alpha is None else f" (α = {float(alpha):g})"))
    ax.scatter(diff[order][~filled], y[~filled], marker="D", s=14 if small else 30,
               facecolor="white", edgecolor="black", linewidth=0.8, zorder=4,
               label="not significant")
    if open_ends.any():
        ax.set_xlim(*edge)
        ax.plot([], [], color=s0["color"], linewidth=5, alpha=0.55,
                label="bar to the edge:\ninterval open on that side")
    ax.axvline(0, color=_GREY, linestyle="--", linewidth=1, zorder=1)
    labels = np.asarray(list(vs.index), dtype=object)
    ax.set_yticks(y, labels[order], fontsize=8 if not small else 5.5)
    ax.set_ylim(-0.7, k - 0.3)
    return _finish(ax, f"difference in {_mean_label(measure)} (system − {baseline})", "system",
                   legend_loc="right")


# --------------------------------------------------------------------------
# 4. null or bootstrap distribution
# --------------------------------------------------------------------------
def _null_distribution_iv(distribution, observed, kind, alternative, pvalue, interval, bins):
    if hasattr(distribution, "bootstrap_distribution"):
        res = distribution
        dist = np.asarray(res.bootstrap_distribution, dtype=np.float64)
        observed = res.statistic if observed is None else observed
        if interval is None:
            interval = res.confidence_interval()
        kind = "bootstrap" if kind is None else kind
    elif hasattr(distribution, "null_distribution"):
        res = distribution
        dist = np.asarray(res.null_distribution, dtype=np.float64)
        observed = res.statistic if observed is None else observed
        pvalue = getattr(res, "pvalue", None) if pvalue is None else pvalue
        alternative = getattr(res, "alternative", alternative)
        kind = "null" if kind is None else kind
    else:
        dist = np.asarray(distribution, dtype=np.float64)
        kind = "null" if kind is None else kind
    if dist.ndim != 1 or dist.size < 2 or not np.all(np.isfinite(dist)):
        raise ValueError("`distribution` must be a 1-D array of at least 2 finite values (or a "
                         "BootstrapCIResult)")
    if kind not in ("null", "bootstrap"):
        raise ValueError(f"`kind` must be 'null' or 'bootstrap', got {kind!r}")
    if alternative not in ("two-sided", "greater", "less"):
        raise ValueError(f"`alternative` must be 'two-sided', 'greater' or 'less', got "
                         f"{alternative!r}")
    if observed is not None:
        observed = float(observed)
    if interval is not None:
        what = "interval"
        if hasattr(interval, "confidence_level"):
            method = {"bca": "BCa", "t": "t"}.get(getattr(interval, "method", ""),
                                                  getattr(interval, "method", ""))
            what = f"{interval.confidence_level:.0%} {method} interval".replace("  ", " ")
        lo, hi = interval
        interval = (float(lo), float(hi), what)
    if isinstance(bins, bool) or not isinstance(bins, numbers.Integral) or bins < 2:
        raise ValueError(f"`bins` must be an integer >= 2, got {bins!r}")
    return dist, observed, kind, alternative, pvalue, interval


def null_distribution(distribution, observed=None, *, kind=None, alternative="two-sided",
                      pvalue=None, interval=None, xlabel=None, bins=50, ax=None):
    """Histogram of a null or bootstrap distribution with the observed statistic.

    Parameters
    ----------
    distribution : array_like or BootstrapCIResult
        Resampled values of the statistic, or a result that carries them: a
        :class:`BootstrapCIResult` (``observed``, ``interval`` and
        ``kind="bootstrap"`` are taken from it), or any result with
        ``null_distribution`` and ``statistic`` attributes (``kind="null"``).
    observed : float, optional
        The observed value of the statistic.
    kind : {"null", "bootstrap"}, optional, keyword-only
        A null distribution: the region at least as extreme as the observed
        value (by ``alternative``) is shaded. A bootstrap distribution: the
        interval is shaded.
    alternative : {"two-sided", "greater", "less"}, keyword-only
        Which tail(s) count as extreme (two-sided: ``|T| >= |t|``).
    pvalue : float, optional, keyword-only
        Shown in the legend; default for a null distribution: the share of
        resampled values at least as extreme, ``(1 + count) / (1 + B)``.
    interval : (low, high), optional, keyword-only
        Confidence interval to shade (bootstrap).
    xlabel : str, optional, keyword-only
        Name of the statistic with its unit (default "test statistic" or
        "resampled statistic").
    bins : int, keyword-only
    ax : matplotlib Axes, optional, keyword-only

    Returns
    -------
    matplotlib.axes.Axes
        Bars of the density (extreme region hatched, vermillion), a solid
        black line at the observed value (dashed at its mirror image for a
        two-sided null) and, for a bootstrap, the shaded interval.
    """
    dist, observed, kind, alternative, pvalue, interval = _null_distribution_iv(
        distribution, observed, kind, alternative, pvalue, interval, bins)
    ax = _axes(ax, figsize=(7.0, 3.4))
    counts, edges = np.histogram(dist, bins=bins)
    dens = counts / (dist.size * np.diff(edges))
    centre = (edges[:-1] + edges[1:]) / 2
    extreme = np.zeros(centre.size, dtype=bool)
    if kind == "null" and observed is not None:
        t = abs(observed)
        extreme = {"two-sided": np.abs(centre) >= t, "greater": centre >= observed,
                   "less": centre <= observed}[alternative]
    label = f"{kind} distribution (B = {dist.size:,})"
    ax.bar(edges[:-1][~extreme], dens[~extreme], width=np.diff(edges)[~extreme], align="edge",
           color=_LIGHT, edgecolor=_GREY, linewidth=0.4, label=label)
    if extreme.any():
        ax.bar(edges[:-1][extreme], dens[extreme], width=np.diff(edges)[extreme], align="edge",
               color="white", edgecolor=PALETTE[1], hatch="////", linewidth=0.6,
               label="as or more extreme than observed")
    if interval is not None:
        lo, hi, what = interval
        ax.axvspan(lo, hi, color=PALETTE[0], alpha=0.15, linewidth=0,
                   label=f"{what} [{lo:.4g}, {hi:.4g}]")
        for v in (lo, hi):
            ax.axvline(v, color=PALETTE[0], linestyle=":", linewidth=1.2)
    if observed is not None:
        if pvalue is None and kind == "null":
            tail = {"two-sided": np.abs(dist) >= abs(observed) - 1e-12,
                    "greater": dist >= observed - 1e-12,
                    "less": dist <= observed + 1e-12}[alternative]
            pvalue = (1 + tail.sum()) / (1 + dist.size)
        text = f"observed {observed:.4g}"
        if pvalue is not None:
            text += f" (p = {pvalue:.3g})"
        ax.axvline(observed, color="black", linewidth=2, label=text)
        if kind == "null" and alternative == "two-sided" and observed != 0:
            ax.axvline(-observed, color="black", linewidth=1, linestyle="--")
    ax.set_ylim(0, dens.max() * 1.08)
    if observed is not None:       # the observed value (and its mirror) always visible
        marks = [observed, -observed] if kind == "null" and alternative == "two-sided" \
            else [observed]
        lo_x, hi_x = min(edges[0], *marks), max(edges[-1], *marks)
        pad = 0.04 * (hi_x - lo_x if hi_x > lo_x else 1.0)
        ax.set_xlim(lo_x - pad, hi_x + pad)
    if xlabel is None:
        xlabel = "test statistic" if kind == "null" else "resampled statistic"
    return _finish(ax, xlabel, "density", legend_loc="right")


# --------------------------------------------------------------------------
# 5. agreement between measures
# --------------------------------------------------------------------------
def _pick_measures(scores, names, param="scores"):
    """``{measure: DataFrame}`` of the named measures, through the one coercion."""
    if not (_is_evaluation(scores) or isinstance(scores, Mapping)):
        raise TypeError(f"`{param}` must be an Evaluation or a mapping {{measure: DataFrame}}, "
                        f"got {type(scores).__name__}")
    if isinstance(scores, Mapping):
        missing = [m for m in names if m not in scores]
        if missing:
            raise ValueError(f"`{param}` has no measure {missing}; have {list(scores)}")

    tables = as_score_tables(scores, measures=list(names), missing="drop", finite=False,
                             name=param)
    return {m: t.to_frame() for m, t in tables.items()}


def _measure_scatter_iv(scores, x, y, decimals):
    if not isinstance(x, str) or not isinstance(y, str) or x == y:
        raise ValueError(f"`x` and `y` must be two different measure names, got {x!r}, {y!r}")
    return _pick_measures(scores, [x, y])


def measure_scatter(scores, x="RR", y="AP", *, decimals=12, ax=None):
    """System means under two measures, with Kendall's tau and tau_AP in the title.

    Parameters
    ----------
    scores : Evaluation or mapping {measure: DataFrame or path}
        Per-query scores of the same systems and queries under both measures
        (as for :func:`mrrstats.ranking_agreement`).
    x, y : str
        The two measures (e.g. ``"RR"`` against ``"AP"`` or ``"nDCG@10"``).
    decimals : int or None, keyword-only
        Rounding of the means before ranking (see :func:`mrrstats.ranking_agreement`).
    ax : matplotlib Axes, optional, keyword-only

    Returns
    -------
    matplotlib.axes.Axes
        One point per system (labelled when there are at most 12); the
        title gives Kendall's tau-b, tau_AP (``x`` as the truth) and the
        number of system pairs the two measures order oppositely.
    """
    frames = _measure_scatter_iv(scores, x, y, decimals)

    agree = ranking_agreement(frames, decimals=decimals)
    row = agree[(agree["measure_a"] == x) & (agree["measure_b"] == y)].iloc[0]
    mx = frames[x].mean(axis=0)
    my = frames[y].mean(axis=0).reindex(mx.index)
    ax = _axes(ax, figsize=(4.2, 3.8))
    st = _style(0)
    ax.scatter(mx.to_numpy(), my.to_numpy(), s=18 if mx.size > 30 else 30, marker=st["marker"],
               facecolor=st["color"], edgecolor="white", linewidth=0.5, alpha=0.85,
               label=f"system ({mx.size})")
    if mx.size <= 12:
        mid = (mx.min() + mx.max()) / 2
        for name, a, b in zip(mx.index, mx.to_numpy(), my.to_numpy(), strict=True):
            right = a > mid
            ax.annotate(str(name), (a, b), xytext=(-4 if right else 4, 3),
                        textcoords="offset points", fontsize=7,
                        ha="right" if right else "left")
    ax.set_title(f"Kendall's $\\tau$ = {row['tau']:.3f}, $\\tau_{{AP}}$ = {row['tau_ap']:.3f}\n"
                 f"{int(row['n_swaps'])} of {int(row['n_pairs'])} system pairs swapped")
    ax.margins(0.08)
    return _finish(ax, f"{_mean_label(x)} (mean over {frames[x].shape[0]} queries)",
                   f"{_mean_label(y)}", legend=False)


_BOUNDED = ("tau", "tau_ap", "tau_ap_symmetric", "rho")


def _tau_heatmap_iv(agreement, value):
    if isinstance(agreement, pd.DataFrame) and {"measure_a", "measure_b"} <= set(
            agreement.columns):
        table = agreement
    else:
        table = ranking_agreement(agreement)

    return agreement_matrix(table, value), table


def tau_heatmap(agreement, *, value="tau", ax=None):
    """Annotated measure-by-measure matrix of rank agreement.

    Parameters
    ----------
    agreement : DataFrame, Evaluation or mapping
        The output of :func:`mrrstats.ranking_agreement`, or the scores to
        compute it from.
    value : str, keyword-only
        Column shown (see :func:`mrrstats.agreement_matrix`): ``"tau"``
        (default), ``"tau_ap"``, ``"tau_ap_symmetric"``, ``"rho"``,
        ``"n_swaps"``, ...
    ax : matplotlib Axes, optional, keyword-only

    Returns
    -------
    matplotlib.axes.Axes
        The matrix drawn with the cividis colour map (monotone in lightness,
        so readable in greyscale; -1 to 1 for correlations), every cell
        annotated with its value, a colour bar on the same figure.
    """
    mat, table = _tau_heatmap_iv(agreement, value)
    n_sys = int(table["n_systems"].iloc[0])
    vals = mat.to_numpy(np.float64)
    ax = _axes(ax, figsize=(1.6 + 0.75 * mat.shape[1], 1.2 + 0.65 * mat.shape[0]))
    if value in _BOUNDED:      # 0..1 unless some correlation is negative
        vmin, vmax = (-1.0 if np.nanmin(vals) < 0 else 0.0), 1.0
    elif value.endswith("pvalue"):
        vmin, vmax = 0.0, 1.0
    else:
        vmin, vmax = 0.0, max(1.0, float(np.nanmax(vals)))
    im = ax.imshow(vals, cmap="cividis", vmin=vmin, vmax=vmax, aspect="equal")
    import matplotlib as mpl

    cmap = mpl.colormaps["cividis"]
    for i in range(vals.shape[0]):
        for j in range(vals.shape[1]):
            v = vals[i, j]
            if np.isnan(v):
                text, colour = "n/a", "black"
            else:
                text = f"{v:.3f}" if value not in ("n_swaps", "n_ties_a", "n_ties_b") \
                    else f"{int(v)}"
                r, g, b, _ = cmap((v - vmin) / (vmax - vmin))
                colour = "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"
            ax.text(j, i, text, ha="center", va="center", color=colour, fontsize=8)
    ax.set_xticks(range(mat.shape[1]), [str(c) for c in mat.columns])
    ax.set_yticks(range(mat.shape[0]), [str(r) for r in mat.index])
    names = {"tau": "Kendall's $\\tau$", "tau_ap": "$\\tau_{AP}$",
             "tau_ap_symmetric": "symmetric $\\tau_{AP}$", "rho": "Spearman's $\\rho$",
             "n_swaps": "swapped system pairs"}
    label = names.get(value, value)
    ax.figure.colorbar(im, ax=ax, label=label, shrink=0.85)
    ax.set_title(f"{label} between system rankings\n({n_sys} systems)")
    for side in ("top", "right"):
        ax.spines[side].set_visible(True)
    xl, yl = ("evaluated measure", "reference measure (truth)") if value == "tau_ap" else \
        ("measure", "measure")
    ax.set_xlabel(xl)
    ax.set_ylabel(yl)
    return ax


# --------------------------------------------------------------------------
# 6. power
# --------------------------------------------------------------------------
def _power_curve_iv(curves, simulated, target):
    need = {"difference", "n_queries", "power"}
    if not isinstance(curves, pd.DataFrame) or not need <= set(curves.columns):
        raise TypeError("power_curve() draws computed power: `curves` must be a DataFrame "
                        "with columns difference, n_queries, power (e.g. "
                        "mrrstats.report.power_table(sd, differences=...)), got "
                        f"{type(curves).__name__}")
    diffs = list(dict.fromkeys(curves["difference"].tolist()))
    if not 1 <= len(diffs) <= _MAX_SERIES:
        raise ValueError(f"`curves` must hold 1 to {_MAX_SERIES} differences")
    if simulated is not None and (not isinstance(simulated, pd.DataFrame) or
                                  not need <= set(simulated.columns)):
        raise TypeError("`simulated` must be a DataFrame with columns difference, n_queries, "
                        "power (and power_se)")
    if target is not None and not 0 < target < 1:
        raise ValueError(f"`target` must be in (0, 1), got {target!r}")
    return diffs


def power_curve(curves, *, simulated=None, target=None, series=None, ax=None, **removed):
    """Power against the number of queries, one curve per true difference (as computed).

    Parameters
    ----------
    curves : DataFrame
        Columns ``difference, n_queries, power`` (one row per point), and
        optionally ``n_required`` (queries needed for the target power, marked
        on each curve and given in the legend); ``attrs`` may hold ``sd``,
        ``alpha``, ``alternative``, ``target`` and ``test`` for the labels.
        :func:`mrrstats.report.power_table` computes it for the paired t-test.
    simulated : DataFrame, optional, keyword-only
        Simulated power (columns ``difference, n_queries, power, power_se``,
        e.g. from :func:`mrrstats.randomization_power`), drawn as points with
        2-SE error bars.
    target : float, optional, keyword-only
        Target power drawn as a dotted line (default ``curves.attrs["target"]``).
    series : mapping, optional, keyword-only
        ``{difference: i}``: draw that difference in the i-th colour, marker and
        line style (default: in order), so that one difference looks the same
        in several panels.
    ax : matplotlib Axes, optional, keyword-only

    Returns
    -------
    matplotlib.axes.Axes
    """
    if removed:
        raise TypeError(f"power_curve() no longer computes power ({sorted(removed)}): pass "
                        "the table of mrrstats.report.power_table(...)")
    diffs = _power_curve_iv(curves, simulated, target)
    at = curves.attrs
    target = at.get("target") if target is None else target
    alpha = at.get("alpha")
    ax = _axes(ax, figsize=(7.0, 3.4))
    n_all = curves["n_queries"].to_numpy(np.float64)
    for i, d in enumerate(diffs):
        st = _style(i if series is None else int(series[d]))
        c = curves[curves["difference"] == d].sort_values("n_queries")
        need = int(c["n_required"].iloc[0]) if "n_required" in c.columns else None
        label = f"Δ = {d:g}" + (f" (n ≥ {need:,})" if need is not None else "")
        ax.plot(c["n_queries"], c["power"], color=st["color"], linestyle=st["linestyle"],
                label=label)
        if need is not None and target is not None and \
                c["n_queries"].min() <= need <= c["n_queries"].max():
            ax.plot([need], [target], marker=st["marker"], color=st["color"], markersize=6,
                    linestyle="none")
        if simulated is not None:
            sm = simulated[simulated["difference"] == d]
            if len(sm):
                se = sm["power_se"].to_numpy() if "power_se" in sm.columns else None
                ax.errorbar(sm["n_queries"], sm["power"], yerr=None if se is None else 2 * se,
                            fmt=st["marker"], mfc="white", color=st["color"], capsize=2,
                            markersize=5, label="randomization test\n(simulated, ±2 SE)"
                            if i == 0 else None)
    if target is not None:
        ax.axhline(target, color=_GREY, linestyle=":", linewidth=1)
    if alpha is not None:
        ax.axhline(alpha, color=_GREY, linestyle="-", linewidth=0.6)
    ax.set_ylim(-0.02, 1.02)       # power 0 (e.g. too few queries for an exact test) visible
    pad = 0.02 * (n_all.max() - n_all.min())
    ax.set_xlim(n_all.min() - pad, n_all.max() + pad)
    sided = "two-sided" if at.get("alternative", "two-sided") == "two-sided" else "one-sided"
    test = at.get("test", "paired t")
    ylab = f"power (P[p ≤ {alpha:g}], {test}, {sided})" if alpha is not None else "power"
    title = "true difference Δ"
    if target is not None and "n_required" in curves.columns:
        title += f"\n(n for {target:.0%} power)"
    if at.get("sd") is not None:
        title += f"\n$\\sigma_d$ = {at['sd']:.3f}"
    return _finish(ax, "number of queries", ylab, legend_loc="right", title=title)


# --------------------------------------------------------------------------
# 7. observed against random
# --------------------------------------------------------------------------
def _observed_vs_random_iv(baseline, random, measure, confidence_level):
    cl = _confidence_level(confidence_level)
    if _is_evaluation(baseline):
        raise TypeError("observed_vs_random() draws a computed table: pass "
                        "mrrstats.evaluation_baseline(evaluation, random=...) (the one place "
                        "the random baseline of each system is computed)")
    if isinstance(baseline, pd.DataFrame):
        if not {"observed", "expected"} <= set(baseline.columns):
            raise ValueError("`baseline` must have columns 'observed' and 'expected' (and "
                             "optionally 'std'), e.g. the output of evaluation_baseline")
        table = baseline
        name = str(baseline["measure"].iloc[0]) if "measure" in baseline.columns else measure
    else:
        raise TypeError(f"`baseline` must be a DataFrame (e.g. mrrstats.evaluation_baseline), "
                        f"got {type(baseline).__name__}")
    return table, name, cl


def observed_vs_random(baseline, *, random=None, measure="RR", confidence_level=0.95, ax=None):
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
    ax = _axes(ax, figsize=(7.5, min(10.0, max(2.6, 1.2 + 0.4 * k))))
    ax.hlines(y, exp, obs, color=_GREY, linewidth=0.8, zorder=1)
    if "std" in table.columns:
        z = stats.norm.ppf(0.5 + cl / 2)
        sd = table["std"].to_numpy(np.float64)
        ax.errorbar(exp, y, xerr=z * sd, fmt="o", mfc="white", color=_GREY, capsize=3,
                    zorder=2, label=f"random ranking: E[{_mean_label(name)}] ± {cl:.0%} range")
    else:
        ax.plot(exp, y, "o", mfc="white", color=_GREY, zorder=2,
                label=f"random ranking: E[{_mean_label(name)}]")
    st = _style(0)
    ax.plot(obs, y, marker="s", linestyle="none", color=st["color"], zorder=3,
            label=f"observed {_mean_label(name)}")
    for yi, e in zip(y, exp, strict=True):        # the random expectation, labelled
        ax.annotate(f"E = {e:.3f}", (e, yi), xytext=(0, -9), textcoords="offset points",
                    ha="center", va="top", fontsize=6.5, color="#4d4d4d")
    labels = [f"{lab}\nadjusted {a:.3f}" for lab, a in zip(table.index, adj, strict=True)]
    ax.set_yticks(y, labels, fontsize=7.5)
    ax.set_ylim(-0.6, k - 0.4)
    ax.set_xlim(0, 1)
    return _finish(ax, f"{_mean_label(name)}", "", legend_loc="right")


def _expected_mrr_curve_iv(n_candidates, n_relevant, k):
    if n_candidates is None:
        N = np.unique(np.geomspace(1, 1e6, 241).round().astype(np.int64))
    else:
        N = np.unique(np.asarray(n_candidates, dtype=np.int64))
        if N.ndim != 1 or N.size < 2 or N.min() < 1:
            raise ValueError("`n_candidates` must hold at least two counts >= 1")
    R = np.atleast_1d(np.asarray(n_relevant))
    if R.ndim != 1 or R.size == 0 or R.size > _MAX_SERIES or R.min() < 1 or \
            not np.issubdtype(R.dtype, np.integer):
        raise ValueError(f"`n_relevant` must hold 1 to {_MAX_SERIES} integers >= 1, got "
                         f"{n_relevant!r}")
    if k is not None and (isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1):
        raise ValueError(f"`k` must be a positive integer, got {k!r}")
    return N, R, k


def expected_mrr_curve(n_candidates=None, *, n_relevant=(1, 2, 5, 10), k=None, ax=None):
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

    ax = _axes(ax)
    for i, r in enumerate(R):
        st = _style(i)
        n = N[N >= r]
        ax.plot(n, expected_rr(n, int(r)), color=st["color"], linestyle=st["linestyle"],
                marker=st["marker"], markevery=0.1, markersize=4, label=f"R = {r}")
        if k is not None:
            ax.plot(n, expected_rr(n, int(r), k=k), color=st["color"], linewidth=0.8,
                    linestyle=st["linestyle"], alpha=0.7)
    ax.plot(N, 1.0 / N, color=_GREY, linewidth=0.8, linestyle=":", label="1/N")
    if k is not None:
        ax.plot([], [], color="black", linewidth=0.8, label=f"thin: E[RR@{k}]")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(N.min(), N.max())
    return _finish(ax, "number of candidates N (log scale)",
                   "expected RR of a random ranking (log scale)", legend_loc="lower left",
                   title="relevant candidates")


# --------------------------------------------------------------------------
# 8. teaching: how each measure credits one relevant document
# --------------------------------------------------------------------------
def _rank_credit_iv(max_rank, n_relevant, measures):
    for name, v, lo in (("max_rank", max_rank, 2), ("n_relevant", n_relevant, 1)):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < lo:
            raise ValueError(f"`{name}` must be an integer >= {lo}, got {v!r}")
    if max_rank > 100000:
        raise ValueError(f"`max_rank` must be at most 100000, got {max_rank}")

    ms = parse_measures(measures)
    if not 1 <= len(ms) <= _MAX_SERIES:
        raise ValueError(f"`measures` must name 1 to {_MAX_SERIES} measures")
    return [str(m) for m in ms]


def rank_credit(*, max_rank=100, n_relevant=1, measures=("RR", "AP", "nDCG"), ax=None):
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
    ax = _axes(ax)
    widths = np.linspace(2.6, 1.2, len(names))
    for i, m in enumerate(names):
        st = _style(i)
        ax.plot(ranks, values[m].to_numpy(), color=st["color"], linestyle=st["linestyle"],
                linewidth=widths[i], marker=st["marker"], markevery=(i * 0.03, 0.12),
                markersize=5, label=m + (f" (= {same[m][0]} here)" if same[m] else ""))
    ax.set_xscale("log")
    ax.set_xlim(1, max_rank)
    _plain_log_ticks(ax.xaxis)
    ax.set_ylim(0, 1.04)
    rel = "one relevant document" if n_relevant == 1 else \
        f"{n_relevant} relevant, 1 retrieved"
    return _finish(ax, "rank of the relevant document (log scale)",
                   "score of the query", legend_loc="upper right", title=rel)


# --------------------------------------------------------------------------
# leaderboards, clustered intervals, the convention multiverse
# --------------------------------------------------------------------------
def short_names(names):
    """System names without the prefix and suffix they all share (``org_``, ``.run``).

    Examples
    --------
    >>> from mrrstats.plots import short_names
    >>> short_names(["org_bm25.run", "org_ance.run"])
    ['bm25', 'ance']
    """
    names = [str(n) for n in names]
    if len(names) < 2:
        return names
    pre, suf = len(os.path.commonprefix(names)), len(os.path.commonprefix([n[::-1]
                                                                          for n in names]))
    if any(len(n) - pre - suf < 1 for n in names):
        return names
    return [n[pre:len(n) - suf] for n in names]


def rank_intervals_plot(leaderboard, *, measures=None, systems=None, ax=None):
    """Each system's rank (marker) and simultaneous rank interval (line), per measure.

    Parameters
    ----------
    leaderboard : DataFrame
        Columns ``measure, system, rank, rank_low, rank_high`` (the report's
        ``results/leaderboard.csv``, or :meth:`mrrstats.RankIntervals.to_frame`
        with a ``measure`` column). Nothing is computed here.
    measures, systems : list of str, optional, keyword-only
        Default all; systems top down by their rank under the first measure.
    ax : matplotlib Axes, optional, keyword-only

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import pandas as pd, mrrstats.plots as mp
    >>> lb = pd.DataFrame({"measure": "RR", "system": ["a", "b", "c"], "rank": [1, 2, 3],
    ...                    "rank_low": [1, 1, 3], "rank_high": [2, 2, 3]})
    >>> mp.rank_intervals_plot(lb).get_xlabel()
    'rank (1 = best): observed and simultaneous interval'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    frame = pd.DataFrame(leaderboard)
    need = {"measure", "system", "rank", "rank_low", "rank_high"}
    if not need <= set(frame.columns):
        raise ValueError(f"`leaderboard` needs the columns {sorted(need)}")
    if measures is None:
        measures = list(dict.fromkeys(frame["measure"]))
    first = frame[frame["measure"] == measures[0]].sort_values(["rank", "rank_low"],
                                                               kind="stable")
    if systems is None:
        systems = list(first["system"])
    else:
        systems = [s for s in first["system"] if s in set(systems)]
    k, nm = len(systems), len(measures)
    ax = _axes(ax, figsize=(5.0, min(9.0, 0.9 + 0.3 * k)))
    offsets = np.linspace(0.22, -0.22, nm) if nm > 1 else np.zeros(1)
    base = np.arange(k)[::-1].astype(float)
    for j, m in enumerate(measures):
        sub = frame[frame["measure"] == m].set_index("system").loc[systems]
        st = _style(j)
        y = base + offsets[j]
        ax.hlines(y, sub["rank_low"].to_numpy(float) - 0.1,
                  sub["rank_high"].to_numpy(float) + 0.1, color=st["color"],
                  linestyle=st["linestyle"], linewidth=2.0)
        ax.plot(sub["rank"].to_numpy(float), y, st["marker"], color=st["color"],
                markersize=5, label=m)
    ax.set_yticks(base, short_names(systems), fontsize=8)
    n_sys = int(frame.groupby("measure")["system"].nunique().max())
    ax.set_xticks(range(1, n_sys + 1))
    ax.set_xlim(0.5, n_sys + 0.5)
    ax.set_ylim(-0.7, k - 0.3)
    return _finish(ax, "rank (1 = best): observed and simultaneous interval", "system",
                   legend=nm > 1, legend_loc="right")


def _pair_rows(frame, need, measure):
    """The rows of one measure of a pairs frame (``measure=None``: the first one), their
    ``"a - b"`` labels in short system names, and the measure; checks ``need`` columns."""
    if not need <= set(frame.columns):
        raise ValueError(f"`frame` needs the columns {sorted(need)}")
    if measure is None:
        measure = frame["measure"].iloc[0]
    sub = frame[frame["measure"] == measure]
    if sub.empty:
        raise ValueError(f"no rows for measure {measure!r}")
    systems = list(dict.fromkeys([*sub["a"], *sub["b"]]))
    short = dict(zip(systems, short_names(systems), strict=True))
    labels = [f"{short[a]} - {short[b]}" for a, b in zip(sub["a"], sub["b"], strict=True)]
    return sub, labels, measure


def clustered_intervals(frame, *, measure=None, ax=None):
    """Each pair's interval with queries as independent (grey) and with clusters resampled.

    Parameters
    ----------
    frame : DataFrame
        Columns ``measure, a, b, diff, query_low, query_high, cluster_low,
        cluster_high`` (the report's ``results/clustered.csv``). Nothing is
        computed here.
    measure : str, optional, keyword-only
        Which measure (default the first).
    ax : matplotlib Axes, optional, keyword-only

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import pandas as pd, mrrstats.plots as mp
    >>> f = pd.DataFrame({"measure": "RR", "a": ["x"], "b": ["y"], "diff": [0.1],
    ...                   "query_low": [0.0], "query_high": [0.2], "cluster_low": [-0.02],
    ...                   "cluster_high": [0.22]})
    >>> mp.clustered_intervals(f).get_legend_handles_labels()[1]
    ['queries independent', 'clusters resampled']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    frame = pd.DataFrame(frame)
    need = {"measure", "a", "b", "diff", "query_low", "query_high", "cluster_low",
            "cluster_high"}
    sub, labels, measure = _pair_rows(frame, need, measure)
    k = len(sub)
    ax = _axes(ax, figsize=(5.0, min(9.0, 0.9 + 0.32 * k)))
    y = np.arange(k)[::-1].astype(float)
    grey = "0.55"
    st = _style(0)
    ax.hlines(y + 0.15, sub["query_low"], sub["query_high"], color=grey, linewidth=2.0,
              label="queries independent")
    ax.hlines(y - 0.15, sub["cluster_low"], sub["cluster_high"], color=st["color"],
              linewidth=2.0, linestyle="-", label="clusters resampled")
    ax.plot(sub["diff"], y, "|", color="black", markersize=9)
    ax.axvline(0.0, color="0.3", linewidth=0.8, linestyle=":")
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_ylim(-0.7, k - 0.3)
    return _finish(ax, f"mean {measure} difference a - b (bootstrap percentile interval)",
                   "pair", legend_loc="right")


def estimation_intervals(frame, *, measure=None, margin=None, ax=None):
    """Each pair's Hodges-Lehmann shift with its interval, next to the mean difference.

    Parameters
    ----------
    frame : DataFrame
        Columns ``measure, a, b, diff, hl_estimate, hl_low, hl_high`` (the
        report's ``results/estimation.csv``). Nothing is computed here.
    measure : str, optional, keyword-only
        Which measure (default the first).
    margin : float, optional, keyword-only
        The equivalence margin: shaded from ``-margin`` to ``margin``.
    ax : matplotlib Axes, optional, keyword-only

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import pandas as pd, mrrstats.plots as mp
    >>> f = pd.DataFrame({"measure": "RR", "a": ["x"], "b": ["y"], "diff": [0.1],
    ...                   "hl_estimate": [0.12], "hl_low": [0.02], "hl_high": [0.2]})
    >>> mp.estimation_intervals(f, margin=0.05).get_legend_handles_labels()[1]
    ['equivalence margin', 'Hodges-Lehmann shift', 'mean difference']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    frame = pd.DataFrame(frame)
    need = {"measure", "a", "b", "diff", "hl_estimate", "hl_low", "hl_high"}
    sub, labels, measure = _pair_rows(frame, need, measure)
    k = len(sub)
    ax = _axes(ax, figsize=(5.0, min(9.0, 0.9 + 0.32 * k)))
    y = np.arange(k)[::-1].astype(float)
    if margin is not None and np.isfinite(margin):
        ax.axvspan(-margin, margin, color="0.9", zorder=0, label="equivalence margin")
    st = _style(0)
    ax.hlines(y, sub["hl_low"], sub["hl_high"], color=st["color"], linewidth=2.0)
    ax.plot(sub["hl_estimate"], y, "o", color=st["color"], markersize=4,
            label="Hodges-Lehmann shift")
    ax.plot(sub["diff"], y, "|", color="black", markersize=9, label="mean difference")
    ax.axvline(0.0, color="0.3", linewidth=0.8, linestyle=":")
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_ylim(-0.7, k - 0.3)
    return _finish(ax, f"{measure} difference a - b (Hodges-Lehmann shift, Wilcoxon interval)",
                   "pair", legend_loc="right")


_CONVENTION_OPTIONS = ("ties", "queries", "rel", "cutoff", "empty_target")


def one_option_at_a_time(frame, reference):
    """Rows of a multiverse frame whose convention departs from ``reference`` in one option.

    ``frame`` has the convention columns ``ties, queries, rel, cutoff`` (and
    ``empty_target``); ``reference`` maps them to the reference values. Adds
    a ``convention`` label (``"reference"``, ``"ties = optimistic"``, ``"rel
    >= 2"``, ...). The empty-target policy only changes a number where some
    query has no relevant document, which is usually only at a higher
    relevance threshold than the reference's: a row that changes the
    threshold and the policy together is kept too (``"rel >= 3, empty_target
    = skip"``).
    """
    frame = pd.DataFrame(frame)
    opts = [k for k in _CONVENTION_OPTIONS if k in reference and k in frame.columns]
    differ = np.column_stack([frame[k].astype(str).to_numpy() != str(reference[k])
                              for k in opts])
    keep = differ.sum(axis=1) <= 1
    if "empty_target" in opts:
        rel_empty = np.zeros(len(opts), bool)
        rel_empty[[opts.index("rel"), opts.index("empty_target")]] = True
        keep |= (differ == rel_empty).all(axis=1)
    out = frame.loc[keep].copy()
    labels = []
    for row, d in zip(out.itertuples(index=False), differ[keep], strict=True):
        if not d.any():
            labels.append("reference")
            continue
        parts = []
        for i in np.flatnonzero(d):
            k = opts[int(i)]
            v = getattr(row, k)
            parts.append(f"rel >= {v}" if k == "rel" else f"{k} = {v}")
        labels.append(", ".join(parts))
    out["convention"] = labels
    return out


def multiverse_plot(systems, reference, *, measure=None, value="rank", ax=None):
    """Each system's rank (or mean) under the reference convention and under each single change.

    Parameters
    ----------
    systems : DataFrame
        :attr:`mrrstats.MultiverseResult.systems` (or the report's
        ``results/multiverse_systems.csv``): convention columns, ``system``,
        ``mean``.
    reference : dict
        The reference convention (``MultiverseResult.reference[measure]``).
    measure : str, optional, keyword-only
        Default the first.
    value : {"rank", "mean"}, keyword-only
        Draw each system's rank (1 = best, at the top; default) or its mean.
    ax : matplotlib Axes, optional, keyword-only

    Returns
    -------
    matplotlib.axes.Axes
        One line per system across the conventions that change one option
        (the reference first); lines that cross are systems whose order flips.
    """
    if value not in ("rank", "mean"):
        raise ValueError(f"`value` must be 'rank' or 'mean', got {value!r}")
    frame = pd.DataFrame(systems)
    if measure is None:
        measure = frame["measure"].iloc[0]
    sub = one_option_at_a_time(frame[frame["measure"] == measure], reference)
    kinds = ["reference", "ties", "queries", "rel", "cutoff", "empty_target"]
    order = sorted(dict.fromkeys(sub["convention"]),
                   key=lambda c: kinds.index(c.split(" ")[0]))
    names = list(dict.fromkeys(sub["system"]))
    short = dict(zip(names, short_names(names), strict=True))
    ax = _axes(ax, figsize=(5.6, 3.4))
    x = np.arange(len(order))
    for i, (name, g) in enumerate(sub.groupby("system", sort=False)):
        st = _style(i)
        g = g.set_index("convention").reindex(order)
        ax.plot(x, g[value].to_numpy(float), marker=st["marker"], color=st["color"],
                linestyle=st["linestyle"], markersize=4, linewidth=1.2, label=short[name])
    ax.set_xticks(x, order, rotation=35, ha="right", fontsize=7.5)
    if value == "rank":
        k = len(names)
        ax.set_yticks(range(1, k + 1))
        ax.set_ylim(k + 0.4, 0.6)
        ylabel = f"rank by {_mean_label(measure)} (1 = best)"
    else:
        ylabel = _mean_label(measure)
    return _finish(ax, "convention (one option changed from the reference)", ylabel,
                   legend_loc="right")


def segment_means(table, *, measure=None, ax=None):
    """Each segment's mean with its interval, one row per segment, per run.

    Draws a table computed elsewhere: :func:`mrrstats.by_segment` or the
    ``segments`` of a :class:`mrrstats.Comparison` made with ``segment_by``
    (its ``means_frame``). Nothing is computed here.

    Parameters
    ----------
    table : DataFrame or SegmentComparison
        Columns ``segment, mean, ci_low, ci_high``, a run column (``run`` or
        ``system``) and, with several measures, ``measure``.
    measure : str, optional
        The measure to draw; required when the table has several.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import pandas as pd, mrrstats.plots as mp
    >>> t = pd.DataFrame({"run": ["a", "a"], "segment": ["x", "y"], "mean": [0.5, 0.7],
    ...                   "ci_low": [0.4, 0.6], "ci_high": [0.6, 0.8]})
    >>> [t.get_text() for t in mp.segment_means(t).get_yticklabels()]
    ['x', 'y']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    frame = getattr(table, "means_frame", table)
    if not isinstance(frame, pd.DataFrame):
        raise TypeError("`table` must be a by_segment frame or a SegmentComparison, got "
                        f"{type(table).__name__}")
    runcol = "run" if "run" in frame.columns else "system"
    need = {"segment", "mean", "ci_low", "ci_high", runcol}
    if not need <= set(frame.columns):
        raise ValueError(f"`table` lacks columns {sorted(need - set(frame.columns))}")
    if "measure" in frame.columns:
        measures = list(dict.fromkeys(frame["measure"]))
        if measure is None:
            if len(measures) > 1:
                raise ValueError(f"`measure`: the table has several measures {measures}; "
                                 "name one")
            measure = measures[0]
        if measure not in measures:
            raise ValueError(f"`measure`={measure!r} not in the table; have {measures}")
        frame = frame[frame["measure"] == measure]
    ax = _axes(ax)
    segs = list(dict.fromkeys(frame["segment"]))
    runs = list(dict.fromkeys(frame[runcol]))
    pos = {s: i for i, s in enumerate(segs)}
    width = 0.8 / max(len(runs), 1)
    for i, run in enumerate(runs):
        part = frame[frame[runcol] == run]
        y = np.array([pos[s] for s in part["segment"]], dtype=float)
        y = y - 0.4 + width * (i + 0.5)
        m = part["mean"].to_numpy(dtype=float)
        err = np.vstack([m - part["ci_low"].to_numpy(dtype=float),
                         part["ci_high"].to_numpy(dtype=float) - m])
        st = _style(i)
        ax.errorbar(m, y, xerr=err, fmt=st["marker"], color=st["color"], linestyle="none",
                    capsize=2, label=str(run))
    ax.set_yticks(range(len(segs)), [str(s) for s in segs])
    ax.invert_yaxis()
    label = _mean_label(measure) if measure is not None else "mean"
    _finish(ax, f"{label} (with its interval)", "segment", legend=len(runs) > 1)
    return ax


# judge-labelled and incompletely judged evaluations (issue 23); imported last: the module
# draws with this one's palette and style
from .judge_plots import bound_bars, judge_intervals  # noqa: E402
