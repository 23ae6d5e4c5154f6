"""Agreement between measures: Kendall's tau, tau_AP, Spearman's rho, swaps,
per-query agreement, decision agreement and discriminative power."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import mrrstats
from mrrstats.agreement import (
    agreement_matrix,
    per_query_correlation,
    perfect_rr_disagreement,
    ranking_agreement,
    swapped_pairs,
    tau_ap,
)
from tests.reference_data import data_path

YEARS = (5, 6, 7)
MEASURES = ("rr", "ap", "p10")


@pytest.fixture(scope="module")
def adhoc():
    """{year: {measure: frame}} for the TREC-5/6/7 ad hoc score matrices."""
    out = {}
    for y in YEARS:
        out[y] = {m: mrrstats.read_score_matrix(
            data_path("score_matrices", "trec_adhoc", f"adhoc{y}_{m}.csv")) for m in MEASURES}
    return out


def _yilmaz_by_definition(truth, estimate):
    """tau_AP straight from Yilmaz et al. (2008), eq. (1), for untied lists:
    walk the evaluated list top-down; C(i) = items above rank i in the evaluated
    list that the true list also puts above that item."""
    order = np.argsort(-np.asarray(estimate), kind="stable")
    t = np.asarray(truth)
    n = len(order)
    total = 0.0
    for i in range(1, n):  # 0-based position i is rank i + 1
        item = order[i]
        c = sum(t[order[j]] > t[item] for j in range(i))
        total += c / i
    return 2.0 / (n - 1) * total - 1.0


# --------------------------------------------------------------------------
# tau_AP
# --------------------------------------------------------------------------

def test_tau_ap_hand_computed_and_asymmetric():
    # Truth: A > B > C > D (scores 4, 3, 2, 1). Evaluated list: B, C, A, D.
    # tau_AP = 2/(N-1) * sum_{i=2}^{N} C(i)/(i-1) - 1 with N = 4:
    #   i=2 (C): above it B; truth has B above C           -> C(2) = 1, 1/1
    #   i=3 (A): above it B, C; truth has both below A      -> C(3) = 0, 0/2
    #   i=4 (D): above it B, C, A; all above D in truth     -> C(4) = 3, 3/3
    #   tau_AP = 2/3 * (1 + 0 + 1) - 1 = 1/3.
    # Reversed roles (truth B > C > A > D, evaluated A, B, C, D):
    #   i=2 (B): above it A; truth has A below B            -> 0/1
    #   i=3 (C): above it A, B; truth: B above C, A below    -> 1/2
    #   i=4 (D): above it A, B, C; all above D               -> 3/3
    #   tau_AP = 2/3 * (0 + 1/2 + 1) - 1 = 0.
    # Kendall's tau is 1/3 both ways: pairs (A,B) and (A,C) are discordant,
    #   (4 concordant - 2 discordant) / 6 = 1/3.
    truth = np.array([4.0, 3.0, 2.0, 1.0])      # A, B, C, D
    estimate = np.array([2.0, 4.0, 3.0, 1.0])   # B > C > A > D
    assert tau_ap(truth, estimate) == pytest.approx(1 / 3, abs=1e-15)
    assert tau_ap(estimate, truth) == pytest.approx(0.0, abs=1e-15)
    assert tau_ap(truth, estimate, symmetric=True) == pytest.approx(1 / 6, abs=1e-15)
    assert stats.kendalltau(truth, estimate).statistic == pytest.approx(1 / 3)
    for ties in ("agreement", "accuracy", "raise"):
        assert tau_ap(truth, estimate, ties=ties) == pytest.approx(1 / 3, abs=1e-15)


def test_tau_ap_top_weighted():
    # Swapping the top two items costs more than swapping the bottom two
    # (hand: top swap 1/3 as above with B, A, C, D: C(2)=0, C(3)=2/2, C(4)=3/3 ->
    # 2/3*2-1 = 1/3; bottom swap A, B, D, C: 1 + 1 + 2/3 -> 2/3*8/3-1 = 7/9),
    # while Kendall's tau is 2/3 for both.
    truth = [4, 3, 2, 1]
    assert tau_ap(truth, [3, 4, 2, 1]) == pytest.approx(1 / 3)
    assert tau_ap(truth, [4, 3, 1, 2]) == pytest.approx(7 / 9)


def test_tau_ap_published_properties():
    rng = np.random.default_rng(20240611)
    x = rng.permutation(12).astype(float)
    # identical rankings -> 1; reversed -> -1 (Yilmaz et al. 2008, Sec. 3)
    assert tau_ap(x, x) == 1.0
    assert tau_ap(x, -x) == -1.0
    assert tau_ap(x, 2 * x + 5) == 1.0  # only the order matters
    # agrees with the definition walked item by item, and is not symmetric
    for _ in range(20):
        a, b = rng.permutation(9).astype(float), rng.permutation(9).astype(float)
        assert tau_ap(a, b) == pytest.approx(_yilmaz_by_definition(a, b), abs=1e-12)
    a = np.arange(6.0)
    b = np.array([5.0, 0, 1, 2, 3, 4])
    assert tau_ap(a, b) != pytest.approx(tau_ap(b, a))
    # the expectation over all N! evaluated orders is 0, like Kendall's tau
    # (each C(i)/(i-1) has expectation 1/2): exact enumeration for N = 5.
    truth = np.arange(5.0)
    values = [tau_ap(truth, np.array(p, dtype=float))
              for p in itertools.permutations(range(5))]
    assert math.fsum(values) / len(values) == pytest.approx(0.0, abs=1e-12)


# Reference values from the test suite of the R package ircor by J. Urbano
# (github.com/julian-urbano/ircor @ 6335f56, tests/testthat/test_tauAP.R and
# helper_data.R): tauAP(x, y), tauAP_a(x, y) and tauAP_b(x, y), x = truth,
# tolerance 5e-5 there (values printed to 4 decimals).
IRCOR = {
    "set1": dict(x=[0.897, 0.372, 0.908, 0.898, 0.661, 0.062, 0.177, 0.384, 0.498, 0.992],
                 y=[0.82, 0.406, 0.817, 0.953, 0.673, 0.073, 0.364, 0.547, 0.589, 0.988],
                 x_ties=[0.9, 0.4, 0.9, 0.9, 0.7, 0.1, 0.2, 0.4, 0.5, 1],
                 y_ties=[0.8, 0.4, 0.8, 1, 0.7, 0.1, 0.4, 0.5, 0.6, 1],
                 tau_ap=0.8519, tau_ap_a_yties=0.7454, tau_ap_b=0.8333, tau_ap_b_ties=0.7321),
    "set2": dict(x=[0.266, 0.573, 0.202, 0.945, 0.629, 0.206, 0.687, 0.77, 0.718, 0.38],
                 y=[0.263, 0.843, 0.728, 0.928, 0.08, 0.114, 0.467, 0.641, 0.973, 0.644],
                 x_ties=[0.3, 0.6, 0.2, 0.9, 0.6, 0.2, 0.7, 0.8, 0.7, 0.4],
                 y_ties=[0.3, 0.8, 0.7, 0.9, 0.1, 0.1, 0.5, 0.6, 1, 0.6],
                 tau_ap=0.2504, tau_ap_a_yties=0.2692, tau_ap_b=0.2880, tau_ap_b_ties=0.297),
    "set3": dict(x=[0.185, 0.573, 0.944, 0.129, 0.468, 0.553, 0.761, 0.405, 0.976, 0.445],
                 y=[0.845, 0.272, 0.275, 0.924, 0.605, 0.334, 0.162, 0.872, 0.018, 0.25],
                 x_ties=[0.2, 0.6, 0.9, 0.1, 0.5, 0.6, 0.8, 0.4, 1, 0.4],
                 y_ties=[0.8, 0.3, 0.3, 0.9, 0.6, 0.3, 0.2, 0.9, 0, 0.2],
                 tau_ap=-0.6971, tau_ap_a_yties=-0.5558, tau_ap_b=-0.668,
                 tau_ap_b_ties=-0.7047),
}


@pytest.mark.parametrize("name", sorted(IRCOR))
def test_tau_ap_against_ircor(name):
    d = IRCOR[name]
    tol = 5e-5
    assert tau_ap(d["x"], d["y"], ties="raise") == pytest.approx(d["tau_ap"], abs=tol)
    assert tau_ap(d["x"], d["y_ties"], ties="accuracy") == pytest.approx(
        d["tau_ap_a_yties"], abs=tol)
    assert tau_ap(d["x"], d["y"], symmetric=True) == pytest.approx(d["tau_ap_b"], abs=tol)
    for a, b in ((d["x_ties"], d["y_ties"]), (d["y_ties"], d["x_ties"])):
        assert tau_ap(a, b, ties="agreement", symmetric=True) == pytest.approx(
            d["tau_ap_b_ties"], abs=tol)


def _tie_breakings(values):
    """Every strict order of `values` that keeps untied items in place: scores
    with each tie group's members ordered by each permutation of the group."""
    values = np.asarray(values, dtype=float)
    groups = [np.flatnonzero(values == v) for v in np.unique(values)]
    for perms in itertools.product(*(itertools.permutations(range(g.size)) for g in groups)):
        out = values.copy()
        for g, p in zip(groups, perms, strict=True):
            out[g] = values[g] + 1e-6 * np.asarray(p)
        yield out


