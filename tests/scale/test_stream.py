"""The stream engine's reading: pieces from one refilled buffer straight into the
compiled tokenizer, buckets carrying the documents' hashes, whole-bucket columns through
the compiled column kernels; the values stay those of the in-memory engine, bit for bit."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

import mrrstats
from mrrstats import evaluate
from mrrstats.io import columns
from mrrstats.scale import iter_query_groups, stream
from tests.scale.test_engines import MEASURES, assert_same, shuffled_copy

DATA = mrrstats.datasets.cast2021()


@pytest.fixture
def compiled_buckets(monkeypatch):
    """Small pieces and buckets, every bucket through the compiled column kernels."""
    monkeypatch.setattr(stream, "BUCKET_BYTES", 1 << 17)
    monkeypatch.setattr(stream, "BLOCK_BYTES", 1 << 16)
    monkeypatch.setattr(columns, "MIN_ROWS", 0)


@pytest.mark.parametrize("block", [1, 7, 100, 1 << 12])
@pytest.mark.parametrize("gz", [False, True])
def test_pieces_are_whole_lines_and_cover_the_file(tmp_path, block, gz):
    lines = [
        b"q1 Q0 d1 1 2.5 t\n",
        b"q2 Q0 " + b"x" * 300 + b" 1 1 t\n",
        b"\n",
        b"# c\n",
        b"q3 Q0 d9 1 0.5 t",
    ]  # no newline at the end
    text = b"".join(lines * 5)
    path = tmp_path / ("r.run.gz" if gz else "r.run")
    path.write_bytes(gzip.compress(text) if gz else text)
    got, read = [], 0
    for piece, nbytes in stream._text_pieces(path, block):
        data = bytes(piece)
        assert data.endswith(b"\n") or b"".join(got) + data == text  # the last one
        read += nbytes
        got.append(data)
    assert b"".join(got) == text
    assert read == len(text)


def test_stream_matches_memory_with_compiled_buckets(compiled_buckets, tmp_path):
    a = evaluate(DATA.qrels, DATA.runs[:2], MEASURES)
    b = evaluate(DATA.qrels, DATA.runs[:2], MEASURES, engine="stream")
    assert_same(a, b)
    path = shuffled_copy(DATA.runs[3], tmp_path / "shuffled.run", 5)
    for kw in ({}, {"ties": "rank", "max_depth": 20}):
        assert_same(
            evaluate(DATA.qrels, path, MEASURES, **kw),
            evaluate(DATA.qrels, path, MEASURES, engine="stream", **kw),
        )


def test_stream_matches_memory_on_trec_eval_fixtures(compiled_buckets, monkeypatch):
    from tests.reference_data import data_path

    qrels = data_path("trec_eval_test", "qrels.test")
    run = data_path("trec_eval_test", "results.test")
    monkeypatch.setattr(stream, "BLOCK_BYTES", 5000)
    assert_same(evaluate(qrels, run, MEASURES), evaluate(qrels, run, MEASURES, engine="stream"))


def test_pieces_go_to_the_tokenizer_and_fall_back(compiled_buckets, monkeypatch):
    """Every piece reaches the compiled tokenizer; one it refuses is read by read_run."""
    calls = []
    real = stream.tokenize_bytes

    def some_refused(buf, **kwargs):
        calls.append(buf.size)
        return None if len(calls) % 2 else real(buf, **kwargs)

    monkeypatch.setattr(stream, "tokenize_bytes", some_refused)
    a = evaluate(DATA.qrels, DATA.runs[1], MEASURES)
    b = evaluate(DATA.qrels, DATA.runs[1], MEASURES, engine="stream")
    assert_same(a, b)
    assert len(calls) > 2


def test_buckets_carry_the_document_hashes(compiled_buckets):
    from mrrstats.io.hashing import encode_strings, hash_strings

    groups = list(iter_query_groups(DATA.runs[0], n_buckets=3, block_bytes=20_000))
    assert len(groups) == 3
    for g in groups:
        np.testing.assert_array_equal(g._meta["doc_hashes"], hash_strings(g.doc))
        dictionary, codes = encode_strings(g.query)
        np.testing.assert_array_equal(g._meta["query_codes"], codes)
        assert g._meta["query_dictionary"].to_pylist() == dictionary.to_pylist()


def test_duplicate_across_pieces_is_refused(compiled_buckets, tmp_path):
    with gzip.open(DATA.runs[0], "rt") as fh:
        lines = fh.readlines()[:5000]
    path = tmp_path / "dup.run"
    path.write_text("".join(lines + [lines[10]]))
    with pytest.raises(mrrstats.InputError, match="twice"):
        evaluate(DATA.qrels, path, engine="stream")


def _lines(path):
    with gzip.open(path, "rt") as fh:
        return fh.readlines()


def _no_buckets(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("went through the buckets")

    monkeypatch.setattr(stream, "iter_query_groups", refuse)


@pytest.mark.parametrize("gz", [False, True])
def test_grouped_run_is_evaluated_piece_by_piece(compiled_buckets, monkeypatch, tmp_path, gz):
    """A run whose queries' lines come together: pieces cut between queries, no bucket;
    the in-memory values, bit for bit."""
    text = "".join(_lines(DATA.runs[2]))
    path = tmp_path / ("sorted.run.gz" if gz else "sorted.run")
    path.write_bytes(gzip.compress(text.encode()) if gz else text.encode())
    seen = []
    real = stream._trec_pieces

    def count(*args, **kwargs):
        for run in real(*args, **kwargs):
            seen.append(run)
            yield run

    monkeypatch.setattr(stream, "_trec_pieces", count)
    _no_buckets(monkeypatch)
    for kw in ({}, {"ties": "rank", "max_depth": 20}):
        seen.clear()
        assert_same(
            evaluate(DATA.qrels, path, MEASURES, **kw),
            evaluate(DATA.qrels, path, MEASURES, engine="stream", **kw),
        )
        assert len(seen) > 3  # several pieces ...
        ids = [q for run in seen for q in run._meta["query_dictionary"].to_pylist()]
        assert len(ids) == len(set(ids))  # ... none holding part of another's query


@pytest.mark.parametrize("layout", ["again_later", "split_in_piece", "longer_than_piece"])
def test_run_not_grouped_goes_to_the_buckets(compiled_buckets, monkeypatch, tmp_path, layout):
    """Pieces that each look grouped but a query coming back pieces later, a query's
    lines apart within a piece, a query longer than a piece: the buckets, from the start;
    the in-memory values, bit for bit."""
    lines = _lines(DATA.runs[1])
    queries = list(dict.fromkeys(line.split()[0] for line in lines))
    by_query = {q: [line for line in lines if line.split()[0] == q] for q in queries}
    if layout == "again_later":  # the first query's last 5 lines at the very end
        first = by_query[queries[0]]
        text = first[:-5] + [ln for q in queries[1:] for ln in by_query[q]] + first[-5:]
    elif layout == "split_in_piece":  # two queries' lines alternate
        a, b = by_query[queries[0]], by_query[queries[1]]
        mixed = [ln for pair in zip(a, b, strict=False) for ln in pair]
        text = mixed + [ln for q in queries[2:] for ln in by_query[q]]
    else:  # every line of the run under one query id
        text = [queries[0] + line[line.index(" ") :] for line in lines[:2000]]
        text = [ln.replace(" Q0 ", f" Q0 {i}-", 1) for i, ln in enumerate(text)]  # no repeat
    path = tmp_path / "run.txt"
    path.write_text("".join(text))
    calls = []
    real = stream.iter_query_groups

    def buckets(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(stream, "iter_query_groups", buckets)
    for kw in ({}, {"ties": "rank"}):
        assert_same(
            evaluate(DATA.qrels, path, MEASURES, queries="qrels", **kw),
            evaluate(DATA.qrels, path, MEASURES, queries="qrels", engine="stream", **kw),
        )
    assert len(calls) == 2


def test_last_query_start_finds_the_block():
    """Where the last query's lines begin: for every layout of a few queries' blocks
    (ids that are prefixes of one another, tabs), in a buffer with other text before."""
    rng = np.random.default_rng(5)
    for _ in range(500):
        lines = []
        for q in range(int(rng.integers(1, 6))):
            qid = f"q{q}" + str(rng.choice(["", "x", "1"]))
            sep = str(rng.choice([" ", "\t"]))
            lines += [f"{qid}{sep}Q0 d{i} {i} 1 t\n" for i in range(int(rng.integers(1, 40)))]
        before = b"junk\n" * int(rng.integers(0, 3))
        buf = bytearray(before + "".join(lines).encode())
        ids = [line.split()[0] for line in lines]
        i = len(ids) - 1
        while i > 0 and ids[i - 1] == ids[-1]:
            i -= 1
        expected = len(before) + sum(len(line) for line in lines[:i])
        assert stream._last_query_start(buf, len(buf), len(before)) == expected
    assert stream._last_query_start(bytearray(b"q1 a\n# c\n"), 9) == 9  # a comment: no cut
