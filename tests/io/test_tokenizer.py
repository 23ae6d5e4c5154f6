"""The compiled TREC run tokenizer gives exactly the columns of the readers it stands in for.

Reference: the pyarrow reader with its checks, or the line reader (which splits as
trec_eval does) where pyarrow's reading is not clean; scores against Python's
``float``; document hashes against :func:`mrrstats.io.hashing.hash_strings`.
"""

from __future__ import annotations

import gzip
import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mrrstats import compiled
from mrrstats.io import tokenizer, trec
from mrrstats.io.hashing import encode_strings, hash_strings
from tests.reference_data import data_path

pytest.importorskip("numba")

RUN_FILES = sorted(
    [*data_path("trec_eval_test").glob("results*"), *data_path("cast2021", "runs").glob("*")]
)
MAKE_DATA = Path(__file__).resolve().parents[2] / "benchmarks" / "make_data.py"


def _reference(path):
    """The run as the readers without the tokenizer give it."""
    src = str(path)
    run = trec._read_run_fast(path, src, "r")
    if run is None or trec._fast_run_problem(run, "raise") is not None:
        run = trec._read_run_lines(path, src, "r", "raise", "raise")
    return run


def _strings(col):
    return col.to_numpy(zero_copy_only=False).tolist()


def _assert_same(tokens, ref):
    assert _strings(tokens["query"]) == _strings(ref.query)
    assert _strings(tokens["doc"]) == _strings(ref.doc)
    assert _strings(tokens["rank"]) == _strings(ref.rank)
    # the very same doubles, sign of zero included
    np.testing.assert_array_equal(tokens["score"].view(np.int64), ref.score.view(np.int64))
    assert tokens["tag"] == ref.tag
    np.testing.assert_array_equal(tokens["doc_hashes"], hash_strings(tokens["doc"]))
    dictionary, codes = encode_strings(tokens["query"])
    assert tokens["query_dictionary"].to_pylist() == dictionary.to_pylist()
    np.testing.assert_array_equal(tokens["query_codes"], codes)
    # query_blocks: first row of each query's block when every query is one block of
    # lines with scores not rising (a plain loop over the reference)
    q, sc = _strings(ref.query), ref.score
    starts = [r for r in range(len(q)) if r == 0 or q[r] != q[r - 1]]
    one_block = len(starts) == len(set(q))
    rises = any(q[r] == q[r - 1] and sc[r] > sc[r - 1] for r in range(1, len(q)))
    if one_block and not rises:
        assert tokens["query_blocks"].tolist() == starts
    else:
        assert tokens["query_blocks"] is None


@pytest.fixture(autouse=True, params=["native", "numba"])
def kernels_in_use(request):
    """Each test with the C kernels (mrrstats._native, where built) and with numba's."""
    if request.param == "native" and compiled.native() is None:
        pytest.skip("mrrstats._native is not built")
    previous = compiled.use_native(request.param == "native")
    yield request.param
    compiled.use_native(previous)


@pytest.fixture(autouse=True)
def small_files_too(monkeypatch):
    """Tokenize the small test files too (read_run leaves files under MIN_BYTES to the
    other readers)."""
    monkeypatch.setattr(tokenizer, "MIN_BYTES", 0)


def test_small_files_are_left_to_the_readers(tmp_path, monkeypatch):
    path = _write(tmp_path, ACCEPTED["plain"])
    monkeypatch.setattr(tokenizer, "MIN_BYTES", 1 << 22)
    assert tokenizer.tokenize_run(path) is None
    assert "doc_hashes" in trec.read_run(path)._meta  # the pyarrow reader's checks


@pytest.fixture
def many_chunks(monkeypatch):
    """Cut even small files into many chunks (the cut never changes a result)."""
    monkeypatch.setattr(tokenizer, "_MIN_CHUNK", 64)


@pytest.mark.parametrize("path", RUN_FILES, ids=lambda p: p.name)
@pytest.mark.parametrize("workers", [1, 2])
def test_real_runs_match_the_readers(path, workers, many_chunks):
    tokens = tokenizer.tokenize_run(path, workers=workers)
    assert tokens is not None
    _assert_same(tokens, _reference(path))


