"""The common shape of the paired, estimation, unpaired and power results of mrrstats.stats.

* every retired parameter, attribute and value still works, with a DeprecationWarning
  naming the new one, and gives the same numbers;
* ``to_frame()`` holds the result's own numbers under the glossary's names;
* ``confidence_interval(confidence_level=...)`` recomputes at another level, equal to an
  independent computation at that level (scipy, or a fresh call);
* the two-sample BCa interval equals scipy.stats.bootstrap's on the same resamples;
* a random function called with ``rng=None`` records the integer seed it drew, and that
  seed passed back as ``rng`` reproduces the result.
"""

from __future__ import annotations

import math
import types
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import mrrstats
from mrrstats.glossary import RETIRED

RNG = np.random.default_rng(20240611)
A = np.round(RNG.uniform(size=30), 2)
B = np.round(np.clip(A - 0.08 + RNG.normal(0, 0.15, 30), 0, 1), 2)
# Data of R's ?wilcox.test (Hollander & Wolfe 1973, p. 29)
X = np.array([1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30])
Y = np.array([0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29])


def _same(r1, r2):
    """Two results of one call hold the same numbers (arrays included)."""
    assert type(r1) is type(r2)
    pd.testing.assert_frame_equal(r1.to_frame(), r2.to_frame())
    for name in ("null_distribution", "bootstrap_distribution"):
        d1, d2 = getattr(r1, name, None), getattr(r2, name, None)
        assert (d1 is None) == (d2 is None)
        if d1 is not None:
            np.testing.assert_array_equal(d1, d2)


# ---------------------------------------------------------------------------
# retired names
# ---------------------------------------------------------------------------
RENAMED_CALLS = [
    # (function, args, old keyword, new keyword, value)
    (mrrstats.sign_test, (A, B), "zero_tolerance", "atol", 0.05),
    (mrrstats.effect_sizes, (A, B), "zero_tolerance", "atol", 0.05),
    (mrrstats.effect_size_intervals, (A, B, ), "zero_tolerance", "atol", 0.05),
    (mrrstats.hodges_lehmann, (A, B), "correct", "continuity", False),
    (mrrstats.wilcoxon_test, (A, B), "correction", "continuity", True),
    (mrrstats.ttest_power, (), "sd", "std", 0.2),
    (mrrstats.blocked.randomization_test, (A, B), "block_size", "batch", 7),
    (mrrstats.blocked.bootstrap_ci, (A, B), "block_size", "batch", 7),
]


@pytest.mark.parametrize("func,args,old,new,value", RENAMED_CALLS,
                         ids=[f"{c[0].__name__}-{c[2]}" for c in RENAMED_CALLS])
def test_retired_parameter_warns_and_gives_the_same_result(func, args, old, new, value):
    extra = {"difference": 0.05, "n_queries": 40} if func is mrrstats.ttest_power else {}
    if "n_resamples" in __import__("inspect").signature(func).parameters:
        extra.update(n_resamples=199, rng=3)
    with pytest.warns(DeprecationWarning, match=rf"{func.__name__}\({old}=\) is deprecated; "
                                                rf"use {new}="):
        old_res = func(*args, **{old: value}, **extra)
    _same(old_res, func(*args, **{new: value}, **extra))
    with pytest.raises(TypeError, match="both"):
        func(*args, **{old: value, new: value}, **extra)


def test_hodges_lehmann_exact_becomes_method():
    for exact, method in ((None, "auto"), (True, "exact"), (False, "asymptotic")):
        with pytest.warns(DeprecationWarning, match="use method="):
            old = mrrstats.hodges_lehmann(X, Y, exact=exact)
        _same(old, mrrstats.hodges_lehmann(X, Y, method=method))
    assert mrrstats.hodges_lehmann(X, Y, method="asymptotic").method == "asymptotic"


@pytest.mark.parametrize("func", [mrrstats.wilcoxon_test, mrrstats.hodges_lehmann])
@pytest.mark.parametrize("old", ["approx", "normal"])
def test_retired_wilcoxon_method_values(func, old):
    with pytest.warns(DeprecationWarning, match="method='asymptotic'"):
        res = func(X, Y, method=old)
    _same(res, func(X, Y, method="asymptotic"))