def test_tau_ap_accuracy_is_expectation_over_tie_breaking():
    # tau_AP,a (Urbano & Marrero 2017) is the mean tau_AP over all orders of the
    # tied items of the evaluated list: exact enumeration (8 and 24 orders).
    for truth, est in ((IRCOR["set1"]["x"], IRCOR["set1"]["y_ties"]),
                       ([5, 4, 3, 2, 1, 0], [1, 1, 1, 1, 0, 2])):
        values = [tau_ap(truth, e, ties="raise") for e in _tie_breakings(est)]
        assert len(values) > 1
        assert tau_ap(truth, est, ties="accuracy") == pytest.approx(np.mean(values),
                                                                    abs=1e-12)


def test_tau_ap_input_validation():
    with pytest.raises(ValueError, match="`estimate` has tied values and `ties`='raise'"):
        tau_ap([3, 2, 1], [1, 1, 2], ties="raise")
    with pytest.raises(ValueError, match="`truth` has tied values: ties='accuracy'"):
        tau_ap([1, 1, 2], [3, 2, 1], ties="accuracy")
    with pytest.raises(ValueError, match="`estimate` has tied values: ties='accuracy'"):
        tau_ap([3, 2, 1], [1, 1, 2], ties="accuracy", symmetric=True)
    with pytest.raises(ValueError, match="`ties` must be one of"):
        tau_ap([1, 2], [1, 2], ties="average")
    with pytest.raises(ValueError, match="same length"):
        tau_ap([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="at least 2 items"):
        tau_ap([1], [1])
    with pytest.raises(ValueError, match="`truth` must be finite"):
        tau_ap([1, np.nan], [1, 2])
    with pytest.raises(ValueError, match="`estimate` must be 1-dimensional"):
        tau_ap([1, 2], [[1, 2]])
    with pytest.raises(TypeError, match="`symmetric` must be True or False"):
        tau_ap([1, 2], [1, 2], symmetric="yes")
    # every item of the evaluated list tied: undefined under "agreement"
    assert np.isnan(tau_ap([1, 2, 3], [0, 0, 0]))


# --------------------------------------------------------------------------
# system rankings on TREC-5/6/7
# --------------------------------------------------------------------------

@pytest.mark.parametrize("year", YEARS)
def test_kendall_tau_trec_adhoc_against_scipy(adhoc, year):
    frames = adhoc[year]
    agree = ranking_agreement(frames)
    # independent computation: system means rounded to 12 decimals (the
    # documented tie rule), then scipy's tau-b and Spearman's rho.
    means = {m: frames[m].mean(axis=0).round(12).to_numpy() for m in MEASURES}
    for a, b in (("rr", "ap"), ("ap", "p10"), ("rr", "p10")):
        row = agree[(agree.measure_a == a) & (agree.measure_b == b)].iloc[0]
        ref = stats.kendalltau(means[a], means[b], variant="b")
        assert row.tau == pytest.approx(ref.statistic, abs=1e-12)
        assert row.tau_pvalue == pytest.approx(ref.pvalue, rel=1e-9)
        rho = stats.spearmanr(means[a], means[b])
        assert row.rho == pytest.approx(rho.statistic, abs=1e-12)
        assert row.rho_pvalue == pytest.approx(rho.pvalue, rel=1e-9)
        assert row.n_systems == frames[a].shape[1]
        # measures of the same runs agree, but far from perfectly
        assert 0.3 < row.tau < 0.99
    # RR and AP have no tied means here: tau-a = tau-b = 1 - 2 swaps / pairs
    row = agree[(agree.measure_a == "rr") & (agree.measure_b == "ap")].iloc[0]
    assert row.n_ties_a == 0 and row.n_ties_b == 0
    assert row.tau == pytest.approx(1 - 2 * row.n_swaps / row.n_pairs, abs=1e-12)


def test_ranking_agreement_tau_ap_and_matrix(adhoc):
    frames = adhoc[7]
    agree = ranking_agreement(frames)
    # one row per unordered pair: no self-pairs, no reversed duplicates, input order
    assert len(agree) == 3
    assert list(zip(agree.measure_a, agree.measure_b, strict=True)) == [
        ("rr", "ap"), ("rr", "p10"), ("ap", "p10")]
    means = {m: frames[m].mean(axis=0).round(12).to_numpy() for m in MEASURES}
    # RR and AP means are untied: tau_AP is Yilmaz's, walked item by item, both directions
    row = agree[(agree.measure_a == "rr") & (agree.measure_b == "ap")].iloc[0]
    assert row.tau_ap == pytest.approx(_yilmaz_by_definition(means["rr"], means["ap"]),
                                       abs=1e-12)
    assert row.tau_ap_reverse == pytest.approx(
        _yilmaz_by_definition(means["ap"], means["rr"]), abs=1e-12)
    assert row.tau_ap_symmetric == pytest.approx(
        (tau_ap(means["ap"], means["rr"]) + tau_ap(means["rr"], means["ap"])) / 2)
    tau = agreement_matrix(agree, "tau")
    assert list(tau.index) == list(MEASURES) and list(tau.columns) == list(MEASURES)
    np.testing.assert_allclose(np.diag(tau), 1.0)
    np.testing.assert_allclose(tau.to_numpy(), tau.to_numpy().T, atol=1e-14)
    tap = agreement_matrix(agree, "tau_ap")
    np.testing.assert_allclose(np.diag(tap), 1.0)
    assert tap.loc["ap", "rr"] == pytest.approx(row.tau_ap_reverse)  # rows are the truth
    assert tap.loc["rr", "ap"] == pytest.approx(row.tau_ap)
    assert tap.loc["ap", "rr"] != pytest.approx(tap.loc["rr", "ap"])
    sym = agreement_matrix(agree, "tau_ap_symmetric").to_numpy()
    np.testing.assert_allclose(sym, sym.T, atol=1e-14)
    # P@10 has tied means (P@10 totals are multiples of 0.1)
    p10 = agree[(agree.measure_a == "rr") & (agree.measure_b == "p10")].iloc[0]
    ties = np.sum([x == y for x, y in itertools.combinations(means["p10"], 2)])
    assert p10.n_ties_b == ties > 0
    assert agreement_matrix(agree, "n_ties_a").loc["p10", "p10"] == ties
    with pytest.raises(ValueError, match="`value` must be one of"):
        agreement_matrix(agree, "kendall")
    with pytest.raises(TypeError, match="`agreement` must be the DataFrame"):
        agreement_matrix(tau, "tau")


def test_ranking_agreement_accuracy_ties_gives_nan_for_tied_truth(adhoc):
    agree = ranking_agreement(adhoc[7], ties="accuracy")
    row = agree[(agree.measure_a == "rr") & (agree.measure_b == "p10")].iloc[0]
    assert np.isnan(row.tau_ap_reverse)  # the truth (P@10 means) has ties
    assert np.isfinite(row.tau_ap) and np.isnan(row.tau_ap_symmetric)
    with pytest.raises(ValueError, match="`ties` must be one of"):
        ranking_agreement(adhoc[7], ties="first")
    with pytest.raises(TypeError, match="`decimals` must be an int or None"):
        ranking_agreement(adhoc[7], decimals=1.5)


def test_swapped_pairs_trec7(adhoc):
    frames = adhoc[7]
    swaps = swapped_pairs(frames, "rr", "ap")
    agree = ranking_agreement(frames)
    row = agree[(agree.measure_a == "rr") & (agree.measure_b == "ap")].iloc[0]
    assert len(swaps) == row.n_swaps > 0
    assert (swaps.diff_a > 0).all() and (swaps.diff_b < 0).all()
    mean_rr, mean_ap = frames["rr"].mean(), frames["ap"].mean()
    first = swaps.iloc[0]
    assert first.mean_a_1 == pytest.approx(mean_rr[first.system_1])
    assert first.mean_b_2 == pytest.approx(mean_ap[first.system_2])
    # independent count over all pairs of systems
    names = list(frames["rr"].columns)
    expected = {tuple(sorted((s, t))) for s, t in itertools.combinations(names, 2)
                if (mean_rr[s] - mean_rr[t]) * (mean_ap[s] - mean_ap[t]) < 0}
    assert {tuple(sorted(p)) for p in zip(swaps.system_1, swaps.system_2, strict=True)} == expected
    assert swaps.diff_a.is_monotonic_decreasing
    with pytest.raises(ValueError, match="`measure_b` must be one of"):
        swapped_pairs(frames, "rr", "ndcg")


def test_score_input_validation(adhoc):
    rr, ap = adhoc[7]["rr"], adhoc[7]["ap"]
    with pytest.raises(ValueError, match="different systems"):
        ranking_agreement({"rr": rr, "ap": ap.iloc[:, :-1]})
    with pytest.raises(ValueError, match="different queries"):
        ranking_agreement({"rr": rr, "ap": ap.iloc[:-1]})
    with pytest.raises(ValueError, match="missing values"):
        ranking_agreement({"rr": rr, "ap": ap.mask(ap > 0.9)})
    with pytest.raises(TypeError, match="`scores` must be an Evaluation or a mapping"):
        ranking_agreement(rr)
    with pytest.raises(ValueError, match="at least 2 systems"):
        ranking_agreement({"rr": rr.iloc[:, :1]})
    # columns in another order are aligned by name, not position
    shuffled = ap[ap.columns[::-1]]
    pd.testing.assert_frame_equal(ranking_agreement({"rr": rr, "ap": shuffled}),
                                  ranking_agreement({"rr": rr, "ap": ap}))


def test_score_matrix_paths_accepted(adhoc):
    paths = {m: data_path("score_matrices", "trec_adhoc", f"adhoc5_{m}.csv")
             for m in MEASURES}
    pd.testing.assert_frame_equal(ranking_agreement(paths), ranking_agreement(adhoc[5]))


# --------------------------------------------------------------------------
# per-query agreement
# --------------------------------------------------------------------------

def test_per_query_correlation_against_scipy(adhoc):
    frames = adhoc[6]
    out = per_query_correlation(frames)
    assert len(out) == 3 * frames["rr"].shape[1]
    system = frames["rr"].columns[3]
    row = out[(out.measure_a == "rr") & (out.measure_b == "ap") & (out.system == system)]
    row = row.iloc[0]
    x, y = frames["rr"][system].to_numpy(), frames["ap"][system].to_numpy()
    assert row.n_values == 50
    assert row.pearson == pytest.approx(stats.pearsonr(x, y).statistic, abs=1e-12)
    assert row.spearman == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)
    assert row.kendall == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)
    pooled = per_query_correlation(frames, by="pooled")
    assert list(pooled.system.unique()) == ["(pooled)"] and len(pooled) == 3
    p = pooled[(pooled.measure_a == "ap") & (pooled.measure_b == "p10")].iloc[0]
    assert p.n_values == frames["ap"].size
    assert p.spearman == pytest.approx(stats.spearmanr(frames["ap"].to_numpy().ravel(),
                                                       frames["p10"].to_numpy().ravel())
                                       .statistic, abs=1e-12)
    with pytest.raises(ValueError, match="`by` must be 'system' or 'pooled'"):
        per_query_correlation(frames, by="query")


