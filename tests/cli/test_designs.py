"""``mrrstats replicates``, ``collections``, ``bayes`` and ``calibrate``: the
numbers printed are the Python API's, the examples run, bad input names the argument."""

from __future__ import annotations

import numpy as np
import pytest

import mrrstats
from mrrstats.cli import main


@pytest.fixture(scope="module")
def rr_csv(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "rr.csv"
    mrrstats.datasets.trec7_scores("RR").to_csv(path, index=False)
    return path


def test_replicates_scores_match_the_api(tmp_path, capsys):
    rr = mrrstats.datasets.trec7_scores("RR")[["run1", "run2"]]
    sim = mrrstats.simulate_replicates(rr, n_replicates=3, rng=0)
    path = tmp_path / "reps.csv"
    sim.to_csv(path, index=False)
    rep = sim.attrs["replicates"]
    argv = ["replicates", "--scores", str(path), "--method", "t"]
    for s, runs in rep.items():
        argv += ["--replicates", f"{s}={','.join(runs)}"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    ref = mrrstats.replicate_tests(sim, rep, method="t")
    assert f"{ref.difference[0]:.4f}" in out
    assert "seed variance" in out


def test_replicates_example_runs(capsys):
    assert main(["replicates", "--example", "--method", "t", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "5 systems" in out and out.count("\n") > 10


def test_replicates_needs_two_systems(tmp_path, capsys, rr_csv):
    assert main(["replicates", "--scores", str(rr_csv), "--replicates", "A=run1,run2"]) == 2
    assert "two systems" in capsys.readouterr().err


def test_collections_example_and_files(tmp_path, capsys):
    assert main(["collections", "--example"]) == 0
    out = capsys.readouterr().out
    assert "partial conjunctions" in out and "DL" in out and "PM" in out
    rr = mrrstats.datasets.trec7_scores("RR")
    argv = ["collections", "--systems", "run47", "run38"]
    data = {}
    for i in range(3):
        p = tmp_path / f"c{i}.csv"
        part = rr.iloc[15 * i:15 * i + 15]
        part.to_csv(p, index=False)
        data[f"c{i}"] = part[["run47", "run38"]]
        argv += ["--collection", f"c{i}={p}"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    ref = mrrstats.across_collections(data)
    assert f"at least {ref.k_hat['bonferroni']} of 3" in out


def test_bayes_matches_the_api(rr_csv, capsys):
    assert main(["bayes", "--scores", str(rr_csv), "--systems", "run47", "run15",
                 "--rope", "0.01"]) == 0
    out = capsys.readouterr().out
    rr = mrrstats.datasets.trec7_scores("RR")
    ref = mrrstats.bayesian_comparison(rr["run47"], rr["run15"], rope=0.01)
    assert f"P(A better) = {ref.p_a_better:.3f}" in out
    assert main(["bayes", "--example"]) == 0


def test_calibrate_small(rr_csv, capsys):
    argv = ["calibrate", "--scores", str(rr_csv), "--max-systems", "2", "--tests", "t",
            "sign", "--n-simulations", "50", "--differences", "0.1", "--seed", "2"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "recommended:" in out and "power_0.1" in out
    rr = mrrstats.datasets.trec7_scores("RR")
    ref = mrrstats.calibrate_tests(rr, max_systems=2, tests=["t", "sign"], n_simulations=50,
                                   differences=(0.1,), rng=np.random.default_rng(2))
    assert f"{ref.to_frame()['type_I_error'].iloc[0]:.3f}" in out


def test_compare_with_replicates_delegates():
    rr = mrrstats.datasets.trec7_scores("RR")[["run1", "run2"]]
    sim = mrrstats.simulate_replicates(rr, n_replicates=3, rng=0)
    a = mrrstats.compare(sim, replicates=sim.attrs["replicates"], test="t")
    b = mrrstats.replicate_tests(sim, sim.attrs["replicates"], method="t")
    assert np.array_equal(a.pvalue, b.pvalue)
    with pytest.raises(ValueError, match="with `replicates`"):
        mrrstats.compare(sim, replicates=sim.attrs["replicates"], test="wilcoxon")
