"""Reference tests for mrrstats.stats.estimation (Hodges-Lehmann, TOST, effect-size
intervals) and mrrstats.stats.unpaired (unpaired comparisons)."""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from mrrstats.stats import estimation as est
from mrrstats.stats import unpaired as unp
from mrrstats.stats.bootstrap import bootstrap_ci

# Data of R's ?wilcox.test (Hollander & Wolfe 1973, p. 29, depression scale).
X = np.array([1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30])
Y = np.array([0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29])


def _signrank_null_by_enumeration(n):
    """All 2**n sign vectors: the exact null distribution of V (independent of the DP)."""
    ranks = np.arange(1, n + 1)
    signs = np.array(list(itertools.product([0, 1], repeat=n)))
    return np.sort(signs @ ranks)


def test_hodges_lehmann_r_example_statistic():
    # R: wilcox.test(x, y, paired = TRUE, alternative = "greater")  ->  V = 40, p-value = 0.01953
    hl = est.hodges_lehmann(X, Y)
    assert hl.statistic == 40
    v = _signrank_null_by_enumeration(9)
    assert round(np.mean(v >= 40), 5) == 0.01953


def test_hodges_lehmann_exact_matches_enumeration():
    d = X - Y
    n = d.size
    v = _signrank_null_by_enumeration(n)
    # R's qsignrank(0.025, n): smallest q with P(V <= q) >= 0.025
    q = min(k for k in range(v.max() + 1) if np.mean(v <= k) >= 0.025)
    i, j = np.triu_indices(n)
    walsh = np.sort((d[i] + d[j]) / 2)
    hl = est.hodges_lehmann(X, Y)
    assert hl.method == "exact"
    assert hl.low == pytest.approx(walsh[q - 1], abs=1e-12)
    assert hl.high == pytest.approx(walsh[walsh.size - q], abs=1e-12)
    assert hl.estimate == pytest.approx(np.median(walsh), abs=1e-12)
    # values: (pseudo)median 0.46, interval [0.01, 0.786]
    assert (hl.estimate, hl.low, hl.high) == pytest.approx((0.46, 0.01, 0.786), abs=1e-12)


def test_hodges_lehmann_exact_interval_is_test_inversion():
    # every shift inside the interval is not rejected by the exact two-sided signed-rank
    # test at 5% (scipy), and shifts just outside are
    hl = est.hodges_lehmann(X, Y)
    d = X - Y
    for mu, inside in [(hl.low + 1e-6, True), (hl.high - 1e-6, True),
                       (hl.low - 1e-6, False), (hl.high + 1e-6, False)]:
        p = stats.wilcoxon(d - mu, method="exact").pvalue
        assert (p > 0.05) == inside


def test_hodges_lehmann_r_wrapper_value():
    # R 4.2.2: wilcox.test(x, y, paired = TRUE, conf.int = TRUE) prints
    # 95% CI [-2.5, 15.0], (pseudo)median 8.25, V = 24, p-value = 0.109375
    hl = est.hodges_lehmann([23, 45, 12, 67, 34, 89, 56], [19, 38, 22, 51, 29, 74, 44])
    assert (hl.low, hl.high, hl.statistic) == (-2.5, 15.0, 24)


def _w_loop(x, mu, correct):
    """Independent loop implementation of R's W(d) (two-sided)."""
    xd = [v - mu for v in x if v != mu]
    n = len(xd)
    absd = [abs(v) for v in xd]
    ranks = []
    for a in absd:
        less = sum(1 for b in absd if b < a)
        eq = sum(1 for b in absd if b == a)
        ranks.append(less + (eq + 1) / 2)
    z = sum(r for r, v in zip(ranks, xd, strict=True) if v > 0) - n * (n + 1) / 4
    ties = {}
    for r in ranks:
        ties[r] = ties.get(r, 0) + 1
    sigma = math.sqrt(n * (n + 1) * (2 * n + 1) / 24 - sum(t ** 3 - t for t in ties.values()) / 48)
    c = (0.5 if z > 0 else -0.5 if z < 0 else 0) if correct else 0
    return (z - c) / sigma


