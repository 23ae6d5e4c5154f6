"""The report's optional sections: replicates, calibration, Bayesian."""

from __future__ import annotations

import json

import numpy as np
import pytest

import mrrstats


@pytest.fixture(scope="module")
def sim():
    rr = mrrstats.datasets.trec7_scores("RR")[["run47", "run15", "run91"]]
    return mrrstats.simulate_replicates(rr, n_replicates=3, rng=0)


def _report(out, sim, **kw):
    return mrrstats.make_report(scores={"RR": sim}, out=out, n_resamples=999, rng=1,
                                notebook=False, progress=False, multiverse=False, **kw)


def test_sections_written_and_loaded(tmp_path, sim):
    res = _report(tmp_path / "a", sim, replicates=sim.attrs["replicates"], calibration=20,
                  bayesian=True, rope=0.01)
    files = set(res.files)
    for name in ("replicates", "calibration", "bayesian"):
        assert f"results/{name}.csv" in files and f"tables/{name}.md" in files
    settings = json.loads((tmp_path / "a" / "settings.json").read_text())
    assert settings["replicates"]["replicates"] == sim.attrs["replicates"]
    assert settings["calibration"]["n_simulations"] == 20
    assert settings["bayesian"]["rope"] == 0.01
    data = mrrstats.load_report(tmp_path / "a")
    # the section is replicate_tests with the report's options and its own stream
    gen = np.random.default_rng([1, 24, 1])
    ref = mrrstats.replicate_tests(sim, sim.attrs["replicates"], n_resamples=999, rng=gen)
    assert np.allclose(data.replicates["pvalue"], ref.pvalue)
    assert data.calibration["recommended"].any()
    assert len(data.bayesian) == 36  # 9 runs: 36 pairs
    text = (tmp_path / "a" / "tables" / "calibration.md").read_text()
    assert "Recommended (*)" in text


@pytest.mark.slow
def test_sections_leave_the_rest_unchanged(tmp_path, sim):
    plain = _report(tmp_path / "p", sim)
    full = _report(tmp_path / "f", sim, replicates=sim.attrs["replicates"], bayesian=True)
    assert not any("replicates" in f or "bayesian" in f for f in plain.files)
    for f in plain.files:
        if f == "settings.json":
            continue
        assert (tmp_path / "p" / f).read_bytes() == (tmp_path / "f" / f).read_bytes(), f
    _report(tmp_path / "g", sim, replicates=sim.attrs["replicates"], bayesian=True)
    for f in full.files:
        assert (tmp_path / "f" / f).read_bytes() == (tmp_path / "g" / f).read_bytes(), f


def test_bad_section_options(tmp_path, sim):
    with pytest.raises(ValueError, match="`replicates`"):
        _report(tmp_path / "x", sim, replicates={"A": ["nope"], "B": ["run15#1"]})
    with pytest.raises(ValueError, match="`calibration`"):
        _report(tmp_path / "y", sim, calibration=3)
    with pytest.raises(ValueError, match="`rope`"):
        _report(tmp_path / "z", sim, rope=-1)


@pytest.mark.slow
def test_sections_in_the_notebook(tmp_path, sim):
    mrrstats.make_report(scores={"RR": sim}, out=tmp_path, n_resamples=999, rng=1,
                         progress=False, replicates=sim.attrs["replicates"], calibration=20,
                         bayesian=True)
    html = (tmp_path / "report.html").read_text()
    for title in ("Several runs per system", "Which test fits these data",
                  "Probabilities instead of p-values"):
        assert title in html
