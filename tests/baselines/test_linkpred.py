"""Link-prediction ranks against brute-force references on real graphs and hand examples."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from mrrstats import (
    LinkPredictionRanks,
    expected_mrr,
    random_baseline_test,
    ranks_from_negatives,
    ranks_from_scores,
)
from tests.reference_data import data_path

# --------------------------------------------------------------------------
# the tied example, by hand, with what PyKEEN, OGB and TGB report
# --------------------------------------------------------------------------


def test_tied_example_matches_pykeen_ogb_tgb_by_hand():
    # One query, five candidates, the true one (index 2) scores 0.5:
    #   scores = [0.9, 0.5, 0.5, 0.5, 0.1]
    # optimistic rank  o = 1 + #{> 0.5} = 1 + 1 = 2
    # pessimistic rank p = #{>= 0.5}, true included = 4
    # PyKEEN (realistic, its default): (o + p) / 2 = (2 + 4) / 2 = 3
    # (OGB/TGB view of the same query below.)
    scores = np.array([[0.9, 0.5, 0.5, 0.5, 0.1]])
    r = ranks_from_scores(scores, [2])
    assert r.optimistic.tolist() == [2.0]
    assert r.pessimistic.tolist() == [4.0]
    assert r.realistic.tolist() == [3.0]                  # PyKEEN realistic rank
    assert r.reciprocal_rank("realistic") == pytest.approx([1 / 3])
    # expected RR under random tie-breaking: the rank is uniform on {2, 3, 4}:
    # (1/2 + 1/3 + 1/4) / 3 = 13/36 = 0.36111..., which is NOT 1/3 = 1/realistic.
    assert r.reciprocal_rank("expected") == pytest.approx([13 / 36], rel=1e-15)
    assert r.reciprocal_rank("expected")[0] != pytest.approx(1 / 3)
    # Hits@2: realistic 3 > 2 -> 0 (OGB/TGB: ranking <= 2 is False);
    # expected: P(rank <= 2) = 1/3.
    assert r.hits(2, "realistic").tolist() == [0.0]
    assert r.hits(2, "expected") == pytest.approx([1 / 3])
    assert r.hits(2, "optimistic").tolist() == [1.0]
    assert r.n_candidates.tolist() == [5]

    # The same query in OGB/TGB form: positive 0.5, negatives = the other four
    # candidates [0.9, 0.5, 0.5, 0.1]. OGB's evaluator (ogb.linkproppred, >= 1.3.4)
    # and TGB's compute optimistic_rank = (neg > pos).sum() = 1,
    # pessimistic_rank = (neg >= pos).sum() = 3 and report
    # ranking = 0.5 * (1 + 3) + 1 = 3, MRR = 1/3, hits@2 = (3 <= 2) = 0.
    s = ranks_from_negatives([0.5], [[0.9, 0.5, 0.5, 0.1]])
    assert s.realistic.tolist() == [3.0]
    assert s.mrr("realistic") == pytest.approx(1 / 3)
    assert s.hits_at(2, "realistic") == 0.0
    assert s.n_candidates.tolist() == [5]                # N = 1 + n_negatives
    assert s.mrr("expected") == pytest.approx(13 / 36)


def test_filtering_by_hand():
    # scores [0.9, 0.8, 0.5, 0.5, 0.1], true index 2; candidates 0 and 3 are other known
    # answers (filtered). Remaining: {1: 0.8, 2: 0.5 (true), 4: 0.1}
    # o = 1 + 1 = 2, p = 2, N = 3.
    scores = np.array([[0.9, 0.8, 0.5, 0.5, 0.1]])
    r = ranks_from_scores(scores, [2], exclude=[(0, 0), (0, 3), (0, 2)])  # (0, 2): true, kept
    assert (r.optimistic.tolist(), r.pessimistic.tolist(), r.n_candidates.tolist()) == \
        ([2.0], [2.0], [3])
    mask = np.array([[True, False, True, True, False]])
    r2 = ranks_from_scores(scores, [2], exclude=mask)
    assert (r2.optimistic.tolist(), r2.pessimistic.tolist(), r2.n_candidates.tolist()) == \
        ([2.0], [2.0], [3])


# --------------------------------------------------------------------------
# conformance on Nations, Kinship and UMLS with a count-based scorer
# --------------------------------------------------------------------------

def _load_kg(name):
    splits = {}
    for part in ("train", "valid", "test"):
        path = data_path("kg", name, f"{part}.txt")
        with open(path, encoding="utf-8") as fh:
            splits[part] = [tuple(line.rstrip("\n").split("\t")) for line in fh if line.strip()]
    ents = sorted({x for rows in splits.values() for h, _, t in rows for x in (h, t)})
    rels = sorted({r for rows in splits.values() for _, r, _ in rows})
    e_id = {e: i for i, e in enumerate(ents)}
    r_id = {r: i for i, r in enumerate(rels)}
    arr = {k: np.array([(e_id[h], r_id[r], e_id[t]) for h, r, t in v], dtype=np.int64)
           for k, v in splits.items()}
    return arr, len(ents), len(rels)


def _count_scorer(train, n_ent, n_rel):
    """score(h, r, t) = #training triples (h', r, t) (tail popularity per relation),
    and for head prediction score(h, r, t) = #training triples (h, r, t')."""
    tail_pop = np.zeros((n_rel, n_ent), dtype=np.float32)
    head_pop = np.zeros((n_rel, n_ent), dtype=np.float32)
    np.add.at(tail_pop, (train[:, 1], train[:, 2]), 1.0)
    np.add.at(head_pop, (train[:, 1], train[:, 0]), 1.0)
    return tail_pop, head_pop


