"""Shared fixtures and settings of the test suite.

The reference data the tests read is in the repository (tests/reference_data.py,
provenance in tests/data/README.md): nothing skips for want of it.
"""

from __future__ import annotations

from hypothesis import settings

from tests.reference_data import ROOT, data_path

__all__ = ["ROOT", "data_path", "record_conformance"]

# No test depends on how fast the machine is: hypothesis has no per-example deadline
# (its default, 200 ms, fails an example on a loaded machine). No test depends on chance
# either: hypothesis draws the same examples on every run (derandomize), so a run that
# passes here passes in CI.
settings.register_profile("mrrstats", deadline=None, derandomize=True)
settings.load_profile("mrrstats")


# -- conformance bookkeeping: how many reference values were compared ---------
CONFORMANCE: dict[str, int] = {}


def record_conformance(label: str, n_values: int) -> None:
    CONFORMANCE[label] = CONFORMANCE.get(label, 0) + int(n_values)


def pytest_terminal_summary(terminalreporter):
    if CONFORMANCE:
        total = sum(CONFORMANCE.values())
        terminalreporter.write_sep("-", f"trec_eval conformance: {total} values compared")
        for label, n in sorted(CONFORMANCE.items()):
            terminalreporter.write_line(f"  {label}: {n}")


# Not a module of tests: a user's script that tests/test_typing.py runs and type-checks
# (the doctest collection would import it, running its statistics in every test process).
collect_ignore = ["_typing/user_script.py"]
