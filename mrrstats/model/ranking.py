"""Turning a run and qrels into per-query rankings, with every tie convention named.

A :class:`RankedRun` is the run sorted into per-query rankings: flat arrays
(query offsets, grades in rank order) that every metric is computed from
with vectorised numpy. Which document comes first when scores tie is the
``ties`` convention:

============== =================================================================
``ties``       order within a query, and who uses it
============== =================================================================
"trec_eval"    score descending, ties broken by document id descending (byte
               order); the rank column is ignored. trec_eval, pytrec_eval and
               ir_measures' default backend.
"rank"         the run's own rank column ascending (ties: document id
               descending); the MS MARCO evaluation script.
"optimistic"   score descending, tied documents ordered best grade first: the
               first relevant document gets rank 1 + #(scored strictly higher).
"pessimistic"  score descending, tied documents ordered worst grade first: the
               first relevant document gets rank #(scored at least as high)
               minus the relevant documents tied with it, plus 1.
"realistic"    the mean of the optimistic and pessimistic rank of the first
               relevant document (PyKEEN's default, TGB, OGB >= 1.3.4). Defined
               for rank-based measures: RR, RR@k, Success@k, Rank.
"expected"     the exact expectation of each measure over uniformly random
               tie-breaking. For RR with one relevant document among tied ranks
               o..p this is (H(p) - H(o-1)) / (p - o + 1); for several relevant
               tied documents the first-relevant position follows
               P(K = j) = C(m-j, r-1) / C(m, r). Linear measures (P, R, nDCG)
               use the tie group's mean gain; AP uses the closed form of
               McSherry & Najork (ECIR 2008).
============== =================================================================
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from .. import compiled
from ..errors import InputError, ParameterError
from ..io.hashing import (
    arrow_to_numpy,
    byte_words,
    compute_imported,
    encode_strings,
    hash_strings,
    numpy_to_arrow,
    pair_keys,
    string_bytes,
    take_strings,
)
from ..io.trec import Qrels, Run, as_string_array, qrels_iv, run_iv
from ..lazy import deferred
from ..numerics import no_hugepage_madvise
from ..options import TIES

if TYPE_CHECKING:
    from .._typing import QrelsInput, RunInput

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow.compute as pc
else:  # imported when first used: the TREC-file path builds no DataFrame and
    # needs no Arrow compute function (pyarrow.compute: 0.02 s of a fresh process)
    pd = deferred("pandas")
    pc = deferred("pyarrow.compute")

__all__ = ["TIES", "RankedRun", "Judged", "rank_run", "judged_from_qrels"]

# Conventions with a compiled path (rank_run); "realistic" and "expected" (tie groups
# kept as groups) use the numpy path.
_COMPILED_TIES = ("trec_eval", "rank", "optimistic", "pessimistic")


@dataclass(frozen=True, eq=False)
class Judged:
    """The judged grades of each query, sorted best first (for num_rel and ideal DCG).

    Attributes
    ----------
    query_ids : numpy.ndarray of str
        Sorted query ids.
    offsets : numpy.ndarray of int64
        ``grades[offsets[i]:offsets[i+1]]`` are query ``i``'s grades.
    grades : numpy.ndarray of int64
        Grades, descending within each query.
    """

    query_ids: np.ndarray
    offsets: np.ndarray
    grades: np.ndarray

    def num_rel(self, rel: int) -> np.ndarray:
        """Number of judged documents with grade >= ``rel`` (and > 0), per query."""
        t = max(int(rel), 1)
        q = np.repeat(np.arange(self.query_ids.size), np.diff(self.offsets))
        return np.bincount(q[self.grades >= t], minlength=self.query_ids.size)

    def num_judged(self) -> np.ndarray:
        return np.diff(self.offsets)

    def take(self, index: np.ndarray) -> Judged:
        """Judged sets for the given query positions (-1: a query with no judgements)."""
        index = np.asarray(index, dtype=np.int64)
        lens = np.where(index >= 0, np.diff(self.offsets)[np.maximum(index, 0)], 0)
        offsets = np.concatenate(([0], np.cumsum(lens)))
        starts = np.where(index >= 0, self.offsets[:-1][np.maximum(index, 0)], 0)
        rows = np.repeat(starts - offsets[:-1], lens) + np.arange(offsets[-1])
        ids = np.where(index >= 0, self.query_ids[np.maximum(index, 0)], None)
        return Judged(ids, offsets, self.grades[rows])  # type: ignore[arg-type]


def _positions(keys: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """``pd.Index(keys).get_indexer(wanted)`` of unique ``keys`` (-1 where absent)."""
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    at = np.minimum(np.searchsorted(ordered, wanted), max(ordered.size - 1, 0))
    if not ordered.size:
        return np.full(wanted.shape, -1, dtype=np.intp)
    return np.where(ordered[at] == wanted, order[at], -1).astype(np.intp)


def judged_from_qrels(qrels: Qrels) -> Judged:
    """Group a :class:`Qrels` into per-query grade lists (cached on the qrels)."""
    cached = qrels._cache.get("judged")
    if cached is not None:
        return cached
    q = qrels.query
    ids, codes = np.unique(q.astype(str), return_inverse=True)
    if qrels.empty_queries:  # judged queries with an empty judgement set: no grades
        extra = np.setdiff1d(np.asarray(qrels.empty_queries, dtype=str), ids)
        if extra.size:
            merged = np.union1d(ids, extra)
            codes = np.searchsorted(merged, ids)[codes]
            ids = merged
    order = np.lexsort((-qrels.grade, codes))
    offsets = np.concatenate(([0], np.cumsum(np.bincount(codes, minlength=ids.size))))
    judged = Judged(ids.astype(object), offsets.astype(np.int64), qrels.grade[order])
    qrels._cache["judged"] = judged
    return judged


@dataclass(frozen=True, eq=False)
class RankedRun:
    """A run sorted into per-query rankings under one tie convention.

    Attributes
    ----------
    name : str
        The run's name.
    ties : str
        The tie convention used (see the module documentation).
    query_ids : numpy.ndarray of str
        The run's queries, sorted (byte order, as trec_eval prints them).
    offsets : numpy.ndarray of int64
        Rows ``offsets[i]:offsets[i+1]`` belong to query ``i``, in rank order.
    grades : numpy.ndarray of float64
        The qrels grade of each ranked document; NaN for documents that are not
        in the qrels.
    group_bounds : numpy.ndarray of int64 or None
        For ``ties`` "realistic" and "expected": start row of every group of
        tied documents, followed by the total row count. ``None`` otherwise
        (each document is its own group).
    judged : Judged
        Judged grades of each query in ``query_ids`` (empty for queries
        without judgements).
    max_depth : int or None
        Only the first ``max_depth`` documents of each query count
        (``trec_eval -M``).
    order : numpy.ndarray of int64, None, or a sparse patch
        Row of the original run for each ranked row; None when the run's rows
        were already in rank order (use :meth:`doc_ids` rather than reading it).
    """

    name: str
    ties: str
    query_ids: np.ndarray
    offsets: np.ndarray
    grades: np.ndarray
    group_bounds: np.ndarray | None
    judged: Judged
    max_depth: int | None
    order: object
    run: Run = field(repr=False)

    @property
    def n_queries(self) -> int:
        return int(self.query_ids.size)

    def depth(self) -> np.ndarray:
        """Number of ranked documents per query (after ``max_depth``)."""
        lens = np.diff(self.offsets)
        return lens if self.max_depth is None else np.minimum(lens, self.max_depth)

    def rankings(self) -> list[np.ndarray]:
        """Per query, the grades in rank order (NaN: not in the qrels), cut at ``max_depth``."""
        out = []
        for i in range(self.n_queries):
            stop = self.offsets[i + 1]
            if self.max_depth is not None:
                stop = min(stop, self.offsets[i] + self.max_depth)
            out.append(self.grades[self.offsets[i]:stop].copy())
        return out

    def judged_lists(self) -> list[np.ndarray]:
        """Per query, all judged grades (best first)."""
        j = self.judged
        return [j.grades[j.offsets[i]:j.offsets[i + 1]].copy() for i in range(self.n_queries)]

    def doc_ids(self) -> list[np.ndarray]:
        """Per query, the document ids in rank order (cut at ``max_depth``)."""
        order = self.order
        n = self.grades.size
        if isinstance(order, _Patch):
            order = order.materialise(n)
        order = np.arange(n) if order is None else np.array(order)
        # Tie groups whose members share a grade were left in file order (it cannot
        # change a measure); put every group in the convention's order for display.
        lens = np.diff(self.offsets)
        codes = np.repeat(np.arange(self.n_queries), lens)
        key = _rank_key(self.run)[order] if self.ties == "rank" else self.run.score[order]
        ties = self.ties if self.ties in ("rank", "optimistic", "pessimistic") else "trec_eval"
        order = _resolve_ties(order, codes, key, self.grades.copy(), self.run, ties,
                              all_groups=True)
        docs = arrow_to_numpy(take_strings(self.run.doc, order))
        out = []
        for i in range(self.n_queries):
            stop = self.offsets[i + 1]
            if self.max_depth is not None:
                stop = min(stop, self.offsets[i] + self.max_depth)
            out.append(docs[self.offsets[i]:stop])
        return out


def _ties_iv(ties: str) -> str:
    if not isinstance(ties, str | None) or ties not in TIES:
        raise ParameterError(f"`ties` must be one of {', '.join(repr(t) for t in TIES)}, "
                         f"got {ties!r}")
    return ties


def _max_depth_iv(max_depth):
    if max_depth is None:
        return None
    if isinstance(max_depth, bool) or not isinstance(max_depth, (int, np.integer)) \
            or max_depth < 1:
        raise ParameterError(f"`max_depth` must be a positive integer or None, got {max_depth!r}")
    return int(max_depth)


def _query_codes(run: Run):
    """Sorted query ids of the run and each row's code into them."""
    if "query_codes" in run._meta:
        dictionary = run._meta["query_dictionary"]
        codes = run._meta["query_codes"]
    else:
        dictionary, codes = encode_strings(run.query)
    ids = np.asarray(dictionary.to_pylist(), dtype=object)
    order = np.argsort(ids.astype(str), kind="stable")
    rank_of = np.empty(ids.size, dtype=np.int32)
    rank_of[order] = np.arange(ids.size, dtype=np.int32)
    return ids[order], rank_of[codes]


