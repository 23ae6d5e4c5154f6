r"""Agreement between an LLM judge and people: on labels, and on conclusions.

* :func:`judge_agreement` -- per-label agreement (the confusion matrix by grade,
  Cohen's kappa unweighted, linearly and quadratically weighted and at the
  relevance threshold, Krippendorff's alpha for nominal, ordinal and interval
  grades) and, given runs, what matters for the conclusions: the agreement of
  the system rankings (Kendall's tau, tau_AP), the pairs of systems whose
  significance decision differs, and each system's mean shift.
* :func:`simulate_judge` -- a judge made from qrels by moving grades with a
  confusion matrix (for planning, teaching and the benchmarks).
* :func:`judge_confusion` -- the confusion matrix of a judge that moves a given
  share of the labels to an adjacent grade.

Labels are compared on the (query, document) pairs both sets of qrels judge;
conclusions on the queries both label (the judge's labels restricted to the
human-labelled queries), so both rankings are made on the same queries.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..defaults import ALPHA, CORRECTION, N_RESAMPLES, REL, TEST
from ..errors import ParameterError, ParameterTypeError
from ..io.trec import Qrels, qrels_iv
from ..metrics.evaluation import evaluate
from ..stats.methods_readers import methods_text
from ..validation import alpha_iv, float_iv, n_resamples_iv, rng_iv
from .decisions import decision_agreement
from .measures import ranking_agreement

if TYPE_CHECKING:
    from typing import Any

    from .._typing import MeasuresInput, QrelsInput, RunsInput, Seed
    from ..stats.methods import MethodsText

__all__ = ["JudgeAgreement", "SimulatedJudge", "judge_agreement", "judge_confusion",
           "simulate_judge", "cohen_kappa", "krippendorff_alpha", "LENIENT_SHARE"]

#: Share of a judge's moved labels that go up a grade (LLM judges are more often
#: lenient than strict: Thomas et al. 2024; Rahmani et al. 2025).
LENIENT_SHARE = 0.6
_LEVELS = ("nominal", "ordinal", "interval")
_WEIGHTS = (None, "linear", "quadratic")


# ---------------------------------------------------------------------------
# label statistics
# ---------------------------------------------------------------------------

def cohen_kappa(table, *, weights=None) -> float:
    r"""Cohen's kappa of a square contingency table (rows: rater 1, columns: rater 2).

    Parameters
    ----------
    table : array_like, (K, K)
        Counts; categories in their order (weights use the positions
        :math:`0..K-1`, as scikit-learn and statsmodels do).
    weights : {None, "linear", "quadratic"}, keyword-only
        Disagreement weights :math:`|i-j|` or :math:`(i-j)^2` (Cohen 1968).

    Notes
    -----
    :math:`\kappa = 1 - \sum_{ij} w_{ij} O_{ij} / \sum_{ij} w_{ij} E_{ij}` with
    :math:`O` the observed shares, :math:`E_{ij} = O_{i\cdot} O_{\cdot j}` and
    :math:`w_{ij} = [i \ne j]` unweighted. NaN when :math:`\sum w E = 0`.

    Examples
    --------
    >>> from mrrstats.agreement.judges import cohen_kappa
    >>> round(cohen_kappa([[20, 5], [10, 15]]), 4)
    0.4
    """
    O = np.asarray(table, dtype=np.float64)
    if O.ndim != 2 or O.shape[0] != O.shape[1]:
        raise ParameterError("`table` must be a square (K, K) table of counts")
    if not isinstance(weights, str | None) or weights not in _WEIGHTS:
        raise ParameterError(f"`weights` must be one of {_WEIGHTS}, got {weights!r}")
    total = O.sum()
    if total <= 0:
        return math.nan
    O = O / total
    E = np.outer(O.sum(axis=1), O.sum(axis=0))
    i, j = np.indices(O.shape)
    w = (i != j).astype(float) if weights is None else (
        np.abs(i - j).astype(float) if weights == "linear" else (i - j) ** 2.0)
    den = float((w * E).sum())
    return math.nan if den == 0 else 1.0 - float((w * O).sum()) / den


def krippendorff_alpha(a, b, *, level="ordinal", values=None) -> float:
    r"""Krippendorff's alpha of two raters who rated the same units (no missing value).

    Parameters
    ----------
    a, b : array_like, (n,)
        The two raters' values of each unit (numbers).
    level : {"nominal", "ordinal", "interval"}, keyword-only
    values : array_like, optional, keyword-only
        The value domain, sorted (default: the values seen). The ordinal
        metric counts the values of the domain between two values.

    Notes
    -----
    With the coincidence matrix :math:`o_{ck}` (each unit adds 1 to
    :math:`o_{ab}` and :math:`o_{ba}`), :math:`n_c = \sum_k o_{ck}`,
    :math:`n = \sum_c n_c`:
    :math:`\alpha = 1 - (n - 1) \sum_{ck} o_{ck} \delta^2_{ck} / \sum_{ck} n_c
    n_k \delta^2_{ck}` with :math:`\delta^2` 0/1 (nominal), :math:`(c-k)^2`
    (interval) or :math:`(\sum_{g=c}^{k} n_g - (n_c + n_k)/2)^2` (ordinal)
    (Krippendorff 2011, "Computing Krippendorff's alpha-reliability").

    Examples
    --------
    >>> from mrrstats.agreement.judges import krippendorff_alpha
    >>> round(krippendorff_alpha([0, 1, 2, 2, 0], [0, 1, 2, 1, 0], level="interval"), 4)
    0.8696
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise ParameterError("`a` and `b` must be 1-D arrays of the same length")
    if not isinstance(level, str | None) or level not in _LEVELS:
        raise ParameterError(f"`level` must be one of {_LEVELS}, got {level!r}")
    dom = np.unique(np.concatenate([a, b])) if values is None else np.asarray(values, float)
    ia, ib = np.searchsorted(dom, a), np.searchsorted(dom, b)
    K = dom.size
    o = np.zeros((K, K))
    np.add.at(o, (ia, ib), 1.0)
    o = o + o.T
    nc = o.sum(axis=1)
    n = nc.sum()
    if n <= 2:
        return math.nan
    c, k = np.indices((K, K))
    if level == "nominal":
        d2 = (c != k).astype(float)
    elif level == "interval":
        d2 = (dom[c] - dom[k]) ** 2
    else:
        cum = np.concatenate([[0.0], np.cumsum(nc)])
        lo, hi = np.minimum(c, k), np.maximum(c, k)
        d2 = (cum[hi + 1] - cum[lo] - (nc[c] + nc[k]) / 2.0) ** 2
    den = float((np.outer(nc, nc) * d2).sum())
    return math.nan if den == 0 else float(1.0 - (n - 1.0) * float((o * d2).sum()) / den)


