r"""Reproducible reports: tables, per-query data, settings and an executed notebook.

:func:`make_report` evaluates TREC runs (or reads per-query score matrices),
runs every analysis of the package on them and writes a folder that can be
sent to a reviewer or attached to a paper::

    out/
      report.ipynb       the executed notebook (tables and figures)
      report.html        the same, self-contained: figures embedded, no network needed
      per_query.csv      one row per system and query: every measure (and, for runs,
                         the counts num_ret, num_rel, num_rel_ret, num_judged)
      settings.json      every convention, the seed, B, package versions and the
                         SHA-256 of each input file
      tables/            Markdown (.md) and LaTeX (.tex) tables:
        comparison       means with significance superscripts (mrrstats.compare)
        pairs            every pair: difference, CI, raw and adjusted p-values
        versus_baseline  every system against --baseline (if given)
        random_baseline  observed MRR against a uniformly random ranking (runs only)
        rr_summary       MRR, median RR, share of RR = 1 and = 0, mean first ranks
        agreement        Kendall's tau, tau_AP and Spearman's rho between measures
        leaderboard      rank intervals and compact letters per measure
        clustered        query vs cluster bootstrap intervals, cluster sign-flip test
                         (queries in clusters, e.g. CAsT conversations)
        multiverse       what changes under other conventions (runs input)
        estimation       per pair: Hodges-Lehmann shift, d_z and P(a > b) with intervals,
                         TOST against the margin (with equivalence_margin)
        mixed            per pair: the linear mixed model's difference next to the
                         two-way ANOVA's
        segments         per segment and pair: the test within the segment, adjusted across
                         segments (only with segment_by)
      tables/comparison.json   the stable JSON contract of Comparison.to_json()
      results/           what the notebook draws, saved by the one run of the analysis:
        pairs.csv, means.csv, versus_baseline.csv, random_baseline.csv, rr_summary.csv,
        agreement.csv, power.csv, leaderboard.csv, clustered.csv, multiverse_*.csv,
        estimation.csv, mixed.csv,
        segments.csv, segment_means.csv (with segment_by),
        null_distribution.npy (the null distribution of the test of the pair shown up
        close, when the test keeps it) and results.json
      screenshots/       (example report only) the page as Chromium shows it

:func:`make_report` runs the analysis once (:func:`recompute_report` runs it
again from ``per_query.csv`` and ``settings.json``, to check a report); the
notebook calls :func:`load_report` on its own folder, which loads the saved
results and recomputes nothing, and draws them: the figures and the tables
show the same numbers. It can be re-run by itself (``jupyter nbconvert
--execute report.ipynb``) wherever ``mrrstats`` is installed, without the
original runs. Every file contains no timestamp or random id and is
byte-identical when the report is made again from the same inputs with the
same seed and package versions.

Random numbers: one :class:`numpy.random.Generator` seeded with ``rng`` serves,
in this order, the significance test of every measure (in measure order), the
Monte-Carlo random-ranking test of every system (in system order), the
bootstrap interval of every system's mean, the randomization test of the
pair shown up close and, when the queries come in clusters, for each measure
and pair the query bootstrap, the cluster bootstrap and the cluster
randomization test, and then, for each measure and pair, the bootstrap of the
probability of superiority (estimation section). The leaderboard uses the
comparison's decisions and the multiverse the paired t test, and the mixed
model and the Hodges-Lehmann and TOST numbers are exact: none of them draws
random numbers. The segments
(``segment_by``) are :func:`mrrstats.compare`'s with a Generator of their own
seeded with the same seed, so they leave every other number unchanged. The
notebook draws no random numbers.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import numbers
import os
import shutil
import sys
import tempfile
import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from .. import defaults
from ..agreement.diagnostics import rr_diagnostics
from ..agreement.measures import ranking_agreement
from ..agreement.multiverse import MultiverseResult
from ..baselines.random_ranking import evaluation_baseline
from ..defaults import default_ties
from ..formatting import (
    DIGITS,
    fixed,
    latex_table,
    markdown_table,
    percent,
    pvalue_text,
)
from ..io.trec import read_score_matrix
from ..metrics.evaluation import Evaluation, QueryCounts, evaluate
from ..metrics.measures import parse_measure, parse_measures
from ..model.scoretable import score_sources
from ..progress import progress_enabled, tracking
from ..stats.compare import compare
from ..stats.multiple import adjust_pvalues
from ..stats.power import ttest_power
from ..stats.registry import FAMILY_TESTS, correction_label, correction_spec, test_label, test_spec
from ..stats.significance import bootstrap_ci, randomization_test, residual_variance
from ..validation import alpha_iv, alternative_iv, confidence_level_iv, int_iv, rng_iv
from ..version import __version__
from .judged_section import (
    JUDGED_TABLES,
    add_judged_cells,
    bounds_rows,
    judge_rows,
    judged_results,
)
from .plots import interval_name, one_option_at_a_time
from .sections import (
    MULTIVERSE_OPTIONS,
    cluster_labels,
    clustered_frame,
    estimation_frame,
    leaderboard_frame,
    mixed_frame,
    multiverse_result,
)

__all__ = ["ReportData", "ReportResult", "make_report", "load_report", "REPORT_FILES"]

FORMAT_VERSION = 1
_RANDOM_MODELS = ("retrieved", "judged")
_STAT_COLUMNS = ("num_ret", "num_rel", "num_rel_ret", "num_judged")
_VERSION_PACKAGES = ("mrrstats", "numpy", "scipy", "pandas", "statsmodels", "matplotlib")
#: Below this many systems the agreement section says that tau is not informative.
_FEW_SYSTEMS = 7
#: Saved results of the analysis (what the notebook draws), under ``results/``.
_RESULT_TABLES = ("pairs", "means", "versus_baseline", "random_baseline", "rr_summary",
                  "agreement", "power", "leaderboard", "clustered", "estimation", "mixed")
_MULTIVERSE_FRAMES = ("summary", "systems", "pairs")
#: Files every report folder contains (tables that do not apply are omitted).
REPORT_FILES = ("report.ipynb", "report.html", "per_query.csv", "settings.json",
                "tables/comparison.md", "tables/comparison.tex", "tables/comparison.json",
                "tables/pairs.md", "tables/pairs.tex")


# --------------------------------------------------------------------------
# small formatting helpers (deterministic: fixed digits, no locale)
# --------------------------------------------------------------------------

# --------------------------------------------------------------------------
# results
# --------------------------------------------------------------------------

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
    versus_baseline : pandas.DataFrame or None
        Every system against ``settings["baseline"]`` (None without one).
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
        (:func:`power_table`), its ``attrs`` in ``settings["power"]``.
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
        :func:`make_report` from the run files; :func:`recompute_report`
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
    judge, judge_pairs : pandas.DataFrame or None
        With ``judge_qrels`` only: :func:`mrrstats.ppi_evaluate`'s ``systems``
        and ``pairs`` (:mod:`mrrstats.report.judged_section`).
    bounds : pandas.DataFrame or None
        When some run retrieves unjudged documents in its top 10:
        :func:`mrrstats.judgment_bounds`'s ``systems``.

    A :class:`ReportData` from :func:`load_report` holds what
    :func:`make_report` saved (``comparison`` is None there: its tables are
    the files in ``tables/``); nothing is recomputed.
    """

    scores: dict = field(repr=False)
    query_stats: pd.DataFrame | None = field(repr=False)
    settings: dict = field(repr=False)
    comparison: object = field(repr=False)
    versus_baseline: pd.DataFrame | None = field(repr=False)
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
    judge: pd.DataFrame | None = field(repr=False, default=None)
    judge_pairs: pd.DataFrame | None = field(repr=False, default=None)
    bounds: pd.DataFrame | None = field(repr=False, default=None)

    @property
    def measures(self) -> list:
        """The compared measures (the columns of the comparison table)."""
        return list(self.settings["measures"])

    @property
    def systems(self) -> list:
        return list(self.settings["systems"])

    @property
    def rr_measure(self):
        """Name of the RR-type measure used for baselines and distributions, or None."""
        return self.settings.get("rr_measure")

    def evaluation(self):
        """The per-query values as an :class:`mrrstats.Evaluation` (runs input only).

        Rebuilt from ``per_query.csv`` and ``settings.json``, for functions
        that want an Evaluation (e.g. the random-ranking references of
        :mod:`mrrstats.plots`).
        """
        if self.query_stats is None:
            raise ValueError("this report was made from score matrices: there is no "
                             "Evaluation (no candidate counts)")
        return _evaluation_from(self.scores, self.query_stats, self.settings)

    # -- tables -------------------------------------------------------------
    def tables(self) -> dict:
        """``{relative file name: text}`` of every table file of the report."""
        if self.comparison is None:
            raise ValueError("this ReportData was loaded (load_report): its tables are the "
                             "files in tables/; recompute_report(path).tables() runs the "
                             "analysis again to check them")
        out = {}
        cmp_ = self.comparison
        md_notes = "".join(f"\n**Warning.** {n}\n" for n in self.notes)
        tex_notes = "".join(f"% Warning: {n}\n" for n in self.notes)
        out["comparison.md"] = cmp_.to_markdown(digits=DIGITS) + md_notes
        out["comparison.tex"] = tex_notes + cmp_.to_latex(digits=DIGITS,
                                                          label="tab:comparison")
        out["comparison.json"] = cmp_.to_json() + "\n"
        header, rows, align, caption = self._pairs_rows()
        out["pairs.md"] = markdown_table(header, rows, align, caption) + md_notes
        out["pairs.tex"] = tex_notes + latex_table(header, rows, align, caption, "tab:pairs")
        for name, builder in (("versus_baseline", self._versus_baseline_rows),
                              ("random_baseline", self._random_baseline_rows),
                              ("rr_summary", self._rr_summary_rows),
                              ("agreement", self._agreement_rows),
                              ("leaderboard", self._leaderboard_rows),
                              ("clustered", self._clustered_rows),
                              ("multiverse", self._multiverse_rows),
                              ("estimation", self._estimation_rows),
                              ("mixed", self._mixed_rows),
                              ("segments", self._segments_rows),
                              ("judge", lambda: judge_rows(self)),
                              ("bounds", lambda: bounds_rows(self))):
            built = builder()
            if built is None:
                continue
            header, rows, align, caption = built
            out[f"{name}.md"] = markdown_table(header, rows, align, caption)
            out[f"{name}.tex"] = latex_table(header, rows, align, caption, f"tab:{name}")
        return out

    def _test_phrase(self):
        c = self.comparison
        r0 = c.results[c.measures[0]]
        corr = correction_label(r0.correction)
        side = {"two-sided": "two-sided", "greater": "one-sided (a better)",
                "less": "one-sided (a worse)"}[c.alternative]
        text = f"{test_label(c.test)}, {side}"
        if r0.n_resamples is not None:
            text += (f", exact ({r0.n_resamples} sign vectors)" if r0.exact
                     else f", B = {c.n_resamples}, seed = {self.settings['seed']}")
        return text, corr, r0.correction

    def _pairs_rows(self):
        c = self.comparison
        frame = c.to_frame()
        cl = c.confidence_level
        rows = []
        for r in frame.itertuples(index=False):
            rows.append([r.measure, r.a, r.b, fixed(r.mean_a), fixed(r.mean_b), fixed(r.diff),
                         f"[{fixed(r.ci_low)}, {fixed(r.ci_high)}]", pvalue_text(r.pvalue),
                         pvalue_text(r.pvalue_adjusted), "yes" if r.reject else "no",
                         fixed(r.d_z, 2),
                         f"{r.wins}/{r.ties}/{r.losses}"])
        header = ["measure", "a", "b", "mean a", "mean b", "a - b",
                  f"{cl:.0%} CI", "p", "p adj.", "reject", "d_z",
                  "W/T/L"]
        test, corr, _ = self._test_phrase()
        caption = (f"Every pair of systems: mean difference a - b with its {cl:.0%} "
                   f"confidence interval ({_interval_phrase(c.ci_method)}), raw p-value of "
                   f"the {test}, "
                   f"p-value adjusted over the pairs of each measure ({corr}), decision at "
                   f"alpha = {c.alpha:g}, standardised effect d_z (mean difference / sd of "
                   "the differences) and queries won/tied/lost by a.")
        return header, rows, "lll" + "r" * 9, caption

    def _versus_baseline_rows(self):
        vb = self.versus_baseline
        if vb is None:
            return None
        c = self.comparison
        cl = c.confidence_level
        rows = [[r.measure, r.system, fixed(r.mean), fixed(r.baseline_mean), fixed(r.diff),
                 f"[{fixed(r.ci_low)}, {fixed(r.ci_high)}]", pvalue_text(r.pvalue),
                 pvalue_text(r.pvalue_adjusted),
                 "yes" if r.reject else "no"] for r in vb.itertuples(index=False)]
        base = self.settings["baseline"]
        header = ["measure", "system", "mean", f"mean {base}", "diff",
                  f"{cl:.0%} CI", "p", "p adj.", "reject"]
        test, corr, rcorr = self._test_phrase()
        if rcorr in ("none",):
            fam = "no multiple-comparison correction"
        elif c.test in ("tukey", "maxt", "anova-hsd"):
            fam = (f"p-values adjusted by the {corr} procedure over all pairs of systems "
                   "(conservative for comparisons with one baseline)")
        else:
            fam = (f"p-values adjusted with {corr} over the {len(self.systems) - 1} "
                   "comparisons with the baseline of each measure")
        caption = (f"Each system against the baseline {base}: difference system - baseline "
                   f"with its {cl:.0%} confidence interval ({_interval_phrase(c.ci_method)}, "
                   f"the interval of the pair in the pairs table), raw p-value of the {test}; "
                   f"{fam}; reject at alpha = {c.alpha:g}.")
        return header, rows, "ll" + "r" * 7, caption

    def _random_baseline_rows(self):
        rb = self.random_baseline
        if rb is None:
            return None
        s = self.settings["random_baseline"]
        rows = []
        for name, r in rb.iterrows():
            rows.append([name, str(int(r.queries)), fixed(r.observed), fixed(r.expected),
                         fixed(r["std"]), fixed(r.adjusted), fixed(r.z, 2),
                         pvalue_text(r.pvalue), r.method])
        m = s["measure"]
        header = ["system", "queries", f"M{m}" if m.startswith("RR") else m,
                  "E (random)", "sd (random)", "adjusted", "z", "p", "p method"]
        model = ("a uniformly random permutation of each retrieved list (N = documents "
                 "retrieved, R = relevant documents retrieved, per query)"
                 if s["random"] == "retrieved" else
                 "a uniformly random ranking of each query's judged pool (N = judged "
                 "documents, R = judged relevant documents)")
        methods = set(rb["method"])
        pm = []
        if "exact" in methods:
            pm.append("exact (convolution of the per-query null distributions)")
        if "monte-carlo" in methods:
            pm.append(f"Monte Carlo (b + 1)/(B + 1) with B = {s['n_resamples']}, "
                      f"seed = {self.settings['seed']}")
        caption = (f"Observed mean {m} against {model}. E and sd: exact expectation and "
                   f"standard deviation of the mean under random ranking; adjusted = "
                   f"(M - E)/(1 - E) (0 = random, 1 = perfect); z = (M - E)/sd; p: "
                   f"one-sided test of 'better than random', {' or '.join(pm)}.")
        return header, rows, "lr" + "r" * 6 + "l", caption

    def _rr_summary_rows(self):
        rs = self.rr_summary
        if rs is None:
            return None
        m = self.rr_measure
        rows = []
        for name, r in rs.iterrows():
            rows.append([name, fixed(r.mrr), fixed(r.median_rr), percent(r.share_rr_one),
                         percent(r.share_rr_zero), fixed(r.harmonic_mean_rank, 2),
                         fixed(r.geometric_mean_rank, 2), fixed(r.arithmetic_mean_rank, 2)])
        header = ["system", f"M{m}", f"median {m}", f"{m} = 1", f"{m} = 0", "HM rank",
                  "GM rank", "AM rank"]
        n_degenerate = int(rs["median_is_one"].sum())
        note = (f" The median {m} is exactly 1 for {n_degenerate} of {len(rs)} systems: "
                "a median cannot separate them." if n_degenerate else "")
        caption = (f"Distribution of {m} per system over {int(rs['n_queries'].iloc[0])} "
                   f"queries: mean, median, share of queries with the first result relevant "
                   f"({m} = 1) and with no relevant result ({m} = 0), and the harmonic, "
                   f"geometric and arithmetic means of the first relevant rank 1/{m} over "
                   f"the queries with one (the harmonic mean rank is 1/M{m} restricted to "
                   f"them).{note}")
        return header, rows, "l" + "r" * 7, caption

    def _agreement_rows(self):
        ag = self.agreement
        if ag is None:
            return None
        rows = [[r.measure_a, r.measure_b, fixed(r.tau, 3), fixed(r.tau_ap, 3),
                 fixed(r.tau_ap_reverse, 3), fixed(r.rho, 3), f"{int(r.n_swaps)}/{int(r.n_pairs)}"]
                for r in ag.itertuples(index=False)]
        n = int(ag["n_systems"].iloc[0])
        header = ["measure a", "measure b", "tau", "tau_AP (a truth)", "tau_AP (b truth)",
                  "rho", "swapped pairs"]
        few = (f" With only {n} systems (fewer than {_FEW_SYSTEMS}) Kendall's tau takes "
               f"{n * (n - 1) // 2 + 1} possible values and no test of it can reach "
               "significance at 0.05 unless the orders agree almost exactly: these numbers "
               "are not informative." if n < _FEW_SYSTEMS else
               f" With {n} systems these numbers are coarse: read them as descriptive.")
        caption = (f"Agreement between the rankings of the {n} systems by their mean score "
                   "under two measures: Kendall's tau-b, tau_AP (Yilmaz, Aslam and Robertson "
                   "2008; top-weighted, with either measure's ranking as the truth), "
                   "Spearman's rho and the number of system pairs the two measures order "
                   "oppositely. Means rounded to 12 decimals before ranking, so equal "
                   f"totals tie.{few}")
        return header, rows, "ll" + "r" * 5, caption

    def _leaderboard_rows(self):
        lb = self.leaderboard
        if lb is None:
            return None
        measures = list(dict.fromkeys(lb["measure"]))
        first = lb[lb["measure"] == measures[0]].sort_values(["rank", "rank_low"],
                                                               kind="stable")
        cells = {(r.measure, r.system): f"{int(r.rank)} [{int(r.rank_low)}, "
                                        f"{int(r.rank_high)}] {r.letters}"
                 for r in lb.itertuples(index=False)}
        rows = [[s, *(cells[(m, s)] for m in measures)] for s in first["system"]]
        header = ["system", *measures]
        c = self.comparison
        test, corr, rcorr = self._test_phrase()
        simultaneous = (
            f"all intervals hold together at the comparison's family-wise level "
            f"(alpha = {c.alpha:g})" if rcorr != "none" or c.test in FAMILY_TESTS else
            "the decisions are not corrected for multiplicity, so the intervals do not "
            "hold simultaneously")
        caption = (
            "Leaderboard with honest ranks: per measure, each system's rank by its mean "
            "(1 = best), its rank interval [1 + systems significantly better, k - systems "
            "significantly worse] (Mogstad, Romano, Shaikh and Wilhelm 2024) and its compact "
            "letters (Piepho 2004): systems that share a letter are not significantly "
            f"different. Both come from the decisions of the comparison ({test}, {corr} "
            f"correction), the same as the superscripts of the comparison table, so "
            f"{simultaneous}. Systems in the order of {measures[0]}.")
        return header, rows, "l" + "r" * len(measures), caption

    def _clustered_rows(self):
        cf = self.clustered
        if cf is None:
            return None
        s = self.settings
        cl = s["comparison"]["confidence_level"]
        rows = [[r.measure, r.a, r.b, fixed(r.diff),
                 f"[{fixed(r.query_low)}, {fixed(r.query_high)}]",
                 f"[{fixed(r.cluster_low)}, {fixed(r.cluster_high)}]", fixed(r.width_ratio, 2),
                 pvalue_text(r.pvalue_cluster), pvalue_text(r.pvalue_cluster_adjusted),
                 f"{'yes' if r.reject_queries else 'no'} / "
                 f"{'yes' if r.reject_clusters else 'no'}"]
                for r in cf.itertuples(index=False)]
        header = ["measure", "a", "b", "a - b", f"{cl:.0%} CI, queries",
                  f"{cl:.0%} CI, clusters", "width ratio", "p, clusters", "p adj., clusters",
                  "reject: queries / clusters"]
        G = int(cf["n_clusters"].iloc[0])
        n_q = int(cf["n_queries"].iloc[0])
        both = int((cf["reject_queries"] & cf["reject_clusters"]).sum())
        only_q = int((cf["reject_queries"] & ~cf["reject_clusters"]).sum())
        only_c = int((~cf["reject_queries"] & cf["reject_clusters"]).sum())
        ratio = cf["width_ratio"].dropna()
        test, corr, _ = self._test_phrase()
        exact = ("exact: all 2^G sign patterns" if cf["exact"].all() else
                 f"B = {s['comparison']['n_resamples']}")
        caption = (
            f"Queries in clusters: {n_q} queries in {G} clusters "
            f"({s['clusters']['description']}). For each pair, the {cl:.0%} bootstrap "
            "percentile interval of the mean difference a - b with the queries resampled as "
            "independent, and with whole clusters resampled (the cluster bootstrap: Davison "
            f"and Hinkley 1997, 3.8; Field and Welsh 2007; B = "
            f"{s['comparison']['n_resamples']}, seed = {s['seed']}), the ratio of their "
            f"widths, and the randomization test with one sign flip per cluster ({exact}), "
            f"Holm-adjusted over the pairs of each measure. Last column: the decision of "
            f"the comparison ({test}, {corr}, queries independent) and of the cluster test, "
            f"at alpha = {s['comparison']['alpha']:g}. Of "
            f"{both + only_q} pairs significant with queries independent, {both} stay "
            f"significant with clusters ({only_q} {'does' if only_q == 1 else 'do'} not); "
            f"{only_c} become{'s' if only_c == 1 else ''} significant only "
            f"with clusters. The cluster interval is {ratio.min():.2f} to {ratio.max():.2f} "
            f"times as wide (median {ratio.median():.2f}): wider where the turns of a "
            "cluster move together, narrower where whole clusters differ less from each "
            "other than their turns do.")
        return header, rows, "lll" + "r" * 7, caption

    def _multiverse_rows(self):
        mv = self.multiverse
        if mv is None:
            return None
        rows = []
        totals = []
        for m in dict.fromkeys(mv.summary["measure"]):
            summ = mv.summary[mv.summary["measure"] == m]
            one = one_option_at_a_time(summ, mv.reference[m])
            for r in one.itertuples(index=False):
                rows.append([m, r.convention, fixed(r.kendall_tau, 2), str(int(r.n_significant)),
                             str(int(r.n_flipped)), str(int(r.n_lost)), str(int(r.n_gained)),
                             fixed(r.max_abs_shift)])
            changed = int(((summ["n_flipped"] > 0)).sum())
            sig = int(((summ["n_lost"] > 0) | (summ["n_gained"] > 0)).sum())
            totals.append(f"{m}: {changed} of {len(summ)} conventions reorder some pair and "
                          f"{sig} change a significance decision")
        header = ["measure", "convention", "tau", "significant pairs", "flipped", "lost",
                  "gained", "largest mean change"]
        ref = mv.reference[next(iter(mv.reference))]
        s = self.settings["multiverse"]
        caption = (
            "The convention multiverse (Steegen et al. 2016): the runs evaluated again under "
            f"every tie convention ({', '.join(s['ties'])}), query set "
            f"({', '.join(s['queries'])}), relevance threshold (grades "
            f"{', '.join(map(str, s['rels']))}) and, where some query has no relevant "
            "document at that threshold, empty-target policy (such a query scores 0 "
            "(neg, trec_eval), 1 (pos) or is left out (skip)), each pair tested with the "
            "paired t test "
            f"and {correction_label(s['correction'])} correction at alpha = "
            f"{s['alpha']:g}. Shown: the reference (ties = {ref['ties']}, queries = "
            f"{ref['queries']}, rel >= {ref['rel']}"
            + (f", empty_target = {ref['empty_target']}" if "empty_target" in ref else "")
            + ") and each convention that changes one option (a change of the empty-target "
            "policy together with the threshold at which it matters): Kendall's tau between "
            "its system order and the reference's, the significant pairs, the pairs whose "
            "order flips, the significant pairs lost and "
            "gained, and the largest change of a system's mean. Over all combinations: "
            + "; ".join(totals) + ".")
        return header, rows, "ll" + "r" * 6, caption

    def _estimation_rows(self):
        est = self.estimation
        if est is None:
            return None
        margin = (self.settings.get("estimation") or {}).get("margin")
        cl = self.settings["comparison"]["confidence_level"]
        alpha = self.settings["comparison"]["alpha"]
        rows = []
        for r in est.itertuples(index=False):
            row = [r.measure, r.a, r.b, fixed(r.diff),
                   f"{fixed(r.hl_estimate)} [{fixed(r.hl_low)}, {fixed(r.hl_high)}]",
                   f"{fixed(r.d_z, 2)} [{fixed(r.d_z_low, 2)}, {fixed(r.d_z_high, 2)}]",
                   f"{fixed(r.prob_superiority, 3)} [{fixed(r.ps_low, 3)}, {fixed(r.ps_high, 3)}]"]
            if margin is not None:
                row += [pvalue_text(r.tost_pvalue), "yes" if r.tost_pvalue <= alpha else "no"]
            rows.append(row)
        header = ["measure", "a", "b", "a - b", f"HL shift [{cl:.0%} CI]",
                  f"d_z [{cl:.0%} CI]", f"P(a > b) [{cl:.0%} CI]"]
        methods = sorted(set(est["hl_method"]) - {"none"})
        lowered = est["hl_level"].dropna()
        low_note = (f" Where R would lower the level of the Hodges-Lehmann interval (not "
                    f"attainable with so few distinct differences), it is lowered here too "
                    f"(lowest: {lowered.min():.3f})." if (lowered < cl - 1e-12).any() else "")
        caption = (
            "How large is each difference? For every pair: the mean difference a - b; the "
            "Hodges-Lehmann estimate of the shift (the median of the Walsh averages of the "
            "per-query differences) with the interval of shifts the Wilcoxon signed-rank "
            f"test does not reject ({' and '.join(methods)} method, as R's "
            "wilcox.test(paired = TRUE, conf.int = TRUE), which drops the queries where the "
            "systems tie: for RR, with many tied queries, the shift is that of the queries "
            "that differ, larger than the mean difference); d_z (mean difference / sd of the "
            "differences) with its interval from the noncentral t distribution (Steiger and "
            "Fouladi 1997); and the probability that a beats b on a query (ties count one "
            f"half) with its BCa bootstrap interval (B = "
            f"{self.settings['comparison']['n_resamples']}, seed = {self.settings['seed']})."
            + low_note)
        if margin is not None:
            n_eq = int((est["tost_pvalue"] <= alpha).sum())
            header += [f"TOST p (margin {margin:g})", "equivalent"]
            caption += (
                f" Equivalence: two one-sided paired t tests (TOST, Schuirmann 1987; "
                f"statsmodels' ttost_paired) of -{margin:g} < mean(a - b) < {margin:g}; "
                f"'equivalent' at alpha = {alpha:g}, not corrected for the number of pairs. "
                f"{n_eq} of {len(est)} pairs are shown equivalent; a pair that is neither "
                "significantly different nor equivalent is simply undecided.")
        else:
            caption += (" No equivalence margin was given (equivalence_margin / --margin), "
                        "so no equivalence test: the package has no default margin, since "
                        "what difference is negligible depends on the measure and the use.")
        return header, rows, "lll" + "r" * (len(header) - 3), caption

    def _mixed_rows(self):
        mx = self.mixed
        if mx is None:
            return None
        cl = self.settings["comparison"]["confidence_level"]
        rows = [[r.measure, r.a, r.b, fixed(r.difference), fixed(r.se_mixed),
                 f"[{fixed(r.low_mixed)}, {fixed(r.high_mixed)}]", pvalue_text(r.pvalue_mixed),
                 fixed(r.se_anova), f"[{fixed(r.low_anova)}, {fixed(r.high_anova)}]",
                 pvalue_text(r.pvalue_tukey)] for r in mx.itertuples(index=False)]
        header = ["measure", "a", "b", "a - b (model)", "se (model)",
                  f"{cl:.0%} CI (model)", "p (model)", "se (ANOVA)", f"{cl:.0%} CI (ANOVA)",
                  "p (Tukey HSD)"]
        parts = []
        for m, g in mx.groupby("measure", sort=False):
            g0 = g.iloc[0]
            se_gap = float((g["se_mixed"] / g["se_anova"] - 1).abs().max())
            parts.append(
                f"{m}: query variance {g0.query_variance:.4f}, residual variance "
                f"{g0.residual_variance:.4f} against the ANOVA's V_E "
                f"{g0.anova_residual_variance:.4f} ({int(g0.df_anova)} df), standard errors "
                f"within {se_gap:.1e} of each other"
                + ("" if bool(g0.converged) else " (the REML fit did not converge)"))
        caption = (
            "A model instead of the tests: the linear mixed model score = system effect + "
            "query effect + error, with random query effects (REML, statsmodels' MixedLM; "
            "Carterette 2015), against the two-way ANOVA without replication. For every pair: "
            f"the model's difference with its Wald standard error, {cl:.0%} interval and "
            "p-value (not adjusted), and the ANOVA's standard error sqrt(2 V_E / n), its t "
            "interval ((n - 1)(k - 1) degrees of freedom, not adjusted) and Tukey's HSD "
            "p-value (adjusted over the pairs). On a complete table whose queries differ in "
            "difficulty (query variance above 0) the two agree: the same differences and "
            "standard errors, only the quantile differs (normal against t). They part when "
            "the query variance is estimated at 0 or when queries are missing for some "
            "system (the model uses them, the ANOVA cannot). " + "; ".join(parts) + ".")
        return header, rows, "lll" + "r" * 7, caption

    def _segments_rows(self):
        seg = self.segments
        if seg is None:
            return None
        rows = []
        for r in seg.itertuples(index=False):
            rows.append([str(r.measure), str(r.segment), str(int(r.n_queries)), str(r.a),
                         str(r.b), fixed(r.mean_a), fixed(r.mean_b), fixed(r.diff),
                         f"[{fixed(r.ci_low)}, {fixed(r.ci_high)}]", fixed(r.pvalue),
                         fixed(r.pvalue_adjusted),
                         "--" if pd.isna(r.reject) else ("yes" if bool(r.reject) else "no")])
        header = ["measure", "segment", "queries", "a", "b", "mean a", "mean b", "a - b",
                  "interval", "p", "p adjusted", "significant"]
        s = self.settings["segments"]
        cs = self.settings["comparison"]
        caption = (
            f"Segments ({s['description']}; {len(s['segments'])} segments: "
            f"{', '.join(map(str, s['segments']))}). For each measure, segment and pair: "
            f"the {test_label(cs['test'])} within the segment, the p-values adjusted across "
            f"the segments of the pair ({correction_label(s['segment_correction'])}), "
            f"significant at alpha = {cs['alpha']:g}; seed = {self.settings['seed']}.")
        return header, rows, "ll" + "r" + "ll" + "r" * 6 + "l", caption

    def per_query_frame(self) -> pd.DataFrame:
        """The content of ``per_query.csv``."""
        return _per_query_frame(self.scores, self.query_stats,
                                list(self.settings["evaluated_measures"]), self.systems)


