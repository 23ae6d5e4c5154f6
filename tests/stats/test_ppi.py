"""Prediction-powered intervals (mrrstats.stats.ppi): against ppi_py, textbook formulas,
scipy's t tests, and their own design properties."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import mrrstats
from mrrstats.errors import InputError
from mrrstats.stats.ppi import ppi_scores


def _synthetic(seed=0, N=240, n=70, k=3, noise=0.15):
    rng = np.random.default_rng(seed)
    truth = rng.uniform(size=(N, k)) + np.linspace(0, 0.2, k)
    judge = truth + rng.normal(0, noise, truth.shape) + 0.05  # a biased, noisy judge
    cols = [f"s{i}" for i in range(k)]
    idx = [f"q{i:03d}" for i in range(N)]
    labelled = np.sort(rng.choice(N, size=n, replace=False))
    H = pd.DataFrame(truth, index=idx, columns=cols)
    J = pd.DataFrame(judge, index=idx, columns=cols)
    return H, J, labelled


def _rows(res, method, kind="systems"):
    f = getattr(res, kind)
    return f[f.method == method].reset_index(drop=True)


@pytest.fixture(scope="module")
def cast():
    data = mrrstats.datasets.cast2021_judged()
    res = mrrstats.ppi_evaluate(data.runs, data.judge_qrels, data.human_qrels,
                                ["RR", "nDCG@10"], population="infinite", variance="sample",
                                n_resamples=999, rng=5)
    ev_h = mrrstats.evaluate(data.human_qrels, data.runs, ["RR", "nDCG@10"], queries="qrels")
    ev_j = mrrstats.evaluate(data.judge_qrels, data.runs, ["RR", "nDCG@10"], queries="qrels")
    return data, res, ev_h, ev_j


# -- population="infinite" is ppi_py's PPI++ -----------------------------------------

@pytest.mark.parametrize("cl", [0.95, 0.9])
def test_infinite_equals_ppi_py_on_synthetic_scores(cl):
    ppi_py = pytest.importorskip("ppi_py")
    H, J, lab = _synthetic()
    unl = np.setdiff1d(np.arange(len(J)), lab)
    res = ppi_scores({"RR": H.iloc[lab]}, {"RR": J}, population="infinite",
                     variance="sample", confidence_level=cl, n_resamples=99, rng=0)
    s, p = _rows(res, "ppi"), _rows(res, "ppi", "pairs")
    for i, c in enumerate(H.columns):
        y, yh, yu = H[c].to_numpy()[lab], J[c].to_numpy()[lab], J[c].to_numpy()[unl]
        lo, hi = ppi_py.ppi_mean_ci(y, yh, yu, alpha=1 - cl)
        est = ppi_py.ppi_mean_pointestimate(y, yh, yu)
        np.testing.assert_allclose([s.estimate[i], s.ci_low[i], s.ci_high[i]],
                                   [est[0], lo[0], hi[0]], rtol=0, atol=1e-12)
    for r in p.itertuples():
        d = (H[r.a] - H[r.b]).to_numpy()
        dj = (J[r.a] - J[r.b]).to_numpy()
        lo, hi = ppi_py.ppi_mean_ci(d[lab], dj[lab], dj[unl], alpha=1 - cl)
        np.testing.assert_allclose([r.ci_low, r.ci_high], [lo[0], hi[0]], rtol=0, atol=1e-12)


def test_infinite_equals_ppi_py_on_cast(cast):
    ppi_py = pytest.importorskip("ppi_py")
    data, res, ev_h, ev_j = cast
    for m in ("RR", "nDCG@10"):
        H, J = ev_h.scores(m), ev_j.scores(m)
        lab = J.index.isin(H.index)
        s = res.systems[(res.systems.measure == m) & (res.systems.method == "ppi")]
        for r in s.itertuples():
            lo, hi = ppi_py.ppi_mean_ci(H.loc[J.index[lab], r.system].to_numpy(),
                                        J[r.system].to_numpy()[lab],
                                        J[r.system].to_numpy()[~lab], alpha=0.05)
            assert r.ci_low == pytest.approx(lo[0], abs=1e-12)
            assert r.ci_high == pytest.approx(hi[0], abs=1e-12)


def test_stratified_infinite_is_ppi_py_per_stratum():
    """Stratified PPI (Fisch et al. 2024): sum_h W_h theta_h, variance sum_h W_h^2 V_h, each
    stratum's estimate and variance from ppi_py on that stratum alone."""
    ppi_py = pytest.importorskip("ppi_py")
    H, J, lab = _synthetic(seed=4, N=300, n=120)
    strata = {q: ("a" if i % 3 else "b") for i, q in enumerate(J.index)}
    res = ppi_scores({"RR": H.iloc[lab]}, {"RR": J}, population="infinite", strata=strata,
                     variance="sample", n_resamples=99, rng=0)
    s = _rows(res, "ppi")
    z = stats.norm.ppf(0.975)
    labelled = np.zeros(len(J), bool)
    labelled[lab] = True
    code = np.array([strata[q] for q in J.index])
    for i, c in enumerate(J.columns):
        est, var = 0.0, 0.0
        for h in ("a", "b"):
            A = code == h
            y, yh = H[c].to_numpy()[A & labelled], J[c].to_numpy()[A & labelled]
            yu = J[c].to_numpy()[A & ~labelled]
            w = A.sum() / len(J)
            lo, hi = ppi_py.ppi_mean_ci(y, yh, yu, alpha=0.05)
            est += w * ppi_py.ppi_mean_pointestimate(y, yh, yu)[0]
            var += w ** 2 * ((hi[0] - lo[0]) / (2 * z)) ** 2
        assert s.estimate[i] == pytest.approx(est, abs=1e-12)
        assert s.standard_error[i] == pytest.approx(math.sqrt(var), rel=1e-10)
    assert res.strata == ("a", "b")


