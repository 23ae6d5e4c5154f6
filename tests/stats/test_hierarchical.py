"""The Student-t hierarchical model across collections (mrrstats.stats.hierarchical).

References, in hierarchical_reference/ with the scripts that made them:

* numerical integration of the posterior (hierarchical_quadrature.py: sigma_i integrated
  out analytically, delta_i by quadrature, a grid over delta0, sigma0, nu; no sampler);
* Stan running baycomp 1.0.3's own model file with rho = 0 and with baycomp's rho = 1/n,
  and baycomp.HierarchicalTest itself (hierarchical_baycomp.py; live where baycomp and
  pystan are installed). Stan's centred HMC reports divergent transitions on these data
  (about 1% of transitions: 1012 and 770 of 100,000) and on 10 collections of 5
  topics overstates sigma0 by some 7% against the quadrature (0.0215 against 0.0199),
  so the comparison with Stan has the wider tolerance;
* an independent random-walk Metropolis sampler of the same posterior written here;
* the closed-form prior of nu - 1 against numerical integration.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import integrate, special, stats

import mrrstats
from mrrstats.stats.hierarchical import _ess_rhat, _log_prior_nu1, bayesian_hierarchical_t

REFERENCE = Path(__file__).parent / "hierarchical_reference" / "hierarchical_baycomp.json"


def ap_blocks(a, b, block, n_topics=50):
    """TREC-7 ad hoc AP differences a - b, consecutive topics in blocks as collections."""
    ap = mrrstats.datasets.trec7_scores("AP")
    return list((ap[a] - ap[b]).to_numpy()[:n_topics].reshape(-1, block))


# -- an independent sampler of the same posterior ------------------------------------


def rwm_reference(data, rope, n_chains=1000, n_burn=3000, n_keep=1500, seed=0):
    """Random-walk Metropolis on (delta_1..q, delta0, log sigma0, log(nu - 1), alpha, beta)
    with the sigma_i integrated out analytically (uniform prior, upper bound taken as
    infinite: (SS_i + n_i (m_i - delta_i)^2)^(-(n_i - 1)/2)); many chains side by side,
    the proposal scaled by the chains' spread during burn-in, then frozen."""
    rng = np.random.default_rng(seed)
    q = len(data)
    n = np.array([len(d) for d in data], float)
    m = np.array([d.mean() for d in data])
    ss = np.array([((d - d.mean()) ** 2).sum() for d in data])
    d_max = max(np.abs(d).max() for d in data)
    s0_max = 1000 * m.std()

    def logp(th):
        delta, d0, ls0, lx, al, be = (
            th[:, :q],
            th[:, q],
            th[:, q + 1],
            th[:, q + 2],
            th[:, q + 3],
            th[:, q + 4],
        )
        s0, x = np.exp(ls0), np.exp(lx)
        nu = 1 + x
        ok = (np.abs(d0) < d_max) & (s0 < s0_max) & (al > 1) & (al < 2) & (be > 0.01) & (be < 0.1)
        lk = (-(n - 1) / 2 * np.log(ss + n * (m - delta) ** 2)).sum(1)
        lt = stats.t.logpdf(delta, nu[:, None], d0[:, None], s0[:, None]).sum(1)
        lg = stats.gamma.logpdf(x, al, scale=1 / be) + lx
        return np.where(ok, lk + lt + ls0 + lg, -np.inf)

    th = np.column_stack(
        [
            m + 0.01 * rng.standard_normal((n_chains, q)),
            rng.uniform(-0.5, 0.5, n_chains) * m.std() + m.mean(),
            np.log(m.std()) + rng.standard_normal(n_chains),
            np.log(rng.gamma(1.5, 20, n_chains)),
            rng.uniform(1, 2, n_chains),
            rng.uniform(0.01, 0.1, n_chains),
        ]
    )
    lp = logp(th)
    dim = th.shape[1]
    chol = np.diag(np.full(dim, 0.01))
    keep = []
    for it in range(n_burn + n_keep):
        if it < n_burn and it % 250 == 0 and it > 0:
            chol = np.linalg.cholesky(np.cov(th.T) * 2.38**2 / dim + 1e-12 * np.eye(dim))
        prop = th + rng.standard_normal(th.shape) @ chol.T
        lpp = logp(prop)
        acc = np.log(rng.random(n_chains)) < lpp - lp
        th[acc], lp[acc] = prop[acc], lpp[acc]
        if it >= n_burn:
            keep.append(th[:, q : q + 3].copy())
    k = np.concatenate(keep)
    d0, s0, nu = k[:, 0], np.exp(k[:, 1]), 1 + np.exp(k[:, 2])
    return {
        "delta0_mean": d0.mean(),
        "p_a_better": (d0 > 0).mean(),
        "p_a_practically_better": (d0 > rope).mean(),
        "p_rope": (np.abs(d0) < rope).mean(),
        "p_new_a_better": stats.t.sf(0, nu, d0, s0).mean(),
        "p_new_rope": (stats.t.cdf(rope, nu, d0, s0) - stats.t.cdf(-rope, nu, d0, s0)).mean(),
        "nu_median": np.median(nu),
        "sigma0_median": np.median(s0),
    }