def _attribute_cases():
    t = mrrstats.paired_ttest(A, B)
    w = mrrstats.wilcoxon_test(A, B, method="asymptotic")
    s = mrrstats.sign_test(A, B, atol=0.05)
    r = mrrstats.randomization_test(A, B, n_resamples=99, rng=1)
    bt = mrrstats.bootstrap_test(A, B, n_resamples=99, rng=1)
    bc = mrrstats.bootstrap_ci(A, B, n_resamples=99, rng=1)
    es = mrrstats.effect_sizes(A, B, atol=0.05)
    hl = mrrstats.hodges_lehmann(A, B)
    eq = mrrstats.equivalence_test(A, B, margin=(-0.1, 0.2))
    ei = mrrstats.effect_size_intervals(A, B, n_resamples=99, rng=1)
    pw = mrrstats.ttest_power(difference=0.05, std=0.2, n_queries=50)
    ts = mrrstats.topic_set_size(0.25, difference=0.05)
    return [
        (t, "mean_difference", t.difference), (t, "std_error", t.standard_error),
        (t, "n", t.n_queries), (w, "zstatistic", w.zscore), (w, "correction", w.continuity),
        (w, "n", w.n_nonzero), (s, "n", s.n_nonzero), (s, "zero_tolerance", s.atol),
        (r, "n", r.n_queries), (bt, "mean_difference", bt.difference),
        (bt, "std_error", bt.standard_error), (bt, "n", bt.n_queries), (bc, "n", bc.n_queries),
        (es, "zero_tolerance", es.atol), (es, "n", es.n_queries), (hl, "n", hl.n_nonzero),
        (eq, "low", -0.1), (eq, "high", 0.2), (eq, "n", eq.n_queries), (ei, "n", ei.n_queries),
        (pw, "sd", pw.std), (ts, "sd", ts.std),
    ]


def test_retired_attributes_warn_and_return_the_new_value():
    for res, old, value in _attribute_cases():
        with pytest.warns(DeprecationWarning, match=rf"{type(res).__name__}\.{old} is "
                                                    "deprecated"):
            assert getattr(res, old) == value, (type(res).__name__, old)
        assert old in RETIRED or old in ("correction", "low", "high"), old


def test_wilcoxon_n_of_0_1_counts_what_was_ranked():
    d = np.array([0.3, -0.1, 0.0, 0.2, 0.0, 0.5, -0.4])
    z = np.zeros_like(d)
    for zero_method, expected in (("wilcox", 5), ("pratt", 7), ("zsplit", 7)):
        res = mrrstats.wilcoxon_test(d, z, zero_method=zero_method)
        with pytest.warns(DeprecationWarning):
            assert res.n == expected
        assert (res.n_queries, res.n_nonzero, res.n_zero) == (7, 5, 2)


def test_equivalence_interval_of_0_1_took_alpha():
    eq = mrrstats.equivalence_test(A, B, margin=0.2)
    with pytest.warns(DeprecationWarning, match="confidence_level=1 - 2 \\* alpha"):
        old = eq.confidence_interval(0.05)
    assert old == eq.confidence_interval(confidence_level=0.90)


def test_blocked_batch_constant_keeps_its_old_name():
    assert mrrstats.blocked.BLOCK_SIZE == mrrstats.blocked.BATCH == 1 << 20


