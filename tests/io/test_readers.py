"""Readers accept exactly what trec_eval accepts; every refusal names file, line, problem.

One test per class of problem found by fuzzing the readers against trec_eval
and a differential fuzz test against trec_eval 10.0 itself,
built from its source in ``tests/data/trec_eval`` (skipped when no C compiler).
"""

from __future__ import annotations

import gzip
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import mrrstats
from mrrstats import InputError, read_qrels, read_run
from mrrstats.cli import main
from tests.reference_data import data_path

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n"


def _write(path: Path, text: str, gz: bool = False, raw: bytes | None = None) -> Path:
    data = raw if raw is not None else text.encode("utf-8")
    if gz:
        data = gzip.compress(data)
    path.write_bytes(data)
    return path


def _pairs(run):
    return list(zip(run.query.to_pylist(), run.doc.to_pylist(), run.rank.to_pylist(),
                    run.score.tolist(), strict=True))


# -- bullet 1: the delimiter was checked on the first line only ---------------
@pytest.mark.parametrize("odd", ["\f", " ", "\v", "\t\t", "  "])
@pytest.mark.parametrize("gz", [False, True])
def test_later_line_with_other_whitespace_is_split_like_trec_eval(tmp_path, odd, gz):
    clean = "q1\tQ0\td1\t1\t2.5\tt\nq1\tQ0\td2\t2\t1.5\tt\nq2\tQ0\td3\t1\t0.5\tt\n"
    # line 2 has another whitespace character between two fields
    odd_text = clean.replace("q1\tQ0\td2\t2", f"q1\tQ0{odd}d2\t2")
    want = _pairs(read_run(_write(tmp_path / "a.run", clean)))
    got = _pairs(read_run(_write(tmp_path / "b.run", odd_text, gz)))
    assert got == want


def test_embedded_space_in_tab_separated_id_is_split_like_trec_eval(tmp_path):
    # trec_eval splits "d 2" into doc "d", rank "2"...: here the line then has 7
    # fields, so the doc is "d", the rank "2", the score "2" and the tag "1.5".
    text = "q1\tQ0\td1\t1\t2.5\tt\nq1\tQ0\td 2\t2\t1.5\tt\n"
    run = read_run(_write(tmp_path / "a.run", text), mixed_tags="allow")
    assert run.doc.to_pylist() == ["d1", "d"]
    assert run.score.tolist() == [2.5, 2.0]


# -- bullet 2: Python's number grammar is wider than a TREC file's ------------
@pytest.mark.parametrize("score", ["0_9", "\u0660.\u0669", "\u0661", "1__0", "0x1p3",
                                   "1.5abc", "١٫٥"])
@pytest.mark.parametrize("sep", [" ", "\t"])
def test_scores_outside_the_trec_grammar_are_refused(tmp_path, score, sep):
    text = sep.join("q1 Q0 d1 1 2.5 t".split()) + "\n" + \
        sep.join(["q1", "Q0", "d2", "2", score, "t"]) + "\n"
    with pytest.raises(InputError, match=r"b\.run, line 2: score .* is not a number"):
        read_run(_write(tmp_path / "b.run", text))


@pytest.mark.parametrize("grade", ["1e1", "2_0", "\u0661", "+", "1.5"])
def test_grades_outside_the_trec_grammar_are_refused(tmp_path, grade):
    text = f"q1 0 d1 1\nq1 0 d2 {grade}\n"
    with pytest.raises(InputError, match=r"q\.txt, line 2: grade .* (not a number|not an "
                                         r"integer)"):
        read_qrels(_write(tmp_path / "q.txt", text))


def test_signed_numbers_in_the_grammar_are_read(tmp_path):
    run = read_run(_write(tmp_path / "a.run", "q1 Q0 d1 1 -1.5e+2 t\nq1 Q0 d2 2 +.5 t\n"))
    assert run.score.tolist() == [-150.0, 0.5]
    assert read_qrels(_write(tmp_path / "q", "q1 0 d1 -2\nq1 0 d2 +3\n")).grade.tolist() == \
        [-2, 3]


