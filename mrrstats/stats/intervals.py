r"""Confidence intervals shared by the tests of :mod:`mrrstats.stats`.

* :class:`ConfidenceInterval` -- the interval object every result returns.
* :func:`t_interval` -- Student-t limits, vectorised over pairs.
* :func:`bootstrap_interval` -- percentile, basic and BCa limits of sorted
  bootstrap rows (:func:`quantile_rows`, :func:`jackknife_acceleration`,
  :func:`acceleration_from_sums`).
* :func:`signflip_interval` -- the shifts a sign-flip test does not reject
  (:func:`accept_count`).
* :func:`two_sample_acceleration` -- the BCa acceleration of a difference of
  two independent means; :func:`level_iv` -- a result's interval level.

Names here are public within the package: the paired tests, the many-system
procedures, the leaderboard and the power functions share them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special, stats

from ..validation import confidence_level_iv

__all__ = ["ConfidenceInterval", "CI_METHODS", "t_interval", "accept_count",
           "signflip_interval", "jackknife_acceleration", "acceleration_from_sums",
           "two_sample_acceleration", "quantile_rows", "bootstrap_interval", "level_iv"]


@dataclass(frozen=True)
class ConfidenceInterval:
    """A confidence interval ``[low, high]``; unpacks as ``low, high = ci``.

    Attributes
    ----------
    low, high : float or ndarray
        The bounds (``-inf`` / ``inf`` for one-sided intervals); arrays, one
        bound per item, for a result with several (the systems of
        :class:`~mrrstats.MixedModelResult`).
    confidence_level : float
        Nominal coverage.
    method : str
        How the interval was computed (``"t"``, ``"bca"``, ...).
    """

    # typed for the one interval of a test; arrays (one bound per item) for the results
    # with several (PairwiseResult, MixedModelResult)
    low: float
    high: float
    confidence_level: float = 0.95
    method: str = ""

    def __iter__(self):
        return iter((self.low, self.high))

    def to_frame(self) -> pd.DataFrame:
        """One row (or one per item): ``ci_low``, ``ci_high``, ``confidence_level``,
        ``method``."""
        low, high = np.atleast_1d(self.low), np.atleast_1d(self.high)
        return pd.DataFrame({"ci_low": low, "ci_high": high,
                             "confidence_level": self.confidence_level, "method": self.method})


def level_iv(confidence_level, default):
    """The level of an interval asked from a result: ``default`` (the level the result
    was computed at) when None, else a validated level in (0, 1)."""
    return default if confidence_level is None else confidence_level_iv(confidence_level)


def t_interval(mean, se, df, alternative, cl):
    mean = np.asarray(mean, dtype=np.float64)
    se = np.asarray(se, dtype=np.float64)
    if alternative == "two-sided":
        q = stats.t.ppf(0.5 + cl / 2.0, df)
        return mean - q * se, mean + q * se
    q = stats.t.ppf(cl, df)
    if alternative == "greater":
        return mean - q * se, np.full_like(mean, np.inf)
    return np.full_like(mean, -np.inf), mean + q * se


def accept_count(alpha, total, exact):
    """Smallest count of resamples at least as extreme that gives p > alpha."""
    if exact:
        return math.floor(alpha * total) + 1
    return math.floor(alpha * (total + 1.0) - 1.0) + 1


def signflip_interval(dsum, sums, kept, exact, alternative, cl, n):
    r"""Confidence interval for a shift by inverting the one-sided sign-flip tests.

    The sign-flip test of :math:`d_i - \delta` counts, for a resample that
    flips the queries :math:`F`, the event "at least as large as observed",
    which is :math:`\bar d_F \le \delta` (``F`` empty always counts); so the
    one-sided p-value is a step function of :math:`\delta` jumping at the means
    :math:`\bar d_F` of the flipped subsets, and the accepted set is an
    interval with an order statistic of the :math:`\bar d_F` as its end.

    With clusters, ``d`` holds the cluster totals :math:`D_g`, ``kept`` the
    number of queries whose sign is kept and ``n`` the number of queries: the
    test of :math:`D_g - n_g\delta` gives the same steps at the per-query means
    :math:`\sum_{g \in F} D_g / \sum_{g \in F} n_g` of the flipped clusters.
    ``dsum`` is ``numpy.sum`` of ``d`` (so that blocks of queries give the same bits).
    """
    total = sums.size
    flipped = n - kept.astype(np.int64)
    empty = flipped == 0
    e = int(empty.sum())
    # mean of the flipped queries: (S - T_s) / (2 |F|)
    r = np.sort((dsum - sums[~empty]) / (2.0 * flipped[~empty]))
    a1 = (1.0 - cl) / 2.0 if alternative == "two-sided" else 1.0 - cl
    need = accept_count(a1, total, exact) - e
    low, high = -math.inf, math.inf
    if alternative in ("two-sided", "greater") and need > 0:
        low = float(r[need - 1])
    if alternative in ("two-sided", "less") and need > 0:
        high = float(r[r.size - need])
    # the ends are subset means (S - T)/(2|F|): one that is 0 up to the rounding of the
    # sums is reported as exactly 0 (so it prints as 0 only when it is 0)
    scale = abs(dsum) + (float(np.abs(sums).max()) if sums.size else 0.0)
    tol = 16.0 * max(n, 1) * np.finfo(np.float64).eps * scale
    low = 0.0 if math.isfinite(low) and abs(low) <= tol else low
    high = 0.0 if math.isfinite(high) and abs(high) <= tol else high
    return low, high


def jackknife_acceleration(X):
    """BCa acceleration of the mean for each row of ``X`` (closed form).

    The jackknife means :math:`\\bar x_{(i)}` give
    :math:`U_i = (n-1)(\\bar x_{(\\cdot)} - \\bar x_{(i)}) = x_i - \\bar x`, so
    :math:`\\hat a = \\sum U_i^3 / (6 (\\sum U_i^2)^{3/2})`.
    """
    U = X - X.mean(axis=-1, keepdims=True)
    return acceleration_from_sums((U**3).sum(axis=-1), (U**2).sum(axis=-1))


def acceleration_from_sums(cubes, squares):
    """BCa acceleration :math:`\\sum U^3 / (6 (\\sum U^2)^{3/2})` from the two sums (arrays)."""
    den = squares ** 1.5
    with np.errstate(invalid="ignore", divide="ignore"):
        a = cubes / (6.0 * den)
    return np.where(den > 0, a, 0.0)


def two_sample_acceleration(a, b):
    r"""BCa acceleration of :math:`\bar a - \bar b` for two independent samples.

    The jackknife leaves out one observation of either sample at a time
    (Efron & Tibshirani 1993, 14.3 with several samples, as
    :func:`scipy.stats.bootstrap`): the jackknife values give :math:`U_{a,i} =
    a_i - \bar a` and :math:`U_{b,j} = \bar b - b_j`, and

    .. math:: \hat a = \frac{\sum_i U_{a,i}^3 / n_a^3 + \sum_j U_{b,j}^3 / n_b^3}
              {6 \left(\sum_i U_{a,i}^2 / n_a^2 + \sum_j U_{b,j}^2 / n_b^2\right)^{3/2}}.
    """
    ua = a - a.mean()
    ub = b.mean() - b
    na, nb = float(a.size), float(b.size)
    cubes = (ua**3).sum() / na**3 + (ub**3).sum() / nb**3
    squares = (ua**2).sum() / na**2 + (ub**2).sum() / nb**2
    return float(acceleration_from_sums(np.array([cubes]), np.array([squares]))[0])


def quantile_rows(sorted_rows, probs):
    """Linear-interpolation quantiles (numpy's default) of sorted rows, per-row probs.

    ``sorted_rows`` (m, B); ``probs`` (m, k). Returns (m, k).
    """
    m, B = sorted_rows.shape
    probs = np.clip(probs, 0.0, 1.0)
    h = (B - 1) * probs
    lo = np.floor(h).astype(np.int64)
    lo = np.clip(lo, 0, B - 1)
    hi = np.minimum(lo + 1, B - 1)
    w = h - lo
    rows = np.arange(m)[:, None]
    vlo = sorted_rows[rows, lo]
    vhi = sorted_rows[rows, hi]
    return vlo + w * (vhi - vlo)


def bootstrap_interval(theta_hat, sorted_dist, accel, method, cl, alternative):
    """Percentile / basic / BCa / normal limits for each row (vectorised). Returns (low, high).

    ``"normal"`` is :math:`2\\hat\\theta - \\bar\\theta^* \\mp z_{1-\\alpha} s^*` (the
    bias-corrected normal interval of R's ``boot.ci(type="norm")``, :math:`s^*` the
    standard deviation of the replicates, ddof=1).
    """
    m, B = sorted_dist.shape
    alpha = (1.0 - cl) / 2.0 if alternative == "two-sided" else 1.0 - cl
    theta_hat = np.asarray(theta_hat, dtype=np.float64)
    if method == "bca":
        below = (sorted_dist < theta_hat[:, None]).sum(axis=1)
        at_or_below = (sorted_dist <= theta_hat[:, None]).sum(axis=1)
        with np.errstate(divide="ignore"):
            z0 = special.ndtri((below + at_or_below) / (2.0 * B))
        za = special.ndtri(alpha)
        n1 = z0 + za
        n2 = z0 - za
        with np.errstate(invalid="ignore", divide="ignore"):
            a1 = special.ndtr(z0 + n1 / (1 - accel * n1))
            a2 = special.ndtr(z0 + n2 / (1 - accel * n2))
        probs = np.stack([a1, a2], axis=1)
    elif method == "normal":
        # boot.ci(type="norm"): bias-corrected theta, standard deviation of the replicates
        centre = 2 * theta_hat - sorted_dist.mean(axis=1)
        half = special.ndtri(1.0 - alpha) * sorted_dist.std(axis=1, ddof=1)
        low, high = centre - half, centre + half
        if alternative == "less":
            low = np.full_like(low, -np.inf)
        elif alternative == "greater":
            high = np.full_like(high, np.inf)
        return low, high
    else:
        probs = np.tile([alpha, 1.0 - alpha], (m, 1))
    bad = ~np.isfinite(probs).all(axis=1)
    q = quantile_rows(sorted_dist, np.nan_to_num(probs, nan=0.5))
    q[bad] = np.nan
    low, high = q[:, 0], q[:, 1]
    if method == "basic":
        low, high = 2 * theta_hat - high, 2 * theta_hat - low
    # A degenerate bootstrap distribution (no variability): the interval is the point.
    flat = sorted_dist[:, 0] == sorted_dist[:, -1]
    low = np.where(flat, theta_hat, low)
    high = np.where(flat, theta_hat, high)
    if alternative == "less":
        low = np.full_like(low, -np.inf)
    elif alternative == "greater":
        high = np.full_like(high, np.inf)
    return low, high


CI_METHODS = ("bca", "percentile", "basic")
