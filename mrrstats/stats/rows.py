"""Paired tests of many pairs at once: kernels over rows of differences.

Each function takes a matrix ``D`` of per-query differences, one row per pair
of systems (``(P, n)``), and returns one value per row. The paired tests of
one pair call them with one row; the many-system procedures
(:mod:`mrrstats.stats.multiple`), the power simulation and the leaderboard
call them with all pairs.

* :func:`ttest_rows` -- paired t-tests (scipy's, with constant rows handled);
* :func:`win_tie_loss`, :func:`sign_pvalues` -- the exact sign test;
* :func:`signflip_pvalues` -- the randomization (sign-flip) test on the one
  engine (:mod:`mrrstats.stats.resampling`);
* :func:`bootstrap_test_rows` -- the shift and studentized bootstrap tests;
* :func:`effect_rows` -- the mean difference, :math:`d_z`, :math:`ES_E`,
  wins/ties/losses and the probability of superiority;
* :func:`constant_rows`, :func:`signed_inf` -- rows without usable variance.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from ..errors import ParameterError
from ..validation import resource_iv
from .counter import as_key
from .resampling import (
    array_namespace_of,
    blas_single_thread,
    bootstrap_batch,
    bootstrap_counts,
    exact_count_products,
    exact_split,
    kernel_rows,
    mc_se,
    signflip_counts,
    signflip_counts_xp,
    use_exact,
)

__all__ = ["constant_rows", "signed_inf", "ttest_rows", "win_tie_loss", "sign_pvalues",
           "signflip_pvalues", "bootstrap_test_rows", "effect_rows"]


def constant_rows(D, sd):
    """Rows whose differences are all equal up to rounding (no usable variance).

    ``sd <= 1e-13 * max|d|``: e.g. ``(a + 0.1) - a`` is not exactly constant in
    floating point, but its spread is pure rounding noise.
    """
    return sd <= 1e-13 * np.abs(D).max(axis=1)


def signed_inf(m):
    """0 where ``m == 0``, else +-inf with the sign of ``m`` (no 0 * inf warnings)."""
    m = np.asarray(m, dtype=np.float64)
    return np.where(m == 0, 0.0, np.copysign(np.inf, m))


def ttest_rows(D, alternative):
    """Paired t-tests for each row of differences ``D`` (P, n), via scipy.

    Rows whose differences are all equal have no variance: identical systems
    (all zero) get ``t = 0, p = 1``; a constant non-zero shift gets
    ``t = +-inf`` and the p-value of an infinitely large statistic.
    """
    n = D.shape[1]
    mean = D.mean(axis=1)
    sd = D.std(axis=1, ddof=1)
    se = sd / np.sqrt(n)
    ok = ~constant_rows(D, sd)
    t = np.empty(D.shape[0])
    p = np.empty(D.shape[0])
    if ok.any():
        res = stats.ttest_rel(D[ok], np.zeros_like(D[ok]), axis=1, alternative=alternative)
        t[ok] = res.statistic
        p[ok] = res.pvalue
    if (~ok).any():
        m = mean[~ok]
        tt = signed_inf(m)
        t[~ok] = tt
        if alternative == "two-sided":
            pp = np.where(m == 0, 1.0, 0.0)
        elif alternative == "greater":
            pp = np.where(m > 0, 0.0, np.where(m == 0, 1.0, 1.0))
        else:
            pp = np.where(m < 0, 0.0, 1.0)
        p[~ok] = pp
    return t, p, mean, se


def win_tie_loss(D, tol):
    wins = (D > tol).sum(axis=-1)
    losses = (D < -tol).sum(axis=-1)
    ties = D.shape[-1] - wins - losses
    return wins, ties, losses


def sign_pvalues(wins, losses, alternative):
    """Exact binomial p-values (p = 1/2), vectorised; equal to scipy.stats.binomtest's to a
    relative 1e-12 (tests/stats/test_paired_tests.py)."""
    wins = np.asarray(wins)
    n = wins + np.asarray(losses)
    with np.errstate(invalid="ignore"):
        if alternative == "greater":
            p = stats.binom.sf(wins - 1, n, 0.5)
        elif alternative == "less":
            p = stats.binom.cdf(wins, n, 0.5)
        else:
            # For p = 1/2 the distribution is symmetric and binomtest's
            # "sum of outcomes no more likely than observed" is twice the
            # smaller tail.
            k = np.minimum(wins, n - wins)
            p = np.minimum(1.0, 2.0 * stats.binom.cdf(k, n, 0.5))
    return np.where(n == 0, 1.0, p)


def signflip_pvalues(D, alternative, *, n_resamples, exact, batch, gen, keep=False,
                      weights=None, device_D=None, workers=-1):
    """p-values, their Monte-Carlo SEs, the number of resamples and exactness.

    With ``keep=True`` (one pair, Monte Carlo only) also the resampled sums and
    kept-sign counts in draw order (see :func:`~mrrstats.stats.resampling.signflip_counts`);
    an exact null is not stored here (it is a function of the data alone).
    ``device_D``: the same differences as an array-API array (torch, CuPy...):
    a Monte-Carlo test then resamples where it lives
    (:func:`~mrrstats.stats.resampling.signflip_counts_xp`, the same numbers).
    """
    exact = use_exact(D.shape[1], D.shape[0], n_resamples, exact)
    if device_D is not None and not exact and weights is None:
        out = signflip_counts_xp(device_D, alternative, n_resamples=n_resamples, batch=batch,
                                 gen=gen, keep=keep, xp=array_namespace_of(device_D))
    else:
        out = signflip_counts(D, alternative, n_resamples=n_resamples, exact=exact,
                              batch=batch, gen=gen, keep=keep and not exact, weights=weights,
                              workers=workers)
    counts, total, exact = out[:3]
    if exact:
        p = counts / total
        se = np.zeros_like(p)
    else:
        p = (counts + 1.0) / (total + 1.0)
        se = mc_se(p, total)
    if keep:
        kept = out[3:] if len(out) > 3 else (None, None)
        return np.minimum(p, 1.0), se, total, exact, kept
    return np.minimum(p, 1.0), se, total, exact


def _bootstrap_test_rows_impl(D, alternative, method, n_resamples, batch, gen, keep=False,
                              workers=-1):
    """Paired bootstrap tests for each row of differences ``D`` (P, n).

    Only exceedance counts are kept, so memory is ``batch x P`` whatever ``B``.
    Returns (statistic, pvalue, pvalue_se), and with ``keep=True`` (one pair)
    also the ``B`` null statistics in draw order.
    """
    P, n = D.shape
    if keep and P != 1:
        raise ParameterError("keep=True stores the null distribution of one pair only")
    resource_iv(8 * n_resamples * bool(keep), "n_resamples", what=f"{n_resamples:,} resamples")
    kept = np.empty(n_resamples) if keep else None
    mean = D.mean(axis=1)
    scale = np.abs(D).mean(axis=1)
    studentized = method == "studentized"
    if studentized:
        sd = D.std(axis=1, ddof=1)
        se = sd / np.sqrt(n)
        with np.errstate(divide="ignore", invalid="ignore"):
            obs = np.where(constant_rows(D, sd), signed_inf(mean), mean / se)
        tol = 1e-12 * np.where(np.isfinite(obs), np.abs(obs), 0.0)
        Y = np.vstack([D, D * D])
    else:
        obs = mean
        tol = 1e-12 * scale
        Y = D
    hi, lo = exact_split(Y, n)
    HL = np.ascontiguousarray(np.vstack([hi, lo]).T)
    batch = bootstrap_batch(batch, n, 2 * P)
    count = np.zeros(P, dtype=np.int64)
    key = as_key(gen)  # one key per call: resample b is a function of (key, b)
    for start, counts in kernel_rows(bootstrap_counts, key, n_resamples, batch, n, workers):
        r = counts.shape[0]
        sums = exact_count_products(counts, HL, Y.shape[0])  # (r, P) or (r, 2P)
        m1 = sums[:, :P] / n
        num = m1 - mean  # centred: the resample mean of z_i = d_i - mean(d)
        if studentized:
            m2 = sums[:, P:] / n
            var = np.maximum(m2 - m1 * m1, 0.0) * (n / (n - 1.0))
            se_b = np.sqrt(var / n)
            tiny = np.abs(num) <= 1e-12 * (scale + 1e-300)
            with np.errstate(divide="ignore", invalid="ignore"):
                null = np.where(se_b > 1e-12 * (scale + 1e-300), num / se_b,
                                np.where(tiny, 0.0, signed_inf(num)))
        else:
            null = num
        if keep:
            kept[start:start + r] = null[:, 0]
        if alternative == "two-sided":
            count += (np.abs(null) >= np.abs(obs) - tol).sum(axis=0)
        elif alternative == "greater":
            count += (null >= obs - tol).sum(axis=0)
        else:
            count += (null <= obs + tol).sum(axis=0)
    p = (count + 1.0) / (n_resamples + 1.0)
    if keep:
        return obs, np.minimum(p, 1.0), mc_se(p, n_resamples), kept
    return obs, np.minimum(p, 1.0), mc_se(p, n_resamples)


def effect_rows(D, tol, v_e=None):
    n = D.shape[1]
    mean = D.mean(axis=1)
    sd = D.std(axis=1, ddof=1) if n > 1 else np.full(D.shape[0], np.nan)
    const = constant_rows(D, sd) if n > 1 else np.zeros(D.shape[0], bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        dz = np.where(const, signed_inf(mean), mean / sd)
        es = mean / np.sqrt(v_e) if v_e is not None else np.full_like(mean, np.nan)
    w, t, l_ = win_tie_loss(D, tol)
    ps = (w + 0.5 * t) / n
    return mean, dz, es, w, t, l_, ps


def bootstrap_test_rows(*args, **kwargs):
    with blas_single_thread():
        return _bootstrap_test_rows_impl(*args, **kwargs)


bootstrap_test_rows.__doc__ = _bootstrap_test_rows_impl.__doc__
