"""A report folder is replaced whole or not at all.

:func:`staged` gives a staging folder beside the target, ``.<name>.tmp-XXXX`` (same
file system, so moving is renaming). The report is written there; only when
it is complete are its entries swapped into the target:

1. the staging folder's marker lists the entries (the report is complete);
2. the previous report's entries (:data:`REPORT_ENTRIES`, and any entry of the
   new report) are renamed into ``.<name>.old-XXXX``;
3. the new entries are renamed into the target;
4. the old and the staging folders are removed.

Steps 2-4 are a few renames with SIGINT and SIGTERM held back
(:func:`mrrstats.tempfiles.deferred_signals`). Anything else in the target
(screenshots, a reader's notes) stays where it is. An error or an interruption
before step 2 removes the staging folder and leaves the previous report as it
was. A process killed outright (SIGKILL) leaves its staging folder;
:func:`recover`, run at the start of the next report into the same folder,
removes it, and, had the kill come during steps 2-3, puts the previous report
back (every new entry still staged) or finishes the swap (some moved).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from pathlib import Path

from ..errors import ParameterError
from ..tempfiles import deferred_signals, pid_alive, process_start

__all__ = ["REPORT_ENTRIES", "MARKER", "prepare", "staged", "recover", "commit"]

#: The entries of a report folder that a new report replaces (the rest is left alone).
REPORT_ENTRIES = (
    "report.ipynb",
    "report.html",
    "per_query.csv",
    "settings.json",
    "tables",
    "results",
)
#: The staging folder's marker: its owner, and the entries once the report is complete.
MARKER = ".mrrstats-staging"


def _target(out) -> Path:
    out = Path(os.path.abspath(os.fspath(out)))
    if not out.name:
        raise ParameterError(
            f"`out` {os.fspath(out)!r} must name a folder below the root", name="out"
        )
    if out.exists() and not out.is_dir():
        raise ParameterError(f"`out` {os.fspath(out)!r} is a file, not a folder", name="out")
    return out


def _write_marker(stage: Path, entries) -> None:
    info = {"pid": os.getpid(), "start": process_start(os.getpid()), "entries": entries}
    tmp = stage / (MARKER + ".new")
    tmp.write_text(json.dumps(info) + "\n", encoding="utf-8")
    os.replace(tmp, stage / MARKER)


def _read_marker(stage: Path):
    try:
        return json.loads((stage / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def _move(src: Path, dst: Path) -> None:
    if dst.exists() or dst.is_symlink():
        _remove(dst)
    os.rename(src, dst)


def _siblings(out: Path, kind: str):
    prefix = f".{out.name}.{kind}-"
    try:
        return sorted(p for p in out.parent.iterdir() if p.name.startswith(prefix))
    except OSError:
        return []


def recover(out) -> list[str]:
    """Clean up after reports into ``out`` whose process was killed: returns what was done.

    A staging folder whose owner still runs (a report being written right now)
    is left alone.
    """
    out = _target(out)
    done = []
    for stage in _siblings(out, "tmp"):
        info = _read_marker(stage)
        if info is not None and (
            info.get("pid") == os.getpid() or pid_alive(int(info.get("pid", 0)), info.get("start"))
        ):
            continue
        if info is None and stage.exists() and any(stage.iterdir()):
            continue  # not ours (no marker), or being made this very moment: keep it
        suffix = stage.name[len(f".{out.name}.tmp-") :]
        old = out.parent / f".{out.name}.old-{suffix}"
        entries = (info or {}).get("entries")
        if old.is_dir() and entries is not None:
            staged_left = [e for e in entries if (stage / e).exists()]
            if len(staged_left) == len(entries):  # killed before any new entry moved in
                for entry in old.iterdir():
                    _move(entry, out / entry.name)
                done.append(f"restored the previous report from {old.name}")
            else:  # killed while the new entries moved in: finish
                for e in staged_left:
                    _move(stage / e, out / e)
                done.append(f"finished moving the new report from {stage.name}")
        _remove(old)
        _remove(stage)
        done.append(f"removed {stage.name}")
    for old in _siblings(out, "old"):  # a swap that finished but for removing the old one
        suffix = old.name[len(f".{out.name}.old-") :]
        if not (out.parent / f".{out.name}.tmp-{suffix}").exists():
            _remove(old)
            done.append(f"removed {old.name}")
    return done


def commit(stage: Path, out) -> None:
    """Swap the complete report in ``stage`` into ``out`` (steps 1-4 above)."""
    out = _target(out)
    entries = sorted(p.name for p in stage.iterdir() if not p.name.startswith(MARKER))
    _write_marker(stage, entries)
    suffix = stage.name[len(f".{out.name}.tmp-") :]
    old = out.parent / f".{out.name}.old-{suffix}"
    with deferred_signals():
        out.mkdir(exist_ok=True)
        old.mkdir()
        for name in dict.fromkeys([*REPORT_ENTRIES, *entries]):
            if (out / name).exists() or (out / name).is_symlink():
                os.rename(out / name, old / name)
        for name in entries:
            os.rename(stage / name, out / name)
        _remove(stage)
        _remove(old)


def prepare(out) -> Path:
    """Check ``out`` (a folder, or nothing yet), make its parent folder and clean up after
    killed reports into it (:func:`recover`); returns its absolute path."""
    out = _target(out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ParameterError(
            f"`out` {os.fspath(out)!r}: cannot make its folder ({exc.strerror or exc})", name="out"
        ) from None
    recover(out)
    return out


@contextlib.contextmanager
def staged(out):
    """A staging folder for a report into ``out``, swapped in when the block ends
    normally and removed when it ends with an error or an interruption."""
    out = prepare(out)
    stage = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    try:
        _write_marker(stage, None)
        yield stage
    except BaseException:
        with deferred_signals():
            _remove(stage)
        raise
    commit(stage, out)
