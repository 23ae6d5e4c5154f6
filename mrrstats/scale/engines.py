"""Dispatch of ``evaluate(..., engine=...)`` to the streaming and Dask engines."""

from __future__ import annotations

import os

from ..errors import ParameterTypeError
from ..validation import available_memory
from .dask import dask_groups
from .stream import _run_name, is_parquet_source, map_query_groups, run_source_bytes

__all__ = ["evaluate_groups", "choose_engine", "is_dask_collection"]

#: In-memory cost of a run relative to its text: measured 1.1 GB for a 10^7-line
#: (about 0.5 GB) file, so about 2.2x; 3x leaves room for the evaluation.
MEMORY_PER_TEXT_BYTE = 3.0


def is_dask_collection(obj) -> bool:
    return type(obj).__module__.split(".")[0] in ("dask", "dask_expr")



def choose_engine(source) -> str:
    """``"stream"`` for run files that would take more than half the free memory."""
    if is_dask_collection(source):
        return "dask"
    if not isinstance(source, (str, os.PathLike)):
        return "memory"
    if is_parquet_source(source):
        return "stream"
    if not os.path.isfile(source):
        return "memory"  # the reader gives the error
    need = run_source_bytes(source) * MEMORY_PER_TEXT_BYTE
    return "stream" if need > available_memory() / 2 else "memory"


def evaluate_groups(source, group, *, engine: str, name=None):
    """``(name, parts)``: ``group`` applied to groups of whole queries of ``source``.

    ``parts`` is None when the run is to be evaluated in memory (an in-memory
    run under ``"stream"``, or ``"auto"`` choosing memory).
    """
    if engine == "auto":
        engine = choose_engine(source)
    if engine == "dask":
        return dask_groups(source, group, name=name)
    if engine == "stream":
        if is_dask_collection(source):
            raise ParameterTypeError("a Dask DataFrame needs engine='dask'")
        if not isinstance(source, (str, os.PathLike)):
            return None, None  # already in memory: nothing to stream

        parts = map_query_groups(source, group, name=name)
        return _run_name(source, name), parts
    return None, None