def _brute_force(scores, truth, known_sets):
    """Reference ranks: loop over candidates in plain Python."""
    o, p, n = [], [], []
    for i in range(scores.shape[0]):
        t = truth[i]
        cands = [c for c in range(scores.shape[1]) if c == t or c not in known_sets[i]]
        st = scores[i, t]
        o.append(1 + sum(1 for c in cands if scores[i, c] > st))
        p.append(sum(1 for c in cands if scores[i, c] >= st))
        n.append(len(cands))
    return np.array(o, float), np.array(p, float), np.array(n)


@pytest.mark.parametrize("name", ["nations", "kinship", "umls"])
def test_filtered_ranks_on_real_graphs_match_brute_force(name):
    arr, n_ent, n_rel = _load_kg(name)
    tail_pop, head_pop = _count_scorer(arr["train"], n_ent, n_rel)
    everything = np.concatenate([arr["train"], arr["valid"], arr["test"]])
    tails_of, heads_of = {}, {}
    for h, r, t in everything.tolist():
        tails_of.setdefault((h, r), set()).add(t)
        heads_of.setdefault((r, t), set()).add(h)
    test = arr["test"]
    for side in ("tail", "head"):
        if side == "tail":
            scores = tail_pop[test[:, 1]]
            truth = test[:, 2]
            known = [tails_of[(h, r)] for h, r, _ in test.tolist()]
        else:
            scores = head_pop[test[:, 1]]
            truth = test[:, 0]
            known = [heads_of[(r, t)] for _, r, t in test.tolist()]
        ro, rp, rn = _brute_force(scores, truth, known)
        assert np.any(rp > ro), "the count scorer should produce ties"
        pairs = np.array([(i, c) for i, ks in enumerate(known) for c in ks], dtype=np.int64)
        mask = np.zeros(scores.shape, dtype=bool)
        mask[pairs[:, 0], pairs[:, 1]] = True
        for exclude, batch, workers in ((pairs, None, 1), (mask, 7, 2), (pairs, 1, 1)):
            r = ranks_from_scores(scores, truth, exclude=exclude, batch=batch, workers=workers)
            np.testing.assert_array_equal(r.optimistic, ro)
            np.testing.assert_array_equal(r.pessimistic, rp)
            np.testing.assert_array_equal(r.n_candidates, rn)
        # N_i counts the true candidate and excludes the filtered ones
        assert np.all(rn == n_ent - np.array([len(k - {t}) for k, t in zip(known, truth,
                                                                         strict=True)]))
        # raw (unfiltered) setting
        ro_raw, rp_raw, rn_raw = _brute_force(scores, truth, [set()] * len(truth))
        raw = ranks_from_scores(scores, truth)
        np.testing.assert_array_equal(raw.optimistic, ro_raw)
        np.testing.assert_array_equal(raw.pessimistic, rp_raw)
        assert np.all(raw.n_candidates == n_ent)
        # the expected reciprocal rank is the plain average of 1/k over k in [o, p]
        exp_ref = np.array([np.mean(1.0 / np.arange(a, b + 1)) for a, b in
                            zip(ro.astype(int), rp.astype(int), strict=True)])
        # (a difference of cumulative harmonic numbers: ~1e-14 relative)
        np.testing.assert_allclose(r.reciprocal_rank("expected"), exp_ref, rtol=1e-13)
        np.testing.assert_allclose(r.reciprocal_rank("realistic"), 2.0 / (ro + rp), rtol=0)
        # same ranks through the sampled-negatives path: positive + the remaining others
        if side == "tail" and name == "nations":
            pos = scores[np.arange(len(truth)), truth]
            neg = np.where(mask, np.nan, scores)
            neg[np.arange(len(truth)), truth] = np.nan
            s = ranks_from_negatives(pos, neg, nonfinite="exclude")
            np.testing.assert_array_equal(s.optimistic, ro)
            np.testing.assert_array_equal(s.pessimistic, rp)
            np.testing.assert_array_equal(s.n_candidates, rn)


