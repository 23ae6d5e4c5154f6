"""Two aligned per-query arrays in: validation and the device the values live on.

:func:`pair_iv` checks two systems' per-query scores (same length, finite,
``missing=`` for NaN); :func:`vector_iv` one array; :func:`device_pair` keeps
array-API inputs (torch, CuPy) on their device for the resampling while the
O(n) summaries run on host copies.
"""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError, ParameterTypeError
from ..validation import missing_iv
from .resampling import array_namespace_of, to_host

__all__ = ["vector_iv", "pair_iv", "device_pair"]


def vector_iv(x, name):
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise ParameterTypeError(f"`{name}` must be a 1-D array of numbers") from None
    if arr.ndim != 1:
        raise ParameterError(f"`{name}` must be 1-D (one value per query), got shape {arr.shape}")
    return arr


def pair_iv(a, b, missing, *, min_n=2, return_keep=False):
    """Validate two aligned per-query arrays; returns float arrays ``a, b``.

    With ``return_keep=True`` also the boolean mask of the positions kept
    (``missing="drop"`` drops queries where either value is NaN).
    """
    missing_iv(missing)
    a = vector_iv(a, "a")
    b = vector_iv(b, "b")
    if a.shape != b.shape:
        raise ParameterError(f"`a` and `b` must have the same length (aligned queries), got "
                         f"{a.size} and {b.size}")
    bad = np.isnan(a) | np.isnan(b)
    if bad.any():
        if missing == "raise":
            i = int(np.flatnonzero(bad)[0])
            raise ParameterError(f"`a` or `b` has a missing value (NaN) at position {i}; pass "
                             "missing='drop' to drop such queries")
        a, b = a[~bad], b[~bad]
    if np.isinf(a).any() or np.isinf(b).any():
        raise ParameterError("`a` and `b` must be finite")
    if a.size < min_n:
        raise ParameterError(f"`a` and `b` need at least {min_n} queries, got {a.size}")
    if return_keep:
        return a, b, ~bad
    return a, b


def device_pair(a, b=None):
    """Host copies of ``a`` (and ``b``) and a function giving ``a - b`` on their device.

    When ``a`` or ``b`` is an array-API array other than NumPy (a torch
    tensor, a CuPy array, on any device), the validation and the O(n)
    summaries run on host copies of the per-query values, and
    ``device_d(n_kept)`` returns the float64 differences on the device (the
    queries kept by ``missing="drop"``: the finite ones), for the O(B n)
    resampling; it returns None for host inputs.
    """
    xp = array_namespace_of(a, b)
    if xp is None:
        return a, b, lambda n_kept: None
    from array_api_compat import device

    dev = device(a if array_namespace_of(a) is not None else b)

    def on_device(x):
        if x is None:
            return None
        if array_namespace_of(x) is None:
            x = xp.asarray(np.asarray(x, dtype=np.float64), device=dev)
        return xp.astype(x, xp.float64)

    ad, bd = on_device(a), on_device(b)
    a_h = to_host(ad)
    b_h = None if b is None else to_host(bd)

    def device_d(n_kept):
        d = ad if bd is None else ad - bd
        if n_kept != d.shape[0]:
            keep = ~np.isnan(a_h) if b_h is None else ~(np.isnan(a_h) | np.isnan(b_h))
            d = xp.take(d, xp.asarray(np.flatnonzero(keep), device=dev), axis=0)
        return xp.reshape(d, (1, -1))

    return a_h, b_h, device_d
