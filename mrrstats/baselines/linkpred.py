r"""Link-prediction ranks: from score matrices, sampled negatives or given ranks.

In link prediction (knowledge-graph completion, OGB, TGB) every query has one
true candidate; the *rank* of the true candidate among the candidates is
reported with one of four tie conventions (:data:`TIES`):

=============== =============================================================
``ties``        rank of the true candidate
=============== =============================================================
"optimistic"    :math:`o = 1 + \#\{c : s_c > s_{true}\}`
"pessimistic"   :math:`p = \#\{c : s_c \ge s_{true}\}` (the true one included)
"realistic"     :math:`(o + p)/2`: PyKEEN's default, TGB, and OGB >= 1.3.4;
                reciprocal rank :math:`2/(o + p)`
"expected"      ties broken uniformly at random: the rank is uniform on
                :math:`o, \dots, p`, its expectation :math:`(o + p)/2`, and the
                expected reciprocal rank is exactly
                :math:`(H(p) - H(o - 1))/(p - o + 1)`, which is *not*
                :math:`2/(o + p)` when :math:`o < p`
=============== =============================================================

Filtering (the filtered protocol of Bordes et al., 2013) removes the other
known true answers from the candidates: they neither outrank the true
candidate nor count in ``n_candidates`` (``N_i``), which counts the true
candidate itself. All counting is done on the scores in their own dtype
(comparisons are exact) and ranks are returned in float64.

NumPy score matrices are counted by a compiled kernel (numba, cached on
disk): one read of each row counts the scores above and below the true one
and detects NaN / -inf, rows are spread over ``workers`` threads, and no
temporary of the matrix's size is made (a FB15k-237-sized float32 matrix,
20,466 x 14,541, 1.2 GB, needs a few MB, mostly the per-query results).
Scores that live on another device (a CUDA torch tensor, a CuPy array, any
array-API array NumPy cannot read in place) are counted there with their own
array namespace, in chunks of rows sized from the device's free memory,
without copying them to the host; only per-query counts come back. All
counts are integers, so every path gives the same ranks exactly. See
``benchmarks/bench_linkpred.py``.

References
----------
.. [1] A. Bordes, N. Usunier, A. Garcia-Duran, J. Weston and O. Yakhnenko,
   "Translating Embeddings for Modeling Multi-relational Data", NeurIPS 2013.
.. [2] M. Berrendorf, E. Faerman, L. Vermue and V. Tresp, "On the Ambiguity of
   Rank-Based Evaluation of Entity Alignment or Link Prediction Methods",
   arXiv:2002.06914, 2020 (optimistic, pessimistic and realistic ranks).
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..defaults import N_RESAMPLES
from ..errors import ParameterError, ParameterTypeError
from ..numerics import expected_inverse_uniform
from ..validation import asarray_iv, bool_iv, int_iv, workers_iv
from ._rank_kernels import KERNEL_DTYPES, count_rows
from ._rank_xp import (
    array_namespace_or_none,
    first_bad_column,
    numpy_dtype,
    rank_counts_xp,
    rows_per_chunk,
    to_numpy,
    true_scores_xp,
)
from .first_rank import adjusted_mrr, expected_mrr
from .random_baseline import random_baseline_test
from .rank_inputs import exclude_iv, exclude_pairs, nonfinite_iv, true_index_iv
from .rank_metrics import rank_metrics, resolve_rank_metric

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Literal

    from numpy.typing import ArrayLike

    from .._typing import Alternative, Seed
    from .random_baseline import RandomBaselineResult

__all__ = ["LinkPredictionRanks", "ranks_from_scores", "ranks_from_negatives", "TIES"]

#: Tie conventions for link-prediction ranks.
TIES = ("optimistic", "pessimistic", "realistic", "expected")
_BATCH_ELEMENTS = 1 << 18  # default batch: rows of 262,144 scores (1 MB of float32: in L2)


def _ties_iv(ties) -> str:
    if not isinstance(ties, str | None) or ties not in TIES:
        raise ParameterError(f"`ties` must be one of {', '.join(map(repr, TIES))}, got {ties!r}")
    return ties


def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.array(a, copy=True)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class LinkPredictionRanks:
    r"""Per-query ranks of the true candidate, with every tie convention.

    Attributes
    ----------
    optimistic : numpy.ndarray of float64
        :math:`o_i`: 1 + number of (non-excluded) candidates scoring strictly
        higher than the true one.
    pessimistic : numpy.ndarray of float64
        :math:`p_i`: number of candidates scoring at least as high, the true
        one included (:math:`p_i \ge o_i`; equal when nothing ties).
    n_candidates : numpy.ndarray of int64 or None
        :math:`N_i`: candidates ranked for query ``i``, the true one included,
        filtered and excluded ones not. None when unknown (ranks brought in
        without counts); random baselines then need it.

    Notes
    -----
    Build it with :func:`ranks_from_scores`, :func:`ranks_from_negatives` or
    :meth:`from_ranks`; combine batches with :meth:`concatenate`.
    """

    optimistic: np.ndarray
    pessimistic: np.ndarray
    n_candidates: np.ndarray | None = None

    def __post_init__(self):
        o = np.asarray(self.optimistic, dtype=np.float64).ravel()
        p = np.asarray(self.pessimistic, dtype=np.float64).ravel()
        if o.shape != p.shape:
            raise ParameterError(f"`optimistic` ({o.size}) and `pessimistic` ({p.size}) ranks "
                             "must have the same length")
        if not (np.all(np.isfinite(o)) and np.all(np.isfinite(p))):
            raise ParameterError("ranks must be finite")
        if np.any(o < 1) or np.any(p < o):
            raise ParameterError("ranks must satisfy 1 <= optimistic <= pessimistic")
        object.__setattr__(self, "optimistic", _readonly(o))
        object.__setattr__(self, "pessimistic", _readonly(p))
        if self.n_candidates is not None:
            n = np.asarray(self.n_candidates).ravel()
            if n.shape != o.shape:
                raise ParameterError(f"`n_candidates` must have one entry per query ({o.size}), "
                                 f"got {n.size}")
            if n.size and (np.any(n != np.round(n)) or np.any(n < p)):
                raise ParameterError(
                    "`n_candidates` must be whole numbers >= the pessimistic rank")
            object.__setattr__(self, "n_candidates", _readonly(n.astype(np.int64)))

    # -- construction -------------------------------------------------------
    @classmethod
    def from_ranks(cls, ranks: ArrayLike, *, pessimistic: ArrayLike | None = None,
                   n_candidates: ArrayLike | None = None) -> LinkPredictionRanks:
        """Ranks computed elsewhere (PyKEEN, OGB, TGB, your own code).

        Parameters
        ----------
        ranks : array_like
            One rank per query (>= 1). Without ``pessimistic`` the ranks are
            taken as already resolved: every tie convention returns them
            unchanged (so realistic ranks ending in ``.5`` stay as they are).
        pessimistic : array_like, optional, keyword-only
            Pessimistic ranks; then ``ranks`` are the optimistic ones and both
            must be whole numbers.
        n_candidates : array_like of int, optional, keyword-only
            Candidates per query, the true one included (needed for the
            random baselines).

        Returns
        -------
        LinkPredictionRanks

        Examples
        --------
        >>> from mrrstats import LinkPredictionRanks
        >>> r = LinkPredictionRanks.from_ranks([1, 2, 3], pessimistic=[1, 4, 3],
        ...                                    n_candidates=[10, 10, 10])
        >>> r.rank("realistic").tolist(), round(r.mrr("realistic"), 4)
        ([1.0, 3.0, 3.0], 0.5556)
        """
        o = np.asarray(ranks, dtype=np.float64).ravel()
        if pessimistic is None:
            p = o
        else:
            p = np.asarray(pessimistic, dtype=np.float64).ravel()
            if p.shape == o.shape and (np.any(o != np.round(o)) or np.any(p != np.round(p))):
                raise ParameterError("with `pessimistic`, both rank arrays must be whole numbers")
        if n_candidates is not None:
            n = np.asarray(n_candidates, dtype=np.float64).ravel()
            if n.size and (not np.all(np.isfinite(n)) or np.any(n != np.round(n))):
                raise ParameterError("`n_candidates` must be whole numbers")
            n_candidates = n
        return cls(o, p, n_candidates)

    @classmethod
    def concatenate(cls, parts: Iterable[LinkPredictionRanks]) -> LinkPredictionRanks:
        """Join the ranks of several batches of queries, in order."""
        parts = list(parts)
        if not parts:
            raise ParameterError("`parts` is empty")
        known = [p.n_candidates is not None for p in parts]
        if any(known) and not all(known):
            raise ParameterError("some parts have `n_candidates` and some do not")
        n = np.concatenate([p.n_candidates for p in parts]) if all(known) else None
        return cls(np.concatenate([p.optimistic for p in parts]),
                   np.concatenate([p.pessimistic for p in parts]), n)

    # -- per-query values ---------------------------------------------------
    @property
    def n_queries(self) -> int:
        return int(self.optimistic.size)

    def __len__(self) -> int:
        return self.n_queries

    @property
    def realistic(self) -> np.ndarray:
        """Realistic ranks :math:`(o + p)/2` (PyKEEN, TGB, OGB >= 1.3.4)."""
        return 0.5 * (self.optimistic + self.pessimistic)

    def rank(self, ties: str = "realistic") -> np.ndarray:
        """Per-query rank; ``"expected"`` gives the expected rank :math:`(o + p)/2`."""
        ties = _ties_iv(ties)
        if ties == "optimistic":
            return self.optimistic.copy()
        if ties == "pessimistic":
            return self.pessimistic.copy()
        return self.realistic

    def reciprocal_rank(self, ties: str = "realistic") -> np.ndarray:
        r"""Per-query reciprocal rank under ``ties``.

        ``"realistic"`` is :math:`2/(o + p)` (what PyKEEN, OGB and TGB average
        into MRR); ``"expected"`` is the exact expectation of ``1/rank`` when
        the tie is broken uniformly at random, :math:`(H(p) - H(o-1))/(p-o+1)`.
        """
        ties = _ties_iv(ties)
        if ties != "expected":
            return 1.0 / self.rank(ties)
        o, p = self.optimistic, self.pessimistic
        out = 1.0 / o
        tied = p > o
        if np.any(tied):
            out[tied] = expected_inverse_uniform(o[tied].astype(np.int64),
                                                 p[tied].astype(np.int64))
        return out

    def hits(self, k: int, ties: str = "realistic") -> np.ndarray:
        r"""Per-query Hits@k: 1 if the rank is at most ``k``.

        ``"realistic"`` tests the realistic rank (as OGB and TGB do);
        ``"expected"`` gives the probability :math:`P(\mathrm{rank} \le k)`
        under random tie-breaking, :math:`\min(1, \max(0, (k - o + 1)/(p - o + 1)))`.
        """
        ties = _ties_iv(ties)
        k = _k_iv(k)
        if ties != "expected":
            return (self.rank(ties) <= k).astype(np.float64)
        o, p = self.optimistic, self.pessimistic
        share = np.clip((k - o + 1.0) / (p - o + 1.0), 0.0, 1.0)
        return np.where(p > o, share, (o <= k).astype(np.float64))

    # -- aggregates ---------------------------------------------------------
    def mrr(self, ties: str = "realistic") -> float:
        """Mean reciprocal rank under ``ties``."""
        return float(np.mean(self.reciprocal_rank(ties))) if self.n_queries else math.nan

    def hits_at(self, k: int, ties: str = "realistic") -> float:
        """Hits@k (the fraction of queries with rank <= ``k``)."""
        return float(np.mean(self.hits(k, ties))) if self.n_queries else math.nan

    def mean_rank(self, ties: str = "realistic") -> float:
        """Mean rank under ``ties`` (``"expected"`` equals ``"realistic"``)."""
        return float(np.mean(self.rank(ties))) if self.n_queries else math.nan

    # -- random baselines ---------------------------------------------------
    def _need_counts(self) -> np.ndarray:
        if self.n_candidates is None:
            raise ParameterError("random baselines need `n_candidates`; pass it to from_ranks()")
        return self.n_candidates

    def expected_mrr(self) -> float:
        r"""MRR of a uniformly random ranker on the same candidates, mean of :math:`H(N_i)/N_i`."""
        return expected_mrr(self._need_counts())

    def adjusted_mrr(self, ties: str = "realistic") -> float:
        """Adjusted MRR :math:`(M - E)/(1 - E)` (0: random, 1: perfect)."""
        return adjusted_mrr(self.reciprocal_rank(ties), self._need_counts())

    def baseline_test(self, *, ties: str = "realistic", alternative: Alternative = "greater",
                      method: Literal["auto", "exact", "monte-carlo"] = "auto",
                      n_resamples: int = N_RESAMPLES,
                      rng: Seed = None) -> RandomBaselineResult:
        """Test "better than a random ranker" (:func:`mrrstats.random_baseline_test`)."""
        return random_baseline_test(self.reciprocal_rank(ties), self._need_counts(),
                                    alternative=alternative, method=method,
                                    n_resamples=n_resamples, rng=rng)

    def summary(self, ks: Sequence[int] = (1, 3, 10), ties: str = "realistic", *,
                pykeen: bool = True) -> pd.Series:
        """MRR, mean rank and Hits@k under ``ties`` (plus baselines when N is known), and
        every rank-based metric of PyKEEN under its key.

        With ``pykeen`` (default), the metrics of ``pykeen.metrics.ranking`` on the ranks
        ``self.rank(ties)`` follow (:mod:`mrrstats.baselines.rank_metrics`): the
        arithmetic, geometric, harmonic and median rank and their inverses, their spread,
        ``hits_at_k``; with ``n_candidates`` also the adjusted ones
        (``adjusted_arithmetic_mean_rank`` and its index AMRI, ``adjusted_hits_at_k``,
        ``adjusted_inverse_harmonic_mean_rank``, ...), the z-scores (``z_hits_at_k``,
        ``z_inverse_harmonic_mean_rank``, ``z_arithmetic_mean_rank``, ...), and
        ``expected_<key>`` / ``variance_<key>`` under random ranking. PyKEEN reports the
        adjusted and z-scored metrics for realistic ranks only (the default here).
        :meth:`metric` reads one by any of PyKEEN's names and synonyms.

        Examples
        --------
        >>> from mrrstats import LinkPredictionRanks
        >>> r = LinkPredictionRanks.from_ranks([1, 2, 4], n_candidates=[10, 10, 10])
        >>> s = r.summary(ks=(1,))
        >>> round(float(s["MRR"]), 4), round(float(s["z_inverse_harmonic_mean_rank"]), 4)
        (0.5833, 1.9125)
        """
        if isinstance(ks, int | np.integer):
            ks = (ks,)
        if not isinstance(ks, list | tuple | np.ndarray):
            raise ParameterTypeError(f"`ks` must be a list of cutoffs, got {ks!r:.60}",
                                     name="ks")
        ks = [int_iv(k, "ks") for k in ks]
        pykeen = bool_iv(pykeen, "pykeen")
        out = {"queries": float(self.n_queries), "MRR": self.mrr(ties),
               "mean_rank": self.mean_rank(ties)}
        for k in ks:
            out[f"Hits@{k}"] = self.hits_at(k, ties)
        if self.n_candidates is not None:
            out["expected_MRR"] = self.expected_mrr()
            out["adjusted_MRR"] = self.adjusted_mrr(ties)
        if pykeen and self.n_queries:
            out.update(rank_metrics(self.rank(ties), self.n_candidates, ks))
        s = pd.Series(out, name=ties)
        return s

    def metric(self, name: str, ties: str = "realistic") -> float:
        """One of PyKEEN's rank-based metrics by its key or any synonym, case-insensitive
        (``"mrr"``, ``"amri"``, ``"hits@10"``, ``"z_hits_at_10"``, ``"zmrr"``,
        ``"expected_amri"``, ``"variance_mrr"``), on ``self.rank(ties)``.

        >>> from mrrstats import LinkPredictionRanks
        >>> r = LinkPredictionRanks.from_ranks([1, 2, 4], n_candidates=[10, 10, 10])
        >>> round(r.metric("amri"), 4), r.metric("h@1")
        (0.7037, 0.3333333333333333)
        """
        ties = _ties_iv(ties)
        prefix = ""
        if isinstance(name, str):
            for p in ("expected_", "variance_"):
                if name.lower().startswith(p):
                    prefix, name = p, name[len(p):]
        key = resolve_rank_metric(name)
        k = int(key.rsplit("_", 1)[1]) if "hits_at_" in key else 10
        values = rank_metrics(self.rank(ties), self.n_candidates, (k,))
        if prefix + key not in values:
            raise ParameterError(f"{prefix}{key} needs `n_candidates`; pass it to from_ranks()")
        return values[prefix + key]

    def to_frame(self) -> pd.DataFrame:
        """One row per query: optimistic, pessimistic and realistic rank, expected RR, N."""
        frame = pd.DataFrame({"optimistic": self.optimistic, "pessimistic": self.pessimistic,
                              "realistic": self.realistic,
                              "expected_rr": self.reciprocal_rank("expected")})
        if self.n_candidates is not None:
            frame["n_candidates"] = self.n_candidates
        frame.index.name = "query"
        return frame


def _k_iv(k):
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ParameterError(f"`k` must be a positive integer, got {k!r}")
    return int(k)


# --------------------------------------------------------------------------
# the counting kernel
# --------------------------------------------------------------------------

class _RowCounter:
    """Counts True values per row of a reusable boolean buffer, fast.

    Rows are padded with zeros to a multiple of ``8 * g`` bytes; each group
    of ``g <= 255`` 64-bit words is summed as integers, so every byte lane
    holds a count <= 255 without carrying into its neighbour; the lanes are
    then added up. This is several times faster than ``count_nonzero(axis=1)``.
    """

    def __init__(self, rows: int, width: int):
        self.width = width
        words = max(1, -(-width // 8))
        self.g = min(255, words)
        padded = max(1, -(-width // (8 * self.g))) * 8 * self.g
        self.buf = np.zeros((rows, padded), dtype=bool)

    def view(self, k: int) -> np.ndarray:
        return self.buf[:k, :self.width]

    def count(self, k: int) -> np.ndarray:
        w = self.buf[:k].view(np.uint64).reshape(k, -1, self.g)
        lanes = np.add.reduce(w, axis=2)
        return lanes.view(np.uint8).reshape(k, -1).sum(axis=1, dtype=np.int64)


def _invalid_entries(C, true_col, er, ec, start, nonfinite):
    """NaN / -inf entries of a chunk that are neither the true candidate nor excluded.

    Returns ``(rows, is_neginf)`` (chunk-local rows), or raises for
    ``nonfinite="raise"`` naming the first entry in row-major order.
    """
    k, m = C.shape
    bad = np.isnan(C) | np.isneginf(C)
    if true_col is not None:
        bad[np.arange(k), true_col] = False
    br, bc = np.divmod(np.flatnonzero(bad), m)
    if er.size and br.size:  # invalid but already filtered: fine
        keep = ~np.isin(br * m + bc, er * m + ec)
        br, bc = br[keep], bc[keep]
    if br.size and nonfinite == "raise":
        kind = "NaN" if np.isnan(C[br[0], bc[0]]) else "-inf"
        raise _nonfinite_error(kind, start + int(br[0]), int(bc[0]))
    return br, np.isneginf(C[br, bc])


def _batch_iv(batch, width: int) -> int:
    if batch is None:
        return max(1, _BATCH_ELEMENTS // max(width, 1))
    if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)) or batch < 1:
        raise ParameterError(f"`batch` must be a positive integer (rows per chunk) or None, got "
                         f"{batch!r}")
    return int(batch)


def _scores_iv(scores, name: str) -> np.ndarray:
    S = asarray_iv(scores, name)
    if S.ndim != 2:
        raise ParameterError(f"`{name}` must be a 2-D array (queries x candidates), got "
                         f"{S.ndim} dimension(s)")
    if S.dtype == bool or not (np.issubdtype(S.dtype, np.floating)
                               or np.issubdtype(S.dtype, np.integer)):
        raise ParameterTypeError(
            f"`{name}` must hold real numbers (float or int), got dtype {S.dtype}")
    return S


def _run_chunks(n_rows, batch, workers, process):
    """Apply ``process(start, stop, counter_slot)`` to every chunk, maybe in threads.

    Raises the error of the first failing chunk (in row order) whatever the
    number of workers.
    """
    starts = list(range(0, n_rows, batch))
    if workers <= 1 or len(starts) <= 1:
        for s in starts:
            process(s, min(n_rows, s + batch), 0)
        return
    workers = min(workers, len(starts))
    errors: dict[int, BaseException] = {}

    def work(w):
        for s in starts[w::workers]:
            try:
                process(s, min(n_rows, s + batch), w)
            except BaseException as exc:  # noqa: BLE001 - re-raised below, in row order
                errors[s] = exc
                return

    with ThreadPoolExecutor(max_workers=workers) as ex:
        list(ex.map(work, range(workers)))
    if errors:
        raise errors[min(errors)]


def _ranks_from_scores_iv(scores, true_index, exclude, nonfinite, batch, workers):
    S = _scores_iv(scores, "scores")
    n, m = S.shape
    idx = true_index_iv(asarray_iv(true_index, "true_index"), n, m)
    kind, ex = exclude_iv(exclude, (n, m), idx)
    return (S, idx, kind, ex, nonfinite_iv(nonfinite), _batch_iv(batch, m),
            workers_iv(workers))


def _true_scores_valid(t, start, name):
    if np.issubdtype(t.dtype, np.floating):
        bad = np.isnan(t) | np.isneginf(t)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ParameterError(f"{name} of query {start + i} is {t[i]}: its rank is undefined")


def ranks_from_scores(scores: ArrayLike, true_index: ArrayLike, *,
                      exclude: ArrayLike | None = None,
                      nonfinite: Literal["raise", "exclude"] = "raise", batch: int | None = None,
                      workers: int = -1) -> LinkPredictionRanks:
    r"""Rank of the true candidate in every row of a dense score matrix.

    Parameters
    ----------
    scores : array_like, shape (n_queries, n_candidates)
        Higher is better; float (16/32/64) or integer; a numpy array, a
        memory map or anything ``numpy.asarray`` reads without copying (a CPU
        torch tensor is viewed in place), or an array-API array on its own
        device (CUDA torch, CuPy: counted there). Never copied as a whole.
    true_index : array_like of int, shape (n_queries,)
        Column of the true candidate in each row.
    exclude : optional, keyword-only
        Candidates to remove from the ranking (filtered setting): a boolean
        mask of the shape of ``scores``, a ``scipy.sparse`` matrix, or an
        ``(n, 2)`` integer array of ``(row, candidate)`` pairs. The true
        candidate is never removed from its own row, so the set of all known
        true answers can be passed as is. Duplicates are harmless.
    nonfinite : {"raise", "exclude"}, keyword-only
        NaN and -inf scores (outside ``exclude``) raise a ``ValueError``
        naming the first one (default), or, with ``"exclude"``, are removed
        like filtered candidates. +inf is an ordinary (largest) score. A true
        candidate scoring NaN or -inf always raises.
    batch : int, optional, keyword-only
        Rows per chunk on a device (default: sized from its free memory) and
        in the NumPy fallback for dtypes the kernel does not read (non-native
        byte order, longdouble). Results do not depend on it.
    workers : int, keyword-only
        Threads counting rows (default -1: all cores). Results do not depend
        on it (every row is counted by one thread, in integers).

    Returns
    -------
    LinkPredictionRanks
        With :math:`N_i` = candidates of row ``i`` minus removed ones (the
        true candidate counts).

    Notes
    -----
    Per row, with :math:`t` the true score and :math:`\mathcal{C}_i` the
    remaining candidates: :math:`o = 1 + \#\{c : s_c > t\}`,
    :math:`p = N_i - \#\{c : s_c < t\}`. The kernel counts both, and the
    scores that are not :math:`> -\infty` (NaN, -inf), in one read of the row;
    removed candidates are corrected for individually, so they cost time
    proportional to their number (a mask adds one fast read of its bytes, a
    quarter of a float32 matrix, skipping 64 unset bytes at a time); a
    non-contiguous mask is first copied in C order; a row holding NaN or
    -inf is read a second time to tell filtered from unfiltered ones. The
    first call on a machine compiles the kernel for the scores' dtype (a few
    seconds, once: the result is cached on disk).

    Examples
    --------
    >>> import numpy as np
    >>> from mrrstats import ranks_from_scores
    >>> scores = np.array([[0.9, 0.5, 0.5, 0.1],
    ...                    [0.2, 0.8, 0.8, 0.8]])
    >>> r = ranks_from_scores(scores, [1, 3], exclude=[(0, 0)])
    >>> r.optimistic.tolist(), r.pessimistic.tolist(), r.n_candidates.tolist()
    ([1.0, 1.0], [2.0, 3.0], [3, 4])
    >>> r.reciprocal_rank("realistic").round(4).tolist()
    [0.6667, 0.5]
    >>> r.reciprocal_rank("expected").round(4).tolist()
    [0.75, 0.6111]
    """
    xp, scores = _dispatch(scores)
    if xp is not None:
        return _ranks_from_scores_xp(xp, scores, true_index, exclude, nonfinite, batch, workers)
    S, idx, kind, ex, nonfinite, batch, workers = _ranks_from_scores_iv(
        scores, true_index, exclude, nonfinite, batch, workers)
    n, m = S.shape
    return _rank_chunks(S, idx, None, kind, ex, nonfinite, batch, workers, m)


def _dispatch(scores):
    """``(namespace, scores)``: the namespace when the counts run on the array's own device.

    NumPy arrays (and whatever ``numpy.asarray`` reads: lists, memory maps)
    go to the compiled kernel; so do CPU torch tensors of a NumPy dtype,
    viewed in place (faster than torch's own CPU comparisons). Any other
    array-API array (CUDA torch, CuPy, ``array_api_strict``...) is counted
    with its own namespace where it lives.
    """
    xp = array_namespace_or_none(scores)
    if xp is None:
        return None, scores
    from array_api_compat import is_torch_array

    if is_torch_array(scores) and scores.device.type == "cpu":
        try:
            return None, scores.detach().numpy()
        except (TypeError, RuntimeError):  # a dtype NumPy lacks (bfloat16): torch counts
            pass
    return xp, scores


def _rank_chunks(S, idx, positive, kind, ex, nonfinite, batch, workers, base_n):
    """Ranks of every row: the compiled kernel, or numpy for dtypes it does not read."""
    if S.dtype in KERNEL_DTYPES and S.dtype.isnative:
        return _rank_compiled(S, idx, positive, kind, ex, nonfinite, workers, base_n)
    return _rank_chunks_numpy(S, idx, positive, kind, ex, nonfinite, batch, workers, base_n)


def _nonfinite_error(kind: str, row: int, col: int) -> ValueError:
    return ValueError(
        f"`scores` is {kind} at row {row}, column {col}; "
        "pass nonfinite='exclude' to treat NaN and -inf scores as excluded candidates")


def _rank_compiled(S, idx, positive, kind, ex, nonfinite, workers, base_n):
    """One pass of the compiled kernel over every row (parallel over rows)."""
    n, m = S.shape
    if idx is not None:
        t = S[np.arange(n), idx]
        _true_scores_valid(t, 0, "the score of the true candidate")
        true_col = idx
    else:
        t = np.asarray(positive)
        _true_scores_valid(t, 0, "`positive`")
        true_col = np.full(n, -1, dtype=np.int64)
    t = np.ascontiguousarray(t, dtype=np.result_type(S.dtype, t.dtype))
    true_col = np.ascontiguousarray(true_col, dtype=np.int64)
    mask = None
    ptr = np.zeros(n + 1, dtype=np.int64)
    cols = np.zeros(0, dtype=np.int64)
    if kind == "mask":
        mask = ex
    elif kind == "pairs":
        pr, pc = ex
        ptr = np.searchsorted(pr, np.arange(n + 1)).astype(np.int64)
        cols = np.ascontiguousarray(pc, dtype=np.int64)
    gt, lt, bad, first, removed = count_rows(S, t, true_col, mask, ptr, cols, workers)
    if bad.any():
        if nonfinite == "raise":
            r = int(np.flatnonzero(bad)[0])
            c = int(first[r])
            raise _nonfinite_error("NaN" if np.isnan(S[r, c]) else "-inf", r, c)
        removed = removed + bad
    N = base_n - removed
    return LinkPredictionRanks(1.0 + gt, (N - lt).astype(np.float64), N)


def _rank_chunks_numpy(S, idx, positive, kind, ex, nonfinite, batch, workers, base_n):
    """Optimistic / pessimistic ranks and N for every row, chunk by chunk, in numpy.

    The reference the compiled kernel is tested against, and the path for
    dtypes the kernel does not read (non-native byte order, longdouble).

    Per chunk: ``>`` and ``<`` against the true scores into a reusable boolean
    buffer, each counted per row, and (float scores) one min-reduce that
    detects NaN / -inf; all three passes read the chunk while it is in cache.
    Filtered pairs are corrected for once, outside the loop.
    """
    n, m = S.shape
    if idx is not None:
        t_all = S[np.arange(n), idx]
        _true_scores_valid(t_all, 0, "the score of the true candidate")
    else:
        t_all = positive
        _true_scores_valid(t_all, 0, "`positive`")
    gt = np.empty(n, dtype=np.int64)
    lt = np.empty(n, dtype=np.int64)
    removed = np.zeros(n, dtype=np.int64)
    check = bool(np.issubdtype(S.dtype, np.floating))
    rows = min(batch, max(n, 1))
    counters = [_RowCounter(rows, m) for _ in range(max(1, workers))]
    empty = np.zeros(0, dtype=np.int64)
    if kind == "pairs":
        pr, pc = ex
        bounds = np.searchsorted(pr, np.arange(0, n + batch, batch))

    def process(s, e, w):
        k = e - s
        C = S[s:e]
        t = t_all[s:e]
        tcol = t[:, None]
        counter = counters[w]
        v = counter.view(k)
        np.greater(C, tcol, out=v)
        gt[s:e] = counter.count(k)
        np.less(C, tcol, out=v)
        lt[s:e] = counter.count(k)
        er = ec = empty
        if kind == "mask":
            er, ec = np.divmod(np.flatnonzero(ex[s:e]), m)  # 7x faster than 2-D nonzero
            if idx is not None and er.size:
                keep = ec != idx[s:e][er]
                er, ec = er[keep], ec[keep]
            if er.size:
                vals = C[er, ec]
                tr = t[er]
                gt[s:e] -= np.bincount(er[vals > tr], minlength=k)
                lt[s:e] -= np.bincount(er[vals < tr], minlength=k)
                removed[s:e] += np.bincount(er, minlength=k)
        if check and C.size:
            with np.errstate(invalid="ignore"):
                lowest = np.minimum.reduce(C, axis=None)
            if not lowest > -np.inf:  # NaN or -inf somewhere in this chunk (rare path)
                if kind == "pairs":
                    i = s // batch
                    er, ec = pr[bounds[i]:bounds[i + 1]] - s, pc[bounds[i]:bounds[i + 1]]
                tc = None if idx is None else idx[s:e]
                br, neg = _invalid_entries(C, tc, er, ec, s, nonfinite)
                if br.size:
                    lt[s:e] -= np.bincount(br[neg], minlength=k)  # -inf counted as lower
                    removed[s:e] += np.bincount(br, minlength=k)

    _run_chunks(n, batch, workers, process)
    if kind == "pairs" and pr.size:
        vals = S[pr, pc]
        tr = t_all[pr]
        gt -= np.bincount(pr[vals > tr], minlength=n)
        lt -= np.bincount(pr[vals < tr], minlength=n)
        removed += np.bincount(pr, minlength=n)
    N = base_n - removed
    return LinkPredictionRanks(1.0 + gt, (N - lt).astype(np.float64), N)


def _positive_iv(pos, n):
    """``positive`` (already a host array) as one real score per row of ``negatives``."""
    if pos.ndim == 2 and pos.shape[1] == 1:
        pos = pos[:, 0]
    if pos.ndim != 1 or pos.size != n:
        raise ParameterError(f"`positive` must hold one score per row of `negatives` ({n}), got "
                         f"shape {pos.shape}")
    if pos.dtype == bool or not (np.issubdtype(pos.dtype, np.floating)
                                 or np.issubdtype(pos.dtype, np.integer)):
        raise ParameterTypeError(f"`positive` must hold real numbers, got dtype {pos.dtype}")
    return pos


def _ranks_from_negatives_iv(positive, negatives, nonfinite, batch, workers):
    S = _scores_iv(negatives, "negatives")
    n, m = S.shape
    pos = _positive_iv(asarray_iv(positive, "positive"), n)
    return S, pos, nonfinite_iv(nonfinite), _batch_iv(batch, m), workers_iv(workers)


def ranks_from_negatives(positive: ArrayLike, negatives: ArrayLike, *,
                         nonfinite: Literal["raise", "exclude"] = "raise",
                         batch: int | None = None, workers: int = -1) -> LinkPredictionRanks:
    r"""Ranks against sampled negatives, as in OGB and TGB link prediction.

    Parameters
    ----------
    positive : array_like, shape (n_queries,)
        Score of the true candidate of each query.
    negatives : array_like, shape (n_queries, n_negatives)
        Scores of the sampled negative candidates.
    nonfinite, batch, workers
        As in :func:`ranks_from_scores` (removed negatives do not count in
        :math:`N_i`).

    Returns
    -------
    LinkPredictionRanks
        :math:`N_i = 1 +` the number of negatives (minus removed ones).

    Notes
    -----
    OGB's and TGB's evaluators compute ``optimistic_rank = (neg > pos).sum(1)``,
    ``pessimistic_rank = (neg >= pos).sum(1)`` and report
    ``0.5 * (optimistic_rank + pessimistic_rank) + 1``: exactly this object's
    realistic rank, whose reciprocal they average into MRR; their Hits@k is
    ``realistic <= k``.

    Examples
    --------
    >>> from mrrstats import ranks_from_negatives
    >>> r = ranks_from_negatives([0.5, 0.9], [[0.7, 0.5, 0.1], [0.1, 0.2, 0.3]])
    >>> r.realistic.tolist(), r.n_candidates.tolist()
    ([2.5, 1.0], [4, 4])
    """
    xp, negatives = _dispatch(negatives)
    if xp is not None:
        return _ranks_from_negatives_xp(xp, positive, negatives, nonfinite, batch, workers)
    S, pos, nonfinite, batch, workers = _ranks_from_negatives_iv(positive, negatives,
                                                                 nonfinite, batch, workers)
    n, m = S.shape
    if np.issubdtype(S.dtype, np.floating) and not np.issubdtype(pos.dtype, np.floating):
        pos = pos.astype(np.float64)
    return _rank_chunks(S, None, pos, None, None, nonfinite, batch, workers, m + 1)


# --------------------------------------------------------------------------
# the array-API path: counts on the device of the scores
# --------------------------------------------------------------------------

def _xp_scores_iv(xp, S, name: str):
    if S.ndim != 2:
        raise ParameterError(f"`{name}` must be a 2-D array (queries x candidates), got "
                         f"{S.ndim} dimension(s)")
    try:
        dt = numpy_dtype(S.dtype)
    except TypeError:
        raise ParameterTypeError(f"`{name}` has dtype {S.dtype}, which NumPy lacks; cast it to "
                        "float32 (exact) first") from None
    if dt == np.bool_ or not (np.issubdtype(dt, np.floating) or np.issubdtype(dt, np.integer)):
        raise ParameterTypeError(
            f"`{name}` must hold real numbers (float or int), got dtype {S.dtype}")
    return tuple(int(d) for d in S.shape)


def _host(a):
    return to_numpy(a) if array_namespace_or_none(a) is not None else np.asarray(a)


def _ranks_from_scores_xp(xp, S, true_index, exclude, nonfinite, batch, workers):
    n, m = _xp_scores_iv(xp, S, "scores")
    idx = true_index_iv(_host(true_index), n, m)
    dev_mask = None
    pairs = None
    if exclude is not None and array_namespace_or_none(exclude) is xp \
            and xp.isdtype(exclude.dtype, "bool"):
        if tuple(exclude.shape) != (n, m):
            raise ParameterError(f"`exclude` as a boolean mask must have the shape of `scores` "
                             f"{(n, m)}, got {tuple(exclude.shape)}")
        dev_mask = exclude
    else:
        pairs = exclude_pairs(_host(exclude) if exclude is not None
                              and not hasattr(exclude, "tocoo") else exclude, (n, m), idx)
    nonfinite = nonfinite_iv(nonfinite)
    workers_iv(workers)
    rows = _batch_iv(batch, m) if batch is not None else rows_per_chunk(S, n, m)
    return _xp_finish(xp, S, idx, None, pairs, dev_mask, rows, nonfinite, m)


def _ranks_from_negatives_xp(xp, positive, negatives, nonfinite, batch, workers):
    n, m = _xp_scores_iv(xp, negatives, "negatives")
    pos = _positive_iv(_host(positive), n)
    if np.issubdtype(numpy_dtype(negatives.dtype), np.floating) \
            and not np.issubdtype(pos.dtype, np.floating):
        pos = pos.astype(np.float64)
    _true_scores_valid(pos, 0, "`positive`")
    nonfinite = nonfinite_iv(nonfinite)
    workers_iv(workers)
    rows = _batch_iv(batch, m) if batch is not None else rows_per_chunk(negatives, n, m)
    return _xp_finish(xp, negatives, None, pos, None, None, rows, nonfinite, m + 1)


def _xp_finish(xp, S, idx, pos, pairs, dev_mask, rows, nonfinite, base_n):
    n, m = (int(d) for d in S.shape)
    if idx is not None:  # the true scores first: a NaN / -inf one raises before anything else
        t = true_scores_xp(xp, S, idx, rows)
        _true_scores_valid(t, 0, "the score of the true candidate")
    else:
        t = pos
    gt, lt, bad, neg, removed = rank_counts_xp(xp, S, idx, t, pairs, dev_mask, rows)
    if bad.any():
        if nonfinite == "raise":
            r = int(np.flatnonzero(bad)[0])
            if pairs is not None:
                lo, hi = np.searchsorted(pairs[0], [r, r + 1])
                filtered = pairs[1][lo:hi]
            elif dev_mask is not None:
                filtered = np.flatnonzero(to_numpy(dev_mask[r, :]))
            else:
                filtered = np.zeros(0, dtype=np.int64)
            c, kind = first_bad_column(xp, S, r, filtered)
            raise _nonfinite_error(kind, r, c)
        lt = lt - neg
        removed = removed + bad
    N = base_n - removed
    return LinkPredictionRanks(1.0 + gt, (N - lt).astype(np.float64), N)
