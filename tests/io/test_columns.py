"""In-memory columns through the compiled kernels (mrrstats.io.columns): the same query
codes, document hashes, blocks and repeat check as the numpy / pyarrow path, and every
door giving values identical to the TREC-file path on real runs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import mrrstats
from mrrstats import compiled, datasets, read_qrels, read_run
from mrrstats.io import columns, doors
from mrrstats.io.hashing import duplicate_pairs, encode_strings, hash_strings

pytestmark = pytest.mark.skipif(not compiled.available(), reason="needs numba")

MEASURES = ["RR", "RR@5", "AP", "nDCG@10", "P@5", "R@100", "Success@10", "Rank"]


@pytest.fixture
def compiled_doors(monkeypatch):
    """Every run, however small, through the compiled column kernels; counts the calls."""
    monkeypatch.setattr(columns, "MIN_ROWS", 0)
    calls = []
    real = doors.run_columns

    def counted(*args, **kwargs):
        out = real(*args, **kwargs)
        calls.append(out is not None)
        return out

    monkeypatch.setattr(doors, "run_columns", counted)
    return calls


def _random_columns(rng, n_queries, depth, *, interleave, repeat, chunks, large):
    qids = np.array([f"q{i}" for i in rng.permutation(n_queries)] + [""], dtype=object)
    q = np.repeat(qids[:n_queries], depth)
    d = np.array(
        [
            f"doc{x}" if x % 7 else "é" * int(x % 5) + "x" * int(x % 40)
            for x in rng.integers(0, 10**6, q.size)
        ],
        dtype=object,
    )
    for i in range(n_queries):  # distinct documents within a query
        d[i * depth : (i + 1) * depth] = [
            f"{s}#{j}" for j, s in enumerate(d[i * depth : (i + 1) * depth])
        ]
    d[::depth] = ""  # empty ids are ids too (one per query)
    score = np.round(rng.normal(size=q.size), 1)
    if interleave:
        order = rng.permutation(q.size)
        q, d, score = q[order], d[order], score[order]
    else:  # descending within each query block
        for i in range(n_queries):
            sl = slice(i * depth, (i + 1) * depth)
            score[sl] = np.sort(score[sl])[::-1]
    if repeat:
        d[5] = d[4] if q[5] == q[4] else d[5]
        q[5], d[5] = q[4], d[4]
    typ = pa.large_string() if large else pa.string()
    cuts = np.linspace(0, q.size, chunks + 1).astype(int)
    qa = pa.chunked_array(
        [pa.array(q[a:b], type=typ) for a, b in zip(cuts[:-1], cuts[1:], strict=True)]
    )
    da = pa.chunked_array(
        [pa.array(d[a:b], type=typ) for a, b in zip(cuts[:-1], cuts[1:], strict=True)]
    )
    return qa, da, score


@pytest.mark.parametrize("interleave", [False, True])
@pytest.mark.parametrize("repeat", [False, True])
@pytest.mark.parametrize("chunks,large", [(1, False), (3, False), (1, True), (4, True)])
def test_run_columns_equal_the_numpy_path(monkeypatch, interleave, repeat, chunks, large):
    monkeypatch.setattr(columns, "MIN_ROWS", 0)
    rng = np.random.default_rng(7)
    qa, da, score = _random_columns(
        rng, 37, 29, interleave=interleave, repeat=repeat, chunks=chunks, large=large
    )
    got = columns.run_columns(qa, da, score)
    dictionary, codes = encode_strings(qa)
    assert got["query_dictionary"].to_pylist() == dictionary.to_pylist()
    np.testing.assert_array_equal(got["query_codes"], codes)
    np.testing.assert_array_equal(got["doc_hashes"], hash_strings(da))
    assert got["repeat"] == duplicate_pairs(qa, da) == repeat
    if interleave:
        assert got["query_blocks"] is None
    else:
        want = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
        np.testing.assert_array_equal(got["query_blocks"], want)


def test_run_columns_sees_a_rising_score_and_sliced_arrays(monkeypatch):
    monkeypatch.setattr(columns, "MIN_ROWS", 0)
    q = pa.array(["a", "a", "a", "b", "b", "c"])
    d = pa.array(["x", "y", "z", "x", "y", "x"])
    falling = np.array([3.0, 2.0, 2.0, 5.0, 1.0, 0.0])
    assert columns.run_columns(q, d, falling)["query_blocks"].tolist() == [0, 3, 5]
    rising = np.array([3.0, 2.0, 2.5, 5.0, 1.0, 0.0])
    assert columns.run_columns(q, d, rising)["query_blocks"] is None
    # an array sliced from a larger one: offsets that do not start at 0
    got = columns.run_columns(q.slice(1), d.slice(1), falling[1:])
    assert got["query_codes"].tolist() == [0, 0, 1, 1, 2]
    np.testing.assert_array_equal(got["doc_hashes"], hash_strings(d.slice(1)))
    assert columns.run_columns(q.slice(1), d.slice(1), falling[1:])["repeat"] is False
    assert (
        columns.run_columns(pa.array(["a", "b", "a"]), pa.array(["x", "x", "x"]), np.zeros(3))[
            "repeat"
        ]
        is True
    )


def test_small_runs_keep_the_numpy_path():
    q = pa.array(["a", "b"])
    assert columns.run_columns(q, q, np.zeros(2)) is None  # under MIN_ROWS


@pytest.mark.parametrize(
    "ids", [["a", "bb", "", "é", "x"], ["one"], ["", ""], [np.str_("np"), "str"]]
)
def test_strings_from_python(ids):
    got = columns.strings_from_python(iter(ids), len(ids))
    assert got.to_pylist() == [str(i) for i in ids]


@pytest.mark.parametrize("ids", [[], ["a\x00b", "c"], ["a", 1], ["\ud800"], [b"x"]])
def test_strings_from_python_steps_aside(ids):
    assert columns.strings_from_python(iter(ids), len(ids)) is None


def _shapes(qrels, run):
    """The run in every in-memory shape, and the qrels as a frame."""
    frame = run.to_frame()
    ranked = mrrstats.rank_run(qrels, run)
    rdict = {}
    for q, d, s in zip(frame["query"], frame["doc"], frame["score"], strict=True):
        rdict.setdefault(q, {})[d] = float(s)
    obj = frame.astype({"query": object, "doc": object, "rank": object})
    shapes = {
        "pandas": frame,
        "pandas (object columns)": obj,
        "pandas (ArrowDtype)": pa.Table.from_pandas(frame).to_pandas(types_mapper=pd.ArrowDtype),
        "arrow": pa.Table.from_pandas(frame),
        "dict": rdict,
        "lists": {
            str(q): [str(d) for d in docs]
            for q, docs in zip(ranked.query_ids, ranked.doc_ids(), strict=True)
        },
    }
    try:
        import polars as pl

        shapes["polars"] = pl.from_pandas(frame)
    except ImportError:  # pragma: no cover - polars is a test dependency
        pass
    return shapes


def test_every_door_equals_the_file_path_on_cast(compiled_doors):
    data = datasets.cast2021()
    qrels = read_qrels(data.qrels)
    qframe = qrels.to_frame()
    for k, path in enumerate(data.runs[:2]):
        ref = mrrstats.evaluate(data.qrels, {"r": path}, MEASURES)
        for ties in ("trec_eval", "expected")[: 2 - k]:
            want = (
                ref
                if ties == "trec_eval"
                else mrrstats.evaluate(data.qrels, {"r": path}, MEASURES, ties=ties)
            )
            for shape, obj in _shapes(qrels, read_run(path)).items():
                if shape == "lists" and ties != "trec_eval":
                    continue  # a list is its own order under every convention
                compiled_doors.clear()
                ev = mrrstats.evaluate(qframe, {"r": obj}, MEASURES, ties=ties)
                assert compiled_doors == [True], shape
                pd.testing.assert_frame_equal(
                    ev.values["r"], want.values["r"], check_exact=True, obj=f"{path} {shape}"
                )


def test_every_door_equals_the_file_path_on_trec_eval_fixtures(compiled_doors):
    from tests.reference_data import data_path

    qpath = data_path("trec_eval_test", "qrels.test")
    rpath = data_path("trec_eval_test", "results.test")
    ref = mrrstats.evaluate(qpath, {"r": rpath}, MEASURES)
    qrels = read_qrels(qpath)
    for shape, obj in _shapes(qrels, read_run(rpath)).items():
        ev = mrrstats.evaluate(qrels.to_frame(), {"r": obj}, MEASURES)
        pd.testing.assert_frame_equal(ev.values["r"], ref.values["r"], check_exact=True, obj=shape)
    assert all(compiled_doors)


def test_doors_keep_their_checks_on_the_compiled_path(compiled_doors):
    frame = pd.DataFrame(
        {"query": ["a", "a", "b"], "doc": ["x", "x", "y"], "score": [1.0, 0.5, 0.2]}
    )
    with pytest.raises(mrrstats.InputError, match="more than once"):
        read_run(frame)
    kept = read_run(frame, duplicates="max")
    assert kept.doc.to_pylist() == ["x", "y"] and kept.score.tolist() == [1.0, 0.2]
    with pytest.warns(UserWarning, match="same score"):
        mrrstats.evaluate({"a": {"x": 1}}, {"r": {"a": {"x": 1.0, "y": 1.0}}}, "RR")
