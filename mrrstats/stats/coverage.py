"""The coverage mrrstats measured for its interval constructions: the one place for it.

:data:`COVERAGE` maps an interval construction (a ``ci_method`` of the pairwise
results, ``"maxt-single-step"`` for the default many-system intervals) to the
coverage its nominal 95% intervals had on real TREC score matrices, with the
benchmark that measured it. Everything that states a measured coverage reads it
from here: the methods paragraph (:mod:`mrrstats.stats.methods`), the captions of
:class:`~mrrstats.Comparison` (text and LaTeX), the ``mrrstats compare`` output and
the report's tables (:func:`measured_coverage_note`).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Coverage", "COVERAGE", "MEASURED_LEVEL", "measured_coverage_note"]

#: the nominal level at which every entry of :data:`COVERAGE` was measured
MEASURED_LEVEL = 0.95


@dataclass(frozen=True)
class Coverage:
    """The coverage mrrstats measured for an interval construction (nominal 0.95)."""

    by_topics: tuple[tuple[int, float], ...]  # (topics, coverage)
    what: str
    source: str


_SINGLE_STEP_BENCH = (
    "27 real TREC score matrices, 10 systems, all 45 intervals at once, "
    "topics drawn with replacement, 500 replicates per cell",
    "benchmarks/calibration/single_step_default.py",
)
#: three runs of the same design: 500 replicates per cell (single_step_default.py) and
#: 540 + 1,080 (skew_default.py, skew_default.txt and skew_default_coverage.txt), pooled
_POOLED_BENCH = (
    "27 real TREC score matrices, 10 systems, all 45 intervals at once, "
    "topics drawn with replacement, 2,120 replicates per cell in three runs "
    "(with single_step_default.py)",
    "benchmarks/calibration/skew_default.py",
)
#: at 10 topics: the validity harness (benchmarks/bench_validity.py, results_validity.md;
#: 10 systems drawn from each matrix in turn, 400 replicates, Monte-Carlo SE 0.021)
_TEN_TOPICS = "; at 10 topics benchmarks/bench_validity.py (400 replicates)"
_SKEW_BENCH = (
    "27 real TREC score matrices, 10 systems, all 45 intervals at once, "
    "topics drawn with replacement, 1,620 replicates per cell in two runs",
    "benchmarks/calibration/skew_default.py",
)
_PAIR_BENCH = (
    "12 system pairs of TREC 5-7 ad hoc and Web 2010/2011 on AP, RR, P@10 and "
    "nDCG@20, mean over the pairs, 1,000 replications",
    "benchmarks/calibration/coverage_pair_ci.py",
)

#: interval construction -> measured coverage of nominal 95% intervals (the single place
#: for these numbers; they come from the benchmarks named in ``source``)
COVERAGE: dict[str, Coverage] = {
    "maxt-single-step": Coverage(
        ((10, 0.785), (25, 0.886), (50, 0.918)),
        "simultaneous coverage, " + _POOLED_BENCH[0] + _TEN_TOPICS,
        _POOLED_BENCH[1],
    ),
    "maxt-single-step-skew": Coverage(
        ((10, 0.767), (25, 0.928), (50, 0.951)),
        "simultaneous coverage, " + _SKEW_BENCH[0] + _TEN_TOPICS,
        _SKEW_BENCH[1],
    ),
    "bonferroni(randomization)": Coverage(
        ((25, 0.911), (50, 0.942)),
        "simultaneous coverage, " + _POOLED_BENCH[0],
        _POOLED_BENCH[1],
    ),
    "tukey-simultaneous": Coverage(
        ((25, 0.970), (50, 0.978)),
        "simultaneous coverage, " + _SINGLE_STEP_BENCH[0],
        _SINGLE_STEP_BENCH[1],
    ),
    "t": Coverage(((25, 0.945), (50, 0.949)), _PAIR_BENCH[0], _PAIR_BENCH[1]),
    "marginal": Coverage(((25, 0.945), (50, 0.949)), _PAIR_BENCH[0], _PAIR_BENCH[1]),
    "percentile": Coverage(((25, 0.924), (50, 0.938)), _PAIR_BENCH[0], _PAIR_BENCH[1]),
    "bca": Coverage(((25, 0.917), (50, 0.933)), _PAIR_BENCH[0], _PAIR_BENCH[1]),
    "studentized": Coverage(((25, 0.938), (50, 0.942)), _PAIR_BENCH[0], _PAIR_BENCH[1]),
}

#: the simultaneous interval constructions a caption states the measured coverage of
_SIMULTANEOUS = ("maxt-single-step", "maxt-single-step-skew")


def measured_coverage_note(ci_method: str, confidence_level: float) -> str:
    """The measured coverage of a simultaneous interval beside its nominal level.

    ``"95% simultaneous, 0.79 measured at 10 topics, 0.89 at 25, 0.92 at 50"`` for the
    many-system
    intervals whose coverage mrrstats measured (:data:`COVERAGE`) at the level they
    were measured at; ``""`` for any other interval or level (nothing measured to say).

    >>> measured_coverage_note("maxt-single-step", 0.95)
    '95% simultaneous, 0.79 measured at 10 topics, 0.89 at 25, 0.92 at 50'
    >>> measured_coverage_note("maxt-single-step", 0.9)
    ''
    """
    cov = COVERAGE.get(str(ci_method))
    if cov is None or ci_method not in _SIMULTANEOUS or confidence_level != MEASURED_LEVEL:
        return ""
    (n0, c0), *rest = cov.by_topics
    more = "".join(f", {c:.2f} at {n}" for n, c in rest)
    return f"{confidence_level:.0%} simultaneous, {c0:.2f} measured at {n0} topics{more}"
