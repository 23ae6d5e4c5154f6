"""Every door in: TREC qrels and runs (files, frames, dicts) and score matrices."""

from .trec import Qrels, Run, read_qrels, read_run, read_score_matrix, read_text

__all__ = ["Qrels", "Run", "read_qrels", "read_run", "read_score_matrix", "read_text"]
