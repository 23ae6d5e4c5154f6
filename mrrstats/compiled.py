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

import importlib
import os
import sys
import threading
import types

from .validation import workers_iv

__all__ = ["available", "jit", "pair", "serial_twin", "launch", "threads", "compile_seconds",
           "native", "usable", "Native"]

_LOCK = threading.Lock()
_UNSET = object()
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


def native():
    """The kernels compiled ahead of time (the C extension ``mrrstats._native``, built by
    ``pip install``), or None where it was not built or is switched off (environment
    variable ``MRRSTATS_NATIVE=0``; tests switch it with :func:`use_native`).

    Used by the path from TREC files to measures (the tokenizer, ``rank_run``'s block
    kernels, the measures): with it, that path never imports numba."""
    if _STATE.get("native_off"):
        return None
    mod = _STATE.get("native", _UNSET)
    if mod is _UNSET:
        mod = None
        if os.environ.get("MRRSTATS_NATIVE", "1") != "0":
            try:  # optional: built by pip where a C compiler was found
                mod = importlib.import_module("mrrstats._native")
            except ImportError:
                mod = None
        _STATE["native"] = mod
    return mod


def use_native(on: bool) -> bool:
    """Switch the C kernels on (where built) or off (numba then); returns the previous
    setting (for tests comparing both)."""
    previous = not _STATE.get("native_off", False)
    _STATE["native_off"] = not on
    return previous


def usable() -> bool:
    """Whether compiled kernels of the file path can run (the C extension, or numba)."""
    return native() is not None or available()


class Native:
    """A C kernel for :func:`launch`: called with the thread count as its last argument."""

    __slots__ = ("fn",)

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, *args):
        return self.fn(*args, 1)


def _cpu_threads() -> int:
    """numba's default thread count (``NUMBA_NUM_THREADS``, else the usable cores),
    found without importing numba."""
    numba = sys.modules.get("numba")
    if numba is not None:
        return int(numba.config.NUMBA_NUM_THREADS)
    env = os.environ.get("NUMBA_NUM_THREADS")
    if env:
        try:
            return max(1, int(env))
        except ValueError:
            pass
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


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
    at most the threads numba has (numba is not imported for it)."""
    return max(1, min(workers_iv(workers), _cpu_threads()))


def _layer():
    import numba

    try:
        return numba.threading_layer()
    except ValueError:  # no parallel kernel has run yet
        return None


def launch(parallel, serial, workers, *args):
    """Run ``parallel(*args)`` on ``workers`` threads, or ``serial(*args)`` where needed
    (a :class:`Native` kernel: on its own threads, ``workers`` of them)."""
    if isinstance(parallel, Native):
        return parallel.fn(*args, threads(workers))
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
