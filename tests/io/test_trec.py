"""Reading qrels and runs: accepted shapes and clear errors for bad input."""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest

import mrrstats
from mrrstats import InputError, read_qrels, read_run
from mrrstats.cli import main
from tests.reference_data import data_path


def write(tmp_path, name, text, *, gz=False):
    path = tmp_path / name
    if gz:
        with gzip.open(path, "wt") as fh:
            fh.write(text)
    else:
        path.write_text(text)
    return path


RUN = "q1 Q0 d1 1 2.5 tagA\nq1 Q0 d2 2 1.5 tagA\nq2 Q0 d1 1 0.5 tagA\n"
QRELS = "q1 0 d1 1\nq1 0 d3 2\nq2 0 d1 0\n"


def test_read_run_fast_and_line_paths_agree(tmp_path):
    fast = read_run(write(tmp_path, "a.run", RUN))
    slow = read_run(write(tmp_path, "b.run", RUN.replace(" ", " \t ")))
    for r in (fast, slow):
        assert r.query.to_pylist() == ["q1", "q1", "q2"]
        assert r.doc.to_pylist() == ["d1", "d2", "d1"]
        np.testing.assert_array_equal(r.score, [2.5, 1.5, 0.5])
        assert r.tag == "tagA"
    assert fast.name == "a.run"


def test_gzip_by_content_and_name(tmp_path):
    r = read_run(write(tmp_path, "run.txt.gz", RUN, gz=True))
    assert r.name == "run.txt" and len(r) == 3
    q = read_qrels(write(tmp_path, "q.gz", QRELS, gz=True))
    assert len(q) == 3


def test_trec_eval_fixture_quirks():
    # comments in qrels, extra trailing columns and a missing topic, '#' in doc ids,
    # rows out of rank order with tied scores: all accepted (trec_eval accepts them).
    q = read_qrels(data_path("trec_eval_test", "qrels.test.with-comments"))
    assert "CR#93E-1860" in set(q.doc)
    trunc = read_run(data_path("trec_eval_test", "results.trunc"))
    assert set(trunc.query.to_pylist()) == {"301", "303"}
    comment = read_run(data_path("trec_eval_test", "results.comment.test"))
    assert any("#" in d for d in comment.doc.to_pylist()[:10])
    unordered = read_run(data_path("trec_eval_test", "results.test"))
    assert len(unordered) == 1500


@pytest.mark.parametrize("text, match, line", [
    ("q1 Q0 d1 1 2.5\n", "expected 6 fields", 1),
    ("q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 abc t\n", "score 'abc' is not a number", 2),
    ("q1 Q0 d1 1 nan t\n", "not finite", 1),
    ("q1 Q0 d1 1 inf t\n", "not finite", 1),
    ("q1 Q0 d1 1 2 t\nq1 Q0 d2 2 1 t\nq1 Q0 d1 3 0 t\n", "more than once", 3),
    ("q1 Q0 d1 1 2 A\nq1 Q0 d2 2 1 B\n", "run tag 'B' differs", 2),
])
@pytest.mark.parametrize("sep", [" ", "\t"])
def test_bad_run_lines_name_file_and_line(tmp_path, text, match, line, sep):
    path = write(tmp_path, "bad.run", text.replace(" ", sep))
    with pytest.raises(InputError, match=match) as info:
        read_run(path)
    assert info.value.line == line
    assert str(path) in str(info.value) and f"line {line}" in str(info.value)


def test_empty_files(tmp_path):
    with pytest.raises(InputError, match="empty run"):
        read_run(write(tmp_path, "e.run", "\n# only a comment\n"))
    with pytest.raises(InputError, match="empty qrels"):
        read_qrels(write(tmp_path, "e.qrels", ""))


@pytest.mark.parametrize("text, match, line", [
    ("q1 0 d1\n", "expected 4 fields", 1),
    ("q1 0 d1 1 extra\n", "expected 4 fields", 1),
    ("q1 0 d1 1\nq1 0 d2 high\n", "grade 'high' is not a number", 2),
    ("q1 0 d1 1.5\n", "not an integer", 1),
    ("q1 0 d1 1\nq1 0 d1 2\n", "more than once", 2),
])
def test_bad_qrels_lines(tmp_path, text, match, line):
    with pytest.raises(InputError, match=match) as info:
        read_qrels(write(tmp_path, "bad.qrels", text))
    assert info.value.line == line


def test_negative_grades_are_kept_and_never_relevant(tmp_path):
    q = read_qrels(write(tmp_path, "q", "q1 0 d1 -2\nq1 0 d2 1\n"))
    assert sorted(q.grade.tolist()) == [-2, 1]
    ev = mrrstats.evaluate(q, {"q1": {"d1": 2.0, "d2": 1.0}}, ["RR"])
    assert ev.aggregate().iloc[0, 0] == 0.5


