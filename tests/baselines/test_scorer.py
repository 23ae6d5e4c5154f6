"""ranks_from_scorer: the ranks of ranks_from_scores on the full matrix, a batch of candidates
at a time."""

from __future__ import annotations

import numpy as np
import pytest

from mrrstats import LinkPredictionRanks, ranks_from_scorer, ranks_from_scores
from mrrstats.datasets import kg_graph


def tie_scorer(graph, dtype=np.float32):
    """A deterministic DistMult-like scorer with many ties (scores rounded to 1/4)."""
    rng = np.random.default_rng(0)
    E = rng.normal(size=(graph.n_entities, 8))
    R = rng.normal(size=(graph.n_relations, 8))

    def full(hr):
        s = (E[hr[:, 0]] * R[hr[:, 1]]) @ E.T
        return (np.round(s * 4) / 4).astype(dtype)

    return full, (lambda hr, cand: full(hr)[:, cand])


def filtered_pairs(graph, test):
    """(row, tail) pairs of every known true triple with the test row's head and relation."""
    known = np.concatenate([graph.train, graph.valid, graph.test])
    key = {}
    for h, r, t in known:
        key.setdefault((h, r), []).append(t)
    return np.array([(i, t) for i, (h, r, _) in enumerate(test) for t in key[(h, r)]])


def assert_same_ranks(a: LinkPredictionRanks, b: LinkPredictionRanks):
    assert np.array_equal(a.optimistic, b.optimistic)
    assert np.array_equal(a.pessimistic, b.pessimistic)
    assert np.array_equal(a.n_candidates, b.n_candidates)


@pytest.mark.parametrize("name", ["nations", "kinship"])
@pytest.mark.parametrize("candidate_batch,batch", [(1, 7), (5, 1), (13, 64), (10_000, 10_000)])
def test_matches_full_matrix(name, candidate_batch, batch):
    g = kg_graph(name)
    full, score_fn = tie_scorer(g)
    hr, tails = g.test[:, :2], g.test[:, 2]
    S = full(hr)
    pairs = filtered_pairs(g, g.test)
    for exclude in (None, pairs):
        ref = ranks_from_scores(S, tails, exclude=exclude)
        got = ranks_from_scorer(score_fn, hr, tails, n_candidates=g.n_entities,
                                exclude=exclude, candidate_batch=candidate_batch,
                                batch=batch)
        assert_same_ranks(got, ref)
    # the ties are real: optimistic and pessimistic ranks differ somewhere
    assert np.any(ref.optimistic != ref.pessimistic)


def test_nonfinite_scores():
    g = kg_graph("nations")
    full, _ = tie_scorer(g, np.float64)
    hr, tails = g.test[:, :2], g.test[:, 2]
    S = full(hr)
    S[S == S.max()] = np.nan
    S[3, (tails[3] + 1) % g.n_entities] = -np.inf
    S[np.arange(len(tails)), tails] = np.where(np.isnan(S[np.arange(len(tails)), tails]), 0.0,
                                               S[np.arange(len(tails)), tails])
    ref = ranks_from_scores(S, tails, nonfinite="exclude")
    got = ranks_from_scorer(lambda q, c: S[q][:, c], np.arange(len(tails)), tails,
                            n_candidates=g.n_entities, nonfinite="exclude", candidate_batch=4, batch=16)
    assert_same_ranks(got, ref)
    with pytest.raises(ValueError, match="NaN or -inf"):
        ranks_from_scorer(lambda q, c: S[q][:, c], np.arange(len(tails)), tails,
                          n_candidates=g.n_entities, candidate_batch=4)


def test_torch_scores_on_their_device():
    torch = pytest.importorskip("torch")
    g = kg_graph("kinship")
    full, _ = tie_scorer(g)
    hr, tails = g.test[:, :2], g.test[:, 2]
    S = full(hr)
    St = torch.as_tensor(S)
    got = ranks_from_scorer(lambda q, c: St[torch.as_tensor(q)][:, torch.as_tensor(c)],
                            np.arange(len(tails)), tails, n_candidates=g.n_entities, candidate_batch=17)
    assert_same_ranks(got, ranks_from_scores(S, tails))


