"""critical_difference_plot: the critical-difference diagram draws the result it is given."""

from __future__ import annotations

import matplotlib
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

import mrrstats  # noqa: E402
import mrrstats.plots as mp  # noqa: E402


@pytest.fixture(scope="module")
def blocks():
    ap = mrrstats.datasets.trec7_scores("AP")
    return ap.iloc[:, :8].groupby(ap.index.to_series().astype(int).sub(1) // 5).mean()


def test_diagram_draws_every_system_the_cliques_and_the_cd(blocks):
    res = mrrstats.critical_difference(blocks)
    ax = mp.critical_difference_plot(res)
    texts = [t.get_text() for t in ax.texts]
    for system, rank in res.average_ranks.items():
        short = mp.short_names(list(res.average_ranks.index))[
            list(res.average_ranks.index).index(system)
        ]
        assert any(short in t and f"{rank:.2f}" in t for t in texts), system
    assert f"CD = {res.critical_difference:.2f}" in texts
    bars = [ln for ln in ax.lines if ln.get_linewidth() == 3.0]
    assert len(bars) == len(res.cliques) >= 1
    for line, clique in zip(bars, res.cliques, strict=True):
        xs = line.get_xdata()
        ranks = res.average_ranks[list(clique)]
        assert min(xs) == pytest.approx(ranks.min() - 0.03)
        assert max(xs) == pytest.approx(ranks.max() + 0.03)
    assert ax.get_xlabel() == "average rank (1 = best)"
    plt.close("all")


def test_result_plot_uses_the_given_axes_and_other_tests_have_no_cd_bar(blocks):
    res = mrrstats.critical_difference(blocks, test="wilcoxon-holm")
    _, ax = plt.subplots()
    assert res.plot(ax=ax) is ax
    assert not any(t.get_text().startswith("CD =") for t in ax.texts)
    plt.close("all")


def test_refuses_what_it_cannot_draw(blocks):
    with pytest.raises(mrrstats.ParameterTypeError, match="critical_difference"):
        mp.critical_difference_plot(blocks)
    with pytest.raises(mrrstats.ParameterTypeError, match="`ax`"):
        mp.critical_difference_plot(mrrstats.critical_difference(blocks), ax="left")
