"""Link-prediction ranks from a scoring function, one chunk of candidates at a time."""

from __future__ import annotations

import numpy as np

from ..devices import rows_per_chunk
from ..validation import int_iv
from .linkpred import LinkPredictionRanks

__all__ = ["ranks_from_scorer"]


def _xp(a):
    if isinstance(a, (np.ndarray, np.generic)):
        return np
    from array_api_compat import array_namespace, is_numpy_array

    return np if is_numpy_array(a) else array_namespace(a)


def _to_numpy(a) -> np.ndarray:
    if isinstance(a, np.ndarray):
        return a
    if hasattr(a, "detach"):  # torch
        return a.detach().cpu().numpy()
    return np.asarray(a)


def _filter_iv(filter, n: int, m: int):
    """Filtered (row, candidate) pairs, sorted by row then candidate, duplicates removed."""
    if filter is None:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    if hasattr(filter, "tocoo"):  # scipy.sparse
        coo = filter.tocoo()
        if coo.shape != (n, m):
            raise ValueError(f"`filter` has shape {coo.shape}, expected {(n, m)}")
        keep = coo.data != 0
        pairs = np.column_stack([coo.row[keep], coo.col[keep]]).astype(np.int64)
    else:
        pairs = np.asarray(filter)
        if pairs.size == 0:
            pairs = pairs.reshape(0, 2)
        if pairs.ndim != 2 or pairs.shape[1] != 2 or not np.issubdtype(pairs.dtype, np.integer):
            raise ValueError("`filter` must be an (n, 2) integer array of (row, candidate) "
                             "pairs or a scipy.sparse matrix")
        pairs = pairs.astype(np.int64)
    if pairs.size and (pairs.min() < 0 or pairs[:, 0].max() >= n or pairs[:, 1].max() >= m):
        raise ValueError(f"`filter` has a pair outside {n} rows x {m} candidates")
    key = np.unique(pairs[:, 0] * m + pairs[:, 1])
    return key // m, key % m


