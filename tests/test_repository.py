"""A fresh clone is the whole product: nothing tracked reads data from outside the repository.

The reference data of the tests, notebooks, docs and benchmarks is in the repository
(tests/data/, mrrstats/data/; tests/reference_data.py finds it), so no tracked file may
point at a folder beside the checkout or at an environment variable naming one.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess

import pytest

from tests.reference_data import ROOT, TEST_DATA

# Spelled in pieces so that this file does not match itself.
FORBIDDEN = ("../" + "shared", "shared" + "/data", "MRRSTATS_" + "SHARED")
SUFFIXES = (".py", ".md", ".toml", ".cfg", ".ipynb")


def _tracked() -> list[str]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.fail("tests/test_repository.py needs a git checkout and the git command")
    out = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=600
    ).stdout
    return [p for p in out.decode().split("\0") if p]


def _scanned(paths: list[str]) -> list[str]:
    return [p for p in paths if p.endswith(SUFFIXES) or p.startswith(".ci/")]


def _hits(root, files: list[str]) -> list[str]:
    hits = []
    for rel in _scanned(files):
        path = root / rel
        if not path.is_file():  # deleted in the work tree, not yet committed
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            hits += [
                f"{rel}:{number}: {word}: {line.strip()[:120]}"
                for word in FORBIDDEN
                if word in line
            ]
    return hits


def test_no_tracked_file_reads_data_beside_the_repository():
    files = _tracked()
    assert {"tests/conftest.py", ".ci/run", "pyproject.toml"} <= set(_scanned(files))
    hits = _hits(ROOT, files)
    assert not hits, "paths outside the repository:\n" + "\n".join(hits)


def test_the_scan_finds_what_it_looks_for(tmp_path):
    """The scan can fail: each forbidden string in a scanned file is a hit, elsewhere not."""
    names = ["a.py", "b.md", "c.toml", "d.cfg", "e.ipynb", ".ci/run", "f.csv", "g.txt"]
    (tmp_path / ".ci").mkdir()
    for name in names:
        (tmp_path / name).write_text("".join(f"x = '{w}/x'\n" for w in FORBIDDEN))
    hits = _hits(tmp_path, names)
    assert len(hits) == 6 * len(FORBIDDEN)
    assert not [h for h in hits if h.startswith(("f.csv", "g.txt"))]


def test_reference_data_is_the_recorded_copy():
    """Every file of tests/data is tracked and byte for byte the one SHA256SUMS records."""
    recorded = {}
    for line in (TEST_DATA / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split(maxsplit=1)
        recorded[name.removeprefix("./")] = digest
    present = {str(p.relative_to(TEST_DATA)) for p in TEST_DATA.rglob("*") if p.is_file()}
    assert present - {"SHA256SUMS", "README.md"} == set(recorded)
    tracked = {p.removeprefix("tests/data/") for p in _tracked() if p.startswith("tests/data/")}
    assert set(recorded) <= tracked, sorted(set(recorded) - tracked)[:5]
    changed = [
        name
        for name, digest in recorded.items()
        if hashlib.sha256((TEST_DATA / name).read_bytes()).hexdigest() != digest
    ]
    assert not changed, changed
