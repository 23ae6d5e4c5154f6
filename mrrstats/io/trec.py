"""Reading and validating inputs: TREC qrels and runs, frames, dicts, score matrices.

Every reader returns plain, validated columnar data; every problem in a file is
an :class:`~mrrstats.InputError` that names the file, the line and the problem.
"""

from __future__ import annotations

import csv
import gzip
import io
import math
import os
import re
import zlib
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from ..errors import InputError, ParameterError, ParameterTypeError
from ..lazy import deferred, is_instance
from ..numerics import no_hugepage_madvise
from .doors import (
    foreign_table,
    qrels_from_dict,
    qrels_from_frame,
    run_from_arrays,
    run_from_dict,
    run_from_frame,
)
from .hashing import (
    arrow_to_numpy,
    byte_words,
    compute_imported,
    duplicate_pairs,
    encode_strings,
    hash_strings,
    numpy_to_arrow,
    string_bytes,
    take_strings,
)
from .records import (
    DUPLICATES,
    Qrels,
    Run,
    as_string_array,
    dedupe_pairs,
    keep_index,
    pair_order,
    qrels_from_arrays,
)
from .tokenizer import tokenize_run

if TYPE_CHECKING:
    from .._typing import PathLike, QrelsInput, RunInput

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow.compute as pc
else:  # imported when first used: the TREC-file path builds no DataFrame and
    # needs no Arrow compute function (pyarrow.compute: 0.02 s of a fresh process)
    pd = deferred("pandas")
    pc = deferred("pyarrow.compute")

__all__ = ["Qrels", "Run", "read_qrels", "read_run", "read_score_matrix", "as_string_array",
           "qrels_iv", "run_iv"]

_QUERY_COLUMN_NAMES = ("query", "topic", "qid", "query_id", "topic_id")


def _source_name(path) -> str:
    return os.fspath(path)


def read_text(path, source: str | None = None) -> str:
    """Whole UTF-8 text of a small file; a missing or undecodable file is an InputError."""
    source = _source_name(path) if source is None else source
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError("file not found", source=source) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a file", source=source) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text ({exc.reason})", source=source) from None


