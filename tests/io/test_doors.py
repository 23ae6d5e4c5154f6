"""Every door in (lists and sets, frames, Arrow, polars, ranx-like objects, dicts)
gives per-query values identical to the TREC-file path, on real data (CAsT 2021)."""

from __future__ import annotations

import warnings

import pandas as pd
import pyarrow as pa
import pytest

import mrrstats
from mrrstats import InputError, datasets, read_qrels, read_run

BINARY = ["RR", "RR@5", "AP", "P@5", "R@100", "Success@10", "Rank"]


@pytest.fixture(scope="module")
def cast():
    data = datasets.cast2021()
    qrels = read_qrels(data.qrels)
    runs = {r.name: r for r in (read_run(p) for p in data.runs[:2])}
    ref = mrrstats.evaluate(qrels, runs, BINARY + ["nDCG@10"])
    return data, qrels, runs, ref


def _ranked_lists(qrels, run):
    """The run as {query: [doc, ...]} in trec_eval's order."""
    ranked = mrrstats.rank_run(qrels, run)
    return {str(q): [str(d) for d in docs]
            for q, docs in zip(ranked.query_ids, ranked.doc_ids(), strict=True)}


def _relevant_sets(qrels, rel=1):
    out = {}
    for q, d, g in zip(qrels.query, qrels.doc, qrels.grade, strict=True):
        s = out.setdefault(str(q), set())
        if g >= rel:
            s.add(str(d))
    return out


def _assert_same(ev, ref, measures, runs=None):
    for run in runs or ref.runs:
        got = ev.values[run][measures]
        want = ref.values[run][measures]
        pd.testing.assert_frame_equal(got, want, check_exact=True)


def test_lists_and_sets_match_trec_files(cast):
    _, qrels, runs, ref = cast
    sets = _relevant_sets(qrels)
    lists = {name: _ranked_lists(qrels, run) for name, run in runs.items()}
    for ties in ("trec_eval", "optimistic", "pessimistic", "expected", "rank"):
        # The list order is the ranking whatever the tie convention.
        ev = mrrstats.evaluate(sets, lists, BINARY, ties=ties)
        _assert_same(ev, ref, BINARY)
        for name in runs:
            assert ev.counts[name].evaluated == ref.counts[name].evaluated
            assert ev.counts[name].run_only == ref.counts[name].run_only
    # relevant documents as lists, one run given alone
    name = next(iter(runs))
    ev = mrrstats.evaluate({q: sorted(s) for q, s in sets.items()}, lists[name], BINARY)
    pd.testing.assert_frame_equal(ev.values["run"], ref.values[name][BINARY])


def test_rag_list_order_is_kept():
    # The example: {doc: 1.0} workarounds are re-sorted by document id;
    # a list keeps the retrieved order.
    qrels = {"q1": {"z"}}
    run = {"q1": ["z", "a", "b"]}
    assert mrrstats.evaluate(qrels, run, "RR").values["run"]["RR"].tolist() == [1.0]
    with pytest.warns(UserWarning, match="document ids decide the order"):
        ev = mrrstats.evaluate(qrels, {"q1": {"z": 1.0, "a": 1.0, "b": 1.0}}, "RR")
    assert ev.values["run"]["RR"].tolist() == [1.0]  # "z" sorts first descending
    with pytest.warns(UserWarning):
        ev = mrrstats.evaluate(qrels, {"q1": {"a": 1.0, "z": 1.0, "b": 1.0}}, "RR")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mrrstats.evaluate(qrels, {"q1": {"z": 1.0, "a": 1.0}}, "RR", ties="expected")
        mrrstats.evaluate(qrels, {"q1": {"z": 2.0, "a": 1.0}}, "RR")


def test_several_list_runs_and_names():
    qrels = {"q1": ["a"], "q2": {"b"}}
    runs = {"bm25": {"q1": ["x", "a"], "q2": ["b"]}, "dense": {"q1": ["a"], "q2": ["y", "b"]}}
    ev = mrrstats.evaluate(qrels, runs, ["RR"])
    assert ev.runs == ("bm25", "dense")
    assert ev.values["bm25"]["RR"].tolist() == [0.5, 1.0]
    assert ev.values["dense"]["RR"].tolist() == [1.0, 0.5]