def test_hodges_lehmann_normal_with_ties():
    # blood-pressure style data with ties: R uses the normal approximation
    after = np.array([135, 137, 140, 139, 142, 149, 136, 138, 144, 134, 141, 145.])
    before = np.array([142, 138, 151, 145, 149, 153, 140, 144, 156, 137, 148, 150.])
    hl = est.hodges_lehmann(after, before)
    assert hl.method == "asymptotic"
    x = after - before
    z = stats.norm.isf(0.025)
    # each limit is where the (loop) W crosses the quantile, to R's uniroot tolerance 1e-4
    for lim, zq in [(hl.low, z), (hl.high, -z)]:
        f1, f2 = _w_loop(x, lim - 2e-4, True) - zq, _w_loop(x, lim + 2e-4, True) - zq
        assert f1 * f2 <= 0
    f1, f2 = _w_loop(x, hl.estimate - 2e-4, False), _w_loop(x, hl.estimate + 2e-4, False)
    assert f1 * f2 <= 0
    # the limits are Walsh averages (W only jumps there): -8.5, -4.0; estimate -6.0
    assert (hl.low, hl.high, hl.estimate) == pytest.approx((-8.5, -4.0, -6.0), abs=1e-4)
    # R 4.2.2 (Debian r-base-core 4.2.2.20221110-2), printed with sprintf("%.10f"):
    #   r <- wilcox.test(after, before, paired = TRUE, conf.int = TRUE)
    #   r$conf.int = -8.4999720582 -4.0000115881; r$estimate = -5.9999617431; V = 0
    # (R's limits come from uniroot, tol 1e-4; ours are the exact crossing points)
    assert (hl.low, hl.high, hl.estimate) == pytest.approx(
        (-8.4999720582, -4.0000115881, -5.9999617431), abs=1e-4)


