"""Sphinx extension for the mrrstats documentation: the pages generated from the code.

* The API lists: ``docs/api/*.rst`` are written before each build from
  ``mrrstats.__all__`` (grouped by the sub-package that defines each name) and from
  the ``__all__`` of the public modules (:data:`PUBLIC_MODULES`); autosummary then
  writes one page per name. Nothing is listed by hand, so a new public function
  gets its page by being exported.
* The coverage check: after reading, every public name must be a documented Python
  object; a missing one is a build warning (an error under ``-W``).
* Directives that render the one source of a fact: ``mrrstats-glossary``
  (:func:`mrrstats.glossary.glossary_rst`), ``mrrstats-cli`` (every command and
  option of :func:`mrrstats.cli.build_parser`, with each command's ``--example``
  run at build time), ``mrrstats-input-errors`` (every ``InputError`` the source
  raises, found by walking its syntax tree) and ``mrrstats-defaults``.
* MathJax: jupyter-server-mathjax's MathJax 2.7 is copied into the built site.

The functions here are plain Python so that ``tests/test_docs.py`` can check them
without building the site.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import io
import shlex
import shutil
import sys
import types
from collections import OrderedDict
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive, directives
from docutils.statemachine import StringList
from sphinx.util import logging

logger = logging.getLogger(__name__)

#: Public modules with their own ``__all__`` and an API page (``mrrstats.<name>``):
#: the modules in ``mrrstats.__all__`` plus these.
EXTRA_MODULES = ("scale", "glossary", "defaults", "cli")

#: Page titles of the sub-packages, in the order of the reference.
GROUP_TITLES = OrderedDict([
    ("io", "Reading data"),
    ("model", "The data model"),
    ("metrics", "Per-query metrics"),
    ("baselines", "Random-ranking baselines and link prediction"),
    ("stats", "Significance, intervals and many systems"),
    ("agreement", "MRR against other measures"),
    ("report", "Reports and plots"),
    ("scale", "Scale"),
    ("errors", "Errors"),
])


# -- what is public -------------------------------------------------------------------
def _mrrstats():
    import mrrstats

    return mrrstats


def public_modules() -> list[str]:
    """Dotted names of the public modules that get an API page of their own."""
    m = _mrrstats()
    names = [n for n in m.__all__ if isinstance(getattr(m, n), types.ModuleType)]
    names += [n for n in EXTRA_MODULES if n not in names]
    for n in names:
        # ``mrrstats.blocked`` is ``mrrstats.stats.blocked`` reached as an attribute:
        # autodoc imports it under the name users write.
        module = getattr(m, n, None) or importlib.import_module(f"mrrstats.{n}")
        sys.modules.setdefault(f"mrrstats.{n}", module)
    return [f"mrrstats.{n}" for n in names]


def defining_module(name: str, obj) -> str:
    """The module (``mrrstats.x.y``) that defines a top-level public name."""
    mod = getattr(obj, "__module__", None)
    if isinstance(mod, str) and mod.startswith("mrrstats") and not isinstance(
            obj, types.ModuleType):
        return mod
    # data (tuples, constants): the deepest module whose __all__ exports the same object
    best = "mrrstats"
    for modname, module in list(sys.modules.items()):
        if not modname.startswith("mrrstats.") or module is None:
            continue
        if name in getattr(module, "__all__", ()) and getattr(module, name, None) is obj:
            if modname.count(".") > best.count("."):
                best = modname
    return best


def api_groups() -> OrderedDict:
    """``{sub-package: {module: [names]}}`` for every name in ``mrrstats.__all__``
    that is not a module, in the order of ``__all__`` within a module."""
    m = _mrrstats()
    found: dict = {}
    for name in m.__all__:
        obj = getattr(m, name)
        if isinstance(obj, types.ModuleType):
            continue
        module = defining_module(name, obj)
        parts = module.split(".")
        group = parts[1] if len(parts) > 1 else "errors"
        found.setdefault(group, OrderedDict()).setdefault(module, []).append(name)
    order = list(GROUP_TITLES) + sorted(g for g in found if g not in GROUP_TITLES)
    return OrderedDict((g, found[g]) for g in order if g in found)


def module_names(dotted: str) -> list[str]:
    """The public names of a public module (its ``__all__``)."""
    module = importlib.import_module(dotted)
    return list(getattr(module, "__all__", ()))


def expected_objects() -> list[str]:
    """Every fully qualified name the reference must document."""
    m = _mrrstats()
    out = [f"mrrstats.{n}" for n in m.__all__
           if not isinstance(getattr(m, n), types.ModuleType)]
    for dotted in public_modules():
        out.append(dotted)
        out += [f"{dotted}.{n}" for n in module_names(dotted)]
    return out


def xref_aliases() -> dict:
    """numpydoc type aliases: each public class name -> its documented path."""
    m = _mrrstats()
    return {n: f"mrrstats.{n}" for n in m.__all__ if isinstance(getattr(m, n), type)}


def _first_sentence(doc: str | None) -> str:
    text = (doc or "").strip().split("\n\n")[0].replace("\n", " ").strip()
    return text.split(". ")[0].rstrip(".").replace("``", "").replace(":func:", "")


# -- writing the API sources ----------------------------------------------------------
def _write(path: Path, text: str) -> None:
    """Write only when the text changed (an unchanged page is not read again)."""
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _autosummary(names, module="mrrstats") -> list[str]:
    return [f".. currentmodule:: {module}", "", ".. autosummary::", "   :toctree: generated/",
            "", *[f"   {n}" for n in names], ""]


def api_sources() -> dict:
    """``{file name under docs/api: rst text}`` of the reference."""
    files = {}
    groups = api_groups()
    toc = []
    for group, modules in groups.items():
        title = GROUP_TITLES.get(group)
        package = importlib.import_module(f"mrrstats.{group}") if group != "errors" else None
        if title is None:
            title = _first_sentence(package.__doc__) or f"mrrstats.{group}"
        lines = [title, "=" * len(title), ""]
        if package is not None and package.__doc__:
            lines += [f"Defined in :mod:`mrrstats.{group}`; every name below is imported "
                      "from ``mrrstats``.", ""]
        for module, names in modules.items():
            if len(modules) > 1:
                doc = _first_sentence(importlib.import_module(module).__doc__) or module
                lines += [doc, "-" * len(doc), ""]
            lines += _autosummary(names)
        files[f"{group}.rst"] = "\n".join(lines)
        toc.append(group)
    for dotted in public_modules():
        title = f"``{dotted}``"
        lines = [title, "=" * len(title), "", f".. automodule:: {dotted}", "   :no-members:",
                 ""]
        lines += _autosummary(module_names(dotted), module=dotted)
        files[f"{dotted}.rst"] = "\n".join(lines)
        toc.append(dotted)
    files["layout.rst"] = layout_rst()
    toc.append("layout")
    index = ["API reference", "=============", "",
             "Every public name of mrrstats, one page each, generated from its docstring. "
             "Everything in the first part is imported from the top level "
             "(``import mrrstats; mrrstats.evaluate(...)``); the modules in the second part "
             "are used through their module (``mrrstats.plots.rr_histogram``).", "",
             ".. toctree::", "   :maxdepth: 1", "   :caption: Functions and classes", "",
             *[f"   {g}" for g in groups], "", ".. toctree::", "   :maxdepth: 1",
             "   :caption: Modules", "", *[f"   {d}" for d in public_modules()], "",
             ".. toctree::", "   :maxdepth: 1", "   :caption: How the code is laid out", "",
             "   layout", ""]
    files["index.rst"] = "\n".join(index)
    return files


def package_modules() -> list[tuple[str, str]]:
    """``(dotted name, docstring)`` of every module of the package, read from the files
    (nothing is imported, so modules that need optional packages are listed too)."""
    root = Path(_mrrstats().__file__).parent
    out = []
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if any(p.startswith("_") and p != "__main__" for p in parts) or "__main__" in parts:
            continue
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        out.append((".".join(("mrrstats", *parts)), doc))
    return out


def layout_rst() -> str:
    """The package's modules, each with the first paragraph of its docstring; every
    module other than the public ones (which have their own page) is registered here,
    so that ``:mod:`` references from the docstrings resolve."""
    public = set(public_modules())
    lines = ["How the code is laid out", "========================", "",
             "Every module of the package and what it holds (the first paragraph of its "
             "docstring). Use the names on the other pages of the reference: the modules "
             "below are where they are defined, and their other names are internal.", ""]
    for dotted, doc in package_modules():
        if dotted in public or dotted == "mrrstats":
            continue
        first = " ".join(doc.strip().split("\n\n")[0].split())
        lines += [f".. py:module:: {dotted}", "", f"``{dotted}``", "   " + (
            _plain(first) or "(no docstring)"), ""]
    return "\n".join(lines)


def _plain(text: str) -> str:
    """Docstring text without roles (a summary must not add references of its own)."""
    import re

    return re.sub(r":[a-z]+:`~?([^`]+)`", r"``\1``", text)


def write_api_sources(app, config=None) -> None:
    folder = Path(app.srcdir) / "api"
    files = api_sources()
    for name, text in files.items():
        _write(folder / name, text)
    for stale in folder.glob("*.rst"):
        if stale.name not in files:
            stale.unlink()
    # pages autosummary wrote for names that are no longer public
    expected = set(expected_objects())
    for stale in (folder / "generated").glob("*.rst"):
        if stale.stem not in expected:
            stale.unlink()


# -- the notebooks ----------------------------------------------------------------------
def copy_notebooks(app, config=None) -> None:
    """Copy ``notebooks/*.ipynb`` (stored without outputs) to ``docs/teaching/notebooks/``,
    where myst-nb executes them (cached) and renders them with their figures."""
    source = Path(app.srcdir).parent / "notebooks"
    target = Path(app.srcdir) / "teaching" / "notebooks"
    names = set()
    for nb in sorted(source.glob("*.ipynb")):
        names.add(nb.name)
        _write(target / nb.name, nb.read_text(encoding="utf-8"))
    for stale in target.glob("*.ipynb"):
        if stale.name not in names:
            stale.unlink()


def plot_functions() -> list[str]:
    """The drawing functions of :mod:`mrrstats.plots`: those with an ``ax`` parameter."""
    import inspect

    from mrrstats import plots

    return [n for n in plots.__all__ if callable(getattr(plots, n)) and "ax" in
            inspect.signature(getattr(plots, n)).parameters]


def gallery_missing(text: str) -> list[str]:
    """Plot functions that no ``mp.<name>(`` call of the gallery page draws."""
    import re

    drawn = set(re.findall(r"\bmp\.([a-z_]+)\(", text))
    return [n for n in plot_functions() if n not in drawn]


def check_gallery(app, env) -> None:
    page = Path(app.srcdir) / "teaching" / "gallery.rst"
    for name in gallery_missing(page.read_text(encoding="utf-8")):
        logger.warning("mrrstats.plots.%s is missing from the gallery (teaching/gallery.rst)",
                       name, type="mrrstats", subtype="gallery")


# -- the coverage check ----------------------------------------------------------------
def missing_objects(env) -> list[str]:
    documented = set(env.get_domain("py").objects)
    documented |= {f"{k}" for k in env.domaindata.get("py", {}).get("modules", {})}
    return [n for n in expected_objects() if n not in documented]


def check_coverage(app, env) -> None:
    missing = missing_objects(env)
    for name in missing:
        logger.warning("public name %s has no page in the API reference", name,
                       type="mrrstats", subtype="coverage")
    n = len(expected_objects())
    logger.info("mrrstats API coverage: %d of %d public names documented", n - len(missing),
                n)


# -- references to names that live in internal modules --------------------------------
def _lookup(dotted: str):
    """The object at a dotted path under ``mrrstats`` (module, then attributes), or a
    sentinel when there is none."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except Exception:  # noqa: BLE001 - not a module at this depth
            continue
        try:
            for attr in parts[i:]:
                obj = getattr(obj, attr)
        except AttributeError:
            if len(parts) - i == 2 and isinstance(obj, type) and parts[-1] in getattr(
                    obj, "__dataclass_fields__", {}):
                return obj, ".".join(parts[:i])   # a dataclass field: its class
            return _MISSING, None
        return obj, ".".join(parts[:i])
    return _MISSING, None


_MISSING = object()


def _public_names() -> dict:
    """``id(object) -> documented public name``, for re-exported objects."""
    out = {}
    for name in expected_objects():
        obj, _ = _lookup(name)
        if obj is not _MISSING and not isinstance(obj, str | int | float | tuple | dict):
            out.setdefault(id(obj), name)
    return out


def _context_modules(docname: str) -> list[str]:
    """Modules whose names a page's docstrings may use unqualified: the defining module
    of the object a generated page documents, or the modules of a group page."""
    stem = docname.rsplit("/", 1)[-1]
    if docname.startswith("api/generated/"):
        obj, _ = _lookup(stem)
        if obj is _MISSING:
            return []
        module = getattr(obj, "__module__", None) or getattr(obj, "__name__", None)
        return [module] if isinstance(module, str) else []
    if docname.startswith("api/"):
        return [m for m, _ in package_modules() if m.startswith(f"mrrstats.{stem}.")
                or m == f"mrrstats.{stem}"]
    return []


def resolve_internal(app, env, node, contnode):
    """Resolve a Python reference the domain could not: a public object under another
    path (``mrrstats.stats.x.f`` for ``mrrstats.f``) links to its page; an attribute
    of a documented class (``MultiverseResult.systems``) to the class; a name of an
    internal module (``mrrstats.model.scoretable.as_score_table``) to that module's
    entry in the package layout. A name that does not exist stays unresolved (and
    fails the build under ``-n -W``)."""
    from sphinx.util.nodes import make_refnode

    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"].lstrip("~.")
    mod, cls = node.get("py:module"), node.get("py:class")
    candidates = [target]
    if not target.startswith("mrrstats"):
        if mod and cls:
            candidates.append(f"{mod}.{cls}.{target}")
        if mod:
            candidates.append(f"{mod}.{target}")
        # a short name in a docstring means a name of the module that defines it, or a
        # public name of the package
        candidates += [f"{m}.{target}" for m in _context_modules(node["refdoc"])]
        candidates.append(f"mrrstats.{target}")
    domain = env.get_domain("py")
    public = env.temp_data.setdefault("mrrstats_public", None) or _public_names()
    env.temp_data["mrrstats_public"] = public
    for full in candidates:
        if not full.startswith("mrrstats"):
            continue
        obj, module = _lookup(full)
        if obj is _MISSING:
            continue
        name = public.get(id(obj))
        if name in domain.objects:
            entry = domain.objects[name]
            return make_refnode(app.builder, node["refdoc"], entry.docname, entry.node_id,
                                contnode, name)
        owner = full.rsplit(".", 1)[0]
        owner_obj, _ = _lookup(owner)
        owner_name = public.get(id(owner_obj))
        if isinstance(owner_obj, type) and owner_name in domain.objects:
            entry = domain.objects[owner_name]
            return make_refnode(app.builder, node["refdoc"], entry.docname, entry.node_id,
                                contnode, full)
        if module in domain.modules:
            entry = domain.modules[module]
            return make_refnode(app.builder, node["refdoc"], entry.docname, entry.node_id,
                                contnode, full)
    return None


# -- directives ----------------------------------------------------------------------
class _RstDirective(Directive):
    """A directive that renders reStructuredText made by :meth:`text`."""

    has_content = False

    def text(self) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

    def run(self):
        from sphinx.util.nodes import nested_parse_with_titles

        node = nodes.container()
        lines = self.text().splitlines()
        source = f"<{self.name}>"
        nested_parse_with_titles(self.state, StringList(lines, source=source), node,
                                 self.content_offset)
        return node.children


class GlossaryDirective(_RstDirective):
    def text(self):
        from mrrstats.glossary import glossary_rst

        return glossary_rst()


def _option_rows(parser) -> list[tuple]:
    import argparse

    rows = []
    for action in parser._actions:  # argparse keeps them nowhere public
        if action.help == argparse.SUPPRESS or isinstance(action, argparse._HelpAction):
            continue
        if action.option_strings:
            metavar = action.metavar or (action.dest.upper() if action.nargs != 0 else "")
            if action.choices and not action.metavar:
                metavar = "{" + ",".join(map(str, action.choices)) + "}"
            name = ", ".join(action.option_strings) + (f" {metavar}" if metavar else "")
        else:
            name = action.metavar or action.dest
        default = action.default
        shown = "" if default in (None, False, argparse.SUPPRESS) or action.nargs == 0 \
            else repr(default)
        rows.append((name, (action.help or "").replace("%(default)s", str(default)), shown))
    return rows


def cli_commands() -> OrderedDict:
    """``{command: subparser}`` of :func:`mrrstats.cli.build_parser`."""
    import argparse

    from mrrstats.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return OrderedDict(sub.choices.items())


#: Options added to each command's ``--example`` run in the CLI reference (fewer
#: resamples, so that the documentation builds in CI's time).
EXAMPLE_OPTIONS = {"baseline": "--n-resamples 999 --seed 1", "compare": "--n-resamples 999 "
                   "--seed 1", "agreement": "--n-resamples 999 --seed 1",
                   "multiverse": "--ties trec_eval pessimistic --cutoffs none 10 "
                   "--empty-targets neg --seed 1",
                   "leaderboard": "--n-resamples 999 --seed 1",
                   "estimate": "--n-resamples 999 --seed 1",
                   "unpaired": "--n-resamples 999 --seed 1",
                   "sampled": "--n-resamples 199 --seed 1",
                   "ppi": "--n-resamples 999 --seed 1",
                   "judges": "--n-resamples 999 --seed 1 --test t"}
#: Commands whose example writes files rather than printing: shown, not run here.
EXAMPLE_NOT_RUN = {"report": "--out reports/cast2021"}


def run_example(command: str) -> tuple[str, str]:
    """The command line of a command's ``--example`` and what it prints."""
    from mrrstats.cli import main

    extra = EXAMPLE_OPTIONS.get(command, "")
    line = f"mrrstats {command} --example {extra}".strip()
    if command in EXAMPLE_NOT_RUN:
        return f"{line} {EXAMPLE_NOT_RUN[command]}", ""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(shlex.split(line)[1:])
    if code != 0:
        raise RuntimeError(f"`{line}` exited with {code}: {err.getvalue()}")
    return line, out.getvalue()


def cli_rst() -> str:
    from mrrstats.cli import _COMMANDS, build_parser

    top = build_parser()
    lines = ["The ``mrrstats`` command is installed with the package (``python -m mrrstats`` "
             "works too). Every command takes ``--example`` (the bundled TREC CAsT 2021 runs); "
             "the output shown under each command is that example, run when this page was "
             "built. Bad input ends with exit code 2 and one line naming the file, the line "
             "and the problem (see :doc:`errors`).", "", "::", "",
             *["   " + s for s in top.format_usage().strip().splitlines()], ""]
    for name, parser in cli_commands().items():
        module = importlib.import_module(_COMMANDS[name])  # critical-difference: cli.critical
        title = f"mrrstats {name}"
        lines += [f".. _cli-{name}:", "", title, "-" * len(title), "", parser.description or "",
                  ""]
        doc = (module.__doc__ or "").strip().split("\n\n", 1)
        if len(doc) == 2:
            lines += [doc[1], ""]
        lines += ["::", "", *["   " + s for s in parser.format_usage().strip().splitlines()], ""]
        lines += [".. list-table::", "   :header-rows: 1", "   :widths: 30 55 15", "",
                  "   * - option", "     - meaning", "     - default"]
        for opt, help_, default in _option_rows(parser):
            lines += [f"   * - ``{opt}``", f"     - {_escape(help_) or '--'}",
                      f"     - ``{default}``" if default else "     - --"]
        line, out = run_example(name)
        lines += ["", "Example:", "", ".. code-block:: text", "", f"   $ {line}"]
        lines += ["   " + s if s.strip() else "" for s in out.rstrip().splitlines()]
        lines += [""]
    return "\n".join(lines)


def _escape(text: str) -> str:
    return text.replace("*", r"\*").replace("`", r"\`").replace("|", r"\|")


class CliDirective(_RstDirective):
    def text(self):
        return cli_rst()


# -- every InputError the source raises ------------------------------------------------
def _message(node) -> str:
    """The message template of an ``InputError(...)`` call: f-string fields as ``{...}``."""
    if not node.args:
        return ""
    arg = node.args[0]
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value
    if isinstance(arg, ast.JoinedStr):
        out = []
        for part in arg.values:
            if isinstance(part, ast.Constant):
                out.append(str(part.value))
            else:
                out.append("{" + ast.unparse(part.value) + "}")
        return "".join(out)
    return "<" + ast.unparse(arg) + ">"


def input_errors(root: Path | None = None) -> list[tuple[str, int, str]]:
    """``(module, line, message template)`` of every ``raise InputError(...)`` in mrrstats."""
    root = Path(root or Path(_mrrstats().__file__).parent)
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(
                    node.func, "attr", None)) == "InputError":
                msg = _message(node)
                if msg and not msg.startswith("<"):
                    module = "mrrstats." + ".".join(path.relative_to(root).with_suffix(
                        "").parts).replace(".__init__", "")
                    found.append((module, node.lineno, " ".join(msg.split())))
    return found


class InputErrorsDirective(_RstDirective):
    """A table of every InputError message, for the modules given as arguments
    (prefixes; none: all), each with where it is raised."""

    optional_arguments = 20
    option_spec = {"exclude": directives.unchanged}

    def text(self):
        prefixes = tuple(self.arguments) or ("mrrstats",)
        exclude = tuple((self.options.get("exclude") or "").split())
        rows = [(m, line, msg) for m, line, msg in input_errors()
                if m.startswith(prefixes) and not (exclude and m.startswith(exclude))]
        seen, out = set(), [".. list-table::", "   :header-rows: 1", "   :widths: 70 30", "",
                            "   * - message (``{...}``: filled in with your data)",
                            "     - raised in"]
        for module, _line, msg in rows:
            if (module, msg) in seen:
                continue
            seen.add((module, msg))
            out += [f"   * - ``{msg}``", f"     - ``{module}``"]
        if len(out) == 6:
            out += ["   * - (none)", "     - --"]
        return "\n".join(out) + "\n"


class DefaultsDirective(_RstDirective):
    """The package-wide defaults of :mod:`mrrstats.defaults` with their values."""

    def text(self):
        from mrrstats import defaults

        out = [".. list-table::", "   :header-rows: 1", "   :widths: 30 30", "",
               "   * - name", "     - value"]
        for name in defaults.__all__:
            value = getattr(defaults, name)
            if callable(value) or isinstance(value, dict | tuple | list | set | frozenset):
                continue
            out += [f"   * - ``{name}``", f"     - ``{value!r}``"]
        return "\n".join(out) + "\n"


# -- MathJax ---------------------------------------------------------------------------
def copy_mathjax(app, exception) -> None:
    """Copy MathJax 2.7 (jupyter-server-mathjax's static folder) into the built site,
    at ``_static/mathjax/`` (``mathjax_path`` in conf.py)."""
    if exception is not None or app.builder.format != "html":
        return
    try:
        import jupyter_server_mathjax
    except ImportError:
        logger.warning("jupyter-server-mathjax is not installed: formulas will not render "
                       "offline (pip install -e '.[docs]')", type="mrrstats", subtype="mathjax")
        return
    source = Path(jupyter_server_mathjax.__file__).parent / "static"
    target = Path(app.outdir) / "_static" / "mathjax"
    if (target / "MathJax.js").is_file():
        return
    shutil.copytree(source, target, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("localization", "*.md", "unpacked"))


def own_types_only(app, config) -> None:
    """Drop numpydoc's built-in type aliases (``int`` -> ``python:int``, ...): they point
    into Python's and numpy's intersphinx inventories, which this build does not fetch,
    and would show as unresolved ``python:int``. With ``numpydoc_xref_ignore = "all"``
    those types are then plain text, and only our own types become links."""
    complete = getattr(config, "numpydoc_xref_aliases_complete", None)
    if complete is not None:
        own = config.numpydoc_xref_aliases
        for key in [k for k in complete if k not in own]:
            del complete[key]


def setup(app):
    app.connect("config-inited", own_types_only, priority=900)  # after numpydoc's
    # on config-inited: before Sphinx lists the source files (and autosummary reads them)
    app.connect("config-inited", write_api_sources)
    app.connect("config-inited", copy_notebooks)
    app.connect("env-check-consistency", check_coverage)
    app.connect("env-check-consistency", check_gallery)
    app.connect("build-finished", copy_mathjax)
    app.connect("missing-reference", resolve_internal)
    app.add_directive("mrrstats-glossary", GlossaryDirective)
    app.add_directive("mrrstats-cli", CliDirective)
    app.add_directive("mrrstats-input-errors", InputErrorsDirective)
    app.add_directive("mrrstats-defaults", DefaultsDirective)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