def _doc_hashes(run: Run) -> np.ndarray:
    h = run._meta.get("doc_hashes")
    if h is None:
        h = hash_strings(run.doc)
        run._meta["doc_hashes"] = h
    return h


def _lookup_grades(qrels: Qrels, query_ids: np.ndarray, codes: np.ndarray, run: Run):
    """Grade of every run row (NaN if the (query, doc) pair is not judged)."""
    grades = np.full(codes.size, np.nan)
    qq = qrels.query.astype(str)
    ids = query_ids.astype(str)
    pos = np.searchsorted(ids, qq)
    pos_c = np.minimum(pos, max(ids.size - 1, 0))
    in_run = (pos < ids.size) & (ids[pos_c] == qq) if ids.size else np.zeros(qq.size, bool)
    if not in_run.any():
        return grades
    sel = np.flatnonzero(in_run)
    qdocs = as_string_array(qrels.doc[sel])  # variable width: ids may be huge
    qdoc_hashes = hash_strings(qdocs)
    qkeys = pair_keys(pos[sel], qdoc_hashes)
    if np.unique(qkeys).size != qkeys.size:  # pragma: no cover - needs a 64-bit hash collision
        return _lookup_grades_exact(qrels, query_ids, codes, run)
    # A bit table over the low bits of the judged documents' hashes filters the run
    # rows cheaply (no per-row key needed); only the candidates are looked up by
    # (query, document) key.
    doc_hashes = _doc_hashes(run)
    bits = max(16, min(26, int(np.ceil(np.log2(max(qkeys.size, 1)))) + 6))
    mask = np.uint64((1 << bits) - 1)
    table = np.zeros(1 << bits, dtype=bool)
    table[(qdoc_hashes & mask).view(np.int64)] = True
    # In blocks with one reused buffer: cache-friendly, no run-sized temporaries.
    block = 1 << 18
    buf = np.empty(min(block, doc_hashes.size), dtype=np.uint64)
    parts = []
    for b0 in range(0, doc_hashes.size, block):
        h = doc_hashes[b0:b0 + block]
        low = np.bitwise_and(h, mask, out=buf[:h.size])
        parts.append(np.flatnonzero(table[low.view(np.int64)]) + b0)
    cand = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
    rkeys = pair_keys(codes[cand], doc_hashes[cand])
    hit_c = _positions(qkeys, rkeys)
    rows = cand[hit_c >= 0]
    hit = hit_c[hit_c >= 0]
    if rows.size:
        got, want = take_strings(run.doc, rows), take_strings(qdocs, hit)
        if not _same_strings(got, want):  # pragma: no cover - hash collision
            return _lookup_grades_exact(qrels, query_ids, codes, run)
        grades[rows] = qrels.grade[sel][hit]
    return grades