def read_score_matrix(path: PathLike, *, missing: str = "raise",
                      measure: str | None = None) -> pd.DataFrame:
    """Read a per-topic score matrix CSV: one column per system, one row per topic.

    The long TSV written by ``mrrstats evaluate --per-query --format tsv``
    (header ``run query measure value``; the ``all`` rows are aggregates and are
    skipped) is read too: one column per run, for ``measure`` (needed only
    when the file holds several measures).

    Parameters
    ----------
    path : str or path-like
        CSV file with a header row of system names. If the first header cell is
        one of ``query``, ``topic``, ``qid``, ``query_id`` or ``topic_id``, that
        column holds the topic identifiers; otherwise topics are numbered 1, 2, ...
        in file order (the layout of ``tests/data/score_matrices``).
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
    if not isinstance(missing, str) or missing not in ("raise", "drop"):
        raise ParameterError(f"`missing` must be 'raise' or 'drop', got {missing!r}")
    if not isinstance(path, str | os.PathLike):
        raise ParameterTypeError(f"`path` must be a file path, got {type(path).__name__}",
                                 name="path")
    if measure is not None and not isinstance(measure, str):
        raise ParameterTypeError(f"`measure` must be a measure name or None, got "
                                 f"{type(measure).__name__}", name="measure")
    source = _source_name(path)
    text = read_text(path, source)
    if text.lstrip("\ufeff").startswith("run\tquery\tmeasure\tvalue"):
        return _read_long_scores(text.lstrip("\ufeff"), source, missing, measure)
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


def _read_long_scores(text: str, source: str, missing: str, measure) -> pd.DataFrame:
    """``run query measure value`` lines (mrrstats evaluate --format tsv) as a matrix."""
    lines = text.splitlines()
    records = []
    for lineno, line in enumerate(lines[1:], 2):
        if not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) != 4:
            raise InputError(f"expected 4 tab-separated fields (run query measure value), "
                             f"found {len(parts)}", source=source, line=lineno)
        run, query, name, value = parts
        if query == "all":
            continue
        try:
            v = float(value)
        except ValueError:
            raise InputError(f"value {value!r} is not a number", source=source,
                             line=lineno) from None
        records.append((run, query, name, v, lineno))
    if not records:
        raise InputError("no per-query rows (write it with --per-query --format tsv)",
                         source=source)
    frame = pd.DataFrame(records, columns=["run", "query", "measure", "value", "line"])
    names = list(pd.unique(frame["measure"]))
    if measure is None:
        if len(names) > 1:
            raise InputError(f"holds several measures ({', '.join(names)}); choose one with "
                             "measure=", source=source)
        measure = names[0]
    elif measure not in names:
        raise InputError(f"measure {measure!r} not in the file (has {', '.join(names)}; give "
                         "the name as written there)", source=source)
    frame = frame[frame["measure"] == measure]
    dup = frame.duplicated(["run", "query"])
    if dup.any():
        row = frame[dup].iloc[0]
        raise InputError(f"run {row['run']!r}, query {row['query']!r} appears twice",
                         source=source, line=int(row["line"]))
    wide = frame.pivot(index="query", columns="run", values="value")
    wide = wide[list(pd.unique(frame["run"]))]
    wide.index.name, wide.columns.name = "query", "system"
    wide = wide.astype(np.float64)
    dropped: list[str] = []
    if wide.isna().any().any():
        bad = wide.isna().any(axis=1)
        if missing == "raise":
            q = wide.index[bad][0]
            raise InputError(f"query {q!r} has no value for some run (pass missing='drop' to "
                             "drop such queries)", source=source)
        dropped = list(wide.index[bad])
        wide = wide.loc[~bad]
    wide.attrs["source"] = source
    wide.attrs["dropped_queries"] = dropped
    wide.attrs["measure"] = measure
    return wide


# ---------------------------------------------------------------------------
# Qrels and runs (the records are in records.py, the in-memory doors in doors.py)
# ---------------------------------------------------------------------------

def _open_text(path, source: str):
    """Open a plain or gzipped text file (decided by its first two bytes)."""
    try:
        with open(path, "rb") as fh:
            magic = fh.read(2)
    except FileNotFoundError:
        raise InputError("file not found", source=source) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a file", source=source) from None
    # "utf-8-sig": a byte-order mark is dropped in every reader (pyarrow's too).
    if magic == b"\x1f\x8b":
        return gzip.open(path, "rt", encoding="utf-8-sig", newline="")
    return open(path, encoding="utf-8-sig", newline="")


# trec_eval splits on C's isspace() (ASCII whitespace) only: a non-breaking space
# or another Unicode space is part of an id, as it is for trec_eval.
_ASCII_SPACE = " \t\n\v\f\r"
_SPLIT = re.compile(r"[ \t\n\v\f\r]+")
# The number grammar of a TREC file: ASCII digits only (Python's float() and
# int() also take "0_9", "1e1" as an integer, and digits of other scripts).
_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_INT = re.compile(r"[+-]?[0-9]+")
_INT_POINT_ZERO = re.compile(r"[+-]?[0-9]+\.0*")


def _data_lines(fh, source: str, min_fields: int, max_fields: int | None, layout: str):
    """Yield (line number, fields) of a whitespace-separated file, skipping blank
    lines and ``#`` comments; a line with too few or too many fields is an error.

    Fields are split on runs of ASCII whitespace, exactly as trec_eval does.
    """
    try:
        for lineno, raw in enumerate(fh, 1):
            text = raw.strip(_ASCII_SPACE)
            if not text or text.startswith("#"):
                continue
            parts = _SPLIT.split(text)
            if len(parts) < min_fields or (max_fields is not None and len(parts) > max_fields):
                raise InputError(f"expected {min_fields} fields ({layout}), found {len(parts)}",
                                 source=source, line=lineno)
            yield lineno, parts
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text ({exc.reason})", source=source) from None
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
        raise InputError(f"cannot read compressed file (corrupt or truncated gzip: {exc})",
                         source=source) from None


def run_name(path) -> str:
    """A run's default name: the file name without directories and ``.gz``."""
    name = Path(path).name
    return name[:-3] if name.endswith(".gz") else name


_run_name = run_name  # kept for cli/report until it imports the public name


def _is_pathlike(obj) -> bool:
    return isinstance(obj, (str, os.PathLike))


def _check_duplicates_option(duplicates: str) -> None:
    if not isinstance(duplicates, str | None) or duplicates not in DUPLICATES:
        raise ParameterError(f"`duplicates` must be one of {DUPLICATES}, got {duplicates!r}")