@dataclass(frozen=True, eq=False)
class ReportResult:
    """What :func:`make_report` wrote.

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


# --------------------------------------------------------------------------
# per-query data <-> CSV
# --------------------------------------------------------------------------

def _per_query_frame(scores, query_stats, measures, systems):
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
        st = query_stats[["system", "query", *_STAT_COLUMNS]].copy()
        st["query"] = st["query"].astype(str)
        wide = wide.merge(st, on=["system", "query"], how="left", validate="one_to_one")
        if wide[list(_STAT_COLUMNS)].isna().any().any():
            raise ValueError("query statistics are missing for some (system, query) pairs")
        wide = wide[["system", "query", *_STAT_COLUMNS, *measures]]
        for c in _STAT_COLUMNS:
            wide[c] = wide[c].astype(np.int64)
    return wide


def _write_per_query(frame, path):
    # Full precision (repr) floats, '\n' line ends: byte-identical for equal inputs.
    text = frame.to_csv(index=False, lineterminator="\n", float_format=None)
    Path(path).write_text(text, encoding="utf-8", newline="")


def _read_per_query(path, measures, systems, with_stats):
    # Every column as text, numbers converted by Python's float(): exact round trip of
    # the repr() digits written by _write_per_query, whatever pandas' float parser.
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = [c for c in ["system", "query", *measures] if c not in frame.columns]
    if missing:
        raise ValueError(f"{path}: columns {missing} missing")
    for m in measures:
        frame[m] = np.array([float(v) if v != "" else np.nan for v in frame[m]],
                            dtype=np.float64)
    scores = {}
    for m in measures:
        wide = frame.pivot(index="query", columns="system", values=m)
        order = list(dict.fromkeys(frame["query"]))
        wide = wide.reindex(index=order, columns=systems).astype(np.float64)
        wide = wide.dropna(how="all")
        wide.index.name = "query"
        wide.columns.name = None
        wide.attrs["measure"] = m
        scores[m] = wide
    stats = None
    if with_stats:
        stats = frame[["system", "query", *_STAT_COLUMNS]].copy()
        for c in _STAT_COLUMNS:
            stats[c] = stats[c].astype(np.int64)
    return scores, stats


# --------------------------------------------------------------------------
# analysis (shared by make_report and load_report)
# --------------------------------------------------------------------------

def _say(progress, msg, end="\n", prefix=True):
    if progress:
        print(f"mrrstats report: {msg}" if prefix else msg, file=sys.stderr, end=end,
              flush=True)


def _is_rr(name):
    try:
        return parse_measure(name).name == "RR"
    except (ValueError, TypeError):
        return False


def _analyse(scores, query_stats, settings, evaluation=None, progress=False,
             multiverse=None, judged=None):
    """Run the analysis once: every number of the tables and figures.

    ``evaluation`` is the :class:`Evaluation` of runs input (rebuilt from the
    per-query data when not given); the random baseline of each system is
    :func:`mrrstats.evaluation_baseline`'s. ``multiverse`` is the
    :class:`MultiverseResult` computed from the run files (by :func:`make_report`),
    kept as it is.
    """
    cs = settings["comparison"]
    measures = list(settings["measures"])
    gen = np.random.default_rng(settings["seed"])
    parts = {}
    notes = []
    n_steps = len(measures) + (1 if settings.get("random_baseline") else 0)
    for i, m in enumerate(measures):
        frame = scores[m]
        t0 = time.perf_counter()
        _say(progress, f"[{i + 1}/{n_steps}] {m}: {cs['test']} test, {frame.shape[1]} systems, "
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
                warnings.warn(note, w.category, stacklevel=2)
        _say(progress, f" {time.perf_counter() - t0:.1f} s", prefix=False)
    first = parts[measures[0]]
    for m, p in parts.items():
        if p.systems != first.systems:
            raise ValueError(f"measure {m!r} compares systems {list(p.systems)}, but "
                             f"{measures[0]!r} compares {list(first.systems)}")
    results = {m: dataclasses.replace(p.results[m], seed=settings["seed"])
               for m, p in parts.items()}
    comparison = dataclasses.replace(first, results=results, measures=tuple(measures),
                                     seed=settings["seed"])

    versus = None
    if settings.get("baseline") is not None:
        versus = _versus_baseline(comparison, settings["baseline"])

    rr_name = settings.get("rr_measure")
    rr_summary = None
    if rr_name is not None:
        rr_frame = scores[rr_name]
        if cs["missing"] == "drop":
            rr_frame = rr_frame.dropna()
        rr_summary = rr_diagnostics(rr_frame)

    random_table = None
    rb = settings.get("random_baseline")
    if rb:
        t0 = time.perf_counter()
        _say(progress, f"[{n_steps}/{n_steps}] random-ranking baseline ({rb['random']} model, "
             f"{rb['measure']}) for {len(comparison.systems)} systems ...", end="")

        if evaluation is None:
            evaluation = _evaluation_from(scores, query_stats, settings)
        random_table = evaluation_baseline(
            evaluation, random=rb["random"], measure=rb["measure"],
            alternative=rb["alternative"], method=rb["method"],
            n_resamples=rb["n_resamples"], rng=gen).loc[list(comparison.systems)]

        random_table.index.name = "system"
        _say(progress, f" {time.perf_counter() - t0:.1f} s", prefix=False)

    agreement = None
    if len(measures) >= 2 and len(comparison.systems) >= 3:
        frames = {m: scores[m] for m in measures}
        if cs["missing"] == "drop":
            common = None
            for f in frames.values():
                idx = f.dropna().index
                common = idx if common is None else common.intersection(idx, sort=False)
            frames = {m: f.loc[common] for m, f in frames.items()}
        agreement = ranking_agreement(frames)

    pairs = comparison.to_frame()
    if "ci_method" not in pairs.columns:
        pairs["ci_method"] = comparison.ci_method
    pairs["confidence_level"] = comparison.confidence_level
    pairs["alpha"] = comparison.alpha
    means = _mean_intervals(scores, measures, comparison, cs, gen)
    focus, null = _focus_pair(scores, measures[0], comparison, settings, pairs, gen)
    leaderboard = leaderboard_frame(scores, measures, pairs, comparison.systems)
    clustered = None
    cl_settings = settings.get("clusters")
    if cl_settings:
        labels, _ = cluster_labels(scores[measures[0]].index,
                                   cl_settings.get("labels") or "auto")
        with tracking("mrrstats report: cluster bootstrap", progress=progress):
            clustered = clustered_frame(scores, measures, pairs, labels,
                                        confidence_level=cs["confidence_level"],
                                        n_resamples=cs["n_resamples"], alpha=cs["alpha"],
                                        gen=gen)
    est_settings = settings.get("estimation") or {"margin": None}
    estimation = estimation_frame(scores, measures, pairs,
                                  confidence_level=cs["confidence_level"],
                                  n_resamples=cs["n_resamples"], margin=est_settings["margin"],
                                  gen=gen)
    mixed = mixed_frame(scores, measures, confidence_level=cs["confidence_level"])
    segments = segment_means = None
    sg = settings.get("segments")
    if sg:
        # its own Generator seeded with the seed: the same numbers as
        # compare(scores, segment_by=..., rng=seed) with the report's options
        seg = compare({m: scores[m] for m in measures}, test=cs["test"],
                      correction=cs["correction"], alpha=cs["alpha"],
                      n_resamples=cs["n_resamples"], confidence_level=cs["confidence_level"],
                      alternative=cs["alternative"], missing=cs["missing"],
                      segment_by=dict(sg["labels"]),
                      segment_correction=sg["segment_correction"], rng=settings["seed"],
                      progress=False).segments
        segments, segment_means = seg.frame, seg.means_frame
    power = power_table(scores[measures[0]].dropna(), differences=settings["power"]["differences"],
                        alpha=settings["power"]["alpha"], target=settings["power"]["target"])
    return ReportData(scores=scores, query_stats=query_stats, settings=settings,
                      comparison=comparison, versus_baseline=versus,
                      random_baseline=random_table, rr_summary=rr_summary,
                      agreement=agreement, notes=tuple(notes), pairs=pairs, means=means,
                      focus=focus, null_distribution=null, power=power,
                      leaderboard=leaderboard, clustered=clustered, multiverse=multiverse,
                      estimation=estimation, mixed=mixed,
                      segments=segments, segment_means=segment_means, **(judged or {}))


def _mean_intervals(scores, measures, comparison, cs, gen):
    """Each system's mean with its bootstrap interval, per measure (one Generator, in order)."""
    method = comparison.ci_method if comparison.ci_method in ("bca", "percentile", "basic") \
        else "bca"
    rows = []
    for m in measures:
        frame = scores[m].dropna()
        for s in comparison.systems:
            res = bootstrap_ci(frame[s].to_numpy(np.float64), method=method,
                               confidence_level=cs["confidence_level"],
                               n_resamples=cs["n_resamples"], rng=gen)
            ci = res.confidence_interval()
            rows.append({"measure": m, "system": s, "mean": float(res.statistic),
                         "ci_low": float(ci.low), "ci_high": float(ci.high),
                         "method": method, "confidence_level": float(ci.confidence_level),
                         "n_queries": int(frame.shape[0])})
    return pd.DataFrame(rows)


