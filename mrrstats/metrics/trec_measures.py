"""trec_eval's other per-query measures, vectorised over flat rankings.

Each function follows the trec_eval 10.0 source file named beside it
(usnistgov/trec_eval, ``m_<name>.c``), so that values match ``trec_eval -q -m
all_trec`` per query to its printed precision. With ``t`` the relevance
threshold (grade >= t is relevant), ``R`` the number of judged relevant
documents, ``N`` the number of judged non-relevant ones (0 <= grade < t),
``n`` the number of documents retrieved (after ``max_depth``) and ``a`` the
relevant ones among them:

* ``NumRet = n``, ``NumRel = R``, ``NumRelRet = a``; ``SetP = a / n``,
  ``SetR = a / R``, ``SetF = (beta + 1) P R / (beta P + R)`` (0 when ``a = 0``);
* ``Rprec = #relevant in the top min(R, n) / R``;
* ``Bpref = (1/R) sum_{relevant retrieved d} (1 - min(N_d, R) / min(N, R))``, ``N_d``
  the judged non-relevant documents above ``d`` (the term is 1 when ``N_d = 0``);
  unjudged documents and qrels grades < 0 are skipped;
* ``infAP`` (Yilmaz & Aslam 2006), trec_eval's estimate: qrels grades < 0 are
  pooled but unjudged, documents not in the qrels outside the pool;
* ``IPrec@r``: the largest precision at a rank at or below the rank where recall
  reaches ``lround(r R) / R`` (0 when that recall is never reached);
* ``RBP(p)@k = (1 - p) sum_{rank <= k} gain p^(rank - 1)``, gains the grades
  divided by the topic's highest judged grade when it exceeds 1 (trec_eval's
  scaling into [0, 1]) or, with an explicit ``rel``, 1 for grade >= rel;
  ``RBPResid(p)``: ``p^n + (1 - p) sum_{unjudged d} p^(rank(d) - 1)`` when some
  retrieved document is unjudged, else 0;
* ``Rndcg``: the mean of ``nDCG@B`` over the boundaries ``B`` between the positive
  grade levels of the ideal ranking, plus ``DCG@n / IDCG`` when the ranking goes on
  past the last positive judged document by more than one (``m_Rndcg.c``).

And gdeval.pl's (TREC Web track 2010-2014, version 1.2a as shipped with ir_measures)
``ERR@k = sum_{i <= k} R_i prod_{j < i} (1 - R_j) / i`` with ``R = (2^g - 1) / 2^4``
for grades ``g`` in 1..4 (0 otherwise).
"""

from __future__ import annotations

from typing import cast

import numpy as np

from ..errors import InputError, ParameterError
from .measures import Measure

__all__ = ["TREC_FAMILIES", "trec_measure"]

#: The families computed here (the others are in :mod:`mrrstats.metrics.kernels`).
TREC_FAMILIES = frozenset(
    {
        "Bpref",
        "Rprec",
        "infAP",
        "IPrec",
        "SetP",
        "SetR",
        "SetF",
        "NumRet",
        "NumRel",
        "NumRelRet",
        "RBP",
        "RBPResid",
        "Rndcg",
        "ERR",
    }
)
#: Families with an exact expectation over random tie-breaking (linear in the ranking, and
#: Bpref: its ``_expected_bpref``).
_EXPECTED = frozenset(
    {"Rprec", "SetP", "SetR", "SetF", "NumRet", "NumRel", "NumRelRet", "RBP", "Bpref"}
)
#: trec_eval's ``INFAP_EPSILON`` (trec_eval.h).
INFAP_EPSILON = 0.00001


def _divide(num, den):
    out = np.zeros(np.shape(num), dtype=np.float64)
    np.divide(num, den, out=out, where=den > 0)
    return out


def _depth(m: Measure, L) -> int:
    k = m.k if (m.k is not None and m.spec.cutoff == "rank") else None
    return min(k if k is not None else L.max_depth, L.max_depth)


