"""Filtered link-prediction ranks: the compiled kernel, its peers and anchors.

Sections, each measured side by side in one run (implementations interleaved,
best of ``--repeats``; the machine is shared, so read the ratios):

1. first-call cost of the compiled kernel (numba, ``cache=True``): a fresh
   process with an empty cache (cold: compiles) and a second one (warm: loads
   the cache), against the same call already warm in the process;
2. a FB15k-237-sized matrix, 20,466 x 14,541 float32 (1.19 GB), 1-5 filtered
   known answers per row: ``ranks_from_scores`` (kernel, workers 1, 2, all;
   pairs and mask filters), the previous NumPy implementation, a plain numpy
   full-matrix version, torch on the CPU (full matrix, 1,024-row batches, and
   mrrstats' array-API path run with torch), against single passes over the
   matrix (``np.sum``: one thread; ``S @ 1``: BLAS, all cores);
3. a Wikidata5M-sized chunk: ``--wd-rows`` (default 100) x 4,594,485 float32
   scores (the issue's 500 rows are 9.2 GB, too much for a shared 23 GB
   machine; per-score figures do not depend on the row count), kernel with
   workers 1, 2, all, against ``np.sum`` and torch CPU;
4. ``--gpu``: the same two problems on a CUDA device (skipped without one):
   ``ranks_from_scores`` on the CUDA tensor against torch's own full-matrix
   ranking on the device (the issue's anchor) and the host copy ``T.cpu()``;
5. ``evaluate_flat`` (torchmetrics' ``preds, target, indexes``) on a generated
   flat input of ``--flat-queries`` x 1,000 rows (default 7,000 queries: 7M
   rows), six measures: the NumPy path (a run and qrels built on the host)
   against the array-API path run with torch CPU tensors and torchmetrics'
   retrieval metrics on the same tensors; with ``--gpu``, the array-API path
   on CUDA tensors against torchmetrics on the device (skipped without one).

Section 2 also reports the kernel's scaling with workers (1, 2, all cores).
``--sections 2,5`` runs only some sections and keeps the others' text from
the previous results file.

Peak extra memory is the growth of the process's peak resident set (``VmHWM``
after resetting it through ``/proc/self/clear_refs``) and, for numpy code, also
``tracemalloc``'s peak. Writes ``benchmarks/results_linkpred.md``.

Run: ``python benchmarks/bench_linkpred.py [--gpu] [--wd-rows 100] [--repeats 3]
[--flat-queries 7000] [--sections 1,2,3,4,5]``
(needs ~6 GB RAM; torch optional: a CPU build, or the ``gpu`` extra).
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mrrstats import evaluate_flat, ranks_from_negatives, ranks_from_scores  # noqa: E402
from mrrstats.baselines import linkpred as _lp  # noqa: E402

N_QUERIES, N_CAND = 20_466, 14_541
WD_CAND = 4_594_485
OUT = Path(__file__).with_name("results_linkpred.md")
ROOT = Path(__file__).resolve().parents[1]


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


def numpy_previous(S, idx, pairs, workers):
    """The NumPy implementation mrrstats shipped before the kernel (still its fallback)."""
    S_, i, kind, ex, nf, batch, w = _lp._ranks_from_scores_iv(S, idx, pairs, "raise", None,
                                                              workers)
    return _lp._rank_chunks_numpy(S_, i, None, kind, ex, nf, batch, w, S_.shape[1])


def timed(impls, repeats):
    names = list(impls)
    for f in impls.values():  # warm-up
        f()
    times = {n: [] for n in names}
    for _ in range(repeats):
        for n in names:
            gc.collect()
            t0 = time.perf_counter()
            impls[n]()
            times[n].append(time.perf_counter() - t0)
    return {n: min(v) for n, v in times.items()}


# -- 1. compile cost ---------------------------------------------------------

_COLD = """
import time, numpy as np
t0 = time.perf_counter()
from mrrstats import ranks_from_scores
t1 = time.perf_counter()
S = np.arange(12, dtype=np.float32).reshape(3, 4)
ranks_from_scores(S, [0, 1, 2], exclude=[(0, 1)])
t2 = time.perf_counter()
ranks_from_scores(S, [0, 1, 2], exclude=[(0, 1)])
t3 = time.perf_counter()
print(t1 - t0, t2 - t1, t3 - t2)
"""


def compile_cost():
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
        out = []
        for _ in range(2):  # cold (empty cache), then warm (cache on disk)
            r = subprocess.run([sys.executable, "-c", _COLD], env=env, check=True,
                               capture_output=True, text=True)
            out.append([float(x) for x in r.stdout.split()])
    return out


# -- problems ----------------------------------------------------------------

def fb15k_problem():
    rng = np.random.default_rng(0)
    S = rng.standard_normal((N_QUERIES, N_CAND), dtype=np.float32)
    S = (np.round(S * 64) / 64).astype(np.float32)  # some ties, as real models have
    idx = rng.integers(0, N_CAND, N_QUERIES)
    n_filter = rng.integers(1, 6, N_QUERIES)
    rows = np.repeat(np.arange(N_QUERIES), n_filter)
    cols = (idx[rows] + rng.integers(1, N_CAND, rows.size)) % N_CAND  # never the true one
    pairs = np.unique(np.stack([rows, cols], axis=1), axis=0)
    return S, idx, pairs


def wd_problem(rows):
    rng = np.random.default_rng(1)
    S = rng.standard_normal((rows, WD_CAND), dtype=np.float32)
    idx = rng.integers(0, WD_CAND, rows)
    return S, idx


# -- 2. FB15k-237 on the CPU --------------------------------------------------

def fb15k_cpu(S, idx, pairs, repeats, lines):
    mask = np.zeros(S.shape, dtype=bool)
    mask[pairs[:, 0], pairs[:, 1]] = True
    cores = os.cpu_count() or 1
    ones = np.ones(N_CAND, dtype=np.float32)
    impls = {
        "single pass: np.sum (1 thread)": lambda: S.sum(),
        "single pass: S @ 1 (BLAS, all cores)": lambda: S @ ones,
        "mrrstats kernel, pairs, 1 worker": lambda: ranks_from_scores(S, idx, exclude=pairs,
                                                                      workers=1),
        "mrrstats kernel, pairs, 2 workers": lambda: ranks_from_scores(S, idx, exclude=pairs,
                                                                       workers=2),
    }
    if cores > 2:
        impls[f"mrrstats kernel, pairs, all {cores} workers"] = \
            lambda: ranks_from_scores(S, idx, exclude=pairs, workers=-1)
    impls["mrrstats kernel, mask, 1 worker"] = \
        lambda: ranks_from_scores(S, idx, exclude=mask, workers=1)
    impls["mrrstats kernel, mask, 2 workers"] = \
        lambda: ranks_from_scores(S, idx, exclude=mask, workers=2)
    impls["mrrstats kernel, mask, all workers"] = \
        lambda: ranks_from_scores(S, idx, exclude=mask)
    impls["previous numpy implementation, 1 worker"] = lambda: numpy_previous(S, idx, pairs, 1)
    impls["previous numpy implementation, 2 workers"] = lambda: numpy_previous(S, idx, pairs,
                                                                               2)
    impls["numpy full matrix"] = lambda: numpy_full(S, idx, pairs)
    torch_version = None
    try:
        import array_api_compat.torch as xpt
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
        impls["mrrstats array-API path run with torch CPU"] = \
            lambda: _lp._ranks_from_scores_xp(xpt, T, idx, pairs, "raise", None, -1)
    except ImportError:
        print("torch not installed: skipping the torch peers")

    # correctness first: all agree on the realistic ranks
    ref = ranks_from_scores(S, idx, exclude=pairs).realistic
    np.testing.assert_array_equal(ranks_from_scores(S, idx, exclude=mask).realistic, ref)
    np.testing.assert_array_equal(numpy_previous(S, idx, pairs, 1).realistic, ref)
    np.testing.assert_array_equal(numpy_full(S, idx, pairs), ref)
    if torch_version:
        np.testing.assert_array_equal(tf(T, idx_t, pairs_t).numpy(), ref)
        np.testing.assert_array_equal(tc(T, idx_t, pairs_t).numpy(), ref)
        np.testing.assert_array_equal(
            _lp._ranks_from_scores_xp(xpt, T, idx, pairs, "raise", None, -1).realistic, ref)

    best = timed(impls, repeats)
    names = list(impls)
    rss = {n: peak_rss_extra(impls[n]) for n in names}
    traced = {n: (traced_peak(impls[n]) if "torch" not in n else float("nan")) for n in names}
    ref_sum = best["single pass: np.sum (1 thread)"]
    ref_bw = best["single pass: S @ 1 (BLAS, all cores)"]
    ours = best["mrrstats kernel, mask, all workers"] if cores <= 2 else \
        best[f"mrrstats kernel, pairs, all {cores} workers"]
    ours = min(ours, best["mrrstats kernel, pairs, 2 workers"])
    lines.append("## 2. Filtered realistic ranks: 20,466 x 14,541 float32 (FB15k-237 size)\n")
    lines.append(f"Matrix {S.nbytes / 1e6:.0f} MB; {pairs.shape[0]} filtered pairs "
                 f"(1-5 per row). Best of {repeats} runs, interleaved.\n")
    lines.append("| implementation | time (s) | x np.sum pass | x bandwidth pass (S @ 1) "
                 "| x mrrstats kernel (all workers) | peak extra RSS (MB) "
                 "| tracemalloc peak (MB) |")
    lines.append("|---|---:|---:|---:|---:|---:|---:|")
    for n in names:
        lines.append(f"| {n} | {best[n]:.4f} | {best[n] / ref_sum:.2f} | "
                     f"{best[n] / ref_bw:.2f} | {best[n] / ours:.2f} | {rss[n] / 1e6:.1f} | "
                     f"{traced[n] / 1e6:.1f} |")
    torch_full = [x for x in names if "CPU full" in x]
    one = best["mrrstats kernel, pairs, 1 worker"]
    two = best["mrrstats kernel, pairs, 2 workers"]
    lines.append("")
    lines.append(f"Target: <= 3x one memory pass. The kernel is {one / ref_sum:.2f}x "
                 f"the single-thread np.sum pass on 1 worker and {two / ref_sum:.2f}x on 2, "
                 f"{two / ref_bw:.2f}x the all-core BLAS pass; the previous implementation "
                 f"was {best['previous numpy implementation, 2 workers'] / ref_sum:.2f}x "
                 f"(2 workers). Scaling 1 -> 2 workers: {one / two:.2f}x. Torch CPU full "
                 "matrix is "
                 + (f"{best[torch_full[0]] / two:.1f}x" if torch_full else "n/a")
                 + " the kernel's time on 2 workers.\n")
    lines.append(f"Scaling with workers (1, 2, all {cores} cores), from the rows "
                 "above:\n")
    lines.append("| filter | workers | time (s) | speed-up over 1 worker | x np.sum pass |")
    lines.append("|---|---:|---:|---:|---:|")
    all_pairs = f"mrrstats kernel, pairs, all {cores} workers" if cores > 2 else \
        "mrrstats kernel, pairs, 2 workers"
    for filt, rows in (("pairs", [("1", "mrrstats kernel, pairs, 1 worker"),
                                  ("2", "mrrstats kernel, pairs, 2 workers"),
                                  (f"all ({cores})", all_pairs)]),
                       ("mask", [("1", "mrrstats kernel, mask, 1 worker"),
                                 ("2", "mrrstats kernel, mask, 2 workers"),
                                 (f"all ({cores})", "mrrstats kernel, mask, all workers")])):
        base = best[rows[0][1]]
        for w, n in rows:
            lines.append(f"| {filt} | {w} | {best[n]:.4f} | {base / best[n]:.2f} | "
                         f"{best[n] / ref_sum:.2f} |")
    lines.append("")
    return best


# -- 3. Wikidata5M-sized chunk on the CPU ----------------------------------------

def wd_cpu(rows, repeats, lines):
    S, idx = wd_problem(rows)
    cores = os.cpu_count() or 1
    impls = {"single pass: np.sum (1 thread)": lambda: S.sum()}
    for w in sorted({1, 2, cores}):
        impls[f"mrrstats kernel, {w} worker(s)"] = \
            lambda w=w: ranks_from_scores(S, idx, workers=w)
    pos = S[np.arange(rows), idx]
    impls["mrrstats ranks_from_negatives, all workers"] = \
        lambda: ranks_from_negatives(pos, S)
    try:
        import torch

        T = torch.from_numpy(S)
        tf = make_torch_full(torch)
        idx_t = torch.from_numpy(idx)
        no_pairs = torch.zeros((0, 2), dtype=torch.int64)
        impls[f"torch CPU full matrix ({torch.get_num_threads()} threads)"] = \
            lambda: tf(T, idx_t, no_pairs)
        ref = ranks_from_scores(S, idx).realistic
        np.testing.assert_array_equal(tf(T, idx_t, no_pairs).numpy(), ref)
    except ImportError:
        pass
    best = timed(impls, repeats)
    ref_sum = best["single pass: np.sum (1 thread)"]
    lines.append(f"## 3. Wikidata5M-sized chunk: {rows} x {WD_CAND:,} float32 "
                 f"({S.nbytes / 1e9:.2f} GB), no filter\n")
    lines.append(f"Best of {repeats}. The issue's chunk has 500 rows; times scale with rows "
                 f"(x {500 / rows:.1f} for 500).\n")
    lines.append("| implementation | time (s) | ns per score | x np.sum pass | "
                 "estimated for 500 rows (s) |")
    lines.append("|---|---:|---:|---:|---:|")
    for n, t in best.items():
        lines.append(f"| {n} | {t:.4f} | {1e9 * t / S.size:.3f} | {t / ref_sum:.2f} | "
                     f"{t * 500 / rows:.3f} |")
    lines.append("")


# -- 4. the GPU rows --------------------------------------------------------------

def gpu_rows(S, idx, pairs, wd_rows_gpu, repeats, lines):
    try:
        import torch
    except ImportError:
        lines.append("## 4. GPU\n\ntorch is not installed: GPU rows skipped.\n")
        return
    if not torch.cuda.is_available():
        lines.append("## 4. GPU\n\nNo CUDA device: GPU rows skipped.\n")
        return
    dev = torch.device("cuda")
    name = torch.cuda.get_device_name(dev)

    def sync(f):
        def g():
            out = f()
            torch.cuda.synchronize()
            return out
        return g

    T = torch.from_numpy(S).to(dev)
    idx_t = torch.from_numpy(idx).to(dev)
    pairs_t = torch.from_numpy(pairs).to(dev)
    tf = make_torch_full(torch)
    ref = ranks_from_scores(S, idx, exclude=pairs)
    got = ranks_from_scores(T, idx_t, exclude=pairs)
    np.testing.assert_array_equal(got.optimistic, ref.optimistic)
    np.testing.assert_array_equal(got.pessimistic, ref.pessimistic)
    np.testing.assert_array_equal(tf(T, idx_t, pairs_t).cpu().numpy(), ref.realistic)
    impls = {
        "anchor: torch full-matrix ranking on the device": sync(lambda: tf(T, idx_t, pairs_t)),
        "mrrstats ranks_from_scores(CUDA tensor)": sync(
            lambda: ranks_from_scores(T, idx_t, exclude=pairs)),
        "host copy T.cpu() (what a NumPy-only tool must do first)": sync(lambda: T.cpu()),
    }
    best = timed(impls, repeats)
    anchor = best["anchor: torch full-matrix ranking on the device"]
    lines.append(f"## 4. GPU: {name}, torch {torch.__version__}\n")
    lines.append("FB15k-237-sized matrix (section 2) on the device, best of "
                 f"{repeats}.\n")
    lines.append("| implementation | time (ms) | x anchor |")
    lines.append("|---|---:|---:|")
    for n, t in best.items():
        lines.append(f"| {n} | {1e3 * t:.2f} | {t / anchor:.2f} |")
    lines.append("")
    impls.clear()
    torch.cuda.empty_cache()
    rng = np.random.default_rng(1)
    W = torch.randn((wd_rows_gpu, WD_CAND), generator=torch.Generator(dev).manual_seed(1),
                    device=dev, dtype=torch.float32)
    widx = rng.integers(0, WD_CAND, wd_rows_gpu)
    widx_t = torch.from_numpy(widx).to(dev)
    no_pairs = torch.zeros((0, 2), dtype=torch.int64, device=dev)
    a = ranks_from_scores(W, widx)
    np.testing.assert_array_equal(tf(W, widx_t, no_pairs).cpu().numpy(), a.realistic)
    impls = {
        "anchor: torch full-matrix ranking on the device": sync(
            lambda: tf(W, widx_t, no_pairs)),
        "mrrstats ranks_from_scores(CUDA tensor)": sync(lambda: ranks_from_scores(W, widx)),
    }
    best = timed(impls, repeats)
    anchor = best["anchor: torch full-matrix ranking on the device"]
    lines.append(f"Wikidata5M-sized chunk on the device: {wd_rows_gpu} x {WD_CAND:,} float32 "
                 "(target: within 1.5x of the anchor).\n")
    lines.append("| implementation | time (ms) | x anchor |")
    lines.append("|---|---:|---:|")
    for n, t in best.items():
        lines.append(f"| {n} | {1e3 * t:.2f} | {t / anchor:.2f} |")
    lines.append("")


# -- 5. evaluate_flat: the flat-tensor door ----------------------------------------

FLAT_MEASURES = ["RR", "RR@10", "AP", "nDCG@10", "P@10", "R@100"]


def flat_problem(n_queries, per=1000):
    """``n_queries`` x ``per`` rows in random order (a shuffled evaluation batch):
    distinct float32 scores (so that every tool ranks alike), 1% relevant rows graded
    1-3 and at least one relevant row per query (so that no empty-target policy applies)."""
    rng = np.random.default_rng(7)
    n = n_queries * per
    indexes = rng.permutation(np.repeat(np.arange(n_queries, dtype=np.int64), per))
    preds = rng.permutation(n).astype(np.float32)  # exact integers below 2**24: distinct
    target = (rng.random(n) < 0.01) * rng.integers(1, 4, n)
    target[np.unique(indexes, return_index=True)[1]] = 1
    return preds, target.astype(np.int64), indexes


def _torchmetrics_peers(torch, tmr, binary, graded):
    """torchmetrics' metrics for FLAT_MEASURES (AP without a cutoff: torchmetrics' AP@k
    would divide by the relevant rows in the top k, trec_eval's by all of them)."""
    return [("RR", tmr.RetrievalMRR(), binary),
            ("RR@10", tmr.RetrievalMRR(top_k=10), binary),
            ("AP", tmr.RetrievalMAP(), binary),
            ("nDCG@10", tmr.RetrievalNormalizedDCG(top_k=10), graded),
            ("P@10", tmr.RetrievalPrecision(top_k=10), binary),
            ("R@100", tmr.RetrievalRecall(top_k=100), binary)]


