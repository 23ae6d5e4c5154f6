"""The ``mrrstats`` command line.

Each subcommand lives in its own module ``mrrstats.cli.<name>`` that
defines ``HELP`` (one line), ``add_arguments(parser)`` and ``run(args) -> int``.
Bad input ends the program with exit code 2 and a one-line message on stderr;
output piped into ``head`` ends quietly (exit code 0, nothing on stderr).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from ..errors import InputError
from ..version import __version__

__all__ = ["main", "build_parser"]

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
    "bayes": "mrrstats.cli.bayes",
    "calibrate": "mrrstats.cli.calibrate",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mrrstats",
        description="Statistics of Mean Reciprocal Rank and companion ranking metrics.",
    )
    parser.add_argument("--version", action="version", version=f"mrrstats {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, module_name in _COMMANDS.items():
        module = importlib.import_module(module_name)
        p = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 on success, 2 on bad input)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code = int(args._run(args) or 0)
        sys.stdout.flush()  # a closed pipe shows up here, not at interpreter exit
        return code
    except BrokenPipeError:
        # Output piped into `head` and the like: end quietly. Point stdout at
        # /dev/null so that the interpreter's final flush does not fail again.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):  # pragma: no cover - stdout without a descriptor
            pass
        return 0
    except (InputError, ValueError, TypeError, OSError) as exc:
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        print(f"mrrstats: error: {msg}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # pragma: no cover - interactive only
        print("mrrstats: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
