"""Shared fixtures: where the real reference data of ../shared/data lives."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("MRRSTATS_SHARED_DATA", ROOT.parent / "shared" / "data"))


def shared_path(*parts: str) -> Path:
    """Path inside ``../shared/data``; skips (or fails on CI) when absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        if os.environ.get("CI"):
            pytest.fail(f"reference data missing on CI: {path}")
        pytest.skip(f"reference data not available: {path}")
    return path


@pytest.fixture
def shared():
    return shared_path


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
