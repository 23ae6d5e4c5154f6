"""The report's sections for leaderboard tiers, clustered queries and the multiverse."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

import mrrstats
from mrrstats.report import sections


def test_conversation_clusters():
    assert sections.conversation_clusters(["106_1", "106_10", "107_2"]).tolist() == \
        ["106", "106", "107"]
    assert sections.conversation_clusters(["a_1", "b_1"]) is None  # every cluster a singleton
    assert sections.conversation_clusters(["106_1", "q7"]) is None
    lab, desc = sections.cluster_labels(["x", "y"], {"x": 1, "y": 1})
    assert lab.tolist() == ["1", "1"] and desc
    with pytest.raises(ValueError, match="`clusters` has no cluster for query 'y'"):
        sections.cluster_labels(["x", "y"], {"x": 1})
    with pytest.raises(ValueError, match="`clusters` must be"):
        sections.cluster_labels(["x"], "conversation")
    assert sections.cluster_labels(["106_1", "106_2"], None) == (None, None)


def _cast():
    data = mrrstats.datasets.cast2021()
    ev = mrrstats.evaluate(data.qrels, data.runs, ["RR", "AP"])
    return {m: ev.scores(m) for m in ("RR", "AP")}


def test_leaderboard_letters_say_what_the_comparison_says():
    scores = _cast()
    cmp_ = mrrstats.compare(scores, n_resamples=999, rng=4)
    pairs = cmp_.to_frame()
    lb = sections.leaderboard_frame(scores, ["RR", "AP"], pairs, cmp_.systems)
    for m in ("RR", "AP"):
        sub = lb[lb.measure == m].set_index("system")
        wins = cmp_.wins_matrix(m)
        for a in cmp_.systems:
            for b in cmp_.systems:
                if a == b:
                    continue
                share = bool(set(sub.loc[a, "letters"]) & set(sub.loc[b, "letters"]))
                assert share == (not (wins.loc[a, b] or wins.loc[b, a])), (m, a, b)
            # rank interval: 1 + systems significantly better .. k - systems significantly worse
            k = len(cmp_.systems)
            assert sub.loc[a, "rank_low"] == 1 + int(wins[a].sum())
            assert sub.loc[a, "rank_high"] == k - int(wins.loc[a].sum())
        means = scores[m].mean()
        np.testing.assert_allclose(sub["mean"], means[sub.index])


def test_clustered_frame_against_its_parts():
    scores = _cast()
    cmp_ = mrrstats.compare(scores, n_resamples=999, rng=4)
    pairs = cmp_.to_frame()
    lab = sections.conversation_clusters(scores["RR"].index)
    got = sections.clustered_frame(scores, ["RR", "AP"], pairs, lab, confidence_level=0.9,
                                   n_resamples=500, alpha=0.05, gen=np.random.default_rng(7))
    assert len(got) == len(pairs)
    assert (got["n_clusters"] == 19).all() and (got["n_queries"] == 158).all()
    # the same numbers, one call at a time, in the documented order of the Generator
    gen = np.random.default_rng(7)
    for row in got.itertuples(index=False):
        a, b = scores[row.measure][row.a], scores[row.measure][row.b]
        q = mrrstats.bootstrap_ci(a, b, method="percentile", confidence_level=0.9,
                                  n_resamples=500, rng=gen).confidence_interval()
        c = mrrstats.bootstrap_ci(a, b, method="percentile", confidence_level=0.9,
                                  n_resamples=500, clusters=lab, rng=gen).confidence_interval()
        t = mrrstats.randomization_test(a, b, clusters=lab, n_resamples=500, rng=gen)
        assert (row.query_low, row.query_high) == (q.low, q.high)
        assert (row.cluster_low, row.cluster_high) == (c.low, c.high)
        assert row.width_ratio == pytest.approx((c.high - c.low) / (q.high - q.low))
        assert row.pvalue_cluster == t.pvalue and row.difference == pytest.approx(np.mean(a - b))
    for m in ("RR", "AP"):
        sub = got[got.measure == m]
        holm = multipletests(sub["pvalue_cluster"], method="holm")[1]
        np.testing.assert_allclose(sub["pvalue_cluster_adjusted"], holm, rtol=1e-12)
        assert (sub["reject_clusters"] == (sub["pvalue_cluster_adjusted"] <= 0.05)).all()
        assert (sub["reject_queries"].to_numpy() ==
                pairs[pairs.measure == m]["reject"].to_numpy()).all()


@pytest.mark.slow
def test_multiverse_result_of_the_report():
    data = mrrstats.datasets.cast2021()
    mv = sections.multiverse_result(data.qrels, data.runs[:3], ["RR"], alpha=0.05,
                                    correction="holm")
    assert isinstance(mv.summary, pd.DataFrame)
    # 4 tie conventions x 2 query sets x 4 relevance grades, no cutoff; at grades 2-4 some
    # CAsT queries have no relevant document: 3 empty-target policies there
    assert len(mv.summary) == 4 * 2 * (1 + 3 * 3)
    assert set(mv.summary["empty_target"]) == {"neg", "pos", "skip"}
    assert set(mv.summary["cutoff"]) == {"none"}


@pytest.mark.slow
def test_report_saves_and_loads_the_new_sections(tmp_path):
    from mrrstats.report import load_report, make_report, recompute_report

    data = mrrstats.datasets.cast2021()
    res = make_report(data.qrels, data.runs[:3], out=tmp_path / "r", measures=["RR", "AP"],
                      n_resamples=499, rng=5, notebook=False, progress=False)
    made = res.data
    assert {"tables/leaderboard.md", "tables/clustered.md", "tables/multiverse.md",
            "results/leaderboard.csv", "results/clustered.csv",
            "results/multiverse_summary.csv"} <= set(res.files)
    saved = load_report(res.path)
    pd.testing.assert_frame_equal(saved.leaderboard, made.leaderboard, check_dtype=False)
    pd.testing.assert_frame_equal(saved.clustered, made.clustered, check_dtype=False,
                                  check_exact=True)
    pd.testing.assert_frame_equal(saved.multiverse.summary, made.multiverse.summary,
                                  check_dtype=False, check_exact=True)
    assert saved.multiverse.reference == made.multiverse.reference
    # the tables reproduce from the saved data (the multiverse is reused: it needs runs)
    again = recompute_report(res.path).tables()
    for name, text in again.items():
        assert (res.path / "tables" / name).read_text(encoding="utf-8") == text, name
    # the clustered section: CAsT's 19 conversations, in settings.json
    assert saved.settings["clusters"]["n_clusters"] == 19
    assert "conversation" in saved.settings["clusters"]["description"]


def test_report_without_clusters_or_multiverse(tmp_path):
    from mrrstats.report import make_report

    data = mrrstats.datasets.cast2021()
    res = make_report(data.qrels, data.runs[:3], out=tmp_path / "r", measures="RR",
                      n_resamples=299, rng=5, notebook=False, progress=False, clusters=None,
                      multiverse=False)
    assert res.data.clustered is None and res.data.multiverse is None
    assert "tables/clustered.md" not in res.files and "tables/multiverse.md" not in res.files
    assert res.data.settings["clusters_note"] and res.data.settings["multiverse_note"]
    assert res.data.leaderboard is not None


def test_estimation_frame_against_the_public_functions():
    scores = _cast()
    cmp_ = mrrstats.compare(scores, n_resamples=999, rng=4)
    pairs = cmp_.to_frame()
    got = sections.estimation_frame(scores, ["RR", "AP"], pairs, confidence_level=0.9,
                                    n_resamples=400, margin=0.05,
                                    gen=np.random.default_rng(11))
    assert len(got) == len(pairs)
    gen = np.random.default_rng(11)  # the documented order: one bootstrap per pair
    for row in got.itertuples(index=False):
        a, b = scores[row.measure][row.a], scores[row.measure][row.b]
        hl = mrrstats.hodges_lehmann(a, b, confidence_level=0.9)
        assert (row.hl_estimate, row.hl_low, row.hl_high, row.hl_method) == \
            (hl.estimate, hl.low, hl.high, hl.method)
        es = mrrstats.effect_size_intervals(a, b, confidence_level=0.9, n_resamples=400,
                                            rng=gen)
        assert (row.d_z, row.d_z_low, row.d_z_high) == (es.d_z, es.d_z_interval.low, es.d_z_interval.high)
        assert (row.prob_superiority, row.ps_low, row.ps_high) == \
            (es.prob_superiority, es.prob_superiority_interval.low,
             es.prob_superiority_interval.high)
        eq = mrrstats.equivalence_test(a, b, margin=0.05)
        assert (row.tost_pvalue, row.margin) == (eq.pvalue, 0.05)
        assert row.difference == pytest.approx(np.mean(a - b), abs=1e-15)
    none = sections.estimation_frame(scores, ["RR"], pairs, confidence_level=0.9,
                                     n_resamples=50, margin=None,
                                     gen=np.random.default_rng(1))
    assert none["tost_pvalue"].isna().all() and none["margin"].isna().all()


def test_mixed_frame_is_mixed_vs_anova_per_measure():
    scores = _cast()
    got = sections.mixed_frame(scores, ["RR", "AP"], confidence_level=0.95)
    for m in ("RR", "AP"):
        ref = mrrstats.mixed_vs_anova(scores[m])
        sub = got[got.measure == m].reset_index(drop=True)
        pd.testing.assert_frame_equal(sub[list(ref.columns)], ref, check_exact=True)
        assert (sub["anova_residual_variance"] == ref.attrs["anova_residual_variance"]).all()
        # balanced CAsT tables with query variance > 0: the two agree
        assert (sub["query_variance"] > 0).all()
        np.testing.assert_allclose(sub["se_mixed"], sub["se_anova"], rtol=1e-4)


def test_report_estimation_section_and_margin(tmp_path):
    from mrrstats.report import load_report, make_report

    data = mrrstats.datasets.cast2021()
    common = dict(measures="AP", n_resamples=199, rng=3, notebook=False, progress=False,
                  clusters=None, multiverse=False)
    res = make_report(data.qrels, data.runs[:3], out=tmp_path / "m", equivalence_margin=0.05,
                      **common)
    text = (res.path / "tables" / "estimation.md").read_text()
    assert "TOST p (margin 0.05)" in text and "equivalent" in text
    assert {"tables/mixed.md", "results/estimation.csv", "results/mixed.csv"} <= set(res.files)
    saved = load_report(res.path)
    pd.testing.assert_frame_equal(saved.estimation, res.data.estimation, check_dtype=False,
                                  check_exact=True)
    pd.testing.assert_frame_equal(saved.mixed, res.data.mixed, check_dtype=False,
                                  check_exact=True)
    assert saved.settings["estimation"]["margin"] == 0.05
    # without a margin: no equivalence test, and the other numbers are the same
    plain = make_report(data.qrels, data.runs[:3], out=tmp_path / "p", **common)
    assert "TOST" not in (plain.path / "tables" / "estimation.md").read_text()
    assert plain.data.settings["estimation"]["margin"] is None
    cols = ["hl_estimate", "hl_low", "hl_high", "d_z", "ps_low", "ps_high"]
    pd.testing.assert_frame_equal(plain.data.estimation[cols], res.data.estimation[cols])
    # the sections before it draw the same numbers as before (it comes last in the stream)
    pd.testing.assert_frame_equal(plain.data.means, res.data.means)
    for bad in (0, -0.1, float("nan"), True, "0.05"):
        with pytest.raises(ValueError, match="`equivalence_margin`"):
            make_report(data.qrels, data.runs[:2], out=tmp_path / "x", equivalence_margin=bad,
                        **common)
