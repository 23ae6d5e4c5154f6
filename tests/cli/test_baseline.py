"""``mrrstats baseline``: ranks files and QRELS + RUN input."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import pytest

import mrrstats
from mrrstats.cli import main


def _run(argv, capsys):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_ranks_file_whitespace_with_comments(tmp_path, capsys):
    f = tmp_path / "ranks.txt"
    f.write_text("# link prediction ranks\nq1 1 5\nq2 2 5   # second\n\nq3 inf 5\n")
    code, out, err = _run(["baseline", "--ranks", str(f), "--format", "json"], capsys)
    assert code == 0, err
    res = json.loads(out)["results"]["ranks.txt"]
    # observed MRR (1 + 1/2 + 0) / 3; E = H(5)/5; exact p = P(sum of 3 RRs >= 1.5),
    # each RR uniform on {1, 1/2, ..., 1/5}: counted by enumeration here.
    assert res["observed"] == pytest.approx(0.5)
    assert res["expected"] == pytest.approx(sum(1 / j for j in range(1, 6)) / 5)
    vals = [Fraction(1, j) for j in range(1, 6)]
    hits = sum(1 for c in itertools.product(vals, repeat=3) if sum(c) >= Fraction(3, 2))
    assert res["pvalue"] == pytest.approx(hits / 125)
    assert res["method"] == "exact"
    api = mrrstats.random_baseline_test([1, 0.5, 0], [5, 5, 5])
    assert res["zscore"] == pytest.approx(api.zscore)
    assert res["adjusted"] == pytest.approx(api.adjusted)
    assert "z" not in res  # one name: zscore only
    assert res["standard_error"] == pytest.approx(api.standard_error)
    assert res["seed"] is None  # an exact p-value draws nothing


def test_ranks_file_csv_header_relevant_and_cutoff(tmp_path, capsys):
    f = tmp_path / "ranks.csv"
    f.write_text("query,rank,n_candidates,n_relevant\na,1,10,2\nb,2.5,10,1\nc,4,20,3\n")
    code, out, err = _run(["baseline", "--ranks", str(f), "-k", "3", "--format", "json"],
                          capsys)
    assert code == 0, err
    res = json.loads(out)["results"]["ranks.csv"]
    assert res["measure"] == "RR@3"
    # RR@3: 1, 1/2.5 = 0.4 (a realistic rank), 0 (rank 4 > 3)
    assert res["observed"] == pytest.approx((1 + 0.4 + 0) / 3)
    assert res["expected"] == pytest.approx(
        mrrstats.expected_mrr([10, 10, 20], [2, 1, 3], k=3))


def test_ranks_file_table_output(tmp_path, capsys):
    f = tmp_path / "r.txt"
    f.write_text("\n".join(f"q{i} {1 + i % 7} 1000" for i in range(60)) + "\n")
    code, out, _ = _run(["baseline", "--ranks", str(f), "--seed", "3", "--n-resamples", "499"],
                        capsys)
    assert code == 0
    assert "MRR" in out and "E[random]" in out and "adjusted" in out and " pvalue" in out
    assert "monte-carlo" in out and "B=499 seed=3" in out
    # p-value floor (b + 1)/(B + 1) for a clearly better-than-random system
    assert "0.002" in out


@pytest.mark.parametrize("content,message", [
    ("q1 0 5\n", "line 1: rank must be >= 1"),
    ("q1 1\n", "line 1: expected 3 or 4 fields"),
    ("q1 x 5\n", "rank 'x' is not a number"),
    ("q1 1 5\nq1 2 5\n", "line 2: query 'q1' appears twice"),
    ("q1 5 5 2\n", "exceeds n_candidates - n_relevant + 1"),
    ("query rank count\n", "header must be"),
    ("# nothing\n", "no ranks in file"),
])
def test_ranks_file_errors(tmp_path, capsys, content, message):
    f = tmp_path / "bad.txt"
    f.write_text(content)
    code, _, err = _run(["baseline", "--ranks", str(f)], capsys)
    assert code == 2
    assert message in err and "bad.txt" in err


def test_qrels_run_random_defaults_to_retrieved(capsys):
    # one default for `baseline` and `report` (mrrstats.defaults.RANDOM), named in the output
    code, out, err = _run(["baseline", "--example"], capsys)
    assert code == 0, err
    assert "random=retrieved" in out.splitlines()[0]
    code, _, err = _run(["baseline", "--ranks", "x.txt", "--random", "judged"], capsys)
    assert code == 2 and "--random applies to QRELS RUN input only" in err


def test_qrels_run_json_matches_api(capsys):
    data = mrrstats.datasets.cast2021()
    runs = [str(p) for p in data.runs[:2]]
    code, out, err = _run(["baseline", str(data.qrels), *runs, "--random", "judged",
                           "-k", "5", "--format", "json", "--seed", "1",
                           "--n-resamples", "199"], capsys)
    assert code == 0, err
    payload = json.loads(out)
    assert payload["random"] == "judged"
    ev = mrrstats.evaluate(data.qrels, runs, ["RR@5"])
    tab = mrrstats.evaluation_baseline(ev, random="judged", measure="RR@5",
                                       n_resamples=199, rng=1)
    for run in ev.runs:
        got = payload["results"][run]
        assert got["observed"] == pytest.approx(tab.loc[run, "observed"])
        assert got["expected"] == pytest.approx(tab.loc[run, "expected"])
        assert got["std"] == pytest.approx(tab.loc[run, "std"])
        assert got["pvalue"] == pytest.approx(tab.loc[run, "pvalue"])
        assert got["queries"] == 158
        assert got["seed"] == tab.loc[run, "seed"]  # None where the p-value is exact
    assert payload["seed"] == tab.attrs["seed"] == 1
    code, out, err = _run(["baseline", str(data.qrels), runs[0], "--random", "retrieved",
                           "--seed", "2", "--n-resamples", "99"], capsys)
    assert code == 0, err
    assert "random=retrieved" in out and ev.runs[0] in out and ev.runs[1] not in out