# -- bullet 3: a byte-order mark is dropped by every reader -------------------
@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("sep", [" ", " \t"])  # fast reader / line reader
def test_byte_order_mark_is_dropped_everywhere(tmp_path, gz, sep):
    text = sep.join("q1 Q0 d1 1 2.5 t".split()) + "\n"
    raw = b"\xef\xbb\xbf" + text.encode()
    run = read_run(_write(tmp_path / "a.run", "", gz, raw=raw))
    assert run.query.to_pylist() == ["q1"]
    qrels = read_qrels(_write(tmp_path / "q", "", gz, raw=b"\xef\xbb\xbf" + QRELS.encode()))
    assert qrels.query[0] == "q1"


# -- bullet 4: doubled separators and Unicode spaces ---------------------------
@pytest.mark.parametrize("doubled", ["q1  Q0 d2 2 1.5 t", "q1 Q0 d2  2 1.5 t",
                                     "q1\t\tQ0\td2\t2\t1.5\tt", "q1 Q0 d2 2 1.5 t  "])
def test_doubled_separator_is_read_like_trec_eval(tmp_path, doubled):
    text = "q1 Q0 d1 1 2.5 t\n" + doubled + "\n"
    if "\t" in doubled:
        text = text.replace(" ", "\t")
    run = read_run(_write(tmp_path / "a.run", text))
    assert run.doc.to_pylist() == ["d1", "d2"] and "" not in run.query.to_pylist()


def test_non_breaking_space_is_part_of_the_id(tmp_path):
    qrels = read_qrels(_write(tmp_path / "q", "q1 0 d1\u00a0 1\nq1 0 d2 1\n"))
    assert sorted(qrels.doc.tolist()) == ["d1\u00a0", "d2"]
    run = read_run(_write(tmp_path / "a.run", "q1 Q0 d1\u00a0 1 2 t\nq1 Q0 d1 2 1 t\n"))
    assert run.doc.to_pylist() == ["d1\u00a0", "d1"]


# -- bullet 5: a corrupt gzip stream is an InputError, not a zlib traceback --
@pytest.mark.parametrize("what", ["run", "qrels"])
def test_corrupt_gzip_is_an_input_error(tmp_path, what, capsys):
    body = ("q1 Q0 d1 1 2.5 t\n" * 2000) if what == "run" else QRELS * 2000
    data = bytearray(gzip.compress(body.encode()))
    data[10:18] = b"\xff" * 8  # the deflate stream's first block: invalid block type
    path = tmp_path / "bad.gz"
    path.write_bytes(bytes(data))
    reader = read_run if what == "run" else read_qrels
    with pytest.raises(InputError, match=r"bad\.gz.*(compressed|gzip)"):
        reader(path)
    qrels = _write(tmp_path / "q", QRELS)
    args = ["evaluate", str(qrels), str(path)] if what == "run" else \
        ["evaluate", str(path), str(_write(tmp_path / "r", "q1 Q0 d1 1 2 t\n"))]
    assert main(args) != 0
    err = capsys.readouterr().err
    assert "Traceback" not in err and "bad.gz" in err


# -- bullet 6: comment lines and gzipped files, as the docstring says ----------
@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("comment", ["# a comment", "# six words in this comment line",
                                     "#"])
def test_comment_lines_are_skipped_in_both_readers(tmp_path, gz, comment):
    text = f"{comment}\nq1 Q0 d1 1 2.5 t\n{comment}\nq1 Q0 d2 2 1.5 t\n"
    run = read_run(_write(tmp_path / "a.run", text, gz))
    assert run.doc.to_pylist() == ["d1", "d2"] and "#" not in run.query.to_pylist()


