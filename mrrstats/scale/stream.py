"""Streaming: a run file grouped by query with bounded memory.

The run is read in pieces of about ``block_bytes`` (TREC text: by
:func:`mrrstats.read_run` itself, so parsing and validation are those of the
in-memory engine; Parquet: by ``pyarrow.dataset``), each row sent to one of
``n_buckets`` Arrow IPC files on disk by a hash of its query, in file order.
A bucket then holds whole queries, their rows in file order, and is read back
and evaluated on its own. Peak memory is one piece plus one bucket; no sort
of the whole run is ever done.
"""

from __future__ import annotations

import glob
import gzip
import math
import os
import zlib
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .. import tempfiles
from ..errors import InputError
from ..io.hashing import duplicate_pairs, hash_strings
from ..io.trec import Run, read_run
from ..validation import int_iv

__all__ = ["iter_query_groups", "is_parquet_source", "run_source_bytes", "run_from_table"]

#: Text bytes per bucket by default: about 2 million TREC lines, a few hundred MB
#: in memory while the bucket is evaluated (128 MiB buckets peaked at 1.1 GB on a
#: 5 x 10^7-line run; 64 MiB keeps it under 1 GB).
BUCKET_BYTES = 1 << 26
#: Text bytes read per piece.
BLOCK_BYTES = 1 << 25
_SCHEMA = pa.schema([("query", pa.string()), ("doc", pa.string()), ("rank", pa.string()),
                     ("score", pa.float64())])


def _progress(total, desc, unit="B", progress=None):
    # tqdm.auto warns (TqdmWarning) in every Jupyter kernel without ipywidgets, even
    # when the bar is disabled; the plain bar on standard error is what progress.py uses
    from tqdm import tqdm

    # disable=None: shown on a terminal, quiet otherwise (logs, CI, pipes)
    return tqdm(total=total, desc=desc, unit=unit, unit_scale=unit == "B",
                disable=None if progress is None else not progress, leave=False)


def is_parquet_source(source) -> bool:
    """A Parquet file, a directory of them, or a glob naming them."""
    if not isinstance(source, (str, os.PathLike)):
        return False
    s = os.fspath(source)
    if any(ch in s for ch in "*?["):
        return True
    if os.path.isdir(s):
        return True
    return s.endswith((".parquet", ".pq"))


def _parquet_files(source) -> list[str]:
    s = os.fspath(source)
    if any(ch in s for ch in "*?["):
        files = sorted(glob.glob(s))
    elif os.path.isdir(s):
        files = sorted(str(p) for p in Path(s).rglob("*") if p.is_file()
                       and p.suffix in (".parquet", ".pq"))
    else:
        files = [s]
    if not files:
        raise InputError("no Parquet files found", source=s)
    return files


def run_source_bytes(source) -> int:
    """Bytes of text (estimated for gzip and Parquet) of a run on disk."""
    if is_parquet_source(source):
        import pyarrow.parquet as pq

        rows = sum(pq.ParquetFile(f).metadata.num_rows for f in _parquet_files(source))
        return rows * 50  # a TREC line is about 50 bytes
    size = os.path.getsize(source)
    with open(source, "rb") as fh:
        if fh.read(2) == b"\x1f\x8b":
            size *= 4
    return size


def _run_name(source, name) -> str:
    if name is not None:
        return str(name)
    base = Path(os.fspath(source).rstrip("/")).name
    for suffix in (".gz", ".parquet", ".pq"):
        base = base.removesuffix(suffix)
    return base.replace("*", "") or "run"


def _read_block(fh, block_bytes: int, src: str) -> bytes:
    try:
        return fh.read(block_bytes)
    except (EOFError, OSError, zlib.error) as exc:  # gzip.BadGzipFile is an OSError
        raise InputError(f"cannot read compressed file (corrupt or truncated gzip: {exc})",
                         source=src) from None


