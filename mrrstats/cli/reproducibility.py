"""``mrrstats reproducibility``: how well does a reproduction reproduce a published run?

``mrrstats reproducibility QRELS --original BASELINE ADVANCED --reproduced BASELINE
ADVANCED`` (add ``--reproduced-qrels FILE`` for replicability on another collection), or
``--example``: on TREC CAsT 2021, the ConvDR baseline against ConvDR+BERT taken as the
original experiment and the manual-rewrite BM25 against ANCE as its "reproduction".
Prints, per measure, the effect ratio and the delta relative improvement with bootstrap
intervals, the t-test p-values of each run against its reproduction and (same collection)
the RMSE and nRMSE of the per-topic scores, KTU and RBO of the document orders
(:func:`mrrstats.reproducibility`, the measures of Breuer et al.'s ``repro_eval``).
"""

from __future__ import annotations

from .. import defaults
from ..options import QUERIES

HELP = (
    "reproducibility and replicability of a published run: KTU, RBO, RMSE, effect "
    "ratio and delta RI (Breuer et al. 2020, repro_eval)"
)


def add_arguments(p) -> None:
    p.add_argument("qrels", nargs="?", help="the original collection's qrels")
    p.add_argument(
        "--original",
        nargs=2,
        metavar=("BASELINE", "ADVANCED"),
        help="the original baseline and advanced runs",
    )
    p.add_argument(
        "--reproduced", nargs=2, metavar=("BASELINE", "ADVANCED"), help="their reproductions"
    )
    p.add_argument(
        "--reproduced-qrels",
        metavar="QRELS",
        help="another collection's qrels for the reproduced runs (replicability)",
    )
    p.add_argument(
        "--example",
        action="store_true",
        help="TREC CAsT 2021: ConvDR vs ConvDR+BERT, 'reproduced' by the manual BM25 vs ANCE runs",
    )
    p.add_argument(
        "-m",
        "--measures",
        nargs="+",
        default=["AP", "nDCG", "P@10"],
        help="measures (default AP nDCG P@10)",
    )
    p.add_argument(
        "--queries",
        choices=QUERIES,
        default="qrels",
        help="which topics count (default qrels: every judged topic, as repro_eval)",
    )
    p.add_argument(
        "--depth",
        type=int,
        default=1000,
        help="documents per topic compared by KTU and RBO (1000)",
    )
    p.add_argument("--rbo-p", type=float, default=0.95, help="RBO persistence (0.95)")
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
        help=f"bootstrap resamples (default {defaults.N_RESAMPLES})",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=None,
        help="random seed of the bootstrap (default: fresh entropy; --example: "
        f"{defaults.EXAMPLE_SEED}; the seed used is reported)",
    )
    p.add_argument(
        "--plot", metavar="FILE", help="save the ER against DeltaRI plot (.png, .pdf, .svg)"
    )


def _inputs(args):
    from .. import datasets
    from ..formatting import wrap
    from ..io.trec import read_run

    if args.example:
        if args.qrels or args.original or args.reproduced or args.reproduced_qrels:
            raise ValueError(
                "give either --example or QRELS --original ... --reproduced ..., not both"
            )
        data = datasets.cast2021()
        runs = {read_run(r).name: r for r in data.runs}
        print(
            "\n".join(
                wrap(
                    "example: TREC CAsT 2021, original org_convdr (baseline) vs "
                    "org_convdr_bert (advanced); 'reproduced' by org_manual_bm25 vs "
                    "org_manual_ance",
                    prefix="# ",
                )
            )
        )
        return (
            data.qrels,
            {"baseline": runs["org_convdr.run"], "advanced": runs["org_convdr_bert.run"]},
            {"baseline": runs["org_manual_bm25.run"], "advanced": runs["org_manual_ance.run"]},
            None,
        )
    if not args.qrels or not args.original or not args.reproduced:
        raise ValueError(
            "need QRELS, --original BASELINE ADVANCED and --reproduced BASELINE "
            "ADVANCED (or --example)"
        )
    return (
        args.qrels,
        dict(zip(("baseline", "advanced"), args.original, strict=True)),
        dict(zip(("baseline", "advanced"), args.reproduced, strict=True)),
        args.reproduced_qrels,
    )


