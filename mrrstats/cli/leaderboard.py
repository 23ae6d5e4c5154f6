"""``mrrstats leaderboard``: simultaneous rank intervals and a compact letter display.

``mrrstats leaderboard QRELS RUN [RUN ...] -m RR`` (or ``--example``, or
``--scores FILE.csv``) prints, best first, each system's mean, observed rank,
its 95% simultaneous rank interval (max-|t| bootstrap of the queries, Mogstad
et al. 2024) and letters (systems sharing a letter are not significantly
different; Piepho 2004).
"""

from __future__ import annotations

from .. import datasets
from ..io.trec import read_score_matrix
from ..metrics.evaluation import evaluate
from ..stats.leaderboard import rank_intervals
from .common import add_conventions

HELP = "leaderboard with honest ranks: simultaneous rank intervals and compact letters"


def add_arguments(p) -> None:
    p.add_argument("qrels", nargs="?", help="TREC qrels file (omit with --scores/--example)")
    p.add_argument("runs", nargs="*", metavar="RUN", help="TREC run files (two or more)")
    p.add_argument("--example", action="store_true",
                   help="use the bundled TREC CAsT 2021 qrels and five baseline runs")
    p.add_argument("--scores", metavar="FILE.csv",
                   help="per-query score matrix CSV instead of QRELS RUN...")
    p.add_argument("-m", "--measure", default="RR", help="measure (default RR)")
    add_conventions(p)
    p.add_argument("--confidence-level", type=float, default=0.95,
                   help="joint coverage of all rank intervals (0.95)")
    p.add_argument("--n-resamples", type=int, default=10000, metavar="B",
                   help="bootstrap resamples of the queries (10000)")
    p.add_argument("--seed", type=int, default=None,
                   help="random seed (default: fresh entropy; the seed used is reported)")
    p.add_argument("--missing", choices=("raise", "drop"), default="raise",
                   help="a query some system lacks: error (default) or drop it")


def run(args) -> int:
    if args.scores:
        if args.qrels or args.runs or args.example:
            raise ValueError("give either QRELS RUN..., --example or --scores FILE, not two")

        frame = read_score_matrix(args.scores)
        frame.attrs.setdefault("measure", args.measure)
    else:
        if args.example:
            data = datasets.cast2021()
            qrels, runs = data.qrels, list(data.runs)
        else:
            if not args.qrels or len(args.runs) < 2:
                raise ValueError("need QRELS and at least two RUN files (or --scores, "
                                 "--example)")
            qrels, runs = args.qrels, list(args.runs)

        ev = evaluate(qrels, runs, [args.measure], ties=args.ties, rel=args.rel,
                      queries=args.queries)
        frame = ev.scores(ev.measure_names[0])
        frame.attrs["measure"] = ev.measure_names[0]
    res = rank_intervals(frame, confidence_level=args.confidence_level,
                         n_resamples=args.n_resamples, missing=args.missing, rng=args.seed)
    print(f"# {res.measure}: {len(res.systems)} systems; {res.confidence_level:g} simultaneous "
          f"rank intervals ({res.method}, B = {res.n_resamples}, critical |t| = "
          f"{res.critical_value:.3f}, seed = {res.seed})")
    print(res.to_frame().to_string(float_format=lambda x: f"{x:.4f}"))
    return 0
