r"""Many systems: all-pairs tests, family-wise control and discriminative power.

Input everywhere is a score matrix: a DataFrame with one row per query and one
column per system (the output of ``Evaluation.scores(measure)`` or
:func:`mrrstats.read_score_matrix`), or an array of shape
``(n_systems, n_queries)``. Pairs are all ``(i, j)`` with ``i < j`` in column
order; the difference of a pair is ``mean_a - mean_b``.

* :func:`pairwise_tests` -- one test per pair, with Holm, Bonferroni or
  Benjamini-Hochberg adjustment, or one of the procedures below; effect
  sizes and, for every pair, an interval that agrees with its decision
  (``ci_method`` names it) beside the marginal t interval.
* :func:`randomized_tukey_hsd` -- topic-blocked randomised Tukey HSD
  (Carterette 2012): permute system labels within each query; the null of the
  largest mean difference over all pairs.
* :func:`westfall_young` -- step-down max-T (Westfall & Young 1993) on the
  same within-query permutations.
* :func:`anova_tukey_hsd` -- the parametric blocked alternative: two-way ANOVA
  residual variance and the studentised range.
* :func:`discriminative_power` -- Sakai's share of significant pairs.

All resampling procedures share ONE set of resamples among all pairs and draw
it in a fixed order: the same seed gives the same result for every ``batch``.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from ..model.scoretable import as_score_table
from ..validation import (
    alpha_iv,
    alternative_iv,
    confidence_level_iv,
    int_iv,
    rng_iv,
    tolerance_iv,
    workers_iv,
)
from .counter import stream_key as _stream_key
from .designs import cluster_acceleration as _cluster_acceleration
from .designs import cluster_bootstrap_rows, cluster_robust_se, query_labels
from .designs import design_iv as _design_iv
from .designs import design_sums as _design_sums
from .effects import residual_variance as _rv
from .intervals import bootstrap_interval as _bootstrap_interval
from .intervals import jackknife_acceleration as _jackknife_acceleration
from .intervals import t_interval as _t_interval
from .manyone import dunnett_critical_value, dunnett_sf
from .paired import wilcoxon_test
from .registry import (
    CORRECTIONS,
    FAMILY_TESTS,
    PAIR_TESTS,
    TEST_NAMES,
    UnattainableSignificanceWarning,
    correction_spec,
    test_spec,
)
from .registry import (
    TESTS as TEST_SPECS,
)
from .resampling import array_namespace_of as _array_namespace_of
from .resampling import blas_single_thread as _blas_single_thread
from .resampling import bootstrap_sums as _bootstrap_sums
from .resampling import default_batch as _default_batch
from .resampling import device_of as _device
from .resampling import enumerated_rows as _enumerated_rows
from .resampling import kernel_rows as _kernel_rows
from .resampling import mc_se as _mc_se
from .resampling import permutation_batches, query_means
from .resampling import signflip_rows as _signflip_rows
from .resampling import to_host as _to_host
from .rows import bootstrap_test_rows as _bootstrap_test_rows
from .rows import effect_rows as _effect_rows
from .rows import sign_pvalues as _sign_pvalues
from .rows import signflip_pvalues as _signflip_pvalues
from .rows import ttest_rows as _ttest_rows
from .rows import win_tie_loss as _win_tie_loss
from .studentized_range import studentized_range_sf

__all__ = [
    "PairwiseResult",
    "DiscriminativePowerResult",
    "pairwise_tests",
    "randomized_tukey_hsd",
    "westfall_young",
    "anova_tukey_hsd",
    "discriminative_power",
]

_PAIR_TESTS = PAIR_TESTS  # kept for callers of the old private names
_FAMILY_TESTS = FAMILY_TESTS
TESTS = TEST_NAMES
_CI_CHOICES = ("consistent", "t", "bca", "percentile", "basic", "simultaneous", "none")
# Tests whose decisions we can invert exactly into intervals of the mean difference.
_INVERTIBLE = ("t", "randomization")
_BATCH_ELEMENTS = 1 << 22


# --------------------------------------------------------------------------
# input
# --------------------------------------------------------------------------
def _scores_iv(scores, missing, *, min_systems=2, min_queries=2):
    """``X`` (n_queries, n_systems), systems, queries, dropped, measure: via the one coercion."""
    table = as_score_table(scores, missing=missing, min_systems=min_systems,
                           min_queries=min_queries)
    return table.values, table.systems, table.queries, table.dropped, table.measure


def _pairs(k):
    i, j = np.triu_indices(k, 1)
    return i, j


def _test_name_iv(test):
    return test_spec(test).name


def _correction_iv(correction):
    return correction_spec(correction).name


def adjust_pvalues(pvalues, correction, alpha):
    """Adjusted p-values and rejections for a canonical correction name (registry).

    statsmodels' method is always named explicitly (``"bh"`` is ``"fdr_bh"``).
    """
    method = CORRECTIONS[correction].statsmodels
    p = np.asarray(pvalues, dtype=np.float64)
    if method is None or p.size == 0:
        return p.copy(), p <= alpha
    if method == "holm":
        # statsmodels' own arithmetic (same numbers), without the gc.collect() that its
        # Holm branch runs on every call (about a second in a busy process)
        order = np.argsort(p)
        adj = np.maximum.accumulate(p[order] * np.arange(p.size, 0, -1))
        adj[adj > 1] = 1.0
        p_adj = np.empty_like(adj)
        p_adj[order] = adj
        return p_adj, p_adj <= alpha
    from statsmodels.stats.multitest import multipletests

    reject, p_adj, _, _ = multipletests(p, alpha=alpha, method=method)
    return p_adj, p_adj <= alpha


_adjust = adjust_pvalues


# --------------------------------------------------------------------------
# result
# --------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class PairwiseResult:
    """All-pairs comparison of systems (one entry per pair ``(a, b)``).

    Attributes
    ----------
    systems : tuple of str
        System names in input order.
    a, b : tuple of str
        The two systems of each pair (``a`` before ``b`` in ``systems``).
    mean_a, mean_b, difference : ndarray
        Means over the queries and ``mean_a - mean_b``.
    statistic : ndarray
        Test statistic (see ``test``): t for ``"t"``; ``W+`` of ``a - b`` for
        ``"wilcoxon"``; wins of ``a`` for ``"sign"``; the mean difference for
        ``"randomization"``, ``"bootstrap"`` and ``"tukey"``; the paired t
        for ``"bootstrap-t"`` and ``"maxt"``; the studentised range ``q`` for
        ``"anova-hsd"``; Dunnett's :math:`T_i` for ``"dunnett"``.
    pvalue : ndarray
        Unadjusted p-values. For ``"tukey"``/``"maxt"`` the marginal
        permutation p-value of the pair under the same within-query permutations.
    pvalue_se : ndarray
        Monte-Carlo standard error of ``pvalue`` (0 for exact and analytic tests).
    pvalue_adjusted : ndarray
        p-values adjusted by ``correction``; for ``"tukey"``, ``"maxt"``,
        ``"anova-hsd"`` and ``"dunnett"`` the procedure's own family-wise
        adjusted p-values.
    reject : ndarray of bool
        ``pvalue_adjusted <= alpha``.
    ci_low, ci_high : ndarray
        Confidence interval of the mean difference (``ci_method``); by default
        one that agrees with ``reject`` (see ``ci`` in :func:`pairwise_tests`).
    marginal_low, marginal_high : ndarray or None
        The marginal t interval of each pair at ``confidence_level`` (no
        multiplicity adjustment), for reading one pair on its own.
    d_z, es_e, prob_superiority : ndarray
        Effect sizes (see :func:`mrrstats.effect_sizes`); ``es_e`` uses the
        two-way ANOVA residual variance over all systems in ``systems``.
    wins, ties, losses : ndarray of int
        Queries where ``a`` beats, ties (within ``zero_tolerance``) or loses to ``b``.
    test, correction, alternative, ci_method : str
    alpha, confidence_level, zero_tolerance : float
    n_resamples : int or None
        Resamples used by the test (``2**n`` for an exact randomization test);
        None for analytic tests.
    exact : bool
        Whether the randomization test enumerated all sign vectors.
    seed : int or None
        Seed or entropy that reproduces the result (None when a Generator was passed).
    n_queries : int
    queries : tuple of str
        Query ids used.
    dropped_queries : tuple of str
        Queries dropped by ``missing="drop"``.
    measure : str or None
        Measure name, when known.
    baseline : str or None
        The baseline every system was compared with (``baseline=``); None
        for all pairs.
    n_clusters : int or None
        Number of query clusters resampled or flipped as units (``clusters=``).
    """

    systems: tuple
    a: tuple
    b: tuple
    mean_a: np.ndarray
    mean_b: np.ndarray
    difference: np.ndarray
    statistic: np.ndarray
    pvalue: np.ndarray
    pvalue_se: np.ndarray
    pvalue_adjusted: np.ndarray
    reject: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    d_z: np.ndarray
    es_e: np.ndarray
    wins: np.ndarray
    ties: np.ndarray
    losses: np.ndarray
    prob_superiority: np.ndarray
    test: str
    correction: str
    alpha: float
    alternative: str
    confidence_level: float
    ci_method: str
    zero_tolerance: float
    n_resamples: int | None
    exact: bool
    seed: int | None
    n_queries: int
    queries: tuple = field(repr=False)
    dropped_queries: tuple = field(repr=False, default=())
    measure: str | None = None
    marginal_low: np.ndarray | None = field(repr=False, default=None)
    marginal_high: np.ndarray | None = field(repr=False, default=None)
    baseline: str | None = None
    n_clusters: int | None = None

    def __len__(self):
        return len(self.a)

    def to_frame(self):
        """One row per pair: systems, means, difference, CI, statistic, p-values, effects."""
        frame = pd.DataFrame({
            "a": list(self.a), "b": list(self.b),
            "mean_a": self.mean_a, "mean_b": self.mean_b, "diff": self.difference,
            "ci_low": self.ci_low, "ci_high": self.ci_high,
            "statistic": self.statistic, "pvalue": self.pvalue, "pvalue_se": self.pvalue_se,
            "pvalue_adjusted": self.pvalue_adjusted, "reject": self.reject,
            "d_z": self.d_z, "es_e": self.es_e,
            "wins": self.wins, "ties": self.ties, "losses": self.losses,
            "prob_superiority": self.prob_superiority,
        })
        frame.insert(0, "measure", self.measure)
        frame["test"] = self.test
        frame["correction"] = self.correction
        frame["ci_method"] = self.ci_method
        if self.marginal_low is not None:
            frame["marginal_low"] = self.marginal_low
            frame["marginal_high"] = self.marginal_high
        return frame


# --------------------------------------------------------------------------
# intervals that agree with the decisions
# --------------------------------------------------------------------------
def ci_excludes_zero(low, high):
    """Whether each interval excludes 0 (the test of that pair is rejected).

    A bound that is exactly 0 with the other bound infinite is the open
    statement :math:`\\delta > 0` (or :math:`< 0`) of Strassburger & Bretz's
    intervals for a rejected hypothesis; any other interval is closed.
    """
    low = np.asarray(low, dtype=np.float64)
    high = np.asarray(high, dtype=np.float64)
    return ((low > 0) | (high < 0) | ((low == 0) & (high == np.inf))
            | ((high == 0) & (low == -np.inf)))


def _t_inverted(D, alpha_pair, alternative):
    """The set of shifts the paired t-test does not reject at per-pair level ``alpha_pair``."""
    n = D.shape[1]
    d = D.mean(axis=1)
    se = D.std(axis=1, ddof=1) / math.sqrt(n)
    a = np.broadcast_to(np.asarray(alpha_pair, dtype=np.float64), d.shape)
    with np.errstate(invalid="ignore"):
        if alternative == "two-sided":
            q = stats.t.isf(a / 2.0, n - 1)
            return d - q * se, d + q * se
        q = stats.t.isf(a, n - 1)
        if alternative == "greater":
            return d - q * se, np.full(d.shape, np.inf)
        return np.full(d.shape, -np.inf), d + q * se


def _signflip_inverted(D, alpha_pair, alternative, *, total, exact, batch, replay,
                       weights=None):
    r"""Invert the paired sign-flip test, on the very sign vectors the test used.

    For one sign vector with positive set :math:`S_+` the resampled mean of
    :math:`d - \delta` is at least as extreme as the observed one exactly for
    :math:`\delta` between :math:`\bar d_{S_+}` and :math:`\bar d_{S_-}` (the
    means of the differences over the two sets; all :math:`\delta` when one
    set is empty). The p-value at :math:`\delta` is therefore a count of such
    intervals, and the confidence set :math:`\{\delta : p(\delta) > \alpha'\}`
    runs between order statistics of their end points. ``replay`` is the bit
    generator's class and its state before the test: the test's sign vectors
    are drawn again.

    With ``weights`` (cluster sizes; the columns of ``D`` are cluster totals)
    the means are per query, :math:`\sum_{S_+} D_g / \sum_{S_+} n_g`: the
    inversion of the clustered test for a shift :math:`\delta` of every query.
    """
    P, n = D.shape
    N = n if weights is None else float(np.sum(weights))
    S = D.sum(axis=1)
    absum = np.abs(D).sum(axis=1)
    # ties as the test counts them (its tolerance on the sum scale, here on the mean scale)
    tol = (100 * np.finfo(np.float64).eps * np.abs(S) + 8 * n * np.finfo(np.float64).eps
           * absum) / N
    a = np.broadcast_to(np.asarray(alpha_pair, dtype=np.float64), (P,))
    if exact:
        keep = np.floor(a * total * (1 + 1e-12)).astype(np.int64) + 1
    else:
        keep = np.floor(a * (total + 1.0) * (1 + 1e-12)).astype(np.int64)
    # keep = 0: no shift is rejected (p >= 1/(B+1) > alpha'), the whole line
    keep = np.clip(keep, 0, total)
    # a fixed internal batch: the stream of sign vectors is the same for any batch,
    # and so are the products (the user's ``batch`` never changes a result)
    batch = _default_batch(n, P)
    low = np.full(P, -np.inf)
    high = np.full(P, np.inf)
    block = max(1, _BATCH_ELEMENTS // (2 * total))
    for b0 in range(0, P, block):
        sl = slice(b0, min(P, b0 + block))
        with _blas_single_thread():
            lo_b, hi_b = _signflip_end_points(D[sl], S[sl], tol[sl], alternative, total,
                                              exact, batch, replay, weights)
        cols = np.arange(lo_b.shape[1])
        k = np.maximum(keep[sl] - 1, 0)
        none = keep[sl] == 0
        if alternative in ("two-sided", "greater"):
            low[sl] = np.where(none, -np.inf, np.sort(lo_b, axis=0)[k, cols])
        if alternative in ("two-sided", "less"):
            high[sl] = np.where(none, np.inf, -np.sort(-hi_b, axis=0)[k, cols])
    return low, high


def _signflip_end_points(D, S, tol, alternative, total, exact, batch, replay, weights=None):
    """End points (total, P) of the shifts each sign vector counts as extreme."""
    P, n = D.shape
    N = n if weights is None else float(np.sum(weights))
    key = None
    if not exact:  # the test's key: drawn again from the Generator's state before the test
        cls, state = replay
        gen = np.random.Generator(cls())
        gen.bit_generator.state = state
        key = _stream_key(gen)
    lo_pts = np.empty((total, P))
    hi_pts = np.empty((total, P))
    pos = 0
    if exact:
        steps = ((start, _enumerated_rows(start, min(batch, total - start), n))
                 for start in range(0, total, batch))
    else:
        steps = _kernel_rows(_signflip_rows, key, total, batch, n, -1)
    for _, bits in steps:
        r = bits.shape[0]
        bf = bits.astype(np.float64)
        n_plus = (bf.sum(axis=1) if weights is None else bf @ weights)[:, None]
        s_plus = bf @ D.T  # (r, P)
        with np.errstate(divide="ignore", invalid="ignore"):
            m_plus = s_plus / n_plus
            m_minus = (S - s_plus) / (N - n_plus)
        if alternative == "two-sided":
            full = (n_plus == 0) | (n_plus == N)
            lo = np.where(full, -np.inf, np.minimum(m_plus, m_minus) - tol)
            hi = np.where(full, np.inf, np.maximum(m_plus, m_minus) + tol)
        elif alternative == "greater":  # extreme for every delta >= the mean over S-
            lo = np.where(n_plus == N, -np.inf, m_minus - tol)
            hi = lo
        else:  # "less": extreme for every delta <= the mean over S-
            hi = np.where(n_plus == N, np.inf, m_minus + tol)
            lo = hi
        lo_pts[pos:pos + r] = lo
        hi_pts[pos:pos + r] = hi
        pos += r
    return lo_pts, hi_pts


def _directional(diff, lo, hi, alternative):
    """Strassburger-Bretz bounds of a rejected hypothesis: ``delta > 0`` or ``delta < 0``."""
    pos = diff > 0 if alternative == "two-sided" else np.full(diff.shape,
                                                               alternative == "greater")
    low = np.where(pos, np.maximum(0.0, lo), -np.inf)
    high = np.where(pos, np.inf, np.minimum(0.0, hi))
    return low, high


def _consistent_intervals(D, p, correction, alpha_ci, alternative, invert, decided=None,
                          family=None):
    r"""Intervals for every pair that agree with ``correction``'s decisions at ``alpha_ci``.

    ``invert(alpha_pair)`` returns the marginal interval of the same test at
    per-pair level ``alpha_pair``; ``decided`` is ``(alpha, reject)`` of the
    correction already applied; ``family`` (see :func:`pairwise_tests_in_family`)
    replaces the size and the rejections of the family by those of a larger
    one. Returns ``(low, high, ci_method)``.
    """
    P = p.size
    m = P if family is None else int(family["m"])
    diff = D.mean(axis=1)
    if correction == "none":
        lo, hi = invert(np.full(P, alpha_ci))
        return lo, hi, "marginal"
    if correction == "bonferroni":
        lo, hi = invert(np.full(P, alpha_ci / m))
        return lo, hi, "bonferroni"
    if family is None:
        # the decisions at alpha_ci: those already made when alpha_ci is the test's alpha
        # (statsmodels' multipletests runs a full gc.collect(), slow in loops)
        alpha, reject = decided if decided is not None else (None, None)
        if alpha != alpha_ci:
            _, reject = _adjust(p, correction, alpha_ci)
        r = int(reject.sum())
    else:
        reject = np.asarray(family["reject_ci"], bool)
        r = int(family["r_ci"])
    if correction == "bh":
        # Benjamini & Yekutieli (2005): level 1 - R q / m; BH rejects exactly p <= R q / m.
        lo, hi = invert(np.full(P, alpha_ci * max(r, 1) / m))
        return lo, hi, "fcr-by2005"
    # Holm: Strassburger & Bretz (2008).
    if r < m:
        lo, hi = invert(np.full(P, alpha_ci / (m - r)))
        dlo, dhi = _directional(diff, np.zeros(P), np.zeros(P), alternative)
    else:
        lo, hi = invert(np.full(P, alpha_ci / m))
        dlo, dhi = _directional(diff, lo, hi, alternative)
    return np.where(reject, dlo, lo), np.where(reject, dhi, hi), "holm-sb2008"


# --------------------------------------------------------------------------
# pairwise tests
# --------------------------------------------------------------------------
def _pair_bootstrap_ci(X, I, J, method, cl, alternative, n_resamples, batch, gen,
                       design=None):
    """Paired bootstrap CIs of mean differences for all pairs, one shared resample set.

    The bootstrap mean of ``a - b`` is the difference of the bootstrap means
    of ``a`` and ``b`` under the same resample, so only the (k, B) system
    means are drawn; pairs are then processed in blocks to bound memory. With
    a cluster ``design`` whole clusters are drawn (ratio means, the
    leave-one-cluster-out acceleration), as in :func:`mrrstats.bootstrap_ci`.
    """
    n, k = X.shape
    if design is None:
        sysdist = _bootstrap_sums(X.T, n_resamples, batch, gen) / n  # (k, B)
    else:
        T = np.stack([design.totals(X[:, j]) for j in range(k)])
        sums = _design_sums(np.vstack([T, design.sizes.astype(np.float64)]), design,
                            n_resamples, batch, gen)
        sysdist = sums[:k] / sums[k]
    P = I.size
    low = np.empty(P)
    high = np.empty(P)
    block = max(1, _BATCH_ELEMENTS // max(1, n_resamples))
    for s in range(0, P, block):
        ii, jj = I[s:s + block], J[s:s + block]
        dist = np.sort(sysdist[ii] - sysdist[jj], axis=1)
        D = X[:, ii].T - X[:, jj].T
        theta = D.mean(axis=1)
        if method != "bca":
            accel = np.zeros(ii.size)
        elif design is None:
            accel = _jackknife_acceleration(D)
        else:
            accel = np.array([_cluster_acceleration(row, design) for row in D])
        lo, hi = _bootstrap_interval(theta, dist, accel, method, cl, alternative)
        low[s:s + block] = lo
        high[s:s + block] = hi
    return low, high


def pairwise_tests(scores, *, test="randomization", correction="holm", alpha=0.05,
                   alternative="two-sided", n_resamples=10000, confidence_level=0.95,
                   ci=None, zero_tolerance=0.0, baseline=None, clusters=None, batch=None,
                   missing="raise", test_options=None, workers=-1, rng=None):
    r"""Test every pair of systems and adjust for multiplicity.

    Parameters
    ----------
    scores : DataFrame or array_like
        Rows = queries, columns = systems (DataFrame), or an array of shape
        ``(n_systems, n_queries)``.
    test : str, keyword-only
        ``"t"`` (paired t), ``"wilcoxon"``, ``"sign"``, ``"randomization"``
        (paired sign-flip), ``"bootstrap"`` (shift), ``"bootstrap-t"``
        (studentised bootstrap), or a family-wise procedure: ``"tukey"``
        (:func:`randomized_tukey_hsd`), ``"maxt"`` (:func:`westfall_young`),
        ``"anova-hsd"`` (:func:`anova_tukey_hsd`), ``"dunnett"`` (needs
        ``baseline``; see there).
    correction : {"holm", "bonferroni", "bh", "none"} or None, keyword-only
        Multiplicity adjustment across the pairs, through
        :func:`statsmodels.stats.multitest.multipletests` with the method
        named explicitly (``"bh"`` is ``"fdr_bh"``). Not used by the
        family-wise procedures, which adjust by construction; their
        ``correction`` is recorded as ``"tukey-hsd"``, ``"westfall-young"`` or
        ``"tukey-hsd-anova"``.
    alpha : float, keyword-only
        Level for ``reject``.
    alternative : {"two-sided", "less", "greater"}, keyword-only
        For each pair ``(a, b)``, ``"greater"`` means ``a`` is better. The
        family-wise procedures are two-sided only.
    n_resamples : int, keyword-only
        Resamples of the test and of bootstrap intervals.
    confidence_level : float, keyword-only
    ci : {"consistent", "t", "bca", "percentile", "basic", "simultaneous", "none"} or None
        Interval for the mean difference, named in ``ci_method``.
        ``"consistent"`` (the default where available: ``"t"`` and
        ``"randomization"`` tests and the family-wise procedures): intervals
        that agree with the decisions -- a pair is rejected exactly when 0 lies
        outside its interval (when ``confidence_level = 1 - alpha``). They
        invert the test itself (the t-test; the sign-flip test on the very sign
        vectors it used) at the level the correction implies:

        * ``"none"``: the marginal interval (``"marginal(test)"``);
        * ``"bonferroni"``: the ``alpha/m`` interval (``"bonferroni(test)"``);
        * ``"holm"``: Strassburger & Bretz (2008): a rejected pair gets
          :math:`\delta > 0` (``ci_low = 0``, ``ci_high = inf``) or
          :math:`\delta < 0`, the others the ``alpha/(m - r)`` interval, ``r``
          rejections; when all are rejected, ``[max(0, lower_{alpha/m}), inf)``
          (``"holm-sb2008(test)"``); a bound 0 beside an infinite one is open;
        * ``"bh"``: false-coverage-rate adjusted intervals of Benjamini &
          Yekutieli (2005), level ``1 - R alpha / m`` with ``R`` rejections
          (``"fcr-by2005(test)"``); they control the FCR of the selected pairs;
        * ``"maxt"``: the same construction for the step-down max-T
          (``"maxt-step-down"``), cut-offs from the replayed permutations;
          ``ci="simultaneous"`` gives the single-step intervals instead
          (``"maxt-single-step"``; they may disagree with step-down decisions);
        * ``"tukey"``: the simultaneous intervals with the cut-off of the same
          null distribution as the p-values (``"tukey-simultaneous"``);
          ``"anova-hsd"``: the studentised-range intervals; ``"dunnett"``:
          Dunnett's simultaneous intervals (``"dunnett-simultaneous"``).

        For the other tests (Wilcoxon, sign, bootstraps) the default is the
        marginal ``"t"`` interval, which does not follow their decisions. ``"t"``
        is also in ``marginal_low, marginal_high`` of every result: measured on
        real TREC pairs it covers 0.945 on average at 25 topics and 0.949 at 50
        for a nominal 0.95, BCa 0.917 and 0.933 (see :func:`mrrstats.compare`).
    zero_tolerance : float, keyword-only
        Ties for wins/ties/losses and the sign test.
    baseline : str or int, optional, keyword-only
        Compare every system with this one only (by name, or position in the
        columns): :math:`k - 1` pairs ``(system, baseline)``, so ``difference``
        is system minus baseline and ``"greater"`` means better than the
        baseline; ``correction`` runs over these :math:`k - 1` tests (the way
        PyTerrier's ``Experiment(baseline=0)`` is used). Many-to-one
        family-wise procedures: ``test="maxt"`` (step-down max-T over the
        :math:`k - 1` comparisons, under the same within-query permutations of
        all systems) and ``test="dunnett"`` (Dunnett 1955 with the two-way
        ANOVA error, single step, simultaneous intervals; any alternative).
    clusters : array_like or mapping, optional, keyword-only
        Cluster label of each query (a mapping query id -> label, or one label
        per query in table order), for ``test="randomization"`` (one sign flip
        per cluster), ``"bootstrap"`` and ``"bootstrap-t"`` (whole clusters
        drawn; see :func:`mrrstats.bootstrap_test`), ``"tukey"`` and
        ``"maxt"`` (one permutation of the system labels per cluster, applied
        to all its queries: valid when the systems are exchangeable within
        each cluster as a whole). The marginal interval is
        then the cluster-robust t interval with :math:`G - 1` degrees of
        freedom, bootstrap intervals draw clusters, and the decision-consistent
        intervals invert the clustered sign-flip test.
    batch : int or None, keyword-only
        Resamples held in memory at once (does not change results).
    missing : {"raise", "drop"}, keyword-only
        ``"drop"`` removes every query on which some system has no value.
    test_options : dict, optional
        Extra options for the per-pair test: ``wilcoxon_test``'s ``method``,
        ``zero_method``, ``correction``; ``westfall_young``'s ``statistic``;
        ``randomization``'s ``exact``.
    workers : int, keyword-only
        Threads of the compiled resampling kernels of the randomization and
        bootstrap tests (-1: all cores); the results never depend on it.
    rng : None, int or numpy.random.Generator, keyword-only

    Returns
    -------
    PairwiseResult

    Notes
    -----
    Random numbers are consumed in a fixed order: first the test's resamples,
    then the bootstrap resamples of the intervals. The decision-consistent
    intervals draw nothing: they replay the test's own resamples.

    Measured on the 27 real TREC score matrices of ``shared/data`` (first 20
    systems, 5,130 pairs, B = 10000; ``benchmarks/calibration/consistency_counts.py``):
    with the default intervals no pair's interval disagrees with its decision,
    for the randomization test with Holm, Bonferroni, BH or no correction,
    for max-T and for the randomised Tukey HSD (before: max-T 5 and
    randomization + Holm 59 of 380 pairs on two such matrices).

    References
    ----------
    .. [1] Strassburger, K., Bretz, F. (2008). Compatible simultaneous lower
           confidence bounds for the Holm procedure and other Bonferroni-based
           closed tests. Statistics in Medicine 27(24), 4914-4927.
    .. [2] Benjamini, Y., Yekutieli, D. (2005). False discovery rate-adjusted
           multiple confidence intervals for selected parameters. JASA 100(469),
           71-81.
    .. [3] Dunnett, C. W. (1955). A multiple comparison procedure for comparing
           several treatments with a control. JASA 50(272), 1096-1121.

    Examples
    --------
    >>> import numpy as np, mrrstats
    >>> rng = np.random.default_rng(0)
    >>> x = rng.random((3, 30)) + np.array([[0.0], [0.0], [0.3]])
    >>> res = mrrstats.pairwise_tests(x, test="t", correction="holm")
    >>> print(res.to_frame()[["a", "b", "reject"]].to_string(index=False))
    a b  reject
    0 1   False
    0 2    True
    1 2    True
    """
    return pairwise_tests_in_family(
        scores, None, test=test, correction=correction, alpha=alpha, alternative=alternative,
        n_resamples=n_resamples, confidence_level=confidence_level, ci=ci,
        zero_tolerance=zero_tolerance, baseline=baseline, clusters=clusters, batch=batch,
        missing=missing, test_options=test_options, workers=workers, rng=rng)


def pairwise_tests_in_family(scores, family, *, test, correction, alpha, alternative,
                             n_resamples, confidence_level, ci, zero_tolerance, baseline,
                             clusters, batch, missing, test_options, rng, workers=-1):
    """:func:`pairwise_tests`, with the decisions of a larger family when ``family`` is given.

    ``family`` (None: this measure's pairs are the family) is a dict with
    ``p_adj`` and ``reject`` (this measure's pairs, adjusted over the whole
    family at ``alpha``), ``reject_ci`` (at ``1 - confidence_level``), ``m``
    (the family size) and ``r_ci`` (rejections in the family at ``1 -
    confidence_level``): the decision-consistent intervals then use the
    family's size and rejections (e.g. Holm's ``alpha / (m - r)``).
    """
    xp = _array_namespace_of(scores)
    on_device = None
    if xp is not None:  # an (n, k) torch / CuPy / array-API matrix: sign flips on its device
        on_device = xp.astype(scores, xp.float64)
        scores = _to_host(on_device)
    (X, systems, queries, dropped, measure, test, correction, alpha, alternative, n_resamples,
     cl, ci, tol, batch, opts, gen, seed, b_idx, design) = _pairwise_tests_iv(
        scores, test, correction, alpha, alternative, n_resamples, confidence_level, ci,
        zero_tolerance, baseline, clusters, batch, missing, test_options, rng)
    workers = workers_iv(workers)
    if on_device is not None:  # (n_systems, n_queries) -> (n, k) as X, unless rows were dropped
        same = tuple(on_device.shape) == X.T.shape and np.array_equal(scores, X.T)
        on_device = xp.permute_dims(on_device, (1, 0)) if same else None
    if family is not None and test in FAMILY_TESTS:
        raise ValueError(f"test={test!r} controls the error rate within one measure; a "
                         "family over measures needs a per-pair test and a correction")
    n, k = X.shape
    I, J = _pairs(k) if b_idx is None else _baseline_pairs(k, b_idx)
    extra = {"baseline": None if b_idx is None else systems[b_idx],
             "n_clusters": None if design is None else design.n_clusters}
    if test in FAMILY_TESTS:
        fn = {"tukey": _tukey_core, "maxt": _maxt_core, "anova-hsd": _anova_core,
              "dunnett": _dunnett_core}[test]
        kw = {"pairs": (I, J)} if test in ("maxt", "dunnett") else {}
        if test == "dunnett":
            kw["alternative"] = alternative
        if test in ("tukey", "maxt"):
            kw["clusters"] = None if design is None else design.codes
        res = fn(X, systems, queries, dropped, alpha=alpha, n_resamples=n_resamples,
                 cl=cl, ci=ci, tol=tol, batch=batch, gen=gen, seed=seed, opts=opts, **kw)
        res = dataclasses.replace(res, **extra)
        return res if measure is None else dataclasses.replace(res, measure=measure)
    D = X[:, I].T - X[:, J].T  # (P, n)
    P = I.size
    # the exchangeable units: queries, or cluster totals (one sign flip per cluster)
    Du = D if design is None else np.stack([design.totals(row) for row in D])
    weights = None if design is None else design.sizes.astype(np.float64)
    se_p = np.zeros(P)
    n_used = None
    exact = False
    replay = (type(gen.bit_generator), gen.bit_generator.state)
    if test == "t":
        stat, p, _, se = _ttest_rows(D, alternative)
    elif test == "sign":
        w, _, l_ = _win_tie_loss(D, tol)
        stat = w.astype(np.float64)
        p = _sign_pvalues(w, l_, alternative)
    elif test == "wilcoxon":
        stat = np.empty(P)
        p = np.empty(P)
        for q in range(P):
            r = wilcoxon_test(X[:, I[q]], X[:, J[q]], alternative=alternative, **opts)
            stat[q], p[q] = r.statistic, r.pvalue
    elif test == "randomization":
        device_D = None
        if on_device is not None and design is None:
            dev = _device(on_device)
            device_D = xp.permute_dims(
                xp.take(on_device, xp.asarray(I, device=dev), axis=1)
                - xp.take(on_device, xp.asarray(J, device=dev), axis=1), (1, 0))
        p, se_p, n_used, exact = _signflip_pvalues(
            Du, alternative, n_resamples=n_resamples, exact=opts.get("exact"), batch=batch,
            gen=gen, device_D=device_D, workers=workers)
        stat = D.mean(axis=1)
    elif design is None:  # bootstrap, bootstrap-t
        method = "studentized" if test == "bootstrap-t" else "shift"
        stat, p, se_p = _bootstrap_test_rows(D, alternative, method, n_resamples, batch, gen,
                                             workers=workers)
        n_used = n_resamples
    else:
        method = "studentized" if test == "bootstrap-t" else "shift"
        stat, p, se_p, _, _ = cluster_bootstrap_rows(D, design, alternative, method,
                                                     n_resamples, batch, gen, workers=workers)
        n_used = n_resamples
    if family is None:
        p_adj, reject = _adjust(p, correction, alpha)
    else:
        p_adj, reject = np.asarray(family["p_adj"]), np.asarray(family["reject"], bool)
    if (n_used is not None and not exact and correction in ("holm", "bonferroni")
            and family is None and 1.0 / (n_used + 1.0) > alpha / P):
        warnings.warn(f"with n_resamples={n_used} the smallest attainable p-value "
                      f"1/(B+1) exceeds alpha/m = {alpha / P:.3g} for m = {P} pairs, so "
                      f"{correction} can reject nothing; use n_resamples >= "
                      f"{math.ceil(P / alpha)}", UnattainableSignificanceWarning,
                      stacklevel=2)
    _warn_unattainable(Du, test, correction, alpha, alternative, tol, exact, n_used, opts,
                       unit="queries" if design is None else "clusters")
    ci_method = ci
    if ci == "consistent":
        if test == "t":
            def invert(a):
                return _t_inverted(D, a, alternative)
        else:
            def invert(a):
                return _signflip_inverted(Du, a, alternative, total=n_used, exact=exact,
                                          batch=batch, replay=replay, weights=weights)
        lo, hi, how = _consistent_intervals(D, p, correction, 1.0 - cl, alternative, invert,
                                            decided=(alpha, reject), family=family)
        ci_method = f"{how}({test})"
    elif ci == "t":
        lo, hi = _marginal_t(D, design, alternative, cl)
    elif ci in ("bca", "percentile", "basic"):
        lo, hi = _pair_bootstrap_ci(X, I, J, ci, cl, alternative, n_resamples, batch, gen,
                                    design)
    else:
        lo = hi = np.full(P, np.nan)
    res = _assemble(X, systems, queries, dropped, I, J, D, stat, p, se_p, p_adj, reject,
                    lo, hi, tol, test=test, correction=correction, alpha=alpha,
                    alternative=alternative, cl=cl, ci=ci_method, n_resamples=n_used,
                    exact=exact, seed=seed)
    if design is not None:
        m_lo, m_hi = _marginal_t(D, design, alternative, cl)
        extra.update(marginal_low=m_lo, marginal_high=m_hi)
    res = dataclasses.replace(res, **extra)
    return res if measure is None else dataclasses.replace(res, measure=measure)


def _baseline_pairs(k, b):
    """Pairs ``(system, baseline)`` for every other system, in column order."""
    I = np.array([i for i in range(k) if i != b], dtype=np.intp)
    return I, np.full(I.size, b, dtype=np.intp)


def _marginal_t(D, design, alternative, cl):
    """Marginal t interval: paired (df n - 1), or cluster-robust (df G - 1) with clusters."""
    n = D.shape[1]
    if design is None:
        return _t_interval(D.mean(axis=1), D.std(axis=1, ddof=1) / math.sqrt(n), n - 1,
                           alternative, cl)
    return _t_interval(D.mean(axis=1), cluster_robust_se(D, design), design.n_clusters - 1,
                       alternative, cl)


def _smallest_attainable(D, test, alternative, tol, exact, n_used, opts):
    """Per pair, the smallest p-value the test can attain on these data (None: continuous)."""
    sides = 2.0 if alternative == "two-sided" else 1.0
    n = D.shape[1]
    if test == "sign":
        w, _, l_ = _win_tie_loss(D, tol)
        return np.minimum(1.0, sides * 0.5 ** (w + l_).astype(np.float64))
    if test == "randomization" and exact:
        return np.full(D.shape[0], min(1.0, sides * 0.5 ** n))
    if test == "wilcoxon" and opts.get("method", "auto") in ("exact", "auto") and n <= 50:
        nz = (np.abs(D) > 0).sum(axis=1)
        ties_free = np.array([np.unique(np.abs(d)).size == n for d in D])
        if np.all(ties_free & (nz == n)):  # scipy's exact null: all 2^n signed-rank sums
            return np.minimum(1.0, sides * 0.5 ** nz.astype(np.float64))
    return None


def _warn_unattainable(D, test, correction, alpha, alternative, tol, exact, n_used, opts,
                       unit="queries"):
    """Warn when a discrete test cannot pass the first threshold of ``correction``."""
    if correction == "none" or not TEST_SPECS[test].discrete:
        return
    pmin = _smallest_attainable(D, test, alternative, tol, exact, n_used, opts)
    if pmin is None or pmin.size == 0:
        return
    m = pmin.size
    # the most lenient threshold at which the correction can reject anything
    need = alpha if correction == "bh" else alpha / m
    if np.all(pmin > need):
        warnings.warn(f"{TEST_SPECS[test].label}: the smallest attainable p-value is "
                      f"{pmin.min():.3g} ({D.shape[1]} {unit}), but "
                      f"{CORRECTIONS[correction].label} over m = {m} pairs needs a p-value <= "
                      f"{need:.3g} to reject anything, "
                      "so it rejects nothing; use more queries, fewer pairs or a "
                      "continuous test", UnattainableSignificanceWarning, stacklevel=3)


def _assemble(X, systems, queries, dropped, I, J, D, stat, p, se_p, p_adj, reject, lo, hi,
              tol, *, test, correction, alpha, alternative, cl, ci, n_resamples, exact, seed):
    means = X.mean(axis=0)
    v_e = _rv(X.T) if X.shape[1] >= 2 and X.shape[0] >= 2 else None
    if v_e is not None and not v_e > 0:
        v_e = None
    diff, dz, es, w, t, l_, ps = _effect_rows(D, tol, v_e)
    n = X.shape[0]
    with np.errstate(invalid="ignore", divide="ignore"):
        m_lo, m_hi = _t_interval(D.mean(axis=1), D.std(axis=1, ddof=1) / math.sqrt(n), n - 1,
                                 alternative, cl)
    return PairwiseResult(
        systems=tuple(systems), a=tuple(systems[i] for i in I), b=tuple(systems[j] for j in J),
        mean_a=means[I], mean_b=means[J], difference=means[I] - means[J],
        statistic=np.asarray(stat, dtype=np.float64), pvalue=np.asarray(p, dtype=np.float64),
        pvalue_se=np.asarray(se_p, dtype=np.float64),
        pvalue_adjusted=np.asarray(p_adj, dtype=np.float64), reject=np.asarray(reject, bool),
        ci_low=np.asarray(lo, dtype=np.float64), ci_high=np.asarray(hi, dtype=np.float64),
        d_z=dz, es_e=es, wins=w, ties=t, losses=l_, prob_superiority=ps,
        test=test, correction=correction, alpha=alpha, alternative=alternative,
        confidence_level=cl, ci_method=ci, zero_tolerance=tol, n_resamples=n_resamples,
        exact=bool(exact), seed=seed, n_queries=int(X.shape[0]), queries=tuple(queries),
        dropped_queries=tuple(dropped), marginal_low=np.asarray(m_lo, dtype=np.float64),
        marginal_high=np.asarray(m_hi, dtype=np.float64))


def _pairwise_tests_iv(scores, test, correction, alpha, alternative, n_resamples,
                       confidence_level, ci, zero_tolerance, baseline, clusters, batch,
                       missing, test_options, rng):
    test = _test_name_iv(test)
    correction = _correction_iv(correction)
    alpha = alpha_iv(alpha)
    alternative_iv(alternative)
    n_resamples = int_iv(n_resamples, "n_resamples")
    cl = confidence_level_iv(confidence_level)
    if ci is None:
        ci = ("consistent" if test in _INVERTIBLE or test in FAMILY_TESTS else "t")
    if ci not in _CI_CHOICES:
        raise ValueError(f"`ci` must be one of {_CI_CHOICES} or None, got {ci!r}")
    if ci == "simultaneous" and test not in _FAMILY_TESTS:
        raise ValueError("`ci`='simultaneous' needs test='tukey', 'maxt' or 'anova-hsd'")
    if baseline is not None and test in ("tukey", "anova-hsd"):
        raise ValueError(f"test={test!r} compares all pairs; with `baseline` use "
                         "test='maxt' (many-to-one step-down max-T) or 'dunnett'")
    if baseline is None and test == "dunnett":
        raise ValueError("test='dunnett' compares every system with a baseline: pass "
                         "`baseline` (a system name)")
    if clusters is not None and test not in ("randomization", "bootstrap", "bootstrap-t",
                                             "tukey", "maxt"):
        raise ValueError("`clusters` works with test='randomization' (one sign flip per "
                         "cluster), 'bootstrap' or 'bootstrap-t' (whole clusters drawn), "
                         "'tukey' or 'maxt' (one permutation of the systems per cluster); "
                         f"test={test!r} treats queries as independent")
    if test in _FAMILY_TESTS:
        if alternative != "two-sided" and test != "dunnett":
            raise ValueError(f"`alternative` must be 'two-sided' for test={test!r}")
        if ci not in ("consistent", "simultaneous", "none"):
            raise ValueError(f"`ci` must be 'consistent', 'simultaneous' or 'none' for "
                             f"test={test!r}")
        correction = TEST_SPECS[test].correction
    tol = tolerance_iv(zero_tolerance)
    batch = int_iv(batch, "batch", allow_none=True)
    if test_options is None:
        opts = {}
    elif isinstance(test_options, dict):
        opts = dict(test_options)
    else:
        raise TypeError("`test_options` must be a dict or None")
    allowed = {"wilcoxon": {"method", "zero_method", "correction"},
               "maxt": {"statistic"}, "randomization": {"exact"}}.get(test, set())
    extra = set(opts) - allowed
    if extra:
        raise ValueError(f"`test_options` has options {sorted(extra)} that test={test!r} "
                         f"does not take (allowed: {sorted(allowed)})")
    if ci == "consistent" and test not in _INVERTIBLE and test not in FAMILY_TESTS:
        raise ValueError(f"`ci`='consistent' needs an invertible test ({_INVERTIBLE}) or a "
                         f"family-wise procedure; test={test!r} has none")
    X, systems, queries, dropped, measure = _scores_iv(scores, missing)
    measure = None if measure == "score" else measure
    b_idx = _baseline_iv(baseline, systems)
    design = None
    if clusters is not None:
        labels = query_labels(clusters, queries, name="clusters")
        design = _design_iv(labels, None, len(queries))
    gen, seed = rng_iv(rng)
    return (X, systems, queries, dropped, measure, test, correction, alpha, alternative,
            n_resamples, cl, ci, tol, batch, opts, gen, seed, b_idx, design)


def _baseline_iv(baseline, systems):
    """Column index of ``baseline`` (a system name or a position), or None."""
    if baseline is None:
        return None
    k = len(systems)
    if isinstance(baseline, int | np.integer) and not isinstance(baseline, bool):
        if not -k <= int(baseline) < k:
            raise ValueError(f"`baseline`={baseline} is not a position of the {k} systems")
        return int(baseline) % k
    name = str(baseline)
    if name not in systems:
        raise ValueError(f"`baseline`={baseline!r} is not one of the systems {list(systems)}")
    return list(systems).index(name)


# --------------------------------------------------------------------------
# within-query permutations: randomised Tukey HSD and Westfall-Young max-T
# --------------------------------------------------------------------------
def _paired_t_from_moments(mean_diff, sq_sum, n):
    """Paired t from the mean difference and the sum of squared differences."""
    var = (sq_sum - n * mean_diff * mean_diff) / (n - 1.0)
    var = np.maximum(var, 0.0)
    se = np.sqrt(var / n)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se > 1e-13 * (np.abs(mean_diff) + 1e-300), mean_diff / se,
                     np.where(mean_diff == 0, 0.0, np.copysign(np.inf, mean_diff)))
    return t


def _tukey_core(X, systems, queries, dropped, *, alpha, n_resamples, cl, ci, tol, batch,
                gen, seed, opts, clusters=None):
    n, k = X.shape
    I, J = _pairs(k)
    D = X[:, I].T - X[:, J].T
    means = X.mean(axis=0)
    obs = np.abs(means[I] - means[J])
    scale = np.abs(X).mean() + 1e-300
    thr = obs - 1e-10 * scale
    count_max = np.zeros(I.size, dtype=np.int64)
    count_raw = np.zeros(I.size, dtype=np.int64)
    null_max = np.empty(n_resamples)
    pos = 0
    for perm in permutation_batches(X, n_resamples, batch, gen, clusters):
        m = query_means(perm)  # (r, k)
        rng_b = m.max(axis=1) - m.min(axis=1)
        null_max[pos:pos + rng_b.size] = rng_b
        pos += rng_b.size
        count_max += (rng_b[:, None] >= thr).sum(axis=0)
        count_raw += (np.abs(m[:, I] - m[:, J]) >= thr).sum(axis=0)
    p_adj = (count_max + 1.0) / (n_resamples + 1.0)
    p_raw = (count_raw + 1.0) / (n_resamples + 1.0)
    if ci in ("consistent", "simultaneous"):
        # Simultaneous interval from the permutation null of the largest difference,
        # with the cut-off that the p-values use: a pair is rejected at 1 - cl exactly
        # when |d| exceeds it (a tie with a resampled range counts as not rejected).
        c = _null_cutoff(null_max, 1.0 - cl) + (obs - thr)
        lo, hi = means[I] - means[J] - c, means[I] - means[J] + c
        ci = "tukey-simultaneous"
    else:
        lo = hi = np.full(I.size, np.nan)
    return _assemble(X, systems, queries, dropped, I, J, D, means[I] - means[J], p_raw,
                     _mc_se(p_raw, n_resamples), p_adj, p_adj <= alpha, lo, hi, tol,
                     test="tukey", correction=TEST_SPECS["tukey"].correction, alpha=alpha,
                     alternative="two-sided", cl=cl, ci=ci, n_resamples=n_resamples,
                     exact=False, seed=seed)


def _maxt_core(X, systems, queries, dropped, *, alpha, n_resamples, cl, ci, tol, batch,
               gen, seed, opts, pairs=None, clusters=None):
    with _blas_single_thread():
        return _maxt_core_impl(X, systems, queries, dropped, alpha=alpha,
                               n_resamples=n_resamples, cl=cl, ci=ci, tol=tol, batch=batch,
                               gen=gen, seed=seed, opts=opts, pairs=pairs, clusters=clusters)


def _maxt_core_impl(X, systems, queries, dropped, *, alpha, n_resamples, cl, ci, tol, batch,
                    gen, seed, opts, pairs=None, clusters=None):
    statistic = opts.get("statistic", "mean")
    if statistic not in ("t", "mean"):
        raise ValueError(f"`statistic` must be 't' or 'mean', got {statistic!r}")
    n, k = X.shape
    I, J = _pairs(k) if pairs is None else pairs
    D = X[:, I].T - X[:, J].T
    means = X.mean(axis=0)
    md = means[I] - means[J]
    if statistic == "t":
        stat = _paired_t_from_moments(md, (D * D).sum(axis=1), n)
        se_pair = D.std(axis=1, ddof=1) / np.sqrt(n)
    else:
        stat = md
        se_pair = np.ones(I.size)
    obs = np.abs(stat)
    finite_obs = np.where(np.isfinite(obs), obs, 0.0)
    thr = obs - 1e-10 * (finite_obs + np.abs(X).mean() + 1e-300)
    # Pairs in ascending order of |T|: a running maximum along this order gives,
    # for each pair, the largest resampled |T| among it and all less significant pairs.
    order = np.argsort(obs, kind="stable")
    thr_sorted = thr[order]
    replay = (type(gen.bit_generator), gen.bit_generator.state)
    I_s, J_s = I[order], J[order]
    flat = I_s * k + J_s
    diag_flat = np.arange(k) * (k + 1)
    count_sd = np.zeros(I.size, dtype=np.int64)
    count_raw = np.zeros(I.size, dtype=np.int64)
    null_max = np.empty(n_resamples)
    pos = 0
    for perm in permutation_batches(X, n_resamples, batch, gen, clusters):
        r = perm.shape[0]
        m = query_means(perm)  # (r, k)
        md_b = m[:, I_s] - m[:, J_s]
        if statistic == "t":
            G = (np.ascontiguousarray(perm.transpose(0, 2, 1)) @ perm).reshape(r, k * k)
            diag = G[:, diag_flat]
            sq = diag[:, I_s] + diag[:, J_s] - 2.0 * G[:, flat]
            T = np.abs(_paired_t_from_moments(md_b, sq, n))
        else:
            T = np.abs(md_b)
        count_raw += (T >= thr_sorted).sum(axis=0)
        smax = np.maximum.accumulate(T, axis=1, out=T)
        count_sd += (smax >= thr_sorted).sum(axis=0)
        null_max[pos:pos + r] = smax[:, -1]
        pos += r
    # Adjusted p-values, most significant pair first, made monotone.
    p_desc = np.maximum.accumulate(((count_sd + 1.0) / (n_resamples + 1.0))[::-1])
    p_adj = np.empty(I.size)
    p_adj[order[::-1]] = np.minimum(p_desc, 1.0)
    p_raw = np.empty(I.size)
    p_raw[order] = (count_raw + 1.0) / (n_resamples + 1.0)
    if ci == "simultaneous":
        # single-step intervals (beside step-down decisions: they may disagree)
        c = _null_cutoff(null_max, 1.0 - cl) + (obs - thr)
        lo, hi = md - c * se_pair, md + c * se_pair
        ci = "maxt-single-step"
    elif ci == "consistent":
        lo, hi = _maxt_stepdown_intervals(X, I, J, md, se_pair, obs - thr, p_adj, null_max,
                                          statistic, 1.0 - cl, n_resamples, batch, replay,
                                          clusters)
        ci = "maxt-step-down"
    else:
        lo = hi = np.full(I.size, np.nan)
    return _assemble(X, systems, queries, dropped, I, J, D, stat, p_raw,
                     _mc_se(p_raw, n_resamples), p_adj, p_adj <= alpha, lo, hi, tol,
                     test="maxt", correction=TEST_SPECS["maxt"].correction, alpha=alpha,
                     alternative="two-sided", cl=cl, ci=ci, n_resamples=n_resamples,
                     exact=False, seed=seed)


def _null_cutoff(null, alpha):
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


def _maxt_stepdown_intervals(X, I, J, md, se_pair, tolx, p_adj, null_max, statistic, alpha,
                             n_resamples, batch, replay, clusters=None):
    r"""Intervals compatible with the step-down max-T decisions at level ``alpha``.

    The construction of Strassburger & Bretz (2008) for a step-down procedure:
    with :math:`\mathcal R` the pairs rejected at ``alpha`` and :math:`\mathcal N`
    the rest, a rejected pair gets the directional statement :math:`\delta > 0`
    (or :math:`< 0`) when :math:`\mathcal N` is not empty; a pair of
    :math:`\mathcal N` gets :math:`\bar d \pm c_{\mathcal N}\,\mathrm{se}`, where
    :math:`c_{\mathcal N}` is the cut-off of :math:`\max_{\mathcal N} |T^*|` under
    the same permutations (replayed); when every pair is rejected,
    :math:`[\max(0, \bar d - c\,\mathrm{se}), \infty)` with :math:`c` the
    single-step cut-off. ``tolx`` is the tie tolerance of the p-values (a
    resampled value within it of the observed one counts as extreme).
    """
    P = I.size
    rejected = p_adj <= alpha
    if rejected.all():
        c = _null_cutoff(null_max, alpha) + tolx
        return _directional(md, md - c * se_pair, md + c * se_pair, "two-sided")
    keep = ~rejected
    k, n = X.shape[1], X.shape[0]
    c = _null_cutoff(_max_null(X, I[keep], J[keep], statistic, n_resamples, batch, replay,
                               k, n, clusters), alpha) + tolx
    lo, hi = md - c * se_pair, md + c * se_pair
    dlo, dhi = _directional(md, np.zeros(P), np.zeros(P), "two-sided")
    return np.where(rejected, dlo, lo), np.where(rejected, dhi, hi)


def _max_null(X, I, J, statistic, n_resamples, batch, replay, k, n, clusters=None):
    """max |T*| over the pairs (I, J) under the replayed within-query permutations."""
    cls, state = replay
    gen = np.random.Generator(cls())
    gen.bit_generator.state = state
    out = np.empty(n_resamples)
    flat = I * k + J
    diag_flat = np.arange(k) * (k + 1)
    pos = 0
    for perm in permutation_batches(X, n_resamples, batch, gen, clusters):
        r = perm.shape[0]
        m = query_means(perm)
        md_b = m[:, I] - m[:, J]
        if statistic == "t":
            G = (np.ascontiguousarray(perm.transpose(0, 2, 1)) @ perm).reshape(r, k * k)
            diag = G[:, diag_flat]
            sq = diag[:, I] + diag[:, J] - 2.0 * G[:, flat]
            T = np.abs(_paired_t_from_moments(md_b, sq, n))
        else:
            T = np.abs(md_b)
        out[pos:pos + r] = T.max(axis=1)
        pos += r
    return out


def _studentized_range_sf(q, k, df):
    """``P(Q_{k,df} > q)`` for many ``q``: :func:`.studentized_range.studentized_range_sf`
    (relative error below 1e-6 down to 1e-300; scipy's ``1 - cdf`` is not accurate
    below about 1e-5)."""
    return studentized_range_sf(q, k, df)


def _anova_core(X, systems, queries, dropped, *, alpha, n_resamples, cl, ci, tol, batch,
                gen, seed, opts):
    n, k = X.shape
    I, J = _pairs(k)
    D = X[:, I].T - X[:, J].T
    means = X.mean(axis=0)
    md = means[I] - means[J]
    R = X - X.mean(axis=1, keepdims=True) - means + X.mean()
    df = (n - 1) * (k - 1)
    v_e = float((R**2).sum() / df)
    se = math.sqrt(v_e / n)
    if se > 0:
        qstat = np.abs(md) / se
    else:
        qstat = np.where(md == 0, 0.0, np.inf)
    p_adj = _studentized_range_sf(qstat, k, df)
    p_adj = np.where(qstat == 0, 1.0, p_adj)
    # Unadjusted: the paired comparison with the pooled ANOVA error, t = q / sqrt(2).
    p_raw = 2.0 * stats.t.sf(qstat / math.sqrt(2.0), df)
    if ci in ("consistent", "simultaneous"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            c = float(stats.studentized_range.ppf(cl, k, df))
        lo, hi = md - c * se, md + c * se
        ci = "studentized-range"
    else:
        lo = hi = np.full(I.size, np.nan)
    return _assemble(X, systems, queries, dropped, I, J, D, qstat, p_raw, np.zeros(I.size),
                     p_adj, p_adj <= alpha, lo, hi, tol, test="anova-hsd",
                     correction=TEST_SPECS["anova-hsd"].correction, alpha=alpha,
                     alternative="two-sided", cl=cl, ci=ci, n_resamples=None, exact=False,
                     seed=None)


def _dunnett_core(X, systems, queries, dropped, *, alpha, n_resamples, cl, ci, tol, batch,
                  gen, seed, opts, pairs, alternative):
    r"""Dunnett's many-to-one test with the two-way ANOVA error (single step).

    :math:`T_i = (\bar x_i - \bar x_0)/\sqrt{2 V_E/n}`, ``df = (n - 1)(k - 1)``;
    adjusted p-values and the simultaneous intervals come from the joint
    distribution of the :math:`T_i` (:mod:`mrrstats.stats.manyone`), so a
    comparison is rejected exactly when its interval excludes 0.
    """
    I, J = pairs
    n, k = X.shape
    D = X[:, I].T - X[:, J].T
    means = X.mean(axis=0)
    md = means[I] - means[J]
    R = X - X.mean(axis=1, keepdims=True) - means + X.mean()
    df = (n - 1) * (k - 1)
    v_e = float((R**2).sum() / df)
    se = math.sqrt(2.0 * v_e / n)
    if se > 0:
        t = md / se
    else:
        t = np.where(md == 0, 0.0, np.copysign(np.inf, md))
    m = I.size
    p_adj = dunnett_sf(t, m, df, alternative)
    if alternative == "two-sided":
        p_raw = 2.0 * stats.t.sf(np.abs(t), df)
    elif alternative == "greater":
        p_raw = stats.t.sf(t, df)
    else:
        p_raw = stats.t.cdf(t, df)
    p_raw = np.minimum(p_raw, 1.0)
    if ci in ("consistent", "simultaneous"):
        c = dunnett_critical_value(cl, m, df, alternative)
        lo, hi = md - c * se, md + c * se
        if alternative == "greater":
            hi = np.full(m, np.inf)
        elif alternative == "less":
            lo = np.full(m, -np.inf)
        ci = "dunnett-simultaneous"
    else:
        lo = hi = np.full(m, np.nan)
    return _assemble(X, systems, queries, dropped, I, J, D, t, p_raw, np.zeros(m), p_adj,
                     p_adj <= alpha, lo, hi, tol, test="dunnett",
                     correction=TEST_SPECS["dunnett"].correction, alpha=alpha,
                     alternative=alternative, cl=cl, ci=ci, n_resamples=None, exact=False,
                     seed=None)


def randomized_tukey_hsd(scores, *, alpha=0.05, n_resamples=10000, confidence_level=0.95,
                         zero_tolerance=0.0, batch=None, missing="raise", rng=None):
    r"""Topic-blocked randomised Tukey HSD over all pairs of systems.

    Parameters
    ----------
    scores : DataFrame or array_like
        Rows = queries, columns = systems, or ``(n_systems, n_queries)``.
    alpha : float, keyword-only
    n_resamples : int, keyword-only
        Number :math:`B` of within-query permutations.
    confidence_level : float, keyword-only
        For the simultaneous intervals ``ci_low, ci_high``.
    zero_tolerance : float, keyword-only
        For wins/ties/losses.
    batch : int or None, keyword-only
        Permutations held in memory at once (does not change results).
    missing : {"raise", "drop"}, keyword-only
    rng : None, int or numpy.random.Generator, keyword-only

    Returns
    -------
    PairwiseResult
        ``pvalue_adjusted`` are the Tukey HSD p-values; ``pvalue`` the
        marginal permutation p-values of each pair under the same permutations.

    Notes
    -----
    In each resample the :math:`k` scores of every query are randomly
    permuted among the systems (the block design: topics stay paired), and
    :math:`R_b = \max_s \bar x^*_s - \min_s \bar x^*_s`, the largest mean
    difference over all pairs, is recorded. The adjusted p-value of pair
    :math:`(i, j)` is :math:`(1 + \#\{b : R_b \ge |\bar x_i - \bar x_j|\}) /
    (B + 1)`, and :math:`\bar x_i - \bar x_j \pm c` are simultaneous
    intervals, with :math:`c` the :math:`(K+1)`-th largest :math:`R_b`,
    :math:`K = \lfloor \alpha' (B+1) \rfloor - 1`, :math:`\alpha' = 1 -`
    ``confidence_level``: the cut-off of the same null as the p-values, so a
    pair is rejected exactly when its interval excludes 0 (for ``alpha =
    1 - confidence_level``). All pairs use one set of permutations.

    References
    ----------
    .. [1] Carterette, B. (2012). Multiple testing in statistical analysis of
           systems-based information retrieval experiments. ACM TOIS 30(1).

    Examples
    --------
    >>> import numpy as np, mrrstats
    >>> x = np.random.default_rng(1).random((4, 25)) + np.array([[0], [0], [0], [0.4]])
    >>> res = mrrstats.randomized_tukey_hsd(x, n_resamples=2000, rng=3)
    >>> print(res.reject.tolist())
    [False, False, True, False, True, True]
    """
    return pairwise_tests(scores, test="tukey", alpha=alpha, n_resamples=n_resamples,
                          confidence_level=confidence_level, zero_tolerance=zero_tolerance,
                          batch=batch, missing=missing, rng=rng)


def westfall_young(scores, *, statistic="mean", alpha=0.05, n_resamples=10000,
                   confidence_level=0.95, zero_tolerance=0.0, batch=None, missing="raise",
                   ci="consistent", rng=None):
    r"""Step-down max-T (Westfall-Young) over all pairs, within-query permutations.

    Parameters
    ----------
    scores : DataFrame or array_like
        Rows = queries, columns = systems, or ``(n_systems, n_queries)``.
    statistic : {"mean", "t"}, keyword-only
        The mean difference of each pair (default: the step-down version of
        :func:`randomized_tukey_hsd`, uniformly at least as powerful) or the
        paired t statistic (studentised per pair; about 5x slower with many
        systems because it needs a Gram matrix per permutation).
    alpha, n_resamples, confidence_level, zero_tolerance, batch, missing, rng
        As in :func:`randomized_tukey_hsd`.
    ci : {"consistent", "simultaneous", "none"}, keyword-only
        ``"consistent"``: intervals that agree with the step-down decisions
        (``ci_method="maxt-step-down"``; a rejected pair gets the open
        directional statement ``(0, inf)`` or ``(-inf, 0)``); ``"simultaneous"``:
        the single-step intervals ``d +/- c se`` (``"maxt-single-step"``),
        finite but possibly excluding 0 for a pair the step-down keeps.

    Returns
    -------
    PairwiseResult
        ``pvalue_adjusted`` are the step-down adjusted p-values.

    Notes
    -----
    Order the pairs by observed :math:`|T|` descending, :math:`|T|_{(1)} \ge
    \dots \ge |T|_{(m)}`. For each within-query permutation :math:`b` (the
    same permutations for all pairs) compute the successive maxima
    :math:`u_{b,j} = \max_{l \ge j} |T^*_{b,(l)}|`; then
    :math:`\tilde p_{(j)} = (1 + \#\{b : u_{b,j} \ge |T|_{(j)}\}) / (B + 1)`
    and :math:`p_{(j)} = \max_{l \le j} \tilde p_{(l)}` (Westfall & Young 1993,
    Algorithm 2.8). Single-step intervals are :math:`\bar d \pm c\,\mathrm{se}`
    with :math:`c` the cut-off of :math:`u_{b,1}` that the p-values use; the
    default intervals follow Strassburger & Bretz (2008) for the step-down.

    References
    ----------
    .. [1] Westfall, P. H., Young, S. S. (1993). *Resampling-Based Multiple
           Testing*. Wiley.

    Examples
    --------
    >>> import numpy as np, mrrstats
    >>> x = np.random.default_rng(1).random((4, 25)) + np.array([[0], [0], [0], [0.4]])
    >>> res = mrrstats.westfall_young(x, n_resamples=2000, rng=3)
    >>> print(res.reject.tolist())
    [False, False, True, False, True, True]
    """
    return pairwise_tests(scores, test="maxt", alpha=alpha, n_resamples=n_resamples,
                          confidence_level=confidence_level, zero_tolerance=zero_tolerance,
                          batch=batch, missing=missing, test_options={"statistic": statistic},
                          ci=ci, rng=rng)


def anova_tukey_hsd(scores, *, alpha=0.05, confidence_level=0.95, zero_tolerance=0.0,
                    missing="raise"):
    r"""Parametric Tukey HSD for a blocked design (two-way ANOVA without replication).

    Parameters
    ----------
    scores : DataFrame or array_like
        Rows = queries, columns = systems, or ``(n_systems, n_queries)``.
    alpha, confidence_level, zero_tolerance, missing
        As in :func:`randomized_tukey_hsd`.

    Returns
    -------
    PairwiseResult
        ``statistic`` is the studentised range :math:`q`; ``pvalue_adjusted``
        the Tukey HSD p-values; ``pvalue`` the unadjusted two-sided p-values of
        :math:`t = q/\sqrt 2` with the same error variance and degrees of freedom.

    Notes
    -----
    With :math:`V_E` the residual mean square of the two-way ANOVA (topics
    and systems as factors, :math:`\nu = (n-1)(k-1)` degrees of freedom),
    :math:`q_{ij} = |\bar x_i - \bar x_j| / \sqrt{V_E/n}` and
    :math:`p_{ij} = P(Q_{k,\nu} \ge q_{ij})` from
    :data:`scipy.stats.studentized_range`. Simultaneous intervals are
    :math:`\bar x_i - \bar x_j \pm q_{1-\alpha; k,\nu}\sqrt{V_E/n}`.

    Examples
    --------
    >>> import numpy as np, mrrstats
    >>> x = np.random.default_rng(1).random((4, 25)) + np.array([[0], [0], [0], [0.4]])
    >>> print(mrrstats.anova_tukey_hsd(x).reject.tolist())
    [False, False, True, False, True, True]
    """
    return pairwise_tests(scores, test="anova-hsd", alpha=alpha,
                          confidence_level=confidence_level, zero_tolerance=zero_tolerance,
                          missing=missing, rng=0)


# --------------------------------------------------------------------------
# discriminative power
# --------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class DiscriminativePowerResult:
    """Result of :func:`discriminative_power`.

    Attributes
    ----------
    discriminative_power : float
        Share of system pairs with (adjusted) p-value :math:`\\le` ``alpha``.
    n_significant, n_pairs : int
    min_significant_difference : float
        Smallest :math:`|\\bar x_a - \\bar x_b|` among the significant pairs
        (NaN when none is significant).
    achieved_significance_levels : ndarray
        The (adjusted) p-values of all pairs sorted ascending: Sakai's ASL curve.
    alpha : float
    test, correction : str
    pairwise : PairwiseResult
        The underlying all-pairs result.
    """

    discriminative_power: float
    n_significant: int
    n_pairs: int
    min_significant_difference: float
    achieved_significance_levels: np.ndarray = field(repr=False)
    alpha: float
    test: str
    correction: str
    pairwise: PairwiseResult = field(repr=False)


def discriminative_power(scores, *, test="randomization", alpha=0.05, correction=None,
                         alternative="two-sided", n_resamples=10000, zero_tolerance=0.0,
                         batch=None, missing="raise", rng=None):
    r"""Sakai's discriminative power of a measure: the share of significant pairs.

    Parameters
    ----------
    scores : DataFrame or array_like
        Per-query scores of one measure: rows = queries, columns = systems,
        or ``(n_systems, n_queries)``.
    test : str, keyword-only
        Any test of :func:`pairwise_tests` (default the randomization test).
    alpha : float, keyword-only
    correction : {"holm", "bonferroni", "bh", "none"} or None, keyword-only
        Multiplicity adjustment (default none, as in Sakai 2006). Ignored by
        ``"tukey"``, ``"maxt"`` and ``"anova-hsd"``.
    alternative, n_resamples, zero_tolerance, batch, missing, rng
        As in :func:`pairwise_tests`.

    Returns
    -------
    DiscriminativePowerResult

    Notes
    -----
    Discriminative power is :math:`\#\{(a,b) : p_{ab} \le \alpha\} /
    \binom{k}{2}`; the smallest significant difference is
    :math:`\min\{|\bar x_a - \bar x_b| : p_{ab} \le \alpha\}`. No confidence
    intervals are computed.

    References
    ----------
    .. [1] Sakai, T. (2006). Evaluating evaluation metrics based on the
           bootstrap. SIGIR.

    Examples
    --------
    >>> import numpy as np, mrrstats
    >>> x = np.random.default_rng(1).random((4, 25)) + np.array([[0], [0], [0], [0.4]])
    >>> res = mrrstats.discriminative_power(x, test="t")
    >>> print(res.n_significant, res.n_pairs, round(res.discriminative_power, 3))
    3 6 0.5
    """
    correction = "none" if correction is None else correction
    pw = pairwise_tests(scores, test=test, correction=correction, alpha=alpha,
                        alternative=alternative, n_resamples=n_resamples, ci="none",
                        zero_tolerance=zero_tolerance, batch=batch, missing=missing, rng=rng)
    sig = pw.reject
    n_sig = int(sig.sum())
    msd = float(np.abs(pw.difference[sig]).min()) if n_sig else math.nan
    return DiscriminativePowerResult(n_sig / len(pw) if len(pw) else math.nan, n_sig, len(pw),
                                     msd, np.sort(pw.pvalue_adjusted), pw.alpha, pw.test,
                                     pw.correction, pw)
