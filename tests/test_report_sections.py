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
        assert row.pvalue_cluster == t.pvalue and row.diff == pytest.approx(np.mean(a - b))
    for m in ("RR", "AP"):
        sub = got[got.measure == m]
        holm = multipletests(sub["pvalue_cluster"], method="holm")[1]
        np.testing.assert_allclose(sub["pvalue_cluster_adjusted"], holm, rtol=1e-12)
        assert (sub["reject_clusters"] == (sub["pvalue_cluster_adjusted"] <= 0.05)).all()
        assert (sub["reject_queries"].to_numpy() ==
                pairs[pairs.measure == m]["reject"].to_numpy()).all()


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
