"""Compiled tokenizer of TREC run files: the raw bytes to the columns of a Run, in one pass.

The file is split into chunks at newlines and the chunks are tokenized in
parallel (numba, ``prange``). Each line is split as trec_eval splits it (runs
of ASCII whitespace; blank lines and ``#`` lines skipped; fields after the
sixth ignored), and in the same pass:

* the query, document and rank fields are copied into Arrow string columns;
* the document id is hashed (the hash of :func:`mrrstats.io.hashing.hash_strings`);
* the score is parsed to the double Python's ``float`` gives: decimal numbers
  with at most 19 significant digits whose value is ``m * 10**e`` with
  ``m <= 2**53`` and ``|e| <= 22`` take Clinger's fast path (one correctly
  rounded multiplication or division of exact doubles); every other token is
  parsed afterwards by Python's ``float`` itself;
* the file is validated: the number grammar of :func:`mrrstats.read_run`, at
  least six fields, one run tag, UTF-8 text, no carriage return inside a line.

The query ids are then interned (codes in first-appearance order, as
``pyarrow.compute.dictionary_encode`` gives) and every query's documents
checked for repeats (hash set per query, equal hashes confirmed on the bytes).

Anything the tokenizer does not accept (a malformed line, a duplicate, mixed
tags, a number outside the grammar) makes :func:`tokenize_run` return ``None``:
the caller then reads the file with the readers it had before, which name the
line and the problem. So the tokenizer never has to reproduce an error
message, and a file it accepts gives exactly the columns those readers give.
"""

from __future__ import annotations

import gzip
import math
import mmap
import os
import time
import zlib

import numpy as np
import pyarrow as pa

from .. import compiled
from .hashing import _ABSENT as _HASH_ABSENT
from .hashing import take_strings

__all__ = ["tokenize_run", "tokenize_bytes", "kernels"]

_M1 = np.uint64(0x9E3779B97F4A7C15)
_M2 = np.uint64(0xBF58476D1CE4E5B9)
_M3 = np.uint64(0x94D049BB133111EB)
_KEY = np.uint64(0x632BE59BD9B4E019)
_POW10 = np.array([10.0 ** i for i in range(23)], dtype=np.float64)  # all exact doubles
_TWO53 = np.uint64(1 << 53)

# Problems that send a file back to the line reader (0 = clean).
_OK, _FIELDS, _NUMBER, _TAGS, _ENCODING, _CR = 0, 1, 2, 3, 4, 5

prange = range  # numba.prange once compiled
# Indices cast to unsigned: numba then skips the negative-index wrap-around check on every
# byte read (about a quarter of the tokenizer's time).
_u = np.uint64


def _word_term_py(w, j):
    w ^= np.uint64(j + 1) * _KEY
    w *= _M1
    w ^= w >> np.uint64(32)
    w *= _M2
    return w


def _hash_bytes_py(buf, s, n):
    """hash_strings() of the ``n`` bytes at ``buf[s:]``."""
    h = np.uint64(n) * _M3
    nw = (n + 7) // 8
    zero = np.uint64(0)
    for j in range(nw):
        w = np.uint64(0)
        m = n - 8 * j
        if m > 8:
            m = 8
        for k in range(m):
            w |= np.uint64(buf[s + 8 * j + k]) << np.uint64(8 * k)
        h += _word_term(w, j) - _word_term(zero, j)
    h ^= h >> np.uint64(30)
    h *= _M2
    h ^= h >> np.uint64(27)
    h *= _M3
    h ^= h >> np.uint64(31)
    return h


