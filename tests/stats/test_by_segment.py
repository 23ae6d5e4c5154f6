"""by_segment: per-segment means and t intervals of an Evaluation."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import mrrstats
from mrrstats.stats.segments import by_segment


@pytest.fixture(scope="module")
def cast_eval():
    data = mrrstats.datasets.cast2021()
    return mrrstats.evaluate(data.qrels, data.runs, ["RR", "nDCG@3"])


def test_by_segment_matches_pandas_groupby_and_scipy_t(cast_eval):
    # segments = CAsT conversations (query ids `<conversation>_<turn>`)
    table = by_segment(cast_eval, lambda q: q.split("_")[0], confidence_level=0.9)
    assert len(table) == len(cast_eval.runs) * 2 * table["segment"].nunique()
    for run in cast_eval.runs:
        vals = cast_eval.values[run]
        conv = vals.index.map(lambda q: str(q).split("_")[0])
        for m in ("RR", "nDCG@3"):
            # independent reference: pandas groupby + scipy.stats.t.interval
            g = vals[m].groupby(conv, sort=False)
            ref = pd.DataFrame({"n": g.size(), "mean": g.mean(), "sd": g.std(ddof=1)})
            got = table[(table.run == run) & (table.measure == m)].set_index("segment")
            assert list(got.index) == list(ref.index)
            np.testing.assert_array_equal(got["n_queries"], ref["n"])
            np.testing.assert_allclose(got["mean"], ref["mean"], rtol=1e-12, atol=1e-15)
            lo, hi = stats.t.interval(0.9, ref["n"] - 1, loc=ref["mean"],
                                      scale=ref["sd"] / np.sqrt(ref["n"]))
            # scipy returns NaN for scale 0; a constant segment's interval is [mean, mean]
            const = ref["sd"].to_numpy() == 0
            lo = np.where(const, ref["mean"], lo)
            hi = np.where(const, ref["mean"], hi)
            ok = ref["n"].to_numpy() >= 2
            assert np.isnan(got["ci_low"].to_numpy()[~ok]).all()
            np.testing.assert_allclose(got["ci_low"].to_numpy()[ok], lo[ok], rtol=1e-10,
                                       atol=1e-12)
            np.testing.assert_allclose(got["ci_high"].to_numpy()[ok], hi[ok], rtol=1e-10,
                                       atol=1e-12)


def test_by_segment_mapping_series_and_missing(cast_eval):
    queries = [str(q) for q in cast_eval.values[cast_eval.runs[0]].index]
    mapping = {q: q.split("_")[0] for q in queries}
    a = by_segment(cast_eval, mapping, measure="RR")
    b = by_segment(cast_eval, pd.Series(mapping), measure="RR")
    c = by_segment(cast_eval, lambda q: q.split("_")[0], measure="RR")
    pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_frame_equal(a, c)
    partial = {q: s for q, s in mapping.items() if q != queries[0]}
    with pytest.raises(ValueError, match="no segment for 1 of") as e:
        by_segment(cast_eval, partial)
    assert queries[0] in str(e.value)
    dropped = by_segment(cast_eval, partial, measure="RR", missing="drop")
    assert dropped["n_queries"].sum() == a["n_queries"].sum() - len(cast_eval.runs)
    with pytest.raises(TypeError, match="segment_by"):
        by_segment(cast_eval, 3)
    with pytest.raises(mrrstats.ParameterError, match="`measure`: \\['AP'\\] not evaluated"):
        by_segment(cast_eval, mapping, measure="AP")


def test_segment_means_plot_content(cast_eval):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    import mrrstats.plots as mp

    table = by_segment(cast_eval, lambda q: q.split("_")[0])
    with pytest.raises(ValueError, match="several measures"):
        mp.segment_means(table)
    ax = mp.segment_means(table, measure="RR")
    rr = table[table.measure == "RR"]
    segs = list(dict.fromkeys(rr["segment"]))
    assert [t.get_text() for t in ax.get_yticklabels()] == segs
    assert ax.get_xlabel().startswith("MRR")
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list(cast_eval.runs)
    # one marker line per run; its x data are that run's segment means
    lines = [c.lines[0] for c in ax.containers]
    assert len(lines) == len(cast_eval.runs)
    for line, run in zip(lines, cast_eval.runs, strict=True):
        np.testing.assert_allclose(line.get_xdata(), rr[rr.run == run]["mean"])
    plt.close("all")
    # a Comparison's segments draw too (system column)
    data = mrrstats.datasets.cast2021()
    ev = mrrstats.evaluate(data.qrels, data.runs[:2], ["RR"])
    comp = mrrstats.compare(ev, segment_by={q: q.split("_")[0]
                                            for q in ev.values[ev.runs[0]].index})
    ax = mp.segment_means(comp.segments)
    assert len(ax.get_yticklabels()) == len(comp.segments.segments)
    plt.close("all")
