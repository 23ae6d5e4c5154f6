"""`mrrstats agreement`: score matrices and run files to the agreement table."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import mrrstats
from mrrstats.cli import main
from tests.reference_data import data_path


def _adhoc(year, measure):
    return str(data_path("score_matrices", "trec_adhoc", f"adhoc{year}_{measure}.csv"))


def _json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_scores_json_trec7(capsys):
    files = [_adhoc(7, m) for m in ("rr", "ap", "p10")]
    out = _json(capsys, ["agreement", "--scores", *files, "--format", "json", "--test", "t"])
    assert out["measures"] == ["rr", "ap", "p10"]  # the last '_' part of each file name
    assert out["n_systems"] == 103 and out["n_queries"] == 50
    assert out["n_pairs"] == 103 * 102 // 2
    means = {m: mrrstats.read_score_matrix(f).mean().round(12).to_numpy()
             for m, f in zip(("rr", "ap", "p10"), files, strict=True)}
    for a, b in (("rr", "ap"), ("ap", "p10")):
        ref = stats.kendalltau(means[a], means[b])  # tau-b
        assert out["tau"][a][b] == pytest.approx(ref.statistic, abs=1e-12)
        assert out["tau_pvalue"][a][b] == pytest.approx(ref.pvalue, rel=1e-9)
        assert out["rho"][a][b] == pytest.approx(stats.spearmanr(means[a], means[b])
                                                 .statistic, abs=1e-12)
        swaps = sum((means[a][i] - means[a][j]) * (means[b][i] - means[b][j]) < 0
                    for i, j in itertools.combinations(range(103), 2))
        assert out["n_swaps"][a][b] == swaps
    assert out["tau_ap"]["rr"]["rr"] == 1.0
    power = {row["measure"]: row for row in out["discriminative_power"]}
    assert set(power) == {"rr", "ap", "p10"}
    for m in power:
        assert power[m]["n_pairs"] == out["n_pairs"]
        assert power[m]["discriminative_power"] == pytest.approx(
            power[m]["n_significant"] / power[m]["n_pairs"])
        assert power[m]["test"] == "t"
    # RR is the least discriminative of the three (Sakai 2006; Buckley & Voorhees)
    assert power["rr"]["n_significant"] < power["ap"]["n_significant"]
    assert len(out["agreement"]) == 3  # one row per unordered pair of measures


def test_scores_table_and_names(capsys):
    files = [_adhoc(5, m) for m in ("rr", "ap")]
    assert main(["agreement", "--scores", *files, "--names", "RR", "AP",
                 "--test", "t", "--seed", "3"]) == 0
    text = capsys.readouterr().out
    for needle in ("61 systems, 50 queries, 1830 system pairs", "Kendall's tau-b",
                   "tau_AP (rows: truth, columns: evaluated ranking; ties=agreement)",
                   "Spearman's rho", "Swapped system pairs (of 1830)",
                   "Discriminative power (test=t, two-sided, correction=none, alpha=0.05"):
        assert needle in text
    rr = mrrstats.read_score_matrix(files[0]).mean().round(12)
    ap = mrrstats.read_score_matrix(files[1]).mean().round(12)
    tau = stats.kendalltau(rr, ap).statistic
    assert f"{tau:.3f}" in text
    assert main(["agreement", "--scores", *files, "--no-power"]) == 0
    assert "Discriminative power" not in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "message"), [
    (["--scores", "A", "--names", "x", "y"], "--names gives 2 names for 1 --scores files"),
    (["--scores", "dir1/run_rr.csv", "dir2/other_rr.csv"], "are not unique"),
    (["--scores", "x_rr.csv"], "at least two files"),
    (["qrels", "run", "--scores", "a_rr.csv", "b_ap.csv"], "not both"),
    ([], "give QRELS RUN"),
    (["qrels", "run1"], "at least two run files"),
])
def test_cli_errors(capsys, argv, message):
    assert main(["agreement", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mrrstats: error: ") and message in err


def test_missing_file_is_an_input_error(capsys, tmp_path):
    assert main(["agreement", "--scores", str(tmp_path / "a_rr.csv"),
                 str(tmp_path / "a_ap.csv")]) == 2
    assert "file not found" in capsys.readouterr().err


def _cast_paths():
    data = mrrstats.datasets.cast2021()
    return str(data.qrels), [str(p) for p in data.runs]


def test_cast2021_run_files_to_agreement_table(capsys):
    # The full path: five CAsT 2021 run files -> evaluate -> agreement. The
    # system means must be trec_eval's (cast2021/summary_trec_eval10_l1.tsv, 4
    # decimals), so Kendall's tau from that table must match.
    qrels, runs = _cast_paths()
    out = _json(capsys, ["agreement", qrels, *runs, "-m", "RR", "-m", "AP", "-m", "nDCG@10",
                         "--format", "json", "--n-resamples", "2000", "--seed", "7"])
    assert out["measures"] == ["RR", "AP", "nDCG@10"]
    assert out["n_systems"] == 5 and out["n_queries"] == 158
    summary = pd.read_csv(data_path("cast2021", "summary_trec_eval10_l1.tsv"), sep="\t",
                          index_col="run")
    names = [s.removesuffix(".run") for s in out["systems"]]  # run names: file names
    ref = summary.loc[names, ["recip_rank", "map", "ndcg_cut_10"]].to_numpy()
    for (i, a), (j, b) in itertools.combinations(enumerate(out["measures"]), 2):
        assert out["tau"][a][b] == pytest.approx(
            stats.kendalltau(ref[:, i], ref[:, j]).statistic, abs=1e-12)
    power = {row["measure"]: row for row in out["discriminative_power"]}
    assert {p["seed"] for p in power.values()} == {7}  # the --seed given
    assert all(p["test"] == "randomization" for p in power.values())
    assert all(0 <= p["discriminative_power"] <= 1 for p in power.values())
    # rerunning with the same seed reproduces the numbers, on any number of threads
    again = _json(capsys, ["agreement", qrels, *runs, "-m", "RR", "-m", "AP", "-m",
                           "nDCG@10", "--format", "json", "--n-resamples", "2000",
                           "--seed", "7", "--workers", "1"])
    assert again["discriminative_power"] == out["discriminative_power"]
    np.testing.assert_equal(again["tau_ap"], out["tau_ap"])
