"""Random-ranking baselines (exact distributions of RR and MRR) and link-prediction ranks.

=========================== =================================================================
module                      holds
=========================== =================================================================
``rank_law``                the law of the first relevant rank (shared numeric core)
``first_rank``              :class:`FirstRelevantRank` and the closed forms (expected_ and
                            variance_ of RR, MRR, Success@k, rank; expected AP, RBP,
                            Bpref; adjusted MRR)
``permutation_moments``     :func:`random_metric_moments`: any measure under a random
                            permutation (exact enumeration or Monte Carlo)
``random_baseline``         the test against a random ranker (:func:`random_baseline_test`,
                            :func:`random_baseline_counts`, :func:`evaluation_baseline`)
``linkpred``                link-prediction ranks from score matrices and sampled negatives
``rank_inputs``             validators shared by the link-prediction doors
``scorer``                  :func:`ranks_from_scorer`: ranks from a scoring function
``sampled``                 :func:`correct_sampled_metric`: metrics on sampled negatives
=========================== =================================================================
"""

from typing import TYPE_CHECKING

from ..lazy import attach as _attach

# Public names are imported when first used (SPEC 1 lazy loading, mrrstats.lazy).
__getattr__, __dir__, _names = _attach(__name__, {
    "first_rank": ["FirstRelevantRank", "adjusted_mrr", "expected_ap", "expected_bpref",
                   "expected_mrr", "expected_rbp",
                   "expected_rank", "expected_rr", "expected_success", "variance_mrr",
                   "variance_rank", "variance_rr", "variance_success"],
    "linkpred": ["LinkPredictionRanks", "ranks_from_negatives", "ranks_from_scores"],
    "permutation_moments": ["RandomMetricMoments", "random_metric_moments"],
    "random_baseline": ["RANDOM_MODELS", "RandomBaselineResult", "evaluation_baseline",
                        "random_baseline_counts", "random_baseline_test"],
    "sampled": ["SampledMetricResult", "correct_sampled_metric", "sampled_metric_mapping",
                "sampled_rank_matrix"],
    "scorer": ["ranks_from_scorer"],
})

if TYPE_CHECKING:  # the names of the table above, for type checkers
    from .first_rank import (
        FirstRelevantRank,
        adjusted_mrr,
        expected_ap,
        expected_bpref,
        expected_mrr,
        expected_rank,
        expected_rbp,
        expected_rr,
        expected_success,
        variance_mrr,
        variance_rank,
        variance_rr,
        variance_success,
    )
    from .linkpred import LinkPredictionRanks, ranks_from_negatives, ranks_from_scores
    from .permutation_moments import RandomMetricMoments, random_metric_moments
    from .random_baseline import (
        RANDOM_MODELS,
        RandomBaselineResult,
        evaluation_baseline,
        random_baseline_counts,
        random_baseline_test,
    )
    from .sampled import (
        SampledMetricResult,
        correct_sampled_metric,
        sampled_metric_mapping,
        sampled_rank_matrix,
    )
    from .scorer import ranks_from_scorer

__all__ = ["LinkPredictionRanks", "ranks_from_negatives", "ranks_from_scores", "ranks_from_scorer",
           "RANDOM_MODELS",
           "FirstRelevantRank", "RandomBaselineResult", "RandomMetricMoments", "adjusted_mrr",
           "evaluation_baseline", "expected_ap", "expected_bpref", "expected_mrr",
           "expected_rank", "expected_rbp", "expected_rr",
           "expected_success", "random_baseline_counts", "random_baseline_test",
           "random_metric_moments", "variance_mrr", "variance_rank", "variance_rr",
           "variance_success", "SampledMetricResult", "correct_sampled_metric",
           "sampled_metric_mapping", "sampled_rank_matrix"]