def test_per_query_correlation_constant_is_nan():
    rr = pd.DataFrame({"s1": [1.0, 1.0, 1.0], "s2": [1.0, 0.5, 0.2]})
    ap = pd.DataFrame({"s1": [0.3, 0.5, 0.7], "s2": [0.9, 0.4, 0.1]})
    out = per_query_correlation({"RR": rr, "AP": ap}).set_index("system")
    assert out.loc["s1", ["pearson", "spearman", "kendall"]].isna().all()
    assert out.loc["s2", "spearman"] == pytest.approx(1.0)


def test_perfect_rr_disagreement_trec7(adhoc):
    frames = adhoc[7]
    out = perfect_rr_disagreement(frames, rr="rr")
    assert set(out.measure) == {"ap", "p10"}
    ap_rows = out[out.measure == "ap"].set_index("system")
    rr, ap = frames["rr"], frames["ap"]
    # independent count per system
    n_one = (rr == 1).sum()
    n_below = ((rr == 1) & (ap < 1)).sum()
    pd.testing.assert_series_equal(ap_rows.n_rr_one, n_one, check_names=False)
    pd.testing.assert_series_equal(ap_rows.n_other_below_one, n_below, check_names=False)
    # TREC-7 has about 50 relevant documents per topic: AP is never 1, so every
    # "perfect" RR hides an imperfect ranking.
    assert (ap_rows.share_below_one.dropna() == 1).all()
    assert ap_rows.n_rr_one.sum() > 0.4 * rr.size
    assert ap_rows.mean_other_when_rr_one.max() < 1
    with pytest.raises(ValueError, match="`rr` must be one of"):
        perfect_rr_disagreement(frames)
    with pytest.raises(ValueError, match="`others` must name measures"):
        perfect_rr_disagreement(frames, rr="rr", others=["rr"])


