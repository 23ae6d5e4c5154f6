"""Tests of mrrstats.power: t-test power, simulated randomization power, topic set size."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest
from scipy import stats

import mrrstats
from mrrstats.io import read_score_matrix
from tests.reference_data import data_path


def _nct_power(effect, n, alpha=0.05):
    """Two-sided paired t power from the noncentral t distribution (independent formula)."""
    df = n - 1
    nc = effect * math.sqrt(n)
    tc = stats.t.ppf(1 - alpha / 2, df)
    return stats.nct.sf(tc, df, nc) + stats.nct.cdf(-tc, df, nc)


def test_ttest_power_gpower_reference():
    # G*Power 3.1, "t tests - Means: Difference from constant (one sample case)",
    # a priori: d = 0.5, alpha = 0.05, two tails, power 0.80 -> total sample size 34,
    # actual power 0.8077775.
    res = mrrstats.ttest_power(difference=0.5, std=1.0, power=0.8)
    assert res.n_queries_required == 34 and res.solved_for == "n_queries"
    at34 = mrrstats.ttest_power(difference=0.5, std=1.0, n_queries=34)
    assert round(at34.power, 4) == 0.8078


@pytest.mark.parametrize("difference,sd,n", [(0.05, 0.2, 50), (0.02, 0.3, 200), (0.1, 0.25, 12)])
def test_ttest_power_noncentral_t(difference, sd, n):
    res = mrrstats.ttest_power(difference=difference, std=sd, n_queries=n)
    assert res.power == pytest.approx(_nct_power(difference / sd, n), rel=1e-6)
    assert res.effect_size == pytest.approx(difference / sd)


def test_ttest_power_solves_each_quantity():
    base = mrrstats.ttest_power(difference=0.04, std=0.25, n_queries=150)
    n = mrrstats.ttest_power(difference=0.04, std=0.25, power=base.power)
    assert n.n_queries == pytest.approx(150, rel=1e-4)
    d = mrrstats.ttest_power(std=0.25, n_queries=150, power=base.power)
    assert d.difference == pytest.approx(0.04, rel=1e-4)
    s = mrrstats.ttest_power(difference=0.04, n_queries=150, power=base.power)
    assert s.std == pytest.approx(0.25, rel=1e-4)
    # the required n is the smallest integer with enough power
    req = mrrstats.ttest_power(difference=0.04, std=0.25, power=0.9)
    k = req.n_queries_required
    assert mrrstats.ttest_power(difference=0.04, std=0.25, n_queries=k).power >= 0.9
    assert mrrstats.ttest_power(difference=0.04, std=0.25, n_queries=k - 1).power < 0.9
    one = mrrstats.ttest_power(difference=-0.04, std=0.25, power=0.9, alternative="less")
    assert one.n_queries_required < k  # one-sided needs fewer queries


def test_ttest_power_validation():
    with pytest.raises(ValueError, match="exactly one of `difference`, `std`, `n_queries`"):
        mrrstats.ttest_power(difference=0.1, std=0.2)
    with pytest.raises(ValueError, match="`std` must be positive"):
        mrrstats.ttest_power(difference=0.1, std=-1, n_queries=10)
    with pytest.raises(ValueError, match="`power` must be in"):
        mrrstats.ttest_power(difference=0.1, std=0.2, power=1.5)
    with pytest.raises(ValueError, match="points against alternative='greater'"):
        mrrstats.ttest_power(difference=-0.1, std=0.2, power=0.8, alternative="greater")
    with pytest.raises(TypeError, match="`n_queries` must be a number"):
        mrrstats.ttest_power(difference=0.1, std=0.2, n_queries="50")
    with pytest.raises(ValueError, match="`test` must be 'randomization' or 't'"):
        mrrstats.randomization_power([0.1, 0.2, 0.3], test="wilcoxon")


def test_simulated_t_power_matches_formula():
    # Near-normal pilot differences: the simulated power of the t-test must match the
    # noncentral-t power within 3 binomial SEs of the simulation (R = 1000).
    pilot = np.random.default_rng(0).normal(0.0, 0.2, size=5000)
    sd = pilot.std(ddof=0)
    res = mrrstats.randomization_power(pilot, n_queries=40, difference=0.06, test="t",
                                       n_simulations=1000, rng=3)
    expected = _nct_power(0.06 / sd, 40)
    assert abs(res.power - expected) <= 3 * math.sqrt(expected * (1 - expected) / 1000)


def test_randomization_power_close_to_t_power():
    # Same simulated samples (same rng) for both tests; for near-normal data the
    # randomization test has essentially the t-test's power. Tolerance: 3 SEs of a
    # difference of two proportions, 3 * sqrt(2 p (1-p) / R), R = 600.
    pilot = np.random.default_rng(1).normal(0.0, 0.2, size=5000)
    kw = dict(n_queries=40, difference=0.06, n_simulations=600, rng=5)
    r = mrrstats.randomization_power(pilot, n_resamples=1000, **kw)
    t = mrrstats.randomization_power(pilot, test="t", **kw)
    p = t.power
    assert abs(r.power - p) <= 3 * math.sqrt(2 * p * (1 - p) / 600)
    assert r.power_se == pytest.approx(math.sqrt(r.power * (1 - r.power) / 600))
    assert r.n_resamples == 1000 and not r.exact


def test_randomization_power_exact_small_n_against_exact_power():
    # Reference independent of the random stream: the exact power. Each simulated
    # experiment draws 8 topics with replacement from the shifted pilot
    # z = pilot - mean(pilot) + 0.2 and runs the exact (2**8 sign vectors) two-sided
    # test; enumerating all C(17, 8) = 24,310 multisets of 8 of the 10 pilot values with
    # their multinomial probabilities gives P(p <= 0.05) exactly (0.15739). The
    # simulated power must lie within 5 binomial SEs of it.
    pilot = np.array([0.5, -0.2, 0.0, 0.3, 1.0, -0.5, 0.25, 0.0, 0.1, 0.8])
    n_q, R = 8, 20_000
    z = pilot - pilot.mean() + 0.2
    multisets = np.array(list(itertools.combinations_with_replacement(range(10), n_q)))
    weight = np.array([math.factorial(n_q) / math.prod(map(math.factorial, Counter(m).values()))
                       for m in multisets]) / 10.0**n_q
    D = z[multisets]
    signs = 1 - 2 * np.array(list(itertools.product([0, 1], repeat=n_q)))
    T, S = D @ signs.T, D.sum(axis=1)
    tol = 1e-9 * np.abs(D).sum(axis=1)
    p = (np.abs(T) >= (np.abs(S) - tol)[:, None]).mean(axis=1)
    for i in (0, 777, 5000, 24_309):  # the reference p-value is the library's
        assert mrrstats.randomization_test(D[i], np.zeros(n_q)).pvalue == pytest.approx(p[i])
    exact = float(weight @ (p <= 0.05))
    res = mrrstats.randomization_power(pilot, n_queries=n_q, difference=0.2, n_simulations=R,
                                       n_resamples=1000, rng=11)
    assert res.exact and res.n_resamples == 256
    assert abs(res.power - exact) <= 5 * math.sqrt(exact * (1 - exact) / R)


def test_randomization_power_batch_invariance():
    pilot = np.random.default_rng(2).normal(0.02, 0.3, size=80)
    kw = dict(n_queries=30, n_simulations=120, n_resamples=300, rng=8)
    ref = mrrstats.randomization_power(pilot, **kw)
    for batch in (1, 7, 1000):
        assert mrrstats.randomization_power(pilot, batch=batch, **kw).power == ref.power


def test_topic_set_size_from_pilot_matrix():
    X = read_score_matrix(data_path("score_matrices", "trec_adhoc", "adhoc7_rr.csv"))
    res = mrrstats.topic_set_size(X, difference=0.05, power=0.8)
    v_e = mrrstats.residual_variance(X)
    assert res.residual_variance == pytest.approx(v_e)
    assert res.std == pytest.approx(math.sqrt(2 * v_e))
    n = res.n_queries
    assert mrrstats.ttest_power(difference=0.05, std=res.std, n_queries=n).power >= 0.8
    assert mrrstats.ttest_power(difference=0.05, std=res.std, n_queries=n - 1).power < 0.8
    direct = mrrstats.topic_set_size(res.std, difference=0.05)
    assert direct.n_queries == n and math.isnan(direct.residual_variance)
    with pytest.raises(ValueError, match="`difference` must be finite and non-zero"):
        mrrstats.topic_set_size(0.2, difference=0)
    with pytest.raises(ValueError, match="`pilot` as a standard deviation must be positive"):
        mrrstats.topic_set_size(-0.2, difference=0.1)