def _focus_pair(scores, measure, comparison, settings, pairs, gen):
    """The pair shown up close, its paired randomization test and the test's null."""
    frame = scores[measure].dropna()
    means = frame.mean()
    base = settings.get("baseline")
    if base is not None:
        pair = (str(means.drop(base).idxmax()), base)
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
                             n_resamples=settings["comparison"]["n_resamples"], rng=gen)
    null = getattr(res, "null_distribution", None)
    focus = {"measure": measure, "a": pair[0], "b": pair[1], "test": "randomization",
             "statistic": float(res.statistic), "pvalue": float(res.pvalue),
             "exact": bool(res.exact), "n_resamples": int(res.n_resamples),
             "alternative": res.alternative, "n_queries": int(res.n),
             "ci_low": lo, "ci_high": hi, "ci_method": str(row["ci_method"]),
             "confidence_level": float(row["confidence_level"]),
             "pvalue_table": float(row["pvalue"]),
             "pvalue_adjusted_table": float(row["pvalue_adjusted"]),
             "test_table": str(row["test"]),
             "null_distribution": None if null is None else "null_distribution.npy"}
    return focus, (None if null is None else np.asarray(null, dtype=np.float64))


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
    needs = [ttest_power(difference=d, sd=sd, power=target, alpha=alpha,
                         alternative=alternative).n_queries_required for d in diffs]
    if n_queries is None:
        top = min(1000, max(200, int(math.ceil(1.15 * max(needs) / 50) * 50)))
        n = np.arange(5, top + 1) if top <= 400 else np.unique(
            np.linspace(5, top, 400).astype(np.int64))
    else:
        n = np.unique(np.asarray(n_queries, dtype=np.int64))
    rows = [{"difference": d, "n_queries": int(m),
             "power": ttest_power(difference=d, sd=sd, n_queries=int(m), alpha=alpha,
                                  alternative=alternative).power, "n_required": int(need)}
            for d, need in zip(diffs, needs, strict=True) for m in n]
    table = pd.DataFrame(rows)
    table.attrs.update(sd=sd, alpha=alpha, alternative=alternative, target=target,
                       test="paired t")
    return table


