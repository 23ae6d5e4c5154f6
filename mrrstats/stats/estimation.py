r"""Estimation beyond a p-value: shift estimates, equivalence, effect-size
intervals, and comparisons of systems evaluated on *different* query sets.

Paired (same queries, ``a[i]`` and ``b[i]`` measured on query ``i``):

* :func:`hodges_lehmann` -- the Hodges-Lehmann estimate of the paired shift
  with the Wilcoxon (Tukey/Walsh-average) confidence interval, as R's
  ``wilcox.test(a, b, paired=TRUE, conf.int=TRUE)``.
* :func:`equivalence_test` -- two one-sided tests (TOST) against a stated
  margin, by the paired t-test (as statsmodels' ``ttost_paired``) or by the
  paired randomization test.
* :func:`effect_size_intervals` -- :math:`d_z` with its exact interval from
  the noncentral t distribution and the probability of superiority with a
  bootstrap interval.

Unpaired (different query sets; the queries of ``a`` and ``b`` are not
matched, so nothing is differenced query by query):

* :func:`unpaired_ttest` -- Welch's t-test (as ``scipy.stats.ttest_ind(...,
  equal_var=False)``);
* :func:`unpaired_permutation_test` -- permutation of the group labels;
* :func:`unpaired_bootstrap_ci` -- each set resampled on its own.

Use the paired tests whenever the queries are the same: they remove the query
difficulty from the comparison and are far more powerful.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import optimize, stats

from ..model.scoretable import as_score_table
from ..validation import (
    alternative_iv,
    confidence_level_iv,
    int_iv,
    missing_iv,
    rng_iv,
    tolerance_iv,
)
from .bootstrap import bootstrap_ci
from .intervals import ConfidenceInterval
from .paired import paired_ttest
from .randomization import randomization_test
from .resampling import bootstrap_sums, enumerated_splits, label_permutations

__all__ = [
    "HodgesLehmannResult",
    "EquivalenceResult",
    "EffectSizeIntervals",
    "UnpairedResult",
    "hodges_lehmann",
    "equivalence_test",
    "effect_size_intervals",
    "unpaired_ttest",
    "unpaired_permutation_test",
    "unpaired_bootstrap_ci",
]


# --------------------------------------------------------------------------
# input
# --------------------------------------------------------------------------
def _paired_iv(a, b, missing, min_n=2):
    """Two aligned systems through the one coercion (as a 2 x n score table)."""
    missing = missing_iv(missing)
    try:
        a = np.asarray(a, dtype=float)
        b = np.asarray(b, dtype=float)
    except (TypeError, ValueError):
        raise TypeError("`a` and `b` must be 1-D arrays of numbers") from None
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError("`a` and `b` must be 1-D")
    if a.shape != b.shape:
        raise ValueError(f"`a` and `b` must have the same length (paired), got {a.size} "
                         f"and {b.size}; for different query sets use the unpaired_* functions")
    table = as_score_table(np.vstack([a, b]), missing=missing, min_queries=min_n, name="a, b")
    return table.values[:, 0].copy(), table.values[:, 1].copy()


def _sample_iv(x, name, min_n=2):
    try:
        x = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"`{name}` must be a 1-D array of numbers") from None
    if x.ndim != 1:
        raise ValueError(f"`{name}` must be 1-D")
    x = as_score_table(x[None, :], min_queries=min_n, name=name).values[:, 0].copy()
    return x


# --------------------------------------------------------------------------
# Hodges-Lehmann
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class HodgesLehmannResult:
    """Result of :func:`hodges_lehmann`.

    Attributes
    ----------
    estimate : float
        The Hodges-Lehmann estimate of the shift (R's ``(pseudo)median``).
    low, high : float
        The confidence limits (see ``confidence_level``).
    confidence_level : float
        The level achieved (R lowers it, with a warning, when the requested
        one is not attainable; so do we, without the warning).
    method : str
        ``"exact"`` or ``"normal"`` (R's choice: exact when ``n < 50`` with
        no ties and no zero differences).
    n : int
        Queries with a non-zero difference.
    statistic : float
        Wilcoxon's :math:`V` (sum of the ranks of the positive differences).
    alternative : str
    """

    estimate: float
    low: float
    high: float
    confidence_level: float
    method: str
    n: int
    statistic: float
    alternative: str

    def confidence_interval(self):
        """The interval as a :class:`~mrrstats.stats.intervals.ConfidenceInterval`."""
        return ConfidenceInterval(self.low, self.high, self.confidence_level,
                                  f"hodges-lehmann ({self.method})")


def _signrank_cdf_table(n):
    """P(V <= v) for v = 0..n(n+1)/2 under the null (counts by dynamic programming)."""
    m = n * (n + 1) // 2
    c = np.zeros(m + 1)
    c[0] = 1.0
    for k in range(1, n + 1):
        c[k:] = c[k:] + c[:-k].copy()
    return np.cumsum(c) / 2.0 ** n


def _qsignrank(p, cdf):
    """R's ``qsignrank``: the smallest v with P(V <= v) >= p (with R's fuzz)."""
    return int(np.searchsorted(cdf, p * (1 - 64 * np.finfo(float).eps), side="left"))


def _walsh(x):
    i, j = np.triu_indices(x.size)
    return np.sort((x[i] + x[j]) / 2.0)


def _w_normal(x, d, correct, alternative):
    """R's ``W(d)``: the standardised signed-rank statistic of ``x - d``."""
    xd = x - d
    xd = xd[xd != 0]
    nx = xd.size
    if nx == 0:
        return math.nan
    dr = stats.rankdata(np.abs(xd))
    zd = dr[xd > 0].sum() - nx * (nx + 1) / 4.0
    _, nties = np.unique(dr, return_counts=True)
    sigma = math.sqrt(nx * (nx + 1) * (2 * nx + 1) / 24.0 - (nties ** 3 - nties).sum() / 48.0)
    if sigma == 0:
        return math.nan
    corr = 0.0
    if correct:
        corr = {"two-sided": math.copysign(0.5, zd) if zd != 0 else 0.0,
                "greater": 0.5, "less": -0.5}[alternative]
    return (zd - corr) / sigma


