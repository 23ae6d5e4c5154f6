"""The sign-flip and bootstrap engines on array-API arrays (torch, array-api-strict).

The same seed must give bit-identical p-values, null distributions and intervals
on the array's own device as on the NumPy path (the counter-based stream and
exact-split sums make this hold by construction; these tests check it).
"""

import numpy as np
import pytest

import mrrstats
from mrrstats.stats import resampling

torch = pytest.importorskip("torch")
xps = pytest.importorskip("array_api_strict")

MAKERS = {"torch": lambda a: torch.from_numpy(np.array(a)), "strict": xps.asarray}


def _cuda_available():
    return bool(torch.cuda.is_available())


def _pair(n=300, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.random(n)
    return a, a + rng.normal(0.03, 0.3, n)


@pytest.mark.parametrize("kind", list(MAKERS))
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_randomization_test_identical_on_array_api(kind, alternative):
    a, b = _pair()
    mk = MAKERS[kind]
    ref = mrrstats.randomization_test(a, b, alternative=alternative, n_resamples=3000, rng=4)
    got = mrrstats.randomization_test(mk(a), mk(b), alternative=alternative,
                                      n_resamples=3000, rng=4, batch=700)
    assert not ref.exact and got.pvalue == ref.pvalue and got.pvalue_se == ref.pvalue_se
    assert np.array_equal(got.null_distribution, ref.null_distribution)
    assert got.confidence_interval() == ref.confidence_interval()
    # mixed inputs (one host array) and dropped queries take the device path too
    a2, b2 = a.copy(), b.copy()
    a2[[3, 50]] = np.nan
    ref2 = mrrstats.randomization_test(a2, b2, n_resamples=999, missing="drop", rng=1)
    got2 = mrrstats.randomization_test(mk(a2), b2, n_resamples=999, missing="drop", rng=1)
    assert got2.pvalue == ref2.pvalue and got2.n_queries == 298
    assert np.array_equal(got2.null_distribution, ref2.null_distribution)


@pytest.mark.parametrize("kind", list(MAKERS))
@pytest.mark.parametrize("method", ["bca", "percentile", "basic"])
def test_bootstrap_ci_identical_on_array_api(kind, method):
    a, b = _pair(250, seed=2)
    mk = MAKERS[kind]
    ref = mrrstats.bootstrap_ci(a, b, method=method, n_resamples=2000, rng=7)
    got = mrrstats.bootstrap_ci(mk(a), mk(b), method=method, n_resamples=2000, rng=7,
                                batch=333)
    assert np.array_equal(got.bootstrap_distribution, ref.bootstrap_distribution)
    assert got.confidence_interval() == ref.confidence_interval()
    one = mrrstats.bootstrap_ci(mk(a), n_resamples=500, rng=1)
    assert one.confidence_interval() == mrrstats.bootstrap_ci(a, n_resamples=500,
                                                              rng=1).confidence_interval()


@pytest.mark.parametrize("kind", list(MAKERS))
def test_pairwise_randomization_identical_on_array_api(kind, monkeypatch):
    rng = np.random.default_rng(5)
    X = rng.random((4, 200))  # (n_systems, n_queries)
    X[1] += 0.05
    calls = []
    from mrrstats.stats import rows

    real = rows.signflip_counts_xp
    monkeypatch.setattr(rows, "signflip_counts_xp",
                        lambda *a, **k: calls.append(1) or real(*a, **k))
    # Holm: per-pair p-values, the engine that resamples on the array's device (the
    # default single-step max-T resamples all pairs jointly on the host)
    ref = mrrstats.pairwise_tests(X, n_resamples=2000, correction="holm", rng=3)
    got = mrrstats.pairwise_tests(MAKERS[kind](X), n_resamples=2000, correction="holm", rng=3)
    assert calls  # the device engine ran
    assert np.array_equal(got.pvalue, ref.pvalue)
    assert np.array_equal(got.ci_low, ref.ci_low) and np.array_equal(got.ci_high, ref.ci_high)


def test_engine_functions_agree_for_many_pairs():
    rng = np.random.default_rng(9)
    D = rng.normal(0.02, 0.3, (5, 130))
    for alternative in ("two-sided", "greater", "less"):
        host = resampling.signflip_counts(D, alternative, n_resamples=1500, exact=False,
                                          batch=None, gen=np.random.default_rng(2))
        dev = resampling.signflip_counts_xp(torch.from_numpy(D), alternative,
                                            n_resamples=1500, batch=101,
                                            gen=np.random.default_rng(2),
                                            xp=resampling.array_namespace_of(torch.ones(1)))
        assert np.array_equal(host[0], dev[0]) and host[1:] == dev[1:]
    X = rng.random((3, 77))
    host = resampling.bootstrap_sums(X, 900, None, np.random.default_rng(4))
    dev = resampling.bootstrap_sums_xp(xps.asarray(X), 900, 64, np.random.default_rng(4),
                                       xp=resampling.array_namespace_of(xps.asarray(X)))
    assert np.array_equal(host, dev)


@pytest.mark.requires_cuda
@pytest.mark.skipif(not _cuda_available(), reason="needs torch with CUDA")
def test_cuda_identical_to_numpy():  # pragma: no cover - needs a GPU
    a, b = _pair(7000, seed=1)
    ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
    ref = mrrstats.randomization_test(a, b, n_resamples=20000, rng=11)
    got = mrrstats.randomization_test(ta, tb, n_resamples=20000, rng=11)
    assert got.pvalue == ref.pvalue
    assert np.array_equal(got.null_distribution, ref.null_distribution)
    ci_ref = mrrstats.bootstrap_ci(a, b, rng=3)
    ci_got = mrrstats.bootstrap_ci(ta, tb, rng=3)
    assert ci_got.confidence_interval() == ci_ref.confidence_interval()
    X = np.random.default_rng(2).random((10, 7000))
    ref = mrrstats.pairwise_tests(X, rng=5)
    got = mrrstats.pairwise_tests(torch.from_numpy(X).cuda(), rng=5)
    assert np.array_equal(got.pvalue, ref.pvalue)
