"""Which many-system procedure should be the default? FWER, power and coverage on real TREC data.

The candidates (all two-sided, alpha = 0.05, within-query nulls):

* ``single-step``: randomization test with ``correction="single-step"`` -- single-step
  max-T of the studentised paired differences under within-query permutations, with
  simultaneous intervals d +/- c se (the default of mrrstats 0.2);
* ``holm``: the paired randomization test (sign flips) with Holm -- the default before
  0.2; its table shows the Bonferroni simultaneous interval (the sign-flip test
  inverted at alpha/m), and it may reject beyond it;
* ``tukey``: the randomised Tukey HSD (range of the means, unstudentised; Carterette 2012);
* ``maxt-sd``: Westfall-Young step-down max-T of the same studentised statistics (its
  intervals are the single-step ones).

Data: the 27 real TREC score matrices of the repository (TREC-5/6/7 ad hoc AP/RR/P@10;
Web 2010/2011/2013 AP/RR/P@10/P@20/nDCG@20/ERR@20), through ``matrices.py``.

1. Family-wise error on real nulls: k = 10 systems drawn from a matrix (matrices in
   turn), n topics drawn without replacement, and every topic's 10 values shuffled
   among the systems (a null where no pair differs, with the real score distributions);
   FWER = share of replicates with any rejection (45 pairs).
2. Simultaneous coverage on real data: k = 10 systems, truth = their mean differences
   over all the matrix's topics, n topics drawn with replacement; coverage = share of
   replicates where all 45 intervals hold the truth; also the mean number of rejected
   pairs and the median width over the marginal 95% t interval.
3. Power against randomization + Holm on the full matrices: the first 20 systems of
   every matrix (190 pairs, 5,130 in all), B = 10,000: pairs each procedure rejects,
   pairs Holm rejects and single-step does not, and the other way round; the width of
   the single-step interval over the marginal 95% t interval (median, largest).

B = 999 in parts 1 and 2 (an exact level for any B: the Monte-Carlo p-value
(1 + count)/(B + 1) of a permutation test is valid), R replicates per cell.
Run: nice python -W ignore benchmarks/calibration/single_step_default.py [R]
"""

import sys
import time

import numpy as np
from matrices import available, load

import mrrstats
from mrrstats.stats.corrections import ci_excludes_zero

R = int(sys.argv[1]) if len(sys.argv) > 1 else 500
K = 10
B = 999
FILES = available()
MATS = [load(f).dropna().to_numpy() for f in FILES]


def run(X, name, b=B, rng=None):
    """One procedure on X (n_topics, k): its PairwiseResult."""
    X = X.T  # arrays are (n_systems, n_queries)
    kw = dict(n_resamples=b, workers=1, rng=rng)
    if name == "single-step":
        r = mrrstats.pairwise_tests(X, correction="single-step", **kw)
    elif name == "holm":
        r = mrrstats.pairwise_tests(X, correction="holm", **kw)
    elif name == "tukey":
        r = mrrstats.pairwise_tests(X, test="tukey", **kw)
    else:  # maxt-sd
        r = mrrstats.pairwise_tests(X, test="maxt", test_options={"statistic": "t"}, **kw)
    return r


NAMES = ("single-step", "holm", "tukey", "maxt-sd")


def fwer(n, gen):
    hits = dict.fromkeys(NAMES, 0)
    for rep in range(R):
        M = MATS[rep % len(MATS)]
        cols = gen.choice(M.shape[1], K, replace=False)
        rows = gen.choice(M.shape[0], min(n, M.shape[0]), replace=False)
        X = gen.permuted(M[np.ix_(rows, cols)], axis=1)  # values shuffled within each topic
        for name in NAMES:
            hits[name] += bool(run(X, name, rng=gen).reject.any())
    return {k: v / R for k, v in hits.items()}


