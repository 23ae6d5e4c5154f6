"""Statistics over queries in blocks (mrrstats.blocked): the in-memory numbers, bit for bit."""

import numpy as np
import pandas as pd
import pytest

import mrrstats
from mrrstats import blocked as scale
from mrrstats.stats import counter
from mrrstats.stats.resampling import PairwiseSum

N = 3001


@pytest.fixture(scope="module")
def pair():
    rng = np.random.default_rng(11)
    a = rng.beta(0.6, 0.9, N)
    b = np.clip(a + rng.normal(0.01, 0.2, N), 0, 1)
    return a, b


def _same_test(res, ref):
    assert res.statistic == ref.statistic
    assert res.pvalue == ref.pvalue and res.pvalue_se == ref.pvalue_se
    assert (res.n_queries, res.n_resamples, res.exact) == (ref.n_queries, ref.n_resamples,
                                                        ref.exact)
    assert np.array_equal(res.null_distribution, ref.null_distribution)
    for cl in (0.95, 0.8):
        assert res.confidence_interval(cl) == ref.confidence_interval(cl)


def _same_ci(res, ref):
    assert res.statistic == ref.statistic and res.standard_error == ref.standard_error
    assert res.acceleration == ref.acceleration and res.scheme == "poisson"
    assert np.array_equal(res.bootstrap_distribution, ref.bootstrap_distribution)
    for method in ("bca", "percentile", "basic"):
        assert res.confidence_interval(method=method) == ref.confidence_interval(method=method)


# --------------------------------------------------------------------------
# numpy.sum's order over blocks
# --------------------------------------------------------------------------
@pytest.mark.parametrize("n", [*range(1, 140), 255, 256, 257, 1000, 4099, 65537, 1_000_003])
def test_pairwise_sum_equals_numpy_sum(n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n) * 10.0 ** rng.uniform(-4, 4, n)  # rounding everywhere
    for size in sorted({1, 7, 128, 129, 1000, n}):
        if n / size > 3000:
            continue
        acc = PairwiseSum(n)
        for i in range(0, n, size):
            acc.add(x[i:i + size])
        assert acc.value() == np.sum(x) == x[None, :].sum(axis=-1)[0]
    acc = PairwiseSum(n)  # uneven blocks
    cuts = np.unique(rng.integers(0, n, 20))
    for blk in np.split(x, cuts):
        acc.add(blk)
    assert acc.value() == np.sum(x)


def test_pairwise_sum_refuses_too_much_or_too_little():
    acc = PairwiseSum(3)
    acc.add(np.ones(2))
    with pytest.raises(ValueError, match="only 2 of the 3"):
        acc.value()
    with pytest.raises(ValueError, match="more than the 3"):
        acc.add(np.ones(2))


# --------------------------------------------------------------------------
# the in-memory Poisson bootstrap
# --------------------------------------------------------------------------
def test_poisson_scheme_in_memory_against_a_reference_loop(pair):
    a, b = pair
    x = a - b
    res = mrrstats.bootstrap_ci(a, b, scheme="poisson", n_resamples=300, rng=5)
    key = counter.stream_key(np.random.default_rng(5))
    W = counter.poisson_weights_xp(key, 0, 300, N).astype(float)  # independent (array API)
    ref = np.sort((W @ x) / W.sum(axis=1))
    np.testing.assert_allclose(res.bootstrap_distribution, ref, rtol=1e-13, atol=1e-15)
    assert res.statistic == x.mean() and res.scheme == "poisson"
    ref_ci = np.quantile(ref, [0.025, 0.975])
    np.testing.assert_allclose(tuple(res.confidence_interval(method="percentile")), ref_ci,
                               rtol=1e-12)
    multi = mrrstats.bootstrap_ci(a, b, n_resamples=300, rng=5)
    assert multi.scheme == "multinomial"
    assert res.acceleration == multi.acceleration


def test_poisson_standard_error_matches_the_multinomial_one(pair):
    x = pair[0]
    B = 4000
    se_p = mrrstats.bootstrap_ci(x, scheme="poisson", n_resamples=B, rng=1).standard_error
    se_m = mrrstats.bootstrap_ci(x, n_resamples=B, rng=1).standard_error
    ref = x.std() / np.sqrt(x.size)
    tol = 5 * np.sqrt(1 / (2 * B)) + 2 / x.size  # Monte-Carlo error of an SD, O(1/n) bias
    assert abs(se_p / ref - 1) < tol and abs(se_m / ref - 1) < tol


