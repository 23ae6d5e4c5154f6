"""Other single-step simultaneous intervals beside the default, on the same real data.

Companion of ``single_step_default.py`` (same 27 TREC matrices, k = 10 systems, 45
pairs, B = 999): simultaneous coverage in the bootstrap world of the matrix's topics
(n topics drawn with replacement, truth = the mean differences over all topics), the
family-wise error on real nulls (values shuffled within each topic) and the mean number
of rejected pairs, for

* ``perm-maxT``: the default (``correction="single-step"``): max-|t| under
  within-query permutations, intervals d +/- c se;
* ``boot-maxT``: max over pairs of |d* - d| / se under the paired bootstrap of the
  topics, se of the sample (the max-|t| bootstrap of ``rank_intervals``);
* ``boot-t-maxT``: the same with the resample's own se* (studentised bootstrap);
* ``bonferroni-t``: the t interval at alpha / 45.

Rejections: 0 outside the interval. R replicates per n.
Run: nice python -W ignore benchmarks/calibration/single_step_alternatives.py [R]
"""

import math
import sys
import time

import numpy as np
from matrices import available, load
from scipy import stats

import mrrstats

MATS = [load(f).dropna().to_numpy() for f in available()]
K, B = 10, 999
I, J = np.triu_indices(K, 1)
R = int(sys.argv[1]) if len(sys.argv) > 1 else 400


def differences(Y):
    """Mean differences and paired standard errors of every pair, Y (..., n, k)."""
    D = Y[..., I] - Y[..., J]
    return D.mean(-2), D.std(-2, ddof=1) / math.sqrt(Y.shape[-2])


def intervals(X, gen):
    d, se = differences(X)
    out = {}
    r = mrrstats.pairwise_tests(X.T, n_resamples=B, workers=1, rng=gen)
    out["perm-maxT"] = (r.ci_low, r.ci_high)
    Yb = X[gen.integers(0, X.shape[0], (B, X.shape[0]))]
    db, seb = differences(Yb)
    ok = se > 0
    M_fixed = (np.abs(db - d)[:, ok] / se[ok]).max(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        M_stud = np.nan_to_num(np.abs(db - d)[:, ok] / seb[:, ok], nan=0.0).max(-1)
    for name, M in (("boot-maxT", M_fixed), ("boot-t-maxT", M_stud)):
        c = np.quantile(M, 0.95, method="higher")
        out[name] = (d - c * se, d + c * se)
    q = stats.t.isf(0.025 / d.size, X.shape[0] - 1)
    out["bonferroni-t"] = (d - q * se, d + q * se)
    return out


def main():
    gen = np.random.default_rng(20261126)
    t0 = time.time()
    print(f"# R = {R} per n, k = {K}, B = {B}; MC se near 0.95: "
          f"{math.sqrt(0.05 * 0.95 / R):.3f}")
    print("| n | procedure | coverage | FWER (real null) | rejected of 45 |")
    print("|---|---|---|---|---|")
    for n in (25, 50):
        cov, fw, rej = {}, {}, {}
        for rep in range(R):
            M = MATS[rep % len(MATS)]
            full = M[:, gen.choice(M.shape[1], K, replace=False)]
            truth = full.mean(0)[I] - full.mean(0)[J]
            X = full[gen.integers(0, M.shape[0], n)]
            for name, (lo, hi) in intervals(X, gen).items():
                cov[name] = cov.get(name, 0) + bool(np.all((lo <= truth) & (truth <= hi)))
                rej[name] = rej.get(name, 0) + int(((lo > 0) | (hi < 0)).sum())
            rows = gen.choice(M.shape[0], min(n, M.shape[0]), replace=False)
            X0 = gen.permuted(full[rows], axis=1)
            for name, (lo, hi) in intervals(X0, gen).items():
                fw[name] = fw.get(name, 0) + bool(((lo > 0) | (hi < 0)).any())
        for name in cov:
            print(f"| {n} | {name} | {cov[name] / R:.3f} | {fw[name] / R:.3f} | "
                  f"{rej[name] / R:.2f} |", flush=True)
    print(f"total {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
