"""The in-memory doors: frames, Arrow tables, polars frames, ranx objects and dicts
to a validated :class:`~mrrstats.io.records.Run` or
:class:`~mrrstats.io.records.Qrels`.

Columns go over as whole columns: Arrow-backed ids (pandas' ``str`` dtype,
``pd.ArrowDtype``, Arrow, polars) are taken as they are, and the compiled
column kernels of :mod:`mrrstats.io.columns` give the query codes, document
hashes and repeat check a file gets from the tokenizer. Every problem is an
:class:`~mrrstats.InputError` naming the row, query or document.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from itertools import chain
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from ..errors import InputError, ParameterTypeError
from ..lazy import deferred
from .columns import run_columns, strings_from_python
from .hashing import duplicate_pairs, encode_strings, hash_strings
from .records import (
    DOC_ALIASES,
    GRADE_ALIASES,
    QUERY_ALIASES,
    SCORE_ALIASES,
    Qrels,
    Run,
    as_string_array,
    dedupe_pairs,
    keep_index,
    qrels_from_arrays,
)

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow.compute as pc
else:  # imported when first used: the TREC-file path builds no DataFrame and
    # needs no Arrow compute function (pyarrow.compute: 0.02 s of a fresh process)
    pd = deferred("pandas")
    pc = deferred("pyarrow.compute")

__all__ = [
    "run_from_arrays",
    "run_from_frame",
    "run_from_dict",
    "qrels_from_frame",
    "qrels_from_dict",
    "foreign_table",
    "pick_column",
]


def pick_column(frame: pd.DataFrame, aliases, what: str, source: str) -> str:
    lower = {str(c).lower(): c for c in frame.columns}
    for alias in aliases:
        if alias in lower:
            return lower[alias]
    raise InputError(
        f"no {what} column; expected one of {', '.join(aliases)}, "
        f"found {', '.join(map(str, frame.columns))}",
        source=source,
    )


def qrels_from_frame(frame: pd.DataFrame, duplicates: str) -> Qrels:
    source = frame.attrs.get("source", "<DataFrame qrels>")
    qcol = pick_column(frame, QUERY_ALIASES, "query", source)
    dcol = pick_column(frame, DOC_ALIASES, "document", source)
    gcol = pick_column(
        frame,
        [a for a in GRADE_ALIASES if a not in (str(qcol).lower(), str(dcol).lower())],
        "grade",
        source,
    )
    grades = pd.to_numeric(frame[gcol], errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isfinite(grades) | (grades != np.round(grades))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"row {i}: grade {frame[gcol].iloc[i]!r} is not an integer", source=source
        )
    return qrels_from_arrays(
        frame[qcol].astype(str).to_numpy(object),
        frame[dcol].astype(str).to_numpy(object),
        grades.astype(np.int64),
        source,
        None,
        duplicates,
    )


_ID_COLLECTIONS = (set, frozenset, list, tuple)


def qrels_from_dict(mapping: dict, duplicates: str) -> Qrels:
    """``{query: {doc: grade}}``, or ``{query: {doc, ...}}`` / ``{query: [doc, ...]}``
    (every listed document relevant, grade 1; an empty collection: a judged query
    without any relevant document)."""
    source = "<dict qrels>"
    queries, docs, grades, empty = [], [], [], []
    for q, judged in mapping.items():
        if isinstance(judged, _ID_COLLECTIONS) or (
            isinstance(judged, np.ndarray) and judged.ndim == 1
        ):
            if len(judged) == 0:
                empty.append(str(q))
            for d in judged:
                if isinstance(d, (dict, list, set, tuple)):
                    raise InputError(
                        f"query {q!r}: expected document ids, got a "
                        f"{type(d).__name__} in the collection",
                        source=source,
                    )
                queries.append(str(q))
                docs.append(str(d))
                grades.append(1)
            continue
        if not isinstance(judged, Mapping):
            raise InputError(
                f"query {q!r}: expected a dict {{doc: grade}} or a set/list of "
                f"relevant documents, got {type(judged).__name__}",
                source=source,
            )
        if len(judged) == 0:
            empty.append(str(q))
        for d, g in judged.items():
            if isinstance(g, bool) or not isinstance(g, (int, np.integer, float, np.floating)):
                raise InputError(
                    f"query {q!r}, document {d!r}: grade {g!r} is not a number", source=source
                )
            if not math.isfinite(g) or g != int(g):
                raise InputError(
                    f"query {q!r}, document {d!r}: grade {g!r} is not an integer", source=source
                )
            queries.append(str(q))
            docs.append(str(d))
            grades.append(int(g))
    return qrels_from_arrays(
        queries, docs, grades, source, None, duplicates, empty_queries=tuple(empty)
    )


def run_from_arrays(query, doc, score, rank, name, source, duplicates) -> Run:
    """A validated Run from columns (query and doc ids, scores, optional ranks).

    The ids become Arrow strings without a Python object per row where they are
    Arrow-backed already (pandas' ``str`` columns, Arrow, polars); query codes,
    document hashes and the repeat check then come from the compiled column
    kernels (:func:`mrrstats.io.columns.run_columns`), as for a file.
    """
    score = np.asarray(score, dtype=np.float64)
    if score.size == 0:
        raise InputError("no results found (empty run)", source=source)
    q_arr, d_arr = as_string_array(query), as_string_array(doc)
    if q_arr.null_count or d_arr.null_count:
        which, arr = ("query", q_arr) if q_arr.null_count else ("document", d_arr)
        i = int(np.flatnonzero(pc.is_null(arr).to_numpy(zero_copy_only=False))[0])
        raise InputError(f"row {i}: missing {which} id", source=source)
    bad = ~np.isfinite(score)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"query {q_arr[i].as_py()!r}, document {d_arr[i].as_py()!r}: score "
            f"{score[i]} is not finite",
            source=source,
        )
    rank_arr = None if rank is None else as_string_array(rank)
    meta = run_columns(q_arr, d_arr, score)
    if meta is None:  # small run or no numba: Arrow's dictionary encoding, numpy hashes
        with ThreadPoolExecutor(max_workers=2) as pool:
            encoded = pool.submit(encode_strings, q_arr)
            doc_hashes = hash_strings(d_arr)
            dictionary, codes = encoded.result()
        repeat = duplicate_pairs(q_arr, d_arr, codes=codes, doc_hashes=doc_hashes)
        meta = {
            "query_dictionary": dictionary,
            "query_codes": codes,
            "doc_hashes": doc_hashes,
            "query_blocks": None,
        }
    else:
        repeat = meta.pop("repeat")
    if repeat:  # the exact pandas path, only when some pair is there twice
        qo = q_arr.to_numpy(zero_copy_only=False)
        do = d_arr.to_numpy(zero_copy_only=False)
        keep = dedupe_pairs(qo, do, score, None, duplicates, source, "run")
        take = pa.array(keep)
        return Run(
            name=name,
            query=q_arr.take(take),
            doc=d_arr.take(take),
            score=score[keep],
            rank=None if rank_arr is None else rank_arr.take(take),
            tag=None,
            source=source,
        )
    run = Run(
        name=name, query=q_arr, doc=d_arr, score=score, rank=rank_arr, tag=None, source=source
    )
    return keep_index(run, meta)


def run_from_frame(frame: pd.DataFrame, name, duplicates) -> Run:
    source = frame.attrs.get("source", "<DataFrame run>")
    qcol = pick_column(frame, QUERY_ALIASES, "query", source)
    dcol = pick_column(frame, DOC_ALIASES, "document", source)
    lower = {str(c).lower(): c for c in frame.columns}
    has_score = any(a in lower for a in SCORE_ALIASES)
    rank = frame[lower["rank"]] if "rank" in lower else None
    if has_score:
        scol = pick_column(frame, SCORE_ALIASES, "score", source)
        scores = pd.to_numeric(frame[scol], errors="coerce").to_numpy(dtype=np.float64)
        nan_in = np.isnan(scores) & frame[scol].notna().to_numpy()
        if nan_in.any():
            i = int(np.flatnonzero(nan_in)[0])
            raise InputError(
                f"row {i}: score {frame[scol].iloc[i]!r} is not a number", source=source
            )
    elif rank is not None:
        # Rank-only data: the ranks define the order; the score is minus the rank,
        # so that every convention ordering by score orders by rank.
        ranks = pd.to_numeric(frame[lower["rank"]], errors="coerce").to_numpy(np.float64)
        bad = ~np.isfinite(ranks)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InputError(
                f"row {i}: rank {frame[lower['rank']].iloc[i]!r} is not a number", source=source
            )
        scores = -ranks
    else:
        raise InputError(
            f"no score column (and no rank column); expected one of "
            f"{', '.join(SCORE_ALIASES + ('rank',))}, found "
            f"{', '.join(map(str, frame.columns))}",
            source=source,
        )
    return run_from_arrays(
        frame[qcol], frame[dcol], scores, rank, name or "run", source, duplicates
    )


def foreign_table(obj):
    """An Arrow table/batch, a polars frame or a ranx Run/Qrels as a pandas frame or
    dict; ``None`` for anything else. The packages are never imported here: the
    object is recognised by its type's module and attributes."""
    module = type(obj).__module__ or ""
    # types_mapper: the columns stay Arrow arrays inside the frame (no copy of the ids
    # into Python strings); the run reader takes them as they are.
    if isinstance(obj, (pa.Table, pa.RecordBatch)):
        return obj.to_pandas(types_mapper=pd.ArrowDtype)
    if module.startswith("polars") and hasattr(obj, "to_arrow"):
        return obj.to_arrow().to_pandas(types_mapper=pd.ArrowDtype)
    if module.startswith("ranx") and hasattr(obj, "to_dict"):
        return obj.to_dict()
    return records_frame(obj)


def is_records(obj) -> bool:
    """Whether ``obj`` is named-tuple records (ir_datasets' ``qrels_iter()``, ir_measures'
    ``Qrel``/``ScoredDoc`` lists): an iterator, or a list or tuple of named tuples."""
    if isinstance(obj, Iterator) and not isinstance(obj, (str, bytes)):
        return True
    return isinstance(obj, (list, tuple)) and bool(obj) and hasattr(obj[0], "_fields")


def records_frame(obj):
    """Named-tuple records (``query_id, doc_id, relevance`` or ``query_id, doc_id, score``,
    as ir_datasets and ir_measures give them) as a pandas frame; ``None`` for anything
    else. An iterator is read to its end."""
    if not is_records(obj):
        return None
    items = list(obj)
    if not items:
        raise InputError("no records: the iterator or list is empty", source="<records>")
    fields = getattr(items[0], "_fields", None)
    if fields is None or any(getattr(r, "_fields", None) != fields for r in items):
        raise ParameterTypeError("records must all be named tuples of one type (query_id, "
                                 "doc_id, relevance / score), as ir_datasets gives them",
                                 name="records")
    return pd.DataFrame.from_records(items, columns=list(fields))


def run_from_dict(mapping: dict, name, duplicates) -> Run:
    """``{query: {doc: score}}``, or ``{query: [doc, ...]}`` in rank order.

    A list (or tuple, or 1-d array) is a ranking: its order is the run's order
    under every tie convention (scores ``n, n-1, ..., 1`` and ranks ``1..n`` are
    attached, all distinct, so no tie rule can reorder them).
    """
    source = "<dict run>"
    keys = list(mapping.keys())
    values = list(mapping.values())
    is_list = [
        isinstance(v, (list, tuple)) or (isinstance(v, np.ndarray) and v.ndim == 1) for v in values
    ]
    for q, v, lst in zip(keys, values, is_list, strict=True):
        if lst:
            continue
        if isinstance(v, (set, frozenset)):
            raise InputError(
                f"query {q!r}: a set has no order; give the retrieved documents "
                "as a list in rank order, or a dict {doc: score}",
                source=source,
            )
        if not isinstance(v, Mapping):
            raise InputError(
                f"query {q!r}: expected a dict {{doc: score}} or a list of "
                f"documents in rank order, got {type(v).__name__}",
                source=source,
            )
    if any(is_list) and not all(is_list):
        raise InputError(
            "mixes queries given as ranked lists and as {doc: score} dicts; use "
            "one shape for the whole run",
            source=source,
        )
    lens = np.fromiter((len(v) for v in values), dtype=np.int64, count=len(values))
    total = int(lens.sum())
    qkeys = as_string_array(np.asarray([str(q) for q in keys], dtype=object))
    query = qkeys.take(pa.array(np.repeat(np.arange(len(keys)), lens)))
    if all(is_list) and values:
        doc = strings_from_python(chain.from_iterable(values), total)
        docs = None if doc is not None else list(chain.from_iterable(values))
        try:
            doc = doc if doc is not None else pa.array(docs)
            ok = (
                pa.types.is_string(doc.type)
                or pa.types.is_integer(doc.type)
                or pa.types.is_large_string(doc.type)
            )
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
            ok = False
        if not ok:
            for q, v in zip(keys, values, strict=True):
                for i, d in enumerate(v):
                    if isinstance(d, (dict, list, set, tuple)):
                        raise InputError(
                            f"query {q!r}: expected document ids in rank order, "
                            f"got a {type(d).__name__} at position {i}",
                            source=source,
                        )
            doc = pa.array([str(d) for d in docs], type=pa.string())  # type: ignore[union-attr]
        starts = np.repeat(np.cumsum(lens) - lens, lens)
        position = np.arange(total) - starts  # 0-based position in its list
        score = (np.repeat(lens, lens) - position).astype(np.float64)
        # ranks as strings, as a file gives them: "1".."n" taken from one small dictionary
        longest = int(lens.max()) if lens.size else 0
        rank = pa.array(np.arange(1, longest + 1).astype(str), type=pa.string()).take(
            pa.array(position)
        )
        kind = "list"
    else:
        doc = strings_from_python(chain.from_iterable(v.keys() for v in values), total)
        raw = list(chain.from_iterable(v.values() for v in values))
        try:
            scores_pa = pa.array(raw)
            numeric = pa.types.is_integer(scores_pa.type) or pa.types.is_floating(scores_pa.type)
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
            numeric = False
        if not numeric or scores_pa.null_count:
            for q, v in zip(keys, values, strict=True):
                for d, sc in v.items():
                    if isinstance(sc, bool) or not isinstance(
                        sc, (int, float, np.integer, np.floating)
                    ):
                        raise InputError(
                            f"query {q!r}, document {d!r}: score {sc!r} is not a number",
                            source=source,
                        )
            score = np.asarray(raw, dtype=np.float64)
        else:
            score = scores_pa.to_numpy(zero_copy_only=False).astype(np.float64, copy=False)
        if doc is None:
            docs = list(chain.from_iterable(v.keys() for v in values))
            doc = as_string_array(docs) if docs else pa.array([], type=pa.string())
        rank = None
        kind = "dict"
    run = run_from_arrays(query, doc, score, rank, name or "run", source, duplicates)
    run._meta["from_dict"] = kind
    return run