# ---------------------------------------------------------------------------
# simulated judges
# ---------------------------------------------------------------------------

def judge_confusion(grades, flip=1 / 12, *, lenient=LENIENT_SHARE) -> pd.DataFrame:
    r"""Confusion matrix of a judge that moves a share of labels to an adjacent grade.

    Parameters
    ----------
    grades : array_like of int
        The grade scale (e.g. ``range(5)`` for CAsT's 0-4).
    flip : float
        Probability that a label is moved (the same for every grade), e.g.
        1/12: one label in twelve.
    lenient : float, keyword-only
        Share of the moved labels that go one grade up (the rest go one grade
        down; the lowest and highest grades move to their one neighbour).

    Returns
    -------
    pandas.DataFrame
        Rows: human grade, columns: judge grade; each row sums to 1.

    Examples
    --------
    >>> from mrrstats.agreement.judges import judge_confusion
    >>> print(judge_confusion([0, 1, 2], 0.1).to_string())
    judge     0     1     2
    human
    0      0.90  0.10  0.00
    1      0.04  0.90  0.06
    2      0.00  0.10  0.90
    """
    g = np.unique(np.asarray(grades, dtype=np.int64))
    if g.size < 2:
        raise ParameterError("`grades` must hold at least two grades")
    flip = float_iv(flip, "flip", low=0.0, high=1.0)
    if not 0.0 <= float(lenient) <= 1.0:
        raise ParameterError(f"`lenient` must be in [0, 1], got {lenient!r}")
    K = g.size
    M = np.eye(K) * (1.0 - flip)
    for i in range(K):
        if i == 0:
            M[i, 1] += flip
        elif i == K - 1:
            M[i, K - 2] += flip
        else:
            M[i, i + 1] += flip * lenient
            M[i, i - 1] += flip * (1.0 - lenient)
    frame = pd.DataFrame(M, index=pd.Index(g, name="human"), columns=pd.Index(g, name="judge"))
    return frame


