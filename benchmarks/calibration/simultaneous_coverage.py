"""Simultaneous coverage of the decision-consistent intervals.

6 systems of TREC-7 ad hoc AP (15 pairs); truth = full-sample mean differences;
25 topics resampled with replacement, R = 400; coverage = all 15 intervals cover
(FWER procedures) or 1 - false coverage among rejected pairs (BH: FCR).
Run: python -W ignore benchmarks/calibration/simultaneous_coverage.py
"""
import numpy as np
from matrices import load

import mrrstats

X = load("trec_adhoc/adhoc7_ap.csv").dropna()
X = X.iloc[:, [0, 10, 20, 30, 40, 50]].to_numpy()
k = X.shape[1]
I, J = np.triu_indices(k, 1)
truth = X.mean(0)[I] - X.mean(0)[J]
R, n = 400, 25
gen = np.random.default_rng(2026)
for test in ("t", "randomization"):
    for corr in ("holm", "bonferroni", "bh", "none"):
        cover = fcp = 0.0
        for _ in range(R):
            s = X[gen.integers(0, X.shape[0], n)]
            r = mrrstats.pairwise_tests(s.T, test=test, correction=corr, n_resamples=1000,
                                        rng=gen)
            inside = (r.ci_low <= truth) & (truth <= r.ci_high)
            cover += inside.all()
            sel = r.reject
            fcp += (~inside[sel]).sum() / max(sel.sum(), 1)
        print(f"{test:14s} {corr:10s} {r.ci_method:28s} all-pairs coverage {cover / R:.3f} "
              f" FCR {fcp / R:.3f}  (MC se ~{np.sqrt(0.05 * 0.95 / R):.3f})", flush=True)
