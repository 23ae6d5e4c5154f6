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
# -- significance and uncertainty (mrrstats.significance, .multiple, .power, .compare)
# -- agreement between measures (mrrstats.agreement)
