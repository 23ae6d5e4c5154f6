"""Distributions: per-query RR, the first relevant rank, and a null or bootstrap distribution.

* :func:`rr_histogram` -- per-query RR per system, with the RR distribution of
  a random ranking;
* :func:`rank_ecdf` -- ECDF of the first-relevant rank (log axis), with the
  random CDF;
* :func:`null_distribution` -- null or bootstrap distribution of a statistic
  and the observed value.
"""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING

import numpy as np

from ...baselines.random_ranking import FirstRelevantRank, expected_mrr, random_baseline_counts
from ...errors import ParameterError
from ...metrics.measures import higher_is_better, mean_label, parse_measure
from ...validation import alternative_iv
from .inputs import is_evaluation, score_frame, select_systems
from .style import (
    GREY,
    LIGHT,
    PALETTE,
    finish,
    interval_name,
    new_axes,
    plain_log_ticks,
    series_style,
)

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Literal

    from matplotlib.axes import Axes
    from numpy.typing import ArrayLike

    from ..._typing import Alternative, Scores

__all__ = ["rr_histogram", "rank_ecdf", "null_distribution"]


def _random_counts(frame, systems, scores, random, n_candidates, n_relevant, k):
    """(N, R) arrays of the random model, or None when no model was asked for."""
    if random is not None:
        if not is_evaluation(scores):
            raise ParameterError("`random` needs an Evaluation as `scores`; for score matrices "
                             "give `n_candidates` (and `n_relevant`) instead")
        if n_candidates is not None:
            raise ParameterError("give either `random` or `n_candidates`, not both")

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


def _rr_histogram_iv(scores, systems, measure, n_candidates, n_relevant, k, random, bins):
    frame, name = score_frame(scores, measure)
    cols = select_systems(frame, systems)
    if isinstance(bins, numbers.Integral) and not isinstance(bins, bool):
        if bins < 2:
            raise ParameterError(f"`bins` must be at least 2, got {bins}")
        edges = np.linspace(0.0, 1.0, int(bins) + 1)
    else:
        edges = np.asarray(bins, dtype=np.float64)
        if edges.ndim != 1 or edges.size < 3 or np.any(np.diff(edges) <= 0) or \
                edges[0] != 0 or edges[-1] < 1:
            raise ParameterError("`bins` must be an int or increasing edges from 0 to >= 1")
    if k is None and is_evaluation(scores):
        k = parse_measure(name).k
    counts = _random_counts(frame, cols, scores, random, n_candidates, n_relevant, k)
    return frame, name, cols, edges, k, counts


def rr_histogram(scores: Scores, *, systems: Sequence[str] | None = None, measure: str = "RR",
                 n_candidates: ArrayLike | None = None, n_relevant: ArrayLike = 1,
                 k: int | None = None, random: Literal["retrieved", "judged"] | None = None,
                 bins: int | ArrayLike = 20, ax: Axes | None = None) -> Axes:
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
    ax = new_axes(ax, figsize=(7.5, 3.4))
    if counts is not None:
        N, R = counts
        mass = _random_rr_mass(N, R, k, edges)
        ax.bar(edges[:-1], mass, width=np.diff(edges), align="edge", color=LIGHT,
               edgecolor=GREY, linewidth=0.5, hatch="///", zorder=1,
               label="uniformly random ranking (expected share)")
        e = expected_mrr(N, R, k=k)
        ax.axvline(e, color=GREY, linestyle=":", linewidth=1.5, zorder=2,
                   label=f"random ranking: E[{mean_label(name)}] = {e:.3f}")
    for i, s in enumerate(cols):
        x = frame[s].to_numpy()
        x = x[~np.isnan(x)]
        st = series_style(i)
        ax.hist(x, bins=edges, weights=np.full(x.size, 1.0 / max(x.size, 1)),
                histtype="step", color=st["color"], linestyle=st["linestyle"], linewidth=1.6,
                zorder=3, label=f"{s} ({mean_label(name)} = {x.mean():.3f})")
        ax.axvline(x.mean(), color=st["color"], linestyle=st["linestyle"], linewidth=1.0,
                   zorder=3)
    ax.set_xlim(0, 1)
    ax.set_ylim(bottom=0)
    sizes = sorted({int(frame[s].notna().sum()) for s in cols})
    n_text = f"n = {sizes[0]}" if len(sizes) == 1 else f"n = {sizes[0]}-{sizes[-1]}"
    return finish(ax, f"{name} of the query (1 / rank of the first relevant document)",
                   f"share of queries ({n_text})", legend_loc="right")