def _parse_grade(text: str, source: str, line: int) -> int:
    if _INT.fullmatch(text):
        return int(text)
    if _INT_POINT_ZERO.fullmatch(text):  # "2.0": trec_eval's atol reads 2 too
        return int(text.split(".")[0])
    if _FLOAT.fullmatch(text):
        raise InputError(f"grade {text!r} is not an integer", source=source, line=line)
    raise InputError(f"grade {text!r} is not a number (an integer of ASCII digits)",
                     source=source, line=line)


def _parse_score(text: str, source: str, line: int) -> float:
    if re.fullmatch(r"[+-]?(?:inf|infinity|nan)", text, flags=re.IGNORECASE):
        raise InputError(f"score {text!r} is not finite", source=source, line=line)
    if not _FLOAT.fullmatch(text):
        raise InputError(f"score {text!r} is not a number (ASCII digits, optional sign, "
                         "decimal point and exponent)", source=source, line=line)
    score = float(text)
    if not math.isfinite(score):
        raise InputError(f"score {text!r} is not finite", source=source, line=line)
    return score


def _irregular(column) -> bool:
    """Whether any value is empty or holds ASCII whitespace (one RE2 pass)."""
    return bool(pc.any(pc.match_substring_regex(column, "^$|[ \t\v\f\r]")).as_py())


def _read_qrels_fast(path, source: str) -> Qrels | None:
    """pyarrow's CSV reader for a regular qrels file (single-space or single-tab
    separated); ``None`` sends the file to the line reader (irregular lines,
    comments, a grade outside the grammar, duplicates)."""
    with _open_text(path, source) as fh:
        try:
            first = None
            for raw in fh:
                line = raw.rstrip("\r\n")
                if line.strip(_ASCII_SPACE):
                    first = line
                    break
        except (UnicodeDecodeError, EOFError, OSError, zlib.error):
            return None
    if first is None:
        return None
    delim = None
    for d in (" ", "\t"):
        parts = first.split(d)
        if len(parts) == 4 and all(parts) and not any(
                ch in _ASCII_SPACE for p in parts for ch in p):
            delim = d
    if delim is None:
        return None
    invalid: list[str] = []

    def handler(row):
        invalid.append(row.text or "")
        return "skip"

    try:
        with open(path, "rb") as fh:
            gz = fh.read(2) == b"\x1f\x8b"
        stream = pa.input_stream(os.fspath(path), compression="gzip" if gz else None)
        table = pacsv.read_csv(
            stream,
            read_options=pacsv.ReadOptions(column_names=["query", "iter", "doc", "grade"],
                                           block_size=1 << 22,
                                           use_threads=_csv_threads(path, gz)),
            parse_options=pacsv.ParseOptions(delimiter=delim, quote_char=False,
                                              double_quote=False, escape_char=False,
                                              newlines_in_values=False,
                                              invalid_row_handler=handler),
            convert_options=pacsv.ConvertOptions(
                include_columns=["query", "iter", "doc", "grade"],
                column_types={c: pa.string() for c in ("query", "iter", "doc", "grade")},
                strings_can_be_null=False, quoted_strings_can_be_null=False))
    except (pa.ArrowInvalid, pa.ArrowTypeError, OSError, ValueError):
        return None
    if invalid or table.num_rows == 0:
        return None
    if table.num_rows <= _NUMPY_QRELS_ROWS and not compute_imported():
        small = _qrels_from_table_numpy(table, source)
        if small is not None:
            return small if small is not _LINE_READER else None
    for name in ("query", "iter", "doc", "grade"):
        col = table[name]
        if _irregular(col):
            return None
    if pc.any(pc.starts_with(table["query"], "#")).as_py():
        return None  # comment lines: the line reader skips them
    if not pc.all(pc.match_substring_regex(table["grade"], "^[+-]?[0-9]+$")).as_py():
        return None  # the line reader names the line
    try:
        grade = arrow_to_numpy(pc.cast(table["grade"], pa.int64()))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None  # out of int64 range
    if duplicate_pairs(table["query"], table["doc"]):
        return None  # the line reader raises or applies the policy, with line numbers
    order = pair_order(table["query"], table["doc"])
    sorted_table = table.select(["query", "doc"]).take(numpy_to_arrow(order))
    return Qrels(arrow_to_numpy(sorted_table["query"]), arrow_to_numpy(sorted_table["doc"]),
                 grade[order], source)


