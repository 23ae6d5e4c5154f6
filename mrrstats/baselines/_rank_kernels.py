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
threads. Filtered candidates come as a boolean mask, read in the same pass,
or as sorted column lists per row (CSR: ``ptr``, ``cols``), corrected for
after the pass; rows with NaN / -inf (rare) are read a second time to tell
filtered from unfiltered ones and find the first.

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


def _count_row_py(S, i, ti, tc, M, ptr, cols, table, check):
    """``(gt, lt, bad, first_bad, removed)`` of row ``i`` (see :func:`_count_rows_py`)."""
    m = S.shape[1]
    ninf = -np.inf
    g = 0
    lo = 0
    ok = 0
    rm = 0
    if M is None:
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
    else:  # filtered by a mask, read in the same pass (the true column is never filtered)
        for j in range(m):
            if table is None:
                v = S[i, j]
            else:
                v = table[S[i, j]]
            keep = M[i, j] == 0
            g += (v > ti) & keep
            lo += (v < ti) & keep
            rm += not keep
            if check:
                ok += (v > ninf) | (not keep)
        if tc >= 0 and M[i, tc] != 0:
            rm -= 1
    # filtered pairs (sorted, never the true one) neither outrank nor trail
    fb = 0
    for q in range(ptr[i], ptr[i + 1]):
        if table is None:
            v = S[i, cols[q]]
        else:
            v = table[S[i, cols[q]]]
        if v > ti:
            g -= 1
        elif v < ti:
            lo -= 1  # -inf included: it was counted as lower
        if check and not v > ninf:
            fb += 1
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
            if M is not None:
                if M[i, j] != 0:
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


def _count_rows_py(S, t, true_col, M, ptr, cols, table, check, gt, lt, bad, first_bad, removed):
    """Fill ``gt``, ``lt``, ``bad``, ``first_bad``, ``removed`` per row.

    ``gt`` / ``lt``: unfiltered scores above / below the true one;
    ``bad[i]``: NaN / -inf entries of row ``i`` that are neither filtered nor
    the true candidate (not counted in ``gt`` / ``lt``); ``first_bad[i]``:
    the column of the first of them (-1 if none); ``removed``: filtered
    candidates. Filters: ``M`` (None or a uint8 mask, its true column
    ignored) and the sorted columns per row ``cols[ptr[i]:ptr[i + 1]]``
    (never the true one). ``table`` is None, or the float16 decoding table
    (then ``S`` holds float16 bit patterns).
    """
    for i in prange(S.shape[0]):
        gt[i], lt[i], bad[i], first_bad[i], removed[i] = _count_row(
            S, i, t[i], true_col[i], M, ptr, cols, table, check)


def _count_rows_serial_py(S, t, true_col, M, ptr, cols, table, check, gt, lt, bad, first_bad,
                       removed):
    """:func:`_count_rows_py` on the calling thread only (no numba threading layer)."""
    for i in range(S.shape[0]):
        gt[i], lt[i], bad[i], first_bad[i], removed[i] = _count_row(
            S, i, t[i], true_col[i], M, ptr, cols, table, check)


_count_row = _count_row_py  # these three names become compiled kernels in _kernels()
_count_rows = _count_rows_py
_count_rows_serial = _count_rows_serial_py
_BUILD = threading.Lock()


def _kernels():
    """Compile (or load from the cache) the kernels: ``(parallel, serial)``; once per process."""
    global _count_row, _count_rows, _count_rows_serial, prange
    k = _STATE.get("kernels")
    if k is None:
        with _BUILD:
            k = _STATE.get("kernels")
            if k is None:
                import numba

                prange = numba.prange
                _count_row = numba.njit(cache=True, nogil=True, inline="always")(_count_row_py)
                _count_rows = numba.njit(parallel=True, cache=True, nogil=True)(_count_rows_py)
                _count_rows_serial = numba.njit(cache=True, nogil=True)(_count_rows_serial_py)
                k = _STATE["kernels"] = (_count_rows, _count_rows_serial)
    return k


def _launch(workers, *args):
    """Run the ranks kernel on ``workers`` threads through :func:`mrrstats.compiled.launch`
    (its serial twin for one thread or after a fork under GNU OpenMP)."""
    compiled.launch(*_kernels(), workers, *args)


def count_rows(S: np.ndarray, t: np.ndarray, true_col: np.ndarray, mask, ptr: np.ndarray,
               cols: np.ndarray, workers: int):
    """Per row: ``(gt, lt, bad, first_bad, removed)`` (see :func:`_count_rows_py`), int64.

    ``S`` has a dtype in :data:`KERNEL_DTYPES`; ``t`` holds one true score per
    row in the dtype the comparisons are made in (numpy's promotion of the
    score and true-score dtypes); ``true_col`` is -1 where the true candidate
    is not a column of ``S``; ``mask`` is None or a boolean filter mask of
    the shape of ``S``; ``ptr``, ``cols``: filtered pairs, CSR.
    """
    n = S.shape[0]
    out = [np.empty(n, dtype=np.int64) for _ in range(5)]
    check = bool(np.issubdtype(S.dtype, np.floating))
    table = None
    if S.dtype == np.float16:
        S = S.view(np.uint16)
        table = _F16_TABLE
        t = t.astype(np.result_type(np.float32, t.dtype))  # exact: float16 -> float32
    M = None if mask is None else mask.view(np.uint8)
    _launch(workers, S, t, true_col, M, ptr, cols, table, check, *out)
    return tuple(out)