def _parse_score_py(buf, s, e):
    """``(value, status)``: status 0 parsed exactly, 1 needs Python's float, 2 not a number."""
    i = s
    neg = False
    c = buf[_u(i)]
    if c == 43 or c == 45:  # + -
        neg = c == 45
        i += 1
    m = np.uint64(0)
    nd = 0
    exp = 0
    digits = False
    dropped = False
    while i < e and 48 <= buf[_u(i)] <= 57:
        d = buf[_u(i)] - 48
        digits = True
        if nd < 19:
            if m != 0 or d != 0:
                m = m * np.uint64(10) + np.uint64(d)
                nd += 1
        else:
            exp += 1
            dropped = True
        i += 1
    if i < e and buf[_u(i)] == 46:  # .
        i += 1
        while i < e and 48 <= buf[_u(i)] <= 57:
            d = buf[_u(i)] - 48
            digits = True
            if nd < 19:
                if m != 0 or d != 0:
                    m = m * np.uint64(10) + np.uint64(d)
                    nd += 1
                exp -= 1
            else:
                dropped = True
            i += 1
    if not digits:
        return 0.0, 2
    if i < e and (buf[_u(i)] == 101 or buf[_u(i)] == 69):  # e E
        i += 1
        eneg = False
        if i < e and (buf[_u(i)] == 43 or buf[_u(i)] == 45):
            eneg = buf[_u(i)] == 45
            i += 1
        if i >= e:
            return 0.0, 2
        ev = 0
        while i < e and 48 <= buf[_u(i)] <= 57:
            if ev < 100000:
                ev = ev * 10 + (buf[_u(i)] - 48)
            i += 1
        exp += -ev if eneg else ev
    if i != e:
        return 0.0, 2
    if dropped:
        return 0.0, 1
    if m == 0:
        return -0.0 if neg else 0.0, 0
    if m > _TWO53:
        return 0.0, 1
    v = float(m)
    if exp > 0:
        if exp > 22:
            return 0.0, 1
        v = v * _POW10[exp]
    elif exp < 0:
        if exp < -22:
            return 0.0, 1
        v = v / _POW10[-exp]
    return (-v if neg else v), 0


def _utf8_ok_py(buf, s, e):
    """Whether ``buf[s:e]`` is valid UTF-8 as Python's strict decoder reads it."""
    i = s
    while i < e:
        c = buf[i]
        if c < 0x80:
            i += 1
            continue
        if 0xC2 <= c <= 0xDF:
            n = 1
            lo, hi = 0x80, 0xBF
        elif 0xE0 <= c <= 0xEF:
            n = 2
            lo = 0xA0 if c == 0xE0 else 0x80
            hi = 0x9F if c == 0xED else 0xBF
        elif 0xF0 <= c <= 0xF4:
            n = 3
            lo = 0x90 if c == 0xF0 else 0x80
            hi = 0x8F if c == 0xF4 else 0xBF
        else:
            return False
        if i + n >= e:
            return False
        if not (lo <= buf[i + 1] <= hi):
            return False
        for k in range(2, n + 1):
            if not (0x80 <= buf[i + k] <= 0xBF):
                return False
        i += n + 1
    return True


# Byte classes: 0 part of a field, 1 field separator, 2 newline, 3 carriage return,
# 4 a byte of a multi-byte UTF-8 character (checked per line).
_CLASS = np.zeros(256, np.uint8)
_CLASS[[32, 9, 11, 12]] = 1
_CLASS[10] = 2
_CLASS[13] = 3
_CLASS[128:] = 4
_ABSENT = np.array(_HASH_ABSENT, dtype=np.uint64)  # _word_term(0, j) for j < 64


