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
# -- random-ranking baselines and link prediction (mrrstats.baselines, .linkpred)
# -- significance and uncertainty (mrrstats.significance, .multiple, .power, .compare)
# -- agreement between measures (mrrstats.agreement)
