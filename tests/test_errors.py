"""mrrstats' own errors: the classes, and the refusals of inputs that once leaked through.

Each case below was an internal error (numpy's, pandas' or Python's own), a hang or a
silent acceptance before the public boundary validated its arguments; each must now be
refused with an :class:`mrrstats.MrrstatsError` naming the parameter.
"""

from __future__ import annotations

import gzip
import tracemalloc

import numpy as np
import pandas as pd
import pytest

import mrrstats
from mrrstats import validation


def test_classes_derive_from_the_builtin_a_caller_catches():
    assert issubclass(mrrstats.ParameterError, ValueError)
    assert issubclass(mrrstats.ParameterTypeError, TypeError)
    assert issubclass(mrrstats.ResourceError, MemoryError)
    assert issubclass(mrrstats.InputError, ValueError)
    for cls in (mrrstats.ParameterError, mrrstats.ParameterTypeError, mrrstats.ResourceError,
                mrrstats.InputError):
        assert issubclass(cls, mrrstats.MrrstatsError)
    err = mrrstats.ResourceError("`n` too large", name="n", needed=10)
    assert (err.name, err.needed, str(err)) == ("n", 10, "`n` too large")
    assert mrrstats.ParameterError("x", name="alpha").name == "alpha"


@pytest.mark.parametrize("call, match", [
    (lambda: validation.int_iv(2.5, "n"), "`n` must be an integer, got 2.5"),
    (lambda: validation.int_iv(True, "n"), "`n` must be an integer"),
    (lambda: validation.int_iv(0, "n"), "`n` must be >= 1, got 0"),
    (lambda: validation.int_iv(11, "n", maximum=10), "`n` must be <= 10, got 11"),
    (lambda: validation.float_iv(float("nan"), "x"), "`x` must be a finite number, got nan"),
    (lambda: validation.float_iv("0.5", "x"), "`x` must be a real number, got '0.5'"),
    (lambda: validation.float_iv(2.0, "x", high=1.0), r"`x` must be in \[-inf, 1\], got 2.0"),
    (lambda: validation.choice_iv("z", "ties", ("a", "b")),
     r"`ties` must be one of \('a', 'b'\), got 'z'"),
    (lambda: validation.choice_iv(np.ones(2), "ties", ("a",)), "`ties` must be one of"),
    (lambda: validation.bool_iv("yes", "flag"), "`flag` must be True or False"),
    (lambda: validation.array_iv([[1.0]], "a"), r"`a` must be 1-D, got an array of shape"),
    (lambda: validation.array_iv([np.nan], "a"), r"`a` must be finite \(no NaN or inf\)"),
    (lambda: validation.array_iv(["x"], "a"), "`a` must hold numbers"),
    (lambda: validation.array_iv([1.5], "a", integer=True), "`a` must hold whole numbers"),
    (lambda: validation.n_resamples_iv(10**12), r"`n_resamples` must be <= 1,000,000,000"),
    (lambda: validation.confidence_level_iv(1.0), r"`confidence_level` must be in \(0, 1\)"),
    (lambda: validation.rng_iv("seed"), "`rng` must be None, an integer seed"),
    (lambda: validation.workers_iv(0), "`workers` must be a positive integer or -1"),
])
def test_shared_validators_name_the_parameter_the_value_and_what_is_allowed(call, match):
    with pytest.raises(mrrstats.MrrstatsError, match=match) as info:
        call()
    assert info.value.name is not None


def test_resource_guard_refuses_up_front_with_the_memory_needed(monkeypatch):
    with pytest.raises(mrrstats.ResourceError, match="`n_resamples` asks for .* needs 7.5 GiB"
                       ) as info:
        validation.resource_iv(8 * 10**9, "n_resamples", what="1e9 resamples",
                               limit=1024**3)
    assert info.value.needed == 8 * 10**9 and info.value.name == "n_resamples"
    # a request larger than the memory available now is refused before anything is drawn
    monkeypatch.setattr(validation, "available_memory", lambda: 1 << 20)
    a = np.linspace(0, 1, 16)
    with pytest.raises(mrrstats.ResourceError, match="`n_resamples`") as info:
        mrrstats.bootstrap_ci(a, a[::-1], n_resamples=10**6, rng=1)
    assert info.value.needed >= 8 * 10**6