def test_poisson_scheme_errors():
    x = np.random.default_rng(0).random(50)
    with pytest.raises(ValueError, match="`scheme` must be one of"):
        mrrstats.bootstrap_ci(x, scheme="bayes")
    with pytest.raises(ValueError, match="not clusters or strata"):
        mrrstats.bootstrap_ci(x, scheme="poisson", clusters=np.arange(50) // 5)
    with pytest.raises(ValueError, match="every query has weight 0"):
        mrrstats.bootstrap_ci([0.2, 0.5], scheme="poisson", n_resamples=200, rng=0)


# --------------------------------------------------------------------------
# blocked == in memory, for every kind of source
# --------------------------------------------------------------------------
@pytest.mark.parametrize("size", [1, 64, 100, 1000, N, 10 * N])
def test_arrays_in_blocks_equal_in_memory(pair, size):
    a, b = pair
    res = scale.randomization_test(a, b, batch=size, n_resamples=400, rng=3)
    _same_test(res, mrrstats.randomization_test(a, b, n_resamples=400, rng=3))
    res = scale.bootstrap_ci(a, b, batch=size, n_resamples=300, rng=3)
    _same_ci(res, mrrstats.bootstrap_ci(a, b, n_resamples=300, scheme="poisson", rng=3))


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_alternatives_and_one_sample(pair, alternative):
    a, b = pair
    res = scale.randomization_test(a, b, alternative=alternative, batch=500,
                                   n_resamples=300, rng=4)
    _same_test(res, mrrstats.randomization_test(a, b, alternative=alternative,
                                                n_resamples=300, rng=4))
    res = scale.bootstrap_ci(a, alternative=alternative, batch=777, n_resamples=200, rng=4)
    _same_ci(res, mrrstats.bootstrap_ci(a, alternative=alternative, n_resamples=200,
                                        scheme="poisson", rng=4))
    # one column for the test: the differences
    res = scale.randomization_test(a - b, alternative=alternative, batch=500,
                                   n_resamples=300, rng=4)
    _same_test(res, mrrstats.randomization_test(a, b, alternative=alternative,
                                                n_resamples=300, rng=4))


def test_memmaps(pair, tmp_path):
    a, b = pair
    mm = []
    for name, x in (("a", a), ("b", b)):
        m = np.lib.format.open_memmap(tmp_path / f"{name}.npy", mode="w+", dtype=np.float32,
                                      shape=x.shape)
        m[:] = x
        m.flush()
        mm.append(np.load(tmp_path / f"{name}.npy", mmap_mode="r"))
    res = scale.randomization_test(*mm, batch=257, n_resamples=300, rng=6)
    _same_test(res, mrrstats.randomization_test(np.asarray(mm[0]), np.asarray(mm[1]),
                                                n_resamples=300, rng=6))
    res = scale.bootstrap_ci(*mm, batch=1024, n_resamples=300, rng=6)
    _same_ci(res, mrrstats.bootstrap_ci(np.asarray(mm[0]), np.asarray(mm[1]),
                                        n_resamples=300, scheme="poisson", rng=6))


def _write_parquet(tmp_path, a, b, parts=3, row_group=400):
    import pyarrow as pa
    import pyarrow.parquet as pq

    d = tmp_path / "runs"
    d.mkdir()
    cuts = np.linspace(0, a.size, parts + 1).astype(int)
    for k in range(parts):
        sl = slice(cuts[k], cuts[k + 1])
        t = pa.table({"qid": np.arange(a.size)[sl], "bm25": a[sl], "dense": b[sl]})
        pq.write_table(t, d / f"part-{k:02d}.parquet", row_group_size=row_group)
    return d


@pytest.mark.parametrize("size", [50, 999, 100_000])
def test_parquet_file_directory_and_glob(pair, tmp_path, size):
    a, b = pair
    d = _write_parquet(tmp_path, a, b)
    ref_t = mrrstats.randomization_test(a, b, n_resamples=300, rng=8)
    ref_c = mrrstats.bootstrap_ci(a, b, n_resamples=300, scheme="poisson", rng=8)
    for src in (d, str(d / "*.parquet")):
        res = scale.randomization_test(src, columns=("bm25", "dense"), batch=size,
                                       n_resamples=300, rng=8)
        _same_test(res, ref_t)
        res = scale.bootstrap_ci(src, columns=["bm25", "dense"], batch=size,
                                 n_resamples=300, rng=8)
        _same_ci(res, ref_c)
    one = scale.bootstrap_ci(d / "part-00.parquet", columns="bm25", n_resamples=100, rng=1)
    _same_ci(one, mrrstats.bootstrap_ci(a[:1000], n_resamples=100, scheme="poisson", rng=1))


def test_block_functions_and_lists(pair):
    a, b = pair
    cuts = [0, 5, 900, 901, 2500, N]
    pairs = [(a[i:j], b[i:j]) for i, j in zip(cuts[:-1], cuts[1:], strict=True)]
    ref = mrrstats.randomization_test(a, b, n_resamples=200, rng=9)
    _same_test(scale.randomization_test(lambda: iter(pairs), n_resamples=200, rng=9), ref)
    _same_test(scale.randomization_test(pairs, n_resamples=200, rng=9), ref)
    diffs = [x - y for x, y in pairs]
    _same_test(scale.randomization_test(diffs, n_resamples=200, rng=9), ref)
    _same_ci(scale.bootstrap_ci(lambda: (x for x, _ in pairs), n_resamples=200, rng=9),
             mrrstats.bootstrap_ci(a, n_resamples=200, scheme="poisson", rng=9))


def test_dask_array_and_dataframe(pair):
    da = pytest.importorskip("dask.array")
    dd = pytest.importorskip("dask.dataframe")
    a, b = pair
    ref = mrrstats.randomization_test(a, b, n_resamples=200, rng=2)
    res = scale.randomization_test(da.from_array(a, chunks=700), da.from_array(b, chunks=1100),
                                   n_resamples=200, rng=2)
    _same_test(res, ref)
    frame = dd.from_pandas(pd.DataFrame({"x": a, "y": b}), npartitions=4)
    _same_test(scale.randomization_test(frame, columns=("x", "y"), n_resamples=200, rng=2), ref)
    _same_ci(scale.bootstrap_ci(frame, columns=("x", "y"), n_resamples=200, rng=2),
             mrrstats.bootstrap_ci(a, b, n_resamples=200, scheme="poisson", rng=2))


def test_missing_drop_and_exact_enumeration(pair):
    a, b = pair
    a2, b2 = a.copy(), b.copy()
    a2[[3, 1500]] = np.nan
    b2[2999] = np.nan
    _same_test(scale.randomization_test(a2, b2, missing="drop", batch=300,
                                        n_resamples=200, rng=1),
               mrrstats.randomization_test(a2, b2, missing="drop", n_resamples=200, rng=1))
    _same_ci(scale.bootstrap_ci(a2, b2, missing="drop", batch=300, n_resamples=200, rng=1),
             mrrstats.bootstrap_ci(a2, b2, missing="drop", scheme="poisson", n_resamples=200,
                                   rng=1))
    # a dozen queries: the in-memory test enumerates 2**12 sign vectors, and so does this one
    res = scale.randomization_test(a[:12], b[:12], batch=5, rng=1)
    ref = mrrstats.randomization_test(a[:12], b[:12], rng=1)
    assert res.exact and ref.exact
    _same_test(res, ref)
    assert res.seed == ref.seed


def test_results_do_not_depend_on_workers(pair):
    a, b = pair
    r1 = scale.randomization_test(a, b, batch=1000, n_resamples=300, workers=1, rng=5)
    r2 = scale.randomization_test(a, b, batch=1000, n_resamples=300, workers=2, rng=5)
    _same_test(r1, r2)
    c1 = scale.bootstrap_ci(a, b, batch=1000, n_resamples=300, workers=1, rng=5)
    _same_ci(c1, scale.bootstrap_ci(a, b, batch=1000, n_resamples=300, workers=2, rng=5))
    _same_test(mrrstats.randomization_test(a, b, n_resamples=300, workers=1, rng=5),
               mrrstats.randomization_test(a, b, n_resamples=300, workers=2, rng=5))
    for scheme in ("multinomial", "poisson"):
        x1 = mrrstats.bootstrap_ci(a, b, n_resamples=300, scheme=scheme, workers=1, rng=5)
        x2 = mrrstats.bootstrap_ci(a, b, n_resamples=300, scheme=scheme, workers=2, rng=5)
        assert np.array_equal(x1.bootstrap_distribution, x2.bootstrap_distribution)
    t1 = mrrstats.bootstrap_test(a, b, n_resamples=300, workers=1, rng=5)
    t2 = mrrstats.bootstrap_test(a, b, n_resamples=300, workers=2, rng=5)
    assert t1.pvalue == t2.pvalue and np.array_equal(t1.null_distribution, t2.null_distribution)
    X = np.vstack([a, b, (a + b) / 2])
    for test in ("randomization", "bootstrap-t"):
        p1 = mrrstats.pairwise_tests(X, test=test, n_resamples=300, workers=1, rng=5)
        p2 = mrrstats.pairwise_tests(X, test=test, n_resamples=300, workers=2, rng=5)
        assert p1.to_frame().equals(p2.to_frame())
    with pytest.raises(ValueError, match="`workers` must be a positive integer or -1"):
        mrrstats.randomization_test(a, b, workers=0)
    with pytest.raises(ValueError, match="`workers`"):
        scale.bootstrap_ci(a, workers=1.5)


# --------------------------------------------------------------------------
# errors name the source, the column and the query
# --------------------------------------------------------------------------
def test_errors_name_the_problem(pair, tmp_path):
    a, b = pair
    with pytest.raises(ValueError, match="same length.*3001 and 3000"):
        scale.randomization_test(a, b[:-1])
    bad = a.copy()
    bad[2345] = np.nan
    with pytest.raises(ValueError, match=r"a of the arrays has a missing value \(NaN\) at "
                                         r"query 2345; pass missing='drop'"):
        scale.randomization_test(bad, b, batch=1000)
    bad[2345] = np.inf
    with pytest.raises(ValueError, match=r"non-finite value \(inf\) at query 2345"):
        scale.bootstrap_ci(bad, b, batch=1000)
    with pytest.raises(ValueError, match="block 1: a and b have different lengths, 3 and 2"):
        scale.randomization_test([(a[:2], b[:2]), (a[2:5], b[2:4])])
    with pytest.raises(ValueError, match="must be a pair"):
        scale.randomization_test([(a[:2], b[:2]), a[2:5]])
    with pytest.raises(TypeError, match="one-shot iterator"):
        scale.randomization_test(iter([a - b]))
    with pytest.raises(ValueError, match="cannot run in blocks: a multinomial draw"):
        scale.bootstrap_ci(a, scheme="multinomial")
    with pytest.raises(ValueError, match="need at least 2 queries, got 1"):
        scale.bootstrap_ci(a[:1])
    d = _write_parquet(tmp_path, a, b)
    with pytest.raises(ValueError, match="name the value columns"):
        scale.randomization_test(d)
    with pytest.raises(ValueError, match=r"column 'sparse' is not in .*runs \(its columns: "
                                         r"qid, bm25, dense\)"):
        scale.randomization_test(d, columns=("bm25", "sparse"))
    with pytest.raises(FileNotFoundError, match="no file matches"):
        scale.randomization_test(str(tmp_path / "none*.parquet"), columns=("x", "y"))
    import pyarrow as pa
    import pyarrow.parquet as pq

    t = pa.table({"x": [0.1, None, 0.3], "y": [0.2, 0.2, 0.2]})
    pq.write_table(t, tmp_path / "holes.parquet")
    with pytest.raises(ValueError, match=r"column 'x' of .*holes.parquet has a missing value "
                                         r"\(NaN\) at query 1"):
        scale.randomization_test(tmp_path / "holes.parquet", columns=("x", "y"))
    res = scale.randomization_test(tmp_path / "holes.parquet", columns=("x", "y"),
                                   missing="drop")
    assert res.n_queries == 2 and res.exact


# --------------------------------------------------------------------------
# device steps: sized from the free memory, never changing a number
# --------------------------------------------------------------------------
def test_device_steps_follow_the_free_memory_and_change_nothing(pair, monkeypatch):
    torch = pytest.importorskip("torch")
    from mrrstats import devices
    from mrrstats.stats import resampling

    a, b = pair
    n = a.size
    per_resample = devices.BYTES_PER_SCORE * resampling.XP_SCORES_PER_ELEMENT * n
    D = torch.asarray(a - b)[None, :]
    results = []
    for rows in (1, 7, 300, 10_000):
        monkeypatch.setattr(devices, "free_bytes", lambda S, rows=rows: 2 * per_resample * rows
                            + 3)
        assert resampling.xp_batch(None, n, D, 10_000) == rows
        assert resampling.xp_batch(None, n, D, 5) == min(rows, 5)
        assert resampling.xp_batch(13, n, D, 10_000) == 13  # a given batch wins
        t = mrrstats.randomization_test(torch.asarray(a), torch.asarray(b), n_resamples=300,
                                        rng=3)
        c = mrrstats.bootstrap_ci(torch.asarray(a), torch.asarray(b), n_resamples=200, rng=3)
        results.append((t.pvalue, t.null_distribution, c.bootstrap_distribution))
    ref_t = mrrstats.randomization_test(a, b, n_resamples=300, rng=3)
    ref_c = mrrstats.bootstrap_ci(a, b, n_resamples=200, rng=3)
    for p, null, dist in results:
        assert p == ref_t.pvalue and np.array_equal(null, ref_t.null_distribution)
        assert np.array_equal(dist, ref_c.bootstrap_distribution)
