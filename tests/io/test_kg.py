"""kg_filter: the filtered protocol's known answers, from triples (real graphs)."""

from __future__ import annotations

import numpy as np
import pytest

import mrrstats
from mrrstats import InputError, datasets, kg_filter, ranks_from_scores


def _loop_filter(train, valid, test, side):
    """Reference: a plain dict of known answers (the filtered protocol's definition)."""
    known = {}
    for h, r, t in np.concatenate([train, valid, test]):
        key, ans = ((h, r), t) if side == "tail" else ((t, r), h)
        known.setdefault((int(key[0]), int(key[1])), set()).add(int(ans))
    pairs = set()
    for i, (h, r, t) in enumerate(test):
        key = (int(h), int(r)) if side == "tail" else (int(t), int(r))
        pairs.update((i, a) for a in known[key])
    return pairs


@pytest.mark.parametrize("side", ["tail", "head"])
def test_kg_filter_matches_loop_on_nations(side):
    g = datasets.kg_graph("nations")
    f = kg_filter(g.train, g.valid, g.test, side=side)
    assert set(map(tuple, f.exclude.tolist())) == _loop_filter(g.train, g.valid, g.test, side)
    col = 2 if side == "tail" else 0
    np.testing.assert_array_equal(f.true_index, g.test[:, col])
    # feeds ranks_from_scores: filtered ranks equal a loop over candidates
    rng = np.random.default_rng(7)
    scores = rng.normal(size=(f.n_queries, g.n_entities)).round(1)  # with ties
    ranks = ranks_from_scores(scores, f.true_index, exclude=f.exclude)
    excl = {}
    for i, c in f.exclude.tolist():
        excl.setdefault(i, set()).add(c)
    for i in range(0, f.n_queries, 17):
        t = f.true_index[i]
        keep = [c for c in range(g.n_entities) if c == t or c not in excl[i]]
        s = scores[i, keep]
        assert ranks.optimistic[i] == 1 + np.sum(s > scores[i, t])
        assert ranks.pessimistic[i] == np.sum(s >= scores[i, t])


def test_kg_filter_from_label_files(tmp_path):
    g = datasets.kg_graph("nations")
    paths = []
    for name, ids in (("train", g.train), ("valid", g.valid), ("test", g.test)):
        path = tmp_path / f"{name}.txt"
        path.write_text("".join(f"{g.entities[h]}\t{g.relations[r]}\t{g.entities[t]}\n"
                                for h, r, t in ids))
        paths.append(path)
    f = kg_filter(*paths)
    ref = kg_filter(g.train, g.valid, g.test)
    # labels are re-numbered in sorted order; the graph's own ids are sorted labels too
    if f.entities == tuple(g.entities) and f.relations == tuple(g.relations):
        np.testing.assert_array_equal(f.exclude, ref.exclude)
    ent = np.asarray(f.entities, dtype=object)
    got = {(i, ent[c]) for i, c in f.exclude.tolist()}
    want = {(i, g.entities[c]) for i, c in ref.exclude.tolist()}
    assert got == want


def test_kg_filter_errors(tmp_path):
    with pytest.raises(ValueError, match="side"):
        kg_filter([(0, 0, 1)], None, [(0, 0, 1)], side="either")
    with pytest.raises(ValueError, match=r"shape \(n, 3\)"):
        kg_filter([(0, 1)], None, [(0, 0, 1)])
    bad = tmp_path / "bad.txt"
    bad.write_text("a r b\nc r\n")
    with pytest.raises(InputError, match="bad.txt"):
        kg_filter(bad, None, [("a", "r", "b")])
    assert mrrstats.KGFilter is type(kg_filter([(0, 0, 1)], None, [(0, 0, 1)]))