def _ab():
    rng = np.random.default_rng(0)
    a = rng.random(20)
    return a, np.clip(a + rng.normal(0, 0.1, 20), 0, 1)


HUGE = 10**12


@pytest.mark.parametrize("name, call", [
    ("n_resamples", lambda: mrrstats.random_baseline_test([1.0, 0.5], [10, 10],
                                                          n_resamples=HUGE)),
    ("max_support", lambda: mrrstats.random_baseline_test([1.0, 0.5], [10, 10],
                                                          max_support=HUGE)),
    ("n_resamples", lambda: mrrstats.bootstrap_ci(*_ab(), n_resamples=HUGE)),
    ("n_resamples", lambda: mrrstats.bootstrap_test(*_ab(), n_resamples=HUGE)),
    ("n_resamples", lambda: mrrstats.randomization_test(*_ab(), n_resamples=HUGE)),
    ("n_resamples", lambda: mrrstats.blocked.randomization_test(*_ab(), n_resamples=HUGE)),
    ("n_resamples", lambda: mrrstats.correct_sampled_metric([1, 2, 3], 10, 100,
                                                            n_resamples=HUGE)),
    ("n_candidates", lambda: mrrstats.correct_sampled_metric([1, 2, 3], 10, HUGE)),
    ("n_simulations", lambda: mrrstats.randomization_power([0.1, 0.2, 0.0, -0.1],
                                                           n_simulations=HUGE)),
    ("n_grid", lambda: mrrstats.bayesian_hierarchical([1.0, 2.0], [1.0, 1.0], n_grid=HUGE)),
])
def test_huge_requests_are_refused_at_once_not_run_or_allocated(name, call):
    # not allocated: the peak traced memory stays far below any HUGE-sized array (numpy's
    # buffers are traced; the ~40 MB are the lazy imports of a first call). Not run: a run
    # of HUGE steps would not return at all. No wall-clock limit: the outcome must not
    # depend on how loaded the machine is.
    tracemalloc.start()
    try:
        with pytest.raises(mrrstats.MrrstatsError, match=f"`{name}`"):
            call()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2**30


def test_kg_filter_refuses_binary_files_and_nan_ids(tmp_path):
    path = tmp_path / "train.txt.gz"
    path.write_bytes(gzip.compress(bytes(range(256)) * 4))
    with pytest.raises(mrrstats.InputError, match="not a text file"):
        mrrstats.kg_filter(path, None, [(0, 0, 1)])
    noise = tmp_path / "train.tsv"
    noise.write_bytes(bytes(range(128, 256)))
    with pytest.raises(mrrstats.InputError, match="not a text file"):
        mrrstats.kg_filter(noise, None, [(0, 0, 1)])
    with pytest.raises(mrrstats.ParameterError, match="`train` must hold whole-number ids"):
        mrrstats.kg_filter([(0, 0, np.nan)], None, [(0, 0, 1)])
    with pytest.raises(mrrstats.ParameterError, match="`test` must hold whole-number ids"):
        mrrstats.kg_filter([(0, 0, 1)], None, np.array([[0, 0, 1.5]]))


def test_score_ranked_run_refuses_a_frame():
    with pytest.raises(mrrstats.ParameterTypeError, match="`ranked` must be a RankedRun"):
        mrrstats.score_ranked_run(pd.DataFrame({"q": [1]}), ["RR"])


