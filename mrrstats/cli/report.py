"""``mrrstats report``: a reproducible report folder (tables, per-query data, notebook, HTML).

Three kinds of input:

* ``mrrstats report QRELS RUN [RUN ...] --out DIR``: evaluate the runs and
  compare them;
* ``mrrstats report --example [--out reports/cast2021]``: the bundled TREC
  CAsT 2021 organiser baselines, with RR, nDCG@10 and AP, BM25 as the
  control system, seed 2021 and an equivalence margin of 0.05 unless told otherwise;
* ``mrrstats report --scores [NAME=]FILE.csv [...] --out DIR``: per-query score
  matrices (one per measure; no random-ranking baseline, which needs candidate
  counts).

``--collection NAME=FILE.csv`` (a per-query score matrix of the first measure) or
``--collection NAME=QRELS,RUN,RUN...`` (repeatable, two or more) adds the section "Across
collections" (critical-difference diagram, Friedman's test, meta-analysis);
``--clusters-as-collections`` takes the clusters of queries (CAsT's conversations) as the
collections, e.g. ``mrrstats report --example --clusters-as-collections --out DIR``.

See :func:`mrrstats.make_report` for what the folder contains.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from .. import defaults
from ..stats.registry import CORRECTION_NAMES, TEST_NAMES
from .common import add_conventions, add_run_inputs, add_test_options, label_spec

HELP = ("Write a reproducible report folder: comparison, control-system, random-baseline and "
        "agreement tables (Markdown, LaTeX), per-query CSV, settings.json, executed notebook "
        "and HTML.")

EXAMPLE_OUT = "reports/cast2021"
EXAMPLE_MEASURES = ("RR", "nDCG@10", "AP")
EXAMPLE_CONTROL = "org_manual_bm25.run"
EXAMPLE_SEED = defaults.EXAMPLE_SEED
EXAMPLE_TITLE = "TREC CAsT 2021 organiser baselines"
#: The example's equivalence margin (make_report has none by default): differences of
#: MRR, nDCG@10 or AP below 0.05 are commonly read as negligible on a 158-turn track.
EXAMPLE_MARGIN = 0.05


def add_arguments(p) -> None:
    add_run_inputs(p, runs_help="TREC run files (two or more)",
                   example_help="use the bundled TREC CAsT 2021 qrels and five baseline runs "
                                f"(default --out {EXAMPLE_OUT}, -m RR -m nDCG@10 -m AP, "
                                f"--control {EXAMPLE_CONTROL}, --seed {EXAMPLE_SEED}, "
                                f"--margin {EXAMPLE_MARGIN:g})")
    p.add_argument("--scores", nargs="+", metavar="[NAME=]FILE.csv",
                   help="per-query score matrices (header of system names, one row per "
                        "query) instead of QRELS RUN...; the measure name is NAME or the "
                        "file name up to its first dot")
    p.add_argument("--out", metavar="DIR", default=None,
                   help=f"output folder (required, except with --example: {EXAMPLE_OUT})")
    p.add_argument("-m", "--measure", action="append", dest="measures", metavar="MEASURE",
                   help="measure to compare, repeatable (default RR and nDCG@10; with "
                        "--scores: every matrix)")
    p.add_argument("--control", metavar="RUN", default=None,
                   help="the control system: compare every system with this one (a run "
                        "name, or one of the RUN paths given)")
    # the name of 0.1, kept for one release as a hidden alias
    p.add_argument("--baseline", dest="control", default=None, help=argparse.SUPPRESS)
    add_test_options(p, tests=TEST_NAMES, corrections=CORRECTION_NAMES)
    p.add_argument("--confidence-level", type=float, default=defaults.CONFIDENCE_LEVEL,
                   help="confidence level of the intervals (0.95)")
    p.add_argument("--random", choices=("retrieved", "judged"), default=defaults.RANDOM,
                   help="random ranker of the baseline table: a random permutation of each "
                        "retrieved list (default) or a random ranking of the judged pool")
    add_conventions(p)
    p.add_argument("--missing", choices=("raise", "drop"), default=defaults.MISSING,
                   help="a query some system lacks: error (default) or drop it")
    p.add_argument("--title", default=None, help="title of the notebook and HTML page")
    p.add_argument("--show-code", action="store_true",
                   help="keep the notebook's code cells in report.html (hidden by default)")
    p.add_argument("--no-notebook", action="store_true",
                   help="write only tables/, per_query.csv and settings.json (no kernel)")
    p.add_argument("--timeout", type=int, default=600,
                   help="seconds allowed per notebook cell (default 600)")
    p.add_argument("--quiet", action="store_true",
                   help="no progress on stderr (default: progress only on an interactive "
                        "terminal outside CI)")
    p.add_argument("--clusters", choices=("auto", "none"), default="auto",
                   help="clustered-intervals section: auto (default) finds CAsT turn ids "
                        "<conversation>_<turn>; none leaves it out")
    p.add_argument("--judge", metavar="QRELS", default=None,
                   help="an LLM judge's qrels of every query (QRELS being people's labels of a "
                        "random subset): adds the PPI and judge-agreement section")
    p.add_argument("--no-multiverse", action="store_true",
                   help="leave out the convention multiverse (QRELS RUN... input)")
    p.add_argument("--margin", type=float, default=None, metavar="M",
                   help="equivalence margin of the estimation section: TOST of -M < mean "
                        "difference < M for every pair (default: none, no equivalence test; "
                        "there is no default margin, since what is negligible depends on the "
                        "measure and the use)")
    p.add_argument("--collection", action="append", default=None,
                   metavar="NAME=FILE.csv|NAME=QRELS,RUN,RUN",
                   help="one of several collections with the same systems, repeatable (two or "
                        "more): a per-query score matrix of the first measure, or a qrels file "
                        "and run files (comma-separated); adds the section 'Across "
                        "collections' (critical-difference diagram, Friedman's test, "
                        "meta-analysis)")
    p.add_argument("--clusters-as-collections", action="store_true",
                   help="the section 'Across collections' with the clusters of queries "
                        "(--clusters; CAsT's conversations) as the collections")
    p.add_argument("--segment-by", metavar="SPEC", default=None,
                   help="segments section: prefix:SEP (the query id up to SEP) or a TSV file "
                        "of query<TAB>segment lines; per-segment means and tests, corrected "
                        "across segments (default: no segments section)")


def _control_name(control, runs):
    """A RUN path given as --control becomes that run's name."""
    from ..io.trec import run_name

    if control is None:
        return None
    for r in runs:
        if str(r) == control or Path(str(r)) == Path(control):
            return run_name(r)
    return control


