"""The analysis behind a report, run once: every number its tables and figures show.

:func:`analyse` runs :func:`mrrstats.compare` on each measure and every other
analysis of the report (random-ranking baselines, agreement between
measures, bootstrap intervals of the means, the pair shown up close, the
sections of :mod:`mrrstats.report.sections`, power) with one Generator in the
documented order, and returns a :class:`~mrrstats.report.data.ReportData`.
:func:`recompute_report` runs it again from a report folder, to check it.
"""

from __future__ import annotations

import dataclasses
import json
import math
import numbers
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from ..agreement.diagnostics import rr_diagnostics
from ..agreement.measures import ranking_agreement
from ..baselines.random_ranking import evaluation_baseline
from ..errors import ParameterError
from ..metrics.measures import parse_measure
from ..progress import tracking
from ..stats.bootstrap import bootstrap_ci
from ..stats.compare import compare
from ..stats.effects import residual_variance
from ..stats.multiple import adjust_pvalues
from ..stats.power import ttest_power
from ..stats.randomization import randomization_test
from ..stats.registry import CORRECTIONS, FAMILY_TESTS
from .collections_section import load_collections
from .data import ReportData, evaluation_from
from .designs import design_frames
from .judged_section import load_judged
from .sections import (
    cluster_labels,
    clustered_frame,
    estimation_frame,
    leaderboard_frame,
    mixed_frame,
)
from .storage import load_multiverse, read_per_query, read_settings

__all__ = ["analyse", "recompute_report", "power_table", "mean_intervals", "focus_pair",
           "versus_control", "say", "is_rr"]


def analyse(scores, query_stats, settings, evaluation=None, progress=False,
            multiverse=None, workers=-1, judged=None):
    """Run the analysis once: every number of the tables and figures.

    ``evaluation`` is the :class:`Evaluation` of runs input (rebuilt from the
    per-query data when not given); the random baseline of each system is
    :func:`mrrstats.evaluation_baseline`'s. ``multiverse`` is the
    :class:`MultiverseResult` computed from the run files (by
    :func:`mrrstats.make_report`), kept as it is. ``workers`` is passed to the
    resampling (it changes no number).
    """
    cs = settings["comparison"]
    measures = list(settings["measures"])
    gen = np.random.default_rng(settings["seed"])
    n_steps = len(measures) + (1 if settings.get("random_baseline") else 0)
    comparison, notes = _compare_each_measure(scores, settings, gen, progress, n_steps)
    versus = None
    if settings.get("control") is not None:
        versus = versus_control(comparison, settings["control"])
    rr_summary = None
    if settings.get("rr_measure") is not None:
        rr_frame = scores[settings["rr_measure"]]
        rr_summary = rr_diagnostics(rr_frame.dropna() if cs["missing"] == "drop" else rr_frame)
    random_table = None
    if settings.get("random_baseline"):
        if evaluation is None:
            evaluation = evaluation_from(scores, query_stats, settings)
        random_table = _random_baseline(evaluation, settings, comparison.systems, gen,
                                        progress, n_steps)
    agreement = _agreement(scores, measures, comparison.systems, cs["missing"])
    pairs = comparison.to_frame()
    if "ci_method" not in pairs.columns:
        pairs["ci_method"] = comparison.ci_method
    pairs["confidence_level"] = comparison.confidence_level
    pairs["alpha"] = comparison.alpha
    means = mean_intervals(scores, measures, comparison, cs, gen, workers=workers)
    focus, null = focus_pair(scores, measures[0], comparison, settings, pairs, gen,
                             workers=workers)
    leaderboard = leaderboard_frame(scores, measures, pairs, comparison.systems)
    clustered = None
    if settings.get("clusters"):
        labels, _ = cluster_labels(scores[measures[0]].index,
                                   settings["clusters"].get("labels") or "auto")
        with tracking("mrrstats report: cluster bootstrap", progress=progress):
            clustered = clustered_frame(scores, measures, pairs, labels,
                                        confidence_level=cs["confidence_level"],
                                        n_resamples=cs["n_resamples"], alpha=cs["alpha"],
                                        gen=gen, workers=workers)
    margin = (settings.get("estimation") or {"margin": None})["margin"]
    estimation = estimation_frame(scores, measures, pairs,
                                  confidence_level=cs["confidence_level"],
                                  n_resamples=cs["n_resamples"], margin=margin, gen=gen)
    mixed = mixed_frame(scores, measures, confidence_level=cs["confidence_level"])
    segments = segment_means = None
    if settings.get("segments"):
        segments, segment_means = _segments(scores, measures, settings)
    # the optional sections (several runs, calibration, Bayesian), each with its own
    # Generator (report.designs)
    designs = design_frames(scores, settings, pairs, workers=workers)
    power = power_table(scores[measures[0]].dropna(), differences=settings["power"]["differences"],
                        alpha=settings["power"]["alpha"], target=settings["power"]["target"])
    return ReportData(scores=scores, query_stats=query_stats, settings=settings,
                      comparison=comparison, versus_control=versus,
                      random_baseline=random_table, rr_summary=rr_summary,
                      agreement=agreement, notes=tuple(notes), pairs=pairs, means=means,
                      focus=focus, null_distribution=null, power=power,
                      leaderboard=leaderboard, clustered=clustered, multiverse=multiverse,
                      estimation=estimation, mixed=mixed,
                      segments=segments, segment_means=segment_means, **(judged or {}),
                      **designs)


