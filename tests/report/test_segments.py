"""The report's segments section (``make_report(segment_by=...)``, ``report --segment-by``)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import mrrstats
from mrrstats.cli import main
from mrrstats.cli.common import label_spec, labels_from_spec


def _turn_segment(q):
    """CAsT turn ids <conversation>_<turn>: the first four turns against the later ones."""
    return "first turns" if int(q.rsplit("_", 1)[1]) <= 4 else "later turns"


@pytest.fixture(scope="module")
def cast():
    return mrrstats.datasets.cast2021()


@pytest.fixture(scope="module")
def report(cast, tmp_path_factory):
    out = tmp_path_factory.mktemp("seg") / "report"
    res = mrrstats.make_report(cast.qrels, cast.runs[:3], out=out, measures=["RR", "nDCG@10"],
                               n_resamples=199, rng=7, multiverse=False, progress=False,
                               segment_by=_turn_segment, notebook=False)
    return res


def test_segments_equal_a_direct_compare_call(cast, report):
    ev = mrrstats.evaluate(cast.qrels, cast.runs[:3], ["RR", "nDCG@10"])
    labels = {q: _turn_segment(q) for q in ev.scores("RR").index}
    direct = mrrstats.compare(ev, segment_by=labels, n_resamples=199, rng=7).segments
    assert set(direct.frame["segment"]) == {"first turns", "later turns"}
    pd.testing.assert_frame_equal(report.data.segments, direct.frame)
    pd.testing.assert_frame_equal(report.data.segment_means, direct.means_frame)
    # what load_report reads back is the same table (CSV round trip: exact floats)
    loaded = mrrstats.load_report(report.path)
    pd.testing.assert_frame_equal(loaded.segments, direct.frame, check_dtype=False)
    pd.testing.assert_frame_equal(loaded.segment_means, direct.means_frame, check_dtype=False)
    assert {"results/segments.csv", "results/segment_means.csv", "tables/segments.md",
            "tables/segments.tex"} <= set(report.files)
    # recompute_report runs the analysis again from the saved files: same tables
    again = mrrstats.report.recompute_report(report.path).tables()
    assert again["segments.md"] == (report.path / "tables" / "segments.md").read_text()
    settings = json.loads((report.path / "settings.json").read_text())
    assert settings["segments"]["segments"] == ["first turns", "later turns"]


@pytest.mark.slow
def test_segments_section_in_html(cast, tmp_path):
    """The executed notebook's page shows the section (the fixture above skips the notebook)."""
    report = mrrstats.make_report(cast.qrels, cast.runs[:3], out=tmp_path / "report",
                                  measures=["RR", "nDCG@10"], n_resamples=199, rng=7,
                                  multiverse=False, progress=False, segment_by=_turn_segment)
    html = (report.path / "report.html").read_text(encoding="utf-8")
    start = html.index("Segments: where does a difference hold?")
    section = html[start:html.index("Planning the next experiment", start)]
    assert "first turns" in section and "later turns" in section
    assert "<img" in section            # the segment_means figure
    assert "Not available: no segment_by" not in html


def test_other_sections_unchanged_by_segments(cast, report, tmp_path):
    """The segments draw from their own Generator: every other table is as without them."""
    plain = mrrstats.make_report(cast.qrels, cast.runs[:3], out=tmp_path,
                                 measures=["RR", "nDCG@10"], n_resamples=199, rng=7,
                                 multiverse=False, progress=False, notebook=False)
    assert "segments" not in json.loads((tmp_path / "settings.json").read_text())
    assert not any("segment" in f for f in plain.files)
    for name in plain.files:
        if name.startswith(("tables/", "results/")):
            assert (tmp_path / name).read_bytes() == (report.path / name).read_bytes(), name


def test_segment_by_errors(cast, tmp_path):
    with pytest.raises(ValueError, match="segment_by"):
        mrrstats.make_report(cast.qrels, cast.runs[:2], out=tmp_path, measures="RR",
                             n_resamples=99, rng=1, notebook=False, multiverse=False,
                             progress=False, segment_by={"106_1": "a"})
    with pytest.raises(ValueError, match="at least two"):
        mrrstats.make_report(cast.qrels, cast.runs[:2], out=tmp_path, measures="RR",
                             n_resamples=99, rng=1, notebook=False, multiverse=False,
                             progress=False, segment_by=lambda q: "all")
    with pytest.raises(TypeError, match="segment_by"):
        mrrstats.make_report(cast.qrels, cast.runs[:2], out=tmp_path, measures="RR",
                             n_resamples=99, rng=1, notebook=False, multiverse=False,
                             progress=False, segment_by=3)


def test_label_spec(tmp_path):
    f = label_spec("prefix:_", "--segment-by")
    assert f("106_3") == "106" and "'_'" in f.description
    tsv = tmp_path / "seg.tsv"
    tsv.write_text("# query\tsegment\n106_1\tearly\n106_9\tlate\n", encoding="utf-8")
    assert label_spec(str(tsv), "--segment-by") == {"106_1": "early", "106_9": "late"}
    assert labels_from_spec("prefix:_", ["1_2", "3_4"], "--x") == {"1_2": "1", "3_4": "3"}
    with pytest.raises(ValueError, match="prefix:SEP needs a separator"):
        label_spec("prefix:", "--segment-by")
    tsv.write_text("106_1 early\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"seg\.tsv:1: expected"):
        label_spec(str(tsv), "--segment-by")


def test_cli_report_segment_by(cast, tmp_path, capsys):
    tsv = tmp_path / "seg.tsv"
    ev = mrrstats.evaluate(cast.qrels, cast.runs[:2], "RR")
    tsv.write_text("".join(f"{q}\t{_turn_segment(q)}\n" for q in ev.scores("RR").index),
                   encoding="utf-8")
    out = tmp_path / "r"
    rc = main(["report", str(cast.qrels), *map(str, cast.runs[:2]), "--out", str(out),
               "-m", "RR", "--n-resamples", "99", "--seed", "3", "--no-notebook",
               "--no-multiverse", "--quiet", "--segment-by", str(tsv)])
    assert rc == 0
    table = pd.read_csv(out / "results" / "segments.csv")
    assert sorted(set(table["segment"])) == ["first turns", "later turns"]
    assert (out / "tables" / "segments.md").is_file()
