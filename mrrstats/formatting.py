r"""How numbers are written, in one place: tables, LaTeX, JSON, the command line, reports.

Deterministic (fixed digits, no locale), so a report regenerates byte for byte.

Examples
--------
>>> from mrrstats.formatting import fixed, pvalue_text, latex_escape, json_number
>>> fixed(0.123456), fixed(-0.00001), fixed(float("nan"))
('0.1235', '0.0000', '--')
>>> pvalue_text(0.0312), pvalue_text(2.5e-5)
('0.031', '2.5e-05')
>>> latex_escape("org_bm25 & 10%")
'org\\_bm25 \\& 10\\%'
>>> json_number(float("inf")) is None, json_number(3)
(True, 3)
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["DIGITS", "fixed", "pvalue_text", "percent", "json_number", "latex_escape",
           "latex_cell", "markdown_table", "latex_table", "interval_text", "interval_cell"]

#: Decimals of every mean, difference and interval end in tables.
DIGITS = 4

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


def pvalue_text(p) -> str:
    """p-value: 3 decimals, or 2 significant digits in scientific notation below 0.001."""
    if p is None:
        return "--"
    p = float(p)
    if not math.isfinite(p):
        return "--"
    return f"{p:.3f}" if p >= 0.001 else f"{p:.1e}"


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
    """A table cell: escaped, with a typeset minus sign and infinity."""
    s = str(s)
    if s.startswith("-") and s[1:2].isdigit():
        return "$-$" + s[1:]
    return latex_escape(s).replace("-∞", r"$-\infty$").replace("∞", r"$\infty$")


def markdown_table(header, rows, align, caption) -> str:
    """Pipe table; ``align`` is a string of ``'l'``/``'r'``, one per column."""
    esc = [[str(c).replace("|", "\\|") for c in row] for row in rows]
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join(":--" if a == "l" else "--:" for a in align) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in esc]
    return "\n".join(lines) + "\n\n" + caption + "\n"


def latex_table(header, rows, align, caption, label) -> str:
    """A booktabs table with caption and label."""
    out = ["\\begin{table}", "\\centering", f"\\begin{{tabular}}{{{align}}}", "\\toprule",
           " & ".join(latex_escape(h) for h in header) + " \\\\", "\\midrule"]
    out += [" & ".join(latex_cell(c) for c in row) + " \\\\" for row in rows]
    out += ["\\bottomrule", "\\end{tabular}", f"\\caption{{{latex_escape(caption)}}}",
            f"\\label{{{label}}}", "\\end{table}"]
    return "\n".join(out) + "\n"


def interval_text(low, high, fmt="+.3f") -> str:
    """``[low, high]``, an infinite end written open: ``(-∞, 0.120]``.

    >>> interval_text(-0.1, 0.2), interval_text(-math.inf, 0.12)
    ('[-0.100, +0.200]', '(-∞, +0.120]')
    """
    left = "(-∞" if low == -math.inf else f"[{low:{fmt}}"
    right = "∞)" if high == math.inf else f"{high:{fmt}}]"
    return f"{left}, {right}"


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
