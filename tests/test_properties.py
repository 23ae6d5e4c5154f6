"""Property-based tests (hypothesis) of the invariants every input must satisfy.

Inputs are generated: small qrels and runs with heavy score ties and graded judgements,
and small score matrices (topics x systems) of reciprocal-rank-like values. Properties:

1. every per-query value of every measure lies within its specification's bounds
   ([0, 1] for every bounded measure, [1, inf] for Rank), for every tie convention;
2. RR = 1 / rank of the first relevant document, from an independent few-line
   implementation (trec_eval order, optimistic, pessimistic; and the expectation over
   random tie breaks from the hypergeometric law of the first relevant position);
3. permuting the order of the queries (rows of the input) changes no aggregate, no
   mean and no deterministic test statistic or p-value;
4. optimistic >= expected >= pessimistic per query for every measure (reversed for
   Rank, where lower is better);
5. every p-value of every test lies in (0, 1];
6. every bootstrap and t interval contains its estimate;
7. ``compare`` of a system with itself (two identical columns) rejects nothing;
8. ``expected_rr`` and ``variance_rr`` equal brute-force enumeration of all placements
   of the relevant documents for tiny N (with and without a cutoff).

Runs are fast and deterministic: ``derandomize=True`` and no example database, so CI
sees the same examples on every run.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import mrrstats  # noqa: E402
from mrrstats.metrics.measures import SPECS, parse_measure  # noqa: E402

SETTINGS = settings(max_examples=50, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])
# pairwise_tests costs ~0.08 s a call on these sizes: fewer examples where it runs often
FEWER = settings(SETTINGS, max_examples=15)

MEASURES = ["RR", "RR@3", "AP", "AP@3", "nDCG", "nDCG@3", "P@3", "R@3", "Success@3",
            "Rank", "Rank@3", "Bpref", "Rprec", "infAP", "IPrec@0.5", "SetF", "NumRet",
            "RBP(p=0.8)", "RBPResid", "Rndcg", "ERR@3", "nDCG(gain=exp)@3"]
# no exact expectation over random tie-breaking (metrics.trec_measures refuses them there)
NOT_EXPECTED = {"Rank@3", "infAP", "IPrec@0.5", "RBPResid", "Rndcg", "ERR@3"}
# "rank" needs a rank column and "realistic" defines RR-family measures only
TIES = ["trec_eval", "optimistic", "pessimistic", "expected"]


def _measures(ties):
    """Rank with a cutoff has no expectation (it mixes finite and infinite ranks), nor do
    the measures that are not linear in the ranking."""
    return [m for m in MEASURES if not (ties == "expected" and m in NOT_EXPECTED)]


# -- generators -----------------------------------------------------------------------------
@st.composite
def judged_runs(draw, max_queries=4, max_docs=7, n_runs=2):
    """(qrels, {name: run}) as dicts: every query judged, scores with many ties."""
    n_q = draw(st.integers(1, max_queries))
    qrels, runs = {}, {f"r{i}": {} for i in range(n_runs)}
    for q in range(n_q):
        qid = f"q{q}"
        n_docs = draw(st.integers(1, max_docs))
        docs = [f"d{j}" for j in range(n_docs + 2)]  # two judged-only documents may exist
        grades = draw(st.lists(st.integers(0, 3), min_size=len(docs), max_size=len(docs)))
        judged = draw(st.lists(st.booleans(), min_size=len(docs), max_size=len(docs)))
        qrels[qid] = {d: g for d, g, j in zip(docs, grades, judged, strict=True) if j}
        if not qrels[qid]:
            qrels[qid] = {docs[0]: grades[0]}
        for name in runs:
            k = draw(st.integers(1, n_docs))
            retrieved = draw(st.permutations(docs[:n_docs]))[:k]
            scores = draw(st.lists(st.integers(0, 2), min_size=k, max_size=k))
            runs[name][qid] = {d: float(s) for d, s in zip(retrieved, scores, strict=True)}
    return qrels, runs


RR_VALUES = [0.0, 1.0, 0.5, 1 / 3, 0.25, 0.2, 0.1]


@st.composite
def score_matrices(draw, min_topics=2, max_topics=12, min_systems=2, max_systems=4):
    """A topics x systems frame of RR-like values (many ties and exact zeros)."""
    n = draw(st.integers(min_topics, max_topics))
    k = draw(st.integers(min_systems, max_systems))
    cont = draw(st.booleans())
    elem = (st.floats(0, 1, allow_nan=False, width=32) if cont
            else st.sampled_from(RR_VALUES))
    values = draw(st.lists(elem, min_size=n * k, max_size=n * k))
    X = np.asarray(values, dtype=np.float64).reshape(n, k)
    return pd.DataFrame(X, index=[f"t{i}" for i in range(n)],
                        columns=[f"s{j}" for j in range(k)])


@contextlib.contextmanager
def _quiet():
    """Degenerate generated inputs (constant differences) may warn; values are checked."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