def test_empty_relevant_set_is_judged_not_run_only():
    qrels = {"q1": {"a"}, "q2": set(), "q3": []}
    run = {"q1": ["a"], "q2": ["b"], "q3": ["c", "d"]}
    ev = mrrstats.evaluate(qrels, run, ["RR", "Rank"])
    c = ev.counts["run"]
    assert c.run_only == () and c.no_relevant == ("q2", "q3") and c.evaluated == 3
    assert ev.values["run"]["RR"].tolist() == [1.0, 0.0, 0.0]
    pos = mrrstats.evaluate(qrels, run, ["RR", "Rank"], empty_target="pos")
    assert pos.values["run"]["RR"].tolist() == [1.0, 1.0, 1.0]
    assert pos.values["run"]["Rank"].tolist() == [1.0, 1.0, 1.0]
    skip = mrrstats.evaluate(qrels, run, "RR", empty_target="skip")
    assert skip.values["run"].index.tolist() == ["q1"]
    assert skip.counts["run"].evaluated == 1 and skip.counts["run"].no_relevant == ("q2", "q3")
    assert skip.settings["empty_target"] == "skip"
    with pytest.raises(InputError, match="no relevant document.*'q2', 'q3'"):
        mrrstats.evaluate(qrels, run, "RR", empty_target="error")
    with pytest.raises(ValueError, match="empty_target"):
        mrrstats.evaluate(qrels, run, "RR", empty_target="drop")


def test_empty_target_default_matches_trec_eval_on_cast(cast):
    _, qrels, runs, ref = cast
    # CAsT qrels: some judged turns have no relevant document at rel=4.
    name = next(iter(runs))
    neg = mrrstats.evaluate(qrels, runs[name], "RR", rel=4)
    skip = mrrstats.evaluate(qrels, runs[name], "RR", rel=4, empty_target="skip")
    empty = neg.counts[name].no_relevant
    assert len(empty) > 0
    assert (neg.values[name].loc[list(empty), "RR"] == 0).all()
    assert skip.counts[name].evaluated == neg.counts[name].evaluated - len(empty)
    kept = neg.values[name].drop(index=list(empty))
    pd.testing.assert_frame_equal(skip.values[name], kept)


def test_frames_arrow_polars_match_trec_files(cast):
    _, qrels, runs, ref = cast
    qframe = qrels.to_frame()
    frames = {name: run.to_frame() for name, run in runs.items()}
    measures = BINARY + ["nDCG@10"]
    ev = mrrstats.evaluate(qframe, frames, measures)
    _assert_same(ev, ref, measures)
    ev = mrrstats.evaluate(pa.Table.from_pandas(qframe),
                           {n: pa.Table.from_pandas(f) for n, f in frames.items()}, measures)
    _assert_same(ev, ref, measures)
    pl = pytest.importorskip("polars")
    ev = mrrstats.evaluate(pl.from_pandas(qframe),
                           {n: pl.from_pandas(f) for n, f in frames.items()}, measures)
    _assert_same(ev, ref, measures)
    # one Arrow run given alone
    name = next(iter(runs))
    one = mrrstats.evaluate(qframe, pa.Table.from_pandas(frames[name]), "RR")
    pd.testing.assert_frame_equal(one.values["run"], ref.values[name][["RR"]])


def test_rank_only_frames(cast):
    _, qrels, runs, ref = cast
    name = next(iter(runs))
    frame = runs[name].to_frame()
    with_scores = mrrstats.evaluate(qrels, {name: frame}, BINARY, ties="rank")
    rank_only = frame.drop(columns="score")
    for ties in ("rank", "trec_eval", "optimistic", "pessimistic", "expected"):
        ev = mrrstats.evaluate(qrels, {name: rank_only}, BINARY, ties=ties)
        if ties == "rank":
            _assert_same(ev, with_scores, BINARY)
        # CAsT ranks are distinct within a query: every convention orders by rank
        pd.testing.assert_frame_equal(ev.values[name], with_scores.values[name])
    bad = rank_only.assign(rank="x")
    with pytest.raises(InputError, match="rank 'x' is not a number"):
        read_run(bad)


class _FakeRanxRun:
    """Stand-in with ranx.Run's interface (``ranx`` is not installed here)."""

    __module__ = "ranx.data_structures.run"

    def __init__(self, d, name=None):
        self._d, self.name = d, name

    def to_dict(self):
        return self._d


class _FakeRanxQrels(_FakeRanxRun):
    __module__ = "ranx.data_structures.qrels"


def test_ranx_objects(cast):
    _, qrels, runs, ref = cast
    name = next(iter(runs))
    run = runs[name]
    d = {}
    for q, doc, s in zip(run.query.to_pylist(), run.doc.to_pylist(), run.score, strict=True):
        d.setdefault(q, {})[doc] = float(s)
    qd = {}
    for q, doc, g in zip(qrels.query, qrels.doc, qrels.grade, strict=True):
        qd.setdefault(q, {})[doc] = int(g)
    ev = mrrstats.evaluate(_FakeRanxQrels(qd), {name: _FakeRanxRun(d)}, BINARY + ["nDCG@10"])
    _assert_same(ev, ref, BINARY + ["nDCG@10"], runs=[name])


