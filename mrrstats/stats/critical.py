r"""Many systems over many collections: average ranks, Friedman's test, the critical difference.

:func:`critical_difference` takes one score per system and collection (a
BEIR- or MTEB-style table: rows are collections, columns are systems) or the
per-query scores of each collection, and gives what the critical-difference
diagram of Demšar (2006) shows:

* each system's **average rank** over the collections (1 = best, ties averaged);
* **Friedman's test** of "all systems rank alike" (tie-corrected, as
  ``scipy.stats.friedmanchisquare`` and R's ``friedman.test``) and the
  Iman-Davenport F beside it;
* the **critical difference** of Nemenyi's test,
  :math:`CD = q_\alpha\sqrt{k(k+1)/(6N)}` with :math:`q_\alpha` the studentized
  range quantile over :math:`\sqrt 2`;
* the **pairwise p-values** of Nemenyi's test, of Wilcoxon signed-rank tests
  on the collection scores with Holm's correction (Benavoli, Corani & Mangili
  2016: the mean-ranks post-hoc tests depend on the other systems compared), or
  of Conover's post-hoc test (Holm-adjusted);
* the **cliques**: the maximal groups of systems, consecutive in average rank,
  with no pair significantly different, which the diagram joins with a bar.

With per-query input it also resamples at two levels, collections and then the
queries within each, for intervals of each system's average rank and of each
pair's differences that count both sources of variation; and
:meth:`CriticalDifferenceResult.hierarchical` gives the Bayesian hierarchical
comparison of a pair across the collections (the Student-t model of Corani et al. 2017,
by MCMC; or its normal approximation).
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy import optimize, stats

from ..defaults import ALPHA, CONFIDENCE_LEVEL, N_RESAMPLES
from ..errors import ParameterError, ParameterTypeError
from ..formatting import pvalue_clause
from ..metrics.measures import higher_is_better
from ..model.scoretable import ScoreTable, as_score_table
from ..options import CD_TESTS, HIERARCHICAL_MODELS
from ..validation import (
    alpha_iv,
    choice_iv,
    confidence_level_iv,
    int_iv,
    n_resamples_iv,
    rng_iv,
)
from .bayes import bayesian_hierarchical
from .corrections import adjust_pvalues
from .hierarchical import bayesian_hierarchical_t
from .methods import MethodsText, methods_text
from .studentized_range import studentized_range_sf

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from .._typing import Seed
    from .bayes import BayesianComparison

__all__ = [
    "CriticalDifferenceResult",
    "critical_difference",
    "nemenyi_critical_difference",
    "CD_TESTS",
]

#: Copies of a collection whose queries are resampled in one step (bounds memory:
#: copies x queries counts).
_BATCH_ELEMENTS = 1 << 22


@dataclass(frozen=True, eq=False)
class CriticalDifferenceResult:
    r"""Result of :func:`critical_difference`.

    Attributes
    ----------
    scores : DataFrame
        The per-collection scores compared (index ``collection``, one column per
        system; the per-query means with per-query input).
    ranks : DataFrame
        Each system's rank within each collection (1 = best, ties averaged).
    average_ranks : Series
        Mean rank of each system over the collections, best first.
    friedman : Series
        Friedman's test: ``statistic`` (:math:`\chi^2_F`, tie-corrected),
        ``pvalue`` (:math:`\chi^2_{k-1}`), ``df``; the Iman-Davenport
        statistic ``iman_davenport`` (:math:`F_F`), its ``iman_davenport_pvalue``
        (:math:`F_{k-1,(k-1)(N-1)}`), ``dfn`` and ``dfd``.
    critical_difference : float
        Nemenyi's critical difference of the average ranks at ``alpha``
        (Demšar 2006): two systems whose average ranks differ by more differ
        significantly under ``test="nemenyi"``.
    pvalues : DataFrame
        System x system p-values of ``test``, adjusted for the family of all
        pairs (Nemenyi's are single-step by construction; Wilcoxon's and
        Conover's are Holm-adjusted); 1 on the diagonal.
    pairs : DataFrame
        One row per pair (``system_a``, ``system_b``; a the better average rank):
        ``rank_difference`` (average rank of b minus a: > 0 when a ranks
        better), ``difference`` (mean score of a minus b over the collections),
        ``statistic`` (Nemenyi's :math:`|z|`, Wilcoxon's :math:`T`, Conover's
        :math:`|t|`), ``pvalue`` (unadjusted), ``pvalue_adjusted``, ``reject``;
        with per-query input, the two-level bootstrap intervals ``rank_ci_low``,
        ``rank_ci_high`` (of ``rank_difference``) and ``ci_low``, ``ci_high``
        (of ``difference``).
    cliques : tuple of tuple of str
        The maximal groups of at least two systems, consecutive in the order of
        the average ranks, with no pair in the group significantly different.
    rank_intervals : DataFrame or None
        With per-query input: each system's ``average_rank``, ``ci_low`` and
        ``ci_high`` (percentile intervals of the two-level bootstrap), best first.
    test : str
    alpha, confidence_level : float
    n_collections, n_systems : int
    measure : str
    n_resamples : int or None
        Resamples of the two-level bootstrap (None without per-query input).
    seed : int or None
        The seed the bootstrap drew with (None when a Generator was passed or
        nothing was resampled).
    """

    scores: pd.DataFrame
    ranks: pd.DataFrame
    average_ranks: pd.Series
    friedman: pd.Series
    critical_difference: float
    pvalues: pd.DataFrame
    pairs: pd.DataFrame
    cliques: tuple
    rank_intervals: pd.DataFrame | None
    test: str
    alpha: float
    confidence_level: float
    n_collections: int
    n_systems: int
    measure: str = "score"
    n_resamples: int | None = None
    seed: int | None = None
    _per_query: tuple = field(repr=False, default=())

    def methods(self) -> MethodsText:
        """The methods paragraph and its references (:mod:`mrrstats.stats.methods`)."""
        return methods_text(self)

    def to_frame(self) -> pd.DataFrame:
        """One row per system, best first: ``average_rank``, ``mean`` (over the
        collections), the rank interval (``ci_low``, ``ci_high``) with per-query
        input, and ``clique`` (the 1-based numbers of the cliques it belongs to)."""
        frame = pd.DataFrame(
            {
                "average_rank": self.average_ranks,
                "mean": self.scores.mean()[self.average_ranks.index],
            }
        )
        if self.rank_intervals is not None:
            frame["ci_low"] = self.rank_intervals["ci_low"]
            frame["ci_high"] = self.rank_intervals["ci_high"]
        frame["clique"] = [
            ",".join(str(i + 1) for i, c in enumerate(self.cliques) if s in c) for s in frame.index
        ]
        frame.index.name = "system"
        return frame

    def significant(self, a: str | int, b: str | int) -> bool:
        """Whether systems ``a`` and ``b`` differ significantly at ``alpha``."""
        a, b = self._system(a, "a"), self._system(b, "b")
        return bool(a != b and self.pvalues.loc[a, b] <= self.alpha)

    def plot(self, ax: Axes | None = None) -> Axes:
        """The critical-difference diagram (:func:`mrrstats.plots.critical_difference_plot`).

        Parameters
        ----------
        ax : matplotlib Axes, optional

        Returns
        -------
        matplotlib.axes.Axes
        """
        import importlib

        # the drawing lives with the other plots (mrrstats.report.plots), which import the
        # statistics; imported at call time so that stats never imports report
        plots = importlib.import_module("mrrstats.report.plots.critical")
        return plots.critical_difference_plot(self, ax=ax)

    def hierarchical(self, a: str | int, b: str | int, *, rope: float | None = None,
                     confidence_level: float | None = None, model: str = "t",
                     n_draws: int = 1000, rng: Seed = None) -> BayesianComparison:
        r"""Bayesian hierarchical comparison of systems ``a`` and ``b`` across the collections.

        ``model="t"`` (the default): the Student-t hierarchical model of Corani et al.
        (2017), the one of Benavoli, Corani, Demšar & Zaffalon (2017) and
        ``baycomp.HierarchicalTest``, fitted by MCMC to the per-query differences
        ``a - b`` of every collection (:func:`mrrstats.bayesian_hierarchical_t`, with
        no correlation between queries): the posterior of the mean difference
        :math:`\delta_0` over the population of collections, :math:`P(\delta_0 > 0)`,
        the probabilities of a region of practical equivalence, the same for a new
        collection, and the chains' :math:`\hat R` and effective sample size.

        ``model="normal"``: the normal approximation, the normal hierarchical
        model of :func:`mrrstats.bayesian_hierarchical` of the per-collection mean
        differences :math:`\bar d_j` with standard errors :math:`s_j/\sqrt{n_j}`
        (:math:`\bar d_j \sim N(\theta_j, s_j^2/n_j)`, :math:`\theta_j \sim
        N(\mu, \tau^2)`, flat priors), computed exactly on a grid: no sampler.

        Parameters
        ----------
        a, b : str
            Two systems.
        rope : float, optional, keyword-only
            Half-width of the region of practical equivalence (in score units).
        confidence_level : float, optional, keyword-only
            Level of the credible interval (default: the result's).
        model : {"t", "normal"}, keyword-only
            The Student-t model (MCMC) or the normal approximation (exact, no draws).
        n_draws : int, keyword-only
            Draws kept per chain (``model="t"``; 8 chains).
        rng : None, int or numpy.random.Generator, keyword-only
            Seed of the MCMC chains (``model="t"``).

        Returns
        -------
        BayesianComparison
            A :class:`~mrrstats.stats.hierarchical.HierarchicalComparison` for
            ``model="t"``.

        Notes
        -----
        A collection whose differences do not vary (a few queries, tied scores) has
        its within-collection standard deviation fixed at the one pooled over the
        collections (the t model), or gets that pooled standard deviation instead of
        a standard error of zero (the normal approximation).
        """
        if not self._per_query:
            raise ParameterError(
                "hierarchical() needs the per-query scores of each "
                "collection: pass `table` as {collection: per-query frame}",
                name="table",
            )
        a, b = self._system(a, "a"), self._system(b, "b")
        if a == b:
            raise ParameterError(
                f"`a` and `b` must be two different systems, got {a!r} twice", name="b"
            )
        model = choice_iv(model, "model", HIERARCHICAL_MODELS)
        cl = self.confidence_level if confidence_level is None else confidence_level
        systems = list(self.scores.columns)
        ia, ib = systems.index(a), systems.index(b)
        diffs = {}
        for name, values in zip(self.scores.index, self._per_query, strict=True):
            d = values[:, ia] - values[:, ib]
            if d.size < 2:
                raise ParameterError(
                    f"collection {name!r} has {d.size} query: a standard error needs at least 2",
                    name="table",
                )
            diffs[name] = d
        sds = np.array([d.std(ddof=1) for d in diffs.values()])
        ns = np.array([d.size for d in diffs.values()])
        if not (sds > 0).any():
            raise ParameterError(
                f"{a!r} and {b!r} differ by the same amount on every query of every "
                "collection: no within-collection variation to model",
                name="b",
            )
        if model == "t":
            return bayesian_hierarchical_t(diffs, rope=rope, confidence_level=cl,
                                           n_draws=n_draws, rng=rng)
        # a collection whose differences do not vary (a few queries, tied RR values) would
        # be known exactly: give it the standard deviation pooled over the collections
        pooled = math.sqrt(float(((ns - 1) * sds**2).sum() / (ns - 1).sum()))
        ses = np.where(sds > 0, sds, pooled) / np.sqrt(ns)
        effects = np.array([d.mean() for d in diffs.values()])
        return bayesian_hierarchical(effects, ses, rope=rope, confidence_level=cl)

    def summary(self) -> str:
        """One sentence: Friedman's test, the critical difference and the cliques."""
        f = self.friedman
        groups = "; ".join("{" + ", ".join(c) + "}" for c in self.cliques) or "none"
        if sum(len(c) for c in self.cliques) > 24:
            groups = f"{len(self.cliques)} groups (see .cliques)"
        return (
            f"{self.n_systems} systems over {self.n_collections} collections: Friedman "
            f"chi2 = {f['statistic']:.3f} ({pvalue_clause(f['pvalue'])}), Iman-Davenport F = "
            f"{f['iman_davenport']:.3f} ({pvalue_clause(f['iman_davenport_pvalue'])}); "
            f"Nemenyi CD = {self.critical_difference:.3f} at alpha = {self.alpha:g}; "
            f"groups not significantly different ({self.test}): {groups}."
        )

    def _system(self, s, name):
        if not isinstance(s, str):
            raise ParameterTypeError(f"`{name}` must be a system name, got {s!r}", name=name)
        if s not in self.scores.columns:
            raise ParameterError(
                f"`{name}` {s!r} is not one of the systems {list(self.scores.columns)}", name=name
            )
        return s


# --------------------------------------------------------------------------
# ranks, Friedman, Nemenyi
# --------------------------------------------------------------------------
def _ranks(X, higher):
    """Ranks within each row, 1 = best, ties averaged.

    Scores equal to 12 decimals are ties: two per-query means that are equal in
    exact arithmetic (e.g. P@5 on a few queries) can differ in their last bit by
    the order of summation, and would otherwise rank apart.
    """
    X = np.round(np.asarray(X, dtype=float), 12)
    return stats.rankdata(-X if higher else X, axis=1, method="average")


def _friedman(R):
    """Friedman's chi2 (tie-corrected) and the Iman-Davenport F from the rank matrix."""
    N, k = R.shape
    rank_sums = R.sum(axis=0)
    a1 = float((R * R).sum())
    c1 = N * k * (k + 1) ** 2 / 4.0
    spread = float(((rank_sums - N * (k + 1) / 2.0) ** 2).sum())
    den = a1 - c1  # 0 only when every collection ties every system
    chi2 = (k - 1) * spread / den if den > 1e-12 * max(a1, 1.0) else math.nan
    p = float(stats.chi2.sf(chi2, k - 1)) if np.isfinite(chi2) else math.nan
    id_den = N * (k - 1) - chi2
    if not np.isfinite(chi2):
        f, pf = math.nan, math.nan
    elif N < 2:
        f, pf = math.nan, math.nan
    elif id_den <= 1e-12 * N * (k - 1):  # every collection ranks the systems alike
        f, pf = math.inf, 0.0
    else:
        f = (N - 1) * chi2 / id_den
        pf = float(stats.f.sf(f, k - 1, (k - 1) * (N - 1)))
    return pd.Series(
        {
            "statistic": chi2,
            "pvalue": p,
            "df": float(k - 1),
            "iman_davenport": f,
            "iman_davenport_pvalue": pf,
            "dfn": float(k - 1),
            "dfd": float((k - 1) * (N - 1)),
        },
        name="friedman",
    )


def nemenyi_critical_difference(k, n_collections, alpha=ALPHA):
    r"""Nemenyi's critical difference of average ranks (Demšar 2006, eq. 6).

    Parameters
    ----------
    k : int
        Number of systems, ``>= 2``.
    n_collections : int
        Number of collections (data sets) the ranks are averaged over.
    alpha : float
        Family-wise significance level.

    Returns
    -------
    float
        :math:`q_\alpha\sqrt{k(k+1)/(6N)}` with :math:`q_\alpha` the upper
        :math:`\alpha` quantile of the studentized range of :math:`k` means with
        infinite degrees of freedom, divided by :math:`\sqrt 2`.

    Examples
    --------
    Demšar (2006, sec. 3.2.4): four classifiers on 14 data sets.

    >>> from mrrstats.stats.critical import nemenyi_critical_difference
    >>> round(nemenyi_critical_difference(4, 14, 0.05), 2), round(
    ...     nemenyi_critical_difference(4, 14, 0.10), 2)
    (1.25, 1.12)
    """
    k = int_iv(k, "k", minimum=2, maximum=10**5)
    n = int_iv(n_collections, "n_collections", minimum=1)
    alpha = alpha_iv(alpha)
    return _q_alpha(k, alpha) * math.sqrt(k * (k + 1) / (6.0 * n))


def _q_alpha(k, alpha):
    """The studentized range quantile (df = inf) over sqrt(2), from the tail-accurate sf."""
    if k == 2:  # the range of two normals over sqrt 2 is |Z|
        return float(stats.norm.isf(alpha / 2.0))
    hi = 2.0 * math.sqrt(2.0) * float(stats.norm.isf(alpha / (k * (k - 1))))  # Bonferroni
    q = optimize.brentq(
        lambda x: float(studentized_range_sf(x, k, math.inf)[()]) - alpha,
        1e-6,
        hi + 1.0,
        xtol=1e-12,
        rtol=1e-12,
    )
    return q / math.sqrt(2.0)


# --------------------------------------------------------------------------
# post-hoc tests: one p-value per pair (upper triangle order)
# --------------------------------------------------------------------------
def _nemenyi(R, pairs):
    N, k = R.shape
    avg = R.mean(axis=0)
    se = math.sqrt(k * (k + 1) / (6.0 * N))
    z = np.array([abs(avg[i] - avg[j]) / se for i, j in pairs])
    p = studentized_range_sf(z * math.sqrt(2.0), k, math.inf)
    return z, np.minimum(p, 1.0), np.minimum(p, 1.0)


def _conover(R, pairs, alpha):
    """Conover (1999, sec. 5.8) post-hoc test of Friedman's ranks: t on (N-1)(k-1) df."""
    N, k = R.shape
    rank_sums = R.sum(axis=0)
    a1 = float((R * R).sum())
    den2 = 2.0 * (N * a1 - float((rank_sums**2).sum())) / ((N - 1) * (k - 1)) if N > 1 else 0.0
    diffs = np.array([abs(rank_sums[i] - rank_sums[j]) for i, j in pairs])
    if den2 > 1e-12 * max(N * a1, 1.0):
        t = diffs / math.sqrt(den2)
        p = 2.0 * stats.t.sf(t, (N - 1) * (k - 1))
    else:  # every collection ranks the systems alike (or one collection): no error variance
        t = np.where(diffs > 0, math.inf, 0.0)
        p = np.where(diffs > 0, 0.0, 1.0)
    adj, _ = adjust_pvalues(p, "holm", alpha)
    return t, p, adj


def _wilcoxon(X, pairs, alpha):
    """scipy's Wilcoxon signed-rank test (zero_method='wilcox', method='auto') per pair."""
    t, p = [], []
    for i, j in pairs:
        d = X[:, i] - X[:, j]
        if not np.any(d != 0):
            t.append(0.0)
            p.append(1.0)
            continue
        res = stats.wilcoxon(X[:, i], X[:, j])
        t.append(float(res.statistic))
        p.append(float(res.pvalue))
    p = np.asarray(p)
    adj, _ = adjust_pvalues(p, "holm", alpha)
    return np.asarray(t), p, adj


def _cliques(order, significant):
    """Maximal runs of consecutive systems (in ``order``) with no significant pair inside
    (``significant``: a boolean matrix in the same order)."""
    k = len(order)
    ends = []
    j = 0
    for i in range(k):
        j = max(j, i)
        while j + 1 < k and not any(significant[m, j + 1] for m in range(i, j + 1)):
            j += 1
        ends.append(j)
    out = []
    for i, j in enumerate(ends):
        if j > i and (i == 0 or j > ends[i - 1]):
            out.append(tuple(order[i : j + 1]))
    return out


# --------------------------------------------------------------------------
# two-level bootstrap: collections, then queries within each
# --------------------------------------------------------------------------
def _two_level(per_query, higher, n_resamples, gen):
    """Bootstrap average ranks (B, k) and mean scores over collections (B, k).

    Each resample draws N collections with replacement and, for every drawn
    copy, its queries with replacement (independently per copy); the copy's
    per-query means are ranked across the systems.
    """
    N = len(per_query)
    k = per_query[0].shape[1]
    B = n_resamples
    draws = gen.integers(0, N, size=(B, N))  # collection j of resample b
    rank_sum = np.zeros((B, k))
    mean_sum = np.zeros((B, k))
    for c, values in enumerate(per_query):
        owner_b, _ = np.nonzero(draws == c)  # one entry per drawn copy, resample order
        m = owner_b.size
        if m == 0:
            continue
        n = values.shape[0]
        step = max(1, _BATCH_ELEMENTS // max(n, 1))
        means = np.empty((m, k))
        for s in range(0, m, step):
            size = min(step, m - s)
            counts = gen.multinomial(n, np.full(n, 1.0 / n), size=size)
            means[s : s + size] = counts @ values / n
        ranks = _ranks(means, higher)
        np.add.at(rank_sum, owner_b, ranks)
        np.add.at(mean_sum, owner_b, means)
    return rank_sum / N, mean_sum / N


def _percentile(x, cl, axis=0):
    lo, hi = (1 - cl) / 2, (1 + cl) / 2
    return np.quantile(x, lo, axis=axis), np.quantile(x, hi, axis=axis)


# --------------------------------------------------------------------------
# the function
# --------------------------------------------------------------------------
def critical_difference(
    table: Any,
    *,
    test: str = "nemenyi",
    alpha: float = ALPHA,
    measure: str | None = None,
    confidence_level: float = CONFIDENCE_LEVEL,
    n_resamples: int = N_RESAMPLES,
    rng: Seed = None,
) -> CriticalDifferenceResult:
    r"""Compare many systems over many collections: average ranks and the critical difference.

    Parameters
    ----------
    table : DataFrame or mapping of str -> DataFrame
        One score per collection and system: a DataFrame (or
        :class:`~mrrstats.model.scoretable.ScoreTable`, or a score-matrix CSV
        path) with one row per collection and one column per system; or
        ``{collection: per-query scores}`` (each a queries x systems DataFrame,
        ScoreTable or path, all with the same systems), whose per-query means
        are then compared, and which also gives the two-level bootstrap
        intervals and :meth:`~CriticalDifferenceResult.hierarchical`. At least
        2 collections and 2 systems.
    test : {"nemenyi", "wilcoxon-holm", "conover"}, keyword-only
        The pairwise test behind ``pvalues`` and ``cliques``: Nemenyi's test
        of the average ranks (Demšar 2006), Wilcoxon's signed-rank test of
        each pair's collection scores with Holm's correction (Benavoli et al.
        2016), or Conover's post-hoc test of Friedman's ranks with Holm's
        correction.
    alpha : float, keyword-only
        Family-wise significance level of the pairwise decisions and of the
        critical difference.
    measure : str, optional, keyword-only
        The measure's name (default: the frames' ``attrs["measure"]``); a
        measure where lower is better (``"Rank"``) ranks the lowest score first.
    confidence_level : float, keyword-only
        Level of the bootstrap intervals (per-query input).
    n_resamples : int, keyword-only
        Resamples of the two-level bootstrap (per-query input only).
    rng : None, int or numpy.random.Generator, keyword-only
        For the two-level bootstrap.

    Returns
    -------
    CriticalDifferenceResult

    Notes
    -----
    With :math:`r_{ij}` the rank of system :math:`j` on collection :math:`i`
    (1 = best, ties averaged), :math:`R_j = \frac1N\sum_i r_{ij}` its
    average rank, Friedman's statistic is

    .. math:: \chi^2_F = \frac{(k-1)\sum_j (N R_j - N(k+1)/2)^2}{\sum_{ij} r_{ij}^2 - Nk(k+1)^2/4},

    which is :math:`\frac{12N}{k(k+1)}\big[\sum_j R_j^2 - \frac{k(k+1)^2}{4}\big]`
    without ties (Demšar's eq. 3) and the tie-corrected statistic of
    ``scipy.stats.friedmanchisquare`` and R's ``friedman.test`` with them;
    :math:`F_F = (N-1)\chi^2_F/(N(k-1) - \chi^2_F)` (Iman & Davenport 1980).

    **Nemenyi**: :math:`z = |R_a - R_b|/\sqrt{k(k+1)/(6N)}` and
    :math:`p = P(Q_{k,\infty} > \sqrt2\, z)`, single-step by construction (the
    p-values of ``scikit_posthocs.posthoc_nemenyi_friedman``); the pair differs
    iff :math:`|R_a - R_b| > CD`. **Conover** (1999): :math:`t = |N R_a - N
    R_b| / \sqrt{2(N\sum r_{ij}^2 - \sum_j (N R_j)^2)/((N-1)(k-1))}` on
    :math:`(N-1)(k-1)` degrees of freedom (``posthoc_conover_friedman``), then
    Holm. **Wilcoxon-Holm**: ``scipy.stats.wilcoxon`` (zero differences
    dropped, exact for small samples) on each pair's N collection scores, then
    Holm (``posthoc_wilcoxon(p_adjust="holm")``).

    A clique is a maximal run of systems, consecutive in average rank, in which
    no pair differs significantly: for Nemenyi a run whose average ranks span
    at most the CD. Groups of one are not listed.

    **Two-level bootstrap** (per-query input): each of ``n_resamples``
    resamples draws the N collections with replacement and, for every drawn
    copy, its queries with replacement; the copies' per-query means are ranked,
    and the average ranks and mean scores over the N copies recomputed. The
    intervals are percentile intervals of those replicates: of each system's
    average rank (``rank_intervals``), of each pair's rank difference and of its
    mean score difference (``pairs``). They count the collections as a sample
    of possible collections and each collection's queries as a sample of its
    queries; the tests above count only the collections.

    References
    ----------
    J. Demšar, "Statistical comparisons of classifiers over multiple data
    sets", JMLR 7, 2006. A. Benavoli, G. Corani, F. Mangili, "Should we really
    use post-hoc tests based on mean-ranks?", JMLR 17, 2016. A. Benavoli, G.
    Corani, J. Demšar, M. Zaffalon, "Time for a change: a tutorial for
    comparing multiple classifiers through Bayesian analysis", JMLR 18, 2017.
    W. J. Conover, *Practical Nonparametric Statistics*, 3rd ed., Wiley, 1999.
    R. L. Iman, J. M. Davenport, "Approximations of the critical region of the
    Friedman statistic", Comm. Stat. 9, 1980.

    Examples
    --------
    The 19 conversations of TREC CAsT 2021 as collections, their turns as queries:

    >>> import mrrstats
    >>> data = mrrstats.datasets.cast2021()
    >>> ev = mrrstats.evaluate(data.qrels, data.runs, ["nDCG@10"])
    >>> nd = ev.scores("nDCG@10")
    >>> topics = nd.index.str.split("_").str[0]
    >>> res = mrrstats.critical_difference({t: nd[topics == t] for t in topics.unique()},
    ...                                    n_resamples=1000, rng=0)
    >>> res.n_collections, res.n_systems, round(res.critical_difference, 3)
    (19, 5, 1.399)
    """
    (frame, per_query, test, alpha, cl, B, gen, seed, higher, meas) = _critical_difference_iv(
        table, test, alpha, measure, confidence_level, n_resamples, rng
    )
    X = frame.to_numpy(dtype=float)
    N, k = X.shape
    systems = list(frame.columns)
    R = _ranks(X, higher)
    avg = R.mean(axis=0)
    order = [systems[i] for i in np.argsort(avg, kind="stable")]
    average_ranks = pd.Series(avg, index=systems, name="average_rank")[order]
    friedman = _friedman(R)
    cd = _q_alpha(k, alpha) * math.sqrt(k * (k + 1) / (6.0 * N))
    pairs_idx = list(itertools.combinations(range(k), 2))
    if test == "nemenyi":
        statistic, p, p_adj = _nemenyi(R, pairs_idx)
    elif test == "conover":
        statistic, p, p_adj = _conover(R, pairs_idx, alpha)
    else:
        statistic, p, p_adj = _wilcoxon(X, pairs_idx, alpha)
    P = np.ones((k, k))
    for (i, j), v in zip(pairs_idx, p_adj, strict=True):
        P[i, j] = P[j, i] = v
    pvalues = pd.DataFrame(P, index=systems, columns=systems).loc[order, order]
    significant = (pvalues <= alpha).to_numpy()
    cliques = tuple(_cliques(order, significant))

    pos = {s: n for n, s in enumerate(systems)}
    rows = []
    for (i, j), t_ij, p_ij, pa_ij in zip(pairs_idx, statistic, p, p_adj, strict=True):
        if avg[j] < avg[i]:  # a is the better-ranked system
            i, j = j, i
        rows.append(
            {
                "system_a": systems[i],
                "system_b": systems[j],
                "rank_difference": float(avg[j] - avg[i]),
                "difference": float(X[:, i].mean() - X[:, j].mean()),
                "statistic": float(t_ij),
                "pvalue": float(p_ij),
                "pvalue_adjusted": float(pa_ij),
                "reject": bool(pa_ij <= alpha),
            }
        )
    pairs = pd.DataFrame(rows)
    rank_intervals = None
    if per_query:
        boot_ranks, boot_means = _two_level(per_query, higher, B, gen)
        lo, hi = _percentile(boot_ranks, cl)
        rank_intervals = pd.DataFrame(
            {"average_rank": avg, "ci_low": lo, "ci_high": hi},
            index=pd.Index(systems, name="system"),
        ).loc[order]
        ia = np.array([pos[s] for s in pairs["system_a"]])
        ib = np.array([pos[s] for s in pairs["system_b"]])
        rlo, rhi = _percentile(boot_ranks[:, ib] - boot_ranks[:, ia], cl)
        dlo, dhi = _percentile(boot_means[:, ia] - boot_means[:, ib], cl)
        pairs["rank_ci_low"], pairs["rank_ci_high"] = rlo, rhi
        pairs["ci_low"], pairs["ci_high"] = dlo, dhi
    pairs = pairs.sort_values(
        ["pvalue_adjusted", "rank_difference"], ascending=[True, False], kind="stable"
    ).reset_index(drop=True)
    scores = frame.copy()
    scores.index.name = "collection"
    ranks = pd.DataFrame(R, index=scores.index, columns=systems)
    return CriticalDifferenceResult(
        scores=scores,
        ranks=ranks,
        average_ranks=average_ranks,
        friedman=friedman,
        critical_difference=float(cd),
        pvalues=pvalues,
        pairs=pairs,
        cliques=cliques,
        rank_intervals=rank_intervals,
        test=test,
        alpha=alpha,
        confidence_level=cl,
        n_collections=N,
        n_systems=k,
        measure=meas,
        n_resamples=B if per_query else None,
        seed=seed if per_query else None,
        _per_query=tuple(per_query),
    )


def _critical_difference_iv(table, test, alpha, measure, confidence_level, n_resamples, rng):
    test = choice_iv(test, "test", CD_TESTS)
    alpha = alpha_iv(alpha)
    cl = confidence_level_iv(confidence_level)
    B = n_resamples_iv(n_resamples, minimum=99)
    if isinstance(rng, numbers.Real) and not isinstance(rng, numbers.Integral):
        raise ParameterTypeError(
            f"`rng` must be None, an integer seed or a Generator, got {rng!r}", name="rng"
        )
    gen, seed = rng_iv(rng)
    if measure is not None and not isinstance(measure, str):
        raise ParameterTypeError(
            f"`measure` must be a measure name or None, got {measure!r}", name="measure"
        )
    per_query = []
    if isinstance(table, Mapping):
        if len(table) < 2:
            raise ParameterError(
                f"`table` needs at least 2 collections, got {len(table)}", name="table"
            )
        systems, means, names, meas = None, [], [], measure
        for name, value in table.items():
            if not isinstance(name, str) or not name:
                raise ParameterTypeError(
                    f"`table` keys must be non-empty collection names, got {name!r}", name="table"
                )
            t = as_score_table(
                value, measure=measure, min_systems=2, min_queries=1, name=f"table[{name!r}]"
            )
            if systems is None:
                systems = t.systems
                meas = t.measure if measure is None else measure
            elif set(t.systems) != set(systems) or len(t.systems) != len(systems):
                raise ParameterError(
                    f"`table[{name!r}]` has systems {list(t.systems)}; every collection must "
                    f"have the same systems as the first ({list(systems)})",
                    name="table",
                )
            values = t.select(systems).values if t.systems != systems else t.values
            per_query.append(np.asarray(values, dtype=float))
            means.append(values.mean(axis=0))
            names.append(name)
        frame = pd.DataFrame(np.vstack(means), index=pd.Index(names), columns=list(systems))
    elif isinstance(table, (pd.DataFrame, ScoreTable, str)) or hasattr(table, "__fspath__"):
        t = as_score_table(table, measure=measure, min_systems=2, min_queries=2, name="table")
        frame = pd.DataFrame(
            np.asarray(t.values), index=pd.Index(list(t.queries)), columns=list(t.systems)
        )
        meas = t.measure if measure is None else measure
    else:
        raise ParameterTypeError(
            "`table` must be a DataFrame (rows = collections, columns = systems) or a "
            f"mapping {{collection: per-query DataFrame}}, got {type(table).__name__}",
            name="table",
        )
    return frame, per_query, test, alpha, cl, B, gen, seed, higher_is_better(meas), meas