def run(args) -> int:
    from ..stats.reproducibility import reproducibility
    from ..validation import rng_iv

    gen, seed = rng_iv(args.seed)
    qrels, original, reproduced, rep_qrels = _inputs(args)
    res = reproducibility(
        qrels,
        original,
        reproduced,
        measures=args.measures,
        reproduced_qrels=rep_qrels,
        queries=args.queries,
        depth=args.depth,
        rbo_p=args.rbo_p,
        confidence_level=args.confidence_level,
        n_resamples=args.n_resamples,
        rng=gen,
    )
    print(_text(res, seed))
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        from ..report.plots.reproduction import er_delta_ri_plot

        er_delta_ri_plot(res).figure.savefig(args.plot)  # type: ignore[union-attr]  # a Figure
        print(f"# plot written to {args.plot}")
    return 0


def _text(res, seed) -> str:
    """The analysis in lines of at most 100 columns: the effects (ER, DeltaRI) in one
    table, the per-topic comparison (t-test p-values, RMSE, nRMSE) in another."""
    from ..formatting import interval_text, pvalue_text, text_table, wrap

    boot = res.intervals is not None
    lines = wrap(
        f"{res.kind}: {res.n_queries['original']} original, "
        f"{res.n_queries['reproduced']} reproduced topics"
        + (f"; bootstrap B = {res.n_resamples}, seed {seed}" if boot else ""),
        prefix="# ",
    )
    if res.ktu is not None:
        lines += wrap(
            f"document order (depth {res.depth}): KTU baseline {res.ktu['baseline']:.4f}, "
            f"advanced {res.ktu['advanced']:.4f}; RBO (p = {res.rbo_p:g}) baseline "
            f"{res.rbo['baseline']:.4f}, advanced {res.rbo['advanced']:.4f}",
            prefix="# ",
        )
    cl = f"{100 * res.confidence_level:g}%"
    rows = []
    for m in res.measures:
        row = [str(m), f"{res.er[m]:.4f}"]
        if boot:
            r = res.intervals.loc[m]
            row.append(interval_text(r.er_low, r.er_high, ".3f"))
        row.append(f"{res.delta_ri[m]:+.4f}")
        if boot:
            row.append(interval_text(r.delta_ri_low, r.delta_ri_high, "+.3f"))
        rows.append(row)
    interval = [f"{cl} interval"] if boot else []
    lines += [
        "",
        "## effect: effect ratio (ER) and delta relative improvement (DeltaRI)",
        text_table(["measure", "ER", *interval, "DeltaRI", *interval], rows),
    ]
    rows = []
    for m in res.measures:
        row = [
            str(m),
            pvalue_text(res.pvalues.loc["baseline", m]),
            pvalue_text(res.pvalues.loc["advanced", m]),
        ]
        if res.rmse is not None:
            row += [
                f"{res.rmse.loc['baseline', m]:.4f}",
                f"{res.rmse.loc['advanced', m]:.4f}",
                f"{res.nrmse.loc['baseline', m]:.4f}",
                f"{res.nrmse.loc['advanced', m]:.4f}",
            ]
        rows.append(row)
    head = ["measure", "p base", "p adv"]
    if res.rmse is not None:
        head += ["RMSE base", "RMSE adv", "nRMSE base", "nRMSE adv"]
    lines += [
        "",
        "## per topic: t-test p-value of each run against its reproduction"
        + (", RMSE and nRMSE of the scores" if res.rmse is not None else ""),
        text_table(head, rows),
    ]
    lines += [""] + wrap(res.summary())
    return "\n".join(lines)
