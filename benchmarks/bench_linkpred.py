"""Filtered realistic ranks for a FB15k-237-sized score matrix.

20,466 queries x 14,541 candidates, float32 (1.19 GB), 1-5 filtered known
answers per row. Compares, side by side in one run:

* ``mrrstats.ranks_from_scores`` (chunked, 1 and 2 worker threads; filter
  given as (row, candidate) pairs and as a boolean mask);
* a plain numpy full-matrix implementation (``(S > t).sum(1)``,
  ``(S >= t).sum(1)``, then the filtered pairs corrected);
* the same in torch (CPU), as an evaluator written in torch would do it;
* single-pass references over the matrix: ``np.sum`` (one thread) and a BLAS
  matrix-vector product ``S @ 1`` (all cores: the memory-bandwidth figure).

Time is the best of ``REPEATS`` runs (implementations interleaved, so a busy
machine slows all of them alike); peak extra memory is the growth of the
process's peak resident set (``VmHWM`` after resetting it through
``/proc/self/clear_refs``) and, for numpy code, also ``tracemalloc``'s peak.
Writes the table to ``benchmarks/results_linkpred.md``.

Run: ``/work/venv/bin/python benchmarks/bench_linkpred.py`` (needs ~4 GB RAM;
torch is optional: ``pip install torch`` CPU build, the ``bench`` extra).
"""

from __future__ import annotations

import gc
import os
import platform
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mrrstats import ranks_from_scores  # noqa: E402

N_QUERIES, N_CAND = 20_466, 14_541
REPEATS = 5
OUT = Path(__file__).with_name("results_linkpred.md")


# -- memory measurement ------------------------------------------------------

def _status(key: str) -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    return -1


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def peak_rss_extra(fn) -> float:
    """Growth of the peak resident set while ``fn`` runs (bytes)."""
    gc.collect()
    ok = _reset_peak()
    before = _status("VmRSS")
    fn()
    after = _status("VmHWM")
    return float(after - before) if ok else float("nan")


def traced_peak(fn) -> float:
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        return float(tracemalloc.get_traced_memory()[1])
    finally:
        tracemalloc.stop()


# -- the implementations -----------------------------------------------------

def numpy_full(S, idx, pairs):
    """Plain numpy: whole-matrix comparisons, then correct the filtered pairs."""
    ar = np.arange(S.shape[0])
    t = S[ar, idx][:, None]
    gt = (S > t).sum(axis=1)
    ge = (S >= t).sum(axis=1)
    r, c = pairs[:, 0], pairs[:, 1]
    v, tr = S[r, c], t[r, 0]
    gt -= np.bincount(r[v > tr], minlength=S.shape[0])
    ge -= np.bincount(r[v >= tr], minlength=S.shape[0])
    return 0.5 * (1.0 + gt + ge)  # realistic = (o + p)/2 with o = 1 + gt, p = ge


def make_torch_full(torch):
    def torch_full(T, idx_t, pairs_t):
        ar = torch.arange(T.shape[0])
        t = T[ar, idx_t].unsqueeze(1)
        gt = (T > t).sum(dim=1)
        ge = (T >= t).sum(dim=1)
        r, c = pairs_t[:, 0], pairs_t[:, 1]
        v, tr = T[r, c], t[r, 0]
        gt = gt - torch.bincount(r[v > tr], minlength=T.shape[0])
        ge = ge - torch.bincount(r[v >= tr], minlength=T.shape[0])
        return 0.5 * (1.0 + (gt + ge).double())
    return torch_full


def make_torch_chunked(torch, rows=1024):
    """Torch in batches of rows, as evaluators such as PyKEEN's process queries."""
    def torch_chunked(T, idx_t, pairs_t):
        n = T.shape[0]
        gt = torch.empty(n, dtype=torch.int64)
        ge = torch.empty(n, dtype=torch.int64)
        for s in range(0, n, rows):
            C = T[s:s + rows]
            t = C[torch.arange(C.shape[0]), idx_t[s:s + rows]].unsqueeze(1)
            gt[s:s + rows] = (C > t).sum(dim=1)
            ge[s:s + rows] = (C >= t).sum(dim=1)
        r, c = pairs_t[:, 0], pairs_t[:, 1]
        tr = T[torch.arange(n), idx_t][r]
        v = T[r, c]
        gt = gt - torch.bincount(r[v > tr], minlength=n)
        ge = ge - torch.bincount(r[v >= tr], minlength=n)
        return 0.5 * (1.0 + (gt + ge).double())
    return torch_chunked


