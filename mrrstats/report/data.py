"""What a report shows: :class:`ReportData`, the numbers behind every table and figure,
and :class:`ReportResult`, what :func:`mrrstats.make_report` wrote.

A :class:`ReportData` holds data: the per-query scores, the settings and the
result frames of the analysis (:mod:`mrrstats.report.analysis`); its tables
are rendered by :mod:`mrrstats.report.tables`, and it is saved and loaded by
:mod:`mrrstats.report.storage`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..agreement.multiverse import MultiverseResult
from ..deprecation import renamed_attribute
from ..errors import ParameterError
from ..metrics.evaluation import Evaluation, QueryCounts
from ..metrics.measures import parse_measures
from .tables import report_tables

__all__ = ["ReportData", "ReportResult", "per_query_frame", "evaluation_from", "STAT_COLUMNS"]

#: The candidate counts of each (system, query) of a runs report, in ``per_query.csv``.
STAT_COLUMNS = ("num_ret", "num_rel", "num_rel_ret", "num_judged")


@dataclass(frozen=True, eq=False)
class ReportData:
    """Everything a report shows, recomputed from ``per_query.csv`` and ``settings.json``.

    Attributes
    ----------
    scores : dict of str -> pandas.DataFrame
        Per measure, the per-query scores (index ``query``, one column per
        system), every measure in ``per_query.csv``.
    query_stats : pandas.DataFrame or None
        Runs only: ``system, query, num_ret, num_rel, num_rel_ret, num_judged``.
    settings : dict
        The content of ``settings.json``.
    comparison : Comparison
        :func:`mrrstats.compare` on the compared measures.
    versus_control : pandas.DataFrame or None
        Every system against the control system ``settings["control"]`` (None
        without one); formerly ``versus_baseline``.
    random_baseline : pandas.DataFrame or None
        Observed MRR against a uniformly random ranking, per system (runs only).
    rr_summary : pandas.DataFrame or None
        :func:`mrrstats.rr_diagnostics` of the RR measure (None without one).
    agreement : pandas.DataFrame or None
        :func:`mrrstats.ranking_agreement` between the compared measures
        (None with fewer than two measures or three systems).
    notes : tuple of str
        Warnings raised by the analysis (for example, too few resamples for
        the correction to reject anything); also printed under the
        comparison and pairs tables.
    pairs : pandas.DataFrame
        ``comparison.to_frame()`` with ``ci_method``, ``confidence_level`` and
        ``alpha``: every pair's difference, interval, p-values and decision.
    means : pandas.DataFrame
        Per measure and system: the mean and its bootstrap interval
        (``method``, ``confidence_level``, ``n_queries``).
    focus : dict or None
        The pair shown up close: ``measure, a, b, statistic, pvalue, exact,
        n_resamples, test`` of the paired randomization test run on it, and
        the table's ``ci_low, ci_high, ci_method, confidence_level,
        pvalue_table`` for the pair.
    null_distribution : ndarray or None
        That test's null distribution (the mean difference under each
        resampled sign vector).
    power : pandas.DataFrame or None
        Power of the paired t-test against the number of queries
        (:func:`mrrstats.report.power_table`), its ``attrs`` in ``settings["power"]``.
    leaderboard : pandas.DataFrame or None
        Per measure and system: rank, simultaneous rank interval and compact
        letters from the comparison's decisions
        (:func:`mrrstats.report.sections.leaderboard_frame`).
    clustered : pandas.DataFrame or None
        Queries in clusters only: per pair, the query and cluster bootstrap
        intervals and the cluster randomization test
        (:func:`mrrstats.report.sections.clustered_frame`).
    multiverse : MultiverseResult or None
        Runs input only: :func:`mrrstats.multiverse` of the runs over
        :data:`mrrstats.report.sections.MULTIVERSE_OPTIONS` (computed by
        :func:`mrrstats.make_report` from the run files; :func:`mrrstats.report.recompute_report`
        reuses the saved one).
    estimation : pandas.DataFrame or None
        Per measure and pair: the Hodges-Lehmann shift, d_z and the
        probability of superiority with their intervals and, with an
        equivalence margin, the TOST p-values
        (:func:`mrrstats.report.sections.estimation_frame`).
    mixed : pandas.DataFrame or None
        Per measure and pair: the linear mixed model's difference next to the
        two-way ANOVA's (:func:`mrrstats.report.sections.mixed_frame`).
    segments : pandas.DataFrame or None
        With ``segment_by`` only: ``Comparison.segments.frame`` of
        :func:`mrrstats.compare` with the report's options and seed (per
        measure, segment and pair: the test within the segment, adjusted
        across segments).
    segment_means : pandas.DataFrame or None
        The same comparison's ``means_frame`` (per segment means with t
        intervals).
    replicates, calibration, bayesian : pandas.DataFrame or None
        The optional sections of :mod:`mrrstats.report.designs` (``replicates=``,
        ``calibration=``, ``bayesian=`` of :func:`mrrstats.make_report`).
    collections_scores, collections_ranks, collections_tests, collections_pairs, \