def _w_root(x, zq, correct, alternative):
    """R's ``root(zq)``: ``uniroot(W(d) - zq, c(min(x), max(x)), tol = 1e-4)``.

    Solved with :func:`scipy.optimize.brentq`, the same Brent-Dekker
    ``zeroin`` algorithm as R's ``uniroot``, with R's tolerance.
    """
    lo, hi = float(x.min()), float(x.max())
    flo = _w_normal(x, lo, correct, alternative) - zq
    fhi = _w_normal(x, hi, correct, alternative) - zq
    if flo == 0:
        return lo
    if fhi == 0:
        return hi
    if np.sign(flo) == np.sign(fhi):
        return math.nan
    return float(optimize.brentq(lambda d: _w_normal(x, d, correct, alternative) - zq,
                                 lo, hi, xtol=1e-4))


def hodges_lehmann(a, b, *, confidence_level=0.95, alternative="two-sided", exact=None,
                   correct=True, missing="raise"):
    r"""Hodges-Lehmann estimate of the paired shift ``a - b`` with its interval.

    The estimate is the median of the Walsh averages :math:`(d_i + d_j)/2`,
    :math:`i \le j`, of the non-zero differences; the interval is the set of
    shifts :math:`\mu` that the Wilcoxon signed-rank test of :math:`d - \mu`
    does not reject. Equal to R's ``wilcox.test(a, b, paired = TRUE,
    conf.int = TRUE)`` (same defaults: exact when :math:`n < 50` without ties
    or zeros, otherwise the normal approximation with continuity correction).

    Parameters
    ----------
    a, b : array_like, 1-D
        Aligned per-query scores of two systems.
    confidence_level : float, keyword-only
    alternative : {"two-sided", "greater", "less"}, keyword-only
        One-sided intervals have an infinite bound.
    exact : bool or None, keyword-only
        ``None`` chooses as R does; an exact interval is only possible
        without ties and zeros (otherwise the normal approximation is used).
    correct : bool, keyword-only
        Continuity correction of the normal approximation (R's ``correct``).
    missing : {"raise", "drop"}, keyword-only

    Returns
    -------
    HodgesLehmannResult

    Notes
    -----
    Exact case (R's algorithm): with the sorted Walsh averages
    :math:`w_{(1)} \le \dots \le w_{(M)}`, :math:`M = n(n+1)/2`, and
    :math:`q = \text{qsignrank}(\alpha/2, n)` (at least 1), the interval is
    :math:`[w_{(q)}, w_{(M - q + 1)}]`; the achieved level is
    :math:`1 - 2 P(V \le q - 1)`. The null distribution of :math:`V` is
    computed by exact counting.

    Normal case: R inverts the standardised statistic :math:`W(\mu)` of
    :math:`d - \mu` (zeros dropped, tie-corrected variance, continuity
    correction) with ``uniroot(tol = 1e-4)`` on :math:`[\min d, \max d]`;
    this function does the same with :func:`scipy.optimize.brentq` (the same
    Brent-Dekker algorithm). :math:`W` jumps at Walsh averages, so the limits
    are Walsh averages up to that tolerance. The estimate is the root of
    :math:`W(\mu) = 0` without continuity correction. When the requested
    level is not attainable, R doubles :math:`\alpha` until it is; so does
    this function, and ``confidence_level`` reports the level achieved.

    References
    ----------
    .. [1] Hollander, M. and Wolfe, D. A. (1973). Nonparametric Statistical
           Methods, pp. 33-35. Wiley.
    .. [2] R Core Team. ``wilcox.test`` (src/library/stats/R/wilcox.test.R).

    Examples
    --------
    Data of R's ``?wilcox.test`` (Hollander & Wolfe 1973, p. 29):

    >>> import mrrstats
    >>> x = [1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30]
    >>> y = [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29]
    >>> hl = mrrstats.hodges_lehmann(x, y)
    >>> print(hl.method, round(hl.estimate, 4), round(hl.low, 4), round(hl.high, 4))
    exact 0.46 0.01 0.786
    """
    a, b = _paired_iv(a, b, missing, min_n=1)
    cl = confidence_level_iv(confidence_level)
    alternative = alternative_iv(alternative)
    if exact is not None and not isinstance(exact, bool):
        raise TypeError(f"`exact` must be True, False or None, got {exact!r}")
    d = a - b
    x = d[d != 0]
    n = x.size
    if n == 0:
        raise ValueError("`a` and `b` are equal on every query: no interval for the shift")
    r = stats.rankdata(np.abs(x))
    v = float(r[x > 0].sum())
    ties = np.unique(r).size != r.size
    zeros = n != d.size
    use_exact = (n < 50) if exact is None else exact
    walsh = _walsh(x)
    alpha = 1.0 - cl
    if use_exact and not ties and not zeros:
        cdf = _signrank_cdf_table(n)
        m = n * (n + 1) // 2
        tail = alpha / 2 if alternative == "two-sided" else alpha
        qu = max(_qsignrank(tail, cdf), 1)
        achieved = cdf[qu - 1] * (2 if alternative == "two-sided" else 1)
        lo_i, hi_i = qu - 1, m - qu  # 0-based: diffs[qu], diffs[ql + 1] with ql = m - qu
        low = walsh[lo_i] if alternative != "less" else -math.inf
        high = walsh[hi_i] if alternative != "greater" else math.inf
        level = cl if achieved - alpha <= alpha / 2 else 1 - float(f"{achieved:.2g}")
        return HodgesLehmannResult(float(np.median(walsh)), float(low), float(high), level,
                                   "exact", n, v, alternative)
    # normal approximation (R: the "asymptotic" branch)
    if math.isnan(_w_normal(x, x.min(), correct, alternative)):
        raise ValueError("cannot compute a confidence interval when all differences are tied")
    level = cl
    low, high = -math.inf, math.inf
    if alternative == "two-sided":
        wmin = _w_normal(x, x.min(), correct, alternative)
        wmax = _w_normal(x, x.max(), correct, alternative)
        while True:
            if (wmin - stats.norm.isf(alpha / 2) < 0
                    or wmax - stats.norm.ppf(alpha / 2) > 0) and alpha < 1:
                alpha *= 2
            else:
                break
        if alpha >= 1 or 1 - cl < alpha * 0.75:
            level = 1 - min(1.0, alpha)
        if alpha < 1:
            low = _w_root(x, stats.norm.isf(alpha / 2), correct, alternative)
            high = _w_root(x, stats.norm.ppf(alpha / 2), correct, alternative)
        else:
            low = high = float(np.median(x))
    elif alternative == "greater":
        low = _w_root(x, stats.norm.isf(alpha), correct, alternative)
    else:
        high = _w_root(x, stats.norm.ppf(alpha), correct, alternative)
    est = _w_root(x, 0.0, False, alternative)
    return HodgesLehmannResult(float(est), float(low), float(high), level, "normal", n, v,
                               alternative)


