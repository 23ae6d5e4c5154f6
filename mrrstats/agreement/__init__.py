"""MRR against other measures: agreement, discriminative power, diagnostics, perturbations."""

from .diagnostics import mrr_vs_map, rr_diagnostics
from .measures import (
                       DecisionAgreement,
                       agreement_matrix,
                       decision_agreement,
                       discriminative_power_table,
                       per_query_correlation,
                       perfect_rr_disagreement,
                       ranking_agreement,
                       swapped_pairs,
                       tau_ap,
)
from .multiverse import MultiverseResult, multiverse
from .perturb import add_relevant, move_first_relevant, perturbation_summary, swap_relevant

__all__ = ["mrr_vs_map", "rr_diagnostics", "DecisionAgreement", "agreement_matrix",
           "decision_agreement", "discriminative_power_table", "per_query_correlation",
           "perfect_rr_disagreement", "ranking_agreement", "swapped_pairs", "tau_ap",
           "add_relevant", "move_first_relevant", "perturbation_summary", "swap_relevant",
           "MultiverseResult", "multiverse"]
