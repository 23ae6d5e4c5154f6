"""Tail-accurate studentized range survival function."""

import math
import warnings
from math import comb

import numpy as np
import pytest
from scipy import integrate, stats

import mrrstats
from mrrstats.io.trec import read_score_matrix
from mrrstats.stats.studentized_range import _log_range_sf_direct, studentized_range_sf
from tests.reference_data import data_path


def _scipy_sf(q, k, df):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return stats.studentized_range.sf(q, k, df)


# ---------------------------------------------------------------------------
# independent references
# ---------------------------------------------------------------------------
def _outer_quad_reference(q, k, nu):
    """sf by adaptive Gauss-Kronrod (scipy.integrate.quad) over s itself, with
    scipy's chi log-density and the direct (non-interpolated) inner integral:
    independent of the module's log-s trapezoid grid, spline and normalising
    constant. Scaled by the integrand's maximum to stay in range."""
    def logf(s):
        s = np.atleast_1d(s)
        w = q * s
        # Direct inner integral; beyond w = 60 (where it underflows) the
        # Bonferroni limit, relatively exact to k exp(-w^2/12) < 1e-120.
        logr = np.full_like(w, -np.inf)
        small = w <= 60
        logr[small] = _log_range_sf_direct(w[small], k)
        logr[~small] = math.log(k * (k - 1.0)) + stats.norm.logsf(w[~small] / math.sqrt(2))
        return stats.chi.logpdf(s * math.sqrt(nu), nu) + 0.5 * math.log(nu) + logr

    grid = np.exp(np.linspace(-12, 1.5, 4001))
    lg = logf(grid)
    i = int(np.argmax(lg))
    m, peak = lg[i], grid[i]
    sd = peak / math.sqrt(2 * nu)
    pts = sorted(p for p in (peak - 10 * sd, peak - 3 * sd, peak, peak + 3 * sd,
                             peak + 10 * sd) if p > 0)
    val, err = integrate.quad(lambda s: math.exp(logf(s)[0] - m), 0, grid[-1], points=pts,
                              epsabs=0, epsrel=1e-11, limit=400)
    assert err < 1e-9 * val
    return math.log(val) + m


def _bonferroni_bracket(q, k, nu):
    """S1 - S2 <= P(Q > q) <= S1 (Bonferroni inequalities for the union of
    the C(k,2) events |X_i - X_j| > q s), with s averaged out exactly:
    E[Phi_c(c q s)] = t_nu.sf(c q).  S1 = C(k,2) 2 t.sf(q/sqrt2).  S2 bounds
    the sum over pairs of events: sharing an index (k C(k-1,2) of them; the
    differences have correlation 1/2, so P <= 2 Phi_c(2w/sqrt6) + 2 Phi_c(sqrt2 w)
    via Y1 +- Y2) and disjoint (C(k,2) C(k-2,2)/2; P = 4 Phi_c(w/sqrt2)^2
    <= 4 Phi_c(w))."""
    tsf = (lambda x: stats.norm.sf(x)) if math.isinf(nu) else (lambda x: stats.t.sf(x, nu))
    s1 = comb(k, 2) * 2 * tsf(q / math.sqrt(2))
    s2 = (k * comb(k - 1, 2) * (2 * tsf(2 * q / math.sqrt(6)) + 2 * tsf(math.sqrt(2) * q))
          + comb(k, 2) * comb(k - 2, 2) / 2 * 4 * tsf(q))
    return s1 - s2, s1


# ---------------------------------------------------------------------------
# against scipy where scipy is accurate
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("k, df", [(2, 5), (3, 10), (4, 20), (10, 1), (12, 539), (30, 2.5),
                                   (110, 27032), (50, np.inf), (5, 0.7)])
def test_against_scipy_where_accurate(k, df):
    q = np.linspace(0.1, 9.0, 25)
    ref = _scipy_sf(q, k, df)
    ok = ref > 1e-3  # scipy's 1 - cdf has ~1e-11 absolute error
    assert ok.sum() >= 3
    np.testing.assert_allclose(studentized_range_sf(q[ok], k, df), ref[ok], rtol=1e-6)


@pytest.mark.parametrize("df", [1, 3, 30, 1000, 1e6, np.inf])
def test_k2_is_exactly_twice_t_sf(df):
    # Range of 2 normals = |X1 - X2| ~ sqrt2 |Z|: P(Q_2 > q) = 2 t_df.sf(q / sqrt2).
    q = np.array([0.01, 0.5, 2, 5, 10, 30, 45, 60, 100, 1e3, 1e5])
    ref = 2 * (stats.norm.sf(q / math.sqrt(2)) if np.isinf(df)
               else stats.t.sf(q / math.sqrt(2), df))
    ok = ref > 1e-300
    np.testing.assert_allclose(studentized_range_sf(q[ok], 2, df), ref[ok], rtol=1e-6)


# ---------------------------------------------------------------------------
# far tail: mpmath, independent quadrature, Bonferroni bracket
# ---------------------------------------------------------------------------
def _mp_log_range_sf(w, k):
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 30
    w = mp.mpf(w)

    def f(z):
        a, c = mp.ncdf(-z), mp.ncdf(-(z + w))
        return mp.npdf(z) * a ** (k - 1) * -mp.expm1((k - 1) * mp.log1p(-c / a))

    m = -w / 2
    return float(mp.log(k * mp.quad(f, [m + d for d in (-14, -6, -3, -1, 0, 1, 3, 6, 14)])))


@pytest.mark.parametrize("w, k", [(0.5, 3), (2.0, 10), (5.0, 110), (12.0, 4), (20.0, 5),
                                  (33.3, 50), (39.0, 110), (45.0, 110), (52.0, 7)])
