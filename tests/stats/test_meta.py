"""Several collections: partial conjunctions and random-effects meta-analysis."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import mrrstats
from mrrstats.stats.meta import partial_conjunction_pvalues, random_effects

# Kacker (2004), Metrologia 41:132, Table 1 data (9 interlaboratory results); the R
# metafor outputs below are those recorded in statsmodels' test suite
# (statsmodels/stats/tests/results/results_meta.py: exk1_metafor, exk1_dl), from
# rma(y, v, method="PM"|"DL", control=list(tol=1e-9)).
KACKER_Y = np.array([61.0, 61.4, 62.21, 62.3, 62.34, 62.6, 62.7, 62.84, 65.9])
KACKER_V = np.array([0.2025, 1.21, 0.09, 0.2025, 0.3844, 0.5625, 0.0676, 0.0225, 1.8225])


def test_partial_conjunctions_reproduce_dror_et_al():
    # The example of Dror et al.'s code (rtmdrr/replicability-analysis-NLP, README):
    # p = 0.168, 0.297, 0.357, 0.019, 0.218, 0.001 at alpha = 0.05 -> k_Bonferroni = 1,
    # k_Fisher = 2, Holm rejects dataset6 only.
    p = [0.168, 0.297, 0.357, 0.019, 0.218, 0.001]
    pc = partial_conjunction_pvalues(p)
    assert int((pc["bonferroni"] <= 0.05).sum()) == 1
    assert int((pc["fisher"] <= 0.05).sum()) == 2
    # by hand: p^{1/6}_B = 6 * 0.001; p^{2/6}_F = chi2_10 tail of -2 sum log(5 largest)
    assert pc.loc[1, "bonferroni"] == pytest.approx(0.006)
    five = np.sort(p)[1:]
    assert pc.loc[2, "fisher"] == pytest.approx(stats.chi2.sf(-2 * np.log(five).sum(), 10))
    assert (np.diff(pc["bonferroni"]) >= 0).all() and (np.diff(pc["fisher"]) >= 0).all()


def test_across_collections_with_frames_matches_per_collection_tests():
    rr = mrrstats.datasets.trec7_scores("RR")
    data = {
        c: rr[[a, b]]
        for c, (a, b) in {
            "x": ("run8", "run9"),
            "y": ("run10", "run11"),
            "z": ("run20", "run21"),
        }.items()
    }
    res = mrrstats.across_collections(data)
    for c, frame in data.items():
        ref = stats.ttest_rel(frame.iloc[:, 0], frame.iloc[:, 1], alternative="greater")
        assert res.collections.loc[c, "pvalue"] == pytest.approx(ref.pvalue, rel=1e-10)
    p = res.collections["pvalue"].to_numpy()
    pc = partial_conjunction_pvalues(p)
    assert res.k_hat == {
        "bonferroni": int((pc["bonferroni"] <= 0.05).sum()),
        "fisher": int((pc["fisher"] <= 0.05).sum()),
    }
    # Holm names exactly k_Bonferroni collections (Dror et al. 2017)
    assert len(res.replicated) == res.k_hat["bonferroni"]
    assert res.to_frame()["replicated"].sum() == res.k_hat["bonferroni"]
    assert "collections" in res.summary()


def test_effects_and_their_variances():
    gen = np.random.default_rng(1)
    data = {}
    for c, n in (("a", 40), ("b", 60), ("c", 80)):
        x = gen.random(n)
        data[c] = pd.DataFrame({"A": x + gen.normal(0.05, 0.2, n), "B": x})
    res = mrrstats.across_collections(data, alternative="two-sided")
    for c, frame in data.items():
        d = frame["A"] - frame["B"]
        n = d.size
        dz = d.mean() / d.std(ddof=1)
        row = res.collections.loc[c]
        assert row["d_z"] == pytest.approx(dz)
        assert row["variance"] == pytest.approx(1 / n + dz**2 / (2 * n))
    raw = mrrstats.across_collections(data, effect="difference")
    for c, frame in data.items():
        d = frame["A"] - frame["B"]
        assert raw.collections.loc[c, "variance"] == pytest.approx(d.var(ddof=1) / d.size)


def test_random_effects_against_metafor_and_kacker():
    pm = random_effects(KACKER_Y, KACKER_V, method="PM")
    assert pm["tau2"] == pytest.approx(0.705395309224248, abs=1e-8)  # metafor PM
    assert pm["estimate"] == pytest.approx(62.4076199113286, abs=1e-7)
    assert pm["standard_error"] == pytest.approx(0.338030602684471, abs=1e-7)
    assert 100 * pm["i2"] == pytest.approx(83.7218626490482, abs=1e-5)
    assert np.sqrt(pm["tau2"]) == pytest.approx(0.8399, abs=6e-5)  # Kacker 2004, Table 1
    dl = random_effects(KACKER_Y, KACKER_V, method="DL")
    assert dl["tau2"] == pytest.approx(0.288049246973751, abs=1e-10)  # metafor DL
    assert dl["estimate"] == pytest.approx(62.3901386044504, abs=1e-9)
    assert dl["standard_error"] == pytest.approx(0.245749668040304, abs=1e-9)
    assert (dl["ci_low"], dl["ci_high"]) == pytest.approx(
        (61.9084781058787, 62.8717991030221), abs=1e-8
    )
    assert 100 * dl["i2"] == pytest.approx(67.744403741711, abs=1e-6)
    assert dl["q"] == pytest.approx(24.801897741835, abs=1e-9)


def test_random_effects_against_statsmodels_combine_effects():
    from statsmodels.stats.meta_analysis import combine_effects

    rr = mrrstats.datasets.trec7_scores("RR")
    ap = mrrstats.datasets.trec7_scores("AP")
    p10 = mrrstats.datasets.trec7_scores("P@10")
    data = {
        "RR": rr[["run3", "run40"]],
        "AP": ap[["run3", "run40"]],
        "P@10": p10[["run3", "run40"]],
        "RR'": rr[["run5", "run41"]],
    }
    res = mrrstats.across_collections(data, alternative="two-sided")
    eff = res.collections["effect"].to_numpy()
    var = res.collections["variance"].to_numpy()
    for method, sm in (("DL", "dl"), ("PM", "pm")):
        ref = combine_effects(eff, var, method_re=sm, atol=1e-12, maxiter=500)
        row = res.meta.loc[method]
        assert row["tau2"] == pytest.approx(max(ref.tau2, 0.0), abs=1e-9)
        if ref.tau2 > 0:
            assert row["estimate"] == pytest.approx(ref.mean_effect_re, abs=1e-9)
            assert row["standard_error"] == pytest.approx(ref.sd_eff_w_re, abs=1e-9)
    ci = res.confidence_interval(method="PM")
    assert ci.low == pytest.approx(res.meta.loc["PM", "ci_low"])


def test_comparisons_as_input():
    rr = mrrstats.datasets.trec7_scores("RR")
    frames = {"x": rr[["run8", "run9"]], "y": rr[["run30", "run31"]]}
    comps = {c: mrrstats.compare(f, test="t") for c, f in frames.items()}
    a = mrrstats.across_collections(frames)
    b = mrrstats.across_collections(comps)
    # the two-sided t p-value halved towards "greater" is the one-sided one
    assert np.allclose(a.collections["pvalue"], b.collections["pvalue"], rtol=1e-10)
    assert np.allclose(a.collections["d_z"], b.collections["d_z"])
    assert np.allclose(a.collections["variance"], b.collections["variance"])


def test_random_tests_record_the_seed():
    rr = mrrstats.datasets.trec7_scores("RR")
    data = {"x": rr[["run8", "run9"]], "y": rr[["run30", "run31"]]}
    r1 = mrrstats.across_collections(data, test="randomization")
    r2 = mrrstats.across_collections(data, test="randomization", rng=r1.seed)
    assert isinstance(r1.seed, int)
    assert np.array_equal(r1.collections["pvalue"], r2.collections["pvalue"])


@pytest.mark.parametrize(
    "kw,match",
    [
        ({"data": {"x": None}}, "at least 2"),
        ({"data": [1, 2]}, "mapping"),
        ({"test": "maxt"}, "`test`"),
        ({"effect": "hedges"}, "`effect`"),
        ({"alternative": "bigger"}, "`alternative`"),
    ],
)
def test_bad_input(kw, match):
    rr = mrrstats.datasets.trec7_scores("RR")
    data = kw.pop("data", {"x": rr[["run1", "run2"]], "y": rr[["run3", "run4"]]})
    with pytest.raises((ValueError, TypeError), match=match):
        mrrstats.across_collections(data, **kw)
    with pytest.raises(ValueError, match="two columns"):
        mrrstats.across_collections({"x": rr[["run1", "run2", "run3"]], "y": rr[["run3", "run4"]]})


def test_hierarchical_model_of_the_collections():
    rr = mrrstats.datasets.trec7_scores("RR")
    parts = {f"t{i}": rr.iloc[10 * i : 10 * i + 10][["run47", "run38"]] for i in range(5)}
    res = mrrstats.across_collections(parts)
    h = res.hierarchical(rope=0.1)
    ref = mrrstats.bayesian_hierarchical(
        res.collections["effect"], np.sqrt(res.collections["variance"]), rope=0.1
    )
    assert h.difference == ref.difference and h.p_a_better == ref.p_a_better
    assert h.method == "hierarchical" and h.n_queries == 5


# metafor 4 (Debian r-cran-metafor), from tests/stats/r_reference/meta_tau2.R:
# rma(y, v, method=M, test=T, control=list(threshold=1e-12, maxiter=10000)) and
# confint(., control=list(tol=1e-12))$random["tau^2", ]. BCG: metafor's dat.bcg,
# escalc(measure="RR", ai=tpos, bi=tneg, ci=cpos, di=cneg).
BCG_Y = np.array(
    [
        -0.88931133392020545,
        -1.5853886572014306,
        -1.3480731482996933,
        -1.4415511900213054,
        -0.21754732221129558,
        -0.78611558581886398,
        -1.6208982235983918,
        0.011952333523840508,
        -0.4694176487381494,
        -1.3713448034727844,
        -0.33935882833839059,
        0.44591340057137874,
        -0.017313948216879815,
    ]
)
BCG_V = np.array(
    [
        0.32558476500396133,
        0.19458112139814385,
        0.41536796536796539,
        0.020010031902247573,
        0.051210172169630863,
        0.0069056184559087574,
        0.22301724757231517,
        0.0039615792978177295,
        0.056434210463248966,
        0.07302479361302891,
        0.01241221397155972,
        0.53250584520015276,
        0.071404659683986293,
    ]
)
# (data, method, test, (tau2, mu, se, ci_low, ci_high, z or t, p), tau2 Q-profile interval)
METAFOR = [
    (
        "kacker",
        "REML",
        "z",
        (
            0.294342866862854,
            62.390065273811,
            0.247508091248695,
            61.9049583290813,
            62.8751722185407,
            252.072831070083,
            0,
        ),
        (0.0688036888814392, 5.59159828314059),
    ),
    (
        "kacker",
        "REML",
        "knha",
        (
            0.294342866862854,
            62.390065273811,
            0.295726690071988,
            61.7081183036148,
            63.0720122440073,
            210.972047394923,
            2.85192233099225e-16,
        ),
        (0.0688036888814392, 5.59159828314059),
    ),
    (
        "kacker",
        "SJ",
        "z",
        (
            1.07136854045077,
            62.4280421120736,
            0.39821660106972,
            61.647551915931,
            63.2085323082162,
            156.76905971367,
            0,
        ),
        (0.0688036888814392, 5.59159828314059),
    ),
    (
        "kacker",
        "SJ",
        "knha",
        (
            1.07136854045077,
            62.4280421120736,
            0.359691692753699,
            61.5985915811849,
            63.2574926429622,
            173.559866323689,
            1.3589654054925e-15,
        ),
        (0.0688036888814392, 5.59159828314059),
    ),
    (
        "kacker",
        "DL",
        "z",
        (
            0.288049246972265,
            62.3901386044503,
            0.245749668039886,
            61.9084781058795,
            62.8717991030212,
            253.876797075975,
            0,
        ),
        (0.0688036888814392, 5.59159828314059),
    ),
    (
        "kacker",
        "DL",
        "knha",
        (
            0.288049246972265,
            62.3901386044503,
            0.294776056998564,
            61.7103837980525,
            63.0698934108482,
            211.65266690827,
            2.77938607431986e-16,
        ),
        (0.0688036888814392, 5.59159828314059),
    ),
    (
        "bcg",
        "REML",
        "z",
        (
            0.313243258136486,
            -0.71453234215814,
            0.179781516105207,
            -1.06689763881035,
            -0.362167045505926,
            -3.97444830613176,
            7.05425810164237e-05,
        ),
        (0.119718361141152, 1.11147908406093),
    ),
    (
        "bcg",
        "REML",
        "knha",
        (
            0.313243258136486,
            -0.71453234215814,
            0.180791744092848,
            -1.10844371368555,
            -0.320620970630728,
            -3.95223988652481,
            0.0019200150960573,
        ),
        (0.119718361141152, 1.11147908406093),
    ),
    (
        "bcg",
        "SJ",
        "z",
        (
            0.345515701598595,
            -0.717248592557584,
            0.187059458416427,
            -1.08387839402135,
            -0.35061879109382,
            -3.83433480792436,
            0.000125904552046427,
        ),
        (0.119718361141152, 1.11147908406093),
    ),
    (
        "bcg",
        "SJ",
        "knha",
        (
            0.345515701598595,
            -0.717248592557584,
            0.181428451527755,
            -1.11254723041292,
            -0.321949954702252,
            -3.95334131178349,
            0.00191620341445529,
        ),
        (0.119718361141152, 1.11147908406093),
    ),
    (
        "bcg",
        "DL",
        "z",
        (
            0.308760262862376,
            -0.714117222073227,
            0.178742089535403,
            -1.06444528008405,
            -0.363789164062403,
            -3.99523818888658,
            6.462924304704e-05,
        ),
        (0.119718361141152, 1.11147908406093),
    ),
    (
        "bcg",
        "DL",
        "knha",
        (
            0.308760262862376,
            -0.714117222073227,
            0.180696628335547,
            -1.10782135416833,
            -0.320413089978125,
            -3.95202294946609,
            0.00192076676704736,
        ),
        (0.119718361141152, 1.11147908406093),
    ),
]


@pytest.mark.parametrize(("data", "method", "test", "expected", "tau2_ci"), METAFOR)
def test_reml_sj_knapp_hartung_qprofile_against_metafor(data, method, test, expected, tau2_ci):
    y, v = {"kacker": (KACKER_Y, KACKER_V), "bcg": (BCG_Y, BCG_V)}[data]
    r = random_effects(y, v, method=method, meta_test=test)
    got = [
        r[k]
        for k in ("tau2", "estimate", "standard_error", "ci_low", "ci_high", "statistic", "pvalue")
    ]
    # largest relative difference seen: 5e-13 (metafor's p = 0 underflows: abs)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose([r["tau2_ci_low"], r["tau2_ci_high"]], tau2_ci, rtol=1e-9)


def test_qprofile_bounds_at_zero_and_knha_in_across_collections():
    # homogeneous effects: Q(0) below both quantiles -> the interval is [0, 0]
    r = random_effects([0.1, 0.1001, 0.0999], [1.0, 1.0, 1.0])
    assert r["tau2"] == 0.0 and r["tau2_ci_low"] == 0.0 and r["tau2_ci_high"] == 0.0
    rr = mrrstats.datasets.trec7_scores("RR")
    data = {
        c: rr[[a, b]]
        for c, (a, b) in {
            "x": ("run8", "run9"),
            "y": ("run10", "run11"),
            "z": ("run20", "run21"),
        }.items()
    }
    base = mrrstats.across_collections(data)
    res = mrrstats.across_collections(data, tau2_methods=("DL", "REML", "SJ"), meta_test="knha")
    assert list(res.meta.index) == ["DL", "REML", "SJ"]
    assert res.meta.loc["DL", "estimate"] == pytest.approx(base.meta.loc["DL", "estimate"])
    eff, var = res.collections["effect"], res.collections["variance"]
    for m in ("DL", "REML", "SJ"):
        one = random_effects(eff, var, method=m, meta_test="knha", alternative="greater")
        assert res.meta.loc[m, "ci_low"] == pytest.approx(one["ci_low"])
        ci = res.confidence_interval(method=m)
        assert (ci.low, ci.high) == pytest.approx((one["ci_low"], one["ci_high"]))