# --------------------------------------------------------------------------
# decision agreement and discriminative power (tests of mrrstats.multiple)
# --------------------------------------------------------------------------

def test_decision_agreement_t_test_against_scipy_and_statsmodels(adhoc):
    from statsmodels.stats.multitest import multipletests

    from mrrstats import decision_agreement

    frames = {"rr": adhoc[5]["rr"], "ap": adhoc[5]["ap"]}
    res = decision_agreement(frames, "rr", "ap", test="t", correction="holm")
    pairs = res.to_frame()
    systems = list(frames["rr"].columns)
    i, j = np.triu_indices(len(systems), k=1)
    assert res.n_pairs == len(pairs) == i.size == 1830
    assert list(pairs.system_1) == [systems[k] for k in i]
    # independent: scipy's paired t-test on every pair, Holm via statsmodels
    for m, suffix in (("rr", "a"), ("ap", "b")):
        x = frames[m].to_numpy().T
        t = stats.ttest_rel(x[i], x[j], axis=1)
        reject = multipletests(t.pvalue, alpha=0.05, method="holm")[0]
        np.testing.assert_allclose(pairs[f"pvalue_{suffix}"], t.pvalue, rtol=1e-9)
        np.testing.assert_array_equal(pairs[f"significant_{suffix}"], reject)
        np.testing.assert_allclose(pairs[f"diff_{suffix}"], x[i].mean(1) - x[j].mean(1),
                                   atol=1e-12)
        np.testing.assert_array_equal(pairs[f"decision_{suffix}"],
                                      np.where(reject, np.sign(t.statistic), 0))
    # the counts partition the pairs and the flip share follows from them
    assert (res.n_both + res.n_only_a + res.n_only_b + res.n_reversed
            + int((pairs.outcome == "neither significant").sum())) == res.n_pairs
    assert res.n_significant_a == res.n_both + res.n_only_a + res.n_reversed
    assert res.n_significant_b == res.n_both + res.n_only_b + res.n_reversed
    n_any = res.n_pairs - int((pairs.outcome == "neither significant").sum())
    assert res.flip_share == pytest.approx(
        (res.n_only_a + res.n_only_b + res.n_reversed) / n_any)
    assert res.n_same_direction == int((np.sign(pairs.diff_a) == np.sign(pairs.diff_b)).sum())
    # RR and AP disagree on a real share of significant decisions on TREC-5
    assert 0.05 < res.flip_share < 0.6 and res.n_reversed < res.n_only_a + res.n_only_b
    summary = res.summary()
    assert summary.loc[0, "flip_share"] == res.flip_share and summary.loc[0, "test"] == "t"