# --------------------------------------------------------------------------
# equivalence (TOST)
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class EquivalenceResult:
    """Result of :func:`equivalence_test`.

    Attributes
    ----------
    pvalue : float
        The TOST p-value, ``max(pvalue_lower, pvalue_upper)``: small values
        say the mean difference lies inside the margin.
    pvalue_lower, pvalue_upper : float
        One-sided p-values of :math:`H_0: \\mu \\le` ``low`` and
        :math:`H_0: \\mu \\ge` ``high``.
    statistic_lower, statistic_upper : float
        The t statistics (``test="t"``) or the shifted mean differences.
    difference : float
        Mean difference of ``a - b``.
    low, high : float
        The equivalence margin.
    test : str
    n : int
    """

    pvalue: float
    pvalue_lower: float
    pvalue_upper: float
    statistic_lower: float
    statistic_upper: float
    difference: float
    low: float
    high: float
    test: str
    n: int
    _se: float = field(default=math.nan, repr=False)

    def equivalent(self, alpha=0.05):
        """Whether equivalence is shown at level ``alpha``."""
        return bool(self.pvalue <= confidence_level_iv(alpha, "alpha"))

    def confidence_interval(self, alpha=0.05):
        """The :math:`1 - 2\\alpha` t interval: equivalence at ``alpha`` iff inside the margin.

        Only for ``test="t"``.
        """
        if self.test != "t":
            raise ValueError("the TOST interval is only defined here for test='t'")
        alpha = confidence_level_iv(alpha, "alpha")
        q = stats.t.isf(alpha, self.n - 1)
        return ConfidenceInterval(self.difference - q * self._se, self.difference + q * self._se,
                                  1 - 2 * alpha, "t")


