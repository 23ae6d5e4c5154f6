"""The package layout keeps its rules: no import cycles between sub-packages, no private
name reached across sub-packages, imports inside functions only for heavy or optional
third-party modules (and, in a command of the command line, for what the command runs),
and every statistic takes score tables through the one coercion.

These are read from the source with ``ast`` (nothing is imported), so a violation names
the module and the line.
"""

from __future__ import annotations

import ast
import functools
from collections import defaultdict
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "mrrstats"

# Third-party modules that may be imported inside a function: optional extras (torch,
# dask, ...) and heavy ones that `import mrrstats` must not pay for (matplotlib,
# statsmodels, the notebook tooling). Everything else, and every mrrstats module, is
# imported at the top of the module.
LAZY_OK = {
    "matplotlib", "statsmodels", "nbformat", "nbclient", "nbconvert", "jupyter_client",
    "jinja2", "PIL", "torch", "cupy", "jax", "dask", "distributed", "duckdb", "polars",
    "ranx", "array_api_compat", "array_api_strict", "numba", "tqdm", "threadpoolctl",
    "pyarrow", "scipy", "importlib", "html", "subprocess", "tempfile", "shutil", "mpmath",
}


def _modules():
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG.parent).with_suffix("")
        parts = list(rel.parts)
        is_pkg = parts[-1] == "__init__"
        if is_pkg:
            parts = parts[:-1]
        package = parts if is_pkg else parts[:-1]
        yield ".".join(parts), package, path


def _subpackage(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else "<root>"


# (module, line) of the imports under ``if TYPE_CHECKING:`` (for annotations only: never
# executed, so they cannot make an import cycle)
TYPE_ONLY: set[tuple[str, int]] = set()


@functools.cache  # read when a test first needs it, not at collection (in every process)
def _imports():
    """(module, target module, imported names, line, inside a function?) of every import."""
    out = []
    for name, package, path in _modules():
        tree = ast.parse(path.read_text(), filename=str(path))
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}

        for node in ast.walk(tree):  # ``if TYPE_CHECKING:`` imports never run
            if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
                TYPE_ONLY.update((name, sub.lineno) for sub in ast.walk(node)
                                 if isinstance(sub, ast.Import | ast.ImportFrom))

        def in_function(node, parents=parents):
            while node in parents:
                node = parents[node]
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    return True
            return False

        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[: len(package) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                out.append((name, target, [a.name for a in node.names], node.lineno,
                            in_function(node)))
            elif isinstance(node, ast.Import):
                for a in node.names:
                    out.append((name, a.name, [], node.lineno, in_function(node)))
    return out


MODULES = {name for name, _, _ in _modules()}


def _resolve(target, names):
    """The mrrstats modules an import statement loads."""
    hits = []
    for n in names or [""]:
        full = f"{target}.{n}" if n else target
        hits.append(full if full in MODULES else target)
    return hits


def test_no_private_name_crosses_a_subpackage():
    bad = []
    for mod, target, names, line, _ in _imports():
        if not target.startswith("mrrstats"):
            continue
        for n in names:
            src = _subpackage(mod)
            dst = _subpackage(f"{target}.{n}" if f"{target}.{n}" in MODULES else target)
            if n.startswith("_") and not n.startswith("__") and src != dst:
                bad.append(f"{mod}:{line} imports {target}.{n}")
    assert not bad, "\n".join(bad)


def test_no_import_cycle_between_subpackages():
    graph = defaultdict(set)
    for mod, target, names, line, _ in _imports():
        if target.startswith("mrrstats") and (mod, line) not in TYPE_ONLY:
            for dst in _resolve(target, names):
                a, b = _subpackage(mod), _subpackage(dst)
                if a != b and "<root>" not in (a, b):
                    graph[a].add(b)
    cycles = []

    def visit(node, path):
        for nxt in sorted(graph[node]):
            if nxt == path[0]:
                cycles.append(" -> ".join(path + [nxt]))
            elif nxt not in path:
                visit(nxt, path + [nxt])

    for start in sorted(graph):
        visit(start, [start])
    assert not cycles, "\n".join(cycles)


def test_subpackages_do_not_import_the_top_level_package():
    bad = [f"{mod}:{line} imports {names} from the top-level package"
           for mod, target, names, line, _ in _imports()
           if target == "mrrstats" and mod != "mrrstats" and mod.count(".")
           and [n for n in names if n not in MODULES and f"mrrstats.{n}" not in MODULES]]
    assert not bad, "\n".join(bad)


# A command of the command line imports what it runs inside its functions, so that
# ``mrrstats --help`` and ``mrrstats CMD --help`` build the parser without numpy, pandas
# or the statistics (tests/test_lazy_import.py); its options read mrrstats.options.
CLI_LAZY_OK = {"mrrstats", "numpy", "pandas"}


def test_imports_inside_functions_only_for_heavy_or_optional_modules():
    bad = []
    for mod, target, names, line, inside in _imports():
        if not inside:
            continue
        top = target.split(".")[0]
        if mod.startswith("mrrstats.cli.") and top in CLI_LAZY_OK:
            continue
        if top == "mrrstats" or top not in LAZY_OK:
            bad.append(f"{mod}:{line} imports {target} {names} inside a function")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("module", ["stats.effects", "stats.pairwise", "stats.compare",
                                    "stats.power", "agreement.measures", "report.plots"])
def test_score_input_goes_through_the_one_coercion(module):
    path = PKG / module.replace(".", "/")
    files = sorted(path.glob("*.py")) if path.is_dir() else [path.with_suffix(".py")]
    src = "\n".join(f.read_text() for f in files)
    assert "as_score_table" in src, f"{module} does not use model.scoretable.as_score_table(s)"
    # the coercions each module had before the one engine (they are gone, not wrapped)
    for ad_hoc in ("def _matrix_values", "def _measure_frames"):
        assert ad_hoc not in src, f"{module} still defines its own coercion {ad_hoc!r}"


def test_renamed_public_names_still_work():
    import mrrstats

    with pytest.warns(DeprecationWarning, match="mrrstats.datasets"):
        assert mrrstats.examples is mrrstats.datasets
    from mrrstats.examples import trec7_scores  # the 0.1 import path
    from mrrstats.plots import rr_histogram  # noqa: F401

    assert trec7_scores is mrrstats.datasets.trec7_scores


def test_tests_mirror_the_package():
    """tests/<sub-package>/ holds the tests of mrrstats/<sub-package>/ (and nothing else);
    the files left at the top of tests/ are about the package as a whole."""
    tests = Path(__file__).resolve().parent
    subpackages = {p.name for p in PKG.iterdir() if (p / "__init__.py").exists()}
    folders = {p.name for p in tests.iterdir()  # tests/data: the reference data, no tests
               if p.is_dir() and not p.name.startswith("_") and p.name != "data"}
    assert folders <= subpackages, f"test folders without a sub-package: {folders - subpackages}"
    assert all((tests / f / "__init__.py").exists() for f in folders)
