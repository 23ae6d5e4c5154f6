"""Intervals as computed: differences of two systems, forest plots, clustered and
estimation intervals, segment means.

* :func:`paired_differences` -- sorted per-query differences of two systems,
  their mean and a given interval;
* :func:`forest_means` -- each system's mean with its computed interval;
* :func:`forest_differences` -- a pairwise result against a control system:
  intervals and decisions;
* :func:`clustered_intervals` -- each pair's interval with queries independent
  and with clusters resampled;
* :func:`estimation_intervals` -- each pair's Hodges-Lehmann shift with its
  interval, next to the mean difference;
* :func:`segment_means` -- each segment's mean and interval per run.

Nothing here computes an interval: each function draws the one it is given.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ...deprecation import renamed_parameters
from ...errors import ParameterError, ParameterTypeError
from ...formatting import interval_text
from ...metrics.measures import higher_is_better, mean_label
from ...stats.registry import FAMILY_TESTS, test_label
from .inputs import select_systems
from .style import GREY, finish, interval_name, new_axes, series_style, short_names, wrap

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from matplotlib.axes import Axes
    from numpy.typing import ArrayLike

    from ...stats.compare import Comparison
    from ...stats.pairwise_result import PairwiseResult
    from ...stats.segments import SegmentComparison

__all__ = ["paired_differences", "forest_means", "forest_differences", "clustered_intervals",
           "estimation_intervals", "segment_means"]


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
            raise ParameterTypeError(f"`{param}` must be a ConfidenceInterval, a result with "
                            f"confidence_interval(), a pairwise row with ci_low/ci_high or a "
                            f"(low, high) pair, got {interval!r}") from None
    lo, hi = float(lo), float(hi)
    if not lo <= hi:       # an end may be infinite (one-sided or compatible intervals)
        raise ParameterError(f"`{param}`: low {lo} is above high {hi}")
    return lo, hi, (None if cl is None else float(cl)), interval_name(method)


def _paired_differences_iv(a, b, names, measure, interval):
    na = getattr(a, "name", None)
    nb = getattr(b, "name", None)
    if isinstance(a, pd.Series) and isinstance(b, pd.Series):
        if set(a.index) != set(b.index) or a.index.has_duplicates:
            raise ParameterError("`a` and `b` must hold the same queries (index)")
        b = b.reindex(a.index)
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    if x.ndim != 1 or x.shape != y.shape:
        raise ParameterError(f"`a` and `b` must be 1-D and of equal length, got {x.shape} and "
                         f"{y.shape}")
    if x.size < 2 or np.isnan(x).any() or np.isnan(y).any():
        raise ParameterError("`a` and `b` need at least 2 queries and no NaN")
    if names is None:
        names = (str(na) if na is not None else "a", str(nb) if nb is not None else "b")
    elif isinstance(names, str) or len(names) != 2:
        raise ParameterError(f"`names` must be a pair of system names, got {names!r}")
    if measure is None:
        measure = getattr(a, "attrs", {}).get("measure", "score")
    return x, y, tuple(map(str, names)), str(measure), _interval_iv(interval)


def paired_differences(a: ArrayLike, b: ArrayLike, *, interval: Any = None,
                       names: tuple[str, str] | None = None, measure: str | None = None,
                       ax: Axes | None = None, **removed: object) -> Axes:
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
    ['95% CI [-0.011, +0.667] (marginal\\npaired t)']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    if removed:
        raise ParameterTypeError(f"paired_differences() no longer computes an interval "
                        f"({sorted(removed)}): pass the one your analysis computed as "
                        "interval=, e.g. interval=mrrstats.paired_ttest(a, b)")
    x, y, names, measure, iv = _paired_differences_iv(a, b, names, measure, interval)
    d = x - y
    order = np.argsort(-d, kind="stable")
    ds = d[order]
    pos = np.arange(1, d.size + 1)
    ax = new_axes(ax, figsize=(7.5, 3.2))
    win, loss = ds > 0, ds < 0
    s0, s1 = series_style(0), series_style(1)
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
        ax.axhspan(max(lo, ymin), min(hi, ymax), color=GREY, alpha=0.3, linewidth=0,
                   label=wrap(f"{level}CI {interval_text(lo, hi)}{how}", 34))
        ax.set_ylim(ymin, ymax)        # an infinite end runs to the edge
    ax.axhline(d.mean(), color="black", linewidth=1.5, linestyle="--",
               label=f"mean difference {d.mean():+.3f}")
    ax.set_xlim(0.3, d.size + 0.7)
    ties = int(d.size - win.sum() - loss.sum())
    return finish(ax, f"queries sorted by difference (n = {d.size}, {ties} ties)",
                   f"per-query difference in {measure}", legend_loc="right")


def _forest_means_iv(intervals, measure, systems):
    if isinstance(intervals, pd.DataFrame) and {"mean", "ci_low", "ci_high"} <= set(
            intervals.columns):
        table = intervals
        if "system" in table.columns:
            table = table.set_index("system")
        if "measure" in table.columns and measure is not None:
            table = table[table["measure"] == measure]
        if table.empty:
            raise ParameterError(f"`intervals` has no row for measure {measure!r}")
        if "measure" in table.columns and table["measure"].nunique() > 1:
            raise ParameterError("`intervals` holds several measures: choose one with measure=")
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
                raise ParameterTypeError(f"`intervals[{s!r}]` has no `statistic` (the mean)")
            rows[str(s)] = {"mean": float(stat), "ci_low": float(ci.low),
                            "ci_high": float(ci.high)}
            method, cl = getattr(ci, "method", None), getattr(ci, "confidence_level", None)
            nq = getattr(r, "n_queries", nq)
        frame = pd.DataFrame.from_dict(rows, orient="index")
        name = "score" if measure is None else measure
    else:
        raise ParameterTypeError("forest_means() draws computed intervals: `intervals` must be a "
                        "DataFrame with columns mean, ci_low, ci_high (one row per system) "
                        "or a mapping {system: result with statistic and "
                        "confidence_interval()}, e.g. {s: mrrstats.bootstrap_ci(x) ...}; got "
                        f"{type(intervals).__name__}")
    frame.index = [str(i) for i in frame.index]
    cols = select_systems(frame.T, systems, param="systems", limit=None)
    return frame.loc[cols], str(name), method, cl, nq


def forest_means(intervals: pd.DataFrame | Mapping[str, pd.DataFrame], *,
                 measure: str | None = None, systems: Sequence[str] | None = None,
                 sort: bool = True, ax: Axes | None = None, **removed: object) -> Axes:
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
    'MRR with 95% marginal paired t CI'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    if removed:
        raise ParameterTypeError(
            f"forest_means() no longer computes intervals ({sorted(removed)}): "
            "pass the means and intervals your analysis computed")
    frame, name, method, cl, nq = _forest_means_iv(intervals, measure, systems)
    means = frame["mean"].to_numpy()
    lows, highs = frame["ci_low"].to_numpy(), frame["ci_high"].to_numpy()
    labels = np.asarray(frame.index, dtype=object)
    order = np.argsort(means, kind="stable") if sort else np.arange(means.size)[::-1]
    if not higher_is_better(name) and sort:
        order = order[::-1]
    k = means.size
    ax = new_axes(ax, figsize=(5.0, min(9.0, max(2.0, 0.9 + 0.22 * k))))
    y = np.arange(k)
    st = series_style(0)
    small = k > 30
    ax.errorbar(means[order], y, xerr=[means[order] - lows[order], highs[order] - means[order]],
                fmt=st["marker"], color=st["color"], markersize=3 if small else 5,
                capsize=1.5 if small else 2.5, elinewidth=1.0 if small else 1.2)
    ax.set_yticks(y, labels[order], fontsize=8 if not small else max(3.5, 8 - k / 25))
    ax.set_ylim(-0.7, k - 0.3)
    level = "" if cl is None else f"{float(cl):.0%} "
    how = f"{interval_name(method)} " if method else ""
    queries = f" ({nq} queries)" if nq else ""
    return finish(ax, f"{mean_label(name)} with {level}{how}CI{queries}", "system",
                   legend=False)


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
    raise ParameterTypeError(
        f"`{param}` must be a PairwiseResult, a Comparison or a frame of their "
        f"pairs (to_frame()), got {type(result).__name__}")


def _versus(frame, control, param):
    """Rows ``system, difference, ci_low, ci_high, reject`` oriented system - control."""
    need = {"difference", "ci_low", "ci_high"}
    if not need <= set(frame.columns):
        raise ParameterError(f"`{param}` needs columns {sorted(need)}")
    if "system" in frame.columns:                 # already against the control
        out = frame.set_index("system")[["difference", "ci_low", "ci_high"]].copy()
        out["reject"] = frame["reject"].to_numpy(bool) if "reject" in frame.columns else False
        return out
    rows = {}
    for r in frame.to_dict("records"):
        if r["b"] == control:
            rows[r["a"]] = (r["difference"], r["ci_low"], r["ci_high"], r.get("reject", False))
        elif r["a"] == control:
            rows[r["b"]] = (-r["difference"], -r["ci_high"], -r["ci_low"], r.get("reject", False))
    if not rows:
        raise ParameterError(f"`control` {control!r} is in no pair of `{param}`")
    out = pd.DataFrame.from_dict(rows, orient="index",
                                 columns=["difference", "ci_low", "ci_high", "reject"])
    out["reject"] = out["reject"].astype(bool)
    return out


def _first(frame, col, default=None):
    return frame[col].iloc[0] if col in frame.columns and len(frame) else \
        frame.attrs.get(col, default)


@renamed_parameters(baseline="control")
def forest_differences(pairwise: PairwiseResult | Comparison | pd.DataFrame, control: str, *,
                       simultaneous: PairwiseResult | Comparison | pd.DataFrame | None = None,
                       measure: str | None = None, sort: bool = True, ax: Axes | None = None,
                       **removed: object) -> Axes:
    """Differences to a control system with their intervals and decisions, as computed.

    Parameters
    ----------
    pairwise : PairwiseResult, Comparison or DataFrame
        The comparison to draw: :func:`mrrstats.pairwise_tests` or
        :func:`mrrstats.compare` output, the frame of its pairs
        (``to_frame()``: columns ``a, b, difference, ci_low, ci_high, reject``), or a
        frame already oriented against the control (columns ``system, difference,
        ci_low, ci_high, reject``, as a report's ``versus_control``). Its
        intervals are drawn as thick bars, its decisions as filled markers.
    control : str
        The system every other one is compared with (difference = system -
        control); formerly ``baseline``.
    simultaneous : PairwiseResult, Comparison or DataFrame, optional, keyword-only
        A family-wise result (a test of
        :data:`mrrstats.stats.registry.FAMILY_TESTS`: ``"tukey"``, ``"maxt"``,
        ``"anova-hsd"``, ``"dunnett"``) whose intervals are drawn as thin capped
        lines.
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
    exactly when 0 lies outside its interval). Finite intervals are drawn as
    they are; an infinite end (a one-sided or a step-down compatible interval)
    runs to the edge of the plot, and the legend says so.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import pandas as pd, mrrstats.plots as mp
    >>> pairs = pd.DataFrame({"a": ["x", "y"], "b": ["base", "base"], "difference": [0.1, -0.02],
    ...                       "ci_low": [0.04, -0.08], "ci_high": [0.16, 0.04],
    ...                       "reject": [True, False], "ci_method": "t"})
    >>> mp.forest_differences(pairs, "base", measure="RR").get_xlabel()
    'difference in MRR (system − base)'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    if removed:
        raise ParameterTypeError(f"forest_differences() no longer runs tests ({sorted(removed)}): "
                        "pass the PairwiseResult or Comparison your analysis computed")
    if not isinstance(control, str):
        raise ParameterTypeError(f"`control` must be a system name, got {control!r}")
    frame = _pairs_frame(pairwise, measure, "pairwise")
    if measure is None:
        measure = _first(frame, "measure", "score")
    vs = _versus(frame, control, "pairwise")
    fam = fframe = None
    if simultaneous is not None:
        fframe = _pairs_frame(simultaneous, measure, "simultaneous")
        if _first(fframe, "test") not in FAMILY_TESTS:
            raise ParameterError(f"`simultaneous` must be a result of a family-wise test "
                             f"{FAMILY_TESTS}")
        fam = _versus(fframe, control, "simultaneous").reindex(vs.index)
        if fam["difference"].isna().any():
            raise ParameterError("`simultaneous` was computed on other systems than `pairwise`")
    diff = vs["difference"].to_numpy(np.float64)
    ends = [vs["ci_low"].to_numpy(np.float64), vs["ci_high"].to_numpy(np.float64)]
    if fam is not None:
        ends += [fam["ci_low"].to_numpy(np.float64), fam["ci_high"].to_numpy(np.float64)]
    # an infinite end (one-sided or compatible intervals) is drawn to the plot's edge
    finite = np.concatenate([diff, [0.0], *(e[np.isfinite(e)] for e in ends)])
    span = max(float(finite.max() - finite.min()), 1e-12)
    edge = (float(finite.min()) - 0.15 * span, float(finite.max()) + 0.15 * span)
    open_ends = any(not np.isfinite(e).all() for e in ends)
    ends = [np.clip(e, *edge) for e in ends]
    order = np.argsort(diff, kind="stable") if sort else np.arange(diff.size)[::-1]
    k = diff.size
    ax = new_axes(ax, figsize=(8.0, min(10.0, max(2.0, 1.1 + 0.25 * k))))
    y = np.arange(k)
    s0, s1 = series_style(0), series_style(1)
    cl = _first(frame, "confidence_level")
    level = "" if cl is None else f"{float(cl):.0%} "
    how = interval_name(_first(frame, "ci_method"))
    small = k > 30
    ax.hlines(y, ends[0][order], ends[1][order], color=s0["color"],
              linewidth=2.5 if small else 5, alpha=0.55,
              label=f"{level}CI" + (f"\n({wrap(how)})" if how else ""), zorder=2)
    if fam is not None:
        fcl = _first(fframe, "confidence_level")
        flevel = "" if fcl is None else f"{float(fcl):.0%} "
        ax.errorbar(diff[order], y, xerr=[diff[order] - ends[2][order],
                                          ends[3][order] - diff[order]],
                    fmt="none", ecolor="black", elinewidth=0.9, capsize=2 if small else 3.5,
                    label=f"simultaneous {flevel}CI "
                          f"({test_label(_first(fframe, 'test'))})", zorder=3)
    alpha = _first(frame, "alpha")
    filled = vs["reject"].to_numpy(bool)[order]
    ax.scatter(diff[order][filled], y[filled], marker="D", s=14 if small else 30,
               color=s1["color"], edgecolor="black", linewidth=0.6, zorder=4,
               label="significant" + ("" if alpha is None else f" (α = {float(alpha):g})"))
    ax.scatter(diff[order][~filled], y[~filled], marker="D", s=14 if small else 30,
               facecolor="white", edgecolor="black", linewidth=0.8, zorder=4,
               label="not significant")
    if open_ends:
        ax.set_xlim(*edge)
        ax.plot([], [], color=s0["color"], linewidth=5, alpha=0.55,
                label="bar to the edge:\ninterval open on that side")
    ax.axvline(0, color=GREY, linestyle="--", linewidth=1, zorder=1)
    labels = np.asarray(list(vs.index), dtype=object)
    ax.set_yticks(y, labels[order], fontsize=8 if not small else 5.5)
    ax.set_ylim(-0.7, k - 0.3)
    return finish(ax, f"difference in {mean_label(measure)} (system − {control})", "system",
                  legend_loc="right")


