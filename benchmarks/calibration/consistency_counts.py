"""Pairs whose interval and decision disagree, on every real TREC score matrix.

First 20 systems of each matrix (190 pairs), default intervals, B = 10000.
Run: python -W ignore benchmarks/calibration/consistency_counts.py
"""
from matrices import available, load

import mrrstats
from mrrstats.stats.multiple import ci_excludes_zero

files = available()
cases = [("randomization", c) for c in ("holm", "bonferroni", "bh", "none")] + [
    ("t", "holm"), ("maxt", None), ("tukey", None)]
for test, corr in cases:
    bad = pairs = rej = 0
    method = None
    for f in files:
        X = load(f).dropna().iloc[:, :20]
        r = mrrstats.pairwise_tests(X, test=test, correction=corr or "holm",
                                    n_resamples=10000, rng=1)
        bad += int((ci_excludes_zero(r.ci_low, r.ci_high) != r.reject).sum())
        pairs += len(r)
        rej += int(r.reject.sum())
        method = r.ci_method
    print(f"{test:14s} {str(corr):10s} {method:28s} disagree {bad} of {pairs} pairs "
          f"({rej} rejected)", flush=True)
