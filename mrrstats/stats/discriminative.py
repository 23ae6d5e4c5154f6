r"""Sakai's discriminative power of a measure: the share of system pairs found different."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..defaults import ALPHA, ALTERNATIVE, MISSING, N_RESAMPLES, TEST, WORKERS
from ..deprecation import renamed_parameters
from .methods import MethodsText
from .methods_readers import methods_text
from .pairwise import pairwise_tests
from .pairwise_result import PairwiseResult

if TYPE_CHECKING:
    from .._typing import Alternative, Correction, Missing, Scores, Seed

__all__ = ["DiscriminativePowerResult", "discriminative_power"]


@dataclass(frozen=True, eq=False)
class DiscriminativePowerResult:
    """Result of :func:`discriminative_power`.

    Attributes
    ----------
    discriminative_power : float
        Share of system pairs with (adjusted) p-value :math:`\\le` ``alpha``.
    n_significant, n_pairs : int
    min_significant_difference : float
        Smallest :math:`|\\bar x_a - \\bar x_b|` among the significant pairs
        (NaN when none is significant).
    achieved_significance_levels : ndarray
        The (adjusted) p-values of all pairs sorted ascending: Sakai's ASL curve.
    alpha : float
    test, correction : str
    n_resamples : int or None
        Resamples of the test (None for analytic tests).
    seed : int or None
        Seed or entropy that reproduces the result (None when a Generator was passed).
    measure : str or None
    pairwise : PairwiseResult
        The underlying all-pairs result.
    """

    discriminative_power: float
    n_significant: int
    n_pairs: int
    min_significant_difference: float
    achieved_significance_levels: np.ndarray = field(repr=False)
    alpha: float
    test: str
    correction: str
    pairwise: PairwiseResult = field(repr=False)
    n_resamples: int | None = None
    seed: int | None = None
    measure: str | None = None

    def methods(self) -> MethodsText:
        """The methods paragraph and its references (:mod:`mrrstats.stats.methods`)."""
        return methods_text(self)

    def to_frame(self) -> pd.DataFrame:
        """One row: the measure, test, correction, alpha, counts, power, the smallest
        significant difference, resamples and seed (rows of several measures concatenate
        into a table)."""
        return pd.DataFrame([{
            "measure": self.measure, "test": self.test, "correction": self.correction,
            "alpha": self.alpha, "n_pairs": self.n_pairs, "n_significant": self.n_significant,
            "discriminative_power": self.discriminative_power,
            "min_significant_difference": self.min_significant_difference,
            "n_resamples": self.n_resamples, "seed": self.seed}])


@renamed_parameters(zero_tolerance="atol")
def discriminative_power(scores: Scores, *, test: str = TEST, alpha: float = ALPHA,
                         correction: Correction | None = None,
                         alternative: Alternative = ALTERNATIVE, n_resamples: int = N_RESAMPLES,
                         atol: float = 0.0, batch: int | None = None, missing: Missing = MISSING,
                         workers: int = WORKERS, rng: Seed = None) -> DiscriminativePowerResult:
    r"""Sakai's discriminative power of a measure: the share of significant pairs.

    Parameters
    ----------
    scores : DataFrame or array_like
        Per-query scores of one measure: rows = queries, columns = systems,
        or ``(n_systems, n_queries)``.
    test : str, keyword-only
        Any test of :func:`pairwise_tests` (default the randomization test).
    alpha : float, keyword-only
    correction : {"single-step", "holm", "bonferroni", "bh", "none"} or None, keyword-only
        Multiplicity adjustment (default none, as in Sakai 2006). Ignored by
        ``"tukey"``, ``"maxt"``, ``"anova-hsd"`` and ``"dunnett"``.
    alternative, n_resamples, atol, batch, missing, workers, rng
        As in :func:`pairwise_tests`.

    Returns
    -------
    DiscriminativePowerResult

    Notes
    -----
    Discriminative power is :math:`\#\{(a,b) : p_{ab} \le \alpha\} /
    \binom{k}{2}`; the smallest significant difference is
    :math:`\min\{|\bar x_a - \bar x_b| : p_{ab} \le \alpha\}`. No confidence
    intervals are computed.

    References
    ----------
    .. [1] Sakai, T. (2006). Evaluating evaluation metrics based on the
           bootstrap. SIGIR.

    Examples
    --------
    >>> import numpy as np, mrrstats
    >>> x = np.random.default_rng(1).random((4, 25)) + np.array([[0], [0], [0], [0.4]])
    >>> res = mrrstats.discriminative_power(x, test="t")
    >>> print(res.n_significant, res.n_pairs, round(res.discriminative_power, 3))
    3 6 0.5
    """
    correction = "none" if correction is None else correction
    pw = pairwise_tests(scores, test=test, correction=correction, alpha=alpha,
                        alternative=alternative, n_resamples=n_resamples, ci="none",
                        atol=atol, batch=batch, missing=missing, workers=workers, rng=rng)
    sig = pw.reject
    n_sig = int(sig.sum())
    msd = float(np.abs(pw.difference[sig]).min()) if n_sig else math.nan
    return DiscriminativePowerResult(n_sig / len(pw) if len(pw) else math.nan, n_sig, len(pw),
                                     msd, np.sort(pw.pvalue_adjusted), pw.alpha, pw.test,
                                     pw.correction, pw, n_resamples=pw.n_resamples,
                                     seed=pw.seed, measure=pw.measure)
