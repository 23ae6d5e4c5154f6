r"""How numbers are written, in one place: tables, LaTeX, JSON, the command line, reports.

Deterministic (fixed digits, no locale), so a report regenerates byte for byte.

Examples
--------
>>> from mrrstats.formatting import fixed, pvalue_text, latex_escape, json_number
>>> fixed(0.123456), fixed(-0.00001), fixed(float("nan"))
('0.1235', '0.0000', '--')
>>> pvalue_text(0.0312), pvalue_text(2.5e-4), pvalue_text(0.0)
('0.031', '2.5e-04', '< 0.0001')
>>> latex_escape("org_bm25 & 10%")
'org\\_bm25 \\& 10\\%'
>>> json_number(float("inf")) is None, json_number(3)
(True, 3)
"""

from __future__ import annotations

import math
import re
import textwrap

import numpy as np

__all__ = ["DIGITS", "PVALUE_FLOOR", "fixed", "pvalue_text", "percent", "json_number",
           "latex_escape", "latex_cell", "markdown_table", "latex_table", "text_table",
           "frame_text", "columns_text", "TEXT_WIDTH", "wrap", "letters", "interval_text",
           "interval_cell", "pvalue_clause"]

#: Decimals of every mean, difference and interval end in tables.
DIGITS = 4

#: Columns of the command line's text output by default (``--wide``: every column).
TEXT_WIDTH = 100

#: The smallest p-value written as a number; a smaller one is written ``< 0.0001`` (never 0).
PVALUE_FLOOR = 1e-4

_LATEX_ESCAPES = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                  "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                  "^": r"\textasciicircum{}"}


def fixed(x, digits=DIGITS) -> str:
    """Fixed-point number; ``'--'`` for None or NaN, ``'inf'``/``'-inf'``; no ``-0.0000``."""
    if x is None:
        return "--"
    x = float(x)
    if math.isnan(x):
        return "--"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    s = f"{x:.{digits}f}"
    return "0." + "0" * digits if s == "-0." + "0" * digits else s


def pvalue_text(p, resamples=None) -> str:
    """A p-value as every table and command writes it; never ``0``.

    3 decimals, 2 significant digits in scientific notation below 0.001, and
    ``< 0.0001`` below :data:`PVALUE_FLOOR` (an exact or asymptotic p-value that
    underflows to 0 included). A Monte-Carlo p-value (``resamples`` = its B given) at its
    floor ``1/(B+1)`` -- no resample as extreme as the observed statistic -- is written
    ``<= 1/(B+1)`` (``< 0.0001`` when that is below the floor).

    >>> pvalue_text(0.5), pvalue_text(1e-20), pvalue_text(float("nan"))
    ('0.500', '< 0.0001', '--')
    >>> pvalue_text(1 / 100, resamples=99), pvalue_text(1 / 10001, resamples=10000)
    ('<= 0.010', '< 0.0001')
    >>> pvalue_text(2 / 100, resamples=99)
    '0.020'
    """
    if p is None:
        return "--"
    p = float(p)
    if not math.isfinite(p):
        return "--"
    if resamples is not None and resamples == resamples and resamples > 0:
        floor = 1.0 / (float(resamples) + 1.0)
        if p <= floor * (1 + 1e-9):
            return "< 0.0001" if floor < PVALUE_FLOOR else "<= " + pvalue_text(floor)
    if p < PVALUE_FLOOR:
        return "< 0.0001"
    return f"{p:.3f}" if p >= 0.001 else f"{p:.1e}"


def pvalue_clause(p, resamples=None) -> str:
    """``p = `` and :func:`pvalue_text` for prose: ``p = 0.031``, ``p < 0.0001``,
    ``p <= 0.010`` (never ``p = < 0.0001``, never ``p = 0``).

    >>> pvalue_clause(0.0312), pvalue_clause(0.0), pvalue_clause(1 / 100, resamples=99)
    ('p = 0.031', 'p < 0.0001', 'p <= 0.010')
    """
    text = pvalue_text(p, resamples)
    return "p " + text if text[:1] in "<>" else "p = " + text


def percent(x, digits=1) -> str:
    """``0.1234`` -> ``'12.3%'``."""
    return fixed(100.0 * float(x), digits) + "%"


