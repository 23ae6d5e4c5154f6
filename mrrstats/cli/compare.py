"""``mrrstats compare``: pairwise significance tests between systems, with correction."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from ..progress import progress_enabled, tracking
from ..stats.registry import CORRECTION_NAMES, TEST_NAMES
from .common import EXAMPLE_HELP, add_conventions, add_test_options, labels_from_spec
from .evaluate import resolve_inputs

HELP = ("Compare systems pairwise or against a control (t, Wilcoxon, sign, randomization, "
        "bootstrap, Tukey HSD, max-T, Dunnett) with multiple-comparison correction, "
        "simultaneous CIs, effect sizes, rank intervals and letter groups; clustered queries "
        "and segments.")


def add_arguments(p) -> None:
    p.add_argument("qrels", nargs="?", help="TREC qrels file (omit with --scores)")
    p.add_argument("runs", nargs="*", metavar="RUN", help="TREC run files (two or more)")
    p.add_argument("--example", action="store_true", help=EXAMPLE_HELP)
    p.add_argument("--scores", nargs="+", metavar="[NAME=]FILE.csv",
                   help="per-query score matrix CSVs (header of system names, one row per "
                        "query) instead of QRELS RUN...; the measure name is NAME, or the "
                        "-m given in the same position, or the file stem")
    p.add_argument("-m", "--measure", action="append", dest="measures", metavar="MEASURE",
                   help="measure, repeatable (RR, RR@10, AP, nDCG@10, P@10, ...; default RR)")
    add_test_options(p, tests=TEST_NAMES, corrections=CORRECTION_NAMES)
    p.add_argument("--confidence-level", type=float, default=0.95,
                   help="confidence level of the intervals (0.95)")
    p.add_argument("--missing", choices=("raise", "drop"), default="raise",
                   help="a query some system lacks: error (default) or drop it")
    add_conventions(p)
    p.add_argument("--format", choices=("table", "markdown", "latex", "json"), default="table",
                   help="output format (default table: one row per pair)")
    p.add_argument("--wide", action="store_true",
                   help="--format table: every column of every pair (one row per pair, "
                        "wider than 100 columns); default: a summary that fits 100 columns")
    p.add_argument("--methods", action="store_true",
                   help="print the methods paragraph (test, alternative, queries, B, seed, "
                        "correction, alpha, interval and its measured coverage; Pandoc "
                        "[@key] citations, \\citep with --format latex) instead of the table")
    p.add_argument("--progress", action="store_true",
                   help="show progress on stderr even when it is not a terminal (default: "
                        "only on an interactive terminal outside CI)")
    p.add_argument("--control", metavar="NAME", default=None,
                   help="compare every system with this one only (k-1 comparisons, corrected "
                        "over those: many-to-one single-step max-T by default); --test maxt: "
                        "many-to-one step-down max-T; --test dunnett: Dunnett's test")
    # the option's name before 0.2, kept one release
    p.add_argument("--baseline", dest="control", metavar="NAME", help=argparse.SUPPRESS)
    p.add_argument("--family", choices=("pairs", "measures"), default="pairs",
                   help="one correction per measure (pairs, default) or one over all "
                        "measures x pairs (measures)")
    p.add_argument("--clusters", metavar="SPEC", default=None,
                   help="query clusters: a TSV file 'query<TAB>cluster', or prefix:SEP "
                        "(the query id up to the first SEP, e.g. prefix:_ for CAsT turns "
                        "31_1, 31_2 -> conversation 31); randomization flips, bootstrap "
                        "tests draw whole clusters")
    p.add_argument("--segment-by", metavar="SPEC", default=None,
                   help="query segments (same forms as --clusters): per-segment means and "
                        "tests, corrected across segments")
    p.add_argument("--segment-correction", choices=CORRECTION_NAMES, default="holm",
                   help="correction across segments (default holm)")


def _score_frames(args):
    from ..io.trec import read_score_matrix

    names = list(args.measures or [])
    if names and len(names) != len(args.scores):
        raise ValueError(f"-m given {len(names)} times for {len(args.scores)} --scores files; "
                         "give one per file, or none and use NAME=FILE or file stems")
    frames = {}
    for i, spec in enumerate(args.scores):
        name = None
        path = spec
        if "=" in spec and not Path(spec).exists():
            name, path = spec.split("=", 1)
        if name is None:
            name = names[i] if names else Path(path).stem
        if name in frames:
            raise ValueError(f"measure name {name!r} given twice; use NAME=FILE to rename")
        frames[name] = read_score_matrix(path, missing="raise")
    return frames


def _merge(parts, seed):
    results = {}
    for part in parts:
        if part.systems != parts[0].systems:
            raise ValueError(f"measure {part.measures[0]!r} compares systems "
                             f"{list(part.systems)}, but {parts[0].measures[0]!r} compares "
                             f"{list(parts[0].systems)}")
        for m, r in part.results.items():
            results[m] = dataclasses.replace(r, seed=seed)
    return dataclasses.replace(parts[0], results=results, measures=tuple(results), seed=seed)


def run(args) -> int:
    from ..metrics.evaluation import evaluate
    from ..stats.compare import compare
    from ..validation import rng_iv

    progress = progress_enabled(True if args.progress else None)
    if args.example and args.scores:
        raise ValueError("give either --example or --scores FILE..., not both")
    if args.example:
        args.qrels, args.runs = resolve_inputs(args)
        args.example = False
    if args.scores:
        if args.qrels or args.runs:
            raise ValueError("give either QRELS RUN... or --scores FILE..., not both")
        scores = _score_frames(args)
    else:
        if not args.qrels or len(args.runs) < 2:
            raise ValueError("need QRELS and at least two RUN files (or --scores FILE.csv)")

        if progress:
            print(f"mrrstats compare: evaluating {len(args.runs)} runs ...", file=sys.stderr)
        scores = evaluate(args.qrels, args.runs, args.measures or ["RR"], ties=args.ties,
                          rel=args.rel, queries=args.queries)
    gen, seed = rng_iv(args.seed)
    if not isinstance(scores, dict):
        scores = {m: scores.scores(m) for m in scores.measure_names}
    queries = sorted({str(q) for f in scores.values() for q in f.index})
    extra = {"control": args.control}
    if args.clusters:
        extra["clusters"] = labels_from_spec(args.clusters, queries, "--clusters")
    if args.family == "measures" or args.segment_by:
        # one call: the family (or the segments) spans all measures
        if args.segment_by:
            extra["segment_by"] = labels_from_spec(args.segment_by, queries, "--segment-by")
        res = compare(scores, test=args.test, correction=args.correction, alpha=args.alpha,
                      n_resamples=args.n_resamples, confidence_level=args.confidence_level,
                      alternative=args.alternative, rng=gen, missing=args.missing,
                      family=args.family, segment_correction=args.segment_correction,
                      progress=progress, **extra)
        res = dataclasses.replace(res, seed=seed)
        return _write(res, args)
    parts = []
    # one bar counting the resamples of every measure (a terminal only, never in CI)
    with tracking(f"mrrstats compare: {args.test}, {len(scores)} measure(s)",
                  progress=progress):
        for name, frame in scores.items():
            # One Generator for all measures, consumed in order: the same numbers as
            # compare(dict_of_frames, rng=seed).
            parts.append(compare({name: frame}, test=args.test, correction=args.correction,
                                 alpha=args.alpha, n_resamples=args.n_resamples,
                                 confidence_level=args.confidence_level,
                                 alternative=args.alternative, rng=gen, missing=args.missing,
                                 progress=progress, **extra))
    return _write(_merge(parts, seed), args)


def _write(res, args) -> int:
    out = sys.stdout
    if args.methods:
        m = res.methods()
        out.write((m.latex if args.format == "latex" else m.text) + "\n")
    elif args.format == "json":
        out.write(res.to_json() + "\n")
    elif args.format == "markdown":
        out.write(res.to_markdown())
    elif args.format == "latex":
        out.write(res.to_latex())
    else:
        out.write(res.to_string(wide=args.wide))
    return 0