# -- population="finite": the survey-sampling difference estimator -------------------

def test_finite_is_the_difference_estimator_of_cochran():
    """theta = ybar_L + lambda (xbar_all - xbar_L), lambda the least-squares slope clipped to
    [0, 1]; var = (1 - n/N) s_e^2 / n with e = y - lambda x (Cochran 1977, 7.1-7.3); t with
    n - 1 degrees of freedom. Written out here independently."""
    H, J, lab = _synthetic(seed=1)
    res = ppi_scores({"RR": H.iloc[lab]}, {"RR": J}, n_resamples=99, rng=0)
    s = _rows(res, "ppi")
    N, n = len(J), lab.size
    q = stats.t.ppf(0.975, n - 1)
    for i, c in enumerate(J.columns):
        y, x, xall = H[c].to_numpy()[lab], J[c].to_numpy()[lab], J[c].to_numpy()
        slope = np.clip(np.polyfit(x, y, 1)[0], 0, 1)
        theta = y.mean() + slope * (xall.mean() - x.mean())
        se = math.sqrt((1 - n / N) * np.var(y - slope * x, ddof=1) / n)
        np.testing.assert_allclose([s.estimate[i], s.standard_error[i], s.ci_low[i],
                                    s.ci_high[i], s.power_tuning[i]],
                                   [theta, se, theta - q * se, theta + q * se, slope],
                                   rtol=1e-10, atol=1e-13)


def test_human_and_judge_rows_are_scipys_t_intervals():
    H, J, lab = _synthetic(seed=2)
    N, n = len(J), lab.size
    inf = ppi_scores({"RR": H.iloc[lab]}, {"RR": J}, population="infinite", n_resamples=99,
                     rng=0)
    fin = ppi_scores({"RR": H.iloc[lab]}, {"RR": J}, n_resamples=99, rng=0)
    for i, c in enumerate(J.columns):
        t = stats.ttest_1samp(H[c].to_numpy()[lab], 0.0)
        ci = t.confidence_interval(0.95)
        hum = _rows(inf, "human")
        assert (hum.ci_low[i], hum.ci_high[i]) == pytest.approx((ci.low, ci.high), abs=1e-12)
        # finite: the same with the finite-population correction sqrt(1 - n/N)
        half = (ci.high - ci.low) / 2 * math.sqrt(1 - n / N)
        hf = _rows(fin, "human")
        assert (hf.ci_low[i], hf.ci_high[i]) == pytest.approx(
            (t.statistic * 0 + H[c].to_numpy()[lab].mean() - half,
             H[c].to_numpy()[lab].mean() + half), abs=1e-12)
        tj = stats.ttest_1samp(J[c].to_numpy(), 0.0).confidence_interval(0.95)
        for res in (inf, fin):
            jr = _rows(res, "judge")
            assert (jr.ci_low[i], jr.ci_high[i]) == pytest.approx((tj.low, tj.high), abs=1e-12)
    # pairs: the paired t test's p-value (scipy.stats.ttest_rel) on the labelled queries
    p = _rows(inf, "human", "pairs")
    for r in p.itertuples():
        ref = stats.ttest_rel(H[r.a].to_numpy()[lab], H[r.b].to_numpy()[lab])
        assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-10)
        assert r.statistic == pytest.approx(ref.statistic, rel=1e-10)