def test_dict_errors():
    with pytest.raises(InputError, match="a set has no order"):
        read_run({"q1": {"a", "b"}})
    with pytest.raises(InputError, match="mixes queries"):
        read_run({"q1": ["a"], "q2": {"b": 1.0}})
    with pytest.raises(InputError, match="duplicates="):
        read_run({"q1": ["a", "a"]})
    with pytest.raises(InputError, match="expected a dict"):
        read_qrels({"q1": 3})


def test_no_common_query_is_an_error():
    with pytest.raises(InputError, match=r"no query in common.*'x'.*'q1'"):
        mrrstats.evaluate({"q1": {"a"}}, {"x": ["a"]}, "RR")
    ev = mrrstats.evaluate({"q1": {"a"}}, {"x": ["a"]}, "RR", queries="qrels")
    assert ev.values["run"]["RR"].tolist() == [0.0]


@pytest.mark.parametrize("gz", [False, True])
def test_rank_only_files(cast, tmp_path, gz):
    import gzip

    _, qrels, runs, _ = cast
    name = next(iter(runs))
    frame = runs[name].to_frame()
    text = "".join(f"{q}\t{d}\t{r}\n" for q, d, r in zip(frame["query"], frame["doc"],
                                                         frame["rank"], strict=True))
    path = tmp_path / ("ms.tsv.gz" if gz else "ms.tsv")
    path.write_bytes(gzip.compress(text.encode()) if gz else text.encode())
    want = mrrstats.evaluate(qrels, {name: runs[name]}, BINARY, ties="rank")
    for ties in ("rank", "trec_eval", "pessimistic"):
        got = mrrstats.evaluate(qrels, {name: path}, BINARY, ties=ties)
        _assert_same(got, want, BINARY)
    bad = tmp_path / "bad.tsv"
    bad.write_text("q1\td1\t1\nq1\td2\ttwo\n")
    with pytest.raises(InputError, match="line 2: rank 'two' is not an integer"):
        read_run(bad)
    bad.write_text("q1\td1\t1\nq1\td2\n")
    with pytest.raises(InputError, match="line 2: expected 3 fields"):
        read_run(bad)


FIXTURE_MEASURES = ["RR", "AP", "nDCG", "nDCG@10", "P@5", "R@100", "Success@1"]


def test_trec_eval_fixtures_in_every_shape():
    """trec_eval's own test qrels and run, converted to every door: identical values."""
    from tests.reference_data import data_path

    qpath = data_path("trec_eval_test", "qrels.test")
    rpath = data_path("trec_eval_test", "results.test")
    ref = mrrstats.evaluate(qpath, {"r": rpath}, FIXTURE_MEASURES)
    qrels, run = read_qrels(qpath), read_run(rpath)
    qframe, rframe = qrels.to_frame(), run.to_frame()
    qdict = {}
    for q, d, g in zip(qrels.query, qrels.doc, qrels.grade, strict=True):
        qdict.setdefault(q, {})[d] = int(g)
    rdict = {}
    for q, d, s in zip(rframe["query"], rframe["doc"], rframe["score"], strict=True):
        rdict.setdefault(q, {})[d] = float(s)
    shapes = {
        "pandas": (qframe, rframe),
        "arrow": (pa.Table.from_pandas(qframe), pa.Table.from_pandas(rframe)),
        "dict": (qdict, rdict),
        "ranx-like": (_FakeRanxQrels(qdict), _FakeRanxRun(rdict)),
        "lists": (qdict, _ranked_lists(qrels, run)),
    }
    for shape, (q, r) in shapes.items():
        ev = mrrstats.evaluate(q, {"r": r}, FIXTURE_MEASURES)
        pd.testing.assert_frame_equal(ev.values["r"], ref.values["r"], check_exact=True,
                                      obj=shape)
    # binary relevance as sets, for the measures that only see relevant / not
    sets = {q: {d for d, g in judged.items() if g >= 1} for q, judged in qdict.items()}
    binary = ["RR", "AP", "P@5", "R@100", "Success@1"]
    ev = mrrstats.evaluate(sets, {"r": _ranked_lists(qrels, run)}, binary)
    pd.testing.assert_frame_equal(ev.values["r"], ref.values["r"][binary], check_exact=True)