@dataclass(frozen=True, eq=False)
class SimulatedJudge:
    """Result of :func:`simulate_judge`.

    Attributes
    ----------
    qrels : Qrels
        The judge's labels (the same pairs as the human qrels).
    confusion : pandas.DataFrame
        The confusion matrix used (rows: human grade, columns: judge grade).
    flip_rate : float
        Share of labels that the judge changed (observed).
    seed : int or None
        Seed of the draw (pass it back as ``rng=`` to reproduce).
    """

    qrels: Qrels = field(repr=False)
    confusion: pd.DataFrame = field(repr=False)
    flip_rate: float
    seed: int | None

    def to_frame(self) -> pd.DataFrame:
        """The judge's qrels: ``query, doc, grade``."""
        return self.qrels.to_frame()


def _confusion_iv(confusion, grades):
    if isinstance(confusion, numbers.Real) and not isinstance(confusion, bool | np.bool_):
        flip = float_iv(confusion, "confusion", low=0.0, high=1.0)
        return judge_confusion(np.union1d(grades, [0, 1]), flip)
    if isinstance(confusion, Mapping):
        confusion = pd.DataFrame(confusion).T
    if not isinstance(confusion, pd.DataFrame):
        raise ParameterTypeError(
            "`confusion` must be a flip probability, a DataFrame (rows: human "
            "grade, columns: judge grade) or a mapping {human: {judge: p}}, got "
            f"{type(confusion).__name__}")
    M = confusion.fillna(0.0).astype(float)
    M.index = M.index.astype(np.int64)
    M.columns = M.columns.astype(np.int64)
    if (M.to_numpy() < 0).any() or not np.allclose(M.sum(axis=1), 1.0, atol=1e-9):
        raise ParameterError("every row of `confusion` must be probabilities summing to 1")
    missing = np.setdiff1d(grades, M.index.to_numpy())
    if missing.size:
        raise ParameterError(f"`confusion` has no row for the grades {missing.tolist()}")
    return M


def simulate_judge(qrels: QrelsInput, confusion: float | pd.DataFrame | Mapping[Any, Any] = 1 / 12,
                   *, rng: Seed = None) -> SimulatedJudge:
    r"""A judge made from qrels by drawing each label's grade from a confusion matrix.

    Parameters
    ----------
    qrels : qrels
        The human labels (anything :func:`mrrstats.read_qrels` reads).
    confusion : float, DataFrame or mapping
        A flip probability (a :func:`judge_confusion` judge: that share of
        labels moves to an adjacent grade, up more often than down), or the
        matrix itself: rows the human grades, columns the judge's, rows summing
        to 1.
    rng : None, int or numpy.random.Generator, keyword-only

    Returns
    -------
    SimulatedJudge
        ``.qrels`` holds the judge's labels of the same (query, document) pairs.

    Notes
    -----
    Each label is drawn independently, so the judge's errors are
    independent of the query and the system: a simulated judge is kinder
    than a real one, whose errors correlate with topics and with the systems
    that retrieved the documents (Clarke and Dietz 2024). Published LLM
    judges agree with TREC assessors at Cohen's kappa of about 0.2-0.65
    (Thomas et al. 2024; Rahmani et al. 2025): a flip of 1/12 on CAsT's
    grades gives an ordinal alpha near 0.9, a good judge.

    Examples
    --------
    >>> import mrrstats
    >>> from mrrstats.agreement.judges import simulate_judge
    >>> judge = simulate_judge({"q1": {"d1": 1, "d2": 0, "d3": 0}}, 0.5, rng=1)
    >>> judge.qrels.grade.tolist(), judge.seed
    ([0, 1, 1], 1)
    """
    q = qrels_iv(qrels)
    M = _confusion_iv(confusion, np.unique(q.grade))
    gen, seed = rng_iv(rng)
    out = q.grade.copy()
    cols = M.columns.to_numpy()
    for g in np.unique(q.grade):
        idx = np.flatnonzero(q.grade == g)
        out[idx] = gen.choice(cols, size=idx.size, p=M.loc[g].to_numpy())
    judged = Qrels(q.query, q.doc, out.astype(q.grade.dtype),
                   f"simulated judge of {q.source}", q.empty_queries)
    rate = float(np.mean(out != q.grade)) if q.grade.size else 0.0
    return SimulatedJudge(judged, M, rate, seed)


