"""Every door in: TREC qrels and runs (files, frames, dicts, lists, Arrow, polars,
ranx), flat tensors, knowledge-graph triples, and score matrices."""

from typing import TYPE_CHECKING

from ..lazy import attach as _attach

# Public names are imported when first used (SPEC 1 lazy loading, mrrstats.lazy).
__getattr__, __dir__, _names = _attach(__name__, {
    "flat": ["as_host_array", "flat_to_qrels_run"],
    "kg": ["KGFilter", "kg_filter", "read_triples"],
    "trec": ["Qrels", "Run", "read_qrels", "read_run", "read_score_matrix", "read_text"],
})

if TYPE_CHECKING:  # the names of the table above, for type checkers
    from .flat import as_host_array, flat_to_qrels_run
    from .kg import KGFilter, kg_filter, read_triples
    from .trec import Qrels, Run, read_qrels, read_run, read_score_matrix, read_text

__all__ = ["Qrels", "Run", "read_qrels", "read_run", "read_score_matrix", "read_text",
           "KGFilter", "kg_filter", "read_triples", "as_host_array", "flat_to_qrels_run"]
