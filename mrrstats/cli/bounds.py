"""``mrrstats bounds``: what unjudged documents could do to every run's values.

``mrrstats bounds QRELS RUN [RUN ...] -m RR -m nDCG@10`` prints per run and measure
trec_eval's value (unjudged documents non-relevant), the value with every unjudged
retrieved document relevant, and the run's Judged@10; a run whose Judged@10 is far
below the others' (not pooled) is flagged. For RR, P@k and Success@k the two values
bound the value under any complete judgment; for AP, R and nDCG they are the two
conventions' values only (see :func:`mrrstats.judgment_bounds`).
"""

from __future__ import annotations

import json

from .. import defaults
from ..options import TIES
from .common import add_run_inputs, frame_records

HELP = "bounds from unjudged documents: values with them non-relevant and relevant, Judged@10"


def add_arguments(p) -> None:
    add_run_inputs(p)
    p.add_argument("-m", "--measure", action="append", dest="measures", metavar="MEASURE",
                   help="measure (repeat; default RR)")
    p.add_argument("--ties", choices=TIES, default=defaults.TIES,
                   help="tie convention (default trec_eval)")
    p.add_argument("--rel", type=int, default=defaults.REL,
                   help="minimum relevant grade (trec_eval -l; default 1)")
    p.add_argument("--per-query", action="store_true",
                   help="print the per-query lower and upper values too")
    p.add_argument("--format", choices=("table", "json"), default="table",
                   help="output format (default: table)")
    p.add_argument("--methods", action="store_true",
                   help="print the methods paragraph of the results (.methods(); Pandoc [@key] "
                        "citations) instead of the results")


def run(args) -> int:
    from .. import datasets
    from ..metrics.bounds import judgment_bounds

    if args.example:
        if args.qrels or args.runs:
            raise ValueError("give either --example or QRELS RUN..., not both")
        data = datasets.cast2021()
        qrels, runs = data.qrels, list(data.runs)
    else:
        if not args.qrels or not args.runs:
            raise ValueError("need QRELS and at least one RUN file (or --example)")
        qrels, runs = args.qrels, list(args.runs)
    res = judgment_bounds(qrels, runs, args.measures or ["RR"], ties=args.ties, rel=args.rel)
    if args.methods:
        print(res.methods().text)
        return 0
    if args.format == "json":
        out = {"measures": list(res.measures), "runs": list(res.runs),
               "flagged": list(res.flagged), "systems": frame_records(res.systems)}
        if args.per_query:
            out["per_query"] = frame_records(res.to_frame())
        print(json.dumps(out, indent=2))
        return 0
    from ..formatting import text_table

    lines = ["# value: unjudged non-relevant (trec_eval); [lower, upper]: with them relevant",
             "# too; bound: every complete judgment lies inside (RR, P, Success), '-' the two",
             "# conventions only (AP, R, nDCG)",
             text_table(["run", "measure", "value", "lower", "upper", "bound", "Judged@10", ""],
                        [[r.run, r.measure, f"{r.value:.4f}", f"{r.lower:.4f}",
                          f"{r.upper:.4f}", "yes" if r.guaranteed else "-", f"{r.judged:.3f}",
                          "(not pooled?)" if r.pooling_bias else ""]
                         for r in res.systems.itertuples(index=False)],
                        align="llrrrlrl")]
    if args.per_query:
        pq = res.to_frame()
        lines += ["", text_table(list(pq.columns),
                                 [[f"{v:.4f}" if isinstance(v, float) else v for v in row]
                                  for row in pq.itertuples(index=False)],
                                 align="".join("r" if pq[c].dtype.kind == "f" else "l"
                                               for c in pq.columns))]
    print("\n".join(lines).rstrip())
    return 0