def _text_pieces(path, block_bytes: int, src: str | None = None):
    """Pieces of whole lines, with the line number before each piece."""
    src = os.fspath(path) if src is None else src
    with open(path, "rb") as probe:
        gz = probe.read(2) == b"\x1f\x8b"
    opener = gzip.open if gz else open
    line = 0
    with opener(path, "rb") as fh:
        rest = b""
        while True:
            data = _read_block(fh, block_bytes, src)
            if not data:
                break
            data = rest + data
            cut = data.rfind(b"\n") + 1
            if cut == 0:
                rest = data
                continue
            yield line, data[:cut], len(data) - len(rest)
            line += data.count(b"\n", 0, cut)
            rest = data[cut:]
        if rest:
            yield line, rest, 0


def _trec_tables(path, src: str, name: str, block_bytes: int, tmpdir: str, bar):
    """Tables (query, doc, rank, score) of a TREC run file, piece by piece, in file order."""
    tags = {}
    piece_path = os.path.join(tmpdir, "piece.txt")
    for first_line, piece, nbytes in _text_pieces(path, block_bytes, src):
        with open(piece_path, "wb") as out:
            out.write(piece)
        try:
            run = read_run(piece_path, name=name)
        except InputError as exc:
            if exc.problem.startswith("no result lines"):  # only comments / blank lines
                bar.update(nbytes)
                continue
            raise InputError(exc.problem, source=src,
                             line=None if exc.line is None else exc.line + first_line) from None
        if run.tag is not None:
            tags.setdefault(run.tag, first_line + 1)
            if len(tags) > 1:
                (t0, l0), (t1, l1) = list(tags.items())[:2]
                raise InputError(f"run tag {t1!r} (near line {l1}) differs from {t0!r} "
                                 f"(line {l0}); a run file must hold one run", source=src)
        bar.update(nbytes)
        yield pa.table({"query": run.query, "doc": run.doc,
                        "rank": run.rank if run.rank is not None
                        else pa.nulls(len(run), pa.string()),
                        "score": pa.array(run.score)}, schema=_SCHEMA), run.tag


def _parquet_tables(source, src: str, block_rows: int, bar):
    import pyarrow.dataset as ds

    dataset = ds.dataset(_parquet_files(source), format="parquet")
    names = dataset.schema.names
    for col in ("query", "doc", "score"):
        if col not in names:
            raise InputError(f"no {col!r} column (have {names})", source=src)
    cols = ["query", "doc", "score"] + (["rank"] if "rank" in names else [])
    # Fragments in file-name order, batches in file order (use_threads=False keeps it).
    for batch in dataset.to_batches(columns=cols, batch_size=block_rows, use_threads=False):
        score = pc.cast(batch.column("score"), pa.float64())
        values = score.to_numpy(zero_copy_only=False)
        bad = ~np.isfinite(values)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InputError(f"query {batch.column('query')[i]}: score {values[i]} is not "
                             "finite (or missing)", source=src)
        rank = (pc.cast(batch.column("rank"), pa.string()) if "rank" in cols
                else pa.nulls(batch.num_rows, pa.string()))
        bar.update(batch.num_rows * 50)
        yield pa.table({"query": pc.cast(batch.column("query"), pa.string()),
                        "doc": pc.cast(batch.column("doc"), pa.string()),
                        "rank": rank, "score": score}, schema=_SCHEMA), None


def run_from_table(table: pa.Table, *, name: str, tag=None, source: str = "<run>") -> Run:
    """A validated :class:`Run` from an Arrow table ``query, doc, score[, rank]``.

    Refuses non-finite or missing scores and a document listed twice for the
    same query, as :func:`mrrstats.read_run` does.
    """
    score = pc.cast(table["score"], pa.float64()).to_numpy()
    bad = ~np.isfinite(score)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(f"query {table['query'][i]}: score {score[i]} is not finite (or "
                         "missing)", source=source)
    rank = (pc.cast(table["rank"], pa.string()) if "rank" in table.column_names else None)
    run = Run(name=name, query=pc.cast(table["query"], pa.string()),
              doc=pc.cast(table["doc"], pa.string()), score=score, rank=rank, tag=tag,
              source=source)
    if duplicate_pairs(run.query, run.doc):
        raise InputError("a document is listed twice for the same query (trec_eval refuses "
                         "such runs; read it with mrrstats.read_run(duplicates=...) and "
                         "evaluate it in memory)", source=source)
    return run


