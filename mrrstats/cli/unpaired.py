"""``mrrstats unpaired``: two systems evaluated on *different* query sets.

``mrrstats unpaired --a QRELS_A RUN_A --b QRELS_B RUN_B -m RR`` (or ``--scores
A.csv B.csv``) compares the mean of A on its queries with the mean of B on
its own: Welch's t-test with its interval (as ``scipy.stats.ttest_ind(...,
equal_var=False)``), the permutation test of the group labels and the
two-sample bootstrap interval. Nothing is paired query by query; when both
systems ran on the same queries, the paired ``mrrstats compare`` and
``mrrstats estimate`` are far more powerful.
"""

from __future__ import annotations

import sys

from .. import defaults
from .common import add_conventions

HELP = ("two systems on different query sets: Welch t, permutation test, bootstrap interval "
        "(unpaired)")

TESTS = ("welch", "permutation", "bootstrap")


def add_arguments(p) -> None:
    p.add_argument("--a", nargs=2, metavar=("QRELS", "RUN"),
                   help="system A: its qrels and its run (its own query set)")
    p.add_argument("--b", nargs=2, metavar=("QRELS", "RUN"),
                   help="system B: its qrels and its run")
    p.add_argument("--scores", nargs=2, metavar=("A.csv", "B.csv"),
                   help="per-query score files of A and of B instead (one row per query of "
                        "each system's own set)")
    p.add_argument("--systems", nargs=2, metavar=("A", "B"),
                   help="the column of each --scores file (default: each file's first)")
    p.add_argument("--example", action="store_true",
                   help="the bundled TREC CAsT 2021 qrels: its first run on the "
                        "odd-numbered conversations, its second on the even-numbered ones")
    p.add_argument("-m", "--measure", default="RR", help="measure (default RR)")
    add_conventions(p)
    p.add_argument("--test", action="append", dest="tests", choices=TESTS, metavar="TEST",
                   help=f"repeatable: {', '.join(TESTS)} (default: all three)")
    p.add_argument("--alternative", choices=("two-sided", "greater", "less"),
                   default=defaults.ALTERNATIVE,
                   help="sidedness of the tests (default two-sided)")
    p.add_argument("--confidence-level", type=float, default=defaults.CONFIDENCE_LEVEL,
                   help="confidence level of the intervals (0.95)")
    p.add_argument("--bootstrap-method", choices=("bca", "percentile", "basic"),
                   default=defaults.BOOTSTRAP_METHOD_FALLBACK,
                   help=f"bootstrap interval (default {defaults.BOOTSTRAP_METHOD_FALLBACK})")
    p.add_argument("--n-resamples", type=int, default=defaults.N_RESAMPLES, metavar="B",
                   help="permutations and bootstrap resamples (10000)")
    p.add_argument("--seed", type=int, default=None,
                   help="random seed (default: fresh entropy; the seed used is printed)")
    p.add_argument("--methods", action="store_true",
                   help="print the methods paragraph of the results (.methods(); Pandoc [@key] "
                        "citations) instead of the results")

def _column(frame, name, option, path):
    if name is None:
        name = frame.columns[0]
    elif name not in frame.columns:
        raise ValueError(f"{option}: {name!r} is not a column of {path}")
    values = frame[name].dropna()
    return str(name), values