def test_hodges_lehmann_one_sided_and_errors():
    g = est.hodges_lehmann(X, Y, alternative="greater")
    assert g.high == math.inf and g.low > est.hodges_lehmann(X, Y).low
    with pytest.raises(ValueError, match="same length"):
        est.hodges_lehmann([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="equal on every query"):
        est.hodges_lehmann([1, 2], [1, 2])
    with pytest.raises(ValueError, match="confidence_level"):
        est.hodges_lehmann(X, Y, confidence_level=1.5)


def test_equivalence_t_matches_statsmodels():
    from statsmodels.stats.weightstats import ttost_paired

    rng = np.random.default_rng(3)
    a = rng.uniform(size=40)
    b = np.clip(a + rng.normal(0, 0.05, 40), 0, 1)
    for low, high in [(-0.03, 0.03), (-0.01, 0.05)]:
        margin = 0.03 if high == 0.03 else (low, high)
        res = est.equivalence_test(a, b, margin=margin)
        p, (t1, p1, _), (t2, p2, _) = ttost_paired(a, b, low, high)
        assert res.pvalue == pytest.approx(p, rel=1e-10)
        assert (res.pvalue_lower, res.pvalue_upper) == pytest.approx((p1, p2), rel=1e-10)
        assert (res.statistic_lower, res.statistic_upper) == pytest.approx((t1, t2), rel=1e-10)
    # the 1 - 2 alpha interval lies inside the margin iff TOST rejects at alpha
    res = est.equivalence_test(a, b, margin=0.03)
    lo, hi = res.confidence_interval(confidence_level=0.90)
    assert res.equivalent(0.05) == (-0.03 < lo and hi < 0.03)


def test_equivalence_randomization_exact_by_enumeration():
    a = np.array([0.50, 1.00, 0.33, 1.00, 0.25, 0.50, 1.00, 0.20, 0.4])
    b = np.array([0.52, 0.98, 0.30, 0.90, 0.27, 0.49, 0.99, 0.22, 0.45])
    res = est.equivalence_test(a, b, margin=0.05, test="randomization")
    signs = np.array(list(itertools.product([-1, 1], repeat=a.size)))
    ps = []
    for shift, side in [(-0.05, 1), (0.05, -1)]:
        dd = a - b - shift
        t = signs @ dd / a.size
        obs = dd.mean()
        ps.append(np.mean(side * t >= side * obs - 1e-12))
    assert res.pvalue_lower == pytest.approx(ps[0], abs=1e-12)
    assert res.pvalue_upper == pytest.approx(ps[1], abs=1e-12)
    assert res.pvalue == max(ps)


def test_equivalence_errors():
    with pytest.raises(ValueError, match="`margin`"):
        est.equivalence_test([1, 2, 3], [1, 2, 2], margin=-1)
    with pytest.raises(ValueError, match="`margin`"):
        est.equivalence_test([1, 2, 3], [1, 2, 2], margin=(0.1, -0.1))
    with pytest.raises(ValueError, match="`test`"):
        est.equivalence_test([1, 2, 3], [1, 2, 2], margin=1, test="z")


def test_dz_interval_inverts_noncentral_t():
    rng = np.random.default_rng(0)
    a, b = rng.normal(0.5, 1, 25), rng.normal(0.0, 1, 25)
    res = est.effect_size_intervals(a, b, n_resamples=200, rng=1)
    n = 25
    t = res.d_z * math.sqrt(n)
    low, high = res.d_z_interval
    assert stats.nct.cdf(t, n - 1, low * math.sqrt(n)) == pytest.approx(0.975, abs=1e-9)
    assert stats.nct.cdf(t, n - 1, high * math.sqrt(n)) == pytest.approx(0.025, abs=1e-9)
    d = a - b
    assert res.d_z == pytest.approx(d.mean() / d.std(ddof=1))


def test_dz_interval_coverage():
    # coverage of the exact interval for normal differences: 400 samples, nominal 0.95,
    # binomial SE 0.011 -> accept within 4 SE
    rng = np.random.default_rng(11)
    delta, n, reps, cover = 0.4, 15, 400, 0
    for _ in range(reps):
        d = rng.normal(delta, 1, n)
        lo, hi = est._nct_dz_interval(d.mean() / d.std(ddof=1) * math.sqrt(n), n, 0.95)
        cover += lo <= delta <= hi
    se = math.sqrt(0.95 * 0.05 / reps)
    assert abs(cover / reps - 0.95) < 4 * se


def test_prob_superiority_interval_is_bootstrap_of_indicator():
    a = np.array([1, 0.5, 1, 1, 0.33, 1, 0.5, 1, 0.25, 1])
    b = np.array([0.5, 0.5, 1, 0.25, 0.33, 0.5, 0.2, 1, 0.25, 0.5])
    res = est.effect_size_intervals(a, b, n_resamples=2000, rng=5)
    s = (a > b) + 0.5 * (a == b)
    assert res.prob_superiority == s.mean() == 0.75
    ref = bootstrap_ci(s, method="bca", n_resamples=2000,
                       rng=np.random.default_rng(5)).confidence_interval()
    assert (res.prob_superiority_interval.low, res.prob_superiority_interval.high) == (
        ref.low, ref.high)
    assert res.to_frame().shape == (2, 6)


def test_unpaired_ttest_matches_scipy():
    rng = np.random.default_rng(2)
    a, b = rng.uniform(size=30), rng.uniform(0.1, 1, size=45)
    for alt in ("two-sided", "less", "greater"):
        res = unp.unpaired_ttest(a, b, alternative=alt)
        ref = stats.ttest_ind(a, b, equal_var=False, alternative=alt)
        ci = ref.confidence_interval()
        assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
        assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
        assert (res.low, res.high) == pytest.approx((ci.low, ci.high), rel=1e-12)
        assert res.df == pytest.approx(ref.df)


def test_unpaired_permutation_exact_matches_scipy():
    a = np.array([1, 0.5, 1, 0.33, 1, 0.25])
    b = np.array([0.5, 0.25, 0.2, 1, 0.33])
    for alt in ("two-sided", "less", "greater"):
        res = unp.unpaired_permutation_test(a, b, alternative=alt)
        assert res.method == "exact" and res.n_resamples == math.comb(11, 6)

        def stat(x, y):
            return np.mean(x) - np.mean(y)

        ref = stats.permutation_test((a, b), stat, permutation_type="independent",
                                     n_resamples=np.inf, alternative=alt)
        if alt == "two-sided":
            # scipy doubles the smaller tail; ours compares |mean difference|
            # (symmetric statistic); check against a direct enumeration instead
            x = np.concatenate([a, b])
            ts = [x[list(c)].mean() - np.delete(x, list(c)).mean()
                  for c in itertools.combinations(range(11), 6)]
            ref_p = np.mean(np.abs(ts) >= abs(stat(a, b)) - 1e-12)
            assert res.pvalue == pytest.approx(ref_p, abs=1e-12)
        else:
            assert res.pvalue == pytest.approx(ref.pvalue, abs=1e-12)


def test_unpaired_permutation_monte_carlo_and_batch_invariance():
    rng = np.random.default_rng(4)
    a, b = rng.uniform(size=12), rng.uniform(0.2, 1.0, size=10)
    exact = unp.unpaired_permutation_test(a, b, exact=True)
    mc = unp.unpaired_permutation_test(a, b, exact=False, n_resamples=4000, rng=9)
    se = math.sqrt(exact.pvalue * (1 - exact.pvalue) / 4000)
    assert abs(mc.pvalue - exact.pvalue) < 5 * se + 1 / 4001
    mc2 = unp.unpaired_permutation_test(a, b, exact=False, n_resamples=4000, batch=7, rng=9)
    assert mc2.pvalue == mc.pvalue


def test_unpaired_bootstrap_matches_scipy_within_mc_error():
    rng = np.random.default_rng(8)
    a, b = rng.uniform(size=40), rng.uniform(0.1, 1, size=30)
    # B = 20,000 each: the two Monte-Carlo endpoints differ by about 0.03 se (SD), so the
    # 0.1 se tolerance is more than 3 SD whatever the seeds
    res = unp.unpaired_bootstrap_ci(a, b, n_resamples=20000, method="percentile", rng=1)
    ref = stats.bootstrap((a, b), lambda x, y, axis=-1: x.mean(axis) - y.mean(axis),
                          method="percentile", n_resamples=20000, rng=np.random.default_rng(2))
    se = np.sqrt(a.var() / 40 + b.var() / 30)
    assert res.low == pytest.approx(ref.confidence_interval.low, abs=0.1 * se)
    assert res.high == pytest.approx(ref.confidence_interval.high, abs=0.1 * se)
    res2 = unp.unpaired_bootstrap_ci(a, b, n_resamples=20000, batch=13, method="percentile",
                                     rng=1)
    assert (res2.low, res2.high) == (res.low, res.high)
    basic = unp.unpaired_bootstrap_ci(a, b, n_resamples=20000, rng=1, method="basic")
    assert basic.low == pytest.approx(2 * res.difference - res.high)


def test_cli_estimate(capsys, tmp_path):
    import pandas as pd

    from mrrstats.cli import main

    path = tmp_path / "s.csv"
    pd.DataFrame({"A": X, "B": Y}, index=pd.Index([f"q{i}" for i in range(9)],
                                                  name="query")).to_csv(path)
    assert main(["estimate", "--scores", str(path), "--systems", "A", "B", "--margin", "0.5",
                 "--seed", "1", "--n-resamples", "200"]) == 0
    out = capsys.readouterr().out
    # the R ?wilcox.test values: (pseudo)median 0.46, interval [0.01, 0.786]
    assert "+0.4600  [+0.0100, +0.7860] (0.95, exact)" in out
    assert "TOST (t) margin 0.5" in out
    assert main(["estimate", "--scores", str(path)]) == 2