def flat_rows(n_queries, repeats, lines, gpu):
    preds, target, indexes = flat_problem(n_queries)
    n = preds.size
    kw = dict(ties="trec_eval", empty_target="skip")  # distinct-score peers: one order
    impls = {"mrrstats evaluate_flat, NumPy arrays (sort-based path with numpy)":
             lambda: evaluate_flat(preds, target, indexes, FLAT_MEASURES, **kw)}
    ref = impls[next(iter(impls))]()
    agg = ref.aggregate()
    torch_line, tm_peers, tm_times = None, [], {}
    try:
        import torch

        tp, tt, ti = (torch.from_numpy(a) for a in (preds, target, indexes))
        impls["mrrstats evaluate_flat, torch CPU tensors (array-API path)"] = \
            lambda: evaluate_flat(tp, tt, ti, FLAT_MEASURES, **kw)
        got = impls["mrrstats evaluate_flat, torch CPU tensors (array-API path)"]()
        import pandas as pd

        pd.testing.assert_frame_equal(got.values["run"], ref.values["run"], check_exact=True)
        torch_line = f"torch {torch.__version__}, {torch.get_num_threads()} threads"
        try:
            import torchmetrics
            import torchmetrics.retrieval as tmr

            tm_peers = _torchmetrics_peers(torch, tmr, tt > 0, tt)
            torch_line += f", torchmetrics {torchmetrics.__version__}"
        except ImportError:
            pass
    except ImportError:
        pass
    best = timed(impls, repeats)
    rss = {k: peak_rss_extra(f) for k, f in impls.items()}
    tm_values = {}
    for name, metric, target_t in tm_peers:  # slow: one timed run each
        t0 = time.perf_counter()
        tm_values[name] = float(metric(tp, target_t, indexes=ti))
        tm_times[name] = time.perf_counter() - t0
    host = best[next(iter(impls))]
    lines.append(f"## 5. evaluate_flat: {n_queries:,} queries x 1,000 rows ({n / 1e6:.1f}M "
                 "rows), six measures\n")
    lines.append(f"Flat `preds` (float32), `target` (1% relevant, grades 1-3), `indexes` "
                 f"(int64, rows shuffled); measures {', '.join(FLAT_MEASURES)}; "
                 f"{torch_line or 'torch not installed'}. Best of {repeats} for mrrstats; "
                 "torchmetrics (one metric object per measure, as its users call it) once.\n")
    lines.append("| implementation | time (s) | x NumPy path | rows per second (M) "
                 "| peak extra RSS (MB) |")
    lines.append("|---|---:|---:|---:|---:|")
    for k, t in best.items():
        lines.append(f"| {k} | {t:.3f} | {t / host:.2f} | {n / t / 1e6:.2f} | "
                     f"{max(rss[k], 0.0) / 1e6:.0f} |")
    if tm_times:
        total = sum(tm_times.values())
        lines.append(f"| torchmetrics, the six metrics on torch CPU tensors | {total:.3f} | "
                     f"{total / host:.2f} | {n / total / 1e6:.2f} | - |")
    lines.append("")
    if tm_values:
        lines.append("Same means as torchmetrics (mrrstats, torchmetrics; per-measure time of "
                     "torchmetrics):\n")
        lines.append("| measure | mrrstats | torchmetrics | torchmetrics time (s) |")
        lines.append("|---|---:|---:|---:|")
        for name, v in tm_values.items():
            ours = float(agg.loc["run", name])
            assert abs(ours - v) <= 1e-5 * max(1.0, abs(v)), (name, ours, v)
            lines.append(f"| {name} | {ours:.6f} | {v:.6f} | {tm_times[name]:.2f} |")
        lines.append("")
    if not gpu:
        lines.append("GPU rows: not run (`--gpu` not given).\n")
        return
    try:
        import torch
    except ImportError:
        lines.append("GPU rows: torch is not installed, skipped.\n")
        return
    if not torch.cuda.is_available():
        lines.append("GPU rows: no CUDA device, skipped.\n")
        return
    dev = torch.device("cuda")

    def sync(f):
        def g():
            out = f()
            torch.cuda.synchronize()
            return out
        return g

    dp, dt, di = (torch.from_numpy(a).to(dev) for a in (preds, target, indexes))
    got = evaluate_flat(dp, dt, di, FLAT_MEASURES, **kw)
    import pandas as pd

    pd.testing.assert_frame_equal(got.values["run"], ref.values["run"], check_exact=True)
    g_impls = {"mrrstats evaluate_flat, CUDA tensors (array-API path)":
               sync(lambda: evaluate_flat(dp, dt, di, FLAT_MEASURES, **kw)),
               "host copy of preds, target, indexes (.cpu())":
               sync(lambda: (dp.cpu(), dt.cpu(), di.cpu()))}
    if tm_peers:
        import torchmetrics.retrieval as tmr

        peers = _torchmetrics_peers(torch, tmr, dt > 0, dt)
        g_impls["torchmetrics, the six metrics on the CUDA tensors"] = sync(
            lambda: [m.to(dev)(dp, t, indexes=di) for _, m, t in peers])
    g_best = timed(g_impls, repeats)
    lines.append(f"GPU rows ({torch.cuda.get_device_name(dev)}), best of {repeats}:\n")
    lines.append("| implementation | time (s) | x NumPy path (CPU, above) |")
    lines.append("|---|---:|---:|")
    for k, t in g_best.items():
        lines.append(f"| {k} | {t:.4f} | {t / host:.3f} |")
    lines.append("")


