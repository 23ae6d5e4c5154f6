"""The CLI options of what R offers beside the defaults (issue #30, part 5): ``collections
--tau2 --knapp-hartung`` (metafor's ``rma(method=, test="knha")``, Q-profile interval of
tau^2), ``estimate --bootstrap-method`` (boot.ci's ``norm`` and ``stud``) and ``mixed --df
satterthwaite`` (lmerTest). The numbers printed are the Python API's, which
tests/stats/test_meta.py, test_bootstrap.py and test_mixed.py hold against R; bad values
end with exit code 2 and one line naming the option."""

from __future__ import annotations

import re

import numpy as np
import pytest

import mrrstats
from mrrstats.cli import main
from mrrstats.formatting import interval_text, pvalue_text

from .test_bad_input import check_refused, run_cli


def _numbers(text):
    return [float(x) for x in re.findall(r"[-+]?\d+\.\d+(?:e[-+]?\d+)?", text)]


def _example_collections():
    rr = mrrstats.datasets.trec7_scores("RR")
    order = rr.mean().sort_values(ascending=False, kind="stable").index
    a, b = order[0], order[len(order) // 2]
    return {
        f"topics {10 * i + 1}-{10 * i + 10}": rr.iloc[10 * i : 10 * i + 10][[a, b]]
        for i in range(5)
    }


@pytest.mark.parametrize("knha", [False, True])
def test_collections_tau2_methods_and_knapp_hartung(knha, capsys):
    argv = ["collections", "--example", "--tau2", "REML", "SJ", "DL"]
    if knha:
        argv.append("--knapp-hartung")
    assert main(argv) == 0
    out = capsys.readouterr().out
    ref = mrrstats.across_collections(
        _example_collections(),
        tau2_methods=("REML", "SJ", "DL"),
        meta_test="knha" if knha else "z",
        rng=2021,
    )
    assert ("Knapp-Hartung t interval" in out) is knha
    rows = {
        ln.split()[0]: ln
        for ln in out.splitlines()
        if ln.split() and ln.split()[0] in ("REML", "SJ", "DL", "PM")
    }
    assert list(rows) == ["REML", "SJ", "DL"]  # the rows asked for, in that order
    for m, line in rows.items():
        r = ref.meta.loc[m]
        assert interval_text(r.ci_low, r.ci_high, "+.4f") in line
        assert interval_text(r.tau2_ci_low, r.tau2_ci_high, ".4g") in line  # Q-profile
        assert f" {pvalue_text(r.pvalue)} " in line
        assert f"{r.estimate:+.4f}" in line
    # the methods paragraph names the estimators, the adjustment and the tau^2 interval
    assert main([*argv, "--methods"]) == 0
    text = capsys.readouterr().out
    assert "@viechtbauer2005" in text and "@sidik2005" in text and "@viechtbauer2007" in text
    assert ("@knapp2003" in text) is knha
    assert text.strip().endswith(ref.methods().text.strip()[-200:])


@pytest.mark.parametrize("method", ["normal", "studentized", "percentile"])
def test_estimate_bootstrap_method(method, capsys):
    assert (
        main(
            [
                "estimate",
                "--example",
                "--bootstrap-method",
                method,
                "--seed",
                "5",
                "--n-resamples",
                "2000",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if ln.startswith("mean difference"))
    data = mrrstats.datasets.cast2021()
    frame = mrrstats.evaluate(data.qrels, data.runs[:2], ["RR"]).scores("RR")
    a, b = frame.iloc[:, 0], frame.iloc[:, 1]
    # the CLI's Generator serves effect_size_intervals first, then bootstrap_ci
    gen = np.random.default_rng(5)
    mrrstats.effect_size_intervals(a, b, n_resamples=2000, rng=gen)
    ci = mrrstats.bootstrap_ci(a, b, method=method, n_resamples=2000, rng=gen)
    low, high = ci.confidence_interval()
    assert f"bootstrap {method}, B = 2000" in line
    assert interval_text(low, high, "+.4f") in line


def test_mixed_satterthwaite(tmp_path, capsys):
    ap = mrrstats.datasets.trec7_scores("AP").iloc[:, :4]
    path = tmp_path / "ap.csv"
    ap.to_csv(path, index=False)
    assert main(["mixed", "--scores", str(path), "-m", "AP", "--df", "satterthwaite"]) == 0
    out = capsys.readouterr().out
    res = mrrstats.mixed_model(ap, df_method="satterthwaite")
    assert "Satterthwaite t intervals" in out
    for system, row in res.effects.iterrows():
        line = next(ln for ln in out.splitlines() if f" {system} " in ln)
        np.testing.assert_allclose(
            _numbers(line),
            row[["estimate", "standard_error", "ci_low", "ci_high", "df"]],
            atol=5e-3,
        )
    diffs = res.differences()
    pair_lines = [ln for ln in out.splitlines() if re.match(r"[a-z]+ - [a-z]+ ", ln)]
    assert len(pair_lines) == len(diffs) == 6
    for line, row in zip(pair_lines, diffs.itertuples(index=False), strict=True):
        cells = re.split(r"\s{2,}", line.strip())
        np.testing.assert_allclose(
            [float(cells[1]), float(cells[2]), *_numbers(cells[3])],
            [row.difference, row.standard_error, row.ci_low, row.ci_high],
            atol=5e-5,
        )
        assert cells[4] == pvalue_text(row.pvalue)
    # the default stays Wald
    assert main(["mixed", "--scores", str(path), "-m", "AP"]) == 0
    assert "Wald intervals" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (["collections", "--example", "--tau2", "XX"], "--tau2"),
        (["collections", "--example", "--tau2"], "--tau2"),
        (["estimate", "--example", "--bootstrap-method", "bogus"], "--bootstrap-method"),
        (["mixed", "--example", "--df", "kenward"], "--df"),
    ],
)
def test_bad_values_are_refused(argv, option, capsys):
    code, _, err = run_cli(argv, capsys)
    check_refused(code, err, names=[option])
