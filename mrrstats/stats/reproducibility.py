r"""Reproducibility and replicability of a published run (Breuer et al., SIGIR 2020).

:func:`reproducibility` compares an original experiment (a baseline run and an
advanced run) with its reproduction, at the levels of Breuer, Ferro, Fuhr,
Maistro, Sakai, Schaer and Soboroff (2020), with the measures of their
``repro_eval`` toolkit:

* **document order** (reproducibility only): Kendall's tau Union (KTU) and
  Rank-Biased Overlap (RBO) between each original run and its reproduction,
  per topic and averaged;
* **per-topic effectiveness** (reproducibility only): the root mean square
  error (RMSE) of the per-topic scores and its normalised form (nRMSE);
* **overall effect**: the effect ratio (ER) of the reproduced to the original
  mean improvement of advanced over baseline, and the delta relative
  improvement (DeltaRI); with percentile bootstrap intervals, which
  ``repro_eval`` does not give;
* **significance**: the two-sided t test of each original run against its
  reproduction (paired on the same topics, unpaired on another collection).

With the original qrels (``reproduced_qrels=None``) it is reproducibility on
the same collection (``repro_eval``'s ``RpdEvaluator``); with another
collection's qrels it is replicability (``RplEvaluator``), where only ER,
DeltaRI and the unpaired tests are defined.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy import stats

from ..defaults import CONFIDENCE_LEVEL, N_RESAMPLES
from ..errors import ParameterError, ParameterTypeError
from ..io.trec import qrels_iv, run_iv
from ..metrics import evaluate

if TYPE_CHECKING:
    from .._typing import MeasuresInput, QrelsInput, Seed
from ..metrics.measures import measures_iv
from ..options import QUERIES
from ..validation import choice_iv, confidence_level_iv, int_iv, n_resamples_iv, rng_iv
from .methods import MethodsText, methods_text

__all__ = ["ReproducibilityResult", "reproducibility", "RUNS"]

#: The two runs of an experiment, as ``repro_eval`` names them.
RUNS = ("baseline", "advanced")
#: Multinomial counts drawn in one step of the bootstrap (bounds memory).
_BATCH_ELEMENTS = 1 << 22


@dataclass(frozen=True, eq=False)
class ReproducibilityResult:
    r"""Result of :func:`reproducibility`.

    Attributes
    ----------
    kind : {"reproducibility", "replicability"}
        Same collection (original qrels) or another one.
    ktu, rbo : Series or None
        Mean over topics of Kendall's tau Union and of Rank-Biased Overlap
        between each original run and its reproduction (index ``baseline``,
        ``advanced``); None for replicability.
    ktu_per_topic, rbo_per_topic : DataFrame or None
        The same per topic (one column per run).
    rmse, nrmse : DataFrame or None
        Run x measure: RMSE of the per-topic scores of the reproduction
        against the original, and RMSE over its largest possible value;
        None for replicability.
    pvalues : DataFrame
        Run x measure: the two-sided t test of original against reproduced
        per-topic scores (paired for reproducibility, unpaired for replicability).
    er, delta_ri : Series
        Per measure: the effect ratio and the delta relative improvement.
    intervals : DataFrame or None
        Per measure: ``er_low``, ``er_high``, ``delta_ri_low``, ``delta_ri_high``,
        percentile bootstrap intervals at ``confidence_level`` (None when
        ``n_resamples`` is None).
    means : DataFrame
        Mean score of each of the four runs (rows ``original baseline`` ...) per measure.
    measures : tuple of str
    n_queries : dict
        Topics of the original and of the reproduced experiment.
    depth : int
        Documents per topic compared by KTU (the runs are cut there) and RBO.
    rbo_p : float
        RBO's persistence.
    confidence_level : float
    n_resamples : int or None
    seed : int or None
    """

    kind: str
    ktu: pd.Series | None
    rbo: pd.Series | None
    ktu_per_topic: pd.DataFrame | None
    rbo_per_topic: pd.DataFrame | None
    rmse: pd.DataFrame | None
    nrmse: pd.DataFrame | None
    pvalues: pd.DataFrame
    er: pd.Series
    delta_ri: pd.Series
    intervals: pd.DataFrame | None
    means: pd.DataFrame
    measures: tuple
    n_queries: dict
    depth: int
    rbo_p: float
    confidence_level: float
    n_resamples: int | None
    seed: int | None = None

    def methods(self) -> MethodsText:
        """The methods paragraph and its references (:mod:`mrrstats.stats.methods`)."""
        return methods_text(self)

    def to_frame(self) -> pd.DataFrame:
        """One row per measure: ER, DeltaRI (with intervals), the p-values, RMSE and nRMSE."""
        frame = pd.DataFrame({"er": self.er, "delta_ri": self.delta_ri})
        if self.intervals is not None:
            frame = frame.join(self.intervals)
        for run in RUNS:
            frame[f"pvalue_{run}"] = self.pvalues.loc[run]
            if self.rmse is not None and self.nrmse is not None:
                frame[f"rmse_{run}"] = self.rmse.loc[run]
                frame[f"nrmse_{run}"] = self.nrmse.loc[run]
        frame.index.name = "measure"
        return frame

    def summary(self) -> str:
        """One sentence per measure: ER and DeltaRI with their intervals."""
        parts = []
        for m in self.measures:
            text = f"{m}: ER = {self.er[m]:.3f}"
            if self.intervals is not None:
                r = self.intervals.loc[m]
                text += f" [{r['er_low']:.3f}, {r['er_high']:.3f}]"
            text += f", DeltaRI = {self.delta_ri[m]:+.3f}"
            if self.intervals is not None:
                text += f" [{r['delta_ri_low']:+.3f}, {r['delta_ri_high']:+.3f}]"
            parts.append(text)
        head = f"{self.kind}: " + "; ".join(parts)
        if self.ktu is not None and self.rbo is not None:
            head += (
                f". KTU {self.ktu['baseline']:.3f} / {self.ktu['advanced']:.3f}, RBO "
                f"{self.rbo['baseline']:.3f} / {self.rbo['advanced']:.3f} (baseline / "
                "advanced)"
            )
        return head + "."


# --------------------------------------------------------------------------
# document order
# --------------------------------------------------------------------------
def _orders(run):
    """``{topic: [doc, ...]}`` in trec_eval's order: score descending, then doc id descending."""
    frame = run.to_frame()[["query", "doc", "score"]]
    frame = frame.sort_values(
        ["query", "score", "doc"], ascending=[True, False, False], kind="stable"
    )
    return {q: list(g["doc"]) for q, g in frame.groupby("query", sort=False)}


