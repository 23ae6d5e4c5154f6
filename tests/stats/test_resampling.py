"""The resampling engine and the evidence results carry (null distributions, intervals).

References: scipy.stats.permutation_test (exact sign-flip null for n <= 10),
loop implementations written out here, and the test-inversion definition of
each interval checked by re-running the test at shifted data.
"""

from __future__ import annotations

import contextlib
import itertools

import numpy as np
import pytest
import threadpoolctl
from scipy import stats

import mrrstats
from mrrstats.io import read_score_matrix
from mrrstats.stats import resampling
from mrrstats.stats.counter import bootstrap_indices_xp, stream_key
from tests.reference_data import data_path

ALTS = ("two-sided", "greater", "less")


@pytest.fixture(scope="module")
def pair():
    X = mrrstats.datasets.trec7_scores("RR").to_numpy()
    return X[:, 3], X[:, 10]


def _small(n, seed=0):
    gen = np.random.default_rng(seed)
    a = 1.0 / gen.integers(1, 6, n)
    b = 1.0 / gen.integers(1, 6, n)
    return a, b


def _scipy_null(d, alternative):
    """Exact sign-flip null of the mean by scipy.stats.permutation_test."""
    return stats.permutation_test((d,), lambda x, axis: x.mean(axis=axis),
                                  permutation_type="samples", n_resamples=np.inf,
                                  alternative=alternative)


