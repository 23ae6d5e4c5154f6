"""Do two measures lead to the same significance decisions? Decision agreement and
discriminative power.

:func:`decision_agreement` tests every pair of systems under two measures with the
same resamples and compares the decisions; :func:`discriminative_power_table` puts the
discriminative power of every measure side by side (Sakai, 2006). Both run the
paired tests of :mod:`mrrstats.stats` (``workers``, a recorded ``seed``) on the
``scores`` described in :mod:`mrrstats.agreement.measures`.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..defaults import ALPHA, CORRECTION, N_RESAMPLES, TEST, WORKERS
from ..errors import ParameterError
from ..stats import discriminative_power, pairwise_tests
from ..stats.methods_readers import methods_text
from ..validation import alpha_iv, rng_iv
from .measures import aligned_score_frames, measure_name_iv

if TYPE_CHECKING:
    from .._typing import Correction, Scores, Seed
    from ..stats.methods import MethodsText

__all__ = ["DecisionAgreement", "decision_agreement", "discriminative_power_table"]

#: Whether mrrstats.discriminative_power takes `workers` (the resampling functions of
#: stats/ are gaining it); until it does, its engine runs on its default threads.
_TAKES_WORKERS = "workers" in inspect.signature(discriminative_power).parameters  # type: ignore[has-type]

_OUTCOMES = ("both significant", "neither significant", "significant only under a",
             "significant only under b", "reversed")


@dataclass(frozen=True, eq=False)
class DecisionAgreement:
    """Whether two measures lead to the same decisions on every pair of systems.

    Attributes
    ----------
    measure_a, measure_b : str
        The two measures.
    pairs : pandas.DataFrame
        One row per pair of systems (see :func:`decision_agreement`).
    n_pairs : int
        Number of system pairs.
    n_same_direction : int
        Pairs whose mean difference has the same sign under both measures.
    n_significant_a, n_significant_b : int
        Pairs significant under each measure (after the correction).
    n_both : int
        Pairs significant under both, in the same direction.
    n_only_a, n_only_b : int
        Pairs significant under one measure only.
    n_reversed : int
        Pairs significant under both measures in opposite directions.
    flip_share : float
        Share of the significant decisions that change with the measure:
        ``(n_only_a + n_only_b + n_reversed) / (pairs significant under at
        least one measure)``; NaN when no pair is significant.
    test, correction : str
        The test and the multiple-comparison correction used.
    alpha : float
        Significance level.
    n_resamples : int or None
        Resamples of the test (None for the t-test).
    seed : int or None
        The seed of the call: the integer given as ``rng``, or the one drawn when
        ``rng=None`` (pass it back as ``rng=`` to get the same decisions); None when
        a Generator was given. Both measures see the same resamples.
    """

    measure_a: str
    measure_b: str
    pairs: pd.DataFrame = field(repr=False)
    n_pairs: int
    n_same_direction: int
    n_significant_a: int
    n_significant_b: int
    n_both: int
    n_only_a: int
    n_only_b: int
    n_reversed: int
    flip_share: float
    test: str
    correction: str
    alpha: float
    n_resamples: int | None
    seed: int | None

    def methods(self) -> MethodsText:
        """The methods paragraph and its references (:mod:`mrrstats.stats.methods`)."""
        return methods_text(self)

    def to_frame(self) -> pd.DataFrame:
        """The per-pair table (a copy of :attr:`pairs`)."""
        return self.pairs.copy()

    def summary(self) -> pd.DataFrame:
        """One-row table of the counts, the flip share and the settings."""
        keys = ("measure_a", "measure_b", "n_pairs", "n_same_direction", "n_significant_a",
                "n_significant_b", "n_both", "n_only_a", "n_only_b", "n_reversed",
                "flip_share", "test", "correction", "alpha", "n_resamples", "seed")
        return pd.DataFrame([{k: getattr(self, k) for k in keys}])


def _common_seed(rng) -> tuple[int, int | None]:
    """``(common, seed)``: the seed every test of a call uses (the measures see the same
    resamples), drawn from ``rng``, and the seed record of ``rng`` (:func:`rng_iv`)."""
    gen, seed = rng_iv(rng)
    return int(gen.integers(2**63 - 1)), seed


def _decision_agreement_iv(scores, measure_a, measure_b, alpha):
    frames = aligned_score_frames(scores)
    measure_name_iv(frames, measure_a, "measure_a")
    measure_name_iv(frames, measure_b, "measure_b")
    if measure_a == measure_b:
        raise ParameterError("`measure_a` and `measure_b` must differ")
    return frames, alpha_iv(alpha)


def decision_agreement(scores: Scores, measure_a: str, measure_b: str, *, test: str = TEST,
                       correction: Correction | None = CORRECTION, alpha: float = ALPHA,
                       n_resamples: int = N_RESAMPLES, batch: int | None = None,
                       workers: int = WORKERS, rng: Seed = None) -> DecisionAgreement:
    """Do two measures agree on the direction and significance of every system pair?

    All pairs of systems are tested under each measure with
    :func:`mrrstats.pairwise_tests` (two-sided), corrected for
    multiple comparisons, and the decisions are compared.

    Parameters
    ----------
    scores : Evaluation or mapping
        Per-query scores (see the module documentation).
    measure_a, measure_b : str
        The two measures, e.g. ``"RR"`` and ``"nDCG@10"``.
    test : str, keyword-only
        Test of :func:`~mrrstats.pairwise_tests`: ``"t"``,
        ``"wilcoxon"``, ``"sign"``, ``"randomization"`` (default),
        ``"bootstrap"``, ``"bootstrap-t"``, ``"tukey"``, ``"maxt"`` or
        ``"anova-hsd"``.
    correction : {"holm", "bonferroni", "bh", "none"} or None, keyword-only
        Multiple-comparison correction, applied within each measure (ignored
        by ``tukey``, ``maxt`` and ``anova-hsd``, which control the
        family-wise error themselves).
    alpha : float, keyword-only
        Significance level (default 0.05).
    n_resamples : int, keyword-only
        Resamples of the resampling tests.
    batch : int or None, keyword-only
        Resamples per batch (memory bound); does not change the result.
    workers : int, keyword-only
        Threads of the resampling engine (default -1: all cores); does not change
        the result.
    rng : None, int or numpy.random.Generator, keyword-only
        Seed. One seed is drawn from it and used for both measures, so the two
        measures see the same resamples and their decisions differ only
        because the measures differ. The seed of the call is the result's ``seed``.

    Returns
    -------
    DecisionAgreement
        Counts, the flip share and ``pairs``: one row per pair of systems with
        columns ``system_1``, ``system_2``, and for each measure (suffix
        ``_a``, ``_b``) ``diff`` (mean of ``system_1`` minus mean of
        ``system_2``), ``pvalue``, ``pvalue_adjusted``, ``significant`` and
        ``decision`` (+1: ``system_1`` significantly better, -1: significantly
        worse, 0: not significant); then ``same_direction`` and ``outcome``:
        ``"both significant"`` (same direction), ``"neither significant"``,
        ``"significant only under a"``, ``"significant only under b"`` or
        ``"reversed"`` (significant under both, opposite directions).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from mrrstats import decision_agreement
    >>> x = np.random.default_rng(0).uniform(size=(40, 3)) + np.array([0.0, 0.3, 0.6])
    >>> a = pd.DataFrame(x, columns=["s1", "s2", "s3"])
    >>> b = pd.DataFrame(x[:, ::-1], columns=["s1", "s2", "s3"])  # order reversed
    >>> res = decision_agreement({"A": a, "B": b}, "A", "B", test="t", rng=1)
    >>> print(res.n_pairs, res.n_reversed, res.flip_share)
    3 3 1.0
    """
    frames, alpha = _decision_agreement_iv(scores, measure_a, measure_b, alpha)
    common, seed = _common_seed(rng)
    results = {}
    for m in (measure_a, measure_b):
        results[m] = pairwise_tests(frames[m], test=test, correction=correction, alpha=alpha,
                                    alternative="two-sided", n_resamples=n_resamples,
                                    ci="none", batch=batch, workers=workers, rng=common)
    ra, rb = results[measure_a], results[measure_b]
    pairs = pd.DataFrame({"system_1": np.asarray(ra.a), "system_2": np.asarray(ra.b)})
    for suffix, r in (("a", ra), ("b", rb)):
        if list(np.asarray(r.a)) != list(pairs.system_1) or list(np.asarray(r.b)) != list(
                pairs.system_2):
            raise RuntimeError("pairwise_tests returned pairs in different orders")
        diff = np.asarray(r.difference, dtype=np.float64)
        sig = np.asarray(r.reject, dtype=bool)
        pairs[f"diff_{suffix}"] = diff
        pairs[f"pvalue_{suffix}"] = np.asarray(r.pvalue, dtype=np.float64)
        pairs[f"pvalue_adjusted_{suffix}"] = np.asarray(r.pvalue_adjusted, dtype=np.float64)
        pairs[f"significant_{suffix}"] = sig
        pairs[f"decision_{suffix}"] = np.where(sig, np.sign(diff), 0).astype(int)
    da, db = pairs["decision_a"].to_numpy(), pairs["decision_b"].to_numpy()
    pairs["same_direction"] = np.sign(pairs["diff_a"]) == np.sign(pairs["diff_b"])
    outcome = np.select(
        [(da != 0) & (da == db), (da == 0) & (db == 0), (da != 0) & (db == 0),
         (da == 0) & (db != 0)],
        list(_OUTCOMES[:4]), default=_OUTCOMES[4])
    pairs["outcome"] = outcome
    counts = {o: int(np.sum(outcome == o)) for o in _OUTCOMES}
    n_any = len(pairs) - counts["neither significant"]
    flips = counts["significant only under a"] + counts["significant only under b"] + counts[
        "reversed"]
    return DecisionAgreement(
        measure_a=measure_a, measure_b=measure_b, pairs=pairs, n_pairs=len(pairs),
        n_same_direction=int(pairs["same_direction"].sum()),
        n_significant_a=int(np.sum(da != 0)), n_significant_b=int(np.sum(db != 0)),
        n_both=counts["both significant"], n_only_a=counts["significant only under a"],
        n_only_b=counts["significant only under b"], n_reversed=counts["reversed"],
        flip_share=flips / n_any if n_any else float("nan"),
        test=str(ra.test), correction=str(ra.correction), alpha=float(alpha),
        n_resamples=ra.n_resamples, seed=seed)


def _discriminative_power_table_iv(scores, alpha):
    return aligned_score_frames(scores), alpha_iv(alpha)


def discriminative_power_table(scores: Scores, *, test: str = TEST,
                               correction: Correction | None = None,
                               alpha: float = ALPHA, n_resamples: int = N_RESAMPLES,
                               batch: int | None = None, workers: int = WORKERS,
                               rng: Seed = None) -> pd.DataFrame:
    """Discriminative power of each measure, side by side (Sakai, 2006).

    Parameters
    ----------
    scores : Evaluation or mapping
        Per-query scores (see the module documentation).
    test, correction, alpha, n_resamples, batch, workers
        As for :func:`mrrstats.discriminative_power` (two-sided).
        Sakai's definition uses no correction (the default here).
    rng : None, int or numpy.random.Generator, keyword-only
        One seed is drawn from it and used for every measure (common random
        numbers: the measures see the same resamples).

    Returns
    -------
    pandas.DataFrame
        One row per measure (index ``measure``) with ``n_systems``,
        ``n_queries``, ``n_pairs``, ``n_significant``,
        ``discriminative_power`` (share of pairs significant at ``alpha``),
        ``min_significant_difference`` (smallest absolute mean difference
        among the significant pairs), ``test``, ``correction``, ``alpha``,
        ``n_resamples`` and ``seed``: the seed of the call (the integer given as
        ``rng``, or the one drawn when ``rng=None``; pass it back as ``rng=`` to get
        the same table), also ``attrs["seed"]``.

    References
    ----------
    .. [1] T. Sakai, "Evaluating evaluation metrics based on the bootstrap",
       SIGIR 2006, pp. 525-532.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from mrrstats import discriminative_power_table
    >>> rng = np.random.default_rng(0)
    >>> x = rng.uniform(size=(40, 3)) + np.array([0.0, 0.3, 0.6])
    >>> noisy = x + rng.normal(scale=1.0, size=x.shape)
    >>> scores = {"clean": pd.DataFrame(x), "noisy": pd.DataFrame(noisy)}
    >>> out = discriminative_power_table(scores, test="t")
    >>> print(out["n_significant"].tolist())
    [3, 1]
    """
    frames, alpha = _discriminative_power_table_iv(scores, alpha)
    common, seed = _common_seed(rng)
    rows = []
    for m, frame in frames.items():
        engine = {"workers": workers} if _TAKES_WORKERS else {}  # see _TAKES_WORKERS
        res = discriminative_power(frame, test=test, alpha=alpha, correction=correction,
                                   alternative="two-sided", n_resamples=n_resamples,
                                   batch=batch, rng=common, **engine)  # type: ignore[arg-type]
        rows.append({
            "measure": m, "n_systems": frame.shape[1], "n_queries": frame.shape[0],
            "n_pairs": int(res.n_pairs), "n_significant": int(res.n_significant),
            "discriminative_power": float(res.discriminative_power),
            "min_significant_difference": float(res.min_significant_difference),
            "test": str(res.test), "correction": str(res.correction), "alpha": float(alpha),
            "n_resamples": getattr(getattr(res, "pairwise", None), "n_resamples", None),
            "seed": seed,
        })
    table = pd.DataFrame(rows).set_index("measure")
    table.attrs["seed"] = seed
    return table
