"""``evaluate``: runs and qrels in, per-query and aggregate measures out.

Which queries count is an explicit choice (``queries=``), with trec_eval's
names, and every evaluation reports how many queries were in the qrels only,
in the run only (unjudged), or had no relevant document.

=========== ==================================================================
``queries`` meaning
=========== ==================================================================
"both"      queries in both the qrels and the run (trec_eval's default).
"qrels"     every qrels query; a query the run misses scores 0 on every measure
            (``trec_eval -c``).
"msmarco"   the MS MARCO passage-ranking script's convention: the run's rank
            column gives the order (``ties="rank"`` unless set otherwise),
            every listed qrels pair is relevant whatever its grade, every
            qrels query counts (missing ones score 0) and the default measure
            is ``RR@10``.
=========== ==================================================================
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial

import numpy as np
import pandas as pd

from ..io.trec import Qrels, Run, read_qrels, read_run
from ..model.ranking import TIES, judged_from_qrels, rank_run
from ..numerics import no_hugepage_madvise
from .kernels import score_ranked_run
from .measures import parse_measures

__all__ = ["evaluate", "Evaluation", "QueryCounts", "QUERIES", "ENGINES", "evaluate_group"]

QUERIES = ("both", "qrels", "msmarco")
ENGINES = ("memory", "stream", "dask", "auto")


@dataclass(frozen=True, repr=False)
class QueryCounts:
    """Which queries were evaluated, and which were not (nothing is dropped silently).

    Attributes
    ----------
    evaluated : int
        Queries whose values enter the means.
    qrels_only : tuple of str
        Judged queries the run has no results for (scored 0 under
        ``queries="qrels"``/``"msmarco"``, left out under ``"both"``).
    run_only : tuple of str
        Queries of the run without any judgement (always left out).
    no_relevant : tuple of str
        Evaluated queries with no relevant judged document (they score 0).
    """

    evaluated: int
    qrels_only: tuple
    run_only: tuple
    no_relevant: tuple

    def to_dict(self) -> dict:
        return {"evaluated": self.evaluated, "qrels_only": len(self.qrels_only),
                "run_only": len(self.run_only), "no_relevant": len(self.no_relevant)}

    def __repr__(self) -> str:
        d = self.to_dict()
        return ("QueryCounts(" + ", ".join(f"{k}={v}" for k, v in d.items()) + ")")

    def __str__(self) -> str:
        d = self.to_dict()
        return (f"{d['evaluated']} evaluated; {d['qrels_only']} in qrels only; "
                f"{d['run_only']} in run only (unjudged); {d['no_relevant']} without relevant")


@dataclass(frozen=True, eq=False)
class Evaluation:
    """The result of :func:`evaluate`.

    Attributes
    ----------
    measures : tuple of Measure
        The measures, in the order asked.
    runs : tuple of str
        Run names, in the order given.
    values : dict of str -> pandas.DataFrame
        Per run, a frame indexed by query with one column per measure name.
    counts : dict of str -> QueryCounts
        Per run, which queries were evaluated and which were not.
    query_stats : pandas.DataFrame
        Long frame ``run, query, num_ret, num_rel, num_rel_ret, num_judged``.
    settings : dict
        Every convention used: ``ties``, ``rel``, ``queries``, ``max_depth``.
    """

    measures: tuple
    runs: tuple
    values: dict
    counts: dict
    query_stats: pd.DataFrame
    settings: dict = field(default_factory=dict)

    @property
    def measure_names(self) -> list[str]:
        return [str(m) for m in self.measures]

    def scores(self, measure) -> pd.DataFrame:
        """Per-query values of one measure: index ``query``, one column per run.

        Runs evaluated on different query sets are aligned on the union of
        queries; a query a run was not evaluated on is NaN.
        """
        name = str(parse_measures(measure)[0])
        if name not in self.measure_names:
            raise KeyError(f"measure {name!r} was not evaluated; have {self.measure_names}")
        frame = pd.concat({run: self.values[run][name] for run in self.runs}, axis=1)
        frame.index.name = "query"
        frame.columns.name = "run"
        return frame

    def aggregate(self, stat: str = "mean") -> pd.DataFrame:
        """One row per run, one column per measure.

        ``stat="mean"`` (default) averages over the evaluated queries; for
        ``Rank`` (first relevant rank, ``inf`` when none) the median is
        reported instead, since the mean is infinite as soon as one query has
        no relevant document. ``stat="median"`` gives medians throughout
        (e.g. median RR).
        """
        if stat not in ("mean", "median"):
            raise ValueError(f"`stat` must be 'mean' or 'median', got {stat!r}")
        rows = {}
        for run in self.runs:
            v = self.values[run]
            agg = {}
            for m in self.measures:
                col = v[str(m)].to_numpy(dtype=np.float64)
                if col.size == 0:
                    agg[str(m)] = np.nan
                elif stat == "median" or m.name == "Rank":
                    agg[str(m)] = float(np.median(col))
                else:
                    agg[str(m)] = float(np.mean(col))
            rows[run] = agg
        frame = pd.DataFrame.from_dict(rows, orient="index")[self.measure_names]
        frame.index.name = "run"
        frame.columns.name = "measure"
        return frame

    @property
    def per_query(self) -> pd.DataFrame:
        """Long frame ``run, query, measure, value`` (queries sorted, measures in order)."""
        parts = []
        for run in self.runs:
            v = self.values[run]
            long = v.reset_index().melt(id_vars="query", var_name="measure", value_name="value")
            long.insert(0, "run", run)
            parts.append(long)
        out = pd.concat(parts, ignore_index=True)
        return out[["run", "query", "measure", "value"]]

    def to_frame(self) -> pd.DataFrame:
        """Wide per-query frame: index ``(run, query)``, one column per measure."""
        return pd.concat({run: self.values[run] for run in self.runs}, names=["run", "query"])

    # -- output formats used by the CLI --------------------------------------
    def to_tsv(self, *, per_query: bool = True, stat: str = "mean") -> str:
        """Long, stable TSV: ``run  query  measure  value``; aggregates have query ``all``."""
        lines = ["run\tquery\tmeasure\tvalue"]
        agg = self.aggregate(stat)
        for run in self.runs:
            if per_query:
                v = self.values[run]
                for q, row in zip(v.index, v.itertuples(index=False), strict=True):
                    for name, value in zip(self.measure_names, row, strict=True):
                        lines.append(f"{run}\t{q}\t{name}\t{_fmt(value)}")
            for name in self.measure_names:
                lines.append(f"{run}\tall\t{name}\t{_fmt(agg.loc[run, name])}")
        return "\n".join(lines) + "\n"

    def to_dict(self, *, per_query: bool = False, stat: str = "mean") -> dict:
        agg = self.aggregate(stat)
        out = {"settings": dict(self.settings), "aggregate": stat,
               "measures": self.measure_names, "runs": {}}
        for run in self.runs:
            entry = {"aggregate": {k: _json_num(v) for k, v in agg.loc[run].items()},
                     "counts": self.counts[run].to_dict()}
            if per_query:
                entry["per_query"] = {
                    str(q): {k: _json_num(x) for k, x in row.items()}
                    for q, row in self.values[run].to_dict(orient="index").items()}
            out["runs"][run] = entry
        return out

    def to_json(self, *, per_query: bool = False, stat: str = "mean") -> str:
        return json.dumps(self.to_dict(per_query=per_query, stat=stat), indent=2)


def _fmt(value) -> str:
    value = float(value)
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if math.isnan(value):
        return "nan"
    return repr(value)


def _json_num(value):
    value = float(value)
    if math.isnan(value) or math.isinf(value):
        return None if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


def _runs_iv(runs) -> list:
    """Normalise ``runs`` to a list of (name or None, source)."""
    if type(runs).__module__.split(".")[0] in ("dask", "dask_expr"):  # engine="dask"
        return [(None, runs)]
    if isinstance(runs, (Run, pd.DataFrame, str)) or hasattr(runs, "__fspath__"):
        return [(None, runs)]
    if isinstance(runs, Mapping):
        values = list(runs.values())
        # {query: {doc: score}} is one run; {name: run} is several.
        if values and isinstance(values[0], Mapping) and values[0] and \
                not isinstance(next(iter(values[0].values())), Mapping):
            return [(None, runs)]
        return [(str(k), v) for k, v in runs.items()]
    if isinstance(runs, (list, tuple)):
        if not runs:
            raise ValueError("`runs` is empty")
        return [(None, r) for r in runs]
    raise TypeError("`runs` must be a run (path, DataFrame, dict or Run), a list of runs or a "
                    f"dict of name -> run; got {type(runs).__name__}")


def _evaluate_iv(ties, rel, queries, max_depth, measures):
    if queries not in QUERIES:
        raise ValueError(f"`queries` must be one of {', '.join(map(repr, QUERIES))}, "
                         f"got {queries!r}")
    if ties is None:
        ties = "rank" if queries == "msmarco" else "trec_eval"
    if ties not in TIES:
        raise ValueError(f"`ties` must be one of {', '.join(map(repr, TIES))}, got {ties!r}")
    if isinstance(rel, bool) or not isinstance(rel, (int, np.integer)) or rel < 1:
        raise ValueError(f"`rel` must be an integer >= 1 (grades <= 0 are never relevant), "
                         f"got {rel!r}")
    if measures is None:
        measures = ("RR@10",) if queries == "msmarco" else ("RR",)
    return ties, int(rel), parse_measures(measures)


def _msmarco_qrels(qrels: Qrels) -> Qrels:
    """Every listed pair relevant (grade 1), as the MS MARCO script reads qrels."""
    return Qrels(qrels.query, qrels.doc, np.ones_like(qrels.grade), qrels.source)


def evaluate(qrels, runs, measures=None, *, ties: str | None = None, rel: int = 1,
             queries: str = "both", max_depth: int | None = None,
             engine: str = "memory") -> Evaluation:
    """Evaluate one or more runs against qrels, per query and on average.

    Parameters
    ----------
    qrels : path, DataFrame, dict or Qrels
        Relevance judgements (see :func:`mrrstats.read_qrels`).
    runs : path, DataFrame, dict or Run, or a list of them, or a dict name -> run
        The runs; names default to the file names (see :func:`mrrstats.read_run`).
    measures : str or sequence of str, optional
        Canonical measure names such as ``"RR"``, ``"RR@10"``, ``"AP"``,
        ``"nDCG@10"``, ``"P@10"``, ``"R@100"``, ``"Success@10"``, ``"Rank"``.
        Default ``("RR",)`` (``("RR@10",)`` under ``queries="msmarco"``).
    ties : str, optional, keyword-only
        Tie convention (:data:`mrrstats.TIES`); default ``"trec_eval"``
        (``"rank"`` under ``queries="msmarco"``).
    rel : int, keyword-only
        Minimum grade that counts as relevant (trec_eval ``-l``), default 1.
        Grades <= 0 are never relevant. A measure's own ``rel=`` wins.
    queries : {"both", "qrels", "msmarco"}, keyword-only
        Which queries count; see the module documentation.
    max_depth : int, optional, keyword-only
        Only the first ``max_depth`` documents per query count (trec_eval ``-M``).
    engine : {"memory", "stream", "dask", "auto"}, keyword-only
        Where the per-query values are computed (the values are identical,
        bit for bit, whichever engine): ``"memory"`` reads each run whole;
        ``"stream"`` reads a run file (TREC text, or Parquet files: a path, a
        directory or a glob) in pieces, partitions it by query into buckets on
        disk and evaluates one bucket at a time (bounded memory, any row
        order); ``"dask"`` evaluates a Dask DataFrame or Parquet files
        partition by partition on the current Dask client (shuffling by query
        when a query spans partitions); ``"auto"`` picks ``"stream"`` for run
        files too large for the free memory and ``"memory"`` otherwise. See
        :mod:`mrrstats.scale`.

    Returns
    -------
    Evaluation

    Examples
    --------
    >>> import mrrstats
    >>> qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d7": 2}}
    >>> run = {"q1": {"d2": 0.9, "d1": 0.8}, "q2": {"d7": 0.1, "d9": 0.5}}
    >>> ev = mrrstats.evaluate(qrels, {"bm25": run}, ["RR", "P@1"])
    >>> ev.aggregate()
    measure   RR  P@1
    run
    bm25     0.5  0.0
    >>> ev.scores("RR")["bm25"].tolist()
    [0.5, 0.5]
    """
    ties, rel, measures = _evaluate_iv(ties, rel, queries, max_depth, measures)
    if engine not in ENGINES:
        raise ValueError(f"`engine` must be one of {', '.join(map(repr, ENGINES))}, "
                         f"got {engine!r}")
    with no_hugepage_madvise():
        return _evaluate(qrels, runs, measures, ties, rel, queries, max_depth, engine)


def evaluate_group(qrels, run, *, measures, ties, rel, max_depth) -> tuple:
    """Per-query values of a run holding whole queries (the unit every engine feeds).

    Returns ``(values, run_ids, depth, rel_retrieved)``: the per-query frame
    of every query of ``run`` (index ``query``), the query ids, documents
    retrieved and relevant documents retrieved per query. A query's values
    depend only on its own rows (in file order), so any grouping of whole
    queries gives the same values.
    """
    ranked = rank_run(qrels, run, ties=ties, max_depth=max_depth)
    per_q = score_ranked_run(ranked, measures, rel=rel)
    return per_q, ranked.query_ids.astype(str), ranked.depth(), _rel_retrieved(ranked, rel)


def _combine_groups(parts) -> tuple:
    """One result from the results of groups of whole queries, queries sorted as in memory."""
    parts = [p for p in parts if len(p[1])]
    if len(parts) == 1:
        return parts[0]
    if not parts:
        raise ValueError("the run has no rows")
    run_ids = np.concatenate([p[1] for p in parts])
    if np.unique(run_ids).size != run_ids.size:
        raise ValueError("a query was split across groups (internal error)")
    order = np.argsort(run_ids, kind="stable")
    per_q = pd.concat([p[0] for p in parts]).iloc[order]
    return (per_q, run_ids[order], np.concatenate([p[2] for p in parts])[order],
            np.concatenate([p[3] for p in parts])[order])


def _evaluate_run(given_name, source, group, engine) -> tuple:
    """``(name, values, run_ids, depth, rel_retrieved)`` of one run through ``engine``."""
    if engine != "memory":
        from ..scale.engines import evaluate_groups  # dask/duckdb are optional

        name, parts = evaluate_groups(source, group, engine=engine, name=given_name)
        if parts is not None:
            return (name, *_combine_groups(parts))
    run = read_run(source, name=given_name) if given_name is not None else read_run(source)
    return (run.name, *group(run))


def _evaluate(qrels, runs, measures, ties, rel, queries, max_depth,
              engine="memory") -> Evaluation:
    qrels = read_qrels(qrels)
    if queries == "msmarco":
        qrels = _msmarco_qrels(qrels)
    judged_all = judged_from_qrels(qrels)
    qrels_ids = judged_all.query_ids.astype(str)
    num_rel_all = judged_all.num_rel(rel)
    items = _runs_iv(runs)
    values, counts, stats, names = {}, {}, [], []
    group = partial(evaluate_group, measures=measures, ties=ties, rel=rel, max_depth=max_depth)
    for given_name, source in items:
        name, per_q, run_ids, depth, info = _evaluate_run(given_name, source,
                                                          partial(group, qrels), engine)
        if name in values:
            raise ValueError(f"two runs are named {name!r}; pass a dict {{name: run}} to name "
                             "them apart")
        names.append(name)
        judged_mask = np.isin(run_ids, qrels_ids)
        run_only = tuple(str(q) for q in run_ids[~judged_mask])
        qrels_only = tuple(str(q) for q in qrels_ids[~np.isin(qrels_ids, run_ids)])
        per_q = per_q.loc[judged_mask]
        depth = depth[judged_mask]
        info = info[judged_mask]
        if queries in ("qrels", "msmarco") and qrels_only:
            fill = {str(m): (np.inf if m.name == "Rank" else 0.0) for m in measures}
            missing = pd.DataFrame([fill] * len(qrels_only),
                                   index=pd.Index(list(qrels_only), name="query"))
            per_q = pd.concat([per_q, missing])
            per_q = per_q.sort_index(key=lambda idx: idx.astype(str))
        per_q.columns.name = "measure"
        values[name] = per_q
        evaluated = per_q.index.astype(str).to_numpy()
        pos = np.searchsorted(qrels_ids, evaluated)
        no_rel = tuple(str(q) for q in evaluated[num_rel_all[pos] == 0])
        counts[name] = QueryCounts(len(evaluated), qrels_only, run_only, no_rel)
        # query statistics (for baselines and reports)
        ret = pd.Series(depth, index=run_ids[judged_mask])
        relret = pd.Series(info, index=run_ids[judged_mask])
        st = pd.DataFrame({"query": evaluated})
        st["num_ret"] = ret.reindex(evaluated).fillna(0).astype(np.int64).to_numpy()
        st["num_rel"] = num_rel_all[pos].astype(np.int64)
        st["num_rel_ret"] = relret.reindex(evaluated).fillna(0).astype(np.int64).to_numpy()
        st["num_judged"] = judged_all.num_judged()[pos].astype(np.int64)
        st.insert(0, "run", name)
        stats.append(st)
    settings = {"ties": ties, "rel": rel, "queries": queries, "max_depth": max_depth}
    return Evaluation(measures=measures, runs=tuple(names), values=values, counts=counts,
                      query_stats=pd.concat(stats, ignore_index=True), settings=settings)


def _rel_retrieved(ranked, rel: int) -> np.ndarray:
    """Relevant documents retrieved per query (within max_depth)."""
    n_q = ranked.n_queries
    if n_q == 0:
        return np.zeros(0, dtype=np.int64)
    if ranked.max_depth is None:  # every query has at least one row
        relevant = (ranked.grades >= rel).view(np.int8)
        return np.add.reduceat(relevant, ranked.offsets[:-1], dtype=np.int64)
    lens = np.diff(ranked.offsets)
    qidx = np.repeat(np.arange(n_q), lens)
    pos = np.arange(ranked.grades.size) - ranked.offsets[:-1][qidx] + 1
    keep = ranked.grades >= rel
    if ranked.max_depth is not None:
        keep &= pos <= ranked.max_depth
    return np.bincount(qidx[keep], minlength=n_q)

