r"""Bayesian comparison of two systems: posterior probabilities instead of p-values.

:func:`bayesian_comparison` gives the posterior distribution of the mean
paired difference :math:`\mu = \mu_a - \mu_b` over the population of queries,
and from it :math:`P(\mu > 0)`, :math:`P(|\mu| < \text{rope})` for a region of
practical equivalence, and a credible interval, in two ways:

* ``method="t"``: the closed form under the non-informative prior
  :math:`p(\mu, \sigma) \propto 1/\sigma` for normal differences: :math:`\mu`
  is Student t with :math:`n-1` degrees of freedom, location :math:`\bar d`,
  scale :math:`s_d/\sqrt n` (Gelman et al., BDA3, sec. 3.2; the "Bayesian
  correlated t-test" of Benavoli et al. 2017 with no correlation);
* ``method="bootstrap"``: the Bayesian bootstrap (Rubin 1981), which assumes no
  distribution: the population is a distribution on the observed differences
  with Dirichlet(1, ..., 1) weights, so :math:`\mu = \sum_i g_i d_i`.

:func:`bayesian_hierarchical` pools several collections with the normal
hierarchical model (collection effects :math:`\theta_j \sim N(\mu, \tau^2)`,
observed with their standard errors), computed exactly on a grid over
:math:`\tau` (BDA3 sec. 5.4): no sampler, no dependency. The Student-t hierarchical
model of Corani et al. (2017) on the per-query differences is
:func:`mrrstats.bayesian_hierarchical_t` (:mod:`mrrstats.stats.hierarchical`).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..errors import ParameterError, ParameterTypeError
from ..options import BAYES_METHODS
from ..validation import (
    array_iv,
    confidence_level_iv,
    int_iv,
    missing_iv,
    n_resamples_iv,
    resource_iv,
    rng_iv,
)
from .intervals import ConfidenceInterval
from .methods import MethodsText
from .methods_readers import methods_text

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Literal

    from numpy.typing import ArrayLike

    from .._typing import Missing, Seed

__all__ = ["BayesianComparison", "bayesian_comparison", "bayesian_hierarchical",
           "BAYES_METHODS"]

_BATCH_ELEMENTS = 1 << 21


@dataclass(frozen=True, eq=False)
class BayesianComparison:
    r"""Posterior of the mean difference :math:`\mu = \mu_a - \mu_b` (a minus b).

    Attributes
    ----------
    method : {"t", "bootstrap", "hierarchical"}
    difference : float
        Posterior mean of :math:`\mu` (the mean paired difference for
        ``"t"``; the pooled mean for ``"hierarchical"``).
    std : float
        Posterior standard deviation of :math:`\mu`.
    p_a_better, p_b_better : float
        :math:`P(\mu > 0)` and :math:`P(\mu < 0)` given the data.
    rope : float or None
        Half-width of the region of practical equivalence :math:`(-\text{rope}, \text{rope})`.
    p_rope : float
        :math:`P(|\mu| < \text{rope})` (NaN without ``rope``).
    p_a_practically_better, p_b_practically_better : float
        :math:`P(\mu > \text{rope})` and :math:`P(\mu < -\text{rope})` (NaN
        without ``rope``); with ``p_rope`` they sum to 1.
    confidence_level : float
        Level of ``ci_low``, ``ci_high``: an equal-tailed **credible**
        interval (the posterior puts that probability on it), not a
        confidence interval. Under ``"t"`` it equals the paired t confidence
        interval numerically; its meaning differs.
    ci_low, ci_high : float
    n_queries : int
        Queries (``"t"``, ``"bootstrap"``) or collections (``"hierarchical"``).
    df, scale : float
        Degrees of freedom and scale :math:`s_d/\sqrt n` of the t posterior (NaN otherwise).
    n_resamples : int or None
        Posterior draws of the Bayesian bootstrap.
    seed : int or None
        Seed of the draws (None when a Generator was passed).
    posterior : ndarray or None
        The draws of :math:`\mu` (``"bootstrap"``), in draw order.
    tau2 : float
        Posterior mean of the between-collection variance (``"hierarchical"``; NaN otherwise).
    p_new_a_better : float
        ``"hierarchical"``: :math:`P(\theta_{new} > 0)`, that A is better on a
        new collection from the same population (NaN otherwise).
    """

    method: str
    difference: float
    std: float
    p_a_better: float
    p_b_better: float
    rope: float | None
    p_rope: float
    p_a_practically_better: float
    p_b_practically_better: float
    confidence_level: float
    ci_low: float
    ci_high: float
    n_queries: int
    df: float = math.nan
    scale: float = math.nan
    n_resamples: int | None = None
    seed: int | None = None
    posterior: np.ndarray | None = field(repr=False, default=None)
    tau2: float = math.nan
    p_new_a_better: float = math.nan
    _grid: tuple = field(repr=False, default=())

    def methods(self) -> MethodsText:
        """The methods paragraph and its references (:mod:`mrrstats.stats.methods`)."""
        return methods_text(self)

    def credible_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """Equal-tailed credible interval of :math:`\\mu` at ``confidence_level``.

        Named so because it is one: the posterior probability that
        :math:`\\mu` lies in it is ``confidence_level`` (the glossary's level
        of every interval).
        """
        cl = self.confidence_level if confidence_level is None else \
            confidence_level_iv(confidence_level)
        lo, hi = self._quantiles(np.array([(1 - cl) / 2, (1 + cl) / 2]))
        return ConfidenceInterval(float(lo), float(hi), cl, f"credible-{self.method}")

    def _quantiles(self, probs):
        from scipy import stats

        if self.method == "t":
            return self.difference + self.scale * stats.t.ppf(probs, self.df)
        if self.method == "bootstrap":
            return np.quantile(self.posterior, probs)
        grid, cdf = self._grid
        return np.interp(probs, cdf, grid)

    def to_frame(self) -> pd.DataFrame:
        """One row: posterior summary, probabilities and the credible interval."""
        return pd.DataFrame([{
            "method": self.method, "difference": self.difference, "std": self.std,
            "ci_low": self.ci_low, "ci_high": self.ci_high,
            "confidence_level": self.confidence_level, "p_a_better": self.p_a_better,
            "p_b_better": self.p_b_better, "rope": self.rope, "p_rope": self.p_rope,
            "p_a_practically_better": self.p_a_practically_better,
            "p_b_practically_better": self.p_b_practically_better,
            "n_queries": self.n_queries, "n_resamples": self.n_resamples, "seed": self.seed}])

    def summary(self) -> str:
        """One sentence with the probabilities (for reports)."""
        s = (f"P(A better) = {self.p_a_better:.3f}, mean difference {self.difference:+.4f}, "
             f"{100 * self.confidence_level:g}% credible interval [{self.ci_low:+.4f}, "
             f"{self.ci_high:+.4f}]")
        if self.rope is not None:
            s += (f"; with a region of practical equivalence of +-{self.rope:g}: "
                  f"P(A practically better) = {self.p_a_practically_better:.3f}, "
                  f"P(equivalent) = {self.p_rope:.3f}, "
                  f"P(B practically better) = {self.p_b_practically_better:.3f}")
        return s + "."


def _probabilities(cdf: Callable[[Any], Any], rope: float | None
                   ) -> tuple[float, float, float, float, float]:
    """``p_a_better, p_b_better, p_rope, p_a_practically, p_b_practically`` from a CDF."""
    p_b = float(cdf(0.0))
    if rope is None:
        return 1.0 - p_b, p_b, math.nan, math.nan, math.nan
    lo, hi = float(cdf(-rope)), float(cdf(rope))
    return 1.0 - p_b, p_b, hi - lo, 1.0 - hi, lo


def bayesian_comparison(a: ArrayLike, b: ArrayLike | None = None, *, rope: float | None = None,
                        method: Literal["t", "bootstrap"] = "t", confidence_level: float = 0.95,
                        n_resamples: int = 10000, missing: Missing = "raise",
                        rng: Seed = None) -> BayesianComparison:
    r"""Posterior probability that system a is better than b, and a credible interval.

    Parameters
    ----------
    a, b : array_like, 1-D
        Per-query scores of the two systems on the same queries (or ``a`` the
        differences ``a - b`` and ``b`` None).
    rope : float, optional, keyword-only
        Half-width of the region of practical equivalence: differences within
        :math:`\pm` rope are "no practical difference" (e.g. 0.01 MRR).
    method : {"t", "bootstrap"}, keyword-only
        Student-t posterior (closed form) or Bayesian bootstrap.
    confidence_level : float, keyword-only
        Probability of the credible interval.
    n_resamples : int, keyword-only
        Posterior draws of the Bayesian bootstrap.
    missing : {"raise", "drop"}, keyword-only
        A query with a NaN in ``a`` or ``b``.
    rng : None, int or numpy.random.Generator, keyword-only
        For ``"bootstrap"``.

    Returns
    -------
    BayesianComparison

    Notes
    -----
    ``"t"``: under :math:`d_i \sim N(\mu, \sigma^2)` and the prior
    :math:`p(\mu, \sigma) \propto \sigma^{-1}`, the marginal posterior is
    :math:`(\mu - \bar d)/(s_d/\sqrt n) \sim t_{n-1}`, so :math:`P(\mu > 0) =
    F_{t,n-1}(\bar d\sqrt n / s_d)`, which is one minus the one-sided paired
    t-test p-value (Gelman et al. 2013, sec. 3.2); the credible interval
    equals the t confidence interval.

    ``"bootstrap"``: the Bayesian bootstrap (Rubin 1981) draws weights
    :math:`g \sim \text{Dirichlet}(1, \dots, 1)` (normalised standard
    exponentials) and sets :math:`\mu = \sum_i g_i d_i`; its posterior mean
    is :math:`\bar d` and its variance :math:`\hat\sigma^2/(n+1)` with
    :math:`\hat\sigma^2` the variance of :math:`d` with divisor :math:`n`. The
    probabilities are shares of draws; the draws are made row by row from
    ``rng``, so the result does not depend on how many are made at once.

    A posterior probability answers "given these queries, how likely is A
    better on the population of queries", which a p-value does not (Benavoli,
    Corani, Demšar & Zaffalon 2017; Carterette 2015 for IR).

    References
    ----------
    D. B. Rubin, "The Bayesian bootstrap", Annals of Statistics 9(1), 1981.
    A. Benavoli, G. Corani, J. Demšar, M. Zaffalon, "Time for a change: a tutorial
    for comparing multiple classifiers through Bayesian analysis", JMLR 18, 2017.
    B. Carterette, "Bayesian inference for information retrieval evaluation", ICTIR 2015.

    Examples
    --------
    >>> import mrrstats
    >>> rr = mrrstats.datasets.trec7_scores("RR")
    >>> res = mrrstats.bayesian_comparison(rr["run1"], rr["run2"], rope=0.01)
    >>> t = mrrstats.paired_ttest(rr["run1"], rr["run2"], alternative="less")
    >>> bool(abs(res.p_a_better - t.pvalue) < 1e-12)  # P(mu > 0) = one-sided p of "less"
    True
    >>> round(res.p_rope + res.p_a_practically_better + res.p_b_practically_better, 12)
    1.0
    """
    d, rope, method, cl, B, gen, seed = _bayesian_comparison_iv(
        a, b, rope, method, confidence_level, n_resamples, missing, rng)
    from scipy import stats

    n = d.size
    mean = float(d.mean())
    if method == "t":
        sd = float(d.std(ddof=1))
        scale = sd / math.sqrt(n)
        df = n - 1.0
        if scale == 0.0:
            def cdf(x):
                return float(x >= mean)
            lo = hi = mean
            post_sd = 0.0
        else:
            dist = stats.t(df, loc=mean, scale=scale)
            cdf = dist.cdf
            lo, hi = dist.ppf([(1 - cl) / 2, (1 + cl) / 2])
            post_sd = float(dist.std()) if df > 2 else math.inf
        probs = _probabilities(cdf, rope)
        return BayesianComparison("t", mean, post_sd, *probs[:2], rope, *probs[2:], cl,
                                  float(lo), float(hi), n, df=df, scale=scale, n_resamples=None,
                                  seed=seed)
    post = _bayesian_bootstrap(d, B, gen)
    srt = np.sort(post)

    def cdf(x):  # type: ignore[no-redef]  # the bootstrap posterior's
        return np.searchsorted(srt, x, side="right") / B

    probs = _probabilities(cdf, rope)
    lo, hi = np.quantile(post, [(1 - cl) / 2, (1 + cl) / 2])
    return BayesianComparison("bootstrap", float(post.mean()), float(post.std(ddof=1)),
                              *probs[:2], rope, *probs[2:], cl, float(lo), float(hi), n,
                              n_resamples=B, seed=seed, posterior=post)


def _bayesian_bootstrap(d, B, gen):
    n = d.size
    batch = max(1, _BATCH_ELEMENTS // n)
    resource_iv(8 * B, "n_resamples", what=f"{B:,} resamples")
    out = np.empty(B)
    for start in range(0, B, batch):
        r = min(batch, B - start)
        g = gen.standard_exponential((r, n))  # rows in draw order: batch-invariant
        out[start:start + r] = (g * d).sum(axis=1) / g.sum(axis=1)
    return out


def _bayesian_comparison_iv(a, b, rope, method, confidence_level, n_resamples, missing, rng):
    missing_iv(missing)
    try:
        x = np.asarray(a, dtype=float)
        y = None if b is None else np.asarray(b, dtype=float)
    except (TypeError, ValueError):
        raise ParameterTypeError("`a` and `b` must be 1-D sequences of numbers") from None
    if x.ndim != 1 or (y is not None and y.shape != x.shape):
        raise ParameterError("`a` and `b` must be 1-D and of the same length")
    d = x if y is None else x - y
    bad = np.isnan(d)
    if bad.any():
        if missing == "raise":
            raise ParameterError("`a` or `b` has a missing value (NaN); pass missing='drop'")
        d = d[~bad]
    if d.size < 2:
        raise ParameterError(f"need at least 2 queries, got {d.size}")
    if not np.isfinite(d).all():
        raise ParameterError("`a` and `b` must be finite")
    if rope is not None:
        if isinstance(rope, bool) or not isinstance(rope, numbers.Real):
            raise ParameterTypeError(f"`rope` must be a positive number or None, got {rope!r}")
        rope = float(rope)
        if not (rope > 0 and math.isfinite(rope)):
            raise ParameterError(f"`rope` must be a positive finite number, got {rope!r}")
    if not isinstance(method, str | None) or method not in BAYES_METHODS:
        raise ParameterError(f"`method` must be one of {BAYES_METHODS}, got {method!r}")
    cl = confidence_level_iv(confidence_level)
    B = n_resamples_iv(n_resamples)
    gen, seed = rng_iv(rng)
    return d, rope, method, cl, B, gen, seed


# --------------------------------------------------------------------------
# the hierarchical model over collections
# --------------------------------------------------------------------------
def bayesian_hierarchical(effects: ArrayLike, standard_errors: ArrayLike, *,
                          rope: float | None = None, confidence_level: float = 0.95,
                          n_grid: int = 2000) -> BayesianComparison:
    r"""Normal hierarchical model over collections, computed exactly on a grid over tau.

    Parameters
    ----------
    effects, standard_errors : array_like, 1-D
        The observed effect :math:`y_j` of each collection (e.g. the mean
        difference, or :math:`d_z`) and its standard error :math:`\sigma_j`.
    rope : float, optional, keyword-only
    confidence_level : float, keyword-only
    n_grid : int, keyword-only
        Points of the grid over :math:`\tau` (and of the grid over :math:`\mu`
        for the posterior CDF).

    Returns
    -------
    BayesianComparison
        ``method="hierarchical"``; ``difference`` and the probabilities are
        about the population mean :math:`\mu`; ``p_new_a_better`` is
        :math:`P(\theta_{new} > 0)` for a new collection; ``tau2`` is
        :math:`E(\tau^2 \mid y)`; ``n_queries`` counts the collections.

    Notes
    -----
    :math:`y_j \mid \theta_j \sim N(\theta_j, \sigma_j^2)`, :math:`\theta_j \sim
    N(\mu, \tau^2)`, flat priors on :math:`\mu` and on :math:`\tau \ge 0`
    (Gelman et al. 2013, BDA3 sec. 5.4, the "eight schools"). Then
    :math:`\mu \mid \tau, y \sim N(\hat\mu_\tau, V_\tau)` with :math:`w_j =
    1/(\sigma_j^2 + \tau^2)`, :math:`\hat\mu_\tau = \sum w_j y_j/\sum w_j`,
    :math:`V_\tau = 1/\sum w_j`, and

    .. math:: p(\tau \mid y) \propto V_\tau^{1/2} \prod_j w_j^{1/2}
              \exp\big(-\tfrac12 w_j (y_j - \hat\mu_\tau)^2\big),

    evaluated on a grid up to where it is negligible; the posterior of
    :math:`\mu` is the mixture of normals over that grid, and a new
    collection's :math:`\theta_{new} \mid \tau, y \sim N(\hat\mu_\tau, V_\tau + \tau^2)`.
    It is the normal approximation of the Student-t hierarchical model of Corani
    et al. (2017) (Benavoli et al. 2017; ``baycomp.HierarchicalTest``), which
    :func:`mrrstats.bayesian_hierarchical_t` fits by MCMC to the per-query
    differences of each collection.

    Examples
    --------
    >>> from mrrstats import bayesian_hierarchical
    >>> y = [28, 8, -3, 7, -1, 1, 18, 12]  # BDA3's eight schools
    >>> se = [15, 10, 16, 11, 9, 11, 10, 18]
    >>> res = bayesian_hierarchical(y, se)
    >>> round(res.difference, 1), round(res.p_a_better, 2)
    (7.9, 0.94)
    """
    from scipy import stats

    y = array_iv(effects, "effects", finite=False)
    s = array_iv(standard_errors, "standard_errors", finite=False)
    n_grid = int_iv(n_grid, "n_grid", minimum=50, maximum=10**7)
    if y.ndim != 1 or y.shape != s.shape or y.size < 2:
        raise ParameterError("`effects` and `standard_errors` must be 1-D, same length, >= 2")
    if not (np.isfinite(y).all() and np.isfinite(s).all() and (s > 0).all()):
        raise ParameterError("`effects` must be finite and `standard_errors` finite and positive")
    if rope is not None:
        if isinstance(rope, bool) or not isinstance(rope, numbers.Real) or not rope > 0:
            raise ParameterError(f"`rope` must be a positive number or None, got {rope!r}")
        rope = float(rope)
    cl = confidence_level_iv(confidence_level)
    spread = max(float(np.ptp(y)), float(s.max()))
    tau = np.linspace(0.0, 10.0 * spread, n_grid)
    w = 1.0 / (s[None, :] ** 2 + tau[:, None] ** 2)  # (grid, k)
    mu_hat = (w * y).sum(1) / w.sum(1)
    V = 1.0 / w.sum(1)
    logp = 0.5 * np.log(V) + 0.5 * np.log(w).sum(1) - 0.5 * (w * (y - mu_hat[:, None]) ** 2).sum(1)
    post = np.exp(logp - logp.max())
    post /= post.sum()

    def mix_cdf(x, extra=0.0):
        return float((post * stats.norm.cdf(x, mu_hat, np.sqrt(V + extra))).sum())

    mean = float((post * mu_hat).sum())
    var = float((post * (V + mu_hat ** 2)).sum()) - mean ** 2
    sd = math.sqrt(max(var, 0.0))
    mu_grid = np.linspace(mean - 12 * sd, mean + 12 * sd, n_grid)
    cdf_grid = (post[:, None] * stats.norm.cdf(mu_grid[None, :], mu_hat[:, None],
                                               np.sqrt(V)[:, None])).sum(0)
    probs = _probabilities(mix_cdf, rope)
    lo, hi = np.interp([(1 - cl) / 2, (1 + cl) / 2], cdf_grid, mu_grid)
    tau2 = float((post * tau ** 2).sum())
    p_new = 1.0 - float((post * stats.norm.cdf(0.0, mu_hat, np.sqrt(V + tau ** 2))).sum())
    return BayesianComparison("hierarchical", mean, sd, *probs[:2], rope, *probs[2:], cl,
                              float(lo), float(hi), int(y.size), tau2=tau2,
                              p_new_a_better=p_new, _grid=(mu_grid, cdf_grid))
