"""Coverage of marginal intervals for one pair's mean difference.

For real TREC score matrices: take a column pair, call its full-sample mean
difference the truth, resample n topics (with replacement: the topics are the
population) R times, and count how often each 95% interval covers the truth.
Intervals: t, percentile, BCa and
studentized bootstrap (B = 999 resamples, same resamples for all bootstrap intervals).
Run: python benchmarks/calibration/coverage_pair_ci.py \
     > benchmarks/calibration/coverage_pair_ci.txt
"""
import numpy as np
from matrices import available, load
from scipy import special, stats

FILES = ["trec_adhoc/adhoc7_ap.csv", "trec_adhoc/adhoc7_rr.csv", "trec_adhoc/adhoc6_ap.csv",
         "trec_web/web2011_ndcg20.csv", "trec_web/web2010_rr.csv", "trec_adhoc/adhoc5_p10.csv"]
R, B, CL = 1000, 999, 0.95


def intervals(D, gen):
    """D (R, n) -> dict name -> (lo, hi) arrays of shape (R,)."""
    Rr, n = D.shape
    d = D.mean(1)
    s = D.std(1, ddof=1)
    se = s / np.sqrt(n)
    out = {}
    tq = stats.t.ppf(0.5 + CL / 2, n - 1)
    out["t"] = (d - tq * se, d + tq * se)
    idx = gen.integers(0, n, size=(Rr, B, n))
    Db = np.take_along_axis(D[:, None, :], idx, axis=2)  # (R, B, n)
    mb = Db.mean(2)
    sb = Db.std(2, ddof=1) / np.sqrt(n)
    a = (1 - CL) / 2
    out["percentile"] = (np.quantile(mb, a, axis=1), np.quantile(mb, 1 - a, axis=1))
    # BCa
    z0 = special.ndtri(np.clip((mb < d[:, None]).mean(1) + 0.5 * (mb == d[:, None]).mean(1),
                               1e-10, 1 - 1e-10))
    jack = (D.sum(1, keepdims=True) - D) / (n - 1)
    u = jack.mean(1, keepdims=True) - jack
    acc = (u ** 3).sum(1) / (6 * ((u ** 2).sum(1)) ** 1.5 + 1e-300)
    lohi = []
    for zz in (special.ndtri(a), special.ndtri(1 - a)):
        al = special.ndtr(z0 + (z0 + zz) / (1 - acc * (z0 + zz)))
        lohi.append(np.array([np.quantile(mb[r], al[r]) for r in range(Rr)]))
    out["bca"] = tuple(lohi)
    # studentized (bootstrap-t)
    with np.errstate(divide="ignore", invalid="ignore"):
        tb = np.where(sb > 0, (mb - d[:, None]) / sb, 0.0)
    out["studentized"] = (d - np.quantile(tb, 1 - a, axis=1) * se,
                          d - np.quantile(tb, a, axis=1) * se)
    return out


def main():
    gen = np.random.default_rng(20261123)
    rows = []
    for f in available(FILES):
        X = load(f).dropna().to_numpy()
        means = X.mean(0)
        order = np.argsort(means)[::-1]
        # a pair of adjacent good systems, and a pair far apart
        for (i, j) in [(order[1], order[2]), (order[0], order[len(order) // 2])]:
            full = X[:, i] - X[:, j]
            truth = full.mean()
            for n in (25, 50):
                sel = np.array([gen.choice(full.size, n, replace=True) for _ in range(R)])
                res = intervals(full[sel], gen)
                cov = {k: float(np.mean((lo <= truth) & (truth <= hi))) for k, (lo, hi) in
                       res.items()}
                rows.append((f, int(i), int(j), n, cov))
                print(f, i, j, n, " ".join(f"{k}={v:.3f}" for k, v in cov.items()), flush=True)
    print("\nmean coverage over pairs (MC se of one cell ~0.007 at R=1000)")
    for n in (25, 50):
        sub = [c for (_, _, _, nn, c) in rows if nn == n]
        print(n, " ".join(f"{k}={np.mean([c[k] for c in sub]):.3f}" for k in sub[0]),
              " min:", " ".join(f"{k}={np.min([c[k] for c in sub]):.3f}" for k in sub[0]))


if __name__ == "__main__":
    main()