def test_duplicate_options(tmp_path):
    text = "q1 Q0 d1 1 1.0 t\nq1 Q0 d2 2 3.0 t\nq1 Q0 d1 3 5.0 t\n"
    path = write(tmp_path, "dup.run", text)
    first = read_run(path, duplicates="first")
    assert dict(zip(first.doc.to_pylist(), first.score, strict=True)) == {"d1": 1.0, "d2": 3.0}
    best = read_run(path, duplicates="max")
    assert dict(zip(best.doc.to_pylist(), best.score, strict=True)) == {"d1": 5.0, "d2": 3.0}
    q = read_qrels(write(tmp_path, "dup.qrels", "q1 0 d1 1\nq1 0 d1 3\n"), duplicates="max")
    assert q.grade.tolist() == [3]
    with pytest.raises(ValueError, match="`duplicates`"):
        read_run(path, duplicates="last")


def test_mixed_tags_allowed_on_request(tmp_path):
    run = read_run(write(tmp_path, "m.run", "q1 Q0 d1 1 2 A\nq1 Q0 d2 2 1 B\n"),
                   mixed_tags="allow")
    assert len(run) == 2


def test_frames_and_dicts_match_files():
    qrels_path = data_path("trec_eval_test", "qrels.test")
    run_path = data_path("trec_eval_test", "results.test")
    from_files = mrrstats.evaluate(qrels_path, run_path, ["RR", "AP", "nDCG@10"])
    qf = read_qrels(qrels_path).to_frame().rename(columns={"query": "query_id",
                                                           "doc": "doc_id",
                                                           "grade": "relevance"})
    rf = read_run(run_path).to_frame().rename(columns={"query": "q_id", "doc": "doc_id"})
    from_frames = mrrstats.evaluate(qf, {"results.test": rf}, ["RR", "AP", "nDCG@10"])
    qd: dict = {}
    for q, d, g in zip(qf["query_id"], qf["doc_id"], qf["relevance"], strict=True):
        qd.setdefault(q, {})[d] = int(g)
    rd: dict = {}
    for q, d, s in zip(rf["q_id"], rf["doc_id"], rf["score"], strict=True):
        rd.setdefault(q, {})[d] = float(s)
    from_dicts = mrrstats.evaluate(qd, {"results.test": rd}, ["RR", "AP", "nDCG@10"])
    pd.testing.assert_frame_equal(from_files.aggregate(), from_frames.aggregate())
    pd.testing.assert_frame_equal(from_files.aggregate(), from_dicts.aggregate())


def test_frame_errors():
    with pytest.raises(InputError, match="no score column"):
        read_run(pd.DataFrame({"query": ["1"], "doc": ["a"]}))
    with pytest.raises(InputError, match="not finite"):
        read_run(pd.DataFrame({"query": ["1"], "doc": ["a"], "score": [np.inf]}))
    with pytest.raises(InputError, match="not a number"):
        read_qrels({"q": {"d": "yes"}})
    with pytest.raises(TypeError, match="`source` must be"):
        read_run(42)


def test_score_matrix_reader(tmp_path):
    m = mrrstats.read_score_matrix(data_path("score_matrices", "trec_adhoc", "adhoc7_rr.csv"))
    assert m.shape == (50, 103) and m.index[0] == "1"
    bad = write(tmp_path, "bad.csv", "a,b\n0.5,0.1\n0.2,x\n")
    with pytest.raises(InputError, match="line 3.*non-numeric"):
        mrrstats.read_score_matrix(bad)
    gap = write(tmp_path, "gap.csv", "a,b\n0.5,\n0.2,0.3\n")
    with pytest.raises(InputError, match="missing value"):
        mrrstats.read_score_matrix(gap)
    dropped = mrrstats.read_score_matrix(gap, missing="drop")
    assert dropped.shape == (1, 2) and dropped.attrs["dropped_queries"] == ["1"]


def test_cli_bad_input_one_line_exit_2(tmp_path, capsys):
    run = write(tmp_path, "bad.run", "q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 oops t\n")
    qrels = write(tmp_path, "q.qrels", QRELS)
    code = main(["evaluate", str(qrels), str(run)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "bad.run, line 2" in err and "oops" in err


def test_take_strings_matches_pyarrow_take_on_chunked_arrays():
    import pyarrow as pa

    from mrrstats.io.hashing import take_strings

    chunked = pa.chunked_array([["a", "b"], [], ["c"], ["d", "e", "f"]])
    rows = np.array([5, 0, 2, 2, 3, 1])
    assert take_strings(chunked, rows).to_pylist() == chunked.take(pa.array(rows)).to_pylist()
    assert take_strings(chunked, np.array([], dtype=np.int64)).to_pylist() == []
    flat = pa.array(["x", "y", "z"])
    assert take_strings(flat, [2, 0]).to_pylist() == ["z", "x"]
