"""Vectorised 64-bit hashes of pyarrow string arrays.

Used as a fast *filter*: equal strings always get equal hashes, so a hash
look-up finds every true match; the rare false match (a collision) is then
ruled out by comparing the strings themselves. Nothing is decided on a hash
alone.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from ..lazy import deferred

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow.compute as pc
else:  # imported when first used: the TREC-file path builds no DataFrame and
    # needs no Arrow compute function (pyarrow.compute: 0.02 s of a fresh process)
    pd = deferred("pandas")
    pc = deferred("pyarrow.compute")

__all__ = ["hash_strings", "pair_keys", "duplicate_pairs", "take_strings", "encode_strings",
           "string_bytes", "byte_words", "compute_imported", "arrow_to_numpy", "numpy_to_arrow",
           "strings_to_arrow"]

_M1 = np.uint64(0x9E3779B97F4A7C15)
_M2 = np.uint64(0xBF58476D1CE4E5B9)
_M3 = np.uint64(0x94D049BB133111EB)
_BLOCK = 1 << 18


def _mix(h: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser, in place."""
    h ^= h >> np.uint64(30)
    h *= _M2
    h ^= h >> np.uint64(27)
    h *= _M3
    h ^= h >> np.uint64(31)
    return h


def _as_array(arr) -> pa.Array | pa.ChunkedArray:
    """A pyarrow string array (chunked arrays are kept chunked: no copy)."""
    if isinstance(arr, pa.ChunkedArray):
        if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
            arr = arr.cast(pa.string())
        return arr
    if not isinstance(arr, pa.Array):
        values = np.asarray(arr, dtype=object)
        try:  # variable-width strings (never numpy's fixed-width '<U')
            arr = pa.array(values, type=pa.string())
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            arr = pa.array([str(v) for v in values], type=pa.string())
    if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        arr = arr.cast(pa.string())
    return arr


_WORD_MASKS = np.array([(1 << (8 * i)) - 1 for i in range(8)] + [(1 << 64) - 1],
                       dtype=np.uint64)


def _word_term(w: np.ndarray, j: int) -> np.ndarray:
    """Mix word number ``j`` of every string (in place on ``w``)."""
    w ^= np.uint64((0x632BE59BD9B4E019 * (j + 1)) & 0xFFFFFFFFFFFFFFFF)
    w *= _M1
    w ^= w >> np.uint64(32)
    w *= _M2
    return w


# Contribution of an absent (all-zero) word j, subtracted so that a string's hash
# depends only on its own bytes and length, not on the longest string in the array.
_ABSENT = [int(_word_term(np.zeros(1, np.uint64), j)[0]) for j in range(64)]


def hash_strings(arr) -> np.ndarray:
    """64-bit hash of every string in a pyarrow string array (or sequence of str).

    ``h = mix(len + sum_j (t_j(word_j) - t_j(0)))`` over the little-endian 8-byte
    words of each string (zero-padded), computed with one gather per word
    position; equal strings always hash equally.
    """
    arr = _as_array(arr)
    if isinstance(arr, pa.ChunkedArray):
        parts = [_hash_array(c) for c in arr.chunks]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint64)
    return _hash_array(arr)


_SHORT_WORDS = 8  # strings up to 64 bytes are hashed by the row-parallel loop alone


def _word_terms(w: np.ndarray, j: np.ndarray) -> np.ndarray:
    """``_word_term`` with a word position per element (``j`` an int64 array)."""
    key = (j.astype(np.uint64) + np.uint64(1)) * np.uint64(0x632BE59BD9B4E019)
    w = w ^ key
    w *= _M1
    w ^= w >> np.uint64(32)
    w *= _M2
    return w


