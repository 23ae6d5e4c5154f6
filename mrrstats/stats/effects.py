r"""Effect sizes of a paired difference: :math:`d_z`, Sakai's :math:`ES_E`, wins and ties.

* :func:`effect_sizes` -- the mean difference, :math:`d_z`, :math:`ES_E`,
  wins/ties/losses and the paired probability of superiority.
* :func:`residual_variance` -- :math:`V_E` of the two-way ANOVA over all
  systems of an experiment (the scale of :math:`ES_E` and of topic-set-size
  design).
* :func:`blocked_anova` -- that ANOVA's table: the omnibus F test of "all
  systems have the same mean" (and of the queries).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pandas as pd

from ..deprecation import renamed_attribute, renamed_parameters
from ..errors import ParameterError
from ..model.scoretable import as_score_table
from ..validation import float_iv, tolerance_iv
from .methods_readers import methods_text
from .pairs import pair_iv
from .rows import effect_rows

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import Missing, Scores
    from .methods import MethodsText

__all__ = ["EffectSizes", "blocked_anova", "effect_sizes", "residual_variance"]


def residual_variance(scores: Scores) -> float:
    r"""Residual variance of the two-way ANOVA without replication (topics x systems).

    Parameters
    ----------
    scores : DataFrame, array_like, ScoreTable, path, mapping or Evaluation
        Anything :func:`mrrstats.model.scoretable.as_score_table` accepts: a
        DataFrame with one row per query and one column per system, an array
        of shape ``(n_systems, n_queries)``, ... No missing values.

    Returns
    -------
    float
        :math:`V_E = \sum_{q,s}(x_{qs} - \bar x_{q\cdot} - \bar x_{\cdot s} +
        \bar x)^2 / ((n - 1)(k - 1))` for :math:`n` queries and :math:`k` systems.

    Notes
    -----
    This is the error variance Sakai uses for the effect size
    :math:`ES_E = \bar d / \sqrt{V_E}` and for topic set size design; it is
    computed over *all* systems of the experiment, not only the pair compared.

    Examples
    --------
    >>> import numpy as np, mrrstats
    >>> x = np.array([[1.0, 0.5, 0.2], [0.8, 0.6, 0.1]])   # 2 systems x 3 queries
    >>> print(round(mrrstats.residual_variance(x), 4))
    0.0117
    """
    X = _residual_variance_iv(scores)
    n, k = X.shape
    R = X - X.mean(axis=1, keepdims=True) - X.mean(axis=0, keepdims=True) + X.mean()
    return float((R**2).sum() / ((n - 1) * (k - 1)))


def blocked_anova(scores: Scores) -> pd.DataFrame:
    r"""The two-way ANOVA without replication (queries x systems): the omnibus F tests.

    Parameters
    ----------
    scores : DataFrame, array_like, ScoreTable, path, mapping or Evaluation
        As :func:`residual_variance` takes them (queries x systems, no missing values).

    Returns
    -------
    DataFrame
        Rows ``system``, ``query``, ``residual``; columns ``df``,
        ``sum_sq``, ``mean_sq``, ``F`` and ``pvalue`` (NaN for the residual
        row). The ``system`` row is the omnibus test of the blocked design
        behind :func:`mrrstats.anova_tukey_hsd`; the residual ``mean_sq`` is
        :math:`V_E` (:func:`residual_variance`).

    Notes
    -----
    :math:`SS_{sys} = n\sum_s(ar x_{\cdot s} - ar x)^2` with :math:`k-1`
    df, :math:`SS_{q} = k\sum_q(ar x_{q\cdot} - ar x)^2` with :math:`n-1`,
    the residual sum of squares with :math:`(n-1)(k-1)`, and
    :math:`F = MS/MS_{res}` against :math:`F_{df, (n-1)(k-1)}`; R's
    ``summary(aov(score ~ system + query))`` (equal to 1e-12,
    tests/stats/r_reference/blocked_anova_friedman.R). Friedman's rank test
    of the same hypothesis is ``mrrstats.critical_difference(scores).friedman``
    (queries as blocks; R's ``friedman.test``).

    Examples
    --------
    >>> import numpy as np, mrrstats
    >>> x = np.array([[1.0, 0.5, 0.2], [0.8, 0.6, 0.1]])   # 2 systems x 3 queries
    >>> print(mrrstats.blocked_anova(x)["df"].tolist())
    [1.0, 2.0, 2.0]
    """
    from scipy import stats

    X = _residual_variance_iv(scores)
    n, k = X.shape
    grand = X.mean()
    ss_sys = float(n * ((X.mean(axis=0) - grand) ** 2).sum())
    ss_q = float(k * ((X.mean(axis=1) - grand) ** 2).sum())
    R = X - X.mean(axis=1, keepdims=True) - X.mean(axis=0, keepdims=True) + grand
    ss_e = float((R**2).sum())
    df_e = (n - 1) * (k - 1)
    ms_e = ss_e / df_e
    rows = {}
    for name, ss, df in (("system", ss_sys, k - 1), ("query", ss_q, n - 1)):
        ms = ss / df
        f = ms / ms_e if ms_e > 0 else (math.inf if ms > 0 else math.nan)
        p = float(stats.f.sf(f, df, df_e)) if not math.isnan(f) else math.nan
        rows[name] = (float(df), ss, ms, f, p)
    rows["residual"] = (float(df_e), ss_e, ms_e, math.nan, math.nan)
    out = pd.DataFrame.from_dict(rows, orient="index",
                                 columns=["df", "sum_sq", "mean_sq", "F", "pvalue"])
    out.index.name = "source"
    return out


def _residual_variance_iv(scores):
    return as_score_table(scores, min_systems=2, min_queries=2, name="scores").values


@dataclass(frozen=True)
class EffectSizes:
    """Result of :func:`effect_sizes`.

    Attributes
    ----------
    difference : float
        Mean difference :math:`\\bar d` of ``a - b``.
    d_z : float
        :math:`\\bar d / s_d` (Cohen's :math:`d_z`, ``ddof=1``); 0 when the
        differences have no variance and are all zero, ``+-inf`` for a constant shift.
    es_e : float
        Sakai's :math:`\\bar d / \\sqrt{V_E}` (NaN unless ``residual_variance`` is given).
    wins, ties, losses : int
        Queries with :math:`d_i > \\tau`, :math:`|d_i| \\le \\tau`, :math:`d_i < -\\tau`.
    prob_superiority : float
        Paired probability of superiority :math:`(W + T/2)/n`: the chance that
        ``a`` beats ``b`` on a random query, ties counting one half.
    atol : float
        The tie tolerance :math:`\\tau`.
    n_queries : int

    Methods
    -------
    to_frame()
        One row with the attributes (intervals: :func:`mrrstats.effect_size_intervals`).
    """

    difference: float
    d_z: float
    es_e: float
    wins: int
    ties: int
    losses: int
    prob_superiority: float
    atol: float
    n_queries: int

    zero_tolerance = renamed_attribute("atol")
    n = renamed_attribute("n_queries")

    def methods(self) -> MethodsText:
        """The methods paragraph and its references (:mod:`mrrstats.stats.methods`)."""
        return methods_text(self)

    def to_frame(self) -> pd.DataFrame:
        """One row: the attributes, in their order."""
        return pd.DataFrame([dataclasses.asdict(self)])


@renamed_parameters(zero_tolerance="atol")
def effect_sizes(a: ArrayLike, b: ArrayLike, *, atol: float = 0.0,
                 residual_variance: float | None = None,
                 missing: Missing = "raise") -> EffectSizes:
    r"""Effect sizes of the difference ``a - b``.

    Parameters
    ----------
    a, b : array_like, 1-D
        Aligned per-query scores.
    atol : float, keyword-only
        :math:`|d_i| \le` ``atol`` is a tie.
    residual_variance : float, optional, keyword-only
        :math:`V_E` of the two-way ANOVA over *all* systems of the experiment
        (see :func:`mrrstats.residual_variance`); enables ``es_e``.
    missing : {"raise", "drop"}, keyword-only

    Returns
    -------
    EffectSizes

    Notes
    -----
    :math:`d_z = \bar d / s_d`; :math:`ES_E = \bar d / \sqrt{V_E}` (Sakai 2014);
    probability of superiority :math:`(W + T/2)/n` for :math:`W` wins and
    :math:`T` ties among :math:`n` queries.

    References
    ----------
    .. [1] Sakai, T. (2014). Statistical reform in information retrieval?
           SIGIR Forum 48(1).

    Examples
    --------
    >>> import mrrstats
    >>> es = mrrstats.effect_sizes([1, 0.5, 1, 1], [0.5, 0.5, 1, 0.25])
    >>> print(es.wins, es.ties, es.losses, es.prob_superiority, round(es.d_z, 3))
    2 2 0 0.75 0.833
    """
    a, b, tol, v_e = _effect_sizes_iv(a, b, atol, residual_variance, missing)
    mean, dz, es, w, t, l_, ps = effect_rows((a - b)[None, :], tol, v_e)
    return EffectSizes(float(mean[0]), float(dz[0]), float(es[0]), int(w[0]), int(t[0]),
                       int(l_[0]), float(ps[0]), tol, int(a.size))


def _effect_sizes_iv(a, b, atol, residual_variance, missing):
    tol = tolerance_iv(atol, "atol")
    if residual_variance is not None:
        v_e = float_iv(residual_variance, "residual_variance")
        if not v_e > 0:
            raise ParameterError(
                f"`residual_variance` must be positive, got {residual_variance!r}")
    else:
        v_e = None
    a, b = pair_iv(a, b, missing, min_n=1)
    return a, b, tol, v_e
