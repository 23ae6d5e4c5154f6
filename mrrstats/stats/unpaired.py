r"""Two systems evaluated on *different* query sets: nothing is paired query by query.

* :func:`unpaired_ttest` -- Welch's t-test (as ``scipy.stats.ttest_ind(...,
  equal_var=False)``);
* :func:`unpaired_permutation_test` -- permutation of the group labels;
* :func:`unpaired_bootstrap_ci` -- each set resampled on its own, with the BCa
  (default), percentile or basic interval.

Use the paired tests whenever the queries are the same: they remove the query
difficulty from the comparison and are far more powerful.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import stats

from ..defaults import BOOTSTRAP_METHOD_FALLBACK
from ..errors import ParameterError, ParameterTypeError
from ..model.scoretable import as_score_table
from ..validation import (
    alternative_iv,
    confidence_level_iv,
    int_iv,
    n_resamples_iv,
    resource_iv,
    rng_iv,
    workers_iv,
)
from .counter import stream_key
from .intervals import (
    CI_METHODS,
    ConfidenceInterval,
    bootstrap_interval,
    level_iv,
    t_interval,
    two_sample_acceleration,
)
from .methods import MethodsText, methods_text
from .resampling import bootstrap_sums, enumerated_splits, random_splits

if TYPE_CHECKING:

    from numpy.typing import ArrayLike

    from .._typing import Alternative, BootstrapMethod, FloatArray, Seed

__all__ = ["UnpairedResult", "unpaired_ttest", "unpaired_permutation_test",
           "unpaired_bootstrap_ci"]


def _sample_iv(x, name, min_n=2):
    try:
        x = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise ParameterTypeError(f"`{name}` must be a 1-D array of numbers") from None
    if x.ndim != 1:
        raise ParameterError(f"`{name}` must be 1-D")
    x = as_score_table(x[None, :], min_queries=min_n, name=name).values[:, 0].copy()
    return x


def _frozen(x):
    x.flags.writeable = False
    return x


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
        Confidence interval for the difference of means at ``confidence_level``
        (NaN for :func:`unpaired_permutation_test`).
    confidence_level : float
    method : str
        ``"welch t"``; ``"exact"`` or ``"monte-carlo"`` (permutation test);
        ``"bootstrap bca"``, ``"bootstrap percentile"`` or ``"bootstrap basic"``.
    df : float
        Welch-Satterthwaite degrees of freedom (NaN otherwise).
    n_a, n_b : int
    n_resamples : int
        0 for the t-test; the number of permutations enumerated when exact.
    seed : int or None
    standard_error : float
        Welch's :math:`\\sqrt{s_a^2/n_a + s_b^2/n_b}` (the t-test), the standard
        deviation of the bootstrap distribution (the bootstrap), NaN otherwise.
    alternative : str
    null_distribution : ndarray or None
        The permutation test's differences of means, one per permutation (in
        draw order, or in the order of :func:`itertools.combinations` when exact);
        None for the other functions.
    bootstrap_distribution : ndarray or None
        The bootstrap's resampled differences (sorted); None for the other functions.

    Methods
    -------
    confidence_interval(confidence_level=None)
        The interval, recomputed at another level (the t interval, or the bootstrap
        interval from the same resamples); ``(nan, nan)`` for the permutation test.
    to_frame()
        One row.
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
    standard_error: float = math.nan
    alternative: str = "two-sided"
    _null: np.ndarray | None = field(default=None, repr=False, compare=False)
    _bootstrap: np.ndarray | None = field(default=None, repr=False, compare=False)
    _acceleration: float = field(default=math.nan, repr=False, compare=False)

    def methods(self) -> MethodsText:
        """The methods paragraph and its references (:mod:`mrrstats.stats.methods`)."""
        return methods_text(self)

    @property
    def null_distribution(self) -> FloatArray | None:
        """The permutation null distribution (None unless a permutation test)."""
        return self._null

    @property
    def bootstrap_distribution(self) -> FloatArray | None:
        """The sorted bootstrap distribution (None unless a bootstrap interval)."""
        return self._bootstrap

    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """The interval for ``mean(a) - mean(b)`` (default: at ``confidence_level``)."""
        default = 0.95 if math.isnan(self.confidence_level) else self.confidence_level
        cl = level_iv(confidence_level, default)
        if self.method == "welch t":
            low, high = t_interval(self.difference, self.standard_error, self.df,
                                   self.alternative, cl)
        elif self._bootstrap is not None:
            kind = self.method.split()[-1]
            low, high = bootstrap_interval(np.array([self.difference]), self._bootstrap[None, :],
                                           np.array([self._acceleration]), kind, cl,
                                           self.alternative)
        else:
            return ConfidenceInterval(math.nan, math.nan, cl, self.method)
        return ConfidenceInterval(float(low[0] if np.ndim(low) else low),
                                  float(high[0] if np.ndim(high) else high), cl, self.method)

    def to_frame(self) -> pd.DataFrame:
        """One row: ``method``, ``difference``, ``statistic``, ``pvalue``, ``ci_low``,
        ``ci_high``, ``confidence_level``, ``standard_error``, ``df``, ``n_a``, ``n_b``,
        ``n_resamples``, ``seed``, ``alternative``."""
        return pd.DataFrame([{"method": self.method, "difference": self.difference,
                              "statistic": self.statistic, "pvalue": self.pvalue,
                              "ci_low": self.low, "ci_high": self.high,
                              "confidence_level": self.confidence_level,
                              "standard_error": self.standard_error, "df": self.df,
                              "n_a": self.n_a, "n_b": self.n_b,
                              "n_resamples": self.n_resamples, "seed": self.seed,
                              "alternative": self.alternative}])


def unpaired_ttest(a: ArrayLike, b: ArrayLike, *, alternative: Alternative = "two-sided",
                   confidence_level: float = 0.95) -> UnpairedResult:
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
    se = math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
    return UnpairedResult(float(a.mean() - b.mean()), float(r.statistic), float(r.pvalue),
                          float(ci.low), float(ci.high), cl, "welch t", float(r.df),
                          a.size, b.size, 0, None, se, alternative)


def unpaired_permutation_test(a: ArrayLike, b: ArrayLike, *,
                              alternative: Alternative = "two-sided", n_resamples: int = 10000,
                              exact: bool | None = None, batch: int | None = None,
                              workers: int = -1, rng: Seed = None) -> UnpairedResult:
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
    workers : int, keyword-only
        Threads of the compiled random-stream kernel (-1: all cores); every
        permutation is a function of the seed and its number, so the result
        never depends on it.
    rng : None, int or numpy.random.Generator, keyword-only

    Returns
    -------
    UnpairedResult
        ``pvalue``: exact, or Monte Carlo :math:`(c + 1)/(B + 1)` with a
        relative tolerance for floating-point ties as in
        :func:`scipy.stats.permutation_test`; no interval (``low``, ``high``
        are NaN); ``null_distribution`` holds the permuted differences.

    Notes
    -----
    Random permutation :math:`r` gives the first sample the :math:`n_a` pooled
    items with the smallest words of the counter-based stream
    (:func:`mrrstats.stats.counter.permutation_words`), a uniformly random split.

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
    n_resamples = n_resamples_iv(n_resamples)
    if exact is not None and not isinstance(exact, bool):
        raise ParameterTypeError(f"`exact` must be True, False or None, got {exact!r}")
    x = np.concatenate([a, b])
    na, n = a.size, a.size + b.size
    batch = int_iv(batch, "batch", allow_none=True) or max(1, (1 << 20) // n)
    workers = workers_iv(workers)
    gen, seed = rng_iv(rng)
    total = x.sum()
    obs = a.mean() - b.mean()
    n_splits = math.comb(n, na)
    use_exact = n_splits <= n_resamples if exact is None else exact

    def stat_from_sums(sa):
        return sa / na - (total - sa) / (n - na)

    if use_exact:
        null = stat_from_sums(x[enumerated_splits(n, na)].sum(axis=1))
        denom, add = n_splits, 0
    else:
        key = stream_key(gen)
        resource_iv(8 * n_resamples, "n_resamples", what=f"{n_resamples:,} resamples")
        null = np.empty(n_resamples)
        for start in range(0, n_resamples, batch):
            r = min(batch, n_resamples - start)
            first = random_splits(key, start, r, n, na, workers=workers)
            null[start:start + r] = stat_from_sums(np.where(first, x, 0.0).sum(axis=1))
        denom, add = n_resamples + 1, 1
    eps = 1e-14 * max(1.0, abs(obs))
    count = {"greater": np.sum(null >= obs - eps), "less": np.sum(null <= obs + eps),
             "two-sided": np.sum(np.abs(null) >= abs(obs) - eps)}[alternative]
    p = min(1.0, (count + add) / denom)
    return UnpairedResult(float(obs), float(obs), float(p), math.nan, math.nan, math.nan,
                          "exact" if use_exact else "monte-carlo", math.nan, na, n - na,
                          n_splits if use_exact else n_resamples, seed,
                          alternative=alternative, _null=_frozen(null))


def unpaired_bootstrap_ci(a: ArrayLike, b: ArrayLike, *, confidence_level: float = 0.95,
                          method: BootstrapMethod = BOOTSTRAP_METHOD_FALLBACK,
                          n_resamples: int = 10000, batch: int | None = None, workers: int = -1,
                          rng: Seed = None) -> UnpairedResult:
    r"""Bootstrap interval for ``mean(a) - mean(b)`` on different query sets.

    Each set of queries is resampled with replacement on its own (the
    two-sample bootstrap, Efron & Tibshirani 1993, 8.3); the interval is the
    BCa (default, :data:`mrrstats.defaults.BOOTSTRAP_METHOD_FALLBACK`; the
    studentized interval of :func:`mrrstats.bootstrap_ci` is for one sample),
    percentile or basic interval of the resampled differences.

    Parameters
    ----------
    a, b : array_like, 1-D
    confidence_level : float, keyword-only
    method : {"bca", "percentile", "basic"}, keyword-only
    n_resamples : int, keyword-only
    batch : int or None, keyword-only
        Resamples held in memory at once (does not change the result).
    workers : int, keyword-only
        Threads of the compiled bootstrap kernel (-1: all cores); the result
        never depends on it.
    rng : None, int or numpy.random.Generator, keyword-only

    Returns
    -------
    UnpairedResult
        With ``pvalue`` NaN and the ``bootstrap_distribution``.

    Notes
    -----
    The formulas of :func:`mrrstats.bootstrap_ci` (those of
    :func:`scipy.stats.bootstrap`) on the :math:`B` differences
    :math:`\bar a^*_b - \bar b^*_b`; BCa's acceleration is the jackknife over
    both samples (each observation of either left out in turn,
    :func:`~mrrstats.stats.intervals.two_sample_acceleration`), as
    ``scipy.stats.bootstrap((a, b), ..., method="BCa")``.

    Examples
    --------
    >>> import mrrstats
    >>> res = mrrstats.unpaired_bootstrap_ci([1, 0.5, 1, 0.33, 1], [0.5, 0.25, 0.2, 1], rng=1)
    >>> print(round(res.difference, 4), res.method, res.low < res.difference < res.high)
    0.2785 bootstrap bca True
    """
    a = _sample_iv(a, "a", 1)
    b = _sample_iv(b, "b", 1)
    cl = confidence_level_iv(confidence_level)
    if not isinstance(method, str | None) or method not in CI_METHODS:
        raise ParameterError(f"`method` must be one of {CI_METHODS}, got {method!r}")
    n_resamples = n_resamples_iv(n_resamples)
    batch = int_iv(batch, "batch", allow_none=True)
    workers = workers_iv(workers)
    gen, seed = rng_iv(rng)
    # the one engine: each query set resampled on its own (a's resamples, then b's)
    dist = np.sort(bootstrap_sums(a[None, :], n_resamples, batch, gen, workers)[0] / a.size
                   - bootstrap_sums(b[None, :], n_resamples, batch, gen, workers)[0] / b.size)
    obs = float(a.mean() - b.mean())
    accel = two_sample_acceleration(a, b) if method == "bca" else math.nan
    low, high = bootstrap_interval(np.array([obs]), dist[None, :], np.array([accel]), method,
                                   cl, "two-sided")
    se = float(dist.std(ddof=1)) if n_resamples > 1 else math.nan
    return UnpairedResult(obs, obs, math.nan, float(low[0]), float(high[0]), cl,
                          f"bootstrap {method}", math.nan, a.size, b.size, n_resamples, seed,
                          se, "two-sided", _bootstrap=_frozen(dist), _acceleration=accel)