@pytest.mark.slow
def test_gibbs_agrees_with_an_independent_metropolis_sampler():
    # three collections of ten topics; on ten collections of five topics (a funnel where
    # sigma0 is small) random-walk Metropolis, like Stan's HMC, stays out of the neck and
    # overstates sigma0: the quadrature below is the reference there
    data = ap_blocks("run1", "run2", 10, 30)
    ref = rwm_reference(data, 0.01)
    got = bayesian_hierarchical_t(data, rope=0.01, n_chains=8, n_draws=5000, rng=4)
    assert got.converged
    # Monte Carlo tolerances: ~4 standard errors of a probability from a few thousand
    # effective draws (both samplers)
    for key in ("p_a_better", "p_a_practically_better", "p_rope", "p_new_a_better", "p_new_rope"):
        assert getattr(got, key) == pytest.approx(ref[key], abs=0.025), key
    assert got.difference == pytest.approx(ref["delta0_mean"], abs=0.25 * got.std)
    assert got.nu == pytest.approx(ref["nu_median"], rel=0.15)
    assert got.sigma0 == pytest.approx(ref["sigma0_median"], rel=0.15)


# -- numerical integration (no sampler) --------------------------------------------------

QUADRATURE = Path(__file__).parent / "hierarchical_reference" / "hierarchical_quadrature.json"


@pytest.mark.parametrize("case", sorted(json.loads(QUADRATURE.read_text())["cases"]))
def test_agrees_with_numerical_integration_of_the_posterior(case):
    ref = json.loads(QUADRATURE.read_text())["cases"][case]
    data = ap_blocks(ref["a"], ref["b"], ref["block"])
    got = bayesian_hierarchical_t(data, rope=ref["rope"], n_draws=3000, rng=3)
    assert got.converged and got.ess > 6000
    # 4 Monte Carlo standard errors (ESS > 6000) plus the grid's own error (~0.002)
    for key in (
        "p_a_better",
        "p_a_practically_better",
        "p_rope",
        "p_new_a_better",
        "p_new_a_practically_better",
        "p_new_rope",
    ):
        tol = 4 * math.sqrt(max(ref[key] * (1 - ref[key]), 0.01) / 6000) + 0.002
        assert getattr(got, key) == pytest.approx(ref[key], abs=tol), key
    assert got.difference == pytest.approx(ref["delta0_mean"], abs=0.05 * got.std)
    assert got.sigma0 == pytest.approx(ref["sigma0_median"], rel=0.05)
    assert got.nu == pytest.approx(ref["nu_median"], rel=0.05)


# -- Stan (baycomp's model file) ---------------------------------------------------------


def _reference():
    return json.loads(REFERENCE.read_text())


