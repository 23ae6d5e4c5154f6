"""``mrrstats report --out DIR`` interrupted while it rewrites an existing report: the previous
report stays byte-identical, no staging folder and no temporary files are left (after a
SIGKILL: once the next command has started), and stderr is one line.

The signal is sent at events seen from outside (the handlers installed, the staging
folder written, the notebook kernel's connection file, the executed notebook saved),
not after fixed sleeps. A report with the notebook takes tens of seconds: slow tests.
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import time
from pathlib import Path

import pytest

import mrrstats

from ..interrupting import (
    digest,
    finish,
    handlers_installed,
    no_process_left,
    roots,
    start,
    wait_for,
)

pytestmark = pytest.mark.slow


def _argv(out):
    data = mrrstats.datasets.cast2021()
    return [
        "report",
        str(data.qrels),
        str(data.runs[0]),
        str(data.runs[4]),
        "-m",
        "RR",
        "--n-resamples",
        "199",
        "--no-multiverse",
        "--clusters",
        "none",
        "--quiet",
        "--seed",
        "2",
        "--out",
        str(out),
    ]


@pytest.fixture
def short_tmp():
    """A temporary folder with a short path, as /tmp is: the kernel's IPC sockets go in it
    (a long one, such as pytest's, makes the notebook fall back to TCP)."""
    path = Path(tempfile.mkdtemp(prefix="mi-", dir="/tmp" if os.path.isdir("/tmp") else None))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def previous(tmp_path_factory):
    """A complete report (with its notebook), made by the command line."""
    base = tmp_path_factory.mktemp("previous")
    tmp = base / "tmp"
    tmp.mkdir()
    out = base / "report"
    proc = start([*_argv(out)[:-2], "--seed", "1", "--out", str(out)], tmp)
    rc, _, err = finish(proc, timeout=600)
    assert (rc, err) == (0, "")
    assert (out / "report.html").is_file() and (out / "report.ipynb").is_file()
    assert sorted(p.name for p in base.iterdir()) == ["report", "tmp"]  # no staging left
    assert roots(tmp) == []
    return out


def _staging(out):
    return sorted(p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}."))


EVENTS = {
    # evaluating and analysing: nothing written yet
    "analysis": lambda out, tmp, proc: handlers_installed(proc.pid),
    # the staging folder holds per_query.csv and settings.json
    "staging": lambda out, tmp, proc: any(out.parent.glob(f".{out.name}.tmp-*/settings.json")),
    # the notebook's kernel is starting or running
    "kernel": lambda out, tmp, proc: any(tmp.glob("mrrstats-run-*/kernel-*/kernel.json")),
    # the notebook is executed and saved; the HTML page is being written
    "html": lambda out, tmp, proc: any(out.parent.glob(f".{out.name}.tmp-*/report.ipynb")),
}


@pytest.mark.parametrize(
    "sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL], ids=["SIGINT", "SIGTERM", "SIGKILL"]
)
@pytest.mark.parametrize("event", list(EVENTS))
def test_interrupted_report_keeps_the_previous_one(previous, event, sig, tmp_path, short_tmp):
    out = tmp_path / "report"
    shutil.copytree(previous, out)
    (out / "notes.txt").write_text("a reader's own file")
    before = digest(out)
    tmp = short_tmp
    proc = start(_argv(out), tmp)
    condition = EVENTS[event]
    if not wait_for(lambda: condition(out, tmp, proc), proc):
        pytest.fail(f"the report ended before the event {event!r}: {finish(proc)}")
    if event == "analysis":
        time.sleep(1.0)  # into the evaluation
    proc.send_signal(sig)
    rc, _, err = finish(proc)
    if sig == signal.SIGKILL:
        assert (rc, err) == (-signal.SIGKILL, "")
        assert digest(out) == before  # nothing of the new report got in
        assert no_process_left(tmp)  # the kernel noticed its parent was gone
        # the next report into DIR cleans up (here one refused at once: no such scores)
        nxt = start(["report", "--scores", str(tmp_path / "missing.csv"), "--out", str(out)], tmp)
        rc, _, err = finish(nxt)
        assert rc == 2 and "missing.csv" in err
    else:
        assert (rc, err) == (128 + sig, "mrrstats: interrupted\n")
    assert digest(out) == before
    assert _staging(out) == []
    left = {r: sorted(str(p.relative_to(tmp)) for p in (tmp / r).rglob("*")) for r in roots(tmp)}
    assert left == {}
    assert no_process_left(tmp)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]
    assert list(tmp.iterdir()) == []


def test_a_completed_report_replaces_the_previous_one(previous, tmp_path, short_tmp):
    out = tmp_path / "report"
    shutil.copytree(previous, out)
    (out / "notes.txt").write_text("a reader's own file")
    (out / "tables" / "stale.md").write_text("from an older report")
    tmp = short_tmp
    rc, _, err = finish(start(_argv(out), tmp), timeout=600)
    assert (rc, err) == (0, "")
    after = digest(out)
    assert "tables/stale.md" not in after and after["notes.txt"] == digest(out)["notes.txt"]
    assert (out / "settings.json").read_text() != (previous / "settings.json").read_text()
    assert _staging(out) == [] and roots(tmp) == []
    assert Path(out / "report.html").is_file()
