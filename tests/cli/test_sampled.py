"""``mrrstats sampled`` refuses a malformed RANKS table: exit 2, one line naming the file.

Fuzz finding: a CSV whose rows have fewer fields than its first (pandas fills them with
NaN) ran and exited 0. The numbers of the command: tests/cli/test_estimation.py.
"""

from __future__ import annotations

import pytest

from mrrstats.cli import main

ARGS = [
    "--negatives",
    "5",
    "--candidates",
    "50",
    "--n-resamples",
    "99",
    "--seed",
    "1",
    "--method",
    "naive",
]


@pytest.mark.parametrize(
    "text, words",
    [
        ("1,2\n3\n", "line 2: a missing or empty field"),
        ("rank,n\n1,10\n2\n3,10\n", "line 3: a missing or empty field"),
        ("rank,n\n# a comment\n\n1,10\n,\n", "line 5: a missing or empty field"),
        ("rank,n\n1,10\n3,10,7\n", "not a table of ranks"),
        ("rank,rank\n1,2\n2,3\n", "column 'rank' appears twice"),
    ],
)
def test_malformed_ranks_table_exits_2_naming_the_file(tmp_path, capsys, text, words):
    path = tmp_path / "ranks.csv"
    path.write_text(text)
    assert main(["sampled", str(path), *ARGS]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("mrrstats: error: RANKS")
    assert str(path) in lines[0] and words in lines[0]


@pytest.mark.parametrize(
    "text", ["1\n2\n3\n", "1 \n 2\n3\r\n", "1\t\n2\t\n3\t\n", "rank,n\r\n1,10\r\n2,10\r\n3,10\r\n"]
)
def test_well_formed_tables_still_read(tmp_path, capsys, text):
    """Blank lines, CRLF, spaces and a separator ending every line are not malformed."""
    path = tmp_path / "ranks.txt"
    path.write_text(text)
    assert main(["sampled", str(path), *ARGS]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.split()[:1] == ["naive"])
    assert float(row.split()[1]) == pytest.approx((1 + 1 / 2 + 1 / 3) / 3, abs=5e-5)
