"""The fast file path (compiled tokenizer, compiled ranking and measures) gives the very
numbers of the in-memory engine, bit for bit, for every measure family.

Fast path: ``evaluate(qrels_path, run_path)`` with the tokenizer and the compiled kernels
forced on for the small test files (many chunks, so that chunk boundaries fall inside
queries). Reference: the same run read by the line reader (which splits as trec_eval
does) and given as a pandas DataFrame, scored on the numpy path (compiled kernels off),
which tests/metrics/test_conformance.py checks against trec_eval's own output; and the
stream engine on the same file.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import mrrstats
from mrrstats import compiled
from mrrstats.io import tokenizer, trec
from mrrstats.metrics import kernels
from mrrstats.metrics.measures import SPECS
from mrrstats.model import ranking
from tests.reference_data import CAST_QRELS, data_path

pytest.importorskip("numba")

#: Every measure family, at its defaults (a cutoff where one is needed), and the cutoffs
#: a TREC run is usually scored at.
CUT = {"P": "P@10", "R": "R@100", "Success": "Success@10", "IPrec": "IPrec@0.5"}
MEASURES = [CUT.get(name, name) for name in SPECS] + ["RR@10", "nDCG@10", "AP@100", "RR(rel=2)"]

TREC = data_path("trec_eval_test")
CASES = [
    (data_path(*CAST_QRELS), p) for p in sorted(data_path("cast2021", "runs").glob("*.run.gz"))
]
CASES += [
    (TREC / ("qrels-302.test" if "302" in r else "qrels.test"), TREC / r)
    for r in ("results.test", "results.trunc", "results-302.test")
]


@pytest.fixture(autouse=True, params=["native", "numba"])
def kernels_in_use(request):
    """Each test with the C kernels (mrrstats._native, where built) and with numba's."""
    if request.param == "native" and compiled.native() is None:
        pytest.skip("mrrstats._native is not built")
    previous = compiled.use_native(request.param == "native")
    yield request.param
    compiled.use_native(previous)


@pytest.fixture
def fast_path(monkeypatch):
    """The tokenizer and the compiled kernels on the small test files too."""
    monkeypatch.setattr(tokenizer, "MIN_BYTES", 0)
    monkeypatch.setattr(tokenizer, "_MIN_CHUNK", 4096)
    monkeypatch.setattr(ranking, "COMPILED_MIN_ROWS", 0)
    monkeypatch.setattr(kernels, "COMPILED_MIN_ROWS", 0)


def _in_memory(qrels, path):
    """The run as a DataFrame from the line reader, scored without compiled kernels."""
    run = trec._read_run_lines(path, str(path), "r", "raise", "raise")
    saved = ranking.COMPILED_MIN_ROWS, kernels.COMPILED_MIN_ROWS
    ranking.COMPILED_MIN_ROWS = kernels.COMPILED_MIN_ROWS = 1 << 62
    try:
        return mrrstats.evaluate(qrels, {"run": run.to_frame()}, MEASURES)
    finally:
        ranking.COMPILED_MIN_ROWS, kernels.COMPILED_MIN_ROWS = saved


def _same(a: mrrstats.Evaluation, b: mrrstats.Evaluation) -> None:
    va, vb = a.values[a.runs[0]], b.values[b.runs[0]]
    assert list(va.columns) == list(vb.columns)
    assert [str(q) for q in va.index] == [str(q) for q in vb.index]
    # the very same doubles (sign of zero and infinities included)
    np.testing.assert_array_equal(
        va.to_numpy(np.float64).view(np.int64), vb.to_numpy(np.float64).view(np.int64)
    )
    sa = a.query_stats.drop(columns="run").reset_index(drop=True)
    sb = b.query_stats.drop(columns="run").reset_index(drop=True)
    pd.testing.assert_frame_equal(sa, sb, check_exact=True)
    assert a.counts[a.runs[0]].to_dict() == b.counts[b.runs[0]].to_dict()


@pytest.mark.parametrize(("qrels", "path"), CASES, ids=lambda p: getattr(p, "name", p))
def test_file_path_is_the_in_memory_engine(qrels, path, fast_path, monkeypatch):
    seen = []
    tokenize = tokenizer.tokenize_run
    monkeypatch.setattr(
        trec, "tokenize_run", lambda *a, **k: seen.append(out := tokenize(*a, **k)) or out
    )
    fast = mrrstats.evaluate(qrels, path, MEASURES)
    assert seen and seen[0] is not None  # the tokenizer read the file
    _same(fast, _in_memory(qrels, path))
    _same(mrrstats.evaluate(qrels, path, MEASURES, engine="stream"), fast)
