r"""The classical paired tests of two systems: Student's t, Wilcoxon, sign.

Every function takes two aligned arrays ``a`` and ``b`` of per-query scores
(one value per query, same query order) and tests the per-query differences
:math:`d_i = a_i - b_i`. Missing values are an error unless ``missing="drop"``
is passed, which drops every query where either system has no value.

* :func:`paired_ttest` -- Student's paired t-test (:func:`scipy.stats.ttest_rel`).
* :func:`wilcoxon_test` -- Wilcoxon signed-rank test (:func:`scipy.stats.wilcoxon`,
  with a preset that reproduces R's ``wilcox.test``).
* :func:`sign_test` -- exact binomial sign test with a tie tolerance.

The resampling tests are in :mod:`mrrstats.stats.randomization` and
:mod:`mrrstats.stats.bootstrap`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import stats

from ..deprecation import renamed_attribute, renamed_parameters, renamed_value, warn_deprecated
from ..errors import ParameterError, ParameterTypeError
from ..validation import alternative_iv, confidence_level_iv, tolerance_iv
from .estimation import WILCOXON_METHOD_RENAMES, hodges_lehmann_interval
from .intervals import ConfidenceInterval, t_interval
from .methods import MethodsText, methods_text
from .pairs import pair_iv
from .rows import ttest_rows, win_tie_loss

if TYPE_CHECKING:
    from typing import Literal

    from numpy.typing import ArrayLike

    from .._typing import Alternative, Missing

__all__ = ["TTestResult", "WilcoxonResult", "SignTestResult", "paired_ttest",
           "wilcoxon_test", "sign_test"]


@dataclass(frozen=True)
class TTestResult:
    """Result of :func:`paired_ttest`.

    Attributes
    ----------
    statistic : float
        :math:`t = \\bar d / (s_d / \\sqrt n)`.
    pvalue : float
    df : float
        Degrees of freedom, ``n - 1``.
    difference : float
        :math:`\\bar d`, the mean of ``a - b``.
    standard_error : float
        :math:`s_d / \\sqrt n`.
    n_queries : int
        Number of queries used.
    alternative : str

    Methods
    -------
    confidence_interval(confidence_level=0.95)
        The Student-t interval for the mean difference.
    to_frame()
        One row: the attributes and the 95% interval (``ci_low``, ``ci_high``).
    """

    statistic: float
    pvalue: float
    df: float
    difference: float
    standard_error: float
    n_queries: int
    alternative: str

    mean_difference = renamed_attribute("difference")
    std_error = renamed_attribute("standard_error")
    n = renamed_attribute("n_queries")

    def methods(self) -> MethodsText:
        """The methods paragraph and its references (:mod:`mrrstats.stats.methods`)."""
        return methods_text(self)

    def confidence_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        """Student-t interval for the mean difference (one-sided for one-sided tests)."""
        cl = confidence_level_iv(confidence_level)
        low, high = t_interval(self.difference, self.standard_error, self.df,
                               self.alternative, cl)
        return ConfidenceInterval(float(low), float(high), cl, "t")

    def to_frame(self) -> pd.DataFrame:
        """One row: ``test``, the attributes, ``ci_low``, ``ci_high``, ``confidence_level``."""
        ci = self.confidence_interval()
        return pd.DataFrame([{"test": "t", "statistic": self.statistic, "pvalue": self.pvalue,
                              "df": self.df, "difference": self.difference,
                              "standard_error": self.standard_error, "ci_low": ci.low,
                              "ci_high": ci.high, "confidence_level": ci.confidence_level,
                              "n_queries": self.n_queries, "alternative": self.alternative}])


def paired_ttest(a: ArrayLike, b: ArrayLike, *, alternative: Alternative = "two-sided",
                 missing: Missing = "raise") -> TTestResult:
    r"""Paired Student t-test on the per-query differences ``a - b``.

    Parameters
    ----------
    a, b : array_like, 1-D
        Per-query scores of two systems on the same queries, in the same order.
    alternative : {"two-sided", "less", "greater"}, keyword-only
        ``"greater"``: the mean of ``a`` exceeds the mean of ``b``.
    missing : {"raise", "drop"}, keyword-only
        NaN in either array is an error (default) or drops that query.

    Returns
    -------
    TTestResult
        ``statistic``, ``pvalue``, ``df``, ``difference``, ``standard_error``,
        and ``confidence_interval(confidence_level=0.95)``.

    Notes
    -----
    With :math:`d_i = a_i - b_i`, :math:`\bar d` and :math:`s_d` the mean and
    standard deviation (``ddof=1``) of the :math:`n` differences,

    .. math:: t = \frac{\bar d}{s_d/\sqrt n}, \qquad
              \bar d \pm t_{1-\alpha/2,\,n-1}\, s_d/\sqrt n.

    This is :func:`scipy.stats.ttest_rel`, except that differences without any
    variance give ``t = 0, p = 1`` when all are zero and ``t = \pm\infty``
    (``p = 0`` in the direction of the shift) otherwise, instead of NaN.

    Examples
    --------
    >>> import mrrstats
    >>> a = [1.0, 0.5, 1.0, 0.25, 1.0, 0.5]
    >>> b = [0.5, 0.5, 0.2, 0.25, 0.5, 0.333]
    >>> res = mrrstats.paired_ttest(a, b)
    >>> print(round(res.statistic, 3), round(res.pvalue, 4))
    2.483 0.0556
    >>> low, high = res.confidence_interval()
    >>> print(round(low, 3), round(high, 3))
    -0.012 0.667
    """
    a, b = _paired_ttest_iv(a, b, alternative, missing)
    t, p, mean, se = ttest_rows((a - b)[None, :], alternative)
    return TTestResult(float(t[0]), float(p[0]), float(a.size - 1), float(mean[0]),
                       float(se[0]), int(a.size), alternative)


def _paired_ttest_iv(a, b, alternative, missing):
    alternative_iv(alternative)
    return pair_iv(a, b, missing, min_n=2)


class _RankedCount(renamed_attribute):
    """``WilcoxonResult.n`` of 0.1: the differences ranked (``n_nonzero`` when zeros are
    dropped, ``n_queries`` under ``zero_method="pratt"``/``"zsplit"``)."""

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        new = "n_nonzero" if obj.zero_method == "wilcox" else "n_queries"
        warn_deprecated(f"{type(obj).__name__}.n", f".{new}")
        return getattr(obj, new)


@dataclass(frozen=True)
class WilcoxonResult:
    """Result of :func:`wilcoxon_test`.

    Attributes
    ----------
    statistic : float
        :math:`V = W^+`, the sum of the ranks of the positive differences
        ``a - b`` (R's ``V``; scipy's two-sided ``statistic`` is
        ``min(W+, W-)`` instead).
    pvalue : float
    zscore : float
        Normal deviate (after the continuity correction) when the normal
        approximation was used, else NaN.
    n_queries : int
        Number of queries used.
    n_nonzero : int
        Number of non-zero differences (those ranked under ``zero_method="wilcox"``).
    n_zero : int
        Number of zero differences.
    has_ties : bool
        Whether tied absolute differences occurred.
    method : str
        The method actually used: ``"exact"``, ``"asymptotic"`` or ``"permutation"``.
    zero_method, continuity, alternative
        The settings used.

    Methods
    -------
    confidence_interval(confidence_level=0.95)
        The Hodges-Lehmann interval of the shift (the inversion of the signed-rank
        test, :func:`mrrstats.hodges_lehmann`).
    to_frame()
        One row: the attributes and the 95% interval.
    """

    statistic: float
    pvalue: float
    zscore: float
    n_queries: int
    n_nonzero: int
    n_zero: int
    has_ties: bool
    method: str
    zero_method: str
    continuity: bool
    alternative: str
    _differences: np.ndarray | None = field(default=None, repr=False, compare=False)

    zstatistic = renamed_attribute("zscore")
    correction = renamed_attribute("continuity")
    n = _RankedCount("n_nonzero")

    def methods(self) -> MethodsText:
        """The methods paragraph and its references (:mod:`mrrstats.stats.methods`)."""
        return methods_text(self)

    def confidence_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        r"""The Hodges-Lehmann interval for the shift :math:`\mu` of ``a - b``.

        The shifts that the signed-rank test of :math:`d - \mu` (zeros
        dropped, as R) does not reject, with this test's continuity setting:
        exact when the test was exact, otherwise the normal approximation
        (:func:`mrrstats.hodges_lehmann`, R's ``wilcox.test(conf.int = TRUE)``).
        The level achieved can be lower than asked when it is not attainable
        (``confidence_level`` of the interval). ``(nan, nan)`` when every
        difference is zero.
        """
        cl = confidence_level_iv(confidence_level)
        d = self._differences
        if d is None or not np.any(d != 0):
            return ConfidenceInterval(math.nan, math.nan, cl, "hodges-lehmann")
        method = "exact" if self.method == "exact" else "asymptotic"
        hl = hodges_lehmann_interval(d, cl, self.alternative, method, self.continuity)
        return ConfidenceInterval(hl.low, hl.high, hl.level, f"hodges-lehmann ({hl.method})")

    def to_frame(self) -> pd.DataFrame:
        """One row: ``test``, the attributes, ``ci_low``, ``ci_high``, ``confidence_level``."""
        ci = self.confidence_interval()
        return pd.DataFrame([{"test": "wilcoxon", "statistic": self.statistic,
                              "pvalue": self.pvalue, "zscore": self.zscore,
                              "ci_low": ci.low, "ci_high": ci.high,
                              "confidence_level": ci.confidence_level,
                              "n_queries": self.n_queries, "n_nonzero": self.n_nonzero,
                              "n_zero": self.n_zero, "has_ties": self.has_ties,
                              "method": self.method, "zero_method": self.zero_method,
                              "continuity": self.continuity, "alternative": self.alternative}])


@renamed_parameters(correction="continuity")
def wilcoxon_test(a: ArrayLike, b: ArrayLike, *, alternative: Alternative = "two-sided",
                  method: Literal["auto", "exact", "asymptotic", "R"] = "auto",
                  zero_method: Literal["wilcox", "pratt", "zsplit"] = "wilcox",
                  continuity: bool | None = None, missing: Missing = "raise") -> WilcoxonResult:
    r"""Wilcoxon signed-rank test on the per-query differences ``a - b``.

    Parameters
    ----------
    a, b : array_like, 1-D
        Aligned per-query scores.
    alternative : {"two-sided", "less", "greater"}, keyword-only
    method : {"auto", "exact", "asymptotic", "R"}, keyword-only
        ``"auto"`` (default): the exact null distribution up to
        ``WILCOXON_EXACT_MAX`` (50) differences, with tied and zero
        differences too (the sign-flip distribution of the average ranks,
        counted exactly; scipy's ``"auto"`` is exact there only for
        :math:`n \le 13`), the normal approximation above. ``"exact"`` and
        ``"asymptotic"`` (the normal approximation; ``"approx"`` is its
        retired spelling) are passed to :func:`scipy.stats.wilcoxon`
        unchanged. ``"R"`` reproduces R's ``wilcox.test(a, b, paired =
        TRUE)`` default (see Notes).
    zero_method : {"wilcox", "pratt", "zsplit"}, keyword-only
        Treatment of zero differences (scipy's options). ``"wilcox"`` drops them.
    continuity : bool or None, keyword-only
        Continuity correction of the normal approximation (scipy's and R's
        ``correction``/``correct``; ``correction=`` in mrrstats means a
        multiple-testing correction). ``None`` means scipy's default
        ``False``, or ``True`` for ``method="R"``.
    missing : {"raise", "drop"}, keyword-only

    Returns
    -------
    WilcoxonResult

    Notes
    -----
    **Reproducing R.** R's ``wilcox.test(x, y, paired = TRUE)`` with its
    defaults (``exact = NULL, correct = TRUE``) drops zero differences, and
    with :math:`n` the number of remaining differences uses the exact null
    distribution of :math:`V` when :math:`n < 50` and there are neither ties
    nor zeros; otherwise the normal approximation with the tie-corrected
    variance and a continuity correction of 0.5 towards the mean. The
    equivalent scipy call, which ``method="R"`` makes, is::

        scipy.stats.wilcoxon(a, b, zero_method="wilcox", correction=True,
                             method="exact" if n_nonzero < 50 and no ties
                                    and no zeros else "asymptotic")

    scipy's own ``method="auto"`` differs: it counts zeros in :math:`n`
    (switching to the normal approximation only above 50), runs a permutation
    test for :math:`n \le 13` with ties or zeros (and the normal approximation
    from 14 on, where mrrstats' ``"auto"`` stays exact), and does not apply the
    continuity correction by default.

    The normal approximation uses

    .. math:: z = \frac{V - n(n+1)/4 - c}{\sqrt{n(n+1)(2n+1)/24 - \sum_j (t_j^3 - t_j)/48}}

    with :math:`t_j` the sizes of groups of tied :math:`|d_i|` and
    :math:`c = 0.5\,\mathrm{sign}(V - n(n+1)/4)` (two-sided) when corrected.

    Examples
    --------
    >>> import mrrstats
    >>> a = [0.9, 0.8, 0.75, 0.6, 0.95, 0.7, 0.85, 0.4]
    >>> b = [0.5, 0.81, 0.3, 0.45, 0.6, 0.2, 0.55, 0.35]
    >>> res = mrrstats.wilcoxon_test(a, b, method="R")
    >>> print(res.statistic, round(res.pvalue, 4), res.method)
    35.0 0.0156 exact
    """
    a, b, method, continuity = _wilcoxon_test_iv(a, b, alternative, method, zero_method,
                                                 continuity, missing)
    d = a - b
    nz = d != 0
    n_zero = int(d.size - nz.sum())
    absd = np.abs(d[nz]) if zero_method == "wilcox" else np.abs(d)
    _, counts = np.unique(absd, return_counts=True)
    has_ties = bool((counts > 1).any())
    if method == "R":
        n_nonzero = int(nz.sum())
        method = ("exact" if (n_nonzero < 50 and not has_ties and n_zero == 0)
                  else "asymptotic")
    d.flags.writeable = False
    counts_ = (d.size, int(nz.sum()), n_zero)
    if nz.sum() == 0 and zero_method == "wilcox":
        # Nothing to rank: no evidence either way.
        return WilcoxonResult(0.0, 1.0, math.nan, *counts_, False,
                              method if method != "auto" else "exact", zero_method,
                              continuity, alternative, d)
    # W+ (R's V) for the chosen zero treatment.
    if zero_method == "wilcox":
        dd = d[nz]
        ranks = stats.rankdata(np.abs(dd))
        w_plus = float(ranks[dd > 0].sum())
    else:
        ranks = stats.rankdata(np.abs(d))
        w_plus = float(ranks[d > 0].sum())
        if zero_method == "zsplit":
            w_plus += float(ranks[d == 0].sum()) / 2.0
    used = method
    if method == "auto":
        if d.size > WILCOXON_EXACT_MAX:
            used = "asymptotic"
        else:  # exact, ties and zeros included (scipy: a normal approximation from 14 on)
            used = "exact"
    if used == "exact" and method == "auto" and (has_ties or n_zero > 0):
        pvalue = _wilcoxon_exact_tied(d, zero_method, alternative)
    else:
        res = stats.wilcoxon(a, b, zero_method=zero_method, correction=continuity,
                             alternative=alternative, method=method)
        pvalue = float(res.pvalue)
    z = getattr(res, "zstatistic", math.nan) if used == "asymptotic" else math.nan
    if used == "asymptotic" and not np.isfinite(z):
        z = math.nan
    if used == "asymptotic" and math.isnan(z):
        # scipy only reports z for method="asymptotic"; recompute it for "auto".
        z = _wilcoxon_z(d, zero_method, continuity, alternative)
    return WilcoxonResult(w_plus, pvalue, float(z) if used == "asymptotic"
                          else math.nan, *counts_, has_ties, used, zero_method,
                          continuity, alternative, d)


#: ``wilcoxon_test(method="auto")`` is exact up to this many differences (scipy's
#: switch to the normal approximation), with ties and zeros too.
WILCOXON_EXACT_MAX = 50


def _wilcoxon_exact_tied(d, zero_method, alternative) -> float:
    r"""Exact p-value of the signed-rank statistic with tied or zero differences.

    Under the null each non-zero difference keeps or flips its sign with
    probability 1/2 independently, so :math:`W^+ = c + \sum_i r_i B_i` (the
    ranks :math:`r_i` of the non-zero :math:`|d_i|`, average ranks for ties;
    ``c`` the zeros' share under ``"zsplit"``). Doubled average ranks are
    integers, so the distribution is the convolution of the :math:`2^m` sign
    patterns counted exactly (counts below :math:`2^{53}`): the permutation
    distribution scipy enumerates for :math:`n \le 13`, for every :math:`n`.
    Two-sided: twice the smaller tail (the distribution is symmetric), at most 1.
    """
    if zero_method == "wilcox":
        ranks = stats.rankdata(np.abs(d[d != 0]))
        signs = d[d != 0] > 0
    else:
        ranks_all = stats.rankdata(np.abs(d))
        ranks, signs = ranks_all[d != 0], d[d != 0] > 0
    r2 = np.rint(2 * ranks).astype(np.int64)
    counts = np.zeros(int(r2.sum()) + 1, dtype=np.float64)
    counts[0] = 1.0
    top = 0
    for r in r2:  # add r with probability 1/2: counts(w) + counts(w - r)
        counts[r:top + r + 1] += counts[:top + 1].copy()
        top += r
    total = float(2 ** r2.size)
    w2 = int(r2[signs].sum())  # 2 W+ without the constant
    upper = counts[w2:].sum() / total
    lower = counts[:w2 + 1].sum() / total
    if alternative == "greater":
        return float(min(1.0, upper))
    if alternative == "less":
        return float(min(1.0, lower))
    return float(min(1.0, 2.0 * min(upper, lower)))


def _wilcoxon_z(d, zero_method, continuity, alternative):
    if zero_method == "wilcox":
        d = d[d != 0]
    n = d.size
    r = stats.rankdata(np.abs(d))
    w_plus = r[d > 0].sum()
    if zero_method == "zsplit":
        w_plus += r[d == 0].sum() / 2.0
    mn = n * (n + 1) / 4.0
    var = n * (n + 1) * (2 * n + 1)
    if zero_method == "pratt":
        nz0 = int((d == 0).sum())
        mn -= nz0 * (nz0 + 1) / 4.0
        var -= nz0 * (nz0 + 1) * (2 * nz0 + 1)
        _, t = np.unique(np.abs(d[d != 0]), return_counts=True)
    else:
        _, t = np.unique(np.abs(d), return_counts=True)
    se = math.sqrt((var - float(np.sum(t.astype(float) ** 3 - t)) / 2.0) / 24.0)
    z = (w_plus - mn) / se
    if continuity:
        sgn = {"greater": 1.0, "less": -1.0}.get(alternative, float(np.sign(z)))
        z -= sgn * 0.5 / se
    return z


def _wilcoxon_test_iv(a, b, alternative, method, zero_method, continuity, missing):
    alternative_iv(alternative)
    method = renamed_value(method, WILCOXON_METHOD_RENAMES, "method")
    if not isinstance(method, str) or method not in ("auto", "exact", "asymptotic", "R"):
        raise ParameterError("`method` must be 'auto', 'exact', 'asymptotic' or 'R', "
                         f"got {method!r}")
    if not isinstance(zero_method, str) or zero_method not in ("wilcox", "pratt", "zsplit"):
        raise ParameterError("`zero_method` must be 'wilcox', 'pratt' or 'zsplit', "
                         f"got {zero_method!r}")
    if method == "R":
        if zero_method != "wilcox":
            raise ParameterError("`zero_method` must be 'wilcox' with method='R' (R drops zeros)")
        if continuity is False:
            raise ParameterError("`continuity` cannot be False with method='R' (R corrects)")
        continuity = True
    elif continuity is None:
        continuity = False
    elif not isinstance(continuity, bool | np.bool_):
        raise ParameterTypeError(f"`continuity` must be True, False or None, got {continuity!r}")
    a, b = pair_iv(a, b, missing, min_n=1)
    return a, b, method, bool(continuity)


@dataclass(frozen=True)
class SignTestResult:
    """Result of :func:`sign_test`.

    Attributes
    ----------
    statistic : int
        Number of wins of ``a`` (queries with ``a - b > atol``).
    pvalue : float
        Exact binomial p-value with success probability 1/2 over the
        ``n_nonzero = wins + losses`` untied queries (1 when there are none).
    wins, ties, losses : int
    n_nonzero : int
        ``wins + losses``, the queries that are not ties.
    atol : float
        A query with :math:`|a_i - b_i| \\le` ``atol`` is a tie.
    alternative : str
    n_queries : int
        ``wins + ties + losses``.

    Methods
    -------
    confidence_interval(confidence_level=0.95)
        Clopper-Pearson interval for the share of wins among the untied queries.
    to_frame()
        One row: the attributes and the 95% interval.
    """

    statistic: int
    pvalue: float
    wins: int
    ties: int
    losses: int
    n_nonzero: int
    atol: float
    alternative: str
    n_queries: int = 0

    n = renamed_attribute("n_nonzero")
    zero_tolerance = renamed_attribute("atol")

    def methods(self) -> MethodsText:
        """The methods paragraph and its references (:mod:`mrrstats.stats.methods`)."""
        return methods_text(self)

    def confidence_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        """Clopper-Pearson interval for the share of wins among untied queries.

        ``(nan, nan)`` when every query is a tie.
        """
        cl = confidence_level_iv(confidence_level)
        if self.n_nonzero == 0:
            return ConfidenceInterval(math.nan, math.nan, cl, "clopper-pearson")
        ci = stats.binomtest(self.wins, self.n_nonzero, 0.5, alternative=self.alternative
                             ).proportion_ci(confidence_level=cl, method="exact")
        return ConfidenceInterval(float(ci.low), float(ci.high), cl, "clopper-pearson")

    def to_frame(self) -> pd.DataFrame:
        """One row: ``test``, the attributes, ``ci_low``, ``ci_high`` (the share of wins)."""
        ci = self.confidence_interval()
        return pd.DataFrame([{"test": "sign", "statistic": self.statistic,
                              "pvalue": self.pvalue, "wins": self.wins, "ties": self.ties,
                              "losses": self.losses, "ci_low": ci.low, "ci_high": ci.high,
                              "confidence_level": ci.confidence_level,
                              "n_queries": self.n_queries, "n_nonzero": self.n_nonzero,
                              "atol": self.atol, "alternative": self.alternative}])


@renamed_parameters(zero_tolerance="atol")
def sign_test(a: ArrayLike, b: ArrayLike, *, alternative: Alternative = "two-sided",
              atol: float = 0.0, missing: Missing = "raise") -> SignTestResult:
    r"""Exact sign test on the per-query differences ``a - b``.

    Parameters
    ----------
    a, b : array_like, 1-D
        Aligned per-query scores.
    alternative : {"two-sided", "less", "greater"}, keyword-only
        ``"greater"``: ``a`` wins more often than it loses.
    atol : float, keyword-only
        A query with :math:`|a_i - b_i| \le` ``atol`` is a tie and is dropped
        (default 0: only exact equality).
    missing : {"raise", "drop"}, keyword-only

    Returns
    -------
    SignTestResult

    Notes
    -----
    With :math:`W` wins and :math:`L` losses, the p-value is that of
    :func:`scipy.stats.binomtest` for :math:`W` successes in :math:`W + L`
    trials with probability 1/2.

    Examples
    --------
    >>> import mrrstats
    >>> res = mrrstats.sign_test([1, 1, 0.5, 1, 0.2, 1], [0.5, 1, 0.25, 0.5, 0.1, 0.5])
    >>> print(res.wins, res.ties, res.losses, round(res.pvalue, 4))
    5 1 0 0.0625
    """
    a, b, tol = _sign_test_iv(a, b, alternative, atol, missing)
    w, t, l_ = win_tie_loss(a - b, tol)
    n = int(w + l_)
    if n == 0:
        p = 1.0
    else:
        p = float(stats.binomtest(int(w), n, 0.5, alternative=alternative).pvalue)
    return SignTestResult(int(w), p, int(w), int(t), int(l_), n, tol, alternative, int(a.size))


def _sign_test_iv(a, b, alternative, atol, missing):
    alternative_iv(alternative)
    tol = tolerance_iv(atol, "atol")
    a, b = pair_iv(a, b, missing, min_n=1)
    return a, b, tol