def _lookup_grades_exact(qrels, query_ids, codes, run):  # pragma: no cover - fallback
    table = {(q, d): g for q, d, g in zip(qrels.query, qrels.doc, qrels.grade, strict=True)}
    docs = arrow_to_numpy(run.doc)
    qs = query_ids[codes]
    return np.array([table.get((q, d), np.nan) for q, d in zip(qs, docs, strict=True)],
                    dtype=np.float64)


def _primary_order(codes: np.ndarray, key: np.ndarray) -> np.ndarray | None:
    """Stable order: query code ascending, key descending (file order among equals).

    Returns None when the rows are already in that order (the common case), so
    that no permutation or gather of millions of rows is needed.
    """
    n = codes.size
    if n <= 1:
        return None
    up = codes[1:] > codes[:-1]
    same_q = codes[1:] == codes[:-1]
    down = key[1:] <= key[:-1]
    if np.all(up | (same_q & down)):
        return None
    # Grouped by query (in any query order) with keys already descending?
    starts = np.concatenate(([0], np.flatnonzero(~same_q) + 1))
    if starts.size == np.unique(codes[starts]).size and np.all(~same_q | down):
        block_order = np.argsort(codes[starts], kind="stable")
        lens = np.diff(np.append(starts, n))
        s, l = starts[block_order], lens[block_order]
        new_starts = np.concatenate(([0], np.cumsum(l)[:-1]))
        return np.repeat(s - new_starts, l) + np.arange(n)
    return np.lexsort((-key, codes))