def _evaluation_from(scores, query_stats, settings):
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


def _interval_phrase(method) -> str:
    """How an interval was computed, in words (for captions)."""
    name = interval_name(method)
    if str(method).startswith("holm-sb2008"):
        name += ("; a rejected pair's interval is one-sided, from 0, so that 0 lies outside "
                 "an interval exactly when the pair is rejected")
    return name


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


def _versus_baseline(comparison, baseline):
    """Rows of the all-pairs result that involve ``baseline``, oriented system - baseline."""
    rows = []
    for m in comparison.measures:
        r = comparison.results[m]
        idx, sign = [], []
        for q, (a, b) in enumerate(zip(r.a, r.b, strict=True)):
            if a == baseline:
                idx.append(q)
                sign.append(-1.0)
            elif b == baseline:
                idx.append(q)
                sign.append(1.0)
        idx = np.asarray(idx, dtype=np.int64)
        sign = np.asarray(sign)
        p = r.pvalue[idx]
        if r.test in FAMILY_TESTS:
            p_adj, reject = r.pvalue_adjusted[idx], r.reject[idx]
        else:
            p_adj, reject = adjust_pvalues(p, r.correction, r.alpha)
        lo = np.where(sign > 0, r.ci_low[idx], -r.ci_high[idx])
        hi = np.where(sign > 0, r.ci_high[idx], -r.ci_low[idx])
        for j, q in enumerate(idx):
            system = r.a[q] if r.b[q] == baseline else r.b[q]
            mean = r.mean_a[q] if r.b[q] == baseline else r.mean_b[q]
            base_mean = r.mean_b[q] if r.b[q] == baseline else r.mean_a[q]
            rows.append({"measure": m, "system": system, "mean": float(mean),
                         "baseline_mean": float(base_mean), "diff": float(mean - base_mean),
                         "ci_low": float(lo[j]), "ci_high": float(hi[j]),
                         "pvalue": float(p[j]), "pvalue_adjusted": float(p_adj[j]),
                         "reject": bool(reject[j])})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------
