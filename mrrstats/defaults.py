r"""The defaults of mrrstats, in one place, each with the reason it was chosen.

Every public function and every command of the ``mrrstats`` command line
takes its defaults from here (``tests/test_defaults.py`` inspects every
signature and every command's options against :data:`PARAMETERS` and the
documented :data:`EXCEPTIONS`).

====================== ================ ========================================================
parameter              default          why
====================== ================ ========================================================
``n_resamples``        10,000           Monte-Carlo resamples of every randomization, bootstrap
                                        and random-ranking test and interval. The p-value ``(b +
                                        1)/(B + 1)`` has a Monte-Carlo standard error of at most
                                        0.005 (0.0022 at p = 0.05), and the Monte-Carlo test at
                                        ``alpha = 0.05`` has size ``500/10001 = 0.049995``,
                                        conservative by 5e-6 (B = 9,999 would make it exact,
                                        Davison & Hinkley 1997, 4.2.5, a difference far below
                                        the Monte-Carlo error). One round number for every
                                        method (9,999 was used by the random-ranking baselines
                                        only).
``alpha``              0.05             Significance level.
``confidence_level``   0.95             Level of every interval (``1 - alpha``).
``alternative``        "two-sided"      Comparisons between systems. The random-ranking
                                        baselines test "better than random" (``"greater"``,
                                        :data:`BASELINE_ALTERNATIVE`).
``test``               "randomization"  The paired sign-flip test: exact or Monte Carlo, no
                                        distributional assumption, the usual IR choice (Smucker,
                                        Allan and Carterette 2007).
``correction``         "single-step"    Single-step max-T of the studentised paired differences
                                        under within-query permutations of the systems
                                        (multcomp's default procedure, with the null of the
                                        randomised Tukey HSD). It controls the family-wise
                                        error over the pairs of a measure, exactly under the
                                        null where no pair differs, and gives every pair a
                                        finite simultaneous interval that excludes 0 exactly
                                        when the pair is rejected: a reader can quote the size
                                        of a difference. Holm (the default before 0.2) can
                                        only show its decisions with intervals that are
                                        one-sided for every rejected pair (Strassburger &
                                        Bretz 2008); its table now shows Bonferroni's
                                        simultaneous interval and marks the pairs Holm
                                        rejects beyond it. Measured on the 27 real TREC
                                        matrices (table below): exact level on real
                                        nulls, more rejections than Holm, no interval
                                        against its decision; simultaneous coverage below
                                        nominal on skewed measures (0.89 at 25 topics, 0.92
                                        at 50: every caption says so beside the nominal
                                        95%, from ``mrrstats.stats.coverage.COVERAGE``).
                                        ``"single-step-skew"`` (Hall's skewness correction)
                                        covers 0.93/0.95 but rejects 4-8% fewer pairs, and on
                                        the full matrices fewer than Holm: not the default
                                        (issue #28, second table below).
``ties``               "trec_eval"      Tie convention: trec_eval's (score descending, then
                                        document id descending), so numbers match trec_eval.
                                        Under ``queries="msmarco"`` the run's rank column orders
                                        the documents (``"rank"``, as the MS MARCO script):
                                        :func:`default_ties`. :func:`mrrstats.evaluate` and
                                        :func:`mrrstats.make_report` both take ``ties=None`` and
                                        resolve it with :func:`default_ties`.
``rel``                1                Minimum relevant grade (trec_eval's ``-l 1``).
``queries``            "both"           Queries in both the qrels and the run (trec_eval's
                                        default) for TREC files, frames, tables and the
                                        stream and Dask engines; a judged query left out
                                        warns (:class:`mrrstats.QueriesLeftOutWarning`).
                                        :func:`mrrstats.evaluate` takes ``queries=None`` and
                                        resolves it per run (:func:`default_queries`):
                                        lists and dicts of ids (the RAG/QA door) count every
                                        judged question, a missing or empty retrieval
                                        scoring 0 (``"qrels"``, as ranx's
                                        ``make_comparable=True``).
``empty_target``       "neg"            A query without a relevant document scores 0
                                        (trec_eval).
``unjudged``           "nonrelevant"    A retrieved document the qrels do not judge counts as
                                        non-relevant (trec_eval); ``"condense"`` removes it
                                        first (Sakai 2007), ``"relevant"`` counts it relevant
                                        (the upper end of :func:`mrrstats.judgment_bounds`).
``random``             "retrieved"      The random ranker of the random-ranking baselines
                                        (``mrrstats baseline``,
                                        :func:`mrrstats.evaluation_baseline`, ``mrrstats
                                        report``): a uniformly random permutation of each
                                        retrieved list (N = documents retrieved, R = relevant
                                        documents retrieved). It needs only the run, and it
                                        answers "how much does this system's order add over its
                                        own candidates in random order"; ``"judged"`` (a random
                                        ranking of the judged pool) depends on the pool depth.
                                        Every output names the model used.
``missing``            "raise"          A query some system lacks is an error, never silently
                                        dropped.
``scheme``             "multinomial"    The paired bootstrap draws ``n`` queries with
                                        replacement (Efron's bootstrap, scipy's). ``"poisson"``
                                        gives each query a Poisson(1) weight instead
                                        (Hanley & MacGibbon 2006; Chamandy et al. 2012): the
                                        same standard error to O(1/n), and the only scheme
                                        that splits into blocks of queries
                                        (:mod:`mrrstats.blocked`), so it is the choice for
                                        10^6 queries and more; the default stays the classical
                                        one.
``method``             "studentized"    The interval of :func:`mrrstats.bootstrap_ci`
                                        (``method=None`` resolves it:
                                        :func:`default_bootstrap_method`): the bootstrap-t,
                                        whose coverage at 25 topics is the closest to 0.95 of
                                        the five methods on the real TREC matrices
                                        (``benchmarks/bench_validity.py``,
                                        ``results_validity.md``: studentized 0.936, basic
                                        0.931, normal 0.929, percentile 0.925, BCa 0.914; 4,000
                                        pairs, Monte-Carlo SE 0.004); BCa, the default before,
                                        is the farthest, although second-order accurate in
                                        theory (Efron & Tibshirani 1993, 14.3, 22.4). Where the
                                        studentized interval is not available (``clusters``,
                                        ``strata``, ``scheme="poisson"``,
                                        :func:`mrrstats.blocked.bootstrap_ci`,
                                        :func:`mrrstats.unpaired_bootstrap_ci`, ``mrrstats
                                        unpaired``) BCa stays
                                        (:data:`BOOTSTRAP_METHOD_FALLBACK`): the table does not
                                        measure those designs.
``workers``            -1               Threads of the compiled resampling kernels: all cores.
                                        Every resample is computed from its own counters, so
                                        the numbers never depend on it.
====================== ================ ========================================================

The single-step default, measured (``benchmarks/calibration/single_step_default.py``,
``results_single_step_default.md``): 27 real TREC matrices, 10 systems (45 pairs),
alpha = 0.05, 500 replicates per cell (Monte-Carlo SE 0.010); FWER on real nulls (every
topic's values shuffled among the systems), simultaneous coverage of all 45 intervals
with topics drawn with replacement (truth: the mean differences over all topics), mean
rejected pairs, and rejections on the first 20 systems of every matrix (5,130 pairs):

=============================  ==========  ==========  ==============  ================
procedure (interval shown)     FWER 25/50  coverage    rejected of 45  rejected of 5130
                                           25/50       25/50
=============================  ==========  ==========  ==============  ================
single-step max-T (its own)    .052/.058   .908/.918   9.17/15.42      1027
randomization + Holm           .034/.040   .928/.944   7.87/14.10      988
(Bonferroni)
randomised Tukey HSD           .042/.044   .970/.978   7.99/13.48      980
=============================  ==========  ==========  ==============  ================

Holm rejects 43 pairs the single-step max-T does not, which rejects 82 that Holm does
not; 0 of its 5,130 intervals disagree with its decision; widths 1.86 (median) to 1.90
times the marginal t interval. Coverage below 0.95 comes from skewed measures (ERR@20,
RR) and affects every t-based interval (Bonferroni t: 0.91/0.93).

Constructions that aim at 95% simultaneous coverage (issue #28: at least 0.93 at 25
topics and 0.94 at 50, FWER at most 0.055, at least Holm's rejections, intervals that
agree with the decisions; ``benchmarks/calibration/results_maxt_constructions.md``).
Through ``pairwise_tests`` in two more runs of the design above (1,620 replicates per
cell for coverage and rejections, Monte-Carlo SE 0.006; 540 for FWER, SE 0.010;
``skew_default.py``), full data as above (B = 10,000):

=============================  ==========  ==========  ==============  ================
correction (interval shown)    FWER 25/50  coverage    rejected of 45  rejected of 5130
                                           25/50       25/50
=============================  ==========  ==========  ==============  ================
single-step (the default)      .048/.063   .880/.919   8.86/15.17      1027
single-step-skew (asymmetric)  .048/.057   .928/.951   8.15/14.53      980
randomization + Holm           .026/.035   .906/.942   7.54/13.96      988
=============================  ==========  ==========  ==============  ================

``single-step-skew`` passes Hall's (1992) monotone skewness correction over every
pair's studentised difference, in every permutation with that permutation's own
skewness: the coverage target within Monte-Carlo error (0.928 at 25 topics), an exact
permutation level, no interval against its decision, more rejections than Holm on 10
systems but 8 fewer of 5,130 on the full matrices (20 systems). Studentised bootstrap
max-T covers (0.965/0.959) with 4.7 rejections of 45 at 25 topics (Holm 7.8); permuting
system-centred scores (no longer exact) moves coverage by at most 0.012. The default
stays the most powerful procedure that holds the level, with its measured coverage
shown beside the nominal.

Seeds: ``rng=None`` draws fresh entropy; every result, command and report
records the seed it actually used (pass it back as ``rng=``/``--seed`` to
reproduce).

Documented exceptions (:data:`EXCEPTIONS`): :func:`mrrstats.evaluate_flat`
follows torchmetrics (``ties="expected"``; ``empty_target="neg"`` is
torchmetrics' ``empty_target_action`` default too), the
multiverse varies conventions (tuples of them) and uses the deterministic t
test, :func:`mrrstats.equivalence_test` defaults to the TOST t test
(statsmodels' ``ttost_paired``), the power simulation uses fewer resamples
per simulated experiment, and so on; each entry says why.
"""

