"""Tests of mrrstats.compare: inputs, the JSON contract, tables and reproducibility."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from conftest import shared_path

import mrrstats
from mrrstats.io import read_score_matrix

PAIR_KEYS = {"a", "b", "measure", "mean_a", "mean_b", "diff", "ci_low", "ci_high", "pvalue",
             "pvalue_adjusted", "test", "correction", "ci_method", "marginal_low",
             "marginal_high"}


@pytest.fixture(scope="module")
def frames():
    rr = read_score_matrix(shared_path("score_matrices", "trec_adhoc", "adhoc7_rr.csv"))
    ap = read_score_matrix(shared_path("score_matrices", "trec_adhoc", "adhoc7_ap.csv"))
    cols = list(rr.columns[[0, 7, 14, 21, 50]])
    return {"RR": rr[cols], "AP": ap[cols]}


def test_compare_dataframe_and_dict(frames):
    res = mrrstats.compare(frames["RR"], measure="RR", n_resamples=2000, rng=3)
    assert res.measures == ("RR",) and len(res.to_frame()) == 10
    both = mrrstats.compare(frames, n_resamples=2000, rng=3)
    assert both.measures == ("RR", "AP") and len(both.to_frame()) == 20
    # one Generator serves the measures in order: the first measure is identical
    np.testing.assert_array_equal(both.results["RR"].pvalue, res.results["RR"].pvalue)
    pw = mrrstats.pairwise_tests(frames["RR"], n_resamples=2000, rng=3)
    np.testing.assert_array_equal(res.results["RR"].pvalue_adjusted, pw.pvalue_adjusted)
    np.testing.assert_array_equal(res.results["RR"].ci_low, pw.ci_low)
    only_ap = mrrstats.compare(frames, measure="AP", test="t")
    assert only_ap.measures == ("AP",)


def test_compare_evaluation():
    data = mrrstats.datasets.cast2021()
    ev = mrrstats.evaluate(data.qrels, data.runs[:3], ["RR", "nDCG@10"])
    res = mrrstats.compare(ev, test="t")
    assert res.measures == ("RR", "nDCG@10")
    direct = mrrstats.pairwise_tests(ev.scores("nDCG@10"), test="t")
    np.testing.assert_allclose(res.results["nDCG@10"].pvalue, direct.pvalue)
    assert res.systems == tuple(ev.scores("RR").columns)


def test_json_contract(frames):
    res = mrrstats.compare(frames, test="randomization", correction="bh", n_resamples=1000,
                           rng=12)
    doc = json.loads(res.to_json())
    assert isinstance(doc["pairs"], list) and len(doc["pairs"]) == 20
    for pair in doc["pairs"]:
        assert PAIR_KEYS <= set(pair)
        assert pair["diff"] == pytest.approx(pair["mean_a"] - pair["mean_b"])
        assert pair["ci_low"] <= pair["diff"] <= pair["ci_high"]  # was "or test != 't'": always true
        assert pair["pvalue"] <= pair["pvalue_adjusted"] + 1e-15
        assert pair["test"] == "randomization" and pair["correction"] == "bh"
    s = doc["settings"]
    assert (s["test"], s["correction"], s["alpha"], s["n_resamples"], s["seed"]) == (
        "randomization", "bh", 0.05, 1000, 12)
    assert doc["means"]["RR"][res.systems[0]] == pytest.approx(frames["RR"].iloc[:, 0].mean())
    assert res.to_dict() == doc


def test_json_nulls_for_unbounded():
    x = pd.DataFrame({"a": [0.5, 1.0, 0.2, 0.3], "b": [0.1, 0.5, 0.2, 0.1]})
    doc = json.loads(mrrstats.compare(x, test="t", alternative="greater").to_json())
    assert doc["pairs"][0]["ci_high"] is None and doc["pairs"][0]["ci_low"] is not None


@pytest.mark.parametrize("test", ["randomization", "bootstrap", "tukey", "maxt"])
def test_same_seed_same_numbers_any_batch(frames, test):
    ref = mrrstats.compare(frames, test=test, n_resamples=800, rng=5).to_json()
    for batch in (1, 33):
        assert mrrstats.compare(frames, test=test, n_resamples=800, rng=5,
                                batch=batch).to_json() == ref


def test_markdown_and_latex(frames):
    res = mrrstats.compare(frames, test="t", correction="holm")
    md = res.to_markdown()
    tex = res.to_latex()
    means = res.means()
    for m in res.measures:
        best = means[m].idxmax()
        assert f"**{means.loc[best, m]:.4f}**" in md
        assert f"\\textbf{{{means.loc[best, m]:.4f}}}" in tex
    # superscripts: exactly the systems each row beats significantly (after Holm)
    letters = "abcde"
    rr = res.results["RR"]
    for i, s in enumerate(res.systems):
        beaten = {letters[res.systems.index(o)]
                  for a, b, d, rej in zip(rr.a, rr.b, rr.difference, rr.reject, strict=True)
                  for me, o in ((a, b), (b, a)) if rej and me == s
                  and ((d > 0) if me == a else (d < 0))}
        row = [line for line in md.splitlines() if line.startswith(f"| {letters[i]} |")][0]
        cell = row.split("|")[3]
        sup = re.search(r"<sup>(\w+)</sup>", cell)
        assert set(sup.group(1) if sup else "") == beaten
    caption = res.caption()
    for word in ("paired t-test", "two-sided", "Holm", "alpha = 0.05"):
        assert word in caption and word in tex
    # per measure: value, rank interval, letter group (the leaderboard, issue 14 part 3)
    assert "\\begin{tabular}{llrclrcl}" in tex and "\\caption{" in tex
    assert "RR rank" in md and "RR group" in md


def test_leaderboard_from_the_same_decisions(frames):
    # ranks and letters of compare's table = rank_intervals / compact_letter_display run
    # on the very PairwiseResult (independent code paths over the same decisions)
    res = mrrstats.compare(frames, test="t", correction="holm")
    for m in res.measures:
        board = res.leaderboard(m)
        ri = mrrstats.rank_intervals(frames[m], decisions=res.results[m]).to_frame()
        np.testing.assert_array_equal(board.loc[ri.index, "rank_low"], ri["rank_low"])
        np.testing.assert_array_equal(board.loc[ri.index, "rank_high"], ri["rank_high"])
        cld = mrrstats.compact_letter_display(res.results[m])
        assert list(board.loc[cld.index, "letters"]) == list(cld)
        doc = res.to_dict()["leaderboard"][m]
        assert [d["system"] for d in doc] == list(board.index)
        md = res.to_markdown()
        for s in res.systems:
            lo, hi = int(board.loc[s, "rank_low"]), int(board.loc[s, "rank_high"])
            cell = str(lo) if lo == hi else f"{lo}-{hi}"
            row = [x.strip() for x in next(line for line in md.splitlines()
                                           if f"| {s} |" in line).split("|")]
            assert cell in row and board.loc[s, "letters"] in row
    assert "Rank: interval of ranks from the same decisions (simultaneous)" in res.caption()
    with pytest.raises(ValueError, match="needs all pairs"):
        mrrstats.compare(frames, test="t", baseline=0).leaderboard()


def test_caption_names_resampling_and_seed(frames):
    res = mrrstats.compare(frames["RR"], test="tukey", n_resamples=500, rng=77)
    cap = res.caption()
    assert "randomised Tukey HSD" in cap and "B = 500" in cap and "seed = 77" in cap
    assert res.results["score"].correction == "tukey-hsd"


def test_rank_lower_is_better():
    x = pd.DataFrame({"a": [1.0, 1, 2, 1, 1, 1, 1, 2], "b": [5.0, 6, 7, 8, 5, 9, 6, 7]})
    res = mrrstats.compare(x, measure="Rank", test="t")
    wins = res.wins_matrix("Rank")
    assert wins.loc["a", "b"] and not wins.loc["b", "a"]
    assert "**1.2500**" in res.to_markdown()


def test_missing_and_misaligned_queries(frames):
    rr = frames["RR"].copy()
    rr.iloc[4, 1] = np.nan
    with pytest.raises(ValueError, match="missing value for system"):
        mrrstats.compare(rr, test="t")
    res = mrrstats.compare(rr, test="t", missing="drop")
    assert res.results["score"].dropped_queries == (rr.index[4],)
    assert json.loads(res.to_json())["dropped_queries"]["score"] == [rr.index[4]]
    other = frames["AP"].iloc[:, :3]
    with pytest.raises(ValueError, match="every measure must compare the same systems"):
        mrrstats.compare({"RR": frames["RR"], "AP": other}, test="t")


def test_compare_validation(frames):
    with pytest.raises(ValueError, match="`test` must be one of"):
        mrrstats.compare(frames, test="z-test")
    assert mrrstats.compare(frames, test="anova").test == "anova-hsd"  # a listed alias
    with pytest.raises(ValueError, match="`alternative` must be 'two-sided' for test='maxt'"):
        mrrstats.compare(frames, test="maxt", alternative="less")
    # input goes through the one coercion (mrrstats.model.scoretable.as_score_table):
    # nested lists are an array (n_systems, n_queries); other objects are refused
    assert mrrstats.compare([[1, 2, 3], [3, 4, 4]], test="t").systems == ("0", "1")
    with pytest.raises(TypeError, match="`scores` must be a DataFrame"):
        mrrstats.compare(object())
    with pytest.raises(ValueError, match=r"`measure` \['P@10'\] not in `scores`"):
        mrrstats.compare(frames, measure="P@10")


def test_default_intervals_agree_with_decisions(frames):
    # issue 10, defect 2: compare's ci_low/ci_high follow the decisions by default
    from mrrstats.stats.multiple import ci_excludes_zero

    res = mrrstats.compare(frames, n_resamples=2000, rng=4)
    frame = res.to_frame()
    assert set(frame["ci_method"]) == {"holm-sb2008(randomization)"}
    np.testing.assert_array_equal(ci_excludes_zero(frame["ci_low"], frame["ci_high"]),
                                  frame["reject"])
    doc = json.loads(res.to_json())
    assert doc["pairs"][0]["ci_method"] == "holm-sb2008(randomization)"
    # the marginal t interval rides along under its own name
    pair = doc["pairs"][0]
    a = frames["RR"][pair["a"]].to_numpy()
    b = frames["RR"][pair["b"]].to_numpy()
    lo, hi = mrrstats.paired_ttest(a, b).confidence_interval()
    assert (pair["marginal_low"], pair["marginal_high"]) == pytest.approx((lo, hi))


def test_registry_is_the_one_source_of_names_and_labels(frames):
    from mrrstats.cli import compare as cli_compare
    from mrrstats.stats import registry

    assert registry.TEST_NAMES == registry.PAIR_TESTS + registry.FAMILY_TESTS
    assert set(registry.FAMILY_TESTS) == {"tukey", "maxt", "anova-hsd", "dunnett"}
    for name, spec in registry.TESTS.items():
        assert spec.label and registry.test_spec(name.upper()) is spec
        for alias in spec.aliases:
            assert registry.test_spec(alias) is spec
        if spec.family:
            assert registry.CORRECTIONS[spec.correction].family_of == name
    assert registry.correction_spec("FDR").name == "bh"
    with pytest.raises(ValueError, match="`correction` must be one of"):
        registry.correction_spec("tukey-hsd")  # comes with its test, not asked for
    # the caption reads the registry's labels
    res = mrrstats.compare(frames["RR"], test="sign", correction="bh")
    assert "sign test" in res.caption() and "Benjamini-Hochberg" in res.caption()
    # the CLI offers exactly the registry's names
    import argparse

    p = argparse.ArgumentParser()
    cli_compare.add_arguments(p)
    choices = {a.dest: a.choices for a in p._actions}
    assert tuple(choices["test"]) == registry.TEST_NAMES
    assert tuple(choices["correction"]) == registry.CORRECTION_NAMES
    assert registry.interval_label("bonferroni(t)").startswith("Bonferroni simultaneous")


@pytest.mark.parametrize("test, correction", [("t", "holm"), ("t", "bonferroni"),
                                              ("randomization", "holm"), ("t", "bh")])
def test_family_over_measures(frames, test, correction):
    # one correction over measures x pairs: statsmodels' multipletests on the concatenated
    # unadjusted p-values (which are those of each measure alone, same seed)
    from statsmodels.stats.multitest import multipletests

    from mrrstats.stats.multiple import ci_excludes_zero

    fam = mrrstats.compare(frames, test=test, correction=correction, family="measures",
                           n_resamples=2000, rng=9)
    per = mrrstats.compare(frames, test=test, correction=correction, n_resamples=2000, rng=9)
    p = np.concatenate([per.results[m].pvalue for m in per.measures])
    np.testing.assert_array_equal(np.concatenate([fam.results[m].pvalue
                                                  for m in fam.measures]), p)
    method = {"holm": "holm", "bonferroni": "bonferroni", "bh": "fdr_bh"}[correction]
    rej, padj, _, _ = multipletests(p, alpha=0.05, method=method)
    f = fam.to_frame()
    np.testing.assert_allclose(f["pvalue_adjusted"], padj, rtol=1e-12)
    assert list(f["reject"]) == list(rej)
    if correction != "bh":  # FCR intervals need not exclude 0 exactly at the rejections
        assert list(ci_excludes_zero(f["ci_low"], f["ci_high"])) == list(rej)
    assert fam.family_size == 20 and fam.to_dict()["settings"]["family_size"] == 20
    assert "over the 20 tests of 2 measures x 10 pairs" in fam.caption()
    with pytest.raises(ValueError, match="per-pair test"):
        mrrstats.compare(frames, test="tukey", family="measures")


def test_segments_in_compare_and_cli(frames, tmp_path, capsys):
    rr = frames["RR"]
    seg = {q: ("even" if i % 2 == 0 else "odd") for i, q in enumerate(rr.index)}
    res = mrrstats.compare(rr, measure="RR", test="t", segment_by=seg)
    f = res.segments.to_frame()
    assert set(f["segment"]) == {"even", "odd"} and (f["family_size"] == 2).all()
    # the frame-column form gives the same table
    col = rr.assign(kind=[seg[q] for q in rr.index])
    res2 = mrrstats.compare(col, measure="RR", test="t", segment_by="kind")
    pd.testing.assert_frame_equal(res2.segments.to_frame(), f)
    assert res.to_dict()["segments"]["rows"][0]["segment"] == "even"
    # CLI: --segment-by FILE
    path = tmp_path / "RR.csv"
    rr.to_csv(path)
    seg_file = tmp_path / "seg.tsv"
    seg_file.write_text("".join(f"{q}\t{s}\n" for q, s in seg.items()))
    from mrrstats.cli import main

    assert main(["compare", "--scores", str(path), "--test", "t", "--segment-by",
                 str(seg_file), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    got = pd.DataFrame(doc["segments"]["rows"])
    np.testing.assert_allclose(got["pvalue_adjusted"], f["pvalue_adjusted"], rtol=1e-12)
