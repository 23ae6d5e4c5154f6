"""Every exported function refuses bad arguments itself (the fuzz suite, tests/fuzz_api.py).

Each function of ``mrrstats.__all__`` (and ``mrrstats.blocked``) is called with one bad
argument at a time, in a worker interpreter with a time limit. A call must return or raise a
:class:`mrrstats.MrrstatsError` naming the parameter: no error from numpy, pandas, scipy
or Python itself (an *internal* error), no call over the time limit (a *hang*), and no
value that must be refused accepted (a *silent acceptance*).

The default run tries the valid call of every function and every value that must be
refused (``"quick"``), plus a few values drawn by hypothesis; the slow run tries every
bad value of each parameter's kind (``"fast"`` and ``"slow"``) and many more drawn ones.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from . import fuzz_api

# Seconds per call before it counts as a hang: the largest accepted calls take about 2 s,
# so a call must be some 60 times slower than that (a loaded machine is not a hang).
TIMEOUT = fuzz_api.TIMEOUT


def _check(results):
    counts = fuzz_api.summary(results)
    bad = fuzz_api.findings(results)
    assert not bad, f"{counts}\n" + "\n".join(bad)
    assert counts["internal"] == counts["hang"] == counts["silent"] == 0
    return counts


def test_quick_profile_every_function_refuses_what_it_must():
    cases = fuzz_api.cases("quick")
    counts = _check(fuzz_api.run(cases, profile="quick", timeout=TIMEOUT))
    names = fuzz_api.public_functions()
    assert counts["functions"] == len(names) >= 85
    assert counts["refused"] > 600  # one must-refuse value of every parameter, and more


@pytest.mark.slow
@pytest.mark.parametrize("profile", ["fast", "slow"])
def test_every_bad_value_of_every_parameter(profile):
    counts = _check(fuzz_api.run(fuzz_api.cases(profile), profile=profile, timeout=TIMEOUT))
    assert counts["calls"] > 3000


_SLOTS = fuzz_api.slots()
# Integers are small (bad counts, levels, seeds) or far beyond any real count (10**12 and
# up: must be refused at once); a count in between is a valid request for a long run, which
# the time limit would misread as a hang.
_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 5), st.integers(10**12, 2**70),
    st.integers(-(2**70), -6),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=6),
    st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=4),
    st.lists(st.integers(-5, 5), max_size=4).map(np.array),
    st.dictionaries(st.text(max_size=3), st.integers(-2, 2), max_size=2),
)


def _drawn(n_examples):
    """Run the calls of ``n_examples`` hypothesis examples (40 drawn calls each).

    Hypothesis only draws (the same examples on every run: derandomize); the calls then
    run in one worker, which pays its imports once, not once per example."""
    calls = []

    @settings(max_examples=n_examples, deadline=None, derandomize=True, database=None,
              phases=[Phase.explicit, Phase.generate],  # the findings list is the report
              suppress_health_check=list(HealthCheck))
    @given(st.lists(st.tuples(st.sampled_from(_SLOTS), _VALUES), min_size=40, max_size=40))
    def draw(draws):
        calls.extend((f, p, v) for (f, p, _), v in draws)

    draw()
    assert len(calls) == 40 * n_examples
    return _check(fuzz_api.run_values(calls, timeout=TIMEOUT))


def test_drawn_values_quick():
    _drawn(1)


@pytest.mark.slow
def test_drawn_values_long():
    _drawn(40)


def test_classifier_flags_internal_errors_hangs_and_silent_acceptance(monkeypatch):
    """The suite can fail: a numpy error, an accepted bad value and a hang are reported.

    The hang is a call that sleeps an hour: over a 2 s limit it is reported whatever the
    load (it never returns). The refusal runs in its own batch under a generous 60 s
    limit, which it never waits out (well under a second), so that it cannot count as a
    hang however loaded the machine (in one batch, the hang's short limit would apply
    to it too).
    """
    import mrrstats

    def leaky(a, b, *, alternative="two-sided"):
        return np.asarray(a, dtype=float) - np.asarray(b, dtype=float)

    monkeypatch.setattr(mrrstats, "paired_ttest", leaky)
    internal = fuzz_api.Case("paired_ttest", "a", "string", "data", False)
    silent = fuzz_api.Case("paired_ttest", "alternative", "unknown", "choice", True)
    assert fuzz_api.classify(internal, "fast")[0] == "internal"
    assert fuzz_api.classify(silent, "fast")[0] == "silent"
    refused = fuzz_api.run_values([("paired_ttest", "alternative", "bogus")], timeout=60.0)
    hang = fuzz_api.run_values([("ranks_from_scorer", "score_fn", fuzz_api.Sleeper())],
                               timeout=2.0)
    assert [o for o, _, _ in refused.values()] == ["refused"]
    assert [o for o, _, _ in hang.values()] == ["hang"]
    assert fuzz_api.Sleeper.SECONDS > 1000 * 2.0
