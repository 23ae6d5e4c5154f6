r"""Leaderboards with honest ranks: simultaneous rank intervals and compact letters.

* :func:`rank_intervals` -- confidence intervals for every system's rank that
  hold *simultaneously* (all systems at once), from simultaneous pairwise
  decisions: a ``max-|t|`` bootstrap of the queries (Mogstad, Romano, Shaikh and
  Wilhelm 2024), or the decisions of any many-system procedure
  (:func:`mrrstats.randomized_tukey_hsd`, :func:`mrrstats.westfall_young`, ...).
* :func:`compact_letter_display` -- letters such that two systems sharing a
  letter are not significantly different (Piepho 2004, insert-and-absorb).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..defaults import CONFIDENCE_LEVEL, MISSING, N_RESAMPLES, WORKERS
from ..errors import ParameterError, ParameterTypeError
from ..metrics.measures import higher_is_better as _measure_higher_is_better
from ..model.scoretable import as_score_table
from ..validation import (
    array_iv,
    asarray_iv,
    bool_iv,
    confidence_level_iv,
    int_iv,
    n_resamples_iv,
    rng_iv,
    workers_iv,
)
from .designs import design_iv as _design_iv
from .designs import design_sums as _design_sums
from .methods import MethodsText
from .methods_readers import methods_text
from .resampling import bootstrap_sums

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import Missing, Scores, Seed
    from .pairwise_result import PairwiseResult

__all__ = ["RankIntervals", "rank_intervals", "compact_letter_display"]


def _letter(i):
    s = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        s = chr(97 + r) + s
    return s


def _bool_matrix(decisions):
    """A matrix of decisions: booleans, or numbers that are 0 or 1 (no NaN, no strings)."""
    if isinstance(decisions, str | bytes) or decisions is None:
        raise ParameterTypeError("`decisions` must be a PairwiseResult or a square (k, k) "
                                 f"boolean matrix, got {type(decisions).__name__}",
                                 name="decisions")
    m = asarray_iv(decisions, "decisions")
    if m.ndim != 2:
        raise ParameterError("`decisions` must be a PairwiseResult or a square (k, k) boolean "
                             f"matrix, got {m.ndim} dimension(s)", name="decisions")
    if m.dtype.kind == "b":
        return m
    if m.dtype.kind not in "iuf":
        raise ParameterTypeError(f"`decisions` must hold booleans (True: the pair differs), "
                                 f"got dtype {m.dtype}", name="decisions")
    if not np.isin(m, (0, 1)).all():
        raise ParameterError("`decisions` must hold booleans or 0/1 (no NaN), got other values",
                             name="decisions")
    return m.astype(bool)


def _decision_matrix(decisions, systems):
    """(k, k) bool matrix 'significantly different' from a PairwiseResult or a matrix."""
    if hasattr(decisions, "reject") and hasattr(decisions, "a"):
        names = list(decisions.systems)
        idx = {s: i for i, s in enumerate(names)}
        m = np.zeros((len(names), len(names)), bool)
        for a, b, r in zip(decisions.a, decisions.b, np.asarray(decisions.reject), strict=True):
            m[idx[a], idx[b]] = m[idx[b], idx[a]] = bool(r)
        return m, names
    if isinstance(decisions, pd.DataFrame):
        names = [str(c) for c in decisions.columns]
        m = _bool_matrix(decisions.to_numpy())
    else:
        m = _bool_matrix(decisions)
        if systems is not None and (isinstance(systems, Mapping)
                                    or not isinstance(systems, str | Sequence | np.ndarray)):
            raise ParameterTypeError(f"`systems` must be a sequence of names, got "
                                     f"{type(systems).__name__}", name="systems")
        names = list(systems) if systems is not None else [str(i) for i in range(m.shape[0])]
        if len(names) != m.shape[0]:
            raise ParameterError(f"`systems` must name the {m.shape[0]} systems of "
                                 f"`decisions`, got {len(names)} names", name="systems")
    if m.ndim != 2 or m.shape[0] != m.shape[1] or m.shape[0] != len(names):
        raise ParameterError("`decisions` must be a PairwiseResult or a square (k, k) boolean "
                         "matrix with one row and column per system")
    if not np.array_equal(m, m.T):
        raise ParameterError(
            "`decisions` must be symmetric (significantly different is symmetric)")
    return m, names


def compact_letter_display(decisions: PairwiseResult | ArrayLike | pd.DataFrame, *,
                           systems: Sequence[str] | None = None,
                           means: Sequence[float] | None = None,
                           higher_is_better: bool = True) -> pd.Series:
    r"""Compact letter display: systems sharing a letter are not significantly different.

    Parameters
    ----------
    decisions : PairwiseResult or (k, k) array_like of bool or DataFrame
        Which pairs are significantly different (``reject`` of a
        :class:`~mrrstats.PairwiseResult`, or a symmetric boolean matrix).
    systems : sequence of str, optional, keyword-only
        Names for a plain matrix.
    means : sequence of float, optional, keyword-only
        Used to order the letters (``"a"`` goes to the group of the best
        system); taken from a PairwiseResult when not given.
    higher_is_better : bool, keyword-only

    Returns
    -------
    Series
        Letters per system (index: systems in input order).

    Notes
    -----
    Piepho's insert-and-absorb algorithm: start with one letter column holding
    every system; for each significantly different pair :math:`(i, j)`,
    replace every column containing both by two copies, one without
    :math:`i` and one without :math:`j`, then drop every column that is a
    subset of another. The result is a set of maximal groups of mutually
    not-significantly-different systems in which every significant pair is
    separated. Columns are lettered in the order of their best member.

    References
    ----------
    .. [1] Piepho, H.-P. (2004). An algorithm for a letter-based
           representation of all-pairwise comparisons. Journal of
           Computational and Graphical Statistics 13(2), 456-466.

    Examples
    --------
    Four systems, A > B > C > D; A-C, A-D and B-D differ significantly:

    >>> import numpy as np, mrrstats
    >>> sig = np.zeros((4, 4), bool)
    >>> for i, j in [(0, 2), (0, 3), (1, 3)]:
    ...     sig[i, j] = sig[j, i] = True
    >>> print(mrrstats.compact_letter_display(sig, systems="ABCD", means=[4, 3, 2, 1]).tolist())
    ['a', 'ab', 'bc', 'c']
    """
    higher_is_better = bool_iv(higher_is_better, "higher_is_better")
    m, names = _decision_matrix(decisions, systems)
    k = len(names)
    if means is None and hasattr(decisions, "mean_a"):
        mm = {}
        for a, b, ma, mb in zip(decisions.a, decisions.b, decisions.mean_a, decisions.mean_b,  # type: ignore[union-attr]
                                strict=True):
            mm[a], mm[b] = float(ma), float(mb)
        means = [mm.get(s, 0.0) for s in names]
    if means is None:
        order = list(range(k))
    else:
        means = array_iv(means, "means")
        if means.shape != (k,):
            raise ParameterError(f"`means` must have one value per system ({k})")
        order = list(np.argsort(-means if higher_is_better else means, kind="stable"))
    pos = {s: r for r, s in enumerate(order)}  # rank position of each system index
    columns = [frozenset(range(k))]
    for i in range(k):
        for j in range(i + 1, k):
            if not m[i, j]:
                continue
            new = []
            for col in columns:
                if i in col and j in col:
                    new.extend([col - {i}, col - {j}])
                else:
                    new.append(col)
            # absorb: drop duplicates and columns contained in another column
            uniq = list(dict.fromkeys(new))
            columns = [c for c in uniq if not any(c < d for d in uniq)]
    columns.sort(key=lambda c: sorted(pos[s] for s in c))
    letters = [""] * k
    for li, col in enumerate(columns):
        for s in col:
            letters[s] += _letter(li)
    return pd.Series(["".join(sorted(x, key=lambda c: (len(c), c))) for x in letters],
                     index=pd.Index(names, name="system"), name="letters")


@dataclass(frozen=True)
class RankIntervals:
    """Result of :func:`rank_intervals`.

    Attributes
    ----------
    systems : tuple of str
    mean : ndarray
        Mean score per system.
    rank : ndarray
        Observed rank (1 = best; ties share the best rank).
    low, high : ndarray of int
        Simultaneous rank interval per system.
    letters : tuple of str
        Compact letter display from the same decisions.
    significant : ndarray of bool, (k, k)
        The pairwise decisions used.
    critical_value : float
        The bootstrap ``max-|t|`` critical value (NaN when ``decisions`` were given).
    confidence_level : float
    method : str
    n_resamples : int
    seed : int or None
    measure : str
    n_queries : int or None
        Queries of the score table.
    n_clusters : int or None
        Clusters of the bootstrap (None without ``clusters`` or with ``decisions``).
    """

    systems: tuple
    mean: np.ndarray
    rank: np.ndarray
    low: np.ndarray
    high: np.ndarray
    letters: tuple
    significant: np.ndarray
    critical_value: float
    confidence_level: float
    method: str
    n_resamples: int
    seed: int | None
    measure: str
    n_queries: int | None = None
    n_clusters: int | None = None

    def methods(self) -> MethodsText:
        """The methods paragraph and its references (:mod:`mrrstats.stats.methods`)."""
        return methods_text(self)

    def to_frame(self) -> pd.DataFrame:
        """One row per system, best first: mean, rank, rank_low, rank_high, letters."""
        f = pd.DataFrame({"mean": self.mean, "rank": self.rank, "rank_low": self.low,
                          "rank_high": self.high, "letters": list(self.letters)},
                         index=pd.Index(list(self.systems), name="system"))
        return f.sort_values(["rank", "rank_low"], kind="stable")


def _intervals_from_decisions(sig, better):
    """[1 + #significantly better, k - #significantly worse] per system."""
    k = sig.shape[0]
    n_better = (sig & better.T).sum(axis=1)  # j significantly better than i
    n_worse = (sig & better).sum(axis=1)  # i significantly better than j
    return 1 + n_better, k - n_worse


def rank_intervals(scores: Scores, *, measure: str | None = None,
                   confidence_level: float = CONFIDENCE_LEVEL, n_resamples: int = N_RESAMPLES,
                   decisions: PairwiseResult | ArrayLike | None = None,
                   higher_is_better: bool | None = None, clusters: ArrayLike | None = None,
                   batch: int | None = None, missing: Missing = MISSING, workers: int = WORKERS,
                   rng: Seed = None) -> RankIntervals:
    r"""Simultaneous confidence intervals for the rank of every system.

    Parameters
    ----------
    scores : score table input
        Queries x systems, anything :func:`~mrrstats.model.scoretable.as_score_table`
        accepts.
    measure : str, optional, keyword-only
        Which measure of a mapping or an Evaluation; also decides whether
        higher is better.
    confidence_level : float, keyword-only
        Joint coverage of all the intervals together.
    n_resamples : int, keyword-only
        Bootstrap resamples of the queries.
    decisions : PairwiseResult or (k, k) bool matrix, optional, keyword-only
        Use these simultaneous pairwise decisions (e.g. of
        :func:`mrrstats.randomized_tukey_hsd`) instead of the bootstrap; their
        family-wise error rate is then the level.
    higher_is_better : bool, optional, keyword-only
        Default: from the measure.
    clusters : array_like, 1-D, optional, keyword-only
        Cluster label of each query (in table order; e.g. the conversation of
        a CAsT turn): whole clusters are resampled and each pair's standard
        error is the cluster-robust one (see :func:`mrrstats.bootstrap_test`).
    batch : int or None, keyword-only
        Resamples held in memory at once (does not change the result).
    missing : {"raise", "drop"}, keyword-only
    workers : int, keyword-only
        Threads of the bootstrap kernels (-1: all cores); never changes the result.
    rng : None, int or numpy.random.Generator, keyword-only

    Returns
    -------
    RankIntervals

    Notes
    -----
    With :math:`\bar x_s` the system means, :math:`\hat d_{ij} = \bar x_i -
    \bar x_j` and :math:`\hat\sigma_{ij}` the standard error of the paired
    mean difference, queries are resampled with replacement and
    :math:`c` is the :math:`1-\alpha` quantile of :math:`\max_{i<j}
    |\hat d^*_{ij} - \hat d_{ij}| / \hat\sigma_{ij}`. System :math:`i` is
    significantly better than :math:`j` when :math:`\hat d_{ij} /
    \hat\sigma_{ij} > c` (in the better direction). The rank interval of
    :math:`i` is :math:`[1 + \#\{j \text{ significantly better}\},\ k -
    \#\{j \text{ significantly worse}\}]`. All :math:`k` intervals contain
    the true ranks with probability at least (asymptotically) the level,
    because all true orderings of the pairs are kept with that probability
    (Mogstad et al. 2024, Section 3.2).

    References
    ----------
    .. [1] Mogstad, M., Romano, J. P., Shaikh, A. M. and Wilhelm, D. (2024).
           Inference for ranks with applications to mobility across
           neighbourhoods and academic achievement across countries. Review
           of Economic Studies 91(1), 476-518.

    With ``clusters``, :math:`G` clusters are drawn with replacement, the
    resampled differences are the ratios :math:`\sum_g c_g S_g / \sum_g c_g
    n_g` of cluster totals and sizes, and :math:`\hat\sigma_{ij}` is the
    cluster-robust standard error :math:`\sqrt{G/(G-1) \sum_g (S_g - n_g
    \hat d_{ij})^2} / n`.

    Examples
    --------
    >>> import numpy as np, mrrstats
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(0, 1, (60, 1)) + [0.0, 0.05, 0.6, 1.2] + rng.normal(0, 0.3, (60, 4))
    >>> ri = mrrstats.rank_intervals(x.T, rng=1)
    >>> print(ri.to_frame()[["rank", "rank_low", "rank_high", "letters"]].to_string())
            rank  rank_low  rank_high letters
    system
    3          1         1          1       a
    2          2         2          2       b
    1          3         3          4       c
    0          4         3          4       c
    """
    cl = confidence_level_iv(confidence_level)
    table = as_score_table(scores, measure=measure, missing=missing, min_systems=2,
                           min_queries=2, name="scores")
    hib = _measure_higher_is_better(table.measure) if higher_is_better is None \
        else bool_iv(higher_is_better, "higher_is_better")
    x = table.values
    n, k = x.shape
    mean = x.mean(axis=0)
    sgn = 1.0 if hib else -1.0
    # observed ranks (1 = best, ties share the best rank)
    key = sgn * mean
    rank = np.array([1 + int(np.sum(key > key[i])) for i in range(k)])
    better = sgn * (mean[:, None] - mean[None, :]) > 0  # better[i, j]: i ahead of j
    if decisions is not None:
        sig, names = _decision_matrix(decisions, table.systems)
        if list(names) != list(table.systems):
            idx = [list(names).index(s) for s in table.systems]
            sig = sig[np.ix_(idx, idx)]
        low, high = _intervals_from_decisions(sig, better)
        letters = compact_letter_display(sig, systems=table.systems, means=mean,
                                         higher_is_better=hib)
        return RankIntervals(table.systems, mean, rank, low, high, tuple(letters), sig,
                             math.nan, cl, getattr(decisions, "test", "decisions"), 0, None,
                             table.measure, n)
    n_resamples = n_resamples_iv(n_resamples)
    batch = int_iv(batch, "batch", allow_none=True)
    workers = workers_iv(workers)
    gen, seed = rng_iv(rng)
    ii, jj = np.triu_indices(k, 1)
    d = x[:, ii] - x[:, jj]  # (n, pairs) per-query differences
    dhat = d.mean(axis=0)
    design = None if clusters is None else _design_iv(clusters, None, n)
    if design is None:
        se = d.std(axis=0, ddof=1) / math.sqrt(n)
        # the one engine: bootstrap sums of every pair's differences, one shared index matrix
        dstar = bootstrap_sums(np.ascontiguousarray(d.T), n_resamples, batch, gen,
                               workers) / n
    else:
        G = design.n_clusters
        sz = design.sizes.astype(np.float64)
        S = np.stack([design.totals(d[:, p]) for p in range(ii.size)])  # (pairs, G)
        se = np.sqrt(G / (G - 1.0) * ((S - sz * dhat[:, None]) ** 2).sum(axis=1)) / n
        sums = _design_sums(np.vstack([S, sz]), design, n_resamples, batch, gen, workers)
        dstar = sums[:-1] / sums[-1]
    ok = se > 0
    t = np.abs(dstar[ok] - dhat[ok, None]) / se[ok, None]
    maxt = t.max(axis=0) if t.shape[0] else np.zeros(n_resamples)
    c = float(np.quantile(maxt, cl, method="higher"))
    sig_pairs = np.zeros(ii.size, bool)
    sig_pairs[ok] = np.abs(dhat[ok]) / se[ok] > c
    sig = np.zeros((k, k), bool)
    sig[ii, jj] = sig[jj, ii] = sig_pairs
    low, high = _intervals_from_decisions(sig, better)
    letters = compact_letter_display(sig, systems=table.systems, means=mean,
                                     higher_is_better=hib)
    return RankIntervals(table.systems, mean, rank, low, high, tuple(letters), sig, c, cl,
                         "max-t bootstrap", n_resamples, seed, table.measure, n,
                         None if design is None else int(design.n_clusters))


def leaderboard_frame(result, *, higher_is_better=True):
    """Ranks and letters of an all-pairs :class:`~mrrstats.PairwiseResult`, from its decisions.

    Public within the package (``compare``'s tables). One row per system in
    the result's order: ``mean``, ``rank`` (1 = best), ``rank_low``,
    ``rank_high`` (:math:`1 +` the number of systems significantly better,
    :math:`k -` the number significantly worse; simultaneous at the level of
    the decisions when they control the family-wise error) and ``letters``
    (:func:`compact_letter_display`).
    """
    sig, names = _decision_matrix(result, None)
    mm = {}
    for a, b, ma, mb in zip(result.a, result.b, result.mean_a, result.mean_b, strict=True):
        mm[a], mm[b] = float(ma), float(mb)
    mean = np.array([mm[s] for s in names])
    sgn = 1.0 if higher_is_better else -1.0
    key = sgn * mean
    rank = np.array([1 + int(np.sum(key > key[i])) for i in range(len(names))])
    better = sgn * (mean[:, None] - mean[None, :]) > 0
    low, high = _intervals_from_decisions(sig, better)
    letters = compact_letter_display(sig, systems=names, means=mean,
                                     higher_is_better=higher_is_better)
    return pd.DataFrame({"mean": mean, "rank": rank, "rank_low": low, "rank_high": high,
                         "letters": letters.to_numpy()},
                        index=pd.Index(names, name="system"))
