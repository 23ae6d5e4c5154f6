"""Every notebook in notebooks/ runs top to bottom, and is stored clean."""

from __future__ import annotations

import time
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
CELL_TIMEOUT = 120    # seconds per cell
NOTEBOOK_BUDGET = 60  # seconds per notebook (the "runs in under a minute")


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
    assert "shared/data" not in text and "../" not in text


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_executes(path, tmp_path):
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3",
                            allow_errors=False, resources={"metadata": {"path": str(tmp_path)}})
    start = time.perf_counter()
    client.execute()  # raises CellExecutionError on the first failing cell
    elapsed = time.perf_counter() - start
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert not [o for o in outputs if o.output_type == "stream" and o.name == "stderr"
                and "Warning" in o.text], "a notebook cell printed a warning"
    n_figures = sum("image/png" in o.get("data", {}) for o in outputs)
    assert n_figures >= 1, "every notebook draws at least one figure"
    # generous against machine noise; the notebooks take 3-15 s on 2 cores
    assert elapsed < 2 * NOTEBOOK_BUDGET, f"{path.name} took {elapsed:.0f} s"