# ---------------------------------------------------------------------------
# judge_agreement
# ---------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class JudgeAgreement:
    """Result of :func:`judge_agreement`.

    Attributes
    ----------
    confusion : pandas.DataFrame
        Counts of (human grade, judge grade) over the pairs both judged
        (rows: human, columns: judge).
    labels : pandas.DataFrame
        One row: ``n_pairs`` (pairs both judged), ``n_judge_only`` and
        ``n_human_only`` (pairs of the human-labelled queries judged by one
        only), ``accuracy`` (share of equal grades), ``kappa``,
        ``kappa_linear``, ``kappa_quadratic``, ``kappa_binary`` (relevant:
        grade >= ``rel``), ``alpha_nominal``, ``alpha_ordinal``,
        ``alpha_interval``.
    rankings : pandas.DataFrame
        Per measure: ``measure``, ``n_systems``, ``n_queries``, ``tau``
        (Kendall's tau-b of the system means), ``tau_ap`` (human ranking as
        truth), ``n_pairs``, ``n_swaps``, ``n_significant_human``,
        ``n_significant_judge``, ``n_differing`` (pairs whose decision
        differs), ``mean_shift`` (mean over systems of judge mean - human mean).
    pairs : pandas.DataFrame
        Per pair of systems and measure: ``a``, ``b``, ``measure``,
        ``difference_human``, ``difference_judge``, ``pvalue_adjusted_human``,
        ``pvalue_adjusted_judge``, ``decision_human``, ``decision_judge`` (+1, 0,
        -1) and ``outcome`` (as :func:`mrrstats.decision_agreement`, with ``a``
        the human labels and ``b`` the judge's).
    systems : pandas.DataFrame
        Per system and measure: ``system``, ``measure``, ``human``, ``judge``
        (means), ``shift`` (judge - human), ``ci_low``, ``ci_high`` (paired t
        interval of the shift).
    rel : int
    test, correction : str
    alpha : float
    n_resamples : int
    seed : int or None
    """

    confusion: pd.DataFrame = field(repr=False)
    labels: pd.DataFrame = field(repr=False)
    rankings: pd.DataFrame = field(repr=False)
    pairs: pd.DataFrame = field(repr=False)
    systems: pd.DataFrame = field(repr=False)
    rel: int
    test: str
    correction: str
    alpha: float
    n_resamples: int
    seed: int | None

    def methods(self) -> MethodsText:
        """The methods paragraph and its references (:mod:`mrrstats.stats.methods`)."""
        return methods_text(self)

    def to_frame(self) -> pd.DataFrame:
        """One row per measure: the ranking agreement, with the label statistics repeated
        (one row of label statistics when no runs were given)."""
        if self.rankings.empty:
            return self.labels.copy()
        lab = pd.concat([self.labels] * len(self.rankings), ignore_index=True)
        return pd.concat([self.rankings.reset_index(drop=True), lab], axis=1)


def _label_table(judge: Qrels, human: Qrels, queries) -> tuple:
    hj = human.to_frame()
    jj = judge.to_frame()
    jj = jj[jj["query"].isin(queries)]
    merged = hj.merge(jj, on=["query", "doc"], how="outer", suffixes=("_human", "_judge"),
                      indicator=True)
    both = merged[merged["_merge"] == "both"]
    counts = {"n_pairs": len(both), "n_judge_only": int((merged["_merge"] == "right_only").sum()),
              "n_human_only": int((merged["_merge"] == "left_only").sum())}
    h = both["grade_human"].to_numpy(np.int64)
    j = both["grade_judge"].to_numpy(np.int64)
    return h, j, counts


def _label_stats(h, j, rel, counts) -> tuple:
    grades = np.union1d(h, j)
    table = pd.crosstab(pd.Categorical(h, categories=grades),
                        pd.Categorical(j, categories=grades), dropna=False)
    table.index.name, table.columns.name = "human", "judge"
    table.index, table.columns = pd.Index(grades, name="human"), pd.Index(grades, name="judge")
    t = table.to_numpy()
    binary = np.array([[np.sum((h < rel) & (j < rel)), np.sum((h < rel) & (j >= rel))],
                       [np.sum((h >= rel) & (j < rel)), np.sum((h >= rel) & (j >= rel))]])
    row = dict(counts)
    row.update({
        "accuracy": float(np.mean(h == j)) if h.size else math.nan,
        "kappa": cohen_kappa(t), "kappa_linear": cohen_kappa(t, weights="linear"),
        "kappa_quadratic": cohen_kappa(t, weights="quadratic"),
        "kappa_binary": cohen_kappa(binary),
    })
    for level in _LEVELS:
        row[f"alpha_{level}"] = krippendorff_alpha(h, j, level=level, values=grades) \
            if h.size else math.nan
    return table, pd.DataFrame([row])


