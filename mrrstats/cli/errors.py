"""How a command ends: an exit code and at most one line on standard error, never a
traceback.

=====  ============================================================================
code   meaning
=====  ============================================================================
0      done (output piped into ``head`` and cut short also ends with 0, silently)
1      an internal error: a bug in mrrstats; the line says so and how to see the
       traceback (``MRRSTATS_TRACEBACK=1``)
2      bad input: a file (missing, empty, binary, corrupt gzip, malformed lines) or
       an option value; the line names the file or the option and the problem
130    interrupted (SIGINT, Ctrl-C)
143    terminated (SIGTERM)
=====  ============================================================================

Every error mrrstats raises on purpose is a :class:`~mrrstats.errors.MrrstatsError`;
the built-in errors a bad file or value raises on its way through the readers and
the statistics (``ValueError``, ``TypeError``, ``OSError`` and their kind) are bad
input too. :func:`outcome` decides, once, what an exception that ends a command
means; :class:`ArgumentParser` gives the option errors of argparse the same one line.
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import sys
import traceback
import zlib

from ..errors import MrrstatsError
from . import signals

__all__ = [
    "EXIT_OK",
    "EXIT_INTERNAL",
    "EXIT_INPUT",
    "INPUT_ERRORS",
    "ArgumentParser",
    "outcome",
    "message",
    "end_command",
    "option_names",
]

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_INPUT = 2

#: Exceptions that mean bad input (a file or an option value), exit code 2.
INPUT_ERRORS = (
    MrrstatsError,
    ValueError,
    TypeError,
    OSError,
    EOFError,
    MemoryError,
    zlib.error,
    csv.Error,
)

#: Set to 1 to see the traceback of an internal error (exit code 1).
TRACEBACK_VARIABLE = "MRRSTATS_TRACEBACK"


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser whose errors are one line (no usage block) and exit code 2."""

    def error(self, message):
        self.exit(
            EXIT_INPUT, f"{self.prog}: error: {_one_line(message)} (see '{self.prog} --help')\n"
        )


def _one_line(text: str) -> str:
    lines = [ln.strip() for ln in str(text).splitlines() if ln.strip()]
    return " ".join(lines) if len(lines) <= 3 else lines[0]


def message(exc: BaseException, options: dict | None = None) -> str:
    """One line describing ``exc``: the file or option it concerns and the problem.

    ``options`` maps parameter names to the command's option strings
    (``{"n_resamples": "--n-resamples"}``): a message naming a parameter in
    backticks names the option instead.
    """
    if isinstance(exc, OSError) and not isinstance(exc, MrrstatsError) and exc.filename:
        text = f"{exc.filename}: {exc.strerror or type(exc).__name__}"
    else:
        text = _one_line(str(exc)) or type(exc).__name__
    if isinstance(exc, UnicodeDecodeError) and "UTF-8" not in text:
        text = f"not UTF-8 text ({exc.reason} at byte {exc.start})"
    if isinstance(exc, (EOFError, zlib.error)):
        text = f"cannot read compressed data (corrupt or truncated gzip: {text})"
    if options:
        text = re.sub(
            r"`([A-Za-z_][A-Za-z0-9_]*)`", lambda m: options.get(m.group(1), m.group(0)), text
        )
    return text


def outcome(exc: BaseException, options: dict | None = None) -> tuple[int, str | None]:
    """``(exit code, line for standard error or None)`` for an exception ending a command.

    An interruption wins over whatever exception it caused on its way out (a
    kernel or an event loop stopped half-way raises errors of its own).
    """
    if signals.received() or isinstance(exc, KeyboardInterrupt):
        return signals.exit_code(), "mrrstats: interrupted"
    if isinstance(exc, BrokenPipeError):
        return EXIT_OK, None
    if isinstance(exc, INPUT_ERRORS):
        return EXIT_INPUT, f"mrrstats: error: {message(exc, options)}"
    return EXIT_INTERNAL, (
        f"mrrstats: internal error: {type(exc).__name__}: "
        f"{_one_line(str(exc))[:300]} (a bug in mrrstats; set "
        f"{TRACEBACK_VARIABLE}=1 to see where)"
    )


def end_command(exc: BaseException, options: dict | None = None) -> int:
    """Print :func:`outcome`'s line (and the traceback of an internal error when
    ``MRRSTATS_TRACEBACK=1``); returns the exit code."""
    code, line = outcome(exc, options)
    if isinstance(exc, KeyboardInterrupt) or signals.received():
        signals.forget_unhandled()
    if code == EXIT_INTERNAL and os.environ.get(TRACEBACK_VARIABLE, "") not in ("", "0"):
        traceback.print_exception(exc)
    if line:
        print(line, file=sys.stderr, flush=True)
    return code


def option_names(parser) -> dict:
    """``{dest: option string}`` of a (sub)parser's options: ``--n-resamples`` for
    ``n_resamples``."""
    out = {}
    for action in getattr(parser, "_actions", ()):
        longs = [s for s in action.option_strings if s.startswith("--")]
        if longs and action.dest not in out:
            out[action.dest] = longs[0]
    return out