def _resolve_ties(perm, codes_s, key_s, grades_s, run: Run, ties: str,
                  all_groups: bool = False) -> np.ndarray:
    """Order rows inside groups of equal (query, key) whose grades differ.

    Only such groups need the document ids: in a group whose members all have
    the same grade, every order gives the same grade sequence. ``all_groups``
    orders every tie group (for :meth:`RankedRun.doc_ids`).
    """
    n = codes_s.size
    if n <= 1:
        return perm
    same = codes_s[1:] == codes_s[:-1]
    same &= key_s[1:] == key_s[:-1]
    if all_groups:
        cuts = np.flatnonzero(~same) + 1
        bounds = np.concatenate(([0], cuts, [n]))
        big = np.flatnonzero(np.diff(bounds) > 1)
        return _sort_groups(perm, bounds[big], bounds[big + 1], grades_s, run, ties)
    # A group needs ordering only if it holds a judged document next to a document
    # with another grade (unjudged = NaN counts as its own grade). Judged documents
    # are few, so look only at their neighbours.
    judged = np.flatnonzero(~np.isnan(grades_s))
    if judged.size == 0:
        return perm
    g = grades_s
    left = judged[judged > 0]
    left = left[same[left - 1] & ~(g[left - 1] == g[left])]
    right = judged[judged < n - 1]
    right = right[same[right] & ~(g[right + 1] == g[right])]
    differ_at = np.union1d(left, right + 1)  # rows whose grade differs from the previous row
    if differ_at.size == 0:
        return perm
    lo, hi = _group_bounds(same, differ_at)
    return _sort_groups(perm, lo, hi, grades_s, run, ties)


def _sort_groups(perm, lo, hi, grades_s, run: Run, ties: str):
    """Sort rows lo[i]:hi[i] by the convention's within-tie order (doc id descending)."""
    if lo.size == 0:
        return perm
    sizes = hi - lo
    rows = np.repeat(lo - np.concatenate(([0], np.cumsum(sizes)[:-1])), sizes) + \
        np.arange(sizes.sum())
    gid = np.repeat(np.arange(lo.size), sizes)
    docs = take_strings(run.doc, rows if perm is None else perm[rows])
    eff = None
    if ties in ("optimistic", "pessimistic"):
        eff = np.where(np.isnan(grades_s[rows]), 0.0, np.maximum(grades_s[rows], 0.0))
    sub = _group_order(gid, docs, eff, ties)
    grades_s[rows] = grades_s[rows][sub]  # grades_s is the caller's own sorted copy
    if perm is None:  # a patch on the identity: (rows, source row of each)
        return _Patch(rows, rows[sub])
    perm[rows] = perm[rows][sub]
    return perm


#: Bytes of fixed-width document ids up to which _group_order sorts with numpy while
#: pyarrow.compute is not imported (its import: 0.03 s of CPU of a fresh process);
#: beyond, or once it is imported, Arrow's sort.
_NUMPY_SORT_BYTES = 1 << 27


def _group_order(gid, docs, eff, ties: str) -> np.ndarray:
    """Stable order of rows by group, then (optimistic, pessimistic) effective grade
    descending or ascending, then document id descending in byte order."""
    columns = None if compute_imported() else string_bytes(docs)
    width = int(np.diff(columns[0]).max()) if columns is not None and gid.size else 0
    if columns is not None and gid.size * max(width, 1) <= _NUMPY_SORT_BYTES \
            and not (columns[1] == 0).any():
        words = ~byte_words(*columns)  # the complement: ascending is byte order descending
        keys = list(words.T[::-1])
        if eff is not None:
            keys.append(-eff if ties == "optimistic" else eff)
        keys.append(gid)
        return np.lexsort(keys)  # stable, as Arrow's sort_indices
    columns = {"g": numpy_to_arrow(gid), "d": docs}
    sort_keys = [("g", "ascending")]
    if eff is not None:
        columns["e"] = numpy_to_arrow(eff)
        sort_keys.append(("e", "descending" if ties == "optimistic" else "ascending"))
    sort_keys.append(("d", "descending"))
    return arrow_to_numpy(pc.sort_indices(pa.table(columns), sort_keys=sort_keys))


def _same_strings(a, b) -> bool:
    """Whether two string arrays hold the same values, row by row (a hash match confirmed
    on the ids themselves): Arrow's equality where the types agree, no str objects."""
    if a.type == b.type and type(a) is type(b):
        return bool(a.equals(b))
    return bool((arrow_to_numpy(a) == arrow_to_numpy(b)).all())


