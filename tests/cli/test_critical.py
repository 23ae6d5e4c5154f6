"""``mrrstats critical-difference``: the example, score tables, per-query files, the diagram."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

import mrrstats
from mrrstats import defaults
from mrrstats.cli import main
from mrrstats.formatting import TEXT_WIDTH


def test_example_is_the_same_every_run_and_prints_the_analysis(capsys):
    assert main(["critical-difference", "--example", "--n-resamples", "999"]) == 0
    first = capsys.readouterr().out
    assert main(["critical-difference", "--example", "--n-resamples", "999"]) == 0
    assert capsys.readouterr().out == first  # a fixed seed without --seed
    seed = re.search(r"seed (\d+)", first)
    assert seed and int(seed.group(1)) == defaults.EXAMPLE_SEED  # the seed it used, printed
    assert "19 conversations as collections" in first
    assert "Friedman chi2 = " in first and "Iman-Davenport F = " in first
    assert "Nemenyi critical difference at alpha 0.05: 1.399" in first  # k = 5, N = 19
    assert "95% interval" in first
    # p-values below the floor are written "p < 0.0001", never "p = < 0.0001" or "p = 0"
    assert "p = <" not in first and "p = 0\n" not in first and "p = 0)" not in first
    assert all(len(line) <= TEXT_WIDTH for line in first.splitlines())


def test_scores_table_matches_the_function(tmp_path, capsys):
    ap = mrrstats.datasets.trec7_scores("AP")
    blocks = ap.iloc[:, :8].groupby(ap.index.to_series().astype(int).sub(1) // 5).mean()
    path = tmp_path / "table.csv"
    blocks.rename_axis("query").to_csv(path)
    assert main(["critical-difference", "--scores", str(path), "--test", "conover"]) == 0
    out = capsys.readouterr().out
    res = mrrstats.critical_difference(blocks, test="conover")
    assert f"Friedman chi2 = {res.friedman['statistic']:.3f}" in out
    for system, rank in res.average_ranks.items():
        # a row of the systems' table: label, system, average rank, ...
        assert any(line.split()[1:3] == [system, f"{rank:.2f}"] for line in out.splitlines())
    assert "interval" not in out  # one score per collection: no bootstrap


def test_collections_and_plot(tmp_path, capsys):
    rng = np.random.default_rng(0)
    files = []
    for c in range(3):
        frame = pd.DataFrame(
            rng.random((6, 3)),
            columns=["a", "b", "c"],
            index=pd.Index([f"q{i}" for i in range(6)], name="query"),
        )
        frame["a"] += 0.5
        path = tmp_path / f"c{c}.csv"
        frame.to_csv(path)
        files += ["--collection", f"c{c}={path}"]
    png = tmp_path / "cd.png"
    assert (
        main(
            [
                "critical-difference",
                *files,
                "--n-resamples",
                "199",
                "--seed",
                "1",
                "--test",
                "wilcoxon-holm",
                "--plot",
                str(png),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "3 systems, 3 collections" in out and png.stat().st_size > 1000


def test_bad_input_exits_2_with_one_line(tmp_path, capsys):
    assert main(["critical-difference"]) == 2
    assert "--example" in capsys.readouterr().err
    assert main(["critical-difference", "--collection", "x"]) == 2
    assert "NAME=FILE.csv" in capsys.readouterr().err
    assert main(["critical-difference", "--example", "--test", "conover", "--alpha", "0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--alpha" in err[0]


def test_hierarchical_comparison_of_a_pair(capsys):
    args = ["critical-difference", "--example", "--n-resamples", "199", "--seed", "3"]
    pair = ["org_manual_ance_bert.run", "org_manual_ance.run"]
    assert main([*args, "--hierarchical", *pair, "--rope", "0.05"]) == 0
    out = capsys.readouterr().out
    assert "Student-t hierarchical model (MCMC: 8 chains of 1000 draws" in out
    assert "On a new collection: P(A better) = " in out
    assert all(len(line) <= TEXT_WIDTH for line in out.splitlines())
    # the same as the function with the command's seed
    data = mrrstats.datasets.cast2021()
    frame = mrrstats.evaluate(data.qrels, data.runs, ["RR"]).scores("RR")
    topic = frame.index.str.split("_").str[0]
    parts = {f"topic {t}": frame[topic == t] for t in topic.unique()}
    gen = np.random.default_rng(3)
    res = mrrstats.critical_difference(parts, n_resamples=199, rng=gen)
    h = res.hierarchical(*pair, rope=0.05, rng=gen)
    assert f"P(equivalent) = {h.p_rope:.3f}" in out
    assert main([*args, "--hierarchical", *pair, "--hierarchical-model", "normal"]) == 0
    assert "the normal approximation" in capsys.readouterr().out
    assert main([*args, "--hierarchical", pair[0], "nope"]) == 2
    assert "nope" in capsys.readouterr().err
