"""Every example in README.md runs as written.

Python blocks written as doctests (``>>>``) are checked against their printed
output; the other Python blocks are executed in order in one namespace (a reader
pastes them one after the other), in a temporary working directory. Shell blocks
are the two set-up commands, exercised by CI itself, and command-line sketches.
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_starts_with_the_two_setup_commands():
    text = README.read_text()
    shell = re.findall(r"```bash\n(.*?)```", text, flags=re.S)
    assert "mrrstats report --example" in shell[0]
    assert "pytest" in shell[1] and '".[test]"' in shell[1]


@pytest.mark.slow
def test_readme_python_examples_run(tmp_path, monkeypatch):
    assert BLOCKS, "README.md has no Python examples"
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__readme__"}
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE
                                   | doctest.ELLIPSIS)
    parser = doctest.DocTestParser()
    for i, block in enumerate(BLOCKS):
        if block.lstrip().startswith(">>>"):
            test = parser.get_doctest(block, namespace, f"README block {i}", str(README), 0)
            result = runner.run(test, clear_globs=False)
            assert result.failed == 0, f"README doctest block {i} failed"
        else:
            try:
                exec(compile(block, f"README block {i}", "exec"), namespace)
            except Exception as exc:  # noqa: BLE001 - report which block broke
                pytest.fail(f"README Python block {i} raised {type(exc).__name__}: {exc}\n"
                            f"{block}")