def test_decision_agreement_seed_batch_and_shared_resamples(adhoc):
    from mrrstats import decision_agreement

    rr = adhoc[5]["rr"].iloc[:, :12]
    ap = adhoc[5]["ap"].iloc[:, :12]
    kw = dict(test="randomization", correction="holm", n_resamples=2000)
    one = decision_agreement({"rr": rr, "ap": ap}, "rr", "ap", rng=11, **kw)
    two = decision_agreement({"rr": rr, "ap": ap}, "rr", "ap", rng=11, batch=300, **kw)
    pd.testing.assert_frame_equal(one.to_frame(), two.to_frame())
    assert one.seed == two.seed and one.n_resamples == 2000
    # both measures share one seed: the same data under two names gives the
    # same p-values, so no decision flips
    same = decision_agreement({"x": rr, "y": rr.copy()}, "x", "y", rng=3, **kw)
    pairs = same.to_frame()
    np.testing.assert_array_equal(pairs.pvalue_a, pairs.pvalue_b)
    assert same.n_significant_a > 0 and same.flip_share == 0.0
    with pytest.raises(ValueError, match="`measure_a` and `measure_b` must differ"):
        decision_agreement({"rr": rr, "ap": ap}, "rr", "rr")
    with pytest.raises(ValueError, match=r"`alpha` must be in \(0, 1\)"):
        decision_agreement({"rr": rr, "ap": ap}, "rr", "ap", alpha=1.5)