@pytest.mark.parametrize("case", sorted(_reference()["cases"]))
@pytest.mark.parametrize("rho", ["stan_rho0", "stan_rho_1_over_n"])
def test_agrees_with_stan_running_baycomps_model(case, rho):
    ref = _reference()["cases"][case]
    data = ap_blocks(ref["a"], ref["b"], ref["block"])
    corr = 0.0 if rho == "stan_rho0" else 1.0 / ref["block"]
    got = bayesian_hierarchical_t(data, rope=ref["rope"], correlation=corr, rng=2)
    want = ref[rho]
    assert got.converged
    # 4 Monte Carlo standard errors of a probability (ESS >= 3000 here, more for Stan)
    for key in (
        "p_a_better",
        "p_a_practically_better",
        "p_rope",
        "p_b_practically_better",
        "p_new_a_better",
        "p_new_a_practically_better",
        "p_new_rope",
        "p_new_b_practically_better",
    ):
        tol = 4 * math.sqrt(max(want[key] * (1 - want[key]), 0.01) / 3000)
        assert getattr(got, key) == pytest.approx(want[key], abs=tol), key
    assert got.difference == pytest.approx(want["delta0_mean"], abs=0.1 * want["delta0_sd"])
    assert got.std == pytest.approx(want["delta0_sd"], rel=0.1)
    assert got.nu == pytest.approx(want["nu_median"], rel=0.1)
    assert got.sigma0 == pytest.approx(want["sigma0_median"], rel=0.1)
    shares = want["shares"]
    assert got.new_region_shares == pytest.approx(shares, abs=0.03)
    if rho == "stan_rho_1_over_n":  # baycomp.HierarchicalTest itself (x = a, y = b)
        assert got.new_region_shares == pytest.approx(
            ref["baycomp_probs_left_rope_right"], abs=0.03
        )
        assert [
            got.p_new_a_practically_better,
            got.p_new_rope,
            got.p_new_b_practically_better,
        ] == pytest.approx(ref["baycomp_mean_left_rope_right"], abs=0.02)


@pytest.mark.slow
def test_agrees_with_baycomp_live(tmp_path, monkeypatch):
    baycomp = pytest.importorskip("baycomp")
    pytest.importorskip("stan")
    monkeypatch.chdir(tmp_path)  # baycomp caches its last sample in the working directory
    ap = mrrstats.datasets.trec7_scores("AP")
    x = ap["run1"].to_numpy().reshape(5, 10)
    y = ap["run2"].to_numpy().reshape(5, 10)
    post = baycomp.HierarchicalTest(x, y, 0.01, nsamples=5000, chains=4)
    got = bayesian_hierarchical_t(list(x - y), rope=0.01, correlation=0.1, rng=0)
    assert got.new_region_shares == pytest.approx(post.probs(), abs=0.04)


# -- pieces --------------------------------------------------------------------------------


def test_prior_of_nu_is_the_gamma_mixture_integrated_numerically():
    for x in (0.05, 1.0, 12.0, 37.0, 250.0):
        num = integrate.dblquad(
            lambda b, a, x=x: b**a * x ** (a - 1) * np.exp(-b * x) / special.gamma(a),
            1,
            2,
            0.01,
            0.1,
            epsabs=0,
            epsrel=1e-11,
        )[0]
        assert _log_prior_nu1(np.array([x]))[0] == pytest.approx(np.log(num), abs=1e-8)


def test_ess_and_rhat_of_known_chains():
    rng = np.random.default_rng(0)
    iid = rng.standard_normal((4, 5000))
    ess, rhat = _ess_rhat(iid)
    assert 0.9 * 20000 < ess < 1.1 * 20000 and rhat < 1.005
    # AR(1) with phi = 0.9: ESS = N (1 - phi)/(1 + phi)
    ar = np.empty((4, 20000))
    ar[:, 0] = rng.standard_normal(4)
    e = rng.standard_normal(ar.shape) * math.sqrt(1 - 0.81)
    for t in range(1, ar.shape[1]):
        ar[:, t] = 0.9 * ar[:, t - 1] + e[:, t]
    ess, _ = _ess_rhat(ar)
    assert ess == pytest.approx(80000 * 0.1 / 1.9, rel=0.2)
    shifted = iid + np.array([[0.0], [0.0], [0.0], [1.0]])
    assert _ess_rhat(shifted)[1] > 1.05