from __future__ import annotations

from typing import Final  # a Final string is its literal value for a type checker

__all__ = ["N_RESAMPLES", "ALPHA", "CONFIDENCE_LEVEL", "ALTERNATIVE", "BASELINE_ALTERNATIVE",
           "TEST", "CORRECTION", "TIES", "TIES_MSMARCO", "REL", "QUERIES", "EMPTY_TARGET",
           "UNJUDGED", "RANDOM", "MISSING", "SCHEME", "BOOTSTRAP_METHOD",
           "BOOTSTRAP_METHOD_FALLBACK", "WORKERS",
           "PPI_VARIANCE", "REPLICATE_DRAW",
           "QUERIES_IDS", "PARAMETERS", "EXCEPTIONS", "default_ties", "default_queries",
           "default_bootstrap_method"]

N_RESAMPLES = 10_000
ALPHA = 0.05
CONFIDENCE_LEVEL = 0.95
ALTERNATIVE: Final = "two-sided"
#: The random-ranking baselines test "better than random".
BASELINE_ALTERNATIVE: Final = "greater"
TEST = "randomization"
#: The many-system procedure: single-step max-T with simultaneous intervals (see above).
CORRECTION: Final = "single-step"
TIES = "trec_eval"
#: The tie convention under ``queries="msmarco"``: the run's rank column.
TIES_MSMARCO = "rank"
REL = 1
QUERIES = "both"
#: The query convention of runs given as lists or dicts of ids (the RAG/QA door):
#: every judged question counts, a missing or empty retrieval scores 0 (ranx's
#: ``make_comparable=True``; a RAG evaluation scores a question it retrieved nothing for 0).
QUERIES_IDS = "qrels"
EMPTY_TARGET = "neg"
UNJUDGED = "nonrelevant"
RANDOM: Final = "retrieved"
MISSING: Final = "raise"
#: The paired bootstrap's resampling scheme (``"poisson"``: in blocks, at scale).
SCHEME: Final = "multinomial"
#: The interval of :func:`mrrstats.bootstrap_ci` (``method=``): the bootstrap-t, closest to
#: nominal at 25 topics on real TREC pairs (benchmarks/results_validity.md).
BOOTSTRAP_METHOD: Final = "studentized"
#: The bootstrap interval where the studentized one is not available (clusters, strata,
#: Poisson weights, blocks of queries, two independent samples).
BOOTSTRAP_METHOD_FALLBACK: Final = "bca"
#: Threads of the resampling kernels (-1: all cores); results never depend on it.
WORKERS = -1
#: ``ppi_evaluate(variance=)``: the rectifier variance floored by the judge's error pooled
#: over the systems where few labelled queries show it (RR coverage 0.95-0.96 on real runs
#: where the plain sample variance gave 0.75-0.92: benchmarks/results_judge.md).
PPI_VARIANCE: Final = "moderated"
#: ``replicate_tests(replicate_draws=)``: the replicate stage drawn as normal run effects
#: with a chi-square variance on R - 1 df (level within Monte-Carlo error with 3-10 runs,
#: benchmarks/results_replicates.md).
REPLICATE_DRAW: Final = "parametric"
#: The seed of every command's ``--example`` when ``--seed`` is not given, so that an
#: example prints the same numbers at every run (each command prints the seed it used;
#: ``mrrstats report --example`` regenerates reports/cast2021 with it).
EXAMPLE_SEED: Final = 2021

