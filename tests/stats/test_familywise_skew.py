"""The skewness-corrected single-step max-T (``correction="single-step-skew"``).

Checked against an independent brute-force computation: the same permutations
(``permutation_batches`` with the same seed), every pair's differences formed
explicitly, the skewness from its definition, Hall's (1992) transform written out,
and the interval found on a fine grid of shifts.
"""

import math

import numpy as np
import pandas as pd
import pytest

import mrrstats
from mrrstats.errors import ParameterError
from mrrstats.stats.familywise import hall_inverse, hall_transform, maxt_single_step_fit
from mrrstats.stats.resampling import permutation_batches


def _skewed(seed, n=20, k=5):
    rng = np.random.default_rng(seed)
    X = rng.beta(0.5, 2.0, size=(n, k))
    X[:, 0] += 0.15  # one system better: some pairs rejected
    return X


def _brute(Y, I, J):
    """g(T), mean difference, se and skewness of every pair, from the definitions."""
    n = Y.shape[0]
    D = Y[:, I] - Y[:, J]
    d = D.mean(axis=0)
    c = D - d
    m2 = (c**2).mean(axis=0)
    m3 = (c**3).mean(axis=0)
    se = np.sqrt(m2 / (n - 1))
    gam = m3 / m2**1.5
    t = d / se
    a = gam / (3.0 * math.sqrt(n))
    return t + a * t**2 + a**2 * t**3 / 3.0 + gam / (6.0 * math.sqrt(n)), d, se, gam


def _directed(v, alternative):
    return {"two-sided": np.abs(v), "greater": v, "less": -v}[alternative]


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_skew_single_step_matches_brute_force(alternative):
    X = _skewed(3)
    n, k = X.shape
    I, J = np.triu_indices(k, 1)
    B = 199
    fit = maxt_single_step_fit(
        X,
        I,
        J,
        alternative=alternative,
        n_resamples=B,
        confidence_level=0.95,
        batch=37,
        gen=np.random.default_rng(7),
        workers=1,
        skew=True,
    )
    G, d, se, gam = _brute(X, I, J)
    null = np.array(
        [
            _directed(_brute(P, I, J)[0], alternative).max()
            for perm in permutation_batches(
                X - X.mean(axis=1, keepdims=True), B, None, np.random.default_rng(7)
            )
            for P in perm
        ]
    )
    np.testing.assert_allclose(np.sort(fit.null_distribution), np.sort(null), atol=1e-10)
    np.testing.assert_allclose(fit.statistic, G, atol=1e-10)
    obs = _directed(G, alternative)
    p_adj = (1.0 + (null[:, None] >= obs - 1e-9).sum(axis=0)) / (B + 1.0)
    np.testing.assert_array_equal(fit.pvalue_adjusted, p_adj)
    # the interval: the shifts delta with directed g((d - delta) / se) <= c, on a grid
    c = fit.critical_value
    for p in range(I.size):
        grid = np.linspace(d[p] - 40 * se[p], d[p] + 40 * se[p], 400001)
        t = (d[p] - grid) / se[p]
        a = gam[p] / (3.0 * math.sqrt(n))
        g = t + a * t**2 + a**2 * t**3 / 3.0 + gam[p] / (6.0 * math.sqrt(n))
        inside = grid[_directed(g, alternative) <= c]
        step = grid[1] - grid[0]
        if alternative == "less":
            assert fit.ci_low[p] == -np.inf
        else:
            assert abs(fit.ci_low[p] - inside.min()) <= step
        if alternative == "greater":
            assert fit.ci_high[p] == np.inf
        else:
            assert abs(fit.ci_high[p] - inside.max()) <= step
    assert fit.ci_method == "maxt-single-step-skew"


def test_hall_transform_inverse_and_sign():
    """g is increasing, hall_inverse inverts it, and it takes out the skewness of T."""
    t = np.linspace(-8.0, 8.0, 161)
    for gam in (-2.0, -0.5, 0.0, 0.7, 2.0):
        g = hall_transform(t, gam, 25)
        assert np.all(np.diff(g) > 0)
        np.testing.assert_allclose(hall_inverse(g, gam, 25), t, atol=1e-9)
    # exponential data (skewness 2): T is left-skewed, g(T) close to symmetric
    rng = np.random.default_rng(1)
    n = 25
    x = rng.exponential(size=(40000, n))
    m = x.mean(axis=1)
    c = x - m[:, None]
    m2 = (c**2).mean(axis=1)
    T = (m - 1.0) / np.sqrt(m2 / (n - 1))
    G = hall_transform(T, (c**3).mean(axis=1) / m2**1.5, n)
    lower_t, upper_t = np.mean(T < -1.96), np.mean(T > 1.96)
    lower_g, upper_g = np.mean(G < -1.96), np.mean(G > 1.96)
    assert lower_t - upper_t > 0.05  # the plain t: ~0.078 below, ~0.009 above
    assert abs(lower_g - upper_g) < 0.5 * (lower_t - upper_t)