#: Bytes of text from which Arrow's CSV reader parses with its thread pool: below, one
#: thread. Starting the pool costs 0.01-0.04 s, more than parsing a few MB takes (a
#: 0.5 MB qrels file: 0.004-0.007 s on one thread, 0.012-0.05 s with the pool, in a fresh
#: process); the table is the same either way.
_CSV_THREADS_BYTES = 1 << 23


def _csv_threads(path, gz: bool) -> bool:
    """Whether Arrow's CSV reader should use its thread pool for this file."""
    try:
        size = os.path.getsize(path)
    except OSError:
        return True
    return size * (4 if gz else 1) >= _CSV_THREADS_BYTES


#: Rows up to which the qrels read by Arrow's CSV reader are checked, ordered and
#: converted with numpy on the columns' bytes (_qrels_from_table_numpy) rather than with
#: Arrow's compute functions, while ``pyarrow.compute`` is not imported: a qrels file
#: of tens of thousands of lines then costs no import of it (0.03 s of CPU, a twentieth
#: of ``mrrstats evaluate`` on a 7-million-line run). Above it, once it is imported, and
#: for ids too long to hold as words cheaply, Arrow's functions do the same checks.
_NUMPY_QRELS_ROWS = 1 << 21
#: Bytes of the fixed-width id arrays the numpy checks may allocate.
_NUMPY_QRELS_BYTES = 1 << 27
_LINE_READER = object()  # the numpy checks' answer "the line reader decides"
_SPACE_BYTES = np.zeros(256, dtype=bool)
_SPACE_BYTES[[9, 11, 12, 13, 32, 0]] = True  # [ \t\v\f\r] of _irregular; NUL, which
# a fixed-width bytes array cannot hold (such ids take Arrow's checks)
_DIGIT_BYTES = np.zeros(256, dtype=bool)
_DIGIT_BYTES[48:58] = True


def _qrels_from_table_numpy(table, source: str):
    """The Qrels of ``_read_qrels_fast``'s table, checked (the same checks, the same
    answers) and ordered by query then document id with numpy; ``_LINE_READER`` where
    the line reader must decide, None where the ids are too long for this path."""
    cols = {}
    for name in ("query", "iter", "doc", "grade"):
        got = string_bytes(table[name])
        if got is None:
            return None
        cols[name] = got
    for offsets, data in cols.values():  # _irregular: an empty value, or white space
        if (np.diff(offsets) == 0).any() or _SPACE_BYTES[data].any():
            return None if (data == 0).any() else _LINE_READER  # NUL: Arrow's checks
    q_off, q_data = cols["query"]
    if (q_data[q_off[:-1]] == 35).any():
        return _LINE_READER  # comment lines: the line reader skips them
    g_off, g_data = cols["grade"]  # the grammar ^[+-]?[0-9]+$
    odd = np.flatnonzero(~_DIGIT_BYTES[g_data])
    if odd.size:
        row = np.searchsorted(g_off, odd, side="right") - 1
        sign = (g_data[odd] == 43) | (g_data[odd] == 45)
        if not (sign & (g_off[row] == odd) & (g_off[row + 1] - odd >= 2)).all():
            return _LINE_READER  # the line reader names the line
    grade = _parse_grades(g_off, g_data, odd)
    if grade is None:
        return _LINE_READER  # out of int64 range
    d_off, d_data = cols["doc"]
    n = table.num_rows
    width = int(max(np.diff(q_off).max(), 1) + max(np.diff(d_off).max(), 1))
    if n * (width + 16) > _NUMPY_QRELS_BYTES:
        return None
    q = byte_words(q_off, q_data)
    d = byte_words(d_off, d_data)
    order = np.lexsort((*d.T[::-1], *q.T[::-1]))  # by query, then document, byte order
    qs, ds = q[order], d[order]
    same_q = (qs[1:] == qs[:-1]).all(axis=1)
    if (same_q & (ds[1:] == ds[:-1]).all(axis=1)).any():
        return _LINE_READER  # a repeated pair: the line reader raises or applies the policy
    # equal queries share one str object (a qrels file repeats each query id many times)
    first = np.concatenate(([0], np.flatnonzero(~same_q) + 1))
    ids = arrow_to_numpy(take_strings(table["query"], order[first]))
    query = ids[np.repeat(np.arange(first.size), np.diff(np.append(first, n)))]
    return Qrels(query, arrow_to_numpy(take_strings(table["doc"], order)), grade[order],
                 source)


