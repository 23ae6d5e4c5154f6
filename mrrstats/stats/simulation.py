r"""Simulated test collections like the user's, and which test fits them.

:func:`simulate_collection` draws new topic sets whose per-system score
distributions and dependence between systems are those of a score table, in
the manner of Urbano & Nagler (SIGIR 2018; the R package ``simIReff``):

1. **margins**: for each system, a distribution on the discrete support of its
   measure (RR: :math:`\{0\} \cup \{1/k\}_{k \le 1000}`; P@k: :math:`\{0, 1/k,
   \dots, 1\}`; other measures: the values observed in the table), chosen by
   AIC among a beta-binomial on the support's index and discrete kernel
   smoothers (Wang & van Ryzin 1981 kernel, least-squares cross-validated
   bandwidth, times 1, 2, 5 or 10), as ``effDiscFitAndSelect`` does;
2. **dependence**: a Gaussian copula (statsmodels' ``GaussianCopula``) whose
   correlation comes from Kendall's tau between systems;
3. **means**: each margin is transformed so that its expected value is the
   one asked for (by default the observed mean), by the beta-CDF distortion of
   ``effTransform`` (:math:`F \mapsto F^a` or :math:`1 - (1-F)^b`).

:func:`calibrate_tests` uses it to measure, for the user's topic count, the
type I error of every paired test and correction under simulated nulls (all
systems with the same expected mean) and their power at given differences,
and recommends a test (Urbano, Lima & Hanjalic, SIGIR 2019, did this for TREC
collections: the t-test and the permutation test stay near the nominal level;
the Wilcoxon and sign tests do not when differences are skewed, because their
null hypotheses are about medians, not means).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..errors import ParameterError, ParameterTypeError
from ..model.scoretable import as_score_table
from ..options import CALIBRATION_TESTS, NULLS
from ..validation import (
    alpha_iv,
    alternative_iv,
    array_iv,
    int_iv,
    n_resamples_iv,
    resource_iv,
    rng_iv,
    workers_iv,
)
from .corrections import adjust_pvalues
from .counter import as_key, subkey
from .methods import MethodsText
from .methods_readers import methods_text
from .registry import correction_spec, test_label, test_spec
from .rows import bootstrap_test_rows, sign_pvalues, signflip_pvalues, ttest_rows, win_tie_loss

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Literal

    from numpy.typing import ArrayLike

    from .._typing import Alternative, Scores, Seed

__all__ = ["CollectionModel", "CalibrationResult", "fit_collection", "simulate_collection",
           "calibrate_tests", "recommend_test", "CALIBRATION_TESTS", "NULLS", "support_of"]

#: RR's support: ranks 1..RUN_LENGTH (simIReff's ``support("rr")``).
RUN_LENGTH = 1000
_KERNEL_MULTIPLIERS = (1, 2, 5, 10)
_CHUNK = 100  # simulated collections per step (fixed: the numbers never depend on it)


# --------------------------------------------------------------------------
# supports
# --------------------------------------------------------------------------
def support_of(values, measure="score"):
    """The discrete support of a measure's per-query values (sorted, ascending).

    ``RR`` (or values that are all 0 or reciprocals of integers): :math:`\\{0\\}
    \\cup \\{1/k : k = 1..K\\}` with :math:`K` = 1000 (``RR@k``: k); ``P@k``
    (or values that are all multiples of 1/k, k <= 100): :math:`\\{0, 1/k,
    \\dots, 1\\}`; otherwise the distinct observed values.

    >>> from mrrstats.stats.simulation import support_of
    >>> s = support_of([1, 0.5, 0, 0.25], "RR")
    >>> s.size, s[:2].tolist(), s[-2:].tolist()
    (1001, [0.0, 0.001], [0.5, 1.0])
    >>> support_of([0.1, 0.3, 1.0], "P@10").tolist()[:3]
    [0.0, 0.1, 0.2]
    """
    x = np.asarray(values, dtype=float).ravel()
    name = str(measure).upper()
    cut = None
    if "@" in name:
        try:
            cut = int(name.split("@", 1)[1])
        except ValueError:
            cut = None
    if name.startswith("RR") or name.startswith("RECIP") or _all_reciprocals(x):
        K = cut if (name.startswith("RR") and cut) else RUN_LENGTH
        pos = x[x > 0]
        if pos.size:
            K = max(K, int(np.rint(1.0 / pos.min())))
        return np.concatenate([[0.0], 1.0 / np.arange(K, 0, -1, dtype=float)])
    if name.startswith("P@") and cut:
        return np.arange(cut + 1) / cut
    for k in range(1, 101):
        if np.allclose(x * k, np.rint(x * k), atol=1e-4) and x.min() >= 0 and x.max() <= 1:
            return np.arange(k + 1) / k
    return np.unique(np.round(x, 10))


def _all_reciprocals(x):
    pos = x[x > 0]
    if pos.size == 0 or (x < 0).any() or (x > 1).any():
        return False
    k = 1.0 / pos
    return bool(np.allclose(k, np.rint(k), rtol=1e-3, atol=1e-3)) and (pos < 1).any()


def _indices(x, support, name):
    """Positions of ``x`` in ``support`` (nearest point, within 1e-4 as simIReff's matchTol)."""
    pos = np.clip(np.searchsorted(support, x), 1, support.size - 1)
    left = support[pos - 1]
    right = support[pos]
    idx = np.where(np.abs(x - left) <= np.abs(right - x), pos - 1, pos)
    if support.size == 1:
        idx = np.zeros_like(pos)
    if (np.abs(support[idx] - x) > 1e-4).any():
        bad = x[np.abs(support[idx] - x) > 1e-4][0]
        raise ParameterError(f"`scores` of {name!r} has the value {bad!r}, not on the support of "
                         "its measure; pass support= explicitly")
    return idx


# --------------------------------------------------------------------------
# margins
# --------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class _Margin:
    support: np.ndarray
    cdf: np.ndarray  # F at each support point (last = 1)
    family: str
    aic: float

    @property
    def pmf(self):
        return np.diff(self.cdf, prepend=0.0)

    @property
    def mean(self):
        return float((self.support * self.pmf).sum())

    def ppf(self, u):
        i = np.searchsorted(self.cdf, u, side="left")
        return self.support[np.minimum(i, self.support.size - 1)]

    def with_mean(self, target):
        """The margin distorted to expected value ``target`` (effTransform's beta-CDF map)."""
        from scipy import optimize

        lo, hi = float(self.support[0]), float(self.support[-1])
        if not lo < target < hi:
            raise ParameterError(f"`scores` (or `means`): cannot give a margin on [{lo:g}, "
                                 f"{hi:g}] the mean {target:g}; a system's mean must lie "
                                 "strictly inside the support of its scores", name="scores")
        m0 = self.mean
        if abs(target - m0) < 1e-14:
            return self
        up = target > m0
        F = np.clip(self.cdf, 0.0, 1.0)

        def mean_at(log_a):
            a = math.exp(log_a)
            G = F ** a if up else 1.0 - (1.0 - F) ** a
            G[-1] = 1.0
            return float((self.support * np.diff(G, prepend=0.0)).sum()) - target

        top = 1.0
        while mean_at(top) * mean_at(0.0) > 0:
            top *= 2.0
            if top > 700:
                raise ParameterError(f"cannot reach the mean {target:g} from {m0:g}")
        la = optimize.brentq(mean_at, 0.0, top, xtol=1e-14)
        a = math.exp(la)
        G = F ** a if up else 1.0 - (1.0 - F) ** a
        G[-1] = 1.0
        G = np.maximum.accumulate(G)
        return _Margin(self.support, G, f"t({self.family})", self.aic)


def _betabinom_fit(idx, N):
    """Beta-binomial on 0..N by maximum likelihood: (cdf, loglik)."""
    from scipy import optimize, stats

    m = idx.mean()
    v = idx.var(ddof=1) if idx.size > 1 else 1.0
    p = min(max(m / N, 1e-3), 1 - 1e-3)
    rho = min(max((v / (N * p * (1 - p)) - 1) / max(N - 1, 1), 1e-3), 0.999)
    s = (1 - rho) / rho
    start = np.log([max(p * s, 1e-2), max((1 - p) * s, 1e-2)])

    def nll(theta):
        a, b = np.exp(np.clip(theta, -8, 8))
        return -float(stats.betabinom.logpmf(idx, N, a, b).sum())

    res = optimize.minimize(nll, start, method="Nelder-Mead",
                            options={"xatol": 1e-6, "fatol": 1e-8, "maxiter": 2000})
    a, b = np.exp(np.clip(res.x, -8, 8))
    pmf = stats.betabinom.pmf(np.arange(N + 1), N, a, b)
    return np.cumsum(pmf / pmf.sum()), -float(res.fun)


def _wvr_density(idx, grid, lam):
    """Wang-van Ryzin kernel sums: (1-lam) at the point, (1-lam)/2 lam^|x-X| elsewhere."""
    dist = np.abs(grid[:, None] - idx[None, :])
    K = np.where(dist == 0, 1.0 - lam, 0.5 * (1.0 - lam) * lam ** dist)
    return K.mean(axis=1)


def _lscv_bandwidth(idx, n_support):
    """Least-squares cross-validated bandwidth of the Wang-van Ryzin kernel (np's cv.ls)."""
    from scipy import optimize

    n = idx.size
    grid = np.arange(n_support)
    dist_obs = np.abs(idx[:, None] - idx[None, :])

    def cv(lam):
        f = _wvr_density(idx, grid, lam)
        K = np.where(dist_obs == 0, 1.0 - lam, 0.5 * (1.0 - lam) * lam ** dist_obs)
        loo = (K.sum(axis=1) - (1.0 - lam)) / (n - 1)
        return float((f * f).sum()) - 2.0 * float(loo.mean())

    res = optimize.minimize_scalar(cv, bounds=(1e-4, 0.9999), method="bounded",
                                   options={"xatol": 1e-6})
    return float(res.x)


def _fit_margin(x, support, name):
    """Candidates (beta-binomial, kernel x1/x2/x5/x10), the one with the smallest AIC."""
    idx = _indices(x, support, name)
    N = support.size - 1
    cands = []
    if N >= 1:
        try:
            cdf, ll = _betabinom_fit(idx, N)
            cands.append(_Margin(support, cdf, "bbinom", 2 * 2 - 2 * ll))
        except (ValueError, FloatingPointError):  # pragma: no cover - defensive
            pass
    if idx.size >= 3 and N >= 1:
        bw = _lscv_bandwidth(idx, N + 1)
        grid = np.arange(N + 1)
        for mult in _KERNEL_MULTIPLIERS:
            lam = bw * mult
            if lam >= 1.0:
                continue
            d = _wvr_density(idx, grid, lam)
            d = d / d.sum()
            dfree = float(np.mean((1.0 - lam) / d[idx]))
            ll = float(np.log(d[idx]).sum())
            cands.append(_Margin(support, np.cumsum(d), f"dks({mult})", 2 * dfree - 2 * ll))
    if not cands:  # a single support point, or too few topics: the empirical distribution
        pmf = np.bincount(idx, minlength=N + 1) / idx.size
        return _Margin(support, np.cumsum(pmf), "empirical", math.nan)
    best = min(cands, key=lambda m: m.aic)
    cdf = best.cdf.copy()
    cdf[-1] = 1.0
    return _Margin(support, np.maximum.accumulate(np.clip(cdf, 0, 1)), best.family, best.aic)


def _nearest_correlation(R):
    """A correlation matrix near ``R`` (eigenvalues clipped at 1e-6, rescaled to unit diagonal)."""
    w, V = np.linalg.eigh((R + R.T) / 2.0)
    if w.min() > 1e-8:
        return R
    A = (V * np.maximum(w, 1e-6)) @ V.T
    s = np.sqrt(np.diag(A))
    return A / s[:, None] / s[None, :]


@dataclass(frozen=True, eq=False)
class CollectionModel:
    """A fitted simulator of topic sets (margins + Gaussian copula); see :func:`fit_collection`.

    Attributes
    ----------
    systems : tuple of str
    measure : str
    margins : tuple
        One fitted margin per system (support, CDF, family, AIC).
    correlation : ndarray
        The Gaussian copula's correlation matrix (systems x systems).
    observed_means : ndarray
        The mean of each system over the observed queries.
    n_queries : int
        Queries of the data it was fitted on.
    """

    systems: tuple
    measure: str
    margins: tuple = field(repr=False)
    correlation: np.ndarray = field(repr=False)
    observed_means: np.ndarray = field(repr=False)
    n_queries: int = 0

    def margin_frame(self):
        """Per system: the chosen family, its AIC, observed and model mean and std."""
        rows = []
        for s, m, obs in zip(self.systems, self.margins, self.observed_means, strict=True):
            var = float((m.support ** 2 * m.pmf).sum()) - m.mean ** 2
            rows.append({"system": s, "family": m.family, "aic": m.aic, "observed_mean": obs,
                         "model_mean": m.mean, "model_std": math.sqrt(max(var, 0.0))})
        return pd.DataFrame(rows).set_index("system")

    def transformed(self, means):
        """The model with every margin moved to the expected value in ``means``."""
        means = np.broadcast_to(np.asarray(means, dtype=float), (len(self.systems),))
        margins = tuple(m.with_mean(t) for m, t in zip(self.margins, means, strict=True))
        return CollectionModel(self.systems, self.measure, margins, self.correlation,
                               self.observed_means, self.n_queries)

    def sharing_margin(self, system=0):
        """The model with every system given the margin of ``system`` (same copula)."""
        m = self.margins[system]
        return CollectionModel(self.systems, self.measure, (m,) * len(self.systems),
                               self.correlation,
                               np.full(len(self.systems), self.observed_means[system]),
                               self.n_queries)

    def draw(self, n_queries, gen, n_collections=1):
        """``(n_collections, n_queries, systems)`` scores drawn from the model."""
        from statsmodels.distributions.copula.api import GaussianCopula

        k = len(self.systems)
        total = n_collections * n_queries
        if k == 1:
            U = gen.random((total, 1))
        else:
            cop = GaussianCopula(corr=self.correlation, k_dim=k, allow_singular=True)
            U = np.asarray(cop.rvs(total, rng=gen)).reshape(total, k)
        X = np.empty((total, k))
        for j, m in enumerate(self.margins):
            X[:, j] = m.ppf(U[:, j])
        return X.reshape(n_collections, n_queries, k)


def fit_collection(scores, *, measure=None, support=None, missing="raise"):
    """Fit the simulator of :func:`simulate_collection` once (margins + copula).

    Parameters
    ----------
    scores : DataFrame, ScoreTable, Evaluation or path
        Per-query scores (queries x systems).
    measure : str, optional
        Which measure of an Evaluation; its name also selects the support.
    support : array_like, optional
        The support of every margin (default: :func:`support_of`).
    missing : {"raise", "drop"}

    Returns
    -------
    CollectionModel
    """
    table = as_score_table(scores, measure=measure, missing=missing, min_queries=3)
    from statsmodels.distributions.copula.api import GaussianCopula

    X = table.values
    supp = support_of(X, table.measure) if support is None else \
        np.unique(array_iv(support, "support", min_size=2))
    margins = tuple(_fit_margin(X[:, j], supp, s) for j, s in enumerate(table.systems))
    k = table.n_systems
    if k > 1:
        with np.errstate(invalid="ignore", divide="ignore"):
            R = np.asarray(GaussianCopula(k_dim=k).fit_corr_param(X), dtype=float)
        R = np.atleast_2d(R)
        if R.shape != (k, k):  # two systems: a scalar
            R = np.array([[1.0, float(R.ravel()[0])], [float(R.ravel()[0]), 1.0]])
        R = np.nan_to_num(R, nan=0.0)
        np.fill_diagonal(R, 1.0)
        R = _nearest_correlation(R)
    else:
        R = np.ones((1, 1))
    return CollectionModel(table.systems, table.measure, margins, R, X.mean(axis=0),
                           table.n_queries)


def simulate_collection(scores: Scores, *, n_queries: int,
                        means: float | ArrayLike | Mapping[str, float] | None = None,
                        measure: str | None = None, support: ArrayLike | None = None,
                        rng: Seed = None) -> pd.DataFrame:
    r"""A new simulated topic set like ``scores`` (Urbano & Nagler 2018, simIReff).

    Parameters
    ----------
    scores : DataFrame, ScoreTable, Evaluation or path
        Per-query scores (queries x systems): the collection to imitate.
    n_queries : int, keyword-only
        Topics of the simulated collection.
    means : float, array_like or mapping, optional, keyword-only
        Expected value of each system in the simulation (one number for all,
        one per system in order, or ``{system: mean}`` for some); default:
        the observed means.
    measure : str, optional, keyword-only
    support : array_like, optional, keyword-only
        Support of the margins (default: that of the measure, :func:`support_of`).
    rng : None, int or numpy.random.Generator, keyword-only

    Returns
    -------
    DataFrame
        ``n_queries`` rows (index ``query``: ``sim1``, ...) and the columns of
        ``scores``; ``attrs`` holds ``measure``, ``seed`` and ``margins`` (the
        chosen family of each system).

    Notes
    -----
    See the module docstring. The margins are fitted on the support's index
    (so RR's kernel smooths between ranks 1, 2, 3, ... as simIReff does); the
    beta-binomial's parameters are free (simIReff bounds them below by 1,
    which cannot fit RR's mass at both 0 and 1). Ties between systems (half
    of all RR values are 1) make the rank correlation an approximation of
    the dependence of the underlying continuous copula, as in simIReff.
    Expected values are exact: each margin is transformed to its target
    mean before drawing.

    References
    ----------
    J. Urbano, T. Nagler, "Stochastic simulation of test collections: evaluation
    scores", SIGIR 2018. M.-C. Wang, J. van Ryzin, "A class of smooth estimators
    for discrete distributions", Biometrika 68, 1981.

    Examples
    --------
    >>> import mrrstats
    >>> rr = mrrstats.datasets.trec7_scores("RR")[["run1", "run2", "run3"]]
    >>> sim = mrrstats.simulate_collection(rr, n_queries=200, rng=1)
    >>> sim.shape, list(sim.columns)
    ((200, 3), ['run1', 'run2', 'run3'])
    >>> bool(sim.isin(mrrstats.stats.simulation.support_of(rr, "RR")).all().all())
    True
    """
    n = int_iv(n_queries, "n_queries")
    if isinstance(rng, numbers.Real) and not isinstance(rng, numbers.Integral):
        raise ParameterTypeError(
            f"`rng` must be None, an integer seed or a Generator, got {rng!r}")
    gen, seed = rng_iv(rng)
    model = fit_collection(scores, measure=measure, support=support)
    resource_iv(8 * 4 * n * len(model.systems), "n_queries",
                what=f"a collection of {n:,} queries")
    targets = _means_iv(means, model)
    sim = model.transformed(targets).draw(n, gen)[0]
    frame = pd.DataFrame(sim, columns=list(model.systems),
                         index=pd.Index([f"sim{i + 1}" for i in range(n)], name="query"))
    frame.attrs.update(measure=model.measure, seed=seed,
                       margins={s: m.family for s, m in zip(model.systems, model.margins,
                                                            strict=True)})
    return frame


def _means_iv(means, model):
    k = len(model.systems)
    if means is None:
        return model.observed_means.copy()
    if isinstance(means, dict):
        out = model.observed_means.copy()
        for s, v in means.items():
            if s not in model.systems:
                raise ParameterError(f"`means` names {s!r}, not a system of `scores`")
            out[model.systems.index(s)] = float(v)
        return out
    arr = array_iv(means, "means", ndim=(0, 1))
    if arr.ndim == 0:
        return np.full(k, float(arr))
    if arr.shape != (k,):
        raise ParameterError(f"`means` must be one number, {k} numbers or a mapping; got shape "
                         f"{arr.shape}")
    return arr


# --------------------------------------------------------------------------
# the tests, vectorised over simulated collections
# --------------------------------------------------------------------------
def _wilcoxon_pvalues(D, alternative):
    """scipy.stats.wilcoxon with mrrstats.wilcoxon_test's defaults (zeros dropped)."""
    from scipy import stats

    p = np.ones(D.shape[0])
    ok = (D != 0).sum(axis=1) > 0
    if ok.any():
        with np.errstate(invalid="ignore", divide="ignore"):
            p[ok] = stats.wilcoxon(D[ok], axis=1, zero_method="wilcox",
                                   alternative=alternative).pvalue
    return np.nan_to_num(p, nan=1.0)


def _pvalues(test, D, alternative, B, key, first_row, workers):
    """p-values of one test on every row of ``D`` (the row kernels of :mod:`.rows`).

    The randomization and bootstrap tests share one set of resamples among the
    rows of a step (each row's test is a valid Monte-Carlo test), keyed by the
    step's first row, so the numbers never depend on ``workers``.
    """
    if test == "t":
        return ttest_rows(D, alternative)[1]
    if test == "wilcoxon":
        return _wilcoxon_pvalues(D, alternative)
    if test == "sign":
        wins, _, losses = win_tie_loss(D, 0.0)
        return sign_pvalues(wins, losses, alternative)
    if test == "randomization":
        n = D.shape[1]
        exact = n <= 30 and (1 << n) <= B
        return signflip_pvalues(D, alternative, n_resamples=B, exact=exact, batch=None,
                                gen=subkey(key, first_row), workers=workers)[0]
    return bootstrap_test_rows(D, alternative, "shift", B, None, subkey(key, first_row),
                               workers=workers)[1]


# --------------------------------------------------------------------------
# calibration
# --------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class CalibrationResult:
    r"""Result of :func:`calibrate_tests`.

    Attributes
    ----------
    table : DataFrame
        One row per test and correction: ``test``, ``correction``,
        ``n_queries``, ``type_I_error`` (its Monte-Carlo ``type_I_error_se``),
        and ``power_<difference>`` per difference. With ``correction="none"``
        rates are per comparison; otherwise the type I error is the
        family-wise error over all pairs of the systems and the power is per
        comparison of the first system with each other one.
    recommended_test : str
        The test recommended for these data (see :func:`calibrate_tests`).
    recommendation : str
        Why, in one paragraph.
    systems : tuple of str
        The systems simulated (the first is shifted in the power runs).
    margins : DataFrame
        The fitted margin of each system (family, AIC, means).
    differences : tuple of float
    alpha : float
    alternative : str
    null_hypothesis : {"means", "margins"}
    n_queries, n_simulations, n_resamples : int
    seed : int or None
    """

    table: pd.DataFrame
    recommended_test: str
    recommendation: str
    systems: tuple
    margins: pd.DataFrame = field(repr=False)
    differences: tuple = ()
    alpha: float = 0.05
    alternative: str = "two-sided"
    null_hypothesis: str = "means"
    n_queries: int = 0
    n_simulations: int = 0
    n_resamples: int = 0
    seed: int | None = None

    def methods(self) -> MethodsText:
        """The methods paragraph and its references (:mod:`mrrstats.stats.methods`)."""
        return methods_text(self)

    def to_frame(self) -> pd.DataFrame:
        """The calibration table (a copy)."""
        return self.table.copy()


def _condition(model, targets, n_q, n_sim, tests, corrections, alternative, alpha, B, gen,
               workers, power_pairs):
    """Rejection rates of every test x correction under one configuration of means."""
    k = len(model.systems)
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    I = np.array([i for i, _ in pairs])
    J = np.array([j for _, j in pairs])
    moved = model.transformed(targets)
    key = as_key(gen)
    hits = {(t, c): 0.0 for t in tests for c in corrections}
    for c0 in range(0, n_sim, _CHUNK):
        s = min(_CHUNK, n_sim - c0)
        X = moved.draw(n_q, gen, s)  # (s, n, k)
        D = (X[:, :, I] - X[:, :, J]).transpose(0, 2, 1).reshape(s * len(pairs), n_q)
        sign = np.sign(D.mean(axis=1)).reshape(s, len(pairs))
        for t in tests:
            p = _pvalues(t, D, alternative, B, subkey(key, CALIBRATION_TESTS.index(t)),
                         c0 * len(pairs), workers).reshape(s, len(pairs))
            for c in corrections:
                if c == "none" or len(pairs) == 1:
                    padj = p
                else:
                    padj = np.vstack([adjust_pvalues(row, c, alpha)[0] for row in p])
                rej = padj <= alpha
                if power_pairs is None:  # null: per comparison, or family-wise
                    hits[t, c] += rej.mean(axis=1).sum() if c == "none" else rej.any(1).sum()
                else:  # power: the first system's pairs, rejected in its favour
                    good = rej[:, power_pairs] & ((sign[:, power_pairs] > 0)
                                                  | (alternative != "two-sided"))
                    hits[t, c] += good.mean(axis=1).sum()
    return {kc: v / n_sim for kc, v in hits.items()}


def calibrate_tests(scores: Scores, *, n_queries: int | None = None,
                    tests: Sequence[str] | None = None, corrections: Sequence[str] | None = None,
                    alpha: float = 0.05, differences: Sequence[float] = (0.02, 0.05),
                    alternative: Alternative = "two-sided",
                    null_hypothesis: Literal["means", "margins"] = "means",
                    n_simulations: int = 1000, n_resamples: int = 1000, max_systems: int = 8,
                    measure: str | None = None, workers: int = -1,
                    rng: Seed = None) -> CalibrationResult:
    r"""Which paired test fits these data? Type I error and power on simulated collections.

    Parameters
    ----------
    scores : DataFrame, ScoreTable, Evaluation or path
        Per-query scores (queries x systems) of the collection to imitate.
    n_queries : int, optional, keyword-only
        Topics per simulated collection (default: as many as ``scores`` has).
    tests : sequence of str, optional, keyword-only
        Default: all of :data:`CALIBRATION_TESTS` (t, randomization,
        bootstrap, wilcoxon, sign).
    corrections : sequence of str, optional, keyword-only
        Default: ``("none",)`` for two systems, ``("none", "holm")`` for more.
    alpha : float, keyword-only
    differences : sequence of float, keyword-only
        True mean differences (in the measure's units) at which power is simulated.
    alternative : {"two-sided", "greater", "less"}, keyword-only
    null_hypothesis : {"means", "margins"}, keyword-only
        How a true null is simulated. ``"means"`` (default): every system keeps
        the shape of its own scores, moved to a common expected value -- the
        null of "equal MRR" that an IR paper claims to test. ``"margins"``:
        every system gets the first system's margin (identical distributions,
        the design of Urbano, Lima & Hanjalic 2019, under which the null of
        every test holds).
    n_simulations : int, keyword-only
        Simulated collections per configuration (Monte-Carlo SE of a type I
        error of 0.05: 0.007 at 1,000).
    n_resamples : int, keyword-only
        Resamples of the randomization and bootstrap tests in each simulated
        collection.
    max_systems : int, keyword-only
        With more systems than this, the first one and ``max_systems - 1``
        others evenly spread over the ranking by mean are simulated.
    measure : str, optional, keyword-only
    workers : int, keyword-only
        Threads of the resampling kernels (-1: all cores); never changes a number.
    rng : None, int or numpy.random.Generator, keyword-only

    Returns
    -------
    CalibrationResult

    Notes
    -----
    The simulator (:func:`fit_collection`) is fitted once. **Type I error**:
    every margin is moved to the same expected value (the mean of the
    systems' observed means), ``n_simulations`` collections of ``n_queries``
    topics are drawn, every test runs on every pair; the rate is the share of
    rejections (per comparison for ``"none"``, the share of collections with
    any rejection for a correction). **Power at** :math:`\delta`: the first
    system's margin is moved to :math:`m + \delta/2`, the others to
    :math:`m - \delta/2`; the rate is the share of its pairs rejected in its
    favour. **Recommendation**: among the tests whose type I error is at most
    :math:`\alpha + 2\,SE` under the correction that will be used (``holm``
    with more than two systems), the one with the largest mean power; powers
    within twice their Monte-Carlo error of the largest count as ties, won
    by the first in ``tests`` (t, randomization, bootstrap, ... by default).

    Urbano, Lima & Hanjalic (2019) ran this on TREC collections and found
    the t-test and the permutation (randomization) test near the nominal
    level, the bootstrap slightly liberal with few topics, and the Wilcoxon
    and sign tests far from it as topics increase when the differences are
    skewed (they test a median or a symmetry, not the mean);
    ``benchmarks/bench_calibration.py`` reproduces that direction on the
    bundled TREC-7 RR (``benchmarks/results_calibration.md``).

    References
    ----------
    J. Urbano, H. Lima, A. Hanjalic, "Statistical significance testing in
    information retrieval: an empirical analysis of type I, type II and type
    III errors", SIGIR 2019. J. Urbano, T. Nagler, SIGIR 2018 (see
    :func:`simulate_collection`). J. V. Bradley, "Robustness?", British J.
    Math. Stat. Psych. 31, 1978 (liberal criterion :math:`[\alpha/2, 3\alpha/2]`).

    Examples
    --------
    >>> import mrrstats
    >>> rr = mrrstats.datasets.trec7_scores("RR")[["run8", "run9"]]
    >>> cal = mrrstats.calibrate_tests(rr, tests=["t", "sign"], n_simulations=100,
    ...                                n_resamples=200, rng=0)
    >>> list(cal.to_frame().columns)[:5]
    ['test', 'correction', 'n_queries', 'type_I_error', 'type_I_error_se']
    >>> list(cal.to_frame().columns)[5:]
    ['power_0.02', 'power_0.05']
    """
    (table, n_q, tests, corrections, alpha, diffs, alternative, null_hypothesis, n_sim, B, max_k,
     workers, gen, seed) = _calibrate_tests_iv(scores, n_queries, tests, corrections, alpha,
                                              differences, alternative, null_hypothesis,
                                              n_simulations, n_resamples,
                                              max_systems, measure, workers, rng)
    model = fit_collection(table)
    if null_hypothesis == "margins":
        model = model.sharing_margin(0)
    k = len(model.systems)
    m0 = float(np.mean(model.observed_means))
    rows = {(t, c): {} for t in tests for c in corrections}  # type: ignore[var-annotated]
    null = _condition(model, np.full(k, m0), n_q, n_sim, tests, corrections, alternative,
                      alpha, B, np.random.default_rng(gen.integers(2**63)), workers, None)
    first = [p for p, (i, _) in enumerate((i, j) for i in range(k) for j in range(i + 1, k))
             if i == 0]
    powers = {}
    for delta in diffs:
        targets = np.full(k, m0 - delta / 2.0)
        targets[0] = m0 + delta / 2.0
        powers[delta] = _condition(model, targets, n_q, n_sim, tests, corrections,
                                   alternative, alpha, B,
                                   np.random.default_rng(gen.integers(2**63)), workers, first)
    for (t, c), row in rows.items():
        row.update(test=t, correction=c, n_queries=n_q, type_I_error=null[t, c],
                   type_I_error_se=math.sqrt(max(null[t, c] * (1 - null[t, c]), 1e-12) / n_sim))
        for delta in diffs:
            row[f"power_{delta:g}"] = powers[delta][t, c]
    frame = pd.DataFrame(list(rows.values()))
    chosen, text = recommend_test(frame, alpha=alpha, n_simulations=n_sim,
                                  correction="holm" if k > 2 and "holm" in corrections
                                  else corrections[0])
    return CalibrationResult(frame, chosen, text, model.systems, model.margin_frame(),
                             tuple(diffs), alpha, alternative, null_hypothesis, n_q, n_sim, B,
                             seed)


def recommend_test(table, *, alpha, n_simulations, correction=None):
    """The recommended test of a calibration table, and why (one paragraph).

    Parameters
    ----------
    table : DataFrame
        :meth:`CalibrationResult.to_frame` (or the report's saved copy).
    alpha : float, keyword-only
    n_simulations : int, keyword-only
        Simulated collections per rate (for the Monte-Carlo tie rule).
    correction : str, optional, keyword-only
        Whose rows decide (default ``holm`` when present, else the first).

    Returns
    -------
    (str, str)
        The test and the paragraph. Rule: among the tests whose type I error
        is at most alpha + 2 SE, the one with the largest mean power; powers
        within twice their Monte-Carlo error of the largest tie, won by the
        first in the table's order (t, randomization, bootstrap, ...).
    """
    corrections = list(dict.fromkeys(table["correction"]))
    corr = correction or ("holm" if "holm" in corrections else corrections[0])
    sub = table[table["correction"] == corr].set_index("test")
    n_q = int(sub["n_queries"].iloc[0])
    power_cols = [c for c in sub.columns if c.startswith("power_")]
    diffs = [c[len("power_"):] for c in power_cols]
    ok = sub["type_I_error"] <= alpha + 2 * sub["type_I_error_se"]
    power = sub[power_cols].mean(axis=1) if power_cols else pd.Series(0.0, index=sub.index)
    if ok.any():
        # the most powerful test that holds its level; powers within twice their
        # Monte-Carlo error of the best count as ties, won by the table's order
        top = power[ok].max()
        tie = 2 * math.sqrt(max(top * (1 - top), 1e-12) / n_simulations)
        name = next(t for t in sub.index if ok[t] and power[t] >= top - tie)
    else:
        name = (sub["type_I_error"] - alpha).abs().idxmin()
    off = sub[~ok]
    level = f"correction {corr}, " if corr != "none" else ""
    text = (f"{test_label(name)}: type I error {sub.loc[name, 'type_I_error']:.3f} at alpha "
            f"{alpha:g} ({level}{n_q} topics)")
    if power_cols:
        text += f", mean power {power[name]:.2f} over differences " + ", ".join(diffs)
    if ok.any():
        text += "; the most powerful test that holds its level."
    else:
        text += "; no test holds its level here: this one comes closest."
    if len(off):
        text += " Too liberal on these data: " + ", ".join(
            f"{t} ({r:.3f})" for t, r in off["type_I_error"].items()) + \
            " (their null hypothesis is not equal means when differences are skewed, or " \
            "their approximation fails)."
    return name, text


def _names_iv(values, name):
    """One name or a non-empty list of names."""
    if isinstance(values, str):
        return (values,)
    if not isinstance(values, list | tuple) or not values:
        raise ParameterTypeError(f"`{name}` must be a name or a non-empty list of names, got "
                                 f"{values!r:.60}", name=name)
    return tuple(values)


def _named(name, check, value):
    """``check(value)``, its refusal naming the parameter ``name``."""
    try:
        return check(value)
    except (ParameterError, ParameterTypeError) as exc:
        raise type(exc)(f"`{name}`: {exc}", name=name) from None


def _calibrate_tests_iv(scores, n_queries, tests, corrections, alpha, differences, alternative,
                        null_hypothesis, n_simulations, n_resamples, max_systems, measure,
                        workers, rng):
    table = as_score_table(scores, measure=measure, min_systems=2, min_queries=3)
    n_q = table.n_queries if n_queries is None else int_iv(n_queries, "n_queries", minimum=3)
    resource_iv(8 * 4 * n_q * table.n_systems, "n_queries",
                what=f"simulated collections of {n_q:,} queries")
    if tests is None:
        tests = CALIBRATION_TESTS
    names = []
    for t in _names_iv(tests, "tests"):
        name = _named("tests", test_spec, t).name
        if not isinstance(name, str | None) or name not in CALIBRATION_TESTS:
            raise ParameterError(f"`tests` must name tests among {CALIBRATION_TESTS}, got {t!r}")
        if name not in names:
            names.append(name)
    max_k = int_iv(max_systems, "max_systems", minimum=2)
    if table.n_systems > max_k:
        order = np.argsort(table.values.mean(axis=0)[1:], kind="stable") + 1
        pick = np.unique(np.rint(np.linspace(0, order.size - 1, max_k - 1)).astype(int))
        table = table.select([0] + [int(order[i]) for i in pick])
    if corrections is None:
        corrections = ("none",) if table.n_systems == 2 else ("none", "holm")
    corrections = tuple(dict.fromkeys(_named("corrections", correction_spec, c).name
                                      for c in _names_iv(corrections, "corrections")))
    alpha = alpha_iv(alpha)
    try:
        diffs = tuple(float(d) for d in differences)
    except (TypeError, ValueError):
        raise ParameterTypeError("`differences` must be a sequence of numbers") from None
    if any(not (d > 0 and math.isfinite(d)) for d in diffs):
        raise ParameterError(f"`differences` must be positive and finite, got {differences!r}")
    alternative_iv(alternative)
    if not isinstance(null_hypothesis, str | None) or null_hypothesis not in NULLS:
        raise ParameterError(f"`null_hypothesis` must be one of {NULLS}, got {null_hypothesis!r}")
    n_sim = n_resamples_iv(n_simulations, "n_simulations")
    B = n_resamples_iv(n_resamples)
    workers = workers_iv(workers)
    if isinstance(rng, numbers.Real) and not isinstance(rng, numbers.Integral):
        raise ParameterTypeError(
            f"`rng` must be None, an integer seed or a Generator, got {rng!r}")
    gen, seed = rng_iv(rng)
    return (table, n_q, tuple(names), corrections, alpha, diffs, alternative, null_hypothesis,
            n_sim, B, max_k, workers, gen, seed)
