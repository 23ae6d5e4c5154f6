r"""The first relevant rank of a random ranking, and the closed forms that follow.

A *uniformly random ranker* puts the ``N`` candidates of a query in a uniformly
random order. If ``R`` of them are relevant, the rank ``K`` of the first
relevant one has the exact distribution

.. math:: P(K = j) = \binom{N - j}{R - 1} \Big/ \binom{N}{R}, \qquad j = 1, \dots, N - R + 1,

and everything here follows from it exactly: the expectation and variance of
the reciprocal rank ``RR = 1/K`` (and of ``RR@k``, which is 0 when ``K > k``),
of MRR over independent queries (optionally weighted), of Success@k (Hits@k)
and of the mean rank, the expected AP, and the adjusted MRR :math:`(M - E)/(1 - E)`;
and, from the uniform place of each document, the expected RBP and Bpref.
The test of "better than a random ranker" is in
:mod:`mrrstats.baselines.random_baseline`; measures without a closed-form variance
(AP, nDCG) in :mod:`mrrstats.baselines.permutation_moments`.

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

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..errors import ParameterError, ParameterTypeError
from ..metrics.measures import parse_measure
from ..numerics import harmonic
from ..validation import array_iv, float_iv
from .rank_law import _int_array, counts_iv, log_sf, rr_moments, shaped, weights_iv

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import FloatArray

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
    "expected_rbp",
    "expected_bpref",
]

_MAX_TABLE = 1_000_000  # ranks FirstRelevantRank.to_frame tabulates by default


def _log_sf_array(N: int, R: int, a):
    """:func:`~mrrstats.baselines.rank_law.log_sf` over an array of ``a``."""
    a = np.asarray(a, dtype=np.int64)
    flat = a.ravel()
    uniq, inv = np.unique(flat, return_inverse=True)
    vals = np.array([log_sf(N, R, int(v)) for v in uniq.tolist()], dtype=np.float64)
    return vals[inv.ravel()].reshape(a.shape)

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
                raise ParameterTypeError(f"`{name}` must be an integer, got {v!r}")
        if N < 1 or not 1 <= R <= N:
            raise ParameterError(f"need `n_candidates` >= 1 and 1 <= `n_relevant` <= "
                             f"`n_candidates`, got {N} and {R}")
        object.__setattr__(self, "n_candidates", int(N))
        object.__setattr__(self, "n_relevant", int(R))

    @property
    def support(self) -> tuple[int, int]:
        """Smallest and largest possible rank, ``(1, N - R + 1)``."""
        return 1, self.n_candidates - self.n_relevant + 1

    def sf(self, j: ArrayLike) -> float | FloatArray:
        r""":math:`P(K > j) = \binom{N-j}{R} / \binom{N}{R}`."""
        j = np.asarray(j)
        jj = np.clip(np.floor(j), 0, self.n_candidates).astype(np.int64)
        out = np.exp(_log_sf_array(self.n_candidates, self.n_relevant, jj))
        out = np.where(j < 1, 1.0, out)
        return out[()] if out.ndim == 0 else out

    def cdf(self, j: ArrayLike) -> float | FloatArray:
        r""":math:`P(K \le j)`, computed as ``-expm1(log sf)`` (accurate when small)."""
        j = np.asarray(j)
        jj = np.clip(np.floor(j), 0, self.n_candidates).astype(np.int64)
        out = -np.expm1(_log_sf_array(self.n_candidates, self.n_relevant, jj))
        out = np.where(j < 1, 0.0, out)
        return out[()] if out.ndim == 0 else out

    def pmf(self, j: ArrayLike) -> float | FloatArray:
        """``P(K = j)`` (0 outside the support and for non-integer ``j``)."""
        j = np.asarray(j)
        lo, hi = self.support
        ok = (j >= lo) & (j <= hi) & (j == np.floor(j))
        jj = np.where(ok, j, 1).astype(np.int64)
        N, R = self.n_candidates, self.n_relevant
        out = R / (N - jj + 1.0) * np.exp(_log_sf_array(N, R, jj - 1))
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

    def to_frame(self, ranks: ArrayLike | None = None) -> pd.DataFrame:
        """The law as a table: one row per rank ``j`` with ``pmf``, ``cdf``, ``sf`` and
        ``rr = 1/j``.

        Parameters
        ----------
        ranks : array_like of int, optional
            The ranks to tabulate; default the whole support ``1 .. N - R + 1``
            (refused beyond 10**6 ranks: pass the ranks you need).

        Examples
        --------
        >>> from mrrstats import FirstRelevantRank
        >>> FirstRelevantRank(4, 2).to_frame().round(4)
                 pmf     cdf      sf      rr
        rank
        1     0.5000  0.5000  0.5000  1.0000
        2     0.3333  0.8333  0.1667  0.5000
        3     0.1667  1.0000  0.0000  0.3333
        """
        if ranks is None:
            lo, hi = self.support
            if hi - lo + 1 > _MAX_TABLE:
                raise ParameterError(f"the support has {hi - lo + 1} ranks; pass `ranks` (at most "
                                 f"{_MAX_TABLE} are tabulated by default)")
            ranks = np.arange(lo, hi + 1)
        j = np.asarray(ranks).ravel()
        if j.size and (not np.issubdtype(j.dtype, np.integer) or j.min() < 1):
            raise ParameterError("`ranks` must be integers >= 1")
        frame = pd.DataFrame({"pmf": np.atleast_1d(self.pmf(j)),
                              "cdf": np.atleast_1d(self.cdf(j)),
                              "sf": np.atleast_1d(self.sf(j)), "rr": 1.0 / j},
                             index=pd.Index(j, name="rank"))
        return frame


# --------------------------------------------------------------------------
# RR and MRR
# --------------------------------------------------------------------------

def _expected_rr_iv(n_candidates, n_relevant, k):
    return counts_iv(n_candidates, n_relevant, k)


def expected_rr(n_candidates: ArrayLike, n_relevant: ArrayLike = 1, *,
                k: ArrayLike | None = None) -> float | FloatArray:
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
    mean, _ = rr_moments(N, R, K, need_var=False)
    return shaped(mean, shape)


def _variance_rr_iv(n_candidates, n_relevant, k):
    return counts_iv(n_candidates, n_relevant, k)


def variance_rr(n_candidates: ArrayLike, n_relevant: ArrayLike = 1, *,
                k: ArrayLike | None = None) -> float | FloatArray:
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
    _, var = rr_moments(N, R, K)
    return shaped(var, shape)


def _expected_mrr_iv(n_candidates, n_relevant, k, weights):
    N, R, K, _ = counts_iv(n_candidates, n_relevant, k)
    if N.size == 0:
        raise ParameterError("`n_candidates` must hold at least one query")
    return N, R, K, weights_iv(weights, N.size)


def expected_mrr(n_candidates: ArrayLike, n_relevant: ArrayLike = 1, *, k: ArrayLike | None = None,
                 weights: ArrayLike | None = None) -> float:
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
    mean, _ = rr_moments(N, R, K, need_var=False)
    return float(np.mean(mean)) if w is None else float(np.dot(w, mean))


def _variance_mrr_iv(n_candidates, n_relevant, k, weights):
    return _expected_mrr_iv(n_candidates, n_relevant, k, weights)


def variance_mrr(n_candidates: ArrayLike, n_relevant: ArrayLike = 1, *, k: ArrayLike | None = None,
                 weights: ArrayLike | None = None) -> float:
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
    _, var = rr_moments(N, R, K)
    if w is None:
        return float(np.sum(var) / N.size**2)
    return float(np.dot(w * w, var))


def _observed_mrr(mrr, n: int, w):
    m = array_iv(mrr, "mrr", ndim=(0, 1), finite=False)
    if m.ndim == 0:
        value = float(m)
    else:
        m = m.ravel()
        if m.size != n:
            raise ParameterError(f"`mrr` must be a scalar MRR or one reciprocal rank per query "
                             f"({n}), got {m.size} values")
        if not np.all(np.isfinite(m)) or np.any((m < 0) | (m > 1)):
            raise ParameterError("reciprocal ranks in `mrr` must lie in [0, 1]")
        value = float(np.mean(m)) if w is None else float(np.dot(w, m))
    if not np.isfinite(value) or not 0 <= value <= 1:
        raise ParameterError(f"`mrr` must lie in [0, 1], got {value}")
    return value


def _adjusted_mrr_iv(mrr, n_candidates, n_relevant, k, weights):
    N, R, K, w = _expected_mrr_iv(n_candidates, n_relevant, k, weights)
    return _observed_mrr(mrr, N.size, w), N, R, K, w


def adjusted_mrr(mrr: ArrayLike, n_candidates: ArrayLike, n_relevant: ArrayLike = 1, *,
                 k: ArrayLike | None = None, weights: ArrayLike | None = None) -> float:
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
    mean, _ = rr_moments(N, R, K, need_var=False)
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
        vals = np.array([-math.expm1(log_sf(n, r, kk)) for n, r, kk in uniq.tolist()])
        out[rest] = vals[inv.ravel()]
    return out


def _expected_success_iv(n_candidates, n_relevant, k):
    return counts_iv(n_candidates, n_relevant, k, k_required=True)


def expected_success(n_candidates: ArrayLike, n_relevant: ArrayLike = 1, *,
                     k: ArrayLike) -> float | FloatArray:
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
    return shaped(_success(N, R, K), shape)


def _variance_success_iv(n_candidates, n_relevant, k):
    return counts_iv(n_candidates, n_relevant, k, k_required=True)


def variance_success(n_candidates: ArrayLike, n_relevant: ArrayLike = 1, *,
                     k: ArrayLike) -> float | FloatArray:
    """Variance ``p (1 - p)`` of Success@k (Hits@k) under random ranking, per query.

    Examples
    --------
    >>> from mrrstats import variance_success
    >>> float(variance_success(100, k=10))
    0.09
    """
    N, R, K, shape = _variance_success_iv(n_candidates, n_relevant, k)
    p = _success(N, R, K)
    return shaped(p * (1.0 - p), shape)


def _rank_iv(n_candidates, n_relevant):
    N, R, _, shape = counts_iv(n_candidates, n_relevant, None)
    if np.any(R < 1):
        raise ParameterError("`n_relevant` must be >= 1 for the rank (no relevant: infinite rank)")
    return N, R, shape


def expected_rank(n_candidates: ArrayLike, n_relevant: ArrayLike = 1) -> float | FloatArray:
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
    return shaped((N + 1.0) / (R + 1.0), shape)


def variance_rank(n_candidates: ArrayLike, n_relevant: ArrayLike = 1) -> float | FloatArray:
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
    return shaped(Rf * (Nf + 1) * (Nf - Rf) / ((Rf + 1) ** 2 * (Rf + 2)), shape)


def _expected_ap_iv(n_candidates, n_relevant):
    N, R, _, shape = counts_iv(n_candidates, n_relevant, None)
    return N, R, shape


def expected_ap(n_candidates: ArrayLike, n_relevant: ArrayLike = 1) -> float | FloatArray:
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
    return shaped(out, shape)


# --------------------------------------------------------------------------


# --------------------------------------------------------------------------
# RBP and Bpref
# --------------------------------------------------------------------------

#: RBP's default persistence: the measure's own (``RBP`` is ``RBP(p=0.9)``, trec_eval's rbp)
RBP_P = float(parse_measure("RBP").param)  # type: ignore[arg-type]


def _gain_array(x, name: str) -> np.ndarray:
    """Non-negative finite reals, one per query (or one for all)."""
    if isinstance(x, bool | np.bool_ | str | bytes):
        raise ParameterTypeError(f"`{name}` must be real numbers, got {type(x).__name__}",
                                 name=name)
    try:
        a = np.asarray(x)
    except Exception as exc:  # pragma: no cover - exotic inputs
        raise ParameterTypeError(f"`{name}` must be array-like of real numbers",
                                 name=name) from exc
    if a.dtype == bool or not (np.issubdtype(a.dtype, np.integer)
                               or np.issubdtype(a.dtype, np.floating)):
        raise ParameterTypeError(f"`{name}` must be real numbers, got dtype {a.dtype}",
                                 name=name)
    a = a.astype(np.float64)
    if a.size == 0:
        raise ParameterError(f"`{name}` is empty: give one value, or one per query", name=name)
    if not np.all(np.isfinite(a)) or np.any(a < 0):
        raise ParameterError(f"`{name}` must be finite and >= 0", name=name)
    return a


def _expected_rbp_iv(n_candidates, n_relevant, p, k, total_gain):
    N, R, K, shape = counts_iv(n_candidates, n_relevant, k)
    p = float_iv(p, "p", low=0.0, high=1.0, low_open=True, high_open=True)
    if total_gain is None:
        G = R.astype(np.float64)
    else:
        G0 = _gain_array(total_gain, "total_gain")
        try:
            G = np.broadcast_to(G0, shape).ravel().astype(np.float64)
        except ValueError:
            raise ParameterError("`total_gain` does not broadcast with `n_candidates`",
                                 name="total_gain") from None
        if np.any(G > N):
            raise ParameterError("`total_gain` must be <= `n_candidates` (each gain is in "
                                 "[0, 1])", name="total_gain")
    return N, G, p, K, shape


def expected_rbp(n_candidates: ArrayLike, n_relevant: ArrayLike = 1, *, p: float = RBP_P,
                 k: ArrayLike | None = None,
                 total_gain: ArrayLike | None = None) -> float | FloatArray:
    r"""Expected rank-biased precision ``RBP(p)@k`` of a uniformly random ranking.

    Parameters
    ----------
    n_candidates : int or array_like of int
        Number of ranked candidates ``N`` per query (>= 0).
    n_relevant : int or array_like of int, optional
        Number of relevant candidates ``R`` per query (binary gains), ``0 <= R <= N``
        (default 1); broadcast against ``n_candidates``.
    p : float, keyword-only
        Persistence, in (0, 1) (default 0.9: ``RBP``, trec_eval's ``rbp``;
        ir_measures' bare ``RBP`` is ``p=0.8``).
    k : int or array_like of int, optional, keyword-only
        Cutoff (``RBP(p)@k``). Default: none.
    total_gain : float or array_like of float, optional, keyword-only
        Graded gains: the sum of the ``N`` candidates' gains, each in [0, 1] (as RBP
        scores them: trec_eval's grade divided by the topic's highest grade when it
        exceeds 1); replaces ``n_relevant``.

    Returns
    -------
    float or numpy.ndarray
        ``E[RBP(p)@k]`` with the broadcast shape of the inputs.

    Notes
    -----
    Each position ``i`` holds a uniformly random candidate, whose expected gain
    is the mean gain :math:`\bar g = G / N` (``G = R`` for binary gains), so with
    ``L = min(k, N)``

    .. math:: E[RBP(p)@k] = (1 - p) \, \bar g \sum_{i=1}^{L} p^{i-1}
              = \bar g \, (1 - p^{L}).

    ``N = 0`` gives 0. Exact enumeration (:func:`random_metric_moments` with
    ``"RBP(p=...)@k"``) gives the same values (``tests/baselines/test_first_rank.py``).

    Examples
    --------
    >>> from mrrstats import expected_rbp
    >>> round(float(expected_rbp(5, 2, p=0.5, k=3)), 4)     # 2/5 * (1 - 0.5**3)
    0.35
    >>> round(float(expected_rbp(5, p=0.5, k=3, total_gain=1.5)), 4)  # gains 1, 0.5
    0.2625
    """
    N, G, p, K, shape = _expected_rbp_iv(n_candidates, n_relevant, p, k, total_gain)
    L = N if K is None else np.minimum(K, N)
    mean_gain = np.divide(G, N, out=np.zeros(N.shape), where=N > 0)
    return shaped(mean_gain * -np.expm1(L * np.log(p)), shape)


def _expected_bpref_iv(n_candidates, n_relevant, n_nonrelevant):
    N, R, _, shape = counts_iv(n_candidates, n_relevant, None)
    if n_nonrelevant is None:
        M = N - R
    else:
        M0 = _int_array(n_nonrelevant, "n_nonrelevant", minimum=0)
        if M0.size == 0:
            raise ParameterError("`n_nonrelevant` must hold at least one query",
                                 name="n_nonrelevant")
        try:
            M = np.broadcast_to(M0, shape).ravel().astype(np.int64)
        except ValueError:
            raise ParameterError("`n_nonrelevant` does not broadcast with `n_candidates`",
                                 name="n_nonrelevant") from None
        if np.any(M > N - R):
            raise ParameterError("`n_nonrelevant` must be <= `n_candidates` - `n_relevant`",
                                 name="n_nonrelevant")
    return R, M, shape


def expected_bpref(n_candidates: ArrayLike, n_relevant: ArrayLike = 1, *,
                   n_nonrelevant: ArrayLike | None = None) -> float | FloatArray:
    r"""Expected Bpref (trec_eval's ``bpref``) of a uniformly random ranking.

    Parameters
    ----------
    n_candidates : int or array_like of int
        Number of ranked candidates ``N`` per query (>= 0).
    n_relevant : int or array_like of int, optional
        Number of relevant candidates ``R`` (all of the topic's judged relevant
        documents), ``0 <= R <= N`` (default 1).
    n_nonrelevant : int or array_like of int, optional, keyword-only
        Number ``M`` of judged non-relevant candidates (all of the topic's); default
        ``N - R``. The other ``N - R - M`` candidates are unjudged, which Bpref skips.

    Returns
    -------
    float or numpy.ndarray
        ``E[Bpref]`` with the broadcast shape of the inputs.

    Notes
    -----
    Bpref averages over the ``R`` relevant documents ``d`` the term
    :math:`1 - \min(n_d, R) / \min(M, R)`, ``n_d`` the judged non-relevant documents
    above ``d``. Under a random order ``d``'s place among the ``M`` non-relevant ones
    is uniform, so :math:`n_d` is uniform on ``0..M`` whatever the other documents,
    and summing the term over ``j = 0..M``:

    .. math:: E[\mathrm{Bpref}] = \begin{cases}
              1 & M = 0 \\
              1/2 & 1 \le M \le R \\
              (R + 1) / (2 (M + 1)) & M > R
              \end{cases}

    (0 when ``R = 0``). Checked against exact enumeration and Monte Carlo with
    :func:`random_metric_moments` (``tests/baselines/test_first_rank.py``).

    Examples
    --------
    >>> from mrrstats import expected_bpref
    >>> float(expected_bpref(5, 2))               # M = 3 > R = 2: 3 / 8
    0.375
    >>> expected_bpref([2, 4, 101], 1).tolist()   # M = 1, 3, 100
    [0.5, 0.25, 0.009900990099009901]
    """
    R, M, shape = _expected_bpref_iv(n_candidates, n_relevant, n_nonrelevant)
    Rf, Mf = R.astype(np.float64), M.astype(np.float64)
    out = np.where(M == 0, 1.0, np.where(M <= R, 0.5, (Rf + 1) / (2 * (Mf + 1))))
    return shaped(np.where(R > 0, out, 0.0), shape)
