"""``mrrstats collections``: on how many collections is A better than B?

``mrrstats collections --collection NAME=FILE.csv ... --systems A B`` (each file a
per-query score matrix holding columns A and B), or ``--example``: the 50 TREC-7
topics split into 5 sets of 10 as collections, the best run against the median run.
Prints each collection's difference, d_z and one-sided p-value, the partial-conjunction
p-values, the estimated number of collections where A is better (Bonferroni and Fisher,
Dror et al. 2017), which ones (Holm), and the random-effects meta-analysis
with tau^2 and its Q-profile interval and I^2 (:func:`mrrstats.across_collections`).
``--tau2`` chooses the between-collection variance estimators (DL, PM, REML, SJ; default
DL and PM), ``--knapp-hartung`` the Knapp-Hartung t test and interval of the pooled effect
(R's metafor ``rma(test="knha")``), and ``--methods`` prints the methods paragraph.
"""

from __future__ import annotations

from ..options import EFFECTS, META_TESTS, RE_METHODS, TAU2_METHODS

HELP = ("several collections: replicability (partial conjunctions, Dror et al. 2017) and "
        "random-effects meta-analysis of a pair of systems")


def add_arguments(p) -> None:
    p.add_argument("--collection", action="append", metavar="NAME=FILE.csv",
                   help="one collection's per-query score matrix, repeatable")
    p.add_argument("--systems", nargs=2, metavar=("A", "B"),
                   help="the columns to compare in every collection (A - B)")
    p.add_argument("--example", action="store_true",
                   help="TREC-7 RR: the 50 topics in 5 sets of 10, the run with the "
                        "highest MRR against the median run")
    p.add_argument("--test", choices=META_TESTS, default="t",
                   help="paired test of each collection (default t)")
    p.add_argument("--alternative", choices=("greater", "less", "two-sided"),
                   default="greater", help="default greater: A better than B")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (0.05)")
    p.add_argument("--effect", choices=EFFECTS, default="d_z",
                   help="meta-analysed effect: d_z (default) or the raw mean difference")
    p.add_argument("--confidence-level", type=float, default=0.95, help="(0.95)")
    p.add_argument("--seed", type=int, default=None,
                   help="random seed of the randomization/bootstrap tests")
    p.add_argument("--tau2", nargs="+", choices=RE_METHODS, default=list(TAU2_METHODS),
                   metavar="METHOD",
                   help="between-collection variance estimators, one meta-analysis row each: "
                        "DL (DerSimonian-Laird), PM (Paule-Mandel), REML, SJ (Sidik-Jonkman) "
                        f"(default {' '.join(TAU2_METHODS)}; as R's metafor rma(method=...))")
    p.add_argument("--knapp-hartung", action="store_true",
                   help="Knapp-Hartung adjustment of the pooled effect: t test and interval "
                        "with N - 1 df (metafor's test=\"knha\"; default: normal)")
    p.add_argument("--methods", action="store_true",
                   help="print the methods paragraph of the results (.methods(); Pandoc [@key] "
                        "citations) instead of the results")


def _data(args):
    from .. import datasets
    from ..io.trec import read_score_matrix

    if args.example:
        if args.collection:
            raise ValueError("give either --example or --collection NAME=FILE, not both")
        if args.systems:
            raise ValueError("--example picks its two systems; --systems goes with "
                             "--collection")
        rr = datasets.trec7_scores("RR")
        order = rr.mean().sort_values(ascending=False, kind="stable").index
        a, b = order[0], order[len(order) // 2]
        print(f"# example: TREC-7 RR, {a} (A) against {b} (B), topics in 5 sets of 10")
        return {f"topics {10 * i + 1}-{10 * i + 10}": rr.iloc[10 * i:10 * i + 10][[a, b]]
                for i in range(5)}
    if not args.collection or not args.systems:
        raise ValueError("need --collection NAME=FILE.csv (two or more) and --systems A B, "
                         "or --example")
    data = {}
    for spec in args.collection:
        if "=" not in spec:
            raise ValueError(f"--collection {spec!r}: write NAME=FILE.csv")
        name, path = spec.split("=", 1)
        frame = read_score_matrix(path)
        missing = [s for s in args.systems if s not in frame.columns]
        if missing:
            raise ValueError(f"--collection {name}: no column {missing[0]!r} in {path}")
        data[name] = frame[list(args.systems)]
    return data


def run(args) -> int:
    from ..formatting import fixed, interval_text, pvalue_text, text_table, wrap
    from ..stats.meta import across_collections
    from ..validation import rng_iv

    gen, seed = rng_iv(args.seed)
    res = across_collections(_data(args), test=args.test, alternative=args.alternative,
                             alpha=args.alpha, effect=args.effect,
                             confidence_level=args.confidence_level,
                             tau2_methods=tuple(dict.fromkeys(args.tau2)),
                             meta_test="knha" if args.knapp_hartung else "z", rng=gen)
    if args.methods:
        print(res.methods().text)
        return 0
    print(f"# test {res.test} ({res.alternative}), alpha {res.alpha:g}, effect {res.effect}, "
          f"seed {seed}")
    print(text_table(["collection", "n_queries", "a - b", "d_z", "p", "replicated"],
                     [[str(name), str(int(r.n_queries)), fixed(r.difference), f"{r.d_z:.3f}",
                       pvalue_text(r.pvalue), "yes" if r.replicated else "no"]
                      for name, r in res.collections.iterrows()], align="lrrrrl"))
    print("# partial conjunctions p^{u/N}")
    print(text_table(["u", "Bonferroni", "Fisher"],
                     [[str(u), pvalue_text(r.bonferroni), pvalue_text(r.fisher)]
                      for u, r in res.partial_conjunction.iterrows()], align="rrr"))
    kind = "Knapp-Hartung t" if res.meta_test == "knha" else "normal"
    print(f"# random effects ({kind} interval and p of the pooled effect; tau^2 interval: "
          "Q-profile)")
    print(text_table(["method", "estimate", "interval", "p", "tau^2", "tau^2 interval", "I^2",
                      "prediction interval"],
                     [[str(m), f"{r.estimate:+.4f}", interval_text(r.ci_low, r.ci_high, "+.4f"),
                       pvalue_text(r.pvalue), f"{r.tau2:.4g}",
                       interval_text(r.tau2_ci_low, r.tau2_ci_high, ".4g"), f"{100 * r.i2:.0f}%",
                       interval_text(r.pi_low, r.pi_high, "+.3f")]
                      for m, r in res.meta.iterrows()], align="lrrrrrrr"))
    print("\n".join(wrap(res.summary())))
    return 0
