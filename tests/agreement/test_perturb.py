"""Controlled perturbations of a real CAsT 2021 run, checked against hand derivations."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mrrstats.agreement import (
    add_relevant,
    move_first_relevant,
    perturbation_summary,
    swap_relevant,
)
from tests.reference_data import data_path

MEASURES = ["RR", "AP", "nDCG", "P@10"]


def log2(x):
    return np.log2(float(x))


@pytest.fixture(scope="module")
def bm25():
    """(qrels path, {name: run path}) for the org_manual_bm25 run of CAsT 2021."""
    qrels = data_path("cast2021", "qrels", "trec-cast-qrels-docs.2021.qrel.gz")
    run = data_path("cast2021", "runs", "org_manual_bm25.run.gz")
    return qrels, {"bm25": run}


@pytest.fixture(scope="module")
def moved(bm25):
    return move_first_relevant(*bm25, ranks=[1, 2, 4, 5, 10, 50], measures=MEASURES)


def _cell(frame, query, step_col, step, measure, col):
    sel = frame[(frame["query"] == query) & (frame[step_col] == step)
                & (frame["measure"] == measure)]
    assert len(sel) == 1
    return sel.iloc[0][col]


def test_move_first_relevant_query_116_5_by_hand(moved):
    # Query 116_5 of org_manual_bm25 (trec_eval order: score desc, docno desc):
    # 66 documents retrieved; qrels hold R = 3 relevant documents with grades
    # 2, 1, 1; the run has the two grade-1 documents at ranks 4 and 22 and does
    # not retrieve the grade-2 one (trec_eval -q: num_rel 3, num_rel_ret 2,
    # recip_rank 0.25, map 0.1136, ndcg 0.2082, P_10 0.1 in
    # cast2021/expected/org_manual_bm25.all_trec.q.l1.txt.gz).
    # Before, for r <= 20: relevant at r and 22; after: at r + 1 and 22.
    #   RR:   1/r -> 1/(r+1)
    #   AP:   (1/r + 2/22)/3 -> (1/(r+1) + 2/22)/3, delta = (1/(r+1) - 1/r)/3
    #   nDCG: ideal DCG I = 2/log2(2) + 1/log2(3) + 1/log2(4) = 3.13093;
    #         delta = (1/log2(r+2) - 1/log2(r+1)) / I
    #   P@10: delta -1/10 for r = 10 (the document leaves the top 10), else 0.
    # r = 50 > 22 - 2 is not eligible: placing the document at 50 would make the
    # document at rank 22 the first relevant one.
    ideal = 2 / log2(2) + 1 / log2(3) + 1 / log2(4)
    q = "116_5"
    assert _cell(moved, q, "r", 1, "RR", "first_rank") == 4
    assert _cell(moved, q, "r", 1, "RR", "num_rel") == 3
    for r in (1, 2, 4, 5, 10):
        assert _cell(moved, q, "r", r, "RR", "eligible")
        assert _cell(moved, q, "r", r, "RR", "before") == pytest.approx(1 / r)
        assert _cell(moved, q, "r", r, "RR", "after") == pytest.approx(1 / (r + 1))
        assert _cell(moved, q, "r", r, "AP", "before") == pytest.approx((1 / r + 2 / 22) / 3)
        assert _cell(moved, q, "r", r, "AP", "difference") == pytest.approx(
            (1 / (r + 1) - 1 / r) / 3)
        assert _cell(moved, q, "r", r, "nDCG", "before") == pytest.approx(
            (1 / log2(r + 1) + 1 / log2(23)) / ideal)
        assert _cell(moved, q, "r", r, "nDCG", "difference") == pytest.approx(
            (1 / log2(r + 2) - 1 / log2(r + 1)) / ideal)
        assert _cell(moved, q, "r", r, "P@10", "difference") == pytest.approx(
            -0.1 if r == 10 else 0.0, abs=1e-15)
    # r = 4 is the real run: its "before" is trec_eval's per-query output
    assert _cell(moved, q, "r", 4, "RR", "before") == pytest.approx(0.25, abs=5e-5)
    assert _cell(moved, q, "r", 4, "AP", "before") == pytest.approx(0.1136, abs=5e-5)
    assert _cell(moved, q, "r", 4, "nDCG", "before") == pytest.approx(0.2082, abs=5e-5)
    assert _cell(moved, q, "r", 4, "P@10", "before") == pytest.approx(0.1, abs=5e-5)
    assert not _cell(moved, q, "r", 50, "RR", "eligible")
    assert np.isnan(_cell(moved, q, "r", 50, "RR", "difference"))


def test_move_first_relevant_closed_forms_on_every_query(moved):
    # The Notes' derivation holds on every eligible query of the run:
    # delta RR = 1/(r+1) - 1/r, delta AP = delta RR / R, delta P@10 = -0.1 iff r = 10.
    ok = moved[moved.eligible]
    wide = ok.pivot_table(index=["query", "r"], columns="measure", values="difference")
    r = wide.index.get_level_values("r").to_numpy()
    num_rel = ok[ok.measure == "RR"].set_index(["query", "r"]).num_rel.reindex(wide.index)
    np.testing.assert_allclose(wide["RR"], 1 / (r + 1) - 1 / r, atol=1e-14)
    np.testing.assert_allclose(wide["AP"], (1 / (r + 1) - 1 / r) / num_rel, atol=1e-14)
    np.testing.assert_allclose(wide["P@10"], np.where(r == 10, -0.1, 0.0), atol=1e-14)
    assert (wide["nDCG"] < 0).all()
    # the loss of RR shrinks with the rank: half of RR at r = 1, tiny at r = 10
    summary = perturbation_summary(moved)
    rr = summary[summary.measure == "RR"].set_index("r")
    assert rr.loc[1, "difference_mean"] == pytest.approx(-0.5)
    assert rr.loc[10, "difference_mean"] == pytest.approx(1 / 11 - 1 / 10)
    assert (rr.n_queries == 158).all()  # the judged queries of the run
    assert rr.loc[1, "n_eligible"] >= rr.loc[10, "n_eligible"] >= rr.loc[50, "n_eligible"]
    assert rr.loc[50, "n_eligible"] == moved[(moved.r == 50) & moved.eligible
                                             & (moved.measure == "RR")].shape[0]


def test_swap_relevant_query_117_6_by_hand(bm25):
    # Query 117_6 of org_manual_bm25: R = 6 relevant (grades 2, 2, 1, 1, 1, 1);
    # retrieved relevant documents at ranks 1, 2, 5, 6, 7 with grades 1, 1, 1, 2, 1
    # (trec_eval: map 0.6635 = (1 + 1 + 3/5 + 4/6 + 5/7) / 6, ndcg 0.6207).
    # Swapping the 2nd and 4th relevant (ranks 2 and 6, grades 1 and 2) keeps
    # every relevant rank: RR, AP, P@10 unchanged. nDCG gains
    #   (2 - 1)/log2(3) + (1 - 2)/log2(7) over the ideal DCG
    #   I = 2 + 2/log2(3) + 1/log2(4) + 1/log2(5) + 1/log2(6) + 1/log2(7).
    out = swap_relevant(*bm25, which=(2, 4), measures=MEASURES)
    ideal = 2 + 2 / log2(3) + 1 / log2(4) + 1 / log2(5) + 1 / log2(6) + 1 / log2(7)
    q = "117_6"
    assert _cell(out, q, "pair", "2-4", "AP", "before") == pytest.approx(0.6635, abs=5e-5)
    assert _cell(out, q, "pair", "2-4", "nDCG", "before") == pytest.approx(0.6207, abs=5e-5)
    assert _cell(out, q, "pair", "2-4", "nDCG", "difference") == pytest.approx(
        (1 / log2(3) - 1 / log2(7)) / ideal)
    ok = out[out.eligible]
    # binary measures never see a swap of two relevant documents
    assert (ok[ok.measure != "nDCG"].difference == 0).all()
    # query 116_5 retrieves only 2 relevant documents: not eligible
    assert not _cell(out, "116_5", "pair", "2-4", "RR", "eligible")


def test_add_relevant_query_116_5_by_hand(bm25):
    # Query 116_5 again: relevant (grade 1) at ranks 4 and 22, a grade-2
    # relevant document not retrieved; R = 3.
    #   n = 1: the rank-22 document moves to rank 5.
    #     AP = (1/4 + 2/5)/3 = 0.216667, P@10 = 2/10, RR stays 1/4.
    #   n = 2: ... and the unretrieved grade-2 document enters at rank 6.
    #     AP = (1/4 + 2/5 + 3/6)/3 = 0.383333, P@10 = 3/10,
    #     nDCG = (1/log2(5) + 1/log2(6) + 2/log2(7)) / I, I = 3.13093.
    #   n = 5: needs 6 relevant documents, R = 3: not eligible.
    out = add_relevant(*bm25, n=[1, 2, 5], measures=MEASURES)
    ideal = 2 / log2(2) + 1 / log2(3) + 1 / log2(4)
    q = "116_5"
    assert _cell(out, q, "n", 1, "AP", "after") == pytest.approx((1 / 4 + 2 / 5) / 3)
    assert _cell(out, q, "n", 1, "P@10", "after") == pytest.approx(0.2)
    assert _cell(out, q, "n", 1, "nDCG", "after") == pytest.approx(
        (1 / log2(5) + 1 / log2(6)) / ideal)
    assert _cell(out, q, "n", 2, "AP", "after") == pytest.approx((1 / 4 + 2 / 5 + 3 / 6) / 3)
    assert _cell(out, q, "n", 2, "P@10", "after") == pytest.approx(0.3)
    assert _cell(out, q, "n", 2, "nDCG", "after") == pytest.approx(
        (1 / log2(5) + 1 / log2(6) + 2 / log2(7)) / ideal)
    assert not _cell(out, q, "n", 5, "RR", "eligible")
    ok = out[out.eligible]
    assert (ok[ok.measure == "RR"].difference == 0).all()  # RR cannot see it
    assert (ok[ok.measure == "AP"].difference >= -1e-15).all()
    assert (ok[ok.measure == "AP"].difference > 0).any()


def test_perturbation_on_a_synthetic_run_and_several_runs():
    qrels = pd.DataFrame({"query": ["q1", "q1", "q2"], "doc": ["d2", "d4", "d1"],
                          "grade": [1, 2, 1]})
    run = pd.DataFrame({"query": ["q1"] * 4 + ["q2"] * 2 + ["q3"],
                        "doc": ["d1", "d2", "d3", "d4", "d1", "d9", "d1"],
                        "score": [4.0, 3.0, 2.0, 1.0, 2.0, 1.0, 1.0]})
    out = move_first_relevant(qrels, {"a": run, "b": run}, ranks=[1, 2], measures=["RR"])
    # q3 is not in the qrels: left out, as trec_eval does
    assert set(out["query"]) == {"q1", "q2"}
    assert list(out.columns) == ["run", "query", "r", "measure", "before", "after", "difference",
                                 "eligible", "first_rank", "num_rel"]
    assert len(out) == 2 * 2 * 2
    # q1: grades NaN, 1, NaN, 2 -> second relevant at rank 4 -> r <= 2 eligible.
    # q2: grades 1, NaN -> list of 2: r = 1 eligible, r = 2 needs a rank 3.
    a = out[out.run == "a"].set_index(["query", "r"])
    assert a.loc[("q1", 2), "eligible"] and not a.loc[("q2", 2), "eligible"]
    assert a.loc[("q1", 2), "difference"] == pytest.approx(1 / 3 - 1 / 2)
    pd.testing.assert_frame_equal(out[out.run == "a"].drop(columns="run").reset_index(
        drop=True), out[out.run == "b"].drop(columns="run").reset_index(drop=True))


def test_perturbation_validation(bm25):
    qrels = pd.DataFrame({"query": ["q1"], "doc": ["d1"], "grade": [1]})
    run = pd.DataFrame({"query": ["q1"], "doc": ["d1"], "score": [1.0]})
    with pytest.raises(ValueError, match="`ranks` must hold integers >= 1"):
        move_first_relevant(qrels, run, ranks=[0])
    with pytest.raises(ValueError, match="`ranks` has duplicates"):
        move_first_relevant(qrels, run, ranks=[1, 1])
    with pytest.raises(ValueError, match="`which` must hold integers >= 2"):
        swap_relevant(qrels, run, which=(1, 2))
    with pytest.raises(ValueError, match="`which` must be a pair"):
        swap_relevant(qrels, run, which=(2, 3, 4))
    with pytest.raises(ValueError, match="`n` must hold integers >= 1"):
        add_relevant(qrels, run, n=[0])
    with pytest.raises(ValueError, match="`rel` must be an integer >= 1"):
        add_relevant(qrels, run, rel=0)
    with pytest.raises(TypeError, match="`frame` must be a frame returned by"):
        perturbation_summary(pd.DataFrame({"x": [1]}))
