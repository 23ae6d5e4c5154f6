"""Each door's defaults equal its peer's (docs/guide/old-tools.md, one test per row).

Every reference value is computed here by the peer itself (torchmetrics, ranx,
ir_measures, pytrec_eval, PyKEEN), skipped cleanly where the peer is not installed;
the rows without an installable peer (trec_eval ``-c``, the MS MARCO script) are
checked against their documented definition.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import mrrstats
from mrrstats import QueriesLeftOutWarning, datasets, read_qrels, read_run


@pytest.fixture(scope="module")
def cast50():
    """50 judged CAsT 2021 questions, the first 100 documents of one bundled run as
    ranked lists, 5 retrievals emptied (the issue's RAG example) and 5 missing."""
    data = datasets.cast2021()
    qrels = read_qrels(data.qrels)
    frame = read_run(data.runs[0]).to_frame()
    frame = frame.sort_values(["query", "score"], ascending=[True, False])
    lists = {str(q): list(g["doc"][:100]) for q, g in frame.groupby("query")}
    rel = {}
    for q, d, g in zip(qrels.query, qrels.doc, qrels.grade, strict=True):
        if g >= 1:
            rel.setdefault(str(q), set()).add(str(d))
    qs = sorted(q for q in rel if q in lists)[:50]
    relevant = {q: rel[q] for q in qs}
    retrieved = {q: lists[q] for q in qs}
    for q in qs[::10]:
        retrieved[q] = []  # empty retrievals
    for q in qs[5::10]:
        del retrieved[q]  # missing from the run
    return relevant, retrieved


def _scored(lists):
    """``{query: {doc: score}}`` with distinct scores in list order (peers' format)."""
    return {
        q: {d: float(len(docs) - i) for i, d in enumerate(docs)}
        for q, docs in lists.items()
        if docs
    }


MEASURES = ["RR@5", "Success@5", "P@10", "nDCG@10", "AP"]


def test_rag_door_counts_empty_and_missing_retrievals_as_zero(cast50):
    relevant, retrieved = cast50
    with warnings.catch_warnings():
        warnings.simplefilter("error", QueriesLeftOutWarning)  # nothing left out
        ev = mrrstats.evaluate(relevant, {"rag": retrieved}, MEASURES)
    assert ev.settings["queries"] == "qrels"
    assert ev.counts["rag"].evaluated == 50 and len(ev.counts["rag"].qrels_only) == 10
    assert "10 in qrels only (scored 0)" in str(ev.counts["rag"])
    scores = ev.values["rag"]
    emptied = [q for q in relevant if not retrieved.get(q)]
    assert len(emptied) == 10
    assert (scores.loc[emptied].to_numpy() == 0.0).all()
    # trec_eval's "both" leaves the 10 out, says how many and names queries='qrels'
    with pytest.warns(QueriesLeftOutWarning, match=r"10 of the 50 judged.*queries='qrels'"):
        both = mrrstats.evaluate(relevant, {"rag": retrieved}, MEASURES, queries="both")
    assert both.counts["rag"].evaluated == 40
    assert "10 in qrels only (left out)" in str(both.counts["rag"])
    assert (both.aggregate().to_numpy() > ev.aggregate().to_numpy()).all()  # the inflation
    # the same dicts given as {query: {doc: score}}: the same door
    ev_dict = mrrstats.evaluate(relevant, {"rag": _scored(retrieved)}, MEASURES)
    pd.testing.assert_frame_equal(ev_dict.aggregate(), ev.aggregate())


def test_rag_door_equals_ranx_make_comparable(cast50):
    """ranx.evaluate(..., make_comparable=True): every qrels query, missing ones 0
    (without it ranx refuses runs whose queries differ from the qrels')."""
    ranx = pytest.importorskip("ranx")
    relevant, retrieved = cast50
    ev = mrrstats.evaluate(
        relevant, {"rag": retrieved}, ["RR@5", "Success@5", "P@10", "nDCG@10", "AP"]
    )
    rq = ranx.Qrels({q: {d: 1 for d in s} for q, s in relevant.items()})
    rr = ranx.Run(_scored(retrieved))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba's type-safety warnings
        want = ranx.evaluate(
            rq, rr, ["mrr@5", "hit_rate@5", "precision@10", "ndcg@10", "map"], make_comparable=True
        )
    got = ev.aggregate().iloc[0]
    for ours, theirs in zip(["RR@5", "Success@5", "P@10", "nDCG@10", "AP"], want, strict=True):
        assert got[ours] == pytest.approx(want[theirs], abs=1e-12), ours
    # a ranx.Run goes through the same door
    ev_ranx = mrrstats.evaluate(relevant, {"rag": rr}, ["RR@5"])
    assert ev_ranx.aggregate().iloc[0, 0] == pytest.approx(want["mrr@5"], abs=1e-12)


def test_ir_measures_counts_every_qrels_query(cast50):
    """ir_measures.calc_aggregate scores a qrels query the run lacks 0: queries='qrels'."""
    irm = pytest.importorskip("ir_measures")
    relevant, retrieved = cast50
    qrels = [irm.Qrel(q, d, 1) for q, s in relevant.items() for d in s]
    run = [
        irm.ScoredDoc(q, d, s) for q, docs in _scored(retrieved).items() for d, s in docs.items()
    ]
    want = irm.calc_aggregate([irm.RR @ 5, irm.Success @ 5, irm.P @ 10], qrels, run)
    frame = pd.DataFrame(
        {
            "query": [r.query_id for r in run],
            "doc": [r.doc_id for r in run],
            "score": [r.score for r in run],
        }
    )
    ev = mrrstats.evaluate(relevant, {"r": frame}, ["RR@5", "Success@5", "P@10"], queries="qrels")
    got = ev.aggregate().iloc[0]
    assert got["RR@5"] == pytest.approx(want[irm.RR @ 5], abs=1e-12)
    assert got["Success@5"] == pytest.approx(want[irm.Success @ 5], abs=1e-12)
    assert got["P@10"] == pytest.approx(want[irm.P @ 10], abs=1e-12)


def test_trec_door_equals_pytrec_eval_and_warns(cast50):
    """A frame (or TREC file) keeps trec_eval's queries='both', as pytrec_eval; the
    judged queries left out are warned about. trec_eval -c (every qrels query, missing
    ones 0, its documented definition) is queries='qrels'."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    relevant, retrieved = cast50
    scored = _scored(retrieved)
    qrels = {q: {d: 1 for d in s} for q, s in relevant.items()}
    per_q = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank", "P_10"}).evaluate(scored)
    frame = pd.DataFrame(
        [(q, d, s) for q, docs in scored.items() for d, s in docs.items()],
        columns=["query", "doc", "score"],
    )
    with pytest.warns(QueriesLeftOutWarning, match=r"10 of the 50.*queries='qrels'"):
        ev = mrrstats.evaluate(qrels, {"r": frame}, ["RR", "P@10"])
    assert ev.settings["queries"] == "both" and ev.counts["r"].evaluated == len(per_q) == 40
    got = ev.values["r"]
    for q, m in per_q.items():
        assert got.loc[q, "RR"] == pytest.approx(m["recip_rank"], abs=1e-12)
        assert got.loc[q, "P@10"] == pytest.approx(m["P_10"], abs=1e-12)
    c = mrrstats.evaluate(qrels, {"r": frame}, ["RR"], queries="qrels").aggregate().iloc[0, 0]
    assert c == pytest.approx(sum(m["recip_rank"] for m in per_q.values()) / 50, abs=1e-12)


def test_compare_missing_value_error_names_queries_qrels_first(cast50):
    relevant, retrieved = cast50
    a = pd.DataFrame(
        [(q, d, s) for q, docs in _scored(retrieved).items() for d, s in docs.items()],
        columns=["query", "doc", "score"],
    )
    b = a[a["query"] != a["query"].iloc[0]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", QueriesLeftOutWarning)
        ev = mrrstats.evaluate(relevant, {"a": a, "b": b}, ["RR"])
    with pytest.raises(mrrstats.ParameterError) as info:
        mrrstats.compare(ev, rng=1)
    message = str(info.value)
    assert "queries='qrels'" in message and "missing='drop'" in message
    assert message.index("queries='qrels'") < message.index("missing='drop'")


def _flat_data(seed=3):
    rng = np.random.default_rng(seed)
    idx = np.repeat(np.arange(30), rng.integers(3, 25, 30))
    preds = rng.permutation(idx.size).astype(np.float64) / idx.size  # distinct scores
    target = (rng.random(idx.size) < 0.15).astype(np.int64)
    target[idx == 4] = 0  # queries without any relevant row
    target[idx == 17] = 0
    return preds, target, idx


@pytest.mark.parametrize("action", ["neg", "pos", "skip"])
def test_flat_door_equals_torchmetrics(action):
    """evaluate_flat's default is torchmetrics' empty_target_action="neg"; each of
    torchmetrics' actions is the empty_target of the same name."""
    torch = pytest.importorskip("torch")
    tm = pytest.importorskip("torchmetrics.retrieval")
    preds, target, idx = _flat_data()
    assert (np.bincount(idx, weights=target) == 0).sum() >= 2
    tp, tt, ti = torch.as_tensor(preds), torch.as_tensor(target), torch.as_tensor(idx)
    pairs = [
        ("RR", tm.RetrievalMRR),
        ("P@5", lambda **k: tm.RetrievalPrecision(top_k=5, **k)),
        ("nDCG@10", lambda **k: tm.RetrievalNormalizedDCG(top_k=10, **k)),
    ]
    for name, metric in pairs:
        kw = {} if action == "neg" else {"empty_target_action": action}
        want = float(metric(**kw)(tp, tt, indexes=ti))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", QueriesLeftOutWarning)
            if action == "neg":  # the default on both sides
                ev = mrrstats.evaluate_flat(preds, target, idx, name)
            else:
                ev = mrrstats.evaluate_flat(preds, target, idx, name, empty_target=action)
        assert float(ev.aggregate().iloc[0, 0]) == pytest.approx(want, abs=1e-6), name


def test_accumulator_default_equals_evaluate_flat_default():
    preds, target, idx = _flat_data()
    acc = mrrstats.Accumulator(["RR", "P@5"])
    half = idx < 15
    acc.update(preds[half], target[half], idx[half])
    acc.update(preds[~half], target[~half], idx[~half])
    got = acc.compute()
    want = mrrstats.evaluate_flat(preds, target, idx, ["RR", "P@5"])
    assert got.settings["empty_target"] == want.settings["empty_target"] == "neg"
    assert got.counts["run"].evaluated == 30
    np.testing.assert_array_equal(got.aggregate().to_numpy(), want.aggregate().to_numpy())
    n_empty = int((np.bincount(idx, weights=target) == 0).sum())
    with pytest.warns(QueriesLeftOutWarning, match=f"{n_empty} queries without any relevant"):
        skip = mrrstats.Accumulator(["RR"], empty_target="skip")
        skip.update(preds, target, idx)
        skip.compute()


def test_score_matrix_door_equals_pykeen():
    """ranks_from_scores' default (realistic ranks) is PyKEEN's default rank type."""
    torch = pytest.importorskip("torch")
    ranking = pytest.importorskip("pykeen.metrics.ranking")
    ranks_mod = pytest.importorskip("pykeen.evaluation.ranks")
    rng = np.random.default_rng(5)
    scores = np.round(rng.normal(size=(60, 40)), 1)  # rounded: many ties
    true = rng.integers(0, 40, 60)
    ours = mrrstats.ranks_from_scores(scores, true)
    t = torch.as_tensor(scores)
    pk = ranks_mod.Ranks.from_scores(t[torch.arange(60), torch.as_tensor(true)][:, None], t)
    realistic = pk.realistic.numpy()
    np.testing.assert_allclose(ours.rank(), realistic, rtol=0, atol=1e-12)
    mrr = ranking.InverseHarmonicMeanRank()(realistic)
    assert ours.mrr() == pytest.approx(mrr, rel=1e-7)  # PyKEEN averages in float32
    hits = ranking.HitsAtK(k=10)(realistic)
    assert ours.hits_at(10) == pytest.approx(hits, abs=1e-12)


def test_query_counts_display_shows_ids():
    qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}, "q3": {"d3": 1}, "q4": {"d4": 1}, "q5": {"d5": 1}}
    run = pd.DataFrame({"query": ["q1"], "doc": ["d1"], "score": [1.0]})
    with pytest.warns(QueriesLeftOutWarning, match="4 of the 5"):
        ev = mrrstats.evaluate(qrels, {"r": run}, ["RR"])
    counts = ev.counts["r"]
    assert counts.qrels_only == ("q2", "q3", "q4", "q5")
    assert repr(counts) == (
        "QueryCounts(evaluated=1, qrels_only=('q2', 'q3', 'q4', ... 4 ids)"
        ", run_only=(), no_relevant=(), empty_target='neg')"
    )
    assert counts.to_dict()["qrels_only"] == 4  # to_dict: counts (documented)
