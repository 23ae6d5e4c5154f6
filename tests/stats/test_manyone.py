"""Many-to-one comparisons with a control: Dunnett's distribution, control= in
pairwise_tests / compare (the single-step max-T by default), and the many-to-one
step-down max-T."""

import numpy as np
import pytest
from scipy import stats

from mrrstats.stats.manyone import dunnett_cdf, dunnett_critical_value, dunnett_sf


# -- Dunnett's distribution ----------------------------------------------------------
@pytest.mark.parametrize("df", [3, 12, 60, 1000])
def test_dunnett_one_comparison_is_student_t(df):
    # m = 1: T = (W + U) / (sqrt(2) S) is Student's t with df degrees of freedom (exact)
    t = np.array([0.1, 1.0, 2.0, 3.0, 4.0, 6.0])
    ref2 = 2 * stats.t.sf(t, df)
    ref1 = stats.t.sf(t, df)
    np.testing.assert_allclose(dunnett_sf(t, 1, df), ref2, atol=1e-14, rtol=1e-6)
    np.testing.assert_allclose(dunnett_sf(t, 1, df, "greater"), ref1, atol=1e-14, rtol=1e-6)
    np.testing.assert_allclose(dunnett_sf(-t, 1, df, "less"), ref1, atol=1e-14, rtol=1e-6)
    c = dunnett_critical_value(0.95, 1, df)
    assert c == pytest.approx(stats.t.isf(0.025, df), rel=1e-9)


@pytest.mark.parametrize("k, ng", [(3, 5), (5, 4), (4, 11)])
@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_dunnett_equals_scipy(k, ng, alternative):
    # scipy.stats.dunnett (one-way layout, equal group sizes: correlation 1/2,
    # df = k (ng - 1)) integrates the same multivariate t by quasi-Monte Carlo; its
    # error is about 1e-5 (measured differences up to 6e-5), hence atol 2e-4.
    rng = np.random.default_rng(0)
    z = rng.normal(size=ng)
    z -= z.mean()
    z /= np.sqrt((z**2).sum())
    s = 0.8
    mse = s**2 / (ng - 1)
    se = np.sqrt(2 * mse / ng)
    tt = np.linspace(0.5, 3.5, k - 1)
    groups = [z * s + (0 if i == 0 else tt[i - 1] * se) for i in range(k)]
    ref = stats.dunnett(*groups[1:], control=groups[0], alternative=alternative,
                        rng=np.random.default_rng(1))
    np.testing.assert_allclose(ref.statistic, tt, rtol=1e-10)
    np.testing.assert_allclose(dunnett_sf(ref.statistic, k - 1, k * (ng - 1), alternative),
                               ref.pvalue, atol=2e-4)
    low = ref.confidence_interval(0.95).low
    c = dunnett_critical_value(0.95, k - 1, k * (ng - 1), alternative)
    diff = np.array([g.mean() - groups[0].mean() for g in groups[1:]])
    np.testing.assert_allclose(diff - c * se, low, atol=2e-3 * se)
    assert dunnett_cdf(c, k - 1, k * (ng - 1), alternative)[0] == pytest.approx(0.95, abs=1e-12)


# -- control= in pairwise_tests and compare ------------------------------------------
import pandas as pd  # noqa: E402
from statsmodels.stats.multitest import multipletests  # noqa: E402

import mrrstats  # noqa: E402


def _runs(n=30, seed=0):
    rng = np.random.default_rng(seed)
    base = rng.random(n)
    return pd.DataFrame({"dense": np.clip(base + rng.normal(0.05, 0.2, n), 0, 1),
                         "bm25": base,
                         "rerank": np.clip(base + rng.normal(0.15, 0.2, n), 0, 1),
                         "splade": np.clip(base + rng.normal(0.1, 0.25, n), 0, 1)},
                        index=pd.Index([f"q{i}" for i in range(n)], name="query"))


@pytest.mark.parametrize("correction", ["holm", "bonferroni", "bh"])
def test_baseline_pairs_t_equal_scipy_and_statsmodels(correction):
    df = _runs()
    res = mrrstats.pairwise_tests(df, test="t", correction=correction, control="bm25")
    assert res.a == ("dense", "rerank", "splade") and res.b == ("bm25",) * 3
    p = [stats.ttest_rel(df[s], df["bm25"]).pvalue for s in res.a]
    np.testing.assert_allclose(res.pvalue, p, rtol=1e-12)
    method = {"holm": "holm", "bonferroni": "bonferroni", "bh": "fdr_bh"}[correction]
    rej, padj, _, _ = multipletests(p, alpha=0.05, method=method)
    np.testing.assert_allclose(res.pvalue_adjusted, padj, rtol=1e-12)
    assert list(res.reject) == list(rej)
    # the intervals agree with the decisions over the k - 1 tests (Holm: those beyond
    # its Bonferroni interval are marked)
    assert list(mrrstats.stats.multiple.ci_excludes_zero(res.ci_low, res.ci_high)) == \
        list(res.reject & ~res.reject_beyond_ci)
    if correction != "holm":
        assert not res.reject_beyond_ci.any()
    by_pos = mrrstats.pairwise_tests(df, test="t", correction=correction, control=1)
    np.testing.assert_array_equal(by_pos.pvalue_adjusted, res.pvalue_adjusted)