@pytest.mark.parametrize("year", YEARS)
def test_discriminative_power_side_by_side(adhoc, year):
    from mrrstats import discriminative_power_table

    table = discriminative_power_table(adhoc[year], test="t")
    assert list(table.index) == list(MEASURES)
    for m in MEASURES:
        x = adhoc[year][m].to_numpy().T
        i, j = np.triu_indices(x.shape[0], k=1)
        p = stats.ttest_rel(x[i], x[j], axis=1).pvalue
        assert table.loc[m, "n_significant"] == int(np.sum(p <= 0.05))
        d = np.abs(x[i].mean(1) - x[j].mean(1))
        assert table.loc[m, "min_significant_difference"] == pytest.approx(d[p <= 0.05].min())
    assert (table.correction == "none").all()
    # RR, decided by one document per topic, is the least discriminative of the
    # three measures on every TREC ad hoc year (cf. Sakai 2006 on RR-like measures)
    assert table.loc["rr", "discriminative_power"] < table.loc["ap", "discriminative_power"]
    assert table.loc["rr", "discriminative_power"] < table.loc["p10", "discriminative_power"]


# --------------------------------------------------------------------------
# from run files: the CAsT 2021 runs
# --------------------------------------------------------------------------

def test_cast2021_run_files_to_agreement_table():
    data = mrrstats.datasets.cast2021()
    ev = mrrstats.evaluate(data.qrels, data.runs, ["RR", "AP", "nDCG", "P@10"])
    agree = ranking_agreement(ev)
    assert set(agree.measure_a) | set(agree.measure_b) == {"RR", "AP", "nDCG", "P@10"}
    assert len(agree) == 6  # one row per unordered pair
    assert (agree.n_systems == 5).all() and (agree.n_pairs == 10).all()
    # the system means are trec_eval's (cast2021/summary_trec_eval10_l1.tsv):
    # Kendall's tau from that table, computed with scipy, must match
    summary = pd.read_csv(data_path("cast2021", "summary_trec_eval10_l1.tsv"), sep="\t",
                          index_col="run")
    runs = [r.removesuffix(".run") for r in ev.scores("RR").columns]
    ref = summary.loc[runs, ["recip_rank", "map", "ndcg", "P_10"]]
    ref.columns = ["RR", "AP", "nDCG", "P@10"]
    for a, b in itertools.combinations(ref.columns, 2):
        row = agree[(agree.measure_a == a) & (agree.measure_b == b)].iloc[0]
        assert row.tau == pytest.approx(stats.kendalltau(ref[a], ref[b]).statistic)
        assert row.tau_ap == pytest.approx(tau_ap(ref[a], ref[b]))
    tau = agreement_matrix(agree, "tau")
    assert tau.shape == (4, 4)
    # per-query view and "perfect" RR that AP and nDCG do not confirm
    perfect = perfect_rr_disagreement(ev, others=["AP", "nDCG"])
    assert (perfect.n_rr_one > 0).all()
    assert (perfect.share_below_one > 0.9).all()  # 3+ relevant per turn: AP < 1 almost always
    pq = per_query_correlation(ev)
    assert len(pq) == 6 * 5 and pq.spearman.between(-1, 1).all()
    swaps = swapped_pairs(ev, "RR", "nDCG")
    row = agree[(agree.measure_a == "RR") & (agree.measure_b == "nDCG")].iloc[0]
    assert len(swaps) == row.n_swaps


