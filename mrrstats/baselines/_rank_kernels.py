"""Compiled (numba) kernels for link-prediction ranks: one pass over each row.

The kernels are compiled on first use and cached on disk (``cache=True``), so
only the first call on a machine pays the compilation (measured in
``benchmarks/results_linkpred.md``). Importing :mod:`mrrstats` does not
import numba: the kernels are written here as plain functions and
:func:`_kernels` wraps them with ``numba.njit`` on the first rank call (they
stay module-level functions, so numba's on-disk cache finds them again).

Per row ``i`` with true score ``t`` the kernel counts, in one read of the row,
the scores above and below ``t`` and the scores that are not ``> -inf`` (NaN
or -inf). Rows are spread over threads with ``prange``; every row is counted
by exactly one thread, so the integer results do not depend on the number of
threads. The row is counted unfiltered; filtered candidates, given as
sorted column lists per row (CSR: ``ptr``, ``cols``) or as a boolean mask,
are then taken back out one by one (a few per row in link prediction). A
mask row is read as 8-byte words, 64 bytes tested at once, so a sparse mask
costs one fast read of its bytes (a quarter of a float32 matrix) and no work
per unfiltered candidate. Rows with NaN / -inf (rare) are read a second time
to tell filtered from unfiltered ones and find the first.

float16 scores are read as their bit patterns (``uint16``) through a 65,536
entry table of the exactly equal float32 values (numba has no CPU float16).
"""

from __future__ import annotations

import threading

import numpy as np

from .. import compiled

__all__ = ["count_rows", "KERNEL_DTYPES"]

#: Score dtypes the kernels read directly (native byte order); others use numpy.
KERNEL_DTYPES = frozenset(np.dtype(d) for d in (
    np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64,
    np.uint8, np.uint16, np.uint32, np.uint64))

_F16_TABLE = np.arange(1 << 16, dtype=np.uint16).view(np.float16).astype(np.float32)
_F16_TABLE.setflags(write=False)
_STATE: dict = {}  # "kernels": the compiled pair, once per process
prange = range  # numba.prange once the kernels are compiled (see _kernels)


def _take_out_py(S, i, j, ti, table, check, g, lo, fb):
    """Take the filtered score ``S[i, j]`` back out of the row's counts ``(g, lo, fb)``."""
    if table is None:
        v = S[i, j]
    else:
        v = table[S[i, j]]
    if v > ti:
        g -= 1
    elif v < ti:
        lo -= 1  # -inf included: it was counted as lower
    if check and not v > -np.inf:
        fb += 1
    return g, lo, fb


def _take_out_bytes_py(S, i, ti, Mb, b0, b, e, table, check, g, lo, fb, rm):
    """:func:`_take_out_py` for every set byte of ``Mb[b:e]`` (row ``i`` starts at byte
    ``b0``), ``rm`` counting them; no branch per byte, so a block with many set bytes
    costs no more than a block of the old fused loop."""
    ninf = -np.inf
    for q in range(b, e):
        if table is None:
            v = S[i, q - b0]
        else:
            v = table[S[i, q - b0]]
        x = Mb[q] != 0
        g -= (v > ti) & x
        lo -= (v < ti) & x  # -inf included: it was counted as lower
        rm += x
        if check:
            fb += (v > ninf) < x  # set, and NaN or -inf
    return g, lo, fb, rm


