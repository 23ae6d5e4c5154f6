"""trec_eval's other measures (metrics.trec_measures): names, worked examples, tie conventions
and doors. Their per-query agreement with trec_eval itself is in test_conformance.py."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

import mrrstats
from mrrstats import Measure, parse_measure
from mrrstats.io.flat import flat_to_qrels_run

NAN = float("nan")
EPS = 0.00001  # trec_eval's INFAP_EPSILON


@pytest.mark.parametrize(
    "typed, canonical, trec_eval",
    [
        ("bpref", "Bpref", "bpref"),
        ("BPREF", "Bpref", "bpref"),
        ("r_prec", "Rprec", "Rprec"),
        ("Rprec", "Rprec", "Rprec"),
        ("infAP", "infAP", "infAP"),
        ("iprec_at_recall_0.10", "IPrec@0.1", "iprec_at_recall_0.10"),
        ("IPrec@0", "IPrec@0", "iprec_at_recall_0.00"),
        ("IPrec@1.0", "IPrec@1", "iprec_at_recall_1.00"),
        ("set_P", "SetP", "set_P"),
        ("set_recall", "SetR", "set_recall"),
        ("set_F", "SetF", "set_F"),
        ("SetF(beta=1)", "SetF", "set_F"),
        ("SetF(beta=0.5)", "SetF(beta=0.5)", None),
        ("num_ret", "NumRet", "num_ret"),
        ("num_rel", "NumRel", "num_rel"),
        ("num_rel_ret", "NumRelRet", "num_rel_ret"),
        ("NumRet(rel=1)", "NumRelRet(rel=1)", "num_rel_ret"),
        ("rbp", "RBP(p=0.9)", "rbp"),
        ("RBP(p=0.8)", "RBP(p=0.8)", None),
        ("RBP(rel=2,p=0.8)@10", "RBP(p=0.8,rel=2)@10", None),
        ("rbp_resid", "RBPResid(p=0.9)", "rbp_resid"),
        ("rndcg", "Rndcg", "Rndcg"),
        ("map_cut_10", "AP@10", "map_cut_10"),
    ],
)
def test_names_aliases_and_round_trip(typed, canonical, trec_eval):
    m = parse_measure(typed)
    assert str(m) == canonical
    assert parse_measure(canonical) == m
    assert m.trec_eval_name == trec_eval


@pytest.mark.parametrize(
    "bad, match",
    [
        ("Bpref@10", "takes no cutoff"),
        ("IPrec", "needs a cutoff"),
        ("IPrec@1.5", r"\[0, 1\]"),
        ("IPrec@x", "recall level"),
        ("RBP(p=1)", r"\(0, 1\)"),
        ("RBP(p=x)", "must be a number"),
        ("SetF(beta=-1)", ">= 0"),
        ("SetP(beta=1)", "unknown parameter"),
        ("NumRet(rel=0)", "`rel`"),
        ("Bpref(rel=0)", "`rel`"),
    ],
)
def test_bad_names(bad, match):
    with pytest.raises(mrrstats.errors.ParameterError, match=match):
        parse_measure(bad)


def test_measure_objects_check_their_parameters():
    assert Measure("RBP").param == 0.9 and Measure("SetF").param == 1.0
    with pytest.raises(ValueError, match="takes no parameter"):
        Measure("Bpref", param=2.0)
    with pytest.raises(ValueError, match="takes no `rel`"):
        Measure("NumRet", rel=2)


# One query, worked by hand from the trec_eval sources (m_*.c): ranking grades in rank
# order (NaN: not in the qrels), judged grades 2, 1, 1, 1, 0, 0, 0 (R = 4, N = 3 at rel=1).
RANKING = [0, 1, NAN, 0, 2, 1]
JUDGED = [2, 1, 1, 1, 0, 0, 0]
_DCG = 1 / math.log2(3) + 2 / math.log2(6) + 1 / math.log2(7)
_IDCG = 2 + 1 / math.log2(3) + 1 / math.log2(4) + 1 / math.log2(5)


def _infap_term(j, rel_so_far, nonrel, pooled=0):
    return 1 / (j + 1) + (j / (j + 1)) * ((rel_so_far - 1 + nonrel + pooled) / j) * (
        (rel_so_far - 1 + EPS) / (rel_so_far - 1 + nonrel + 2 * EPS)
    )


WORKED = {
    # rel at ranks 2, 5, 6 with 1, 2, 2 judged non-relevant above: 1 - min(n, R) / min(N, R)
    "Bpref": ((1 - 1 / 3) + (1 - 2 / 3) + (1 - 2 / 3)) / 4,
    "Rprec": 1 / 4,  # one relevant in the top R = 4
    "infAP": (_infap_term(1, 1, 1) + _infap_term(4, 2, 2) + _infap_term(5, 3, 2)) / 4,
    "NumRet": 6,
    "NumRel": 4,
    "NumRelRet": 3,
    "SetP": 3 / 6,
    "SetR": 3 / 4,
    "SetF": 2 * 0.5 * 0.75 / (0.5 + 0.75),
    "SetF(beta=0.5)": 1.5 * 0.5 * 0.75 / (0.5 * 0.5 + 0.75),
    # precision at the relevant ranks: 1/2, 2/5, 3/6; lround(r * 4) relevant must be reached
    "IPrec@0": 0.5,
    "IPrec@0.5": 0.5,
    "IPrec@0.6": 0.5,
    "IPrec@1": 0.0,
    # gains: grade / 2 (the topic's highest grade); (1 - p) sum gain p^(rank - 1)
    "RBP(p=0.5)": 0.5 * (0.5 * 0.5**1 + 1.0 * 0.5**4 + 0.5 * 0.5**5),
    "RBP(p=0.5,rel=2)": 0.5 * 0.5**4,
    "RBP(p=0.5)@3": 0.5 * (0.5 * 0.5**1),
    # the unjudged document at rank 3: p^n + (1 - p) p^2
    "RBPResid(p=0.5)": 0.5**6 + 0.5 * 0.5**2,
    # levels: grade 2 ends at rank 1, grade 1 at rank 4; n = 6 > P + 1 = 5 adds DCG@6 / IDCG
    "Rndcg": (0.0 + (1 / math.log2(3)) / _IDCG + _DCG / _IDCG) / 3,
}


@pytest.mark.parametrize("name", list(WORKED))
def test_worked_example(name):
    got = mrrstats.score_rankings([RANKING], [name], judged=[JUDGED])
    assert got.iloc[0, 0] == pytest.approx(WORKED[name], abs=1e-12)


def test_iprec_interpolates_to_the_right():
    # relevant at ranks 3 and 4: precision 1/3 then 1/2; at recall 0.5 the best precision at
    # or below rank 3 is 1/2
    got = mrrstats.score_rankings(
        [[0, 0, 1, 1]], ["IPrec@0.5", "IPrec@1", "IPrec@0"], judged=[[1, 1]]
    )
    assert got.iloc[0].tolist() == [0.5, 0.5, 0.5]


def test_pooled_unjudged_grades_in_infap_and_bpref():
    # a qrels grade < 0 is pooled but unjudged: infAP counts it above a relevant document,
    # bpref skips it, rbp_resid counts it unjudged
    got = mrrstats.score_rankings(
        [[-1, 1]], ["infAP", "Bpref", "RBPResid(p=0.5)"], judged=[[1, 0, -1]]
    ).iloc[0]
    assert got["infAP"] == pytest.approx(_infap_term(1, 1, 0, pooled=1))
    assert got["Bpref"] == 1.0
    assert got["RBPResid(p=0.5)"] == pytest.approx(0.25 + 0.5)


def test_no_relevant_scores_zero_and_counts_stay_counts():
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 0}}
    run = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0, "d": 0.5}}
    ms = ["Bpref", "Rprec", "Rndcg", "SetF", "NumRet", "NumRel", "NumRelRet", "IPrec@0"]
    ev = mrrstats.evaluate(qrels, run, ms)
    assert ev.values["run"].loc["q2"].tolist() == [0, 0, 0, 0, 2, 0, 0, 0]
    pos = mrrstats.evaluate(qrels, run, ms, empty_target="pos").values["run"].loc["q2"]
    assert pos[["Bpref", "Rprec", "Rndcg", "SetF", "IPrec@0"]].tolist() == [1.0] * 5
    assert pos[["NumRet", "NumRel", "NumRelRet"]].tolist() == [2, 0, 0]  # counts untouched


def test_aggregates_gmean_and_sum():
    qrels = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}}
    run = {"q1": {"a": 2.0, "x": 1.0}, "q2": {"y": 1.0}}
    ev = mrrstats.evaluate(qrels, run, ["AP", "NumRet", "NumRel"])
    gm = ev.aggregate("gmean").iloc[0]
    # trec_eval's gm_map: exp(mean(log(max(AP, 1e-5))))
    assert gm["AP"] == pytest.approx(math.exp((math.log(0.5) + math.log(1e-5)) / 2))
    assert ev.aggregate("sum").iloc[0][["NumRet", "NumRel"]].tolist() == [3, 3]
    with pytest.raises(ValueError, match="gmean"):
        ev.aggregate("mode")


def _flat_case(seed=0, n=3000, queries=40):
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, queries, n)
    preds = rng.integers(0, 6, n) / 5.0  # many ties
    target = rng.integers(0, 3, n)
    return preds, target, idx


ALL_NEW = [
    "Bpref",
    "Rprec",
    "infAP",
    "IPrec@0.3",
    "SetP",
    "SetR",
    "SetF",
    "NumRet",
    "NumRel",
    "NumRelRet",
    "RBP(p=0.8)",
    "RBP(p=0.8,rel=2)@5",
    "RBPResid",
    "Rndcg",
    "ERR@5",
    "nDCG(gain=exp)@5",
]


@pytest.mark.parametrize("max_depth", [None, 7])
@pytest.mark.parametrize("ties", ["trec_eval", "optimistic", "pessimistic"])
def test_flat_door_equals_host_door(ties, max_depth):
    preds, target, idx = _flat_case()
    flat = mrrstats.evaluate_flat(
        preds, target, idx, ALL_NEW, ties=ties, max_depth=max_depth, empty_target="neg"
    ).values["run"]
    qrels, run = flat_to_qrels_run(preds, target, idx, name="run")
    host = mrrstats.evaluate(
        qrels, {"run": run}, ALL_NEW, ties=ties, max_depth=max_depth, empty_target="neg"
    ).values["run"]
    pd.testing.assert_frame_equal(flat, host)


LINEAR = [
    "SetP",
    "SetR",
    "SetF(beta=0.5)",
    "Rprec",
    "RBP(p=0.8)",
    "RBP(p=0.8,rel=2)@4",
    "NumRelRet",
    "NumRet",
    "NumRel",
    "nDCG(gain=exp)@4",
]


@pytest.mark.parametrize("max_depth", [None, 3, 6])
def test_expected_ties_average_every_order(max_depth):
    # tie groups of 4, 3 and 2 documents: the mean over all 4! 3! 2! orders
    preds = np.array([3, 2, 2, 2, 2, 1, 1, 1, 0.5, 0.5])
    target = np.array([0, 2, 0, 1, 0, 1, 0, 2, 1, 0])
    idx = np.zeros(10, dtype=np.int64)
    want = (
        mrrstats.evaluate_flat(
            preds, target, idx, LINEAR, ties="expected", max_depth=max_depth, empty_target="neg"
        )
        .values["run"]
        .iloc[0]
    )
    rows = []
    for a in itertools.permutations(range(1, 5)):
        for b in itertools.permutations(range(5, 8)):
            for c in itertools.permutations(range(8, 10)):
                scores = np.empty(10)
                scores[[0, *a, *b, *c]] = np.arange(10, 0, -1.0)
                rows.append(
                    mrrstats.score_rankings(
                        [target[np.argsort(-scores)]], LINEAR, judged=[target]
                    ).iloc[0]
                    if max_depth is None
                    else mrrstats.evaluate_flat(
                        scores, target, idx, LINEAR, max_depth=max_depth, empty_target="neg"
                    )
                    .values["run"]
                    .iloc[0]
                )
    mean = pd.DataFrame(rows).mean()
    assert np.allclose(mean[LINEAR].to_numpy(), want[LINEAR].to_numpy(), rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", ["infAP", "IPrec@0.5", "Rndcg", "RBPResid", "ERR"])
def test_nonlinear_measures_refuse_expected_ties(name):
    preds, target, idx = _flat_case()
    with pytest.raises(mrrstats.errors.ParameterError, match="no exact expectation"):
        mrrstats.evaluate_flat(preds, target, idx, [name], ties="expected")


def test_realistic_ties_refused():
    preds, target, idx = _flat_case()
    with pytest.raises(mrrstats.errors.ParameterError, match="realistic"):
        mrrstats.evaluate_flat(preds, target, idx, ["Bpref"], ties="realistic")


def test_compiled_and_numpy_paths_agree():
    # >= COMPILED_MIN_ROWS rows: the old measures compiled, the new ones numpy, one frame
    from mrrstats.metrics import kernels

    preds, target, idx = _flat_case(seed=1, n=kernels.COMPILED_MIN_ROWS + 5000, queries=300)
    qrels, run = flat_to_qrels_run(preds, target, idx, name="run")
    ms = ["RR", "AP", "Bpref", "nDCG@10", "SetF", "Rndcg"]
    both = mrrstats.evaluate(qrels, {"run": run}, ms).values["run"]
    alone = mrrstats.evaluate(qrels, {"run": run}, ms[2:3] + ms[4:]).values["run"]
    pd.testing.assert_frame_equal(both[alone.columns], alone)


@pytest.mark.parametrize("unjudged", ["condense", "relevant"])
def test_unjudged_conventions(unjudged):
    qrels = {"q": {"a": 1, "b": 0, "c": 1}}
    run = {"q": {"x": 3.0, "a": 2.0, "b": 1.0, "c": 0.5}}
    got = (
        mrrstats.evaluate(qrels, run, ["Bpref", "SetP", "NumRet"], unjudged=unjudged)
        .values["run"]
        .iloc[0]
    )
    if unjudged == "condense":  # x dropped: a, b, c
        assert got.tolist() == [pytest.approx(0.5), pytest.approx(2 / 3), 3]
    else:  # x relevant (grade 1) but not judged: Bpref counts judged documents only
        assert got["SetP"] == 0.75 and got["NumRet"] == 4


def test_gdeval_err_and_exponential_ndcg_by_hand():
    # grades 0, 3, 1, (unjudged), 4; judged 4, 3, 1, 0. gdeval: R = (2^g - 1) / 16
    got = mrrstats.score_rankings(
        [[0, 3, 1, NAN, 4]], ["ERR@3", "ERR", "nDCG(gain=exp)@3", "nDCG@3"], judged=[[4, 3, 1, 0]]
    ).iloc[0]
    r2, r3, r5 = 7 / 16, 1 / 16, 15 / 16
    assert got["ERR@3"] == pytest.approx(r2 / 2 + (1 - r2) * r3 / 3)
    assert got["ERR"] == pytest.approx(r2 / 2 + (1 - r2) * r3 / 3 + (1 - r2) * (1 - r3) * r5 / 5)
    dcg = 7 / math.log2(3) + 1 / math.log2(4)
    assert got["nDCG(gain=exp)@3"] == pytest.approx(dcg / (15 + 7 / math.log2(3) + 0.5))
    assert got["nDCG@3"] == pytest.approx((3 / math.log2(3) + 0.5) / (4 + 3 / math.log2(3) + 0.5))


def test_err_refuses_grades_above_gdevals_maximum():
    with pytest.raises(mrrstats.errors.InputError, match="up to 4"):
        mrrstats.score_rankings([[5, 1]], ["ERR"], judged=[[5, 1]])


@pytest.mark.parametrize("bad, match", [("nDCG(gain=log)", "grade, exp"), ("ERR(rel=2)", "rel")])
def test_gdeval_names_refused(bad, match):
    with pytest.raises(mrrstats.errors.ParameterError, match=match):
        parse_measure(bad)


@pytest.mark.parametrize("max_depth", [None, 5, 8])
def test_expected_bpref_averages_every_order(max_depth):
    preds = np.array([3, 2, 2, 2, 2, 1, 1, 1, 0.5, 0.5])
    idx = np.zeros(10, dtype=np.int64)
    for target in ([0, 2, 0, 1, 0, 1, 0, 2, 1, 0], [1, 0, 0, 1, 0, 0, 1, 0, 1, 1]):
        target = np.array(target)
        want = mrrstats.evaluate_flat(
            preds, target, idx, ["Bpref"], ties="expected", max_depth=max_depth, empty_target="neg"
        )
        rows = []
        for a in itertools.permutations(range(1, 5)):
            for b in itertools.permutations(range(5, 8)):
                for c in itertools.permutations(range(8, 10)):
                    scores = np.empty(10)
                    scores[[0, *a, *b, *c]] = np.arange(10, 0, -1.0)
                    rows.append(
                        mrrstats.evaluate_flat(
                            scores,
                            target,
                            idx,
                            ["Bpref"],
                            ties="trec_eval",
                            max_depth=max_depth,
                            empty_target="neg",
                        )
                        .values["run"]
                        .iloc[0, 0]
                    )
        assert want.values["run"].iloc[0, 0] == pytest.approx(np.mean(rows), abs=1e-12)


def test_expected_bpref_with_unjudged_documents_and_a_refusal():
    # host door: unjudged documents (x, y) in the tie groups do not count
    qrels = {"q": {"a": 1, "b": 0, "c": 2, "d": 0, "e": 1, "z": 0}}
    run = {"q": {"a": 1.0, "b": 1.0, "x": 1.0, "c": 0.5, "d": 0.5, "y": 0.5, "e": 0.2}}
    want = mrrstats.evaluate(qrels, run, ["Bpref"], ties="expected").values["run"].iloc[0, 0]
    rows = []
    for p1 in itertools.permutations(["a", "b", "x"]):
        for p2 in itertools.permutations(["c", "d", "y"]):
            order = [*p1, *p2, "e"]
            one = {"q": {d: float(len(order) - i) for i, d in enumerate(order)}}
            rows.append(mrrstats.evaluate(qrels, one, ["Bpref"]).values["run"].iloc[0, 0])
    assert want == pytest.approx(np.mean(rows), abs=1e-12)
    with pytest.raises(mrrstats.errors.ParameterError, match="max_depth cutting"):
        mrrstats.evaluate(qrels, run, ["Bpref"], ties="expected", max_depth=2)
