r"""Any measure of one query under a random permutation: exact enumeration or Monte Carlo.

RR, Success@k and the mean rank have closed forms (:mod:`mrrstats.baselines.first_rank`);
AP and nDCG have no usable closed form for their variance. :func:`random_metric_moments`
scores every distinct arrangement of a query's grades when there are few enough (the
multinomial coefficient :math:`N! / \prod_g c_g!`), or a seeded sample of random
permutations otherwise, and its result says which (``method``) and how precise it is
(``standard_error``).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import special

from ..defaults import CONFIDENCE_LEVEL, N_RESAMPLES
from ..deprecation import renamed_attribute
from ..errors import ParameterError
from ..metrics.kernels import compute_measures
from ..metrics.measures import measures_iv
from ..model.ranking import Judged
from ..stats import ConfidenceInterval
from ..validation import (
    MAX_RESAMPLES,
    array_iv,
    confidence_level_iv,
    int_iv,
    n_resamples_iv,
    resource_iv,
    rng_iv,
)
from .rank_law import method_iv

if TYPE_CHECKING:
    from typing import Literal

    from numpy.typing import ArrayLike

    from .._typing import Seed

__all__ = ["RandomMetricMoments", "random_metric_moments"]

_EXACT = "exact enumeration"


@dataclass(frozen=True)
class RandomMetricMoments:
    """Mean and variance of a measure of one query under random ranking.

    Attributes
    ----------
    measure : str
        Canonical measure name (e.g. ``"AP"``, ``"nDCG@10"``).
    mean : float
        Expected value under a uniformly random permutation of the candidates.
    variance : float
        Its variance (population variance over permutations).
    method : str
        ``"exact enumeration"`` (every distinct arrangement of the grades,
        each equally likely: ``mean`` and ``variance`` are exact up to
        rounding) or ``"monte-carlo"`` (an estimate from ``n_resamples``
        seeded random permutations).
    n_arrangements : int or float
        Number of distinct arrangements of the grades (the multinomial
        coefficient), whether or not they were enumerated (``inf`` when it
        exceeds ``1e304``).
    n_resamples : int or None
        Number of random permutations (Monte Carlo only).
    standard_error : float
        Standard error of ``mean``: 0 for exact enumeration, the sample
        standard deviation over ``sqrt(n_resamples)`` for Monte Carlo
        (``mean_standard_error`` before 0.2).
    seed : int or None
        The seed of the permutations: the integer given as ``rng``, or the one drawn
        when ``rng=None`` (pass it back as ``rng=`` to get the same numbers); None when
        a Generator was given or nothing was drawn (exact enumeration).
    """

    measure: str
    mean: float
    variance: float
    method: str
    n_arrangements: int
    n_resamples: int | None
    standard_error: float
    seed: int | None = None

    mean_standard_error = renamed_attribute("standard_error")

    @property
    def std(self) -> float:
        """Standard deviation of the measure under random ranking."""
        return math.sqrt(self.variance)

    @property
    def is_exact(self) -> bool:
        """True for exact enumeration."""
        return self.method == _EXACT

    def confidence_interval(self,
                            confidence_level: float = CONFIDENCE_LEVEL) -> ConfidenceInterval:
        r"""Interval for the expected value :attr:`mean` of the measure under random ranking.

        Exact enumeration: the point ``[mean, mean]`` (``method="exact"``). Monte Carlo:
        the normal interval :math:`\bar x \pm z_{1-\alpha/2}\,\mathrm{SE}` of a mean of
        ``n_resamples`` independent draws (``method="normal"``).
        """
        cl = confidence_level_iv(confidence_level)
        if self.is_exact:
            return ConfidenceInterval(self.mean, self.mean, cl, "exact")
        half = float(special.ndtri(0.5 + cl / 2)) * self.standard_error
        return ConfidenceInterval(self.mean - half, self.mean + half, cl, "normal")

    def to_frame(self) -> pd.DataFrame:
        """One row: ``measure, mean, variance, std, standard_error, method, n_arrangements,
        n_resamples, seed``."""
        return pd.DataFrame([{"measure": self.measure, "mean": self.mean,
                              "variance": self.variance, "std": self.std,
                              "standard_error": self.standard_error, "method": self.method,
                              "n_arrangements": self.n_arrangements,
                              "n_resamples": self.n_resamples, "seed": self.seed}])


def _multiset_arrangements(values: np.ndarray) -> np.ndarray:
    """All distinct orderings of the multiset ``values`` (rows)."""
    N = values.size
    uniq, counts = np.unique(values, return_counts=True)
    rows = [np.full(N, np.nan)]
    free = [np.arange(N)]
    for v, c in zip(uniq[:-1], counts[:-1], strict=True):
        new_rows, new_free = [], []
        for row, fr in zip(rows, free, strict=True):
            for pos in itertools.combinations(range(fr.size), int(c)):
                r = row.copy()
                sel = fr[list(pos)]
                r[sel] = v
                new_rows.append(r)
                new_free.append(np.delete(fr, list(pos)))
        rows, free = new_rows, new_free
    out = np.array(rows)
    for r, fr in zip(out, free, strict=True):
        r[fr] = uniq[-1]
    return out


def _n_arrangements(g: np.ndarray):
    """The multinomial coefficient of the grade counts (``inf`` beyond about 1e304)."""
    _, counts = np.unique(g, return_counts=True)
    log_arr = float(special.gammaln(g.size + 1) - special.gammaln(counts + 1).sum())
    if log_arr >= 700:
        return math.inf
    n_arr = math.factorial(g.size)
    for c in counts.tolist():
        n_arr //= math.factorial(c)
    return n_arr


def _random_metric_moments_iv(grades, measure, judged, rel, method, n_resamples,
                              max_arrangements, batch):
    g = array_iv(grades, "grades", finite=False, min_size=0)
    if g.size == 0:
        raise ParameterError("`grades` must hold at least one candidate")
    g = np.where(np.isnan(g), 0.0, g)  # unjudged: no gain, not relevant
    if not np.all(np.isfinite(g)) or np.any(g != np.round(g)):
        raise ParameterError("`grades` must be whole numbers (NaN means unjudged)")
    ms = measures_iv(measure, "measure")
    if len(ms) != 1:
        raise ParameterError(f"`measure` must name one measure, got {measure!r}")
    if ms[0].name == "Rank":
        raise ParameterError("`measure` 'Rank' has closed forms: use expected_rank/variance_rank")
    if judged is None:
        j = g.copy()
    else:
        j = array_iv(judged, "judged", finite=False, min_size=0)
        if not np.all(np.isfinite(j)) or np.any(j != np.round(j)):
            raise ParameterError("`judged` grades must be whole numbers")
    if isinstance(rel, bool) or not isinstance(rel, (int, np.integer)) or rel < 1:
        raise ParameterError(f"`rel` must be an integer >= 1, got {rel!r}")
    method = method_iv(method)
    n_resamples_iv(n_resamples, minimum=2)
    int_iv(max_arrangements, "max_arrangements", minimum=1, maximum=MAX_RESAMPLES)
    int_iv(batch, "batch", minimum=1, allow_none=True)
    return g, ms[0], j, int(rel), method


def _score_permuted(rows: np.ndarray, measure, judged: np.ndarray, rel: int) -> np.ndarray:
    """The measure of every row of ``rows`` (each a ranking of grades)."""
    n, N = rows.shape
    jg = np.sort(judged.astype(np.int64))[::-1]
    offsets = np.arange(n + 1, dtype=np.int64) * N
    joff = np.arange(n + 1, dtype=np.int64) * jg.size
    J = Judged(np.arange(n).astype(object), joff, np.tile(jg, n))
    out = compute_measures([measure], offsets=offsets, grades=rows.ravel(), judged=J, rel=rel)
    return out[str(measure)]


def random_metric_moments(grades: ArrayLike, measure: str = "AP", *,
                          judged: ArrayLike | None = None, rel: int = 1,
                          method: Literal["auto", "exact", "monte-carlo"] = "auto",
                          n_resamples: int = N_RESAMPLES, max_arrangements: int = 100_000,
                          batch: int | None = None, rng: Seed = None) -> RandomMetricMoments:
    r"""Mean and variance of any measure of one query under a random permutation.

    The ``N`` candidates with the given ``grades`` are put in uniformly random
    order and scored with the trec_eval definitions of :mod:`mrrstats.metrics`.

    Parameters
    ----------
    grades : array_like
        Grade of each of the ``N`` candidates (NaN: unjudged, i.e. not
        relevant and no gain).
    measure : str, optional
        Canonical measure name: ``"AP"`` (default), ``"AP@k"``, ``"nDCG"``,
        ``"nDCG@k"``, ``"RR"``, ``"P@k"``, ``"Success@k"``, ``"R@k"`` ...
    judged : array_like, optional, keyword-only
        All judged grades of the query, for AP's number of relevant documents
        and the ideal DCG; default ``grades`` (a random ranking of the judged
        pool). Pass the query's qrels grades when permuting a retrieved list.
    rel : int, keyword-only
        Minimum relevant grade (default 1).
    method : {"auto", "exact", "monte-carlo"}, keyword-only
        ``"exact"`` enumerates every distinct arrangement of the grades
        (there are :math:`N! / \prod_g c_g!` for grade counts :math:`c_g`);
        ``"monte-carlo"`` scores ``n_resamples`` random permutations;
        ``"auto"`` (default) enumerates when there are at most
        ``max_arrangements`` arrangements.
    n_resamples : int, keyword-only
        Number of random permutations for Monte Carlo (default 10,000,
        :data:`mrrstats.defaults.N_RESAMPLES`).
    max_arrangements : int, keyword-only
        Largest enumeration ``"auto"`` attempts (default 100,000).
    batch : int, optional, keyword-only
        Permutations scored per batch (memory bound); the result does not
        depend on it.
    rng : None, int or numpy.random.Generator, keyword-only
        Seed of the Monte-Carlo permutations; the seed used is recorded in the
        result's ``seed``.

    Returns
    -------
    RandomMetricMoments
        Its ``method`` says whether the values are exact or estimated.

    Notes
    -----
    Monte-Carlo permutations are ``argsort`` of i.i.d. uniforms drawn row by
    row, so the same seed gives the same permutations whatever ``batch``. The
    work is NumPy's (the measures' kernels score each batch of permutations);
    there is no ``workers`` option.

    Examples
    --------
    >>> from mrrstats import random_metric_moments
    >>> res = random_metric_moments([1, 1, 0, 0, 0], "AP")
    >>> res.method, round(res.mean, 4)
    ('exact enumeration', 0.5925)
    >>> res = random_metric_moments([2, 1] + [0] * 98, "nDCG@10", method="monte-carlo",
    ...                             n_resamples=2000, rng=1)
    >>> res.method, abs(res.mean - 0.04) < 5 * res.standard_error + 0.01, res.seed
    ('monte-carlo', True, 1)
    """
    g, m, judged_g, rel, method = _random_metric_moments_iv(
        grades, measure, judged, rel, method, n_resamples, max_arrangements, batch)
    gen, seed = rng_iv(rng)
    N = g.size
    n_arr = _n_arrangements(g)
    if method == "exact" or (method == "auto" and n_arr <= max_arrangements):
        if n_arr > max(max_arrangements, 1_000_000):
            raise ParameterError(f"{n_arr} arrangements are too many to enumerate; use "
                             "method='monte-carlo'")
        vals = _score_permuted(_multiset_arrangements(g), m, judged_g, rel)
        mean = float(np.mean(vals))
        var = float(np.mean((vals - mean) ** 2))
        return RandomMetricMoments(str(m), mean, var, _EXACT, n_arr, None, 0.0, None)
    B = int(n_resamples)
    b = int(batch) if batch is not None else max(1, min(B, (1 << 20) // N))
    resource_iv(8 * B, "n_resamples", what=f"{B:,} resamples")
    vals = np.empty(B)
    for done in range(0, B, b):
        nb = min(b, B - done)
        perm = np.argsort(gen.random((nb, N)), axis=1, kind="stable")
        vals[done:done + nb] = _score_permuted(g[perm], m, judged_g, rel)
    mean = float(np.mean(vals))
    var = float(np.var(vals, ddof=1))
    return RandomMetricMoments(str(m), mean, var, "monte-carlo", n_arr, B, math.sqrt(var / B),
                               seed)
