"""Validity of every exported test and interval on the real TREC score matrices.

One command measures, on the repository's real per-topic score matrices of five
measures (AP, RR, P@10, nDCG@20, ERR@20: TREC-5/6/7 ad hoc and Web 2010/2011/2013,
J. Urbano et al., CC BY-SA 4.0; ``benchmarks/calibration/matrices.py``):

1. **Size on real nulls, two systems.** A matrix of the measure (in turn), a random pair
   of its runs (the bottom 25% of runs by mean and duplicate runs removed, as
   Urbano, Lima & Hanjalic 2019), ``n`` topics drawn without replacement (with
   replacement where the matrix has fewer), and on every topic the two systems' values
   swapped with probability 1/2: the systems are exchangeable, the scores keep their
   real distribution. Share of two-sided rejections at alpha = 0.05 by every exported
   two-system test.
2. **Coverage, two systems.** The same kind of pair; ``n`` topics drawn *with*
   replacement from the matrix (the topics are the population), truth = the
   parameter over all the matrix's topics (the mean difference; the pseudo-median
   for the Hodges-Lehmann interval; the share of wins among non-tied topics for the
   sign test's interval). Share of nominal 95% intervals that hold the truth.
3. **Many systems.** k = 10 runs of a matrix (45 pairs), every listed
   ``pairwise_tests`` procedure (the :data:`PROCEDURES` list: test, correction,
   interval): family-wise error on real nulls (every topic's 10 values shuffled among
   the systems, ``n`` topics without replacement), and on real data (``n`` topics with
   replacement, truth = the full-matrix differences) the simultaneous coverage (all
   intervals hold the truth), the mean per-pair coverage and the mean number of
   rejected pairs.

Every rate is printed with its Monte-Carlo standard error sqrt(p (1 - p) / R) (for
the mean rejected pairs, the standard error of the mean). B = 999 resamples for every
resampling method. Writes ``benchmarks/results_validity.md`` (docs/which-test.md
includes its tables).

Run: nice python benchmarks/bench_validity.py            (the full run, ~15-20 minutes)
     python benchmarks/bench_validity.py --quick         (a smoke run, seconds)
"""

from __future__ import annotations

import argparse
import collections
import math
import os
import platform
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks" / "calibration"))

from matrices import available, load  # noqa: E402

import mrrstats  # noqa: E402

MEASURES = {
    "AP": "_ap.csv",
    "RR": "_rr.csv",
    "P@10": "_p10.csv",
    "nDCG@20": "_ndcg20.csv",
    "ERR@20": "_err20.csv",
}
SIZES = (10, 25, 50)
ALPHA, LEVEL, K = 0.05, 0.95, 10
SEED = 20261129
OUT = ROOT / "benchmarks" / "results_validity.md"

#: The many-system procedures: (label, keyword arguments of mrrstats.pairwise_tests).
#: ``ci`` unset: the procedure's own interval. Add a row here for a new option.
PROCEDURES: list[tuple[str, dict]] = [
    ("randomization, single-step max-T (default)", {}),
    (
        "randomization, single-step-skew (Hall's skewness correction)",
        {"correction": "single-step-skew"},
    ),
    ("t, single-step max-T", {"test": "t"}),
    ("randomization, Holm (Bonferroni interval)", {"correction": "holm"}),
    ("randomization, Holm, ci=consistent (SB2008)", {"correction": "holm", "ci": "consistent"}),
    ("randomization, Bonferroni", {"correction": "bonferroni"}),
    ("t, Holm (Bonferroni t interval)", {"test": "t", "correction": "holm"}),
    ("randomization, BH (FCR interval)", {"correction": "bh"}),
    ("randomization, none (marginal)", {"correction": "none"}),
    ("none, ci=t", {"correction": "none", "ci": "t"}),
    ("none, ci=bca", {"correction": "none", "ci": "bca"}),
    ("none, ci=percentile", {"correction": "none", "ci": "percentile"}),
    ("none, ci=basic", {"correction": "none", "ci": "basic"}),
    ("randomised Tukey HSD (test=tukey)", {"test": "tukey"}),
    ("Westfall-Young step-down max-T (test=maxt)", {"test": "maxt"}),
    ("test=maxt, ci=consistent", {"test": "maxt", "ci": "consistent"}),
    ("Tukey HSD, two-way ANOVA (test=anova-hsd)", {"test": "anova-hsd"}),
    ("Dunnett vs one system, 9 pairs (test=dunnett)", {"test": "dunnett", "control": "s0"}),
]


