"""mrrstats.TorchMetric: the Accumulator as a torchmetrics Metric (skipped without it).

Reference values are mrrstats' own Accumulator and evaluate_flat on the same rows
(bit for bit), and torchmetrics' RetrievalMRR (torchmetrics 1.x, default settings).
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest

import mrrstats
from mrrstats.errors import ParameterTypeError

torch = pytest.importorskip("torch")
pytest.importorskip("torchmetrics")

MEASURES = ["RR", "nDCG@10", "AP", "P@5", "Rank"]


def _batches(n_batches=4, n_queries=6, n_docs=9, seed=0, start=0, ties=False):
    """Whole-query batches of torch tensors, ids unique across batches."""
    rng = np.random.default_rng(seed)
    out = []
    for b in range(n_batches):
        ids = np.repeat(np.arange(n_queries) + start + n_queries * b, n_docs)
        scores = rng.integers(0, 4, ids.size) / 4 if ties else rng.random(ids.size)
        grades = rng.integers(0, 3, ids.size) * (rng.random(ids.size) < 0.4)
        out.append((torch.as_tensor(scores), torch.as_tensor(grades), torch.as_tensor(ids)))
    return out


def _flat(batches):
    return [torch.cat([b[i] for b in batches]).numpy() for i in range(3)]


def _assert_same(ev, ref):
    assert ev.values["run"].equals(ref.values["run"])
    pd.testing.assert_frame_equal(ev.query_stats, ref.query_stats)
    assert ev.counts["run"] == ref.counts["run"]
    pd.testing.assert_frame_equal(ev.aggregate(), ref.aggregate())


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"ties": "trec_eval"},
        {"empty_target": "skip"},
        {"rel": 2, "max_depth": 5, "ties": "trec_eval"},
    ],
)
def test_equals_accumulator_and_evaluate_flat_bit_for_bit(kwargs):
    batches = _batches(ties=True)
    metric = mrrstats.TorchMetric(MEASURES, **kwargs)
    acc = mrrstats.Accumulator(MEASURES, **kwargs)
    with (
        pytest.warns(mrrstats.QueriesLeftOutWarning)
        if kwargs.get("empty_target") == "skip"
        else _nothing()
    ):
        for b in batches:
            metric.update(*b)
            acc.update(*b)
        ev = metric.evaluation()
        ref = acc.compute()
        flat = mrrstats.evaluate_flat(*_flat(batches), MEASURES, **kwargs)
        means = metric.compute()
    _assert_same(ev, ref)
    _assert_same(ev, flat)
    assert list(means) == MEASURES
    for m in MEASURES:
        assert means[m].dtype == torch.float64 and means[m].ndim == 0
        assert float(means[m]) == flat.aggregate().loc["run", m]


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_reset_forgets_everything():
    metric = mrrstats.TorchMetric(["RR"], ties="trec_eval")
    for b in _batches(seed=1):
        metric.update(*b)
    metric.reset()
    assert metric.query_ids == [] and int(metric.rows) == 0
    batches = _batches(seed=2)
    for b in batches:
        metric.update(*b)
    _assert_same(
        metric.evaluation(), mrrstats.evaluate_flat(*_flat(batches), ["RR"], ties="trec_eval")
    )


def test_forward_gives_the_batch_value_and_keeps_accumulating():
    batches = _batches(ties=True)
    metric = mrrstats.TorchMetric(["RR", "AP"])
    for b in batches:
        value = metric(*b)  # forward: this batch alone
        alone = mrrstats.evaluate_flat(*[x.numpy() for x in b], ["RR", "AP"])
        assert float(value["RR"]) == alone.aggregate().loc["run", "RR"]
    _assert_same(metric.evaluation(), mrrstats.evaluate_flat(*_flat(batches), ["RR", "AP"]))


def test_forward_numbers_rows_as_one_run_under_trec_eval_ties():
    """All scores tied: trec_eval breaks ties by document id (here the global row
    number, as a decimal string), so a batch must not restart the row numbers."""
    rng = np.random.default_rng(1)
    batches = [
        (
            torch.zeros(80, dtype=torch.float64),
            torch.as_tensor(rng.random(80) < 0.1),
            torch.as_tensor(np.repeat(np.arange(2) + 2 * b, 40)),
        )
        for b in range(3)
    ]
    metric = mrrstats.TorchMetric(["RR"], ties="trec_eval")
    for b in batches:
        metric(*b)
    ref = mrrstats.evaluate_flat(*_flat(batches), ["RR"], ties="trec_eval")
    _assert_same(metric.evaluation(), ref)
    assert ref.values["run"]["RR"].nunique() > 3  # the tie-breaking matters here


def test_merge_state_is_the_union_of_two_processes():
    a_batches, b_batches = _batches(seed=3), _batches(seed=4, start=1000)
    a, b = mrrstats.TorchMetric(MEASURES), mrrstats.TorchMetric(MEASURES)
    for x in a_batches:
        a.update(*x)
    for x in b_batches:
        b.update(*x)
    a.merge_state(b)
    _assert_same(a.evaluation(), mrrstats.evaluate_flat(*_flat(a_batches + b_batches), MEASURES))


def _two_process_gather(other):
    """A ``dist_sync_fn`` for this process that returns, for each state, this
    process's tensor and ``other``'s (recorded in the same order of states)."""
    sent = []

    def record(t, group=None):
        sent.append(t)
        return [t]

    other.sync(dist_sync_fn=record, distributed_available=lambda: True)
    other.unsync()

    def gather(t, group=None):
        return [t, sent.pop(0)]

    return gather, sent


@pytest.mark.parametrize("other_empty", [False, True])
def test_dist_sync_gathers_the_per_query_states(other_empty):
    """torchmetrics' own sync (Metric._sync_dist through ``dist_sync_fn``), two
    simulated processes; one without queries sends typed empty states."""
    mine, theirs = _batches(seed=5), [] if other_empty else _batches(seed=6, start=500)
    other = mrrstats.TorchMetric(MEASURES)
    for x in theirs:
        other.update(*x)
    metric = mrrstats.TorchMetric(MEASURES, distributed_available_fn=lambda: True)
    for x in mine:
        metric.update(*x)
    gather, sent = _two_process_gather(other)
    metric.dist_sync_fn = gather
    ref = mrrstats.evaluate_flat(*_flat(mine + theirs), MEASURES)
    means = metric.compute()
    assert not sent  # every state was gathered
    assert {m: float(v) for m, v in means.items()} == ref.aggregate().loc["run"].to_dict()
    assert metric.query_ids and len(metric.query_ids) == len(mine)  # unsynced afterwards
    metric.dist_sync_fn, _ = _two_process_gather(other)
    _assert_same(metric.evaluation(), ref)


def test_equals_torchmetrics_retrieval_mrr():
    from torchmetrics.retrieval import RetrievalMRR

    batches = _batches(n_batches=5, seed=7)
    ours, theirs = mrrstats.TorchMetric(), RetrievalMRR()
    for p, t, i in batches:
        ours.update(p, t, i)
        theirs.update(p.float(), t > 0, i)
    assert float(ours.compute()["RR"]) == pytest.approx(float(theirs.compute()), rel=1e-6)


def test_refuses_string_ids_and_bad_settings():
    metric = mrrstats.TorchMetric()
    with pytest.raises(ParameterTypeError, match="`indexes` must be integers"):
        metric.update(np.array([0.1, 0.2]), np.array([0, 1]), np.array(["a", "a"]))
    with pytest.raises(mrrstats.ParameterError, match="`ties`"):
        mrrstats.TorchMetric(ties="nope")
    with pytest.raises(mrrstats.ParameterError, match="nothing to compute"):
        mrrstats.TorchMetric().evaluation()


def test_without_torchmetrics_the_name_resolves_and_building_one_says_what_to_install():
    """``mrrstats.TorchMetric`` resolves (the lazy table, the API reference) without
    torchmetrics; only building one fails, naming the extra."""
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import sys\n"
        "sys.modules['torchmetrics'] = None  # as if not installed\n"
        "import mrrstats\n"
        "cls = mrrstats.TorchMetric\n"
        "try:\n"
        "    cls()\n"
        "except ImportError as exc:\n"
        "    print('refused:', exc)\n"
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    assert out.returncode == 0, out.stderr
    assert "refused: mrrstats.TorchMetric needs torchmetrics" in out.stdout
    assert "mrrstats[peers]" in out.stdout
