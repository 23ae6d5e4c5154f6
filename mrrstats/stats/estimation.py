r"""Estimation beyond a p-value: the Hodges-Lehmann shift, equivalence, effect-size
intervals.

For two systems on the same queries (``a[i]`` and ``b[i]`` measured on query ``i``):

* :func:`hodges_lehmann` -- the Hodges-Lehmann estimate of the paired shift
  with the Wilcoxon (Tukey/Walsh-average) confidence interval, as R's
  ``wilcox.test(a, b, paired=TRUE, conf.int=TRUE)``
  (:func:`hodges_lehmann_interval` is also the interval of
  :class:`~mrrstats.WilcoxonResult`).
* :func:`equivalence_test` -- two one-sided tests (TOST) against a stated
  margin, by the paired t-test (as statsmodels' ``ttost_paired``) or by the
  paired randomization test.
* :func:`effect_size_intervals` -- :math:`d_z` with its exact interval from
  the noncentral t distribution and the probability of superiority with a
  bootstrap interval.

Systems evaluated on different query sets: :mod:`mrrstats.stats.unpaired`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import pandas as pd
from scipy import optimize, stats

from ..deprecation import renamed_attribute, renamed_parameters, renamed_value, warn_deprecated
from ..errors import ParameterError, ParameterTypeError
from ..model.scoretable import as_score_table
from ..validation import (
    alternative_iv,
    array_iv,
    choice_iv,
    confidence_level_iv,
    missing_iv,
    n_resamples_iv,
    rng_iv,
    tolerance_iv,
    workers_iv,
)
from .bootstrap import BootstrapCIResult, bootstrap_ci
from .intervals import ConfidenceInterval, level_iv
from .methods import MethodsText
from .methods_readers import methods_text  # registers the reader of EffectSizeIntervals
from .randomization import randomization_test
from .rows import ttest_rows

if TYPE_CHECKING:
    from typing import Literal

    from numpy.typing import ArrayLike

    from .._typing import Alternative, Missing, Seed

__all__ = [
    "HodgesLehmannResult",
    "EquivalenceResult",
    "EffectSizeIntervals",
    "hodges_lehmann",
    "hodges_lehmann_interval",
    "equivalence_test",
    "effect_size_intervals",
]

#: ``method`` of the Wilcoxon settings: retired spellings of the normal approximation (scipy
#: < 1.9 called it "approx"; the Hodges-Lehmann result of mrrstats 0.1 "normal")
WILCOXON_METHOD_RENAMES = {"approx": "asymptotic", "normal": "asymptotic"}


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
        raise ParameterTypeError("`a` and `b` must be 1-D arrays of numbers") from None
    if a.ndim != 1 or b.ndim != 1:
        raise ParameterError("`a` and `b` must be 1-D")
    if a.shape != b.shape:
        raise ParameterError(f"`a` and `b` must have the same length (paired), got {a.size} "
                         f"and {b.size}; for different query sets use the unpaired_* functions")
    table = as_score_table(np.vstack([a, b]), missing=missing, min_queries=min_n, name="a, b")
    return table.values[:, 0].copy(), table.values[:, 1].copy()


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
        ``"exact"`` or ``"asymptotic"`` (the normal approximation; R's choice:
        exact when ``n_nonzero < 50`` with no ties and no zero differences).
    n_nonzero : int
        Queries with a non-zero difference.
    statistic : float
        Wilcoxon's :math:`V` (sum of the ranks of the positive differences).
    alternative : str
    n_queries : int
        Queries used (zeros included).
    continuity : bool
        Whether the normal approximation is continuity-corrected.

    Methods
    -------
    confidence_interval(confidence_level=None)
        The interval, recomputed at another level when one is given.
    to_frame()
        One row: the estimate, the interval (``ci_low``, ``ci_high``) and the settings.
    """

    estimate: float
    low: float
    high: float
    confidence_level: float
    method: str
    n_nonzero: int
    statistic: float
    alternative: str
    n_queries: int = 0
    continuity: bool = True
    _differences: np.ndarray | None = field(default=None, repr=False, compare=False)
    _requested: float | None = field(default=None, repr=False, compare=False)

    n = renamed_attribute("n_nonzero")

    def methods(self) -> MethodsText:
        """The methods paragraph and its references (:mod:`mrrstats.stats.methods`)."""
        return methods_text(self)

    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """The interval as a :class:`~mrrstats.stats.intervals.ConfidenceInterval`.

        ``confidence_level`` (default: the level asked of :func:`hodges_lehmann`)
        recomputes the interval with the same method and continuity setting; the
        level achieved is the interval's ``confidence_level``.
        """
        cl = level_iv(confidence_level, self._requested or self.confidence_level)
        if self._differences is None or cl == (self._requested or self.confidence_level):
            return ConfidenceInterval(self.low, self.high, self.confidence_level,
                                      f"hodges-lehmann ({self.method})")
        hl = hodges_lehmann_interval(self._differences, cl, self.alternative, self.method,
                                     self.continuity)
        return ConfidenceInterval(hl.low, hl.high, hl.level, f"hodges-lehmann ({hl.method})")

    def to_frame(self) -> pd.DataFrame:
        """One row: ``estimate``, ``ci_low``, ``ci_high``, ``confidence_level``, the rest."""
        return pd.DataFrame([{"estimate": self.estimate, "ci_low": self.low,
                              "ci_high": self.high, "confidence_level": self.confidence_level,
                              "method": self.method, "statistic": self.statistic,
                              "n_queries": self.n_queries, "n_nonzero": self.n_nonzero,
                              "continuity": self.continuity, "alternative": self.alternative}])


