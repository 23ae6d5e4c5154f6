"""Where an array lives: its array-API namespace, the free memory there, chunk sizes.

Shared by every path that works on arrays where they are (torch, CuPy, JAX,
``array_api_strict``): link-prediction ranks (:mod:`mrrstats.baselines`) and
the flat-tensor door (:func:`mrrstats.evaluate_flat`). One rule sizes every
chunk: its temporaries use at most half of the free memory of the device the
array lives on (on the host: of the available memory, at most 1 GiB).
"""

from __future__ import annotations

import os

import numpy as np

__all__ = ["array_namespace_or_none", "to_numpy", "free_bytes", "rows_per_chunk",
           "BYTES_PER_SCORE"]

#: temporaries per score in a chunk (comparison masks, reductions): a safe upper bound
BYTES_PER_SCORE = 16
_HOST_BUDGET = 1 << 30  # at most 1 GiB of temporaries on the host


def array_namespace_or_none(a):
    """The namespace of a non-NumPy array-API array, or None (NumPy, lists, memmaps...)."""
    if isinstance(a, (np.ndarray, np.generic, list, tuple)):
        return None
    try:
        from array_api_compat import array_namespace, is_array_api_obj, is_numpy_array
    except ImportError:  # the compat layer is absent: numpy.asarray reads what it can
        return None
    if is_numpy_array(a) or not is_array_api_obj(a):
        return None
    return array_namespace(a)


def to_numpy(x) -> np.ndarray:
    """A small device array (counts, a few values) as a NumPy array on the host."""
    if isinstance(x, np.ndarray):
        return x
    from array_api_compat import is_cupy_array, is_torch_array

    if is_torch_array(x):
        return x.detach().cpu().numpy()
    if is_cupy_array(x):
        return x.get()
    try:
        return np.asarray(x)
    except (TypeError, ValueError, RuntimeError):
        return np.from_dlpack(x)


def free_bytes(S) -> int:
    """Free memory where ``S`` lives: the CUDA device's, else the host's available memory."""
    from array_api_compat import device, is_cupy_array, is_torch_array

    dev = device(S)
    if is_torch_array(S) and getattr(dev, "type", "cpu") == "cuda":
        import torch

        return int(torch.cuda.mem_get_info(dev)[0])
    if is_cupy_array(S):
        import cupy

        return int(cupy.cuda.runtime.memGetInfo()[0])
    try:
        avail = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        avail = _HOST_BUDGET
    return int(min(avail, _HOST_BUDGET))


def rows_per_chunk(S, n: int, m: int) -> int:
    """Rows per chunk so that the chunk's temporaries use at most half the free memory.

    A row holds ``m`` scores of :data:`BYTES_PER_SCORE` bytes of temporaries
    each; the answer lies in ``1 .. n``.
    """
    return int(max(1, min(n, free_bytes(S) // 2 // max(1, m * BYTES_PER_SCORE))))
