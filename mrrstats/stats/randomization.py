r"""Fisher's paired randomization (sign-flip) test, with its interval.

:func:`randomization_test` compares the observed mean difference of two
systems with its distribution over random sign flips of the per-query
differences (exact for few queries, Monte Carlo otherwise), optionally with
whole clusters of queries flipped together. The resampling runs on the one
engine (:mod:`mrrstats.stats.resampling`): the same seed gives the same
result for every ``batch`` size, thread count and device.
:func:`randomization_test_blocks` gives the same result from blocks of
queries (:mod:`mrrstats.stats.blocked`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..deprecation import renamed_attribute
from ..errors import ParameterError, ParameterTypeError
from ..validation import (
    alternative_iv,
    confidence_level_iv,
    int_iv,
    n_resamples_iv,
    rng_iv,
    workers_iv,
)
from .designs import design_iv
from .intervals import ConfidenceInterval, signflip_interval
from .methods import MethodsText, methods_text
from .pairs import device_pair, pair_iv, vector_iv
from .resampling import mc_se, signflip_counts_blocked, signflip_null, use_exact
from .rows import signflip_pvalues

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import Alternative, Missing, Seed

__all__ = ["RandomizationTestResult", "randomization_test", "randomization_test_blocks"]


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
    n_queries : int
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
    to_frame()
        One row: the test, its 95% interval and its settings.
    """

    statistic: float
    pvalue: float
    pvalue_se: float
    exact: bool
    n_resamples: int
    n_queries: int
    alternative: str
    seed: int | None
    _differences: np.ndarray | None = field(default=None, repr=False, compare=False)
    _sums: np.ndarray | None = field(default=None, repr=False, compare=False)
    _kept: np.ndarray | None = field(default=None, repr=False, compare=False)
    n_clusters: int | None = None  # after the private fields: positional calls keep working
    _sizes: np.ndarray | None = field(default=None, repr=False, compare=False)
    _dsum: float | None = field(default=None, repr=False, compare=False)

    n = renamed_attribute("n_queries")

    def methods(self) -> MethodsText:
        """The methods paragraph and its references (:mod:`mrrstats.stats.methods`)."""
        return methods_text(self)

    def _null(self):
        if self._sums is not None:
            return self._sums, self._kept
        if self._differences is None:
            raise ParameterError("this result carries no null distribution (it was built "
                             "without the per-query differences)")
        # exact: a function of the data; computed once
        u = self._differences.size
        if u > 26:
            raise ParameterError(f"the exact null distribution of {u} units has "
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
        out = sums / self.n_queries
        out.flags.writeable = False
        return out

    def confidence_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
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
        dsum = (self._dsum if self._dsum is not None
                else float(np.sum(self._differences)))  # type: ignore[arg-type]
        low, high = signflip_interval(dsum, sums, kept, self.exact, self.alternative, cl,
                                      self.n_queries)
        return ConfidenceInterval(low, high, cl, "sign-flip inversion")

    def to_frame(self) -> pd.DataFrame:
        """One row: ``test``, ``statistic``, ``pvalue``, ``pvalue_se``, the 95% interval,
        ``exact``, the sizes, ``alternative`` and ``seed``."""
        ci = self.confidence_interval()
        return pd.DataFrame([{"test": "randomization", "statistic": self.statistic,
                              "pvalue": self.pvalue, "pvalue_se": self.pvalue_se,
                              "ci_low": ci.low, "ci_high": ci.high,
                              "confidence_level": ci.confidence_level, "exact": self.exact,
                              "alternative": self.alternative, "n_queries": self.n_queries,
                              "n_clusters": self.n_clusters, "n_resamples": self.n_resamples,
                              "seed": self.seed}])


def randomization_test(a: ArrayLike, b: ArrayLike, *, alternative: Alternative = "two-sided",
                       n_resamples: int = 10000, exact: bool | None = None,
                       clusters: ArrayLike | None = None, batch: int | None = None,
                       missing: Missing = "raise", workers: int = -1,
                       rng: Seed = None) -> RandomizationTestResult:
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
    a, b, device_d = device_pair(a, b)
    a, b, n_resamples, batch, gen, seed, design = _randomization_test_iv(
        a, b, alternative, n_resamples, exact, clusters, batch, missing, rng)
    workers = workers_iv(workers)
    d = a - b
    if design is None:
        D, sizes, G = d[None, :], None, None
    else:
        D, sizes, G = design.totals(d)[None, :], design.sizes, design.n_clusters
    p, se, total, used_exact, (sums, kept) = signflip_pvalues(
        D, alternative, n_resamples=n_resamples, exact=exact, batch=batch, gen=gen, keep=True,
        weights=sizes, device_D=device_d(a.size) if design is None else None, workers=workers)
    units = D[0].copy()
    units.flags.writeable = False
    return RandomizationTestResult(float(d.mean()), float(p[0]), float(se[0]), used_exact,
                                   int(total), int(a.size), alternative, seed, n_clusters=G,
                                   _differences=units, _sums=sums, _kept=kept, _sizes=sizes)


def _randomization_test_iv(a, b, alternative, n_resamples, exact, clusters, batch, missing,
                           rng):
    alternative_iv(alternative)
    n_resamples = n_resamples_iv(n_resamples)
    if exact is not None and not isinstance(exact, bool | np.bool_):
        raise ParameterTypeError(f"`exact` must be None, True or False, got {exact!r}")
    batch = int_iv(batch, "batch", allow_none=True)
    n_raw = None if clusters is None else vector_iv(a, "a").size
    a, b, keep = pair_iv(a, b, missing, min_n=1, return_keep=True)
    design = None if clusters is None else design_iv(clusters, None, n_raw, keep)
    units = a.size if design is None else design.n_clusters
    if exact and units > 30:
        raise ParameterError(f"`exact` enumeration of 2**{units} sign vectors is too large; "
                         "use exact=None or False for more than 30 queries (clusters)")
    gen, seed = rng_iv(rng)
    return a, b, n_resamples, batch, gen, seed, design


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
