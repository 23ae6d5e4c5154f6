"""``mrrstats judges``: how far an LLM judge agrees with people, on labels and conclusions.

``mrrstats judges --judge JUDGE_QRELS --human HUMAN_QRELS [RUN ...] -m RR`` prints the
confusion matrix by grade, Cohen's kappa (unweighted, linear, quadratic, binary at
``--rel``) and Krippendorff's alpha (nominal, ordinal, interval) over the pairs both
judged, and with runs, on the human-labelled queries: the agreement of the system
rankings (Kendall's tau, tau_AP), the pairs whose significance decision differs and
each system's mean shift (judge - human). ``--example`` uses the bundled CAsT 2021
runs with a simulated judge (:func:`mrrstats.datasets.cast2021_judged`).
"""

from __future__ import annotations

import json

from .. import defaults
from ..stats.registry import TEST_NAMES
from .common import frame_records

HELP = "agreement between a judge and people: kappa, alpha, rankings, decisions, shifts"


def add_arguments(p) -> None:
    p.add_argument("runs", nargs="*", metavar="RUN", help="TREC run files (optional)")
    p.add_argument("--judge", metavar="QRELS", help="the judge's qrels")
    p.add_argument("--human", metavar="QRELS", help="people's qrels")
    p.add_argument("--example", action="store_true",
                   help="the bundled CAsT 2021 runs with a simulated judge and a human subset")
    p.add_argument("-m", "--measure", action="append", dest="measures", metavar="MEASURE",
                   help="measure of the comparison of conclusions (repeat; default RR)")
    p.add_argument("--rel", type=int, default=defaults.REL,
                   help="minimum relevant grade (binary kappa, measures; default 1)")
    p.add_argument("--test", choices=TEST_NAMES, default=defaults.TEST,
                   help="paired test of the decisions (default randomization)")
    p.add_argument("--correction", choices=("holm", "bh", "bonferroni", "none"),
                   default=defaults.CORRECTION, help="multiple-comparison correction (holm)")
    p.add_argument("--alpha", type=float, default=defaults.ALPHA,
                   help="significance level (0.05)")
    p.add_argument("--n-resamples", type=int, default=defaults.N_RESAMPLES, metavar="B",
                   help="resamples of the tests (10000)")
    p.add_argument("--seed", type=int, default=None,
                   help="random seed (default: fresh entropy; the seed used is reported)")
    p.add_argument("--format", choices=("table", "json"), default="table",
                   help="output format (default: table)")
    p.add_argument("--methods", action="store_true",
                   help="print the methods paragraph of the results (.methods(); Pandoc [@key] "
                        "citations) instead of the results")


def run(args) -> int:
    from .. import datasets
    from ..agreement.judges import judge_agreement
    from ..formatting import frame_text, interval_text, text_table, wrap

    if args.example:
        if args.runs or args.judge or args.human:
            raise ValueError("give either --example or --judge/--human [RUN ...]")
        data = datasets.cast2021_judged()
        judge, human, runs = data.judge_qrels, data.human_qrels, list(data.runs)
    else:
        if not (args.judge and args.human):
            raise ValueError("need --judge QRELS and --human QRELS (or --example)")
        judge, human, runs = args.judge, args.human, (list(args.runs) or None)
    res = judge_agreement(judge, human, runs, args.measures or ["RR"], rel=args.rel,
                          test=args.test, correction=args.correction, alpha=args.alpha,
                          n_resamples=args.n_resamples, rng=args.seed)
    if args.methods:
        print(res.methods().text)
        return 0
    if args.format == "json":
        conf = res.confusion
        print(json.dumps({
            "labels": frame_records(res.labels)[0],
            "confusion": {str(h): {str(j): int(conf.loc[h, j]) for j in conf.columns}
                          for h in conf.index},
            "rankings": frame_records(res.rankings), "pairs": frame_records(res.pairs),
            "systems": frame_records(res.systems), "test": res.test,
            "correction": res.correction, "alpha": res.alpha,
            "n_resamples": res.n_resamples, "seed": res.seed}, indent=2))
        return 0
    lab = res.labels.iloc[0]
    lines = [*wrap(f"labels: {int(lab.n_pairs)} pairs judged by both ({int(lab.n_judge_only)} "
                   f"by the judge only, {int(lab.n_human_only)} by people only on their "
                   "queries)", prefix="# "),
             *wrap(f"exact agreement {lab.accuracy:.3f}; Cohen's kappa {lab.kappa:.3f} (linear "
                   f"{lab.kappa_linear:.3f}, quadratic {lab.kappa_quadratic:.3f}, relevant at "
                   f"grade >= {res.rel}: {lab.kappa_binary:.3f}); Krippendorff's alpha nominal "
                   f"{lab.alpha_nominal:.3f}, ordinal {lab.alpha_ordinal:.3f}, interval "
                   f"{lab.alpha_interval:.3f}"), "",
             "confusion (rows: human grade, columns: judge)",
             frame_text(res.confusion.rename_axis(index="human", columns=None)
                        .rename(columns=str))]
    for r in res.rankings.itertuples(index=False):
        lines += ["", f"# {r.measure} on the {r.n_queries} human-labelled queries"]
        if hasattr(r, "tau") and r.n_systems >= 2:
            lines += wrap(f"ranking: Kendall tau {r.tau:.3f}, tau_AP {r.tau_ap:.3f}, "
                          f"{r.n_swaps} of {r.n_pairs} pairs swapped; significant pairs: "
                          f"{r.n_significant_human} (human), {r.n_significant_judge} (judge), "
                          f"{r.n_differing} differ ({res.test}, {res.correction}, alpha "
                          f"{res.alpha:g}, seed {res.seed})")
            diff = res.pairs[(res.pairs.measure == r.measure)
                             & ~res.pairs.outcome.isin(["both significant",
                                                        "neither significant"])]
            for d in diff.itertuples(index=False):
                said = d.outcome.replace("under a", "with people").replace(
                    "under b", "with the judge")
                lines.append(f"  {d.a} vs {d.b}: {said}")
        s = res.systems[res.systems.measure == r.measure]
        lines.append(text_table(["system", "human", "judge", "shift", "interval"],
                                [[x.system, f"{x.human:.4f}", f"{x.judge:.4f}",
                                  f"{x.shift:+.4f}", interval_text(x.ci_low, x.ci_high, "+.4f")]
                                 for x in s.itertuples(index=False)]))
    print("\n".join(lines))
    return 0
