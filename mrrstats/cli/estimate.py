"""``mrrstats estimate``: how large is the difference between two systems?

``mrrstats estimate QRELS RUN_A RUN_B -m RR [--margin 0.02]`` (or ``--scores
FILE.csv --systems A B``) prints the mean difference, the Hodges-Lehmann shift
with its Wilcoxon interval (as R's ``wilcox.test(conf.int = TRUE)``), d_z with
its noncentral-t interval, the probability of superiority with a bootstrap
interval, the bootstrap interval of the mean difference (:func:`mrrstats.bootstrap_ci`;
``--bootstrap-method`` bca, percentile, basic, normal or studentized, the last two as R's
``boot.ci`` ``type="norm"`` and ``"stud"``) and, with ``--margin``, the equivalence tests
(TOST).
"""

from __future__ import annotations

from .. import defaults
from ..options import BOOTSTRAP_CI_METHODS
from .common import add_conventions
from .evaluate import resolve_inputs

HELP = "estimation for a pair: Hodges-Lehmann shift, d_z and P(superiority) intervals, TOST"


def add_arguments(p) -> None:
    p.add_argument("qrels", nargs="?", help="TREC qrels file (omit with --scores)")
    p.add_argument("runs", nargs="*", metavar="RUN", help="two TREC run files: A B")
    p.add_argument("--example", action="store_true",
                   help="use the bundled TREC CAsT 2021 qrels and its first two runs")
    p.add_argument("--scores", metavar="FILE.csv", help="per-query score matrix CSV")
    p.add_argument("--systems", nargs=2, metavar=("A", "B"),
                   help="the two columns of --scores to compare (A - B)")
    p.add_argument("-m", "--measure", default="RR", help="measure (default RR)")
    add_conventions(p)
    p.add_argument("--margin", type=float, default=None,
                   help="equivalence margin m (TOST of -m < mean(A - B) < m)")
    p.add_argument("--confidence-level", type=float, default=0.95, help="(0.95)")
    p.add_argument("--n-resamples", type=int, default=10000, metavar="B",
                   help="resamples for the bootstrap and randomization parts (10000)")
    p.add_argument("--seed", type=int, default=None, help="random seed")
    p.add_argument("--bootstrap-method", choices=BOOTSTRAP_CI_METHODS,
                   default=defaults.BOOTSTRAP_METHOD,
                   help="bootstrap interval of the mean difference: bca (default), percentile, "
                        "basic, normal or studentized (bootstrap-t), as R's boot.ci types")
    p.add_argument("--missing", choices=("raise", "drop"), default="raise",
                   help="a query one system lacks: error (default) or drop it")


def run(args) -> int:
    from ..io.trec import read_score_matrix
    from ..metrics.evaluation import evaluate
    from ..stats.bootstrap import bootstrap_ci
    from ..stats.estimation import effect_size_intervals, equivalence_test, hodges_lehmann
    from ..validation import rng_iv

    if args.example:
        if args.scores:
            raise ValueError("give either --example or --scores FILE, not both")
        qrels, runs = resolve_inputs(args)
        args.qrels, args.runs, args.example = qrels, runs[:2], False
    if args.scores:
        if not args.systems:
            raise ValueError("--scores needs --systems A B")
        frame = read_score_matrix(args.scores)
        a_name, b_name = args.systems
        for s in (a_name, b_name):
            if s not in frame.columns:
                raise ValueError(f"--systems: {s!r} is not a column of {args.scores}")
        a, b = frame[a_name], frame[b_name]
        measure = args.measure
    else:
        if not args.qrels or len(args.runs) != 2:
            raise ValueError("need QRELS and exactly two RUN files (or --scores FILE)")
        if args.systems:
            raise ValueError("--systems goes with --scores (with QRELS A B the runs are "
                             "the systems, in that order)")

        ev = evaluate(args.qrels, args.runs, [args.measure], ties=args.ties, rel=args.rel,
                      queries=args.queries)
        measure = ev.measure_names[0]
        frame = ev.scores(measure)
        a_name, b_name = frame.columns[0], frame.columns[1]
        a, b = frame[a_name], frame[b_name]
    from ..formatting import interval_text, pvalue_text

    gen, seed = rng_iv(args.seed)
    cl = args.confidence_level
    hl = hodges_lehmann(a, b, confidence_level=cl, missing=args.missing)
    es = effect_size_intervals(a, b, confidence_level=cl, n_resamples=args.n_resamples,
                               missing=args.missing, rng=gen)
    boot = bootstrap_ci(a, b, method=args.bootstrap_method, confidence_level=cl,
                        n_resamples=args.n_resamples, missing=args.missing, rng=gen)
    bci = boot.confidence_interval()
    diff = float((a - b).mean())
    print(f"# {measure}: {a_name} - {b_name}, {es.n_queries} queries, seed = {seed}")
    print(f"mean difference           {diff:+.4f}  "
          f"{interval_text(bci.low, bci.high, '+.4f')} (bootstrap {boot.method}, "
          f"B = {args.n_resamples})")
    print(f"Hodges-Lehmann shift      {hl.estimate:+.4f}  "
          f"{interval_text(hl.low, hl.high, '+.4f')} ({hl.confidence_level:g}, {hl.method})")
    print(f"d_z                       {es.d_z:+.4f}  "
          f"{interval_text(es.d_z_interval.low, es.d_z_interval.high, '+.4f')} (noncentral t)")
    psi = es.prob_superiority_interval
    print(f"P(A beats B)              {es.prob_superiority:.4f}  "
          f"{interval_text(psi.low, psi.high, '.4f')} (bootstrap BCa)")
    if args.margin is not None:
        for test in ("t", "randomization"):
            eq = equivalence_test(a, b, margin=args.margin, test=test,
                                  n_resamples=args.n_resamples, missing=args.missing, rng=gen)
            floor = None if test == "t" else eq.n_resamples
            print(f"TOST ({test}) margin {args.margin:g}: p = {pvalue_text(eq.pvalue, floor)} "
                  f"(lower {pvalue_text(eq.pvalue_lower, floor)}, "
                  f"upper {pvalue_text(eq.pvalue_upper, floor)})")
    return 0
