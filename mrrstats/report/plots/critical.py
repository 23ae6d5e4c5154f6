"""Many systems over many collections: the critical-difference diagram
(:func:`critical_difference_plot`) of :func:`mrrstats.critical_difference`.

It draws a result; it computes no test.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...errors import ParameterTypeError
from .style import GREY, finish, new_axes, series_style, short_names

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from ...stats.critical import CriticalDifferenceResult

__all__ = ["critical_difference_plot"]


def critical_difference_plot(result: CriticalDifferenceResult, *,
                             ax: Axes | None = None) -> Axes:
    """The critical-difference diagram (Demšar 2006): average ranks and the groups joined.

    Systems hang from an axis of average ranks (1 = best, on the left), the
    better half labelled on the left and the worse half on the right, each with
    its average rank. A thick bar joins each clique: a maximal group of systems,
    consecutive in average rank, with no pair significantly different under the
    result's test. Under ``test="nemenyi"`` a bar above the axis shows the
    critical difference.

    Parameters
    ----------
    result : CriticalDifferenceResult
        From :func:`mrrstats.critical_difference`.
    ax : matplotlib Axes, optional, keyword-only

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import mrrstats, mrrstats.plots as mp
    >>> ap = mrrstats.datasets.trec7_scores("AP")
    >>> blocks = ap.iloc[:, :8].groupby(ap.index.to_series().astype(int).sub(1) // 5).mean()
    >>> res = mrrstats.critical_difference(blocks)
    >>> ax = mp.critical_difference_plot(res)
    >>> ax.get_xlabel(), ax.get_title()[:15]
    ('average rank (1 = best)', '10 collections;')
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    missing = [
        a
        for a in ("average_ranks", "cliques", "critical_difference", "test")
        if not hasattr(result, a)
    ]
    if missing:
        raise ParameterTypeError(
            "critical_difference_plot() draws a computed result: pass "
            "the result of mrrstats.critical_difference() (missing "
            f"{missing})",
            name="result",
        )
    if ax is not None:
        from matplotlib.axes import Axes

        if not isinstance(ax, Axes):
            raise ParameterTypeError(
                f"`ax` must be a matplotlib Axes or None, got {type(ax).__name__}", name="ax"
            )
    ranks = result.average_ranks
    systems = list(ranks.index)
    labels = dict(zip(systems, short_names(systems), strict=True))
    k = len(systems)
    left = (k + 1) // 2
    rows = max(left, k - left)
    cliques = list(result.cliques)
    ax = new_axes(ax, figsize=(6.4, 1.2 + 0.28 * rows + 0.12 * len(cliques)))
    lo, hi = 1.0, float(k)
    color = series_style(0)["color"]
    # the rank axis
    ax.plot([lo, hi], [0, 0], color="black", linewidth=1.0)
    for t in range(1, k + 1):
        ax.plot([t, t], [0, 0.12], color="black", linewidth=0.8)
        ax.text(t, 0.18, str(t), ha="center", va="bottom", fontsize=8)
    # the critical difference (Nemenyi)
    if result.test == "nemenyi" and np.isfinite(result.critical_difference):
        cd = float(result.critical_difference)
        ax.plot([lo, lo + cd], [0.75, 0.75], color="black", linewidth=1.2)
        for x in (lo, lo + cd):
            ax.plot([x, x], [0.65, 0.85], color="black", linewidth=1.0)
        ax.text(lo + cd / 2, 0.9, f"CD = {cd:.2f}", ha="center", va="bottom", fontsize=8)
    # the cliques: thick bars just below the axis
    bar_y = [-0.25 - 0.18 * i for i in range(len(cliques))]
    for y, clique in zip(bar_y, cliques, strict=True):
        xs = [float(ranks[s]) for s in clique]
        ax.plot(
            [min(xs) - 0.03, max(xs) + 0.03],
            [y, y],
            color=color,
            linewidth=3.0,
            solid_capstyle="round",
        )
    top = (bar_y[-1] if bar_y else -0.1) - 0.3
    # the systems: a drop line and an elbow to the label
    for i, s in enumerate(systems):
        x = float(ranks[s])
        if i < left:
            y = top - 0.32 * i
            end, ha, text = lo - 0.3, "right", f"{labels[s]} ({x:.2f})"
        else:
            y = top - 0.32 * (k - 1 - i)
            end, ha, text = hi + 0.3, "left", f"({x:.2f}) {labels[s]}"
        ax.plot([x, x, end], [0, y, y], color=GREY, linewidth=0.9)
        ax.plot([x], [0], marker="o", markersize=3, color="black")
        ax.text(end + (-0.05 if ha == "right" else 0.05), y, text, ha=ha, va="center", fontsize=8)
    ax.set_xlim(lo - 0.3 - 0.25 * k, hi + 0.3 + 0.25 * k)
    ax.set_ylim(top - 0.32 * rows, 1.3)
    ax.set_yticks([])
    ax.set_xticks([])
    for side in ("left", "bottom"):
        ax.spines[side].set_visible(False)
    n = len(result.ranks) if hasattr(result, "ranks") else "N"
    ax.set_title(
        f"{n} collections; bars join systems not significantly different "
        f"({result.test}, alpha = {result.alpha:g})",
        fontsize=8.5,
    )
    return finish(ax, "average rank (1 = best)", "", legend=False)
