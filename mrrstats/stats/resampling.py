r"""The one resampling engine: sign flips, the paired bootstrap, within-query permutations.

Every test and interval of :mod:`mrrstats.stats` that resamples goes through
the primitives here. Names without a
leading underscore are public within the package: other modules of
:mod:`mrrstats.stats` may import them; users should call the public tests.

Two guarantees hold for every function here:

* **Counter-based stream.** Sign flips and bootstrap draws come from the
  counter-based Threefry stream of :mod:`mrrstats.stats.counter`: the user's
  Generator is read once per call (one 64-bit key), and the bits of resample
  ``r`` and query ``i`` are a function of ``(key, r, i)`` alone. The same seed
  therefore gives the same resamples whatever the ``batch`` size, the number
  of ``workers`` (the numba kernels run in parallel over resamples), the
  array library and device (:func:`signflip_counts_xp`,
  :func:`bootstrap_sums_xp` run on torch / CuPy / array-API arrays where they
  live), or the blocks of queries (:func:`signflip_counts_blocked`,
  :func:`poisson_sums_blocked`). The within-query permutations (randomised
  Tukey HSD, Westfall-Young) still draw from the numpy Generator, row by row
  in a fixed order.
* **Exact arithmetic where order could matter.** BLAS may sum a matrix product
  in any order (depending on the shape and the number of threads). The sign-flip
  counts decide every comparison the float32 error bound cannot decide in
  float64; the bootstrap sums and the stored sign-flip null distribution are
  products of small integers with data split on power-of-two grids, exact in
  any order. Results are therefore bit-identical for every batch size and
  every number of BLAS threads.

Sign flips
    :func:`signflip_rows` (random bits of the counter stream), :func:`enumerated_rows` (all
    :math:`2^n` patterns), :func:`signflip_counts` (the counting engine shared
    by many pairs), :func:`signflip_null` (the null distribution of one pair),
    :func:`signflip_pvalues_per_row` (independent sign vectors per row).
Bootstrap
    :func:`bootstrap_counts` (multinomial count rows), :func:`exact_split` and
    :func:`exact_count_products` (the exactness trick), :func:`bootstrap_sums`.
Within-query permutations (randomised Tukey HSD, Westfall-Young max-T)
    :func:`permutation_batches` (system labels permuted within each query),
    :func:`query_means` (means over queries in a fixed summation order).
Label permutations between two samples (unpaired tests)
    :func:`random_splits` (the counter stream), :func:`enumerated_splits`.
Progress: every loop reports the resamples it draws to
:func:`mrrstats.progress.resampling_ticker` (a no-op unless a caller opened
:func:`mrrstats.progress.tracking`, e.g. :func:`mrrstats.compare` on a terminal);
it draws no random number and never changes a result.

Helpers
    :func:`blas_single_thread`, :func:`default_batch`, :func:`bootstrap_batch`,
    :func:`mc_se`, :func:`use_exact`.
"""

from __future__ import annotations

import contextlib
import math
from itertools import combinations
from typing import Any

import numpy as np

from ..devices import rows_per_chunk
from ..errors import ParameterError
from ..progress import resampling_ticker
from ..validation import resource_iv
from . import counter
from .counter import as_key

__all__ = [
    "EXACT_BUDGET",
    "PERMUTATION_BATCH_ELEMENTS",
    "permutation_batches",
    "query_means",
    "random_splits",
    "enumerated_splits",
    "blas_single_thread",
    "mc_se",
    "default_batch",
    "use_exact",
    "signflip_rows",
    "enumerated_rows",
    "kernel_rows",
    "signflip_counts",
    "signflip_null",
    "signflip_pvalues_per_row",
    "bootstrap_counts",
    "bootstrap_batch",
    "exact_split",
    "exact_count_products",
    "bootstrap_sums",
    "split_grid",
    "array_namespace_of",
    "to_host",
    "device_of",
    "xp_batch",
    "signflip_counts_xp",
    "bootstrap_sums_xp",
    "PairwiseSum",
    "signflip_counts_blocked",
    "poisson_bootstrap_sums",
    "poisson_bootstrap_blocked",
]

# Exact enumeration of the 2**n sign vectors is used (when ``exact=None``) as
# long as 2**n <= max(n_resamples, EXACT_BUDGET // n_pairs).
EXACT_BUDGET = 1 << 20
# Default batch: resampling rows per step such that one step touches about
# _BATCH_ELEMENTS floats (rows x (queries + pairs)). Small steps keep the
# random bits, counts and products in cache and keep the matrix products skinny,
# which multi-threaded BLAS handles poorly when large on a busy machine.
_BATCH_ELEMENTS = 1 << 17

_U32 = float(np.finfo(np.float32).eps) / 2.0  # unit roundoff of float32
_U64 = float(np.finfo(np.float64).eps) / 2.0


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------
_CONTROLLER: list[Any] = []  # lazily created threadpoolctl.ThreadpoolController (scanning is slow)


def blas_single_thread():
    """Context limiting BLAS to one thread (if threadpoolctl is installed).

    The resampling loops multiply skinny matrices; multi-threaded OpenBLAS gains
    little on them and spins badly when the cores are busy. Results never
    depend on this (the comparisons are exact, see the engines), only speed.
    """
    if not _CONTROLLER:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:  # pragma: no cover - optional
            _CONTROLLER.append(None)
        else:
            _CONTROLLER.append(ThreadpoolController())
    controller = _CONTROLLER[0]
    if controller is None:  # pragma: no cover - optional
        return contextlib.nullcontext()
    return controller.limit(limits=1, user_api="blas")


