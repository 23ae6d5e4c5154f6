r"""The result of every all-pairs procedure: :class:`PairwiseResult`, and how it is built.

:func:`assemble` (public within the package) turns the statistics, p-values and
intervals of a test or a family-wise core into a :class:`PairwiseResult` with the
effect sizes, wins/ties/losses and the marginal t interval of every pair.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from ..deprecation import renamed_attribute
from ..errors import ParameterError
from ..validation import confidence_level_iv
from .corrections import ci_excludes_zero
from .effects import residual_variance
from .familywise import simultaneous_critical_value
from .intervals import ConfidenceInterval, t_interval
from .methods import MethodsText, methods_text
from .rows import effect_rows

__all__ = ["PairwiseResult", "assemble", "reject_beyond"]

#: ci_method values whose interval is ``difference +/- critical_value * standard_error``
#: with a critical value that can be recomputed at any level
_RESCALABLE = ("maxt-single-step", "tukey-simultaneous", "studentized-range",
               "dunnett-simultaneous", "t", "marginal(t)", "bonferroni(t)")


@dataclass(frozen=True, eq=False)
class PairwiseResult:
    """All-pairs comparison of systems (one entry per pair ``(a, b)``).

    Attributes
    ----------
    systems : tuple of str
        System names in input order.
    a, b : tuple of str
        The two systems of each pair (``a`` before ``b`` in ``systems``; with
        ``control``, ``b`` is the control).
    mean_a, mean_b, difference : ndarray
        Means over the queries and ``mean_a - mean_b``.
    statistic : ndarray
        Test statistic (see ``test``): t for ``"t"`` and for every test under
        ``correction="single-step"`` (the studentised paired difference); ``W+``
        of ``a - b`` for ``"wilcoxon"``; wins of ``a`` for ``"sign"``; the mean
        difference for ``"randomization"``, ``"bootstrap"`` and ``"tukey"``; the
        paired t for ``"bootstrap-t"``; ``"maxt"``'s statistic (mean or t); the
        studentised range ``q`` for ``"anova-hsd"``; Dunnett's :math:`T_i` for
        ``"dunnett"``.
    pvalue : ndarray
        Unadjusted p-values. Under ``correction="single-step"`` with
        ``test="randomization"``, and for ``"tukey"``/``"maxt"``: the marginal
        permutation p-value of the pair under the same within-query permutations.
    pvalue_se : ndarray
        Monte-Carlo standard error of ``pvalue`` (0 for exact and analytic tests).
    pvalue_adjusted : ndarray
        p-values adjusted by ``correction``; for the single-step correction and the
        family-wise procedures, their own family-wise adjusted p-values.
    reject : ndarray of bool
        ``pvalue_adjusted <= alpha``.
    ci_low, ci_high : ndarray
        Confidence interval of the mean difference (``ci_method``): by default
        the simultaneous interval of the correction's family (see ``ci`` in
        :func:`mrrstats.pairwise_tests`).
    reject_beyond_ci : ndarray of bool
        Pairs rejected although their interval contains 0: a step-down procedure
        (Holm, Westfall-Young) rejecting beyond the single-step simultaneous
        interval it shows. All False when the intervals agree with the decisions.
    marginal_low, marginal_high : ndarray or None
        The marginal t interval of each pair at ``confidence_level`` (no
        multiplicity adjustment), for reading one pair on its own.
    standard_error : ndarray or None
        The scale of the interval, ``difference +/- critical_value *
        standard_error``: the pair's paired (or cluster-robust) standard error for
        the max-T and t intervals, the pooled two-way ANOVA one for
        ``"anova-hsd"``/``"dunnett"``, 1 for the (unstudentised) randomised
        Tukey HSD; None where the interval inverts a test on its resamples.
    critical_value : float or None
        ``c`` of that interval at ``confidence_level`` (the quantile of the
        family's maximum statistic), when it has one.
    null_distribution : ndarray or None
        The resampled maximum statistic over the family (single-step max-T,
        Westfall-Young, randomised Tukey HSD): its quantiles give the intervals at
        any level (:meth:`confidence_interval`).
    d_z, es_e, prob_superiority : ndarray
        Effect sizes (see :func:`mrrstats.effect_sizes`); ``es_e`` uses the
        two-way ANOVA residual variance over all systems in ``systems``.
    wins, ties, losses : ndarray of int
        Queries where ``a`` beats, ties (within ``atol``) or loses to ``b``.
    test, correction, alternative, ci_method : str
    alpha, confidence_level, atol : float
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
    control : str or None
        The system every other one was compared with (``control=``); None for
        all pairs.
    n_clusters : int or None
        Number of query clusters resampled or flipped as units (``clusters=``).
    """

    systems: tuple[str, ...]
    a: tuple[str, ...]
    b: tuple[str, ...]
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
    atol: float
    n_resamples: int | None
    exact: bool
    seed: int | None
    n_queries: int
    queries: tuple[str, ...] = field(repr=False)
    dropped_queries: tuple[str, ...] = field(repr=False, default=())
    measure: str | None = None
    marginal_low: np.ndarray | None = field(repr=False, default=None)
    marginal_high: np.ndarray | None = field(repr=False, default=None)
    control: str | None = None
    n_clusters: int | None = None
    reject_beyond_ci: np.ndarray | None = field(repr=False, default=None)
    standard_error: np.ndarray | None = field(repr=False, default=None)
    critical_value: float | None = None
    null_distribution: np.ndarray | None = field(repr=False, default=None)

    zero_tolerance = renamed_attribute("atol")
    baseline = renamed_attribute("control")

    def methods(self) -> MethodsText:
        """The methods paragraph and its references (:mod:`mrrstats.stats.methods`)."""
        return methods_text(self)

    def __len__(self):
        return len(self.a)

    def to_frame(self) -> pd.DataFrame:
        """One row per pair: systems, means, difference, CI, statistic, p-values, effects.

        The columns carry the glossary's names only (``difference``, not ``diff``).
        """
        beyond = self.reject_beyond_ci if self.reject_beyond_ci is not None else \
            np.zeros(len(self), bool)
        frame = pd.DataFrame({
            "a": list(self.a), "b": list(self.b),
            "mean_a": self.mean_a, "mean_b": self.mean_b, "difference": self.difference,
            "ci_low": self.ci_low, "ci_high": self.ci_high,
            "statistic": self.statistic, "pvalue": self.pvalue, "pvalue_se": self.pvalue_se,
            "pvalue_adjusted": self.pvalue_adjusted, "reject": self.reject,
            "reject_beyond_ci": beyond,
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

    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """The interval of every pair, at ``confidence_level`` (default: the result's own).

        Recomputed at another level where the interval is ``difference +/- c *
        standard_error`` (single-step max-T and randomised Tukey HSD from their
        stored ``null_distribution``; the studentised range, Dunnett and t intervals
        from their distributions). Intervals that invert a test on its own resamples
        or follow a step-down procedure's decisions (``"holm-sb2008(...)"``,
        ``"bonferroni(randomization)"``, ``"fcr-by2005(...)"``, bootstrap) cannot be
        recomputed from the result: a ``ValueError`` says to rerun the procedure
        with that ``confidence_level``.

        Returns
        -------
        ConfidenceInterval
            ``low, high`` (arrays, one entry per pair), unpacking as ``low, high``.
        """
        if confidence_level is None:
            return ConfidenceInterval(self.ci_low, self.ci_high, self.confidence_level,  # type: ignore[arg-type]
                                      self.ci_method)
        cl = confidence_level_iv(confidence_level)
        if cl == self.confidence_level:
            return ConfidenceInterval(self.ci_low, self.ci_high, cl, self.ci_method)  # type: ignore[arg-type]
        method = self.ci_method
        if method not in _RESCALABLE or (self.standard_error is None
                                         and method != "tukey-simultaneous"):
            raise ParameterError(f"the intervals {method!r} cannot be recomputed at another "
                             "level from the result (they invert the test on its own "
                             "resamples or follow the decisions at its level); rerun the "
                             f"procedure with confidence_level={cl}")
        se = np.ones(len(self)) if self.standard_error is None else self.standard_error
        k = len(self.systems)
        if method in ("t", "marginal(t)", "bonferroni(t)"):
            df = (self.n_queries if self.n_clusters is None else self.n_clusters) - 1
            m = len(self) if method == "bonferroni(t)" else 1
            one_sided = self.alternative != "two-sided"
            a = (1.0 - cl) / m
            c = float(stats.t.isf(a if one_sided else a / 2.0, df))
        else:
            c = simultaneous_critical_value(method, cl, null=self.null_distribution, k=k,
                                            m=len(self), df=(self.n_queries - 1) * (k - 1),
                                            alternative=self.alternative)
        lo, hi = self.difference - c * se, self.difference + c * se
        if self.alternative == "greater":
            hi = np.full(len(self), np.inf)
        elif self.alternative == "less":
            lo = np.full(len(self), -np.inf)
        return ConfidenceInterval(lo, hi, cl, method)  # type: ignore[arg-type]


def reject_beyond(reject, low, high):
    """Rejected pairs whose (finite or one-sided) interval contains 0."""
    low = np.asarray(low, dtype=np.float64)
    high = np.asarray(high, dtype=np.float64)
    known = ~(np.isnan(low) | np.isnan(high))
    return np.asarray(reject, bool) & known & ~ci_excludes_zero(low, high)


def assemble(X, systems, queries, dropped, I, J, D, *, statistic, pvalue, pvalue_se,
             pvalue_adjusted, reject, ci_low, ci_high, atol, test, correction, alpha,
             alternative, confidence_level, ci_method, n_resamples, exact, seed, **extra):
    """A :class:`PairwiseResult` for the pairs ``(I, J)`` of ``X`` (n, k); ``D`` (P, n).

    ``extra``: the optional fields (``standard_error``, ``null_distribution``,
    ``critical_value``, ``control``, ``n_clusters``, ``marginal_low``, ...).
    """
    means = X.mean(axis=0)
    v_e = residual_variance(X.T) if X.shape[1] >= 2 and X.shape[0] >= 2 else None
    if v_e is not None and not v_e > 0:
        v_e = None
    _, dz, es, w, t, l_, ps = effect_rows(D, atol, v_e)
    n = X.shape[0]
    if "marginal_low" not in extra:
        with np.errstate(invalid="ignore", divide="ignore"):
            m_lo, m_hi = t_interval(D.mean(axis=1), D.std(axis=1, ddof=1) / math.sqrt(n),
                                     n - 1, alternative, confidence_level)
        extra.update(marginal_low=np.asarray(m_lo, dtype=np.float64),
                     marginal_high=np.asarray(m_hi, dtype=np.float64))
    lo = np.asarray(ci_low, dtype=np.float64)
    hi = np.asarray(ci_high, dtype=np.float64)
    rej = np.asarray(reject, bool)
    return PairwiseResult(
        systems=tuple(systems), a=tuple(systems[i] for i in I), b=tuple(systems[j] for j in J),
        mean_a=means[I], mean_b=means[J], difference=means[I] - means[J],
        statistic=np.asarray(statistic, dtype=np.float64),
        pvalue=np.asarray(pvalue, dtype=np.float64),
        pvalue_se=np.asarray(pvalue_se, dtype=np.float64),
        pvalue_adjusted=np.asarray(pvalue_adjusted, dtype=np.float64), reject=rej,
        ci_low=lo, ci_high=hi, reject_beyond_ci=reject_beyond(rej, lo, hi),
        d_z=dz, es_e=es, wins=w, ties=t, losses=l_, prob_superiority=ps,
        test=test, correction=correction, alpha=alpha, alternative=alternative,
        confidence_level=confidence_level, ci_method=ci_method, atol=atol,
        n_resamples=n_resamples, exact=bool(exact), seed=seed, n_queries=int(n),
        queries=tuple(queries), dropped_queries=tuple(dropped), **extra)