def json_number(x):
    """A JSON-safe number: bool, int or finite float; None for None, NaN or infinity."""
    if x is None:
        return None
    if isinstance(x, bool | np.bool_):
        return bool(x)
    if isinstance(x, int | np.integer):
        return int(x)
    x = float(x)
    return x if math.isfinite(x) else None


def latex_escape(s) -> str:
    """Text with LaTeX's special characters escaped."""
    return "".join(_LATEX_ESCAPES.get(c, c) for c in str(s))


def latex_cell(s) -> str:
    r"""A table cell: escaped, every number's minus sign ``$-$``, infinity, the p-value
    floors ``$<$``/``$\le$`` and small numbers ``$2.5 \times 10^{-5}$`` typeset.

    >>> latex_cell("[-0.1215, 0.0267]"), latex_cell("< 0.0001"), latex_cell("2.5e-05")
    ('[$-$0.1215, 0.0267]', '$<$ 0.0001', '$2.5 \\times 10^{-5}$')
    >>> latex_cell("(-∞, 0.0000]"), latex_cell("org_run-2"), latex_cell("3--5")
    ('($-\\infty$, 0.0000]', 'org\\_run-2', '3--5')
    """
    text = latex_escape(str(s)).replace("-∞", r"$-\infty$").replace("∞", r"$\infty$")
    text = re.sub(r"(?<![\w.$-])-(?=\.?\d)", "$-$", text)  # a number's minus, not 3--5
    text = re.sub(r"(?<![\w.])(\d(?:\.\d+)?)e([+-])0*(\d+)(?![\w.])",
                  lambda m: f"${m[1]} \\times 10^{{{'-' if m[2] == '-' else ''}{m[3]}}}$", text)
    return re.sub(r"^<= ", r"$\\le$ ", re.sub(r"^< ", "$<$ ", text))


def markdown_table(header, rows, align, caption) -> str:
    """Pipe table; ``align`` is a string of ``'l'``/``'r'``, one per column."""
    esc = [[str(c).replace("|", "\\|") for c in row] for row in rows]
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join(":--" if a == "l" else "--:" for a in align) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in esc]
    return "\n".join(lines) + "\n\n" + caption + "\n"


def text_table(header, rows, align=None) -> str:
    """A plain-text table whose columns line up: every command prints its tables so.

    Columns are separated by two spaces; ``align`` is a string of ``'l'``/``'r'``, one
    per column (default: the first column left, the others right). Cells are written
    as given (format numbers first: :func:`fixed`, :func:`pvalue_text`, ...).

    >>> print(text_table(["system", "mean"], [["bm25", "0.1234"], ["dense", "0.25"]]))
    system    mean
    bm25    0.1234
    dense     0.25
    """
    cells = [[str(c) for c in header]] + [[str(c) for c in row] for row in rows]
    n = len(cells[0])
    align = align or "l" + "r" * (n - 1)
    widths = [max(len(r[i]) for r in cells) for i in range(n)]
    lines = ["  ".join(c.ljust(w) if a == "l" else c.rjust(w)
                       for c, w, a in zip(r, widths, align, strict=True)).rstrip()
             for r in cells]
    return "\n".join(lines)


def frame_text(frame, *, index=True, digits=DIGITS, formats=None) -> str:
    """A DataFrame as a :func:`text_table`: floats in :func:`fixed` ``digits`` (or
    ``formats[column]``, a function of the value), text left-aligned, numbers right.

    >>> import pandas as pd
    >>> print(frame_text(pd.DataFrame({"mean": [0.5, 0.25]}, index=pd.Index(["a", "b"],
    ...                                                                     name="run"))))
    run    mean
    a    0.5000
    b    0.2500
    """
    formats = formats or {}
    cols = list(frame.columns)
    heads = ([frame.index.name or ""] if index else []) + [str(c) for c in cols]

    def cell(c, v):
        if c in formats:
            return formats[c](v)
        if isinstance(v, float | np.floating):
            return fixed(v, digits)
        return str(v)

    rows, align = [], ("l" if index else "")
    align += "".join("r" if frame[c].dtype.kind in "fiub" else "l" for c in cols)
    for key, row in zip(frame.index, frame.itertuples(index=False), strict=True):
        rows.append(([str(key)] if index else []) + [cell(c, v) for c, v in zip(cols, row,
                                                                                  strict=True)])
    return text_table(heads, rows, align=align)


