"""A report folder is replaced whole or not at all (mrrstats.report.staging): an error or an
interruption leaves the previous report as it was, and what a killed run left is cleaned
up (or the swap it was doing finished) by the next report into the same folder."""

from __future__ import annotations

import json
import os

import pytest

import mrrstats
from mrrstats.errors import ParameterError
from mrrstats.report import builder, staging

from ..interrupting import dead_pid, digest


def _previous_report(folder):
    """A folder holding a (fake) previous report and a reader's own files."""
    (folder / "tables").mkdir(parents=True)
    (folder / "results").mkdir()
    (folder / "screenshots").mkdir()
    for name, text in [
        ("report.html", "old html"),
        ("report.ipynb", "{}"),
        ("per_query.csv", "system,query\n"),
        ("settings.json", "{}"),
        ("tables/comparison.md", "old"),
        ("tables/old_only.md", "gone later"),
        ("results/pairs.csv", "old"),
        ("screenshots/page-1.png", "png"),
        ("notes.txt", "mine"),
    ]:
        (folder / name).write_text(text)
    return digest(folder)


def _siblings(out):
    return sorted(p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}."))



def test_the_new_report_replaces_the_old_one_and_leaves_other_files(tmp_path):
    out = tmp_path / "report"
    _previous_report(out)
    with staging.staged(out) as stage:
        assert stage.parent == out.parent and stage.name.startswith(".report.tmp-")
        (stage / "tables").mkdir()
        (stage / "tables" / "comparison.md").write_text("new")
        (stage / "settings.json").write_text('{"new": 1}')
    after = digest(out)
    assert after == {
        "tables/comparison.md": after["tables/comparison.md"],
        "settings.json": after["settings.json"],
        "screenshots/page-1.png": after["screenshots/page-1.png"],
        "notes.txt": after["notes.txt"],
    }
    assert (out / "tables" / "comparison.md").read_text() == "new"
    assert (out / "notes.txt").read_text() == "mine"
    assert _siblings(out) == []


@pytest.mark.parametrize("error", [KeyboardInterrupt, ValueError])
def test_an_error_or_interruption_leaves_the_previous_report_whole(tmp_path, error):
    out = tmp_path / "report"
    before = _previous_report(out)
    with pytest.raises(error):
        with staging.staged(out) as stage:
            (stage / "settings.json").write_text("new")
            raise error("stopped")
    assert digest(out) == before
    assert _siblings(out) == []


def test_a_first_report_needs_no_folder(tmp_path):
    out = tmp_path / "a" / "b" / "report"
    with staging.staged(out) as stage:
        (stage / "per_query.csv").write_text("x")
    assert digest(out).keys() == {"per_query.csv"}


def test_out_must_be_a_folder(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(ParameterError, match="`out` .* is a file"):
        staging.prepare(tmp_path / "file")
    with pytest.raises(ParameterError, match="`out` .* cannot make its folder"):
        staging.prepare("/proc/no/such/folder")


def _killed_swap(out, *, moved_out, moved_in, entries=("settings.json", "tables")):
    """The folders a run killed during the swap leaves: ``moved_out`` old entries renamed
    away, ``moved_in`` new entries renamed in."""
    stage = out.parent / f".{out.name}.tmp-k1ll3d"
    stage.mkdir()
    (stage / "settings.json").write_text("new")
    (stage / "tables").mkdir()
    (stage / "tables" / "comparison.md").write_text("new")
    info = {"pid": dead_pid(), "start": None, "entries": list(entries)}
    (stage / staging.MARKER).write_text(json.dumps(info))
    old = out.parent / f".{out.name}.old-k1ll3d"
    old.mkdir()
    for name in moved_out:
        os.rename(out / name, old / name)
    for name in moved_in:
        os.rename(stage / name, out / name)
    return stage, old


@pytest.mark.parametrize("moved_out", [(), ("report.html",), staging.REPORT_ENTRIES])
def test_recover_puts_the_previous_report_back_when_nothing_new_moved_in(tmp_path, moved_out):
    out = tmp_path / "report"
    before = _previous_report(out)
    _killed_swap(out, moved_out=moved_out, moved_in=())
    done = staging.recover(out)
    assert digest(out) == before
    assert _siblings(out) == []
    assert any("removed" in d for d in done)


def test_recover_finishes_a_swap_half_done(tmp_path):
    out = tmp_path / "report"
    _previous_report(out)
    _killed_swap(out, moved_out=staging.REPORT_ENTRIES, moved_in=("settings.json",))
    staging.recover(out)
    after = digest(out)
    assert (out / "settings.json").read_text() == "new"
    assert (out / "tables" / "comparison.md").read_text() == "new"
    assert set(after) == {
        "settings.json",
        "tables/comparison.md",
        "screenshots/page-1.png",
        "notes.txt",
    }
    assert _siblings(out) == []


def test_recover_removes_a_staging_folder_of_a_killed_run_and_keeps_a_live_one(tmp_path):
    out = tmp_path / "report"
    before = _previous_report(out)
    killed = out.parent / ".report.tmp-dead"
    killed.mkdir()
    (killed / "per_query.csv").write_text("half written")
    (killed / staging.MARKER).write_text(json.dumps({"pid": dead_pid(), "entries": None}))
    live = out.parent / ".report.tmp-live"
    live.mkdir()
    (live / staging.MARKER).write_text(json.dumps({"pid": os.getppid(), "entries": None}))
    leftover = out.parent / ".report.old-done"  # a swap that ended but for removing this
    leftover.mkdir()
    (leftover / "report.html").write_text("older")
    staging.recover(out)
    assert digest(out) == before
    assert _siblings(out) == [".report.tmp-live"]


@pytest.mark.slow  # a whole analysis: 5-15 s
def test_make_report_interrupted_while_writing_keeps_the_previous_report(tmp_path, monkeypatch):
    data = mrrstats.datasets.cast2021()
    out = tmp_path / "report"
    before = _previous_report(out)

    def interrupted(stage, *args, **kwargs):
        assert stage.name.startswith(".report.tmp-") and (stage / "settings.json").is_file()
        raise KeyboardInterrupt

    monkeypatch.setattr(builder, "write_notebook", interrupted)
    with pytest.raises(KeyboardInterrupt):
        mrrstats.make_report(
            data.qrels,
            data.runs[:2],
            out=out,
            measures="RR",
            n_resamples=99,
            rng=1,
            multiverse=False,
            progress=False,
            clusters=None,
        )
    assert digest(out) == before
    assert _siblings(out) == []
