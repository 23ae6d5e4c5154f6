"""Benchmark: which test fits TREC data? calibrate_tests against Urbano et al..

Part A reproduces the design of Urbano, Lima & Hanjalic (SIGIR 2019, "Statistical
significance testing in information retrieval: an empirical analysis of type I, type II
and type III errors"; code and outputs: julian-urbano/sigir2019-statistical @ 4dd2c8e7,
R/11-type_1.R): pick a TREC collection (with probability proportional to its runs), two
of its runs at random (the bottom 25% of runs by mean and duplicate runs removed, as
their R/common.R does), simulate topic sets in which both systems share the first run's
margin (their null), and count the rejections of each two-sided test at alpha = 0.05.
Their published rates for RR (output/type_1/type_1_rr_{25,50,100}.csv, row alpha = 0.05,
columns t2 w2 s2 b2 p2; 1.667 million trials each, simIReff margins, vine copulas,
10^6 resamples) are printed beside ours (mrrstats.calibrate_tests(null_hypothesis="margins"):
simIReff-style margins, Gaussian copula, 1,000 resamples).

Part B: the null that an IR paper claims to test -- equal MRR, each system keeping its
own distribution (calibrate_tests' default, null_hypothesis="means") -- at 50, 200 and 1,000
topics: the Wilcoxon and sign tests drift away from the level as topics grow (their null
is a median or a symmetry; Ihemelandu & Ekstrand 2023 saw the same on large search
data), the t and randomization tests do not. Power at a difference of 0.05 at 50 topics.

RR of TREC-5/6/7 ad hoc and Web 2010/2011/2013 (Urbano et al., CC BY-SA 4.0), the
repository's copies (tests/data/score_matrices, mrrstats/data/trec7; tests/data/README.md).

Run: nice python benchmarks/bench_calibration.py [--quick]
Writes benchmarks/results_calibration.md.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import mrrstats  # noqa: E402
from tests.reference_data import score_matrices  # noqa: E402

FILES = ["trec_adhoc/adhoc5_rr.csv", "trec_adhoc/adhoc6_rr.csv", "trec_adhoc/adhoc7_rr.csv",
         "trec_web/web2010_rr.csv", "trec_web/web2011_rr.csv", "trec_web/web2013_rr.csv"]
TESTS = ("t", "randomization", "bootstrap", "wilcoxon", "sign")
# Urbano, Lima & Hanjalic (2019), output/type_1/type_1_rr_<n>.csv, alpha = 0.05, two-sided
# (columns t2, p2, b2, w2, s2 of the published files).
PUBLISHED = {
    25: {"t": 0.0495, "randomization": 0.0482, "bootstrap": 0.0672, "wilcoxon": 0.0439,
         "sign": 0.0289},
    50: {"t": 0.0498, "randomization": 0.0498, "bootstrap": 0.0580, "wilcoxon": 0.0480,
         "sign": 0.0360},
    100: {"t": 0.0500, "randomization": 0.0501, "bootstrap": 0.0539, "wilcoxon": 0.0498,
          "sign": 0.0485},
}


def collections():
    """{name: frame} with the bottom 25% of runs and duplicate runs removed (R/common.R)."""
    out = {}
    matrices = score_matrices()
    for p in (matrices[f] for f in FILES):
        out[p.stem.replace("_rr", "")] = mrrstats.read_score_matrix(p)
    for name, X in out.items():
        mu = X.mean()
        X = X.loc[:, mu >= mu.quantile(0.25)]
        keep = []
        for c in X.columns:
            if not any(np.allclose(X[c], X[k], atol=1e-5) for k in keep):
                keep.append(c)
        out[name] = X[keep]
    return out


def pairs(cols, n_pairs, gen):
    names = list(cols)
    sizes = np.array([cols[c].shape[1] for c in names], dtype=float)
    out = []
    for _ in range(n_pairs):
        c = names[gen.choice(len(names), p=sizes / sizes.sum())]
        i, j = gen.choice(cols[c].shape[1], 2, replace=False)
        out.append((c, cols[c].columns[i], cols[c].columns[j]))
    return out


def run(cols, chosen, n_q, null, n_sim, differences, seed):
    rates = {t: [] for t in TESTS}
    powers = {t: [] for t in TESTS}
    for k, (c, a, b) in enumerate(chosen):
        res = mrrstats.calibrate_tests(cols[c][[a, b]], n_queries=n_q, null_hypothesis=null,
                                       n_simulations=n_sim, differences=differences,
                                       n_resamples=1000, rng=seed + k)
        f = res.to_frame().set_index("test")
        for t in TESTS:
            rates[t].append(f.loc[t, "type_I_error"])
            if differences:
                powers[t].append(f.loc[t, f"power_{differences[0]:g}"])
    return ({t: float(np.mean(v)) for t, v in rates.items()},
            {t: float(np.mean(v)) for t, v in powers.items()} if differences else None)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    gen = np.random.default_rng(2019)
    cols = collections()
    n_pairs = 20 if args.quick else 100
    n_sim = 50 if args.quick else 100
    chosen = pairs(cols, n_pairs, gen)
    t0 = time.time()
    part_a = {}
    for n_q in (25, 50, 100):
        part_a[n_q], _ = run(cols, chosen, n_q, "margins", n_sim, (), 100 * n_q)
        print("A", n_q, part_a[n_q], f"{time.time() - t0:.0f}s", flush=True)
    part_b, power = {}, None
    for n_q in (50, 200, 1000):
        diffs = (0.05,) if n_q == 50 else ()
        part_b[n_q], pw = run(cols, chosen, n_q, "means", n_sim, diffs, 7 * n_q)
        power = pw if pw is not None else power
        print("B", n_q, part_b[n_q], pw, f"{time.time() - t0:.0f}s", flush=True)
    write(cols, n_pairs, n_sim, part_a, part_b, power, time.time() - t0)


def write(cols, n_pairs, n_sim, part_a, part_b, power, seconds):
    total = n_pairs * n_sim
    se = math.sqrt(0.05 * 0.95 / total)
    names = ", ".join(f"{c} ({X.shape[1]} runs)" for c, X in cols.items())
    lines = ["# Which test fits TREC RR? calibrate_tests against Urbano et al. 2019",
             "", "Produced by `benchmarks/bench_calibration.py` (see its docstring). "
             f"Collections after removing the bottom 25% and duplicate runs: {names}. "
             f"{n_pairs} random pairs x {n_sim} simulated topic sets = {total} trials per "
             f"cell (Monte-Carlo SE at 0.05: about {se:.4f}, more for the tests whose "
             "rate varies between pairs); two-sided, alpha = 0.05; 1,000 resamples for "
             f"the randomization and bootstrap tests. {seconds:.0f} s in all.", "",
             "## A. Identical margins (Urbano, Lima & Hanjalic 2019's null)", "",
             "| topics | | " + " | ".join(TESTS) + " |",
             "|---:|---|" + "---:|" * len(TESTS)]
    for n_q, r in part_a.items():
        lines.append(f"| {n_q} | mrrstats | " + " | ".join(f"{r[t]:.4f}" for t in TESTS) +
                     " |")
        lines.append(f"| {n_q} | published | " +
                     " | ".join(f"{PUBLISHED[n_q][t]:.4f}" for t in TESTS) + " |")
    lines += ["", "## B. Equal expected RR, each system its own distribution "
              "(calibrate_tests' default null)", "",
              "| topics | " + " | ".join(TESTS) + " |", "|---:|" + "---:|" * len(TESTS)]
    for n_q, r in part_b.items():
        lines.append(f"| {n_q} | " + " | ".join(f"{r[t]:.4f}" for t in TESTS) + " |")
    if power:
        lines += ["", "Power at a true difference of 0.05 RR, 50 topics (null = means): " +
                  ", ".join(f"{t} {power[t]:.3f}" for t in TESTS) + "."]
    out = ROOT / "benchmarks" / "results_calibration.md"
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
