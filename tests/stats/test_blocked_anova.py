"""blocked_anova (the omnibus F of the blocked design) and Friedman's test, against R."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import mrrstats

# tests/stats/r_reference/blocked_anova_friedman.R (R 4, base stats):
# summary(aov(score ~ system + query)) and friedman.test(tab), tab = 12 queries x 3 systems.
TABLE = [
    [0.196, 0.66, 0.52],
    [0.0, 0.303, 0.211],
    [0.356, 0.457, 0.493],
    [0.667, 0.655, 0.646],
    [0.789, 0.932, 0.631],
    [0.483, 0.455, 0.646],
    [0.196, 0.473, 0.534],
    [0.297, 0.266, 0.434],
    [0.486, 0.526, 0.833],
    [0.661, 1.0, 1.0],
    [0.255, 0.675, 0.539],
    [0.258, 0.34, 0.105],
]
AOV = {  # df, sum_sq, mean_sq, F, p
    "system": (2, 0.228300222222223, 0.114150111111111, 6.97452701806143, 0.00450907390754513),
    "query": (11, 1.47382855555556, 0.133984414141414, 8.18639515399878, 1.70471141847242e-05),
    "residual": (22, 0.360067777777778, 0.0163667171717172, np.nan, np.nan),
}
FRIEDMAN = (4.63829787234043, 2, 0.0983572582988444)  # chi2, df, p (one tie: 1.0, 1.0)


def _frame():
    return pd.DataFrame(
        TABLE,
        columns=["s1", "s2", "s3"],
        index=pd.Index([f"q{i + 1}" for i in range(12)], name="query"),
    )


def test_blocked_anova_equals_r_aov():
    tab = mrrstats.blocked_anova(_frame())
    assert list(tab.index) == ["system", "query", "residual"]
    for source, ref in AOV.items():
        # largest relative difference seen: 8e-15
        np.testing.assert_allclose(tab.loc[source].to_numpy(dtype=float), ref, rtol=1e-12)
    assert tab.loc["residual", "mean_sq"] == pytest.approx(mrrstats.residual_variance(_frame()))


def test_friedman_of_queries_as_blocks_equals_r():
    f = mrrstats.critical_difference(_frame()).friedman
    assert (f["statistic"], f["df"], f["pvalue"]) == pytest.approx(FRIEDMAN, rel=1e-12)


def test_blocked_anova_degenerate_and_bad_input():
    # systems differ by constants per query: no residual, F infinite
    x = np.array([[0.0, 0.25, 0.5, 0.25], [0.5, 0.75, 1.0, 0.75]])  # exact in binary
    tab = mrrstats.blocked_anova(x)
    assert tab.loc["system", "F"] == np.inf and tab.loc["system", "pvalue"] == 0.0
    with pytest.raises(ValueError):
        mrrstats.blocked_anova(np.array([[0.1, np.nan], [0.2, 0.3]]))