# ---------------------------------------------------------------------------
# to_frame
# ---------------------------------------------------------------------------
def _results():
    """(result, {column: expected value}) of every result class of the area."""
    t = mrrstats.paired_ttest(A, B)
    w = mrrstats.wilcoxon_test(X, Y, method="R")
    s = mrrstats.sign_test(A, B, atol=0.05)
    r = mrrstats.randomization_test(A, B, n_resamples=499, rng=2)
    bt = mrrstats.bootstrap_test(A, B, n_resamples=499, rng=2)
    bc = mrrstats.bootstrap_ci(A, B, n_resamples=499, rng=2)
    es = mrrstats.effect_sizes(A, B, atol=0.05)
    hl = mrrstats.hodges_lehmann(X, Y)
    eq = mrrstats.equivalence_test(A, B, margin=0.2)
    ut = mrrstats.unpaired_ttest(A, B[:20])
    up = mrrstats.unpaired_permutation_test(A, B[:20], n_resamples=499, rng=2)
    ub = mrrstats.unpaired_bootstrap_ci(A, B[:20], n_resamples=499, rng=2)
    pw = mrrstats.ttest_power(difference=0.05, std=0.2, n_queries=50)
    sp = mrrstats.randomization_power(A - B, n_simulations=50, n_resamples=99, rng=2)
    ts = mrrstats.topic_set_size(0.25, difference=0.05)
    ci = t.confidence_interval()
    return [
        (t, {"statistic": t.statistic, "pvalue": t.pvalue, "difference": t.difference,
             "standard_error": t.standard_error, "ci_low": ci.low, "ci_high": ci.high,
             "n_queries": 30, "df": 29.0}),
        (w, {"statistic": 40.0, "pvalue": w.pvalue, "n_nonzero": 9, "n_zero": 0,
             "continuity": True, "ci_low": 0.01, "ci_high": 0.786, "method": "exact"}),
        (s, {"statistic": s.wins, "wins": s.wins, "ties": s.ties, "losses": s.losses,
             "n_nonzero": s.wins + s.losses, "n_queries": 30, "atol": 0.05,
             "pvalue": s.pvalue}),
        (r, {"statistic": r.statistic, "pvalue": r.pvalue, "pvalue_se": r.pvalue_se,
             "n_queries": 30, "n_resamples": 499, "seed": 2,
             "ci_low": r.confidence_interval().low}),
        (bt, {"statistic": bt.statistic, "pvalue": bt.pvalue, "difference": bt.difference,
              "standard_error": bt.standard_error, "seed": 2,
              "ci_high": bt.confidence_interval().high}),
        (bc, {"statistic": bc.statistic, "standard_error": bc.standard_error,
              "ci_low": bc.confidence_interval().low, "method": "studentized", "n_queries": 30,
              "seed": 2}),
        (es, {"difference": es.difference, "d_z": es.d_z, "wins": es.wins, "atol": 0.05,
              "n_queries": 30}),
        (hl, {"estimate": 0.46, "ci_low": 0.01, "ci_high": 0.786, "method": "exact",
              "n_nonzero": 9, "n_queries": 9, "statistic": 40.0}),
        (eq, {"pvalue": eq.pvalue, "statistic": eq.statistic, "margin_low": -0.2,
              "margin_high": 0.2, "difference": eq.difference, "test": "t",
              "ci_low": eq.confidence_interval().low, "confidence_level": 0.90}),
        (ut, {"statistic": ut.statistic, "pvalue": ut.pvalue, "ci_low": ut.low,
              "ci_high": ut.high, "standard_error": ut.standard_error, "n_a": 30, "n_b": 20,
              "method": "welch t"}),
        (up, {"pvalue": up.pvalue, "method": "monte-carlo", "n_resamples": 499, "seed": 2}),
        (ub, {"ci_low": ub.low, "ci_high": ub.high, "method": "bootstrap bca", "seed": 2}),
        (pw, {"power": pw.power, "std": 0.2, "n_queries": 50.0, "solved_for": "power"}),
        (sp, {"power": sp.power, "seed": 2, "ci_low": sp.confidence_interval().low}),
        (ts, {"n_queries": ts.n_queries, "std": 0.25, "difference": 0.05}),
    ]


def test_to_frame_holds_the_results_numbers_under_glossary_names():
    retired_columns = set(RETIRED) - {"seed"}
    for res, expected in _results():
        frame = res.to_frame()
        name = type(res).__name__
        assert len(frame) == 1, name
        assert not (set(frame.columns) & retired_columns), (name, set(frame.columns)
                                                            & retired_columns)
        row = frame.iloc[0]
        for col, value in expected.items():
            got = row[col]
            if isinstance(value, float) and not isinstance(value, bool):
                assert got == pytest.approx(value, rel=1e-12, abs=1e-12), (name, col)
            else:
                assert got == value, (name, col)


def test_to_frame_of_multi_row_results():
    ei = mrrstats.effect_size_intervals(A, B, n_resamples=999, rng=4)
    f = ei.to_frame()
    assert list(f["effect"]) == ["d_z", "prob_superiority"]
    assert list(f.columns) == ["effect", "estimate", "ci_low", "ci_high", "confidence_level",
                               "method"]
    assert tuple(f.iloc[0, 2:4]) == tuple(ei.d_z_interval)
    assert f.attrs["seed"] == 4
    mm = mrrstats.mixed_model(np.vstack([A, B, (A + B) / 2]))
    assert list(mm.to_frame().columns) == ["estimate", "standard_error", "ci_low", "ci_high"]
    assert list(mm.differences().columns) == ["a", "b", "difference", "standard_error",
                                              "ci_low", "ci_high", "pvalue"]
    ci = mrrstats.ConfidenceInterval(0.1, 0.3, 0.9, "t").to_frame()
    assert ci.to_dict("records") == [{"ci_low": 0.1, "ci_high": 0.3, "confidence_level": 0.9,
                                      "method": "t"}]


