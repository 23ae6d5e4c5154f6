"""Benchmark: from TREC files to per-query and mean values, each tool a whole fresh process.

What a user pays from the shell: every row is one fresh subprocess timed from outside
(interpreter start, imports, numba cache loads, reading, the work, the output), run
with ``python -P`` so that each imports the checkout named by ``PYTHONPATH``. The
rows run interleaved, round by round (the machine is shared: ratios within one run
count, not absolute times), and the best of ``--repeat`` rounds is kept.

Rows:

* ``read the file once``: a fresh ``python -c`` that reads the run file's bytes
  (the yardstick: the evaluation should cost a small multiple of it);
* ``mrrstats evaluate`` (the command line) and ``mrrstats.evaluate`` on the paths
  (the Python door), with this checkout's code;
* the same two with the code of ``--before REF`` (a ``git archive`` of that commit,
  its numba cache warmed first, untimed), when given;
* ``pytrec_eval`` (``parse_qrel`` + ``parse_run`` + ``evaluate``, 5 measures: it has
  no RR@10) and ``ranx`` (``from_file`` + ``evaluate``, its numba cache warmed once
  first, untimed).

Then, in one fresh process per checkout, where the time goes (best of ``--repeat``
per phase): imports, numba's target set-up at its first cache load, the kernels'
loads, reading qrels and run, ranking, metrics, output.

Measures: RR, RR@10, AP, nDCG@10, P@10, R@100 on the 7,000 x 1,000 run of
``make_data.py``. Writes ``results_evaluate_fresh.md``.

Usage: python benchmarks/bench_fresh.py [--repeat 3] [--before REF] [--peers pytrec_eval ranx]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

MEASURES = ["RR", "RR@10", "AP", "nDCG@10", "P@10", "R@100"]

READ = "import sys\nwith open(sys.argv[1], 'rb') as fh:\n    fh.read()\n"

API = (
    "import sys, mrrstats\n"
    f"ev = mrrstats.evaluate(sys.argv[1], sys.argv[2], {MEASURES!r})\n"
    "print(ev.aggregate().to_string())\n"
)

PYTREC = """import sys, pytrec_eval
with open(sys.argv[1]) as fh:
    q = pytrec_eval.parse_qrel(fh)
with open(sys.argv[2]) as fh:
    r = pytrec_eval.parse_run(fh)
ev = pytrec_eval.RelevanceEvaluator(q, {"recip_rank", "map", "ndcg_cut.10", "P.10",
                                        "recall.100"})
res = ev.evaluate(r)
names = ("recip_rank", "map", "ndcg_cut_10", "P_10", "recall_100")
print({n: sum(v[n] for v in res.values()) / len(res) for n in names})
"""

RANX = """import sys
from ranx import Qrels, Run, evaluate
metrics = ["mrr", "mrr@10", "map", "ndcg@10", "precision@10", "recall@100"]
q = Qrels.from_file(sys.argv[1], kind="trec")
r = Run.from_file(sys.argv[2], kind="trec")
print(evaluate(q, r, metrics, make_comparable=False))
"""

# Where the time goes, in one fresh process (printed as "label<TAB>seconds" lines). The
# phases follow the path: what a checkout without the C kernels loads (numba, its target,
# the cached kernels) shows 0 where the path does not load it.
# The phase timer both phase scripts start with.
_TIMER = """marks = []
t = time.perf_counter()
def mark(label):
    global t
    now = time.perf_counter()
    marks.append((label, now - t))
    t = now
"""

PHASES = "import sys, time\n" + _TIMER + f"""import numpy
mark("import numpy")
import pyarrow, pyarrow.compute
mark("import pyarrow")
import pandas
mark("import pandas")
from mrrstats import compiled
native = getattr(compiled, "native", lambda: None)()
mark("load the C kernels (mrrstats._native)")
if native is None:
    compiled.available()
mark("import numba")
if native is None:
    from numba.core.registry import cpu_target
    cpu_target.target_context.refresh()
