r"""Plots for MRR and its companions: distributions, comparisons, baselines, power.

Every function takes ``ax=None`` (a new figure is created when it is None),
draws on that Axes and returns it; none calls ``show()``. matplotlib is
imported inside the functions, so ``import mrrstats`` does not import it.

The style is shared by all functions: the Okabe-Ito colour-blind-safe palette
(:data:`PALETTE`), and series that also differ by marker, line style or
hatch, so that every figure stays readable in greyscale. Random-ranking
references are always grey. Axis labels name the quantity and its unit or
scale. :func:`style_context` applies the package's rcParams (font sizes,
embedded TrueType fonts in PDF) for publication figures.

Functions
---------
=========================  ===========================================================
:func:`rr_histogram`       per-query RR per system, with the RR distribution of a random ranking
:func:`rank_ecdf`          ECDF of the first-relevant rank (log axis), with the random CDF
:func:`paired_differences` sorted per-query differences of two systems, mean and its CI
:func:`forest_means`       each system's mean (MRR) with its confidence interval
:func:`forest_differences` differences to a baseline: marginal and simultaneous intervals
:func:`null_distribution`  null or bootstrap distribution of a statistic and the observed value
:func:`measure_scatter`    system means under two measures, Kendall's tau in the title
:func:`tau_heatmap`        measure-by-measure matrix of rank correlations
:func:`power_curve`        power of the paired t-test against the number of queries
:func:`observed_vs_random` observed MRR against its random-ranking expectation
:func:`expected_mrr_curve` expected RR of a random ranking against the number of candidates
:func:`rank_credit`        how RR, AP and nDCG credit a relevant document as its rank grows
=========================  ===========================================================

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
from collections.abc import Mapping

import numpy as np
import pandas as pd

__all__ = [
    "PALETTE",
    "style_context",
    "rr_histogram",
    "rank_ecdf",
    "paired_differences",
    "forest_means",
    "forest_differences",
    "null_distribution",
    "measure_scatter",
    "tau_heatmap",
    "power_curve",
    "observed_vs_random",
    "expected_mrr_curve",
    "rank_credit",
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
    from ..metrics.evaluation import Evaluation

    return isinstance(x, Evaluation)


def _mean_label(measure) -> str:
    """MRR for RR, MAP for AP, mean X otherwise (cut-offs kept)."""
    m = str(measure)
    for short, long in (("RR", "MRR"), ("AP", "MAP")):
        if m == short or m.startswith(short + "@") or m.startswith(short + "("):
            return long + m[len(short):]
    return f"mean {m}"


def _frame(scores, measure, param="scores"):
    """Normalise scores to (DataFrame rows = queries, columns = systems, measure name)."""
    if _is_evaluation(scores):
        name = "RR" if measure is None else str(measure)
        return scores.scores(name).astype(np.float64), name
    if isinstance(scores, Mapping):
        if measure is None:
            if len(scores) != 1:
                raise ValueError(f"`measure` must name one of the measures of `{param}` "
                                 f"({list(scores)})")
            measure = next(iter(scores))
        if measure not in scores:
            raise ValueError(f"`measure` {measure!r} is not in `{param}` ({list(scores)})")
        value = scores[measure]
        if not isinstance(value, pd.DataFrame):
            from ..io.trec import read_score_matrix

            value = read_score_matrix(value)
        return value.astype(np.float64), str(measure)
    if isinstance(scores, pd.DataFrame):
        name = measure if measure is not None else scores.attrs.get("measure", "score")
        return scores.astype(np.float64), str(name)
    if isinstance(scores, pd.Series):
        name = measure if measure is not None else scores.attrs.get("measure", "score")
        label = scores.name if scores.name is not None else "system"
        return scores.astype(np.float64).to_frame(str(label)), str(name)
    if isinstance(scores, (list, tuple, np.ndarray)):
        arr = np.asarray(scores, dtype=np.float64)
        if arr.ndim != 1:
            raise ValueError(f"`{param}` as an array must be 1-D (one system), got shape "
                             f"{arr.shape}; pass a DataFrame for several systems")
        return pd.DataFrame({"system": arr}), "score" if measure is None else str(measure)
    raise TypeError(f"`{param}` must be a DataFrame (rows = queries, columns = systems), a "
                    f"Series, a 1-D array, a mapping {{measure: DataFrame}} or an Evaluation, "
                    f"got {type(scores).__name__}")


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


def _rng(rng):
    if rng is None or isinstance(rng, (numbers.Integral, np.random.Generator)) and \
            not isinstance(rng, bool):
        return np.random.default_rng(rng)
    raise TypeError(f"`rng` must be None, an int or a numpy.random.Generator, got {rng!r}")


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
        from ..baselines.random_ranking import random_baseline_counts

        counts = random_baseline_counts(scores, random=random)
        counts = counts[counts["run"].isin(systems)]
        return (counts["n_candidates"].to_numpy(np.int64),
                counts["n_relevant"].to_numpy(np.int64))
    if n_candidates is None:
        return None
    N, R = np.broadcast_arrays(np.asarray(n_candidates), np.asarray(n_relevant))
    N, R = N.ravel(), R.ravel()
    from ..baselines.random_ranking import expected_mrr

    expected_mrr(N, R, k=k)  # validates the counts with the baselines' messages
    return N.astype(np.int64), R.astype(np.int64)


def _random_rr_mass(N, R, k, edges):
    """Share of queries whose random-ranking RR falls in each histogram bin (exact)."""
    from ..baselines.random_ranking import FirstRelevantRank

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
    from ..baselines.random_ranking import FirstRelevantRank

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
        from ..metrics.measures import parse_measure

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
        from ..baselines.random_ranking import expected_mrr

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
    if m == "Rank" or (m not in ("RR",) and np.nanmax(values) > 1):
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
        xs = np.concatenate(([1.0], u, [right]))
        ys = np.concatenate(([0.0], cum, [cum[-1] if cum.size else 0.0]))
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
_BOOT_METHODS = ("bca", "percentile", "basic")


def _paired_differences_iv(a, b, names, measure, ci, confidence_level, n_resamples):
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
    cl = _confidence_level(confidence_level)
    if not (isinstance(ci, str) and ci in ("t",) + _BOOT_METHODS):
        try:
            lo, hi = ci
            lo, hi = float(lo), float(hi)
        except (TypeError, ValueError):
            raise ValueError(f"`ci` must be 't', 'bca', 'percentile', 'basic' or a (low, "
                             f"high) pair, got {ci!r}") from None
    if measure is None:
        measure = getattr(a, "attrs", {}).get("measure", "score")
    return x, y, tuple(map(str, names)), str(measure), cl


def paired_differences(a, b, *, names=None, measure=None, ci="t", confidence_level=0.95,
                       n_resamples=10000, rng=None, ax=None):
    """Sorted per-query differences ``a - b`` with the mean difference and its CI.

    Parameters
    ----------
    a, b : array_like or Series, 1-D
        Aligned per-query scores of two systems (Series are aligned on their
        index and named after ``.name``).
    names : pair of str, optional, keyword-only
        System names for the labels.
    measure : str, optional, keyword-only
        Measure name for the axis label (default ``a.attrs["measure"]`` or "score").
    ci : {"t", "bca", "percentile", "basic"} or (low, high), keyword-only
        Interval of the mean difference: the paired t interval
        (:func:`mrrstats.paired_ttest`), a paired bootstrap interval
        (:func:`mrrstats.bootstrap_ci`), or one you computed.
    confidence_level : float, keyword-only
    n_resamples : int, keyword-only
        Bootstrap resamples.
    rng : None, int or Generator, keyword-only
    ax : matplotlib Axes, optional, keyword-only

    Returns
    -------
    matplotlib.axes.Axes
        One bar per query where the systems differ (``a`` better: blue, plain;
        ``b`` better: vermillion, hatched), sorted from the largest to the
        smallest difference; ties are counted in the x label. A black line at
        the mean difference and a grey band for its interval.
    """
    x, y, names, measure, cl = _paired_differences_iv(a, b, names, measure, ci,
                                                      confidence_level, n_resamples)
    d = x - y
    order = np.argsort(-d, kind="stable")
    ds = d[order]
    pos = np.arange(1, d.size + 1)
    if isinstance(ci, str) and ci == "t":
        from ..stats.significance import paired_ttest

        lo, hi = paired_ttest(x, y).confidence_interval(cl)
        how = "paired t"
    elif isinstance(ci, str):
        from ..stats.significance import bootstrap_ci

        res = bootstrap_ci(x, y, method=ci, confidence_level=cl, n_resamples=n_resamples,
                           rng=_rng(rng))
        lo, hi = res.confidence_interval()
        how = f"{ci} bootstrap"
    else:
        lo, hi = map(float, ci)
        how = "given"
    ax = _axes(ax, figsize=(7.5, 3.2))
    win, loss = ds > 0, ds < 0
    s0, s1 = _style(0), _style(1)
    ax.bar(pos[win], ds[win], width=0.85, color=s0["color"], edgecolor=s0["color"],
           label=f"{names[0]} better ({win.sum()} queries)")
    ax.bar(pos[loss], ds[loss], width=0.85, color="white", edgecolor=s1["color"],
           hatch="////", linewidth=0.8, label=f"{names[1]} better ({loss.sum()} queries)")
    ax.axhline(0, color="black", linewidth=0.6)
    ax.axhspan(lo, hi, color=_GREY, alpha=0.3, linewidth=0,
               label=f"{cl:.0%} CI [{lo:+.3f}, {hi:+.3f}] ({how})")
    ax.axhline(d.mean(), color="black", linewidth=1.5, linestyle="--",
               label=f"mean difference {d.mean():+.3f}")
    ax.set_xlim(0.3, d.size + 0.7)
    ties = int(d.size - win.sum() - loss.sum())
    return _finish(ax, f"queries sorted by difference (n = {d.size}, {ties} ties)",
                   f"per-query difference in {measure}", legend_loc="right")


# --------------------------------------------------------------------------
# 3. forest plots
# --------------------------------------------------------------------------
def _forest_means_iv(scores, measure, systems, method, confidence_level, n_resamples, rng):
    frame, name = _frame(scores, measure)
    cols = _select(frame, systems, limit=None)
    sub = frame[cols]
    if sub.isna().to_numpy().any():
        raise ValueError("`scores` has missing values; drop them first")
    if sub.shape[0] < 2:
        raise ValueError("`scores` needs at least 2 queries")
    if method not in ("t",) + _BOOT_METHODS:
        raise ValueError(f"`method` must be 't', 'bca', 'percentile' or 'basic', got {method!r}")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, numbers.Integral) or \
            n_resamples < 1:
        raise ValueError(f"`n_resamples` must be a positive integer, got {n_resamples!r}")
    return sub, name, _confidence_level(confidence_level), _rng(rng)


def _t_interval(x, cl):
    from scipy import stats

    n = x.size
    se = x.std(ddof=1) / math.sqrt(n)
    h = stats.t.ppf(0.5 + cl / 2, n - 1) * se
    return x.mean() - h, x.mean() + h


def forest_means(scores, *, measure=None, systems=None, method="bca", confidence_level=0.95,
                 n_resamples=10000, rng=None, sort=True, ax=None):
    """Forest plot of each system's mean (MRR) with its confidence interval.

    Parameters
    ----------
    scores : DataFrame, mapping or Evaluation
        Per-query scores, rows = queries, columns = systems.
    measure : str, optional, keyword-only
        Measure to take from an Evaluation (default ``"RR"``) or a mapping.
    systems : list of str, optional, keyword-only
        Systems to show (default all).
    method : {"bca", "percentile", "basic", "t"}, keyword-only
        Bootstrap interval (:func:`mrrstats.bootstrap_ci`) or the t interval.
    confidence_level : float, keyword-only
    n_resamples : int, keyword-only
    rng : None, int or Generator, keyword-only
        One Generator serves all systems, in column order.
    sort : bool, keyword-only
        Best system at the top (default); otherwise column order, top down.
    ax : matplotlib Axes, optional, keyword-only

    Returns
    -------
    matplotlib.axes.Axes
        One row per system: the mean (dot) and the interval (line with caps).
    """
    sub, name, cl, gen = _forest_means_iv(scores, measure, systems, method, confidence_level,
                                          n_resamples, rng)
    means, lows, highs = [], [], []
    for s in sub.columns:
        x = sub[s].to_numpy(np.float64)
        if method == "t":
            lo, hi = _t_interval(x, cl)
        else:
            from ..stats.significance import bootstrap_ci

            lo, hi = bootstrap_ci(x, method=method, confidence_level=cl,
                                  n_resamples=n_resamples, rng=gen).confidence_interval()
        means.append(x.mean())
        lows.append(lo)
        highs.append(hi)
    means, lows, highs = map(np.asarray, (means, lows, highs))
    labels = np.asarray(sub.columns, dtype=object)
    order = np.argsort(means, kind="stable") if sort else np.arange(means.size)[::-1]
    k = means.size
    ax = _axes(ax, figsize=(5.0, min(9.0, max(2.0, 0.9 + 0.22 * k))))
    y = np.arange(k)
    how = "t" if method == "t" else f"{'BCa' if method == 'bca' else method} bootstrap"
    st = _style(0)
    small = k > 30
    ax.errorbar(means[order], y, xerr=[means[order] - lows[order], highs[order] - means[order]],
                fmt=st["marker"], color=st["color"], markersize=3 if small else 5,
                capsize=1.5 if small else 2.5, elinewidth=1.0 if small else 1.2)
    ax.set_yticks(y, labels[order], fontsize=8 if not small else max(3.5, 8 - k / 25))
    ax.set_ylim(-0.7, k - 0.3)
    return _finish(ax, f"{_mean_label(name)} with {cl:.0%} {how} CI ({sub.shape[0]} queries)",
                   "system", legend=False)


def _forest_differences_iv(scores, baseline, measure, marginal, simultaneous, confidence_level,
                           n_resamples, rng):
    frame, name = _frame(scores, measure)
    if baseline not in frame.columns:
        raise ValueError(f"`baseline` {baseline!r} is not a system of `scores` "
                         f"({list(frame.columns)})")
    if frame.shape[1] < 2:
        raise ValueError("`scores` needs a baseline and at least one other system")
    if frame.isna().to_numpy().any():
        raise ValueError("`scores` has missing values; drop them first")
    if marginal not in ("t",) + _BOOT_METHODS:
        raise ValueError(f"`marginal` must be 't', 'bca', 'percentile' or 'basic', got "
                         f"{marginal!r}")
    family = None
    if isinstance(simultaneous, str):
        if simultaneous not in ("tukey", "maxt", "none"):
            raise ValueError(f"`simultaneous` must be 'tukey', 'maxt', 'none' or a "
                             f"family-wise PairwiseResult/Comparison, got {simultaneous!r}")
    else:
        family = simultaneous
        if hasattr(family, "results") and hasattr(family, "measures"):   # Comparison
            key = name if name in family.results else family.measures[0]
            family = family.results[key]
        if not hasattr(family, "ci_low") or getattr(family, "test", None) not in (
                "tukey", "maxt", "anova-hsd"):
            raise ValueError("`simultaneous` as a result must be a PairwiseResult or "
                             "Comparison computed with test='tukey', 'maxt' or 'anova-hsd'")
        if set(family.systems) != set(frame.columns):
            raise ValueError("`simultaneous` was computed on other systems than `scores`")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, numbers.Integral) or \
            n_resamples < 1:
        raise ValueError(f"`n_resamples` must be a positive integer, got {n_resamples!r}")
    return frame, name, family, _confidence_level(confidence_level), _rng(rng)


def forest_differences(scores, baseline, *, measure=None, marginal="t", simultaneous="tukey",
                       confidence_level=0.95, n_resamples=10000, rng=None, sort=True, ax=None):
    """Differences to a baseline with marginal and simultaneous intervals.

    Parameters
    ----------
    scores : DataFrame, mapping or Evaluation
        Per-query scores, rows = queries, columns = systems.
    baseline : str
        The system every other system is compared with (difference = system - baseline).
    measure : str, optional, keyword-only
    marginal : {"t", "bca", "percentile", "basic"}, keyword-only
        Per-pair interval: paired t or paired bootstrap (:func:`mrrstats.bootstrap_ci`).
    simultaneous : {"tukey", "maxt", "none"} or PairwiseResult or Comparison, keyword-only
        Intervals that hold jointly for all pairs of systems:
        :func:`mrrstats.randomized_tukey_hsd` or :func:`mrrstats.westfall_young`
        computed here on all systems, or a result of ``test="tukey"``,
        ``"maxt"`` or ``"anova-hsd"`` whose intervals are reused.
    confidence_level : float, keyword-only
        Level of both intervals (ignored for a given result, which has its own).
    n_resamples : int, keyword-only
    rng : None, int or Generator, keyword-only
        One Generator serves the marginal bootstraps and the family test.
    sort : bool, keyword-only
        Largest difference at the top.
    ax : matplotlib Axes, optional, keyword-only

    Returns
    -------
    matplotlib.axes.Axes
        One row per system: a thick bar for the marginal interval, a thin
        capped line for the simultaneous one (it is wider), and a diamond at
        the difference, filled when the family-wise test rejects.

    Notes
    -----
    The simultaneous intervals cover all :math:`k(k-1)/2` pairs, not only the
    comparisons with the baseline, so they are conservative for a
    many-to-one question; they are the intervals that match the family-wise
    p-values reported by the same procedure.
    """
    frame, name, family, cl, gen = _forest_differences_iv(
        scores, baseline, measure, marginal, simultaneous, confidence_level, n_resamples, rng)
    others = [s for s in frame.columns if s != baseline]
    base = frame[baseline].to_numpy(np.float64)
    diff, mlo, mhi = [], [], []
    for s in others:
        x = frame[s].to_numpy(np.float64)
        if marginal == "t":
            lo, hi = _t_interval(x - base, cl)
        else:
            from ..stats.significance import bootstrap_ci

            lo, hi = bootstrap_ci(x, base, method=marginal, confidence_level=cl,
                                  n_resamples=n_resamples, rng=gen).confidence_interval()
        diff.append(float(np.mean(x - base)))
        mlo.append(lo)
        mhi.append(hi)
    diff, mlo, mhi = map(np.asarray, (diff, mlo, mhi))
    if family is None and simultaneous != "none":
        from ..stats.multiple import randomized_tukey_hsd, westfall_young

        fn = randomized_tukey_hsd if simultaneous == "tukey" else westfall_young
        family = fn(frame, confidence_level=cl, n_resamples=n_resamples, rng=gen) \
            if fn is randomized_tukey_hsd else fn(frame, confidence_level=cl,
                                                  n_resamples=n_resamples,
                                                  ci="simultaneous", rng=gen)
    slo = shi = rej = None
    if family is not None:
        lookup = {}
        for a, b, lo, hi, r in zip(family.a, family.b, family.ci_low, family.ci_high,
                                   family.reject, strict=True):
            lookup[(a, b)] = (lo, hi, r)
            lookup[(b, a)] = (-hi, -lo, r)
        vals = np.array([lookup[(s, baseline)] for s in others], dtype=np.float64)
        slo, shi, rej = vals[:, 0], vals[:, 1], vals[:, 2].astype(bool)
    order = np.argsort(diff, kind="stable") if sort else np.arange(diff.size)[::-1]
    k = diff.size
    ax = _axes(ax, figsize=(8.0, min(10.0, max(2.0, 1.1 + 0.25 * k))))
    y = np.arange(k)
    s0, s1 = _style(0), _style(1)
    how = "paired t" if marginal == "t" else f"{'BCa' if marginal == 'bca' else marginal} " \
        "bootstrap"
    small = k > 30
    ax.hlines(y, mlo[order], mhi[order], color=s0["color"], linewidth=2.5 if small else 5,
              alpha=0.55, label=f"marginal {cl:.0%} CI ({how})", zorder=2)
    if family is not None:
        fam_name = {"tukey": "randomised Tukey HSD", "maxt": "Westfall-Young max-T",
                    "anova-hsd": "Tukey HSD"}[family.test]
        fcl = family.confidence_level
        ax.errorbar(diff[order], y, xerr=[diff[order] - slo[order], shi[order] - diff[order]],
                    fmt="none", ecolor="black", elinewidth=0.9, capsize=2 if small else 3.5,
                    label=f"simultaneous {fcl:.0%} CI ({fam_name})", zorder=3)
        filled = rej[order]
        ax.scatter(diff[order][filled], y[filled], marker="D", s=14 if small else 30,
                   color=s1["color"], edgecolor="black", linewidth=0.6, zorder=4,
                   label=f"significant, family-wise α = {family.alpha:g}")
        ax.scatter(diff[order][~filled], y[~filled], marker="D", s=14 if small else 30,
                   facecolor="white", edgecolor="black", linewidth=0.8, zorder=4,
                   label="not significant")
    else:
        ax.scatter(diff[order], y, marker="D", s=14 if small else 30, color="black", zorder=4,
                   label="mean difference")
    ax.axvline(0, color=_GREY, linestyle="--", linewidth=1, zorder=1)
    labels = np.asarray(others, dtype=object)
    ax.set_yticks(y, labels[order], fontsize=8 if not small else 5.5)
    ax.set_ylim(-0.7, k - 0.3)
    return _finish(ax, f"difference in {_mean_label(name)} (system − {baseline})", "system",
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
    if xlabel is None:
        xlabel = "test statistic" if kind == "null" else "resampled statistic"
    return _finish(ax, xlabel, "density", legend_loc="right")


# --------------------------------------------------------------------------
# 5. agreement between measures
# --------------------------------------------------------------------------
def _pick_measures(scores, names, param="scores"):
    if _is_evaluation(scores):
        return {m: scores.scores(m).astype(np.float64) for m in names}
    if isinstance(scores, Mapping):
        missing = [m for m in names if m not in scores]
        if missing:
            raise ValueError(f"`{param}` has no measure {missing}; have {list(scores)}")
        out = {}
        for m in names:
            v = scores[m]
            if not isinstance(v, pd.DataFrame):
                from ..io.trec import read_score_matrix

                v = read_score_matrix(v)
            out[m] = v
        return out
    raise TypeError(f"`{param}` must be an Evaluation or a mapping {{measure: DataFrame}}, "
                    f"got {type(scores).__name__}")


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
    from ..agreement.measures import ranking_agreement

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
    ax.set_title(f"Kendall's τ = {row['tau']:.3f}, τ_AP = {row['tau_ap']:.3f}\n"
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
        from ..agreement.measures import ranking_agreement

        table = ranking_agreement(agreement)
    from ..agreement.measures import agreement_matrix

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
    names = {"tau": "Kendall's τ", "tau_ap": "τ_AP", "tau_ap_symmetric": "symmetric τ_AP",
             "rho": "Spearman's ρ", "n_swaps": "swapped system pairs"}
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
def _power_curve_iv(sd, differences, n_queries, alpha, alternative, target, simulate,
                    n_simulations, n_resamples, rng):
    if isinstance(sd, numbers.Real) and not isinstance(sd, bool):
        sd = float(sd)
        if not (sd > 0 and math.isfinite(sd)):
            raise ValueError(f"`sd` must be positive, got {sd!r}")
    else:
        from ..stats.significance import residual_variance

        try:
            sd = math.sqrt(2.0 * residual_variance(sd))
        except (TypeError, ValueError) as exc:
            raise TypeError(f"`sd` must be a positive number or a pilot score matrix "
                            f"(rows = queries, columns = systems): {exc}") from None
    diffs = np.atleast_1d(np.asarray(differences, dtype=np.float64))
    if diffs.ndim != 1 or diffs.size == 0 or diffs.size > _MAX_SERIES or \
            np.any(diffs == 0) or not np.all(np.isfinite(diffs)):
        raise ValueError(f"`differences` must hold 1 to {_MAX_SERIES} non-zero differences, "
                         f"got {differences!r}")
    if n_queries is None:
        n = None          # chosen once the required sizes are known
    else:
        n = np.unique(np.asarray(n_queries, dtype=np.int64))
        if n.ndim != 1 or n.size < 2 or n.min() < 2:
            raise ValueError("`n_queries` must hold at least two query counts >= 2")
    if not 0 < target < 1:
        raise ValueError(f"`target` must be in (0, 1), got {target!r}")
    if simulate is not None:
        simulate = np.asarray(simulate, dtype=np.float64)
        if simulate.ndim != 1 or simulate.size < 2:
            raise ValueError("`simulate` must be 1-D pilot per-query differences")
    return sd, diffs, n, _rng(rng), simulate


def power_curve(sd, *, differences=(0.02, 0.05, 0.1), n_queries=None, alpha=0.05,
                alternative="two-sided", target=0.8, simulate=None, n_simulations=400,
                n_resamples=1000, rng=None, ax=None):
    """Power of the paired t-test against the number of queries, per true difference.

    Parameters
    ----------
    sd : float or DataFrame
        Standard deviation of per-query differences, or a pilot score matrix
        (rows = queries, columns = systems) from which it is estimated as
        :math:`\\sqrt{2 V_E}` (as :func:`mrrstats.topic_set_size` does).
    differences : sequence of float, keyword-only
        True differences in MRR (one curve each, at most 8).
    n_queries : array_like of int, optional, keyword-only
        Query counts on the x axis (default 5 to 200, extended up to 1000 so
        that the queries needed for ``target`` power are visible).
    alpha : float, keyword-only
    alternative : {"two-sided", "greater", "less"}, keyword-only
    target : float, keyword-only
        Target power: a dotted line, and the queries needed per difference
        (:func:`mrrstats.ttest_power`) marked on each curve and given in the legend.
    simulate : array_like, optional, keyword-only
        Pilot per-query differences: adds the simulated power of the paired
        randomization test (:func:`mrrstats.randomization_power`) at five
        query counts, with 2-SE error bars. Use ``sd`` equal to their
        standard deviation for the two to be comparable.
    n_simulations, n_resamples : int, keyword-only
        Of the simulation.
    rng : None, int or Generator, keyword-only
    ax : matplotlib Axes, optional, keyword-only

    Returns
    -------
    matplotlib.axes.Axes
    """
    sd, diffs, n, gen, simulate = _power_curve_iv(sd, differences, n_queries, alpha,
                                                  alternative, target, simulate,
                                                  n_simulations, n_resamples, rng)
    from ..stats.power import randomization_power, ttest_power

    needs = [ttest_power(difference=d, sd=sd, power=target, alpha=alpha,
                         alternative=alternative).n_queries_required for d in diffs]
    if n is None:     # 5 to 200 queries, extended (up to 1000) to show where power reaches target
        top = min(1000, max(200, int(math.ceil(1.15 * max(needs) / 50) * 50)))
        n = np.arange(5, top + 1) if top <= 400 else np.unique(np.linspace(5, top, 400)
                                                                 .astype(np.int64))
    ax = _axes(ax, figsize=(7.0, 3.4))
    for i, (d, need) in enumerate(zip(diffs, needs, strict=True)):
        st = _style(i)
        p = np.array([ttest_power(difference=d, sd=sd, n_queries=int(m), alpha=alpha,
                                  alternative=alternative).power for m in n])
        ax.plot(n, p, color=st["color"], linestyle=st["linestyle"],
                label=f"Δ = {d:g} (n ≥ {need:,})")
        if n.min() <= need <= n.max():
            ax.plot([need], [target], marker=st["marker"], color=st["color"], markersize=6,
                    linestyle="none")
        if simulate is not None:
            pts = np.unique(np.linspace(n.min(), n.max(), 5).astype(np.int64))
            res = [randomization_power(simulate, n_queries=int(m), difference=float(d),
                                       alpha=alpha, alternative=alternative,
                                       n_simulations=n_simulations, n_resamples=n_resamples,
                                       rng=gen) for m in pts]
            ax.errorbar(pts, np.array([r.power for r in res]),
                        yerr=np.array([2 * r.power_se for r in res]),
                        fmt=st["marker"], mfc="white", color=st["color"], capsize=2,
                        markersize=5, label="randomization test\n(simulated, ±2 SE)" if i == 0
                        else None)
    ax.axhline(target, color=_GREY, linestyle=":", linewidth=1)
    ax.axhline(alpha, color=_GREY, linestyle="-", linewidth=0.6)
    ax.set_ylim(-0.02, 1.02)       # power 0 (e.g. too few queries for an exact test) visible
    pad = 0.02 * (n.max() - n.min())
    ax.set_xlim(n.min() - pad, n.max() + pad)
    sided = "two-sided" if alternative == "two-sided" else "one-sided"
    return _finish(ax, "number of queries", f"power (P[p ≤ {alpha:g}], paired t, {sided})",
                   legend_loc="right",
                   title=f"true difference Δ\n(n for {target:.0%} power)\nσ_d = {sd:.3f}")


# --------------------------------------------------------------------------
# 7. observed against random
# --------------------------------------------------------------------------
def _observed_vs_random_iv(baseline, random, measure, confidence_level):
    cl = _confidence_level(confidence_level)
    if _is_evaluation(baseline):
        from ..baselines.random_ranking import expected_mrr, random_baseline_counts, variance_mrr
        from ..metrics.measures import parse_measure

        if random is None:
            raise ValueError("`random` ('retrieved' or 'judged') is required with an "
                             "Evaluation")
        m = parse_measure(measure)
        if m.name != "RR":
            raise ValueError(f"`measure` must be 'RR' or 'RR@k', got {measure!r}")
        counts = random_baseline_counts(baseline, random=random)
        rows = {}
        for run in baseline.runs:
            c = counts[counts["run"] == run]
            rr = baseline.values[run][str(m)]
            rr.index = rr.index.astype(str)
            N, R = c["n_candidates"].to_numpy(), c["n_relevant"].to_numpy()
            rows[run] = {"observed": float(rr.reindex(c["query"]).mean()),
                         "expected": expected_mrr(N, R, k=m.k),
                         "std": math.sqrt(variance_mrr(N, R, k=m.k))}
        table = pd.DataFrame.from_dict(rows, orient="index")
        name = str(m)
    elif isinstance(baseline, pd.DataFrame):
        if not {"observed", "expected"} <= set(baseline.columns):
            raise ValueError("`baseline` must have columns 'observed' and 'expected' (and "
                             "optionally 'std'), e.g. the output of evaluation_baseline")
        table = baseline
        name = str(baseline["measure"].iloc[0]) if "measure" in baseline.columns else measure
    else:
        raise TypeError(f"`baseline` must be a DataFrame or an Evaluation, got "
                        f"{type(baseline).__name__}")
    return table, name, cl


def observed_vs_random(baseline, *, random=None, measure="RR", confidence_level=0.95, ax=None):
    """Observed MRR against the MRR expected from a uniformly random ranking.

    Parameters
    ----------
    baseline : DataFrame or Evaluation
        A table with columns ``observed`` and ``expected`` (and optionally
        ``std``, the standard deviation of the random MRR), one row per
        system or data set (the index labels the rows; the output of
        :func:`mrrstats.evaluation_baseline` fits), or an Evaluation, for which
        it is computed with :func:`mrrstats.expected_mrr` and
        :func:`mrrstats.variance_mrr`.
    random : {"retrieved", "judged"}, optional, keyword-only
        The random model; required with an Evaluation.
    measure : str, keyword-only
        ``"RR"`` or ``"RR@k"`` (Evaluation only).
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
    from ..baselines.random_ranking import expected_rr

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
    from ..metrics.measures import parse_measures

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
    from ..metrics.kernels import score_rankings

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
