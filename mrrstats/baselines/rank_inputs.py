"""Validators shared by the link-prediction doors (ranks_from_scores, ranks_from_negatives,
ranks_from_scorer): the known answers left out (``exclude``), the true candidates and
the non-finite policy.

Each raises a ``ValueError`` or ``TypeError`` naming the parameter in backticks.
"""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError, ParameterTypeError
from ..validation import asarray_iv

__all__ = ["NONFINITE", "nonfinite_iv", "exclude_iv", "exclude_pairs", "true_index_iv"]

#: What NaN and -inf scores do: raise, or leave the candidate out like a known answer.
NONFINITE = ("raise", "exclude")


def nonfinite_iv(nonfinite):
    """``nonfinite`` in :data:`NONFINITE`."""
    if not isinstance(nonfinite, str | None) or nonfinite not in NONFINITE:
        raise ParameterError(f"`nonfinite` must be 'raise' or 'exclude', got {nonfinite!r}")
    return nonfinite


def exclude_iv(exclude, shape, true_index, *, matrix="`scores`"):
    """``exclude`` as ``(kind, value)``: ``(None, None)``, ``("mask", boolean array)`` or
    ``("pairs", (rows, cols))``, the pairs sorted by row then candidate, de-duplicated,
    and never the true candidate of their own row.

    ``shape`` is ``(n_queries, n_candidates)``; ``matrix`` names it in messages.
    """
    n, m = shape
    if exclude is None:
        return None, None
    if hasattr(exclude, "tocoo"):  # scipy.sparse
        if tuple(exclude.shape) != (n, m):
            raise ParameterError(f"`exclude` (sparse) must have the shape of {matrix} {(n, m)}, "
                             f"got {tuple(exclude.shape)}")
        coo = exclude.tocoo()
        nz = coo.data != 0
        pairs = np.stack([coo.row[nz], coo.col[nz]], axis=1)
    else:
        arr = asarray_iv(exclude, "exclude")
        if arr.dtype == bool:
            if arr.shape != (n, m):
                raise ParameterError(
                    f"`exclude` as a boolean mask must have the shape of {matrix} "
                    f"{(n, m)}, got {arr.shape}")
            return "mask", arr
        if arr.size == 0:
            return None, None
        if arr.ndim != 2 or arr.shape[1] != 2 or not np.issubdtype(arr.dtype, np.integer):
            raise ParameterError(f"`exclude` must be a boolean mask of the shape of {matrix}, a "
                             "scipy.sparse matrix, or an (n, 2) integer array of "
                             "(row, candidate) pairs")
        pairs = arr
    pairs = np.asarray(pairs, dtype=np.int64)
    if pairs.size:
        if pairs[:, 0].min() < 0 or pairs[:, 0].max() >= n or pairs[:, 1].min() < 0 \
                or pairs[:, 1].max() >= m:
            raise ParameterError(f"`exclude` pairs must lie within the {n} x {m} {matrix}")
    rows, cols = pairs[:, 0], pairs[:, 1]
    if true_index is not None:  # the true candidate is never excluded from its own query
        keep = cols != true_index[rows]
        rows, cols = rows[keep], cols[keep]
    lin = rows * m + cols  # a new array: sorted in place, repeats dropped (np.unique's
    lin.sort()  # hash table took 0.07 s on 61,580 pairs, twice the matrix pass it filters)
    if lin.size > 1:
        lin = lin[np.concatenate(([True], lin[1:] != lin[:-1]))]
    return "pairs", (lin // m, lin % m)


def exclude_pairs(exclude, shape, true_index, *, matrix="`scores`"):
    """:func:`exclude_iv` as ``(rows, cols)`` pairs always (a mask is turned into its
    pairs, the true candidates left out); ``None`` when nothing is excluded."""
    kind, ex = exclude_iv(exclude, shape, true_index, matrix=matrix)
    if kind == "mask":
        r, c = np.nonzero(ex)
        keep = c != true_index[r]
        return r[keep].astype(np.int64), c[keep].astype(np.int64)
    return ex


def true_index_iv(idx, n, m, *, matrix="`scores`"):
    """``true_index`` (already a host array) as int64 column indices, one per row."""
    if idx.ndim != 1 or idx.size != n:
        raise ParameterError(f"`true_index` must be 1-D with one entry per row of {matrix} ({n}), "
                         f"got shape {idx.shape}")
    if idx.size and not np.issubdtype(idx.dtype, np.integer):
        raise ParameterTypeError(f"`true_index` must hold integers, got dtype {idx.dtype}")
    idx = idx.astype(np.int64)
    if idx.size and (idx.min() < 0 or idx.max() >= m):
        raise ParameterError(f"`true_index` must lie in [0, {m}) (column indices of {matrix})")
    return idx
