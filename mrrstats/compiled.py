"""Lazy numba compilation and thread control shared by every compiled kernel.

Used by the TREC tokenizer (:mod:`mrrstats.io.tokenizer`), ``rank_run``, the
measures, the link-prediction ranks and the counter-based resampling stream:
one thread rule and one launcher, so a process forked after GNU OpenMP is
handled alike everywhere.

numba is imported only when a compiled kernel is first asked for (``import
mrrstats`` never pays for it). Kernels are written as plain module-level
functions named ``*_py``; :func:`jit` wraps them with ``numba.njit(cache=True)``
(compiled once per machine, then loaded from numba's on-disk cache) and the
caller rebinds its module globals to the compiled functions, so that kernels
calling each other resolve to compiled code.

:func:`launch` runs a kernel on ``workers`` threads: its serial twin when
one thread is asked for (or in a process forked after GNU OpenMP was used,
where numba's ``omp`` layer would abort), the parallel kernel otherwise,
with calls from several Python threads taking turns where the threading
layer is not thread-safe. Every kernel that runs through here gives results
that do not depend on the number of threads.
"""

from __future__ import annotations

import os
import threading
import types

from .validation import workers_iv

__all__ = ["available", "jit", "pair", "serial_twin", "launch", "threads", "compile_seconds"]

_LOCK = threading.Lock()
_STATE: dict = {}
#: Seconds spent compiling (or loading from the cache), per kernel family.
compile_seconds: dict = {}


def available() -> bool:
    """Whether numba can be imported (cached)."""
    ok = _STATE.get("available")
    if ok is None:
        try:
            import numba  # noqa: F401
            ok = True
        except Exception:  # ImportError, or a numba that fails to load
            ok = False
        _STATE["available"] = ok
    return ok


def jit(func, *, parallel: bool = False, inline: bool = False):
    """``numba.njit(cache=True, nogil=True)`` of ``func`` (``parallel`` for prange loops)."""
    import numba

    opts = {"cache": True, "nogil": True}
    if parallel:
        opts["parallel"] = True
    if inline:
        opts["inline"] = "always"
    return numba.njit(**opts)(func)


def prange():
    """numba's ``prange`` (for modules rebinding their ``prange`` global)."""
    import numba

    return numba.prange


def threads(workers: int | None) -> int:
    """Threads for ``workers`` (None or -1: all cores; validated by ``workers_iv``),
    at most the threads numba has."""
    import numba

    return max(1, min(workers_iv(workers), numba.config.NUMBA_NUM_THREADS))


def _layer():
    import numba

    try:
        return numba.threading_layer()
    except ValueError:  # no parallel kernel has run yet
        return None


def launch(parallel, serial, workers, *args):
    """Run ``parallel(*args)`` on ``workers`` threads, or ``serial(*args)`` where needed."""
    import numba

    n = threads(workers)
    pid = _STATE.get("pid")
    if n == 1 or (pid is not None and pid != os.getpid() and _layer() == "omp"):
        return serial(*args)
    safe = _layer() in ("omp", "tbb")
    if not safe:
        _LOCK.acquire()
    try:
        previous = numba.get_num_threads()
        numba.set_num_threads(n)
        try:
            return parallel(*args)
        finally:
            numba.set_num_threads(previous)
            _STATE.setdefault("pid", os.getpid())
    finally:
        if not safe:
            _LOCK.release()


def serial_twin(func):
    """A copy of ``func`` under another name, to be compiled without ``parallel``
    (``prange`` is then ``range``); a name of its own keeps numba's caches apart."""
    twin = types.FunctionType(func.__code__, func.__globals__, func.__name__ + "_serial",
                              func.__defaults__, func.__closure__)
    twin.__qualname__ = func.__qualname__ + "_serial"
    twin.__doc__ = func.__doc__
    return twin


def pair(func):
    """``(parallel, serial)`` compiled kernels of ``func`` for :func:`launch`."""
    return jit(func, parallel=True), jit(serial_twin(func))
