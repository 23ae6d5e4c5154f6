r"""Clustered and stratified queries: the cluster bootstrap and cluster sign flips.

Queries are often not independent: CAsT turns come in conversations, QA sets
have several questions per document, recommender data several sessions per
user. Treating them as independent mis-states the uncertainty. Here whole
clusters are resampled (the cluster bootstrap, optionally within strata) or
flipped (the paired randomization test with one sign per cluster). Both go
through the one resampling engine (:mod:`mrrstats.stats.resampling`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..validation import alternative_iv, confidence_level_iv, int_iv, missing_iv, rng_iv
from .resampling import bootstrap_sums
from .significance import ConfidenceInterval, randomization_test

__all__ = ["ClusterBootstrapResult", "cluster_bootstrap_ci", "cluster_randomization_test"]


def _labels_iv(labels, n, name):
    if labels is None:
        return None
    lab = np.asarray(labels)
    if lab.ndim != 1 or lab.size != n:
        raise ValueError(f"`{name}` must be 1-D with one label per query ({n}), got shape "
                         f"{lab.shape}")
    # codes in order of first appearance (cluster g = the g-th label met)
    _, first, codes = np.unique(lab.astype(str), return_index=True, return_inverse=True)
    remap = np.empty(first.size, dtype=np.intp)
    remap[np.argsort(first, kind="stable")] = np.arange(first.size)
    return remap[codes.ravel()]


def _pair_values(a, b, missing):
    missing = missing_iv(missing)
    a = np.asarray(a, dtype=float)
    if a.ndim != 1:
        raise ValueError("`a` must be 1-D")
    if b is None:
        x = a
    else:
        b = np.asarray(b, dtype=float)
        if b.shape != a.shape:
            raise ValueError(f"`a` and `b` must have the same length, got {a.size} and {b.size}")
        x = a - b
    keep = np.isfinite(x)
    if not keep.all() and missing == "raise":
        raise ValueError("`a`/`b` have missing values; pass missing='drop' to drop those queries")
    return x, keep


@dataclass(frozen=True)
class ClusterBootstrapResult:
    """Result of :func:`cluster_bootstrap_ci`.

    Attributes
    ----------
    statistic : float
        Mean of ``a`` (or of ``a - b``) over all queries.
    low, high : float
        Percentile interval.
    standard_error : float
        Standard deviation of the bootstrap distribution.
    bootstrap_distribution : ndarray
        The resampled means (sorted).
    n_clusters, n : int
    confidence_level : float
    seed : int or None
    """

    statistic: float
    low: float
    high: float
    standard_error: float
    bootstrap_distribution: np.ndarray = field(repr=False)
    n_clusters: int
    n: int
    confidence_level: float
    seed: int | None

    def confidence_interval(self):
        return ConfidenceInterval(self.low, self.high, self.confidence_level,
                                  "cluster bootstrap percentile")


def cluster_bootstrap_ci(a, b=None, *, clusters, strata=None, confidence_level=0.95,
                         n_resamples=10000, batch=None, missing="raise", rng=None):
    r"""Cluster bootstrap interval for a mean or a paired mean difference.

    Parameters
    ----------
    a : array_like, 1-D
        Per-query scores.
    b : array_like, 1-D, optional
        Per-query scores of a second system on the same queries (interval for
        the mean of ``a - b``).
    clusters : array_like, 1-D, keyword-only
        Cluster label of each query (e.g. the conversation of a CAsT turn).
        Singleton clusters give the ordinary (query) bootstrap.
    strata : array_like, 1-D, optional, keyword-only
        Stratum label of each query (constant within a cluster): clusters are
        resampled within each stratum, keeping the stratum sizes.
    confidence_level : float, keyword-only
    n_resamples : int, keyword-only
    batch : int or None, keyword-only
        Resamples held in memory at once (does not change the result).
    missing : {"raise", "drop"}, keyword-only
    rng : None, int or numpy.random.Generator, keyword-only

    Returns
    -------
    ClusterBootstrapResult

    Notes
    -----
    With cluster totals :math:`S_g = \sum_{i \in g} x_i`, sizes :math:`n_g`
    and multinomial cluster counts :math:`c_g` of a resample, the resampled
    mean is the ratio :math:`\sum_g c_g S_g / \sum_g c_g n_g` (Davison &
    Hinkley 1997, 3.8; Field & Welsh 2007). The interval is the percentile
    interval. Strata are resampled independently (stratum by stratum, each
    with its own :math:`B` resamples, so the result does not depend on
    ``batch``).

    References
    ----------
    .. [1] Davison, A. C. and Hinkley, D. V. (1997). Bootstrap Methods and
           their Application, Section 3.8. Cambridge University Press.
    .. [2] Field, C. A. and Welsh, A. H. (2007). Bootstrapping clustered
           data. JRSS B 69(3), 369-390.

    Examples
    --------
    >>> import numpy as np, mrrstats
    >>> a = [1, 0.5, 1, 0.25, 1, 0.33, 0.2, 1]
    >>> conv = [1, 1, 1, 2, 2, 3, 3, 3]
    >>> res = mrrstats.cluster_bootstrap_ci(a, clusters=conv, rng=1)
    >>> print(res.n_clusters, round(res.statistic, 4), res.low < res.statistic < res.high)
    3 0.66 True
    """
    x, keep = _pair_values(a, b, missing)
    n_all = x.size
    cl_codes = _labels_iv(clusters, n_all, "clusters")
    if cl_codes is None:
        raise ValueError("`clusters` is required")
    st_codes = _labels_iv(strata, n_all, "strata")
    x, cl_codes = x[keep], cl_codes[keep]
    if st_codes is not None:
        st_codes = st_codes[keep]
    cl = confidence_level_iv(confidence_level)
    n_resamples = int_iv(n_resamples, "n_resamples")
    batch = int_iv(batch, "batch", allow_none=True)
    gen, seed = rng_iv(rng)
    n = x.size
    if n < 2:
        raise ValueError("need at least 2 queries")
    G = int(cl_codes.max()) + 1
    S = np.bincount(cl_codes, weights=x, minlength=G)
    sizes = np.bincount(cl_codes, minlength=G).astype(float)
    present = sizes > 0
    S, sizes = S[present], sizes[present]
    if st_codes is None:
        groups = [np.arange(S.size)]
    else:
        # stratum of each cluster (must be constant within a cluster)
        st_of = np.full(G, -1)
        for c, s in zip(cl_codes, st_codes, strict=True):
            if st_of[c] not in (-1, s):
                raise ValueError("`strata` must be constant within each cluster")
            st_of[c] = s
        st_of = st_of[present]
        groups = [np.flatnonzero(st_of == h) for h in np.unique(st_of)]
    tot = np.zeros(n_resamples)
    cnt = np.zeros(n_resamples)
    for g in groups:
        sums = bootstrap_sums(np.vstack([S[g], sizes[g]]), n_resamples, batch, gen)
        tot += sums[0]
        cnt += sums[1]
    dist = np.sort(tot / cnt)
    alpha = 1 - cl
    low, high = np.quantile(dist, [alpha / 2, 1 - alpha / 2])
    dist.flags.writeable = False
    return ClusterBootstrapResult(float(x.mean()), float(low), float(high),
                                  float(dist.std(ddof=1)), dist, int(S.size), n, cl, seed)


def cluster_randomization_test(a, b, *, clusters, alternative="two-sided", n_resamples=10000,
                               exact=None, batch=None, missing="raise", rng=None):
    r"""Paired randomization test with one sign flip per cluster.

    Under the null hypothesis that the two systems are exchangeable within
    every cluster (a whole conversation, say), the sign of each cluster's
    total difference :math:`D_g = \sum_{i \in g} (a_i - b_i)` is equally
    likely to be + or -. The statistic :math:`\sum_g s_g D_g / n` is the mean
    difference for the observed signs.

    Parameters
    ----------
    a, b : array_like, 1-D
        Aligned per-query scores.
    clusters : array_like, 1-D, keyword-only
        Cluster label of each query.
    alternative, n_resamples, exact, batch, missing, rng : keyword-only
        As in :func:`mrrstats.randomization_test` (``exact`` enumerates all
        :math:`2^G` cluster sign patterns).

    Returns
    -------
    RandomizationTestResult
        Of :func:`mrrstats.randomization_test` applied to the cluster totals
        (its ``statistic`` is the mean of the :math:`D_g`; the p-value is that
        of the per-query mean difference, which is proportional).

    Examples
    --------
    >>> import mrrstats
    >>> a = [1, 0.5, 1, 0.25, 1, 0.33, 0.2, 1]
    >>> b = [0.5, 0.5, 0.2, 0.25, 0.5, 0.33, 0.2, 0.5]
    >>> res = mrrstats.cluster_randomization_test(a, b, clusters=[1, 1, 1, 2, 2, 3, 3, 3])
    >>> print(res.pvalue)
    0.25
    """
    x, keep = _pair_values(a, b, missing)
    codes = _labels_iv(clusters, x.size, "clusters")
    if codes is None:
        raise ValueError("`clusters` is required")
    alternative_iv(alternative)
    x, codes = x[keep], codes[keep]
    G = int(codes.max()) + 1
    D = np.bincount(codes, weights=x, minlength=G)
    D = D[np.bincount(codes, minlength=G) > 0]
    return randomization_test(D, np.zeros_like(D), alternative=alternative,
                              n_resamples=n_resamples, exact=exact, batch=batch, rng=rng)
