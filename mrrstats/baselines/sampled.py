r"""Metrics over sampled negatives, corrected (Krichene & Rendle, KDD 2020).

Many link-prediction and recommender evaluations (OGB, TGB, NCF-style
"1 positive + 100 negatives") rank the true item among :math:`m` sampled
negatives instead of all :math:`n - 1` candidates. The sampled rank
:math:`\tilde r \in \{1, \dots, m+1\}` of an item whose full rank is
:math:`r` has the hypergeometric law

.. math:: P(\tilde r = j \mid r) = \binom{r-1}{j-1}\binom{n-r}{m-j+1} \Big/ \binom{n-1}{m},

so the sampled metric :math:`M(\tilde r)` estimates a different quantity from
the full :math:`M(r)` (sampled MRR is much larger than MRR and can reorder
systems). :func:`correct_sampled_metric` replaces :math:`M(\tilde r)` by a
corrected value :math:`\tilde f(\tilde r)` chosen so that
:math:`E[\tilde f(\tilde r) \mid r] \approx M(r)`.
"""

from __future__ import annotations

import functools
import math
import re
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .. import compiled
from ..defaults import CONFIDENCE_LEVEL, N_RESAMPLES, WORKERS
from ..errors import ParameterError
from ..stats.bootstrap import BootstrapCIResult, bootstrap_ci
from ..stats.intervals import ConfidenceInterval
from ..stats.methods import MethodsText
from ..stats.methods_readers import methods_text
from ..validation import (
    array_iv,
    choice_iv,
    confidence_level_iv,
    float_iv,
    int_iv,
    n_resamples_iv,
    rng_iv,
    workers_iv,
)

if TYPE_CHECKING:
    from typing import Literal

    from numpy.typing import ArrayLike

    from .._typing import Seed

__all__ = ["SampledMetricResult", "correct_sampled_metric", "sampled_rank_matrix",
           "sampled_metric_mapping"]

_METHODS = ("naive", "rank-mapping", "minimal-bias", "bias-variance")
#: Full ranks per anchor of the pmf recurrence: every row's values depend only on
#: ``(n, m, r)``, never on the block or thread layout.
_ANCHOR_ROWS = 256
#: Full ranks per block of the normal equations (a multiple of ``_ANCHOR_ROWS``):
#: the block's pmf matrix, ``_BLOCK_ROWS x (m + 1)`` float64 (6.6 MB at m = 100), is the
#: largest temporary, whatever ``n``.
_BLOCK_ROWS = 32 * _ANCHOR_ROWS
#: Entries of the law below this fraction of their row's largest are left out of the
#: normal equations of the regularised estimator (they change them by less than 1e-20
#: of their norm, far below the rounding of the sums; its condition number is about
#: 1/lambda): the rows are then bands around their mode.
_TINY = 1e-22


def _metric_fn(measure):
    """The metric of a single relevant item at (full or sampled) rank r."""
    m = str(measure)
    if m == "RR":
        return lambda r: 1.0 / r
    if m in ("nDCG", "NDCG"):
        return lambda r: 1.0 / np.log2(r + 1.0)
    hit = re.fullmatch(r"(?:Hits|Success|Recall)@(\d+)", m)
    if hit:
        k = int(hit.group(1))
        if k < 1:
            raise ParameterError(f"`measure` {m!r}: the cutoff k of Hits@k must be at least 1 "
                                 "(no rank is at or above 0)", name="measure")
        return lambda r: (np.asarray(r) <= k).astype(float)
    raise ParameterError(f"`measure` must be 'RR', 'nDCG' or 'Hits@k' (one relevant item), "
                         f"got {measure!r}", name="measure")


# ---------------------------------------------------------------------------
# the hypergeometric law, row by row (compiled)
# ---------------------------------------------------------------------------

prange = range  # numba.prange once compiled


