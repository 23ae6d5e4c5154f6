"""What clustered queries, segments, rank intervals and the other designs change for
the bundled CAsT 2021 runs (RR, trec_eval ties).

Run: python benchmarks/cast_designs.py   (writes benchmarks/results_cast_designs.md)
"""

import itertools
from pathlib import Path

import numpy as np

import mrrstats


def holm(p):
    p = np.asarray(p)
    order = np.argsort(p)
    adj = np.empty_like(p)
    running = 0.0
    for i, j in enumerate(order):
        running = max(running, (len(p) - i) * p[j])
        adj[j] = min(1.0, running)
    return adj


def icc(x, groups):
    """One-way ANOVA intraclass correlation of x within groups (unbalanced, ANOVA estimator)."""
    labels = np.unique(groups)
    n = x.size
    k = labels.size
    sizes = np.array([np.sum(groups == g) for g in labels])
    means = np.array([x[groups == g].mean() for g in labels])
    msb = np.sum(sizes * (means - x.mean()) ** 2) / (k - 1)
    msw = sum(((x[groups == g] - m) ** 2).sum() for g, m in zip(labels, means, strict=True))
    msw /= n - k
    n0 = (n - np.sum(sizes ** 2) / n) / (k - 1)
    return (msb - msw) / (msb + (n0 - 1) * msw)


def main():
    out = []
    d = mrrstats.datasets.cast2021()
    qrels, runs = d.qrels, list(d.runs)
    short = lambda s: s.replace(".run", "").replace("org_", "")  # noqa: E731
    for rel in (1, 2, 3, 4):
        ev = mrrstats.evaluate(qrels, runs, ["RR"], rel=rel)
        f = ev.scores("RR").rename(columns=short)
        conv = np.array([q.split("_")[0] for q in f.index])
        out.append(f"\n## rel >= {rel}: {f.shape[0]} turns in {len(set(conv))} conversations")
        out.append("means: " + ", ".join(f"{c} {v:.4f}" for c, v in f.mean().items()))
        # Part 4: cluster bootstrap width ratio and cluster sign flips
        rows, p_plain, p_clust = [], [], []
        for a, b in itertools.combinations(f.columns, 2):
            ind = mrrstats.bootstrap_ci(f[a], f[b], method="percentile", n_resamples=10000,
                                        rng=1).confidence_interval()
            clu = mrrstats.bootstrap_ci(f[a], f[b], method="percentile", clusters=conv,
                                        n_resamples=10000, rng=1).confidence_interval()
            ratio = (clu.high - clu.low) / (ind.high - ind.low)
            p_plain.append(mrrstats.randomization_test(f[a], f[b], n_resamples=20000,
                                                       rng=2).pvalue)
            p_clust.append(mrrstats.randomization_test(f[a], f[b], clusters=conv,
                                                       n_resamples=20000, rng=2).pvalue)
            # intra-conversation correlation of the differences
            dd = (f[a] - f[b]).to_numpy()
            rows.append((a, b, dd.mean(), ratio, icc(dd, conv)))
        ap, ac = holm(p_plain), holm(p_clust)
        out.append("| pair | mean diff | cluster/indep width | ICC of diffs | p indep | "
                   "p cluster | sig indep (Holm) | sig cluster (Holm) |")
        out.append("|---|---|---|---|---|---|---|---|")
        for (a, b, md, r, ic), pp, pc, hp, hc in zip(rows, p_plain, p_clust, ap, ac,
                                                     strict=True):
            out.append(f"| {a} - {b} | {md:+.4f} | {r:.2f} | {ic:+.3f} | {pp:.4f} | {pc:.4f} | "
                       f"{hp <= 0.05} | {hc <= 0.05} |")
        ratios = [r for *_, r, _ in rows]
        iccs = [c for *_, c in rows]
        out.append(f"correlation(width ratio, ICC) = {np.corrcoef(ratios, iccs)[0, 1]:.2f}")
        out.append(f"width ratio range {min(ratios):.2f}-{max(ratios):.2f}; significant pairs "
                   f"(randomization, Holm): independent {int(np.sum(ap <= 0.05))}, "
                   f"cluster {int(np.sum(ac <= 0.05))} of {len(rows)}")
        if rel != 1:
            continue
        # Part 3: rank intervals and letters
        ri = mrrstats.rank_intervals(f, n_resamples=10000, rng=3)
        out.append("\n### rank intervals (max-|t| bootstrap, 95% simultaneous)\n")
        out.append(ri.to_frame().to_string(float_format=lambda x: f"{x:.4f}"))
        hsd = mrrstats.randomized_tukey_hsd(f, n_resamples=10000, rng=3)
        ri2 = mrrstats.rank_intervals(f, decisions=hsd)
        out.append("\n### from randomized Tukey HSD decisions\n")
        out.append(ri2.to_frame().to_string(float_format=lambda x: f"{x:.4f}"))
        # Part 5: estimation
        out.append("\n### Hodges-Lehmann shift vs mean difference; d_z intervals\n")
        out.append("| pair | mean diff | HL estimate | HL 95% CI | d_z | d_z 95% CI | "
                   "P(sup) | P(sup) CI |")
        out.append("|---|---|---|---|---|---|---|---|")
        for a, b in itertools.combinations(f.columns, 2):
            hl = mrrstats.hodges_lehmann(f[a], f[b])
            es = mrrstats.effect_size_intervals(f[a], f[b], rng=4)
            out.append(f"| {a} - {b} | {(f[a] - f[b]).mean():+.4f} | {hl.estimate:+.4f} "
                       f"({hl.method}) | [{hl.low:+.4f}, {hl.high:+.4f}] | {es.d_z:+.3f} | "
                       f"[{es.d_z_interval.low:+.3f}, {es.d_z_interval.high:+.3f}] | "
                       f"{es.prob_superiority:.3f} | [{es.prob_superiority_interval.low:.3f}, "
                       f"{es.prob_superiority_interval.high:.3f}] |")
        out.append("\n### equivalence (TOST, margin 0.05 RR)\n")
        for a, b in itertools.combinations(f.columns, 2):
            t = mrrstats.equivalence_test(f[a], f[b], margin=0.05)
            r = mrrstats.equivalence_test(f[a], f[b], margin=0.05, test="randomization",
                                          rng=5)
            out.append(f"- {a} vs {b}: diff {t.difference:+.4f}, TOST p (t) {t.pvalue:.4f}, "
                       f"(randomization) {r.pvalue:.4f}")
        mm = mrrstats.mixed_model(f)
        out.append("\n### mixed model (random query effects) vs two-way ANOVA\n")
        out.append(f"sigma_u^2 = {mm.query_variance:.4f}, sigma^2 = {mm.residual_variance:.5f}, "
                   f"ANOVA V_E = {mrrstats.residual_variance(f):.5f}")
        out.append(mm.differences().to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    title = "# Clustered queries, segments and rank intervals on the bundled CAsT 2021 runs (RR)"
    text = title + "\n" + "\n".join(out) + "\n"
    Path(__file__).with_name("results_cast_designs.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
