"""Finished text: repr(Evaluation), compare's terminal table, the CLI's --wide."""

from __future__ import annotations

import pytest

import mrrstats
from mrrstats.cli import main


def _cast_eval(measures=("RR", "nDCG@10", "AP")):
    data = mrrstats.datasets.cast2021()
    return mrrstats.evaluate(data.qrels, data.runs, list(measures))


def test_evaluation_repr_is_a_short_summary():
    ev = _cast_eval()
    text = repr(ev)
    lines = text.splitlines()
    assert len(lines) <= 6 and all(len(line) <= 100 for line in lines)
    assert lines[0] == "<Evaluation: 5 runs x 3 measures>"
    assert "measures: RR, nDCG@10, AP" in text
    assert "org_convdr.run" in text
    assert "158 evaluated" in text  # the CAsT qrels judge 158 turns
    assert "ties='trec_eval'" in text and "rel=1" in text and "queries='both'" in text
    assert "empty_target='neg'" in text
    # no per-query values or frames
    assert "0.5" not in text and "DataFrame" not in text and "query_stats" not in text


def test_evaluation_repr_stays_short_for_many_runs():
    relevant = {f"q{i}": {"d1"} for i in range(5)}
    runs = {f"a_rather_long_system_name_{j:03d}": {f"q{i}": ["d2", "d1"] for i in range(5)}
            for j in range(60)}
    ev = mrrstats.evaluate(relevant, runs, "RR")
    lines = repr(ev).splitlines()
    assert len(lines) <= 6 and all(len(line) <= 100 for line in lines)
    assert "(60 in all)" in lines[1]
    assert "5 evaluated" in repr(ev)


def test_compare_table_fits_100_columns_on_cast():
    res = mrrstats.compare(_cast_eval(), rng=1, n_resamples=999)
    text = str(res)
    assert text == res.to_string()
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 100
    # what is shown is described; nothing promised that plain text cannot show
    low = text.lower()
    assert "superscript" not in low and "bold" not in low
    for s in res.systems:
        assert s in text
    assert "wide" in low  # says where the details are
    # every pair is there, with its adjusted p-value
    assert sum(line.startswith(("RR ", "nDCG@10 ", "AP ")) for line in lines) == 30
    wide = res.to_string(wide=True)
    assert "pvalue_adjusted" in wide and "d_z" in wide
    assert max(len(line) for line in wide.splitlines()) > 100


def test_compare_table_narrower_width():
    res = mrrstats.compare(_cast_eval(["RR"]), rng=1, n_resamples=299)
    assert max(len(line) for line in res.to_table(width=72).splitlines()) <= 72


def test_cli_compare_table_and_wide(capsys):
    data = mrrstats.datasets.cast2021()
    argv = ["compare", str(data.qrels), *map(str, data.runs), "-m", "RR", "-m", "nDCG@10",
            "-m", "AP", "--n-resamples", "199", "--seed", "3"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 100
    assert main([*argv, "--wide"]) == 0
    wide = capsys.readouterr().out
    assert "pvalue_adjusted" in wide


@pytest.mark.slow
def test_compare_table_fits_with_a_hundred_systems():
    from mrrstats.datasets import trec7_scores

    scores = trec7_scores("AP")  # 103 TREC-7 ad hoc runs (bundled)
    res = mrrstats.compare(scores, measure="AP", test="t")
    lines = res.to_table().splitlines()
    assert max(len(line) for line in lines) <= 100
    assert any("(beats " in line for line in lines)  # too many letters: their number
    assert sum(line.startswith("AP ") for line in lines) == 103 * 102 // 2
