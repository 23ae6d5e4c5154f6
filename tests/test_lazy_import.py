"""Cold start: ``import mrrstats`` and ``mrrstats --help`` load nothing heavy.

The package loads its public names when first used (SPEC 1, :mod:`mrrstats.lazy`).
Each check runs in a fresh interpreter (what is in ``sys.modules`` of the test process
says nothing), and checks that every public name still resolves to the object its
defining module holds, whatever the order of the imports, and that the deprecated
module paths still work. Timings are in ``benchmarks/bench_import.py``, not here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: What ``import mrrstats`` and ``mrrstats [CMD] --help`` must not load.
HEAVY = ("pandas", "scipy.stats", "statsmodels", "matplotlib", "pyarrow", "numba",
         "nbformat", "nbclient", "nbconvert")

#: The packages that export names lazily, and where the non-class, non-function public
#: names (tuples of allowed values) are defined.
PACKAGES = ("mrrstats", "mrrstats.agreement", "mrrstats.baselines", "mrrstats.io",
            "mrrstats.metrics", "mrrstats.model", "mrrstats.report", "mrrstats.scale",
            "mrrstats.stats")

_PRELUDE = f"""
import importlib, json, sys, types, warnings
HEAVY = {HEAVY!r}
def heavy():
    return sorted(m for m in HEAVY if m in sys.modules)
"""


def run_python(code: str) -> dict:
    """Run ``code`` in a fresh interpreter on this checkout; its last line of stdout is
    JSON (the code prints it)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", _PRELUDE + textwrap.dedent(code)], cwd=ROOT,
                         env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_loads_nothing_heavy():
    res = run_python("""
        import mrrstats
        cheap = [mrrstats.__version__, mrrstats.InputError.__name__]
        print(json.dumps({"heavy": heavy(), "cheap": cheap,
                          "loaded": sorted(m for m in sys.modules if m.startswith("mrrstats"))}))
    """)
    assert res["heavy"] == []
    assert res["cheap"][1] == "InputError"
    assert set(res["loaded"]) <= {"mrrstats", "mrrstats.errors", "mrrstats.lazy",
                                  "mrrstats.version"}


def test_submodules_are_reachable_as_attributes():
    """``import mrrstats`` then an attribute path to any module works, as when the
    package imported everything (it is imported then)."""
    res = run_python("""
        import mrrstats
        out = [type(mrrstats.glossary.GLOSSARY).__name__,
               mrrstats.stats.bootstrap.bootstrap_ci.__name__,
               mrrstats.metrics.evaluation.__name__,
               mrrstats.report.plots.style.__name__]
        try:
            mrrstats.stats.no_such_module
        except AttributeError as exc:
            out.append(str(exc))
        print(json.dumps(out))
    """)
    assert res == ["tuple", "bootstrap_ci", "mrrstats.metrics.evaluation",
                   "mrrstats.report.plots.style",
                   "module 'mrrstats.stats' has no attribute 'no_such_module'"]


def test_subpackages_load_nothing_heavy():
    res = run_python(f"""
        for name in {PACKAGES!r}:
            importlib.import_module(name)
        import mrrstats.stats.registry, mrrstats.options, mrrstats.defaults
        print(json.dumps({{"heavy": heavy()}}))
    """)
    assert res["heavy"] == []


def _packages():
    import importlib

    return [importlib.import_module(name) for name in PACKAGES]


def test_every_public_name_is_its_defining_modules_object():
    import mrrstats

    bad, seen = [], 0
    for pkg in _packages():
        for name in pkg.__all__:
            obj = getattr(pkg, name)
            seen += 1
            if isinstance(obj, types.ModuleType):
                ok = sys.modules[obj.__name__] is obj
            elif isinstance(obj, (type, types.FunctionType)):
                ok = getattr(sys.modules[obj.__module__], obj.__name__, None) is obj
            else:  # data (tuples of allowed values, file names): where the map says
                module_name, attr = pkg.__lazy_attrs__[name]
                ok = getattr(sys.modules[module_name], attr) is obj
            if not ok:
                bad.append(f"{pkg.__name__}.{name}")
            # the top level and the sub-package export the same object
            if pkg is not mrrstats and name in mrrstats.__all__ and \
                    getattr(mrrstats, name) is not obj:
                bad.append(f"mrrstats.{name} is not {pkg.__name__}.{name}")
    assert seen > 200
    assert not bad