# -- 1. bounds ------------------------------------------------------------------------------
@SETTINGS
@given(judged_runs(), st.sampled_from(TIES))
def test_every_measure_lies_within_its_bounds(data, ties):
    qrels, runs = data
    ev = mrrstats.evaluate(qrels, runs, _measures(ties), ties=ties)
    for m in _measures(ties):
        low, high = SPECS[parse_measure(m).name].bounds
        values = ev.scores(m).to_numpy()
        assert not np.isnan(values).any(), m
        assert np.all((values >= low) & (values <= high)), (m, ties, values)
        if math.isfinite(high):
            assert (low, high) == (0.0, 1.0)


# -- 2. RR from an independent implementation ----------------------------------------------
def _reference_rr(qrels, run, ties):
    """1 / rank of the first relevant document, written out per query (grade >= 1)."""
    out = {}
    for q, judged in qrels.items():
        docs = run.get(q, {})
        rel = {d for d, g in judged.items() if g >= 1}
        rel_scores = [s for d, s in docs.items() if d in rel]
        if not rel_scores:
            out[q] = 0.0
            continue
        if ties == "trec_eval":  # score descending, then document id descending
            order = sorted(docs, key=lambda d: (-docs[d], tuple(-ord(c) for c in d)))
            out[q] = 1.0 / (1 + next(i for i, d in enumerate(order) if d in rel))
            continue
        best = max(rel_scores)
        above = sum(s > best for s in docs.values())
        group = [d for d, s in docs.items() if s == best]
        g, r = len(group), sum(d in rel for d in group)
        if ties == "optimistic":
            out[q] = 1.0 / (above + 1)
        elif ties == "pessimistic":
            out[q] = 1.0 / (above + g - r + 1)
        else:  # expected: P(first relevant at j-th place of the group) = C(g-j, r-1) / C(g, r)
            out[q] = float(sum(Fraction(math.comb(g - j, r - 1), math.comb(g, r))
                               / (above + j) for j in range(1, g - r + 2)))
    return out


@SETTINGS
@given(judged_runs(n_runs=1), st.sampled_from(["trec_eval", "optimistic", "pessimistic",
                                                "expected"]))
def test_rr_is_one_over_first_relevant_rank(data, ties):
    qrels, runs = data
    ev = mrrstats.evaluate(qrels, runs, ["RR"], ties=ties)
    got = ev.scores("RR")["r0"]
    ref = _reference_rr(qrels, runs["r0"], ties)
    for q, value in ref.items():
        assert got[q] == pytest.approx(value, rel=1e-12, abs=1e-15), (q, ties)


# -- 3. query order -------------------------------------------------------------------------
@SETTINGS
@given(judged_runs(), st.sampled_from(TIES), st.randoms(use_true_random=False))
def test_query_order_changes_no_aggregate(data, ties, random):
    qrels, runs = data
    order = list(qrels)
    random.shuffle(order)
    qrels2 = {q: qrels[q] for q in order}
    runs2 = {name: {q: run[q] for q in reversed(order) if q in run}
             for name, run in runs.items()}
    a = mrrstats.evaluate(qrels, runs, _measures(ties), ties=ties).aggregate()
    b = mrrstats.evaluate(qrels2, runs2, _measures(ties), ties=ties).aggregate()
    pd.testing.assert_frame_equal(a, b.loc[a.index, a.columns], rtol=1e-12, atol=1e-15)


