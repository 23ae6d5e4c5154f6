r"""Statistical power and topic-set size for paired comparisons.

* :func:`ttest_power` -- power of the paired t-test, or the number of queries,
  the detectable difference or the tolerable standard deviation (``std``) that gives a
  target power: leave exactly one of them as ``None`` and it is solved for
  (through :class:`statsmodels.stats.power.TTestPower`).
* :func:`randomization_power` -- seeded simulation of the power of the paired
  randomization test (or the t-test) when per-query differences look like a
  pilot sample.
* :func:`topic_set_size` -- Sakai's topic-set-size design: how many queries a
  new test collection needs so that a paired t-test detects a given
  difference, with the variance estimated from a pilot score matrix.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import stats

from ..deprecation import renamed_attribute, renamed_parameters
from ..errors import ParameterError, ParameterTypeError
from ..model.scoretable import as_score_table
from ..validation import (
    alpha_iv,
    alternative_iv,
    confidence_level_iv,
    float_iv,
    int_iv,
    n_resamples_iv,
    resource_iv,
    rng_iv,
)
from .counter import stream_key
from .effects import residual_variance
from .intervals import ConfidenceInterval
from .methods import MethodsText
from .methods_readers import methods_text
from .pairs import vector_iv
from .resampling import signflip_pvalues_per_row
from .rows import ttest_rows

if TYPE_CHECKING:
    from typing import Literal

    from numpy.typing import ArrayLike

    from .._typing import Alternative, Scores, Seed

__all__ = ["PowerResult", "SimulatedPowerResult", "TopicSetSizeResult", "ttest_power",
           "randomization_power", "topic_set_size"]

# scipy's alternative vocabulary -> statsmodels'
_SM_ALTERNATIVE = {"two-sided": "two-sided", "greater": "larger", "less": "smaller"}


@dataclass(frozen=True)
class PowerResult:
    """Result of :func:`ttest_power`: all quantities, one of them solved for.

    Attributes
    ----------
    power : float
        Probability of rejecting at ``alpha`` when the true mean difference is
        ``difference``.
    difference : float
        True mean difference of ``a - b``.
    std : float
        Standard deviation of the per-query differences.
    n_queries : float
        Number of queries (possibly fractional when solved for).
    n_queries_required : int
        ``ceil(n_queries)``: the queries to collect (equal to ``n_queries``
        when it was given).
    effect_size : float
        ``difference / std`` (Cohen's :math:`d_z`).
    alpha : float
    alternative : str
    solved_for : str
        ``"power"``, ``"n_queries"``, ``"difference"`` or ``"std"``.

    Methods
    -------
    to_frame()
        One row with the attributes.
    """

    power: float
    difference: float
    std: float
    n_queries: float
    n_queries_required: int
    effect_size: float
    alpha: float
    alternative: str
    solved_for: str

    def methods(self) -> MethodsText:
        """The methods paragraph and its references (:mod:`mrrstats.stats.methods`)."""
        return methods_text(self)

    sd = renamed_attribute("std")

    def to_frame(self) -> pd.DataFrame:
        """One row: the attributes, in their order."""
        return pd.DataFrame([dataclasses.asdict(self)])


@renamed_parameters(sd="std")


def ttest_power(*, difference: float | None = None, std: float | None = None,
                n_queries: int | None = None, power: float | None = None, alpha: float = 0.05,
                alternative: Alternative = "two-sided") -> PowerResult:
    r"""Power of the paired t-test, or solve for the missing design quantity.

    Exactly one of ``difference``, ``std``, ``n_queries`` and ``power`` must be
    ``None``; it is solved for.

    Parameters
    ----------
    difference : float or None, keyword-only
        True mean difference of ``a - b`` (negative for ``alternative="less"``).
    std : float or None, keyword-only
        Standard deviation of the per-query differences.
    n_queries : int or None, keyword-only
        Number of queries (at least 2).
    power : float or None, keyword-only
        Target power in (0, 1).
    alpha : float, keyword-only
        Significance level.
    alternative : {"two-sided", "less", "greater"}, keyword-only

    Returns
    -------
    PowerResult

    Notes
    -----
    With :math:`\delta = \Delta / \sigma` and the noncentral t distribution,
    the power of the two-sided paired t-test on :math:`n` queries is

    .. math:: 1 - \beta = P(|T_{n-1}(\delta\sqrt n)| > t_{1-\alpha/2, n-1}),

    computed by :class:`statsmodels.stats.power.TTestPower` (``"greater"`` /
    ``"less"`` are statsmodels' ``"larger"`` / ``"smaller"``), whose
    ``solve_power`` finds the missing quantity by root finding.

    Examples
    --------
    >>> import mrrstats
    >>> res = mrrstats.ttest_power(difference=0.05, std=0.2, n_queries=50)
    >>> print(round(res.power, 3))
    0.41
    >>> res = mrrstats.ttest_power(difference=0.05, std=0.2, power=0.8)
    >>> print(res.n_queries_required)
    128
    """
    difference, std, n_queries, power, alpha, alternative, missing = _ttest_power_iv(
        difference, std, n_queries, power, alpha, alternative)
    from statsmodels.stats.power import TTestPower

    sm = TTestPower()
    alt = _SM_ALTERNATIVE[alternative]
    if missing == "power":
        effect = difference / std
        power = float(sm.power(effect_size=effect, nobs=n_queries, alpha=alpha,
                               alternative=alt))
        if not math.isfinite(power):  # statsmodels' two-sided sum can be NaN near power 1
            power = _nct_power(effect, n_queries, alpha, alternative)
    elif missing == "n_queries":
        effect = difference / std
        n_queries = float(sm.solve_power(effect_size=effect, nobs=None, alpha=alpha,
                                         power=power, alternative=alt))
    else:
        effect = float(sm.solve_power(effect_size=None, nobs=n_queries, alpha=alpha,
                                      power=power, alternative=alt))
        if alternative == "less" and effect > 0:
            effect = -effect
        if missing == "difference":
            difference = effect * std
        else:
            std = abs(difference / effect)
            effect = difference / std
    if not all(math.isfinite(v) for v in (power, difference, std, n_queries, effect)):
        raise ParameterError(
            f"no finite `{missing}` fits `difference`={difference!r}, `std`={std!r}, "
            f"`n_queries`={n_queries!r}, `power`={power!r}: the effect is out of range",
            name=missing)
    n_req = int(math.ceil(n_queries - 1e-9))
    return PowerResult(float(power), float(difference), float(std), float(n_queries), n_req,
                       float(effect), alpha, alternative, missing)


def _nct_power(effect, n, alpha, alternative):
    """Power of the paired t test from the noncentral t directly (scipy)."""
    from scipy import stats

    df, nc = n - 1.0, effect * math.sqrt(n)
    if alternative == "two-sided":
        crit = stats.t.isf(alpha / 2, df)
        return float(min(1.0, stats.nct.sf(crit, df, nc) + stats.nct.cdf(-crit, df, nc)))
    crit = stats.t.isf(alpha, df)
    return float(stats.nct.sf(crit, df, nc) if alternative == "greater"
                 else stats.nct.cdf(-crit, df, nc))


def _ttest_power_iv(difference, std, n_queries, power, alpha, alternative):
    given = {"difference": difference, "std": std, "n_queries": n_queries, "power": power}
    missing = [k for k, v in given.items() if v is None]
    if len(missing) != 1:
        raise ParameterError("exactly one of `difference`, `std`, `n_queries` and `power` must be "
                         f"None (it is solved for); got {len(missing)} missing")
    missing = missing[0]
    alpha = alpha_iv(alpha)
    alternative_iv(alternative)
    out = {}
    for name, value in given.items():
        if value is None:
            out[name] = None
            continue
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise ParameterTypeError(f"`{name}` must be a number, got {value!r}")
        value = float(value)
        if not math.isfinite(value):
            raise ParameterError(f"`{name}` must be finite, got {value!r}")
        out[name] = value
    if out["std"] is not None and out["std"] <= 0:
        raise ParameterError(f"`std` must be positive, got {std!r}")
    if out["n_queries"] is not None and out["n_queries"] < 2:
        raise ParameterError(f"`n_queries` must be at least 2, got {n_queries!r}")
    if out["n_queries"] is not None and out["n_queries"] != round(out["n_queries"]):
        raise ParameterError(f"`n_queries` must be a whole number, got {n_queries!r}",
                             name="n_queries")
    if out["power"] is not None and not 0 < out["power"] < 1:
        raise ParameterError(f"`power` must be in (0, 1), got {power!r}")
    if out["power"] is not None and out["power"] <= alpha and missing != "power":
        raise ParameterError(f"`power` must exceed `alpha` ({alpha}) to be attainable")
    if out["difference"] is not None and missing in ("n_queries", "std"):
        d = out["difference"]
        if d == 0:
            raise ParameterError("`difference` must be non-zero to solve for "
                             f"`{missing}`")
        if (alternative == "greater" and d < 0) or (alternative == "less" and d > 0):
            raise ParameterError(f"`difference` {d} points against alternative={alternative!r}")
    return (out["difference"], out["std"], out["n_queries"], out["power"], alpha,
            alternative, missing)


@dataclass(frozen=True)
class SimulatedPowerResult:
    """Result of :func:`randomization_power`.

    Attributes
    ----------
    power : float
        Share of simulated experiments that rejected at ``alpha``.
    power_se : float
        Binomial standard error :math:`\\sqrt{p(1-p)/R}` of ``power``.
    difference : float
        True mean difference of the simulated population.
    n_queries : int
    test : str
        ``"randomization"`` or ``"t"``.
    alpha : float
    alternative : str
    n_simulations : int
    n_resamples : int or None
        Sign vectors per randomization test (:math:`2^n` when exact).
    exact : bool
    seed : int or None

    Methods
    -------
    confidence_interval(confidence_level=0.95)
        Clopper-Pearson interval of the power (a binomial share of ``n_simulations``).
    to_frame()
        One row with the attributes and the 95% interval.
    """

    power: float
    power_se: float
    difference: float
    n_queries: int
    test: str
    alpha: float
    alternative: str
    n_simulations: int
    n_resamples: int | None
    exact: bool
    seed: int | None

    def methods(self) -> MethodsText:
        """The methods paragraph and its references (:mod:`mrrstats.stats.methods`)."""
        return methods_text(self)

    def confidence_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        """Clopper-Pearson interval of the power from the ``n_simulations`` experiments."""
        cl = confidence_level_iv(confidence_level)
        k = int(round(self.power * self.n_simulations))
        ci = stats.binomtest(k, self.n_simulations).proportion_ci(confidence_level=cl,
                                                                   method="exact")
        return ConfidenceInterval(float(ci.low), float(ci.high), cl, "clopper-pearson")

    def to_frame(self) -> pd.DataFrame:
        """One row: the attributes, ``ci_low``, ``ci_high``, ``confidence_level``."""
        ci = self.confidence_interval()
        row = dataclasses.asdict(self)
        row.update(ci_low=ci.low, ci_high=ci.high, confidence_level=ci.confidence_level)
        return pd.DataFrame([row])


def randomization_power(differences: ArrayLike, *, n_queries: int | None = None,
                        difference: float | None = None, alpha: float = 0.05,
                        alternative: Alternative = "two-sided",
                        test: Literal["randomization", "t"] = "randomization",
                        n_simulations: int = 1000, n_resamples: int = 1000,
                        batch: int | None = None, rng: Seed = None) -> SimulatedPowerResult:
    r"""Simulated power of the paired randomization test (seeded).

    Parameters
    ----------
    differences : array_like, 1-D
        Pilot per-query differences ``a - b`` (e.g. from two real systems):
        their shape, spread and ties define the simulated population.
    n_queries : int, optional, keyword-only
        Queries per simulated experiment (default: the pilot's size).
    difference : float, optional, keyword-only
        True mean difference to simulate (default: the pilot's mean).
    alpha : float, keyword-only
    alternative : {"two-sided", "less", "greater"}, keyword-only
    test : {"randomization", "t"}, keyword-only
        The test whose power is simulated (the t-test on the same samples is
        useful for comparison).
    n_simulations : int, keyword-only
        Simulated experiments :math:`R`.
    n_resamples : int, keyword-only
        Sign vectors per randomization test; when :math:`2^n \le`
        ``n_resamples`` all are enumerated.
    batch : int or None, keyword-only
        Simulations processed at once (does not change the result).
    rng : None, int or numpy.random.Generator, keyword-only

    Returns
    -------
    SimulatedPowerResult

    Notes
    -----
    The population is the pilot differences shifted to the requested mean,
    :math:`z_i = d_i - \bar d + \Delta`. Each simulated experiment draws
    ``n_queries`` values from it with replacement and runs the test with its
    own independent sign vectors; ``power`` is the share of experiments with
    :math:`p \le \alpha`, with binomial standard error ``power_se``. The
    resampled differences and the sign vectors come from two generators seeded
    from ``rng``, each consumed simulation by simulation (``batch`` never
    changes the result).

    Examples
    --------
    >>> import numpy as np, mrrstats
    >>> d = np.random.default_rng(0).normal(0.05, 0.2, size=50)
    >>> res = mrrstats.randomization_power(d, difference=0.1, n_simulations=200,
    ...                                    n_resamples=500, rng=1)
    >>> print(res.power > 0.8, res.n_queries)
    True 50
    """
    (d, n, delta, alpha, alternative, test, n_sim, B, batch, gen, seed) = \
        _randomization_power_iv(differences, n_queries, difference, alpha, alternative, test,
                                n_simulations, n_resamples, batch, rng)
    z = d - d.mean() + delta
    exact = test == "randomization" and (1 << min(n, 62)) <= B
    if batch is None:
        batch = max(1, (1 << 22) // max(1, n * (B if test == "randomization" else 1)))
    rejected = 0
    total_b = (1 << n) if exact else B
    # Two streams, each consumed row by row (simulation by simulation), so the
    # result does not depend on the batch size.
    seeds = gen.integers(0, 2**63, size=2)
    gen_idx, gen_sign = np.random.default_rng(seeds[0]), np.random.default_rng(seeds[1])
    key = None if test != "randomization" or exact else stream_key(gen_sign)
    for start in range(0, n_sim, batch):
        r = min(batch, n_sim - start)
        idx = gen_idx.integers(0, z.size, size=(r, n))
        D = z[idx]  # (r, n)
        if test == "t":
            _, p, _, _ = ttest_rows(D, alternative)
        else:
            p = signflip_pvalues_per_row(D, alternative, B, exact, key, start)
        rejected += int((p <= alpha).sum())
    power = rejected / n_sim
    return SimulatedPowerResult(power, math.sqrt(power * (1 - power) / n_sim), delta, n,
                                test, alpha, alternative, n_sim,
                                total_b if test == "randomization" else None, exact, seed)


def _randomization_power_iv(differences, n_queries, difference, alpha, alternative, test,
                            n_simulations, n_resamples, batch, rng):
    d = vector_iv(differences, "differences")
    if d.size < 2:
        raise ParameterError(f"`differences` needs at least 2 values, got {d.size}")
    if not np.isfinite(d).all():
        raise ParameterError("`differences` must be finite (no NaN)")
    n = d.size if n_queries is None else int_iv(n_queries, "n_queries", minimum=2)
    resource_iv(8 * 4 * n, "n_queries", what=f"simulated collections of {n:,} queries")
    delta = float(d.mean()) if difference is None else float_iv(difference, "difference")
    alpha = alpha_iv(alpha)
    alternative_iv(alternative)
    if not isinstance(test, str) or test not in ("randomization", "t"):
        raise ParameterError(f"`test` must be 'randomization' or 't', got {test!r}")
    n_sim = n_resamples_iv(n_simulations, "n_simulations")
    B = n_resamples_iv(n_resamples)
    batch = int_iv(batch, "batch", allow_none=True)
    gen, seed = rng_iv(rng)
    return d, n, delta, alpha, alternative, test, n_sim, B, batch, gen, seed


@dataclass(frozen=True)
class TopicSetSizeResult:
    """Result of :func:`topic_set_size`.

    Attributes
    ----------
    n_queries : int
        Queries needed (rounded up).
    n_exact : float
        The fractional solution.
    std : float
        Standard deviation of per-query differences used,
        :math:`\\sqrt{2 V_E}` when estimated from a pilot matrix.
    residual_variance : float
        :math:`V_E` of the pilot matrix (NaN when ``pilot`` was a number).
    difference : float
        Minimum detectable difference.
    power, alpha : float
    alternative : str

    Methods
    -------
    to_frame()
        One row with the attributes.
    """

    n_queries: int
    n_exact: float
    std: float
    residual_variance: float
    difference: float
    power: float
    alpha: float
    alternative: str

    def methods(self) -> MethodsText:
        """The methods paragraph and its references (:mod:`mrrstats.stats.methods`)."""
        return methods_text(self)

    sd = renamed_attribute("std")

    def to_frame(self) -> pd.DataFrame:
        """One row: the attributes, in their order."""
        return pd.DataFrame([dataclasses.asdict(self)])


def topic_set_size(pilot: Scores | float, *, difference: float, power: float = 0.8,
                   alpha: float = 0.05,
                   alternative: Alternative = "two-sided") -> TopicSetSizeResult:
    r"""Number of queries for a paired t-test to detect ``difference`` (Sakai's design).

    Parameters
    ----------
    pilot : DataFrame, array_like, ScoreTable, path, mapping, Evaluation or float
        A pilot score matrix (anything
        :func:`mrrstats.model.scoretable.as_score_table` accepts: a DataFrame
        with one row per query and one column per system, an array
        ``(n_systems, n_queries)``, ...) from which the variance is estimated,
        or directly the standard deviation of per-query differences.
    difference : float, keyword-only
        Minimum difference in mean scores that should be detected.
    power : float, keyword-only
        Target power :math:`1 - \beta`.
    alpha : float, keyword-only
    alternative : {"two-sided", "less", "greater"}, keyword-only

    Returns
    -------
    TopicSetSizeResult

    Notes
    -----
    From a pilot matrix, the per-system error variance is the residual
    variance :math:`\hat\sigma^2 = V_E` of the two-way ANOVA without
    replication, and the variance of a difference of two systems is
    :math:`\sigma_d^2 = 2 V_E` (Sakai 2016). The number of queries is then
    the smallest :math:`n` with paired t-test power :math:`\ge 1-\beta` for
    :math:`\Delta/\sigma_d` (:func:`ttest_power`).

    References
    ----------
    .. [1] Sakai, T. (2016). Topic set size design. Information Retrieval
           Journal 19(3).

    Examples
    --------
    >>> import mrrstats
    >>> res = mrrstats.topic_set_size(0.25, difference=0.05)
    >>> print(res.n_queries)
    199
    """
    sd, v_e, difference, power, alpha, alternative = _topic_set_size_iv(
        pilot, difference, power, alpha, alternative)
    try:
        res = ttest_power(difference=difference, std=sd, power=power, alpha=alpha,
                          alternative=alternative)
    except ParameterError as exc:
        raise ParameterError(f"no topic set size for `difference` = {difference!r} and the "
                             f"`pilot` standard deviation {sd!r}: {exc}", name="pilot") from None
    return TopicSetSizeResult(res.n_queries_required, res.n_queries, sd, v_e, difference,
                              power, alpha, alternative)


def _topic_set_size_iv(pilot, difference, power, alpha, alternative):
    if isinstance(pilot, numbers.Real) and not isinstance(pilot, bool):
        sd = float(pilot)
        if not (sd > 0 and math.isfinite(sd)):
            raise ParameterError(
                f"`pilot` as a standard deviation must be positive, got {pilot!r}")
        v_e = math.nan
    else:
        v_e = residual_variance(as_score_table(pilot, min_systems=2, min_queries=2,
                                               name="pilot"))
        if not v_e > 0:
            raise ParameterError("`pilot` has no residual variance (all differences constant)")
        sd = math.sqrt(2.0 * v_e)
    if isinstance(difference, bool) or not isinstance(difference, numbers.Real):
        raise ParameterTypeError(f"`difference` must be a number, got {difference!r}")
    difference = float(difference)
    if difference == 0 or not math.isfinite(difference):
        raise ParameterError(f"`difference` must be finite and non-zero, got {difference!r}")
    if isinstance(power, bool) or not isinstance(power, numbers.Real) or not 0 < power < 1:
        raise ParameterError(f"`power` must be in (0, 1), got {power!r}")
    alpha = alpha_iv(alpha)
    alternative_iv(alternative)
    if alternative == "less" and difference > 0:
        difference = -difference
    if alternative == "greater" and difference < 0:
        difference = -difference
    if alternative == "two-sided":
        difference = abs(difference)
    return sd, v_e, difference, float(power), alpha, alternative
