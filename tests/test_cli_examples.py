"""Every command has --example, and it runs on the bundled CAsT runs (exit code 0)."""

import pytest

from mrrstats.cli import _COMMANDS, main

QUICK = {
    "evaluate": [],
    "baseline": ["--random", "retrieved", "--n-resamples", "99", "--seed", "1"],
    "compare": ["--n-resamples", "99", "--seed", "1"],
    "agreement": ["--n-resamples", "99", "--seed", "1"],
    "report": ["--n-resamples", "99", "--seed", "1"],
    "multiverse": ["--n-resamples", "99", "--seed", "1"],
    "leaderboard": ["--n-resamples", "99", "--seed", "1"],
    "estimate": ["--n-resamples", "99", "--seed", "1"],
    "unpaired": ["--n-resamples", "99", "--seed", "1"],
    "mixed": [],
    "sampled": ["--n-resamples", "99", "--seed", "1"],
    "ppi": ["--n-resamples", "99", "--seed", "1"],
    "judges": ["--n-resamples", "99", "--seed", "1", "--test", "t"],
    "bounds": [],
}


def test_every_command_is_listed():
    assert set(_COMMANDS) == set(QUICK)


@pytest.mark.parametrize("command", sorted(QUICK))
def test_example_runs(command, tmp_path, capsys):
    extra = ["--out", str(tmp_path / "report")] if command == "report" else []
    rc = main([command, "--example", *QUICK[command], *extra])
    out = capsys.readouterr().out
    assert rc == 0
    assert out.strip()  # it printed a result
