"""The peers' own objects go in as they are: ir_measures measure objects, PyTerrier frames,
ir_datasets / ir_measures named-tuple records. Each door gives the values of the same data
read from files (the bundled CAsT 2021 run and qrels, whose file values are compared with
trec_eval in tests/metrics/test_conformance.py)."""

from __future__ import annotations

from collections import namedtuple
from pathlib import Path

import pandas as pd
import pytest

import mrrstats

DATA = Path(mrrstats.__file__).resolve().parent / "data" / "cast2021"
QRELS = DATA / "qrels" / "trec-cast-qrels-docs.2021.qrel.gz"
RUN = DATA / "runs" / "org_manual_bm25.run.gz"
MEASURES = ["RR", "nDCG@10", "P(rel=2)@5", "Bpref", "ERR@20"]


@pytest.fixture(scope="module")
def reference():
    return mrrstats.evaluate(QRELS, {"bm25": RUN}, MEASURES).values["bm25"]


@pytest.fixture(scope="module")
def frames():
    q = mrrstats.read_qrels(QRELS).to_frame()
    r = mrrstats.read_run(RUN).to_frame()
    return q, r


def _records(frame, cls, columns):
    return [cls(*row) for row in frame[columns].itertuples(index=False, name=None)]


def test_pyterrier_frames(reference, frames):
    q, r = frames
    # PyTerrier: results qid, docno, score, rank (0-based); qrels qid, docno, label
    res = pd.DataFrame(
        {
            "qid": r["query"],
            "docno": r["doc"],
            "score": r["score"],
            "rank": r.groupby("query").cumcount(),
        }
    )
    qrels = pd.DataFrame({"qid": q["query"], "docno": q["doc"], "label": q["grade"]})
    got = mrrstats.evaluate(qrels, {"bm25": res}, MEASURES).values["bm25"]
    pd.testing.assert_frame_equal(got, reference)


def test_ir_datasets_and_ir_measures_records(reference, frames):
    q, r = frames
    try:  # the peers' own named tuples where they are installed (no download needed)
        from ir_datasets.formats import TrecQrel
    except ImportError:
        TrecQrel = namedtuple("TrecQrel", ["query_id", "doc_id", "relevance", "iteration"])
    try:
        from ir_measures import ScoredDoc
    except ImportError:
        ScoredDoc = namedtuple("ScoredDoc", ["query_id", "doc_id", "score"])
    q = q.assign(iteration="0")
    qrels = _records(q, TrecQrel, ["query", "doc", "grade", "iteration"])
    run = _records(r, ScoredDoc, ["query", "doc", "score"])
    for qrels_in, run_in in (
        (qrels, run),
        (iter(qrels), iter(run)),
        ((x for x in qrels), {"bm25": run}),
    ):
        ev = mrrstats.evaluate(qrels_in, run_in, MEASURES)
        got = ev.values[ev.runs[0]]
        pd.testing.assert_frame_equal(got, reference, check_names=False)
    # a dict of named runs of records: two runs, not queries
    ev = mrrstats.evaluate(qrels, {"a": run, "b": iter(run)}, ["RR"])
    assert ev.runs == ("a", "b")


def test_records_refusals():
    Row = namedtuple("Row", ["query_id", "doc_id", "relevance"])
    Other = namedtuple("Other", ["query_id", "doc_id", "score"])
    with pytest.raises(mrrstats.errors.InputError, match="empty"):
        mrrstats.read_qrels(iter([]))
    with pytest.raises(mrrstats.errors.ParameterTypeError, match="one type"):
        mrrstats.read_qrels([Row("1", "a", 1), Other("1", "b", 0.5)])


def test_ir_measures_measure_objects(reference):
    ir_measures = pytest.importorskip("ir_measures")
    objs = [
        ir_measures.RR,
        ir_measures.nDCG @ 10,
        ir_measures.P(rel=2) @ 5,
        ir_measures.Bpref,
        ir_measures.ERR @ 20,
    ]
    assert [str(m) for m in mrrstats.parse_measures(objs)] == MEASURES
    got = mrrstats.evaluate(QRELS, {"bm25": RUN}, objs).values["bm25"]
    pd.testing.assert_frame_equal(got, reference)
    # ir_measures' defaults where they differ from trec_eval's: its bare RBP is p=0.8
    assert str(mrrstats.parse_measure(ir_measures.RBP)) == "RBP(p=0.8)"
    assert (
        str(mrrstats.parse_measure(ir_measures.nDCG(dcg="exp-log2") @ 20)) == "nDCG(gain=exp)@20"
    )
    assert str(mrrstats.parse_measure(ir_measures.NumRet(rel=1))) == "NumRelRet(rel=1)"
    assert str(mrrstats.parse_measure(ir_measures.IPrec @ 0.2)) == "IPrec@0.2"
    with pytest.raises(mrrstats.errors.ParameterError, match="judged_only"):
        mrrstats.parse_measure(ir_measures.nDCG(judged_only=True))
    with pytest.raises(mrrstats.errors.ParameterError, match="no counterpart"):
        mrrstats.parse_measure(ir_measures.nDCG(gains={0: 1}))