def _registered():
    """Rows for every correction and family test of the registry not listed above (a new
    option, e.g. one merged from another branch, gets its row without an edit here)."""
    from mrrstats.stats.registry import CORRECTIONS, FAMILY_TESTS

    listed = {
        (kw.get("test", "randomization"), kw.get("correction", "single-step"))
        for _, kw in PROCEDURES
    }
    rows = []
    for name, spec in CORRECTIONS.items():
        if spec.family_of is None and ("randomization", name) not in listed:
            rows.append((f"randomization, correction={name}", {"correction": name}))
    for name in FAMILY_TESTS:
        if not any(t == name for t, _ in listed):
            rows.append((f"test={name}", {"test": name}))
    return rows


PROCEDURES += _registered()

#: Run only on every k-th replicate (the slow ones; their R is in the tables).
EVERY = {
    "Tukey HSD, two-way ANOVA (test=anova-hsd)": 3,
    "Dunnett vs one system, 9 pairs (test=dunnett)": 2,
}
#: Rows that differ from another row by their interval only: same decisions, so their
#: family-wise error and rejections are that row's (the null run is not repeated).
SAME_DECISIONS = {
    "randomization, Holm, ci=consistent (SB2008)": "randomization, Holm (Bonferroni interval)",
    "none, ci=t": "randomization, none (marginal)",
    "none, ci=bca": "randomization, none (marginal)",
    "none, ci=percentile": "randomization, none (marginal)",
    "none, ci=basic": "randomization, none (marginal)",
    "test=maxt, ci=consistent": "Westfall-Young step-down max-T (test=maxt)",
}

#: Two-system tests (size): label -> p-value of (a, b, gen).
TESTS = {
    "paired t (`paired_ttest`)": lambda a, b, g: mrrstats.paired_ttest(a, b).pvalue,
    "randomization (`randomization_test`)": lambda a, b, g: (
        mrrstats.randomization_test(a, b, n_resamples=B, workers=1, rng=g).pvalue
    ),
    "bootstrap, studentized (`bootstrap_test`, default)": lambda a, b, g: (
        mrrstats.bootstrap_test(a, b, n_resamples=B, workers=1, rng=g).pvalue
    ),
    "bootstrap, shift (`bootstrap_test(method='shift')`)": lambda a, b, g: (
        mrrstats.bootstrap_test(a, b, method="shift", n_resamples=B, workers=1, rng=g).pvalue
    ),
    "Wilcoxon signed rank (`wilcoxon_test`)": lambda a, b, g: mrrstats.wilcoxon_test(a, b).pvalue,
    "sign (`sign_test`)": lambda a, b, g: mrrstats.sign_test(a, b).pvalue,
    "Welch t, ignores the pairing (`unpaired_ttest`)": lambda a, b, g: (
        mrrstats.unpaired_ttest(a, b).pvalue
    ),
    "permutation, ignores the pairing (`unpaired_permutation_test`)": lambda a, b, g: (
        mrrstats.unpaired_permutation_test(a, b, n_resamples=B, workers=1, rng=g).pvalue
    ),
}
B = 999
BOOT_METHODS = ("bca", "percentile", "basic", "normal", "studentized")


def _safe(f, *args, kwargs=None):
    """f(*args, **kwargs), or None where mrrstats refuses the sample (e.g. all tied)."""
    try:
        return f(*args, **(kwargs or {}))
    except mrrstats.MrrstatsError:
        return None


