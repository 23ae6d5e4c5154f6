"""One temporary root per process (mrrstats.tempfiles): made once, removed at exit or by
cleanup(), and the roots of processes killed outright removed by the next process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from mrrstats import tempfiles

from .interrupting import dead_pid

ROOT = Path(__file__).resolve().parents[1]



def _fake_root(base: Path, pid: int, *, marker=True, start=None, name="abc123") -> Path:
    folder = base / f"{tempfiles.PREFIX}{pid}-{name}"
    folder.mkdir()
    if marker:
        info = {"pid": pid, "start": start}
        (folder / tempfiles.MARKER).write_text(json.dumps(info), encoding="utf-8")
    (folder / "stream-x").mkdir()
    (folder / "stream-x" / "bucket-00000.arrow").write_bytes(b"x" * 1000)
    return folder


def test_root_is_made_once_and_removed_by_cleanup():
    tempfiles.cleanup()
    root = tempfiles.root()
    assert root.name.startswith(f"{tempfiles.PREFIX}{os.getpid()}-")
    info = json.loads((root / tempfiles.MARKER).read_text())
    assert info["pid"] == os.getpid()
    assert info["start"] == tempfiles.process_start(os.getpid())
    assert tempfiles.root() == root
    sub = Path(tempfiles.mkdtemp("kernel-"))
    assert sub.parent == root and sub.name.startswith("kernel-")
    tempfiles.cleanup()
    assert not root.exists()
    tempfiles.cleanup()  # twice is fine
    again = tempfiles.root()
    assert again != root and again.is_dir()
    tempfiles.cleanup()


def test_directory_is_removed_however_the_block_ends(tmp_path):
    with pytest.raises(KeyboardInterrupt):
        with tempfiles.directory("stream-") as path:
            Path(path, "bucket").write_bytes(b"x")
            raise KeyboardInterrupt
    assert not Path(path).exists()
    with tempfiles.directory("x-", dir=tmp_path) as path:
        assert Path(path).parent == tmp_path
    assert not Path(path).exists()
    tempfiles.cleanup()


def test_clean_stale_removes_the_roots_of_dead_processes_only(tmp_path):
    dead = dead_pid()
    gone = _fake_root(tmp_path, dead)
    alive = _fake_root(tmp_path, os.getppid(), start=tempfiles.process_start(os.getppid()))
    # a running process that got the pid of a process now gone (its start time differs)
    reused = _fake_root(tmp_path, os.getppid(), start=1, name="reused")
    no_marker_full = _fake_root(tmp_path, dead, marker=False, name="nomarker")
    no_marker_empty = tmp_path / f"{tempfiles.PREFIX}{dead}-empty"
    no_marker_empty.mkdir()
    # what a kernel that was starting when its parent was killed makes again, unmarked
    no_marker_kernel = tmp_path / f"{tempfiles.PREFIX}{dead}-kernel"
    (no_marker_kernel / "kernel-x1").mkdir(parents=True)
    (no_marker_kernel / "kernel-x1" / "kernel.json").write_text("{}")
    (no_marker_kernel / "kernel-x1" / "k-1").write_bytes(b"")
    # the same of a live process, and a dead one's with something else beside: kept
    live_kernel = tmp_path / f"{tempfiles.PREFIX}{os.getppid()}-kernel"
    (live_kernel / "kernel-x1").mkdir(parents=True)
    (no_marker_full / "kernel-x1").mkdir()
    (no_marker_full / "kernel-x1" / "kernel.json").write_text("{}")
    other = tmp_path / "mrrstats-abcdef"  # not a root: never touched
    other.mkdir()
    removed = tempfiles.clean_stale(tmp_path)
    assert sorted(removed) == sorted(
        str(p) for p in (gone, reused, no_marker_empty, no_marker_kernel)
    )
    assert alive.is_dir() and no_marker_full.is_dir() and other.is_dir()
    assert live_kernel.is_dir()
    assert not gone.exists() and not reused.exists() and not no_marker_empty.exists()


def test_pid_alive():
    assert tempfiles.pid_alive(os.getpid(), tempfiles.process_start(os.getpid()))
    assert not tempfiles.pid_alive(dead_pid())
    assert not tempfiles.pid_alive(0)
    start = tempfiles.process_start(os.getpid())
    if start is not None:
        assert not tempfiles.pid_alive(os.getpid(), start + 1)


def test_a_killed_process_leaves_its_root_and_the_next_one_removes_it(tmp_path):
    code = textwrap.dedent("""
        import sys, time
        from mrrstats import tempfiles
        path = tempfiles.mkdtemp("stream-")
        open(path + "/bucket-00000.arrow", "wb").write(b"x" * 10000)
        print(path, flush=True)
        time.sleep(3600)  # killed long before: it must not exit (and clean up) by itself
    """)
    env = dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(tmp_path))
    proc = subprocess.Popen(
        [sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True
    )
    path = Path(proc.stdout.readline().strip())
    assert path.is_file() is False and path.is_dir()
    proc.send_signal(signal.SIGKILL)
    proc.wait(600)
    proc.stdout.close()
    assert path.parent.is_dir()  # nothing could remove it
    # the next process that makes a root removes it
    nxt = subprocess.run(
        [sys.executable, "-c", "from mrrstats import tempfiles; print(tempfiles.root())"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert not path.parent.exists()
    assert list(tmp_path.glob(f"{tempfiles.PREFIX}*")) == []  # its own removed at exit
    assert nxt.stdout.strip().startswith(str(tmp_path))


def test_a_process_removes_its_root_at_exit(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(tmp_path))
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "from mrrstats import tempfiles; print(tempfiles.mkdtemp('kernel-'))",
        ],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip().startswith(str(tmp_path))
    assert list(tmp_path.iterdir()) == []


def test_deferred_signals_hold_sigint_until_the_block_ends():
    steps = []
    with pytest.raises(KeyboardInterrupt):
        with tempfiles.deferred_signals():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)  # the handler has run by now, and only recorded it
            steps.append("after the signal")
        steps.append("not reached")
    assert steps == ["after the signal"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
