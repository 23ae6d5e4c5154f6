"""evaluate_flat: torchmetrics' (preds, target, indexes) contract, any array library."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import mrrstats
from mrrstats import InputError, datasets, read_qrels, read_run

MEASURES = ["RR", "RR@5", "P@5", "Success@10", "Rank"]


@pytest.fixture(scope="module")
def cast_flat():
    data = datasets.cast2021()
    qrels = read_qrels(data.qrels)
    run = read_run(data.runs[0])
    ranked = mrrstats.rank_run(qrels, run)  # grade of each row, in rank order
    docs = ranked.doc_ids()
    lens = np.diff(ranked.offsets)
    indexes = np.repeat(np.arange(ranked.n_queries), lens)
    grades = np.nan_to_num(ranked.grades, nan=0.0)
    target = (grades >= 1).astype(np.int64)
    # scores in the same rank order: the run's own scores
    frame = run.to_frame().set_index(["query", "doc"])["score"]
    keys = list(zip(np.repeat(ranked.query_ids, lens), np.concatenate(docs), strict=True))
    preds = frame.loc[keys].to_numpy()
    return qrels, run, preds, target, indexes, ranked.query_ids


def test_flat_matches_trec_file_path_on_cast(cast_flat):
    qrels, run, preds, target, indexes, qids = cast_flat
    ref = mrrstats.evaluate(qrels, {"r": run}, MEASURES, ties="expected")
    ev = mrrstats.evaluate_flat(preds, target, indexes, MEASURES, empty_target="neg", name="r")
    # the default is torchmetrics' empty_target_action="neg": every query counts
    default = mrrstats.evaluate_flat(preds, target, indexes, MEASURES, name="r")
    pd.testing.assert_frame_equal(default.values["r"], ev.values["r"], check_exact=True)
    got = ev.values["r"]
    got.index = qids[got.index.astype(int)]
    want = ref.values["r"]
    # Queries judged in the qrels: identical values (the flat rows see only retrieved
    # documents, which is all RR, P@k, Success@k and Rank look at).
    got = got.loc[want.index]
    pd.testing.assert_frame_equal(got, want, check_exact=True, check_names=False)
    # "skip" leaves out queries without a relevant retrieved row, and says so
    with pytest.warns(mrrstats.QueriesLeftOutWarning, match=r"empty_target='neg'"):
        skip = mrrstats.evaluate_flat(preds, target, indexes, MEASURES, name="r",
                                      empty_target="skip")
    no_rel = np.bincount(indexes, weights=target) == 0
    assert skip.counts["r"].evaluated == int((~no_rel).sum())
    assert len(skip.counts["r"].no_relevant) == int(no_rel.sum())
    # the result works with compare
    table = skip.scores("RR")
    assert table.shape == (int((~no_rel).sum()), 1)


def test_flat_errors():
    with pytest.raises(ValueError, match="same number"):
        mrrstats.evaluate_flat([0.1, 0.2], [1], [0, 0])
    with pytest.raises(InputError, match="not finite"):
        mrrstats.evaluate_flat([0.1, np.nan], [1, 0], [0, 0])
    with pytest.raises(InputError, match="not an integer grade"):
        mrrstats.evaluate_flat([0.1, 0.2], [0.5, 0], [0, 0])
    with pytest.raises(InputError, match="no relevant"):
        mrrstats.evaluate_flat([0.1, 0.2], [0, 0], [0, 0], empty_target="error")
    with pytest.raises(ValueError, match="empty_target"):
        mrrstats.evaluate_flat([0.1, 0.2], [0, 1], [0, 0], empty_target="ignore")


def test_flat_array_api_strict(cast_flat):
    xps = pytest.importorskip("array_api_strict")
    _, _, preds, target, indexes, _ = cast_flat
    ref = mrrstats.evaluate_flat(preds, target, indexes, MEASURES)
    ev = mrrstats.evaluate_flat(xps.asarray(preds), xps.asarray(target.astype(bool)),
                                xps.asarray(indexes), MEASURES)
    pd.testing.assert_frame_equal(ev.values["run"], ref.values["run"], check_exact=True)
    for dtype in (xps.float32,):
        ev = mrrstats.evaluate_flat(xps.astype(xps.asarray(preds), dtype),
                                    xps.asarray(target), xps.asarray(indexes), MEASURES)
        want = mrrstats.evaluate_flat(preds.astype(np.float32), target, indexes, MEASURES)
        pd.testing.assert_frame_equal(ev.values["run"], want.values["run"], check_exact=True)


def test_flat_torch_dtypes(cast_flat):
    torch = pytest.importorskip("torch")
    _, _, preds, target, indexes, _ = cast_flat
    preds = preds + (np.arange(preds.size) % 97) / 997  # not all exact in bf16
    t_target = torch.as_tensor(target).bool()
    t_index = torch.as_tensor(indexes)
    for dtype in (torch.float64, torch.float32, torch.float16, torch.bfloat16):
        t_preds = torch.as_tensor(preds).to(dtype).requires_grad_(True)
        ev = mrrstats.evaluate_flat(t_preds, t_target, t_index, MEASURES)
        # reference: the same rounded values, widened exactly, through NumPy
        exact = t_preds.detach().to(torch.float64).numpy()
        want = mrrstats.evaluate_flat(exact, target, indexes, MEASURES)
        pd.testing.assert_frame_equal(ev.values["run"], want.values["run"], check_exact=True)
    if dtype is torch.bfloat16:  # bf16 rounding creates ties: "expected" handles them
        assert len(np.unique(exact)) < len(np.unique(preds))
    if torch.cuda.is_available():  # pragma: no cover - needs a GPU
        dev = torch.as_tensor(preds, device="cuda").to(torch.bfloat16)
        ev = mrrstats.evaluate_flat(dev, t_target.cuda(), t_index.cuda(), MEASURES)
        want = mrrstats.evaluate_flat(dev.cpu().double().numpy(), target, indexes, MEASURES)
        pd.testing.assert_frame_equal(ev.values["run"], want.values["run"], check_exact=True)


def test_flat_float16_is_not_rounded_further():
    # Two scores that differ in float16 must stay different (no double rounding).
    preds = np.array([1.0, np.nextafter(np.float16(1.0), np.float16(2.0))], dtype=np.float16)
    ev = mrrstats.evaluate_flat(preds, [1, 0], [7, 7], "RR", ties="trec_eval")
    assert ev.values["run"]["RR"].tolist() == [0.5]
    assert ev.values["run"].index.tolist() == ["7"]
