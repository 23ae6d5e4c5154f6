"""Argument validators shared by every sub-package (one place for each rule).

Each function normalises one argument of scipy's vocabulary (``alternative``,
``confidence_level``, ``alpha``, ``rng``, ...) or one kind of argument (a finite number
in a range, a choice among names, a numeric array of a given shape) and refuses a bad
one with :class:`~mrrstats.ParameterError` (a ``ValueError``) or
:class:`~mrrstats.ParameterTypeError` (a ``TypeError``) whose message names the
parameter in backticks, the value and what is allowed. :func:`resource_iv` refuses a
request that cannot fit in memory up front with :class:`~mrrstats.ResourceError`
(a ``MemoryError``) giving the bytes it would need.
"""

from __future__ import annotations

import math
import numbers
import os

import numpy as np

from .errors import ParameterError, ParameterTypeError, ResourceError

__all__ = ["ALTERNATIVES", "MISSING", "alternative_iv", "missing_iv", "confidence_level_iv",
           "alpha_iv", "int_iv", "tolerance_iv", "rng_iv", "workers_iv", "BOOTSTRAP_SCHEMES",
           "scheme_iv", "float_iv", "choice_iv", "array_iv", "bool_iv", "resource_iv",
           "n_resamples_iv", "available_memory", "MAX_RESAMPLES", "MEMORY_FRACTION",
           "asarray_iv"]

ALTERNATIVES = ("two-sided", "less", "greater")
MISSING = ("raise", "drop")
#: resampling schemes of the paired bootstrap (``scheme=``)
BOOTSTRAP_SCHEMES = ("multinomial", "poisson")
#: the largest ``n_resamples`` (and ``n_simulations``, ``max_support``, ...) accepted: a
#: billion draws already pins a p-value to 3e-5; more would run for hours.
MAX_RESAMPLES = 10**9
#: a request is refused when it needs more than this share of the available memory
MEMORY_FRACTION = 0.8


def _show(value, limit=60):
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def choice_iv(value, name, choices):
    """One of ``choices`` (strings, or None where listed); anything else is refused."""
    if value is None and None in choices:
        return None
    if not isinstance(value, str):
        raise ParameterTypeError(f"`{name}` must be one of {tuple(choices)}, got "
                                 f"{type(value).__name__} {_show(value)}", name=name)
    if value not in choices:
        raise ParameterError(f"`{name}` must be one of {tuple(choices)}, got {_show(value)}",
                             name=name)
    return value


def alternative_iv(alternative):
    return choice_iv(alternative, "alternative", ALTERNATIVES)


def missing_iv(missing):
    if not isinstance(missing, str) or missing not in MISSING:
        raise ParameterError(f"`missing` must be 'raise' or 'drop', got {_show(missing)}",
                             name="missing")
    return missing


def bool_iv(value, name):
    """True or False (numpy booleans too); 0/1 and strings are refused."""
    if isinstance(value, bool | np.bool_):
        return bool(value)
    raise ParameterTypeError(f"`{name}` must be True or False, got {_show(value)}", name=name)


def float_iv(value, name, *, low=-math.inf, high=math.inf, low_open=False, high_open=False,
             allow_none=False, finite=True):
    """A real number (not bool, not a string) in ``[low, high]`` (open ends as asked)."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise ParameterTypeError(f"`{name}` must be a real number, got {_show(value)}",
                                 name=name)
    v = float(value)
    if math.isnan(v) or (finite and not math.isfinite(v)):
        raise ParameterError(f"`{name}` must be a finite number, got {_show(value)}", name=name)
    below = v <= low if low_open else v < low
    above = v >= high if high_open else v > high
    if below or above:
        lo = "(" if low_open else "["
        hi = ")" if high_open else "]"
        raise ParameterError(f"`{name}` must be in {lo}{low:g}, {high:g}{hi}, got {_show(value)}",
                             name=name)
    return v


def confidence_level_iv(confidence_level, name="confidence_level"):
    """A probability strictly between 0 and 1 (also used for `alpha`)."""
    return float_iv(confidence_level, name, low=0.0, high=1.0, low_open=True, high_open=True)


def alpha_iv(alpha):
    return confidence_level_iv(alpha, "alpha")


def int_iv(value, name, minimum=1, allow_none=False, maximum=None):
    """An integer (Python or numpy, not bool, not a float) in ``[minimum, maximum]``
    (``maximum`` None: below 2**62, the most any count, size or depth may be)."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
        raise ParameterTypeError(f"`{name}` must be an integer, got {_show(value)}", name=name)
    value = int(value)
    if value < minimum:
        raise ParameterError(f"`{name}` must be >= {minimum}, got {value}", name=name)
    if maximum is None and value >= 2**62:
        raise ParameterError(f"`{name}` must be below 2**62, got {value:,}", name=name)
    if maximum is not None and value > maximum:
        raise ParameterError(f"`{name}` must be <= {maximum:,}, got {value:,}", name=name)
    return value


def n_resamples_iv(value, name="n_resamples", minimum=1):
    """A number of Monte-Carlo draws: an integer in ``[minimum, MAX_RESAMPLES]``."""
    return int_iv(value, name, minimum=minimum, maximum=MAX_RESAMPLES)