def _margin_iv(margin):
    try:
        m = np.asarray(margin, dtype=float)
    except (TypeError, ValueError):
        raise TypeError("`margin` must be a number or a pair (low, high)") from None
    if m.ndim == 0:
        if not (m > 0 and np.isfinite(m)):
            raise ValueError(f"`margin` must be a positive finite number, got {margin!r}")
        return -float(m), float(m)
    if m.shape != (2,) or not np.all(np.isfinite(m)) or not m[0] < m[1]:
        raise ValueError(f"`margin` must be a number or a pair (low, high) with low < high, "
                         f"got {margin!r}")
    return float(m[0]), float(m[1])


def equivalence_test(a, b, *, margin, test="t", n_resamples=10000, missing="raise", rng=None):
    r"""Equivalence of two systems within a stated margin: two one-sided tests (TOST).

    Tests :math:`H_0: \mu \le \text{low}` or :math:`\mu \ge \text{high}`
    against :math:`H_1: \text{low} < \mu < \text{high}` for the mean paired
    difference :math:`\mu` of ``a - b``; the p-value is the larger of the two
    one-sided p-values (Schuirmann 1987).

    Parameters
    ----------
    a, b : array_like, 1-D
        Aligned per-query scores.
    margin : float or (float, float), keyword-only
        ``m`` for the symmetric margin ``(-m, m)``, or ``(low, high)``; in the
        units of the measure (e.g. 0.01 MRR).
    test : {"t", "randomization"}, keyword-only
        One-sided paired t-tests (equal to statsmodels'
        ``ttost_paired(a, b, low, high)``) or one-sided paired randomization
        tests of the shifted differences :math:`d - \text{low}` and
        :math:`d - \text{high}` (:func:`mrrstats.randomization_test`).
    n_resamples : int, keyword-only
        For ``test="randomization"``.
    missing : {"raise", "drop"}, keyword-only
    rng : None, int or numpy.random.Generator, keyword-only

    Returns
    -------
    EquivalenceResult

    References
    ----------
    .. [1] Schuirmann, D. J. (1987). A comparison of the two one-sided tests
           procedure and the power approach for assessing the equivalence of
           average bioavailability. J. Pharmacokinet. Biopharm. 15(6).

    Examples
    --------
    >>> import mrrstats
    >>> a = [0.50, 1.00, 0.33, 1.00, 0.25, 0.50, 1.00, 0.20]
    >>> b = [0.52, 0.98, 0.30, 1.00, 0.27, 0.49, 0.99, 0.22]
    >>> res = mrrstats.equivalence_test(a, b, margin=0.05)
    >>> print(res.equivalent(), round(res.pvalue, 5))
    True 0.0001
    """
    a, b = _paired_iv(a, b, missing)
    low, high = _margin_iv(margin)
    if test not in ("t", "randomization"):
        raise ValueError(f"`test` must be 't' or 'randomization', got {test!r}")
    d = a - b
    n = d.size
    diff = float(d.mean())
    if test == "t":
        lo = paired_ttest(a - low, b, alternative="greater")
        hi = paired_ttest(a - high, b, alternative="less")
        se = float(d.std(ddof=1) / math.sqrt(n))
        return EquivalenceResult(max(lo.pvalue, hi.pvalue), lo.pvalue, hi.pvalue,
                                 lo.statistic, hi.statistic, diff, low, high, "t", n, se)
    n_resamples = int_iv(n_resamples, "n_resamples")
    gen, _ = rng_iv(rng)
    lo = randomization_test(a - low, b, alternative="greater", n_resamples=n_resamples, rng=gen)
    hi = randomization_test(a - high, b, alternative="less", n_resamples=n_resamples, rng=gen)
    return EquivalenceResult(max(lo.pvalue, hi.pvalue), lo.pvalue, hi.pvalue, diff - low,
                             diff - high, diff, low, high, "randomization", n)