def test_batches_mapped_over_dask():
    dask = pytest.importorskip("dask")
    g = kg_graph("kinship")
    full, score_fn = tie_scorer(g)
    hr, tails = g.test[:, :2], g.test[:, 2]
    ref = ranks_from_scores(full(hr), tails)
    blocks = [(s, min(s + 300, len(tails))) for s in range(0, len(tails), 300)]
    parts = dask.compute(*[dask.delayed(ranks_from_scorer)(
        score_fn, hr[s:e], tails[s:e], n_candidates=g.n_entities, candidate_batch=32)
        for s, e in blocks], scheduler="threads")
    assert_same_ranks(LinkPredictionRanks.concatenate(parts), ref)


def test_bad_arguments():
    def f(q, c):
        return np.zeros((len(q), len(c)))

    with pytest.raises(TypeError, match="score_fn"):
        ranks_from_scorer(None, [0], [0], n_candidates=2)
    with pytest.raises(ValueError, match="true_index"):
        ranks_from_scorer(f, [0], [5], n_candidates=2)
    with pytest.raises(ValueError, match="queries"):
        ranks_from_scorer(f, [0, 1], [0], n_candidates=2)
    with pytest.raises(ValueError, match="exclude"):
        ranks_from_scorer(f, [0], [0], n_candidates=2, exclude=[(0, 9)])
    with pytest.raises(ValueError, match="shape"):
        ranks_from_scorer(lambda q, c: np.zeros((1, 1)), [0], [0], n_candidates=3,
                          candidate_batch=2)
    with pytest.raises(ValueError, match="candidate_batch"):
        ranks_from_scorer(f, [0], [0], n_candidates=2, candidate_batch=0)
    with pytest.raises(ValueError, match="workers"):
        ranks_from_scorer(f, [0], [0], n_candidates=2, workers=0)


@pytest.mark.parametrize("lib", ["numpy", "torch"])
def test_default_candidate_batch_is_sized_from_the_free_memory(lib, monkeypatch):
    """candidate_batch=None: candidates per call such that batch x candidate_batch scores and
    their temporaries (devices.BYTES_PER_SCORE each) take half of the free memory where
    the scores live (faked here), then the same ranks."""
    from mrrstats import devices

    g = kg_graph("kinship")
    full, _ = tie_scorer(g)
    hr, tails = g.test[:, :2], g.test[:, 2]
    S = full(hr)
    if lib == "torch":
        torch = pytest.importorskip("torch")
        St = torch.as_tensor(S)

        def table(q, c):
            return St[torch.as_tensor(q)][:, torch.as_tensor(c)]
    else:
        def table(q, c):
            return S[q][:, c]
    widths, seen = [], []

    def score_fn(q, c):
        widths.append(len(c))
        out = table(q, c)
        seen.append(type(out))
        return out

    batch, fit = 16, 9  # room for 16 x 9 scores in half the (fake) free memory
    free = 2 * devices.BYTES_PER_SCORE * batch * fit + devices.BYTES_PER_SCORE
    monkeypatch.setattr(devices, "free_bytes", lambda a: free)
    got = ranks_from_scorer(score_fn, np.arange(len(tails)), tails, n_candidates=g.n_entities,
                            batch=batch)
    assert_same_ranks(got, ranks_from_scores(S, tails))
    assert widths[0] == 1  # the call that tells where the scores live
    assert max(widths[1:]) == fit and min(widths[1:]) >= g.n_entities % fit
    assert all(t is seen[0] for t in seen)
    # fewer queries than a batch: the rows of a call are the queries
    widths.clear()
    ranks_from_scorer(score_fn, np.arange(4), tails[:4], n_candidates=g.n_entities,
                      batch=batch)
    assert max(widths[1:]) == min(g.n_entities, free // 2 // (4 * devices.BYTES_PER_SCORE))


def test_retired_names_warn_and_give_the_same_ranks():
    g = kg_graph("nations")
    full, score_fn = tie_scorer(g)
    hr, tails = g.test[:, :2], g.test[:, 2]
    pairs = filtered_pairs(g, g.test)
    new = ranks_from_scorer(score_fn, hr, tails, n_candidates=g.n_entities, exclude=pairs,
                            candidate_batch=5, batch=8)
    with pytest.warns(DeprecationWarning, match=r"chunk=\) is deprecated; use candidate_batch="):
        with pytest.warns(DeprecationWarning, match=r"filter=\) is deprecated; use exclude="):
            old = ranks_from_scorer(score_fn, hr, tails, n_candidates=g.n_entities,
                                    filter=pairs, chunk=5, batch=8)
    assert_same_ranks(old, new)
    with pytest.raises(TypeError, match="both"):
        ranks_from_scorer(score_fn, hr, tails, n_candidates=g.n_entities, chunk=5,
                          candidate_batch=5)


def test_exclude_takes_every_form_of_ranks_from_scores():
    """Pairs, a boolean mask and a scipy.sparse matrix exclude the same candidates."""
    sparse = pytest.importorskip("scipy.sparse")
    g = kg_graph("nations")
    full, score_fn = tie_scorer(g)
    hr, tails = g.test[:, :2], g.test[:, 2]
    pairs = filtered_pairs(g, g.test)
    mask = np.zeros((len(tails), g.n_entities), dtype=bool)
    mask[pairs[:, 0], pairs[:, 1]] = True
    ref = ranks_from_scores(full(hr), tails, exclude=pairs)
    for exclude in (pairs, mask, sparse.csr_matrix(mask)):
        got = ranks_from_scorer(score_fn, hr, tails, n_candidates=g.n_entities,
                                exclude=exclude, candidate_batch=6, batch=32)
        assert_same_ranks(got, ref)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32, np.uint8])
