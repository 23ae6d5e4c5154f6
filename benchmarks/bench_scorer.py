"""ranks_from_scorer: the compiled counting kernel against NumPy counts, per call.

A FB15k-237-shaped problem (``--queries`` rows of 14,541 float32 candidates, 1-5
filtered known answers per row) scored by a function that returns a block of a
precomputed matrix (a strided view: the kernel path copies it to a contiguous
block, the NumPy path reads it in place), so the time is the counting, not a model.
``ranks_from_scorer`` with ``batch`` queries x ``candidate_batch`` candidates per call:

* the compiled kernel of ``ranks_from_scores`` (``workers`` 1 and all cores);
* the array-API counts it used before (NumPy comparisons and ``count_nonzero``),
  still the path of torch and CuPy scores;
* ``ranks_from_scores`` on the whole matrix (one kernel pass), the anchor.

Best of ``--repeats``, implementations interleaved (the machine is shared: read the
ratios). Every variant's ranks are checked equal to the anchor's. Writes
``benchmarks/results_scorer.md``.

Run: ``python benchmarks/bench_scorer.py [--queries 4096] [--repeats 3]``
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mrrstats import ranks_from_scorer, ranks_from_scores  # noqa: E402
from mrrstats.baselines import scorer  # noqa: E402

N_ENTITIES = 14_541


def problem(n_queries: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    S = rng.standard_normal((n_queries, N_ENTITIES), dtype=np.float32).round(2)
    tails = rng.integers(0, N_ENTITIES, size=n_queries)
    k = rng.integers(1, 6, size=n_queries)
    rows = np.repeat(np.arange(n_queries), k)
    pairs = np.stack([rows, rng.integers(0, N_ENTITIES, size=rows.size)], axis=1)
    return S, tails, pairs


def best(fn, repeats):
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=4096)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    S, tails, pairs = problem(args.queries)
    q = np.arange(args.queries)

    def score(qb, cand):  # qb: a slice of `q` (consecutive rows), cand: consecutive ids
        return S[qb[0]:qb[-1] + 1, cand[0]:cand[-1] + 1]

    ref = ranks_from_scores(S, tails, exclude=pairs)  # compiles (or loads) the kernel
    kernel_dtypes = scorer.KERNEL_DTYPES
    rows = []
    for batch, cb in ((256, 4096), (256, 1024), (64, 512)):
        variants = {
            "kernel, workers=1": (kernel_dtypes, 1),
            "kernel, workers=-1": (kernel_dtypes, -1),
            "NumPy counts (array-API path)": (frozenset(), 1),
        }
        timing = {name: [] for name in variants}
        for _ in range(args.repeats):
            for name, (kd, w) in variants.items():
                scorer.KERNEL_DTYPES = kd
                t, got = best(lambda w=w, b=batch, c=cb: ranks_from_scorer(
                    score, q, tails, n_candidates=N_ENTITIES, exclude=pairs, batch=b,
                    candidate_batch=c, workers=w), 1)
                timing[name].append(t)
                assert np.array_equal(got.optimistic, ref.optimistic)
                assert np.array_equal(got.pessimistic, ref.pessimistic)
        scorer.KERNEL_DTYPES = kernel_dtypes
        for name, ts in timing.items():
            rows.append((batch, cb, name, min(ts)))
    t_full, _ = best(lambda: ranks_from_scores(S, tails, exclude=pairs), args.repeats)
    t_slice, _ = best(lambda: [score(q[s:s + 256], np.arange(c, min(c + 4096, N_ENTITIES)))
                               for s in range(0, args.queries, 256)
                               for c in range(0, N_ENTITIES, 4096)], args.repeats)

    lines = [
        "# ranks_from_scorer: compiled counts against NumPy counts",
        "",
        f"`python benchmarks/bench_scorer.py --queries {args.queries} --repeats "
        f"{args.repeats}`; {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores (shared), numpy {np.__version__}.",
        "",
        f"{args.queries} queries x {N_ENTITIES:,} float32 candidates (FB15k-237's "
        "entities), 1-5 filtered known answers per query; the scorer slices a "
        "precomputed matrix (a view). Best of the repeats, variants interleaved; every "
        "variant's ranks equal `ranks_from_scores`' on the whole matrix. The machine is "
        "shared with other jobs: compare rows of one run, and read `workers=-1` as what "
        "two busy cores give.",
        "",
        "| batch | candidate_batch | counting | seconds | scores / s |",
        "|---:|---:|---|---:|---:|",
    ]
    n_scores = args.queries * N_ENTITIES
    for batch, cb, name, t in rows:
        lines.append(f"| {batch} | {cb} | {name} | {t:.3f} | {n_scores / t / 1e6:,.0f} M |")
    lines += [
        f"| -- | -- | `ranks_from_scores`, whole matrix (anchor) | {t_full:.3f} | "
        f"{n_scores / t_full / 1e6:,.0f} M |",
        f"| 256 | 4096 | the scorer's calls alone (no counting) | {t_slice:.3f} | -- |",
        "",
    ]
    out = Path(__file__).with_name("results_scorer.md")
    out.write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
