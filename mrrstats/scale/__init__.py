"""Larger than memory, and beyond one machine.

Every engine feeds groups of whole queries to the one per-query evaluator
(:func:`mrrstats.metrics.evaluation.evaluate_group`), so the per-query values
are those of the in-memory engine, bit for bit:

* :mod:`mrrstats.scale.stream`: a run file (TREC text or Parquet) read in
  pieces and partitioned by a hash of the query into buckets on disk (pyarrow's
  streaming CSV reader and Arrow IPC files; file order kept within a query),
  then evaluated one bucket at a time;
* :mod:`mrrstats.scale.dask`: a Dask DataFrame or Parquet files, each
  partition (whole queries, after a shuffle by query if needed) evaluated on
  the workers, the small per-query table gathered.

Link prediction at scale (ranks from a scoring function called one chunk of
candidates at a time, no score matrix held whole) is
:func:`mrrstats.ranks_from_scorer`, in :mod:`mrrstats.baselines.scorer` beside the
other link-prediction ranks.
"""

from typing import TYPE_CHECKING

from ..lazy import attach as _attach

# Public names are imported when first used (SPEC 1 lazy loading, mrrstats.lazy).
__getattr__, __dir__, _names = _attach(__name__, {
    "stream": ["iter_query_groups"],
})

if TYPE_CHECKING:  # the names of the table above, for type checkers
    from .stream import iter_query_groups

__all__ = ["iter_query_groups"]
