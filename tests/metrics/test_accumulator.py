"""Accumulator: batches of a training loop give, bit for bit, the one-shot evaluate_flat.

The reference is one call of mrrstats.evaluate_flat on the concatenated batches
(itself checked against trec_eval in test_flat.py / test_conformance.py); every
comparison is exact (values, query statistics, counts, settings).
"""

from __future__ import annotations

import os
import pickle
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mrrstats
from mrrstats import Accumulator

ROOT = Path(__file__).resolve().parents[2]
MEASURES = ["RR", "RR@3", "AP", "nDCG@5", "P@2", "Rank"]
FLAT_TIES = ("trec_eval", "optimistic", "pessimistic", "realistic", "expected")


def assert_same(ev, ref):
    name = ref.runs[0]
    assert ev.runs == ref.runs and ev.measures == ref.measures
    pd.testing.assert_frame_equal(ev.values[name], ref.values[name], check_exact=True)
    pd.testing.assert_frame_equal(ev.query_stats, ref.query_stats, check_exact=True)
    assert repr(ev.counts[name]) == repr(ref.counts[name])
    assert ev.counts[name].no_relevant == ref.counts[name].no_relevant
    assert ev.settings == ref.settings


def _data(rng, n_queries, rows_per_query, grades=3):
    """Rows grouped by query (queries and rows in random order), scores with ties."""
    q = rng.permutation(rng.choice(10 * n_queries, n_queries, replace=False))
    sizes = rng.integers(1, rows_per_query + 1, n_queries)
    idx = np.repeat(q, sizes)
    preds = rng.integers(0, 6, idx.size) / 5.0
    target = rng.integers(0, grades, idx.size) * (rng.random(idx.size) < 0.5)
    return preds, target, idx, np.cumsum(sizes)[:-1]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), n_queries=st.integers(1, 30),
       ties=st.sampled_from(FLAT_TIES), max_depth=st.sampled_from([None, 1, 3]),
       empty_target=st.sampled_from(["skip", "neg", "pos"]), split=st.booleans(),
       n_cuts=st.integers(0, 6))
def test_random_batches_equal_one_shot(seed, n_queries, ties, max_depth, empty_target, split,
                                       n_cuts):
    rng = np.random.default_rng(seed)
    preds, target, idx, bounds = _data(rng, n_queries, 8)
    kw = dict(ties=ties, max_depth=max_depth, empty_target=empty_target)
    # "realistic" ranks only the first relevant document (RR, Rank)
    measures = ["RR", "RR@3", "Rank"] if ties == "realistic" else MEASURES
    if max_depth is not None and ties in ("realistic", "expected"):
        measures = measures[:-1]  # Rank under a cutoff has no expectation
    ref = mrrstats.evaluate_flat(preds, target, idx, measures, **kw)
    # split_queries=True: cut anywhere; False: only between queries
    places = np.arange(1, idx.size) if split else bounds
    cuts = np.sort(rng.choice(places, min(n_cuts, places.size), replace=False)) \
        if places.size else np.array([], dtype=int)
    acc = Accumulator(measures, split_queries=split, **kw)
    for a, b in zip(np.r_[0, cuts], np.r_[cuts, idx.size], strict=True):
        acc.update(preds[a:b], target[a:b], idx[a:b])
    assert_same(acc.compute(), ref)
    assert_same(pickle.loads(pickle.dumps(acc)).compute(), ref)


def test_defaults_are_evaluate_flats():
    import inspect

    flat = inspect.signature(mrrstats.evaluate_flat).parameters
    acc = inspect.signature(Accumulator).parameters
    for p in ("empty_target", "ties", "rel", "max_depth", "name"):
        assert acc[p].default == flat[p].default, p


def test_string_ids_and_compute_mid_way():
    rng = np.random.default_rng(3)
    preds, target, idx, _ = _data(rng, 40, 6)
    ids = np.array([f"q{i}" for i in idx])
    ref = mrrstats.evaluate_flat(preds, target, ids, MEASURES)
    acc = Accumulator(MEASURES, split_queries=True)
    half = idx.size // 2
    acc.update(preds[:half], target[:half], ids[:half])
    mid = acc.compute()  # the held query is evaluated, not released
    assert mid.counts["run"].evaluated > 0
    acc.update(preds[half:], target[half:], ids[half:])
    assert_same(acc.compute(), ref)