#: Parameter name -> default, for every parameter with a package-wide default.
PARAMETERS = {
    "n_resamples": N_RESAMPLES,
    "alpha": ALPHA,
    "confidence_level": CONFIDENCE_LEVEL,
    "alternative": ALTERNATIVE,
    "test": TEST,
    "correction": CORRECTION,
    "ties": TIES,
    "rel": REL,
    "queries": QUERIES,
    "empty_target": EMPTY_TARGET,
    "unjudged": UNJUDGED,
    "random": RANDOM,
    "missing": MISSING,
    "scheme": SCHEME,
    "workers": WORKERS,
}

#: ``(function or command, parameter) -> (default, reason)``: the documented departures
#: from :data:`PARAMETERS`. Functions are named ``module.function`` (the module
#: where they are defined); commands ``mrrstats <command>``.
EXCEPTIONS = {
    # ties resolved from `queries` (default_ties): None means "trec_eval, or rank under msmarco"
    ("mrrstats.metrics.evaluation.evaluate", "ties"):
        (None, "resolved by default_ties(queries)"),
    ("mrrstats.metrics.evaluation.evaluate", "queries"):
        (None, "resolved per run by default_queries: 'qrels' for lists and dicts of ids "
               "(RAG tools), 'both' otherwise (trec_eval)"),
    ("mrrstats.report.builder.make_report", "ties"):
        (None, "resolved by default_ties(queries), as in evaluate"),
    ("mrrstats evaluate", "ties"): (None, "resolved by default_ties(--queries)"),
    ("mrrstats baseline", "ties"): (None, "resolved by default_ties(--queries)"),
    ("mrrstats agreement", "ties"): (None, "resolved by default_ties(--queries)"),
    ("mrrstats compare", "ties"): (None, "resolved by default_ties(--queries)"),
    ("mrrstats report", "ties"): (None, "resolved by default_ties(--queries)"),
    ("mrrstats leaderboard", "ties"): (None, "resolved by default_ties(--queries)"),
    ("mrrstats estimate", "ties"): (None, "resolved by default_ties(--queries)"),
    ("mrrstats unpaired", "ties"): (None, "resolved by default_ties(--queries)"),
    ("mrrstats mixed", "ties"): (None, "resolved by default_ties(--queries)"),
    ("mrrstats replicates", "ties"): (None, "resolved by default_ties(--queries)"),
    ("mrrstats bayes", "ties"): (None, "resolved by default_ties(--queries)"),
    ("mrrstats calibrate", "ties"): (None, "resolved by default_ties(--queries)"),
    ("mrrstats mixed", "missing"):
        ("drop", "as mixed_model: a query some system lacks is left out of both fits"),
    # torchmetrics' contract
    ("mrrstats.metrics.evaluation.evaluate_flat", "ties"):
        ("expected", "torchmetrics sorts ties in an unspecified order: the exact expectation"),
    # the agreement between measures ranks systems by their means, not documents
    ("mrrstats.agreement.measures.ranking_agreement", "ties"):
        ("agreement", "ties of system means (rounded), not of documents"),
    ("mrrstats.agreement.measures.tau_ap", "ties"):
        ("agreement", "ties of system means (rounded), not of documents"),
    # the multiverse varies the conventions: tuples of values, and a deterministic test
    ("mrrstats.agreement.multiverse.multiverse", "ties"):
        (("trec_eval", "optimistic", "pessimistic", "expected"), "every tie convention"),
    ("mrrstats.agreement.multiverse.multiverse", "queries"):
        (("both", "qrels"), "both query conventions of trec_eval"),
    ("mrrstats.agreement.multiverse.multiverse", "test"):
        ("t", "dozens of conventions: the deterministic paired t test keeps it fast and "
              "seed-free"),
    ("mrrstats.agreement.multiverse.multiverse", "unjudged"):
        (("nonrelevant",), "trec_eval's convention unless asked: condensed lists and the "
                           "unjudged-relevant bound on request (judgment_bounds gives both ends)"),
    ("mrrstats multiverse", "unjudged"): (["nonrelevant"], "as multiverse()"),
    ("mrrstats.agreement.multiverse.multiverse", "correction"):
        ("holm", "with the deterministic t test: no permutations, so no seed, over dozens of "
                 "conventions"),
    ("mrrstats multiverse", "test"): ("t", "as multiverse()"),
    ("mrrstats multiverse", "correction"): ("holm", "as multiverse()"),
    ("mrrstats multiverse", "queries"): (("both", "qrels"), "as multiverse()"),
    ("mrrstats multiverse", "ties"):
        (("trec_eval", "optimistic", "pessimistic", "expected"), "as multiverse()"),
    # estimation
    ("mrrstats.stats.estimation.equivalence_test", "test"):
        ("t", "TOST with paired t tests, equal to statsmodels' ttost_paired"),
    ("mrrstats.stats.mixed.mixed_model", "missing"):
        ("drop", "a mixed model handles unbalanced data: missing cells are simply absent"),
    # discriminative power counts raw significant pairs (Sakai 2006), by definition
    ("mrrstats.stats.discriminative.discriminative_power", "correction"):
        (None, "discriminative power counts pairs significant without correction (Sakai)"),
    ("mrrstats.agreement.decisions.discriminative_power_table", "correction"):
        (None, "as discriminative_power"),
    ("mrrstats agreement", "correction"): ("none", "as discriminative_power"),
    # blocks of queries: a multinomial draw can land on any query
    ("mrrstats.stats.blocked.bootstrap_ci", "scheme"):
        ("poisson", "only Poisson weights split into blocks of queries (the in-memory "
                    "numbers of scheme='poisson')"),
    # power simulation: n_resamples per simulated experiment, times many experiments
    ("mrrstats.stats.power.randomization_power", "n_resamples"):
        (1000, "per simulated experiment (of many); the power's Monte-Carlo error is "
               "dominated by the number of experiments"),
    # random-ranking baselines: a one-sided question
    ("mrrstats.baselines.random_baseline.random_baseline_test", "alternative"):
        (BASELINE_ALTERNATIVE, "is the system better than random?"),
    ("mrrstats.baselines.random_baseline.evaluation_baseline", "alternative"):
        (BASELINE_ALTERNATIVE, "is the system better than random?"),
    ("mrrstats baseline", "alternative"): (BASELINE_ALTERNATIVE, "better than random?"),
    ("mrrstats baseline", "random"):
        (None, "RANDOM for QRELS RUN input; a ranks file (--ranks) carries its own counts"),
    # several collections (Dror et al. 2017): partial conjunctions need a direction
    ("mrrstats.stats.meta.across_collections", "alternative"):
        ("greater", "replicability: on how many collections is A better than B (a direction)"),
    ("mrrstats.stats.meta.across_collections", "test"):
        ("t", "one deterministic test per collection, the d_z of the meta-analysis is its "
              "statistic; any paired test may be chosen"),
    ("mrrstats collections", "alternative"): ("greater", "as across_collections()"),
    ("mrrstats collections", "test"): ("t", "as across_collections()"),
    # test calibration: n_resamples per simulated collection, times thousands of them
    ("mrrstats.stats.simulation.calibrate_tests", "n_resamples"):
        (1000, "per simulated collection (of thousands); the rates' Monte-Carlo error is "
               "dominated by the number of collections"),
    ("mrrstats calibrate", "n_resamples"): (1000, "as calibrate_tests()"),
    ("mrrstats.stats.simulation.recommend_test", "correction"):
        (None, "the rows that decide: holm when the table has them, else its first"),
    ("mrrstats.report.plots.designs.calibration_plot", "correction"):
        (None, "draws the rows of the table's first correction unless told"),
    # plots draw a random reference only when asked
    ("mrrstats.report.plots.distributions.rr_histogram", "random"):
        (None, "no random reference unless asked"),
    ("mrrstats.report.plots.distributions.rank_ecdf", "random"):
        (None, "no random reference unless asked"),
    ("mrrstats.report.plots.baselines.observed_vs_random", "random"):
        (None, "the model is read from the baseline table"),
    # many collections: the post-hoc test of a Friedman analysis (Demsar 2006), not a
    # paired test of queries
    ("mrrstats.stats.critical.critical_difference", "test"):
        ("nemenyi", "Demsar's (2006) critical-difference diagram, the convention of the field"),
    ("mrrstats critical-difference", "test"): ("nemenyi", "as critical_difference()"),
    # repro_eval scores every judged topic (a topic a run misses counts as 0)
    ("mrrstats.stats.reproducibility.reproducibility", "queries"):
        ("qrels", "as repro_eval: every judged topic, a missing one scores 0"),
    ("mrrstats reproducibility", "queries"): ("qrels", "as reproducibility()"),
}