# -- bullet 7: no query in common is an error naming both inputs --------------
def test_no_query_in_common_names_both_inputs(tmp_path):
    qrels = _write(tmp_path / "qrels.txt", QRELS)
    run = _write(tmp_path / "other.run", "x7 Q0 d1 1 2 t\nx8 Q0 d1 1 2 t\n")
    with pytest.raises(InputError, match=r"other\.run.*no query in common.*qrels\.txt.*"
                                         r"'x7', 'x8'.*'q1', 'q2'"):
        mrrstats.evaluate(qrels, run)


# -- differential fuzz test against trec_eval 10.0 itself --------------------
TREC_EVAL_MEASURES = ["recip_rank", "map", "P.5,10", "ndcg_cut.10", "recall.10", "success.1"]


@pytest.fixture(scope="module")
def trec_eval_binary(tmp_path_factory):
    src = data_path("trec_eval")
    if shutil.which("make") is None or (shutil.which("cc") or shutil.which("gcc")) is None:
        pytest.skip("make or a C compiler is missing")
    build = tmp_path_factory.mktemp("trec_eval")
    shutil.copytree(src, build, dirs_exist_ok=True)
    subprocess.run(["make", "-s"], cwd=build, check=True, capture_output=True, timeout=300)
    return build / "trec_eval"


def _random_id(rng, alphabet="abcXYZ019-_.:/+,'\"()[]") -> str:
    return "".join(rng.choice(list(alphabet), size=int(rng.integers(1, 6))))


def _fields(rng, parts, crlf):
    seps = [rng.choice([" ", "\t", "  ", " \t", "\t\t", "   "]) for _ in parts[1:]]
    line = parts[0] + "".join(s + p for s, p in zip(seps, parts[1:], strict=True))
    return line + ("\r\n" if crlf else "\n")


def _random_case(rng):
    queries = sorted({"q" + _random_id(rng) for _ in range(int(rng.integers(3, 12)))})
    crlf = bool(rng.random() < 0.3)
    qlines, rlines = [], []
    docs = sorted({_random_id(rng) for _ in range(30)})
    for q in queries:
        judged = rng.random() < 0.85  # some run queries are unjudged
        retrieved = rng.random() < 0.85  # some qrels queries are not retrieved
        if judged:
            for d in rng.choice(docs, size=int(rng.integers(1, 10)), replace=False):
                grade = int(rng.choice([-1, 0, 0, 1, 1, 2, 3]))
                qlines.append(_fields(rng, [q, "0", str(d), str(grade)], crlf))
        if retrieved or not judged:
            chosen = rng.choice(docs, size=int(rng.integers(1, 15)), replace=False)
            levels = rng.choice([0.5, 1.0, 1.5, 2.0, -3.25, 7.0, 1e-3],
                                size=chosen.size)  # few levels: many ties
            for rank, (d, s) in enumerate(zip(chosen, levels, strict=True), 1):
                text = rng.choice([repr(float(s)), f"{s:e}", f"{s:.4f}"])
                rlines.append(_fields(rng, [q, "Q0", str(d), str(rank), text, "fuzz"], crlf))
    if not qlines:
        qlines.append(_fields(rng, [queries[0], "0", "dX", "1"], crlf))
    if not rlines:
        rlines.append(_fields(rng, [queries[0], "Q0", "dX", "1", "1", "fuzz"], crlf))
    rng.shuffle(rlines)
    return "".join(qlines), "".join(rlines)


def _trec_eval_values(binary, qrels, run):
    # -c: qrels queries the run misses score 0 (without it this trec_eval exits 4)
    args = [str(binary), "-q", "-c"]
    for m in TREC_EVAL_MEASURES:
        args += ["-m", m]
    out = subprocess.run(args + [str(qrels), str(run)], check=True, capture_output=True,
                         text=True, timeout=60).stdout
    values = {}
    for line in out.splitlines():
        name, qid, value = line.split("\t")
        name = name.strip()
        if qid != "all":
            values[(name, qid)] = float(value)
    return values


