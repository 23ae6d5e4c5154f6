r"""The report's sections for the newer statistics, computed once by :func:`make_report`.

* :func:`leaderboard_frame` -- per measure, each system's rank interval and
  compact letters (:func:`mrrstats.rank_intervals`,
  :func:`mrrstats.compact_letter_display`) from the comparison's own decisions,
  so the letters say what the comparison table's superscripts say;
* :func:`clustered_frame` -- per pair, the query bootstrap interval of the
  mean difference against the cluster bootstrap interval, and the cluster
  sign-flip test (``clusters=`` of :func:`mrrstats.bootstrap_ci` and
  :func:`mrrstats.randomization_test`), when the queries come in
  clusters (CAsT turn ids ``<conversation>_<turn>``, or clusters given);
* :func:`multiverse_result` -- the convention multiverse
  (:func:`mrrstats.multiverse`) of the runs, when the report has run files;
* :func:`estimation_frame` -- per measure and pair, the Hodges-Lehmann shift
  with its interval, d_z and the probability of superiority with theirs and,
  with a margin, the equivalence test (TOST) (:func:`mrrstats.hodges_lehmann`,
  :func:`mrrstats.effect_size_intervals`, :func:`mrrstats.equivalence_test`);
* :func:`mixed_frame` -- per measure and pair, the linear mixed model's
  difference next to the two-way ANOVA's (:func:`mrrstats.mixed_vs_anova`).

Each returns plain DataFrames that :func:`make_report` saves under
``results/`` and the notebook draws.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ..agreement.multiverse import multiverse
from ..errors import ParameterError
from ..stats.bootstrap import bootstrap_ci
from ..stats.estimation import effect_size_intervals, equivalence_test, hodges_lehmann
from ..stats.leaderboard import rank_intervals
from ..stats.mixed import mixed_vs_anova
from ..stats.multiple import adjust_pvalues
from ..stats.randomization import randomization_test

__all__ = ["conversation_clusters", "cluster_labels", "leaderboard_frame", "clustered_frame",
           "multiverse_result", "MULTIVERSE_OPTIONS", "estimation_frame", "mixed_frame"]

_TURN = re.compile(r"^(.+)_(\d+)$")
#: What the report's multiverse varies (the CLI ``mrrstats multiverse`` varies cutoffs too).
MULTIVERSE_OPTIONS = {"ties": ("trec_eval", "optimistic", "pessimistic", "expected"),
                      "queries": ("both", "qrels"), "cutoffs": (None,),
                   "empty_targets": ("neg", "pos", "skip"), "test": "t"}


def conversation_clusters(queries):
    """Conversation of each query id ``<conversation>_<turn>`` (CAsT), or None.

    None unless every id has that form and some conversation has two or more
    turns (otherwise the clusters are the queries themselves).

    Examples
    --------
    >>> from mrrstats.report.sections import conversation_clusters
    >>> conversation_clusters(["106_1", "106_2", "107_1"]).tolist()
    ['106', '106', '107']
    >>> conversation_clusters(["q1", "q2"]) is None
    True
    """
    ids = [str(q) for q in queries]
    matches = [_TURN.match(q) for q in ids]
    if not ids or not all(matches):
        return None
    labels = np.array([m.group(1) for m in matches], dtype=object)
    if np.unique(labels).size >= len(ids):
        return None
    return labels


def cluster_labels(queries, clusters):
    """Cluster label of each query: ``clusters`` is "auto", None, a mapping or a callable.

    Returns ``(labels or None, description)``.
    """
    if clusters is None or clusters is False:
        return None, None
    if isinstance(clusters, str):
        if clusters != "auto":
            raise ParameterError(f"`clusters` must be 'auto', None, a mapping query -> cluster or "
                             f"a function of the query id, got {clusters!r}")
        labels = conversation_clusters(queries)
        return labels, (None if labels is None else
                        "the conversation of each turn id: 106_3 is turn 3 of "
                                "conversation 106")
    if callable(clusters):
        labels = np.array([str(clusters(str(q))) for q in queries], dtype=object)
        return labels, "given by a function of the query id"
    try:
        labels = np.array([str(clusters[str(q)]) for q in queries], dtype=object)
    except KeyError as exc:
        raise ParameterError(f"`clusters` has no cluster for query {exc.args[0]!r}") from None
    return labels, "given per query"


def _decisions(pairs, measure, systems):
    """Symmetric 'significantly different' matrix of one measure from the pairs table."""
    idx = {s: i for i, s in enumerate(systems)}
    sig = np.zeros((len(systems), len(systems)), bool)
    rows = pairs[pairs["measure"] == measure]
    for a, b, r in zip(rows["a"], rows["b"], rows["reject"], strict=True):
        sig[idx[a], idx[b]] = sig[idx[b], idx[a]] = bool(r)
    return sig


def leaderboard_frame(scores, measures, pairs, systems):
    """Rank intervals and letters of every system, per measure, from the pairs' decisions.

    One row per measure and system, best first: ``measure, system, mean, rank,
    rank_low, rank_high, letters``. No random numbers: the decisions are the
    comparison's (its test and correction), so the intervals hold
    simultaneously at the family-wise level of the comparison.
    """
    parts = []
    for m in measures:
        frame = scores[m].dropna()[list(systems)]
        ri = rank_intervals(frame, measure=m, decisions=_decisions(pairs, m, list(systems)))
        f = ri.to_frame().reset_index()
        f.insert(0, "measure", m)
        parts.append(f)
    out = pd.concat(parts, ignore_index=True)
    for c in ("rank", "rank_low", "rank_high"):
        out[c] = out[c].astype(np.int64)
    return out


def clustered_frame(scores, measures, pairs, labels, *, confidence_level, n_resamples,
                    alpha, gen, workers=-1):
    """Query bootstrap vs cluster bootstrap interval, and the cluster sign-flip test, per pair.

    For each measure and pair (in the order of ``pairs``), with one Generator
    in this order: the query bootstrap percentile interval of the mean
    difference (every query its own cluster), the cluster bootstrap
    percentile interval (whole clusters resampled), and the randomization test
    with one sign per cluster (exact when :math:`2^G` is small). The
    cluster p-values are Holm-adjusted over the pairs of each measure.
    ``workers`` is passed to the resampling (it changes no number).
    """
    rows = []
    for m in measures:
        frame = scores[m].dropna()
        lab = pd.Series(labels, index=scores[m].index).loc[frame.index].to_numpy()
        sel = pairs[pairs["measure"] == m]
        start = len(rows)
        for r in sel.itertuples(index=False):
            a = frame[r.a].to_numpy(np.float64)
            b = frame[r.b].to_numpy(np.float64)
            q = bootstrap_ci(a, b, method="percentile", confidence_level=confidence_level,
                             n_resamples=n_resamples, workers=workers, rng=gen)
            c = bootstrap_ci(a, b, method="percentile", confidence_level=confidence_level,
                             n_resamples=n_resamples, clusters=lab, workers=workers, rng=gen)
            t = randomization_test(a, b, clusters=lab, n_resamples=n_resamples,
                                   workers=workers, rng=gen)
            qi, ci = q.confidence_interval(), c.confidence_interval()
            rows.append({"measure": m, "a": r.a, "b": r.b, "difference": float(q.statistic),
                         "query_low": qi.low, "query_high": qi.high,
                         "cluster_low": ci.low, "cluster_high": ci.high,
                         "width_ratio": (ci.high - ci.low) / (qi.high - qi.low)
                         if qi.high > qi.low else float("nan"),
                         "pvalue_cluster": float(t.pvalue), "exact": bool(t.exact),
                         "reject_queries": bool(r.reject),
                         "n_queries": int(frame.shape[0]), "n_clusters": int(c.n_clusters)})
        p = np.array([row["pvalue_cluster"] for row in rows[start:]])
        if p.size:
            p_adj, rej = adjust_pvalues(p, "holm", alpha)
            for row, pa, rj in zip(rows[start:], p_adj, rej, strict=True):
                row["pvalue_cluster_adjusted"] = float(pa)
                row["reject_clusters"] = bool(rj)
    cols = ["measure", "a", "b", "difference", "query_low", "query_high", "cluster_low",
            "cluster_high", "width_ratio", "pvalue_cluster", "pvalue_cluster_adjusted",
            "reject_queries", "reject_clusters", "exact", "n_queries", "n_clusters"]
    return pd.DataFrame(rows, columns=cols)


def multiverse_result(qrels, runs, measures, *, alpha, correction):
    """:func:`mrrstats.multiverse` of the runs over :data:`MULTIVERSE_OPTIONS`.

    The paired t test (deterministic: no random numbers) with the report's
    correction and alpha; relevance thresholds: every positive grade of the
    qrels.
    """
    opts = MULTIVERSE_OPTIONS
    mv = multiverse(qrels, runs, list(measures), ties=opts["ties"], queries=opts["queries"],
                    cutoffs=opts["cutoffs"], empty_targets=opts["empty_targets"],
                    test=opts["test"], correction=correction,
                    alpha=alpha)
    return mv


def estimation_frame(scores, measures, pairs, *, confidence_level, n_resamples, margin, gen):
    """How large is each difference, and is it negligible? One row per measure and pair.

    For each measure and pair (in the order of ``pairs``): the mean
    difference a - b; the Hodges-Lehmann shift with its Wilcoxon interval
    (:func:`mrrstats.hodges_lehmann`, R's ``wilcox.test(conf.int = TRUE)``);
    d_z with its noncentral-t interval and the probability of superiority
    with its BCa bootstrap interval (:func:`mrrstats.effect_size_intervals`,
    drawing from ``gen`` in this order); with ``margin``, the TOST of
    ``-margin < mean(a - b) < margin`` by paired t tests
    (:func:`mrrstats.equivalence_test`, statsmodels' ``ttost_paired``), whose
    columns are NaN without one.
    """
    rows = []
    for m in measures:
        frame = scores[m].dropna()
        for r in pairs[pairs["measure"] == m].itertuples(index=False):
            a = frame[r.a].to_numpy(np.float64)
            b = frame[r.b].to_numpy(np.float64)
            row = {"measure": m, "a": r.a, "b": r.b, "difference": float(np.mean(a - b)),
                   "n_queries": int(a.size)}
            if np.any(a != b):
                hl = hodges_lehmann(a, b, confidence_level=confidence_level)
                row.update(hl_estimate=hl.estimate, hl_low=hl.low, hl_high=hl.high,
                           hl_level=hl.confidence_level, hl_method=hl.method)
            else:
                row.update(hl_estimate=0.0, hl_low=np.nan, hl_high=np.nan,
                           hl_level=np.nan, hl_method="none")
            if np.std(a - b) > 0:
                es = effect_size_intervals(a, b, confidence_level=confidence_level,
                                           n_resamples=n_resamples, rng=gen)
                row.update(d_z=es.d_z, d_z_low=es.d_z_interval.low,
                           d_z_high=es.d_z_interval.high, prob_superiority=es.prob_superiority,
                           ps_low=es.prob_superiority_interval.low,
                           ps_high=es.prob_superiority_interval.high)
            else:
                row.update(d_z=np.nan, d_z_low=np.nan, d_z_high=np.nan,
                           prob_superiority=np.nan, ps_low=np.nan, ps_high=np.nan)
            if margin is not None:
                eq = equivalence_test(a, b, margin=margin, test="t")
                row.update(margin=float(margin), tost_pvalue=eq.pvalue,
                           tost_pvalue_lower=eq.pvalue_lower,
                           tost_pvalue_upper=eq.pvalue_upper)
            else:
                row.update(margin=np.nan, tost_pvalue=np.nan, tost_pvalue_lower=np.nan,
                           tost_pvalue_upper=np.nan)
            rows.append(row)
    cols = ["measure", "a", "b", "difference", "hl_estimate", "hl_low", "hl_high", "hl_level",
            "hl_method", "d_z", "d_z_low", "d_z_high", "prob_superiority", "ps_low",
            "ps_high", "margin", "tost_pvalue", "tost_pvalue_lower", "tost_pvalue_upper",
            "n_queries"]
    return pd.DataFrame(rows, columns=cols)


def mixed_frame(scores, measures, *, confidence_level):
    """:func:`mrrstats.mixed_vs_anova` of every measure, one frame (queries missing for
    some system dropped: the ANOVA needs a complete table).

    Adds the columns ``measure`` and, from the ``attrs``, ``query_variance``,
    ``residual_variance``, ``anova_residual_variance``, ``df_anova``,
    ``n_queries`` and ``converged``.
    """
    parts = []
    for m in measures:
        f = mixed_vs_anova(scores[m], confidence_level=confidence_level, missing="drop")
        at = f.attrs
        f = f.copy()
        f.attrs = {}
        f.insert(0, "measure", m)
        for k in ("query_variance", "residual_variance", "anova_residual_variance",
                  "df_anova", "n_queries", "converged"):
            f[k] = at[k]
        parts.append(f)
    return pd.concat(parts, ignore_index=True)
