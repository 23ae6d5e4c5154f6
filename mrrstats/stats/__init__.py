"""Uncertainty and significance: one resampling engine, paired tests, intervals,
multiple comparisons, power, and the ``compare`` verb."""

from . import blocked
from .compare import Comparison, compare
from .estimation import (
                       EffectSizeIntervals,
                       EquivalenceResult,
                       HodgesLehmannResult,
                       UnpairedResult,
                       effect_size_intervals,
                       equivalence_test,
                       hodges_lehmann,
                       unpaired_bootstrap_ci,
                       unpaired_permutation_test,
                       unpaired_ttest,
)
from .leaderboard import RankIntervals, compact_letter_display, rank_intervals
from .mixed import MixedModelResult, mixed_model, mixed_vs_anova
from .multiple import (
                       DiscriminativePowerResult,
                       PairwiseResult,
                       anova_tukey_hsd,
                       discriminative_power,
                       pairwise_tests,
                       randomized_tukey_hsd,
                       westfall_young,
)
from .power import randomization_power, topic_set_size, ttest_power
from .segments import SegmentComparison
from .significance import (
                       ConfidenceInterval,
                       bootstrap_ci,
                       bootstrap_test,
                       effect_sizes,
                       paired_ttest,
                       randomization_test,
                       residual_variance,
                       sign_test,
                       wilcoxon_test,
)

__all__ = ["Comparison", "compare", "PairwiseResult", "anova_tukey_hsd", "discriminative_power",
           "pairwise_tests", "randomized_tukey_hsd", "westfall_young", "randomization_power",
           "topic_set_size", "ttest_power", "ConfidenceInterval", "bootstrap_ci",
           "bootstrap_test", "effect_sizes", "paired_ttest", "randomization_test",
           "residual_variance", "sign_test", "wilcoxon_test",
           # estimation, equivalence and unpaired comparisons (issue 14)
           "EffectSizeIntervals", "EquivalenceResult", "HodgesLehmannResult", "UnpairedResult",
           "effect_size_intervals", "equivalence_test", "hodges_lehmann",
           "unpaired_bootstrap_ci", "unpaired_permutation_test", "unpaired_ttest",
           "MixedModelResult", "mixed_model", "mixed_vs_anova",
           "RankIntervals", "compact_letter_display", "rank_intervals",
           "DiscriminativePowerResult", "SegmentComparison",
           # queries in blocks: mrrstats.blocked.randomization_test, .bootstrap_ci (issue 13)
           "blocked"]