class _Patch:
    """Identity permutation except ``order[rows] = source`` (kept sparse)."""

    def __init__(self, rows, source):
        self.rows, self.source = rows, source

    def materialise(self, n: int) -> np.ndarray:
        order = np.arange(n)
        order[self.rows] = self.source
        return order


class _BlockOrder(_Patch):
    """Blocks of rows ``start[q]:start[q] + length[q]`` one after another, then
    ``order[rows] = source`` (kept as blocks: only :meth:`RankedRun.doc_ids` reads it)."""

    def __init__(self, start, length):
        self.start, self.length = start, length
        self.rows = self.source = np.zeros(0, np.int64)

    def materialise(self, n: int) -> np.ndarray:
        new_starts = np.concatenate(([0], np.cumsum(self.length)[:-1]))
        order = np.repeat(self.start - new_starts, self.length) + np.arange(n)
        order[self.rows] = self.source
        return order


def _group_bounds(same: np.ndarray, at: np.ndarray):
    """[lo, hi) of the tie groups containing rows ``at`` (row i+1 continues row i's
    group where ``same[i]``). Scans outwards from the few rows asked about; falls
    back to all group boundaries when groups are very large."""
    n = same.size + 1
    lo = at.copy()
    hi = at + 1
    for _ in range(64):
        grow_lo = (lo > 0) & same[np.maximum(lo - 1, 0)]
        grow_hi = (hi < n) & same[np.minimum(hi - 1, n - 2)]
        if not (grow_lo.any() or grow_hi.any()):
            lo, first = np.unique(lo, return_index=True)
            return lo, hi[first]
        lo -= grow_lo
        hi += grow_hi
    cuts = np.flatnonzero(~same) + 1
    k = np.unique(np.searchsorted(cuts, at, side="right"))
    bounds = np.concatenate(([0], cuts, [n]))
    return bounds[k], bounds[k + 1]


def _rank_key(run: Run) -> np.ndarray:
    if run.rank is None:
        raise ParameterError("ties='rank' needs the run's rank column, and this run has none")
    try:
        values = arrow_to_numpy(pc.cast(run.rank, pa.float64()))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        texts = arrow_to_numpy(run.rank)
        for i, t in enumerate(texts):
            try:
                float(t)
            except (TypeError, ValueError):
                q = run.query[i].as_py()
                d = run.doc[i].as_py()
                raise InputError(f"rank {t!r} of query {q!r}, document {d!r} (row {i + 1}) "
                                 "is not a number", source=run.source) from None
        raise
    if not np.isfinite(values).all():
        i = int(np.flatnonzero(~np.isfinite(values))[0])
        raise InputError(f"rank {run.rank[i].as_py()!r} (row {i + 1}) is not finite",
                         source=run.source)
    return -values


def rank_run(qrels: QrelsInput, run: RunInput, *, ties: str = "trec_eval",
             max_depth: int | None = None) -> RankedRun:
    """Sort a run into per-query rankings and attach the qrels grades.

    Parameters
    ----------
    qrels : Qrels or anything :func:`mrrstats.read_qrels` accepts
    run : Run or anything :func:`mrrstats.read_run` accepts
    ties : str, keyword-only
        Tie convention; see the module documentation. Default ``"trec_eval"``.
    max_depth : int, optional, keyword-only
        Keep only the first ``max_depth`` documents of each query after sorting
        (``trec_eval -M``).

    Returns
    -------
    RankedRun

    Examples
    --------
    >>> import mrrstats
    >>> qrels = {"q1": {"a": 1, "b": 0}}
    >>> run = {"q1": {"a": 0.5, "b": 0.5, "c": 0.9}}
    >>> mrrstats.rank_run(qrels, run).rankings()  # c first; tie a/b: "b" > "a"
    [array([nan,  0.,  1.])]
    >>> mrrstats.rank_run(qrels, run, ties="optimistic").rankings()
    [array([nan,  1.,  0.])]
    """
    ties = _ties_iv(ties)
    max_depth = _max_depth_iv(max_depth)
    with no_hugepage_madvise():
        return _rank_run(qrels_iv(qrels), run_iv(run, "run"), ties, max_depth)


