"""Engines of ``evaluate`` on generated runs of growing size: time and peak memory.

Each measurement runs in a fresh subprocess (peak RSS of that process, VmHWM;
for Dask, the client's plus the sum of the workers' peaks). Dask reads the run
as 8 Parquet files cut at equal row counts (so a few queries straddle files). The runs come
from ``make_data.py`` (depth 1,000, tied scores, sorted by query as written).
Every engine's per-query values are checked to be identical to ``memory``'s.

Usage::

    python benchmarks/bench_scale.py [--sizes 1e6,1e7,5e7] [--dask-sizes 1e6,1e7]
                                     [--workers 1,2,4]

Writes ``benchmarks/results_scale.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
MEASURES = ["RR", "RR@10", "AP", "nDCG@10", "P@10", "R@100"]


def peak_rss() -> int:
    """This process's peak resident memory (VmHWM; unlike getrusage's ru_maxrss it
    does not carry the parent's peak across fork + exec)."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def child(engine: str, qrels: str, run: str, workers: int, out: str) -> None:
    import numpy as np

    import mrrstats

    client = cluster = None
    if engine == "dask":
        from distributed import Client, LocalCluster

        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None, memory_limit=None)
        client = Client(cluster)
    t0 = time.perf_counter()
    ev = mrrstats.evaluate(qrels, {"run": run}, MEASURES, engine=engine)
    seconds = time.perf_counter() - t0
    rss = peak_rss()
    if client is not None:
        peaks = client.run(peak_rss)
        rss_workers = sum(peaks.values())
        client.close()
        cluster.close()
    else:
        rss_workers = 0
    np.save(out, ev.values["run"].to_numpy())
    print(json.dumps({"seconds": seconds, "rss": rss, "rss_workers": rss_workers}))


def measure(engine, qrels, run, workers=1):
    out = str(HERE / "_data" / f"_values_{engine}.npy")
    cmd = [sys.executable, str(Path(__file__)), "--child", engine, str(qrels), str(run),
           str(workers), out]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if res.returncode != 0:
        raise RuntimeError(res.stderr[-3000:])
    row = json.loads(res.stdout.strip().splitlines()[-1])
    row["values"] = out
    return row


def to_parquet(run: Path, n_files: int = 8) -> Path:
    import numpy as np

    import mrrstats

    folder = run.with_suffix(".parquet.d")
    if folder.exists():
        return folder
    frame = mrrstats.read_run(run).to_frame()
    folder.mkdir()
    bounds = np.linspace(0, len(frame), n_files + 1).astype(int)
    for i in range(n_files):
        frame.iloc[bounds[i]:bounds[i + 1]].to_parquet(folder / f"part-{i:03d}.parquet",
                                                       index=False)
    return folder


def _yes(same) -> str:
    return same if isinstance(same, str) else ("yes" if same else "NO")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="1e6,1e7")
    p.add_argument("--dask-sizes", default="1e6,1e7")
    p.add_argument("--workers", default="1,2,4")
    p.add_argument("--engines", default="memory,stream,dask")
    p.add_argument("--child", nargs=5, metavar=("ENGINE", "QRELS", "RUN", "WORKERS", "OUT"))
    a = p.parse_args()
    if a.child:
        engine, qrels, run, workers, out = a.child
        child(engine, qrels, run, int(workers), out)
        return
    import numpy as np

    sys.path.insert(0, str(HERE))
    from make_data import make

    sizes = [int(float(s)) for s in a.sizes.split(",")]
    dask_sizes = {int(float(s)) for s in a.dask_sizes.split(",") if s}
    workers = [int(w) for w in a.workers.split(",")]
    rows = []
    for n in sizes:
        t0 = time.perf_counter()
        qrels, run = make(n_queries=n // 1000, depth=1000)
        print(f"{n:.0e} lines: data in {time.perf_counter() - t0:.0f} s "
              f"({run.stat().st_size / 1e9:.2f} GB)", flush=True)
        ref, have_ref = None, False
        engines = a.engines.split(",")
        todo = [(e, run, 1) for e in ("memory", "stream") if e in engines]
        if n in dask_sizes and "dask" in engines:
            pq = to_parquet(run)
            todo += [("dask", pq, w) for w in workers]
        for engine, src, w in todo:
            r = measure(engine, qrels, src, w)
            values = np.load(r["values"])
            if ref is None:
                ref = values
                ref_path = HERE / "_data" / f"_reference_{n}.npy"
                if engine == "memory":
                    np.save(ref_path, values)
                    have_ref = True
                elif ref_path.exists():  # compare with an earlier memory run
                    ref, have_ref = np.load(ref_path), True
            same = (values.shape == ref.shape and np.array_equal(values.view(np.int64),
                                                                 ref.view(np.int64))
                    if have_ref else "no memory run to compare")
            label = engine if engine != "dask" else f"dask ({w} worker{'s' * (w > 1)})"
            rows.append((n, label, r["seconds"], r["rss"], r["rss_workers"], same))
            print(f"  {label:18s} {r['seconds']:8.2f} s  peak RSS {r['rss'] / 1e9:.2f} GB"
                  + (f" (+ workers {r['rss_workers'] / 1e9:.2f} GB)" if r["rss_workers"] else "")
                  + f"  identical={same}", flush=True)
    lines = ["| lines | engine | seconds | s per 10^6 lines | peak RSS (process) | "
             "peak RSS (Dask workers, sum) | identical to memory |",
             "|---:|---|---:|---:|---:|---:|---|"]
    for n, label, s, rss, rw, same in rows:
        lines.append(f"| {n:.0e} | {label} | {s:.2f} | {s / (n / 1e6):.2f} | "
                     f"{rss / 1e9:.2f} GB | {rw / 1e9:.2f} GB | {_yes(same)} |"
                     if rw else
                     f"| {n:.0e} | {label} | {s:.2f} | {s / (n / 1e6):.2f} | "
                     f"{rss / 1e9:.2f} GB | | {_yes(same)} |")
    text = ("# Scale benchmark (`python benchmarks/bench_scale.py "
            f"--sizes {a.sizes} --dask-sizes {a.dask_sizes} --workers {a.workers} "
            f"--engines {a.engines}`)\n\n"
            + "\n".join(lines) + "\n")
    (HERE / "results_scale.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
