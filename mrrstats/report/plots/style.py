"""The look shared by every plot: palette, series styles, axes, labels, interval names.

The Okabe-Ito colour-blind-safe palette (:data:`PALETTE`), and series that
also differ by marker, line style or hatch, so that every figure stays
readable in greyscale; random-ranking references are always grey
(:data:`GREY`). :func:`style_context` applies the package's rcParams (font
sizes, embedded TrueType fonts in PDF) for publication figures.
"""

from __future__ import annotations

import contextlib
import os
import textwrap
from typing import TYPE_CHECKING

from ...stats.registry import interval_label

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Any

    from matplotlib.axes import Axes
    from matplotlib.text import Text

__all__ = ["PALETTE", "style_context", "interval_name", "short_names", "series_style",
           "new_axes", "finish", "plain_log_ticks", "wrap", "GREY", "LIGHT", "MAX_SERIES"]

#: Okabe-Ito colours (Okabe & Ito, "Color Universal Design", 2008), in the
#: order used for series: blue, vermillion, bluish green, orange, reddish
#: purple, sky blue, black, yellow.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#E69F00", "#CC79A7", "#56B4E9", "#000000",
           "#F0E442")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LINESTYLES = ("-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)), (0, (1, 1)),
              (0, (8, 2, 2, 2)))
HATCHES = ("", "//", "\\\\", "xx", "..", "++", "||", "--")
GREY = "#7f7f7f"          # random-ranking references
LIGHT = "#d9d9d9"         # filled reference areas
#: At most this many series in one panel (one style each).
MAX_SERIES = len(PALETTE)

#: The package's rcParams (:func:`style_context`).
RC = {
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


@contextlib.contextmanager
def style_context(**rc: Any) -> Iterator[None]:
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

    params = dict(RC)
    params.update(rc)
    interactive = mpl.rcParams["interactive"]
    try:
        with mpl.rc_context(params):  # type: ignore[arg-type]
            try:
                yield
            finally:
                interactive = mpl.rcParams["interactive"]
    finally:
        mpl.rcParams["interactive"] = interactive


def series_style(i: int) -> dict:
    """Colour, marker, line style and hatch of the i-th series (cycled)."""
    return {"color": PALETTE[i % len(PALETTE)], "marker": MARKERS[i % len(MARKERS)],
            "linestyle": LINESTYLES[i % len(LINESTYLES)], "hatch": HATCHES[i % len(HATCHES)]}


def new_axes(ax, figsize=(5.0, 3.4)):
    """The given Axes, or a new one on a new constrained-layout figure."""
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    with style_context():
        _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def finish(ax, xlabel, ylabel, *, legend=True, legend_loc="best", **legend_kw):
    """Axis labels, no top/right spines and the legend (``"right"``: outside the axes)."""
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


def plain_log_ticks(axis):
    """Tick labels 1, 10, 100, 1,000 instead of powers of ten on a log axis."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1 else f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


def interval_name(method: str | None) -> str:
    """Readable name of an interval method (``"bca"`` -> ``"marginal BCa bootstrap"``).

    :func:`mrrstats.stats.registry.interval_label` (the one table of interval
    labels, :data:`mrrstats.stats.registry.INTERVAL_LABELS`), under the name the
    plots and notebooks of 0.1 use; None gives ``""``.

    >>> interval_name("bca"), interval_name("t")
    ('marginal BCa bootstrap', 'marginal paired t')
    >>> interval_name("holm-sb2008(randomization)")
    'Holm-compatible (Strassburger & Bretz 2008), inverting the paired randomization test'
    """
    return "" if method is None else interval_label(method)


def wrap(text, width=28):
    """Legend text broken into lines of at most ``width`` characters."""
    return "\n".join(textwrap.wrap(str(text), width)) or str(text)


def fit_title(ax: Axes, text: str, fontsize: float | None = None) -> Text:
    """Set ``text`` as the title of ``ax``, broken into lines that fit the figure's width.

    Constrained layout makes room for a title of several lines but cannot shorten a
    line wider than the figure (it is cut at the edge); the lines here take at most
    three quarters of the figure's width, at about 0.6 em a character.
    """
    import matplotlib as mpl
    from matplotlib.font_manager import FontProperties

    size = FontProperties(size=fontsize or mpl.rcParams["axes.titlesize"]).get_size_in_points()
    width = ax.figure.get_figwidth()  # type: ignore[union-attr]  # a Figure, not a SubFigure
    chars = max(24, int(0.75 * width * 72 / (0.6 * size)))
    return ax.set_title(wrap(text, chars), fontsize=fontsize)


def short_names(names: Iterable[Any]) -> list[str]:
    """System names without the prefix and suffix they all share (``org_``, ``.run``).

    Examples
    --------
    >>> from mrrstats.plots import short_names
    >>> short_names(["org_bm25.run", "org_ance.run"])
    ['bm25', 'ance']
    """
    names = [str(n) for n in names]
    if len(names) < 2:
        return names
    pre, suf = len(os.path.commonprefix(names)), len(os.path.commonprefix([n[::-1]
                                                                          for n in names]))
    if any(len(n) - pre - suf < 1 for n in names):
        return names
    return [n[pre:len(n) - suf] for n in names]
