"""Normal and studentized (bootstrap-t) intervals of bootstrap_ci against R's boot.ci."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import mrrstats
from mrrstats.stats.bootstrap import BootstrapCIResult

# tests/stats/r_reference/boot_ci.R (R 4, boot from Debian r-cran-boot): boot(x, stat,
# R = 999) with stat = c(mean, var/n) after set.seed(20261129); the replicates are in
# boot_ci_replicates.csv, the intervals below are boot.ci(b, conf, type=c("norm", "stud")).
X = [1, 0.5, 1, 0.25, 1, 0.333, 0.2, 1, 0.5, 1, 0.1, 1, 0.0, 0.125, 1, 0.5, 0.333, 1, 0.0, 0.25]
REPLICATES = Path(__file__).parent / "r_reference" / "boot_ci_replicates.csv"
BOOT_CI = {  # conf: (norm low, norm high, stud low, stud high)
    0.95: (0.380985459284655, 0.716353980154784, 0.371574883774287, 0.728384843919369),
    0.9: (0.407944652251698, 0.689394787187741, 0.405801600677518, 0.703231080455894),
}
# the same script, set.seed(1), R = 20000, conf = 0.95 (another random stream than ours)
BOOT_CI_20000 = (0.386010239118941, 0.724836220881059, 0.370296314768445, 0.744117807398402)


def _result_from_r():
    rep = pd.read_csv(REPLICATES)
    x = np.asarray(X)
    theta = float(x.mean())
    se_hat = float(x.std(ddof=1)) / math.sqrt(x.size)
    tstar = (rep["mean"].to_numpy() - theta) / np.sqrt(rep["var"].to_numpy())
    dist = np.sort(rep["mean"].to_numpy())
    return (
        BootstrapCIResult(
            theta,
            float(dist.std(ddof=1)),
            dist,
            0.0,
            "normal",
            0.95,
            "two-sided",
            dist.size,
            x.size,
            None,
            None,
            "multinomial",
            np.sort(tstar),
            se_hat,
        ),
        np.sort(tstar),
        se_hat,
    )


@pytest.mark.parametrize("cl", sorted(BOOT_CI))
def test_normal_and_studentized_formulas_on_rs_replicates(cl):
    res, tstar, se_hat = _result_from_r()
    norm = res.confidence_interval(cl, method="normal")
    # deterministic given the replicates: equal to boot.ci's to rounding (seen: 1e-16)
    assert (norm.low, norm.high) == pytest.approx(BOOT_CI[cl][:2], abs=1e-12)
    stud = res.confidence_interval(cl, method="studentized")
    # boot.ci interpolates between order statistics on the normal scale (norm.inter), we
    # linearly: within one spacing of t* at each quantile (times se_hat); seen 0.8 spacings
    alpha = (1 - cl) / 2
    for got, want, p in (
        (stud.low, BOOT_CI[cl][2], 1 - alpha),
        (stud.high, BOOT_CI[cl][3], alpha),
    ):
        h = int((tstar.size - 1) * p)
        spacing = se_hat * (tstar[h + 1] - tstar[h - 1])
        assert abs(got - want) <= spacing


def test_whole_runs_agree_with_r_within_monte_carlo_error():
    # different random streams, B = R = 20000: the limits' Monte-Carlo sd is about 0.003
    # (five seeds of ours spread over 0.004); tolerance 0.015
    for m, want in (("normal", BOOT_CI_20000[:2]), ("studentized", BOOT_CI_20000[2:])):
        ci = mrrstats.bootstrap_ci(X, method=m, n_resamples=20000, rng=7).confidence_interval()
        assert (ci.low, ci.high) == pytest.approx(want, abs=0.015)


def test_studentized_replicates_follow_the_same_resamples():
    x = np.random.default_rng(3).random(25)
    st = mrrstats.bootstrap_ci(x, method="studentized", n_resamples=500, rng=11)
    pc = mrrstats.bootstrap_ci(x, method="percentile", n_resamples=500, rng=11)
    np.testing.assert_array_equal(st.bootstrap_distribution, pc.bootstrap_distribution)
    assert st.studentized_distribution is not None and pc.studentized_distribution is None
    # t* = (mean* - mean) / (s*/sqrt n): its mean is near 0, its sd near 1 for n = 25
    t = st.studentized_distribution
    assert abs(np.median(t)) < 0.3 and 0.7 < t.std() < 1.5
    # the other intervals stay available on a studentized result
    assert st.confidence_interval(method="normal").method == "normal"
    with pytest.raises(ValueError, match="studentized"):
        pc.confidence_interval(method="studentized")
    with pytest.raises(ValueError, match="studentized"):
        mrrstats.bootstrap_ci(x, method="studentized", scheme="poisson", rng=1)
    one = mrrstats.bootstrap_ci(x, method="studentized", alternative="greater", rng=1)
    assert one.confidence_interval().high == math.inf
