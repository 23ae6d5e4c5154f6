"""Benchmark: the in-memory doors and the stream engine against the file path, before
and after, in one run.

Two tables:

* doors: the same run (``make_data.py``, ``--queries`` x 1,000 lines) evaluated on
  RR, RR@10, AP, nDCG@10, P@10, R@100 from the TREC file and from a pandas
  DataFrame, an Arrow table, a polars DataFrame, a ``{query: {doc: score}}`` dict
  and a dict of ranked lists ``{query: [doc, ...]}``. The object is built before the
  clock starts and the kernels are loaded on a small run of the same shape first
  (untimed), as ``bench_evaluate.py`` does; the ratio to the file path is the target
  (<= 1.3x).
* stream: ``engine="stream"`` against ``engine="memory"`` on a run of
  ``--stream-lines`` lines, as ``make_data.py`` writes it (sorted by query) and
  shuffled (query order lost), with each process's peak memory (VmHWM); the target
  is <= 2x the in-memory time, under 1 GiB.

Every measurement is one fresh subprocess; each row is the median of ``--repeat``
of them, the versions and rows interleaved so that the machine's load falls on all
alike. ``--before DIR`` names a directory holding an older ``mrrstats`` package
(e.g. ``git archive c3ae45d mrrstats | tar -x -C /tmp/before``): its rows are
measured in the same rounds. Every door's per-query values are compared with the
file path's of the same version, and the stream's with memory's, bit for bit.

Usage: python benchmarks/bench_doors.py [--queries 7000] [--stream-lines 1e7]
       [--repeat 3] [--before DIR] [--only doors|stream] [--results results_doors.md]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
MEASURES = ["RR", "RR@10", "AP", "nDCG@10", "P@10", "R@100"]
SHAPES = ["file", "pandas", "arrow", "polars", "dict", "lists"]
LABELS = {
    "file": "TREC file",
    "pandas": "pandas DataFrame",
    "arrow": "Arrow table",
    "polars": "polars DataFrame",
    "dict": "dict {query: {doc: score}}",
    "lists": "dict of lists {query: [doc, ...]}",
}


def peak_rss() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM")


def _shape(qrels, run, shape):
    """The run (and qrels) as an in-memory object of the given shape."""
    import pyarrow as pa

    import mrrstats

    if shape == "file":
        return str(qrels), str(run)
    q = mrrstats.read_qrels(qrels).to_frame()
    r = mrrstats.read_run(run)
    frame = r.to_frame()
    if shape == "pandas":
        return q, frame
    if shape == "arrow":
        return pa.Table.from_pandas(q), pa.Table.from_pandas(frame)
    if shape == "polars":
        import polars as pl

        return pl.from_pandas(q), pl.from_pandas(frame)
    if shape == "dict":
        d = {}
        for qq, dd, ss in zip(
            frame["query"].tolist(), frame["doc"].tolist(), frame["score"].tolist(), strict=True
        ):
            d.setdefault(qq, {})[dd] = ss
        return q, d
    ranked = mrrstats.rank_run(mrrstats.read_qrels(qrels), r)  # lists in trec_eval's order
    return q, {str(k): list(v) for k, v in zip(ranked.query_ids, ranked.doc_ids(), strict=True)}


def door_child(shape: str, qrels: str, run: str, out: str) -> None:
    sys.path.insert(0, str(HERE))
    from make_data import make

    import mrrstats

    small_q, small_r = make(200, 1000, out=HERE / "_data")  # kernels loaded, untimed
    q, r = _shape(small_q, small_r, shape)
    mrrstats.evaluate(q, {"r": r}, MEASURES)
    q, r = _shape(qrels, run, shape)
    t0 = time.perf_counter()
    ev = mrrstats.evaluate(q, {"r": r}, MEASURES)
    seconds = time.perf_counter() - t0
    ev.values["r"].to_pickle(out)
    print(json.dumps({"seconds": seconds, "rss": peak_rss()}))


def stream_child(engine: str, qrels: str, run: str, out: str) -> None:
    sys.path.insert(0, str(HERE))
    from make_data import make

    import mrrstats

    small_q, small_r = make(200, 1000, out=HERE / "_data")  # kernels loaded, untimed
    mrrstats.evaluate(small_q, {"r": small_r}, MEASURES, engine=engine)
    t0 = time.perf_counter()
    ev = mrrstats.evaluate(qrels, {"r": run}, MEASURES, engine=engine)
    seconds = time.perf_counter() - t0
    ev.values["r"].to_pickle(out)
    print(json.dumps({"seconds": seconds, "rss": peak_rss()}))


def _measure(kind, version, package, arg, qrels, run, out):
    env = dict(os.environ, PYTHONPATH=str(package))
    cmd = [sys.executable, __file__, f"--{kind}-child", arg, str(qrels), str(run), out]
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if res.returncode != 0:
        raise RuntimeError(f"{version} {arg}: {res.stderr[-3000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def shuffled_run(lines: int) -> tuple[Path, Path]:
    """A ``lines``-line run of make_data.py with its lines shuffled (fixed seed)."""
    sys.path.insert(0, str(HERE))
    import numpy as np
    from make_data import make

    qrels, run = make(lines // 1000, 1000)
    out = run.with_name(run.stem + "_shuffled.trec")
    if not out.exists():
        data = np.frombuffer(run.read_bytes(), np.uint8)
        ends = np.flatnonzero(data == 10) + 1
        starts = np.concatenate(([0], ends[:-1]))
        order = np.random.default_rng(0).permutation(ends.size)
        with open(out, "wb") as fh:
            for block in np.array_split(order, 64):
                fh.write(b"".join(data[starts[i] : ends[i]].tobytes() for i in block))
    return qrels, out


def _same(a: Path, b: Path) -> bool:
    import numpy as np
    import pandas as pd

    x, y = pd.read_pickle(a), pd.read_pickle(b)
    return bool(
        x.index.equals(y.index)
        and list(x.columns) == list(y.columns)
        and np.array_equal(x.to_numpy().view(np.int64), y.to_numpy().view(np.int64))
    )


def _rounds(kind, items, versions, qrels, run, repeat, tmp):
    """``{(version, item): [results]}``, rows and versions interleaved in each round."""
    res = {}
    for i in range(repeat):
        for item in items:
            for version, package in versions.items():
                out = os.path.join(tmp, f"{kind}-{version}-{item}-{i}.pkl")
                r = _measure(kind, version, package, item, qrels, run, out)
                r["values"] = out
                res.setdefault((version, item), []).append(r)
                print(
                    f"  {kind} {version:6s} {item:8s} {r['seconds']:7.3f} s "
                    f"{r['rss'] / 2**30:5.2f} GiB",
                    flush=True,
                )
    return res


def _med(rows, key="seconds"):
    return statistics.median(r[key] for r in rows)


def doors_table(res, versions):
    lines = [
        "| input | "
        + " | ".join(f"{v}: s (x file)" for v in versions)
        + " | identical to the file path |",
        "|---|" + "---:|" * len(versions) + "---|",
    ]
    for shape in SHAPES:
        cells, same = [], []
        for v in versions:
            rows = res.get((v, shape))
            if not rows:
                cells.append("")
                continue
            base = _med(res[(v, "file")])
            t = _med(rows)
            cells.append(f"{t:.3f} ({t / base:.2f}x)")
            ref = res[(v, "file")][0]["values"]
            same.append(all(_same(Path(r["values"]), Path(ref)) for r in rows))
        lines.append(
            f"| {LABELS[shape]} | "
            + " | ".join(cells)
            + " | "
            + ("reference" if shape == "file" else "yes" if all(same) else "NO")
            + " |"
        )
    return "\n".join(lines)


def stream_table(res, versions):
    lines = [
        "| version | memory: s, peak | stream: s, peak | stream / memory | identical |",
        "|---|---:|---:|---:|---|",
    ]
    for v in versions:
        mem, st = res[(v, "memory")], res[(v, "stream")]
        same = all(_same(Path(r["values"]), Path(mem[0]["values"])) for r in st)
        lines.append(
            f"| {v} | {_med(mem):.2f} s, {_med(mem, 'rss') / 2**30:.2f} GiB | "
            f"{_med(st):.2f} s, {_med(st, 'rss') / 2**30:.2f} GiB | "
            f"{_med(st) / _med(mem):.2f} | {'yes' if same else 'NO'} |"
        )
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--queries", type=int, default=7000)
    p.add_argument("--stream-lines", type=float, default=1e7)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--before", help="directory holding an older mrrstats package")
    p.add_argument("--only", choices=["doors", "stream"])
    p.add_argument(
        "--orders",
        default="sorted,shuffled",
        help="line orders of the stream rows (sorted, shuffled)",
    )
    p.add_argument(
        "--stream-files",
        help="stream rows on these runs instead: LABEL=QRELS:RUN, comma-separated (e.g. "
        "runs of 3 x 10^7 lines made of copies of make_data.py's with prefixed query ids)",
    )
    p.add_argument("--results", default="results_doors.md")
    p.add_argument("--door-child", nargs=4, help=argparse.SUPPRESS)
    p.add_argument("--stream-child", nargs=4, help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.door_child:
        door_child(*a.door_child)
        return
    if a.stream_child:
        stream_child(*a.stream_child)
        return
    sys.path.insert(0, str(HERE))
    from make_data import make

    versions = {"after": ROOT}
    if a.before:
        versions = {"before": Path(a.before), "after": ROOT}
    load = [os.getloadavg()]
    sections = []
    with tempfile.TemporaryDirectory() as tmp:
        if a.only != "stream":
            qrels, run = make(a.queries, 1000)
            res = _rounds("door", SHAPES, versions, qrels, run, a.repeat, tmp)
            sections.append(
                f"### Doors: {a.queries * 1000:,} lines ({run.name}, "
                f"{run.stat().st_size / 2**20:.0f} MiB), 6 measures, median of "
                f"{a.repeat} fresh processes\n\n" + doors_table(res, versions)
            )
        if a.only != "doors" and a.stream_files:
            for item in a.stream_files.split(","):
                label, files = item.split("=", 1)
                qrels, run = (Path(f) for f in files.split(":"))
                res = _rounds("stream", ["memory", "stream"], versions, qrels, run, a.repeat, tmp)
                sections.append(
                    f"### Stream: {label} ({run.name}, {run.stat().st_size / 2**20:.0f} MiB), "
                    f"median of {a.repeat} fresh processes\n\n" + stream_table(res, versions)
                )
        elif a.only != "doors":
            qrels, sorted_run = make(int(a.stream_lines) // 1000, 1000)
            runs = {
                "sorted": ("as written (sorted by query)", lambda: sorted_run),
                "shuffled": ("shuffled", lambda: shuffled_run(int(a.stream_lines))[1]),
            }
            for key in a.orders.split(","):
                order, get = runs[key]
                run = get()
                res = _rounds("stream", ["memory", "stream"], versions, qrels, run, a.repeat, tmp)
                sections.append(
                    f"### Stream: {int(a.stream_lines):,}-line run, lines "
                    f"{order} ({run.name}, {run.stat().st_size / 2**20:.0f} MiB), "
                    f"median of {a.repeat} fresh processes\n\n" + stream_table(res, versions)
                )
    load.append(os.getloadavg())
    import platform

    header = (
        f"# bench_doors: in-memory doors and the stream engine\n\n"
        f"`python benchmarks/bench_doors.py {' '.join(sys.argv[1:])}`\n\n"
        f"Machine: {os.cpu_count()} cores shared with other jobs; load average "
        f"(1/5/15 min) {'/'.join(f'{x:.1f}' for x in load[0])} at the start, "
        f"{'/'.join(f'{x:.1f}' for x in load[1])} at the end; Python "
        f"{platform.python_version()}.\n\n"
    )
    text = header + "\n\n".join(sections) + "\n"
    print(text)
    (HERE / a.results).write_text(text)


if __name__ == "__main__":
    main()
