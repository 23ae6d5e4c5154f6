"""Several runs per system: replicate_tests."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import mrrstats
from mrrstats.stats.replicates import FewReplicatesWarning, replicate_tests


def _crossed(gen, n=40, R=(4, 4), shift=0.0, sd_seed=0.05, sd_int=0.1, sd_e=0.1):
    """Gaussian crossed data: query effects, system x query, seed shifts, seed x query."""
    t = gen.normal(0.5, 0.2, n)
    cols, rep = {}, {}
    for s, (name, r) in enumerate(zip("AB", R, strict=True)):
        st = gen.normal(0, sd_int, n)
        rep[name] = []
        for k in range(r):
            col = f"{name}{k}"
            cols[col] = t + st + (shift if s == 0 else 0.0) + gen.normal(0, sd_seed) + \
                gen.normal(0, sd_e, n)
            rep[name].append(col)
    return pd.DataFrame(cols), rep


def test_one_run_each_is_the_paired_t_test():
    # With one replicate per system the seed variance vanishes and method="t" is the
    # paired t-test (scipy.stats.ttest_rel), df = n - 1.
    rr = mrrstats.datasets.trec7_scores("RR")
    with pytest.warns(FewReplicatesWarning, match="too few replicates"):
        res = replicate_tests(rr, {"x": ["run1"], "y": ["run2"]}, method="t")
    ref = stats.ttest_rel(rr["run1"], rr["run2"])
    assert res.pvalue[0] == pytest.approx(ref.pvalue, rel=1e-12)
    assert res.statistic[0] == pytest.approx(ref.statistic, rel=1e-12)
    assert res.df[0] == pytest.approx(49)
    ci = ref.confidence_interval(0.95)
    assert (res.ci_low[0], res.ci_high[0]) == pytest.approx((ci.low, ci.high), rel=1e-10)
    assert res.share_replicates[0] == 0.0


def test_variance_estimate_is_unbiased_and_matches_the_spread():
    # Theory: E[V_hat] = sigma_st2 * 2/n + sum_s (sigma_u2/R + sigma_e2/(nR)) (crossed
    # model, expected mean squares); checked against the Monte-Carlo variance of the
    # difference. 400 data sets: the MC relative error of a variance is about 7%.
    gen = np.random.default_rng(11)
    n, R, su, si, se = 30, 4, 0.05, 0.1, 0.1
    true = 2 * si**2 / n + 2 * (su**2 / R + se**2 / (n * R))
    D, V = [], []
    for _ in range(400):
        frame, rep = _crossed(gen, n, (R, R), 0.0, su, si, se)
        r = replicate_tests(frame, rep, method="t")
        D.append(r.difference[0])
        V.append(r.standard_error[0] ** 2)
    assert np.mean(V) == pytest.approx(true, rel=0.05)
    assert np.var(D) == pytest.approx(true, rel=0.2)


def test_level_under_seed_effects_naive_average_fails():
    # A true null (equal means) where seeds shift whole runs: the paired t-test on the
    # per-query means over replicates rejects far too often; method="t" holds its level.
    gen = np.random.default_rng(3)
    rej_t, rej_naive, n_sim = 0, 0, 300
    for _ in range(n_sim):
        frame, rep = _crossed(gen, 50, (5, 5), 0.0, sd_seed=0.05, sd_int=0.05, sd_e=0.1)
        rej_t += replicate_tests(frame, rep, method="t").pvalue[0] <= 0.05
        a = frame[rep["A"]].mean(axis=1)
        b = frame[rep["B"]].mean(axis=1)
        rej_naive += stats.ttest_rel(a, b).pvalue <= 0.05
    se = np.sqrt(0.05 * 0.95 / n_sim)  # 0.0126
    assert abs(rej_t / n_sim - 0.05) < 3 * se
    assert rej_naive / n_sim > 0.25


def test_bootstrap_agrees_with_t_and_is_reproducible():
    gen = np.random.default_rng(5)
    frame, rep = _crossed(gen, 60, (5, 6), shift=0.05)
    t = replicate_tests(frame, rep, method="t")
    b1 = replicate_tests(frame, rep, n_resamples=2000, rng=7)
    b2 = replicate_tests(frame, rep, n_resamples=2000, rng=7, batch=333, workers=1)
    assert np.array_equal(b1.null_distribution, b2.null_distribution)
    assert b1.pvalue[0] == b2.pvalue[0]
    assert b1.seed == 7 and b1.n_resamples == 2000
    # same estimate and standard error; the bootstrap p-value near the t one
    assert b1.difference[0] == t.difference[0]
    assert b1.standard_error[0] == pytest.approx(t.standard_error[0])
    assert abs(np.log(b1.pvalue[0]) - np.log(t.pvalue[0])) < 1.0
    # rng=None records a seed that reproduces
    b3 = replicate_tests(frame, rep, n_resamples=500)
    b4 = replicate_tests(frame, rep, n_resamples=500, rng=b3.seed)
    assert isinstance(b3.seed, int) and b3.pvalue[0] == b4.pvalue[0]


def test_intervals_agree_with_the_test_and_relevel():
    gen = np.random.default_rng(2)
    frame, rep = _crossed(gen, 40, (4, 4), shift=0.04)
    for method in ("t", "bootstrap"):
        res = replicate_tests(frame, rep, method=method, n_resamples=4999, rng=1,
                              confidence_level=0.95)
        ci = res.confidence_interval()
        assert ci.low[0] == pytest.approx(res.ci_low[0]) and ci.high[0] == res.ci_high[0]
        excludes = not (res.ci_low[0] <= 0 <= res.ci_high[0])
        assert excludes == (res.pvalue[0] <= 0.05)
        wide = res.confidence_interval(confidence_level=0.99)
        assert wide.low[0] < res.ci_low[0] and wide.high[0] > res.ci_high[0]
    one = replicate_tests(frame, rep, method="t", alternative="greater")
    assert one.ci_high[0] == np.inf and one.pvalue[0] < 0.5


def test_three_systems_frame_and_correction():
    gen = np.random.default_rng(8)
    frame, rep = _crossed(gen, 30, (3, 3))
    extra = {f"C{k}": frame["A0"] + gen.normal(0, 0.1, 30) for k in range(3)}
    frame = frame.assign(**extra)
    rep["C"] = list(extra)
    res = replicate_tests(frame, rep, method="t", correction="bonferroni")
    f = res.to_frame()
    assert list(f["a"]) == ["A", "A", "B"] and list(f["b"]) == ["B", "C", "C"]
    assert np.allclose(f["pvalue_adjusted"], np.minimum(3 * f["pvalue"], 1))
    assert {"pvalue", "pvalue_adjusted", "ci_low", "ci_high", "share_queries",
            "share_replicates", "n_queries"} <= set(f.columns)
    comp = res.components
    assert list(comp.index) == ["A", "B", "C"] and (comp["n_replicates"] == 3).all()


def test_few_replicates_warn():
    gen = np.random.default_rng(1)
    frame, rep = _crossed(gen, 20, (2, 4))
    with pytest.warns(FewReplicatesWarning, match="'A' \\(2\\)"):
        replicate_tests(frame, rep, method="t")
    with warnings.catch_warnings():
        warnings.simplefilter("error", FewReplicatesWarning)
        frame, rep = _crossed(gen, 20, (3, 3))
        replicate_tests(frame, rep, method="t")


@pytest.mark.parametrize("bad,match", [
    ({"A": ["A0"]}, "at least 2 systems"),
    ({"A": ["A0", "nope"], "B": ["B0"]}, "not a column"),
    ({"A": ["A0"], "B": ["A0"]}, "both"),
    ({"A": [], "B": ["B0"]}, "empty"),
    ({"A": "A0", "B": ["B0"]}, "list of run names"),
])
def test_bad_replicates(bad, match):
    frame, _ = _crossed(np.random.default_rng(0), 10, (2, 2))
    with pytest.raises((ValueError, TypeError), match=match):
        replicate_tests(frame, bad)


def test_bad_options():
    frame, rep = _crossed(np.random.default_rng(0), 10, (3, 3))
    with pytest.raises(ValueError, match="`method`"):
        replicate_tests(frame, rep, method="average")
    with pytest.raises(TypeError, match="`replicates`"):
        replicate_tests(frame, [("A", ["A0"])])


@pytest.mark.slow
def test_mixed_model_close_to_the_moments():
    # statsmodels' REML MixedLM (crossed query, query x system and run effects) and the
    # ANOVA moments estimate the same variance on balanced, homogeneous data.
    gen = np.random.default_rng(4)
    frame, rep = _crossed(gen, 30, (4, 4), shift=0.05)
    t = replicate_tests(frame, rep, method="t")
    m = replicate_tests(frame, rep, method="mixed")
    assert m.difference[0] == pytest.approx(t.difference[0], abs=1e-8)
    assert m.standard_error[0] == pytest.approx(t.standard_error[0], rel=0.3)
    assert np.isnan(m.df[0]) and m.method == "mixed"


def test_single_step_maxt_over_pairs():
    # Westfall-Young single-step max-T on the shared bootstrap values: adjusted p-values
    # at least the raw ones and at most Bonferroni's (up to Monte-Carlo error), and the
    # simultaneous intervals exclude 0 exactly for the rejected pairs.
    gen = np.random.default_rng(9)
    frame, rep = _crossed(gen, 40, (4, 4), shift=0.06)
    extra = {f"C{k}": frame["B0"] + gen.normal(0.03, 0.1, 40) for k in range(4)}
    frame = frame.assign(**extra)
    rep["C"] = list(extra)
    res = replicate_tests(frame, rep, n_resamples=4999, rng=3)
    assert res.correction == "single-step" and res.ci_method == "maxt-single-step"
    assert (res.pvalue_adjusted >= res.pvalue - 1e-12).all()
    assert (res.pvalue_adjusted <= np.minimum(3 * res.pvalue, 1) + 0.01).all()
    excludes = (res.ci_low > 0) | (res.ci_high < 0)
    assert np.array_equal(excludes, res.reject)
    marginal = replicate_tests(frame, rep, n_resamples=4999, rng=3, correction="none")
    assert ((res.ci_high - res.ci_low) > (marginal.ci_high - marginal.ci_low)).all()
    # no joint null for the analytic method: Holm, recorded
    assert replicate_tests(frame, rep, method="t").correction == "holm"


# -- the parametric second stage (replicate_draws="parametric", the default) ----------

def test_replicate_normals_are_standard_normal_and_batch_free():
    from mrrstats.stats.replicates import replicate_normals

    key = (12345, 678)
    whole = replicate_normals(key, 0, 4000, 5)
    np.testing.assert_array_equal(whole[1000:1010], replicate_normals(key, 1000, 10, 5))
    assert stats.kstest(whole.ravel(), "norm").pvalue > 1e-3
    assert abs(whole.mean()) < 4 / np.sqrt(whole.size)
    assert not np.array_equal(whole, replicate_normals((12345, 679), 0, 4000, 5))


@pytest.mark.parametrize("u", [(0.07, -0.07), (0.05, -0.02, 0.10), (0.0, 0.01, 0.3, -0.1)])
def test_null_is_student_t_with_r_minus_1_df_when_seeds_dominate(u):
    """Runs that differ by whole-run shifts only (no query variance, no seed-by-query
    noise), against a constant system: each resample's replicate part is sqrt(a2) z over
    sqrt(a2 chi2_{R-1}/(R-1)), Student's t with R - 1 degrees of freedom exactly (the t
    reference of a mean of R normal runs), whatever the shifts. The runs drawn with
    replacement give a discrete law here (all drawn runs alike: infinite values)."""
    from mrrstats.stats.replicates import _analytic, _system, _two_stage_null

    n, R = 30, len(u)
    Y = np.stack([np.full(n, 0.5 + v) for v in u], axis=1)
    systems = [_system(Y), _system(np.full((n, R), 0.4))]
    D, V, df, _, _ = _analytic(systems[0], systems[1], n)
    assert df == pytest.approx(R - 1)
    null = _two_stage_null(systems, [(0, 1)], [D], [V], 4000, None, (1, 2), 1)[0]
    assert stats.kstest(null, stats.t(R - 1).cdf).pvalue > 1e-3
    old = _two_stage_null(systems, [(0, 1)], [D], [V], 4000, None, (1, 2), 1, "resample")[0]
    assert np.unique(np.abs(old)).size < 40
    frame = pd.DataFrame({**{f"A{r}": Y[:, r] for r in range(R)},
                          **{f"B{r}": systems[1].Y[:, r] for r in range(R)}})
    rep = {"A": [f"A{r}" for r in range(R)], "B": [f"B{r}" for r in range(R)]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FewReplicatesWarning)
        res = replicate_tests(frame, rep, n_resamples=999, rng=1)
    assert res.replicate_draws == "parametric"


def test_t_envelope_widens_to_the_t_quantiles_and_keeps_ranks():
    from mrrstats.stats.replicates import t_envelope

    gen = np.random.default_rng(3)
    null = np.vstack([gen.normal(size=999), gen.standard_t(2, size=999)])
    out = t_envelope(null, np.array([3.0, 3.0]), np.array([True, False]))
    np.testing.assert_array_equal(out[1], null[1])  # rows not flagged: untouched
    assert np.array_equal(np.argsort(out[0], kind="stable"), np.argsort(null[0], kind="stable"))
    q = stats.t.ppf(np.arange(1, 1000) / 1000, 3)
    srt = np.sort(out[0])
    assert (srt[q > 0] >= q[q > 0]).all() and (srt[q <= 0] <= q[q <= 0]).all()
    # a p-value from the widened values is at least the t test's (up to 1/(B+1))
    for T in (1.5, 2.5, 3.2):
        p = (1 + (np.abs(out[0]) >= T).sum()) / 1000
        assert p >= 2 * stats.t.sf(T, 3) - 1e-3


def test_three_runs_get_at_least_the_t_tests_pvalue():
    """Pairs with a system of fewer than 4 runs: the bootstrap p-value is at least the
    Satterthwaite t test's (up to Monte-Carlo error); with 4 runs it is the bootstrap's."""
    gen = np.random.default_rng(12)
    for R, enveloped in ((3, True), (4, False)):
        for _ in range(5):
            frame, rep = _crossed(gen, 30, (R, R), 0.03, sd_seed=0.05, sd_int=0.05, sd_e=0.1)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FewReplicatesWarning)
                b = replicate_tests(frame, rep, n_resamples=1999, rng=1)
            t = replicate_tests(frame, rep, method="t")
            if enveloped:
                assert b.pvalue[0] >= t.pvalue[0] - 2e-3
    raw = _crossed(np.random.default_rng(1), 30, (4, 4), 0.03)
    from mrrstats.stats.replicates import T_ENVELOPE_BELOW

    assert T_ENVELOPE_BELOW == 4 and len(raw[1]["A"]) == 4


def test_parametric_stage_written_out():
    """One system, the queries not resampled (counts 1): the grand mean is the mean of the
    run means plus sqrt(a2) z, a2 = max(var_r(run means) - MS_res/n, 0)/R, the per-query
    means are the data's, and the seed term is a2 chi2_{R-1}/(R-1) -- written out here
    with the same normal draws (z the first, the chi-square from the other R - 1)."""
    from mrrstats.stats.replicates import _replicate_stage, _system, replicate_normals
    from mrrstats.stats.resampling import exact_split

    gen = np.random.default_rng(8)
    n, R, r = 25, 4, 6
    Y = gen.random((n, R)) + gen.normal(0, 0.2, R)
    s = _system(Y)
    HL = np.ascontiguousarray(np.vstack(exact_split(Y.T, n)).T)
    key = (3, 4)
    m, rows, seed = _replicate_stage(s, np.ones((r, n)), HL, key, 10, r, n, "parametric", 1)
    g = replicate_normals(key, 10, r, R)
    M, mbar = Y.mean(axis=0), Y.mean()
    ms_res = ((Y - Y.mean(1)[:, None] - M[None, :] + mbar) ** 2).sum() / ((n - 1) * (R - 1))
    a2 = max(M.var(ddof=1) - ms_res / n, 0) / R
    assert a2 > 0
    np.testing.assert_allclose(m, mbar + g[:, 0] * np.sqrt(a2), rtol=1e-12)
    np.testing.assert_allclose(rows, np.broadcast_to(Y.mean(axis=1), (r, n)), rtol=1e-12)
    np.testing.assert_allclose(seed, a2 * (g[:, 1:] ** 2).sum(axis=1) / (R - 1), rtol=1e-12)


def test_replicate_draws_is_checked():
    frame, rep = _crossed(np.random.default_rng(0), 10, (3, 3))
    with pytest.raises(ValueError, match="`replicate_draws` must be one of"):
        replicate_tests(frame, rep, replicate_draws="jackknife")
    assert replicate_tests(frame, rep, method="t").replicate_draws is None


@pytest.mark.slow
def test_default_bootstrap_holds_its_level_with_three_runs():
    """A true null where seeds dominate (3 runs per system): the default bootstrap rejects
    at most at alpha plus Monte-Carlo error (300 experiments, B = 299)."""
    gen = np.random.default_rng(21)
    rej, n_sim = 0, 300
    for _ in range(n_sim):
        frame, rep = _crossed(gen, 30, (3, 3), 0.0, sd_seed=0.1, sd_int=0.05, sd_e=0.1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FewReplicatesWarning)
            rej += replicate_tests(frame, rep, n_resamples=299,
                                   rng=int(gen.integers(2**31))).pvalue[0] <= 0.05
    se = np.sqrt(0.05 * 0.95 / n_sim)
    assert rej / n_sim < 0.05 + 2.5 * se


def test_cli_replicate_draws_option(capsys):
    from mrrstats.cli import main

    assert main(["replicates", "--example", "--n-resamples", "99", "--seed", "1",
                 "--replicate-draws", "resample"]) == 0
    assert "(resample replicate draws)" in capsys.readouterr().out
    assert main(["replicates", "--example", "--n-resamples", "99", "--seed", "1"]) == 0
    assert "(parametric replicate draws)" in capsys.readouterr().out