def main() -> int:
    rng = np.random.default_rng(0)
    print(f"building {N_QUERIES} x {N_CAND} float32 matrix ...", flush=True)
    S = rng.standard_normal((N_QUERIES, N_CAND), dtype=np.float32)
    S = np.round(S * 64) / 64  # some ties, as real models have
    S = S.astype(np.float32)
    idx = rng.integers(0, N_CAND, N_QUERIES)
    n_filter = rng.integers(1, 6, N_QUERIES)
    rows = np.repeat(np.arange(N_QUERIES), n_filter)
    cols = (idx[rows] + rng.integers(1, N_CAND, rows.size)) % N_CAND  # never the true one
    pairs = np.unique(np.stack([rows, cols], axis=1), axis=0)
    mask = np.zeros(S.shape, dtype=bool)
    mask[pairs[:, 0], pairs[:, 1]] = True
    matrix_bytes = S.nbytes

    impls = {}
    ones = np.ones(N_CAND, dtype=np.float32)
    impls["single pass: np.sum (1 thread)"] = lambda: S.sum()
    impls["single pass: S @ 1 (BLAS, all cores)"] = lambda: S @ ones
    impls["mrrstats, pairs, 1 worker"] = lambda: ranks_from_scores(S, idx, exclude=pairs)
    impls["mrrstats, pairs, 2 workers"] = lambda: ranks_from_scores(S, idx, exclude=pairs,
                                                                    workers=2)
    impls["mrrstats, mask, 2 workers"] = lambda: ranks_from_scores(S, idx, exclude=mask,
                                                                   workers=2)
    impls["numpy full matrix"] = lambda: numpy_full(S, idx, pairs)
    torch_version = None
    try:
        import torch

        torch_version = torch.__version__
        T = torch.from_numpy(S)
        idx_t = torch.from_numpy(idx)
        pairs_t = torch.from_numpy(pairs)
        tf = make_torch_full(torch)
        tc = make_torch_chunked(torch)
        nt = torch.get_num_threads()
        impls[f"torch {torch_version} CPU full matrix ({nt} threads)"] = \
            lambda: tf(T, idx_t, pairs_t)
        impls[f"torch {torch_version} CPU, 1024-row batches ({nt} threads)"] = \
            lambda: tc(T, idx_t, pairs_t)
    except ImportError:
        print("torch not installed: skipping the torch peer")

    # correctness first: all agree on the realistic ranks
    ref = ranks_from_scores(S, idx, exclude=pairs).realistic
    np.testing.assert_array_equal(ranks_from_scores(S, idx, exclude=mask, workers=2).realistic,
                                  ref)
    np.testing.assert_array_equal(numpy_full(S, idx, pairs), ref)
    if torch_version:
        np.testing.assert_array_equal(tf(T, idx_t, pairs_t).numpy(), ref)
        np.testing.assert_array_equal(tc(T, idx_t, pairs_t).numpy(), ref)

    names = list(impls)
    for f in impls.values():  # warm-up
        f()
    times = {n: [] for n in names}
    for _ in range(REPEATS):
        for n in names:
            gc.collect()
            t0 = time.perf_counter()
            impls[n]()
            times[n].append(time.perf_counter() - t0)
    best = {n: min(v) for n, v in times.items()}
    rss = {n: peak_rss_extra(impls[n]) for n in names}
    traced = {n: (traced_peak(impls[n]) if not n.startswith("torch") else float("nan"))
              for n in names}

    ref_sum = best["single pass: np.sum (1 thread)"]
    ref_bw = best["single pass: S @ 1 (BLAS, all cores)"]
    ours = best["mrrstats, pairs, 2 workers"]
    lines = []
    lines.append("# Filtered realistic ranks: 20,466 x 14,541 float32 (FB15k-237 size)\n")
    lines.append(f"Matrix {matrix_bytes / 1e6:.0f} MB; {pairs.shape[0]} filtered pairs "
                 f"(1-5 per row). Best of {REPEATS} runs, interleaved. "
                 f"Machine: {os.cpu_count()} cores, Python {platform.python_version()}, "
                 f"numpy {np.__version__}"
                 + (f", torch {torch_version}" if torch_version else "")
                 + f"; load average at start {os.getloadavg()[0]:.2f} (shared machine).\n")
    lines.append("| implementation | time (s) | x np.sum pass | x bandwidth pass (S @ 1) "
                 "| x mrrstats (2 workers) | peak extra RSS (MB) | tracemalloc peak (MB) "
                 "| extra / matrix |")
    lines.append("|---|---:|---:|---:|---:|---:|---:|---:|")
    for n in names:
        extra = rss[n]
        lines.append(f"| {n} | {best[n]:.3f} | {best[n] / ref_sum:.2f} | {best[n] / ref_bw:.2f} "
                     f"| {best[n] / ours:.2f} | {extra / 1e6:.1f} | {traced[n] / 1e6:.1f} "
                     f"| {100 * max(extra, 0) / matrix_bytes:.1f}% |")
    lines.append("")
    lines.append("Targets (issue 3): within 3x of a single pass at memory bandwidth and "
                 "< 10% of the matrix (119 MB) in extra memory.")
    lines.append(f"mrrstats (2 workers) is {ours / ref_bw:.2f}x the bandwidth pass and "
                 f"{ours / ref_sum:.2f}x the single-thread np.sum pass; "
                 f"1 worker: {best['mrrstats, pairs, 1 worker'] / ref_bw:.2f}x / "
                 f"{best['mrrstats, pairs, 1 worker'] / ref_sum:.2f}x.")
    lines.append("")
    lines.append("Notes. \"x bandwidth pass\" divides by the BLAS matrix-vector product, "
                 "which reads the matrix once on all cores (the memory-bandwidth figure); "
                 "\"x np.sum pass\" by one single-threaded pass. Peak extra RSS is the growth "
                 "of the process's peak resident set during the call (0 when the call fits "
                 "in memory the process already holds); tracemalloc counts every numpy "
                 "allocation (torch's allocator is invisible to it). The mask variant's "
                 "figures exclude the 300 MB mask itself (built before the call). "
                 "mrrstats reads each chunk three times while it is in cache (>, <, and a "
                 "min-reduce that detects NaN/-inf), so it is bounded by about one pass "
                 "over memory plus two in-cache passes; the machine is shared, so absolute "
                 "times vary from run to run but the interleaved ratios are stable.")
    text = "\n".join(lines) + "\n"
    print(text)
    OUT.write_text(text)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
