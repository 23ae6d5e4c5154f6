"""Tests of mrrstats.multiple: all-pairs tests, Tukey HSD, max-T, discriminative power.

References: scipy per-pair functions, statsmodels.multipletests with the method
named, straightforward loop re-implementations of the permutation procedures
that consume the same random stream, and exact identities (k = 2).
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import shared_path
from scipy import stats
from statsmodels.stats.multitest import multipletests

import mrrstats
from mrrstats.io import read_score_matrix
from mrrstats.stats.multiple import _studentized_range_sf

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def adhoc7():
    return read_score_matrix(shared_path("score_matrices", "trec_adhoc", "adhoc7_rr.csv"))


@pytest.fixture(scope="module")
def small(adhoc7):
    """8 TREC-7 systems x 50 topics (RR), as a DataFrame."""
    return adhoc7.iloc[:, [0, 5, 10, 20, 30, 40, 60, 80]]


def _pairs(frame):
    k = frame.shape[1]
    return [(i, j) for i in range(k) for j in range(i + 1, k)]


# ---------------------------------------------------------------------------
# pairwise tests vs the single-pair functions
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("correction,sm_method", [("holm", "holm"), ("bonferroni", "bonferroni"),
                                                  ("bh", "fdr_bh")])
def test_pairwise_t_and_corrections(small, correction, sm_method):
    res = mrrstats.pairwise_tests(small, test="t", correction=correction)
    X = small.to_numpy()
    ref = np.array([stats.ttest_rel(X[:, i], X[:, j]).pvalue for i, j in _pairs(small)])
    np.testing.assert_allclose(res.pvalue, ref, rtol=1e-12)
    rej, adj, _, _ = multipletests(ref, alpha=0.05, method=sm_method)
    np.testing.assert_allclose(res.pvalue_adjusted, adj, rtol=1e-12)
    np.testing.assert_array_equal(res.reject, rej)
    assert res.correction == correction and res.ci_method == "t"
    # the t interval of each pair
    lo, hi = mrrstats.paired_ttest(X[:, 0], X[:, 1]).confidence_interval()
    assert (res.ci_low[0], res.ci_high[0]) == pytest.approx((lo, hi))
    none = mrrstats.pairwise_tests(small, test="t", correction=None)
    np.testing.assert_array_equal(none.pvalue_adjusted, none.pvalue)
    assert none.correction == "none"


def test_pairwise_matches_single_pair_functions(small):
    X = small.to_numpy()
    i, j = 2, 5
    q = _pairs(small).index((i, j))
    a, b = X[:, i], X[:, j]
    w = mrrstats.pairwise_tests(small, test="wilcoxon", ci="none",
                                test_options={"method": "R"})
    ref = mrrstats.wilcoxon_test(a, b, method="R")
    assert (w.statistic[q], w.pvalue[q]) == (ref.statistic, ref.pvalue)
    s = mrrstats.pairwise_tests(small, test="sign", ci="none", zero_tolerance=0.05)
    ref = mrrstats.sign_test(a, b, zero_tolerance=0.05)
    assert (s.statistic[q], s.pvalue[q]) == (ref.statistic, pytest.approx(ref.pvalue))
    assert (s.wins[q], s.ties[q], s.losses[q]) == (ref.wins, ref.ties, ref.losses)
    # two systems: the shared-resample engines reduce to the single-pair functions
    two = small.iloc[:, [i, j]]
    r = mrrstats.pairwise_tests(two, test="randomization", n_resamples=3000, ci="none", rng=4)
    assert r.pvalue[0] == mrrstats.randomization_test(a, b, n_resamples=3000, rng=4).pvalue
    for test, method in (("bootstrap", "shift"), ("bootstrap-t", "studentized")):
        r = mrrstats.pairwise_tests(two, test=test, n_resamples=2000, ci="none", rng=4)
        ref = mrrstats.bootstrap_test(a, b, method=method, n_resamples=2000, rng=4)
        assert r.pvalue[0] == ref.pvalue and r.statistic[0] == pytest.approx(ref.statistic)


def test_pairwise_bootstrap_ci_equals_bootstrap_ci(small):
    # Pair intervals come from differences of system-level bootstrap means under the
    # same resamples; for two systems they equal bootstrap_ci(a, b) up to rounding.
    two = small.iloc[:, [1, 3]]
    X = two.to_numpy()
    for method in ("bca", "percentile", "basic"):
        r = mrrstats.pairwise_tests(two, test="t", ci=method, n_resamples=3000, rng=8)
        ref = mrrstats.bootstrap_ci(X[:, 0], X[:, 1], method=method, n_resamples=3000, rng=8)
        lo, hi = ref.confidence_interval()
        assert r.ci_low[0] == pytest.approx(lo, abs=1e-12)
        assert r.ci_high[0] == pytest.approx(hi, abs=1e-12)


def test_randomization_exact_over_pairs(small):
    X = small.to_numpy()[:12]
    res = mrrstats.pairwise_tests(X.T, test="randomization", ci="none", correction="none")
    assert res.exact and res.n_resamples == 2**12
    for q, (i, j) in enumerate(_pairs(small)):
        assert res.pvalue[q] == mrrstats.randomization_test(X[:, i], X[:, j]).pvalue


def test_array_orientation_and_effects(small):
    X = small.to_numpy()
    by_frame = mrrstats.pairwise_tests(small, test="t")
    by_array = mrrstats.pairwise_tests(X.T, test="t")
    np.testing.assert_array_equal(by_frame.pvalue, by_array.pvalue)
    assert by_array.systems == tuple(str(i) for i in range(8))
    assert by_frame.a[0] == small.columns[0] and by_frame.b[0] == small.columns[1]
    v_e = mrrstats.residual_variance(small)
    es = mrrstats.effect_sizes(X[:, 0], X[:, 1], residual_variance=v_e)
    assert by_frame.es_e[0] == pytest.approx(es.es_e)
    assert by_frame.d_z[0] == pytest.approx(es.d_z)
    assert by_frame.prob_superiority[0] == pytest.approx(es.prob_superiority)
    frame = by_frame.to_frame()
    assert len(frame) == 28
    assert {"a", "b", "mean_a", "mean_b", "diff", "ci_low", "ci_high", "statistic", "pvalue",
            "pvalue_adjusted", "reject", "d_z", "es_e", "wins", "ties", "losses",
            "prob_superiority", "test", "correction"} <= set(frame.columns)


@pytest.mark.parametrize("test", ["randomization", "bootstrap", "bootstrap-t", "tukey", "maxt"])
def test_same_seed_same_result_any_batch(small, test):
    kw = dict(test=test, n_resamples=700, rng=123)
    ref = mrrstats.pairwise_tests(small, **kw)
    for batch in (1, 37, 5000):
        res = mrrstats.pairwise_tests(small, batch=batch, **kw)
        np.testing.assert_array_equal(res.pvalue, ref.pvalue)
        np.testing.assert_array_equal(res.pvalue_adjusted, ref.pvalue_adjusted)
        np.testing.assert_array_equal(res.ci_low, ref.ci_low)
        np.testing.assert_array_equal(res.ci_high, ref.ci_high)


def test_same_seed_same_result_any_thread_count(tmp_path):
    # Run the same seeded computations in fresh interpreters with 1 and 2 BLAS threads
    # (with mrrstats' own one-thread limit switched off, so BLAS really uses 2 threads).
    data = shared_path("score_matrices", "trec_adhoc", "adhoc7_rr.csv")
    script = tmp_path / "run.py"
    script.write_text(textwrap.dedent(f"""
        import numpy as np, mrrstats
        import mrrstats.stats.significance as sig
        sig._CONTROLLER[:] = [None]  # do not limit BLAS threads: test the arithmetic itself
        X = mrrstats.read_score_matrix({str(data)!r}).iloc[:, :12]
        out = []
        for test in ("randomization", "bootstrap-t", "maxt"):
            r = mrrstats.pairwise_tests(X, test=test, n_resamples=800, rng=5,
                                        test_options={{"statistic": "t"}} if test == "maxt"
                                        else None)
            out += [r.pvalue.tobytes().hex(), r.pvalue_adjusted.tobytes().hex(),
                    r.ci_low.tobytes().hex()]
        big = np.random.default_rng(0).random((3, 3000))
        r = mrrstats.pairwise_tests(big, n_resamples=500, rng=1)
        out += [r.pvalue.tobytes().hex(), r.ci_high.tobytes().hex()]
        print("\\n".join(out))
    """))
    outputs = []
    for threads in ("1", "2"):
        env = dict(os.environ, OPENBLAS_NUM_THREADS=threads, OMP_NUM_THREADS=threads,
                   MKL_NUM_THREADS=threads, PYTHONPATH=str(ROOT))
        proc = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                              text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        outputs.append(proc.stdout)
    assert outputs[0] == outputs[1]


# ---------------------------------------------------------------------------
# randomised Tukey HSD and Westfall-Young: loop references on the same stream
# ---------------------------------------------------------------------------
def _loop_permutations(X, B, seed):
    gen = np.random.default_rng(seed)
    return [gen.permuted(X, axis=-1) for _ in range(B)]  # one (n, k) array per resample


def test_tukey_equals_loop_reference(small):
    X = small.to_numpy()[:20, :5]
    B = 400
    res = mrrstats.randomized_tukey_hsd(X.T, n_resamples=B, rng=21)
    pairs = [(i, j) for i in range(5) for j in range(i + 1, 5)]
    obs = np.array([abs(X[:, i].mean() - X[:, j].mean()) for i, j in pairs])
    cnt_max = np.zeros(len(pairs))
    cnt_raw = np.zeros(len(pairs))
    null = []
    for P in _loop_permutations(X, B, 21):
        m = P.mean(axis=0)
        null.append(m.max() - m.min())
        cnt_max += null[-1] >= obs - 1e-12
        cnt_raw += np.array([abs(m[i] - m[j]) for i, j in pairs]) >= obs - 1e-12
    np.testing.assert_allclose(res.pvalue_adjusted, (cnt_max + 1) / (B + 1))
    np.testing.assert_allclose(res.pvalue, (cnt_raw + 1) / (B + 1))
    c = np.quantile(null, 0.95)
    np.testing.assert_allclose(res.ci_high - res.difference, c)
    assert res.test == "tukey" and res.correction == "tukey-hsd"


@pytest.mark.parametrize("statistic", ["mean", "t"])
def test_westfall_young_equals_algorithm_2_8(small, statistic):
    # Westfall & Young (1993), Algorithm 2.8, written out with loops.
    X = small.to_numpy()[:25, :5]
    B = 300
    n = X.shape[0]
    pairs = [(i, j) for i in range(5) for j in range(i + 1, 5)]

    def stat(M):
        out = []
        for i, j in pairs:
            d = M[:, i] - M[:, j]
            out.append(abs(d.mean()) if statistic == "mean"
                       else abs(d.mean() / (d.std(ddof=1) / math.sqrt(n))))
        return np.array(out)

    obs = stat(X)
    order = np.argsort(-obs, kind="stable")
    counts = np.zeros(len(pairs))
    for P in _loop_permutations(X, B, 3):
        t = stat(P)[order]
        u = np.maximum.accumulate(t[::-1])[::-1]  # u_j = max over l >= j
        counts += u >= obs[order] - 1e-9
    p_sorted = np.maximum.accumulate((counts + 1) / (B + 1))
    expected = np.empty(len(pairs))
    expected[order] = p_sorted
    res = mrrstats.westfall_young(X.T, statistic=statistic, n_resamples=B, rng=3)
    np.testing.assert_allclose(res.pvalue_adjusted, expected)
    assert res.correction == "westfall-young"


def test_step_down_dominates_single_step(adhoc7):
    X = adhoc7.iloc[:, :30]
    tukey = mrrstats.randomized_tukey_hsd(X, n_resamples=2000, rng=17)
    maxt = mrrstats.westfall_young(X, statistic="mean", n_resamples=2000, rng=17)
    # same permutations: the step-down p-value never exceeds the single-step one
    assert np.all(maxt.pvalue_adjusted <= tukey.pvalue_adjusted + 1e-15)
    assert maxt.pvalue_adjusted.max() <= 1 and maxt.reject.sum() >= tukey.reject.sum()
    assert np.all(tukey.pvalue <= tukey.pvalue_adjusted)
    # the most significant pair gets the same p from both procedures
    top = np.argmax(np.abs(tukey.difference))
    assert maxt.pvalue_adjusted[top] == tukey.pvalue_adjusted[top]


def test_familywise_error_under_complete_null(adhoc7):
    """FWER of the family-wise procedures when all 6 systems are exchangeable.

    Null by construction: real TREC-7 RR scores of 6 systems on 30 topics, the
    system labels permuted at random within each topic. R = 300 replicates;
    FWER must not exceed 0.05 by more than 3 binomial SEs (0.038). (The
    parametric HSD is left out: its level is a property of the normal theory,
    and its p-values are checked against scipy.stats.studentized_range.)
    """
    R = 300
    X0 = adhoc7.to_numpy()
    rng = np.random.default_rng(99)
    any_reject = {"tukey": 0, "maxt": 0, "randomization-holm": 0}
    for _ in range(R):
        cols = rng.choice(X0.shape[1], 6, replace=False)
        rows = rng.choice(50, 30, replace=False)
        X = rng.permuted(X0[np.ix_(rows, cols)], axis=1)
        for test in ("tukey", "maxt"):
            any_reject[test] += mrrstats.pairwise_tests(
                X.T, test=test, n_resamples=400, ci="none", rng=rng).reject.any()
        any_reject["randomization-holm"] += mrrstats.pairwise_tests(
            X.T, test="randomization", n_resamples=400, ci="none", rng=rng).reject.any()
    tol = 3 * math.sqrt(0.05 * 0.95 / R)
    for test, k in any_reject.items():
        assert k / R <= 0.05 + tol, (test, k / R)


# ---------------------------------------------------------------------------
# parametric Tukey HSD
# ---------------------------------------------------------------------------
def test_anova_hsd_two_systems_is_paired_t(small):
    # With k = 2, V_E = var(d)/2 and q = sqrt(2)|t|; P(Q_{2,n-1} > q) = P(|T_{n-1}| > |t|).
    two = small.iloc[:, [0, 4]]
    res = mrrstats.anova_tukey_hsd(two)
    ref = mrrstats.paired_ttest(two.iloc[:, 0], two.iloc[:, 1])
    assert res.statistic[0] == pytest.approx(math.sqrt(2) * abs(ref.statistic))
    assert res.pvalue_adjusted[0] == pytest.approx(ref.pvalue, rel=1e-6)
    assert res.pvalue[0] == pytest.approx(ref.pvalue, rel=1e-10)


def test_anova_hsd_against_studentized_range(small):
    X = small.to_numpy()
    n, k = X.shape
    res = mrrstats.anova_tukey_hsd(small, confidence_level=0.9)
    v_e = mrrstats.residual_variance(small)
    se = math.sqrt(v_e / n)
    df = (n - 1) * (k - 1)
    q = np.abs(res.difference) / se
    np.testing.assert_allclose(res.statistic, q)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # scipy computes 1 - cdf (~1e-11 absolute error): compare where it is
        # accurate; the far tail is checked in tests/test_studentized_range.py.
        ref = stats.studentized_range.sf(q, k, df)
        ok = ref > 1e-3
        assert ok.sum() >= 5
        np.testing.assert_allclose(res.pvalue_adjusted[ok], ref[ok], rtol=1e-8)
        c = stats.studentized_range.ppf(0.9, k, df)
    np.testing.assert_allclose(res.ci_high - res.difference, c * se)


def test_studentized_range_interpolation_accuracy():
    # 12 systems -> 66 pairs: beyond the 48 exact evaluations, interpolated.
    q = np.linspace(0.05, 8.0, 66)
    approx = _studentized_range_sf(q, 12, 11 * 49)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exact = stats.studentized_range.sf(q[::5], 12, 11 * 49)
    np.testing.assert_allclose(approx[::5], exact, rtol=1e-4)


# ---------------------------------------------------------------------------
# discriminative power
# ---------------------------------------------------------------------------
def test_discriminative_power_t(small):
    res = mrrstats.discriminative_power(small, test="t", alpha=0.05)
    X = small.to_numpy()
    p = np.array([stats.ttest_rel(X[:, i], X[:, j]).pvalue for i, j in _pairs(small)])
    diffs = np.array([X[:, i].mean() - X[:, j].mean() for i, j in _pairs(small)])
    sig = p <= 0.05
    assert res.n_significant == sig.sum() and res.n_pairs == 28
    assert res.discriminative_power == pytest.approx(sig.mean())
    assert res.min_significant_difference == pytest.approx(np.abs(diffs[sig]).min())
    np.testing.assert_allclose(res.achieved_significance_levels, np.sort(p), rtol=1e-12)
    assert res.correction == "none"
    holm = mrrstats.discriminative_power(small, test="t", correction="holm")
    assert holm.n_significant <= res.n_significant
    assert holm.n_significant == multipletests(p, method="holm")[0].sum()


def test_discriminative_power_none_significant():
    x = np.tile(np.random.default_rng(0).random(10), (3, 1))  # three identical systems
    res = mrrstats.discriminative_power(x, test="tukey", n_resamples=200, rng=1)
    assert res.n_significant == 0 and math.isnan(res.min_significant_difference)


# ---------------------------------------------------------------------------
# input handling and validation
# ---------------------------------------------------------------------------
def test_missing_values_raise_or_drop(small):
    frame = small.copy()
    frame.iloc[3, 2] = np.nan
    with pytest.raises(ValueError, match=rf"missing value for system '{frame.columns[2]}' on "
                                         rf"query '{frame.index[3]}'"):
        mrrstats.pairwise_tests(frame, test="t")
    res = mrrstats.pairwise_tests(frame, test="t", missing="drop")
    assert res.n_queries == 49 and res.dropped_queries == (frame.index[3],)
    ref = mrrstats.pairwise_tests(small.drop(index=small.index[3]), test="t")
    np.testing.assert_allclose(res.pvalue, ref.pvalue)


def test_validation_messages(small):
    with pytest.raises(ValueError, match="`test` must be one of"):
        mrrstats.pairwise_tests(small, test="z")
    with pytest.raises(ValueError, match="`correction` must be one of"):
        mrrstats.pairwise_tests(small, correction="sidak")
    with pytest.raises(ValueError, match="`alternative` must be 'two-sided' for test='tukey'"):
        mrrstats.pairwise_tests(small, test="tukey", alternative="greater")
    with pytest.raises(ValueError, match="`ci`='simultaneous' needs"):
        mrrstats.pairwise_tests(small, test="t", ci="simultaneous")
    with pytest.raises(ValueError, match="`test_options` has options"):
        mrrstats.pairwise_tests(small, test="t", test_options={"method": "R"})
    with pytest.raises(ValueError, match="`scores` needs at least 2 systems"):
        mrrstats.pairwise_tests(small.iloc[:, :1])
    with pytest.raises(ValueError, match="`scores` must be 2-D"):
        mrrstats.pairwise_tests(np.zeros(5))
    with pytest.raises(TypeError, match="`scores` must hold numbers only"):
        mrrstats.pairwise_tests(pd.DataFrame({"a": ["x", "y"], "b": ["z", "w"]}))
    with pytest.raises(ValueError, match="`alpha` must be in"):
        mrrstats.discriminative_power(small, alpha=5)
    with pytest.raises(ValueError, match="`statistic` must be 't' or 'mean'"):
        mrrstats.westfall_young(small, statistic="z", n_resamples=10)


def test_warns_when_holm_cannot_reject(adhoc7):
    with pytest.warns(RuntimeWarning, match="can reject nothing; use n_resamples >= 105060"):
        mrrstats.pairwise_tests(adhoc7.iloc[:20, :], test="randomization", n_resamples=200,
                                ci="none", rng=0)
