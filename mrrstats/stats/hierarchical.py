r"""The Bayesian hierarchical Student-t comparison of two systems across collections.

:func:`bayesian_hierarchical_t` is the hierarchical model of Corani, Benavoli,
Demšar, Mangili & Zaffalon (2017), the one Benavoli, Corani, Demšar & Zaffalon
(2017) recommend for comparing two systems over several data sets and that
``baycomp.HierarchicalTest`` fits with Stan. For collection :math:`i` with
per-query differences :math:`x_{ij}` (system a minus system b):

.. math::

    x_{ij} \mid \delta_i, \sigma_i &\sim N(\delta_i, \sigma_i^2), \quad j = 1..n_i, \\
    \delta_i \mid \delta_0, \sigma_0, \nu &\sim t_\nu(\delta_0, \sigma_0), \\
    \delta_0 \sim U(-\bar\delta, \bar\delta), \quad
    \sigma_0 &\sim U(0, \bar\sigma_0), \quad \sigma_i \sim U(0, \bar\sigma), \\
    \nu - 1 \sim \text{Gamma}(\alpha, \beta), \quad
    \alpha &\sim U(1, 2), \quad \beta \sim U(0.01, 0.1) \ (\text{rate}),

with baycomp's bounds: :math:`\bar\delta` the largest :math:`|x_{ij}|`,
:math:`\bar\sigma = 1000` times the mean within-collection standard deviation,
:math:`\bar\sigma_0 = 1000` times the standard deviation of the collection means.
baycomp's likelihood correlates the differences of one data set by :math:`\rho = 1/K`
(the folds of K-fold cross-validation share training data); queries are independent,
so here :math:`\rho = 0` (``correlation=`` sets it, for folds).

The posterior is sampled by a Gibbs sampler written for this model (no Stan), with
the Student t as a scale mixture of normals, :math:`\delta_i \mid \lambda_i \sim
N(\delta_0, \sigma_0^2/\lambda_i)`, :math:`\lambda_i \sim \text{Gamma}(\nu/2, \nu/2)`:
:math:`\lambda`, :math:`\delta`, :math:`\sigma_i`, :math:`\delta_0` and
:math:`\sigma_0` are drawn from their (truncated) conjugate conditionals; :math:`\nu`
by slice sampling (Neal 2003) from its conditional with :math:`\lambda` integrated out
and the prior's :math:`\alpha, \beta` integrated out by quadrature; and each sweep also
redraws :math:`(\delta_0, \sigma_0)` in the non-centred parameterisation
:math:`\delta_i = \delta_0 + \sigma_0\eta_i` (ancillarity-sufficiency interweaving,
Yu & Meng 2011), which keeps the chains moving when the collections are alike. The
chains run side by side (vectorised), and the split, rank-normalised :math:`\hat R`
and the bulk effective sample size of Vehtari et al. (2021) are reported.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import special

from ..defaults import CONFIDENCE_LEVEL
from ..errors import ConvergenceWarning, ParameterError, ParameterTypeError
from ..validation import confidence_level_iv, int_iv, resource_iv, rng_iv
from .bayes import BayesianComparison

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import ArrayLike

    from .._typing import Seed

__all__ = ["HierarchicalComparison", "bayesian_hierarchical_t"]

#: R-hat above which, or bulk effective sample size below which, the result warns.
RHAT_LIMIT = 1.01
ESS_LIMIT = 400

# baycomp 1.0.3's HierarchicalTest defaults
_ALPHA = (1.0, 2.0)
_BETA = (0.01, 0.1)
_UPPER_SIGMA = 1000.0

_GL_T, _GL_W = np.polynomial.legendre.leggauss(8)
_GL_A = _ALPHA[0] + (_ALPHA[1] - _ALPHA[0]) * (_GL_T + 1) / 2  # quadrature nodes for alpha
_GL_W = _GL_W * (_ALPHA[1] - _ALPHA[0]) / 2


@dataclass(frozen=True, eq=False)
class HierarchicalComparison(BayesianComparison):
    r"""Posterior of the Student-t hierarchical model (:func:`bayesian_hierarchical_t`).

    The fields of :class:`~mrrstats.BayesianComparison` are about the mean
    difference :math:`\delta_0` of the population of collections (``difference``
    its posterior mean, ``p_a_better`` :math:`P(\delta_0 > 0)`, ``p_rope``
    :math:`P(|\delta_0| < \text{rope})`, the credible interval its quantiles,
    ``posterior`` its draws, ``n_queries`` the number of collections,
    ``n_resamples`` the number of posterior draws kept). Besides:

    Attributes
    ----------
    p_new_a_better : float
        :math:`P(\delta_{new} > 0)`: the posterior predictive probability that a
        is better on the mean difference of a new collection from the population.
    p_new_a_practically_better, p_new_rope, p_new_b_practically_better : float
        The posterior predictive probabilities that :math:`\delta_{new}` is above
        ``rope``, within :math:`\pm` rope, below :math:`-` rope (NaN without rope).
    new_region_shares : tuple of float or None
        What ``baycomp.HierarchicalTest(...).probs()`` reports, in the order (a
        practically better, equivalent, b practically better): the share of
        posterior draws of :math:`(\delta_0, \sigma_0, \nu)` in which each region
        is the most probable one for :math:`\delta_{new}` (None without rope).
    sigma0, nu : float
        Posterior medians of the scale :math:`\sigma_0` and the degrees of
        freedom :math:`\nu` of the t distribution of the collection effects.
    correlation : float
        :math:`\rho` of the likelihood (0 for queries).
    n_chains, n_draws, n_warmup : int
        Chains, draws kept per chain, and sweeps discarded per chain.
    rhat, ess : float
        Largest split rank-normalised :math:`\hat R` and smallest bulk effective
        sample size over :math:`\delta_0`, :math:`\sigma_0`, :math:`\nu` and
        :math:`P(\delta_{new} > 0 \mid \delta_0, \sigma_0, \nu)`.
    converged : bool
        ``rhat <= 1.01`` and ``ess >= 400`` (a RuntimeWarning says so when not).
    diagnostics : pandas.DataFrame
        One row per monitored quantity: posterior ``mean``, ``sd``, ``rhat``, ``ess``.
    draws : dict of ndarray
        ``"delta0"``, ``"sigma0"``, ``"nu"``: the kept draws, shape (chains, draws).
    """

    p_new_a_practically_better: float = math.nan
    p_new_rope: float = math.nan
    p_new_b_practically_better: float = math.nan
    new_region_shares: tuple[float, float, float] | None = None
    sigma0: float = math.nan
    nu: float = math.nan
    correlation: float = 0.0
    n_chains: int = 0
    n_draws: int = 0
    n_warmup: int = 0
    rhat: float = math.nan
    ess: float = math.nan
    converged: bool = False
    diagnostics: pd.DataFrame | None = field(repr=False, default=None)
    draws: dict[str, np.ndarray] = field(repr=False, default_factory=dict)

    def _quantiles(self, probs):
        return np.quantile(self.posterior, probs)

    def to_frame(self) -> pd.DataFrame:
        """One row: the fields of :meth:`BayesianComparison.to_frame`, the predictive
        probabilities for a new collection, and the convergence diagnostics."""
        frame = super().to_frame()
        for name in (
            "p_new_a_better",
            "p_new_a_practically_better",
            "p_new_rope",
            "p_new_b_practically_better",
            "sigma0",
            "nu",
            "rhat",
            "ess",
        ):
            frame[name] = getattr(self, name)
        frame["n_chains"] = self.n_chains
        return frame

    def summary(self) -> str:
        """Two sentences: the population mean difference, and a new collection."""
        s = super().summary()
        s += f" On a new collection: P(A better) = {self.p_new_a_better:.3f}"
        if self.rope is not None:
            s += (
                f", P(A practically better) = {self.p_new_a_practically_better:.3f}, "
                f"P(equivalent) = {self.p_new_rope:.3f}, "
                f"P(B practically better) = {self.p_new_b_practically_better:.3f}"
            )
        s += f" ({self.n_chains} chains, R-hat {self.rhat:.3f}, ESS {self.ess:.0f})."
        return s


def bayesian_hierarchical_t(
    differences: Sequence[ArrayLike] | Mapping[str, ArrayLike],
    *,
    rope: float | None = None,
    confidence_level: float = CONFIDENCE_LEVEL,
    correlation: float = 0.0,
    n_chains: int = 8,
    n_draws: int = 1000,
    n_warmup: int = 500,
    rng: Seed = None,
) -> HierarchicalComparison:
    r"""Student-t hierarchical comparison of two systems over several collections.

    Parameters
    ----------
    differences : sequence or mapping of array_like, 1-D
        For each collection, the per-query differences ``a - b`` of the two
        systems' scores (at least two collections, two queries each; NaN refused).
    rope : float, optional, keyword-only
        Half-width of the region of practical equivalence, in score units.
    confidence_level : float, keyword-only
        Probability of the equal-tailed credible interval of :math:`\delta_0`.
    correlation : float, keyword-only
        Correlation :math:`\rho \in [0, 1)` of the differences within a
        collection: 0 for queries (the default); baycomp's :math:`1/K` for the
        folds of K-fold cross-validation.
    n_chains, n_draws, n_warmup : int, keyword-only
        Chains (run side by side), draws kept per chain, and sweeps discarded
        at the start of each chain.
    rng : None, int or numpy.random.Generator, keyword-only
        The same seed gives the same draws.

    Returns
    -------
    HierarchicalComparison

    Warns
    -----
    RuntimeWarning
        When :math:`\hat R > 1.01` or the bulk effective sample size is below 400:
        run longer chains (``n_draws``, ``n_warmup``).

    Notes
    -----
    The model and its priors are those of ``baycomp.HierarchicalTest`` (Corani et al.
    2017; defaults of baycomp 1.0.3), written out in :mod:`mrrstats.stats.hierarchical`,
    with :math:`\rho = 0`. The posterior is invariant to the scale of the differences
    (the bounds of the uniform priors scale with the data); the sampler works on the
    differences divided by their mean within-collection standard deviation, as baycomp
    does. Two departures: collections may have different numbers of queries, and a
    collection whose differences do not vary at all (a few queries, tied scores) has
    its :math:`\sigma_i` fixed at the standard deviation pooled over the other
    collections (baycomp replaces such data by random noise around zero; a free
    :math:`\sigma_i` would make the posterior improper).

    ``p_a_better`` and ``p_rope`` are about the mean difference :math:`\delta_0` of
    the population of collections; ``p_new_*`` about the mean difference
    :math:`\delta_{new} \sim t_\nu(\delta_0, \sigma_0)` of a new collection,
    averaged over the posterior; ``new_region_shares`` is baycomp's summary of
    the same.

    References
    ----------
    G. Corani, A. Benavoli, J. Demšar, F. Mangili, M. Zaffalon, "Statistical
    comparison of classifiers through Bayesian hierarchical modelling", Machine
    Learning 106, 2017. A. Benavoli, G. Corani, J. Demšar, M. Zaffalon, "Time for a
    change: a tutorial for comparing multiple classifiers through Bayesian analysis",
    JMLR 18(77), 2017. R. M. Neal, "Slice sampling", Annals of Statistics 31, 2003.
    Y. Yu, X.-L. Meng, "To center or not to center: that is not the question",
    JCGS 20, 2011. A. Vehtari, A. Gelman, D. Simpson, B. Carpenter, P.-C. Bürkner,
    "Rank-normalization, folding, and localization: an improved R-hat", Bayesian
    Analysis 16, 2021.

    Examples
    --------
    >>> import mrrstats
    >>> ap = mrrstats.datasets.trec7_scores("AP")
    >>> d = (ap["run1"] - ap["run2"]).to_numpy().reshape(5, 10)  # 5 blocks of 10 topics
    >>> res = mrrstats.bayesian_hierarchical_t(list(d), rope=0.01, rng=1)
    >>> res.converged, round(res.p_a_better, 1)
    (True, 0.9)
    """
    data, rope, cl, rho, C, N, W, gen, seed = _iv(
        differences, rope, confidence_level, correlation, n_chains, n_draws, n_warmup, rng
    )
    d0, s0, nu, scale = _gibbs(data, rho, C, N, W, gen)
    return _result(d0 * scale, s0 * scale, nu, len(data), rope, cl, rho, C, N, W, seed)


# --------------------------------------------------------------------------
# input
# --------------------------------------------------------------------------
def _iv(differences, rope, confidence_level, correlation, n_chains, n_draws, n_warmup, rng):
    if isinstance(differences, Mapping):
        items = list(differences.items())
    elif isinstance(differences, str | bytes) or not hasattr(differences, "__iter__"):
        raise ParameterTypeError(
            "`differences` must be a sequence of 1-D arrays, one per "
            f"collection, got {type(differences).__name__}",
            name="differences",
        )
    else:
        items = list(enumerate(differences))
    data = []
    for name, x in items:
        try:
            d = np.asarray(x, dtype=float)
        except (TypeError, ValueError):
            raise ParameterTypeError(
                f"`differences` of collection {name!r} must be numbers", name="differences"
            ) from None
        if d.ndim != 1:
            raise ParameterError(
                f"`differences` of collection {name!r} must be 1-D", name="differences"
            )
        if not np.isfinite(d).all():
            raise ParameterError(
                f"`differences` of collection {name!r} must be finite "
                "(drop missing queries first)",
                name="differences",
            )
        if d.size < 2:
            raise ParameterError(
                f"collection {name!r} has {d.size} query: the model needs "
                "at least 2 per collection",
                name="differences",
            )
        data.append(d)
    if len(data) < 2:
        raise ParameterError(
            f"`differences` needs at least 2 collections, got {len(data)}", name="differences"
        )
    if not any(d.std() > 0 for d in data):
        raise ParameterError(
            "the differences do not vary within any collection: no "
            "within-collection variation to model",
            name="differences",
        )
    if rope is not None:
        if isinstance(rope, bool) or not isinstance(rope, numbers.Real):
            raise ParameterTypeError(
                f"`rope` must be a positive number or None, got {rope!r}", name="rope"
            )
        rope = float(rope)
        if not (rope > 0 and math.isfinite(rope)):
            raise ParameterError(
                f"`rope` must be a positive finite number, got {rope!r}", name="rope"
            )
    if isinstance(correlation, bool) or not isinstance(correlation, numbers.Real):
        raise ParameterTypeError(
            f"`correlation` must be a number, got {correlation!r}", name="correlation"
        )
    rho = float(correlation)
    if not 0.0 <= rho < 1.0:
        raise ParameterError(
            f"`correlation` must be in [0, 1), got {correlation!r}", name="correlation"
        )
    cl = confidence_level_iv(confidence_level)
    C = int_iv(n_chains, "n_chains", minimum=2, maximum=10_000)
    N = int_iv(n_draws, "n_draws", minimum=4, maximum=10**8)
    W = int_iv(n_warmup, "n_warmup", minimum=0, maximum=10**8)
    resource_iv(8 * 4 * C * N, "n_draws", what=f"{C:,} chains of {N:,} draws")
    gen, seed = rng_iv(rng)
    return data, rope, cl, rho, C, N, W, gen, seed


# --------------------------------------------------------------------------
# the sampler
# --------------------------------------------------------------------------
def _log_prior_nu1(x):
    r"""Log density (up to a constant) of :math:`x = \nu - 1` with :math:`\alpha \sim
    U(1, 2)`, :math:`\beta \sim U(0.01, 0.1)` integrated out:
    :math:`x^{-2}\int_1^2 \alpha\,[P(\alpha + 1, 0.1x) - P(\alpha + 1, 0.01x)]\,d\alpha`
    (P the regularised lower incomplete gamma function)."""
    a = _GL_A + 1.0
    lo, hi = _BETA[0] * x[..., None], _BETA[1] * x[..., None]
    # the lower incomplete gamma where it is small, the upper one where it is near 1
    small = hi < a
    diff = np.where(
        small,
        special.gammainc(a, hi) - special.gammainc(a, lo),
        special.gammaincc(a, lo) - special.gammaincc(a, hi),
    )
    with np.errstate(divide="ignore"):
        return np.log((diff * _GL_A * _GL_W).sum(-1)) - 2.0 * np.log(x)


def _log_nu_conditional(z, r2, q):
    """Log density of z = log(nu - 1) given the standardised effects r2 = ((delta -
    delta0)/sigma0)^2 (lambda integrated out): prior, Jacobian and t likelihood."""
    x = np.exp(z)
    nu = 1.0 + x
    with np.errstate(over="ignore", invalid="ignore"):
        ll = q * (special.gammaln((nu + 1) / 2) - special.gammaln(nu / 2) - 0.5 * np.log(nu)) - (
            nu + 1
        ) / 2 * np.log1p(r2 / nu[:, None]).sum(1)
        out = _log_prior_nu1(x) + z + ll
    return np.where(np.isfinite(out), out, -np.inf)


def _slice(logf, z, gen, width=1.5, max_steps=20):
    """One slice-sampling update (Neal 2003, stepping out and shrinkage) of each chain."""
    y = logf(z) - gen.standard_exponential(z.shape)
    left = z - width * gen.random(z.shape)
    right = left + width
    j = np.floor(max_steps * gen.random(z.shape))
    k = max_steps - 1 - j
    out = (logf(left) > y) & (j > 0)
    while out.any():
        left = np.where(out, left - width, left)
        j -= 1
        out &= (logf(left) > y) & (j > 0)
    out = (logf(right) > y) & (k > 0)
    while out.any():
        right = np.where(out, right + width, right)
        k -= 1
        out &= (logf(right) > y) & (k > 0)
    new = z.copy()
    todo = np.ones(z.shape, bool)
    for _ in range(200):
        cand = left + gen.random(z.shape) * (right - left)
        ok = todo & (logf(cand) > y)
        new = np.where(ok, cand, new)
        todo &= ~ok
        if not todo.any():
            break
        below = cand < z
        left = np.where(todo & below, cand, left)
        right = np.where(todo & ~below, cand, right)
    return new  # a chain whose interval shrank to nothing keeps its value


def _truncnorm(mean, sd, lo, hi, gen):
    """Normal(mean, sd) truncated to (lo, hi), by inverting the CDF on the tail side."""
    a, b = (lo - mean) / sd, (hi - mean) / sd
    flip = a > 0  # all of (a, b) in the upper tail: draw -x on (-b, -a), accurately
    aa, bb = np.where(flip, -b, a), np.where(flip, -a, b)
    pa, pb = special.ndtr(aa), special.ndtr(bb)
    x = special.ndtri(pa + gen.random(np.shape(mean)) * (pb - pa))
    x = np.clip(np.where(flip, -x, x), a, b)
    return mean + sd * x


def _truncgamma(shape, rate, lower, gen):
    """Gamma(shape, rate) truncated to (lower, inf): direct draws, and the inverse CDF for
    the (rare) draws below ``lower``; one independent draw per element of the broadcast
    shape (per chain and collection)."""
    full = np.broadcast(shape, rate, lower).shape
    g = gen.standard_gamma(np.broadcast_to(shape, full)) / rate
    bad = g < lower
    if bad.any():
        sh, rt, lw = (np.broadcast_to(v, g.shape)[bad] for v in (shape, rate, lower))
        u = gen.random(sh.shape)
        q = special.gammaincc(sh, rt * lw)
        g = g.copy()
        g[bad] = np.maximum(special.gammainccinv(sh, u * q) / rt, lw)
    return g


def _gibbs(data, rho, C, N, W, gen):
    """Draws of (delta0, sigma0, nu), each (C, N), on the scale of the differences divided
    by ``scale`` (returned)."""
    q = len(data)
    n = np.array([d.size for d in data], float)
    sds = np.array([d.std() for d in data])  # ddof=0, as baycomp
    varying = sds > 0
    scale = float(sds[varying].mean())
    m = np.array([d.mean() for d in data]) / scale
    ss = np.array([((d - d.mean()) ** 2).sum() for d in data]) / scale**2
    sds = sds / scale
    neff = n / (1.0 + (n - 1.0) * rho)  # the weight of the mean under correlation rho
    ssr = ss / (1.0 - rho)
    pooled = math.sqrt(ss[varying].sum() / (n[varying] - 1).sum())
    fixed_prec = np.where(varying, np.nan, 1.0 / pooled**2)
    # baycomp's bounds of the uniform priors
    d_max = max(float(np.abs(d).max()) for d in data) / scale
    among = float(m.std())
    s0_max = _UPPER_SIGMA * (among if among > 0 else 1.0)
    prec_min = 1.0 / (_UPPER_SIGMA * float(sds[varying].mean())) ** 2
    prec0_min = 1.0 / s0_max**2

    # dispersed starting points
    spread = max(among, 1.0 / math.sqrt(n.mean()))
    d0 = np.clip(m.mean() + spread * gen.standard_normal(C), -0.99 * d_max, 0.99 * d_max)
    s0 = np.minimum(spread * np.exp(gen.normal(0.0, 0.7, C)), 0.5 * s0_max)
    z = np.log(gen.gamma(1.5, 20.0, C))
    delta = m + (sds / np.sqrt(n)) * gen.standard_normal((C, q))
    prec = np.where(varying, 1.0 / np.where(varying, sds, 1.0) ** 2, fixed_prec)
    prec = np.broadcast_to(prec, (C, q)).copy()
    shape_i = np.where(varying, (n - 1) / 2, 1.0)

    out = np.empty((3, C, N))
    for it in range(W + N):
        # nu | delta, delta0, sigma0 (lambda integrated out), then lambda | nu, ...
        r2 = ((delta - d0[:, None]) / s0[:, None]) ** 2
        z = _slice(lambda zz, r2=r2: _log_nu_conditional(zz, r2, q), z, gen)
        nu = 1.0 + np.exp(z)
        lam = gen.standard_gamma(np.broadcast_to(((nu + 1) / 2)[:, None], (C, q)))
        lam *= 2.0 / (nu[:, None] + r2)
        # delta_i | lambda, sigma_i, delta0, sigma0
        w = neff * prec
        wp = lam / s0[:, None] ** 2
        P = w + wp
        delta = (w * m + wp * d0[:, None]) / P + gen.standard_normal((C, q)) / np.sqrt(P)
        # sigma_i | delta_i (precision: truncated gamma); fixed where the data do not vary
        Q = ssr + neff * (m - delta) ** 2
        prec = _truncgamma(shape_i, Q / 2, prec_min, gen)
        prec = np.where(varying, prec, fixed_prec)
        # delta0, sigma0 | lambda, delta (centred)
        sl = lam.sum(1)
        d0 = _truncnorm((lam * delta).sum(1) / sl, s0 / np.sqrt(sl), -d_max, d_max, gen)
        R = (lam * (delta - d0[:, None]) ** 2).sum(1)
        s0 = 1.0 / np.sqrt(_truncgamma((q - 1) / 2, R / 2, prec0_min, gen))
        # interweaving: delta0, sigma0 | eta = (delta - delta0)/sigma0 (non-centred)
        eta = (delta - d0[:, None]) / s0[:, None]
        w = neff * prec
        sw = w.sum(1)
        d0 = _truncnorm(
            (w * (m - s0[:, None] * eta)).sum(1) / sw, 1 / np.sqrt(sw), -d_max, d_max, gen
        )
        A = (w * eta**2).sum(1)
        s0 = _truncnorm((w * eta * (m - d0[:, None])).sum(1) / A, 1 / np.sqrt(A), 0.0, s0_max, gen)
        delta = d0[:, None] + s0[:, None] * eta
        if it >= W:
            out[:, :, it - W] = d0, s0, nu
    return out[0], out[1], out[2], scale


# --------------------------------------------------------------------------
# summaries and diagnostics
# --------------------------------------------------------------------------
def _result(d0, s0, nu, q, rope, cl, rho, C, N, W, seed):
    from scipy import stats

    flat = d0.ravel()
    p_new = stats.t.sf(0.0, nu, d0, s0)
    post_a = float((flat > 0).mean())
    probs = (post_a, float((flat < 0).mean()))
    new = [math.nan] * 3
    shares = None
    rope_probs = [math.nan] * 3
    if rope is not None:
        right = stats.t.sf(rope, nu, d0, s0)
        left = stats.t.cdf(-rope, nu, d0, s0)
        mid = 1.0 - right - left
        new = [float(right.mean()), float(mid.mean()), float(left.mean())]
        win = np.argmax(np.stack([right.ravel(), mid.ravel(), left.ravel()]), 0)
        counts = np.bincount(win, minlength=3) / win.size
        shares = (float(counts[0]), float(counts[1]), float(counts[2]))
        rope_probs = [
            float((np.abs(flat) < rope).mean()),
            float((flat > rope).mean()),
            float((flat < -rope).mean()),
        ]
    rows = {}
    for name, x in (("delta0", d0), ("sigma0", s0), ("nu", nu), ("p_new_a_better", p_new)):
        ess, rhat = _ess_rhat(x)
        rows[name] = {
            "mean": float(x.mean()),
            "sd": float(x.std(ddof=1)),
            "rhat": rhat,
            "ess": ess,
        }
    diag = pd.DataFrame(rows).T
    rhat, ess = float(diag["rhat"].max()), float(diag["ess"].min())
    converged = bool(rhat <= RHAT_LIMIT and ess >= ESS_LIMIT)
    if not converged:
        warnings.warn(
            f"the hierarchical model's chains may not have converged (R-hat "
            f"{rhat:.3f}, bulk ESS {ess:.0f}): run longer chains (n_draws, "
            "n_warmup)",
            ConvergenceWarning,
            stacklevel=3,
        )
    lo, hi = np.quantile(flat, [(1 - cl) / 2, (1 + cl) / 2])
    return HierarchicalComparison(
        "hierarchical-t",
        float(flat.mean()),
        float(flat.std(ddof=1)),
        *probs,
        rope,
        *rope_probs,
        cl,
        float(lo),
        float(hi),
        q,
        n_resamples=C * N,
        seed=seed,
        posterior=flat,
        p_new_a_better=float(p_new.mean()),
        p_new_a_practically_better=new[0],
        p_new_rope=new[1],
        p_new_b_practically_better=new[2],
        new_region_shares=shares,
        sigma0=float(np.median(s0)),
        nu=float(np.median(nu)),
        correlation=rho,
        n_chains=C,
        n_draws=N,
        n_warmup=W,
        rhat=rhat,
        ess=ess,
        converged=converged,
        diagnostics=diag,
        draws={"delta0": d0, "sigma0": s0, "nu": nu},
    )


def _split(x):
    half = x.shape[1] // 2
    return np.concatenate([x[:, :half], x[:, x.shape[1] - half :]])


def _rank_normal(x):
    from scipy import stats

    r = stats.rankdata(x, method="average").reshape(x.shape)
    return special.ndtri((r - 0.375) / (x.size + 0.25))


def _rhat_basic(x):
    n = x.shape[1]
    w = x.var(axis=1, ddof=1).mean()
    b_over_n = x.mean(axis=1).var(ddof=1)
    if w <= 0:
        return math.nan
    return math.sqrt(((n - 1) / n * w + b_over_n) / w)


def _ess_basic(x):
    """Effective sample size of chains ``x`` (M, N) (Geyer's initial monotone sequence
    over the chains' combined autocorrelations, as Stan)."""
    M, n = x.shape
    c = x - x.mean(axis=1, keepdims=True)
    f = np.fft.rfft(c, 2 * n, axis=1)
    acov = np.fft.irfft(f * np.conj(f), 2 * n, axis=1)[:, :n] / n
    w = (acov[:, 0] * n / (n - 1)).mean()
    var_plus = w * (n - 1) / n + x.mean(axis=1).var(ddof=1)
    if var_plus <= 0:
        return math.nan
    rho = 1.0 - (w - acov.mean(axis=0)) / var_plus
    rho[0] = 1.0
    K = n // 2
    pairs = rho[0 : 2 * K : 2] + rho[1 : 2 * K : 2]
    neg = np.flatnonzero(pairs <= 0)
    pairs = pairs[: neg[0]] if neg.size else pairs
    pairs = np.minimum.accumulate(pairs)
    tau = max(-1.0 + 2.0 * pairs.sum(), 1.0 / math.log10(M * n))
    return float(M * n / tau)


def _ess_rhat(x):
    """Bulk effective sample size and the larger of the bulk and folded split
    rank-normalised R-hat (Vehtari et al. 2021) of draws ``x`` (chains, draws)."""
    s = _split(x)
    if np.ptp(s) == 0:
        return math.nan, math.nan
    bulk = _rank_normal(s)
    folded = _rank_normal(np.abs(s - np.median(s)))
    return _ess_basic(bulk), max(_rhat_basic(bulk), _rhat_basic(folded))