@FEWER
@given(score_matrices(max_topics=10, max_systems=3), st.randoms(use_true_random=False))
def test_row_order_changes_no_statistic(X, random):
    rows = list(range(len(X)))
    random.shuffle(rows)
    Y = X.iloc[rows]
    with _quiet():
        for test in ("t", "randomization", "anova-hsd"):
            # randomization: at most 10 topics, so the exact (enumerated) null is used
            # (bonferroni: statsmodels' holm runs a full gc.collect() on every call)
            r1 = mrrstats.pairwise_tests(X, test=test, correction="bonferroni")
            r2 = mrrstats.pairwise_tests(Y, test=test, correction="bonferroni")
            for field in ("mean_a", "mean_b", "difference", "statistic", "pvalue",
                          "pvalue_adjusted"):
                np.testing.assert_allclose(getattr(r2, field), getattr(r1, field),
                                           rtol=1e-9, atol=1e-12, err_msg=f"{test} {field}")
            np.testing.assert_array_equal(r2.reject, r1.reject)
        a, b = X.iloc[:, 0].to_numpy(), X.iloc[:, 1].to_numpy()
        p1 = mrrstats.randomization_test(a, b).pvalue
        p2 = mrrstats.randomization_test(a[rows], b[rows]).pvalue
    assert p1 == pytest.approx(p2, rel=1e-12)


# -- 4. optimistic >= expected >= pessimistic -------------------------------------------------
@SETTINGS
@given(judged_runs())
def test_optimistic_expected_pessimistic_are_ordered(data):
    qrels, runs = data
    ev = {t: mrrstats.evaluate(qrels, runs, _measures("expected"), ties=t)
          for t in ("optimistic", "expected", "pessimistic")}
    for m in _measures("expected"):
        opt, exp, pes = (ev[t].scores(m).to_numpy() for t in
                         ("optimistic", "expected", "pessimistic"))
        if not SPECS[parse_measure(m).name].higher_is_better:  # Rank: lower is better
            opt, exp, pes = -opt, -exp, -pes
        tol = 1e-12 * np.maximum(1.0, np.abs(np.where(np.isfinite(exp), exp, 0)))
        assert np.all(opt >= exp - tol), m
        assert np.all(exp >= pes - tol), m


# -- 5. p-values in (0, 1] ----------------------------------------------------------------
def _in_unit_interval(p):
    p = np.asarray(p, dtype=np.float64)
    return bool(np.all((p > 0) & (p <= 1)))


@SETTINGS
@given(score_matrices(max_topics=25, max_systems=2),
       st.sampled_from(["two-sided", "greater", "less"]))
def test_every_pair_test_pvalue_lies_in_unit_interval(X, alternative):
    a, b = X.iloc[:, 0].to_numpy(), X.iloc[:, 1].to_numpy()
    with _quiet():
        results = {
            "t": mrrstats.paired_ttest(a, b, alternative=alternative),
            "wilcoxon": mrrstats.wilcoxon_test(a, b, alternative=alternative),
            "sign": mrrstats.sign_test(a, b, alternative=alternative),
            "randomization": mrrstats.randomization_test(a, b, alternative=alternative,
                                                         n_resamples=300, rng=1),
            "randomization-mc": mrrstats.randomization_test(
                a, b, alternative=alternative, exact=False, n_resamples=300, rng=1),
            "bootstrap-shift": mrrstats.bootstrap_test(a, b, method="shift",
                                                       alternative=alternative,
                                                       n_resamples=300, rng=1),
            "bootstrap-studentized": mrrstats.bootstrap_test(
                a, b, method="studentized", alternative=alternative, n_resamples=300, rng=1),
        }
    for name, res in results.items():
        if name == "t" and np.isinf(res.statistic):
            # a constant non-zero shift: t = +-inf, and p is its limit (0 or 1)
            assert res.pvalue in (0.0, 1.0), (name, res.pvalue)
            continue
        assert _in_unit_interval(res.pvalue), (name, res.pvalue)


@FEWER
@given(score_matrices(max_topics=15), st.sampled_from(mrrstats.stats.multiple.TESTS),
       st.sampled_from(["holm", "bonferroni", "bh", "none"]))
def test_every_pairwise_pvalue_lies_in_unit_interval(X, test, correction):
    with _quiet():
        # Dunnett's many-to-one test needs a baseline (the first system)
        res = mrrstats.pairwise_tests(X, test=test, correction=correction, n_resamples=200,
                                      rng=3, control=0 if test == "dunnett" else None)
    assert _in_unit_interval(res.pvalue), (test, res.pvalue)
    assert _in_unit_interval(res.pvalue_adjusted), (test, res.pvalue_adjusted)
    # an adjusted p-value is never smaller than the unadjusted one
    assert np.all(res.pvalue_adjusted >= res.pvalue - 1e-12)


