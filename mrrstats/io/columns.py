"""In-memory string columns to what the compiled reader gives for a file.

A run handed over as columns (a pandas or polars frame, an Arrow table, the
arrays built from a dict) is described here exactly as
:func:`mrrstats.io.tokenizer.tokenize_run` describes a file it has read: the
query codes in first-appearance order with their dictionary, the hash of every
document id (the hash of :func:`mrrstats.io.hashing.hash_strings`), the first
row of each query's block of rows when every query comes in one block with
scores descending, and whether a query lists a document twice. It works on the
Arrow buffers of the whole columns with the tokenizer's compiled kernels (the
query dictionary interned only where the query changes from one row to the
next, documents hashed in parallel, repeats found by a hash set per query, equal
hashes confirmed on the bytes): no Python object per row, no sort.

:func:`run_columns` returns ``None`` where numba is missing or the run is small;
the caller then takes the numpy / pyarrow path, which gives the same values.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from .. import compiled
from ..errors import InputError
from . import tokenizer
from .hashing import take_strings

__all__ = ["flat_strings", "run_columns", "take_column", "strings_from_python", "MIN_ROWS"]

#: Runs with fewer rows keep the numpy / pyarrow path (loading numba would cost more).
MIN_ROWS = 1 << 16

prange = range  # numba.prange once compiled
_hash_bytes = tokenizer._hash_bytes_py
_KERNELS: dict = {}


def _hash_rows_py(data, offs, out):
    """``out[r]``: hash of the bytes ``data[offs[r]:offs[r + 1]]``."""
    for r in prange(out.size):
        out[r] = _hash_bytes(data, offs[r], offs[r + 1] - offs[r])


def _scan_py(data, offs, score, cuts, change, rise):
    """``change[r]``: whether row ``r``'s query differs from row ``r - 1``'s (row 0
    always); ``rise[c]``: whether a score rises within a query in rows
    ``cuts[c]:cuts[c + 1]``."""
    for c in prange(cuts.size - 1):
        up = False
        for r in range(cuts[c], cuts[c + 1]):
            same = False
            if r > 0:
                a0, a1 = offs[r - 1], offs[r]
                b1 = offs[r + 1]
                if a1 - a0 == b1 - a1:
                    same = True
                    for k in range(a1 - a0):
                        if data[a0 + k] != data[a1 + k]:
                            same = False
                            break
            change[r] = not same
            if same and score[r] > score[r - 1]:
                up = True
        rise[c] = up


def _gather_py(data, offs, rows, out_offs, out):
    """``out[out_offs[i]:out_offs[i + 1]]``: the bytes of row ``rows[i]``."""
    for i in prange(rows.size):
        r = rows[i]
        a = offs[r]
        o = out_offs[i]
        for k in range(offs[r + 1] - a):
            out[o + k] = data[a + k]


def _kernels() -> dict:
    """Compile (or load from numba's cache) the column kernels, once per process."""
    global _hash_bytes, prange
    k = _KERNELS.get("k")
    if k is None:
        tk = tokenizer.kernels()
        _hash_bytes = tk["hash"]
        prange = compiled.prange()
        k = dict(
            tk,
            hash_rows=compiled.pair(_hash_rows_py),
            scan=compiled.pair(_scan_py),
            gather=compiled.pair(_gather_py),
        )
        _KERNELS["k"] = k
    return k


def flat_strings(arr) -> tuple[np.ndarray, np.ndarray]:
    """``(data, offsets)`` of a (chunked) Arrow string array: its bytes as one uint8
    array and offsets into it, one more than rows. A single chunk is not copied (its
    own int32 or int64 offsets); several are concatenated once into int64 offsets
    (memory copies, no Python object)."""
    chunks = [c for c in (arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]) if len(c)]
    datas, offsets, base = [], [], 0
    for chunk in chunks:
        n = len(chunk)
        otype = np.int64 if pa.types.is_large_string(chunk.type) else np.int32
        bufs = chunk.buffers()
        offs = np.frombuffer(
            bufs[1], dtype=otype, count=n + 1, offset=chunk.offset * np.dtype(otype).itemsize
        )
        lo, hi = int(offs[0]), int(offs[-1])
        data = (
            np.frombuffer(bufs[2], dtype=np.uint8, count=hi - lo, offset=lo)
            if hi > lo
            else np.zeros(1, np.uint8)
        )  # numba wants a buffer even for empty strings
        if len(chunks) == 1:
            return data, offs if lo == 0 else offs - otype(lo)
        datas.append(data[: hi - lo])
        shifted = offs.astype(np.int64)
        shifted += base - lo
        offsets.append(shifted if not offsets else shifted[1:])
        base += hi - lo
    if not datas:
        return np.zeros(1, np.uint8), np.zeros(1, np.int64)
    data = np.concatenate(datas)
    return (data if data.size else np.zeros(1, np.uint8)), np.concatenate(offsets)


