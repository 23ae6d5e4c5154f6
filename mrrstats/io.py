"""Reading and validating inputs: TREC qrels and runs, frames, dicts, score matrices.

Every reader returns plain, validated columnar data; every problem in a file is
an :class:`~mrrstats.InputError` that names the file, the line and the problem.
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

import numpy as np
import pandas as pd

from ._errors import InputError

__all__ = ["read_score_matrix"]

_QUERY_COLUMN_NAMES = ("query", "topic", "qid", "query_id", "topic_id")


def _source_name(path) -> str:
    return os.fspath(path)


def read_score_matrix(path, *, missing: str = "raise") -> pd.DataFrame:
    """Read a per-topic score matrix CSV: one column per system, one row per topic.

    Parameters
    ----------
    path : str or path-like
        CSV file with a header row of system names. If the first header cell is
        one of ``query``, ``topic``, ``qid``, ``query_id`` or ``topic_id``, that
        column holds the topic identifiers; otherwise topics are numbered 1, 2, ...
        in file order (the layout of ``shared/data/score_matrices``).
    missing : {"raise", "drop"}, keyword-only
        What to do with empty or NaN cells. ``"raise"`` (default) raises
        :class:`InputError` naming the first such cell; ``"drop"`` drops every
        topic (row) with a missing value, so that all systems stay aligned on
        the same topics, and records the dropped topics in
        ``frame.attrs["dropped_queries"]``.

    Returns
    -------
    pandas.DataFrame
        Float64 frame, index ``query`` (strings), columns = system names.
        ``frame.attrs["source"]`` holds the file name.

    Raises
    ------
    InputError
        Empty file, duplicate system names, a row with the wrong number of
        fields, a non-numeric or infinite cell, or (``missing="raise"``) a
        missing cell. The message names the file and the line.
    """
    if missing not in ("raise", "drop"):
        raise ValueError(f"`missing` must be 'raise' or 'drop', got {missing!r}")
    source = _source_name(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError("file not found", source=source) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text ({exc.reason})", source=source) from None
    rows = list(csv.reader(io.StringIO(text)))
    # Remember the physical line of each row (blank lines are skipped).
    numbered = [(i + 1, r) for i, r in enumerate(rows) if r and any(c.strip() for c in r)]
    if not numbered:
        raise InputError("empty file: expected a header row of system names", source=source)
    header_line, header = numbered[0]
    header = [h.strip() for h in header]
    has_query = header[0].lower() in _QUERY_COLUMN_NAMES
    systems = header[1:] if has_query else header
    if not systems:
        raise InputError("header names no systems", source=source, line=header_line)
    seen: set[str] = set()
    for name in systems:
        if name == "":
            raise InputError("empty system name in header", source=source, line=header_line)
        if name in seen:
            raise InputError(f"system {name!r} appears twice in header", source=source,
                             line=header_line)
        seen.add(name)
    body = numbered[1:]
    if not body:
        raise InputError("no topic rows after the header", source=source)
    n_fields = len(header)
    values = np.empty((len(body), len(systems)), dtype=np.float64)
    queries: list[str] = []
    for r, (line, row) in enumerate(body):
        if len(row) != n_fields:
            raise InputError(f"expected {n_fields} fields, found {len(row)}", source=source,
                             line=line)
        cells = row[1:] if has_query else row
        queries.append(row[0].strip() if has_query else str(r + 1))
        for c, cell in enumerate(cells):
            cell = cell.strip()
            if cell == "" or cell.lower() in ("nan", "na"):
                if missing == "raise":
                    raise InputError(
                        f"missing value for system {systems[c]!r} (pass missing='drop' to "
                        "drop topics with missing values)", source=source, line=line)
                values[r, c] = np.nan
                continue
            try:
                v = float(cell)
            except ValueError:
                raise InputError(f"non-numeric value {cell!r} for system {systems[c]!r}",
                                 source=source, line=line) from None
            if not np.isfinite(v):
                raise InputError(f"infinite value {cell!r} for system {systems[c]!r}",
                                 source=source, line=line)
            values[r, c] = v
    if len(set(queries)) != len(queries):
        dup = pd.Index(queries)[pd.Index(queries).duplicated()][0]
        raise InputError(f"topic {dup!r} appears twice", source=source)
    frame = pd.DataFrame(values, index=pd.Index(queries, name="query"),
                         columns=pd.Index(systems, name="system"))
    dropped: list[str] = []
    if missing == "drop":
        bad = frame.isna().any(axis=1)
        dropped = list(frame.index[bad])
        frame = frame.loc[~bad]
        if frame.empty:
            raise InputError("every topic has a missing value", source=source)
    frame.attrs["source"] = source
    frame.attrs["dropped_queries"] = dropped
    return frame
