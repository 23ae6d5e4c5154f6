r"""Several runs per system (seeds, folds): tests that count queries AND replicates.

A neural system trained with :math:`R` seeds (or evaluated over :math:`R`
repetitions of a cross-validation split) gives :math:`R` runs, each scored on
the same :math:`n` queries. Its mean over the queries then varies for two
reasons: the queries are a sample (the usual one), and so are the seeds. A
test that averages the replicates first, or that treats the :math:`nR`
(query, replicate) cells as :math:`nR` independent queries, ignores the
second source; :func:`replicate_tests` counts both.

The model (one system :math:`s`, query :math:`q`, replicate :math:`r`) is the
crossed random-effects model

.. math:: y_{sqr} = \mu_s + t_q + (st)_{sq} + u_{sr} + e_{sqr},

with query effects :math:`t_q` (shared by all systems, so they cancel in a
paired difference), system-by-query interactions :math:`(st)_{sq}`, replicate
(seed) effects :math:`u_{sr} \sim (0, \sigma^2_{u,s})` that shift a whole
run, and seed-by-query noise :math:`e_{sqr} \sim (0, \sigma^2_{e,s})`.
Replicates of different systems are independent (different seeds).

Three methods estimate :math:`\delta = \mu_a - \mu_b` by the difference of
the grand means :math:`\hat\delta = \bar y_{a\cdot\cdot} - \bar y_{b\cdot\cdot}`:

* ``"bootstrap"`` (default): a two-stage studentised bootstrap that resamples
  the queries (the same ones for every system, keeping the pairing) and,
  independently per system, draws its replicate component (normal run
  effects with a chi-square variance estimate on :math:`R - 1` degrees of
  freedom, or the runs resampled);
* ``"t"``: the analytic variance from the ANOVA (method-of-moments) variance
  components with Satterthwaite's degrees of freedom -- the balanced crossed
  mixed model solved in closed form;
* ``"mixed"``: statsmodels' ``MixedLM`` (REML) with crossed query,
  query-by-system and replicate effects, and a Wald z test (slow: a minute
  or more for 250 queries x 10 runs; an option, not the default).

See :func:`replicate_tests` for the formulas and the calibration.
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

from ..defaults import REPLICATE_DRAW
from ..errors import ParameterError, ParameterTypeError
from ..model.scoretable import as_score_table
from ..options import REPLICATE_DRAWS, REPLICATE_METHODS
from ..validation import (
    alpha_iv,
    alternative_iv,
    confidence_level_iv,
    float_iv,
    int_iv,
    n_resamples_iv,
    resource_iv,
    rng_iv,
    workers_iv,
)
from .corrections import adjust_pvalues
from .counter import as_key, bootstrap_counts, domain_key, subkey, threefry2x32
from .intervals import ConfidenceInterval
from .methods import MethodsText, methods_text
from .registry import correction_spec
from .resampling import blas_single_thread, exact_count_products, exact_split

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Literal

    from .._typing import Alternative, Correction, Missing, Scores, Seed

__all__ = ["ReplicateComparison", "FewReplicatesWarning", "replicate_tests",
           "simulate_replicates", "REPLICATE_METHODS", "REPLICATE_DRAWS", "MIN_REPLICATES",
           "T_ENVELOPE_BELOW", "replicate_frame"]

#: Fewer replicates than this per system draws a :class:`FewReplicatesWarning`.
MIN_REPLICATES = 3
#: A pair of systems one of which has fewer runs than this gets, with the bootstrap, a
#: reference at least as wide as Satterthwaite's t (:func:`replicate_tests`, Notes).
T_ENVELOPE_BELOW = 4
_ELEMENTS = 1 << 22  # floats per batch of resamples (per system: batch x queries)
#: Key domain of the normal draws of the replicate stage (XORed into a system's key).
_NORMAL_DOMAIN = (0x5851F42D, 0x4C957F2D)


class FewReplicatesWarning(UserWarning):
    """A system has too few replicates for its seed variance to be estimated.

    With one run the seed variance of that system cannot be estimated and is
    taken as 0 (the test then counts the queries only); with two it rests on
    one degree of freedom, and intervals are very wide. Three or more runs per
    system (:data:`MIN_REPLICATES`) are needed to say anything about seeds.
    """


@dataclass(frozen=True, eq=False)
class ReplicateComparison:
    r"""Result of :func:`replicate_tests`: one entry per pair of systems.

    Attributes
    ----------
    systems : tuple of str
        The keys of ``replicates``, in order.
    replicates : dict of str -> tuple of str
        The runs (columns of the score table) of each system.
    a, b : tuple of str
        The systems of each pair (``a`` before ``b`` in ``systems``).
    mean_a, mean_b, difference : ndarray
        Grand means over queries and replicates, and ``mean_a - mean_b``.
    standard_error : ndarray
        :math:`\sqrt{\hat V}` of the difference, counting queries and replicates.
    df : ndarray
        Satterthwaite degrees of freedom (``method="t"``; NaN otherwise).
    statistic : ndarray
        The studentised difference :math:`\hat\delta / \sqrt{\hat V}` (a z for
        ``"mixed"``).
    pvalue, pvalue_adjusted : ndarray
        Unadjusted and ``correction``-adjusted p-values.
    reject : ndarray of bool
        ``pvalue_adjusted <= alpha``.
    ci_low, ci_high : ndarray
        Interval of the difference at ``confidence_level``: simultaneous over
        the pairs with ``correction="single-step"`` and the bootstrap (the
        max-T quantile, so that a pair is rejected exactly when 0 is outside),
        marginal otherwise (``ci_method``).
    ci_method : str
        ``"maxt-single-step"`` or ``"marginal"``.
    share_queries, share_replicates : ndarray
        Shares of :math:`\hat V` that come from the queries (the part that
        shrinks with more queries) and from the replicates (the part that
        only more seeds shrink); they sum to 1.
    n_replicates_a, n_replicates_b : ndarray of int
    components : DataFrame
        Per system: ``n_replicates``, ``seed_variance`` (:math:`\hat\sigma^2_u`,
        the variance of a run's mean effect), ``residual_variance``
        (:math:`\hat\sigma^2_e`, seed-by-query noise), ``std_between_runs``
        (standard deviation of the run means).
    method, correction, alternative : str
    alpha, confidence_level : float
    n_resamples : int or None
        Bootstrap resamples (None for ``"t"`` and ``"mixed"``).
    replicate_draws : str or None
        The bootstrap's second stage, ``"parametric"`` or ``"resample"`` (None for
        ``"t"`` and ``"mixed"``).
    seed : int or None
        Seed of the bootstrap (None for the deterministic methods, or when a
        Generator was passed).
    n_queries : int
    measure : str
    null_distribution : ndarray or None
        ``(pairs, n_resamples)`` bootstrap values of the studentised statistic
        :math:`(\hat\delta^* - \hat\delta)/\sqrt{\hat V^*}` (``"bootstrap"``).
    run_means : dict of str -> ndarray
        Each system's run means (its mean over the queries, one per replicate).
    """

    systems: tuple
    replicates: dict = field(repr=False)
    a: tuple = ()
    b: tuple = ()
    mean_a: np.ndarray = field(repr=False, default=None)  # type: ignore[arg-type, assignment]
    mean_b: np.ndarray = field(repr=False, default=None)  # type: ignore[arg-type, assignment]
    difference: np.ndarray = None  # type: ignore[assignment]
    standard_error: np.ndarray = None  # type: ignore[assignment]
    df: np.ndarray = field(repr=False, default=None)  # type: ignore[arg-type, assignment]
    statistic: np.ndarray = None  # type: ignore[assignment]
    pvalue: np.ndarray = None  # type: ignore[assignment]
    pvalue_adjusted: np.ndarray = None  # type: ignore[assignment]
    reject: np.ndarray = None  # type: ignore[assignment]
    ci_low: np.ndarray = None  # type: ignore[assignment]
    ci_high: np.ndarray = None  # type: ignore[assignment]
    share_queries: np.ndarray = field(repr=False, default=None)  # type: ignore[arg-type, assignment]
    share_replicates: np.ndarray = field(repr=False, default=None)  # type: ignore[arg-type, assignment]
    n_replicates_a: np.ndarray = field(repr=False, default=None)  # type: ignore[arg-type, assignment]
    n_replicates_b: np.ndarray = field(repr=False, default=None)  # type: ignore[arg-type, assignment]
    components: pd.DataFrame = field(repr=False, default=None)  # type: ignore[assignment]
    method: str = "bootstrap"
    correction: str = "single-step"
    ci_method: str = "marginal"
    alternative: str = "two-sided"
    alpha: float = 0.05
    confidence_level: float = 0.95
    n_resamples: int | None = None
    seed: int | None = None
    n_queries: int = 0
    measure: str = "score"
    null_distribution: np.ndarray | None = field(repr=False, default=None)
    run_means: dict = field(repr=False, default=None)  # type: ignore[arg-type, assignment]
    replicate_draws: str | None = None

    def methods(self) -> MethodsText:
        """The methods paragraph and its references (:mod:`mrrstats.stats.methods`)."""
        return methods_text(self)

    def __len__(self):
        return len(self.a)

    def to_frame(self) -> pd.DataFrame:
        """One row per pair: ``a``, ``b``, means, ``difference``, interval, test, shares."""
        return pd.DataFrame({
            "measure": self.measure, "a": list(self.a), "b": list(self.b),
            "mean_a": self.mean_a, "mean_b": self.mean_b, "difference": self.difference,
            "ci_low": self.ci_low, "ci_high": self.ci_high,
            "standard_error": self.standard_error, "statistic": self.statistic,
            "df": self.df, "pvalue": self.pvalue, "pvalue_adjusted": self.pvalue_adjusted,
            "reject": self.reject, "share_queries": self.share_queries,
            "share_replicates": self.share_replicates,
            "n_replicates_a": self.n_replicates_a, "n_replicates_b": self.n_replicates_b,
            "n_queries": self.n_queries, "method": self.method, "correction": self.correction,
            "ci_method": self.ci_method,
        })

    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """Intervals of every pair's difference at ``confidence_level`` (as ``ci_method``).

        Returns a :class:`~mrrstats.ConfidenceInterval` whose ``low`` and ``high``
        are arrays (one entry per pair), from the same bootstrap values, t
        distribution or Wald normal as ``ci_low``/``ci_high``.
        """
        cl = self.confidence_level if confidence_level is None else \
            confidence_level_iv(confidence_level)
        lo, hi = _intervals(self.method, self.difference, self.standard_error, self.df,
                            self.null_distribution, cl, self.alternative,
                            simultaneous=self.ci_method == "maxt-single-step")
        return ConfidenceInterval(lo, hi, cl, f"replicates-{self.method}-{self.ci_method}")


# --------------------------------------------------------------------------
# per-system summaries and the analytic variance
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class _System:
    Y: np.ndarray  # (n, R)
    row_mean: np.ndarray  # (n,) mean over replicates
    col_mean: np.ndarray  # (R,) mean over queries (the run means)
    ms_run: float  # n * var(col_mean), df R - 1
    ms_res: float  # residual mean square of the two-way layout, df (n-1)(R-1)

    @property
    def n_replicates(self):
        return self.Y.shape[1]

    def seed_term(self):
        """The run-level part of Var(mean): max(var(run means) - MS_res/n, 0) / R."""
        n, R = self.Y.shape
        if R < 2:
            return 0.0
        return max(self.ms_run - self.ms_res, 0.0) / (n * R)


def _system(Y):
    n, R = Y.shape
    row = Y.mean(axis=1)
    col = Y.mean(axis=0)
    if R < 2:
        return _System(Y, row, col, 0.0, 0.0)
    ms_run = n * float(col.var(ddof=1))
    resid = Y - row[:, None] - col[None, :] + Y.mean()
    ms_res = float((resid * resid).sum()) / ((n - 1) * (R - 1))
    return _System(Y, row, col, ms_run, ms_res)


def _analytic(sa, sb, n):
    r"""``(difference, variance, df, query part, replicate part)`` of one pair.

    :math:`\hat V = s_d^2/n + \sum_{s\in\{a,b\}} \max(MS_{run,s} - MS_{res,s}, 0)/(nR_s)`
    with Satterthwaite's degrees of freedom over the mean squares it is made of.
    """
    d = sa.row_mean - sb.row_mean
    s2d = float(d.var(ddof=1))
    terms = [(s2d / n, n - 1.0)]
    rep = 0.0
    for s in (sa, sb):
        R = s.n_replicates
        if R >= 2 and s.ms_run > s.ms_res:
            terms += [(s.ms_run / (n * R), R - 1.0),
                      (-s.ms_res / (n * R), (n - 1.0) * (R - 1.0))]
            rep += (s.ms_run - s.ms_res) / (n * R)
    V = s2d / n + rep
    den = sum(t * t / f for t, f in terms)
    df = V * V / den if den > 0 else math.inf
    return float(sa.Y.mean() - sb.Y.mean()), V, df, s2d / n, rep


# --------------------------------------------------------------------------
# the two-stage studentised bootstrap
# --------------------------------------------------------------------------
def replicate_normals(key, start, r, R):
    r"""Standard normal draws ``(r, R)`` of resamples ``start .. start + r`` (a pure function).

    Draw ``j`` of resample ``b`` is :math:`\Phi^{-1}((x_0 + 1/2) / 2^{32})`, with
    :math:`x_0` the first word of Threefry-2x32 of counter ``(b, j)`` under ``key``
    XOR a fixed domain word, so the draws do not depend on the batch.
    """
    from scipy.special import ndtri

    c0 = np.arange(start, start + r, dtype=np.int64)[:, None]
    c1 = np.arange(R, dtype=np.int64)[None, :]
    x0, _ = threefry2x32(domain_key(key, _NORMAL_DOMAIN), c0, c1)
    return ndtri((x0.astype(np.float64) + 0.5) / 4294967296.0)


def _replicate_stage(s, W, HL, kk, start, r, n, draws, workers):
    """One system's resampled grand means, per-query means and seed terms (see below)."""
    R = s.n_replicates
    M = exact_count_products(W, HL, R) / n  # (r, R) run means on the resampled queries
    if draws == "parametric":
        mq = M.mean(axis=1)  # = the resampled queries' mean of the per-query means
        rows = np.broadcast_to(s.row_mean, (r, n))
        if R < 2:
            return mq, rows, np.zeros(r)
        # the run-level variance of the mean on these queries, net of the seed-by-query
        # noise that the per-query means already carry: a2 = max(var_r M - MS_res/n, 0)/R;
        # the replicate part of the numerator is sqrt(a2) z and its variance estimate
        # a2 chi2_{R-1}/(R-1), as for R normal run effects: a t reference on R - 1
        # degrees of freedom for each system's replicate component, inside the bootstrap
        G = replicate_normals(kk, start, r, R)
        a2 = np.maximum(M.var(axis=1, ddof=1) - s.ms_res / n, 0.0) / R
        chi = (G[:, 1:] ** 2).mean(axis=1)
        return mq + G[:, 0] * np.sqrt(a2), rows, a2 * chi
    Vr = bootstrap_counts(kk, start, r, R, workers=workers)  # (r, R) run counts
    m = (Vr * M).sum(axis=1) / R
    rows = np.zeros((r, n))
    for j in range(R):  # fixed order: the same sums on any thread count
        rows += Vr[:, j, None] * s.Y[None, :, j]
    if R < 2:
        return m, rows / R, np.zeros(r)
    var = (Vr * (M - m[:, None]) ** 2).sum(axis=1) / (R - 1)
    return m, rows / R, np.maximum(var - s.ms_res / n, 0.0) / R


