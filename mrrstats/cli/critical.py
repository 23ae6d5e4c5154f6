"""``mrrstats critical-difference``: many systems over many collections.

``mrrstats critical-difference --scores TABLE.csv`` (one row per collection, one column per
system), ``--collection NAME=FILE.csv ...`` (each a per-query score matrix with the same
systems), or ``--example``: the 19 conversations of TREC CAsT 2021 as collections, their
turns as queries, the five bundled baseline runs. Prints Friedman's test and the
Iman-Davenport F, Nemenyi's critical difference, each system's average rank (with its
two-level bootstrap interval for per-query input), the groups of systems not
significantly different, and every pair (:func:`mrrstats.critical_difference`);
``--plot FILE`` saves the critical-difference diagram.
"""

from __future__ import annotations

from .. import defaults
from ..options import CD_TESTS

HELP = (
    "many systems over many collections: average ranks, Friedman's test and the "
    "critical-difference diagram (Nemenyi, Wilcoxon-Holm, Conover)"
)

#: The seed of ``--example`` when no ``--seed`` is given (the output is the same every run).
EXAMPLE_SEED = 0


def add_arguments(p) -> None:
    p.add_argument(
        "--scores",
        metavar="TABLE.csv",
        help="one score per collection (rows) and system (columns)",
    )
    p.add_argument(
        "--collection",
        action="append",
        metavar="NAME=FILE.csv",
        help="one collection's per-query score matrix, repeatable (two or more)",
    )
    p.add_argument(
        "--example",
        action="store_true",
        help="TREC CAsT 2021: the 19 conversations as collections, their turns as "
        "queries, the five baseline runs",
    )
    p.add_argument("-m", "--measure", default="RR", help="measure of --example (default RR)")
    p.add_argument(
        "--test",
        choices=CD_TESTS,
        default="nemenyi",
        help="pairwise test behind the groups (default nemenyi)",
    )
    p.add_argument(
        "--alpha", type=float, default=defaults.ALPHA, help="family-wise significance level (0.05)"
    )
    p.add_argument(
        "--confidence-level",
        type=float,
        default=defaults.CONFIDENCE_LEVEL,
        help="level of the bootstrap intervals (0.95)",
    )
    p.add_argument(
        "--n-resamples",
        type=int,
        default=defaults.N_RESAMPLES,
        metavar="B",
        help="resamples of the two-level bootstrap (per-query input; default "
        f"{defaults.N_RESAMPLES})",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=None,
        help=f"random seed of the bootstrap (--example: {EXAMPLE_SEED})",
    )
    p.add_argument(
        "--plot", metavar="FILE", help="save the critical-difference diagram (.png, .pdf, .svg)"
    )


def _table(args):
    from .. import datasets
    from ..io.trec import read_score_matrix
    from ..metrics.evaluation import evaluate

    given = [bool(args.scores), bool(args.collection), bool(args.example)]
    if sum(given) != 1:
        raise ValueError(
            "give one of --scores TABLE.csv, --collection NAME=FILE.csv ... or --example"
        )
    if args.example:
        data = datasets.cast2021()
        ev = evaluate(data.qrels, data.runs, [args.measure])
        frame = ev.scores(ev.measure_names[0])
        topic = frame.index.str.split("_").str[0]
        print(
            f"# example: TREC CAsT 2021 {ev.measure_names[0]}, {topic.nunique()} "
            f"conversations as collections, their {len(frame)} turns as queries"
        )
        out = {}
        for t in topic.unique():
            part = frame[topic == t]
            part.attrs["measure"] = ev.measure_names[0]
            out[f"topic {t}"] = part
        return out
    if args.scores:
        return read_score_matrix(args.scores)
    data = {}
    for spec in args.collection:
        if "=" not in spec:
            raise ValueError(f"--collection {spec!r}: write NAME=FILE.csv")
        name, path = spec.split("=", 1)
        if not name:
            raise ValueError(f"--collection {spec!r}: the NAME before '=' is empty")
        data[name] = read_score_matrix(path)
    if len(data) < 2:
        raise ValueError("--collection: give at least two collections")
    return data


def run(args) -> int:
    from ..formatting import pvalue_text
    from ..stats.critical import critical_difference
    from ..validation import rng_iv

    seed_arg = EXAMPLE_SEED if args.example and args.seed is None else args.seed
    gen, seed = rng_iv(seed_arg)
    res = critical_difference(
        _table(args),
        test=args.test,
        alpha=args.alpha,
        confidence_level=args.confidence_level,
        n_resamples=args.n_resamples,
        rng=gen,
    )
    boot = res.rank_intervals is not None
    print(
        f"# {res.n_systems} systems, {res.n_collections} collections, {res.measure}; test "
        f"{res.test}, alpha {res.alpha:g}"
        + (f"; two-level bootstrap B = {res.n_resamples}, seed {seed}" if boot else "")
    )
    f = res.friedman
    print(
        f"# Friedman chi2 = {f['statistic']:.3f} (df {f['df']:.0f}), p = "
        f"{pvalue_text(f['pvalue'])}; Iman-Davenport F = {f['iman_davenport']:.3f} "
        f"(df {f['dfn']:.0f}, {f['dfd']:.0f}), p = {pvalue_text(f['iman_davenport_pvalue'])}"
    )
    print(f"# Nemenyi critical difference at alpha {res.alpha:g}: {res.critical_difference:.3f}")
    frame = res.to_frame()
    width = max(6, *(len(str(s)) for s in frame.index))
    head = f"{'system':<{width}} {'rank':>6} {'mean':>8}"
    if boot:
        cl = f"{100 * res.confidence_level:g}%"
        head += f" {cl + ' interval':>16}"
    print(head + "  group")
    for s, r in frame.iterrows():
        line = f"{s:<{width}} {r.average_rank:>6.2f} {r['mean']:>8.4f}"
        if boot:
            line += f" {f'[{r.ci_low:.2f}, {r.ci_high:.2f}]':>16}"
        print(line + f"  {r.clique or '-'}")
    print("# groups not significantly different (consecutive in rank):")
    for i, c in enumerate(res.cliques, 1):
        print(f"{i:>4} " + ", ".join(c))
    if not res.cliques:
        print("   - every pair differs")
    print("# pairs: a (better rank), b, rank difference, mean difference, p, p adjusted")
    wa = max(1, *(len(s) for s in res.pairs["system_a"]))
    wb = max(1, *(len(s) for s in res.pairs["system_b"]))
    for _, r in res.pairs.iterrows():
        rank = f"{r.rank_difference:+.2f}"
        diff = f"{r.difference:+.4f}"
        if boot:
            rank += f" [{r.rank_ci_low:+.2f}, {r.rank_ci_high:+.2f}]"
            diff += f" [{r.ci_low:+.4f}, {r.ci_high:+.4f}]"
        print(
            f"{r.system_a:<{wa}} {r.system_b:<{wb}} {rank} {diff} "
            f"{pvalue_text(r.pvalue):>8} {pvalue_text(r.pvalue_adjusted):>8}"
            f"{'  *' if r.reject else ''}"
        )
    print(res.summary())
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        ax = res.plot()
        ax.figure.savefig(args.plot)
        print(f"# diagram written to {args.plot}")
    return 0
