r"""Is an observed MRR better than a uniformly random ranker's? The test, for TREC runs too.

:func:`random_baseline_test` compares the observed (weighted) MRR ``M`` of a
set of queries with its exact null distribution under a uniformly random
ranking of each query's candidates (queries independent): the expectation
``E`` and variance ``V`` in closed form (:mod:`mrrstats.baselines.first_rank`),
the adjusted MRR :math:`(M - E)/(1 - E)`, the z-score :math:`(M - E)/\sqrt{V}`,
and a p-value that is exact (a convolution of the per-query laws of ``RR``) when
the support is small enough, and Monte Carlo otherwise.

Which "random" is meant for a TREC run is a choice the user makes
(:func:`random_baseline_counts`; :func:`evaluation_baseline` defaults to
:data:`mrrstats.defaults.RANDOM`):

``"retrieved"``
    a random permutation of the retrieved list: ``N`` = number retrieved,
    ``R`` = relevant documents retrieved;
``"judged"``
    a random ranking of the judged pool: ``N`` = number of judged documents,
    ``R`` = judged relevant documents.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import special

from ..defaults import BASELINE_ALTERNATIVE, CONFIDENCE_LEVEL, N_RESAMPLES, RANDOM
from ..errors import ParameterError, ParameterTypeError
from ..metrics.measures import measures_iv
from ..progress import progress_bar
from ..stats import ConfidenceInterval
from ..stats.methods import MethodsText
from ..stats.methods_readers import methods_text
from ..validation import (
    alternative_iv,
    array_iv,
    confidence_level_iv,
    int_iv,
    n_resamples_iv,
    resource_iv,
    rng_iv,
)
from .rank_law import counts_iv, log_sf, method_iv, pmf_blocks, rr_moments, weights_iv

if TYPE_CHECKING:
    from typing import Literal

    from numpy.typing import ArrayLike

    from .._typing import Alternative, Seed
    from ..metrics.evaluation import Evaluation

__all__ = ["RandomBaselineResult", "random_baseline_test", "random_baseline_counts",
           "evaluation_baseline", "RANDOM_MODELS"]

#: the largest ``max_support`` accepted (atoms of the exact null: 512 MiB per array)
MAX_SUPPORT = 1 << 26

#: The two documented meanings of "random ranker" for a TREC run.
RANDOM_MODELS = ("retrieved", "judged")

_TABLE_MAX = 1 << 20      # largest inverse-CDF table built for Monte-Carlo sampling
_TOL = 1e-12              # null values within this of the observed count as ties


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
    standard_error : float
        Standard error of ``M`` over the sampling of queries (not over random
        rankings): :math:`\sqrt{\tfrac{n}{n-1} \sum_i w_i^2 (RR_i - M)^2}`, which is
        :math:`s/\sqrt{n}` unweighted; NaN for one query.
    seed : int or None
        The seed of the Monte-Carlo rankings: the integer given as ``rng``, or the
        one drawn when ``rng=None`` (pass it back as ``rng=`` to get the same
        numbers); None for an exact p-value (nothing drawn) or when a Generator was
        given.
    null_distribution : numpy.ndarray or None
        The ``B`` MRRs of the Monte-Carlo random rankings (None for an exact
        p-value, whose null law is a convolution of atoms, not a sample).
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
    standard_error: float = math.nan
    seed: int | None = None
    null_distribution: np.ndarray | None = field(default=None, repr=False, compare=False)

    def methods(self) -> MethodsText:
        """The methods paragraph and its references (:mod:`mrrstats.stats.methods`)."""
        return methods_text(self)

    @property
    def std(self) -> float:
        """Standard deviation of MRR under random ranking, :math:`\\sqrt{V}`."""
        return math.sqrt(self.variance)

    @property
    def adjusted_variance(self) -> float:
        """Null variance of the adjusted MRR, :math:`V / (1 - E)^2`."""
        return self.variance / (1.0 - self.expected) ** 2 if self.expected < 1 else math.nan

    def confidence_interval(self,
                            confidence_level: float = CONFIDENCE_LEVEL) -> ConfidenceInterval:
        r"""Interval for the system's MRR (the observed :attr:`statistic` ``M``) over queries.

        A t interval :math:`M \pm t_{n-1,\,1-\alpha/2}\,\mathrm{SE}` with
        :attr:`standard_error`: it describes how ``M`` would vary over other
        samples of queries like these, not the random ranker (the test's null
        holds the queries fixed). The interval is for the observed MRR, not the
        adjusted one; holding ``E`` fixed, :math:`(x - E)/(1 - E)` maps its ends
        to the adjusted scale. NaN ends for a single query.

        Examples
        --------
        >>> from mrrstats import random_baseline_test
        >>> res = random_baseline_test([1.0, 0.5, 1.0, 0.25], [5, 5, 5, 5])
        >>> ci = res.confidence_interval(confidence_level=0.9)
        >>> round(ci.low, 4), round(ci.high, 4), ci.method
        (0.2462, 1.1288, 't')
        """
        cl = confidence_level_iv(confidence_level)
        n = self.n_queries
        if n < 2 or not math.isfinite(self.standard_error):
            return ConfidenceInterval(math.nan, math.nan, cl, "t")
        half = float(special.stdtrit(n - 1, 0.5 + cl / 2)) * self.standard_error
        return ConfidenceInterval(self.statistic - half, self.statistic + half, cl, "t")

    def to_dict(self) -> dict:
        """The numbers as a flat dict (the keys of :meth:`to_frame`)."""
        return {"measure": self.measure, "queries": self.n_queries,
                "observed": self.statistic, "expected": self.expected, "std": self.std,
                "adjusted": self.adjusted, "zscore": self.zscore,
                "pvalue": self.pvalue, "alternative": self.alternative,
                "method": self.method, "n_resamples": self.n_resamples,
                "standard_error": self.standard_error, "seed": self.seed}

    def to_frame(self) -> pd.DataFrame:
        """One row: ``measure, queries, observed, expected, std, adjusted, zscore, pvalue,
        alternative, method, n_resamples, standard_error, seed``."""
        return pd.DataFrame([self.to_dict()])


# --------------------------------------------------------------------------
# the exact null distribution and the Monte-Carlo sampler
# --------------------------------------------------------------------------

def _query_support(N: int, R: int, K) -> tuple[np.ndarray, np.ndarray]:
    """Support and probabilities of RR (or RR@K) for one query."""
    if R == 0:
        return np.zeros(1), np.ones(1)
    L = N - R + 1 if K is None else min(int(K), N - R + 1)
    p = np.concatenate([blk for _, blk in pmf_blocks(N, R, L)])
    v = 1.0 / np.arange(1, p.size + 1)
    tail = math.exp(log_sf(N, R, L))
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
        cdf = np.cumsum(np.concatenate([blk for _, blk in pmf_blocks(N, R, L)]))
        if cdf.size < L:
            cdf = np.concatenate([cdf, np.full(L - cdf.size, cdf[-1] if cdf.size else 0.0)])
        if L == top:
            cdf[-1] = 1.0
        return lambda u: finish(np.searchsorted(cdf, u, side="right") + 1.0)
    return _bisection_sampler(N, R, L, finish)


def _bisection_sampler(N: int, R: int, L: int, finish):
    """Draws for a very long support (huge N, small R, no cutoff): bisection on the
    survival function P(K > j) in log space (gammaln-based beyond 64 relevant)."""

    def log_sf_vec(j):
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
        beyond = log_sf_vec(hi) >= target                 # K > L (only with a cutoff)
        while True:
            active = hi - lo > 1
            if not active.any():
                break
            mid = (lo + hi) // 2
            ok = log_sf_vec(mid) < target
            hi = np.where(active & ok, mid, hi)
            lo = np.where(active & ~ok, mid, lo)
        Kd = np.where(beyond, L + 1, hi).astype(np.float64)
        return finish(Kd).reshape(u.shape)

    return draw


def _monte_carlo_null(N, R, K, w, B: int, batch, gen) -> np.ndarray:
    """``B`` MRRs of random rankings: every query's RR drawn by inverse CDF, by rows."""
    Q = N.size
    b = int(batch) if batch is not None else max(1, min(B, (1 << 20) // max(Q, 1)))
    keys = np.stack([N, R, K if K is not None else np.zeros(Q, np.int64)], axis=1)
    uniq, inv = np.unique(keys, axis=0, return_inverse=True)
    inv = inv.ravel()
    groups = [(np.flatnonzero(inv == g),
               _rr_sampler(int(n), int(r), None if K is None else int(kk)))
              for g, (n, r, kk) in enumerate(uniq.tolist())]
    resource_iv(8 * B, "n_resamples", what=f"{B:,} resamples")
    null = np.empty(B)
    for done in range(0, B, b):
        nb = min(b, B - done)
        u = gen.random((nb, Q))
        draws = np.empty((nb, Q))
        for cols, sampler in groups:
            draws[:, cols] = sampler(u[:, cols])
        null[done:done + nb] = draws @ w if w is not None else draws.mean(axis=1)
    return null


# --------------------------------------------------------------------------
# the test
# --------------------------------------------------------------------------

def _random_baseline_test_iv(reciprocal_ranks, n_candidates, n_relevant, k, weights,
                             alternative, method, n_resamples, batch, max_support):
    N, R, K, _ = counts_iv(n_candidates, n_relevant, k)
    if N.size == 0:
        raise ParameterError("`n_candidates` must hold at least one query")
    w = weights_iv(weights, N.size)
    rr = array_iv(reciprocal_ranks, "reciprocal_ranks", ndim=(0, 1), finite=False)
    if rr.ndim == 0:
        rr = np.full(N.size, float(rr))
    rr = rr.ravel()
    if rr.size != N.size:
        raise ParameterError(f"`reciprocal_ranks` must have one value per query (`n_candidates` "
                             f"gives {N.size}), got {rr.size}", name="reciprocal_ranks")
    if not np.all(np.isfinite(rr)) or np.any((rr < 0) | (rr > 1)):
        raise ParameterError("`reciprocal_ranks` must lie in [0, 1]")
    alternative_iv(alternative)
    method = method_iv(method)
    n_resamples_iv(n_resamples)
    int_iv(batch, "batch", allow_none=True)
    int_iv(max_support, "max_support", maximum=MAX_SUPPORT)
    return rr, N, R, K, w, method


def _observed(rr, N, R, K, w):
    """``M``, ``E``, ``V`` and the query-sampling standard error of ``M``."""
    mean, var = rr_moments(N, R, K)
    n = N.size
    ww = np.full(n, 1.0 / n) if w is None else w
    if w is None:
        M, E, V = float(np.mean(rr)), float(np.mean(mean)), float(np.sum(var) / n**2)
    else:
        M, E, V = float(np.dot(w, rr)), float(np.dot(w, mean)), float(np.dot(w * w, var))
    se = math.sqrt(n / (n - 1) * float(np.dot(ww * ww, (rr - M) ** 2))) if n > 1 else math.nan
    return M, E, V, se


def random_baseline_test(reciprocal_ranks: ArrayLike, n_candidates: ArrayLike,
                         n_relevant: ArrayLike = 1,
                         *, k: ArrayLike | None = None, weights: ArrayLike | None = None,
                         alternative: Alternative = BASELINE_ALTERNATIVE,
                         method: Literal["auto", "exact", "monte-carlo"] = "auto",
                         n_resamples: int = N_RESAMPLES, batch: int | None = None,
                         max_support: int = 1 << 18, rng: Seed = None) -> RandomBaselineResult:
    r"""Is an observed MRR better than that of a uniformly random ranker?

    Parameters
    ----------
    reciprocal_ranks : array_like
        Observed per-query reciprocal ranks (``RR`` or ``RR@k``), in [0, 1].
    n_candidates, n_relevant, k
        As in :func:`~mrrstats.expected_rr`, one entry per query.
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
        Seed of the Monte-Carlo rankings; the seed used is the result's ``seed``.

    Returns
    -------
    RandomBaselineResult
        With ``confidence_interval()`` for the observed MRR over queries, and the
        Monte-Carlo ``null_distribution``.

    Notes
    -----
    Queries are independent under the null. ``E`` and ``V`` are exact
    (:func:`~mrrstats.expected_mrr`, :func:`~mrrstats.variance_mrr`); the z-score is
    reported for information and is not used for the p-value. Null values within
    :math:`10^{-12}` of the observed MRR count as at least as extreme. For
    ``"two-sided"`` the p-value is twice the smaller one-sided one, capped at 1
    (as in :func:`scipy.stats.permutation_test`). The draws are NumPy's (inverse
    CDFs, no compiled engine), so there is no ``workers`` option.

    Examples
    --------
    >>> from mrrstats import random_baseline_test
    >>> res = random_baseline_test([1.0, 0.5, 1.0], [5, 5, 5])
    >>> res.method, round(res.expected, 4), round(res.pvalue, 4)
    ('exact', 0.4567, 0.032)
    >>> round(res.zscore, 2), round(res.adjusted, 3)
    (2.25, 0.693)
    """
    rr, N, R, K, w, method = _random_baseline_test_iv(
        reciprocal_ranks, n_candidates, n_relevant, k, weights, alternative, method,
        n_resamples, batch, max_support)
    gen, seed = rng_iv(rng)
    M, E, V, se = _observed(rr, N, R, K, w)
    adjusted = (M - E) / (1.0 - E) if E < 1 else math.nan
    if V > 0:
        z = (M - E) / math.sqrt(V)
    else:
        z = 0.0 if abs(M - E) <= _TOL else math.copysign(math.inf, M - E)
    measure = "RR" if K is None else (f"RR@{int(K[0])}" if np.all(K == K[0]) else "RR@k")

    exact = None
    if method in ("auto", "exact"):
        budget = 32.0 * max_support if method == "auto" else math.inf
        exact = _exact_null(N, R, K, w, int(max_support), budget)
        if exact is None and method == "exact":
            raise ParameterError(f"the exact null distribution needs more than `max_support` = "
                             f"{max_support} atoms; use method='monte-carlo'")
    if exact is not None:
        vals, probs, tol = exact
        p_greater = float(probs[vals >= M - tol].sum())
        p_less = float(probs[vals <= M + tol].sum())
        used, B, null, seed = "exact", None, None, None
    else:
        B = int(n_resamples)
        null = _monte_carlo_null(N, R, K, w, B, batch, gen)
        p_greater = (int(np.count_nonzero(null >= M - _TOL)) + 1) / (B + 1)
        p_less = (int(np.count_nonzero(null <= M + _TOL)) + 1) / (B + 1)
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
                                n_queries=int(N.size), standard_error=se, seed=seed,
                                null_distribution=null)


# --------------------------------------------------------------------------
# TREC runs: the two explicit meanings of "random"
# --------------------------------------------------------------------------

def _random_baseline_counts_iv(evaluation, random):
    if not isinstance(random, str | None) or random not in RANDOM_MODELS:
        raise ParameterError(f"`random` must be 'retrieved' (a random permutation of the "
                         f"retrieved list) or 'judged' (a random ranking of the judged "
                         f"pool), got {random!r}")
    stats_ = getattr(evaluation, "query_stats", None)
    if not isinstance(stats_, pd.DataFrame):
        raise ParameterTypeError("`evaluation` must be an Evaluation (from mrrstats.evaluate)")
    return stats_


def random_baseline_counts(evaluation: Evaluation, *,
                           random: Literal["retrieved", "judged"]) -> pd.DataFrame:
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

    ms = measures_iv(measure, "measure")
    if len(ms) != 1 or ms[0].name != "RR":
        raise ParameterError(f"`measure` must be 'RR' or 'RR@k', got {measure!r}")
    name = str(ms[0])
    if name not in evaluation.measure_names:
        raise ParameterError(f"`measure` {name!r} was not evaluated (have "
                         f"{evaluation.measure_names}); pass it to evaluate()")
    if ms[0].rel is not None and ms[0].rel != evaluation.settings.get("rel", 1):
        raise ParameterError("`measure` with its own rel= is not supported: evaluate with rel= "
                         "instead, so that the relevant counts match")
    return ms[0]


def evaluation_baseline(evaluation: Evaluation, *, random: Literal["retrieved", "judged"] = RANDOM,
                        measure: str = "RR", alternative: Alternative = BASELINE_ALTERNATIVE,
                        method: Literal["auto", "exact", "monte-carlo"] = "auto",
                        n_resamples: int = N_RESAMPLES,
                        progress: bool | None = None, rng: Seed = None) -> pd.DataFrame:
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
    progress : bool or None, keyword-only
        A bar over the runs on standard error; default (None) only on an
        interactive terminal outside CI. Never changes the result.
    rng : None, int or numpy.random.Generator, keyword-only
        One seed per run is drawn from it, in the order of the runs (each run's
        row then reproduces alone: ``random_baseline_test(..., rng=row.seed)``);
        the seed of the whole table is ``frame.attrs["seed"]``.

    Returns
    -------
    pandas.DataFrame
        Index ``run``; the columns of :meth:`RandomBaselineResult.to_frame` (``measure,
        queries, observed, expected, std, adjusted, zscore, pvalue, alternative,
        method, n_resamples, standard_error, seed``; ``seed`` is the run's, None where
        its p-value is exact). ``attrs["seed"]``: the seed given as ``rng``
        or drawn with ``rng=None`` (None for a Generator); ``attrs["random"]``.

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
    gen, seed = rng_iv(rng)
    rows = {}
    for run in progress_bar(evaluation.runs, desc="random-ranking baseline", unit="run",
                            progress=progress):
        c = counts[counts["run"] == run].set_index("query")
        col = evaluation.values[run][str(m)]
        rr = pd.Series(col.to_numpy(np.float64), index=col.index.astype(str)).reindex(c.index)
        if rr.isna().any():
            raise ParameterError(f"run {run!r}: no {m} value for some queries of query_stats")
        res = random_baseline_test(rr.to_numpy(np.float64), c["n_candidates"].to_numpy(),
                                   c["n_relevant"].to_numpy(), k=m.k,
                                   alternative=alternative, method=method,
                                   n_resamples=n_resamples,
                                   rng=int(gen.integers(np.iinfo(np.int64).max)))
        d = res.to_dict()
        d["measure"] = str(m)
        rows[run] = d
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = "run"
    frame.attrs["seed"] = seed
    frame.attrs["random"] = random
    return frame