def _count_row_py(S, i, ti, tc, Mb, Mw, mhead, ptr, cols, table, check):
    """``(gt, lt, bad, first_bad, removed)`` of row ``i`` (see :func:`_count_rows_py`)."""
    m = S.shape[1]
    ninf = -np.inf
    g = 0
    lo = 0
    ok = 0
    rm = 0
    # filtered candidates (never the true one) neither outrank nor trail: taken back out
    fb = 0  # NaN / -inf among them
    if Mb is not None:  # a mask: its row read as aligned 8-byte words, zero words skipped
        b0 = i * m
        end = b0 + m
        b = min(b0 + ((mhead - b0) & 7), end)  # the row's first whole word starts here
        g, lo, fb, rm = _take_out_bytes(S, i, ti, Mb, b0, b0, b, table, check, g, lo, fb, rm)
        k = (b - mhead) >> 3
        while b + 64 <= end:  # 8 words (a cache line): one test when all are zero
            if (Mw[k] | Mw[k + 1] | Mw[k + 2] | Mw[k + 3] | Mw[k + 4] | Mw[k + 5] | Mw[k + 6]
                    | Mw[k + 7]) != 0:
                g, lo, fb, rm = _take_out_bytes(S, i, ti, Mb, b0, b, b + 64, table, check,
                                                g, lo, fb, rm)
            b += 64
            k += 8
        while b + 8 <= end:
            if Mw[k] != 0:
                g, lo, fb, rm = _take_out_bytes(S, i, ti, Mb, b0, b, b + 8, table, check,
                                                g, lo, fb, rm)
            b += 8
            k += 1
        g, lo, fb, rm = _take_out_bytes(S, i, ti, Mb, b0, b, end, table, check, g, lo, fb,
                                        rm)
        if tc >= 0 and Mb[b0 + tc] != 0:  # the true candidate is never filtered: it was
            rm -= 1  # taken out of rm only (its score is the finite or +inf true one)
    # every score of the row, unfiltered: one read
    if check:
        for j in range(m):
            if table is None:
                v = S[i, j]
            else:
                v = table[S[i, j]]
            g += v > ti
            lo += v < ti
            ok += v > ninf
    else:
        for j in range(m):
            v = S[i, j]
            g += v > ti
            lo += v < ti
    for q in range(ptr[i], ptr[i + 1]):  # pairs, sorted per row
        g, lo, fb = _take_out(S, i, cols[q], ti, table, check, g, lo, fb)
    rm += ptr[i + 1] - ptr[i]
    nb = 0
    first = -1
    if check and ok + fb < m:  # NaN / -inf outside the filter: rare, scan the row again
        q = ptr[i]
        for j in range(m):
            while q < ptr[i + 1] and cols[q] < j:
                q += 1
            if q < ptr[i + 1] and cols[q] == j:
                continue
            if Mb is not None:
                if Mb[i * m + j] != 0 and j != tc:
                    continue
            if table is None:
                v = S[i, j]
            else:
                v = table[S[i, j]]
            if not v > ninf:
                nb += 1
                if first < 0:
                    first = j
                if v == ninf:
                    lo -= 1
    return g, lo, nb, first, rm


def _count_rows_py(S, t, true_col, Mb, Mw, mhead, ptr, cols, table, check, gt, lt, bad,
                   first_bad, removed):
    """Fill ``gt``, ``lt``, ``bad``, ``first_bad``, ``removed`` per row.

    ``gt`` / ``lt``: unfiltered scores above / below the true one;
    ``bad[i]``: NaN / -inf entries of row ``i`` that are neither filtered nor
    the true candidate (not counted in ``gt`` / ``lt``); ``first_bad[i]``:
    the column of the first of them (-1 if none); ``removed``: filtered
    candidates. Filters: a mask (``Mb``: None, or the C-order mask flattened
    as uint8, its true columns ignored; ``Mw``: the same bytes from byte
    ``mhead`` on as 8-byte-aligned uint64 words) and the sorted columns per
    row ``cols[ptr[i]:ptr[i + 1]]`` (never the true one). ``table`` is None,
    or the float16 decoding table (then ``S`` holds float16 bit patterns).
    """
    for i in prange(S.shape[0]):
        gt[i], lt[i], bad[i], first_bad[i], removed[i] = _count_row(
            S, i, t[i], true_col[i], Mb, Mw, mhead, ptr, cols, table, check)