def _rank_ecdf_iv(scores, systems, measure, n_candidates, n_relevant, random):
    if measure is None and is_evaluation(scores):
        measure = "Rank" if "Rank" in scores.measure_names else "RR"
    frame, name = score_frame(scores, measure)
    cols = select_systems(frame, systems)
    values = frame[cols].to_numpy(np.float64)
    m = name.split("(")[0].split("@")[0]
    # ranks (lower is better, by the measure spec) or, for unnamed frames, values above 1
    if not higher_is_better(name) or (m not in ("RR",) and np.nanmax(values) > 1):
        ranks = values
        if np.any(ranks[~np.isnan(ranks)] < 1):
            raise ParameterError("`scores`: ranks must be >= 1 (inf when none is retrieved)")
    else:
        if np.any((values < 0) | (values > 1)):
            raise ParameterError("`scores`: RR values must lie in [0, 1]")
        with np.errstate(divide="ignore"):
            ranks = np.where(values > 0, np.round(1.0 / values), np.inf)
    counts = _random_counts(frame, cols, scores, random, n_candidates, n_relevant, None)
    return cols, ranks, counts


def rank_ecdf(scores: Scores, *, systems: Sequence[str] | None = None, measure: str | None = None,
              n_candidates: ArrayLike | None = None, n_relevant: ArrayLike = 1,
              random: Literal["retrieved", "judged"] | None = None,
              ax: Axes | None = None) -> Axes:
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
    ax = new_axes(ax, figsize=(7.5, 3.4))
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
        st = series_style(i)
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
        ax.step(grid, cdf, where="post", color=GREY, linestyle="--", linewidth=1.5, zorder=2,
                label="uniformly random ranking")
    ax.set_xscale("log")
    ax.set_xlim(0.9, right * 1.1)
    plain_log_ticks(ax.xaxis)
    ax.set_ylim(0, 1.02)
    return finish(ax, "rank of the first relevant document (log scale)",
                   "share of queries with rank ≤ x", legend_loc="right")


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
        raise ParameterError(
            "`distribution` must be a 1-D array of at least 2 finite values (or a "
            "BootstrapCIResult)")
    if not isinstance(kind, str) or kind not in ("null", "bootstrap"):
        raise ParameterError(f"`kind` must be 'null' or 'bootstrap', got {kind!r}")
    alternative_iv(alternative)
    if observed is not None:
        observed = float(observed)
    if interval is not None:
        what = "interval"
        if hasattr(interval, "confidence_level"):
            how = interval_name(getattr(interval, "method", None))
            what = f"{interval.confidence_level:.0%} {how} interval".replace("  ", " ")
        lo, hi = interval
        interval = (float(lo), float(hi), what)
    if isinstance(bins, bool) or not isinstance(bins, numbers.Integral) or bins < 2:
        raise ParameterError(f"`bins` must be an integer >= 2, got {bins!r}")
    return dist, observed, kind, alternative, pvalue, interval


def null_distribution(distribution: ArrayLike, observed: float | None = None, *,
                      kind: Literal["null", "bootstrap"] | None = None,
                      alternative: Alternative = "two-sided", pvalue: float | None = None,
                      interval: tuple[float, float] | None = None, xlabel: str | None = None,
                      bins: int = 50, ax: Axes | None = None) -> Axes:
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
    ax = new_axes(ax, figsize=(7.0, 3.4))
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
           color=LIGHT, edgecolor=GREY, linewidth=0.4, label=label)
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
    return finish(ax, xlabel, "density", legend_loc="right")