def _conclusions(ev_h, ev_j, test, correction, alpha, n_resamples, seed):
    from scipy import stats

    rank_rows, pair_frames, sys_rows = [], [], []
    for m in ev_j.measure_names:
        H, J = ev_h.scores(m), ev_j.scores(m)
        J = J.loc[H.index, H.columns]
        n = len(H)
        d = J.to_numpy() - H.to_numpy()
        mean_d = d.mean(axis=0)
        se = d.std(axis=0, ddof=1) / math.sqrt(n) if n > 1 else np.full(d.shape[1], np.nan)
        q = stats.t.ppf(0.5 + (1 - alpha) / 2, n - 1) if n > 1 else np.nan
        for s, name in enumerate(H.columns):
            sys_rows.append({"system": name, "measure": m, "human": float(H[name].mean()),
                             "judge": float(J[name].mean()), "shift": float(mean_d[s]),
                             "ci_low": float(mean_d[s] - q * se[s]),
                             "ci_high": float(mean_d[s] + q * se[s])})
        row = {"measure": m, "n_systems": H.shape[1], "n_queries": n}
        if H.shape[1] >= 2:
            ra = ranking_agreement({"human": H, "judge": J}).iloc[0]
            da = decision_agreement({"human": H, "judge": J}, "human", "judge", test=test,
                                    correction=correction, alpha=alpha,
                                    n_resamples=n_resamples, rng=seed)
            p = da.pairs
            pair_frames.append(pd.DataFrame({
                "a": p["system_1"], "b": p["system_2"], "measure": m,
                "difference_human": p["diff_a"], "difference_judge": p["diff_b"],
                "pvalue_adjusted_human": p["pvalue_adjusted_a"],
                "pvalue_adjusted_judge": p["pvalue_adjusted_b"],
                "decision_human": p["decision_a"], "decision_judge": p["decision_b"],
                "outcome": p["outcome"]}))
            row.update({"tau": float(ra["tau"]), "tau_ap": float(ra["tau_ap"]),
                        "n_pairs": int(ra["n_pairs"]), "n_swaps": int(ra["n_swaps"]),
                        "n_significant_human": da.n_significant_a,
                        "n_significant_judge": da.n_significant_b,
                        "n_differing": da.n_only_a + da.n_only_b + da.n_reversed})
        row["mean_shift"] = float(mean_d.mean())
        rank_rows.append(row)
    pairs = pd.concat(pair_frames, ignore_index=True) if pair_frames else pd.DataFrame(
        columns=["a", "b", "measure", "difference_human", "difference_judge",
                 "pvalue_adjusted_human", "pvalue_adjusted_judge", "decision_human",
                 "decision_judge", "outcome"])
    return pd.DataFrame(rank_rows), pairs, pd.DataFrame(sys_rows)


