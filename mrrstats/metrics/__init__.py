"""Measure specifications as data, the metric kernels, and the ``evaluate`` verb."""

from .accumulator import Accumulator
from .evaluation import EMPTY_TARGET, QUERIES, Evaluation, QueryCounts, evaluate, evaluate_flat
from .kernels import compute_measures, score_ranked_run, score_rankings
from .measures import Measure, parse_measure, parse_measures

__all__ = ["Accumulator", "EMPTY_TARGET", "QUERIES", "Evaluation", "QueryCounts", "evaluate",
           "evaluate_flat",
           "compute_measures", "score_ranked_run", "score_rankings", "Measure", "parse_measure",
           "parse_measures"]
