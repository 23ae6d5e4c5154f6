r"""Prediction-powered inference (PPI++) for evaluations labelled by an LLM judge.

An LLM judge labels every query; people label a random subset of them. The
judge-labelled mean of a measure is cheap and biased, the human-labelled mean of
the subset is unbiased and noisy. Prediction-powered inference (Angelopoulos et
al. 2023) combines them: the judge's mean over all queries, corrected by the
judge's error measured on the human-labelled queries, with an interval that is
valid whatever the judge's quality and narrower than the human-only one when
the judge is good. PPI++ (Angelopoulos, Duchi and Zrnic 2023) tunes how much
the judge is trusted (the power-tuning parameter :math:`\lambda`), so the
interval is never much wider than the human-only one even for a bad judge.

* :func:`ppi_evaluate` -- runs, judge qrels and human qrels in; per system the
  PPI estimate of the human-label mean and its interval, per pair the
  difference, interval and test, and simultaneous rank intervals, with the
  human-only and judge-only intervals beside them.
* :func:`ppi_scores` -- the same from per-query score tables (for simulations
  and for scores computed elsewhere).

The unit is the query: a query's human and judge values of a measure are one
labelled pair. The intervals assume that the human-labelled queries are a
simple random sample of the queries (within each stratum when ``strata`` are
given), drawn independently of the judge's labels.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import stats

from ..defaults import CONFIDENCE_LEVEL, N_RESAMPLES, PPI_VARIANCE
from ..errors import InputError, ParameterError, ParameterTypeError
from ..io.trec import qrels_iv
from ..metrics.evaluation import evaluate
from ..metrics.measures import higher_is_better, measure_iv, parse_measure
from ..options import POPULATIONS, PPI_VARIANCES
from ..validation import (
    choice_iv,
    confidence_level_iv,
    n_resamples_iv,
    resource_iv,
    rng_iv,
)
from .intervals import ConfidenceInterval
from .leaderboard import RankIntervals, compact_letter_display
from .methods import MethodsText
from .methods_readers import methods_text

if TYPE_CHECKING:
    from typing import Any, Literal

    from .._typing import MeasuresInput, QrelsInput, RunsInput, Seed

__all__ = ["PPIResult", "ppi_evaluate", "ppi_scores", "POPULATIONS", "PPI_METHODS",
           "PPI_VARIANCES"]

#: The rows of every result: the PPI interval, and beside it the human-only and judge-only
#: ones.
PPI_METHODS = ("ppi", "human", "judge")
#: Multiplier draws held in memory at once (a fixed size: the numbers never depend on it).
_CHUNK = 1024
#: ``variance="moderated"``: a column with fewer discordant human-labelled queries than
#: this (queries where the judge's value differs from the human one) gets the pooled floor
#: on its rectifier variance (its sample variance rests on about twice as many effective
#: degrees of freedom as discordant queries; see :func:`ppi_evaluate`).
MODERATE_BELOW = 20
#: ``variance="moderated"``: with fewer discordant (query, column) cells than this over all
#: the columns of a group (the systems of a measure, or its pairs) in a stratum, the
#: judge's error cannot be estimated there and PPI falls back to the human-only estimate.
MIN_DISCORDANT = 3
#: Two values closer than this are the same value (discordance).
_TOL = 1e-12


@dataclass(frozen=True, eq=False)
class PPIResult:
    """Result of :func:`ppi_evaluate` and :func:`ppi_scores`.

    Attributes
    ----------
    systems : pandas.DataFrame
        One row per system, measure and method: ``system``, ``measure``,
        ``method`` (``"ppi"``, ``"human"``: the human-labelled queries alone,
        ``"judge"``: the judge's labels alone, the interval a judge-only
        evaluation reports), ``estimate``, ``standard_error``, ``ci_low``,
        ``ci_high``, ``df`` (degrees of freedom of the t quantile; ``inf``: the
        normal one), ``power_tuning`` (:math:`\\lambda`; 0 for ``"human"``),
        ``n_human``, ``n_judge`` (queries with human labels, queries in all),
        ``n_discordant`` (human-labelled queries where the judge's value differs
        from the human one), ``moderated`` (the rectifier variance was raised to
        the pooled floor, ``variance="moderated"``), ``fallback`` (too few
        discordant queries to estimate the judge's error: the PPI row is the
        human-only estimate), ``rank``, ``rank_low``, ``rank_high``
        (simultaneous rank interval).
    pairs : pandas.DataFrame
        One row per pair of systems, measure and method: ``a``, ``b``,
        ``measure``, ``method``, ``difference`` (``a - b``), ``standard_error``,
        ``ci_low``, ``ci_high``, ``df``, ``statistic`` (difference / standard
        error), ``pvalue`` (two-sided), ``pvalue_adjusted`` (single-step
        ``max-|t|`` over the pairs of the measure), ``power_tuning``, ``n_human``,
        ``n_judge``, ``n_discordant``, ``moderated``, ``fallback``.
    measures : tuple of str
    system_names : tuple of str
    confidence_level : float
    population : str
        ``"finite"`` or ``"infinite"`` (see :func:`ppi_evaluate`).
    variance : str
        ``"moderated"`` or ``"sample"`` (see :func:`ppi_evaluate`).
    n_queries, n_human : int
        Queries in all (judge-labelled) and with human labels.
    strata : tuple of str or None
        The strata, when given.
    n_resamples : int
        Multiplier draws of the ``max-|t|`` critical value.
    seed : int or None
        Seed of those draws (pass it back as ``rng=`` to reproduce).
    critical_values : dict
        ``(measure, method) -> c``: the ``max-|t|`` critical value of the pairs.
    """

    systems: pd.DataFrame = field(repr=False)
    pairs: pd.DataFrame = field(repr=False)
    measures: tuple
    system_names: tuple
    confidence_level: float
    population: str
    n_queries: int
    n_human: int
    strata: tuple | None
    n_resamples: int
    seed: int | None
    critical_values: dict = field(repr=False, default_factory=dict)
    variance: str = PPI_VARIANCE

    def methods(self) -> MethodsText:
        """The methods paragraph and its references (:mod:`mrrstats.stats.methods`)."""
        return methods_text(self)

    def to_frame(self) -> pd.DataFrame:
        """The per-system table (a copy of :attr:`systems`)."""
        return self.systems.copy()

    def summary(self) -> pd.DataFrame:
        """One row per system and measure, the three intervals side by side.

        Columns ``system``, ``measure``, then ``estimate``, ``ci_low``,
        ``ci_high`` with the suffixes ``_ppi``, ``_human``, ``_judge``, and
        ``width_ratio`` (PPI width / human-only width).
        """
        keep = ["estimate", "ci_low", "ci_high"]
        wide = self.systems.pivot_table(index=["system", "measure"], columns="method",
                                        values=keep, sort=False)
        wide.columns = [f"{v}_{m}" for v, m in wide.columns]  # type: ignore[str-unpack]
        order = [f"{v}_{m}" for m in PPI_METHODS for v in keep]
        wide = wide[order].reset_index()
        wide["width_ratio"] = ((wide["ci_high_ppi"] - wide["ci_low_ppi"])
                               / (wide["ci_high_human"] - wide["ci_low_human"]))
        return wide

    def confidence_interval(self, confidence_level: float = CONFIDENCE_LEVEL, *, a: str,
                            b: str | None = None, measure: str | None = None,
                            method: str = "ppi") -> ConfidenceInterval:
        """The interval of system ``a`` (or of the difference ``a - b``) at any level.

        The interval is ``estimate -/+ q * standard_error`` with the t quantile
        of the row's ``df`` (the normal one when ``df`` is infinite).
        """
        cl = confidence_level_iv(confidence_level)
        m = self._measure(measure)
        if not isinstance(method, str | None) or method not in PPI_METHODS:
            raise ParameterError(f"`method` must be one of {PPI_METHODS}, got {method!r}")
        names = list(dict.fromkeys(self.systems.system))
        for name, value in (("a", a), ("b", b)):
            if (value is not None or name == "a") and (not isinstance(value, str)
                                                       or value not in names):
                raise ParameterError(f"`{name}` must be one of the systems {names}, got "
                                     f"{value!r:.60}", name=name)
        if b is None:
            f = self.systems
            row = f[(f.system == a) & (f.measure == m) & (f.method == method)]
            value = "estimate"
        else:
            f = self.pairs
            row = f[(f.a == a) & (f.b == b) & (f.measure == m) & (f.method == method)]
            sign = 1.0
            if row.empty:
                row = f[(f.a == b) & (f.b == a) & (f.measure == m) & (f.method == method)]
                sign = -1.0
            value = "difference"
        if row.empty:
            raise ParameterError(f"no row for `a`={a!r}, `b`={b!r}; systems: "
                             f"{list(self.system_names)}")
        r = row.iloc[0]
        est = float(r[value]) * (sign if b is not None else 1.0)
        q = _quantile(0.5 + cl / 2.0, float(r["df"]))
        se = float(r["standard_error"])
        return ConfidenceInterval(est - q * se, est + q * se, cl, f"{method} t")

    def rank_intervals(self, measure: str | None = None, *, method: str = "ppi") -> RankIntervals:
        """Simultaneous rank intervals of one measure and method, as a RankIntervals."""
        m = self._measure(measure)
        choice_iv(method, "method", PPI_METHODS)
        f = self.systems[(self.systems.measure == m) & (self.systems.method == method)]
        names = list(f.system)
        mean = f.estimate.to_numpy()
        sig = _significance_matrix(self.pairs, names, m, method, self.confidence_level)
        letters = compact_letter_display(sig, systems=names, means=mean,
                                         higher_is_better=higher_is_better(m))
        return RankIntervals(tuple(names), mean, f["rank"].to_numpy(),
                             f.rank_low.to_numpy(), f.rank_high.to_numpy(), tuple(letters), sig,
                             self.critical_values[(m, method)], self.confidence_level,
                             f"{method} max-t", self.n_resamples, self.seed, m)

    def _measure(self, measure):
        if measure is None:
            return self.measures[0]
        name = str(measure_iv(measure))
        if name not in self.measures:
            raise ParameterError(f"`measure` {name!r} is not in the result; have "
                             f"{list(self.measures)}")
        return name


# ---------------------------------------------------------------------------
# the estimators
# ---------------------------------------------------------------------------

def _quantile(p, df):
    """The t quantile with ``df`` degrees of freedom (the normal one where ``df`` is inf)."""
    df = np.asarray(df, dtype=np.float64)
    finite = np.isfinite(df)
    q = np.where(finite, stats.t.ppf(p, np.where(finite, df, 1.0)), stats.norm.ppf(p))
    return float(q) if q.ndim == 0 else q


def _ols_slope(y, j):
    """Per column, the least-squares slope of ``y`` on ``j``, clipped to [0, 1]."""
    jc = j - j.mean(axis=0)
    den = (jc * jc).sum(axis=0)
    num = ((y - y.mean(axis=0)) * jc).sum(axis=0)
    lam = np.divide(num, den, out=np.zeros_like(num), where=den > 0)
    return np.clip(lam, 0.0, 1.0)


def _ppi_py_lambda(y, jl, ju):
    """PPI++'s power tuning for a mean (ppi_py's ``_calc_lam_glm``, one column at a time).

    :math:`\\lambda = \\widehat{Cov}(Y, \\hat Y) / ((1 + n/N) \\widehat{Var}(\\hat Y))`,
    the covariance over the labelled queries (divisor n), the variance over the
    labelled and unlabelled predictions together (divisor n + N - 1), clipped to [0, 1].
    """
    n, nu = y.shape[0], ju.shape[0]
    cov = ((y - y.mean(axis=0)) * (jl - jl.mean(axis=0))).sum(axis=0) / n
    allj = np.concatenate([jl, ju])
    var = allj.var(axis=0, ddof=1)
    den = (1.0 + n / nu) * var
    lam = np.divide(cov, den, out=np.zeros_like(cov), where=den > 0)
    return np.clip(lam, 0.0, 1.0)


def _fit(Y, J, labelled, codes, population, method, variance="sample", groups=None):
    """(estimate, phi, df, lambda, discordant, moderated, fallback) of every column.

    ``Y`` (human) and ``J`` (judge) are queries x columns. ``phi`` (queries x
    columns) is the linear representation of the estimator's error: ``phi.T @
    phi`` is the estimated covariance of the estimates, so ``sqrt((phi**2).sum(0))``
    is the standard error and a Gaussian multiplier ``g @ phi`` draws from the
    estimates' joint normal approximation. ``groups`` labels the columns whose
    judge errors are pooled by ``variance="moderated"`` (the systems of a
    measure; its pairs); ``discordant`` counts the human-labelled queries where
    the judge's value differs from the human one, ``moderated`` and ``fallback``
    say where the rectifier variance was floored or PPI fell back to the
    human-only estimate (in any stratum).
    """
    N, c = J.shape
    groups = np.zeros(c, np.int64) if groups is None else np.asarray(groups)
    discordant = (labelled[:, None] & (np.abs(Y - J) > _TOL)).sum(axis=0)
    moderated, fallback = np.zeros(c, bool), np.zeros(c, bool)
    if method == "judge":
        est = J.mean(axis=0)
        return (est, (J - est) / math.sqrt(N * (N - 1.0)), np.full(c, N - 1.0),
                np.full(c, np.nan), discordant, moderated, fallback)
    n_strata = int(codes.max()) + 1
    est = np.zeros(c)
    phi = np.zeros((N, c))
    var_terms, df_terms = [], []
    lam_all = np.zeros((n_strata, c))
    for h in range(n_strata):
        A = codes == h
        L = A & labelled
        U = A & ~labelled
        Nh, nh, nu = int(A.sum()), int(L.sum()), int(U.sum())
        W = Nh / N
        y, jl = Y[L], J[L]
        if method == "human":
            lam = np.zeros(c)
        elif population == "finite":
            lam = _ols_slope(y, jl)
        else:
            lam = _ppi_py_lambda(y, jl, J[U]) if nu else np.zeros(c)
        fb = np.zeros(c, bool)
        if method == "ppi" and variance == "moderated":
            fb = _too_few_discordant(y, jl, groups)
            lam = np.where(fb, 0.0, lam)
        r = y - lam * jl
        rbar = r.mean(axis=0)
        dev = r - rbar
        if method == "ppi" and variance == "moderated":
            dev, floored = _moderate(dev, y, jl, fb, groups)
            moderated |= floored
            fallback |= fb
        if population == "finite":  # design-based: the all-query mean of these queries
            theta = lam * J[A].mean(axis=0) + rbar
            phi[L] = W * math.sqrt(max(1.0 / nh - 1.0 / Nh, 0.0) / (nh - 1.0)) * dev
            df_h = nh - 1.0
        elif method == "human":  # the classical t interval of the labelled queries
            theta = rbar
            phi[L] = W * dev / math.sqrt(nh * (nh - 1.0))
            df_h = nh - 1.0
        else:  # PPI++ exactly as ppi_py's ppi_mean_ci (divisor n, the normal quantile)
            theta = rbar.copy()
            phi[L] = W * dev / nh
            if nu:
                ju = J[U]
                theta += lam * ju.mean(axis=0)
                phi[U] = W * lam * (ju - ju.mean(axis=0)) / nu
            # a fallback column is the human-only row: the classical t interval
            phi[np.ix_(L, fb)] = W * dev[:, fb] / math.sqrt(nh * (nh - 1.0))
            df_h = np.where(fb, nh - 1.0, np.inf)
        est += W * theta
        var_terms.append((phi[A] ** 2).sum(axis=0))
        df_terms.append(np.broadcast_to(df_h, (c,)))
        lam_all[h] = lam
    df = _satterthwaite(np.array(var_terms), np.array(df_terms))
    lam_out = lam_all[0] if n_strata == 1 else np.full(c, np.nan)
    return est, phi, df, lam_out, discordant, moderated, fallback


def _too_few_discordant(y, jl, groups):
    """Columns whose group shows fewer than MIN_DISCORDANT discordant (query, column) cells."""
    disc = (np.abs(y - jl) > _TOL).sum(axis=0)
    pooled = np.array([disc[groups == g].sum() for g in groups])
    return pooled < MIN_DISCORDANT


def _moderate(dev, y, jl, fallback, groups):
    r"""Rectifier deviations with the pooled floor on their sum of squares (see ppi_evaluate).

    For each column with fewer than :data:`MODERATE_BELOW` discordant labelled
    queries, the sum of squares of the rectifier deviations is raised to
    :math:`\bar\rho_g \sum_i (Y_i - \bar Y)^2` when it is below it, with
    :math:`\bar\rho_g` the mean over the columns of its group of the share
    :math:`\sum_i (r_i - \bar r)^2 / \sum_i (Y_i - \bar Y)^2` of the human values'
    variation that the judge leaves unexplained: the deviations are scaled up
    (or, when they are all zero, replaced by :math:`\sqrt{\bar\rho_g} (Y_i - \bar Y)`),
    so that the variance and the multiplier draws of the pairs carry the floor.
    Returns the deviations and the mask of the floored columns.
    """
    disc = (np.abs(y - jl) > _TOL).sum(axis=0)
    ss = (dev * dev).sum(axis=0)
    yd = y - y.mean(axis=0)
    ssy = (yd * yd).sum(axis=0)
    ok = (ssy > 0) & ~fallback
    rho = np.divide(ss, ssy, out=np.zeros_like(ss), where=ssy > 0)
    rho_bar = np.zeros_like(ss)
    for g in np.unique(groups):
        m = groups == g
        rho_bar[m] = rho[m & ok].mean() if (m & ok).any() else 0.0
    floor = rho_bar * ssy
    use = (disc < MODERATE_BELOW) & ~fallback & (floor > ss * (1.0 + 1e-12))
    out = dev.copy()
    scale = np.sqrt(np.divide(floor, ss, out=np.ones_like(ss), where=ss > 0))
    grow = use & (ss > 0)
    out[:, grow] *= scale[grow]
    fresh = use & (ss <= 0)
    out[:, fresh] = yd[:, fresh] * np.sqrt(rho_bar[fresh])
    return out, use


def _satterthwaite(v, dfs):
    """Welch-Satterthwaite degrees of freedom of a sum of stratum variance terms.

    ``v`` and ``dfs`` are strata x columns; a column with an infinite term is normal.
    """
    total = v.sum(axis=0)
    den = (v ** 2 / dfs).sum(axis=0)
    fallback = dfs.sum(axis=0)
    df = np.divide(total ** 2, den, out=fallback.copy(), where=den > 0)
    return np.where(np.isinf(dfs).any(axis=0), np.inf, df)


def _max_t(phi, se, t_obs, df, n_resamples, gen, cl):
    """Critical value and single-step adjusted p-values of max_p |t_p| (pairs).

    Gaussian multipliers ``g @ phi`` draw from the joint normal approximation
    of the estimates (Chernozhukov, Chetverikov and Kato 2013); with finite
    ``df`` each draw is divided by ``sqrt(chi2_df / df)`` (a multivariate t,
    as in Hothorn, Bretz and Westfall 2008). Pairs with no variance are left out.
    """
    ok = se > 0
    if not ok.any():
        return math.nan, np.where(np.abs(t_obs) > 0, 0.0, 1.0)
    phi = phi[:, ok] / se[ok]
    dfc = float(np.min(df[ok]))
    resource_iv(8 * n_resamples, "n_resamples", what=f"{n_resamples:,} resamples")
    maxt = np.empty(n_resamples)
    for start in range(0, n_resamples, _CHUNK):
        b = min(_CHUNK, n_resamples - start)
        z = np.abs(gen.standard_normal((b, phi.shape[0])) @ phi).max(axis=1)
        if np.isfinite(dfc):
            z /= np.sqrt(gen.chisquare(dfc, size=b) / dfc)
        maxt[start:start + b] = z
    c = float(np.quantile(maxt, cl, method="higher"))
    absd = np.abs(t_obs)
    count = (maxt[None, :] >= absd[:, None] * (1 - 1e-12)).sum(axis=1)
    padj = np.minimum((count + 1.0) / (n_resamples + 1.0), 1.0)
    return c, padj


def _t_stats(est, se, df):
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se > 0, est / np.where(se > 0, se, 1.0),
                     np.where(est == 0, 0.0, np.sign(est) * np.inf))
    p = np.where(np.isfinite(df), 2 * stats.t.sf(np.abs(t), np.where(np.isfinite(df), df, 1)),
                 2 * stats.norm.sf(np.abs(t)))
    return t, np.where(np.isnan(t), 1.0, p)


def _ranks(est, sig, hib):
    """Observed ranks and [1 + #significantly better, k - #significantly worse]."""
    key = est if hib else -est
    k = est.size
    rank = np.array([1 + int(np.sum(key > key[i])) for i in range(k)])
    better = key[:, None] - key[None, :] > 0
    low = 1 + (sig & better.T).sum(axis=1)
    high = k - (sig & better).sum(axis=1)
    return rank, low, high


def _significance_matrix(pairs, names, measure, method, cl):
    f = pairs[(pairs.measure == measure) & (pairs.method == method)]
    idx = {s: i for i, s in enumerate(names)}
    sig = np.zeros((len(names), len(names)), bool)
    for a, b, p in zip(f.a, f.b, f.pvalue_adjusted, strict=True):
        sig[idx[a], idx[b]] = sig[idx[b], idx[a]] = p <= 1 - cl
    return sig


# ---------------------------------------------------------------------------
# inputs
# ---------------------------------------------------------------------------

def _frames(scores, name):
    """``{measure: DataFrame (queries x systems)}`` from an Evaluation or a mapping."""
    if hasattr(scores, "measure_names") and callable(getattr(scores, "scores", None)):
        return {m: scores.scores(m) for m in scores.measure_names}
    if isinstance(scores, Mapping) and scores and all(
            isinstance(v, pd.DataFrame) for v in scores.values()):
        return {str(parse_measure(k)): v for k, v in scores.items()}
    raise ParameterTypeError(f"`{name}` must be an Evaluation or a mapping {{measure: DataFrame}} "
                    f"(rows: queries, columns: systems), got {type(scores).__name__}")


def _strata_codes(strata, queries):
    if strata is None:
        return np.zeros(len(queries), np.int64), None
    if isinstance(strata, pd.Series):
        strata = strata.to_dict()
    if not isinstance(strata, Mapping):
        raise ParameterTypeError("`strata` must be a mapping {query: stratum} or a pandas Series "
                        f"indexed by query, got {type(strata).__name__}")
    strata = {str(k): v for k, v in strata.items()}
    missing = [q for q in queries if q not in strata]
    if missing:
        raise ParameterError(f"`strata` gives no stratum for {len(missing)} queries, e.g. "
                         f"{missing[:3]}")
    labels = [str(strata[q]) for q in queries]
    names, codes = np.unique(np.asarray(labels, dtype=object).astype(str), return_inverse=True)
    return codes.astype(np.int64), tuple(str(s) for s in names)


def _ppi_scores_iv(human, judge, confidence_level, population, strata, n_resamples,
                   variance=PPI_VARIANCE):
    cl = confidence_level_iv(confidence_level)
    if not isinstance(population, str | None) or population not in POPULATIONS:
        raise ParameterError(f"`population` must be one of {POPULATIONS}, got {population!r}")
    if not isinstance(variance, str) or variance not in PPI_VARIANCES:
        raise ParameterError(f"`variance` must be one of {PPI_VARIANCES}, got {variance!r}",
                             name="variance")
    n_resamples = n_resamples_iv(n_resamples)
    H, J = _frames(human, "human"), _frames(judge, "judge")
    missing = [m for m in J if m not in H]
    if missing:
        raise ParameterError(f"`human` lacks the measures {missing} of `judge`")
    for m in J:
        if not math.isfinite(parse_measure(m).spec.bounds[1]):
            raise ParameterError(f"measure {m!r} can be infinite; PPI needs a mean of finite "
                             "values (use RR rather than Rank)")
    first = next(iter(J.values()))
    systems = [str(s) for s in first.columns]
    queries = [str(q) for q in first.index]
    if len(systems) < 1 or len(queries) < 2:
        raise ParameterError("`judge` needs at least one system and two queries")
    codes, names = _strata_codes(strata, queries)
    out = {}
    for m, jf in J.items():
        jf = jf.copy()
        jf.index, jf.columns = jf.index.astype(str), jf.columns.astype(str)
        hf = H[m].copy()
        hf.index, hf.columns = hf.index.astype(str), hf.columns.astype(str)
        if list(jf.columns) != systems or sorted(jf.index) != sorted(queries):
            raise ParameterError(f"`judge`: measure {m!r} has other systems or queries than the "
                             "first measure")
        if set(hf.columns) != set(systems):
            raise ParameterError(f"`human`: measure {m!r} has other systems than `judge`")
        hf = hf.dropna(how="all")
        extra = sorted(set(hf.index) - set(queries))
        if extra:
            raise InputError(f"{len(extra)} human-labelled queries have no judge labels "
                             f"(every query needs the judge's), e.g. {extra[:3]}")
        if hf.isna().any().any():
            raise ParameterError(f"`human`: measure {m!r} has missing values on labelled queries")
        jv = jf.loc[queries, systems].to_numpy(np.float64)
        hv = hf.reindex(index=queries, columns=systems).to_numpy(np.float64)
        if not np.isfinite(jv).all():
            raise ParameterError(f"`judge`: measure {m!r} has missing or infinite values")
        out[m] = (hv, jv)
    labelled = ~np.isnan(next(iter(out.values()))[0][:, 0])
    for h in range(int(codes.max()) + 1):
        nh = int((labelled & (codes == h)).sum())
        if nh < 2:
            where = "" if names is None else f" in stratum {names[h]!r}"
            raise ParameterError(f"{nh} human-labelled queries{where}; PPI needs at least 2 "
                             "(in every stratum)")
    return (cl, population, variance, n_resamples, out, systems, queries, labelled, codes,
            names)


# ---------------------------------------------------------------------------
# the public functions
# ---------------------------------------------------------------------------

def ppi_scores(human, judge, *, confidence_level=CONFIDENCE_LEVEL, population="finite",
               variance=PPI_VARIANCE, strata=None, n_resamples=N_RESAMPLES,
               rng=None) -> PPIResult:
    r"""PPI++ intervals from per-query human and judge scores.

    Parameters
    ----------
    human : Evaluation or mapping of str to DataFrame
        Per measure, the human-label values: one row per human-labelled query
        (rows of other queries absent or all NaN), one column per system.
    judge : Evaluation or mapping of str to DataFrame
        Per measure, the judge-label values of every query (the same systems).
    confidence_level, population, variance, strata, n_resamples, rng
        As in :func:`ppi_evaluate`.

    Returns
    -------
    PPIResult

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from mrrstats.stats.ppi import ppi_scores
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.uniform(size=(200, 2)) + [0.0, 0.1]
    >>> judge = pd.DataFrame(truth + rng.normal(0, 0.1, truth.shape), columns=["a", "b"])
    >>> human = pd.DataFrame(truth, columns=["a", "b"]).iloc[:60]
    >>> res = ppi_scores({"RR": human}, {"RR": judge}, rng=1)
    >>> s = res.summary()
    >>> bool((s.width_ratio < 0.8).all())
    True
    """
    (cl, population, variance, n_resamples, data, systems, queries, labelled, codes,
     names) = _ppi_scores_iv(human, judge, confidence_level, population, strata, n_resamples,
                             variance)
    gen, seed = rng_iv(rng)
    k = len(systems)
    ii, jj = np.triu_indices(k, 1)
    N, n = len(queries), int(labelled.sum())
    groups = np.r_[np.zeros(k, np.int64), np.ones(ii.size, np.int64)]  # systems; pairs
    sys_rows, pair_rows, crit = [], [], {}
    for m, (hv, jv) in data.items():
        Y = np.concatenate([hv, hv[:, ii] - hv[:, jj]], axis=1)
        J = np.concatenate([jv, jv[:, ii] - jv[:, jj]], axis=1)
        Y = np.where(labelled[:, None], Y, 0.0)
        hib = higher_is_better(m)
        for method in PPI_METHODS:
            est, phi, df, lam, disc, mod, fb = _fit(Y, J, labelled, codes, population,
                                                    method, variance, groups)
            se = np.sqrt((phi ** 2).sum(axis=0))
            t, p = _t_stats(est, se, df)
            c, padj = _max_t(phi[:, k:], se[k:], t[k:], df[k:], n_resamples, gen, cl)
            crit[(m, method)] = c
            q = _quantile(0.5 + cl / 2, df)
            sig = np.zeros((k, k), bool)
            sig[ii, jj] = sig[jj, ii] = padj <= 1 - cl
            rank, low, high = _ranks(est[:k], sig, hib)
            for s in range(k):
                sys_rows.append((systems[s], m, method, est[s], se[s], est[s] - q[s] * se[s],
                                 est[s] + q[s] * se[s], df[s], lam[s], n, N, disc[s],
                                 mod[s], fb[s], rank[s], low[s], high[s]))
            for pi in range(ii.size):
                x = k + pi
                pair_rows.append((systems[ii[pi]], systems[jj[pi]], m, method, est[x], se[x],
                                  est[x] - q[x] * se[x], est[x] + q[x] * se[x], df[x], t[x],
                                  p[x], padj[pi], lam[x], n, N, disc[x], mod[x], fb[x]))
    sys_cols = ["system", "measure", "method", "estimate", "standard_error", "ci_low",
                "ci_high", "df", "power_tuning", "n_human", "n_judge", "n_discordant",
                "moderated", "fallback", "rank", "rank_low", "rank_high"]
    pair_cols = ["a", "b", "measure", "method", "difference", "standard_error", "ci_low",
                 "ci_high", "df", "statistic", "pvalue", "pvalue_adjusted", "power_tuning",
                 "n_human", "n_judge", "n_discordant", "moderated", "fallback"]
    return PPIResult(pd.DataFrame(sys_rows, columns=sys_cols),
                     pd.DataFrame(pair_rows, columns=pair_cols), tuple(data), tuple(systems),
                     cl, population, N, n, names, n_resamples, seed, crit, variance)


def ppi_evaluate(runs: RunsInput, judge_qrels: QrelsInput, human_qrels: QrelsInput,
                 measures: MeasuresInput | None = None, *,
                 confidence_level: float = CONFIDENCE_LEVEL,
                 population: Literal["finite", "infinite"] = "finite",
                 variance: Literal["moderated", "sample"] = PPI_VARIANCE,
                 strata: Mapping[str, Any] | pd.Series | None = None,
                 n_resamples: int = N_RESAMPLES, rng: Seed = None) -> PPIResult:
    r"""Estimate human-label means from judge labels and a human-labelled subset (PPI++).

    Parameters
    ----------
    runs : a run, a list of runs, or a dict name -> run
        Anything :func:`mrrstats.evaluate` accepts.
    judge_qrels : qrels
        The judge's labels for every query (anything :func:`mrrstats.evaluate`
        accepts). Its queries are all the queries.
    human_qrels : qrels
        People's labels for a random subset of the queries. A query counts as
        human-labelled when it appears here (an empty judgement set included);
        each must also be in ``judge_qrels``.
    measures : str or sequence of str, optional
        Default ``("RR",)``. Any measure with finite values.
    confidence_level : float, keyword-only
        Level of every interval; the rank intervals and ``pvalue_adjusted``
        hold simultaneously over the systems (pairs) of a measure at this level.
    population : {"finite", "infinite"}, keyword-only
        What the intervals are about. ``"finite"`` (default): the human-label
        mean over these queries, the value had people labelled every query
        (design-based: the only randomness is which queries were labelled, so
        the interval shrinks to the value when every query is labelled).
        ``"infinite"``: the human-label mean of the population the queries are
        a sample of (PPI++ exactly as published and as ``ppi_py``'s
        ``ppi_mean_ci`` computes it, the unlabelled queries being those without
        human labels); it is wider, and it is the one to use for claims about
        new queries.
    variance : {"moderated", "sample"}, keyword-only
        The variance of the judge's error (the rectifier). ``"moderated"``
        (default): where few human-labelled queries show the judge erring, the
        sample variance is raised to a floor pooled over the systems (over the
        pairs, for the pairs), and with almost no discordant query the PPI row
        falls back to the human-only estimate (see Notes; the columns
        ``n_discordant``, ``moderated`` and ``fallback`` say where).
        ``"sample"``: the plain sample variance (with ``population="infinite"``
        exactly ``ppi_py``'s ``ppi_mean_ci``), which under-covers when the
        judge rarely errs and few queries are human-labelled.
    strata : mapping of query -> label, or Series, optional, keyword-only
        Strata of the queries (e.g. topic categories, or the judge's
        confidence): the human-labelled queries are then a random sample
        within each stratum, each stratum gets its own :math:`\lambda`, and
        the estimate weights the strata by their share of queries
        (stratified PPI, Fisch et al. 2024). Every stratum needs at least 2
        human-labelled queries.
    n_resamples : int, keyword-only
        Multiplier draws for the simultaneous (``max-|t|``) critical value of
        the pairs, used by ``pvalue_adjusted`` and the rank intervals.
    rng : None, int or numpy.random.Generator, keyword-only
        Seed of those draws (recorded in ``seed``); nothing else is random.

    Returns
    -------
    PPIResult
        ``.systems`` and ``.pairs`` with the PPI rows (``method == "ppi"``)
        and, beside them, the human-only (``"human"``) and judge-only
        (``"judge"``) rows.

    Notes
    -----
    For one system and measure, with :math:`Y_i` the human-label value of
    query :math:`i`, :math:`\hat Y_i` the judge-label value, :math:`N`
    queries of which the :math:`n` in :math:`L` are human-labelled, and
    residuals :math:`r_i = Y_i - \lambda \hat Y_i`:

    .. math::

        \hat\theta = \lambda \frac{1}{N}\sum_{i=1}^N \hat Y_i
                     + \frac{1}{n}\sum_{i \in L} r_i .

    ``population="finite"`` targets :math:`\theta = \frac1N \sum_i Y_i`; the
    human subset being a simple random sample, :math:`\hat\theta` is the
    survey-sampling difference estimator (exactly unbiased for fixed
    :math:`\lambda`) with variance :math:`(1/n - 1/N) S_r^2` (Cochran 1977,
    7.1-7.3), :math:`S_r^2` the variance of the residuals over :math:`L`
    (divisor :math:`n - 1`). :math:`\lambda` minimises it: the least-squares
    slope of :math:`Y` on :math:`\hat Y` over :math:`L`, clipped to
    :math:`[0, 1]` as PPI++ clips it (0: the human-only estimate, 1: plain
    PPI). The interval uses the t quantile with :math:`n - 1` degrees of
    freedom. ``population="infinite"`` is PPI++ (Angelopoulos, Duchi and
    Zrnic 2023): the first mean runs over the :math:`N - n` unlabelled
    queries :math:`U`, the variance is :math:`\lambda^2 \hat\sigma^2_{\hat
    Y, U}/(N - n) + \hat\sigma^2_{r, L}/n` (divisors :math:`N - n` and
    :math:`n`), :math:`\lambda = \widehat{Cov}(Y, \hat Y) / ((1 + n/(N - n))
    \widehat{Var}(\hat Y))` clipped to :math:`[0, 1]`, and the quantile is
    the normal one, as in ``ppi_py`` 0.2.

    A pair is the same estimator applied to the per-query differences
    :math:`Y_{a,i} - Y_{b,i}` and :math:`\hat Y_{a,i} - \hat Y_{b,i}`, with
    its own :math:`\lambda`; ``pvalue`` is the two-sided t (normal) test.
    With strata :math:`h` of :math:`N_h` queries (:math:`n_h` labelled) the
    estimate is :math:`\sum_h (N_h/N) \hat\theta_h` with each stratum's own
    :math:`\lambda_h` and variance :math:`\sum_h (N_h/N)^2 V_h`
    (Welch-Satterthwaite degrees of freedom).

    The human-only rows are the same estimators with :math:`\lambda = 0`
    (under ``"finite"`` with the finite-population correction
    :math:`1 - n/N`; under ``"infinite"`` the classical t interval); the
    judge-only rows are the t intervals of the judge's values over all
    queries, which estimate the judge's mean, not the human one: they show
    what trusting the judge would report.

    Simultaneous decisions: the pair estimates are jointly normal in the
    limit, with covariance :math:`\Phi^\top \Phi` from the same residuals;
    :math:`c` is the ``confidence_level`` quantile of :math:`\max_p |Z_p|`
    drawn with Gaussian multipliers (a multivariate t with :math:`n - 1`
    degrees of freedom under ``"finite"``), ``pvalue_adjusted`` is
    :math:`P(\max |Z| \ge |t_p|)`, and the rank interval of a system is
    :math:`[1 + \#\text{significantly better}, k - \#\text{significantly
    worse}]` (Mogstad et al. 2024), as :func:`mrrstats.rank_intervals`.

    The variance of the rectifier (``variance="moderated"``, the default).
    With a good judge the rectifier :math:`r_i = Y_i - \lambda \hat Y_i` is
    zero on most queries and large on the few where the judge's labels move
    the measure (for RR a flipped label at the top moves it from 1/5 to 1).
    Its sample variance then rests on the few discordant labelled queries
    (for a zero-inflated variable the effective degrees of freedom of
    :math:`S_r^2` are about twice their number: :math:`\mathrm{Var}(S^2)/
    \sigma^4 \approx (\kappa - 1)/n` with kurtosis :math:`\kappa \approx
    1/p`), and it is small exactly when the sample happens to hold few of
    them, which is when the estimate is most off. On CAsT 2021 with a judge
    that moves one label in twelve, the sample-variance RR intervals of the
    systems cover 0.78-0.89 with 20-50 % of the queries labelled, while the
    same estimator with the population's rectifier variance covers 0.96: the
    variance estimate, not :math:`\lambda` or the normal approximation, is
    what fails. The judge labels documents, not systems, so the share of the
    human values' variation it leaves unexplained, :math:`\rho_c = \sum_L
    (r_i - \bar r)^2 / \sum_L (Y_i - \bar Y)^2`, is alike across the systems
    of a measure. ``"moderated"`` pools it, :math:`\bar\rho` the mean over
    the systems (over the pairs, for a pair), and for a column with fewer
    than 20 discordant labelled queries (:data:`MODERATE_BELOW`; human and
    judge values differ) uses :math:`\max(\sum_L (r_i - \bar r)^2, \bar\rho
    \sum_L (Y_i - \bar Y)^2)` as the rectifier's sum of squares: a floor that
    borrows strength across systems as moderated variances borrow it across
    features (Smyth 2004), a maximum rather than a weighted mean so that a
    system the judge serves worse keeps its own larger variance (column
    ``moderated``). Where the systems (pairs) of a measure show fewer than 3
    discordant (query, column) cells in a stratum (:data:`MIN_DISCORDANT`)
    the judge's error cannot be estimated and the PPI row is the human-only
    one (column ``fallback``). The quantile keeps its degrees of freedom.

    Coverage on real runs (``benchmarks/bench_judge.py``, results in
    ``benchmarks/results_judge.md``: TREC CAsT 2021, 5 systems and 10 pairs,
    judge labels moved to an adjacent grade with probability 1/12 or 1/4,
    random human subsets of 20, 30 and 50 % of the 158 queries, target the
    all-query human value, nominal 0.95, ``population="finite"``; 500
    replicates per cell, Monte-Carlo standard error 0.0097): with
    ``"moderated"`` the RR intervals of the systems cover 0.950-0.964 (mean
    over the 5 systems; every system 0.936-0.974, within the 99 %
    Monte-Carlo band), of the pairs 0.949-0.970 (every pair 0.934-0.988: with
    the good judge and 20-30 % labelled two pairs of ten cover 0.98-0.99,
    conservative), and nDCG@10 0.943-0.962, where the judge differs on most
    queries and the floor seldom applies. Median widths relative to the
    human-only interval: RR 0.37-0.38 (systems) and 0.42 (pairs) with the
    judge that moves one label in twelve, 0.59-0.66 with one in four;
    nDCG@10 0.18-0.19 and 0.30-0.32. With ``"sample"`` the RR systems cover
    0.75 (20 % labelled), 0.85 (30 %) and 0.89 (50 %), the pairs 0.90-0.92,
    with the good judge; 0.90-0.94 with the other. ``population="infinite"``
    (200 replicates per cell) covers the all-query value at 0.98-1.00 with
    ``"moderated"`` (0.96-1.00 with ``"sample"``), as it targets the wider
    query population, at 0.56-0.82 of the human-only width for RR.

    References
    ----------
    .. [1] A. N. Angelopoulos, S. Bates, C. Fannjiang, M. I. Jordan and T. Zrnic,
       "Prediction-powered inference", Science 382(6671), 669-674, 2023.
    .. [2] A. N. Angelopoulos, J. C. Duchi and T. Zrnic, "PPI++: Efficient
       prediction-powered inference", arXiv:2311.01453, 2023.
    .. [3] A. Fisch, J. Maynez, R. A. Hofer, B. Dhingra, A. Globerson and
       W. W. Cohen, "Stratified prediction-powered inference for effective
       hybrid evaluation of language models", NeurIPS 2024.
    .. [4] W. G. Cochran, Sampling Techniques, 3rd ed., Wiley, 1977, ch. 7.
    .. [5] M. Mogstad, J. P. Romano, A. M. Shaikh and D. Wilhelm, "Inference
       for ranks", Review of Economic Studies 91(1), 476-518, 2024.
    .. [6] G. K. Smyth, "Linear models and empirical Bayes methods for assessing
       differential expression in microarray experiments", Statistical
       Applications in Genetics and Molecular Biology 3(1), article 3, 2004.

    Examples
    --------
    The bundled TREC CAsT 2021 runs, a simulated judge that moves one label in
    twelve to an adjacent grade, and people labelling 40 % of the queries:

    >>> import mrrstats
    >>> data = mrrstats.datasets.cast2021_judged()
    >>> res = mrrstats.ppi_evaluate(data.runs, data.judge_qrels, data.human_qrels, "RR", rng=0)
    >>> s = res.summary().round(2)
    >>> print(s[["system", "estimate_ppi", "ci_low_ppi", "ci_high_ppi", "width_ratio"]]
    ...       .to_string(index=False))
                      system  estimate_ppi  ci_low_ppi  ci_high_ppi  width_ratio
              org_convdr.run          0.66        0.64         0.69         0.28
         org_convdr_bert.run          0.72        0.70         0.74         0.28
         org_manual_ance.run          0.81        0.79         0.83         0.28
    org_manual_ance_bert.run          0.85        0.83         0.88         0.41
         org_manual_bm25.run          0.70        0.68         0.72         0.29
    """
    judge = qrels_iv(judge_qrels, "judge_qrels")
    human = qrels_iv(human_qrels, "human_qrels")
    extra = np.setdiff1d(np.asarray(human.query_ids, dtype=str),
                         np.asarray(judge.query_ids, dtype=str))
    if extra.size:
        raise InputError(f"{extra.size} queries of `human_qrels` are not in `judge_qrels` "
                         f"(the judge must label every query), e.g. {list(extra[:3])}")
    ev_judge = evaluate(judge, runs, measures, queries="qrels")
    ev_human = evaluate(human, runs, ev_judge.measures, queries="qrels")
    return ppi_scores(ev_human, ev_judge, confidence_level=confidence_level,
                      population=population, variance=variance, strata=strata,
                      n_resamples=n_resamples, rng=rng)
