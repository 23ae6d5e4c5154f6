"""``mrrstats evaluate``: per-query and aggregate measures of runs, trec_eval-exact."""

from __future__ import annotations

import sys

from ..options import ENGINES
from . import signals
from .common import add_conventions, add_run_inputs

HELP = "Evaluate runs against qrels (RR, AP, nDCG, P, R, Success; trec_eval-exact)."


def add_arguments(p) -> None:
    add_run_inputs(p)
    p.add_argument("-m", "--measure", action="append", dest="measures", metavar="MEASURE",
                   help="measure name, repeatable: RR, RR@10, 'RR(rel=2)@10', AP, AP@100, "
                        "nDCG, nDCG@10, P@10, R@100, Success@10, Rank, Bpref, Rprec, infAP, "
                        "IPrec@0.5, SetF, NumRet, 'RBP(p=0.8)', Rndcg, ERR@20, "
                        "'nDCG(gain=exp)@20' or trec_eval's names (bpref, map_cut_10, "
                        "iprec_at_recall_0.10, ...) (default: RR)")
    add_conventions(p)
    p.add_argument("--max-depth", type=int, default=None, metavar="M",
                   help="only the first M documents per query count (trec_eval -M)")
    p.add_argument("--engine", choices=ENGINES, default="memory",
                   help="memory (default); stream: run files larger than memory, read in "
                        "pieces and evaluated query bucket by bucket; dask: Parquet runs on "
                        "the current Dask scheduler; auto: stream when a run would not fit "
                        "(identical values whichever engine)")
    p.add_argument("--empty-target", choices=("neg", "pos", "skip", "error"), default="neg",
                   help="a query without any relevant document: neg (score 0, trec_eval; "
                        "default), pos (score 1), skip (leave out), error")
    p.add_argument("--per-query", action="store_true", help="also print per-query values")
    p.add_argument("--stat", choices=("mean", "median", "gmean", "sum"), default="mean",
                   help="aggregate over queries: mean (MRR, MAP, ...; default), median "
                        "(median RR, ...), gmean (trec_eval's gm_map for AP) or sum "
                        "(trec_eval's num_ret for NumRet); Rank is always aggregated by "
                        "its median")
    p.add_argument("--format", choices=("table", "tsv", "json"), default="table",
                   help="output format (tsv: long 'run query measure value', aggregates as "
                        "query 'all')")


def resolve_inputs(args):
    """(qrels, runs) from positional arguments or --example (shared with other commands)."""
    if getattr(args, "example", False):
        from ..datasets import cast2021  # scipy.stats comes with it: files do not need it

        data = cast2021()
        if args.qrels or args.runs:
            raise ValueError("give either --example or QRELS RUN..., not both")
        return data.qrels, list(data.runs)
    if not args.qrels or not args.runs:
        raise ValueError("need QRELS and at least one RUN (or --example)")
    return args.qrels, list(args.runs)


def run(args) -> int:

    qrels, runs = resolve_inputs(args)
    if args.format == "table" and args.engine == "memory":
        # TREC files: the table without DataFrames (no pandas to import); None where
        # that path does not apply, or on any error (worded by evaluate, below)
        from ..metrics.files import evaluate_text

        text = evaluate_text(qrels, runs, args.measures, ties=args.ties, rel=args.rel,
                             queries=args.queries, max_depth=args.max_depth,
                             empty_target=args.empty_target, stat=args.stat,
                             per_query=args.per_query)
        if text is not None:
            sys.stdout.write(text)
            signals.skip_teardown()  # nothing left to release: see its docstring
            return 0
    from ..metrics.evaluation import evaluate

    ev = evaluate(qrels, runs, args.measures, ties=args.ties, rel=args.rel,
                  queries=args.queries, max_depth=args.max_depth, engine=args.engine,
                  empty_target=args.empty_target)
    out = sys.stdout
    if args.format == "tsv":  # always per query plus 'all' rows, like trec_eval -q
        out.write(ev.to_tsv(per_query=True, stat=args.stat))
        return 0
    if args.format == "json":
        out.write(ev.to_json(per_query=args.per_query, stat=args.stat) + "\n")
        return 0
    s = ev.settings
    out.write(f"# ties={s['ties']} rel={s['rel']} queries={s['queries']}"
              + (f" max_depth={s['max_depth']}" if s["max_depth"] else "")
              + f" aggregate={args.stat}\n")
    from ..formatting import frame_text, wrap

    out.write(frame_text(ev.aggregate(args.stat)) + "\n")
    out.write("\nqueries per run:\n")
    for run_name in ev.runs:
        out.write("\n".join(wrap(f"{run_name}: {ev.counts[run_name]}", prefix="  ")) + "\n")
    if args.per_query:
        for run_name in ev.runs:
            out.write(f"\n{run_name}\n")
            out.write(frame_text(ev.values[run_name]) + "\n")
    return 0