mark("numba's target set-up (at the first cache load)")
import mrrstats
from mrrstats.metrics import evaluation as E
from mrrstats.io.trec import qrels_iv, run_iv
from mrrstats.model.ranking import rank_run
from mrrstats.metrics.kernels import score_ranked_run
mark("import mrrstats (the evaluate path)")
print("#", mrrstats.__file__)
M = {MEASURES!r}
E.evaluate(sys.argv[3], sys.argv[4], M)
mark("kernel loads (evaluate on a 200,000-line run)")
qq = qrels_iv(sys.argv[1])
mark("read qrels")
rr = run_iv(sys.argv[2])
mark("read run (tokenize)")
ranked = rank_run(qq, rr)
mark("(within the evaluate row below) rank: sort by score, ties by doc id")
score_ranked_run(ranked, [E.measures_iv(m)[0] for m in M])
mark("(within the evaluate row below) metrics: 6 measures")
ev = E.evaluate(qq, rr, M)
mark("evaluate on the objects read (rank + metrics + query policies)")
ev.aggregate().to_string()
mark("output (the table of means)")
print("# numba imported:", "numba" in sys.modules)
for label, s in marks:
    print(f"{{label}}\\t{{s:.4f}}")
"""

# The command line's path (`mrrstats evaluate QRELS RUN`: the array path of
# mrrstats/metrics/files.py where the checkout has it), the calls its _text makes, timed
# one by one in a fresh process; the interpreter's teardown at the end is not timed here
# (the whole-process rows include it).
PHASES_CLI = "import sys, time, inspect\n" + _TIMER + f"""import numpy as np
mark("import numpy")
import pyarrow
mark("import pyarrow")
import mrrstats, mrrstats.cli, mrrstats.cli.evaluate
from mrrstats.metrics import files as F
from mrrstats.metrics.evaluation import _evaluate_iv
from mrrstats.io.trec import qrels_iv, run_iv
from mrrstats.model.ranking import judged_from_qrels, rank_run
from mrrstats.metrics.kernels import ranked_values
from mrrstats.numerics import no_hugepage_madvise
mark("import the path's mrrstats modules (and what they import)")
print("#", mrrstats.__file__)
with no_hugepage_madvise():
    ties, rel, measures = _evaluate_iv("trec_eval", 1, "both", None, {MEASURES!r})
    qrels = qrels_iv(sys.argv[1])
    judged = judged_from_qrels(qrels)
    mark("read qrels")
    light = {{"rank": False}} if "rank" in inspect.signature(run_iv).parameters else {{}}
    run = run_iv(sys.argv[2], **light)
    mark("read run (tokenize)")
    ranked = rank_run(qrels, run, ties=ties, max_depth=None)
    mark("rank: sort by score, ties by doc id, grades")
    values = ranked_values(ranked, measures, rel=rel)
    mark("metrics: 6 measures")
    F._finish(judged, run.name, ranked.query_ids.astype(str), values, measures, rel=rel,
              empty_target="neg")
    mark("query policies")
print("# imported:", [m for m in ("pandas", "numba", "pyarrow.compute") if m in sys.modules])
for label, s in marks:
    print(f"{{label}}\\t{{s:.4f}}")
