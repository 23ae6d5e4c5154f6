"""Temporary files: one root folder per process, removed at exit and found again if not.

Everything mrrstats writes for a while and then deletes (the notebook kernel's
sockets and connection file, the stream engine's buckets) goes into folders
made by :func:`mkdtemp` / :func:`directory` under one root per process::

    $TMPDIR/mrrstats-run-<pid>-<random>/
        .mrrstats-run          marker: {"pid": ..., "start": ...} (the process's start
                               time, so that a reused pid is not taken for the owner)
        kernel-xxxx/           a notebook kernel's sockets and connection file
        stream-xxxx/           a stream evaluation's buckets

The root is made when first needed and removed at interpreter exit
(:mod:`atexit`), and by the command line after an error or an interruption
(SIGINT, SIGTERM). A process killed outright (SIGKILL, a crash, the machine
going down) cannot clean up: its root stays, and the next process that makes
a root (or the next ``mrrstats`` command) removes the roots whose process is
gone (:func:`clean_stale`). Only folders carrying the marker are removed,
and, of a process that is gone, unmarked ones that are empty or hold only a
notebook kernel's connection file, log and sockets.

:func:`deferred_signals` holds SIGINT and SIGTERM back during a few renames
that must not be cut in half (the swap of a report folder).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import signal
import tempfile
import threading
import time
from pathlib import Path

__all__ = [
    "PREFIX",
    "MARKER",
    "KERNEL_PREFIX",
    "KERNEL_FILES",
    "KERNEL_SOCKET",
    "root",
    "mkdtemp",
    "directory",
    "cleanup",
    "clean_stale",
    "process_start",
    "pid_alive",
    "deferred_signals",
]

#: Name prefix of a root folder (followed by ``<pid>-<random>``).
PREFIX = "mrrstats-run-"
#: The marker file inside a root; a folder without it is never removed.
MARKER = ".mrrstats-run"

#: A notebook kernel's folder under a root (its name's prefix), and what the kernel and
#: mrrstats write in it: the connection file, the kernel's log, and the IPC sockets
#: (``KERNEL_SOCKET`` followed by ``-<n>``).
KERNEL_PREFIX = "kernel-"
KERNEL_FILES = ("kernel.json", "kernel.log")
KERNEL_SOCKET = "k"

_lock = threading.RLock()
_root: Path | None = None
_root_pid: int | None = None


def process_start(pid: int) -> int | None:
    """The start time of process ``pid`` in clock ticks since boot (Linux), else None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return None
    try:  # the command name (field 2) may hold spaces and parentheses: split after it
        return int(stat[stat.rindex(b")") + 2 :].split()[19])
    except (ValueError, IndexError):  # pragma: no cover - not Linux's format
        return None


def pid_alive(pid: int, start: int | None = None) -> bool:
    """Whether process ``pid`` runs (and, when ``start`` is known, is the one that
    started then, not a later process given the same pid)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    except OSError:  # pragma: no cover - e.g. Windows without the pid
        return False
    if start is not None:
        now = process_start(pid)
        if now is not None and now != start:
            return False
    return True


def _owner(folder: Path):
    """``(pid, start)`` of a root folder's marker, or None if it has none."""
    try:
        info = json.loads((folder / MARKER).read_text(encoding="utf-8"))
        return int(info["pid"]), info.get("start")
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _kernel_residue_only(folder: Path) -> bool:
    """Whether a root without its marker holds nothing or only what a notebook kernel
    writes for itself: ``kernel-*`` folders with its connection file, log and sockets.

    A kernel still starting when its parent is killed outright makes its folder again
    (ipykernel creates the connection file's folder) after the next process has removed
    the dead root, then ends without removing it: such a root has no marker."""
    for entry in os.scandir(folder):
        if not (entry.name.startswith(KERNEL_PREFIX) and entry.is_dir(follow_symlinks=False)):
            return False
        for inner in os.scandir(entry.path):
            if inner.is_dir(follow_symlinks=False) or not (
                inner.name in KERNEL_FILES or inner.name.startswith(f"{KERNEL_SOCKET}-")
            ):
                return False
    return True