def _intervals(a, b, g):
    """Every two-system 95% interval of (a, b): label -> (target, interval maker)."""
    kw = {"n_resamples": B, "workers": 1, "rng": g}
    bc = _safe(lambda: mrrstats.bootstrap_ci(a, b, method="studentized", **kw))
    out = {
        "t (`paired_ttest`)": ("mean", lambda: mrrstats.paired_ttest(a, b).confidence_interval()),
        "sign-flip inversion (`randomization_test`)": (
            "mean",
            lambda: mrrstats.randomization_test(a, b, **kw).confidence_interval(),
        ),
    }
    for m in BOOT_METHODS:
        out[f"`bootstrap_ci(method='{m}')`"] = (
            "mean",
            lambda m=m: bc.confidence_interval(method=m) if bc else None,
        )
    for m in ("studentized", "shift"):
        out[f"`bootstrap_test(method='{m}')`"] = (
            "mean",
            lambda m=m: mrrstats.bootstrap_test(a, b, method=m, **kw).confidence_interval(LEVEL),
        )
    out["Hodges-Lehmann (`hodges_lehmann`; pseudo-median)"] = (
        "pseudomedian",
        lambda: mrrstats.hodges_lehmann(a, b),
    )
    out["Clopper-Pearson (`sign_test`; share of wins)"] = (
        "wins",
        lambda: mrrstats.sign_test(a, b).confidence_interval(),
    )
    out["Welch t, ignores the pairing (`unpaired_ttest`)"] = (
        "mean",
        lambda: mrrstats.unpaired_ttest(a, b),
    )
    out["BCa, ignores the pairing (`unpaired_bootstrap_ci`)"] = (
        "mean",
        lambda: mrrstats.unpaired_bootstrap_ci(a, b, **kw),
    )
    return out


def intervals(a, b, g):
    """label -> (target, low, high); NaN bounds where the interval is not defined."""
    res = {}
    for k, (target, make) in _intervals(a, b, g).items():
        iv = _safe(make)
        res[k] = (
            (target, math.nan, math.nan) if iv is None else (target, float(iv.low), float(iv.high))
        )
    return res


def truths(d):
    """The parameters of the full matrix's differences d."""
    walsh = (d[:, None] + d[None, :]) / 2
    nz = d[d != 0]
    return {
        "mean": float(d.mean()),
        "pseudomedian": float(np.median(walsh)),
        "wins": float((nz > 0).mean()) if nz.size else 0.5,
    }


def prepare():
    """{measure: [(name, matrix)]}, bottom 25% and duplicate runs removed."""
    out = {}
    for label, suffix in MEASURES.items():
        mats = []
        for f in (f for f in available() if f.endswith(suffix)):
            X = load(f).dropna()
            mu = X.mean()
            X = X.loc[:, mu >= mu.quantile(0.25)].to_numpy()
            keep = []
            for j in range(X.shape[1]):
                if not any(np.allclose(X[:, j], X[:, k], atol=1e-5) for k in keep):
                    keep.append(j)
            mats.append((f, X[:, keep]))
        out[label] = mats
    return out


def topics(gen, N, n, replace):
    return gen.integers(0, N, n) if replace or n > N else gen.choice(N, n, replace=False)


def two_systems(mats, R, gen):
    """Size and coverage counts per (measure, n): {key: {label: [hits, trials]}}."""
    size, cover = {}, {}
    undefined = collections.Counter()
    for meas, ms in mats.items():
        for n in SIZES:
            s = {k: [0, 0] for k in TESTS}
            c = {}
            for rep in range(R):
                _, X = ms[rep % len(ms)]
                i, j = gen.choice(X.shape[1], 2, replace=False)
                # 1. size: the pair's values swapped at random on each topic
                rows = topics(gen, X.shape[0], n, replace=False)
                a, b = X[rows, i].copy(), X[rows, j].copy()
                flip = gen.random(n) < 0.5
                a[flip], b[flip] = b[flip], a[flip]
                for k, f in TESTS.items():
                    p = _safe(f, a, b, gen)
                    undefined[("size", k)] += p is None or not np.isfinite(p)
                    s[k][0] += bool(p is not None and p <= ALPHA)
                    s[k][1] += 1
                # 2. coverage: topics with replacement, truth from all topics
                tr = truths(X[:, i] - X[:, j])
                rows = topics(gen, X.shape[0], n, replace=True)
                for k, (target, lo, hi) in intervals(X[rows, i], X[rows, j], gen).items():
                    undefined[("coverage", k)] += not (np.isfinite(lo) or np.isfinite(hi))
                    hit = c.setdefault(k, [0, 0])
                    hit[0] += bool(lo <= tr[target] <= hi)
                    hit[1] += 1
            size[(meas, n)], cover[(meas, n)] = s, c
    return size, cover, undefined