def _tokenize_chunk_py(buf, c, cstart, cend, rowbase, qdata, ddata, rdata, qoff, doff, roff,
                       starts, score, dhash, stats):
    """Tokenize lines ``buf[cstart[c]:cend[c]]`` (see the module docstring), in one
    forward pass: each field is copied (the document also hashed) while it is scanned.

    The chunk ends with a newline (:func:`_read_bytes` makes sure the file does), so
    every scan stops at a newline at the latest: no end-of-chunk test per byte. A
    line found irregular only after some of its bytes were copied sets ``problem``,
    and the whole result is then dropped.

    Rows go to ``rowbase[c]...``; the chunk's field bytes to ``qdata`` /
    ``ddata`` / ``rdata`` from ``cstart[c]`` on, their chunk-local Arrow
    offsets to ``qoff`` / ``doff`` / ``roff`` from ``rowbase[c] + c`` on; the
    rows (chunk-local) where the query changes to ``starts`` from ``rowbase[c]`` on.
    Empty ``rdata`` and ``roff``: the rank column is not wanted (nothing written to
    them; its byte count in ``stats`` as before). ``stats[c]``: rows, query bytes,
    doc bytes, rank bytes, tokens left to Python's float, problem, tag start, tag
    length, query changes, whether a score rises within a query (scores left to
    Python's float not compared).
    """
    a = cstart[c]
    b = cend[c]
    row = rowbase[c]
    o = rowbase[c] + c  # offsets of this chunk
    ranks = rdata.size > 0 and roff.size > 0
    qoff[o] = 0
    doff[o] = 0
    if ranks:
        roff[o] = 0
    qp = 0
    dp = 0
    rp = 0
    slow = 0
    problem = 0
    tag_s = -1
    tag_n = 0
    prev_s = -1
    prev_n = 0
    nrun = 0
    rise = 0
    p = a
    while p < b:
        line = p
        high = False
        x = buf[_u(p)]
        while x == 32 or x == 9 or x == 11 or x == 12:
            p += 1
            x = buf[_u(p)]
        if x == 10:  # blank line
            p += 1
            continue
        if x == 13:
            if buf[_u(p + 1)] == 10:
                p += 2
                continue
            problem = _CR
            break
        if x == 35:  # '#': a comment line, checked for CR and UTF-8 only
            while True:
                x = buf[_u(p)]
                if x == 10:
                    break
                if x == 13:
                    if buf[_u(p + 1)] != 10:
                        problem = _CR
                    break
                if x >= 128:
                    high = True
                p += 1
            if problem != 0:
                break
            if high and not _utf8_ok(buf, line, p):
                problem = _ENCODING
                break
            p += 1 if x == 10 else 2
            continue
        # field 1: the query, copied
        s0 = p
        q0 = a + qp
        while True:
            if x <= 32:
                if _CLASS[x] != 0:
                    break
            elif x >= 128:
                high = True
            qdata[_u(q0 + p - s0)] = x
            p += 1
            x = buf[_u(p)]
        nq = p - s0
        # separators, then field 2 (iteration), skipped
        while x == 32 or x == 9 or x == 11 or x == 12:
            p += 1
            x = buf[_u(p)]
        if x == 10 or x == 13:
            problem = _FIELDS
            break
        while True:
            if x <= 32:
                if _CLASS[x] != 0:
                    break
            elif x >= 128:
                high = True
            p += 1
            x = buf[_u(p)]
        while x == 32 or x == 9 or x == 11 or x == 12:
            p += 1
            x = buf[_u(p)]
        if x == 10 or x == 13:
            problem = _FIELDS
            break
        # field 3: the document, copied and hashed (hash_strings' words)
        s2 = p
        d0 = a + dp
        h = np.uint64(0)
        w = np.uint64(0)
        k = 0
        while True:
            if x <= 32:
                if _CLASS[x] != 0:
                    break
            elif x >= 128:
                high = True
            ddata[_u(d0 + k)] = x
            w |= np.uint64(x) << np.uint64(8 * (k & 7))
            if (k & 7) == 7:
                j = k >> 3
                h += _word_term(w, j) - (_ABSENT[j] if j < 64 else _word_term(np.uint64(0), j))
                w = np.uint64(0)
            k += 1
            p += 1
            x = buf[_u(p)]
        nd = p - s2
        if nd & 7:
            j = nd >> 3
            h += _word_term(w, j) - (_ABSENT[j] if j < 64 else _word_term(np.uint64(0), j))
        h += np.uint64(nd) * _M3
        while x == 32 or x == 9 or x == 11 or x == 12:
            p += 1
            x = buf[_u(p)]
        if x == 10 or x == 13:
            problem = _FIELDS
            break
        # field 4: the rank, copied
        s3 = p
        r0 = a + rp
        while True:
            if x <= 32:
                if _CLASS[x] != 0:
                    break
            elif x >= 128:
                high = True
            if ranks:
                rdata[_u(r0 + p - s3)] = x
            p += 1
            x = buf[_u(p)]
        nr = p - s3
        while x == 32 or x == 9 or x == 11 or x == 12:
            p += 1
            x = buf[_u(p)]
        if x == 10 or x == 13:
            problem = _FIELDS
            break
        # field 5: the score
        s4 = p
        while True:
            if x <= 32:
                if _CLASS[x] != 0:
                    break
            elif x >= 128:
                high = True
            p += 1
            x = buf[_u(p)]
        e4 = p
        while x == 32 or x == 9 or x == 11 or x == 12:
            p += 1
            x = buf[_u(p)]
        if x == 10 or x == 13:
            problem = _FIELDS
            break
        # field 6: the tag
        s5 = p
        while True:
            if x <= 32:
                if _CLASS[x] != 0:
                    break
            elif x >= 128:
                high = True
            p += 1
            x = buf[_u(p)]
        n5 = p - s5
        # fields after the sixth: ignored, but the line is checked to its end
        while x != 10:
            if x == 13:
                if buf[_u(p + 1)] != 10:
                    problem = _CR
                break
            if x >= 128:
                high = True
            p += 1
            x = buf[_u(p)]
        if problem != 0:
            break
        if high and not _utf8_ok(buf, line, p):
            problem = _ENCODING
            break
        p += 1 if x == 10 else 2
        v, st = _parse_score(buf, s4, e4)
        if st == 2:
            problem = _NUMBER
            break
        if st == 1:
            slow += 1
            v = np.nan
        # one tag per chunk (the chunks' tags are compared afterwards)
        if tag_s < 0:
            tag_s = s5
            tag_n = n5
        else:
            if n5 != tag_n:
                problem = _TAGS
                break
            for t in range(n5):
                if buf[_u(s5 + t)] != buf[_u(tag_s + t)]:
                    problem = _TAGS
                    break
            if problem != 0:
                break
        score[row] = v
        eq = nq == prev_n
        if eq:
            for t in range(nq):
                if buf[_u(s0 + t)] != buf[_u(prev_s + t)]:
                    eq = False
                    break
        if eq:
            if v > score[row - 1]:
                rise = 1
        else:
            starts[rowbase[c] + nrun] = row - rowbase[c]
            nrun += 1
        prev_s = s0
        prev_n = nq
        qp += nq
        h ^= h >> np.uint64(30)
        h *= _M2
        h ^= h >> np.uint64(27)
        h *= _M3
        h ^= h >> np.uint64(31)
        dhash[row] = h
        dp += nd
        rp += nr
        o += 1
        qoff[o] = qp
        doff[o] = dp
        if ranks:
            roff[o] = rp
        row += 1
    stats[c, 0] = row - rowbase[c]
    stats[c, 1] = qp
    stats[c, 2] = dp
    stats[c, 3] = rp
    stats[c, 4] = slow
    stats[c, 5] = problem
    stats[c, 6] = tag_s
    stats[c, 7] = tag_n
    stats[c, 8] = nrun
    stats[c, 9] = rise


