"""The ``if TYPE_CHECKING:`` imports of each lazily loaded package, against its ``_attach`` table.

A lazily loaded package (:mod:`mrrstats.lazy`) lists its public names in a table read at
run time; type checkers cannot run it, so each such ``__init__.py`` also imports the same
names under ``if TYPE_CHECKING:`` (never executed). :func:`checked_names` reads that block
(its AST) and :func:`table_names` the table (at run time); ``tests/test_typing.py``
asserts they agree. ``python tests/_typing/lazy_names.py`` prints the block a package
should have, generated from its table (``ruff check --fix`` then orders it as isort does).
"""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

#: Every package of mrrstats whose ``__init__`` uses :func:`mrrstats.lazy.attach`.
LAZY_PACKAGES = ("mrrstats", "mrrstats.agreement", "mrrstats.baselines", "mrrstats.io",
                 "mrrstats.metrics", "mrrstats.model", "mrrstats.report", "mrrstats.scale",
                 "mrrstats.stats")


def table_names(package: str) -> set[tuple[str, str]]:
    """``{(module, name)}`` of the package's ``_attach`` table (modules relative: ``.stats``)."""
    module = importlib.import_module(package)
    out = {(mod[len(package):], attr) for mod, attr in module.__dict__["__lazy_attrs__"].values()}
    out |= {(".", name) for name in module.__dict__["__lazy_submodules__"]}
    return out


def checked_names(package: str) -> set[tuple[str, str]]:
    """``{(module, name)}`` imported under ``if TYPE_CHECKING:`` in the package's ``__init__``."""
    path = Path(importlib.import_module(package).__file__ or "")
    out: set[tuple[str, str]] = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for stmt in node.body:
                if isinstance(stmt, ast.ImportFrom) and stmt.level == 1:
                    mod = "." + (stmt.module or "")
                    out |= {(mod, alias.asname or alias.name) for alias in stmt.names}
    return out


def block(package: str) -> str:
    """The ``if TYPE_CHECKING:`` block for ``package``, from its table."""
    by_module: dict[str, list[str]] = {}
    for mod, name in sorted(table_names(package)):
        by_module.setdefault(mod, []).append(name)
    lines = ["if TYPE_CHECKING:  # the names of the table above, for type checkers"]
    for mod, names in by_module.items():
        mod = "" if mod == "." else mod
        text = f"    from .{mod.lstrip('.')} import "
        if len(text) + len(", ".join(names)) <= 99:
            lines.append(text + ", ".join(names))
            continue
        lines += [text + "(", *(f"        {name}," for name in names), "    )"]
    return "\n".join(lines)


if __name__ == "__main__":
    for package in sys.argv[1:] or LAZY_PACKAGES:
        print(f"# {package}\n{block(package)}\n")
