"""Plots built on real data (TREC-7 score matrices, CAsT 2021, link-prediction graphs).

Every test checks the content of the figure (artists, their data, labels,
titles, legends) against values computed independently from the data, not
only that drawing succeeds.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from scipy import stats  # noqa: E402

import mrrstats  # noqa: E402
import mrrstats.plots as mp  # noqa: E402
from mrrstats.io import read_score_matrix  # noqa: E402
from tests.conftest import ROOT  # noqa: E402
from tests.reference_data import data_path  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def trec7():
    return {m: read_score_matrix(data_path("score_matrices", "trec_adhoc", f"adhoc7_{f}.csv"))
            for m, f in (("RR", "rr"), ("AP", "ap"), ("P@10", "p10"))}


@pytest.fixture(scope="module")
def cast():
    data = mrrstats.datasets.cast2021()
    return mrrstats.evaluate(data.qrels, data.runs, ["RR", "AP", "nDCG@10", "Rank"])


def _legend_texts(ax):
    return [t.get_text() for t in ax.get_legend().get_texts()]


# child interpreters import this checkout's mrrstats, not the installed copy
_THIS_CHECKOUT = dict(os.environ, PYTHONPATH=os.pathsep.join(
    p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))


def test_import_does_not_import_matplotlib():
    code = "import sys, mrrstats, mrrstats.plots; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=_THIS_CHECKOUT)
    assert out.stdout.strip() == "False"


def test_given_axes_is_used_and_returned(trec7):
    fig, ax = plt.subplots()
    n_figs = len(plt.get_fignums())
    assert mp.rr_histogram(trec7["RR"], systems=["run1"], ax=ax) is ax
    assert len(plt.get_fignums()) == n_figs


# -- 1. distributions ---------------------------------------------------------
def test_rr_histogram_trec7_with_random_reference(trec7):
    rr = trec7["RR"]
    show = ["run1", "run5", "run50"]
    ax = mp.rr_histogram(rr, systems=show, n_candidates=1000, n_relevant=10, bins=20)
    bars = [p for p in ax.patches if isinstance(p, matplotlib.patches.Rectangle)]
    steps = [p for p in ax.patches if isinstance(p, matplotlib.patches.Polygon)]
    assert len(bars) == 20 and len(steps) == 3
    heights = np.array([b.get_height() for b in bars])
    # the expected shares form a distribution; the top bin [0.95, 1] holds P(K = 1) = R/N
    # exactly (pmf of the first relevant rank), here 10/1000
    assert heights.sum() == pytest.approx(1.0, abs=1e-12)
    assert heights[-1] == pytest.approx(10 / 1000, rel=1e-12)
    # random E[MRR] line, then one MRR line per system
    vlines = [ln.get_xdata()[0] for ln in ax.lines]
    assert vlines[0] == pytest.approx(mrrstats.expected_mrr(1000, 10))
    assert vlines[1:] == pytest.approx([rr[s].mean() for s in show])
    # each step outline reaches the share of queries with RR = 1 in the top bin
    for poly, s in zip(steps, show, strict=True):
        y_top = poly.get_xy()[poly.get_xy()[:, 0] >= 0.95][:, 1].max()
        assert y_top == pytest.approx((rr[s] >= 0.95).mean())
    texts = _legend_texts(ax)
    assert any(f"run5 (MRR = {rr['run5'].mean():.3f})" == t for t in texts)
    assert ax.get_xlim() == (0.0, 1.0)
    assert "RR of the query" in ax.get_xlabel() and "n = 50" in ax.get_ylabel()


def test_rr_histogram_evaluation_random_judged(cast):
    runs = list(cast.runs)[:2]
    ax = mp.rr_histogram(cast, systems=runs, random="judged")
    counts = mrrstats.random_baseline_counts(cast, random="judged")
    counts = counts[counts["run"].isin(runs)]
    expected = mrrstats.expected_mrr(counts["n_candidates"], counts["n_relevant"])
    assert ax.lines[0].get_xdata()[0] == pytest.approx(expected)
    assert f"E[MRR] = {expected:.3f}" in _legend_texts(ax)[0]


def test_rr_histogram_rejects_bad_input(trec7, cast):
    with pytest.raises(ValueError, match="`systems`: 103 systems are too many"):
        mp.rr_histogram(trec7["RR"])
    with pytest.raises(ValueError, match="`bins`"):
        mp.rr_histogram(trec7["RR"], systems=["run1"], bins=[0.5, 1.0, 2.0])
    with pytest.raises(ValueError, match="`random` needs an Evaluation"):
        mp.rr_histogram(trec7["RR"], systems=["run1"], random="judged")
    with pytest.raises(ValueError, match="unknown systems"):
        mp.rr_histogram(cast, systems=["nope"])


def test_rank_ecdf_from_rr_trec7(trec7):
    rr = trec7["RR"]
    show = ["run1", "run5"]
    ax = mp.rank_ecdf(rr, systems=show, n_candidates=1000, n_relevant=10)
    assert ax.get_xscale() == "log"
    sys_lines, random_line = ax.lines[:2], ax.lines[2]
    for line, s in zip(sys_lines, show, strict=True):
        x, y = line.get_xdata(), line.get_ydata()
        # first jump at rank 1 is the share of RR = 1; the ECDF ends at the share with RR > 0
        assert y[np.searchsorted(x, 1.0, side="right") - 1] == pytest.approx((rr[s] == 1).mean())
        assert y[-1] == pytest.approx((rr[s] > 0).mean())
        assert np.all(np.diff(y) >= 0)
    # random reference: exact CDF of the first relevant rank, P(K <= 1) = R/N
    gx, gy = random_line.get_xdata(), random_line.get_ydata()
    assert gy[0] == pytest.approx(10 / 1000) and gy[-1] == pytest.approx(1.0)
    assert gx[-1] == 1000
    assert ax.get_xlabel().startswith("rank of the first relevant document")


def test_rank_ecdf_cast_rank_measure_retrieved(cast):
    runs = list(cast.runs)[:3]
    ax = mp.rank_ecdf(cast, systems=runs, random="retrieved")
    ranks = cast.scores("Rank")
    for line, r in zip(ax.lines[:3], runs, strict=True):
        assert line.get_ydata()[-1] == pytest.approx(np.isfinite(ranks[r]).mean())
    # under "retrieved", a query whose retrieved list holds no relevant document is never
    # found by the random ranker either: the random CDF ends at the share with R > 0
    counts = mrrstats.random_baseline_counts(cast, random="retrieved")
    counts = counts[counts["run"].isin(runs)]
    assert ax.lines[3].get_ydata()[-1] == pytest.approx((counts["n_relevant"] > 0).mean())
    none = 1 - np.isfinite(ranks[runs[0]]).mean()
    assert f"{none:.0%} none found" in _legend_texts(ax)[0]


# -- 2. paired differences --------------------------------------------------
def test_paired_differences_cast(cast):
    s = cast.scores("RR")
    a, b = s["org_manual_ance_bert.run"], s["org_manual_bm25.run"]
    ci = mrrstats.paired_ttest(a, b).confidence_interval(0.95)
    ax = mp.paired_differences(a, b, measure="RR", interval=ci)
    d = (a - b).to_numpy()
    wins, losses = ax.containers
    assert len(wins) == (d > 0).sum() and len(losses) == (d < 0).sum()
    heights = [p.get_height() for p in wins] + [p.get_height() for p in losses]
    assert heights == sorted(heights, reverse=True)            # sorted by difference
    band = [p for p in ax.patches if p not in list(wins) + list(losses)][0]
    assert band.get_y() == pytest.approx(ci.low)
    assert band.get_y() + band.get_height() == pytest.approx(ci.high)
    assert f"95% CI [{ci.low:+.3f}, {ci.high:+.3f}] (marginal paired t)" in [
        t.replace("\n", " ") for t in _legend_texts(ax)]
    mean_line = [ln for ln in ax.lines if ln.get_linestyle() == "--"][0]
    assert mean_line.get_ydata()[0] == pytest.approx(d.mean())
    assert f"{(d == 0).sum()} ties" in ax.get_xlabel()
    assert "org_manual_bm25.run better" in _legend_texts(ax)[-1]


def test_paired_differences_draws_the_given_interval_and_computes_none(cast):
    s = cast.scores("RR")
    a, b = s.iloc[:, 0], s.iloc[:, 1]
    res = mrrstats.bootstrap_ci(a, b, n_resamples=2000, rng=7)
    low, high = res.confidence_interval()
    # a result, its ConfidenceInterval and a pairwise row all give the same band
    pr = mrrstats.pairwise_tests(s.iloc[:, :2], test="t").to_frame().iloc[0]
    # (bootstrap_ci's default interval: the studentized bootstrap)
    for interval, how in ((res, "studentized bootstrap"),
                          (res.confidence_interval(), "studentized bootstrap"),
                          ((low, high), None)):
        ax = mp.paired_differences(a, b, interval=interval)
        text = [t for t in _legend_texts(ax) if "CI" in t][0].replace("\n", " ")
        assert f"[{low:+.3f}, {high:+.3f}]" in text
        assert (how in text) if how else "(" not in text
        plt.close("all")
    ax = mp.paired_differences(a, b, interval=pr)
    assert f"[{pr['ci_low']:+.3f}, {pr['ci_high']:+.3f}]" in " ".join(_legend_texts(ax))
    ax = mp.paired_differences(a, b)                     # no interval: none drawn
    assert not [t for t in _legend_texts(ax) if "CI" in t]
    with pytest.raises(TypeError, match="no longer computes"):
        mp.paired_differences(a, b, ci="bca", rng=7)
    with pytest.raises(TypeError, match="`interval`"):
        mp.paired_differences(a, b, interval="t")
    with pytest.raises(ValueError, match="equal length"):
        mp.paired_differences([1.0, 0.5, 1.0], [1.0, 0.5])


# -- 3. forest plots ---------------------------------------------------------
def _errorbar_intervals(container):
    segs = container.lines[2][0].get_segments()
    return np.array([[s[0][0], s[1][0]] for s in segs])


def test_forest_means_draws_given_intervals_trec7(trec7):
    rr = trec7["RR"]
    # reference: scipy's t interval of each system's mean
    rows = {}
    for s in rr.columns:
        lo, hi = stats.t.interval(0.95, 49, loc=rr[s].mean(), scale=stats.sem(rr[s]))
        rows[s] = {"mean": rr[s].mean(), "ci_low": lo, "ci_high": hi}
    table = pd.DataFrame.from_dict(rows, orient="index")
    table["method"], table["confidence_level"], table["n_queries"] = "t", 0.95, 50
    ax = mp.forest_means(table, measure="RR")
    labels = [t.get_text() for t in ax.get_yticklabels()]
    means = rr.mean()
    assert len(labels) == 103 and labels[-1] == means.idxmax() and labels[0] == means.idxmin()
    iv = _errorbar_intervals(ax.containers[0])
    np.testing.assert_allclose(iv, table.loc[labels, ["ci_low", "ci_high"]].to_numpy(float),
                               rtol=1e-12)
    assert ax.get_xlabel() == "MRR with 95% marginal paired t CI (50 queries)"
    with pytest.raises(TypeError, match="draws computed intervals"):
        mp.forest_means(rr)
    with pytest.raises(TypeError, match="no longer computes"):
        mp.forest_means(table, method="t")


def test_forest_means_from_results(cast):
    s = cast.scores("RR")
    gen = np.random.default_rng(3)
    res = {c: mrrstats.bootstrap_ci(s[c], n_resamples=2000, rng=gen) for c in s.columns}
    ax = mp.forest_means(res, measure="RR", sort=False)
    iv = _errorbar_intervals(ax.containers[0])[::-1]   # unsorted: first column on top
    np.testing.assert_allclose(iv, np.array([tuple(r.confidence_interval())
                                             for r in res.values()]), rtol=1e-12)
    assert "95% marginal studentized bootstrap CI" in ax.get_xlabel()


def test_forest_differences_draws_the_result(cast):
    base = "org_manual_bm25.run"
    s = cast.scores("RR")
    pairwise = mrrstats.pairwise_tests(s, test="t", correction="holm", ci="t")
    family = mrrstats.randomized_tukey_hsd(s, n_resamples=2000, rng=0)
    ax = mp.forest_differences(pairwise, base, simultaneous=family, measure="RR")
    others = [c for c in s.columns if c != base]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert sorted(labels) == sorted(others)
    marginal = ax.collections[0].get_segments()
    simultaneous = _errorbar_intervals(ax.containers[0])
    for row, name in enumerate(labels):
        # the result's own interval: the paired t interval of system - baseline (scipy)
        d = s[name] - s[base]
        lo, hi = stats.t.interval(0.95, d.size - 1, loc=d.mean(), scale=stats.sem(d))
        assert (marginal[row][0][0], marginal[row][1][0]) == pytest.approx((lo, hi))
        k = [i for i in range(len(family.a)) if {family.a[i], family.b[i]} == {name, base}][0]
        sign = 1 if family.a[k] == name else -1
        ref = sorted((sign * family.ci_low[k], sign * family.ci_high[k]))
        assert tuple(simultaneous[row]) == pytest.approx(tuple(ref))
    # filled diamonds: the pairwise result's decisions
    filled = ax.collections[-2].get_offsets()
    assert len(filled) == sum(pairwise.reject[i] for i in range(len(pairwise.a))
                              if base in (pairwise.a[i], pairwise.b[i]))
    assert "randomised Tukey HSD" in " ".join(_legend_texts(ax))
    assert "95% CI\n(marginal paired t)" in _legend_texts(ax)
    # the frame of the result draws the same
    ax2 = mp.forest_differences(pairwise.to_frame(), base, measure="RR")
    np.testing.assert_allclose(np.array(ax2.collections[0].get_segments()),
                               np.array(marginal))


def test_forest_differences_rejects_bad_input(cast):
    s = cast.scores("RR")
    plain = mrrstats.pairwise_tests(s, test="t")
    with pytest.raises(ValueError, match="`control` 'bm25' is in no pair"):
        mp.forest_differences(plain, "bm25")
    with pytest.raises(ValueError, match="family-wise test"):
        mp.forest_differences(plain, "org_manual_bm25.run", simultaneous=plain)
    with pytest.raises(TypeError, match="no longer runs tests"):
        mp.forest_differences(plain, "org_manual_bm25.run", marginal="t")
    with pytest.raises(TypeError, match="PairwiseResult"):
        mp.forest_differences(s.to_numpy(), "org_manual_bm25.run")


def test_forest_differences_open_ends_and_the_old_name(cast):
    """A step-down compatible interval's infinite end runs to the plot's edge (said in the
    legend); finite intervals draw no such note. baseline= is the deprecated control=."""
    s = cast.scores("RR")
    control = "org_manual_bm25.run"
    frame = mrrstats.pairwise_tests(s, test="t", correction="holm", ci="t").to_frame()
    finite = mp.forest_differences(frame, control, measure="RR")
    assert not [t for t in _legend_texts(finite) if "edge" in t]
    opened = frame.copy()
    opened["ci_method"] = "holm-sb2008(t)"
    hit = (opened["b"] == control) & opened["reject"]
    assert hit.any()
    opened.loc[hit, "ci_high"] = np.inf
    ax = mp.forest_differences(opened, control, measure="RR")
    assert [t for t in _legend_texts(ax) if "edge" in t]
    ends = np.array(ax.collections[0].get_segments())[:, :, 0]
    assert np.isfinite(ends).all() and ends.max() == pytest.approx(ax.get_xlim()[1])
    with pytest.warns(DeprecationWarning, match="use control="):
        old = mp.forest_differences(frame, baseline=control, measure="RR")
    assert [t.get_text() for t in old.get_yticklabels()] == \
        [t.get_text() for t in finite.get_yticklabels()]


# -- 4. null / bootstrap distribution -----------------------------------------
def test_null_distribution_bootstrap_result(cast):
    s = cast.scores("RR")
    res = mrrstats.bootstrap_ci(s.iloc[:, 0], s.iloc[:, 4], n_resamples=3000, rng=5)
    ax = mp.null_distribution(res)
    bars = [p for c in ax.containers for p in c]   # the bars (not the shaded interval)
    area = sum(b.get_height() * b.get_width() for b in bars)
    assert area == pytest.approx(1.0)            # a density
    low, high = res.confidence_interval()
    obs = [ln for ln in ax.lines if ln.get_linewidth() == 2][0]
    assert obs.get_xdata()[0] == pytest.approx(res.statistic)
    assert any(f"95% marginal studentized bootstrap interval [{low:.4g}, {high:.4g}]" == t
               for t in _legend_texts(ax))
    assert "B = 3,000" in " ".join(_legend_texts(ax))


def test_null_distribution_signflip_trec7(trec7):
    rr = trec7["RR"]
    d = (rr["run10"] - rr["run20"]).to_numpy()
    gen = np.random.default_rng(11)
    null = (gen.choice([-1.0, 1.0], size=(4000, d.size)) * d).mean(axis=1)
    ax = mp.null_distribution(null, d.mean(), xlabel="mean difference in RR")
    extreme = [p for p in ax.patches if p.get_hatch() == "////"]
    assert extreme                               # some of the null is beyond |observed|
    p = (1 + np.sum(np.abs(null) >= abs(d.mean()) - 1e-12)) / (1 + null.size)
    assert f"(p = {p:.3g})" in " ".join(_legend_texts(ax))
    assert ax.get_xlabel() == "mean difference in RR" and ax.get_ylabel() == "density"
    with pytest.raises(ValueError, match="`kind`"):
        mp.null_distribution(null, 0.1, kind="posterior")
    # an observed value far outside the null is still inside the x-limits (both mirrors)
    far = 5 * np.abs(null).max()
    ax = mp.null_distribution(null, far)
    lo, hi = ax.get_xlim()
    assert lo < -far and far < hi


# -- 5. agreement --------------------------------------------------------------
def test_measure_scatter_tau_in_title(trec7):
    ax = mp.measure_scatter(trec7, "RR", "AP")
    x, y = trec7["RR"].mean(), trec7["AP"].mean()
    # reference: scipy's Kendall tau-b of the system means (rounded like the package)
    tau = stats.kendalltau(x.round(12), y.round(12)).statistic
    assert f"Kendall's $\\tau$ = {tau:.3f}" in ax.get_title()
    assert "$\\tau_{AP}$" in ax.get_title() and "τ_AP" not in ax.get_title()  # mathtext
    pts = ax.collections[0].get_offsets()
    assert len(pts) == 103
    np.testing.assert_allclose(np.asarray(pts)[:, 0], x.to_numpy())
    assert ax.get_xlabel().startswith("MRR") and ax.get_ylabel() == "MAP"
    with pytest.raises(ValueError, match="no measure"):
        mp.measure_scatter(trec7, "RR", "nDCG")


def test_measure_scatter_cast_evaluation(cast):
    ax = mp.measure_scatter(cast, "RR", "nDCG@10")
    assert len(ax.texts) == 5                    # few systems: each one labelled
    assert ax.get_ylabel() == "mean nDCG@10"


def test_tau_heatmap_trec7(trec7):
    ax = mp.tau_heatmap(trec7)
    agree = mrrstats.ranking_agreement(trec7)
    ref = mrrstats.agreement_matrix(agree, "tau").to_numpy()
    np.testing.assert_allclose(ax.images[0].get_array(), ref)
    assert [t.get_text() for t in ax.texts] == [f"{v:.3f}" for v in ref.ravel()]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["RR", "AP", "P@10"]
    assert "103 systems" in ax.get_title()
    assert len(ax.figure.axes) == 2                # the colour bar
    ax2 = mp.tau_heatmap(agree, value="n_swaps")
    assert ax2.texts[1].get_text() == str(int(agree.iloc[0]["n_swaps"]))  # (RR, AP)


# -- 6. power ------------------------------------------------------------------
def test_power_curve_matches_statsmodels(trec7):
    from statsmodels.stats.power import TTestPower

    from mrrstats.report import power_table

    rr = trec7["RR"]
    table = power_table(rr, differences=(0.05, 0.1), n_queries=np.arange(10, 301))
    ax = mp.power_curve(table)
    sd = math.sqrt(2 * mrrstats.residual_variance(rr))
    assert table.attrs["sd"] == pytest.approx(sd)
    curves = [ln for ln in ax.lines if len(ln.get_xdata()) > 2]
    assert len(curves) == 2
    for line, d in zip(curves, (0.05, 0.1), strict=True):
        x, y = line.get_xdata(), line.get_ydata()
        ref = TTestPower().power(effect_size=d / sd, nobs=50, alpha=0.05)
        assert y[x == 50][0] == pytest.approx(ref, rel=1e-9)
        need = math.ceil(TTestPower().solve_power(effect_size=d / sd, nobs=None, alpha=0.05,
                                                  power=0.8))
        assert any(f"Δ = {d:g} (n ≥ {need:,})" == t for t in _legend_texts(ax))
    assert ax.get_xlabel() == "number of queries" and ax.get_ylim()[1] > 1


def test_power_curve_simulated_points(trec7):
    from mrrstats.report import power_table

    rr = trec7["RR"]
    d = (rr["run10"] - rr["run20"]).to_numpy()
    pts = (10, 22, 35, 47, 60)
    gen = np.random.default_rng(2)
    sim = [mrrstats.randomization_power(d, n_queries=m, difference=0.1, n_simulations=60,
                                        n_resamples=100, rng=gen) for m in pts]
    simulated = pd.DataFrame({"difference": 0.1, "n_queries": pts,
                              "power": [r.power for r in sim],
                              "power_se": [r.power_se for r in sim]})
    table = power_table(float(d.std(ddof=1)), differences=(0.1,), n_queries=np.arange(10, 61))
    ax = mp.power_curve(table, simulated=simulated)
    drawn = np.asarray(ax.containers[0].lines[0].get_ydata(), dtype=float)
    np.testing.assert_allclose(drawn, simulated["power"].to_numpy())
    with pytest.raises(TypeError, match="draws computed power"):
        mp.power_curve(0.3)
    with pytest.raises(TypeError, match="no longer computes"):
        mp.power_curve(table, differences=(0.1,))


# -- 7. observed against random ------------------------------------------------
def test_observed_vs_random_cast(cast):
    table = mrrstats.evaluation_baseline(cast, random="retrieved", rng=0)
    ax = mp.observed_vs_random(table)
    counts = mrrstats.random_baseline_counts(cast, random="retrieved")
    expected = [mrrstats.expected_mrr(counts.loc[counts["run"] == r, "n_candidates"],
                                      counts.loc[counts["run"] == r, "n_relevant"])
                for r in cast.runs]
    open_pts = ax.containers[0].lines[0]
    np.testing.assert_allclose(open_pts.get_xdata(), expected)
    observed = [ln for ln in ax.lines if ln.get_marker() == "s"][0].get_xdata()
    np.testing.assert_allclose(observed, cast.aggregate()["RR"].to_numpy())
    labels = [t.get_text() for t in ax.get_yticklabels()]
    adj = (observed[0] - expected[0]) / (1 - expected[0])
    assert labels[0] == f"{cast.runs[0]}\nadjusted {adj:.3f}"
    # the expected MRR under random ranking is labelled on the figure
    assert f"E = {expected[0]:.3f}" in [t.get_text() for t in ax.texts]
    with pytest.raises(TypeError, match="evaluation_baseline"):
        mp.observed_vs_random(cast, random="retrieved")


def test_observed_vs_random_per_dataset_kg():
    rows = {}
    for name in ("nations", "kinship", "umls"):
        test = pd.read_csv(data_path("kg", name, "test.txt"), sep="\t", header=None)
        train = pd.read_csv(data_path("kg", name, "train.txt"), sep="\t", header=None)
        entities = pd.unique(pd.concat([train[0], train[2], test[0], test[2]]))
        # a random ranking of all entities: N candidates, one true tail per test triple
        n = np.full(len(test), entities.size)
        rows[name] = {"observed": 1.0 / 3, "expected": mrrstats.expected_mrr(n),
                      "std": math.sqrt(mrrstats.variance_mrr(n))}
    table = pd.DataFrame.from_dict(rows, orient="index")
    ax = mp.observed_vs_random(table)
    # reference: E[RR] = H(N)/N for one relevant among N (exact), per data set
    for line_x, N in zip(ax.containers[0].lines[0].get_xdata(),
                         [rows[k]["expected"] for k in rows], strict=True):
        assert line_x == pytest.approx(N)
    n_nations = len(pd.unique(pd.concat([pd.read_csv(data_path("kg", "nations", f), sep="\t",
                                                     header=None)[c]
                                         for f in ("train.txt", "test.txt") for c in (0, 2)])))
    h = sum(1 / j for j in range(1, n_nations + 1))
    assert rows["nations"]["expected"] == pytest.approx(h / n_nations)
    assert len(ax.get_yticklabels()) == 3 and ax.get_xlim() == (0.0, 1.0)


def test_expected_mrr_curve_is_harmonic_over_n():
    ax = mp.expected_mrr_curve(n_candidates=np.arange(1, 501), n_relevant=(1, 3))
    x, y = ax.lines[0].get_xdata(), ax.lines[0].get_ydata()
    H = np.cumsum(1.0 / np.arange(1, 501))
    np.testing.assert_allclose(y, H[x - 1] / x, rtol=1e-12)   # E[RR] = H(N)/N for R = 1
    assert ax.lines[1].get_xdata()[0] == 3                    # R = 3 needs N >= 3
    assert ax.get_xscale() == ax.get_yscale() == "log"
    assert [t.get_text() for t in ax.get_legend().get_texts()][:2] == ["R = 1", "R = 3"]


# -- 8. teaching ---------------------------------------------------------------
def test_rank_credit_definitions():
    ax = mp.rank_credit(max_rank=50)
    r = np.arange(1, 51)
    rr, ap, ndcg = (ln.get_ydata() for ln in ax.lines)
    np.testing.assert_allclose(rr, 1 / r)
    np.testing.assert_allclose(ap, 1 / r)                       # one relevant: AP = RR
    np.testing.assert_allclose(ndcg, 1 / np.log2(r + 1))        # DCG of one gain-1 document
    assert _legend_texts(ax)[1] == "AP (= RR here)"
    ax = mp.rank_credit(max_rank=20, n_relevant=4, measures=["RR", "AP", "P@10"])
    rr, ap, p10 = (ln.get_ydata() for ln in ax.lines)
    r = np.arange(1, 21)
    np.testing.assert_allclose(ap, 1 / (4 * r))                 # precision 1/r, over R = 4
    np.testing.assert_allclose(p10, np.where(r <= 10, 0.1, 0.0))
    assert ax.get_legend().get_title().get_text() == "4 relevant, 1 retrieved"
    with pytest.raises(ValueError, match="`max_rank`"):
        mp.rank_credit(max_rank=1)


def test_style_context_embeds_truetype_fonts():
    with mp.style_context():
        assert matplotlib.rcParams["pdf.fonttype"] == 42
    assert len(set(mp.PALETTE)) == 8


# -- paper figures ---------------------------------------------------------------
@pytest.mark.slow
def test_paper_figures_quick(tmp_path):
    script = ROOT / "paper_figures" / "make_figures.py"
    out = subprocess.run([sys.executable, str(script), "--quick", "--out", str(tmp_path)],
                         capture_output=True, text=True, timeout=300, env=_THIS_CHECKOUT)
    assert out.returncode == 0, out.stderr
    names = ["fig1_rr_distributions", "fig2_type1_error", "fig3_rank_agreement",
             "fig4_random_baseline", "fig5_power"]
    for name in names:
        pdf = (tmp_path / f"{name}.pdf").read_bytes()
        png = (tmp_path / f"{name}.png").read_bytes()
        assert pdf.startswith(b"%PDF") and len(pdf) > 5000
        assert b"/FontFile2" in pdf and b"/Type3" not in pdf   # embedded TrueType fonts
        assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 5000
    table = pd.read_csv(tmp_path / "type1_error.csv")
    assert set(table["measure"]) == {"RR", "AP", "P@10"}
    assert table["rejection_rate"].between(0, 1).all()
    assert Path(out.stdout.split()[0]).name == "fig1_rr_distributions.pdf"


def test_style_context_keeps_interactive_mode_set_inside():
    """A backend that turns interactive mode on inside the context keeps it on after."""
    import matplotlib as mpl

    before = mpl.rcParams["interactive"]
    try:
        mpl.rcParams["interactive"] = False
        with mp.style_context(**{"font.size": 7}):
            assert mpl.rcParams["font.size"] == 7
            mpl.rcParams["interactive"] = True  # what the inline backend does
        assert mpl.rcParams["interactive"] is True
        assert mpl.rcParams["font.size"] != 7  # everything else is restored
    finally:
        mpl.rcParams["interactive"] = before


def test_plots_run_no_statistics():
    """Nothing in the plots package imports a test, an interval or a resampling procedure."""
    import ast

    import mrrstats.report.plots as plots_module

    files = sorted(Path(plots_module.__file__).parent.glob("*.py"))
    assert len(files) >= 8
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        # imports under ``if TYPE_CHECKING:`` name result classes in annotations; never run
        typing_only = {id(node) for block in ast.walk(tree) if isinstance(block, ast.If)
                       and getattr(block.test, "id", None) == "TYPE_CHECKING"
                       for node in ast.walk(block)}
        imported = {(node.module or "") for node in ast.walk(tree)
                    if isinstance(node, ast.ImportFrom) and id(node) not in typing_only}
        # the registry of test and interval names is labels, not statistics
        stats = [m for m in imported if (m.startswith("stats") or ".stats" in m)
                 and m != "stats.registry"]
        assert not stats, (path.name, stats)
        names = {a.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                 and id(node) not in typing_only for a in node.names}
        forbidden = {"randomization_test", "bootstrap_ci", "paired_ttest",
                     "randomized_tukey_hsd", "westfall_young", "ttest_power",
                     "randomization_power", "compare", "evaluation_baseline",
                     "random_baseline_test", "pairwise_tests"}
        assert not names & forbidden, (path.name, names & forbidden)


# -- layout: nothing cut at the figure's edge, no legend over the data ---------------------
def _inside_figure(fig, artist):
    fig.canvas.draw()
    box = artist.get_window_extent(fig.canvas.get_renderer())
    return box.x0 >= 0 and box.y0 >= 0 and box.x1 <= fig.bbox.x1 + 0.5 and \
        box.y1 <= fig.bbox.y1 + 0.5


def test_design_plot_titles_and_labels_fit_the_figure():
    # the titles of these plots are sentences; drawn on one line they ran past the
    # figure's edge (cut in the saved PNG, constrained layout cannot shorten a line)
    rr = mrrstats.datasets.trec7_scores("RR")
    sim = mrrstats.simulate_replicates(rr[["run47", "run15"]], n_replicates=5, rng=1)
    parts = {f"topics {i * 10 + 1}-{i * 10 + 10}": rr.iloc[10 * i:10 * i + 10][["run47", "run15"]]
             for i in range(5)}
    cal = mrrstats.calibrate_tests(rr[["run8", "run9"]], tests=["t", "randomization", "sign"],
                                   n_simulations=20, rng=0)
    axes = {
        "replicate_runs": mp.replicate_runs(
            mrrstats.replicate_tests(sim, sim.attrs["replicates"], method="t")),
        "forest_collections": mp.forest_collections(mrrstats.across_collections(parts)),
        "calibration_plot": mp.calibration_plot(cal),
        "posterior_plot": mp.posterior_plot(
            mrrstats.bayesian_comparison(rr["run47"], rr["run15"], rope=0.01)),
    }
    for name, ax in axes.items():
        for artist in (ax.title, ax.xaxis.label, ax.yaxis.label):
            if artist.get_text():
                assert _inside_figure(ax.figure, artist), (name, artist.get_text())
    assert "seeds hold" in axes["replicate_runs"].title.get_text()
    assert axes["calibration_plot"].title.get_text().replace("\n", " ").endswith(
        "*\u00a0recommended")


def test_bound_bars_legend_hides_no_bar_and_no_point_is_cut():
    data = mrrstats.datasets.cast2021()
    bounds = mrrstats.judgment_bounds(data.qrels, data.runs, ["AP"])
    ax = mp.bound_bars(bounds.systems, measure="AP")
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legend = ax.get_legend().get_window_extent(renderer)
    for bar in ax.patches:
        assert not legend.overlaps(bar.get_window_extent(renderer))
    assert _inside_figure(fig, ax.get_legend())
    # the lowest value sits on its bar's left end; the axis leaves room for the marker
    values = bounds.systems["value"].to_numpy(float)
    lo, hi = ax.get_xlim()
    assert lo < values.min() and hi > bounds.systems["upper"].max()
    (points,) = [ln for ln in ax.lines if ln.get_marker() == "o"]
    marker = points.get_window_extent(renderer)
    box = ax.get_window_extent(renderer)
    assert marker.x0 >= box.x0 and marker.x1 <= box.x1
