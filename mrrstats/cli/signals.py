"""SIGINT and SIGTERM end a command cleanly: the temporary files are removed, a report
being rewritten keeps its previous version, and the command prints one line,
``mrrstats: interrupted``, and exits with 130 (SIGINT) or 143 (SIGTERM).

Both signals raise :class:`KeyboardInterrupt` where the program is (a second one
within :data:`GRACE_SECONDS` is only recorded), so every ``finally`` on the way out
runs (the notebook kernel is shut down, the stream buckets and the report's staging
folder are removed); the signal received is remembered, so that the exit code says
which one it was whatever error the interruption caused on its way out.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from typing import Any

from ..progress import INTERRUPTS

__all__ = ["install", "restore", "received", "exit_code", "forget_unhandled", "reset",
           "exit_now", "skip_teardown", "teardown_skippable"]

_received: list[int] = []
#: Seconds after a first signal during which further ones only are recorded, so that the
#: cleanup it started is not cut short; later ones interrupt again (a program that
#: swallowed the first still stops on the next Ctrl-C).
GRACE_SECONDS = 3.0
_first_at: list[float] = []
#: The ``sys.unraisablehook`` that :func:`install` replaced (called for everything else).
_hook_before: list[Any] = []
#: Set by :func:`skip_teardown`: the command's output is all written and nothing it made
#: needs the interpreter's finalization (see :func:`teardown_skippable`).
_skip_teardown: list[bool] = []


def _on_signal(signum, frame):
    _received.append(signum)
    INTERRUPTS.append(signum)
    now = time.monotonic()
    if _first_at and now - _first_at[0] < GRACE_SECONDS:
        return
    _first_at[:] = [now]
    raise KeyboardInterrupt


def install() -> dict:
    """Turn SIGINT and SIGTERM into :class:`KeyboardInterrupt` (main thread only);
    returns the handlers replaced, for :func:`restore`."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    previous: dict[Any, Any] = {}
    for name in ("SIGINT", "SIGTERM"):
        sig = getattr(signal, name, None)
        if sig is not None:
            previous[sig] = signal.signal(sig, _on_signal)
    previous["unraisablehook"] = _hook_before[:] = [sys.unraisablehook]
    sys.unraisablehook = _unraisable
    return previous


def _unraisable(unraisable: Any) -> None:
    """A ``KeyboardInterrupt`` of ours raised where Python can only print it (in a
    finalizer, a callback): print nothing (the command prints its one line). The
    interruption is not lost: the resampling loops end at their next batch
    (:data:`mrrstats.progress.INTERRUPTS`) and the command checks for it at its end."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt) and _received:
        return
    (_hook_before or [sys.__unraisablehook__])[0](unraisable)


def restore(previous: dict) -> None:
    """Put back the handlers :func:`install` replaced."""
    for sig, handler in previous.items():
        if sig == "unraisablehook":
            sys.unraisablehook = handler[0]
            continue
        signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
    INTERRUPTS.clear()


def received() -> int | None:
    """The first signal received since :func:`install` (or :func:`reset`), or None."""
    return _received[0] if _received else None


def exit_code() -> int:
    """128 + the signal's number: 130 for SIGINT (and a bare KeyboardInterrupt), 143
    for SIGTERM."""
    return 128 + (received() or signal.SIGINT)


def forget_unhandled() -> None:
    """Clear CPython's mark of an unhandled interrupt.

    An interrupt raised while a C extension runs code through ``PyRun_String``
    (some do while being imported) marks the interpreter, and at exit it then ends
    itself by SIGINT (exit status -2) even though the interrupt was handled and the
    exit code chosen. Running any code through ``PyRun_SimpleString`` clears the
    mark; the exit code is then ours (130 or 143).
    """
    try:
        ctypes.pythonapi.PyRun_SimpleString(b"pass")
    except (AttributeError, OSError):  # pragma: no cover - not CPython
        pass


def reset() -> None:
    """Forget the signals received (each command run in-process starts afresh)."""
    _received.clear()
    _first_at.clear()
    _skip_teardown.clear()
    INTERRUPTS.clear()


def exit_now(code: int) -> None:
    """End an interrupted process with ``code`` at once (the console entry point; also
    the end of a command that called :func:`skip_teardown`).

    By then the command has removed its temporary files and printed its line; what
    is left is the interpreter's own finalization, where a C++ thread pool caught in
    the middle of its work by the interruption can abort the process ("terminate
    called without an active exception", exit status -6) instead of exiting with
    ``code``. So the streams are flushed and the process ends without it.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def skip_teardown() -> None:
    """Let the console entry point end this process without the interpreter's teardown.

    For a command whose whole output is text on stdout and that leaves no file open and
    no thread running (``mrrstats evaluate`` on TREC files, the array path): finalizing
    the interpreter there only frees what the process is about to give back, the
    numpy and Arrow modules and some 400 MB of arrays for a 7-million-line run, which
    costs 0.03-0.04 s of a 0.6 s command (benchmarks/results_evaluate_fresh.md).
    Calls made in-process (``mrrstats.cli.main``, the tests) are not affected.
    """
    _skip_teardown.append(True)


def teardown_skippable() -> bool:
    """Whether :func:`skip_teardown` was called and no other Python thread is running
    (one left running is waited for by a normal exit, so it is not skipped then)."""
    return bool(_skip_teardown) and threading.active_count() == 1
