"""The C kernels of the file path (``mrrstats._native``) are numba's kernels, bit for bit.

Reference: the numba kernels they translate (mrrstats/io/tokenizer.py,
mrrstats/model/ranking.py, mrrstats/metrics/kernels.py), run on the same arguments;
each of those is checked against the readers and the numpy path by
tests/io/test_tokenizer.py and tests/metrics/test_file_path.py (which run with both).
Also: with the extension built, the path from files to measures never imports numba.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import mrrstats
from mrrstats import compiled
from mrrstats.io import tokenizer
from mrrstats.metrics import kernels
from mrrstats.model import ranking
from mrrstats.model.ranking import Judged
from tests.reference_data import CAST_QRELS, data_path

pytest.importorskip("numba")
if compiled.native() is None:
    pytest.skip("mrrstats._native is not built", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[1]
TREC = data_path("trec_eval_test")
CASES = [(data_path(*CAST_QRELS), p) for p in sorted(data_path("cast2021", "runs").glob("*"))]
CASES += [
    (TREC / ("qrels-302.test" if "302" in r else "qrels.test"), TREC / r)
    for r in ("results.test", "results.trunc", "results-302.test")
]
MEASURES = [
    "RR",
    "RR@10",
    "Rank",
    "Success@10",
    "P@10",
    "R@100",
    "AP",
    "AP@100",
    "nDCG",
    "nDCG@10",
    "RR(rel=2)",
    "Bpref",
]


@pytest.fixture
def everywhere(monkeypatch):
    """The compiled file path on the small test files too, cut into many chunks."""
    monkeypatch.setattr(tokenizer, "MIN_BYTES", 0)
    monkeypatch.setattr(tokenizer, "_MIN_CHUNK", 512)
    monkeypatch.setattr(ranking, "COMPILED_MIN_ROWS", 0)
    monkeypatch.setattr(kernels, "COMPILED_MIN_ROWS", 0)


def _with(native: bool, fn, *args, **kwargs):
    previous = compiled.use_native(native)
    try:
        return fn(*args, **kwargs)
    finally:
        compiled.use_native(previous)


def _bits(a):
    a = np.asarray(a)
    return a.view(np.int64) if a.dtype == np.float64 else a


@pytest.mark.parametrize(("qrels", "path"), CASES, ids=lambda p: getattr(p, "name", p))
@pytest.mark.parametrize("workers", [1, 3])
def test_tokenizer(qrels, path, workers, everywhere):
    a = _with(True, tokenizer.tokenize_run, path, workers=workers)
    b = _with(False, tokenizer.tokenize_run, path, workers=workers)
    assert a is not None and b is not None
    assert a.keys() == b.keys()
    for key in a:
        x, y = a[key], b[key]
        if isinstance(x, np.ndarray):
            np.testing.assert_array_equal(_bits(x), _bits(y), err_msg=key)
        elif hasattr(x, "to_pylist"):
            assert x.to_pylist() == y.to_pylist(), key
        else:
            assert x == y, key


@pytest.mark.parametrize(("qrels", "path"), CASES, ids=lambda p: getattr(p, "name", p))
@pytest.mark.parametrize("ties", ["trec_eval", "optimistic", "pessimistic"])
def test_evaluate(qrels, path, ties, everywhere):
    a = _with(True, mrrstats.evaluate, qrels, path, MEASURES, ties=ties)
    b = _with(False, mrrstats.evaluate, qrels, path, MEASURES, ties=ties)
    va, vb = a.values[a.runs[0]], b.values[b.runs[0]]
    assert list(va.index) == list(vb.index) and list(va.columns) == list(vb.columns)
    np.testing.assert_array_equal(_bits(va.to_numpy(np.float64)), _bits(vb.to_numpy(np.float64)))


def test_measure_kernels_on_random_rankings():
    rng = np.random.default_rng(20261129)
    sizes = rng.integers(0, 300, size=400)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    grades = rng.choice(
        [np.nan, 0.0, 1.0, 2.0, 3.0, -1.0],
        size=int(offsets[-1]),
        p=[0.5, 0.2, 0.15, 0.1, 0.04, 0.01],
    )
    ids = np.array([str(i) for i in range(sizes.size)], dtype=object)
    extra = rng.integers(0, 4, size=sizes.size)
    jg = [
        np.concatenate((g[g > 0], np.ones(e)))
        for g, e in zip(np.split(np.nan_to_num(grades), offsets[1:-1]), extra, strict=True)
    ]
    jo = np.concatenate(([0], np.cumsum([x.size for x in jg]))).astype(np.int64)
    judged = Judged(ids, jo, np.concatenate(jg))
    for depth in (None, 50):
        for workers in (1, 4):
            a = _with(
                True,
                kernels.compiled_measures,
                MEASURES[:10],
                offsets=offsets,
                grades=grades,
                judged=judged,
                max_depth=depth,
                workers=workers,
            )
            b = _with(
                False,
                kernels.compiled_measures,
                MEASURES[:10],
                offsets=offsets,
                grades=grades,
                judged=judged,
                max_depth=depth,
                workers=workers,
            )
            for m in a:
                np.testing.assert_array_equal(_bits(a[m]), _bits(b[m]), err_msg=m)
            for rel in (1, 2):
                np.testing.assert_array_equal(
                    _with(
                        True,
                        kernels.relevant_retrieved,
                        offsets,
                        grades,
                        rel=rel,
                        max_depth=depth,
                        workers=workers,
                    ),
                    _with(
                        False,
                        kernels.relevant_retrieved,
                        offsets,
                        grades,
                        rel=rel,
                        max_depth=depth,
                        workers=workers,
                    ),
                )


def test_file_path_imports_no_numba(tmp_path):
    """A fresh process evaluating a run above every size threshold: numba stays out."""
    lines = [
        f"q{q} Q0 d{q}_{d} {d + 1} {1000 - d}.5 tag\n" for q in range(200) for d in range(1000)
    ]
    run = tmp_path / "run.txt"
    run.write_text("".join(lines))
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{q} 0 d{q}_{q % 7} 1\n" for q in range(200)))
    assert run.stat().st_size > tokenizer.MIN_BYTES and len(lines) > kernels.COMPILED_MIN_ROWS
    code = (
        "import sys, mrrstats\n"
        "from mrrstats.io import tokenizer\n"
        "seen = []\n"
        "t = tokenizer._tokenize\n"
        "tokenizer._tokenize = lambda *a: seen.append(1) or t(*a)\n"
        f"ev = mrrstats.evaluate(sys.argv[1], sys.argv[2], {MEASURES[:10]!r})\n"
        "print(ev.aggregate().iloc[0, 0], bool(seen), 'numba' in sys.modules)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("MRRSTATS_NATIVE", None)
    out = subprocess.run(
        [sys.executable, "-P", "-c", code, str(qrels), str(run)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    # RR: query q's relevant document d{q}_{q % 7} is at rank q % 7 + 1
    assert float(out[0]) == pytest.approx(np.mean([1 / (q % 7 + 1) for q in range(200)]))
    assert out[1:] == ["True", "False"]


def _odd_run(rng, n_lines):
    """A run of short and long lines in every form the tokenizer accepts: runs of the
    four separators, leading ones, extra fields, control bytes and UTF-8 inside ids,
    CRLF endings, comments and blank lines (unique documents per query)."""
    seps = [b" ", b"\t", b"\v", b"\f", b"  ", b" \t"]
    out = []
    for i in range(n_lines):
        q = b"q%d" % (i // 50)
        d = b"d%d" % i
        form = rng.integers(8)
        if form == 1:
            d += b"x" * int(rng.integers(40, 90))  # a line past 64 bytes
        elif form == 2:
            d += b"\x01\x1f\x7f"  # control bytes belong to the field
        elif form == 3:
            d += "\u00e9\u4e2d".encode()
        fields = [q, b"Q0", d, b"%d" % (i % 50 + 1), b"%.3f" % (1000 - i), b"tag"]
        if form == 4:
            fields.append(b"extra")
        line = b"".join(f + seps[int(rng.integers(len(seps)))] for f in fields[:-1]) + fields[-1]
        if form == 5:
            line = seps[int(rng.integers(len(seps)))] + line
        out.append(line + (b"\r\n" if form == 6 else b"\n"))
        if form == 7:
            out.append(b"# a comment\n" if i % 2 else b" \t\n")
    return b"".join(out)


@pytest.mark.parametrize("min_chunk", [64, 512, 1 << 20])
@pytest.mark.parametrize("workers", [1, 3])
def test_tokenizer_on_every_line_form(tmp_path, monkeypatch, min_chunk, workers):
    """C (its fast line path where a line allows, the byte loop elsewhere) and numba give
    the same columns on lines of every accepted form, wherever the chunks are cut."""
    path = tmp_path / "run.txt"
    path.write_bytes(_odd_run(np.random.default_rng(7), 3000))
    monkeypatch.setattr(tokenizer, "MIN_BYTES", 0)
    monkeypatch.setattr(tokenizer, "_MIN_CHUNK", min_chunk)
    a = _with(True, tokenizer.tokenize_run, path, workers=workers)
    b = _with(False, tokenizer.tokenize_run, path, workers=workers)
    assert a is not None and b is not None
    assert len(a["score"]) == 3000
    for key in a:
        x, y = a[key], b[key]
        if isinstance(x, np.ndarray):
            np.testing.assert_array_equal(_bits(x), _bits(y), err_msg=key)
        elif hasattr(x, "to_pylist"):
            assert x.to_pylist() == y.to_pylist(), key
        else:
            assert x == y, key


def test_tokenizer_on_lines_around_64_bytes(tmp_path, monkeypatch):
    """Lines of 50 to 80 bytes (the fast line path takes those whose newline falls in
    their first 64 bytes), each line form once with every separator."""
    lines = []
    for n in range(50, 81):
        for sep in (b" ", b"\t", b"\v", b"\f"):
            head = b"q%d%sQ0%sd%d-%d%s1%s2.5%st" % (n, sep, sep, n, sep[0], sep, sep, sep)
            lines.append(head + b" x" * ((n - len(head) - 1) // 2) + b"\n")  # extra fields
    path = tmp_path / "run.txt"
    path.write_bytes(b"".join(lines))
    assert {len(x) for x in lines} >= set(range(60, 70))
    monkeypatch.setattr(tokenizer, "MIN_BYTES", 0)
    a = _with(True, tokenizer.tokenize_run, path, workers=1)
    b = _with(False, tokenizer.tokenize_run, path, workers=1)
    assert a is not None and b is not None
    for key in a:
        x, y = a[key], b[key]
        if isinstance(x, np.ndarray):
            np.testing.assert_array_equal(_bits(x), _bits(y), err_msg=key)
        elif hasattr(x, "to_pylist"):
            assert x.to_pylist() == y.to_pylist(), key
        else:
            assert x == y, key
