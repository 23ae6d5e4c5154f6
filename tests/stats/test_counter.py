"""The counter-based stream (Threefry-2x32-20) of the resampling engine.

References: Random123's known-answer vectors (kat_vectors, threefry2x32 with 20
rounds; the same vectors JAX's tests use), the array-API implementation against
the numba kernels, scipy's Poisson CDF, and the definitions in the module docstring
written out as loops.
"""

import numpy as np
import pytest
from scipy import stats

from mrrstats.stats import counter

# (counter words, key words) -> output words, from Random123's kat_vectors
KAT = [
    ((0x00000000, 0x00000000), (0x00000000, 0x00000000), (0x6B200159, 0x99BA4EFE)),
    ((0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF), (0x1CB996FC, 0xBB002BE7)),
    ((0x243F6A88, 0x85A308D3), (0x13198A2E, 0x03707344), (0xC4923A9C, 0x483DF7A0)),
]


@pytest.mark.parametrize(("ctr", "key", "want"), KAT)
def test_known_answers_array_api_and_numba(ctr, key, want):
    x0, x1 = counter.threefry2x32(key, np.array([ctr[0]]), np.array([ctr[1]]))
    assert (int(x0[0]), int(x1[0])) == want
    y0, y1 = counter.threefry2x32_numba(key, [ctr[0]], [ctr[1]])
    assert (int(y0[0]), int(y1[0])) == want


def test_array_api_equals_numba_on_many_counters():
    rng = np.random.default_rng(0)
    c0 = rng.integers(0, 2**32, 5000)
    c1 = rng.integers(0, 2**32, 5000)
    key = (0xDEADBEEF, 0x01234567)
    x0, x1 = counter.threefry2x32(key, c0, c1)
    y0, y1 = counter.threefry2x32_numba(key, c0, c1)
    assert np.array_equal(x0, y0.astype(np.int64)) and np.array_equal(x1, y1.astype(np.int64))


def test_signflip_bits_definition_and_twins():
    key = (123, 456)
    start, r, n, offset = 7, 5, 150, 3
    bits = counter.signflip_bits(key, start, r, n, offset=offset)
    # the definition as a loop: bit i % 64 of h(r, i // 64)
    ref = np.empty((r, n), dtype=np.uint8)
    for j in range(r):
        for q in range(n):
            i = offset + q
            x0, x1 = counter.threefry2x32(key, np.array([start + j]), np.array([i // 64]))
            h = int(x0[0]) | (int(x1[0]) << 32)
            ref[j, q] = (h >> (i % 64)) & 1
    assert np.array_equal(bits, ref)
    assert np.array_equal(counter.signflip_bits_xp(key, start, r, n, offset=offset), ref)


def test_bootstrap_counts_definition_and_twin():
    key = (99, 7)
    r, n = 4, 37
    counts = counter.bootstrap_counts(key, 10, r, n)
    bkey = counter.domain_key(key, counter.BOOTSTRAP_DOMAIN)
    ref = np.zeros((r, n))
    for j in range(r):
        for k in range(n):
            x0, x1 = counter.threefry2x32(bkey, np.array([10 + j]), np.array([k]))
            h = int(x0[0]) | (int(x1[0]) << 32)
            ref[j, (h * n) >> 64] += 1  # floor(h n / 2**64), in Python's exact integers
    assert np.array_equal(counts, ref)
    idx = counter.bootstrap_indices_xp(key, 10, r, n)
    assert np.array_equal(np.stack([np.bincount(i, minlength=n) for i in idx]), ref)


def test_poisson_weights_definition_twin_and_distribution():
    assert counter.POISSON_THRESHOLDS == tuple(
        int(np.floor(2.0**32 * stats.poisson.cdf(k, 1.0))) for k in range(13))
    key = (5, 6)
    w = counter.poisson_weights(key, 3, 6, 41, offset=5)
    assert np.array_equal(w, counter.poisson_weights_xp(key, 3, 6, 41, offset=5))
    # an offset block is the slice of the whole row
    whole = counter.poisson_weights(key, 3, 6, 60)
    assert np.array_equal(w, whole[:, 5:46])
    big = counter.poisson_weights(key, 0, 400, 1000, dtype=np.int64).ravel()
    obs = np.bincount(big, minlength=14)[:6]
    exp = stats.poisson.pmf(np.arange(6), 1.0) * big.size
    chi2 = ((obs - exp) ** 2 / exp).sum()
    assert chi2 < stats.chi2.isf(1e-4, 5)


def test_bits_are_fair_and_uncorrelated():
    b = counter.signflip_bits((1, 2), 0, 20000, 130).astype(float)
    n = b.size
    assert abs(b.mean() - 0.5) < 5 * 0.5 / np.sqrt(n)
    assert abs(np.corrcoef(b[:, :-1].ravel(), b[:, 1:].ravel())[0, 1]) < 5 / np.sqrt(n)
    assert abs(np.corrcoef(b[:-1].ravel(), b[1:].ravel())[0, 1]) < 5 / np.sqrt(n)


def test_bootstrap_counts_are_multinomial():
    c = counter.bootstrap_counts((3, 4), 0, 20000, 40)
    assert np.all(c.sum(axis=1) == 40)
    # E c = 1, Var c = 1 - 1/n per cell
    se = np.sqrt((1 - 1 / 40) / c.size)
    assert abs(c.mean() - 1) < 1e-12 and abs(c.var() - (1 - 1 / 40)) < 6 * np.sqrt(2) * se


@pytest.mark.parametrize("kind", ["signflip", "boot", "poisson"])
def test_identical_for_one_and_two_workers_and_any_split(kind):
    key = (2024, 11)
    f = {"signflip": counter.signflip_bits, "boot": counter.bootstrap_counts,
         "poisson": counter.poisson_weights}[kind]
    one = f(key, 0, 300, 257, workers=1)
    two = f(key, 0, 300, 257, workers=2)
    assert np.array_equal(one, two)
    parts = np.vstack([f(key, 0, 100, 257, workers=2), f(key, 100, 200, 257, workers=1)])
    assert np.array_equal(one, parts)


def test_keys_and_ranges():
    gen = np.random.default_rng(1)
    raw = int(np.random.default_rng(1).bit_generator.random_raw())
    assert counter.stream_key(gen) == (raw & 0xFFFFFFFF, raw >> 32)
    assert counter.as_key((2**33 + 5, 7)) == (5, 7)
    with pytest.raises(ValueError, match="2\\*\\*32"):
        counter.signflip_bits((1, 2), 2**32 - 1, 2, 10)
    with pytest.raises(ValueError, match="2\\*\\*30"):
        counter.bootstrap_counts((1, 2), 0, 1, 2**30)
    with pytest.raises(ValueError, match="workers"):
        counter.signflip_bits((1, 2), 0, 1, 10, workers=0)
    # sub-streams are distinct keys
    assert len({counter.subkey((1, 2), j) for j in range(100)}) == 100