class HodgesLehmannInterval(NamedTuple):
    """What :func:`hodges_lehmann_interval` computes."""

    estimate: float
    low: float
    high: float
    level: float
    method: str
    n_nonzero: int
    statistic: float


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


def _w_normal(x, d, continuity, alternative):
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
    if continuity:
        corr = {"two-sided": math.copysign(0.5, zd) if zd != 0 else 0.0,
                "greater": 0.5, "less": -0.5}[alternative]
    return (zd - corr) / sigma


def _w_root(x, zq, continuity, alternative):
    """R's ``root(zq)``: ``uniroot(W(d) - zq, c(min(x), max(x)), tol = 1e-4)``.

    Solved with :func:`scipy.optimize.brentq`, the same Brent-Dekker
    ``zeroin`` algorithm as R's ``uniroot``, with R's tolerance.
    """
    lo, hi = float(x.min()), float(x.max())
    flo = _w_normal(x, lo, continuity, alternative) - zq
    fhi = _w_normal(x, hi, continuity, alternative) - zq
    if flo == 0:
        return lo
    if fhi == 0:
        return hi
    if np.sign(flo) == np.sign(fhi):
        return math.nan
    return float(optimize.brentq(lambda d: _w_normal(x, d, continuity, alternative) - zq,
                                 lo, hi, xtol=1e-4))


def hodges_lehmann_interval(d, confidence_level, alternative, method, continuity):
    """The Hodges-Lehmann estimate and interval of the differences ``d`` (validated).

    ``method``: ``"auto"`` (R's choice), ``"exact"`` or ``"asymptotic"``. See
    :func:`hodges_lehmann` for the algorithm; this is its computation, shared with
    :meth:`mrrstats.WilcoxonResult.confidence_interval`.
    """
    x = d[d != 0]
    n = x.size
    if n == 0:
        raise ParameterError("`a` and `b` are equal on every query: no interval for the shift")
    r = stats.rankdata(np.abs(x))
    v = float(r[x > 0].sum())
    ties = np.unique(r).size != r.size
    zeros = n != d.size
    use_exact = (n < 50) if method == "auto" else method == "exact"
    if use_exact and not ties and not zeros:
        low, high, level = _hl_exact(x, confidence_level, alternative)
        return HodgesLehmannInterval(float(np.median(_walsh(x))), low, high, level, "exact",
                                     n, v)
    low, high, level = _hl_asymptotic(x, confidence_level, alternative, continuity)
    est = _w_root(x, 0.0, False, alternative)
    return HodgesLehmannInterval(float(est), float(low), float(high), level, "asymptotic", n, v)


