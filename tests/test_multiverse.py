"""multiverse: numbers equal direct evaluate()/pairwise_tests() calls; changes vs reference."""

import numpy as np
import pytest

import mrrstats
from mrrstats.cli import main


@pytest.fixture(scope="module")
def cast():
    d = mrrstats.datasets.cast2021()
    return d.qrels, list(d.runs)


def test_multiverse_matches_direct_calls(cast):
    qrels, runs = cast
    mv = mrrstats.multiverse(qrels, runs, "RR", ties=("trec_eval", "pessimistic"),
                             queries=("both",), rels=(1, 3), cutoffs=(None, 10))
    assert len(mv.summary) == 2 * 2 * 2
    for ties, rel, cutoff in [("pessimistic", 3, 10), ("trec_eval", 1, None)]:
        name = "RR" if cutoff is None else f"RR@{cutoff}"
        ev = mrrstats.evaluate(qrels, runs, [name], ties=ties, rel=rel, queries="both")
        frame = ev.scores(name)
        sel = mv.systems[(mv.systems.ties == ties) & (mv.systems.rel == rel)
                         & (mv.systems.cutoff == ("none" if cutoff is None else cutoff))]
        np.testing.assert_allclose(sel.set_index("system")["mean"].loc[frame.columns],
                                   frame.mean(axis=0).to_numpy(), rtol=0, atol=1e-12)
        pw = mrrstats.pairwise_tests(frame, test="t", correction="holm", missing="drop")
        selp = mv.pairs[(mv.pairs.ties == ties) & (mv.pairs.rel == rel)
                        & (mv.pairs.cutoff == ("none" if cutoff is None else cutoff))]
        assert selp["significant"].tolist() == list(pw.reject)
    ref = mv.summary.iloc[0]
    assert (ref.n_flipped, ref.n_lost, ref.n_gained, ref.max_abs_shift) == (0, 0, 0, 0.0)
    # flips and significance changes are consistent with the pair table
    for _, row in mv.summary.iterrows():
        p = mv.pairs[(mv.pairs.ties == row.ties) & (mv.pairs.rel == row.rel)
                     & (mv.pairs.cutoff == row.cutoff)]
        assert row.n_flipped == p.flipped.sum()
        assert row.n_significant == p.significant.sum()


def test_multiverse_cli_and_plot(cast, capsys, tmp_path):
    qrels, runs = cast
    out = tmp_path / "pairs.csv"
    rc = main(["multiverse", str(qrels), *map(str, runs[:3]), "--ties", "trec_eval",
               "expected", "--queries", "both", "--rels", "1", "2", "--cutoffs", "none",
               "--csv", str(out)])
    assert rc == 0
    text = capsys.readouterr().out
    assert "n_flipped" in text and out.exists()
    import matplotlib

    matplotlib.use("Agg")
    mv = mrrstats.multiverse(qrels, runs[:3], "RR", ties=("trec_eval",), queries=("both",),
                             rels=(1, 2), cutoffs=(None,))
    ax = mv.plot()
    assert len(ax.lines) == 3