def clean_stale(tmpdir=None) -> list[str]:
    """Remove the roots (under ``tmpdir``, default the system's temporary folder) left by
    processes that are gone; returns the folders removed.

    A folder is removed only if its name starts with :data:`PREFIX` and it holds
    the :data:`MARKER` of a process that no longer runs, or, without a marker,
    if its pid (in the name) no longer runs and it is empty (a process killed
    between making the folder and writing the marker) or holds only a notebook
    kernel's connection file, log and sockets (a kernel that was starting when
    its parent was killed made them again after the root was removed).
    """
    base = Path(tmpdir) if tmpdir is not None else Path(tempfile.gettempdir())
    removed: list[str] = []
    try:
        entries = list(os.scandir(base))
    except OSError:
        return removed
    for entry in entries:
        if not entry.name.startswith(PREFIX):
            continue
        try:
            if not entry.is_dir(follow_symlinks=False):
                continue
        except OSError:
            continue
        folder = Path(entry.path)
        owner = _owner(folder)
        if owner is None:
            try:
                pid = int(entry.name[len(PREFIX) :].split("-", 1)[0])
                ours = _kernel_residue_only(folder)
            except (ValueError, OSError):
                continue
            if not ours or pid == os.getpid() or pid_alive(pid):
                continue
        elif owner[0] == os.getpid() or pid_alive(*owner):
            continue
        for _ in range(3):  # a process of the dead run (a kernel) may still be ending
            shutil.rmtree(folder, ignore_errors=True)
            if not folder.exists():
                removed.append(str(folder))
                break
            time.sleep(0.1)
    return removed


def root() -> Path:
    """This process's root folder (made, and stale roots removed, on first use)."""
    global _root, _root_pid
    with _lock:
        if _root is not None and _root_pid == os.getpid() and _root.is_dir():
            return _root
        clean_stale()
        folder = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-"))
        marker = {"pid": os.getpid(), "start": process_start(os.getpid())}
        (folder / MARKER).write_text(json.dumps(marker) + "\n", encoding="utf-8")
        if _root_pid != os.getpid():  # once per process (a forked child registers again)
            atexit.register(cleanup)
        _root, _root_pid = folder, os.getpid()
        return folder


def mkdtemp(prefix: str = "tmp-") -> str:
    """A new folder under :func:`root` (the caller removes it, or :func:`cleanup` does)."""
    return tempfile.mkdtemp(prefix=prefix, dir=root())


@contextlib.contextmanager
def directory(prefix: str = "tmp-", *, dir=None):
    """A temporary folder for the ``with`` block: under :func:`root`, or under ``dir``
    when given; removed when the block ends, however it ends."""
    path = tempfile.mkdtemp(prefix=prefix, dir=dir) if dir is not None else mkdtemp(prefix)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def cleanup() -> None:
    """Remove this process's root folder and everything in it (safe to call twice)."""
    global _root
    with _lock:
        folder = _root
        if folder is None or _root_pid != os.getpid():
            return  # a forked child never removes its parent's root
        _root = None
        shutil.rmtree(folder, ignore_errors=True)


_SIGNALS = tuple(
    s for s in (getattr(signal, "SIGINT", None), getattr(signal, "SIGTERM", None)) if s is not None
)


@contextlib.contextmanager
def deferred_signals():
    """Hold SIGINT and SIGTERM back until the block ends, then act on them as the
    handlers in place before would have (in the main thread; elsewhere signals do not
    reach the block anyway)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending = []
    old = {}
    try:
        for sig in _SIGNALS:
            old[sig] = signal.getsignal(sig)
            signal.signal(sig, lambda signum, frame: pending.append(signum))
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
        for signum in dict.fromkeys(pending):
            handler = old.get(signum)
            if callable(handler):
                handler(signum, None)
            elif handler != signal.SIG_IGN:  # the default action (SIGTERM: end the process)
                signal.raise_signal(signum)
