r"""Multiplicity corrections of p-values and the intervals that go with their decisions.

* :func:`adjust_pvalues` -- Holm, Bonferroni, Benjamini-Hochberg (statsmodels'
  arithmetic, the method named explicitly), or none, by the registry's names.
* :func:`decision_intervals` -- for a correction applied to per-pair tests, the
  interval of every pair at ``1 - alpha``: the Bonferroni simultaneous interval
  (Bonferroni, and the single-step interval of Holm's family), Strassburger &
  Bretz's Holm-compatible intervals (``ci="consistent"``), the FCR-adjusted
  intervals of Benjamini & Yekutieli for BH, or the marginal interval. They
  invert the test itself (:func:`t_inverted`, :func:`signflip_inverted`).
* :func:`ci_excludes_zero`, :func:`warn_unattainable`.

Names without a leading underscore are public within the package.

References
----------
.. [1] Strassburger, K., Bretz, F. (2008). Compatible simultaneous lower
       confidence bounds for the Holm procedure and other Bonferroni-based
       closed tests. Statistics in Medicine 27(24), 4914-4927.
.. [2] Benjamini, Y., Yekutieli, D. (2005). False discovery rate-adjusted
       multiple confidence intervals for selected parameters. JASA 100(469), 71-81.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from scipy import stats

from ..errors import ParameterError
from .counter import stream_key
from .registry import CORRECTIONS, TESTS, UnattainableSignificanceWarning
from .resampling import (
    blas_single_thread,
    default_batch,
    enumerated_rows,
    kernel_rows,
    signflip_rows,
)
from .rows import win_tie_loss

__all__ = ["adjust_pvalues", "ci_excludes_zero", "t_inverted", "signflip_inverted",
           "decision_intervals", "warn_unattainable"]

_BATCH_ELEMENTS = 1 << 22

def adjust_pvalues(pvalues, correction, alpha):
    """Adjusted p-values and rejections for a canonical correction name (registry).

    statsmodels' method is always named explicitly (``"bh"`` is ``"fdr_bh"``).
    A correction that needs the joint null of the statistics (``"single-step"``)
    cannot work from p-values alone: a ``ValueError`` says so.
    """
    spec = CORRECTIONS[correction]
    if spec.joint_null:
        raise ParameterError(f"correction={correction!r} adjusts with the joint permutation null "
                         "of the statistics, not from p-values; run pairwise_tests() on the "
                         "family (control= for comparisons with one system)")
    method = spec.statsmodels
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


def t_inverted(D, alpha_pair, alternative):
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


def signflip_inverted(D, alpha_pair, alternative, *, total, exact, batch, replay,
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
    batch = default_batch(n, P)
    low = np.full(P, -np.inf)
    high = np.full(P, np.inf)
    block = max(1, _BATCH_ELEMENTS // (2 * total))
    for b0 in range(0, P, block):
        sl = slice(b0, min(P, b0 + block))
        with blas_single_thread():
            lo_b, hi_b = _signflip_end_points(D[sl], S[sl], tol[sl], alternative, total,
                                              exact, batch, replay, weights)
        cols = np.arange(lo_b.shape[1])
        k = np.maximum(keep[sl] - 1, 0)
        none = keep[sl] == 0
        if alternative in ("two-sided", "greater"):
            low[sl] = np.where(none, -np.inf, np.sort(lo_b, axis=0)[k, cols])
        if alternative in ("two-sided", "less"):
            high[sl] = np.where(none, np.inf, -np.sort(-hi_b, axis=0)[k, cols])
    # An end point is a subset mean widened by the tie tolerance: a mean that is 0 up to
    # rounding (|mean| <= tol) gives an end within 2 tol of 0, on the side that keeps 0
    # inside. Reported as exactly 0, so it prints as 0 only when it is 0 (the closed
    # interval still holds 0: no decision changes).
    low = np.where((low <= 0) & (low >= -2 * tol), 0.0, low)
    high = np.where((high >= 0) & (high <= 2 * tol), 0.0, high)
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
        key = stream_key(gen)
    lo_pts = np.empty((total, P))
    hi_pts = np.empty((total, P))
    pos = 0
    if exact:
        steps = ((start, enumerated_rows(start, min(batch, total - start), n))
                 for start in range(0, total, batch))
    else:
        steps = kernel_rows(signflip_rows, key, total, batch, n, -1)
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


def decision_intervals(D, p, correction, alpha_ci, alternative, invert, *, how="consistent",
                       decided=None, family=None):
    r"""Intervals for every pair at ``alpha_ci`` that go with ``correction``'s decisions.

    ``invert(alpha_pair)`` returns the marginal interval of the same test at
    per-pair level ``alpha_pair``; ``decided`` is ``(alpha, reject)`` of the
    correction already applied; ``family`` (see
    :func:`mrrstats.stats.pairwise.pairwise_tests_in_family`) replaces the size and
    the rejections of the family by those of a larger one. ``how``:

    * ``"simultaneous"``: the single-step simultaneous interval of the family,
      ``alpha/m`` for Holm and Bonferroni (``"bonferroni"``); Holm may reject a
      pair beyond it (``reject_beyond_ci``);
    * ``"consistent"``: intervals that agree with the decisions: the marginal one
      (``"marginal"``, no correction), Bonferroni's, Strassburger & Bretz's for Holm
      (``"holm-sb2008"``: a rejected pair gets :math:`\delta > 0` or
      :math:`\delta < 0`, the others the ``alpha/(m - r)`` interval, ``r``
      rejections; all rejected: :math:`[\max(0, \mathrm{lower}_{lpha/m}), \infty)`),
      Benjamini & Yekutieli's for BH (``"fcr-by2005"``: level :math:`1 - R q/m`,
      BH rejects exactly :math:`p \le R q / m`).

    Returns ``(low, high, ci_method)``.
    """
    P = p.size
    m = P if family is None else int(family["m"])
    if correction == "none":
        lo, hi = invert(np.full(P, alpha_ci))
        return lo, hi, "marginal"
    if correction == "bonferroni" or (correction == "holm" and how == "simultaneous"):
        lo, hi = invert(np.full(P, alpha_ci / m))
        return lo, hi, "bonferroni"
    if family is None:
        # the decisions at alpha_ci: those already made when alpha_ci is the test's alpha
        # (statsmodels' multipletests runs a full gc.collect(), slow in loops)
        alpha, reject = decided if decided is not None else (None, None)
        if alpha != alpha_ci:
            _, reject = adjust_pvalues(p, correction, alpha_ci)
        r = int(reject.sum())
    else:
        reject = np.asarray(family["reject_ci"], bool)
        r = int(family["r_ci"])
    if correction == "bh":
        lo, hi = invert(np.full(P, alpha_ci * max(r, 1) / m))
        return lo, hi, "fcr-by2005"
    diff = D.mean(axis=1)
    if r < m:
        lo, hi = invert(np.full(P, alpha_ci / (m - r)))
        dlo, dhi = _directional(diff, np.zeros(P), np.zeros(P), alternative)
    else:
        lo, hi = invert(np.full(P, alpha_ci / m))
        dlo, dhi = _directional(diff, lo, hi, alternative)
    return np.where(reject, dlo, lo), np.where(reject, dhi, hi), "holm-sb2008"


def _smallest_attainable(D, test, alternative, tol, exact, n_used, opts):
    """Per pair, the smallest p-value the test can attain on these data (None: continuous)."""
    sides = 2.0 if alternative == "two-sided" else 1.0
    n = D.shape[1]
    if test == "sign":
        w, _, l_ = win_tie_loss(D, tol)
        return np.minimum(1.0, sides * 0.5 ** (w + l_).astype(np.float64))
    if test == "randomization" and exact:
        return np.full(D.shape[0], min(1.0, sides * 0.5 ** n))
    if test == "wilcoxon" and opts.get("method", "auto") in ("exact", "auto") and n <= 50:
        nz = (np.abs(D) > 0).sum(axis=1)
        ties_free = np.array([np.unique(np.abs(d)).size == n for d in D])
        if np.all(ties_free & (nz == n)):  # scipy's exact null: all 2^n signed-rank sums
            return np.minimum(1.0, sides * 0.5 ** nz.astype(np.float64))
    return None


def warn_unattainable(D, test, correction, alpha, alternative, tol, exact, n_used, opts,
                       unit="queries"):
    """Warn when a discrete test cannot pass the first threshold of ``correction``."""
    if CORRECTIONS[correction].statsmodels is None or not TESTS[test].discrete:
        return
    pmin = _smallest_attainable(D, test, alternative, tol, exact, n_used, opts)
    if pmin is None or pmin.size == 0:
        return
    m = pmin.size
    # the most lenient threshold at which the correction can reject anything
    need = alpha if correction == "bh" else alpha / m
    if np.all(pmin > need):
        warnings.warn(f"{TESTS[test].label}: the smallest attainable p-value is "
                      f"{pmin.min():.3g} ({D.shape[1]} {unit}), but "
                      f"{CORRECTIONS[correction].label} over m = {m} pairs needs a p-value <= "
                      f"{need:.3g} to reject anything, "
                      "so it rejects nothing; use more queries, fewer pairs or a "
                      "continuous test", UnattainableSignificanceWarning, stacklevel=3)


