"""Resampling over blocks of queries: the in-memory numbers, bit for bit."""

import numpy as np
import pytest

import mrrstats
from mrrstats.stats import resampling


def _blocks(x, size):
    return [x[i:i + size] for i in range(0, x.size, size)]


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("size", [1, 63, 64, 100, 1000, 5000])
def test_signflip_blocked_equals_in_memory(alternative, size):
    rng = np.random.default_rng(1)
    # 3,000 queries; blocks of one query on 300 (each block is one kernel call)
    d = rng.normal(0.01, 0.3, 300 if size == 1 else 3000)
    count, total, sums, kept, dsum = resampling.signflip_counts_blocked(
        _blocks(d, size), alternative, n_resamples=500, gen=np.random.default_rng(4))
    ref = resampling.signflip_counts(d[None, :], alternative, n_resamples=500, exact=False,
                                     batch=None, gen=np.random.default_rng(4), keep=True)
    assert count == ref[0][0] and total == 500
    assert np.array_equal(sums, ref[3]) and np.array_equal(kept, ref[4])
    assert dsum == np.sum(d)


def test_signflip_blocked_accepts_a_generator_function_and_checks_input():
    d = np.random.default_rng(2).normal(size=700)
    a = resampling.signflip_counts_blocked(lambda: iter(_blocks(d, 99)), "two-sided",
                                           n_resamples=200, gen=np.random.default_rng(1))
    b = resampling.signflip_counts_blocked(_blocks(d, 700), "two-sided", n_resamples=200,
                                           gen=np.random.default_rng(1))
    assert a[0] == b[0] and np.array_equal(a[2], b[2])
    with pytest.raises(ValueError, match="finite"):
        resampling.signflip_counts_blocked([np.array([1.0, np.nan])], "two-sided",
                                           n_resamples=10, gen=np.random.default_rng(1))
    with pytest.raises(ValueError, match="no query"):
        resampling.signflip_counts_blocked([], "two-sided", n_resamples=10,
                                           gen=np.random.default_rng(1))


@pytest.mark.parametrize("size", [1, 7, 64, 500, 2000])
def test_poisson_bootstrap_blocked_equals_in_memory(size):
    x = np.random.default_rng(3).random(2000)
    bsums, bw, xsum = resampling.poisson_bootstrap_blocked(_blocks(x, size), 400,
                                                           np.random.default_rng(5))
    sums, w = resampling.poisson_bootstrap_sums(x, 400, np.random.default_rng(5))
    assert np.array_equal(bsums, sums[0]) and np.array_equal(bw, w) and xsum == np.sum(x)


def test_poisson_bootstrap_reference_loop_and_variance():
    x = np.random.default_rng(6).random(300)
    key = (11, 12)
    from mrrstats.stats import counter

    sums, w = resampling.poisson_bootstrap_sums(x, 50, None, key=key)
    W = counter.poisson_weights_xp(key, 0, 50, 300).astype(float)
    np.testing.assert_allclose(sums[0], W @ x, rtol=1e-13)
    assert np.array_equal(w, W.sum(axis=1))
    # the Poisson bootstrap's standard error of the mean matches the multinomial one's
    sums, w = resampling.poisson_bootstrap_sums(x, 20000, np.random.default_rng(1))
    se = (sums[0] / w).std()
    ref = x.std() / np.sqrt(x.size)
    assert abs(se / ref - 1) < 5 * np.sqrt(2 / 20000) + 0.02


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_fused_kernel_for_millions_of_queries_gives_the_batched_counts(alternative,
                                                                       monkeypatch):
    """From FUSED_MIN_QUERIES on the engine skips the float32 products and materialised
    bits; lowering the threshold must give the batched path's counts, sums and kept signs."""
    from mrrstats.stats import resampling

    rng = np.random.default_rng(5)
    D = np.round(rng.normal(0.02, 0.3, size=(3, 999)), 2)  # coarse grid: many ties
    D[:, ::7] = 0.0
    kw = dict(n_resamples=501, exact=False, batch=64)
    want = resampling.signflip_counts(D, alternative, gen=np.random.default_rng(1), **kw)
    want1 = resampling.signflip_counts(D[:1], alternative, gen=np.random.default_rng(2),
                                       keep=True, **kw)
    res_want = mrrstats.randomization_test(D[0], np.zeros(999), alternative=alternative,
                                           n_resamples=501, rng=3)
    monkeypatch.setattr(resampling, "FUSED_MIN_QUERIES", 1)
    got = resampling.signflip_counts(D, alternative, gen=np.random.default_rng(1), **kw)
    got1 = resampling.signflip_counts(D[:1], alternative, gen=np.random.default_rng(2),
                                      keep=True, **kw)
    res_got = mrrstats.randomization_test(D[0], np.zeros(999), alternative=alternative,
                                          n_resamples=501, rng=3)
    np.testing.assert_array_equal(got[0], want[0])
    assert got[1:] == want[1:]
    for g, w in zip(got1, want1, strict=True):
        np.testing.assert_array_equal(g, w)
    assert ((0 < want[0]) & (want[0] < 501)).any()  # not a degenerate case
    assert res_got.pvalue == res_want.pvalue
    np.testing.assert_array_equal(res_got.null_distribution, res_want.null_distribution)