def _pair_rows(frame, need, measure):
    """The rows of one measure of a pairs frame (``measure=None``: the first one), their
    ``"a - b"`` labels in short system names, and the measure; checks ``need`` columns."""
    if not need <= set(frame.columns):
        raise ParameterError(f"`frame` needs the columns {sorted(need)}")
    if measure is None:
        measure = frame["measure"].iloc[0]
    sub = frame[frame["measure"] == measure]
    if sub.empty:
        raise ParameterError(f"no rows for measure {measure!r}")
    systems = list(dict.fromkeys([*sub["a"], *sub["b"]]))
    short = dict(zip(systems, short_names(systems), strict=True))
    labels = [f"{short[a]} - {short[b]}" for a, b in zip(sub["a"], sub["b"], strict=True)]
    return sub, labels, measure


def clustered_intervals(frame: pd.DataFrame, *, measure: str | None = None,
                        ax: Axes | None = None) -> Axes:
    """Each pair's interval with queries as independent (grey) and with clusters resampled.

    Parameters
    ----------
    frame : DataFrame
        Columns ``measure, a, b, difference, query_low, query_high, cluster_low,
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
    >>> f = pd.DataFrame({"measure": "RR", "a": ["x"], "b": ["y"], "difference": [0.1],
    ...                   "query_low": [0.0], "query_high": [0.2], "cluster_low": [-0.02],
    ...                   "cluster_high": [0.22]})
    >>> mp.clustered_intervals(f).get_legend_handles_labels()[1]
    ['queries independent', 'clusters resampled']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    frame = pd.DataFrame(frame)
    need = {"measure", "a", "b", "difference", "query_low", "query_high", "cluster_low",
            "cluster_high"}
    sub, labels, measure = _pair_rows(frame, need, measure)
    k = len(sub)
    ax = new_axes(ax, figsize=(5.0, min(9.0, 0.9 + 0.32 * k)))
    y = np.arange(k)[::-1].astype(float)
    grey = "0.55"
    st = series_style(0)
    ax.hlines(y + 0.15, sub["query_low"], sub["query_high"], color=grey, linewidth=2.0,
              label="queries independent")
    ax.hlines(y - 0.15, sub["cluster_low"], sub["cluster_high"], color=st["color"],
              linewidth=2.0, linestyle="-", label="clusters resampled")
    ax.plot(sub["difference"], y, "|", color="black", markersize=9)
    ax.axvline(0.0, color="0.3", linewidth=0.8, linestyle=":")
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_ylim(-0.7, k - 0.3)
    return finish(ax, f"mean {measure} difference a - b (bootstrap percentile interval)",
                   "pair", legend_loc="right")


def estimation_intervals(frame: pd.DataFrame, *, measure: str | None = None,
                         margin: float | None = None, ax: Axes | None = None) -> Axes:
    """Each pair's Hodges-Lehmann shift with its interval, next to the mean difference.

    Parameters
    ----------
    frame : DataFrame
        Columns ``measure, a, b, difference, hl_estimate, hl_low, hl_high`` (the
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
    >>> f = pd.DataFrame({"measure": "RR", "a": ["x"], "b": ["y"], "difference": [0.1],
    ...                   "hl_estimate": [0.12], "hl_low": [0.02], "hl_high": [0.2]})
    >>> mp.estimation_intervals(f, margin=0.05).get_legend_handles_labels()[1]
    ['equivalence margin', 'Hodges-Lehmann shift', 'mean difference']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    frame = pd.DataFrame(frame)
    need = {"measure", "a", "b", "difference", "hl_estimate", "hl_low", "hl_high"}
    sub, labels, measure = _pair_rows(frame, need, measure)
    k = len(sub)
    ax = new_axes(ax, figsize=(5.0, min(9.0, 0.9 + 0.32 * k)))
    y = np.arange(k)[::-1].astype(float)
    if margin is not None and np.isfinite(margin):
        ax.axvspan(-margin, margin, color="0.9", zorder=0, label="equivalence margin")
    st = series_style(0)
    ax.hlines(y, sub["hl_low"], sub["hl_high"], color=st["color"], linewidth=2.0)
    ax.plot(sub["hl_estimate"], y, "o", color=st["color"], markersize=4,
            label="Hodges-Lehmann shift")
    ax.plot(sub["difference"], y, "|", color="black", markersize=9, label="mean difference")
    ax.axvline(0.0, color="0.3", linewidth=0.8, linestyle=":")
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_ylim(-0.7, k - 0.3)
    return finish(ax, f"{measure} difference a - b (Hodges-Lehmann shift, Wilcoxon interval)",
                   "pair", legend_loc="right")


def segment_means(table: pd.DataFrame | SegmentComparison, *, measure: str | None = None,
                  ax: Axes | None = None) -> Axes:
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
        raise ParameterTypeError("`table` must be a by_segment frame or a SegmentComparison, got "
                        f"{type(table).__name__}")
    runcol = "run" if "run" in frame.columns else "system"
    need = {"segment", "mean", "ci_low", "ci_high", runcol}
    if not need <= set(frame.columns):
        raise ParameterError(f"`table` lacks columns {sorted(need - set(frame.columns))}")
    if "measure" in frame.columns:
        measures = list(dict.fromkeys(frame["measure"]))
        if measure is None:
            if len(measures) > 1:
                raise ParameterError(f"`measure`: the table has several measures {measures}; "
                                 "name one")
            measure = measures[0]
        if measure not in measures:
            raise ParameterError(f"`measure`={measure!r} not in the table; have {measures}")
        frame = frame[frame["measure"] == measure]
    ax = new_axes(ax)
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
        st = series_style(i)
        ax.errorbar(m, y, xerr=err, fmt=st["marker"], color=st["color"], linestyle="none",
                    capsize=2, label=str(run))
    ax.set_yticks(range(len(segs)), [str(s) for s in segs])
    ax.invert_yaxis()
    label = mean_label(measure) if measure is not None else "mean"
    finish(ax, f"{label} (with its interval)", "segment", legend=len(runs) > 1)
    return ax