def _add_long_words(out, start, lens, words) -> None:
    """Add the terms of word positions >= _SHORT_WORDS of every longer string."""
    n_words = (lens + 7) // 8
    rows = np.flatnonzero(n_words > _SHORT_WORDS)
    rows = rows[np.argsort(-n_words[rows], kind="stable")]  # longest first
    counts = n_words[rows]
    j = _SHORT_WORDS
    # Row-parallel while many rows still have a word at position j ...
    while rows.size > 64 and j < counts[0]:
        active = rows[: int(np.searchsorted(-counts, -j, side="left"))]
        if active.size <= 64:
            break
        ln = lens[active]
        w = words[np.minimum(start[active] + 8 * j, words.size - 1)]
        w &= _WORD_MASKS[np.clip(ln - 8 * j, 0, 8)]
        out[active] += _word_term(w, j) - np.uint64(int(_word_term(np.zeros(1, np.uint64),
                                                                   j)[0]))
        j += 1
    # ... then string by string, vectorised over its own words.
    for r, c in zip(rows.tolist(), counts.tolist(), strict=True):
        if c <= j:
            break
        pos = np.arange(j, c, dtype=np.int64)
        w = words[np.minimum(start[r] + 8 * pos, words.size - 1)]
        w &= _WORD_MASKS[np.clip(lens[r] - 8 * pos, 0, 8)]
        terms = _word_terms(w, pos) - _word_terms(np.zeros(pos.size, np.uint64), pos)
        out[r:r + 1] += np.add.reduce(terms, dtype=np.uint64)


def _hash_array(arr: pa.Array) -> np.ndarray:
    n = len(arr)
    if n == 0:
        return np.zeros(0, dtype=np.uint64)
    if sys.byteorder != "little":  # pragma: no cover - big-endian machines
        values = arr.to_numpy(zero_copy_only=False)
        return pd.util.hash_array(values.astype(object), categorize=False).astype(np.uint64)
    off_type = np.int64 if pa.types.is_large_string(arr.type) else np.int32
    bufs = arr.buffers()
    offsets = np.frombuffer(bufs[1], dtype=off_type, count=n + 1,
                            offset=arr.offset * np.dtype(off_type).itemsize)
    lo, hi = int(offsets[0]), int(offsets[-1])
    data = np.frombuffer(bufs[2], dtype=np.uint8, count=hi, offset=0) if hi else \
        np.zeros(0, np.uint8)
    padded = np.zeros(hi - lo + 8, dtype=np.uint8)
    padded[: hi - lo] = data[lo:hi]
    start = offsets[:-1] - lo if lo else offsets[:-1]
    lens = offsets[1:] - offsets[:-1]
    # Overlapping, unaligned little-endian 8-byte words starting at every byte.
    words = np.ndarray(shape=(padded.size - 7,), dtype=np.uint64, buffer=padded, strides=(1,))
    out = np.empty(n, dtype=np.uint64)
    max_words = (int(lens.max()) + 7) // 8
    # Word positions below _SHORT_WORDS: one gather per position over every row.
    n_words = min(max_words, _SHORT_WORDS)
    absent = [np.uint64(_ABSENT[j]) for j in range(n_words)]
    # Blocks keep the temporaries in cache.
    for b0 in range(0, n, _BLOCK):
        b1 = min(n, b0 + _BLOCK)
        st = start[b0:b1].astype(np.int64)
        ln = lens[b0:b1]
        h = out[b0:b1]
        np.multiply(ln, _M3, out=h, dtype=np.uint64, casting="unsafe")
        for j in range(n_words):
            idx = st + 8 * j if j else st
            if j:
                np.minimum(idx, words.size - 1, out=idx)
            w = words[idx]
            w &= _WORD_MASKS[np.clip(ln - 8 * j, 0, 8)]
            h += _word_term(w, j)
            h -= absent[j]
    if max_words > _SHORT_WORDS:
        # Longer strings: the remaining words, in time proportional to their bytes
        # (never the longest string times the row count).
        _add_long_words(out, start.astype(np.int64), lens.astype(np.int64), words)
    _mix(out)
    return out


def arrow_to_numpy(arr) -> np.ndarray:
    """``arr.to_numpy(zero_copy_only=False)`` of an Arrow array or chunked array, without
    pandas' import where pandas is not imported yet.

    Arrow's own conversion imports pandas (0.3 s) the first time it runs, even to an
    integer array; the path from TREC files to the measures needs no pandas otherwise.
    Integers and floats without nulls are viewed in their buffer (read-only, as Arrow's
    zero-copy conversion gives them), strings become the same object array of ``str``.
    """
    if "pandas" in sys.modules:
        return arr.to_numpy(zero_copy_only=False)
    copied = isinstance(arr, pa.ChunkedArray) and arr.num_chunks != 1  # Arrow's is writable
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.chunk(0) if arr.num_chunks == 1 else arr.combine_chunks()
    t = arr.type
    if arr.null_count == 0 and (pa.types.is_integer(t) or pa.types.is_floating(t)):
        kind = "f" if pa.types.is_floating(t) else "i" if pa.types.is_signed_integer(t) else "u"
        dtype = np.dtype(f"{kind}{t.bit_width // 8}")
        view = np.frombuffer(arr.buffers()[1], dtype=dtype, count=len(arr),
                             offset=arr.offset * dtype.itemsize)
        if copied:
            return view.copy()
        view.flags.writeable = False  # as Arrow's zero-copy view (its buffer may be numpy's)
        return view
    if arr.null_count == 0 and (pa.types.is_string(t) or pa.types.is_large_string(t)):
        return _strings_to_numpy(arr)
    return arr.to_numpy(zero_copy_only=False)  # anything else: Arrow's (and pandas)


