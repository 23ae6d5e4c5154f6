r"""The paired bootstrap: intervals for a mean or a mean difference, and the test.

* :func:`bootstrap_ci` -- percentile, basic and BCa intervals for the mean of
  one system or the mean difference of two (queries resampled in pairs;
  clusters and strata; the multinomial or the Poisson scheme).
* :func:`bootstrap_test` -- the studentized (default) and shift bootstrap tests
  of the mean difference, with the interval that inverts them.
* :func:`bootstrap_ci_blocks` -- the Poisson interval from blocks of queries
  (:mod:`mrrstats.stats.blocked`).

Results keep their evidence, as scipy's do: :class:`BootstrapCIResult` its
``bootstrap_distribution``, :class:`BootstrapTestResult` its ``null_distribution``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..defaults import default_bootstrap_method
from ..deprecation import renamed_attribute
from ..errors import ParameterError
from ..options import BOOTSTRAP_CI_METHODS
from ..validation import (
    alternative_iv,
    confidence_level_iv,
    int_iv,
    missing_iv,
    n_resamples_iv,
    rng_iv,
    scheme_iv,
    workers_iv,
)
from .designs import cluster_acceleration, cluster_bootstrap_rows, design_iv, design_sums
from .intervals import (
    ConfidenceInterval,
    acceleration_from_sums,
    accept_count,
    bootstrap_interval,
    jackknife_acceleration,
    level_iv,
    quantile_rows,
)
from .methods import MethodsText, methods_text
from .pairs import device_pair, pair_iv, vector_iv
from .resampling import (
    PairwiseSum,
    array_namespace_of,
    bootstrap_sums,
    bootstrap_sums_xp,
    poisson_bootstrap_blocked,
    poisson_bootstrap_sums,
)
from .rows import bootstrap_test_rows

if TYPE_CHECKING:
    from typing import Literal

    from numpy.typing import ArrayLike

    from .._typing import Alternative, Missing, Seed

__all__ = ["BootstrapCIResult", "BootstrapTestResult", "bootstrap_ci", "bootstrap_test",
           "bootstrap_ci_blocks", "poisson_means", "BOOTSTRAP_CI_METHODS"]



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
        Default interval method (``"bca"``, ``"percentile"``, ``"basic"``, ``"normal"``
        or ``"studentized"``).
    confidence_level : float
        Default confidence level.
    alternative : str
    n_resamples, n_queries : int
    seed : int or None
    n_clusters : int or None
        Number of clusters resampled as units (``clusters=`` or ``strata=``);
        None for the plain query bootstrap.
    scheme : str
        ``"multinomial"`` or ``"poisson"`` (see :func:`bootstrap_ci`).
    studentized_distribution : ndarray or None
        The :math:`B` studentized replicates :math:`t^*_b` (sorted), kept when
        ``method="studentized"``; None otherwise.

    Methods
    -------
    confidence_interval(confidence_level=None, *, method=None)
        The interval from the stored distribution (at another level or by another
        method when given).
    to_frame()
        One row: the statistic, its standard error and the interval.
    """

    statistic: float
    standard_error: float
    _bootstrap_distribution: np.ndarray = field(repr=False)
    acceleration: float
    method: str
    confidence_level: float
    alternative: str
    n_resamples: int
    n_queries: int
    seed: int | None
    n_clusters: int | None = None
    scheme: str = "multinomial"
    _studentized_distribution: np.ndarray | None = field(repr=False, default=None)
    _se_hat: float = field(repr=False, default=math.nan)

    n = renamed_attribute("n_queries")

    def methods(self) -> MethodsText:
        """The methods paragraph and its references (:mod:`mrrstats.stats.methods`)."""
        return methods_text(self)

    def __post_init__(self):
        self._bootstrap_distribution.flags.writeable = False
        if self._studentized_distribution is not None:
            self._studentized_distribution.flags.writeable = False

    @property
    def studentized_distribution(self) -> np.ndarray | None:
        """The sorted studentized replicates (``method="studentized"``), else None."""
        return self._studentized_distribution

    @property
    def bootstrap_distribution(self) -> np.ndarray:
        """The :math:`B` resampled means, sorted ascending (read-only)."""
        return self._bootstrap_distribution

    def confidence_interval(self, confidence_level: float | None = None, *,
                            method: Literal["bca", "percentile", "basic", "normal",
                                            "studentized"] | None = None
                            ) -> ConfidenceInterval:
        """Interval from the stored bootstrap distribution.

        Parameters
        ----------
        confidence_level : float, optional
            Defaults to the level passed to :func:`bootstrap_ci`.
        method : {"bca", "percentile", "basic", "normal", "studentized"}, optional
            Defaults to the method passed to :func:`bootstrap_ci`;
            ``"studentized"`` only for a result made with it.
        """
        cl = level_iv(confidence_level, self.confidence_level)
        method = self.method if method is None else method
        if not isinstance(method, str | None) or method not in BOOTSTRAP_CI_METHODS:
            raise ParameterError(
                f"`method` must be one of {BOOTSTRAP_CI_METHODS}, got {method!r}")
        if method == "studentized":
            tdist = self._studentized_distribution
            if tdist is None:
                raise ParameterError("`method='studentized'` needs the studentized replicates: "
                                     "call bootstrap_ci(..., method='studentized')")
            low, high = studentized_interval(self.statistic, self.standard_error_of_mean,
                                             tdist, cl, self.alternative)
            return ConfidenceInterval(low, high, cl, method)
        low, high = bootstrap_interval(np.array([self.statistic]),
                                        self.bootstrap_distribution[None, :],
                                        np.array([self.acceleration]), method, cl,
                                        self.alternative)
        return ConfidenceInterval(float(low[0]), float(high[0]), cl, method)

    @property
    def standard_error_of_mean(self) -> float:
        """The plug-in :math:`s/\\sqrt n` of the studentized interval (NaN without it)."""
        return self._se_hat if self._studentized_distribution is not None else math.nan

    def to_frame(self) -> pd.DataFrame:
        """One row: ``statistic``, ``standard_error``, ``ci_low``, ``ci_high``,
        ``confidence_level``, ``method``, ``acceleration``, the sizes and ``seed``."""
        ci = self.confidence_interval()
        return pd.DataFrame([{"statistic": self.statistic,
                              "standard_error": self.standard_error, "ci_low": ci.low,
                              "ci_high": ci.high, "confidence_level": ci.confidence_level,
                              "method": self.method, "acceleration": self.acceleration,
                              "alternative": self.alternative, "n_queries": self.n_queries,
                              "n_clusters": self.n_clusters, "n_resamples": self.n_resamples,
                              "scheme": self.scheme, "seed": self.seed}])


