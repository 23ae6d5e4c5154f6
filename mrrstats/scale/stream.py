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
import mmap
import os
import zlib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from .. import compiled, tempfiles
from ..errors import InputError, ParameterError
from ..io.columns import run_columns, take_column
from ..io.hashing import duplicate_pairs, encode_strings, hash_strings
from ..io.records import keep_index
from ..io.tokenizer import tokenize_bytes
from ..io.trec import Run, read_run
from ..lazy import deferred
from ..validation import int_iv

if TYPE_CHECKING:
    import pyarrow.compute as pc
else:  # imported when first used (the TREC-file path needs none of it)
    pc = deferred("pyarrow.compute")

__all__ = ["iter_query_groups", "is_parquet_source", "run_source_bytes", "run_from_table"]

#: Text bytes per bucket by default: about 2 million TREC lines, a few hundred MB
#: in memory while the bucket is evaluated (128 MiB buckets peaked at 1.1 GB on a
#: 5 x 10^7-line run; 64 MiB keeps it under 1 GB).
BUCKET_BYTES = 1 << 26
#: Text bytes read per piece.
BLOCK_BYTES = 1 << 25
# A bucket: the query's number (see _partition), the document, rank, score and the
# document's hash.
_SCHEMA = pa.schema([("query", pa.int32()), ("doc", pa.string()), ("rank", pa.string()),
                     ("score", pa.float64()), ("doc_hash", pa.uint64())])


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


def _readinto(fh, view, src: str) -> int:
    try:
        return fh.readinto(view)
    except (EOFError, OSError, zlib.error) as exc:  # gzip.BadGzipFile is an OSError
        raise InputError(f"cannot read compressed file (corrupt or truncated gzip: {exc})",
                         source=src) from None


class _NotGrouped(Exception):
    """The run file's lines are not grouped by query (or a query outgrows a piece)."""


def _starts_with(buf, start: int, prefixes: tuple) -> bool:
    return any(buf[start:start + len(p)] == p for p in prefixes)  # a bytearray or a map


def _line_start(buf, begin: int, pos: int) -> int:
    """The start of the line holding byte ``pos`` (its newline included), at least
    ``begin``."""
    return max(begin, buf.rfind(b"\n", begin, pos) + 1)


