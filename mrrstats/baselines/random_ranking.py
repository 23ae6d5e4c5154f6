r"""Random-ranking baselines: what MRR and its companions are worth by chance.

A *uniformly random ranker* puts the ``N`` candidates of a query in a uniformly
random order. If ``R`` of them are relevant, the rank ``K`` of the first
relevant one has the exact distribution

.. math:: P(K = j) = \binom{N - j}{R - 1} \Big/ \binom{N}{R}, \qquad j = 1, \dots, N - R + 1,

and everything here follows from it exactly: the expectation and variance of
the reciprocal rank ``RR = 1/K`` (and of ``RR@k``, which is 0 when ``K > k``),
of MRR over independent queries (optionally weighted), of Success@k (Hits@k)
and of the mean rank; the adjusted MRR :math:`(M - E)/(1 - E)`, the z-score
:math:`(M - E)/\sqrt{V}` and a test of "better than a random ranker".
AP and nDCG have no usable closed form for their variance; they are computed
by exact enumeration of all distinct arrangements for small ``N`` or by a
seeded Monte-Carlo estimate whose result says so (:func:`random_metric_moments`).

Which "random" is meant for a TREC run is a choice the user makes, never a
default (:func:`random_baseline_counts`):

``"retrieved"``
    a random permutation of the retrieved list: ``N`` = number retrieved,
    ``R`` = relevant documents retrieved;
``"judged"``
    a random ranking of the judged pool: ``N`` = number of judged documents,
    ``R`` = judged relevant documents.

Queries with ``R = 0`` have ``RR = 0`` under every permutation (expectation
and variance 0); they are allowed so that the baseline averages over exactly
the queries the observed MRR averages over.

References
----------
.. [1] M. Berrendorf, E. Faerman, L. Vermue and V. Tresp, "Interpretable and
   Fair Comparison of Link Prediction or Entity Alignment Methods with Adjusted
   Mean Rank", IEEE/WIC/ACM WI-IAT 2020 (the expectation of the mean rank and
   the adjusted index).
.. [2] C. T. Hoyt, M. Berrendorf, M. Galkin, V. Tresp and B. M. Gyori, "A
   Unified Framework for Rank-based Evaluation Metrics for Link Prediction in
   Knowledge Graphs", arXiv:2203.07544, 2022 (closed forms for ``R = 1``:
   ``E = H(N)/N``, ``V = (N H_2(N) - H(N)^2)/N^2``; adjusted MRR).
.. [3] Y. Bestgen, "Exact Expected Average Precision of the Random Baseline
   for System Evaluation", The Prague Bulletin of Mathematical Linguistics 103,
   2015 (closed form of the expected AP).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special

from ..defaults import BASELINE_ALTERNATIVE, N_RESAMPLES, RANDOM
from ..metrics.kernels import compute_measures
from ..metrics.measures import parse_measures
from ..model.ranking import Judged
from ..numerics import harmonic, harmonic2
from ..progress import progress_bar

__all__ = [
    "FirstRelevantRank",
    "expected_rr",
    "variance_rr",
    "expected_mrr",
    "variance_mrr",
    "adjusted_mrr",
    "expected_success",
    "variance_success",
    "expected_rank",
    "variance_rank",
    "expected_ap",
    "random_metric_moments",
    "RandomMetricMoments",
    "random_baseline_test",
    "RandomBaselineResult",
    "random_baseline_counts",
    "evaluation_baseline",
    "RANDOM_MODELS",
]

#: The two documented meanings of "random ranker" for a TREC run.
RANDOM_MODELS = ("retrieved", "judged")

_ALTERNATIVES = ("greater", "less", "two-sided")
_BLOCK = 1 << 16          # pmf evaluated in blocks of this many ranks
_TABLE_MAX = 1 << 20      # largest inverse-CDF table built for Monte-Carlo sampling
_TOL = 1e-12              # null values within this of the observed count as ties


# --------------------------------------------------------------------------
# input validation
# --------------------------------------------------------------------------

def _int_array(x, name: str, *, minimum: int) -> np.ndarray:
    """An integer-valued array >= minimum (floats with integral values accepted)."""
    if isinstance(x, (bool, np.bool_)):
        raise TypeError(f"`{name}` must be integers, got a boolean")
    try:
        a = np.asarray(x)
    except Exception as exc:  # pragma: no cover - exotic inputs
        raise TypeError(f"`{name}` must be array-like of integers") from exc
    if a.dtype == bool or not (np.issubdtype(a.dtype, np.integer)
                               or np.issubdtype(a.dtype, np.floating)):
        raise TypeError(f"`{name}` must be integers, got dtype {a.dtype}")
    if np.issubdtype(a.dtype, np.floating):
        if not np.all(np.isfinite(a)) or np.any(a != np.round(a)):
            raise ValueError(f"`{name}` must be whole numbers")
    a = a.astype(np.int64)
    if a.size and a.min() < minimum:
        raise ValueError(f"`{name}` must be >= {minimum}, got {a.min()}")
    return a


def _counts_iv(n_candidates, n_relevant, k, *, k_required: bool = False):
    """Normalise ``(N, R, k)``; returns broadcast int64 arrays and the shape."""
    N = _int_array(n_candidates, "n_candidates", minimum=0)
    R = _int_array(n_relevant, "n_relevant", minimum=0)
    try:
        N, R = np.broadcast_arrays(N, R)
    except ValueError:
        raise ValueError(f"`n_relevant` (shape {np.shape(n_relevant)}) does not broadcast "
                         f"with `n_candidates` (shape {np.shape(n_candidates)})") from None
    if np.any(R > N):
        i = np.flatnonzero((R > N).ravel())[0]
        raise ValueError(f"`n_relevant` must be <= `n_candidates`, got {R.ravel()[i]} "
                         f"relevant among {N.ravel()[i]} candidates")
    if k is None:
        if k_required:
            raise ValueError("`k` (the cutoff) is required")
        K = None
    else:
        K = _int_array(k, "k", minimum=1)
        try:
            N, R, K = np.broadcast_arrays(N, R, K)
        except ValueError:
            raise ValueError("`k` does not broadcast with `n_candidates`") from None
    shape = N.shape
    return (N.ravel().copy(), R.ravel().copy(),
            None if K is None else K.ravel().copy(), shape)


def _weights_iv(weights, n: int) -> np.ndarray | None:
    if weights is None:
        return None
    w = np.asarray(weights, dtype=np.float64).ravel()
    if w.size != n:
        raise ValueError(f"`weights` must have one entry per query ({n}), got {w.size}")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("`weights` must be finite and non-negative")
    if w.sum() <= 0:
        raise ValueError("`weights` must not all be zero")
    return w / w.sum()


def _shaped(values: np.ndarray, shape):
    out = values.reshape(shape)
    return out[()] if out.ndim == 0 else out


# --------------------------------------------------------------------------
# exact distribution of the first relevant rank
# --------------------------------------------------------------------------

def _log_q_scalar(N: int, R: int, a: int) -> float:
    r"""``log[C(N - R, a) / C(N, a)] = log[C(N - a, R) / C(N, R)]`` (= log P(K > a)).

    Both are :math:`\prod_{i<m} (1 - x/(N - i))` with ``(m, x)`` the smaller and
    larger of ``(a, R)``, summed as log1p terms (pairwise summation: a few ulps).
    When :math:`m x / N > 750` the value is below ``exp(-750)``, which
    underflows anyway: the bound :math:`-m x / N` is returned without summing,
    so at most :math:`\sqrt{750 N}` terms are ever added.
    """
    if a <= 0 or R == 0:
        return 0.0
    if a > N - R:
        return -math.inf
    m, x = min(a, R), max(a, R)
    if m * x > 750.0 * N:
        return -m * x / N
    return float(np.log1p(-x / (N - np.arange(m, dtype=np.float64))).sum())


def _log_q(N: int, R: int, a):
    """Vectorised :func:`_log_q_scalar` over an array of ``a``."""
    a = np.asarray(a, dtype=np.int64)
    flat = a.ravel()
    uniq, inv = np.unique(flat, return_inverse=True)
    vals = np.array([_log_q_scalar(N, R, int(v)) for v in uniq.tolist()], dtype=np.float64)
    return vals[inv.ravel()].reshape(a.shape)


def _pmf_blocks(N: int, R: int, L: int):
    """Yield ``(j0, p)`` with ``p[i] = P(K = j0 + i)`` for ranks up to ``L``.

    Each block of ``_BLOCK`` ranks starts from an exactly computed anchor and
    continues with the ratio ``P(K = j + 1) / P(K = j) = (N - j - R + 1) / (N - j)``,
    so rounding errors cannot accumulate over more than one block. Stops early
    once the pmf (which decreases in ``j``) underflows.
    """
    j0 = 1
    while j0 <= L:
        j1 = min(L, j0 + _BLOCK - 1)
        p0 = R / (N - j0 + 1) * math.exp(_log_q_scalar(N, R, j0 - 1))
        if p0 == 0.0:
            return
        jj = np.arange(j0, j1, dtype=np.float64)
        p = np.empty(j1 - j0 + 1)
        p[0] = p0
        if j1 > j0:
            p[1:] = p0 * np.cumprod((N - jj - R + 1) / (N - jj))
        yield j0, p
        j0 = j1 + 1


def _direct_rr_moments(N: int, R: int, L: int) -> tuple[float, float]:
    """Mean and variance of ``RR@L`` by two exact passes over the pmf (any R >= 1)."""
    mean = 0.0
    for j0, p in _pmf_blocks(N, R, L):
        mean += float(np.dot(p, 1.0 / np.arange(j0, j0 + p.size)))
    var = 0.0
    for j0, p in _pmf_blocks(N, R, L):
        d = 1.0 / np.arange(j0, j0 + p.size) - mean
        var += float(np.dot(p, d * d))
    tail = math.exp(_log_q_scalar(N, R, L))  # P(K > L): RR@k = 0 there
    var += tail * mean * mean
    return mean, var


def _harmonic_diff(hi: int, lo: int) -> float:
    """``H(hi) - H(lo)`` for ``hi >= lo >= 0`` without cancellation."""
    if hi == lo:
        return 0.0
    if hi - lo <= 64:
        return float(np.sum(1.0 / np.arange(lo + 1, hi + 1, dtype=np.float64)))
    if lo < 64:  # the difference is >= H(lo + 65) - H(lo) > 0.69: no cancellation
        return float(harmonic(np.int64(hi)) - harmonic(np.int64(lo)))
    # Asymptotic series of H(x) = ln x + gamma + 1/(2x) - 1/(12x^2) + 1/(120x^4)
    # - 1/(252x^6) + 1/(240x^8); every difference in factored form (x >= 64:
    # truncation error < 1e-20 relative to hi - lo).
    h, l_, d = float(hi), float(lo), float(hi - lo)
    s = h + l_
    t = math.log1p(d / l_)
    t -= d / (2 * h * l_)
    t += d * s / (12 * h * h * l_ * l_)
    t -= d * s * (h * h + l_ * l_) / (120 * h**4 * l_**4)
    # 1/h^6 - 1/l^6 = -(l^6 - h^6)/(h^6 l^6); l^6 - h^6 = -(d) * (sum of 6 terms)
    p6 = sum(h**i * l_ ** (5 - i) for i in range(6))
    t += d * p6 / (252 * h**6 * l_**6)
    p8 = sum(h**i * l_ ** (7 - i) for i in range(8))
    t -= d * p8 / (240 * h**8 * l_**8)
    return t


def _rr_moments(N, R, K, *, need_var: bool = True):
    """Per-query mean and variance of RR (K None) or RR@K, vectorised."""
    N = N.astype(np.int64)
    R = R.astype(np.int64)
    n = N.size
    mean = np.zeros(n)
    var = np.zeros(n)
    Kx = np.full(n, np.iinfo(np.int64).max // 2, dtype=np.int64) if K is None else K
    Nf = N.astype(np.float64)
    # R = 1: K uniform on 1..N.
    m1 = R == 1
    if np.any(m1):
        L = np.minimum(Kx[m1], N[m1])
        H, H2, n1 = harmonic(L), harmonic2(L), Nf[m1]
        mean[m1] = H / n1
        var[m1] = (n1 * H2 - H * H) / (n1 * n1)
    # R = 2: P(K = j) = 2 (N - j) / (N (N - 1)), j <= N - 1.
    m2 = R == 2
    if np.any(m2):
        L = np.minimum(Kx[m2], N[m2] - 1)
        H, H2, n2 = harmonic(L), harmonic2(L), Nf[m2]
        c = 2.0 / (n2 * (n2 - 1.0))
        mu = c * (n2 * H - L)
        mean[m2] = mu
        var[m2] = c * (n2 * H2 - H) - mu * mu
    # R >= 3: closed-form mean without cutoff, exact sums otherwise.
    m3 = np.flatnonzero(R >= 3)
    if m3.size:
        L = np.minimum(Kx[m3], N[m3] - R[m3] + 1)
        keys = np.stack([N[m3], R[m3], L], axis=1)
        uniq, inv = np.unique(keys, axis=0, return_inverse=True)
        mu_u = np.empty(len(uniq))
        var_u = np.zeros(len(uniq))
        for i, (Ni, Ri, Li) in enumerate(uniq.tolist()):
            if need_var or Li < Ni - Ri + 1:
                mu_u[i], var_u[i] = _direct_rr_moments(Ni, Ri, Li)
            else:  # E[1/K] = R / (N - R + 1) * (H(N) - H(R - 1))
                mu_u[i] = Ri / (Ni - Ri + 1) * _harmonic_diff(Ni, Ri - 1)
        inv = inv.ravel()
        mean[m3] = mu_u[inv]
        var[m3] = var_u[inv]
    return mean, np.maximum(var, 0.0)


@dataclass(frozen=True)
class FirstRelevantRank:
    r"""Exact distribution of the first relevant rank under a random ranking.

    ``K`` is the rank of the first of ``n_relevant`` relevant candidates when
    ``n_candidates`` candidates are put in uniformly random order:
    :math:`P(K = j) = \binom{N-j}{R-1} / \binom{N}{R}` for
    :math:`1 \le j \le N - R + 1`.

    Attributes
    ----------
    n_candidates : int
        ``N >= 1``.
    n_relevant : int
        ``1 <= R <= N``.

    Examples
    --------
    >>> from mrrstats import FirstRelevantRank
    >>> d = FirstRelevantRank(5, 2)
    >>> d.pmf([1, 2, 3, 4, 5]).round(2).tolist()
    [0.4, 0.3, 0.2, 0.1, 0.0]
    >>> round(d.mean(), 4), round(d.rr_mean(), 4)
    (2.0, 0.6417)
    """

    n_candidates: int
    n_relevant: int = 1

    def __post_init__(self):
        N = self.n_candidates
        R = self.n_relevant
        for name, v in (("n_candidates", N), ("n_relevant", R)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise TypeError(f"`{name}` must be an integer, got {v!r}")
        if N < 1 or not 1 <= R <= N:
            raise ValueError(f"need `n_candidates` >= 1 and 1 <= `n_relevant` <= "
                             f"`n_candidates`, got {N} and {R}")
        object.__setattr__(self, "n_candidates", int(N))
        object.__setattr__(self, "n_relevant", int(R))

    @property
    def support(self) -> tuple[int, int]:
        """Smallest and largest possible rank, ``(1, N - R + 1)``."""
        return 1, self.n_candidates - self.n_relevant + 1

    def sf(self, j):
        r""":math:`P(K > j) = \binom{N-j}{R} / \binom{N}{R}`."""
        j = np.asarray(j)
        jj = np.clip(np.floor(j), 0, self.n_candidates).astype(np.int64)
        out = np.exp(_log_q(self.n_candidates, self.n_relevant, jj))
        out = np.where(j < 1, 1.0, out)
        return out[()] if out.ndim == 0 else out

    def cdf(self, j):
        r""":math:`P(K \le j)`, computed as ``-expm1(log sf)`` (accurate when small)."""
        j = np.asarray(j)
        jj = np.clip(np.floor(j), 0, self.n_candidates).astype(np.int64)
        out = -np.expm1(_log_q(self.n_candidates, self.n_relevant, jj))
        out = np.where(j < 1, 0.0, out)
        return out[()] if out.ndim == 0 else out

    def pmf(self, j):
        """``P(K = j)`` (0 outside the support and for non-integer ``j``)."""
        j = np.asarray(j)
        lo, hi = self.support
        ok = (j >= lo) & (j <= hi) & (j == np.floor(j))
        jj = np.where(ok, j, 1).astype(np.int64)
        N, R = self.n_candidates, self.n_relevant
        out = R / (N - jj + 1.0) * np.exp(_log_q(N, R, jj - 1))
        out = np.where(ok, out, 0.0)
        return out[()] if out.ndim == 0 else out

    def mean(self) -> float:
        """``E[K] = (N + 1) / (R + 1)``."""
        return (self.n_candidates + 1) / (self.n_relevant + 1)

    def var(self) -> float:
        """``Var[K] = R (N + 1) (N - R) / ((R + 1)^2 (R + 2))``."""
        N, R = self.n_candidates, self.n_relevant
        return R * (N + 1) * (N - R) / ((R + 1) ** 2 * (R + 2))

    def rr_mean(self, k: int | None = None) -> float:
        """``E[RR]`` (or ``E[RR@k]``); see :func:`expected_rr`."""
        return float(expected_rr(self.n_candidates, self.n_relevant, k=k))

    def rr_var(self, k: int | None = None) -> float:
        """``Var[RR]`` (or ``Var[RR@k]``); see :func:`variance_rr`."""
        return float(variance_rr(self.n_candidates, self.n_relevant, k=k))


# --------------------------------------------------------------------------
# RR and MRR
# --------------------------------------------------------------------------

def _expected_rr_iv(n_candidates, n_relevant, k):
    return _counts_iv(n_candidates, n_relevant, k)


def expected_rr(n_candidates, n_relevant=1, *, k=None):
    r"""Expected reciprocal rank of a uniformly random ranking, per query.

    Parameters
    ----------
    n_candidates : int or array_like of int
        Number of ranked candidates ``N`` per query (>= 0).
    n_relevant : int or array_like of int, optional
        Number of relevant candidates ``R`` per query, ``0 <= R <= N``
        (default 1); broadcast against ``n_candidates``.
    k : int or array_like of int, optional, keyword-only
        Cutoff: ``RR@k = 1/K`` if ``K <= k`` else 0. Default: no cutoff.

    Returns
    -------
    float or numpy.ndarray
        ``E[RR]`` with the broadcast shape of the inputs.

    Notes
    -----
    With ``L = min(k, N - R + 1)``,

    .. math:: E[RR@k] = \sum_{j=1}^{L} \frac{1}{j} \binom{N-j}{R-1} \Big/ \binom{N}{R}.

    Closed forms: ``R = 1`` gives :math:`H(L)/N` (:math:`H(N)/N` without
    cutoff); ``R = 2`` gives :math:`2 (N H(L) - L) / (N (N-1))`; without a
    cutoff, for any ``R``,
    :math:`E[RR] = \frac{R}{N - R + 1} (H(N) - H(R-1))`, from the identity
    :math:`\sum_j \binom{N-j}{m}/j = \binom{N}{m} (H(N) - H(m))`. The remaining
    case (``R >= 3`` with a cutoff) is an exact sum over at most ``L`` terms,
    evaluated in blocks, so no ``N x N`` object is ever built.

    Examples
    --------
    >>> from mrrstats import expected_rr
    >>> float(expected_rr(4))           # H(4)/4 = (1 + 1/2 + 1/3 + 1/4)/4
    0.5208333333333333
    >>> expected_rr([10, 1000], 3, k=10).round(4).tolist()
    [0.5359, 0.0087]
    """
    N, R, K, shape = _expected_rr_iv(n_candidates, n_relevant, k)
    mean, _ = _rr_moments(N, R, K, need_var=False)
    return _shaped(mean, shape)


def _variance_rr_iv(n_candidates, n_relevant, k):
    return _counts_iv(n_candidates, n_relevant, k)


def variance_rr(n_candidates, n_relevant=1, *, k=None):
    r"""Variance of the reciprocal rank of a uniformly random ranking, per query.

    Parameters are those of :func:`expected_rr`.

    Returns
    -------
    float or numpy.ndarray
        ``Var[RR]`` (or ``Var[RR@k]``).

    Notes
    -----
    ``R = 1``: :math:`V = (N H_2(L) - H(L)^2)/N^2` with ``L = min(k, N)``
    (PyKEEN's closed form for ``L = N``). ``R = 2``:
    :math:`E[RR^2] = 2 (N H_2(L) - H(L)) / (N (N-1))` with ``L = min(k, N-1)``.
    ``R >= 3``: two exact passes over the pmf,
    :math:`\sum_{j \le L} P(K=j) (1/j - \mu)^2 + P(K > L)\,\mu^2`, which is
    free of the cancellation of :math:`E[RR^2] - \mu^2`. It costs
    :math:`O(\min(k, N - R + 1))` per distinct ``(N, R, k)`` (about a second for
    ``N = 10^7``), in blocks of 65,536 ranks: memory stays constant.

    Examples
    --------
    >>> from mrrstats import variance_rr
    >>> round(float(variance_rr(2)), 6)    # RR is 1 or 1/2 with equal probability
    0.0625
    """
    N, R, K, shape = _variance_rr_iv(n_candidates, n_relevant, k)
    _, var = _rr_moments(N, R, K)
    return _shaped(var, shape)


def _expected_mrr_iv(n_candidates, n_relevant, k, weights):
    N, R, K, _ = _counts_iv(n_candidates, n_relevant, k)
    if N.size == 0:
        raise ValueError("`n_candidates` must hold at least one query")
    return N, R, K, _weights_iv(weights, N.size)


def expected_mrr(n_candidates, n_relevant=1, *, k=None, weights=None) -> float:
    r"""Expected MRR of a uniformly random ranker over independent queries.

    Parameters
    ----------
    n_candidates, n_relevant, k
        As in :func:`expected_rr`, one entry per query (scalars broadcast).
    weights : array_like, optional, keyword-only
        Non-negative query weights (normalised to sum to 1); default: the
        plain mean over queries.

    Returns
    -------
    float
        :math:`E[\mathrm{MRR}] = \sum_i w_i E[RR_i]`.

    Examples
    --------
    >>> import numpy as np
    >>> from mrrstats import expected_mrr
    >>> N = np.array([10, 20, 40])
    >>> round(expected_mrr(N), 6)
    0.193249
    >>> H = np.cumsum(1 / np.arange(1, 41))
    >>> round(float(np.mean(H[N - 1] / N)), 6)        # mean of H(N_i)/N_i
    0.193249
    """
    N, R, K, w = _expected_mrr_iv(n_candidates, n_relevant, k, weights)
    mean, _ = _rr_moments(N, R, K, need_var=False)
    return float(np.mean(mean)) if w is None else float(np.dot(w, mean))


def _variance_mrr_iv(n_candidates, n_relevant, k, weights):
    return _expected_mrr_iv(n_candidates, n_relevant, k, weights)


def variance_mrr(n_candidates, n_relevant=1, *, k=None, weights=None) -> float:
    r"""Variance of the MRR of a uniformly random ranker over independent queries.

    Parameters are those of :func:`expected_mrr`.

    Returns
    -------
    float
        :math:`\mathrm{Var}[\mathrm{MRR}] = \sum_i w_i^2 \mathrm{Var}[RR_i]`
        (:math:`w_i = 1/n` unweighted).

    Examples
    --------
    >>> from mrrstats import variance_mrr
    >>> round(variance_mrr([2, 2]), 6)     # two independent queries: 0.0625 / 2
    0.03125
    """
    N, R, K, w = _variance_mrr_iv(n_candidates, n_relevant, k, weights)
    _, var = _rr_moments(N, R, K)
    if w is None:
        return float(np.sum(var) / N.size**2)
    return float(np.dot(w * w, var))


def _observed_mrr(mrr, n: int, w):
    m = np.asarray(mrr, dtype=np.float64)
    if m.ndim == 0:
        value = float(m)
    else:
        m = m.ravel()
        if m.size != n:
            raise ValueError(f"`mrr` must be a scalar MRR or one reciprocal rank per query "
                             f"({n}), got {m.size} values")
        if not np.all(np.isfinite(m)) or np.any((m < 0) | (m > 1)):
            raise ValueError("reciprocal ranks in `mrr` must lie in [0, 1]")
        value = float(np.mean(m)) if w is None else float(np.dot(w, m))
    if not np.isfinite(value) or not 0 <= value <= 1:
        raise ValueError(f"`mrr` must lie in [0, 1], got {value}")
    return value


def _adjusted_mrr_iv(mrr, n_candidates, n_relevant, k, weights):
    N, R, K, w = _expected_mrr_iv(n_candidates, n_relevant, k, weights)
    return _observed_mrr(mrr, N.size, w), N, R, K, w


def adjusted_mrr(mrr, n_candidates, n_relevant=1, *, k=None, weights=None) -> float:
    r"""Adjusted MRR :math:`(M - E)/(1 - E)`: 0 for a random ranker, 1 for a perfect one.

    Parameters
    ----------
    mrr : float or array_like
        The observed MRR, or the per-query reciprocal ranks (averaged with
        ``weights``).
    n_candidates, n_relevant, k, weights
        As in :func:`expected_mrr`.

    Returns
    -------
    float
        The adjusted index; its expectation under random ranking is 0 and its
        null variance :math:`V/(1-E)^2`. NaN when ``E = 1`` (every query has
        a single candidate or only relevant ones).

    Examples
    --------
    >>> from mrrstats import adjusted_mrr
    >>> round(adjusted_mrr(0.5, [100, 100]), 4)      # E = H(100)/100 = 0.0519
    0.4726
    """
    m, N, R, K, w = _adjusted_mrr_iv(mrr, n_candidates, n_relevant, k, weights)
    mean, _ = _rr_moments(N, R, K, need_var=False)
    e = float(np.mean(mean)) if w is None else float(np.dot(w, mean))
    return (m - e) / (1.0 - e) if e < 1.0 else float("nan")


# --------------------------------------------------------------------------
# Success@k, mean rank, AP
# --------------------------------------------------------------------------

def _success(N, R, K):
    """P(K <= k) per query: 1 - C(N-R, k)/C(N, k), accurate when small."""
    out = np.zeros(N.size)
    m1 = R == 1
    out[m1] = np.minimum(K[m1], N[m1]) / N[m1]
    rest = np.flatnonzero(R >= 2)
    if rest.size:
        keys = np.stack([N[rest], R[rest], np.minimum(K[rest], N[rest])], axis=1)
        uniq, inv = np.unique(keys, axis=0, return_inverse=True)
        vals = np.array([-math.expm1(_log_q_scalar(n, r, kk)) for n, r, kk in uniq.tolist()])
        out[rest] = vals[inv.ravel()]
    return out


def _expected_success_iv(n_candidates, n_relevant, k):
    return _counts_iv(n_candidates, n_relevant, k, k_required=True)


def expected_success(n_candidates, n_relevant=1, *, k):
    r"""Probability that a random ranking puts a relevant candidate in the top ``k``.

    This is the expected Success@k (Hits@k) per query:
    :math:`P(K \le k) = 1 - \binom{N-R}{k} / \binom{N}{k}` (``k/N`` for ``R = 1``).
    Average over queries (optionally weighted) for the expected Hits@k.

    Parameters
    ----------
    n_candidates, n_relevant
        As in :func:`expected_rr`.
    k : int or array_like of int, keyword-only
        The cutoff (required).

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> from mrrstats import expected_success
    >>> float(expected_success(100, k=10))
    0.1
    >>> round(float(expected_success(100, 5, k=10)), 4)
    0.4162
    """
    N, R, K, shape = _expected_success_iv(n_candidates, n_relevant, k)
    return _shaped(_success(N, R, K), shape)


def _variance_success_iv(n_candidates, n_relevant, k):
    return _counts_iv(n_candidates, n_relevant, k, k_required=True)


def variance_success(n_candidates, n_relevant=1, *, k):
    """Variance ``p (1 - p)`` of Success@k (Hits@k) under random ranking, per query.

    Examples
    --------
    >>> from mrrstats import variance_success
    >>> float(variance_success(100, k=10))
    0.09
    """
    N, R, K, shape = _variance_success_iv(n_candidates, n_relevant, k)
    p = _success(N, R, K)
    return _shaped(p * (1.0 - p), shape)


def _rank_iv(n_candidates, n_relevant):
    N, R, _, shape = _counts_iv(n_candidates, n_relevant, None)
    if np.any(R < 1):
        raise ValueError("`n_relevant` must be >= 1 for the rank (no relevant: infinite rank)")
    return N, R, shape


def expected_rank(n_candidates, n_relevant=1):
    r"""Expected first relevant rank of a random ranking, :math:`(N + 1)/(R + 1)`.

    For ``R = 1`` this is the expected mean rank :math:`(N + 1)/2` of
    link-prediction evaluation (Berrendorf et al., 2020).

    Examples
    --------
    >>> from mrrstats import expected_rank
    >>> float(expected_rank(9)), float(expected_rank(9, 4))
    (5.0, 2.0)
    """
    N, R, shape = _rank_iv(n_candidates, n_relevant)
    return _shaped((N + 1.0) / (R + 1.0), shape)


def variance_rank(n_candidates, n_relevant=1):
    r"""Variance of the first relevant rank, :math:`R (N+1)(N-R) / ((R+1)^2 (R+2))`.

    ``(N^2 - 1)/12`` for ``R = 1`` (a discrete uniform rank).

    Examples
    --------
    >>> from mrrstats import variance_rank
    >>> float(variance_rank(5))
    2.0
    """
    N, R, shape = _rank_iv(n_candidates, n_relevant)
    Nf, Rf = N.astype(np.float64), R.astype(np.float64)
    return _shaped(Rf * (Nf + 1) * (Nf - Rf) / ((Rf + 1) ** 2 * (Rf + 2)), shape)


def _expected_ap_iv(n_candidates, n_relevant):
    N, R, _, shape = _counts_iv(n_candidates, n_relevant, None)
    return N, R, shape


def expected_ap(n_candidates, n_relevant=1):
    r"""Expected average precision of a random ranking (Bestgen, 2015).

    All ``R`` relevant candidates are among the ``N`` ranked ones, and AP
    divides by ``R``:

    .. math:: E[AP] = \frac{1}{N}\left(\frac{R - 1}{N - 1}(N - H(N)) + H(N)\right).

    If only ``R`` of ``R_total`` relevant documents are ranked (a random
    permutation of a retrieved list), multiply by ``R / R_total``. ``R = 0``
    gives 0. The variance has no closed form: see :func:`random_metric_moments`.

    Examples
    --------
    >>> from mrrstats import expected_ap
    >>> round(float(expected_ap(2)), 4), round(float(expected_ap(10, 3)), 4)
    (0.75, 0.45)
    """
    N, R, shape = _expected_ap_iv(n_candidates, n_relevant)
    Nf, Rf = N.astype(np.float64), R.astype(np.float64)
    H = harmonic(N)
    with np.errstate(divide="ignore", invalid="ignore"):
        frac = np.where(N > 1, (Rf - 1) / np.maximum(Nf - 1, 1), 0.0)
        out = np.where(R > 0, (frac * (Nf - H) + H) / np.maximum(Nf, 1), 0.0)
    return _shaped(out, shape)


# --------------------------------------------------------------------------
# any measure of one query: exact enumeration or Monte Carlo
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class RandomMetricMoments:
    """Mean and variance of a measure of one query under random ranking.

    Attributes
    ----------
    measure : str
        Canonical measure name (e.g. ``"AP"``, ``"nDCG@10"``).
    mean : float
        Expected value under a uniformly random permutation of the candidates.
    variance : float
        Its variance (population variance over permutations).
    method : str
        ``"exact enumeration"`` (every distinct arrangement of the grades,
        each equally likely: ``mean`` and ``variance`` are exact up to
        rounding) or ``"monte-carlo"`` (an estimate from ``n_resamples``
        seeded random permutations).
    n_arrangements : int or float
        Number of distinct arrangements of the grades (the multinomial
        coefficient), whether or not they were enumerated (``inf`` when it
        exceeds ``1e304``).
    n_resamples : int or None
        Number of random permutations (Monte Carlo only).
    mean_standard_error : float
        Standard error of ``mean``: 0 for exact enumeration, the sample
        standard deviation over ``sqrt(n_resamples)`` for Monte Carlo.
    """

    measure: str
    mean: float
    variance: float
    method: str
    n_arrangements: int
    n_resamples: int | None
    mean_standard_error: float

    @property
    def std(self) -> float:
        """Standard deviation of the measure under random ranking."""
        return math.sqrt(self.variance)

    @property
    def is_exact(self) -> bool:
        return self.method == "exact enumeration"


def _multiset_arrangements(values: np.ndarray) -> np.ndarray:
    """All distinct orderings of the multiset ``values`` (rows)."""
    N = values.size
    uniq, counts = np.unique(values, return_counts=True)
    rows = [np.full(N, np.nan)]
    free = [np.arange(N)]
    for v, c in zip(uniq[:-1], counts[:-1], strict=True):
        new_rows, new_free = [], []
        for row, fr in zip(rows, free, strict=True):
            for pos in itertools.combinations(range(fr.size), int(c)):
                r = row.copy()
                sel = fr[list(pos)]
                r[sel] = v
                new_rows.append(r)
                new_free.append(np.delete(fr, list(pos)))
        rows, free = new_rows, new_free
    out = np.array(rows)
    for r, fr in zip(out, free, strict=True):
        r[fr] = uniq[-1]
    return out


def _random_metric_moments_iv(grades, measure, judged, rel, method, n_resamples,
                              max_arrangements, batch):
    g = np.asarray(grades, dtype=np.float64).ravel()
    if g.size == 0:
        raise ValueError("`grades` must hold at least one candidate")
    g = np.where(np.isnan(g), 0.0, g)  # unjudged: no gain, not relevant
    if not np.all(np.isfinite(g)) or np.any(g != np.round(g)):
        raise ValueError("`grades` must be whole numbers (NaN means unjudged)")
    ms = parse_measures(measure)
    if len(ms) != 1:
        raise ValueError(f"`measure` must name one measure, got {measure!r}")
    if ms[0].name == "Rank":
        raise ValueError("`measure` 'Rank' has closed forms: use expected_rank/variance_rank")
    if judged is None:
        j = g.copy()
    else:
        j = np.asarray(judged, dtype=np.float64).ravel()
        if not np.all(np.isfinite(j)) or np.any(j != np.round(j)):
            raise ValueError("`judged` grades must be whole numbers")
    if isinstance(rel, bool) or not isinstance(rel, (int, np.integer)) or rel < 1:
        raise ValueError(f"`rel` must be an integer >= 1, got {rel!r}")
    if method not in ("auto", "exact", "monte-carlo"):
        raise ValueError(f"`method` must be 'auto', 'exact' or 'monte-carlo', got {method!r}")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) \
            or n_resamples < 2:
        raise ValueError(f"`n_resamples` must be an integer >= 2, got {n_resamples!r}")
    if isinstance(max_arrangements, bool) or not isinstance(max_arrangements, (int, np.integer)) \
            or max_arrangements < 1:
        raise ValueError(f"`max_arrangements` must be a positive integer, got "
                         f"{max_arrangements!r}")
    if batch is not None and (isinstance(batch, bool) or not isinstance(batch, (int, np.integer))
                              or batch < 1):
        raise ValueError(f"`batch` must be a positive integer or None, got {batch!r}")
    return g, ms[0], j, int(rel)


def _score_permuted(rows: np.ndarray, measure, judged: np.ndarray, rel: int) -> np.ndarray:
    """The measure of every row of ``rows`` (each a ranking of grades)."""
    n, N = rows.shape
    jg = np.sort(judged.astype(np.int64))[::-1]
    offsets = np.arange(n + 1, dtype=np.int64) * N
    joff = np.arange(n + 1, dtype=np.int64) * jg.size
    J = Judged(np.arange(n).astype(object), joff, np.tile(jg, n))
    out = compute_measures([measure], offsets=offsets, grades=rows.ravel(), judged=J, rel=rel)
    return out[str(measure)]


def random_metric_moments(grades, measure="AP", *, judged=None, rel=1, method="auto",
                          n_resamples=10_000, max_arrangements=100_000, batch=None,
                          rng=None) -> RandomMetricMoments:
    r"""Mean and variance of any measure of one query under a random permutation.

    The ``N`` candidates with the given ``grades`` are put in uniformly random
    order and scored with the trec_eval definitions of :mod:`mrrstats.metrics`.

    Parameters
    ----------
    grades : array_like
        Grade of each of the ``N`` candidates (NaN: unjudged, i.e. not
        relevant and no gain).
    measure : str, optional
        Canonical measure name: ``"AP"`` (default), ``"AP@k"``, ``"nDCG"``,
        ``"nDCG@k"``, ``"RR"``, ``"P@k"``, ``"Success@k"``, ``"R@k"`` ...
    judged : array_like, optional, keyword-only
        All judged grades of the query, for AP's number of relevant documents
        and the ideal DCG; default ``grades`` (a random ranking of the judged
        pool). Pass the query's qrels grades when permuting a retrieved list.
    rel : int, keyword-only
        Minimum relevant grade (default 1).
    method : {"auto", "exact", "monte-carlo"}, keyword-only
        ``"exact"`` enumerates every distinct arrangement of the grades
        (there are :math:`N! / \prod_g c_g!` for grade counts :math:`c_g`);
        ``"monte-carlo"`` scores ``n_resamples`` random permutations;
        ``"auto"`` (default) enumerates when there are at most
        ``max_arrangements`` arrangements.
    n_resamples : int, keyword-only
        Number of random permutations for Monte Carlo (default 10,000).
    max_arrangements : int, keyword-only
        Largest enumeration ``"auto"`` attempts (default 100,000).
    batch : int, optional, keyword-only
        Permutations scored per batch (memory bound); the result does not
        depend on it.
    rng : None, int or numpy.random.Generator, keyword-only
        Seed for Monte Carlo.

    Returns
    -------
    RandomMetricMoments
        Its ``method`` says whether the values are exact or estimated.

    Notes
    -----
    Monte-Carlo permutations are ``argsort`` of i.i.d. uniforms drawn row by
    row, so the same seed gives the same permutations whatever ``batch``.

    Examples
    --------
    >>> from mrrstats import random_metric_moments
    >>> res = random_metric_moments([1, 1, 0, 0, 0], "AP")
    >>> res.method, round(res.mean, 4)
    ('exact enumeration', 0.5925)
    >>> res = random_metric_moments([2, 1] + [0] * 98, "nDCG@10", method="monte-carlo",
    ...                             n_resamples=2000, rng=1)
    >>> res.method, abs(res.mean - 0.04) < 5 * res.mean_standard_error + 0.01
    ('monte-carlo', True)
    """
    g, m, judged_g, rel = _random_metric_moments_iv(grades, measure, judged, rel, method,
                                                     n_resamples, max_arrangements, batch)
    N = g.size
    _, counts = np.unique(g, return_counts=True)
    log_arr = float(special.gammaln(N + 1) - special.gammaln(counts + 1).sum())
    if log_arr < 700:  # the exact multinomial coefficient
        n_arr = math.factorial(N)
        for c in counts.tolist():
            n_arr //= math.factorial(c)
    else:
        n_arr = math.inf
    exact = method == "exact" or (method == "auto" and n_arr <= max_arrangements)
    if exact:
        if n_arr > max(max_arrangements, 1_000_000):
            raise ValueError(f"{n_arr} arrangements are too many to enumerate; use "
                             "method='monte-carlo'")
        rows = _multiset_arrangements(g)
        vals = _score_permuted(rows, m, judged_g, rel)
        mean = float(np.mean(vals))
        var = float(np.mean((vals - mean) ** 2))
        return RandomMetricMoments(str(m), mean, var, "exact enumeration", n_arr, None, 0.0)
    gen = np.random.default_rng(rng)
    B = int(n_resamples)
    b = int(batch) if batch is not None else max(1, min(B, (1 << 20) // N))
    vals_all = np.empty(B)
    done = 0
    while done < B:
        nb = min(b, B - done)
        perm = np.argsort(gen.random((nb, N)), axis=1, kind="stable")
        vals_all[done:done + nb] = _score_permuted(g[perm], m, judged_g, rel)
        done += nb
    mean = float(np.mean(vals_all))
    var = float(np.var(vals_all, ddof=1))
    return RandomMetricMoments(str(m), mean, var, "monte-carlo", n_arr, B,
                               math.sqrt(var / B))


# --------------------------------------------------------------------------
# the test "better than a random ranker"
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class RandomBaselineResult:
    r"""Observed MRR against a uniformly random ranker.

    Attributes
    ----------
    measure : str
        ``"RR"`` or ``"RR@k"``.
    statistic : float
        The observed (weighted) MRR ``M``.
    expected : float
        ``E``, its expectation under random ranking.
    variance : float
        ``V``, its variance under random ranking (independent queries).
    adjusted : float
        Adjusted MRR :math:`(M - E)/(1 - E)`; expectation 0 under the null.
    zscore : float
        :math:`(M - E)/\sqrt{V}`; expectation 0 and variance 1 under the null.
    pvalue : float
        P-value of the test of ``alternative`` (``"greater"``: better than
        random).
    alternative : str
    method : str
        ``"exact"`` (the null distribution of MRR by convolution of the
        per-query distributions) or ``"monte-carlo"`` (p-value
        :math:`(b + 1)/(B + 1)` from ``n_resamples`` random rankings).
    n_resamples : int or None
        ``B`` for Monte Carlo.
    n_queries : int
    """

    measure: str
    statistic: float
    expected: float
    variance: float
    adjusted: float
    zscore: float
    pvalue: float
    alternative: str
    method: str
    n_resamples: int | None
    n_queries: int

    @property
    def std(self) -> float:
        """Standard deviation of MRR under random ranking, :math:`\\sqrt{V}`."""
        return math.sqrt(self.variance)

    @property
    def adjusted_variance(self) -> float:
        """Null variance of the adjusted MRR, :math:`V / (1 - E)^2`."""
        return self.variance / (1.0 - self.expected) ** 2 if self.expected < 1 else math.nan

    def to_dict(self) -> dict:
        return {"measure": self.measure, "queries": self.n_queries,
                "observed": self.statistic, "expected": self.expected, "std": self.std,
                "adjusted": self.adjusted, "z": self.zscore, "pvalue": self.pvalue,
                "alternative": self.alternative, "method": self.method,
                "n_resamples": self.n_resamples}


def _query_support(N: int, R: int, K) -> tuple[np.ndarray, np.ndarray]:
    """Support and probabilities of RR (or RR@K) for one query."""
    if R == 0:
        return np.zeros(1), np.ones(1)
    L = N - R + 1 if K is None else min(int(K), N - R + 1)
    p = np.concatenate([blk for _, blk in _pmf_blocks(N, R, L)])
    v = 1.0 / np.arange(1, p.size + 1)
    tail = math.exp(_log_q_scalar(N, R, L))
    if tail > 0:
        v = np.append(v, 0.0)
        p = np.append(p, tail)
    return v, p


def _exact_null(N, R, K, w, max_support: int, budget: float = math.inf):
    """Null distribution of the weighted MRR by convolution, or None if too large.

    Returns ``(values, probabilities, tolerance)``: atoms whose values differ
    by less than ``2**-40`` are merged at each step, so a value may be off by
    at most ``steps * 2**-40``, which the returned tolerance covers. Gives up
    (None) when the support exceeds ``max_support`` atoms or the total work
    (atoms times support sizes, summed over queries) exceeds ``budget``.
    """
    n = N.size
    ww = np.full(n, 1.0 / n) if w is None else w
    scale = float(1 << 40)
    order = []
    for i in range(n):
        if R[i] == 0 or ww[i] == 0:
            continue  # RR = 0 under every permutation
        L = N[i] - R[i] + 1 if K is None else min(int(K[i]), N[i] - R[i] + 1)
        order.append((int(L), i))
    order.sort()
    vals = np.zeros(1)
    probs = np.ones(1)
    work = 0.0
    for _, i in order:
        v, p = _query_support(int(N[i]), int(R[i]), None if K is None else K[i])
        work += vals.size * v.size
        if vals.size * v.size > 4 * max_support or work > budget:
            return None
        nv = (vals[:, None] + ww[i] * v[None, :]).ravel()
        npb = (probs[:, None] * p[None, :]).ravel()
        key = np.rint(nv * scale).astype(np.int64)
        uk, first, inv = np.unique(key, return_index=True, return_inverse=True)
        probs = np.bincount(inv.ravel(), weights=npb, minlength=uk.size)
        vals = nv[first]
        keep = probs > 0
        vals, probs = vals[keep], probs[keep]
        if vals.size > max_support:
            return None
    return vals, probs, _TOL + len(order) / scale


def _rr_sampler(N: int, R: int, K):
    """A function mapping uniforms ``u`` in [0, 1) to RR (or RR@K) draws."""
    if R == 0:
        return lambda u: np.zeros(u.shape)
    top = N - R + 1
    L = top if K is None else min(int(K), top)

    def finish(Kdraw):
        out = 1.0 / Kdraw
        if K is not None:
            out = np.where(Kdraw <= int(K), out, 0.0)
        return out

    if R == 1:  # uniform rank: K = floor(u N) + 1
        return lambda u: finish(np.minimum(np.floor(u * N) + 1.0, N))
    if L <= _TABLE_MAX:
        cdf = np.cumsum(np.concatenate([blk for _, blk in _pmf_blocks(N, R, L)]))
        if cdf.size < L:
            cdf = np.concatenate([cdf, np.full(L - cdf.size, cdf[-1] if cdf.size else 0.0)])
        if L == top:
            cdf[-1] = 1.0
        return lambda u: finish(np.searchsorted(cdf, u, side="right") + 1.0)

    # Very long support (huge N, small R, no cutoff): bisection on the survival
    # function P(K > j) in log space (gammaln-based beyond 64 relevant).
    def log_sf(j):
        j = j.astype(np.float64)
        if R <= 64:
            with np.errstate(divide="ignore"):
                return np.log1p(-j[:, None] / (N - np.arange(R, dtype=np.float64))).sum(axis=1)
        return (special.gammaln(N - j + 1) - special.gammaln(N - j - R + 1)
                - special.gammaln(N + 1.0) + special.gammaln(N - R + 1.0))

    def draw(u):
        flat = u.ravel()
        target = np.log1p(-flat)  # K = smallest j with P(K > j) < 1 - u
        lo = np.zeros(flat.size, dtype=np.int64)          # sf(lo) >= 1 - u
        hi = np.full(flat.size, L, dtype=np.int64)
        beyond = log_sf(hi) >= target                     # K > L (only with a cutoff)
        while True:
            active = hi - lo > 1
            if not active.any():
                break
            mid = (lo + hi) // 2
            ok = log_sf(mid) < target
            hi = np.where(active & ok, mid, hi)
            lo = np.where(active & ~ok, mid, lo)
        Kd = np.where(beyond, L + 1, hi).astype(np.float64)
        return finish(Kd).reshape(u.shape)

    return draw


def _random_baseline_test_iv(reciprocal_ranks, n_candidates, n_relevant, k, weights,
                             alternative, method, n_resamples, batch, max_support):
    N, R, K, _ = _counts_iv(n_candidates, n_relevant, k)
    if N.size == 0:
        raise ValueError("`n_candidates` must hold at least one query")
    w = _weights_iv(weights, N.size)
    rr = np.asarray(reciprocal_ranks, dtype=np.float64)
    if rr.ndim == 0:
        rr = np.full(N.size, float(rr))
    rr = rr.ravel()
    if rr.size != N.size:
        raise ValueError(f"`reciprocal_ranks` must have one value per query ({N.size}), "
                         f"got {rr.size}")
    if not np.all(np.isfinite(rr)) or np.any((rr < 0) | (rr > 1)):
        raise ValueError("`reciprocal_ranks` must lie in [0, 1]")
    if alternative not in _ALTERNATIVES:
        raise ValueError(f"`alternative` must be one of {', '.join(map(repr, _ALTERNATIVES))}, "
                         f"got {alternative!r}")
    if method not in ("auto", "exact", "monte-carlo"):
        raise ValueError(f"`method` must be 'auto', 'exact' or 'monte-carlo', got {method!r}")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) \
            or n_resamples < 1:
        raise ValueError(f"`n_resamples` must be a positive integer, got {n_resamples!r}")
    if batch is not None and (isinstance(batch, bool) or not isinstance(batch, (int, np.integer))
                              or batch < 1):
        raise ValueError(f"`batch` must be a positive integer or None, got {batch!r}")
    if isinstance(max_support, bool) or not isinstance(max_support, (int, np.integer)) \
            or max_support < 1:
        raise ValueError(f"`max_support` must be a positive integer, got {max_support!r}")
    return rr, N, R, K, w


def random_baseline_test(reciprocal_ranks, n_candidates, n_relevant=1, *, k=None,
                         weights=None, alternative=BASELINE_ALTERNATIVE, method="auto",
                         n_resamples=N_RESAMPLES, batch=None, max_support=1 << 18,
                         rng=None) -> RandomBaselineResult:
    r"""Is an observed MRR better than that of a uniformly random ranker?

    Parameters
    ----------
    reciprocal_ranks : array_like
        Observed per-query reciprocal ranks (``RR`` or ``RR@k``), in [0, 1].
    n_candidates, n_relevant, k
        As in :func:`expected_rr`, one entry per query.
    weights : array_like, optional, keyword-only
        Query weights for a weighted MRR (normalised to sum to 1).
    alternative : {"greater", "less", "two-sided"}, keyword-only
        ``"greater"`` (default): the ranker is better than random.
    method : {"auto", "exact", "monte-carlo"}, keyword-only
        ``"exact"`` convolves the per-query null distributions of
        :math:`w_i RR_i` (atoms closer than :math:`2^{-40}` are merged) and
        raises if the support would exceed ``max_support`` atoms;
        ``"monte-carlo"`` draws ``n_resamples`` random rankings (the first
        relevant rank of each query by inverse-CDF sampling) and returns
        :math:`(b + 1)/(B + 1)`; ``"auto"`` (default) tries exact first and
        falls back to Monte Carlo when the support exceeds ``max_support`` or
        the convolution would take more than about ``32 * max_support``
        operations (a fraction of a second).
    n_resamples : int, keyword-only
        ``B`` for Monte Carlo (default 10,000, :data:`mrrstats.defaults.N_RESAMPLES`).
    batch : int, optional, keyword-only
        Random rankings per batch; the result does not depend on it.
    max_support : int, keyword-only
        Largest number of atoms of the exact null distribution (default 2**18).
    rng : None, int or numpy.random.Generator, keyword-only

    Returns
    -------
    RandomBaselineResult

    Notes
    -----
    Queries are independent under the null. ``E`` and ``V`` are exact
    (:func:`expected_mrr`, :func:`variance_mrr`); the z-score is reported for
    information and is not used for the p-value. Null values within
    :math:`10^{-12}` of the observed MRR count as at least as extreme. For
    ``"two-sided"`` the p-value is twice the smaller one-sided one, capped at 1
    (as in :func:`scipy.stats.permutation_test`).

    Examples
    --------
    >>> from mrrstats import random_baseline_test
    >>> res = random_baseline_test([1.0, 0.5, 1.0], [5, 5, 5])
    >>> res.method, round(res.expected, 4), round(res.pvalue, 4)
    ('exact', 0.4567, 0.032)
    >>> round(res.zscore, 2), round(res.adjusted, 3)
    (2.25, 0.693)
    """
    rr, N, R, K, w = _random_baseline_test_iv(reciprocal_ranks, n_candidates, n_relevant, k,
                                              weights, alternative, method, n_resamples,
                                              batch, max_support)
    mean, var = _rr_moments(N, R, K)
    if w is None:
        M, E, V = float(np.mean(rr)), float(np.mean(mean)), float(np.sum(var) / N.size**2)
    else:
        M, E, V = float(np.dot(w, rr)), float(np.dot(w, mean)), float(np.dot(w * w, var))
    adjusted = (M - E) / (1.0 - E) if E < 1 else math.nan
    if V > 0:
        z = (M - E) / math.sqrt(V)
    else:
        z = 0.0 if abs(M - E) <= _TOL else math.copysign(math.inf, M - E)
    measure = "RR" if K is None else (f"RR@{int(K[0])}" if np.all(K == K[0]) else "RR@k")

    null = None
    if method in ("auto", "exact"):
        budget = 32.0 * max_support if method == "auto" else math.inf
        null = _exact_null(N, R, K, w, int(max_support), budget)
        if null is None and method == "exact":
            raise ValueError(f"the exact null distribution needs more than `max_support` = "
                             f"{max_support} atoms; use method='monte-carlo'")
    if null is not None:
        vals, probs, tol = null
        p_greater = float(probs[vals >= M - tol].sum())
        p_less = float(probs[vals <= M + tol].sum())
        used, B = "exact", None
    else:
        gen = np.random.default_rng(rng)
        B = int(n_resamples)
        Q = N.size
        b = int(batch) if batch is not None else max(1, min(B, (1 << 20) // max(Q, 1)))
        keys = np.stack([N, R, K if K is not None else np.zeros(Q, np.int64)], axis=1)
        uniq, inv = np.unique(keys, axis=0, return_inverse=True)
        inv = inv.ravel()
        groups = [(np.flatnonzero(inv == g),
                   _rr_sampler(int(n), int(r), None if K is None else int(kk)))
                  for g, (n, r, kk) in enumerate(uniq.tolist())]
        ww = np.full(Q, 1.0 / Q) if w is None else w
        ge = le = 0
        done = 0
        while done < B:
            nb = min(b, B - done)
            u = gen.random((nb, Q))
            draws = np.empty((nb, Q))
            for cols, sampler in groups:
                draws[:, cols] = sampler(u[:, cols])
            stat = draws @ ww if w is not None else draws.mean(axis=1)
            ge += int(np.count_nonzero(stat >= M - _TOL))
            le += int(np.count_nonzero(stat <= M + _TOL))
            done += nb
        p_greater = (ge + 1) / (B + 1)
        p_less = (le + 1) / (B + 1)
        used = "monte-carlo"
    if alternative == "greater":
        p = p_greater
    elif alternative == "less":
        p = p_less
    else:
        p = min(1.0, 2.0 * min(p_greater, p_less))
    return RandomBaselineResult(measure=measure, statistic=M, expected=E, variance=V,
                                adjusted=adjusted, zscore=z, pvalue=min(1.0, p),
                                alternative=alternative, method=used, n_resamples=B,
                                n_queries=int(N.size))


# --------------------------------------------------------------------------
# TREC runs: the two explicit meanings of "random"
# --------------------------------------------------------------------------

def _random_baseline_counts_iv(evaluation, random):
    if random not in RANDOM_MODELS:
        raise ValueError(f"`random` must be 'retrieved' (a random permutation of the "
                         f"retrieved list) or 'judged' (a random ranking of the judged "
                         f"pool), got {random!r}")
    stats_ = getattr(evaluation, "query_stats", None)
    if not isinstance(stats_, pd.DataFrame):
        raise TypeError("`evaluation` must be an Evaluation (from mrrstats.evaluate)")
    return stats_


def random_baseline_counts(evaluation, *, random) -> pd.DataFrame:
    """Candidate and relevant counts per query under one explicit random model.

    Parameters
    ----------
    evaluation : Evaluation
        The result of :func:`mrrstats.evaluate`.
    random : {"retrieved", "judged"}, keyword-only
        ``"retrieved"``: a random permutation of each retrieved list
        (``n_candidates`` = documents retrieved, ``n_relevant`` = relevant
        documents retrieved). ``"judged"``: a random ranking of the judged
        pool (``n_candidates`` = judged documents, ``n_relevant`` = judged
        relevant documents). There is no default: the two answer different
        questions.

    Returns
    -------
    pandas.DataFrame
        Columns ``run, query, n_candidates, n_relevant`` (one row per
        evaluated query and run).

    Examples
    --------
    >>> import mrrstats
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 1}}
    >>> run = {"q1": {"d2": 0.9, "d1": 0.8}}
    >>> ev = mrrstats.evaluate(qrels, {"bm25": run})
    >>> random_baseline_counts(ev, random="retrieved")[["n_candidates", "n_relevant"]].values
    array([[2, 1]])
    >>> random_baseline_counts(ev, random="judged")[["n_candidates", "n_relevant"]].values
    array([[3, 2]])
    """
    st = _random_baseline_counts_iv(evaluation, random)
    if random == "retrieved":
        n, r = st["num_ret"], st["num_rel_ret"]
    else:
        n, r = st["num_judged"], st["num_rel"]
    return pd.DataFrame({"run": st["run"].to_numpy(), "query": st["query"].astype(str).to_numpy(),
                         "n_candidates": n.to_numpy(np.int64),
                         "n_relevant": r.to_numpy(np.int64)})


def _evaluation_baseline_iv(evaluation, random, measure):
    _random_baseline_counts_iv(evaluation, random)

    ms = parse_measures(measure)
    if len(ms) != 1 or ms[0].name != "RR":
        raise ValueError(f"`measure` must be 'RR' or 'RR@k', got {measure!r}")
    name = str(ms[0])
    if name not in evaluation.measure_names:
        raise ValueError(f"`measure` {name!r} was not evaluated (have "
                         f"{evaluation.measure_names}); pass it to evaluate()")
    if ms[0].rel is not None and ms[0].rel != evaluation.settings.get("rel", 1):
        raise ValueError("`measure` with its own rel= is not supported: evaluate with rel= "
                         "instead, so that the relevant counts match")
    return ms[0]


def evaluation_baseline(evaluation, *, random=RANDOM, measure="RR",
                        alternative=BASELINE_ALTERNATIVE, method="auto",
                        n_resamples=N_RESAMPLES, rng=None, progress=None) -> pd.DataFrame:
    """Observed MRR of every run of an evaluation against a random ranker.

    Parameters
    ----------
    evaluation : Evaluation
        From :func:`mrrstats.evaluate`; it must include ``measure``.
    random : {"retrieved", "judged"}, keyword-only
        The random model (see :func:`random_baseline_counts`); default
        ``"retrieved"`` (:data:`mrrstats.defaults.RANDOM`: a random permutation of
        each retrieved list).
    measure : str, keyword-only
        ``"RR"`` (default) or ``"RR@k"``.
    alternative, method, n_resamples
        As in :func:`random_baseline_test`.
    rng : None, int or numpy.random.Generator, keyword-only
        One generator is used for all runs, in order.
    progress : bool or None, keyword-only
        A bar over the runs on standard error; default (None) only on an
        interactive terminal outside CI. Never changes the result.

    Returns
    -------
    pandas.DataFrame
        Index ``run``; columns ``measure, queries, observed, expected, std,
        adjusted, z, pvalue, alternative, method, n_resamples``.

    Examples
    --------
    >>> import mrrstats
    >>> qrels = {"q1": {"d1": 1}, "q2": {"d5": 1}, "q3": {"d9": 1}}
    >>> run = {q: {f"d{i}": 10 - i for i in range(1, 10)} for q in qrels}
    >>> tab = mrrstats.evaluation_baseline(mrrstats.evaluate(qrels, {"sys": run}),
    ...                                    random="retrieved")
    >>> tab[["observed", "expected", "pvalue"]].round(4)
         observed  expected  pvalue
    run
    sys     0.437    0.3143  0.2414
    """
    m = _evaluation_baseline_iv(evaluation, random, measure)
    counts = random_baseline_counts(evaluation, random=random)
    gen = np.random.default_rng(rng)
    rows = {}
    for run in progress_bar(evaluation.runs, desc="random-ranking baseline", unit="run",
                            progress=progress):
        c = counts[counts["run"] == run].set_index("query")
        col = evaluation.values[run][str(m)]
        rr = pd.Series(col.to_numpy(np.float64), index=col.index.astype(str)).reindex(c.index)
        if rr.isna().any():
            raise ValueError(f"run {run!r}: no {m} value for some queries of query_stats")
        res = random_baseline_test(rr.to_numpy(np.float64), c["n_candidates"].to_numpy(),
                                   c["n_relevant"].to_numpy(), k=m.k,
                                   alternative=alternative, method=method,
                                   n_resamples=n_resamples, rng=gen)
        d = res.to_dict()
        d["measure"] = str(m)
        rows[run] = d
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = "run"
    return frame
