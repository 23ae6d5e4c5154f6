"""The canonical in-memory data model every door produces.

* :class:`~mrrstats.model.ranking.RankedRun` and ``Judged``: judged rankings as
  query offsets plus columnar arrays, in a named tie convention;
* :class:`~mrrstats.model.scoretable.ScoreTable`: per-query scores (queries x
  systems) of one measure, made by the one coercion function
  :func:`~mrrstats.model.scoretable.as_score_table` that every statistic calls.
"""

from typing import TYPE_CHECKING

from ..lazy import attach as _attach

# Public names are imported when first used (SPEC 1 lazy loading, mrrstats.lazy).
__getattr__, __dir__, _names = _attach(__name__, {
    "ranking": ["TIES", "Judged", "RankedRun", "judged_from_qrels", "rank_run"],
    "scoretable": ["ScoreTable", "as_score_table", "as_score_tables"],
})

if TYPE_CHECKING:  # the names of the table above, for type checkers
    from .ranking import TIES, Judged, RankedRun, judged_from_qrels, rank_run
    from .scoretable import ScoreTable, as_score_table, as_score_tables

__all__ = ["TIES", "Judged", "RankedRun", "judged_from_qrels", "rank_run", "ScoreTable",
           "as_score_table", "as_score_tables"]
