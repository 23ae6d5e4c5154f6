"""Cold start: ``import mrrstats`` and ``mrrstats --help`` against ``import pandas``.

Each row is timed in ``--runs`` fresh Python processes (rows interleaved, so a burst of
load on the shared machine hits every row alike) and reported as the median:

* wall seconds of the whole process, interpreter start-up included (what a user waits);
* seconds of the statement itself, measured inside the process with ``perf_counter``
  (the import, or ``main([...])`` of the command line), start-up excluded;
* the modules it leaves in ``sys.modules``, and which heavy ones among them.

``mrrstats --help`` runs the console script's code (``mrrstats.cli.main``) with the
arguments given. ``--root`` picks the checkout whose ``mrrstats`` is imported (default:
this one); ``--before`` adds the mrrstats rows of a second checkout to the same rounds
(``git archive <commit> mrrstats | tar -x -C /tmp/before`` makes one). The targets:
``import mrrstats`` at most ``import pandas``; ``mrrstats --help`` and ``mrrstats
compare --help`` at most half of ``import pandas`` (medians of the statement's seconds).

Writes ``benchmarks/results_import.md`` (``--out`` to write elsewhere, ``--out -`` for
stdout only).

Run: ``python benchmarks/bench_import.py [--runs 15] [--root PATH] [--before PATH]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: Modules ``import mrrstats`` and ``mrrstats --help`` must not load.
HEAVY = ("pandas", "scipy.stats", "statsmodels", "matplotlib", "pyarrow", "numba",
         "nbformat", "nbclient", "nbconvert")

_CHILD = r"""
import io, json, sys, time
{setup}
t0 = time.perf_counter()
{statement}
t1 = time.perf_counter()
heavy = [m for m in {heavy!r} if m in sys.modules]
print(json.dumps({{"seconds": t1 - t0, "modules": len(sys.modules), "heavy": heavy}}))
"""

_CLI = """try:
    from mrrstats.cli import main
    main({argv!r})
except SystemExit:
    pass
finally:
    sys.stdout = sys.__stdout__"""

#: (row, statement); the mrrstats rows run once per checkout.
BASE_ROWS = [("import numpy", "import numpy"), ("import pandas", "import pandas")]
MRRSTATS_ROWS = [
    ("import mrrstats", "import mrrstats"),
    ("mrrstats --help", _CLI.format(argv=["--help"])),
    ("mrrstats compare --help", _CLI.format(argv=["compare", "--help"])),
]


def _child_code(statement: str) -> str:
    # --help prints to stdout: send it to a sink so the child prints only its JSON line
    setup = "sys.stdout = io.StringIO()" if "main(" in statement else ""
    return _CHILD.format(setup=setup, statement=statement, heavy=HEAVY)


def run_once(statement: str, root: str) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [env.get("PYTHONPATH")])])
    env.pop("PYTHONSTARTUP", None)
    # bytecode as an installed package has it (see bench_fresh._env)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    t0 = time.perf_counter()
    # cwd: ``python -c`` puts the working directory first on sys.path
    out = subprocess.run([sys.executable, "-c", _child_code(statement)], env=env, cwd=root,
                         capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"{statement!r} failed:\n{out.stderr}")
    wall = time.perf_counter() - t0
    res = json.loads(out.stdout.strip().splitlines()[-1])
    res["wall"] = wall
    return res


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15, help="fresh processes per row (15)")
    ap.add_argument("--root", default=str(HERE.parent),
                    help="checkout whose mrrstats is imported (default: this one)")
    ap.add_argument("--before", metavar="ROOT", default=None,
                    help="a second checkout (e.g. an export of main before a change): its "
                         "mrrstats rows run in the same rounds, marked (before)")
    ap.add_argument("--out", default=str(HERE / "results_import.md"),
                    help="markdown file to write ('-': print only)")
    args = ap.parse_args(argv)

    rows = [(name, stmt, args.root) for name, stmt in BASE_ROWS]
    rows += [(name, stmt, args.root) for name, stmt in MRRSTATS_ROWS]
    if args.before:
        rows += [(f"{name} (before)", stmt, args.before) for name, stmt in MRRSTATS_ROWS]
    for _, statement, root in rows:  # warm the file-system cache and the .pyc files
        run_once(statement, root)
    samples: dict = {name: [] for name, _, _ in rows}
    for _ in range(args.runs):
        for name, statement, root in rows:
            samples[name].append(run_once(statement, root))

    pandas_s = statistics.median(r["seconds"] for r in samples["import pandas"])
    pandas_wall = statistics.median(r["wall"] for r in samples["import pandas"])
    command = "python benchmarks/bench_import.py --runs " + str(args.runs)
    if args.before:
        command += f" --before {args.before}"
    lines = [
        "# Cold start: `import mrrstats` and `mrrstats --help`",
        "",
        f"`{command}`; {platform.machine()}, {os.cpu_count()} cores (shared), "
        f"Python {platform.python_version()}; load average "
        + " ".join(f"{x:.2f}" for x in os.getloadavg()) + " at the end.",
        "",
        f"Medians of {args.runs} fresh processes per row, rows interleaved. *statement*: the "
        "import (or `main([...])` of the command line) timed inside the process; *process*: "
        "the whole process, interpreter start-up included. Ratios are to `import pandas` "
        "in the same run. Heavy modules: those of " + ", ".join(HEAVY) + " left loaded."
        + (" Rows marked (before) import the checkout given with `--before`." if args.before
           else ""),
        "",
        "| row | statement s | x import pandas | process s | x import pandas | modules "
        "| heavy modules loaded |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for name, res in samples.items():
        s = statistics.median(r["seconds"] for r in res)
        w = statistics.median(r["wall"] for r in res)
        mods = res[-1]["modules"]
        heavy = ", ".join(res[-1]["heavy"]) or "none"
        lines.append(f"| `{name}` | {s:.4f} | {s / pandas_s:.2f} | {w:.3f} | "
                     f"{w / pandas_wall:.2f} | {mods} | {heavy} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out != "-":
        Path(args.out).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
