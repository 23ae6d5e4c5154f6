"""``mrrstats reproducibility``: the example, and the numbers of the function."""

from __future__ import annotations

import mrrstats
from mrrstats.cli import main


def test_example_matches_the_function(capsys):
    assert main(["reproducibility", "--example", "--n-resamples", "99", "-m", "AP", "RR"]) == 0
    out = capsys.readouterr().out
    data = mrrstats.datasets.cast2021()
    runs = {mrrstats.read_run(r).name: r for r in data.runs}
    res = mrrstats.reproducibility(
        data.qrels,
        {"baseline": runs["org_convdr.run"], "advanced": runs["org_convdr_bert.run"]},
        {"baseline": runs["org_manual_bm25.run"], "advanced": runs["org_manual_ance.run"]},
        measures=["AP", "RR"],
        n_resamples=None,
    )
    for m in ("AP", "RR"):
        line = next(ln for ln in out.splitlines() if ln.startswith(m + " "))
        assert f"{res.er[m]:.4f}" in line and f"{res.delta_ri[m]:+.4f}" in line
    assert f"KTU baseline {res.ktu['baseline']:.4f}" in out


def test_replicability_and_usage_errors(capsys):
    data = mrrstats.datasets.cast2021()
    runs = [str(r) for r in data.runs]
    argv = [
        "reproducibility",
        str(data.qrels),
        "--original",
        runs[0],
        runs[1],
        "--reproduced",
        runs[2],
        runs[3],
        "--reproduced-qrels",
        str(data.qrels),
        "--n-resamples",
        "99",
        "--seed",
        "1",
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("# replicability") and "RMSE" not in out
    assert main(["reproducibility", str(data.qrels), "--original", runs[0], runs[1]]) == 2
    assert "--reproduced" in capsys.readouterr().err
