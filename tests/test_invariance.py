"""Reproducibility contracts of every public random function.

For each public function that draws random numbers (and for ``ranks_from_scores`` and
``ranks_from_negatives``, which take ``batch`` and ``workers``), the contract a user
relies on is tested, not the private random stream behind it:

* the same seed gives the bit-identical result for every ``batch`` size (including
  the default and a batch of one resample) and for BLAS limited to 1 and to 2
  threads (threadpoolctl), with mrrstats' own one-thread BLAS limit switched off so
  that the arithmetic itself runs multi-threaded;
* an integer seed and a Generator made from it give the same result;
* a different seed gives a different result (the seed is really used).

Results are compared through :func:`fingerprint`, which walks result dataclasses,
frames and arrays and compares floats by their exact bit pattern.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib

import numpy as np
import pandas as pd
import pytest
import threadpoolctl  # a core dependency of mrrstats

import mrrstats

SEED = 20261123
BATCHES = (None, 1, 7, 4096)
THREADS = (1, 2)


# -- comparing results exactly --------------------------------------------------------
def fingerprint(obj, ignore=()):
    """A hashable, bit-exact summary of a result object.

    Fields (of dataclasses), keys (of dicts) and columns (of frames) named in ``ignore``
    are left out, at every depth.
    """
    def fp(o):
        return fingerprint(o, ignore)

    if isinstance(obj, np.ndarray):
        if obj.dtype == object:
            return ("object-array", obj.shape, tuple(fp(v) for v in obj.ravel()))
        return ("array", obj.dtype.str, obj.shape, np.ascontiguousarray(obj).tobytes())
    if isinstance(obj, pd.DataFrame):
        cols = [c for c in obj.columns if c not in ignore]
        return ("frame", tuple(map(str, cols)), fp(obj.index.to_numpy()),
                tuple(fp(obj[c].to_numpy()) for c in cols))
    if isinstance(obj, pd.Series):
        return ("series", fp(obj.index.to_numpy()), fp(obj.to_numpy()))
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return (type(obj).__name__,
                tuple((f.name, fp(getattr(obj, f.name)))
                      for f in dataclasses.fields(obj) if f.name not in ignore))
    if isinstance(obj, (float, np.floating)):
        return ("float", np.float64(obj).tobytes())
    if isinstance(obj, dict):
        return ("dict", tuple((str(k), fp(v)) for k, v in obj.items() if k not in ignore))
    if isinstance(obj, (list, tuple)):
        return ("seq", tuple(fp(v) for v in obj))
    if isinstance(obj, (str, int, bool, np.integer, np.bool_, type(None))):
        return ("scalar", repr(obj))
    if hasattr(obj, "__dict__"):
        return (type(obj).__name__, fp(vars(obj)))
    return ("repr", repr(obj))


def test_fingerprint_sees_one_ulp_and_nan():
    x = np.array([0.1, 0.2])
    y = x.copy()
    y[1] = np.nextafter(y[1], 1.0)
    assert fingerprint(x) != fingerprint(y)
    assert fingerprint(np.array([np.nan])) == fingerprint(np.array([np.nan]))
    assert fingerprint(0.3) != fingerprint(np.nextafter(0.3, 1.0))
    f = pd.DataFrame({"a": [0.1, 0.2]})
    g = f.copy()
    g.iloc[1, 0] = np.nextafter(0.2, 0.0)
    assert fingerprint(f) != fingerprint(g)


# -- BLAS thread counts ----------------------------------------------------------------------
@contextlib.contextmanager
def blas_threads(n, monkeypatch):
    """BLAS limited to ``n`` threads, with mrrstats' own one-thread limit switched off.

    mrrstats limits BLAS to one thread around its resampling loops (for speed only);
    with that limit in place a thread-count test would compare one thread with one
    thread. Every module that keeps such a controller list is patched, wherever the
    resampling engine lives.
    """
    with monkeypatch.context() as m:
        patched = 0
        for name in ("mrrstats.stats.resampling", "mrrstats.stats.rows",
                     "mrrstats.stats.multiple"):
            try:
                mod = importlib.import_module(name)
            except ImportError:
                continue
            if isinstance(getattr(mod, "_CONTROLLER", None), list):
                m.setattr(mod, "_CONTROLLER", [None])
                patched += 1
        # if the limit moved or was renamed, update this fixture: otherwise the
        # "2 threads" runs would silently run on one thread
        assert patched, "mrrstats' one-thread BLAS limit (_CONTROLLER) was not found"
        with threadpoolctl.threadpool_limits(limits=n, user_api="blas"):
            yield


# -- data ----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def scores():
    """50 topics x 6 systems of TREC-7 reciprocal ranks (bundled with the package)."""
    return mrrstats.datasets.trec7_scores("RR").iloc[:, :6]


@pytest.fixture(scope="module")
def evaluation():
    """Three runs whose MRR is near the random baseline (mid-range p-values)."""
    qrels = {f"q{i}": {f"d{(3 * i) % 9 + 1}": 1} for i in range(6)}
    runs = {f"sys{s}": {q: {f"d{j}": ((j * (s + 2)) % 11) for j in range(1, 10)} for q in qrels}
            for s in range(3)}
    return mrrstats.evaluate(qrels, runs, ["RR"])


def _pair(scores):
    X = scores.to_numpy()
    return X[:, 0], X[:, 3]


RR = [0.5, 0.25, 1.0, 0.2, 0.5, 0.1, 1 / 3, 1.0]
N_CAND = [20, 15, 40, 9, 30, 25, 12, 50]
N_REL = [1, 2, 1, 1, 3, 1, 2, 1]

def _pairwise(test):
    def call(s, batch, rng):
        return mrrstats.pairwise_tests(s, test=test, n_resamples=300, batch=batch, rng=rng)
    return call


def _two_measures(s):
    """Two measures (RR and its square root) of the same four systems."""
    return {"RR": s.iloc[:, :4], "sqrtRR": np.sqrt(s.iloc[:, :4])}


def _compare(test):
    def call(s, batch, rng):
        return mrrstats.compare(_two_measures(s), test=test, n_resamples=150, batch=batch,
                                rng=rng)
    return call


# name -> (call(data, batch, rng), data fixture name); batch=None means "the default"
CASES = {
    "randomization_test": (lambda s, batch, rng: mrrstats.randomization_test(
        *_pair(s), n_resamples=600, exact=False, batch=batch, rng=rng), "scores"),
    "bootstrap_test-shift": (lambda s, batch, rng: mrrstats.bootstrap_test(
        *_pair(s), method="shift", n_resamples=600, batch=batch, rng=rng), "scores"),
    "bootstrap_test-studentized": (lambda s, batch, rng: mrrstats.bootstrap_test(
        *_pair(s), method="studentized", n_resamples=600, batch=batch, rng=rng), "scores"),
    "bootstrap_ci-one-sample": (lambda s, batch, rng: mrrstats.bootstrap_ci(
        s.iloc[:, 2].to_numpy(), n_resamples=600, batch=batch, rng=rng), "scores"),
    "bootstrap_ci-paired": (lambda s, batch, rng: mrrstats.bootstrap_ci(
        *_pair(s), n_resamples=600, batch=batch, rng=rng), "scores"),
    **{f"pairwise_tests-{t}": (_pairwise(t), "scores")
       for t in ("randomization", "bootstrap", "bootstrap-t", "tukey", "maxt")},
    "pairwise_tests-maxt-t": (lambda s, batch, rng: mrrstats.pairwise_tests(
        s, test="maxt", test_options={"statistic": "t"}, n_resamples=400, batch=batch,
        rng=rng), "scores"),
    "randomized_tukey_hsd": (lambda s, batch, rng: mrrstats.randomized_tukey_hsd(
        s, n_resamples=400, batch=batch, rng=rng), "scores"),
    "westfall_young": (lambda s, batch, rng: mrrstats.westfall_young(
        s, n_resamples=400, batch=batch, rng=rng), "scores"),
    **{f"compare-{t}": (_compare(t), "scores")
       for t in ("randomization", "bootstrap", "tukey", "maxt")},
    "randomization_power": (lambda s, batch, rng: mrrstats.randomization_power(
        np.subtract(*_pair(s)), n_queries=25, n_simulations=60, n_resamples=200,
        batch=batch, rng=rng), "scores"),
    "random_baseline_test-monte-carlo": (lambda s, batch, rng: mrrstats.random_baseline_test(
        RR, N_CAND, N_REL, method="monte-carlo", n_resamples=2000, batch=batch, rng=rng),
        "scores"),
    "random_metric_moments-monte-carlo": (lambda s, batch, rng: mrrstats.random_metric_moments(
        [3, 2, 1, 1, 0, 0, 0, 0, 0, 0], "nDCG@5", method="monte-carlo", n_resamples=2000,
        batch=batch, rng=rng), "scores"),
    "discriminative_power": (lambda s, batch, rng: mrrstats.discriminative_power(
        s, n_resamples=300, batch=batch, rng=rng), "scores"),
    "decision_agreement": (lambda s, batch, rng: mrrstats.decision_agreement(
        _two_measures(s), "RR", "sqrtRR", n_resamples=300, batch=batch, rng=rng), "scores"),
    "discriminative_power_table": (lambda s, batch, rng: mrrstats.discriminative_power_table(
        _two_measures(s), n_resamples=300, batch=batch, rng=rng), "scores"),
    # evaluation_baseline takes no batch: only the seed and thread contracts apply
    "evaluation_baseline-monte-carlo": (lambda ev, batch, rng: mrrstats.evaluation_baseline(
        ev, random="retrieved", method="monte-carlo", n_resamples=300, rng=rng),
        "evaluation"),
}
NO_BATCH = {"evaluation_baseline-monte-carlo"}
#: Outputs that are counts of significant pairs only: two seeds may give the same counts
#: (the p-values behind them are compared by discriminative_power's case).
DISCRETE_OUTPUT = {"discriminative_power_table"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_seed_same_result_any_batch_and_thread_count(name, request, monkeypatch):
    call, fixture = CASES[name]
    data = request.getfixturevalue(fixture)
    ref = fingerprint(call(data, None, SEED))
    batches = (None,) if name in NO_BATCH else BATCHES
    for threads in THREADS:
        with blas_threads(threads, monkeypatch):
            for batch in batches:
                got = fingerprint(call(data, batch, SEED))
                assert got == ref, f"{name}: batch={batch}, {threads} BLAS thread(s)"


@pytest.mark.parametrize("name", sorted(CASES))
def test_int_seed_equals_generator_and_seed_is_used(name, request):
    call, fixture = CASES[name]
    data = request.getfixturevalue(fixture)
    by_int = call(data, None, SEED)
    by_gen = call(data, None, np.random.default_rng(SEED))
    other = call(data, None, SEED + 1)

    def strip(res):  # an int seed is recorded in the result; a Generator is not
        return fingerprint(res, ignore=("seed",))

    assert strip(by_int) == strip(by_gen)
    if name in DISCRETE_OUTPUT:  # the seed goes in (above) but need not change a count
        assert by_int.attrs["seed"] == SEED and other.attrs["seed"] == SEED + 1
        return
    assert strip(by_int) != strip(other), f"{name}: the seed changes nothing"


# -- ranks_from_scores: batch and workers --------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_ranks_from_scores_any_batch_and_workers(dtype, monkeypatch):
    gen = np.random.default_rng(7)
    n, m = 257, 300
    scores = gen.integers(-15, 15, size=(n, m)).astype(dtype)  # many ties
    scores[3, 5] = np.nan
    truth = gen.integers(0, m, n)
    scores[3, truth[3]] = 1.0  # keep the truth finite
    mask = gen.random((n, m)) < 0.05
    mask[np.arange(n), truth] = False
    kw = dict(exclude=mask, nonfinite="exclude")
    ref = fingerprint(mrrstats.ranks_from_scores(scores, truth, **kw))
    for threads in THREADS:
        with blas_threads(threads, monkeypatch):
            for batch in (None, 1, 10, 1000):
                for workers in (1, 2):
                    got = mrrstats.ranks_from_scores(scores, truth, batch=batch,
                                                     workers=workers, **kw)
                    assert fingerprint(got) == ref, f"batch={batch}, workers={workers}"


def test_ranks_from_negatives_any_batch_and_workers(monkeypatch):
    gen = np.random.default_rng(8)
    pos = gen.integers(0, 6, 301).astype(np.float64)
    neg = gen.integers(0, 6, (301, 40)).astype(np.float64)  # many ties with the positive
    ref = fingerprint(mrrstats.ranks_from_negatives(pos, neg))
    for threads in THREADS:
        with blas_threads(threads, monkeypatch):
            for batch in (None, 1, 10, 1000):
                for workers in (1, 2):
                    got = mrrstats.ranks_from_negatives(pos, neg, batch=batch, workers=workers)
                    assert fingerprint(got) == ref, f"batch={batch}, workers={workers}"
