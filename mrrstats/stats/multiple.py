r"""Many systems: the named family-wise procedures, and the stable import path.

* :func:`randomized_tukey_hsd` -- topic-blocked randomised Tukey HSD
  (Carterette 2012): permute system labels within each query; the null of the
  largest mean difference over all pairs.
* :func:`westfall_young` -- step-down max-T (Westfall & Young 1993) on the
  same within-query permutations.
* :func:`anova_tukey_hsd` -- the parametric blocked alternative: two-way ANOVA
  residual variance and the studentised range.

Each is :func:`mrrstats.pairwise_tests` with its ``test``. The pieces live in
modules named for what they hold, and their names stay importable from here:
:mod:`~mrrstats.stats.pairwise` (:func:`pairwise_tests`),
:mod:`~mrrstats.stats.pairwise_result` (:class:`PairwiseResult`),
:mod:`~mrrstats.stats.corrections` (:func:`adjust_pvalues`, the intervals of the
corrections), :mod:`~mrrstats.stats.familywise` (the permutation, ANOVA and Dunnett
cores) and :mod:`~mrrstats.stats.discriminative` (:func:`discriminative_power`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..defaults import ALPHA, CONFIDENCE_LEVEL, MISSING, N_RESAMPLES, WORKERS
from ..deprecation import renamed_parameters
from .corrections import adjust_pvalues, ci_excludes_zero
from .discriminative import DiscriminativePowerResult, discriminative_power
from .familywise import studentized_range_sf
from .pairwise import pairwise_tests, pairwise_tests_in_family
from .pairwise_result import PairwiseResult
from .registry import TEST_NAMES

if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, Literal

    from numpy.typing import ArrayLike

    from .._typing import Missing, Scores, Seed

__all__ = [
    "PairwiseResult",
    "DiscriminativePowerResult",
    "pairwise_tests",
    "randomized_tukey_hsd",
    "westfall_young",
    "anova_tukey_hsd",
    "discriminative_power",
]

#: every test name of :func:`pairwise_tests` (read from the registry)
TESTS = TEST_NAMES
# names other modules import from here
_REEXPORTED = (adjust_pvalues, ci_excludes_zero, pairwise_tests_in_family, studentized_range_sf)


@renamed_parameters(zero_tolerance="atol")
def randomized_tukey_hsd(scores: Scores, *, alpha: float = ALPHA, n_resamples: int = N_RESAMPLES,
                         confidence_level: float = CONFIDENCE_LEVEL, atol: float = 0.0,
                         clusters: ArrayLike | None = None, batch: int | None = None,
                         missing: Missing = MISSING, workers: int = WORKERS,
                         rng: Seed = None) -> PairwiseResult:
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
    atol : float, keyword-only
        For wins/ties/losses (:math:`|d| \le` ``atol`` is a tie).
    clusters : array_like or mapping, optional, keyword-only
        Cluster label of each query: one permutation of the systems per cluster,
        applied to all its queries (see :func:`pairwise_tests`).
    batch : int or None, keyword-only
        Permutations held in memory at once (does not change results).
    missing : {"raise", "drop"}, keyword-only
    workers : int, keyword-only
        Threads (-1: all cores); the results never depend on it.
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
                          confidence_level=confidence_level, atol=atol, clusters=clusters,
                          batch=batch, missing=missing, workers=workers, rng=rng)


@renamed_parameters(zero_tolerance="atol")
def westfall_young(scores: Scores, *, statistic: Literal["mean", "t"] = "mean",
                   alpha: float = ALPHA, n_resamples: int = N_RESAMPLES,
                   confidence_level: float = CONFIDENCE_LEVEL, atol: float = 0.0,
                   ci: Literal["simultaneous", "consistent", "none"] | None = None,
                   control: str | int | None = None,
                   clusters: ArrayLike | Mapping[str, Any] | None = None, batch: int | None = None,
                   missing: Missing = MISSING, workers: int = WORKERS,
                   rng: Seed = None) -> PairwiseResult:
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
    alpha, n_resamples, confidence_level, atol, clusters, batch, missing, workers, rng
        As in :func:`randomized_tukey_hsd`.
    ci : {"simultaneous", "consistent", "none"} or None, keyword-only
        ``"simultaneous"`` (default, ``None``): the single-step intervals ``d +/- c
        se`` of the same permutation null (``"maxt-single-step"``), finite and
        simultaneous; the step-down may reject a pair whose interval contains 0
        (``reject_beyond_ci``). ``"consistent"``: intervals that agree with the
        step-down decisions (``ci_method="maxt-step-down"``; a rejected pair gets
        the open directional statement ``(0, inf)`` or ``(-inf, 0)``).
    control : str or int, optional, keyword-only
        Compare every system with this one only (many-to-one step-down max-T over
        the :math:`k - 1` comparisons; see :func:`pairwise_tests`).

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
    Algorithm 2.8). The intervals are the single-step ones, :math:`\bar d \pm
    c\,\mathrm{se}` with :math:`c` the cut-off of :math:`u_{b,1}` that the p-values
    use; ``ci="consistent"`` follows Strassburger & Bretz (2008) for the step-down.

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
                          confidence_level=confidence_level, atol=atol, control=control,
                          clusters=clusters, batch=batch, missing=missing,
                          test_options={"statistic": statistic}, ci=ci, workers=workers,
                          rng=rng)


@renamed_parameters(zero_tolerance="atol")
def anova_tukey_hsd(scores: Scores, *, alpha: float = ALPHA,
                    confidence_level: float = CONFIDENCE_LEVEL, atol: float = 0.0,
                    missing: Missing = MISSING) -> PairwiseResult:
    r"""Parametric Tukey HSD for a blocked design (two-way ANOVA without replication).

    Parameters
    ----------
    scores : DataFrame or array_like
        Rows = queries, columns = systems, or ``(n_systems, n_queries)``.
    alpha, confidence_level, atol, missing
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
                          confidence_level=confidence_level, atol=atol, missing=missing,
                          rng=0)