def ranks_from_scorer(score_fn, queries, true_index, *, n_candidates: int, filter=None,
                      nonfinite: str = "raise", chunk: int | None = None,
                      batch: int = 256) -> LinkPredictionRanks:
    r"""Rank of the true candidate, scoring a chunk of candidates at a time.

    The score matrix is never held whole: ``score_fn`` is called on ``batch``
    queries x ``chunk`` candidates at a time and only counts (candidates
    scoring above and below the true one) are kept, as in
    :func:`mrrstats.ranks_from_scores`, whose ranks these are, exactly, when
    ``score_fn`` is deterministic.

    Parameters
    ----------
    score_fn : callable
        ``score_fn(queries_batch, candidates) -> scores`` with
        ``candidates`` an int64 NumPy array of candidate ids and ``scores``
        of shape ``(len(queries_batch), len(candidates))``, higher is better:
        a NumPy array or any array-API array (torch on any device; the
        comparisons and counts run where the scores are, only counts come
        back). A PyKEEN model: ``lambda hr, c: model.score_t(hr, tails=torch.as_tensor(c))``.
    queries : array_like or sequence
        The queries, sliced as ``queries[i:j]`` for each batch (e.g. an
        ``(n, 2)`` array of head, relation ids, or a torch tensor).
    true_index : array_like of int, shape (n,)
        The true candidate of each query.
    n_candidates : int, keyword-only
        Candidates ``0 .. n_candidates - 1``.
    filter : optional, keyword-only
        Candidates removed from the ranking (filtered setting): an ``(k, 2)``
        integer array of ``(row, candidate)`` pairs or a ``scipy.sparse``
        matrix; the true candidate is never removed from its own row.
    nonfinite : {"raise", "exclude"}, keyword-only
        NaN and -inf scores raise (default) or are removed like filtered ones.
    chunk : int, optional, keyword-only
        Candidates scored per call. Default: sized from the free memory where
        the scores live (a CUDA device's, or the host's, at most 1 GiB there),
        so that ``batch x chunk`` scores and their temporaries take at most
        half of it; one extra call on a single candidate tells where that is.
    batch : int, keyword-only
        Queries scored per call (default 256).

    Returns
    -------
    LinkPredictionRanks

    Notes
    -----
    For each batch the true candidates' scores are taken first from the
    calls that contain them (the same calls, with the same shapes, as the
    counting pass, so a deterministic model gives the same numbers), then
    every chunk is compared with them. The first pass scores at most
    ``min(batch, n_chunks)`` chunks, so the cost is between one and two full
    passes. Batches are independent: to spread them over Dask workers, map
    this function over row ranges and join the parts with
    :meth:`LinkPredictionRanks.concatenate` (see the README).

    Examples
    --------
    >>> import numpy as np
    >>> from mrrstats import ranks_from_scores
    >>> from mrrstats import ranks_from_scorer
    >>> W = np.array([[0.9, 0.5, 0.5, 0.1], [0.2, 0.8, 0.8, 0.8]])
    >>> r = ranks_from_scorer(lambda q, c: W[q][:, c], np.arange(2), [1, 3],
    ...                       n_candidates=4, chunk=3, batch=1)
    >>> full = ranks_from_scores(W, [1, 3])
    >>> r.optimistic.tolist() == full.optimistic.tolist(), r.pessimistic.tolist()
    (True, [3.0, 3.0])
    """
    if not callable(score_fn):
        raise TypeError(f"`score_fn` must be callable, got {type(score_fn).__name__}")
    m = int_iv(n_candidates, "n_candidates", minimum=1)
    if chunk is not None:
        chunk = int_iv(chunk, "chunk", minimum=1)
    batch = int_iv(batch, "batch", minimum=1)
    if nonfinite not in ("raise", "exclude"):
        raise ValueError(f"`nonfinite` must be 'raise' or 'exclude', got {nonfinite!r}")
    idx = np.asarray(true_index)
    if idx.ndim != 1 or not np.issubdtype(idx.dtype, np.integer):
        raise ValueError("`true_index` must be a 1-D integer array")
    n = idx.size
    if len(queries) != n:
        raise ValueError(f"`queries` has {len(queries)} entries and `true_index` {n}")
    if n and (idx.min() < 0 or idx.max() >= m):
        raise ValueError(f"`true_index` must lie in 0 .. {m - 1}")
    idx = idx.astype(np.int64)
    fr, fc = _filter_iv(filter, n, m)
    if chunk is None:
        chunk = _chunk_from_free_memory(score_fn, queries, n, m, batch)
    row_bounds = np.searchsorted(fr, np.arange(0, n + batch, batch))
    gt = np.zeros(n, np.int64)
    lt = np.zeros(n, np.int64)
    removed = np.zeros(n, np.int64)
    for b, s in enumerate(range(0, n, batch)):
        e = min(s + batch, n)
        k = e - s
        q = queries[s:e]
        ti = idx[s:e]
        bf_r = fr[row_bounds[b]:row_bounds[b + 1]] - s
        bf_c = fc[row_bounds[b]:row_bounds[b + 1]]
        keep = bf_c != ti[bf_r]  # the true candidate stays in its own row
        bf_r, bf_c = bf_r[keep], bf_c[keep]
        removed[s:e] += np.bincount(bf_r, minlength=k)
        # pass 1: the true scores, from the very calls the counting pass makes
        t = np.empty(k, np.float64)
        t_raw = None
        for c0 in np.unique(ti // chunk) * chunk:
            cand = np.arange(c0, min(c0 + chunk, m), dtype=np.int64)
            C = score_fn(q, cand)
            rows = np.flatnonzero((ti >= c0) & (ti < c0 + chunk))
            vals = _to_numpy(C[rows, ti[rows] - c0] if _xp(C) is np
                             else C[_as(C, rows), _as(C, ti[rows] - c0)])
            if t_raw is None:
                t_raw = np.empty(k, dtype=vals.dtype)
            t_raw[rows] = vals
        t[:] = t_raw
        bad_t = ~(t > -np.inf)
        if bad_t.any():
            i = int(np.flatnonzero(bad_t)[0])
            raise ValueError(f"query {s + i}: the score of the true candidate is {t[i]} "
                             "(NaN or -inf)")
        # pass 2: count, chunk by chunk
        for c0 in range(0, m, chunk):
            c1 = min(c0 + chunk, m)
            C = score_fn(q, np.arange(c0, c1, dtype=np.int64))
            if tuple(C.shape) != (k, c1 - c0):
                raise ValueError(f"`score_fn` returned shape {tuple(C.shape)}, expected "
                                 f"{(k, c1 - c0)}")
            g, lo, bad = _count_chunk(C, t_raw, bf_r, bf_c, c0, c1, ti)
            if bad is not None and bad.any():
                if nonfinite == "raise":
                    i = int(np.flatnonzero(bad)[0])
                    raise ValueError(f"query {s + i}: a candidate in {c0} .. {c1 - 1} scores "
                                     "NaN or -inf (pass nonfinite='exclude' to remove such "
                                     "candidates)")
                removed[s:e] += bad
            gt[s:e] += g
            lt[s:e] += lo
    N = m - removed
    return LinkPredictionRanks(1.0 + gt, (N - lt).astype(np.float64), N)


def _chunk_from_free_memory(score_fn, queries, n: int, m: int, batch: int) -> int:
    """Candidates per call: ``min(batch, n)`` rows of them fit in half the free memory
    where ``score_fn`` puts its scores (asked with one call on one candidate)."""
    if n == 0:
        return m
    k = min(batch, n)
    probe = score_fn(queries[0:k], np.arange(1, dtype=np.int64))
    return rows_per_chunk(probe, m, k)


def _as(C, a: np.ndarray):
    xp = _xp(C)
    dev = getattr(C, "device", None)
    try:
        return xp.asarray(a, device=dev)
    except TypeError:
        return xp.asarray(a)


def _count_chunk(C, t_raw, bf_r, bf_c, c0, c1, ti):
    """Per row: candidates above and below the true score, and NaN/-inf ones, in a chunk."""
    xp = _xp(C)
    k = t_raw.size
    in_chunk = (bf_c >= c0) & (bf_c < c1)
    r, c = bf_r[in_chunk], bf_c[in_chunk] - c0
    valid = None
    if r.size:
        mask = np.ones((k, c1 - c0), dtype=bool)
        mask[r, c] = False
        valid = mask if xp is np else _as(C, mask)
    tcol = (t_raw if xp is np else _as(C, t_raw))[:, None]
    above = C > tcol
    below = C < tcol
    finite_low = C > -np.inf  # False for NaN and -inf
    if valid is not None:
        above = above & valid
        below = below & valid
    bad = ~finite_low
    # the true candidate itself is never "bad" (checked above)
    if valid is not None:
        bad = bad & valid
    below = below & finite_low

    def count(x):
        return _to_numpy(xp.sum(xp.astype(x, xp.int64), axis=1)) if xp is not np \
            else np.count_nonzero(x, axis=1).astype(np.int64)

    nb = count(bad)
    return count(above), count(below), (nb if nb.any() else None)