@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_dunnett_equals_two_way_ols(alternative):
    import statsmodels.formula.api as smf

    df = _runs(25, seed=3)
    res = mrrstats.pairwise_tests(df, test="dunnett", control="bm25", alternative=alternative)
    long = df.reset_index().melt(id_vars="query", var_name="system", value_name="y")
    fit = smf.ols("y ~ C(system, Treatment('bm25')) + C(query)", data=long).fit()
    name = "C(system, Treatment('bm25'))[T.{}]"
    t_ref = np.array([fit.tvalues[name.format(s)] for s in res.a])
    np.testing.assert_allclose(res.statistic, t_ref, rtol=1e-10)
    df_e = fit.df_resid
    assert df_e == (25 - 1) * (4 - 1)
    np.testing.assert_allclose(res.pvalue_adjusted, dunnett_sf(t_ref, 3, df_e, alternative),
                               rtol=1e-10)
    raw = (2 * stats.t.sf(np.abs(t_ref), df_e) if alternative == "two-sided"
           else stats.t.sf(t_ref, df_e))
    np.testing.assert_allclose(res.pvalue, raw, rtol=1e-10)
    c = dunnett_critical_value(0.95, 3, df_e, alternative)
    se = np.array([fit.bse[name.format(s)] for s in res.a])
    np.testing.assert_allclose(res.ci_low, res.difference - c * se, rtol=1e-9)
    assert res.correction == "dunnett"
    assert list(res.reject) == list(res.pvalue_adjusted <= 0.05)
    with pytest.raises(ValueError, match="control"):
        mrrstats.pairwise_tests(df, test="dunnett")


def test_many_to_one_maxt_by_loop():
    df = _runs(20, seed=5)
    X = df.to_numpy()
    n, k = X.shape
    B = 500
    res = mrrstats.pairwise_tests(df, test="maxt", control="bm25", n_resamples=B, rng=2,
                                  test_options={"statistic": "t"})
    others = [0, 2, 3]

    def tstats(Y):
        d = Y[:, others] - Y[:, [1]]
        return np.abs(d.mean(axis=0) / (d.std(axis=0, ddof=1) / np.sqrt(n)))

    obs = tstats(X)
    gen = np.random.default_rng(2)
    perms = gen.permuted(np.broadcast_to(X, (B, n, k)), axis=-1)
    T = np.array([tstats(p) for p in perms])  # (B, 3)
    order = np.argsort(obs)  # ascending |t|
    p_sd = np.empty(3)
    for pos, q in enumerate(order):
        less = order[:pos + 1]  # q and every less significant pair
        p_sd[q] = (1 + np.sum(T[:, less].max(axis=1) >= obs[q] * (1 - 1e-9))) / (B + 1)
    # monotone from the most significant pair down
    desc = order[::-1]
    p_sd[desc] = np.maximum.accumulate(p_sd[desc])
    np.testing.assert_allclose(res.pvalue_adjusted, p_sd, rtol=1e-12)
    assert res.correction == "westfall-young" and len(res) == 3


def test_compare_baseline_and_cli(tmp_path, capsys):
    df = _runs()
    cmp = mrrstats.compare(df, measure="RR", control="bm25", test="t", n_resamples=2000, rng=5)
    f = cmp.to_frame()
    assert list(f["b"]) == ["bm25"] * 3 and cmp.control == "bm25"
    assert "control bm25" in cmp.caption()
    js = cmp.to_dict()
    assert js["settings"]["control"] == "bm25" and len(js["pairs"]) == 3
    path = tmp_path / "RR.csv"
    df.to_csv(path)
    from mrrstats.cli import main

    assert main(["compare", "--scores", str(path), "--control", "bm25", "--test", "t",
                 "--format", "json", "--seed", "5", "--n-resamples", "2000"]) == 0
    out = capsys.readouterr().out
    import json

    data = json.loads(out)
    assert [p["b"] for p in data["pairs"]] == ["bm25"] * 3
    np.testing.assert_allclose([p["pvalue_adjusted"] for p in data["pairs"]],
                               f["pvalue_adjusted"], rtol=1e-12)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_many_to_one_single_step_by_loop(alternative):
    # the default with control=: single-step max-T over the k - 1 comparisons with the
    # control, all k systems permuted within each query; a loop over the same permutations
    df = _runs(20, seed=7)
    X = df.to_numpy()
    n, k = X.shape
    B = 400
    res = mrrstats.pairwise_tests(df, control="bm25", alternative=alternative,
                                  n_resamples=B, rng=11)
    others = [0, 2, 3]

    def tstats(Y):
        d = Y[:, others] - Y[:, [1]]
        return d.mean(axis=0) / (d.std(axis=0, ddof=1) / np.sqrt(n))

    def directed(t):
        return {"two-sided": np.abs(t), "greater": t, "less": -t}[alternative]

    obs = directed(tstats(X))
    perms = np.random.default_rng(11).permuted(np.broadcast_to(X, (B, n, k)), axis=-1)
    M = np.array([directed(tstats(p)).max() for p in perms])
    thr = obs - 1e-9 * (np.abs(obs) + 1)
    p_adj = (1 + (M[:, None] >= thr).sum(axis=0)) / (B + 1)
    np.testing.assert_allclose(res.pvalue_adjusted, p_adj, rtol=1e-12)
    np.testing.assert_allclose(res.null_distribution, M, rtol=1e-10)
    assert res.correction == "single-step" and res.control == "bm25"
    # the interval: d -/+ c se, c the 95% cut-off of the same maxima
    c = -np.partition(-M, 19)[19]  # K = floor(0.05 * 401) - 1 = 19
    se = (X[:, others] - X[:, [1]]).std(axis=0, ddof=1) / np.sqrt(n)
    d = res.difference
    if alternative != "less":
        np.testing.assert_allclose(res.ci_low, d - c * se, rtol=1e-8, atol=1e-12)
    if alternative != "greater":
        np.testing.assert_allclose(res.ci_high, d + c * se, rtol=1e-8, atol=1e-12)
    assert np.isinf(res.ci_high).all() == (alternative == "greater")
    assert list(mrrstats.stats.multiple.ci_excludes_zero(res.ci_low, res.ci_high)) == \
        list(res.reject)