def iter_query_groups(source, *, name: str | None = None, n_buckets: int | None = None,
                      block_bytes: int | None = None, tmpdir=None,
                      progress: bool | None = None) -> Iterator[Run]:
    """Runs of whole queries from a run file, with bounded memory.

    Parameters
    ----------
    source : path
        A TREC run file (plain or gzipped; any row order) or Parquet files
        with columns ``query, doc, score`` (optionally ``rank``): one file, a
        directory or a glob.
    name : str, optional, keyword-only
        The run's name (default: the file name, as :func:`mrrstats.read_run`).
    n_buckets : int, optional, keyword-only
        Buckets on disk (default: one per ``BUCKET_BYTES`` = 64 MiB of text).
    block_bytes : int, optional, keyword-only
        Bytes of text read at a time (default ``BLOCK_BYTES`` = 32 MiB).
    tmpdir : path, optional, keyword-only
        Where the buckets go (default: a folder under this process's temporary
        root, :mod:`mrrstats.tempfiles`, so that a killed run's buckets are
        removed by the next run); removed when the iteration ends, however it
        ends.
    progress : bool, optional, keyword-only
        Progress bars (default: only on a terminal).

    Yields
    ------
    Run
        One per non-empty bucket: every row of its queries, in file order.

    Examples
    --------
    >>> import mrrstats
    >>> from mrrstats.scale import iter_query_groups
    >>> path = mrrstats.datasets.cast2021().runs[0]
    >>> groups = list(iter_query_groups(path, n_buckets=4))
    >>> sum(len(g) for g in groups) == len(mrrstats.read_run(path))
    True
    """
    src = os.fspath(source)
    if block_bytes is None:
        block_bytes = BLOCK_BYTES
    block_bytes = int_iv(block_bytes, "block_bytes", minimum=1)
    parquet = is_parquet_source(source)
    if not parquet and not os.path.isfile(src):
        raise InputError("no such file", source=src)
    total = run_source_bytes(source)
    if n_buckets is None:
        n_buckets = max(1, math.ceil(total / BUCKET_BYTES))
    if isinstance(n_buckets, bool) or not isinstance(n_buckets, (int, np.integer)) \
            or n_buckets < 1:
        raise ValueError(f"`n_buckets` must be a positive integer, got {n_buckets!r}")
    run_name = _run_name(source, name)
    with tempfiles.directory("stream-", dir=tmpdir) as work:
        paths = [os.path.join(work, f"bucket-{i:05d}.arrow") for i in range(n_buckets)]
        writers: dict[int, pa.ipc.RecordBatchStreamWriter] = {}
        tag = None
        with _progress(total, "partitioning by query", progress=progress) as bar:
            tables = (_parquet_tables(source, src, max(1, block_bytes // 50), bar) if parquet
                      else _trec_tables(source, src, run_name, block_bytes, work, bar))
            rows = 0
            try:
                for table, tag_ in tables:
                    tag = tag_ if tag_ is not None else tag
                    rows += table.num_rows
                    bucket = hash_strings(table["query"]) % np.uint64(n_buckets)
                    order = np.argsort(bucket, kind="stable")  # file order within a bucket
                    sorted_b = bucket[order]
                    bounds = np.searchsorted(sorted_b, np.arange(n_buckets + 1))
                    table = table.take(pa.array(order))
                    for b in np.flatnonzero(np.diff(bounds)):
                        lo, hi = int(bounds[b]), int(bounds[b + 1])
                        if b not in writers:
                            writers[b] = pa.ipc.new_stream(paths[b], _SCHEMA)
                        writers[b].write_table(table.slice(lo, hi - lo))
            finally:
                for w in writers.values():
                    w.close()
        if rows == 0:
            raise InputError("no result lines found (empty run)", source=src)
        has_rank = True
        with _progress(len(writers), "evaluating buckets", unit="bucket",
                       progress=progress) as bar:
            for b in sorted(writers):
                with pa.OSFile(paths[b]) as fh:
                    t = pa.ipc.open_stream(fh).read_all()
                os.remove(paths[b])
                if has_rank and t["rank"].null_count:
                    has_rank = False
                run = run_from_table(t if has_rank else t.drop_columns(["rank"]),
                                     name=run_name, tag=tag, source=src)
                yield run
                bar.update(1)
