"""Many-to-one comparisons with a baseline: Dunnett's distribution, baseline= in
pairwise_tests / compare, and the many-to-one step-down max-T."""

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
