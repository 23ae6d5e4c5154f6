"""``mrrstats ppi``: human-label means from an LLM judge and a human-labelled subset (PPI++).

``mrrstats ppi --judge JUDGE_QRELS --human HUMAN_QRELS RUN [RUN ...] -m RR``
evaluates the runs under the judge's labels (every query) and under people's
labels (the queries they labelled, a random subset), and prints per system the
prediction-powered estimate of the human-label mean with its interval, beside the
human-only and judge-only intervals, the simultaneous rank interval, and per pair
the difference, its interval and p-value. ``--example`` uses the bundled CAsT
2021 runs with a simulated judge that moves one label in twelve to an adjacent
grade and people labelling 40 % of the queries (:func:`mrrstats.datasets.cast2021_judged`).
"""

from __future__ import annotations

import json

from .. import defaults
from ..defaults import PPI_VARIANCE
from ..options import POPULATIONS, PPI_VARIANCES
from .common import add_wide, frame_records, labels_from_spec

HELP = "PPI++: human-label means and differences from judge labels plus a human subset"


def add_arguments(p) -> None:
    p.add_argument("runs", nargs="*", metavar="RUN", help="TREC run files (plain or .gz)")
    p.add_argument("--judge", metavar="QRELS", help="the judge's qrels (every query)")
    p.add_argument("--human", metavar="QRELS",
                   help="people's qrels (a random subset of the queries)")
    p.add_argument("--example", action="store_true",
                   help="the bundled CAsT 2021 runs, a simulated judge (1 label in 12 moved "
                        "to an adjacent grade) and people labelling 40%% of the queries")
    p.add_argument("-m", "--measure", action="append", dest="measures", metavar="MEASURE",
                   help="measure (repeat; default RR)")
    p.add_argument("--population", choices=POPULATIONS, default="finite",
                   help="finite: the human-label mean of these queries (default); infinite: "
                        "of the query population (PPI++ as ppi_py computes it)")
    p.add_argument("--variance", choices=PPI_VARIANCES, default=PPI_VARIANCE,
                   help="moderated: the judge-error variance floored by the one pooled over "
                        "the systems when few labelled queries show judge errors, with a "
                        "human-only fallback (default; holds the level for RR with a good "
                        "judge); sample: the plain sample variance, as ppi_py")
    p.add_argument("--strata", metavar="SPEC",
                   help="strata of the queries: prefix:SEP (the query id up to SEP) or a "
                        "TSV file query<TAB>stratum")
    p.add_argument("--confidence-level", type=float, default=defaults.CONFIDENCE_LEVEL,
                   help="level of every interval (0.95)")
    p.add_argument("--n-resamples", type=int, default=defaults.N_RESAMPLES, metavar="B",
                   help="multiplier draws of the simultaneous critical value (10000)")
    p.add_argument("--seed", type=int, default=None,
                   help="random seed (default: fresh entropy; the seed used is reported)")
    p.add_argument("--format", choices=("table", "json"), default="table",
                   help="output format (default: table)")
    add_wide(p, "the judge-only interval too")


def _inputs(args):
    from .. import datasets

    if args.example:
        if args.runs or args.judge or args.human:
            raise ValueError("give either --example or RUN... with --judge and --human")
        data = datasets.cast2021_judged()
        return list(data.runs), data.judge_qrels, data.human_qrels
    if not (args.runs and args.judge and args.human):
        raise ValueError("need RUN files, --judge QRELS and --human QRELS (or --example)")
    return list(args.runs), args.judge, args.human


def run(args) -> int:
    from ..io.trec import read_qrels
    from ..stats.ppi import ppi_evaluate

    runs, judge, human = _inputs(args)
    strata = None
    if args.strata:
        queries = [str(q) for q in read_qrels(judge).query_ids]
        strata = labels_from_spec(args.strata, queries, "--strata")
    res = ppi_evaluate(runs, judge, human, args.measures or ["RR"],
                       confidence_level=args.confidence_level, population=args.population,
                       variance=args.variance, strata=strata, n_resamples=args.n_resamples,
                       rng=args.seed)
    if args.format == "json":
        print(json.dumps({"measures": list(res.measures), "population": res.population,
                          "variance": res.variance,
                          "confidence_level": res.confidence_level,
                          "n_queries": res.n_queries, "n_human": res.n_human,
                          "strata": res.strata, "n_resamples": res.n_resamples,
                          "seed": res.seed, "systems": frame_records(res.systems),
                          "pairs": frame_records(res.pairs)}, indent=2))
        return 0
    print(_table(res, wide=args.wide))
    return 0