def _tokenize_py(buf, cstart, cend, rowbase, qdata, ddata, rdata, qoff, doff, roff, starts, score,
                 dhash, stats):
    for c in prange(cstart.size):
        _tokenize_chunk(buf, c, cstart, cend, rowbase, qdata, ddata, rdata, qoff, doff, roff,
                        starts, score, dhash, stats)


def _tokenize_serial_py(buf, cstart, cend, rowbase, qdata, ddata, rdata, qoff, doff, roff, starts,
                        score, dhash, stats):
    for c in range(cstart.size):
        _tokenize_chunk(buf, c, cstart, cend, rowbase, qdata, ddata, rdata, qoff, doff, roff,
                        starts, score, dhash, stats)


def _count_lines_py(buf, cstart, cend, out):
    for c in prange(cstart.size):
        x = buf[cstart[c]:cend[c]]  # indices from 0: no negative-index check, vectorised
        n = np.int64(0)
        for i in range(x.size):
            n += np.int64(x[i] == np.uint8(10))
        out[c] = n


def _bytes_equal_py(data, a0, a1, b0, b1):
    if a1 - a0 != b1 - b0:
        return False
    for k in range(a1 - a0):
        if data[a0 + k] != data[b0 + k]:
            return False
    return True


def _intern_py(data, offs, cstart, obase, rowstart, starts, sbase, nstarts, score, run_row,
               run_code, first_row, blocks):
    """Query codes in first-appearance order, visiting only the rows where the query
    changes (``starts[sbase[c]:sbase[c] + nstarts[c]]``, chunk-local, of chunk ``c``):
    their first rows and codes to ``run_row`` / ``run_code``. Returns the number of
    distinct queries, of blocks of rows with one query (their first rows in
    ``blocks``) and whether no score rises where a block crosses a chunk boundary.

    Row ``r`` (of chunk ``c``) holds ``data[cstart[c] + offs[obase[c] + r - rowstart[c]]:...]``.
    """
    runs = run_row.size
    cap = 16
    while cap < 2 * runs:
        cap *= 2
    mask = np.uint64(cap - 1)
    table = np.full(cap, -1, np.int64)
    hashes = np.zeros(cap, np.uint64)
    first_s = np.empty(runs + 1, np.int64)
    first_e = np.empty(runs + 1, np.int64)
    ncodes = 0
    nblocks = 0
    code = -1
    descending = True
    i = 0
    for c in range(cstart.size):
        for j in range(nstarts[c]):
            t = starts[sbase[c] + j]
            r = rowstart[c] + t
            previous = code
            s = cstart[c] + offs[obase[c] + t]
            e = cstart[c] + offs[obase[c] + t + 1]
            h = _hash_bytes(data, s, e - s)
            slot = h & mask
            while True:
                k = table[slot]
                if k < 0:
                    table[slot] = ncodes
                    hashes[slot] = h
                    first_row[ncodes] = r
                    first_s[ncodes] = s
                    first_e[ncodes] = e
                    code = ncodes
                    ncodes += 1
                    break
                if hashes[slot] == h and _bytes_equal(data, first_s[k], first_e[k], s, e):
                    code = k
                    break
                slot = (slot + np.uint64(1)) & mask
            if code != previous:
                blocks[nblocks] = r
                nblocks += 1
            elif score[r] > score[r - 1]:  # a query going on in the next chunk
                descending = False
            run_row[i] = r
            run_code[i] = code
            i += 1
    return ncodes, nblocks, descending


