"""Uncertainty and significance: one resampling engine, paired tests, intervals,
multiple comparisons, power, and the ``compare`` verb."""

from typing import TYPE_CHECKING

from ..lazy import attach as _attach

# Public names are imported when first used (SPEC 1 lazy loading, mrrstats.lazy).
__getattr__, __dir__, _names = _attach(__name__, {
    "bootstrap": ["BootstrapCIResult", "BootstrapTestResult", "bootstrap_ci", "bootstrap_test"],
    "compare": ["Comparison", "compare"],
    "effects": ["EffectSizes", "blocked_anova", "effect_sizes", "residual_variance"],
    "estimation": ["EffectSizeIntervals", "EquivalenceResult", "HodgesLehmannResult",
                   "effect_size_intervals", "equivalence_test", "hodges_lehmann"],
    "intervals": ["ConfidenceInterval"],
    "leaderboard": ["RankIntervals", "compact_letter_display", "rank_intervals"],
    "mixed": ["MixedModelResult", "mixed_model", "mixed_vs_anova"],
    "multiple": ["DiscriminativePowerResult", "PairwiseResult", "anova_tukey_hsd",
                 "discriminative_power", "pairwise_tests", "randomized_tukey_hsd",
                 "westfall_young"],
    "paired": ["SignTestResult", "TTestResult", "WilcoxonResult", "paired_ttest", "sign_test",
               "wilcoxon_test"],
    "power": ["PowerResult", "SimulatedPowerResult", "TopicSetSizeResult", "randomization_power",
              "topic_set_size", "ttest_power"],
    "randomization": ["RandomizationTestResult", "randomization_test"],
    "segments": ["SegmentComparison"],
    "unpaired": ["UnpairedResult", "unpaired_bootstrap_ci", "unpaired_permutation_test",
                 "unpaired_ttest"],
}, submodules=["blocked"])

if TYPE_CHECKING:  # the names of the table above, for type checkers
    from . import blocked
    from .bootstrap import BootstrapCIResult, BootstrapTestResult, bootstrap_ci, bootstrap_test
    from .compare import Comparison, compare
    from .effects import EffectSizes, blocked_anova, effect_sizes, residual_variance
    from .estimation import (
        EffectSizeIntervals,
        EquivalenceResult,
        HodgesLehmannResult,
        effect_size_intervals,
        equivalence_test,
        hodges_lehmann,
    )
    from .intervals import ConfidenceInterval
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
    from .paired import (
        SignTestResult,
        TTestResult,
        WilcoxonResult,
        paired_ttest,
        sign_test,
        wilcoxon_test,
    )
    from .power import (
        PowerResult,
        SimulatedPowerResult,
        TopicSetSizeResult,
        randomization_power,
        topic_set_size,
        ttest_power,
    )
    from .randomization import RandomizationTestResult, randomization_test
    from .segments import SegmentComparison
    from .unpaired import (
        UnpairedResult,
        unpaired_bootstrap_ci,
        unpaired_permutation_test,
        unpaired_ttest,
    )

__all__ = ["Comparison", "compare", "PairwiseResult", "anova_tukey_hsd", "discriminative_power",
           "pairwise_tests", "randomized_tukey_hsd", "westfall_young", "randomization_power",
           "topic_set_size", "ttest_power", "ConfidenceInterval", "bootstrap_ci",
           "bootstrap_test", "effect_sizes", "paired_ttest", "randomization_test",
           "residual_variance", "blocked_anova", "sign_test", "wilcoxon_test",
           # estimation, equivalence and unpaired comparisons
           "EffectSizeIntervals", "EquivalenceResult", "HodgesLehmannResult", "UnpairedResult",
           "effect_size_intervals", "equivalence_test", "hodges_lehmann",
           "unpaired_bootstrap_ci", "unpaired_permutation_test", "unpaired_ttest",
           "MixedModelResult", "mixed_model", "mixed_vs_anova",
           "RankIntervals", "compact_letter_display", "rank_intervals",
           # queries in blocks: mrrstats.blocked.randomization_test, .bootstrap_ci
           "blocked",
           "DiscriminativePowerResult", "SegmentComparison",
           # the result classes of the paired tests and of power
           "TTestResult", "WilcoxonResult", "SignTestResult", "RandomizationTestResult",
           "BootstrapTestResult", "BootstrapCIResult", "EffectSizes", "PowerResult",
           "SimulatedPowerResult", "TopicSetSizeResult"]
