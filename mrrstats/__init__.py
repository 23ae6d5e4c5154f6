"""mrrstats: the statistics of Mean Reciprocal Rank and its companion metrics.

Read runs and qrels exactly as trec_eval does, compute per-query RR, AP, nDCG,
P, R and Success with every convention named, and do the statistics properly:
random-ranking baselines, paired tests, bootstrap intervals, many-system
control and agreement between measures.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import (ConvergenceWarning, InputError, MrrstatsDeprecationWarning, MrrstatsError,
                     ParameterError, ParameterTypeError, QueriesLeftOutWarning, ResourceError)
from .lazy import alias_modules as _alias_modules
from .lazy import attach as _attach
from .version import __version__ as __version__  # re-exported

# Every public name is imported when first used (SPEC 1 lazy loading, mrrstats.lazy):
# ``import mrrstats`` loads none of pandas, scipy.stats, statsmodels, pyarrow, numba or
# matplotlib. ``{submodule: [names]}``, as the eager ``from .sub import names`` read.
_getattr, __dir__, _names = _attach(__name__, {
    # -- doors in (mrrstats.io) and bundled data (mrrstats.datasets) ---------------
    "io": ["KGFilter", "Qrels", "Run", "kg_filter", "read_qrels", "read_run",
           "read_score_matrix"],
    # -- the data model (mrrstats.model) and per-query metrics (mrrstats.metrics) --
    "model": ["TIES", "RankedRun", "rank_run"],
    "metrics": ["EMPTY_TARGET", "QUERIES", "Evaluation", "Measure", "QueryCounts", "evaluate",
                "evaluate_flat", "parse_measure", "parse_measures", "score_ranked_run",
                "score_rankings",
                "Accumulator"],  # batches of a training loop -> one Evaluation
    "metrics.torch_metric": ["TorchMetric"],  # the Accumulator as a torchmetrics Metric
    # -- random-ranking baselines and link prediction (mrrstats.baselines) ---------
    "baselines": ["FirstRelevantRank", "LinkPredictionRanks", "RandomBaselineResult",
                  "RandomMetricMoments", "adjusted_mrr", "evaluation_baseline", "expected_ap",
                  "expected_bpref", "expected_mrr", "expected_rbp", "expected_rank",
                  "expected_rr", "expected_success",
                  "random_baseline_counts", "random_baseline_test", "random_metric_moments",
                  "ranks_from_negatives", "ranks_from_scorer", "ranks_from_scores",
                  "variance_mrr", "variance_rank", "variance_rr", "variance_success",
                  "SampledMetricResult", "correct_sampled_metric"],
    # -- significance and uncertainty (mrrstats.stats) -----------------------------
    "stats": ["Comparison", "ConfidenceInterval", "PairwiseResult", "anova_tukey_hsd",
              "bootstrap_ci", "bootstrap_test", "compare", "discriminative_power",
              "effect_sizes", "paired_ttest", "pairwise_tests", "randomization_power",
              "randomization_test", "randomized_tukey_hsd", "residual_variance", "sign_test",
              "blocked_anova",
              "topic_set_size", "ttest_power", "westfall_young", "wilcoxon_test",
              # estimation, equivalence, unpaired comparisons
              "EffectSizeIntervals", "EquivalenceResult", "HodgesLehmannResult",
              "UnpairedResult", "effect_size_intervals", "equivalence_test", "hodges_lehmann",
              "unpaired_bootstrap_ci", "unpaired_permutation_test", "unpaired_ttest",
              "MixedModelResult", "mixed_model", "mixed_vs_anova",
              "BootstrapCIResult", "BootstrapTestResult", "EffectSizes", "PowerResult",
              "RandomizationTestResult", "SignTestResult", "SimulatedPowerResult",
              "TopicSetSizeResult", "TTestResult", "WilcoxonResult",
              "DiscriminativePowerResult", "SegmentComparison",
              # leaderboards: rank intervals and compact letters (stats.leaderboard)
              "RankIntervals", "compact_letter_display", "rank_intervals",
              # 10^6-10^8 queries in blocks: blocked.randomization_test, ...
              "blocked"],
    "stats.segments": ["by_segment"],
    "stats.replicates": ["ReplicateComparison", "replicate_tests",  # several runs
                         "simulate_replicates"],
    "stats.meta": ["AcrossCollectionsResult", "across_collections"],  # several collections
    "stats.critical": ["CriticalDifferenceResult", "critical_difference"],  # many systems too
    "stats.reproducibility": ["ReproducibilityResult", "reproducibility"],  # repro_eval
    "stats.bayes": ["BayesianComparison", "bayesian_comparison", "bayesian_hierarchical"],
    "stats.hierarchical": ["HierarchicalComparison", "bayesian_hierarchical_t"],
    "stats.simulation": ["CalibrationResult", "calibrate_tests", "simulate_collection"],
    # -- MRR against other measures (mrrstats.agreement) ---------------------------
    "agreement": ["DecisionAgreement", "add_relevant", "agreement_matrix", "decision_agreement",
                  "discriminative_power_table", "move_first_relevant", "mrr_vs_map",
                  "per_query_correlation", "perfect_rr_disagreement", "perturbation_summary",
                  "ranking_agreement", "rr_diagnostics", "swap_relevant", "swapped_pairs",
                  "tau_ap",
                  "MultiverseResult", "multiverse"],
    # -- LLM judges and incomplete judgments ----------------------------------------
    "stats.ppi": ["PPIResult", "ppi_evaluate"],
    "agreement.judges": ["JudgeAgreement", "SimulatedJudge", "judge_agreement",
                         "simulate_judge"],
    "metrics.bounds": ["JudgmentBounds", "judgment_bounds"],
    # -- plots and reports (mrrstats.report) ---------------------------------------
    "report": ["ReportData", "ReportResult", "load_report", "make_report", "plots"],
}, submodules=["datasets"])

if TYPE_CHECKING:  # the names of the table above, for type checkers
    from . import datasets
    from .agreement import (
        DecisionAgreement, MultiverseResult, add_relevant, agreement_matrix, decision_agreement,
        discriminative_power_table, move_first_relevant, mrr_vs_map, multiverse,
        per_query_correlation, perfect_rr_disagreement, perturbation_summary, ranking_agreement,
        rr_diagnostics, swap_relevant, swapped_pairs, tau_ap)
    from .agreement.judges import JudgeAgreement, SimulatedJudge, judge_agreement, simulate_judge
    from .baselines import (
        FirstRelevantRank, LinkPredictionRanks, RandomBaselineResult, RandomMetricMoments,
        SampledMetricResult, adjusted_mrr, correct_sampled_metric, evaluation_baseline,
        expected_ap, expected_bpref, expected_mrr, expected_rank, expected_rbp, expected_rr,
        expected_success,
        random_baseline_counts, random_baseline_test, random_metric_moments, ranks_from_negatives,
        ranks_from_scorer, ranks_from_scores, variance_mrr, variance_rank, variance_rr,
        variance_success)
    from .io import KGFilter, Qrels, Run, kg_filter, read_qrels, read_run, read_score_matrix
    from .metrics import (
        Accumulator, EMPTY_TARGET, Evaluation, Measure, QUERIES, QueryCounts, evaluate,
        evaluate_flat, parse_measure, parse_measures, score_ranked_run, score_rankings)
    from .metrics.bounds import JudgmentBounds, judgment_bounds
    from .metrics.torch_metric import TorchMetric
    from .model import RankedRun, TIES, rank_run
    from .report import ReportData, ReportResult, load_report, make_report, plots
    from .stats import (
        BootstrapCIResult, BootstrapTestResult, Comparison, ConfidenceInterval,
        DiscriminativePowerResult, EffectSizeIntervals, EffectSizes, EquivalenceResult,
        HodgesLehmannResult, MixedModelResult, PairwiseResult, PowerResult,
        RandomizationTestResult, RankIntervals, SegmentComparison, SignTestResult,
        SimulatedPowerResult, TTestResult, TopicSetSizeResult, UnpairedResult, WilcoxonResult,
        anova_tukey_hsd, blocked, bootstrap_ci, bootstrap_test, compact_letter_display, compare,
        discriminative_power, effect_size_intervals, effect_sizes, equivalence_test,
        hodges_lehmann, mixed_model, mixed_vs_anova, paired_ttest, pairwise_tests,
        randomization_power, randomization_test, randomized_tukey_hsd, rank_intervals,
        residual_variance, sign_test, topic_set_size, ttest_power, unpaired_bootstrap_ci,
        unpaired_permutation_test, unpaired_ttest, westfall_young, wilcoxon_test)
    from .stats import blocked_anova
    from .stats.bayes import BayesianComparison, bayesian_comparison, bayesian_hierarchical
    from .stats.critical import CriticalDifferenceResult, critical_difference
    from .stats.hierarchical import HierarchicalComparison, bayesian_hierarchical_t
    from .stats.meta import AcrossCollectionsResult, across_collections
    from .stats.ppi import PPIResult, ppi_evaluate
    from .stats.replicates import ReplicateComparison, replicate_tests, simulate_replicates
    from .stats.reproducibility import ReproducibilityResult, reproducibility
    from .stats.segments import by_segment
    from .stats.simulation import CalibrationResult, calibrate_tests, simulate_collection

# Module paths kept from 0.1 (deprecated aliases): ``import mrrstats.plots`` and
# ``import mrrstats.examples`` keep working, importing their targets only then.
_alias_modules(__name__, {"plots": "mrrstats.report.plots", "examples": "mrrstats.datasets"},
               deprecated=["examples"])

__all__ = [
    "MrrstatsError",
    "InputError",
    "ParameterError",
    "ParameterTypeError",
    "ResourceError",
    "MrrstatsDeprecationWarning",
    "QueriesLeftOutWarning",
    "ConvergenceWarning",
    "read_score_matrix",
    "datasets",
    "blocked",
    "QUERIES",
    "Evaluation",
    "QueryCounts",
    "evaluate",
    "evaluate_flat",
    "Accumulator",
    "TorchMetric",
    "EMPTY_TARGET",
    "Qrels",
    "Run",
    "read_qrels",
    "read_run",
    "KGFilter",
    "kg_filter",
    "Measure",
    "parse_measure",
    "parse_measures",
    "score_ranked_run",
    "score_rankings",
    "TIES",
    "RankedRun",
    "rank_run",
    "FirstRelevantRank",
    "RandomBaselineResult",
    "RandomMetricMoments",
    "adjusted_mrr",
    "evaluation_baseline",
    "expected_ap",
    "expected_bpref",
    "expected_rbp",
    "expected_mrr",
    "expected_rank",
    "expected_rr",
    "expected_success",
    "random_baseline_counts",
    "random_baseline_test",
    "random_metric_moments",
    "variance_mrr",
    "variance_rank",
    "variance_rr",
    "variance_success",
    "LinkPredictionRanks",
    "ranks_from_negatives",
    "ranks_from_scores",
    "ranks_from_scorer",
    "SampledMetricResult",
    "correct_sampled_metric",
    "ConfidenceInterval",
    "bootstrap_ci",
    "bootstrap_test",
    "effect_sizes",
    "paired_ttest",
    "randomization_test",
    "residual_variance",
    "blocked_anova",
    "sign_test",
    "wilcoxon_test",
    "PairwiseResult",
    "DiscriminativePowerResult",
    "SegmentComparison",
    "anova_tukey_hsd",
    "discriminative_power",
    "pairwise_tests",
    "randomized_tukey_hsd",
    "westfall_young",
    "randomization_power",
    "topic_set_size",
    "ttest_power",
    "Comparison",
    "compare",
    "by_segment",
    "ReplicateComparison",
    "replicate_tests",
    "simulate_replicates",
    "AcrossCollectionsResult",
    "across_collections",
    "CriticalDifferenceResult",
    "critical_difference",
    "ReproducibilityResult",
    "reproducibility",
    "BayesianComparison",
    "bayesian_comparison",
    "bayesian_hierarchical",
    "HierarchicalComparison",
    "bayesian_hierarchical_t",
    "CalibrationResult",
    "calibrate_tests",
    "simulate_collection",
    "EffectSizeIntervals",
    "EquivalenceResult",
    "HodgesLehmannResult",
    "UnpairedResult",
    "effect_size_intervals",
    "equivalence_test",
    "hodges_lehmann",
    "unpaired_bootstrap_ci",
    "unpaired_permutation_test",
    "unpaired_ttest",
    "MixedModelResult",
    "mixed_model",
    "mixed_vs_anova",
    # result classes of the paired tests, the bootstrap and power
    "TTestResult",
    "WilcoxonResult",
    "SignTestResult",
    "RandomizationTestResult",
    "BootstrapTestResult",
    "BootstrapCIResult",
    "EffectSizes",
    "PowerResult",
    "SimulatedPowerResult",
    "TopicSetSizeResult",
    "RankIntervals",
    "compact_letter_display",
    "rank_intervals",
    "DecisionAgreement",
    "agreement_matrix",
    "decision_agreement",
    "discriminative_power_table",
    "per_query_correlation",
    "perfect_rr_disagreement",
    "ranking_agreement",
    "swapped_pairs",
    "tau_ap",
    "mrr_vs_map",
    "rr_diagnostics",
    "add_relevant",
    "move_first_relevant",
    "perturbation_summary",
    "swap_relevant",
    "MultiverseResult",
    "multiverse",
    "PPIResult",
    "ppi_evaluate",
    "JudgeAgreement",
    "SimulatedJudge",
    "judge_agreement",
    "simulate_judge",
    "JudgmentBounds",
    "judgment_bounds",
    "plots",
    "ReportData",
    "ReportResult",
    "load_report",
    "make_report",
]


if not TYPE_CHECKING:  # type checkers see the imports above, and no other name
    def __getattr__(name):
        # ``mrrstats.examples`` (0.1) is ``mrrstats.datasets`` now; the old name still works.
        if name == "examples":
            _getattr("deprecation").warn_deprecated("mrrstats.examples", "mrrstats.datasets")
            return _getattr("datasets")
        return _getattr(name)
