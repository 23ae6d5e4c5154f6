"""Clustered and stratified queries in bootstrap_ci, bootstrap_test and randomization_test.

References: loop implementations of the cluster bootstrap (Davison & Hinkley 1997, 3.8),
the pairs cluster bootstrap-t (Cameron, Gelbach & Miller 2008) and the cluster sign-flip
test (full enumeration), all drawing from the same random stream as the engine.
"""

import itertools

import numpy as np
import pytest
from scipy import stats

import mrrstats
from mrrstats.stats.counter import bootstrap_indices_xp, stream_key


def _draws(gen, B, n):
    """Bootstrap draws (B, n) of one engine call: the counter stream keyed once by ``gen``."""
    return bootstrap_indices_xp(stream_key(gen), 0, B, n)


def _data(n=30, seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(size=n), rng.uniform(size=n)


# -- the exact relationship with the unclustered methods -----------------------------
# Every query its own cluster (clusters numbered by first appearance, whatever the
# labels) draws the same resamples from the same seed, so:
#   bootstrap_ci: identical bootstrap distribution, acceleration and intervals;
#   randomization_test: identical p-value, null distribution and interval;
#   bootstrap_test: identical p-value, null distribution equal to 1e-12 relative.
@pytest.mark.parametrize("labels", ["arange", "strings", "reversed"])
def test_singleton_clusters_bootstrap_ci_identical(labels):
    a, b = _data(30)
    cl = {"arange": np.arange(30), "strings": [f"q{i}" for i in range(30)],
          "reversed": np.arange(30)[::-1]}[labels]
    ref = mrrstats.bootstrap_ci(a, b, n_resamples=2000, rng=4)
    res = mrrstats.bootstrap_ci(a, b, clusters=cl, n_resamples=2000, rng=4)
    assert np.array_equal(res.bootstrap_distribution, ref.bootstrap_distribution)
    assert res.acceleration == ref.acceleration
    assert res.n_clusters == 30 and ref.n_clusters is None
    for method in ("bca", "percentile", "basic"):
        assert tuple(res.confidence_interval(method=method)) == \
            tuple(ref.confidence_interval(method=method))


@pytest.mark.parametrize("n", [12, 40])  # exact enumeration and Monte Carlo
def test_singleton_clusters_randomization_identical(n):
    a, b = _data(n, seed=1)
    ref = mrrstats.randomization_test(a, b, n_resamples=3000, rng=5)
    res = mrrstats.randomization_test(a, b, clusters=[f"c{i}" for i in range(n)],
                                      n_resamples=3000, rng=5)
    assert res.exact == ref.exact == (n == 12)
    assert res.pvalue == ref.pvalue and res.statistic == ref.statistic
    assert np.array_equal(res.null_distribution, ref.null_distribution)
    assert tuple(res.confidence_interval()) == tuple(ref.confidence_interval())


@pytest.mark.parametrize("method", ["studentized", "shift"])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_singleton_clusters_bootstrap_test_equal(method, alternative):
    a, b = _data(25, seed=2)
    b = b - 0.1
    ref = mrrstats.bootstrap_test(a, b, method=method, alternative=alternative,
                                  n_resamples=3000, rng=6)
    res = mrrstats.bootstrap_test(a, b, method=method, alternative=alternative,
                                  clusters=np.arange(25), n_resamples=3000, rng=6)
    assert res.pvalue == ref.pvalue
    np.testing.assert_allclose(res.statistic, ref.statistic, rtol=1e-12)
    np.testing.assert_allclose(res.standard_error, ref.standard_error, rtol=1e-12)
    np.testing.assert_allclose(res.null_distribution, ref.null_distribution, rtol=1e-10,
                               atol=1e-12)


# -- loop references ----------------------------------------------------------------
X = np.array([1, 0.5, 1, 0.25, 1, 0.33, 0.2, 1, 0.1, 0.5, 0.7])
CONV = np.array(["a", "a", "a", "b", "b", "c", "c", "c", "d", "e", "e"])


def _cluster_arrays(x, conv):
    labels = list(dict.fromkeys(conv))  # first appearance
    S = np.array([x[conv == g].sum() for g in labels])
    sz = np.array([np.sum(conv == g) for g in labels], dtype=float)
    return S, sz


def test_cluster_bootstrap_ci_by_loop_and_batch():
    B = 700
    res = mrrstats.bootstrap_ci(X, clusters=CONV, n_resamples=B, rng=7)
    gen = np.random.default_rng(7)
    S, sz = _cluster_arrays(X, CONV)
    idx = _draws(gen, B, S.size)
    loop = np.sort([S[i].sum() / sz[i].sum() for i in idx])
    np.testing.assert_allclose(res.bootstrap_distribution, loop, rtol=0, atol=1e-14)
    for batch in (1, 3, 64):
        again = mrrstats.bootstrap_ci(X, clusters=CONV, n_resamples=B, batch=batch, rng=7)
        assert np.array_equal(again.bootstrap_distribution, res.bootstrap_distribution)
    # the acceleration is the leave-one-cluster-out jackknife
    theta = np.array([X[CONV != g].mean() for g in dict.fromkeys(CONV)])
    U = theta.mean() - theta
    assert res.acceleration == pytest.approx((U**3).sum() / (6 * (U**2).sum() ** 1.5),
                                             rel=1e-12)
    lo, hi = res.confidence_interval(method="percentile")
    np.testing.assert_allclose((lo, hi), np.quantile(loop, [0.025, 0.975]), atol=1e-14)


def test_stratified_bootstrap_by_loop():
    # strata constant within clusters; each stratum draws its own clusters, stratum by
    # stratum (all B resamples of the first, then the second)
    strata = np.array(["s", "s", "s", "s", "s", "t", "t", "t", "t", "t", "t"])
    B = 500
    res = mrrstats.bootstrap_ci(X, clusters=CONV, strata=strata, n_resamples=B, rng=3,
                                method="percentile")
    gen = np.random.default_rng(3)
    S, sz = _cluster_arrays(X, CONV)
    groups = [np.array([0, 1]), np.array([2, 3, 4])]  # clusters a, b | c, d, e
    tot, cnt = np.zeros(B), np.zeros(B)
    for g in groups:
        idx = _draws(gen, B, g.size)
        tot += S[g][idx].sum(axis=1)
        cnt += sz[g][idx].sum(axis=1)
    np.testing.assert_allclose(res.bootstrap_distribution, np.sort(tot / cnt), atol=1e-14)
    again = mrrstats.bootstrap_ci(X, clusters=CONV, strata=strata, n_resamples=B, rng=3,
                                  batch=5, method="percentile")
    assert np.array_equal(again.bootstrap_distribution, res.bootstrap_distribution)
    # strata without clusters: queries resampled within strata (size of each kept)
    only = mrrstats.bootstrap_ci(X, strata=strata, n_resamples=B, rng=3)
    gen = np.random.default_rng(3)
    tot = np.zeros(B)
    for h in ("s", "t"):
        xs = X[strata == h]
        tot += xs[_draws(gen, B, xs.size)].sum(axis=1)
    np.testing.assert_allclose(only.bootstrap_distribution, np.sort(tot / X.size),
                               atol=1e-14)
    assert only.n_clusters == X.size


@pytest.mark.parametrize("method", ["studentized", "shift"])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_cluster_bootstrap_test_by_loop(method, alternative):
    rng = np.random.default_rng(11)
    conv = np.repeat(np.arange(9), [1, 3, 2, 4, 2, 3, 1, 2, 2])
    d = rng.normal(0.05, 0.3, conv.size) + 0.1 * rng.normal(size=9)[conv]
    B = 800
    res = mrrstats.bootstrap_test(d, np.zeros_like(d), method=method, alternative=alternative,
                                  clusters=conv, n_resamples=B, rng=9)
    # loop: draw clusters, concatenate their queries, recompute from scratch
    G, n = 9, d.size
    members = [d[conv == g] for g in range(G)]

    def crse(parts):
        allq = np.concatenate(parts)
        m = allq.mean()
        return m, np.sqrt(G / (G - 1) * sum((p.sum() - p.size * m) ** 2 for p in parts)) / allq.size

    mean, se = crse(members)
    obs = mean / se if method == "studentized" else mean
    gen = np.random.default_rng(9)
    null = []
    for idx in _draws(gen, B, G):
        m, s = crse([members[i] for i in idx])
        null.append((m - mean) / s if method == "studentized" else m - mean)
    null = np.array(null)
    np.testing.assert_allclose(res.null_distribution, null, rtol=1e-9, atol=1e-12)
    assert res.statistic == pytest.approx(obs, rel=1e-12)
    assert res.standard_error == pytest.approx(se, rel=1e-12)
    if alternative == "two-sided":
        c = np.sum(np.abs(null) >= abs(obs) * (1 - 1e-9))
    elif alternative == "greater":
        c = np.sum(null >= obs - 1e-9 * abs(obs))
    else:
        c = np.sum(null <= obs + 1e-9 * abs(obs))
    assert res.pvalue == (c + 1) / (B + 1)
    assert res.n_clusters == 9 and res.n_queries == n
    for batch in (1, 7):
        again = mrrstats.bootstrap_test(d, np.zeros_like(d), method=method,
                                        alternative=alternative, clusters=conv,
                                        n_resamples=B, batch=batch, rng=9)
        assert again.pvalue == res.pvalue
        assert np.array_equal(again.null_distribution, res.null_distribution)


def test_cluster_randomization_exact_by_enumeration_and_interval():
    rng = np.random.default_rng(2)
    conv = np.repeat(np.arange(7), [2, 1, 3, 2, 2, 1, 3])
    a, b = rng.uniform(size=conv.size), rng.uniform(size=conv.size)
    res = mrrstats.randomization_test(a, b, clusters=conv)
    d = a - b
    assert res.exact and res.n_resamples == 2**7 and res.n_clusters == 7
    assert res.statistic == pytest.approx(d.mean(), rel=1e-14)

    def pvals(dd):
        obs = dd.mean()
        t = np.array([(dd * np.array(s)[conv]).mean()
                      for s in itertools.product([-1, 1], repeat=7)])
        tol = 1e-12
        return (np.mean(np.abs(t) >= abs(obs) - tol), np.mean(t >= obs - tol),
                np.mean(t <= obs + tol), t)

    two, greater, less, t = pvals(d)
    assert res.pvalue == pytest.approx(two, abs=1e-15)
    np.testing.assert_allclose(np.sort(res.null_distribution), np.sort(t), atol=1e-14)
    # the interval: shifts delta (per query) that neither one-sided test rejects at 0.1
    low, high = res.confidence_interval(0.8)
    for delta in np.linspace(d.mean() - 1, d.mean() + 1, 161):
        _, g, le, _ = pvals(d - delta)
        accepted = g > 0.1 and le > 0.1
        inside = low <= delta <= high
        if abs(delta - low) > 1e-9 and abs(delta - high) > 1e-9:
            assert accepted == inside, delta


def test_cluster_randomization_monte_carlo_is_the_test_on_totals():
    rng = np.random.default_rng(4)
    conv = np.repeat(np.arange(40), 3)
    a, b = rng.uniform(size=120), rng.uniform(size=120) - 0.05
    res = mrrstats.randomization_test(a, b, clusters=conv, n_resamples=2000, rng=8)
    D = (a - b).reshape(40, 3).sum(axis=1)
    tot = mrrstats.randomization_test(D, np.zeros(40), n_resamples=2000, rng=8)
    assert not res.exact and res.pvalue == tot.pvalue
    # null distribution of the per-query mean = that of the cluster totals' mean * G / n
    np.testing.assert_allclose(res.null_distribution, tot.null_distribution * 40 / 120,
                               rtol=1e-12)
    for batch in (1, 33):
        again = mrrstats.randomization_test(a, b, clusters=conv, n_resamples=2000, rng=8,
                                            batch=batch)
        assert again.pvalue == res.pvalue
        assert np.array_equal(again.null_distribution, res.null_distribution)
        assert tuple(again.confidence_interval()) == tuple(res.confidence_interval())


def test_missing_drop_aligns_clusters():
    a, b = _data(12, seed=3)
    conv = np.repeat(np.arange(4), 3)
    a2 = a.copy()
    a2[[1, 6, 7, 8]] = np.nan  # cluster 2 disappears entirely
    res = mrrstats.bootstrap_ci(a2, b, clusters=conv, missing="drop", n_resamples=300, rng=1)
    keep = ~np.isnan(a2)
    ref = mrrstats.bootstrap_ci(a[keep], b[keep], clusters=conv[keep], n_resamples=300, rng=1)
    assert res.n_clusters == 3
    assert np.array_equal(res.bootstrap_distribution, ref.bootstrap_distribution)
    rt = mrrstats.randomization_test(a2, b, clusters=conv, missing="drop")
    assert rt.n_clusters == 3 and rt.n_queries == 8


def test_bad_clusters_and_strata():
    x = np.arange(8, dtype=float)
    conv = [0, 0, 1, 1, 2, 2, 3, 3]
    with pytest.raises(ValueError, match="constant within each cluster"):
        mrrstats.bootstrap_ci(x, clusters=conv, strata=[0, 1, 0, 0, 1, 1, 1, 1])
    with pytest.raises(ValueError, match="`clusters` must be 1-D with one label per query"):
        mrrstats.bootstrap_ci(x, clusters=[0, 1])
    with pytest.raises(ValueError, match="`clusters` has a missing label at position 2"):
        mrrstats.randomization_test(x, x[::-1], clusters=[0, 0, None, 1, 1, 2, 2, 3])
    with pytest.raises(ValueError, match="at least 2 clusters"):
        mrrstats.bootstrap_test(x, x[::-1], clusters=np.zeros(8))
    with pytest.raises(ValueError, match="`strata` must be 1-D"):
        mrrstats.bootstrap_ci(x, strata=[[0] * 8])


def test_rank_intervals_clusters_by_loop():
    # the cluster max-|t| bootstrap of rank_intervals, recomputed by a loop over explicit
    # cluster draws from the same stream (same order: one index row per resample)
    rng = np.random.default_rng(5)
    conv = np.repeat(np.arange(12), [3, 1, 4, 2, 2, 3, 1, 5, 2, 3, 2, 2])
    n, k = conv.size, 4
    x = rng.normal(size=(n, 1)) + [0.0, 0.1, 0.5, 0.9] + rng.normal(0, 0.4, (n, k))
    B = 400
    ri = mrrstats.rank_intervals(x.T, clusters=conv, n_resamples=B, rng=3)
    ii, jj = np.triu_indices(k, 1)
    d = x[:, ii] - x[:, jj]
    dhat = d.mean(axis=0)
    parts = [d[conv == g] for g in range(12)]
    S = np.array([p.sum(axis=0) for p in parts])  # (G, pairs)
    sz = np.array([len(p) for p in parts], float)
    se = np.sqrt(12 / 11 * ((S - sz[:, None] * dhat) ** 2).sum(axis=0)) / n
    gen = np.random.default_rng(3)
    maxt = [np.max(np.abs(S[i].sum(axis=0) / sz[i].sum() - dhat) / se)
            for i in _draws(gen, B, 12)]
    c = np.quantile(maxt, 0.95, method="higher")
    assert ri.critical_value == pytest.approx(c, rel=1e-12)
    sig = np.abs(dhat) / se > c
    assert np.array_equal(ri.significant[ii, jj], sig)
    again = mrrstats.rank_intervals(x.T, clusters=conv, n_resamples=B, rng=3, batch=7)
    assert again.critical_value == ri.critical_value


# -- clusters in pairwise_tests and compare --------------------------------------------
def _three(n=18, seed=6):
    rng = np.random.default_rng(seed)
    conv = np.repeat(np.arange(6), 3)
    base = rng.random(n) + 0.3 * rng.normal(size=6)[conv]
    import pandas as pd

    df = pd.DataFrame({"a": base, "b": base + rng.normal(0.1, 0.2, n),
                       "c": base + rng.normal(0.3, 0.2, n)},
                      index=[f"{g}_{i}" for i, g in enumerate(conv)])
    return df, conv


def test_pairwise_randomization_clusters_equal_per_pair():
    df, conv = _three()
    res = mrrstats.pairwise_tests(df, test="randomization", correction="none",
                                  clusters=conv)
    assert res.exact
    for q, (a, b) in enumerate(zip(res.a, res.b, strict=True)):
        ref = mrrstats.randomization_test(df[a], df[b], clusters=conv)
        assert res.pvalue[q] == ref.pvalue
        lo, hi = ref.confidence_interval(0.95)
        assert (res.ci_low[q], res.ci_high[q]) == pytest.approx((lo, hi), abs=1e-12)
    # Monte Carlo: every pair shares the sign matrix; two systems = the single-pair test
    rng = np.random.default_rng(1)
    conv2 = np.repeat(np.arange(40), 2)
    x = rng.random((80, 2))
    import pandas as pd

    two = mrrstats.pairwise_tests(pd.DataFrame(x, columns=["a", "b"]), correction="none",
                                  clusters=conv2, n_resamples=999, rng=4)
    one = mrrstats.randomization_test(x[:, 0], x[:, 1], clusters=conv2, n_resamples=999,
                                      rng=4)
    assert two.pvalue[0] == one.pvalue and not two.exact
    # the interval inverts the two-sided clustered test on its own sign vectors: replay
    # them and check that p(delta) crosses 0.05 at the ends
    from mrrstats.stats.resampling import signflip_rows

    signs = 2.0 * signflip_rows(stream_key(np.random.default_rng(4)), 0, 999, 40) - 1.0
    Dg = (x[:, 0] - x[:, 1]).reshape(40, 2).sum(axis=1)

    def p_at(delta):
        e = Dg - 2 * delta
        return (1 + np.sum(np.abs(signs @ e) >= abs(e.sum()) - 1e-12)) / 1000

    lo, hi = two.ci_low[0], two.ci_high[0]
    assert p_at(lo + 1e-9) > 0.05 and p_at(hi - 1e-9) > 0.05
    assert p_at(lo - 1e-6) <= 0.05 and p_at(hi + 1e-6) <= 0.05
    # singleton clusters: the unclustered pairwise result
    plain = mrrstats.pairwise_tests(pd.DataFrame(x, columns=["a", "b"]), correction="none",
                                    n_resamples=999, rng=4)
    single = mrrstats.pairwise_tests(pd.DataFrame(x, columns=["a", "b"]), correction="none",
                                     clusters=np.arange(80), n_resamples=999, rng=4)
    assert single.pvalue[0] == plain.pvalue[0]
    assert (single.ci_low[0], single.ci_high[0]) == (plain.ci_low[0], plain.ci_high[0])


@pytest.mark.parametrize("test, method", [("bootstrap-t", "studentized"),
                                          ("bootstrap", "shift")])
def test_pairwise_bootstrap_clusters_equal_single_pair(test, method):
    import pandas as pd

    rng = np.random.default_rng(2)
    conv = np.repeat(np.arange(15), 3)
    x = rng.random((45, 2)) + [0.0, 0.05]
    res = mrrstats.pairwise_tests(pd.DataFrame(x, columns=["a", "b"]), test=test,
                                  correction="none", clusters=conv, n_resamples=999, rng=8)
    ref = mrrstats.bootstrap_test(x[:, 0], x[:, 1], method=method, clusters=conv,
                                  n_resamples=999, rng=8)
    assert res.pvalue[0] == ref.pvalue
    # marginal interval: cluster-robust t with G - 1 degrees of freedom
    se = ref.standard_error
    q = stats.t.ppf(0.975, 14)
    assert (res.marginal_low[0], res.marginal_high[0]) == pytest.approx(
        (ref.difference - q * se, ref.difference + q * se), rel=1e-12)


def test_compare_clusters_mapping_and_errors():
    df, conv = _three()
    by_id = {q: q.split("_")[0] for q in df.index}
    a = mrrstats.compare(df, measure="RR", clusters=by_id, correction="holm")
    b = mrrstats.compare(df, measure="RR", clusters=conv, correction="holm")
    np.testing.assert_array_equal(a.to_frame()["pvalue"], b.to_frame()["pvalue"])
    assert "6 clusters" in a.caption()
    with pytest.raises(ValueError, match="clusters"):
        mrrstats.compare(df, measure="RR", clusters=conv, test="t")


def test_cli_clusters_prefix_on_cast(capsys):
    # CAsT 2021 turns "conv_turn": --clusters prefix:_ flips whole conversations
    import json

    from mrrstats.cli import main

    d = mrrstats.datasets.cast2021()
    runs = list(d.runs)[:2]
    # one pair: Holm leaves the sign-flip test's p-value as it is
    assert main(["compare", str(d.qrels), *map(str, runs), "--clusters", "prefix:_",
                 "--correction", "holm", "--seed", "1", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    ev = mrrstats.evaluate(d.qrels, runs, ["RR"])
    f = ev.scores("RR")
    conv = [q.split("_")[0] for q in f.index]
    ref = mrrstats.randomization_test(f.iloc[:, 0], f.iloc[:, 1], clusters=conv)
    assert doc["settings"]["n_clusters"] == len(set(conv)) == ref.n_clusters
    assert doc["pairs"][0]["pvalue"] == pytest.approx(ref.pvalue, abs=1e-15)


@pytest.mark.parametrize("test, ci", [("randomization", None), ("bootstrap-t", "bca"),
                                      ("bootstrap", "percentile")])
def test_pairwise_clusters_same_seed_any_batch(test, ci):
    import pandas as pd

    rng = np.random.default_rng(3)
    conv = np.repeat(np.arange(30), 2)
    x = pd.DataFrame(rng.random((60, 3)), columns=list("abc"))
    # with the default correction (single-step: one permutation per cluster), and with
    # Holm for the bootstrap intervals, drawn right after the test's resamples
    corr = "single-step" if ci is None else "holm"
    ref = mrrstats.pairwise_tests(x, test=test, ci=ci, clusters=conv, n_resamples=600, rng=2,
                                  correction=corr)
    for batch in (1, 7):
        got = mrrstats.pairwise_tests(x, test=test, ci=ci, clusters=conv, n_resamples=600,
                                      rng=2, batch=batch, correction=corr)
        pd.testing.assert_frame_equal(got.to_frame(), ref.to_frame(), check_exact=True)
    # bootstrap intervals with clusters: the cluster bootstrap of bootstrap_ci, drawn after
    # the test's own resamples (replayed here by bootstrap_test on the same Generator)
    if ci is not None:
        one = mrrstats.pairwise_tests(x[["a", "b"]], test="bootstrap", ci=ci, clusters=conv,
                                      n_resamples=600, rng=2, correction="holm")
        gen = np.random.default_rng(2)
        mrrstats.bootstrap_test(x["a"], x["b"], method="shift", clusters=conv,
                                n_resamples=600, rng=gen)
        bc = mrrstats.bootstrap_ci(x["a"], x["b"], method=ci, clusters=conv, n_resamples=600,
                                   rng=gen).confidence_interval()
        assert (one.ci_low[0], one.ci_high[0]) == pytest.approx(tuple(bc), abs=1e-12)


@pytest.mark.parametrize("test", ["tukey", "maxt"])
def test_family_permutations_singleton_clusters_identical(test):
    import pandas as pd

    rng = np.random.default_rng(8)
    x = pd.DataFrame(rng.random((16, 4)) + [0, 0.1, 0.3, 0.4], columns=list("abcd"))
    ref = mrrstats.pairwise_tests(x, test=test, n_resamples=400, rng=5)
    got = mrrstats.pairwise_tests(x, test=test, n_resamples=400, rng=5, batch=7,
                                  clusters=[f"q{i}" for i in range(16)])
    cols = ["pvalue", "pvalue_adjusted", "reject", "ci_low", "ci_high"]
    pd.testing.assert_frame_equal(got.to_frame()[cols], ref.to_frame()[cols],
                                  check_exact=True)


def test_tukey_cluster_permutations_by_loop():
    # one permutation of the systems per (resample, conversation), applied to all its turns
    import pandas as pd

    rng = np.random.default_rng(9)
    conv = np.repeat(np.arange(6), [2, 3, 1, 4, 2, 3])
    n, k, B = conv.size, 3, 300
    X = rng.random((n, k)) + 0.3 * rng.normal(size=(6, 1))[conv] + [0, 0.1, 0.5]
    res = mrrstats.pairwise_tests(pd.DataFrame(X, columns=list("abc")), test="tukey",
                                  clusters=conv, n_resamples=B, rng=4)
    gen = np.random.default_rng(4)
    idx = gen.permuted(np.broadcast_to(np.arange(k), (B, 6, k)), axis=-1)
    ranges = []
    for b in range(B):
        Xp = np.array([X[q, idx[b, conv[q]]] for q in range(n)])
        m = Xp.mean(axis=0)
        ranges.append(m.max() - m.min())
    ranges = np.array(ranges)
    means = X.mean(axis=0)
    for q, (i, j) in enumerate([(0, 1), (0, 2), (1, 2)]):
        obs = abs(means[i] - means[j])
        p = (1 + np.sum(ranges >= obs - 1e-9)) / (B + 1)
        assert res.pvalue_adjusted[q] == pytest.approx(p, abs=1e-12)
    assert res.n_clusters == 6
    again = mrrstats.pairwise_tests(pd.DataFrame(X, columns=list("abc")), test="maxt",
                                    control="a", clusters=conv, n_resamples=B, rng=4,
                                    batch=11)
    ref = mrrstats.pairwise_tests(pd.DataFrame(X, columns=list("abc")), test="maxt",
                                  control="a", clusters=conv, n_resamples=B, rng=4)
    np.testing.assert_array_equal(again.pvalue_adjusted, ref.pvalue_adjusted)
    np.testing.assert_array_equal(again.ci_low, ref.ci_low)
