"""The output of ``mrrstats evaluate QRELS RUN...`` (the text table) from arrays.

The command line's common case, TREC files in and the table of aggregates (and the
per-query tables) out, needs no DataFrame: this module computes it with the kernels,
query policies and warnings of :func:`mrrstats.evaluate` (the same functions, the same
order of operations, so the same values bit for bit) and prints it with the formatting
of :meth:`Evaluation.aggregate` and :func:`mrrstats.formatting.frame_text`, without
importing pandas (0.3 s of a fresh process). Anything else (other options, other
inputs, any error) goes through :func:`mrrstats.evaluate`, which words the errors.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..defaults import default_queries
from ..formatting import columns_text, wrap
from ..io.trec import qrels_iv, run_iv
from ..model.ranking import judged_from_qrels, rank_run
from ..numerics import no_hugepage_madvise
from .evaluation import (
    QueryCounts,
    _evaluate_iv,
    aggregate_values,
    empty_target_iv,
    warn_qrels_only,
    warn_skipped,
)
from .kernels import ranked_values

__all__ = ["evaluate_text"]


class _Unsupported(Exception):
    """A case this module leaves to :func:`mrrstats.evaluate`."""


def evaluate_text(
    qrels, runs, measures, *, ties, rel, queries, max_depth, empty_target, stat, per_query
) -> str | None:
    """The text ``mrrstats evaluate --format table`` prints, or None where this path does
    not apply (then nothing was printed or warned: the caller evaluates as usual).

    ``qrels`` and every run must be paths and ``queries`` ``"both"`` (trec_eval's, the
    command line's default); ``empty_target`` ``"neg"``, ``"pos"`` or ``"skip"``. The
    warnings (:class:`mrrstats.QueriesLeftOutWarning`, and any the readers give) are
    issued, as they were recorded, only when the whole text is made.
    """
    paths = [qrels, *runs]
    if (
        queries != "both"
        or empty_target not in ("neg", "pos", "skip")
        or not runs
        or not all(isinstance(p, str) or hasattr(p, "__fspath__") for p in paths)
    ):
        return None
    try:
        with warnings.catch_warnings(record=True) as caught, no_hugepage_madvise():
            warnings.simplefilter("always")
            text = _text(
                qrels,
                runs,
                measures,
                ties=ties,
                rel=rel,
                max_depth=max_depth,
                empty_target=empty_target,
                stat=stat,
                per_query=per_query,
            )
    except Exception:  # noqa: BLE001 - mrrstats.evaluate gives the error its words
        return None
    for w in caught:  # as the path through mrrstats.evaluate issues them
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)
    return text


def _text(qrels, runs, measures, *, ties, rel, max_depth, empty_target, stat, per_query):
    ties, rel, measures = _evaluate_iv(ties, rel, "both", max_depth, measures)
    if len({str(m) for m in measures}) != len(measures):
        raise _Unsupported  # a measure asked twice: a frame shows its column twice
    empty_target = empty_target_iv(empty_target)
    qrels = qrels_iv(qrels)
    judged_all = judged_from_qrels(qrels)
    names, tables, counts = [], {}, {}
    for source in runs:
        run = run_iv(source, rank=ties == "rank")  # the rank column: for ties="rank" only
        if run.name in tables:
            raise _Unsupported  # the error names them
        ranked = rank_run(qrels, run, ties=ties, max_depth=max_depth)
        values = ranked_values(ranked, measures, rel=rel)
        run_ids = ranked.query_ids.astype(str)
        tables[run.name], counts[run.name] = _finish(
            judged_all, run.name, run_ids, values, measures, rel=rel, empty_target=empty_target
        )
        names.append(run.name)
    queries = default_queries(None)
    out = [
        f"# ties={ties} rel={rel} queries={queries}"
        + (f" max_depth={max_depth}" if max_depth else "")
        + f" aggregate={stat}\n"
    ]
    agg = {
        str(m): np.array(
            [aggregate_values(tables[n][1][str(m)], m, stat) for n in names], dtype=np.float64
        )
        for m in measures
    }
    out.append(columns_text("run", names, agg) + "\n")
    out.append("\nqueries per run:\n")
    for name in names:
        out.append("\n".join(wrap(f"{name}: {counts[name]}", prefix="  ")) + "\n")
    if per_query:
        for name in names:
            out.append(f"\n{name}\n")
            out.append(columns_text("query", *tables[name]) + "\n")
    return "".join(out)


def _finish(judged_all, name, run_ids, values, measures, *, rel, empty_target):
    """``Evaluation._finish_run`` under ``queries="both"``, on arrays: ``((query ids,
    {measure: values}), QueryCounts)``."""
    qrels_ids = judged_all.query_ids.astype(str)
    num_rel_all = judged_all.num_rel(rel)
    judged_mask = _isin(run_ids, qrels_ids)
    run_only = tuple(str(q) for q in run_ids[~judged_mask])
    qrels_only = tuple(str(q) for q in qrels_ids[~_isin(qrels_ids, run_ids)])
    if not judged_mask.any():
        raise _Unsupported  # the error names both files
    cols = {k: np.asarray(v)[judged_mask] for k, v in values.items()}
    if qrels_only:
        warn_qrels_only(name, qrels_only, len(qrels_ids))
    evaluated = run_ids[judged_mask]
    pos = np.searchsorted(qrels_ids, evaluated)
    empty = num_rel_all[pos] == 0
    no_rel = tuple(str(q) for q in evaluated[empty])
    if empty.any():
        if empty_target == "pos":
            for m in measures:  # Judged and the counts (NumRet, ...) are not relevance
                if m.name != "Judged" and not m.spec.count:
                    if cols[str(m)].dtype != np.float64:
                        raise _Unsupported  # a frame's column would change its type
                    cols[str(m)] = np.where(empty, 1.0, cols[str(m)])
        elif empty_target == "skip":
            cols = {k: v[~empty] for k, v in cols.items()}
            evaluated = evaluated[~empty]
            warn_skipped(name, no_rel)
    counts = QueryCounts(len(evaluated), qrels_only, run_only, no_rel, empty_target, "both")
    return (evaluated, cols), counts


def _isin(values: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """``np.isin(values, ids)`` for arrays of str by a sort and a binary search (np.isin
    sorts through np.unique, whose first call imports numpy.ma: 0.005 s of the path)."""
    ids = np.sort(ids)
    pos = np.minimum(np.searchsorted(ids, values), max(ids.size - 1, 0))
    return (ids[pos] == values) if ids.size else np.zeros(values.shape, dtype=bool)
