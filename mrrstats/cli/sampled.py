"""``mrrstats sampled``: a metric over sampled negatives, corrected (Krichene & Rendle 2020).

``mrrstats sampled RANKS.csv --negatives 100 --candidates 40943`` reads one
sampled rank per query (the rank of the true item among itself and the
sampled negatives, 1 = first) and prints the naive sampled metric and its
corrections (rank mapping, minimal bias, bias-variance), each with a bootstrap
interval: estimates of the metric over the full candidate set. ``--example``
samples negatives from the full filtered ranks of the bundled UMLS graph
(tail popularity scorer), where the full MRR is known.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from .. import defaults

HELP = "correct MRR/Hits@k over sampled negatives (rank mapping, minimal bias, bias-variance)"

METHODS = ("naive", "rank-mapping", "minimal-bias", "bias-variance")
#: Shown without --method: the minimal-bias values are unbiased per full rank but so
#: ill-conditioned that their mean over a few hundred queries is useless (see
#: correct_sampled_metric); ask for it with --method minimal-bias.
DEFAULT_METHODS = ("naive", "rank-mapping", "bias-variance")
EXAMPLE_NEGATIVES = 20
_RANK_COLUMNS = ("rank", "sampled_rank")


def add_arguments(p) -> None:
    p.add_argument("ranks", nargs="?", metavar="RANKS",
                   help="file of sampled ranks, one query per line: plain integers, or a "
                        "CSV/TSV with a header (column 'rank', or --column)")
    p.add_argument("--example", action="store_true",
                   help="the bundled UMLS graph: a tail-popularity scorer's full filtered "
                        f"ranks, {EXAMPLE_NEGATIVES} negatives sampled per test triple "
                        "(the full MRR is printed for comparison)")
    p.add_argument("--column", default=None,
                   help="column of RANKS holding the sampled ranks (default: 'rank' or "
                        "'sampled_rank' if present, else the first column)")
    p.add_argument("--negatives", type=int, default=None, metavar="M",
                   help="negatives sampled per query, uniformly without replacement")
    p.add_argument("--candidates", default=None, metavar="N|COLUMN",
                   help="full candidate count per query, the true item included (after "
                        "filtering): one number, or a column of RANKS")
    p.add_argument("-m", "--measure", default="RR",
                   help="RR (default), nDCG or Hits@k (one relevant item per query)")
    p.add_argument("--method", action="append", dest="methods", choices=METHODS,
                   metavar="METHOD",
                   help=f"estimator, repeatable: {', '.join(METHODS)} (default: "
                        f"{', '.join(DEFAULT_METHODS)}; minimal-bias is nearly unbiased but "
                        "so variable that it needs very many queries)")
    p.add_argument("--regularization", type=float, default=0.01, metavar="LAMBDA",
                   help="lambda of the bias-variance estimator, in [0, 1] (0.01)")
    p.add_argument("--confidence-level", type=float, default=defaults.CONFIDENCE_LEVEL,
                   help="confidence level of the intervals (0.95)")
    p.add_argument("--n-resamples", type=int, default=defaults.N_RESAMPLES, metavar="B",
                   help="bootstrap resamples of the queries for the intervals (10000)")
    p.add_argument("--seed", type=int, default=None,
                   help="random seed (default: fresh entropy; the seed used is printed)")


def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def read_ranks(path, column=None, candidates=None):
    """``(ranks, candidates or None)`` from a RANKS file; errors name the argument."""
    import pandas as pd

    from ..io.trec import read_text

    p = Path(path)
    if not p.is_file():
        raise ValueError(f"RANKS {path!r}: no such file")
    text = read_text(p, f"RANKS {path}")  # names the file: not UTF-8 (binary, gzip)
    first_line = next((ln for ln in text.splitlines()
                       if ln.strip() and not ln.startswith("#")), "")
    if not first_line:
        raise ValueError(f"RANKS {path}: no ranks")
    if "\x00" in text:
        raise ValueError(f"RANKS {path}: a binary file (NUL bytes), not text")
    sep = "," if "," in first_line else ("\t" if "\t" in first_line else r"\s+")
    try:
        frame = pd.read_csv(io.StringIO(text), sep=sep, engine="python", header=None,
                            dtype=str, skip_blank_lines=True, comment="#")
    except (ValueError, csv.Error) as exc:  # pandas' ParserError is a ValueError
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ValueError(f"RANKS {path}: not a table of ranks ({msg})") from None
    frame = frame.dropna(axis=1, how="all")  # a separator at the end of every line
    ragged = frame.isna().any(axis=1).to_numpy()
    if ragged.any():  # a short row (pandas fills it) or an empty field: a malformed table
        lines = [n for n, ln in enumerate(text.splitlines(), 1)
                 if ln.strip() and not ln.lstrip().startswith("#")]
        row = int(ragged.argmax())
        where = f", line {lines[row]}" if len(lines) == len(frame) else ""
        raise ValueError(f"RANKS {path}{where}: a missing or empty field (every line needs "
                         f"{frame.shape[1]}); not a table of ranks")
    first = frame.iloc[0].tolist()
    if not all(_is_number(str(x)) for x in first):
        frame = frame.iloc[1:].reset_index(drop=True)
        frame.columns = [str(x).strip() for x in first]
        twice = sorted({c for c in frame.columns if list(frame.columns).count(c) > 1})
        if twice:
            raise ValueError(f"RANKS {path}: column {twice[0]!r} appears twice in the header")
    else:
        frame.columns = [str(i + 1) for i in range(frame.shape[1])]
    if column is None:
        column = next((c for c in _RANK_COLUMNS if c in frame.columns), frame.columns[0])
    elif column not in frame.columns:
        raise ValueError(f"--column {column!r} is not a column of {path} "
                         f"(columns: {', '.join(frame.columns)})")

    def numbers(col, what):
        try:
            return pd.to_numeric(frame[col]).to_numpy(float)
        except ValueError:
            raise ValueError(f"{what}: column {col!r} of {path} holds a non-number") from None

    ranks = numbers(column, "RANKS")
    n_cand = None
    if candidates is not None and not _is_number(candidates):
        if candidates not in frame.columns:
            raise ValueError(f"--candidates {candidates!r} is neither a number nor a column "
                             f"of {path} (columns: {', '.join(frame.columns)})")
        n_cand = numbers(candidates, "--candidates")
    return ranks, n_cand


def _example(seed):
    """Sampled ranks on UMLS: full filtered ranks of a popularity scorer, m negatives each."""
    import numpy as np

    from ..baselines.linkpred import ranks_from_scores
    from ..datasets import kg_graph
    from ..io.kg import kg_filter

    g = kg_graph("umls")
    pop = np.zeros((g.n_relations, g.n_entities))
    np.add.at(pop, (g.train[:, 1], g.train[:, 2]), 1.0)
    filt = kg_filter(g.train, g.valid, g.test)
    # deterministic scores: tail popularity per relation, ties broken by entity id
    scores = pop[filt.queries[:, 1]] + 1e-6 * np.arange(g.n_entities)[None, :]
    full = ranks_from_scores(scores, filt.true_index, exclude=filt.exclude)
    r, n = full.optimistic.astype(np.int64), full.n_candidates
    # the sampled rank of a full rank r among m of the n - 1 negatives: 1 + Hypergeometric
    gen = np.random.default_rng(seed)
    sampled = 1 + gen.hypergeometric(r - 1, n - r, EXAMPLE_NEGATIVES)
    return sampled, n, full.mrr("optimistic")


def run(args) -> int:
    import numpy as np
    import pandas as pd

    from ..baselines.sampled import correct_sampled_metric
    from ..validation import rng_iv

    _, seed = rng_iv(args.seed)
    full_mrr = None
    if args.example:
        if args.ranks:
            raise ValueError("give either --example or RANKS, not both")
        if args.negatives not in (None, EXAMPLE_NEGATIVES) or args.candidates is not None:
            raise ValueError("--example fixes --negatives and --candidates")
        ranks, n_cand, full_mrr = _example(seed)
        m = EXAMPLE_NEGATIVES
        source = (f"bundled UMLS graph, tail popularity scorer, {ranks.size} test triples "
                  f"(negatives drawn with seed {seed})")
    else:
        if not args.ranks:
            raise ValueError("need RANKS (a file of sampled ranks) or --example")
        if args.negatives is None:
            raise ValueError("--negatives M is required (negatives sampled per query)")
        if args.candidates is None:
            raise ValueError("--candidates N|COLUMN is required (the full candidate count)")
        ranks, n_cand = read_ranks(args.ranks, args.column, args.candidates)
        if n_cand is None:
            value = float(args.candidates)
            if value != int(value):
                raise ValueError(f"--candidates must be a whole number, got {args.candidates}")
            n_cand = int(value)
        m = args.negatives
        source = f"{args.ranks}, {ranks.size} queries"
    methods = list(dict.fromkeys(args.methods or DEFAULT_METHODS))
    results = [correct_sampled_metric(ranks, m, n_cand, args.measure, method=meth,
                                      regularization=args.regularization,
                                      confidence_level=args.confidence_level,
                                      n_resamples=args.n_resamples, rng=seed)
               for meth in methods]
    n_text = (f"{int(np.min(n_cand))}-{int(np.max(n_cand))}" if np.ndim(n_cand)
              and np.min(n_cand) != np.max(n_cand) else str(int(np.max(n_cand))))
    cl = results[0].confidence_level
    from ..formatting import frame_text, wrap

    print("\n".join(wrap(f"{results[0].measure} over {m} sampled negatives of {n_text} "
                         f"candidates; {source}", prefix="# ")))
    print(f"# {cl:g} bootstrap intervals (BCa, queries resampled, B = {args.n_resamples}), "
          f"seed = {seed}")
    rows = [{"method": r.method,
             "lambda": f"{args.regularization:g}" if r.method == "bias-variance" else "",
             "estimate": r.estimate, "low": r.low, "high": r.high,
             "minus_naive": r.estimate - r.naive} for r in results]
    frame = pd.DataFrame(rows)
    print(frame_text(frame, index=False))
    if full_mrr is not None:
        print(f"# full filtered MRR (known in this example): {full_mrr:.4f}")
    return 0
