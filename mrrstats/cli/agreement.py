"""``mrrstats agreement``: do RR, AP, nDCG, ... rank the systems the same way?

Two inputs:

* ``mrrstats agreement QRELS RUN [RUN ...] -m RR -m AP -m nDCG@10`` evaluates the
  runs (trec_eval definitions) and compares the measures;
* ``mrrstats agreement --scores adhoc7_rr.csv adhoc7_ap.csv adhoc7_p10.csv``
  compares per-topic score matrices of the same systems and topics, one file per
  measure; a measure is named after the last ``_``-separated part of its file
  name (``rr``, ``ap``, ``p10``) unless ``--names`` gives the names.

Prints Kendall's tau-b, tau_AP and Spearman's rho between the system rankings
(by mean score), the number of system pairs that swap, and each measure's
discriminative power.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING

from .. import defaults
from ..stats.registry import TEST_NAMES
from .common import add_conventions

if TYPE_CHECKING:  # pandas is imported when the command runs
    import pandas as pd

HELP = "agreement between measures: tau, tau_AP, rho, swaps, discriminative power"

def add_arguments(parser) -> None:
    parser.add_argument("inputs", nargs="*", metavar="QRELS RUN",
                        help="qrels file followed by one or more TREC run files")
    parser.add_argument("--example", action="store_true",
                        help="use the bundled TREC CAsT 2021 qrels and five baseline runs")
    parser.add_argument("-m", "--measure", action="append", dest="measures", default=None,
                        metavar="MEASURE",
                        help="measure to compare (repeat; at least two), e.g. -m RR -m AP "
                             "-m nDCG@10; default RR, AP, nDCG, P@10")
    parser.add_argument("--scores", nargs="+", metavar="CSV",
                        help="per-topic score matrix CSVs of the same systems and topics, "
                             "one per measure")
    parser.add_argument("--names", nargs="+", metavar="NAME",
                        help="measure names for the --scores files (default: the last "
                             "'_' part of each file name)")
    parser.add_argument("--tau-ap-ties", choices=("agreement", "accuracy", "raise"),
                        default="agreement",
                        help="tie handling of tau_AP (default: agreement, Urbano & "
                             "Marrero's tau_AP,b)")
    add_conventions(parser)
    parser.add_argument("--test", choices=TEST_NAMES, default=defaults.TEST,
                        help="paired test for discriminative power (default: randomization)")
    parser.add_argument("--correction", choices=("none", "holm", "bonferroni", "bh"),
                        default="none",
                        help="multiple-comparison correction for discriminative power "
                             "(default: none, as in Sakai 2006)")
    parser.add_argument("--alpha", type=float, default=defaults.ALPHA,
                        help=f"significance level (default {defaults.ALPHA})")
    parser.add_argument("--n-resamples", type=int, default=defaults.N_RESAMPLES,
                        help=f"resamples of resampling tests (default {defaults.N_RESAMPLES})")
    parser.add_argument("--workers", type=int, default=defaults.WORKERS,
                        help="threads of the resampling engine (default -1: all cores; the "
                             "numbers do not depend on it)")
    parser.add_argument("--seed", type=int, default=None,
                        help="random seed (default: fresh; the seed used is printed)")
    parser.add_argument("--no-power", action="store_true",
                        help="skip the discriminative power (no significance tests)")
    parser.add_argument("--format", choices=("table", "json"), default="table",
                        help="output format (default: table)")


def _measure_name_from_path(path: str) -> str:
    stem = Path(path).name
    for suffix in (".gz", ".csv", ".tsv", ".txt"):
        if stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
    return stem.rsplit("_", 1)[-1]


def _load_scores(args):
    from ..io.trec import read_score_matrix

    if args.inputs:
        raise ValueError("give either QRELS RUN ... or --scores, not both")
    if args.measures:
        raise ValueError("-m/--measure applies to QRELS RUN input; with --scores each file "
                         "is one measure")
    if args.names is not None and len(args.names) != len(args.scores):
        raise ValueError(f"--names gives {len(args.names)} names for {len(args.scores)} "
                         "--scores files")
    names = args.names or [_measure_name_from_path(p) for p in args.scores]
    if len(set(names)) != len(names):
        raise ValueError(f"measure names {names} are not unique; name them with --names")
    if len(names) < 2:
        raise ValueError("--scores needs at least two files (one per measure)")
    return {n: read_score_matrix(p) for n, p in zip(names, args.scores, strict=True)}


def _evaluate(args):
    from ..metrics.evaluation import evaluate

    if args.names is not None:
        raise ValueError("--names applies to --scores input; name measures with -m")
    if len(args.inputs) < 3:
        raise ValueError("give a qrels file and at least two run files (or use --scores)")
    measures = args.measures or ["RR", "AP", "nDCG", "P@10"]
    if len(measures) < 2:
        raise ValueError("give at least two measures (-m RR -m AP ...)")
    qrels, runs = args.inputs[0], args.inputs[1:]
    return evaluate(qrels, runs, measures, ties=args.ties, rel=args.rel, queries=args.queries)


def _clean(value):
    """JSON-safe: NaN and inf become null, numpy scalars become Python ones."""
    import numpy as np

    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (float, np.floating)):
        return None if not math.isfinite(float(value)) else float(value)
    return value


def _matrix_dict(matrix: pd.DataFrame) -> dict:
    return {a: {b: matrix.loc[a, b] for b in matrix.columns} for a in matrix.index}


def run(args) -> int:
    import pandas as pd

    from ..agreement.decisions import discriminative_power_table
    from ..agreement.measures import agreement_matrix, aligned_score_frames, ranking_agreement
    from ..datasets import cast2021

    if args.example:
        if args.scores or args.inputs:
            raise ValueError("give either --example or QRELS RUN... / --scores, not both")
        data = cast2021()
        args.inputs = [str(data.qrels)] + [str(r) for r in data.runs]
        scores = _evaluate(args)
    elif args.scores:
        scores = _load_scores(args)
    elif args.inputs:
        scores = _evaluate(args)
    else:
        raise ValueError("give QRELS RUN [RUN ...] or --scores CSV [CSV ...]")
    if not 0 < args.alpha < 1:
        raise ValueError(f"--alpha must be in (0, 1), got {args.alpha}")
    if args.n_resamples < 1:
        raise ValueError(f"--n-resamples must be positive, got {args.n_resamples}")
    frames = aligned_score_frames(scores)
    measures = list(frames)
    first = frames[measures[0]]
    agree = ranking_agreement(frames, ties=args.tau_ap_ties)
    mats = {v: agreement_matrix(agree, v) for v in ("tau", "tau_pvalue", "tau_ap",
                                                    "tau_ap_symmetric", "rho", "n_swaps")}
    power = None
    if not args.no_power:
        correction = None if args.correction == "none" else args.correction
        power = discriminative_power_table(frames, test=args.test, correction=correction,
                                           alpha=args.alpha, n_resamples=args.n_resamples,
                                           workers=args.workers, rng=args.seed)
    n_systems, n_queries = first.shape[1], first.shape[0]
    n_pairs = n_systems * (n_systems - 1) // 2
    if args.format == "json":
        out = {
            "n_systems": n_systems, "n_queries": n_queries, "n_pairs": n_pairs,
            "measures": measures, "systems": [str(s) for s in first.columns],
            "tau_ap_ties": args.tau_ap_ties,
            "tau": _matrix_dict(mats["tau"]), "tau_pvalue": _matrix_dict(mats["tau_pvalue"]),
            "tau_ap": _matrix_dict(mats["tau_ap"]),
            "tau_ap_symmetric": _matrix_dict(mats["tau_ap_symmetric"]),
            "rho": _matrix_dict(mats["rho"]), "n_swaps": _matrix_dict(mats["n_swaps"]),
            "agreement": agree.to_dict(orient="records"),
            "discriminative_power": (None if power is None
                                     else power.reset_index().to_dict(orient="records")),
        }
        print(json.dumps(_clean(out), indent=2))
        return 0
    from ..formatting import frame_text, wrap

    lines = [f"{n_systems} systems, {n_queries} queries, {n_pairs} system pairs; "
             "systems ranked by mean score", ""]

    def block(title, matrix, fmt):
        m = matrix.rename_axis(index="", columns=None)
        body = frame_text(m, formats={c: (lambda v: format(v, fmt)) for c in m.columns})
        lines.extend([*wrap(title), body, ""])

    block("Kendall's tau-b", mats["tau"], ".3f")
    block(f"tau_AP (rows: truth, columns: evaluated ranking; ties={args.tau_ap_ties})",
          mats["tau_ap"], ".3f")
    block("Spearman's rho", mats["rho"], ".3f")
    block(f"Swapped system pairs (of {n_pairs})", mats["n_swaps"].astype(int), "d")
    if power is not None:
        p = power.iloc[0]
        setting = (f"test={p.test}, two-sided, correction={p.correction}, alpha={args.alpha}"
                   + (f", B={p.n_resamples}" if p.n_resamples is not None
                      and not pd.isna(p.n_resamples) else "") + f", seed={p.seed}")
        table = power[["n_significant", "n_pairs", "discriminative_power",
                       "min_significant_difference"]].rename(columns={
                           "discriminative_power": "power",
                           "min_significant_difference": "min_sig_diff"})
        lines += wrap(f"Discriminative power ({setting})")
        lines.append(frame_text(table.rename_axis(index="")))
    print("\n".join(lines).rstrip())
    return 0