def many_systems(mats, R, gen):
    """Per (procedure, n): FWER, simultaneous coverage, per-pair coverage, rejections."""
    pooled = [X for ms in mats.values() for _, X in ms if X.shape[1] >= K]
    names = [f"s{i}" for i in range(K)]
    out = {}
    undefined = collections.Counter()
    for n in SIZES:
        acc = {lab: {"fwer": [], "simul": [], "pair": [], "rej": []} for lab, _ in PROCEDURES}
        for rep in range(R):
            X = pooled[rep % len(pooled)]
            cols = gen.choice(X.shape[1], K, replace=False)
            full = X[:, cols]
            null = pd.DataFrame(
                gen.permuted(full[topics(gen, X.shape[0], n, False)], axis=1), columns=names
            )
            real = pd.DataFrame(full[topics(gen, X.shape[0], n, True)], columns=names)
            means = pd.Series(full.mean(0), index=names)
            for lab, kw in PROCEDURES:
                if rep % EVERY.get(lab, 1):
                    continue
                kw = {"n_resamples": B, "workers": 1, "rng": gen, **kw}
                if lab not in SAME_DECISIONS:
                    r = _safe(mrrstats.pairwise_tests, null, kwargs=kw)
                    undefined[("FWER", lab)] += r is None
                    acc[lab]["fwer"].append(bool(r is not None and np.asarray(r.reject).any()))
                r = _safe(mrrstats.pairwise_tests, real, kwargs=kw)
                if r is None:  # refused: no interval, no rejection
                    undefined[("coverage", lab)] += 1
                    acc[lab]["simul"].append(False)
                    acc[lab]["pair"].append(0.0)
                    acc[lab]["rej"].append(0)
                    continue
                truth = means[list(r.a)].to_numpy() - means[list(r.b)].to_numpy()
                inside = (np.asarray(r.ci_low) <= truth) & (truth <= np.asarray(r.ci_high))
                acc[lab]["simul"].append(bool(inside.all()))
                acc[lab]["pair"].append(float(inside.mean()))
                acc[lab]["rej"].append(int(np.asarray(r.reject).sum()))
        for lab, v in acc.items():
            out[(lab, n)] = v
    return out, undefined


# -- formatting ------------------------------------------------------------------------


def rate(hits, trials, nominal=None, liberal=True):
    """'0.049 (0.003)', bold when more than 3 SE on the wrong side of nominal."""
    p = hits / trials
    se = math.sqrt(max(p * (1 - p), 1e-12) / trials) if trials else math.nan
    txt = f"{p:.3f} ({se:.3f})"
    if nominal is not None:
        se0 = math.sqrt(nominal * (1 - nominal) / trials)
        bad = p > nominal + 3 * se0 if liberal else p < nominal - 3 * se0
        txt = f"**{txt}**" if bad else txt
    return txt


def two_system_table(counts, nominal, liberal):
    labels = list(next(iter(counts.values())))
    meas = list(MEASURES)
    head = (
        "| | "
        + " | ".join(f"{n} topics" for n in SIZES)
        + " | "
        + " | ".join(f"{m}, 25" for m in meas)
        + " |"
    )
    lines = [head, "|---|" + "---:|" * (len(SIZES) + len(meas))]
    for lab in labels:
        cells = []
        for n in SIZES:
            h = sum(counts[(m, n)][lab][0] for m in meas)
            t = sum(counts[(m, n)][lab][1] for m in meas)
            cells.append(rate(h, t, nominal, liberal))
        for m in meas:
            h, t = counts[(m, 25)][lab]
            cells.append(rate(h, t, nominal, liberal))
        lines.append(f"| {lab} | " + " | ".join(cells) + " |")
    return lines