def _pmf_rows_py(N, m, r0, tiny, out):
    r"""``out[i, j] = P(\tilde r = j + 1 | r = r0 + i)``: ``m`` of the ``N = n - 1``
    negatives drawn, ``K = r - 1`` of them above the true item.

    Every ``_ANCHOR_ROWS``-th row (``(r - 1) % _ANCHOR_ROWS == 0``, and the first row)
    gets the log-probability of its mode exactly, as a sum of logs of ratios at most 1:
    :math:`\log P(j | K) = \log\binom{m}{j} + \sum_{i<j} \log\frac{K-i}{N-i}
    + \sum_{i<m-j} \log\frac{N-K-i}{N-j-i}`. The rows after it follow the mode in log
    space, one step in ``K`` (and one in ``j`` where the mode moves) each,
    :math:`\log\frac{P(j|K+1)}{P(j|K)} = \operatorname{log1p}\frac{j(N-K) - (K+1)(m-j)}
    {(K+1-j)(N-K)}` with an integer numerator, so no probability underflows on the way;
    each row is then filled outwards from its mode by the ratio
    :math:`\frac{P(j+1|K)}{P(j|K)} = \frac{(K-j)(m-j)}{(j+1)(N-K-m+j+1)}`.
    Blocks of anchored rows run in parallel.
    """
    rows = out.shape[0]
    n_sub = (rows + _ANCHOR_ROWS - 1) // _ANCHOR_ROWS + 1
    lead = (_ANCHOR_ROWS - (r0 - 1) % _ANCHOR_ROWS) % _ANCHOR_ROWS  # rows before an anchor
    for s in prange(n_sub):
        if s == 0:
            a, b = 0, min(lead, rows)
        else:
            a = lead + (s - 1) * _ANCHOR_ROWS
            b = min(a + _ANCHOR_ROWS, rows)
        jm = -1
        L = 0.0
        for i in range(a, b):
            K = r0 - 1 + i
            lo = max(0, m - (N - K))
            hi = min(m, K)
            jn = ((m + 1) * (K + 1)) // (N + 2)
            jn = min(max(jn, lo), hi)
            fresh = jm < 0
            if not fresh:  # from row K - 1 (mode jm) to row K (mode jn = jm or jm + 1)
                k0 = K - 1
                if jn == jm:
                    L += math.log1p((jm * (N - k0) - (k0 + 1) * (m - jm))
                                    / ((k0 + 1 - jm) * (N - k0)))
                elif jm + 1 <= k0:  # j step at K - 1, then K step at jm + 1
                    L += math.log1p(((k0 - jm) * (m - jm) - (jm + 1) * (N - k0 - m + jm + 1))
                                    / ((jm + 1) * (N - k0 - m + jm + 1)))
                    j1 = jm + 1
                    L += math.log1p((j1 * (N - k0) - (k0 + 1) * (m - j1))
                                    / ((k0 + 1 - j1) * (N - k0)))
                elif m - jm <= N - K:  # K step at jm, then j step at K
                    L += math.log1p((jm * (N - k0) - (k0 + 1) * (m - jm))
                                    / ((k0 + 1 - jm) * (N - k0)))
                    L += math.log1p(((K - jm) * (m - jm) - (jm + 1) * (N - K - m + jm + 1))
                                    / ((jm + 1) * (N - K - m + jm + 1)))
                else:  # neither path stays in the support (m = N): anchor again
                    fresh = True
            if fresh:
                L = math.lgamma(m + 1.0) - math.lgamma(jn + 1.0) - math.lgamma(m - jn + 1.0)
                c = 0.0  # compensated sum (Kahan) of the m log-ratios
                for t in range(jn):
                    y = math.log((K - t) / (N - t)) - c
                    z = L + y
                    c = (z - L) - y
                    L = z
                for t in range(m - jn):
                    y = math.log((N - K - t) / (N - jn - t)) - c
                    z = L + y
                    c = (z - L) - y
                    L = z
            jm = jn
            for j in range(m + 1):
                out[i, j] = 0.0
            p = math.exp(L)
            out[i, jm] = p
            floor = tiny * p
            for j in range(jm - 1, lo - 1, -1):
                p = p * ((j + 1.0) * (N - K - m + j + 1.0)) / ((K - j + 0.0) * (m - j + 0.0))
                if p < floor:
                    break
                out[i, j] = p
            p = out[i, jm]
            for j in range(jm + 1, hi + 1):
                p = p * ((K - j + 1.0) * (m - j + 1.0)) / ((j + 0.0) * (N - K - m + j + 0.0))
                if p < floor:
                    break
                out[i, j] = p


