"""The streaming and Dask engines give the in-memory per-query values, bit for bit."""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest

import mrrstats
from mrrstats import InputError, evaluate
from mrrstats.scale import iter_query_groups, stream

MEASURES = ["RR", "RR@10", "AP", "nDCG@10", "nDCG", "P@10", "R@100", "Success@3", "Rank"]
DATA = mrrstats.datasets.cast2021()


@pytest.fixture
def small_buckets(monkeypatch):
    """Many buckets and small pieces, so that queries are split across pieces."""
    monkeypatch.setattr(stream, "BUCKET_BYTES", 1 << 16)
    monkeypatch.setattr(stream, "BLOCK_BYTES", 1 << 15)


def assert_same(a, b):
    assert a.runs == b.runs
    for run in a.runs:
        va, vb = a.values[run], b.values[run]
        assert va.index.equals(vb.index)
        assert list(va.columns) == list(vb.columns)
        # bit for bit: compare the float64 bit patterns
        assert np.array_equal(va.to_numpy(np.float64).view(np.int64),
                              vb.to_numpy(np.float64).view(np.int64)), run
        assert a.counts[run].to_dict() == b.counts[run].to_dict()
        assert a.counts[run].run_only == b.counts[run].run_only
    pd.testing.assert_frame_equal(a.query_stats, b.query_stats)


def shuffled_copy(path, out, seed):
    with gzip.open(path, "rt") as fh:
        lines = fh.readlines()
    rng = np.random.default_rng(seed)
    out.write_text("".join(lines[i] for i in rng.permutation(len(lines))))
    return out


@pytest.mark.parametrize("ties", ["trec_eval", "rank", "optimistic", "expected"])
def test_stream_matches_memory_sorted_runs(small_buckets, ties):
    a = evaluate(DATA.qrels, DATA.runs, MEASURES, ties=ties)
    b = evaluate(DATA.qrels, DATA.runs, MEASURES, ties=ties, engine="stream")
    assert_same(a, b)


def test_stream_matches_memory_unsorted_run(small_buckets, tmp_path):
    # a shuffled file, with ties between equal scores broken by file order
    path = shuffled_copy(DATA.runs[0], tmp_path / "shuffled.run", 0)
    for kw in ({}, {"queries": "qrels", "max_depth": 50}, {"ties": "rank"}):
        a = evaluate(DATA.qrels, path, MEASURES, **kw)
        b = evaluate(DATA.qrels, path, MEASURES, engine="stream", **kw)
        assert_same(a, b)


def test_groups_hold_whole_queries_in_file_order(tmp_path):
    path = shuffled_copy(DATA.runs[1], tmp_path / "s.run", 1)
    whole = mrrstats.read_run(path).to_frame()
    groups = list(iter_query_groups(path, n_buckets=5, block_bytes=10_000))
    assert len(groups) == 5
    seen = set()
    parts = []
    for g in groups:
        f = g.to_frame()
        qs = set(f["query"])
        assert not qs & seen
        seen |= qs
        parts.append(f)
    got = pd.concat(parts)
    # every row once, and each query's rows in file order
    for q, rows in got.groupby("query", sort=False):
        ref = whole[whole["query"] == q]
        assert rows["doc"].tolist() == ref["doc"].tolist()
        assert rows["score"].tolist() == ref["score"].tolist()
    assert len(got) == len(whole)


def test_auto_engine_and_bad_engine(monkeypatch):
    from mrrstats.scale import engines

    assert engines.choose_engine(DATA.runs[0]) == "memory"
    monkeypatch.setattr(engines, "available_memory", lambda: 1000)
    assert engines.choose_engine(DATA.runs[0]) == "stream"
    assert_same(evaluate(DATA.qrels, DATA.runs[0]),
                evaluate(DATA.qrels, DATA.runs[0], engine="auto"))
    with pytest.raises(ValueError, match="`engine`"):
        evaluate(DATA.qrels, DATA.runs[0], engine="spark")


def test_stream_in_memory_input_falls_back():
    frame = mrrstats.read_run(DATA.runs[0]).to_frame()
    assert_same(evaluate(DATA.qrels, {"r": frame}), evaluate(DATA.qrels, {"r": frame},
                                                            engine="stream"))


def test_stream_errors_name_file_and_line(small_buckets, tmp_path):
    with gzip.open(DATA.runs[0], "rt") as fh:
        lines = fh.readlines()[:3000]
    bad = lines[:2500] + ["q1 Q0 d1 1 notanumber tag\n"] + lines[2500:]
    path = tmp_path / "bad.run"
    path.write_text("".join(bad))
    with pytest.raises(InputError) as exc:
        evaluate(DATA.qrels, path, engine="stream")
    assert exc.value.line == 2501 and str(path) in str(exc.value)
    ref = pytest.raises(InputError, mrrstats.read_run, path)
    assert ref.value.line == 2501
    # a duplicate document in two pieces far apart
    dup = lines + [lines[0]]
    path = tmp_path / "dup.run"
    path.write_text("".join(dup))
    with pytest.raises(InputError, match="twice"):
        evaluate(DATA.qrels, path, engine="stream")
    # mixed run tags in different pieces
    first = lines[0].split()
    mixed = lines + [" ".join(first[:2] + ["newdoc", "1", "0.5", "othertag"]) + "\n"]
    path = tmp_path / "mixed.run"
    path.write_text("".join(mixed))
    with pytest.raises(InputError, match="tag"):
        evaluate(DATA.qrels, path, engine="stream")
    with pytest.raises(InputError, match="no such file"):
        list(iter_query_groups(tmp_path / "missing.run"))