# settings
# --------------------------------------------------------------------------

def _versions():
    import importlib.metadata as md

    out = {"python": ".".join(map(str, sys.version_info[:3]))}
    for pkg in _VERSION_PACKAGES:
        if pkg == "mrrstats":
            out[pkg] = __version__
            continue
        try:
            out[pkg] = md.version(pkg)
        except md.PackageNotFoundError:  # pragma: no cover - all are dependencies
            out[pkg] = None
    return out


def _sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _file_record(source, **extra):
    """Name and SHA-256 of an input file; in-memory inputs have neither."""
    if isinstance(source, (str, os.PathLike)):
        p = Path(source)
        return {**extra, "file": p.name, "sha256": _sha256(p)}
    return {**extra, "file": None, "sha256": None, "source": type(source).__name__}


def _dump_json(obj):
    return json.dumps(obj, indent=2, allow_nan=False, ensure_ascii=False) + "\n"


# --------------------------------------------------------------------------
# the notebook
# --------------------------------------------------------------------------

def _template():
    import nbformat

    text = (resources.files("mrrstats.report") / "templates" / "report.ipynb").read_text(
        encoding="utf-8")
    return nbformat.reads(text, as_version=4)


_SEGMENT_MARKDOWN = """## Segments: where does a difference hold?

The queries split by `segment_by` (settings: `segments`): each pair tested within each
segment with the report's test, its p-values adjusted across the segments of the pair.
The figure shows each segment's mean per system with its t interval (first measure)."""

_SEGMENT_CODE = """seg = data.segments
if seg is None:
    display(Markdown(f"*Not available: {S.get('segments_note') or 'no segment_by given'}.*"))
else:
    display(Markdown((folder / "tables" / "segments.md").read_text()))
    m0 = data.measures[0]
    with mp.style_context():
        n_seg = data.segment_means["segment"].nunique()
        fig, ax = plt.subplots(figsize=(SIZE[0] + 1.6, 1.2 + 0.5 * n_seg * len(data.systems)),
                               layout="constrained")
        mp.segment_means(data.segment_means, measure=m0, ax=ax)
        plt.show()"""


def _add_segment_cells(nb):
    """The segments section (only in reports made with ``segment_by``), before section 10.

    Added here rather than in the template so that a report without segments
    is byte-identical to one made before the section existed.
    """
    import nbformat

    md = nbformat.v4.new_markdown_cell(_SEGMENT_MARKDOWN)
    md["id"] = "s-segments"
    code = nbformat.v4.new_code_cell(_SEGMENT_CODE)
    code["id"] = "segments"    # fixed ids: the report is byte-reproducible
    at = next((i for i, c in enumerate(nb.cells) if c.get("id") == "s7"), len(nb.cells))
    nb.cells[at:at] = [md, code]
    return nb


def _inject_parameters(nb, params):
    """Replace the cell tagged ``parameters`` by one tagged ``injected-parameters``."""
    import nbformat

    lines = ["# Parameters injected by mrrstats.make_report"]
    lines += [f"{k} = {v!r}" for k, v in params.items()]
    cell = nbformat.v4.new_code_cell("\n".join(lines))
    cell.metadata["tags"] = ["injected-parameters"]
    cell["id"] = "injected-parameters"    # not a random id: the report is byte-reproducible
    for i, c in enumerate(nb.cells):
        if c.cell_type == "code" and "parameters" in c.metadata.get("tags", []):
            nb.cells[i] = cell
            return nb
    first_code = next((i for i, c in enumerate(nb.cells) if c.cell_type == "code"),
                      len(nb.cells))
    nb.cells.insert(first_code, cell)
    return nb


def _execute(nb, out, timeout, progress):
    from nbclient import NotebookClient

    code_cells = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    state = {"t0": time.perf_counter()}

    cr = "\r" if sys.stderr.isatty() else ""

    def on_start(cell, cell_index, **_):
        if progress and cell.cell_type == "code":
            k = code_cells.index(cell_index) + 1
            print(f"{cr}mrrstats report: executing notebook cell {k}/{len(code_cells)} ",
                  file=sys.stderr, end="" if cr else "\n", flush=True)

    from jupyter_client.manager import KernelManager

    # IPC sockets where available (in a private temporary folder): no TCP ports, and
    # no "running over TCP without encryption" warning from the kernel.
    ipc_dir = tempfile.mkdtemp(prefix="mrrstats-") if os.name == "posix" else None
    km = KernelManager(kernel_name="python3", transport="ipc" if ipc_dir else "tcp")
    if ipc_dir:
        km.ip = os.path.join(ipc_dir, "kernel")
    client = NotebookClient(nb, km=km, timeout=timeout, kernel_name="python3",
                            allow_errors=False, record_timing=False, on_cell_start=on_start,
                            resources={"metadata": {"path": str(out)}})
    env = dict(os.environ)
    pkg_parent = str(Path(__file__).resolve().parent.parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (pkg_parent, env.get("PYTHONPATH")) if p)
    env.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    try:
        client.execute(env=env)
    finally:
        if km.has_kernel:  # we own the kernel manager, so nbclient leaves it running
            km.shutdown_kernel(now=False)
        if ipc_dir:
            shutil.rmtree(ipc_dir, ignore_errors=True)
        if progress:
            print(f"{cr}mrrstats report: executed {len(code_cells)} notebook cells in "
                  f"{time.perf_counter() - state['t0']:.1f} s", file=sys.stderr, flush=True)
    return nb


