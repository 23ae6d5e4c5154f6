"""Arguments shared by the subcommands, so that every command spells them alike."""

from __future__ import annotations

from pathlib import Path

from .. import defaults
from ..options import QUERIES, TIES
from ..stats.registry import CORRECTION_NAMES

EXAMPLE_HELP = "use the bundled TREC CAsT 2021 qrels and five baseline runs"


def add_run_inputs(p, *, runs_help: str = "TREC run files (plain or .gz)",
                   example_help: str = EXAMPLE_HELP) -> None:
    """``QRELS RUN [RUN ...]`` and ``--example``."""
    p.add_argument("qrels", nargs="?", help="TREC qrels file (plain or .gz)")
    p.add_argument("runs", nargs="*", metavar="RUN", help=runs_help)
    p.add_argument("--example", action="store_true", help=example_help)


def add_matrix_inputs(p) -> None:
    """``QRELS RUN RUN [...]``, ``--example``, ``--scores FILE.csv`` and ``-m``: one
    per-query score matrix from runs or from a CSV (see :func:`matrix_from_args`)."""
    p.add_argument("qrels", nargs="?", help="TREC qrels file (omit with --scores/--example)")
    p.add_argument("runs", nargs="*", metavar="RUN", help="TREC run files (two or more)")
    p.add_argument("--example", action="store_true", help=EXAMPLE_HELP)
    p.add_argument("--scores", metavar="FILE.csv",
                   help="per-query score matrix CSV instead of QRELS RUN...")
    p.add_argument("-m", "--measure", default="RR", help="measure (default RR)")
    add_conventions(p)


def matrix_from_args(args, **read_options):
    """The per-query score matrix of :func:`add_matrix_inputs`' arguments, its
    ``attrs["measure"]`` set (``read_options`` go to ``read_score_matrix``)."""
    from .. import datasets
    from ..io.trec import read_score_matrix
    from ..metrics.evaluation import evaluate

    if args.scores:
        if args.qrels or args.runs or args.example:
            raise ValueError("give either QRELS RUN..., --example or --scores FILE, not two")
        frame = read_score_matrix(args.scores, **read_options)
        frame.attrs.setdefault("measure", args.measure)
        return frame
    if args.example:
        if args.qrels or args.runs:
            raise ValueError("give either --example or QRELS RUN..., not both")
        data = datasets.cast2021()
        qrels, runs = data.qrels, list(data.runs)
    else:
        if not args.qrels or len(args.runs) < 2:
            raise ValueError("need QRELS and at least two RUN files (or --scores, --example)")
        qrels, runs = args.qrels, list(args.runs)
    ev = evaluate(qrels, runs, [args.measure], ties=args.ties, rel=args.rel,
                  queries=args.queries)
    frame = ev.scores(ev.measure_names[0])
    frame.attrs["measure"] = ev.measure_names[0]
    return frame


def add_conventions(p, *, ties_default=None, queries: bool = True) -> None:
    """``--ties``, ``--rel`` and (optionally) ``--queries`` for QRELS RUN input."""
    p.add_argument("--ties", choices=TIES, default=ties_default,
                   help="tie convention for QRELS RUN input (default trec_eval; rank under "
                        "--queries msmarco)")
    p.add_argument("--rel", type=int, default=defaults.REL,
                   help="minimum grade that counts as relevant (trec_eval -l; default 1)")
    if queries:
        p.add_argument("--queries", choices=QUERIES, default=defaults.QUERIES,
                       help="which queries count: both (trec_eval default), qrels "
                            "(trec_eval -c), msmarco (MS MARCO script convention)")


def add_test_options(p, *, tests, corrections=CORRECTION_NAMES,
                     correction_default: str = defaults.CORRECTION,
                     n_resamples_default: int = defaults.N_RESAMPLES,
                     alternative: bool = True) -> None:
    """``--test``, ``--correction``, ``--alternative``, ``--alpha``, ``--n-resamples``,
    ``--seed``."""
    p.add_argument("--test", choices=tests, default=defaults.TEST,
                   help="significance test (default randomization: paired sign-flip)")
    p.add_argument("--correction", choices=corrections, default=correction_default,
                   help=f"multiple-comparison adjustment across pairs (default "
                        f"{correction_default}; tukey/maxt/anova-hsd/dunnett adjust by "
                        "construction)")
    if alternative:
        p.add_argument("--alternative", choices=("two-sided", "greater", "less"),
                       default=defaults.ALTERNATIVE, help="sidedness (default two-sided)")
    p.add_argument("--alpha", type=float, default=defaults.ALPHA,
                   help="significance level (0.05)")
    p.add_argument("--n-resamples", type=int, default=n_resamples_default, metavar="B",
                   help="resamples for randomization/bootstrap tests and CIs "
                        f"(default {n_resamples_default})")
    p.add_argument("--seed", type=int, default=None,
                   help="random seed (default: fresh entropy; the seed used is reported)")


def add_wide(p, what: str = "every column") -> None:
    """``--wide``: the whole table (wider than 100 columns); default: what fits 100."""
    p.add_argument("--wide", action="store_true",
                   help=f"print {what} (wider than 100 columns); default: fit 100 columns")


def apply_example_seed(args) -> None:
    """``--example`` without ``--seed``: the fixed :data:`mrrstats.defaults.EXAMPLE_SEED`,
    so that an example prints the same numbers at every run (the command prints the
    seed it used); an explicit ``--seed`` wins. Commands without ``--seed`` are left alone."""
    if getattr(args, "example", False) and getattr(args, "seed", False) is None:
        args.seed = defaults.EXAMPLE_SEED


def label_spec(spec, option):
    """Query labels from ``prefix:SEP`` or a two-column TSV file (query, label).

    Returns a function of the query id for ``prefix:SEP`` (the id up to the
    first ``SEP``; its ``description`` attribute says so) or the
    ``{query: label}`` of the file; ``option`` names the flag in errors.
    """
    if spec.startswith("prefix:"):
        sep = spec[len("prefix:"):]
        if not sep:
            raise ValueError(f"{option} prefix:SEP needs a separator, e.g. prefix:_")

        def prefix(q):
            return q.split(sep, 1)[0]

        prefix.description = f"the query id up to the first {sep!r} ({option} {spec})"
        return prefix
    from ..io.trec import read_text

    path = Path(spec)
    if not path.exists():
        raise ValueError(f"{option} {spec!r}: no such file (or use prefix:SEP)")
    out = {}
    text = read_text(path, f"{option} {spec}")  # names the file: not UTF-8, a folder
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.rstrip("\r\n").split("\t")
        if len(parts) != 2 or not parts[0] or not parts[1] or "\x00" in line:
            raise ValueError(f"{spec}:{i}: expected 'query<TAB>label', got {line.rstrip()[:80]!r}")
        out[parts[0]] = parts[1]
    if not out:
        raise ValueError(f"{option} {spec}: no 'query<TAB>label' lines (the file is empty)")
    return out


def labels_from_spec(spec, queries, option):
    """``{query: label}`` for ``queries`` from ``prefix:SEP`` or a TSV file (see
    :func:`label_spec`)."""
    labels = label_spec(spec, option)
    return {q: labels(q) for q in queries} if callable(labels) else labels


def frame_records(frame) -> list:
    """A frame as JSON-safe records (NaN and infinities as null, numpy scalars as Python's)."""
    from ..formatting import json_number

    return [{str(k): (json_number(v) if not isinstance(v, str) else v) for k, v in row.items()}
            for row in frame.to_dict(orient="records")]
