"""Generate an MS MARCO-like TREC run and qrels for the benchmarks (fixed seed).

7,000 queries x 1,000 retrieved documents each, scores rounded so that ties are
present (about 10% of rows share a score with a neighbour), about 1.1 relevant
documents per query (Poisson), a few graded 2. Written to ``benchmarks/_data/``.

Usage: python benchmarks/make_data.py [--queries 7000] [--depth 1000] [--seed 20261121]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

HERE = Path(__file__).resolve().parent


def make(n_queries: int = 7000, depth: int = 1000, seed: int = 20261121,
         out: Path = HERE / "_data") -> tuple[Path, Path]:
    rng = np.random.default_rng(seed)
    out.mkdir(parents=True, exist_ok=True)
    run_path = out / f"run_{n_queries}x{depth}.trec"
    qrels_path = out / f"qrels_{n_queries}x{depth}.trec"
    if run_path.exists() and qrels_path.exists():
        return qrels_path, run_path
    n_docs = 8_841_823  # size of the MS MARCO passage collection
    qids = np.arange(1, n_queries + 1) * 7 + 1000  # sparse numeric ids, like MS MARCO
    # Distinct documents per query: sample with a small chance of collisions, fix them.
    docs = rng.integers(0, n_docs, size=(n_queries, depth))
    docs.sort(axis=1)
    dup = np.zeros_like(docs, dtype=bool)
    dup[:, 1:] = docs[:, 1:] == docs[:, :-1]
    docs[dup] = (docs[dup] + rng.integers(1, 1000, size=dup.sum())) % n_docs
    for i in np.nonzero(dup.any(axis=1))[0]:  # rare: make each row unique
        row = np.unique(docs[i])
        while row.size < depth:
            row = np.unique(np.concatenate([row, rng.integers(0, n_docs, depth - row.size)]))
        docs[i] = rng.permutation(row)
    for i in range(n_queries):
        rng.shuffle(docs[i])
    # Scores: decreasing with rank, rounded to 3 decimals -> ties.
    base = np.sort(rng.gamma(2.0, 2.0, size=(n_queries, depth)), axis=1)[:, ::-1]
    scores = np.round(base * 10, 1)
    ranks = np.tile(np.arange(1, depth + 1), n_queries)
    q_col = np.repeat(qids, depth).astype(str)
    d_col = docs.ravel().astype(str)
    table = pa.table({
        "q": q_col, "it": np.full(q_col.size, "Q0"), "d": d_col, "rank": ranks,
        "score": scores.ravel(), "tag": np.full(q_col.size, "bench"),
    })
    pacsv.write_csv(table, run_path, write_options=pacsv.WriteOptions(
        include_header=False, delimiter=" ", quoting_style="none"))
    # Qrels: ~1.1 relevant per query, placed at a geometric-ish rank; plus unretrieved ones.
    n_rel = np.maximum(1, rng.poisson(0.1, size=n_queries) + 1)
    lines = []
    for i, q in enumerate(qids):
        k = n_rel[i]
        retrieved = rng.random(k) < 0.85
        pos = np.minimum(rng.geometric(0.08, size=k) - 1, depth - 1)
        for j in range(k):
            doc = docs[i, pos[j]] if retrieved[j] else rng.integers(0, n_docs)
            grade = 2 if rng.random() < 0.1 else 1
            lines.append(f"{q} 0 {doc} {grade}")
        # a few judged non-relevant documents from the run
        for p in rng.choice(depth, size=3, replace=False):
            lines.append(f"{q} 0 {docs[i, p]} 0")
    # drop accidental duplicate pairs (keep first)
    seen, unique = set(), []
    for line in lines:
        key = tuple(line.split()[::2][:2])
        if key not in seen:
            seen.add(key)
            unique.append(line)
    qrels_path.write_text("\n".join(unique) + "\n")
    return qrels_path, run_path


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--queries", type=int, default=7000)
    p.add_argument("--depth", type=int, default=1000)
    p.add_argument("--seed", type=int, default=20261121)
    a = p.parse_args()
    q, r = make(a.queries, a.depth, a.seed)
    print(q)
    print(r)


if __name__ == "__main__":
    main()
