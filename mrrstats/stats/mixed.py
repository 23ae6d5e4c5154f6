r"""A linear mixed model for a score table: fixed system effects, random query effects.

:func:`mixed_model` fits

.. math:: y_{qs} = \mu_s + u_q + \varepsilon_{qs}, \qquad
          u_q \sim N(0, \sigma_u^2), \quad \varepsilon_{qs} \sim N(0, \sigma^2)

with statsmodels' ``MixedLM`` (REML), the model-based counterpart of the
two-way ANOVA without replication used by :func:`mrrstats.anova_tukey_hsd`
and :func:`mrrstats.residual_variance`. Unlike the ANOVA, it accepts
unbalanced tables (a system missing some queries) without dropping queries.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import stats

from ..errors import ParameterError
from ..model.scoretable import as_score_table
from ..options import MIXED_DF_METHODS
from ..validation import confidence_level_iv
from .effects import residual_variance
from .intervals import ConfidenceInterval, level_iv
from .methods import MethodsText, methods_text
from .multiple import anova_tukey_hsd

if TYPE_CHECKING:
    from typing import Literal

    from .._typing import Scores

__all__ = ["MixedModelResult", "mixed_model", "mixed_vs_anova", "MIXED_DF_METHODS"]



def _satterthwaite_parts(groups, X, y, beta, su2, s2):
    """C = cov(beta), the derivatives of C in (sigma_u^2, sigma^2), and A = cov(theta).

    For y_q = X_q beta + u_q 1 + e_q with V_q = s2 I + su2 1 1' (one block per
    query), by block sums of p x p matrices. A is the inverse of the observed
    REML information -d^2 l_R / d theta^2 (what lmerTest's numerical Hessian of
    the REML deviance estimates), dC/dtheta_j = C X'W V_j W X C.
    """
    p = X.shape[1]
    H = np.zeros((p, p))
    M = [np.zeros((p, p)), np.zeros((p, p))]
    MM = [[np.zeros((p, p)) for _ in range(2)] for _ in range(2)]
    trWW = np.zeros((2, 2))
    blocks = []
    e = y - X @ beta
    for idx in groups:
        Xq, eq = X[idx], e[idx]
        nq = len(idx)
        one = np.ones((nq, 1))
        W = (np.eye(nq) - su2 / (s2 + nq * su2) * (one @ one.T)) / s2
        V = [one @ one.T, np.eye(nq)]
        WX = W @ Xq
        H += Xq.T @ WX
        WV = [W @ Vj for Vj in V]
        for j in range(2):
            M[j] += WX.T @ V[j] @ WX
            for m in range(2):
                MM[j][m] += WX.T @ V[j] @ W @ V[m] @ WX
                trWW[j, m] += np.trace(WV[j] @ WV[m])
        blocks.append((Xq, W, V, WX, W @ eq))
    C = np.linalg.inv(H)
    info = np.zeros((2, 2))
    for j in range(2):
        for m in range(2):
            tr = (trWW[j, m] - np.trace(C @ MM[m][j]) - np.trace(C @ MM[j][m])
                  + np.trace(C @ M[j] @ C @ M[m]))
            # y'P V_j P V_m P y with P y = r = W e (e: GLS residuals)
            quad = 0.0
            a = np.zeros(p)
            b = np.zeros(p)
            for _xq, W, V, WX, r in blocks:
                quad += float(r @ V[j] @ W @ V[m] @ r)
                a += WX.T @ (V[j] @ r)
                b += WX.T @ (V[m] @ r)
            quad -= float(a @ C @ b)
            info[j, m] = -0.5 * tr + quad
    A = np.linalg.pinv(info)  # pinv: a variance at the boundary 0 leaves it singular
    dC = [C @ M[j] @ C for j in range(2)]
    return C, dC, A


def _satterthwaite_df(L, C, dC, A):
    """Satterthwaite's df of L'beta: 2 (L'CL)^2 / (g' A g), g_j = L' dC_j L."""
    v = float(L @ C @ L)
    g = np.array([float(L @ d @ L) for d in dC])
    den = float(g @ A @ g)
    return 2 * v * v / den if den > 0 else math.inf