# --------------------------------------------------------------------------
# invariances, dtypes, memory
# --------------------------------------------------------------------------

def _reference(scores, idx, mask):
    n, m = scores.shape
    keep = ~mask
    keep[np.arange(n), idx] = True
    t = scores[np.arange(n), idx][:, None]
    gt = ((scores > t) & keep).sum(1)
    ge = ((scores >= t) & keep).sum(1)
    return 1.0 + gt, ge.astype(float), keep.sum(1)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32, np.int64])
def test_batch_and_thread_invariance_and_dtypes(dtype):
    rng = np.random.default_rng(4)
    n, m = 257, 3001
    scores = rng.integers(-20, 20, size=(n, m)).astype(dtype)  # many ties
    idx = rng.integers(0, m, n)
    mask = rng.random((n, m)) < 0.02
    ro, rp, rn = _reference(scores, idx, mask)
    results = [ranks_from_scores(scores, idx, exclude=mask, batch=b, workers=w)
               for b, w in ((None, 1), (1, 1), (10, 2), (300, 2), (64, -1))]
    for r in results:
        np.testing.assert_array_equal(r.optimistic, ro)
        np.testing.assert_array_equal(r.pessimistic, rp)
        np.testing.assert_array_equal(r.n_candidates, rn)
        assert r.optimistic.dtype == np.float64


def test_small_candidate_sets_and_non_contiguous_input():
    rng = np.random.default_rng(9)
    base = rng.normal(size=(50, 14)).round(1)
    scores = base[:, ::2]  # strided view, 7 candidates
    idx = rng.integers(0, 7, 50)
    ro, rp, rn = _reference(scores, idx, np.zeros(scores.shape, bool))
    r = ranks_from_scores(scores, idx)
    np.testing.assert_array_equal(r.optimistic, ro)
    np.testing.assert_array_equal(r.pessimistic, rp)


def test_negatives_equal_dense_matrix_with_true_column():
    rng = np.random.default_rng(2)
    pos = rng.integers(0, 5, 100).astype(np.float32)
    neg = rng.integers(0, 5, (100, 40)).astype(np.float32)
    dense = np.concatenate([pos[:, None], neg], axis=1)
    a = ranks_from_negatives(pos, neg)
    b = ranks_from_scores(dense, np.zeros(100, dtype=np.int64))
    np.testing.assert_array_equal(a.optimistic, b.optimistic)
    np.testing.assert_array_equal(a.pessimistic, b.pessimistic)
    assert np.all(a.n_candidates == 41)
    # OGB/TGB formula, transcribed: 0.5 * ((neg > pos).sum(1) + (neg >= pos).sum(1)) + 1
    ogb = 0.5 * ((neg > pos[:, None]).sum(1) + (neg >= pos[:, None]).sum(1)) + 1
    np.testing.assert_array_equal(a.realistic, ogb)