def _rank_run(qrels: Qrels, run: Run, ties: str, max_depth) -> RankedRun:
    if ties in _COMPILED_TIES and len(run) >= COMPILED_MIN_ROWS and compiled.usable():
        ranked = _rank_run_compiled(qrels, run, ties, max_depth)
        if ranked is not None:
            return ranked
    query_ids, codes = _query_codes(run)
    grades = _lookup_grades(qrels, query_ids, codes, run)
    key = _rank_key(run) if ties == "rank" else run.score
    perm = _primary_order(codes, key)
    if perm is None:  # already in order (the common case): no gathers
        codes_s, key_s, grades_s = codes, key, grades
    else:
        codes_s, key_s, grades_s = codes[perm], key[perm], grades[perm]
    group_bounds = None
    if ties in ("realistic", "expected"):
        n = codes_s.size
        same = (codes_s[1:] == codes_s[:-1]) & (key_s[1:] == key_s[:-1])
        starts = np.flatnonzero(np.concatenate(([True], ~same)))
        group_bounds = np.append(starts, n).astype(np.int64)
        # Deterministic order inside groups (trec_eval's) for rankings()/doc_ids().
        perm = _resolve_ties(perm, codes_s, key_s, grades_s, run, "trec_eval")
    else:
        perm = _resolve_ties(perm, codes_s, key_s, grades_s, run, ties)
    # codes_s is sorted: each query's rows start where its code first appears
    offsets = np.searchsorted(codes_s, np.arange(query_ids.size + 1)).astype(np.int64)
    judged_all = judged_from_qrels(qrels)
    jpos = np.searchsorted(judged_all.query_ids.astype(str), query_ids.astype(str))
    jpos_c = np.minimum(jpos, max(judged_all.query_ids.size - 1, 0))
    found = (jpos < judged_all.query_ids.size) & \
        (judged_all.query_ids.astype(str)[jpos_c] == query_ids.astype(str))
    judged = judged_all.take(np.where(found, jpos, -1))
    judged = Judged(query_ids, judged.offsets, judged.grades)
    if isinstance(perm, _Patch):
        perm = perm.materialise(grades_s.size) if grades_s.size < (1 << 16) else perm
    return RankedRun(name=run.name, ties=ties, query_ids=query_ids, offsets=offsets,
                     grades=grades_s, group_bounds=group_bounds, judged=judged,
                     max_depth=max_depth, order=perm, run=run)


# ---------------------------------------------------------------------------
# Compiled path (numba): files whose queries come in blocks of lines, keys descending
# ---------------------------------------------------------------------------
# The kernels are plain functions compiled on first use (mrrstats.compiled); each query is
# handled by one thread, so the results do not depend on the number of threads.

_PK_M2 = np.uint64(0xBF58476D1CE4E5B9)


def _pair_key_py(code, h):
    """hashing.pair_keys of one (code, hash)."""
    k = np.uint64(code) * _PK_M2
    k += h
    k ^= k >> np.uint64(31)
    return k


def _block_scan_py(codes, key, cuts, bad, nstart):  # codes: any query codes
    """Per slice ``cuts[c]:cuts[c+1]``: rows where the query changes (counted in
    ``nstart``) and whether the key rises inside a query (``bad``)."""
    for c in prange(cuts.size - 1):
        n = 0
        b = 0
        for i in range(cuts[c], cuts[c + 1]):
            if i == 0 or codes[i] != codes[i - 1]:
                n += 1
            elif key[i] > key[i - 1]:
                b = 1
        nstart[c] = n
        bad[c] = b


def _block_starts_py(codes, cuts, base, starts):
    for c in prange(cuts.size - 1):
        j = base[c]
        for i in range(cuts[c], cuts[c + 1]):
            if i == 0 or codes[i] != codes[i - 1]:
                starts[j] = i
                j += 1


def _probe_py(table_key, table_idx, mask, k):
    slot = k & mask
    while True:
        idx = table_idx[slot]
        if idx < 0 or table_key[slot] == k:
            return idx
        slot = (slot + np.uint64(1)) & mask


def _place_py(codes, rank_of, dhash, key, bstart, blen, border, offsets, qbounds, qdh,
              table_key, table_idx, mask, qgrade, grades_s, hbase, hit_at, hit_row, glo, ghi,
              nhit):
    """Query ``q`` (sorted position ``q``): the grades of its rows (ranked rows
    ``offsets[q]:``; NaN if not judged), then its judged rows (ranked position, run
    row) from ``hbase[q]`` on, and for a judged row tied (same key) with a neighbour
    of another grade the tie group ``[glo, ghi)`` holding it, which ``_sort_groups``
    orders (``glo = -1`` otherwise): the groups of ``_resolve_ties``.

    A query's few judged documents are compared with each row directly
    (``qdh[qbounds[q]:qbounds[q + 1]]``); queries with many use the hash table of
    (query, document) keys. ``nhit[q]``: judged rows, -1 if more than the qrels hold
    (a repeated document: the numpy path decides).
    """
    for q in prange(border.size):
        b = border[q]
        s = bstart[b]
        o0 = offsets[q]
        o1 = offsets[q + 1]
        d = s - o0  # run row of ranked row p: p + d
        j0 = qbounds[q]
        j1 = qbounds[q + 1]
        h = 0
        if j1 - j0 <= 16:
            for t in range(blen[b]):
                x = dhash[s + t]
                g = np.nan
                for j in range(j0, j1):
                    if qdh[j] == x:
                        g = qgrade[j]
                        h += 1
                        break
                grades_s[o0 + t] = g
        else:
            for t in range(blen[b]):
                i = s + t
                idx = _probe(table_key, table_idx, mask, _pair_key(rank_of[codes[i]], dhash[i]))
                if idx >= 0:
                    grades_s[o0 + t] = qgrade[idx]
                    h += 1
                else:
                    grades_s[o0 + t] = np.nan
        if h > j1 - j0:
            nhit[q] = -1
            continue
        nhit[q] = h
        if h == 0:
            continue
        j = hbase[q]
        for p in range(o0, o1):
            g = grades_s[p]
            if g == g:
                hit_at[j] = p
                hit_row[j] = p + d
                kp = key[p + d]
                tied = (p > o0 and key[p + d - 1] == kp and not grades_s[p - 1] == g) or \
                    (p + 1 < o1 and key[p + d + 1] == kp and not grades_s[p + 1] == g)
                if tied:
                    lo = p
                    while lo > o0 and key[lo - 1 + d] == kp:
                        lo -= 1
                    hi = p + 1
                    while hi < o1 and key[hi + d] == kp:
                        hi += 1
                    glo[j] = lo
                    ghi[j] = hi
                else:
                    glo[j] = -1
                    ghi[j] = -1
                j += 1