def bootstrap_ci(a: ArrayLike, b: ArrayLike | None = None, *,
                 method: Literal["bca", "percentile", "basic", "normal",
                                 "studentized"] | None = None,
                 confidence_level: float = 0.95, alternative: Alternative = "two-sided",
                 n_resamples: int = 10000, clusters: ArrayLike | None = None,
                 strata: ArrayLike | None = None, batch: int | None = None,
                 missing: Missing = "raise",
                 scheme: Literal["multinomial", "poisson"] = "multinomial", workers: int = -1,
                 rng: Seed = None) -> BootstrapCIResult:
    r"""Bootstrap confidence interval for a mean (MRR) or a paired mean difference.

    Parameters
    ----------
    a : array_like, 1-D
        Per-query scores of a system.
    b : array_like, 1-D, optional
        Per-query scores of a second system on the same queries: the interval
        is then for the mean of ``a - b`` (queries resampled in pairs).
    method : {"bca", "percentile", "basic", "normal", "studentized"} or None, keyword-only
        The interval; ``"normal"`` and ``"studentized"`` (bootstrap-t) as R's
        ``boot.ci`` ``type="norm"`` and ``"stud"`` (see Notes). ``"studentized"``
        needs the multinomial scheme without ``clusters``/``strata``. ``None``
        (default): ``"studentized"`` (:data:`mrrstats.defaults.BOOTSTRAP_METHOD`),
        the closest to nominal coverage at 25 topics on real TREC pairs
        (``benchmarks/results_validity.md``: 0.936 against BCa's 0.914), and BCa
        (:data:`mrrstats.defaults.BOOTSTRAP_METHOD_FALLBACK`) with ``clusters``,
        ``strata`` or ``scheme="poisson"`` (:func:`mrrstats.defaults.default_bootstrap_method`).
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
    the resamples. Two more, as R's ``boot.ci`` (Davison & Hinkley 1997, 5.2):

    * normal: :math:`2\hat\theta - \bar\theta^* \mp z_{1-\alpha} s^*`, the
      bias-corrected normal interval, :math:`s^*` the standard deviation
      (ddof=1) of the :math:`\hat\theta^*_b` (``type="norm"``);
    * studentized (bootstrap-t): with :math:`\hat\sigma = s/\sqrt n` (the
      sample standard deviation of the scores or differences) and the same
      :math:`\hat\sigma^*_b` of each resample, :math:`t^*_b =
      (\hat\theta^*_b - \hat\theta)/\hat\sigma^*_b` and the interval
      :math:`[\hat\theta - \hat\sigma\, q_t(1-\alpha), \hat\theta -
      \hat\sigma\, q_t(\alpha)]` (``type="stud"`` with the statistic
      returning the mean and :math:`\hat\sigma^2`). A resample of identical
      values has :math:`\hat\sigma^*_b = 0`: its :math:`t^*_b` is
      :math:`\pm\infty` (0 when it equals :math:`\hat\theta`). :math:`q_t` is
      the linear-interpolation quantile, as for the other methods; ``boot.ci``
      interpolates on the normal scale between order statistics instead, so
      the two differ by less than one spacing of the :math:`t^*_b`.

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
    >>> low, high = res.confidence_interval()  # studentized (bootstrap-t), the default
    >>> print(round(low, 4), round(high, 4))
    0.3996 0.8837

    The same scores as turns of four conversations (whole conversations
    resampled):

    >>> conv = [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4]
    >>> res = mrrstats.bootstrap_ci(rr, clusters=conv, method="percentile", rng=1)
    >>> print(res.n_clusters, round(res.statistic, 4))
    4 0.6569
    """
    a, b, device_x = device_pair(a, b)
    x, method, cl, n_resamples, batch, gen, seed, design = _bootstrap_ci_iv(
        a, b, method, confidence_level, alternative, n_resamples, clusters, strata, batch,
        missing, rng)
    scheme = scheme_iv(scheme)
    workers = workers_iv(workers)
    n = x.size
    if method is None:
        method = default_bootstrap_method(scheme == "multinomial" and design is None)
    if method == "studentized":
        if scheme == "poisson" or design is not None:
            raise ParameterError("`method='studentized'` needs scheme='multinomial' without "
                                 "`clusters` or `strata`")
        sums = bootstrap_sums(np.vstack([x, x * x]), n_resamples, batch, gen, workers)
        means = sums[0] / n
        theta = float(x.mean())
        se_hat = float(x.std(ddof=1)) / math.sqrt(n)
        var_star = np.maximum(sums[1] - n * means * means, 0.0) / (n - 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            tstar = (means - theta) / np.sqrt(var_star / n)
        tstar[np.isnan(tstar)] = 0.0
        dist = np.sort(means)
        accel = float(jackknife_acceleration(x[None, :])[0])
        se = float(dist.std(ddof=1)) if n_resamples > 1 else math.nan
        return BootstrapCIResult(theta, se, dist, accel, method, cl, alternative, n_resamples,
                                 n, seed, None, "multinomial", np.sort(tstar), se_hat)
    if scheme == "poisson":
        if design is not None:
            raise ParameterError("scheme='poisson' resamples queries, not clusters or strata; "
                             "use scheme='multinomial' with `clusters`/`strata`")
        sums, wsum = poisson_bootstrap_sums(x, n_resamples, gen, workers=workers)
        dist = np.sort(poisson_means(sums[0], wsum, n))
        accel = float(jackknife_acceleration(x[None, :])[0])
        se = float(dist.std(ddof=1)) if n_resamples > 1 else math.nan
        return BootstrapCIResult(float(x.mean()), se, dist, accel, method, cl, alternative,
                                 n_resamples, n, seed, None, "poisson")
    xd = device_x(n)
    if design is None and xd is not None:  # resampled where the scores live
        sums = bootstrap_sums_xp(xd, n_resamples, batch, gen, xp=array_namespace_of(xd))
        dist = np.sort(sums[0] / n)
        accel = float(jackknife_acceleration(x[None, :])[0])
        G = None
    elif design is None:
        dist = np.sort(bootstrap_sums(x[None, :], n_resamples, batch, gen, workers)[0] / n)
        accel = float(jackknife_acceleration(x[None, :])[0])
        G = None
    else:
        Y = np.vstack([design.totals(x), design.sizes.astype(np.float64)])
        tot, cnt = design_sums(Y, design, n_resamples, batch, gen, workers)
        dist = np.sort(tot / cnt)
        accel = cluster_acceleration(x, design)
        G = design.n_clusters
    se = float(dist.std(ddof=1)) if n_resamples > 1 else math.nan
    return BootstrapCIResult(float(x.mean()), se, dist, accel, method, cl, alternative,
                             n_resamples, n, seed, G)


def studentized_interval(theta, se_hat, sorted_t, cl, alternative):
    """The bootstrap-t interval from sorted studentized replicates. Returns (low, high)."""
    alpha = (1.0 - cl) / 2.0 if alternative == "two-sided" else 1.0 - cl
    q = quantile_rows(np.asarray(sorted_t, dtype=np.float64)[None, :],
                      np.array([[alpha, 1.0 - alpha]]))[0]
    low, high = theta - se_hat * float(q[1]), theta - se_hat * float(q[0])
    if se_hat == 0:
        low = high = theta
    if alternative == "less":
        low = -math.inf
    elif alternative == "greater":
        high = math.inf
    return float(low), float(high)


def _bootstrap_ci_iv(a, b, method, confidence_level, alternative, n_resamples, clusters,
                     strata, batch, missing, rng):
    if method is not None and (not isinstance(method, str) or
                               method not in BOOTSTRAP_CI_METHODS):
        raise ParameterError(
            f"`method` must be one of {BOOTSTRAP_CI_METHODS}, got {method!r}")
    cl = confidence_level_iv(confidence_level)
    alternative_iv(alternative)
    n_resamples = n_resamples_iv(n_resamples)
    batch = int_iv(batch, "batch", allow_none=True)
    if b is None:
        missing_iv(missing)
        x = vector_iv(a, "a")
        keep = ~np.isnan(x)
        if not keep.all():
            if missing == "raise":
                raise ParameterError("`a` has a missing value (NaN); pass missing='drop' to "
                                 "drop such queries")
            x = x[keep]
        if np.isinf(x).any():
            raise ParameterError("`a` must be finite")
        if x.size < 2:
            raise ParameterError(f"`a` needs at least 2 queries, got {x.size}")
    else:
        a, b, keep = pair_iv(a, b, missing, min_n=2, return_keep=True)
        x = a - b
    design = design_iv(clusters, strata, keep.size, keep)
    gen, seed = rng_iv(rng)
    return x, method, cl, n_resamples, batch, gen, seed, design


def poisson_means(sums, wsum, n):
    """Poisson-bootstrap means ``sums / wsum``; an error if a resample weighs no query."""
    empty = int((wsum == 0).sum())
    if empty:
        raise ParameterError(f"the Poisson bootstrap drew {empty} resample(s) in which every "
                         f"query has weight 0 (probability e**-n each, n = {n}); use "
                         "scheme='multinomial' for so few queries")
    return sums / wsum


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


_BOOT_TESTS = ("shift", "studentized")


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
    difference : float
        Mean difference :math:`\\bar d` of ``a - b``.
    method : str
    alternative : str
    n_resamples, n_queries : int
    seed : int or None
    null_distribution : ndarray
        The :math:`B` null statistics in draw order: the centred resample means
        :math:`\\bar z^*_b` (``"shift"``) or :math:`t^*_b` (``"studentized"``;
        ``+-inf`` for a resample without variance). ``8 B`` bytes (80 KB at
        the default ``B``).
    standard_error : float
        :math:`s_d/\\sqrt n`, the scale of the studentized statistic (with
        ``clusters``, the cluster-robust standard error of the mean, see
        :func:`bootstrap_test`).
    n_clusters : int or None
        Number of clusters resampled as units; None without ``clusters``.

    Methods
    -------
    confidence_interval(confidence_level=0.95)
        The shifts the same test does not reject, from the same resamples.
    to_frame()
        One row: the test, its interval and its settings.
    """

    statistic: float
    pvalue: float
    pvalue_se: float
    difference: float
    method: str
    alternative: str
    n_resamples: int
    n_queries: int
    seed: int | None
    _null_distribution: np.ndarray | None = field(default=None, repr=False, compare=False)
    standard_error: float = math.nan
    n_clusters: int | None = None

    mean_difference = renamed_attribute("difference")
    std_error = renamed_attribute("standard_error")
    n = renamed_attribute("n_queries")

    def methods(self) -> MethodsText:
        """The methods paragraph and its references (:mod:`mrrstats.stats.methods`)."""
        return methods_text(self)

    @property
    def null_distribution(self) -> np.ndarray:
        """The :math:`B` null statistics in draw order (read-only; see the class docstring)."""
        return self._null_distribution  # type: ignore[return-value]  # set by bootstrap_test

    def confidence_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
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
            raise ParameterError("this result carries no null distribution")
        null = np.asarray(self.null_distribution)
        B = null.size
        k = accept_count(1.0 - cl, B, False)
        scale = self.standard_error if self.method == "studentized" else 1.0
        name = ("bootstrap-t inversion" if self.method == "studentized"
                else "shift-bootstrap inversion")
        m = self.difference
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

    def to_frame(self) -> pd.DataFrame:
        """One row: ``test``, ``statistic``, ``pvalue``, ``pvalue_se``, ``difference``,
        ``standard_error``, the 95% interval, the settings and ``seed``."""
        ci = self.confidence_interval()
        return pd.DataFrame([{"test": "bootstrap", "method": self.method,
                              "statistic": self.statistic, "pvalue": self.pvalue,
                              "pvalue_se": self.pvalue_se, "difference": self.difference,
                              "standard_error": self.standard_error, "ci_low": ci.low,
                              "ci_high": ci.high, "confidence_level": ci.confidence_level,
                              "alternative": self.alternative, "n_queries": self.n_queries,
                              "n_clusters": self.n_clusters, "n_resamples": self.n_resamples,
                              "seed": self.seed}])


def bootstrap_test(a: ArrayLike, b: ArrayLike, *,
                   method: Literal["studentized", "shift"] = "studentized",
                   alternative: Alternative = "two-sided", n_resamples: int = 10000,
                   clusters: ArrayLike | None = None, batch: int | None = None,
                   missing: Missing = "raise", workers: int = -1,
                   rng: Seed = None) -> BootstrapTestResult:
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
    >>> print(0 < low < res.difference < high)
    True
    """
    a, b, n_resamples, batch, gen, seed, design = _bootstrap_test_iv(
        a, b, method, alternative, n_resamples, clusters, batch, missing, rng)
    workers = workers_iv(workers)
    D = (a - b)[None, :]
    if design is None:
        stat, p, se, null = bootstrap_test_rows(D, alternative, method, n_resamples, batch,
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

    Returns ``(statistic, pvalue, pvalue_se, null, standard_error)``.
    """
    stat, p, se_p, null, se = cluster_bootstrap_rows(d[None, :], design, alternative, method,
                                                     n_resamples, batch, gen, keep=True,
                                                     workers=workers)
    return float(stat[0]), float(p[0]), float(se_p[0]), null, float(se[0])


def _bootstrap_test_iv(a, b, method, alternative, n_resamples, clusters, batch, missing, rng):
    if not isinstance(method, str | None) or method not in _BOOT_TESTS:
        raise ParameterError(f"`method` must be one of {_BOOT_TESTS}, got {method!r}")
    alternative_iv(alternative)
    n_resamples = n_resamples_iv(n_resamples)
    batch = int_iv(batch, "batch", allow_none=True)
    n_raw = None if clusters is None else vector_iv(a, "a").size
    a, b, keep = pair_iv(a, b, missing, min_n=2, return_keep=True)
    design = None if clusters is None else design_iv(clusters, None, n_raw, keep)
    gen, seed = rng_iv(rng)
    return a, b, n_resamples, batch, gen, seed, design
