r"""Family-wise procedures over the pairs of systems: the cores behind ``pairwise_tests``.

Each core takes the score matrix ``X`` (n_queries, n_systems) and the pairs
``(I, J)`` and returns a :class:`_Fit` (statistic, raw and family-wise adjusted
p-values, simultaneous intervals); :func:`mrrstats.pairwise_tests` assembles
the result. Names without a leading underscore are public within the package.

Within-query permutations (the systems' scores of each query shuffled among
the systems; all pairs share one set of permutations):

* :func:`maxt_single_step_fit` -- single-step max-T of the studentised paired
  differences (the default procedure of :func:`mrrstats.compare`, through
  ``correction="single-step"``); all pairs or many-to-one (``control``);
* :func:`maxt_step_down_fit` -- Westfall & Young's step-down max-T;
* :func:`tukey_fit` -- the randomised Tukey HSD (range of the means).

Parametric (two-way ANOVA error): :func:`anova_hsd_fit` (studentised range) and
:func:`dunnett_fit` (many-to-one, :mod:`mrrstats.stats.manyone`).

All resampling cores draw their permutations through
:func:`mrrstats.stats.resampling.permutation_batches` in a fixed order, so a
seed gives the same result for every ``batch`` and every number of ``workers``
(the threads split each batch by rows, and each row's arithmetic is the same).
"""

from __future__ import annotations

import math
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
from scipy import stats

from ..errors import ParameterError
from ..validation import resource_iv
from .manyone import dunnett_critical_value, dunnett_sf
from .resampling import blas_single_thread, mc_se, permutation_batches, query_means
from .studentized_range import studentized_range_sf

__all__ = ["pair_fit", "null_cutoff", "pair_statistics", "maxt_single_step_fit",
           "hall_transform", "hall_inverse",
           "maxt_step_down_fit", "tukey_fit", "anova_hsd_fit", "dunnett_fit",
           "simultaneous_critical_value", "studentized_range_sf"]

#: rows of a permutation batch below which threads do not pay
_MIN_ROWS_PER_WORKER = 64


@dataclass(frozen=True)
class _Fit:
    """What a core computes, one entry per pair (see :class:`~mrrstats.PairwiseResult`)."""

    statistic: np.ndarray
    pvalue: np.ndarray
    pvalue_se: np.ndarray
    pvalue_adjusted: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    ci_method: str
    n_resamples: int | None
    standard_error: np.ndarray | None = None
    null_distribution: np.ndarray | None = None
    critical_value: float | None = None


def pair_fit(statistic, pvalue, pvalue_se, pvalue_adjusted, ci_low, ci_high, ci_method,
             n_resamples, **optional):
    """A fit of per-pair tests and their correction, in the shape of the cores' fits."""
    return _Fit(statistic, pvalue, pvalue_se, pvalue_adjusted, ci_low, ci_high, ci_method,
                n_resamples, **optional)


def _nan(P):
    return np.full(P, np.nan)


# --------------------------------------------------------------------------
# shared pieces
# --------------------------------------------------------------------------
def null_cutoff(null, alpha):
    """The cut-off ``c`` with ``(1 + #{null >= t}) / (B + 1) <= alpha`` exactly when ``t > c``.

    The ``K + 1``-th largest resampled value, ``K = floor(alpha (B + 1)) - 1``: the
    Monte-Carlo p-value and the interval come from the same null distribution.
    """
    B = null.size
    K = int(math.floor(alpha * (B + 1.0) * (1 + 1e-12))) - 1
    if K < 0:
        return np.inf
    if K >= B:
        return -np.inf
    return float(-np.partition(-null, K)[K])


