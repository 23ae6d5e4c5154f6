"""Tests of the ``mrrstats compare`` command line."""

from __future__ import annotations

import json

import pytest

import mrrstats
from mrrstats.cli import main
from mrrstats.io import read_score_matrix
from tests.reference_data import data_path


@pytest.fixture()
def csvs(tmp_path):
    """Two small score-matrix CSVs (5 TREC-7 systems, RR and AP) in the shared layout."""
    out = []
    for name in ("rr", "ap"):
        frame = read_score_matrix(data_path("score_matrices", "trec_adhoc",
                                              f"adhoc7_{name}.csv"))
        path = tmp_path / f"adhoc7_{name}.csv"
        frame.iloc[:, [0, 3, 9, 27, 60]].to_csv(path, index=False)
        out.append(path)
    return out


def test_scores_json_matches_library(csvs, capsys):
    code = main(["compare", "--scores", str(csvs[0]), str(csvs[1]), "--format", "json",
                 "--seed", "4", "--n-resamples", "500"])
    captured = capsys.readouterr()
    assert code == 0 and captured.err == ""  # quiet: stderr is not a terminal
    doc = json.loads(captured.out)
    assert doc["measures"] == ["adhoc7_rr", "adhoc7_ap"]  # file stems
    assert len(doc["pairs"]) == 20
    frames = {p.stem: read_score_matrix(p) for p in csvs}
    lib = mrrstats.compare(frames, n_resamples=500, rng=4).to_dict()
    assert doc == lib


def test_scores_names_and_formats(csvs, capsys):
    assert main(["compare", "--scores", f"RR={csvs[0]}", "--test", "t", "--format",
                 "markdown"]) == 0
    md = capsys.readouterr().out
    assert "| RR |" in md.splitlines()[0] and "paired t-test" in md
    assert main(["compare", "--scores", str(csvs[0]), str(csvs[1]), "-m", "RR", "-m", "AP",
                 "--test", "tukey", "--n-resamples", "300", "--seed", "1",
                 "--format", "latex"]) == 0
    tex = capsys.readouterr().out
    # columns of means headed by the mean's name (MRR, MAP)
    assert "& MRR & MRR rank & MRR group & MAP" in tex and "randomised Tukey HSD" in tex
    assert "seed = 1" in tex
    assert main(["compare", "--scores", str(csvs[0]), "--test", "sign", "--correction",
                 "bonferroni", "--wide"]) == 0
    table = capsys.readouterr().out
    assert "pvalue_adjusted" in table and "Bonferroni" in table
    assert main(["compare", "--scores", str(csvs[0]), "--test", "sign", "--correction",
                 "bonferroni"]) == 0
    table = capsys.readouterr().out  # the default: fits 100 columns
    assert "p adj." in table and "Bonferroni" in table
    assert max(len(line) for line in table.splitlines()) <= 100


def test_progress_when_asked(csvs, capsys):
    assert main(["compare", "--scores", str(csvs[0]), "--progress", "--n-resamples", "200",
                 "--seed", "0"]) == 0
    err = capsys.readouterr().err
    # a tqdm bar counting the resamples (tests/test_progress.py: nothing without --progress)
    assert "mrrstats compare: randomization, 1 measure(s)" in err and "resamples" in err


def test_qrels_and_runs(capsys):
    data = mrrstats.datasets.cast2021()
    args = ["compare", str(data.qrels), *map(str, data.runs[:3]), "-m", "RR", "-m", "nDCG@10",
            "--format", "json", "--seed", "2", "--n-resamples", "400"]
    assert main(args) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["measures"] == ["RR", "nDCG@10"] and len(doc["pairs"]) == 6
    ev = mrrstats.evaluate(data.qrels, data.runs[:3], ["RR", "nDCG@10"])
    assert doc == mrrstats.compare(ev, n_resamples=400, rng=2).to_dict()