# -- null_distribution ------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 4, 7, 10])
@pytest.mark.parametrize("alternative", ALTS)
def test_exact_null_distribution_equals_scipy_permutation_test(n, alternative):
    a, b = _small(n, seed=n)
    res = mrrstats.randomization_test(a, b, alternative=alternative)
    assert res.exact and res.n_resamples == 2**n
    ref = _scipy_null(a - b, alternative)
    null = res.null_distribution
    assert null.shape == (2**n,)
    np.testing.assert_allclose(np.sort(null), np.sort(ref.null_distribution),
                               rtol=0, atol=1e-14)
    # the null is in enumeration order: code c keeps the sign of query i if bit i is set
    d = a - b
    for c in (0, 2**n - 1, (2**n) // 3):
        signs = np.array([1.0 if (c >> i) & 1 else -1.0 for i in range(n)])
        assert null[c] == pytest.approx((signs * d).mean(), abs=1e-15)
    # the p-value is the share of the null at least as extreme (scipy's definition)
    assert res.pvalue == pytest.approx(ref.pvalue, abs=1e-12)


def test_monte_carlo_null_distribution_agrees_with_its_pvalue_and_a_loop(pair):
    a, b = pair
    d = a - b
    res = mrrstats.randomization_test(a, b, n_resamples=3000, rng=3)
    null = res.null_distribution
    assert null.shape == (3000,) and not res.exact
    # independent loop: the p-value from the stored null, as defined in the docstring
    tol = 1e-12 * np.abs(d).sum() / d.size
    count = sum(abs(t) >= abs(d.mean()) - tol for t in null)
    assert res.pvalue == (count + 1) / (3000 + 1)
    # every resampled value is the mean of some sign vector: |T| <= mean|d|, same lattice
    assert np.all(np.abs(null) <= np.abs(d).mean() + 1e-12)
    # a loop implementation of the null for a few draws: sign vectors from the bit stream
    bits = resampling.signflip_rows(stream_key(np.random.default_rng(3)), 0, 5, d.size)
    loop = [(np.where(row == 1, 1.0, -1.0) * d).mean() for row in bits]
    np.testing.assert_allclose(null[:5], loop, rtol=0, atol=1e-15)
    # the null is symmetric in distribution: mean near 0 within 4 SE
    assert abs(null.mean()) <= 4 * null.std() / np.sqrt(null.size)


def test_monte_carlo_null_values_lie_on_the_exact_support():
    a, b = _small(9, seed=4)
    mc = mrrstats.randomization_test(a, b, exact=False, n_resamples=2000, rng=1)
    support = np.unique(np.round(_scipy_null(a - b, "two-sided").null_distribution, 12))
    assert np.isin(np.round(mc.null_distribution, 12), support).all()


@pytest.mark.parametrize("method", ["shift", "studentized"])
@pytest.mark.parametrize("alternative", ALTS)
def test_bootstrap_test_null_distribution_reproduces_the_pvalue(pair, method, alternative):
    a, b = pair
    res = mrrstats.bootstrap_test(a, b, method=method, alternative=alternative,
                                  n_resamples=2000, rng=8)
    null = res.null_distribution
    assert null.shape == (2000,)
    obs = res.statistic
    tol = 1e-9 * max(abs(obs), 1e-300)
    if alternative == "two-sided":
        count = np.sum(np.abs(null) >= abs(obs) - tol)
    elif alternative == "greater":
        count = np.sum(null >= obs - tol)
    else:
        count = np.sum(null <= obs + tol)
    assert res.pvalue == pytest.approx((count + 1) / 2001, abs=0)
    # loop reference for the first resamples: the same index stream, explicit formula
    d = a - b
    z = d - d.mean()
    draws = bootstrap_indices_xp(stream_key(np.random.default_rng(8)), 0, 3, d.size)
    for r in range(3):
        idx = draws[r]
        zs = z[idx]
        ref = zs.mean() if method == "shift" else zs.mean() / (zs.std(ddof=1) / np.sqrt(d.size))
        assert null[r] == pytest.approx(ref, rel=1e-9, abs=1e-12)


def test_bootstrap_test_default_is_studentized(pair):
    a, b = pair
    res = mrrstats.bootstrap_test(a, b, n_resamples=500, rng=1)
    assert res.method == "studentized"
    assert res.statistic == pytest.approx(stats.ttest_rel(a, b).statistic, rel=1e-12)
    old = mrrstats.bootstrap_test(a, b, method="shift", n_resamples=500, rng=1)
    assert old.method == "shift" and old.statistic == pytest.approx((a - b).mean())


# -- confidence intervals by test inversion -------------------------------------------------
def _accepts(p, level, alternative):
    alpha = (1 - level) / 2 if alternative == "two-sided" else 1 - level
    return p > alpha


@pytest.mark.parametrize("alternative", ALTS)
def test_randomization_interval_is_the_inverted_exact_test(alternative):
    a, b = _small(10, seed=11)
    d = a - b
    res = mrrstats.randomization_test(a, b, alternative=alternative)
    ci = res.confidence_interval(confidence_level=0.9)
    assert ci.method == "sign-flip inversion" and ci.confidence_level == 0.9
    # reference: scipy's exact one-sided tests of d - delta on a grid of shifts
    grid = np.linspace(d.min() - 0.1, d.max() + 0.1, 161)
    for delta in grid:
        if min(abs(delta - ci.low), abs(delta - ci.high)) < 1e-9:
            continue
        tails = ([] if alternative == "less" else ["greater"]) + \
                ([] if alternative == "greater" else ["less"])
        ok = all(_accepts(_scipy_null(d - delta, t).pvalue, 0.9, alternative) for t in tails)
        assert ok == (ci.low <= delta <= ci.high), (delta, ci)
    assert (alternative == "less") == (ci.low == -np.inf)
    assert (alternative == "greater") == (ci.high == np.inf)


def test_randomization_monte_carlo_interval_is_the_inverted_test(pair):
    a, b = pair
    res = mrrstats.randomization_test(a, b, n_resamples=999, rng=5)
    ci = res.confidence_interval()
    assert ci.low < res.statistic < ci.high
    # the same sign vectors (same seed) at shifted data
    for delta in np.linspace(ci.low - 0.05, ci.high + 0.05, 41):
        if min(abs(delta - ci.low), abs(delta - ci.high)) < 1e-9:
            continue
        pg = mrrstats.randomization_test(a - delta, b, alternative="greater",
                                         n_resamples=999, rng=5).pvalue
        pl = mrrstats.randomization_test(a - delta, b, alternative="less",
                                         n_resamples=999, rng=5).pvalue
        assert (pg > 0.025 and pl > 0.025) == (ci.low <= delta <= ci.high), delta
    # close to the t interval on 50 topics (both estimate the same shift)
    t = mrrstats.paired_ttest(a, b).confidence_interval()
    assert abs(ci.low - t.low) < 0.25 * (t.high - t.low)
    assert abs(ci.high - t.high) < 0.25 * (t.high - t.low)


@pytest.mark.parametrize("method", ["shift", "studentized"])
@pytest.mark.parametrize("alternative", ALTS)
def test_bootstrap_test_interval_agrees_with_its_decisions(pair, method, alternative):
    a, b = pair
    kw = dict(method=method, alternative=alternative, n_resamples=999, rng=2)
    res = mrrstats.bootstrap_test(a, b, **kw)
    ci = res.confidence_interval(confidence_level=0.9)
    assert ci.low <= res.difference <= ci.high
    span = 0.3
    for delta in np.linspace(res.difference - span, res.difference + span, 31):
        if min(abs(delta - ci.low), abs(delta - ci.high)) < 1e-9:
            continue
        p = mrrstats.bootstrap_test(a - delta, b, **kw).pvalue
        assert (p > 0.1) == (ci.low <= delta <= ci.high), (delta, p, ci)


def test_intervals_unbounded_when_the_level_is_unreachable():
    a, b = [0.5, 1.0, 0.2], [0.25, 0.5, 0.1]            # 2**3 = 8 sign vectors
    ci = mrrstats.randomization_test(a, b).confidence_interval()
    assert ci.low == -np.inf and ci.high == np.inf       # p >= 1/8 > 0.025 always
    res = mrrstats.bootstrap_test(a, b, n_resamples=10, rng=0)
    assert tuple(res.confidence_interval(confidence_level=0.95)) == (-np.inf, np.inf)


# -- p-values in (0, 1] -----------------------------------------------------------------------
@pytest.mark.parametrize("alternative", ALTS)
def test_pvalues_in_unit_interval_including_degenerate_inputs(alternative):
    cases = [([0.5, 0.5, 1.0], [0.5, 0.5, 1.0]),       # identical
             ([1.0, 1.0, 1.0, 1.0], [0.5, 0.5, 0.5, 0.5]),  # constant shift
             _small(12, seed=3), _small(40, seed=4)]
    for a, b in cases:
        for res in (mrrstats.randomization_test(a, b, alternative=alternative, rng=0),
                    mrrstats.randomization_test(a, b, alternative=alternative, exact=False,
                                                n_resamples=200, rng=0),
                    mrrstats.bootstrap_test(a, b, alternative=alternative, n_resamples=200,
                                            rng=0),
                    mrrstats.bootstrap_test(a, b, method="shift", alternative=alternative,
                                            n_resamples=200, rng=0)):
            assert 0 < res.pvalue <= 1, (a, b, res)
            lo, hi = res.confidence_interval()
            assert lo <= hi


# -- same seed, any batch and BLAS thread count -------------------------------------------
@contextlib.contextmanager
def _threads(n, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(resampling, "_CONTROLLER", [None])  # let BLAS use n threads
        with threadpoolctl.threadpool_limits(limits=n, user_api="blas"):
            yield


def _evidence(res):
    out = [np.float64(getattr(res, "pvalue", np.nan)).tobytes()]
    for attr in ("null_distribution", "bootstrap_distribution"):
        if hasattr(res, attr):
            out.append(np.ascontiguousarray(getattr(res, attr)).tobytes())
    if hasattr(res, "power"):
        out.append(np.float64(res.power).tobytes())
    if hasattr(res, "confidence_interval") and not hasattr(res, "power"):
        out.append(np.array(tuple(res.confidence_interval())).tobytes())
    return out


CALLS = {
    "randomization_test": lambda a, b, batch: mrrstats.randomization_test(
        a, b, exact=False, n_resamples=500, batch=batch, rng=17),
    "randomization_test-exact": lambda a, b, batch: mrrstats.randomization_test(
        a[:12], b[:12], batch=batch, rng=17),
    "bootstrap_test": lambda a, b, batch: mrrstats.bootstrap_test(
        a, b, n_resamples=500, batch=batch, rng=17),
    "bootstrap_test-shift": lambda a, b, batch: mrrstats.bootstrap_test(
        a, b, method="shift", n_resamples=500, batch=batch, rng=17),
    "bootstrap_ci": lambda a, b, batch: mrrstats.bootstrap_ci(
        a, b, n_resamples=500, batch=batch, rng=17),
    "randomization_power": lambda a, b, batch: mrrstats.randomization_power(
        a - b, n_queries=20, n_simulations=40, n_resamples=100, batch=batch, rng=17),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_same_seed_same_evidence_any_batch_and_threads(pair, name, monkeypatch):
    a, b = pair
    call = CALLS[name]
    ref = _evidence(call(a, b, None))
    for threads, batch in itertools.product((1, 2), (2, 7, None, 10**6)):
        with _threads(threads, monkeypatch):
            res = call(a, b, batch)
            if name == "randomization_test-exact":
                _ = res.null_distribution  # computed lazily, under these threads
            assert _evidence(res) == ref, (name, threads, batch)


def test_signflip_null_matches_the_counting_engine():
    d = np.array([0.5, -0.25, 1.0, 0.0, -0.125, 0.2, 1 / 3])
    sums, kept = resampling.signflip_null(d, batch=5)
    counts, total, exact, s2, k2 = resampling.signflip_counts(
        d[None, :], "two-sided", n_resamples=1, exact=True, batch=3, gen=None, keep=True)
    np.testing.assert_array_equal(sums, s2)
    np.testing.assert_array_equal(kept, k2)
    assert counts[0] == np.sum(np.abs(sums) >= abs(d.sum()) - 1e-12)
    assert list(kept[:4]) == [0, 1, 1, 2]


@pytest.mark.slow  # calibration run (R replicates); CI runs it with -m slow
def test_inverted_intervals_cover_a_known_mean_on_real_data():
    """Coverage of the two new intervals at 25 topics on real RR differences.

    Population: the 50 per-topic RR differences of a random pair of real
    TREC-5/6/7 runs; true value: their mean. Each of R = 1000 replicates draws
    25 topics with replacement, B = 1000. Coverage of the 95% interval must be
    within 3 binomial SEs (0.0207) of 0.95. Measured by the same construction
    (another seed, 99; R = 1000): sign-flip inversion 0.947 (25) and 0.944
    (50 topics); bootstrap-t inversion 0.958 and 0.945; shift inversion 0.931
    and 0.934; t interval 0.948 and 0.938.
    """
    Xs = [read_score_matrix(data_path("score_matrices", "trec_adhoc", f"adhoc{y}_rr.csv"))
          .to_numpy() for y in (5, 6, 7)]
    R, n = 1000, 25
    half = 3 * np.sqrt(0.95 * 0.05 / R)
    gen = np.random.default_rng(2027)
    hit = {"rand": 0, "boot-t": 0}
    for _ in range(R):
        X = Xs[gen.integers(3)]
        i, j = gen.choice(X.shape[1], 2, replace=False)
        pop = X[:, i] - X[:, j]
        d = pop[gen.integers(0, 50, n)]
        z = np.zeros(n)
        for k, res in (("rand", mrrstats.randomization_test(d, z, n_resamples=1000, rng=gen)),
                       ("boot-t", mrrstats.bootstrap_test(d, z, n_resamples=1000, rng=gen))):
            lo, hi = res.confidence_interval()
            hit[k] += lo <= pop.mean() <= hi
    for k, h in hit.items():
        assert abs(h / R - 0.95) <= half, (k, h / R)


def test_exact_null_too_large_is_a_clear_error():
    # built directly: running the exact test of 27 queries (2**27 sign vectors) is slow
    from mrrstats.stats.randomization import RandomizationTestResult

    d = np.linspace(-1, 1, 27) + 0.01
    res = RandomizationTestResult(float(d.mean()), 1.0, 0.0, True, 2**27, 27, "two-sided",
                                  None, d)
    with pytest.raises(ValueError, match="exact=False"):
        res.confidence_interval()