def _last_query_start(buf, end: int, begin: int = 0) -> int:
    """Where the lines of the last line's query begin in ``buf[begin:end]`` (whole
    lines), assuming they come together: a search over byte positions (galloping back
    from the end, then bisecting), a few dozen ``rfind`` whatever the piece's size. A
    last line that does not start with its query id (a comment, a blank line, leading
    spaces) gives ``end``: the piece ends there. The guess only sets where pieces end;
    that no query is split is checked on the pieces themselves."""
    last = _line_start(buf, begin, end - 1)
    fields = bytes(buf[last:min(end, last + 1024)]).split(None, 1)
    if not fields or fields[0].startswith(b"#") or not _starts_with(buf, last, fields[:1]):
        return end
    ids = (fields[0] + b" ", fields[0] + b"\t")
    ok, step = last, 1  # ok: the start of a line of the query
    while True:  # gallop back to a line of another query (bad) or to the start
        if ok == begin:
            return begin
        s = _line_start(buf, begin, max(begin, ok - step))  # at least one line back
        if not _starts_with(buf, s, ids):
            bad = s
            break
        ok, step = s, 2 * step
    while True:  # bisect: bad's line is another query's, ok's is this one's
        after = buf.find(b"\n", bad, ok) + 1  # the line after bad
        if after >= ok or after == 0:
            return ok
        s = max(after, _line_start(buf, begin, (after + ok) // 2))
        if _starts_with(buf, s, ids):
            ok = s
        else:
            bad = s


def _mapped_pieces(path, size: int, block_bytes: int, whole_queries: bool):
    """:func:`_text_pieces` of a plain file: views of a read-only map of it, no copy.
    The pages of a piece are dropped from the process once the next piece is asked
    for (``madvise``), so that it holds about one piece of the file."""
    with open(path, "rb") as fh:
        mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    whole = memoryview(mm)
    drop = getattr(mmap, "MADV_DONTNEED", None)
    try:
        pos, block = 0, max(1, block_bytes)
        while pos < size:
            end = pos + block
            if end >= size:
                cut = size
            else:
                cut = mm.rfind(b"\n", pos, end) + 1
                if cut and whole_queries:
                    cut = _last_query_start(mm, cut, pos)
                    if cut == pos:
                        raise _NotGrouped("a query longer than a piece")
                if cut <= pos:  # no newline in the block: a longer one
                    block *= 2
                    continue
            piece = whole[pos:cut]
            yield piece, cut - pos
            piece.release()
            lo, hi = pos - pos % mmap.PAGESIZE, cut - cut % mmap.PAGESIZE
            if drop is not None and hi > lo:
                mm.madvise(drop, lo, hi - lo)
            pos = cut
    finally:
        whole.release()
        try:
            mm.close()
        except BufferError:  # a view still held (an exception on its way): the GC closes it
            pass


def _text_pieces(path, block_bytes: int, src: str | None = None, *,
                 whole_queries: bool = False):
    """Pieces of whole lines, read into one refilled buffer: ``(the piece, bytes read
    for it)``. A piece is a view of the buffer, valid until the next one is asked
    for; the part of a line left at the end of the buffer moves to its front (a line
    longer than the buffer grows it). A corrupt gzip stream is refused naming ``src``.

    With ``whole_queries``, a piece (but the last) ends before the lines of its last
    query (:func:`_last_query_start`), which start the next one; a query filling the
    whole buffer raises :class:`_NotGrouped`.
    """
    src = os.fspath(path) if src is None else src
    with open(path, "rb") as probe:
        gz = probe.read(2) == b"\x1f\x8b"
        size = os.fstat(probe.fileno()).st_size
    if not gz and size:
        yield from _mapped_pieces(path, size, block_bytes, whole_queries)
        return
    opener = gzip.open if gz else open
    buf = bytearray(max(1, block_bytes))
    have = 0  # bytes held at the front of buf
    pending = 0  # bytes read since the last piece
    with opener(path, "rb") as fh:
        eof = False
        while not eof:
            view = memoryview(buf)
            while have < len(buf):  # fill the buffer (gzip gives a block at a time)
                n = _readinto(fh, view[have:], src)
                if not n:
                    eof = True
                    break
                have += n
                pending += n
            cut = buf.rfind(b"\n", 0, have) + 1
            if cut and whole_queries and not eof:
                cut = _last_query_start(buf, cut)
                if cut == 0:
                    raise _NotGrouped("a query longer than a piece")
            if cut == 0:
                if have == len(buf):  # no newline in a full buffer: a longer one
                    bigger = bytearray(2 * len(buf))
                    bigger[:have] = view[:have]
                    view.release()
                    buf = bigger
                continue
            yield view[:cut], pending
            pending = 0
            rest = have - cut
            buf[:rest] = bytes(view[cut:have])  # part of one line; same length: no resize
            have = rest
        if have:
            yield memoryview(buf)[:have], pending


def _trec_pieces(path, src: str, name: str, block_bytes: int, tmpdir: str, bar, *,
                 whole_queries: bool = False):
    """Runs of the pieces of a TREC run file, in file order.

    Each piece goes from the read buffer straight into the compiled tokenizer; a
    piece it does not accept (or no numba) is written to a temporary file and
    read by :func:`mrrstats.read_run`, which names the problem and the line. With
    ``whole_queries`` (see :func:`_text_pieces`) a piece's runs keep the tokenizer's
    blocks of queries: the piece is to be evaluated as it is.
    """
    tags = {}
    first_line = 0  # lines before the piece
    for piece, nbytes in _text_pieces(path, block_bytes, src, whole_queries=whole_queries):
        tokens = tokenize_bytes(np.frombuffer(piece, dtype=np.uint8))
        lines = (tokens["newlines"] if tokens is not None
                 else int(np.count_nonzero(np.frombuffer(piece, np.uint8) == 10)))
        if tokens is not None:
            run = Run(name=name, query=tokens["query"], doc=tokens["doc"],
                      score=tokens["score"], rank=tokens["rank"], tag=tokens["tag"],
                      source=src)
            keep_index(run, tokens, blocks=whole_queries)  # else not the buckets' blocks
        else:
            run = _read_piece(piece, first_line, src, name, tmpdir)
        if run is not None:
            run._meta["checked"] = True  # no document twice for a query within the piece
        piece.release()
        bar.update(nbytes)
        if run is not None and run.tag is not None:  # None: only comments or blank lines
            tags.setdefault(run.tag, first_line + 1)
            if len(tags) > 1:
                (t0, l0), (t1, l1) = list(tags.items())[:2]
                raise InputError(f"run tag {t1!r} (near line {l1}) differs from {t0!r} "
                                 f"(line {l0}); a run file must hold one run", source=src)
        first_line += lines
        if run is not None:
            yield run


def _read_piece(piece, first_line: int, src: str, name: str, tmpdir: str) -> Run | None:
    """A piece the tokenizer did not take, by :func:`mrrstats.read_run` (via a file)."""
    piece_path = os.path.join(tmpdir, "piece.txt")
    with open(piece_path, "wb") as out:
        out.write(piece)
    try:
        return read_run(piece_path, name=name)
    except InputError as exc:
        if exc.problem.startswith("no result lines"):
            return None
        raise InputError(exc.problem, source=src,
                         line=None if exc.line is None else exc.line + first_line) from None


def _parquet_pieces(source, src: str, name: str, block_rows: int, bar):
    """Runs of the record batches of Parquet files, in file order."""
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
        rank = pc.cast(batch.column("rank"), pa.string()) if "rank" in cols else None
        bar.update(batch.num_rows * 50)
        yield Run(name=name, query=pc.cast(batch.column("query"), pa.string()),
                  doc=pc.cast(batch.column("doc"), pa.string()), score=values, rank=rank,
                  source=src)


def _partition(run: Run, n_buckets: int, known: dict, spread: list
               ) -> tuple[pa.Table, np.ndarray]:
    """The piece's rows as a table in bucket order (file order within a bucket), and
    the bounds of each bucket's rows: a stable radix sort on the bucket numbers.

    A row's bucket is the hash of its query id modulo ``n_buckets``, computed once per
    distinct query of the piece (the codes the tokenizer gave). The bucket holds the
    query's number in ``known`` (query id -> number, in order of first appearance in
    the file; grown here) instead of the id, and the documents' hashes: reading the
    bucket back hashes and interns nothing again. ``spread[0]`` counts the pieces
    each query number has rows in (grown here).
    """
    codes = run._meta.get("query_codes")
    dictionary = run._meta.get("query_dictionary")
    if codes is None:
        dictionary, codes = encode_strings(run.query)
    doc_hashes = run._meta.get("doc_hashes")
    if doc_hashes is None:
        doc_hashes = hash_strings(run.doc)
    ids = dictionary.to_pylist()
    number = np.fromiter((known.setdefault(q, len(known)) for q in ids), np.int32,
                         count=len(ids))
    if len(known) > spread[0].size:
        spread[0] = np.concatenate((spread[0], np.zeros(2 * len(known), np.int32)))
    # a piece the tokenizer or read_run checked counts once; others (Parquet) twice, so
    # that every one of their queries is checked in its bucket
    spread[0][number] += 1 if run._meta.get("checked") else 2
    n = len(run)
    key = np.uint16 if n_buckets <= 1 << 16 else np.int64  # 16 bits: numpy's radix sort
    of_query = (hash_strings(dictionary) % np.uint64(n_buckets)).astype(key)
    bucket = of_query[codes]
    order = np.argsort(bucket, kind="stable")
    bounds = np.concatenate(([0], np.cumsum(np.bincount(bucket, minlength=n_buckets))))
    rank = run.rank if run.rank is not None else pa.nulls(n, pa.string())
    if compiled.available():
        doc = take_column(run.doc, order)
        rank = take_column(rank, order) if run.rank is not None else rank
    else:
        doc, rank = run.doc.take(pa.array(order)), rank.take(pa.array(order))
    return pa.table({"query": number[codes[order]], "doc": doc, "rank": rank,
                     "score": run.score[order], "doc_hash": doc_hashes[order]},
                    schema=_SCHEMA), bounds


def _bucket_run(table: pa.Table, names: pa.Array, spread: np.ndarray, *, name: str, tag,
                source: str) -> Run:
    """The Run of a bucket: its query numbers back to ids (the numbers of a bucket, in
    order, are its queries in order of first appearance: the codes
    ``dictionary_encode`` gives), its rows checked for a document given twice.

    The tokenizer checked each piece already: only the queries with rows in several
    pieces (``spread``: pieces per query number) are checked again here.
    """
    number = table["query"].to_numpy()
    present = np.zeros(len(names), np.bool_)
    present[number] = True
    dense = np.cumsum(present, dtype=np.int32) - 1
    codes = dense[number]
    dictionary = names.take(pa.array(np.flatnonzero(present)))
    doc_hashes = table["doc_hash"].to_numpy()
    score = table["score"].to_numpy()
    rank = table["rank"] if "rank" in table.column_names else None
    query = (take_column(dictionary, codes) if compiled.available() and codes.size
             else dictionary.take(pa.array(codes)))
    run = Run(name=name, query=query, doc=table["doc"], score=score, rank=rank, tag=tag,
              source=source)
    run._meta.update(query_dictionary=dictionary, query_codes=codes, doc_hashes=doc_hashes)
    same = codes[1:] == codes[:-1]
    if np.count_nonzero(~same) + 1 == len(dictionary) and not np.any(
            same & (score[1:] > score[:-1])):  # each query one block, scores descending
        run._meta["score_blocks"] = np.concatenate(([0], np.flatnonzero(~same) + 1))
    again = spread[number] > 1
    if again.all():
        repeat = duplicate_pairs(run.query, run.doc, codes=codes, doc_hashes=doc_hashes)
    elif again.any():
        rows = pa.array(np.flatnonzero(again))
        repeat = duplicate_pairs(run.query.take(rows), run.doc.take(rows),
                                 codes=codes[again], doc_hashes=doc_hashes[again])
    else:
        repeat = False
    if repeat:
        raise InputError("a document is listed twice for the same query (trec_eval refuses "
                         "such runs; read it with mrrstats.read_run(duplicates=...) and "
                         "evaluate it in memory)", source=source)
    return run


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
    meta = run_columns(run.query, run.doc, score)
    if meta is None:
        repeat = duplicate_pairs(run.query, run.doc)
    else:
        repeat = meta.pop("repeat")
        blocks = meta.pop("query_blocks")
        run._meta.update(meta)
        if blocks is not None:
            run._meta["score_blocks"] = blocks
    if repeat:
        raise InputError("a document is listed twice for the same query (trec_eval refuses "
                         "such runs; read it with mrrstats.read_run(duplicates=...) and "
                         "evaluate it in memory)", source=source)
    return run


_END = object()


def _read_ahead(items: Iterator) -> Iterator:
    """The items of ``items``, each next one made in a thread of its own while the
    caller works on the current one (reading and tokenizing overlap the evaluation:
    the compiled kernels release the GIL). ``items`` is closed at the end, however
    it ends, once its thread has stopped."""
    pool = ThreadPoolExecutor(1, thread_name_prefix="mrrstats-read")
    try:
        ahead = pool.submit(next, items, _END)
        while True:
            item = ahead.result()
            if item is _END:
                return
            ahead = pool.submit(next, items, _END)
            yield item
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        close = getattr(items, "close", None)
        if close is not None:
            close()


def _map_whole_pieces(source, func, name: str, block_bytes: int, progress) -> list:
    """``func`` of each piece of a TREC run file whose queries' lines come together:
    pieces cut between queries (:func:`_text_pieces`), each evaluated as it is read.
    Raises :class:`_NotGrouped` at the first piece with a query split within it or
    seen in an earlier piece (before ``func`` sees that piece)."""
    src = os.fspath(source)
    seen: set = set()
    parts = []
    with tempfiles.directory("stream-") as work, \
            _progress(run_source_bytes(source), "evaluating", progress=progress) as bar:
        pieces = _trec_pieces(source, src, name, block_bytes, work, bar, whole_queries=True)
        for run in _read_ahead(pieces):
            dictionary = run._meta.get("query_dictionary")
            codes = run._meta.get("query_codes")
            if codes is None:
                dictionary, codes = encode_strings(run.query)
            if np.count_nonzero(codes[1:] != codes[:-1]) + 1 != len(dictionary):
                raise _NotGrouped("a query's lines are not together")
            ids = dictionary.to_pylist()
            if not seen.isdisjoint(ids):
                raise _NotGrouped("a query in two pieces")
            seen.update(ids)
            parts.append(func(run))
    if not parts:
        raise InputError("no result lines found (empty run)", source=src)
    return parts


def map_query_groups(source, func, *, name: str | None = None,
                     block_bytes: int | None = None, progress: bool | None = None) -> list:
    """``func`` applied to runs of whole queries of a run file, with bounded memory.

    A TREC run file whose queries' lines come together (sorted by query, say) is
    evaluated piece by piece as it is read, each piece cut between two queries: no
    bucket is written. At the first piece that shows a query's lines apart (within
    the piece, or across pieces), what was done is dropped and the file goes through
    the buckets of :func:`iter_query_groups` (so does a Parquet source), from the
    start. Either way every query's rows reach ``func`` together, in file order.
    """
    if block_bytes is None:
        block_bytes = BLOCK_BYTES
    block_bytes = int_iv(block_bytes, "block_bytes", minimum=1)
    if not is_parquet_source(source) and os.path.isfile(source):
        try:
            return _map_whole_pieces(source, func, _run_name(source, name), block_bytes,
                                     progress)
        except _NotGrouped:
            pass
    return [func(run) for run in iter_query_groups(source, name=name, block_bytes=block_bytes,
                                                    progress=progress)]


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
        raise ParameterError(f"`n_buckets` must be a positive integer, got {n_buckets!r}")
    run_name = _run_name(source, name)
    with tempfiles.directory("stream-", dir=tmpdir) as work:
        paths = [os.path.join(work, f"bucket-{i:05d}.arrow") for i in range(n_buckets)]
        writers: dict[int, pa.ipc.RecordBatchStreamWriter] = {}
        tag = None
        with _progress(total, "partitioning by query", progress=progress) as bar:
            pieces = (_parquet_pieces(source, src, run_name, max(1, block_bytes // 50), bar)
                      if parquet else
                      _trec_pieces(source, src, run_name, block_bytes, work, bar))
            rows = 0
            known: dict = {}  # query id -> number, in order of first appearance
            spread = [np.zeros(0, np.int32)]  # pieces holding each query number
            try:
                for piece in pieces:  # (read ahead in a thread measured slower here)
                    tag = piece.tag if piece.tag is not None else tag
                    rows += len(piece)
                    table, bounds = _partition(piece, n_buckets, known, spread)
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
        names = pa.array(list(known), type=pa.string())
        with _progress(len(writers), "evaluating buckets", unit="bucket",
                       progress=progress) as bar:
            for b in sorted(writers):
                with pa.memory_map(paths[b]) as fh:  # no copy of the bucket on reading
                    t = pa.ipc.open_stream(fh).read_all()
                os.remove(paths[b])
                if has_rank and t["rank"].null_count:
                    has_rank = False
                run = _bucket_run(t if has_rank else t.drop_columns(["rank"]), names,
                                  spread[0], name=run_name, tag=tag, source=src)
                yield run
                bar.update(1)
