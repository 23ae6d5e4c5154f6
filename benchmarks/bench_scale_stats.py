"""Statistics at scale: the randomization test and the Poisson bootstrap interval over
10^6-10^7 queries read in blocks (memmaps, Parquet) against the same functions in memory.

Each measurement runs in a fresh subprocess (peak RSS of that process, VmHWM) on generated
per-query values (two systems, RR-like values in [0, 1], float64), B resamples. The blocked
rows (``mrrstats.blocked``, blocks of 2**20 queries) must give the in-memory numbers
bit for bit (p-value, null distribution, interval); the table says whether they do. The
``import`` row is the footprint of Python + NumPy + mrrstats, the floor of every row.

Usage::

    python benchmarks/bench_scale_stats.py [--sizes 1e6,1e7] [--resamples 1000]
                                           [--memory-sizes 1e6,1e7]

Writes ``benchmarks/results_scale_stats.md``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = HERE / "_data" / "scale_stats"


def peak_rss() -> int:
    """Peak resident memory of this process (VmHWM)."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def make_data(n: int) -> dict:
    """``a.npy``, ``b.npy`` (float64) and ``ab.parquet`` (row groups of 2**20) for n queries."""
    import numpy as np

    d = DATA / f"{n}"
    files = {"a": d / "a.npy", "b": d / "b.npy", "parquet": d / "ab.parquet"}
    if all(f.exists() for f in files.values()):
        return files
    import pyarrow as pa
    import pyarrow.parquet as pq

    d.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(n)
    a = np.lib.format.open_memmap(files["a"], mode="w+", dtype=np.float64, shape=(n,))
    b = np.lib.format.open_memmap(files["b"], mode="w+", dtype=np.float64, shape=(n,))
    writer = None
    step = 1 << 20
    for i in range(0, n, step):
        m = min(step, n - i)
        ranks = rng.geometric(0.3, m)
        a[i:i + m] = 1.0 / ranks
        b[i:i + m] = 1.0 / np.maximum(1, ranks + rng.integers(-1, 3, m))
        t = pa.table({"a": a[i:i + m], "b": b[i:i + m]})
        if writer is None:
            writer = pq.ParquetWriter(files["parquet"], t.schema)
        writer.write_table(t, row_group_size=step)
    writer.close()
    a.flush()
    b.flush()
    return files


def child(kind: str, source: str, n: int, B: int, out: str) -> None:
    import numpy as np

    import mrrstats

    files = make_data(n)
    t0 = time.perf_counter()
    if kind == "import":
        res = None
    elif source == "memory":
        a, b = np.load(files["a"]), np.load(files["b"])
        if kind == "test":
            res = mrrstats.randomization_test(a, b, n_resamples=B, rng=1)
        else:
            res = mrrstats.bootstrap_ci(a, b, scheme="poisson", n_resamples=B, rng=1)
    else:
        if source == "memmap":
            args, kw = (np.load(files["a"], mmap_mode="r"), np.load(files["b"], mmap_mode="r")), {}
        else:
            args, kw = (files["parquet"],), {"columns": ("a", "b")}
        if kind == "test":
            res = mrrstats.blocked.randomization_test(*args, **kw, n_resamples=B, rng=1)
        else:
            res = mrrstats.blocked.bootstrap_ci(*args, **kw, n_resamples=B, rng=1)
    seconds = time.perf_counter() - t0
    row = {"seconds": seconds, "rss": peak_rss()}
    if res is not None:
        if kind == "test":
            dist = res.null_distribution
            row.update(statistic=res.statistic, pvalue=res.pvalue)
        else:
            dist = res.bootstrap_distribution
            row.update(statistic=res.statistic, acceleration=res.acceleration)
        row["interval"] = list(res.confidence_interval())
        row["dist_sha1"] = hashlib.sha1(np.ascontiguousarray(dist).tobytes()).hexdigest()
    Path(out).write_text(json.dumps(row))


def measure(kind, source, n, B):
    out = DATA / f"_row_{kind}_{source}_{n}.json"
    cmd = [sys.executable, str(Path(__file__)), "--child", kind, source, str(n), str(B), str(out)]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if res.returncode != 0:
        raise RuntimeError(res.stderr[-3000:])
    return json.loads(out.read_text())


def _same(row, ref):
    if ref is None:
        return "(no in-memory run)"
    keys = ("statistic", "pvalue", "acceleration", "interval", "dist_sha1")
    same = all(row.get(k) == ref.get(k) for k in keys)
    return "identical" if same else "DIFFERENT"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1e6,1e7")
    ap.add_argument("--memory-sizes", default="1e6,1e7")
    ap.add_argument("--resamples", type=int, default=1000)
    args = ap.parse_args()
    sizes = [int(float(s)) for s in args.sizes.split(",")]
    mem_sizes = {int(float(s)) for s in args.memory_sizes.split(",") if s}
    B = args.resamples
    for n in sizes:
        make_data(n)
    base = measure("import", "none", sizes[0], B)
    rows = [("import mrrstats (floor)", "-", "-", base, "")]
    print(f"import: {base['rss'] / 2**20:.0f} MiB", flush=True)
    for n in sizes:
        for kind, label in (("test", "randomization test"), ("ci", "Poisson bootstrap CI")):
            ref = measure(kind, "memory", n, B) if n in mem_sizes else None
            if ref is not None:
                rows.append((label, f"{n:.0e}", "in memory", ref, "reference"))
                print(label, n, "memory", f"{ref['seconds']:.1f}s", flush=True)
            for source in ("memmap", "parquet"):
                row = measure(kind, source, n, B)
                rows.append((label, f"{n:.0e}", f"{source}, blocks", row, _same(row, ref)))
                print(label, n, source, f"{row['seconds']:.1f}s", _same(row, ref), flush=True)
    lines = [
        "# Statistics at scale: queries in blocks (`mrrstats.blocked`)",
        "",
        f"`python benchmarks/bench_scale_stats.py --sizes {args.sizes} --memory-sizes "
        f"{args.memory_sizes} --resamples {B}` on {platform.machine()}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}. B = {B:,} resamples, "
        "blocks of 2**20 queries, default workers (all cores). Each row is a fresh "
        "process; peak memory is its VmHWM. `same numbers` compares statistic, p-value or "
        "acceleration, the 95% interval and a hash of the whole null or bootstrap "
        "distribution with the in-memory function (`randomization_test`, "
        "`bootstrap_ci(scheme=\"poisson\")`) on the same data and seed.",
        "",
        "| statistic | queries | source | seconds | peak memory (MiB) | same numbers |",
        "|---|---|---|---:|---:|---|",
    ]
    for label, n, source, row, same in rows:
        lines.append(f"| {label} | {n} | {source} | {row['seconds']:.2f} | "
                     f"{row['rss'] / 2**20:.0f} | {same} |")
    lines += ["", "Memory of the blocked rows is the floor plus O(B + block) (the B resampled "
              "sums and one block of queries with its exact split); the in-memory rows hold "
              "the vectors and, for the test, bit matrices of the queries."]
    (HERE / "results_scale_stats.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6])
    else:
        main()