def _compare_each_measure(scores, settings, gen, progress, n_steps):
    """:func:`mrrstats.compare` of each measure in order (one Generator), as one Comparison,
    and the notes: the warnings mrrstats raised, prefixed with their measure."""
    cs = settings["comparison"]
    measures = list(settings["measures"])
    parts = {}
    notes = []
    for i, m in enumerate(measures):
        frame = scores[m]
        t0 = time.perf_counter()
        say(progress, f"[{i + 1}/{n_steps}] {m}: {cs['test']} test, {frame.shape[1]} systems, "
            f"{frame.shape[0]} queries, B = {cs['n_resamples']} ...", end="")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            parts[m] = compare({m: frame}, test=cs["test"], correction=cs["correction"],
                               alpha=cs["alpha"], n_resamples=cs["n_resamples"],
                               confidence_level=cs["confidence_level"],
                               alternative=cs["alternative"], missing=cs["missing"], rng=gen,
                               progress=progress)
        for w in caught:
            if not _is_own_warning(w):
                # another library's warning (e.g. one that a dependency gives once per
                # process): passed on, but not a note of the report, which must not
                # depend on what ran before in the process
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
                continue
            note = f"{m}: {w.message}"
            if note not in notes:
                notes.append(note)
                warnings.warn(note, w.category, stacklevel=3)
        say(progress, f" {time.perf_counter() - t0:.1f} s", prefix=False)
    first = parts[measures[0]]
    for m, p in parts.items():
        if p.systems != first.systems:
            raise ParameterError(f"measure {m!r} compares systems {list(p.systems)}, but "
                             f"{measures[0]!r} compares {list(first.systems)}")
    results = {m: dataclasses.replace(p.results[m], seed=settings["seed"])
               for m, p in parts.items()}
    comparison = dataclasses.replace(first, results=results, measures=tuple(measures),
                                     seed=settings["seed"])
    return comparison, notes


def _random_baseline(evaluation, settings, systems, gen, progress, n_steps):
    """:func:`mrrstats.evaluation_baseline` of every system (in order), from ``gen``."""
    rb = settings["random_baseline"]
    t0 = time.perf_counter()
    say(progress, f"[{n_steps}/{n_steps}] random-ranking baseline ({rb['random']} model, "
        f"{rb['measure']}) for {len(systems)} systems ...", end="")
    table = evaluation_baseline(
        evaluation, random=rb["random"], measure=rb["measure"], alternative=rb["alternative"],
        method=rb["method"], n_resamples=rb["n_resamples"], rng=gen).loc[list(systems)]
    table.index.name = "system"
    say(progress, f" {time.perf_counter() - t0:.1f} s", prefix=False)
    return table


def _agreement(scores, measures, systems, missing):
    """:func:`mrrstats.ranking_agreement` of the measures (None below 2 measures or 3
    systems), on the queries every measure has with ``missing="drop"``."""
    if len(measures) < 2 or len(systems) < 3:
        return None
    frames = {m: scores[m] for m in measures}
    if missing == "drop":
        common = None
        for f in frames.values():
            idx = f.dropna().index
            common = idx if common is None else common.intersection(idx, sort=False)
        frames = {m: f.loc[common] for m, f in frames.items()}
    return ranking_agreement(frames)


def _segments(scores, measures, settings):
    """``(segments frame, segment means)`` of :func:`mrrstats.compare` with ``segment_by``.

    Its own Generator seeded with the seed: the same numbers as
    ``compare(scores, segment_by=..., rng=seed)`` with the report's options.
    """
    cs, sg = settings["comparison"], settings["segments"]
    seg = compare({m: scores[m] for m in measures}, test=cs["test"],
                  correction=cs["correction"], alpha=cs["alpha"],
                  n_resamples=cs["n_resamples"], confidence_level=cs["confidence_level"],
                  alternative=cs["alternative"], missing=cs["missing"],
                  segment_by=dict(sg["labels"]),
                  segment_correction=sg["segment_correction"], rng=settings["seed"],
                  progress=False).segments
    return seg.frame, seg.means_frame


