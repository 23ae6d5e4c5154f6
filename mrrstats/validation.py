"""Argument validators shared by every sub-package (one place for each rule).

Each function normalises one argument of scipy's vocabulary (``alternative``,
``confidence_level``, ``alpha``, ``rng``, ...) and raises a ``ValueError`` or
``TypeError`` naming the parameter in backticks.
"""

from __future__ import annotations

import math
import numbers
import os

import numpy as np

__all__ = ["ALTERNATIVES", "MISSING", "alternative_iv", "missing_iv", "confidence_level_iv",
           "alpha_iv", "int_iv", "tolerance_iv", "rng_iv", "workers_iv", "BOOTSTRAP_SCHEMES",
           "scheme_iv"]

ALTERNATIVES = ("two-sided", "less", "greater")
MISSING = ("raise", "drop")
#: resampling schemes of the paired bootstrap (``scheme=``)
BOOTSTRAP_SCHEMES = ("multinomial", "poisson")


def alternative_iv(alternative):
    if alternative not in ALTERNATIVES:
        raise ValueError(f"`alternative` must be one of {ALTERNATIVES}, got {alternative!r}")
    return alternative


def missing_iv(missing):
    if missing not in MISSING:
        raise ValueError(f"`missing` must be 'raise' or 'drop', got {missing!r}")
    return missing


def confidence_level_iv(confidence_level, name="confidence_level"):
    """A probability strictly between 0 and 1 (also used for `alpha`)."""
    try:
        cl = float(confidence_level)
    except (TypeError, ValueError):
        raise TypeError(f"`{name}` must be a number in (0, 1)") from None
    if not 0.0 < cl < 1.0:
        raise ValueError(f"`{name}` must be in (0, 1), got {confidence_level!r}")
    return cl


def alpha_iv(alpha):
    return confidence_level_iv(alpha, "alpha")


def int_iv(value, name, minimum=1, allow_none=False):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"`{name}` must be an integer, got {value!r}")
    value = int(value)
    if value < minimum:
        raise ValueError(f"`{name}` must be >= {minimum}, got {value}")
    return value


def workers_iv(workers):
    """Threads for ``workers``: a positive integer, or -1 (or None) for all cores."""
    if workers is None or (not isinstance(workers, bool)
                           and isinstance(workers, numbers.Integral) and workers == -1):
        return os.cpu_count() or 1
    if isinstance(workers, bool) or not isinstance(workers, numbers.Integral) or workers < 1:
        raise ValueError(f"`workers` must be a positive integer or -1 (all cores), got "
                         f"{workers!r}")
    return int(workers)


def scheme_iv(scheme):
    """The bootstrap's resampling scheme: ``"multinomial"`` or ``"poisson"``."""
    if scheme not in BOOTSTRAP_SCHEMES:
        raise ValueError(f"`scheme` must be one of {BOOTSTRAP_SCHEMES}, got {scheme!r}")
    return scheme


def tolerance_iv(value, name="atol"):
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"`{name}` must be a non-negative number") from None
    if not (v >= 0.0 and math.isfinite(v)):
        raise ValueError(f"`{name}` must be a finite non-negative number, got {value!r}")
    return v


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
            raise ValueError(f"`rng` must be a non-negative integer seed, got {rng!r}")
        gen = np.random.default_rng(None if rng is None else int(rng))
        return gen, int(gen.bit_generator.seed_seq.entropy)
    if isinstance(rng, np.random.SeedSequence | np.random.BitGenerator):
        return np.random.default_rng(rng), None
    raise TypeError("`rng` must be None, an integer seed or a numpy.random.Generator, "
                    f"got {type(rng).__name__}")
