r"""Significance and uncertainty for a pair of systems.

Every function here takes two aligned arrays ``a`` and ``b`` of per-query
scores (one value per query, same query order) and looks at the per-query
differences :math:`d_i = a_i - b_i`. Results are frozen dataclasses with
``statistic`` and ``pvalue`` and, where a confidence interval makes sense, a
``confidence_interval(confidence_level=0.95)`` method.

* :func:`paired_ttest` -- Student's paired t-test (wraps
  :func:`scipy.stats.ttest_rel`).
* :func:`wilcoxon_test` -- Wilcoxon signed-rank test (wraps
  :func:`scipy.stats.wilcoxon`, with a preset that reproduces R's
  ``wilcox.test``).
* :func:`sign_test` -- exact binomial sign test with a tie tolerance.
* :func:`randomization_test` -- Fisher's paired randomization (sign-flip) test
  on the mean difference, exact or Monte Carlo.
* :func:`bootstrap_test` -- paired studentised bootstrap test (default) and
  the shift test (Sakai).
* :func:`bootstrap_ci` -- percentile, basic and BCa bootstrap intervals for a
  mean or a mean difference.
* :func:`effect_sizes` and :func:`residual_variance` -- :math:`d_z`, Sakai's
  :math:`ES_E`, wins/ties/losses and the probability of superiority.

Missing values are an error unless ``missing="drop"`` is passed, which drops
every query where either system has no value.

The resampling itself (sign flips, bootstrap counts) is done by the one engine,
:mod:`mrrstats.stats.resampling`, vectorised over many pairs at once and shared
with :mod:`mrrstats.stats.multiple` and :mod:`mrrstats.stats.power`: a resampling
step draws its random numbers in a fixed order (row by row of the resampling
matrix), so the same seed gives the same result for every ``batch`` size and
every number of BLAS threads.

Resampling results carry their evidence, as scipy's do:
:class:`RandomizationTestResult` and :class:`BootstrapTestResult` keep their
``null_distribution`` and offer ``confidence_interval()`` (the shifts the same
test, with the same resamples, does not reject); :class:`BootstrapCIResult`
keeps its ``bootstrap_distribution``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import special, stats

from ..model.scoretable import as_score_table
from ..validation import (
    alternative_iv,
    confidence_level_iv,
    int_iv,
    missing_iv,
    rng_iv,
    scheme_iv,
    tolerance_iv,
    workers_iv,
)
from .counter import as_key
from .resampling import (
    PairwiseSum,
    array_namespace_of,
    blas_single_thread,
    bootstrap_batch,
    bootstrap_counts,
    bootstrap_sums,
    bootstrap_sums_xp,
    exact_count_products,
    exact_split,
    kernel_rows,
    mc_se,
    poisson_bootstrap_blocked,
    poisson_bootstrap_sums,
    signflip_counts,
    signflip_counts_blocked,
    signflip_counts_xp,
    signflip_null,
    to_host,
    use_exact,
)

__all__ = [
    "ConfidenceInterval",
    "TTestResult",
    "WilcoxonResult",
    "SignTestResult",
    "RandomizationTestResult",
    "BootstrapTestResult",
    "BootstrapCIResult",
    "EffectSizes",
    "paired_ttest",
    "wilcoxon_test",
    "sign_test",
    "randomization_test",
    "bootstrap_test",
    "bootstrap_ci",
    "effect_sizes",
    "residual_variance",
]


# --------------------------------------------------------------------------
# small shared pieces
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class ConfidenceInterval:
    """A confidence interval ``[low, high]``; unpacks as ``low, high = ci``.

    Attributes
    ----------
    low, high : float
        The bounds (``-inf`` / ``inf`` for one-sided intervals).
    confidence_level : float
        Nominal coverage.
    method : str
        How the interval was computed (``"t"``, ``"bca"``, ...).
    """

    low: float
    high: float
    confidence_level: float = 0.95
    method: str = ""

    def __iter__(self):
        return iter((self.low, self.high))


def _vector(x, name):
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"`{name}` must be a 1-D array of numbers") from None
    if arr.ndim != 1:
        raise ValueError(f"`{name}` must be 1-D (one value per query), got shape {arr.shape}")
    return arr


def _pair_iv(a, b, missing, *, min_n=2, return_keep=False):
    """Validate two aligned per-query arrays; returns float arrays ``a, b``.

    With ``return_keep=True`` also the boolean mask of the positions kept
    (``missing="drop"`` drops queries where either value is NaN).
    """
    missing_iv(missing)
    a = _vector(a, "a")
    b = _vector(b, "b")
    if a.shape != b.shape:
        raise ValueError(f"`a` and `b` must have the same length (aligned queries), got "
                         f"{a.size} and {b.size}")
    bad = np.isnan(a) | np.isnan(b)
    if bad.any():
        if missing == "raise":
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"`a` or `b` has a missing value (NaN) at position {i}; pass "
                             "missing='drop' to drop such queries")
        a, b = a[~bad], b[~bad]
    if np.isinf(a).any() or np.isinf(b).any():
        raise ValueError("`a` and `b` must be finite")
    if a.size < min_n:
        raise ValueError(f"`a` and `b` need at least {min_n} queries, got {a.size}")
    if return_keep:
        return a, b, ~bad
    return a, b


# --------------------------------------------------------------------------
# clustered and stratified queries
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class _Design:
    """Clusters (and strata) of the queries kept.

    ``codes``: cluster of each query, numbered by first appearance; ``sizes``:
    queries per cluster (int64); ``groups``: the cluster numbers of each
    stratum (in order of first appearance), or None without strata.
    """

    codes: np.ndarray
    sizes: np.ndarray
    groups: tuple | None

    @property
    def n_clusters(self):
        return int(self.sizes.size)

    @property
    def trivial(self):
        """Every query its own cluster and no strata: the plain (query) resampling."""
        return self.groups is None and self.sizes.size == self.codes.size

    def totals(self, x):
        """Per-cluster sums of the per-query values ``x`` (exact for singletons)."""
        return np.bincount(self.codes, weights=x, minlength=self.sizes.size)


def _labels(labels, n, name):
    """Integer codes (first appearance) of one label per query; a clear error otherwise."""
    lab = labels.to_numpy() if hasattr(labels, "to_numpy") else np.asarray(labels)
    if lab.ndim != 1 or lab.size != n:
        raise ValueError(f"`{name}` must be 1-D with one label per query ({n}), got shape "
                         f"{lab.shape}")
    codes, _ = pd.factorize(lab, sort=False)
    if (codes < 0).any():
        i = int(np.flatnonzero(codes < 0)[0])
        raise ValueError(f"`{name}` has a missing label at position {i}")
    return codes


def query_labels(labels, queries, *, name="segment_by", frame=None):
    """One label per query from a mapping, a Series, an aligned array or a frame column.

    Parameters
    ----------
    labels : mapping, Series, array_like or str
        ``{query: label}`` (or a Series indexed by query id); a 1-D array with
        one label per query in table order; or the name of a column of
        ``frame``.
    queries : sequence of str
        The table's query ids.
    frame : DataFrame, optional
        The input frame, for a column name.

    Returns
    -------
    ndarray of object
        The label of each query, in table order.
    """
    queries = [str(q) for q in queries]
    if isinstance(labels, str):
        if frame is None or labels not in getattr(frame, "columns", ()):
            raise ValueError(f"`{name}`={labels!r} names no column of the score frame")
        labels = frame[labels]
    if isinstance(labels, pd.Series):
        labels = {str(k): v for k, v in labels.items()}
    if isinstance(labels, Mapping):
        lab = {str(k): v for k, v in labels.items()}
        absent = [q for q in queries if q not in lab or pd.isna(lab[q])]
        if absent:
            raise ValueError(f"`{name}` has no label for {len(absent)} of {len(queries)} "
                             f"queries (e.g. {absent[:3]}); give every query one")
        return np.array([lab[q] for q in queries], dtype=object)
    arr = np.asarray(labels, dtype=object)
    if arr.ndim != 1 or arr.size != len(queries):
        raise ValueError(f"`{name}` must be a mapping query -> label, a column name, or a "
                         f"1-D array with one label per query ({len(queries)}), got shape "
                         f"{arr.shape}")
    bad = pd.isna(arr)
    if bad.any():
        raise ValueError(f"`{name}` has a missing label at position {int(np.flatnonzero(bad)[0])}")
    return arr


def _design_iv(clusters, strata, n, keep=None):
    """Validate ``clusters`` / ``strata`` (one label per query before dropping) -> _Design."""
    if clusters is None and strata is None:
        return None
    codes = np.arange(n) if clusters is None else _labels(clusters, n, "clusters")
    st = None if strata is None else _labels(strata, n, "strata")
    if keep is not None:
        codes = codes[keep]
        st = None if st is None else st[keep]
    codes = pd.factorize(codes, sort=False)[0]
    G = int(codes.max()) + 1 if codes.size else 0
    if G < 2:
        raise ValueError(f"`clusters` must name at least 2 clusters, got {G}")
    sizes = np.bincount(codes, minlength=G).astype(np.int64)
    groups = None
    if st is not None:
        st_of = np.empty(G, dtype=np.int64)
        st_of[codes] = st
        bad = st_of[codes] != st
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError("`strata` must be constant within each cluster (query at "
                             f"position {i} differs from the rest of its cluster)")
        st_of = pd.factorize(st_of, sort=False)[0]
        groups = tuple(np.flatnonzero(st_of == h) for h in range(int(st_of.max()) + 1))
    return _Design(codes, sizes, groups)


def _design_sums(Y, design, n_resamples, batch, gen, workers=-1):
    r"""Cluster-bootstrap sums (m, B) of the per-cluster rows ``Y`` (m, G).

    Resample ``b`` draws clusters with replacement (multinomial counts
    :math:`c_{bg}`, the engine's :func:`~mrrstats.stats.resampling.bootstrap_sums`)
    and returns :math:`\sum_g c_{bg} Y_g`; with strata, each stratum draws its
    own number of clusters, stratum by stratum (all :math:`B` resamples of one
    stratum, then the next), so the result does not depend on ``batch``.
    """
    if design.groups is None:
        return bootstrap_sums(Y, n_resamples, batch, gen, workers)
    out = np.zeros((Y.shape[0], n_resamples))
    for g in design.groups:
        out += bootstrap_sums(Y[:, g], n_resamples, batch, gen, workers)
    return out


def _cluster_acceleration(x, design):
    r"""BCa acceleration from the leave-one-cluster-out jackknife of the mean.

    :math:`\hat	heta_{(g)} = (S - S_g)/(n - n_g)` and :math:`\hat a = \sum U_g^3
    / (6 (\sum U_g^2)^{3/2})`, :math:`U_g = ar	heta_{(\cdot)} - \hat	heta_{(g)}`;
    singleton clusters use the closed form of :func:`_jackknife_acceleration`
    (the same value, without its rounding).
    """
    if design.sizes.size == x.size:
        return float(_jackknife_acceleration(x[None, :])[0])
    S = design.totals(x)
    sz = design.sizes.astype(np.float64)
    theta = (S.sum() - S) / (x.size - sz)
    return float(_jackknife_acceleration(-theta[None, :])[0])


# --------------------------------------------------------------------------
# t-test
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class TTestResult:
    """Result of :func:`paired_ttest`.

    Attributes
    ----------
    statistic : float
        :math:`t = \\bar d / (s_d / \\sqrt n)`.
    pvalue : float
    df : float
        Degrees of freedom, ``n - 1``.
    mean_difference : float
        :math:`\\bar d`, the mean of ``a - b``.
    std_error : float
        :math:`s_d / \\sqrt n`.
    n : int
        Number of queries used.
    alternative : str
    """

    statistic: float
    pvalue: float
    df: float
    mean_difference: float
    std_error: float
    n: int
    alternative: str

    def confidence_interval(self, confidence_level=0.95):
        """Student-t interval for the mean difference (one-sided for one-sided tests)."""
        cl = confidence_level_iv(confidence_level)
        low, high = _t_interval(self.mean_difference, self.std_error, self.df,
                                self.alternative, cl)
        return ConfidenceInterval(float(low), float(high), cl, "t")


def _t_interval(mean, se, df, alternative, cl):
    mean = np.asarray(mean, dtype=np.float64)
    se = np.asarray(se, dtype=np.float64)
    if alternative == "two-sided":
        q = stats.t.ppf(0.5 + cl / 2.0, df)
        return mean - q * se, mean + q * se
    q = stats.t.ppf(cl, df)
    if alternative == "greater":
        return mean - q * se, np.full_like(mean, np.inf)
    return np.full_like(mean, -np.inf), mean + q * se


def _constant_rows(D, sd):
    """Rows whose differences are all equal up to rounding (no usable variance).

    ``sd <= 1e-13 * max|d|``: e.g. ``(a + 0.1) - a`` is not exactly constant in
    floating point, but its spread is pure rounding noise.
    """
    return sd <= 1e-13 * np.abs(D).max(axis=1)


def _signed_inf(m):
    """0 where ``m == 0``, else +-inf with the sign of ``m`` (no 0 * inf warnings)."""
    m = np.asarray(m, dtype=np.float64)
    return np.where(m == 0, 0.0, np.copysign(np.inf, m))


def _ttest_rows(D, alternative):
    """Paired t-tests for each row of differences ``D`` (P, n), via scipy.

    Rows whose differences are all equal have no variance: identical systems
    (all zero) get ``t = 0, p = 1``; a constant non-zero shift gets
    ``t = +-inf`` and the p-value of an infinitely large statistic.
    """
    n = D.shape[1]
    mean = D.mean(axis=1)
    sd = D.std(axis=1, ddof=1)
    se = sd / np.sqrt(n)
    ok = ~_constant_rows(D, sd)
    t = np.empty(D.shape[0])
    p = np.empty(D.shape[0])
    if ok.any():
        res = stats.ttest_rel(D[ok], np.zeros_like(D[ok]), axis=1, alternative=alternative)
        t[ok] = res.statistic
        p[ok] = res.pvalue
    if (~ok).any():
        m = mean[~ok]
        tt = _signed_inf(m)
        t[~ok] = tt
        if alternative == "two-sided":
            pp = np.where(m == 0, 1.0, 0.0)
        elif alternative == "greater":
            pp = np.where(m > 0, 0.0, np.where(m == 0, 1.0, 1.0))
        else:
            pp = np.where(m < 0, 0.0, 1.0)
        p[~ok] = pp
    return t, p, mean, se


def paired_ttest(a, b, *, alternative="two-sided", missing="raise"):
    r"""Paired Student t-test on the per-query differences ``a - b``.

    Parameters
    ----------
    a, b : array_like, 1-D
        Per-query scores of two systems on the same queries, in the same order.
    alternative : {"two-sided", "less", "greater"}, keyword-only
        ``"greater"``: the mean of ``a`` exceeds the mean of ``b``.
    missing : {"raise", "drop"}, keyword-only
        NaN in either array is an error (default) or drops that query.

    Returns
    -------
    TTestResult
        ``statistic``, ``pvalue``, ``df``, ``mean_difference``, ``std_error``,
        and ``confidence_interval(confidence_level=0.95)``.

    Notes
    -----
    With :math:`d_i = a_i - b_i`, :math:`\bar d` and :math:`s_d` the mean and
    standard deviation (``ddof=1``) of the :math:`n` differences,

    .. math:: t = \frac{\bar d}{s_d/\sqrt n}, \qquad
              \bar d \pm t_{1-\alpha/2,\,n-1}\, s_d/\sqrt n.

    This is :func:`scipy.stats.ttest_rel`, except that differences without any
    variance give ``t = 0, p = 1`` when all are zero and ``t = \pm\infty``
    (``p = 0`` in the direction of the shift) otherwise, instead of NaN.

    Examples
    --------
    >>> import mrrstats
    >>> a = [1.0, 0.5, 1.0, 0.25, 1.0, 0.5]
    >>> b = [0.5, 0.5, 0.2, 0.25, 0.5, 0.333]
    >>> res = mrrstats.paired_ttest(a, b)
    >>> print(round(res.statistic, 3), round(res.pvalue, 4))
    2.483 0.0556
    >>> low, high = res.confidence_interval()
    >>> print(round(low, 3), round(high, 3))
    -0.012 0.667
    """
    a, b = _paired_ttest_iv(a, b, alternative, missing)
    t, p, mean, se = _ttest_rows((a - b)[None, :], alternative)
    return TTestResult(float(t[0]), float(p[0]), float(a.size - 1), float(mean[0]),
                       float(se[0]), int(a.size), alternative)


def _paired_ttest_iv(a, b, alternative, missing):
    alternative_iv(alternative)
    return _pair_iv(a, b, missing, min_n=2)


# --------------------------------------------------------------------------
# Wilcoxon signed-rank
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class WilcoxonResult:
    """Result of :func:`wilcoxon_test`.

    Attributes
    ----------
    statistic : float
        :math:`V = W^+`, the sum of the ranks of the positive differences
        ``a - b`` (R's ``V``; scipy's two-sided ``statistic`` is
        ``min(W+, W-)`` instead).
    pvalue : float
    zstatistic : float
        Normal deviate (after the continuity correction) when the normal
        approximation was used, else NaN.
    n : int
        Number of differences ranked (zeros excluded under ``zero_method="wilcox"``).
    n_zero : int
        Number of zero differences.
    has_ties : bool
        Whether tied absolute differences occurred.
    method : str
        The method actually used: ``"exact"``, ``"asymptotic"`` or ``"permutation"``.
    zero_method, correction, alternative
        The settings used.
    """

    statistic: float
    pvalue: float
    zstatistic: float
    n: int
    n_zero: int
    has_ties: bool
    method: str
    zero_method: str
    correction: bool
    alternative: str


def wilcoxon_test(a, b, *, alternative="two-sided", method="auto", zero_method="wilcox",
                  correction=None, missing="raise"):
    r"""Wilcoxon signed-rank test on the per-query differences ``a - b``.

    Parameters
    ----------
    a, b : array_like, 1-D
        Aligned per-query scores.
    alternative : {"two-sided", "less", "greater"}, keyword-only
    method : {"auto", "exact", "asymptotic", "R"}, keyword-only
        ``"auto"``, ``"exact"`` and ``"asymptotic"`` are passed to
        :func:`scipy.stats.wilcoxon` unchanged. ``"R"`` reproduces R's
        ``wilcox.test(a, b, paired = TRUE)`` default (see Notes).
    zero_method : {"wilcox", "pratt", "zsplit"}, keyword-only
        Treatment of zero differences (scipy's options). ``"wilcox"`` drops them.
    correction : bool or None, keyword-only
        Continuity correction of the normal approximation. ``None`` means
        scipy's default ``False``, or ``True`` for ``method="R"``.
    missing : {"raise", "drop"}, keyword-only

    Returns
    -------
    WilcoxonResult

    Notes
    -----
    **Reproducing R.** R's ``wilcox.test(x, y, paired = TRUE)`` with its
    defaults (``exact = NULL, correct = TRUE``) drops zero differences, and
    with :math:`n` the number of remaining differences uses the exact null
    distribution of :math:`V` when :math:`n < 50` and there are neither ties
    nor zeros; otherwise the normal approximation with the tie-corrected
    variance and a continuity correction of 0.5 towards the mean. The
    equivalent scipy call, which ``method="R"`` makes, is::

        scipy.stats.wilcoxon(a, b, zero_method="wilcox", correction=True,
                             method="exact" if n_nonzero < 50 and no ties
                                    and no zeros else "asymptotic")

    scipy's own ``method="auto"`` differs: it counts zeros in :math:`n`
    (switching to the normal approximation only above 50), runs a permutation
    test for :math:`n \le 13` with ties or zeros, and does not apply the
    continuity correction by default.

    The normal approximation uses

    .. math:: z = \frac{V - n(n+1)/4 - c}{\sqrt{n(n+1)(2n+1)/24 - \sum_j (t_j^3 - t_j)/48}}

    with :math:`t_j` the sizes of groups of tied :math:`|d_i|` and
    :math:`c = 0.5\,\mathrm{sign}(V - n(n+1)/4)` (two-sided) when corrected.

    Examples
    --------
    >>> import mrrstats
    >>> a = [0.9, 0.8, 0.75, 0.6, 0.95, 0.7, 0.85, 0.4]
    >>> b = [0.5, 0.81, 0.3, 0.45, 0.6, 0.2, 0.55, 0.35]
    >>> res = mrrstats.wilcoxon_test(a, b, method="R")
    >>> print(res.statistic, round(res.pvalue, 4), res.method)
    35.0 0.0156 exact
    """
    a, b, method, correction = _wilcoxon_test_iv(a, b, alternative, method, zero_method,
                                                 correction, missing)
    d = a - b
    nz = d != 0
    n_zero = int(d.size - nz.sum())
    absd = np.abs(d[nz]) if zero_method == "wilcox" else np.abs(d)
    _, counts = np.unique(absd, return_counts=True)
    has_ties = bool((counts > 1).any())
    if method == "R":
        n_nonzero = int(nz.sum())
        method = ("exact" if (n_nonzero < 50 and not has_ties and n_zero == 0)
                  else "asymptotic")
    if nz.sum() == 0 and zero_method == "wilcox":
        # Nothing to rank: no evidence either way.
        return WilcoxonResult(0.0, 1.0, math.nan, 0, n_zero, False,
                              method if method != "auto" else "exact", zero_method,
                              bool(correction), alternative)
    # W+ (R's V) for the chosen zero treatment.
    if zero_method == "wilcox":
        dd = d[nz]
        ranks = stats.rankdata(np.abs(dd))
        w_plus = float(ranks[dd > 0].sum())
        n_ranked = int(dd.size)
    else:
        ranks = stats.rankdata(np.abs(d))
        w_plus = float(ranks[d > 0].sum())
        if zero_method == "zsplit":
            w_plus += float(ranks[d == 0].sum()) / 2.0
        n_ranked = int(d.size)
    res = stats.wilcoxon(a, b, zero_method=zero_method, correction=bool(correction),
                         alternative=alternative, method=method)
    used = method
    if method == "auto":
        if d.size > 50:
            used = "asymptotic"
        elif not (has_ties or n_zero > 0):
            used = "exact"
        elif d.size <= 13:
            used = "permutation"
        else:
            used = "asymptotic"
    z = getattr(res, "zstatistic", math.nan)
    if used == "asymptotic" and not np.isfinite(z):
        z = math.nan
    if used == "asymptotic" and math.isnan(z):
        # scipy only reports z for method="asymptotic"; recompute it for "auto".
        z = _wilcoxon_z(d, zero_method, bool(correction), alternative)
    return WilcoxonResult(w_plus, float(res.pvalue), float(z) if used == "asymptotic"
                          else math.nan, n_ranked, n_zero, has_ties, used, zero_method,
                          bool(correction), alternative)


def _wilcoxon_z(d, zero_method, correction, alternative):
    if zero_method == "wilcox":
        d = d[d != 0]
    n = d.size
    r = stats.rankdata(np.abs(d))
    w_plus = r[d > 0].sum()
    if zero_method == "zsplit":
        w_plus += r[d == 0].sum() / 2.0
    mn = n * (n + 1) / 4.0
    var = n * (n + 1) * (2 * n + 1)
    if zero_method == "pratt":
        nz0 = int((d == 0).sum())
        mn -= nz0 * (nz0 + 1) / 4.0
        var -= nz0 * (nz0 + 1) * (2 * nz0 + 1)
        _, t = np.unique(np.abs(d[d != 0]), return_counts=True)
    else:
        _, t = np.unique(np.abs(d), return_counts=True)
    se = math.sqrt((var - float(np.sum(t.astype(float) ** 3 - t)) / 2.0) / 24.0)
    z = (w_plus - mn) / se
    if correction:
        sgn = {"greater": 1.0, "less": -1.0}.get(alternative, float(np.sign(z)))
        z -= sgn * 0.5 / se
    return z


def _wilcoxon_test_iv(a, b, alternative, method, zero_method, correction, missing):
    alternative_iv(alternative)
    if method not in ("auto", "exact", "asymptotic", "R"):
        raise ValueError("`method` must be 'auto', 'exact', 'asymptotic' or 'R', "
                         f"got {method!r}")
    if zero_method not in ("wilcox", "pratt", "zsplit"):
        raise ValueError("`zero_method` must be 'wilcox', 'pratt' or 'zsplit', "
                         f"got {zero_method!r}")
    if method == "R":
        if zero_method != "wilcox":
            raise ValueError("`zero_method` must be 'wilcox' with method='R' (R drops zeros)")
        if correction is False:
            raise ValueError("`correction` cannot be False with method='R' (R corrects)")
        correction = True
    elif correction is None:
        correction = False
    elif not isinstance(correction, bool | np.bool_):
        raise TypeError(f"`correction` must be True, False or None, got {correction!r}")
    a, b = _pair_iv(a, b, missing, min_n=1)
    return a, b, method, correction


# --------------------------------------------------------------------------
# sign test
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class SignTestResult:
    """Result of :func:`sign_test`.

    Attributes
    ----------
    statistic : int
        Number of wins of ``a`` (queries with ``a - b > zero_tolerance``).
    pvalue : float
        Exact binomial p-value with success probability 1/2 over the
        ``n = wins + losses`` untied queries (1 when ``n == 0``).
    wins, ties, losses : int
    n : int
        ``wins + losses``.
    zero_tolerance : float
    alternative : str
    """

    statistic: int
    pvalue: float
    wins: int
    ties: int
    losses: int
    n: int
    zero_tolerance: float
    alternative: str

    def confidence_interval(self, confidence_level=0.95):
        """Clopper-Pearson interval for the share of wins among untied queries.

        ``(nan, nan)`` when every query is a tie.
        """
        cl = confidence_level_iv(confidence_level)
        if self.n == 0:
            return ConfidenceInterval(math.nan, math.nan, cl, "clopper-pearson")
        ci = stats.binomtest(self.wins, self.n, 0.5, alternative=self.alternative
                             ).proportion_ci(confidence_level=cl, method="exact")
        return ConfidenceInterval(float(ci.low), float(ci.high), cl, "clopper-pearson")


def _win_tie_loss(D, tol):
    wins = (D > tol).sum(axis=-1)
    losses = (D < -tol).sum(axis=-1)
    ties = D.shape[-1] - wins - losses
    return wins, ties, losses


def _sign_pvalues(wins, losses, alternative):
    """Exact binomial p-values (p = 1/2), vectorised; equals scipy.stats.binomtest."""
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


def sign_test(a, b, *, alternative="two-sided", zero_tolerance=0.0, missing="raise"):
    r"""Exact sign test on the per-query differences ``a - b``.

    Parameters
    ----------
    a, b : array_like, 1-D
        Aligned per-query scores.
    alternative : {"two-sided", "less", "greater"}, keyword-only
        ``"greater"``: ``a`` wins more often than it loses.
    zero_tolerance : float, keyword-only
        A query with :math:`|a_i - b_i| \le` ``zero_tolerance`` is a tie and
        is dropped (default 0: only exact equality).
    missing : {"raise", "drop"}, keyword-only

    Returns
    -------
    SignTestResult

    Notes
    -----
    With :math:`W` wins and :math:`L` losses, the p-value is that of
    :func:`scipy.stats.binomtest` for :math:`W` successes in :math:`W + L`
    trials with probability 1/2.

    Examples
    --------
    >>> import mrrstats
    >>> res = mrrstats.sign_test([1, 1, 0.5, 1, 0.2, 1], [0.5, 1, 0.25, 0.5, 0.1, 0.5])
    >>> print(res.wins, res.ties, res.losses, round(res.pvalue, 4))
    5 1 0 0.0625
    """
    a, b, tol = _sign_test_iv(a, b, alternative, zero_tolerance, missing)
    w, t, l_ = _win_tie_loss(a - b, tol)
    n = int(w + l_)
    if n == 0:
        p = 1.0
    else:
        p = float(stats.binomtest(int(w), n, 0.5, alternative=alternative).pvalue)
    return SignTestResult(int(w), p, int(w), int(t), int(l_), n, tol, alternative)


def _sign_test_iv(a, b, alternative, zero_tolerance, missing):
    alternative_iv(alternative)
    tol = tolerance_iv(zero_tolerance)
    a, b = _pair_iv(a, b, missing, min_n=1)
    return a, b, tol


# --------------------------------------------------------------------------
# randomization (sign-flip) test: vectorised engine
# --------------------------------------------------------------------------
def _signflip_pvalues(D, alternative, *, n_resamples, exact, batch, gen, keep=False,
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


def _accept_count(alpha, total, exact):
    """Smallest count of resamples at least as extreme that gives p > alpha."""
    if exact:
        return math.floor(alpha * total) + 1
    return math.floor(alpha * (total + 1.0) - 1.0) + 1


def _signflip_interval(dsum, sums, kept, exact, alternative, cl, n):
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
    need = _accept_count(a1, total, exact) - e
    low, high = -math.inf, math.inf
    if alternative in ("two-sided", "greater") and need > 0:
        low = float(r[need - 1])
    if alternative in ("two-sided", "less") and need > 0:
        high = float(r[r.size - need])
    return low, high


@dataclass(frozen=True)
class RandomizationTestResult:
    """Result of :func:`randomization_test`.

    Attributes
    ----------
    statistic : float
        Observed mean difference :math:`\\bar d` of ``a - b``.
    pvalue : float
        Exact (``exact=True``) or Monte-Carlo ``(b + 1) / (B + 1)`` p-value.
    pvalue_se : float
        Monte-Carlo standard error :math:`\\sqrt{p(1-p)/B}` (0 when exact).
    exact : bool
        Whether all :math:`2^n` sign vectors were enumerated.
    n_resamples : int
        Number of sign vectors used (:math:`2^n` when exact).
    n : int
        Number of queries.
    alternative : str
    seed : int or None
        Integer seed or entropy that reproduces the result (see ``rng``).
    n_clusters : int or None
        Number of clusters flipped as units (``clusters=``); None without clusters.
    null_distribution : ndarray
        The resampled mean differences :math:`T(s^{(b)})`, one per sign vector:
        the :math:`B` random ones in draw order, or all :math:`2^n` in
        enumeration order (sign vector ``c`` keeps the sign of query ``i``
        when bit ``i`` of ``c`` is set) when exact. The p-value is the share
        of it at least as extreme as ``statistic`` (with the ``+1`` when
        Monte Carlo, and a rounding tolerance). Memory: a Monte-Carlo result
        keeps ``12 B`` bytes (the sums and the number of kept signs of each
        resample, needed by :meth:`confidence_interval`); an exact null is
        computed from the differences on first use (``12 * 2**n`` bytes, 12
        MiB at 20 queries).

    Methods
    -------
    confidence_interval(confidence_level=0.95)
        The shifts :math:`\\delta` that the sign-flip test does not reject.
    """

    statistic: float
    pvalue: float
    pvalue_se: float
    exact: bool
    n_resamples: int
    n: int
    alternative: str
    seed: int | None
    _differences: np.ndarray = field(default=None, repr=False, compare=False)
    _sums: np.ndarray = field(default=None, repr=False, compare=False)
    _kept: np.ndarray = field(default=None, repr=False, compare=False)
    n_clusters: int | None = None  # after the private fields: positional calls keep working
    _sizes: np.ndarray = field(default=None, repr=False, compare=False)
    _dsum: float | None = field(default=None, repr=False, compare=False)

    def _null(self):
        if self._sums is not None:
            return self._sums, self._kept
        if self._differences is None:
            raise ValueError("this result carries no null distribution (it was built "
                             "without the per-query differences)")
        # exact: a function of the data; computed once
        u = self._differences.size
        if u > 26:
            raise ValueError(f"the exact null distribution of {u} units has "
                             f"2**{u} values ({12 * 2 ** (u - 30):g} GiB); "
                             "rerun randomization_test with exact=False")
        sums, kept = signflip_null(self._differences, weights=self._sizes)
        object.__setattr__(self, "_sums", sums)
        object.__setattr__(self, "_kept", kept)
        return self._sums, self._kept

    @property
    def null_distribution(self) -> np.ndarray:
        """The resampled mean differences (see the class docstring)."""
        sums, _ = self._null()
        return sums / self.n

    def confidence_interval(self, confidence_level=0.95):
        r"""Interval for a shift :math:`\delta` by inverting the sign-flip test.

        The interval holds the :math:`\delta` for which the one-sided
        sign-flip tests of :math:`d_i - \delta`, with the *same* sign vectors
        as the test, do not reject at level :math:`(1 - \text{level})/2` each
        (two-sided; one bound at :math:`1 - \text{level}` for a one-sided
        test). It is the classical randomization interval (Hartigan 1969;
        Garthwaite 1996): exact coverage under the test's own assumption that
        the differences are symmetric about :math:`\delta`, and its ends are
        order statistics of the means of the flipped subsets. It is
        equal-tailed, so 0 lies outside it exactly when one of the one-sided
        p-values is at most :math:`(1 - \text{level})/2`; the two-sided
        p-value (which compares :math:`|\bar d|`) can differ near the
        threshold. An end is infinite when the level cannot be reached with
        the resamples (fewer than about :math:`2/(1-\text{level})`).

        Returns
        -------
        ConfidenceInterval
            method ``"sign-flip inversion"``.

        References
        ----------
        .. [1] Hartigan, J. A. (1969). Using subsample values as typical
               values. JASA 64(328).
        .. [2] Garthwaite, P. H. (1996). Confidence intervals from randomization
               tests. Biometrics 52(4).
        """
        cl = confidence_level_iv(confidence_level)
        sums, kept = self._null()
        dsum = self._dsum if self._dsum is not None else float(np.sum(self._differences))
        low, high = _signflip_interval(dsum, sums, kept, self.exact, self.alternative, cl,
                                       self.n)
        return ConfidenceInterval(low, high, cl, "sign-flip inversion")


def randomization_test(a, b, *, alternative="two-sided", n_resamples=10000, exact=None,
                       clusters=None, batch=None, missing="raise", workers=-1, rng=None):
    r"""Fisher's paired randomization test (sign flips) of the mean difference.

    Under the null hypothesis the two systems are exchangeable on every query,
    so each difference :math:`d_i = a_i - b_i` is equally likely to have
    either sign. The test compares the observed mean difference with its
    distribution over random sign flips.

    Parameters
    ----------
    a, b : array_like, 1-D
        Aligned per-query scores.
    alternative : {"two-sided", "less", "greater"}, keyword-only
        ``"two-sided"`` compares :math:`|\bar d|` (not twice a tail).
    n_resamples : int, keyword-only
        Number :math:`B` of random sign vectors for the Monte-Carlo test.
    exact : bool or None, keyword-only
        Enumerate all :math:`2^n` sign vectors. ``None`` (default) does so when
        :math:`2^n \le \max(B, 2^{20})`, i.e. for :math:`n \le 20` queries at
        the default :math:`B` (with ``clusters``: :math:`2^G` patterns of the
        :math:`G` clusters).
    clusters : array_like, 1-D, optional, keyword-only
        Cluster label of each query (e.g. the conversation of a CAsT turn):
        one sign flip per cluster instead of per query (see Notes). Labels may
        be of any hashable type; ``None`` (default): every query is its own
        cluster.
    batch : int or None, keyword-only
        Number of sign vectors held in memory at once (does not change the result).
    missing : {"raise", "drop"}, keyword-only
    workers : int, keyword-only
        Threads of the compiled sign-flip kernel (-1: all cores). Every sign
        vector is a function of the seed and its number, so the result never
        depends on it.
    rng : None, int or numpy.random.Generator, keyword-only
        Source of randomness (turned into a Generator once).

    Returns
    -------
    RandomizationTestResult

    Notes
    -----
    With sign vectors :math:`s^{(1)}, \dots, s^{(B)}` drawn uniformly from
    :math:`\{-1, 1\}^n` and :math:`T(s) = \frac1n\sum_i s_i d_i`, the
    two-sided Monte-Carlo p-value is

    .. math:: p = \frac{1 + \#\{b : |T(s^{(b)})| \ge |\bar d| - \tau\}}{B + 1},

    which is a valid p-value for any :math:`B` (Phipson & Smyth, 2010). The
    small tolerance :math:`\tau` counts resampled values that equal the
    observed one up to rounding as ties, as :func:`scipy.stats.permutation_test`
    does. The exact test divides the count over all :math:`2^n` vectors by
    :math:`2^n`. ``pvalue_se`` is :math:`\sqrt{p(1-p)/B}`: report it, and raise
    :math:`B` when it matters at your significance level.

    **Clusters.** When queries come in clusters (turns of a conversation,
    questions about one document) the null hypothesis of exchangeability holds
    for whole clusters: with cluster totals :math:`D_g = \sum_{i \in g} d_i`
    and one sign :math:`s_g` per cluster, :math:`T(s) = \frac1n \sum_g s_g
    D_g`, the same per-query mean difference for the observed signs. The
    p-value is that of the plain test on the :math:`D_g`; with every query its
    own cluster (clusters numbered by first appearance) the result, p-value
    and null distribution included, is identical to the unclustered one for
    the same seed. :meth:`~RandomizationTestResult.confidence_interval`
    inverts the clustered test (shift :math:`\delta` per query).

    References
    ----------
    .. [1] Fisher, R. A. (1935). *The Design of Experiments*.
    .. [2] Smucker, M. D., Allan, J., Carterette, B. (2007). A comparison of
           statistical significance tests for information retrieval evaluation.
           CIKM.
    .. [3] Phipson, B., Smyth, G. K. (2010). Permutation p-values should never
           be zero. Stat. Appl. Genet. Mol. Biol. 9(1).
    .. [4] Good, P. (2005). *Permutation, Parametric and Bootstrap Tests of
           Hypotheses*, 3rd ed., Section 3.6 (clusters as the exchangeable units).

    Examples
    --------
    >>> import mrrstats
    >>> a = [1.0, 0.5, 1.0, 0.25, 1.0, 0.5, 0.33, 1.0]
    >>> b = [0.5, 0.5, 0.2, 0.25, 0.5, 0.333, 0.1, 1.0]
    >>> res = mrrstats.randomization_test(a, b)   # 2**8 sign vectors: exact
    >>> print(res.exact, res.n_resamples, round(res.pvalue, 4))
    True 256 0.0625

    Turns of three conversations, one sign per conversation (:math:`2^3`
    patterns):

    >>> conv = ["c1", "c1", "c1", "c2", "c2", "c3", "c3", "c3"]
    >>> res = mrrstats.randomization_test(a, b, clusters=conv)
    >>> print(res.n_clusters, res.n_resamples, res.pvalue)
    3 8 0.25
    """
    a, b, device_d = _device_pair(a, b)
    a, b, n_resamples, batch, gen, seed, design = _randomization_test_iv(
        a, b, alternative, n_resamples, exact, clusters, batch, missing, rng)
    workers = workers_iv(workers)
    d = a - b
    if design is None:
        D, sizes, G = d[None, :], None, None
    else:
        D, sizes, G = design.totals(d)[None, :], design.sizes, design.n_clusters
    p, se, total, used_exact, (sums, kept) = _signflip_pvalues(
        D, alternative, n_resamples=n_resamples, exact=exact, batch=batch, gen=gen, keep=True,
        weights=sizes, device_D=device_d(a.size) if design is None else None, workers=workers)
    units = D[0].copy()
    units.flags.writeable = False
    return RandomizationTestResult(float(d.mean()), float(p[0]), float(se[0]), used_exact,
                                   int(total), int(a.size), alternative, seed, n_clusters=G,
                                   _differences=units, _sums=sums, _kept=kept, _sizes=sizes)


def _device_pair(a, b=None):
    """Host copies of ``a`` (and ``b``) and a function giving ``a - b`` on their device.

    When ``a`` or ``b`` is an array-API array other than NumPy (a torch
    tensor, a CuPy array, on any device), the validation and the O(n)
    summaries run on host copies of the per-query values, and
    ``device_d(n_kept)`` returns the float64 differences on the device (the
    queries kept by ``missing="drop"``: the finite ones), for the O(B n)
    resampling; it returns None for host inputs.
    """
    xp = array_namespace_of(a, b)
    if xp is None:
        return a, b, lambda n_kept: None
    from array_api_compat import device

    dev = device(a if array_namespace_of(a) is not None else b)

    def on_device(x):
        if x is None:
            return None
        if array_namespace_of(x) is None:
            x = xp.asarray(np.asarray(x, dtype=np.float64), device=dev)
        return xp.astype(x, xp.float64)

    ad, bd = on_device(a), on_device(b)
    a_h = to_host(ad)
    b_h = None if b is None else to_host(bd)

    def device_d(n_kept):
        d = ad if bd is None else ad - bd
        if n_kept != d.shape[0]:
            keep = ~np.isnan(a_h) if b_h is None else ~(np.isnan(a_h) | np.isnan(b_h))
            d = xp.take(d, xp.asarray(np.flatnonzero(keep), device=dev), axis=0)
        return xp.reshape(d, (1, -1))

    return a_h, b_h, device_d


def _randomization_test_iv(a, b, alternative, n_resamples, exact, clusters, batch, missing,
                           rng):
    alternative_iv(alternative)
    n_resamples = int_iv(n_resamples, "n_resamples")
    if exact not in (None, True, False):
        raise TypeError(f"`exact` must be None, True or False, got {exact!r}")
    batch = int_iv(batch, "batch", allow_none=True)
    n_raw = None if clusters is None else _vector(a, "a").size
    a, b, keep = _pair_iv(a, b, missing, min_n=1, return_keep=True)
    design = None if clusters is None else _design_iv(clusters, None, n_raw, keep)
    units = a.size if design is None else design.n_clusters
    if exact and units > 30:
        raise ValueError(f"`exact` enumeration of 2**{units} sign vectors is too large; "
                         "use exact=None or False for more than 30 queries (clusters)")
    gen, seed = rng_iv(rng)
    return a, b, n_resamples, batch, gen, seed, design


# --------------------------------------------------------------------------
# bootstrap engine
# --------------------------------------------------------------------------
def _jackknife_acceleration(X):
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


def _quantile_rows(sorted_rows, probs):
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


def _bootstrap_interval(theta_hat, sorted_dist, accel, method, cl, alternative):
    """Percentile / basic / BCa limits for each row (vectorised). Returns (low, high)."""
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
    else:
        probs = np.tile([alpha, 1.0 - alpha], (m, 1))
    bad = ~np.isfinite(probs).all(axis=1)
    q = _quantile_rows(sorted_dist, np.nan_to_num(probs, nan=0.5))
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


_CI_METHODS = ("bca", "percentile", "basic")


@dataclass(frozen=True, eq=False)
class BootstrapCIResult:
    """Result of :func:`bootstrap_ci`.

    Attributes
    ----------
    statistic : float
        Mean of ``a`` (one system) or mean difference of ``a - b`` (a pair).
    standard_error : float
        Standard deviation (``ddof=1``) of the bootstrap distribution.
    bootstrap_distribution : ndarray
        The :math:`B` resampled means (sorted ascending).
    acceleration : float
        Jackknife acceleration :math:`\\hat a` used by BCa.
    method : str
        Default interval method (``"bca"``, ``"percentile"`` or ``"basic"``).
    confidence_level : float
        Default confidence level.
    alternative : str
    n_resamples, n : int
    seed : int or None
    n_clusters : int or None
        Number of clusters resampled as units (``clusters=`` or ``strata=``);
        None for the plain query bootstrap.
    scheme : str
        ``"multinomial"`` or ``"poisson"`` (see :func:`bootstrap_ci`).
    """

    statistic: float
    standard_error: float
    bootstrap_distribution: np.ndarray = field(repr=False)
    acceleration: float
    method: str
    confidence_level: float
    alternative: str
    n_resamples: int
    n: int
    seed: int | None
    n_clusters: int | None = None
    scheme: str = "multinomial"

    def confidence_interval(self, confidence_level=None, *, method=None):
        """Interval from the stored bootstrap distribution.

        Parameters
        ----------
        confidence_level : float, optional
            Defaults to the level passed to :func:`bootstrap_ci`.
        method : {"bca", "percentile", "basic"}, optional
            Defaults to the method passed to :func:`bootstrap_ci`.
        """
        cl = self.confidence_level if confidence_level is None else \
            confidence_level_iv(confidence_level)
        method = self.method if method is None else method
        if method not in _CI_METHODS:
            raise ValueError(f"`method` must be one of {_CI_METHODS}, got {method!r}")
        low, high = _bootstrap_interval(np.array([self.statistic]),
                                        self.bootstrap_distribution[None, :],
                                        np.array([self.acceleration]), method, cl,
                                        self.alternative)
        return ConfidenceInterval(float(low[0]), float(high[0]), cl, method)


def bootstrap_ci(a, b=None, *, method="bca", confidence_level=0.95, alternative="two-sided",
                 n_resamples=10000, clusters=None, strata=None, batch=None, missing="raise",
                 scheme="multinomial", workers=-1, rng=None):
    r"""Bootstrap confidence interval for a mean (MRR) or a paired mean difference.

    Parameters
    ----------
    a : array_like, 1-D
        Per-query scores of a system.
    b : array_like, 1-D, optional
        Per-query scores of a second system on the same queries: the interval
        is then for the mean of ``a - b`` (queries resampled in pairs).
    method : {"bca", "percentile", "basic"}, keyword-only
    confidence_level : float, keyword-only
    alternative : {"two-sided", "less", "greater"}, keyword-only
        One-sided intervals have an infinite bound, as in :func:`scipy.stats.bootstrap`.
    n_resamples : int, keyword-only
    clusters : array_like, 1-D, optional, keyword-only
        Cluster label of each query (e.g. the conversation of a CAsT turn):
        whole clusters are resampled (the cluster bootstrap, see Notes).
    strata : array_like, 1-D, optional, keyword-only
        Stratum label of each query, constant within a cluster: clusters (or,
        without ``clusters``, queries) are resampled within each stratum,
        keeping the number of clusters of every stratum.
    batch : int or None, keyword-only
        Resamples held in memory at once (does not change the result).
    missing : {"raise", "drop"}, keyword-only
    scheme : {"multinomial", "poisson"}, keyword-only
        ``"multinomial"`` (default): each resample draws ``n`` queries with
        replacement. ``"poisson"``: each query gets an independent Poisson(1)
        weight and the resampled mean is :math:`\sum_i w_i x_i / \sum_i w_i`
        (see Notes); the only scheme :func:`mrrstats.blocked.bootstrap_ci` can
        run over blocks of queries, with the same numbers as here. Not with
        ``clusters`` or ``strata``.
    workers : int, keyword-only
        Threads of the compiled resampling kernels (-1: all cores); the
        result never depends on it.
    rng : None, int or numpy.random.Generator, keyword-only

    Returns
    -------
    BootstrapCIResult
        Call ``.confidence_interval()`` for the interval.

    Notes
    -----
    Queries are resampled with replacement :math:`B` times; resample
    :math:`b` has the mean :math:`\hat\theta^*_b`. With :math:`\alpha = (1 -
    \text{level})/2` and :math:`q(\cdot)` the linear-interpolation quantile of
    the :math:`\hat\theta^*_b`:

    * percentile: :math:`[q(\alpha), q(1-\alpha)]`;
    * basic: :math:`[2\hat\theta - q(1-\alpha), 2\hat\theta - q(\alpha)]`;
    * BCa (Efron & Tibshirani 1993, 14.3): :math:`[q(\alpha_1), q(\alpha_2)]`,
      :math:`\alpha_{1,2} = \Phi(z_0 + (z_0 + z_{\alpha, 1-\alpha}) / (1 -
      \hat a (z_0 + z_{\alpha, 1-\alpha})))`, with :math:`z_0 =
      \Phi^{-1}(\#\{\hat\theta^* < \hat\theta\}/B + \#\{\hat\theta^* =
      \hat\theta\}/(2B))` and the jackknife acceleration of the mean
      :math:`\hat a = \sum_i (x_i - \bar x)^3 / (6 (\sum_i (x_i - \bar x)^2)^{3/2})`.

    These are the definitions of :func:`scipy.stats.bootstrap`, computed with
    one multinomial count matrix and a matrix product instead of materialising
    the resamples.

    **Poisson bootstrap.** With ``scheme="poisson"`` resample :math:`b` weighs
    query :math:`i` by :math:`w_{bi} \sim \text{Poisson}(1)`, independent, and
    :math:`\hat\theta^*_b = \sum_i w_{bi} x_i / \sum_i w_{bi}` (Hanley &
    MacGibbon 2006; Chamandy et al. 2012): the total weight varies around
    :math:`n` instead of being fixed, which changes the bootstrap variance of
    the mean by a factor :math:`1 + O(1/n)`. Each weight depends only on the
    seed, the resample and the query number, so the resamples can be computed
    one block of queries at a time (a multinomial draw can land on any
    query); the intervals use the same percentile, basic and BCa formulas. A
    resample whose weights are all 0 (probability :math:`e^{-n}`, relevant
    for a handful of queries only) is an error: use the multinomial scheme.

    **Clusters and strata.** The cluster bootstrap (Davison & Hinkley 1997,
    3.8; Field & Welsh 2007) draws :math:`G` clusters with replacement
    (multinomial counts :math:`c_g`); with cluster totals :math:`S_g` and sizes
    :math:`n_g` the resampled mean is the ratio :math:`\sum_g c_g S_g /
    \sum_g c_g n_g`. With strata each stratum draws its own clusters. BCa's
    acceleration is then the leave-one-cluster-out jackknife. With every query
    its own cluster (numbered by first appearance) and no strata, the same seed
    gives the identical bootstrap distribution and interval as without
    ``clusters``.

    References
    ----------
    .. [1] Efron, B., Tibshirani, R. J. (1993). *An Introduction to the
           Bootstrap*. Chapman & Hall.
    .. [2] Davison, A. C., Hinkley, D. V. (1997). *Bootstrap Methods and their
           Application*, Section 3.8. Cambridge University Press.
    .. [3] Field, C. A., Welsh, A. H. (2007). Bootstrapping clustered data.
           JRSS B 69(3), 369-390.
    .. [4] Hanley, J. A., MacGibbon, B. (2006). Creating non-parametric
           bootstrap samples using Poisson frequencies. Computer Methods and
           Programs in Biomedicine 83(1), 57-62.
    .. [5] Chamandy, N., Muralidharan, O., Najmi, A., Naidu, S. (2012).
           Estimating uncertainty for massive data streams. Google Technical
           Report.

    Examples
    --------
    >>> import mrrstats
    >>> rr = [1, 0.5, 1, 0.25, 1, 0.333, 0.2, 1, 0.5, 1, 0.1, 1]
    >>> res = mrrstats.bootstrap_ci(rr, rng=1)
    >>> print(round(res.statistic, 4))
    0.6569
    >>> low, high = res.confidence_interval()
    >>> print(0.4 < low < 0.6569 < high < 0.9)
    True

    The same scores as turns of four conversations (whole conversations
    resampled):

    >>> conv = [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4]
    >>> res = mrrstats.bootstrap_ci(rr, clusters=conv, method="percentile", rng=1)
    >>> print(res.n_clusters, round(res.statistic, 4))
    4 0.6569
    """
    a, b, device_x = _device_pair(a, b)
    x, method, cl, n_resamples, batch, gen, seed, design = _bootstrap_ci_iv(
        a, b, method, confidence_level, alternative, n_resamples, clusters, strata, batch,
        missing, rng)
    scheme = scheme_iv(scheme)
    workers = workers_iv(workers)
    n = x.size
    if scheme == "poisson":
        if design is not None:
            raise ValueError("scheme='poisson' resamples queries, not clusters or strata; "
                             "use scheme='multinomial' with `clusters`/`strata`")
        sums, wsum = poisson_bootstrap_sums(x, n_resamples, gen, workers=workers)
        dist = np.sort(poisson_means(sums[0], wsum, n))
        accel = float(_jackknife_acceleration(x[None, :])[0])
        se = float(dist.std(ddof=1)) if n_resamples > 1 else math.nan
        return BootstrapCIResult(float(x.mean()), se, dist, accel, method, cl, alternative,
                                 n_resamples, n, seed, None, "poisson")
    xd = device_x(n)
    if design is None and xd is not None:  # resampled where the scores live
        sums = bootstrap_sums_xp(xd, n_resamples, batch, gen, xp=array_namespace_of(xd))
        dist = np.sort(sums[0] / n)
        accel = float(_jackknife_acceleration(x[None, :])[0])
        G = None
    elif design is None:
        dist = np.sort(bootstrap_sums(x[None, :], n_resamples, batch, gen, workers)[0] / n)
        accel = float(_jackknife_acceleration(x[None, :])[0])
        G = None
    else:
        Y = np.vstack([design.totals(x), design.sizes.astype(np.float64)])
        tot, cnt = _design_sums(Y, design, n_resamples, batch, gen, workers)
        dist = np.sort(tot / cnt)
        accel = _cluster_acceleration(x, design)
        G = design.n_clusters
    se = float(dist.std(ddof=1)) if n_resamples > 1 else math.nan
    return BootstrapCIResult(float(x.mean()), se, dist, accel, method, cl, alternative,
                             n_resamples, n, seed, G)


def _bootstrap_ci_iv(a, b, method, confidence_level, alternative, n_resamples, clusters,
                     strata, batch, missing, rng):
    if method not in _CI_METHODS:
        raise ValueError(f"`method` must be one of {_CI_METHODS}, got {method!r}")
    cl = confidence_level_iv(confidence_level)
    alternative_iv(alternative)
    n_resamples = int_iv(n_resamples, "n_resamples")
    batch = int_iv(batch, "batch", allow_none=True)
    if b is None:
        missing_iv(missing)
        x = _vector(a, "a")
        keep = ~np.isnan(x)
        if not keep.all():
            if missing == "raise":
                raise ValueError("`a` has a missing value (NaN); pass missing='drop' to "
                                 "drop such queries")
            x = x[keep]
        if np.isinf(x).any():
            raise ValueError("`a` must be finite")
        if x.size < 2:
            raise ValueError(f"`a` needs at least 2 queries, got {x.size}")
    else:
        a, b, keep = _pair_iv(a, b, missing, min_n=2, return_keep=True)
        x = a - b
    design = _design_iv(clusters, strata, keep.size, keep)
    gen, seed = rng_iv(rng)
    return x, method, cl, n_resamples, batch, gen, seed, design


def poisson_means(sums, wsum, n):
    """Poisson-bootstrap means ``sums / wsum``; an error if a resample weighs no query."""
    empty = int((wsum == 0).sum())
    if empty:
        raise ValueError(f"the Poisson bootstrap drew {empty} resample(s) in which every "
                         f"query has weight 0 (probability e**-n each, n = {n}); use "
                         "scheme='multinomial' for so few queries")
    return sums / wsum


# --------------------------------------------------------------------------
# the same results from blocks of queries (the engines of mrrstats.stats.blocked)
# --------------------------------------------------------------------------
def randomization_test_blocks(blocks, size, *, alternative, n_resamples, exact, gen, seed,
                              workers):
    """:func:`randomization_test` of per-query differences given in blocks (validated).

    ``blocks`` is a function returning a new iterator over 1-D float64 blocks
    of the differences ``a - b`` (consecutive queries, finite); ``size`` is
    ``(n, max |d|)``. The result equals ``randomization_test(a, b, ...)`` on
    the whole vectors for the same ``gen``, bit for bit (statistic, p-value,
    null distribution, interval); memory ``O(B + block)``. Where the
    in-memory test would enumerate all :math:`2^n` sign vectors (a few dozen
    queries at most) the blocks are joined and the in-memory test runs.
    """
    n = size[0]
    if use_exact(n, 1, n_resamples, exact):
        d = np.concatenate([np.asarray(blk, dtype=np.float64) for blk in blocks()])
        res = randomization_test(d, np.zeros_like(d), alternative=alternative,
                                 n_resamples=n_resamples, exact=exact, workers=workers, rng=gen)
        return dataclasses.replace(res, seed=seed)
    count, total, sums, kept, dsum = signflip_counts_blocked(
        blocks, alternative, n_resamples=n_resamples, gen=gen, workers=workers, size=size)
    p = (count + 1.0) / (total + 1.0)
    se = float(mc_se(p, total))
    return RandomizationTestResult(dsum / n, min(p, 1.0), se, False, int(total), int(n),
                                   alternative, seed, _sums=sums, _kept=kept, _dsum=dsum)


def bootstrap_ci_blocks(blocks, size, *, method, confidence_level, alternative, n_resamples,
                        gen, seed, workers):
    """``bootstrap_ci(x, scheme="poisson", ...)`` of per-query values given in blocks.

    ``blocks`` and ``size`` as in :func:`randomization_test_blocks` (the
    values: one system's scores or the differences ``a - b``). Three passes:
    the Poisson sums (:func:`~mrrstats.stats.resampling.poisson_bootstrap_blocked`),
    then the centred sums of squares and cubes of the BCa acceleration, all
    with ``numpy.sum``'s order (:class:`~mrrstats.stats.resampling.PairwiseSum`),
    so the result equals the in-memory one bit for bit; memory ``O(B + block)``.
    """
    n = size[0]
    sums, wsum, xsum = poisson_bootstrap_blocked(blocks, n_resamples, gen, workers=workers,
                                                 size=size)
    dist = np.sort(poisson_means(sums, wsum, n))
    mean = np.array([[xsum / n]])  # as X.mean(axis=-1, keepdims=True)
    cubes, squares = PairwiseSum(n), PairwiseSum(n)
    for blk in blocks():
        U = np.asarray(blk, dtype=np.float64)[None, :] - mean
        cubes.add((U**3)[0])
        squares.add((U**2)[0])
    accel = float(acceleration_from_sums(np.array([cubes.value()]),
                                         np.array([squares.value()]))[0])
    se = float(dist.std(ddof=1)) if n_resamples > 1 else math.nan
    return BootstrapCIResult(xsum / n, se, dist, accel, method, confidence_level, alternative,
                             n_resamples, n, seed, None, "poisson")


# --------------------------------------------------------------------------
# bootstrap test
# --------------------------------------------------------------------------
_BOOT_TESTS = ("shift", "studentized")


def _bootstrap_test_rows_impl(D, alternative, method, n_resamples, batch, gen, keep=False,
                              workers=-1):
    """Paired bootstrap tests for each row of differences ``D`` (P, n).

    Only exceedance counts are kept, so memory is ``batch x P`` whatever ``B``.
    Returns (statistic, pvalue, pvalue_se), and with ``keep=True`` (one pair)
    also the ``B`` null statistics in draw order.
    """
    P, n = D.shape
    if keep and P != 1:
        raise ValueError("keep=True stores the null distribution of one pair only")
    kept = np.empty(n_resamples) if keep else None
    mean = D.mean(axis=1)
    scale = np.abs(D).mean(axis=1)
    studentized = method == "studentized"
    if studentized:
        sd = D.std(axis=1, ddof=1)
        se = sd / np.sqrt(n)
        with np.errstate(divide="ignore", invalid="ignore"):
            obs = np.where(_constant_rows(D, sd), _signed_inf(mean), mean / se)
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
                                np.where(tiny, 0.0, _signed_inf(num)))
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


@dataclass(frozen=True)
class BootstrapTestResult:
    """Result of :func:`bootstrap_test`.

    Attributes
    ----------
    statistic : float
        Mean difference (``method="shift"``) or paired t statistic
        (``method="studentized"``).
    pvalue : float
        ``(b + 1) / (B + 1)``.
    pvalue_se : float
        Monte-Carlo standard error :math:`\\sqrt{p(1-p)/B}`.
    mean_difference : float
    method : str
    alternative : str
    n_resamples, n : int
    seed : int or None
    null_distribution : ndarray
        The :math:`B` null statistics in draw order: the centred resample means
        :math:`\\bar z^*_b` (``"shift"``) or :math:`t^*_b` (``"studentized"``;
        ``+-inf`` for a resample without variance). ``8 B`` bytes (80 KB at
        the default ``B``).
    std_error : float
        :math:`s_d/\\sqrt n`, the scale of the studentized statistic (with
        ``clusters``, the cluster-robust standard error of the mean, see
        :func:`bootstrap_test`).
    n_clusters : int or None
        Number of clusters resampled as units; None without ``clusters``.

    Methods
    -------
    confidence_interval(confidence_level=0.95)
        The shifts the same test does not reject, from the same resamples.
    """

    statistic: float
    pvalue: float
    pvalue_se: float
    mean_difference: float
    method: str
    alternative: str
    n_resamples: int
    n: int
    seed: int | None
    null_distribution: np.ndarray = field(default=None, repr=False, compare=False)
    std_error: float = math.nan
    n_clusters: int | None = None

    def confidence_interval(self, confidence_level=0.95):
        r"""Interval for the mean difference by inverting this bootstrap test.

        The interval holds the shifts :math:`\delta` for which the test of
        :math:`d_i - \delta` with the same resamples does not reject at
        :math:`1 - \text{level}`. The null statistics do not depend on
        :math:`\delta` (they are centred), so with :math:`c` the
        :math:`k`-th largest :math:`|\text{null}|`, :math:`k` the smallest
        count giving :math:`(1 + k)/(B + 1) > 1 - \text{level}`:

        * ``"studentized"``: :math:`\bar d \pm c\, s_d/\sqrt n`, the
          symmetric bootstrap-t interval (Hall 1992, 3.7);
        * ``"shift"``: :math:`\bar d \pm c`;

        and one-sided tests give the one-sided interval from the
        corresponding tail. 0 lies outside the interval exactly when the test
        rejects at :math:`1 - \text{level}` (up to the rounding tolerance of
        the p-value).

        Returns
        -------
        ConfidenceInterval
            method ``"bootstrap-t inversion"`` or ``"shift-bootstrap inversion"``.

        References
        ----------
        .. [1] Hall, P. (1992). *The Bootstrap and Edgeworth Expansion*. Springer.
        """
        cl = confidence_level_iv(confidence_level)
        if self.null_distribution is None:
            raise ValueError("this result carries no null distribution")
        null = np.asarray(self.null_distribution)
        B = null.size
        k = _accept_count(1.0 - cl, B, False)
        scale = self.std_error if self.method == "studentized" else 1.0
        name = ("bootstrap-t inversion" if self.method == "studentized"
                else "shift-bootstrap inversion")
        m = self.mean_difference
        low, high = -math.inf, math.inf
        if k > 0:
            if self.alternative == "two-sided":
                c = np.sort(np.abs(null))[B - k]
                c = float(c)
                low, high = m - c * scale, m + c * scale
            elif self.alternative == "greater":
                low = m - float(np.sort(null)[B - k]) * scale
            else:
                high = m - float(np.sort(null)[k - 1]) * scale
        # inf * 0 (an infinite null statistic, no spread): the interval is the point
        low, high = (m if math.isnan(v) else float(v) for v in (low, high))
        return ConfidenceInterval(low, high, cl, name)


def bootstrap_test(a, b, *, method="studentized", alternative="two-sided", n_resamples=10000,
                   clusters=None, batch=None, missing="raise", workers=-1, rng=None):
    r"""Paired bootstrap test of the mean difference (shift or studentised).

    Parameters
    ----------
    a, b : array_like, 1-D
        Aligned per-query scores.
    method : {"studentized", "shift"}, keyword-only
        ``"studentized"`` (default) compares t statistics (Sakai 2006);
        ``"shift"`` resamples the centred differences and compares means (the
        default up to 0.1.0; liberal at 25 topics, see Notes).
    alternative : {"two-sided", "less", "greater"}, keyword-only
    n_resamples : int, keyword-only
    clusters : array_like, 1-D, optional, keyword-only
        Cluster label of each query: whole clusters are resampled (the pairs
        cluster bootstrap), and the studentized test uses the cluster-robust
        standard error (see Notes).
    batch : int or None, keyword-only
    missing : {"raise", "drop"}, keyword-only
    workers : int, keyword-only
        Threads of the compiled resampling kernels (-1: all cores); the
        result never depends on it.
    rng : None, int or numpy.random.Generator, keyword-only

    Returns
    -------
    BootstrapTestResult

    Notes
    -----
    The null hypothesis is imposed by centring: :math:`z_i = d_i - \bar d`.
    With :math:`z^*_b` the :math:`b`-th resample of the :math:`z_i` (queries
    drawn with replacement),

    * shift test: :math:`p = (1 + \#\{|\bar z^*_b| \ge |\bar d|\}) / (B + 1)`;
    * studentised: :math:`t^*_b = \bar z^*_b / (s(z^*_b)/\sqrt n)` and
      :math:`p = (1 + \#\{|t^*_b| \ge |t|\})/(B+1)` with :math:`t` the paired
      t statistic.

    Sakai's formulation counts without the ``+1``; the ``+1`` keeps the
    p-value above zero and the test valid for finite :math:`B`.

    **Calibration (why studentized is the default).** The shift test is
    liberal for small numbers of topics (Urbano et al. 2019). Type I error at
    :math:`\alpha = 0.05` on real nulls: a random pair of real TREC-5/6/7 ad
    hoc runs, RR per topic, ``n`` topics (without replacement from the 50;
    with replacement for 100), the two systems' values swapped on each topic
    with probability 1/2 so that the null is true; :math:`R = 1000`
    replications per collection and size, pooled (:math:`R = 3000`),
    :math:`B = 2000` (``benchmarks/calibration/calibrate_bootstrap_test.py``):

    ======  ===========  ===========  ================
    topics  shift        studentized  3-SE band
    ======  ===========  ===========  ================
    25      0.069        0.047        [0.038, 0.062]
    50      0.059        0.052        [0.038, 0.062]
    100     0.049        0.044        [0.038, 0.062]
    ======  ===========  ===========  ================

    Per collection (:math:`R = 1000`, band [0.029, 0.071]) the shift test
    reaches 0.082 at 25 topics (TREC-6); studentized stays within
    0.036-0.061. ``method="shift"`` keeps the previous default.

    :meth:`BootstrapTestResult.confidence_interval` inverts the same test with
    the same resamples, so its interval and the decision agree.

    **Clusters.** With cluster totals :math:`S_g`, sizes :math:`n_g` and
    multinomial cluster counts :math:`c_g` (:math:`G` clusters drawn with
    replacement), the resampled mean is :math:`m^* = \sum_g c_g S_g / N^*`,
    :math:`N^* = \sum_g c_g n_g`, centred at :math:`\bar d`; the studentized
    test divides by the cluster-robust (CR1-type) standard error
    :math:`\sqrt{\tfrac{G}{G-1} \sum_g c_g (S_g - n_g m^*)^2} / N^*` (the
    observed :math:`t` uses all clusters once), the pairs cluster bootstrap-t
    of Cameron, Gelbach & Miller (2008). With every query its own cluster
    these are the formulas above (:math:`\tfrac{n}{n-1}` is the ``ddof=1``),
    so the same seed draws the same resamples; the p-value is equal and the
    null distribution equal up to rounding (1e-12 relative).

    References
    ----------
    .. [1] Sakai, T. (2006). Evaluating evaluation metrics based on the bootstrap.
           SIGIR.
    .. [2] Savoy, J. (1997). Statistical inference in retrieval effectiveness
           evaluation. IP&M 33(4).
    .. [3] Urbano, J., Lima, H., Hanjalic, A. (2019). Statistical significance
           testing in information retrieval: an empirical analysis of type I,
           type II and type III errors. SIGIR.
    .. [4] Cameron, A. C., Gelbach, J. B., Miller, D. L. (2008). Bootstrap-based
           improvements for inference with clustered errors. REStat 90(3).

    Examples
    --------
    >>> import mrrstats
    >>> a = [1.0, 0.5, 1.0, 0.25, 1.0, 0.5, 0.33, 1.0, 0.5, 1.0]
    >>> b = [0.5, 0.5, 0.2, 0.25, 0.5, 0.333, 0.1, 1.0, 0.25, 0.5]
    >>> res = mrrstats.bootstrap_test(a, b, rng=7)    # studentized
    >>> print(round(res.statistic, 2), res.pvalue < 0.05)
    3.43 True
    >>> low, high = res.confidence_interval()
    >>> print(0 < low < res.mean_difference < high)
    True
    """
    a, b, n_resamples, batch, gen, seed, design = _bootstrap_test_iv(
        a, b, method, alternative, n_resamples, clusters, batch, missing, rng)
    workers = workers_iv(workers)
    D = (a - b)[None, :]
    if design is None:
        stat, p, se, null = _bootstrap_test_rows(D, alternative, method, n_resamples, batch,
                                                 gen, keep=True, workers=workers)
        stat, p, se = float(stat[0]), float(p[0]), float(se[0])
        sd_err = float(D[0].std(ddof=1) / math.sqrt(a.size))
        G = None
    else:
        stat, p, se, null, sd_err = _cluster_bootstrap_test(D[0], design, alternative, method,
                                                            n_resamples, batch, gen, workers)
        G = design.n_clusters
    null.flags.writeable = False
    return BootstrapTestResult(stat, p, se, float(D.mean()), method, alternative, n_resamples,
                               int(a.size), seed, null, sd_err, G)


def _cluster_bootstrap_test(d, design, alternative, method, n_resamples, batch, gen,
                            workers=-1):
    """The bootstrap test of one pair with clusters (see :func:`bootstrap_test`'s Notes).

    Returns ``(statistic, pvalue, pvalue_se, null, std_error)``.
    """
    stat, p, se_p, null, se = cluster_bootstrap_rows(d[None, :], design, alternative, method,
                                                     n_resamples, batch, gen, keep=True,
                                                     workers=workers)
    return float(stat[0]), float(p[0]), float(se_p[0]), null, float(se[0])


def cluster_robust_se(D, design):
    r"""Cluster-robust (CR1-type) standard errors of the row means of ``D`` (P, n).

    :math:`\sqrt{G/(G-1) \sum_g (S_g - n_g \bar d)^2} / n` with cluster totals
    :math:`S_g`; :math:`s_d/\sqrt n` up to rounding for singleton clusters.
    """
    G = design.n_clusters
    S = np.stack([design.totals(row) for row in D])
    sz = design.sizes.astype(np.float64)
    mean = D.mean(axis=1)
    return np.sqrt(G / (G - 1.0) * ((S - sz * mean[:, None]) ** 2).sum(axis=1)) / D.shape[1]


def cluster_bootstrap_rows(D, design, alternative, method, n_resamples, batch, gen,
                           keep=False, workers=-1):
    """Cluster bootstrap tests of each row of ``D`` (P, n), one shared set of cluster draws.

    Returns ``(statistic, pvalue, pvalue_se, null, std_error)`` (arrays of P;
    ``null`` is the (B,) null of the one row with ``keep=True``, else None).
    """
    P, n = D.shape
    G = design.n_clusters
    S = np.stack([design.totals(row) for row in D])  # (P, G)
    sz = design.sizes.astype(np.float64)
    mean = D.mean(axis=1)
    scale = np.abs(D).mean(axis=1)
    crv = G / (G - 1.0)
    se = cluster_robust_se(D, design)
    studentized = method == "studentized"
    if studentized:
        const = se * math.sqrt(n) <= 1e-13 * np.abs(D).max(axis=1)  # no usable variance
        with np.errstate(divide="ignore", invalid="ignore"):
            obs = np.where(const, _signed_inf(mean), mean / se)
        tol = 1e-12 * np.where(np.isfinite(obs), np.abs(obs), 0.0)
        Y = np.vstack([S, sz, S * S, S * sz, sz * sz])
    else:
        obs, tol = mean, 1e-12 * scale
        Y = np.vstack([S, sz])
    sums = _design_sums(Y, design, n_resamples, batch, gen, workers)
    N = sums[P]
    m = sums[:P] / N
    num = m - mean[:, None]
    if studentized:
        Q, R, W = sums[P + 1:2 * P + 1], sums[2 * P + 1:3 * P + 1], sums[3 * P + 1]
        var = np.maximum(Q - 2.0 * m * R + m * m * W, 0.0) * crv / (N * N)
        se_b = np.sqrt(var)
        lim = 1e-12 * (scale[:, None] + 1e-300)
        tiny = np.abs(num) <= lim
        with np.errstate(divide="ignore", invalid="ignore"):
            null = np.where(se_b > lim, num / se_b, np.where(tiny, 0.0, _signed_inf(num)))
    else:
        null = num
    if alternative == "two-sided":
        count = (np.abs(null) >= (np.abs(obs) - tol)[:, None]).sum(axis=1)
    elif alternative == "greater":
        count = (null >= (obs - tol)[:, None]).sum(axis=1)
    else:
        count = (null <= (obs + tol)[:, None]).sum(axis=1)
    p = np.minimum((count + 1.0) / (n_resamples + 1.0), 1.0)
    return obs, p, mc_se(p, n_resamples), (null[0] if keep else None), se


def _bootstrap_test_iv(a, b, method, alternative, n_resamples, clusters, batch, missing, rng):
    if method not in _BOOT_TESTS:
        raise ValueError(f"`method` must be one of {_BOOT_TESTS}, got {method!r}")
    alternative_iv(alternative)
    n_resamples = int_iv(n_resamples, "n_resamples")
    batch = int_iv(batch, "batch", allow_none=True)
    n_raw = None if clusters is None else _vector(a, "a").size
    a, b, keep = _pair_iv(a, b, missing, min_n=2, return_keep=True)
    design = None if clusters is None else _design_iv(clusters, None, n_raw, keep)
    gen, seed = rng_iv(rng)
    return a, b, n_resamples, batch, gen, seed, design


# --------------------------------------------------------------------------
# effect sizes
# --------------------------------------------------------------------------
def residual_variance(scores):
    r"""Residual variance of the two-way ANOVA without replication (topics x systems).

    Parameters
    ----------
    scores : DataFrame, array_like, ScoreTable, path, mapping or Evaluation
        Anything :func:`mrrstats.model.scoretable.as_score_table` accepts: a
        DataFrame with one row per query and one column per system, an array
        of shape ``(n_systems, n_queries)``, ... No missing values.

    Returns
    -------
    float
        :math:`V_E = \sum_{q,s}(x_{qs} - \bar x_{q\cdot} - \bar x_{\cdot s} +
        \bar x)^2 / ((n - 1)(k - 1))` for :math:`n` queries and :math:`k` systems.

    Notes
    -----
    This is the error variance Sakai uses for the effect size
    :math:`ES_E = \bar d / \sqrt{V_E}` and for topic set size design; it is
    computed over *all* systems of the experiment, not only the pair compared.

    Examples
    --------
    >>> import numpy as np, mrrstats
    >>> x = np.array([[1.0, 0.5, 0.2], [0.8, 0.6, 0.1]])   # 2 systems x 3 queries
    >>> print(round(mrrstats.residual_variance(x), 4))
    0.0117
    """
    X = _residual_variance_iv(scores)
    n, k = X.shape
    R = X - X.mean(axis=1, keepdims=True) - X.mean(axis=0, keepdims=True) + X.mean()
    return float((R**2).sum() / ((n - 1) * (k - 1)))


def _residual_variance_iv(scores):
    return as_score_table(scores, min_systems=2, min_queries=2, name="scores").values


@dataclass(frozen=True)
class EffectSizes:
    """Result of :func:`effect_sizes`.

    Attributes
    ----------
    difference : float
        Mean difference :math:`\\bar d` of ``a - b``.
    d_z : float
        :math:`\\bar d / s_d` (Cohen's :math:`d_z`, ``ddof=1``); 0 when the
        differences have no variance and are all zero, ``+-inf`` for a constant shift.
    es_e : float
        Sakai's :math:`\\bar d / \\sqrt{V_E}` (NaN unless ``residual_variance`` is given).
    wins, ties, losses : int
        Queries with :math:`d_i > \\tau`, :math:`|d_i| \\le \\tau`, :math:`d_i < -\\tau`.
    prob_superiority : float
        Paired probability of superiority :math:`(W + T/2)/n`: the chance that
        ``a`` beats ``b`` on a random query, ties counting one half.
    zero_tolerance : float
    n : int
    """

    difference: float
    d_z: float
    es_e: float
    wins: int
    ties: int
    losses: int
    prob_superiority: float
    zero_tolerance: float
    n: int


def _effect_rows(D, tol, v_e=None):
    n = D.shape[1]
    mean = D.mean(axis=1)
    sd = D.std(axis=1, ddof=1) if n > 1 else np.full(D.shape[0], np.nan)
    const = _constant_rows(D, sd) if n > 1 else np.zeros(D.shape[0], bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        dz = np.where(const, _signed_inf(mean), mean / sd)
        es = mean / np.sqrt(v_e) if v_e is not None else np.full_like(mean, np.nan)
    w, t, l_ = _win_tie_loss(D, tol)
    ps = (w + 0.5 * t) / n
    return mean, dz, es, w, t, l_, ps


def effect_sizes(a, b, *, zero_tolerance=0.0, residual_variance=None, missing="raise"):
    r"""Effect sizes of the difference ``a - b``.

    Parameters
    ----------
    a, b : array_like, 1-D
        Aligned per-query scores.
    zero_tolerance : float, keyword-only
        :math:`|d_i| \le` ``zero_tolerance`` is a tie.
    residual_variance : float, optional, keyword-only
        :math:`V_E` of the two-way ANOVA over *all* systems of the experiment
        (see :func:`mrrstats.residual_variance`); enables ``es_e``.
    missing : {"raise", "drop"}, keyword-only

    Returns
    -------
    EffectSizes

    Notes
    -----
    :math:`d_z = \bar d / s_d`; :math:`ES_E = \bar d / \sqrt{V_E}` (Sakai 2014);
    probability of superiority :math:`(W + T/2)/n` for :math:`W` wins and
    :math:`T` ties among :math:`n` queries.

    References
    ----------
    .. [1] Sakai, T. (2014). Statistical reform in information retrieval?
           SIGIR Forum 48(1).

    Examples
    --------
    >>> import mrrstats
    >>> es = mrrstats.effect_sizes([1, 0.5, 1, 1], [0.5, 0.5, 1, 0.25])
    >>> print(es.wins, es.ties, es.losses, es.prob_superiority, round(es.d_z, 3))
    2 2 0 0.75 0.833
    """
    a, b, tol, v_e = _effect_sizes_iv(a, b, zero_tolerance, residual_variance, missing)
    mean, dz, es, w, t, l_, ps = _effect_rows((a - b)[None, :], tol, v_e)
    return EffectSizes(float(mean[0]), float(dz[0]), float(es[0]), int(w[0]), int(t[0]),
                       int(l_[0]), float(ps[0]), tol, int(a.size))


def _effect_sizes_iv(a, b, zero_tolerance, residual_variance, missing):
    tol = tolerance_iv(zero_tolerance)
    if residual_variance is not None:
        try:
            v_e = float(residual_variance)
        except (TypeError, ValueError):
            raise TypeError("`residual_variance` must be a positive number") from None
        if not (v_e > 0 and math.isfinite(v_e)):
            raise ValueError(f"`residual_variance` must be positive, got {residual_variance!r}")
    else:
        v_e = None
    a, b = _pair_iv(a, b, missing, min_n=1)
    return a, b, tol, v_e


def _bootstrap_test_rows(*args, **kwargs):
    with blas_single_thread():
        return _bootstrap_test_rows_impl(*args, **kwargs)


_bootstrap_test_rows.__doc__ = _bootstrap_test_rows_impl.__doc__
