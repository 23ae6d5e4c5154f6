"""Every notebook in notebooks/ runs top to bottom, and is stored clean.

The execution check lives in one function, :func:`check_notebook`, and the last tests
feed it deliberately broken temporary notebooks, so a check that passed whatever the
notebook does would itself fail here.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
# seconds per cell: a guard against a hang, not a speed check (the notebooks take 3-15 s
# in all on 2 cores; how long they take is no test's business: it depends on the machine)
CELL_TIMEOUT = 600


def check_notebook(path, workdir, *, min_figures=1):
    """Execute the notebook at ``path`` in ``workdir``; raise if anything went wrong.

    Raises ``CellExecutionError`` on the first failing cell, ``AssertionError`` when a
    cell did not run, wrote an error output, printed a warning, or when the notebook
    drew fewer than ``min_figures`` figures. The kernel imports this checkout's
    ``mrrstats`` (``PYTHONPATH``), not whichever copy is installed. Returns the executed
    notebook and the execution time in seconds.
    """
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:  # a tagged cell would let nbclient swallow its exception
        tags = cell.get("metadata", {}).get("tags", [])
        assert "raises-exception" not in tags, f"{path.name}: cell tagged raises-exception"
    client = NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3",
                            allow_errors=False, resources={"metadata": {"path": str(workdir)}})
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    start = time.perf_counter()
    client.execute(env=env)  # raises CellExecutionError on the first failing cell
    elapsed = time.perf_counter() - start
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.execution_count is not None for c in code), f"{path.name}: a cell did not run"
    outputs = [o for c in code for o in c.outputs]
    errors = [o for o in outputs if o.output_type == "error"]
    assert not errors, f"{path.name}: {errors[0].ename}: {errors[0].evalue}"
    assert not [o for o in outputs if o.output_type == "stream" and o.name == "stderr"
                and "Warning" in o.text], f"{path.name}: a notebook cell printed a warning"
    n_figures = sum("image/png" in o.get("data", {}) for o in outputs)
    assert n_figures >= min_figures, f"{path.name}: drew {n_figures} figures"
    return nb, elapsed


def test_five_notebooks_exist():
    assert [p.name[:3] for p in NOTEBOOKS] == ["01_", "02_", "03_", "04_", "05_"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_stored_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(c.outputs == [] and c.execution_count is None for c in code)
    # only data bundled with the package: no paths into the shared reference data
    text = "\n".join(c.source for c in nb.cells)
    assert "../" not in text and "tests/data" not in text


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_executes(path, tmp_path):
    check_notebook(path, tmp_path)


# -- the check itself can fail ----------------------------------------------------
def _write_notebook(tmp_path, *sources, tags=()):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
    if tags:
        nb.cells[-1].metadata["tags"] = list(tags)
    path = tmp_path / "broken.ipynb"
    nbformat.write(nb, path)
    return path


def test_check_fails_on_a_failing_cell(tmp_path):
    path = _write_notebook(tmp_path, "x = 1", "raise RuntimeError('deliberate failure')",
                           "y = 2")
    with pytest.raises(CellExecutionError, match="deliberate failure"):
        check_notebook(path, tmp_path, min_figures=0)


def test_check_fails_on_a_warning_or_a_missing_figure(tmp_path):
    path = _write_notebook(tmp_path, "import warnings\nwarnings.warn('deliberate')")
    with pytest.raises(AssertionError, match="printed a warning"):
        check_notebook(path, tmp_path, min_figures=0)
    path = _write_notebook(tmp_path, "x = 1")
    with pytest.raises(AssertionError, match="drew 0 figures"):
        check_notebook(path, tmp_path)


def test_check_refuses_cells_allowed_to_raise(tmp_path):
    path = _write_notebook(tmp_path, "1 / 0", tags=["raises-exception"])
    with pytest.raises(AssertionError, match="raises-exception"):
        check_notebook(path, tmp_path, min_figures=0)


def test_check_runs_this_checkout(tmp_path):
    path = _write_notebook(tmp_path, "import mrrstats\nprint(mrrstats.__file__)")
    nb, _ = check_notebook(path, tmp_path, min_figures=0)
    printed = nb.cells[0].outputs[0].text.strip()
    assert Path(printed).resolve() == ROOT / "mrrstats" / "__init__.py"
