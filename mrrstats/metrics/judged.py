r"""Unjudged documents in a ranking: the ``Judged@k`` kernel and the two rewrites of a
ranking that the conventions for unjudged documents need.

* :func:`judged_at_k` -- ``Judged@k``: the share of the first
  :math:`\min(k, \text{retrieved})` documents that the qrels judge (any grade,
  negative ones included), ir_measures' definition (0.4; OpenNIR's). Without
  ``@k`` every retrieved document counts.
* :func:`condense` -- the condensed list (Sakai 2007): unjudged documents
  removed, the judged ones moved up, before any measure is computed.
* :func:`fill_unjudged` -- every unjudged retrieved document given a grade (and
  added to the query's judged set, so it enters the number of relevant
  documents and nDCG's ideal ranking): the upper end of
  :func:`mrrstats.judgment_bounds`.

A ranking is a :class:`~mrrstats.model.ranking.RankedRun`: grades in rank order,
NaN for a document the qrels do not judge.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..model.ranking import Judged, RankedRun

__all__ = ["UNJUDGED", "judged_at_k", "condense", "fill_unjudged"]

#: Conventions for unjudged documents (``evaluate(unjudged=...)``): counted
#: non-relevant (trec_eval), removed before scoring (condensed lists, Sakai 2007), or
#: counted relevant with grade ``rel`` (the upper end of the judgment bounds).
UNJUDGED = ("nonrelevant", "condense", "relevant")

_INF = np.iinfo(np.int64).max // 4


def _rows(offsets):
    lens = np.diff(offsets)
    qidx = np.repeat(np.arange(lens.size), lens)
    pos = np.arange(int(offsets[-1])) - np.repeat(offsets[:-1], lens)  # 0-based
    return lens, qidx, pos


def judged_at_k(offsets, grades, *, k=None, max_depth=None, group_bounds=None) -> np.ndarray:
    r"""``Judged@k`` per query: judged documents among the first :math:`d` / :math:`d`.

    Parameters
    ----------
    offsets : array_like of int
        Query ``q`` holds rows ``offsets[q]:offsets[q+1]``, in rank order.
    grades : array_like of float
        Grade of each row; NaN for an unjudged document.
    k : int or None, keyword-only
        The cutoff (None: every retrieved document).
    max_depth : int or None, keyword-only
        Only the first ``max_depth`` rows of a query count (``trec_eval -M``).
    group_bounds : array_like of int, optional, keyword-only
        Tie groups (ties ``"realistic"``/``"expected"``): the expected share
        over random orders within each group.

    Returns
    -------
    numpy.ndarray
        :math:`d = \min(k, \text{retrieved}, \text{max\_depth})`; 0 for a query
        with no row.

    Examples
    --------
    >>> import numpy as np
    >>> from mrrstats.metrics.judged import judged_at_k
    >>> g = np.array([1.0, np.nan, 0.0, np.nan, 2.0, np.nan])
    >>> judged_at_k([0, 4, 6], g, k=3).tolist()
    [0.6666666666666666, 0.5]
    """
    offsets = np.asarray(offsets, dtype=np.int64)
    grades = np.asarray(grades, dtype=np.float64)
    lens, qidx, pos = _rows(offsets)
    depth = np.minimum(lens, min(_INF if k is None else int(k),
                                 _INF if max_depth is None else int(max_depth)))
    known = ~np.isnan(grades)
    if group_bounds is None:
        keep = known & (pos < depth[qidx])
        count = np.bincount(qidx[keep], minlength=lens.size).astype(np.float64)
    else:
        gb = np.asarray(group_bounds, dtype=np.int64)
        gs, size = gb[:-1], np.diff(gb)
        gq, gstart = qidx[gs], pos[gs]
        judged = np.add.reduceat(known.astype(np.float64), gs) if gs.size else np.zeros(0)
        kept = np.clip(depth[gq] - gstart, 0, size)
        count = np.bincount(gq, weights=judged * kept / size, minlength=lens.size)
    out = np.zeros(lens.size)
    np.divide(count, depth, out=out, where=depth > 0)
    return out


def _order_rows(ranked: RankedRun):
    order = ranked.order
    if order is None:
        return None
    if hasattr(order, "materialise"):
        return order.materialise(ranked.grades.size)
    return np.asarray(order)


def condense(ranked: RankedRun) -> RankedRun:
    """The condensed ranking: unjudged documents removed (after ``max_depth``).

    The result has no ``max_depth`` (it was applied first, as ``trec_eval -M``
    cuts the run before anything else); a query whose retrieved documents are
    all unjudged keeps no row and scores 0 (``Rank``: inf).

    Examples
    --------
    >>> import mrrstats
    >>> from mrrstats.metrics.judged import condense
    >>> r = mrrstats.rank_run({"q": {"a": 1}}, {"q": {"x": 3.0, "a": 2.0, "y": 1.0}})
    >>> condense(r).grades.tolist(), condense(r).offsets.tolist()
    ([1.0], [0, 1])
    """
    lens, qidx, pos = _rows(ranked.offsets)
    keep = ~np.isnan(ranked.grades)
    if ranked.max_depth is not None:
        keep &= pos < ranked.max_depth
    counts = np.bincount(qidx[keep], minlength=lens.size)
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    gb = ranked.group_bounds
    if gb is not None:
        gid = np.repeat(np.arange(gb.size - 1), np.diff(gb))[keep]
        starts = np.flatnonzero(np.concatenate(([True], gid[1:] != gid[:-1]))) if gid.size \
            else np.zeros(0, np.int64)
        gb = np.concatenate((starts, [gid.size])).astype(np.int64)
    order = _order_rows(ranked)
    order = np.flatnonzero(keep) if order is None else order[keep]
    return dataclasses.replace(ranked, offsets=offsets, grades=ranked.grades[keep],
                               group_bounds=gb, max_depth=None, order=order)


def fill_unjudged(ranked: RankedRun, grade: int = 1) -> RankedRun:
    """Every unjudged retrieved document (within ``max_depth``) judged ``grade``.

    The filled documents join the query's judged set too: they count in the
    number of relevant documents (R, AP) and in nDCG's ideal ranking. The
    order of the ranking is the one the tie convention gave with the
    original labels.

    Examples
    --------
    >>> import mrrstats
    >>> from mrrstats.metrics.judged import fill_unjudged
    >>> r = mrrstats.rank_run({"q": {"a": 1}}, {"q": {"x": 3.0, "a": 2.0}})
    >>> f = fill_unjudged(r)
    >>> f.grades.tolist(), f.judged.grades.tolist()
    ([1.0, 1.0], [1, 1])
    """
    lens, qidx, pos = _rows(ranked.offsets)
    fill = np.isnan(ranked.grades)
    if ranked.max_depth is not None:
        fill &= pos < ranked.max_depth
    grades = ranked.grades.copy()
    grades[fill] = grade
    added = np.bincount(qidx[fill], minlength=lens.size)
    j = ranked.judged
    jq = np.repeat(np.arange(lens.size), np.diff(j.offsets))
    allq = np.concatenate([jq, np.repeat(np.arange(lens.size), added)])
    allg = np.concatenate([j.grades, np.full(int(added.sum()), grade, dtype=j.grades.dtype)])
    order = np.lexsort((-allg, allq))
    offsets = np.concatenate(([0], np.cumsum(np.diff(j.offsets) + added))).astype(np.int64)
    return dataclasses.replace(ranked, grades=grades,
                               judged=Judged(j.query_ids, offsets, allg[order]))
