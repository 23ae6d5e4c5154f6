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