# --------------------------------------------------------------------------
# effect-size intervals
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class EffectSizeIntervals:
    """Result of :func:`effect_size_intervals`.

    Attributes
    ----------
    d_z : float
        :math:`\\bar d / s_d`.
    d_z_interval : ConfidenceInterval
        Exact interval by inverting the noncentral t distribution.
    prob_superiority : float
        :math:`(W + T/2)/n`.
    prob_superiority_interval : ConfidenceInterval
        Bootstrap interval (queries resampled; :func:`mrrstats.bootstrap_ci`
        of the per-query win indicator).
    n : int
    seed : int or None
    """

    d_z: float
    d_z_interval: ConfidenceInterval
    prob_superiority: float
    prob_superiority_interval: ConfidenceInterval
    n: int
    seed: int | None = None

    def to_frame(self):
        rows = [("d_z", self.d_z, *self.d_z_interval, self.d_z_interval.method),
                ("prob_superiority", self.prob_superiority, *self.prob_superiority_interval,
                 self.prob_superiority_interval.method)]
        return pd.DataFrame(rows, columns=["effect", "estimate", "low", "high", "method"])


def _nct_dz_interval(t_obs, n, cl):
    """Confidence limits for the noncentrality of a t statistic, divided by sqrt(n)."""
    df = n - 1
    alpha = 1 - cl

    def solve(target):
        f = lambda ncp: stats.nct.cdf(t_obs, df, ncp) - target  # noqa: E731
        # the noncentrality is about t_obs +- z * sqrt(1 + t_obs**2 / (2 df))
        w = math.sqrt(1.0 + t_obs * t_obs / (2.0 * df))
        lo, hi = t_obs - 4.0 * w, t_obs + 4.0 * w
        for _ in range(50):
            if f(lo) >= 0:
                break
            lo -= 4.0 * w
        for _ in range(50):
            if f(hi) <= 0:
                break
            hi += 4.0 * w
        return optimize.brentq(f, lo, hi, xtol=1e-12)

    return solve(1 - alpha / 2) / math.sqrt(n), solve(alpha / 2) / math.sqrt(n)


