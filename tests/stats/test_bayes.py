"""Bayesian comparison: t posterior, Bayesian bootstrap, hierarchical model."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import mrrstats


@pytest.fixture(scope="module")
def pair():
    rr = mrrstats.datasets.trec7_scores("RR")
    return rr["run10"].to_numpy(), rr["run30"].to_numpy()


def test_t_posterior_is_the_closed_form(pair):
    a, b = pair
    d = a - b
    n = d.size
    res = mrrstats.bayesian_comparison(a, b, rope=0.02)
    # P(mu > 0) = F_{t, n-1}(mean / (sd/sqrt n)): one minus the one-sided t p-value
    ref = stats.ttest_rel(a, b, alternative="greater")
    assert res.p_a_better == pytest.approx(1 - ref.pvalue, abs=1e-12)
    assert res.p_b_better == pytest.approx(ref.pvalue, abs=1e-12)
    scale = d.std(ddof=1) / np.sqrt(n)
    post = stats.t(n - 1, loc=d.mean(), scale=scale)
    assert res.p_rope == pytest.approx(post.cdf(0.02) - post.cdf(-0.02), abs=1e-12)
    assert res.p_a_practically_better == pytest.approx(post.sf(0.02), abs=1e-12)
    # the credible interval equals the t confidence interval numerically
    ci = stats.ttest_rel(a, b).confidence_interval(0.9)
    cr = res.credible_interval(confidence_level=0.9)
    assert (cr.low, cr.high) == pytest.approx((ci.low, ci.high), rel=1e-10)
    assert res.p_rope + res.p_a_practically_better + res.p_b_practically_better == \
        pytest.approx(1.0)


def test_bayesian_bootstrap_moments(pair):
    # Rubin (1981): E(mu) = mean(d), Var(mu) = s_n^2 / (n + 1) with s_n^2 the variance of
    # d with divisor n. 20,000 draws: MC error of the mean is sd/141, of the variance 1%.
    a, b = pair
    d = a - b
    res = mrrstats.bayesian_comparison(a, b, method="bootstrap", n_resamples=20000, rng=3)
    sd_post = np.sqrt(d.var() / (d.size + 1))
    assert res.difference == pytest.approx(d.mean(), abs=4 * sd_post / np.sqrt(20000))
    assert res.std**2 == pytest.approx(sd_post**2, rel=0.04)
    assert res.p_a_better == pytest.approx(np.mean(res.posterior > 0))
    assert res.seed == 3 and res.n_resamples == 20000
    lo, hi = res.credible_interval(confidence_level=0.8)
    assert (lo, hi) == pytest.approx(tuple(np.quantile(res.posterior, [0.1, 0.9])))


def test_bayesian_bootstrap_reproducible():
    d = np.random.default_rng(0).normal(0.01, 0.3, 300)
    r1 = mrrstats.bayesian_comparison(d, method="bootstrap", n_resamples=5000)
    r2 = mrrstats.bayesian_comparison(d, method="bootstrap", n_resamples=5000, rng=r1.seed)
    assert isinstance(r1.seed, int) and np.array_equal(r1.posterior, r2.posterior)
    f = r1.to_frame()
    assert {"p_a_better", "ci_low", "ci_high", "seed"} <= set(f.columns)


def test_hierarchical_against_direct_integration():
    # BDA3's eight schools; the independent reference integrates the joint posterior
    # p(mu, tau | y) prop. to prod N(y_j | mu, s_j^2 + tau^2) on a 2-D grid
    # (flat priors on mu and on tau >= 0).
    y = np.array([28, 8, -3, 7, -1, 1, 18, 12.0])
    s = np.array([15, 10, 16, 11, 9, 11, 10, 18.0])
    mu = np.linspace(-80, 100, 721)  # steps of 0.25
    tau = np.linspace(0, 310, 1241)  # steps of 0.25
    M, T = np.meshgrid(mu, tau, indexing="ij")
    logp = stats.norm.logpdf(y[None, None, :], M[..., None],
                             np.sqrt(s**2 + T[..., None] ** 2)).sum(-1)
    p = np.exp(logp - logp.max())
    p /= p.sum()
    res = mrrstats.bayesian_hierarchical(y, s, rope=5)
    assert res.difference == pytest.approx((p * M).sum(), abs=0.02)
    assert res.p_a_better == pytest.approx(p[mu > 0].sum() + p[mu == 0].sum() / 2, abs=0.002)
    inside = np.where(np.isclose(np.abs(mu), 5), 0.5, (np.abs(mu) < 5).astype(float))
    assert res.p_rope == pytest.approx((p.sum(1) * inside).sum(), abs=0.002)
    c = np.cumsum(p.sum(1)) - p.sum(1) / 2  # the CDF at the grid points (midpoint rule)
    assert res.ci_low == pytest.approx(np.interp(0.025, c, mu), abs=0.1)
    assert res.ci_high == pytest.approx(np.interp(0.975, c, mu), abs=0.1)
    assert 0.5 < res.p_new_a_better < res.p_a_better


@pytest.mark.parametrize("kw,match", [
    ({"rope": -1}, "`rope`"),
    ({"method": "mcmc"}, "`method`"),
    ({"confidence_level": 2}, "`confidence_level`"),
    ({"n_resamples": 0}, "`n_resamples`"),
])
def test_bad_input(kw, match):
    with pytest.raises((ValueError, TypeError), match=match):
        mrrstats.bayesian_comparison([0.1, 0.2, 0.3], [0.2, 0.1, 0.1], **kw)
    with pytest.raises(ValueError, match="same length"):
        mrrstats.bayesian_comparison([0.1, 0.2], [0.1])