def test_validators_name_their_parameter(adhoc):
    from mrrstats import discriminative_power_table

    frames = adhoc[5]
    with pytest.raises(ValueError, match="`measure_a` must be one of"):
        swapped_pairs(frames, "RR", "ap")
    with pytest.raises(TypeError, match="`decimals` must be an int or None"):
        swapped_pairs(frames, "rr", "ap", decimals="12")
    with pytest.raises(ValueError, match=r"`atol` must be a number in \[0, 1\)"):
        perfect_rr_disagreement(frames, rr="rr", atol="0")
    with pytest.raises(ValueError, match="`others` is empty"):
        perfect_rr_disagreement({"rr": frames["rr"]}, rr="rr")
    with pytest.raises(ValueError, match=r"`alpha` must be in \(0, 1\)"):
        discriminative_power_table(frames, alpha=0)
    with pytest.raises(TypeError, match="`scores` keys must be non-empty measure names"):
        ranking_agreement({1: frames["rr"], "ap": frames["ap"]})
    with pytest.raises(TypeError, match=r"`scores\['ap'\]` must be a DataFrame"):
        ranking_agreement({"rr": frames["rr"], "ap": frames["ap"].to_numpy()})


def test_discriminative_power_table_seed_and_batch_invariance(adhoc):
    from mrrstats import discriminative_power_table

    frames = {m: adhoc[6][m].iloc[:, :15] for m in MEASURES}
    kw = dict(test="randomization", n_resamples=3000)
    one = discriminative_power_table(frames, rng=42, **kw)
    two = discriminative_power_table(frames, rng=42, batch=250, **kw)
    pd.testing.assert_frame_equal(one, two)
    assert one.seed.nunique() == 1 and (one.n_resamples == 3000).all()


def test_evaluation_rank_measure_is_skipped_and_infinite_values_rejected():
    data = mrrstats.datasets.cast2021()
    ev = mrrstats.evaluate(data.qrels, data.runs, ["RR", "Rank", "AP"])
    agree = ranking_agreement(ev)
    assert list(zip(agree.measure_a, agree.measure_b, strict=True)) == [("RR", "AP")]
    rank = ev.scores("Rank")
    with pytest.raises(ValueError, match="measure 'Rank' has infinite values"):
        ranking_agreement({"RR": ev.scores("RR"), "Rank": rank.where(rank > 1, np.inf)})


# --------------------------------------------------------------------------
# seeds and workers of the functions that run the resampling engine
# --------------------------------------------------------------------------