def many_table(res, key):
    lines = [
        "| procedure | " + " | ".join(f"{n} topics" for n in SIZES) + " | R |",
        "|---|" + "---:|" * (len(SIZES) + 1),
    ]
    for lab, _ in PROCEDURES:
        if key == "fwer" and lab in SAME_DECISIONS:
            continue
        cells = []
        for n in SIZES:
            v = np.asarray(res[(lab, n)][key], dtype=float)
            if key == "fwer":
                cells.append(rate(v.sum(), v.size, ALPHA, True))
            elif key == "simul":
                cells.append(rate(v.sum(), v.size, LEVEL, False))
            else:
                se = v.std(ddof=1) / math.sqrt(v.size) if v.size > 1 else math.nan
                cells.append(
                    f"{v.mean():.3f} ({se:.3f})" if key == "pair" else f"{v.mean():.2f} ({se:.2f})"
                )
        lines.append(f"| {lab} | " + " | ".join(cells) + f" | {len(res[(lab, 25)][key])} |")
    return lines


def best_bootstrap_method(cover, n=25):
    """The bootstrap_ci method whose pooled coverage at n topics is closest to 0.95."""
    rates = {}
    for m in BOOT_METHODS:
        lab = f"`bootstrap_ci(method='{m}')`"
        h = sum(cover[(meas, n)][lab][0] for meas in MEASURES)
        t = sum(cover[(meas, n)][lab][1] for meas in MEASURES)
        rates[m] = h / t
    return min(rates, key=lambda m: abs(rates[m] - LEVEL)), rates


def machine():
    try:
        commit = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
    except OSError:
        commit = "?"
    load_avg = ", ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    return (
        f"{platform.machine()}, {os.cpu_count()} CPU cores (shared; load average "
        f"{load_avg} at the end), Linux {platform.release()}, Python "
        f"{platform.python_version()}, numpy {np.__version__}, mrrstats "
        f"{mrrstats.__version__} at commit {commit or '?'}"
    )


