"""critical_difference: many systems over many collections (mrrstats.stats.critical).

References: Demšar (2006)'s published example; scipy (friedmanchisquare, wilcoxon);
scikit-posthocs 0.17.1 and autorank 1.3.0, live where installed and as pasted values
(with the code that made them) where not.
"""

from __future__ import annotations

import contextlib
import io
import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import mrrstats
from mrrstats.stats.critical import nemenyi_critical_difference

# Demšar (2006), Table 6: AUC of four C4.5 variants on 14 UCI data sets.
DEMSAR = pd.DataFrame(
    [
        [0.763, 0.768, 0.771, 0.798],
        [0.599, 0.591, 0.590, 0.569],
        [0.954, 0.971, 0.968, 0.967],
        [0.628, 0.661, 0.654, 0.657],
        [0.882, 0.888, 0.886, 0.898],
        [0.936, 0.931, 0.916, 0.931],
        [0.661, 0.668, 0.609, 0.685],
        [0.583, 0.583, 0.563, 0.625],
        [0.775, 0.838, 0.866, 0.875],
        [1.000, 1.000, 1.000, 1.000],
        [0.940, 0.962, 0.965, 0.962],
        [0.619, 0.666, 0.614, 0.669],
        [0.972, 0.981, 0.975, 0.975],
        [0.957, 0.978, 0.946, 0.970],
    ],
    columns=["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"],
    index=[
        "adult (sample)",
        "breast cancer",
        "breast cancer wisconsin",
        "cmc",
        "ionosphere",
        "iris",
        "liver disorders",
        "lung cancer",
        "lymphography",
        "mushroom",
        "primary tumor",
        "rheum",
        "voting",
        "wine",
    ],
)


