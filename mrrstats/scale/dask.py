"""Dask: runs as Dask DataFrames or Parquet files, evaluated partition by partition.

The run's partitions must hold whole queries; when a query spans partitions
the run is shuffled by query first, with the original row order carried along
(ties between equal scores keep file order, as in memory). Each partition is
evaluated on a worker by the one per-query evaluator; the qrels travel once
to each worker (scattered with ``broadcast=True`` when a distributed client is
active); the per-query table (a few numbers per query) is gathered.

Nothing here starts a cluster: the current Dask scheduler is used, whatever
it is (threads, a ``distributed.LocalCluster``, ``dask-jobqueue``,
``dask-kubernetes``, Coiled...).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np

from ..errors import ParameterError, ParameterTypeError
from ..lazy import deferred
from .stream import _run_name, is_parquet_source, run_from_table

if TYPE_CHECKING:
    import pandas as pd
else:  # imported when first used: the TREC-file path builds no DataFrame
    pd = deferred("pandas")

__all__ = ["dask_groups"]

_ROW = "__mrrstats_row__"


def _client():
    try:
        from distributed import get_client
    except ImportError:  # pragma: no cover - dask without distributed
        return None
    try:
        return get_client()
    except ValueError:
        return None


#: Rows of queries that span partitions gathered into one group without a shuffle
#: (a sorted run cut into files); beyond that the run is shuffled by query.
SPLIT_ROWS_GATHERED = 1_000_000


def _query_counts(frame: pd.DataFrame) -> pd.Series:
    return frame["query"].astype(str).value_counts(sort=False)


def _plan(counts) -> tuple[str, set]:
    """``("whole" | "gather" | "shuffle", queries spanning partitions)``."""
    allc = pd.concat(counts) if counts else pd.Series(dtype=np.int64)
    spread = allc.index.value_counts()
    split = set(spread.index[spread.to_numpy() > 1])
    if not split:
        return "whole", split
    split_rows = int(allc[allc.index.isin(split)].sum())
    if split_rows > SPLIT_ROWS_GATHERED:
        return "shuffle", split
    return "gather", split


def _rows_of(frame: pd.DataFrame, queries: set, offset: int, inside: bool) -> pd.DataFrame:
    """Rows whose query is (``inside``) or is not in ``queries``; with row numbers if inside."""
    mask = frame["query"].astype(str).isin(queries).to_numpy()
    if not inside:
        return frame[~mask]
    rows = np.flatnonzero(mask)
    out = frame.iloc[rows].copy()
    out[_ROW] = offset + rows.astype(np.int64)
    return out


def _with_row(frame: pd.DataFrame, offset: int) -> pd.DataFrame:
    frame = frame.copy()
    frame[_ROW] = np.arange(offset, offset + len(frame), dtype=np.int64)
    return frame


def _evaluate_partition(group, frame: pd.DataFrame, name: str):
    if _ROW in frame.columns:
        frame = frame.sort_values(_ROW, kind="stable").drop(columns=_ROW)
    if len(frame) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return None, np.zeros(0, dtype=str), empty, empty
    import pyarrow as pa

    table = pa.Table.from_pandas(frame, preserve_index=False)
    return group(run_from_table(table, name=name, source=f"<Dask run {name!r}>"))


def dask_groups(source, group, *, name=None):
    """``(name, parts)``: ``group`` applied to every partition of a Dask run."""
    import dask
    import dask.dataframe as dd

    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if not is_parquet_source(path) and "://" not in path:
            raise ParameterError(f"engine='dask' reads a Dask DataFrame or Parquet files (a file "
                             f"ending .parquet, a directory or a glob); {path!r} is neither "
                             "(for a TREC text file use engine='stream')")
        if name is None:
            name = _run_name(path, None)
        ddf = dd.read_parquet(path)
    elif type(source).__module__.split(".")[0] in ("dask", "dask_expr"):
        ddf = source
    else:
        raise ParameterTypeError("engine='dask' reads a Dask DataFrame or Parquet files, got "
                        f"{type(source).__name__}")
    name = "run" if name is None else str(name)
    missing = [c for c in ("query", "doc", "score") if c not in ddf.columns]
    if missing:
        raise ParameterError(f"the Dask run has no {missing} column(s) (have {list(ddf.columns)})")
    ddf = ddf[[c for c in ("query", "doc", "rank", "score") if c in ddf.columns]]
    client = _client()
    if client is not None and dask.base.get_scheduler() != client.get:
        client = None  # another scheduler was chosen (dask.config.set(scheduler=...))
    parts = ddf.to_delayed()
    # Pass 1 (small result): rows per query in every partition.
    counts = dask.compute(*[dask.delayed(_query_counts)(p) for p in parts])
    lengths = np.array([int(c.sum()) for c in counts], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    plan, split = _plan(counts)
    extra = []
    if plan == "shuffle":
        # Many queries span partitions (an unsorted run): shuffle by query, carrying
        # the original row order for the ties.
        meta = ddf._meta.assign(**{_ROW: np.zeros(0, dtype=np.int64)})
        ddf = dd.from_delayed([dask.delayed(_with_row)(p, int(o))
                               for p, o in zip(parts, offsets, strict=True)], meta=meta)
        # p2p shuffles need a distributed client; the task-based one runs anywhere
        ddf = ddf.shuffle(on="query", npartitions=max(1, ddf.npartitions),
                          shuffle_method=None if client is not None else "tasks")
        parts = ddf.to_delayed()
        split = set()
    elif plan == "gather":
        # A few queries straddle partition boundaries (a sorted run cut into files):
        # their rows, in file order, form one extra group; no shuffle.
        pieces = [dask.delayed(_rows_of)(p, split, int(o), True)
                  for p, o in zip(parts, offsets, strict=True)]
        extra = [dask.delayed(pd.concat)(pieces)]
        parts = [dask.delayed(_rows_of)(p, split, 0, False) for p in parts]
    fn = client.scatter(group, broadcast=True) if client is not None else group
    results = dask.compute(*[dask.delayed(_evaluate_partition)(fn, p, name)
                             for p in [*parts, *extra]])
    return name, list(results)