def test_benchmark_run_matches_the_readers(tmp_path):
    """The benchmarks' MS MARCO-like run (benchmarks/make_data.py), 300 queries of it."""
    spec = importlib.util.spec_from_file_location("make_data", MAKE_DATA)
    make_data = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_data)
    _, run = make_data.make(n_queries=300, depth=1000, out=tmp_path)
    _assert_same(tokenizer.tokenize_run(run), _reference(run))


def _write(tmp_path, text, name="run.txt", raw=None):
    path = tmp_path / name
    data = raw if raw is not None else text.encode("utf-8")
    if name.endswith(".gz"):
        data = gzip.compress(data)
    path.write_bytes(data)
    return path


ACCEPTED = {
    "plain": "q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 1.5 t\nq2 Q0 d1 1 3 t\n",
    "no final newline": "q1 Q0 d1 1 2.5 t\nq2 Q0 d2 1 1 t",
    "comments and blanks": "# head\n\nq1 Q0 d1 1 2.5 t\n   \n  # indented comment\n"
    "q1 Q0 d2 2 1 t\n#\n",
    "tabs and runs of spaces": "q1\tQ0  d1 \t1\v2.5\ft\nq1 Q0 d2 2 1 t  \n",
    "extra fields": "q1 Q0 d1 1 2.5 t extra more\nq1 Q0 d2 2 1 t x\n",
    "crlf": "q1 Q0 d1 1 2.5 t\r\nq1 Q0 d2 2 1 t\r\n",
    "utf-8 ids": "q\u00e9 Q0 d\u00a0\u4e2d 1 2.5 t\nq\u00e9 Q0 d\U0001f600 2 1 t\n",
    "interleaved queries": "q1 Q0 d1 1 2 t\nq2 Q0 d1 1 2 t\nq1 Q0 d2 2 1 t\nq2 Q0 d2 2 1 t\n",
    "numbers": "q1 Q0 a 1 -0 t\nq1 Q0 b 1 +.5 t\nq1 Q0 c 1 1. t\nq1 Q0 d 1 1e-3 t\n"
    "q1 Q0 e 1 -2.5E+2 t\nq1 Q0 f 1 0.1000000000000000055511151231257827 t\n"
    "q1 Q0 g 1 123456789012345678901234567890 t\nq1 Q0 h 1 4.9e-324 t\n"
    "q1 Q0 i 1 1.7976931348623157e308 t\nq1 Q0 j 1 000000000000000000000012.5 t\n"
    "q1 Q0 k 1 9007199254740993 t\nq1 Q0 l 1 0e999999999999 t\n",
    "long ids": "q1 Q0 " + "x" * 200 + " 1 1 t\nq1 Q0 " + "x" * 199 + "y 2 1 t\n",
    "rising score": "q1 Q0 d1 1 1 t\nq1 Q0 d2 2 2 t\nq2 Q0 d1 1 3 t\n",
    "rising score after a query change": "q1 Q0 d1 1 1 t\nq2 Q0 d2 1 2 t\nq2 Q0 d1 2 1 t\n",
    "rising long-form score": "q1 Q0 d1 1 1 t\nq1 Q0 d2 2 1.00000000000000000000001 t\n",
    "falling long-form score": "q1 Q0 d1 1 1.00000000000000000000001 t\nq1 Q0 d2 2 1 t\n",
    "rising score in a query split by comments": "q1 Q0 d1 1 1 t\n# c\n\nq1 Q0 d2 2 2 t\n",
    "equal scores": "q1 Q0 d1 1 1 t\nq1 Q0 d2 2 1 t\nq2 Q0 d1 1 1 t\n",
    "no final newline after a comment": "q1 Q0 d1 1 2.5 t\n# end",
    "no final newline after blanks": "q1 Q0 d1 1 2.5 t\n \t ",
    "no final newline after extra fields": "q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 1 t x ",
    "crlf comments and blanks": "# c\r\n\r\n \r\nq1 Q0 d1 1 2.5 t \r\nq1 Q0 d2 2 1 t x\r\n",
}


@pytest.mark.parametrize("name", list(ACCEPTED))
@pytest.mark.parametrize("gz", [False, True])
def test_accepted_files_match_the_readers(tmp_path, name, gz, many_chunks):
    path = _write(tmp_path, ACCEPTED[name], "run.txt.gz" if gz else "run.txt")
    tokens = tokenizer.tokenize_run(path)
    assert tokens is not None
    _assert_same(tokens, _reference(path))


