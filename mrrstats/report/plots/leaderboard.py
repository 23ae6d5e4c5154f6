"""Leaderboards with honest ranks: each system's rank and simultaneous rank interval
(:func:`rank_intervals_plot`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ...errors import ParameterError
from .style import finish, new_axes, series_style, short_names

if TYPE_CHECKING:
    from collections.abc import Sequence

    from matplotlib.axes import Axes

__all__ = ["rank_intervals_plot"]


def rank_intervals_plot(leaderboard: pd.DataFrame, *, measures: Sequence[str] | None = None,
                        systems: Sequence[str] | None = None, ax: Axes | None = None) -> Axes:
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
        raise ParameterError(f"`leaderboard` needs the columns {sorted(need)}")
    if measures is None:
        measures = list(dict.fromkeys(frame["measure"]))
    first = frame[frame["measure"] == measures[0]].sort_values(["rank", "rank_low"],
                                                               kind="stable")
    if systems is None:
        systems = list(first["system"])
    else:
        systems = [s for s in first["system"] if s in set(systems)]
    k, nm = len(systems), len(measures)
    ax = new_axes(ax, figsize=(5.0, min(9.0, 0.9 + 0.3 * k)))
    offsets = np.linspace(0.22, -0.22, nm) if nm > 1 else np.zeros(1)
    base = np.arange(k)[::-1].astype(float)
    for j, m in enumerate(measures):
        sub = frame[frame["measure"] == m].set_index("system").loc[systems]
        st = series_style(j)
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
    return finish(ax, "rank (1 = best): observed and simultaneous interval", "system",
                   legend=nm > 1, legend_loc="right")
