"""``mrrstats baseline``: observed MRR against a uniformly random ranker.

Two kinds of input:

* ``mrrstats baseline QRELS RUN... --random retrieved|judged``: the runs are
  evaluated exactly as ``mrrstats evaluate`` does (``RR``, or ``RR@k`` with
  ``-k``); ``--random`` is required and says what a random ranker is:
  ``retrieved`` permutes each retrieved list (N = documents retrieved,
  R = relevant retrieved), ``judged`` ranks the judged pool at random
  (N = judged documents, R = judged relevant).
* ``mrrstats baseline --ranks FILE``: per-query ranks computed elsewhere (for
  instance link-prediction ranks). The file is whitespace- or comma-separated
  with the columns ``query rank n_candidates [n_relevant]``, one query per
  line; an optional header line starts with ``query``; ``#`` starts a
  comment. ``rank`` is the rank of the first relevant candidate (>= 1; may be
  fractional, e.g. a realistic rank ``2.5``; ``inf`` when none was found, RR 0);
  ``n_candidates`` counts every ranked candidate, the relevant ones included;
  ``n_relevant`` defaults to 1.

For each run (or the ranks file) it prints the observed MRR, the expected MRR
and its standard deviation under random ranking, the adjusted MRR
``(M - E)/(1 - E)``, the z-score ``(M - E)/sd`` and the p-value of "better
than random" (exact when feasible, else Monte Carlo with ``(b+1)/(B+1)``).

``--format json`` writes, per run, the keys of
:meth:`mrrstats.RandomBaselineResult.to_dict`: ``zscore`` is the z-score (``z``, its
retired key, holds the same value until mrrstats 0.3), ``standard_error`` the
standard error of the observed MRR over queries, ``seed`` the run's seed where its
p-value is Monte Carlo; the top-level ``seed`` reproduces the whole output
(``--seed``).
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .. import defaults
from ..errors import InputError
from .common import add_conventions, add_run_inputs
from .evaluate import resolve_inputs

if TYPE_CHECKING:  # pandas is imported when the command runs
    import pandas as pd

HELP = "Observed MRR vs a uniformly random ranker: expected MRR, sd, adjusted MRR, z, p-value."


def add_arguments(p) -> None:
    add_run_inputs(p)
    p.add_argument("--ranks", metavar="FILE",
                   help="per-query ranks instead of QRELS RUN: one line per query with "
                        "'query rank n_candidates [n_relevant]', whitespace- or "
                        "comma-separated; rank = first relevant rank (>= 1, may be "
                        "fractional, 'inf' if none found); n_candidates includes the "
                        "relevant ones; n_relevant defaults to 1; optional header line "
                        "starting with 'query'; '#' starts a comment")
    p.add_argument("--random", choices=("retrieved", "judged"), default=None,
                   help=f"with QRELS RUN: 'retrieved' = random permutation of each retrieved "
                        f"list (default, {defaults.RANDOM!r}: mrrstats.defaults.RANDOM); "
                        "'judged' = random ranking of the judged pool")
    p.add_argument("-k", "--cutoff", type=int, default=None, metavar="K",
                   help="use RR@K (0 beyond rank K) instead of RR")
    add_conventions(p)
    p.add_argument("--alternative", choices=("greater", "less", "two-sided"),
                   default=defaults.BASELINE_ALTERNATIVE,
                   help="alternative hypothesis (default: greater, i.e. better than random)")
    p.add_argument("--method", choices=("auto", "exact", "monte-carlo"), default="auto",
                   help="p-value method (default auto: exact when feasible)")
    p.add_argument("--n-resamples", type=int, default=defaults.N_RESAMPLES, metavar="B",
                   help=f"Monte-Carlo random rankings (default {defaults.N_RESAMPLES})")
    p.add_argument("--seed", type=int, default=None,
                   help="seed for Monte Carlo (default: fresh entropy; the seed used is "
                        "printed)")
    p.add_argument("--format", choices=("table", "json"), default="table",
                   help="output format (default table)")


def read_ranks_file(path) -> pd.DataFrame:
    """Read a ranks file (see the module documentation) into a validated frame."""
    import numpy as np
    import pandas as pd

    from ..io.trec import read_text

    source = str(path)
    text = read_text(path, source)
    rows, lines = [], []
    first = True
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        fields = [f.strip() for f in line.split(",")] if "," in line else line.split()
        if first and fields[0].lower() == "query":
            first = False
            names = [f.lower() for f in fields]
            if names[:3] != ["query", "rank", "n_candidates"] or \
                    (len(names) == 4 and names[3] != "n_relevant") or len(names) > 4:
                raise InputError("header must be 'query rank n_candidates [n_relevant]'",
                                 source=source, line=lineno)
            continue
        first = False
        if len(fields) not in (3, 4):
            raise InputError(f"expected 3 or 4 fields (query rank n_candidates [n_relevant]), "
                             f"got {len(fields)}", source=source, line=lineno)
        q = fields[0]
        try:
            rank = float(fields[1])
        except ValueError:
            raise InputError(f"rank {fields[1]!r} is not a number", source=source,
                             line=lineno) from None
        try:
            n = int(fields[2])
            r = int(fields[3]) if len(fields) == 4 else 1
        except ValueError:
            raise InputError("n_candidates and n_relevant must be integers", source=source,
                             line=lineno) from None
        if math.isnan(rank) or rank < 1:
            raise InputError(f"rank must be >= 1 or inf, got {fields[1]}", source=source,
                             line=lineno)
        if n < 1 or not 1 <= r <= n:
            raise InputError(f"need n_candidates >= 1 and 1 <= n_relevant <= n_candidates, "
                             f"got {n} and {r}", source=source, line=lineno)
        if math.isfinite(rank) and rank > n - r + 1:
            raise InputError(f"rank {fields[1]} exceeds n_candidates - n_relevant + 1 = "
                             f"{n - r + 1}", source=source, line=lineno)
        rows.append((q, rank, n, r))
        lines.append(lineno)
    if not rows:
        raise InputError("no ranks in file", source=source)
    frame = pd.DataFrame(rows, columns=["query", "rank", "n_candidates", "n_relevant"])
    dup = frame["query"].duplicated()
    if dup.any():
        i = int(np.flatnonzero(dup.to_numpy())[0])
        raise InputError(f"query {frame['query'].iloc[i]!r} appears twice", source=source,
                         line=lines[i])
    return frame


def _rows_from_ranks(args, seed: int) -> dict:
    import numpy as np

    from ..baselines import random_baseline_test

    frame = read_ranks_file(args.ranks)
    rank = frame["rank"].to_numpy(np.float64)
    k = args.cutoff
    rr = np.where(np.isfinite(rank), 1.0 / rank, 0.0)
    if k is not None:
        rr = np.where(rank <= k, rr, 0.0)
    res = random_baseline_test(rr, frame["n_candidates"].to_numpy(),
                               frame["n_relevant"].to_numpy(), k=k,
                               alternative=args.alternative, method=args.method,
                               n_resamples=args.n_resamples, rng=seed)
    return {Path(args.ranks).name: res.to_dict()}


def _rows_from_runs(args, seed: int) -> dict:
    from ..baselines import evaluation_baseline
    from ..metrics.evaluation import evaluate

    qrels, runs = resolve_inputs(args)
    measure = "RR" if args.cutoff is None else f"RR@{args.cutoff}"
    ev = evaluate(qrels, runs, [measure], ties=args.ties, rel=args.rel, queries=args.queries)
    table = evaluation_baseline(ev, random=args.random, measure=measure,
                                alternative=args.alternative, method=args.method,
                                n_resamples=args.n_resamples, rng=seed)
    return {str(run): {k: (None if isinstance(v, float) and math.isnan(v) else v)
                       for k, v in row.items()}
            for run, row in table.to_dict(orient="index").items()}


def _plain(v):
    import numpy as np

    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating, float)):
        v = float(v)
        return None if math.isnan(v) else (str(v) if math.isinf(v) else v)
    return v


def run(args) -> int:

    from ..validation import rng_iv

    if args.cutoff is not None and args.cutoff < 1:
        raise ValueError(f"-k/--cutoff must be >= 1, got {args.cutoff}")
    if args.n_resamples < 1:
        raise ValueError(f"--n-resamples must be >= 1, got {args.n_resamples}")
    _, seed = rng_iv(args.seed)  # drawn once (fresh entropy without --seed), printed
    if args.ranks is not None:
        if args.qrels or args.runs or args.example:
            raise ValueError("give either --ranks FILE or QRELS RUN..., not both")
        if args.random is not None:
            raise ValueError("--random applies to QRELS RUN input only (a ranks file carries "
                             "its own candidate counts)")
        rows = _rows_from_ranks(args, seed)
        model = "ranks file"
    else:
        if args.random is None:
            args.random = defaults.RANDOM
        rows = _rows_from_runs(args, seed)
        model = f"random={args.random}"
    out = sys.stdout
    if args.format == "json":
        conventions = None if args.ranks is not None else {
            "ties": args.ties or ("rank" if args.queries == "msmarco" else "trec_eval"),
            "rel": args.rel, "queries": args.queries}
        payload = {"random": args.random if args.ranks is None else None,
                   "conventions": conventions,
                   "alternative": args.alternative, "seed": seed,
                   "results": {name: {k: _plain(v) for k, v in row.items()}
                               for name, row in rows.items()}}
        out.write(json.dumps(payload, indent=2) + "\n")
        return 0
    from ..formatting import fixed, pvalue_text, text_table

    any_row = next(iter(rows.values()))
    mc = [r for r in rows.values() if r["method"] == "monte-carlo"]
    lines = [f"# {any_row['measure']} vs a uniformly random ranker ({model}); "
             f"alternative={args.alternative}"]
    if mc:
        lines.append(f"# Monte Carlo B={args.n_resamples} seed={seed}")
    methods = {r["method"] for r in rows.values()}
    one = len(methods) == 1  # the method in the header, not in a column
    if one:
        lines.append(f"# p-values: {methods.pop()}")
    table = [[name, str(r["queries"]), fixed(r["observed"]), fixed(r["expected"]),
              fixed(r["std"]), fixed(r["adjusted"]), fixed(r["zscore"], 2),
              pvalue_text(r["pvalue"], r["n_resamples"] if r["method"] == "monte-carlo"
                          else None), *([] if one else [r["method"]])]
             for name, r in rows.items()]
    lines.append(text_table(["system", "queries", f"M{any_row['measure']}", "E[random]",
                             "sd[random]", "adjusted", "zscore", "pvalue",
                             *([] if one else ["method"])], table,
                            align="lrrrrrrrl"[:len(table[0])]))
    out.write("\n".join(lines) + "\n")
    return 0
