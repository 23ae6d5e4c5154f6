"""mixed_model against the two-way ANOVA (balanced data: equal estimates and variances)."""

import math

import numpy as np
import pandas as pd
import pytest

import mrrstats
from mrrstats.stats.mixed import mixed_model


def _table(seed=0, n=40, k=4, sd_q=1.0, sd_e=0.5):
    rng = np.random.default_rng(seed)
    return (rng.normal(0, sd_q, (n, 1)) + np.linspace(0, 0.6, k)
            + rng.normal(0, sd_e, (n, k)))


def test_balanced_agrees_with_anova():
    x = _table()
    res = mixed_model(x.T)
    assert res.query_variance > 0
    # system effects = system means (balanced, no boundary)
    np.testing.assert_allclose(res.effects["estimate"], x.mean(axis=0), atol=1e-6)
    # residual variance = ANOVA residual mean square V_E
    v_e = mrrstats.residual_variance(x.T)
    assert res.residual_variance == pytest.approx(v_e, rel=1e-4)  # REML optimizer tolerance
    # SE of a difference = sqrt(2 V_E / n), Tukey HSD's
    d = res.differences()
    np.testing.assert_allclose(d["standard_error"], math.sqrt(2 * v_e / x.shape[0]), rtol=1e-4)
    # the HSD q statistics follow from the same numbers
    hsd = mrrstats.anova_tukey_hsd(x.T)
    q = np.abs(d["difference"].to_numpy()) / math.sqrt(v_e / x.shape[0])
    np.testing.assert_allclose(np.sort(q), np.sort(np.asarray(hsd.statistic)), rtol=1e-4)


def test_boundary_pools_query_variance():
    # queries of equal difficulty: sigma_u^2 estimated at ~0, residual pools everything
    rng = np.random.default_rng(1)
    x = np.linspace(0, 0.3, 3) + rng.normal(0, 0.5, (30, 3))
    res = mixed_model(x.T)
    if res.query_variance < 1e-6:
        total = ((x - x.mean(axis=0)) ** 2).sum() / (x.size - 3)
        assert res.residual_variance == pytest.approx(total, rel=1e-3)


def test_unbalanced_keep_uses_partial_queries():
    x = _table(seed=2, n=30, k=3)
    frame = pd.DataFrame(x, columns=["a", "b", "c"], index=[f"q{i}" for i in range(30)])
    frame.iloc[:5, 2] = np.nan
    kept = mixed_model(frame, missing="keep")
    dropped = mixed_model(frame, missing="drop")
    assert kept.n_observations == 85 and dropped.n_observations == 75
    assert kept.n_queries == 30 and dropped.n_queries == 25
    # the kept fit uses more data: its SE for system a is not larger
    assert kept.effects.loc["a", "standard_error"] <= dropped.effects.loc["a", "standard_error"] + 1e-9
    with pytest.raises(ValueError, match="`missing`"):
        mixed_model(frame, missing="zap")


def test_mixed_vs_anova_against_statsmodels_ols():
    """The ANOVA side: t tests of the contrasts of an OLS fit score ~ system + query."""
    import statsmodels.formula.api as smf

    x = _table(seed=4, n=25, k=3)
    frame = pd.DataFrame(x, columns=["s0", "s1", "s2"],
                         index=pd.Index([f"q{i}" for i in range(25)], name="query"))
    got = mrrstats.mixed_vs_anova(frame, confidence_level=0.9)
    long = frame.reset_index().melt(id_vars="query", var_name="system", value_name="y")
    ols = smf.ols("y ~ 0 + C(system) + C(query)", data=long).fit()
    names = list(ols.params.index)
    assert got.attrs["df_anova"] == ols.df_resid == 24 * 2
    assert got.attrs["anova_residual_variance"] == pytest.approx(ols.scale, rel=1e-10)
    for row in got.itertuples(index=False):
        c = np.zeros(len(names))
        c[names.index(f"C(system)[{row.a}]")] = 1
        c[names.index(f"C(system)[{row.b}]")] = -1
        t = ols.t_test(c)
        lo, hi = np.ravel(t.conf_int(alpha=0.1))
        assert row.difference_anova == pytest.approx(float(np.ravel(t.effect)[0]), abs=1e-12)
        assert row.se_anova == pytest.approx(float(np.ravel(t.sd)[0]), rel=1e-10)
        assert (row.low_anova, row.high_anova) == pytest.approx((lo, hi), rel=1e-10)
        assert row.pvalue_anova == pytest.approx(float(t.pvalue), rel=1e-8)
        # the mixed model agrees on a complete table with query variance > 0
        assert row.difference == pytest.approx(row.difference_anova, abs=1e-6)
        assert row.se_mixed == pytest.approx(row.se_anova, rel=1e-3)
    hsd = mrrstats.anova_tukey_hsd(frame).to_frame()
    np.testing.assert_allclose(got["pvalue_tukey"], hsd["pvalue_adjusted"], rtol=1e-12)
    with pytest.raises(ValueError, match="`missing`"):
        mrrstats.mixed_vs_anova(frame, missing="keep")