def _two_stage_null(systems, pairs, D, V, n_resamples, batch, key, workers,
                    draws=REPLICATE_DRAW):
    """``(pairs, B)`` studentised bootstrap values of every pair (see replicate_tests)."""
    n = systems[0].Y.shape[0]
    k = len(systems)
    if batch is None:
        batch = max(1, _ELEMENTS // max(1, n * k))
    splits = [np.ascontiguousarray(np.vstack(exact_split(s.Y.T, n)).T) for s in systems]
    keys = [subkey(key, 1 + i) for i in range(k)]
    qkey = subkey(key, 0)
    out = np.empty((len(pairs), n_resamples))
    with blas_single_thread():
        for start in range(0, n_resamples, batch):
            r = min(batch, n_resamples - start)
            W = bootstrap_counts(qkey, start, r, n, workers=workers)  # (r, n) query counts
            means, dq, seed = [], [], []
            for s, HL, kk in zip(systems, splits, keys, strict=True):
                m, rows, sd = _replicate_stage(s, W, HL, kk, start, r, n, draws, workers)
                means.append(m)
                dq.append(rows)
                seed.append(sd)
            for p, (i, j) in enumerate(pairs):
                d = dq[i] - dq[j]
                md = (W * d).sum(axis=1) / n
                s2d = (W * (d - md[:, None]) ** 2).sum(axis=1) / (n - 1)
                v = s2d / n + seed[i] + seed[j]
                num = (means[i] - means[j]) - D[p]
                scale = math.sqrt(V[p]) if V[p] > 0 else 1.0
                with np.errstate(divide="ignore", invalid="ignore"):
                    t = np.where(v > 1e-24 * scale * scale, num / np.sqrt(v),
                                 np.where(np.abs(num) <= 1e-12 * scale, 0.0,
                                          np.copysign(np.inf, num)))
                out[p, start:start + r] = t
    return out


def t_envelope(null, df, rows):
    r"""Bootstrap values of the ``rows`` widened to at least Student's t with ``df``.

    The :math:`k`-th smallest of a row's :math:`B` values :math:`t^*_{(k)}` becomes
    :math:`\max(t^*_{(k)}, q_k)` where :math:`q_k = F^{-1}_{t_{df}}(k/(B+1)) > 0`
    and :math:`\min(t^*_{(k)}, q_k)` where :math:`q_k \le 0`: each tail at least
    as far out as the t quantile of the same rank, the order of the values (and so
    their joint ranks across the pairs, which the max-T uses) unchanged. A p-value
    from the new values is at least the larger of the bootstrap's and the t test's
    (up to the Monte-Carlo error of :math:`B`).
    """
    from scipy import stats

    rows = np.asarray(rows, dtype=bool)
    if not rows.any():
        return null
    out = null.copy()
    B = null.shape[1]
    for p in np.flatnonzero(rows):
        order = np.argsort(null[p], kind="stable")
        q = stats.t.ppf(np.arange(1, B + 1) / (B + 1.0), df[p]) if np.isfinite(df[p]) else \
            stats.norm.ppf(np.arange(1, B + 1) / (B + 1.0))
        v = null[p, order]
        out[p, order] = np.where(q > 0, np.maximum(v, q), np.minimum(v, q))
    return out


def _bootstrap_pvalues(null, T, alternative):
    B = null.shape[1]
    tol = 1e-12 * np.where(np.isfinite(T), np.abs(T), 0.0)
    if alternative == "two-sided":
        cnt = (np.abs(null) >= (np.abs(T) - tol)[:, None]).sum(axis=1)
    elif alternative == "greater":
        cnt = (null >= (T - tol)[:, None]).sum(axis=1)
    else:
        cnt = (null <= (T + tol)[:, None]).sum(axis=1)
    return np.minimum((cnt + 1.0) / (B + 1.0), 1.0)


def _order_stat(sorted_rows, k):
    """The k-th smallest (1-based) of each row; +inf past the end, -inf before the start."""
    B = sorted_rows.shape[1]
    if k > B:
        return np.full(sorted_rows.shape[0], np.inf)
    if k < 1:
        return np.full(sorted_rows.shape[0], -np.inf)
    return sorted_rows[:, k - 1]


def _directed_null(null, alternative):
    """The bootstrap values oriented so that large means extreme (|t*|, t* or -t*)."""
    if alternative == "two-sided":
        return np.abs(null)
    return null if alternative == "greater" else -null


def _intervals(method, D, se, df, null, cl, alternative, simultaneous=False):
    """Bootstrap-t (symmetric when two-sided), t(df) or Wald z intervals; with
    ``simultaneous`` (bootstrap) the quantile of the maximum over the pairs."""
    from scipy import stats

    D = np.asarray(D, dtype=float)
    se = np.asarray(se, dtype=float)
    if method == "bootstrap" and simultaneous:
        B = null.shape[1]
        mx = np.sort(_directed_null(null, alternative).max(axis=0))[None, :]
        q = _order_stat(mx, math.ceil(cl * (B + 1) - 1e-9))[0]
        if alternative == "two-sided":
            return D - q * se, D + q * se
        if alternative == "greater":
            return D - q * se, np.full_like(D, np.inf)
        return np.full_like(D, -np.inf), D + q * se
    if method == "bootstrap":
        B = null.shape[1]
        if alternative == "two-sided":
            q = _order_stat(np.sort(np.abs(null), axis=1), math.ceil(cl * (B + 1) - 1e-9))
            return D - q * se, D + q * se
        srt = np.sort(null, axis=1)
        if alternative == "greater":
            q = _order_stat(srt, math.ceil(cl * (B + 1) - 1e-9))
            return D - q * se, np.full_like(D, np.inf)
        q = _order_stat(srt, math.floor((1 - cl) * (B + 1) + 1e-9))
        return np.full_like(D, -np.inf), D - q * se
    q_two = stats.norm.isf((1 - cl) / 2) if method == "mixed" else stats.t.isf((1 - cl) / 2, df)
    q_one = stats.norm.isf(1 - cl) if method == "mixed" else stats.t.isf(1 - cl, df)
    if alternative == "two-sided":
        return D - q_two * se, D + q_two * se
    if alternative == "greater":
        return D - q_one * se, np.full_like(D, np.inf)
    return np.full_like(D, -np.inf), D + q_one * se


# --------------------------------------------------------------------------
# the crossed mixed model (statsmodels)
# --------------------------------------------------------------------------
def _mixed_pair(sa, sb, n):
    """REML fit of the crossed model for one pair: (difference, variance, query, replicate)."""
    import statsmodels.api as sm

    rows = []
    for label, s in (("a", sa), ("b", sb)):
        n_, R = s.Y.shape
        rows.append(pd.DataFrame({
            "y": s.Y.T.ravel(), "is_a": float(label == "a"),
            "query": np.tile(np.arange(n_), R),
            "qs": [f"{label}{q}" for q in np.tile(np.arange(n_), R)],
            "run": np.repeat([f"{label}{r}" for r in range(R)], n_)}))
    data = pd.concat(rows, ignore_index=True)
    data["group"] = 1
    model = sm.MixedLM.from_formula(
        "y ~ is_a", groups="group", re_formula="0", data=data,
        vc_formula={"query": "0 + C(query)", "qs": "0 + C(qs)", "run": "0 + C(run)"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = model.fit(reml=True)
    vc = dict(zip(model.exog_vc.names, np.asarray(fit.vcomp, dtype=float), strict=True))
    Ra, Rb = sa.n_replicates, sb.n_replicates
    sigma2 = float(fit.scale)
    q_part = (2.0 * vc["qs"] + sigma2 * (1.0 / Ra + 1.0 / Rb)) / n
    r_part = vc["run"] * (1.0 / Ra + 1.0 / Rb)
    return float(fit.params["is_a"]), float(fit.bse["is_a"]) ** 2, q_part, r_part


# --------------------------------------------------------------------------
# the public function
# --------------------------------------------------------------------------
def replicate_tests(scores: Scores, replicates: Mapping[str, Sequence[str]], *,
                    method: Literal["bootstrap", "t", "mixed"] = "bootstrap",
                    alternative: Alternative = "two-sided",
                    correction: Correction | None = "single-step", alpha: float = 0.05,
                    confidence_level: float = 0.95, n_resamples: int = 10000,
                    replicate_draws: Literal["parametric", "resample"] = REPLICATE_DRAW,
                    measure: str | None = None, missing: Missing = "raise",
                    batch: int | None = None, workers: int = -1,
                    rng: Seed = None) -> ReplicateComparison:
    r"""Compare systems that have several runs each (seeds, folds), counting both sources.

    Parameters
    ----------
    scores : DataFrame, ScoreTable, Evaluation or path
        Per-query scores, one column per run (queries x runs).
    replicates : mapping of str -> sequence of str
        ``{system: [run, ...]}``: the columns of ``scores`` that are runs of
        each system (different seeds or folds of one model). At least two
        systems; a run belongs to one system.
    method : {"bootstrap", "t", "mixed"}, keyword-only
        Two-stage studentised bootstrap (default), the analytic variance with
        Satterthwaite's degrees of freedom, or statsmodels' crossed ``MixedLM``
        (REML, Wald z; slow). See Notes.
    alternative : {"two-sided", "greater", "less"}, keyword-only
        ``"greater"``: system ``a`` better than ``b``.
    correction : str, keyword-only
        Multiplicity correction over the pairs (:data:`mrrstats.stats.registry.CORRECTIONS`).
        ``"single-step"`` (the package default): the single-step max-T over the
        pairs' studentised bootstrap values, which share their resamples, with
        simultaneous intervals; with ``"t"`` or ``"mixed"`` (no joint null) it
        falls back to Holm, recorded in ``correction``.
    alpha, confidence_level : float, keyword-only
    n_resamples : int, keyword-only
        Bootstrap resamples (``method="bootstrap"``).
    replicate_draws : {"parametric", "resample"}, keyword-only
        The bootstrap's second stage (``method="bootstrap"``): ``"parametric"``
        (default) draws each system's replicate component as a normal with the
        run-level variance and its variance estimate as a chi-square with
        :math:`R_s - 1` degrees of freedom (a t reference on :math:`R_s - 1`
        df for the seeds); ``"resample"`` draws :math:`R_s` of the runs with
        replacement (the earlier default).
        See Notes.
    measure : str, optional, keyword-only
        Which measure of an Evaluation or mapping.
    missing : {"raise", "drop"}, keyword-only
    batch : int, optional, keyword-only
        Resamples per step (memory only; never changes a number).
    workers : int, keyword-only
        Threads drawing the resampling counts (-1: all cores); never changes a number.
    rng : None, int or numpy.random.Generator, keyword-only

    Returns
    -------
    ReplicateComparison
        ``to_frame()`` has one row per pair of systems.

    Warns
    -----
    FewReplicatesWarning
        When a system has fewer than :data:`MIN_REPLICATES` runs.

    Notes
    -----
    With :math:`\bar y_{s q\cdot}` the mean of system :math:`s` on query
    :math:`q` over its :math:`R_s` replicates, :math:`d_q = \bar y_{aq\cdot} -
    \bar y_{bq\cdot}`, the run means :math:`\bar y_{s\cdot r}`, and the
    two-way mean squares :math:`MS_{run,s} = n\,\mathrm{var}_r(\bar y_{s\cdot
    r})` (:math:`R_s - 1` df) and :math:`MS_{res,s}` (residual of the
    query x replicate layout, :math:`(n-1)(R_s-1)` df), the variance of
    :math:`\hat\delta` under the crossed model is estimated by

    .. math:: \hat V = \frac{s_d^2}{n} + \sum_{s \in \{a, b\}}
              \frac{\max(MS_{run,s} - MS_{res,s},\, 0)}{n R_s},

    unbiased for :math:`\mathrm{Var}(\hat\delta) = \sigma^2_{st}/n + \sum_s
    (\sigma^2_{u,s}/R_s + \sigma^2_{e,s}/(nR_s))` (the expected mean squares
    of the balanced crossed design; Searle, Casella & McCulloch 1992, ch. 4).
    ``share_queries`` is :math:`(s_d^2/n)/\hat V`, ``share_replicates`` the rest.

    ``"t"`` refers :math:`\hat\delta/\sqrt{\hat V}` to a t distribution with
    Satterthwaite's (1946) degrees of freedom :math:`\hat V^2/\sum_i
    c_i^2 MS_i^2/\nu_i`.

    ``"bootstrap"`` draws, for every resample, :math:`n` queries with
    replacement (the same for all systems: the pairing is kept), recomputes
    :math:`\hat\delta^*` and :math:`\hat V^*`, and refers :math:`t =
    \hat\delta/\sqrt{\hat V}` to the values :math:`t^* = (\hat\delta^* -
    \hat\delta)/\sqrt{\hat V^*}`: :math:`p = (1 + \#\{|t^*| \ge |t|\})/(B +
    1)` and the symmetric interval :math:`\hat\delta \pm t^*_{|\cdot|,(1-
    \alpha)}\sqrt{\hat V}` (two-sided). Its second stage, the replicates,
    is ``replicate_draws``:

    * ``"parametric"`` (default): with :math:`M_{sr}^*` system :math:`s`'s run
      means on the resampled queries, :math:`a_s^* = \max(\mathrm{var}_r
      M_{sr}^* - MS_{res,s}/n, 0)/R_s` is the run-level variance of its
      grand mean; the resample adds :math:`\sqrt{a_s^*} z_s` to the grand
      mean and :math:`a_s^* c_s` to :math:`\hat V^*`, with :math:`z_s \sim
      N(0, 1)` and :math:`c_s \sim \chi^2_{R_s - 1}/(R_s - 1)` independent
      (per system, shared by its pairs). That is the law of a mean of
      :math:`R_s` normal run effects and of its variance estimate: when the
      seeds dominate, :math:`t^*` is Student's t with :math:`R_s - 1`
      degrees of freedom exactly (whatever the runs' pattern; heavier tails,
      a conservative reference, when the two systems' seed variances
      differ), the small-sample reference the replicate component needs;
      the query part is still resampled, and the pairs share the draws, so
      the max-T over pairs keeps their dependence.
    * ``"resample"`` (the default before): :math:`R_s` of the runs drawn
      with replacement, the "pigeonhole" bootstrap of a crossed design (Owen
      2007; McCullagh 2000). With few runs its law is coarse (10 distinct
      draws of 3 runs, one in nine with no spread at all) and its run-level
      variance is :math:`(R-1)/R` of the data's, which studentising (Hall 1992)
      corrects only to first order.

    With fewer than 4 runs on a side of a pair (:data:`T_ENVELOPE_BELOW`),
    a normal reference for the seeds is not enough: RR's seed effects are
    skewed (a seed moves ranks by a factor), and with 3 runs both second
    stages rejected a true null about 0.06 of the time where seeds dominate
    (1,700 experiments: 0.065 parametric, 0.059 resampled), while ``"t"``,
    whose Satterthwaite degrees of freedom are then small, stayed at 0.036.
    Such a pair's bootstrap values are widened to at least the
    :math:`t_{\nu}` quantile of the same rank, :math:`\nu` the
    Satterthwaite degrees of freedom (:func:`t_envelope`): its p-value is at
    least the larger of the bootstrap's and the t test's, its interval at
    least as wide as both, and the joint ranks of the pairs' values, which
    the max-T uses, are kept.

    ``benchmarks/bench_replicates.py`` measures the level on TREC-7 runs
    with simulated seed effects (``benchmarks/results_replicates.md``; 20
    true-null settings of 3-10 seeds, 50 or 250 topics, 300 experiments
    each (150 with 250 topics), Monte-Carlo SE 0.013, the same experiments
    for every method): when seeds shift whole runs, averaging the replicates
    rejects a true null 8-81 % of the time at :math:`\alpha = 0.05`, and
    treating the :math:`nR` cells as queries 18-79 % (also without seed
    shifts, once the systems differ topic by topic); ``"bootstrap"`` stays
    within 0.013-0.073 (mean 0.045; every setting within the 99 %
    Monte-Carlo band; 0.013-0.057 with 3 runs), ``"t"`` within 0.020-0.070
    (mean 0.043), and the earlier default (runs resampled, no envelope)
    within 0.027-0.083 (mean 0.051). Power (B's seeds rank the first
    relevant document 1.35 times further down): with 3 runs that of ``"t"``
    (0.29 and 0.13 at seed sd 0.15 and 0.3), the price of the envelope;
    with 5 and 10 runs 0.29-0.94, at least the earlier default's and above
    ``"t"``'s.

    Query and seed draws come from counter-based streams keyed by ``rng``
    (queries: sub-stream 0; system :math:`i`: sub-stream :math:`i+1`), so the
    numbers do not depend on ``batch`` or ``workers``.

    References
    ----------
    A. B. Owen, "The pigeonhole bootstrap", Annals of Applied Statistics 1(2), 2007.
    P. McCullagh, "Resampling and exchangeable arrays", Bernoulli 6(2), 2000.
    P. Hall, The Bootstrap and Edgeworth Expansion, Springer, 1992.
    F. E. Satterthwaite, "An approximate distribution of estimates of variance
    components", Biometrics Bulletin 2(6), 1946.
    X. Bouthillier et al., "Accounting for variance in machine learning
    benchmarks", MLSys 2021.

    Examples
    --------
    >>> import numpy as np, pandas as pd, mrrstats
    >>> rng = np.random.default_rng(0)
    >>> base = rng.random(40)
    >>> runs = {f"a{r}": np.clip(base + 0.05 + rng.normal(0, .05) + rng.normal(0, .1, 40), 0, 1)
    ...         for r in range(4)}
    >>> runs |= {f"b{r}": np.clip(base + rng.normal(0, .05) + rng.normal(0, .1, 40), 0, 1)
    ...          for r in range(4)}
    >>> res = mrrstats.replicate_tests(pd.DataFrame(runs),
    ...                                {"A": ["a0", "a1", "a2", "a3"],
    ...                                 "B": ["b0", "b1", "b2", "b3"]}, method="t")
    >>> row = res.to_frame().iloc[0]
    >>> row["a"], row["b"], bool(row["difference"] > 0)
    ('A', 'B', True)
    >>> bool(abs(row["share_queries"] + row["share_replicates"] - 1) < 1e-12)
    True
    """
    (table, names, cols, method, alternative, corr, alpha, cl, B, batch, workers, gen,
     seed) = _replicate_tests_iv(scores, replicates, method, alternative, correction, alpha,
                                 confidence_level, n_resamples, measure, missing, batch,
                                 workers, rng)
    if not isinstance(replicate_draws, str) or replicate_draws not in REPLICATE_DRAWS:
        raise ParameterError(f"`replicate_draws` must be one of {REPLICATE_DRAWS}, got "
                             f"{replicate_draws!r}", name="replicate_draws")
    n = table.n_queries
    systems = [_system(table.values[:, idx]) for idx in cols]
    few = [(s, len(c)) for s, c in zip(names, cols, strict=True) if len(c) < MIN_REPLICATES]
    if few:
        listed = ", ".join(f"{s!r} ({r})" for s, r in few)
        warnings.warn(f"too few replicates: {listed}; with fewer than {MIN_REPLICATES} runs "
                      "a system's seed variance rests on at most one degree of freedom (with "
                      "one run it is taken as 0), so the test says little about seeds",
                      FewReplicatesWarning, stacklevel=2)
    pairs = [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))]
    P = len(pairs)
    D, V, df, qv, rv = (np.empty(P) for _ in range(5))
    for p, (i, j) in enumerate(pairs):
        if method == "mixed":
            D[p], V[p], qv[p], rv[p] = _mixed_pair(systems[i], systems[j], n)
            df[p] = math.nan
        else:
            D[p], V[p], df[p], qv[p], rv[p] = _analytic(systems[i], systems[j], n)
    se = np.sqrt(V)
    with np.errstate(divide="ignore", invalid="ignore"):
        T = np.where(se > 0, D / np.where(se > 0, se, 1.0),
                     np.where(D == 0, 0.0, np.copysign(np.inf, D)))
    null = None
    if method == "bootstrap":
        null = _two_stage_null(systems, pairs, D, V, B, batch, as_key(gen), workers,
                               replicate_draws)
        few_runs = np.array([min(systems[i].n_replicates, systems[j].n_replicates)
                             < T_ENVELOPE_BELOW for i, j in pairs])
        null = t_envelope(null, df, few_runs)
        pvalue = _bootstrap_pvalues(null, T, alternative)
    else:
        pvalue = _parametric_pvalues(T, df, method, alternative)
    if corr == "single-step" and method != "bootstrap":
        corr = "holm"  # the joint null of the statistics is the bootstrap's only
    simultaneous = corr == "single-step"
    lo, hi = _intervals(method, D, se, df, null, cl, alternative, simultaneous=simultaneous)
    if simultaneous:
        p_adj = _maxt_adjusted(null, T, alternative)
    else:
        p_adj = _adjust(pvalue, corr, alpha)
    tot = qv + rv
    with np.errstate(divide="ignore", invalid="ignore"):
        share_q = np.where(tot > 0, qv / np.where(tot > 0, tot, 1.0), 1.0)
    return ReplicateComparison(
        systems=tuple(names), replicates={s: tuple(table.systems[k] for k in c)
                                          for s, c in zip(names, cols, strict=True)},
        a=tuple(names[i] for i, _ in pairs), b=tuple(names[j] for _, j in pairs),
        mean_a=np.array([systems[i].Y.mean() for i, _ in pairs]),
        mean_b=np.array([systems[j].Y.mean() for _, j in pairs]),
        difference=D, standard_error=se, df=df if method == "t" else np.full(P, math.nan),
        statistic=T, pvalue=pvalue, pvalue_adjusted=p_adj, reject=p_adj <= alpha,
        ci_low=lo, ci_high=hi, share_queries=share_q, share_replicates=1.0 - share_q,
        n_replicates_a=np.array([systems[i].n_replicates for i, _ in pairs]),
        n_replicates_b=np.array([systems[j].n_replicates for _, j in pairs]),
        components=_components_frame(names, systems, n), method=method, correction=corr,
        ci_method="maxt-single-step" if simultaneous else "marginal",
        alternative=alternative, alpha=alpha, confidence_level=cl,
        n_resamples=B if method == "bootstrap" else None,
        seed=seed if method == "bootstrap" else None, n_queries=n, measure=table.measure,
        null_distribution=null,
        replicate_draws=replicate_draws if method == "bootstrap" else None,
        run_means={s: sy.col_mean.copy() for s, sy in zip(names, systems, strict=True)})


def _maxt_adjusted(null, T, alternative):
    """Single-step max-T adjusted p-values (Westfall & Young 1993) over the pairs:
    ``(1 + #{max_pairs t*_b >= t_p}) / (B + 1)`` on the shared bootstrap resamples."""
    B = null.shape[1]
    mx = _directed_null(null, alternative).max(axis=0)
    obs = _directed_null(np.asarray(T, dtype=float)[:, None], alternative)[:, 0]
    tol = 1e-12 * np.where(np.isfinite(obs), np.abs(obs), 0.0)
    cnt = (mx[None, :] >= (obs - tol)[:, None]).sum(axis=1)
    return np.minimum((cnt + 1.0) / (B + 1.0), 1.0)


def _parametric_pvalues(T, df, method, alternative):
    from scipy import stats

    dist = stats.norm() if method == "mixed" else stats.t(df)
    if alternative == "two-sided":
        return np.minimum(2.0 * dist.sf(np.abs(T)), 1.0)
    return dist.sf(T) if alternative == "greater" else dist.cdf(T)


def _adjust(pvalue, correction, alpha):
    if correction == "none" or pvalue.size == 1:
        return pvalue.copy()
    return adjust_pvalues(pvalue, correction, alpha)[0]


def _components_frame(names, systems, n):
    rows = []
    for name, s in zip(names, systems, strict=True):
        R = s.n_replicates
        rows.append({"system": name, "n_replicates": R,
                     "seed_variance": s.seed_term() * R if R >= 2 else math.nan,
                     "residual_variance": s.ms_res if R >= 2 else math.nan,
                     "std_between_runs": float(s.col_mean.std(ddof=1)) if R >= 2 else math.nan})
    return pd.DataFrame(rows).set_index("system")


def replicate_frame(table_or_frame, replicates):
    """Long frame of a replicated score table: ``system``, ``replicate``, ``query``, ``score``.

    For plots and exports (one row per system, run and query).
    """
    table = as_score_table(table_or_frame)
    rows = []
    for system, runs in replicates.items():
        for run in runs:
            rows.append(pd.DataFrame({"system": system, "replicate": run,
                                      "query": list(table.queries),
                                      "score": table.column(run)}))
    return pd.concat(rows, ignore_index=True)


def _replicate_tests_iv(scores, replicates, method, alternative, correction, alpha,
                        confidence_level, n_resamples, measure, missing, batch, workers, rng):
    table = as_score_table(scores, measure=measure, missing=missing, min_queries=3)
    if not isinstance(replicates, Mapping):
        raise ParameterTypeError("`replicates` must be a mapping {system: [run, ...]}, got "
                        f"{type(replicates).__name__}")
    if len(replicates) < 2:
        raise ParameterError(f"`replicates` needs at least 2 systems, got {len(replicates)}")
    names, cols, seen = [], [], {}
    for system, runs in replicates.items():
        if not isinstance(system, str) or not system:
            raise ParameterTypeError(
                f"`replicates` keys must be non-empty system names, got {system!r}")
        if isinstance(runs, str) or not hasattr(runs, "__iter__"):
            raise ParameterTypeError(f"`replicates[{system!r}]` must be a list of run names, got "
                            f"{runs!r}")
        runs = [str(r) for r in runs]
        if not runs:
            raise ParameterError(f"`replicates[{system!r}]` is empty")
        idx = []
        for r in runs:
            if r not in table.systems:
                raise ParameterError(f"`replicates[{system!r}]` names run {r!r}, which is not a "
                                 f"column of `scores` (have {list(table.systems)[:10]}...)")
            if r in seen:
                raise ParameterError(f"run {r!r} is listed under both {seen[r]!r} and "
                                 f"{system!r} in `replicates`")
            seen[r] = system
            idx.append(table.systems.index(r))
        names.append(system)
        cols.append(idx)
    if not isinstance(method, str | None) or method not in REPLICATE_METHODS:
        raise ParameterError(f"`method` must be one of {REPLICATE_METHODS}, got {method!r}")
    alternative_iv(alternative)
    corr = correction_spec(correction).name
    if corr == "single-step-skew":
        raise ParameterError("correction='single-step-skew' is for pairwise_tests/compare; "
                             "replicate_tests takes 'single-step', 'holm', 'bonferroni', "
                             "'bh' or 'none'")
    alpha = alpha_iv(alpha)
    cl = confidence_level_iv(confidence_level)
    B = n_resamples_iv(n_resamples)
    batch = int_iv(batch, "batch", allow_none=True)
    workers = workers_iv(workers)
    if isinstance(rng, numbers.Real) and not isinstance(rng, numbers.Integral):
        raise ParameterTypeError(
            f"`rng` must be None, an integer seed or a Generator, got {rng!r}")
    gen, seed = rng_iv(rng)
    return (table, names, cols, method, alternative, corr, alpha, cl, B, batch, workers, gen,
            seed)


def simulate_replicates(scores: Scores, *, n_replicates: int = 5, seed_std: float = 0.2,
                        query_std: float = 0.5, measure: str | None = None,
                        rng: Seed = None) -> pd.DataFrame:
    r"""Replicate runs (seeds) of each system, simulated around its per-query scores.

    For examples, teaching and planning: how would the comparison look if each
    system had been trained with ``n_replicates`` seeds?

    Parameters
    ----------
    scores : DataFrame, ScoreTable, Evaluation or path
        Per-query scores (queries x systems): each system's expected score per query.
    n_replicates : int, keyword-only
    seed_std : float, keyword-only
        Standard deviation of a seed's effect on the whole run (log-rank scale for RR,
        logit scale otherwise).
    query_std : float, keyword-only
        Standard deviation of the seed-by-query noise, on the same scale.
    measure : str, optional, keyword-only
    rng : None, int or numpy.random.Generator, keyword-only

    Returns
    -------
    DataFrame
        One column per system and replicate (``"<system>#<r>"``), the queries of
        ``scores``; ``attrs["replicates"]`` is the ``{system: [run, ...]}``
        mapping for :func:`replicate_tests`, ``attrs["seed"]`` the seed.

    Notes
    -----
    RR (values 0 or :math:`1/k`): replicate :math:`r` puts the first relevant
    document of query :math:`q` at :math:`\max(1, \mathrm{round}(k_q
    e^{u_r + e_{qr}}))` with :math:`u_r \sim N(0, \text{seed\_std}^2)`,
    :math:`e_{qr} \sim N(0, \text{query\_std}^2)` (RR 0 past rank 1000 or
    when the system found nothing). Other measures in [0, 1]:
    :math:`\text{logit}^{-1}(\text{logit}(y_q) + u_r + e_{qr})`, with
    :math:`y_q` clipped to [0.001, 0.999] first.

    Examples
    --------
    >>> import mrrstats
    >>> rr = mrrstats.datasets.trec7_scores("RR")[["run1", "run2"]]
    >>> sim = mrrstats.simulate_replicates(rr, n_replicates=3, rng=0)
    >>> sim.attrs["replicates"]["run1"], sim.shape
    (['run1#1', 'run1#2', 'run1#3'], (50, 6))
    """
    table = as_score_table(scores, measure=measure, min_queries=1)
    R = int_iv(n_replicates, "n_replicates")
    resource_iv(8 * 4 * R * table.values.size, "n_replicates",
                what=f"{R:,} replicates of {table.n_systems} systems")
    sds = []
    for name, v in (("seed_std", seed_std), ("query_std", query_std)):
        sds.append(float_iv(v, name, low=0.0))
    if isinstance(rng, numbers.Real) and not isinstance(rng, numbers.Integral):
        raise ParameterTypeError(
            f"`rng` must be None, an integer seed or a Generator, got {rng!r}")
    gen, seed = rng_iv(rng)
    X = table.values
    pos = X[X > 0]
    rr_like = bool(pos.size) and (X >= 0).all() and (X <= 1).all() and \
        np.allclose(1 / pos, np.rint(1 / pos), rtol=1e-3, atol=1e-3)
    cols, rep = {}, {}
    for j, system in enumerate(table.systems):
        x = X[:, j]
        u = gen.normal(0.0, sds[0], size=R)
        e = gen.normal(0.0, sds[1], size=(x.size, R))
        if rr_like:
            k = np.where(x > 0, 1.0 / np.maximum(x, 1e-12), np.inf)
            kr = np.maximum(1.0, np.rint(k[:, None] * np.exp(u[None, :] + e)))
            Y = np.where(np.isfinite(kr) & (kr <= 1000), 1.0 / kr, 0.0)
        else:
            z = np.clip(x, 1e-3, 1 - 1e-3)
            Y = 1.0 / (1.0 + np.exp(-(np.log(z / (1 - z))[:, None] + u[None, :] + e)))
        rep[system] = [f"{system}#{r + 1}" for r in range(R)]
        for r in range(R):
            cols[rep[system][r]] = Y[:, r]
    frame = pd.DataFrame(cols, index=pd.Index(list(table.queries), name="query"))
    frame.attrs.update(measure=table.measure, replicates=rep, seed=seed)
    return frame
