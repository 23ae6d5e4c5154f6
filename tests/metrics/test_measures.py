"""Measure names, query selection presets and the evaluate command line."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import mrrstats
from mrrstats import Measure, parse_measure
from mrrstats.cli import main
from tests.reference_data import data_path


@pytest.mark.parametrize("name", ["RR", "RR@10", "RR(rel=2)@10", "AP", "AP@100", "nDCG",
                                  "nDCG@10", "P@5", "R@100", "Success@1", "Rank",
                                  "nDCG(rel=3)"])
def test_canonical_names_round_trip(name):
    m = parse_measure(name)
    assert str(m) == name
    assert parse_measure(str(m)) == m
    assert eval(repr(m), {"Measure": lambda s: parse_measure(s)}) == m


def test_aliases_and_trec_eval_names():
    assert str(parse_measure("mrr@10")) == "RR@10"
    assert str(parse_measure("map")) == "AP"
    assert parse_measure("nDCG@10").trec_eval_name == "ndcg_cut_10"
    assert parse_measure("AP@5").trec_eval_name == "map_cut_5"
    assert parse_measure("R@20").trec_eval_name == "recall_20"
    assert Measure("RR").trec_eval_name == "recip_rank"


@pytest.mark.parametrize("bad, match", [
    ("MRRR", "unknown measure 'MRRR'"),
    ("P", "needs a cutoff"),
    ("RR@0", "positive integer"),
    ("RR@x", "positive integer"),
    ("RR(gain=2)", "unknown parameter"),
    ("RR(rel=0)", "`rel`"),
    ("", "cannot parse"),
])
def test_bad_measure_names(bad, match):
    with pytest.raises(ValueError, match=match):
        parse_measure(bad)


def test_measure_rel_overrides_evaluation_rel():
    qrels = {"q": {"a": 1, "b": 2}}
    run = {"q": {"a": 2.0, "b": 1.0}}
    ev = mrrstats.evaluate(qrels, run, ["RR", "RR(rel=2)", "nDCG"], rel=1)
    agg = ev.aggregate().iloc[0]
    assert agg["RR"] == 1.0 and agg["RR(rel=2)"] == 0.5
    # nDCG gains are the grades whatever rel: DCG = 1 + 2/log2(3), IDCG = 2 + 1/log2(3)
    import math
    assert agg["nDCG"] == pytest.approx((1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3)))


def test_msmarco_preset():
    # q1: rank column puts d2 (listed with grade 0: relevant for MS MARCO) at rank 2
    #     although its score is the lowest -> RR@10 = 1/2 (trec_eval order: rank 3, and
    #     grade 0 is not relevant: RR = 0).
    # q2: relevant doc at rank 11 -> RR@10 = 0. q3: judged, missing from the run -> 0.
    # Mean over all 3 qrels queries: 0.5 / 3.
    qrels = pd.DataFrame({"query": ["q1", "q2", "q3"], "doc": ["d2", "e11", "x"],
                          "grade": [0, 1, 1]})
    rows = [("q1", "d1", 1, 3.0), ("q1", "d2", 2, 1.0), ("q1", "d3", 3, 2.0)]
    rows += [("q2", f"e{i}", i, 100.0 - i) for i in range(1, 15)]
    rows += [("q4", "z", 1, 1.0)]
    run = pd.DataFrame(rows, columns=["query", "doc", "rank", "score"])
    ev = mrrstats.evaluate(qrels, run, queries="msmarco")
    assert ev.measure_names == ["RR@10"] and ev.settings["ties"] == "rank"
    assert ev.aggregate().iloc[0, 0] == pytest.approx(0.5 / 3)
    counts = ev.counts[ev.runs[0]]
    assert counts.evaluated == 3 and counts.qrels_only == ("q3",) and counts.run_only == ("q4",)
    default = mrrstats.evaluate(qrels, run, ["RR@10"])
    assert default.aggregate().iloc[0, 0] == 0.0 and default.counts[default.runs[0]].evaluated == 2


def test_evaluate_validation_messages():
    with pytest.raises(ValueError, match="`queries`"):
        mrrstats.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, queries="all")
    with pytest.raises(ValueError, match="`ties`"):
        mrrstats.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ties="random")
    with pytest.raises(ValueError, match="`rel`"):
        mrrstats.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, rel=0)
    with pytest.raises(ValueError, match="`max_depth`"):
        mrrstats.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, max_depth=0)


def test_counts_report_no_relevant_queries():
    qrels = {"q1": {"a": 1}, "q2": {"b": 0}}
    ev = mrrstats.evaluate(qrels, {"q1": {"a": 1.0}, "q2": {"b": 1.0}}, ["RR", "AP"])
    assert ev.counts["run"].no_relevant == ("q2",)
    assert ev.values["run"].loc["q2"].tolist() == [0.0, 0.0]


def test_cli_tsv_is_long_and_matches_trec_eval(capsys):
    qrels = data_path("trec_eval_test", "qrels.test")
    run = data_path("trec_eval_test", "results.test")
    assert main(["evaluate", str(qrels), str(run), "-m", "RR", "-m", "P@10",
                 "--format", "tsv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "run\tquery\tmeasure\tvalue"
    rows = [line.split("\t") for line in lines[1:]]
    assert all(r[0] == "results.test" for r in rows)
    assert len(rows) == 3 * 2 + 2  # 3 queries x 2 measures + 2 aggregates
    agg = {r[2]: float(r[3]) for r in rows if r[1] == "all"}
    # out.test: recip_rank all 0.4064, P_10 all 0.3000
    assert agg["RR"] == pytest.approx(0.4064, abs=5e-5)
    assert agg["P@10"] == pytest.approx(0.3, abs=5e-5)


def test_cli_json_and_table(capsys):
    assert main(["evaluate", "--example", "-m", "RR@10", "--format", "json",
                 "--per-query"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["settings"]["ties"] == "trec_eval"
    assert len(data["runs"]) == 5
    entry = data["runs"]["org_manual_ance_bert.run"]
    assert entry["counts"] == {"evaluated": 158, "qrels_only": 0, "run_only": 81,
                               "no_relevant": 0, "empty_target": "neg"}
    assert len(entry["per_query"]) == 158
    assert main(["evaluate", "--example", "-m", "RR", "--ties", "expected"]) == 0
    out = capsys.readouterr().out
    assert "ties=expected" in out and "81 in run only" in out


def test_cli_usage_errors(capsys):
    assert main(["evaluate"]) == 2
    assert "need QRELS" in capsys.readouterr().err
    assert main(["evaluate", "--example", "-m", "XYZ"]) == 2
    assert "unknown measure" in capsys.readouterr().err


def test_median_rr_aggregate(capsys):
    # Median RR of org_convdr over the 158 judged turns equals the median of its per-query RR.
    data = mrrstats.datasets.cast2021()
    ev = mrrstats.evaluate(data.qrels, data.runs[:1], ["RR", "Rank"])
    per_q = ev.values[ev.runs[0]]
    med = ev.aggregate("median").iloc[0]
    assert med["RR"] == per_q["RR"].median()
    assert ev.aggregate().iloc[0]["Rank"] == per_q["Rank"].median()  # Rank: median always
    assert main(["evaluate", str(data.qrels), str(data.runs[0]), "-m", "RR", "--stat",
                 "median", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["aggregate"] == "median"
    assert out["runs"][ev.runs[0]]["aggregate"]["RR"] == pytest.approx(med["RR"])


@pytest.mark.parametrize("command", ["evaluate", "baseline", "compare", "agreement", "report"])
def test_every_command_spells_the_conventions_alike(command):
    """--ties takes the same tie conventions in every command that reads runs."""
    from mrrstats.cli import build_parser

    parser = build_parser()
    sub = parser._subparsers._group_actions[0].choices[command]
    options = {opt: action for action in sub._actions for opt in action.option_strings}
    assert tuple(options["--ties"].choices) == mrrstats.TIES
    assert options["--rel"].default == 1
    assert "--queries" in options


def test_baseline_cli_honours_ties(capsys, tmp_path):
    # One query: d0 alone at rank 1, then d1..d4 tied with d2 relevant; 10 candidates in all.
    # Optimistic rank 2 (RR 1/2), pessimistic rank 5 (RR 1/5).
    qrels = tmp_path / "q.qrels"
    qrels.write_text("q 0 d2 1\nq 0 d0 0\n")
    run = tmp_path / "tied.run"
    rows = [("d0", 0.9)] + [(f"d{i}", 0.5) for i in range(1, 5)] + \
        [(f"x{i}", 0.1 - i / 100) for i in range(5)]
    run.write_text("".join(f"q Q0 {d} {i + 1} {s} t\n" for i, (d, s) in enumerate(rows)))
    outs = []
    for ties in ("optimistic", "pessimistic"):
        assert main(["baseline", str(qrels), str(run), "--random", "retrieved", "--ties", ties,
                     "--format", "json", "--seed", "1"]) == 0
        outs.append(json.loads(capsys.readouterr().out))
    observed = [o["results"]["tied.run"]["observed"] for o in outs]
    assert [o["conventions"]["ties"] for o in outs] == ["optimistic", "pessimistic"]
    assert observed == [pytest.approx(1 / 2), pytest.approx(1 / 5)]
    # the random-ranking expectation does not depend on ties: H(10)/10 for N = 10, R = 1
    from mrrstats.numerics import harmonic
    for o in outs:
        assert o["results"]["tied.run"]["expected"] == pytest.approx(harmonic(10) / 10)


TYPED_NAMES = {
    "HitRate@10": "Success@10", "Hits@10": "Success@10", "hit_rate@3": "Success@3",
    "MRR": "RR", "MRR@10": "RR@10", "recip_rank": "RR", "map": "AP", "map_cut_5": "AP@5",
    "P_10": "P@10", "ndcg": "nDCG", "ndcg_cut_10": "nDCG@10", "success_10": "Success@10",
    "recall_100": "R@100", "Recall@100": "R@100", "Precision@5": "P@5", "NDCG@10": "nDCG@10",
}


@pytest.mark.parametrize("typed, canonical", sorted(TYPED_NAMES.items()))
def test_typed_names_round_trip(typed, canonical):
    m = parse_measure(typed)
    assert str(m) == canonical
    assert parse_measure(str(m)) == m
    # trec_eval's own name, where it has one, parses back to the same measure
    if m.trec_eval_name is not None:
        assert parse_measure(m.trec_eval_name) == m


def test_typed_names_in_evaluate_and_cli(capsys):
    qrels = {"q1": {"a"}, "q2": {"b"}}
    run = {"q1": ["x", "a"], "q2": ["b"]}
    ev = mrrstats.evaluate(qrels, run, ["MRR@10", "HitRate@1", "P_1"])
    assert ev.measure_names == ["RR@10", "Success@1", "P@1"]
    assert ev.aggregate().loc["run"].tolist() == [0.75, 0.5, 0.5]
    assert main(["evaluate", "--example", "-m", "ndcg_cut_10", "-m", "MRR@10"]) == 0
    out = capsys.readouterr().out
    assert "nDCG@10" in out and "RR@10" in out and "ndcg_cut" not in out


def test_output_piped_into_head_ends_quietly():
    import subprocess
    import sys

    cmd = [sys.executable, "-m", "mrrstats", "evaluate", "--example", "--per-query",
           "--format", "tsv", "-m", "RR", "-m", "AP", "-m", "P@10", "-m", "nDCG@10"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = proc.stdout.readline()
    proc.stdout.close()  # what `head -1` does
    err = proc.stderr.read()
    code = proc.wait(timeout=120)
    assert first.startswith(b"run\tquery\tmeasure\tvalue")
    assert err == b"" and code == 0


def test_evaluate_tsv_is_a_compare_scores_input(tmp_path, capsys):
    assert main(["evaluate", "--example", "-m", "RR@10", "-m", "AP", "--per-query",
                 "--format", "tsv"]) == 0
    path = tmp_path / "ev.tsv"
    path.write_text(capsys.readouterr().out)
    ev = mrrstats.evaluate(mrrstats.datasets.cast2021().qrels,
                           list(mrrstats.datasets.cast2021().runs), ["RR@10", "AP"])
    with pytest.raises(mrrstats.InputError, match="several measures"):
        mrrstats.read_score_matrix(path)
    matrix = mrrstats.read_score_matrix(path, measure="RR@10")
    want = ev.scores("RR@10")
    pd.testing.assert_frame_equal(matrix, want.loc[matrix.index], check_names=False,
                                  check_exact=True)
    one = tmp_path / "rr.tsv"
    assert main(["evaluate", "--example", "-m", "RR", "--per-query", "--format", "tsv"]) == 0
    one.write_text(capsys.readouterr().out)
    assert main(["compare", "--scores", str(one), "--n-resamples", "50", "--seed", "1"]) == 0
    assert "org_manual_bm25.run" in capsys.readouterr().out


@pytest.mark.parametrize("command", ["evaluate", "baseline", "agreement", "report"])
def test_every_command_has_example(command):
    from mrrstats.cli import build_parser

    parser = build_parser()
    sub = parser._subparsers._group_actions[0].choices[command]
    assert any("--example" in a.option_strings for a in sub._actions)


def test_agreement_example_runs(capsys):
    assert main(["agreement", "--example", "--no-power", "-m", "RR", "-m", "AP"]) == 0
    assert "RR" in capsys.readouterr().out
