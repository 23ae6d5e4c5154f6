"""correct_sampled_metric: the hypergeometric law by enumeration, the estimators'
defining equations, and the bias on real full filtered ranks (bundled UMLS graph)."""

import itertools
import math

import numpy as np
import pytest

import mrrstats
from mrrstats.baselines.sampled import (
    correct_sampled_metric,
    sampled_metric_mapping,
    sampled_rank_matrix,
)
from mrrstats.datasets import kg_graph
from mrrstats.io.kg import kg_filter


def test_rank_matrix_by_enumeration():
    n, m = 7, 3
    A = sampled_rank_matrix(n, m)
    for r in range(1, n + 1):
        # negatives are the other n-1 items; r-1 of them rank above the true item
        above = set(range(r - 1))
        counts = np.zeros(m + 1)
        subsets = list(itertools.combinations(range(n - 1), m))
        for s in subsets:
            counts[len(above.intersection(s))] += 1
        np.testing.assert_allclose(A[r - 1], counts / len(subsets), atol=1e-14)


def test_all_negatives_sampled_is_identity():
    n = 20
    M = 1 / np.arange(1, n + 1)
    for method in ("minimal-bias", "rank-mapping", "naive"):
        np.testing.assert_allclose(sampled_metric_mapping("RR", n, n - 1, method=method), M,
                                   atol=1e-10)


def _objective(f, A, M, lam):
    w = 1 / A.shape[0]
    e = A @ f
    var = A @ (f ** 2) - e ** 2
    return np.sum(w * ((e - M) ** 2 + lam * var))


def test_bias_variance_minimises_its_objective():
    # independent check: the closed-form solution is a stationary point of the
    # loop-defined objective sum_r p(r) [(E f - M)^2 + lam Var f] (finite differences)
    n, m, lam = 40, 6, 0.1
    A = sampled_rank_matrix(n, m)
    M = (np.arange(1, n + 1) <= 10).astype(float)
    f = sampled_metric_mapping("Hits@10", n, m, method="bias-variance", regularization=lam)
    base = _objective(f, A, M, lam)
    for j in range(m + 1):
        for h in (1e-4, -1e-4):
            g = f.copy()
            g[j] += h
            assert _objective(g, A, M, lam) >= base - 1e-12


def test_minimal_bias_small_case_unbiased():
    # n = 12, m = 5: the least-squares values make E[f(r~) | r] ~ M(r) for every r
    n, m = 12, 5
    A = sampled_rank_matrix(n, m)
    f = sampled_metric_mapping("RR", n, m, method="minimal-bias")
    M = 1 / np.arange(1, n + 1)
    ref = np.linalg.lstsq(A, M, rcond=None)[0]
    np.testing.assert_allclose(f, ref, rtol=1e-8, atol=1e-10)


def _umls_full_ranks():
    g = kg_graph("umls")
    E = g.n_entities
    pop = np.zeros((g.n_relations, E))
    np.add.at(pop, (g.train[:, 1], g.train[:, 2]), 1.0)
    # the filtered protocol through the public door: every known tail of (h, r, ?)
    filt = kg_filter(g.train, g.valid, g.test)
    known = np.zeros((filt.n_queries, E), dtype=bool)
    known[filt.exclude[:, 0], filt.exclude[:, 1]] = True  # the true tail included
    # deterministic scorer: tail popularity per relation, ties broken by entity id
    scores = pop[filt.queries[:, 1]] + 1e-6 * np.arange(E)[None, :]
    return filt, scores, known


def test_bias_on_real_full_ranks():
    filt, scores, known = _umls_full_ranks()
    m, reps = 20, 30
    rng = np.random.default_rng(0)
    full_rr, ncand, sampled = [], [], []
    for i, t in enumerate(filt.true_index):
        negs = np.flatnonzero(~known[i])
        s = scores[i]
        full_rr.append(1 / (1 + np.sum(s[negs] > s[t])))
        ncand.append(negs.size + 1)
        sampled.append([1 + np.sum(s[rng.choice(negs, m, replace=False)] > s[t])
                        for _ in range(reps)])
    # the full filtered ranks are ranks_from_scores' (no ties: the scores are distinct)
    full_ranks = mrrstats.ranks_from_scores(scores, filt.true_index, exclude=filt.exclude)
    np.testing.assert_allclose(1 / full_ranks.optimistic, full_rr, rtol=1e-12)
    np.testing.assert_array_equal(full_ranks.n_candidates, ncand)
    full = float(np.mean(full_rr))
    sampled = np.array(sampled)  # (queries, reps)
    ncand = np.array(ncand)
    def mean_estimate(meth, lam=0.0):
        return np.mean([correct_sampled_metric(sampled[:, k], m, ncand, method=meth,
                                               regularization=lam, n_resamples=50,
                                               rng=k).estimate for k in range(reps)])

    # measured (this scorer: full MRR 0.675): naive +0.182, rank-mapping +0.126,
    # bias-variance -0.033 (lambda 0.001), -0.078 (0.01), -0.181 (0.1)
    bias_naive = mean_estimate("naive") - full
    assert bias_naive > 0.15
    assert abs(mean_estimate("bias-variance", 0.001) - full) < bias_naive / 3
    assert abs(mean_estimate("bias-variance", 0.01) - full) < bias_naive / 2
    assert abs(mean_estimate("rank-mapping") - full) < bias_naive


def test_interval_and_errors():
    rng = np.random.default_rng(1)
    full = rng.integers(1, 201, 300)
    above = rng.hypergeometric(full - 1, 200 - full, 30)
    res = correct_sampled_metric(above + 1, 30, 200, rng=2, n_resamples=500)
    assert res.low <= res.estimate <= res.high
    assert isinstance(res, mrrstats.SampledMetricResult)
    with pytest.raises(ValueError, match="`sampled_ranks`"):
        correct_sampled_metric([0, 1], 30, 200)
    with pytest.raises(ValueError, match="`n_candidates`"):
        correct_sampled_metric([1, 2], 30, 20)
    with pytest.raises(ValueError, match="`method`"):
        correct_sampled_metric([1, 2], 30, 200, method="x")
    with pytest.raises(ValueError, match="`measure`"):
        correct_sampled_metric([1, 2], 30, 200, measure="AP")
    assert math.isfinite(correct_sampled_metric([1, 2], 30, 200, measure="Hits@10").estimate)
