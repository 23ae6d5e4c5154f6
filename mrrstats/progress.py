"""Progress bars for long work: shown on an interactive terminal, quiet in pipes and CI.

One rule for the whole package (:func:`progress_enabled`): ``progress=None``
(the default everywhere) shows a bar only when standard error is a terminal
and the ``CI`` environment variable is not set (GitHub Actions, GitLab CI and
most others set ``CI=true``); ``True`` or ``False`` force it. Bars are
`tqdm <https://tqdm.github.io>`_ bars on standard error, removed when done
(``leave=False``), so nothing of them stays in a log.

Two ways in:

* :func:`progress_bar` -- a bar over the steps of a loop (measures, systems,
  report steps);
* :func:`tracking` -- a context that collects the resampling done inside it:
  the engine's loops (:mod:`mrrstats.stats.resampling`) call
  :func:`resampling_ticker` and the bar counts the resamples as they are
  drawn. Outside :func:`tracking` the ticker is a no-op that costs one
  context-variable look-up per loop.

Progress never changes a result: no random number is drawn for it.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any, ParamSpec, TextIO, TypeVar, cast

from .errors import ParameterTypeError

P = ParamSpec("P")
R = TypeVar("R")

__all__ = ["progress_enabled", "progress_bar", "tracking", "tracked", "resampling_ticker"]

#: Signals the command line received (:mod:`mrrstats.cli.signals` appends to it and
#: clears it). The resampling loops' ticker checks it, so that an interruption some
#: library swallowed (a ``KeyboardInterrupt`` raised inside a finalizer is only
#: printed) still ends a long computation at its next batch instead of letting it run
#: to the end. Empty (never filled) outside the command line.
INTERRUPTS: list[int] = []

_FALSE = ("", "0", "false", "no", "off")
_ACTIVE: contextvars.ContextVar[Any] = contextvars.ContextVar("mrrstats_progress", default=None)


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in _FALSE


def progress_enabled(progress: bool | None = None, stream: TextIO | None = None) -> bool:
    """Whether to show progress: ``progress`` if given, else an interactive terminal not in CI.

    Parameters
    ----------
    progress : bool or None
        ``True``/``False`` decide; ``None`` (default) means "when ``stream``
        is a terminal and the ``CI`` environment variable is unset or false".
    stream : file, optional
        Default ``sys.stderr`` (where bars are drawn).

    Examples
    --------
    >>> from mrrstats.progress import progress_enabled
    >>> progress_enabled(False), progress_enabled(True)
    (False, True)
    """
    if progress is not None:
        if not isinstance(progress, bool | int) or progress not in (0, 1):
            raise ParameterTypeError(f"`progress` must be True, False or None, got "
                                     f"{progress!r:.60}", name="progress")
        return bool(progress)
    stream = sys.stderr if stream is None else stream
    try:
        tty = bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        tty = False
    return tty and not _in_ci()


def progress_bar(iterable: Iterable[Any] | None = None, *, total: float | None = None,
                 desc: str | None = None, unit: str = "it",
                 progress: bool | None = None) -> Any:
    """A tqdm bar on standard error, disabled unless :func:`progress_enabled`.

    A disabled bar prints nothing and still iterates (``tqdm(disable=True)``).
    """
    from tqdm import tqdm

    return tqdm(iterable, total=total, desc=desc, unit=unit, leave=False, file=sys.stderr,
                disable=not progress_enabled(progress), dynamic_ncols=True,
                unit_scale=unit.strip() == "resamples")


@contextlib.contextmanager
def tracking(desc: str, *, progress: bool | None = None) -> Iterator[Any]:
    """Count the resamples drawn inside the block on one bar (see :func:`resampling_ticker`).

    Nested blocks keep the outer bar. Yields the bar (or None when disabled).
    """
    if _ACTIVE.get() is not None or not progress_enabled(progress):
        yield None
        return
    # no total: the loops inside decide (exact enumeration or B) as they go, so the bar
    # counts the resamples drawn and their rate
    bar = progress_bar(total=None, desc=desc, unit=" resamples", progress=True)
    token = _ACTIVE.set(bar)
    try:
        yield bar
    finally:
        _ACTIVE.reset(token)
        bar.close()


def _noop(n: float) -> None:
    return None


def resampling_ticker(total: int | None) -> Callable[[float], Any]:
    """A function ``tick(r)`` for a resampling loop of ``total`` resamples.

    Inside :func:`tracking` it advances the bar by ``r`` per call (the bar
    counts resamples; ``total`` is this loop's, unused for now); elsewhere it
    does nothing but raise :class:`KeyboardInterrupt` if the command line received
    a signal (:data:`INTERRUPTS`) and the loop is still running.
    """
    bar = _ACTIVE.get()
    update = _noop if bar is None else bar.update

    def tick(r: float) -> None:
        if INTERRUPTS:  # a signal arrived and the computation goes on: end it here
            raise KeyboardInterrupt
        update(r)
    return tick


def tracked(desc: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorator: run the function inside :func:`tracking` with its ``progress=`` argument.

    The decorated function declares ``progress=None`` itself (so that it shows
    in its signature and documentation); the decorator reads it.
    """
    def decorate(func: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(func)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            with tracking(desc, progress=cast("bool | None", kwargs.get("progress"))):
                return func(*args, **kwargs)
        return wrapper
    return decorate