def _fill_codes_py(run_row, run_code, n, codes):
    """``codes[run_row[i]:run_row[i + 1]] = run_code[i]`` (the last run up to ``n``)."""
    for i in prange(run_row.size):
        hi = run_row[i + 1] if i + 1 < run_row.size else n
        for r in range(run_row[i], hi):
            codes[r] = run_code[i]


def _span_py(r, offs, cstart, obase, rowstart):
    """Byte range of row ``r``'s field (see :func:`_intern_py`)."""
    c = np.searchsorted(rowstart, r, side="right") - 1
    t = r - rowstart[c]
    return cstart[c] + offs[obase[c] + t], cstart[c] + offs[obase[c] + t + 1]


def _group_has_repeat_py(rows, lo, hi, dhash, data, offs, cstart, obase, rowstart):
    """Whether two of ``rows[lo:hi]`` (``rows`` empty: rows ``lo:hi``) hold the same
    document (hash set, bytes confirm)."""
    n = hi - lo
    cap = 16
    while cap < 2 * n:
        cap *= 2
    mask = np.uint64(cap - 1)
    slots = np.full(cap, -1, np.int64)
    for t in range(lo, hi):
        r = rows[t] if rows.size else t
        h = dhash[r]
        slot = h & mask
        while True:
            k = slots[slot]
            if k < 0:
                slots[slot] = r
                break
            if dhash[k] == h:
                a0, a1 = _span(k, offs, cstart, obase, rowstart)
                b0, b1 = _span(r, offs, cstart, obase, rowstart)
                if _bytes_equal(data, a0, a1, b0, b1):
                    return True
            slot = (slot + np.uint64(1)) & mask
    return False


def _repeats_py(rows, bounds, dhash, data, offs, cstart, obase, rowstart, out):
    for g in prange(bounds.size - 1):
        out[g] = _group_has_repeat(rows, bounds[g], bounds[g + 1], dhash, data, offs, cstart,
                                   obase, rowstart)


def _repeats_serial_py(rows, bounds, dhash, data, offs, cstart, obase, rowstart, out):
    for g in range(bounds.size - 1):
        out[g] = _group_has_repeat(rows, bounds[g], bounds[g + 1], dhash, data, offs, cstart,
                                   obase, rowstart)


def _group_rows_py(codes, ncodes, rows, bounds):
    """Rows grouped by code, file order within a code (counting sort)."""
    count = np.zeros(ncodes + 1, np.int64)
    for r in range(codes.size):
        count[codes[r] + 1] += 1
    for k in range(ncodes):
        count[k + 1] += count[k]
    for k in range(ncodes + 1):
        bounds[k] = count[k]
    for r in range(codes.size):
        k = codes[r]
        rows[count[k]] = r
        count[k] += 1


_hash_bytes = _hash_bytes_py
_word_term = _word_term_py
_parse_score = _parse_score_py
_utf8_ok = _utf8_ok_py
_tokenize_chunk = _tokenize_chunk_py
_bytes_equal = _bytes_equal_py
_group_has_repeat = _group_has_repeat_py
_span = _span_py


