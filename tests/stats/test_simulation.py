"""Simulated collections and test calibration."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats

import mrrstats
from mrrstats.stats.simulation import (
    _betabinom_fit,
    _lscv_bandwidth,
    _wvr_density,
    fit_collection,
    support_of,
)


@pytest.fixture(scope="module")
def rr():
    return mrrstats.datasets.trec7_scores("RR")


def test_supports():
    s = support_of([0, 1, 0.5, 1 / 7], "RR")
    assert s.size == 1001 and s[0] == 0 and s[-1] == 1 and s[1] == pytest.approx(1e-3)
    assert support_of([0.2, 1], "RR@10").size == 11
    assert support_of([0.1, 0.4], "P@10").tolist() == pytest.approx(np.arange(11) / 10)
    assert support_of([0.05, 0.35, 1.0], "score").tolist() == pytest.approx(np.arange(21) / 20)
    assert support_of([0.05, 0.5, 1.0], "score").size == 1001  # all reciprocals: RR-like
    ap = support_of([0.123, 0.456, 0.789], "AP")
    assert ap.tolist() == [0.123, 0.456, 0.789]
    # RR deeper than 1000: the support grows to the deepest rank seen
    assert support_of([1 / 2000, 1.0], "RR").size == 2001


def test_betabinomial_fit_is_the_mle():
    # On beta-binomial data, our fit reaches the likelihood of scipy's numerical MLE.
    gen = np.random.default_rng(0)
    N = 20
    x = stats.betabinom.rvs(N, 0.7, 1.8, size=400, random_state=gen)
    cdf, ll = _betabinom_fit(x, N)

    def nll(t):
        return -stats.betabinom.logpmf(x, N, *np.exp(t)).sum()

    ref = optimize.minimize(nll, [0.0, 0.0], method="Nelder-Mead",
                            options={"xatol": 1e-8, "fatol": 1e-10, "maxiter": 5000})
    assert ll == pytest.approx(-ref.fun, abs=1e-4)
    assert cdf[-1] == pytest.approx(1.0)


def test_kernel_bandwidth_minimises_the_cv_criterion():
    # Least-squares CV of the Wang-van Ryzin kernel (np's cv.ls): our bandwidth is the
    # minimiser of the criterion evaluated independently on a fine grid.
    gen = np.random.default_rng(1)
    idx = np.minimum(gen.geometric(0.4, size=60) - 1, 15)
    lam = _lscv_bandwidth(idx, 16)
    grid = np.arange(16)

    def cv(lmb):
        f = _wvr_density(idx, grid, lmb)
        loo = [(_wvr_density(np.delete(idx, i), np.array([idx[i]]), lmb))[0]
               for i in range(idx.size)]
        return (f * f).sum() - 2 * np.mean(loo)

    lams = np.linspace(0.001, 0.999, 999)
    best = lams[np.argmin([cv(v) for v in lams])]
    assert lam == pytest.approx(best, abs=2e-3)


def test_transformed_margins_hit_their_means(rr):
    model = fit_collection(rr[["run1", "run50", "run90"]])
    for target in (0.2, 0.5, 0.8):
        moved = model.transformed(target)
        for m in moved.margins:
            assert m.mean == pytest.approx(target, abs=1e-10)
            assert (np.diff(m.cdf) >= -1e-15).all() and m.cdf[-1] == 1.0
    with pytest.raises(ValueError, match="cannot give"):
        model.transformed(1.5)


def test_simulated_collection_matches_the_data(rr):
    # Expected means equal the observed ones (simIReff's default); the simulated values
    # lie on RR's support; 20,000 topics: the MC SE of a mean is about 0.003.
    cols = ["run10", "run40", "run70"]
    sim = mrrstats.simulate_collection(rr[cols], n_queries=20000, rng=5)
    assert list(sim.columns) == cols and sim.attrs["seed"] == 5
    assert np.allclose(sim.mean(), rr[cols].mean(), atol=0.012)
    assert np.allclose(sim.std(), rr[cols].std(), atol=0.05)
    assert sim.isin(support_of(rr[cols], "RR")).all().all()
    # rank correlations near the observed ones (Gaussian copula from Kendall's tau)
    tau_obs = stats.kendalltau(rr["run10"], rr["run40"])[0]
    tau_sim = stats.kendalltau(sim["run10"], sim["run40"])[0]
    assert tau_sim == pytest.approx(tau_obs, abs=0.15)
    # chosen means; reproducible from the recorded seed
    s2 = mrrstats.simulate_collection(rr[cols], n_queries=20000, means={"run10": 0.3}, rng=5)
    assert s2["run10"].mean() == pytest.approx(0.3, abs=0.01)
    s3 = mrrstats.simulate_collection(rr[cols], n_queries=50)
    s4 = mrrstats.simulate_collection(rr[cols], n_queries=50, rng=s3.attrs["seed"])
    pd.testing.assert_frame_equal(s3, s4)


def test_calibration_table_and_recommendation(rr):
    res = mrrstats.calibrate_tests(rr[["run8", "run9"]], n_simulations=300, n_resamples=300,
                                   differences=(0.1,), rng=2)
    f = res.to_frame()
    assert list(f["test"]) == ["t", "randomization", "bootstrap", "wilcoxon", "sign"]
    assert (f["correction"] == "none").all() and (f["n_queries"] == 50).all()
    # the t-test holds its level within Monte-Carlo error (3 SE = 0.038 at 300)
    assert abs(f.set_index("test").loc["t", "type_I_error"] - 0.05) < 0.038
    assert res.recommended_test in f["test"].tolist()
    assert res.recommended_test in ("t", "randomization", "bootstrap", "wilcoxon", "sign")
    assert "type I error" in res.recommendation
    assert (f["power_0.1"] > f["type_I_error"]).all()


def test_calibration_corrections_and_reproducibility(rr):
    X = rr[["run8", "run9", "run10", "run11"]]
    kw = dict(tests=["t", "randomization"], n_simulations=100, n_resamples=200, differences=())
    r1 = mrrstats.calibrate_tests(X, rng=4, **kw)
    r2 = mrrstats.calibrate_tests(X, rng=4, workers=1, **kw)
    pd.testing.assert_frame_equal(r1.to_frame(), r2.to_frame())
    f = r1.to_frame().set_index(["test", "correction"])
    assert set(f.index.get_level_values("correction")) == {"none", "holm"}
    # Holm's family-wise error is at most the chance of any unadjusted rejection, and the
    # FWER of 6 pairs exceeds their per-comparison rate
    assert f.loc[("t", "holm"), "type_I_error"] <= 6 * f.loc[("t", "none"), "type_I_error"]
    r3 = mrrstats.calibrate_tests(X, **kw)
    assert isinstance(r3.seed, int)


def test_many_systems_are_subsampled(rr):
    res = mrrstats.calibrate_tests(rr, tests=["t"], n_simulations=20, differences=(),
                                   max_systems=4, rng=0)
    assert len(res.systems) == 4 and res.systems[0] == "run1"


@pytest.mark.parametrize("kw,match", [
    ({"tests": ["maxt"]}, "`tests`"),
    ({"differences": (-0.1,)}, "`differences`"),
    ({"null_hypothesis": "shape"}, "`null_hypothesis`"),
    ({"n_simulations": 0}, "`n_simulations`"),
])
def test_bad_input(rr, kw, match):
    with pytest.raises((ValueError, TypeError), match=match):
        mrrstats.calibrate_tests(rr[["run1", "run2"]], **kw)


@pytest.mark.slow
def test_published_direction_on_trec():
    # Urbano, Lima & Hanjalic (SIGIR 2019), output/type_1/type_1_rr_50.csv, alpha = 0.05,
    # two-sided: t 0.0498, permutation 0.0498, bootstrap 0.0580, Wilcoxon 0.0480,
    # sign 0.0360 (identical margins). Over 20 TREC-7 pairs x 200 topic sets:
    # t and randomization near 0.05, the sign test conservative, the bootstrap above t.
    gen = np.random.default_rng(7)
    X = mrrstats.datasets.trec7_scores("RR")
    X = X.loc[:, X.mean() >= X.mean().quantile(0.25)]
    rates = {t: [] for t in ("t", "randomization", "bootstrap", "sign")}
    for k in range(20):
        a, b = gen.choice(X.shape[1], 2, replace=False)
        res = mrrstats.calibrate_tests(X.iloc[:, [a, b]], tests=list(rates), null_hypothesis="margins",
                                       n_simulations=200, differences=(), rng=k)
        for t, r in res.to_frame().set_index("test")["type_I_error"].items():
            rates[t].append(r)
    m = {t: np.mean(v) for t, v in rates.items()}
    assert abs(m["t"] - 0.05) < 0.012 and abs(m["randomization"] - 0.05) < 0.012
    assert m["sign"] < 0.045
    assert m["bootstrap"] > m["t"]