def test_every_query_labelled_gives_the_value_itself():
    H, J, _ = _synthetic(seed=3)
    res = ppi_scores({"RR": H}, {"RR": J}, n_resamples=99, rng=0)
    s = _rows(res, "ppi")
    np.testing.assert_allclose(s.estimate, H.mean().to_numpy(), atol=1e-12)
    np.testing.assert_allclose(s.ci_high - s.ci_low, 0.0, atol=1e-12)
    assert (_rows(res, "ppi", "pairs").pvalue[
        _rows(res, "ppi", "pairs").difference != 0] == 0).all()


def test_finite_coverage_on_random_subsets():
    """Monte-Carlo coverage of the all-query value (300 subsets, 3 systems + 3 pairs)."""
    H, J, _ = _synthetic(seed=6, N=160, noise=0.25)
    truth = {**H.mean().to_dict()}
    gen = np.random.default_rng(11)
    hits, total = 0, 0
    for _ in range(300):
        lab = gen.choice(len(J), size=48, replace=False)
        res = ppi_scores({"RR": H.iloc[lab]}, {"RR": J}, n_resamples=19, rng=gen)
        s = _rows(res, "ppi")
        v = s.system.map(truth)
        hits += int(((s.ci_low <= v) & (v <= s.ci_high)).sum())
        total += len(s)
    cover = hits / total
    se = math.sqrt(0.95 * 0.05 / 300)  # per system; pooled over 3 correlated systems
    assert abs(cover - 0.95) < 3 * se


# -- variance="moderated": the pooled floor and the human-only fallback ---------------

def _rare_errors(seed=0, N=150, n=40, k=3, errors=12):
    """RR-like human values; a judge that agrees except on ``errors`` queries per system."""
    rng = np.random.default_rng(seed)
    H = 1.0 / rng.integers(1, 8, size=(N, k))
    J = H.copy()
    for c in range(k):
        bad = rng.choice(N, size=errors, replace=False)
        J[bad, c] = 1.0 / rng.integers(1, 8, size=errors)
    cols, idx = [f"s{i}" for i in range(k)], [f"q{i:03d}" for i in range(N)]
    labelled = np.sort(rng.choice(N, size=n, replace=False))
    return (pd.DataFrame(H, index=idx, columns=cols), pd.DataFrame(J, index=idx, columns=cols),
            labelled)


def _moderated_by_hand(ys, xs, xall, N):
    """The moderated finite-population PPI of columns that form one group, written out:
    lambda the clipped least-squares slope, e = y - lambda x; rho_c = SS_e / SS_y;
    floor_c = mean(rho) SS_y; where fewer than 20 labelled queries have y != x and the
    floor exceeds SS_e, SS_e is replaced by it; var = (1/n - 1/N) SS / (n - 1)."""
    n = ys[0].size
    out, rho, sse, ssy, disc = [], [], [], [], []
    for y, x in zip(ys, xs, strict=True):
        lam = float(np.clip(np.polyfit(x, y, 1)[0], 0, 1)) if np.ptp(x) > 0 else 0.0
        e = y - lam * x
        sse.append(((e - e.mean()) ** 2).sum())
        ssy.append(((y - y.mean()) ** 2).sum())
        rho.append(sse[-1] / ssy[-1])
        disc.append(int((y != x).sum()))
        out.append([lam, e.mean()])
    rho_bar = float(np.mean(rho))
    rows = []
    for c, (lam, ebar) in enumerate(out):
        floor = rho_bar * ssy[c]
        floored = bool(disc[c] < 20 and floor > sse[c])
        ss = floor if floored else sse[c]
        se = math.sqrt((1 / n - 1 / N) * ss / (n - 1))
        rows.append((lam * xall[c].mean() + ebar, se, floored, disc[c]))
    return rows


