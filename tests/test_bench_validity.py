"""The validity harness (benchmarks/bench_validity.py) and the defaults chosen from it.

The smoke run (``--quick``) checks the table's structure end to end: every exported
test, interval and many-system procedure has its row, every cell is a rate in [0, 1]
with its Monte-Carlo standard error sqrt(p (1 - p) / R). The committed full table
(benchmarks/results_validity.md) is checked against the defaults it justifies.
"""

from __future__ import annotations

import importlib.util
import math
import re
from pathlib import Path

import pytest

from mrrstats import defaults

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "bench_validity.py"
RESULTS = ROOT / "benchmarks" / "results_validity.md"
CELL = re.compile(r"^\*{0,2}(\d+\.\d+) \((\d+\.\d+|nan)\)\*{0,2}$")


def _harness():
    spec = importlib.util.spec_from_file_location("bench_validity", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _tables(text):
    """{section title: [row cells]} for the markdown tables under '### ' headings."""
    out, title = {}, None
    for line in text.splitlines():
        if line.startswith("### "):
            title = line[4:].strip()
            out[title] = []
        elif title and line.startswith("|") and not line.startswith("|---"):
            out[title].append([c.strip() for c in line.strip().strip("|").split("|")])
    return out


def _rows(table):
    """Body rows (the header dropped) as {label: cells}."""
    return {r[0]: r[1:] for r in table[1:]}


@pytest.mark.slow
def test_quick_run_writes_every_row_with_rates_and_errors(tmp_path):
    bv = _harness()
    out = tmp_path / "validity.md"
    bv.main(["--quick", "--out", str(out)])
    text = out.read_text()
    assert "python benchmarks/bench_validity.py --quick" in text
    assert "<!-- tables -->" in text
    tables = _tables(text)
    size = _rows(tables["Size on real nulls: two systems"])
    cover = _rows(tables["Coverage of 95% intervals: two systems"])
    assert set(size) == set(bv.TESTS)
    assert set(cover) == set(bv._intervals([0.1, 0.2, 0.4], [0.3, 0.2, 0.0], 1))
    for f in ("bootstrap_ci", "paired_ttest", "randomization_test", "hodges_lehmann"):
        assert any(f in label for label in cover), f
    labels = [lab for lab, _ in bv.PROCEDURES]
    fwer = _rows(tables["Many systems: family-wise error on real nulls"])
    assert set(fwer) == set(labels) - set(bv.SAME_DECISIONS)
    for title in (
        "Many systems: simultaneous coverage",
        "Many systems: mean per-pair coverage",
        "Many systems: mean number of rejected pairs (of 45; Dunnett of 9)",
    ):
        assert set(_rows(tables[title])) == set(labels), title
    n_cols = len(bv.SIZES) + len(bv.MEASURES)
    two_r = {"pooled": 4 * len(bv.MEASURES), "measure": 4}  # --quick: R = 4 per measure
    for rows in (size, cover):
        for label, cells in rows.items():
            assert len(cells) == n_cols, label
            for j, cell in enumerate(cells):
                m = CELL.match(cell)
                assert m, (label, cell)
                p, se = float(m.group(1)), float(m.group(2))
                assert 0 <= p <= 1
                r = two_r["pooled" if j < len(bv.SIZES) else "measure"]
                assert se == pytest.approx(math.sqrt(max(p * (1 - p), 1e-12) / r), abs=6e-4)
    for title in (
        "Many systems: family-wise error on real nulls",
        "Many systems: simultaneous coverage",
    ):
        for label, cells in _rows(tables[title]).items():
            r = int(cells[-1])
            assert r >= 1
            for cell in cells[:-1]:
                m = CELL.match(cell)
                assert m, (label, cell)
                p, se = float(m.group(1)), float(m.group(2))
                assert 0 <= p <= 1
                assert se == pytest.approx(math.sqrt(max(p * (1 - p), 1e-12) / r), abs=6e-4)
    for label, cells in _rows(tables["Many systems: mean per-pair coverage"]).items():
        for cell in cells[:-1]:
            assert 0 <= float(CELL.match(cell).group(1)) <= 1, label


def test_bootstrap_ci_default_is_the_method_that_covers_best_at_25_topics():
    """defaults.BOOTSTRAP_METHOD follows the committed full table (issue #28)."""
    text = RESULTS.read_text()
    assert "--quick" not in text.split("\n", 3)[2], "the committed table is a smoke run"
    cover = _rows(_tables(text)["Coverage of 95% intervals: two systems"])
    at25 = {}
    for label, cells in cover.items():
        m = re.fullmatch(r"`bootstrap_ci\(method='(\w+)'\)`", label)
        if m:
            at25[m.group(1)] = float(CELL.match(cells[1]).group(1))  # columns 10, 25, 50
    assert set(at25) == {"bca", "percentile", "basic", "normal", "studentized"}
    best = min(at25, key=lambda k: abs(at25[k] - defaults.CONFIDENCE_LEVEL))
    assert defaults.BOOTSTRAP_METHOD == best, at25


def test_which_test_page_shows_the_table_and_its_command():
    page = (ROOT / "docs" / "which-test.md").read_text()
    assert "benchmarks/bench_validity.py" in page
    assert "results_validity.md" in page
