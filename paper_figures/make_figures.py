"""Regenerate the paper figures of mrrstats from the bundled real data.

    python paper_figures/make_figures.py            # full setting, into paper_figures/out/
    python paper_figures/make_figures.py --quick    # reduced replicate counts (tests, CI)
    python paper_figures/make_figures.py --out DIR --seed 20240601

Every figure is written as PDF (TrueType fonts embedded: ``pdf.fonttype = 42``,
no creation date, so the same inputs give the same file) and as PNG at 200 dpi.
The Type-I-error simulation also writes its table (``type1_error.csv``). All
randomness comes from one seed (``--seed``). See paper_figures/README.md for
what each figure shows.

Data (shipped inside the package, with their licences):
TREC-7 ad hoc per-topic RR/AP/P@10 of 103 runs (J. Urbano et al.,
julian-urbano/sigir2019-statistical @ dc9f891c, CC BY-SA 4.0) and the Nations,
Kinship and UMLS link-prediction graphs (TimDettmers/ConvE @ f3c0eb28, MIT).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

import mrrstats
import mrrstats.plots as mp
from mrrstats.datasets import kg_graph, trec7_scores
from mrrstats.report.plots.style import series_style

HERE = Path(__file__).resolve().parent
ALPHA = 0.05
MEASURES = ("RR", "AP", "P@10")

# Replicate counts: (full, quick)
SETTINGS = {
    "full": {"pairs": 50, "swaps": 30, "families": 200, "family_swaps": 2, "family_size": 5,
             "n_resamples": 1000, "power_sims": 300, "power_resamples": 500},
    "quick": {"pairs": 4, "swaps": 3, "families": 4, "family_swaps": 1, "family_size": 4,
              "n_resamples": 200, "power_sims": 20, "power_resamples": 100},
}


def _save(fig, out: Path, name: str) -> list[Path]:
    paths = [out / f"{name}.pdf", out / f"{name}.png"]
    fig.savefig(paths[0], metadata={"CreationDate": None, "Creator": "mrrstats"})
    fig.savefig(paths[1], dpi=200, metadata={"Software": "mrrstats"})
    import matplotlib.pyplot as plt

    plt.close(fig)
    return paths


def _quantile_systems(frame: pd.DataFrame, qs=(1.0, 0.75, 0.5, 0.25)) -> list[str]:
    """Systems at the given quantiles of the mean (best first)."""
    means = frame.mean().sort_values(ascending=False, kind="stable")
    idx = [int(round((1 - q) * (means.size - 1))) for q in qs]
    return [means.index[i] for i in idx]


# ---------------------------------------------------------------------------
# Figure 1: RR distributions of TREC-7 systems
# ---------------------------------------------------------------------------
def fig_rr_distributions(out, cfg, rng, *, n_candidates=1000, n_relevant=10):
    """RR distributions of 4 TREC-7 runs against a random ranking of N candidates, R relevant.

    The score matrices carry no candidate counts, so the random reference assumes a
    run of ``n_candidates`` documents with ``n_relevant`` relevant ones retrieved
    (trec_eval's default depth is 1000); both are arguments and printed in the figure.
    """
    import matplotlib.pyplot as plt

    from mrrstats import FirstRelevantRank

    N, R = int(n_candidates), int(n_relevant)
    rr = trec7_scores("RR")
    show = _quantile_systems(rr)
    fig, axes = plt.subplots(1, 2, figsize=(9.0, 4.4), layout="constrained")
    mp.rr_histogram(rr, systems=show, n_candidates=N, n_relevant=R, ax=axes[0])
    mp.rank_ecdf(rr, systems=show, n_candidates=N, n_relevant=R, ax=axes[1])
    grid = np.arange(1, N + 1)
    R2 = min(N, 10 * R)
    axes[1].step(grid, FirstRelevantRank(N, R2).cdf(grid), where="post", color="#7f7f7f",
                 linestyle=":", linewidth=1.5, label=f"random ranking, N = {N:,}, R = {R2}")
    titles = ("(a) per-query RR, 4 of 103 TREC-7 runs",
              "(b) rank of the first relevant document")
    for ax, title in zip(axes, titles, strict=True):
        handles, labels = ax.get_legend_handles_labels()
        labels = [lab.replace("uniformly random ranking (expected share)",
                              f"random ranking, N = {N:,}, R = {R} (expected share)")
                  .replace("random ranking: E[MRR]", f"random ranking (R = {R}): E[MRR]")
                  for lab in labels]
        labels = [(f"random ranking, N = {N:,}, R = {R}" if lab == "uniformly random ranking"
                   else lab) for lab in labels]
        ax.legend(handles, labels, loc="lower left", bbox_to_anchor=(0.0, 1.01),
                  borderaxespad=0.0, frameon=False, fontsize=7.5, title=title,
                  title_fontsize=9.5, alignment="left")
    fig.supxlabel(f"Random reference: a uniformly random order of a run of N = {N:,} "
                  f"candidates with R = {R} relevant (assumed: the score matrices carry no "
                  "candidate counts).", fontsize=7.5, x=0.01, ha="left")
    return _save(fig, out, "fig1_rr_distributions")


# ---------------------------------------------------------------------------
# Figure 2: Type-I error under a null built from real pairs
# ---------------------------------------------------------------------------
_TESTS = {
    "paired t": lambda a, b, B, g: mrrstats.paired_ttest(a, b).pvalue,
    "Wilcoxon": lambda a, b, B, g: mrrstats.wilcoxon_test(a, b).pvalue,
    "sign": lambda a, b, B, g: mrrstats.sign_test(a, b).pvalue,
    "randomization": lambda a, b, B, g: mrrstats.randomization_test(
        a, b, n_resamples=B, rng=g).pvalue,
    "bootstrap (shift)": lambda a, b, B, g: mrrstats.bootstrap_test(
        a, b, n_resamples=B, rng=g).pvalue,
}
_FAMILY = ("randomization, no correction", "randomization + Holm", "randomised Tukey HSD",
           "Westfall-Young max-T")


def type1_error_table(cfg, rng) -> pd.DataFrame:
    """Rejection rates at ALPHA of each test when the null holds by construction.

    Pairwise: for a random pair of real TREC-7 systems, each topic's two values are
    swapped with probability 1/2, so the two (relabelled) systems are exchangeable and
    every rejection is a Type-I error. Family-wise: for a random set of k systems each
    topic's k values are permuted at random among them; a family-wise error is any
    rejection among the k(k-1)/2 pairs.
    """
    B = cfg["n_resamples"]
    rows = []
    for measure in MEASURES:
        X = trec7_scores(measure).to_numpy(np.float64)        # topics x systems
        n_top, n_sys = X.shape
        rejections = {t: [] for t in _TESTS}
        for _ in range(cfg["pairs"]):
            i, j = rng.choice(n_sys, size=2, replace=False)
            for _ in range(cfg["swaps"]):
                swap = rng.random(n_top) < 0.5
                a = np.where(swap, X[:, j], X[:, i])
                b = np.where(swap, X[:, i], X[:, j])
                for name, test in _TESTS.items():
                    rejections[name].append(test(a, b, B, rng) <= ALPHA)
        for name, rej in rejections.items():
            rows.append({"measure": measure, "scope": "pair", "procedure": name,
                         "replicates": len(rej), "rejection_rate": float(np.mean(rej))})
        k = cfg["family_size"]
        errors = {p: [] for p in _FAMILY}
        for _ in range(cfg["families"]):
            cols = rng.choice(n_sys, size=k, replace=False)
            for _ in range(cfg["family_swaps"]):
                perm = rng.permuted(np.tile(np.arange(k), (n_top, 1)), axis=1)
                Y = np.take_along_axis(X[:, cols], perm, axis=1)
                frame = pd.DataFrame(Y, columns=[f"s{c}" for c in range(k)])
                res = mrrstats.pairwise_tests(frame, test="randomization", correction="none",
                                              n_resamples=B, ci="none", rng=rng)
                errors[_FAMILY[0]].append(bool(np.any(res.pvalue <= ALPHA)))
                # Holm rejects at least one hypothesis exactly when its first step does,
                # min p <= alpha / m, so its family-wise error needs no full adjustment
                # (and statsmodels' Holm runs gc.collect() on every call: 40 ms here)
                errors[_FAMILY[1]].append(bool(res.pvalue.min() <= ALPHA / len(res)))
                tk = mrrstats.randomized_tukey_hsd(frame, n_resamples=B, rng=rng)
                errors[_FAMILY[2]].append(bool(np.any(tk.reject)))
                wy = mrrstats.westfall_young(frame, n_resamples=B, rng=rng)
                errors[_FAMILY[3]].append(bool(np.any(wy.reject)))
        for name, err in errors.items():
            rows.append({"measure": measure, "scope": f"family of {k} systems",
                         "procedure": name, "replicates": len(err),
                         "rejection_rate": float(np.mean(err))})
    table = pd.DataFrame(rows)
    r = table["rejection_rate"]
    table["se"] = np.sqrt(r * (1 - r) / table["replicates"])
    return table


def fig_type1_error(out, cfg, rng):
    import matplotlib.pyplot as plt

    table = type1_error_table(cfg, rng)
    table.to_csv(out / "type1_error.csv", index=False, float_format="%.4f")
    fig, axes = plt.subplots(1, 2, figsize=(9.5, 3.9), layout="constrained",
                             gridspec_kw={"width_ratios": [5, 4]})
    for ax, scope in zip(axes, table["scope"].unique(), strict=True):
        sub = table[table["scope"] == scope]
        procs = list(dict.fromkeys(sub["procedure"]))
        x = np.arange(len(procs))
        width = 0.8 / len(MEASURES)
        for i, m in enumerate(MEASURES):
            st = series_style(i)
            s = sub[sub["measure"] == m].set_index("procedure").loc[procs]
            ax.bar(x + (i - 1) * width, s["rejection_rate"], width=width * 0.95,
                   color=st["color"], edgecolor="black", linewidth=0.4, hatch=st["hatch"],
                   yerr=1.96 * s["se"], capsize=2, error_kw={"linewidth": 0.8},
                   label=m)
        ax.axhline(ALPHA, color="black", linestyle="--", linewidth=1,
                   label=f"nominal α = {ALPHA}")
        ax.set_xticks(x, [p.replace(", ", ",\n").replace(" + ", "\n+ ")
                          .replace("randomised ", "randomised\n")
                          .replace("Westfall-Young ", "Westfall-Young\n") for p in procs],
                      fontsize=7.5)
        n_rep = int(sub["replicates"].iloc[0])
        ax.set_ylabel("rejection rate under the null" if scope == "pair"
                      else "family-wise error rate")
        ax.set_ylim(0, max(0.12, float((sub["rejection_rate"] + 2 * sub["se"]).max()) * 1.1))
        handles, labels = ax.get_legend_handles_labels()       # measures first, then alpha
        ax.legend(handles[1:] + handles[:1], labels[1:] + labels[:1], frameon=False,
                  fontsize=7.5, ncol=4, loc="upper right")
        ax.set_title(("(a) one pair: swap each topic's two values" if scope == "pair" else
                      f"(b) {scope}: permute each topic's values")
                     + f"\n{n_rep} replicates per measure, bars: ±1.96 SE", loc="left")
    return _save(fig, out, "fig2_type1_error")


# ---------------------------------------------------------------------------
# Figure 3: agreement between RR, AP and P@10 rankings
# ---------------------------------------------------------------------------
def fig_rank_agreement(out, cfg, rng):
    import matplotlib.pyplot as plt

    scores = {m: trec7_scores(m) for m in MEASURES}
    fig, axes = plt.subplots(1, 2, figsize=(8.6, 3.9), layout="constrained",
                             gridspec_kw={"width_ratios": [1, 1.05]})
    mp.measure_scatter(scores, "RR", "AP", ax=axes[0])
    mp.tau_heatmap(mrrstats.ranking_agreement(scores), ax=axes[1])
    for ax, tag in zip(axes, ("(a) 103 TREC-7 runs: ", "(b) "), strict=True):
        title = ax.get_title()
        ax.set_title("")
        ax.set_title(tag + title, loc="left")
    return _save(fig, out, "fig3_rank_agreement")


# ---------------------------------------------------------------------------
# Figure 4: random-ranking baselines
# ---------------------------------------------------------------------------
def popularity_ranks(g):
    """Filtered ranks of the true tails and heads of the test triples (popularity scorer).

    The protocol of notebooks/03_random_baselines.ipynb, so that both report the same
    numbers: a candidate tail t of (h, r, ?) scores the number of training triples
    (., r, t), a candidate head the number of (h, r, .); each test triple is asked in
    both directions, with the other known answers (train, valid, test) filtered out.
    """
    E, R = g.n_entities, g.n_relations
    tail_count = np.zeros((R, E))
    head_count = np.zeros((R, E))
    np.add.at(tail_count, (g.train[:, 1], g.train[:, 2]), 1)
    np.add.at(head_count, (g.train[:, 1], g.train[:, 0]), 1)
    h, r, t = g.test.T
    known = pd.DataFrame(np.concatenate([g.train, g.valid, g.test]), columns=["h", "r", "t"])
    parts = []
    for scores, true, key in ((tail_count[r], t, "tail"), (head_count[r], h, "head")):
        exclude = np.zeros(scores.shape, dtype=bool)
        if key == "tail":
            answers = known.groupby(["h", "r"])["t"]
            for i, (hh, rr_, _) in enumerate(g.test):
                exclude[i, answers.get_group((hh, rr_)).to_numpy()] = True
        else:
            answers = known.groupby(["r", "t"])["h"]
            for i, (_, rr_, tt) in enumerate(g.test):
                exclude[i, answers.get_group((rr_, tt)).to_numpy()] = True
        parts.append(mrrstats.ranks_from_scores(scores, true, exclude=exclude))
    return mrrstats.LinkPredictionRanks.concatenate(parts)


#: The tie convention of Figure 4 and notebook 03 (PyKEEN's default).
LINKPRED_TIES = "realistic"


def random_baseline_rows():
    """Observed, expected and adjusted MRR of the popularity scorer on the three graphs."""
    rows = {}
    for name in ("nations", "kinship", "umls"):
        g = kg_graph(name)
        ranks = popularity_ranks(g)
        N = ranks.n_candidates
        label = "UMLS" if name == "umls" else name.capitalize()
        rows[f"{label} ({g.n_entities} entities)"] = {
            "observed": ranks.mrr(LINKPRED_TIES),
            "expected": mrrstats.expected_mrr(N),
            "std": float(np.sqrt(mrrstats.variance_mrr(N))),
            "adjusted": ranks.adjusted_mrr(LINKPRED_TIES),
        }
    return pd.DataFrame.from_dict(rows, orient="index")


def fig_random_baseline(out, cfg, rng):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(9.2, 3.9), layout="constrained",
                             gridspec_kw={"width_ratios": [1.1, 1]})
    mp.expected_mrr_curve(n_relevant=(1, 2, 5, 10, 100), ax=axes[0])
    mp.observed_vs_random(random_baseline_rows(), ax=axes[1])
    # both panel titles the same way (left-aligned, two lines), so they align
    axes[0].set_title("(a) E[RR] of a uniformly random ranking\nof N candidates, R relevant",
                      loc="left")
    axes[1].set_title("(b) link prediction by (relation, entity) popularity:\n"
                      f"filtered, heads and tails, {LINKPRED_TIES} ranks", loc="left")
    handles, labels = axes[1].get_legend_handles_labels()
    axes[1].legend(handles, labels, loc="center right", frameon=False, fontsize=8)
    h0, l0 = axes[0].get_legend_handles_labels()
    axes[0].legend(h0, l0, loc="lower left", frameon=False, fontsize=8)
    return _save(fig, out, "fig4_random_baseline")


# ---------------------------------------------------------------------------
# Figure 5: power against the number of queries
# ---------------------------------------------------------------------------
def fig_power(out, cfg, rng):
    import matplotlib.pyplot as plt

    from mrrstats.report import power_table

    rr = trec7_scores("RR")
    fig, axes = plt.subplots(1, 2, figsize=(9.5, 4.3), layout="constrained")
    a, b = _quantile_systems(rr, qs=(0.55, 0.45))
    d = (rr[a] - rr[b]).to_numpy()
    left, right = (0.02, 0.05, 0.1), (0.05, 0.1, 0.2)
    # one colour per difference across both panels: 0.02, 0.05, 0.1, 0.2
    colour = {x: i for i, x in enumerate(sorted(set(left) | set(right)))}
    mp.power_curve(power_table(rr, differences=left), series=colour, ax=axes[0])
    pts = np.unique(np.linspace(5, 150, 5).astype(np.int64))
    sims = [mrrstats.randomization_power(d, n_queries=int(m), difference=x,
                                         n_simulations=cfg["power_sims"],
                                         n_resamples=cfg["power_resamples"], rng=rng)
            for x in right for m in pts]
    simulated = pd.DataFrame({"difference": np.repeat(right, pts.size),
                              "n_queries": np.tile(pts, len(right)),
                              "power": [r.power for r in sims],
                              "power_se": [r.power_se for r in sims]})
    mp.power_curve(power_table(float(d.std(ddof=1)), differences=right,
                               n_queries=np.arange(5, 151)), simulated=simulated,
                   series=colour, ax=axes[1])
    axes[0].set_title(r"(a) $\sigma_d$ from all 103 TREC-7 runs ($\sqrt{2 V_E}$)", loc="left")
    axes[1].set_title(f"(b) one real pair ({a} vs {b}): t-test curves,\n"
                      "randomization test simulated from its differences", loc="left")
    return _save(fig, out, "fig5_power")


FIGURES = (fig_rr_distributions, fig_type1_error, fig_rank_agreement, fig_random_baseline,
           fig_power)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE / "out",
                        help="output folder (default paper_figures/out)")
    parser.add_argument("--quick", action="store_true",
                        help="reduced replicate counts (seconds instead of about a minute)")
    parser.add_argument("--seed", type=int, default=20240601, help="seed of all randomness")
    parser.add_argument("--n-candidates", type=int, default=1000,
                        help="Figure 1: candidates N of the random reference (default 1000)")
    parser.add_argument("--n-relevant", type=int, default=10,
                        help="Figure 1: relevant candidates R of the random reference")
    args = parser.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    cfg = SETTINGS["quick" if args.quick else "full"]
    args.out.mkdir(parents=True, exist_ok=True)
    written = []
    with mp.style_context():
        for i, make in enumerate(FIGURES):
            t0 = time.perf_counter()
            rng = np.random.default_rng([args.seed, i])   # one stream per figure
            extra = ({"n_candidates": args.n_candidates, "n_relevant": args.n_relevant}
                     if make is fig_rr_distributions else {})
            paths = make(args.out, cfg, rng, **extra)
            written += paths
            print(f"{paths[0].stem}: {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    for p in written:
        print(p)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
