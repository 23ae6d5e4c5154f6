"""Beyond one run and one collection: seeds, collections, posteriors, test calibration.

* :func:`replicate_runs` -- each system's run means (one per seed or fold) and
  grand mean, with the pairs' intervals from :func:`mrrstats.replicate_tests`;
* :func:`forest_collections` -- the forest plot of :func:`mrrstats.across_collections`;
* :func:`posterior_plot` -- the posterior of :func:`mrrstats.bayesian_comparison`;
* :func:`calibration_plot` -- type I error and power of each test from
  :func:`mrrstats.calibrate_tests`.

They draw results; none computes a test.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...errors import ParameterError, ParameterTypeError
from .style import GREY, LIGHT, finish, fit_title, new_axes, series_style, short_names, wrap

if TYPE_CHECKING:
    from typing import Literal

    from matplotlib.axes import Axes

    from ...stats.bayes import BayesianComparison
    from ...stats.meta import AcrossCollectionsResult
    from ...stats.replicates import ReplicateComparison
    from ...stats.simulation import CalibrationResult

__all__ = ["replicate_runs", "forest_collections", "posterior_plot", "calibration_plot"]


def _need(obj, attrs, what):
    missing = [a for a in attrs if not hasattr(obj, a)]
    if missing:
        raise ParameterTypeError(
            f"{what} draws a computed result: pass the result of the function "
            f"named in its docstring (missing {missing})")


def replicate_runs(result: ReplicateComparison, *, ax: Axes | None = None) -> Axes:
    """Each system's run means (dots) and grand mean (bar), and the seed spread in the title.

    Parameters
    ----------
    result : ReplicateComparison
        From :func:`mrrstats.replicate_tests` (or ``compare(..., replicates=...)``).
    ax : matplotlib Axes, optional, keyword-only

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import mrrstats, mrrstats.plots as mp
    >>> sim = mrrstats.simulate_replicates(mrrstats.datasets.trec7_scores("RR")[["run1", "run2"]],
    ...                                    n_replicates=4, rng=0)
    >>> res = mrrstats.replicate_tests(sim, sim.attrs["replicates"], method="t")
    >>> mp.replicate_runs(res).get_ylabel()
    'mean RR of each run (dots) and\\nover runs (bar)'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    _need(result, ("run_means", "systems", "share_replicates"), "replicate_runs()")
    systems = list(result.systems)
    ax = new_axes(ax, figsize=(max(4.5, 1.5 + 0.8 * len(systems)), 3.6))
    gen = np.random.default_rng(0)  # fixed jitter: the figure is the same every time
    for i, s in enumerate(systems):
        st = series_style(i)
        m = np.asarray(result.run_means[s], dtype=float)
        x = i + gen.uniform(-0.12, 0.12, m.size)
        ax.plot(x, m, linestyle="none", marker=st["marker"], color=st["color"], alpha=0.8,
                markersize=5)
        ax.hlines(m.mean(), i - 0.3, i + 0.3, color=st["color"], linewidth=2)
    ax.set_xticks(range(len(systems)))
    ax.set_xticklabels(short_names(systems))
    share = np.asarray(result.share_replicates, dtype=float)
    fit_title(ax, f"{result.n_queries} queries; seeds hold {share.min():.0%}"
              + (f"-{share.max():.0%}" if share.size > 1 and share.max() > share.min()
                 else "") + " of the variance of a difference", fontsize=9)
    ax = finish(ax, "system", f"mean {result.measure} of each run (dots) and over runs "
                "(bar)", legend=False)
    ax.yaxis.label.set_text(wrap(ax.get_ylabel(), 30))  # two lines: fits the figure's height
    return ax