def test_byte_order_mark_is_dropped(tmp_path):
    path = _write(tmp_path, None, raw=b"\xef\xbb\xbfq1 Q0 d1 1 2.5 t\n")
    tokens = tokenizer.tokenize_run(path)
    assert _strings(tokens["query"]) == ["q1"]
    _assert_same(tokens, _reference(path))


REFUSED = {  # the readers it stands in for raise, or apply an option: it must step aside
    "five fields": b"q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 1\n",
    "mixed tags": b"q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 1 u\n",
    "duplicate document": b"q1 Q0 d1 1 2.5 t\nq2 Q0 d1 1 1 t\nq1 Q0 d1 2 1 t\n",
    "not a number": b"q1 Q0 d1 1 2.5x t\n",
    "underscore": b"q1 Q0 d1 1 1_0 t\n",
    "nan": b"q1 Q0 d1 1 nan t\n",
    "inf": b"q1 Q0 d1 1 -Infinity t\n",
    "overflow": b"q1 Q0 d1 1 1e400 t\n",
    "exponent without digits": b"q1 Q0 d1 1 1e t\n",
    "sign only": b"q1 Q0 d1 1 - t\n",
    "lone carriage return": b"q1 Q0 d1 1 1 t\rq1 Q0 d2 2 1 t\n",
    "not utf-8": b"q1 Q0 d\xff 1 1 t\n",
    "surrogate": b"q1 Q0 d\xed\xa0\x80 1 1 t\n",
    "overlong": b"q1 Q0 d\xc0\xaf 1 1 t\n",
    "truncated utf-8": b"q1 Q0 d\xe4\xb8 1 1 t\n",
    "comments only": b"# nothing\n\n",
    "final carriage return": b"q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 1 t\r",
    "carriage return in a comment": b"# a\rb\nq1 Q0 d1 1 1 t\n",
    "carriage return after the tag": b"q1 Q0 d1 1 1 t \rx\n",
    "carriage return in the query": b"q\r1 Q0 d1 1 1 t\n",
    "not utf-8 in a comment": b"# \xff\nq1 Q0 d1 1 1 t\n",
    "not utf-8 after the tag": b"q1 Q0 d1 1 1 t \xff\n",
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_irregular_files_are_left_to_the_readers(tmp_path, name, many_chunks):
    path = _write(tmp_path, None, raw=REFUSED[name])
    assert tokenizer.tokenize_run(path) is None


def test_duplicate_within_a_split_query_is_found(tmp_path, many_chunks):
    lines = [f"q{i % 7} Q0 d{i} 1 1 t" for i in range(200)] + ["q3 Q0 d3 9 1 t"]
    assert tokenizer.tokenize_run(_write(tmp_path, "\n".join(lines) + "\n")) is None
    assert tokenizer.tokenize_run(_write(tmp_path, "\n".join(lines[:-1]) + "\n")) is not None


@pytest.mark.parametrize("workers", [1, 2])
def test_read_run_uses_it_and_errors_are_unchanged(tmp_path, workers):
    good = _write(tmp_path, ACCEPTED["comments and blanks"], "good.txt")
    run = trec.read_run(good)
    assert "doc_hashes" in run._meta and run.tag == "t"
    bad = _write(tmp_path, None, "bad.txt", raw=b"q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 x t\n")
    with pytest.raises(trec.InputError, match=r"bad.txt.*line 2.*score 'x' is not a number"):
        trec.read_run(bad)


NUMBER = st.from_regex(
    r"[+-]?(?:[0-9]{1,25}\.?[0-9]{0,25}|\.[0-9]{1,25})(?:[eE][+-]?[0-9]{1,3})?", fullmatch=True
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        NUMBER | st.floats(allow_nan=False, allow_infinity=False).map(repr),
        min_size=1,
        max_size=40,
    )
)
def test_scores_are_pythons_float(tmp_path_factory, numbers):
    path = tmp_path_factory.mktemp("tok") / "run.txt"
    path.write_text("".join(f"q Q0 d{i} {i} {x} t\n" for i, x in enumerate(numbers)))
    expected = [float(x) for x in numbers]
    tokens = tokenizer.tokenize_run(path)
    if not all(math.isfinite(v) for v in expected):
        assert tokens is None  # e.g. 9e999: the line reader says "not finite"
        return
    got = tokens["score"]
    np.testing.assert_array_equal(
        got.view(np.int64), np.array(expected, dtype=np.float64).view(np.int64)
    )


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["q1", "q2", "7", "q\u00e9"]),
            st.text(
                st.characters(
                    codec="utf-8",
                    exclude_categories=["Cs"],
                    exclude_characters=" \t\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029#",
                ),
                min_size=1,
                max_size=12,
            ),
            st.integers(-5, 5),
        ),
        min_size=1,
        max_size=60,
        unique_by=lambda t: (t[0], t[1]),
    )
)
def test_generated_runs_match_the_readers(tmp_path_factory, rows):
    path = tmp_path_factory.mktemp("tok") / "run.txt"
    path.write_text(
        "".join(f"{q} Q0 {d} {i} {s} t\n" for i, (q, d, s) in enumerate(rows)), encoding="utf-8"
    )
    tokens = tokenizer.tokenize_run(path)
    assert tokens is not None
    _assert_same(tokens, _reference(path))


