"""Tie conventions: hand-made fixtures and brute force over all tie-breaks."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import mrrstats
from mrrstats.numerics import harmonic

# One query. d0 (grade 0) scores 0.9 alone at rank 1; then d1..d4 tie at 0.5 on
# ranks 2..5; only d2 is relevant. The rank column puts d2 at rank 3.
#   trec_eval: ties by doc id descending -> d4, d3, d2, d1: d2 at rank 4, RR = 1/4
#   rank:      rank column order d0, d1, d2, ...: d2 at rank 3, RR = 1/3
#   optimistic: rank 1 + #higher = 2, RR = 1/2
#   pessimistic: rank #(score >= 0.5) = 5, RR = 1/5
#   realistic: (2 + 5) / 2 = 3.5, RR = 2/7
#   expected: d2 uniform on ranks 2..5: (H(5) - H(1)) / 4 = (137/60 - 1) / 4 = 77/240
QRELS = {"q": {"d0": 0, "d2": 1, "d3": 0}}
RUN_ROWS = [("d0", 1, 0.9), ("d1", 2, 0.5), ("d2", 3, 0.5), ("d3", 4, 0.5), ("d4", 5, 0.5)]
EXPECTED_RR = {
    "trec_eval": 1 / 4,
    "rank": 1 / 3,
    "optimistic": 1 / 2,
    "pessimistic": 1 / 5,
    "realistic": 2 / 7,
    "expected": 77 / 240,
}


def _run_frame(rows, query="q"):
    import pandas as pd

    return pd.DataFrame({"query": query, "doc": [r[0] for r in rows],
                         "rank": [r[1] for r in rows], "score": [r[2] for r in rows]})


@pytest.mark.parametrize("ties", mrrstats.TIES)
def test_each_convention_gives_its_own_rr(ties):
    ev = mrrstats.evaluate(QRELS, _run_frame(RUN_ROWS), ["RR"], ties=ties)
    assert ev.aggregate().iloc[0]["RR"] == pytest.approx(EXPECTED_RR[ties], rel=1e-12)


def test_all_conventions_differ():
    assert len(set(EXPECTED_RR.values())) == len(mrrstats.TIES)


def test_expected_matches_issue_formula_single_relevant():
    # (H(p) - H(o-1)) / (p - o + 1) with o = 2, p = 5
    assert EXPECTED_RR["expected"] == pytest.approx((harmonic(5) - harmonic(1)) / 4)
    # and it is not 1/realistic rank
    assert EXPECTED_RR["expected"] != pytest.approx(EXPECTED_RR["realistic"])


def test_expected_two_relevant_in_tie():
    # d1..d4 tie on ranks 2..5 with d1 and d3 relevant (r = 2, m = 4):
    # P(K=1) = C(3,1)/C(4,2) = 3/6, P(K=2) = 2/6, P(K=3) = 1/6, so
    # E[RR] = (3/6)/2 + (2/6)/3 + (1/6)/4 = 29/72.
    qrels = {"q": {"d1": 1, "d3": 2}}
    ev = mrrstats.evaluate(qrels, _run_frame(RUN_ROWS), ["RR", "Rank"], ties="expected")
    assert ev.aggregate().iloc[0]["RR"] == pytest.approx(29 / 72, rel=1e-12)
    # E[first rank] = 1 + (m + 1) / (r + 1) = 1 + 5/3
    assert ev.values[ev.runs[0]]["Rank"].iloc[0] == pytest.approx(8 / 3)


def test_realistic_rank_is_pykeen_definition():
    # PyKEEN/OGB/TGB: optimistic = 1 + #(score > s*), pessimistic = #(score >= s*),
    # realistic = their mean. Here o = 2, p = 5 -> 3.5.
    ev = mrrstats.evaluate(QRELS, _run_frame(RUN_ROWS), ["Rank"], ties="realistic")
    assert ev.values[ev.runs[0]]["Rank"].iloc[0] == 3.5
    with pytest.raises(ValueError, match="realistic"):
        mrrstats.evaluate(QRELS, _run_frame(RUN_ROWS), ["AP"], ties="realistic")


def _brute_force(scores, grades, judged, measure):
    """All orders consistent with the scores: returns the list of measure values."""
    scores = np.asarray(scores)
    levels = sorted(set(scores.tolist()), reverse=True)
    groups = [np.flatnonzero(scores == s) for s in levels]
    values = []
    for perms in itertools.product(*(itertools.permutations(g) for g in groups)):
        order = np.concatenate([np.asarray(p) for p in perms])
        ranked = np.asarray(grades, dtype=float)[order]
        values.append(mrrstats.score_rankings([ranked], [measure], judged=[judged]).iloc[0, 0])
    return np.asarray(values)


MEASURES = ["RR", "RR@3", "AP", "AP@4", "nDCG", "nDCG@3", "P@3", "R@2", "Success@2",
            "RR(rel=2)"]


@pytest.mark.parametrize("seed", range(12))
def test_expected_optimistic_pessimistic_against_all_tie_breaks(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 8))
    scores = rng.integers(0, 3, size=n).astype(float)  # heavy ties
    grades = rng.choice([np.nan, 0, 1, 2], size=n, p=[0.3, 0.3, 0.25, 0.15])
    docs = [f"d{i}" for i in range(n)]
    judged = [g for g in grades if not np.isnan(g)] + [1] * int(rng.integers(0, 2))
    qrels = {"q": {d: int(g) for d, g in zip(docs, grades, strict=True) if not np.isnan(g)}}
    if rng.integers(0, 2):  # sometimes a relevant document that was not retrieved
        qrels["q"]["unretrieved"] = 1
    judged = list(qrels["q"].values())
    run = {"q": dict(zip(docs, scores.tolist(), strict=True))}
    for measure in MEASURES:
        values = _brute_force(scores, grades, judged, measure)
        for ties, want in (("expected", values.mean()), ("optimistic", values.max()),
                           ("pessimistic", values.min())):
            ev = mrrstats.evaluate(qrels, run, [measure], ties=ties)
            got = ev.aggregate().iloc[0, 0]
            assert got == pytest.approx(want, rel=1e-10, abs=1e-12), (measure, ties)


def test_trec_eval_tie_break_is_docno_descending_bytes():
    # Among tied documents trec_eval puts the larger doc id (strcmp) first:
    # "b" > "a", "a" > "B" (bytes), "10" < "9".
    run = {"q": {"a": 1.0, "b": 1.0, "B": 1.0, "9": 1.0, "10": 1.0}}
    ranked = mrrstats.rank_run({"q": {"a": 1}}, run)
    assert list(ranked.doc_ids()[0]) == ["b", "a", "B", "9", "10"]


def test_rank_convention_orders_by_rank_column():
    ranked = mrrstats.rank_run(QRELS, _run_frame(RUN_ROWS)[::-1], ties="rank")
    assert list(ranked.doc_ids()[0]) == ["d0", "d1", "d2", "d3", "d4"]


def test_big_tie_groups_and_big_runs_follow_trec_eval_order():
    """Tie groups of 200 (past the local boundary scan) in a 75,000-row run: the ranking
    equals a plain Python sort by (score descending, doc id descending)."""
    import pandas as pd

    rng = np.random.default_rng(7)
    rows = []
    qrels = {}
    for q in ("q1", "q2", "q3"):
        docs = [f"D{int(x):07d}" for x in rng.choice(10**7, size=25_000, replace=False)]
        scores = np.repeat(np.arange(125, dtype=float)[::-1], 200)  # groups of 200 ties
        rows += [(q, d, s) for d, s in zip(docs, scores, strict=True)]
        judged = rng.choice(25_000, size=40, replace=False)
        qrels[q] = {docs[i]: int(rng.integers(0, 3)) for i in judged}
    run = pd.DataFrame(rows, columns=["query", "doc", "score"])
    ev = mrrstats.evaluate(qrels, run, ["RR", "AP", "nDCG@100"])
    ranked = mrrstats.rank_run(qrels, run)
    for qi, q in enumerate(("q1", "q2", "q3")):
        sub = [(d, s) for qq, d, s in rows if qq == q]
        order = sorted(sub, key=lambda x: (-x[1], tuple(-ord(c) for c in x[0])))
        assert list(ranked.doc_ids()[qi]) == [d for d, _ in order]
        grades = [qrels[q].get(d, np.nan) for d, _ in order]
        want = mrrstats.score_rankings([grades], ["RR", "AP", "nDCG@100"],
                                       judged=[list(qrels[q].values())])
        np.testing.assert_allclose(ev.values["run"].loc[q].to_numpy(),
                                   want.iloc[0].to_numpy(), rtol=1e-12)


@pytest.mark.parametrize("ties", ["trec_eval", "optimistic", "pessimistic"])
def test_group_order_numpy_equals_arrow_sort(ties, monkeypatch):
    """_group_order sorts tie groups with numpy (fixed-width bytes, no pyarrow.compute):
    the same order as Arrow's stable sort_indices, on UTF-8 ids that are prefixes of
    each other, equal ids in different groups, equal grades, NaN-free effective grades;
    ids holding a NUL byte take Arrow's sort."""
    import pyarrow as pa

    from mrrstats.model import ranking as ranking_module

    monkeypatch.setattr(ranking_module, "compute_imported", lambda: False)
    rng = np.random.default_rng(3)
    alphabet = list("ab0é\u6f22")
    for n in (0, 1, 7, 500):
        gid = np.sort(rng.integers(0, max(n // 5, 1), size=n))
        ids = ["".join(rng.choice(alphabet, size=rng.integers(1, 5))) for _ in range(n)]
        docs = pa.chunked_array([pa.array(ids[: n // 2], pa.string()),
                                 pa.array(ids[n // 2:], pa.string())])
        eff = (rng.integers(0, 3, size=n).astype(float) if ties != "trec_eval" else None)
        got = ranking_module._group_order(gid, docs, eff, ties)
        monkeypatch.setattr(ranking_module, "_NUMPY_SORT_BYTES", -1)
        ref = ranking_module._group_order(gid, docs, eff, ties)
        monkeypatch.setattr(ranking_module, "_NUMPY_SORT_BYTES", 1 << 27)
        assert got.tolist() == ref.tolist()
    nul = pa.array(["a\x00", "a", "b"])
    assert ranking_module._group_order(np.zeros(3, np.int64), nul, None, ties).tolist() == \
        [2, 0, 1]


def test_same_strings_confirms_hash_matches_on_the_ids():
    import pyarrow as pa

    from mrrstats.model.ranking import _same_strings

    a = pa.array(["d1", "é", ""])
    assert _same_strings(a, pa.array(["d1", "é", ""]))
    assert not _same_strings(a, pa.array(["d1", "e", ""]))
    assert _same_strings(a, pa.array(["d1", "é", ""], pa.large_string()))
    assert not _same_strings(a, pa.array(["d1", "é", "x"], pa.large_string()))
    assert _same_strings(pa.chunked_array([["d1"], ["é", ""]]), a)