_HTML_TEMPLATE = """{%- extends 'lab/index.html.j2' -%}
{#- mrrstats: a self-contained page. No script or style is fetched from the network:
    require.js, MathJax, mermaid and widget loaders are left out (the report uses none);
    the CSS is inlined by the lab template and figures are base64 data URIs. -#}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block extra_css -%}
{{ super() }}
<style type="text/css">
/* mrrstats: figures half the page width (a full-width figure on a small screen) */
body .jp-RenderedImage img { max-width: 50%; min-width: min(100%, 420px); height: auto; }
.jp-RenderedHTMLCommon table { font-size: 0.85em; }
</style>
{%- endblock extra_css -%}
{%- block data_png scoped -%}
<div class="jp-RenderedImage jp-OutputArea-output {{ extra_class }}">
<img src="data:image/png;base64,{{ output.data['image/png'] | escape_html }}"
 alt="{{ output.metadata.get('image/png', {}).get('alt', 'Figure') | escape_html }}"
{%- set width = output | get_metadata('width', 'image/png') -%}
{%- if width is not none %} width={{ width | escape_html }}{%- endif -%}
{%- set height = output | get_metadata('height', 'image/png') -%}
{%- if height is not none %} height={{ height | escape_html }}{%- endif -%}
>
</div>
{%- endblock data_png -%}
"""


def _add_alt_text(nb):
    """Give every figure an alt text naming its number and section (for the HTML)."""
    section, n = "", 0
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            heads = [ln.lstrip("#").strip() for ln in cell.source.splitlines()
                     if ln.startswith("#")]
            if heads:
                section = heads[0]
            continue
        for out in cell.get("outputs", []):
            if "image/png" in out.get("data", {}):
                n += 1
                meta = out.setdefault("metadata", {}).setdefault("image/png", {})
                meta.setdefault("alt", f"Figure {n}" + (f" of section '{section}'"
                                                        if section else ""))
    return nb


def _to_html(nb, title, show_code=False):
    from jinja2 import DictLoader
    from nbconvert import HTMLExporter

    # Figures are already base64 data URIs in the outputs. embed_images=True is not
    # needed (no Markdown cell links an image file) and would break inline HTML such as
    # the significance superscripts (<sup>ab</sup>) of the tables (nbconvert 7.17).
    exporter = HTMLExporter(extra_loaders=[DictLoader({"mrrstats.html.j2": _HTML_TEMPLATE})],
                            template_file="mrrstats.html.j2", embed_images=False,
                            exclude_input_prompt=True, exclude_output_prompt=True,
                            exclude_input=not show_code)
    nb.metadata["title"] = title
    _add_alt_text(nb)
    body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": title}})
    return body


# --------------------------------------------------------------------------
# input validation
# --------------------------------------------------------------------------

def _score_inputs(scores):
    """Normalise ``scores`` to an ordered list of (measure name, source)."""
    if isinstance(scores, (str, os.PathLike, pd.DataFrame)):
        scores = [scores]
    if isinstance(scores, Mapping):
        items = [(str(k), v) for k, v in scores.items()]
    elif isinstance(scores, (list, tuple)):
        items = score_sources(scores)  # the NAME=PATH rule lives in model.scoretable
    else:
        raise TypeError("`scores` must be a path, a list of paths (NAME=PATH allowed), or "
                        "a dict measure -> path or DataFrame")
    if not items:
        raise ValueError("`scores` is empty")
    names = [n for n, _ in items]
    if len(set(names)) != len(names):
        raise ValueError(f"`scores` gives measure names {names}: each must be unique")
    return items


def _make_report_iv(qrels, runs, scores, out, measures, baseline, test, correction, alpha,
                    alternative, n_resamples, confidence_level, random, ties, rel, queries,
                    missing, rng, timeout):
    if out is None or not isinstance(out, (str, os.PathLike)):
        raise TypeError("`out` must be a folder path")
    if scores is not None:
        if qrels is not None or runs is not None:
            raise ValueError("give either `qrels` and `runs`, or `scores`, not both")
        items = _score_inputs(scores)
    else:
        if qrels is None or runs is None:
            raise ValueError("`qrels` and `runs` are required (or pass `scores`)")
        items = None
    if isinstance(measures, str):
        measures = [measures]
    if measures is not None:
        measures = list(measures)
        if not measures or not all(isinstance(m, str) for m in measures):
            raise TypeError("`measures` must be a measure name or a list of them")
    test = test_spec(test).name
    correction = correction_spec(correction).name
    alpha = alpha_iv(alpha)
    alternative_iv(alternative)
    n_resamples = int_iv(n_resamples, "n_resamples")
    confidence_level = confidence_level_iv(confidence_level)
    if ties is None:
        ties = default_ties(queries)
    if random not in _RANDOM_MODELS:
        raise ValueError(f"`random` must be 'retrieved' or 'judged', got {random!r}")
    if missing not in ("raise", "drop"):
        raise ValueError(f"`missing` must be 'raise' or 'drop', got {missing!r}")
    if rng is not None and (isinstance(rng, bool) or not isinstance(rng, numbers.Integral)
                            or rng < 0):
        raise TypeError("`rng` must be None or a non-negative integer seed (a report must "
                        f"record the seed that regenerates it), got {rng!r}")
    if baseline is not None and not isinstance(baseline, str):
        raise TypeError(f"`baseline` must be a system name, got {baseline!r}")
    timeout = int_iv(timeout, "timeout")
    return (items, Path(out), measures, test, correction, alpha, n_resamples,
            confidence_level, timeout, ties)


# --------------------------------------------------------------------------
# public API
# --------------------------------------------------------------------------

