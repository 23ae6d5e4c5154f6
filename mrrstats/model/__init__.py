"""The canonical in-memory data model every door produces.

* :class:`~mrrstats.model.ranking.RankedRun` and ``Judged``: judged rankings as
  query offsets plus columnar arrays, in a named tie convention;
* :class:`~mrrstats.model.scoretable.ScoreTable`: per-query scores (queries x
  systems) of one measure, made by the one coercion function
  :func:`~mrrstats.model.scoretable.as_score_table` that every statistic calls.
"""

from .ranking import TIES, Judged, RankedRun, judged_from_qrels, rank_run
from .scoretable import ScoreTable, as_score_table, as_score_tables

__all__ = ["TIES", "Judged", "RankedRun", "judged_from_qrels", "rank_run", "ScoreTable",
           "as_score_table", "as_score_tables"]