def test_differential_fuzz_against_trec_eval(trec_eval_binary, tmp_path):
    rng = np.random.default_rng(20261123)
    compared = 0
    for case in range(30):
        qtext, rtext = _random_case(rng)
        qrels = _write(tmp_path / f"q{case}", qtext)
        run = _write(tmp_path / f"r{case}", rtext)
        want = _trec_eval_values(trec_eval_binary, qrels, run)
        names = sorted({n for n, _ in want})
        if case % 3 == 0:  # the same run gzipped (trec_eval reads plain files only)
            run = _write(tmp_path / f"r{case}.gz", rtext, gz=True)
        ev = mrrstats.evaluate(qrels, run, names, queries="qrels")
        name = ev.runs[0]
        got_queries = set(ev.values[name].index)
        assert got_queries == {q for _, q in want}, (case, qtext, rtext)
        for (te_name, q), value in want.items():
            ours = ev.values[name].loc[q, str(mrrstats.parse_measure(te_name))]
            # trec_eval prints 4 decimals
            assert abs(ours - value) <= 5e-5 + 1e-12, (case, te_name, q, ours, value)
            compared += 1
    assert compared > 1000  # 30 cases, 7 measures, ~6 queries each


# -- item 10: the qrels reader's fast path, and huge ids ----------------------
@pytest.mark.parametrize("gz", [False, True])
def test_qrels_fast_and_line_readers_agree_on_cast(tmp_path, gz):
    src = mrrstats.datasets.cast2021().qrels
    text = gzip.decompress(src.read_bytes()).decode()
    fast = read_qrels(_write(tmp_path / "fast", text.replace("\t", " "), gz))
    slow = read_qrels(_write(tmp_path / "slow", text.replace(" ", " \t"), gz))
    ref = read_qrels(src)
    for q in (fast, slow):
        assert q.query.tolist() == ref.query.tolist()
        assert q.doc.tolist() == ref.doc.tolist()
        assert q.grade.tolist() == ref.grade.tolist()


def test_qrels_fast_path_defers_to_the_line_reader(tmp_path):
    for text, match in [("q1 0 d1 1\nq1 0 d1 2\n", "more than once"),
                        ("q1 0 d1 1\nq1 0 d2 1e1\n", "line 2: grade '1e1'"),
                        ("q1 0 d1 1\nq1 0 d2\n", "line 2: expected 4 fields")]:
        with pytest.raises(InputError, match=match):
            read_qrels(_write(tmp_path / "q", text))
    q = read_qrels(_write(tmp_path / "c", "# judged by X\nq1 0 d1 2.0\nq1 0 d2 +1\n"))
    assert q.grade.tolist() == [2, 1]


def test_huge_document_id_is_read_and_matched(tmp_path):
    big = "d" * 1_000_000  # numpy's fixed-width strings would need 4 MB per row
    qrels = "".join(f"q{i} 0 doc{i} 1\n" for i in range(5000)) + f"q1 0 {big} 1\n"
    run = f"q1 Q0 {big} 1 2.0 t\nq1 Q0 doc1 2 1.0 t\n"
    ev = mrrstats.evaluate(_write(tmp_path / "q", qrels), _write(tmp_path / "r", run),
                           ["RR", "R@2"])
    assert ev.values["r"].loc["q1"].tolist() == [1.0, 1.0]


def test_string_hashes_do_not_depend_on_the_other_strings():
    import pyarrow as pa

    from mrrstats.io.hashing import hash_strings

    rng = np.random.default_rng(3)
    lengths = np.concatenate([rng.integers(0, 300, 500), [70, 4000, 100_000]])
    strs = ["".join(rng.choice(list("ab\u00e9z"), size=int(n))) for n in lengths]
    together = hash_strings(pa.array(strs))
    alone = np.array([hash_strings(pa.array([s]))[0] for s in strs[::7] + strs[-3:]])
    np.testing.assert_array_equal(together[list(range(0, len(strs), 7)) + [-3, -2, -1]],
                                  alone)
    # equal strings hash equally, different lengths of the same prefix do not collide
    assert len(set(together.tolist())) == len(set(strs))
