r"""Plots for judge-labelled and incompletely judged evaluations.

* :func:`judge_intervals` -- per system, the PPI estimate of the human-label mean
  with its interval, beside the human-only and the judge-only intervals
  (:func:`mrrstats.ppi_evaluate`'s ``systems`` frame).
* :func:`bound_bars` -- per system, trec_eval's value and the bar from the lower
  to the upper value that unjudged documents allow
  (:func:`mrrstats.judgment_bounds`'s ``systems`` frame).

Like every plot of the package they draw results (nothing is computed here),
take ``ax=None`` and return the Axes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ...errors import ParameterError
from ...metrics.measures import mean_label
from .style import PALETTE, short_names, style_context

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["judge_intervals", "bound_bars"]

_METHODS = (("ppi", "PPI (judge + people)", "o"), ("human", "people only", "s"),
            ("judge", "judge only", "^"))


def _new_axes(ax, k):
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    with style_context():
        _, ax = plt.subplots(figsize=(5.6, min(9.0, 1.1 + 0.42 * k)), layout="constrained")
    return ax


def _one_measure(frame, measure, need, name):
    frame = pd.DataFrame(frame)
    if not need <= set(frame.columns):
        raise ParameterError(f"`{name}` needs the columns {sorted(need)}")
    measure = frame["measure"].iloc[0] if measure is None else str(measure)
    sub = frame[frame["measure"] == measure]
    if sub.empty:
        raise ParameterError(f"`measure` {measure!r} is not in `{name}`")
    return sub, measure


def judge_intervals(systems: pd.DataFrame, *, measure: str | None = None,
                    ax: Axes | None = None) -> Axes:
    """Human-label means per system: PPI, people only and judge only, with intervals.

    Parameters
    ----------
    systems : DataFrame
        Columns ``system, measure, method, estimate, ci_low, ci_high``
        (:attr:`mrrstats.PPIResult.systems`, or the report's ``results/judge.csv``).
    measure : str, optional, keyword-only
        Default: the first measure of the frame.
    ax : matplotlib Axes, optional, keyword-only

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import pandas as pd, mrrstats.plots as mp
    >>> f = pd.DataFrame({"system": ["a", "a", "a"], "measure": "RR",
    ...                   "method": ["ppi", "human", "judge"], "estimate": [0.5, 0.52, 0.6],
    ...                   "ci_low": [0.45, 0.4, 0.55], "ci_high": [0.55, 0.64, 0.65]})
    >>> mp.judge_intervals(f).get_xlabel()
    "MRR and interval (judge only: under the judge's labels)"
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    sub, measure = _one_measure(systems, measure, {"system", "measure", "method", "estimate",
                                                   "ci_low", "ci_high"}, "systems")
    ppi = sub[sub["method"] == "ppi"].sort_values("estimate", kind="stable")
    names = list(ppi["system"]) or list(dict.fromkeys(sub["system"]))
    k = len(names)
    ax = _new_axes(ax, k)
    base = np.arange(k, dtype=float)
    for j, (method, label, marker) in enumerate(_METHODS):
        rows = sub[sub["method"] == method].set_index("system").reindex(names)
        if rows["estimate"].isna().all():
            continue
        y = base + (0.22 - 0.22 * j)
        colour = PALETTE[j]
        ax.hlines(y, rows["ci_low"], rows["ci_high"], color=colour, linewidth=2.0,
                  linestyle=("-", "--", ":")[j])
        ax.plot(rows["estimate"], y, marker, color=colour, markersize=5, label=label,
                linestyle="none")
    ax.set_yticks(base, short_names(names), fontsize=8)
    ax.set_ylim(-0.6, k - 0.4)
    ax.set_xlabel(f"{mean_label(measure)} and interval (judge only: under the judge's labels)")
    ax.set_ylabel("system")
    ax.legend(fontsize=7, loc="best", frameon=False)
    return ax


def bound_bars(systems: pd.DataFrame, *, measure: str | None = None,
               ax: Axes | None = None) -> Axes:
    """Per system, the value with unjudged documents non-relevant and the range they allow.

    Parameters
    ----------
    systems : DataFrame
        Columns ``run, measure, value, lower, upper`` (and optionally
        ``guaranteed``, ``pooling_bias``): :attr:`mrrstats.JudgmentBounds.systems`
        or the report's ``results/bounds.csv``.
    measure : str, optional, keyword-only
    ax : matplotlib Axes, optional, keyword-only

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import pandas as pd, mrrstats.plots as mp
    >>> f = pd.DataFrame({"run": ["a", "b"], "measure": "RR", "value": [0.5, 0.6],
    ...                   "lower": [0.5, 0.6], "upper": [0.8, 0.65]})
    >>> mp.bound_bars(f).get_ylabel()
    'run'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    sub, measure = _one_measure(systems, measure, {"run", "measure", "value", "lower",
                                                   "upper"}, "systems")
    sub = sub.sort_values("value", kind="stable")
    k = len(sub)
    ax = _new_axes(ax, k)
    y = np.arange(k, dtype=float)
    flagged = sub["pooling_bias"].astype(bool).to_numpy() if "pooling_bias" in sub else \
        np.zeros(k, bool)
    ax.barh(y, sub["upper"] - sub["lower"], left=sub["lower"], height=0.5, color=PALETTE[5],
            edgecolor=PALETTE[0], hatch=["//" if f else "" for f in flagged],
            label="unjudged: non-relevant .. relevant")
    ax.plot(sub["value"], y, "o", color=PALETTE[1], label="trec_eval (unjudged non-relevant)")
    guaranteed = bool(sub["guaranteed"].all()) if "guaranteed" in sub else True
    names = short_names(list(sub["run"]))
    ax.set_yticks(y, [n + (" (not pooled?)" if f else "") for n, f in zip(names, flagged,
                                                                            strict=True)],
                  fontsize=8)
    ax.set_xlabel(f"{mean_label(measure)}" + ("" if guaranteed else
                                              " (the two conventions' values, not bounds)"))
    ax.set_ylabel("run")
    # a point on a bar's left end (value = lower) would be cut by the axis: the bars'
    # sticky left edge is dropped, so the usual margin shows the whole marker
    ax.use_sticky_edges = False
    ax.margins(x=0.04)
    ax.autoscale_view()
    # the legend above the axes, in two columns: it hides no bar
    ax.legend(fontsize=7, loc="lower left", bbox_to_anchor=(0.0, 1.01), ncol=2,
              borderaxespad=0.0, frameon=False)
    return ax
