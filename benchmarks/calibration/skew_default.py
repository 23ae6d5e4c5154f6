"""The skewness-corrected single-step max-T through mrrstats itself (issue #28).

Companion of ``maxt_constructions.py`` (which computes every construction with its own
code): the same design, a fresh seed, and the procedures as users run them --
``mrrstats.pairwise_tests`` with ``correction="single-step"`` (max-T, intervals
d +/- c se), ``"single-step-skew"`` (Hall's skewness correction, asymmetric intervals)
and ``"holm"`` (randomization + Holm, Bonferroni interval):

1. FWER on real nulls (10 systems of a matrix, n topics without replacement, every
   topic's values shuffled among the systems);
2. simultaneous coverage of the 45 intervals (n topics with replacement; truth = the
   mean differences over all topics): mean over the 27 matrices and the smallest per
   matrix; mean rejected pairs; intervals that disagree with the decision;
3. full data: the first 20 systems of every matrix with all topics (5,130 pairs),
   B = 10,000: rejected pairs, and the pairs one procedure rejects and another not.

Run: nice -n 10 python -W ignore benchmarks/calibration/skew_default.py [R_per_matrix]
[seed] [coverage]: with ``coverage``, parts 2 only (FWER, full data skipped: a second,
larger coverage run with another seed).
"""

import math
import sys
import time

import numpy as np
from matrices import available, load

import mrrstats

FILES = available()
MATS = [load(f).dropna().to_numpy() for f in FILES]
K, B = 10, 999
I, J = np.triu_indices(K, 1)
R_PER = int(sys.argv[1]) if len(sys.argv) > 1 else 20
SEED = int(sys.argv[2]) if len(sys.argv) > 2 else 20261130
COVERAGE_ONLY = len(sys.argv) > 3 and sys.argv[3] == "coverage"
NAMES = ("single-step", "single-step-skew", "holm")


def run(X, name, b=B, rng=None):
    return mrrstats.pairwise_tests(X.T, correction=name, n_resamples=b, workers=1, rng=rng)


def main():
    t0 = time.time()
    gen = np.random.default_rng(SEED)
    R = R_PER * len(MATS)
    print(
        f"# {len(MATS)} matrices, k = {K} (45 pairs), B = {B}, R = {R} per cell "
        f"({R_PER} per matrix); MC se near 0.95 / 0.05: {math.sqrt(0.05 * 0.95 / R):.4f} "
        f"pooled, {math.sqrt(0.05 * 0.95 / R_PER):.3f} for one matrix",
        flush=True,
    )
    rows = {}
    for n in (25, 50):
        fw = dict.fromkeys(NAMES, 0)
        cov = {k: np.zeros(len(MATS)) for k in NAMES}
        rej = dict.fromkeys(NAMES, 0)
        dis = dict.fromkeys(NAMES, 0)
        for rep in range(R):
            m = rep % len(MATS)
            M = MATS[m]
            full = M[:, gen.choice(M.shape[1], K, replace=False)]
            rows0 = gen.choice(M.shape[0], min(n, M.shape[0]), replace=False)
            X0 = gen.permuted(full[rows0], axis=1)
            truth = full.mean(0)[I] - full.mean(0)[J]
            X = full[gen.integers(0, M.shape[0], n)]
            for name in NAMES:
                if not COVERAGE_ONLY:
                    fw[name] += bool(run(X0, name, rng=gen).reject.any())
                r = run(X, name, rng=gen)
                cov[name][m] += bool(np.all((r.ci_low <= truth) & (truth <= r.ci_high)))
                rej[name] += int(r.reject.sum())
                dis[name] += int((((r.ci_low > 0) | (r.ci_high < 0)) != r.reject).sum())
        rows[n] = {
            k: (fw[k] / R, cov[k].sum() / R, cov[k] / R_PER, rej[k] / R, dis[k]) for k in NAMES
        }
        print(f"n={n}: {rows[n]}  ({time.time() - t0:.0f} s)", flush=True)
    if COVERAGE_ONLY:
        for k in NAMES:
            print(
                f"| {k} | coverage n=25 {rows[25][k][1]:.3f} (min matrix "
                f"{rows[25][k][2].min():.2f}) | n=50 {rows[50][k][1]:.3f} (min matrix "
                f"{rows[50][k][2].min():.2f}) | rejected of 45 {rows[25][k][3]:.2f} / "
                f"{rows[50][k][3]:.2f} |"
            )
        print(f"total {time.time() - t0:.0f} s")
        return
    full_rej = dict.fromkeys(NAMES, 0)
    only = {}
    pairs = 0
    for M in MATS:
        res = {name: run(M[:, :20], name, b=10000, rng=1) for name in NAMES}
        pairs += len(res["holm"])
        for name, r in res.items():
            full_rej[name] += int(r.reject.sum())
        for a in NAMES:
            for b in NAMES:
                if a != b:
                    only[(a, b)] = only.get((a, b), 0) + int(
                        (res[a].reject & ~res[b].reject).sum()
                    )
    print(f"full data ({pairs} pairs, B = 10000): {full_rej}  ({time.time() - t0:.0f} s)")
    print()
    print(
        "| correction | FWER n=25 | FWER n=50 | coverage n=25 (mean; min matrix) "
        "| coverage n=50 (mean; min matrix) | rejected of 45, n=25 | n=50 "
        f"| rejected of {pairs}, full data | intervals disagreeing with decision |"
    )
    print("|" + "---|" * 9)
    for k in NAMES:
        a, b = rows[25][k], rows[50][k]
        ma, mb = int(np.argmin(a[2])), int(np.argmin(b[2]))
        print(
            f"| {k} | {a[0]:.3f} | {b[0]:.3f} | {a[1]:.3f}; {a[2][ma]:.2f} "
            f"({FILES[ma].split('/')[1][:-4]}) | {b[1]:.3f}; {b[2][mb]:.2f} "
            f"({FILES[mb].split('/')[1][:-4]}) | {a[3]:.2f} | {b[3]:.2f} | "
            f"{full_rej[k]} | {a[4] + b[4]} of {2 * R * 45} |"
        )
    print()
    for (a, b), v in only.items():
        print(f"full data: {a} rejects and {b} does not: {v} pairs")
    print("coverage per matrix (n=25 / n=50):")
    for k in NAMES:
        print(
            f"  {k}: "
            + ", ".join(
                f"{FILES[m].split('/')[1][:-4]} {rows[25][k][2][m]:.2f}/{rows[50][k][2][m]:.2f}"
                for m in range(len(MATS))
            )
        )
    print(f"total {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
