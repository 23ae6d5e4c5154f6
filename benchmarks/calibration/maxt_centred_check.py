"""Second look at the two Hall-corrected permutation max-T variants (issue #28 follow-up).

``hall-perm`` (``correction="single-step-skew"``) against ``hall-perm-centred`` (the
same statistic, the permutation null drawn from the system-centred scores
x_qi - mean_i, which is no longer an exact permutation test), with the own code of
``maxt_constructions.py`` on fresh replicates of its design (FWER on real nulls,
simultaneous coverage, mean rejected pairs of 45), then on the full data (first 20
systems of every matrix, B = 10,000, the permutations of ``pairwise_tests(rng=1)``).

Run: nice -n 10 python -W ignore benchmarks/calibration/maxt_centred_check.py [R_per_matrix]
"""

import math
import sys
import time

import numpy as np
from maxt_constructions import MATS, cutoff, g, hall_interval, moments, tstat

R_PER = int(sys.argv[1]) if len(sys.argv) > 1 else 40
K, B = 10, 999
I, J = np.triu_indices(K, 1)
NAMES = ("hall-perm", "hall-perm-centred")


def fit(X, gen, k=K, b=B):
    """{name: (lo, hi, reject)} of the two variants on X (n, k), shared permutations."""
    n = X.shape[0]
    ii, jj = np.triu_indices(k, 1)
    d, se, gam = moments(X[:, ii] - X[:, jj])
    t = tstat(d, se)
    out = {}
    state = gen.bit_generator.state
    for name, Y in zip(NAMES, (X, X - X.mean(0)), strict=True):
        gen.bit_generator.state = state  # the same permutations for both
        null = []
        for s in range(0, b, 250):
            r = min(250, b - s)
            P = gen.permuted(np.broadcast_to(Y, (r, n, k)), axis=-1)
            ds, ses, gs = moments(P[..., ii] - P[..., jj])
            null.append(np.abs(g(tstat(ds, ses), gs, n)).max(-1))
        c = cutoff(np.concatenate(null))
        lo, hi = hall_interval(d, se, gam, n, c)
        out[name] = (lo, hi, np.abs(g(t, gam, n)) > c)
    return out


def main():
    t0 = time.time()
    gen = np.random.default_rng(20261202)
    R = R_PER * len(MATS)
    print(
        f"# R = {R} per cell ({R_PER} per matrix), k = {K}, B = {B}; MC se near 0.95: "
        f"{math.sqrt(0.05 * 0.95 / R):.4f}",
        flush=True,
    )
    print("| n | construction | FWER | coverage (mean; min matrix) | rejected of 45 |")
    print("|---|---|---|---|---|")
    for n in (25, 50):
        fw = dict.fromkeys(NAMES, 0)
        cov = {k: np.zeros(len(MATS)) for k in NAMES}
        rej = dict.fromkeys(NAMES, 0)
        for rep in range(R):
            m = rep % len(MATS)
            M = MATS[m]
            full = M[:, gen.choice(M.shape[1], K, replace=False)]
            rows = gen.choice(M.shape[0], min(n, M.shape[0]), replace=False)
            for name, (_, _, rj) in fit(gen.permuted(full[rows], axis=1), gen).items():
                fw[name] += bool(rj.any())
            truth = full.mean(0)[I] - full.mean(0)[J]
            res = fit(full[gen.integers(0, M.shape[0], n)], gen)
            for name, (lo, hi, rj) in res.items():
                cov[name][m] += bool(np.all((lo <= truth) & (truth <= hi)))
                rej[name] += int(rj.sum())
        for k in NAMES:
            print(
                f"| {n} | {k} | {fw[k] / R:.3f} | {cov[k].sum() / R:.3f}; "
                f"{cov[k].min() / R_PER:.2f} | {rej[k] / R:.2f} |",
                flush=True,
            )
    tot = dict.fromkeys(NAMES, 0)
    for M in MATS:
        for name, (_, _, rj) in fit(M[:, :20], np.random.default_rng(1), k=20, b=10000).items():
            tot[name] += int(rj.sum())
    print(f"full data (27 matrices x first 20 systems, 5,130 pairs, B = 10,000): {tot}")
    print(f"total {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