def _parse_grades(offsets: np.ndarray, data: np.ndarray, odd: np.ndarray) -> np.ndarray | None:
    """int64 values of grades in the grammar ``[+-]?[0-9]+`` (checked by the caller; ``odd``
    the positions of its signs), digit by digit; None for a value outside int64."""
    lengths = np.diff(offsets)
    if lengths.size and int(lengths.max()) > 18:  # Python's int decides, value by value
        text = data.tobytes().decode("ascii")  # the grammar: ASCII signs and digits
        cuts = offsets.tolist()
        values = [int(text[a:b]) for a, b in zip(cuts[:-1], cuts[1:], strict=True)]
        if any(not -(2**63) <= v < 2**63 for v in values):
            return None
        return np.array(values, dtype=np.int64)
    negative = np.zeros(lengths.size, dtype=bool)
    start = offsets[:-1].copy()
    if odd.size:  # a sign: skip it (a minus negates)
        row = np.searchsorted(offsets, odd, side="right") - 1
        negative[row] = data[odd] == 45
        start[row] += 1
    value = np.zeros(lengths.size, dtype=np.int64)
    end = offsets[1:]
    for k in range(int((end - start).max()) if lengths.size else 0):
        live = start + k < end
        value[live] = value[live] * 10 + (data[start[live] + k].astype(np.int64) - 48)
    return np.where(negative, -value, value)


def qrels_iv(source, name="qrels", *, duplicates="raise") -> Qrels:
    """:func:`read_qrels` for a parameter ``name`` of another function (named in refusals)."""
    return _read_qrels(source, duplicates, name)


def run_iv(source, name="runs", *, run_name=None, rank=True) -> Run:
    """:func:`read_run` for a parameter ``name`` of another function (named in refusals).

    ``rank=False``: the caller never reads the run's rank column (only ``ties="rank"``
    does), so a file the compiled tokenizer reads comes without it (``Run.rank`` None).
    """
    return _read_run(source, run_name, "raise", "raise", name, rank)


def read_qrels(source: QrelsInput, *, duplicates: str = "raise") -> Qrels:
    """Read relevance judgements: a TREC qrels file, a DataFrame or a nested dict.

    Parameters
    ----------
    source : str, path-like, pandas.DataFrame, dict or Qrels
        * a TREC qrels file ``query iter doc grade`` (plain or gzipped, any
          whitespace; lines starting with ``#`` are comments; grades are
          integers and may be negative);
        * a DataFrame with columns for query (``query``/``query_id``/``q_id``/
          ``qid``), document (``doc``/``doc_id``/``docno``) and grade
          (``grade``/``relevance``/``score``...), the shapes of ir_measures and ranx;
        * a dict ``{query: {doc: grade}}`` (pytrec_eval / ranx shape), or
          ``{query: {doc, ...}}`` / ``{query: [doc, ...]}``: the relevant
          documents (grade 1); an empty set is a judged query without any
          relevant document;
        * a polars DataFrame, an Arrow table or a ``ranx.Qrels``.
    duplicates : {"raise", "first", "max"}, keyword-only
        A (query, doc) pair judged twice is an error by default; ``"first"``
        keeps the first judgement, ``"max"`` the highest grade.

    Returns
    -------
    Qrels

    Raises
    ------
    InputError
        With the file, line and problem: too few or too many fields, a grade
        that is not an integer, a duplicate pair, an empty file.
    """
    return _read_qrels(source, duplicates, "source")


def _read_qrels(source, duplicates, _param):
    _check_duplicates_option(duplicates)
    if isinstance(source, Qrels):
        return source
    foreign = foreign_table(source)
    if foreign is not None:
        source = foreign
    if is_instance(source, "pandas", "DataFrame"):
        return qrels_from_frame(source, duplicates)
    if isinstance(source, Mapping):
        return qrels_from_dict(source, duplicates)
    if not _is_pathlike(source):
        raise ParameterTypeError(f"`{_param}` must be a file path, a DataFrame, a dict or "
                                 f"Qrels, got {type(source).__name__}", name=_param)
    name = os.fspath(source)
    with no_hugepage_madvise():
        fast = _read_qrels_fast(source, name)
    if fast is not None:
        return fast
    queries, docs, grades, lines = [], [], [], []
    with _open_text(source, name) as fh:
        for lineno, parts in _data_lines(fh, name, 4, 4, "query iter doc grade"):
            queries.append(parts[0])
            docs.append(parts[2])
            grades.append(_parse_grade(parts[3], name, lineno))
            lines.append(lineno)
    return qrels_from_arrays(queries, docs, grades, name, np.asarray(lines), duplicates)