def test_whole_query_batches_refuse_a_repeated_id():
    rng = np.random.default_rng(4)
    preds, target = rng.random(8), rng.random(8) < 0.5
    acc = Accumulator()
    acc.update(preds[:4], target[:4], np.array([0, 0, 1, 1]))
    with pytest.raises(mrrstats.InputError, match="in the batch before"):
        acc.update(preds[4:], target[4:], np.array([1, 1, 2, 2]))
    acc = Accumulator()
    for ids in ([0, 0], [1, 1], [0, 0]):  # a reused per-batch id, two batches apart
        acc.update(rng.random(2), np.array([True, False]), np.array(ids))
    with pytest.raises(mrrstats.InputError, match="evaluated twice"):
        acc.compute()


def test_errors():
    acc = Accumulator()
    with pytest.raises(ValueError, match="nothing to compute"):
        acc.compute()
    with pytest.raises(ValueError, match="`ties`"):
        Accumulator(ties="rank")
    with pytest.raises(ValueError, match="`empty_target`"):
        Accumulator(empty_target="drop")
    with pytest.raises(ValueError, match="same number"):
        acc.update(np.ones(3), np.ones(2, dtype=bool), np.zeros(3, dtype=int))
    acc.update(np.ones(2), np.array([1, 0]), np.array([5, 5]))
    ranks = mrrstats.LinkPredictionRanks.from_ranks([1, 2])
    with pytest.raises(TypeError, match="cannot be mixed"):
        acc.update(ranks)
    with pytest.raises(ValueError, match="other settings"):
        acc.merge(Accumulator(["AP"]))
    err = Accumulator(empty_target="error")
    err.update(np.ones(2), np.array([0, 0]), np.array([7, 7]))
    with pytest.raises(mrrstats.InputError, match="no relevant"):
        err.compute()
    with pytest.raises(mrrstats.InputError, match="no relevant"):
        mrrstats.evaluate_flat(np.ones(2), np.array([0, 0]), np.array([7, 7]),
                               empty_target="error")


def test_pickled_state_is_under_200_bytes_a_query():
    rng = np.random.default_rng(5)
    n_q, per = 20000, 50
    acc = Accumulator(MEASURES)
    for start in range(0, n_q, 1000):
        idx = np.repeat(np.arange(start, start + 1000), per)
        acc.update(rng.random(idx.size), rng.random(idx.size) < 0.05, idx)
    size = len(pickle.dumps(acc))
    assert acc.n_queries == n_q
    assert size / n_q < 200, size / n_q  # measured: 88.0 (6 measures, int ids)
    # the predictions are not kept: 50 rows a query would be 50 * 25 bytes at least
    ranks = Accumulator()
    for _ in range(10):
        o = rng.integers(1, 100, 2000).astype(float)
        ranks.update(mrrstats.LinkPredictionRanks.from_ranks(o, pessimistic=o + 1,
                                                             n_candidates=np.full(2000, 500)))
    assert len(pickle.dumps(ranks)) / 20000 < 30


def test_ranks_equal_one_call():
    rng = np.random.default_rng(6)
    scores = rng.integers(0, 20, (300, 40)).astype(np.float32)
    true = rng.integers(0, 40, 300)
    whole = mrrstats.ranks_from_scores(scores, true)
    acc = Accumulator()
    for a in range(0, 300, 64):
        acc.update(mrrstats.ranks_from_scores(scores[a:a + 64], true[a:a + 64]))
    got = acc.compute()
    for ties in ("optimistic", "pessimistic", "expected"):
        np.testing.assert_array_equal(got.reciprocal_rank(ties), whole.reciprocal_rank(ties))
    np.testing.assert_array_equal(got.n_candidates, whole.n_candidates)
    other = Accumulator()
    other.update(mrrstats.ranks_from_scores(scores[:10], true[:10]))
    merged = pickle.loads(pickle.dumps(acc)).merge(other).compute()
    assert merged.n_queries == 310 and merged.mrr() != got.mrr()


def test_array_api_strict_batches():
    xp = pytest.importorskip("array_api_strict")
    rng = np.random.default_rng(7)
    preds, target, idx, _ = _data(rng, 50, 10)
    for ties, split in (("expected", True), ("trec_eval", True), ("optimistic", False)):
        ref = mrrstats.evaluate_flat(preds, target, idx, MEASURES, ties=ties)
        acc = Accumulator(MEASURES, ties=ties, split_queries=split)
        cuts = [0, 97, 250, idx.size] if split else [0, idx.size]
        for a, b in zip(cuts[:-1], cuts[1:], strict=True):
            acc.update(xp.asarray(preds[a:b]), xp.asarray(target[a:b]), xp.asarray(idx[a:b]))
        assert_same(acc.compute(), ref)