def _hl_exact(x, cl, alternative):
    """R's exact interval: order statistics of the Walsh averages (``qsignrank``)."""
    n = x.size
    walsh = _walsh(x)
    alpha = 1.0 - cl
    cdf = _signrank_cdf_table(n)
    m = n * (n + 1) // 2
    tail = alpha / 2 if alternative == "two-sided" else alpha
    qu = max(_qsignrank(tail, cdf), 1)
    achieved = cdf[qu - 1] * (2 if alternative == "two-sided" else 1)
    lo_i, hi_i = qu - 1, m - qu  # 0-based: diffs[qu], diffs[ql + 1] with ql = m - qu
    low = walsh[lo_i] if alternative != "less" else -math.inf
    high = walsh[hi_i] if alternative != "greater" else math.inf
    level = cl if achieved - alpha <= alpha / 2 else 1 - float(f"{achieved:.2g}")
    return float(low), float(high), level


def _hl_asymptotic(x, cl, alternative, continuity):
    """R's asymptotic interval: the roots of the standardised statistic ``W(d)``."""
    if math.isnan(_w_normal(x, x.min(), continuity, alternative)):
        raise ParameterError("cannot compute a confidence interval when all differences are tied")
    alpha = 1.0 - cl
    level = cl
    low, high = -math.inf, math.inf
    if alternative == "two-sided":
        wmin = _w_normal(x, x.min(), continuity, alternative)
        wmax = _w_normal(x, x.max(), continuity, alternative)
        while True:
            if (wmin - stats.norm.isf(alpha / 2) < 0
                    or wmax - stats.norm.ppf(alpha / 2) > 0) and alpha < 1:
                alpha *= 2
            else:
                break
        if alpha >= 1 or 1 - cl < alpha * 0.75:
            level = 1 - min(1.0, alpha)
        if alpha < 1:
            low = _w_root(x, stats.norm.isf(alpha / 2), continuity, alternative)
            high = _w_root(x, stats.norm.ppf(alpha / 2), continuity, alternative)
        else:
            low = high = float(np.median(x))
    elif alternative == "greater":
        low = _w_root(x, stats.norm.isf(alpha), continuity, alternative)
    else:
        high = _w_root(x, stats.norm.ppf(alpha), continuity, alternative)
    return low, high, level


def _exact_to_method(method):
    """``exact=None/True/False`` of 0.1 (renamed to ``method``) as a method name."""
    if method is None or isinstance(method, bool | np.bool_):
        return {None: "auto", True: "exact", False: "asymptotic"}[None if method is None
                                                                  else bool(method)]
    return method