def _build_table_py(keys, table_key, table_idx, mask):
    """Open-addressing table of ``keys``; False if two keys are equal."""
    for i in range(keys.size):
        slot = keys[i] & mask
        while table_idx[slot] >= 0:
            if table_key[slot] == keys[i]:
                return False
            slot = (slot + np.uint64(1)) & mask
        table_idx[slot] = i
        table_key[slot] = keys[i]
    return True


_pair_key = _pair_key_py
_probe = _probe_py
prange = range
_KERNELS: dict = {}


def _native_kernels(codes, key) -> dict | None:
    """The kernels of :func:`_kernels` compiled ahead of time (``mrrstats._native``), for
    the arrays they are written for (int32 codes, float64 keys); None otherwise."""
    mod = compiled.native()
    if mod is None or codes.dtype != np.int32 or key.dtype != np.float64 or \
            not (codes.flags.c_contiguous and key.flags.c_contiguous):
        return None
    N = compiled.Native
    return {"block_scan": (N(mod.block_scan), None), "block_starts": (N(mod.block_starts), None),
            "place": (N(mod.place), None), "table": mod.build_table}


def _kernels() -> dict:
    global _pair_key, _probe, prange
    k = _KERNELS.get("k")
    if k is None:
        jit = compiled.jit
        prange = compiled.prange()
        _pair_key = jit(_pair_key_py, inline=True)
        _probe = jit(_probe_py, inline=True)
        k = {"block_scan": compiled.pair(_block_scan_py),
             "block_starts": compiled.pair(_block_starts_py),
             "place": compiled.pair(_place_py),
             "table": jit(_build_table_py)}
        _KERNELS["k"] = k
    return k


#: Runs shorter than this keep the numpy path (compiling would cost more than it saves).
COMPILED_MIN_ROWS = 1 << 16