@dataclass(frozen=True)
class MixedModelResult:
    """Result of :func:`mixed_model`.

    Attributes
    ----------
    effects : DataFrame
        One row per system (index ``system``): ``estimate`` (the system's model
        mean :math:`\\hat\\mu_s`), ``standard_error``, ``ci_low``, ``ci_high``
        (Wald intervals at ``confidence_level``; t intervals with ``df``, a
        column then added, under ``df_method="satterthwaite"``).
    query_variance : float
        :math:`\\hat\\sigma_u^2`, the variance of the random query effects.
    residual_variance : float
        :math:`\\hat\\sigma^2` (equals the ANOVA :math:`V_E` on balanced data
        when :math:`\\hat\\sigma_u^2 > 0`).
    confidence_level : float
    n_queries, n_observations : int
    converged : bool
    measure : str
    df_method : {"wald", "satterthwaite"}

    Methods
    -------
    confidence_interval(confidence_level=None)
        The Wald intervals of the system effects (arrays, one bound per system).
    differences(confidence_level=None)
        Every pairwise difference with its Wald interval and z test.
    to_frame()
        The system effects table.
    """

    effects: pd.DataFrame
    query_variance: float
    residual_variance: float
    confidence_level: float
    n_queries: int
    n_observations: int
    converged: bool
    measure: str
    _cov: np.ndarray = field(repr=False, default=None)  # type: ignore[arg-type]
    df_method: str = "wald"
    _satterthwaite: tuple = field(repr=False, default=())

    def _df(self, L: np.ndarray) -> float:
        if self.df_method != "satterthwaite":
            return math.inf
        return _satterthwaite_df(L, *self._satterthwaite)

    def methods(self) -> MethodsText:
        """The methods paragraph and its references (:mod:`mrrstats.stats.methods`)."""
        return methods_text(self)

    def to_frame(self) -> pd.DataFrame:
        """The system effects table (a copy)."""
        return self.effects.copy()

    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """Wald intervals :math:`\\hat\\mu_s \\pm z\\, \\widehat{se}_s` of the system effects.

        Returns
        -------
        ConfidenceInterval
            ``low`` and ``high`` are arrays in the order of ``effects.index``.
        """
        cl = level_iv(confidence_level, self.confidence_level)
        est = self.effects["estimate"].to_numpy()
        se = self.effects["standard_error"].to_numpy()
        if self.df_method == "satterthwaite":
            z = stats.t.isf((1 - cl) / 2, self.effects["df"].to_numpy())
            return ConfidenceInterval(est - z * se, est + z * se, cl, "satterthwaite")
        z = stats.norm.isf((1 - cl) / 2)
        return ConfidenceInterval(est - z * se, est + z * se, cl, "wald")

    def differences(self, confidence_level: float | None = None) -> pd.DataFrame:
        """All pairwise differences :math:`\\hat\\mu_i - \\hat\\mu_j` with Wald intervals.

        Returns
        -------
        DataFrame
            Columns ``a``, ``b``, ``difference``, ``standard_error``,
            ``ci_low``, ``ci_high``, ``pvalue`` (two-sided Wald z test; not
            corrected for multiplicity). Under ``df_method="satterthwaite"``
            a ``df`` column, and t intervals and tests with those df
            (lmerTest's ``contest1D``).
        """
        cl = level_iv(confidence_level, self.confidence_level)
        names = list(self.effects.index)
        est = self.effects["estimate"].to_numpy()
        k = len(names)
        rows = []
        for i in range(k):
            for j in range(i + 1, k):
                diff = est[i] - est[j]
                se = math.sqrt(max(self._cov[i, i] + self._cov[j, j] - 2 * self._cov[i, j], 0))
                L = np.zeros(k)
                L[i], L[j] = 1.0, -1.0
                df = self._df(L)
                dist = stats.norm if math.isinf(df) else stats.t(df)
                z = float(dist.isf((1 - cl) / 2))
                p = 2 * float(dist.sf(abs(diff) / se)) if se > 0 else math.nan
                rows.append((names[i], names[j], diff, se, diff - z * se, diff + z * se, p, df))
        out = pd.DataFrame(rows, columns=["a", "b", "difference", "standard_error", "ci_low",
                                          "ci_high", "pvalue", "df"])
        return out if self.df_method == "satterthwaite" else out.drop(columns="df")


