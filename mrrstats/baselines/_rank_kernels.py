"""Compiled (numba) kernels for link-prediction ranks: one pass over each row.

The kernels are compiled on first use and cached on disk (``cache=True``), so
only the first call on a machine pays the compilation (measured in
``benchmarks/results_linkpred.md``); importing :mod:`mrrstats` does not
import numba: :mod:`mrrstats.baselines.linkpred` imports this module on the
first call of a rank function.

Per row ``i`` with true score ``t`` the kernel counts, in one read of the row,
the scores above and below ``t`` and the scores that are not ``> -inf`` (NaN
or -inf). Rows are spread over threads with ``prange``; every row is counted
by exactly one thread, so the integer results do not depend on the number of
threads. Filtered candidates are given as sorted column lists per row (CSR:
``ptr``, ``cols``) and corrected for after the pass; rows with NaN / -inf
(rare) are scanned a second time to find which entries are not filtered.

float16 scores are read as their bit patterns (``uint16``) through a 65,536
entry table of the exactly equal float32 values (numba has no CPU float16).
"""

from __future__ import annotations

import threading

import numba
import numpy as np
from numba import njit, prange

__all__ = ["count_rows", "mask_to_csr", "KERNEL_DTYPES"]

#: Score dtypes the kernels read directly (native byte order); others use numpy.
KERNEL_DTYPES = frozenset(np.dtype(d) for d in (
    np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64,
    np.uint8, np.uint16, np.uint32, np.uint64))

_F16_TABLE = np.arange(1 << 16, dtype=np.uint16).view(np.float16).astype(np.float32)
_F16_TABLE.setflags(write=False)
_LOCK = threading.Lock()  # the workqueue threading layer must not be entered twice at once


@njit(parallel=True, cache=True, nogil=True)
def _count_rows(S, t, true_col, ptr, cols, table, check, gt, lt, bad, first_bad):
    """Fill ``gt``, ``lt`` (filtered candidates corrected), ``bad``, ``first_bad`` per row.

    ``bad[i]``: NaN / -inf entries of row ``i`` that are neither filtered nor
    the true candidate (not counted in ``gt`` / ``lt``); ``first_bad[i]``:
    the column of the first of them (-1 if none). ``table`` is None, or the
    float16 decoding table (then ``S`` holds float16 bit patterns).
    """
    n, m = S.shape
    ninf = -np.inf
    for i in prange(n):
        ti = t[i]
        g = 0
        lo = 0
        ok = 0
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
        # filtered candidates (sorted, never the true one) neither outrank nor trail
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
        nb = 0
        first = -1
        if check and ok + fb < m:  # NaN / -inf outside the filter: rare, scan the row again
            q = ptr[i]
            for j in range(m):
                while q < ptr[i + 1] and cols[q] < j:
                    q += 1
                if q < ptr[i + 1] and cols[q] == j:
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
        gt[i] = g
        lt[i] = lo
        bad[i] = nb
        first_bad[i] = first


@njit(parallel=True, cache=True, nogil=True)
def _mask_row_counts(M, true_col, counts):
    n, m = M.shape
    for i in prange(n):
        c = 0
        for j in range(m):
            c += M[i, j]
        if true_col[i] >= 0 and M[i, true_col[i]]:
            c -= 1
        counts[i] = c


@njit(parallel=True, cache=True, nogil=True)
def _mask_row_fill(M, true_col, ptr, cols):
    n, m = M.shape
    for i in prange(n):
        q = ptr[i]
        for j in range(m):
            if M[i, j] and j != true_col[i]:
                cols[q] = j
                q += 1


def _threads(workers: int) -> int:
    return max(1, min(int(workers), numba.config.NUMBA_NUM_THREADS))


def _launch(workers, kernel, *args):
    threads = _threads(workers)
    layer_safe = _layer_is_threadsafe()
    if not layer_safe:
        _LOCK.acquire()
    try:
        previous = numba.get_num_threads()
        numba.set_num_threads(threads)
        try:
            kernel(*args)
        finally:
            numba.set_num_threads(previous)
    finally:
        if not layer_safe:
            _LOCK.release()


def _layer_is_threadsafe() -> bool:
    try:
        return numba.threading_layer() in ("omp", "tbb")
    except ValueError:  # no parallel kernel has run yet: be safe
        return False


def mask_to_csr(mask: np.ndarray, true_col: np.ndarray, workers: int):
    """Sorted filtered columns per row of a boolean mask, the true column left out."""
    n = mask.shape[0]
    counts = np.empty(n, dtype=np.int64)
    M = mask.view(np.uint8)
    _launch(workers, _mask_row_counts, M, true_col, counts)
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=ptr[1:])
    cols = np.empty(int(ptr[-1]), dtype=np.int64)
    _launch(workers, _mask_row_fill, M, true_col, ptr, cols)
    return ptr, cols


def count_rows(S: np.ndarray, t: np.ndarray, true_col: np.ndarray, ptr: np.ndarray,
               cols: np.ndarray, workers: int):
    """Per row: ``(gt, lt, bad, first_bad)`` (see :func:`_count_rows`), int64 arrays.

    ``S`` has a dtype in :data:`KERNEL_DTYPES`; ``t`` holds one true score per
    row in the dtype the comparisons are made in (numpy's promotion of the
    score and true-score dtypes); ``true_col`` is -1 where the true candidate
    is not a column of ``S``.
    """
    n = S.shape[0]
    gt = np.empty(n, dtype=np.int64)
    lt = np.empty(n, dtype=np.int64)
    bad = np.empty(n, dtype=np.int64)
    first_bad = np.empty(n, dtype=np.int64)
    check = bool(np.issubdtype(S.dtype, np.floating))
    table = None
    if S.dtype == np.float16:
        S = S.view(np.uint16)
        table = _F16_TABLE
        t = t.astype(np.result_type(np.float32, t.dtype))  # exact: float16 -> float32
    _launch(workers, _count_rows, S, t, true_col, ptr, cols, table, check, gt, lt, bad,
            first_bad)
    return gt, lt, bad, first_bad