def test_nonfinite_scores():
    scores = np.array([[0.3, np.nan, 0.1, 0.2],
                       [0.5, 0.4, -np.inf, 0.6],
                       [np.inf, 0.2, 0.3, 0.4]])
    idx = [0, 1, 3]
    with pytest.raises(ValueError, match=r"`scores` is NaN at row 0, column 1.*nonfinite"):
        ranks_from_scores(scores, idx)
    with pytest.raises(ValueError, match=r"`scores` is -inf at row 0, column 2"):
        ranks_from_scores(scores[1:], idx[1:])  # rows renumbered from 0
    r = ranks_from_scores(scores, idx, nonfinite="exclude")
    # row 0: {0.3 true, 0.1, 0.2} -> o = p = 1, N = 3; row 1: {0.5, 0.4 true, 0.6} -> 3, N = 3
    # row 2: +inf is an ordinary score: o = 2, p = 2, N = 4
    assert r.optimistic.tolist() == [1.0, 3.0, 2.0]
    assert r.pessimistic.tolist() == [1.0, 3.0, 2.0]
    assert r.n_candidates.tolist() == [3, 3, 4]
    # NaN at a filtered position is fine without opting in
    r2 = ranks_from_scores(scores[:1], [0], exclude=[(0, 1)])
    assert r2.n_candidates.tolist() == [3]
    # a true candidate scoring NaN / -inf always raises
    with pytest.raises(ValueError, match="true candidate of query 0 is nan"):
        ranks_from_scores(scores[:1], [1], nonfinite="exclude")
    with pytest.raises(ValueError, match="`positive` of query 1 is -inf"):
        ranks_from_negatives([0.1, -np.inf], [[0.2], [0.3]])
    # errors name the first bad row whatever the chunking and threads
    big = np.zeros((100, 10))
    big[[70, 30], [3, 4]] = np.nan
    for batch, workers in ((1, 2), (7, 2), (None, 1)):
        with pytest.raises(ValueError, match="row 30, column 4"):
            ranks_from_scores(big, np.zeros(100, dtype=np.int64), batch=batch,
                              workers=workers)


def test_extra_memory_is_a_small_fraction_of_the_matrix():
    rng = np.random.default_rng(0)
    scores = rng.standard_normal((4000, 5000), dtype=np.float32)  # 80 MB
    idx = rng.integers(0, 5000, 4000)
    pairs = np.stack([np.repeat(np.arange(4000), 3), rng.integers(0, 5000, 12000)], 1)
    tracemalloc.start()
    try:
        ranks_from_scores(scores, idx, exclude=pairs)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 0.1 * scores.nbytes


# --------------------------------------------------------------------------
# the result object
# --------------------------------------------------------------------------

def test_from_ranks_and_baselines():
    # PyKEEN-style realistic ranks (may end in .5) are kept as they are
    r = LinkPredictionRanks.from_ranks([1, 2.5, 4], n_candidates=[10, 20, 30])
    for ties in ("optimistic", "pessimistic", "realistic", "expected"):
        np.testing.assert_array_equal(r.rank(ties), [1, 2.5, 4])
    assert r.mrr("expected") == pytest.approx((1 + 1 / 2.5 + 1 / 4) / 3)
    assert r.expected_mrr() == pytest.approx(expected_mrr([10, 20, 30]))
    e = r.expected_mrr()
    assert r.adjusted_mrr() == pytest.approx((r.mrr() - e) / (1 - e))
    res = r.baseline_test()
    ref = random_baseline_test(r.reciprocal_rank(), [10, 20, 30])
    assert res.pvalue == ref.pvalue and res.method == "exact"
    frame = r.to_frame()
    assert list(frame.columns) == ["optimistic", "pessimistic", "realistic", "expected_rr",
                                   "n_candidates"]
    s = r.summary(ks=(1, 3))
    assert s["Hits@3"] == pytest.approx(2 / 3) and s["MRR"] == pytest.approx(r.mrr())
    both = LinkPredictionRanks.concatenate([r, r])
    assert len(both) == 6 and both.n_candidates.tolist() == [10, 20, 30] * 2

    # a resolved rank of 2.5 is not a hit at 2 under any convention
    assert r.hits(2, "expected").tolist() == [1.0, 0.0, 0.0]

    t = LinkPredictionRanks.from_ranks([2, 1], pessimistic=[4, 1])
    assert t.mean_rank("realistic") == pytest.approx(2.0)
    assert t.hits_at(3, "expected") == pytest.approx((2 / 3 + 1) / 2)
    with pytest.raises(ValueError, match="`n_candidates`"):
        t.expected_mrr()
    with pytest.raises(ValueError, match="whole numbers"):
        LinkPredictionRanks.from_ranks([2.5], pessimistic=[3])
    with pytest.raises(ValueError, match="optimistic <= pessimistic"):
        LinkPredictionRanks.from_ranks([3], pessimistic=[2])
    with pytest.raises(ValueError, match="`n_candidates` must be whole numbers >="):
        LinkPredictionRanks.from_ranks([3], n_candidates=[2])
    with pytest.raises(ValueError, match="`ties`"):
        t.rank("average")
    with pytest.raises(ValueError, match="`k`"):
        t.hits(0)
    with pytest.raises(AttributeError):
        t.optimistic = np.array([1.0])  # frozen
    with pytest.raises(ValueError):
        t.optimistic[0] = 5.0  # read-only arrays