def _count_rows_serial_py(S, t, true_col, Mb, Mw, mhead, ptr, cols, table, check, gt, lt, bad,
                          first_bad, removed):
    """:func:`_count_rows_py` on the calling thread only (no numba threading layer)."""
    for i in range(S.shape[0]):
        gt[i], lt[i], bad[i], first_bad[i], removed[i] = _count_row(
            S, i, t[i], true_col[i], Mb, Mw, mhead, ptr, cols, table, check)


_take_out = _take_out_py  # these five names become compiled kernels in _kernels()
_take_out_bytes = _take_out_bytes_py
_count_row = _count_row_py
_count_rows = _count_rows_py
_count_rows_serial = _count_rows_serial_py
_BUILD = threading.Lock()


def _kernels():
    """Compile (or load from the cache) the kernels: ``(parallel, serial)``; once per process."""
    global _take_out, _take_out_bytes, _count_row, _count_rows, _count_rows_serial, prange
    k = _STATE.get("kernels")
    if k is None:
        with _BUILD:
            k = _STATE.get("kernels")
            if k is None:
                import numba

                prange = numba.prange
                _take_out = numba.njit(cache=True, nogil=True, inline="always")(_take_out_py)
                _take_out_bytes = numba.njit(cache=True, nogil=True, inline="always")(
                    _take_out_bytes_py)
                _count_row = numba.njit(cache=True, nogil=True, inline="always")(_count_row_py)
                _count_rows = numba.njit(parallel=True, cache=True, nogil=True)(_count_rows_py)
                _count_rows_serial = numba.njit(cache=True, nogil=True)(_count_rows_serial_py)
                k = _STATE["kernels"] = (_count_rows, _count_rows_serial)
    return k


def _launch(workers, *args):
    """Run the ranks kernel on ``workers`` threads through :func:`mrrstats.compiled.launch`
    (its serial twin for one thread or after a fork under GNU OpenMP)."""
    compiled.launch(*_kernels(), workers, *args)


def _mask_words(mask):
    """``(Mb, Mw, mhead)`` of :func:`_count_rows_py` for a boolean mask (or None)."""
    if mask is None:
        return None, np.zeros(0, dtype=np.uint64), 0
    Mb = np.ascontiguousarray(mask).view(np.uint8).reshape(-1)  # no copy if C-ordered
    mhead = min(-Mb.ctypes.data % 8, Mb.size)  # bytes before the first aligned word
    whole = (Mb.size - mhead) // 8
    return Mb, Mb[mhead:mhead + 8 * whole].view(np.uint64), mhead


def count_rows(S: np.ndarray, t: np.ndarray, true_col: np.ndarray, mask, ptr: np.ndarray,
               cols: np.ndarray, workers: int):
    """Per row: ``(gt, lt, bad, first_bad, removed)`` (see :func:`_count_rows_py`), int64.

    ``S`` has a dtype in :data:`KERNEL_DTYPES`; ``t`` holds one true score per
    row in the dtype the comparisons are made in (numpy's promotion of the
    score and true-score dtypes); ``true_col`` is -1 where the true candidate
    is not a column of ``S``; ``mask`` is None or a boolean filter mask of
    the shape of ``S`` (read as a C-order copy if it is not one: at most the
    size of ``S``); ``ptr``, ``cols``: filtered pairs, CSR.
    """
    n = S.shape[0]
    out = [np.empty(n, dtype=np.int64) for _ in range(5)]
    check = bool(np.issubdtype(S.dtype, np.floating))
    table = None
    if S.dtype == np.float16:
        S = S.view(np.uint16)
        table = _F16_TABLE
        t = t.astype(np.result_type(np.float32, t.dtype))  # exact: float16 -> float32
    Mb, Mw, mhead = _mask_words(mask)
    _launch(workers, S, t, true_col, Mb, Mw, mhead, ptr, cols, table, check, *out)
    return tuple(out)