def strings_from_python(ids, total: int) -> pa.Array | None:
    """Python ``str`` ids (an iterable of ``total``) as one Arrow string array.

    The ids are joined by NUL into one string in C, encoded to UTF-8 once, and cut
    at the NUL bytes by numpy: about half the time of converting them one by one.
    None where an id is not a ``str``, holds a NUL or a lone surrogate (the caller
    then converts them one by one and says which is wrong).
    """
    try:
        raw = "\x00".join(ids).encode("utf-8")
    except (TypeError, UnicodeEncodeError):
        return None
    buf = np.frombuffer(raw, np.uint8)
    seps = np.flatnonzero(buf == 0)
    if total < 1 or seps.size != total - 1:
        return None
    keep = np.ones(buf.size, np.bool_)
    keep[seps] = False
    data = buf[keep]
    large = data.size >= (1 << 31) - 1
    offs = np.empty(total + 1, np.int64 if large else np.int32)
    offs[0] = 0
    offs[1:-1] = seps - np.arange(total - 1)
    offs[-1] = data.size
    return pa.Array.from_buffers(
        pa.large_string() if large else pa.string(),
        total,
        [None, pa.py_buffer(offs), pa.py_buffer(data)],
    )


def take_column(arr, rows: np.ndarray, workers=-1) -> pa.Array:
    """``arr.take(rows)`` for a (chunked) Arrow string array, compiled and parallel: one
    copy of the bytes (Arrow's take combines the chunks first, then copies again)."""
    k = _kernels()
    data, offs = flat_strings(arr)
    rows = np.asarray(rows, dtype=np.int64)
    lens = np.diff(offs)[rows]
    out_offs = np.empty(rows.size + 1, np.int64)
    out_offs[0] = 0
    np.cumsum(lens, out=out_offs[1:])
    total = int(out_offs[-1])
    out = np.empty(max(total, 1), np.uint8)
    compiled.launch(*k["gather"], workers, data, offs, rows, out_offs, out)
    if total < (1 << 31) - 1:
        return pa.Array.from_buffers(
            pa.string(),
            rows.size,
            [None, pa.py_buffer(out_offs.astype(np.int32)), pa.py_buffer(out)],
        )
    return pa.Array.from_buffers(
        pa.large_string(), rows.size, [None, pa.py_buffer(out_offs), pa.py_buffer(out)]
    )


