"""``--methods`` of the commands that run a test: the paragraph instead of the results
(``mrrstats compare --methods`` is tested in test_compare.py)."""

from __future__ import annotations

from mrrstats.cli import main


def test_unpaired_methods(capsys):
    assert main(["unpaired", "--example", "--methods", "--seed", "3", "--n-resamples",
                 "400"]) == 0
    out = capsys.readouterr().out
    paragraphs = out.strip().split("\n\n")
    assert len(paragraphs) == 3  # Welch, permutation, bootstrap
    assert "independent query sets of 94 and 64 queries" in paragraphs[0]
    assert "[@welch1947]" in paragraphs[0]
    assert "$B = 400$ random permutations (seed 3)" in paragraphs[1]
    assert "$B = 400$ bootstrap resamples of each query set (seed 3)" in paragraphs[2]
    assert "mean A" not in out  # the results table is not printed


def test_replicates_methods(capsys):
    assert main(["replicates", "--example", "--methods", "--seed", "2", "--n-resamples",
                 "300"]) == 0
    out = capsys.readouterr().out
    assert "5 systems (10 pairs) on RR over 158 queries" in out
    assert "$B = 300$ two-stage bootstrap resamples (seed 2)" in out
    assert "5 replicate runs per system" in out and "$\\alpha = 0.05$" in out


def test_mixed_methods(capsys):
    assert main(["mixed", "--example", "--methods"]) == 0
    out = capsys.readouterr().out
    assert "systems on RR over" in out and "REML" in out and "[@laird1982]" in out
    assert "Wald intervals" in out and "query variance" not in out


def test_bounds_judges_and_multiverse_methods(capsys):
    """The results of issue 30 item 3 beyond the tests: --methods prints their paragraph."""
    assert main(["bounds", "--example", "--methods", "-m", "RR", "-m", "P@10"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("We bounded the RR and P@10 of 5 runs over 158 queries")
    assert "[@buckley2007; @sakai2007]" in out and "| run" not in out
    assert main(["judges", "--example", "--methods", "--seed", "4", "--n-resamples", "300",
                 "--correction", "holm"]) == 0
    out = capsys.readouterr().out
    assert "Cohen's $\\kappa$" in out and "$B = 300$" in out and "(seed 4)" in out
    assert "@holm1979" in out
    assert main(["multiverse", "--example", "--methods", "--ties", "trec_eval", "rank",
                 "--queries", "both", "--cutoffs", "none"]) == 0
    out = capsys.readouterr().out
    assert "varying the tie convention" in out and "[@steegen2016]" in out
    assert "the cutoff" not in out  # one cutoff: not varied