def test_deterministic_for_a_seed_and_the_result_fields():
    data = ap_blocks("run1", "run2", 10)
    a = bayesian_hierarchical_t(data, rope=0.01, n_draws=300, n_warmup=100, rng=7)
    b = bayesian_hierarchical_t(
        data, rope=0.01, n_draws=300, n_warmup=100, rng=np.random.default_rng(7)
    )
    np.testing.assert_array_equal(a.posterior, b.posterior)
    assert a.seed == 7 and b.seed is None
    assert a.method == "hierarchical-t" and a.n_queries == 5 and a.n_resamples == 8 * 300
    assert a.draws["nu"].shape == (8, 300) and (a.draws["nu"] > 1).all()
    assert a.p_rope + a.p_a_practically_better + a.p_b_practically_better == pytest.approx(1.0)
    assert (
        a.p_new_rope + a.p_new_a_practically_better + a.p_new_b_practically_better
        == pytest.approx(1.0)
    )
    assert sum(a.new_region_shares) == pytest.approx(1.0)
    lo, hi = np.quantile(a.posterior, [0.025, 0.975])
    assert (a.ci_low, a.ci_high) == pytest.approx((lo, hi), rel=1e-12)
    assert a.credible_interval(0.5).low == np.quantile(a.posterior, 0.25)
    assert list(a.diagnostics.index) == ["delta0", "sigma0", "nu", "p_new_a_better"]
    frame = a.to_frame()
    assert frame.loc[0, "p_new_rope"] == a.p_new_rope and frame.loc[0, "rhat"] == a.rhat
    assert "On a new collection" in a.summary()
    no_rope = bayesian_hierarchical_t(data, n_draws=300, n_warmup=100, rng=7)
    assert math.isnan(no_rope.p_rope) and no_rope.new_region_shares is None
    # the scale of the differences does not matter (baycomp's priors scale with the data)
    ten = bayesian_hierarchical_t(
        [10 * d for d in data], rope=0.1, n_draws=300, n_warmup=100, rng=7
    )
    np.testing.assert_allclose(ten.posterior, 10 * a.posterior, rtol=1e-9, atol=1e-12)
    assert ten.p_new_rope == pytest.approx(a.p_new_rope, abs=1e-9)


def test_short_chains_warn():
    with pytest.warns(mrrstats.ConvergenceWarning, match="R-hat"):
        r = bayesian_hierarchical_t(ap_blocks("run1", "run2", 10), n_draws=20, n_warmup=0, rng=1)
    assert not r.converged


def test_collections_of_different_sizes_and_a_constant_one():
    data = ap_blocks("run1", "run2", 10)
    data = [data[0][:4], data[1], data[2][:7], np.full(3, 0.02), data[4]]
    res = bayesian_hierarchical_t(
        {f"c{i}": d for i, d in enumerate(data)}, rope=0.01, n_draws=500, rng=3
    )
    assert res.n_queries == 5 and np.isfinite(res.difference) and res.rhat < 1.05


def test_bad_input_is_refused_naming_the_parameter():
    ok = [np.array([0.1, 0.2]), np.array([0.0, 0.3])]
    with pytest.raises(mrrstats.ParameterError, match="at least 2 collections"):
        bayesian_hierarchical_t(ok[:1])
    with pytest.raises(mrrstats.ParameterError, match="at least 2 per collection"):
        bayesian_hierarchical_t([np.array([0.1]), ok[1]])
    with pytest.raises(mrrstats.ParameterError, match="finite"):
        bayesian_hierarchical_t([np.array([0.1, np.nan]), ok[1]])
    with pytest.raises(mrrstats.ParameterError, match="do not vary"):
        bayesian_hierarchical_t([np.zeros(3), np.ones(3)])
    with pytest.raises(mrrstats.ParameterTypeError, match="`differences`"):
        bayesian_hierarchical_t("ab")
    with pytest.raises(mrrstats.ParameterError, match="`rope`"):
        bayesian_hierarchical_t(ok, rope=-1)
    with pytest.raises(mrrstats.ParameterError, match="`correlation`"):
        bayesian_hierarchical_t(ok, correlation=1.0)
    with pytest.raises(mrrstats.ParameterError, match="n_chains"):
        bayesian_hierarchical_t(ok, n_chains=1)


def test_methods_paragraph_names_the_model_the_draws_and_the_diagnostics():
    from tests.stats.test_methods import _check_citations

    res = bayesian_hierarchical_t(ap_blocks("run1", "run2", 10), rope=0.01, n_draws=400, rng=1)
    m = res.methods()
    assert "over 5 collections" in m.text and "Student-t hierarchical model" in m.text
    assert "$B = 3200$ MCMC posterior draws (seed 1)" in m.text
    assert f"largest rank-normalised split $\\hat R$ {res.rhat:.3f}" in m.text
    assert "@corani2017" in m.text and "ROPE" in m.text
    _check_citations(m)
