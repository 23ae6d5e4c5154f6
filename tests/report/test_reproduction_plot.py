"""er_delta_ri_plot and rmse_by_cutoff draw the reproducibility result they are given."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import mrrstats  # noqa: E402
import mrrstats.plots as mp  # noqa: E402


@pytest.fixture(scope="module")
def result():
    d = mrrstats.datasets.cast2021()
    return mrrstats.reproducibility(
        d.qrels,
        {"baseline": d.runs[0], "advanced": d.runs[1]},
        {"baseline": d.runs[2], "advanced": d.runs[3]},
        measures=["AP", "P@5", "P@10", "P@20"],
        n_resamples=300,
        rng=2,
    )


def test_er_delta_ri_points_and_intervals(result):
    ax = mp.er_delta_ri_plot(result)
    for m in result.measures:
        line = next(ln for ln in ax.lines if ln.get_label() == str(m))
        assert line.get_xdata()[0] == pytest.approx(result.er[m])
        assert line.get_ydata()[0] == pytest.approx(result.delta_ri[m])
        lo, hi = result.intervals.loc[m, ["er_low", "er_high"]]
        assert any(np.allclose(ln.get_xdata(), [lo, hi]) for ln in ax.lines)
    plt.close("all")


def test_rmse_by_cutoff_draws_each_run(result):
    ax = mp.rmse_by_cutoff(result, measure="P")
    for run in ("baseline", "advanced"):
        line = next(ln for ln in ax.lines if ln.get_label() == run)
        assert list(line.get_xdata()) == [5, 10, 20]
        np.testing.assert_allclose(
            line.get_ydata(), result.rmse.loc[run, ["P@5", "P@10", "P@20"]].to_numpy()
        )
    with pytest.raises(mrrstats.ParameterError, match="`measure`"):
        mp.rmse_by_cutoff(result, measure="nDCG")
    with pytest.raises(mrrstats.ParameterTypeError, match="reproducibility"):
        mp.er_delta_ri_plot(result.to_frame())
    plt.close("all")
