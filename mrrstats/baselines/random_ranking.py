"""The 0.1 module path of the random-ranking baselines (kept until mrrstats 0.3).

Its names now live in modules named for what they hold:
:mod:`mrrstats.baselines.first_rank` (the first relevant rank and the closed forms),
:mod:`mrrstats.baselines.permutation_moments` (any measure under a random permutation)
and :mod:`mrrstats.baselines.random_baseline` (the test against a random ranker).
Import them from :mod:`mrrstats` or :mod:`mrrstats.baselines`.
"""

from .first_rank import (
    FirstRelevantRank,
    adjusted_mrr,
    expected_ap,
    expected_mrr,
    expected_rank,
    expected_rr,
    expected_success,
    variance_mrr,
    variance_rank,
    variance_rr,
    variance_success,
)
from .permutation_moments import RandomMetricMoments, random_metric_moments
from .random_baseline import (
    RANDOM_MODELS,
    RandomBaselineResult,
    evaluation_baseline,
    random_baseline_counts,
    random_baseline_test,
)

__all__ = ["FirstRelevantRank", "expected_rr", "variance_rr", "expected_mrr", "variance_mrr",
           "adjusted_mrr", "expected_success", "variance_success", "expected_rank",
           "variance_rank", "expected_ap", "random_metric_moments", "RandomMetricMoments",
           "random_baseline_test", "RandomBaselineResult", "random_baseline_counts",
           "evaluation_baseline", "RANDOM_MODELS"]
