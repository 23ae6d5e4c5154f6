"""Filtered link-prediction ranks, before and after, side by side in one process.

The FB15k-237-sized problem of ``bench_linkpred.py`` (20,466 x 14,541 float32, 1-5
filtered pairs per row, as index pairs and as a boolean mask): ``ranks_from_scores``
of this tree and of an older ``mrrstats`` package (``--before DIR`` holding it,
imported under another name), with 1 and 2 workers, against one pass over the
matrix (``S @ 1``: BLAS, all cores; ``np.sum``: one thread). Rows interleaved in
every round, best of ``--repeats``; the ranks of both versions are checked equal.

Usage: python benchmarks/bench_ranks_filter.py --before /tmp/before [--repeats 5]
       [--results results_ranks_filter.md]
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from bench_linkpred import N_CAND, fb15k_problem  # noqa: E402

import mrrstats  # noqa: E402


def old_package(before: str):
    """The ``mrrstats`` package under ``before`` imported as ``mrrstats_before``."""
    tmp = Path(tempfile.mkdtemp())
    shutil.copytree(Path(before) / "mrrstats", tmp / "mrrstats_before")
    sys.path.insert(0, str(tmp))
    return importlib.import_module("mrrstats_before"), tmp


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--before", required=True)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--results", default="results_ranks_filter.md")
    a = p.parse_args()
    old, tmp = old_package(a.before)
    S, idx, pairs = fb15k_problem()
    mask = np.zeros(S.shape, dtype=bool)
    mask[pairs[:, 0], pairs[:, 1]] = True
    ones = np.ones(N_CAND, dtype=np.float32)
    impls = {
        "one pass: S @ 1 (BLAS, all cores)": lambda: S @ ones,
        "one pass: np.sum (1 thread)": lambda: S.sum(),
    }
    for label, filt in (("pairs", pairs), ("mask", mask)):
        for w in (1, 2):
            for version, mod in (("before", old), ("after", mrrstats)):
                impls[f"{version}: {label}, {w} worker{'s' * (w > 1)}"] = (
                    lambda mod=mod, filt=filt, w=w: mod.ranks_from_scores(
                        S, idx, exclude=filt, workers=w
                    )
                )
    for filt in (pairs, mask):  # the same ranks (and warm-up)
        ref = old.ranks_from_scores(S, idx, exclude=filt)
        new = mrrstats.ranks_from_scores(S, idx, exclude=filt)
        for field in ("optimistic", "pessimistic", "n_candidates"):
            np.testing.assert_array_equal(getattr(ref, field), getattr(new, field))
    load0 = os.getloadavg()
    times: dict = {n: [] for n in impls}
    for _ in range(a.repeats):
        for n, f in impls.items():
            gc.collect()
            t0 = time.perf_counter()
            f()
            times[n].append(time.perf_counter() - t0)
            print(f"  {n:40s} {times[n][-1]:.4f}", flush=True)
    load1 = os.getloadavg()
    best = {n: min(v) for n, v in times.items()}
    blas = best["one pass: S @ 1 (BLAS, all cores)"]
    one = best["one pass: np.sum (1 thread)"]
    lines = [
        "# Filtered ranks: before and after, side by side\n",
        f"`python benchmarks/bench_ranks_filter.py {' '.join(sys.argv[1:])}`\n",
        f"20,466 x 14,541 float32 ({S.nbytes / 2**20:.0f} MiB), {pairs.shape[0]:,} filtered "
        f"pairs (1-5 per row) given as index pairs or as a boolean mask; best of "
        f"{a.repeats} rounds, rows interleaved in each. Machine: {os.cpu_count()} cores "
        f"shared with other jobs, load average (1/5/15 min) "
        f"{'/'.join(f'{x:.1f}' for x in load0)} at the start, "
        f"{'/'.join(f'{x:.1f}' for x in load1)} at the end: read the ratios, all from "
        "this one run.\n",
        "| implementation | time (s) | x BLAS pass (S @ 1) | x np.sum pass |",
        "|---|---:|---:|---:|",
    ]
    for n in impls:
        lines.append(f"| {n} | {best[n]:.4f} | {best[n] / blas:.2f} | {best[n] / one:.2f} |")
    lines += ["", "| filter | version | 1 -> 2 workers speed-up |", "|---|---|---:|"]
    for label in ("pairs", "mask"):
        for version in ("before", "after"):
            one_w = best[f"{version}: {label}, 1 worker"]
            two_w = best[f"{version}: {label}, 2 workers"]
            lines.append(f"| {label} | {version} | {one_w / two_w:.2f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    (HERE / a.results).write_text(text)
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