_KERNELS: dict = {}
_BUILD = threading.Lock()


def _pmf_kernels():
    """``(parallel, serial)`` compiled pmf kernels (once per process), or None without numba."""
    global prange
    if not compiled.available():
        return None
    k = _KERNELS.get("pmf")
    if k is None:
        with _BUILD:
            k = _KERNELS.get("pmf")
            if k is None:
                prange = compiled.prange()
                k = _KERNELS["pmf"] = compiled.pair(_pmf_rows_py)
    return k


def _pmf_rows(n, m, r0, out, workers, tiny=0.0):
    """Fill ``out`` with the rows ``r0 .. r0 + len(out) - 1`` of the law (see
    :func:`_pmf_rows_py`), compiled and parallel where numba is available; entries
    below ``tiny`` times their row's largest are left 0."""
    kernels = _pmf_kernels()
    if kernels is None:
        _pmf_rows_py(int(n) - 1, int(m), int(r0), float(tiny), out)
    else:
        compiled.launch(*kernels, workers, int(n) - 1, int(m), int(r0), float(tiny), out)
    return out


def sampled_rank_matrix(n_candidates, n_negatives, *, workers=WORKERS):
    r"""The matrix :math:`A_{r, j} = P(\tilde r = j \mid r)` (hypergeometric).

    Parameters
    ----------
    n_candidates : int
        :math:`n`, the full candidate count (true item included).
    n_negatives : int
        :math:`m` negatives sampled without replacement from the :math:`n-1`.
    workers : int, keyword-only
        Threads of the compiled kernel (-1: all cores); the values do not depend on it.

    Returns
    -------
    ndarray, shape (n, m + 1)
        Row :math:`r-1`, column :math:`j-1`. It has :math:`n (m + 1)` entries:
        :func:`sampled_metric_mapping` never forms it, it accumulates its normal
        equations over blocks of rows.

    Notes
    -----
    Computed by a recurrence in log space from an exact anchor every 256 rows
    (relative error about 1e-13 against :func:`scipy.stats.hypergeom`, which
    takes about 20 us an entry).

    Examples
    --------
    >>> from mrrstats.baselines.sampled import sampled_rank_matrix
    >>> A = sampled_rank_matrix(5, 2)       # 4 negatives, 2 of them sampled
    >>> A[2].round(4).tolist()              # full rank 3: 2 negatives above it
    [0.1667, 0.6667, 0.1667]
    """
    n, m = _sizes_iv(n_candidates, n_negatives)
    out = np.empty((n, m + 1))
    return _pmf_rows(n, m, 1, out, workers_iv(workers))


#: the most rank probabilities (full ranks x (sampled ranks)) one call computes
MAX_WORK = 10**11


def _sizes_iv(n_candidates, n_negatives):
    m = int_iv(n_negatives, "n_negatives")
    n = int_iv(n_candidates, "n_candidates", minimum=m + 1)
    return n, m


# ---------------------------------------------------------------------------
# the corrected values: normal equations over blocks of full ranks
# ---------------------------------------------------------------------------

