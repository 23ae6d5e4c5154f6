"""The documentation's generated parts cover the package (fast: nothing is built here).

The site itself is built by ``sphinx-build -W -b html docs docs/_build/html`` (in CI,
after the default test run) and opened in headless Chromium by
``tests/test_docs_site.py``. These tests check the generators the build uses, on the
current code: every public name gets an API page, every command and option a row of
the CLI reference, every plot function a figure in the gallery, every ``InputError``
message a row of the errors page. They need the ``docs`` extra (Sphinx), and skip
without it.
"""

from __future__ import annotations

import ast
import re
import sys
import types
from pathlib import Path

import pytest

pytest.importorskip("sphinx")

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS / "_ext"))

import mrrstats_docs  # noqa: E402

import mrrstats  # noqa: E402


def test_every_public_name_is_listed_for_an_api_page():
    files = mrrstats_docs.api_sources()
    listed = {}
    for text in files.values():
        module = "mrrstats"
        for line in text.splitlines():
            if line.startswith(".. currentmodule:: "):
                module = line.split()[-1]
            elif line.startswith("   ") and not line.strip().startswith(":") and \
                    re.fullmatch(r"   [A-Za-z_][A-Za-z0-9_]*", line):
                listed.setdefault(module, set()).add(line.strip())
    top = {n for n in mrrstats.__all__ if not isinstance(getattr(mrrstats, n), types.ModuleType)}
    assert top <= listed["mrrstats"], sorted(top - listed["mrrstats"])
    modules = [n for n in mrrstats.__all__ if isinstance(getattr(mrrstats, n), types.ModuleType)]
    for name in modules:
        dotted = f"mrrstats.{name}"
        want = set(getattr(mrrstats, name).__all__)
        assert want <= listed.get(dotted, set()), (dotted, sorted(want - listed.get(dotted, set())))
    # and the build checks the same list against what it documented
    expected = set(mrrstats_docs.expected_objects())
    assert {f"mrrstats.{n}" for n in top} <= expected
    assert {f"mrrstats.{m}" for m in modules} <= expected


def test_every_name_is_in_exactly_one_group():
    groups = mrrstats_docs.api_groups()
    seen = [n for modules in groups.values() for names in modules.values() for n in names]
    assert len(seen) == len(set(seen))
    assert "stats" in groups and "evaluate" in groups["metrics"][
        mrrstats.evaluate.__module__]


def test_result_classes_link_from_numpydoc_types():
    aliases = mrrstats_docs.xref_aliases()
    assert aliases["Evaluation"] == "mrrstats.Evaluation"
    assert "evaluate" not in aliases  # functions are not types


def test_gallery_draws_every_plot_function():
    text = (DOCS / "teaching" / "gallery.rst").read_text(encoding="utf-8")
    functions = mrrstats_docs.plot_functions()
    assert "rr_histogram" in functions and "style_context" not in functions
    assert mrrstats_docs.gallery_missing(text) == []
    # the check can fail: a gallery without one plot is caught
    assert mrrstats_docs.gallery_missing(text.replace("mp.rank_credit(", "")) == ["rank_credit"]


def test_cli_reference_has_every_command_and_option():
    from mrrstats.cli import _COMMANDS

    commands = mrrstats_docs.cli_commands()
    assert list(commands) == list(_COMMANDS)
    for name, parser in commands.items():
        rows = {r[0].split()[0].rstrip(",") for r in mrrstats_docs._option_rows(parser)}
        for action in parser._actions:
            if action.help in ("==SUPPRESS==",) or not action.option_strings:
                continue
            if action.option_strings[0] in ("-h", "--help"):
                continue
            assert action.option_strings[0] in rows, (name, action.option_strings)


def test_errors_page_lists_every_input_error():
    found = mrrstats_docs.input_errors()
    modules = {m for m, _, _ in found}
    assert "mrrstats.io.trec" in modules
    # every call site with a literal message is found (counted independently here)
    calls = 0
    for path in (ROOT / "mrrstats").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id == "InputError" and node.args and isinstance(
                        node.args[0], ast.Constant | ast.JoinedStr):
                calls += 1
    assert len(found) == calls
    assert all("{" not in m or "}" in m for _, _, m in found)


def test_layout_lists_every_module():
    names = {d for d, _ in mrrstats_docs.package_modules()}
    assert {"mrrstats.stats", "mrrstats.io", "mrrstats.glossary"} <= names
    text = mrrstats_docs.layout_rst()
    assert ".. py:module:: mrrstats.stats" in text
    assert ".. py:module:: mrrstats.glossary" not in text  # it has its own page


def test_readme_shows_the_build_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "sphinx-build -W -b html docs docs/_build/html" in readme
    assert '".[docs]"' in readme


def test_plain_python_blocks_of_the_pages_run(tmp_path, monkeypatch):
    """Python blocks the build does not execute (```python, not {code-cell}) run too
    (a ```{code-block} python block is shown only: it needs a cluster of its own)."""
    monkeypatch.chdir(tmp_path)
    pages = [p for p in DOCS.rglob("*.md") if "_build" not in p.parts]
    blocks = {p: re.findall(r"```python\n(.*?)```", p.read_text(encoding="utf-8"), flags=re.S)
              for p in pages}
    assert blocks[DOCS / "index.md"], "the home page shows a Python example"
    for page, codes in blocks.items():
        namespace: dict = {"__name__": "__docs__"}
        for code in codes:
            exec(compile(code, str(page), "exec"), namespace)  # noqa: S102 - our own pages


def test_search_excerpts_of_a_page():
    # _ext/mrrstats_site.py: the excerpt the search page shows under a result (the
    # first paragraph of the page, of the section or anchor it points to)
    import mrrstats_site
    from docutils.core import publish_doctree

    doctree = publish_doctree(
        "Title\n=====\n\nThe lead of the page.\n\n"
        "A section\n---------\n\n+---+\n| x |\n+---+\n\nAfter the table.\n\n"
        ".. _a-label:\n\nThe labelled paragraph " + "word " * 80 + "\n",
        settings_overrides={"report_level": 5, "doctitle_xform": False})  # as Sphinx
    got = mrrstats_site.excerpts(doctree)
    assert got[""] == "The lead of the page."
    assert got["#a-section"] == "After the table."  # not the table's cell
    assert got["#a-label"].startswith("The labelled paragraph word")
    assert got["#a-label"].endswith(" …")
    assert len(got["#a-label"]) <= mrrstats_site.EXCERPT_CHARS + 2