def mixed_model(scores: Scores, *, measure: str | None = None, confidence_level: float = 0.95,
                missing: Literal["drop", "raise", "keep"] = "drop",
                df_method: Literal["wald", "satterthwaite"] = "wald") -> MixedModelResult:
    r"""Linear mixed model with random query effects: system effects with intervals.

    Parameters
    ----------
    scores : score table input
        Anything :func:`mrrstats.model.scoretable.as_score_table` accepts
        (queries x systems).
    measure : str, optional, keyword-only
        Which measure, for a mapping or an Evaluation.
    confidence_level : float, keyword-only
    missing : {"drop", "raise", "keep"}, keyword-only
        ``"keep"`` fits the model on every observed cell (the mixed model
        needs no balance); ``"drop"`` (default) and ``"raise"`` as in the
        score table.
    df_method : {"wald", "satterthwaite"}, keyword-only
        ``"wald"`` (the default): normal intervals and tests;
        ``"satterthwaite"``: t intervals and tests with Satterthwaite's
        degrees of freedom (R's lmerTest, ``ddf="Satterthwaite"``; see Notes).

    Returns
    -------
    MixedModelResult

    Notes
    -----
    Fit by REML (statsmodels ``MixedLM.from_formula("score ~ 0 + C(system)",
    groups=query)``); intervals are Wald intervals
    :math:`\hat\mu \pm z_{1-\alpha/2} \widehat{se}`.

    **Satterthwaite's degrees of freedom** (``df_method="satterthwaite"``;
    Satterthwaite 1946, Kuznetsova, Brockhoff & Christensen 2017): for a
    contrast :math:`\ell'\hat\mu` with variance :math:`f(\theta) =
    \ell' C(\theta) \ell`, :math:`\theta = (\sigma_u^2, \sigma^2)`,
    :math:`\nu = 2 f(\hat\theta)^2 / (\nabla f' A \nabla f)`, with
    :math:`A` the inverse of the observed REML information of
    :math:`\theta` (computed in closed form by blocks of queries;
    lmerTest takes a numerical Hessian). The standard errors are then
    lmerTest's too, from :math:`C = (X'V^{-1}X)^{-1}` (statsmodels' Wald
    ones invert the joint Hessian of :math:`\mu` and :math:`\theta`, which
    differs slightly on unbalanced tables). On a balanced table the df of a
    difference is :math:`(n-1)(k-1)`, the ANOVA's. Agreement with lmerTest
    is limited by how precisely statsmodels' optimiser finds the REML
    estimates (about 1e-6 relative; tests/stats/r_reference/mixed_satterthwaite.R).

    **When it agrees with the two-way ANOVA.** On a complete (balanced) table
    with :math:`\hat\sigma_u^2 > 0`, the REML estimates equal the ANOVA
    estimates: :math:`\hat\mu_s` is the system mean, :math:`\hat\sigma^2 =
    V_E` (the residual mean square, :func:`mrrstats.residual_variance`) and
    the standard error of a difference is :math:`\sqrt{2 V_E / n}`, exactly
    that of Tukey's HSD. The intervals still differ: the mixed model uses the
    normal quantile, the ANOVA the t quantile with :math:`(n-1)(k-1)`
    degrees of freedom (nearly equal for 50+ queries). They disagree when
    the REML estimate of :math:`\sigma_u^2` is at the boundary 0 (queries
    that do not differ in difficulty; then :math:`\hat\sigma^2` pools the
    query variation) and on unbalanced tables, where the mixed model uses
    the partial queries and the ANOVA cannot.

    References
    ----------
    .. [1] Carterette, B. (2015). Bayesian inference for information
           retrieval evaluation. ICTIR. (mixed models for IR evaluation)
    .. [2] Seabold, S. and Perktold, J. (2010). statsmodels. ``MixedLM``.

    Examples
    --------
    >>> import numpy as np, mrrstats
    >>> rng = np.random.default_rng(0)
    >>> q = rng.normal(0, 1, (30, 1))
    >>> table = q + np.array([0.0, 0.3, 0.5]) + rng.normal(0, 0.5, (30, 3))
    >>> res = mrrstats.mixed_model(table.T)
    >>> print(res.effects.shape, round(res.residual_variance, 3))
    (3, 4) 0.221
    """
    cl = confidence_level_iv(confidence_level)
    if not isinstance(df_method, str) or df_method not in MIXED_DF_METHODS:
        raise ParameterError(f"`df_method` must be one of {MIXED_DF_METHODS}, got {df_method!r}")
    if not isinstance(missing, str) or missing not in ("drop", "raise", "keep"):
        raise ParameterError(f"`missing` must be 'drop', 'raise' or 'keep', got {missing!r}")
    if missing == "keep":
        table = as_score_table(scores, measure=measure, missing="drop", min_systems=2,
                               name="scores")
        frame = _frame_keep(scores, measure, table)
    else:
        table = as_score_table(scores, measure=measure, missing=missing, min_systems=2,
                               min_queries=2, name="scores")
        frame = table.to_frame()
    long = frame.reset_index().melt(id_vars="query", var_name="system", value_name="score")
    long = long.dropna(subset=["score"])
    systems = list(frame.columns)
    long["system"] = pd.Categorical(long["system"], categories=systems)
    from statsmodels.regression.mixed_linear_model import MixedLM

    model = MixedLM.from_formula("score ~ 0 + C(system)", groups="query", data=long)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # boundary / convergence warnings: reported below
        fit = model.fit(reml=True)
    k = len(systems)
    est = np.asarray(fit.fe_params)[:k]
    cov = np.asarray(fit.cov_params())[:k, :k]
    se = np.sqrt(np.diag(cov))
    su2, s2 = float(np.asarray(fit.cov_re)[0, 0]), float(fit.scale)
    parts: tuple = ()
    if df_method == "satterthwaite":
        codes = pd.factorize(long["query"])[0]
        order = np.argsort(codes, kind="stable")
        groups = np.split(order, np.flatnonzero(np.diff(codes[order])) + 1)
        parts = _satterthwaite_parts(groups, np.asarray(model.exog, dtype=float),
                                     np.asarray(model.endog, dtype=float),
                                     np.asarray(fit.fe_params, dtype=float), su2, s2)
        # lmerTest's cov(beta) = (X'V^-1 X)^-1; statsmodels' cov_params inverts the joint
        # Hessian of beta and theta, which differs on unbalanced tables
        cov = parts[0]
        se = np.sqrt(np.diag(cov))
        df = np.array([_satterthwaite_df(L, *parts) for L in np.eye(k)])
        z = stats.t.isf((1 - cl) / 2, df)
    else:
        z = stats.norm.isf((1 - cl) / 2)
    effects = pd.DataFrame({"estimate": est, "standard_error": se, "ci_low": est - z * se,
                            "ci_high": est + z * se}, index=pd.Index(systems, name="system"))
    if df_method == "satterthwaite":
        effects["df"] = df
    return MixedModelResult(effects, su2, s2, cl, int(long["query"].nunique()), int(len(long)),
                            bool(fit.converged), table.measure, cov, df_method, parts)