# ---------------------------------------------------------------------------
# confidence_interval(confidence_level=...) at two levels
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("level", [0.90, 0.99])
def test_intervals_at_another_level_equal_an_independent_computation(level):
    # paired t: scipy.stats.ttest_rel(A, B).confidence_interval(level)
    ref = stats.ttest_rel(A, B).confidence_interval(confidence_level=level)
    got = mrrstats.paired_ttest(A, B).confidence_interval(confidence_level=level)
    assert (got.low, got.high) == pytest.approx((ref.low, ref.high), rel=1e-12)
    # Welch: scipy.stats.ttest_ind(..., equal_var=False).confidence_interval(level)
    ref = stats.ttest_ind(A, B[:20], equal_var=False).confidence_interval(level)
    got = mrrstats.unpaired_ttest(A, B[:20]).confidence_interval(confidence_level=level)
    assert (got.low, got.high) == pytest.approx((ref.low, ref.high), rel=1e-12)
    # Hodges-Lehmann: a fresh call at that level (R's algorithm, both branches)
    for method in ("exact", "asymptotic"):
        fresh = mrrstats.hodges_lehmann(X, Y, confidence_level=level, method=method)
        got = mrrstats.hodges_lehmann(X, Y, method=method).confidence_interval(level)
        assert (got.low, got.high, got.confidence_level) == (fresh.low, fresh.high,
                                                             fresh.confidence_level)
    # Wilcoxon with R's settings: its interval is R's wilcox.test(conf.int = TRUE) one
    w = mrrstats.wilcoxon_test(X, Y, method="R").confidence_interval(level)
    hl = mrrstats.hodges_lehmann(X, Y, confidence_level=level)
    assert (w.low, w.high) == (hl.low, hl.high)
    # resampled results: the same resamples, a fresh call at that level with the same seed
    for func in (mrrstats.bootstrap_ci, mrrstats.unpaired_bootstrap_ci):
        b = B if func is mrrstats.bootstrap_ci else B[:20]
        fresh = func(A, b, confidence_level=level, n_resamples=999, rng=5)
        got = func(A, b, n_resamples=999, rng=5).confidence_interval(confidence_level=level)
        assert (got.low, got.high) == tuple(fresh.confidence_interval())
    fresh = mrrstats.effect_size_intervals(A, B, confidence_level=level, n_resamples=999,
                                           rng=5)
    es = mrrstats.effect_size_intervals(A, B, n_resamples=999, rng=5)
    for effect in ("d_z", "prob_superiority"):
        got = es.confidence_interval(level, effect=effect)
        want = getattr(fresh, f"{effect}_interval")
        assert (got.low, got.high) == pytest.approx((want.low, want.high), rel=1e-12)
    fresh = mrrstats.mixed_model(np.vstack([A, B]), confidence_level=level)
    got = mrrstats.mixed_model(np.vstack([A, B])).confidence_interval(level)
    np.testing.assert_allclose(got.low, fresh.effects["ci_low"], rtol=1e-12)
    np.testing.assert_allclose(got.high, fresh.effects["ci_high"], rtol=1e-12)
    # simulated power: Clopper-Pearson of the rejections (scipy.stats.binomtest)
    sp = mrrstats.randomization_power(A - B, n_simulations=60, n_resamples=99, rng=1)
    ref = stats.binomtest(round(sp.power * 60), 60).proportion_ci(level)
    assert tuple(sp.confidence_interval(level)) == (ref.low, ref.high)


def test_intervals_nest_across_levels():
    results = [r for r, _ in _results() if hasattr(r, "confidence_interval")]
    results.append(mrrstats.equivalence_test(A, B, margin=0.2, test="randomization",
                                             n_resamples=999, rng=1))
    for res in results:
        if isinstance(res, mrrstats.UnpairedResult) and res.null_distribution is not None:
            continue  # the permutation test gives no interval
        lo90, hi90 = res.confidence_interval(confidence_level=0.90)
        lo99, hi99 = res.confidence_interval(confidence_level=0.99)
        assert lo99 <= lo90 <= hi90 <= hi99, type(res).__name__