def numpy_to_arrow(values) -> pa.Array:
    """``pa.array(values)`` of a 1-d numpy array of numbers, without pandas' import where
    pandas is not imported yet (``pa.array`` imports it to ask whether ``values`` is a
    pandas object); the buffer is shared, as ``pa.array`` shares it."""
    if ("pandas" not in sys.modules and isinstance(values, np.ndarray) and values.ndim == 1
            and values.dtype.kind in "iuf" and values.dtype.isnative):
        values = np.ascontiguousarray(values)
        return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), values.size,
                                     [None, pa.py_buffer(values)])
    return pa.array(values)


def strings_to_arrow(values) -> pa.Array | None:
    """An Arrow string array of a numpy array of ``str`` (what ``pa.array`` gives it)
    built from the bytes, without pandas' import; None for anything else, or where
    pandas is imported already (then ``pa.array`` costs nothing more)."""
    if "pandas" in sys.modules or not isinstance(values, np.ndarray) or values.ndim != 1 \
            or values.dtype.kind not in "OU" or values.size == 0:
        return None
    strs = values.tolist()
    try:
        joined = "".join(strs)  # TypeError for anything but str
    except TypeError:
        return None
    raw = joined.encode("utf-8", "surrogatepass")
    if len(raw) == len(joined):  # ASCII: a character is a byte
        lengths = np.fromiter(map(len, strs), dtype=np.int64, count=len(strs))
    else:
        lengths = np.fromiter((len(x.encode("utf-8", "surrogatepass")) for x in strs),
                              dtype=np.int64, count=len(strs))
    offsets = np.zeros(len(strs) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    if offsets[-1] >= 2**31:
        return None
    return pa.Array.from_buffers(pa.string(), len(strs),
                                 [None, pa.py_buffer(offsets.astype(np.int32)),
                                  pa.py_buffer(raw)])


def _strings_to_numpy(arr: pa.Array) -> np.ndarray:
    """An object array of the ``str`` of a string array without nulls (from its buffers:
    Arrow's ``to_pylist`` imports pandas too)."""
    n = len(arr)
    out = np.empty(n, dtype=object)
    if n == 0:
        return out
    off_type = np.int64 if pa.types.is_large_string(arr.type) else np.int32
    bufs = arr.buffers()
    offsets = np.frombuffer(bufs[1], dtype=off_type, count=n + 1,
                            offset=arr.offset * np.dtype(off_type).itemsize)
    lo, hi = int(offsets[0]), int(offsets[-1])
    raw = bytes(memoryview(bufs[2])[lo:hi]) if bufs[2] is not None else b""
    cuts = (offsets - lo).tolist()
    if raw.isascii():  # one decode; character offsets are the byte offsets
        text = raw.decode("ascii")
        out[:] = [text[a:b] for a, b in zip(cuts[:-1], cuts[1:], strict=True)]
    else:
        out[:] = [raw[a:b].decode("utf-8") for a, b in zip(cuts[:-1], cuts[1:], strict=True)]
    return out


def pair_keys(codes: np.ndarray, string_hashes: np.ndarray) -> np.ndarray:
    """Combine integer codes (e.g. query codes) with string hashes into one key."""
    k = codes.astype(np.uint64)
    k *= _M2
    k += string_hashes
    k ^= k >> np.uint64(31)
    return k


def take_strings(arr, rows) -> pa.Array:
    """``arr.take(rows)`` for a (chunked) string array without concatenating its chunks.

    pyarrow's ChunkedArray.take combines the chunks of variable-width arrays first,
    which copies every string; here each chunk is indexed on its own.
    """
    rows = np.asarray(rows, dtype=np.int64)
    if rows.size <= _NUMPY_TAKE_MAX and not compute_imported():
        small = _take_small(arr, rows)
        if small is not None:
            return small
    if not isinstance(arr, pa.ChunkedArray):
        return arr.take(numpy_to_arrow(rows))
    if arr.num_chunks == 1:
        return arr.chunk(0).take(numpy_to_arrow(rows))
    lengths = np.array([len(c) for c in arr.chunks], dtype=np.int64)
    starts = np.concatenate(([0], np.cumsum(lengths)))
    which = np.searchsorted(starts, rows, side="right") - 1
    order = np.argsort(which, kind="stable")
    pieces, positions = [], []
    bounds = np.searchsorted(which[order], np.arange(arr.num_chunks + 1))
    for c in range(arr.num_chunks):
        sel = order[bounds[c]:bounds[c + 1]]
        if sel.size:
            pieces.append(arr.chunk(c).take(numpy_to_arrow(rows[sel] - starts[c])))
            positions.append(sel)
    if not pieces:
        return pa.array([], type=arr.type)
    taken = pa.concat_arrays(pieces)
    back = np.empty(rows.size, dtype=np.int64)
    back[np.concatenate(positions)] = np.arange(rows.size)
    return taken.take(numpy_to_arrow(back))


#: Rows up to which :func:`take_strings` gathers the bytes with numpy while
#: ``pyarrow.compute`` is not imported: a few thousand ids (a run's query dictionary,
#: the documents a run and its qrels share) cost less so than the import Arrow's
#: ``take`` needs (0.03 s of CPU of a fresh process). Once it is imported (by pandas, or
#: any other path), and for larger takes, Arrow's kernel: faster, no index of every byte.
_NUMPY_TAKE_MAX = 1 << 16


def compute_imported() -> bool:
    """Whether ``pyarrow.compute`` is imported already (its functions then cost nothing
    more than numpy's; before, the path from TREC files avoids them)."""
    return "pyarrow.compute" in sys.modules


def _take_small(arr, rows: np.ndarray) -> pa.Array | None:
    """:func:`take_strings` with numpy on the arrays' buffers (the same strings, the same
    type); None where it does not apply (nulls, another type, a row out of range)."""
    chunks = arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]
    large = pa.types.is_large_string(arr.type)
    if not (large or pa.types.is_string(arr.type)) or any(c.null_count for c in chunks):
        return None
    lengths = np.array([len(c) for c in chunks], dtype=np.int64)
    starts = np.concatenate(([0], np.cumsum(lengths)))
    if rows.size and (rows.min() < 0 or rows.max() >= starts[-1]):
        return None  # Arrow's take words the error
    off_type = np.dtype(np.int64 if large else np.int32)
    which = np.searchsorted(starts, rows, side="right") - 1
    lo = np.zeros(rows.size, dtype=np.int64)
    hi = np.zeros(rows.size, dtype=np.int64)
    datas = []
    for c, chunk in enumerate(chunks):
        sel = np.flatnonzero(which == c)
        bufs = chunk.buffers()
        datas.append((sel, np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None
                      else np.zeros(0, np.uint8)))
        if sel.size:
            offs = np.frombuffer(bufs[1], dtype=off_type, count=len(chunk) + 1,
                                 offset=chunk.offset * off_type.itemsize)
            local = rows[sel] - starts[c]
            lo[sel] = offs[local]
            hi[sel] = offs[local + 1]
    size = hi - lo
    out_off = np.zeros(rows.size + 1, dtype=np.int64)
    np.cumsum(size, out=out_off[1:])
    if not large and out_off[-1] >= 2**31:
        return None
    out = np.empty(int(out_off[-1]), dtype=np.uint8)
    for sel, data in datas:
        n = size[sel]
        total = int(n.sum())
        if total == 0:
            continue
        ramp = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(n) - n, n)
        out[np.repeat(out_off[sel], n) + ramp] = data[np.repeat(lo[sel], n) + ramp]
    return pa.Array.from_buffers(arr.type, rows.size,
                                 [None, pa.py_buffer(out_off.astype(off_type)),
                                  pa.py_buffer(out)])


