"""``mrrstats multiverse``: would the conclusion survive another evaluation convention?

``mrrstats multiverse QRELS RUN [RUN ...] -m RR`` (or ``--example``) evaluates the
runs under every tie convention, query set, relevance threshold, cutoff and
empty-target policy (where some query has no relevant document), and
prints one row per convention: the system ordering, the number of significant
pairs, and against the reference convention (the first of each option) the
pairs that flip, lose or gain significance and the largest shift of a mean.
"""

from __future__ import annotations

from ..errors import InputError
from ..options import TIES
from .common import add_run_inputs, add_test_options, add_wide

HELP = "the convention multiverse: orderings and significant pairs under every convention"


def add_arguments(parser) -> None:
    add_run_inputs(parser)
    parser.add_argument("-m", "--measure", action="append", dest="measures", default=None,
                        metavar="MEASURE", help="base measure (repeat); default RR")
    parser.add_argument("--ties", nargs="+", choices=TIES,
                        default=["trec_eval", "optimistic", "pessimistic", "expected"],
                        help="tie conventions (first = reference)")
    parser.add_argument("--queries", nargs="+", choices=("both", "qrels"),
                        default=["both", "qrels"], help="query sets (first = reference)")
    parser.add_argument("--rels", nargs="+", type=int, default=None,
                        help="relevance thresholds (default: every positive grade)")
    parser.add_argument("--cutoffs", nargs="+", default=["none", "10", "100"],
                        help="cutoffs, 'none' for no cutoff (first = reference)")
    parser.add_argument("--empty-targets", nargs="+", choices=("neg", "pos", "skip"),
                        default=["neg", "pos", "skip"],
                        help="what a query without relevant documents scores: 0 (neg, "
                             "trec_eval), 1 (pos) or left out (skip); varied only where some "
                             "query has none (first = reference)")
    parser.add_argument("--unjudged", nargs="+", choices=("nonrelevant", "condense", "relevant"),
                        default=["nonrelevant"],
                        help="what an unjudged document counts as: non-relevant (trec_eval), "
                             "removed (condense, Sakai 2007) or relevant (first = reference)")
    add_test_options(parser, tests=("t", "wilcoxon", "sign", "randomization", "bootstrap"),
                     correction_default="holm", alternative=False)
    parser.set_defaults(test="t")
    parser.add_argument("--csv", metavar="FILE", help="write the per-convention x pair table")
    parser.add_argument("--methods", action="store_true",
                        help="print the methods paragraph of the results (.methods(); Pandoc "
                             "[@key] citations) instead of the results")
    add_wide(parser, "every convention and each universe's ordering of the systems")


def run(args) -> int:
    from .. import datasets
    from ..agreement.multiverse import multiverse

    if args.example:
        data = datasets.cast2021()
        qrels, runs = data.qrels, list(data.runs)
    else:
        if not args.qrels or not args.runs:
            raise InputError("give QRELS and at least one RUN, or --example")
        qrels, runs = args.qrels, list(args.runs)
    cutoffs = [None if c.lower() == "none" else int(c) for c in args.cutoffs]
    res = multiverse(qrels, runs, args.measures or ["RR"], ties=args.ties,
                     queries=args.queries, rels=args.rels, cutoffs=cutoffs,
                     empty_targets=args.empty_targets, unjudged=args.unjudged, test=args.test,
                     correction=args.correction, alpha=args.alpha,
                     n_resamples=args.n_resamples, rng=args.seed)
    if args.methods:
        print(res.methods().text)
        return 0
    from ..formatting import frame_text, wrap

    conventions = ["measure", "ties", "queries", "rel", "cutoff", "empty_target", "unjudged"]
    numbers = ["n_significant", "n_flipped", "n_lost", "n_gained", "max_abs_shift",
               "kendall_tau"]
    summary = res.summary
    resampled = f" B={res.n_resamples} seed={res.seed}" if res.n_resamples else ""
    ref = "; ".join(f"{m}: " + ", ".join(f"{k}={v}" for k, v in conv.items())
                    for m, conv in res.reference.items())
    lines = wrap(f"test={res.test} correction={res.correction} alpha={res.alpha}{resampled}; "
                 f"reference convention per measure: {ref}", prefix="# ")
    if args.wide:
        cols = conventions + numbers + ["ordering"]
    else:  # what fits 100 columns: the conventions that vary; the others in the header
        same = [c for c in conventions if summary[c].nunique(dropna=False) == 1]
        if same:
            lines += wrap("the same in every universe: " + ", ".join(
                f"{c}={summary[c].iloc[0]}" for c in same), prefix="# ")
        lines += wrap("empty: empty_target; sig: pairs significant; flip, lost, gain: pairs "
                      "whose decision flips, is lost or gained against the reference; "
                      "max|shift|: largest change of a system's mean; tau: Kendall's tau of "
                      "the ordering against the reference; --wide: every column under its "
                      "name, with each universe's ordering", prefix="# ")
        cols = [c for c in conventions if c not in same] + numbers
    short = {"empty_target": "empty", "n_significant": "sig", "n_flipped": "flip",
             "n_lost": "lost", "n_gained": "gain", "max_abs_shift": "max|shift|",
             "kendall_tau": "tau"}
    lines.append(frame_text(summary[cols].rename(columns={} if args.wide else short),
                            index=False))
    print("\n".join(lines))
    if args.csv:
        res.pairs.to_csv(args.csv, index=False)
    return 0