def write(path, args, mats, size, cover, many, seconds, r2, rm, undefined):
    best, rates = best_bootstrap_method(cover)
    se2 = math.sqrt(0.05 * 0.95 / (r2 * len(MEASURES)))
    se_m = math.sqrt(0.05 * 0.95 / r2)
    se_k = math.sqrt(0.05 * 0.95 / rm)
    files = "; ".join(f"{m}: " + ", ".join(Path(f).stem for f, _ in ms) for m, ms in mats.items())
    cmd = " ".join(
        [
            "python benchmarks/bench_validity.py",
            *(["--quick"] if args.quick else []),
            *([f"--two {args.two}"] if args.two else []),
            *([f"--many {args.many}"] if args.many else []),
            *([f"--seed {args.seed}"] if args.seed != SEED else []),
        ]
    )
    lines = [
        "# Validity of every test and interval on real TREC score matrices",
        "",
        f"Produced by `{cmd}` (construction in its docstring) in {seconds:.0f} s on "
        f"{machine()}; {time.strftime('%Y-%m-%d', time.gmtime())}. Seed {args.seed} "
        f"(`numpy.random.default_rng`), B = {B} resamples for every resampling method, "
        "two-sided, alpha = 0.05, nominal level 0.95.",
        "",
        f"Matrices (bottom 25% and duplicate runs removed): {files}.",
        "",
        f"Replicates: two systems, R = {r2} per measure and topic count "
        f"({r2 * len(MEASURES)} pooled over the five measures); many systems, R = {rm} per "
        "topic count over all the matrices in turn (fewer where the table says). Each "
        "cell is the rate with its Monte-Carlo standard error in brackets (near 0.05: "
        f"{se2:.4f} pooled, {se_m:.4f} per measure, {se_k:.4f} many systems; near 0.95 "
        "the same). **Bold**: more than 3 standard errors on the wrong side of nominal "
        "(a size above 0.05, a coverage below 0.95).",
        "",
        "<!-- tables -->",
        "### Size on real nulls: two systems",
        "",
        "A random pair of runs, `n` topics, the two values of each topic swapped with "
        "probability 1/2 (the systems are exchangeable; real score distributions). Share "
        "of rejections at alpha = 0.05 (should be 0.05); pooled over the five measures, "
        "then per measure at 25 topics.",
        "",
    ]
    lines += two_system_table(size, ALPHA, True)
    lines += [
        "",
        "### Coverage of 95% intervals: two systems",
        "",
        "A random pair of runs, `n` topics drawn with replacement from the matrix; "
        "truth = the parameter over all its topics (mean difference unless named). "
        "Share of intervals that hold it (should be 0.95).",
        "",
    ]
    lines += two_system_table(cover, LEVEL, False)
    lines += [
        "",
        f"`bootstrap_ci`'s method closest to 0.95 at 25 topics (pooled): "
        f"**{best}** (" + ", ".join(f"{m} {v:.3f}" for m, v in rates.items()) + ").",
        "",
        "### Many systems: family-wise error on real nulls",
        "",
        f"k = {K} runs of one matrix (45 pairs; Dunnett 9), every topic's values "
        "shuffled among the systems. Share of replicates with any rejection (should "
        "be at most 0.05). The rows that change only the interval ("
        + "; ".join(f"{a}: as {b}" for a, b in SAME_DECISIONS.items())
        + ") take the same decisions.",
        "",
    ]
    lines += many_table(many, "fwer")
    lines += [
        "",
        "### Many systems: simultaneous coverage",
        "",
        f"k = {K} runs, `n` topics with replacement, truth = the full-matrix "
        "differences. Share of replicates where every interval holds its truth "
        "(0.95 for a simultaneous interval; BH's intervals target the false coverage "
        "rate and the marginal ones each pair, not the family).",
        "",
    ]
    lines += many_table(many, "simul")
    lines += ["", "### Many systems: mean per-pair coverage", ""]
    lines += many_table(many, "pair")
    lines += ["", "### Many systems: mean number of rejected pairs (of 45; Dunnett of 9)", ""]
    lines += many_table(many, "rej")
    lines += [
        "",
        "Samples on which a function refused to compute (mrrstats' error, e.g. every "
        "difference tied; counted as no rejection and as an interval that misses): "
        + (
            "; ".join(f"{what} of {lab}: {c}" for (what, lab), c in sorted(undefined.items()) if c)
            or "none"
        )
        + ".",
    ]
    path.write_text("\n".join(lines) + "\n")
    return best


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="a smoke run of a few seconds")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument(
        "--two",
        type=int,
        default=None,
        metavar="R",
        help="replicates per measure and topic count, two systems (800)",
    )
    ap.add_argument(
        "--many",
        type=int,
        default=None,
        metavar="R",
        help="replicates per topic count, many systems (400)",
    )
    args = ap.parse_args(argv)
    r2, rm = (4, 3) if args.quick else (800, 400)
    r2, rm = args.two or r2, args.many or rm
    warnings.simplefilter("ignore")
    gen = np.random.default_rng(args.seed)
    g2, gm = gen.spawn(2)
    t0 = time.time()
    mats = prepare()
    size, cover, undef2 = two_systems(mats, r2, g2)
    print(f"two systems: {time.time() - t0:.0f} s", flush=True)
    many, undefm = many_systems(mats, rm, gm)
    print(f"many systems: {time.time() - t0:.0f} s", flush=True)
    best = write(
        args.out, args, mats, size, cover, many, time.time() - t0, r2, rm, undef2 + undefm
    )
    print(args.out.read_text())
    print(f"best bootstrap_ci method at 25 topics: {best}")


if __name__ == "__main__":
    main()
