"""``mrrstats bayes``: the probability that one system is better than another.

``mrrstats bayes QRELS RUN_A RUN_B -m RR --rope 0.01`` (or ``--scores FILE.csv
--systems A B``, or ``--example``: the first two CAsT 2021 runs) prints the posterior
of the mean difference (Student t under the non-informative prior, or the Bayesian
bootstrap), P(A better), the probabilities of practical superiority and equivalence for
the region of practical equivalence, and the credible interval
(:func:`mrrstats.bayesian_comparison`).
"""

from __future__ import annotations

from ..options import BAYES_METHODS
from .common import add_matrix_inputs, matrix_from_args

HELP = "Bayesian comparison of two systems: P(A better), practical equivalence, credible interval"


def add_arguments(p) -> None:
    add_matrix_inputs(p)
    p.add_argument("--systems", nargs=2, metavar=("A", "B"),
                   help="the two columns to compare (default the first two)")
    p.add_argument("--rope", type=float, default=None,
                   help="half-width of the region of practical equivalence (e.g. 0.01)")
    p.add_argument("--method", choices=BAYES_METHODS, default="t",
                   help="t posterior (default) or Bayesian bootstrap")
    p.add_argument("--confidence-level", type=float, default=0.95,
                   help="probability of the credible interval (0.95)")
    p.add_argument("--n-resamples", type=int, default=10000, metavar="B",
                   help="posterior draws of the Bayesian bootstrap (10000)")
    p.add_argument("--seed", type=int, default=None, help="random seed (bootstrap)")


def run(args) -> int:
    from ..stats.bayes import bayesian_comparison
    from ..validation import rng_iv

    frame = matrix_from_args(args)
    a, b = args.systems or list(frame.columns[:2])
    for s in (a, b):
        if s not in frame.columns:
            raise ValueError(f"--systems: {s!r} is not a system (have {list(frame.columns)})")
    gen, seed = rng_iv(args.seed)
    res = bayesian_comparison(frame[a], frame[b], rope=args.rope, method=args.method,
                              confidence_level=args.confidence_level,
                              n_resamples=args.n_resamples, rng=gen)
    from ..formatting import wrap

    print("\n".join(wrap(f"{frame.attrs.get('measure', 'score')}: {a} - {b}, "
                         f"{res.n_queries} queries, method {res.method}"
                         + (f", seed {seed}" if res.method == "bootstrap" else ""),
                         prefix="# ")))
    print("\n".join(wrap(res.summary())))
    return 0
