r"""All-pairs (or many-to-one) tests of systems: :func:`pairwise_tests`.

Input is a score matrix: a DataFrame with one row per query and one column per
system (``Evaluation.scores(measure)``, :func:`mrrstats.read_score_matrix`), or
an array of shape ``(n_systems, n_queries)``, through the one coercion
:func:`mrrstats.model.scoretable.as_score_table`. Pairs are all ``(i, j)`` with
``i < j`` in column order, or ``(system, control)``; the difference of a pair is
``mean_a - mean_b``.

The per-pair tests and the corrections are read from
:mod:`mrrstats.stats.registry`; the family-wise cores live in
:mod:`mrrstats.stats.familywise`, the p-value corrections and their intervals in
:mod:`mrrstats.stats.corrections`, the result in :mod:`mrrstats.stats.pairwise_result`.
All resampling procedures share ONE set of resamples among all pairs and draw it
in a fixed order: the same seed gives the same result for every ``batch`` and
``workers``.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..defaults import (
    ALPHA,
    ALTERNATIVE,
    CONFIDENCE_LEVEL,
    CORRECTION,
    MISSING,
    N_RESAMPLES,
    WORKERS,
)
from ..defaults import TEST as DEFAULT_TEST
from ..deprecation import renamed_parameters
from ..errors import ParameterError, ParameterTypeError
from ..model.scoretable import as_score_table
from ..validation import (
    alpha_iv,
    alternative_iv,
    confidence_level_iv,
    int_iv,
    n_resamples_iv,
    rng_iv,
    tolerance_iv,
    workers_iv,
)
from .corrections import (
    adjust_pvalues,
    decision_intervals,
    signflip_inverted,
    t_inverted,
    warn_unattainable,
)
from .designs import (
    cluster_acceleration,
    cluster_bootstrap_rows,
    cluster_robust_se,
    design_iv,
    design_sums,
    query_labels,
)
from .familywise import (
    anova_hsd_fit,
    dunnett_fit,
    maxt_single_step_fit,
    maxt_step_down_fit,
    pair_fit,
    tukey_fit,
)
from .intervals import bootstrap_interval, jackknife_acceleration, t_interval
from .paired import wilcoxon_test
from .pairwise_result import PairwiseResult, assemble
from .registry import (
    CORRECTIONS,
    TESTS,
    UnattainableSignificanceWarning,
    correction_spec,
    test_spec,
)
from .resampling import array_namespace_of, bootstrap_sums, device_of, to_host
from .rows import bootstrap_test_rows, sign_pvalues, signflip_pvalues, ttest_rows, win_tie_loss

if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, Literal

    from numpy.typing import ArrayLike

    from .._typing import Alternative, Correction, Missing, Scores, Seed

__all__ = ["PairwiseResult", "pairwise_tests", "pairwise_tests_in_family",
           "pairwise_tests_over_measures", "CI_CHOICES", "FAMILY_CORES"]

#: values of ``ci`` (None: the correction's default, see the registry)
CI_CHOICES = ("consistent", "simultaneous", "t", "bca", "percentile", "basic", "none")
_BATCH_ELEMENTS = 1 << 22


@dataclass(frozen=True)
class _Setup:
    """The validated arguments of :func:`pairwise_tests_in_family`."""

    X: np.ndarray
    systems: tuple
    queries: tuple
    dropped: tuple
    measure: str | None
    test: str
    correction: str
    alpha: float
    alternative: str
    n_resamples: int
    cl: float
    ci: str
    atol: float
    batch: int | None
    opts: dict
    gen: np.random.Generator
    seed: int | None
    control: int | None
    design: object
    workers: int


@renamed_parameters(zero_tolerance="atol", baseline="control")
def pairwise_tests(scores: Scores, *, test: str = DEFAULT_TEST,
                   correction: Correction | None = CORRECTION,
                   alpha: float = ALPHA, alternative: Alternative = ALTERNATIVE,
                   n_resamples: int = N_RESAMPLES, confidence_level: float = CONFIDENCE_LEVEL,
                   ci: Literal["consistent", "simultaneous", "t", "bca", "percentile", "basic",
                               "none"] | None = None,
                   atol: float = 0.0, control: str | int | None = None,
                   clusters: ArrayLike | Mapping[str, Any] | None = None,
                   batch: int | None = None,
                   missing: Missing = MISSING, test_options: Mapping[str, Any] | None = None,
                   workers: int = WORKERS, rng: Seed = None) -> PairwiseResult:
    r"""Test every pair of systems (or every system against a control) and adjust.

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
        ``control``).
    correction : {"single-step", "single-step-skew", "holm", "bonferroni", "bh", "none"} or None
        Multiplicity adjustment across the pairs:

        * ``"single-step"`` (default): single-step max-T of the studentised paired
          differences :math:`T = \bar d/\mathrm{se}` under within-query permutations
          of the systems (the null of the randomised Tukey HSD, studentised, so
          every pair's interval has its own width): adjusted p-value
          :math:`(1 + \#\{b: \max |T^*_b| \ge |T|\})/(B + 1)` and simultaneous
          intervals :math:`\bar d \pm c\,\mathrm{se}`, :math:`c` the
          ``confidence_level`` quantile of :math:`\max |T^*|`; with ``control``,
          the maximum runs over the :math:`k - 1` comparisons with it (Dunnett
          type). For the mean-difference tests ``"t"``, ``"randomization"``,
          ``"bootstrap"`` and ``"bootstrap-t"``; ``pvalue`` stays the test's own
          (for ``"randomization"``, the marginal p-value under the same
          permutations, which for two systems is the paired sign-flip test of t, and
          never above ``pvalue_adjusted``; for another test the adjusted p-value comes
          from the permutations and is not forced above that test's p-value). Rank
          tests (``"wilcoxon"``, ``"sign"``) need a p-value correction.
        * ``"single-step-skew"``: the same with Hall's (1992) skewness correction
          of every pair's statistic, :math:`g(T) = T + aT^2 + a^2T^3/3 + b`,
          :math:`a = \hat\gamma/(3\sqrt n)`, :math:`b = \hat\gamma/(6\sqrt n)`,
          :math:`\hat\gamma` the skewness of the pair's differences (in every
          permutation its own): adjusted p-value from :math:`\max |g^*(T^*)|` and the
          interval :math:`\{\delta: |g((\bar d - \delta)/\mathrm{se})| \le c\}`,
          asymmetric, in closed form, rejected exactly when it excludes 0
          (``mrrstats.stats.familywise.maxt_single_step_fit``); ``statistic`` is
          :math:`g(T)`. It covers where the skewed measures (ERR@20, RR) make the
          plain max-T intervals fall short (measured in :mod:`mrrstats.defaults`).
          Queries only (no ``clusters``); its intervals are not recomputed at
          another level by ``confidence_interval``.
        * ``"holm"``, ``"bonferroni"``, ``"bh"``: through the p-values, with
          :func:`statsmodels.stats.multitest.multipletests`' arithmetic (the
          method named explicitly, ``"bh"`` is ``"fdr_bh"``).
        * ``"none"`` (or None).

        Not used by the family-wise procedures, which adjust by construction;
        their ``correction`` is recorded as ``"tukey-hsd"``,
        ``"westfall-young"``, ``"tukey-hsd-anova"`` or ``"dunnett"``.
    alpha : float, keyword-only
        Level for ``reject``.
    alternative : {"two-sided", "less", "greater"}, keyword-only
        For each pair ``(a, b)``, ``"greater"`` means ``a`` is better (one-sided
        intervals have one infinite end). ``"tukey"``, ``"maxt"`` and
        ``"anova-hsd"`` are two-sided only.
    n_resamples : int, keyword-only
        Resamples of the test, of the single-step max-T and of bootstrap intervals.
    confidence_level : float, keyword-only
    ci : {"consistent", "simultaneous", "t", "bca", "percentile", "basic", "none"} or None
        Interval of the mean difference, named in ``ci_method``. ``None`` (default):
        the correction's simultaneous interval, finite and two-sided for a
        two-sided test (``CorrectionSpec.interval`` in the registry):

        * ``"single-step"``: ``"maxt-single-step"``, which excludes 0 exactly for
          the rejected pairs (when ``confidence_level = 1 - alpha``);
          ``"single-step-skew"``: ``"maxt-single-step-skew"``, the same way;
        * ``"holm"`` and ``"bonferroni"``: the Bonferroni simultaneous interval,
          the test inverted at ``alpha/m`` (``"bonferroni(test)"``; for the t
          and randomization tests; the sign-flip test is inverted on the very sign
          vectors it used). Holm's step-down rejects every pair Bonferroni
          rejects and possibly more: those pairs are marked in
          ``reject_beyond_ci`` (their interval contains 0);
        * ``"bh"``: false-coverage-rate adjusted intervals of Benjamini & Yekutieli
          (2005), level ``1 - R alpha / m`` with ``R`` rejections
          (``"fcr-by2005(test)"``); ``"none"``: the marginal interval;
        * ``"tukey"``: simultaneous intervals with the cut-off of the permutation
          null of the p-values (``"tukey-simultaneous"``); ``"maxt"``: the
          single-step max-T intervals of the same null (``"maxt-single-step"``;
          the step-down may reject beyond them); ``"anova-hsd"``: the
          studentised-range intervals; ``"dunnett"``: Dunnett's simultaneous
          intervals.

        ``"consistent"``: intervals that agree with the decisions, also for the
        step-down procedures: Strassburger & Bretz (2008) for Holm (a rejected pair
        gets :math:`\delta > 0`, ``ci_low = 0, ci_high = inf``, or :math:`\delta <
        0`; the others the ``alpha/(m - r)`` interval, ``r`` rejections;
        ``"holm-sb2008(test)"``) and for step-down max-T (``"maxt-step-down"``).
        They say which pairs differ and in which direction, not by how much.
        ``"simultaneous"``: the default intervals above, by name. For the other
        tests (Wilcoxon, sign, bootstraps) with a p-value correction the default is
        the marginal ``"t"`` interval, which does not follow their decisions.
        ``"t"`` is also in ``marginal_low, marginal_high`` of every result: measured
        on real TREC pairs it covers 0.945 on average at 25 topics and 0.949 at 50
        for a nominal 0.95, BCa 0.917 and 0.933 (see :func:`mrrstats.compare`).
    atol : float, keyword-only
        Ties for wins/ties/losses and the sign test: :math:`|d| \le` ``atol``.
    control : str or int, optional, keyword-only
        Compare every system with this one only (by name, or position in the
        columns): :math:`k - 1` pairs ``(system, control)``, so ``difference``
        is system minus control and ``"greater"`` means better than the
        control; the correction runs over these :math:`k - 1` comparisons (the
        single-step max-T over them, of all systems permuted within queries; the
        way PyTerrier's ``Experiment(baseline=0)`` is used). Also
        ``test="maxt"`` (step-down) and ``test="dunnett"`` (Dunnett 1955 with
        the two-way ANOVA error).
    clusters : array_like or mapping, optional, keyword-only
        Cluster label of each query (a mapping query id -> label, or one label
        per query in table order), for ``test="randomization"`` (one sign flip
        per cluster), ``"bootstrap"`` and ``"bootstrap-t"`` (whole clusters
        drawn; see :func:`mrrstats.bootstrap_test`), ``"tukey"``, ``"maxt"`` and
        the single-step correction (one permutation of the system labels per
        cluster, applied to all its queries; studentised with the cluster-robust
        standard error: valid when the systems are exchangeable within each
        cluster as a whole). The marginal interval is then the cluster-robust t
        interval with :math:`G - 1` degrees of freedom, bootstrap intervals draw
        clusters, and the decision-consistent intervals invert the clustered
        sign-flip test.
    batch : int or None, keyword-only
        Resamples held in memory at once (does not change results).
    missing : {"raise", "drop"}, keyword-only
        ``"drop"`` removes every query on which some system has no value.
    test_options : dict, optional
        Extra options for the per-pair test: ``wilcoxon_test``'s ``method``,
        ``zero_method``, ``correction``; ``westfall_young``'s ``statistic``;
        ``randomization``'s ``exact``.
    workers : int, keyword-only
        Threads of the resampling kernels (-1: all cores); the results never depend
        on it.
    rng : None, int or numpy.random.Generator, keyword-only

    Returns
    -------
    PairwiseResult

    Notes
    -----
    Random numbers are consumed in a fixed order: first the test's resamples,
    then the permutations of the single-step max-T, then the bootstrap resamples of
    the intervals. The decision-consistent intervals draw nothing: they replay the
    test's own resamples.

    Measured on the 27 real TREC score matrices of ``tests/data/score_matrices`` (first 20
    systems, 5,130 pairs, B = 10000; ``benchmarks/calibration/consistency_counts.py``):
    with ``ci="consistent"`` no pair's interval disagrees with its decision, for
    the randomization test with Holm, Bonferroni, BH or no correction, for max-T
    and for the randomised Tukey HSD. The family-wise error, power and
    simultaneous coverage behind the single-step default are in
    :func:`mrrstats.compare` and :mod:`mrrstats.defaults`.

    References
    ----------
    .. [1] Westfall, P. H., Young, S. S. (1993). *Resampling-Based Multiple
           Testing*. Wiley.
    .. [2] Hothorn, T., Bretz, F., Westfall, P. (2008). Simultaneous inference in
           general parametric models. Biometrical Journal 50(3), 346-363.
    .. [3] Strassburger, K., Bretz, F. (2008). Compatible simultaneous lower
           confidence bounds for the Holm procedure and other Bonferroni-based
           closed tests. Statistics in Medicine 27(24), 4914-4927.
    .. [4] Benjamini, Y., Yekutieli, D. (2005). False discovery rate-adjusted
           multiple confidence intervals for selected parameters. JASA 100(469),
           71-81.
    .. [5] Dunnett, C. W. (1955). A multiple comparison procedure for comparing
           several treatments with a control. JASA 50(272), 1096-1121.

    Examples
    --------
    >>> import numpy as np, mrrstats
    >>> rng = np.random.default_rng(0)
    >>> x = rng.random((3, 30)) + np.array([[0.0], [0.0], [0.3]])
    >>> res = mrrstats.pairwise_tests(x, rng=1)
    >>> print(res.to_frame()[["a", "b", "reject"]].to_string(index=False))
    a b  reject
    0 1   False
    0 2    True
    1 2    True
    >>> bool(np.all(np.isfinite(res.ci_low) & np.isfinite(res.ci_high)))
    True
    """
    return pairwise_tests_in_family(
        scores, None, test=test, correction=correction, alpha=alpha, alternative=alternative,
        n_resamples=n_resamples, confidence_level=confidence_level, ci=ci, atol=atol,
        control=control, clusters=clusters, batch=batch, missing=missing,
        test_options=test_options, workers=workers, rng=rng)


def pairwise_tests_in_family(scores, family, *, test, correction, alpha, alternative,
                             n_resamples, confidence_level, ci, atol, control, clusters,
                             batch, missing, test_options, rng, workers=WORKERS):
    """:func:`pairwise_tests`, with the decisions of a larger family when ``family`` is given.

    ``family`` (None: this measure's pairs are the family) is a dict with
    ``p_adj`` and ``reject`` (this measure's pairs, adjusted over the whole
    family at ``alpha``), ``reject_ci`` (at ``1 - confidence_level``), ``m``
    (the family size) and ``r_ci`` (rejections in the family at ``1 -
    confidence_level``): the intervals then use the family's size and rejections
    (e.g. Bonferroni's ``alpha / m``, Holm's ``alpha / (m - r)``).
    """
    xp = array_namespace_of(scores)
    on_device = None
    if xp is not None:  # an (n, k) torch / CuPy / array-API matrix: sign flips on its device
        on_device = xp.astype(scores, xp.float64)
        scores = to_host(on_device)
    s = _pairwise_tests_iv(scores, test, correction, alpha, alternative, n_resamples,
                           confidence_level, ci, atol, control, clusters, batch, missing,
                           test_options, rng, workers)
    if on_device is not None:  # (n_systems, n_queries) -> (n, k) as X, unless rows were dropped
        same = tuple(on_device.shape) == s.X.T.shape and np.array_equal(scores, s.X.T)
        on_device = xp.permute_dims(on_device, (1, 0)) if same else None
    if family is not None and (TESTS[s.test].family or CORRECTIONS[s.correction].joint_null):
        raise ParameterError(f"test={s.test!r} with correction={s.correction!r} controls the "
                         "error rate within one measure; a family over measures needs a "
                         "per-pair test and a p-value correction (holm, bonferroni, bh)")
    k = s.X.shape[1]
    I, J = np.triu_indices(k, 1) if s.control is None else _control_pairs(k, s.control)
    extra = {"control": None if s.control is None else s.systems[s.control],
             "n_clusters": None if s.design is None else s.design.n_clusters}
    if TESTS[s.test].family:
        res = _family_procedure(s, I, J, extra)
    else:
        res = _per_pair_procedure(s, I, J, family, extra, (xp, on_device))
    return res


def pairwise_tests_over_measures(frames, *, test, correction, alpha, alternative, n_resamples,
                                 confidence_level, ci, atol, control, clusters, batch, missing,
                                 test_options, rng, workers=WORKERS):
    """One single-step max-T family over the pairs of several measures (``frames``: a dict).

    Every resample permutes the systems of each query in all measures at once, so the
    measures must hold the same queries (and ``clusters``, a dict per measure, the same
    clusters). The per-pair tests draw first, measure by measure, then the permutations.
    Returns ``{measure: PairwiseResult}``.
    """
    gen, seed = rng_iv(rng)
    setups = {m: _pairwise_tests_iv(frame, test, correction, alpha, alternative, n_resamples,
                                    confidence_level, ci, atol, control,
                                    (clusters or {}).get(m), batch, missing, test_options,
                                    gen, workers)
              for m, frame in frames.items()}
    first = next(iter(setups.values()))
    codes = None if first.design is None else first.design.codes
    for m, s in setups.items():
        same_codes = (s.design is None and codes is None) or (
            s.design is not None and codes is not None
            and np.array_equal(s.design.codes, codes))
        if s.queries != first.queries or s.systems != first.systems or not same_codes:
            raise ParameterError(f"the single-step correction over measures permutes the systems "
                             f"of each query in all measures at once: measure {m!r} needs "
                             "the same systems, queries and clusters as the first one "
                             "(or use correction='holm', 'bonferroni' or 'bh')")
    if not CORRECTIONS[first.correction].joint_null or TESTS[first.test].family:
        raise ParameterError("pairwise_tests_over_measures is for the single-step correction of "
                         "a per-pair test")
    k = first.X.shape[1]
    I, J = np.triu_indices(k, 1) if first.control is None else _control_pairs(k, first.control)
    D = {m: s.X[:, I].T - s.X[:, J].T for m, s in setups.items()}
    marginal = {m: None if s.test == "randomization" else _per_pair_pvalues(
        s, I, J, D[m], D[m] if s.design is None else np.stack([s.design.totals(r)
                                                               for r in D[m]]), (None, None))
        for m, s in setups.items()}
    fits = maxt_single_step_fit([s.X for s in setups.values()], I, J,
                                alternative=first.alternative, n_resamples=first.n_resamples,
                                confidence_level=first.cl, batch=first.batch, gen=gen,
                                clusters=codes, workers=first.workers,
                                skew=first.correction == "single-step-skew")
    out = {}
    for (m, s), fit in zip(setups.items(), fits, strict=True):
        if marginal[m] is not None:
            fit = _replace_marginal(fit, marginal[m])
        if s.ci not in ("consistent", "simultaneous"):
            lo, hi, method, se = _other_intervals(s, I, J, D[m])
            fit = dataclasses.replace(fit, ci_low=lo, ci_high=hi, ci_method=method,
                                      standard_error=se)
        extra = {"control": None if s.control is None else s.systems[s.control],
                 "n_clusters": None if s.design is None else s.design.n_clusters}
        if s.design is not None:
            m_lo, m_hi = _marginal_t(D[m], s.design, s.alternative, s.cl)
            extra.update(marginal_low=m_lo, marginal_high=m_hi)
        res = _result(s, I, J, D[m], fit, extra, test=s.test, correction=s.correction,
                      reject=fit.pvalue_adjusted <= s.alpha)
        out[m] = dataclasses.replace(res, seed=seed)
    return out


def _control_pairs(k, b):
    """Pairs ``(system, control)`` for every other system, in column order."""
    I = np.array([i for i in range(k) if i != b], dtype=np.intp)
    return I, np.full(I.size, b, dtype=np.intp)


def _result(s, I, J, D, fit, extra, *, test, correction, reject=None, exact=False):
    """Assemble the result of a fit (a family-wise core or the per-pair pieces)."""
    p_adj = fit.pvalue_adjusted
    return assemble(s.X, s.systems, s.queries, s.dropped, I, J, D, statistic=fit.statistic,
                    pvalue=fit.pvalue, pvalue_se=fit.pvalue_se, pvalue_adjusted=p_adj,
                    reject=p_adj <= s.alpha if reject is None else reject,
                    ci_low=fit.ci_low, ci_high=fit.ci_high, atol=s.atol, test=test,
                    correction=correction, alpha=s.alpha, alternative=s.alternative,
                    confidence_level=s.cl, ci_method=fit.ci_method,
                    n_resamples=fit.n_resamples, exact=exact, seed=s.seed,
                    measure=s.measure, standard_error=fit.standard_error,
                    critical_value=fit.critical_value,
                    null_distribution=fit.null_distribution, **extra)


def _tukey(s, I, J, codes, common):
    return tukey_fit(s.X, n_resamples=s.n_resamples, batch=s.batch, gen=s.gen, clusters=codes,
                     **common)


def _maxt(s, I, J, codes, common):
    return maxt_step_down_fit(s.X, I, J, statistic=s.opts.get("statistic", "mean"),
                              n_resamples=s.n_resamples, batch=s.batch, gen=s.gen,
                              clusters=codes, workers=s.workers, **common)


def _anova_hsd(s, I, J, codes, common):
    return anova_hsd_fit(s.X, **common)


def _dunnett(s, I, J, codes, common):
    return dunnett_fit(s.X, I, J, alternative=s.alternative, **common)


#: the core of every family-wise procedure of the registry (tests/stats/test_pairwise.py checks
#: that each ``TestSpec.family`` test has one)
FAMILY_CORES = {"tukey": _tukey, "maxt": _maxt, "anova-hsd": _anova_hsd, "dunnett": _dunnett}


def _family_procedure(s, I, J, extra):
    """The family-wise procedures of the registry (``TestSpec.family``)."""
    codes = None if s.design is None else s.design.codes
    fit = FAMILY_CORES[s.test](s, I, J, codes, dict(confidence_level=s.cl, ci=s.ci))
    D = s.X[:, I].T - s.X[:, J].T
    return _result(s, I, J, D, fit, extra, test=s.test, correction=TESTS[s.test].correction)


@dataclass(frozen=True)
class _Marginal:
    """The per-pair test's statistics, p-values and resampling record."""

    statistic: np.ndarray
    pvalue: np.ndarray
    pvalue_se: np.ndarray
    n_resamples: int | None
    exact: bool
    replay: tuple


def _per_pair_pvalues(s, I, J, D, Du, device):
    """Statistic, p-value and its Monte-Carlo error of every pair under the per-pair test."""
    test, alternative, design = s.test, s.alternative, s.design
    P = I.size
    se_p = np.zeros(P)
    n_used, exact = None, False
    replay = (type(s.gen.bit_generator), s.gen.bit_generator.state)
    if test == "t":
        stat, p, _, _ = ttest_rows(D, alternative)
    elif test == "sign":
        w, _, l_ = win_tie_loss(D, s.atol)
        stat = w.astype(np.float64)
        p = sign_pvalues(w, l_, alternative)
    elif test == "wilcoxon":
        stat, p = np.empty(P), np.empty(P)
        for q in range(P):
            r = wilcoxon_test(s.X[:, I[q]], s.X[:, J[q]], alternative=alternative, **s.opts)
            stat[q], p[q] = r.statistic, r.pvalue
    elif test == "randomization":
        xp, on_device = device
        device_D = None
        if on_device is not None and design is None:
            dev = device_of(on_device)
            device_D = xp.permute_dims(
                xp.take(on_device, xp.asarray(I, device=dev), axis=1)
                - xp.take(on_device, xp.asarray(J, device=dev), axis=1), (1, 0))
        p, se_p, n_used, exact = signflip_pvalues(
            Du, alternative, n_resamples=s.n_resamples, exact=s.opts.get("exact"),
            batch=s.batch, gen=s.gen, device_D=device_D, workers=s.workers)
        stat = D.mean(axis=1)
    else:  # bootstrap, bootstrap-t
        method = "studentized" if test == "bootstrap-t" else "shift"
        if design is None:
            stat, p, se_p = bootstrap_test_rows(D, alternative, method, s.n_resamples,
                                                 s.batch, s.gen, workers=s.workers)
        else:
            stat, p, se_p, _, _ = cluster_bootstrap_rows(D, design, alternative, method,
                                                         s.n_resamples, s.batch, s.gen,
                                                         workers=s.workers)
        n_used = s.n_resamples
    return _Marginal(stat, p, se_p, n_used, exact, replay)


def _per_pair_procedure(s, I, J, family, extra, device):
    """A per-pair test with a correction (p-values, or the single-step max-T)."""
    X, design = s.X, s.design
    D = X[:, I].T - X[:, J].T  # (P, n)
    # the exchangeable units: queries, or cluster totals (one sign flip per cluster)
    Du = D if design is None else np.stack([design.totals(row) for row in D])
    single = CORRECTIONS[s.correction].joint_null
    if single and s.test == "randomization":  # one null: the within-query permutations
        mg = None
    else:
        mg = _per_pair_pvalues(s, I, J, D, Du, device)
    if single:
        fit = maxt_single_step_fit(X, I, J, alternative=s.alternative,
                                   n_resamples=s.n_resamples, confidence_level=s.cl,
                                   batch=s.batch, gen=s.gen,
                                   clusters=None if design is None else design.codes,
                                   workers=s.workers, skew=s.correction == "single-step-skew")
        if mg is not None:  # the test's own marginal p-values beside the family's
            fit = _replace_marginal(fit, mg)
        if s.ci not in ("consistent", "simultaneous"):  # an interval asked for by name
            lo, hi, method, se = _other_intervals(s, I, J, D)
            fit = dataclasses.replace(fit, ci_low=lo, ci_high=hi, ci_method=method,
                                      standard_error=se)
        p_adj, reject = fit.pvalue_adjusted, fit.pvalue_adjusted <= s.alpha
    elif family is None:
        p_adj, reject = adjust_pvalues(mg.pvalue, s.correction, s.alpha)
    else:
        p_adj, reject = np.asarray(family["p_adj"]), np.asarray(family["reject"], bool)
    if not single:
        _warn_resamples(s, mg, I.size, family)
        warn_unattainable(Du, s.test, s.correction, s.alpha, s.alternative, s.atol, mg.exact,
                          mg.n_resamples, s.opts,
                          unit="queries" if design is None else "clusters")
        fit = _pair_intervals(s, I, J, D, Du, mg, p_adj, reject, family)
    if design is not None:
        m_lo, m_hi = _marginal_t(D, design, s.alternative, s.cl)
        extra = {**extra, "marginal_low": m_lo, "marginal_high": m_hi}
    return _result(s, I, J, D, fit, extra, test=s.test, correction=s.correction,
                   reject=reject, exact=False if mg is None else mg.exact)


def _replace_marginal(fit, mg):
    """The single-step fit with the per-pair test's statistic and p-values."""
    return dataclasses.replace(fit, statistic=mg.statistic, pvalue=mg.pvalue,
                               pvalue_se=mg.pvalue_se)


def _warn_resamples(s, mg, P, family):
    """Holm and Bonferroni cannot reject below 1/(B + 1) > alpha/m: say so."""
    n_used = mg.n_resamples
    if (n_used is not None and not mg.exact and s.correction in ("holm", "bonferroni")
            and family is None and 1.0 / (n_used + 1.0) > s.alpha / P):
        warnings.warn(f"with n_resamples={n_used} the smallest attainable p-value "
                      f"1/(B+1) exceeds alpha/m = {s.alpha / P:.3g} for m = {P} pairs, so "
                      f"{s.correction} can reject nothing; use n_resamples >= "
                      f"{math.ceil(P / s.alpha)}", UnattainableSignificanceWarning,
                      stacklevel=4)


def _pair_intervals(s, I, J, D, Du, mg, p_adj, reject, family):
    """The interval of every pair for a p-value correction (``ci``, see pairwise_tests)."""
    ci, cl, alternative, design = s.ci, s.cl, s.alternative, s.design
    se = None
    if ci in ("consistent", "simultaneous"):
        if s.test == "randomization":
            weights = None if design is None else design.sizes.astype(np.float64)

            def invert(a):
                return signflip_inverted(Du, a, alternative, total=mg.n_resamples,
                                         exact=mg.exact, batch=s.batch, replay=mg.replay,
                                         weights=weights)
            inverted = "randomization"
        else:  # the t test, or the Bonferroni t interval beside another test
            def invert(a):
                return t_inverted(D, a, alternative)
            inverted = "t"
            se = D.std(axis=1, ddof=1) / math.sqrt(D.shape[1])
        lo, hi, how = decision_intervals(D, mg.pvalue, s.correction, 1.0 - cl, alternative,
                                         invert, how=ci, decided=(s.alpha, reject),
                                         family=family)
        method = f"{how}({inverted})"
    else:
        lo, hi, method, se = _other_intervals(s, I, J, D)
    if method in ("holm-sb2008(t)", "fcr-by2005(t)"):
        se = None  # not d +/- c se at a level of its own
    return pair_fit(mg.statistic, mg.pvalue, mg.pvalue_se, p_adj, lo, hi, method,
                    mg.n_resamples, standard_error=se)


def _other_intervals(s, I, J, D):
    """The intervals that do not follow the correction: ``ci="t"``, bootstrap, or none.

    Returns ``(low, high, ci_method, standard_error)``.
    """
    ci, design = s.ci, s.design
    if ci == "t":
        lo, hi = _marginal_t(D, design, s.alternative, s.cl)
        se = (D.std(axis=1, ddof=1) / math.sqrt(D.shape[1]) if design is None
              else cluster_robust_se(D, design))
        return lo, hi, "t", se
    if ci in ("bca", "percentile", "basic"):
        lo, hi = _pair_bootstrap_ci(s.X, I, J, ci, s.cl, s.alternative, s.n_resamples,
                                    s.batch, s.gen, design)
        return lo, hi, ci, None
    nan = np.full(I.size, np.nan)
    return nan, nan, "none", None


def _marginal_t(D, design, alternative, cl):
    """Marginal t interval: paired (df n - 1), or cluster-robust (df G - 1) with clusters."""
    n = D.shape[1]
    if design is None:
        return t_interval(D.mean(axis=1), D.std(axis=1, ddof=1) / math.sqrt(n), n - 1,
                           alternative, cl)
    return t_interval(D.mean(axis=1), cluster_robust_se(D, design), design.n_clusters - 1,
                       alternative, cl)


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
        sysdist = bootstrap_sums(X.T, n_resamples, batch, gen) / n  # (k, B)
    else:
        T = np.stack([design.totals(X[:, j]) for j in range(k)])
        sums = design_sums(np.vstack([T, design.sizes.astype(np.float64)]), design,
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
            accel = jackknife_acceleration(D)
        else:
            accel = np.array([cluster_acceleration(row, design) for row in D])
        lo, hi = bootstrap_interval(theta, dist, accel, method, cl, alternative)
        low[s:s + block] = lo
        high[s:s + block] = hi
    return low, high


# --------------------------------------------------------------------------
# input
# --------------------------------------------------------------------------
def _default_ci(test, correction):
    """The interval of ``ci=None``: the correction's simultaneous interval (registry)."""
    spec, corr = TESTS[test], CORRECTIONS[correction]
    if spec.family or corr.joint_null:
        return "simultaneous" if corr.step_down else "consistent"
    if not spec.invertible:
        return "t"
    return "simultaneous" if corr.step_down else "consistent"


def _options_iv(test_options, test):
    if test_options is None:
        opts = {}
    elif isinstance(test_options, dict):
        opts = dict(test_options)
    else:
        raise ParameterTypeError("`test_options` must be a dict or None")
    allowed = set(TESTS[test].options)
    extra = set(opts) - allowed
    if extra:
        raise ParameterError(f"`test_options` has options {sorted(extra)} that test={test!r} "
                         f"does not take (allowed: {sorted(allowed)})")
    return opts


def _ci_iv(ci, test, correction):
    spec, corr = TESTS[test], CORRECTIONS[correction]
    if ci is None:
        ci = _default_ci(test, correction)
    if not isinstance(ci, str) or ci not in CI_CHOICES:
        raise ParameterError(f"`ci` must be one of {CI_CHOICES} or None, got {ci!r}")
    if spec.family and ci not in ("consistent", "simultaneous", "none"):
        raise ParameterError(f"`ci` must be 'consistent', 'simultaneous' or 'none' for "
                         f"test={test!r}")
    if ci == "simultaneous" and not (spec.family or corr.controls == "FWER"):
        raise ParameterError(f"`ci`='simultaneous' needs a family-wise correction "
                         f"('single-step', 'holm', 'bonferroni') or procedure; "
                         f"correction={correction!r} has no simultaneous interval")
    if (ci == "consistent" and not spec.invertible and not spec.family
            and not corr.joint_null):
        invertible = tuple(n for n, t in TESTS.items() if t.invertible)
        raise ParameterError(f"`ci`='consistent' needs an invertible test {invertible}, the "
                         f"single-step correction or a family-wise procedure; test={test!r} "
                         "has none")
    return ci


def _design_args_iv(spec, control, clusters):
    """``control`` and ``clusters`` against what the test (registry) allows."""
    test = spec.name
    if control is not None and spec.control == "refused":
        raise ParameterError(f"test={test!r} compares all pairs; with `control` use "
                         "test='maxt' (many-to-one step-down max-T), 'dunnett' or a "
                         "per-pair test")
    if control is None and spec.control == "required":
        raise ParameterError(f"test={test!r} compares every system with a control: pass "
                         "`control` (a system name)")
    if clusters is not None and not spec.clusters:
        allowed = tuple(n for n, t in TESTS.items() if t.clusters)
        raise ParameterError(f"`clusters` works with the tests {allowed} (one sign flip, draw or "
                         "permutation per cluster; with the single-step correction one "
                         f"permutation per cluster); test={test!r} treats queries as "
                         "independent")


def _pairwise_tests_iv(scores, test, correction, alpha, alternative, n_resamples,
                       confidence_level, ci, atol, control, clusters, batch, missing,
                       test_options, rng, workers):
    spec = test_spec(test)
    test = spec.name
    correction = correction_spec(correction).name
    alpha = alpha_iv(alpha)
    alternative_iv(alternative)
    n_resamples = n_resamples_iv(n_resamples)
    cl = confidence_level_iv(confidence_level)
    if spec.family:
        if alternative not in spec.alternatives:
            raise ParameterError(f"`alternative` must be 'two-sided' for test={test!r}")
        correction = spec.correction
    elif CORRECTIONS[correction].joint_null and not spec.mean_difference:
        ok = tuple(n for n, t in TESTS.items() if t.mean_difference)
        raise ParameterError(f"correction={correction!r} adjusts studentised mean differences "
                         f"(tests {ok}); test={test!r} tests something else: use "
                         "correction='holm', 'bonferroni', 'bh' or 'none'")
    ci = _ci_iv(ci, test, correction)
    _design_args_iv(spec, control, clusters)
    if correction == "single-step-skew" and clusters is not None:
        raise ParameterError("correction='single-step-skew' works on queries; with `clusters` "
                             "use correction='single-step' (one permutation per cluster)")
    opts = _options_iv(test_options, test)
    atol = tolerance_iv(atol, "atol")
    batch = int_iv(batch, "batch", allow_none=True)
    workers = workers_iv(workers)
    table = as_score_table(scores, missing=missing, min_systems=2, min_queries=2)
    measure = None if table.measure == "score" else table.measure
    b_idx = _control_iv(control, table.systems)
    design = None
    if clusters is not None:
        labels = query_labels(clusters, table.queries, name="clusters")
        design = design_iv(labels, None, len(table.queries))
    gen, seed = rng_iv(rng)
    return _Setup(table.values, tuple(table.systems), tuple(table.queries),
                  tuple(table.dropped), measure, test, correction, alpha, alternative,
                  n_resamples, cl, ci, atol, batch, opts, gen, seed, b_idx, design, workers)


def _control_iv(control, systems):
    """Column index of ``control`` (a system name or a position), or None."""
    if control is None:
        return None
    k = len(systems)
    if isinstance(control, int | np.integer) and not isinstance(control, bool):
        if not -k <= int(control) < k:
            raise ParameterError(f"`control`={control} is not a position of the {k} systems")
        return int(control) % k
    name = str(control)
    if name not in systems:
        raise ParameterError(f"`control`={control!r} is not one of the systems {list(systems)}")
    return list(systems).index(name)
