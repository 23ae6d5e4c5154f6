r"""Several collections: on how many does an improvement hold, and how large is it overall?

:func:`across_collections` takes one comparison of two systems per collection
(test collection, data set, language, ...) and answers two questions:

* **replicability** (Dror, Baumer, Bogomolov & Reichart, TACL 2017): the
  partial-conjunction p-values :math:`p^{u/N}` of "A is better than B on at
  least :math:`u` of the :math:`N` collections" (Benjamini & Heller 2008), by
  Bonferroni (valid under any dependence between collections) and by Fisher
  (independent collections); the estimated number of collections where A is
  better, :math:`\hat k = \max\{u : p^{u/N} \le \alpha\}`, and which ones
  (Holm's procedure, which finds exactly :math:`\hat k_{Bonferroni}` of them);
* **size**: a random-effects meta-analysis of the per-collection effects
  (DerSimonian-Laird and Paule-Mandel between-collection variance
  :math:`\tau^2`, and on request REML and Sidik-Jonkman, with its Q-profile
  interval; heterogeneity :math:`I^2`; the pooled effect with its confidence
  and prediction intervals, normal or Knapp-Hartung), as R's metafor.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..errors import ParameterError, ParameterTypeError
from ..model.scoretable import ScoreTable, as_score_table
from ..options import EFFECTS, META_TESTS, RE_METHODS, RE_TESTS, TAU2_METHODS
from ..validation import alpha_iv, alternative_iv, confidence_level_iv, rng_iv
from .bayes import bayesian_hierarchical
from .bootstrap import bootstrap_test
from .compare import Comparison
from .intervals import ConfidenceInterval
from .methods import MethodsText
from .methods_readers import methods_text
from .paired import paired_ttest, sign_test, wilcoxon_test
from .randomization import randomization_test
from .registry import test_spec

if TYPE_CHECKING:
    from typing import Literal

    from .._typing import Alternative, Seed
    from .bayes import BayesianComparison

__all__ = [
    "AcrossCollectionsResult",
    "across_collections",
    "partial_conjunction_pvalues",
    "random_effects",
    "META_TESTS",
    "EFFECTS",
    "TAU2_METHODS",
    "RE_METHODS",
    "RE_TESTS",
]


@dataclass(frozen=True, eq=False)
class AcrossCollectionsResult:
    r"""Result of :func:`across_collections`.

    Attributes
    ----------
    collections : DataFrame
        One row per collection (index ``collection``): ``n_queries``,
        ``mean_a``, ``mean_b``, ``difference``, ``std`` (of the per-query
        differences), ``d_z``, ``effect`` and ``variance`` (the meta-analysed
        effect and its within-collection variance), ``ci_low``/``ci_high``
        (its interval at ``confidence_level``), ``statistic``, ``pvalue`` (the
        one-sided test of each collection), ``replicated`` (chosen by Holm).
    partial_conjunction : DataFrame
        Indexed by ``u`` = 1..N, columns ``bonferroni`` and ``fisher``:
        :math:`p^{u/N}`, made non-decreasing in ``u``.
    k_hat : dict
        ``{"bonferroni": k, "fisher": k}``: the estimated number of
        collections where the alternative holds.
    replicated : tuple of str
        The collections Holm's procedure identifies (``k_hat["bonferroni"]`` of them).
    meta : DataFrame
        Indexed by method (``tau2_methods``, by default ``DL``, ``PM``):
        ``estimate``, ``standard_error``, ``ci_low``, ``ci_high`` (normal, or
        t with N - 1 df under ``meta_test="knha"``), ``pi_low``, ``pi_high``
        (prediction interval for a new collection, t with N - 2 df), ``tau2``,
        ``tau2_ci_low``, ``tau2_ci_high`` (Q-profile), ``i2`` (in [0, 1]),
        ``q`` (Cochran's Q), ``q_pvalue``, ``statistic`` (z or t), ``pvalue``
        (of the pooled effect, for ``alternative``).
    effect : {"d_z", "difference"}
    test, alternative : str
    alpha, confidence_level : float
    seed : int or None
        The seed of the random per-collection tests (``randomization``,
        ``bootstrap``); None when a Generator was passed.
    n_resamples : int or None
        ``B`` of the Monte Carlo per-collection tests (the largest, when they differ);
        None when no collection's test drew resamples.
    meta_test : {"z", "knha"}
        The test of the pooled effect (:func:`random_effects`' ``meta_test``).
    """

    collections: pd.DataFrame
    partial_conjunction: pd.DataFrame
    k_hat: dict
    replicated: tuple
    meta: pd.DataFrame
    effect: str
    test: str
    alternative: str
    alpha: float
    confidence_level: float
    seed: int | None = None
    meta_test: str = "z"
    n_resamples: int | None = None
    _inputs: tuple = field(repr=False, default=())

    def methods(self) -> MethodsText:
        """The methods paragraph and its references (:mod:`mrrstats.stats.methods`)."""
        return methods_text(self)

    def to_frame(self) -> pd.DataFrame:
        """The per-collection table (a copy): effects, intervals, p-values, Holm's choice."""
        return self.collections.copy()

    def confidence_interval(
        self,
        confidence_level: float | None = None,
        *,
        method: Literal["DL", "PM", "REML", "SJ"] = "DL",
    ) -> ConfidenceInterval:
        """Interval of the pooled random-effects effect, at ``confidence_level``.

        Normal, or t with N - 1 df when the result was made with ``meta_test="knha"``.
        ``method`` must be one of the rows of ``meta``.
        """
        from scipy import stats

        cl = (
            self.confidence_level
            if confidence_level is None
            else confidence_level_iv(confidence_level)
        )
        have = tuple(self.meta.index)
        if not isinstance(method, str) or method not in have:
            raise ParameterError(f"`method` must be one of {have}, got {method!r}")
        row = self.meta.loc[method]
        if self.meta_test == "knha":
            z = stats.t.isf((1 - cl) / 2, len(self.collections) - 1)
        else:
            z = stats.norm.isf((1 - cl) / 2)
        return ConfidenceInterval(
            row["estimate"] - z * row["standard_error"],
            row["estimate"] + z * row["standard_error"],
            cl,
            f"random-effects-{method}",
        )

    def hierarchical(
        self, *, rope: float | None = None, confidence_level: float | None = None
    ) -> BayesianComparison:
        """The Bayesian normal hierarchical model over these collections' effects.

        :func:`mrrstats.bayesian_hierarchical` of ``collections["effect"]`` with
        standard errors ``sqrt(collections["variance"])``: the posterior of the
        population effect, P(A better), and for a new collection.
        """
        cl = self.confidence_level if confidence_level is None else confidence_level
        return bayesian_hierarchical(
            self.collections["effect"].to_numpy(dtype=float),
            np.sqrt(self.collections["variance"].to_numpy(dtype=float)),
            rope=rope,
            confidence_level=cl,
        )

    def summary(self) -> str:
        """One sentence: on how many collections, and the pooled effect."""
        N = len(self.collections)
        kb, kf = self.k_hat["bonferroni"], self.k_hat["fisher"]
        side = {"greater": "better", "less": "worse", "two-sided": "different"}[self.alternative]
        first = str(self.meta.index[0])
        dl = self.meta.loc[first]
        name = {
            "DL": "DerSimonian-Laird",
            "PM": "Paule-Mandel",
            "REML": "REML",
            "SJ": "Sidik-Jonkman",
        }[first]
        which = ", ".join(self.replicated) if self.replicated else "none"
        return (
            f"A is {side} than B on at least {kb} of {N} collections (Bonferroni; "
            f"Fisher, for independent collections: {kf}) at alpha = {self.alpha:g}; "
            f"identified (Holm): {which}. Random-effects {self.effect} "
            f"({name}): {dl['estimate']:.3f} [{dl['ci_low']:.3f}, {dl['ci_high']:.3f}], "
            f"tau^2 = {dl['tau2']:.4f}, I^2 = {100 * dl['i2']:.0f}%."
        )


# --------------------------------------------------------------------------
# replicability analysis (Dror et al. 2017)
# --------------------------------------------------------------------------
def partial_conjunction_pvalues(pvalues):
    r"""Partial-conjunction p-values :math:`p^{u/N}`, u = 1..N, Bonferroni and Fisher.

    With :math:`p_{(1)} \le \dots \le p_{(N)}` the sorted p-values,

    .. math:: p^{u/N}_{B} = (N - u + 1)\, p_{(u)}, \qquad
              p^{u/N}_{F} = P\Big(\chi^2_{2(N-u+1)} \ge -2 \sum_{i=u}^{N} \log p_{(i)}\Big),

    each made non-decreasing in :math:`u` (a running maximum) and capped at 1,
    as in Dror et al. (2017, Algorithm 1 and their code). Bonferroni's is
    valid under any dependence between the collections; Fisher's needs them
    independent.

    Returns
    -------
    DataFrame
        Indexed by ``u``, columns ``bonferroni`` and ``fisher``.

    Examples
    --------
    The example of Dror et al.'s code (rtmdrr/replicability-analysis-NLP, README):

    >>> from mrrstats.stats.meta import partial_conjunction_pvalues
    >>> pc = partial_conjunction_pvalues([0.168, 0.297, 0.357, 0.019, 0.218, 0.001])
    >>> int((pc["bonferroni"] <= 0.05).sum()), int((pc["fisher"] <= 0.05).sum())
    (1, 2)
    """
    from scipy import stats

    p = np.sort(np.asarray(pvalues, dtype=float))
    if p.ndim != 1 or p.size == 0:
        raise ParameterError("`pvalues` must be a non-empty 1-D sequence")
    if not ((p >= 0) & (p <= 1)).all():
        raise ParameterError("`pvalues` must lie in [0, 1]")
    N = p.size
    u = np.arange(1, N + 1)
    bonf = np.minimum((N - u + 1) * p, 1.0)
    with np.errstate(divide="ignore"):
        logs = -2.0 * np.log(p)
    tail = np.cumsum(logs[::-1])[::-1]  # sum_{i >= u} -2 log p_(i)
    fisher = stats.chi2.sf(tail, 2 * (N - u + 1))
    frame = pd.DataFrame(
        {
            "bonferroni": np.maximum.accumulate(bonf),
            "fisher": np.minimum(np.maximum.accumulate(fisher), 1.0),
        },
        index=pd.Index(u, name="u"),
    )
    return frame


def _holm(pvalues, alpha):
    """Indices rejected by Holm's step-down procedure at ``alpha``."""
    order = np.argsort(pvalues, kind="stable")
    N = len(order)
    out = []
    for i, j in enumerate(order):
        if pvalues[j] > alpha / (N - i):
            break
        out.append(int(j))
    return out


# --------------------------------------------------------------------------
# random-effects meta-analysis
# --------------------------------------------------------------------------
def _tau2_dl(y, v):
    w = 1.0 / v
    mu = (w * y).sum() / w.sum()
    q = float((w * (y - mu) ** 2).sum())
    c = w.sum() - (w * w).sum() / w.sum()
    return max(0.0, (q - (y.size - 1)) / c) if c > 0 else 0.0


def _tau2_pm(y, v, *, tol=1e-12, maxiter=200):
    """Paule-Mandel: the root in tau^2 >= 0 of sum w_i (y_i - mu_w)^2 = N - 1."""
    from scipy import optimize

    k = y.size

    def excess(t2):
        w = 1.0 / (v + t2)
        mu = (w * y).sum() / w.sum()
        return float((w * (y - mu) ** 2).sum()) - (k - 1)

    if k < 2 or excess(0.0) <= 0:
        return 0.0
    hi = max(float(np.var(y, ddof=1)), 1e-12)
    while excess(hi) > 0:  # the generalised Q decreases in tau^2
        hi *= 2.0
    return float(optimize.brentq(excess, 0.0, hi, xtol=tol, maxiter=maxiter))


def _q_gen(y, v, t2):
    """The generalised Q statistic sum w_i (y_i - mu_w)^2 with w_i = 1/(v_i + t2)."""
    w = 1.0 / (v + t2)
    mu = (w * y).sum() / w.sum()
    return float((w * (y - mu) ** 2).sum())


def _tau2_reml(y, v, *, tol=1e-12, maxiter=10000):
    """REML by Fisher scoring from the DL estimate, halving steps that leave [0, inf) (metafor)."""
    t2 = _tau2_dl(y, v)
    for _ in range(maxiter):
        w = 1.0 / (v + t2)
        sw = w.sum()
        mu = (w * y).sum() / sw
        # P = W - w w'/sum w; tr(P), tr(PP) and y'PPy for an intercept-only model
        tr_p = sw - (w * w).sum() / sw
        tr_pp = (w * w).sum() - 2 * (w**3).sum() / sw + ((w * w).sum() / sw) ** 2
        py = w * (y - mu)
        adj = (float((py * py).sum()) - tr_p) / tr_pp
        while t2 + adj < 0:
            adj /= 2.0
        t2 += adj
        if abs(adj) <= tol * max(1.0, t2):
            break
    return float(max(t2, 0.0))


def _tau2_sj(y, v):
    """Sidik-Jonkman: tau0^2 = sum (y - ybar)^2 / k, one step tau0^2 Q_gen(tau0^2)/(k - 1)."""
    k = y.size
    t0 = float(((y - y.mean()) ** 2).sum() / k)
    if k < 2 or t0 <= 0:
        return 0.0
    return t0 * _q_gen(y, v, t0) / (k - 1)


def _tau2_qprofile(y, v, cl):
    """Viechtbauer's (2007) Q-profile interval: Q_gen(tau^2) at the chi^2_{k-1} quantiles."""
    from scipy import optimize, stats

    k = y.size
    if k < 2:
        return math.nan, math.nan
    alpha = 1 - cl

    def root(target):
        if _q_gen(y, v, 0.0) <= target:
            return 0.0
        hi = max(float(np.var(y, ddof=1)), float(v.max()), 1e-12)
        while _q_gen(y, v, hi) > target:  # Q_gen decreases in tau^2
            hi *= 2.0
        return float(
            optimize.brentq(
                lambda t: _q_gen(y, v, t) - target, 0.0, hi, xtol=1e-14, rtol=1e-13, maxiter=500
            )
        )

    return (
        root(float(stats.chi2.isf(alpha / 2, k - 1))),
        root(float(stats.chi2.ppf(alpha / 2, k - 1))),
    )


def random_effects(
    effects,
    variances,
    *,
    method="DL",
    alternative="two-sided",
    confidence_level=0.95,
    meta_test="z",
):
    r"""Random-effects pooling of per-collection effects (DL, PM, REML or Sidik-Jonkman).

    Parameters
    ----------
    effects, variances : array_like, 1-D
        The effect of each collection and its within-collection variance.
    method : {"DL", "PM", "REML", "SJ"}, keyword-only
        DerSimonian & Laird's (1986) moment estimator of :math:`\tau^2`,
        Paule & Mandel's (1982) (the generalised Q statistic set to its
        expectation, recommended by Veroniki et al. 2016), restricted maximum
        likelihood (Fisher scoring from DL, as R's metafor ``rma(method="REML")``)
        or Sidik & Jonkman's (2005) estimator (``rma(method="SJ")``).
    alternative : {"two-sided", "greater", "less"}, keyword-only
        For the test of the pooled effect.
    confidence_level : float, keyword-only
    meta_test : {"z", "knha"}, keyword-only
        ``"z"`` (the default): normal interval and test with standard error
        :math:`(\sum w_i)^{-1/2}`; ``"knha"``: Knapp & Hartung's (2003)
        adjustment, standard error :math:`\sqrt{s^2/\sum w_i}` with
        :math:`s^2 = \sum w_i(y_i - \hat\mu)^2/(N-1)` (not truncated at 1)
        and a t distribution with N - 1 df (metafor's ``test="knha"``).

    Returns
    -------
    dict
        ``estimate``, ``standard_error``, ``ci_low``, ``ci_high``, ``pi_low``,
        ``pi_high``, ``tau2``, ``tau2_ci_low``, ``tau2_ci_high`` (Q-profile),
        ``i2``, ``q``, ``q_pvalue``, ``statistic``, ``pvalue``.

    Notes
    -----
    With weights :math:`w_i = 1/(v_i + \hat\tau^2)`, the pooled effect is
    :math:`\hat\mu = \sum w_i y_i/\sum w_i`, its standard error
    :math:`(\sum w_i)^{-1/2}`, the interval normal; Cochran's
    :math:`Q = \sum v_i^{-1}(y_i - \hat\mu_{FE})^2` (:math:`\chi^2_{N-1}` under
    homogeneity); :math:`I^2 = \hat\tau^2/(\hat\tau^2 + \tilde v)` with the
    typical within variance :math:`\tilde v = (N-1)\sum v_i^{-1}/((\sum
    v_i^{-1})^2 - \sum v_i^{-2})` (Higgins & Thompson 2002; metafor's
    definition, equal to :math:`(Q - N + 1)/Q` under DL); the prediction
    interval :math:`\hat\mu \pm t_{N-2}\sqrt{\hat\tau^2 + SE^2}` (Higgins,
    Thompson & Spiegelhalter 2009; NaN for N < 3). statsmodels'
    ``combine_effects`` gives the same estimates when :math:`\hat\tau^2 > 0`
    (it does not truncate the DL estimate at 0).

    The interval for :math:`\tau^2` is Viechtbauer's (2007) Q-profile: the
    :math:`\tau^2` where the generalised Q statistic
    :math:`\sum (v_i+\tau^2)^{-1}(y_i - \hat\mu_{\tau^2})^2` equals the
    upper and lower :math:`(1 - \text{level})/2` quantiles of
    :math:`\chi^2_{N-1}` (a bound is 0 where Q at 0 is already below its
    quantile); metafor's ``confint(rma(...))``. It does not depend on
    ``method``. REML, SJ, Knapp-Hartung and the Q-profile interval agree with
    metafor 4 to 1e-9 (tests/stats/r_reference/meta_tau2.R).

    Examples
    --------
    Kacker (2004, Table 1) and R metafor, 9 interlaboratory results:

    >>> from mrrstats.stats.meta import random_effects
    >>> y = [61.0, 61.4, 62.21, 62.3, 62.34, 62.6, 62.7, 62.84, 65.9]
    >>> v = [0.2025, 1.21, 0.09, 0.2025, 0.3844, 0.5625, 0.0676, 0.0225, 1.8225]
    >>> pm = random_effects(y, v, method="PM")
    >>> round(pm["tau2"] ** 0.5, 4), round(pm["estimate"], 4)
    (0.8399, 62.4076)
    """
    from scipy import stats

    y = np.asarray(effects, dtype=float)
    v = np.asarray(variances, dtype=float)
    if y.ndim != 1 or y.shape != v.shape or y.size == 0:
        raise ParameterError("`effects` and `variances` must be 1-D of the same non-zero length")
    if not (np.isfinite(y).all() and np.isfinite(v).all() and (v > 0).all()):
        raise ParameterError("`effects` must be finite and `variances` finite and positive")
    if not isinstance(method, str) or method not in RE_METHODS:
        raise ParameterError(f"`method` must be one of {RE_METHODS}, got {method!r}")
    if not isinstance(meta_test, str) or meta_test not in RE_TESTS:
        raise ParameterError(f"`meta_test` must be one of {RE_TESTS}, got {meta_test!r}")
    alternative_iv(alternative)
    cl = confidence_level_iv(confidence_level)
    k = y.size
    if meta_test == "knha" and k < 2:
        raise ParameterError("`meta_test='knha'` needs at least 2 effects")
    tau2 = {"DL": _tau2_dl, "PM": _tau2_pm, "REML": _tau2_reml, "SJ": _tau2_sj}[method](y, v)
    w = 1.0 / (v + tau2)
    mu = float((w * y).sum() / w.sum())
    se = float(1.0 / math.sqrt(w.sum()))
    if meta_test == "knha":
        s2 = float((w * (y - mu) ** 2).sum()) / (k - 1)
        se = se * math.sqrt(s2)
        dist = stats.t(k - 1)
    else:
        dist = stats.norm
    t2_lo, t2_hi = _tau2_qprofile(y, v, cl)
    wf = 1.0 / v
    mu_fe = (wf * y).sum() / wf.sum()
    q = float((wf * (y - mu_fe) ** 2).sum())
    den = wf.sum() ** 2 - (wf * wf).sum()
    typical = (k - 1) * wf.sum() / den if den > 0 else math.nan
    i2 = tau2 / (tau2 + typical) if k > 1 and typical > 0 else 0.0
    z = float(dist.isf((1 - cl) / 2))
    if k >= 3:
        tq = stats.t.isf((1 - cl) / 2, k - 2)
        half = tq * math.sqrt(tau2 + se * se)
        pi = (mu - half, mu + half)
    else:
        pi = (math.nan, math.nan)
    stat = mu / se if se > 0 else math.copysign(math.inf, mu)
    p = {"two-sided": 2 * dist.sf(abs(stat)), "greater": dist.sf(stat), "less": dist.cdf(stat)}[
        alternative
    ]
    return {
        "estimate": mu,
        "standard_error": se,
        "ci_low": mu - z * se,
        "ci_high": mu + z * se,
        "pi_low": pi[0],
        "pi_high": pi[1],
        "tau2": float(tau2),
        "tau2_ci_low": t2_lo,
        "tau2_ci_high": t2_hi,
        "i2": float(i2),
        "q": q,
        "q_pvalue": float(stats.chi2.sf(q, k - 1)) if k > 1 else math.nan,
        "statistic": float(stat),
        "pvalue": float(p),
    }


# --------------------------------------------------------------------------
# per-collection inputs
# --------------------------------------------------------------------------
def _one_sided(p_two, diff, alternative):
    """A one-sided p-value from a two-sided one of a symmetric test."""
    if alternative == "two-sided":
        return p_two
    agrees = diff > 0 if alternative == "greater" else diff < 0
    return p_two / 2.0 if agrees else 1.0 - p_two / 2.0


def _from_comparison(name, cmp, measure, alternative):
    m = cmp.measures[0] if measure is None else measure
    if m not in cmp.results:
        raise ParameterError(f"`data[{name!r}]` has no measure {m!r} (has {list(cmp.measures)})")
    r = cmp.results[m]
    if len(r) != 1:
        raise ParameterError(
            f"`data[{name!r}]` compares {len(cmp.systems)} systems; "
            "across_collections needs one pair per collection (compare two "
            "systems, or pass their two-column score frame)"
        )
    n = int(r.n_queries)
    diff = float(r.difference[0])
    d_z = float(r.d_z[0])
    if diff == 0.0 or not np.isfinite(d_z) or d_z == 0.0:
        raise ParameterError(
            f"`data[{name!r}]`: the standard deviation of the differences "
            "cannot be recovered from a comparison with no difference; pass "
            "the two-column score frame"
        )
    sd = diff / d_z
    p = float(r.pvalue[0])
    if cmp.alternative != alternative:
        if cmp.alternative != "two-sided":
            raise ParameterError(
                f"`data[{name!r}]` was tested with alternative="
                f"{cmp.alternative!r}; compare with 'two-sided' or {alternative!r}"
            )
        p = _one_sided(p, diff, alternative)
    return {
        "n_queries": n,
        "mean_a": float(r.mean_a[0]),
        "mean_b": float(r.mean_b[0]),
        "difference": diff,
        "std": sd,
        "d_z": d_z,
        "statistic": float(r.statistic[0]),
        "pvalue": p,
        "test": r.test,
        "n_resamples": None if r.exact or r.n_resamples is None else int(r.n_resamples),
    }


def _from_scores(name, table, test, alternative, gen):
    if table.n_systems != 2:
        raise ParameterError(
            f"`data[{name!r}]` must have two columns (A first, then B), got {table.n_systems}"
        )
    a, b = table.values[:, 0], table.values[:, 1]
    d = a - b
    n = d.size
    sd = float(d.std(ddof=1))
    mean = float(d.mean())
    d_z = mean / sd if sd > 0 else (0.0 if mean == 0 else math.copysign(math.inf, mean))
    if test == "t":
        res = paired_ttest(a, b, alternative=alternative)
    elif test == "randomization":
        res = randomization_test(a, b, alternative=alternative, rng=gen)
    elif test == "bootstrap":
        res = bootstrap_test(a, b, alternative=alternative, rng=gen)
    elif test == "wilcoxon":
        res = wilcoxon_test(a, b, alternative=alternative)
    else:
        res = sign_test(a, b, alternative=alternative)
    return {
        "n_queries": n,
        "mean_a": float(a.mean()),
        "mean_b": float(b.mean()),
        "difference": mean,
        "std": sd,
        "d_z": d_z,
        "statistic": float(res.statistic),
        "pvalue": float(res.pvalue),
        "test": test,
        "n_resamples": _random_b(res),
    }


def _random_b(res: object) -> int | None:
    """B of a Monte Carlo test result (None for a test with no resamples or an exact one)."""
    b = getattr(res, "n_resamples", None)
    return None if b is None or getattr(res, "exact", False) else int(b)


def across_collections(
    data: Mapping[str, Comparison | pd.DataFrame],
    *,
    test: Literal["t", "randomization", "bootstrap", "wilcoxon", "sign"] = "t",
    alternative: Alternative = "greater",
    alpha: float = 0.05,
    effect: Literal["d_z", "difference"] = "d_z",
    confidence_level: float = 0.95,
    measure: str | None = None,
    tau2_methods: Sequence[str] = TAU2_METHODS,
    meta_test: Literal["z", "knha"] = "z",
    rng: Seed = None,
) -> AcrossCollectionsResult:
    r"""On how many collections is A better than B, and by how much overall?

    Parameters
    ----------
    data : mapping of str -> Comparison or score frame
        ``{collection: x}`` where ``x`` is a :class:`~mrrstats.Comparison` of
        two systems (its own test and p-value are used) or per-query scores of
        two systems, A in the first column and B in the second (a DataFrame,
        :class:`ScoreTable`, or path). At least two collections.
    test : {"t", "randomization", "bootstrap", "wilcoxon", "sign"}, keyword-only
        The paired test run on each score frame (Dror et al. recommend the
        test that fits each collection's data; see :func:`mrrstats.calibrate_tests`).
    alternative : {"greater", "less", "two-sided"}, keyword-only
        ``"greater"`` (the default): "A is better than B". Partial
        conjunctions need a direction; a two-sided p-value of a
        :class:`~mrrstats.Comparison` is halved towards it.
    alpha : float, keyword-only
    effect : {"d_z", "difference"}, keyword-only
        Meta-analyse the standardised paired difference :math:`d_z =
        \bar d/s_d`, with variance :math:`1/n + d_z^2/(2n)` (the default: it
        puts collections whose measures differ in scale on one scale), or the
        raw mean difference :math:`\bar d` with variance :math:`s_d^2/n`.
    confidence_level : float, keyword-only
    measure : str, optional, keyword-only
        Which measure of the comparisons (default: their first).
    tau2_methods : sequence of {"DL", "PM", "REML", "SJ"}, keyword-only
        The between-collection variance estimators, one row of ``meta`` each
        (default ``("DL", "PM")``); see :func:`random_effects`.
    meta_test : {"z", "knha"}, keyword-only
        The test and interval of the pooled effect: normal (the default) or
        Knapp-Hartung (t with N - 1 df; metafor's ``test="knha"``).
    rng : None, int or numpy.random.Generator, keyword-only
        For the random tests (``"randomization"``, ``"bootstrap"``); one
        Generator consumed collection by collection in order.

    Returns
    -------
    AcrossCollectionsResult

    Notes
    -----
    Replicability analysis (Dror, Baumer, Bogomolov & Reichart 2017): with
    one-sided p-values :math:`p_1, \dots, p_N`, the partial-conjunction null
    "A is better on fewer than :math:`u` collections" is tested by
    :func:`partial_conjunction_pvalues`; as these nulls are nested,
    :math:`\hat k = \max\{u: p^{u/N} \le \alpha\}` counts the collections with
    an effect while controlling the family-wise error at :math:`\alpha`; and
    Holm's procedure on :math:`p_1, \dots, p_N` names :math:`\hat k_B` of them.

    The variance of :math:`d_z` is the large-sample variance of the
    standardised mean change (Borenstein, Hedges, Higgins & Rothstein 2009,
    eq. 4.28 with the standardiser :math:`s_d`); its interval in
    ``collections`` is the normal one. See :func:`random_effects` for the
    pooling.

    References
    ----------
    R. Dror, G. Baumer, M. Bogomolov, R. Reichart, "Replicability analysis for
    natural language processing: testing significance with multiple datasets",
    TACL 5, 2017.
    Y. Benjamini, R. Heller, "Screening for partial conjunction hypotheses",
    Biometrics 64, 2008.
    R. DerSimonian, N. Laird, "Meta-analysis in clinical trials", Controlled
    Clinical Trials 7, 1986. R. C. Paule, J. Mandel, "Consensus values and
    weighting factors", J. Res. NBS 87, 1982.

    Examples
    --------
    >>> import mrrstats
    >>> data = {m: mrrstats.datasets.trec7_scores(m)[["run1", "run2"]]
    ...         for m in ("RR", "AP", "P@10")}
    >>> res = mrrstats.across_collections(data, alternative="two-sided")
    >>> list(res.partial_conjunction.columns), list(res.meta.index)
    (['bonferroni', 'fisher'], ['DL', 'PM'])
    """
    (items, test, alternative, alpha, effect, cl, gen, seed) = _across_collections_iv(
        data, test, alternative, alpha, effect, confidence_level, measure, rng
    )
    methods, meta_test = _meta_options_iv(tau2_methods, meta_test)
    from scipy import stats

    rows = {}
    for name, value in items:
        if isinstance(value, Comparison):
            rows[name] = _from_comparison(name, value, measure, alternative)
        else:
            rows[name] = _from_scores(name, value, test, alternative, gen)
    frame = pd.DataFrame.from_dict(rows, orient="index")
    bs = [int(r["n_resamples"]) for r in rows.values() if r["n_resamples"] is not None]
    frame.index.name = "collection"
    n = frame["n_queries"].to_numpy(dtype=float)
    if effect == "d_z":
        eff = frame["d_z"].to_numpy(dtype=float)
        var = 1.0 / n + eff**2 / (2.0 * n)
    else:
        eff = frame["difference"].to_numpy(dtype=float)
        var = frame["std"].to_numpy(dtype=float) ** 2 / n
    if not (np.isfinite(eff).all() and (var > 0).all()):
        bad = list(frame.index[~(np.isfinite(eff) & (var > 0))])
        raise ParameterError(
            f"collections {bad} have no variation in the per-query differences; "
            "their effect cannot be meta-analysed"
        )
    z = stats.norm.isf((1 - cl) / 2)
    frame["effect"] = eff
    frame["variance"] = var
    frame["ci_low"] = eff - z * np.sqrt(var)
    frame["ci_high"] = eff + z * np.sqrt(var)
    p = frame["pvalue"].to_numpy(dtype=float)
    pc = partial_conjunction_pvalues(p)
    k_hat = {
        "bonferroni": int((pc["bonferroni"] <= alpha).sum()),
        "fisher": int((pc["fisher"] <= alpha).sum()),
    }
    chosen = _holm(p, alpha)
    frame["replicated"] = [i in chosen for i in range(len(frame))]
    meta = pd.DataFrame(
        {
            m: random_effects(
                eff,
                var,
                method=m,
                alternative=alternative,
                confidence_level=cl,
                meta_test=meta_test,
            )
            for m in methods
        }
    ).T
    meta.index.name = "method"
    cols = [
        "test",
        "n_queries",
        "mean_a",
        "mean_b",
        "difference",
        "std",
        "d_z",
        "effect",
        "variance",
        "ci_low",
        "ci_high",
        "statistic",
        "pvalue",
        "replicated",
    ]
    return AcrossCollectionsResult(
        collections=frame[cols],
        partial_conjunction=pc,
        k_hat=k_hat,
        replicated=tuple(frame.index[i] for i in sorted(chosen)),
        meta=meta.astype(float),
        effect=effect,
        test=test,
        alternative=alternative,
        alpha=alpha,
        confidence_level=cl,
        seed=seed,
        meta_test=meta_test,
        n_resamples=max(bs) if bs else None,
    )


def _meta_options_iv(tau2_methods, meta_test):
    if isinstance(tau2_methods, str) or not isinstance(tau2_methods, Sequence):
        raise ParameterTypeError(
            "`tau2_methods` must be a sequence of method names from "
            f"{RE_METHODS}, got {tau2_methods!r}"
        )
    methods = tuple(tau2_methods)
    if (
        not methods
        or not all(isinstance(m, str) and m in RE_METHODS for m in methods)
        or len(set(methods)) != len(methods)
    ):
        raise ParameterError(
            f"`tau2_methods` must name distinct methods from {RE_METHODS}, got {tau2_methods!r}"
        )
    if not isinstance(meta_test, str) or meta_test not in RE_TESTS:
        raise ParameterError(f"`meta_test` must be one of {RE_TESTS}, got {meta_test!r}")
    return methods, meta_test


def _across_collections_iv(data, test, alternative, alpha, effect, confidence_level, measure, rng):
    if not isinstance(data, Mapping):
        raise ParameterTypeError(
            "`data` must be a mapping {collection: Comparison or two-column "
            f"score frame}}, got {type(data).__name__}"
        )
    if len(data) < 2:
        raise ParameterError(f"`data` needs at least 2 collections, got {len(data)}")
    test = test_spec(test).name
    if not isinstance(test, str | None) or test not in META_TESTS:
        raise ParameterError(f"`test` must be one of {META_TESTS}, got {test!r}")
    alternative_iv(alternative)
    alpha = alpha_iv(alpha)
    if not isinstance(effect, str | None) or effect not in EFFECTS:
        raise ParameterError(f"`effect` must be one of {EFFECTS}, got {effect!r}")
    cl = confidence_level_iv(confidence_level)
    if isinstance(rng, numbers.Real) and not isinstance(rng, numbers.Integral):
        raise ParameterTypeError(
            f"`rng` must be None, an integer seed or a Generator, got {rng!r}"
        )
    gen, seed = rng_iv(rng)
    items = []
    for name, value in data.items():
        if not isinstance(name, str) or not name:
            raise ParameterTypeError(
                f"`data` keys must be non-empty collection names, got {name!r}"
            )
        if isinstance(value, Comparison):
            items.append((name, value))
            continue
        table = (
            value
            if isinstance(value, ScoreTable)
            else as_score_table(
                value, measure=measure, min_systems=2, min_queries=3, name=f"data[{name!r}]"
            )
        )
        items.append((name, table))
    return items, test, alternative, alpha, effect, cl, gen, seed
