"""``mrrstats calibrate``: which test fits these data?

``mrrstats calibrate QRELS RUN... -m RR`` (or ``--scores FILE.csv``, or ``--example``:
the five CAsT 2021 runs) simulates topic sets like these (Urbano & Nagler 2018) and
prints, for each paired test and correction, its type I error under simulated nulls and
its power at given differences, with a recommendation (:func:`mrrstats.calibrate_tests`).
"""

from __future__ import annotations

from ..options import CALIBRATION_TESTS, NULLS
from .common import add_matrix_inputs, matrix_from_args

HELP = "which test fits these data: type I error and power of each test on simulated topics"


def add_arguments(p) -> None:
    add_matrix_inputs(p)
    p.add_argument("--n-queries", type=int, default=None,
                   help="topics per simulated collection (default: as many as the data)")
    p.add_argument("--tests", nargs="+", choices=CALIBRATION_TESTS, default=None,
                   help="tests to calibrate (default all)")
    p.add_argument("--corrections", nargs="+", default=None,
                   help="corrections (default none for two systems, none and holm for more)")
    p.add_argument("--differences", nargs="*", type=float, default=[0.02, 0.05],
                   help="true differences for the power columns (0.02 0.05)")
    p.add_argument("--null-hypothesis", choices=NULLS, default="means",
                   help="means (default): equal expected scores, own shapes; margins: "
                        "identical distributions (Urbano et al. 2019)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (0.05)")
    p.add_argument("--alternative", choices=("two-sided", "greater", "less"),
                   default="two-sided", help="sidedness (default two-sided)")
    p.add_argument("--n-simulations", type=int, default=1000,
                   help="simulated collections per configuration (1000)")
    p.add_argument("--n-resamples", type=int, default=1000, metavar="B",
                   help="resamples of the randomization/bootstrap tests per collection (1000)")
    p.add_argument("--max-systems", type=int, default=8,
                   help="simulate at most this many systems (default 8)")
    p.add_argument("--seed", type=int, default=None,
                   help="random seed (default: fresh entropy; the seed used is reported)")


def run(args) -> int:
    from ..stats.simulation import calibrate_tests
    from ..validation import rng_iv

    frame = matrix_from_args(args)
    gen, seed = rng_iv(args.seed)
    res = calibrate_tests(frame, n_queries=args.n_queries, tests=args.tests,
                          corrections=args.corrections, alpha=args.alpha,
                          differences=tuple(args.differences), alternative=args.alternative,
                          null_hypothesis=args.null_hypothesis,
                          n_simulations=args.n_simulations, n_resamples=args.n_resamples,
                          max_systems=args.max_systems, rng=gen)
    from ..formatting import frame_text, wrap

    print("\n".join(wrap(f"{frame.attrs.get('measure', 'score')}: {len(res.systems)} systems, "
                         f"{res.n_queries} topics per simulated collection, "
                         f"{res.n_simulations} collections, null {res.null_hypothesis}, "
                         f"seed {seed}", prefix="# ")))
    print(frame_text(res.to_frame(), index=False, digits=3))
    print("\n".join(wrap("recommended: " + res.recommendation, prefix="# ")))
    return 0