def _num_ret(L, depth) -> np.ndarray:
    return np.minimum(np.diff(L.offsets), depth).astype(np.float64)


def _num_nonrel(judged, t: int) -> np.ndarray:
    """Judged non-relevant documents per query (0 <= grade < t), as trec_eval counts them."""
    if getattr(judged, "lengths", None) is not None:  # flat rows: all judged, grades > 0 kept
        return (judged.num_judged() - judged.num_rel(t)).astype(np.float64)
    q = np.repeat(np.arange(judged.query_ids.size), np.diff(judged.offsets))
    keep = (judged.grades >= 0) & (judged.grades < t)
    return np.bincount(q[keep], minlength=judged.query_ids.size).astype(np.float64)


def _counts_before(mask, L) -> np.ndarray:
    """Per row, how many rows of its query above it have ``mask`` set."""
    cs = np.concatenate(([0], np.cumsum(mask, dtype=np.int64)))
    return cs[:-1] - cs[L.offsets[:-1]][L.qidx]


def _rel_hits(L, t, depth):
    """Relevant rows (grade >= t) within ``depth``: their query, position, and count per query."""
    info = L.rel_info(t)
    sel = info["rpos"] <= depth
    return info, sel, np.bincount(info["rq"][sel], minlength=L.n_q).astype(np.float64)


def _expected_hits(L, t, depth) -> np.ndarray:
    """Expected relevant rows within ``depth`` (scalar or per query) over random tie order."""
    info = L.rel_info(t)
    gs, gm, gq, gstart = L.groups()
    d = depth[gq] if np.ndim(depth) else depth
    kept = np.clip(d - gstart.astype(np.int64) + 1, 0, gm)
    return np.bincount(gq, weights=info["gr"] * kept / gm, minlength=L.n_q)


def _set_measure(m: Measure, hits, num_ret, num_rel) -> np.ndarray:
    if m.name == "NumRelRet":
        return hits
    if m.name == "SetP":
        return _divide(hits, num_ret)
    if m.name == "SetR":
        return _divide(hits, num_rel)
    # SetF: (x + 1) P R / (x P + R) = (x + 1) a / (x R + n), 0 when nothing relevant is retrieved
    x = _number(m)
    p = _divide(hits, num_ret)
    r = _divide(hits, num_rel)
    out = np.zeros(hits.size)
    ok = hits > 0
    out[ok] = (x + 1.0) * p[ok] * r[ok] / (x * p[ok] + r[ok])
    return out


def _number(m: Measure) -> float:
    """The numeric parameter of ``m`` (``Measure`` fills in its family's default)."""
    return float(cast("float", m.param))


def _rbp_gains(m: Measure, L, grades) -> np.ndarray:
    """Per row, RBP's gain: 1 for grade >= rel (explicit ``rel``), else trec_eval's scaled
    grade (grade / the topic's highest judged grade where that exceeds 1)."""
    if m.rel is not None:
        return (grades >= m.rel).astype(np.float64)
    g = np.where(grades > 0, grades, 0.0)  # NaN > 0 is False
    j = L.judged
    lens = np.diff(j.offsets)
    top = np.zeros(L.n_q)
    has = lens > 0
    top[has] = j.grades[j.offsets[:-1][has]]  # grades sorted best first
    scale = np.where(top > 1, top, 1.0)
    return g / scale[L.qidx]


def _rbp(m: Measure, L, depth, gains) -> np.ndarray:
    keep = (L.pos <= depth) & (gains != 0)
    p = _number(m)
    w = gains[keep] * np.power(p, L.pos[keep] - 1.0)
    return (1.0 - p) * np.bincount(L.qidx[keep], weights=w, minlength=L.n_q)


def _rbp_resid(m: Measure, L, depth) -> np.ndarray:
    g = L.grades
    unj = ~(g >= 0) & (L.pos <= depth)  # NaN (not in the qrels) or a grade < 0 (pooled)
    p = _number(m)
    total = np.bincount(L.qidx[unj], weights=np.power(p, L.pos[unj] - 1.0), minlength=L.n_q)
    any_unj = np.bincount(L.qidx[unj], minlength=L.n_q) > 0
    n = _num_ret(L, depth)
    return np.where(any_unj, np.power(p, n) + (1.0 - p) * total, 0.0)