def workers_iv(workers):
    """Threads for ``workers``: a positive integer, or -1 (or None) for all cores."""
    if workers is None or (not isinstance(workers, bool)
                           and isinstance(workers, numbers.Integral) and workers == -1):
        return os.cpu_count() or 1
    if isinstance(workers, bool) or not isinstance(workers, numbers.Integral) or workers < 1:
        raise ParameterError(f"`workers` must be a positive integer or -1 (all cores), got "
                             f"{_show(workers)}", name="workers")
    return int(workers)


def scheme_iv(scheme):
    """The bootstrap's resampling scheme: ``"multinomial"`` or ``"poisson"``."""
    return choice_iv(scheme, "scheme", BOOTSTRAP_SCHEMES)


def tolerance_iv(value, name="atol"):
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise ParameterTypeError(f"`{name}` must be a non-negative number, got {_show(value)}",
                                 name=name)
    v = float(value)
    if not (v >= 0.0 and math.isfinite(v)):
        raise ParameterError(f"`{name}` must be a finite non-negative number, got "
                             f"{_show(value)}", name=name)
    return v


def asarray_iv(value, name, dtype=None):
    """``numpy.asarray(value, dtype)``, a ragged or unconvertible value refused by name."""
    try:
        return np.asarray(value, dtype=dtype)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ParameterError(f"`{name}` must be a rectangular array"
                             f"{'' if dtype is None else ' of ' + np.dtype(dtype).name} "
                             f"({str(exc)[:80]})", name=name) from None


def array_iv(value, name, *, ndim=(1,), dtype=np.float64, finite=True, min_size=1,
             low=None, high=None, integer=False):
    """A numeric array of one of the allowed ``ndim``, converted to ``dtype``.

    Refuses strings, objects, booleans where numbers are meant, the wrong number of
    dimensions, fewer than ``min_size`` values, NaN or inf (``finite=True``), fractional
    values (``integer=True``) and values outside ``[low, high]``.
    """
    ndim = (ndim,) if isinstance(ndim, int) else tuple(ndim)
    if isinstance(value, str | bytes | dict | set) or value is None:
        raise ParameterTypeError(f"`{name}` must be an array of numbers, got "
                                 f"{type(value).__name__}", name=name)
    arr = asarray_iv(value, name)
    if arr.dtype.kind not in "iuf":
        raise ParameterTypeError(f"`{name}` must hold numbers, got dtype {arr.dtype}",
                                 name=name)
    if arr.ndim not in ndim:
        want = " or ".join(f"{d}-D" for d in ndim)
        raise ParameterError(f"`{name}` must be {want}, got an array of shape {arr.shape}",
                             name=name)
    if arr.size < min_size:
        raise ParameterError(f"`{name}` needs at least {min_size} value(s), got {arr.size}",
                             name=name)
    arr = arr.astype(dtype, copy=False)
    if finite and arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise ParameterError(f"`{name}` must be finite (no NaN or inf)", name=name)
    if integer and arr.dtype.kind == "f" and (arr != np.floor(arr)).any():
        raise ParameterError(f"`{name}` must hold whole numbers", name=name)
    if low is not None and arr.size and arr.min() < low:
        raise ParameterError(f"`{name}` must be >= {low}, got {arr.min()!r}", name=name)
    if high is not None and arr.size and arr.max() > high:
        raise ParameterError(f"`{name}` must be <= {high}, got {arr.max()!r}", name=name)
    return arr


def available_memory():
    """Bytes of memory available now (MemAvailable on Linux, else the free pages)."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 8 * 1024**3


def _bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.1f} {unit}" if unit != "B" else f"{n} B"
        n /= 1024
    return f"{n} B"  # pragma: no cover


def resource_iv(needed, name, *, what, limit=None):
    """Refuse up front a request that needs more than ``limit`` bytes.

    ``needed`` is the bytes the request would allocate (an integer, computed from the
    arguments before anything is allocated); ``limit`` defaults to
    ``MEMORY_FRACTION`` of :func:`available_memory`. The message names the parameter
    that makes the request large, what would be allocated and both amounts.
    """
    needed = int(needed)
    limit = int(MEMORY_FRACTION * available_memory()) if limit is None else int(limit)
    if needed > limit:
        raise ResourceError(f"`{name}` asks for {what}, which needs {_bytes(needed)}; "
                            f"{_bytes(limit)} is available: lower `{name}`",
                            name=name, needed=needed)
    return needed


def rng_iv(rng):
    """Turn ``rng`` into a Generator once; return it and a reproducible seed record.

    The seed record is the integer passed, the fresh entropy drawn when
    ``rng is None`` (pass it back as ``rng=`` to reproduce), or ``None`` when a
    Generator was passed (its state, not a seed, determines the stream).
    """
    if isinstance(rng, np.random.Generator):
        return rng, None
    if rng is None or (isinstance(rng, numbers.Integral) and not isinstance(rng, bool)):
        if rng is not None and int(rng) < 0:
            raise ParameterError(f"`rng` must be a non-negative integer seed, got {rng!r}",
                                 name="rng")
        gen = np.random.default_rng(None if rng is None else int(rng))
        return gen, int(gen.bit_generator.seed_seq.entropy)
    if isinstance(rng, np.random.SeedSequence | np.random.BitGenerator):
        return np.random.default_rng(rng), None
    raise ParameterTypeError("`rng` must be None, an integer seed or a numpy.random.Generator, "
                             f"got {type(rng).__name__}", name="rng")
