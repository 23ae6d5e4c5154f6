"""mrrstats: the statistics of Mean Reciprocal Rank and its companion metrics.

Read runs and qrels exactly as trec_eval does, compute per-query RR, AP, nDCG,
P, R and Success with every convention named, and do the statistics properly:
random-ranking baselines, paired tests, bootstrap intervals, many-system
control and agreement between measures.
"""

from __future__ import annotations

__version__ = "0.1.0"

from ._errors import InputError
from .io import read_score_matrix

# -- foundation: reading, ranks, metrics, evaluate ---------------------------
from . import datasets
from .evaluation import QUERIES, Evaluation, QueryCounts, evaluate
from .io import Qrels, Run, read_qrels, read_run
from .measures import Measure, parse_measure, parse_measures
from .metrics import score_ranked_run, score_rankings
from .ranking import TIES, RankedRun, rank_run
# -- random-ranking baselines and link prediction (mrrstats.baselines, .linkpred)
from .baselines import (FirstRelevantRank, RandomBaselineResult, RandomMetricMoments,
                        adjusted_mrr, evaluation_baseline, expected_ap, expected_mrr,
                        expected_rank, expected_rr, expected_success, random_baseline_counts,
                        random_baseline_test, random_metric_moments, variance_mrr,
                        variance_rank, variance_rr, variance_success)
from .linkpred import LinkPredictionRanks, ranks_from_negatives, ranks_from_scores
# -- significance and uncertainty (mrrstats.significance, .multiple, .power, .compare)
from .significance import (ConfidenceInterval, bootstrap_ci, bootstrap_test, effect_sizes,
                           paired_ttest, randomization_test, residual_variance, sign_test,
                           wilcoxon_test)
from .multiple import (PairwiseResult, anova_tukey_hsd, discriminative_power, pairwise_tests,
                       randomized_tukey_hsd, westfall_young)
from .power import randomization_power, topic_set_size, ttest_power
from .compare import Comparison, compare  # the function shadows the module
# -- agreement between measures (mrrstats.agreement)
from .agreement import (DecisionAgreement, agreement_matrix, decision_agreement,
                        discriminative_power_table, per_query_correlation,
                        perfect_rr_disagreement, ranking_agreement, swapped_pairs, tau_ap)
from .diagnostics import mrr_vs_map, rr_diagnostics
from .perturb import add_relevant, move_first_relevant, perturbation_summary, swap_relevant
# -- plots and reports (mrrstats.plots, .report, .examples)
from . import plots  # matplotlib is imported lazily inside each plot function
from . import examples
from .report import ReportData, ReportResult, load_report, make_report

__all__ = [
    "InputError",
    "read_score_matrix",
    "datasets",
    "QUERIES",
    "Evaluation",
    "QueryCounts",
    "evaluate",
    "Qrels",
    "Run",
    "read_qrels",
    "read_run",
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
    "ConfidenceInterval",
    "bootstrap_ci",
    "bootstrap_test",
    "effect_sizes",
    "paired_ttest",
    "randomization_test",
    "residual_variance",
    "sign_test",
    "wilcoxon_test",
    "PairwiseResult",
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
    "plots",
    "examples",
    "ReportData",
    "ReportResult",
    "load_report",
    "make_report",
]
