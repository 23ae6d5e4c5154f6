"""Reference values of the Student-t hierarchical model (rho = 0) by numerical integration.

Run (numpy and scipy only; about 10 minutes)::

    python tests/stats/hierarchical_reference/hierarchical_quadrature.py \
        tests/stats/hierarchical_reference/hierarchical_quadrature.json

The posterior of (delta0, sigma0, nu) is computed on a grid, with no sampler: each
sigma_i is integrated out analytically (its uniform prior's upper bound, 1000 times the
within-collection standard deviation, taken as infinite), which leaves the kernel
(SS_i + n_i (m_i - delta)^2)^(-(n_i - 1)/2), a t density in delta with n_i - 2 degrees of
freedom; each delta_i is integrated out by Gauss-Legendre quadrature on the probability
scale of whichever of its two factors (this kernel or the t_nu(delta0, sigma0) prior) is
the wider; the prior of nu - 1 integrates Gamma(alpha, beta) over alpha ~ U(1, 2),
beta ~ U(0.01, 0.1) with scipy's dblquad. The grid is a trapezoid rule over delta0
(denser near the data), log sigma0 up to baycomp's bound and log(nu - 1). Printed:
the posterior mean of delta0, the CDF of delta0 at 0 and +-rope (from the interpolated
marginal density), the posterior predictive probabilities for a new collection, and the
medians of sigma0 and nu.
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np
from scipy import integrate, special, stats

HERE = os.path.dirname(os.path.abspath(__file__))
CSV = os.path.join(HERE, "..", "..", "..", "mrrstats", "data", "trec7", "adhoc7_ap.csv")
CASES = {
    "trec7_ap_run1_run2_5x10": ("run1", "run2", 10, 0.01),
    "trec7_ap_run8_run10_10x5": ("run8", "run10", 5, 0.01),
}
GRID = {"n_d0": 161, "n_s0": 90, "n_x": 30, "n_p": 64}


def load(a, b, block):
    with open(CSV) as f:
        header = f.readline().strip().split(",")
    m = np.loadtxt(CSV, delimiter=",", skiprows=1)
    return list((m[:, header.index(a)] - m[:, header.index(b)]).reshape(-1, block))


def log_prior_nu_minus_one(x):
    f = integrate.dblquad(
        lambda b, a: b**a * x ** (a - 1) * np.exp(-b * x) / special.gamma(a),
        1,
        2,
        0.01,
        0.1,
        epsabs=0,
        epsrel=1e-10,
    )[0]
    return np.log(f)


def posterior(data, rope, n_d0, n_s0, n_x, n_p):
    q = len(data)
    n = np.array([len(d) for d in data], float)
    m = np.array([d.mean() for d in data])
    ss = np.array([((d - d.mean()) ** 2).sum() for d in data])
    c = np.sqrt(ss / (n * (n - 2)))  # the kernel is t_{n-2}(m_i, c_i)
    D = max(np.abs(d).max() for d in data)
    S0 = 1000 * m.std()
    d0 = np.unique(np.concatenate([np.linspace(-D, D, 61), np.linspace(-0.2, 0.2, n_d0)]))
    ls0 = np.linspace(np.log(1e-4 * m.std()), np.log(S0), n_s0)
    s0 = np.exp(ls0)
    lx = np.linspace(np.log(1e-3), np.log(3000), n_x)
    x = np.exp(lx)
    nu = 1 + x
    t, w = np.polynomial.legendre.leggauss(n_p)
    p, w = (t + 1) / 2, w / 2
    logpost = np.empty((n_x, n_s0, d0.size))
    for k, v in enumerate(nu):
        tot = np.zeros((n_s0, d0.size))
        uq = stats.t.ppf(p, v)
        for i in range(q):
            ui = stats.t.ppf(p, n[i] - 2)
            dA = d0[None, :, None] + s0[:, None, None] * uq  # on the prior's scale
            LA = (stats.t.pdf((dA - m[i]) / c[i], n[i] - 2) / c[i] * w).sum(-1)
            dB = m[i] + c[i] * ui  # on the kernel's scale
            LB = (
                stats.t.pdf((dB - d0[None, :, None]) / s0[:, None, None], v)
                / s0[:, None, None]
                * w
            ).sum(-1)
            tot += np.log(np.where((s0 <= c[i])[:, None], LA, LB))
        logpost[k] = tot + log_prior_nu_minus_one(x[k]) + lx[k] + ls0[:, None]
    post = np.exp(logpost - logpost.max())
    wd = np.gradient(d0)
    ws = np.full(n_s0, ls0[1] - ls0[0])
    ws[[0, -1]] /= 2
    wx = np.full(n_x, lx[1] - lx[0])
    wx[[0, -1]] /= 2
    post = post * wx[:, None, None] * ws[None, :, None] * wd[None, None, :]
    post /= post.sum()
    D0, S, V = d0[None, None, :], s0[None, :, None], nu[:, None, None]
    dens = post.sum((0, 1)) / wd  # marginal density of delta0 at the nodes
    cdf = np.concatenate([[0], np.cumsum((dens[1:] + dens[:-1]) / 2 * np.diff(d0))])
    cdf /= cdf[-1]
    F = lambda z: float(np.interp(z, d0, cdf))  # noqa: E731
    right = (post * stats.t.sf(rope, V, D0, S)).sum()
    left = (post * stats.t.cdf(-rope, V, D0, S)).sum()

    def median(marg, grid):
        cs = np.cumsum(marg) - marg / 2
        return float(np.interp(0.5, cs, grid))

    return {
        "delta0_mean": float((post * D0).sum()),
        "p_a_better": 1 - F(0.0),
        "p_a_practically_better": 1 - F(rope),
        "p_rope": F(rope) - F(-rope),
        "p_new_a_better": float((post * stats.t.sf(0, V, D0, S)).sum()),
        "p_new_a_practically_better": float(right),
        "p_new_rope": float(1 - right - left),
        "sigma0_median": float(np.exp(median(post.sum((0, 2)), ls0))),
        "nu_median": float(1 + np.exp(median(post.sum((1, 2)), lx))),
    }


def main():
    out = {
        "command": "python tests/stats/hierarchical_reference/hierarchical_quadrature.py OUT.json",
        "grid": GRID,
        "versions": {"numpy": np.__version__, "scipy": __import__("scipy").__version__},
        "cases": {},
    }
    for name, (a, b, block, rope) in CASES.items():
        res = posterior(load(a, b, block), rope, **GRID)
        out["cases"][name] = {"a": a, "b": b, "block": block, "rope": rope, **res}
        print(name, res, file=sys.stderr, flush=True)
    with open(sys.argv[1], "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