def test_equivalence_interval_agrees_with_the_decision():
    """TOST at alpha shows equivalence iff the 1 - 2 alpha interval lies inside the margin,
    for the t test and for the exact randomization test (9 queries: 512 sign vectors)."""
    rng = np.random.default_rng(11)
    for _ in range(30):
        a = np.round(rng.uniform(size=9), 3)
        b = np.round(a + rng.normal(0.01, 0.05, 9), 3)
        margin = float(rng.uniform(0.01, 0.1))
        for test in ("t", "randomization"):
            eq = mrrstats.equivalence_test(a, b, margin=margin, test=test)
            lo, hi = eq.confidence_interval(confidence_level=0.90)
            if min(abs(lo + margin), abs(hi - margin)) < 1e-9:
                continue  # an end on the margin: the decision is a tie either way
            assert eq.equivalent(0.05) == (-margin < lo and hi < margin), (test, margin)


# ---------------------------------------------------------------------------
# the two-sample BCa interval
# ---------------------------------------------------------------------------
def _scipy_bca(a, b, dist, level):
    """scipy.stats.bootstrap((a, b), mean difference, method="BCa") on our resamples."""
    res = stats.bootstrap((a, b), lambda x, y, axis=-1: x.mean(axis) - y.mean(axis),
                          n_resamples=0, confidence_level=level, method="BCa",
                          bootstrap_result=types.SimpleNamespace(bootstrap_distribution=dist))
    return res.confidence_interval


@pytest.mark.parametrize("level", [0.90, 0.95])
def test_unpaired_bca_equals_scipy_on_the_same_resamples(level):
    rng = np.random.default_rng(3)
    a, b = rng.exponential(0.3, size=25), rng.beta(2, 5, size=17)  # skewed: a != 0
    res = mrrstats.unpaired_bootstrap_ci(a, b, confidence_level=level, n_resamples=4000,
                                         rng=1)
    ref = _scipy_bca(a, b, res.bootstrap_distribution, level)
    assert (res.low, res.high) == pytest.approx((ref.low, ref.high), rel=1e-12, abs=1e-14)
    # and at the other level from the stored resamples
    other = res.confidence_interval(confidence_level=0.99)
    ref = _scipy_bca(a, b, res.bootstrap_distribution, 0.99)
    assert (other.low, other.high) == pytest.approx((ref.low, ref.high), rel=1e-12)


def test_unpaired_bca_agrees_with_scipys_own_resampling():
    rng = np.random.default_rng(8)
    a, b = rng.exponential(0.3, size=40), rng.uniform(0.1, 1, size=30)
    res = mrrstats.unpaired_bootstrap_ci(a, b, n_resamples=20000, rng=1)
    ref = stats.bootstrap((a, b), lambda x, y, axis=-1: x.mean(axis) - y.mean(axis),
                          method="BCa", n_resamples=20000, rng=np.random.default_rng(2))
    # B = 20,000 each: the endpoints' Monte-Carlo SD is about 0.03 se, so 0.15 se is
    # about 5 SD of their difference
    se = math.sqrt(a.var() / 40 + b.var() / 30)
    assert res.low == pytest.approx(ref.confidence_interval.low, abs=0.15 * se)
    assert res.high == pytest.approx(ref.confidence_interval.high, abs=0.15 * se)
    assert res.standard_error == pytest.approx(ref.standard_error, rel=0.05)