# -- runs --------------------------------------------------------------------

_RUN_COLUMNS = ["query", "iter", "doc", "rank", "score", "tag"]


def read_run(source: RunInput, *, name: str | None = None, duplicates: str = "raise",
             mixed_tags: str = "raise") -> Run:
    """Read a retrieval run: a TREC run file, a DataFrame or a nested dict.

    Parameters
    ----------
    source : str, path-like, pandas.DataFrame, dict or Run
        * a TREC run file ``query Q0 doc rank score tag`` (plain or gzipped,
          any whitespace, in any row order; lines starting with ``#`` are
          comments; fields after the tag are ignored, as trec_eval does);
        * a rank-only file ``query doc rank`` (the MS MARCO run format, told
          apart by its first line having three fields): the score is minus
          the rank, so every tie convention orders by rank;
        * a DataFrame (pandas, polars or an Arrow table) with query, document
          and score columns (optionally ``rank``; a ``rank`` column alone is a
          rank-only run ordered by it), the shapes of ir_measures and ranx;
        * a dict ``{query: {doc: score}}`` (pytrec_eval / ranx shape), or
          ``{query: [doc, ...]}``: ranked lists, whose order is the ranking under
          every tie convention;
        * a ``ranx.Run``.
    name : str, optional, keyword-only
        The run's name; defaults to the file name without directories and
        ``.gz`` (``"run"`` for in-memory input).
    duplicates : {"raise", "first", "max"}, keyword-only
        A document listed twice for the same query is an error by default
        (trec_eval refuses such runs); ``"first"`` keeps the first row,
        ``"max"`` the highest-scoring one.
    mixed_tags : {"raise", "allow"}, keyword-only
        A file whose tag column holds several run names is an error by default.

    Returns
    -------
    Run

    Raises
    ------
    InputError
        Naming the file, the line and the problem: too few fields, a score that
        is not a number, NaN or infinite, a duplicate document, mixed run tags,
        an empty file.

    Notes
    -----
    A file is read as trec_eval reads it: fields are separated by runs of ASCII
    whitespace (a non-breaking or other Unicode space is part of an id), a
    UTF-8 byte-order mark is dropped, ``#`` lines are comments (trec_eval
    10.0), fields after the tag are ignored. Numbers follow a TREC file's
    grammar (ASCII digits, sign, decimal point, exponent): ``0_9`` or digits
    of other scripts, which Python's ``float`` would take and trec_eval's
    ``atof`` reads as something else, are refused with the line number.

    Speed: a file (plain or gzipped) is first read by a compiled tokenizer
    (numba; :mod:`mrrstats.io.tokenizer`), parallel over newline-cut parts of
    the file, which splits, validates, hashes the ids and parses the scores in
    one pass; it steps aside for anything it does not accept (a malformed
    line, a duplicate, mixed tags, a number outside the grammar) and where
    numba is missing. Next, when the first data line separates its six fields
    by single spaces or single tabs, the whole file is read by pyarrow's
    multi-threaded CSV reader with that delimiter; comment lines are skipped
    there too. If that reading finds anything irregular (a row with
    another number of fields, an empty field or one holding other whitespace, a
    number pyarrow cannot parse, a non-finite score, mixed tags, a duplicate
    document, a comment parsed as data), the file is read again by the
    line-by-line reader, which splits as trec_eval does and produces the
    line-numbered errors. The readers give the same result on every file they
    accept. Files under a few megabytes skip the tokenizer (loading numba would
    cost more than it saves).
    """
    return _read_run(source, name, duplicates, mixed_tags, "source")