def _rank_run_compiled(qrels: Qrels, run: Run, ties: str, max_depth, workers=None):
    """:func:`_rank_run` for a run whose queries each come in one block of rows with
    keys descending (the usual layout of a run file), compiled; None for any other run,
    or where a hash needs the exact look-up (the numpy path then decides)."""
    key = _rank_key(run) if ties == "rank" else run.score
    if "query_codes" in run._meta:
        dictionary, codes = run._meta["query_dictionary"], run._meta["query_codes"]
    else:
        dictionary, codes = encode_strings(run.query)
    k = _native_kernels(codes, key) or _kernels()
    ids_obj = np.asarray(dictionary.to_pylist(), dtype=object)
    by_id = np.argsort(ids_obj.astype(str), kind="stable")
    query_ids = ids_obj[by_id]
    rank_of = np.empty(ids_obj.size, dtype=np.int64)
    rank_of[by_id] = np.arange(ids_obj.size)
    n = codes.size
    n_q = query_ids.size
    blocks = run._meta.get("score_blocks")  # the tokenizer found the layout already
    if blocks is not None and ties != "rank" and blocks.size == n_q:
        bstart = blocks
    else:
        nc = max(1, min(64, n >> 16))
        cuts = np.linspace(0, n, nc + 1).astype(np.int64)
        bad = np.zeros(nc, np.uint8)
        nstart = np.zeros(nc, np.int64)
        compiled.launch(*k["block_scan"], workers, codes, key, cuts, bad, nstart)
        if bad.any() or int(nstart.sum()) != n_q:
            return None  # keys not descending, or a query in several blocks
        bstart = np.empty(n_q, np.int64)
        base = np.concatenate(([0], np.cumsum(nstart)[:-1])).astype(np.int64)
        compiled.launch(*k["block_starts"], workers, codes, cuts, base, bstart)
    blen = np.diff(np.append(bstart, n))
    border = np.empty(n_q, np.int64)
    border[rank_of[codes[bstart]]] = np.arange(n_q)  # the block of each query (sorted)
    offsets = np.concatenate(([0], np.cumsum(blen[border]))).astype(np.int64)
    moved = not np.array_equal(border, np.arange(n_q))
    # Qrels pairs of the run's queries, by query, and in a hash table keyed like the rows.
    qq = qrels.query.astype(str)
    ids = query_ids.astype(str)
    pos = np.searchsorted(ids, qq)
    pos_c = np.minimum(pos, max(ids.size - 1, 0))
    in_run = (pos < ids.size) & (ids[pos_c] == qq) if ids.size else np.zeros(qq.size, bool)
    sel = np.flatnonzero(in_run)
    sel = sel[np.argsort(pos[sel], kind="stable")]  # by query (a Qrels is sorted already)
    qdocs = as_string_array(qrels.doc[sel])
    qh = hash_strings(qdocs)
    qkeys = pair_keys(pos[sel], qh)
    cap = 16
    while cap < 2 * qkeys.size:
        cap *= 2
    table_key = np.zeros(cap, np.uint64)
    table_idx = np.full(cap, -1, np.int64)
    mask = np.uint64(cap - 1)
    if not k["table"](qkeys, table_key, table_idx, mask):  # pragma: no cover - collision
        return None
    qgrade = qrels.grade[sel].astype(np.float64)
    qbounds = np.searchsorted(pos[sel], np.arange(n_q + 1)).astype(np.int64)
    hbase = qbounds  # at most one judged row per qrels pair
    m = int(hbase[-1])
    grades_s = np.empty(n, np.float64)
    hit_at, hit_row = np.empty(m, np.int64), np.empty(m, np.int64)
    glo, ghi = np.empty(m, np.int64), np.empty(m, np.int64)
    nhit = np.empty(n_q, np.int64)
    dhash = np.ascontiguousarray(_doc_hashes(run))
    compiled.launch(*k["place"], workers, codes, rank_of, dhash, key, bstart, blen,
                    border, offsets, qbounds, qh, table_key, table_idx, mask, qgrade,
                    grades_s, hbase, hit_at, hit_row, glo, ghi, nhit)
    if (nhit < 0).any():
        return None
    used = np.repeat(hbase[:-1], nhit) + np.arange(int(nhit.sum())) - \
        np.repeat(np.concatenate(([0], np.cumsum(nhit)[:-1])), nhit)
    hit_row, glo, ghi = hit_row[used], glo[used], ghi[used]
    if hit_row.size:  # confirm every hash match on the ids themselves
        rkeys = pair_keys(rank_of[codes[hit_row]], _doc_hashes(run)[hit_row])
        idx = _positions(qkeys, rkeys)
        got, want = take_strings(run.doc, hit_row), take_strings(qdocs, idx)
        if not _same_strings(got, want):  # pragma: no cover - hash collision
            return None
    order = _BlockOrder(bstart[border], blen[border]) if moved else None
    tied = glo >= 0
    if tied.any():  # tie groups with judged documents of different grades: order them
        lo, first = np.unique(glo[tied], return_index=True)
        hi = ghi[tied][first]
        sizes = hi - lo
        rows = np.repeat(lo - np.concatenate(([0], np.cumsum(sizes)[:-1])), sizes) + \
            np.arange(sizes.sum())
        qpos = np.searchsorted(offsets, rows, side="right") - 1
        src = rows + (bstart[border] - offsets[:-1])[qpos]
        g_sub = grades_s[rows]
        local_lo = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        new = _sort_groups(src.copy(), local_lo, local_lo + sizes, g_sub, run, ties)
        grades_s[rows] = g_sub
        changed = new != src
        if changed.any():
            if order is None:
                order = _Patch(rows[changed], new[changed])
            else:
                order.rows, order.source = rows[changed], new[changed]
    if order is not None and n < (1 << 16):
        order = order.materialise(n)
    judged_all = judged_from_qrels(qrels)
    jids = judged_all.query_ids.astype(str)
    jpos = np.searchsorted(jids, ids)
    jpos_c = np.minimum(jpos, max(jids.size - 1, 0))
    found = (jpos < jids.size) & (jids[jpos_c] == ids)
    judged = judged_all.take(np.where(found, jpos, -1))
    judged = Judged(query_ids, judged.offsets, judged.grades)
    return RankedRun(name=run.name, ties=ties, query_ids=query_ids, offsets=offsets,
                     grades=grades_s, group_bounds=None, judged=judged, max_depth=max_depth,
                     order=order, run=run)
