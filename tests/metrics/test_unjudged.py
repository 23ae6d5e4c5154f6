"""Unjudged documents: Judged@k against ir_measures, condensed lists and the upper bound
against trec_eval's own values on rewritten runs and qrels (pytrec_eval), and the bounds."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest

import mrrstats
from mrrstats.metrics.bounds import PoolingBiasWarning
from mrrstats.metrics.judged import judged_at_k


@pytest.fixture(scope="module")
def cast():
    data = mrrstats.datasets.cast2021()
    qrels = mrrstats.read_qrels(data.qrels)
    runs = [mrrstats.read_run(p) for p in data.runs[:2]]
    return qrels, runs


def _ranked_frame(qrels, run):
    """The run in mrrstats' (trec_eval's) order, as a frame with a strictly decreasing score
    per query (so any tool reads the same order), only the qrels' queries."""
    ranked = mrrstats.rank_run(qrels, run)
    docs = ranked.doc_ids()
    rows = []
    for q, d in zip(ranked.query_ids, docs, strict=True):
        rows += [(str(q), str(x), float(len(d) - i)) for i, x in enumerate(d)]
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    return frame[frame.query_id.isin(set(qrels.query_ids))]


def _qrels_frame(qrels):
    return qrels.to_frame().rename(columns={"query": "query_id", "doc": "doc_id",
                                            "grade": "relevance"})


# -- Judged@k --------------------------------------------------------------------------

@pytest.mark.parametrize("k", [1, 5, 10, 100, 1000])
def test_judged_equals_ir_measures(cast, k):
    ir_measures = pytest.importorskip("ir_measures")
    qrels, runs = cast
    run = runs[0]
    ours = mrrstats.evaluate(qrels, {"r": run}, [f"Judged@{k}"]).scores(f"Judged@{k}")["r"]
    ref = {m.query_id: m.value for m in ir_measures.iter_calc(
        [ir_measures.Judged @ k], _qrels_frame(qrels), _ranked_frame(qrels, run))}
    assert set(ref) == set(ours.index)
    np.testing.assert_allclose(ours.to_numpy(), [ref[q] for q in ours.index], atol=1e-15)


def _judged_reference(rankings, k):
    """Plain Python: judged among the first min(k, retrieved), over that number."""
    out = []
    for r in rankings:
        d = min(k if k is not None else len(r), len(r))
        out.append(sum(not np.isnan(g) for g in r[:d]) / d if d else 0.0)
    return out


def test_judged_plain_reference_and_max_depth():
    rng = np.random.default_rng(0)
    rankings = [np.where(rng.random(n) < 0.6, rng.integers(-2, 4, n).astype(float), np.nan)
                for n in (1, 3, 7, 12, 30)]
    offsets = np.concatenate(([0], np.cumsum([len(r) for r in rankings])))
    grades = np.concatenate(rankings)
    for k in (None, 1, 5, 10, 50):
        np.testing.assert_allclose(judged_at_k(offsets, grades, k=k),
                                   _judged_reference(rankings, k))
        cut = [r[:4] for r in rankings]
        np.testing.assert_allclose(judged_at_k(offsets, grades, k=k, max_depth=4),
                                   _judged_reference(cut, k))


def test_judged_expected_over_tie_orders():
    """ties="expected": the mean over every order of the tied documents."""
    qrels = {"q": {"a": 1, "b": 0, "c": 2}}
    run = {"q": {"a": 1.0, "x": 1.0, "b": 1.0, "y": 0.5, "c": 2.0}}
    ev = mrrstats.evaluate(qrels, {"r": run}, ["Judged@2", "Judged@3"], ties="expected")
    tied = ["a", "x", "b"]
    for k in (2, 3):
        vals = []
        for perm in itertools.permutations(tied):
            order = ["c", *perm, "y"][:k]
            vals.append(sum(d in qrels["q"] for d in order) / k)
        assert ev.scores(f"Judged@{k}")["r"].iloc[0] == pytest.approx(np.mean(vals))


def test_judged_measure_name():
    m = mrrstats.parse_measure("judged@10")
    assert str(m) == "Judged@10" and m.mean_label == "mean Judged@10"
    with pytest.raises(ValueError, match="no `rel`"):
        mrrstats.parse_measure("Judged(rel=2)@10")


# -- condensed lists and the upper end: trec_eval on rewritten inputs ---------------------

MEASURES = {"RR": "recip_rank", "AP": "map", "nDCG": "ndcg", "nDCG@10": "ndcg_cut_10",
            "P@10": "P_10", "R@100": "recall_100"}


