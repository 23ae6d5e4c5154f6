r"""Statistics over 10^6-10^8 queries, in blocks: the in-memory numbers, memory O(B + block).

:func:`randomization_test` and :func:`bootstrap_ci` take the per-query values
of one or two systems from a *source* read one block of queries at a time
and return the results of the in-memory functions
(:class:`~mrrstats.stats.randomization.RandomizationTestResult`,
:class:`~mrrstats.stats.bootstrap.BootstrapCIResult`, with their null or
bootstrap distributions and ``confidence_interval`` methods), equal bit for
bit to :func:`mrrstats.randomization_test` and
``mrrstats.bootstrap_ci(..., scheme="poisson")`` on the whole vectors for the
same seed. Every random number is a function of the seed, the resample and the
query number (:mod:`mrrstats.stats.counter`), every sum is exact or taken in
``numpy.sum``'s order, so the blocks never show in the numbers.

Sources (``a``, with ``b`` for two aligned arrays):

* two 1-D arrays or ``numpy.memmap`` (``a``, ``b``), or one (``a``: the values
  of one system for :func:`bootstrap_ci`, the differences ``a - b`` for
  :func:`randomization_test`), sliced into ``batch`` queries;
* a Parquet file, directory or glob (``str`` or path) with ``columns=`` naming
  one or two value columns, read with ``pyarrow.dataset`` in batches of at
  most ``batch`` rows (files in sorted order, rows in file order);
* a Dask array (with ``b``) or DataFrame (with ``columns=``), one chunk or
  partition at a time;
* a function returning a new iterator of blocks, or a list of blocks; a block
  is a 1-D array or a pair ``(a_block, b_block)`` of consecutive queries.

The source is read two (test) or three (interval) times: once to count the
queries, check them and find the largest value (which fixes the exact-split
grid), once to resample, and for the interval once more for the BCa
acceleration. The multinomial bootstrap cannot be cut into blocks (a draw can
land on any query): the blocked interval uses Poisson(1) weights
(``scheme="poisson"``).

Reached as ``mrrstats.blocked`` (this module). It belongs with the larger
than memory engines of :mod:`mrrstats.scale` in spirit, but lives in
:mod:`mrrstats.stats` because ``scale`` is imported by ``metrics``, which
``stats`` imports: ``scale`` importing ``stats`` would close a cycle.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..defaults import BOOTSTRAP_METHOD_FALLBACK
from ..deprecation import renamed_parameters
from ..errors import ParameterError, ParameterTypeError
from ..progress import progress_bar
from ..validation import (
    alternative_iv,
    confidence_level_iv,
    int_iv,
    missing_iv,
    n_resamples_iv,
    rng_iv,
    workers_iv,
)
from .bootstrap import bootstrap_ci_blocks
from .intervals import CI_METHODS
from .randomization import randomization_test_blocks

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Literal

    from .._typing import Alternative, BlockSource, BootstrapMethod, Missing, Seed
    from .bootstrap import BootstrapCIResult
    from .randomization import RandomizationTestResult

__all__ = ["randomization_test", "bootstrap_ci", "BATCH"]

#: queries per block by default (``batch=None``): 8 MiB per float64 column, far above the
#: per-block overheads
BATCH = 1 << 20
#: the name of :data:`BATCH` in mrrstats 0.1
BLOCK_SIZE = BATCH


@dataclass
class _Source:
    """Blocks of ``(a, b)`` float64 values (``b`` None for one column) with their names."""

    blocks: object  # function: a new iterator of (a_block, b_block or None)
    names: tuple  # names of the columns, for errors
    where: str  # the source, for errors
    paired: bool


def _float(x, what):
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise ParameterTypeError(f"{what} must hold numbers") from None
    if arr.ndim != 1:
        raise ParameterError(f"{what} must be 1-D (one value per query), got shape {arr.shape}")
    return arr


def _is_dask(x):
    return type(x).__module__.split(".")[0] in ("dask", "dask_expr")


def _array_source(a, b, batch):
    if getattr(a, "ndim", 1) != 1 or (b is not None and getattr(b, "ndim", 1) != 1):
        raise ParameterError("`a` and `b` must be 1-D (one value per query)")
    if not hasattr(a, "__getitem__") or not hasattr(a, "__len__"):
        raise ParameterTypeError(f"`a` must be an array, a path or a source of blocks, got "
                        f"{type(a).__name__}")
    if not isinstance(a, np.ndarray):
        a = _float(a, "`a`")
    if b is not None and not isinstance(b, np.ndarray):
        b = _float(b, "`b`")
    if b is not None and len(a) != len(b):
        raise ParameterError(f"`a` and `b` must have the same length (aligned queries), got "
                         f"{len(a)} and {len(b)}")

    def blocks():
        for i in range(0, len(a), batch):
            yield (_float(a[i:i + batch], "`a`"),
                   None if b is None else _float(b[i:i + batch], "`b`"))

    return _Source(blocks, ("a", "b"), "the arrays", b is not None)


def _parquet_source(path, columns, batch):
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    text = os.fspath(path)
    if any(c in text for c in "*?["):
        files = sorted(glob.glob(text))
        if not files:
            raise FileNotFoundError(f"no file matches {text!r}")
        target = files
    elif not os.path.exists(text):
        raise FileNotFoundError(f"no such file or directory: {text!r}")
    else:
        target = text
    dataset = ds.dataset(target, format="parquet")
    cols = _columns_iv(columns, text)
    missing = [c for c in cols if c not in dataset.schema.names]
    if missing:
        raise ParameterError(f"column {missing[0]!r} is not in {text} (its columns: "
                         f"{', '.join(dataset.schema.names)})")

    def blocks():
        # file by file, row group by row group (pyarrow.parquet's batch reader): the
        # dataset scanner reads ahead many batches, about 12 blocks at 10^7 rows
        for f in dataset.files:
            with pq.ParquetFile(f, filesystem=dataset.filesystem) as pf:
                yield from _batches(pf.iter_batches(batch_size=batch, columns=list(cols)))

    def _batches(batches):
        for record_batch in batches:
            vals = []
            for c in cols:
                col = record_batch.column(c)
                if not (pa.types.is_floating(col.type) or pa.types.is_integer(col.type)
                        or pa.types.is_decimal(col.type)):
                    raise ParameterTypeError(
                        f"column {c!r} of {text} must hold numbers, got {col.type}")
                vals.append(pc.cast(col, pa.float64()).to_numpy(zero_copy_only=False))
            yield vals[0], (vals[1] if len(vals) > 1 else None)

    return _Source(blocks, tuple(f"column {c!r}" for c in cols), text, len(cols) == 2)


def _columns_iv(columns, where):
    if columns is None:
        raise ParameterError(f"name the value columns of {where}: columns=('a', 'b') for two "
                         "systems, or columns=('x',) for one")
    cols = (columns,) if isinstance(columns, str) else tuple(columns)
    if len(cols) not in (1, 2) or not all(isinstance(c, str) for c in cols):
        raise ParameterError(f"`columns` must name one or two columns, got {columns!r}")
    return cols


def _dask_source(a, b, columns):
    if hasattr(a, "columns"):  # a Dask DataFrame
        cols = _columns_iv(columns, "the Dask DataFrame")
        absent = [c for c in cols if c not in a.columns]
        if absent:
            raise ParameterError(f"column {absent[0]!r} is not in the Dask DataFrame (its "
                             f"columns: {', '.join(map(str, a.columns))})")
        frame = a[list(cols)]

        def blocks():
            for i in range(frame.npartitions):
                part = frame.partitions[i].compute()
                vals = [part[c].to_numpy(dtype=np.float64, na_value=np.nan) for c in cols]
                yield vals[0], (vals[1] if len(vals) > 1 else None)

        return _Source(blocks, tuple(f"column {c!r}" for c in cols), "the Dask DataFrame",
                       len(cols) == 2)
    if a.ndim != 1 or (b is not None and b.ndim != 1):
        raise ParameterError("the Dask arrays must be 1-D (one value per query)")
    if b is not None:
        if a.shape[0] != b.shape[0]:
            raise ParameterError(f"`a` and `b` must have the same length (aligned queries), got "
                             f"{a.shape[0]} and {b.shape[0]}")
        b = b.rechunk(a.chunks)

    def blocks():
        for i in range(a.numblocks[0]):
            yield (_float(a.blocks[i].compute(), "`a`"),
                   None if b is None else _float(b.blocks[i].compute(), "`b`"))

    return _Source(blocks, ("a", "b"), "the Dask arrays", b is not None)


def _block_pairs(blocks):
    """A block source (function or list of blocks) as a function giving (a, b-or-None)."""
    if callable(blocks):
        make = blocks
    else:
        items = list(blocks)

        def make():
            return iter(items)

    def pairs():
        it = make()
        if iter(it) is not it:
            it = iter(it)
        for k, blk in enumerate(it):
            if isinstance(blk, tuple | list) and len(blk) == 2 and np.ndim(blk[0]) == 1:
                a, b = _float(blk[0], f"block {k} (a)"), _float(blk[1], f"block {k} (b)")
                if a.size != b.size:
                    raise ParameterError(f"block {k}: a and b have different lengths, {a.size} "
                                     f"and {b.size}")
                yield a, b
            else:
                yield _float(blk, f"block {k}"), None

    return pairs


def _source(a, b, columns, batch):
    """The source of :mod:`mrrstats.stats.blocked` (see the module docstring)."""
    if isinstance(a, str | os.PathLike):
        if b is not None:
            raise ParameterTypeError("a Parquet source holds both systems: name them with "
                            "columns=('a', 'b'), and leave `b` out")
        return _parquet_source(a, columns, batch)
    if columns is not None and not _is_dask(a):
        raise ParameterTypeError(
            "`columns` names the columns of a Parquet source or a Dask DataFrame")
    if _is_dask(a):
        return _dask_source(a, b, columns)
    if b is not None or isinstance(a, np.ndarray):
        return _array_source(a, b, batch)
    if callable(a):
        return _Source(_block_pairs(a), ("a", "b"), "the blocks", None)
    if iter(a) is a:
        raise ParameterTypeError(
            "a one-shot iterator can be read only once, and the blocks are read "
            "two or three times: pass a function returning a new iterator")
    items = list(a)
    if items and all(np.ndim(x) == 0 for x in items):  # a plain list of numbers
        return _array_source(np.asarray(items, dtype=np.float64), None, batch)
    return _Source(_block_pairs(items), ("a", "b"), "the blocks", None)


def _values(src, missing, min_n, progress, desc):
    """The validated blocks of values (``a - b`` for pairs), their number and largest size.

    Returns ``(blocks, (n, amax))``; ``blocks()`` gives the 1-D float64
    blocks the engine reads (NaN pairs dropped under ``missing="drop"``).
    This first pass checks every value and names the first bad one.
    """
    def clean(check):
        start, paired = 0, None
        for a, b in src.blocks():
            if check:
                if paired is not None and paired != (b is not None):
                    raise ParameterError(f"every block of {src.where} must be a pair (a, b), "
                                     "or none")
                paired = b is not None
            bad = np.isnan(a) if b is None else (np.isnan(a) | np.isnan(b))
            if bad.any():
                if missing == "raise" and check:
                    i = int(np.flatnonzero(bad)[0])
                    col = src.names[0] if np.isnan(a[i]) else src.names[1]
                    raise ParameterError(
                        f"{col} of {src.where} has a missing value (NaN) at query "
                        f"{start + i}; pass missing='drop' to drop such queries")
                a = a[~bad]
                b = None if b is None else b[~bad]
            if check:
                for x, name in ((a, src.names[0]), (b, src.names[-1])):
                    if x is not None and np.isinf(x).any():
                        i = int(np.flatnonzero(np.isinf(x))[0])
                        raise ParameterError(f"{name} of {src.where} has a non-finite value "
                                         f"({x[i]}) at query {start + i} (counting kept "
                                         "queries): the values must be finite")
            start += bad.size
            yield a if b is None else a - b

    n, amax = 0, 0.0
    with progress_bar(desc=f"{desc}: checking", unit=" queries", progress=progress) as bar:
        for d in clean(True):
            n += d.size
            if d.size:
                amax = max(amax, float(np.abs(d).max()))
            bar.update(d.size)
    if n < min_n:
        raise ParameterError(f"{src.where} need at least {min_n} queries, got {n}")

    def blocks():
        return clean(False)

    return blocks, (n, amax)


def _counting(blocks, bar):
    def counted():
        for blk in blocks():
            yield blk
            bar.update(blk.size)
    return counted


@renamed_parameters(block_size="batch")
def randomization_test(a: BlockSource, b: BlockSource | None = None, *,
                       columns: str | Sequence[str] | None = None,
                       alternative: Alternative = "two-sided", n_resamples: int = 10000,
                       exact: bool | None = None, batch: int | None = None,
                       missing: Missing = "raise", workers: int = -1, progress: bool | None = None,
                       rng: Seed = None) -> RandomizationTestResult:
    r"""Fisher's paired randomization test over queries read in blocks (memory O(B + block)).

    The result is that of :func:`mrrstats.randomization_test` on the whole
    vectors, bit for bit, for the same ``rng``: statistic, p-value,
    ``null_distribution`` and ``confidence_interval()``.

    Parameters
    ----------
    a : array_like, memmap, path, Dask array or DataFrame, or blocks
        The per-query scores of the first system (with ``b``), a Parquet
        file, directory or glob (with ``columns``), or blocks (see the module
        docstring). One column without ``b`` holds the differences ``a - b``.
    b : array_like or memmap, optional
        The second system's scores, aligned with ``a``.
    columns : str or sequence of str, keyword-only
        The one or two value columns of a Parquet source or Dask DataFrame.
    alternative, n_resamples, exact, missing, workers, rng : keyword-only
        As in :func:`mrrstats.randomization_test`. A test that would enumerate
        all :math:`2^n` sign vectors (``exact``) joins the (few) queries.
    batch : int or None, keyword-only
        Queries per block of an array source or Parquet batch (default
        :data:`BATCH`; ``block_size=`` in mrrstats 0.1); the numbers never
        depend on it.
    progress : bool or None, keyword-only
        Show the queries read on a bar (default: on a terminal, not in CI).

    Returns
    -------
    RandomizationTestResult

    Examples
    --------
    >>> import numpy as np, mrrstats
    >>> rng = np.random.default_rng(0)
    >>> a, b = rng.random(5000), rng.random(5000)
    >>> res = mrrstats.blocked.randomization_test(a, b, batch=1000, n_resamples=999, rng=1)
    >>> ref = mrrstats.randomization_test(a, b, n_resamples=999, rng=1)
    >>> res.pvalue == ref.pvalue, res.confidence_interval() == ref.confidence_interval()
    (True, True)
    """
    alternative_iv(alternative)
    n_resamples = n_resamples_iv(n_resamples)
    if exact is not None and not isinstance(exact, bool | np.bool_):
        raise ParameterTypeError(f"`exact` must be None, True or False, got {exact!r}")
    batch = BATCH if batch is None else int_iv(batch, "batch")
    missing_iv(missing)
    workers = workers_iv(workers)
    src = _source(a, b, columns, batch)
    blocks, size = _values(src, missing, 1, progress, "randomization test")
    if exact and size[0] > 30:
        raise ParameterError(f"`exact` enumeration of 2**{size[0]} sign vectors is too large; use "
                         "exact=None or False for more than 30 queries")
    gen, seed = rng_iv(rng)
    with progress_bar(total=size[0], desc="randomization test: resampling", unit=" queries",
                      progress=progress) as bar:
        return randomization_test_blocks(_counting(blocks, bar), size, alternative=alternative,
                                         n_resamples=n_resamples, exact=exact, gen=gen,
                                         seed=seed, workers=workers)


@renamed_parameters(block_size="batch")
def bootstrap_ci(a: BlockSource, b: BlockSource | None = None, *,
                 columns: str | Sequence[str] | None = None,
                 method: BootstrapMethod = BOOTSTRAP_METHOD_FALLBACK,
                 confidence_level: float = 0.95, alternative: Alternative = "two-sided",
                 n_resamples: int = 10000, batch: int | None = None, missing: Missing = "raise",
                 scheme: Literal["poisson"] = "poisson", workers: int = -1,
                 progress: bool | None = None, rng: Seed = None) -> BootstrapCIResult:
    r"""Poisson-bootstrap interval of a mean or paired mean difference, queries in blocks.

    The result equals ``mrrstats.bootstrap_ci(a, b, scheme="poisson", ...)``
    on the whole vectors, bit for bit, for the same ``rng`` (statistic,
    ``bootstrap_distribution``, acceleration, every interval); memory
    O(B + block).

    Parameters
    ----------
    a, b, columns, batch, progress
        As in :func:`randomization_test`; one column without ``b`` holds one
        system's scores (the interval is for their mean).
    method, confidence_level, alternative, n_resamples, missing, workers, rng : keyword-only
        As in :func:`mrrstats.bootstrap_ci`; ``method`` is ``"bca"``, ``"percentile"`` or
        ``"basic"``, BCa by default (:data:`mrrstats.defaults.BOOTSTRAP_METHOD_FALLBACK`,
        as ``bootstrap_ci(scheme="poisson")``: the Poisson blocks keep only the resampled
        means, not the standard errors of the studentized interval).
    scheme : {"poisson"}, keyword-only
        The only scheme that splits into blocks: each query gets a Poisson(1)
        weight of its own. A multinomial draw can land on any query, so
        ``"multinomial"`` is refused (run :func:`mrrstats.bootstrap_ci` in
        memory for it).

    Returns
    -------
    BootstrapCIResult

    Examples
    --------
    >>> import numpy as np, mrrstats
    >>> x = np.random.default_rng(0).random(5000)
    >>> res = mrrstats.blocked.bootstrap_ci(x, batch=999, n_resamples=500, rng=1)
    >>> ref = mrrstats.bootstrap_ci(x, n_resamples=500, scheme="poisson", rng=1)
    >>> res.confidence_interval() == ref.confidence_interval()
    True
    """
    if not isinstance(method, str | None) or method not in CI_METHODS:
        raise ParameterError(f"`method` must be one of {CI_METHODS}, got {method!r}")
    cl = confidence_level_iv(confidence_level)
    alternative_iv(alternative)
    n_resamples = n_resamples_iv(n_resamples)
    if scheme != "poisson":
        raise ParameterError(
            f"scheme={scheme!r} cannot run in blocks: a multinomial draw can land "
            "on any query; use scheme='poisson' (the default here) or "
            "mrrstats.bootstrap_ci in memory")
    batch = BATCH if batch is None else int_iv(batch, "batch")
    missing_iv(missing)
    workers = workers_iv(workers)
    src = _source(a, b, columns, batch)
    blocks, size = _values(src, missing, 2, progress, "bootstrap interval")
    gen, seed = rng_iv(rng)
    with progress_bar(total=2 * size[0], desc="bootstrap interval: resampling",
                      unit=" queries", progress=progress) as bar:
        return bootstrap_ci_blocks(_counting(blocks, bar), size, method=method,
                                   confidence_level=cl, alternative=alternative,
                                   n_resamples=n_resamples, gen=gen, seed=seed,
                                   workers=workers)