def test_input_validation_messages():
    s = np.zeros((3, 4))
    with pytest.raises(ValueError, match="`scores` must be a 2-D array"):
        ranks_from_scores(np.zeros(4), [0])
    with pytest.raises(TypeError, match="`scores` must hold real numbers"):
        ranks_from_scores(s.astype(bool), [0, 0, 0])
    with pytest.raises(ValueError, match="`true_index` must be 1-D with one entry per row"):
        ranks_from_scores(s, [0, 0])
    with pytest.raises(ValueError, match=r"`true_index` must lie in \[0, 4\)"):
        ranks_from_scores(s, [0, 0, 4])
    with pytest.raises(TypeError, match="`true_index` must hold integers"):
        ranks_from_scores(s, [0.0, 1.0, 2.0])
    with pytest.raises(ValueError, match="`exclude` as a boolean mask must have the shape"):
        ranks_from_scores(s, [0, 0, 0], exclude=np.zeros((3, 3), bool))
    with pytest.raises(ValueError, match="`exclude` pairs must lie within"):
        ranks_from_scores(s, [0, 0, 0], exclude=[(3, 0)])
    with pytest.raises(ValueError, match=r"`exclude` must be a boolean mask"):
        ranks_from_scores(s, [0, 0, 0], exclude=[1, 2, 3])
    with pytest.raises(ValueError, match="`nonfinite`"):
        ranks_from_scores(s, [0, 0, 0], nonfinite="ignore")
    with pytest.raises(ValueError, match="`batch`"):
        ranks_from_scores(s, [0, 0, 0], batch=0)
    with pytest.raises(ValueError, match="`workers`"):
        ranks_from_scores(s, [0, 0, 0], workers=0)
    with pytest.raises(ValueError, match="`positive` must hold one score per row"):
        ranks_from_negatives([1.0], s)


def test_sparse_exclusion():
    sparse = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(1)
    scores = rng.integers(0, 4, (30, 20)).astype(float)
    idx = rng.integers(0, 20, 30)
    mask = rng.random((30, 20)) < 0.2
    a = ranks_from_scores(scores, idx, exclude=mask)
    b = ranks_from_scores(scores, idx, exclude=sparse.csr_matrix(mask))
    np.testing.assert_array_equal(a.pessimistic, b.pessimistic)
    np.testing.assert_array_equal(a.n_candidates, b.n_candidates)


def test_torch_cpu_tensor_input():
    torch = pytest.importorskip("torch")
    scores = torch.tensor([[0.9, 0.5, 0.5, 0.1], [0.1, 0.2, 0.3, 0.4]])
    r = ranks_from_scores(scores, torch.tensor([1, 3]))
    assert r.optimistic.tolist() == [2.0, 1.0] and r.pessimistic.tolist() == [3.0, 1.0]