def trec7_blocks():
    """TREC-7 ad hoc AP of the first 8 runs, the 50 topics in 10 blocks of 5 as collections."""
    ap = mrrstats.datasets.trec7_scores("AP")
    return ap.iloc[:, :8].groupby(ap.index.to_series().astype(int).sub(1) // 5).mean()


def cast_conversations(measure="RR"):
    """TREC CAsT 2021: the 19 conversations as collections, their turns as queries."""
    data = mrrstats.datasets.cast2021()
    ev = mrrstats.evaluate(data.qrels, data.runs, [measure])
    frame = ev.scores(measure)
    topic = frame.index.str.split("_").str[0]
    out = {}
    for t in topic.unique():
        out[f"topic {t}"] = part = frame[topic == t]
        part.attrs["measure"] = measure
    return out


# -- Demšar (2006), the published example ------------------------------------------


def test_demsar_published_ranks_and_critical_differences():
    # The paper's average ranks (3.143, 2.000, 2.893, 1.964; sec. 3.2.4) break the tie of
    # C4.5+cf and C4.5+m+cf on "voting" (0.975 each in Table 6) in favour of C4.5+cf, as
    # if its AUC were a little higher; with the table as printed they are 2.929 and 1.929.
    paper = DEMSAR.copy()
    paper.loc["voting", "C4.5+cf"] = 0.97501
    res = mrrstats.critical_difference(paper)
    ranks = res.average_ranks[DEMSAR.columns].round(3)
    assert ranks.tolist() == [3.143, 2.000, 2.893, 1.964]
    assert round(res.critical_difference, 2) == 1.25  # "CD = 2.569 sqrt(4*5/(6*14)) = 1.25"
    assert round(nemenyi_critical_difference(4, 14, 0.10), 2) == 1.12
    # "at alpha = 0.05 ... the data is not sufficient to conclude" that C4.5+m+cf beats C4.5
    # (1.179 < 1.25); at alpha = 0.10 it is significantly better (1.179 > 1.12)
    assert not res.significant("C4.5", "C4.5+m+cf")
    assert mrrstats.critical_difference(paper, alpha=0.10).significant("C4.5", "C4.5+m+cf")
    as_printed = mrrstats.critical_difference(DEMSAR).average_ranks[DEMSAR.columns]
    np.testing.assert_allclose(as_printed, [44 / 14, 2.0, 41 / 14, 27 / 14])


def test_friedman_equals_scipy_on_ties_and_on_real_scores():
    for table in (DEMSAR, trec7_blocks()):  # the Demšar table has tied rows, TREC-7 none
        res = mrrstats.critical_difference(table)
        ref = stats.friedmanchisquare(*table.to_numpy().T)
        assert res.friedman["statistic"] == pytest.approx(ref.statistic, rel=1e-12)
        assert res.friedman["pvalue"] == pytest.approx(ref.pvalue, rel=1e-10)
        N, k = table.shape
        chi2 = res.friedman["statistic"]
        f = (N - 1) * chi2 / (N * (k - 1) - chi2)  # Iman & Davenport (1980), Demšar eq. 4
        assert res.friedman["iman_davenport"] == pytest.approx(f, rel=1e-12)
        assert res.friedman["iman_davenport_pvalue"] == pytest.approx(
            stats.f.sf(f, k - 1, (k - 1) * (N - 1)), rel=1e-10
        )


def test_critical_difference_equals_scipy_studentized_range():
    for k, n, alpha in [(2, 10, 0.05), (4, 14, 0.05), (8, 10, 0.1), (20, 30, 0.01)]:
        q = stats.studentized_range.ppf(1 - alpha, k, np.inf) / np.sqrt(2)
        assert nemenyi_critical_difference(k, n, alpha) == pytest.approx(
            q * np.sqrt(k * (k + 1) / (6 * n)), rel=1e-6
        )


# -- scikit-posthocs: pasted values, and live where installed ------------------------

# TREC-7 AP blocks (trec7_blocks()); upper triangle of the p-value matrix in the order of
# the average ranks (run1, run3, run8, run2, run6, run5, run4, run7), row by row. Made with
# scikit-posthocs 0.17.1:
#   import scikit_posthocs as sp
#   o = ["run1", "run3", "run8", "run2", "run6", "run5", "run4", "run7"]
#   sp.posthoc_nemenyi_friedman(blocks).loc[o, o]
#   sp.posthoc_conover_friedman(blocks, p_adjust="holm").loc[o, o]
#   sp.posthoc_wilcoxon(blocks.melt(var_name="g", value_name="v"), val_col="v",
#                       group_col="g", p_adjust="holm").loc[o, o]
ORDER = ["run1", "run3", "run8", "run2", "run6", "run5", "run4", "run7"]
SKPH = {
    "nemenyi": [
        0.999959564,
        0.9983308374,
        0.6023751721,
        0.0303647471,
        0.0063532128,
        0.0022069414,
        8.77627e-05,
        0.9999943696,
        0.8283962879,
        0.0876992405,
        0.0226685077,
        0.0088643351,
        0.0004728258,
        0.9359488943,
        0.1723049291,
        0.0527590345,
        0.0226685077,
        0.0015223137,
        0.8713147459,
        0.6023751721,
        0.4150411917,
        0.0876992405,
        0.9998173354,
        0.996108826,
        0.8283962879,
        0.9999943696,
        0.9739765294,
        0.996108826,
    ],
    "conover": [
        1.0,
        1.0,
        0.0645987772,
        5.74242e-05,
        4.1448e-06,
        7.644e-07,
        7.8e-09,
        1.0,
        0.2629234351,
        0.0004450067,
        3.63368e-05,
        7.0282e-06,
        7.94e-08,
        0.5467692246,
        0.001845635,
        0.0001621152,
        3.63368e-05,
        4.44e-07,
        0.3123918723,
        0.0645987772,
        0.0188228025,
        0.0004450067,
        1.0,
        1.0,
        0.2629234351,
        1.0,
        0.8891827315,
        1.0,
    ],
    "wilcoxon-holm": [
        1.0,
        1.0,
        0.13671875,
        0.0546875,
        0.0546875,
        0.0546875,
        0.0546875,
        1.0,
        0.37109375,
        0.08203125,
        0.08203125,
        0.08203125,
        0.08203125,
        0.94921875,
        0.0546875,
        0.0546875,
        0.09375,
        0.0546875,
        0.13671875,
        0.1640625,
        0.21484375,
        0.08203125,
        0.94921875,
        1.0,
        0.09375,
        1.0,
        1.0,
        1.0,
    ],
}


@pytest.mark.parametrize("test", sorted(SKPH))
def test_pvalues_equal_scikit_posthocs_pasted(test):
    res = mrrstats.critical_difference(trec7_blocks(), test=test)
    assert list(res.pvalues.index) == ORDER
    upper = res.pvalues.to_numpy()[np.triu_indices(8, 1)]
    np.testing.assert_allclose(upper, SKPH[test], rtol=1e-6, atol=1e-9)


def _skph(test, table):
    sp = pytest.importorskip("scikit_posthocs")
    if test == "nemenyi":
        return sp.posthoc_nemenyi_friedman(table)
    if test == "conover":
        return sp.posthoc_conover_friedman(table, p_adjust="holm")
    long = table.melt(var_name="g", value_name="v")
    return sp.posthoc_wilcoxon(long, val_col="v", group_col="g", p_adjust="holm")


@pytest.mark.parametrize("test", sorted(SKPH))
def test_pvalues_equal_scikit_posthocs_live(test):
    for table in (
        trec7_blocks(),
        DEMSAR,
        pd.DataFrame({k: v.mean() for k, v in cast_conversations().items()}).T,
    ):
        res = mrrstats.critical_difference(table, test=test)
        ref = _skph(test, table).loc[res.pvalues.index, res.pvalues.columns]
        # Nemenyi: scipy's studentized_range.sf against mrrstats' tail-accurate one
        np.testing.assert_allclose(res.pvalues, ref, rtol=1e-6, atol=1e-9)


def test_wilcoxon_holm_is_scipy_wilcoxon_then_holm():
    table = trec7_blocks()
    res = mrrstats.critical_difference(table, test="wilcoxon-holm")
    raw = {
        (a, b): stats.wilcoxon(table[a], table[b]).pvalue
        for a, b in itertools.combinations(table.columns, 2)
    }
    for _, r in res.pairs.iterrows():
        key = (
            (r.system_a, r.system_b)
            if (r.system_a, r.system_b) in raw
            else (r.system_b, r.system_a)
        )
        assert r.pvalue == pytest.approx(raw[key], rel=1e-12)


# -- autorank: pasted values, and live where installed -------------------------------

# autorank 1.3.0 (its Nemenyi critical distance uses statsmodels' qsturng, an
# interpolated table of the studentized range):
#   from autorank import autorank
#   r = autorank(trec7_blocks(), alpha=0.05, verbose=False, force_mode="nonparametric")
#   r.cd, r.pvalue, r.rankdf["meanrank"]
AUTORANK_CD = 3.3201413514435267
AUTORANK_PVALUE = 1.0149527552874522e-07
AUTORANK_RANKS = {
    "run7": 7.1,
    "run4": 6.3,
    "run5": 6.0,
    "run6": 5.5,
    "run2": 4.0,
    "run8": 2.7,
    "run3": 2.4,
    "run1": 2.0,
}


def test_equals_autorank_pasted():
    res = mrrstats.critical_difference(trec7_blocks())
    assert res.critical_difference == pytest.approx(AUTORANK_CD, abs=1e-4)  # qsturng: ~2e-5
    assert res.friedman["pvalue"] == pytest.approx(AUTORANK_PVALUE, rel=1e-9)
    for s, r in AUTORANK_RANKS.items():
        assert res.average_ranks[s] == pytest.approx(r, abs=1e-12)


def test_equals_autorank_live():
    autorank = pytest.importorskip("autorank")
    table = trec7_blocks()
    with contextlib.redirect_stdout(io.StringIO()):  # it prints that it forces the mode
        ref = autorank.autorank(table, alpha=0.05, verbose=False, force_mode="nonparametric")
    res = mrrstats.critical_difference(table)
    assert res.critical_difference == pytest.approx(ref.cd, abs=1e-4)
    assert res.friedman["pvalue"] == pytest.approx(ref.pvalue, rel=1e-9)
    np.testing.assert_allclose(res.average_ranks[ref.rankdf.index], ref.rankdf["meanrank"])


# -- cliques, ranks, the result ------------------------------------------------------


@pytest.mark.parametrize("test", ["nemenyi", "wilcoxon-holm", "conover"])
def test_cliques_are_maximal_runs_without_a_significant_pair(test):
    ap = mrrstats.datasets.trec7_scores("AP")
    table = ap.iloc[:, :20].groupby(ap.index.to_series().astype(int).sub(1) // 2).mean()
    res = mrrstats.critical_difference(table, test=test)
    order = list(res.average_ranks.index)
    sig = res.pvalues <= res.alpha
    runs = []
    for i in range(len(order)):  # every run of consecutive systems with no significant pair
        for j in range(i + 1, len(order)):
            block = order[i : j + 1]
            if not sig.loc[block, block].to_numpy().any():
                runs.append((i, j))
    maximal = [
        tuple(order[i : j + 1])
        for i, j in runs
        if not any(a <= i and j <= b and (a, b) != (i, j) for a, b in runs)
    ]
    assert list(res.cliques) == maximal
    assert res.cliques  # the example has groups
    if test == "nemenyi":  # a Nemenyi clique spans at most the critical difference
        for c in res.cliques:
            span = res.average_ranks[list(c)]
            assert span.max() - span.min() <= res.critical_difference


def test_ranks_best_first_ties_averaged_and_lower_is_better_measures():
    table = pd.DataFrame({"a": [0.5, 0.2, 0.9], "b": [0.5, 0.4, 0.1], "c": [0.1, 0.4, 0.3]})
    res = mrrstats.critical_difference(table)
    assert res.ranks.to_numpy().tolist() == [[1.5, 1.5, 3.0], [3.0, 1.5, 1.5], [1.0, 3.0, 2.0]]
    assert res.average_ranks.index[0] in ("a", "b")
    rank = mrrstats.critical_difference(table, measure="Rank")  # lower is better
    assert rank.ranks.to_numpy().tolist() == [[2.5, 2.5, 1.0], [1.0, 2.5, 2.5], [3.0, 1.0, 2.0]]


def test_per_query_input_uses_the_means_and_frames_are_consistent():
    data = cast_conversations()
    res = mrrstats.critical_difference(data, n_resamples=199, rng=1)
    means = pd.DataFrame({k: v.mean() for k, v in data.items()}).T
    np.testing.assert_allclose(res.scores.to_numpy(), means[res.scores.columns].to_numpy())
    table = mrrstats.critical_difference(means)
    pd.testing.assert_frame_equal(res.pvalues, table.pvalues)
    assert res.critical_difference == table.critical_difference
    frame = res.to_frame()
    assert list(frame.columns) == ["average_rank", "mean", "ci_low", "ci_high", "clique"]
    assert list(frame.index) == list(res.average_ranks.index)
    assert res.n_collections == 19 and res.n_systems == 5 and res.measure == "RR"
    assert len(res.pairs) == 10 and (res.pairs["rank_difference"] >= 0).all()
    assert "Friedman" in res.summary()


def test_two_level_bootstrap_intervals():
    data = cast_conversations()
    a = mrrstats.critical_difference(data, n_resamples=2000, rng=3)
    b = mrrstats.critical_difference(data, n_resamples=2000, rng=3)
    pd.testing.assert_frame_equal(a.rank_intervals, b.rank_intervals)
    ri = a.rank_intervals
    assert ((ri["ci_low"] <= ri["average_rank"]) & (ri["average_rank"] <= ri["ci_high"])).all()
    assert (ri["ci_low"] >= 1).all() and (ri["ci_high"] <= 5).all()
    p = a.pairs
    assert (
        (p["rank_ci_low"] <= p["rank_difference"] + 1e-12)
        & (p["rank_difference"] <= p["rank_ci_high"] + 1e-12)
    ).all()
    assert ((p["ci_low"] <= p["difference"]) & (p["difference"] <= p["ci_high"])).all()
    # with one query per collection the second level has nothing to resample: the
    # intervals are those of the collections alone, which are narrower here
    single = {k: v.iloc[:1] for k, v in data.items()}
    one = mrrstats.critical_difference(single, n_resamples=2000, rng=3)
    means = pd.DataFrame({k: v.iloc[0] for k, v in data.items()}).T
    rng = np.random.default_rng(3)
    draws = rng.integers(0, len(means), size=(2000, len(means)))
    ranks = stats.rankdata(-means.to_numpy(), axis=1)
    boot = ranks[draws].mean(axis=1)
    lo = np.quantile(boot, 0.025, axis=0)
    np.testing.assert_allclose(one.rank_intervals.loc[list(means.columns), "ci_low"], lo)
    assert a.seed == 3 and a.n_resamples == 2000
    fresh = mrrstats.critical_difference(data, n_resamples=199)
    assert isinstance(fresh.seed, int)
    table_only = mrrstats.critical_difference(trec7_blocks())
    assert table_only.rank_intervals is None and table_only.seed is None
    assert "ci_low" not in table_only.pairs


def test_hierarchical_is_bayesian_hierarchical_of_the_collection_differences():
    data = cast_conversations()
    res = mrrstats.critical_difference(data, n_resamples=199, rng=0)
    a, b = res.average_ranks.index[:2]
    d = [v[a] - v[b] for v in data.values()]
    sd = np.array([x.std(ddof=1) for x in d])
    n = np.array([len(x) for x in d])
    assert (sd == 0).any()  # a conversation where the two runs tie on every turn
    pooled = np.sqrt(((n - 1) * sd**2).sum() / (n - 1).sum())
    se = np.where(sd > 0, sd, pooled) / np.sqrt(n)
    ref = mrrstats.bayesian_hierarchical([x.mean() for x in d], se, rope=0.01)
    got = res.hierarchical(a, b, rope=0.01, model="normal")
    assert got.difference == pytest.approx(ref.difference, rel=1e-12)
    assert got.p_rope == pytest.approx(ref.p_rope, rel=1e-12)
    # the default: the Student-t model of the per-query differences (its own tests:
    # tests/stats/test_hierarchical.py)
    t = res.hierarchical(a, b, rope=0.01, n_draws=300, rng=5)
    ref_t = mrrstats.bayesian_hierarchical_t(
        [x.to_numpy() for x in d], rope=0.01, n_draws=300, rng=5
    )
    assert t.method == "hierarchical-t" and t.n_queries == len(data)
    np.testing.assert_array_equal(t.posterior, ref_t.posterior)
    with pytest.raises(mrrstats.ParameterError, match="`model`"):
        res.hierarchical(a, b, model="probit")
    with pytest.raises(mrrstats.ParameterError, match="per-query"):
        mrrstats.critical_difference(trec7_blocks()).hierarchical("run1", "run2")
    with pytest.raises(mrrstats.ParameterError, match="`a`"):
        res.hierarchical("nope", b)


def test_bad_input_is_refused_naming_the_parameter():
    table = trec7_blocks()
    with pytest.raises(mrrstats.ParameterError, match="`test`"):
        mrrstats.critical_difference(table, test="friedman")
    with pytest.raises(mrrstats.ParameterTypeError, match="`table`"):
        mrrstats.critical_difference([[1, 2], [3, 4]])
    with pytest.raises(mrrstats.ParameterError, match="`table`"):
        mrrstats.critical_difference({"only": table})
    data = cast_conversations()
    first = next(iter(data))
    data[first] = data[first].iloc[:, :4]
    with pytest.raises(mrrstats.ParameterError, match="same systems"):
        mrrstats.critical_difference(data)
    with pytest.raises(mrrstats.ParameterError, match="alpha"):
        mrrstats.critical_difference(table, alpha=1.5)
    with pytest.raises(mrrstats.MrrstatsError, match="table"):
        mrrstats.critical_difference(table.iloc[:, :1])


def test_degenerate_tables():
    same = pd.DataFrame({"a": [0.3, 0.5, 0.2], "b": [0.3, 0.5, 0.2]})  # all tied
    res = mrrstats.critical_difference(same, test="conover")
    assert np.isnan(res.friedman["statistic"])
    assert (res.pvalues.to_numpy() == 1).all() and res.cliques == (("a", "b"),)
    agree = pd.DataFrame({"a": [0.9, 0.8, 0.7], "b": [0.5, 0.4, 0.3], "c": [0.1, 0.2, 0.0]})
    res = mrrstats.critical_difference(agree, test="conover")  # every collection agrees
    assert res.friedman["iman_davenport"] == np.inf
    assert res.pvalues.loc["a", "c"] == 0.0
    w = mrrstats.critical_difference(same, test="wilcoxon-holm")
    assert (w.pvalues.to_numpy() == 1).all()