def _bpref(L, t, depth) -> np.ndarray:
    g = L.grades
    inside = L.pos <= depth
    judged = (g >= 0) & inside  # NaN and grades < 0: skipped
    nonrel = judged & (g < t)
    rel = judged & (g >= t)
    before = _counts_before(nonrel, L)[rel].astype(np.float64)
    q = L.qidx[rel]
    num_rel = L.judged.num_rel(t).astype(np.float64)
    denom = np.minimum(_num_nonrel(L.judged, t), num_rel)[q]
    term = np.ones(q.size)
    some = before > 0
    term[some] = 1.0 - np.minimum(before[some], num_rel[q][some]) / denom[some]
    return _divide(np.bincount(q, weights=term, minlength=L.n_q), num_rel)


def _expected_bpref(L, t, depth) -> np.ndarray:
    """Bpref's exact expectation over random tie-breaking.

    A relevant judged document ``d`` of a tie group with ``u`` judged non-relevant
    documents, below ``c`` judged non-relevant documents of the groups above, has
    ``N_d = c + J`` with ``J`` uniform on ``0..u`` (the order of ``d`` among those ``u``
    is uniform; other documents do not matter); so each of the group's relevant
    documents adds ``(1/(u+1)) sum_j f(c + j)``, ``f`` Bpref's term.
    """
    g = L.grades
    gs, gm, gq, gstart = L.groups()
    inside = L.pos <= depth
    judged = (g >= 0) & inside
    nonrel = judged & (g < t)
    rel = judged & (g >= t)
    u = np.add.reduceat(nonrel.astype(np.int64), gs) if gs.size else np.zeros(0, np.int64)
    r = np.add.reduceat(rel.astype(np.int64), gs) if gs.size else np.zeros(0, np.int64)
    gend = gstart + gm.astype(np.int64) - 1
    rel_all = np.add.reduceat((g >= t).astype(np.int64), gs) if gs.size else r
    if np.any((rel_all > 0) & (gstart <= depth) & (gend > depth)):  # cut by max_depth
        raise ParameterError(
            "Bpref under ties='expected' with max_depth cutting a tie group that holds a "
            "relevant document is not available; use another tie convention or no max_depth"
        )
    c = _counts_before(nonrel, L)[gs]  # judged non-relevant above the group
    num_rel = L.judged.num_rel(t).astype(np.float64)
    denom = np.minimum(_num_nonrel(L.judged, t), num_rel)
    has = np.flatnonzero(r > 0)
    reps = u[has] + 1
    grp = np.repeat(has, reps)
    jj = np.arange(reps.sum()) - np.repeat(np.cumsum(reps) - reps, reps)
    before = (c[grp] + jj).astype(np.float64)
    q = gq[grp]
    term = np.ones(grp.size)
    some = before > 0
    term[some] = 1.0 - np.minimum(before[some], num_rel[q][some]) / denom[q][some]
    w = r[grp] * term / reps.repeat(reps)
    return _divide(np.bincount(q, weights=w, minlength=L.n_q), num_rel)


def _infap(L, t, depth) -> np.ndarray:
    g = L.grades
    inside = L.pos <= depth
    judged = (g >= 0) & inside
    nonrel = judged & (g < t)
    rel = judged & (g >= t)
    pooled = (g < 0) & inside  # in the qrels with a grade < 0: pooled, not judged
    rel_so_far = (_counts_before(rel, L)[rel] + 1).astype(np.float64)
    nonrel_so_far = _counts_before(nonrel, L)[rel].astype(np.float64)
    pool_so_far = _counts_before(pooled, L)[rel].astype(np.float64)
    j = (L.pos[rel] - 1).astype(np.float64)  # 0-based index among every ranked row
    term = np.ones(j.size)
    on = j > 0
    fj, r1, nr, pu = j[on], rel_so_far[on] - 1, nonrel_so_far[on], pool_so_far[on]
    term[on] = 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * ((r1 + nr + pu) / fj) * (
        (r1 + INFAP_EPSILON) / (r1 + nr + 2 * INFAP_EPSILON)
    )
    q = L.qidx[rel]
    return _divide(
        np.bincount(q, weights=term, minlength=L.n_q), L.judged.num_rel(t).astype(np.float64)
    )


