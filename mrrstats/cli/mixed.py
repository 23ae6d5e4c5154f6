"""``mrrstats mixed``: a linear mixed model with random query effects, against the ANOVA.

``mrrstats mixed QRELS RUN [RUN ...] -m RR`` (or ``--scores FILE.csv``, or
``--example``) fits :math:`y_{qs} = \\mu_s + u_q + \\varepsilon_{qs}` by REML
(statsmodels' ``MixedLM``) and prints each system's effect with its Wald
interval, the variance components and every pairwise difference next to the
two-way ANOVA's (its standard error :math:`\\sqrt{2 V_E/n}`, its t interval and
Tukey's HSD p-value): on a complete table with query variance above 0 the two
give the same differences and standard errors. ``--df satterthwaite`` gives the
mixed model's intervals and tests t distributions with Satterthwaite's degrees of freedom
(R's lmerTest, ``ddf = "Satterthwaite"``) instead of the Wald z.
"""

from __future__ import annotations

from .. import defaults
from ..options import MIXED_DF_METHODS
from .common import add_matrix_inputs, matrix_from_args

HELP = "linear mixed model (random query effects): system effects with intervals, vs ANOVA"


def add_arguments(p) -> None:
    add_matrix_inputs(p)
    p.add_argument("--confidence-level", type=float, default=defaults.CONFIDENCE_LEVEL,
                   help="level of the Wald (mixed) and t (ANOVA) intervals (0.95)")
    p.add_argument("--missing", choices=("drop", "raise"), default="drop",
                   help="a query some system lacks: drop it (default; the ANOVA needs a "
                        "complete table) or error")
    p.add_argument("--df", choices=MIXED_DF_METHODS, default="wald", dest="df_method",
                   help="degrees of freedom of the mixed model's intervals and tests: wald "
                        "(normal, the default) or satterthwaite (t, as R's lmerTest)")
    p.add_argument("--methods", action="store_true",
                   help="print the methods paragraph of the results (.methods(); Pandoc [@key] "
                        "citations) instead of the results")


def run(args) -> int:
    from ..stats.mixed import mixed_model, mixed_vs_anova

    frame = matrix_from_args(args, missing=args.missing)
    measure = frame.attrs["measure"]
    cl = args.confidence_level
    res = mixed_model(frame, confidence_level=cl, missing=args.missing,
                      df_method=args.df_method)
    if args.methods:
        print(res.methods().text)
        return 0
    both = mixed_vs_anova(frame, confidence_level=cl, missing=args.missing)
    a = both.attrs
    from ..formatting import fixed, interval_cell, letters, pvalue_text, text_table, wrap

    sat = res.df_method == "satterthwaite"
    if sat:  # the mixed model's columns: t with Satterthwaite's df (lmerTest's contest1D)
        diffs = res.differences().rename(columns={
            "standard_error": "se_mixed", "ci_low": "low_mixed", "ci_high": "high_mixed",
            "pvalue": "pvalue_mixed"})[["a", "b", "se_mixed", "low_mixed", "high_mixed",
                                        "pvalue_mixed"]]
        both = both.drop(columns=["se_mixed", "low_mixed", "high_mixed", "pvalue_mixed"]).merge(
            diffs, on=["a", "b"], how="left", validate="one_to_one")
    kind = "Satterthwaite t" if sat else "Wald"
    label = dict(zip(res.effects.index, letters(len(res.effects)), strict=True))
    lines = wrap(f"{measure}: {len(res.effects)} systems, {res.n_queries} queries; REML fit "
                 f"({'converged' if res.converged else 'NOT converged'}); {cl:g} {kind} "
                 "intervals", prefix="# ")
    lines.append(text_table(
        ["", "system", "estimate", "standard_error", f"{cl:g} interval"] + (["df"] if sat else []),
        [[label[s], s, fixed(r.estimate), fixed(r.standard_error),
          interval_cell(r.ci_low, r.ci_high)] + ([f"{r.df:.2f}"] if sat else [])
         for s, r in res.effects.iterrows()],
        align="llrrr" + ("r" if sat else "")))
    lines += wrap(f"query variance sigma_u^2 = {res.query_variance:.6f}, residual sigma^2 = "
                  f"{res.residual_variance:.6f}; two-way ANOVA V_E = "
                  f"{a['anova_residual_variance']:.6f} ({a['df_anova']} df)")
    test = "Satterthwaite t" if sat else "Wald z"
    lines += wrap(f"pairwise differences a - b: mixed model ({test}, not adjusted) | two-way "
                  "ANOVA (se = sqrt(2 V_E / n), t interval, Tukey HSD p)", prefix="# ")
    lines.append(text_table(
        ["pair", "difference", "se mixed", "mixed interval", "p mixed", "se anova",
         "anova interval", "p tukey"],
        [[f"{label[r.a]} - {label[r.b]}", fixed(r.difference), fixed(r.se_mixed),
          interval_cell(r.low_mixed, r.high_mixed), pvalue_text(r.pvalue_mixed),
          fixed(r.se_anova), interval_cell(r.low_anova, r.high_anova),
          pvalue_text(r.pvalue_tukey)] for r in both.itertuples(index=False)]))
    print("\n".join(lines))
    return 0
