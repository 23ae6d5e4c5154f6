"""Segments: per-segment tests corrected across segments (compare(..., segment_by=...)).

References: scipy.stats.ttest_rel within each segment, statsmodels' multipletests across
segments, and the t interval of each mean (scipy.stats.t)."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

import mrrstats
from mrrstats.model.scoretable import as_score_tables
from mrrstats.stats.segments import query_labels, segment_pairs


def _frame(n=36, seed=0):
    rng = np.random.default_rng(seed)
    base = rng.random(n)
    return pd.DataFrame({"bm25": base, "dense": np.clip(base + rng.normal(0.1, 0.2, n), 0, 1),
                         "rerank": np.clip(base + rng.normal(0.2, 0.2, n), 0, 1)},
                        index=pd.Index([f"q{i}" for i in range(n)], name="query"))


def test_segment_pairs_equal_scipy_and_statsmodels():
    df = _frame()
    seg = {q: ("what" if i % 3 == 0 else "how" if i % 3 == 1 else "why")
           for i, q in enumerate(df.index)}
    tables = as_score_tables(df, measures="RR", min_systems=2)
    lab = query_labels(seg, tables["RR"].queries)
    res = segment_pairs(tables, lab, test="t", segment_correction="holm", alpha=0.05,
                        alternative="two-sided", n_resamples=100, confidence_level=0.95,
                        atol=0.0, batch=None, test_options=None,
                        gen=np.random.default_rng(0))
    f = res.to_frame()
    assert list(res.segments) == ["what", "how", "why"]
    assert len(f) == 3 * 3 and set(f["family_size"]) == {3}
    for (a, b), g in f.groupby(["a", "b"], sort=False):
        ps = []
        for _, row in g.iterrows():
            qs = [q for q in df.index if seg[q] == row["segment"]]
            ref = stats.ttest_rel(df.loc[qs, a], df.loc[qs, b])
            assert row["pvalue"] == pytest.approx(ref.pvalue, rel=1e-10)
            assert row["n_queries"] == len(qs)
            lo, hi = stats.t.interval(0.95, len(qs) - 1, loc=df.loc[qs, a].mean(),
                                      scale=stats.sem(df.loc[qs, a]))
            assert (row["a_low"], row["a_high"]) == pytest.approx((lo, hi), rel=1e-10)
            ps.append(ref.pvalue)
        rej, padj, _, _ = multipletests(ps, alpha=0.05, method="holm")
        np.testing.assert_allclose(g["pvalue_adjusted"], padj, rtol=1e-12)
        assert list(g["reject"]) == list(rej)


def test_segments_with_clusters_one_cluster_per_segment():
    # segments = conversations and clusters = conversations: no segment can be tested
    # (one cluster each), means are still reported; a coarser segmentation is tested
    df = _frame(24)
    conv = np.repeat(np.arange(6), 4)
    tables = as_score_tables(df, measures="RR", min_systems=2)
    res = segment_pairs(tables, conv.astype(object), test="randomization",
                        segment_correction="holm", alpha=0.05, alternative="two-sided",
                        n_resamples=200, confidence_level=0.95, atol=0.0,
                        batch=None, test_options=None, gen=np.random.default_rng(0),
                        clusters=conv)
    f = res.to_frame()
    assert f["pvalue"].isna().all() and (f["family_size"] == 0).all()
    first = f[(f["segment"] == 0) & (f["a"] == "bm25") & (f["b"] == "dense")].iloc[0]
    assert first["mean_a"] == pytest.approx(df["bm25"].iloc[:4].mean())
    half = np.where(conv < 3, "first", "second").astype(object)
    res2 = segment_pairs(tables, half, test="randomization", segment_correction="holm",
                         alpha=0.05, alternative="two-sided", n_resamples=200,
                         confidence_level=0.95, atol=0.0, batch=None,
                         test_options=None, gen=np.random.default_rng(0), clusters=conv)
    f2 = res2.to_frame()
    assert f2["pvalue"].notna().all() and (f2["family_size"] == 2).all()
    # three clusters per segment, exact: 2**3 sign patterns
    import mrrstats

    idx = half == "first"
    ref = mrrstats.randomization_test(df["bm25"][idx], df["dense"][idx], clusters=conv[idx])
    row = f2[(f2["segment"] == "first") & (f2["a"] == "bm25") & (f2["b"] == "dense")].iloc[0]
    assert row["pvalue"] == ref.pvalue


def test_segments_with_baseline_in_compare():
    df = _frame()
    seg = {q: ("a" if i < 18 else "b") for i, q in enumerate(df.index)}
    res = mrrstats.compare(df, measure="RR", test="t", control="bm25", segment_by=seg)
    f = res.segments.to_frame()
    assert set(f["b"]) == {"bm25"} and len(f) == 2 * 2
    for _, row in f.iterrows():
        qs = [q for q in df.index if seg[q] == row["segment"]]
        assert row["pvalue"] == pytest.approx(stats.ttest_rel(df.loc[qs, row["a"]],
                                                              df.loc[qs, "bm25"]).pvalue,
                                              rel=1e-10)
    md = res.to_markdown()
    assert "| segment |" in md and "Holm correction across the 2 segments" in md
