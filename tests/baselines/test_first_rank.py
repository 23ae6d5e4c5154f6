"""expected_rbp and expected_bpref: closed forms against exact enumeration and Monte Carlo.

The references are (a) a brute force over every permutation, written here from the
definitions (trec_eval 10.0 ``m_bpref.c``: ``(1/R) sum (1 - min(n_d, R) / min(M, R))``;
Moffat & Zobel 2008 for RBP), and (b) :func:`mrrstats.random_metric_moments`, which
scores the arrangements with the conformance-tested kernels.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import mrrstats
from mrrstats import expected_bpref, expected_rbp, random_metric_moments


def _brute_rbp(gains, p, k):
    gains = np.asarray(gains, float)
    n = gains.size
    L = n if k is None else min(k, n)
    w = (1 - p) * p ** np.arange(L)
    vals = [float(np.dot(gains[list(perm)][:L], w)) for perm in itertools.permutations(range(n))]
    return float(np.mean(vals))


def _brute_bpref(grades):
    """grades: 1 relevant, 0 judged non-relevant, NaN unjudged."""
    g = np.asarray(grades, float)
    R = int(np.sum(g == 1))
    M = int(np.sum(g == 0))
    vals = []
    for perm in itertools.permutations(range(g.size)):
        order = g[list(perm)]
        seen_nonrel, total = 0, 0.0
        for x in order:
            if x == 0:
                seen_nonrel += 1
            elif x == 1:
                total += 1.0 if seen_nonrel == 0 else 1.0 - min(seen_nonrel, R) / min(M, R)
        vals.append(total / R if R else 0.0)
    return float(np.mean(vals))


@pytest.mark.parametrize("N", range(1, 7))
def test_expected_rbp_binary_equals_enumeration(N):
    for R in range(N + 1):
        for p in (0.5, 0.8, 0.95):
            for k in (None, 1, 3, 10):
                brute = _brute_rbp([1] * R + [0] * (N - R), p, k)
                assert expected_rbp(N, R, p=p, k=k) == pytest.approx(brute, rel=1e-12, abs=1e-15)


def test_expected_rbp_graded_equals_enumeration_and_random_metric_moments():
    # trec_eval's RBP scales grades by the topic's top grade: [3, 2, 1, 0, 0] -> 1, 2/3, 1/3
    grades = [3, 2, 1, 0, 0]
    gains = [1, 2 / 3, 1 / 3, 0, 0]
    for p, k in ((0.9, None), (0.5, 3), (0.8, 2)):
        e = expected_rbp(5, p=p, k=k, total_gain=sum(gains))
        assert e == pytest.approx(_brute_rbp(gains, p, k), rel=1e-12)
        name = f"RBP(p={p})" + ("" if k is None else f"@{k}")
        exact = random_metric_moments(grades, name, method="exact")
        assert exact.method == "exact enumeration"
        assert e == pytest.approx(exact.mean, rel=1e-12)


def test_expected_rbp_monte_carlo_larger():
    grades = [1] * 7 + [0] * 193
    res = random_metric_moments(
        grades, "RBP(p=0.8)@10", method="monte-carlo", n_resamples=20_000, rng=5
    )
    e = expected_rbp(200, 7, p=0.8, k=10)
    assert abs(res.mean - e) < 4 * res.standard_error
    assert e == pytest.approx(7 / 200 * (1 - 0.8**10), rel=1e-14)


def test_expected_rbp_default_p_is_the_measures():
    m = mrrstats.parse_measure("RBP")
    assert expected_rbp(10, 3) == pytest.approx(0.3 * (1 - float(m.param) ** 10), rel=1e-14)


@pytest.mark.parametrize("N", range(1, 8))
def test_expected_bpref_equals_enumeration(N):
    for R in range(N + 1):
        grades = [1] * R + [0] * (N - R)
        e = expected_bpref(N, R)
        assert e == pytest.approx(_brute_bpref(grades), rel=1e-12, abs=1e-15)
        if R:
            exact = random_metric_moments(grades, "Bpref", method="exact")
            assert e == pytest.approx(exact.mean, rel=1e-12)


def test_expected_bpref_with_unjudged_candidates():
    nan = math.nan
    for grades in ([1, 0, nan, nan], [1, 1, 0, 0, 0, nan], [1, nan, nan], [1, 0, 0, 0, nan]):
        g = np.asarray(grades)
        N, R, M = g.size, int(np.sum(g == 1)), int(np.sum(g == 0))
        e = expected_bpref(N, R, n_nonrelevant=M)
        # brute force only: random_metric_moments scores NaN grades as judged 0
        assert e == pytest.approx(_brute_bpref(grades), rel=1e-12)


def test_expected_bpref_monte_carlo_larger():
    grades = [1] * 5 + [0] * 95
    res = random_metric_moments(grades, "Bpref", method="monte-carlo", n_resamples=20_000, rng=7)
    e = expected_bpref(100, 5)
    assert e == 6 / (2 * 96)
    assert abs(res.mean - e) < 4 * res.standard_error


def test_closed_form_cases_and_broadcasting():
    assert expected_bpref([1, 3, 5, 101], [1, 2, 2, 1]).tolist() == [1.0, 0.5, 0.375, 2 / 202]
    assert expected_bpref(4, 0) == 0.0
    assert expected_rbp(0, 0) == 0.0
    assert expected_rbp([10, 20], [2, 4], p=0.5, k=[1, 100]).tolist() == pytest.approx(
        [0.2 * 0.5, 0.2 * (1 - 0.5**20)], rel=1e-14
    )


def test_refusals_name_the_parameter():
    with pytest.raises(mrrstats.ParameterError, match="`p`"):
        expected_rbp(10, 2, p=1.0)
    with pytest.raises(mrrstats.ParameterTypeError, match="`p`"):
        expected_rbp(10, 2, p="0.5")
    with pytest.raises(mrrstats.ParameterError, match="`total_gain`"):
        expected_rbp(10, p=0.5, total_gain=11.0)
    with pytest.raises(mrrstats.ParameterError, match="`total_gain`"):
        expected_rbp(10, p=0.5, total_gain=math.nan)
    with pytest.raises(mrrstats.ParameterError, match="`n_nonrelevant`"):
        expected_bpref(10, 2, n_nonrelevant=9)
    with pytest.raises(mrrstats.ParameterError, match="`n_nonrelevant`"):
        expected_bpref(10, 2, n_nonrelevant=-1)
    with pytest.raises(mrrstats.ParameterError, match="`n_relevant`"):
        expected_bpref(3, 4)
