"""Tests of mrrstats.compare: inputs, the JSON contract, tables and reproducibility."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

import mrrstats
from mrrstats.io import read_score_matrix
from tests.reference_data import data_path

PAIR_KEYS = {"a", "b", "measure", "mean_a", "mean_b", "difference", "ci_low", "ci_high",
             "pvalue", "pvalue_adjusted", "reject", "reject_beyond_ci", "test", "correction",
             "ci_method", "marginal_low", "marginal_high"}


@pytest.fixture(scope="module")
def frames():
    rr = read_score_matrix(data_path("score_matrices", "trec_adhoc", "adhoc7_rr.csv"))
    ap = read_score_matrix(data_path("score_matrices", "trec_adhoc", "adhoc7_ap.csv"))
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
        assert "diff" not in pair  # its name before 0.2
        assert pair["difference"] == pytest.approx(pair["mean_a"] - pair["mean_b"])
        assert pair["ci_low"] <= pair["difference"] <= pair["ci_high"]
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
    # per measure: value, rank interval, letter group (the leaderboard)
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
        mrrstats.compare(frames, test="t", control=0).leaderboard()


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
    # compare's default intervals are finite and follow the decisions
    from mrrstats.stats.corrections import ci_excludes_zero

    res = mrrstats.compare(frames, n_resamples=2000, rng=4)
    frame = res.to_frame()
    assert set(frame["ci_method"]) == {"maxt-single-step"}
    assert set(frame["correction"]) == {"single-step"}
    assert np.isfinite(frame[["ci_low", "ci_high"]].to_numpy()).all()
    np.testing.assert_array_equal(ci_excludes_zero(frame["ci_low"], frame["ci_high"]),
                                  frame["reject"])
    assert not frame["reject_beyond_ci"].any()
    doc = json.loads(res.to_json())
    assert doc["pairs"][0]["ci_method"] == "maxt-single-step"
    # the marginal t interval rides along under its own name
    pair = doc["pairs"][0]
    a = frames["RR"][pair["a"]].to_numpy()
    b = frames["RR"][pair["b"]].to_numpy()
    lo, hi = mrrstats.paired_ttest(a, b).confidence_interval()
    assert (pair["marginal_low"], pair["marginal_high"]) == pytest.approx((lo, hi))


def _assert_readable(res, max_ratio=6.0):
    """Finite intervals, 0 outside exactly for the rejected pairs, each holding the observed
    difference, at most ``max_ratio`` times as wide as the pair's marginal 95% t interval."""
    from mrrstats.stats.corrections import ci_excludes_zero

    f = res.to_frame()
    lo, hi, d = f["ci_low"].to_numpy(), f["ci_high"].to_numpy(), f["difference"].to_numpy()
    assert np.isfinite(lo).all() and np.isfinite(hi).all()
    np.testing.assert_array_equal(ci_excludes_zero(lo, hi), f["reject"].to_numpy())
    assert ((lo <= d) & (d <= hi)).all()
    width = f["marginal_high"] - f["marginal_low"]
    assert ((hi - lo) <= max_ratio * width + 1e-12).all()
    assert ((hi - lo) >= width - 1e-12).all()  # simultaneous: never narrower than marginal
    text = res.to_string() + res.to_string(wide=True) + res.to_markdown() + res.to_latex()
    assert not re.search(r"(?<![A-Za-z])-?inf(?![A-Za-z])|∞|infty", text)
    doc = json.loads(res.to_json())
    assert all(p["ci_low"] is not None and p["ci_high"] is not None for p in doc["pairs"])
    assert [p["reject"] for p in doc["pairs"]] == list(f["reject"])


def test_default_on_cast2021_all_pairs_and_control():
    data = mrrstats.datasets.cast2021()
    ev = mrrstats.evaluate(data.qrels, data.runs, ["RR", "nDCG@3"])
    df = ev.scores("RR")  # a per-query frame, queries x systems
    res = mrrstats.compare(df, measure="RR", n_resamples=3000, rng=19)
    _assert_readable(res)
    assert res.results["RR"].reject.sum() >= 3  # it finds the differences Holm found
    control = df.columns[4]
    res = mrrstats.compare(df, measure="RR", control=control, n_resamples=3000, rng=19)
    _assert_readable(res)
    assert set(res.to_frame()["b"]) == {control} and len(res.to_frame()) == 4
    both = mrrstats.compare(ev, n_resamples=1000, rng=2)
    _assert_readable(both)


@pytest.mark.parametrize("name", ["trec_adhoc/adhoc6_ap.csv", "trec_web/web2011_rr.csv"])
def test_default_on_real_trec_matrices(name):
    folder, file = name.split("/")
    X = read_score_matrix(data_path("score_matrices", folder, file)).iloc[:, :12]
    res = mrrstats.compare(X, measure="AP", n_resamples=2000, rng=7)
    _assert_readable(res)
    assert len(res.to_frame()) == 66 and res.results["AP"].reject.any()
    res = mrrstats.compare(X, measure="AP", control=X.columns[0], n_resamples=2000, rng=7)
    _assert_readable(res)