def effect_size_intervals(a, b, *, confidence_level=0.95, zero_tolerance=0.0,
                          n_resamples=10000, missing="raise", rng=None):
    r"""Confidence intervals for the paired effect sizes :math:`d_z` and the
    probability of superiority.

    Parameters
    ----------
    a, b : array_like, 1-D
        Aligned per-query scores.
    confidence_level : float, keyword-only
    zero_tolerance : float, keyword-only
        :math:`|d_i| \le` ``zero_tolerance`` counts as a tie (one half).
    n_resamples : int, keyword-only
        Bootstrap resamples for the probability of superiority.
    missing : {"raise", "drop"}, keyword-only
    rng : None, int or numpy.random.Generator, keyword-only

    Returns
    -------
    EffectSizeIntervals

    Notes
    -----
    :math:`t = \sqrt n\, d_z` follows a noncentral t distribution with
    :math:`n - 1` degrees of freedom and noncentrality :math:`\sqrt n\,
    \delta_z` (normal differences). The limits are the noncentralities
    :math:`\lambda` with :math:`F_{t; n-1, \lambda}(t) = 1 - \alpha/2` and
    :math:`\alpha/2`, divided by :math:`\sqrt n` (Steiger & Fouladi 1997;
    the method of MBESS ``ci.sm``). The probability of superiority is the
    mean of :math:`s_i = 1[d_i > \tau] + \tfrac12 1[|d_i| \le \tau]`; its
    interval is the BCa bootstrap interval of that mean.

    References
    ----------
    .. [1] Steiger, J. H. and Fouladi, R. T. (1997). Noncentrality interval
           estimation and the evaluation of statistical models. In What if
           there were no significance tests?, 221-257.
    .. [2] Efron, B. and Tibshirani, R. (1993). An Introduction to the
           Bootstrap, 14.3.

    Examples
    --------
    >>> import mrrstats
    >>> a = [1, 0.5, 1, 1, 0.33, 1, 0.5, 1, 0.25, 1]
    >>> b = [0.5, 0.5, 1, 0.25, 0.33, 0.5, 0.2, 1, 0.25, 0.5]
    >>> es = mrrstats.effect_size_intervals(a, b, rng=1)
    >>> low, high = es.d_z_interval
    >>> print(round(es.d_z, 3), round(low, 3), round(high, 3))
    0.882 0.127 1.604
    """
    a, b = _paired_iv(a, b, missing)
    cl = confidence_level_iv(confidence_level)

    tol = tolerance_iv(zero_tolerance)
    n_resamples = int_iv(n_resamples, "n_resamples")
    gen, seed = rng_iv(rng)
    d = a - b
    n = d.size
    sd = d.std(ddof=1)
    if not sd > 0:
        raise ValueError("the differences `a - b` have no variance: d_z is not finite")
    dz = float(d.mean() / sd)
    low, high = _nct_dz_interval(dz * math.sqrt(n), n, cl)
    s = (d > tol) + 0.5 * (np.abs(d) <= tol)
    boot = bootstrap_ci(s, confidence_level=cl, n_resamples=n_resamples, rng=gen)
    ps_ci = boot.confidence_interval()
    return EffectSizeIntervals(dz, ConfidenceInterval(low, high, cl, "noncentral t"),
                               float(s.mean()),
                               ConfidenceInterval(ps_ci.low, ps_ci.high, cl, "bootstrap bca"),
                               n, seed)


