"""The report's sections on an LLM judge and on unjudged documents."""

from __future__ import annotations

import numpy as np
import pandas as pd

import mrrstats
from mrrstats.report.analysis import recompute_report


def test_report_with_a_judge_and_unjudged_documents(tmp_path):
    data = mrrstats.datasets.cast2021_judged()
    res = mrrstats.make_report(data.human_qrels, data.runs[:3], out=tmp_path, measures="RR",
                               judge_qrels=data.judge_qrels, n_resamples=199, rng=3,
                               notebook=False, multiverse=False, progress=False)
    assert {"tables/judge.md", "tables/judgment_bounds.md", "results/judge.csv",
            "results/judge_pairs.csv", "results/judgment_bounds.csv"} <= set(res.files)
    ppi = mrrstats.ppi_evaluate(data.runs[:3], data.judge_qrels, data.human_qrels, "RR",
                                n_resamples=199, rng=3)
    loaded = mrrstats.load_report(tmp_path)
    pd.testing.assert_frame_equal(loaded.judge, ppi.systems, check_dtype=False)
    assert set(loaded.judgment_bounds["run"]) == set(res.data.judgment_bounds["run"])
    again = recompute_report(tmp_path).tables()
    for name in ("judge.md", "judgment_bounds.md"):
        assert again[name] == (tmp_path / "tables" / name).read_text()
    assert "kappa" in again["judge.md"]


def test_no_section_when_nothing_applies(tmp_path):
    rng = np.random.default_rng(0)
    qrels = {f"q{i}": {d: int(rng.integers(0, 2)) for d in "abcdef"} for i in range(12)}
    runs = {s: {q: {d: float(rng.random()) for d in "abcdef"} for q in qrels}
            for s in ("x", "y")}  # every retrieved document judged
    res = mrrstats.make_report(qrels, runs, out=tmp_path, measures="RR", n_resamples=99,
                               rng=1, notebook=False, multiverse=False, progress=False)
    assert not any("judge" in f for f in res.files)
    assert "judgment_bounds" not in res.data.settings and res.data.judgment_bounds is None
