"""LLM judges and unjudged documents: ppi, judges, bounds (tables, JSON, files, errors)."""

from __future__ import annotations

import json

import pytest

import mrrstats
from mrrstats.cli import main


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The bundled judged example written as TREC files."""
    d = tmp_path_factory.mktemp("judged")
    data = mrrstats.datasets.cast2021_judged()
    for name, q in (("judge.qrels", data.judge_qrels), ("human.qrels", data.human_qrels)):
        f = q.to_frame()
        (d / name).write_text("".join(f"{r.query} 0 {r.doc} {r.grade}\n"
                                      for r in f.itertuples()))
    return d, [str(r) for r in data.runs[:3]]


def test_ppi_json_matches_the_function(files, capsys):
    d, runs = files
    rc = main(["ppi", *runs, "--judge", str(d / "judge.qrels"), "--human",
               str(d / "human.qrels"), "-m", "RR", "--n-resamples", "99", "--seed", "4",
               "--format", "json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    res = mrrstats.ppi_evaluate(runs, d / "judge.qrels", d / "human.qrels", "RR",
                                n_resamples=99, rng=4)
    assert out["seed"] == 4 and out["n_human"] == res.n_human
    got = [r["ci_low"] for r in out["systems"]]
    assert got == pytest.approx(res.systems.ci_low.tolist(), abs=1e-12)
    assert len(out["pairs"]) == len(res.pairs)


def test_ppi_strata_and_errors(files, capsys):
    d, runs = files
    rc = main(["ppi", *runs, "--judge", str(d / "judge.qrels"), "--human",
               str(d / "human.qrels"), "--strata", "prefix:_", "--n-resamples", "9"])
    assert rc == 2  # some conversations have fewer than 2 human-labelled turns
    assert "at least 2" in capsys.readouterr().err
    assert main(["ppi", *runs, "--judge", str(d / "judge.qrels")]) == 2
    assert "--human" in capsys.readouterr().err


def test_judges_json_and_table(files, capsys):
    d, runs = files
    rc = main(["judges", *runs, "--judge", str(d / "judge.qrels"), "--human",
               str(d / "human.qrels"), "--test", "t", "--seed", "2", "--format", "json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert out["labels"]["n_pairs"] > 0 and out["rankings"][0]["measure"] == "RR"
    assert sum(sum(v.values()) for v in out["confusion"].values()) == out["labels"]["n_pairs"]
    rc = main(["judges", "--judge", str(d / "judge.qrels"), "--human", str(d / "human.qrels")])
    assert rc == 0 and "Krippendorff" in capsys.readouterr().out


def test_bounds_table_json_and_per_query(capsys):
    assert main(["bounds", "--example", "-m", "RR", "-m", "nDCG@10", "--format", "json",
                 "--per-query"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {r["measure"] for r in out["systems"]} == {"RR", "nDCG@10"}
    assert all(r["lower"] <= r["upper"] for r in out["per_query"])
    assert main(["bounds", "--example"]) == 0
    assert "Judged@10" in capsys.readouterr().out
    assert main(["bounds"]) == 2
