"""``.methods()`` of the results beyond the tests (issue 30 item 3): point effect sizes,
judgment bounds, decision agreement between measures, the convention multiverse and an
LLM judge's agreement with people. Each paragraph names the numbers the result holds,
and its BibTeX holds every work it cites (the checks of test_methods.py)."""

from __future__ import annotations

import warnings

import pytest

import mrrstats
from mrrstats.stats.methods import PROCEDURES, facts_of

from .test_methods import _check_citations


@pytest.fixture(scope="module")
def trec7():
    return mrrstats.datasets.trec7_scores("RR"), mrrstats.datasets.trec7_scores("AP")


def test_effect_sizes(trec7):
    rr, _ = trec7
    a, b = rr.iloc[:, 0], rr.iloc[:, 1]
    plain = mrrstats.effect_sizes(a, b, atol=0.01).methods()
    _check_citations(plain)
    assert plain.text.startswith(f"We compared two systems over {len(rr)} queries")
    assert "$d_z" in plain.text and "probability of superiority" in plain.text
    assert "within 0.01 counted as ties" in plain.text
    assert "@cohen1988" in plain.text and "@mcgraw1992" in plain.text
    assert "ES_E" not in plain.text  # no residual variance given: no ES_E
    with_ve = mrrstats.effect_sizes(a, b, residual_variance=mrrstats.residual_variance(rr))
    m = with_ve.methods()
    _check_citations(m)
    assert "$ES_E$" in m.text and "@sakai2018" in m.text


def test_judgment_bounds():
    data = mrrstats.datasets.cast2021()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = mrrstats.judgment_bounds(data.qrels, data.runs[:3], ["RR", "nDCG@10"])
    m = res.methods()
    _check_citations(m)
    assert m.text.startswith("We bounded the RR and nDCG@10 of 3 runs over 158 queries")
    assert "non-relevant (trec_eval's convention" in m.text
    assert "@buckley2007" in m.text and "@sakai2007" in m.text
    flagged = "No run was flagged" if not res.flagged else ", ".join(res.flagged)
    assert flagged in m.text


@pytest.mark.parametrize(
    ("test", "correction", "b_shown"),
    [
        ("randomization", "holm", True),
        ("t", "single-step", True),
        ("t", "bonferroni", False),
        ("tukey", "holm", True),
    ],
)
def test_decision_agreement(trec7, test, correction, b_shown):
    rr, ap = trec7
    res = mrrstats.decision_agreement(
        {"RR": rr.iloc[:, :5], "AP": ap.iloc[:, :5]},
        "RR",
        "AP",
        test=test,
        correction=correction,
        n_resamples=999,
        alpha=0.1,
        rng=4,
    )
    m = res.methods()
    _check_citations(m)
    assert m.text.startswith("We compared the decisions of RR and AP on the 10 pairs")
    assert "$\\alpha = 0.1$" in m.text
    assert (f"$B = {res.n_resamples}$" in m.text and "(seed 4)" in m.text) is b_shown
    counts = (
        f"{res.n_both} significant under both in the same direction, {res.n_only_a} "
        f"only under RR, {res.n_only_b} only under AP and {res.n_reversed} reversed"
    )
    assert counts in m.text and "@sakai2006" in m.text
    for key in PROCEDURES[test].cites:
        assert f"@{key}" in m.text
    if test == "tukey":  # a family-wise procedure: no separate correction
        assert "Holm" not in m.text and "The procedure controls the family-wise" in m.text
    elif correction == "holm":
        assert "Holm's step-down procedure" in m.text


def test_multiverse():
    data = mrrstats.datasets.cast2021()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = mrrstats.multiverse(
            data.qrels,
            data.runs[:3],
            ["RR"],
            ties=["trec_eval", "rank"],
            rels=[1, 2],
            test="randomization",
            n_resamples=499,
            rng=8,
        )
    m = res.methods()
    _check_citations(m)
    n = len(res.summary)
    assert m.text.startswith(
        f"We evaluated 3 systems on RR under {n} conventions (varying the tie convention"
    )
    assert "the relevance threshold" in m.text
    assert "@steegen2016" in m.text and "@kendall1938" in m.text and "@fisher1935" in m.text
    assert "$B = 499$" in m.text and "(seed 8)" in m.text
    assert facts_of(res).correction == res.correction


def test_judge_agreement():
    j = mrrstats.datasets.cast2021_judged()
    labels_only = mrrstats.judge_agreement(j.judge_qrels, j.human_qrels)
    m0 = labels_only.methods()
    _check_citations(m0)
    n_pairs = int(labels_only.labels["n_pairs"].iloc[0])
    assert f"The labels of the {n_pairs} (query, document) pairs" in m0.text
    assert "Cohen's $\\kappa$" in m0.text and "Krippendorff's $\\alpha$" in m0.text
    assert "$B =" not in m0.text and "tau_{AP}" not in m0.text  # no runs: no conclusions
    with_runs = mrrstats.judge_agreement(
        j.judge_qrels,
        j.human_qrels,
        j.runs[:3],
        ["RR"],
        test="t",
        correction="holm",
        n_resamples=999,
        rng=2,
    )
    m = with_runs.methods()
    _check_citations(m)
    assert "$\\tau_{AP}$" in m.text and "@yilmaz2008" in m.text and "@holm1979" in m.text
    assert "(RR of 3 systems)" in m.text and "paired t-test" in m.text
    assert "$B =" not in m.text  # a t-test with Holm's correction draws nothing


def test_every_new_result_is_registered():
    from mrrstats.stats.methods import _READERS

    assert {
        "EffectSizes",
        "JudgmentBounds",
        "DecisionAgreement",
        "MultiverseResult",
        "JudgeAgreement",
    } <= set(_READERS)
    for name in (
        "EffectSizes",
        "JudgmentBounds",
        "DecisionAgreement",
        "MultiverseResult",
        "JudgeAgreement",
    ):
        assert callable(getattr(getattr(mrrstats, name), "methods", None)), name


def test_bootstrap_normal_and_studentized_intervals_are_named(trec7):
    rr, _ = trec7
    for method, words in (
        ("normal", "normal bootstrap intervals"),
        ("studentized", "studentised (bootstrap-t) intervals"),
    ):
        m = mrrstats.bootstrap_ci(
            rr.iloc[:, 0], rr.iloc[:, 1], method=method, n_resamples=999, rng=1
        ).methods()
        _check_citations(m)
        assert words in m.text and "@efron1993" in m.text