def _normal_equations(metric, n, m, workers):
    r"""``(G, d, b)``: :math:`A^\top A`, :math:`A^\top 1` and :math:`A^\top M`, summed
    over blocks of full ranks (memory :math:`O(m^2)` beside one block)."""
    from threadpoolctl import threadpool_limits

    G = np.zeros((m + 1, m + 1))
    d = np.zeros(m + 1)
    b = np.zeros(m + 1)
    buf = np.empty((min(_BLOCK_ROWS, n), m + 1))
    # small products, one after another: BLAS on one thread (its idle threads would spin
    # against the compiled law's)
    with threadpool_limits(limits=1, user_api="blas"):
        for r0 in range(1, n + 1, _BLOCK_ROWS):
            A = _pmf_rows(n, m, r0, buf[:min(_BLOCK_ROWS, n + 1 - r0)], workers, _TINY)
            # the block's columns holding any entry (a band: the rows of a block share
            # nearly one law when n is large)
            used = np.flatnonzero(A.any(axis=0))
            c0, c1 = int(used[0]), int(used[-1]) + 1
            A = np.ascontiguousarray(A[:, c0:c1])
            G[c0:c1, c0:c1] += A.T @ A
            d[c0:c1] += A.sum(axis=0)
            b[c0:c1] += metric(np.arange(r0, r0 + A.shape[0], dtype=np.float64)) @ A
    return G, d, b


def _least_squares_blocks(metric, n, m, workers):
    r"""The least-squares solution of :math:`A f = M` from a QR factorisation updated
    over blocks of rows (the R factor of ``[A | M]``, :math:`(m+2)^2` numbers), with
    the rank cut-off that :func:`numpy.linalg.lstsq` puts on the whole of :math:`A`."""
    from threadpoolctl import threadpool_limits

    R = np.zeros((0, m + 2))
    buf = np.empty((min(_BLOCK_ROWS, n), m + 1))
    with threadpool_limits(limits=1, user_api="blas"):
        for r0 in range(1, n + 1, _BLOCK_ROWS):
            A = _pmf_rows(n, m, r0, buf[:min(_BLOCK_ROWS, n + 1 - r0)], workers)
            M = metric(np.arange(r0, r0 + A.shape[0], dtype=np.float64))
            R = np.linalg.qr(np.vstack([R, np.column_stack([A, M])]), mode="r")
    k = min(R.shape[0], m + 1)
    rcond = np.finfo(np.float64).eps * max(n, m + 1)
    return np.linalg.lstsq(R[:k, :m + 1], R[:k, m + 1], rcond=rcond)[0]


@functools.lru_cache(maxsize=1024)
def _mapping(measure, n, m, method, lam, workers):
    """The cached, read-only mapping (a correction is solved once per ``(n, m)``)."""
    metric = _metric_fn(measure)
    j = np.arange(1, m + 2, dtype=float)
    if method == "naive":
        f = metric(j).astype(float)
    elif method == "rank-mapping":
        # the sampled rank scaled back to the full candidate set:
        # E[j - 1 | r] = (r - 1) m / (n - 1)  =>  r_hat = 1 + (j - 1)(n - 1)/m
        f = metric(1.0 + (j - 1.0) * (n - 1) / m).astype(float)
    elif lam == 0.0:
        # least squares on A itself (the normal equations would square an already huge
        # condition number); the uniform prior's weights 1/n do not change the solution
        f = _least_squares_blocks(metric, n, m, workers)
    else:
        G, d, b = _normal_equations(metric, n, m, workers)
        w = 1.0 / n  # uniform prior over the full rank (Krichene & Rendle)
        lhs = (1.0 - lam) * (G * w) + lam * np.diag(d * w)
        f = np.linalg.lstsq(lhs, b * w, rcond=None)[0]
    f.flags.writeable = False
    return f


