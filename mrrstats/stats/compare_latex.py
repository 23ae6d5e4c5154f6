r"""LaTeX tables of a :class:`~mrrstats.Comparison` (``Comparison.to_latex``).

Two tables, both booktabs, with a caption that names every setting:

* ``table="means"``: one row per system, one column of means per measure (headed by
  the name of the mean: ``MRR@10`` for ``RR@10``, ``MAP`` for ``AP``), the interval of
  ranks and the compact-letter group of each system;
* ``table="pairs"``: one row per pair (and measure): the difference of the means
  with its interval, the raw and the adjusted p-value.

Styles, chosen so that no mark can be read as another:

* the systems a row beats significantly: superscript upright letters (the
  systems' row labels), ``0.8271$^{\mathrm{abe}}$``; the best mean in bold;
* compact-letter groups (systems sharing a letter are not significantly
  different): italic letters in their own column, ``\textit{ab}``;
* a rejected pair (pairs table): a dagger on its difference, ``$^{\dagger}$``; a
  pair rejected by a step-down procedure although its interval contains 0: a
  double dagger, ``$^{\ddagger}$``.

Every minus sign is ``$-$`` (numbers, interval ends, exponents of small p-values,
which are written :math:`a \times 10^{-k}`); infinite interval ends are
``$-\infty$``/``$\infty$``. The caption gives the number of queries and whether they
were clustered, :math:`\alpha` as ``$\alpha$``, and :math:`B` with what one resample is.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from ..errors import MrrstatsError, ParameterError, ParameterTypeError
from ..formatting import fixed, latex_escape, pvalue_text
from ..metrics.measures import parse_measure
from ..validation import bool_iv, choice_iv
from .coverage import measured_coverage_note
from .methods import resample_unit
from .registry import correction_label, interval_label, test_label

if TYPE_CHECKING:
    from .compare import Comparison

__all__ = [
    "TABLES",
    "MEANS_COLUMNS",
    "PAIRS_COLUMNS",
    "latex_number",
    "latex_pvalue",
    "comparison_latex",
    "mean_label",
]

TABLES = ("means", "pairs")
#: the columns of the means table (each measure has them; rank and group need all pairs)
MEANS_COLUMNS = ("mean", "rank", "group")
#: the columns of the pairs table (``ci``: the interval ``[ci_low, ci_high]``)
PAIRS_COLUMNS = (
    "measure",
    "a",
    "b",
    "mean_a",
    "mean_b",
    "difference",
    "ci",
    "pvalue",
    "pvalue_adjusted",
    "d_z",
    "wins",
)
_PAIRS_DEFAULT = ("measure", "a", "b", "difference", "ci", "pvalue", "pvalue_adjusted")
_ALIGN = {"measure": "l", "a": "l", "b": "l", "ci": "c", "wins": "c"}


def latex_number(x: float, digits: int) -> str:
    """A number in fixed digits with a typeset minus: ``$-$0.1234``, ``$\\infty$``, ``--``."""
    s = fixed(x, digits)
    if s in ("inf", "-inf"):
        return "$\\infty$" if s == "inf" else "$-\\infty$"
    return "$-$" + s[1:] if s.startswith("-") else s


def latex_pvalue(p: float, resamples: int | None = None) -> str:
    """A p-value as :func:`~mrrstats.formatting.pvalue_text` writes it, typeset: small ones
    as ``$2.5 \\times 10^{-5}$``, the floors as ``$< 0.0001$`` and ``$\\le 0.010$``."""
    s = pvalue_text(p, resamples)
    for text, sign in (("<= ", "\\le "), ("< ", "< ")):
        if s.startswith(text):
            return f"${sign}{s[len(text) :]}$"
    m = re.fullmatch(r"(\d\.\d)e([+-])0*(\d+)", s)
    if m is None:
        return s
    sign = "-" if m.group(2) == "-" else ""
    return f"${m.group(1)} \\times 10^{{{sign}{m.group(3)}}}$"


def mean_label(measure: str) -> str:
    """The name of a measure's mean (``MRR@10`` for ``RR@10``); the name when unknown."""
    try:
        return parse_measure(measure).mean_label
    except MrrstatsError:
        return measure


def _names_iv(names: object) -> dict[str, str]:
    if names is None:
        return {}
    if not isinstance(names, Mapping):
        raise ParameterTypeError(
            "`names` must be a mapping {name: display name} or None, got "
            f"{type(names).__name__}",
            name="names",
        )
    out = {}
    for k, v in names.items():
        if not isinstance(k, str) or not isinstance(v, str):
            raise ParameterTypeError(
                f"`names` must map strings to strings, got {k!r:.40}: {v!r:.40}", name="names"
            )
        out[k] = v
    return out