def mean_intervals(scores, measures, comparison, cs, gen, *, workers=-1):
    """Each system's mean with its bootstrap interval, per measure (one Generator, in order)."""
    method = comparison.ci_method if comparison.ci_method in ("bca", "percentile", "basic") \
        else "bca"
    rows = []
    for m in measures:
        frame = scores[m].dropna()
        for s in comparison.systems:
            res = bootstrap_ci(frame[s].to_numpy(np.float64), method=method,
                               confidence_level=cs["confidence_level"],
                               n_resamples=cs["n_resamples"], workers=workers,
                               rng=gen)
            ci = res.confidence_interval()
            rows.append({"measure": m, "system": s, "mean": float(res.statistic),
                         "ci_low": float(ci.low), "ci_high": float(ci.high),
                         "method": method, "confidence_level": float(ci.confidence_level),
                         "n_queries": int(frame.shape[0])})
    return pd.DataFrame(rows)


def focus_pair(scores, measure, comparison, settings, pairs, gen, *, workers=-1):
    """The pair shown up close, its paired randomization test and the test's null."""
    frame = scores[measure].dropna()
    means = frame.mean()
    control = settings.get("control")
    if control is not None:
        pair = (str(means.drop(control).idxmax()), control)
    else:
        order = means.sort_values(ascending=False, kind="stable").index
        pair = (str(order[0]), str(order[1]))
    row = pairs[(pairs["measure"] == measure) & (
        ((pairs["a"] == pair[0]) & (pairs["b"] == pair[1])) |
        ((pairs["a"] == pair[1]) & (pairs["b"] == pair[0])))].iloc[0]
    sign = 1.0 if row["a"] == pair[0] else -1.0
    lo, hi = sorted((sign * float(row["ci_low"]), sign * float(row["ci_high"])))
    res = randomization_test(frame[pair[0]].to_numpy(np.float64),
                             frame[pair[1]].to_numpy(np.float64),
                             alternative=comparison.alternative,
                             n_resamples=settings["comparison"]["n_resamples"],
                             workers=workers, rng=gen)
    null = getattr(res, "null_distribution", None)
    focus = {"measure": measure, "a": pair[0], "b": pair[1], "test": "randomization",
             "statistic": float(res.statistic), "pvalue": float(res.pvalue),
             "exact": bool(res.exact), "n_resamples": int(res.n_resamples),
             "alternative": res.alternative, "n_queries": int(res.n_queries),
             "ci_low": lo, "ci_high": hi, "ci_method": str(row["ci_method"]),
             "confidence_level": float(row["confidence_level"]),
             "pvalue_table": float(row["pvalue"]),
             "pvalue_adjusted_table": float(row["pvalue_adjusted"]),
             "test_table": str(row["test"]),
             "null_distribution": None if null is None else "null_distribution.npy"}
    return focus, (None if null is None else np.asarray(null, dtype=np.float64))


def versus_control(comparison, control):
    """Rows of the all-pairs result that involve ``control``, oriented system - control.

    The interval of each row is the pair's interval in the all-pairs table; the
    p-values are adjusted over the :math:`k - 1` comparisons with the control
    (for a family-wise test, its adjustment over all pairs is kept).
    """
    rows = []
    for m in comparison.measures:
        r = comparison.results[m]
        idx, sign = [], []
        for q, (a, b) in enumerate(zip(r.a, r.b, strict=True)):
            if a == control:
                idx.append(q)
                sign.append(-1.0)
            elif b == control:
                idx.append(q)
                sign.append(1.0)
        idx = np.asarray(idx, dtype=np.int64)
        sign = np.asarray(sign)
        p = r.pvalue[idx]
        if r.test in FAMILY_TESTS or CORRECTIONS[r.correction].joint_null:
            # the family of all pairs (conservative for the comparisons with one system)
            p_adj, reject = r.pvalue_adjusted[idx], r.reject[idx]
        else:
            p_adj, reject = adjust_pvalues(p, r.correction, r.alpha)
        lo = np.where(sign > 0, r.ci_low[idx], -r.ci_high[idx])
        hi = np.where(sign > 0, r.ci_high[idx], -r.ci_low[idx])
        for j, q in enumerate(idx):
            against = r.b[q] == control
            system = r.a[q] if against else r.b[q]
            mean = r.mean_a[q] if against else r.mean_b[q]
            control_mean = r.mean_b[q] if against else r.mean_a[q]
            rows.append({"measure": m, "system": system, "mean": float(mean),
                         "control_mean": float(control_mean),
                         "difference": float(mean - control_mean),
                         "ci_low": float(lo[j]), "ci_high": float(hi[j]),
                         "pvalue": float(p[j]), "pvalue_adjusted": float(p_adj[j]),
                         "reject": bool(reject[j])})
    return pd.DataFrame(rows)