def sampled_metric_mapping(measure, n_candidates, n_negatives, *, method="bias-variance",
                           regularization=0.01, workers=WORKERS):
    r"""The corrected value :math:`\tilde f(j)` for each sampled rank :math:`j = 1..m+1`.

    See :func:`correct_sampled_metric` for ``method`` and ``regularization``.

    Parameters
    ----------
    measure : {"RR", "nDCG", "Hits@k"}
    n_candidates : int
        :math:`n`, the full candidate count (true item included).
    n_negatives : int
        :math:`m`, the negatives sampled.
    method : str, keyword-only
    regularization : float in [0, 1], keyword-only
    workers : int, keyword-only
        Threads of the compiled law (-1: all cores); the values do not depend on it.

    Returns
    -------
    ndarray, shape (m + 1,)

    Notes
    -----
    The law :math:`A` (:func:`sampled_rank_matrix`) is never formed: its rows are
    computed in blocks of 8,192 full ranks and the normal equations
    :math:`A^\top W A`, :math:`A^\top W 1` and :math:`A^\top W M` are summed
    over the blocks, :math:`O(n m^2)` time and :math:`O(m^2)` memory whatever
    :math:`n` (``"minimal-bias"`` updates a QR factorisation instead). Entries
    below 1e-22 of their row's largest are left out of the regularised
    normal equations (the rows become bands around their mode, halving the
    work at :math:`m = 100`); they move the equations by less than 1e-20 of
    their norm, and the system's condition number is about :math:`1/\lambda`.
    Wikidata5M's :math:`n = 4{,}594{,}485`, :math:`m = 100` takes about 8 s of
    CPU and a few MB (``benchmarks/bench_sampled.py``). Each distinct
    :math:`n` is solved once per process and kept (32 at most).

    Summing the normal equations over :math:`j` (the rows of :math:`A` sum to
    1) gives :math:`p^\top A \tilde f = p^\top M` for every :math:`\lambda`:
    averaged over the prior, the corrected value is unbiased (the tests check
    it exactly, and by simulation at :math:`n = 10^6`); the regularisation
    moves bias between full ranks, not in total.

    Examples
    --------
    >>> from mrrstats.baselines.sampled import sampled_metric_mapping
    >>> f = sampled_metric_mapping("RR", 1000, 100)   # sampled rank 1..101 -> value
    >>> f.shape, f[:3].round(3).tolist()
    ((101,), [0.66, -0.531, 0.269])
    """
    if not isinstance(method, str | None) or method not in _METHODS:
        raise ParameterError(f"`method` must be one of {_METHODS}, got {method!r}")
    _metric_fn(measure)
    n, m = _sizes_iv(n_candidates, n_negatives)
    lam = _regularization_iv(regularization) if method == "bias-variance" else 0.0
    return _mapping(str(measure), n, m, method, lam, workers_iv(workers)).copy()


def _regularization_iv(regularization):
    return float_iv(regularization, "regularization", low=0.0, high=1.0)


@dataclass(frozen=True)
class SampledMetricResult:
    """Result of :func:`correct_sampled_metric`.

    Attributes
    ----------
    estimate : float
        The corrected mean metric (estimates the full-ranking mean).
    naive : float
        The uncorrected sampled mean metric.
    low, high : float
        Bootstrap interval of ``estimate`` (queries resampled) at ``confidence_level``.
    per_query : ndarray
        Corrected per-query values.
    method, measure : str
    n_negatives : int
    confidence_level : float
    seed : int or None
        The seed of the bootstrap (drawn when ``rng=None``; pass it back as ``rng=``).
    n_resamples : int
        Bootstrap resamples.
    bootstrap : BootstrapCIResult or None
        The bootstrap of the per-query values (None when they do not vary): other
        levels come from its distribution (:meth:`confidence_interval`).
    """

    estimate: float
    naive: float
    low: float
    high: float
    per_query: np.ndarray = field(repr=False)
    method: str
    measure: str
    n_negatives: int
    confidence_level: float
    seed: int | None = None
    n_resamples: int = N_RESAMPLES
    bootstrap: BootstrapCIResult | None = field(default=None, repr=False, compare=False)

    def methods(self) -> MethodsText:
        """The methods paragraph and its references (:mod:`mrrstats.stats.methods`)."""
        return methods_text(self)

    @property
    def n_queries(self) -> int:
        return int(self.per_query.size)

    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """The BCa bootstrap interval of ``estimate`` (default: the level of the call)."""
        cl = self.confidence_level if confidence_level is None else \
            confidence_level_iv(confidence_level)
        if self.bootstrap is None:
            return ConfidenceInterval(self.estimate, self.estimate, cl, "bootstrap bca")
        if cl == self.confidence_level:
            return ConfidenceInterval(self.low, self.high, cl, "bootstrap bca")
        ci = self.bootstrap.confidence_interval(cl)
        return ConfidenceInterval(ci.low, ci.high, cl, "bootstrap bca")

    def to_frame(self) -> pd.DataFrame:
        """One row: measure, method, estimate, naive, interval, level, m, queries, seed."""
        return pd.DataFrame([{
            "measure": self.measure, "method": self.method, "estimate": self.estimate,
            "naive": self.naive, "ci_low": self.low, "ci_high": self.high,
            "confidence_level": self.confidence_level, "n_negatives": self.n_negatives,
            "n_queries": self.n_queries, "n_resamples": self.n_resamples,
            "seed": self.seed}])