def _previous_sections(path: Path) -> dict:
    """``{number: text}`` of the sections of a previous results file."""
    if not path.exists():
        return {}
    parts = re.split(r"(?m)^(?=## \d+\.)", path.read_text())
    keep = {}
    for p in parts:
        head = re.match(r"## (\d+)\.", p)
        if head:
            p = re.sub(r"(?m)^\(section \d+ kept from the previous run\)\n?", "", p)
            keep[head.group(1)] = p.rstrip("\n") + "\n"
    return keep


def compile_section() -> list:
    (cold_imp, cold_first, cold_again), (warm_imp, warm_first, warm_again) = compile_cost()
    lines = ["## 1. First-call cost of the compiled kernel\n"]
    lines.append("A fresh process with an empty numba cache (`NUMBA_CACHE_DIR`), then a "
                 "second fresh process with the cache it wrote; a 3 x 4 float32 problem "
                 "with one filtered pair.\n")
    lines.append("| process | import mrrstats (s) | first call (s) | second call (s) |")
    lines.append("|---|---:|---:|---:|")
    lines.append(f"| cold (compiles, writes the cache) | {cold_imp:.2f} | {cold_first:.2f} | "
                 f"{cold_again:.5f} |")
    lines.append(f"| warm (loads the cache) | {warm_imp:.2f} | {warm_first:.2f} | "
                 f"{warm_again:.5f} |")
    lines.append("")
    lines.append("Each score dtype compiles once per machine (and again for non-contiguous "
                 "inputs); importing mrrstats never imports numba, the first rank call does.\n")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpu", action="store_true", help="also run the GPU rows (CUDA)")
    ap.add_argument("--wd-rows", type=int, default=100,
                    help="rows of the Wikidata5M-sized chunk on the CPU (default 100)")
    ap.add_argument("--wd-rows-gpu", type=int, default=500)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--flat-queries", type=int, default=7000,
                    help="queries of 1,000 rows each in section 5 (default 7,000: 7M rows)")
    ap.add_argument("--sections", default="1,2,3,4,5",
                    help="sections to run (the others keep the previous results' text)")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    run = set(args.sections.split(","))
    previous = _previous_sections(args.out)
    sections = {}

    lines = ["# Filtered link-prediction ranks\n"]
    torch_version = None
    try:
        import torch

        torch_version = torch.__version__
    except ImportError:
        pass
    import numba

    lines.append(f"Machine: {os.cpu_count()} cores, Python {platform.python_version()}, "
                 f"numpy {np.__version__}, numba {numba.__version__}"
                 + (f", torch {torch_version}" if torch_version else "")
                 + f"; load average at start {os.getloadavg()[0]:.2f} (shared machine). "
                 "Ratios are from this one run.\n")

    if "1" in run:
        print("compile cost ...", flush=True)
        sections["1"] = compile_section()
    if run & {"2", "4"}:
        print(f"building {N_QUERIES} x {N_CAND} float32 matrix ...", flush=True)
        S, idx, pairs = fb15k_problem()
        if "2" in run:
            sections["2"] = []
            fb15k_cpu(S, idx, pairs, args.repeats, sections["2"])
        if "4" in run:
            sections["4"] = ["## 4. GPU\n\nNot run (`--gpu` not given).\n"]
            if args.gpu:
                print("GPU rows ...", flush=True)
                sections["4"] = []
                gpu_rows(S, idx, pairs, args.wd_rows_gpu, args.repeats, sections["4"])
        del S
        gc.collect()
    if "3" in run:
        print(f"Wikidata5M-sized chunk, {args.wd_rows} rows ...", flush=True)
        sections["3"] = []
        wd_cpu(args.wd_rows, args.repeats, sections["3"])
    if "5" in run:
        print(f"evaluate_flat, {args.flat_queries} x 1,000 rows ...", flush=True)
        sections["5"] = []
        flat_rows(args.flat_queries, args.repeats, sections["5"], args.gpu)
    for key in sorted(set(sections) | set(previous)):
        if key in sections:
            lines.extend(sections[key])
        else:
            lines.append(previous[key].rstrip("\n") + "\n")
            lines.append(f"(section {key} kept from the previous run)\n")
    text = "\n".join(lines) + "\n"
    print(text)
    args.out.write_text(text)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
