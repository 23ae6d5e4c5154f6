"""Every door in: TREC qrels and runs (files, frames, dicts, lists, Arrow, polars,
ranx), flat tensors, knowledge-graph triples, and score matrices."""

from .flat import as_host_array, flat_to_qrels_run
from .kg import KGFilter, kg_filter, read_triples
from .trec import Qrels, Run, read_qrels, read_run, read_score_matrix, read_text

__all__ = ["Qrels", "Run", "read_qrels", "read_run", "read_score_matrix", "read_text",
           "KGFilter", "kg_filter", "read_triples", "as_host_array", "flat_to_qrels_run"]