def make_report(qrels=None, runs=None, *, scores=None, out, measures=None,
                baseline=None, test=defaults.TEST, correction=defaults.CORRECTION,
                alpha=defaults.ALPHA, alternative=defaults.ALTERNATIVE,
                n_resamples=defaults.N_RESAMPLES, confidence_level=defaults.CONFIDENCE_LEVEL,
                random=defaults.RANDOM, ties=None, rel=defaults.REL, queries=defaults.QUERIES,
                missing=defaults.MISSING, rng=None, title=None, notebook=True,
                show_code=False, timeout=600, progress=None, clusters="auto",
                multiverse=True, segment_by=None, equivalence_margin=None,
                judge_qrels=None) -> ReportResult:
    r"""Evaluate, test and write a reproducible report folder.

    Parameters
    ----------
    qrels : path, DataFrame, dict or Qrels, optional
        Relevance judgements (with ``runs``).
    runs : list of paths or runs, or dict name -> run, optional
        Two or more runs (see :func:`mrrstats.evaluate`).
    scores : path, list of paths, or dict measure -> path or DataFrame, keyword-only
        Per-query score matrices instead of ``qrels``/``runs`` (one CSV per
        measure, the layout of :func:`mrrstats.read_score_matrix`). A path may
        be written ``NAME=PATH`` to name its measure; otherwise the name is the
        file name up to its first dot. Without candidate counts there is no
        random-ranking baseline table.
    out : path, keyword-only
        Output folder (created; existing report files in it are replaced).
    measures : str or list of str, optional, keyword-only
        Measures to compare. With runs the default is ``RR`` and ``nDCG@10``,
        and ``RR`` is evaluated as well when no RR-type measure is listed (for
        the random-ranking baseline and the RR distribution). With ``scores``
        the default is every matrix given, in order.
    baseline : str, optional, keyword-only
        A system name: adds the table and figure of every system against it.
    test, correction, alpha, alternative, n_resamples, confidence_level
        As in :func:`mrrstats.compare` (keyword-only).
    random : {"retrieved", "judged"}, keyword-only
        The random ranker of the baseline table (see
        :func:`mrrstats.random_baseline_counts`); default ``"retrieved"``: a
        random permutation of each retrieved list.
    ties, rel, queries : keyword-only
        Evaluation conventions (see :func:`mrrstats.evaluate`); ``ties=None``
        is trec_eval's, or ``"rank"`` under ``queries="msmarco"``, exactly as
        in :func:`mrrstats.evaluate` (:func:`mrrstats.defaults.default_ties`).
    missing : {"raise", "drop"}, keyword-only
        A query missing for some system: error, or drop it from the tests.
    rng : int or None, keyword-only
        Seed. None draws fresh entropy, recorded in ``settings.json`` so that
        the report can be regenerated.
    title : str, optional, keyword-only
    notebook : bool, keyword-only
        Execute the notebook and export the HTML (default True); False writes
        only the tables, the saved results, ``per_query.csv`` and ``settings.json``.
    show_code : bool, keyword-only
        Keep the code cells in the HTML (default False: a reviewer reads
        tables, figures and text; the notebook always has the code).
    timeout : int, keyword-only
        Seconds allowed per notebook cell.
    progress : bool or None, keyword-only
        Progress on standard error; default (None): only on an interactive
        terminal outside CI (:func:`mrrstats.progress.progress_enabled`).
    clusters : "auto", None, mapping or callable, keyword-only
        Clusters of queries for the clustered-intervals section: ``"auto"``
        (default) finds CAsT turn ids ``<conversation>_<turn>``; a mapping
        query -> cluster or a function of the query id gives them; None leaves
        the section out.
    multiverse : bool, keyword-only
        Runs input: evaluate the runs under every tie convention, query set and
        relevance grade and report what changes (default True).
    segment_by : mapping or callable, optional, keyword-only
        Query segments for the segments section: a mapping query id ->
        segment, or a function of the query id (a string) returning its
        segment. The section holds ``compare(..., segment_by=...).segments``
        with the report's test, correction, alpha, B and seed (its own
        Generator seeded with the seed, so the other sections draw the same
        numbers as without it), p-values Holm-adjusted across the segments of
        each pair. Default None: no segments section (nothing is written for
        it and ``settings.json`` is unchanged).

    equivalence_margin : float, optional, keyword-only
        The margin :math:`m` of the equivalence test (TOST of :math:`-m <`
        mean difference :math:`< m`, paired t tests) in the estimation
        section. Default None: no equivalence test. There is deliberately no
        default margin: what difference is negligible is a claim about the
        measure and the application (0.01 of MRR may matter for web search
        and not for a QA benchmark), and an "equivalent" verdict against a
        margin nobody chose would read as a finding. The Hodges-Lehmann
        shifts and the effect-size intervals are shown in any case.

    judge_qrels : qrels, optional, keyword-only
        An LLM judge's labels of every query, ``qrels`` being people's labels of
        a random subset of them: adds the section "An LLM judge and people"
        (:func:`mrrstats.ppi_evaluate` with the report's level, resamples and
        seed; :func:`mrrstats.judge_agreement`). QRELS RUN... input only. The
        section "Unjudged documents" (:func:`mrrstats.judgment_bounds`) is added
        whenever some run retrieves unjudged documents in its top 10.
    Returns
    -------
    ReportResult

    Notes
    -----
    Re-running with the same inputs, options and seed (and the same package
    versions) writes a byte-identical folder: ``tables/``, ``results/``,
    ``per_query.csv``, ``settings.json``, the notebook (its cell ids are
    fixed) and the HTML.

    Examples
    --------
    >>> import tempfile, mrrstats
    >>> data = mrrstats.datasets.cast2021()
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     res = mrrstats.make_report(data.qrels, data.runs[:3], out=tmp, measures="RR",
    ...                                n_resamples=999, rng=1, notebook=False,
    ...                                progress=False)
    ...     print(res.files[:3])
    ('per_query.csv', 'results/clustered.csv', 'results/estimation.csv')
    """
    (items, out, measures, test, correction, alpha, n_resamples, confidence_level, timeout,
     ties) = _make_report_iv(qrels, runs, scores, out, measures, baseline, test, correction,
                             alpha, alternative, n_resamples, confidence_level, random, ties,
                             rel, queries, missing, rng, timeout)
    if equivalence_margin is not None:
        if isinstance(equivalence_margin, bool) or not isinstance(equivalence_margin,
                                                                  numbers.Real) \
                or not (math.isfinite(equivalence_margin) and equivalence_margin > 0):
            raise ValueError("`equivalence_margin` must be None or a positive number, got "
                             f"{equivalence_margin!r}")
        equivalence_margin = float(equivalence_margin)

    progress = progress_enabled(progress)
    seconds = {}
    t0 = time.perf_counter()
    _, seed = rng_iv(rng)
    if items is None:
        eval_measures = list(measures) if measures is not None else ["RR", "nDCG@10"]
        n_compared = len(eval_measures)
        rr_measure = next((m for m in eval_measures if _is_rr(m)), None)
        if rr_measure is None:
            eval_measures.append("RR")
        _say(progress, f"evaluating {len(runs) if hasattr(runs, '__len__') else '?'} runs "
             f"({', '.join(eval_measures)}) ...")
        ev = evaluate(qrels, runs, eval_measures, ties=ties, rel=rel, queries=queries)
        names = ev.measure_names
        measures = names[:n_compared]
        rr_measure = next(m for m in names if _is_rr(m))
        score_frames = {m: ev.scores(m) for m in names}
        stats = ev.query_stats.rename(columns={"run": "system"})
        run_list = list(runs.values()) if isinstance(runs, Mapping) else (
            list(runs) if isinstance(runs, (list, tuple)) else [runs])
        inputs = {"kind": "runs", "qrels": _file_record(qrels),
                  "runs": [_file_record(src, name=name)
                           for name, src in zip(ev.runs, run_list, strict=True)],
                  "query_counts": {r: ev.counts[r].to_dict() for r in ev.runs}}
        evaluation = dict(ev.settings)
        random_settings = {"random": random, "measure": rr_measure, "alternative": "greater",
                           "method": "auto", "n_resamples": n_resamples}
    else:
        score_frames = {}
        records = []
        for name, src in items:
            frame = src if isinstance(src, pd.DataFrame) else read_score_matrix(src)
            score_frames[name] = frame
            records.append(_file_record(src, measure=name))
        names = list(score_frames)
        if measures is None:
            measures = list(names)
        unknown = [m for m in measures if m not in score_frames]
        if unknown:
            raise ValueError(f"`measures` {unknown} not among the score matrices {names}")
        rr_measure = next((m for m in names if _is_rr(m)), None)
        stats = None
        inputs = {"kind": "scores", "scores": records}
        evaluation = None
        random_settings = None
    systems = list(score_frames[measures[0]].columns)
    if baseline is not None and baseline not in systems:
        raise ValueError(f"`baseline` {baseline!r} is not a system; have {systems}")
    queries_all = score_frames[measures[0]].index
    labels, how = cluster_labels(queries_all, clusters)
    cluster_settings, cluster_note = None, (
        "no clusters given (clusters=None)" if clusters is None else
        "the query ids are not turn ids such as 106_3 (conversation 106, turn 3) with "
        "several turns per conversation; pass clusters= to make_report")
    if labels is not None:
        n_clusters = int(pd.unique(labels).size)
        if n_clusters < 2:
            cluster_note, labels = "fewer than two clusters", None
        else:
            cluster_settings = {"description": how, "n_clusters": n_clusters,
                                "labels": None if isinstance(clusters, str) else
                                {str(q): str(c) for q, c in zip(queries_all, labels,
                                                                strict=True)}}
    mv, mv_settings, mv_note = None, None, (
        "the multiverse needs the run files (QRELS RUN... input)" if items is not None
        else "not asked for (multiverse=False)")
    if items is None and multiverse:
        mv_correction = correction if correction in ("holm", "bonferroni", "bh", "none") \
            else "holm"
        _say(progress, "convention multiverse (ties x queries x relevance grades x empty "
             "targets) ...")
        mv = multiverse_result(qrels, runs, measures, alpha=alpha, correction=mv_correction)
        mv_settings = {"ties": list(MULTIVERSE_OPTIONS["ties"]),
                       "queries": list(MULTIVERSE_OPTIONS["queries"]),
                       "rels": sorted({int(r) for r in mv.summary["rel"]}),
                       "cutoffs": list(MULTIVERSE_OPTIONS["cutoffs"]),
                       "empty_targets": list(MULTIVERSE_OPTIONS["empty_targets"]),
                       "test": mv.test, "correction": mv.correction, "alpha": mv.alpha}
    seg_settings = _segment_settings(segment_by, queries_all)
    judged, judged_settings = {}, {}
    if items is None:  # unjudged documents, and an LLM judge (judged_section)
        judged, judged_settings = judged_results(
            qrels, runs, measures, judge_qrels=judge_qrels, confidence_level=confidence_level,
            n_resamples=n_resamples, seed=seed, ties=ties, rel=rel)
    elif judge_qrels is not None:
        raise ValueError("`judge_qrels` needs QRELS RUN... input (qrels and runs)")
    settings = {
        "format": FORMAT_VERSION,
        "title": title,
        "input": inputs,
        "systems": systems,
        "measures": list(measures),
        "evaluated_measures": list(names),
        "rr_measure": rr_measure,
        "evaluation": evaluation,
        "comparison": {"test": test, "correction": correction, "alpha": alpha,
                       "alternative": alternative, "n_resamples": n_resamples,
                       "confidence_level": confidence_level, "missing": missing},
        "baseline": baseline,
        "random_baseline": random_settings,
        "random_baseline_note": None if random_settings else (
            "score matrices carry no candidate counts (the number of ranked candidates "
            "and of relevant ones per query); make the report from QRELS RUN... input"),
        "agreement": {"ties": "agreement", "decimals": 12},
        "leaderboard": {"decisions": "the comparison's (test, correction, alpha)"},
        "clusters": cluster_settings,
        "clusters_note": None if cluster_settings else cluster_note,
        "multiverse": mv_settings,
        "multiverse_note": None if mv_settings else mv_note,
        "estimation": {"margin": equivalence_margin,
                       "hodges_lehmann": "R's wilcox.test(paired = TRUE, conf.int = TRUE)",
                       "d_z": "noncentral t interval",
                       "prob_superiority": "BCa bootstrap interval",
                       "equivalence": None if equivalence_margin is None else
                       "TOST by paired t tests (statsmodels ttost_paired)"},
        "mixed": {"model": "score ~ system + (1 | query), REML (statsmodels MixedLM)",
                  "anova": "two-way ANOVA without replication; Tukey HSD"},
        "seed": seed,
        "rng_order": "one numpy Generator(PCG64) seeded with `seed`: the test of each "
                     "measure in order, then the random-ranking test of each system in order, "
                     "then the bootstrap interval of each system's mean (measure by measure, "
                     "systems in order), then the randomization test of the pair shown up "
                     "close, then (queries in clusters) for each measure and pair in order the "
                     "query bootstrap, the cluster bootstrap and the cluster randomization "
                     "test, then for each measure and pair in order the bootstrap of the "
                     "probability of superiority",
        "power": {"test": "paired t", "differences": [0.02, 0.05, 0.1], "alpha": alpha,
                  "alternative": "two-sided", "target": 0.8},
        "versions": _versions(),
    }
    if seg_settings is not None:
        # only when asked for: a report without segments writes what it wrote before
        settings["segments"] = seg_settings
    settings.update(judged_settings)  # "judge", "bounds": only where they apply
    out.mkdir(parents=True, exist_ok=True)
    (out / "tables").mkdir(exist_ok=True)
    per_query = _per_query_frame(score_frames, stats, names, systems)
    _write_per_query(per_query, out / "per_query.csv")
    (out / "settings.json").write_text(_dump_json(settings), encoding="utf-8", newline="")
    # The analysis runs once, on the data just written (read back, so that the
    # numbers are those of the files); its results are saved for the notebook.
    scores_rt, stats_rt = _read_per_query(out / "per_query.csv", settings["evaluated_measures"],
                                          settings["systems"], settings["input"]["kind"] == "runs")
    data = _analyse(scores_rt, stats_rt, settings, progress=progress, multiverse=mv,
                    judged=judged)
    written = ["per_query.csv", "settings.json"]
    for sub in ("tables", "results"):
        (out / sub).mkdir(exist_ok=True)
        for name in sorted(p.name for p in (out / sub).iterdir() if p.is_file()):
            (out / sub / name).unlink()
    for name, text in data.tables().items():
        (out / "tables" / name).write_text(text, encoding="utf-8", newline="")
        written.append(f"tables/{name}")
    written += _save_results(data, out / "results")
    seconds["analysis"] = time.perf_counter() - t0
    if notebook:
        title = title or "mrrstats report"
        t1 = time.perf_counter()
        nb = _inject_parameters(_template(), {"report_dir": ".", "title": title})
        if seg_settings is not None:
            _add_segment_cells(nb)
        if judged:
            add_judged_cells(nb, judged)
        _execute(nb, out, timeout, progress)
        import nbformat

        nbformat.write(nb, str(out / "report.ipynb"))
        seconds["notebook"] = time.perf_counter() - t1
        t2 = time.perf_counter()
        (out / "report.html").write_text(_to_html(nb, title, show_code=show_code),
                                         encoding="utf-8", newline="")
        seconds["html"] = time.perf_counter() - t2
        written += ["report.ipynb", "report.html"]
    _say(progress, f"wrote {len(written)} files to {out} in "
         f"{sum(seconds.values()):.1f} s")
    return ReportResult(out, tuple(sorted(written)), data, seconds)