def _table(res, wide=False) -> str:
    from ..formatting import interval_text, letters, pvalue_text, text_table, wrap

    cl = f"{res.confidence_level:g}"
    lines = wrap(f"PPI++ ({res.population} population, {res.variance} variance): "
                 f"{res.n_human} of {res.n_queries} queries labelled by people; {cl} "
                 f"intervals; rank intervals and adjusted p-values simultaneous (max-|t|, "
                 f"B = {res.n_resamples}); seed: {res.seed}", prefix="# ")
    for m in res.measures:
        s = res.summary()
        s = s[s.measure == m]
        ranks = res.systems[(res.systems.measure == m) & (res.systems.method == "ppi")]
        ranks = ranks.set_index("system")
        rows = []
        label = dict(zip(s.system, letters(len(s)), strict=True))
        for r in s.itertuples(index=False):
            rk = ranks.loc[r.system]
            rows.append([label[r.system], r.system, f"{r.estimate_ppi:.4f}",
                         interval_text(r.ci_low_ppi, r.ci_high_ppi, ".4f"),
                         interval_text(r.ci_low_human, r.ci_high_human, ".4f"),
                         *([interval_text(r.ci_low_judge, r.ci_high_judge, ".4f")]
                           if wide else []),
                         f"{r.width_ratio:.2f}", f"{rk['rank']} [{rk.rank_low}, {rk.rank_high}]"])
        judge = ["judge-only"] if wide else []
        lines += ["", *wrap(f"{m}: human-label mean per system (intervals: PPI, human-only"
                            + (", judge-only" if wide else "; --wide adds the judge-only")
                            + "; ratio: width of PPI / human-only)", prefix="## "),
                  text_table(["", "system", "PPI", "PPI interval", "human-only", *judge,
                              "ratio", "rank [low, high]"], rows,
                             align="ll" + "r" * (len(rows[0]) - 2))]
        lines += _notes(ranks.reset_index(), "system")
        p = res.pairs[(res.pairs.measure == m) & (res.pairs.method == "ppi")]
        h = res.pairs[(res.pairs.measure == m) & (res.pairs.method == "human")]
        rows = []
        for r, rh in zip(p.itertuples(index=False), h.itertuples(index=False), strict=True):
            rows.append([f"{label[r.a]} - {label[r.b]}", f"{r.difference:+.4f}",
                         interval_text(r.ci_low, r.ci_high, "+.4f"),
                         pvalue_text(r.pvalue), pvalue_text(r.pvalue_adjusted, res.n_resamples),
                         interval_text(rh.ci_low, rh.ci_high, "+.4f"), pvalue_text(rh.pvalue)])
        lines += ["", f"## {m}: differences a - b (PPI, then human labels only)",
                  text_table(["pair", "PPI", "interval", "p", "p adj.", "human-only",
                              "p human"], rows, align="lrrrrrr")]
        lines += _notes(p.assign(pair=[f"{label[a]} - {label[b]}"
                                       for a, b in zip(p.a, p.b, strict=True)]), "pair")
    return "\n".join(lines)


def _notes(rows, key) -> list:
    """Lines naming the rows whose variance was floored or that fell back to human-only."""
    from ..formatting import wrap

    out = []
    for col, what in (("fallback", "too few discordant human-labelled queries: human-only"),
                      ("moderated", "judge-error variance raised to the pooled floor")):
        names = [str(v) for v in rows.loc[rows[col].astype(bool), key]]
        if names:
            out += wrap(f"({what}: {', '.join(names)})")
    return out
