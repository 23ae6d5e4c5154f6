"""Reference values of the Student-t hierarchical model from Stan (baycomp's own model file).

Run with an environment that has ``baycomp`` 1.0.3 and ``pystan`` 3.10 (httpstan 4.13)::

    python tests/stats/hierarchical_reference/hierarchical_baycomp.py \
        tests/stats/hierarchical_reference/hierarchical_baycomp.json

(run it outside the repository's directory: baycomp leaves a ``last-sample.pickle`` in
the working directory).

It reads the TREC-7 ad hoc AP matrix the package ships (mrrstats/data/trec7/adhoc7_ap.csv,
50 topics) and splits the topics into consecutive blocks as collections. For each case it
runs

* ``stan``: baycomp's ``hierarchical-t-test.stan`` with the data prepared as baycomp's
  ``HierarchicalTest`` prepares it (differences rescaled by their mean within-collection
  standard deviation, the same bounds and hyper-priors) but the correlation ``rho = 0``
  (queries are independent; baycomp fixes ``rho = 1/n_folds``);
* ``baycomp``: ``baycomp.HierarchicalTest`` itself (``rho = 1/n`` with ``runs=1``),

and prints the posterior summaries in the units of the differences ``a - b``.
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np
from scipy import stats

HERE = os.path.dirname(os.path.abspath(__file__))
CSV = os.path.join(HERE, "..", "..", "..", "mrrstats", "data", "trec7", "adhoc7_ap.csv")

# name: (system a, system b, block size, rope)
CASES = {
    "trec7_ap_run1_run2_5x10": ("run1", "run2", 10, 0.01),
    "trec7_ap_run8_run10_10x5": ("run8", "run10", 5, 0.01),
}
CHAINS, DRAWS, SEED = 4, 25000, 20261129


def load(a, b, block):
    with open(CSV) as f:
        header = f.readline().strip().split(",")
    m = np.loadtxt(CSV, delimiter=",", skiprows=1)
    d = m[:, header.index(a)] - m[:, header.index(b)]
    return d.reshape(-1, block)  # consecutive topics, one row per collection


def stan_data(diff, rho):
    """baycomp 1.0.3 HierarchicalTest.sample's scaled_data + prepare_stan_data (defaults)."""
    q, n = diff.shape
    std_within = np.mean(np.std(diff, axis=1))
    std_among = np.std(np.mean(diff, axis=1)) if q > 1 else std_within
    return dict(
        x=diff,
        Nsamples=n,
        q=q,
        rho=rho,
        deltaLow=-np.max(np.abs(diff)),
        deltaHi=np.max(np.abs(diff)),
        lowerAlpha=1,
        upperAlpha=2,
        lowerBeta=0.01,
        upperBeta=0.1,
        stdLow=0,
        stdHi=std_within * 1000,
        std0Low=0,
        std0Hi=std_among * 1000,
    )


def summary(d0, s0, nu, rope):
    left = stats.t.cdf(-rope, nu, d0, s0)  # a - b < -rope: b practically better
    right = stats.t.sf(rope, nu, d0, s0)
    mid = 1 - left - right
    win = np.argmax(np.stack([right, mid, left], 1), 1)
    return {
        "delta0_mean": float(d0.mean()),
        "delta0_sd": float(d0.std()),
        "p_a_better": float((d0 > 0).mean()),
        "p_a_practically_better": float((d0 > rope).mean()),
        "p_rope": float((abs(d0) < rope).mean()),
        "p_b_practically_better": float((d0 < -rope).mean()),
        "p_new_a_better": float(stats.t.sf(0, nu, d0, s0).mean()),
        "p_new_a_practically_better": float(right.mean()),
        "p_new_rope": float(mid.mean()),
        "p_new_b_practically_better": float(left.mean()),
        "shares": [float((win == k).mean()) for k in range(3)],
        "sigma0_median": float(np.median(s0)),
        "nu_median": float(np.median(nu)),
        "n_draws": int(d0.size),
    }


def main():
    import baycomp
    import stan

    code = open(os.path.join(os.path.dirname(baycomp.__file__), "hierarchical-t-test.stan")).read()
    out = {
        "command": "python tests/stats/hierarchical_reference/hierarchical_baycomp.py OUT.json",
        "versions": {
            "baycomp": "1.0.3",
            "pystan": stan.__version__ if hasattr(stan, "__version__") else "3",
            "numpy": np.__version__,
        },
        "chains": CHAINS,
        "draws_per_chain": DRAWS,
        "random_seed": SEED,
        "cases": {},
    }
    for name, (a, b, block, rope) in CASES.items():
        d = load(a, b, block)
        scale = np.mean(np.std(d, axis=1))
        res = {"a": a, "b": b, "block": block, "rope": rope}
        for key, rho in (("stan_rho0", 0.0), ("stan_rho_1_over_n", 1.0 / block)):
            model = stan.build(code, data=stan_data(d / scale, rho), random_seed=SEED)
            fit = model.sample(num_chains=CHAINS, num_samples=DRAWS)
            d0 = fit["delta0"][0] * scale
            s0 = fit["std0"][0] * scale
            nu = fit["nu"][0]
            res[key] = summary(d0, s0, nu, rope)
            res[key]["divergent_transitions"] = int(np.sum(fit["divergent__"]))
        # baycomp itself (x = a, y = b: its "left" is a practically better)
        post = baycomp.HierarchicalTest(
            _scores(a, block), _scores(b, block), rope, nsamples=DRAWS, chains=CHAINS
        )
        res["baycomp_probs_left_rope_right"] = [float(p) for p in post.probs()]
        res["baycomp_mean_left_rope_right"] = [float(p) for p in post.sample.mean(0)]
        out["cases"][name] = res
        print(name, json.dumps(res), file=sys.stderr)
    with open(sys.argv[1], "w") as f:  # Stan prints its progress on stdout
        json.dump(out, f, indent=1)
        f.write("\n")


def _scores(s, block):
    with open(CSV) as f:
        header = f.readline().strip().split(",")
    m = np.loadtxt(CSV, delimiter=",", skiprows=1)
    return m[:, header.index(s)].reshape(-1, block)


if __name__ == "__main__":
    main()
