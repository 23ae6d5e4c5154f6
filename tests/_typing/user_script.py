"""A user's script, checked with ``mypy --strict`` (tests/test_typing.py).

Every call's result has its mrrstats class (``typing.assert_type`` fails mypy otherwise),
so the public names reach a type checker through the lazy ``mrrstats/__init__.py`` and the
decorated functions (``compare``: ``@tracked`` and ``@renamed_parameters``) keep their
signatures. Running it (``python tests/_typing/user_script.py``) does the same at run time.
"""

from __future__ import annotations

from typing import assert_type

import pandas as pd

import mrrstats
import mrrstats.plots as mp  # the 0.1 module path (mrrstats/plots.pyi)
from mrrstats import blocked, datasets, plots


def main() -> None:
    qrels = {"q1": {"d1": 1, "d3": 1}, "q2": {"d2": 1}, "q3": {"d1": 1}, "q4": {"d4": 1}}
    bm25 = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d1": 3.0, "d2": 2.0},
            "q3": {"d1": 2.0, "d2": 1.0}, "q4": {"d1": 2.0, "d4": 1.0}}
    dense = {"q1": {"d3": 3.0, "d1": 2.0}, "q2": {"d2": 3.0, "d1": 1.0},
             "q3": {"d2": 2.0, "d1": 1.0}, "q4": {"d4": 2.0, "d1": 1.0}}

    ev = mrrstats.evaluate(qrels, {"bm25": bm25, "dense": dense}, ["RR", "AP"])
    assert_type(ev, mrrstats.Evaluation)
    rr = ev.scores("RR")
    assert_type(rr, pd.DataFrame)

    cmp = mrrstats.compare(ev, measure="RR", n_resamples=200, rng=1)
    assert_type(cmp, mrrstats.Comparison)
    assert_type(cmp.to_frame(), pd.DataFrame)
    assert_type(cmp.to_json(), str)

    a, b = rr["bm25"].to_numpy(), rr["dense"].to_numpy()
    boot = mrrstats.bootstrap_ci(a, b, n_resamples=200, rng=1)
    assert_type(boot, mrrstats.BootstrapCIResult)
    ci = boot.confidence_interval()
    assert_type(ci, mrrstats.ConfidenceInterval)
    assert_type(ci.low, float)

    t = mrrstats.paired_ttest(a, b, alternative="greater")
    assert_type(t, mrrstats.TTestResult)
    assert_type(t.pvalue, float)
    assert_type(t.confidence_interval(0.9), mrrstats.ConfidenceInterval)
    assert_type(t.to_frame(), pd.DataFrame)

    perm = mrrstats.randomization_test(a, b, n_resamples=200, rng=1)
    assert_type(perm, mrrstats.RandomizationTestResult)
    assert_type(perm.pvalue, float)
    assert_type(blocked.randomization_test(a, b, n_resamples=200, rng=1),
                mrrstats.RandomizationTestResult)

    assert_type(mrrstats.expected_mrr(100), float)
    assert_type(datasets.trec7_scores("RR"), pd.DataFrame)
    assert_type(plots.short_names(["org_a.run", "org_b.run"]), list[str])
    assert_type(mp.interval_name("bca"), str)


if __name__ == "__main__":
    main()
