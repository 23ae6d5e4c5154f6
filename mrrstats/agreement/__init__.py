"""MRR against other measures: agreement, discriminative power, diagnostics, perturbations.

=============== ===========================================================================
module          holds
=============== ===========================================================================
``measures``    agreement of the system rankings and per-query values of several measures
                (tau, tau_AP, rho, swapped pairs, correlations) and the one score input
``decisions``   agreement of the significance decisions, discriminative power
``diagnostics`` the distribution of RR per system (the pile at 1), MRR against MAP
``perturb``     controlled perturbations of real runs, for teaching
``multiverse``  every evaluation convention at once, and what changes
=============== ===========================================================================
"""

from typing import TYPE_CHECKING

from ..lazy import attach as _attach

# Public names are imported when first used (SPEC 1 lazy loading, mrrstats.lazy).
__getattr__, __dir__, _names = _attach(__name__, {
    "decisions": ["DecisionAgreement", "decision_agreement", "discriminative_power_table"],
    "diagnostics": ["mrr_vs_map", "rr_diagnostics"],
    "measures": ["agreement_matrix", "per_query_correlation", "perfect_rr_disagreement",
                 "ranking_agreement", "swapped_pairs", "tau_ap"],
    "multiverse": ["MultiverseResult", "multiverse"],
    "perturb": ["add_relevant", "move_first_relevant", "perturbation_summary", "swap_relevant"],
})

if TYPE_CHECKING:  # the names of the table above, for type checkers
    from .decisions import DecisionAgreement, decision_agreement, discriminative_power_table
    from .diagnostics import mrr_vs_map, rr_diagnostics
    from .measures import (
        agreement_matrix,
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
