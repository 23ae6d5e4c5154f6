"""Benchmark: several runs per system. Level and power of the naive ways and of ours.

Real per-topic RR of TREC ad hoc runs (TREC-7: 50 topics, 103 runs, Urbano et al.,
CC BY-SA 4.0; bundled as mrrstats.datasets.trec7_scores) give each query's *expected*
reciprocal rank; seeds are simulated on the rank of the first relevant document:
replicate ``r`` of a system puts it at

    k_qr = max(1, round(k_q * exp(u_r + e_qr))),   u_r ~ N(0, sd_seed^2),  e_qr ~ N(0, 0.5^2)

(RR = 1/k_qr, 0 past rank 1000 or when the real system found nothing): ``u_r`` shifts a
whole run (a lucky or unlucky seed), ``e_qr`` moves single queries. Two true nulls:

* ``same``: A and B are the same real system trained with different seeds;
* ``swap``: A and B are two real systems (drawn among the 40 best), their topics
  swapped at random per query, so their expected means over topics and seeds are equal
  (system x topic interaction present).

and one false null for power: ``shift``, the same real system where B's seeds put the first
relevant document exp(0.3) = 1.35 times further down (k_qr times exp(0.3) before rounding).

Each simulated experiment draws ``n`` topics with replacement from the 50, then R runs
per system. Methods, at alpha = 0.05, two-sided:

* naive ``average``: the paired t-test on the per-query means over replicates;
* naive ``pooled``: the paired t-test on the n x R (query, replicate) cells as if they
  were n x R queries (replicate r of A paired with replicate r of B);
* ours ``t``: mrrstats.replicate_tests(method="t") (ANOVA components + Satterthwaite);
* ours ``bootstrap``: mrrstats.replicate_tests(method="bootstrap"), the default, whose
  replicate stage is ``replicate_draws="parametric"`` (normal run effects, a chi-square
  variance estimate on R - 1 df), B = 499 here;
* ``parametric``: the same without the t envelope of pairs with fewer than 4 runs on a
  side (``T_ENVELOPE_BELOW`` set to 0 for the call);
* ``before``: ``replicate_draws="resample"`` without the envelope (the runs drawn with
  replacement: the default before), on the same experiments and seeds;
* ``mixed``: mrrstats.replicate_tests(method="mixed") (statsmodels MixedLM), fewer
  experiments (each fit takes seconds to minutes).

Also timed: the default method on 250 queries x 10 runs per system (B = 10,000); the
MixedLM fit only with --time-mixed (minutes).

Run: nice python benchmarks/bench_replicates.py [--quick] [--jobs 2] (about 15 minutes on
two busy cores); then [--mixed N] for the MixedLM's level on N experiments of two settings
(appended to the results).
Writes benchmarks/results_replicates.md.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import mrrstats  # noqa: E402
import mrrstats.stats.replicates as replicates_module  # noqa: E402
from mrrstats.stats.replicates import FewReplicatesWarning  # noqa: E402

SIGMA_E = 0.5


SHIFT = 0.3  # log-rank shift of B in the power scenario
B_BOOT = 499


def seed_runs(x, R, sd_seed, gen, shift=0.0):
    """R replicate runs (n, R) of a system whose expected per-query RR is ``x``."""
    k = np.where(x > 0, 1.0 / np.maximum(x, 1e-12), np.inf)
    u = gen.normal(0.0, sd_seed, size=R)
    e = gen.normal(0.0, SIGMA_E, size=(x.size, R))
    kr = np.maximum(1.0, np.rint(k[:, None] * np.exp(shift + u[None, :] + e)))
    return np.where(np.isfinite(kr) & (kr <= 1000), 1.0 / kr, 0.0)


def naive_average(YA, YB):
    return stats.ttest_1samp(YA.mean(1) - YB.mean(1), 0.0).pvalue


def naive_pooled(YA, YB):
    R = min(YA.shape[1], YB.shape[1])
    return stats.ttest_1samp((YA[:, :R] - YB[:, :R]).ravel(), 0.0).pvalue


def ours(YA, YB, method, rng, B=B_BOOT, draws="parametric", envelope=True):
    R_a, R_b = YA.shape[1], YB.shape[1]
    cols = [f"a{r}" for r in range(R_a)] + [f"b{r}" for r in range(R_b)]
    frame = pd.DataFrame(np.hstack([YA, YB]), columns=cols)
    rep = {"A": cols[:R_a], "B": cols[R_a:]}
    below = replicates_module.T_ENVELOPE_BELOW
    if not envelope:  # the bootstrap's own reference, also with 3 runs
        replicates_module.T_ENVELOPE_BELOW = 0
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FewReplicatesWarning)
            res = mrrstats.replicate_tests(frame, rep, method=method, n_resamples=B, rng=rng,
                                           replicate_draws=draws)
    finally:
        replicates_module.T_ENVELOPE_BELOW = below
    return float(res.pvalue[0]), float(res.share_replicates[0])


def experiment(X, scenario, n, R, sd_seed, gen, pool):
    i, j = gen.choice(pool, 2, replace=False)
    q = gen.integers(0, X.shape[0], n)
    xa, xb = X[q, i], X[q, j]
    if scenario in ("same", "shift"):
        xb = xa
    else:
        swap = gen.random(n) < 0.5
        xa, xb = np.where(swap, xb, xa), np.where(swap, xa, xb)
    return (seed_runs(xa, R, sd_seed, gen),
            seed_runs(xb, R, sd_seed, gen, SHIFT if scenario == "shift" else 0.0))


def mixed_cell(X, scenario, n, R, sd_seed, n_fit, seed, pool):
    """Rejection rate of method="mixed" (statsmodels MixedLM) on ``n_fit`` experiments."""
    gen = np.random.default_rng(seed)
    rej = 0
    for _ in range(n_fit):
        YA, YB = experiment(X, scenario, n, R, sd_seed, gen, pool)
        rej += ours(YA, YB, "mixed", None)[0] <= 0.05
    return rej / n_fit


def cell(X, scenario, n, R, sd_seed, n_sim, seed, pool):
    gen = np.random.default_rng(seed)
    rej = {m: 0 for m in ("average", "pooled", "t", "bootstrap", "parametric", "resample")}
    share, run_sd = [], []
    for _ in range(n_sim):
        YA, YB = experiment(X, scenario, n, R, sd_seed, gen, pool)
        run_sd.append(YA.mean(0).std(ddof=1))
        rej["average"] += naive_average(YA, YB) <= 0.05
        rej["pooled"] += naive_pooled(YA, YB) <= 0.05
        p, sh = ours(YA, YB, "t", None)
        rej["t"] += p <= 0.05
        share.append(sh)
        bseed = int(gen.integers(2**31))
        rej["bootstrap"] += ours(YA, YB, "bootstrap", bseed)[0] <= 0.05
        rej["parametric"] += ours(YA, YB, "bootstrap", bseed, envelope=False)[0] <= 0.05
        rej["resample"] += ours(YA, YB, "bootstrap", bseed, draws="resample",
                                envelope=False)[0] <= 0.05
    out = {m: v / n_sim for m, v in rej.items()}
    out["share_replicates"] = float(np.mean(share))
    out["sd_run_means"] = float(np.mean(run_sd))
    return out


def _cell_job(spec):
    X, pool, scenario, n, R, sd_seed, n_sim, seed = spec
    return {"scenario": scenario, "n": n, "R": R, "sd_seed": sd_seed, "n_sim": n_sim,
            **cell(X, scenario, n, R, sd_seed, n_sim, seed, pool)}


def timing(with_mixed=False):
    X = mrrstats.datasets.trec7_scores("RR").to_numpy()
    gen = np.random.default_rng(3)
    q = gen.integers(0, 50, 250)
    YA = seed_runs(X[q, 10], 10, 0.2, gen)
    YB = seed_runs(X[q, 20], 10, 0.2, gen)
    cols = [f"a{r}" for r in range(10)] + [f"b{r}" for r in range(10)]
    frame = pd.DataFrame(np.hstack([YA, YB]), columns=cols)
    rep = {"A": cols[:10], "B": cols[10:]}
    mrrstats.replicate_tests(frame, rep, n_resamples=100, rng=0)  # compile the kernels
    rows = []
    for label, method, kw in (("bootstrap", "bootstrap", {"n_resamples": 10000}),
                              ("bootstrap (resample)", "bootstrap",
                               {"n_resamples": 10000, "replicate_draws": "resample"}),
                              ("t", "t", {})):
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            mrrstats.replicate_tests(frame, rep, method=method, rng=0, **kw)
            times.append(time.perf_counter() - t0)
        rows.append((label, float(np.median(times))))
    if with_mixed:
        t0 = time.perf_counter()
        mrrstats.replicate_tests(frame, rep, method="mixed")
        rows.append(("mixed", time.perf_counter() - t0))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--jobs", type=int, default=1, help="processes running the cells")
    ap.add_argument("--time-mixed", action="store_true", help="also time one MixedLM fit")
    ap.add_argument("--mixed", type=int, default=0, metavar="N",
                    help="only the MixedLM level: N experiments of two settings, appended to "
                         "results_replicates.md (each fit takes seconds to minutes)")
    args = ap.parse_args()
    X = mrrstats.datasets.trec7_scores("RR").to_numpy()
    pool = np.argsort(X.mean(0))[-40:]
    if args.mixed:
        lines = ["", f"`mixed` (statsmodels MixedLM, Wald z), {args.mixed} experiments per "
                 "setting, 50 topics, 3 seeds per system, seed sd 0.3 (log rank):", ""]
        for scenario in ("same", "swap"):
            t0 = time.time()
            rate = mixed_cell(X, scenario, 50, 3, 0.3, args.mixed, 77, pool)
            lines.append(f"- {scenario}: {rate:.3f} ({time.time() - t0:.0f} s)")
            print(lines[-1], flush=True)
        out = ROOT / "benchmarks" / "results_replicates.md"
        out.write_text(out.read_text() + "\n".join(lines) + "\n")
        return
    n_sim = 60 if args.quick else 300
    specs = []
    for k, scenario in enumerate(("same", "swap")):
        for m, sd_seed in enumerate((0.0, 0.15, 0.3)):
            for r, R in enumerate((3, 5, 10)):
                specs.append((X, pool, scenario, 50, R, sd_seed, n_sim,
                              1000 + 100 * k + 10 * m + r))
    for k, scenario in enumerate(("same", "swap")):
        specs.append((X, pool, scenario, 250, 10, 0.3, n_sim // 2, 11 + k))
    for m, sd_seed in enumerate((0.15, 0.3)):
        for r, R in enumerate((3, 5, 10)):
            specs.append((X, pool, "shift", 50, R, sd_seed, n_sim, 3000 + 10 * m + r))
    t_start = time.time()
    rows = []
    if args.jobs > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(args.jobs) as ex:
            for row in ex.map(_cell_job, specs):
                rows.append(row)
                print(row, f"{time.time() - t_start:.0f}s", flush=True)
    else:
        for spec in specs:
            rows.append(_cell_job(spec))
            print(rows[-1], f"{time.time() - t_start:.0f}s", flush=True)
    elapsed = time.time() - t_start
    write(rows, timing(args.time_mixed), elapsed)


def write(rows, times, elapsed):
    def se(n):
        return math.sqrt(0.05 * 0.95 / n)

    sizes = sorted({r["n_sim"] for r in rows})
    lines = ["# Several runs per system: level and power of the naive ways and of mrrstats", "",
             "Produced by `benchmarks/bench_replicates.py --jobs 2` (see its docstring for "
             f"the simulation; {elapsed / 60:.0f} min on the shared 2-core machine). "
             "Rejection rates at alpha = 0.05 (two-sided); "
             + ", ".join(f"{n} experiments per row (Monte-Carlo SE at 0.05: {se(n):.3f})"
                         for n in sizes)
             + "; bootstrap B = 499. `bootstrap` is the default (replicate stage "
             "`replicate_draws=\"parametric\"`, and with fewer than 4 runs on a side a "
             "reference at least as wide as the t test's), `parametric` the same without "
             "that envelope, `before` the default before (the runs drawn with replacement, "
             "no envelope), all on the same experiments and resampling seeds. "
             "`sd run means`: average standard deviation of a system's run means "
             "(the seed effect in RR units); `share repl.`: the share of the variance of "
             "the difference that replicate_tests attributes to the replicates.", "",
             "## Level (true nulls)", "",
             "| scenario | n | R | seed sd (log rank) | sd run means | share repl. "
             "| naive average | naive pooled | ours t | ours bootstrap | parametric | before |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]

    def line(r):
        return (f"| {r['scenario']} | {r['n']} | {r['R']} | {r['sd_seed']} | "
                f"{r['sd_run_means']:.4f} | {r['share_replicates']:.2f} | "
                f"{r['average']:.3f} | {r['pooled']:.3f} | {r['t']:.3f} | "
                f"{r['bootstrap']:.3f} | {r['parametric']:.3f} | {r['resample']:.3f} |")

    level = [r for r in rows if r["scenario"] != "shift"]
    lines += [line(r) for r in level]
    if level:
        lines += ["", "Over the level rows: " + "; ".join(
            f"{name} {min(r[key] for r in level):.3f}-{max(r[key] for r in level):.3f} "
            f"(mean {np.mean([r[key] for r in level]):.3f})"
            for name, key in (("t", "t"), ("bootstrap", "bootstrap"),
                              ("parametric", "parametric"), ("before", "resample")))]
    power = [r for r in rows if r["scenario"] == "shift"]
    if power:
        lines += ["", f"## Power (B's seeds rank the first relevant document exp({SHIFT}) "
                  "times further down)", "",
                  "| scenario | n | R | seed sd (log rank) | sd run means | share repl. "
                  "| naive average | naive pooled | ours t | ours bootstrap | parametric | "
                  "before |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        lines += [line(r) for r in power]
        lines += ["", "The naive tests' power is not comparable: they do not hold their level."]
    if times:
        lines += ["", "Time of one comparison, 250 queries x 10 runs per system (2 systems), "
                  "median of 3, B = 10,000:", "", "| method | seconds |", "|---|---:|"]
        lines += [f"| {m} | {t:.3f} |" for m, t in times]
    lines += ["", "Earlier runs of this script (before the parametric replicate stage): "
              "`mixed` took 223 s for one fit of 250 queries x 10 runs; its level "
              "(statsmodels MixedLM, Wald z) was 0.000 on 20 experiments of scenario same, "
              "50 topics, 3 seeds, seed sd 0.0, and 0.000 on 10 experiments each of same and "
              "swap with 3 seeds, seed sd 0.3."]
    out = ROOT / "benchmarks" / "results_replicates.md"
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