def mixed_vs_anova(scores: Scores, *, measure: str | None = None, confidence_level: float = 0.95,
                   missing: Literal["drop", "raise"] = "raise") -> pd.DataFrame:
    r"""Every pairwise difference by the mixed model and by the two-way ANOVA, side by side.

    Parameters
    ----------
    scores : score table input
        Queries x systems, as :func:`mixed_model` takes it. The ANOVA needs a
        complete table: a query missing for some system raises (``missing=
        "raise"``, the default) or is dropped (``"drop"``) from both fits.
    measure : str, optional, keyword-only
    confidence_level : float, keyword-only
    missing : {"drop", "raise"}, keyword-only

    Returns
    -------
    DataFrame
        One row per pair (``a``, ``b`` in system order): ``difference``
        (:math:`\hat\mu_a - \hat\mu_b` of the mixed model), ``se_mixed``,
        ``low_mixed``, ``high_mixed``, ``pvalue_mixed`` (Wald z, from
        :meth:`MixedModelResult.differences`), ``difference_anova`` (the
        difference of the system means), ``se_anova`` :math:`=\sqrt{2 V_E /
        n}`, ``low_anova``, ``high_anova`` (the t interval with
        :math:`(n-1)(k-1)` degrees of freedom, not adjusted), ``pvalue_anova``
        (its t test) and ``pvalue_tukey`` (Tukey's HSD,
        :func:`mrrstats.anova_tukey_hsd`). ``attrs`` hold ``measure``,
        ``query_variance``, ``residual_variance`` (the model's), ``anova_residual_variance``
        (:math:`V_E`, :func:`mrrstats.residual_variance`), ``df_anova``,
        ``n_queries``, ``converged`` and ``confidence_level``.

    Notes
    -----
    See :func:`mixed_model` for when the two agree: on a complete table with
    :math:`\hat\sigma_u^2 > 0` the differences and their standard errors
    are equal (up to the REML optimiser's tolerance) and only the quantile
    differs (normal against t).

    Examples
    --------
    >>> import numpy as np, mrrstats
    >>> rng = np.random.default_rng(0)
    >>> table = rng.normal(0, 1, (30, 1)) + [0.0, 0.3, 0.5] + rng.normal(0, 0.5, (30, 3))
    >>> f = mrrstats.mixed_vs_anova(table.T)
    >>> print(np.allclose(f["se_mixed"], f["se_anova"], rtol=1e-3))
    True
    """
    if not isinstance(missing, str) or missing not in ("drop", "raise"):
        raise ParameterError(f"`missing` must be 'drop' or 'raise', got {missing!r}")
    cl = confidence_level_iv(confidence_level)
    table = as_score_table(scores, measure=measure, missing=missing, min_systems=2,
                           min_queries=2, name="scores")
    frame = table.to_frame()
    mm = mixed_model(frame, confidence_level=cl, missing="raise")
    diffs = mm.differences()
    hsd = anova_tukey_hsd(frame, confidence_level=cl).to_frame()
    v_e = residual_variance(frame)
    n, k = frame.shape
    df = (n - 1) * (k - 1)
    se_anova = math.sqrt(2.0 * v_e / n)
    q = stats.t.isf((1 - cl) / 2, df)
    hsd = hsd.set_index(["a", "b"])
    means = frame.mean()
    rows = []
    for r in diffs.itertuples(index=False):
        h = hsd.loc[(r.a, r.b)]  # type: ignore[index]
        d_anova = float(means[r.a] - means[r.b])  # type: ignore[index]
        rows.append({"a": r.a, "b": r.b, "difference": r.difference,
                     "se_mixed": r.standard_error, "low_mixed": r.ci_low, "high_mixed": r.ci_high,
                     "pvalue_mixed": r.pvalue, "difference_anova": d_anova,
                     "se_anova": se_anova, "low_anova": d_anova - q * se_anova,
                     "high_anova": d_anova + q * se_anova,
                     "pvalue_anova": float(h["pvalue"]),
                     "pvalue_tukey": float(h["pvalue_adjusted"])})
    out = pd.DataFrame(rows)
    out.attrs.update(measure=table.measure, query_variance=mm.query_variance,
                     residual_variance=mm.residual_variance, anova_residual_variance=v_e,
                     df_anova=df, n_queries=n, converged=mm.converged, confidence_level=cl)
    return out


def _frame_keep(scores, measure, table):
    """The full frame with its NaN cells (for ``missing="keep"``)."""
    if isinstance(scores, pd.DataFrame):
        frame = scores.copy()
        frame.index.name = "query"
        return frame
    raise ParameterError("`missing='keep'` needs a DataFrame (queries x systems) with NaN cells")
