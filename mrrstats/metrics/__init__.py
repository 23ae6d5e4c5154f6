"""Measure specifications as data, the metric kernels, and the ``evaluate`` verb."""

from ..lazy import attach as _attach

# Public names are imported when first used (SPEC 1 lazy loading, mrrstats.lazy).
__getattr__, __dir__, _names = _attach(__name__, {
    "accumulator": ["Accumulator"],
    "evaluation": ["EMPTY_TARGET", "QUERIES", "Evaluation", "QueryCounts", "evaluate",
                   "evaluate_flat"],
    "kernels": ["compute_measures", "score_ranked_run", "score_rankings"],
    "measures": ["Measure", "parse_measure", "parse_measures"],
})

__all__ = ["Accumulator", "EMPTY_TARGET", "QUERIES", "Evaluation", "QueryCounts", "evaluate",
           "evaluate_flat",
           "compute_measures", "score_ranked_run", "score_rankings", "Measure", "parse_measure",
           "parse_measures"]