def test_compiled_and_array_api_counts_agree_on_any_thread_count(dtype, monkeypatch):
    """NumPy scores are counted by the compiled kernel (threads over large calls); the
    array-API counts (the path of torch and CuPy, and of dtypes the kernel does not read)
    give the same ranks, and neither depends on `workers`, batch sizes or NaN / -inf."""
    from mrrstats.baselines import scorer

    g = kg_graph("kinship")
    full, _ = tie_scorer(g, np.float64)
    hr, tails = g.test[:, :2], g.test[:, 2]
    S = full(hr)
    if np.issubdtype(dtype, np.integer):
        S = (S - S.min()) * 4
    S = S.astype(dtype)
    if np.issubdtype(dtype, np.floating):
        S[5, (tails[5] + 3) % g.n_entities] = np.nan
        S[9, (tails[9] + 1) % g.n_entities] = -np.inf
    pairs = filtered_pairs(g, g.test)
    ref = ranks_from_scores(S, tails, exclude=pairs, nonfinite="exclude")
    monkeypatch.setattr(scorer, "_SCORES_PER_THREAD", 64)  # threads even on small calls
    monkeypatch.setattr(scorer, "_KERNEL_MIN_SCORES", 1)  # and the kernel on every call
    for workers, cb, b in ((1, 7, 33), (2, 50, 64), (-1, 104, 1000)):
        got = ranks_from_scorer(lambda q, c: S[q][:, c], np.arange(len(tails)), tails,
                                n_candidates=g.n_entities, exclude=pairs, nonfinite="exclude",
                                candidate_batch=cb, batch=b, workers=workers)
        assert_same_ranks(got, ref)
    calls = []
    monkeypatch.setattr(scorer, "KERNEL_DTYPES", frozenset())  # the array-API counts only
    monkeypatch.setattr(scorer, "_count_array_api",
                        lambda *a, f=scorer._count_array_api: calls.append(1) or f(*a))
    got = ranks_from_scorer(lambda q, c: S[q][:, c], np.arange(len(tails)), tails,
                            n_candidates=g.n_entities, exclude=pairs, nonfinite="exclude",
                            candidate_batch=50, batch=64)
    assert calls and len(calls) == 3 * -(-len(tails) // 64)
    assert_same_ranks(got, ref)
