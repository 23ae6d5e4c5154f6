"""Per-system RR diagnostics and the identity MRR = MAP on single-relevant queries."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import mrrstats
from mrrstats.agreement import mrr_vs_map, rr_diagnostics
from tests.reference_data import data_path


@pytest.fixture(scope="module")
def rr7():
    return mrrstats.read_score_matrix(data_path("score_matrices", "trec_adhoc",
                                                  "adhoc7_rr.csv"))


def test_rr_diagnostics_trec7_against_numpy(rr7):
    out = rr_diagnostics(rr7)
    assert list(out.index) == list(rr7.columns)
    v = rr7.to_numpy()
    np.testing.assert_allclose(out.mrr, v.mean(axis=0))
    np.testing.assert_allclose(out.share_rr_one, (v == 1).mean(axis=0))
    np.testing.assert_allclose(out.share_rr_zero, (v == 0).mean(axis=0))
    np.testing.assert_allclose(out.median_rr, np.median(v, axis=0))
    np.testing.assert_array_equal(out.n_unretrieved, (v == 0).sum(axis=0))
    # about half of all TREC-7 RR values are exactly 1 (tests/data/README.md),
    # so for most systems the median RR is exactly 1 and tells nothing
    assert 0.45 < (v == 1).mean() < 0.6
    assert 0.5 < out.median_is_one.mean() < 1.0
    np.testing.assert_array_equal(out.median_is_one, np.median(v, axis=0) == 1)
    # a system with a degenerate median can still have a poor MRR
    assert out.loc[out.median_is_one, "mrr"].min() < 0.8
    # mean ranks over the queries with a relevant document retrieved
    for j, system in enumerate(rr7.columns[:10]):
        x = v[:, j][v[:, j] > 0]
        r = 1.0 / x
        row = out.loc[system]
        assert row.mrr_retrieved == pytest.approx(x.mean())
        assert row.harmonic_mean_rank == pytest.approx(len(r) / np.sum(1 / r))
        assert row.harmonic_mean_rank == pytest.approx(1 / row.mrr_retrieved)
        assert row.geometric_mean_rank == pytest.approx(np.exp(np.mean(np.log(r))))
        assert row.arithmetic_mean_rank == pytest.approx(r.mean())
    # HM <= GM <= AM, with equality only when all ranks are equal
    assert (out.harmonic_mean_rank <= out.geometric_mean_rank + 1e-12).all()
    assert (out.geometric_mean_rank <= out.arithmetic_mean_rank + 1e-12).all()
    assert out.attrs["unretrieved"] == "exclude"


def test_rr_diagnostics_unretrieved_treatments():
    # Hand-derived: RR = 1, 1/2, 1/4, 0 -> ranks 1, 2, 4 and one unretrieved.
    rr = pd.DataFrame({"s": [1.0, 0.5, 0.25, 0.0]})
    ex = rr_diagnostics(rr).loc["s"]
    # exclude: HM = 3 / (1 + 1/2 + 1/4) = 12/7, GM = (1*2*4)^(1/3) = 2, AM = 7/3
    assert ex.harmonic_mean_rank == pytest.approx(12 / 7)
    assert ex.geometric_mean_rank == pytest.approx(2.0)
    assert ex.arithmetic_mean_rank == pytest.approx(7 / 3)
    assert ex.mrr == pytest.approx(1.75 / 4) and ex.mrr_retrieved == pytest.approx(1.75 / 3)
    assert ex.n_unretrieved == 1 and ex.share_rr_zero == 0.25
    # inf: HM = 4 / 1.75 = 1 / MRR; GM and AM infinite
    inf = rr_diagnostics(rr, unretrieved="inf").loc["s"]
    assert inf.harmonic_mean_rank == pytest.approx(1 / ex.mrr)
    assert np.isinf(inf.geometric_mean_rank) and np.isinf(inf.arithmetic_mean_rank)
    # a rank of 8: HM = 4 / (1.75 + 1/8) = 32/15, GM = (1*2*4*8)^(1/4) = 64^(1/4),
    # AM = 15/4
    pen = rr_diagnostics(rr, unretrieved=8).loc["s"]
    assert pen.harmonic_mean_rank == pytest.approx(32 / 15)
    assert pen.geometric_mean_rank == pytest.approx(64 ** 0.25)
    assert pen.arithmetic_mean_rank == pytest.approx(15 / 4)
    # the median of 0, 1/4, 1/2, 1 is 3/8: not degenerate
    assert ex.median_rr == 0.375 and not ex.median_is_one


def test_rr_diagnostics_validation():
    rr = pd.DataFrame({"s": [1.0, 0.5]})
    with pytest.raises(ValueError, match="`unretrieved` must be 'exclude', 'inf' or a rank"):
        rr_diagnostics(rr, unretrieved="drop")
    with pytest.raises(ValueError, match="`unretrieved` must be 'exclude', 'inf' or a finite"):
        rr_diagnostics(rr, unretrieved=0.5)
    with pytest.raises(TypeError, match="`unretrieved` must be 'exclude', 'inf' or a number"):
        rr_diagnostics(rr, unretrieved=None)
    with pytest.raises(ValueError, match=r"`scores` must hold RR values in \[0, 1\]"):
        rr_diagnostics(pd.DataFrame({"s": [2.0]}))
    with pytest.raises(ValueError, match="`scores` has missing values"):
        rr_diagnostics(pd.DataFrame({"s": [1.0, np.nan]}))
    with pytest.raises(TypeError, match="`scores` must be an Evaluation or a DataFrame"):
        rr_diagnostics([1.0, 0.5])
    with pytest.raises(ValueError, match=r"`atol` must be a number in \[0, 1\)"):
        rr_diagnostics(rr, atol=-1)
    with pytest.raises(TypeError, match="`evaluation` must be an Evaluation"):
        mrr_vs_map(rr)


# --------------------------------------------------------------------------
# on evaluations of the CAsT 2021 runs
# --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def cast():
    return mrrstats.datasets.cast2021()


def _single_relevant_qrels(path):
    """Real CAsT 2021 qrels cut down to one relevant document per query: the
    highest-graded one (ties: smallest doc id); every other judged document of
    the query stays judged, with grade 0."""
    q = pd.read_csv(path, sep=r"\s+", header=None, names=["query", "iter", "doc", "grade"],
                    dtype={"query": str, "doc": str})
    rel = q[q.grade >= 1].sort_values(["query", "grade", "doc"],
                                      ascending=[True, False, True])
    keep = rel.groupby("query").head(1).index
    q.loc[(q.grade >= 1) & ~q.index.isin(keep), "grade"] = 0
    return q[["query", "doc", "grade"]]


def test_mrr_equals_map_with_one_relevant_document(cast):
    qrels = _single_relevant_qrels(cast.qrels)
    assert (qrels[qrels.grade >= 1].groupby("query").size() == 1).all()
    ev = mrrstats.evaluate(qrels, cast.runs, ["RR", "AP", "RR@10", "AP@10"])
    out = mrr_vs_map(ev)
    assert len(out) == 5
    assert (out.n_single_relevant == 158).all() and (out.n_queries == 158).all()
    np.testing.assert_allclose(out.mrr, out["map"], rtol=0, atol=1e-15)
    np.testing.assert_allclose(out.mrr_single, out.map_single, rtol=0, atol=1e-15)
    assert (out.max_abs_diff_single <= 1e-15).all()
    # the identity holds with the same cutoff too
    cut = mrr_vs_map(ev, rr="RR@10", ap="AP@10")
    np.testing.assert_allclose(cut.mrr, cut["map"], rtol=0, atol=1e-15)
    # ... and the real qrels (3 to 167 relevant documents per turn) break it
    full = mrr_vs_map(mrrstats.evaluate(cast.qrels, cast.runs, ["RR", "AP"]))
    assert (full.n_single_relevant == 0).all() and full.mrr_single.isna().all()
    assert (full.mrr > full["map"] + 0.3).all()
    # trec_eval's aggregates (cast2021/summary_trec_eval10_l1.tsv)
    summary = pd.read_csv(data_path("cast2021", "summary_trec_eval10_l1.tsv"), sep="\t",
                          index_col="run")
    names = [r.removesuffix(".run") for r in full.index]
    np.testing.assert_allclose(full.mrr, summary.loc[names, "recip_rank"], atol=5e-5)
    np.testing.assert_allclose(full["map"], summary.loc[names, "map"], atol=5e-5)
    with pytest.raises(ValueError, match="`ap` measure 'nDCG' is not in the evaluation"):
        mrr_vs_map(ev, ap="nDCG")


def test_rr_diagnostics_from_evaluation_matches_first_relevant_ranks(cast):
    ev = mrrstats.evaluate(cast.qrels, cast.runs, ["RR", "Rank"])
    out = rr_diagnostics(ev)
    ranks = ev.scores("Rank")  # first-relevant rank, inf when none retrieved
    for run in ranks.columns:
        r = ranks[run].to_numpy()
        finite = r[np.isfinite(r)]
        row = out.loc[run]
        assert row.n_unretrieved == np.sum(~np.isfinite(r))
        assert row.arithmetic_mean_rank == pytest.approx(finite.mean(), rel=1e-12)
        assert row.geometric_mean_rank == pytest.approx(np.exp(np.log(finite).mean()),
                                                        rel=1e-12)
        assert row.share_rr_one == pytest.approx(np.mean(r == 1))
    inf = rr_diagnostics(ev, unretrieved="inf")
    np.testing.assert_allclose(inf.harmonic_mean_rank, 1 / inf.mrr)
    with pytest.raises(ValueError, match="`measure` 'RR@10' is not in the evaluation"):
        rr_diagnostics(ev, measure="RR@10")