def test_moderated_variance_is_the_pooled_floor_written_out():
    H, J, lab = _rare_errors()
    N = len(J)
    res = ppi_scores({"RR": H.iloc[lab]}, {"RR": J}, n_resamples=99, rng=0)
    assert res.variance == "moderated"
    s = _rows(res, "ppi")
    cols = list(H.columns)
    ref = _moderated_by_hand([H[c].to_numpy()[lab] for c in cols],
                             [J[c].to_numpy()[lab] for c in cols],
                             [J[c].to_numpy() for c in cols], N)
    assert any(r[2] for r in ref) and not all(r[2] for r in ref)  # the case tests both
    q = stats.t.ppf(0.975, lab.size - 1)
    for i, (est, se, floored, disc) in enumerate(ref):
        assert s.estimate[i] == pytest.approx(est, abs=1e-12)
        assert s.standard_error[i] == pytest.approx(se, rel=1e-10)
        assert s.ci_high[i] - s.ci_low[i] == pytest.approx(2 * q * se, rel=1e-10)
        assert bool(s.moderated[i]) is floored and s.n_discordant[i] == disc
    assert not s.fallback.any()
    # the pairs are their own group: the floor pools over the pairs, not the systems
    p = _rows(res, "ppi", "pairs")
    ys = [(H[a] - H[b]).to_numpy()[lab] for a, b in zip(p.a, p.b, strict=True)]
    xs = [(J[a] - J[b]).to_numpy()[lab] for a, b in zip(p.a, p.b, strict=True)]
    xall = [(J[a] - J[b]).to_numpy() for a, b in zip(p.a, p.b, strict=True)]
    for i, (est, se, floored, disc) in enumerate(_moderated_by_hand(ys, xs, xall, N)):
        assert p.difference[i] == pytest.approx(est, abs=1e-12)
        assert p.standard_error[i] == pytest.approx(se, rel=1e-10)
        assert bool(p.moderated[i]) is floored and p.n_discordant[i] == disc
    # the floor only widens: every moderated interval contains the sample-variance one
    plain = _rows(ppi_scores({"RR": H.iloc[lab]}, {"RR": J}, variance="sample",
                             n_resamples=99, rng=0), "ppi")
    assert (plain.estimate == s.estimate).all() and not plain.moderated.any()
    assert (s.standard_error >= plain.standard_error).all()
    assert (s.standard_error > plain.standard_error).sum() == s.moderated.sum()


def test_many_discordant_queries_leave_the_sample_variance():
    """A judge that differs on every query (>= 20 discordant): no floor, no fallback."""
    H, J, lab = _synthetic(seed=1)
    mod = ppi_scores({"RR": H.iloc[lab]}, {"RR": J}, n_resamples=99, rng=0)
    plain = ppi_scores({"RR": H.iloc[lab]}, {"RR": J}, variance="sample", n_resamples=99,
                       rng=0)
    pd.testing.assert_frame_equal(mod.systems, plain.systems)
    pd.testing.assert_frame_equal(mod.pairs, plain.pairs)
    assert (mod.systems.n_discordant == lab.size).all()


@pytest.mark.parametrize("population", ["finite", "infinite"])
def test_too_few_discordant_queries_fall_back_to_human_only(population):
    H, J, lab = _rare_errors(seed=3, errors=0)
    J.iloc[lab[0], 0] += 0.25  # one discordant labelled cell among the systems
    J.iloc[np.setdiff1d(np.arange(len(J)), lab)[:5], 1] += 0.5  # unlabelled errors only
    res = ppi_scores({"RR": H.iloc[lab]}, {"RR": J}, population=population, n_resamples=99,
                     rng=0)
    s, h = _rows(res, "ppi"), _rows(res, "human")
    assert s.fallback.all() and (s.power_tuning == 0).all()
    assert list(s.n_discordant) == [1, 0, 0]
    for col in ("estimate", "standard_error", "ci_low", "ci_high"):
        np.testing.assert_allclose(s[col], h[col], rtol=0, atol=1e-14)
    # pairs s0 - s1 and s0 - s2 see the one discordant query twice: 2 < 3, still human-only
    assert _rows(res, "ppi", "pairs").fallback.all()
    plain = _rows(ppi_scores({"RR": H.iloc[lab]}, {"RR": J}, population=population,
                             variance="sample", n_resamples=99, rng=0), "ppi")
    assert not plain.fallback.any() and (plain.estimate != h.estimate).any()


def test_cli_variance_option_is_the_function():
    from mrrstats.cli import main

    data = mrrstats.datasets.cast2021_judged()
    import contextlib
    import io
    import json

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = main(["ppi", "--example", "--variance", "sample", "--n-resamples", "19",
                   "--seed", "2", "--format", "json"])
    assert rc == 0
    out = json.loads(buf.getvalue())
    res = mrrstats.ppi_evaluate(data.runs, data.judge_qrels, data.human_qrels, "RR",
                                variance="sample", n_resamples=19, rng=2)
    assert out["variance"] == "sample"
    assert [r["ci_low"] for r in out["systems"]] == pytest.approx(
        res.systems.ci_low.tolist(), abs=1e-12)