def string_bytes(col) -> tuple[np.ndarray, np.ndarray] | None:
    """(int64 offsets, uint8 bytes) of a string or large_string array (chunked or not)
    without nulls, its chunks joined: a copy of the bytes, for the small columns of a
    qrels file or of the tie groups of a run; None for any other array."""
    large = pa.types.is_large_string(col.type)
    if not (large or pa.types.is_string(col.type)):
        return None
    off_type = np.dtype(np.int64 if large else np.int32)
    offs, datas, base = [np.zeros(1, np.int64)], [], 0
    for chunk in (col.chunks if isinstance(col, pa.ChunkedArray) else [col]):
        n = len(chunk)
        if n == 0:
            continue
        if chunk.null_count:
            return None
        bufs = chunk.buffers()
        o = np.frombuffer(bufs[1], dtype=off_type, count=n + 1,
                          offset=off_type.itemsize * chunk.offset)
        lo, hi = int(o[0]), int(o[-1])
        datas.append(np.frombuffer(bufs[2], dtype=np.uint8)[lo:hi] if hi > lo
                     else np.zeros(0, np.uint8))
        offs.append(o[1:].astype(np.int64) - lo + base)
        base += hi - lo
    data = np.concatenate(datas) if datas else np.zeros(0, np.uint8)
    return np.concatenate(offs), data