"""


def _export(ref: str, dest: Path) -> Path:
    """``git archive`` of ``ref``'s package into ``dest`` (its own numba cache), with its C
    kernels (``mrrstats/_native.c``, where the ref has them) built in place as
    ``pip install -e .`` builds them: the side-by-side rows then compare C with C."""
    has_setup = (
        subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", f"{ref}:setup.py"]).returncode
        == 0
    )
    with tempfile.NamedTemporaryFile(suffix=".tar") as tar:
        paths = ["mrrstats", "setup.py"] if has_setup else ["mrrstats"]
        subprocess.run(
            ["git", "-C", str(ROOT), "archive", "-o", tar.name, ref, *paths], check=True
        )
        with tarfile.open(tar.name) as tf:
            tf.extractall(dest, filter="data")
    if (dest / "setup.py").exists() and (dest / "mrrstats" / "_native.c").exists():
        subprocess.run(
            [sys.executable, "setup.py", "-q", "build_ext", "--inplace"],
            cwd=dest,
            check=True,
            capture_output=True,
        )
    return dest


def _env(code_dir: Path | None) -> dict:
    env = dict(os.environ)
    # Bytecode as a user has it: pip compiles an installed package's modules (and the
    # peers' here) to .pyc at install time, and Python writes them for an editable or
    # source checkout at the first import (the untimed warm-up round). Where the shell
    # sets PYTHONDONTWRITEBYTECODE (this project's machines do), every timed mrrstats
    # process would compile its ~40 modules from source again (0.04-0.1 s), a cost the
    # peers, compiled at install, never pay.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if code_dir is not None:
        env["PYTHONPATH"] = str(code_dir)
    return env


def _cli() -> list[str]:
    args = []
    for m in MEASURES:
        args += ["-m", m]
    return [sys.executable, "-P", "-m", "mrrstats", "evaluate", "{qrels}", "{run}", *args]


def _timed(cmd: list[str], env: dict) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd[:4]} failed:\n{proc.stderr[-2000:]}")
    return wall


def _phases(code_dir: Path, files: list[str], repeat: int, script: str = PHASES
            ) -> dict[str, float]:
    best: dict[str, float] = {}
    for _ in range(repeat):
        out = subprocess.run(
            [sys.executable, "-P", "-c", script, *files],
            capture_output=True,
            text=True,
            env=_env(code_dir),
            check=True,
        ).stdout
        lines = out.strip().splitlines()
        # the checkout asked for, not the working directory's (hence python -P)
        assert lines[0].startswith(f"# {code_dir}"), lines[0]
        for line in lines[1:]:
            if line.startswith("#"):
                continue
            label, s = line.rsplit("\t", 1)
            best[label] = min(best.get(label, float("inf")), float(s))
    return best


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=3, help="rounds; the best is kept")
    p.add_argument("--before", default=None, help="git ref of the 'before' code (optional)")
    p.add_argument("--peers", nargs="*", default=["pytrec_eval", "ranx"])
    p.add_argument("--results", default="results_evaluate_fresh.md")
    a = p.parse_args()
    from make_data import make

    qrels, run = make(7000, 1000)
    wq, wr = make(200, 1000)  # 200,000 lines: warms numba caches, loads every kernel
    files = [str(qrels), str(run)]
    size_mb = os.path.getsize(run) / 2**20
    load0 = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        checkouts = {"after": ROOT}
        if a.before:
            checkouts = {"before": _export(a.before, Path(tmp) / "before"), **checkouts}
        rows: dict[str, tuple[list[str], dict]] = {
            "read the file once (fresh python)": (
                [sys.executable, "-P", "-c", READ, str(run)],
                _env(None),
            )
        }
        for label, code in checkouts.items():
            env = _env(code)
            # untimed: the numba caches exist (compiled once per checkout)
            _timed([c.format(qrels=wq, run=wr) for c in _cli()], env)
            rows[f"mrrstats evaluate (command line), {label}"] = (
                [c.format(qrels=qrels, run=run) for c in _cli()],
                env,
            )
            rows[f"mrrstats.evaluate(paths) (Python), {label}"] = (
                [sys.executable, "-P", "-c", API, *files],
                env,
            )
            rows[f"import mrrstats, {label}"] = (
                [sys.executable, "-P", "-c", "import mrrstats"],
                env,
            )
            rows[f"mrrstats --help, {label}"] = (
                [sys.executable, "-P", "-m", "mrrstats", "--help"],
                env,
            )
        peers = {"pytrec_eval": PYTREC, "ranx": RANX}
        for peer in a.peers:
            if peer == "ranx":  # warm ranx's numba cache once, untimed
                _timed([sys.executable, "-P", "-c", RANX, str(wq), str(wr)], _env(None))
            rows[peer] = ([sys.executable, "-P", "-c", peers[peer], *files], _env(None))
        best = {name: float("inf") for name in rows}
        for i in range(a.repeat):
            for name, (cmd, env) in rows.items():
                s = _timed(cmd, env)
                best[name] = min(best[name], s)
                print(f"round {i + 1}: {name:50s} {s:7.3f} s", flush=True)
        phases = {
            label: _phases(code, [*files, str(wq), str(wr)], a.repeat)
            for label, code in checkouts.items()
        }
        cli_phases = {
            label: _phases(code, files, a.repeat, PHASES_CLI)
            for label, code in checkouts.items()
        }
    load1 = os.getloadavg()
    read = best["read the file once (fresh python)"]
    cli = best["mrrstats evaluate (command line), after"]
    lines = [
        "| whole fresh process | seconds (best of "
        f"{a.repeat}) | x one read | peer / mrrstats CLI |",
        "|---|---:|---:|---:|",
    ]
    for name, s in best.items():
        peer = f"{s / cli:.1f}x" if name in a.peers else ""
        lines.append(f"| {name} | {s:.3f} | {s / read:.1f} | {peer} |")
    targets = [
        f"`mrrstats evaluate` / one read: {cli / read:.1f}x (target <= 5x, aim 3x: "
        f"{'met' if cli / read <= 5 else 'not met'})"
    ]
    for peer, want in (("pytrec_eval", 10), ("ranx", 25)):
        if peer in best:
            x = best[peer] / cli
            targets.append(
                f"{peer} / `mrrstats evaluate`: {x:.1f}x (target >= {want}x: "
                f"{'met' if x >= want else 'not met'})"
            )
    labels = list(next(iter(phases.values())))
    cols = list(phases)
    ph = [
        "| phase (one fresh process, best of each) | " + " | ".join(f"{c} s" for c in cols) + " |",
        "|---|" + "---:|" * len(cols),
    ]
    for label in labels:
        ph.append(
            f"| {label} | "
            + " | ".join(f"{phases[c].get(label, float('nan')):.3f}" for c in cols)
            + " |"
        )
    ph.append(
        "| sum (the rows marked 'within' left out) | "
        + " | ".join(
            f"{sum(v for k, v in phases[c].items() if not k.startswith('(within')):.3f}"
            for c in cols
        )
        + " |"
    )
    cli_cols = list(cli_phases)
    cli_ph = [
        "| phase of the command line (one fresh process, best of each) | "
        + " | ".join(f"{c} s" for c in cli_cols) + " |",
        "|---|" + "---:|" * len(cli_cols),
    ]
    for label in next(iter(cli_phases.values())):
        cli_ph.append(f"| {label} | " + " | ".join(
            f"{cli_phases[c].get(label, float('nan')):.3f}" for c in cli_cols) + " |")
    cli_ph.append("| sum (the teardown at exit not included) | " + " | ".join(
        f"{sum(cli_phases[c].values()):.3f}" for c in cli_cols) + " |")
    cmd = " ".join(["python benchmarks/bench_fresh.py", *sys.argv[1:]])
    import platform

    text = (
        f"# bench_fresh: TREC files to per-query and mean values, whole fresh processes\n\n"
        f"`{cmd}`\n\nMachine: {os.cpu_count()} cores, load average {load0[0]:.1f} at "
        f"the start, {load1[0]:.1f} at the end (shared: read the ratios); Python "
        f"{platform.python_version()}; run file {size_mb:.0f} MB (7000 queries x 1000 "
        f"documents), warm page cache; measures {', '.join(MEASURES)} (pytrec_eval: "
        f"no RR@10). Rows interleaved round by round.\n\n"
        + "\n".join(lines)
        + "\n\n"
        + "\n".join(f"- {t}" for t in targets)
        + "\n\n## Where the time goes\n\n"
        + "The Python door (`mrrstats.evaluate(paths)`, DataFrames, so pandas):\n\n"
        + "\n".join(ph)
        + "\n\nThe command line (`mrrstats evaluate QRELS RUN`, the array path):\n\n"
        + "\n".join(cli_ph)
        + "\n"
    )
    print()
    print(text)
    (HERE / a.results).write_text(text)


if __name__ == "__main__":
    main()
