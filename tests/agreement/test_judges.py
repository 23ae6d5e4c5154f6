"""Judge agreement (mrrstats.agreement.judges): kappa against scikit-learn and statsmodels,
alpha against the krippendorff package, conclusions against the functions they reuse."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import mrrstats
from mrrstats.agreement.judges import (
    cohen_kappa,
    judge_confusion,
    krippendorff_alpha,
    simulate_judge,
)


@pytest.fixture(scope="module")
def data():
    return mrrstats.datasets.cast2021_judged()


@pytest.fixture(scope="module")
def agreement(data):
    return mrrstats.judge_agreement(data.judge_qrels, data.human_qrels, data.runs,
                                    ["RR", "nDCG@10"], test="t", rng=3)


def _pairs(data):
    h = data.human_qrels.to_frame()
    j = data.judge_qrels.to_frame()
    m = h.merge(j, on=["query", "doc"], suffixes=("_h", "_j"))
    return m.grade_h.to_numpy(), m.grade_j.to_numpy()


def _with_spam(h, j):
    """Add a few -2 (spam) grades, so positions and values of the grades differ."""
    return np.concatenate([h, [-2, -2, 0, 3]]), np.concatenate([j, [-2, 0, -2, 3]])


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_kappa_equals_sklearn_and_statsmodels(data, weights):
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    from statsmodels.stats.inter_rater import cohens_kappa

    h, j = _with_spam(*_pairs(data))
    labels = np.union1d(h, j)
    table = pd.crosstab(pd.Categorical(h, labels), pd.Categorical(j, labels),
                        dropna=False).to_numpy()
    ours = cohen_kappa(table, weights=weights)
    assert ours == pytest.approx(sklearn_metrics.cohen_kappa_score(h, j, weights=weights),
                                 abs=1e-12)
    sm = cohens_kappa(table, wt={None: None, "linear": "linear",
                                 "quadratic": "quadratic"}[weights])
    assert ours == pytest.approx(sm.kappa, abs=1e-12)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_alpha_equals_the_krippendorff_package(data, level):
    krippendorff = pytest.importorskip("krippendorff")
    h, j = _with_spam(*_pairs(data))
    dom = np.union1d(h, j)
    ref = krippendorff.alpha(reliability_data=np.vstack([h, j]).astype(float),
                             level_of_measurement=level, value_domain=dom.astype(float))
    assert krippendorff_alpha(h, j, level=level, values=dom) == pytest.approx(ref, abs=1e-10)


def test_label_statistics_of_the_result(data, agreement):
    h, j = _pairs(data)
    lab = agreement.labels.iloc[0]
    assert lab.n_pairs == h.size and lab.n_judge_only == 0 and lab.n_human_only == 0
    assert lab.accuracy == pytest.approx(np.mean(h == j))
    assert int(agreement.confusion.to_numpy().sum()) == h.size
    binary = pd.crosstab(h >= 1, j >= 1).to_numpy()
    assert lab.kappa_binary == pytest.approx(cohen_kappa(binary))
    assert lab.alpha_ordinal == pytest.approx(krippendorff_alpha(h, j, level="ordinal"))


def test_conclusions_reuse_ranking_and_decision_agreement(data, agreement):
    ev_h = mrrstats.evaluate(data.human_qrels, data.runs, ["RR", "nDCG@10"], queries="qrels")
    keep = np.isin(data.judge_qrels.query.astype(str),
                   np.asarray(data.human_qrels.query_ids, dtype=str))
    jq = data.judge_qrels.to_frame()[keep]
    ev_j = mrrstats.evaluate(jq, data.runs, ["RR", "nDCG@10"], queries="qrels")
    for m in ("RR", "nDCG@10"):
        H, J = ev_h.scores(m), ev_j.scores(m).loc[ev_h.scores(m).index]
        row = agreement.rankings.set_index("measure").loc[m]
        assert row.tau == pytest.approx(stats.kendalltau(H.mean(), J.mean()).statistic)
        assert row.tau_ap == pytest.approx(mrrstats.tau_ap(H.mean().to_numpy(),
                                                           J.mean().to_numpy()))
        # the same max-T resamples as judge_agreement drew (its seed): borderline pairs agree
        da = mrrstats.decision_agreement({"human": H, "judge": J}, "human", "judge", test="t",
                                         rng=agreement.seed)
        assert row.n_differing == da.n_only_a + da.n_only_b + da.n_reversed
        sys_rows = agreement.systems[agreement.systems.measure == m].set_index("system")
        np.testing.assert_allclose(sys_rows["shift"], (J.mean() - H.mean()).to_numpy(),
                                   atol=1e-12)
        ci = stats.ttest_rel(J.iloc[:, 0], H.iloc[:, 0]).confidence_interval(0.95)
        assert (sys_rows.ci_low.iloc[0], sys_rows.ci_high.iloc[0]) == pytest.approx(
            (ci.low, ci.high), abs=1e-12)
    assert set(agreement.pairs.outcome) <= {"both significant", "neither significant",
                                            "significant only under a",
                                            "significant only under b", "reversed"}
    assert len(agreement.to_frame()) == 2


def test_a_perfect_judge_agrees_perfectly(data):
    ag = mrrstats.judge_agreement(data.human_qrels, data.human_qrels, data.runs, "RR",
                                  test="t", rng=0)
    lab = ag.labels.iloc[0]
    assert lab.kappa == 1 and lab.alpha_ordinal == 1 and lab.accuracy == 1
    assert ag.rankings.tau.iloc[0] == pytest.approx(1) and ag.rankings.n_differing.iloc[0] == 0
    assert (ag.systems["shift"] == 0).all()


def test_without_runs_and_seed(data):
    ag = mrrstats.judge_agreement(data.judge_qrels, data.human_qrels)
    assert ag.rankings.empty and len(ag.to_frame()) == 1
    assert isinstance(ag.seed, int)


def test_simulated_judge_flips_at_the_rate_asked():
    qrels = mrrstats.read_qrels(mrrstats.datasets.cast2021().qrels)
    judge = simulate_judge(qrels, 1 / 12, rng=4)
    n = len(qrels)
    assert abs(judge.flip_rate - 1 / 12) < 4 * math.sqrt((1 / 12) * (11 / 12) / n)
    moved = judge.qrels.grade - qrels.grade
    assert set(np.unique(moved)) <= {-1, 0, 1}  # adjacent grades only
    again = simulate_judge(qrels, 1 / 12, rng=4)
    assert np.array_equal(judge.qrels.grade, again.qrels.grade)
    assert isinstance(simulate_judge(qrels, 0.1).seed, int)
    conf = judge_confusion(range(5), 0.25)
    np.testing.assert_allclose(conf.sum(axis=1), 1.0)
    assert conf.loc[2, 3] == pytest.approx(0.25 * 0.6)
    same = simulate_judge(qrels, conf.loc[:, :] * 0 + np.eye(5), rng=0)
    assert same.flip_rate == 0


def test_bad_input_is_refused(data):
    with pytest.raises(ValueError, match="`weights`"):
        cohen_kappa([[1, 2], [3, 4]], weights="cubic")
    with pytest.raises(ValueError, match="`level`"):
        krippendorff_alpha([1, 2], [1, 2], level="ratio")
    with pytest.raises(ValueError, match="sum"):
        simulate_judge({"q": {"d": 1}}, pd.DataFrame([[0.5, 0.6], [0, 1]]))
    with pytest.raises(ValueError, match="no row"):
        simulate_judge({"q": {"d": 3}}, pd.DataFrame(np.eye(2)))
    with pytest.raises(ValueError, match="no query in common"):
        mrrstats.judge_agreement({"a": {"d": 1}}, {"b": {"d": 1}})
    with pytest.raises(ValueError, match="`rel`"):
        mrrstats.judge_agreement(data.judge_qrels, data.human_qrels, rel=0)