def coverage(n, gen):
    cover = dict.fromkeys(NAMES, 0)
    rejected = dict.fromkeys(NAMES, 0)
    width = {k: [] for k in NAMES}
    I, J = np.triu_indices(K, 1)
    for rep in range(R):
        M = MATS[rep % len(MATS)]
        cols = gen.choice(M.shape[1], K, replace=False)
        full = M[:, cols]
        truth = full.mean(0)[I] - full.mean(0)[J]
        X = full[gen.integers(0, M.shape[0], n)]
        for name in NAMES:
            r = run(X, name, rng=gen)
            cover[name] += bool(np.all((r.ci_low <= truth) & (truth <= r.ci_high)))
            rejected[name] += int(r.reject.sum())
            mw = r.marginal_high - r.marginal_low
            ok = mw > 0
            width[name].append(np.median((r.ci_high - r.ci_low)[ok] / mw[ok]))
    return ({k: v / R for k, v in cover.items()}, {k: v / R for k, v in rejected.items()},
            {k: float(np.median(v)) for k, v in width.items()})


def power():
    out = {k: 0 for k in (*NAMES, "holm_not_ss", "ss_not_holm", "pairs", "disagree_ss")}
    ratios = []
    for M in MATS:
        X = M[:, :20]
        res = {name: run(X, name, b=10000, rng=1) for name in NAMES}
        for name, r in res.items():
            out[name] += int(r.reject.sum())
        ss, holm = res["single-step"], res["holm"]
        out["holm_not_ss"] += int((holm.reject & ~ss.reject).sum())
        out["ss_not_holm"] += int((ss.reject & ~holm.reject).sum())
        out["pairs"] += len(ss)
        out["disagree_ss"] += int((ci_excludes_zero(ss.ci_low, ss.ci_high) != ss.reject).sum())
        mw = ss.marginal_high - ss.marginal_low
        ok = mw > 0
        ratios.append((ss.ci_high - ss.ci_low)[ok] / mw[ok])
    ratios = np.concatenate(ratios)
    return out, float(np.median(ratios)), float(ratios.max())


def main():
    t0 = time.time()
    gen = np.random.default_rng(20261125)
    print(f"# {len(MATS)} matrices: {', '.join(FILES)}")
    print(f"# k = {K} systems per replicate (45 pairs), R = {R} replicates per cell, "
          f"B = {B}; MC se of a rate near 0.05: {np.sqrt(0.05 * 0.95 / R):.3f}, "
          f"near 0.95: {np.sqrt(0.05 * 0.95 / R):.3f}", flush=True)
    rows = {}
    for n in (25, 50):
        rows[("fwer", n)] = fwer(n, gen)
        print(f"FWER n={n}: {rows[('fwer', n)]}  ({time.time() - t0:.0f} s)", flush=True)
    for n in (25, 50):
        cov, rej, wid = coverage(n, gen)
        rows[("cover", n)], rows[("rej", n)], rows[("width", n)] = cov, rej, wid
        print(f"coverage n={n}: {cov}\n  mean rejected of 45: {rej}\n  median width / "
              f"marginal t: {wid}  ({time.time() - t0:.0f} s)", flush=True)
    pw, med, mx = power()
    print(f"power (27 matrices x first 20 systems, {pw['pairs']} pairs, B = 10000): {pw}; "
          f"single-step width / marginal t width: median {med:.2f}, max {mx:.2f}  "
          f"({time.time() - t0:.0f} s)", flush=True)
    print()
    head = ("| procedure | FWER n=25 | FWER n=50 | coverage n=25 | coverage n=50 "
            "| rejected of 45, n=25 | n=50 | width / marginal t (n=25) | rejected, full data "
            f"({pw['pairs']} pairs) |")
    print(head)
    print("|" + "---|" * 9)
    for name in NAMES:
        print(f"| {name} | {rows[('fwer', 25)][name]:.3f} | {rows[('fwer', 50)][name]:.3f} | "
              f"{rows[('cover', 25)][name]:.3f} | {rows[('cover', 50)][name]:.3f} | "
              f"{rows[('rej', 25)][name]:.2f} | {rows[('rej', 50)][name]:.2f} | "
              f"{rows[('width', 25)][name]:.2f} | {pw[name]} |")
    print(f"\nHolm rejects and single-step does not: {pw['holm_not_ss']} pairs; single-step "
          f"rejects and Holm does not: {pw['ss_not_holm']}; single-step intervals that "
          f"disagree with their decision: {pw['disagree_ss']} of {pw['pairs']}.")
    print(f"total {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