# --------------------------------------------------------------------------
# unpaired comparisons (different query sets)
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class UnpairedResult:
    """Result of the ``unpaired_*`` functions (systems on different query sets).

    Attributes
    ----------
    difference : float
        ``mean(a) - mean(b)``.
    statistic : float
        Welch's t (``unpaired_ttest``) or the difference of means.
    pvalue : float
        NaN for :func:`unpaired_bootstrap_ci`.
    low, high : float
        Confidence interval for the difference of means.
    confidence_level : float
    method : str
    df : float
        Welch-Satterthwaite degrees of freedom (NaN otherwise).
    n_a, n_b : int
    n_resamples : int
        0 for the t-test; the number of permutations enumerated when exact.
    seed : int or None
    """

    difference: float
    statistic: float
    pvalue: float
    low: float
    high: float
    confidence_level: float
    method: str
    df: float
    n_a: int
    n_b: int
    n_resamples: int = 0
    seed: int | None = None

    def confidence_interval(self):
        return ConfidenceInterval(self.low, self.high, self.confidence_level, self.method)


def unpaired_ttest(a, b, *, alternative="two-sided", confidence_level=0.95):
    r"""Welch's t-test for two systems evaluated on different query sets.

    Parameters
    ----------
    a, b : array_like, 1-D
        Per-query scores of each system on its own queries (lengths may differ).
    alternative : {"two-sided", "less", "greater"}, keyword-only
    confidence_level : float, keyword-only

    Returns
    -------
    UnpairedResult
        Equal to ``scipy.stats.ttest_ind(a, b, equal_var=False)`` and its
        ``confidence_interval``.

    Examples
    --------
    >>> import mrrstats
    >>> res = mrrstats.unpaired_ttest([1, 0.5, 1, 0.33, 1], [0.5, 0.25, 0.2, 1, 0.33, 0.5])
    >>> print(round(res.statistic, 4), round(res.pvalue, 4))
    1.6094 0.1453
    """
    a = _sample_iv(a, "a")
    b = _sample_iv(b, "b")
    alternative = alternative_iv(alternative)
    cl = confidence_level_iv(confidence_level)
    r = stats.ttest_ind(a, b, equal_var=False, alternative=alternative)
    ci = r.confidence_interval(confidence_level=cl)
    return UnpairedResult(float(a.mean() - b.mean()), float(r.statistic), float(r.pvalue),
                          float(ci.low), float(ci.high), cl, "welch t", float(r.df),
                          a.size, b.size)


