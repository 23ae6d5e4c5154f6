"""evaluate_flat on the arrays' own device (mrrstats.metrics.flat_xp): the host path's numbers.

torch (CPU here; CUDA where present) and array-api-strict arrays on a device that NumPy
cannot read take the array-API path; every per-query value, query count and query
statistic must equal, bit for bit, the NumPy path's (which builds a run and qrels on the
host), for every tie convention, with ties, negative grades, queries without a relevant
row, cutoffs, ``max_depth`` and ``rel``, in one chunk or many.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mrrstats
from mrrstats import InputError, devices
from mrrstats.metrics import flat_xp

xps = pytest.importorskip("array_api_strict")
torch = pytest.importorskip("torch")

MEASURES = ["RR", "RR@3", "AP", "AP@5", "nDCG", "nDCG@3", "P@2", "R@4", "Success@3",
            "RR(rel=2)", "nDCG(rel=2)@5"]
RANK_BASED = ["RR", "RR@3", "Success@3", "Rank"]


def _measures(ties, max_depth):
    if ties == "realistic":
        return RANK_BASED
    if ties == "expected" and max_depth is not None:
        return MEASURES  # Rank with a cutoff is not defined under "expected"
    return [*MEASURES, "Rank"]


def _strict(a):
    return xps.asarray(np.asarray(a), device=xps.Device("device1"))


def _torch(a):
    return torch.as_tensor(np.asarray(a))


LIBS = {"torch": _torch, "array_api_strict": _strict, "numpy": np.asarray}


def _host(preds, target, idx, *args, **kw):
    """The host door (lists: row numbers become string ids, then evaluate), the reference."""
    return mrrstats.evaluate_flat(np.asarray(preds).tolist(), np.asarray(target).tolist(),
                                  np.asarray(idx).tolist(), *args, **kw)


def assert_same_evaluation(got, want):
    assert got.runs == want.runs and got.settings == want.settings
    for run in want.runs:
        pd.testing.assert_frame_equal(got.values[run], want.values[run], check_exact=True)
        assert got.counts[run] == want.counts[run]
    pd.testing.assert_frame_equal(got.query_stats, want.query_stats, check_exact=True)


@st.composite
def flat_inputs(draw):
    n = draw(st.integers(1, 160))
    n_q = draw(st.integers(1, 9))
    idx = draw(st.lists(st.integers(-2, n_q), min_size=n, max_size=n))
    levels = draw(st.integers(1, 6))  # few distinct scores: many ties
    preds = draw(st.lists(st.integers(0, levels), min_size=n, max_size=n))
    target = draw(st.lists(st.integers(-1, 3), min_size=n, max_size=n))
    keep = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    target = [t if k else 0 for t, k in zip(target, keep, strict=True)]
    return (np.asarray(preds, np.float64) / 2, np.asarray(target, np.int64),
            np.asarray(idx, np.int64))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=flat_inputs(),
       ties=st.sampled_from(["trec_eval", "optimistic", "pessimistic", "realistic",
                             "expected"]),
       max_depth=st.sampled_from([None, 1, 3]), rel=st.sampled_from([1, 2]),
       empty_target=st.sampled_from(["skip", "neg", "pos"]),
       lib=st.sampled_from(sorted(LIBS)))
def test_device_path_equals_host_path(data, ties, max_depth, rel, empty_target, lib):
    preds, target, idx = data
    measures = _measures(ties, max_depth)
    kw = dict(ties=ties, max_depth=max_depth, rel=rel, empty_target=empty_target)
    want = _host(preds, target, idx, measures, **kw)
    to = LIBS[lib]
    got = mrrstats.evaluate_flat(to(preds), to(target), to(idx), measures, **kw)
    assert_same_evaluation(got, want)


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=flat_inputs(), rows=st.integers(1, 40),
       ties=st.sampled_from(["trec_eval", "optimistic", "expected"]))
def test_chunks_of_whole_queries_give_the_same_numbers(data, rows, ties, monkeypatch_free):
    preds, target, idx = data
    monkeypatch_free(rows)
    want = _host(preds, target, idx, MEASURES, ties=ties, empty_target="neg")
    got = mrrstats.evaluate_flat(_torch(preds), _torch(target), _torch(idx), MEASURES,
                                 ties=ties, empty_target="neg")
    assert_same_evaluation(got, want)


@pytest.fixture
def monkeypatch_free():
    """Pretend the device has room for ``rows`` flat rows (hypothesis-safe patching)."""
    saved = devices.free_bytes

    def set_rows(rows):
        devices.free_bytes = lambda S: 2 * devices.BYTES_PER_SCORE * \
            flat_xp._WORDS_PER_ROW * rows

    yield set_rows
    devices.free_bytes = saved


def test_chunk_size_rule_and_query_chunks(monkeypatch):
    rows = 7
    monkeypatch.setattr(devices, "free_bytes",
                        lambda S: 2 * devices.BYTES_PER_SCORE * flat_xp._WORDS_PER_ROW * rows
                        + 5)
    P = _torch(np.zeros(100))
    assert devices.rows_per_chunk(P, 100, flat_xp._WORDS_PER_ROW) == rows
    idx = np.array([5] * 3 + [1] * 4 + [9] * 12 + [2] * 2 + [7] * 1)
    xp = flat_xp.flat_namespace(P, P, _torch(idx))
    bounds = flat_xp._query_chunks(xp, _torch(idx), idx.size, rows)
    sizes = [int(((idx >= lo) & (idx <= hi)).sum()) for lo, hi in bounds]
    assert sum(sizes) == idx.size
    # each chunk fits, except a query larger than a chunk, which is alone
    for (lo, hi), size in zip(bounds, sizes, strict=True):
        assert size <= rows or lo == hi
    assert bounds == [(1, 2), (5, 7), (9, 9)]  # 6, 4 and 12 rows
    assert flat_xp._query_chunks(xp, _torch(idx), idx.size, idx.size) is None


def test_only_small_results_come_back(monkeypatch):
    """The scores stay on the device: the host door is never used, and only arrays of
    at most (queries + positive rows) values are copied back."""
    rng = np.random.default_rng(3)
    n_q, per = 50, 400
    idx = np.repeat(np.arange(n_q), per)
    preds = rng.normal(size=idx.size)
    target = (rng.random(idx.size) < 0.01).astype(np.int64)
    want = _host(preds, target, idx, MEASURES, empty_target="neg")
    sizes = []
    real = flat_xp.to_numpy

    def spy(x):
        out = real(x)
        sizes.append(out.size)
        return out

    def no_host_copy(*args, **kwargs):
        raise AssertionError("the host door was used")

    monkeypatch.setattr(flat_xp, "to_numpy", spy)
    monkeypatch.setattr(mrrstats.metrics.evaluation, "flat_to_qrels_run", no_host_copy)
    got = mrrstats.evaluate_flat(_strict(preds), _strict(target), _strict(idx), MEASURES,
                                 empty_target="neg")
    assert_same_evaluation(got, want)
    assert sizes and max(sizes) <= max(n_q, int((target > 0).sum()))


def test_trec_eval_ties_follow_the_row_numbers_byte_order():
    # rows 9, 10 and 1 tie: byte order descending puts "9" first, then "10", then "1"
    preds = np.zeros(11)
    preds[[1, 9, 10]] = 5.0
    for relevant, rr in ((9, 1.0), (10, 0.5), (1, 1 / 3)):
        target = np.zeros(11, np.int64)
        target[relevant] = 1
        for to in LIBS.values():
            ev = mrrstats.evaluate_flat(to(preds), to(target), to(np.zeros(11, np.int64)),
                                        "RR", ties="trec_eval")
            assert ev.values["run"]["RR"].tolist() == [rr]


def test_dtypes_and_requires_grad():
    rng = np.random.default_rng(0)
    idx = rng.integers(0, 20, 3000)
    preds = rng.normal(size=idx.size)
    target = rng.integers(0, 3, idx.size)
    for dtype in (torch.float64, torch.float32, torch.float16, torch.bfloat16, torch.int32):
        t = torch.as_tensor(preds * 8).to(dtype)
        if dtype.is_floating_point:
            t.requires_grad_(True)
        exact = t.detach().to(torch.float64).numpy()
        for tt in (torch.as_tensor(target), torch.as_tensor(target > 0),
                   torch.as_tensor(target).to(torch.float32)):
            want = _host(exact, tt.numpy(), idx, MEASURES, ties="expected")
            got = mrrstats.evaluate_flat(t, tt, torch.as_tensor(idx).to(torch.int32), MEASURES,
                                         ties="expected")
            assert_same_evaluation(got, want)


def test_which_inputs_take_the_device_path():
    p, t, i = np.array([0.5, 0.2]), np.array([1, 0]), np.array([0, 0])
    assert flat_xp.flat_namespace(p, t, i) is not None  # NumPy: the same path, numpy
    assert flat_xp.flat_namespace(p.tolist(), t, i) is None  # lists: the host door
    assert flat_xp.flat_namespace(p, t, i.astype(float)) is None  # float query ids
    assert flat_xp.flat_namespace(p.astype(str), t, i) is None
    assert flat_xp.flat_namespace(_torch(p), t, i) is None  # mixed libraries
    assert flat_xp.flat_namespace(_torch(p), _torch(t), _torch(i).double()) is None
    assert flat_xp.flat_namespace(_torch(p), _torch(t), _torch(i).bool()) is None
    assert flat_xp.flat_namespace(_torch(p), _torch(t), _torch(i)) is not None
    assert flat_xp.flat_namespace(_strict(p), _strict(t), _strict(i)) is not None
    other = xps.asarray(i, device=xps.Device("device2"))
    assert flat_xp.flat_namespace(_strict(p), _strict(t), other) is None  # two devices


def _message(call):
    try:
        call()
    except Exception as exc:  # noqa: BLE001 - compared below
        return type(exc), str(exc)
    return None


@pytest.mark.parametrize("case", [
    dict(preds=[0.1, 0.2], target=[1], indexes=[0, 0]),
    dict(preds=[0.1, 0.2], target=[1, 0], indexes=[0]),
    dict(preds=[], target=[], indexes=[]),
    dict(preds=[0.1, np.nan, np.inf], target=[1, 0, 0], indexes=[0, 0, 0]),
    dict(preds=[0.1, 0.3, -np.inf], target=[1, 0, 0], indexes=[0, 0, 0]),
    dict(preds=[0.1, 0.2], target=[0.0, 0.5], indexes=[0, 0]),
    dict(preds=[0.1, 0.2], target=[np.nan, 1.0], indexes=[0, 0]),
    dict(preds=[0.1, 0.2], target=[0, 0], indexes=[0, 0], empty_target="error"),
    dict(preds=[0.1, 0.2], target=[0, 1], indexes=[0, 3], empty_target="error"),
    dict(preds=[0.1, 0.2], target=[0, 1], indexes=[0, 0], ties="rank"),
    dict(preds=[0.1, 0.2], target=[0, 1], indexes=[0, 0], ties="realistic", measures="AP"),
    dict(preds=[0.1, 0.2], target=[0, 1], indexes=[0, 0], ties="expected", measures="Rank",
         max_depth=5),
])
def test_errors_are_the_host_paths(case):
    case = dict(case)
    arrays = {k: np.asarray(case.pop(k), dtype=np.int64 if k == "indexes" else None)
              for k in ("preds", "target", "indexes")}
    measures = case.pop("measures", "RR")
    want = _message(lambda: _host(*arrays.values(), measures, **case))
    assert want is not None
    for to in LIBS.values():
        dev = [to(a) for a in arrays.values()]
        assert flat_xp.flat_namespace(*dev) is not None
        assert _message(lambda dev=dev: mrrstats.evaluate_flat(*dev, measures, **case)) == want
    assert issubclass(want[0], (ValueError, InputError))


def test_torchmetrics_retrieval_metrics():
    """The means over queries equal torchmetrics' retrieval metrics (distinct scores, so
    no tie convention is involved; every query has a relevant row)."""
    tm = pytest.importorskip("torchmetrics.retrieval")
    rng = np.random.default_rng(11)
    idx = np.repeat(np.arange(40), rng.integers(5, 60, 40))
    preds = rng.permutation(idx.size).astype(np.float64) / idx.size
    grades = rng.integers(0, 4, idx.size) * (rng.random(idx.size) < 0.3)
    grades[np.unique(idx, return_index=True)[1]] = 1  # a relevant row in every query
    binary = grades > 0
    tp, ti = torch.as_tensor(preds), torch.as_tensor(idx)
    pairs = [("RR", tm.RetrievalMRR(), binary), ("RR@10", tm.RetrievalMRR(top_k=10), binary),
             ("AP", tm.RetrievalMAP(), binary),
             ("nDCG", tm.RetrievalNormalizedDCG(), grades),
             ("nDCG@10", tm.RetrievalNormalizedDCG(top_k=10), grades),
             ("P@10", tm.RetrievalPrecision(top_k=10), binary),
             ("R@10", tm.RetrievalRecall(top_k=10), binary),
             ("Success@10", tm.RetrievalHitRate(top_k=10), binary)]
    for name, metric, target in pairs:
        tt = torch.as_tensor(target)
        want = float(metric(tp, tt, indexes=ti))
        ev = mrrstats.evaluate_flat(tp, tt, ti, name)
        assert flat_xp.flat_namespace(tp, tt, ti) is not None
        got = float(ev.aggregate().iloc[0, 0])
        assert got == pytest.approx(want, rel=1e-6, abs=1e-7), name
    # AP@k differs by definition: trec_eval's map_cut (ours) divides the precisions at the
    # relevant rows of the top k by all relevant rows R, torchmetrics by those in the top k
    from torchmetrics.functional.retrieval import retrieval_average_precision

    ev = mrrstats.evaluate_flat(tp, torch.as_tensor(binary), ti, ["AP@10", "P@10"])
    ours = ev.values["run"]
    for q in np.unique(idx):
        rows = idx == q
        tm_ap = float(retrieval_average_precision(tp[rows], torch.as_tensor(binary[rows]),
                                                  top_k=10))
        hits = ours.loc[str(q), "P@10"] * 10
        R = binary[rows].sum()
        want = tm_ap * hits / R  # the same sum of precisions, over R instead of hits
        assert ours.loc[str(q), "AP@10"] == pytest.approx(want, rel=1e-6, abs=1e-9)


@pytest.mark.requires_cuda
def test_cuda_equals_host():  # pragma: no cover - needs a GPU
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    rng = np.random.default_rng(5)
    idx = rng.integers(0, 300, 200_000)
    preds = np.round(rng.normal(size=idx.size), 2)  # ties
    target = rng.integers(0, 3, idx.size) * (rng.random(idx.size) < 0.05)
    for ties in ("trec_eval", "optimistic", "pessimistic", "expected"):
        want = _host(preds, target, idx, MEASURES, ties=ties)
        dev = [torch.as_tensor(a, device="cuda") for a in (preds, target, idx)]
        got = mrrstats.evaluate_flat(*dev, MEASURES, ties=ties)
        assert_same_evaluation(got, want)