def test_bootstrap_defaults_studentized_where_available_else_bca():
    import inspect

    from mrrstats import defaults

    # bootstrap_ci resolves method=None (benchmarks/results_validity.md: the bootstrap-t
    # covers closest to 0.95 at 25 topics); BCa where it cannot be computed
    assert inspect.signature(mrrstats.bootstrap_ci).parameters["method"].default is None
    assert mrrstats.bootstrap_ci(A, B, n_resamples=99, rng=1).method == "studentized"
    assert defaults.BOOTSTRAP_METHOD == "studentized"
    for kw in ({"scheme": "poisson"}, {"clusters": np.arange(A.size) // 2}):
        assert mrrstats.bootstrap_ci(A, B, n_resamples=99, rng=1, **kw).method == "bca"
    for func in (mrrstats.unpaired_bootstrap_ci, mrrstats.blocked.bootstrap_ci):
        assert inspect.signature(func).parameters["method"].default == \
            defaults.BOOTSTRAP_METHOD_FALLBACK == "bca"


# ---------------------------------------------------------------------------
# seeds: recorded with rng=None, and reproducing
# ---------------------------------------------------------------------------
SEEDED = {
    "randomization_test": lambda rng: mrrstats.randomization_test(A, B, n_resamples=199,
                                                                  rng=rng),
    "bootstrap_ci": lambda rng: mrrstats.bootstrap_ci(A, B, n_resamples=199, rng=rng),
    "bootstrap_test": lambda rng: mrrstats.bootstrap_test(A, B, n_resamples=199, rng=rng),
    "equivalence_test": lambda rng: mrrstats.equivalence_test(
        A, B, margin=0.2, test="randomization", n_resamples=199, rng=rng),
    "randomization_power": lambda rng: mrrstats.randomization_power(
        A - B, n_queries=12, n_simulations=40, n_resamples=99, rng=rng),
    "effect_size_intervals": lambda rng: mrrstats.effect_size_intervals(
        A, B, n_resamples=199, rng=rng),
    "unpaired_permutation_test": lambda rng: mrrstats.unpaired_permutation_test(
        A, B, n_resamples=199, rng=rng),
    "unpaired_bootstrap_ci": lambda rng: mrrstats.unpaired_bootstrap_ci(
        A, B, n_resamples=199, rng=rng),
}


@pytest.mark.parametrize("name", list(SEEDED))
def test_the_seed_drawn_reproduces_the_result(name):
    call = SEEDED[name]
    first = call(None)
    seed = first.seed
    assert isinstance(seed, int) and seed >= 0
    _same(first, call(seed))
    assert call(seed).seed == seed
    # a Generator: no integer seed to record
    assert call(np.random.default_rng(1)).seed is None


def test_unpaired_permutation_stream_is_the_same_for_any_batch_and_workers():
    ref = mrrstats.unpaired_permutation_test(A, B, n_resamples=999, rng=6)
    for batch, workers in ((1, 1), (17, 2), (None, -1)):
        res = mrrstats.unpaired_permutation_test(A, B, n_resamples=999, batch=batch,
                                                 workers=workers, rng=6)
        np.testing.assert_array_equal(res.null_distribution, ref.null_distribution)
        assert res.pvalue == ref.pvalue
    # the p-value is the share of the stored null at least as extreme, with the +1
    obs = A.mean() - B.mean()
    count = np.sum(np.abs(ref.null_distribution) >= abs(obs) - 1e-14 * max(1, abs(obs)))
    assert ref.pvalue == (count + 1) / 1000


def test_unpaired_permutation_splits_are_uniform():
    """Each item lands in the first sample with probability n_a / n: over 20,000 random
    splits of 10 items into 4 + 6 the counts are binomial(20000, 0.4) (SD 69)."""
    from mrrstats.stats.counter import stream_key
    from mrrstats.stats.resampling import random_splits

    key = stream_key(np.random.default_rng(0))
    first = random_splits(key, 0, 20000, 10, 4)
    assert (first.sum(axis=1) == 4).all()
    counts = first.sum(axis=0)
    assert np.all(np.abs(counts - 8000) < 5 * 69.3)
    # the definition: the 4 items with the smallest words, ties by item number
    from mrrstats.stats.counter import permutation_words

    words = permutation_words(key, 0, 20000, 10)
    want = np.zeros_like(first)
    np.put_along_axis(want, np.argsort(words, axis=1, kind="stable")[:, :4], True, axis=1)
    np.testing.assert_array_equal(first, want)


def test_random_splits_break_ties_by_item_number(monkeypatch):
    from mrrstats.stats import counter, resampling

    words = np.array([[5, 3, 3, 3, 9], [1, 2, 3, 4, 5]], dtype="<u8")
    monkeypatch.setattr(counter, "permutation_words", lambda *a, **k: words)
    first = resampling.random_splits((0, 0), 0, 2, 5, 2)
    np.testing.assert_array_equal(first, [[False, True, True, False, False],
                                          [True, True, False, False, False]])


def test_distributions_are_read_only_properties():
    for res in (mrrstats.randomization_test(A, B, n_resamples=99, rng=1),
                mrrstats.bootstrap_test(A, B, n_resamples=99, rng=1),
                mrrstats.bootstrap_ci(A, B, n_resamples=99, rng=1),
                mrrstats.unpaired_permutation_test(A, B, n_resamples=99, rng=1),
                mrrstats.unpaired_bootstrap_ci(A, B, n_resamples=99, rng=1)):
        cls = type(res)
        name = "bootstrap_distribution" if "Bootstrap" in cls.__name__ and "CI" in \
            cls.__name__ or (isinstance(res, mrrstats.UnpairedResult)
                             and res.bootstrap_distribution is not None) \
            else "null_distribution"
        assert isinstance(getattr(cls, name), property), (cls.__name__, name)
        values = getattr(res, name)
        assert values.size == 99
        with pytest.raises(ValueError):
            values[0] = 1.0


def test_no_warning_from_the_new_names():
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        for res, _ in _results():
            res.to_frame()