def forest_collections(result: AcrossCollectionsResult, *, method: Literal["DL", "PM"] = "DL",
                       ax: Axes | None = None) -> Axes:
    """Forest plot: each collection's effect and interval, and the pooled random effect.

    Parameters
    ----------
    result : AcrossCollectionsResult
        From :func:`mrrstats.across_collections`.
    method : {"DL", "PM"}, keyword-only
        Which between-collection variance the pooled diamond uses.
    ax : matplotlib Axes, optional, keyword-only

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import mrrstats, mrrstats.plots as mp
    >>> rr = mrrstats.datasets.trec7_scores("RR")
    >>> res = mrrstats.across_collections({f"topics {i * 10 + 1}-{i * 10 + 10}":
    ...                                    rr.iloc[10 * i:10 * i + 10][["run47", "run15"]]
    ...                                    for i in range(5)})
    >>> mp.forest_collections(res).get_xlabel()
    'd_z (A - B), 95% interval'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    _need(result, ("collections", "meta", "k_hat"), "forest_collections()")
    if method not in result.meta.index:
        raise ParameterError(f"`method` must be one of {list(result.meta.index)}, got {method!r}")
    c = result.collections
    k = len(c)
    ax = new_axes(ax, figsize=(6.0, 1.4 + 0.35 * (k + 2)))
    y = np.arange(k)[::-1] + 2.0
    w = 1.0 / c["variance"].to_numpy(dtype=float)
    size = 4 + 8 * np.sqrt(w / w.max())
    for yi, (_, r), s in zip(y, c.iterrows(), size, strict=True):
        color = series_style(0)["color"] if r["replicated"] else GREY
        ax.plot([r["ci_low"], r["ci_high"]], [yi, yi], color=color, linewidth=1.2)
        ax.plot([r["effect"]], [yi], marker="s", markersize=s, color=color, linestyle="none")
    row = result.meta.loc[method]
    est, lo, hi = row["estimate"], row["ci_low"], row["ci_high"]
    ax.fill([lo, est, hi, est], [0.8, 1.1, 0.8, 0.5], color=series_style(1)["color"])
    if np.isfinite(row["pi_low"]):
        ax.plot([row["pi_low"], row["pi_high"]], [0.8, 0.8], color=series_style(1)["color"],
                linewidth=0.8, linestyle=":")
    ax.axvline(0, color=GREY, linewidth=0.8)
    ax.set_yticks(list(y) + [0.8])
    ax.set_yticklabels(list(c.index) + [f"random effects ({method})"])
    fit_title(ax, f"tau^2 = {row['tau2']:.3g}, I^2 = {100 * row['i2']:.0f}%; better on at "
              f"least {result.k_hat['bonferroni']} of {k} (Bonferroni), "
              f"{result.k_hat['fisher']} (Fisher); replicated ones in colour", fontsize=8.5)
    label = "d_z" if result.effect == "d_z" else "mean difference"
    return finish(ax, f"{label} (A - B), {result.confidence_level:.0%} interval", "",
                  legend=False)


def posterior_plot(result: BayesianComparison, *, ax: Axes | None = None) -> Axes:
    """The posterior of the mean difference, its credible interval and the ROPE.

    Parameters
    ----------
    result : BayesianComparison
        From :func:`mrrstats.bayesian_comparison` (``"t"`` or ``"bootstrap"``).
    ax : matplotlib Axes, optional, keyword-only

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import mrrstats, mrrstats.plots as mp
    >>> rr = mrrstats.datasets.trec7_scores("RR")
    >>> res = mrrstats.bayesian_comparison(rr["run47"], rr["run15"], rope=0.01)
    >>> mp.posterior_plot(res).get_xlabel()
    'mean difference a - b'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    from scipy import stats

    _need(result, ("method", "p_a_better", "ci_low"), "posterior_plot()")
    if result.method not in ("t", "bootstrap"):
        raise ParameterError("posterior_plot() draws a t or Bayesian-bootstrap posterior")
    ax = new_axes(ax, figsize=(5.0, 3.0))
    st = series_style(0)
    if result.method == "t":
        span = 5 * result.scale
        x = np.linspace(result.difference - span, result.difference + span, 400)
        dens = stats.t.pdf(x, result.df, loc=result.difference, scale=result.scale)
        ax.plot(x, dens, color=st["color"], label="posterior (t)")
    else:
        ax.hist(result.posterior, bins=60, density=True, color=st["color"], alpha=0.6,
                label="posterior (Bayesian bootstrap)")
    if result.rope is not None:
        ax.axvspan(-result.rope, result.rope, color=LIGHT, label=f"ROPE ±{result.rope:g}")
    ax.axvline(0, color=GREY, linewidth=0.8)
    ax.axvline(result.ci_low, color=st["color"], linestyle="--", linewidth=0.8,
               label=f"{result.confidence_level:.0%} credible interval")
    ax.axvline(result.ci_high, color=st["color"], linestyle="--", linewidth=0.8)
    title = f"P(a better) = {result.p_a_better:.3f}"
    if result.rope is not None:
        title += (f"; P(practically better) = {result.p_a_practically_better:.3f}, "
                  f"P(equivalent) = {result.p_rope:.3f}")
    fit_title(ax, title, fontsize=8.5)
    return finish(ax, "mean difference a - b", "posterior density", legend_loc="right")