def test_skew_correction_decisions_agree_with_intervals():
    for seed in range(4):
        X = _skewed(seed, n=30, k=6)
        r = mrrstats.pairwise_tests(X.T, correction="single-step-skew", n_resamples=499, rng=seed)
        excludes = (r.ci_low > 0) | (r.ci_high < 0)
        np.testing.assert_array_equal(excludes, r.reject)
        assert not r.reject_beyond_ci.any()
        assert np.all(r.ci_low <= r.difference) and np.all(r.difference <= r.ci_high)
    assert r.reject.any()


def test_skew_correction_same_seed_same_numbers():
    X = _skewed(5, n=30, k=6)
    runs = [
        mrrstats.pairwise_tests(
            X.T, correction="single-step-skew", n_resamples=300, rng=11, batch=b, workers=w
        )
        for b, w in ((None, 1), (7, 2))
    ]
    for f in ("pvalue_adjusted", "pvalue", "ci_low", "ci_high", "statistic"):
        np.testing.assert_array_equal(getattr(runs[0], f), getattr(runs[1], f))


def test_skew_correction_many_to_one_and_aliases():
    X = _skewed(2, n=25, k=5)
    r = mrrstats.pairwise_tests(X.T, correction="hall", control=0, n_resamples=199, rng=3)
    assert r.correction == "single-step-skew" and len(r) == 4
    assert r.ci_method == "maxt-single-step-skew"


def test_skew_correction_refuses_clusters():
    X = _skewed(1, n=20, k=4)
    with pytest.raises(ParameterError, match="clusters"):
        mrrstats.pairwise_tests(
            X.T,
            correction="single-step-skew",
            n_resamples=99,
            rng=1,
            clusters=np.repeat(np.arange(10), 2),
        )


def test_skew_correction_zero_skewness_gives_symmetric_intervals():
    """Differences with skewness 0 (every value and its negative): g(T) = T, so the
    interval is d +/- c se with the skew-corrected null's own cut-off."""
    base = np.array([0.1, 0.4, 0.2, 0.9, 0.5, 0.3, 0.7, 0.6])
    X = np.concatenate([base[:, None] + [0.0, 0.05, 0.12], base[:, None] - [0.0, 0.05, 0.12]])
    r = mrrstats.pairwise_tests(X.T, correction="single-step-skew", n_resamples=199, rng=4)
    c = r.critical_value
    np.testing.assert_allclose(r.ci_low, r.difference - c * r.standard_error, atol=1e-12)
    np.testing.assert_allclose(r.ci_high, r.difference + c * r.standard_error, atol=1e-12)
    np.testing.assert_allclose(r.statistic, r.difference / r.standard_error, atol=1e-12)


def test_skew_correction_over_measures_is_one_family():
    """family="measures": one maximum over both measures' corrected statistics, the
    same as the core on the list of matrices."""
    rng = np.random.default_rng(2)
    A = pd.DataFrame(rng.beta(0.5, 2.0, size=(30, 4)), columns=list("abcd"))
    B = pd.DataFrame(rng.beta(0.5, 2.0, size=(30, 4)), columns=list("abcd"))
    c = mrrstats.compare(
        {"RR": A, "AP": B},
        correction="single-step-skew",
        family="measures",
        n_resamples=199,
        rng=1,
    )
    for m in ("RR", "AP"):
        r = c.results[m]
        assert r.ci_method == "maxt-single-step-skew"
        np.testing.assert_array_equal((r.ci_low > 0) | (r.ci_high < 0), r.reject)
    assert c.results["RR"].critical_value == c.results["AP"].critical_value


def test_replicate_tests_refuse_skew_correction():
    X = pd.DataFrame(np.random.default_rng(1).random((12, 4)), columns=["a1", "a2", "b1", "b2"])
    with pytest.raises(ParameterError, match="single-step-skew"):
        mrrstats.replicate_tests(
            X, {"a": ["a1", "a2"], "b": ["b1", "b2"]}, correction="single-step-skew"
        )
