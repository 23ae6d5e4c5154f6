"""compact_letter_display (hand-worked) and rank_intervals (simulation coverage)."""

import itertools
import math

import numpy as np
import pytest

import mrrstats
from mrrstats.stats.leaderboard import compact_letter_display, rank_intervals


def _sig(k, pairs):
    m = np.zeros((k, k), bool)
    for i, j in pairs:
        m[i, j] = m[j, i] = True
    return m


def test_letters_hand_worked():
    # A > B > C > D; A-C, A-D, B-D significant. By hand (insert-and-absorb):
    # {ABCD} -A/C-> {BCD},{ABD} -A/D-> {BCD},{AB} ({BD} absorbed) -B/D-> {CD},{BC},{AB}
    # letters by best member: {AB}=a, {BC}=b, {CD}=c
    out = compact_letter_display(_sig(4, [(0, 2), (0, 3), (1, 3)]), systems="ABCD",
                                 means=[4, 3, 2, 1])
    assert out.tolist() == ["a", "ab", "bc", "c"]
    # nothing significant: one letter; everything significant: one letter each
    assert set(compact_letter_display(_sig(3, []), means=[1, 2, 3])) == {"a"}
    allp = list(itertools.combinations(range(3), 2))
    assert compact_letter_display(_sig(3, allp), means=[1, 3, 2]).tolist() == ["c", "a", "b"]



def test_letters_properties_random():
    # every significant pair shares no letter; every non-significant pair shares one
    # (insert-and-absorb yields all maximal cliques, so both hold)
    rng = np.random.default_rng(0)
    for _ in range(50):
        k = int(rng.integers(2, 8))
        upper = rng.random((k, k)) < 0.4
        sig = np.triu(upper, 1)
        sig = sig | sig.T
        letters = compact_letter_display(sig, means=rng.random(k)).tolist()
        for i in range(k):
            for j in range(i + 1, k):
                share = bool(set(letters[i]) & set(letters[j]))
                if sig[i, j]:
                    assert not share
        # each letter group is a clique of non-significant pairs that is maximal
        groups = {}
        for s, ls in enumerate(letters):
            for c in ls:
                groups.setdefault(c, set()).add(s)
        for g in groups.values():
            assert not any(sig[i, j] for i in g for j in g)
            for o in set(range(k)) - g:
                assert any(sig[o, j] for j in g)


def test_intervals_from_decisions_formula():
    x = np.array([[0.9, 0.7, 0.5, 0.1]]) + np.zeros((5, 1))
    sig = _sig(4, [(0, 2), (0, 3), (1, 3)])
    ri = rank_intervals(x.T, decisions=sig)
    # rank interval = [1 + #significantly better, k - #significantly worse]
    assert ri.low.tolist() == [1, 1, 2, 3]
    assert ri.high.tolist() == [2, 3, 4, 4]
    assert list(ri.letters) == ["a", "ab", "bc", "c"]


def test_intervals_from_randomized_tukey():
    rng = np.random.default_rng(3)
    x = rng.normal(0, 1, (40, 1)) + [0.0, 0.1, 0.8, 0.9] + rng.normal(0, 0.4, (40, 4))
    hsd = mrrstats.randomized_tukey_hsd(x.T, n_resamples=999, rng=1)
    ri = rank_intervals(x.T, decisions=hsd)
    assert ri.method == hsd.test and np.all(ri.low <= ri.rank) and np.all(ri.rank <= ri.high)


def test_batch_invariance_and_seed():
    rng = np.random.default_rng(5)
    x = rng.normal(0, 1, (30, 5)) + np.arange(5) * 0.2
    a = rank_intervals(x.T, n_resamples=500, rng=7)
    b = rank_intervals(x.T, n_resamples=500, rng=7, batch=3)
    assert a.critical_value == b.critical_value
    assert a.low.tolist() == b.low.tolist() and a.high.tolist() == b.high.tolist()


def test_lower_is_better_measure():
    x = np.array([[1.0, 3.0, 9.0]]) + np.random.default_rng(0).normal(0, 0.1, (20, 3))
    import pandas as pd

    f = pd.DataFrame(x, columns=["a", "b", "c"])
    f.attrs["measure"] = "Rank"
    ri = rank_intervals(f, n_resamples=300, rng=1)
    assert ri.rank.tolist() == [1, 2, 3] and ri.high.tolist() == [1, 2, 3]


@pytest.mark.slow
def test_rank_interval_simultaneous_coverage():
    # 200 simulated experiments, k = 5 systems with distinct true means, query effects;
    # simultaneous coverage of all true ranks must be >= 0.95 within 3 binomial SEs
    rng = np.random.default_rng(2024)
    mu = np.array([0.0, 0.05, 0.1, 0.3, 0.32])
    true_rank = 1 + np.argsort(np.argsort(-mu))
    reps, cover = 200, 0
    for r in range(reps):
        x = rng.normal(0, 1, (50, 1)) + mu + rng.normal(0, 0.3, (50, 5))
        ri = rank_intervals(x.T, n_resamples=400, rng=r)
        cover += np.all((ri.low <= true_rank) & (true_rank <= ri.high))
    se = math.sqrt(0.95 * 0.05 / reps)
    assert cover / reps >= 0.95 - 3 * se


def test_cli_leaderboard(capsys, tmp_path):
    from mrrstats.cli import main

    rng = np.random.default_rng(0)
    x = rng.normal(0, 1, (30, 1)) + [0.0, 0.1, 1.0] + rng.normal(0, 0.2, (30, 3))
    import pandas as pd

    path = tmp_path / "scores.csv"
    pd.DataFrame(x, columns=["a", "b", "c"], index=pd.Index(
        [f"q{i}" for i in range(30)], name="query")).to_csv(path)
    assert main(["leaderboard", "--scores", str(path), "--seed", "1",
                 "--n-resamples", "500"]) == 0
    out = capsys.readouterr().out
    ref = rank_intervals(pd.read_csv(path, index_col=0), n_resamples=500, rng=1)
    assert f"critical |t| = {ref.critical_value:.3f}" in out
    assert out.splitlines()[3].split()[0] == "c"
    assert main(["leaderboard"]) == 2
