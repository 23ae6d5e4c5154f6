"""Agreement between measures: would the ranking of systems change with another metric?

Compare the system rankings and the per-query values that different measures (RR,
AP, nDCG, P@10, ...) produce on the same systems and queries (the significance
decisions are compared in :mod:`mrrstats.agreement.decisions`).

Every function here and in :mod:`~mrrstats.agreement.decisions` takes ``scores``:
the per-query scores of the same systems on the same queries under several measures,
given as

* an :class:`~mrrstats.Evaluation` (all of its measures are used, except
  ``Rank``, which is a rank rather than a score), or
* a mapping ``{measure name: frame}`` where each frame has one row per query and
  one column per system (the layout of :func:`mrrstats.read_score_matrix`), or
  ``{measure name: path of a score-matrix CSV}``.

All measures must cover the same systems and the same queries; missing values
are an error (drop or fill them before, e.g. ``read_score_matrix(...,
missing="drop")``). A system's score under a measure is its mean over the queries
(MRR, MAP, ...); system rankings are by that mean, higher is better.

Floating-point sums make equal means differ in the last bits (the mean P@10 of
two systems with the same total is not always bit-identical), so the means are
rounded to ``decimals=12`` places before they are ranked: equal totals are ties.
Pass ``decimals=None`` to rank the raw means.
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Mapping
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import stats

from ..errors import ParameterError, ParameterTypeError
from ..metrics.measures import parse_measure
from ..model.scoretable import ScoreTable, as_score_tables
from ..numerics import harmonic

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import ArrayLike

    from .._typing import Scores

__all__ = [
    "tau_ap",
    "ranking_agreement",
    "agreement_matrix",
    "swapped_pairs",
    "per_query_correlation",
    "perfect_rr_disagreement",
]

_TAU_AP_TIES = ("agreement", "accuracy", "raise")
#: Up to this many systems the p-values of Kendall's tau-b and Spearman's rho are
#: exact: the permutation distribution by full enumeration of the n! orders (9! =
#: 362,880), ties included; above it, scipy's (tau: exact without ties, else normal;
#: rho: Student's t approximation).
EXACT_MAX_SYSTEMS = 9
#: Columns of :func:`ranking_agreement` (one row per unordered pair of measures).
_AGREEMENT_COLUMNS = ["measure_a", "measure_b", "n_systems", "tau", "tau_pvalue", "tau_ap",
                      "tau_ap_reverse", "tau_ap_symmetric", "rho", "rho_pvalue", "n_pairs",
                      "n_swaps", "n_ties_a", "n_ties_b"]


# --------------------------------------------------------------------------
# input normalisation shared by the public functions
# --------------------------------------------------------------------------

def aligned_score_frames(scores, *, param: str = "scores") -> dict[str, pd.DataFrame]:
    """``{measure: frame}`` with aligned rows and columns, through the one coercion.

    The input is coerced by :func:`mrrstats.model.scoretable.as_score_tables`
    (``Rank``, a first-relevant rank where lower is better, is left out of an
    Evaluation); this adds what agreement needs: every measure covers the
    same systems (at least 2) and queries, aligned by name.
    """
    if not (isinstance(scores, Mapping) or (hasattr(scores, "per_query") and callable(
            getattr(scores, "scores", None)))):
        raise ParameterTypeError(f"`{param}` must be an Evaluation or a mapping "
                        f"{{measure: DataFrame}}, got {type(scores).__name__}")
    if isinstance(scores, Mapping):
        for key, value in scores.items():
            if isinstance(key, str) and key and not isinstance(
                    value, (str, os.PathLike, pd.DataFrame, ScoreTable)):
                raise ParameterTypeError(
                    f"`{param}[{key!r}]` must be a DataFrame (rows = queries, "
                    f"columns = systems) or a path, got {type(value).__name__}")
    measures = None
    if hasattr(scores, "measure_names"):  # an Evaluation: only measures that are scores
        # (``Rank``, a first-relevant rank where lower is better, is left out: its spec)
        measures = [m for m in scores.measure_names
                    if math.isfinite(parse_measure(m).spec.bounds[1])]
    try:
        tables = as_score_tables(scores, measures=measures, missing="raise", finite=False,
                                 name=param)
    except ValueError as exc:
        if "missing" in str(exc) or "NaN" in str(exc):
            raise ParameterError(f"`{param}`: {exc}; drop or fill the missing values first "
                             "(e.g. read_score_matrix(..., missing='drop'))") from None
        raise
    first_name, first = next(iter(tables.items()))
    systems, queries = list(first.systems), list(first.queries)
    if len(set(systems)) != len(systems) or len(set(queries)) != len(queries):
        raise ParameterError(f"`{param}[{first_name!r}]` has duplicate systems or queries")
    if len(systems) < 2:
        raise ParameterError(f"`{param}` must hold at least 2 systems, got {len(systems)}")
    out: dict[str, pd.DataFrame] = {}
    for name, table in tables.items():
        if set(table.systems) != set(systems) or len(table.systems) != len(systems):
            raise ParameterError(f"`{param}`: measure {name!r} has different systems than "
                             f"{first_name!r}; all measures must cover the same systems")
        if set(table.queries) != set(queries) or len(table.queries) != len(queries):
            raise ParameterError(f"`{param}`: measure {name!r} has different queries than "
                             f"{first_name!r}; all measures must cover the same queries")
        aligned = table.to_frame().loc[queries, systems]
        if np.isinf(aligned.to_numpy()).any():
            raise ParameterError(f"`{param}`: measure {name!r} has infinite values; give "
                             "scores where higher is better (not ranks)")
        aligned.attrs = {}
        aligned.index.name = "query"
        aligned.columns.name = "system"
        out[str(name)] = aligned
    return out


def _means(frames: dict[str, pd.DataFrame], decimals) -> pd.DataFrame:
    """System means per measure: rows = systems, columns = measures (rounded)."""
    means = pd.DataFrame({m: f.mean(axis=0) for m, f in frames.items()})
    if decimals is not None:
        means = means.round(decimals)
    return means


def _check_decimals(decimals):
    if decimals is not None and (isinstance(decimals, bool)
                                 or not isinstance(decimals, (int, np.integer))):
        raise ParameterTypeError(f"`decimals` must be an int or None, got {decimals!r}")
    if decimals is not None and not -300 <= decimals <= 300:
        raise ParameterError(f"`decimals` must be in [-300, 300] or None, got {decimals!r}",
                             name="decimals")
    return decimals


def _check_atol(atol):
    if isinstance(atol, bool) or not isinstance(atol, (int, float, np.floating)) or not (
            0 <= atol < 1):
        raise ParameterError(f"`atol` must be a number in [0, 1), got {atol!r}")
    return float(atol)


def measure_name_iv(frames, name, param):
    """``name`` if it is one of the measures of ``frames`` (the ``param`` in messages)."""
    if not isinstance(name, str) or name not in frames:
        raise ParameterError(f"`{param}` must be one of {list(frames)}, got {name!r}",
                             name=param)
    return name


# --------------------------------------------------------------------------
# tau_AP
# --------------------------------------------------------------------------

def _tau_ap_iv(truth, estimate, ties, symmetric):
    out = []
    for name, x in (("truth", truth), ("estimate", estimate)):
        try:
            arr = np.asarray(x, dtype=np.float64)
        except (TypeError, ValueError):
            raise ParameterTypeError(f"`{name}` must be a 1-d array of numbers") from None
        if arr.ndim != 1:
            raise ParameterError(f"`{name}` must be 1-dimensional, got shape {arr.shape}")
        if not np.all(np.isfinite(arr)):
            raise ParameterError(f"`{name}` must be finite (no NaN or inf)")
        out.append(arr)
    t, e = out
    if t.size != e.size:
        raise ParameterError(f"`truth` and `estimate` must have the same length, got {t.size} "
                         f"and {e.size}")
    if t.size < 2:
        raise ParameterError(f"`truth` and `estimate` need at least 2 items, got {t.size}")
    if not isinstance(ties, str | None) or ties not in _TAU_AP_TIES:
        raise ParameterError(f"`ties` must be one of {_TAU_AP_TIES}, got {ties!r}")
    if not isinstance(symmetric, (bool, np.bool_)):
        raise ParameterTypeError(f"`symmetric` must be True or False, got {symmetric!r}")
    t_tied = np.unique(t).size < t.size
    e_tied = np.unique(e).size < e.size
    if ties == "raise" and (t_tied or e_tied):
        which = "truth" if t_tied else "estimate"
        raise ParameterError(f"`{which}` has tied values and `ties`='raise'; use "
                         "ties='agreement' or ties='accuracy'")
    if ties == "accuracy" and (t_tied or (symmetric and e_tied)):
        which = "truth" if t_tied else "estimate"
        raise ParameterError(f"`{which}` has tied values: ties='accuracy' needs an untied "
                         "true ranking (with symmetric=True both rankings act as truth); "
                         "use ties='agreement'")
    return t, e, ties, bool(symmetric)


def _tau_ap_one_way(t: np.ndarray, e: np.ndarray, ties: str) -> float:
    """tau_AP of the list sorted by ``e`` (evaluated) against ``t`` (truth)."""
    n = t.size
    # above[i, j]: item j is strictly above item i in the evaluated list.
    above = e[None, :] > e[:, None]
    p = above.sum(axis=1)  # number of items strictly above i
    # c[i]: items above i in the evaluated list that the truth also puts above i.
    c = (above & (t[None, :] > t[:, None])).sum(axis=1)
    if ties in ("agreement", "raise"):
        # tau_AP,b one way (Urbano & Marrero 2017): an item is compared with the
        # items strictly above its tie group, normalised by their number; items
        # of the top group are skipped. Without ties this is Yilmaz's tau_AP.
        keep = p > 0
        if not keep.any():
            return float("nan")
        return float(2.0 * np.sum(c[keep] / p[keep]) / keep.sum() - 1.0)
    # "accuracy": tau_AP,a = expectation of tau_AP over uniformly random orders
    # of the tied items of the evaluated list (the truth has no ties).
    g = (e[None, :] == e[:, None]).sum(axis=1)  # size of i's tie group
    # Term I: c[i] concordant items above the group, times E[1/(position-1)] with
    # position-1 uniform on p..p+g-1: (H(p+g-1) - H(p-1)) / g.
    keep = p > 0
    term1 = np.sum(c[keep] * (harmonic(p[keep] + g[keep] - 1) - harmonic(p[keep] - 1))
                   / g[keep])
    # Term II: within a group of size g starting after p items, the item placed
    # k-th (k = 0..g-1) has k group members above it, each concordant with
    # probability 1/2: sum_k k / (2 (p + k)) per group = [(g-1) - p (H(p+g-1) - H(p))]
    # / 2, spread over the g members of the group.
    term2 = np.sum(((g - 1) - p * (harmonic(p + g - 1) - harmonic(p))) / (2.0 * g))
    return float(2.0 / (n - 1) * (term1 + term2) - 1.0)


def tau_ap(truth: ArrayLike, estimate: ArrayLike, *, ties: str = "agreement",
           symmetric: bool = False) -> float:
    r"""AP rank correlation tau_AP (Yilmaz, Aslam & Robertson, 2008).

    A top-weighted Kendall-type correlation: disagreements at the top of the
    evaluated ranking cost more than disagreements at the bottom. Items are
    ranked by decreasing value (e.g. system means: higher is better).

    Parameters
    ----------
    truth : array_like, shape (n,)
        Scores defining the reference ("true") ranking, e.g. the system means
        under the measure you trust.
    estimate : array_like, shape (n,)
        Scores of the same items defining the evaluated ranking, e.g. the
        system means under the measure you compare with the reference.
    ties : {"agreement", "accuracy", "raise"}, keyword-only
        How tied scores are handled (Urbano & Marrero, 2017):

        * ``"agreement"`` (default): the one-way tau_AP,b. An item is compared
          only with the items strictly above its tie group in the evaluated
          list, normalised by their number; items in the top group are
          skipped and the sum is normalised by the number of remaining items.
          Items tied in ``truth`` count as not concordant. With
          ``symmetric=True`` this is exactly Urbano & Marrero's tau_AP,b (R
          package ``ircor``, ``tauAP_b``).
        * ``"accuracy"``: tau_AP,a, the expected tau_AP over all orders of the
          items tied in ``estimate``, each order equally likely. ``truth``
          must have no ties.
        * ``"raise"``: the original definition, which needs untied rankings;
          ties raise ``ValueError``.

        Without ties the three agree with Yilmaz et al.'s definition.
    symmetric : bool, keyword-only
        If True return the mean of ``tau_ap(truth, estimate)`` and
        ``tau_ap(estimate, truth)``, for when neither ranking is the truth.

    Returns
    -------
    float
        tau_AP in [-1, 1]; NaN when every item of the evaluated list is tied
        (``ties="agreement"``).

    Notes
    -----
    With the evaluated list sorted by ``estimate`` and no ties,

    .. math::

        \tau_{AP} = \frac{2}{N-1} \sum_{i=2}^{N} \frac{C(i)}{i-1} - 1

    where :math:`C(i)` is the number of items above rank :math:`i` in the
    evaluated list that are also above that item in the true list. Each
    :math:`C(i)/(i-1)` is the precision of the true order among the items
    above rank :math:`i`, so tau_AP is the mean of these precisions rescaled to
    [-1, 1]. It is 1 for identical rankings and -1 for reversed ones. It is
    not symmetric: swapping ``truth`` and ``estimate`` changes its value in
    general (the weights follow the evaluated list). Kendall's tau weighs every
    pair equally; tau_AP punishes swaps among the best systems.

    The computation is :math:`O(N^2)` in time and memory.

    References
    ----------
    .. [1] E. Yilmaz, J. A. Aslam and S. Robertson, "A new rank correlation
       coefficient for information retrieval", SIGIR 2008, pp. 587-594.
    .. [2] J. Urbano and M. Marrero, "The treatment of ties in AP correlation",
       ICTIR 2017, pp. 321-324.

    Examples
    --------
    >>> from mrrstats import tau_ap
    >>> truth = [4, 3, 2, 1]             # items A > B > C > D
    >>> swapped_top = [3, 4, 2, 1]       # B > A > C > D
    >>> swapped_bottom = [4, 3, 1, 2]    # A > B > D > C
    >>> print(round(tau_ap(truth, swapped_top), 4), round(tau_ap(truth, swapped_bottom), 4))
    0.3333 0.7778
    """
    t, e, ties, symmetric = _tau_ap_iv(truth, estimate, ties, symmetric)
    forward = _tau_ap_one_way(t, e, ties)
    if not symmetric:
        return forward
    return (forward + _tau_ap_one_way(e, t, ties)) / 2.0


# --------------------------------------------------------------------------
# system-ranking agreement
# --------------------------------------------------------------------------

def _ranking_agreement_iv(scores, ties, decimals):
    frames = aligned_score_frames(scores)
    if not isinstance(ties, str | None) or ties not in _TAU_AP_TIES:
        raise ParameterError(f"`ties` must be one of {_TAU_AP_TIES}, got {ties!r}")
    return frames, ties, _check_decimals(decimals)


@lru_cache(maxsize=4)
def _permutations(n: int) -> np.ndarray:
    """All n! permutations of ``range(n)``, one per row (read-only)."""
    perms = np.array(list(itertools.permutations(range(n))), dtype=np.int8).reshape(-1, n)
    perms.flags.writeable = False
    return perms


def exact_rank_correlation_pvalues(x, y) -> tuple[float, float]:
    r"""Exact two-sided p-values of Kendall's tau-b and Spearman's rho (small n).

    The null distribution is the permutation distribution: every one of the
    :math:`n!` pairings of ``y`` with ``x`` equally likely, enumerated in full
    (ties kept as they are, so it is exact with ties too). The p-value is the
    share of pairings whose statistic is at least as far from 0 as the observed
    one, compared in integers (tau-b's numerator :math:`S = \sum_{i<j}
    \mathrm{sign}(x_i - x_j)\,\mathrm{sign}(y_i - y_j)`, whose denominator no
    permutation changes; twice the centred sum of rank products for rho), so no
    rounding decides a boundary case. For :math:`n = 5` systems in perfect
    agreement both are :math:`2/120`.

    Parameters
    ----------
    x, y : array_like, 1-D
        The two scores of the same :math:`n \le 9` systems (``EXACT_MAX_SYSTEMS``).

    Returns
    -------
    (tau_pvalue, rho_pvalue) : tuple of float

    Examples
    --------
    >>> from mrrstats.agreement.measures import exact_rank_correlation_pvalues
    >>> tau_p, rho_p = exact_rank_correlation_pvalues([1, 2, 3, 4, 5], [2, 4, 6, 8, 10])
    >>> tau_p == rho_p == 2 / 120
    True
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n = x.size
    if n != y.size or not 2 <= n <= EXACT_MAX_SYSTEMS:
        raise ParameterError(f"the exact p-values need 2 to {EXACT_MAX_SYSTEMS} systems, "
                             f"got {n} and {y.size}")
    perms = _permutations(n)
    # Kendall: S of every pairing, in integers
    i, j = np.triu_indices(n, 1)
    sx = np.sign(x[i] - x[j]).astype(np.int64)
    sy = np.sign(y[:, None] - y[None, :]).astype(np.int8)
    s_obs = int(sx @ np.sign(y[i] - y[j]).astype(np.int64))
    s_all = np.zeros(perms.shape[0], dtype=np.int64)
    for k in range(i.size):
        s_all += sx[k] * sy[perms[:, i[k]], perms[:, j[k]]]
    tau_p = float(np.mean(np.abs(s_all) >= abs(s_obs)))
    # Spearman: average ranks doubled are integers; |n sum(a b) - sum(a) sum(b)|
    a = np.rint(2 * stats.rankdata(x)).astype(np.int64)
    b = np.rint(2 * stats.rankdata(y)).astype(np.int64)
    t_all = b[perms] @ a
    shift = int(a.sum()) * int(b.sum())
    t_obs = abs(n * int(a @ b) - shift)
    rho_p = float(np.mean(np.abs(n * t_all - shift) >= t_obs))
    return tau_p, rho_p


def _pair_signs(x: np.ndarray) -> np.ndarray:
    """sign(x[i] - x[j]) for i < j, flattened."""
    i, j = np.triu_indices(x.size, k=1)
    return np.sign(x[i] - x[j])


def ranking_agreement(scores: Scores, *, ties: str = "agreement",
                      decimals: int | None = 12) -> pd.DataFrame:
    r"""Agreement between the system rankings that pairs of measures produce.

    Systems are ranked by their mean score under each measure; for every
    pair of different measures (once, in input order) the rankings are
    compared with Kendall's tau-b, tau_AP and Spearman's rho, and the
    system pairs whose order swaps are counted.

    Parameters
    ----------
    scores : Evaluation or mapping
        Per-query scores of the same systems and queries under at least one
        measure (see the module documentation).
    ties : {"agreement", "accuracy", "raise"}, keyword-only
        Tie handling of tau_AP, see :func:`tau_ap`. With ``"accuracy"``,
        ``tau_ap`` is NaN when ``measure_a`` (the truth) has tied means and
        ``tau_ap_symmetric`` when either measure has; ``"raise"`` raises on
        tied means. Kendall's tau-b and Spearman's rho (average ranks) handle
        ties by their definitions.
    decimals : int or None, keyword-only
        Round the system means to this many decimals before ranking (default
        12) so that equal totals are ties despite floating-point error.

    Returns
    -------
    pandas.DataFrame
        One row per unordered pair of measures (``measure_a`` before
        ``measure_b`` in the input order; no measure with itself, no reversed
        duplicate), columns:

        ``measure_a``, ``measure_b``
            The two measures.
        ``n_systems``
            Number of systems ranked.
        ``tau``, ``tau_pvalue``
            Kendall's tau-b and its two-sided p-value: exact up to
            9 systems (``EXACT_MAX_SYSTEMS``), ties included (the
            permutation distribution over all :math:`n!` orders,
            ``exact_rank_correlation_pvalues``); above, scipy's
            ``kendalltau`` (exact without ties, otherwise the normal
            approximation).
        ``tau_ap``, ``tau_ap_reverse``
            tau_AP is asymmetric, so both directions are given: ``tau_ap`` of
            the ranking by ``measure_b`` against the ranking by ``measure_a``
            as truth, ``tau_ap_reverse`` with ``measure_b`` as truth.
        ``tau_ap_symmetric``
            Mean of tau_AP in both directions.
        ``rho``, ``rho_pvalue``
            Spearman's rho and its two-sided p-value: exact up to 9 systems
            (the permutation distribution, as for tau; for 5 systems in
            perfect agreement 2/120 = 0.0167, where the t approximation of
            ``scipy.stats.spearmanr`` gives 1.4e-24); above, scipy's t
            approximation.
        ``n_pairs``
            Number of system pairs, :math:`N(N-1)/2`.
        ``n_swaps``
            System pairs that the two measures order strictly oppositely.
        ``n_ties_a``, ``n_ties_b``
            System pairs tied under ``measure_a`` and under ``measure_b``.

    Notes
    -----
    ``frame.attrs`` holds ``measures`` (all of them, in order) and
    ``n_ties`` (tied system pairs per measure), from which
    :func:`agreement_matrix` builds the full square matrix.

    The p-values treat the systems as a random sample and ignore that their
    scores are computed on the same queries; read them as descriptive. The
    matrix view is :func:`agreement_matrix`; the swapped pairs themselves are
    listed by :func:`swapped_pairs`.

    Examples
    --------
    >>> import pandas as pd
    >>> from mrrstats import ranking_agreement
    >>> rr = pd.DataFrame({"s1": [1.0, 0.5, 1.0], "s2": [0.5, 0.5, 1.0],
    ...                    "s3": [1.0, 1.0, 1.0]})
    >>> ap = pd.DataFrame({"s1": [0.9, 0.4, 0.8], "s2": [0.6, 0.2, 0.7],
    ...                    "s3": [0.5, 0.6, 0.3]})
    >>> agree = ranking_agreement({"RR": rr, "AP": ap})
    >>> row = agree.query("measure_a == 'RR' and measure_b == 'AP'").iloc[0]
    >>> print(round(row.tau, 4), row.n_swaps)
    -0.3333 2
    """
    frames, ties, decimals = _ranking_agreement_iv(scores, ties, decimals)
    means = _means(frames, decimals)
    names = list(frames)
    n = means.shape[0]
    signs = {m: _pair_signs(means[m].to_numpy()) for m in names}
    rows = []
    for i, a in enumerate(names):
        x = means[a].to_numpy()
        for b in names[i + 1:]:
            y = means[b].to_numpy()
            kt = stats.kendalltau(x, y, variant="b")
            tau_p = float(kt.pvalue)
            if np.ptp(x) == 0 or np.ptp(y) == 0:
                rho, rho_p = np.nan, np.nan
            else:
                sr = stats.spearmanr(x, y)
                rho, rho_p = float(sr.statistic), float(sr.pvalue)
                if n <= EXACT_MAX_SYSTEMS:  # exact where exact is cheap (9! orders)
                    tau_p, rho_p = exact_rank_correlation_pvalues(x, y)
            tied_a, tied_b = np.unique(x).size < n, np.unique(y).size < n
            # tau_AP,a needs an untied truth under ties="accuracy"
            tap = np.nan if ties == "accuracy" and tied_a else tau_ap(x, y, ties=ties)
            tap_rev = np.nan if ties == "accuracy" and tied_b else tau_ap(y, x, ties=ties)
            if ties == "accuracy" and (tied_a or tied_b):
                tap_sym = np.nan
            else:
                tap_sym = tau_ap(x, y, ties=ties, symmetric=True)
            sa, sb = signs[a], signs[b]
            rows.append({
                "measure_a": a, "measure_b": b, "n_systems": n,
                "tau": float(kt.statistic), "tau_pvalue": tau_p,
                "tau_ap": tap, "tau_ap_reverse": tap_rev, "tau_ap_symmetric": tap_sym,
                "rho": rho, "rho_pvalue": rho_p,
                "n_pairs": int(sa.size), "n_swaps": int(np.sum(sa * sb < 0)),
                "n_ties_a": int(np.sum(sa == 0)), "n_ties_b": int(np.sum(sb == 0)),
            })
    frame = pd.DataFrame(rows, columns=_AGREEMENT_COLUMNS)
    frame.attrs["measures"] = list(names)
    frame.attrs["n_ties"] = {m: int(np.sum(signs[m] == 0)) for m in names}
    return pd.DataFrame(rows)


_MATRIX_VALUES = ("tau", "tau_pvalue", "tau_ap", "tau_ap_symmetric", "rho", "rho_pvalue",
                  "n_swaps", "n_ties_a", "n_ties_b")


def _agreement_matrix_iv(agreement, value):
    if not isinstance(agreement, pd.DataFrame) or not {"measure_a", "measure_b"} <= set(
            agreement.columns):
        raise ParameterTypeError("`agreement` must be the DataFrame returned by ranking_agreement")
    if not isinstance(value, str) or value not in _MATRIX_VALUES or \
            value not in agreement.columns:
        raise ParameterError(f"`value` must be one of {_MATRIX_VALUES}, got {value!r}")
    return agreement, value


def agreement_matrix(agreement: pd.DataFrame, value: str = "tau") -> pd.DataFrame:
    """Measure-by-measure matrix of one column of :func:`ranking_agreement`.

    Parameters
    ----------
    agreement : pandas.DataFrame
        The output of :func:`ranking_agreement`.
    value : str
        Column to show: ``"tau"``, ``"tau_pvalue"``, ``"tau_ap"``,
        ``"tau_ap_symmetric"``, ``"rho"``, ``"rho_pvalue"``, ``"n_swaps"``,
        ``"n_ties_a"`` or ``"n_ties_b"``.

    Returns
    -------
    pandas.DataFrame
        Rows = ``measure_a``, columns = ``measure_b``, every measure in the
        order of the input, filled from the unordered pairs (the diagonal
        compares a ranking with itself: 1 for correlations, 0 swaps, NaN
        p-values). For ``"tau_ap"`` the rows are the truth and the columns the
        evaluated rankings, so the matrix is not symmetric.

    Examples
    --------
    >>> import pandas as pd
    >>> from mrrstats import agreement_matrix, ranking_agreement
    >>> rr = pd.DataFrame({"s1": [1.0, 0.5], "s2": [0.5, 0.5], "s3": [1.0, 1.0]})
    >>> ap = pd.DataFrame({"s1": [0.9, 0.4], "s2": [0.6, 0.2], "s3": [0.5, 0.6]})
    >>> m = agreement_matrix(ranking_agreement({"RR": rr, "AP": ap}), "n_swaps")
    >>> print(m.rename_axis(index=None, columns=None))
        RR  AP
    RR   0   1
    AP   1   0
    """
    agreement, value = _agreement_matrix_iv(agreement, value)
    order = list(agreement.attrs.get("measures", []))
    for col in ("measure_a", "measure_b"):
        order += [m for m in dict.fromkeys(agreement[col]) if m not in order]
    n_ties = dict(agreement.attrs.get("n_ties", {}))
    for r in agreement.itertuples(index=False):
        n_ties.setdefault(r.measure_a, r.n_ties_a)
        n_ties.setdefault(r.measure_b, r.n_ties_b)
    # the diagonal: a ranking against itself
    diagonal = {"tau": 1.0, "tau_ap": 1.0, "tau_ap_symmetric": 1.0, "rho": 1.0,
                "n_swaps": 0, "tau_pvalue": np.nan, "rho_pvalue": np.nan}
    matrix = pd.DataFrame(np.nan, index=pd.Index(order, name="measure_a"),
                          columns=pd.Index(order, name="measure_b"))
    for m in order:
        if value in ("n_ties_a", "n_ties_b"):
            matrix.loc[m, m] = n_ties.get(m, np.nan)
        else:
            matrix.loc[m, m] = diagonal[value]
    for r in agreement.to_dict("records"):
        a, b = r["measure_a"], r["measure_b"]
        if value == "tau_ap":      # rows are the truth
            matrix.loc[a, b], matrix.loc[b, a] = r["tau_ap"], r["tau_ap_reverse"]
        elif value in ("n_ties_a", "n_ties_b"):
            other = "n_ties_b" if value == "n_ties_a" else "n_ties_a"
            matrix.loc[a, b], matrix.loc[b, a] = r[value], r[other]
        else:
            matrix.loc[a, b] = matrix.loc[b, a] = r[value]
    if value in ("n_swaps", "n_ties_a", "n_ties_b") and not matrix.isna().to_numpy().any():
        matrix = matrix.astype(np.int64)
    return matrix


def _swapped_pairs_iv(scores, measure_a, measure_b, decimals):
    frames = aligned_score_frames(scores)
    measure_name_iv(frames, measure_a, "measure_a")
    measure_name_iv(frames, measure_b, "measure_b")
    return frames, _check_decimals(decimals)


def swapped_pairs(scores: Scores, measure_a: str, measure_b: str, *,
                  decimals: int | None = 12) -> pd.DataFrame:
    """The system pairs whose order swaps between two measures.

    Parameters
    ----------
    scores : Evaluation or mapping
        Per-query scores (see the module documentation).
    measure_a, measure_b : str
        The two measures to compare.
    decimals : int or None, keyword-only
        Rounding of the system means before comparing them (see
        :func:`ranking_agreement`).

    Returns
    -------
    pandas.DataFrame
        One row per swapped pair, columns ``system_1``, ``system_2`` (the
        system better under ``measure_a`` first), ``mean_a_1``, ``mean_a_2``,
        ``mean_b_1``, ``mean_b_2``, ``diff_a`` (``mean_a_1 - mean_a_2``, > 0)
        and ``diff_b`` (``mean_b_1 - mean_b_2``, < 0), sorted by ``diff_a``
        descending (the most surprising swaps first). Pairs tied under either
        measure are not swaps. ``frame.attrs`` holds ``measure_a`` and
        ``measure_b``.

    Examples
    --------
    >>> import pandas as pd
    >>> from mrrstats import swapped_pairs
    >>> rr = pd.DataFrame({"s1": [1.0, 0.5], "s2": [0.5, 0.5], "s3": [1.0, 1.0]})
    >>> ap = pd.DataFrame({"s1": [0.9, 0.4], "s2": [0.6, 0.2], "s3": [0.5, 0.6]})
    >>> print(swapped_pairs({"RR": rr, "AP": ap}, "RR", "AP")[["system_1", "system_2"]])
      system_1 system_2
    0       s3       s1
    """
    frames, decimals = _swapped_pairs_iv(scores, measure_a, measure_b, decimals)
    means = _means(frames, decimals)
    systems = means.index.to_numpy()
    xa = means[measure_a].to_numpy()
    xb = means[measure_b].to_numpy()
    i, j = np.triu_indices(systems.size, k=1)
    da, db = xa[i] - xa[j], xb[i] - xb[j]
    hit = da * db < 0
    i, j, da = i[hit], j[hit], da[hit]
    first = np.where(da > 0, i, j)
    second = np.where(da > 0, j, i)
    out = pd.DataFrame({
        "system_1": systems[first], "system_2": systems[second],
        "mean_a_1": xa[first], "mean_a_2": xa[second],
        "mean_b_1": xb[first], "mean_b_2": xb[second],
    })
    out["diff_a"] = out["mean_a_1"] - out["mean_a_2"]
    out["diff_b"] = out["mean_b_1"] - out["mean_b_2"]
    out = out.sort_values(["diff_a", "system_1", "system_2"],
                          ascending=[False, True, True]).reset_index(drop=True)
    out.attrs.update(measure_a=measure_a, measure_b=measure_b)
    return out


# --------------------------------------------------------------------------
# per-query agreement
# --------------------------------------------------------------------------

def _corr(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson correlation; NaN when either input is constant."""
    x = x - x.mean()
    y = y - y.mean()
    den = np.sqrt(np.dot(x, x) * np.dot(y, y))
    if den == 0:
        return float("nan")
    return float(np.clip(np.dot(x, y) / den, -1.0, 1.0))


def _per_query_correlation_iv(scores, by):
    frames = aligned_score_frames(scores)
    if not isinstance(by, str) or by not in ("system", "pooled"):
        raise ParameterError(f"`by` must be 'system' or 'pooled', got {by!r}")
    return frames, by


def per_query_correlation(scores: Scores, *, by: str = "system") -> pd.DataFrame:
    """Correlation of the per-query values of pairs of measures.

    Parameters
    ----------
    scores : Evaluation or mapping
        Per-query scores (see the module documentation).
    by : {"system", "pooled"}, keyword-only
        ``"system"``: one correlation per system over its queries;
        ``"pooled"``: one correlation over all (system, query) values.

    Returns
    -------
    pandas.DataFrame
        One row per unordered pair of measures (and system), columns
        ``measure_a``, ``measure_b``, ``system`` (``"(pooled)"`` when
        ``by="pooled"``), ``n_values`` (the values correlated: the system's queries,
        or every (system, query) pair when pooled), ``pearson``, ``spearman``
        (Pearson on average ranks) and ``kendall`` (tau-b, scipy). A
        correlation is NaN when either measure is constant over the values
        (e.g. a system with RR = 1 on every query).

    Examples
    --------
    >>> import pandas as pd
    >>> from mrrstats import per_query_correlation
    >>> rr = pd.DataFrame({"s1": [1.0, 0.5, 0.25], "s2": [1.0, 1.0, 0.5]})
    >>> ap = pd.DataFrame({"s1": [0.6, 0.5, 0.1], "s2": [0.9, 0.3, 0.4]})
    >>> out = per_query_correlation({"RR": rr, "AP": ap})
    >>> print(out[["system", "spearman"]].round(3).to_string(index=False))
    system  spearman
        s1       1.0
        s2       0.0
    """
    frames, by = _per_query_correlation_iv(scores, by)
    names = list(frames)
    first = frames[names[0]]
    groups = ([("(pooled)", slice(None))] if by == "pooled"
              else [(s, s) for s in first.columns])
    rows = []
    for k, a in enumerate(names):
        for b in names[k + 1:]:
            for label, col in groups:
                x = np.ravel(frames[a].loc[:, col].to_numpy())
                y = np.ravel(frames[b].loc[:, col].to_numpy())
                rows.append({
                    "measure_a": a, "measure_b": b, "system": label, "n_values": x.size,
                    "pearson": _corr(x, y),
                    "spearman": _corr(stats.rankdata(x), stats.rankdata(y)),
                    "kendall": float(stats.kendalltau(x, y, variant="b").statistic),
                })
    return pd.DataFrame(rows, columns=["measure_a", "measure_b", "system", "n_values", "pearson",
                                       "spearman", "kendall"])


def _perfect_rr_disagreement_iv(scores, rr, others, atol):
    frames = aligned_score_frames(scores)
    measure_name_iv(frames, rr, "rr")
    if others is None:
        others = [m for m in frames if m != rr]
    elif isinstance(others, str):
        others = [others]
    if not isinstance(others, list | tuple):
        raise ParameterTypeError(f"`others` must be a measure name or a list of them, got "
                                 f"{type(others).__name__}", name="others")
    others = list(others)
    for m in others:
        if not isinstance(m, str) or m not in frames or m == rr:
            raise ParameterError(f"`others` must name measures of `scores` other than {rr!r}, "
                             f"got {m!r}")
    if not others:
        raise ParameterError("`others` is empty: `scores` needs a measure besides RR")
    atol = _check_atol(atol)
    return frames, others, atol


def perfect_rr_disagreement(scores: Scores, *, rr: str = "RR", others: Sequence[str] | None = None,
                            atol: float = 1e-9) -> pd.DataFrame:
    """How often RR says "perfect" (RR = 1) while another measure says otherwise.

    RR = 1 whenever the first document is relevant, whatever happens below it;
    AP and nDCG are 1 only if the whole ranking is ideal. This counts, per
    system, the queries with RR = 1 on which another measure is below 1.

    Parameters
    ----------
    scores : Evaluation or mapping
        Per-query scores including the RR measure (see the module
        documentation).
    rr : str, keyword-only
        Name of the RR measure in ``scores`` (default ``"RR"``).
    others : sequence of str or None, keyword-only
        Measures to compare with; default every other measure.
    atol : float, keyword-only
        A value counts as 1 when it is ``>= 1 - atol`` (default 1e-9, for
        floating-point round-off).

    Returns
    -------
    pandas.DataFrame
        One row per (measure, system), columns ``measure``, ``system``,
        ``n_queries``, ``n_rr_one`` (queries with RR = 1), ``n_other_below_one``
        (of those, queries where ``measure`` < 1), ``share_below_one``
        (``n_other_below_one / n_rr_one``, NaN when ``n_rr_one`` is 0) and
        ``mean_other_when_rr_one`` (mean of ``measure`` over the RR = 1
        queries).

    Notes
    -----
    A cutoff measure such as P@10 is below 1 whenever fewer than 10 relevant
    documents exist, so it disagrees almost always; compare RR with AP and
    nDCG to see what RR hides.

    Examples
    --------
    >>> import pandas as pd
    >>> from mrrstats import perfect_rr_disagreement
    >>> rr = pd.DataFrame({"s1": [1.0, 1.0, 0.5], "s2": [1.0, 0.2, 1.0]})
    >>> ap = pd.DataFrame({"s1": [1.0, 0.7, 0.4], "s2": [0.5, 0.1, 1.0]})
    >>> out = perfect_rr_disagreement({"RR": rr, "AP": ap})
    >>> print(out[["system", "n_rr_one", "n_other_below_one"]].to_string(index=False))
    system  n_rr_one  n_other_below_one
        s1         2                  1
        s2         2                  1
    """
    frames, others, atol = _perfect_rr_disagreement_iv(scores, rr, others, atol)
    one = frames[rr] >= 1.0 - atol
    rows = []
    for m in others:
        other = frames[m]
        below = one & (other < 1.0 - atol)
        n_one = one.sum(axis=0)
        n_below = below.sum(axis=0)
        mean_other = other.where(one).mean(axis=0)
        for s in other.columns:
            rows.append({
                "measure": m, "system": s, "n_queries": int(other.shape[0]),
                "n_rr_one": int(n_one[s]), "n_other_below_one": int(n_below[s]),
                "share_below_one": (n_below[s] / n_one[s]) if n_one[s] else np.nan,
                "mean_other_when_rr_one": float(mean_other[s]),
            })
    return pd.DataFrame(rows)