def run_columns(
    query, doc, score, *, doc_hashes=None, query_codes=None, query_dictionary=None, workers=-1
) -> dict | None:
    """What the compiled reader gives for a file, for the columns of a run in memory.

    ``query`` and ``doc`` are Arrow string arrays (chunked or not, no nulls),
    ``score`` float64 with the same number of rows. Returns ``None`` where numba
    is missing or the run has fewer than :data:`MIN_ROWS` rows; otherwise a dict:
    ``query_dictionary`` (Arrow strings, first-appearance order, as
    ``pyarrow.compute.dictionary_encode`` gives), ``query_codes`` (int32),
    ``doc_hashes`` (uint64), ``query_blocks`` (first row of each query's block
    when every query comes in one block of rows with scores descending, else
    None) and ``repeat`` (whether a query lists a document twice). ``doc_hashes``,
    and ``query_codes`` with their ``query_dictionary`` (``query`` is then not read),
    may be given where they are known already (the stream engine's buckets).
    """
    n = int(score.size)
    if n < MIN_ROWS or not compiled.available():
        return None
    k = _kernels()
    ddata, doffs = flat_strings(doc)
    if doffs.size != n + 1 or (query_codes is None and len(query) != n):
        raise InputError("query, doc and score columns differ in length")
    if doc_hashes is None:
        dhash = np.empty(n, np.uint64)
        compiled.launch(*k["hash_rows"], workers, ddata, doffs, dhash)
    else:
        dhash = np.ascontiguousarray(doc_hashes, dtype=np.uint64)
    if query_codes is None:
        dictionary, codes, blocks, rise = _intern(k, query, score, n, workers)
    else:  # codes known (the stream engine's buckets): blocks and rises in numpy
        dictionary, codes = query_dictionary, np.asarray(query_codes, dtype=np.int32)
        same = codes[1:] == codes[:-1]
        blocks = np.concatenate(([0], np.flatnonzero(~same) + 1, [n])).astype(np.int64)
        rise = bool(np.any(same & (score[1:] > score[:-1])))
    ncodes, nblocks = len(dictionary), blocks.size - 1
    if nblocks == ncodes:  # each query in one block of rows
        rows = np.zeros(0, np.int64)
        bounds = blocks
    else:
        rows = np.empty(n, np.int64)
        bounds = np.empty(ncodes + 1, np.int64)
        k["group_rows"](codes, ncodes, rows, bounds)
    zero = np.zeros(1, np.int64)
    repeat = np.zeros(bounds.size - 1, np.bool_)
    compiled.launch(
        *k["repeats"], workers, rows, bounds, dhash, ddata, doffs, zero, zero, zero, repeat
    )
    return {
        "query_dictionary": dictionary,
        "query_codes": codes,
        "doc_hashes": dhash,
        "query_blocks": blocks[:-1].copy() if nblocks == ncodes and not rise else None,
        "repeat": bool(repeat.any()),
    }


def _intern(k, query, score, n, workers):
    """Query dictionary (first-appearance order), codes, first row of each block of rows
    of one query (and ``n`` at the end), and whether a score rises within a block."""
    qdata, qoffs = flat_strings(query)
    nc = max(1, min(256, n >> 15))
    cuts = np.linspace(0, n, nc + 1).astype(np.int64)
    change = np.empty(n, np.bool_)
    rise = np.zeros(nc, np.bool_)
    compiled.launch(*k["scan"], workers, qdata, qoffs, score, cuts, change, rise)
    starts = np.flatnonzero(change)
    nruns = starts.size
    zero = np.zeros(1, np.int64)
    run_row = np.empty(nruns, np.int64)
    run_code = np.empty(nruns, np.int32)
    first_row = np.empty(nruns, np.int64)
    blocks = np.empty(nruns + 1, np.int64)
    ncodes, nblocks, _ = k["intern"](
        qdata,
        qoffs,
        zero,
        zero,
        zero,
        starts,
        zero,
        np.array([nruns], np.int64),
        score,
        run_row,
        run_code,
        first_row,
        blocks,
    )
    blocks[nblocks] = n
    codes = np.empty(n, np.int32)
    compiled.launch(*k["fill_codes"], workers, run_row, run_code, n, codes)
    dictionary = take_strings(query, first_row[:ncodes])
    if pa.types.is_large_string(dictionary.type):
        dictionary = dictionary.cast(pa.string())
    return dictionary, codes, blocks[: nblocks + 1], bool(rise.any())