class _PairStats:
    r"""The pair statistics of ``(I, J)`` for a stack of score matrices (r, n, k).

    ``"t"``: :math:`T_{ij} = \bar d_{ij} / \mathrm{se}_{ij}` with
    :math:`\mathrm{se}^2_{ij} = \frac{G}{(G - 1) n^2} \sum_u (S_{u,ij} - n_u \bar d_{ij})^2`
    over the units :math:`u` (queries, :math:`n_u = 1`, :math:`G = n`: the paired
    :math:`s_d^2/n`; or clusters with totals :math:`S_u`: the cluster-robust variance of
    :func:`mrrstats.stats.significance.cluster_robust_se`), from
    :math:`\sum_u S_{u,ij}^2 = A_{ii} + A_{jj} - 2 A_{ij}`, :math:`A` the Gram matrix of
    the units' totals (one matrix product per resample), and :math:`\sum_u n_u S_{u,ij}`.
    ``"mean"``: :math:`\bar d_{ij}`.

    :meth:`directed` gives what the procedures compare: :math:`T^2` for two-sided
    tests (:math:`|T|` without a square root), :math:`T` or :math:`-T` one-sided.
    All pairs in the order of ``numpy.triu_indices`` are read from the Gram matrix in
    row slices; other pair lists (many-to-one) from their differences.
    """

    def __init__(self, n, k, I, J, statistic, clusters=None):
        self.n, self.k, self.I, self.J, self.statistic = n, k, I, J, statistic
        if clusters is None:
            self.indicator = self.sizes = None
            G = n
        else:
            codes = np.asarray(clusters, dtype=np.intp)
            G = int(codes.max()) + 1
            self.indicator = np.zeros((G, n))
            self.indicator[codes, np.arange(n)] = 1.0
            self.sizes = self.indicator.sum(axis=1)
        self.scale = G / ((G - 1.0) * n * n)
        ti, tj = np.triu_indices(k, 1)
        self.all_pairs = I.size == ti.size and np.array_equal(I, ti) and np.array_equal(J, tj)

    def _pairs(self, fn):
        """``fn(i, js)`` for the pairs, as one (r, P) array (row slices for all pairs)."""
        if not self.all_pairs:
            return fn(self.I, self.J)
        return np.concatenate([fn(i, slice(i + 1, self.k)) for i in range(self.k - 1)],
                              axis=1)

    def moments(self, perm):
        """Mean differences (r, P) and, for ``"t"``, ``sum_u (S_u - n_u d)^2`` (r, P)."""
        m = query_means(perm)
        md = self._pairs(lambda i, j: m[:, i, None] - m[:, j] if isinstance(j, slice)
                         else m[:, i] - m[:, j])
        if self.statistic == "mean":
            return md, None
        units = perm if self.indicator is None else np.matmul(self.indicator, perm)
        A = np.matmul(units.transpose(0, 2, 1), units)  # (r, k, k)
        dg = np.diagonal(A, axis1=1, axis2=2)

        def sq(i, j):
            if isinstance(j, slice):
                return dg[:, i, None] + dg[:, j] - 2.0 * A[:, i, j]
            return dg[:, i] + dg[:, j] - 2.0 * A[:, i, j]
        ss = self._pairs(sq)
        if self.sizes is None:  # sum_q (d_q - d)^2 = sum_q d_q^2 - n d^2
            ss -= self.n * (md * md)
        else:  # sum_g (S_g - n_g d)^2 = sum_g S_g^2 - 2 d sum_g n_g S_g + d^2 sum_g n_g^2
            w = np.matmul(self.sizes, units)  # (r, k): sum_g n_g T_g of every system
            wd = self._pairs(lambda i, j: w[:, i, None] - w[:, j] if isinstance(j, slice)
                             else w[:, i] - w[:, j])
            ss += md * (float((self.sizes ** 2).sum()) * md - 2.0 * wd)
        return md, ss

    def skewness(self, perm, md, ss):
        r"""Sample skewness (biased moments) of every pair's differences (r, P).

        :math:`\hat\gamma = m_3 / m_2^{3/2}`, :math:`m_2 = \frac1n \sum_q (d_q - \bar d)^2`,
        :math:`m_3 = \frac1n \sum_q (d_q - \bar d)^3`, from
        :math:`\sum_q d_q^3 = C_i - C_j - 3 Q_{ij} + 3 Q_{ji}` with
        :math:`Q_{ij} = \sum_q x_{qi}^2 x_{qj}` (one matrix product per resample) and
        :math:`C_i = Q_{ii}`. 0 where the spread is only rounding (a constant difference).
        """
        Q = np.matmul((perm * perm).transpose(0, 2, 1), perm)  # (r, k, k)
        cube = np.diagonal(Q, axis1=1, axis2=2)

        def s3(i, j):
            if isinstance(j, slice):
                return cube[:, i, None] - cube[:, j] - 3.0 * Q[:, i, j] + 3.0 * Q[:, j, i]
            return cube[:, i] - cube[:, j] - 3.0 * Q[:, i, j] + 3.0 * Q[:, j, i]
        n = self.n
        m2 = ss / n
        m3 = self._pairs(s3) / n - 3.0 * md * m2 - md * md * md
        raw2 = m2 + md * md  # sum_q d_q^2 / n: the scale of the rounding in m2
        spread = m2 > 1e-12 * raw2
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(spread, m3 / np.where(spread, m2, 1.0) ** 1.5, 0.0)

    def _two_sided_t2(self, md, ss):
        """T^2 (r, P); a pair without spread has inf, or 0 for a zero difference."""
        with np.errstate(divide="ignore", invalid="ignore"):
            out = (md * md) / (self.scale * ss)
        flat = ss <= 0.0
        if flat.any():
            out[flat] = np.where(md[flat] == 0.0, 0.0, np.inf)
        return out

    def _signed_t(self, md, ss):
        """T (r, P); a pair without spread has +/-inf, or 0 for a zero difference."""
        se = np.sqrt(self.scale * np.maximum(ss, 0.0))
        with np.errstate(divide="ignore", invalid="ignore"):
            t = md / se
        flat = se == 0.0
        if flat.any():
            t[flat] = np.where(md[flat] == 0.0, 0.0, np.copysign(np.inf, md[flat]))
        return t

    def directed(self, perm, alternative):
        """What a procedure compares (r, P): T^2 (two-sided), T or -T; for
        ``"t-skew"`` the same of Hall's transform g(T) (:func:`hall_transform`)."""
        md, ss = self.moments(perm)
        if ss is None:
            return md * md if alternative == "two-sided" else (md if alternative == "greater"
                                                               else -md)
        if self.statistic == "t-skew":
            g = hall_transform(self._signed_t(md, ss), self.skewness(perm, md, ss), self.n)
            if alternative == "two-sided":
                return g * g
            return g if alternative == "greater" else -g
        if alternative == "two-sided":
            return self._two_sided_t2(md, ss)
        t = self._signed_t(md, ss)
        return t if alternative == "greater" else -t

    def observed(self, X):
        """Statistics, standard errors and mean differences (P,) of one matrix (n, k);
        ``"t-skew"`` gives T (as ``"t"``), its standard error and mean difference."""
        md, ss = self.moments(X[None])
        if ss is None:
            return md[0], np.ones_like(md[0]), md[0]
        se = np.sqrt(self.scale * np.maximum(ss[0], 0.0))
        t = np.copysign(np.sqrt(self._two_sided_t2(md, ss)[0]), md[0])
        return t, se, md[0]

    def observed_skewness(self, X):
        """The skewness of every pair's differences (P,) in one matrix (n, k)."""
        md, ss = self.moments(X[None])
        return self.skewness(X[None], md, ss)[0]