def test_result_feeds_compare_and_baselines():
    rng = np.random.default_rng(8)
    preds, target, idx, _ = _data(rng, 60, 10)
    ev = {}
    for name, p in (("a", preds), ("b", preds + rng.normal(0, 0.3, preds.size))):
        acc = Accumulator(["RR"], name=name)
        acc.update(p, target, idx)
        ev[name] = acc.compute()
    table = pd.concat([v.scores("RR") for v in ev.values()], axis=1)
    res = mrrstats.compare(table, n_resamples=99, rng=1)
    assert len(res.to_frame()) >= 1
    base = mrrstats.evaluation_baseline(ev["a"], n_resamples=99, rng=1)
    assert len(base) == 1


# ---------------------------------------------------------------------------
# two processes
# ---------------------------------------------------------------------------

_WORKER = textwrap.dedent("""
    import pickle, sys
    import numpy as np
    from mrrstats import Accumulator
    rank, path = int(sys.argv[1]), sys.argv[2]
    preds, target, idx, measures, cuts = pickle.load(open(path + ".data", "rb"))
    acc = Accumulator(measures, split_queries=True)
    lo, hi = cuts[rank], cuts[rank + 1]          # this process's shard, in 3 batches
    for a, b in zip(np.linspace(lo, hi, 4).astype(int)[:-1],
                    np.linspace(lo, hi, 4).astype(int)[1:]):
        acc.update(preds[a:b], target[a:b], idx[a:b])
    pickle.dump(acc, open(f"{path}.{rank}", "wb"))
""")


@pytest.mark.slow
def test_two_processes_merge(tmp_path):
    rng = np.random.default_rng(9)
    preds, target, idx, bounds = _data(rng, 80, 12)
    cut = int(bounds[len(bounds) // 2])  # each process holds whole queries
    path = str(tmp_path / "state")
    with open(path + ".data", "wb") as fh:
        pickle.dump((preds, target, idx, MEASURES, [0, cut, idx.size]), fh)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, "-c", _WORKER, str(r), path], env=env)
             for r in range(2)]
    assert all(p.wait(timeout=300) == 0 for p in procs)
    states = [pickle.load(open(f"{path}.{r}", "rb")) for r in range(2)]
    merged = Accumulator(MEASURES, split_queries=True)
    for s in states:
        merged.merge(s)
    assert_same(merged.compute(), mrrstats.evaluate_flat(preds, target, idx, MEASURES))


_TORCH_WORKER = textwrap.dedent("""
    import os, pickle, sys
    import numpy as np
    import torch
    import torch.distributed as dist
    from mrrstats import Accumulator
    rank, path = int(sys.argv[1]), sys.argv[2]
    dist.init_process_group("gloo", rank=rank, world_size=2)
    preds, target, idx, measures, cuts = pickle.load(open(path + ".data", "rb"))
    lo, hi = cuts[rank], cuts[rank + 1]
    acc = Accumulator(measures, split_queries=True)
    for a, b in zip(np.linspace(lo, hi, 4).astype(int)[:-1],
                    np.linspace(lo, hi, 4).astype(int)[1:]):
        acc.update(torch.tensor(preds[a:b], dtype=torch.float32, requires_grad=True),
                   torch.tensor(target[a:b]), torch.tensor(idx[a:b]))
    total = acc.all_gather()
    pickle.dump(total.compute(), open(f"{path}.{rank}", "wb"))
    dist.destroy_process_group()
""")


def test_two_processes_torch_distributed_gloo(tmp_path):
    """torch.distributed (gloo, CPU): all_gather gives every rank the one-shot result."""
    pytest.importorskip("torch")
    rng = np.random.default_rng(10)
    preds, target, idx, bounds = _data(rng, 60, 10)
    preds = preds.astype(np.float32)  # what the tensors hold
    cut = int(bounds[len(bounds) // 3])
    path = str(tmp_path / "state")
    with open(path + ".data", "wb") as fh:
        pickle.dump((preds, target, idx, MEASURES, [0, cut, idx.size]), fh)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MASTER_ADDR": "127.0.0.1",
           "MASTER_PORT": str(port)}
    procs = [subprocess.Popen([sys.executable, "-c", _TORCH_WORKER, str(r), path], env=env)
             for r in range(2)]
    assert all(p.wait(timeout=300) == 0 for p in procs)
    ref = mrrstats.evaluate_flat(preds, target, idx, MEASURES)
    for r in range(2):
        assert_same(pickle.load(open(f"{path}.{r}", "rb")), ref)
