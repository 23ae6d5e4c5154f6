"""Agreement between measures and conventions: scatter of system means, the tau matrix,
and the convention multiverse.

* :func:`measure_scatter` -- system means under two measures, Kendall's tau in
  the title;
* :func:`tau_heatmap` -- measure-by-measure matrix of rank correlations;
* :func:`one_option_at_a_time` -- the rows of a multiverse frame that change
  one option from the reference;
* :func:`multiverse_plot` -- each system's rank under each convention that
  changes one option.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ...agreement.measures import agreement_matrix, ranking_agreement
from ...errors import ParameterError, ParameterTypeError
from ...metrics.measures import mean_label
from ...model.scoretable import as_score_tables
from .inputs import is_evaluation
from .style import finish, new_axes, series_style, short_names

if TYPE_CHECKING:
    from typing import Any, Literal

    from matplotlib.axes import Axes

    from ..._typing import Scores

__all__ = ["measure_scatter", "tau_heatmap", "one_option_at_a_time", "multiverse_plot"]


def _pick_measures(scores, names, param="scores"):
    """``{measure: DataFrame}`` of the named measures, through the one coercion."""
    if not (is_evaluation(scores) or isinstance(scores, Mapping)):
        raise ParameterTypeError(
            f"`{param}` must be an Evaluation or a mapping {{measure: DataFrame}}, "
            f"got {type(scores).__name__}")
    if isinstance(scores, Mapping):
        missing = [m for m in names if m not in scores]
        if missing:
            raise ParameterError(f"`{param}` has no measure {missing}; have {list(scores)}")

    tables = as_score_tables(scores, measures=list(names), missing="drop", finite=False,
                             name=param)
    return {m: t.to_frame() for m, t in tables.items()}


def _measure_scatter_iv(scores, x, y, decimals):
    if not isinstance(x, str) or not isinstance(y, str) or x == y:
        raise ParameterError(f"`x` and `y` must be two different measure names, got {x!r}, {y!r}")
    return _pick_measures(scores, [x, y])


def measure_scatter(scores: Scores, x: str = "RR", y: str = "AP", *, decimals: int | None = 12,
                    ax: Axes | None = None) -> Axes:
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
    ax = new_axes(ax, figsize=(4.2, 3.8))
    st = series_style(0)
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
    return finish(ax, f"{mean_label(x)} (mean over {frames[x].shape[0]} queries)",
                   f"{mean_label(y)}", legend=False)


_BOUNDED = ("tau", "tau_ap", "tau_ap_symmetric", "rho")


def _tau_heatmap_iv(agreement, value):
    if isinstance(agreement, pd.DataFrame) and {"measure_a", "measure_b"} <= set(
            agreement.columns):
        table = agreement
    else:
        table = ranking_agreement(agreement)

    return agreement_matrix(table, value), table


def tau_heatmap(agreement: Scores, *, value: str = "tau", ax: Axes | None = None) -> Axes:
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
    ax = new_axes(ax, figsize=(1.6 + 0.75 * mat.shape[1], 1.2 + 0.65 * mat.shape[0]))
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


_CONVENTION_OPTIONS = ("ties", "queries", "rel", "cutoff", "empty_target")


def one_option_at_a_time(frame: pd.DataFrame, reference: Mapping[str, Any]) -> pd.DataFrame:
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


def multiverse_plot(systems: pd.DataFrame, reference: Mapping[str, Any], *,
                    measure: str | None = None, value: Literal["rank", "mean"] = "rank",
                    ax: Axes | None = None) -> Axes:
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
    if not isinstance(value, str) or value not in ("rank", "mean"):
        raise ParameterError(f"`value` must be 'rank' or 'mean', got {value!r}")
    frame = pd.DataFrame(systems)
    if measure is None:
        measure = frame["measure"].iloc[0]
    sub = one_option_at_a_time(frame[frame["measure"] == measure], reference)
    kinds = ["reference", "ties", "queries", "rel", "cutoff", "empty_target"]
    order = sorted(dict.fromkeys(sub["convention"]),
                   key=lambda c: kinds.index(c.split(" ")[0]))
    names = list(dict.fromkeys(sub["system"]))
    short = dict(zip(names, short_names(names), strict=True))
    ax = new_axes(ax, figsize=(5.6, 3.4))
    x = np.arange(len(order))
    for i, (name, g) in enumerate(sub.groupby("system", sort=False)):
        st = series_style(i)
        g = g.set_index("convention").reindex(order)
        ax.plot(x, g[value].to_numpy(float), marker=st["marker"], color=st["color"],
                linestyle=st["linestyle"], markersize=4, linewidth=1.2, label=short[name])
    ax.set_xticks(x, order, rotation=35, ha="right", fontsize=7.5)
    if value == "rank":
        k = len(names)
        ax.set_yticks(range(1, k + 1))
        ax.set_ylim(k + 0.4, 0.6)
        ylabel = f"rank by {mean_label(measure)} (1 = best)"
    else:
        ylabel = mean_label(measure)
    return finish(ax, "convention (one option changed from the reference)", ylabel,
                   legend_loc="right")