def kernels() -> dict:
    """Compile (or load from numba's cache) the tokenizer kernels, once per process."""
    global _hash_bytes, _word_term, _parse_score, _utf8_ok, _tokenize_chunk, _bytes_equal
    global _group_has_repeat, _span, prange
    k = _KERNELS.get("k")
    if k is None:
        t0 = time.perf_counter()
        prange = compiled.prange()
        jit = compiled.jit
        _word_term = jit(_word_term_py, inline=True)
        _hash_bytes = jit(_hash_bytes_py)
        _parse_score = jit(_parse_score_py, inline=True)
        _utf8_ok = jit(_utf8_ok_py)
        _bytes_equal = jit(_bytes_equal_py)
        _tokenize_chunk = jit(_tokenize_chunk_py)
        _span = jit(_span_py)
        _group_has_repeat = jit(_group_has_repeat_py)
        k = {
            "tokenize": (jit(_tokenize_py, parallel=True), jit(_tokenize_serial_py)),
            "count_lines": compiled.pair(_count_lines_py),
            "repeats": (jit(_repeats_py, parallel=True), jit(_repeats_serial_py)),
            "intern": jit(_intern_py),
            "fill_codes": compiled.pair(_fill_codes_py),
            "group_rows": jit(_group_rows_py),
            "hash": _hash_bytes,
            "parse_score": _parse_score,
        }
        _KERNELS["k"] = k
        compiled.compile_seconds.setdefault("tokenizer (jit wrappers)",
                                            time.perf_counter() - t0)
    return k


def _native_kernels(mod) -> dict:
    """The kernels of :func:`kernels` compiled ahead of time (``mrrstats._native``)."""
    N = compiled.Native
    return {
        "tokenize": (N(mod.tokenize), None),
        "count_lines": (N(mod.count_lines), None),
        "repeats": (N(mod.repeats), None),
        "intern": mod.intern,
        "fill_codes": (N(mod.fill_codes), None),
        "group_rows": mod.group_rows,
    }


def _active_kernels() -> dict:
    """The C kernels where built (numba is then never imported), else numba's."""
    mod = compiled.native()
    return kernels() if mod is None else _native_kernels(mod)


_KERNELS: dict = {}
_MIN_CHUNK = 1 << 20  # bytes; tests lower it to cut small files into many chunks
#: Smaller files (bytes on disk; a quarter of that for gzip) are left to the readers:
#: loading numba in a fresh process would cost more than the tokenizer saves.
MIN_BYTES = 1 << 22


def _read_bytes(path) -> np.ndarray | None:
    """The file's bytes (mapped; gunzipped where it is gzip), without a UTF-8 BOM, ending
    with a newline (one is added to a copy where the last line has none)."""
    try:
        with open(path, "rb") as fh:
            gz = fh.read(2) == b"\x1f\x8b"
            if gz:
                with gzip.open(path, "rb") as gfh:
                    buf = np.frombuffer(gfh.read(), dtype=np.uint8)
            else:
                if os.fstat(fh.fileno()).st_size == 0:
                    return None
                buf = np.frombuffer(mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ),
                                    dtype=np.uint8)
    except (OSError, EOFError, zlib.error, ValueError):
        return None
    if buf.size >= 3 and buf[0] == 0xEF and buf[1] == 0xBB and buf[2] == 0xBF:
        buf = buf[3:]
    if buf.size and buf[-1] != 10:  # the chunk kernel needs a newline at the end
        if buf[-1] == 13:
            return None  # a carriage return ending the file: the readers decide
        buf = np.concatenate((buf, np.array([10], np.uint8)))
    return buf


