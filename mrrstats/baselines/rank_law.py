r"""The law of the first relevant rank under a uniformly random ranking.

The numeric core shared by the closed forms (:mod:`mrrstats.baselines.first_rank`) and
the test against a random ranker (:mod:`mrrstats.baselines.random_baseline`).

A random ranking of ``N`` candidates, ``R`` of them relevant, puts the first relevant
one at rank ``K`` with

.. math:: P(K > a) = \binom{N - a}{R} \Big/ \binom{N}{R}, \qquad
          P(K = j) = \binom{N - j}{R - 1} \Big/ \binom{N}{R}.

This module evaluates :math:`\log P(K > a)` (:func:`log_sf`), the pmf in blocks of
ranks (:func:`pmf_blocks`) and the mean and variance of ``RR = 1/K`` and ``RR@k``
(:func:`rr_moments`), and normalises the ``(N, R, k)`` counts and query weights every
public function takes (:func:`counts_iv`, :func:`weights_iv`). Nothing here is public
API: the names are public so that the modules of :mod:`mrrstats.baselines` share them.
"""

from __future__ import annotations

import math

import numpy as np

from ..deprecation import renamed_value
from ..errors import ParameterError, ParameterTypeError
from ..glossary import term_of
from ..numerics import harmonic, harmonic2
from ..validation import array_iv

__all__ = ["counts_iv", "weights_iv", "shaped", "method_iv", "METHODS", "log_sf", "pmf_blocks",
           "rr_moments", "BLOCK"]

#: ``method=`` of the random baselines: exact when feasible, exact, or Monte Carlo.
METHODS = ("auto", "exact", "monte-carlo")
_RETIRED_METHODS = {old: "monte-carlo" for old in term_of("monte-carlo").retired}

BLOCK = 1 << 16  # pmf evaluated in blocks of this many ranks


# --------------------------------------------------------------------------
# input validation
# --------------------------------------------------------------------------
def _int_array(x, name: str, *, minimum: int) -> np.ndarray:
    """An integer-valued array >= minimum (floats with integral values accepted)."""
    if isinstance(x, (bool, np.bool_)):
        raise ParameterTypeError(f"`{name}` must be integers, got a boolean")
    try:
        a = np.asarray(x)
    except Exception as exc:  # pragma: no cover - exotic inputs
        raise ParameterTypeError(f"`{name}` must be array-like of integers") from exc
    if a.dtype == bool or not (np.issubdtype(a.dtype, np.integer)
                               or np.issubdtype(a.dtype, np.floating)):
        raise ParameterTypeError(f"`{name}` must be integers, got dtype {a.dtype}")
    if np.issubdtype(a.dtype, np.floating):
        if not np.all(np.isfinite(a)) or np.any(a != np.round(a)):
            raise ParameterError(f"`{name}` must be whole numbers")
        if a.size and np.abs(a).max() >= 2.0**62:
            raise ParameterError(f"`{name}` must be below 2**62, got {np.abs(a).max():g}")
    a = a.astype(np.int64)
    if a.size and a.min() < minimum:
        raise ParameterError(f"`{name}` must be >= {minimum}, got {a.min()}")
    return a


def counts_iv(n_candidates, n_relevant, k, *, k_required: bool = False):
    """Normalise ``(N, R, k)``; returns broadcast int64 arrays and the shape."""
    N = _int_array(n_candidates, "n_candidates", minimum=0)
    R = _int_array(n_relevant, "n_relevant", minimum=0)
    for name, arr in (("n_candidates", N), ("n_relevant", R)):
        if arr.size == 0:
            raise ParameterError(f"`{name}` must hold at least one query (one count, or one "
                                 "per query)", name=name)
    try:
        N, R = np.broadcast_arrays(N, R)
    except ValueError:
        raise ParameterError(f"`n_relevant` (shape {np.shape(n_relevant)}) does not broadcast "
                         f"with `n_candidates` (shape {np.shape(n_candidates)})") from None
    if np.any(R > N):
        i = np.flatnonzero((R > N).ravel())[0]
        raise ParameterError(f"`n_relevant` must be <= `n_candidates`, got {R.ravel()[i]} "
                         f"relevant among {N.ravel()[i]} candidates")
    if k is None:
        if k_required:
            raise ParameterError("`k` (the cutoff) is required")
        K = None
    else:
        K = _int_array(k, "k", minimum=1)
        if K.size == 0:
            raise ParameterError("`k` is empty: give one cutoff, or one per query", name="k")
        try:
            N, R, K = np.broadcast_arrays(N, R, K)
        except ValueError:
            raise ParameterError("`k` does not broadcast with `n_candidates`") from None
    shape = N.shape
    return (N.ravel().copy(), R.ravel().copy(),
            None if K is None else K.ravel().copy(), shape)


def weights_iv(weights, n: int) -> np.ndarray | None:
    """Query weights normalised to sum to 1 (None: the plain mean), one per query."""
    if weights is None:
        return None
    w = array_iv(weights, "weights", ndim=(0, 1), low=0.0).ravel()
    if w.size != n:
        raise ParameterError(f"`weights` must have one entry per query ({n}), got {w.size}")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ParameterError("`weights` must be finite and non-negative")
    if w.sum() <= 0:
        raise ParameterError("`weights` must not all be zero")
    return w / w.sum()


def method_iv(method) -> str:
    """``method`` in :data:`METHODS` (retired spellings such as ``"monte carlo"`` warn)."""
    method = renamed_value(method, _RETIRED_METHODS, "method")
    if not isinstance(method, str | None) or method not in METHODS:
        raise ParameterError(f"`method` must be 'auto', 'exact' or 'monte-carlo', got {method!r}")
    return method


def shaped(values: np.ndarray, shape):
    """``values`` in the broadcast ``shape`` of the inputs (a float for a scalar)."""
    out = values.reshape(shape)
    return out[()] if out.ndim == 0 else out


# --------------------------------------------------------------------------
# exact distribution of the first relevant rank
# --------------------------------------------------------------------------

def log_sf(N: int, R: int, a: int) -> float:
    r"""``log P(K > a) = log[C(N - R, a) / C(N, a)] = log[C(N - a, R) / C(N, R)]``.

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


def pmf_blocks(N: int, R: int, L: int):
    """Yield ``(j0, p)`` with ``p[i] = P(K = j0 + i)`` for ranks up to ``L``.

    Each block of ``BLOCK`` ranks starts from an exactly computed anchor and
    continues with the ratio ``P(K = j + 1) / P(K = j) = (N - j - R + 1) / (N - j)``,
    so rounding errors cannot accumulate over more than one block. Stops early
    once the pmf (which decreases in ``j``) underflows.
    """
    j0 = 1
    while j0 <= L:
        j1 = min(L, j0 + BLOCK - 1)
        p0 = R / (N - j0 + 1) * math.exp(log_sf(N, R, j0 - 1))
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
    for j0, p in pmf_blocks(N, R, L):
        mean += float(np.dot(p, 1.0 / np.arange(j0, j0 + p.size)))
    var = 0.0
    for j0, p in pmf_blocks(N, R, L):
        d = 1.0 / np.arange(j0, j0 + p.size) - mean
        var += float(np.dot(p, d * d))
    tail = math.exp(log_sf(N, R, L))  # P(K > L): RR@k = 0 there
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


def rr_moments(N, R, K, *, need_var: bool = True):
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
