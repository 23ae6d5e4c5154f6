"""Reproducibility of a published run (Breuer et al. 2020): :func:`er_delta_ri_plot` and
:func:`rmse_by_cutoff` draw a :func:`mrrstats.reproducibility` result; they compute no test.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from ...errors import ParameterError, ParameterTypeError
from .style import GREY, LIGHT, finish, new_axes, series_style

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from ...stats.reproducibility import ReproducibilityResult

__all__ = ["er_delta_ri_plot", "rmse_by_cutoff"]


def _need(result, attrs, what):
    missing = [a for a in attrs if not hasattr(result, a)]
    if missing:
        raise ParameterTypeError(
            f"{what} draws a computed result: pass the result of "
            f"mrrstats.reproducibility() (missing {missing})",
            name="result",
        )


def _axes_iv(ax):
    if ax is not None:
        from matplotlib.axes import Axes

        if not isinstance(ax, Axes):
            raise ParameterTypeError(
                f"`ax` must be a matplotlib Axes or None, got {type(ax).__name__}", name="ax"
            )


def er_delta_ri_plot(result: ReproducibilityResult, *, ax: Axes | None = None) -> Axes:
    """Effect ratio (x) against delta relative improvement (y), one point per measure.

    The ideal reproduction sits at ER = 1, DeltaRI = 0 (the crossing of the grey
    lines). Right of ER = 1 the reproduced improvement is larger than the
    original one; below DeltaRI = 0 its relative improvement is larger (Breuer et
    al. 2020, Fig. 2). With bootstrap intervals (``n_resamples > 0``) each point
    carries its ER and DeltaRI percentile intervals.

    Parameters
    ----------
    result : ReproducibilityResult
        From :func:`mrrstats.reproducibility`.
    ax : matplotlib Axes, optional, keyword-only

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import mrrstats, mrrstats.plots as mp
    >>> d = mrrstats.datasets.cast2021()
    >>> res = mrrstats.reproducibility(d.qrels, {"baseline": d.runs[0], "advanced": d.runs[1]},
    ...                                {"baseline": d.runs[2], "advanced": d.runs[3]},
    ...                                measures=["AP", "nDCG@10"], n_resamples=200, rng=0)
    >>> mp.er_delta_ri_plot(res).get_xlabel()
    'effect ratio ER (reproduced / original mean improvement)'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    _need(result, ("er", "delta_ri", "intervals", "measures"), "er_delta_ri_plot()")
    _axes_iv(ax)
    ax = new_axes(ax, figsize=(5.0, 3.8))
    ax.axvline(1.0, color=GREY, linewidth=0.8)
    ax.axhline(0.0, color=GREY, linewidth=0.8)
    for i, m in enumerate(result.measures):
        st = series_style(i)
        x, y = float(result.er[m]), float(result.delta_ri[m])
        if result.intervals is not None:
            r = result.intervals.loc[m]
            ax.plot([r["er_low"], r["er_high"]], [y, y], color=st["color"], linewidth=1.0)
            ax.plot(
                [x, x], [r["delta_ri_low"], r["delta_ri_high"]], color=st["color"], linewidth=1.0
            )
        ax.plot(
            [x],
            [y],
            marker=st["marker"],
            color=st["color"],
            linestyle="none",
            markersize=6,
            label=str(m),
        )
    ax.plot(
        [1.0],
        [0.0],
        marker="*",
        color=LIGHT,
        markeredgecolor=GREY,
        markersize=11,
        linestyle="none",
        label="perfect reproduction",
    )
    level = (
        "" if result.intervals is None else f", {result.confidence_level:.0%} bootstrap intervals"
    )
    n_o, n_r = result.n_queries["original"], result.n_queries["reproduced"]
    topics = (
        f"{n_o} topics"
        if n_o == n_r and result.kind == "reproducibility"
        else f"{n_o} and {n_r} topics"
    )
    ax.set_title(f"{result.kind}, {topics}{level}", fontsize=8.5)
    return finish(
        ax,
        "effect ratio ER (reproduced / original mean improvement)",
        "delta relative improvement DeltaRI",
        fontsize=7,
    )


def rmse_by_cutoff(result: ReproducibilityResult, *, measure: str = "P",
                   ax: Axes | None = None) -> Axes:
    """RMSE of each run's reproduced per-topic scores against the cut-off of one measure.

    Parameters
    ----------
    result : ReproducibilityResult
        From :func:`mrrstats.reproducibility` (reproducibility: RMSE needs the same
        topics) with the measure at several cut-offs (``["P@5", "P@10", "P@20", ...]``).
    measure : str, keyword-only
        The measure's name without its cut-off (``"P"``, ``"nDCG"``, ``"AP"``).
    ax : matplotlib Axes, optional, keyword-only

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import mrrstats, mrrstats.plots as mp
    >>> d = mrrstats.datasets.cast2021()
    >>> res = mrrstats.reproducibility(d.qrels, {"baseline": d.runs[0], "advanced": d.runs[1]},
    ...                                {"baseline": d.runs[2], "advanced": d.runs[3]},
    ...                                measures=["P@5", "P@10", "P@20"], n_resamples=None)
    >>> mp.rmse_by_cutoff(res, measure="P").get_xlabel()
    'cut-off k of P@k (log scale)'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    _need(result, ("rmse", "measures"), "rmse_by_cutoff()")
    _axes_iv(ax)
    if result.rmse is None:
        raise ParameterError(
            "rmse_by_cutoff() needs a reproducibility result: RMSE is not "
            "defined for replicability (other topics)",
            name="result",
        )
    if not isinstance(measure, str):
        raise ParameterTypeError(
            f"`measure` must be a measure name, got {measure!r}", name="measure"
        )
    cut = {}
    for m in result.measures:
        hit = re.fullmatch(rf"{re.escape(measure)}@(\d+)", str(m))
        if hit:
            cut[int(hit.group(1))] = str(m)
    if len(cut) < 2:
        raise ParameterError(
            f"`measure` {measure!r}: the result has {len(cut)} cut-off(s) of "
            f"it (measures {list(map(str, result.measures))}); compute it at "
            "two or more",
            name="measure",
        )
    ks = sorted(cut)
    ax = new_axes(ax, figsize=(5.0, 3.4))
    for i, run in enumerate(result.rmse.index):
        st = series_style(i)
        ax.plot(
            ks,
            [result.rmse.loc[run, cut[k]] for k in ks],
            marker=st["marker"],
            linestyle=st["linestyle"],
            color=st["color"],
            label=str(run),
        )
    ax.set_xscale("log")
    ax.set_xticks(ks, [str(k) for k in ks])
    ax.minorticks_off()
    ax.set_ylim(bottom=0.0, top=max(1e-9, float(np.nanmax(result.rmse.to_numpy()))) * 1.1)
    return finish(
        ax, f"cut-off k of {measure}@k (log scale)", "RMSE of the reproduced per-topic scores"
    )