def _columns_iv(columns: object, allowed: Sequence[str], table: str) -> tuple[str, ...] | None:
    if columns is None:
        return None
    if isinstance(columns, str) or not isinstance(columns, Sequence):
        raise ParameterTypeError(
            f"`columns` must be a list of column names or None, got {type(columns).__name__}",
            name="columns",
        )
    cols = tuple(columns)
    bad = [c for c in cols if not isinstance(c, str) or c not in allowed]
    if bad or not cols or len(set(cols)) != len(cols):
        raise ParameterError(
            f"`columns` of table={table!r} must be distinct names among "
            f"{tuple(allowed)}, got {list(cols)!r:.80}",
            name="columns",
        )
    return cols


def _env(body: list[str], align: str, caption: str, label: str | None, wide: bool) -> str:
    env = "table*" if wide else "table"
    out = [
        f"\\begin{{{env}}}",
        "\\centering",
        f"\\begin{{tabular}}{{{align}}}",
        "\\toprule",
        *body,
        "\\bottomrule",
        "\\end{tabular}",
        f"\\caption{{{caption}}}",
    ]
    if label:
        out.append(f"\\label{{{label}}}")
    out.append(f"\\end{{{env}}}")
    return "\n".join(out) + "\n"


def _settings(c: Comparison) -> str:
    """The caption's sentence on the queries, alpha and B (LaTeX)."""
    r0 = c.results[c.measures[0]]
    ns = sorted({c.results[m].n_queries for m in c.measures})
    n = str(ns[0]) if len(ns) == 1 else f"{ns[0]}--{ns[-1]}"
    text = f"{n} queries"
    if c.n_clusters is not None:
        unit = "one sign flip" if c.test == "randomization" else "resampled"
        text += f" in {c.n_clusters} clusters ({unit} per cluster)"
    else:
        text += " (not clustered)"
    text += f"; $\\alpha = {c.alpha:g}$"
    if r0.n_resamples is not None:
        what = resample_unit(c.test, r0.correction)
        if r0.exact:
            text += f"; exact: all {r0.n_resamples:,} {what.removeprefix('random ')}"
        else:
            b = f"{c.n_resamples:,}".replace(",", "{,}")
            text += f"; $B = {b}$ {what or 'resamples'}"
        if c.seed is not None and not r0.exact:
            text += f" (seed = {c.seed})"
    return text + "."


def _means(
    c: Comparison,
    digits: int,
    names: dict[str, str],
    cols: tuple[str, ...] | None,
    caption_of: Callable[[bool], str],
) -> tuple[list[str], str, str]:
    has_board = c.control is None
    cols = cols if cols is not None else (MEANS_COLUMNS if has_board else ("mean",))
    if not has_board and set(cols) - {"mean"}:
        raise ParameterError(
            "`columns` 'rank' and 'group' need all pairs; this comparison has "
            f"only the pairs with the control {c.control!r}",
            name="columns",
        )
    rows = c._cells(
        lambda t: latex_number(float(t), digits),
        lambda s: f"$^{{\\mathrm{{{s}}}}}$",
        lambda t: f"\\textbf{{{t}}}",
        digits,
        rank_sep="--",
    )
    per = 3 if has_board else 1
    one = len(c.measures) == 1
    head = ["", "System"]
    align = "ll"
    for m in c.measures:
        name = latex_escape(names.get(m, mean_label(m)))
        for col in cols:
            head.append(name if col == "mean" else (col if one else f"{name} {col}"))
            align += {"mean": "r", "rank": "c", "group": "l"}[col]
    body = [" & ".join(head) + " \\\\", "\\midrule"]
    for row in rows:
        cells = [row[0], latex_escape(names.get(row[1], row[1]))]
        for j in range(len(c.measures)):
            block = dict(
                zip(MEANS_COLUMNS[:per], row[2 + per * j : 2 + per * (j + 1)], strict=True)
            )
            if "group" in block:
                block["group"] = f"\\textit{{{block['group']}}}"
            cells += [block[col] for col in cols]
        body.append(" & ".join(cells) + " \\\\")
    return body, align, caption_of(True) + " " + _settings(c)


