"""Cluster bootstrap and cluster sign flips: reductions to the plain methods and enumeration."""

import itertools

import numpy as np
import pytest

import mrrstats
from mrrstats.stats.clustered import cluster_bootstrap_ci, cluster_randomization_test


def test_singleton_clusters_equal_plain_bootstrap():
    rng = np.random.default_rng(0)
    a, b = rng.uniform(size=30), rng.uniform(size=30)
    res = cluster_bootstrap_ci(a, b, clusters=np.arange(30), n_resamples=2000, rng=4)
    ref = mrrstats.bootstrap_ci(a, b, n_resamples=2000, rng=4)
    # same engine, same counts: the same resampled means (ratio with all sizes 1)
    np.testing.assert_allclose(res.bootstrap_distribution, ref.bootstrap_distribution,
                               rtol=0, atol=1e-12)


def test_cluster_bootstrap_ratio_by_loop_and_batch():
    # the resampled mean is sum(c_g S_g) / sum(c_g n_g); check against a loop over
    # explicit cluster index draws from the same stream
    x = np.array([1, 0.5, 1, 0.25, 1, 0.33, 0.2, 1, 0.1])
    conv = np.array([0, 0, 0, 1, 1, 2, 2, 2, 3])
    res = cluster_bootstrap_ci(x, clusters=conv, n_resamples=500, rng=7)
    gen = np.random.default_rng(7)
    idx = gen.integers(0, 4, size=(500, 4))
    S = np.array([x[conv == g].sum() for g in range(4)])
    sz = np.array([np.sum(conv == g) for g in range(4)])
    loop = np.sort([S[i].sum() / sz[i].sum() for i in idx])
    np.testing.assert_allclose(res.bootstrap_distribution, loop, atol=1e-12)
    again = cluster_bootstrap_ci(x, clusters=conv, n_resamples=500, batch=3, rng=7)
    assert np.array_equal(again.bootstrap_distribution, res.bootstrap_distribution)


def test_strata_keep_sizes_and_validate():
    x = np.arange(8, dtype=float)
    conv = [0, 0, 1, 1, 2, 2, 3, 3]
    strata = ["s", "s", "s", "s", "t", "t", "t", "t"]
    res = cluster_bootstrap_ci(x, clusters=conv, strata=strata, n_resamples=400, rng=1)
    # each stratum keeps its two clusters: means of s-part in {0.5, 1.5, 2.5} etc.
    assert res.bootstrap_distribution.min() >= (0.5 * 2 + 4.5 * 2) / 4 - 1e-12
    with pytest.raises(ValueError, match="constant within each cluster"):
        cluster_bootstrap_ci(x, clusters=conv, strata=[0, 1, 0, 0, 1, 1, 1, 1])
    with pytest.raises(ValueError, match="`clusters`"):
        cluster_bootstrap_ci(x, clusters=[0, 1])


def test_cluster_randomization_exact_by_enumeration():
    rng = np.random.default_rng(2)
    a, b = rng.uniform(size=14), rng.uniform(size=14)
    conv = np.repeat(np.arange(7), 2)
    res = cluster_randomization_test(a, b, clusters=conv)
    d = a - b
    obs = abs(d.mean())
    count = 0
    for signs in itertools.product([-1, 1], repeat=7):
        flipped = d * np.repeat(signs, 2)
        count += abs(flipped.mean()) >= obs - 1e-12
    assert res.pvalue == pytest.approx(count / 2 ** 7, abs=1e-12)
    # singleton clusters: the plain randomization test
    plain = mrrstats.randomization_test(a, b)
    single = cluster_randomization_test(a, b, clusters=np.arange(14))
    assert single.pvalue == pytest.approx(plain.pvalue, abs=1e-12)