def calibration_plot(result: CalibrationResult, *, correction: str | None = None,
                     ax: Axes | None = None) -> Axes:
    """Type I error of each test (±2 Monte-Carlo SE) against alpha, and its power.

    Parameters
    ----------
    result : CalibrationResult
        From :func:`mrrstats.calibrate_tests`.
    correction : str, optional, keyword-only
        Which correction's rows (default: the first in the table).
    ax : matplotlib Axes, optional, keyword-only

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import mrrstats, mrrstats.plots as mp
    >>> rr = mrrstats.datasets.trec7_scores("RR")[["run8", "run9"]]
    >>> cal = mrrstats.calibrate_tests(rr, tests=["t", "sign"], n_simulations=50, rng=0)
    >>> mp.calibration_plot(cal).get_ylabel()
    'rejection rate (alpha = 0.05)'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    _need(result, ("table", "alpha", "differences"), "calibration_plot()")
    t = result.table
    corr = t["correction"].iloc[0] if correction is None else correction
    sub = t[t["correction"] == corr]
    if sub.empty:
        raise ParameterError(
            f"no rows for correction {corr!r}; have {sorted(set(t['correction']))}")
    tests = list(sub["test"])
    # the legend sits right of the axes (it hides no bar): the figure is wide enough
    # for both, and for the tick labels of the tests
    ax = new_axes(ax, figsize=(max(6.0, 3.4 + 1.0 * len(tests)), 3.4))
    x = np.arange(len(tests), dtype=float)
    width = 0.8 / (1 + len(result.differences))
    st = series_style(0)
    ax.errorbar(x - 0.4 + width / 2, sub["type_I_error"], yerr=2 * sub["type_I_error_se"],
                fmt=st["marker"], color=st["color"], capsize=2, linestyle="none",
                label="type I error (±2 SE)")
    for j, d in enumerate(result.differences):
        sj = series_style(j + 1)
        ax.bar(x - 0.4 + width * (j + 1.5), sub[f"power_{d:g}"], width=width * 0.9,
               color=sj["color"], alpha=0.5, hatch=sj["hatch"], label=f"power at Δ = {d:g}")
    ax.axhline(result.alpha, color=GREY, linestyle="--", linewidth=0.8)
    ax.set_xticks(x)
    ax.set_xticklabels([f"{s}*" if s == result.recommended_test else s for s in tests],
                       rotation=20)
    fit_title(ax, f"{result.n_queries} topics, {result.n_simulations} simulated collections; "
              f"correction {corr}; *\u00a0recommended", fontsize=8.5)
    return finish(ax, "test", f"rejection rate (alpha = {result.alpha:g})", legend_loc="right")
