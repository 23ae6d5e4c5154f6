"""load_report refuses a folder whose files are not what make_report writes, naming the file.

Fuzz finding: a binary ``settings.json`` raised Python's UnicodeDecodeError; every
unreadable or malformed file of the folder is now an InputError whose ``source`` is it.
"""

from __future__ import annotations

import gzip
import json

import pytest

import mrrstats
from mrrstats.report.storage import FORMAT_VERSION

GARBAGE = gzip.compress(bytes(range(256)) * 4) + bytes(range(256))
SETTINGS = {
    "format": FORMAT_VERSION,
    "evaluated_measures": ["RR"],
    "systems": ["a", "b"],
    "input": {"kind": "scores"},
    "measures": ["RR"],
}


def _folder(tmp_path, settings=None, results=None, per_query=None):
    folder = tmp_path / "report"
    (folder / "results").mkdir(parents=True)
    for name, content in (
        ("settings.json", settings),
        ("results/results.json", results),
        ("per_query.csv", per_query),
    ):
        if content is None:
            continue
        data = content if isinstance(content, bytes) else json.dumps(content).encode()
        (folder / name).write_bytes(data)
    return folder


@pytest.mark.parametrize(
    "content, problem",
    [
        (GARBAGE, "not a text file"),
        (b"{not json", "not JSON"),
        (b"[1, 2]", "not a JSON object"),
        ({"format": FORMAT_VERSION}, "missing"),
        (None, "file not found"),
    ],
)
def test_garbage_settings_is_an_input_error_naming_the_file(tmp_path, content, problem):
    folder = _folder(tmp_path, settings=content, results={})
    with pytest.raises(mrrstats.InputError, match=problem) as err:
        mrrstats.load_report(folder)
    assert err.value.source == str(folder / "settings.json")


def test_garbage_results_manifest_is_an_input_error_naming_the_file(tmp_path):
    per_query = b"system,query,RR\na,q1,1.0\nb,q1,0.5\n"
    folder = _folder(tmp_path, settings=SETTINGS, results=GARBAGE, per_query=per_query)
    with pytest.raises(mrrstats.InputError, match="not a text file") as err:
        mrrstats.load_report(folder)
    assert err.value.source == str(folder / "results" / "results.json")


def test_garbage_per_query_table_is_an_input_error_naming_the_file(tmp_path):
    folder = _folder(tmp_path, settings=SETTINGS, results={}, per_query=GARBAGE)
    with pytest.raises(mrrstats.InputError, match="per-query table") as err:
        mrrstats.load_report(folder)
    assert err.value.source == str(folder / "per_query.csv")
