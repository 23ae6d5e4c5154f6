"""Per-query metrics, vectorised over flat per-query rankings.

Definitions follow trec_eval (``recip_rank``, ``map``, ``map_cut``, ``ndcg``,
``ndcg_cut``, ``P``, ``recall``, ``success``), so that values match it per
query to its printed precision; see :mod:`mrrstats.metrics.measures` for the table of
names. With ``rank`` the position of a document (1-based), ``rel(d)`` whether
its grade is at least the relevance threshold, ``R`` the number of judged
relevant documents of the query and ``k`` the cutoff:

* ``RR@k = 1 / rank_1`` for the first relevant document if ``rank_1 <= k``, else 0;
* ``AP@k = (1/R) sum_{rank(d) <= k, rel(d)} P@rank(d)``;
* ``nDCG@k = DCG@k / IDCG@k`` with ``DCG@k = sum_{rank <= k} g / log2(rank + 1)``,
  gain ``g`` = the grade (0 for grades <= 0 and unjudged documents) and IDCG
  the DCG of the judged grades sorted best first, cut at ``k``;
* ``P@k = #relevant in top k / k``; ``R@k = #relevant in top k / R``;
  ``Success@k = 1`` if a relevant document is in the top k.

Queries with ``R = 0`` score 0 on every measure (``Rank`` is ``inf``). ``Judged@k``
(judged documents among the first min(k, retrieved), over that number) does not depend
on relevance: :mod:`mrrstats.metrics.judged`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from .. import compiled
from ..errors import ParameterError, ParameterTypeError
from ..lazy import deferred
from ..model.ranking import Judged, RankedRun
from ..numerics import harmonic, no_hugepage_madvise
from ..validation import asarray_iv, int_iv
from .judged import judged_at_k
from .measures import Measure, measures_iv
from .trec_measures import TREC_FAMILIES, trec_measure

if TYPE_CHECKING:
    from .._typing import MeasuresInput

if TYPE_CHECKING:
    import pandas as pd
else:  # imported when first used: the TREC-file path builds no DataFrame
    pd = deferred("pandas")

__all__ = ["compute_measures", "score_rankings", "score_ranked_run"]

_INF_DEPTH = np.iinfo(np.int64).max // 4


def _log_comb(a, b):
    from scipy import special  # the expected-ties path only: scipy's import is 0.2 s

    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return special.gammaln(a + 1) - special.gammaln(b + 1) - special.gammaln(a - b + 1)


class _Layout:
    """Row bookkeeping shared by every measure of one ranking."""

    def __init__(self, offsets, grades, judged: Judged, group_bounds, max_depth):
        self.offsets = np.asarray(offsets, dtype=np.int64)
        self.grades = np.asarray(grades, dtype=np.float64)
        self.n_q = self.offsets.size - 1
        lens = np.diff(self.offsets)
        small = self.grades.size < 2**31 - 1
        itype = np.int32 if small else np.int64
        self.qidx = np.repeat(np.arange(self.n_q, dtype=itype), lens)
        # 1-based position within the query
        self.pos = np.arange(1, self.grades.size + 1, dtype=itype)
        self.pos -= np.repeat(self.offsets[:-1].astype(itype), lens)
        self.judged = judged
        self.max_depth = _INF_DEPTH if max_depth is None else int(max_depth)
        self.group_bounds = None if group_bounds is None else np.asarray(group_bounds, np.int64)
        self._rel: dict[int, dict] = {}
        self._gain = None
        self._gain_rows = None
        self._ideal = None

    # -- deterministic rankings --------------------------------------------
    def rel_info(self, t: int) -> dict:
        info = self._rel.get(t)
        if info is not None:
            return info
        relmask = self.grades >= t
        rows = np.flatnonzero(relmask)
        rq = self.qidx[rows]
        rpos = self.pos[rows]
        starts = np.flatnonzero(np.concatenate(([True], rq[1:] != rq[:-1]))) if rows.size \
            else np.zeros(0, np.int64)
        first = np.full(self.n_q, np.inf)
        first[rq[starts]] = rpos[starts]
        run_len = np.diff(np.append(starts, rows.size))
        count = np.arange(rows.size) - np.repeat(starts, run_len) + 1  # 1.. within query
        info = {"mask": relmask, "rq": rq, "rpos": rpos, "first": first, "count": count,
                "num_rel": self.judged.num_rel(t).astype(np.float64)}
        if self.group_bounds is not None:
            info.update(self._group_rel(relmask))
        self._rel[t] = info
        return info

    def gain_rows(self):
        """Rows with a positive (expected) gain and their gains; sparse, since judged
        rows are few (ties="expected" spreads a group's gain over its rows)."""
        if self._gain_rows is None:
            g = self.grades if self.group_bounds is None else self.gains()
            rows = np.flatnonzero(g > 0)  # NaN > 0 is False
            self._gain_rows = (rows, g[rows])
        return self._gain_rows

    def gains(self) -> np.ndarray:
        if self._gain is None:
            g = np.where(self.grades > 0, self.grades, 0.0)  # NaN > 0 is False
            if self.group_bounds is not None:  # expected gain: the tie group's mean
                gs = self.group_bounds[:-1]
                size = np.diff(self.group_bounds)
                g = np.repeat(np.add.reduceat(g, gs) / size, size) if g.size else g
            self._gain = g
        return self._gain

    def ideal(self, k) -> np.ndarray:
        if self._ideal is None:
            self._ideal = _ideal_terms(self.judged)
        return _ideal_dcg(self._ideal, k, self.n_q)

    # -- tie groups (ties="realistic" / "expected") ---------------------------
    def groups(self):
        gb = self.group_bounds
        gs = gb[:-1]
        return gs, np.diff(gb), self.qidx[gs], self.pos[gs]

    def _group_rel(self, relmask) -> dict:
        gs, gm, gq, gstart = self.groups()
        gr = np.add.reduceat(relmask.astype(np.int64), gs) if gs.size else np.zeros(0, np.int64)
        has = np.flatnonzero(gr > 0)
        hq = gq[has]
        firsts = has[np.concatenate(([True], hq[1:] != hq[:-1]))] if has.size else has
        return {"gr": gr, "first_group": firsts}


def _ideal_terms(j: Judged):
    """(query, position, gain / log2(position + 1)) of every judged row with a gain."""
    jq = np.repeat(np.arange(j.query_ids.size), np.diff(j.offsets))
    jpos = np.arange(j.grades.size) - j.offsets[:-1][jq] + 1
    pos_gain = j.grades > 0
    return jq[pos_gain], jpos[pos_gain], j.grades[pos_gain] / np.log2(jpos[pos_gain] + 1.0)


def _ideal_dcg(terms, k, n_q) -> np.ndarray:
    """Ideal DCG per query at cutoff ``k`` (None: all judged)."""
    jq, jpos, w = terms
    keep = jpos <= (k if k is not None else _INF_DEPTH)
    return np.bincount(jq[keep], weights=w[keep], minlength=n_q)


def _divide(num, den):
    out = np.zeros_like(num, dtype=np.float64)
    np.divide(num, den, out=out, where=den > 0)
    return out


def _deterministic(m: Measure, L: _Layout, t: int) -> np.ndarray:
    depth = min(m.k if m.k is not None else _INF_DEPTH, L.max_depth)
    if m.name == "nDCG":
        return _ndcg(m, L, depth)
    info = L.rel_info(t)
    first = info["first"]
    if m.name == "RR":
        return np.where(first <= depth, 1.0 / first, 0.0)
    if m.name == "Rank":
        return np.where(first <= depth, first, np.inf)
    if m.name == "Success":
        return (first <= depth).astype(np.float64)
    sel = info["rpos"] <= depth
    if m.name in ("P", "R"):
        hits = np.bincount(info["rq"][sel], minlength=L.n_q).astype(np.float64)
        return hits / m.k if m.name == "P" else _divide(hits, info["num_rel"])
    if m.name == "AP":
        prec = info["count"][sel] / info["rpos"][sel]
        total = np.bincount(info["rq"][sel], weights=prec, minlength=L.n_q)
        return _divide(total, info["num_rel"])
    raise AssertionError(m.name)  # pragma: no cover


def _first_group(L: _Layout, t: int):
    info = L.rel_info(t)
    gs, gm, gq, gstart = L.groups()
    fg = info["first_group"]
    return gq[fg], gstart[fg].astype(np.float64), gm[fg].astype(np.float64), \
        info["gr"][fg].astype(np.float64)


def _realistic(m: Measure, L: _Layout, t: int) -> np.ndarray:
    if m.name not in ("RR", "Rank", "Success"):
        raise ParameterError(
            f"ties='realistic' defines the rank of the first relevant document only; {m} is "
            "not a function of that rank. Use ties='expected' (exact expectation over random "
            "tie-breaking), 'optimistic' or 'pessimistic'.")
    depth = min(m.k if m.k is not None else _INF_DEPTH, L.max_depth)
    q, s, size, r = _first_group(L, t)
    rank = np.full(L.n_q, np.inf)
    # optimistic s, pessimistic s + size - r: realistic is their mean
    rank[q] = s + (size - r) / 2.0
    if m.name == "Rank":
        return np.where(rank <= depth, rank, np.inf)
    if m.name == "Success":
        return (rank <= depth).astype(np.float64)
    return np.where(rank <= depth, 1.0 / rank, 0.0)


def _expected(m: Measure, L: _Layout, t: int) -> np.ndarray:
    depth = min(m.k if m.k is not None else _INF_DEPTH, L.max_depth)
    if m.name == "nDCG":
        return _ndcg(m, L, depth)
    info = L.rel_info(t)
    gs, gm, gq, gstart = L.groups()
    gr = info["gr"]
    if m.name in ("P", "R"):
        # expected relevant documents in the top `depth`: r * (#positions of the group kept) / m
        kept = np.clip(depth - gstart + 1, 0, gm)
        hits = np.bincount(gq, weights=gr * kept / gm, minlength=L.n_q)
        return hits / m.k if m.name == "P" else _divide(hits, info["num_rel"])
    if m.name == "AP":
        return _expected_ap(L, info, depth)
    q, s, size, r = _first_group(L, t)
    out = np.zeros(L.n_q)
    if m.name == "Rank":
        if m.k is not None or L.max_depth != _INF_DEPTH:
            raise ParameterError("Rank with a cutoff is not defined under ties='expected' "
                             "(the expectation would mix finite and infinite ranks)")
        out[:] = np.inf
        # E[first success among r in m random positions] = (m + 1) / (r + 1)
        out[q] = s - 1 + (size + 1) / (r + 1)
        return out
    # Number of positions j = 1..J of the group that are within the cutoff and can hold
    # the first relevant document (j <= size - r + 1).
    avail = np.clip(depth - s + 1, 0, size)
    if m.name == "Success":
        # 1 - P(no relevant in the first `avail` positions) (hypergeometric)
        none = np.where(avail <= size - r,
                        np.exp(_log_comb(size - r, np.minimum(avail, size - r))
                               - _log_comb(size, avail)), 0.0)
        out[q] = np.where(avail > 0, 1.0 - none, 0.0)
        return out
    # RR: E[1/(s - 1 + K) ; s - 1 + K <= depth], P(K = j) = C(size-j, r-1) / C(size, r)
    J = np.minimum(avail, size - r + 1).astype(np.int64)
    one = r == 1
    val = np.zeros(q.size)
    if one.any():  # uniform K: (H(s-1+J) - H(s-1)) / size
        s1 = s[one].astype(np.int64)
        val[one] = (harmonic(s1 - 1 + J[one]) - harmonic(s1 - 1)) / size[one]
        single = one & (size == 1)
        val[single] = np.where(J[single] > 0, 1.0 / s[single], 0.0)
    many = np.flatnonzero(~one & (J > 0))
    if many.size:
        Jm = J[many]
        rep = np.repeat(np.arange(many.size), Jm)
        j = np.arange(Jm.sum()) - np.repeat(np.cumsum(Jm) - Jm, Jm) + 1.0
        mm, rr, ss = size[many][rep], r[many][rep], s[many][rep]
        p = np.exp(_log_comb(mm - j, rr - 1) - _log_comb(mm, rr))
        val[many] = np.bincount(rep, weights=p / (ss - 1 + j), minlength=many.size)
    out[q] = val
    return out


def _ndcg(m: Measure, L: _Layout, depth) -> np.ndarray:
    """DCG over the top ``depth`` / ideal DCG at the measure's own cutoff."""
    rows, gain = L.gain_rows()
    pos = L.pos[rows]
    keep = pos <= depth
    dcg = np.bincount(L.qidx[rows[keep]], weights=gain[keep] / np.log2(pos[keep] + 1.0),
                      minlength=L.n_q)
    return _divide(dcg, L.ideal(m.k))


def _expected_ap(L: _Layout, info: dict, depth) -> np.ndarray:
    """Tie-aware AP (McSherry & Najork 2008), summed per document position.

    A relevant document of a tie group of size m with r relevant, c documents
    ranked above the group and rc of them relevant, placed uniformly at position
    p of the group, has expected precision (rc + 1 + (p-1)(r-1)/(m-1)) / (c + p).
    Each position p of the group carries that term times r/m.
    """
    gs, gm, gq, gstart = L.groups()
    gr = info["gr"].astype(np.float64)
    excl = np.cumsum(gr) - gr
    first_of_q = np.searchsorted(gq, gq, side="left")
    rc = excl - excl[first_of_q]
    rows_r = np.repeat(gr, gm)
    rows_m = np.repeat(gm.astype(np.float64), gm)
    rows_rc = np.repeat(rc, gm)
    rows_c = np.repeat(gstart - 1, gm).astype(np.float64)
    p = (L.pos - np.repeat(gstart, gm) + 1).astype(np.float64)
    keep = (rows_r > 0) & (L.pos <= depth)
    r, mm, rcc, c, pp = rows_r[keep], rows_m[keep], rows_rc[keep], rows_c[keep], p[keep]
    inner = rcc + 1 + (pp - 1) * (r - 1) / np.maximum(mm - 1, 1)
    term = (r / mm) * inner / (c + pp)
    total = np.bincount(L.qidx[keep], weights=term, minlength=L.n_q)
    return _divide(total, info["num_rel"])


def compute_measures(measures, *, offsets, grades, judged: Judged, ties: str = "trec_eval",
                     group_bounds=None, max_depth=None, rel: int = 1) -> dict[str, np.ndarray]:
    """Per-query values of several measures on flat rankings (internal workhorse).

    ``offsets``/``grades`` describe rankings in rank order; ``group_bounds`` the
    tie groups for ``ties`` "realistic"/"expected". Returns canonical measure
    name -> array of per-query values.
    """
    measures = measures_iv(measures)
    if any(m.name == "Judged" for m in measures):  # a share of judged rows: metrics.judged
        gb = group_bounds if ties in ("realistic", "expected") else None
        judged_m = {str(m): judged_at_k(offsets, grades, k=m.k, max_depth=max_depth,
                                        group_bounds=gb) for m in measures if m.name == "Judged"}
        rest = [m for m in measures if m.name != "Judged"]
        out = compute_measures(rest, offsets=offsets, grades=grades, judged=judged, ties=ties,
                               group_bounds=group_bounds, max_depth=max_depth, rel=rel) \
            if rest else {}
        return {str(m): judged_m[str(m)] if m.name == "Judged" else out[str(m)]
                for m in measures}
    if any(m.name == "nDCG" and m.param == "exp" for m in measures):
        return _with_exp_gains(measures, offsets=offsets, grades=grades, judged=judged,
                               ties=ties, group_bounds=group_bounds, max_depth=max_depth,
                               rel=rel)
    if ties not in ("realistic", "expected") and np.size(grades) >= COMPILED_MIN_ROWS and \
            compiled.usable() and any(m.name in _KINDS for m in measures):
        fast = [m for m in measures if m.name in _KINDS]
        out = compiled_measures(fast, offsets=offsets, grades=grades, judged=judged,
                                max_depth=max_depth, rel=rel)
        rest = [m for m in measures if m.name not in _KINDS]  # trec_measures: numpy
        if rest:
            out.update(compute_measures(rest, offsets=offsets, grades=grades, judged=judged,
                                        ties=ties, max_depth=max_depth, rel=rel))
        return {str(m): out[str(m)] for m in measures}
    L = _Layout(offsets, grades, judged, group_bounds if ties in ("realistic", "expected")
                else None, max_depth)
    out: dict[str, np.ndarray] = {}
    for m in measures:
        t = max(int(m.rel if m.rel is not None else rel), 1)
        if m.name in TREC_FAMILIES:
            values = trec_measure(m, L, t, ties)
        elif ties == "realistic":
            values = _realistic(m, L, t)
        elif ties == "expected":
            values = _expected(m, L, t)
        else:
            values = _deterministic(m, L, t)
        out[str(m)] = values
    return out


def _with_exp_gains(measures, *, offsets, grades, judged, ties, group_bounds, max_depth, rel):
    """``nDCG(gain=exp)@k`` (gdeval's): trec_eval's nDCG of the gains 2^grade - 1 (grades
    above 0), on the same rankings; the other measures as usual."""
    exp = [m for m in measures if m.name == "nDCG" and m.param == "exp"]
    rest = [m for m in measures if m not in exp]
    g = np.asarray(grades, dtype=np.float64)
    jg = np.asarray(judged.grades)
    exp_judged = dataclasses.replace(
        judged, grades=np.where(jg > 0, np.exp2(jg.astype(np.float64)) - 1.0, jg))
    plain = [Measure("nDCG", m.k, m.rel) for m in exp]
    kw = {"offsets": offsets, "ties": ties, "group_bounds": group_bounds,
          "max_depth": max_depth, "rel": rel}
    out = compute_measures(plain, grades=np.where(g > 0, np.exp2(g) - 1.0, g),
                           judged=exp_judged, **kw)
    values = {str(m): out[str(p)] for m, p in zip(exp, plain, strict=True)}
    if rest:
        values.update(compute_measures(rest, grades=grades, judged=judged, **kw))
    return {str(m): values[str(m)] for m in measures}


def score_ranked_run(ranked: RankedRun, measures: MeasuresInput, *, rel: int = 1) -> pd.DataFrame:
    """Per-query measures of a :class:`RankedRun` (rows: its queries)."""
    values = ranked_values(ranked, measures, rel=rel)
    frame = pd.DataFrame(values, index=pd.Index(ranked.query_ids, name="query"))
    frame.columns.name = "measure"
    return frame


def ranked_values(ranked: RankedRun, measures, *, rel: int = 1) -> dict:
    """The columns of :func:`score_ranked_run` (``{measure name: array}``, rows in the
    order of ``ranked.query_ids``), without the frame."""
    if not isinstance(ranked, RankedRun):
        raise ParameterTypeError(f"`ranked` must be a RankedRun (from mrrstats.rank_run), got "
                                 f"{type(ranked).__name__}", name="ranked")
    rel = int_iv(rel, "rel")
    with no_hugepage_madvise():
        return compute_measures(measures, offsets=ranked.offsets, grades=ranked.grades,
                                judged=ranked.judged, ties=ranked.ties,
                                group_bounds=ranked.group_bounds, max_depth=ranked.max_depth,
                                rel=rel)


def _grade_lists(lists, name, dtype):
    """A sequence of 1-D numeric arrays (NaN allowed in rankings: unjudged)."""
    if isinstance(lists, str | bytes | Mapping) or not isinstance(lists, Sequence | np.ndarray):
        raise ParameterTypeError(f"`{name}` must be a sequence of grade lists, one per query, "
                                 f"got {type(lists).__name__}", name=name)
    out = []
    for i, r in enumerate(lists):
        try:
            a = np.asarray(r, dtype=np.float64)
        except (TypeError, ValueError):
            raise ParameterTypeError(f"`{name}[{i}]` must be a list of numeric grades",
                                     name=name) from None
        if a.ndim != 1:
            raise ParameterError(f"`{name}[{i}]` must be 1-D (grades in rank order), got shape "
                                 f"{a.shape}", name=name)
        if dtype is np.int64:
            if not np.isfinite(a).all() or (a != np.floor(a)).any():
                raise ParameterError(f"`{name}[{i}]` must hold whole-number grades",
                                     name=name)
            a = a.astype(np.int64)
        out.append(a)
    return out


def score_rankings(rankings: Sequence, measures: MeasuresInput, *, judged: Sequence, rel: int = 1,
                   query_ids: Sequence[str] | None = None) -> pd.DataFrame:
    """Measures of rankings given as grade lists (for perturbations and teaching).

    Parameters
    ----------
    rankings : sequence of array-like
        Per query, the grade of each retrieved document in rank order; NaN (or
        any value <= 0) for non-relevant or unjudged documents.
    measures : str, Measure or sequence of them
    judged : sequence of array-like, keyword-only
        Per query, all judged grades of the query (for the number of relevant
        documents and the ideal DCG).
    rel : int, keyword-only
        Minimum grade that is relevant (default 1).
    query_ids : sequence of str, optional, keyword-only
        Row labels; default ``0, 1, ...``.

    Returns
    -------
    pandas.DataFrame
        One row per query, one column per canonical measure name.

    Examples
    --------
    >>> from mrrstats import score_rankings
    >>> score_rankings([[0, 1, 0, 1]], ["RR", "AP", "P@2"], judged=[[1, 1, 0]]).round(4)
    measure   RR    AP  P@2
    query
    0        0.5  0.50  0.5
    """
    rel = int_iv(rel, "rel")
    rankings = _grade_lists(rankings, "rankings", np.float64)
    judged = _grade_lists(judged, "judged", np.int64)
    if query_ids is not None:
        if isinstance(query_ids, str | bytes) or not isinstance(query_ids, Sequence | np.ndarray):
            raise ParameterTypeError("`query_ids` must be a sequence of labels, one per ranking",
                                     name="query_ids")
        if asarray_iv(query_ids, "query_ids").ndim != 1 or len(query_ids) != len(rankings):
            raise ParameterError(f"`query_ids` must hold one label per ranking "
                                 f"({len(rankings)}), got shape {np.shape(query_ids)}",
                                 name="query_ids")
    if len(rankings) != len(judged):
        raise ParameterError(f"`rankings` has {len(rankings)} queries but `judged` {len(judged)}")
    lens = np.array([len(r) for r in rankings], dtype=np.int64)
    offsets = np.concatenate(([0], np.cumsum(lens)))
    grades = np.concatenate(rankings) \
        if len(rankings) else np.zeros(0)
    jl = [np.sort(j)[::-1] for j in judged]
    jlens = np.array([j.size for j in jl], dtype=np.int64)
    joff = np.concatenate(([0], np.cumsum(jlens)))
    jgr = np.concatenate(jl) if jl else np.zeros(0, np.int64)
    ids = np.arange(len(rankings)) if query_ids is None else np.asarray(query_ids, dtype=object)
    values = compute_measures(measures, offsets=offsets, grades=grades,
                              judged=Judged(np.asarray(ids, dtype=object), joff, jgr), rel=rel)
    frame = pd.DataFrame(values, index=pd.Index(ids, name="query"))
    frame.columns.name = "measure"
    return frame


# ---------------------------------------------------------------------------
# Compiled path (numba): every measure of a query in one pass over its rows
# ---------------------------------------------------------------------------
#: Rankings with fewer rows keep the numpy path (the compiled one pays its start-up).
COMPILED_MIN_ROWS = 1 << 16
_KINDS = {"RR": 0, "Rank": 1, "Success": 2, "P": 3, "R": 4, "AP": 5, "nDCG": 6}
prange = range  # numba.prange once compiled


def _measures_py(offsets, grades, kind, depth, thresh, cut, num_rel, ideal, log2, out):
    """``out[m, q]``: measure ``m`` of query ``q`` (ties already broken: rank order).

    One pass over the query's rows up to the deepest cutoff; only rows with a
    positive grade add anything (NaN and grades <= 0 are skipped). The sums run in
    rank order, as ``numpy.bincount`` adds them on the numpy path, and every term is
    the same IEEE operation (``log2`` comes from numpy's table), so the values are
    identical to the last bit.
    """
    n_m = kind.size
    deepest = 0
    for m in range(n_m):
        if depth[m] > deepest:
            deepest = depth[m]
    for q in prange(offsets.size - 1):
        o0 = offsets[q]
        stop = offsets[q + 1]
        if stop - o0 > deepest:
            stop = o0 + deepest
        first = np.zeros(n_m, np.int64)
        count = np.zeros(n_m, np.int64)
        acc = np.zeros(n_m, np.float64)
        for p in range(o0, stop):
            g = grades[p]
            if not g > 0:
                continue
            pos = p - o0 + 1
            for m in range(n_m):
                if pos > depth[m]:
                    continue
                if kind[m] == 6:
                    acc[m] += g / log2[pos]
                elif g >= thresh[m]:
                    count[m] += 1
                    if first[m] == 0:
                        first[m] = pos
                    if kind[m] == 5:
                        acc[m] += count[m] / pos
        for m in range(n_m):
            k = kind[m]
            if k == 0:
                out[m, q] = 1.0 / first[m] if first[m] > 0 else 0.0
            elif k == 1:
                out[m, q] = first[m] if first[m] > 0 else np.inf
            elif k == 2:
                out[m, q] = 1.0 if first[m] > 0 else 0.0
            elif k == 3:
                out[m, q] = count[m] / cut[m]
            elif k == 4:
                r = num_rel[m, q]
                out[m, q] = count[m] / r if r > 0 else 0.0
            elif k == 5:
                r = num_rel[m, q]
                out[m, q] = acc[m] / r if r > 0 else 0.0
            else:
                d = ideal[m, q]
                out[m, q] = acc[m] / d if d > 0 else 0.0


_MEASURE_KERNELS: dict = {}


def _measure_kernels():
    mod = compiled.native()
    if mod is not None:  # compiled ahead of time: numba not imported
        return compiled.Native(mod.measures), None
    global prange
    k = _MEASURE_KERNELS.get("k")
    if k is None:
        prange = compiled.prange()
        k = _MEASURE_KERNELS["k"] = compiled.pair(_measures_py)
    return k


def compiled_measures(measures, *, offsets, grades, judged: Judged, max_depth=None,
                      rel: int = 1, workers=None) -> dict[str, np.ndarray]:
    """:func:`compute_measures` for rankings in rank order (ties broken: every convention
    but "realistic" and "expected"), compiled and parallel over queries; the same
    values to the last bit. ``workers``: threads (None or -1: all)."""
    measures = measures_iv(measures)
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    grades = np.ascontiguousarray(grades, dtype=np.float64)
    n_q = offsets.size - 1
    n_m = len(measures)
    max_d = _INF_DEPTH if max_depth is None else int(max_depth)
    kind = np.array([_KINDS[m.name] for m in measures], dtype=np.int64)
    depth = np.array([min(m.k if m.k is not None else _INF_DEPTH, max_d) for m in measures],
                     dtype=np.int64)
    thresh = np.array([max(int(m.rel if m.rel is not None else rel), 1) for m in measures],
                      dtype=np.float64)
    cut = np.array([m.k if m.k is not None else 1 for m in measures], dtype=np.float64)
    num_rel = np.zeros((n_m, n_q))
    ideal = np.zeros((n_m, n_q))
    by_t: dict = {}
    terms = None
    for i, m in enumerate(measures):
        if m.name in ("R", "AP"):
            t = int(thresh[i])
            if t not in by_t:
                by_t[t] = judged.num_rel(t).astype(np.float64)
            num_rel[i] = by_t[t]
        elif m.name == "nDCG":
            terms = _ideal_terms(judged) if terms is None else terms
            ideal[i] = _ideal_dcg(terms, m.k, n_q)
    longest = int(np.diff(offsets).max()) if n_q else 0
    log2 = np.log2(np.arange(min(longest, int(depth.max()) if n_m else 0) + 1,
                             dtype=np.float64) + 1.0)  # log2[pos] = log2(pos + 1)
    out = np.empty((n_m, n_q))
    if n_q and n_m:
        compiled.launch(*_measure_kernels(), workers, offsets, grades, kind, depth, thresh,
                        cut, num_rel, ideal, log2, out)
    return {str(m): out[i] for i, m in enumerate(measures)}


def _relevant_retrieved_py(offsets, grades, rel, depth, out):
    """Rows with a grade >= ``rel`` among the first ``depth`` of each query."""
    for q in prange(offsets.size - 1):
        stop = offsets[q + 1]
        if stop - offsets[q] > depth:
            stop = offsets[q] + depth
        n = 0
        for p in range(offsets[q], stop):
            n += grades[p] >= rel
        out[q] = n


def relevant_retrieved(offsets, grades, *, rel: int, max_depth=None, workers=None):
    """Relevant documents retrieved per query (grade >= ``rel``, within ``max_depth``),
    compiled; None where numba is missing."""
    mod = compiled.native()
    if mod is not None:
        k = compiled.Native(mod.relevant_retrieved), None
    elif not compiled.available():
        return None
    else:
        k = _MEASURE_KERNELS.get("rr")
    if k is None:
        _measure_kernels()
        k = _MEASURE_KERNELS["rr"] = compiled.pair(_relevant_retrieved_py)
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    out = np.empty(offsets.size - 1, np.int64)
    depth = _INF_DEPTH if max_depth is None else int(max_depth)
    grades = np.ascontiguousarray(grades, dtype=np.float64)
    compiled.launch(*k, workers, offsets, grades, float(rel), depth, out)
    return out
