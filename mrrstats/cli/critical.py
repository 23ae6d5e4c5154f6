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
from ..options import CD_TESTS, HIERARCHICAL_MODELS

HELP = (
    "many systems over many collections: average ranks, Friedman's test and the "
    "critical-difference diagram (Nemenyi, Wilcoxon-Holm, Conover)"
)


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
        help="random seed of the bootstrap (default: fresh entropy; --example: "
        f"{defaults.EXAMPLE_SEED}; the seed used is reported)",
    )
    p.add_argument(
        "--plot", metavar="FILE", help="save the critical-difference diagram (.png, .pdf, .svg)"
    )
    p.add_argument(
        "--hierarchical",
        nargs=2,
        metavar=("A", "B"),
        help="also the Bayesian hierarchical comparison of systems A and B across the "
        "collections (per-query input; the Student-t model of Benavoli et al. 2017 by MCMC, "
        "seeded by --seed)",
    )
    p.add_argument(
        "--hierarchical-model",
        choices=HIERARCHICAL_MODELS,
        default="t",
        help="t: the Student-t hierarchical model (MCMC, default); normal: its normal "
        "approximation (exact, no draws)",
    )
    p.add_argument(
        "--rope",
        type=float,
        default=None,
        help="half-width of the region of practical equivalence of --hierarchical",
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
    from ..errors import ParameterError
    from ..stats.critical import critical_difference
    from ..validation import rng_iv

    if args.rope is not None and not args.hierarchical:
        raise ParameterError("--rope is the region of practical equivalence of "
                             "--hierarchical A B: pass both, or neither", name="rope")
    gen, seed = rng_iv(args.seed)
    res = critical_difference(
        _table(args),
        test=args.test,
        alpha=args.alpha,
        confidence_level=args.confidence_level,
        n_resamples=args.n_resamples,
        rng=gen,
    )
    print(_text(res, seed))
    if args.hierarchical:
        a, b = args.hierarchical
        h = res.hierarchical(a, b, rope=args.rope, model=args.hierarchical_model, rng=gen)
        print(_hierarchical_text(h, a, b))
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        ax = res.plot()
        ax.figure.savefig(args.plot)  # type: ignore[union-attr]  # a Figure
        print(f"# diagram written to {args.plot}")
    return 0


def _text(res, seed) -> str:
    """The analysis in lines of at most 100 columns (systems labelled a, b, ... in the
    pairs, long names and groups wrapped)."""
    from ..formatting import interval_text, letters, pvalue_clause, pvalue_text, text_table, wrap

    boot = res.rank_intervals is not None
    f = res.friedman
    lines = wrap(
        f"{res.n_systems} systems, {res.n_collections} collections, {res.measure}; test "
        f"{res.test}, alpha {res.alpha:g}"
        + (f"; two-level bootstrap B = {res.n_resamples}, seed {seed}" if boot else ""),
        prefix="# ",
    )
    lines += wrap(
        f"Friedman chi2 = {f['statistic']:.3f} (df {f['df']:.0f}), {pvalue_clause(f['pvalue'])}; "
        f"Iman-Davenport F = {f['iman_davenport']:.3f} (df {f['dfn']:.0f}, {f['dfd']:.0f}), "
        f"{pvalue_clause(f['iman_davenport_pvalue'])}",
        prefix="# ",
    )
    lines.append(
        f"# Nemenyi critical difference at alpha {res.alpha:g}: {res.critical_difference:.3f}"
    )
    frame = res.to_frame()
    label = dict(zip(frame.index, letters(len(frame)), strict=True))
    cl = f"{100 * res.confidence_level:g}%"
    rows = []
    for s, r in frame.iterrows():
        rows.append(
            [label[s], str(s), f"{r.average_rank:.2f}", f"{r['mean']:.4f}"]
            + ([interval_text(r.ci_low, r.ci_high, ".2f")] if boot else [])
            + [r.clique or "-"]
        )
    head = ["", "system", "rank", "mean"] + ([f"{cl} interval"] if boot else []) + ["group"]
    lines += ["", text_table(head, rows, align="ll" + "r" * (len(head) - 3) + "l")]
    lines.append("# groups not significantly different (consecutive in rank):")
    for i, c in enumerate(res.cliques, 1):
        lines += wrap(", ".join(f"{label[s]} {s}" for s in c), prefix=f"{i:>4} ")
    if not res.cliques:
        lines.append("   - every pair differs")
    lines += [""] + wrap(
        "pairs a - b (a: the better average rank): rank difference, mean difference"
        + (f" ({cl} intervals)" if boot else "")
        + ", p, p adjusted; * rejected at alpha",
        prefix="# ",
    )
    rows = []
    for _, r in res.pairs.iterrows():
        row = [f"{label[r.system_a]} - {label[r.system_b]}", f"{r.rank_difference:+.2f}"]
        if boot:
            row.append(interval_text(r.rank_ci_low, r.rank_ci_high, "+.2f"))
        row.append(f"{r.difference:+.4f}")
        if boot:
            row.append(interval_text(r.ci_low, r.ci_high, "+.4f"))
        row += [pvalue_text(r.pvalue), pvalue_text(r.pvalue_adjusted), "*" if r.reject else ""]
        rows.append(row)
    head = (
        ["pair", "rank diff."]
        + (["rank interval"] if boot else [])
        + ["mean diff."]
        + (["mean interval"] if boot else [])
        + ["p", "p adj.", ""]
    )
    lines.append(text_table(head, rows, align="l" + "r" * (len(head) - 2) + "l"))
    lines += [""] + wrap(res.summary())
    return "\n".join(lines)


def _hierarchical_text(h, a, b) -> str:
    """The hierarchical comparison of ``a`` and ``b`` in lines of at most 100 columns."""
    from ..formatting import wrap

    what = (
        f"Student-t hierarchical model (MCMC: {h.n_chains} chains of {h.n_draws} draws, "
        f"R-hat {h.rhat:.3f}, ESS {h.ess:.0f})"
        if h.method == "hierarchical-t"
        else "normal hierarchical model (the normal approximation)"
    )
    lines = [""] + wrap(f"Bayesian hierarchical comparison of A = {a} and B = {b} across the "
                        f"collections: {what}", prefix="# ")
    return "\n".join(lines + wrap(h.summary()))
