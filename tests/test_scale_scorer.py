"""ranks_from_scorer: the ranks of ranks_from_scores on the full matrix, chunk by chunk."""

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
@pytest.mark.parametrize("chunk,batch", [(1, 7), (5, 1), (13, 64), (10_000, 10_000)])
def test_matches_full_matrix(name, chunk, batch):
    g = kg_graph(name)
    full, score_fn = tie_scorer(g)
    hr, tails = g.test[:, :2], g.test[:, 2]
    S = full(hr)
    pairs = filtered_pairs(g, g.test)
    for exclude in (None, pairs):
        ref = ranks_from_scores(S, tails, exclude=exclude)
        got = ranks_from_scorer(score_fn, hr, tails, n_candidates=g.n_entities,
                                filter=exclude, chunk=chunk, batch=batch)
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
                            n_candidates=g.n_entities, nonfinite="exclude", chunk=4, batch=16)
    assert_same_ranks(got, ref)
    with pytest.raises(ValueError, match="NaN or -inf"):
        ranks_from_scorer(lambda q, c: S[q][:, c], np.arange(len(tails)), tails,
                          n_candidates=g.n_entities, chunk=4)


def test_torch_scores_on_their_device():
    torch = pytest.importorskip("torch")
    g = kg_graph("kinship")
    full, _ = tie_scorer(g)
    hr, tails = g.test[:, :2], g.test[:, 2]
    S = full(hr)
    St = torch.as_tensor(S)
    got = ranks_from_scorer(lambda q, c: St[torch.as_tensor(q)][:, torch.as_tensor(c)],
                            np.arange(len(tails)), tails, n_candidates=g.n_entities, chunk=17)
    assert_same_ranks(got, ranks_from_scores(S, tails))


def test_chunks_mapped_over_dask():
    dask = pytest.importorskip("dask")
    g = kg_graph("kinship")
    full, score_fn = tie_scorer(g)
    hr, tails = g.test[:, :2], g.test[:, 2]
    ref = ranks_from_scores(full(hr), tails)
    blocks = [(s, min(s + 300, len(tails))) for s in range(0, len(tails), 300)]
    parts = dask.compute(*[dask.delayed(ranks_from_scorer)(
        score_fn, hr[s:e], tails[s:e], n_candidates=g.n_entities, chunk=32)
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
    with pytest.raises(ValueError, match="filter"):
        ranks_from_scorer(f, [0], [0], n_candidates=2, filter=[(0, 9)])
    with pytest.raises(ValueError, match="shape"):
        ranks_from_scorer(lambda q, c: np.zeros((1, 1)), [0], [0], n_candidates=3, chunk=2)
    with pytest.raises(ValueError, match="chunk"):
        ranks_from_scorer(f, [0], [0], n_candidates=2, chunk=0)