def _chunks(buf: np.ndarray, n_threads: int) -> tuple[np.ndarray, np.ndarray]:
    """Chunk bounds cut just after newlines (the same rows whatever the cut); every chunk
    under 1 GiB, so that int32 offsets hold its fields."""
    size = buf.size
    n = max(1, min(size // _MIN_CHUNK, 8 * n_threads), -(-size // (1 << 30)))
    starts = [0]
    for c in range(1, n):
        p = max(size * c // n, starts[-1])
        nl = np.zeros(0, np.int64)
        while nl.size == 0 and p < size:
            nl = np.flatnonzero(buf[p:min(size, p + (1 << 16))] == 10)
            if nl.size == 0:
                p += 1 << 16
        if nl.size == 0:
            break
        cut = p + int(nl[0]) + 1
        if starts[-1] < cut < size:
            starts.append(cut)
    cstart = np.asarray(starts, dtype=np.int64)
    cend = np.append(cstart[1:], size).astype(np.int64)
    return cstart, cend


def _column(data, offs, cstart, obase, nrows, nbytes) -> pa.ChunkedArray:
    """One Arrow chunk per tokenizer chunk, on the tokenizer's buffers (no copy)."""
    chunks = []
    for c in range(cstart.size):
        n = int(nrows[c])
        if n == 0:
            continue
        o0, d0 = int(obase[c]), int(cstart[c])
        chunks.append(pa.Array.from_buffers(
            pa.string(), n, [None, pa.py_buffer(offs[o0:o0 + n + 1]),
                             pa.py_buffer(data[d0:d0 + int(nbytes[c])])]))
    return pa.chunked_array(chunks, type=pa.string())


def tokenize_run(path, *, workers=-1, rank=True):
    """The columns of a clean TREC run file, or None (numba missing, or anything irregular).

    Returns a dict: ``query``, ``doc``, ``rank`` (Arrow string columns, chunked),
    ``score`` (float64), ``tag`` (str), ``query_dictionary`` (Arrow strings,
    first-appearance order), ``query_codes`` (int32), ``doc_hashes`` (uint64),
    ``query_blocks`` (first row of each query's block of lines when every query
    comes in one block with scores descending, else None), ``newlines`` (newline
    characters read). With ``rank=False`` the rank column is not built (``None``).
    """
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as fh:
            if fh.read(2) == b"\x1f\x8b":
                size *= 4
    except OSError:
        return None
    if size < MIN_BYTES or not compiled.usable():
        return None
    buf = _read_bytes(path)
    if buf is None or buf.size == 0:
        return None
    return _tokenize(buf, workers, rank)


def tokenize_bytes(data, *, workers=-1):
    """:func:`tokenize_run` of text already in memory (``bytes`` or a uint8 array of whole
    lines, as the stream engine reads a file piece by piece): the same dict, or None
    (numba missing, or anything irregular). A UTF-8 byte-order mark at the start is
    dropped, as for a file."""
    if not compiled.usable():
        return None
    buf = np.frombuffer(data, dtype=np.uint8) if not isinstance(data, np.ndarray) else data
    if buf.size >= 3 and buf[0] == 0xEF and buf[1] == 0xBB and buf[2] == 0xBF:
        buf = buf[3:]
    if buf.size == 0:
        return None
    if buf[-1] != 10:  # the chunk kernel needs a newline at the end
        if buf[-1] == 13:
            return None  # a carriage return ending the text: the readers decide
        buf = np.concatenate((buf, np.array([10], np.uint8)))
    return _tokenize(buf, workers)


def _tokenize(buf: np.ndarray, workers, rank: bool = True):
    """The tokenizer on ``buf`` (ending with a newline, no byte-order mark); without
    ``rank``, no rank column (``None``): 2 of the 10 arrays it writes, a sixth of the
    fresh memory it touches."""
    k = _active_kernels()
    cstart, cend = _chunks(buf, compiled.threads(workers))
    nchunk = cstart.size
    nl = np.empty(nchunk, np.int64)
    compiled.launch(*k["count_lines"], workers, buf, cstart, cend, nl)
    bound = nl.copy()
    bound[-1] += buf[-1] != 10  # a last line without a newline
    rowbase = np.concatenate(([0], np.cumsum(bound))).astype(np.int64)
    nrow_max = int(rowbase[-1])
    obase = rowbase[:-1] + np.arange(nchunk)
    size = buf.size
    qdata = np.empty(size, np.uint8)  # only the pages written are ever touched
    ddata = np.empty(size, np.uint8)
    rdata = np.empty(size if rank else 0, np.uint8)
    qoff = np.empty(nrow_max + nchunk, np.int32)
    doff = np.empty(nrow_max + nchunk, np.int32)
    roff = np.empty(nrow_max + nchunk if rank else 0, np.int32)
    starts = np.empty(nrow_max, np.int64)  # rows where the query changes (few touched)
    score = np.empty(nrow_max, np.float64)
    dhash = np.empty(nrow_max, np.uint64)
    stats = np.zeros((nchunk, 10), np.int64)
    compiled.launch(*k["tokenize"], workers, buf, cstart, cend, rowbase[:-1], qdata, ddata,
                    rdata, qoff, doff, roff, starts, score, dhash, stats)
    if stats[:, 5].any():
        return None
    nrows = stats[:, 0].copy()
    n = int(nrows.sum())
    if n == 0:
        return None
    # One tag in the whole file: compare the chunks' tags with the first one.
    tags = {bytes(buf[s:s + ln]) for s, ln in stats[:, 6:8] if s >= 0}
    if len(tags) != 1:
        return None
    tag = tags.pop().decode("utf-8")
    rowstart = np.concatenate(([0], np.cumsum(nrows)[:-1])).astype(np.int64)
    if (nrows[:-1] != bound[:-1]).any():  # blank or comment lines: close the gaps
        keep = np.concatenate([np.arange(rowbase[c], rowbase[c] + nrows[c])
                               for c in range(nchunk)])
        score, dhash = score[keep], dhash[keep]
    elif n != nrow_max:  # rows missing at the end only
        score, dhash = score[:n], dhash[:n]
    slow = bool(stats[:, 4].any())
    if slow:  # numbers outside the fast path: Python's float, exactly
        if not _parse_slow(buf, cstart, cend, rowstart, score):
            return None
    nstarts = stats[:, 8].copy()
    nruns = int(nstarts.sum())
    run_row = np.empty(nruns, np.int64)
    run_code = np.empty(nruns, np.int32)
    first_row = np.empty(nruns, np.int64)
    blocks = np.empty(nruns + 1, np.int64)
    ncodes, nblocks, descending = k["intern"](qdata, qoff, cstart, obase, rowstart, starts,
                                              rowbase[:-1], nstarts, score, run_row, run_code,
                                              first_row, blocks)
    blocks[nblocks] = n
    codes = np.empty(n, np.int32)
    compiled.launch(*k["fill_codes"], workers, run_row, run_code, n, codes)
    if slow:  # the chunks compared the fast-path scores only
        descending = not bool(np.any((codes[1:] == codes[:-1]) & (score[1:] > score[:-1])))
    else:
        descending = descending and not stats[:, 9].any()
    # Repeated documents within a query: groups of rows by query
    if nblocks == ncodes:  # each query in one block of lines (the usual layout)
        rows = np.zeros(0, np.int64)
        bounds = blocks[:nblocks + 1]
    else:
        rows = np.empty(n, np.int64)
        bounds = np.empty(ncodes + 1, np.int64)
        k["group_rows"](codes, ncodes, rows, bounds)
    repeat = np.zeros(bounds.size - 1, np.bool_)
    compiled.launch(*k["repeats"], workers, rows, bounds, dhash, ddata, doff, cstart, obase,
                    rowstart, repeat)
    if repeat.any():
        return None  # the line reader raises, or applies duplicates='first' / 'max'
    query = _column(qdata, qoff, cstart, obase, nrows, stats[:, 1])
    return {"query": query, "doc": _column(ddata, doff, cstart, obase, nrows, stats[:, 2]),
            "newlines": int(nl.sum()),
            "rank": _column(rdata, roff, cstart, obase, nrows, stats[:, 3]) if rank else None,
            "score": score,
            "tag": tag, "query_dictionary": take_strings(query, first_row[:ncodes]),
            "query_codes": codes, "doc_hashes": dhash,
            # each query in one block of lines with scores descending: rank_run needs no scan
            "query_blocks": blocks[:nblocks].copy() if nblocks == ncodes and descending
            else None}


def _parse_slow(buf, cstart, cend, rowstart, score) -> bool:
    """Parse the scores the fast path left (NaN) with Python's float; False if one is
    not finite (the line reader then names the line)."""
    todo = np.flatnonzero(np.isnan(score))
    tokens = _score_tokens(buf, cstart, cend, rowstart, set(todo.tolist()))
    for r, tok in tokens.items():
        v = float(tok)  # the token is in the number grammar: the tokenizer checked it
        if not math.isfinite(v):
            return False
        score[r] = v
    return len(tokens) == todo.size


def _score_tokens(buf, cstart, cend, rowstart, wanted: set) -> dict:
    """Score token (str) of the wanted rows, by re-reading the lines of their chunks."""
    out = {}
    ends = np.append(rowstart[1:], np.iinfo(np.int64).max)
    for c in range(cstart.size):
        if not any(rowstart[c] <= r < ends[c] for r in wanted):
            continue
        row = int(rowstart[c])
        for line in bytes(buf[cstart[c]:cend[c]]).split(b"\n"):
            parts = line.split()
            if not parts or parts[0].startswith(b"#"):
                continue
            if row in wanted:
                out[row] = parts[4].decode("ascii")
            row += 1
    return out