def unpaired_permutation_test(a, b, *, alternative="two-sided", n_resamples=10000,
                              exact=None, batch=None, rng=None):
    r"""Permutation test of the difference of means for different query sets.

    Under the null hypothesis the two sets of per-query scores come from the
    same distribution, so the labels "a" and "b" are exchangeable.

    Parameters
    ----------
    a, b : array_like, 1-D
    alternative : {"two-sided", "less", "greater"}, keyword-only
        ``"two-sided"`` compares :math:`|\bar a - \bar b|`.
    n_resamples : int, keyword-only
    exact : bool or None, keyword-only
        Enumerate all :math:`\binom{n_a + n_b}{n_a}` splits; ``None``: when
        that is at most ``n_resamples``.
    batch : int or None, keyword-only
        Permutations held in memory at once (does not change the result).
    rng : None, int or numpy.random.Generator, keyword-only

    Returns
    -------
    UnpairedResult
        ``pvalue``: exact, or Monte Carlo :math:`(c + 1)/(B + 1)` with a
        relative tolerance for floating-point ties as in
        :func:`scipy.stats.permutation_test`; no interval (``low``, ``high``
        are NaN).

    Examples
    --------
    >>> import mrrstats
    >>> res = mrrstats.unpaired_permutation_test([1, 0.5, 1, 0.33, 1], [0.5, 0.25, 0.2, 1])
    >>> print(res.method, res.n_resamples, round(res.pvalue, 4))
    exact 126 0.3016
    """
    a = _sample_iv(a, "a", 1)
    b = _sample_iv(b, "b", 1)
    alternative = alternative_iv(alternative)
    n_resamples = int_iv(n_resamples, "n_resamples")
    batch = int_iv(batch, "batch", allow_none=True) or 4096
    if exact is not None and not isinstance(exact, bool):
        raise TypeError(f"`exact` must be True, False or None, got {exact!r}")
    gen, seed = rng_iv(rng)
    x = np.concatenate([a, b])
    na, n = a.size, a.size + b.size
    total = x.sum()
    obs = a.mean() - b.mean()
    n_splits = math.comb(n, na)
    use_exact = n_splits <= n_resamples if exact is None else exact

    def stat_from_sums(sa):
        return sa / na - (total - sa) / (n - na)

    eps = 1e-14 * max(1.0, abs(obs))
    ge = le = absge = 0
    if use_exact:
        t = stat_from_sums(x[enumerated_splits(n, na)].sum(axis=1))
        ge, le = np.sum(t >= obs - eps), np.sum(t <= obs + eps)
        absge = np.sum(np.abs(t) >= abs(obs) - eps)
        denom, add = n_splits, 0
    else:
        done = 0
        while done < n_resamples:
            r = min(batch, n_resamples - done)
            perm = label_permutations(gen, r, n)  # the same stream for any batch size
            t = stat_from_sums(x[perm[:, :na]].sum(axis=1))
            ge += np.sum(t >= obs - eps)
            le += np.sum(t <= obs + eps)
            absge += np.sum(np.abs(t) >= abs(obs) - eps)
            done += r
        denom, add = n_resamples + 1, 1
    count = {"greater": ge, "less": le, "two-sided": absge}[alternative]
    p = min(1.0, (count + add) / denom)
    return UnpairedResult(float(obs), float(obs), float(p), math.nan, math.nan, math.nan,
                          "exact" if use_exact else "monte carlo", math.nan, na, n - na,
                          n_splits if use_exact else n_resamples, seed)


def unpaired_bootstrap_ci(a, b, *, confidence_level=0.95, method="percentile",
                          n_resamples=10000, batch=None, rng=None):
    r"""Bootstrap interval for ``mean(a) - mean(b)`` on different query sets.

    Each set of queries is resampled with replacement on its own (the
    two-sample bootstrap, Efron & Tibshirani 1993, 8.3); the interval is the
    percentile or basic interval of the resampled differences.

    Parameters
    ----------
    a, b : array_like, 1-D
    confidence_level : float, keyword-only
    method : {"percentile", "basic"}, keyword-only
    n_resamples : int, keyword-only
    batch : int or None, keyword-only
        Resamples held in memory at once (does not change the result).
    rng : None, int or numpy.random.Generator, keyword-only

    Returns
    -------
    UnpairedResult
        With ``pvalue`` NaN.

    Examples
    --------
    >>> import mrrstats
    >>> res = mrrstats.unpaired_bootstrap_ci([1, 0.5, 1, 0.33, 1], [0.5, 0.25, 0.2, 1], rng=1)
    >>> print(round(res.difference, 4), res.low < res.difference < res.high)
    0.2785 True
    """
    a = _sample_iv(a, "a", 1)
    b = _sample_iv(b, "b", 1)
    cl = confidence_level_iv(confidence_level)
    if method not in ("percentile", "basic"):
        raise ValueError(f"`method` must be 'percentile' or 'basic', got {method!r}")
    n_resamples = int_iv(n_resamples, "n_resamples")
    batch = int_iv(batch, "batch", allow_none=True)
    gen, seed = rng_iv(rng)
    # the one engine: each query set resampled on its own (a's resamples, then b's)
    dist = (bootstrap_sums(a[None, :], n_resamples, batch, gen)[0] / a.size
            - bootstrap_sums(b[None, :], n_resamples, batch, gen)[0] / b.size)
    obs = float(a.mean() - b.mean())
    alpha = 1 - cl
    ql, qh = np.quantile(dist, [alpha / 2, 1 - alpha / 2])
    if method == "basic":
        ql, qh = 2 * obs - qh, 2 * obs - ql
    return UnpairedResult(obs, obs, math.nan, float(ql), float(qh), cl, f"bootstrap {method}",
                          math.nan, a.size, b.size, n_resamples, seed)
