"""Random-ranking baselines (exact distributions of RR and MRR) and link-prediction ranks."""

from .linkpred import LinkPredictionRanks, ranks_from_negatives, ranks_from_scores
from .random_ranking import (
                      RANDOM_MODELS,
                      FirstRelevantRank,
                      RandomBaselineResult,
                      RandomMetricMoments,
                      adjusted_mrr,
                      evaluation_baseline,
                      expected_ap,
                      expected_mrr,
                      expected_rank,
                      expected_rr,
                      expected_success,
                      random_baseline_counts,
                      random_baseline_test,
                      random_metric_moments,
                      variance_mrr,
                      variance_rank,
                      variance_rr,
                      variance_success,
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
           "evaluation_baseline", "expected_ap", "expected_mrr", "expected_rank", "expected_rr",
           "expected_success", "random_baseline_counts", "random_baseline_test",
           "random_metric_moments", "variance_mrr", "variance_rank", "variance_rr",
           "variance_success", "SampledMetricResult", "correct_sampled_metric",
           "sampled_metric_mapping", "sampled_rank_matrix"]
