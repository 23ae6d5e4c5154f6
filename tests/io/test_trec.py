"""Reading qrels and runs: accepted shapes and clear errors for bad input."""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest

import mrrstats
from mrrstats import InputError, read_qrels, read_run
from mrrstats.cli import main
from tests.reference_data import CAST_QRELS, data_path


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


def test_take_strings_numpy_gather_equals_arrow_take():
    """Up to hashing._NUMPY_TAKE_MAX rows take_strings gathers the bytes with numpy (no
    pyarrow.compute import): the same strings and type as Arrow's take, on UTF-8, empty
    strings, sliced and chunked arrays (an empty chunk too), large_string, and every
    row; nulls and rows out of range are left to Arrow's take."""
    import pyarrow as pa
    import pytest

    from mrrstats.io import hashing

    rng = np.random.default_rng(5)
    words = ["".join(rng.choice(list("abé漢0"), size=rng.integers(0, 6))) for _ in range(500)]
    flat = pa.array(words)
    arrays = [flat, flat[7:400], pa.array(words, pa.large_string()),
              pa.chunked_array([flat[:100], pa.array([], pa.string()), flat[100:]]),
              pa.chunked_array([flat[3:200], flat[250:]]), pa.array([""] * 5)]
    for arr in arrays:
        for rows in (np.zeros(0, np.int64), rng.integers(0, len(arr), 40),
                     rng.permutation(len(arr))):
            ref = arr.take(pa.array(rows))
            ref = ref.combine_chunks() if isinstance(ref, pa.ChunkedArray) else ref
            got = hashing._take_small(arr, rows)
            assert got.type == ref.type and got.equals(ref)
            assert hashing.take_strings(arr, rows).equals(ref)  # Arrow's (compute imported)
    assert hashing._take_small(pa.array(["a", None]), np.array([0])) is None
    assert hashing._take_small(flat, np.array([len(words)])) is None
    with pytest.raises(IndexError):
        hashing.take_strings(flat, [len(words)])


def _qrels_both_ways(path, monkeypatch):
    """read_qrels of ``path`` with the numpy checks (the default below their row limit)
    and with Arrow's compute functions: (Qrels or the error's text) for each."""
    from mrrstats.io import trec as trec_module

    out = []
    monkeypatch.setattr(trec_module, "compute_imported", lambda: False)  # as a fresh process
    for rows in (trec_module._NUMPY_QRELS_ROWS, 0):
        monkeypatch.setattr(trec_module, "_NUMPY_QRELS_ROWS", rows)
        try:
            out.append(mrrstats.read_qrels(path))
        except Exception as exc:  # noqa: BLE001 - the same refusal both ways
            out.append(f"{type(exc).__name__}: {exc}")
    return out


def _same_qrels(a, b):
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return (a.query.dtype == b.query.dtype and a.query.tolist() == b.query.tolist()
            and a.doc.tolist() == b.doc.tolist() and a.grade.dtype == b.grade.dtype
            and np.array_equal(a.grade, b.grade))


QRELS_CASES = {  # the numpy checks' every answer: accept, line reader, Arrow's checks
    "plain": "q1 0 d1 1\nq1 0 d0 0\nq10 0 d1 2\nq2 0 d3 1\n",
    "tabs": "q1\t0\td1\t1\nq0\t0\td2\t3\n",
    "utf8 and byte order": "qé 0 dz 1\nqe 0 dé 1\nqe 0 d\u6f22 0\nqe 0 da 1\nq 0 ab 1\nq 0 a 0\n",
    "signed and padded grades": "q1 0 d1 +1\nq1 0 d2 -1\nq1 0 d3 007\nq2 0 d1 -0\n",
    "sign alone": "q1 0 d1 +\n",
    "sign inside": "q1 0 d1 1-2\n",
    "letter grade": "q1 0 d1 1a\n",
    "float grade": "q1 0 d1 1.0\n",
    "huge grade": "q1 0 d1 99999999999999999999\n",
    "int64 edge": "q1 0 d1 9223372036854775807\nq1 0 d2 -9223372036854775808\n",
    "18 digits": "q1 0 d1 123456789012345678\nq1 0 d2 -999999999999999999\nq1 0 d3 +0\n",
    "ids across 8-byte words": "q 0 abcdefgh 1\nq 0 abcdefg 1\nq 0 abcdefghi 0\n"
                               "qqqqqqqq 0 a 1\nqqqqqqq 0 a 1\nqqqqqqqqq 0 a 2\n",
    "repeated pair": "q1 0 d1 1\nq2 0 d1 0\nq1 0 d1 0\n",
    "comment": "q1 0 d1 1\n# a comment\n",
    "hash id": "q1 0 d1 1\n#q 0 d1 1\n",
    "carriage return": "q1 0 d1 1\r\nq1 0 d2 0\r\n",
    "double space": "q1  0 d1 1\n",
    "vertical tab in id": "q1 0 d\x0b1 1\n",
    "NUL in id": "q1 0 d\x001 1\nq1 0 d1 0\n",
    "NUL-prefixed ids": "q1 0 \x00 1\nq1 0 \x00\x00 0\n",
}


@pytest.mark.parametrize("name", list(QRELS_CASES))
def test_qrels_numpy_checks_equal_arrow_checks(name, tmp_path, monkeypatch):
    path = tmp_path / "q.qrels"
    path.write_bytes(QRELS_CASES[name].encode("utf-8"))
    numpy_way, arrow_way = _qrels_both_ways(path, monkeypatch)
    assert _same_qrels(numpy_way, arrow_way), (numpy_way, arrow_way)


@pytest.mark.parametrize("parts", [CAST_QRELS, ("trec_eval_extra", "cast2021.qrels.sampled.gz"),
                                   ("trec_eval_test", "qrels.test"),
                                   ("trec_eval_test", "qrels-302.test"),
                                   ("trec_eval_test", "qrels.rel_level"),
                                   ("trec_eval_test", "qrels.comment.test"),
                                   ("trec_eval_test", "qrels.test.with-comments")])
def test_qrels_numpy_checks_equal_arrow_checks_on_real_files(parts, monkeypatch):
    numpy_way, arrow_way = _qrels_both_ways(data_path(*parts), monkeypatch)
    assert _same_qrels(numpy_way, arrow_way)
    assert not isinstance(numpy_way, str)


def test_qrels_numpy_checks_on_many_random_ids(tmp_path, monkeypatch):
    """20,000 pairs of random ASCII and UTF-8 ids of 1 to 12 characters (prefixes of each
    other, so that the byte order decides), in random order: the same Qrels."""
    rng = np.random.default_rng(11)
    alphabet = list("ab0é\u6f22_-.")
    ids = ["".join(rng.choice(alphabet, size=rng.integers(1, 13))) for _ in range(3000)]
    pairs = {(ids[i], ids[j]) for i, j in rng.integers(0, len(ids), size=(20_000, 2))}
    lines = [f"{q} 0 {d} {rng.integers(-1, 4)}" for q, d in pairs]
    path = tmp_path / "q.qrels"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    numpy_way, arrow_way = _qrels_both_ways(path, monkeypatch)
    assert not isinstance(numpy_way, str) and len(numpy_way.query) == len(pairs)
    assert _same_qrels(numpy_way, arrow_way)