def test_step_down_shows_single_step_interval_and_marks_beyond(frames):
    from mrrstats.stats.corrections import ci_excludes_zero

    rr = read_score_matrix(data_path("score_matrices", "trec_adhoc", "adhoc7_rr.csv"))
    X = rr.iloc[:, :15]
    holm = mrrstats.compare(X, measure="RR", test="t", correction="holm")
    bonf = mrrstats.compare(X, measure="RR", test="t", correction="bonferroni")
    h, b = holm.to_frame(), bonf.to_frame()
    assert set(h["ci_method"]) == {"bonferroni(t)"}
    np.testing.assert_allclose(h["ci_low"], b["ci_low"])  # Holm shows Bonferroni's interval
    beyond = h["reject"] & ~b["reject"]
    assert beyond.any()  # Holm rejects more than Bonferroni here (checked on this matrix)
    np.testing.assert_array_equal(h["reject_beyond_ci"], beyond)
    np.testing.assert_array_equal(ci_excludes_zero(h["ci_low"], h["ci_high"]),
                                  h["reject"] & ~h["reject_beyond_ci"])
    assert "(*)" in holm.to_string() and "reject_beyond_ci" in holm.to_string(wide=True)
    assert all(np.isfinite(h[["ci_low", "ci_high"]].to_numpy()).ravel())
    # Strassburger-Bretz on request: consistent with Holm, one-sided for rejected pairs
    sb = mrrstats.compare(X, measure="RR", test="t", correction="holm", ci="consistent")
    f = sb.to_frame()
    assert set(f["ci_method"]) == {"holm-sb2008(t)"}
    np.testing.assert_array_equal(ci_excludes_zero(f["ci_low"], f["ci_high"]), f["reject"])
    assert np.isinf(f.loc[f["reject"], ["ci_low", "ci_high"]].to_numpy()).any(axis=1).all()
    # step-down max-T: the single-step interval of the same null, and its step-down decisions
    wy = mrrstats.compare(X, measure="RR", test="maxt", n_resamples=2000, rng=3)
    w = wy.to_frame()
    assert set(w["ci_method"]) == {"maxt-single-step"}
    assert np.isfinite(w[["ci_low", "ci_high"]].to_numpy()).all()
    np.testing.assert_array_equal(ci_excludes_zero(w["ci_low"], w["ci_high"]),
                                  w["reject"] & ~w["reject_beyond_ci"])


def test_single_step_refusals(frames):
    with pytest.raises(ValueError, match="adjusts studentised mean differences"):
        mrrstats.compare(frames, test="wilcoxon")
    assert mrrstats.compare(frames, test="wilcoxon", correction="holm").correction == "holm"
    with pytest.raises(ValueError, match="joint permutation null"):
        mrrstats.stats.corrections.adjust_pvalues([0.01, 0.2], "single-step", 0.05)


def test_single_step_over_measures(frames):
    # one max-T over measures x pairs: every resample permutes the systems of a query in
    # both measures; the same permutations as for one measure alone (same seed), so the
    # family's maximum is at least each measure's and its p-values at least as large
    fam = mrrstats.compare(frames, family="measures", n_resamples=1500, rng=6)
    rr = mrrstats.compare(frames["RR"], measure="RR", n_resamples=1500, rng=6)
    f = fam.results["RR"]
    assert f.correction == "single-step" and fam.family_size == 20
    assert np.all(f.null_distribution >= rr.results["RR"].null_distribution)
    assert np.all(f.pvalue_adjusted >= rr.results["RR"].pvalue_adjusted)
    np.testing.assert_array_equal(fam.results["AP"].null_distribution, f.null_distribution)
    _assert_readable(fam)
    assert "20 tests of 2 measures x 10 pairs" in fam.caption()
    one = mrrstats.compare({"RR": frames["RR"]}, family="measures", n_resamples=1500, rng=6)
    np.testing.assert_array_equal(one.results["RR"].ci_low, rr.results["RR"].ci_low)
    with pytest.raises(ValueError, match="the same systems, queries and clusters"):
        mrrstats.compare({"RR": frames["RR"], "AP": frames["AP"].iloc[:40]},
                         family="measures")


def test_old_names_still_work(frames):
    with pytest.warns(DeprecationWarning, match=r"use control="):
        res = mrrstats.compare(frames, test="t", correction="holm", baseline=0)
    with pytest.warns(DeprecationWarning, match=r"\.control"):
        assert res.baseline == res.control == frames["RR"].columns[0]
    with pytest.warns(DeprecationWarning, match=r"use atol="):
        r = mrrstats.compare(frames, test="t", correction="holm", zero_tolerance=0.1)
    pw = r.results["RR"]
    with pytest.warns(DeprecationWarning, match=r"\.atol"):
        assert pw.zero_tolerance == pw.atol == 0.1
    assert "diff" not in pw.to_frame()  # frames carry the current names only


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

    from mrrstats.stats.corrections import ci_excludes_zero

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
        # Holm shows Bonferroni's interval over the family: it may reject beyond it
        assert list(ci_excludes_zero(f["ci_low"], f["ci_high"])) == \
            list(rej & ~f["reject_beyond_ci"].to_numpy())
        if correction == "holm":
            assert set(f["ci_method"]) == {f"bonferroni({test})"}
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
