"""The out-of-core step of ``engine="stream"``: our pyarrow buckets against DuckDB.

The design asks for a well-kept engine for the out-of-core part, "pyarrow datasets
or DuckDB, your measured choice". This script measures both on the same
generated run (``make_data.py``; sorted by query as written, and shuffled), each
in a fresh subprocess (peak RSS from VmHWM), end to end to per-query values:

* ``mrrstats stream``: ``evaluate(..., engine="stream")``: pieces parsed and
  validated by ``read_run`` itself, rows spread over Arrow IPC bucket files by a
  hash of the query, each bucket evaluated on its own.
* ``duckdb sort``: DuckDB reads the file (``read_csv``, whitespace-separated,
  six typed columns), sorts it by query with ``memory_limit`` and spilling to
  disk, hands back Arrow batches; whole-query slices of about 2 million rows are
  evaluated by ``evaluate`` in memory (``run_from_table`` validates them). The
  row order within a query is kept by sorting on (query, file row number), since
  trec_eval's tie order can depend on it. DuckDB's CSV reader does none of the
  TREC checks of ``read_run`` (six fields, Q0 column, one run tag...), so this
  row is a lower bound for a DuckDB engine with the same validation.

Every row's per-query values are checked to be identical to ``engine="memory"``'s.

Usage::

    pip install duckdb
    python benchmarks/bench_stream_duckdb.py [--queries 10000] [--memory-limit 1GB]

Writes ``benchmarks/results_stream_duckdb.md``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
MEASURES = ["RR", "RR@10", "AP", "nDCG@10", "P@10", "R@100"]
SLICE_ROWS = 2_000_000


def peak_rss() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def _values(ev):
    import numpy as np

    frame = ev.values["run"][MEASURES].sort_index()
    return frame.index.astype(str).to_numpy(), frame.to_numpy(np.float64)


def child(kind: str, qrels: str, run: str, limit: str, out: str) -> None:
    import numpy as np

    import mrrstats

    t0 = time.perf_counter()
    if kind in ("memory", "stream"):
        ev = mrrstats.evaluate(qrels, {"run": run}, MEASURES, engine=kind)
        index, values = _values(ev)
    else:
        import tempfile

        import duckdb
        import pyarrow as pa
        import pyarrow.compute as pc

        from mrrstats.scale.stream import run_from_table

        tmp = tempfile.mkdtemp(prefix="duckdb-")
        con = duckdb.connect(config={"memory_limit": limit, "threads": 2,
                                     "temp_directory": tmp,
                                     "preserve_insertion_order": False})
        rel = con.sql(
            "SELECT query, doc, score FROM ("
            f"  SELECT *, row_number() OVER () AS line FROM read_csv('{run}', delim=' ',"
            "   header=false, columns={'query': 'VARCHAR', 'q0': 'VARCHAR', 'doc': 'VARCHAR',"
            "   'rank': 'BIGINT', 'score': 'DOUBLE', 'tag': 'VARCHAR'}))"
            " ORDER BY query, line")
        reader = rel.fetch_record_batch(1 << 20)
        parts, pending, n_pending = [], [], 0

        def flush(tables):
            table = pa.concat_tables(tables)
            r = run_from_table(table, name="run", source=run)
            parts.append(_values(mrrstats.evaluate(qrels, {"run": r}, MEASURES,
                                                   queries="both")))

        for batch in reader:
            pending.append(pa.Table.from_batches([batch]))
            n_pending += batch.num_rows
            if n_pending >= SLICE_ROWS:  # cut before the last query of the batch
                table = pa.concat_tables(pending)
                q = table["query"]
                last = q[len(q) - 1].as_py()
                keep = pc.not_equal(q, last)
                n_keep = int(pc.sum(keep).as_py() or 0)
                flush([table.slice(0, n_keep)])
                pending, n_pending = [table.slice(n_keep)], len(table) - n_keep
        if n_pending:
            flush(pending)
        # per-query values of all slices, in query order like the other rows
        index = np.concatenate([p[0] for p in parts])
        values = np.concatenate([p[1] for p in parts])
        order = np.argsort(index, kind="stable")
        index, values = index[order], values[order]
    seconds = time.perf_counter() - t0
    np.save(out, values)
    np.save(out + ".index.npy", index)
    print(json.dumps({"seconds": seconds, "peak_rss": peak_rss()}))


def measure(kind, qrels, run, limit, tag):
    out = str(HERE / "_data" / f"_duck_{tag}_{kind}.npy")
    proc = subprocess.run([sys.executable, __file__, "--child", kind, str(qrels), str(run),
                           limit, out], capture_output=True, text=True, check=False)
    if proc.returncode:
        raise RuntimeError(proc.stderr[-3000:])
    r = json.loads(proc.stdout.strip().splitlines()[-1])
    r["values"], r["index"] = out, out + ".index.npy"
    return r


def shuffled(run: Path) -> Path:
    import numpy as np
    import pyarrow.csv as pacsv

    out = run.with_name(run.stem + "_shuffled.trec")
    if out.exists():
        return out
    table = pacsv.read_csv(run, read_options=pacsv.ReadOptions(autogenerate_column_names=True),
                           parse_options=pacsv.ParseOptions(delimiter=" "),
                           convert_options=pacsv.ConvertOptions(
                               column_types={"f0": "string", "f2": "string", "f4": "string"}))
    perm = np.random.default_rng(0).permutation(table.num_rows)
    pacsv.write_csv(table.take(perm), out, write_options=pacsv.WriteOptions(
        include_header=False, delimiter=" ", quoting_style="none"))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--queries", type=int, default=10_000)
    p.add_argument("--memory-limit", default="1GB")
    p.add_argument("--child", nargs=5, metavar=("KIND", "QRELS", "RUN", "LIMIT", "OUT"))
    a = p.parse_args()
    if a.child:
        child(*a.child)
        return
    import numpy as np

    sys.path.insert(0, str(HERE))
    from make_data import make

    qrels, run = make(n_queries=a.queries, depth=1000)
    n = a.queries * 1000
    rows = []
    for tag, src in (("sorted", run), ("shuffled", shuffled(run))):
        ref = None
        for kind in ("memory", "stream", "duckdb"):
            if kind == "memory" and tag == "shuffled":
                continue
            r = measure(kind, qrels, src, a.memory_limit, tag)
            values, index = np.load(r["values"]), np.load(r["index"], allow_pickle=True)
            if ref is None:
                ref = (index, values)
                same = "reference"
            else:
                keep = np.isin(ref[0], index)  # duckdb: the run's queries only
                same = "yes" if (np.array_equal(ref[0][keep], index)
                                 and np.array_equal(ref[1][keep], values)) else "NO"
            rows.append((tag, kind, r["seconds"], r["peak_rss"] / 1e9, same))
            print(rows[-1], flush=True)
    lines = [
        "# Out-of-core step: pyarrow buckets (ours) vs DuckDB",
        "",
        f"Run: {n:.0e} lines ({run.stat().st_size / 1e9:.2f} GB), {MEASURES}; DuckDB "
        f"memory_limit {a.memory_limit}, 2 threads. One run each, fresh process.",
        "",
        "| row order | engine | seconds | peak RSS GB | per-query values = memory |",
        "|---|---|---:|---:|---|",
    ]
    lines += [f"| {t} | {k} | {s:.1f} | {m:.2f} | {same} |" for t, k, s, m, same in rows]
    (HERE / "results_stream_duckdb.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