def _inputs(args):
    """``(name_a, scores_a, name_b, scores_b, measure)`` (pandas Series indexed by query)."""
    from ..datasets import cast2021
    from ..io.trec import read_score_matrix
    from ..metrics.evaluation import evaluate

    given = [bool(args.example), bool(args.scores), bool(args.a or args.b)]
    if sum(given) != 1:
        raise ValueError("give one of --a QRELS RUN --b QRELS RUN, --scores A.csv B.csv or "
                         "--example")
    if args.scores:
        names = args.systems or (None, None)
        fa, fb = (read_score_matrix(p) for p in args.scores)
        na, a = _column(fa, names[0], "--systems", args.scores[0])
        nb, b = _column(fb, names[1], "--systems", args.scores[1])
        return na, a, nb, b, args.measure
    if args.systems:
        raise ValueError("--systems goes with --scores")
    if args.example:
        data = cast2021()
        ev = evaluate(data.qrels, list(data.runs[:2]), [args.measure], ties=args.ties,
                      rel=args.rel, queries=args.queries)
        m = ev.measure_names[0]
        frame = ev.scores(m)
        conv = frame.index.str.split("_").str[0].astype(int)
        na, nb = frame.columns[:2]
        return (f"{na} (odd conversations)", frame.loc[conv % 2 == 1, na],
                f"{nb} (even conversations)", frame.loc[conv % 2 == 0, nb], m)
    if not (args.a and args.b):
        raise ValueError("need both --a QRELS RUN and --b QRELS RUN")
    out = []
    for qrels, run in (args.a, args.b):
        ev = evaluate(qrels, [run], [args.measure], ties=args.ties, rel=args.rel,
                      queries=args.queries)
        m = ev.measure_names[0]
        frame = ev.scores(m)
        out += [frame.columns[0], frame.iloc[:, 0].dropna()]
    return (*out, m)


def run(args) -> int:
    from ..stats.unpaired import unpaired_bootstrap_ci, unpaired_permutation_test, unpaired_ttest
    from ..validation import rng_iv

    na, a, nb, b, measure = _inputs(args)
    _, seed = rng_iv(args.seed)
    tests = args.tests or list(TESTS)
    cl = args.confidence_level
    common = a.index.intersection(b.index)
    from ..formatting import interval_text, pvalue_text, wrap
    from ..stats.methods import combine

    done = []
    # with --methods the results only feed the paragraph
    say = print if not args.methods else (lambda *_a, **_k: None)
    say("\n".join(wrap(f"{measure}: {na} on {a.size} queries vs {nb} on {b.size} queries "
                         f"({common.size} in common), unpaired; seed = {seed}", prefix="# ")))
    if common.size and common.size == a.size == b.size:
        say("mrrstats unpaired: note: both systems have the same queries; the paired "
              "tests (mrrstats compare, mrrstats estimate) are more powerful", file=sys.stderr)
    a, b = a.to_numpy(float), b.to_numpy(float)
    say(f"mean A {a.mean():.4f}   mean B {b.mean():.4f}   difference A - B "
          f"{a.mean() - b.mean():+.4f}")
    for test in tests:
        if test == "welch":
            r = unpaired_ttest(a, b, alternative=args.alternative, confidence_level=cl)
            done.append(r)
            say(f"Welch t      t = {r.statistic:+.4f}, df = {r.df:.2f}, "
                  f"p = {pvalue_text(r.pvalue)}; {cl:g} CI {interval_text(r.low, r.high, '+.4f')}")
        elif test == "permutation":
            r = unpaired_permutation_test(a, b, alternative=args.alternative,
                                          n_resamples=args.n_resamples, rng=seed)
            done.append(r)
            floor = r.n_resamples if r.method == "monte-carlo" else None
            say(f"permutation  p = {pvalue_text(r.pvalue, floor)} ({r.method}, {r.n_resamples} "
                  f"{'splits' if r.method == 'exact' else 'permutations'}, {args.alternative})")
        else:
            r = unpaired_bootstrap_ci(a, b, confidence_level=cl, method=args.bootstrap_method,
                                      n_resamples=args.n_resamples, rng=seed)
            done.append(r)
            say(f"bootstrap    {cl:g} CI {interval_text(r.low, r.high, '+.4f')} "
                  f"({args.bootstrap_method}, each query set resampled on its own, "
                  f"B = {r.n_resamples})")
    if args.methods:
        sys.stdout.write(combine(r.methods() for r in done).text + "\n")
    return 0
