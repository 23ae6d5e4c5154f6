"""The compiled metric step (rank_run's compiled path, compiled_measures) gives exactly the
numbers of the numpy path: bit for bit, per query, on real runs and on generated ones.

Reference: the numpy path itself (``_rank_run`` with the compiled path off, and
``_deterministic`` per measure), which tests/metrics/test_conformance.py checks against
trec_eval's own output.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mrrstats
from mrrstats.io import tokenizer, trec
from mrrstats.metrics import kernels
from mrrstats.model import ranking
from tests.reference_data import CAST_QRELS, data_path

pytest.importorskip("numba")

MEASURES = ["RR", "RR@10", "AP", "AP@100", "nDCG", "nDCG@10", "nDCG@3", "P@10", "P@1000",
            "R@100", "Success@5", "Rank", "RR(rel=2)", "nDCG(rel=2)@5"]
DETERMINISTIC = ["trec_eval", "rank", "optimistic", "pessimistic"]


@pytest.fixture
def compiled_always(monkeypatch):
    monkeypatch.setattr(ranking, "COMPILED_MIN_ROWS", 0)
    monkeypatch.setattr(kernels, "COMPILED_MIN_ROWS", 0)


def _without_compiled(qrels, run, ties, max_depth):
    saved = ranking.COMPILED_MIN_ROWS
    ranking.COMPILED_MIN_ROWS = 1 << 62
    try:
        return mrrstats.rank_run(qrels, run, ties=ties, max_depth=max_depth)
    finally:
        ranking.COMPILED_MIN_ROWS = saved


def _same_bits(a, b):
    np.testing.assert_array_equal(np.asarray(a, np.float64).view(np.int64),
                                  np.asarray(b, np.float64).view(np.int64))


def _runs(path):
    """The run as the compiled tokenizer reads it (which also finds the query blocks), and
    as the pyarrow or line reader read it."""
    saved = tokenizer.MIN_BYTES
    tokenizer.MIN_BYTES = 0
    try:
        tokenized = mrrstats.read_run(path)
    finally:
        tokenizer.MIN_BYTES = saved
    src = str(path)
    other = trec._read_run_fast(path, src, "r")
    if other is None or trec._fast_run_problem(other, "raise") is not None:
        other = trec._read_run_lines(path, src, "r", "raise", "raise")
    return tokenized, other


def _check(qrels, path, ties, max_depth=None):
    qrels = mrrstats.read_qrels(qrels)
    taken = []
    for run in _runs(path):
        ref = _without_compiled(qrels, run, ties, max_depth)
        got = ranking._rank_run_compiled(qrels, run, ties, max_depth)
        taken.append(got is not None)
        if got is not None:  # None: a layout the compiled path leaves to numpy
            assert list(got.query_ids) == list(ref.query_ids)
            np.testing.assert_array_equal(got.offsets, ref.offsets)
            np.testing.assert_array_equal(got.grades, ref.grades)
            for a, b in zip(got.doc_ids(), ref.doc_ids(), strict=True):
                np.testing.assert_array_equal(a, b)
    _check_measures(ref, max_depth)
    return all(taken)


def _check_measures(ref, max_depth):
    for rel in (1, 2):
        got = kernels.relevant_retrieved(ref.offsets, ref.grades, rel=rel, max_depth=max_depth)
        lens = np.diff(ref.offsets)
        pos = np.arange(ref.grades.size) - np.repeat(ref.offsets[:-1], lens) + 1
        keep = (ref.grades >= rel) & (pos <= (max_depth or np.inf))
        want = np.bincount(np.repeat(np.arange(lens.size), lens)[keep], minlength=lens.size)
        np.testing.assert_array_equal(got, want)
    layout = kernels._Layout(ref.offsets, ref.grades, ref.judged, None, max_depth)
    for workers in (1, 2):
        values = kernels.compiled_measures(MEASURES, offsets=ref.offsets, grades=ref.grades,
                                           judged=ref.judged, max_depth=max_depth,
                                           workers=workers)
        for m in kernels.measures_iv(MEASURES):
            t = max(int(m.rel if m.rel is not None else 1), 1)
            _same_bits(values[str(m)], kernels._deterministic(m, layout, t))


CAST = sorted(data_path("cast2021", "runs").glob("*.run.gz"))


@pytest.mark.parametrize("path", CAST, ids=lambda p: p.name)
@pytest.mark.parametrize("ties", DETERMINISTIC)
@pytest.mark.parametrize("max_depth", [None, 7])
def test_cast_runs(path, ties, max_depth):
    assert _check(data_path(*CAST_QRELS), path, ties, max_depth)  # CAsT runs take the compiled path


TREC = data_path("trec_eval_test")


@pytest.mark.parametrize("run", ["results.test", "results.trunc", "results-302.test"])
@pytest.mark.parametrize("ties", DETERMINISTIC)
def test_trec_eval_fixtures(run, ties):
    qrels = TREC / ("qrels-302.test" if "302" in run else "qrels.test")
    _check(qrels, TREC / run, ties)
    _check(qrels, TREC / run, ties, max_depth=20)


@pytest.mark.parametrize("ties", DETERMINISTIC)
def test_evaluate_same_with_and_without(ties, compiled_always, monkeypatch):
    """End to end (evaluate), the compiled path forced on against it forced off."""
    qrels, run = TREC / "qrels.test", TREC / "results.test"
    on = mrrstats.evaluate(qrels, run, MEASURES, ties=ties)
    monkeypatch.setattr(ranking, "COMPILED_MIN_ROWS", 1 << 62)
    monkeypatch.setattr(kernels, "COMPILED_MIN_ROWS", 1 << 62)
    off = mrrstats.evaluate(qrels, run, MEASURES, ties=ties)
    a, b = on.values[on.runs[0]], off.values[off.runs[0]]
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    pd.testing.assert_frame_equal(on.query_stats, off.query_stats)


def _sorted_run_file(tmp_path, rows, block_order):
    """A run file in the usual layout: queries in blocks (in ``block_order``), scores
    descending."""
    frame = pd.DataFrame(rows, columns=["q", "d", "s"])
    frame["b"] = frame["q"].map({q: i for i, q in enumerate(block_order)})
    frame = frame.sort_values(["b", "s"], ascending=[True, False], kind="stable")
    frame = frame[["q", "d", "s"]]
    path = tmp_path / "run.txt"
    path.write_text("".join(f"{q} Q0 {d} {i + 1} {s!r} t\n"
                            for i, (q, d, s) in enumerate(frame.itertuples(index=False))))
    return path


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_generated_runs(tmp_path_factory, data):
    n_q = data.draw(st.integers(1, 6))
    rows, judged = [], {}
    for q in range(n_q):
        docs = data.draw(st.lists(st.integers(0, 40), min_size=1, max_size=30, unique=True))
        scores = data.draw(st.lists(st.sampled_from([0.5, 1.0, 1.5, 2.0, 3.25]),
                                    min_size=len(docs), max_size=len(docs)))
        rows += [(f"q{q}", f"d{d}", s) for d, s in zip(docs, scores, strict=True)]
        pool = data.draw(st.lists(st.integers(0, 50), max_size=12, unique=True))
        grades = data.draw(st.lists(st.integers(-1, 3), min_size=len(pool),
                                    max_size=len(pool)))
        judged[f"q{q}"] = {f"d{d}": g for d, g in zip(pool, grades, strict=True)}
    judged = {q: v for q, v in judged.items() if v} or {"q0": {"d0": 1}}
    order = data.draw(st.permutations([f"q{q}" for q in range(n_q)]))
    path = _sorted_run_file(tmp_path_factory.mktemp("c"), rows, order)
    ties = data.draw(st.sampled_from(DETERMINISTIC))
    max_depth = data.draw(st.sampled_from([None, 1, 3, 10]))
    assert _check(judged, path, ties, max_depth)


def test_query_blocks_found_by_the_tokenizer(tmp_path, monkeypatch):
    monkeypatch.setattr(tokenizer, "MIN_BYTES", 0)
    path = tmp_path / "run.txt"
    qrels = {"b": {"d2": 1, "d3": 2}, "a": {"d1": 1}}
    path.write_text("b Q0 d1 1 3 t\nb Q0 d2 2 2 t\nb Q0 d3 3 2 t\na Q0 d1 1 5 t\n")
    run = mrrstats.read_run(path)
    np.testing.assert_array_equal(run._meta["score_blocks"], [0, 3])
    assert _check(qrels, path, "trec_eval")
    path.write_text("b Q0 d1 1 3 t\nb Q0 d2 2 4 t\na Q0 d1 1 5 t\n")  # a score rises
    assert "score_blocks" not in mrrstats.read_run(path)._meta
    path.write_text("b Q0 d1 1 3 t\na Q0 d1 1 5 t\nb Q0 d2 2 2 t\n")  # b in two blocks
    assert "score_blocks" not in mrrstats.read_run(path)._meta
    _check(qrels, path, "trec_eval")