def judge_agreement(judge_qrels: QrelsInput, human_qrels: QrelsInput,
                    runs: RunsInput | None = None, measures: MeasuresInput = ("RR",), *,
                    rel: int = REL, test: str = TEST, correction: str = CORRECTION,
                    alpha: float = ALPHA, n_resamples: int = N_RESAMPLES,
                    rng: Seed = None) -> JudgeAgreement:
    r"""How far a judge agrees with people, on the labels and on the conclusions.

    Parameters
    ----------
    judge_qrels, human_qrels : qrels
        The judge's and people's labels (anything :func:`mrrstats.read_qrels`
        reads). Only the queries people labelled are compared.
    runs : a run, a list of runs, or a dict name -> run, optional
        With runs, each measure is computed under both sets of labels on the
        human-labelled queries, and the rankings, decisions and means compared.
    measures : str or sequence of str
        Measures of the comparison of conclusions (default ``("RR",)``).
    rel : int, keyword-only
        Minimum relevant grade (``kappa_binary``; the measures' default ``rel``).
    test, correction, alpha, n_resamples : keyword-only
        The pairwise tests of the decisions (:func:`mrrstats.decision_agreement`;
        the same resamples under both sets of labels).
    rng : None, int or numpy.random.Generator, keyword-only
        Seed of the tests (recorded in ``seed``).

    Returns
    -------
    JudgeAgreement

    Notes
    -----
    Cohen's weights use the grades' positions among the grades seen
    (scikit-learn's and statsmodels' convention); Krippendorff's alpha uses the
    grades seen as its value domain (the ``krippendorff`` package's). The
    judge can agree well on labels and still change conclusions (a lenient
    judge lifts every system, a judge that errs on the documents one system
    retrieves moves that system): the ``rankings``, ``pairs`` and ``systems``
    tables show what a judge-only evaluation would get wrong; to estimate the
    human-label means from both, use :func:`mrrstats.ppi_evaluate`.

    References
    ----------
    .. [1] J. Cohen, "Weighted kappa", Psychological Bulletin 70(4), 213-220, 1968.
    .. [2] K. Krippendorff, "Computing Krippendorff's alpha-reliability", 2011.
    .. [3] P. Thomas, S. Spielman, N. Craswell and B. Mitra, "Large language models
       can accurately predict searcher preferences", SIGIR 2024.
    .. [4] H. A. Rahmani et al., "Judging the judges: a collection of LLM-generated
       relevance judgements", arXiv:2502.13908, 2025.

    Examples
    --------
    >>> import mrrstats
    >>> data = mrrstats.datasets.cast2021_judged()
    >>> ag = mrrstats.judge_agreement(data.judge_qrels, data.human_qrels, data.runs,
    ...                               ["RR", "nDCG@10"], test="t", rng=0)
    >>> print(ag.labels[["n_pairs", "accuracy", "kappa", "alpha_ordinal"]].round(3)
    ...       .to_string(index=False))
     n_pairs  accuracy  kappa  alpha_ordinal
        8095     0.923  0.836          0.896
    >>> print(ag.rankings[["measure", "tau", "n_swaps", "n_differing"]].to_string(index=False))
    measure  tau  n_swaps  n_differing
         RR  1.0        0            1
    nDCG@10  1.0        0            0

    The judge ranks the systems as people do, but one pair significant under
    the human labels is not under the judge's (``ag.pairs`` names it).
    """
    alpha = alpha_iv(alpha)
    n_resamples = n_resamples_iv(n_resamples)
    if isinstance(rel, bool) or not isinstance(rel, (int, np.integer)) or rel < 1:
        raise ParameterError(f"`rel` must be an integer >= 1, got {rel!r}")
    judge, human = qrels_iv(judge_qrels, "judge_qrels"), qrels_iv(human_qrels, "human_qrels")
    queries = np.asarray(human.query_ids, dtype=str)
    missing = np.setdiff1d(queries, np.asarray(judge.query_ids, dtype=str))
    if missing.size == queries.size:
        raise ParameterError("`judge_qrels` and `human_qrels` have no query in common")
    h, j, counts = _label_table(judge, human, set(queries))
    confusion, labels = _label_stats(h, j, int(rel), counts)
    gen, seed = rng_iv(rng)
    if runs is None:
        empty = pd.DataFrame()
        return JudgeAgreement(confusion, labels, empty, empty, empty, int(rel), test,
                              correction, alpha, n_resamples, seed)
    common = np.intersect1d(queries, np.asarray(judge.query_ids, dtype=str))
    keep = np.isin(judge.query.astype(str), common)
    judge_sub = Qrels(judge.query[keep], judge.doc[keep], judge.grade[keep], judge.source,
                      tuple(q for q in judge.empty_queries if q in set(common)))
    hk = np.isin(human.query.astype(str), common)
    human_sub = Qrels(human.query[hk], human.doc[hk], human.grade[hk], human.source,
                      tuple(q for q in human.empty_queries if q in set(common)))
    ev_h = evaluate(human_sub, runs, measures, rel=int(rel), queries="qrels")
    ev_j = evaluate(judge_sub, runs, ev_h.measures, rel=int(rel), queries="qrels")
    test_seed = int(gen.integers(2**63 - 1))
    rankings, pairs, systems = _conclusions(ev_h, ev_j, test, correction, alpha, n_resamples,
                                            test_seed)
    return JudgeAgreement(confusion, labels, rankings, pairs, systems, int(rel), test,
                          correction, alpha, n_resamples, seed)
