"""Power against the number of queries, as computed (:func:`power_curve`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ...errors import ParameterError, ParameterTypeError
from .style import GREY, MAX_SERIES, finish, new_axes, series_style

if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from matplotlib.axes import Axes

__all__ = ["power_curve"]


def _power_curve_iv(curves, simulated, target):
    need = {"difference", "n_queries", "power"}
    if not isinstance(curves, pd.DataFrame) or not need <= set(curves.columns):
        raise ParameterTypeError(
            "power_curve() draws computed power: `curves` must be a DataFrame "
            "with columns difference, n_queries, power (e.g. "
            "mrrstats.report.power_table(sd, differences=...)), got "
            f"{type(curves).__name__}")
    diffs = list(dict.fromkeys(curves["difference"].tolist()))
    if not 1 <= len(diffs) <= MAX_SERIES:
        raise ParameterError(f"`curves` must hold 1 to {MAX_SERIES} differences")
    if simulated is not None and (not isinstance(simulated, pd.DataFrame) or
                                  not need <= set(simulated.columns)):
        raise ParameterTypeError(
            "`simulated` must be a DataFrame with columns difference, n_queries, "
            "power (and power_se)")
    if target is not None and not 0 < target < 1:
        raise ParameterError(f"`target` must be in (0, 1), got {target!r}")
    return diffs


def power_curve(curves: pd.DataFrame, *, simulated: pd.DataFrame | None = None,
                target: float | None = None, series: Mapping[str, Any] | None = None,
                ax: Axes | None = None, **removed: object) -> Axes:
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
        raise ParameterTypeError(
            f"power_curve() no longer computes power ({sorted(removed)}): pass "
            "the table of mrrstats.report.power_table(...)")
    diffs = _power_curve_iv(curves, simulated, target)
    at = curves.attrs
    target = at.get("target") if target is None else target
    alpha = at.get("alpha")
    ax = new_axes(ax, figsize=(7.0, 3.4))
    n_all = curves["n_queries"].to_numpy(np.float64)
    for i, d in enumerate(diffs):
        st = series_style(i if series is None else int(series[d]))
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
        ax.axhline(target, color=GREY, linestyle=":", linewidth=1)
    if alpha is not None:
        ax.axhline(alpha, color=GREY, linestyle="-", linewidth=0.6)
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
    return finish(ax, "number of queries", ylab, legend_loc="right", title=title)
