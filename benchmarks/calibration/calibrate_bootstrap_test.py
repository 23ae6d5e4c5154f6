"""Type I error of bootstrap_test (shift vs studentized) on real nulls.

Nulls from real TREC-5/6/7 ad hoc RR score matrices (Urbano et al. 2019 data, the
repository's copies: tests/data/score_matrices/trec_adhoc and mrrstats/data/trec7): each
replication takes a random pair of real systems and n topics (drawn without replacement
for n <= 50, with replacement from the 50 for n = 100), then swaps the two systems' values on each
topic with probability 1/2, so the two systems are exchangeable and H0 is true.
Both methods are run on the same null sample (independent resamples, B = 2000)
and a rejection is p <= 0.05. The 3-SE band is 0.05 +- 3 sqrt(0.05 * 0.95 / R).

Run from the repository root (about 5 minutes on one core):

    python benchmarks/calibration/calibrate_bootstrap_test.py \
        > benchmarks/calibration/results_bootstrap_calibration.md
"""

from __future__ import annotations

import math
import sys

import numpy as np
from matrices import available, load

import mrrstats

R = 1000          # replications per (collection, n)
B = 2000          # bootstrap resamples per test
ALPHA = 0.05
SIZES = (25, 50, 100)


def null_sample(X, n, gen):
    k = X.shape[1]
    i, j = gen.choice(k, size=2, replace=False)
    topics = gen.choice(X.shape[0], size=n, replace=n > X.shape[0])
    a, b = X[topics, i].copy(), X[topics, j].copy()
    swap = gen.random(n) < 0.5
    a[swap], b[swap] = b[swap], a[swap]
    return a, b


def main():
    gen = np.random.default_rng(20261123)
    rows = []
    pooled = {(n, m): 0 for n in SIZES for m in ("shift", "studentized")}
    names = available([f"trec_adhoc/adhoc{y}_rr.csv" for y in (5, 6, 7)])
    for name in names:
        year = name[len("trec_adhoc/adhoc")]
        X = load(name).to_numpy()
        for n in SIZES:
            rej = {"shift": 0, "studentized": 0}
            for _ in range(R):
                a, b = null_sample(X, n, gen)
                for m in rej:
                    p = mrrstats.bootstrap_test(a, b, method=m, n_resamples=B,
                                                rng=gen).pvalue
                    rej[m] += p <= ALPHA
            for m in rej:
                pooled[(n, m)] += rej[m]
            rows.append((f"TREC-{year}", n, rej["shift"] / R, rej["studentized"] / R, R))
            print(rows[-1], file=sys.stderr, flush=True)
    for n in SIZES:
        rows.append(("pooled", n, pooled[(n, "shift")] / (3 * R),
                     pooled[(n, "studentized")] / (3 * R), 3 * R))
    print(f"Type I error at alpha = {ALPHA}, RR, real nulls (random swaps), B = {B}\n")
    print("| collection | topics | shift | studentized | R | 3-SE band |")
    print("|---|---|---|---|---|---|")
    for name, n, s, t, r in rows:
        half = 3 * math.sqrt(ALPHA * (1 - ALPHA) / r)
        print(f"| {name} | {n} | {s:.3f} | {t:.3f} | {r} | "
              f"[{ALPHA - half:.3f}, {ALPHA + half:.3f}] |")


if __name__ == "__main__":
    main()
