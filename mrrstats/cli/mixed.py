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

from .. import defaults
from .common import add_matrix_inputs, matrix_from_args

HELP = "linear mixed model (random query effects): system effects with intervals, vs ANOVA"


def add_arguments(p) -> None:
    add_matrix_inputs(p)
    p.add_argument("--confidence-level", type=float, default=defaults.CONFIDENCE_LEVEL,
                   help="level of the Wald (mixed) and t (ANOVA) intervals (0.95)")
    p.add_argument("--missing", choices=("drop", "raise"), default="drop",
                   help="a query some system lacks: drop it (default; the ANOVA needs a "
                        "complete table) or error")


def run(args) -> int:
    from ..stats.mixed import mixed_model, mixed_vs_anova

    frame = matrix_from_args(args, missing=args.missing)
    measure = frame.attrs["measure"]
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