def test_range_sf_against_mpmath(w, k):
    # df = inf: the sf is the range distribution itself (spline below w = 40,
    # Bonferroni limit above). mpmath tanh-sinh at 30 digits, same integrand.
    # (An mpmath double integral for finite df agrees too, e.g. q=40, k=20,
    # df=1000: 1.65914250147e-127 vs 1.6591424959e-127, but takes minutes.)
    ref = _mp_log_range_sf(w, k)
    got = studentized_range_sf(w, k, np.inf)
    assert got > 0
    assert math.log(got) == pytest.approx(ref, abs=1e-7)


@pytest.mark.parametrize("q, k, df", [(12, 10, 30), (40, 20, 1000), (30, 110, 27032),
                                      (23, 103, 4998), (8, 110, 5), (300, 6, 3),
                                      (1e6, 5, 40), (50, 110, 1e5), (6, 3, 1.5)])
def test_far_tail_against_independent_quadrature(q, k, df):
    ref = _outer_quad_reference(q, k, df)
    got = studentized_range_sf(q, k, df)
    assert 0 < got and ref > math.log(1e-300)
    assert math.log(got) == pytest.approx(ref, abs=1e-7)


@pytest.mark.parametrize("k, df", [(3, 100), (10, 500), (110, 27032), (103, 4998),
                                   (20, np.inf)])
def test_far_tail_bonferroni_bracket(k, df):
    # The far-tail limit C(k,2) 2 t.sf(q/sqrt2, df) is an upper bound, and the
    # second Bonferroni term bounds the gap: S1 - S2 <= P <= S1. Where S2/S1 <
    # 1e-3 this pins the ratio P/S1 within 1e-3 of 1 (its limit as q grows
    # when df is large; for small df the gap tends to O(k (3/4)^(df/2))).
    q = np.linspace(15, 60, 19)
    got = studentized_range_sf(q, k, df)
    n_tight = 0
    for qi, p in zip(q, got, strict=True):
        lo, hi = _bonferroni_bracket(qi, k, df)
        if hi < 1e-300:
            continue
        assert lo * (1 - 1e-7) <= p <= hi * (1 + 1e-7)
        if lo > 0 and (hi - lo) / hi < 1e-3:
            assert abs(p / hi - 1) < 1e-3
            n_tight += 1
    assert n_tight >= 3


def test_monotone_and_limits():
    q = np.concatenate([[0, 1e-8], np.linspace(0.01, 80, 1000), [1e3, 1e10]])
    for k, df in [(2, 1), (5, 10), (110, 27032), (40, np.inf)]:
        p = studentized_range_sf(q, k, df)
        assert p[0] == 1.0 and np.all((p >= 0) & (p <= 1))
        # Non-increasing up to rounding (the spline of log R wiggles at ~1e-16
        # where R is 1 to machine precision), strictly decreasing in [1e-300, 0.99].
        assert np.all(np.diff(p) <= 1e-14)
        pos = p[(p > 1e-300) & (p < 0.99)]
        assert pos.size > 100 and np.all(np.diff(np.log(pos)) < 0)
    assert studentized_range_sf(np.inf, 4, 10) == 0.0
    assert studentized_range_sf(-1.0, 4, 10) == 1.0
    assert np.isnan(studentized_range_sf(np.nan, 4, 10))
    out = studentized_range_sf(np.full((2, 3), 4.0), 5, 12)
    assert out.shape == (2, 3) and np.all(out == out[0, 0])


@pytest.mark.parametrize("k, df, match", [(1, 5, "`k`"), (2.5, 5, "`k`"), ("3", 5, "`k`"),
                                          (3, 0, "`df`"), (3, -1, "`df`"), (3, "x", "`df`"),
                                          (3, np.nan, "`df`")])
def test_bad_arguments(k, df, match):
    with pytest.raises((TypeError, ValueError), match=match):
        studentized_range_sf(3.0, k, df)


# ---------------------------------------------------------------------------
# anova_tukey_hsd on real data (103 TREC-7 ad hoc systems, 5,253 pairs)
# ---------------------------------------------------------------------------
def test_anova_tukey_hsd_real_data_far_tail():
    X = read_score_matrix(data_path("score_matrices", "trec_adhoc", "adhoc7_ap.csv"))
    n, k = X.shape
    res = mrrstats.anova_tukey_hsd(X)
    df = (n - 1) * (k - 1)
    q, p = np.asarray(res.statistic), np.asarray(res.pvalue_adjusted)
    assert k == 103 and p.size == comb(k, 2) and p.min() < 1e-40
    # 40 pairs (scipy takes ~40 ms a value) against scipy where it is accurate.
    ok = np.flatnonzero(p > 1e-3)
    ok = ok[np.linspace(0, ok.size - 1, 40).round().astype(int)]
    np.testing.assert_allclose(p[ok], _scipy_sf(q[ok], k, df), rtol=1e-6)
    # Pairs spread over the whole range of q (down to ~1e-55) against the
    # independent quadrature.
    idx = np.argsort(q)[np.linspace(0, q.size - 1, 12).round().astype(int)]
    for i in idx:
        if q[i] > 0:
            assert math.log(p[i]) == pytest.approx(_outer_quad_reference(q[i], k, df),
                                                   abs=1e-6)


@pytest.mark.parametrize("k", [3, 110, 500])
def test_range_spline_against_direct_midpoints(k):
    # The cached cubic spline of log R_k(w) (step 0.02) against the direct
    # quadrature halfway between its knots, where interpolation error peaks
    # (measured: below 2e-9 for k <= 500).
    from mrrstats.stats.studentized_range import _log_range_sf
    w = np.arange(0.01, 40.0, 0.02)
    np.testing.assert_allclose(_log_range_sf(w, k), _log_range_sf_direct(w, k), rtol=0,
                               atol=1e-8)
