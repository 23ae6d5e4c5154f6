r"""Plots for MRR and its companions: distributions, comparisons, baselines, power.

Every function takes ``ax=None`` (a new figure is created when it is None),
draws on that Axes and returns it; none calls ``show()``. The plots draw
results: no function here runs a test or a resampling procedure (pass the
intervals, pairwise results, power tables and baselines your analysis
computed). Score input goes through the package's one coercion,
:func:`mrrstats.model.scoretable.as_score_table`. matplotlib is
imported inside the functions, so ``import mrrstats`` does not import it.

One module per plot family (in ``mrrstats.report.plots``): ``distributions``,
``intervals``, ``agreement``, ``baselines``, ``power``, ``leaderboard``, ``judges``,
``designs`` (seeds, collections, posteriors, calibration), ``critical`` (many systems over
many collections), ``reproduction`` (a reproduced experiment), and ``style`` (the look
they share).

The style is shared by all functions: the Okabe-Ito colour-blind-safe palette
(:data:`PALETTE`), and series that also differ by marker, line style or
hatch, so that every figure stays readable in greyscale. Random-ranking
references are always grey. Axis labels name the quantity and its unit or
scale. :func:`style_context` applies the package's rcParams (font sizes,
embedded TrueType fonts in PDF) for publication figures.

Functions
---------
============================  ===========================================================
:func:`rr_histogram`          per-query RR per system, with the RR distribution of a random ranking
:func:`rank_ecdf`             ECDF of the first-relevant rank (log axis), with the random CDF
:func:`paired_differences`    sorted per-query differences of two systems, mean and a given CI
:func:`forest_means`          each system's mean (MRR) with its computed confidence interval
:func:`forest_differences`    a pairwise result against a control: intervals and decisions
:func:`null_distribution`     null or bootstrap distribution of a statistic and the observed value
:func:`measure_scatter`       system means under two measures, Kendall's tau in the title
:func:`tau_heatmap`           measure-by-measure matrix of rank correlations
:func:`power_curve`           a computed power table against the number of queries
:func:`observed_vs_random`    observed MRR against its random-ranking expectation
:func:`expected_mrr_curve`    expected RR of a random ranking against the number of candidates
:func:`rank_credit`           how RR, AP and nDCG credit a relevant document as its rank grows
:func:`rank_intervals_plot`   each system's rank and simultaneous rank interval, per measure
:func:`clustered_intervals`   each pair's interval with queries independent and clusters resampled
:func:`estimation_intervals`  each pair's Hodges-Lehmann shift with its interval
:func:`one_option_at_a_time`  the conventions of a multiverse that change one option
:func:`multiverse_plot`       each system's rank under each convention that changes one option
:func:`segment_means`         each segment's mean and interval per run (one row per segment)
:func:`replicate_runs`        each system's run means (seeds, folds) and grand mean
:func:`forest_collections`    effects over collections and their random-effects pooling
:func:`posterior_plot`        the posterior of a mean difference, credible interval, ROPE
:func:`calibration_plot`      type I error and power of each test on simulated collections
============================  ===========================================================

and :func:`critical_difference_plot`, the critical-difference diagram of many systems over
many collections (average ranks, the groups not significantly different);
:func:`er_delta_ri_plot` and :func:`rmse_by_cutoff`, how well a reproduction reproduces
the original experiment (Breuer et al. 2020).

Examples
--------
>>> import numpy as np, pandas as pd
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> import mrrstats.plots as mp
>>> rr = pd.DataFrame({"bm25": [1, 0.5, 1, 0.25, 0.2], "dense": [1, 1, 0.5, 1, 0.1]})
>>> ax = mp.rr_histogram(rr, n_candidates=100)
>>> ax.get_xlabel()
'RR of the query (1 / rank of the first relevant document)'
>>> import matplotlib.pyplot as plt; plt.close("all")
"""

from __future__ import annotations

from .agreement import measure_scatter, multiverse_plot, one_option_at_a_time, tau_heatmap
from .baselines import expected_mrr_curve, observed_vs_random, rank_credit
from .critical import critical_difference_plot
from .designs import calibration_plot, forest_collections, posterior_plot, replicate_runs
from .distributions import null_distribution, rank_ecdf, rr_histogram
from .intervals import (
    clustered_intervals,
    estimation_intervals,
    forest_differences,
    forest_means,
    paired_differences,
    segment_means,
)
from .judges import bound_bars, judge_intervals
from .leaderboard import rank_intervals_plot
from .power import power_curve
from .reproduction import er_delta_ri_plot, rmse_by_cutoff
from .style import PALETTE, interval_name, short_names, style_context

__all__ = [
    "judge_intervals",
    "bound_bars",
    "PALETTE",
    "style_context",
    "interval_name",
    "rr_histogram",
    "rank_ecdf",
    "paired_differences",
    "forest_means",
    "forest_differences",
    "segment_means",
    "null_distribution",
    "measure_scatter",
    "tau_heatmap",
    "power_curve",
    "observed_vs_random",
    "expected_mrr_curve",
    "rank_credit",
    "short_names",
    "rank_intervals_plot",
    "clustered_intervals",
    "estimation_intervals",
    "one_option_at_a_time",
    "multiverse_plot",
    "replicate_runs",
    "forest_collections",
    "posterior_plot",
    "calibration_plot",
    "critical_difference_plot",
    "er_delta_ri_plot",
    "rmse_by_cutoff",
]