def _pairs(
    c: Comparison, digits: int, names: dict[str, str], cols: tuple[str, ...] | None
) -> tuple[list[str], str, str]:
    if cols is None:
        cols = _PAIRS_DEFAULT if len(c.measures) > 1 else _PAIRS_DEFAULT[1:]
    cl = f"{c.confidence_level:.0%}".replace("%", "\\%")
    heads = {
        "measure": "Measure",
        "a": "$a$",
        "b": "$b$",
        "mean_a": "mean $a$",
        "mean_b": "mean $b$",
        "difference": "$a - b$",
        "ci": f"{cl} CI",
        "pvalue": "$p$",
        "pvalue_adjusted": "adj.\\ $p$",
        "d_z": "$d_z$",
        "wins": "W/T/L",
    }
    body = [" & ".join(heads[k] for k in cols) + " \\\\", "\\midrule"]
    any_beyond = False
    for m in c.measures:
        r = c.results[m]
        beyond = r.reject_beyond_ci
        floor = None if r.exact else r.n_resamples  # a Monte-Carlo p-value's 1/(B+1)
        for q in range(len(r)):
            mark = ""
            if bool(r.reject[q]):
                late = beyond is not None and bool(beyond[q])
                any_beyond |= late
                mark = "$^{\\ddagger}$" if late else "$^{\\dagger}$"
            lo, hi = latex_number(r.ci_low[q], digits), latex_number(r.ci_high[q], digits)
            cell = {
                "measure": latex_escape(names.get(m, mean_label(m))),
                "a": latex_escape(names.get(r.a[q], r.a[q])),
                "b": latex_escape(names.get(r.b[q], r.b[q])),
                "mean_a": latex_number(r.mean_a[q], digits),
                "mean_b": latex_number(r.mean_b[q], digits),
                "difference": latex_number(r.difference[q], digits) + mark,
                "ci": ("(" if lo.endswith("infty$") else "[")
                + f"{lo}, {hi}"
                + (")" if hi.endswith("infty$") else "]"),
                "pvalue": latex_pvalue(r.pvalue[q], floor),
                "pvalue_adjusted": latex_pvalue(r.pvalue_adjusted[q], floor),
                "d_z": latex_number(r.d_z[q], 2),
                "wins": f"{int(r.wins[q])}/{int(r.ties[q])}/{int(r.losses[q])}",
            }
            body.append(" & ".join(cell[k] for k in cols) + " \\\\")
    r0 = c.results[c.measures[0]]
    who = (
        f"each system $a$ against the control $b$ = {latex_escape(c.control)}"
        if c.control is not None
        else "every pair of systems"
    )
    corr = r0.correction
    of = (
        ""
        if len(c.measures) > 1
        else f" of {latex_escape(names.get(c.measures[0], mean_label(c.measures[0])))}"
    )
    measured = measured_coverage_note(r0.ci_method, c.confidence_level)
    measured = f" ({latex_escape(measured)})" if measured else ""
    caption = (
        f"Differences of the means{of}, {who}: $a - b$ and its {cl} interval, "
        f"{latex_escape(interval_label(r0.ci_method))}{measured}; the raw $p$-value of the "
        f"{latex_escape(test_label(c.test))} ("
        + {
            "two-sided": "two-sided",
            "greater": "one-sided, $a$ better",
            "less": "one-sided, $a$ worse",
        }[c.alternative]
        + f") and the $p$-value adjusted by {latex_escape(correction_label(corr))}. "
        "$^{\\dagger}$: "
        "rejected after correction"
        + (
            "; $^{\\ddagger}$: rejected by the step-down procedure although the "
            "interval contains 0"
            if any_beyond
            else ""
        )
        + ". "
        + _settings(c)
    )
    align = "".join(_ALIGN.get(k, "r") for k in cols)
    return body, align, caption


def comparison_latex(
    c: Comparison,
    *,
    digits: int,
    label: str | None,
    table: str,
    names: object,
    columns: object,
    wide: object,
    caption_of: Callable[[bool], str],
) -> str:
    """The LaTeX of ``c`` (validated arguments of :meth:`Comparison.to_latex`)."""
    table = choice_iv(table, "table", TABLES)
    wide_ = bool_iv(wide, "wide")
    names_ = _names_iv(names)
    cols = _columns_iv(columns, MEANS_COLUMNS if table == "means" else PAIRS_COLUMNS, table)
    built: tuple[list[str], str, str]
    if table == "means":
        built = _means(c, digits, names_, cols, caption_of)
    else:
        built = _pairs(c, digits, names_, cols)
    body, align, caption = built
    return _env(body, align, caption, label, wide_)
