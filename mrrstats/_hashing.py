"""Vectorised 64-bit hashes of pyarrow string arrays.

Used as a fast *filter*: equal strings always get equal hashes, so a hash
look-up finds every true match; the rare false match (a collision) is then
ruled out by comparing the strings themselves. Nothing is decided on a hash
alone.
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["hash_strings", "pair_keys", "duplicate_pairs"]

_M1 = np.uint64(0x9E3779B97F4A7C15)
_M2 = np.uint64(0xBF58476D1CE4E5B9)
_M3 = np.uint64(0x94D049BB133111EB)


def _mix(h: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser, in place."""
    h ^= h >> np.uint64(30)
    h *= _M2
    h ^= h >> np.uint64(27)
    h *= _M3
    h ^= h >> np.uint64(31)
    return h


def _as_array(arr) -> pa.Array:
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if not isinstance(arr, pa.Array):
        arr = pa.array(np.asarray(arr, dtype=object).astype(str), type=pa.string())
    if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        arr = arr.cast(pa.string())
    return arr


def hash_strings(arr) -> np.ndarray:
    """64-bit hash of every string in a pyarrow string array (or sequence of str)."""
    arr = _as_array(arr)
    n = len(arr)
    if n == 0:
        return np.zeros(0, dtype=np.uint64)
    if sys.byteorder != "little":  # pragma: no cover - big-endian machines
        values = arr.to_numpy(zero_copy_only=False)
        return pd.util.hash_array(values.astype(object), categorize=False).astype(np.uint64)
    off_type = np.int64 if pa.types.is_large_string(arr.type) else np.int32
    bufs = arr.buffers()
    offsets = np.frombuffer(bufs[1], dtype=off_type, count=n + 1,
                            offset=arr.offset * np.dtype(off_type).itemsize).astype(np.int64)
    start = offsets[:-1]
    lens = np.diff(offsets)
    data = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None else np.zeros(0, np.uint8)
    lo, hi = int(offsets[0]), int(offsets[-1])
    padded = np.zeros(hi - lo + 8, dtype=np.uint8)
    padded[: hi - lo] = data[lo:hi]
    start = start - lo
    # Overlapping, unaligned little-endian 8-byte words starting at every byte.
    words = np.ndarray(shape=(padded.size - 7,), dtype=np.uint64, buffer=padded, strides=(1,))
    h = lens.astype(np.uint64) * _M1
    maxlen = int(lens.max()) if n else 0
    last = words.size - 1
    for j in range(0, maxlen, 8):
        idx = np.minimum(start + j, last)
        w = words[idx]
        rem = np.clip(lens - j, 0, 8).astype(np.uint64)
        full = rem == 8
        mask = np.where(full, np.uint64(0xFFFFFFFFFFFFFFFF),
                        (np.uint64(1) << (rem * np.uint64(8))) - np.uint64(1))
        w &= mask
        # Only strings that reach this word are updated, so that a string's hash
        # does not depend on the lengths of the other strings in the array.
        step = (h ^ w) * _M1
        step ^= step >> np.uint64(29)
        h = step if j == 0 and bool((lens > 0).all()) else np.where(lens > j, step, h)
    return _mix(h)


def pair_keys(codes: np.ndarray, string_hashes: np.ndarray) -> np.ndarray:
    """Combine integer codes (e.g. query codes) with string hashes into one key."""
    k = codes.astype(np.uint64) * _M2
    k ^= string_hashes
    return _mix(k)


def duplicate_pairs(query, doc, *, codes=None, doc_hashes=None) -> bool:
    """Whether any (query, doc) pair occurs twice (exact, hash-filtered).

    ``codes`` (integer query codes) and ``doc_hashes`` may be passed when
    already computed.
    """
    query = _as_array(query)
    doc = _as_array(doc)
    if codes is None:
        codes = pc.dictionary_encode(query).indices.to_numpy(zero_copy_only=False)
    if doc_hashes is None:
        doc_hashes = hash_strings(doc)
    keys = pair_keys(codes, doc_hashes)
    s = np.sort(keys)
    if not np.any(s[1:] == s[:-1]):
        return False
    # Confirm exactly on the rows whose keys collide.
    clash = np.isin(keys, s[1:][s[1:] == s[:-1]])
    rows = np.flatnonzero(clash)
    frame = pd.DataFrame({"q": query.take(pa.array(rows)).to_numpy(zero_copy_only=False),
                          "d": doc.take(pa.array(rows)).to_numpy(zero_copy_only=False)})
    return bool(frame.duplicated().any())