def _collections(specs):
    """``--collection`` values as make_report's ``collections``."""
    from ..io.trec import read_score_matrix

    if len(specs) < 2:
        raise ValueError("--collection: give two collections or more")
    out = {}
    for spec in specs:
        name, sep, value = spec.partition("=")
        if not sep or not name or not value:
            raise ValueError(f"--collection {spec!r}: write NAME=FILE.csv or "
                             "NAME=QRELS,RUN,RUN")
        if name in out:
            raise ValueError(f"--collection: the name {name!r} is given twice")
        parts = value.split(",")
        if len(parts) == 1:
            out[name] = read_score_matrix(parts[0])
        elif len(parts) >= 3:
            out[name] = (parts[0], parts[1:])
        else:
            raise ValueError(f"--collection {spec!r}: a qrels file needs two run files or "
                             "more (NAME=QRELS,RUN,RUN)")
    return out


def run(args) -> int:
    from ..datasets import cast2021
    from ..report import make_report

    kwargs = dict(test=args.test, correction=args.correction, alpha=args.alpha,
                  alternative=args.alternative, n_resamples=args.n_resamples,
                  confidence_level=args.confidence_level, random=args.random,
                  ties=args.ties, rel=args.rel, queries=args.queries, missing=args.missing,
                  rng=args.seed, title=args.title, notebook=not args.no_notebook,
                  show_code=args.show_code,
                  timeout=args.timeout, progress=False if args.quiet else None,
                  clusters=None if args.clusters == "none" else "auto",
                  multiverse=not args.no_multiverse,
                  measures=args.measures, control=args.control,
                  equivalence_margin=args.margin, judge_qrels=args.judge)
    if args.segment_by:
        kwargs["segment_by"] = label_spec(args.segment_by, "--segment-by")
    if args.collection and args.clusters_as_collections:
        raise ValueError("give either --collection NAME=... or --clusters-as-collections, "
                         "not both")
    if args.collection:
        kwargs["collections"] = _collections(args.collection)
    elif args.clusters_as_collections:
        kwargs["collections"] = "clusters"
    if args.example:
        if args.qrels or args.runs or args.scores:
            raise ValueError("give either --example or QRELS RUN... / --scores, not both")

        data = cast2021()
        kwargs["measures"] = args.measures or list(EXAMPLE_MEASURES)
        kwargs["control"] = _control_name(args.control, data.runs) or EXAMPLE_CONTROL
        kwargs["rng"] = EXAMPLE_SEED if args.seed is None else args.seed
        kwargs["title"] = args.title or EXAMPLE_TITLE
        kwargs["equivalence_margin"] = EXAMPLE_MARGIN if args.margin is None else args.margin
        out = args.out or EXAMPLE_OUT
        res = make_report(data.qrels, data.runs, out=out, **kwargs)
    elif args.scores:
        if args.qrels or args.runs:
            raise ValueError("give either QRELS RUN... or --scores FILE..., not both")
        if not args.out:
            raise ValueError("--out DIR is required")
        res = make_report(scores=list(args.scores), out=args.out, **kwargs)
    else:
        if not args.qrels or len(args.runs) < 2:
            raise ValueError("need QRELS and at least two RUN files (or --scores FILE.csv, "
                             "or --example)")
        if not args.out:
            raise ValueError("--out DIR is required")
        kwargs["control"] = _control_name(args.control, args.runs)
        res = make_report(args.qrels, list(args.runs), out=args.out, **kwargs)
    print(res.path)
    for name in res.files:
        print(f"  {name}")
    if "rng" in kwargs and kwargs["rng"] is not None:
        print(f"seed: {kwargs['rng']}")
    return 0