@renamed_parameters(correct="continuity", exact="method")
def hodges_lehmann(a: ArrayLike, b: ArrayLike, *, confidence_level: float = 0.95,
                   alternative: Alternative = "two-sided",
                   method: Literal["auto", "exact", "asymptotic"] = "auto",
                   continuity: bool = True, missing: Missing = "raise") -> HodgesLehmannResult:
    r"""Hodges-Lehmann estimate of the paired shift ``a - b`` with its interval.

    The estimate is the median of the Walsh averages :math:`(d_i + d_j)/2`,
    :math:`i \le j`, of the non-zero differences; the interval is the set of
    shifts :math:`\mu` that the Wilcoxon signed-rank test of :math:`d - \mu`
    does not reject. Equal to R's ``wilcox.test(a, b, paired = TRUE,
    conf.int = TRUE)`` (same defaults: exact when :math:`n < 50` without ties
    or zeros, otherwise the normal approximation with continuity correction):
    to rounding (1e-12) in the exact case. In the normal case each limit
    solves the same equation as R's to R's tolerance (``uniroot(tol = 1e-4)``);
    on tied data the equation holds on a whole interval of shifts and R's
    ``uniroot`` and :func:`scipy.optimize.brentq` can return different points
    of it (2.6e-4 apart on real TREC RR differences), so the limits agree with
    R's to within that interval's width, not to rounding.

    Parameters
    ----------
    a, b : array_like, 1-D
        Aligned per-query scores of two systems.
    confidence_level : float, keyword-only
    alternative : {"two-sided", "greater", "less"}, keyword-only
        One-sided intervals have an infinite bound.
    method : {"auto", "exact", "asymptotic"}, keyword-only
        ``"auto"`` chooses as R does (exact for fewer than 50 non-zero
        differences without ties); an exact interval is only possible without
        ties and zeros (otherwise the normal approximation, ``"asymptotic"``,
        is used). The same names as :func:`mrrstats.wilcoxon_test`'s ``method``
        (replaces ``exact=None/True/False``).
    continuity : bool, keyword-only
        Continuity correction of the normal approximation (R's ``correct``;
        :func:`mrrstats.wilcoxon_test`'s ``continuity``).
    missing : {"raise", "drop"}, keyword-only

    Returns
    -------
    HodgesLehmannResult
        ``confidence_interval(confidence_level=...)`` recomputes the interval
        at another level.

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
    >>> low, high = hl.confidence_interval(confidence_level=0.9)
    >>> print(round(low, 4), round(high, 4))
    0.175 0.7
    """
    a, b = _paired_iv(a, b, missing, min_n=1)
    cl = confidence_level_iv(confidence_level)
    alternative = alternative_iv(alternative)
    method = renamed_value(_exact_to_method(method), WILCOXON_METHOD_RENAMES, "method")
    if not isinstance(method, str) or method not in ("auto", "exact", "asymptotic"):
        raise ParameterError(f"`method` must be 'auto', 'exact' or 'asymptotic', got {method!r}")
    if not isinstance(continuity, bool | np.bool_):
        raise ParameterTypeError(f"`continuity` must be True or False, got {continuity!r}")
    d = a - b
    d.flags.writeable = False
    hl = hodges_lehmann_interval(d, cl, alternative, method, bool(continuity))
    return HodgesLehmannResult(hl.estimate, hl.low, hl.high, hl.level, hl.method,
                               hl.n_nonzero, hl.statistic, alternative, int(d.size),
                               bool(continuity), d, cl)


# --------------------------------------------------------------------------
# equivalence (TOST)
# --------------------------------------------------------------------------
class _MarginEnd(renamed_attribute):
    """``EquivalenceResult.low`` / ``.high`` of 0.1: an end of the margin."""

    def __init__(self, index):
        super().__init__("margin")
        self.index = index

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        warn_deprecated(f"{type(obj).__name__}.{self.old}", f".margin[{self.index}]")
        return obj.margin[self.index]