# lmerTest (Debian r-cran-lmertest), tests/stats/r_reference/mixed_satterthwaite.R:
# lmer(score ~ 0 + system + (1 | query), REML); summary(m)$coefficients (est, se, df) of the
# system means and contest1D(m, L) (est, se, df, p) of the differences s1-s2, s1-s3, s2-s3.
SATT_TABLE = [[0.196, 0.66, 0.52], [0.0, 0.303, 0.211], [0.356, 0.457, 0.493],
              [0.667, 0.655, 0.646], [0.789, 0.932, 0.631], [0.483, 0.455, 0.646],
              [0.196, 0.473, 0.534], [0.297, 0.266, 0.434], [0.486, 0.526, 0.833],
              [0.661, 1.0, 1.0], [0.255, 0.675, 0.539], [0.258, 0.34, 0.105]]
LMERTEST = {
    "balanced": {
        "means": [(0.387000000000001, 0.0680518282999944, 16.5377809958082),
                  (0.561833333333334, 0.0680518282999944, 16.5377809962031),
                  (0.549333333333334, 0.0680518282999944, 16.5377809958071)],
        "diffs": [(-0.174833333333333, 0.052228212684568, 21.9999999770779, 0.00291405459648211),
                  (-0.162333333333333, 0.052228212684568, 21.9999999779234, 0.0051264268360381),
                  (0.0125, 0.052228212684568, 21.9999999779966, 0.813062053592869)]},
    # s2 misses query 3, s3 misses queries 5 and 9 (missing="keep")
    "unbalanced": {
        "means": [(0.387, 0.0693550673001272, 14.7426713265752),
                  (0.567942226326874, 0.070395903708158, 15.4903335176041),
                  (0.548580040655562, 0.0716249449375562, 16.3752271348121)],
        "diffs": [(-0.180942226326874, 0.0486651078652081, 19.0856878302037, 0.00144915981094429),
                  (-0.161580040655562, 0.0504266021257832, 19.1967002821709, 0.00462453086013624),
                  (0.0193621856713115, 0.0520921468178117, 19.343904680728, 0.71416314981972)]},
}


@pytest.mark.parametrize("case", sorted(LMERTEST))
def test_satterthwaite_df_and_t_intervals_against_lmertest(case):
    from scipy import stats

    t = np.array(SATT_TABLE)
    if case == "unbalanced":
        t[2, 1] = t[4, 2] = t[8, 2] = np.nan
    frame = pd.DataFrame(t, columns=["s1", "s2", "s3"],
                         index=pd.Index([f"q{i + 1}" for i in range(12)], name="query"))
    res = mrrstats.mixed_model(frame, missing="keep", df_method="satterthwaite")
    ref = np.array(LMERTEST[case]["means"])
    eff = res.effects
    # limited by statsmodels' REML optimum (variance components within ~1e-5 of lme4's):
    # seen: estimates 3e-7, standard errors 6e-6, df 4e-5 relative
    np.testing.assert_allclose(eff["estimate"], ref[:, 0], rtol=1e-5)
    np.testing.assert_allclose(eff["standard_error"], ref[:, 1], rtol=5e-5)
    np.testing.assert_allclose(eff["df"], ref[:, 2], rtol=2e-4)
    half = stats.t.isf(0.025, eff["df"]) * eff["standard_error"]
    np.testing.assert_allclose(eff["ci_high"] - eff["estimate"], half)
    ci = res.confidence_interval()
    np.testing.assert_allclose(ci.high, eff["ci_high"])
    d = res.differences()
    ref = np.array(LMERTEST[case]["diffs"])
    np.testing.assert_allclose(d["difference"], ref[:, 0], rtol=1e-5)
    np.testing.assert_allclose(d["standard_error"], ref[:, 1], rtol=5e-5)
    np.testing.assert_allclose(d["df"], ref[:, 2], rtol=2e-4)
    np.testing.assert_allclose(d["pvalue"], ref[:, 3], rtol=5e-4)
    if case == "balanced":  # the ANOVA's (n - 1)(k - 1) for a difference
        np.testing.assert_allclose(d["df"], 22, rtol=1e-5)
    wald = mrrstats.mixed_model(frame, missing="keep")
    assert "df" not in wald.effects.columns and "df" not in wald.differences().columns
    with pytest.raises(ValueError, match="df_method"):
        mrrstats.mixed_model(frame, df_method="kenward-roger")