def write_parquet_parts(frame, folder, cuts):
    folder.mkdir()
    bounds = [0, *cuts, len(frame)]
    for i, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:], strict=True)):
        frame.iloc[lo:hi].to_parquet(folder / f"part-{i:03d}.parquet", index=False)
    return folder


@pytest.fixture
def unsorted_frame():
    frame = mrrstats.read_run(DATA.runs[2]).to_frame()
    rng = np.random.default_rng(3)
    frame = frame.iloc[rng.permutation(len(frame))].reset_index(drop=True)
    frame["rank"] = frame["rank"].astype(np.int64)
    return frame


def test_stream_parquet_partitions(small_buckets, tmp_path, unsorted_frame):
    folder = write_parquet_parts(unsorted_frame, tmp_path / "run", [1000, 20_000, 20_001])
    for kw in ({}, {"ties": "rank"}):
        a = evaluate(DATA.qrels, {"run": unsorted_frame}, MEASURES, **kw)
        for src in (folder, str(folder / "*.parquet")):
            b = evaluate(DATA.qrels, {"run": src}, MEASURES, engine="stream", **kw)
            assert_same(a, b)


@pytest.fixture(scope="module")
def dask_client():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        yield client


def test_dask_engine_matches_memory(dask_client, tmp_path, unsorted_frame):
    dd = pytest.importorskip("dask.dataframe")
    a = evaluate(DATA.qrels, {"run": unsorted_frame}, MEASURES)
    # unsorted: queries split across partitions (shuffled by query)
    ddf = dd.from_pandas(unsorted_frame, npartitions=4, sort=False)
    assert_same(a, evaluate(DATA.qrels, {"run": ddf}, MEASURES, engine="dask"))
    # sorted by query, each query in one partition: no shuffle needed
    by_query = unsorted_frame.sort_values("query", kind="stable").reset_index(drop=True)
    ddf = dd.from_pandas(by_query.set_index("query", drop=False), npartitions=3, sort=True)
    ddf = ddf.reset_index(drop=True)
    assert_same(evaluate(DATA.qrels, {"run": by_query}, MEASURES),
                evaluate(DATA.qrels, {"run": ddf}, MEASURES, engine="dask"))
    # Parquet files
    folder = write_parquet_parts(unsorted_frame, tmp_path / "run", [5000, 5001, 30_000])
    assert_same(a, evaluate(DATA.qrels, {"run": str(folder)}, MEASURES, engine="dask"))
    # with ties broken by the run's rank column
    assert_same(evaluate(DATA.qrels, {"run": unsorted_frame}, MEASURES, ties="rank"),
                evaluate(DATA.qrels, {"run": str(folder / "*.parquet")}, MEASURES,
                         ties="rank", engine="dask"))


def test_dask_sorted_run_cut_inside_queries(dask_client, tmp_path, monkeypatch):
    """Queries straddling file boundaries are gathered into one group, without a shuffle."""
    from mrrstats.scale import dask as scale_dask

    frame = mrrstats.read_run(DATA.runs[4]).to_frame()  # grouped by query, file order
    folder = write_parquet_parts(frame, tmp_path / "run", [777, 12_345, 12_346, 40_000])
    a = evaluate(DATA.qrels, {"run": frame}, MEASURES)
    assert_same(a, evaluate(DATA.qrels, {"run": str(folder)}, MEASURES, engine="dask"))
    bounds = [0, 777, 12_345, 12_346, 40_000, len(frame)]
    counts = [frame.iloc[lo:hi]["query"].value_counts(sort=False)
              for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)]
    plan, split = scale_dask._plan(counts)
    assert plan == "gather" and 2 <= len(split) <= 4
    # forced shuffle (every split row above the gathering limit) gives the same values
    monkeypatch.setattr(scale_dask, "SPLIT_ROWS_GATHERED", -1)
    assert scale_dask._plan(counts)[0] == "shuffle"
    frame_small = frame.iloc[:2000]
    ddf = __import__("dask.dataframe").dataframe.from_pandas(frame_small, npartitions=2,
                                                              sort=False)
    assert_same(evaluate(DATA.qrels, {"run": frame_small}, MEASURES),
                evaluate(DATA.qrels, {"run": ddf}, MEASURES, engine="dask"))


def test_dask_without_distributed_client(unsorted_frame):
    dd = pytest.importorskip("dask.dataframe")
    import dask

    ddf = dd.from_pandas(unsorted_frame, npartitions=3, sort=False)
    with dask.config.set(scheduler="sync"):
        assert_same(evaluate(DATA.qrels, {"run": unsorted_frame}, ["RR", "AP"]),
                    evaluate(DATA.qrels, {"run": ddf}, ["RR", "AP"], engine="dask"))


def test_cli_engine(small_buckets, capsys):
    from mrrstats.cli import main

    outs = []
    for engine in ("memory", "stream"):
        assert main(["evaluate", str(DATA.qrels), str(DATA.runs[0]), "-m", "AP", "-m", "RR",
                     "--format", "tsv", "--engine", engine]) == 0
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1] and len(outs[0].splitlines()) > 300


def test_dask_engine_refuses_other_inputs():
    pytest.importorskip("dask.dataframe")
    with pytest.raises(ValueError, match="engine='stream'"):
        evaluate(DATA.qrels, DATA.runs[0], engine="dask")
    with pytest.raises(TypeError, match="Dask DataFrame"):
        evaluate(DATA.qrels, {"r": mrrstats.read_run(DATA.runs[0]).to_frame()}, engine="dask")