def test_ranks_from_scorer_names_a_scorer_of_the_wrong_shape_or_that_fails():
    W = np.ones((3, 5))
    with pytest.raises(mrrstats.ParameterError, match=r"`score_fn` returned shape \(3, 5\)"):
        mrrstats.ranks_from_scorer(lambda q, c: W[q], np.arange(3), [0, 1, 2],
                                   n_candidates=5, candidate_batch=2)
    with pytest.raises(mrrstats.ParameterError, match="`score_fn` raised IndexError"):
        mrrstats.ranks_from_scorer(lambda q, c: W[q][:, c], np.arange(3), [0, 1, 2],
                                   n_candidates=9)


PREDS = np.array([0.2, 0.3, 0.5, 0.1])
TARGET = np.array([1, 0, 1, 0])


@pytest.mark.parametrize("indexes", [np.array([0, 0, np.nan, 1]), np.array([0, 0, 0.5, 1])])
def test_evaluate_flat_refuses_nan_or_fractional_indexes(indexes):
    with pytest.raises(mrrstats.ParameterError, match="`indexes` must hold whole-number"):
        mrrstats.evaluate_flat(PREDS, TARGET, indexes)


@pytest.mark.parametrize("max_depth", [-1, 0, 2.5])
def test_evaluate_flat_refuses_max_depth_that_is_not_a_positive_integer(max_depth):
    with pytest.raises(mrrstats.MrrstatsError, match="`max_depth` must be"):
        mrrstats.evaluate_flat(PREDS, TARGET, np.array([0, 0, 1, 1]), max_depth=max_depth)


QRELS = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}}
RUNS = {"r": {"q1": ["d2", "d1"], "q2": ["d3"]}}


@pytest.mark.parametrize("call, match", [
    (lambda: mrrstats.evaluate(QRELS, RUNS, rel=2.5), "`rel` must be an integer"),
    (lambda: mrrstats.score_rankings([[0, 1]], ["RR"], judged=[[1]], rel=2.5),
     "`rel` must be an integer"),
    (lambda: mrrstats.evaluate(QRELS, RUNS, ["Hits@0"]), "`measures`: cutoff `k` of Success"),
    (lambda: mrrstats.random_metric_moments([[1, 0], [0, 0]], "AP"), "`grades` must be 1-D"),
    (lambda: mrrstats.correct_sampled_metric([[1, 2], [2, 1]], 10, 100),
     "`sampled_ranks` must be 1-D"),
    (lambda: mrrstats.compact_letter_display(np.full((2, 2), np.nan)),
     r"`decisions` must hold booleans or 0/1 \(no NaN\)"),
    (lambda: mrrstats.compact_letter_display(np.array([["a", "b"], ["b", "a"]])),
     "`decisions` must hold booleans"),
    (lambda: mrrstats.ttest_power(difference=0.1, std=0.3, n_queries=2.5),
     "`n_queries` must be a whole number"),
    (lambda: mrrstats.randomization_power([0.1, 0.2, 0.0, -0.1], difference=np.nan),
     "`difference` must be a finite number"),
    (lambda: mrrstats.multiverse(QRELS, RUNS, rels=[2.5]), "`rels` must be an integer"),
    (lambda: mrrstats.multiverse(QRELS, RUNS, cutoffs=[2.5]), "`cutoffs` must be an integer"),
    (lambda: mrrstats.compare(pd.DataFrame({"a": [0.1, 0.5, 1.0], "b": [0.2, 0.5, 0.5]}),
                              progress="yes"), "`progress` must be True, False or None"),
    (lambda: mrrstats.equivalence_test(*_ab(), margin=0.1, n_resamples=-1),
     "`n_resamples` must be >= 1"),
    (lambda: mrrstats.simulate_judge(QRELS, float("nan")), "`confusion` must be a finite"),
    (lambda: mrrstats.read_qrels(3), "`source` must be a file path"),
    (lambda: mrrstats.ppi_evaluate(RUNS, None, QRELS), "`judge_qrels` must be a file path"),
    (lambda: mrrstats.load_report("/no/such/report/folder"), "`path` must be a folder"),
])
def test_once_silent_or_internal_now_refused_naming_the_parameter(call, match):
    with pytest.raises(mrrstats.MrrstatsError, match=match):
        call()
