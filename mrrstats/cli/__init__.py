"""The ``mrrstats`` command line.

Each subcommand lives in its own module ``mrrstats.cli.<name>`` that
defines ``HELP`` (one line), ``add_arguments(parser)`` and ``run(args) -> int``.
Every way a command ends is one exit code and at most one line on stderr
(:mod:`mrrstats.cli.errors`): bad input 2, an interruption 130 (SIGINT) or 143
(SIGTERM, :mod:`mrrstats.cli.signals`); output piped into ``head`` ends quietly
(exit code 0, nothing on stderr).
"""

from __future__ import annotations

import argparse
import atexit
import importlib
import os
import sys

from .. import tempfiles
from ..version import __version__
from . import signals
from .common import apply_example_seed
from .errors import ArgumentParser, end_command, option_names

__all__ = ["main", "console_main", "build_parser"]

# Subcommand name -> module. Add a line here to register a new subcommand.
_COMMANDS = {
    "evaluate": "mrrstats.cli.evaluate",
    "baseline": "mrrstats.cli.baseline",
    "agreement": "mrrstats.cli.agreement",
    "compare": "mrrstats.cli.compare",
    "report": "mrrstats.cli.report",
    "multiverse": "mrrstats.cli.multiverse",
    "leaderboard": "mrrstats.cli.leaderboard",
    "estimate": "mrrstats.cli.estimate",
    "unpaired": "mrrstats.cli.unpaired",
    "mixed": "mrrstats.cli.mixed",
    "sampled": "mrrstats.cli.sampled",
    "ppi": "mrrstats.cli.ppi",
    "judges": "mrrstats.cli.judges",
    "bounds": "mrrstats.cli.bounds",
    "replicates": "mrrstats.cli.replicates",
    "collections": "mrrstats.cli.collections",
    "critical-difference": "mrrstats.cli.critical",
    "reproducibility": "mrrstats.cli.reproducibility",
    "bayes": "mrrstats.cli.bayes",
    "calibrate": "mrrstats.cli.calibrate",
}


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="mrrstats",
        description="Statistics of Mean Reciprocal Rank and companion ranking metrics.",
        epilog="Exit codes: 0 done, 1 internal error (a bug), 2 bad input (a file or an "
               "option), 130 interrupted (SIGINT), 143 terminated (SIGTERM).",
    )
    parser.add_argument("--version", action="version", version=f"mrrstats {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, module_name in _COMMANDS.items():
        module = importlib.import_module(module_name)
        p = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(p)
        p.set_defaults(_run=module.run, _parser=p)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code (:mod:`mrrstats.cli.errors`: 0 done,
    1 internal error, 2 bad input, 130 interrupted, 143 terminated).

    Temporary files of the command are removed however it ends, and those left by
    killed runs are removed first (:mod:`mrrstats.tempfiles`).
    """
    signals.reset()
    previous = signals.install()
    try:
        return _run_command(argv)
    finally:
        tempfiles.cleanup()
        signals.restore(previous)


def console_main() -> None:
    """The ``mrrstats`` program (console script and ``python -m mrrstats``): :func:`main`
    on ``sys.argv``, then exit with its code; an interrupted command ends at once
    (:func:`mrrstats.cli.signals.exit_now`)."""
    code = main()
    if signals.received():
        signals.exit_now(code)
    if code == 0 and signals.teardown_skippable():
        atexit._run_exitfuncs()  # what a normal exit runs first (tempfile clean-up, ...)
        signals.exit_now(code)  # then the streams flushed, the teardown skipped
    sys.exit(code)


def _run_command(argv) -> int:
    options = {}
    try:
        tempfiles.clean_stale()
        args = build_parser().parse_args(argv)
        options = option_names(args._parser)
        apply_example_seed(args)
        code = int(args._run(args) or 0)
        sys.stdout.flush()  # a closed pipe shows up here, not at interpreter exit
        if signals.received():  # an interruption some library swallowed
            raise KeyboardInterrupt
        return code
    except SystemExit:  # argparse: --help, --version, a bad option (one line, code 2)
        raise
    except BaseException as exc:  # noqa: BLE001 - every way out gets a code and one line
        if isinstance(exc, BrokenPipeError) and not signals.received():
            _quiet_stdout()
        return end_command(exc, options)


def _quiet_stdout() -> None:
    """Output piped into `head` and the like: point stdout at /dev/null so that the
    interpreter's final flush does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # pragma: no cover - stdout without a descriptor
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