collections_meta : pandas.DataFrame or None
        With ``collections=`` only: the section "Across collections"
        (:mod:`mrrstats.report.collections_section`): per measure, collection and
        system the mean and rank; per system the average rank, its interval and
        cliques; Friedman's and Iman-Davenport's tests and the critical difference;
        every pair's Nemenyi test; the meta-analysis of the reference system
        against each other.

    A :class:`ReportData` from :func:`mrrstats.load_report` holds what
    :func:`mrrstats.make_report` saved (``comparison`` is None there: its tables are
    the files in ``tables/``); nothing is recomputed.
    """

    scores: dict = field(repr=False)
    query_stats: pd.DataFrame | None = field(repr=False)
    settings: dict = field(repr=False)
    comparison: object = field(repr=False)
    versus_control: pd.DataFrame | None = field(repr=False)
    random_baseline: pd.DataFrame | None = field(repr=False)
    rr_summary: pd.DataFrame | None = field(repr=False)
    agreement: pd.DataFrame | None = field(repr=False)
    notes: tuple = ()
    pairs: pd.DataFrame | None = field(repr=False, default=None)
    means: pd.DataFrame | None = field(repr=False, default=None)
    focus: dict | None = field(repr=False, default=None)
    null_distribution: np.ndarray | None = field(repr=False, default=None)
    power: pd.DataFrame | None = field(repr=False, default=None)
    leaderboard: pd.DataFrame | None = field(repr=False, default=None)
    clustered: pd.DataFrame | None = field(repr=False, default=None)
    multiverse: MultiverseResult | None = field(repr=False, default=None)
    segments: pd.DataFrame | None = field(repr=False, default=None)
    estimation: pd.DataFrame | None = field(repr=False, default=None)
    mixed: pd.DataFrame | None = field(repr=False, default=None)
    segment_means: pd.DataFrame | None = field(repr=False, default=None)
    #: With ``judge_qrels``: ppi_evaluate's systems and pairs; with unjudged documents in
    #: some run's top 10: judgment_bounds' systems (report.judged_section).
    judge: pd.DataFrame | None = field(repr=False, default=None)
    judge_pairs: pd.DataFrame | None = field(repr=False, default=None)
    judgment_bounds: pd.DataFrame | None = field(repr=False, default=None)
    replicates: pd.DataFrame | None = field(repr=False, default=None)
    calibration: pd.DataFrame | None = field(repr=False, default=None)
    bayesian: pd.DataFrame | None = field(repr=False, default=None)
    #: With ``collections=``: the section "Across collections" (report.collections_section).
    collections_scores: pd.DataFrame | None = field(repr=False, default=None)
    collections_ranks: pd.DataFrame | None = field(repr=False, default=None)
    collections_tests: pd.DataFrame | None = field(repr=False, default=None)
    collections_pairs: pd.DataFrame | None = field(repr=False, default=None)
    collections_meta: pd.DataFrame | None = field(repr=False, default=None)

    #: The name of ``versus_control`` in 0.1 (deprecated).
    versus_baseline = renamed_attribute("versus_control")

    @property
    def measures(self) -> list:
        """The compared measures (the columns of the comparison table)."""
        return list(self.settings["measures"])

    @property
    def systems(self) -> list:
        return list(self.settings["systems"])

    @property
    def rr_measure(self) -> str | None:
        """Name of the RR-type measure used for baselines and distributions, or None."""
        return self.settings.get("rr_measure")

    def evaluation(self) -> Evaluation:
        """The per-query values as an :class:`mrrstats.Evaluation` (runs input only).

        Rebuilt from ``per_query.csv`` and ``settings.json``, for functions
        that want an Evaluation (e.g. the random-ranking references of
        :mod:`mrrstats.plots`).
        """
        if self.query_stats is None:
            raise ParameterError("this report was made from score matrices: there is no "
                             "Evaluation (no candidate counts)")
        return evaluation_from(self.scores, self.query_stats, self.settings)

    def tables(self) -> dict:
        """``{relative file name: text}`` of every table file of the report
        (:func:`mrrstats.report.tables.report_tables`)."""
        return report_tables(self)

    def per_query_frame(self) -> pd.DataFrame:
        """The content of ``per_query.csv``."""
        return per_query_frame(self.scores, self.query_stats,
                               list(self.settings["evaluated_measures"]), self.systems)


@dataclass(frozen=True, eq=False)
class ReportResult:
    """What :func:`mrrstats.make_report` wrote.

    Attributes
    ----------
    path : pathlib.Path
        The output folder.
    files : tuple of str
        Files written, relative to ``path``, sorted.
    data : ReportData
        The numbers behind the tables.
    seconds : dict of str -> float
        Wall-clock time of each step (``"analysis"``, ``"notebook"``, ``"html"``).
    """

    path: Path
    files: tuple
    data: ReportData = field(repr=False)
    seconds: dict = field(repr=False)




def per_query_frame(scores, query_stats, measures, systems):
    """Wide frame: system, query, [num_ret, num_rel, num_rel_ret, num_judged], measures."""
    parts = []
    for s in systems:
        cols = {m: scores[m][s] for m in measures}
        frame = pd.DataFrame(cols)
        frame = frame.dropna(how="all")
        frame.index = frame.index.astype(str)
        frame.index.name = "query"
        frame = frame.reset_index()
        frame.insert(0, "system", s)
        parts.append(frame)
    wide = pd.concat(parts, ignore_index=True)
    if query_stats is not None:
        st = query_stats[["system", "query", *STAT_COLUMNS]].copy()
        st["query"] = st["query"].astype(str)
        wide = wide.merge(st, on=["system", "query"], how="left", validate="one_to_one")
        if wide[list(STAT_COLUMNS)].isna().any().any():
            raise ParameterError("query statistics are missing for some (system, query) pairs")
        wide = wide[["system", "query", *STAT_COLUMNS, *measures]]
        for c in STAT_COLUMNS:
            wide[c] = wide[c].astype(np.int64)
    return wide


def evaluation_from(scores, query_stats, settings):
    """The Evaluation of a runs report, rebuilt from its per-query data."""
    names = list(settings["evaluated_measures"])
    systems = list(settings["systems"])
    values = {}
    for s in systems:
        frame = pd.DataFrame({m: scores[m][s] for m in names})
        frame = frame.dropna(how="all")
        frame.index.name = "query"
        frame.columns.name = "measure"
        values[s] = frame
    counts = {}
    for s, c in settings["input"]["query_counts"].items():
        counts[s] = QueryCounts(int(c["evaluated"]), ("?",) * int(c["qrels_only"]),
                                ("?",) * int(c["run_only"]), ("?",) * int(c["no_relevant"]))
    stats = query_stats.rename(columns={"system": "run"})
    ev = settings["evaluation"]
    conv = {k: ev[k] for k in ("ties", "rel", "queries", "max_depth")}
    return Evaluation(measures=parse_measures(names), runs=tuple(systems), values=values,
                      counts=counts, query_stats=stats, settings=conv)
