"""Tests of the paired tests of mrrstats.stats: paired tests, bootstrap intervals, effect sizes.

Reference values come from scipy (named calls), R (commands quoted), exact
enumeration, or independent re-implementations written out in the test.
Monte-Carlo tolerances are derived from binomial / quantile standard errors
stated next to each assertion.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import special, stats

import mrrstats
from mrrstats.io import read_score_matrix
from mrrstats.stats.counter import stream_key
from mrrstats.stats.intervals import bootstrap_interval
from mrrstats.stats.resampling import enumerated_rows, signflip_counts, signflip_rows
from mrrstats.stats.rows import sign_pvalues
from tests.reference_data import data_path


def _matrix(*parts):
    return read_score_matrix(data_path("score_matrices", *parts)).to_numpy()


@pytest.fixture(scope="module")
def adhoc7_rr():
    return _matrix("trec_adhoc", "adhoc7_rr.csv")


@pytest.fixture(scope="module")
def rr_matrices():
    return [_matrix("trec_adhoc", f"adhoc{y}_rr.csv") for y in (5, 6, 7)]


# ---------------------------------------------------------------------------
# paired t-test
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_paired_ttest_matches_scipy(adhoc7_rr, alternative):
    a, b = adhoc7_rr[:, 3], adhoc7_rr[:, 10]
    ours = mrrstats.paired_ttest(a, b, alternative=alternative)
    ref = stats.ttest_rel(a, b, alternative=alternative)
    assert ours.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    assert ours.df == ref.df == 49
    for cl in (0.9, 0.95, 0.99):
        lo, hi = ours.confidence_interval(confidence_level=cl)
        rlo, rhi = ref.confidence_interval(confidence_level=cl)
        assert lo == pytest.approx(rlo, rel=1e-12, abs=1e-15) or (lo == rlo)
        assert hi == pytest.approx(rhi, rel=1e-12, abs=1e-15) or (hi == rhi)
    assert ours.difference == pytest.approx(np.mean(a - b))


def test_paired_ttest_degenerate_differences():
    a = np.array([0.5, 1.0, 0.25])
    same = mrrstats.paired_ttest(a, a)
    assert (same.statistic, same.pvalue) == (0.0, 1.0)
    shifted = mrrstats.paired_ttest(a + 0.1, a)
    assert shifted.statistic == np.inf and shifted.pvalue == 0.0
    assert mrrstats.paired_ttest(a + 0.1, a, alternative="less").pvalue == 1.0


def test_pair_validation_messages():
    with pytest.raises(ValueError, match="`alternative` must be one of"):
        mrrstats.paired_ttest([1, 2, 3], [1, 2, 4], alternative="larger")
    with pytest.raises(ValueError, match="`a` and `b` must have the same length"):
        mrrstats.paired_ttest([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match=r"missing value \(NaN\) at position 1"):
        mrrstats.paired_ttest([1, np.nan, 3], [1, 2, 4])
    with pytest.raises(ValueError, match="`missing` must be 'raise' or 'drop'"):
        mrrstats.paired_ttest([1, 2, 3], [1, 2, 4], missing="omit")
    with pytest.raises(ValueError, match="`a` must be 1-D"):
        mrrstats.paired_ttest([[1, 2]], [[1, 2]])
    with pytest.raises(ValueError, match="need at least 2 queries"):
        mrrstats.paired_ttest([1], [2])
    with pytest.raises(TypeError, match="`n_resamples` must be an integer"):
        mrrstats.randomization_test([1, 2], [2, 1], n_resamples=10.5)
    with pytest.raises(ValueError, match="`n_resamples` must be >= 1"):
        mrrstats.randomization_test([1, 2], [2, 1], n_resamples=0)
    with pytest.raises(TypeError, match="`rng` must be None, an integer seed"):
        mrrstats.randomization_test([1, 2], [2, 1], rng="seed")
    with pytest.raises(ValueError, match="`exact` enumeration of 2\\*\\*40"):
        mrrstats.randomization_test(np.arange(40.0), np.zeros(40), exact=True)
    with pytest.raises(ValueError, match="`atol` must be a finite non-negative"):
        mrrstats.sign_test([1, 2], [2, 1], atol=-1)
    with pytest.raises(ValueError, match="`method` must be one of"):
        mrrstats.bootstrap_test([1, 2], [2, 1], method="bca")
    with pytest.raises(ValueError, match="`confidence_level` must be in"):
        mrrstats.bootstrap_ci([1, 2, 3], confidence_level=95)
    with pytest.raises(ValueError, match="`zero_method` must be 'wilcox'"):
        mrrstats.wilcoxon_test([1, 2], [2, 1], method="R", zero_method="pratt")


def test_missing_drop_matches_dropping_by_hand():
    a = np.array([0.5, np.nan, 1.0, 0.25, 1.0])
    b = np.array([0.2, 0.3, np.nan, 0.5, 0.1])
    res = mrrstats.paired_ttest(a, b, missing="drop")
    ref = stats.ttest_rel(a[[0, 3, 4]], b[[0, 3, 4]])
    assert res.n_queries == 3
    assert res.pvalue == pytest.approx(ref.pvalue)


# ---------------------------------------------------------------------------
# Wilcoxon
# ---------------------------------------------------------------------------
def test_wilcoxon_R_exact_reference():
    # R documentation example (?wilcox.test; Hollander & Wolfe 1973, p. 29):
    # > x <- c(1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30)
    # > y <- c(0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29)
    # > wilcox.test(x, y, paired = TRUE, alternative = "greater")
    # V = 40, p-value = 0.01953
    x = [1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30]
    y = [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29]
    res = mrrstats.wilcoxon_test(x, y, alternative="greater", method="R")
    assert res.statistic == 40
    assert res.method == "exact"
    assert round(res.pvalue, 5) == 0.01953
    # two-sided exact: 2 * 10 / 512 (exact enumeration of the 2**9 signed-rank sums)
    assert mrrstats.wilcoxon_test(x, y, method="R").pvalue == pytest.approx(20 / 512)


def _r_wilcox_normal(d, alternative):
    """Transcription of R's wilcox.test.default (paired, exact=FALSE, correct=TRUE).

    x <- x[x != 0]; n <- length(x); r <- rank(abs(x)); STATISTIC <- sum(r[x > 0])
    NTIES <- table(r); z <- STATISTIC - n * (n + 1)/4
    SIGMA <- sqrt(n * (n + 1) * (2 * n + 1) / 24 - sum(NTIES^3 - NTIES) / 48)
    CORRECTION <- switch(alternative, two.sided = sign(z) * 0.5, greater = 0.5, less = -0.5)
    z <- (z - CORRECTION) / SIGMA
    """
    d = d[d != 0]
    n = d.size
    r = stats.rankdata(np.abs(d))
    V = r[d > 0].sum()
    _, nt = np.unique(r, return_counts=True)
    z = V - n * (n + 1) / 4
    sigma = math.sqrt(n * (n + 1) * (2 * n + 1) / 24 - np.sum(nt.astype(float) ** 3 - nt) / 48)
    corr = {"two-sided": np.sign(z) * 0.5, "greater": 0.5, "less": -0.5}[alternative]
    z = (z - corr) / sigma
    p = {"less": special.ndtr(z), "greater": special.ndtr(-z),
         "two-sided": 2 * min(special.ndtr(z), special.ndtr(-z))}[alternative]
    return V, p


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_wilcoxon_R_normal_approximation_with_ties_and_zeros(adhoc7_rr, alternative):
    # Real RR differences: many zeros and ties, so R uses the normal approximation.
    a, b = adhoc7_rr[:, 0], adhoc7_rr[:, 5]
    d = a - b
    assert (d == 0).any()
    V, p = _r_wilcox_normal(d, alternative)
    res = mrrstats.wilcoxon_test(a, b, alternative=alternative, method="R")
    assert res.method == "asymptotic" and res.continuity is True
    assert res.statistic == V
    assert res.pvalue == pytest.approx(p, rel=1e-10)
    assert res.n_nonzero == int((d != 0).sum()) and res.n_zero == int((d == 0).sum())


def test_wilcoxon_R_large_n_without_ties_uses_normal():
    rng = np.random.default_rng(3)
    a, b = rng.random(60), rng.random(60)
    res = mrrstats.wilcoxon_test(a, b, method="R")
    V, p = _r_wilcox_normal(a - b, "two-sided")
    assert res.method == "asymptotic"
    assert res.pvalue == pytest.approx(p, rel=1e-10)


def _rr_pairs(rng, n):
    """Reciprocal ranks of two systems: many ties and zero differences."""
    return 1.0 / rng.integers(1, 5, n), 1.0 / rng.integers(1, 5, n)


def _signflip_enumeration(d, zero_method, alternative):
    """Reference: W+ over all 2**m sign vectors of the non-zero differences."""
    nz = d != 0
    ranks = stats.rankdata(np.abs(d[nz] if zero_method == "wilcox" else d))
    if zero_method != "wilcox":
        ranks = ranks[nz]
    m = ranks.size
    bits = (np.arange(2 ** m)[:, None] >> np.arange(m)) & 1
    w = bits @ ranks
    obs = ranks[d[nz] > 0].sum()
    upper, lower = np.mean(w >= obs - 1e-9), np.mean(w <= obs + 1e-9)
    if alternative == "greater":
        return upper
    if alternative == "less":
        return lower
    return min(1.0, 2 * min(upper, lower))


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
def test_wilcoxon_auto_exact_with_ties_and_zeros(zero_method):
    """method="auto" is exact up to 50 differences, ties and zeros included: equal to
    scipy's permutation test for n <= 13 (scipy's own "auto", exact there) and to a
    full enumeration of the 2**m sign vectors for n = 18 (where scipy's "auto" uses
    the normal approximation)."""
    rng = np.random.default_rng(7)
    for n in (8, 13):
        a, b = _rr_pairs(rng, n)
        ours = mrrstats.wilcoxon_test(a, b, zero_method=zero_method)
        ref = stats.wilcoxon(a, b, zero_method=zero_method)  # a permutation test here
        assert ours.method == "exact"
        assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    a, b = _rr_pairs(rng, 18)
    d = a - b
    assert (d == 0).any() and np.unique(np.abs(d[d != 0])).size < (d != 0).sum()
    for alternative in ("two-sided", "greater", "less"):
        ours = mrrstats.wilcoxon_test(a, b, zero_method=zero_method, alternative=alternative)
        assert ours.method == "exact"
        assert ours.pvalue == pytest.approx(_signflip_enumeration(d, zero_method, alternative),
                                            rel=1e-12)
    assert mrrstats.wilcoxon_test(*_rr_pairs(rng, 51)).method == "asymptotic"


def test_wilcoxon_auto_without_ties_is_scipy_exact():
    rng = np.random.default_rng(3)
    a, b = rng.random(20), rng.random(20)
    ours = mrrstats.wilcoxon_test(a, b)
    assert ours.method == "exact" and ours.continuity is False
    assert ours.pvalue == pytest.approx(stats.wilcoxon(a, b).pvalue, rel=1e-12)


# ---------------------------------------------------------------------------
# sign test
# ---------------------------------------------------------------------------
def test_sign_test_counts_and_binomtest(adhoc7_rr):
    a, b = adhoc7_rr[:, 2], adhoc7_rr[:, 9]
    res = mrrstats.sign_test(a, b)
    d = a - b
    assert (res.wins, res.ties, res.losses) == ((d > 0).sum(), (d == 0).sum(), (d < 0).sum())
    assert res.pvalue == stats.binomtest(res.wins, res.wins + res.losses).pvalue
    tol = mrrstats.sign_test(a, b, atol=0.1)
    assert tol.ties == (np.abs(d) <= 0.1).sum()
    ci = tol.confidence_interval(0.9)
    ref = stats.binomtest(tol.wins, tol.n_nonzero).proportion_ci(0.9)
    assert (ci.low, ci.high) == pytest.approx((ref.low, ref.high))


def test_sign_test_all_ties():
    res = mrrstats.sign_test([1, 0.5], [1, 0.5])
    assert res.pvalue == 1.0 and res.n_nonzero == 0
    assert math.isnan(res.confidence_interval().low)


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_vectorised_sign_pvalues_equal_binomtest(alternative):
    w, l_ = np.meshgrid(np.arange(0, 16), np.arange(0, 16))
    w, l_ = w.ravel(), l_.ravel()
    ours = sign_pvalues(w, l_, alternative)
    for wi, li, p in zip(w, l_, ours, strict=True):
        ref = 1.0 if wi + li == 0 else stats.binomtest(wi, wi + li, 0.5,
                                                       alternative=alternative).pvalue
        assert p == pytest.approx(ref, rel=1e-12, abs=1e-15)


# ---------------------------------------------------------------------------
# randomization test
# ---------------------------------------------------------------------------
def _scipy_signflip(a, b, alternative):
    def statistic(x, y, axis=-1):
        return np.mean(x - y, axis=axis)

    return stats.permutation_test((a, b), statistic, permutation_type="samples",
                                  alternative=alternative, n_resamples=np.inf,
                                  vectorized=True)


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_exact_enumeration_matches_scipy_permutation_test(adhoc7_rr, alternative):
    # scipy.stats.permutation_test(permutation_type="samples", n_resamples=inf) enumerates
    # all 2**n within-pair swaps; its two-sided p (twice the smaller tail) equals P(|T| >= |t|)
    # because the sign-flip null is symmetric.
    rng = np.random.default_rng(11)
    for n in (6, 9, 12):
        for _ in range(3):
            i, j = rng.choice(adhoc7_rr.shape[1], 2, replace=False)
            rows = rng.choice(50, n, replace=False)
            a, b = adhoc7_rr[rows, i], adhoc7_rr[rows, j]
            ours = mrrstats.randomization_test(a, b, alternative=alternative)
            ref = _scipy_signflip(a, b, alternative)
            assert ours.exact and ours.n_resamples == 2**n and ours.pvalue_se == 0
            assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-12)


def test_exact_ties_in_null_are_counted():
    # d = (1, 1, 1, 1): only the all-positive and all-negative sign vectors reach
    # |T| = 1, so p = 2 / 16 exactly; many sums are tied at every level.
    res = mrrstats.randomization_test([1, 1, 1, 1], [0, 0, 0, 0])
    assert res.pvalue == 2 / 16
    res = mrrstats.randomization_test([0.1, 0.2, 0.3], [0, 0, 0])
    # exact enumeration by hand: |T| >= 0.2 for (+++) and (---), and 0.1+0.2-0.3 = 0 etc.
    assert res.pvalue == pytest.approx(2 / 8)


def test_monte_carlo_inside_exact_band(rr_matrices):
    # For n = 16 the exact p is available (2**16 vectors). With B resamples the
    # Monte-Carlo p = (b + 1)/(B + 1) has SE sqrt(p (1 - p) / B); we require
    # |p_mc - p_exact| <= 4 SE + 1/(B+1) (the +1 shift), a 4-sigma band.
    B = 20000
    rng = np.random.default_rng(5)
    for X in rr_matrices:
        i, j = rng.choice(X.shape[1], 2, replace=False)
        rows = rng.choice(50, 16, replace=False)
        a, b = X[rows, i], X[rows, j]
        exact = mrrstats.randomization_test(a, b, exact=True)
        mc = mrrstats.randomization_test(a, b, exact=False, n_resamples=B, rng=rng)
        se = math.sqrt(exact.pvalue * (1 - exact.pvalue) / B)
        assert not mc.exact and mc.n_resamples == B
        assert abs(mc.pvalue - exact.pvalue) <= 4 * se + 1 / (B + 1)
        assert mc.pvalue_se == pytest.approx(math.sqrt(mc.pvalue * (1 - mc.pvalue) / B))


def test_auto_exact_threshold():
    x = np.linspace(0, 1, 20)
    assert mrrstats.randomization_test(x, x[::-1]).exact            # 2**20 <= 2**20
    assert not mrrstats.randomization_test(np.linspace(0, 1, 21), np.zeros(21), rng=0).exact


def test_monte_carlo_pvalue_never_zero():
    a = np.ones(200)
    res = mrrstats.randomization_test(a, np.zeros(200), n_resamples=999, rng=1)
    assert res.pvalue == 1 / 1000


def _reference_counts(D, alternative, B, seed, n):
    """Plain float64 reference of the sign-flip counts with the same random bits."""
    gen = np.random.default_rng(seed)
    bits = signflip_rows(stream_key(gen), 0, B, n).astype(np.float64)
    S = D.sum(axis=1)
    T = 2.0 * (bits @ D.T) - S
    tol = 100 * np.finfo(float).eps * np.abs(S) + 8 * n * np.finfo(float).eps / 2 * np.abs(
        D).sum(axis=1)
    if alternative == "two-sided":
        return (np.abs(T) >= np.abs(S) - tol).sum(axis=0)
    if alternative == "greater":
        return (T >= S - tol).sum(axis=0)
    return (-T >= -S - tol).sum(axis=0)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_float32_fast_path_equals_float64_reference(rr_matrices, alternative):
    # Heavily tied RR differences (half the values are exactly 1) over many queries:
    # the float32 products with the error bound + float64 refinement must give exactly
    # the counts of a plain float64 computation on the same sign vectors.
    X = np.concatenate([M[:, :30] for M in rr_matrices])  # 150 topics x 30 systems
    rng = np.random.default_rng(2)
    rows = rng.integers(0, X.shape[0], 3000)
    D = np.stack([X[rows, i] - X[rows, i + 1] for i in range(0, 20, 2)])
    # a pair whose observed sum is attained exactly by many sign vectors
    D[0] = np.where(np.arange(3000) % 2 == 0, 0.5, -0.5)
    D[0, :3] = 0.5
    gen = np.random.default_rng(123)
    counts, total, _ = signflip_counts(D, alternative, n_resamples=4000, exact=False,
                                        batch=333, gen=gen)
    ref = _reference_counts(D, alternative, 4000, 123, 3000)
    np.testing.assert_array_equal(counts, ref)


def test_enumerated_rows_are_all_sign_vectors():
    rows = enumerated_rows(0, 16, 4)
    assert len({tuple(r) for r in rows}) == 16


@pytest.mark.parametrize("batch", [1, 7, 256, None])
def test_randomization_batch_invariance(adhoc7_rr, batch):
    a, b = adhoc7_rr[:, 0], adhoc7_rr[:, 4]
    ref = mrrstats.randomization_test(a, b, n_resamples=3000, rng=42)
    res = mrrstats.randomization_test(a, b, n_resamples=3000, rng=42, batch=batch)
    assert res.pvalue == ref.pvalue and res.seed == 42


def test_seed_is_recorded_and_reproduces():
    a, b = np.linspace(0, 1, 40), np.linspace(0.1, 0.9, 40) ** 2
    res = mrrstats.randomization_test(a, b, n_resamples=500)
    again = mrrstats.randomization_test(a, b, n_resamples=500, rng=res.seed)
    assert res.seed is not None and again.pvalue == res.pvalue
    gen_res = mrrstats.randomization_test(a, b, n_resamples=500, rng=np.random.default_rng(1))
    assert gen_res.seed is None


# ---------------------------------------------------------------------------
# bootstrap
# ---------------------------------------------------------------------------
def _quantile_se(dist, prob, B):
    """MC standard error of the prob-quantile of a bootstrap distribution.

    Asymptotic SE of a sample quantile: sqrt(q (1 - q) / B) / f(x_q), with the
    density f approximated by a normal with the bootstrap SE.
    """
    se = dist.std(ddof=1)
    z = special.ndtri(prob)
    return math.sqrt(prob * (1 - prob) / B) * se / stats.norm.pdf(z)


@pytest.mark.parametrize("method", ["bca", "percentile", "basic"])
@pytest.mark.parametrize("paired", [False, True])
def test_bootstrap_ci_agrees_with_scipy(adhoc7_rr, method, paired):
    # Same definitions as scipy.stats.bootstrap, independent resamples: endpoints must
    # agree within 5 * sqrt(2) quantile SEs (two independent Monte-Carlo estimates).
    B = 20000
    a, b = adhoc7_rr[:, 6], adhoc7_rr[:, 12]
    if paired:
        ours = mrrstats.bootstrap_ci(a, b, method=method, n_resamples=B, rng=1)
        ref = stats.bootstrap((a, b), lambda x, y, axis=-1: np.mean(x - y, axis=axis),
                              paired=True, method=method, n_resamples=B, rng=2)
    else:
        ours = mrrstats.bootstrap_ci(a, method=method, n_resamples=B, rng=1)
        ref = stats.bootstrap((a,), np.mean, method=method, n_resamples=B, rng=2)
    lo, hi = ours.confidence_interval()
    tol = 5 * math.sqrt(2) * _quantile_se(ours.bootstrap_distribution, 0.025, B)
    assert abs(lo - ref.confidence_interval.low) <= tol
    assert abs(hi - ref.confidence_interval.high) <= tol
    assert ours.standard_error == pytest.approx(ref.standard_error, rel=0.05)  # SE of sd ~ 1/sqrt(2B)


def test_bca_formula_on_stored_distribution():
    # Independent BCa from the stored bootstrap distribution: explicit leave-one-out
    # jackknife for the acceleration and scipy's 'mean' percentile-of-score for z0
    # (Efron & Tibshirani 1993, 14.3, eq. 14.14-14.15), numpy linear quantiles.
    x = np.array([1, 0.5, 1, 0.25, 1, 0.333, 0.2, 1, 0.5, 1, 0.1, 1, 0, 0, 0.5])
    res = mrrstats.bootstrap_ci(x, method="bca", n_resamples=5000, rng=3, confidence_level=0.9)
    dist = res.bootstrap_distribution
    jack = np.array([np.delete(x, i).mean() for i in range(x.size)])
    u = jack.mean() - jack
    a_hat = (u**3).sum() / (6 * ((u**2).sum()) ** 1.5)
    assert res.acceleration == pytest.approx(a_hat, rel=1e-10)
    z0 = special.ndtri(((dist < x.mean()).sum() + (dist <= x.mean()).sum()) / (2 * dist.size))
    za = special.ndtri(0.05)
    probs = [special.ndtr(z0 + (z0 + z) / (1 - a_hat * (z0 + z))) for z in (za, -za)]
    lo, hi = np.quantile(dist, probs)
    ci = res.confidence_interval()
    assert (ci.low, ci.high) == pytest.approx((lo, hi), rel=1e-12)
    # percentile and basic from the same distribution
    p_lo, p_hi = np.quantile(dist, [0.05, 0.95])
    assert tuple(res.confidence_interval(method="percentile")) == pytest.approx((p_lo, p_hi))
    assert tuple(res.confidence_interval(method="basic")) == pytest.approx(
        (2 * x.mean() - p_hi, 2 * x.mean() - p_lo))
    one = res.confidence_interval(0.95, method="percentile")
    assert one.confidence_level == 0.95


def test_bootstrap_one_sided_and_degenerate():
    x = np.array([0.5, 1.0, 0.25, 1.0, 0.2, 0.7])
    res = mrrstats.bootstrap_ci(x, alternative="greater", n_resamples=2000, rng=0)
    lo, hi = res.confidence_interval()
    assert hi == np.inf and lo < x.mean()
    flat = mrrstats.bootstrap_ci([0.5, 0.5, 0.5], n_resamples=200, rng=0)
    assert tuple(flat.confidence_interval()) == (0.5, 0.5)
    low, high = bootstrap_interval(np.array([0.0]), np.zeros((1, 10)), np.zeros(1), "bca",
                                    0.95, "two-sided")
    assert (low[0], high[0]) == (0.0, 0.0)


@pytest.mark.parametrize("batch", [1, 13, 1000])
def test_bootstrap_batch_invariance(adhoc7_rr, batch):
    a, b = adhoc7_rr[:, 1], adhoc7_rr[:, 2]
    ref = mrrstats.bootstrap_ci(a, b, n_resamples=1500, rng=9)
    res = mrrstats.bootstrap_ci(a, b, n_resamples=1500, rng=9, batch=batch)
    np.testing.assert_array_equal(res.bootstrap_distribution, ref.bootstrap_distribution)
    t_ref = mrrstats.bootstrap_test(a, b, method="studentized", n_resamples=1500, rng=9)
    t_res = mrrstats.bootstrap_test(a, b, method="studentized", n_resamples=1500, rng=9,
                                    batch=batch)
    assert t_res.pvalue == t_ref.pvalue


@pytest.mark.parametrize("method", ["shift", "studentized"])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_bootstrap_test_against_exact_bootstrap_distribution(method, alternative):
    # Reference independent of the random stream: with n = 6 topics, all 6**6 = 46,656
    # equally likely resamples of the centred differences z = d - mean(d) give the exact
    # bootstrap p-value; the Monte-Carlo p-value (b + 1) / (B + 1) must lie within 5
    # binomial SEs of it. A resample with zero spread has t = 0 if its mean is 0, else
    # +-inf (the documented convention of the studentized test).
    a = np.array([0.9, 0.35, 0.6, 0.2, 0.75, 0.5])
    b = np.array([0.5, 0.4, 0.1, 0.3, 0.2, 0.45])
    n, B = a.size, 40_000
    d = a - b
    z = d - d.mean()
    zs = z[np.array(list(itertools.product(range(n), repeat=n)))]
    if method == "shift":
        null, obs = zs.mean(axis=1), d.mean()
    else:
        m, se = zs.mean(axis=1), zs.std(axis=1, ddof=1) / math.sqrt(n)
        with np.errstate(divide="ignore", invalid="ignore"):
            null = np.where(se > 1e-12, m / se, np.where(np.abs(m) <= 1e-12, 0.0,
                                                         np.sign(m) * np.inf))
        obs = d.mean() / (d.std(ddof=1) / math.sqrt(n))
    tol = 1e-12 * abs(obs)
    exact = {"two-sided": (np.abs(null) >= abs(obs) - tol).mean(),
             "greater": (null >= obs - tol).mean(),
             "less": (null <= obs + tol).mean()}[alternative]
    res = mrrstats.bootstrap_test(a, b, method=method, alternative=alternative,
                                  n_resamples=B, rng=77)
    assert abs(res.pvalue - exact) <= 5 * math.sqrt(exact * (1 - exact) / B) + 1 / (B + 1)
    assert res.statistic == pytest.approx(obs)


# ---------------------------------------------------------------------------
# effect sizes
# ---------------------------------------------------------------------------
def test_residual_variance_matches_statsmodels_anova(adhoc7_rr):
    # Two-way ANOVA without replication via statsmodels OLS: residual mean square.
    import pandas as pd
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    X = adhoc7_rr[:, :8]
    long = pd.DataFrame({"y": X.ravel(), "topic": np.repeat(np.arange(50), 8).astype(str),
                         "system": np.tile(np.arange(8), 50).astype(str)})
    table = anova_lm(smf.ols("y ~ C(topic) + C(system)", data=long).fit())
    ref = table.loc["Residual", "mean_sq"]
    assert mrrstats.residual_variance(X.T) == pytest.approx(ref, rel=1e-10)
    import pandas as pd2

    frame = pd2.DataFrame(X)
    assert mrrstats.residual_variance(frame) == pytest.approx(ref, rel=1e-10)


def test_effect_sizes(adhoc7_rr):
    a, b = adhoc7_rr[:, 0], adhoc7_rr[:, 3]
    v_e = mrrstats.residual_variance(adhoc7_rr.T)
    es = mrrstats.effect_sizes(a, b, residual_variance=v_e, atol=0.01)
    d = a - b
    assert es.d_z == pytest.approx(d.mean() / d.std(ddof=1))
    assert es.es_e == pytest.approx(d.mean() / math.sqrt(v_e))
    assert es.wins == (d > 0.01).sum() and es.losses == (d < -0.01).sum()
    assert es.wins + es.ties + es.losses == 50
    assert es.prob_superiority == pytest.approx((es.wins + es.ties / 2) / 50)
    assert math.isnan(mrrstats.effect_sizes(a, b).es_e)
    with pytest.raises(ValueError, match="`residual_variance` must be positive"):
        mrrstats.effect_sizes(a, b, residual_variance=0)


# ---------------------------------------------------------------------------
# calibration on real data
# ---------------------------------------------------------------------------
def _null_differences(matrices, n, R, rng):
    """R null replicates of n per-topic differences from real pairs of systems.

    Each replicate picks a TREC-5/6/7 RR matrix and two of its systems at
    random, takes n topics (25: sampled without replacement from the 50;
    50: all; 100: sampled WITH replacement from the 50, i.e. from the
    empirical topic distribution of that pair), and swaps the two systems'
    values on each topic with probability 1/2. The swap makes the null
    hypothesis (exchangeable systems within every topic) true by
    construction while keeping the real shape, ties and zeros of RR differences.
    """
    D = np.empty((R, n))
    for r in range(R):
        X = matrices[rng.integers(len(matrices))]
        i, j = rng.choice(X.shape[1], 2, replace=False)
        rows = rng.choice(50, n, replace=False) if n <= 50 else rng.integers(0, 50, n)
        D[r] = (X[rows, i] - X[rows, j]) * rng.choice([-1.0, 1.0], n)
    return D


@pytest.mark.slow  # calibration run (R replicates); CI runs it with -m slow
def test_calibration_t_and_randomization_on_real_nulls(rr_matrices):
    """Type I error at alpha = 0.05 on real RR nulls (see `_null_differences`).

    R = 2000 replicates per size; the rejection rate must be within three
    binomial SEs, 3 * sqrt(0.05 * 0.95 / 2000) = 0.0146, of 0.05. Measured
    (seed 2024, R = 2000, B = 1000 per randomization test):

    ============  ======  ======  ======
    topics           25      50     100
    ============  ======  ======  ======
    t-test         0.0425  0.051   0.057
    randomization  0.045   0.052   0.055
    ============  ======  ======  ======

    Documented in test_calibration_other_tests_documented for Wilcoxon, sign
    and bootstrap.
    """
    R = 2000
    se3 = 3 * math.sqrt(0.05 * 0.95 / R)
    ss = np.random.SeedSequence(2024)
    rates = {}
    for n, child in zip((25, 50, 100), ss.spawn(3), strict=True):
        rng = np.random.default_rng(child)
        D = _null_differences(rr_matrices, n, R, rng)
        zeros = np.zeros(n)
        p_t = np.array([mrrstats.paired_ttest(d, zeros).pvalue for d in D])
        # one Generator consumed in order: every replicate gets its own sign vectors
        p_r = np.array([mrrstats.randomization_test(d, zeros, n_resamples=1000, rng=rng).pvalue
                        for d in D])
        rates[n] = (float((p_t <= 0.05).mean()), float((p_r <= 0.05).mean()))
    print(rates)
    for n, (rate_t, rate_r) in rates.items():
        assert abs(rate_t - 0.05) <= se3, ("t", n, rate_t)
        assert abs(rate_r - 0.05) <= se3, ("randomization", n, rate_r)


@pytest.mark.slow  # calibration run (R replicates); CI runs it with -m slow
def test_calibration_other_tests_documented(rr_matrices):
    """Rejection rates of Wilcoxon (R's default), sign and bootstrap tests on real nulls.

    Same construction as the t / randomization calibration, R = 1000 per size
    (binomial SE 0.0069), B = 500 bootstrap resamples. Measured (seed 77):

    ===================  ======  ======  ======
    topics                  25      50     100
    ===================  ======  ======  ======
    Wilcoxon (method=R)    0.048   0.049   0.060
    sign                   0.026   0.031   0.051
    bootstrap shift        0.072   0.064   0.063
    bootstrap studentised  0.050   0.051   0.060
    ===================  ======  ======  ======

    Findings (an exploratory run with R = 2000, B = 1000 and another seed
    gave sign 0.022/0.032/0.044, shift 0.061/0.058/0.058, Wilcoxon
    0.037/0.049/0.056): the sign test is conservative at 25 and 50 topics,
    because about 31% of RR differences are exact zeros (dropped as ties,
    leaving few informative topics and a coarse binomial null). The bootstrap
    shift test is liberal, most at 25 topics (0.06-0.07), as reported by
    Urbano et al. (SIGIR 2019); the studentised variant and Wilcoxon are
    close to nominal.
    The assertions encode these directions with 3-SE margins: they fail if the
    sign test stops being conservative or the shift test stops being liberal.
    """
    R = 1000
    se = math.sqrt(0.05 * 0.95 / R)
    rates = {}
    ss = np.random.SeedSequence(77)
    for n, child in zip((25, 50, 100), ss.spawn(3), strict=True):
        rng = np.random.default_rng(child)
        D = _null_differences(rr_matrices, n, R, rng)
        zeros = np.zeros(n)
        w = np.array([mrrstats.wilcoxon_test(d, zeros, method="R").pvalue for d in D])
        s = sign_pvalues((D > 0).sum(axis=1), (D < 0).sum(axis=1), "two-sided")
        bs = np.array([mrrstats.bootstrap_test(d, zeros, method="shift", n_resamples=500,
                                               rng=rng).pvalue
                       for d in D])
        bt = np.array([mrrstats.bootstrap_test(d, zeros, method="studentized",
                                               n_resamples=500, rng=rng).pvalue for d in D])
        rates[n] = {k: float((p <= 0.05).mean())
                    for k, p in (("wilcoxon", w), ("sign", s), ("shift", bs), ("stud", bt))}
    print(rates)
    assert rates[25]["sign"] < 0.05 - 3 * se          # conservative (ties)
    assert rates[25]["shift"] > rates[25]["stud"]     # shift more liberal than studentised
    for n in (25, 50, 100):
        assert abs(rates[n]["stud"] - 0.05) <= 3 * se
        assert abs(rates[n]["wilcoxon"] - 0.05) <= 3 * se
        assert rates[n]["shift"] >= 0.05 - 3 * se


@pytest.mark.slow  # calibration run (R replicates); CI runs it with -m slow
def test_bca_coverage_with_known_mean(adhoc7_rr):
    """BCa coverage of a known mean: topics resampled from real 50-topic RR columns.

    Population = the 50 per-topic RR values of a random TREC-7 system (or the
    50 differences of a random pair), true mean = their mean. Each of R = 1000
    replicates draws 50 topics with replacement and computes a 95% BCa
    interval (B = 1000). Coverage must be within 3 binomial SEs,
    3 * sqrt(0.95 * 0.05 / 1000) = 0.0207, of 0.95. Measured (seed 7): one
    system 0.955, pair 0.949; at 25 topics 0.954 and 0.927 (the pair interval
    undercovers slightly at 25 topics; not asserted).
    """
    R = 1000
    tol = 3 * math.sqrt(0.95 * 0.05 / R)
    rng = np.random.default_rng(7)
    hit_one = hit_pair = 0
    k = adhoc7_rr.shape[1]
    for _ in range(R):
        pop = adhoc7_rr[:, rng.integers(k)]
        x = pop[rng.integers(0, 50, 50)]
        lo, hi = mrrstats.bootstrap_ci(x, method="bca", n_resamples=1000,
                                       rng=rng).confidence_interval()
        hit_one += lo <= pop.mean() <= hi
        i, j = rng.choice(k, 2, replace=False)
        idx = rng.integers(0, 50, 50)
        lo, hi = mrrstats.bootstrap_ci(adhoc7_rr[idx, i], adhoc7_rr[idx, j], method="bca",
                                       n_resamples=1000, rng=rng).confidence_interval()
        hit_pair += lo <= (adhoc7_rr[:, i] - adhoc7_rr[:, j]).mean() <= hi
    assert abs(hit_one / R - 0.95) <= tol, hit_one / R
    assert abs(hit_pair / R - 0.95) <= tol, hit_pair / R


@pytest.mark.slow  # calibration run (R replicates); CI runs it with -m slow
def test_bootstrap_test_default_is_calibrated_on_real_nulls(rr_matrices):
    """Type I error of bootstrap_test's DEFAULT (studentized) on real RR nulls (defect 4).

    Construction of `_null_differences` (random real TREC-5/6/7 pair, topics
    sampled, values swapped per topic with probability 1/2): R = 1000 per size,
    B = 1000. The rate must lie in the 3-SE band 0.05 +- 3 sqrt(0.05 * 0.95 / R)
    = [0.029, 0.071] at 25, 50 and 100 topics. The docstring table (R = 3000,
    B = 2000, benchmarks/calibration/calibrate_bootstrap_test.py) measured 0.047 / 0.052 /
    0.044 for the default and 0.069 / 0.059 / 0.049 for the old shift default.
    """
    R = 1000
    half = 3 * math.sqrt(0.05 * 0.95 / R)
    ss = np.random.SeedSequence(2026)
    for n, child in zip((25, 50, 100), ss.spawn(3), strict=True):
        rng = np.random.default_rng(child)
        D = _null_differences(rr_matrices, n, R, rng)
        zeros = np.zeros(n)
        p = np.array([mrrstats.bootstrap_test(d, zeros, n_resamples=1000, rng=rng).pvalue
                      for d in D])
        rate = float((p <= 0.05).mean())
        assert abs(rate - 0.05) <= half, (n, rate)
