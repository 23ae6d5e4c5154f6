"""multiverse: numbers equal direct evaluate()/pairwise_tests() calls; changes vs reference."""

import numpy as np
import pandas as pd
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
                             queries=("both",), rels=(1, 3), cutoffs=(None, 10),
                             empty_targets=("neg",))
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
    assert " flip " in text and out.exists()
    assert max(map(len, text.splitlines())) <= 100  # fits 100 columns; --wide: every column
    assert main(["multiverse", str(qrels), *map(str, runs[:3]), "--ties", "trec_eval",
                 "expected", "--queries", "both", "--rels", "1", "2", "--cutoffs", "none",
                 "--wide"]) == 0
    wide = capsys.readouterr().out
    assert "n_flipped" in wide and "ordering" in wide and " > " in wide
    import matplotlib

    matplotlib.use("Agg")
    mv = mrrstats.multiverse(qrels, runs[:3], "RR", ties=("trec_eval",), queries=("both",),
                             rels=(1, 2), cutoffs=(None,))
    ax = mv.plot()
    assert len(ax.lines) == 3


def test_multiverse_varies_the_empty_target_policy_where_it_matters(cast):
    qrels, runs = cast
    mv = mrrstats.multiverse(qrels, runs, "RR", ties=("trec_eval",), queries=("both",),
                             rels=(1, 3), cutoffs=(None,))
    # rel >= 1: every CAsT query has a relevant document, so only the reference policy;
    # rel >= 3: 30 of 158 have none, so neg, pos and skip
    got = sorted(zip(mv.summary["rel"], mv.summary["empty_target"], strict=True))
    assert got == [(1, "neg"), (3, "neg"), (3, "pos"), (3, "skip")]
    assert mv.reference["RR"]["empty_target"] == "neg"
    for policy in ("neg", "pos", "skip"):
        ev = mrrstats.evaluate(qrels, runs, ["RR"], rel=3, empty_target=policy)
        frame = ev.scores("RR")
        sel = mv.systems[(mv.systems.rel == 3) & (mv.systems.empty_target == policy)]
        sel = sel.set_index("system")
        np.testing.assert_allclose(sel["mean"].loc[frame.columns], frame.mean().to_numpy(),
                                   rtol=0, atol=1e-12)
        assert (sel["n_queries"] == (128 if policy == "skip" else 158)).all()
        pw = mrrstats.pairwise_tests(frame, test="t", correction="holm", missing="drop")
        selp = mv.pairs[(mv.pairs.rel == 3) & (mv.pairs.empty_target == policy)]
        assert selp["significant"].tolist() == list(pw.reject)
        np.testing.assert_allclose(selp["pvalue_adjusted"], pw.pvalue_adjusted, rtol=1e-12)
    # the policy changes numbers: pos adds 30/158 to every mean, skip drops those queries
    s3 = mv.systems[mv.systems.rel == 3].pivot(index="system", columns="empty_target",
                                                 values="mean")
    np.testing.assert_allclose(s3["pos"] - s3["neg"], 30 / 158, atol=1e-12)
    np.testing.assert_allclose(s3["skip"], s3["neg"] * 158 / 128, atol=1e-12)
    # no repeated rows where no query is empty; 'error' changes no number
    assert not mv.summary.duplicated(["rel", "empty_target"]).any()
    with pytest.raises(ValueError, match="`empty_targets` cannot hold 'error'"):
        mrrstats.multiverse(qrels, runs, "RR", empty_targets=("neg", "error"))
    with pytest.raises(ValueError, match="`empty_targets` must be one of"):
        mrrstats.multiverse(qrels, runs, "RR", empty_targets=("zero",))
    # one option at a time: a change of policy is shown with the threshold it needs
    from mrrstats.report.plots import one_option_at_a_time

    one = one_option_at_a_time(mv.summary, mv.reference["RR"])
    assert one["convention"].tolist() == ["reference", "rel >= 3",
                                          "rel >= 3, empty_target = pos",
                                          "rel >= 3, empty_target = skip"]


def test_multiverse_cli_empty_targets(cast, capsys):
    qrels, runs = cast
    rc = main(["multiverse", str(qrels), *map(str, runs[:3]), "--ties", "trec_eval",
               "--queries", "both", "--rels", "2", "--cutoffs", "none", "--empty-targets",
               "skip", "neg"])
    assert rc == 0
    text = capsys.readouterr().out
    assert "empty_target" in text and "skip" in text and "neg" in text
    with pytest.raises(SystemExit) as exc:  # argparse names the argument
        main(["multiverse", "--example", "--empty-targets", "error"])
    assert exc.value.code == 2
    assert "--empty-targets" in capsys.readouterr().err


def test_multiverse_records_the_seed_it_drew_and_takes_workers(cast):
    qrels, runs = cast
    kw = dict(ties=("trec_eval", "optimistic"), queries=("both",), rels=(1,),
              cutoffs=(None,), empty_targets=("neg",), test="randomization",
              n_resamples=199)
    drawn = mrrstats.multiverse(qrels, runs[:4], "RR", **kw)
    assert isinstance(drawn.seed, int) and drawn.n_resamples == 199
    again = mrrstats.multiverse(qrels, runs[:4], "RR", rng=drawn.seed, workers=1, **kw)
    assert again.seed == drawn.seed
    for name in ("systems", "pairs", "summary"):
        pd.testing.assert_frame_equal(getattr(again, name), getattr(drawn, name))
    pd.testing.assert_frame_equal(drawn.to_frame(), drawn.summary)
    t = mrrstats.multiverse(qrels, runs[:4], "RR", **{**kw, "test": "t"})
    assert t.n_resamples is None and isinstance(t.seed, int)