def _read_run(source, name, duplicates, mixed_tags, _param, rank=True):
    _check_duplicates_option(duplicates)
    if not isinstance(mixed_tags, str) or mixed_tags not in ("raise", "allow"):
        raise ParameterError(f"`mixed_tags` must be 'raise' or 'allow', got {mixed_tags!r}")
    if isinstance(source, Run):
        if name is None or name == source.name:
            return source
        return Run(name, source.query, source.doc, source.score, source.rank, source.tag,
                   source.source, source._meta)
    foreign = foreign_table(source)
    if foreign is not None:
        source = foreign
    if is_instance(source, "pandas", "DataFrame"):
        return run_from_frame(source, name, duplicates)
    if isinstance(source, Mapping):
        return run_from_dict(source, name, duplicates)
    if not _is_pathlike(source):
        raise ParameterTypeError(f"`{_param}` must be a file path, a DataFrame, a dict or "
                                 f"Run, got {type(source).__name__}", name=_param)
    src = os.fspath(source)
    run_name = name if name is not None else _run_name(source)
    with no_hugepage_madvise():
        return _read_run_file(source, src, run_name, duplicates, mixed_tags, rank)


def _first_data_fields(path, source: str) -> int | None:
    with _open_text(path, source) as fh:
        try:
            for raw in fh:
                text = raw.strip(_ASCII_SPACE)
                if text and not text.startswith("#"):
                    return len(_SPLIT.split(text))
        except (UnicodeDecodeError, EOFError, OSError, zlib.error):
            return None
    return None


def _read_rank_only_file(path, source: str, name: str, duplicates: str) -> Run:
    """``query doc rank`` lines (the MS MARCO run format): the ranks are the order."""
    queries, docs, ranks, lines = [], [], [], []
    with _open_text(path, source) as fh:
        for lineno, parts in _data_lines(fh, source, 3, 3, "query doc rank"):
            if not _INT.fullmatch(parts[2]):
                raise InputError(f"rank {parts[2]!r} is not an integer", source=source,
                                 line=lineno)
            queries.append(parts[0])
            docs.append(parts[1])
            ranks.append(int(parts[2]))
            lines.append(lineno)
    rank = np.asarray(ranks, dtype=np.int64)
    run = run_from_arrays(np.asarray(queries, dtype=object), np.asarray(docs, dtype=object),
                           -rank.astype(np.float64), rank, name, source, duplicates)
    run._meta["rank_only"] = True
    return run


def _read_run_file(source, src: str, run_name: str, duplicates: str, mixed_tags: str,
                   rank: bool = True) -> Run:
    if _first_data_fields(source, src) == 3:
        return _read_rank_only_file(source, src, run_name, duplicates)
    # The compiled tokenizer reads a clean file in one parallel pass; anything it does not
    # accept (or no numba) goes to the readers below, which name the line and the problem.
    tokens = tokenize_run(source, rank=rank)
    if tokens is not None:
        run = Run(name=run_name, query=tokens["query"], doc=tokens["doc"],
                  score=tokens["score"], rank=tokens["rank"], tag=tokens["tag"], source=src)
        run._meta["tags"] = [tokens["tag"]]
        return keep_index(run, tokens)
    run = _read_run_fast(source, src, run_name)
    if run is not None:
        problem = _fast_run_problem(run, mixed_tags)
        if problem is None:
            return run
    return _read_run_lines(source, src, run_name, duplicates, mixed_tags)


def _sniff_delimiter(path, source: str) -> str | None:
    """Single-character delimiter if the first data line uses one cleanly."""
    with _open_text(path, source) as fh:
        try:
            for raw in fh:
                line = raw.rstrip("\r\n")
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                for delim in (" ", "\t"):
                    parts = line.split(delim)
                    if len(parts) == 6 and all(parts) and all(
                            not any(ch.isspace() for ch in p) for p in parts):
                        return delim
                return None
        except (UnicodeDecodeError, EOFError, OSError, zlib.error):
            return None
    return None