@pytest.mark.parametrize("workers", [1, 2])
def test_a_rising_score_is_found_at_every_row(tmp_path, workers, many_chunks):
    """Rows cut into many chunks: a score rising at any row (a chunk's first row
    included, long-form numbers too) makes query_blocks None, as the loop of
    _assert_same says."""
    n = 120
    for at in [None, *range(1, n)]:
        for long_form in (False, True):
            scores = [f"{1000 - i}" for i in range(n)]
            if at is not None:
                scores[at] = f"{1000 - at + 2}" + (".00000000000000000000001" if long_form else "")
            lines = [f"q{1 + (i >= 60)} Q0 d{i} {i} {scores[i]} t\n" for i in range(n)]
            path = _write(tmp_path, "".join(lines))
            tokens = tokenizer.tokenize_run(path, workers=workers)
            assert (tokens["query_blocks"] is None) == (at is not None and at != 60)
            _assert_same(tokens, _reference(path))


# Clean lines around a case: the case's lines then lie in the middle of a chunk, where the
# C kernel finds a short ASCII line's fields from bit masks of its bytes at once (SSE2)
# and leaves every other line to the byte loop; each case must come out as on its own.
PAD = "".join(f"pq{i // 8} Q0 pd{i} {i % 8 + 1} {100 - i}.25 t\n" for i in range(24))


@pytest.mark.parametrize("name", list(ACCEPTED))
def test_accepted_lines_inside_a_longer_file_match_the_readers(tmp_path, name):
    text = PAD + ACCEPTED[name] + ("" if "final" in name else PAD.replace("pq", "sq"))
    path = _write(tmp_path, text)
    tokens = tokenizer.tokenize_run(path)
    assert tokens is not None
    _assert_same(tokens, _reference(path))


@pytest.mark.parametrize("name", [n for n in REFUSED if n != "comments only"])
def test_irregular_lines_inside_a_longer_file_are_left_to_the_readers(tmp_path, name):
    tail = b"" if "final" in name else PAD.replace("pq", "sq").encode()
    path = _write(tmp_path, None, raw=PAD.encode() + REFUSED[name] + tail)
    assert tokenizer.tokenize_run(path) is None


@pytest.mark.parametrize("path", RUN_FILES, ids=lambda p: p.name)
def test_without_the_rank_column_every_other_output_is_the_same(path, many_chunks):
    """tokenize_run(rank=False) (the command line's evaluate, which never reads ranks)
    writes no rank bytes and gives every other output as with the rank column."""
    full = tokenizer.tokenize_run(path, workers=2)
    if full is None:
        pytest.skip("a file the tokenizer leaves to the line reader")
    light = tokenizer.tokenize_run(path, workers=2, rank=False)
    assert full["rank"] is not None and light["rank"] is None
    for key, value in full.items():
        if key == "rank":
            continue
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(light[key], value)
        elif hasattr(value, "to_pylist"):
            assert light[key].to_pylist() == value.to_pylist()
        else:
            assert light[key] == value
    run = trec.run_iv(path, rank=False)
    assert run.rank is None and _strings(run.doc) == _strings(full["doc"])
