"""Link-prediction ranks from a scoring function, one batch of candidates at a time."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..defaults import WORKERS
from ..deprecation import renamed_parameters
from ..devices import rows_per_chunk
from ..errors import ParameterError, ParameterTypeError
from ..validation import asarray_iv, int_iv, workers_iv
from ._rank_kernels import KERNEL_DTYPES, count_rows
from .linkpred import LinkPredictionRanks
from .rank_inputs import exclude_pairs, nonfinite_iv

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from numpy.typing import ArrayLike

__all__ = ["ranks_from_scorer"]

_SCORES_PER_THREAD = 1 << 18  # a call's scores per counting thread (smaller: fewer threads)
_KERNEL_MIN_SCORES = 1 << 12   # smaller calls are counted in NumPy (the launch costs more)


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


def _ranks_from_scorer_iv(score_fn, queries, true_index, n_candidates, exclude, nonfinite,
                          candidate_batch, batch, workers):
    if not callable(score_fn):
        raise ParameterTypeError(f"`score_fn` must be callable, got {type(score_fn).__name__}")
    m = int_iv(n_candidates, "n_candidates", minimum=1)
    candidate_batch = int_iv(candidate_batch, "candidate_batch", minimum=1, allow_none=True)
    batch = int_iv(batch, "batch", minimum=1)
    nonfinite = nonfinite_iv(nonfinite)
    workers = workers_iv(workers)
    idx = asarray_iv(true_index, "true_index")
    if idx.ndim != 1 or not np.issubdtype(idx.dtype, np.integer):
        raise ParameterError("`true_index` must be a 1-D integer array")
    n = idx.size
    if not (hasattr(queries, "__len__") and hasattr(queries, "__getitem__")) or \
            isinstance(queries, str | bytes):
        raise ParameterTypeError(f"`queries` must be a sequence or array of queries, got "
                                 f"{type(queries).__name__}", name="queries")
    if len(queries) != n:
        raise ParameterError(f"`queries` has {len(queries)} entries and `true_index` {n}")
    if n and (idx.min() < 0 or idx.max() >= m):
        raise ParameterError(f"`true_index` must lie in 0 .. {m - 1}")
    idx = idx.astype(np.int64)
    pairs = exclude_pairs(exclude, (n, m), idx, matrix="(queries x candidates) matrix")
    fr, fc = pairs if pairs is not None else (np.zeros(0, np.int64), np.zeros(0, np.int64))
    return m, candidate_batch, batch, nonfinite, workers, idx, fr, fc


@renamed_parameters(filter="exclude", chunk="candidate_batch")
def ranks_from_scorer(score_fn: Callable[..., Any], queries: ArrayLike, true_index: ArrayLike, *,
                      n_candidates: int, exclude: ArrayLike | None = None,
                      nonfinite: str = "raise", candidate_batch: int | None = None,
                      batch: int = 256, workers: int = WORKERS) -> LinkPredictionRanks:
    r"""Rank of the true candidate, scoring a batch of candidates at a time.

    The score matrix is never held whole: ``score_fn`` is called on ``batch``
    queries x ``candidate_batch`` candidates at a time and only counts
    (candidates scoring above and below the true one) are kept, as in
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
    exclude : optional, keyword-only
        Candidates removed from the ranking (filtered setting), as in
        :func:`~mrrstats.ranks_from_scores`: an ``(k, 2)`` integer array of
        ``(row, candidate)`` pairs, a ``scipy.sparse`` matrix or a boolean mask of
        shape ``(n, n_candidates)``; the true candidate is never removed from its
        own row (``filter=`` before 0.2).
    nonfinite : {"raise", "exclude"}, keyword-only
        NaN and -inf scores raise (default) or are removed like filtered ones.
    candidate_batch : int, optional, keyword-only
        Candidates scored per call (``chunk=`` before 0.2). Default: sized from the
        free memory where the scores live (a CUDA device's, or the host's, at most
        1 GiB there), so that ``batch x candidate_batch`` scores and their
        temporaries take at most half of it; one extra call on a single candidate
        tells where that is. Never changes the ranks.
    batch : int, keyword-only
        Queries scored per call (default 256). Never changes the ranks.
    workers : int, keyword-only
        Threads of the compiled kernel that counts NumPy scores (default -1: all
        cores; the kernel of :func:`~mrrstats.ranks_from_scores`). Scores on another
        device are counted there; ranks never depend on it.

    Returns
    -------
    LinkPredictionRanks

    Notes
    -----
    For each batch the true candidates' scores are taken first from the
    calls that contain them (the same calls, with the same shapes, as the
    counting pass, so a deterministic model gives the same numbers), then
    every batch of candidates is compared with them. The first pass scores at
    most ``min(batch, n_candidate_batches)`` of them, so the cost is between
    one and two full passes. Batches of queries are independent: to spread them
    over Dask workers, map this function over row ranges and join the parts with
    :meth:`LinkPredictionRanks.concatenate` (see the README).

    Examples
    --------
    >>> import numpy as np
    >>> from mrrstats import ranks_from_scores
    >>> from mrrstats import ranks_from_scorer
    >>> W = np.array([[0.9, 0.5, 0.5, 0.1], [0.2, 0.8, 0.8, 0.8]])
    >>> r = ranks_from_scorer(lambda q, c: W[q][:, c], np.arange(2), [1, 3],
    ...                       n_candidates=4, candidate_batch=3, batch=1)
    >>> full = ranks_from_scores(W, [1, 3])
    >>> r.optimistic.tolist() == full.optimistic.tolist(), r.pessimistic.tolist()
    (True, [3.0, 3.0])
    """
    m, cb, batch, nonfinite, workers, idx, fr, fc = _ranks_from_scorer_iv(
        score_fn, queries, true_index, n_candidates, exclude, nonfinite, candidate_batch,
        batch, workers)
    n = idx.size
    if cb is None:
        cb = _candidate_batch_from_free_memory(score_fn, queries, n, m, batch)
    row_bounds = np.searchsorted(fr, np.arange(0, n + batch, batch))
    gt = np.zeros(n, np.int64)
    lt = np.zeros(n, np.int64)
    removed = np.zeros(n, np.int64)
    for b, s in enumerate(range(0, n, batch)):
        e = min(s + batch, n)
        q = queries[s:e]  # type: ignore[index]
        ti = idx[s:e]
        bf_r = fr[row_bounds[b]:row_bounds[b + 1]] - s
        bf_c = fc[row_bounds[b]:row_bounds[b + 1]]
        removed[s:e] += np.bincount(bf_r, minlength=e - s)
        t_raw = _true_scores(score_fn, q, ti, cb, m, s)
        for c0 in range(0, m, cb):  # count, one batch of candidates at a time
            c1 = min(c0 + cb, m)
            C = _scores(score_fn, q, np.arange(c0, c1, dtype=np.int64), m)
            g, lo, bad = _count_candidates(C, t_raw, bf_r, bf_c, c0, c1, ti, workers)
            if bad is not None and bad.any():
                if nonfinite == "raise":
                    i = int(np.flatnonzero(bad)[0])
                    raise ParameterError(f"query {s + i}: a candidate in {c0} .. {c1 - 1} scores "
                                     "NaN or -inf (pass nonfinite='exclude' to remove such "
                                     "candidates)")
                removed[s:e] += bad
            gt[s:e] += g
            lt[s:e] += lo
    N = m - removed
    return LinkPredictionRanks(1.0 + gt, (N - lt).astype(np.float64), N)


def _scores(score_fn, q, cand, m: int):
    """``score_fn(q, cand)``, refused (naming it) when it raises or returns the wrong shape."""
    try:
        C = score_fn(q, cand)
    except Exception as exc:  # noqa: BLE001 - any failure of the caller's function
        raise ParameterError(
            f"`score_fn` raised {type(exc).__name__}: {str(exc)[:200]} when called on "
            f"{len(q)} queries and candidates {int(cand[0])} .. {int(cand[-1])} (of "
            f"`n_candidates` = {m:,})", name="score_fn") from exc
    shape = getattr(C, "shape", None)
    if shape is None or tuple(shape) != (len(q), cand.size):
        raise ParameterError(f"`score_fn` returned shape {shape}, expected "
                             f"{(len(q), cand.size)} (queries x candidates)", name="score_fn")
    return C


def _true_scores(score_fn, q, ti, cb: int, m: int, start: int) -> np.ndarray:
    """The true candidates' scores of one batch of queries, from the very calls (same
    candidates, same shapes) the counting pass makes; raises on NaN or -inf."""
    t_raw = None
    for c0 in np.unique(ti // cb) * cb:
        cand = np.arange(c0, min(c0 + cb, m), dtype=np.int64)
        C = _scores(score_fn, q, cand, m)
        rows = np.flatnonzero((ti >= c0) & (ti < c0 + cb))
        vals = _to_numpy(C[rows, ti[rows] - c0] if _xp(C) is np
                         else C[_as(C, rows), _as(C, ti[rows] - c0)])
        if t_raw is None:
            t_raw = np.empty(ti.size, dtype=vals.dtype)
        t_raw[rows] = vals
    bad_t = ~(t_raw.astype(np.float64) > -np.inf)  # type: ignore[union-attr]
    if bad_t.any():
        i = int(np.flatnonzero(bad_t)[0])
        raise ParameterError(f"query {start + i}: the score of the true candidate is "
                         f"{t_raw[i]} (NaN or -inf)")  # type: ignore[index]
    return t_raw  # type: ignore[return-value]


def _candidate_batch_from_free_memory(score_fn, queries, n: int, m: int,
                                      batch: int) -> int:
    """Candidates per call: ``min(batch, n)`` rows of them fit in half the free memory
    where ``score_fn`` puts its scores (asked with one call on one candidate)."""
    if n == 0:
        return m
    k = min(batch, n)
    probe = _scores(score_fn, queries[0:k], np.arange(1, dtype=np.int64), m)
    return rows_per_chunk(probe, m, k)


def _as(C, a: np.ndarray):
    xp = _xp(C)
    dev = getattr(C, "device", None)
    try:
        return xp.asarray(a, device=dev)
    except TypeError:
        return xp.asarray(a)


def _count_candidates(C, t_raw, bf_r, bf_c, c0, c1, ti, workers):
    """Per row: candidates of ``c0 .. c1 - 1`` scoring above and below the true score,
    and the NaN / -inf ones, none of them excluded (``bad`` None when there are none).

    NumPy scores of a dtype the compiled kernel reads are counted by it (one read of
    each row, rows over up to ``workers`` threads, one per ``_SCORES_PER_THREAD`` scores:
    starting threads costs more than counting a small call), unless the call is too
    small to pay for the launch; any other array with its own namespace where it lives.
    """
    in_batch = (bf_c >= c0) & (bf_c < c1)
    r, c = bf_r[in_batch], bf_c[in_batch] - c0
    if isinstance(C, np.ndarray) and C.size >= _KERNEL_MIN_SCORES and C.dtype in KERNEL_DTYPES \
            and C.dtype.isnative:
        k = t_raw.size
        true_col = np.where((ti >= c0) & (ti < c1), ti - c0, -1).astype(np.int64)
        t = np.ascontiguousarray(t_raw, dtype=np.result_type(C.dtype, t_raw.dtype))
        ptr = np.searchsorted(r, np.arange(k + 1)).astype(np.int64)
        threads = min(workers, max(1, C.size // _SCORES_PER_THREAD))
        gt, lt, bad, _, _ = count_rows(np.ascontiguousarray(C), t, true_col, None, ptr,
                                       np.ascontiguousarray(c, dtype=np.int64), threads)
        return gt, lt, (bad if bad.any() else None)
    return _count_array_api(C, t_raw, r, c)


def _count_array_api(C, t_raw, r, c):
    """:func:`_count_candidates` with the namespace of ``C`` (torch, CuPy, NumPy's
    dtypes the kernel does not read); ``r, c``: the excluded entries of this batch."""
    xp = _xp(C)
    valid = None
    if r.size:
        mask = np.ones(tuple(int(d) for d in C.shape), dtype=bool)
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
    # the true candidate itself is never "bad" (checked by _true_scores)
    if valid is not None:
        bad = bad & valid
    below = below & finite_low

    def count(x):
        return _to_numpy(xp.sum(xp.astype(x, xp.int64), axis=1)) if xp is not np \
            else np.count_nonzero(x, axis=1).astype(np.int64)

    nb = count(bad)
    return count(above), count(below), (nb if nb.any() else None)
