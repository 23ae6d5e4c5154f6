"""``mrrstats sampled``, ``mrrstats unpaired`` and ``mrrstats mixed``: the numbers printed
are the Python API's, and bad input names the argument."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import mrrstats
from mrrstats.cli import main
from mrrstats.formatting import interval_text, letters, pvalue_text


def _numbers(line):
    return [float(x) for x in re.findall(r"[-+]?\d+\.\d+", line)]


# --------------------------------------------------------------------------
# sampled
# --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sampled_ranks():
    rng = np.random.default_rng(3)
    n = rng.integers(300, 500, 200)
    full = rng.integers(1, 60, 200)
    above = rng.hypergeometric(full - 1, n - full, 50)
    return above + 1, n


def _method_rows(out):
    rows = {}
    for line in out.splitlines():
        parts = line.split()
        if parts and parts[0] in ("naive", "rank-mapping", "minimal-bias", "bias-variance"):
            rows[parts[0]] = _numbers(line)
    return rows


def test_cli_sampled_equals_api(sampled_ranks, tmp_path, capsys):
    ranks, n = sampled_ranks
    plain = tmp_path / "ranks.txt"
    plain.write_text("\n".join(map(str, ranks)) + "\n")
    assert main(["sampled", str(plain), "--negatives", "50", "--candidates", "400",
                 "--seed", "7", "--n-resamples", "300", "--method", "naive",
                 "--method", "bias-variance", "--method", "minimal-bias"]) == 0
    out = capsys.readouterr().out
    rows = _method_rows(out)
    assert list(rows) == ["naive", "bias-variance", "minimal-bias"]
    for meth, got in rows.items():
        ref = mrrstats.correct_sampled_metric(ranks, 50, 400, method=meth, n_resamples=300,
                                              rng=7)
        lam = [0.01] if meth == "bias-variance" else []
        want = [*lam, ref.estimate, ref.low, ref.high, ref.estimate - ref.naive]
        np.testing.assert_allclose(got, want, atol=5e-5)
    assert "seed = 7" in out

    # a CSV with a header: ranks and a per-query candidate column, nDCG
    csv = tmp_path / "ranks.csv"
    pd.DataFrame({"query": [f"q{i}" for i in range(ranks.size)], "sampled_rank": ranks,
                  "n": n}).to_csv(csv, index=False)
    assert main(["sampled", str(csv), "--negatives", "50", "--candidates", "n", "-m", "nDCG",
                 "--seed", "2", "--n-resamples", "200"]) == 0
    rows = _method_rows(capsys.readouterr().out)
    assert list(rows) == ["naive", "rank-mapping", "bias-variance"]  # the default methods
    ref = mrrstats.correct_sampled_metric(ranks, 50, n, "nDCG", n_resamples=200, rng=2)
    np.testing.assert_allclose(rows["bias-variance"][1:4], [ref.estimate, ref.low, ref.high],
                               atol=5e-5)


def test_cli_sampled_example_full_mrr(capsys):
    assert main(["sampled", "--example", "--seed", "4", "--n-resamples", "99"]) == 0
    out = capsys.readouterr().out
    # the popularity scorer's full filtered MRR on UMLS (benchmarks/results_sampled.md)
    assert "full filtered MRR (known in this example): 0.6751" in out
    rows = _method_rows(out)
    assert rows["naive"][0] > rows["rank-mapping"][0] > 0.6751 > rows["bias-variance"][1]


@pytest.mark.parametrize("argv, words", [
    (["--negatives", "50", "--candidates", "400"], "RANKS"),
    (["RANKS", "--candidates", "400"], "--negatives"),
    (["RANKS", "--negatives", "50"], "--candidates"),
    (["RANKS", "--negatives", "50", "--candidates", "nope"], "--candidates 'nope'"),
    (["RANKS", "--negatives", "50", "--candidates", "400", "--column", "x"], "--column 'x'"),
    (["RANKS", "--negatives", "5", "--candidates", "400"], "`sampled_ranks`"),
    (["RANKS", "--negatives", "50", "--candidates", "30"], "`n_candidates`"),
    (["missing.txt", "--negatives", "50", "--candidates", "400"], "no such file"),
])
def test_cli_sampled_errors(argv, words, sampled_ranks, tmp_path, capsys):
    ranks, _ = sampled_ranks
    path = tmp_path / "ranks.txt"
    path.write_text("\n".join(map(str, ranks)) + "\n")
    argv = [str(path) if a == "RANKS" else a for a in argv]
    assert main(["sampled", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mrrstats: error:") and words in err


# --------------------------------------------------------------------------
# unpaired
# --------------------------------------------------------------------------
def test_cli_unpaired_equals_api(tmp_path, capsys):
    rng = np.random.default_rng(0)
    a = np.round(rng.random(30), 3)
    b = np.round(rng.random(41) * 0.8, 3)
    pa, pb = tmp_path / "a.csv", tmp_path / "b.csv"
    pd.DataFrame({"query": [f"a{i}" for i in range(30)], "sysA": a}).to_csv(pa, index=False)
    pd.DataFrame({"query": [f"b{i}" for i in range(41)], "x": b, "sysB": b[::-1]}).to_csv(
        pb, index=False)
    assert main(["unpaired", "--scores", str(pa), str(pb), "--systems", "sysA", "sysB",
                 "--seed", "5", "--n-resamples", "999", "--alternative", "greater"]) == 0
    out = capsys.readouterr().out
    lines = {ln.split()[0]: ln for ln in out.splitlines() if ln and not ln.startswith("#")}
    bb = b[::-1]
    w = mrrstats.unpaired_ttest(a, bb, alternative="greater")
    got = _numbers(lines["Welch"])
    np.testing.assert_allclose(got[:2], [w.statistic, w.df], atol=5e-3)
    assert f"p = {pvalue_text(w.pvalue)}" in lines["Welch"]
    assert interval_text(w.low, w.high, "+.4f") in lines["Welch"]
    perm = mrrstats.unpaired_permutation_test(a, bb, alternative="greater", n_resamples=999,
                                              rng=5)
    floor = perm.n_resamples if perm.method == "monte-carlo" else None
    assert f"p = {pvalue_text(perm.pvalue, floor)}" in lines["permutation"]
    boot = mrrstats.unpaired_bootstrap_ci(a, bb, n_resamples=999, rng=5)
    assert interval_text(boot.low, boot.high, "+.4f") in lines["bootstrap"]
    assert f"difference A - B {a.mean() - bb.mean():+.4f}" in out
    assert "30 queries" in out and "41 queries" in out

    # one test only, basic bootstrap
    assert main(["unpaired", "--scores", str(pa), str(pb), "--test", "bootstrap",
                 "--bootstrap-method", "basic", "--seed", "1", "--n-resamples", "500"]) == 0
    out = capsys.readouterr().out
    assert "Welch" not in out and "permutation" not in out
    boot = mrrstats.unpaired_bootstrap_ci(a, b, method="basic", n_resamples=500, rng=1)
    assert f"[{boot.low:+.4f}, {boot.high:+.4f}] (basic" in out


def test_cli_unpaired_runs_and_errors(tmp_path, capsys):
    data = mrrstats.datasets.cast2021()
    q, r1, r2 = str(data.qrels), str(data.runs[0]), str(data.runs[1])
    assert main(["unpaired", "--a", q, r1, "--b", q, r2, "--test", "welch"]) == 0
    cap = capsys.readouterr()
    ev = mrrstats.evaluate(data.qrels, [data.runs[0], data.runs[1]], ["RR"])
    s = ev.scores("RR")
    w = mrrstats.unpaired_ttest(s.iloc[:, 0], s.iloc[:, 1])
    assert f"p = {pvalue_text(w.pvalue)}" in cap.out
    assert "same queries" in cap.err  # the paired tests would be the right ones
    for argv, words in [([], "give one of"), (["--a", q, r1], "need both"),
                        (["--example", "--a", q, r1], "give one of"),
                        (["--scores", r1, r2, "--systems", "nope", "x"], "")]:
        assert main(["unpaired", *argv]) == 2
        assert words in capsys.readouterr().err
    path = tmp_path / "s.csv"
    pd.DataFrame({"A": [0.1, 0.5, 1.0]}).to_csv(path, index=False)
    assert main(["unpaired", "--scores", str(path), str(path), "--systems", "A", "Z"]) == 2
    assert "--systems: 'Z' is not a column" in capsys.readouterr().err


# --------------------------------------------------------------------------
# mixed
# --------------------------------------------------------------------------
def test_cli_mixed_equals_api(tmp_path, capsys):
    data = mrrstats.datasets.cast2021()
    ev = mrrstats.evaluate(data.qrels, data.runs, ["AP"])
    frame = ev.scores("AP")
    path = tmp_path / "ap.csv"
    frame.to_csv(path)
    assert main(["mixed", "--scores", str(path), "-m", "AP", "--confidence-level", "0.9"]) == 0
    out = capsys.readouterr().out
    res = mrrstats.mixed_model(frame, confidence_level=0.9)
    label = dict(zip(res.effects.index, letters(len(res.effects)), strict=True))
    for system, row in res.effects.iterrows():
        line = next(ln for ln in out.splitlines() if ln.startswith(f"{label[system]}  {system} "))
        np.testing.assert_allclose(_numbers(line), row[["estimate", "standard_error", "ci_low", "ci_high"]],
                                   atol=5e-5)
    both = mrrstats.mixed_vs_anova(frame, confidence_level=0.9)
    assert f"two-way ANOVA V_E = {both.attrs['anova_residual_variance']:.6f}" in out
    assert f"sigma_u^2 = {res.query_variance:.6f}" in out
    pair_lines = [ln for ln in out.splitlines() if re.match(r"[a-z]+ - [a-z]+ ", ln)]
    assert len(pair_lines) == 10
    for line, row in zip(pair_lines, both.itertuples(index=False), strict=True):
        # pair, difference, se, interval, p (mixed); se, interval, p (ANOVA, Tukey)
        cells = re.split(r"\s{2,}", line.strip())
        assert cells[0] == f"{label[row.a]} - {label[row.b]}"
        np.testing.assert_allclose(
            [float(cells[1]), float(cells[2]), *_numbers(cells[3]), float(cells[5]),
             *_numbers(cells[6])],
            [row.difference, row.se_mixed, row.low_mixed, row.high_mixed, row.se_anova,
             row.low_anova, row.high_anova], atol=5e-5)
        assert (cells[4], cells[7]) == (pvalue_text(row.pvalue_mixed), pvalue_text(row.pvalue_tukey))
    assert "0.0000" not in " ".join(ln.split("  ")[-1] for ln in pair_lines)  # no p of 0
    # --example: the same runs evaluated here, at the default level
    assert main(["mixed", "--example", "-m", "AP"]) == 0
    ex = capsys.readouterr().out
    assert ex.startswith("# AP: 5 systems, 158 queries") and "0.95 Wald" in ex
    est = mrrstats.mixed_model(frame).effects["estimate"]
    for system, value in est.items():
        assert f" {system}  " in ex and f"{value:.4f}" in ex
    assert main(["mixed"]) == 2
    assert "need QRELS" in capsys.readouterr().err
    assert main(["mixed", "--example", "--scores", str(path)]) == 2