def test_names_stay_bound_after_every_submodule_is_imported():
    """Whatever imported a submodule named like the function it exports (``stats.compare``,
    ``agreement.multiverse``), the package's name is the function, as eager imports left
    it (the fresh-process version of this is on a small package below)."""
    import importlib
    import pkgutil

    import mrrstats

    for info in pkgutil.walk_packages(mrrstats.__path__, "mrrstats."):
        importlib.import_module(info.name)
    bad = [f"{pkg.__name__}.{name}" for pkg in _packages()
           for name, (module_name, attr) in pkg.__lazy_attrs__.items()
           if getattr(pkg, name) is not getattr(sys.modules[module_name], attr)]
    assert not bad
    assert isinstance(mrrstats.stats.compare, types.FunctionType)
    assert isinstance(mrrstats.agreement.multiverse, types.FunctionType)


def test_lazy_package_mechanics(tmp_path):
    """attach and alias_modules on a small package, in a fresh process: a submodule
    imported before its package's name, an old module path, dir and AttributeError."""
    pkg = tmp_path / "lazypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(
        "from mrrstats.lazy import alias_modules, attach\n"
        "__getattr__, __dir__, __all__ = attach(\n"
        "    __name__, {'compare': ['compare', 'Result'], 'other': ['helper']},\n"
        "    submodules=['sub'])\n"
        "alias_modules(__name__, {'old': 'lazypkg.sub', 'older': 'lazypkg.sub'},\n"
        "              deprecated=['older'])\n")
    (pkg / "compare.py").write_text("def compare():\n    return 1\n\nclass Result:\n    pass\n")
    (pkg / "other.py").write_text("def helper():\n    return 2\n")
    (pkg / "sub.py").write_text("X = 3\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(tmp_path)]))
    code = textwrap.dedent("""
        import json, sys, types
        import lazypkg
        out = {"loaded": sorted(m for m in sys.modules if m.startswith("lazypkg"))}
        import lazypkg.compare  # the submodule first, then the package's name
        out["compare"] = type(lazypkg.compare).__name__
        out["same"] = lazypkg.compare is sys.modules["lazypkg.compare"].compare
        out["helper"] = lazypkg.helper()
        import lazypkg.old, lazypkg.older
        out["old"] = sys.modules["lazypkg.old"] is sys.modules["lazypkg.sub"] is lazypkg.old
        out["older_bound"] = "older" in vars(lazypkg)
        out["dir"] = [n for n in lazypkg.__all__ if n not in dir(lazypkg)]
        try:
            lazypkg.nothing
        except AttributeError as exc:
            out["error"] = str(exc)
        print(json.dumps(out))
    """)
    res = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out == {"loaded": ["lazypkg"], "compare": "function", "same": True, "helper": 2,
                   "old": True, "older_bound": False, "dir": [],
                   "error": "module 'lazypkg' has no attribute 'nothing'"}


def test_dir_from_import_and_star():
    import mrrstats
    from mrrstats import blocked, compare, datasets, evaluate, plots  # noqa: F401

    missing = [n for n in mrrstats.__all__ if n not in dir(mrrstats)]
    missing += [f"{pkg.__name__}.{n}" for pkg in _packages() for n in pkg.__all__
                 if n not in dir(pkg)]
    assert not missing
    ns: dict = {}
    exec("from mrrstats import *", ns)
    assert set(mrrstats.__all__) <= set(ns)
    assert (blocked.__name__, plots.__name__) == ("mrrstats.stats.blocked",
                                                  "mrrstats.report.plots")
    with pytest.raises(AttributeError, match="module 'mrrstats' has no attribute 'nothing'"):
        mrrstats.nothing  # noqa: B018


def test_all_lists_each_lazy_name():
    import mrrstats
    from mrrstats import errors

    for pkg_name in PACKAGES:
        pkg = sys.modules.get(pkg_name) or __import__(pkg_name, fromlist=["_"])
        assert set(pkg.__all__) - set(errors.__all__) == set(pkg._names), pkg_name
    assert set(errors.__all__) <= set(mrrstats.__all__)


def test_cli_help_loads_nothing_heavy():
    res = run_python("""
        import contextlib, io
        from mrrstats.cli import _COMMANDS, main
        outputs = {}
        for argv in (["--help"], *([c, "--help"] for c in _COMMANDS)):
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                try:
                    main(argv)
                except SystemExit as exc:
                    assert exc.code == 0, argv
            outputs[" ".join(argv)] = buf.getvalue()
        print(json.dumps({"heavy": heavy(), "numpy": "numpy" in sys.modules,
                          "outputs": outputs}))
    """)
    assert res["heavy"] == []
    assert not res["numpy"]
    assert "usage: mrrstats compare" in res["outputs"]["compare --help"]
    assert "{trec_eval,rank,optimistic,pessimistic,realistic,expected}" in \
        res["outputs"]["compare --help"]


def test_console_script_help_in_a_subprocess():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    code = ("import sys\nfrom mrrstats.cli import main\ntry:\n    main(sys.argv[1:])\n"
            f"finally:\n    print('HEAVY', sorted(m for m in {HEAVY!r} if m in sys.modules), "
            "file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code, "compare", "--help"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("usage: mrrstats compare")
    assert "HEAVY []" in out.stderr


def test_deprecated_module_paths():
    import warnings

    import mrrstats.examples
    import mrrstats.plots
    from mrrstats.examples import trec7_scores
    from mrrstats.plots import rr_histogram

    assert mrrstats.plots is sys.modules["mrrstats.report.plots"]
    assert rr_histogram is mrrstats.report.plots.rr_histogram
    assert sys.modules["mrrstats.examples"] is mrrstats.datasets
    assert trec7_scores is mrrstats.datasets.trec7_scores
    for _ in range(2):  # the attribute warns every time, also after the module's import
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            assert mrrstats.examples is mrrstats.datasets
        assert [str(x.message) for x in w] == [
            "mrrstats.examples is deprecated; use mrrstats.datasets (the old name will be removed "
            "in mrrstats 0.3)"]


def test_deprecated_paths_are_lazy_too():
    res = run_python("""
        import mrrstats
        print(json.dumps({"heavy": heavy(), "plots": "mrrstats.report.plots" in sys.modules,
                          "datasets": "mrrstats.datasets" in sys.modules}))
    """)
    assert res == {"heavy": [], "plots": False, "datasets": False}


def _public_names():
    import mrrstats

    return list(mrrstats.__all__)


_FIRST_IMPORTS = textwrap.dedent("""
    import importlib, json, os, sys, traceback
    # the third-party libraries first (an import cycle is among mrrstats' own modules),
    # then each statement in a forked child of this interpreter: it is the first thing
    # of mrrstats that child imports, as in a fresh process, without a start-up each
    for lib in ("numpy", "pandas", "scipy.stats", "scipy.special", "statsmodels.api",
                "pyarrow", "numba", "matplotlib"):
        try:
            importlib.import_module(lib)
        except ImportError:
            pass
    assert not [m for m in sys.modules if m.startswith("mrrstats")]
    failures = {}
    for statement in json.loads(sys.argv[1]):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            code = 0
            try:
                exec(statement, {})
            except BaseException:
                os.write(write, traceback.format_exc()[-4000:].encode())
                code = 1
            os._exit(code)
        os.close(write)
        message = b""
        while chunk := os.read(read, 65536):
            message += chunk
        os.close(read)
        if os.waitpid(pid, 0)[1] != 0:
            failures[statement] = message.decode() or "exit status != 0"
    print(json.dumps(failures))
""")


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_each_public_name_and_module_imports_first():
    """No import cycle shows up when a public name or a module is the first thing of
    mrrstats a process imports."""
    import pkgutil

    import mrrstats

    statements = [f"from mrrstats import {name}" for name in _public_names()]
    statements += [f"import {i.name}" for i in pkgutil.walk_packages(mrrstats.__path__,
                                                                       "mrrstats.")]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", _FIRST_IMPORTS, json.dumps(statements)],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {}