def _pytrec(qrels_frame, run_frame, names):
    """trec_eval's values (pytrec_eval) where installed; otherwise mrrstats' own evaluate
    on the rewritten inputs (trec_eval-exact: tests/metrics/test_conformance.py)."""
    try:
        import pytrec_eval
    except ImportError:
        ev = mrrstats.evaluate(qrels_frame, {"r": run_frame}, list(MEASURES))
        return {q: {MEASURES[m]: float(ev.scores(m).loc[q, "r"]) for m in MEASURES}
                for q in ev.scores("RR").index}
    q = {}
    for r in qrels_frame.itertuples():
        q.setdefault(r.query_id, {})[r.doc_id] = int(r.relevance)
    run = {}
    for r in run_frame.itertuples():
        run.setdefault(r.query_id, {})[r.doc_id] = float(r.score)
    ev = pytrec_eval.RelevanceEvaluator(q, set(names))
    return ev.evaluate(run)


def test_condense_equals_trec_eval_on_the_condensed_run(cast):
    qrels, runs = cast
    judged_pairs = set(zip(qrels.query.astype(str), qrels.doc.astype(str), strict=True))
    for run in runs:
        frame = _ranked_frame(qrels, run)
        condensed = frame[[(q, d) in judged_pairs for q, d in zip(frame.query_id, frame.doc_id,
                                                                  strict=True)]]
        ev = mrrstats.evaluate(qrels, {"r": run}, list(MEASURES), unjudged="condense")
        ref = _pytrec(_qrels_frame(qrels), condensed, MEASURES.values())
        for ours, theirs in MEASURES.items():
            got = ev.scores(ours)["r"]
            want = [ref[q][theirs] if q in ref else 0.0 for q in got.index]
            np.testing.assert_allclose(got.to_numpy(), want, atol=1e-12, err_msg=ours)


def test_relevant_equals_trec_eval_on_completed_qrels(cast):
    qrels, runs = cast
    qf = _qrels_frame(qrels)
    judged_pairs = set(zip(qf.query_id, qf.doc_id, strict=True))
    for run in runs:
        frame = _ranked_frame(qrels, run)
        extra = frame[[(q, d) not in judged_pairs for q, d in zip(frame.query_id, frame.doc_id,
                                                                  strict=True)]]
        completed = pd.concat([qf, pd.DataFrame({"query_id": extra.query_id,
                                                 "doc_id": extra.doc_id, "relevance": 1})])
        ev = mrrstats.evaluate(qrels, {"r": run}, list(MEASURES), unjudged="relevant")
        ref = _pytrec(completed, frame, MEASURES.values())
        for ours, theirs in MEASURES.items():
            got = ev.scores(ours)["r"]
            np.testing.assert_allclose(got.to_numpy(), [ref[q][theirs] for q in got.index],
                                       atol=1e-12, err_msg=ours)


def test_conventions_keep_judged_and_are_named(cast):
    qrels, runs = cast
    plain = mrrstats.evaluate(qrels, runs, ["Judged@10", "RR"])
    for u in ("condense", "relevant"):
        ev = mrrstats.evaluate(qrels, runs, ["Judged@10", "RR"], unjudged=u)
        pd.testing.assert_frame_equal(ev.scores("Judged@10"), plain.scores("Judged@10"))
        assert ev.settings["unjudged"] == u
        assert (ev.scores("RR") >= plain.scores("RR") - 1e-15).all().all()
    assert "unjudged" not in plain.settings
    with pytest.raises(ValueError, match="`unjudged`"):
        mrrstats.evaluate(qrels, runs, "RR", unjudged="ignore")


# -- judgment_bounds ----------------------------------------------------------------------

