"""Helpers of the interruption tests: run ``python -m mrrstats`` in a child process with
its own temporary folder, wait for an event (a folder appearing), send a signal, and
look at what is left."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def dead_pid() -> int:
    """The pid of a process that has ended (a child run to its end)."""
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    return int(proc.stdout)


def start(argv, tmpdir, **kwargs) -> subprocess.Popen:
    """``python -m mrrstats ARGV`` with ``TMPDIR=tmpdir``, stdout and stderr captured."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(tmpdir), CI="1")
    env.setdefault("MRRSTATS_TRACEBACK", "0")
    return subprocess.Popen(
        [sys.executable, "-m", "mrrstats", *argv],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,
    )


def handlers_installed(pid: int) -> bool:
    """Whether process ``pid`` catches SIGTERM (the command line installed its handlers)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    caught = next((ln.split()[1] for ln in status.splitlines() if ln.startswith("SigCgt:")), "0")
    return bool(int(caught, 16) & (1 << (signal.SIGTERM - 1)))


def wait_for(condition, proc, timeout=240.0, step=0.01) -> bool:
    """Poll ``condition()`` until it holds (True) or the process ends (False)."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if condition():
            return True
        if proc.poll() is not None:
            return False
        time.sleep(step)
    raise TimeoutError("the event did not come")


def finish(proc, timeout=120.0):
    """``(exit code, stdout, stderr)`` once the process has ended."""
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


def digest(folder) -> dict:
    """``{relative path: SHA-256}`` of every file under ``folder``."""
    folder = Path(folder)
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def roots(tmpdir) -> list[str]:
    """The mrrstats temporary roots under ``tmpdir``."""
    return sorted(p.name for p in Path(tmpdir).glob("mrrstats-run-*"))


def processes_using(path) -> list[int]:
    """Pids whose command line or environment mentions ``path`` (a kernel left running,
    say). The environment too: a child forked by a killed command but not yet turned
    into the kernel (exec) still has the command's command line, and the TMPDIR that
    :func:`start` gave the command."""
    hits = []
    needle = str(path).encode()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            cmd = (proc / "cmdline").read_bytes()
            env = (proc / "environ").read_bytes()
        except OSError:
            continue
        if needle in cmd or needle in env:
            hits.append(int(proc.name))
    return hits


def no_process_left(path, timeout=120.0) -> bool:
    """Wait until no process mentions ``path`` (a kernel polls for its parent every
    second and exits when it is gone)."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if not processes_using(path):
            return True
        time.sleep(0.2)
    return False
