"""Flat tensors in (torchmetrics' ``preds, target, indexes`` contract).

Any NumPy array, and any array that speaks the array API or DLPack (torch of
every float dtype, float16/bfloat16 included, with or without
``requires_grad``, on CPU or GPU; CuPy; JAX; array-api-strict), goes in
without the user converting it. Floating-point arrays are widened to float64
on their own device before they are copied to the host, so no score is ever
rounded (float16 and bfloat16 values are exactly representable in float64).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ..errors import InputError, ParameterError, ParameterTypeError
from ..validation import asarray_iv
from .doors import run_from_arrays
from .records import Qrels, Run, qrels_from_arrays

__all__ = ["as_host_array", "flat_to_qrels_run"]


def as_host_array(x, name: str) -> np.ndarray:
    """A 1-d NumPy copy/view of an array from any array library (float64 if floating).

    Parameters
    ----------
    x : array-like
        NumPy array, list, or any array-API / DLPack array (torch, CuPy, JAX...).
    name : str
        The parameter name, for error messages.
    """
    if isinstance(x, np.ndarray) or isinstance(x, (list, tuple)):
        arr = asarray_iv(x, name)
    else:
        if callable(getattr(x, "detach", None)):  # torch: requires_grad tensors
            x = x.detach()
        arr = _from_array_api(x)
    if arr.ndim != 1:
        arr = arr.reshape(-1) if arr.ndim > 1 else arr.reshape(1)
    if arr.dtype.kind == "f" and arr.dtype != np.float64:
        arr = arr.astype(np.float64)  # exact widening
    if arr.dtype.kind not in "fiub" and name != "indexes":
        raise ParameterTypeError(f"`{name}` must be a numeric array, got dtype {arr.dtype}")
    return arr


def _from_array_api(x) -> np.ndarray:
    try:
        import array_api_compat
        xp = array_api_compat.array_namespace(x)
    except (ImportError, TypeError):
        return np.asarray(x)
    try:
        if xp.isdtype(x.dtype, "real floating"):
            x = xp.astype(x, xp.float64)  # on the array's own device: exact
        elif xp.isdtype(x.dtype, "bool"):
            x = xp.astype(x, xp.int8)
    except Exception:  # noqa: BLE001 - a device without float64 (e.g. Apple MPS)
        pass
    if getattr(x, "device", None) is not None and "cpu" not in str(x.device).lower():
        try:
            x = array_api_compat.to_device(x, "cpu")
        except Exception:  # noqa: BLE001 - libraries name their host device differently
            get = getattr(x, "get", None)  # CuPy
            if callable(get):
                return np.asarray(get())
    try:
        arr = np.from_dlpack(x)
    except (TypeError, BufferError, RuntimeError, AttributeError, ValueError):
        arr = np.asarray(x)
    return arr if arr.dtype != np.float16 else arr.astype(np.float64)


def flat_to_qrels_run(preds, target, indexes, *, name: str = "run") -> tuple[Qrels, Run]:
    """Qrels and a run from flat ``preds``, ``target`` and ``indexes`` arrays.

    Each row is one (query, document) pair: ``indexes`` names the query,
    ``preds`` is the score and ``target`` the grade (bool or integer; every row
    is judged, ``0`` non-relevant). Document ids are the row numbers.
    """
    p = as_host_array(preds, "preds")
    t = as_host_array(target, "target")
    i = as_host_array(indexes, "indexes")
    if not (p.size == t.size == i.size):
        raise ParameterError("`preds`, `target` and `indexes` must have the same number of "
                         f"elements, got {p.size}, {t.size} and {i.size}")
    if p.size == 0:
        raise ParameterError("`preds` is empty")
    if p.dtype.kind not in "fiu":
        raise ParameterTypeError(f"`preds` must be a numeric array, got dtype {p.dtype}")
    bad = ~np.isfinite(p.astype(np.float64, copy=False))
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise InputError(f"preds[{k}] = {p[k]} is not finite", source="<preds>")
    t64 = t.astype(np.float64, copy=False)
    nonint = ~np.isfinite(t64) | (t64 != np.round(t64))
    if nonint.any():
        k = int(np.flatnonzero(nonint)[0])
        raise InputError(f"target[{k}] = {t[k]} is not an integer grade (use 0/1 or graded "
                         "integers)", source="<target>")
    if i.dtype.kind == "f":
        wrong = ~np.isfinite(i) | (i != np.round(i))
        if wrong.any():
            k = int(np.flatnonzero(wrong)[0])
            raise ParameterError(f"`indexes` must hold whole-number query ids, got indexes[{k}] "
                                 f"= {i[k]}", name="indexes")
        i = i.astype(np.int64)
    elif i.dtype.kind not in "iuUSO":
        raise ParameterTypeError(f"`indexes` must hold integer query ids, got dtype {i.dtype}",
                                 name="indexes")
    query = pa.array(i).cast(pa.string()).to_numpy(zero_copy_only=False)
    doc = pa.array(np.arange(p.size)).cast(pa.string()).to_numpy(zero_copy_only=False)
    qrels = qrels_from_arrays(query, doc, t64.astype(np.int64), "<target>", None, "raise")
    run = run_from_arrays(query, doc, p.astype(np.float64, copy=False), None, name,
                           "<preds>", "raise")
    return qrels, run
