"""Link-prediction rank counts with the scores' own array namespace (torch, CuPy, ...).

When the scores are an array-API array that NumPy cannot read in place (a
CUDA torch tensor, a CuPy array, an ``array_api_strict`` array), the
comparisons and counts run where the scores are, in chunks of rows sized from
the free memory of the device (:func:`mrrstats.devices.rows_per_chunk`); the
scores are never copied to the host, only per-row counts (and the values at the
few filtered pairs) come back.

The counts are integers, so the ranks equal the NumPy path's exactly.
"""

from __future__ import annotations

import numpy as np

from ..devices import array_namespace_or_none, free_bytes, rows_per_chunk, to_numpy

__all__ = ["array_namespace_or_none", "to_numpy", "numpy_dtype", "free_bytes", "rows_per_chunk",
           "true_scores_xp", "rank_counts_xp", "first_bad_column"]


def numpy_dtype(xp_dtype) -> np.dtype:
    """NumPy's dtype of the same name (``torch.float32`` -> ``float32``)."""
    name = str(xp_dtype).rsplit(".", 1)[-1].rstrip("'>")
    return np.dtype(name)


def _on(xp, S, a):
    """Host array ``a`` on the device of ``S``."""
    from array_api_compat import device

    return xp.asarray(a, device=device(S))


def rank_counts_xp(xp, S, true_col, t_host, pairs, dev_mask, rows):
    """Per-row counts on the device of ``S``, returned on the host.

    Parameters
    ----------
    S : array (n, m) of the namespace ``xp``
    true_col : numpy int64 (n,) or None
        Column of the true candidate (None: not a column of ``S``).
    t_host : numpy (n,)
        True scores (:func:`true_scores_xp`, or the given positive scores).
    pairs : (rows, cols) numpy int64, sorted, or None
        Filtered pairs (never the true column).
    dev_mask : array (n, m) of bool in ``xp`` or None
        Filtered candidates as a device mask (the true column ignored).
    rows : int
        Rows per chunk.

    Returns
    -------
    gt, lt, bad, neg, removed : numpy int64 arrays
        Per row: scores
        above / below the true one, NaN or -inf ones and -inf ones (all
        outside the filter; -inf ones also counted in ``lt``) and the
        number of filtered candidates.
    """
    n, m = (int(d) for d in S.shape)
    s_dtype = numpy_dtype(S.dtype)
    floating = np.issubdtype(s_dtype, np.floating)
    ct = np.result_type(s_dtype, t_host.dtype)
    t_host = t_host.astype(ct, copy=False)
    cast = ct != s_dtype
    x_ct = getattr(xp, ct.name)
    t_dev = _on(xp, S, t_host)
    gts, lts, bads, negs, rems = [], [], [], [], []
    ninf = -float("inf")
    for s in range(0, n, rows):
        e = min(n, s + rows)
        k = e - s
        C = S[s:e, :]
        if cast:
            C = xp.astype(C, x_ct)
        tcol = xp.reshape(t_dev[s:e], (k, 1))
        above = C > tcol
        below = C < tcol
        keep = None
        if dev_mask is not None:
            Mc = dev_mask[s:e, :]
            keep = ~Mc
            above = above & keep
            below = below & keep
            removed = xp.count_nonzero(Mc, axis=1)
            if true_col is not None:  # the true candidate is never filtered
                at_true = xp.take(xp.reshape(Mc, (-1,)),
                                  _on(xp, S, np.arange(k) * m + true_col[s:e]))
                removed = removed - xp.astype(at_true, removed.dtype)
            rems.append(removed)
        gts.append(xp.count_nonzero(above, axis=1))
        lts.append(xp.count_nonzero(below, axis=1))
        if floating and not bool(xp.min(C) > ninf):  # NaN / -inf in this chunk (rare)
            bad = ~(C > ninf)
            neg = C == ninf
            if keep is not None:
                bad = bad & keep
                neg = neg & keep
            bads.append(xp.count_nonzero(bad, axis=1))
            negs.append(xp.count_nonzero(neg, axis=1))
        elif floating:
            bads.append(_on(xp, S, np.zeros(k, dtype=np.int64)))
            negs.append(bads[-1])
    gt = _gather(xp, gts, n)
    lt = _gather(xp, lts, n)
    bad = _gather(xp, bads, n) if floating else np.zeros(n, np.int64)
    neg = _gather(xp, negs, n) if floating else np.zeros(n, np.int64)
    removed = _gather(xp, rems, n) if dev_mask is not None else np.zeros(n, np.int64)
    if pairs is not None and pairs[0].size:
        pr, pc = pairs
        bounds = np.searchsorted(pr, np.arange(0, n + rows, rows))
        vals = []
        for b, s in enumerate(range(0, n, rows)):
            e = min(n, s + rows)
            r, c = pr[bounds[b]:bounds[b + 1]], pc[bounds[b]:bounds[b + 1]]
            if r.size:
                flat = xp.reshape(S[s:e, :], (-1,))
                vals.append(to_numpy(xp.take(flat, _on(xp, S, (r - s) * m + c))))
        v = np.concatenate(vals)
        tr = t_host[pr]
        with np.errstate(invalid="ignore"):
            gt -= np.bincount(pr[v > tr], minlength=n)
            lt -= np.bincount(pr[v < tr], minlength=n)
            if floating:
                bad -= np.bincount(pr[~(v > -np.inf)], minlength=n)
                neg -= np.bincount(pr[v == -np.inf], minlength=n)
        removed += np.bincount(pr, minlength=n)
    return gt, lt, bad, neg, removed


def true_scores_xp(xp, S, true_col: np.ndarray, rows: int) -> np.ndarray:
    """``S[i, true_col[i]]`` for every row, gathered chunk by chunk, on the host."""
    n, m = (int(d) for d in S.shape)
    parts = []
    for s in range(0, n, rows):
        e = min(n, s + rows)
        flat = xp.reshape(S[s:e, :], (-1,))
        parts.append(to_numpy(xp.take(flat, _on(xp, S, np.arange(e - s) * m + true_col[s:e]))))
    return np.concatenate(parts) if parts else np.zeros(0, dtype=numpy_dtype(S.dtype))


def _gather(xp, parts, n):
    if not parts:
        return np.zeros(n, np.int64)
    return to_numpy(xp.concat(parts) if len(parts) > 1 else parts[0]).astype(np.int64)


def first_bad_column(xp, S, row: int, filtered_cols: np.ndarray) -> tuple[int, str]:
    """Column and kind ("NaN" / "-inf") of the first NaN / -inf of ``row`` outside the filter."""
    r = to_numpy(S[row, :])
    bad = np.isnan(r) | np.isneginf(r)
    bad[filtered_cols] = False
    c = int(np.flatnonzero(bad)[0])
    return c, ("NaN" if np.isnan(r[c]) else "-inf")