def default_ties(queries: str = QUERIES) -> str:
    """The tie convention used when ``ties`` is not given (``None``).

    ``"trec_eval"`` (:data:`TIES`), and ``"rank"`` (:data:`TIES_MSMARCO`, the
    run's rank column) under ``queries="msmarco"``.

    Examples
    --------
    >>> from mrrstats.defaults import default_ties
    >>> default_ties("both"), default_ties("msmarco")
    ('trec_eval', 'rank')
    """
    return TIES_MSMARCO if queries == "msmarco" else TIES


def default_queries(run_kind: str | None) -> str:
    """The query convention used when ``queries`` is not given (``None``), per run.

    ``run_kind`` is how the run came in: ``"list"`` (``{query: [doc, ...]}``) or
    ``"dict"`` (``{query: {doc: score}}``, a ranx run) give :data:`QUERIES_IDS`
    (``"qrels"``: every judged question counts, a missing or empty retrieval scores
    0, as the RAG tools and ranx's ``make_comparable=True`` count it); anything else
    (a TREC file, a frame, a table, the stream and Dask engines) gives
    :data:`QUERIES` (``"both"``, trec_eval's default).

    Examples
    --------
    >>> from mrrstats.defaults import default_queries
    >>> default_queries("list"), default_queries(None)
    ('qrels', 'both')
    """
    return QUERIES_IDS if run_kind in ("list", "dict") else QUERIES


def default_bootstrap_method(studentized: bool = True) -> str:
    """The interval of :func:`mrrstats.bootstrap_ci` when ``method`` is not given (``None``).

    ``"studentized"`` (:data:`BOOTSTRAP_METHOD`) where the bootstrap-t can be computed
    (the multinomial query bootstrap), ``"bca"`` (:data:`BOOTSTRAP_METHOD_FALLBACK`) where
    it cannot (``studentized=False``: clusters, strata or Poisson weights).

    Examples
    --------
    >>> from mrrstats.defaults import default_bootstrap_method
    >>> default_bootstrap_method(), default_bootstrap_method(studentized=False)
    ('studentized', 'bca')
    """
    return BOOTSTRAP_METHOD if studentized else BOOTSTRAP_METHOD_FALLBACK