def pair_statistics(X, I, J, statistic="t", clusters=None):
    """Observed statistics, standard errors and mean differences of the pairs ``(I, J)``.

    The same arithmetic as under the permutations (:class:`_PairStats`), so the
    identity permutation reproduces them bit for bit.
    """
    n, k = X.shape
    return _PairStats(n, k, I, J, statistic, clusters).observed(X)


def _permuted(Xs, I, J, statistic, alternative, n_resamples, batch, gen, clusters, workers):
    """Yield the directed pair statistics (r, P) under within-query permutations, in order.

    ``Xs``: one score matrix (n, k), or a list of them (measures of the same queries and
    systems): every resample permutes the systems of a query in all of them at once, and
    the statistics are side by side (r, P * len(Xs)). The permutations are drawn as
    :func:`~mrrstats.stats.resampling.permutation_batches` draws them for one matrix.
    """
    single = not isinstance(Xs, list)
    X0 = Xs if single else Xs[0]
    n, k = X0.shape
    stats_ = _PairStats(n, k, I, J, statistic, clusters)
    if single:
        source = X0

        def fn(perm):
            return stats_.directed(perm, alternative)
    else:
        source = np.broadcast_to(np.arange(k, dtype=np.float64), (n, k))  # system labels

        def fn(perm):
            idx = perm.astype(np.intp)
            return np.concatenate([stats_.directed(np.take_along_axis(
                np.broadcast_to(X, (idx.shape[0], n, k)), idx, axis=-1), alternative)
                for X in Xs], axis=1)

    if workers <= 1:
        for perm in permutation_batches(source, n_resamples, batch, gen, clusters):
            yield fn(perm)
        return
    # the threads compute one batch (split by rows) while the next one is drawn
    with ThreadPoolExecutor(workers) as pool:
        pending = None
        for perm in permutation_batches(source, n_resamples, batch, gen, clusters):
            parts = max(1, min(workers, perm.shape[0] // _MIN_ROWS_PER_WORKER))
            edges = np.linspace(0, perm.shape[0], parts + 1).astype(int)
            futures = [pool.submit(fn, perm[a:b])
                       for a, b in zip(edges[:-1], edges[1:], strict=True)]
            if pending is not None:
                yield np.concatenate([f.result() for f in pending])
            pending = futures
        if pending is not None:
            yield np.concatenate([f.result() for f in pending])


def _directed(t, alternative):
    """The observed statistic in the procedures' scale: T^2, T or -T."""
    if alternative == "two-sided":
        return t * t
    return t if alternative == "greater" else -t


def _undirected(v, alternative):
    """Back from the procedures' scale to |T| (two-sided) or the signed T."""
    return np.sqrt(v) if alternative == "two-sided" else v


def _threshold(obs):
    """Observed values lowered by a relative tolerance: a resampled value that equals the
    observed one up to rounding counts as at least as extreme."""
    finite = np.where(np.isfinite(obs), obs, 0.0)
    return np.where(np.isfinite(obs), obs - 1e-9 * (np.abs(finite) + 1.0), obs)


def _interval(md, se, c, alternative, reject):
    """``md -/+ c se`` (one-sided: one end); a zero-se pair gets ``[md, md]`` or the
    segment between 0 and ``md`` (no resampled cut-off bounds it)."""
    with np.errstate(invalid="ignore"):
        lo, hi = md - c * se, md + c * se
    return _finish_interval(md, se, lo, hi, alternative, reject)


def _finish_interval(md, se, lo, hi, alternative, reject):
    """The ends ``lo, hi`` with a zero-se pair's interval set (``[md, md]`` if rejected,
    else between 0 and ``md``) and the open end of a one-sided interval at infinity."""
    flat = se == 0
    if flat.any():
        lo = np.where(flat, np.where(reject, md, np.minimum(md, 0.0)), lo)
        hi = np.where(flat, np.where(reject, md, np.maximum(md, 0.0)), hi)
    if alternative == "greater":
        hi = np.full(md.shape, np.inf)
    elif alternative == "less":
        lo = np.full(md.shape, -np.inf)
    return lo, hi


def hall_transform(t, gamma, n):
    r"""Hall's (1992) monotone skewness correction of a studentised mean, elementwise.

    :math:`g(t) = t + a t^2 + a^2 t^3 / 3 + b`, :math:`a = \hat\gamma / (3\sqrt n)`,
    :math:`b = \hat\gamma / (6\sqrt n)`, for :math:`t = (\bar d - \delta)/\mathrm{se}`
    and :math:`\hat\gamma` the sample skewness of the differences: the
    :math:`n^{-1/2}` term of the Edgeworth expansion of :math:`t` removed (Johnson's
    1978 correction, made monotone by the cubic term). Infinite ``t`` stays as is.
    """
    t = np.asarray(t, dtype=np.float64)
    a = np.asarray(gamma, dtype=np.float64) / (3.0 * math.sqrt(n))
    with np.errstate(invalid="ignore", over="ignore"):
        g = t + a * t * t + a * a * t * t * t / 3.0 + a / 2.0
    return np.where(np.isfinite(t), g, t)


def hall_inverse(y, gamma, n):
    r"""The inverse of :func:`hall_transform` in closed form, elementwise.

    :math:`g(t) - b = ((1 + a t)^3 - 1)/(3a)`, so with :math:`z = y - b` and
    :math:`u = (1 + 3 a z)^{1/3}` (real cube root), :math:`t = (u - 1)/a =
    3z/(u^2 + u + 1)` -- the second form also for :math:`a = 0` (:math:`t = z`).
    """
    y = np.asarray(y, dtype=np.float64)
    a = np.asarray(gamma, dtype=np.float64) / (3.0 * math.sqrt(n))
    z = y - a / 2.0
    u = np.cbrt(1.0 + 3.0 * a * z)
    with np.errstate(invalid="ignore"):
        t = 3.0 * z / (u * u + u + 1.0)
    return np.where(np.isfinite(y), t, y)


def _skew_interval(md, se, gamma, n, c, alternative, reject):
    r""":math:`\{\delta : |g((\bar d - \delta)/\mathrm{se})| \le c\}` (one-sided: one end),
    :math:`[\bar d - g^{-1}(c)\,\mathrm{se}, \bar d - g^{-1}(-c)\,\mathrm{se}]`; a zero-se
    pair as in :func:`_interval`."""
    with np.errstate(invalid="ignore"):
        lo = md - hall_inverse(c, gamma, n) * se
        hi = md - hall_inverse(-c, gamma, n) * se
    return _finish_interval(md, se, lo, hi, alternative, reject)


# --------------------------------------------------------------------------
# within-query permutations
# --------------------------------------------------------------------------
def maxt_single_step_fit(X, I, J, *, alternative, n_resamples, confidence_level, batch, gen,
                         clusters=None, workers, skew=False):
    r"""Single-step max-T of the studentised paired differences, within-query permutations.

    :math:`T_{ij} = \bar d_{ij}/\mathrm{se}_{ij}` for the pairs ``(I, J)`` (all
    pairs, or every system against a control). In each of :math:`B` resamples the
    scores of every query (or cluster) are permuted among the systems and
    :math:`M_b = \max_{(i,j)} |T^*_{b,ij}|` is recorded (one-sided: :math:`\max T^*`
    or :math:`\max(-T^*)`). The adjusted p-value of a pair is :math:`(1 + \#\{b :
    M_b \ge |T_{ij}|\})/(B + 1)`; the simultaneous interval is :math:`\bar d_{ij} \pm
    c\,\mathrm{se}_{ij}` with :math:`c` the cut-off of the same :math:`M_b` at
    ``1 - confidence_level`` (:func:`null_cutoff`), so a pair is rejected at ``alpha
    = 1 - confidence_level`` exactly when its interval excludes 0. ``pvalue`` is
    each pair's marginal permutation p-value (:math:`\le` the adjusted one).

    ``X`` may be a list of matrices (measures of the same queries and systems): one
    family over all their pairs, the maximum over all of them, one fit per matrix.

    ``skew=True`` (``correction="single-step-skew"``): every pair's :math:`T` goes
    through Hall's (1992) skewness correction :math:`g` (:func:`hall_transform`) with
    the skewness of that pair's differences, in every resample with the resample's
    own skewness: :math:`M_b = \max |g^*(T^*_b)|`, the observed :math:`|g(T_{ij})|`
    against it, and the interval :math:`\{\delta : |g((\bar d_{ij} - \delta) /
    \mathrm{se}_{ij})| \le c\}` in closed form (:func:`hall_inverse`; asymmetric
    about :math:`\bar d_{ij}`), so decisions and intervals still agree exactly. The
    scores of each query are centred on the query's mean first (the differences do
    not change; the third moments lose less to rounding). Not with ``clusters``.
    """
    Xs = X if isinstance(X, list) else [X]
    statistic = "t"
    if skew:
        if clusters is not None:
            raise ParameterError("the skewness-corrected single-step max-T works on queries; "
                                 "`clusters` needs correction='single-step'")
        Xs = [Y - Y.mean(axis=1, keepdims=True) for Y in Xs]
        X = Xs if isinstance(X, list) else Xs[0]
        statistic = "t-skew"
    parts = [pair_statistics(Y, I, J, "t", clusters) for Y in Xs]
    t = np.concatenate([p[0] for p in parts])
    se = np.concatenate([p[1] for p in parts])
    md = np.concatenate([p[2] for p in parts])
    n = Xs[0].shape[0]
    if skew:
        ps = _PairStats(n, Xs[0].shape[1], I, J, "t")
        gamma = np.concatenate([ps.observed_skewness(Y) for Y in Xs])
        stat = hall_transform(t, gamma, n)
    else:
        stat = t
    obs = np.abs(stat) if alternative == "two-sided" else _directed(stat, alternative)
    thr = _threshold(obs)
    thr_v = _to_scale(thr, alternative)
    count_raw = np.zeros(t.size, dtype=np.int64)
    resource_iv(8 * n_resamples, "n_resamples", what=f"{n_resamples:,} resamples")
    null = np.empty(n_resamples)
    pos = 0
    with blas_single_thread():
        for V in _permuted(X, I, J, statistic, alternative, n_resamples, batch, gen,
                           clusters, workers):
            mx = V.max(axis=1)
            null[pos:pos + mx.size] = mx
            pos += mx.size
            count_raw += np.count_nonzero(V >= thr_v, axis=0)
    null = _undirected(null, alternative)
    # the family's counts from the same (unsquared) null values as the cut-off below
    count_max = n_resamples - np.searchsorted(np.sort(null), thr, side="left")
    p_adj = (count_max + 1.0) / (n_resamples + 1.0)
    p_raw = (count_raw + 1.0) / (n_resamples + 1.0)
    c = null_cutoff(null, 1.0 - confidence_level)
    if skew:
        lo, hi = _skew_interval(md, se, gamma, n, c + (obs - thr), alternative, thr > c)
        how = "maxt-single-step-skew"
    else:
        lo, hi = _interval(md, se, c + (obs - thr), alternative, thr > c)
        how = "maxt-single-step"
    fits = [_Fit(stat[sl], p_raw[sl], mc_se(p_raw[sl], n_resamples), p_adj[sl], lo[sl],
                 hi[sl], how, n_resamples, standard_error=se[sl],
                 null_distribution=null, critical_value=c)
            for sl in (slice(m * I.size, (m + 1) * I.size) for m in range(len(Xs)))]
    return fits if isinstance(X, list) else fits[0]


def _to_scale(thr, alternative):
    """Thresholds in the procedures' scale (squares for two-sided; a negative one is -inf)."""
    if alternative != "two-sided":
        return thr
    return np.where(thr > 0, thr * thr, -np.inf)


def tukey_fit(X, *, n_resamples, confidence_level, ci, batch, gen, clusters=None):
    """Randomised Tukey HSD: the permutation null of the range of the system means."""
    n, k = X.shape
    I, J = np.triu_indices(k, 1)
    means = X.mean(axis=0)
    md = means[I] - means[J]
    obs = np.abs(md)
    thr = obs - 1e-10 * (np.abs(X).mean() + 1e-300)
    count_max = np.zeros(I.size, dtype=np.int64)
    count_raw = np.zeros(I.size, dtype=np.int64)
    resource_iv(8 * n_resamples, "n_resamples", what=f"{n_resamples:,} resamples")
    null = np.empty(n_resamples)
    pos = 0
    for perm in permutation_batches(X, n_resamples, batch, gen, clusters):
        m = query_means(perm)  # (r, k)
        rng_b = m.max(axis=1) - m.min(axis=1)
        null[pos:pos + rng_b.size] = rng_b
        pos += rng_b.size
        count_max += (rng_b[:, None] >= thr).sum(axis=0)
        count_raw += (np.abs(m[:, I] - m[:, J]) >= thr).sum(axis=0)
    p_adj = (count_max + 1.0) / (n_resamples + 1.0)
    p_raw = (count_raw + 1.0) / (n_resamples + 1.0)
    c = null_cutoff(null, 1.0 - confidence_level)
    if ci in ("consistent", "simultaneous"):
        # the cut-off that the p-values use: a pair is rejected at 1 - cl exactly
        # when |d| exceeds it (a tie with a resampled range counts as not rejected)
        lo, hi = md - (c + obs - thr), md + (c + obs - thr)
        how = "tukey-simultaneous"
    else:
        lo = hi = _nan(I.size)
        how = "none"
    return _Fit(md, p_raw, mc_se(p_raw, n_resamples), p_adj, lo, hi, how, n_resamples,
                standard_error=np.ones(I.size), null_distribution=null, critical_value=c)


def maxt_step_down_fit(X, I, J, *, statistic, n_resamples, confidence_level, ci, batch, gen,
                       clusters=None, workers):
    r"""Westfall & Young's step-down max-T (Algorithm 2.8), within-query permutations.

    Pairs in ascending order of :math:`|T|`; a running maximum along that order
    gives, for each pair, the largest resampled :math:`|T^*|` among it and all less
    significant pairs. ``ci="simultaneous"``: the single-step intervals of the same
    null (:math:`\bar d \pm c\,\mathrm{se}`, finite; the step-down may reject beyond
    them); ``"consistent"``: the Strassburger-Bretz construction for the step-down.
    """
    if not isinstance(statistic, str) or statistic not in ("t", "mean"):
        raise ParameterError(f"`statistic` must be 't' or 'mean', got {statistic!r}")
    stat, se, md = pair_statistics(X, I, J, statistic, clusters)
    obs = np.abs(stat)
    thr = _threshold(obs) if statistic == "t" else obs - 1e-10 * (np.abs(X).mean() + 1e-300)
    order = np.argsort(obs, kind="stable")
    thr_sorted = _to_scale(thr[order], "two-sided")
    replay = (type(gen.bit_generator), gen.bit_generator.state)
    count_sd = np.zeros(I.size, dtype=np.int64)
    count_raw = np.zeros(I.size, dtype=np.int64)
    resource_iv(8 * n_resamples, "n_resamples", what=f"{n_resamples:,} resamples")
    null = np.empty(n_resamples)
    pos = 0
    with blas_single_thread():
        for V in _permuted(X, I, J, statistic, "two-sided", n_resamples, batch, gen,
                           clusters, workers):
            V = V[:, order]
            count_raw += (V >= thr_sorted).sum(axis=0)
            smax = np.maximum.accumulate(V, axis=1, out=V)
            count_sd += (smax >= thr_sorted).sum(axis=0)
            null[pos:pos + smax.shape[0]] = smax[:, -1]
            pos += smax.shape[0]
    null = np.sqrt(null)
    p_desc = np.maximum.accumulate(((count_sd + 1.0) / (n_resamples + 1.0))[::-1])
    p_adj = np.empty(I.size)
    p_adj[order[::-1]] = np.minimum(p_desc, 1.0)
    p_raw = np.empty(I.size)
    p_raw[order] = (count_raw + 1.0) / (n_resamples + 1.0)
    c = null_cutoff(null, 1.0 - confidence_level)
    if ci == "simultaneous":
        lo, hi = _interval(md, se, c + (obs - thr), "two-sided", thr > c)
        how = "maxt-single-step"
    elif ci == "consistent":
        lo, hi = _step_down_intervals(X, I, J, md, se, obs - thr, p_adj, null, statistic,
                                      1.0 - confidence_level, n_resamples, batch, replay,
                                      clusters, workers)
        how = "maxt-step-down"
    else:
        lo = hi = _nan(I.size)
        how = "none"
    return _Fit(stat, p_raw, mc_se(p_raw, n_resamples), p_adj, lo, hi, how, n_resamples,
                standard_error=se, null_distribution=null, critical_value=c)


def _directional(diff, lo, hi):
    """Strassburger-Bretz bounds of a rejected two-sided hypothesis: ``delta > 0`` or ``< 0``."""
    pos = diff > 0
    return np.where(pos, np.maximum(0.0, lo), -np.inf), np.where(pos, np.inf, np.minimum(0.0, hi))


def _step_down_intervals(X, I, J, md, se, tolx, p_adj, null, statistic, alpha, n_resamples,
                         batch, replay, clusters, workers):
    r"""Intervals compatible with the step-down max-T decisions at level ``alpha``.

    The construction of Strassburger & Bretz (2008) for a step-down procedure:
    with :math:`\mathcal R` the pairs rejected at ``alpha`` and :math:`\mathcal N`
    the rest, a rejected pair gets the directional statement :math:`\delta > 0`
    (or :math:`< 0`) when :math:`\mathcal N` is not empty; a pair of
    :math:`\mathcal N` gets :math:`\bar d \pm c_{\mathcal N}\,\mathrm{se}`, where
    :math:`c_{\mathcal N}` is the cut-off of :math:`\max_{\mathcal N} |T^*|` under
    the same permutations (replayed); when every pair is rejected,
    :math:`[\max(0, \bar d - c\,\mathrm{se}), \infty)` with :math:`c` the
    single-step cut-off. ``tolx`` is the tie tolerance of the p-values.
    """
    rejected = p_adj <= alpha
    if rejected.all():
        c = null_cutoff(null, alpha) + tolx
        return _directional(md, md - c * se, md + c * se)
    keep = ~rejected
    cls, state = replay
    gen = np.random.Generator(cls())
    gen.bit_generator.state = state
    resource_iv(8 * n_resamples, "n_resamples", what=f"{n_resamples:,} resamples")
    sub = np.empty(n_resamples)
    pos = 0
    with blas_single_thread():
        for V in _permuted(X, I[keep], J[keep], statistic, "two-sided", n_resamples, batch,
                           gen, clusters, workers):
            sub[pos:pos + V.shape[0]] = V.max(axis=1)
            pos += V.shape[0]
    c = null_cutoff(np.sqrt(sub), alpha) + tolx
    lo, hi = md - c * se, md + c * se
    zero = np.zeros(I.size)
    dlo, dhi = _directional(md, zero, zero)
    return np.where(rejected, dlo, lo), np.where(rejected, dhi, hi)


# --------------------------------------------------------------------------
# two-way ANOVA error: Tukey HSD and Dunnett
# --------------------------------------------------------------------------
def _anova_error(X):
    """Residual mean square of the two-way ANOVA (queries x systems) and its df."""
    n, k = X.shape
    R = X - X.mean(axis=1, keepdims=True) - X.mean(axis=0) + X.mean()
    df = (n - 1) * (k - 1)
    return float((R**2).sum() / df), df


def anova_hsd_fit(X, *, confidence_level, ci):
    r"""Tukey HSD with the two-way ANOVA error: :math:`q = |\bar d| / \sqrt{V_E/n}`."""
    n, k = X.shape
    I, J = np.triu_indices(k, 1)
    means = X.mean(axis=0)
    md = means[I] - means[J]
    v_e, df = _anova_error(X)
    se = math.sqrt(v_e / n)
    qstat = np.abs(md) / se if se > 0 else np.where(md == 0, 0.0, np.inf)
    p_adj = np.where(qstat == 0, 1.0, studentized_range_sf(qstat, k, df))
    # unadjusted: the paired comparison with the pooled ANOVA error, t = q / sqrt(2)
    p_raw = 2.0 * stats.t.sf(qstat / math.sqrt(2.0), df)
    c = simultaneous_critical_value("studentized-range", confidence_level, k=k, df=df)
    if ci in ("consistent", "simultaneous"):
        lo, hi = md - c * se, md + c * se
        how = "studentized-range"
    else:
        lo = hi = _nan(I.size)
        how = "none"
    return _Fit(qstat, p_raw, np.zeros(I.size), p_adj, lo, hi, how, None,
                standard_error=np.full(I.size, se), critical_value=c)


def dunnett_fit(X, I, J, *, alternative, confidence_level, ci):
    r"""Dunnett's many-to-one test with the two-way ANOVA error (single step).

    :math:`T_i = (\bar x_i - \bar x_0)/\sqrt{2 V_E/n}`, ``df = (n - 1)(k - 1)``;
    adjusted p-values and the simultaneous intervals come from the joint
    distribution of the :math:`T_i` (:mod:`mrrstats.stats.manyone`), so a
    comparison is rejected exactly when its interval excludes 0.
    """
    n, k = X.shape
    means = X.mean(axis=0)
    md = means[I] - means[J]
    v_e, df = _anova_error(X)
    se = math.sqrt(2.0 * v_e / n)
    t = md / se if se > 0 else np.where(md == 0, 0.0, np.copysign(np.inf, md))
    m = I.size
    p_adj = dunnett_sf(t, m, df, alternative)
    if alternative == "two-sided":
        p_raw = 2.0 * stats.t.sf(np.abs(t), df)
    elif alternative == "greater":
        p_raw = stats.t.sf(t, df)
    else:
        p_raw = stats.t.cdf(t, df)
    p_raw = np.minimum(p_raw, 1.0)
    c = simultaneous_critical_value("dunnett-simultaneous", confidence_level, m=m, df=df,
                                    alternative=alternative)
    if ci in ("consistent", "simultaneous"):
        lo, hi = _interval(md, np.full(m, se), c, alternative, np.abs(t) > c)
        how = "dunnett-simultaneous"
    else:
        lo = hi = _nan(m)
        how = "none"
    return _Fit(t, p_raw, np.zeros(m), p_adj, lo, hi, how, None,
                standard_error=np.full(m, se), critical_value=c)


def simultaneous_critical_value(method, confidence_level, *, null=None, k=None, m=None,
                                df=None, alternative="two-sided"):
    """The critical value ``c`` of a simultaneous interval ``d +/- c se`` at a level.

    ``method`` is a ``ci_method``: ``"maxt-single-step"`` and ``"tukey-simultaneous"``
    read the resampled ``null`` (:func:`null_cutoff`); ``"studentized-range"`` needs
    ``k`` and ``df``; ``"dunnett-simultaneous"`` ``m``, ``df`` and ``alternative``.
    """
    if method in ("maxt-single-step", "tukey-simultaneous"):
        return null_cutoff(null, 1.0 - confidence_level)
    if method == "studentized-range":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return float(stats.studentized_range.ppf(confidence_level, k, df))
    if method == "dunnett-simultaneous":
        return dunnett_critical_value(confidence_level, m, df, alternative)
    raise ParameterError(f"no critical value for ci_method {method!r}")