def test_errors_exit_2(csvs, tmp_path, capsys):
    assert main(["compare", "--scores", str(tmp_path / "nope.csv")]) == 2
    assert "file not found" in capsys.readouterr().err
    assert main(["compare", "--scores", str(csvs[0]), "-m", "a", "-m", "b"]) == 2
    assert "-m given 2 times for 1 --scores files" in capsys.readouterr().err
    assert main(["compare", "qrels_only"]) == 2
    assert "need QRELS and at least two RUN files" in capsys.readouterr().err
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n0.5,\n0.2,0.1\n")
    assert main(["compare", "--scores", str(bad)]) == 2
    assert "missing value" in capsys.readouterr().err


def test_example_default_is_finite_and_consistent(capsys):
    # no infinite end in the default table, --wide or --format json
    from mrrstats.stats.corrections import ci_excludes_zero

    args = ["compare", "--example", "--seed", "3", "--n-resamples", "2000"]
    assert main([*args, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["settings"]["correction"] == "single-step" and len(doc["pairs"]) == 10
    lo = [p["ci_low"] for p in doc["pairs"]]
    hi = [p["ci_high"] for p in doc["pairs"]]
    assert None not in lo and None not in hi  # JSON null is an infinite or undefined end
    assert list(ci_excludes_zero(lo, hi)) == [p["reject"] for p in doc["pairs"]]
    assert sum(p["reject"] for p in doc["pairs"]) >= 3
    for extra in ([], ["--wide"]):
        assert main([*args, *extra]) == 0
        text = capsys.readouterr().out
        assert "inf" not in text and "single-step max-T" in text


def test_control_option_and_hidden_baseline_alias(csvs, capsys):
    import argparse

    from mrrstats.cli import compare as cli_compare

    name = read_score_matrix(csvs[0]).columns[2]
    assert main(["compare", "--scores", str(csvs[0]), "--control", name, "--format", "json",
                 "--seed", "1", "--n-resamples", "500"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["settings"]["control"] == name and {p["b"] for p in doc["pairs"]} == {name}
    assert main(["compare", "--scores", str(csvs[0]), "--baseline", name, "--format", "json",
                 "--seed", "1", "--n-resamples", "500"]) == 0
    assert json.loads(capsys.readouterr().out) == doc
    p = argparse.ArgumentParser()
    cli_compare.add_arguments(p)
    assert "--baseline" not in p.format_help() and "--control" in p.format_help()


def test_methods_flag_prints_the_paragraph(csvs, capsys):
    assert main(["compare", "--scores", str(csvs[0]), "--test", "t", "--correction", "holm",
                 "--alpha", "0.01", "--methods"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("We compared 5 systems (10 pairs) on adhoc7_rr over 50 queries")
    assert "Holm's step-down procedure [@holm1979]" in text and "$\\alpha = 0.01$" in text
    assert text.count("\n") == 1  # one paragraph, no table
    assert main(["compare", "--scores", str(csvs[0]), "--seed", "3", "--n-resamples", "200",
                 "--methods", "--format", "latex"]) == 0
    tex = capsys.readouterr().out
    assert "$B = 200$" in tex and "seed 3" in tex and "\\citep{westfall1993}" in tex
    assert "[@" not in tex


def test_default_output_says_measured_coverage(csvs, capsys):
    """The default intervals' measured coverage beside the nominal level (issue #28),
    read from ``mrrstats.stats.coverage.COVERAGE``; the skew-corrected correction too."""
    from mrrstats.stats.coverage import measured_coverage_note

    for corr, method in (("single-step", "maxt-single-step"),
                         ("single-step-skew", "maxt-single-step-skew")):
        code = main(["compare", "--scores", str(csvs[0]), "--seed", "4",
                     "--n-resamples", "200", "--correction", corr])
        out = " ".join(capsys.readouterr().out.split())
        assert code == 0
        assert measured_coverage_note(method, 0.95) in out
