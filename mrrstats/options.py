"""The allowed values of the string options, each defined once.

The modules that use them re-export them (``mrrstats.TIES`` is
:data:`mrrstats.model.ranking.TIES` is :data:`TIES`); they live here, in a module
that imports nothing, so that the command line builds its parser (``--ties
{trec_eval,...}``, ``--method {t,bootstrap}``) without importing the statistics:
``mrrstats --help`` loads no numpy, pandas or scipy.
"""

from __future__ import annotations

__all__ = ["TIES", "QUERIES", "ENGINES", "EMPTY_TARGET", "BAYES_METHODS", "CALIBRATION_TESTS",
           "HIERARCHICAL_MODELS", "NULLS", "META_TESTS", "EFFECTS", "REPLICATE_METHODS",
           "POPULATIONS", "PPI_VARIANCES", "REPLICATE_DRAWS", "CD_TESTS", "TAU2_METHODS",
           "RE_METHODS", "RE_TESTS", "MIXED_DF_METHODS", "BOOTSTRAP_CI_METHODS"]

#: Tie conventions of ``rank_run`` and ``evaluate`` (:mod:`mrrstats.model.ranking`).
TIES = ("trec_eval", "rank", "optimistic", "pessimistic", "realistic", "expected")
#: ``queries=``: which queries count (:mod:`mrrstats.metrics.evaluation`).
QUERIES = ("both", "qrels", "msmarco")
#: ``engine=`` of ``evaluate``.
ENGINES = ("memory", "stream", "dask", "auto")
#: Policies for a query without any relevant document (torchmetrics' names).
EMPTY_TARGET = ("neg", "pos", "skip", "error")
#: ``method=`` values of :func:`mrrstats.bayesian_comparison`.
BAYES_METHODS = ("t", "bootstrap")
#: ``model=`` of ``CriticalDifferenceResult.hierarchical``: the Student-t hierarchical model
#: (MCMC) or its normal approximation.
HIERARCHICAL_MODELS = ("t", "normal")
#: Tests :func:`mrrstats.calibrate_tests` can run (vectorised over simulated collections).
CALIBRATION_TESTS = ("t", "randomization", "bootstrap", "wilcoxon", "sign")
#: ``null_hypothesis=`` of :func:`mrrstats.calibrate_tests`: equal expected means, or one
#: shared margin.
NULLS = ("means", "margins")
#: Tests :func:`mrrstats.across_collections` runs on each collection's per-query scores.
META_TESTS = ("t", "randomization", "bootstrap", "wilcoxon", "sign")
#: ``effect=`` values of :func:`mrrstats.across_collections`: the standardised paired
#: difference or the raw mean difference.
EFFECTS = ("d_z", "difference")
#: ``method=`` values of :func:`mrrstats.replicate_tests`.
REPLICATE_METHODS = ("bootstrap", "t", "mixed")
#: ``replicate_draws=`` of :func:`mrrstats.replicate_tests`: the second (replicate) stage
#: of the bootstrap, a normal replicate component with a chi-square variance estimate on
#: ``R - 1`` degrees of freedom (``"parametric"``), or the replicates resampled with
#: replacement (``"resample"``).
REPLICATE_DRAWS = ("parametric", "resample")
#: ``population=`` of :func:`mrrstats.ppi_evaluate`: the human-label mean of these queries
#: (``"finite"``), or of the population of queries they were drawn from (``"infinite"``).
POPULATIONS = ("finite", "infinite")
#: ``variance=`` of :func:`mrrstats.ppi_evaluate`: the rectifier variance floored by the
#: judge's error pooled over the systems when few labelled queries show it
#: (``"moderated"``), or the plain sample variance as ``ppi_py`` computes it (``"sample"``).
PPI_VARIANCES = ("moderated", "sample")
#: ``test=`` of :func:`mrrstats.critical_difference`: Nemenyi's test on the average ranks
#: (Demsar 2006), pairwise Wilcoxon signed-rank tests with Holm's correction (Benavoli et
#: al. 2016), Conover's post-hoc test of Friedman's ranks (Holm-adjusted).
CD_TESTS = ("nemenyi", "wilcoxon-holm", "conover")
#: Between-collection variance estimators of :func:`mrrstats.across_collections` by default
#: (rows of ``.meta``): DerSimonian-Laird and Paule-Mandel.
TAU2_METHODS = ("DL", "PM")
#: All estimators :func:`mrrstats.stats.meta.random_effects` offers (REML: restricted
#: maximum likelihood; SJ: Sidik-Jonkman).
RE_METHODS = ("DL", "PM", "REML", "SJ")
#: Tests of the pooled effect: normal (``"z"``) or Knapp-Hartung (``"knha"``).
RE_TESTS = ("z", "knha")
#: ``df_method=`` of :func:`mrrstats.mixed_model`: Wald z, or t with Satterthwaite's df.
MIXED_DF_METHODS = ("wald", "satterthwaite")
#: ``method=`` of :func:`mrrstats.bootstrap_ci`: those of every bootstrap (BCa, percentile,
#: basic), the normal one, and the studentized (bootstrap-t) one.
BOOTSTRAP_CI_METHODS = ("bca", "percentile", "basic", "normal", "studentized")
