"""Measure specifications as data, the metric kernels, and the ``evaluate`` verb."""

from typing import TYPE_CHECKING

from ..lazy import attach as _attach

# Public names are imported when first used (SPEC 1 lazy loading, mrrstats.lazy).
__getattr__, __dir__, _names = _attach(__name__, {
    "accumulator": ["Accumulator"],
    "evaluation": ["EMPTY_TARGET", "QUERIES", "Evaluation", "QueryCounts", "evaluate",
                   "evaluate_flat"],
    "kernels": ["compute_measures", "score_ranked_run", "score_rankings"],
    "measures": ["Measure", "parse_measure", "parse_measures"],
})

if TYPE_CHECKING:  # the names of the table above, for type checkers
    from .accumulator import Accumulator
    from .evaluation import EMPTY_TARGET, QUERIES, Evaluation, QueryCounts, evaluate, evaluate_flat
    from .kernels import compute_measures, score_ranked_run, score_rankings
    from .measures import Measure, parse_measure, parse_measures

__all__ = ["Accumulator", "EMPTY_TARGET", "QUERIES", "Evaluation", "QueryCounts", "evaluate",
           "evaluate_flat",
           "compute_measures", "score_ranked_run", "score_rankings", "Measure", "parse_measure",
           "parse_measures"]
