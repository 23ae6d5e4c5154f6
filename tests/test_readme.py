"""Every example in README.md runs as written, on its own.

A reader copies one block, not the whole page: each Python block runs by itself in a
fresh ``python`` process whose working directory is a new, empty folder. Blocks written
as doctests (``>>>``) are checked against their printed output. A block that needs torch
or a CUDA device is preceded by an HTML comment, ``<!-- requires: torch -->`` or
``<!-- requires: cuda -->``, and is skipped (not failed) where that is missing; it is
still self-contained. No block is slow (each takes a few seconds), so all of them run in
the default run.

The shell blocks: the two set-up commands must be there word for word, and every
``mrrstats ...`` command line must parse with the command's own argument parser (its
options and values are valid; nothing is run). The README is a front door: at most 300
lines, and every file it links to exists.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from mrrstats.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
TEXT = README.read_text(encoding="utf-8")

# (requirement or None, language, code) for every fenced block, in order
FENCE = re.compile(
    r"(?:<!--\s*requires:\s*(?P<req>[\w-]+)\s*-->\s*\n)?"
    r"^```(?P<lang>\w*)\n(?P<code>.*?)^```",
    flags=re.S | re.M,
)
BLOCKS = [(m["req"], m["lang"], m["code"]) for m in FENCE.finditer(TEXT)]
PYTHON = [(req, code) for req, lang, code in BLOCKS if lang == "python"]
BASH = [code for _, lang, code in BLOCKS if lang == "bash"]

SETUP_REPORT = (
    "python3 -m venv .venv && . .venv/bin/activate && pip install . && mrrstats report --example"
)
SETUP_TESTS = 'python3 -m venv .venv && . .venv/bin/activate && pip install -e ".[test]" && pytest'
MAX_LINES = 300


@functools.cache
def _has(requirement: str) -> bool:
    if requirement == "torch":
        return importlib.util.find_spec("torch") is not None
    if requirement == "cuda":
        if importlib.util.find_spec("torch") is None:
            return False
        probe = subprocess.run(
            [sys.executable, "-c", "import sys, torch; sys.exit(not torch.cuda.is_available())"],
            capture_output=True,
            timeout=300,
        )
        return probe.returncode == 0
    raise AssertionError(f"README: unknown requirement marker {requirement!r}")


def _env() -> dict[str, str]:
    """The test's environment, with this checkout first on the import path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env["MPLBACKEND"] = "Agg"
    return env


def test_readme_has_python_examples():
    assert len(PYTHON) >= 5, "README.md lost its Python examples"
    assert any(req is None and code.lstrip().startswith(">>>") for req, code in PYTHON)


@pytest.mark.parametrize(
    ("requirement", "code"), PYTHON, ids=[f"block{i}" for i in range(len(PYTHON))]
)
def test_readme_python_block_runs_on_its_own(requirement, code, tmp_path):
    if requirement is not None and not _has(requirement):
        pytest.skip(f"needs {requirement}")
    folder = tmp_path / "empty"
    folder.mkdir()
    if code.lstrip().startswith(">>>"):
        (tmp_path / "block.txt").write_text(code, encoding="utf-8")
        program = (
            "import doctest, sys\n"
            f"r = doctest.testfile({str(tmp_path / 'block.txt')!r}, "
            "module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE "
            "| doctest.ELLIPSIS)\n"
            "sys.exit(1 if r.failed else 0)\n"
        )
    else:
        program = code
    done = subprocess.run(
        [sys.executable, "-c", program],
        cwd=folder,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, (
        f"README block failed on its own:\n{code}\n"
        f"--- stdout\n{done.stdout[-3000:]}\n"
        f"--- stderr\n{done.stderr[-3000:]}"
    )


def test_readme_is_a_front_door():
    lines = TEXT.count("\n")
    assert lines <= MAX_LINES, f"README.md has {lines} lines (at most {MAX_LINES})"


def test_readme_starts_with_the_two_setup_commands():
    assert BASH[0].strip() == SETUP_REPORT
    assert BASH[1].strip() == SETUP_TESTS


def _mrrstats_commands() -> list[str]:
    commands = []
    for block in BASH:
        for line in block.splitlines():
            for part in line.split("&&"):
                part = part.split("#", 1)[0].strip()
                if part.startswith("mrrstats "):
                    commands.append(part)
    return commands


def test_readme_shows_command_lines():
    assert len(_mrrstats_commands()) >= 3


@pytest.mark.parametrize("command", _mrrstats_commands())
def test_readme_command_line_parses(command):
    # parse only: the options, choices and values are checked by the real parser
    argv = shlex.split(command)[1:]
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # argparse refuses with exit code 2 and a usage line
        pytest.fail(f"README command does not parse (exit {exc.code}): {command}")
    assert args.command == argv[0]


def test_readme_links_exist():
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", TEXT)
    local = [link for link in links if "://" not in link]
    assert any(link.startswith("docs/") for link in local)
    missing = [link for link in local if not (ROOT / link).exists()]
    assert not missing, f"README.md links to files that do not exist: {missing}"
