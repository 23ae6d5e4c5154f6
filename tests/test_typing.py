"""The public API is typed: ``py.typed`` ships, the lazily loaded names are visible to type
checkers, the decorators keep their signatures, and a user's script type-checks under
``mypy --strict`` with every result its mrrstats class.
"""

from __future__ import annotations

import importlib.util
import inspect
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests._typing import annotation_coverage, lazy_names

ROOT = Path(__file__).resolve().parents[1]
USER_SCRIPT = ROOT / "tests" / "_typing" / "user_script.py"


def test_py_typed_is_shipped():
    assert (ROOT / "mrrstats" / "py.typed").is_file()
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "py.typed" in config["tool"]["setuptools"]["package-data"]["mrrstats"]


@pytest.mark.parametrize("package", lazy_names.LAZY_PACKAGES)
def test_type_checking_imports_list_the_lazy_table(package):
    """The ``if TYPE_CHECKING:`` imports and the ``_attach`` table name the same names,
    each from the same submodule (``python tests/_typing/lazy_names.py`` prints the block)."""
    table, checked = lazy_names.table_names(package), lazy_names.checked_names(package)
    assert table, f"{package} has no lazy table"
    assert checked == table, (f"{package}: only in the table: {sorted(table - checked)}; only "
                              f"under TYPE_CHECKING: {sorted(checked - table)}")


def test_public_callables_are_annotated():
    """At least 95% of the public functions, methods and properties carry every annotation
    (``python tests/_typing/annotation_coverage.py`` lists the rest)."""
    found = annotation_coverage.public_callables()
    missing = sorted(name for name, ok in found.items() if not ok)
    assert len(found) > 250  # the count reaches the whole public API
    assert (len(found) - len(missing)) / len(found) >= 0.95, missing


def test_decorated_functions_keep_their_signatures():
    import mrrstats

    for func in (mrrstats.compare, mrrstats.blocked.randomization_test, mrrstats.sign_test):
        params = inspect.signature(func).parameters
        assert "rng" in params or "atol" in params
        assert inspect.signature(func).return_annotation != inspect.Signature.empty
        assert func.__wrapped__.__name__ == func.__name__  # functools.wraps


def test_user_script_runs():
    spec = importlib.util.spec_from_file_location("user_script", USER_SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main()


@pytest.mark.slow  # mypy on the user's script and the package it imports: half a minute
def test_user_script_passes_mypy_strict(tmp_path):
    """``mypy --strict`` on the user's script: no error, and each ``assert_type`` holds.

    mrrstats is read as an installed package is (``--follow-imports=silent``: its types
    are used, its own code is checked by ``mypy mrrstats``). A copy that asserts a wrong
    class must fail, so the check can fail.
    """
    pytest.importorskip("mypy")
    wrong = tmp_path / "user_script_wrong.py"
    text = USER_SCRIPT.read_text()
    assert "assert_type(t, mrrstats.TTestResult)" in text
    wrong.write_text(text.replace("assert_type(t, mrrstats.TTestResult)",
                                  "assert_type(t, mrrstats.Comparison)"))
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent",
         "--cache-dir", str(tmp_path / "cache"), str(USER_SCRIPT), str(wrong)],
        cwd=ROOT, capture_output=True, text=True, timeout=1800)
    out = proc.stdout + proc.stderr
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert not [e for e in errors if "user_script.py" in e], out
    assert len(errors) == 1 and "user_script_wrong.py" in errors[0], out
    assert 'Expression is of type "TTestResult", not "Comparison"' in errors[0], out
