"""The validated in-memory data every reader returns: :class:`Qrels` and :class:`Run`.

Shared by the file readers (:mod:`mrrstats.io.trec`) and the in-memory doors
(:mod:`mrrstats.io.doors`): the two records, the column-name aliases, the
rule for a (query, document) pair given twice, the order of a Qrels, and the
conversion of ids to Arrow strings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from ..errors import InputError
from ..lazy import deferred
from .hashing import arrow_to_numpy, strings_to_arrow

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow.compute as pc
else:  # imported when first used: the TREC-file path builds no DataFrame and
    # needs no Arrow compute function (pyarrow.compute: 0.02 s of a fresh process)
    pd = deferred("pandas")
    pc = deferred("pyarrow.compute")

__all__ = [
    "Qrels",
    "Run",
    "as_string_array",
    "keep_index",
    "dedupe_pairs",
    "qrels_from_arrays",
    "pair_order",
    "QUERY_ALIASES",
    "DOC_ALIASES",
    "GRADE_ALIASES",
    "SCORE_ALIASES",
    "DUPLICATES",
]

QUERY_ALIASES = ("query", "query_id", "q_id", "qid", "topic", "topic_id")
DOC_ALIASES = ("doc", "doc_id", "docno", "docid", "document", "pid")
GRADE_ALIASES = ("grade", "relevance", "rel", "label", "score", "judgement", "judgment")
SCORE_ALIASES = ("score", "sim", "similarity")
DUPLICATES = ("raise", "first", "max")


@dataclass(frozen=True, eq=False)
class Qrels:
    """Relevance judgements, sorted by query then document id.

    Attributes
    ----------
    query, doc : numpy.ndarray of str
        Query and document ids, one entry per judgement.
    grade : numpy.ndarray of int64
        The judged grade; ``>= rel`` (and ``> 0``) is relevant. Negative grades
        are kept (non-relevant; trec_eval treats them as judged but unusable).
    source : str
        File name, or a description of the in-memory object it came from.
    empty_queries : tuple of str
        Queries given with an empty set of judgements (``{query: set()}``):
        judged queries without any relevant document, not unknown queries.
    """

    query: np.ndarray
    doc: np.ndarray
    grade: np.ndarray
    source: str = "<qrels>"
    empty_queries: tuple = ()
    _cache: dict = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return int(self.grade.size)

    @property
    def query_ids(self) -> np.ndarray:
        """Unique query ids (those with an empty judgement set included)."""
        return pd.unique(
            np.concatenate(
                (self.query.astype(object), np.asarray(self.empty_queries, dtype=object))
            )
        )

    def to_frame(self) -> pd.DataFrame:
        """Columns ``query, doc, grade``."""
        return pd.DataFrame({"query": self.query, "doc": self.doc, "grade": self.grade})


@dataclass(frozen=True, eq=False)
class Run:
    """A retrieval run: for each query, scored documents.

    Rows are kept in file order; ranking conventions are applied later
    (:func:`mrrstats.rank_run`). String columns are pyarrow arrays so that runs
    of millions of rows stay cheap.

    Attributes
    ----------
    name : str
        The run's name: the file name without directories and ``.gz`` (or the
        ``name`` given to the reader).
    query, doc : pyarrow.StringArray or pyarrow.ChunkedArray
        Query and document id of each row.
    score : numpy.ndarray of float64
        Retrieval score (higher is better).
    rank : pyarrow.StringArray, pyarrow.ChunkedArray or None
        The run's own rank column, unparsed (only ``ties="rank"`` reads it).
    tag : str or None
        The run tag of the last column (one per file).
    source : str
        File name or a description of the object the run came from.
    """

    name: str
    query: pa.Array | pa.ChunkedArray
    doc: pa.Array | pa.ChunkedArray
    score: np.ndarray
    rank: pa.Array | pa.ChunkedArray | None = None
    tag: str | None = None
    source: str = "<run>"
    _meta: dict = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return int(self.score.size)

    def to_frame(self) -> pd.DataFrame:
        """Columns ``query, doc, rank, score`` in file order."""
        frame = pd.DataFrame(
            {
                "query": self.query.to_numpy(zero_copy_only=False),
                "doc": self.doc.to_numpy(zero_copy_only=False),
            }
        )
        if self.rank is not None:
            frame["rank"] = self.rank.to_numpy(zero_copy_only=False)
        frame["score"] = self.score
        return frame


def keep_index(run: Run, index: dict, *, blocks: bool = True) -> Run:
    """Keep on ``run`` what the compiled tokenizer (or the column kernels) found, for
    rank_run: the query dictionary and codes, the document hashes and, with ``blocks``,
    the blocks of equal scores (``index["query_blocks"]``, when not None)."""
    for key in ("query_dictionary", "query_codes", "doc_hashes"):
        run._meta[key] = index[key]
    if blocks and index.get("query_blocks") is not None:
        run._meta["score_blocks"] = index["query_blocks"]
    return run


def dedupe_pairs(query, doc, value, lines, duplicates, source, what):
    """Find repeated (query, doc) pairs; raise or keep the first / highest."""
    frame = pd.DataFrame({"q": query, "d": doc})
    dup = frame.duplicated(keep=False).to_numpy()
    if not dup.any():
        return np.arange(len(query))
    if duplicates == "raise":
        first_dup = np.flatnonzero(frame.duplicated(keep="first").to_numpy())[0]
        q, d = query[first_dup], doc[first_dup]
        line = None if lines is None else int(lines[first_dup])
        raise InputError(
            f"{what} lists query {q!r}, document {d!r} more than once (pass "
            "duplicates='first' or duplicates='max' to keep one)",
            source=source,
            line=line,
        )
    if duplicates == "first":
        keep = ~frame.duplicated(keep="first").to_numpy()
        return np.flatnonzero(keep)
    # "max": highest value, ties -> first occurrence
    order = np.lexsort((np.arange(len(query)), -np.asarray(value, dtype=np.float64)))
    sub = frame.iloc[order]
    keep_sorted = ~sub.duplicated(keep="first").to_numpy()
    return np.sort(order[keep_sorted])


def qrels_from_arrays(query, doc, grade, source, lines, duplicates, empty_queries=()) -> Qrels:
    query = np.asarray(query, dtype=object)
    doc = np.asarray(doc, dtype=object)
    grade = np.asarray(grade, dtype=np.int64)
    if grade.size == 0 and not empty_queries:
        raise InputError("no judgements found (empty qrels)", source=source)
    keep = dedupe_pairs(query, doc, grade, lines, duplicates, source, "qrels")
    query, doc, grade = query[keep], doc[keep], grade[keep]
    order = pair_order(query, doc)
    empty = tuple(sorted(set(empty_queries) - set(query.tolist())))
    return Qrels(query[order], doc[order], grade[order], source, empty)


def pair_order(query, doc) -> np.ndarray:
    """Order by query then document id (byte order), for pairs without duplicates.

    Variable-width strings throughout (numpy's fixed-width ``astype(str)`` costs
    the longest id times the rows), and one-key sorts only: Arrow's two-key
    string sort is several times slower.
    """
    q = as_string_array(query)
    d = as_string_array(doc)
    # Query: dense rank (equal ids must get equal keys); few distinct values.
    enc = pc.dictionary_encode(q.combine_chunks() if isinstance(q, pa.ChunkedArray) else q)
    order = arrow_to_numpy(pc.sort_indices(enc.dictionary))
    dict_rank = np.empty(order.size, dtype=np.int64)
    dict_rank[order] = np.arange(order.size)
    q_key = dict_rank[arrow_to_numpy(enc.indices)]
    # Document: its position in sorted order is enough, as a query never lists a
    # document twice here.
    d_order = arrow_to_numpy(pc.sort_indices(d))
    d_key = np.empty(d_order.size, dtype=np.int64)
    d_key[d_order] = np.arange(d_order.size)
    return np.lexsort((d_key, q_key))


def as_string_array(values) -> pa.Array | pa.ChunkedArray:
    """Ids as a variable-width Arrow string array, without copying where possible.

    Arrow-backed pandas columns, Arrow arrays and polars columns pass through;
    object arrays of ``str`` are converted in C; integers are cast; anything
    else is converted with ``str()`` value by value.
    """
    built = strings_to_arrow(values)  # numpy strings, pandas not imported: from the bytes
    if built is not None:
        arr = built
    elif isinstance(values, (pa.Array, pa.ChunkedArray)):
        arr = values
    else:
        if isinstance(values, pd.Series) and values.dtype.kind in "fc":
            values = values.astype(str)
        try:
            arr = (
                pa.array(values, from_pandas=True)
                if isinstance(values, pd.Series)
                else pa.array(values)
            )
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
            arr = pa.array([str(v) for v in values], type=pa.string())
    if pa.types.is_dictionary(arr.type):
        arr = arr.cast(arr.type.value_type)
    if pa.types.is_string_view(arr.type):  # polars' strings
        return arr.cast(pa.large_string())
    if pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type):
        return arr
    if pa.types.is_integer(arr.type):
        return arr.cast(pa.string())
    return pa.array([str(v) for v in arr.to_pylist()], type=pa.string())