# -- simultaneous decisions, ranks, seeds ---------------------------------------------

def test_one_pair_adjusted_pvalue_is_the_pvalue():
    """With one pair the max-|t| over pairs is |t|: P(max >= |t|) is the t test's p-value
    (multivariate t with n - 1 degrees of freedom), up to Monte-Carlo error."""
    H, J, lab = _synthetic(seed=7, k=2, noise=0.4)
    res = ppi_scores({"RR": H.iloc[lab]}, {"RR": J}, n_resamples=20000, rng=3)
    for method in ("ppi", "human", "judge"):
        r = _rows(res, method, "pairs").iloc[0]
        sd = math.sqrt(r.pvalue * (1 - r.pvalue) / 20000)
        assert abs(r.pvalue_adjusted - r.pvalue) < 4 * sd + 2e-4


def test_ranks_and_seed(cast):
    data, res, _, _ = cast
    s = res.systems
    assert ((s.rank_low <= s["rank"]) & (s["rank"] <= s.rank_high)).all()
    ri = res.rank_intervals("RR")
    assert list(ri.low) == list(s[(s.measure == "RR") & (s.method == "ppi")].rank_low)
    again = mrrstats.ppi_evaluate(data.runs, data.judge_qrels, data.human_qrels,
                                  ["RR", "nDCG@10"], population="infinite",
                                  variance="sample", n_resamples=999, rng=5)
    pd.testing.assert_frame_equal(res.pairs, again.pairs)
    fresh = mrrstats.ppi_evaluate(data.runs, data.judge_qrels, data.human_qrels, "RR",
                                  n_resamples=99)
    assert isinstance(fresh.seed, int)
    assert fresh.n_queries == 158 and fresh.n_human == 63


def test_confidence_interval_at_any_level(cast):
    _, res, _, _ = cast
    row = res.systems[(res.systems.method == "ppi") & (res.systems.measure == "RR")].iloc[0]
    ci = res.confidence_interval(a=row.system, measure="RR")
    assert (ci.low, ci.high) == pytest.approx((row.ci_low, row.ci_high), abs=1e-12)
    narrow = res.confidence_interval(0.5, a=row.system, measure="RR")
    assert ci.low < narrow.low < narrow.high < ci.high
    pr = res.pairs[(res.pairs.method == "ppi") & (res.pairs.measure == "RR")].iloc[0]
    flipped = res.confidence_interval(a=pr.b, b=pr.a, measure="RR")
    assert (flipped.low, flipped.high) == pytest.approx((-pr.ci_high, -pr.ci_low), abs=1e-12)
    summary = res.summary()
    assert {"estimate_ppi", "ci_low_human", "ci_high_judge", "width_ratio"} <= set(summary)


# -- input checks ---------------------------------------------------------------------

def test_bad_input_is_refused():
    H, J, lab = _synthetic()
    with pytest.raises(ValueError, match="`population`"):
        ppi_scores({"RR": H.iloc[lab]}, {"RR": J}, population="super")
    with pytest.raises(ValueError, match="`variance` must be one of"):
        ppi_scores({"RR": H.iloc[lab]}, {"RR": J}, variance="pooled")
    with pytest.raises(ValueError, match="`strata` gives no stratum"):
        ppi_scores({"RR": H.iloc[lab]}, {"RR": J}, strata={"q000": "a"})
    with pytest.raises(ValueError, match="at least 2"):
        ppi_scores({"RR": H.iloc[lab[:1]]}, {"RR": J})
    with pytest.raises(ValueError, match="infinite"):
        ppi_scores({"Rank": H.iloc[lab]}, {"Rank": J})
    with pytest.raises(TypeError, match="`judge`"):
        ppi_scores({"RR": H.iloc[lab]}, J)
    extra = H.iloc[lab].rename(index={H.index[lab[0]]: "nowhere"})
    with pytest.raises(InputError, match="no judge labels"):
        ppi_scores({"RR": extra}, {"RR": J})
    with pytest.raises(InputError, match="not in `judge_qrels`"):
        mrrstats.ppi_evaluate({"r": {"q1": ["d1"]}}, {"q1": {"d1": 1}},
                              {"q1": {"d1": 1}, "q2": {"d2": 1}})