def test_bounds_hold_for_every_completion_of_the_guaranteed_measures():
    """Random complete judgments of the unjudged documents: RR, P@k, Success@k and nDCG
    (its bounds DCG_0/IDCG_max and min(1, DCG_max/IDCG_0)) stay within [lower, upper];
    for AP a completion can fall outside (the docs say so, guaranteed is False)."""
    rng = np.random.default_rng(5)
    docs = [f"d{i}" for i in range(12)]
    qrels = {f"q{i}": {d: int(rng.integers(0, 3)) for d in rng.choice(docs, 4, replace=False)}
             for i in range(6)}
    runs = {"r": {q: {d: float(rng.random()) for d in docs} for q in qrels}}
    names = ["RR", "P@5", "Success@3", "nDCG@5", "AP"]
    b = mrrstats.judgment_bounds(qrels, runs, names).to_frame()
    outside = {n: 0 for n in names}
    for _ in range(200):
        full = {q: {d: (g[d] if d in g else int(rng.integers(0, 3))) for d in docs}
                for q, g in qrels.items()}
        ev = mrrstats.evaluate(full, runs, names)
        for n in names:
            f = b[b.measure == n].set_index("query")
            v = ev.scores(n)["r"].loc[f.index]
            out = ((v < f.lower - 1e-12) | (v > f.upper + 1e-12)).sum()
            outside[n] += int(out)
    assert outside["RR"] == outside["P@5"] == outside["Success@3"] == outside["nDCG@5"] == 0
    assert outside["AP"] > 0
    assert b[b.measure == "RR"].guaranteed.all() and not b[b.measure == "AP"].guaranteed.any()
    assert b[b.measure == "nDCG@5"].guaranteed.all()


def test_ndcg_bounds_contain_every_fill_by_enumeration():
    """Every judgment (grades 0..3) of the unjudged retrieved documents, enumerated: the
    nDCG values lie in [lower, upper] (the reference is the enumeration itself)."""
    import itertools

    qrels = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d7": 1, "d8": 3}}
    runs = {"r": {"q1": ["x1", "d3", "x2", "d1"], "q2": ["d7", "y1", "d8", "y2"]}}
    names = ["nDCG@3", "nDCG"]
    b = mrrstats.judgment_bounds(qrels, runs, names).to_frame().set_index(["query", "measure"])
    for q, judged in qrels.items():
        run = runs["r"][q]
        unjudged = [d for d in run if d not in judged]
        for name in names:
            values = []
            for fill in itertools.product(range(4), repeat=len(unjudged)):
                full = {**judged, **dict(zip(unjudged, fill, strict=True))}
                ev = mrrstats.evaluate({q: full}, {"r": {q: run}}, [name])
                values.append(float(ev.aggregate().iloc[0, 0]))
            row = b.loc[(q, name)]
            assert row.lower <= min(values) + 1e-12 and max(values) <= row.upper + 1e-12
            assert row.lower <= row.value <= row.upper


def test_bounds_frame_and_systems(cast):
    qrels, runs = cast
    b = mrrstats.judgment_bounds(qrels, runs, ["RR", "nDCG@10"])
    f = b.to_frame()
    assert list(f.columns) == ["run", "query", "measure", "lower", "upper", "value",
                               "guaranteed"]
    assert (f.lower <= f.value).all() and (f.value <= f.upper).all()
    ev = mrrstats.evaluate(qrels, runs, ["RR", "nDCG@10"])
    s = b.systems.set_index(["run", "measure"])
    for run in ev.runs:
        assert s.loc[(run, "RR"), "value"] == pytest.approx(ev.aggregate().loc[run, "RR"])
    assert b.flagged == ()


def test_pooling_bias_warning():
    qrels = {f"q{i}": {f"d{i}{j}": int(j == 0) for j in range(10)} for i in range(5)}
    pooled = {q: [*g] for q, g in qrels.items()}
    new = {q: [f"n{q}{j}" for j in range(8)] + list(g)[:2] for q, g in qrels.items()}
    with pytest.warns(PoolingBiasWarning, match="'new'"):
        b = mrrstats.judgment_bounds(qrels, {"a": pooled, "b": pooled, "new": new}, "RR")
    assert b.flagged == ("new",)
    assert b.systems.set_index("run").loc["new", "pooling_bias"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", PoolingBiasWarning)
        mrrstats.judgment_bounds(qrels, {"a": pooled, "b": pooled}, "RR")


def test_multiverse_unjudged_axis(cast):
    qrels, runs = cast
    mv = mrrstats.multiverse(qrels, runs, "RR", ties=("trec_eval",), queries=("both",),
                             rels=(1,), cutoffs=(None,), unjudged=("nonrelevant", "condense"))
    assert list(mv.summary.unjudged) == ["nonrelevant", "condense"]
    assert mv.reference["RR"]["unjudged"] == "nonrelevant"
    ev = mrrstats.evaluate(qrels, runs, "RR", unjudged="condense")
    sel = mv.systems[mv.systems.unjudged == "condense"].set_index("system")["mean"]
    np.testing.assert_allclose(sel.loc[list(ev.runs)], ev.aggregate()["RR"].to_numpy())
    with pytest.raises(ValueError, match="`unjudged`"):
        mrrstats.multiverse(qrels, runs, "RR", unjudged=("ignore",))
