"""``mrrstats replicates``: systems with several runs each (seeds, folds).

``mrrstats replicates --scores FILE.csv --replicates A=a1,a2,a3 --replicates
B=b1,b2,b3`` (columns of the score matrix), or ``QRELS RUN... --replicates
A=RUN1,RUN2,...`` (runs named by their file name without extension), or
``--example``: the bundled TREC CAsT 2021 runs, five simulated seeds each. Prints one
row per pair of systems: the difference of the grand means, its interval and test
counting queries and replicates (:func:`mrrstats.replicate_tests`), the share of the
variance that the seeds hold, and each system's seed variance.
"""

from __future__ import annotations

import dataclasses

from .. import defaults
from ..defaults import REPLICATE_DRAW
from ..options import REPLICATE_DRAWS, REPLICATE_METHODS
from ..stats.registry import CORRECTION_NAMES
from .common import add_conventions

HELP = ("several runs per system (seeds, folds): tests and intervals that count queries and "
        "replicates, and the share of variance each holds")


def add_arguments(p) -> None:
    p.add_argument("qrels", nargs="?", help="TREC qrels file (omit with --scores/--example)")
    p.add_argument("runs", nargs="*", metavar="RUN", help="TREC run files (every replicate)")
    p.add_argument("--example", action="store_true",
                   help="the bundled TREC CAsT 2021 runs (RR), each with 5 simulated seeds")
    p.add_argument("--scores", metavar="FILE.csv",
                   help="per-query score matrix CSV (one column per run)")
    p.add_argument("--replicates", action="append", metavar="SYSTEM=RUN,RUN,...",
                   help="the runs of one system, repeatable (two systems or more)")
    p.add_argument("-m", "--measure", default="RR", help="measure (default RR)")
    add_conventions(p)
    p.add_argument("--method", choices=REPLICATE_METHODS, default="bootstrap",
                   help="two-stage studentised bootstrap (default), t (ANOVA components, "
                        "Satterthwaite df) or mixed (statsmodels MixedLM; slow)")
    p.add_argument("--replicate-draws", choices=REPLICATE_DRAWS, default=REPLICATE_DRAW,
                   help="the bootstrap's replicate stage: parametric (normal run effects, "
                        "a t reference on R-1 df; default, holds its level with 3-5 runs) or "
                        "resample (runs drawn with replacement)")
    p.add_argument("--correction", choices=CORRECTION_NAMES, default=defaults.CORRECTION,
                   help="correction across the pairs of systems (default single-step: max-T "
                        "over the bootstrap, simultaneous intervals; Holm with --method t)")
    p.add_argument("--alternative", choices=("two-sided", "greater", "less"),
                   default="two-sided", help="sidedness (default two-sided)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (0.05)")
    p.add_argument("--confidence-level", type=float, default=0.95, help="(0.95)")
    p.add_argument("--n-resamples", type=int, default=10000, metavar="B",
                   help="bootstrap resamples (10000)")
    p.add_argument("--missing", choices=("raise", "drop"), default="raise",
                   help="a query some run lacks: error (default) or drop it")
    p.add_argument("--seed", type=int, default=None,
                   help="random seed (default: fresh entropy; the seed used is reported)")
    p.add_argument("--methods", action="store_true",
                   help="print the methods paragraph of the results (.methods(); Pandoc [@key] "
                        "citations) instead of the results")

def _mapping(specs):
    out = {}
    for spec in specs or ():
        if "=" not in spec:
            raise ValueError(f"--replicates {spec!r}: write SYSTEM=RUN,RUN,...")
        name, runs = spec.split("=", 1)
        out[name] = [r for r in runs.split(",") if r]
    return out


def _inputs(args, gen):
    from .. import datasets
    from ..io.trec import read_score_matrix
    from ..metrics.evaluation import evaluate
    from ..stats.replicates import simulate_replicates

    if args.example:
        if args.scores or args.qrels or args.runs or args.replicates:
            raise ValueError("--example takes no other input")
        data = datasets.cast2021()
        ev = evaluate(data.qrels, list(data.runs), [args.measure])
        frame = simulate_replicates(ev, measure=ev.measure_names[0], n_replicates=5, rng=gen)
        print("# example: the five CAsT 2021 baseline runs, 5 simulated seeds each\n"
              "# (mrrstats.simulate_replicates, seed_std 0.2, query_std 0.5)")
        return frame, frame.attrs["replicates"]
    rep = _mapping(args.replicates)
    if len(rep) < 2:
        raise ValueError("give --replicates SYSTEM=RUN,RUN,... for two systems or more")
    if args.scores:
        if args.qrels or args.runs:
            raise ValueError("give either QRELS RUN... or --scores FILE, not both")
        return read_score_matrix(args.scores), rep
    if not args.qrels or len(args.runs) < 2:
        raise ValueError("need QRELS and the RUN files (or --scores FILE, --example)")
    ev = evaluate(args.qrels, list(args.runs), [args.measure], ties=args.ties, rel=args.rel,
                  queries=args.queries)
    frame = ev.scores(ev.measure_names[0])
    frame.attrs["measure"] = ev.measure_names[0]
    return frame, rep


def run(args) -> int:
    from ..formatting import fixed, interval_cell, letters, pvalue_text, text_table, wrap
    from ..stats.replicates import replicate_tests
    from ..validation import rng_iv

    gen, seed = rng_iv(args.seed)
    frame, rep = _inputs(args, gen)
    res = replicate_tests(frame, rep, method=args.method, alternative=args.alternative,
                          correction=args.correction, alpha=args.alpha,
                          confidence_level=args.confidence_level,
                          n_resamples=args.n_resamples,
                          replicate_draws=args.replicate_draws, missing=args.missing,
                          rng=gen)
    if args.methods:
        print(dataclasses.replace(res, seed=seed).methods().text)
        return 0
    print("\n".join(wrap(
        f"{res.measure}: {len(res.systems)} systems, {res.n_queries} queries; method "
        f"{res.method}"
        f"{f' ({res.replicate_draws} replicate draws)' if res.replicate_draws else ''}, "
        f"correction {res.correction}, alpha {res.alpha:g}, seed {seed}", prefix="# ")))
    label = dict(zip(res.systems, letters(len(res.systems)), strict=True))
    print(text_table(["", "system"], [[label[s], s] for s in res.systems], align="ll"))
    rows = [[f"{label[r.a]} - {label[r.b]}", fixed(r.difference),
             interval_cell(r.ci_low, r.ci_high), pvalue_text(r.pvalue, res.n_resamples),
             pvalue_text(r.pvalue_adjusted, res.n_resamples), f"{r.share_replicates:.0%}"]
            for r in res.to_frame().itertuples(index=False)]
    print(text_table(["pair", "a - b", "interval", "p", "p adj", "seeds"], rows))
    print("# seeds: share of the variance of the difference that comes from the replicates")
    comp = res.components
    for s, c in comp.iterrows():
        print(f"# {s}: {int(c.n_replicates)} runs, sd of run means {fixed(c.std_between_runs)}, "
              f"seed variance {fixed(c.seed_variance, 6)}")
    return 0
