"""The measured coverage beside the nominal level, read from one place (``COVERAGE``)."""

import numpy as np
import pandas as pd

import mrrstats
from mrrstats.report.tables import interval_phrase
from mrrstats.stats.coverage import COVERAGE, measured_coverage_note


def _note(method):
    (n0, c0), *rest = COVERAGE[method].by_topics
    more = "".join(f", {c:.2f} at {n}" for n, c in rest)
    return f"95% simultaneous, {c0:.2f} measured at {n0} topics{more}"


def test_the_default_says_how_little_it_covers_with_few_topics():
    # the validity harness (benchmarks/results_validity.md) measured 0.785 at 10 topics
    assert measured_coverage_note("maxt-single-step", 0.95) == (
        "95% simultaneous, 0.79 measured at 10 topics, 0.89 at 25, 0.92 at 50")


def test_note_reads_coverage_table():
    for method in ("maxt-single-step", "maxt-single-step-skew"):
        assert measured_coverage_note(method, 0.95) == _note(method)
        assert measured_coverage_note(method, 0.9) == ""  # measured at 95% only
    assert measured_coverage_note("t", 0.95) == ""  # not a simultaneous interval
    assert measured_coverage_note("holm-sb2008(randomization)", 0.95) == ""


def _comparison(**kw):
    rng = np.random.default_rng(4)
    X = pd.DataFrame(rng.beta(0.5, 2.0, size=(30, 4)), columns=list("abcd"))
    return mrrstats.compare(X, n_resamples=199, rng=1, **kw)


def test_default_comparison_says_measured_coverage_everywhere():
    c = _comparison()
    note = _note("maxt-single-step")
    assert note in " ".join(c.to_string().split())  # the terminal table (CLI default)
    assert note in " ".join(c.to_string(wide=True).split())  # --wide
    assert note.replace("%", "\\%") in c.to_latex(table="pairs")
    assert note in interval_phrase(c.ci_method, c.confidence_level)
    cov = dict(COVERAGE["maxt-single-step"].by_topics)[25]
    assert f"{cov:.3f} with 25 topics" in c.methods().text


def test_other_level_or_correction_says_nothing_measured():
    assert "measured at" not in _comparison(confidence_level=0.9).to_string()
    holm = _comparison(correction="holm")
    assert "measured at" not in holm.to_string()
    skew = _comparison(correction="single-step-skew")
    assert _note("maxt-single-step-skew") in " ".join(skew.to_string().split())