def mc_se(pvalue, n_resamples):
    """Binomial standard error :math:`\\sqrt{p(1-p)/B}` of a Monte-Carlo p-value."""
    p = np.asarray(pvalue, dtype=np.float64)
    return np.sqrt(p * (1.0 - p) / n_resamples)


def default_batch(n_cols, n_extra=0):
    """Default number of resamples per step: about 2**17 floats per step, 8 to 4096 rows.

    ``n_cols`` is the number of queries, ``n_extra`` the number of output
    columns (pairs) touched per resample.
    """
    return int(min(4096, max(8, _BATCH_ELEMENTS // max(1, n_cols + n_extra))))


def use_exact(n, n_pairs, n_resamples, exact):
    """Whether to enumerate all 2**n sign vectors (``exact=None`` decides by budget)."""
    if exact is None:
        return (1 << min(n, 62)) <= max(n_resamples, EXACT_BUDGET // max(1, n_pairs))
    return bool(exact)


# --------------------------------------------------------------------------
# sign flips
# --------------------------------------------------------------------------
def signflip_rows(key, start, r, n, *, workers=-1):
    """Rows ``start .. start + r - 1`` of ``n`` fair random bits (uint8) of the stream ``key``.

    Bit ``i`` of a row is 1 when query ``i`` keeps its sign; it is bit
    ``i % 64`` of the Threefry output for counter ``(row, i // 64)`` (see
    :mod:`mrrstats.stats.counter`), so batches and workers never change it.
    """
    return counter.signflip_bits(key, start, r, n, workers=workers)


#: elements per call of a numba kernel: one parallel launch covers many small batches
_KERNEL_ELEMENTS = 1 << 23
#: From this many queries on (2**22, where n times float32's unit roundoff reaches
#: 1/4) the float32 products bound nothing and every comparison would be redone with
#: the exact split on materialised bits; the fused kernel (:func:`counter.signflip_dot`)
#: computes the same exact-split products without the bits instead: 10^7 queries,
#: B = 1,000, 164 s and 2.4 GB before, about 15 s and O(B) memory after.
FUSED_MIN_QUERIES = 1 << 22


def kernel_rows(kernel, key, total, batch, n, workers):
    """Yield ``(start, rows)`` batches of ``kernel(key, start, r, n, workers=...)`` output.

    The kernel (:func:`signflip_rows` or :func:`bootstrap_counts`) runs on
    chunks of about 2**23 elements, each split into ``batch``-row slices:
    one parallel launch per chunk instead of per small batch. The rows do
    not depend on the chunking (they are functions of their resample number).
    """
    chunk = max(batch, (_KERNEL_ELEMENTS // max(1, n)) // batch * batch)
    for c0 in range(0, total, chunk):
        cr = min(chunk, total - c0)
        rows = kernel(key, c0, cr, n, workers=workers)
        for s0 in range(0, cr, batch):
            yield c0 + s0, rows[s0:s0 + batch]


def enumerated_rows(start, r, n):
    """Rows ``start .. start + r - 1`` of the 2**n sign patterns (bit i of the code)."""
    codes = np.arange(start, start + r, dtype=np.int64)
    return ((codes[:, None] >> np.arange(n, dtype=np.int64)) & 1).astype(np.uint8)


def _signflip_setup(D, alternative):
    """Host-side constants of the sign-flip count: ``S, hi, lo, thresh, margin``.

    ``S`` (the observed sum) and the sum of absolute values are sums of the
    exact split, exact in any order (the array-API path gets the same ones).

    ``thresh``: resampled statistics at least this large count (the observed
    one less the tie tolerance); ``margin``: the float32 error bound (plus
    twice the tolerance) below which a float32 comparison is recomputed.
    """
    P, n = D.shape
    hi, lo = exact_split(D, n)
    # sums that are exact, hence the same in any order and on any device
    S = hi.sum(axis=1) + lo.sum(axis=1)
    absum = np.abs(hi).sum(axis=1) + np.abs(lo).sum(axis=1)
    return (S, hi, lo) + _thresholds(S, absum, n, alternative)


def _thresholds(S, absum, n, alternative):
    """``thresh``, ``margin`` of :func:`_signflip_setup` from the exact sums (host, (P,))."""
    P = S.size
    if alternative == "two-sided":
        obs = np.abs(S)
    elif alternative == "greater":
        obs = S.copy()
    else:
        obs = -S
    tol = 100 * np.finfo(np.float64).eps * np.abs(S) + 4 * n * _U64 * 2 * absum
    if n * _U32 < 0.25:
        gamma = n * _U32 / (1 - n * _U32)
        margin = 2.0 * (gamma * (1 + _U32) + _U32) * absum * 1.01 + 2 * tol
    else:  # millions of queries: no useful float32 bound, decide everything in float64
        margin = np.full(P, np.inf)
    return obs - tol, margin


def _directed(T, alternative):
    if alternative == "two-sided":
        return abs(T)
    if alternative == "greater":
        return T
    return -T


def _signflip_counts_impl(D, alternative, *, n_resamples, exact, batch, gen, keep=False,
                          weights=None, workers=-1):
    r"""Count sign-flip resamples at least as extreme as the observed mean difference.

    ``D`` holds the per-query differences of ``P`` pairs, shape (P, n). All
    pairs share the same sign matrix: enumerated patterns when ``exact``,
    otherwise resamples ``0 .. n_resamples - 1`` of the counter stream whose
    key is drawn once from ``gen`` (a Generator; a ``(k0, k1)`` key is used as
    is). Returns ``(counts, total, exact)``, and with ``keep=True`` (one pair
    only) also ``(sums, n_kept)``: the resampled sums :math:`2\sum_i \beta_i
    d_i - S` in draw order (float64, exact in any summation order, see
    :func:`signflip_null`) and the number of kept signs :math:`\sum_i
    \beta_i` of each resample (int32), or with integer ``weights`` (the
    sizes of clusters whose totals are the columns of ``D``) the kept weight
    :math:`\sum_i \beta_i w_i` (int64).

    For a sign vector with bits :math:`\beta_i \in \{0, 1\}` (sign
    :math:`2\beta_i - 1`) the resampled sum is :math:`2 g - S` with
    :math:`S = \sum_i d_i` and :math:`g = \sum_i \beta_i d_i` computed
    with the exact split (:func:`exact_split`: :math:`g = \beta \cdot hi +
    \beta \cdot lo`, both exact in any order). The products :math:`\beta
    D^T` run first in float32 BLAS; the float32 error is bounded (Higham's
    :math:`\gamma_n`) and every comparison that the bound cannot decide is
    recomputed with the exact split, so the counts are those of the exact-split
    statistic whatever the BLAS, thread count or device (the array-API path
    :func:`signflip_counts_xp` computes that statistic for every resample and
    gives the same counts). Resampled statistics within ``tol`` of the
    observed one count as ties (at least as extreme), ``tol = 100 eps |T| + 4
    n eps sum|d|``.
    """
    P, n = D.shape
    if keep and P != 1:
        raise ParameterError("keep=True stores the null distribution of one pair only")
    S, hi, lo, thresh, margin = _signflip_setup(D, alternative)
    D32 = D.T.astype(np.float32)  # (n, P)
    total = (1 << n) if exact else n_resamples
    key = None if exact else as_key(gen)
    if batch is None:
        batch = default_batch(n, P)
    counts = np.zeros(P, dtype=np.int64)
    HLc = [np.ascontiguousarray(np.stack([hi[c], lo[c]], axis=1)) for c in range(P)]
    if keep:
        sums = np.empty(total)
        kept = np.empty(total, dtype=np.int32 if weights is None else np.int64)
        HL = np.ascontiguousarray(np.vstack([hi, lo]).T)  # (n, 2)
    tick = resampling_ticker(total)  # progress (only inside progress.tracking)
    if not exact and weights is None and n >= FUSED_MIN_QUERIES:
        # the same exact-split statistic for every resample, bits never materialised
        for c in range(P):
            g_hi, g_lo = np.zeros(total), np.zeros(total)
            n_kept = np.zeros(total, dtype=np.int64)
            counter.signflip_dot(key, 0, hi[c], lo[c], g_hi, g_lo, n_kept, workers=workers)
            T = 2.0 * (g_hi + g_lo) - S[c]
            counts[c] = int((_directed(T, alternative) >= thresh[c]).sum())
        tick(total)
        if keep:
            return counts, total, exact, T, n_kept.astype(np.int32)
        return counts, total, exact
    if exact:
        steps = ((start, enumerated_rows(start, min(batch, total - start), n))
                 for start in range(0, total, batch))
    else:
        steps = kernel_rows(signflip_rows, key, total, batch, n, workers)
    for start, bits in steps:
        r = bits.shape[0]
        tick(r)
        G = (bits.astype(np.float32) @ D32).astype(np.float64)  # (r, P)
        diff = _directed(2.0 * G - S, alternative) - thresh
        sure = diff > margin
        unsure = np.abs(diff) <= margin
        counts += sure.sum(axis=0)
        if unsure.any():  # exact-split products (exact in any order: BLAS is fine)
            for c in np.flatnonzero(unsure.any(axis=0)):
                bf = bits[unsure[:, c]].astype(np.float64)
                g = exact_count_products(bf, HLc[c], 1)[:, 0]
                counts[c] += int((_directed(2.0 * g - S[c], alternative) >= thresh[c]).sum())
        if keep:
            g = exact_count_products(bits.astype(np.float64), HL, 1)[:, 0]
            sums[start:start + r] = 2.0 * g - S[0]
            kept[start:start + r] = _kept_weight(bits, weights)
    if keep:
        return counts, total, exact, sums, kept
    return counts, total, exact


def _kept_weight(bits, weights):
    """Number of kept signs of each row of ``bits``, or their total integer weight."""
    if weights is None:
        return bits.sum(axis=1, dtype=np.int32)
    return bits.astype(np.int64) @ weights


def signflip_counts(D, alternative, *, n_resamples, exact, batch, gen, keep=False,
                    weights=None, workers=-1):
    with blas_single_thread():
        return _signflip_counts_impl(D, alternative, n_resamples=n_resamples, exact=exact,
                                     batch=batch, gen=gen, keep=keep, weights=weights,
                                     workers=workers)


signflip_counts.__doc__ = _signflip_counts_impl.__doc__


def signflip_null(d, batch=None, weights=None):
    r"""All :math:`2^n` sign-flip sums of ``d`` (1-D) and their kept-sign counts.

    Returns ``(sums, n_kept)`` in enumeration order (code ``c`` keeps the sign
    of query ``i`` when bit ``i`` of ``c`` is set): the same values
    :func:`signflip_counts` stores with ``keep=True, exact=True`` (with
    integer ``weights``, ``n_kept`` is the kept weight, as there). Memory is
    ``12 * 2**n`` bytes (12 MiB at 20 queries).
    """
    d = np.asarray(d, dtype=np.float64)
    n = d.size
    total = 1 << n
    batch = default_batch(n, 1) if batch is None else batch
    hi, lo = exact_split(d[None, :], n)
    HL = np.ascontiguousarray(np.vstack([hi, lo]).T)
    S = d.sum()
    sums = np.empty(total)
    kept = np.empty(total, dtype=np.int32 if weights is None else np.int64)
    with blas_single_thread():
        for start in range(0, total, batch):
            r = min(batch, total - start)
            bits = enumerated_rows(start, r, n)
            g = exact_count_products(bits.astype(np.float64), HL, 1)[:, 0]
            sums[start:start + r] = 2.0 * g - S
            kept[start:start + r] = _kept_weight(bits, weights)
    return sums, kept


def signflip_pvalues_per_row(D, alternative, n_resamples, exact, key, first_row=0, *,
                             workers=-1):
    """Randomization p-values of each row of ``D`` (r, n), each row with its OWN signs.

    Unlike :func:`signflip_counts` (one sign matrix shared by many pairs), row
    ``j`` uses resamples ``0 .. B - 1`` of its own sub-stream
    ``counter.subkey(key, first_row + j)``, so a batch of rows gets exactly
    what the same rows computed one by one would (used by the power
    simulation, where each simulated experiment is independent). Exact
    enumeration (all ``2**n`` patterns, shared) when ``exact``. Resampled sums
    within ``1e-9 * sum|d|`` of the observed one count as ties. Returns
    ``(count + 1) / (B + 1)``, or ``count / 2**n`` when exact.
    """
    r, n = D.shape
    B = n_resamples
    S = D.sum(axis=1)
    scale = np.abs(D).sum(axis=1)
    tol = 1e-9 * scale
    if exact:
        bits = enumerated_rows(0, 1 << n, n).astype(np.float64)  # shared, deterministic
        G = D @ bits.T  # (r, 2**n)
        total = 1 << n
    else:
        bits = np.stack([signflip_rows(counter.subkey(key, first_row + j), 0, B, n,
                                       workers=workers) for j in range(r)]).astype(np.float64)
        G = np.einsum("rbn,rn->rb", bits, D)
        total = B
    T = 2.0 * G - S[:, None]
    if alternative == "two-sided":
        cnt = (np.abs(T) >= (np.abs(S) - tol)[:, None]).sum(axis=1)
    elif alternative == "greater":
        cnt = (T >= (S - tol)[:, None]).sum(axis=1)
    else:
        cnt = (T <= (S + tol)[:, None]).sum(axis=1)
    if exact:
        return cnt / total
    return (cnt + 1.0) / (total + 1.0)


# --------------------------------------------------------------------------
# bootstrap
# --------------------------------------------------------------------------
def bootstrap_counts(key, start, r, n, *, workers=-1):
    """Multinomial counts (r, n), float64, of bootstrap resamples ``start .. start + r - 1``.

    Draw ``k`` of resample ``b`` is a function of the counter ``(b, k)`` under
    the bootstrap key of ``key`` (see :mod:`mrrstats.stats.counter`), so
    batches and workers never change the counts.
    """
    return counter.bootstrap_counts(key, start, r, n, workers=workers)


# Bootstrap sums are matrix products of integer counts with the data. BLAS may
# sum in any order (depending on the number of rows and threads), so the data
# are split into two parts on power-of-two grids, each small enough that every
# partial sum is exact: the products are then exact in any order, and the
# result (hi + lo, rounded once) is bit-identical for every batch size and
# thread count. The split keeps 2 * (52 - ceil(log2(n + 1))) bits of each row
# below its largest power of two: the data are represented to an absolute
# error below 2 * max|x| * 2**-64 for up to a million queries (2**-77 at 7,000).
def bootstrap_batch(batch, n, m):
    """The batch to use for ``m`` data rows of ``n`` queries (``batch`` if given)."""
    return default_batch(n, 2 * m) if batch is None else batch


def exact_split(X, n):
    """Split rows of ``X`` (m, n) into ``hi``, ``lo`` whose count-weighted sums are exact.

    Any sum of at most ``n`` (with multiplicity) values of ``hi`` (or of
    ``lo``) of one row is exact in float64, so ``counts @ hi.T`` does not depend
    on the summation order.
    """
    X = np.asarray(X, dtype=np.float64)
    q1, q2 = split_grid(np.abs(X).max(axis=1, keepdims=True), n)
    hi = np.rint(X / q1) * q1
    lo = np.rint((X - hi) / q2) * q2
    return hi, lo


def split_grid(amax, n):
    """The two power-of-two grids ``q1``, ``q2`` of :func:`exact_split` for row maxima ``amax``.

    Computed on the host from the largest absolute value of each row (which
    does not depend on any summation order), so a device computing
    ``round(X / q1) * q1`` gets the same split.
    """
    bits = 52 - int(math.ceil(math.log2(n + 1)))
    amax = np.asarray(amax, dtype=np.float64)
    amax = np.where(amax > 0, amax, 1.0)
    q1 = np.exp2(np.ceil(np.log2(amax)) - bits)  # power-of-two grid per row
    return q1, q1 * 2.0**-bits


def exact_count_products(counts, hi_lo_T, m):
    """``counts @ [hi; lo].T`` (both exact), summed to (r, m)."""
    prod = counts @ hi_lo_T
    return prod[:, :m] + prod[:, m:]


def _bootstrap_sums_impl(X, n_resamples, batch, gen, workers=-1):
    """Bootstrap resample sums of each row of ``X`` (m, n), one shared index matrix.

    Returns an (m, B) array of :math:`\\sum_i c_{bi} x_i` where :math:`c_b` are
    the multinomial counts of resample ``b`` (resamples ``0 .. B - 1`` of the
    counter stream whose key is drawn once from ``gen``).
    """
    m, n = X.shape
    key = as_key(gen)
    batch = bootstrap_batch(batch, n, m)
    resource_iv(8 * m * n_resamples, "n_resamples", what=f"{n_resamples:,} resamples")
    out = np.empty((m, n_resamples))
    hi, lo = exact_split(X, n)
    HL = np.ascontiguousarray(np.vstack([hi, lo]).T)  # (n, 2m)
    tick = resampling_ticker(n_resamples)
    for start, counts in kernel_rows(bootstrap_counts, key, n_resamples, batch, n, workers):
        r = counts.shape[0]
        tick(r)
        out[:, start:start + r] = exact_count_products(counts, HL, m).T
    return out


def bootstrap_sums(X, n_resamples, batch, gen, workers=-1):
    with blas_single_thread():
        return _bootstrap_sums_impl(X, n_resamples, batch, gen, workers)


bootstrap_sums.__doc__ = _bootstrap_sums_impl.__doc__


# --------------------------------------------------------------------------
# within-query permutations: randomised Tukey HSD and Westfall-Young max-T
# --------------------------------------------------------------------------
PERMUTATION_BATCH_ELEMENTS = 1 << 22  # scores per batch of permuted (r, n, k) copies


def permutation_batches(X, n_resamples, batch, gen, clusters=None):
    """Yield batches (r, n, k) of X with system labels permuted within each query.

    ``Generator.permuted`` shuffles each (resample, query) row in C order with
    one Fisher-Yates pass, so the stream is consumed in the same order for
    every batch size. With ``clusters`` (the cluster number, 0..G-1, of each
    query) one permutation per (resample, cluster) is drawn the same way and
    applied to every query of the cluster; singleton clusters numbered in
    query order give exactly the unclustered batches.
    """
    n, k = X.shape
    if batch is None:
        batch = max(1, PERMUTATION_BATCH_ELEMENTS // (n * k))
    if clusters is not None:
        clusters = np.asarray(clusters, dtype=np.intp)
        G = int(clusters.max()) + 1
        labels = np.arange(k)
    tick = resampling_ticker(n_resamples)
    for start in range(0, n_resamples, batch):
        r = min(batch, n_resamples - start)
        tick(r)
        if clusters is None:
            yield gen.permuted(np.broadcast_to(X, (r, n, k)), axis=-1)
        else:
            idx = gen.permuted(np.broadcast_to(labels, (r, G, k)), axis=-1)[:, clusters, :]
            yield np.take_along_axis(np.broadcast_to(X, (r, n, k)), idx, axis=-1)


def query_means(perm):
    """Mean over queries (axis 1) of (r, n, k), summed in a fixed sequential order.

    numpy may reorder a reduction over a middle axis depending on the shape,
    which would make results depend (in the last bit) on the batch size.
    """
    acc = perm[:, 0, :].copy()
    for q in range(1, perm.shape[1]):
        acc += perm[:, q, :]
    return acc / perm.shape[1]


# --------------------------------------------------------------------------
# label permutations between two independent samples (unpaired tests)
# --------------------------------------------------------------------------
def random_splits(key, start, r, n, na, *, workers=-1):
    """Which items (mask (r, n)) the first sample gets in random splits ``start..start+r-1``.

    A split puts the ``na`` items with the smallest permutation words
    (:func:`mrrstats.stats.counter.permutation_words`; ties by item number) in
    the first sample, so split ``r`` is a function of the key and ``r`` alone:
    the same for every batch and number of ``workers``. A partition finds the
    ``na``-th smallest word of each row in O(n); a row with a tie at it (probability
    below :math:`n^2/2^{65}`) is ordered in full.
    """
    words = counter.permutation_words(key, start, r, n, workers=workers)
    kth = np.partition(words, na - 1, axis=1)[:, na - 1:na]
    mask = words <= kth
    for row in np.flatnonzero(mask.sum(axis=1) != na):
        mask[row] = False
        mask[row, np.argsort(words[row], kind="stable")[:na]] = True
    return mask


def enumerated_splits(n, na):
    """All ``C(n, na)`` ways to choose ``na`` of ``n`` items, shape (C(n, na), na)."""
    count = math.comb(n, na)
    return np.fromiter((i for c in combinations(range(n), na) for i in c), dtype=np.intp,
                       count=count * na).reshape(count, na)


# --------------------------------------------------------------------------
# the array-API path: torch / CuPy / array-api-strict arrays, where they live
# --------------------------------------------------------------------------
#: temporaries per (resample, query) element of a device step, in units of
#: :data:`mrrstats.devices.BYTES_PER_SCORE` (16 bytes): the Threefry words, counters and
#: masks (int64) and the float64 bits or draws, about 64 bytes
XP_SCORES_PER_ELEMENT = 4


def array_namespace_of(*arrays):
    """The array-API namespace of the first non-NumPy array among ``arrays``, or None.

    NumPy arrays, lists, scalars, pandas objects and None give None (the host path).
    """
    try:
        from array_api_compat import array_namespace, is_array_api_obj, is_numpy_array
    except ImportError:  # pragma: no cover - array-api-compat is a dependency
        return None
    for a in arrays:
        if a is None or isinstance(a, (np.ndarray, np.generic, list, tuple)):
            continue
        if is_array_api_obj(a) and not is_numpy_array(a):
            return array_namespace(a)
    return None


def to_host(x) -> np.ndarray:
    """An array-API array (a small result, or per-query values) as a NumPy array."""
    if isinstance(x, np.ndarray):
        return x
    from array_api_compat import is_cupy_array, is_torch_array

    if is_torch_array(x):
        return x.detach().cpu().numpy()
    if is_cupy_array(x):  # pragma: no cover - needs CuPy
        return x.get()
    try:
        return np.asarray(x)
    except (TypeError, ValueError, RuntimeError):
        return np.from_dlpack(x)


def device_of(x):
    """The device of an array-API array."""
    from array_api_compat import device

    return device(x)


def xp_batch(batch, n, like, total):
    """Resamples per step on a device: ``batch`` if given, else what half its free memory holds.

    The one chunk rule of :func:`mrrstats.devices.rows_per_chunk` (the free
    memory where ``like`` lives, :func:`mrrstats.devices.free_bytes`), with
    ``n`` queries of :data:`XP_SCORES_PER_ELEMENT` scores per resample; at
    most ``total`` resamples. The numbers never depend on the step.
    """
    if batch is not None:
        return batch
    return rows_per_chunk(like, max(1, total), max(1, n) * XP_SCORES_PER_ELEMENT)


def _split_xp(X, xp):
    """:func:`exact_split` of the rows of a device array (grids from the host, same split)."""
    n = X.shape[1]
    q1, q2 = split_grid(to_host(xp.max(xp.abs(X), axis=1))[:, None], n)
    dev = device_of(X)
    q1 = xp.asarray(q1, device=dev)
    q2 = xp.asarray(q2, device=dev)
    hi = xp.round(X / q1) * q1
    lo = xp.round((X - hi) / q2) * q2
    return hi, lo


def signflip_counts_xp(D, alternative, *, n_resamples, batch, gen, keep=False, xp):
    """:func:`signflip_counts` (Monte Carlo) on a device array ``D`` (P, n), float64.

    The sign bits come from the array-API Threefry (the same bits as the
    numba kernel), the statistics are the exact-split products (exact in any
    order, so the counts, sums and kept signs equal the host path's for the
    same seed). Only ``P`` counts (and with ``keep`` the ``B`` sums and kept
    signs) come back to the host. Returns what :func:`signflip_counts` returns.
    """
    P, n = D.shape
    if keep and P != 1:
        raise ParameterError("keep=True stores the null distribution of one pair only")
    dev = device_of(D)
    hi, lo = _split_xp(D, xp)
    S = to_host(xp.sum(hi, axis=1) + xp.sum(lo, axis=1))
    absum = to_host(xp.sum(xp.abs(hi), axis=1) + xp.sum(xp.abs(lo), axis=1))
    thresh, _ = _thresholds(S, absum, n, alternative)
    S_d = xp.asarray(S, device=dev)
    th_d = xp.asarray(thresh, device=dev)
    HL = xp.permute_dims(xp.concat([hi, lo], axis=0), (1, 0))  # (n, 2P)
    key = as_key(gen)
    total = n_resamples
    batch = xp_batch(batch, n, D, total)
    counts = xp.zeros(P, dtype=xp.int64, device=dev)
    sums, kept = [], []
    tick = resampling_ticker(total)
    for start in range(0, total, batch):
        r = min(batch, total - start)
        tick(r)
        bits = counter.signflip_bits_xp(key, start, r, n, xp=xp, device=dev, dtype=xp.float64)
        G = bits @ HL
        T = 2.0 * (G[:, :P] + G[:, P:]) - S_d
        counts = counts + xp.sum(xp.astype(_directed(T, alternative) >= th_d, xp.int64),
                                 axis=0)
        if keep:
            sums.append(to_host(T[:, 0]))
            kept.append(to_host(xp.sum(bits, axis=1)))
    counts = to_host(counts).astype(np.int64)
    if keep:
        return (counts, total, False, np.concatenate(sums),
                np.concatenate(kept).astype(np.int32))
    return counts, total, False


def bootstrap_sums_xp(X, n_resamples, batch, gen, *, xp):
    """:func:`bootstrap_sums` of a device array ``X`` (m, n): the same (m, B) sums, on the host.

    The draws are the array-API Threefry's (the numba kernel's counts are
    their histogram) and each sum is a sum of exact-split values, exact in any
    order, so the result equals the host path's bit for bit.
    """
    m, n = X.shape
    dev = device_of(X)
    hi, lo = _split_xp(X, xp)
    key = as_key(gen)
    batch = xp_batch(batch, n, X, n_resamples)
    resource_iv(8 * m * n_resamples, "n_resamples", what=f"{n_resamples:,} resamples")
    out = np.empty((m, n_resamples))
    tick = resampling_ticker(n_resamples)
    for start in range(0, n_resamples, batch):
        r = min(batch, n_resamples - start)
        tick(r)
        idx = xp.reshape(counter.bootstrap_indices_xp(key, start, r, n, xp=xp, device=dev),
                         (-1,))
        for j in range(m):
            sh = xp.sum(xp.reshape(xp.take(hi[j, :], idx, axis=0), (r, n)), axis=1)
            sl = xp.sum(xp.reshape(xp.take(lo[j, :], idx, axis=0), (r, n)), axis=1)
            out[j, start:start + r] = to_host(sh + sl)
    return out


# --------------------------------------------------------------------------
# blocks of queries: memory O(resamples + block), the in-memory numbers
# --------------------------------------------------------------------------
#: numpy's PW_BLOCKSIZE: ``numpy.sum`` adds at most this many values with 8 accumulators
_PW_BLOCK = 128


class PairwiseSum:
    """``numpy.sum`` of a vector of ``n`` values fed in consecutive blocks, bit for bit.

    ``numpy.add.reduce`` of a contiguous float64 vector sums pairwise: a
    vector longer than 128 is split after ``n // 2`` rounded down to a
    multiple of 8 and the two halves' sums are added; shorter pieces are
    summed by numpy itself. The tree depends on ``n`` alone, so the same
    tree is walked here block by block (pieces that lie inside the data at
    hand are summed by ``numpy.sum``, which walks the same sub-tree; a leaf
    cut by a block boundary waits for the next block), with memory
    ``O(block + 128)``. ``tests/stats/test_blocked.py`` checks the result
    against ``numpy.sum`` of the whole vector for many lengths and blocks.

    >>> import numpy as np
    >>> x = np.random.default_rng(0).random(1000)
    >>> acc = PairwiseSum(x.size)
    >>> for blk in np.array_split(x, 7):
    ...     acc.add(blk)
    >>> bool(acc.value() == np.sum(x))
    True
    """

    def __init__(self, n):
        self.n = int(n)
        self._buf = np.empty(0)
        self._pos = 0  # global index of self._buf[0]
        self._end = 0  # values received
        self._result = None
        self._walk = self._node(0, self.n)
        next(self._walk)  # runs to the first request for data

    def _take(self, lo, hi):
        part = self._buf[lo - self._pos:hi - self._pos]
        v = float(np.add.reduce(part))
        self._buf = self._buf[hi - self._pos:]
        self._pos = hi
        return v

    def _node(self, lo, hi):
        if hi <= self._end:
            return self._take(lo, hi)
        if hi - lo <= _PW_BLOCK:
            while self._end < hi:
                yield
            return self._take(lo, hi)
        half = (hi - lo) // 2
        half -= half % 8
        left = yield from self._node(lo, lo + half)
        right = yield from self._node(lo + half, hi)
        return left + right

    def add(self, blk):
        """Feed the next values (a 1-D float64 array)."""
        blk = np.asarray(blk, dtype=np.float64)
        if not blk.size:
            return
        if self._end + blk.size > self.n:
            raise ParameterError(f"more than the {self.n} values announced")
        self._buf = np.concatenate([self._buf, blk]) if self._buf.size else blk
        self._end += blk.size
        try:
            self._walk.send(None)
        except StopIteration as done:
            self._result = done.value

    def value(self):
        """The sum, equal to ``numpy.sum`` of the whole vector (after all ``n`` values)."""
        if self._result is None:
            raise ParameterError(f"only {self._end} of the {self.n} values were fed")
        return 0.0 + self._result  # numpy starts from the identity 0.0


def _block_source(blocks):
    """A function returning a fresh iterator over the blocks (two passes are needed)."""
    if callable(blocks):
        return blocks
    blocks = list(blocks)
    return lambda: iter(blocks)


def _block_max(source):
    n, amax = 0, 0.0
    for blk in source():
        blk = np.asarray(blk, dtype=np.float64)
        if blk.ndim != 1:
            raise ParameterError(
                "every block must be 1-D (per-query values of consecutive queries)")
        if not np.isfinite(blk).all():
            raise ParameterError("the per-query values must be finite")
        n += blk.size
        if blk.size:
            amax = max(amax, float(np.abs(blk).max()))
    if n == 0:
        raise ParameterError("the blocks hold no query")
    return n, amax


def _blocks_seen(n, seen):
    if seen != n:
        raise ParameterError(f"the blocks changed between passes: {n} queries, then {seen}; the "
                         "source must give the same blocks every time it is read")


def _split_blocks(source, n, q1, q2, total):
    """Yield ``(offset, hi, lo)`` of each non-empty block, its exact split on the grid
    ``q1, q2``; ``total`` (a :class:`PairwiseSum`) adds the raw values; the blocks
    must hold ``n`` values in all (checked as they come and at the end)."""
    offset = 0
    for blk in source():
        blk = np.asarray(blk, dtype=np.float64)
        m = blk.size
        if not m:
            continue
        if offset + m > n:
            _blocks_seen(n, offset + m)
        total.add(blk)
        hi = np.rint(blk / q1) * q1
        yield offset, hi, np.rint((blk - hi) / q2) * q2
        offset += m
    _blocks_seen(n, offset)


def signflip_counts_blocked(blocks, alternative, *, n_resamples, gen, workers=-1, size=None):
    r"""Monte-Carlo sign-flip test of one pair over query blocks.

    Returns ``(count, total, sums, kept, dsum)``: the resamples at least as
    extreme, their number, the resampled sums and kept-sign counts (draw
    order) and ``numpy.sum`` of the differences (:class:`PairwiseSum`).

    ``blocks``: a sequence of 1-D arrays (the per-query differences of
    consecutive queries, in order), or a function returning a new iterator
    over them (read twice: once for the size and the largest value, which
    fix the exact-split grid, once to accumulate; ``size=(n, amax)`` skips
    the first pass). Query ``i`` (global number) of resample ``r`` gets the
    counter stream's bit, so each block's products :math:`\sum_{i \in blk}
    \beta_{ri} hi_i` are exact (one fused kernel, no bit matrix) and add up
    exactly across blocks: ``count``, the resampled sums and kept-sign
    counts equal those of :func:`signflip_counts` with ``keep=True`` on the
    whole vector, for the same ``gen``, bit for bit. Memory: ``O(B + block)``.
    """
    source = _block_source(blocks)
    n, amax = _block_max(source) if size is None else size
    q1, q2 = split_grid(np.array([[amax]]), n)
    q1, q2 = float(q1[0, 0]), float(q2[0, 0])
    key = as_key(gen)
    B = n_resamples
    resource_iv(8 * 3 * B, "n_resamples", what=f"{B:,} resamples")
    g_hi = np.zeros(B)
    g_lo = np.zeros(B)
    kept = np.zeros(B, dtype=np.int64)
    S_hi = S_lo = A_hi = A_lo = 0.0
    dsum = PairwiseSum(n)
    tick = resampling_ticker(B)
    for offset, hi, lo in _split_blocks(source, n, q1, q2, dsum):
        S_hi += hi.sum()
        S_lo += lo.sum()
        A_hi += np.abs(hi).sum()
        A_lo += np.abs(lo).sum()
        counter.signflip_dot(key, 0, hi, lo, g_hi, g_lo, kept, offset=offset, workers=workers)
    tick(B)
    S = np.array([S_hi + S_lo])
    thresh, _ = _thresholds(S, np.array([A_hi + A_lo]), n, alternative)
    sums = 2.0 * (g_hi + g_lo) - S[0]
    count = int((_directed(sums, alternative) >= thresh[0]).sum())
    return count, B, sums, kept.astype(np.int32), dsum.value()


def _poisson_grid(amax, n):
    """The exact-split grid of the Poisson bootstrap: sums of ``16 n`` values (weights <= 13)."""
    q1, q2 = split_grid(np.asarray(amax, dtype=np.float64).reshape(-1, 1), 16 * n)
    return q1, q2


def poisson_bootstrap_sums(X, n_resamples, gen, *, offset=0, key=None, workers=-1,
                           grid=None):
    r"""Poisson-bootstrap sums :math:`\sum_i w_{bi} x_i` (m, B) and weight totals (B,).

    The Poisson(1) weights come from the counter stream (Poisson domain;
    query numbers start at ``offset``). The data are split on the grid of
    :func:`exact_split` for ``16 n`` values (``grid`` fixes it, for blocks),
    so the products are exact for any weights (at most 13 each): blocks of
    queries add up to the in-memory sums bit for bit. (The multinomial
    bootstrap cannot be cut into blocks: a draw can land on any query.)
    One fused kernel per row (:func:`mrrstats.stats.counter.poisson_dot`):
    memory ``O(B + n)``, no weight matrix.
    """
    X = np.atleast_2d(np.asarray(X, dtype=np.float64))
    m, n = X.shape
    key = as_key(gen) if key is None else key
    if grid is None:
        grid = _poisson_grid(np.abs(X).max(axis=1), n)
    q1, q2 = grid
    hi = np.rint(X / q1) * q1
    lo = np.rint((X - hi) / q2) * q2
    resource_iv(8 * (m + 3) * n_resamples, "n_resamples", what=f"{n_resamples:,} resamples")
    sums = np.empty((m, n_resamples))
    tick = resampling_ticker(n_resamples)
    for j in range(m):
        s_hi = np.zeros(n_resamples)
        s_lo = np.zeros(n_resamples)
        wsum = np.zeros(n_resamples)
        counter.poisson_dot(key, 0, hi[j], lo[j], s_hi, s_lo, wsum, offset=offset,
                            workers=workers)
        sums[j] = s_hi + s_lo
    tick(n_resamples)
    return sums, wsum


def poisson_bootstrap_blocked(blocks, n_resamples, gen, *, workers=-1, size=None):
    r"""Poisson-bootstrap sums and weight totals over query blocks: ``(sums, wsum, xsum)``.

    ``blocks`` and ``size`` as in :func:`signflip_counts_blocked`; ``xsum``
    is ``numpy.sum`` of the values (:class:`PairwiseSum`). ``sums`` and
    ``wsum`` equal :func:`poisson_bootstrap_sums` on the whole vector with
    the same ``gen``, bit for bit; memory ``O(B + block)``.
    """
    source = _block_source(blocks)
    n, amax = _block_max(source) if size is None else size
    grid = _poisson_grid(amax, n)
    q1, q2 = float(grid[0][0, 0]), float(grid[1][0, 0])
    key = as_key(gen)
    resource_iv(8 * 3 * n_resamples, "n_resamples", what=f"{n_resamples:,} resamples")
    s_hi = np.zeros(n_resamples)
    s_lo = np.zeros(n_resamples)
    wsum = np.zeros(n_resamples)
    xsum = PairwiseSum(n)
    tick = resampling_ticker(n_resamples)
    for offset, hi, lo in _split_blocks(source, n, q1, q2, xsum):
        counter.poisson_dot(key, 0, hi, lo, s_hi, s_lo, wsum, offset=offset, workers=workers)
    tick(n_resamples)
    return s_hi + s_lo, wsum, xsum.value()