def power_table(scores, *, differences=(0.02, 0.05, 0.1), n_queries=None, alpha=0.05,
                alternative="two-sided", target=0.8):
    """Power of the paired t-test against the number of queries, per true difference.

    The numbers that :func:`mrrstats.plots.power_curve` draws: the standard
    deviation of per-query differences is estimated from a pilot score matrix
    as :math:`\\sqrt{2 V_E}` (:func:`mrrstats.residual_variance`, as
    :func:`mrrstats.topic_set_size` does) or given as a number, and the power
    is :func:`mrrstats.ttest_power`'s.

    Parameters
    ----------
    scores : DataFrame or float
        Pilot per-query scores (rows = queries, columns = systems), or the
        standard deviation of per-query differences.
    differences : sequence of float, keyword-only
    n_queries : array_like of int, optional, keyword-only
        Default 5 to 200, extended (up to 1000) to where every curve reaches
        ``target``.
    alpha, alternative, target : keyword-only

    Returns
    -------
    pandas.DataFrame
        Columns ``difference, n_queries, power, n_required``; ``attrs`` hold
        ``sd, alpha, alternative, target, test``.

    Examples
    --------
    >>> from mrrstats.report import power_table
    >>> t = power_table(0.3, differences=(0.1,), n_queries=[10, 50, 100])
    >>> t[["n_queries", "power", "n_required"]].round(3).to_numpy().tolist()
    [[10.0, 0.157, 73.0], [50.0, 0.637, 73.0], [100.0, 0.91, 73.0]]
    """
    if isinstance(scores, numbers.Real) and not isinstance(scores, bool):
        sd = float(scores)
    else:
        sd = math.sqrt(2.0 * residual_variance(scores))
    diffs = [float(d) for d in differences]
    needs = [ttest_power(difference=d, std=sd, power=target, alpha=alpha,
                         alternative=alternative).n_queries_required for d in diffs]
    if n_queries is None:
        top = min(1000, max(200, int(math.ceil(1.15 * max(needs) / 50) * 50)))
        n = np.arange(5, top + 1) if top <= 400 else np.unique(
            np.linspace(5, top, 400).astype(np.int64))
    else:
        n = np.unique(np.asarray(n_queries, dtype=np.int64))
    rows = [{"difference": d, "n_queries": int(m),
             "power": ttest_power(difference=d, std=sd, n_queries=int(m), alpha=alpha,
                                  alternative=alternative).power, "n_required": int(need)}
            for d, need in zip(diffs, needs, strict=True) for m in n]
    table = pd.DataFrame(rows)
    table.attrs.update(sd=sd, alpha=alpha, alternative=alternative, target=target,
                       test="paired t")
    return table


def _is_own_warning(w) -> bool:
    """Whether a caught warning was raised by mrrstats itself (an analysis note)."""
    # a warning class of another library (e.g. numba's compilation warnings, which
    # point at the jitted mrrstats source but come once per process) is not ours
    if str(getattr(w.category, "__module__", "")).split(".")[0] not in ("builtins",
                                                                        "mrrstats"):
        return False
    package = Path(__file__).resolve().parent.parent
    try:
        return Path(w.filename).resolve().is_relative_to(package)
    except (TypeError, ValueError, OSError):
        return False


def recompute_report(path, *, progress=False, workers=-1) -> ReportData:
    """Run a report's analysis again from its ``per_query.csv`` and ``settings.json``.

    For checking a report: ``recompute_report(path).tables()`` equals the
    files in ``path/tables`` when the package versions are the same. The
    multiverse needs the run files, so its saved result is reused.
    ``workers`` is passed to the resampling (it changes no number).
    """
    path = Path(path)
    settings = read_settings(path)
    scores, stats = read_per_query(path / "per_query.csv", settings["evaluated_measures"],
                                   settings["systems"], settings["input"]["kind"] == "runs")
    manifest_path = path / "results" / "results.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8")) \
        if manifest_path.is_file() else {}
    # the multiverse needs the run files: the saved one is kept as it is
    return analyse(scores, stats, settings, progress=progress, workers=workers,
                   multiverse=load_multiverse(path / "results", manifest),
                   judged={**load_judged(path / "results"),
                           **load_collections(path / "results")})


def say(progress, msg, end="\n", prefix=True):
    """Print a progress line on standard error when ``progress`` is true."""
    if progress:
        print(f"mrrstats report: {msg}" if prefix else msg, file=sys.stderr, end=end,
              flush=True)


def is_rr(name):
    """Whether ``name`` is an RR-type measure (``RR``, ``RR@10``, ...)."""
    try:
        return parse_measure(name).name == "RR"
    except (ValueError, TypeError):
        return False