# -- 6. an interval contains its estimate ---------------------------------------------------
@SETTINGS
@given(score_matrices(min_topics=3, max_topics=25, max_systems=2),
       st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_every_interval_contains_its_estimate(X, level):
    a, b = X.iloc[:, 0].to_numpy(), X.iloc[:, 1].to_numpy()
    est = (a - b).mean()
    with _quiet():
        t = mrrstats.paired_ttest(a, b).confidence_interval(level)
        intervals = {"t": (est, t)}
        for method in ("percentile", "basic", "bca"):
            one = mrrstats.bootstrap_ci(a, method=method, confidence_level=level,
                                        n_resamples=400, rng=2)
            pair = mrrstats.bootstrap_ci(a, b, method=method, confidence_level=level,
                                         n_resamples=400, rng=2)
            intervals[f"{method}-one"] = (a.mean(), one.confidence_interval())
            intervals[f"{method}-paired"] = (est, pair.confidence_interval())
    for name, (value, (low, high)) in intervals.items():
        tol = 1e-12 * max(1.0, abs(value))
        assert low - tol <= value <= high + tol, (name, value, low, high)


@FEWER
@given(score_matrices(min_topics=3, max_topics=15),
       st.sampled_from(["t", "randomization", "bootstrap", "bootstrap-t", "tukey", "maxt",
                        "anova-hsd"]))
def test_pairwise_intervals_contain_the_difference(X, test):
    with _quiet():
        res = mrrstats.pairwise_tests(X, test=test, n_resamples=200, rng=4)
    tol = 1e-12
    ok = (res.ci_low <= res.difference + tol) & (res.difference <= res.ci_high + tol)
    assert np.all(ok), (test, res.ci_low, res.difference, res.ci_high)


# -- 7. a system compared with itself --------------------------------------------------------
@FEWER
@given(score_matrices(min_topics=2, max_topics=15, min_systems=1, max_systems=3),
       st.sampled_from(["t", "wilcoxon", "sign", "randomization", "bootstrap", "bootstrap-t",
                        "tukey", "maxt", "anova-hsd"]),
       st.sampled_from(["holm", "bonferroni", "bh", "none"]))
def test_compare_of_a_system_with_itself_rejects_nothing(X, test, correction):
    X = X.copy()
    X["twin"] = X.iloc[:, 0]  # an identical copy of the first system
    with _quiet():
        res = mrrstats.pairwise_tests(X, test=test, correction=correction, n_resamples=200,
                                      rng=5)
        cmp = mrrstats.compare(X, test=test, correction=correction, n_resamples=200, rng=5)
    twin = (np.asarray(res.a) == "s0") & (np.asarray(res.b) == "twin")
    assert twin.sum() == 1
    assert not res.reject[twin].any(), (test, correction)
    assert res.difference[twin][0] == 0
    frame = cmp.to_frame()
    rows = frame[(frame["a"] == "s0") & (frame["b"] == "twin")]
    assert len(rows) == 1 and not rows["reject"].any() and rows["difference"].iloc[0] == 0
    if X.shape[1] == 2:  # only the twins: nothing at all is rejected
        assert not res.reject.any()


# -- 8. expected_rr by brute force -----------------------------------------------------------
def _enumerated_rr(N, R, k):
    """Mean and variance of RR over all C(N, R) equally likely placements."""
    values = []
    for pos in itertools.combinations(range(1, N + 1), R):
        first = pos[0]
        values.append(Fraction(0) if k is not None and first > k else Fraction(1, first))
    mean = sum(values) / len(values)
    var = sum((v - mean) ** 2 for v in values) / len(values)
    return float(mean), float(var)


@SETTINGS
@given(st.integers(1, 9).flatmap(lambda N: st.tuples(
    st.just(N), st.integers(1, N), st.one_of(st.none(), st.integers(1, N)))))
def test_expected_and_variance_rr_equal_enumeration(args):
    N, R, k = args
    mean, var = _enumerated_rr(N, R, k)
    assert mrrstats.expected_rr(N, R, k=k) == pytest.approx(mean, rel=1e-12, abs=1e-15)
    assert mrrstats.variance_rr(N, R, k=k) == pytest.approx(var, rel=1e-9, abs=1e-14)