def byte_words(offsets: np.ndarray, data: np.ndarray) -> np.ndarray:
    """The strings of :func:`string_bytes` as rows of uint64 words (shape ``(n, k)``, the
    bytes zero-padded to ``8 k``, each word big-endian): rows compare (lexicographically,
    word by word: ``np.lexsort`` of the columns) as Arrow compares the strings, byte by
    byte, provided no string holds a NUL byte (padding: the callers check). Sorting
    integer words is several times faster than numpy's sort of fixed-width bytes."""
    lengths = np.diff(offsets)
    width = -(-max(int(lengths.max()) if lengths.size else 0, 1) // 8) * 8
    out = np.zeros((lengths.size, width), dtype=np.uint8)
    ramp = np.arange(data.size, dtype=np.int64) - np.repeat(offsets[:-1], lengths)
    out[np.repeat(np.arange(lengths.size), lengths), ramp] = data
    return out.view(">u8").astype(np.uint64)


def duplicate_pairs(query, doc, *, codes=None, doc_hashes=None) -> bool:
    """Whether any (query, doc) pair occurs twice (exact, hash-filtered).

    ``codes`` (integer query codes) and ``doc_hashes`` may be passed when
    already computed.
    """
    query = _as_array(query)
    doc = _as_array(doc)
    if codes is None:
        codes = encode_strings(query)[1]
    if doc_hashes is None:
        doc_hashes = hash_strings(doc)
    keys = pair_keys(codes, doc_hashes)
    s = keys.copy() if keys.size < 2 else keys
    s.sort()  # in place: keys is our own array, and fresh memory is not free
    if not np.any(s[1:] == s[:-1]):
        return False
    keys = pair_keys(codes, doc_hashes)  # unsorted again, only on the rare clash path
    # Confirm exactly on the rows whose keys collide.
    clash = np.isin(keys, s[1:][s[1:] == s[:-1]])
    rows = np.flatnonzero(clash)
    frame = pd.DataFrame({"q": take_strings(query, rows).to_numpy(zero_copy_only=False),
                          "d": take_strings(doc, rows).to_numpy(zero_copy_only=False)})
    return bool(frame.duplicated().any())


def encode_strings(values) -> tuple[pa.Array, np.ndarray]:
    """(distinct values, int32 code of each row) of a string array, chunked or not."""
    encoded = pc.dictionary_encode(values)
    if isinstance(encoded, pa.Array):
        return encoded.dictionary, arrow_to_numpy(encoded.indices)
    chunks = encoded.chunks
    if not chunks:
        return pa.array([], type=pa.string()), np.zeros(0, dtype=np.int32)
    last = chunks[-1].dictionary
    # Arrow grows one dictionary across the chunks: each chunk's is a prefix of the last.
    if not all(c.dictionary.equals(last.slice(0, len(c.dictionary))) for c in chunks):
        encoded = encoded.unify_dictionaries()
        chunks = encoded.chunks
        last = chunks[-1].dictionary
    codes = np.concatenate([arrow_to_numpy(c.indices) for c in chunks])
    return last, codes