@dataclass(frozen=True)
class EquivalenceResult:
    """Result of :func:`equivalence_test`.

    Attributes
    ----------
    pvalue : float
        The TOST p-value, ``max(pvalue_lower, pvalue_upper)``: small values
        say the mean difference lies inside the margin.
    pvalue_lower, pvalue_upper : float
        One-sided p-values of :math:`H_0: \\mu \\le` ``margin[0]`` and
        :math:`H_0: \\mu \\ge` ``margin[1]``.
    statistic_lower, statistic_upper : float
        The t statistics (``test="t"``) or the shifted mean differences.
    difference : float
        Mean difference of ``a - b``.
    margin : tuple of float
        The equivalence margin ``(low, high)``.
    test : str
    n_queries : int
    n_resamples : int
        Sign vectors of each one-sided randomization test (0 for ``test="t"``).
    seed : int or None
        The seed of the randomization tests (None for ``test="t"``, or when a
        Generator was passed).
    statistic : float
        The statistic of the one-sided test with the larger p-value (the one
        that decides).

    Methods
    -------
    equivalent(alpha=0.05)
        Whether equivalence is shown at ``alpha``.
    confidence_interval(confidence_level=0.90)
        The interval that lies inside the margin exactly when equivalence is
        shown at :math:`\\alpha = (1 - \\text{level}) / 2`.
    to_frame()
        One row.
    """

    pvalue: float
    pvalue_lower: float
    pvalue_upper: float
    statistic_lower: float
    statistic_upper: float
    difference: float
    margin: tuple
    test: str
    n_queries: int
    n_resamples: int = 0
    seed: int | None = None
    _se: float = field(default=math.nan, repr=False)
    _tests: tuple | None = field(default=None, repr=False, compare=False)

    low = _MarginEnd(0)
    high = _MarginEnd(1)
    n = renamed_attribute("n_queries")

    def methods(self) -> MethodsText:
        """The methods paragraph and its references (:mod:`mrrstats.stats.methods`)."""
        return methods_text(self)

    @property
    def statistic(self) -> float:
        """The statistic of the deciding one-sided test (the larger p-value)."""
        return (self.statistic_lower if self.pvalue_lower >= self.pvalue_upper
                else self.statistic_upper)

    def equivalent(self, alpha: float = 0.05) -> bool:
        """Whether equivalence is shown at level ``alpha``."""
        return bool(self.pvalue <= confidence_level_iv(alpha, "alpha"))

    def confidence_interval(self, confidence_level: float = 0.90) -> ConfidenceInterval:
        r"""The :math:`1 - 2\alpha` interval of the mean difference (TOST's interval).

        Equivalence at :math:`\alpha = (1 - \text{level})/2` is shown exactly
        when the interval lies inside the margin (0.90: :math:`\alpha = 0.05`).
        ``test="t"``: the paired t interval. ``test="randomization"``: each end
        inverts its one-sided sign-flip test, with the same sign vectors
        (:meth:`mrrstats.RandomizationTestResult.confidence_interval` at level
        :math:`1 - \alpha`).

        A value below 0.5 is read as the ``alpha`` of 0.1 (``confidence_interval(0.05)``
        meant ``alpha=0.05``), with a MrrstatsDeprecationWarning.
        """
        if confidence_level is not None:
            confidence_level_iv(confidence_level)
        if confidence_level is not None and 0 < confidence_level < 0.5:
            warn_deprecated("EquivalenceResult.confidence_interval(alpha)",
                            "confidence_level=1 - 2 * alpha", form="form")
            confidence_level = 1 - 2 * confidence_level
        cl = confidence_level_iv(confidence_level)
        one_sided = (1 + cl) / 2
        if self.test == "t":
            q = stats.t.ppf(one_sided, self.n_queries - 1)
            return ConfidenceInterval(self.difference - q * self._se,
                                      self.difference + q * self._se, cl, "t")
        if self._tests is None:
            raise ParameterError("this result carries no randomization tests to invert")
        lower, upper = self._tests
        low = lower.confidence_interval(one_sided).low + self.margin[0]
        high = upper.confidence_interval(one_sided).high + self.margin[1]
        return ConfidenceInterval(low, high, cl, "sign-flip inversion")

    def to_frame(self) -> pd.DataFrame:
        """One row: ``test``, ``statistic``, ``pvalue`` and the one-sided parts, ``difference``,
        ``margin_low``, ``margin_high``, the 0.90 interval, ``equivalent`` (at 0.05)."""
        ci = self.confidence_interval()
        return pd.DataFrame([{"test": self.test, "statistic": self.statistic,
                              "pvalue": self.pvalue, "pvalue_lower": self.pvalue_lower,
                              "pvalue_upper": self.pvalue_upper,
                              "statistic_lower": self.statistic_lower,
                              "statistic_upper": self.statistic_upper,
                              "difference": self.difference, "margin_low": self.margin[0],
                              "margin_high": self.margin[1], "ci_low": ci.low,
                              "ci_high": ci.high, "confidence_level": ci.confidence_level,
                              "equivalent": self.equivalent(), "n_queries": self.n_queries,
                              "n_resamples": self.n_resamples, "seed": self.seed}])


