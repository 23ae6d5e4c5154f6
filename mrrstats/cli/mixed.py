"""``mrrstats mixed``: a linear mixed model with random query effects, against the ANOVA.

``mrrstats mixed QRELS RUN [RUN ...] -m RR`` (or ``--scores FILE.csv``, or
``--example``) fits :math:`y_{qs} = \\mu_s + u_q + \\varepsilon_{qs}` by REML
(statsmodels' ``MixedLM``) and prints each system's effect with its Wald
interval, the variance components and every pairwise difference next to the
two-way ANOVA's (its standard error :math:`\\sqrt{2 V_E/n}`, its t interval and
Tukey's HSD p-value): on a complete table with query variance above 0 the two
give the same differences and standard errors.
"""

from __future__ import annotations

from .. import datasets, defaults
from ..io.trec import read_score_matrix
from ..metrics.evaluation import evaluate
from ..stats.mixed import mixed_model, mixed_vs_anova
from .common import add_conventions

HELP = "linear mixed model (random query effects): system effects with intervals, vs ANOVA"


def add_arguments(p) -> None:
    p.add_argument("qrels", nargs="?", help="TREC qrels file (omit with --scores/--example)")
    p.add_argument("runs", nargs="*", metavar="RUN", help="TREC run files (two or more)")
    p.add_argument("--example", action="store_true",
                   help="use the bundled TREC CAsT 2021 qrels and five baseline runs")
    p.add_argument("--scores", metavar="FILE.csv",
                   help="per-query score matrix CSV instead of QRELS RUN...")
    p.add_argument("-m", "--measure", default="RR", help="measure (default RR)")
    add_conventions(p)
    p.add_argument("--confidence-level", type=float, default=defaults.CONFIDENCE_LEVEL,
                   help="level of the Wald (mixed) and t (ANOVA) intervals (0.95)")
    p.add_argument("--missing", choices=("drop", "raise"), default="drop",
                   help="a query some system lacks: drop it (default; the ANOVA needs a "
                        "complete table) or error")


def run(args) -> int:
    if args.scores:
        if args.qrels or args.runs or args.example:
            raise ValueError("give either QRELS RUN..., --example or --scores FILE, not two")
        frame = read_score_matrix(args.scores, missing=args.missing)
        measure = args.measure
    else:
        if args.example:
            if args.qrels or args.runs:
                raise ValueError("give either --example or QRELS RUN..., not both")
            data = datasets.cast2021()
            qrels, runs = data.qrels, list(data.runs)
        else:
            if not args.qrels or len(args.runs) < 2:
                raise ValueError("need QRELS and at least two RUN files (or --scores, "
                                 "--example)")
            qrels, runs = args.qrels, list(args.runs)
        ev = evaluate(qrels, runs, [args.measure], ties=args.ties, rel=args.rel,
                      queries=args.queries)
        measure = ev.measure_names[0]
        frame = ev.scores(measure)
    frame.attrs["measure"] = measure
    cl = args.confidence_level
    res = mixed_model(frame, confidence_level=cl, missing=args.missing)
    both = mixed_vs_anova(frame, confidence_level=cl, missing=args.missing)
    a = both.attrs
    fmt = lambda x: f"{x:.4f}"  # noqa: E731
    print(f"# {measure}: {len(res.effects)} systems, {res.n_queries} queries; REML fit "
          f"({'converged' if res.converged else 'NOT converged'}); {cl:g} Wald intervals")
    print(res.effects.to_string(float_format=fmt))
    print(f"query variance sigma_u^2 = {res.query_variance:.6f}, residual sigma^2 = "
          f"{res.residual_variance:.6f}; two-way ANOVA V_E = "
          f"{a['anova_residual_variance']:.6f} ({a['df_anova']} df)")
    print("# pairwise differences: mixed model (Wald z, not adjusted) | two-way ANOVA "
          "(se = sqrt(2 V_E / n), t interval, Tukey HSD p)")
    cols = ["a", "b", "difference", "se_mixed", "low_mixed", "high_mixed", "pvalue_mixed",
            "se_anova", "low_anova", "high_anova", "pvalue_tukey"]
    print(both[cols].to_string(index=False, float_format=fmt))
    return 0