def columns_text(index_name, keys, columns, *, digits=DIGITS) -> str:
    """:func:`frame_text` of a frame given as ``keys`` (its index) and ``columns``
    (``{name: 1-d numpy array}``): the same text, without a DataFrame.

    >>> print(columns_text("run", ["a", "b"], {"mean": np.array([0.5, 0.25])}))
    run    mean
    a    0.5000
    b    0.2500
    """
    heads = [index_name or ""] + [str(c) for c in columns]
    arrays = [np.asarray(v) for v in columns.values()]
    align = "l" + "".join("r" if a.dtype.kind in "fiub" else "l" for a in arrays)
    lists = [a.tolist() for a in arrays]  # Python scalars, as a frame's rows give them
    rows = [[str(key)] + [fixed(v, digits) if isinstance(v, float | np.floating) else str(v)
                          for v in values]
            for key, *values in zip(keys, *lists, strict=True)]
    return text_table(heads, rows, align=align)


def wrap(text, width=TEXT_WIDTH, prefix="") -> list:
    """Prose in lines of at most ``width`` characters, each starting with ``prefix``
    (``"# "`` for the notes of a command's output)."""
    return textwrap.wrap(text, width=width, initial_indent=prefix, subsequent_indent=prefix,
                         break_on_hyphens=False) or [prefix.rstrip()]


def letters(k) -> list:
    """``a, b, ..., z, aa, ab, ...``: short labels of ``k`` systems in text tables.

    >>> letters(3), letters(28)[-2:]
    (['a', 'b', 'c'], ['aa', 'ab'])
    """
    out = []
    for i in range(k):
        s = ""
        i += 1
        while i:
            i, r = divmod(i - 1, 26)
            s = chr(97 + r) + s
        out.append(s)
    return out


def latex_table(header, rows, align, caption, label) -> str:
    """A booktabs table with caption and label."""
    out = ["\\begin{table}", "\\centering", f"\\begin{{tabular}}{{{align}}}", "\\toprule",
           " & ".join(latex_escape(h) for h in header) + " \\\\", "\\midrule"]
    out += [" & ".join(latex_cell(c) for c in row) + " \\\\" for row in rows]
    out += ["\\bottomrule", "\\end{tabular}", f"\\caption{{{latex_escape(caption)}}}",
            f"\\label{{{label}}}", "\\end{table}"]
    return "\n".join(out) + "\n"


def interval_text(low, high, fmt="+.3f") -> str:
    """``[low, high]``, an infinite end written open: ``(-∞, 0.120]``; an end that is 0 up
    to rounding is written without a minus sign.

    >>> interval_text(-0.1, 0.2), interval_text(-math.inf, 0.12), interval_text(-1e-9, 0.5)
    ('[-0.100, +0.200]', '(-∞, +0.120]', '[+0.000, +0.500]')
    """
    left = "(-∞" if low == -math.inf else f"[{_number(low, fmt)}"
    right = "∞)" if high == math.inf else f"{_number(high, fmt)}]"
    return f"{left}, {right}"


def _number(x, fmt) -> str:
    """``format(x, fmt)`` without a negative zero (``-0.000`` is written ``0.000``)."""
    x = float(x)
    s = format(x, fmt)
    if x < 0 and s.lstrip("-+").strip("0.") == "":
        s = format(0.0, fmt)
    return s


def interval_cell(low, high, digits=DIGITS) -> str:
    """A table cell ``[low, high]`` in :func:`fixed` digits; an infinite end written open.

    A finite interval never shows ``inf``; a one-sided or step-down compatible
    interval shows its open end as ``(-∞`` or ``∞)`` (typeset ``$-\\infty$`` and
    ``$\\infty$`` by :func:`latex_cell`).

    >>> interval_cell(-0.12153, 0.02671), interval_cell(-math.inf, 0.0)
    ('[-0.1215, 0.0267]', '(-∞, 0.0000]')
    >>> interval_cell(0.2, math.inf, digits=2)
    '[0.20, ∞)'
    """
    left = "(-∞" if low == -math.inf else f"[{fixed(low, digits)}"
    right = "∞)" if high == math.inf else f"{fixed(high, digits)}]"
    return f"{left}, {right}"