def _ktu(orig, rep, depth):
    """Kendall's tau Union of two document lists cut at ``depth`` (repro_eval's KTU)."""
    a, b = orig[:depth], rep[:depth]
    n = min(len(a), len(b))  # repro_eval needs equal lengths: here the common depth
    a, b = a[:n], b[:n]
    union = sorted(set(a) | set(b))
    pos = {d: i for i, d in enumerate(union)}
    if n < 2:
        return math.nan
    tau = stats.kendalltau([pos[d] for d in a], [pos[d] for d in b]).statistic
    return float(round(tau, 14))


def _rbo(run, ideal, p, depth):
    """Rank-Biased Overlap as repro_eval computes it (Clarke et al.'s Compatibility code)."""
    run_set, ideal_set = set(), set()
    score = normalizer = 0.0
    weight = 1.0
    for i in range(depth):
        if i < len(run):
            run_set.add(run[i])
        if i < len(ideal):
            ideal_set.add(ideal[i])
        score += weight * len(ideal_set & run_set) / (i + 1)
        normalizer += weight
        weight *= p
    return score / normalizer


# --------------------------------------------------------------------------
# effects
# --------------------------------------------------------------------------
def _effects(ob, oa, rb, ra):
    """ER and DeltaRI per measure from per-topic score arrays (topics x measures)."""
    mi_orig = (oa - ob).mean(axis=0)
    mi_rep = (ra - rb).mean(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        er = mi_rep / mi_orig
        ri_orig = (oa.mean(axis=0) - ob.mean(axis=0)) / ob.mean(axis=0)
        ri_rep = (ra.mean(axis=0) - rb.mean(axis=0)) / rb.mean(axis=0)
    return er, ri_orig - ri_rep


def _bootstrap(ob, oa, rb, ra, paired, B, gen, cl):
    """Percentile intervals of ER and DeltaRI: topics resampled as multinomial counts (the
    same draw for the four runs when ``paired``; the original and reproduced topics
    independently otherwise), in batches of at most ``_BATCH_ELEMENTS`` counts."""
    n_o, n_r = ob.shape[0], rb.shape[0]
    step = max(1, _BATCH_ELEMENTS // max(n_o, n_r))
    ers, dris = [], []
    for start in range(0, B, step):
        size = min(step, B - start)
        co = gen.multinomial(n_o, np.full(n_o, 1.0 / n_o), size=size) / n_o
        cr = co if paired else gen.multinomial(n_r, np.full(n_r, 1.0 / n_r), size=size) / n_r
        mob, moa, mrb, mra = co @ ob, co @ oa, cr @ rb, cr @ ra  # (size, measures) means
        with np.errstate(divide="ignore", invalid="ignore"):
            ers.append((mra - mrb) / (moa - mob))
            dris.append((moa - mob) / mob - (mra - mrb) / mrb)
    lo, hi = (1 - cl) / 2, (1 + cl) / 2
    ers, dris = np.vstack(ers), np.vstack(dris)
    # a resample without improvement gives ER = +-inf (kept: it is an extreme value); NaN
    # (0/0) is left out
    with np.errstate(invalid="ignore"):
        return (
            np.nanquantile(ers, lo, axis=0),
            np.nanquantile(ers, hi, axis=0),
            np.nanquantile(dris, lo, axis=0),
            np.nanquantile(dris, hi, axis=0),
        )


# --------------------------------------------------------------------------
# the function
# --------------------------------------------------------------------------
def reproducibility(
    qrels: QrelsInput,
    original: Mapping[str, Any],
    reproduced: Mapping[str, Any],
    *,
    measures: MeasuresInput = ("AP", "nDCG", "P@10"),
    reproduced_qrels: QrelsInput | None = None,
    queries: str = "qrels",
    depth: int = 1000,
    rbo_p: float = 0.95,
    confidence_level: float = CONFIDENCE_LEVEL,
    n_resamples: int = N_RESAMPLES,
    rng: Seed = None,
) -> ReproducibilityResult:
    r"""How well does a reproduction (or replication) reproduce the original experiment?

    Parameters
    ----------
    qrels : str, path-like, DataFrame, dict or Qrels
        The original collection's relevance judgements.
    original, reproduced : mapping
        ``{"baseline": run, "advanced": run}``: the original runs and their
        reproductions (TREC run files, DataFrames, nested dicts or Runs).
    measures : sequence of str, keyword-only
        Measures of the per-topic scores (mrrstats names: ``"AP"``,
        ``"nDCG@10"``, ``"P@10"``, ``"RR"``, ...).
    reproduced_qrels : optional, keyword-only
        Another collection's judgements for the reproduced runs: replicability.
        None (the default): reproducibility on the original collection.
    queries : {"qrels", "both", "msmarco"}, keyword-only
        Which topics count (:func:`mrrstats.evaluate`): ``"qrels"`` (the
        default) counts every judged topic, a topic a run did not answer scoring
        0, as ``repro_eval`` does (pytrec_eval's count, trec_eval ``-c``);
        ``"both"`` only the topics the run answered.
    depth : int, keyword-only
        Documents per topic compared by KTU and RBO (``repro_eval``'s
        ``RUN_LENGTH`` and ``RBO_DEPTH``, 1000).
    rbo_p : float, keyword-only
        RBO's persistence (``repro_eval``'s ``RBO_P``, 0.95).
    confidence_level : float, keyword-only
        Level of the bootstrap intervals of ER and DeltaRI.
    n_resamples : int or None, keyword-only
        Bootstrap resamples (None: no intervals).
    rng : None, int or numpy.random.Generator, keyword-only

    Returns
    -------
    ReproducibilityResult

    Notes
    -----
    With per-topic scores :math:`o^b_j, o^a_j` (original baseline and
    advanced) and :math:`r^b_j, r^a_j` (reproduced):

    * KTU per topic: both lists cut at ``depth``, each document replaced by its
      position in the sorted union of the two lists, and Kendall's tau of the
      two position sequences (Breuer et al. 2020, sec. 3.1); ``repro_eval``
      fails on topics where the two runs retrieve different numbers of
      documents: here both are cut to the shorter length. RBO per topic as
      ``repro_eval`` computes it (Clarke et al.'s code: the overlap at each
      depth up to ``depth``, weighted by :math:`p^{d-1}` and normalised by the
      weights' sum). Runs are ordered as trec_eval orders them (score
      descending, ties by document id descending).
    * :math:`RMSE = \sqrt{\frac1n\sum_j (o_j - r_j)^2}`, and nRMSE divides it by
      :math:`\sqrt{\frac1n\sum_j \max(o_j, 1 - o_j)^2}`, its largest value for
      scores in [0, 1].
    * :math:`ER = \overline{r^a - r^b}/\overline{o^a - o^b}` and
      :math:`\Delta RI = RI_o - RI_r` with :math:`RI = (\bar a - \bar b)/\bar b`.
    * The intervals resample the topics (the same topics in all four runs for
      reproducibility; the original and the reproduced topics independently
      for replicability) and take percentiles of ER and DeltaRI. Measured
      coverage of the 95% intervals, with the 158 judged CAsT 2021 topics of
      the ``mrrstats reproducibility --example`` runs as the population (400
      samples of 50 and of 158 topics, 1,000 resamples each; Monte Carlo
      error about 0.011): ER 0.945-0.982 (AP, nDCG@10, P@10), DeltaRI
      0.940-0.958.

    References
    ----------
    T. Breuer, N. Ferro, N. Fuhr, M. Maistro, T. Sakai, P. Schaer, I. Soboroff,
    "How to measure the reproducibility of system-oriented IR experiments",
    SIGIR 2020. T. Breuer et al., "repro_eval: a Python interface to
    reproducibility measures of system-oriented IR experiments", ECIR 2021.

    Examples
    --------
    >>> import mrrstats
    >>> d = mrrstats.datasets.cast2021()
    >>> runs = {mrrstats.read_run(r).name: r for r in d.runs}
    >>> orig = {"baseline": runs["org_convdr.run"], "advanced": runs["org_convdr_bert.run"]}
    >>> rep = {"baseline": runs["org_manual_bm25.run"], "advanced": runs["org_manual_ance.run"]}
    >>> res = mrrstats.reproducibility(d.qrels, orig, rep, measures=["nDCG@10"],
    ...                                n_resamples=200, rng=0)
    >>> res.kind, list(res.er.index)
    ('reproducibility', ['nDCG@10'])
    """
    (qrels, rep_qrels, orig_runs, rep_runs, names, depth, rbo_p, cl, B, gen, seed) = (
        _reproducibility_iv(
            qrels,
            original,
            reproduced,
            measures,
            reproduced_qrels,
            depth,
            rbo_p,
            confidence_level,
            n_resamples,
            rng,
        )
    )
    queries = choice_iv(queries, "queries", QUERIES)
    replicate = rep_qrels is not None
    ev_o = evaluate(qrels, [orig_runs[r] for r in RUNS], names, queries=queries)
    ev_r = evaluate(
        rep_qrels if replicate else qrels, [rep_runs[r] for r in RUNS], names, queries=queries
    )
    measures = tuple(ev_o.measure_names)

    per = {}
    for tag, ev, runs in (("original", ev_o, orig_runs), ("reproduced", ev_r, rep_runs)):
        for r in RUNS:
            frames = [ev.scores(m)[runs[r].name] for m in measures]
            per[(tag, r)] = pd.concat(frames, axis=1, keys=measures)
    topics_o = per[("original", "baseline")].index
    if not replicate:
        topics_r = per[("reproduced", "baseline")].index
        if set(topics_o) != set(topics_r):
            missing = sorted(set(topics_o) ^ set(topics_r))[:5]
            raise ParameterError(
                "`reproduced` runs must retrieve for the same topics as the "
                f"original runs (differ on {missing})",
                name="reproduced",
            )
        for r in RUNS:
            per[("reproduced", r)] = per[("reproduced", r)].loc[topics_o]
    arr = {k: v.to_numpy(dtype=float) for k, v in per.items()}
    ob, oa = arr[("original", "baseline")], arr[("original", "advanced")]
    rb, ra = arr[("reproduced", "baseline")], arr[("reproduced", "advanced")]
    er, dri = _effects(ob, oa, rb, ra)
    er_s = pd.Series(er, index=list(measures), name="er")
    dri_s = pd.Series(dri, index=list(measures), name="delta_ri")
    pv = {}
    for r in RUNS:
        o, p = arr[("original", r)], arr[("reproduced", r)]
        row = []
        for m in range(len(measures)):
            if replicate:
                res = stats.ttest_ind(o[:, m], p[:, m])
            else:
                res = stats.ttest_rel(o[:, m], p[:, m])
            value = float(res.pvalue)
            if math.isnan(value) and np.array_equal(o[:, m], p[:, m]):
                value = 1.0  # identical scores (repro_eval's convention)
            row.append(value)
        pv[r] = row
    pvalues = pd.DataFrame(pv, index=list(measures)).T
    means = pd.DataFrame({f"{t} {r}": per[(t, r)].mean() for t, r in per}).T
    ktu = rbo = ktu_t = rbo_t = rmse = nrmse = None
    if not replicate:
        k_cols, r_cols = {}, {}
        for r in RUNS:
            o_ord, p_ord = _orders(orig_runs[r]), _orders(rep_runs[r])
            common = [t for t in p_ord if t in o_ord]
            k_cols[r] = pd.Series({t: _ktu(o_ord[t], p_ord[t], depth) for t in common})
            r_cols[r] = pd.Series({t: _rbo(p_ord[t], o_ord[t], rbo_p, depth) for t in common})
        ktu_t, rbo_t = pd.DataFrame(k_cols), pd.DataFrame(r_cols)
        ktu, rbo = ktu_t.mean().rename("ktu"), rbo_t.mean().rename("rbo")
        rm, nrm = {}, {}
        for r in RUNS:
            o, p = arr[("original", r)], arr[("reproduced", r)]
            e = np.sqrt(((o - p) ** 2).mean(axis=0))
            worst = np.sqrt((np.maximum(o, 1 - o) ** 2).mean(axis=0))
            rm[r] = e
            with np.errstate(divide="ignore", invalid="ignore"):
                nrm[r] = e / worst
        rmse = pd.DataFrame(rm, index=list(measures)).T
        nrmse = pd.DataFrame(nrm, index=list(measures)).T
    intervals = None
    if B:
        lo_e, hi_e, lo_d, hi_d = _bootstrap(ob, oa, rb, ra, not replicate, B, gen, cl)
        intervals = pd.DataFrame(
            {"er_low": lo_e, "er_high": hi_e, "delta_ri_low": lo_d, "delta_ri_high": hi_d},
            index=list(measures),
        )
    return ReproducibilityResult(
        kind="replicability" if replicate else "reproducibility",
        ktu=ktu,
        rbo=rbo,
        ktu_per_topic=ktu_t,
        rbo_per_topic=rbo_t,
        rmse=rmse,
        nrmse=nrmse,
        pvalues=pvalues,
        er=er_s,
        delta_ri=dri_s,
        intervals=intervals,
        means=means,
        measures=measures,
        n_queries={"original": len(topics_o), "reproduced": len(rb)},
        depth=depth,
        rbo_p=rbo_p,
        confidence_level=cl,
        n_resamples=B or None,
        seed=seed if B else None,
    )


def _reproducibility_iv(
    qrels,
    original,
    reproduced,
    measures,
    reproduced_qrels,
    depth,
    rbo_p,
    confidence_level,
    n_resamples,
    rng,
):
    runs = {}
    for name, value in (("original", original), ("reproduced", reproduced)):
        if not isinstance(value, Mapping):
            raise ParameterTypeError(
                f"`{name}` must be a mapping {{'baseline': run, "
                f"'advanced': run}}, got {type(value).__name__}",
                name=name,
            )
        if set(value) != set(RUNS):
            raise ParameterError(
                f"`{name}` must have the keys {list(RUNS)}, got {list(value)}", name=name
            )
        runs[name] = {r: run_iv(value[r], name, run_name=f"{name} {r}") for r in RUNS}
    qrels = qrels_iv(qrels, "qrels")
    rep_qrels = (
        None if reproduced_qrels is None else qrels_iv(reproduced_qrels, "reproduced_qrels")
    )
    names = measures_iv(measures)
    depth = int_iv(depth, "depth", minimum=1, maximum=10**7)
    if isinstance(rbo_p, bool) or not isinstance(rbo_p, numbers.Real) or not 0 < rbo_p < 1:
        raise ParameterError(f"`rbo_p` must lie in (0, 1), got {rbo_p!r}", name="rbo_p")
    cl = confidence_level_iv(confidence_level)
    B = 0 if n_resamples is None else n_resamples_iv(n_resamples)
    if isinstance(rng, numbers.Real) and not isinstance(rng, numbers.Integral):
        raise ParameterTypeError(
            f"`rng` must be None, an integer seed or a Generator, got {rng!r}", name="rng"
        )
    gen, seed = rng_iv(rng)
    return (
        qrels,
        rep_qrels,
        runs["original"],
        runs["reproduced"],
        names,
        depth,
        float(rbo_p),
        cl,
        B,
        gen,
        seed,
    )