def _read_run_fast(path, source: str, name: str) -> Run | None:
    delim = _sniff_delimiter(path, source)
    if delim is None:
        return None
    invalid: list[str] = []

    def handler(row):
        invalid.append(row.text or "")
        return "skip"

    try:
        stream = pa.input_stream(os.fspath(path), compression="detect")
        with open(path, "rb") as fh:
            gz = fh.read(2) == b"\x1f\x8b"
        if gz:
            stream = pa.input_stream(os.fspath(path), compression="gzip")
        table = pacsv.read_csv(
            stream,
            read_options=pacsv.ReadOptions(column_names=_RUN_COLUMNS, block_size=1 << 22,
                                           use_threads=_csv_threads(path, gz)),
            parse_options=pacsv.ParseOptions(delimiter=delim, quote_char=False,
                                              double_quote=False, escape_char=False,
                                              newlines_in_values=False,
                                              invalid_row_handler=handler),
            convert_options=pacsv.ConvertOptions(
                include_columns=["query", "doc", "rank", "score", "tag"],
                column_types={"query": pa.string(), "doc": pa.string(), "rank": pa.string(),
                              "score": pa.float64(), "tag": pa.string()},
                strings_can_be_null=False, quoted_strings_can_be_null=False),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, OSError, ValueError):
        return None
    if any(not t.lstrip().startswith("#") for t in invalid):
        return None  # malformed rows: the line reader gives the precise message
    if table.num_rows == 0:
        return None
    # String columns stay chunked (combining them would copy every byte again).
    tags = pc.unique(table["tag"]).to_pylist()
    run = Run(name=name, query=table["query"], doc=table["doc"],
              score=arrow_to_numpy(table["score"]), rank=table["rank"],
              tag=tags[-1] if tags else None, source=source)
    run._meta["tags"] = tags
    run._meta["tag_column"] = table["tag"]
    return run


def _fast_run_problem(run: Run, mixed_tags: str) -> str | None:
    """Return a reason to re-read with the line reader, or None if the run is clean."""
    if mixed_tags == "raise" and len(run._meta.get("tags", [])) > 1:
        return "mixed tags"
    if not np.isfinite(run.score).all():
        return "non-finite score"
    # The delimiter was sniffed on the first line only: a later line with another
    # whitespace character, or a doubled delimiter, is split as trec_eval splits it
    # (on any run of ASCII whitespace) by the line reader.
    for column in (run.query, run.doc, run.rank, run._meta.pop("tag_column", None)):
        if column is None:
            continue
        if _irregular(column):
            return "irregular whitespace"
    # Query codes and document hashes are independent: compute them side by side
    # (both release the GIL); the results do not depend on the thread count.
    with ThreadPoolExecutor(max_workers=2) as pool:
        encoded = pool.submit(encode_strings, run.query)
        doc_hashes = hash_strings(run.doc)
        dictionary, codes = encoded.result()
    if pc.any(pc.starts_with(dictionary, "#")).as_py():
        return "comment line parsed as data"
    # Kept for rank_run, which needs both again.
    run._meta["query_dictionary"] = dictionary
    run._meta["query_codes"] = codes
    run._meta["doc_hashes"] = doc_hashes
    if duplicate_pairs(run.query, run.doc, codes=codes, doc_hashes=doc_hashes):
        return "duplicates"  # the line reader raises, or applies 'first' / 'max'
    return None


def _read_run_lines(path, source: str, name: str, duplicates: str, mixed_tags: str) -> Run:
    queries, docs, ranks, scores, lines = [], [], [], [], []
    first_tag = None
    last_tag = None
    with _open_text(path, source) as fh:
        for lineno, parts in _data_lines(fh, source, 6, None, "query Q0 doc rank score tag"):
            score = _parse_score(parts[4], source, lineno)
            tag = parts[5]
            if first_tag is None:
                first_tag = (tag, lineno)
            elif tag != first_tag[0] and mixed_tags == "raise":
                raise InputError(
                    f"run tag {tag!r} differs from {first_tag[0]!r} (line {first_tag[1]}); "
                    "a run file must hold one run (split it, or pass mixed_tags='allow')",
                    source=source, line=lineno)
            last_tag = tag
            queries.append(parts[0])
            docs.append(parts[2])
            ranks.append(parts[3])
            scores.append(score)
            lines.append(lineno)
    if not queries:
        raise InputError("no result lines found (empty run)", source=source)
    scores_arr = np.asarray(scores, dtype=np.float64)
    keep = dedupe_pairs(np.asarray(queries, dtype=object), np.asarray(docs, dtype=object),
                         scores_arr, np.asarray(lines), duplicates, source,
                         "run")
    q = np.asarray(queries, dtype=object)[keep]
    d = np.asarray(docs, dtype=object)[keep]
    r = np.asarray(ranks, dtype=object)[keep]
    run = Run(name=name, query=pa.array(q, type=pa.string()), doc=pa.array(d, type=pa.string()),
              score=scores_arr[keep], rank=pa.array(r, type=pa.string()), tag=last_tag,
              source=source)
    return run