def _lround(x):
    """C's ``lround`` for x >= 0 (halves away from zero), exactly."""
    f = np.floor(x)
    return f + (x - f >= 0.5)


def _iprec(m: Measure, L, t, depth) -> np.ndarray:
    info, sel, _ = _rel_hits(L, t, depth)
    cut = _lround(m.k * info["num_rel"])  # the recall level as a number of relevant documents
    rq, count, rpos = info["rq"][sel], info["count"][sel], info["rpos"][sel]
    keep = count >= np.maximum(cut, 1)[rq]
    out = np.zeros(L.n_q)
    np.maximum.at(out, rq[keep], count[keep] / rpos[keep])
    return out


def _rndcg(L, t, depth) -> np.ndarray:
    """Mean of DCG@B / IDCG@B over the level boundaries B (and DCG@n / IDCG past them).

    Each ratio's sums are ``numpy.bincount`` sums in rank order of the same terms
    ``g / log2(rank + 1)`` as nDCG's, so a ranking in ideal order scores exactly 1."""
    j = L.judged
    jq = np.repeat(np.arange(j.query_ids.size), np.diff(j.offsets))
    jpos = np.arange(j.grades.size) - j.offsets[:-1][jq] + 1
    pos_gain = j.grades > 0
    jq, jpos, jg = jq[pos_gain], jpos[pos_gain], j.grades[pos_gain].astype(np.float64)
    jw = jg / np.log2(jpos + 1.0)
    rows, gain = L.gain_rows()
    pos = L.pos[rows].astype(np.int64)
    keep = pos <= depth
    rows, pos = rows[keep], pos[keep]
    rq, rw = L.qidx[rows], gain[keep] / np.log2(pos + 1.0)
    # the last row of each (query, grade) run is a boundary B between ideal gain levels
    last = np.ones(jq.size, dtype=bool)
    if jq.size:
        last[:-1] = (jq[1:] != jq[:-1]) | (jg[1:] != jg[:-1])
    bq, bcut = jq[last], jpos[last]
    level = np.arange(bq.size) - np.searchsorted(bq, bq, side="left")  # 0, 1, ... per query
    total = np.zeros(L.n_q)
    num = np.zeros(L.n_q)

    def ratio(queries, cut_of_query):
        cut = np.zeros(L.n_q, dtype=np.int64)
        cut[queries] = cut_of_query
        dcg = np.bincount(rq, weights=np.where(pos <= cut[rq], rw, 0.0), minlength=L.n_q)
        idcg = np.bincount(jq, weights=np.where(jpos <= cut[jq], jw, 0.0), minlength=L.n_q)
        return _divide(dcg[queries], idcg[queries])

    for lv in range(int(level.max()) + 1 if level.size else 0):
        at = level == lv
        total[bq[at]] += ratio(bq[at], bcut[at])
        num[bq[at]] += 1
    # past the last positive judged document P: one more term, DCG@n / IDCG, when P + 1 < n
    n = _num_ret(L, depth)
    npos = np.bincount(jq, minlength=L.n_q)
    extra = np.flatnonzero((npos > 0) & (npos + 1 < n))
    if extra.size:
        full = np.full(extra.size, np.iinfo(np.int64).max // 4, dtype=np.int64)
        total[extra] += ratio(extra, full)
        num[extra] += 1
    out = _divide(total, num)
    return np.where(L.judged.num_rel(t) > 0, out, 0.0)


#: gdeval's ``$MAX_JUDGMENT``: ERR's stopping probability is (2^grade - 1) / 2^4.
ERR_MAX_GRADE = 4


def _err(L, depth) -> np.ndarray:
    """gdeval.pl's ERR@k: sum_i R_i prod_{j<i} (1 - R_j) / i, R = (2^g - 1) / 2^4."""
    g = L.grades
    rows = np.flatnonzero((g > 0) & (L.pos <= depth))  # NaN > 0 is False
    gr = g[rows]
    if gr.size and gr.max() > ERR_MAX_GRADE:
        raise InputError(
            f"ERR takes grades up to {ERR_MAX_GRADE} (gdeval's maximum judgment), found "
            f"{gr.max():g}"
        )
    r = (np.exp2(gr) - 1.0) / 2.0**ERR_MAX_GRADE
    q = L.qidx[rows]
    logs = np.log1p(-r)
    cs = np.concatenate(([0.0], np.cumsum(logs)))
    first = np.searchsorted(q, q, side="left")  # rows are in query order
    decay = np.exp(cs[:-1] - cs[first])  # prod of (1 - R_j) over earlier rows of the query
    return np.bincount(q, weights=r * decay / L.pos[rows], minlength=L.n_q)


def trec_measure(m: Measure, L, t: int, ties: str) -> np.ndarray:
    """Per-query values of ``m`` (a family of :data:`TREC_FAMILIES`) on the layout ``L``.

    ``t`` is the relevance threshold; ``ties`` the tie convention: every measure is
    defined on rankings in rank order; under ``"expected"`` those linear in the
    ranking (:data:`_EXPECTED`) are their exact expectation over random tie-breaking.
    """
    name = m.name
    depth = _depth(m, L)
    if ties == "realistic":
        raise ParameterError(
            f"ties='realistic' defines the rank of the first relevant document only; {m} is "
            "not a function of that rank. Use ties='expected', 'optimistic' or 'pessimistic'."
        )
    expected = ties == "expected"
    if expected and name not in _EXPECTED:
        raise ParameterError(
            f"{m} has no exact expectation over random tie-breaking here (ties='expected'); "
            f"use ties='trec_eval', 'optimistic' or 'pessimistic' (expected: "
            f"{', '.join(sorted(_EXPECTED))})"
        )
    if name == "NumRet":
        return _num_ret(L, depth)
    num_rel = L.judged.num_rel(t).astype(np.float64)
    if name == "NumRel":
        return num_rel
    if name in ("NumRelRet", "SetP", "SetR", "SetF"):
        hits = _expected_hits(L, t, depth) if expected else _rel_hits(L, t, depth)[2]
        return _set_measure(m, hits, _num_ret(L, depth), num_rel)
    if name == "Rprec":
        cut = np.minimum(num_rel, depth)  # rows past the ranking's end do not exist
        if expected:
            hits = _expected_hits(L, t, cut)
        else:
            info = L.rel_info(t)
            sel = info["rpos"] <= cut[info["rq"]]
            hits = np.bincount(info["rq"][sel], minlength=L.n_q).astype(np.float64)
        return _divide(hits, num_rel)
    if name == "RBP":
        grades = L.grades
        gains = _rbp_gains(m, L, grades)
        if expected:  # a tie group's positions share its mean gain
            gb = L.group_bounds
            size = np.diff(gb)
            gains = (
                np.repeat(np.add.reduceat(gains, gb[:-1]) / size, size) if gains.size else gains
            )
        return _rbp(m, L, depth, gains)
    if name == "RBPResid":
        return _rbp_resid(m, L, depth)
    if name == "Bpref":
        return _expected_bpref(L, t, depth) if expected else _bpref(L, t, depth)
    if name == "infAP":
        return _infap(L, t, depth)
    if name == "IPrec":
        return _iprec(m, L, t, depth)
    if name == "Rndcg":
        return _rndcg(L, t, depth)
    if name == "ERR":
        return _err(L, depth)
    raise AssertionError(name)  # pragma: no cover
