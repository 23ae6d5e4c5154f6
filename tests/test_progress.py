"""Progress: shown on an interactive terminal, nothing on a pipe or in CI."""

from __future__ import annotations

import io
import sys

import numpy as np
import pandas as pd
import pytest

import mrrstats
from mrrstats.cli import main
from mrrstats.progress import progress_bar, progress_enabled, resampling_ticker, tracking


class _TTY(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture
def no_ci(monkeypatch):
    monkeypatch.delenv("CI", raising=False)


def test_enabled_rule(monkeypatch, no_ci):
    assert not progress_enabled(stream=io.StringIO())
    assert progress_enabled(stream=_TTY())
    for value in ("true", "1", "yes"):
        monkeypatch.setenv("CI", value)
        assert not progress_enabled(stream=_TTY())
    for value in ("", "0", "false"):
        monkeypatch.setenv("CI", value)
        assert progress_enabled(stream=_TTY())
    assert progress_enabled(True, stream=io.StringIO())
    assert not progress_enabled(False, stream=_TTY())


def test_ticker_counts_resamples_and_is_a_noop_outside(monkeypatch, no_ci):
    assert resampling_ticker(10)(5) is None  # no bar: nothing happens
    monkeypatch.setattr(sys, "stderr", _TTY())
    with tracking("work") as bar:
        assert bar is not None
        tick = resampling_ticker(100)
        tick(60)
        tick(40)
        resampling_ticker(50)(50)
        assert bar.n == 150
    assert "work" in sys.stderr.getvalue()


def _scores():
    rng = np.random.default_rng(0)
    base = rng.random(30)
    return pd.DataFrame({"a": base, "b": np.clip(base + 0.1, 0, 1), "c": rng.random(30)})


def test_same_result_with_and_without_progress(monkeypatch, no_ci):
    quiet = mrrstats.compare(_scores(), measure="RR", rng=3, n_resamples=500)
    monkeypatch.setattr(sys, "stderr", _TTY())
    shown = mrrstats.compare(_scores(), measure="RR", rng=3, n_resamples=500, progress=True)
    assert sys.stderr.getvalue()  # a bar was drawn
    pd.testing.assert_frame_equal(quiet.to_frame(), shown.to_frame())


@pytest.mark.slow
def test_nothing_on_a_non_tty_stderr(capsys, no_ci, tmp_path):
    data = mrrstats.datasets.cast2021()
    runs = [str(r) for r in data.runs[:3]]
    assert main(["compare", str(data.qrels), *runs, "--n-resamples", "300", "--seed", "1"]) == 0
    assert main(["baseline", str(data.qrels), *runs, "--method", "monte-carlo",
                 "--n-resamples", "100", "--seed", "1"]) == 0
    assert main(["report", str(data.qrels), *runs, "--out", str(tmp_path), "--no-notebook",
                 "--n-resamples", "99", "--seed", "1", "-m", "RR"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert captured.out


def test_nothing_in_ci_even_on_a_terminal(monkeypatch, capsys):
    monkeypatch.setenv("CI", "true")
    monkeypatch.setattr(sys, "stderr", _TTY())
    mrrstats.compare(_scores(), measure="RR", rng=3, n_resamples=300)
    for _ in progress_bar(range(3), desc="x"):
        pass
    assert sys.stderr.getvalue() == ""