def correct_sampled_metric(sampled_ranks: ArrayLike, n_negatives: int, n_candidates: ArrayLike,
                           measure: str = "RR", *,
                           method: Literal["minimal-bias", "bias-variance", "rank-mapping",
                                           "naive"] = "bias-variance",
                           regularization: float = 0.01,
                           confidence_level: float = CONFIDENCE_LEVEL,
                           n_resamples: int = N_RESAMPLES, workers: int = WORKERS,
                           rng: Seed = None) -> SampledMetricResult:
    r"""Correct a metric computed over sampled negatives (Krichene & Rendle 2020).

    Parameters
    ----------
    sampled_ranks : array_like of int, shape (n_queries,)
        Rank of the true item among itself and ``n_negatives`` sampled
        negatives (1 = first), one per query.
    n_negatives : int
        :math:`m`, negatives sampled per query (uniformly, without replacement).
    n_candidates : int or array_like of int
        :math:`n`, the full candidate count per query (true item included;
        after filtering), one number or one per query.
    measure : {"RR", "nDCG", "Hits@k"}
        The metric of the single true item.
    method : {"minimal-bias", "bias-variance", "rank-mapping", "naive"}, keyword-only
        * ``"minimal-bias"``: :math:`\tilde f = \arg\min \sum_r p(r)
          (E[\tilde f(\tilde r) | r] - M(r))^2` (Krichene & Rendle's
          bias-minimising correction);
        * ``"bias-variance"``: adds :math:`\lambda \sum_r p(r)
          \mathrm{Var}[\tilde f(\tilde r) | r]` (their regularised
          estimator; ``regularization`` is :math:`\lambda`);
        * ``"rank-mapping"``: the metric at the scaled rank
          :math:`1 + (\tilde r - 1)(n-1)/m` (the sampled rank mapped back to
          the full candidate set);
        * ``"naive"``: the uncorrected sampled metric.
    regularization : float in [0, 1], keyword-only
        :math:`\lambda`. The uniform prior pulls the corrected values towards
        the mean of :math:`M` over all ranks, so large :math:`\lambda`
        under-estimates good systems: on the bundled UMLS graph with a
        popularity scorer (full filtered MRR 0.675, :math:`m = 20`) the
        naive sampled MRR is biased by +0.182, rank mapping by +0.126, the
        bias-variance estimator by -0.033, -0.078 and -0.181 for
        :math:`\lambda` = 0.001, 0.01 (default) and 0.1
        (``benchmarks/bench_sampled.py``).
    confidence_level : float, keyword-only
    n_resamples : int, keyword-only
        Bootstrap resamples for the interval (:func:`mrrstats.bootstrap_ci`, BCa).
    workers : int, keyword-only
        Threads of the compiled law and of the bootstrap (-1: all cores); the
        numbers do not depend on it.
    rng : None, int or numpy.random.Generator, keyword-only
        Seed of the bootstrap; with None a fresh seed is drawn and recorded in
        ``seed``.

    Returns
    -------
    SampledMetricResult

    Notes
    -----
    With :math:`A_{rj} = P(\tilde r = j | r)` (exact hypergeometric law),
    :math:`W = \mathrm{diag}(p)` the prior over full ranks (uniform, as in
    the paper) and :math:`M_r = M(r)`, the corrected values solve

    .. math:: \big((1-\lambda) A^\top W A + \lambda\, \mathrm{diag}(A^\top W 1)\big)
              \tilde f = A^\top W M,

    :math:`\lambda = 0` for ``"minimal-bias"``. The minimal-bias values are
    nearly unbiased for every full rank but alternate in sign with huge
    magnitudes (the system is very ill-conditioned: condition number about
    1e16 for :math:`n = 1000, m = 100`), so their per-query values are
    useless and the mean needs very many queries; the paper's remedy, and
    the default here, is the bias-variance estimator with a small
    :math:`\lambda`. Each distinct candidate count :math:`n` costs one solve
    (:func:`sampled_metric_mapping`: :math:`O(n m^2)`), so per-query counts
    that all differ (filtered candidates on a large graph) cost one solve per
    query. The corrected mean over
    queries estimates the full-ranking mean; its interval is the BCa
    bootstrap interval of the per-query corrected values (queries, with
    their independently sampled negatives, are i.i.d.).

    References
    ----------
    .. [1] Krichene, W. and Rendle, S. (2020). On Sampled Metrics for Item
           Recommendation. KDD 2020, 1748-1757.

    Examples
    --------
    >>> import numpy as np, mrrstats
    >>> rng = np.random.default_rng(0)
    >>> full = rng.integers(1, 1001, 500)                      # full ranks among 1000
    >>> above = rng.hypergeometric(full - 1, 1000 - full, 100)  # sampled negatives above
    >>> res = mrrstats.correct_sampled_metric(above + 1, 100, 1000, rng=1)
    >>> print(round(np.mean(1 / full), 3), round(res.naive, 3), round(res.estimate, 3))
    0.006 0.056 0.014
    """
    choice_iv(method, "method", _METHODS)
    _metric_fn(measure)
    m = int_iv(n_negatives, "n_negatives")
    r = array_iv(sampled_ranks, "sampled_ranks", min_size=0)
    if r.size == 0:
        raise ParameterError("`sampled_ranks` is empty")
    if np.any(r != np.round(r)) or np.any(r < 1) or np.any(r > m + 1):
        raise ParameterError(f"`sampled_ranks` must be integers in [1, n_negatives + 1 = {m + 1}]")
    try:
        n_c = np.broadcast_to(np.asarray(n_candidates, dtype=float), r.shape)
    except (TypeError, ValueError):
        raise ParameterError("`n_candidates` must be one integer or one per query") from None
    if not np.isfinite(n_c).all() or np.any(n_c != np.round(n_c)) or np.any(n_c < m + 1):
        raise ParameterError(f"`n_candidates` must be integers >= n_negatives + 1 = {m + 1}")
    work = float(np.unique(n_c).sum()) * (m + 1)
    if work > MAX_WORK:
        raise ParameterError(f"`n_candidates` x (`n_negatives` + 1) = {work:.3g} rank "
                             f"probabilities to compute; at most {MAX_WORK:.0e} are allowed "
                             "(hours of work beyond)", name="n_candidates")
    lam = _regularization_iv(regularization)
    lam = lam if method == "bias-variance" else 0.0
    cl = confidence_level_iv(confidence_level)
    n_resamples = n_resamples_iv(n_resamples)
    workers = workers_iv(workers)
    gen, seed = rng_iv(rng)
    ri = r.astype(np.int64) - 1
    n_c = n_c.astype(np.int64)
    values = np.empty(r.size)
    for n in np.unique(n_c):
        sel = n_c == n
        values[sel] = _mapping(str(measure), int(n), m, method, lam, workers)[ri[sel]]
    naive = _mapping(str(measure), m + 1, m, "naive", 0.0, workers)[ri]
    boot = None
    if r.size >= 2 and np.ptp(values) > 0:
        boot = bootstrap_ci(values, method="bca", confidence_level=cl,
                            n_resamples=n_resamples, workers=workers, rng=gen)
        ci = boot.confidence_interval()
        low, high = ci.low, ci.high
    else:
        low = high = float(values.mean())
    values.flags.writeable = False
    return SampledMetricResult(float(values.mean()), float(naive.mean()), float(low),
                               float(high), values, method, str(measure), m, cl, seed,
                               n_resamples, boot)