def _segment_settings(segment_by, queries):
    """``settings["segments"]`` for ``segment_by`` (None when not given)."""
    if segment_by is None:
        return None
    if callable(segment_by):
        labels = {str(q): segment_by(str(q)) for q in queries}
        how = getattr(segment_by, "description", None) or \
            f"segments from {getattr(segment_by, '__name__', 'a function')}(query id)"
    elif isinstance(segment_by, Mapping):
        missing = [str(q) for q in queries if q not in segment_by and str(q) not in segment_by]
        if missing:
            raise ValueError(f"`segment_by` gives no segment for {len(missing)} queries, "
                             f"e.g. {missing[:3]}")
        labels = {str(q): segment_by[q] if q in segment_by else segment_by[str(q)]
                  for q in queries}
        how = "segments given by a mapping query -> segment"
    else:
        raise TypeError("`segment_by` must be a mapping query -> segment or a function of "
                        f"the query id, not {type(segment_by).__name__}")
    bad = [q for q, v in labels.items() if v is None or (isinstance(v, float) and v != v)]
    if bad:
        raise ValueError(f"`segment_by` gives no segment (None/NaN) for queries {bad[:3]}")
    labels = {q: str(v) for q, v in labels.items()}
    segs = list(dict.fromkeys(labels.values()))
    if len(segs) < 2:
        raise ValueError(f"`segment_by` gives {len(segs)} segment; need at least two")
    return {"description": how, "segments": segs, "segment_correction": "holm",
            "labels": labels}


def _save_results(data, folder):
    """Write what the notebook draws under ``folder``; returns the relative file names."""
    written = []
    for name in _RESULT_TABLES:
        frame = getattr(data, name)
        if frame is None:
            continue
        index = name in ("random_baseline", "rr_summary")
        text = frame.to_csv(index=index, lineterminator="\n", float_format=None)
        (folder / f"{name}.csv").write_text(text, encoding="utf-8", newline="")
        written.append(f"results/{name}.csv")
    if data.null_distribution is not None:
        with open(folder / "null_distribution.npy", "wb") as fh:
            np.save(fh, np.ascontiguousarray(data.null_distribution, dtype="<f8"),
                    allow_pickle=False)
        written.append("results/null_distribution.npy")
    for name, frame in (("segments", data.segments), ("segment_means", data.segment_means),
                        *((n, getattr(data, n)) for n in JUDGED_TABLES)):
        if frame is not None:
            text = frame.to_csv(index=False, lineterminator="\n", float_format=None)
            (folder / f"{name}.csv").write_text(text, encoding="utf-8", newline="")
            written.append(f"results/{name}.csv")
    mv = data.multiverse
    if mv is not None:
        for name in _MULTIVERSE_FRAMES:
            text = getattr(mv, name).to_csv(index=False, lineterminator="\n",
                                            float_format=None)
            (folder / f"multiverse_{name}.csv").write_text(text, encoding="utf-8", newline="")
            written.append(f"results/multiverse_{name}.csv")
    manifest = {"focus": _json_floats(data.focus), "notes": list(data.notes),
                "power": None if data.power is None else dict(data.power.attrs),
                "multiverse": None if mv is None else {
                    "reference": mv.reference, "test": mv.test, "correction": mv.correction,
                    "alpha": mv.alpha}}
    (folder / "results.json").write_text(_dump_json(manifest), encoding="utf-8", newline="")
    written.append("results/results.json")
    return written


def _json_floats(obj):
    """Non-finite floats as the strings "inf", "-inf", "nan" (strict JSON has none)."""
    if isinstance(obj, dict):
        return {k: _json_floats(v) for k, v in obj.items()}
    if isinstance(obj, float) and not math.isfinite(obj):
        return "nan" if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    return obj


def _float_fields(obj, names=("ci_low", "ci_high")):
    """Undo :func:`_json_floats` for the interval bounds."""
    if obj is None:
        return None
    return {k: (float(v) if k in names else v) for k, v in obj.items()}


def _read_csv(path, index):
    # pandas' default float parser round-trips the repr() digits written above
    # (checked in tests/test_report.py against the in-memory results, exactly)
    return pd.read_csv(path, index_col=0 if index else None)


def load_report(path, *, progress=False) -> ReportData:
    """Load a report's saved results (nothing is recomputed).

    Parameters
    ----------
    path : path
        A folder written by :func:`make_report`.
    progress : bool, keyword-only
        Unused (kept for compatibility: loading runs no analysis).

    Returns
    -------
    ReportData
        The per-query data, the settings and the saved results of the
        analysis (``results/``); ``comparison`` is None (its tables are the
        files in ``tables/``).
    """
    path = Path(path)
    settings = json.loads((path / "settings.json").read_text(encoding="utf-8"))
    if settings.get("format") != FORMAT_VERSION:
        raise ValueError(f"{path / 'settings.json'}: unknown report format "
                         f"{settings.get('format')!r}")
    if not (path / "results" / "results.json").is_file():
        raise ValueError(f"{path}: no saved results (results/results.json); make the report "
                         "again with this version of mrrstats")
    scores, stats = _read_per_query(path / "per_query.csv", settings["evaluated_measures"],
                                    settings["systems"], settings["input"]["kind"] == "runs")
    res = path / "results"
    manifest = json.loads((res / "results.json").read_text(encoding="utf-8"))
    tables = {}
    for name in _RESULT_TABLES:
        f = res / f"{name}.csv"
        tables[name] = _read_csv(f, name in ("random_baseline", "rr_summary")) \
            if f.is_file() else None
    if tables["power"] is not None and manifest.get("power"):
        tables["power"].attrs.update(manifest["power"])
    if tables["agreement"] is not None:
        tables["agreement"].attrs["measures"] = list(settings["measures"])
    null = None
    if (res / "null_distribution.npy").is_file():
        null = np.load(res / "null_distribution.npy", allow_pickle=False)
    segs = {name: (pd.read_csv(res / f"{name}.csv", dtype={"segment": str})
                   if (res / f"{name}.csv").is_file() else None)
            for name in ("segments", "segment_means")}
    return ReportData(multiverse=_load_multiverse(res, manifest), **_load_judged(res),
                      segments=segs["segments"], segment_means=segs["segment_means"],
                      leaderboard=tables["leaderboard"], clustered=tables["clustered"],
                      estimation=tables["estimation"], mixed=tables["mixed"],
                      scores=scores, query_stats=stats, settings=settings, comparison=None,
                      versus_baseline=tables["versus_baseline"],
                      random_baseline=tables["random_baseline"],
                      rr_summary=tables["rr_summary"], agreement=tables["agreement"],
                      notes=tuple(manifest.get("notes", ())), pairs=tables["pairs"],
                      means=tables["means"], focus=_float_fields(manifest.get("focus")),
                      null_distribution=null, power=tables["power"])


def _load_multiverse(folder, manifest):
    """The saved :class:`MultiverseResult` of a report, or None."""
    meta = manifest.get("multiverse")
    if not meta:
        return None
    frames = {}
    for name in _MULTIVERSE_FRAMES:
        frame = pd.read_csv(folder / f"multiverse_{name}.csv", dtype={"cutoff": str})
        frames[name] = frame
    return MultiverseResult(frames["systems"], frames["pairs"], frames["summary"],
                            meta["reference"], meta["test"], meta["correction"],
                            meta["alpha"])


def recompute_report(path, *, progress=False) -> ReportData:
    """Run a report's analysis again from its ``per_query.csv`` and ``settings.json``.

    For checking a report: ``recompute_report(path).tables()`` equals the
    files in ``path/tables`` when the package versions are the same. The
    multiverse needs the run files, so its saved result is reused.
    """
    path = Path(path)
    settings = json.loads((path / "settings.json").read_text(encoding="utf-8"))
    if settings.get("format") != FORMAT_VERSION:
        raise ValueError(f"{path / 'settings.json'}: unknown report format "
                         f"{settings.get('format')!r}")
    scores, stats = _read_per_query(path / "per_query.csv", settings["evaluated_measures"],
                                    settings["systems"], settings["input"]["kind"] == "runs")
    manifest_path = path / "results" / "results.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8")) \
        if manifest_path.is_file() else {}
    # the multiverse needs the run files: the saved one is kept as it is
    return _analyse(scores, stats, settings, progress=progress,
                    multiverse=_load_multiverse(path / "results", manifest),
                    judged=_load_judged(path / "results"))


def _load_judged(folder):
    """The saved judge and unjudged-documents frames of a report (judged_section)."""
    return {n: pd.read_csv(folder / f"{n}.csv") for n in JUDGED_TABLES
            if (folder / f"{n}.csv").is_file()}