def _margin_iv(margin):
    m = array_iv(margin, "margin", ndim=(0, 1), finite=False)
    if m.ndim == 0:
        if not (m > 0 and np.isfinite(m)):
            raise ParameterError(f"`margin` must be a positive finite number, got {margin!r}")
        return -float(m), float(m)
    if m.shape != (2,) or not np.all(np.isfinite(m)) or not m[0] < m[1]:
        raise ParameterError(f"`margin` must be a number or a pair (low, high) with low < high, "
                         f"got {margin!r}")
    return float(m[0]), float(m[1])


def equivalence_test(a: ArrayLike, b: ArrayLike, *, margin: float | tuple[float, float],
                     test: Literal["t", "randomization"] = "t", n_resamples: int = 10000,
                     missing: Missing = "raise", workers: int = -1,
                     rng: Seed = None) -> EquivalenceResult:
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
        ``ttost_paired(a, b, low, high)`` to a relative 1e-10) or one-sided paired randomization
        tests of the shifted differences :math:`d - \text{low}` and
        :math:`d - \text{high}` (:func:`mrrstats.randomization_test`).
    n_resamples : int, keyword-only
        For ``test="randomization"``.
    missing : {"raise", "drop"}, keyword-only
    workers : int, keyword-only
        Threads of the sign-flip kernel (``test="randomization"``; -1: all
        cores); the result never depends on it.
    rng : None, int or numpy.random.Generator, keyword-only
        For ``test="randomization"``; the integer seed used is recorded in
        the result (``seed``).

    Returns
    -------
    EquivalenceResult
        ``confidence_interval()`` gives the :math:`1 - 2\alpha` interval
        (0.90 for :math:`\alpha = 0.05`): equivalence is shown at
        :math:`\alpha` exactly when it lies inside the margin.

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
    choice_iv(test, "test", ("t", "randomization"))
    n_resamples = n_resamples_iv(n_resamples)
    workers = workers_iv(workers)
    gen, seed = rng_iv(rng)
    d = a - b
    n = d.size
    diff = float(d.mean())
    if test == "t":
        D = np.vstack([d - low, d - high])
        t_lo, p_lo, _, _ = ttest_rows(D[:1], "greater")
        t_hi, p_hi, _, _ = ttest_rows(D[1:], "less")
        p_lo, p_hi = float(p_lo[0]), float(p_hi[0])
        se = float(d.std(ddof=1) / math.sqrt(n))
        return EquivalenceResult(max(p_lo, p_hi), p_lo, p_hi, float(t_lo[0]), float(t_hi[0]),
                                 diff, (low, high), "t", n, 0, None, se)
    lo = randomization_test(a - low, b, alternative="greater", n_resamples=n_resamples,
                            workers=workers, rng=gen)
    hi = randomization_test(a - high, b, alternative="less", n_resamples=n_resamples,
                            workers=workers, rng=gen)
    return EquivalenceResult(max(lo.pvalue, hi.pvalue), lo.pvalue, hi.pvalue, diff - low,
                             diff - high, diff, (low, high), "randomization", n,
                             lo.n_resamples, seed, _tests=(lo, hi))


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
        BCa bootstrap interval (queries resampled; :func:`mrrstats.bootstrap_ci`
        of the per-query win indicator).
    n_queries : int
    seed : int or None
    confidence_level : float
    n_resamples : int
        Bootstrap resamples of the probability of superiority.
    atol : float
        A difference :math:`|d_i| \\le` ``atol`` is a tie.

    Methods
    -------
    confidence_interval(confidence_level=None, *, effect="d_z")
        The interval of one effect (``"d_z"`` or ``"prob_superiority"``), at
        another level when given (the bootstrap interval from the same resamples).
    to_frame()
        One row per effect: ``effect``, ``estimate``, ``ci_low``, ``ci_high``,
        ``confidence_level``, ``method``.
    """

    d_z: float
    d_z_interval: ConfidenceInterval
    prob_superiority: float
    prob_superiority_interval: ConfidenceInterval
    n_queries: int
    seed: int | None = None
    confidence_level: float = 0.95
    n_resamples: int = 0
    atol: float = 0.0
    _bootstrap: BootstrapCIResult | None = field(default=None, repr=False, compare=False)

    def methods(self) -> MethodsText:
        """The methods paragraph and its references (:mod:`mrrstats.stats.methods`)."""
        return methods_text(self)

    n = renamed_attribute("n_queries")

    def confidence_interval(self, confidence_level: float | None = None, *,
                            effect: Literal["d_z", "prob_superiority"] = "d_z"
                            ) -> ConfidenceInterval:
        """The interval of ``effect`` (``"d_z"`` or ``"prob_superiority"``)."""
        if not isinstance(effect, str) or effect not in ("d_z", "prob_superiority"):
            raise ParameterError(f"`effect` must be 'd_z' or 'prob_superiority', got {effect!r}")
        cl = level_iv(confidence_level, self.confidence_level)
        if cl == self.confidence_level:
            return getattr(self, f"{effect}_interval")
        if effect == "d_z":
            n = self.n_queries
            low, high = _nct_dz_interval(self.d_z * math.sqrt(n), n, cl)
            return ConfidenceInterval(low, high, cl, "noncentral t")
        ci = self._bootstrap.confidence_interval(cl)  # type: ignore[union-attr]  # set by effect_size_intervals
        return ConfidenceInterval(ci.low, ci.high, cl, "bootstrap bca")

    def to_frame(self) -> pd.DataFrame:
        rows = [(name, getattr(self, name), *getattr(self, f"{name}_interval"),
                 self.confidence_level, getattr(self, f"{name}_interval").method)
                for name in ("d_z", "prob_superiority")]
        out = pd.DataFrame(rows, columns=["effect", "estimate", "ci_low", "ci_high",
                                          "confidence_level", "method"])
        out.attrs.update(n_queries=self.n_queries, seed=self.seed,
                         n_resamples=self.n_resamples)
        return out


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


@renamed_parameters(zero_tolerance="atol")
def effect_size_intervals(a: ArrayLike, b: ArrayLike, *, confidence_level: float = 0.95,
                          atol: float = 0.0, n_resamples: int = 10000, missing: Missing = "raise",
                          workers: int = -1, rng: Seed = None) -> EffectSizeIntervals:
    r"""Confidence intervals for the paired effect sizes :math:`d_z` and the
    probability of superiority.

    Parameters
    ----------
    a, b : array_like, 1-D
        Aligned per-query scores.
    confidence_level : float, keyword-only
    atol : float, keyword-only
        :math:`|d_i| \le` ``atol`` counts as a tie (one half).
    n_resamples : int, keyword-only
        Bootstrap resamples for the probability of superiority.
    missing : {"raise", "drop"}, keyword-only
    workers : int, keyword-only
        Threads of the bootstrap kernel (-1: all cores); the result never
        depends on it.
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
    tol = tolerance_iv(atol, "atol")
    n_resamples = n_resamples_iv(n_resamples)
    workers = workers_iv(workers)
    gen, seed = rng_iv(rng)
    d = a - b
    n = d.size
    sd = d.std(ddof=1)
    if not sd > 0:
        raise ParameterError("the differences `a - b` have no variance: d_z is not finite")
    dz = float(d.mean() / sd)
    low, high = _nct_dz_interval(dz * math.sqrt(n), n, cl)
    s = (d > tol) + 0.5 * (np.abs(d) <= tol)
    boot = bootstrap_ci(s, method="bca", confidence_level=cl, n_resamples=n_resamples,
                        workers=workers, rng=gen)
    ps_ci = boot.confidence_interval()
    return EffectSizeIntervals(dz, ConfidenceInterval(low, high, cl, "noncentral t"),
                               float(s.mean()),
                               ConfidenceInterval(ps_ci.low, ps_ci.high, cl, "bootstrap bca"),
                               n, seed, cl, n_resamples, tol, boot)