def test_decision_agreement_records_the_seed_it_drew_and_takes_workers(adhoc):
    from mrrstats import decision_agreement

    scores = {"rr": adhoc[5]["rr"].iloc[:, :8], "ap": adhoc[5]["ap"].iloc[:, :8]}
    kw = dict(test="randomization", n_resamples=999)
    drawn = decision_agreement(scores, "rr", "ap", **kw)
    assert isinstance(drawn.seed, int)
    again = decision_agreement(scores, "rr", "ap", rng=drawn.seed, workers=1, **kw)
    assert again.seed == drawn.seed
    pd.testing.assert_frame_equal(again.to_frame(), drawn.to_frame())
    # the numbers do not depend on the thread count
    pd.testing.assert_frame_equal(
        decision_agreement(scores, "rr", "ap", rng=drawn.seed, workers=2, **kw).to_frame(),
        drawn.to_frame())
    assert decision_agreement(scores, "rr", "ap", rng=np.random.default_rng(1),
                              **kw).seed is None
    with pytest.raises(ValueError, match="`workers`"):
        decision_agreement(scores, "rr", "ap", workers=0, **kw)
    frame = drawn.to_frame()
    assert len(frame) == drawn.n_pairs == 8 * 7 // 2
    assert (frame.decision_a == np.where(frame.significant_a, np.sign(frame.diff_a), 0)).all()


def test_discriminative_power_table_records_the_seed_it_drew(adhoc):
    from mrrstats import discriminative_power_table

    frames = {m: adhoc[7][m].iloc[:, :8] for m in MEASURES}
    kw = dict(test="randomization", n_resamples=499)
    drawn = discriminative_power_table(frames, **kw)
    seed = drawn.attrs["seed"]
    assert isinstance(seed, int) and (drawn.seed == seed).all()
    again = discriminative_power_table(frames, rng=seed, workers=1, **kw)
    pd.testing.assert_frame_equal(again, drawn)
    assert again.attrs["seed"] == seed


# --------------------------------------------------------------------------
# exact p-values of tau and rho for few systems (full enumeration of n! orders)
# --------------------------------------------------------------------------

def test_rank_correlation_pvalues_exact_for_five_systems_in_perfect_agreement():
    """5 systems ranked alike by both measures: 2 of the 5! = 120 orders are as
    extreme (the same and the reversed order), so both p-values are 2/120; scipy's
    spearmanr (Student's t approximation) gives 1.4e-24."""
    rr = pd.DataFrame({f"s{i}": [0.1 * i, 0.1 * i + 0.05] for i in range(1, 6)})
    ap = pd.DataFrame({f"s{i}": [0.05 * i, 0.02 * i] for i in range(1, 6)})
    row = ranking_agreement({"RR": rr, "AP": ap}).iloc[0]
    assert row.rho == pytest.approx(1.0, abs=1e-12) and row.tau == pytest.approx(1.0, abs=1e-12)
    assert row.rho_pvalue == 2 / 120 and row.tau_pvalue == 2 / 120
    assert stats.spearmanr(np.arange(5), np.arange(5)).pvalue < 1e-20  # what it replaced


# seeds 0 and 2 draw 8 systems: scipy's reference loops over 8! = 40,320 pairings in
# Python (18 s each), so they run with the slow suite; the others draw 5 and 7 systems
@pytest.mark.parametrize("seed", [pytest.param(0, marks=pytest.mark.slow), 1,
                                  pytest.param(2, marks=pytest.mark.slow), 3, 4, 5])
def test_rank_correlation_pvalues_equal_scipy_exact_permutation_test(seed):
    """With ties, against scipy.stats.permutation_test over every pairing
    (n_resamples=inf: exact), statistic |tau_b| and |rho| (two-sided as 'at least as
    far from 0')."""
    from mrrstats.agreement.measures import exact_rank_correlation_pvalues

    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 9))
    x = rng.integers(0, 4, n).astype(float)
    y = rng.integers(0, 4, n).astype(float)
    x[:2], y[:2] = [0.0, 5.0], [1.0, 6.0]  # not constant
    tau_p, rho_p = exact_rank_correlation_pvalues(x, y)
    kw = dict(permutation_type="pairings", n_resamples=np.inf, alternative="greater")
    ref_tau = stats.permutation_test((x,), lambda u: abs(stats.kendalltau(u, y).statistic),
                                     **kw).pvalue
    ref_rho = stats.permutation_test((x,), lambda u: abs(stats.spearmanr(u, y).statistic),
                                     **kw).pvalue
    assert tau_p == pytest.approx(ref_tau, abs=1e-12)
    assert rho_p == pytest.approx(ref_rho, abs=1e-12)


def test_rank_correlation_pvalues_switch_to_scipy_above_nine_systems():
    rng = np.random.default_rng(4)
    frames = {m: pd.DataFrame(rng.random((6, 10)), columns=[f"s{i}" for i in range(10)])
              for m in ("RR", "AP")}
    row = ranking_agreement(frames).iloc[0]
    x, y = (frames[m].mean(axis=0).round(12).to_numpy() for m in ("RR", "AP"))
    assert row.rho_pvalue == pytest.approx(stats.spearmanr(x, y).pvalue, rel=1e-12)
    assert row.tau_pvalue == pytest.approx(stats.kendalltau(x, y).pvalue, rel=1e-12)
