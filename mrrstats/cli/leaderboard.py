"""``mrrstats leaderboard``: simultaneous rank intervals and a compact letter display.

``mrrstats leaderboard QRELS RUN [RUN ...] -m RR`` (or ``--example``, or
``--scores FILE.csv``) prints, best first, each system's mean, observed rank,
its 95% simultaneous rank interval (``max-|t|`` bootstrap of the queries, Mogstad
et al. 2024) and letters (systems sharing a letter are not significantly
different; Piepho 2004).
"""

from __future__ import annotations

from .common import add_matrix_inputs, matrix_from_args

HELP = "leaderboard with honest ranks: simultaneous rank intervals and compact letters"


def add_arguments(p) -> None:
    add_matrix_inputs(p)
    p.add_argument("--confidence-level", type=float, default=0.95,
                   help="joint coverage of all rank intervals (0.95)")
    p.add_argument("--n-resamples", type=int, default=10000, metavar="B",
                   help="bootstrap resamples of the queries (10000)")
    p.add_argument("--seed", type=int, default=None,
                   help="random seed (default: fresh entropy; the seed used is reported)")
    p.add_argument("--missing", choices=("raise", "drop"), default="raise",
                   help="a query some system lacks: error (default) or drop it")


def run(args) -> int:
    from ..stats.leaderboard import rank_intervals

    frame = matrix_from_args(args)
    res = rank_intervals(frame, confidence_level=args.confidence_level,
                         n_resamples=args.n_resamples, missing=args.missing, rng=args.seed)
    from ..formatting import frame_text, wrap

    print("\n".join(wrap(f"{res.measure}: {len(res.systems)} systems; "
                         f"{res.confidence_level:g} simultaneous rank intervals ({res.method}, "
                         f"B = {res.n_resamples}, critical |t| = {res.critical_value:.3f}); "
                         f"seed = {res.seed}", prefix="# ")))
    print(frame_text(res.to_frame()))
    return 0
