r"""The methods paragraph of a result: what was done, with the numbers, and its references.

Every test and comparison result has ``.methods()``, which returns a
:class:`MethodsText`: one paragraph for the methods section of a paper
(``.text``, Pandoc Markdown with ``[@key]`` citations; ``.latex`` with ``\citep``)
and the BibTeX entries of every work it cites (``.bibtex``, from
:mod:`mrrstats.stats.references`).

One generator writes every paragraph. A result is first read into :class:`Facts`
(the procedure, the alternative, the numbers of queries, clusters and resamples,
the seed, the correction, alpha, the interval); the paragraph is then assembled
from three tables: :data:`PROCEDURES` (each test: its name and references),
:data:`CORRECTION_TEXT` (each multiplicity correction) and :data:`INTERVALS`
(each interval construction). :data:`COVERAGE` holds, in one place, the coverage
mrrstats has measured for an interval construction on real TREC score matrices
(the numbers of the benchmarks cited in the documentation of
:func:`mrrstats.compare` and :mod:`mrrstats.defaults`); the paragraph quotes it
where a result uses that construction.

Examples
--------
>>> import mrrstats
>>> res = mrrstats.paired_ttest([0.5, 1.0, 0.2, 1.0, 0.5], [0.25, 1.0, 0.1, 0.5, 0.5])
>>> text = res.methods()
>>> "5 queries" in text.text and "@student1908" in text.text
True
>>> text.bibtex.startswith("@article{student1908,")
True
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ..errors import ParameterError, ParameterTypeError
from .coverage import COVERAGE, Coverage
from .references import bibtex
from .registry import CORRECTIONS, INTERVAL_LABELS, TESTS

__all__ = [
    "MethodsText",
    "Facts",
    "Procedure",
    "Coverage",
    "PROCEDURES",
    "CORRECTION_TEXT",
    "INTERVALS",
    "COVERAGE",
    "methods_text",
    "facts_of",
    "register_readers",
    "combine",
    "resample_unit",
]

#: The IR studies that compare the paired tests on real runs (cited with them).
_IR_STUDIES = ("smucker2007", "urbano2019")


@dataclass(frozen=True)
class MethodsText:
    """A methods paragraph and its references.

    Attributes
    ----------
    text : str
        One paragraph (Pandoc Markdown: math in ``$...$``, citations ``[@key]``).
    keys : tuple of str
        The citation keys of ``text``, in order of first citation.

    ``str(methods)`` is ``text``; :attr:`bibtex` gives the entries of ``keys`` and
    :attr:`latex` the paragraph with ``\\citep{...}`` citations.
    """

    text: str
    keys: tuple[str, ...]

    @property
    def bibtex(self) -> str:
        """The BibTeX entries of every work the paragraph cites."""
        return bibtex(self.keys)

    @property
    def latex(self) -> str:
        """The paragraph for LaTeX: ``[@a; @b]`` becomes ``\\citep{a,b}``."""
        return re.sub(
            r"\[(@[\w-]+(?:; @[\w-]+)*)\]",
            lambda m: "\\citep{" + ",".join(k.strip()[1:] for k in m.group(1).split(";")) + "}",
            self.text,
        )

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Procedure:
    """A test or estimator as the paragraph names it."""

    label: str  # "paired randomization test of the mean difference"
    cites: tuple[str, ...] = ()
    resample: str = ""  # what one of the B resamples is ("random sign vectors")
    clusters: str = ""  # how clusters enter ("all queries of a cluster flipped together")
    monte_carlo_p: bool = False  # p-values (b + 1)/(B + 1) from B random resamples
    ir_test: bool = False  # one of the paired tests compared on IR data (Smucker, Urbano)


_CLUSTER_BOOT = "whole clusters resampled"

PROCEDURES: dict[str, Procedure] = {
    "t": Procedure(
        "paired Student's t-test on the per-query differences", ("student1908",), ir_test=True
    ),
    "wilcoxon": Procedure(
        "Wilcoxon signed-rank test on the per-query differences", ("wilcoxon1945",), ir_test=True
    ),
    "sign": Procedure(
        "exact binomial sign test on the per-query wins and losses", ("dixon1946",), ir_test=True
    ),
    "randomization": Procedure(
        "paired randomization (permutation) test of the mean difference, flipping the sign "
        "of the per-query differences",
        ("fisher1935", "pitman1937"),
        "random sign vectors",
        "one sign flip per cluster",
        monte_carlo_p=True,
        ir_test=True,
    ),
    "bootstrap": Procedure(
        "paired bootstrap shift test of the mean difference (the differences centred at "
        "zero and resampled)",
        ("efron1993", "hall1991"),
        "bootstrap resamples of the queries",
        _CLUSTER_BOOT,
        monte_carlo_p=True,
        ir_test=True,
    ),
    "bootstrap-t": Procedure(
        "studentised paired bootstrap test of the mean difference",
        ("efron1993", "hall1991"),
        "bootstrap resamples of the queries",
        _CLUSTER_BOOT,
        monte_carlo_p=True,
        ir_test=True,
    ),
    "tukey": Procedure(
        "randomised Tukey HSD test (the maximum range of the system means under "
        "within-query permutations of the systems)",
        ("carterette2012", "sakai2018"),
        "random within-query permutations",
        "one permutation per cluster",
        monte_carlo_p=True,
    ),
    "maxt": Procedure(
        "Westfall-Young step-down max-T procedure under within-query permutations of the systems",
        ("westfall1993",),
        "random within-query permutations",
        "one permutation per cluster",
        monte_carlo_p=True,
    ),
    "anova-hsd": Procedure("Tukey HSD test on the two-way (system x query) ANOVA", ("tukey1949",)),
    "dunnett": Procedure(
        "Dunnett's many-to-one test on the two-way (system x query) ANOVA", ("dunnett1955",)
    ),
    "bootstrap-ci": Procedure(
        "nonparametric bootstrap of the mean (of one system's scores, or of the per-query "
        "differences of two systems)",
        ("efron1979",),
        "bootstrap resamples of the queries",
        _CLUSTER_BOOT,
    ),
    "unpaired-t": Procedure(
        "Welch's unpaired t-test on two independent query sets", ("welch1947",)
    ),
    "unpaired-permutation": Procedure(
        "unpaired permutation test of the difference of means (the queries of the two sets "
        "permuted between them)",
        ("fisher1935", "pitman1937"),
        "random permutations",
        monte_carlo_p=True,
    ),
    "unpaired-bootstrap": Procedure(
        "unpaired bootstrap of the difference of means (each query set resampled on its own)",
        ("efron1979",),
        "bootstrap resamples of each query set",
    ),
    "tost-t": Procedure(
        "TOST equivalence procedure (two one-sided paired t-tests)",
        ("schuirmann1987", "student1908"),
    ),
    "tost-randomization": Procedure(
        "TOST equivalence procedure (two one-sided paired randomization tests)",
        ("schuirmann1987", "fisher1935", "pitman1937"),
        "random sign vectors per test",
        monte_carlo_p=True,
    ),
    "hodges-lehmann": Procedure(
        "Hodges-Lehmann estimate of the shift (the median of the Walsh averages of the "
        "per-query differences)",
        ("hodges1963",),
    ),
    "mixed": Procedure(
        "linear mixed model with fixed system effects and random query intercepts, fitted by "
        "REML (statsmodels MixedLM)",
        ("laird1982",),
    ),
    "replicates-bootstrap": Procedure(
        "two-stage studentised bootstrap of the mean difference over queries and replicate runs",
        ("field2007", "efron1993"),
        "two-stage bootstrap resamples",
    ),
    "replicates-t": Procedure(
        "t-test of the mean difference over queries and replicate runs, with the "
        "method-of-moments variance and Satterthwaite's degrees of freedom",
        ("satterthwaite1946",),
    ),
    "replicates-mixed": Procedure(
        "linear mixed model with crossed random query and run effects, fitted by REML "
        "(statsmodels MixedLM)",
        ("laird1982",),
    ),
    # many systems over many collections (critical_difference)
    "cd-nemenyi": Procedure(
        "Friedman test of the systems' ranks within each collection, with the Iman-Davenport F, "
        "then Nemenyi's post-hoc test (the critical-difference diagram)",
        ("friedman1937", "iman1980", "nemenyi1963", "demsar2006"),
        "two-level bootstrap resamples (collections, then queries within each)",
    ),
    "cd-wilcoxon-holm": Procedure(
        "Friedman test of the systems' ranks within each collection, with the Iman-Davenport F, "
        "then pairwise Wilcoxon signed-rank tests on the collection scores",
        ("friedman1937", "iman1980", "wilcoxon1945", "benavoli2016"),
        "two-level bootstrap resamples (collections, then queries within each)",
    ),
    "cd-conover": Procedure(
        "Friedman test of the systems' ranks within each collection, with the Iman-Davenport F, "
        "then Conover's post-hoc test of the rank sums",
        ("friedman1937", "iman1980", "conover1999"),
        "two-level bootstrap resamples (collections, then queries within each)",
    ),
    # reproducibility of a published run (repro_eval's measures)
    "reproducibility": Procedure(
        "the measures of reproducibility of Breuer et al.: Kendall's tau union and "
        "rank-biased overlap of the document orderings, root mean square error (RMSE, "
        "normalised nRMSE) of the per-topic scores, effect ratio (ER) and delta relative "
        "improvement (DeltaRI) of the advanced over the baseline run, and two-sided paired "
        "t-tests of original against reproduced per-topic scores",
        ("breuer2020", "webber2010", "student1908"),
        "bootstrap resamples of the topics",
    ),
    "replicability": Procedure(
        "the measures of replicability of Breuer et al.: effect ratio (ER) and delta "
        "relative improvement (DeltaRI) of the advanced over the baseline run, and two-sided "
        "unpaired t-tests of original against replicated per-topic scores",
        ("breuer2020", "student1908"),
        "bootstrap resamples of the topics",
    ),
    # several collections, Bayesian, effect sizes, leaderboards, PPI, baselines
    # (their readers are in mrrstats.stats.methods_readers)
    "partial-conjunction": Procedure(
        "replicability analysis over collections (partial-conjunction tests)",
        ("dror2017", "benjamini2008"),
        "resamples per collection",
    ),
    "bayes-t": Procedure(
        "Bayesian comparison of the mean per-query difference: its posterior under the "
        "non-informative prior, a Student t with $n - 1$ degrees of freedom (the Bayesian "
        "correlated t-test without correlation)",
        ("benavoli2017", "gelman2013"),
    ),
    "bayes-bootstrap": Procedure(
        "Bayesian bootstrap of the mean per-query difference (Dirichlet(1, ..., 1) weights "
        "on the queries)",
        ("rubin1981",),
        "Bayesian bootstrap draws",
    ),
    "bayes-hierarchical": Procedure(
        "normal hierarchical model of the collection effects (flat priors on the mean and "
        "on the between-collection standard deviation; the normal approximation of the "
        "Student-t hierarchical model), computed exactly on a grid",
        ("gelman2013",),
    ),
    "bayes-hierarchical-t": Procedure(
        "Student-t hierarchical model of the collections' per-query differences (the priors "
        "of baycomp's hierarchical test, no correlation between queries), sampled by Gibbs "
        "sampling with slice steps",
        ("corani2017", "benavoli2017", "neal2003", "vehtari2021"),
        "MCMC posterior draws",
    ),
    "effect-sizes": Procedure(
        "the paired effect sizes: the standardised mean difference $d_z$, with an interval "
        "inverting the noncentral t distribution, and the probability of superiority, with "
        "a bootstrap interval",
        ("steiger1997", "efron1993"),
        "bootstrap resamples of the queries",
    ),
    "rank-intervals": Procedure(
        "the simultaneous confidence intervals for the systems' ranks from simultaneous "
        "pairwise decisions, with a compact letter display of the same decisions",
        ("mogstad2024", "piepho2004"),
        "bootstrap resamples of the queries (max-|t| over the pairs)",
        _CLUSTER_BOOT,
    ),
    "ppi": Procedure(
        "the prediction-powered inference estimator with power tuning (PPI++): the judge's "
        "labels of all queries corrected by the judge's error on the human-labelled queries",
        ("angelopoulos2023ppi", "angelopoulos2023ppipp"),
        "multiplier draws of the max-|t| critical value of the pairs",
    ),
    "power-t": Procedure(
        "power analysis of the paired t-test (the noncentral t distribution of its statistic, "
        "statsmodels TTestPower)",
        ("student1908",),
    ),
    "power-randomization": Procedure(
        "simulation of the power of the paired randomization test (samples drawn with "
        "replacement from the pilot per-query differences, shifted to the assumed difference)",
        ("fisher1935", "pitman1937"),
        "random sign vectors per simulated sample",
    ),
    "power-t-simulated": Procedure(
        "simulation of the power of the paired t-test (samples drawn with replacement from "
        "the pilot per-query differences, shifted to the assumed difference)",
        ("student1908",),
    ),
    "topic-set-size": Procedure(
        "topic-set-size design for the paired t-test (the residual variance of the two-way "
        "system x query ANOVA of a pilot score matrix)",
        ("student1908",),
    ),
    "calibration": Procedure(
        "simulation study of the type I error and power of the paired tests, on collections "
        "simulated from the fitted per-system score distributions",
        ("urbano2019",),
        "resamples per test",
    ),
    "sampled-metric": Procedure(
        "correction of a metric computed over sampled negatives, mapping each sampled rank to "
        "a value whose expectation given the full rank approximates the full-ranking metric",
        (),
        "bootstrap resamples of the queries",
    ),
    "effect-sizes-point": Procedure(
        "the paired effect sizes: the mean difference, the standardised mean difference "
        "$d_z = \\bar d / s_d$ and the paired probability of superiority (the share of "
        "queries the first system wins, ties counting one half)",
        ("cohen1988", "mcgraw1992"),
    ),
    "judgment-bounds": Procedure(
        "the value of each run with its unjudged retrieved documents counted non-relevant "
        "(trec_eval's convention, the lower end) and relevant (the upper end), and its share "
        "of judged documents in the top 10 (Judged@10), a run far below the others' being "
        "flagged as probably not pooled",
        ("buckley2007", "sakai2007"),
    ),
    "multiverse": Procedure(
        "multiverse analysis: the runs evaluated under every combination of the evaluation "
        "conventions, and each convention's means, system order and significant pairs "
        "compared with the reference convention's",
        ("steegen2016",),
    ),
    "judge-agreement": Procedure(
        "the measures of agreement below, on the labels and on the conclusions drawn from each",
        (),
    ),
    "random-baseline": Procedure(
        "the test against a uniformly random ranking of each query's candidates, with the "
        "expectation and variance in closed form and the adjusted score $(M - E)/(1 - E)$",
        (),
        "random rankings",
        monte_carlo_p=True,
    ),
}

#: correction name -> (what it controls, in words; references)
CORRECTION_TEXT: dict[str, tuple[str, tuple[str, ...]]] = {
    "single-step-bootstrap": (
        "the single-step max-T procedure over the pairs' studentised "
        "bootstrap values (shared resamples)",
        ("westfall1993",),
    ),
    "single-step": (
        "the single-step max-T procedure (the maximum studentised difference "
        "under within-query permutations of the systems)",
        ("westfall1993",),
    ),
    "single-step-skew": (
        "the single-step max-T procedure with Hall's skewness correction of every "
        "pair's studentised difference (the maximum corrected statistic under "
        "within-query permutations of the systems)",
        ("westfall1993", "hall1992"),
    ),
    "holm": ("Holm's step-down procedure", ("holm1979",)),
    "nemenyi": (
        "Nemenyi's critical difference of the average ranks (single-step by construction)",
        (),
    ),
    "bonferroni": ("the Bonferroni correction", ("dunn1961",)),
    "bh": ("the Benjamini-Hochberg procedure (false discovery rate)", ("benjamini1995",)),
    "tukey-hsd": ("the randomised Tukey HSD itself", ()),
    "westfall-young": ("the Westfall-Young procedure itself", ()),
    "tukey-hsd-anova": ("the studentised range distribution of Tukey's HSD", ()),
    "dunnett": ("Dunnett's multivariate t distribution", ()),
    "max-t-multiplier": (
        "the single-step max-|t| procedure over the pairs (multiplier draws)",
        ("westfall1993",),
    ),
}

#: interval construction -> (name, references); the keys are the ``ci_method`` values of
#: pairwise results (before any ``(test)``) and those of the single-pair results
INTERVALS: dict[str, tuple[str, tuple[str, ...]]] = {
    "marginal": ("marginal paired t intervals", ("student1908",)),
    "t": ("Student-t intervals of the mean difference", ("student1908",)),
    "bonferroni": ("Bonferroni-adjusted simultaneous intervals", ("dunn1961",)),
    "holm-sb2008": ("intervals compatible with Holm's decisions", ("strassburger2008",)),
    "fcr-by2005": ("false-coverage-rate adjusted intervals", ("benjamini2005",)),
    "maxt-step-down": (
        "intervals compatible with the step-down max-T decisions",
        ("strassburger2008",),
    ),
    "maxt-single-step": (
        "single-step max-T simultaneous intervals (the quantile of the "
        "maximum studentised difference under within-query permutations)",
        ("westfall1993",),
    ),
    "maxt-single-step-skew": (
        "skewness-corrected single-step max-T simultaneous intervals (Hall's "
        "transformation of each pair's studentised difference inverted at the quantile "
        "of its maximum under within-query permutations; asymmetric)",
        ("westfall1993", "hall1992"),
    ),
    "tukey-simultaneous": ("randomised Tukey HSD simultaneous intervals", ("carterette2012",)),
    "studentized-range": ("Tukey HSD simultaneous intervals (studentised range)", ("tukey1949",)),
    "dunnett-simultaneous": ("Dunnett simultaneous intervals", ("dunnett1955",)),
    "bca": ("bias-corrected and accelerated (BCa) bootstrap intervals", ("efron1987",)),
    "percentile": ("percentile bootstrap intervals", ("efron1993",)),
    "basic": ("basic bootstrap intervals", ("efron1993",)),
    "studentized": ("studentised (bootstrap-t) intervals", ("efron1993",)),
    "normal": (
        "normal bootstrap intervals (the bias-corrected estimate plus or minus a normal "
        "quantile times the bootstrap standard error)",
        ("efron1993",),
    ),
    "hodges-lehmann": (
        "Hodges-Lehmann intervals (the inversion of the signed-rank test)",
        ("hodges1963",),
    ),
    "clopper-pearson": (
        "Clopper-Pearson intervals of the share of wins among untied queries",
        ("clopper1934",),
    ),
    "signflip": (
        "intervals inverting the sign-flip test (the shifts it does not reject)",
        ("garthwaite1996",),
    ),
    "test-inversion": ("intervals inverting the same bootstrap test on the same resamples", ()),
    "welch": ("Welch t intervals", ("welch1947",)),
    "wald": ("Wald intervals", ()),
    "tost": (
        "intervals of the mean difference, inside the margin exactly when equivalence "
        "is shown at $\\alpha = (1 - \\text{level})/2$",
        ("schuirmann1987",),
    ),
    "maxt-bootstrap": (
        "single-step max-T simultaneous intervals (the quantile of the pairs' "
        "maximum studentised bootstrap value)",
        ("westfall1993",),
    ),
    "two-level-percentile": ("percentile intervals of the two-level bootstrap", ("field2007",)),
    "er-percentile": ("percentile bootstrap intervals of ER and DeltaRI", ("efron1993",)),
    "satterthwaite": (
        "t intervals with Satterthwaite's degrees of freedom",
        ("satterthwaite1946",),
    ),
    "meta-normal": (
        "normal intervals of each collection's effect and of the pooled random-effects "
        "estimate, with t prediction intervals ($N - 2$ degrees of freedom) for a new "
        "collection",
        (),
    ),
    "meta-knha": (
        "normal intervals of each collection's effect, Knapp-Hartung t intervals ($N - 1$ "
        "degrees of freedom) of the pooled random-effects estimate, and t prediction "
        "intervals ($N - 2$ degrees of freedom) for a new collection",
        ("knapp2003",),
    ),
    "credible": ("central posterior credible intervals", ()),
    "rank-simultaneous": ("simultaneous rank intervals", ()),
    "ppi": (
        "PPI++ intervals of each system's mean and each pair's difference, with the "
        "human-only and judge-only intervals beside them",
        (),
    ),
}


@dataclass(frozen=True)
class Facts:
    """What a result's methods paragraph says (read from the result by :func:`facts_of`)."""

    procedure: str
    n_queries: int | None = None
    alternative: str | None = None
    n_clusters: int | None = None
    n_resamples: int | None = None
    exact: bool = False
    seed: int | None = None
    correction: str | None = None
    alpha: float | None = None
    interval: str | None = None
    confidence_level: float | None = None
    n_systems: int | None = None
    n_pairs: int | None = None
    measures: tuple[str, ...] = ()
    family_size: int | None = None
    control: str | None = None
    n_second: int | None = None  # queries of the second set (unpaired)
    detail: str = ""  # one more clause on the procedure
    resample: str = ""  # what one resample is, when not the procedure's own
    measured: bool = True  # whether COVERAGE applies (False: another design, e.g. unpaired)
    subject: str = ""  # the opening clause, when not "We compared ... over n queries"
    family: str = ""  # the family of the correction, when not the pairs of each measure
    #: further sentences, each with the keys it cites (after the resamples and clusters)
    notes: tuple[tuple[str, tuple[str, ...]], ...] = ()


def resample_unit(test: str, correction: str | None) -> str:
    """What one of the :math:`B` resamples of a pairwise procedure is."""
    if correction in ("single-step", "single-step-skew"):  # the systems permuted within queries
        return "random within-query permutations of the systems"
    spec = PROCEDURES.get(test)
    return spec.resample if spec is not None and spec.resample else "resamples"


def _seed(r: Any) -> int | None:
    s = getattr(r, "seed", None)
    return int(s) if isinstance(s, int) else None


def _interval_key(ci_method: str) -> str:
    """The ``ci_method`` of a pairwise result as a key of :data:`COVERAGE` (``"marginal(t)"``
    is ``"t"``; ``"bonferroni(randomization)"`` stays: its coverage is that test's)."""
    return "t" if ci_method == "marginal(t)" else str(ci_method)


def _pairwise(r: Any) -> Facts:
    spec = TESTS.get(r.test)
    correction = None if spec is not None and spec.family else r.correction
    n_res = r.n_resamples if r.n_resamples is not None else None
    return Facts(
        r.test,
        r.n_queries,
        r.alternative,
        r.n_clusters,
        n_res,
        bool(r.exact),
        _seed(r),
        correction,
        r.alpha,
        _interval_key(r.ci_method),
        r.confidence_level,
        len(r.systems),
        len(r),
        (r.measure,) if r.measure else (),
        len(r),
        r.control,
        resample=resample_unit(r.test, r.correction),
    )


def _comparison(c: Any) -> Facts:
    f = _pairwise(c.results[c.measures[0]])
    size = c.family_size if c.family_size is not None else f.n_pairs
    return Facts(
        **{
            **f.__dict__,
            "measures": tuple(c.measures),
            "family_size": size,
            "seed": _seed(c),
            "n_clusters": c.n_clusters,
            "family": (
                f"all {size} tests ({len(c.measures)} measures x {f.n_pairs} pairs, one family)"
                if c.family == "measures"
                else ""
            ),
        }
    )


def _boot_test(r: Any) -> Facts:
    return Facts(
        "bootstrap-t" if r.method == "studentized" else "bootstrap",
        r.n_queries,
        r.alternative,
        r.n_clusters,
        r.n_resamples,
        False,
        _seed(r),
        interval="test-inversion",
        confidence_level=0.95,
    )


def _boot_ci(r: Any) -> Facts:
    detail = "Poisson(1) weights per query" if r.scheme == "poisson" else ""
    return Facts(
        "bootstrap-ci",
        r.n_queries,
        r.alternative,
        r.n_clusters,
        r.n_resamples,
        False,
        _seed(r),
        interval=r.method,
        confidence_level=r.confidence_level,
        detail=detail,
    )


def _unpaired(r: Any) -> Facts:
    m = str(r.method)
    if m.startswith("bootstrap"):
        return Facts(
            "unpaired-bootstrap",
            r.n_a,
            r.alternative,
            n_resamples=r.n_resamples,
            seed=_seed(r),
            interval=m.split()[-1],
            confidence_level=r.confidence_level,
            n_second=r.n_b,
            measured=False,
        )
    if m in ("exact", "monte-carlo"):
        return Facts(
            "unpaired-permutation",
            r.n_a,
            r.alternative,
            n_resamples=r.n_resamples,
            exact=m == "exact",
            seed=_seed(r),
            n_second=r.n_b,
        )
    return Facts(
        "unpaired-t",
        r.n_a,
        r.alternative,
        interval="welch",
        confidence_level=r.confidence_level,
        n_second=r.n_b,
    )


def _replicates(r: Any) -> Facts:
    n_runs = sorted({len(v) for v in r.replicates.values()})
    runs = "-".join(str(n) for n in (n_runs[0], n_runs[-1]) if n_runs) if n_runs else "?"
    runs = str(n_runs[0]) if len(n_runs) == 1 else runs
    interval = (
        r.ci_method
        if r.ci_method != "marginal"
        else {"t": "satterthwaite", "mixed": "wald"}.get(r.method, "studentized")
    )
    if interval == "maxt-single-step":
        interval = "maxt-bootstrap"
    correction = "single-step-bootstrap" if r.correction == "single-step" else r.correction
    return Facts(
        f"replicates-{r.method}",
        r.n_queries,
        r.alternative,
        n_resamples=r.n_resamples,
        seed=_seed(r),
        correction=correction,
        alpha=r.alpha,
        interval=interval,
        confidence_level=r.confidence_level,
        n_systems=len(r.systems),
        n_pairs=len(r),
        measures=(r.measure,),
        family_size=len(r),
        detail=f"{runs} replicate runs per system",
    )


def _equivalence(r: Any) -> Facts:
    low, high = r.margin
    rand = r.test != "t"
    return Facts(
        "tost-randomization" if rand else "tost-t",
        r.n_queries,
        n_resamples=r.n_resamples if rand else None,
        seed=_seed(r),
        interval="tost",
        confidence_level=0.90,
        detail=f"equivalence margin [{_num(low)}, {_num(high)}]",
    )


def _critical(r: Any) -> Facts:
    per_query = r.n_resamples is not None
    return Facts(
        f"cd-{r.test}",
        n_resamples=r.n_resamples,
        seed=_seed(r),
        correction="nemenyi" if r.test == "nemenyi" else "holm",
        alpha=r.alpha,
        interval="two-level-percentile" if per_query else None,
        confidence_level=r.confidence_level if per_query else None,
        n_pairs=r.n_systems * (r.n_systems - 1) // 2,
        measures=(r.measure,),
        family_size=r.n_systems * (r.n_systems - 1) // 2,
        subject=f"We compared {r.n_systems} systems on {r.measure} over {r.n_collections} "
        "collections" + (" (per-query scores)" if per_query else ""),
        measured=False,
    )


def _reproducibility(r: Any) -> Facts:
    n = r.n_queries
    counts = [int(v) for v in n.values()] if isinstance(n, dict) else [int(n)]
    topics = " and ".join(str(v) for v in (counts if len(set(counts)) > 1 else counts[:1]))
    copy = "reproduced" if r.kind == "reproducibility" else "replicated"
    return Facts(
        r.kind,
        n_resamples=r.n_resamples,
        seed=_seed(r),
        interval="er-percentile" if r.n_resamples else None,
        confidence_level=r.confidence_level if r.n_resamples else None,
        subject=f"We compared the original and the {copy} baseline and advanced runs on "
        f"{_join(list(r.measures))} over {topics} topics (original and {copy} experiment)",
        measured=False,
    )


#: result class name -> the reader of its facts
_READERS: dict[str, Callable[[Any], Facts]] = {
    "Comparison": _comparison,
    "PairwiseResult": _pairwise,
    "TTestResult": lambda r: Facts(
        "t", r.n_queries, r.alternative, interval="t", confidence_level=0.95
    ),
    "WilcoxonResult": lambda r: Facts(
        "wilcoxon",
        r.n_queries,
        r.alternative,
        interval="hodges-lehmann",
        confidence_level=0.95,
        detail=f"{r.method} p-values, {r.n_nonzero} non-zero differences"
        + (" with continuity correction" if r.continuity else ""),
    ),
    "SignTestResult": lambda r: Facts(
        "sign",
        r.n_queries,
        r.alternative,
        interval="clopper-pearson",
        confidence_level=0.95,
        detail=f"{r.wins} wins, {r.ties} ties and {r.losses} losses",
    ),
    "RandomizationTestResult": lambda r: Facts(
        "randomization",
        r.n_queries,
        r.alternative,
        r.n_clusters,
        r.n_resamples,
        bool(r.exact),
        _seed(r),
        interval="signflip",
        confidence_level=0.95,
    ),
    "BootstrapTestResult": _boot_test,
    "BootstrapCIResult": _boot_ci,
    "UnpairedResult": _unpaired,
    "HodgesLehmannResult": lambda r: Facts(
        "hodges-lehmann",
        r.n_queries,
        r.alternative,
        interval="hodges-lehmann",
        confidence_level=r.confidence_level,
        detail=f"{r.method} interval",
    ),
    "EquivalenceResult": _equivalence,
    "CriticalDifferenceResult": _critical,
    "ReproducibilityResult": _reproducibility,
    "MixedModelResult": lambda r: Facts(
        "mixed",
        r.n_queries,
        interval="wald",
        confidence_level=r.confidence_level,
        measures=(r.measure,),
        n_systems=len(r.effects),
        detail=f"{r.n_observations} observations",
    ),
    "ReplicateComparison": _replicates,
}


def register_readers(readers: dict[str, Callable[[Any], Facts]]) -> None:
    """Add readers of :class:`Facts` (result class name -> reader) for :func:`facts_of`.

    :mod:`mrrstats.stats.methods_readers` registers those of the results beyond the
    paired tests when it is imported (by the modules of those results).
    """
    clash = sorted(set(readers) & set(_READERS))
    if any(_READERS[k] is not readers[k] for k in clash):
        raise ParameterError(f"readers already registered for {clash}", name="readers")
    _READERS.update(readers)


def facts_of(result: object) -> Facts:
    """The :class:`Facts` of a test or comparison result."""
    reader = _READERS.get(type(result).__name__)
    if reader is None:
        raise ParameterTypeError(
            f"no methods paragraph for a {type(result).__name__}; known: {sorted(_READERS)}",
            name="result",
        )
    return reader(result)


def _num(x: float) -> str:
    return f"{x:g}".replace("-", "$-$") if math.isfinite(x) else str(x)


def _cite(keys: Iterable[str], used: list[str]) -> str:
    keys = tuple(keys)
    for k in keys:
        if k not in used:
            used.append(k)
    return f" [{'; '.join('@' + k for k in keys)}]" if keys else ""


def _plural(n: int | None, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


_SIDES = {
    "two-sided": "two-sided",
    "greater": "one-sided (alternative: the first system scores higher)",
    "less": "one-sided (alternative: the first system scores lower)",
}


def _subject(f: Facts) -> str:
    if f.subject:
        return f.subject
    on = f" on {_join(list(f.measures))}" if f.measures else ""
    if f.n_second is not None:
        return (
            f"We compared two systems on independent query sets of {f.n_queries} and "
            f"{f.n_second} queries"
        )
    q = f"{f.n_queries} queries" if f.n_queries is not None else "the queries"
    if f.n_clusters is not None:
        q += f" in {f.n_clusters} clusters"
    if f.procedure == "bootstrap-ci":  # one system or one pair: the result does not say
        return f"We analysed the scores of {q}"
    if f.n_systems is not None and (f.n_systems > 2 or f.n_pairs is not None):
        who = f"{f.n_systems} systems"
        if f.control is not None:
            who += f", each against the control {f.control},"
        elif f.n_pairs is not None and f.n_pairs > 1:
            who += f" ({f.n_pairs} pairs)"
        return f"We compared {who}{on} over {q}"
    return f"We compared two systems{on} over {q}"


def methods_text(result: object) -> MethodsText:
    """The methods paragraph of a result (the one generator behind every ``.methods()``)."""
    f = facts_of(result)
    proc = PROCEDURES[f.procedure]
    used: list[str] = []
    side = f"{_SIDES[f.alternative]} " if f.alternative in _SIDES else ""
    words = f"{side}{proc.label}"
    article = "an " if words[0] in "aeiouAEIOU" and not words.startswith("one") else "a "
    if words.startswith("the "):
        article = ""
    s = [
        f"{_subject(f)}, with {article}{words}{_cite(proc.cites, used)}"
        + (f" ({f.detail})" if f.detail else "")
        + "."
    ]
    # resamples and seed
    if f.n_resamples:
        if f.exact:
            unit = (f.resample or proc.resample or "resamples").removeprefix("random ")
            s.append(
                f"Its null distribution was enumerated exactly (all {f.n_resamples:,} {unit})."
            )
        else:
            seed = f"seed {f.seed}" if f.seed is not None else "a caller's random generator"
            p = (
                ", p-values $(b + 1)/(B + 1)$" + _cite(("phipson2010",), used)
                if proc.monte_carlo_p
                else ""
            )
            what = f.resample or proc.resample or "resamples"
            s.append(f"It used $B = {f.n_resamples}$ {what} ({seed}){p}.")
    if f.n_clusters is not None and proc.clusters:
        cites = ("field2007",) if proc.clusters == _CLUSTER_BOOT else ()
        s.append(f"Queries were clustered: {proc.clusters}{_cite(cites, used)}.")
    s += [f"{note}{_cite(cites, used)}." for note, cites in f.notes]
    at = f" at $\\alpha = {f.alpha:g}$" if f.alpha is not None else ""
    # correction and alpha
    spec = TESTS.get(f.procedure)
    if spec is not None and spec.family and spec.correction in CORRECTIONS:
        own = CORRECTIONS[spec.correction]
        what = own.controls.replace("FWER", "family-wise error")
        s.append(
            f"The procedure controls the {what} over the "
            f"{_plural(f.family_size, 'pair')} of each measure at $\\alpha = {f.alpha:g}$."
        )
    elif f.correction is not None and f.correction != "none":
        phrase, cites = CORRECTION_TEXT.get(f.correction, (f.correction, ()))
        controls = CORRECTIONS[f.correction].controls if f.correction in CORRECTIONS else "FWER"
        what = "false discovery rate" if controls == "FDR" else "family-wise error"
        over = f.family or f"the {_plural(f.family_size, 'pair')}" + (
            " of each measure" if f.measures else ""
        )
        s.append(f"The {what} over {over} was controlled with {phrase}{_cite(cites, used)}{at}.")
    elif f.correction == "none":
        s.append(f"No multiple-comparison correction was applied; $\\alpha = {f.alpha:g}$.")
    # the interval and its measured coverage
    if f.interval is not None:
        base = f.interval.partition("(")[0]
        name, cites = INTERVALS.get(base, (INTERVAL_LABELS.get(base, base), ()))
        inner = f.interval.partition("(")[2].rstrip(")")
        if inner in TESTS:
            name += f" inverting the {TESTS[inner].label}"
        level = f"{f.confidence_level:.0%} " if f.confidence_level is not None else ""
        s.append(f"Intervals: {level}{name}{_cite(cites, used)}".replace("%", "\\%") + ".")
        cov = COVERAGE.get(f.interval) if f.measured else None
        if cov is not None:
            parts = [f"{c:.3f} with {n} topics" for n, c in cov.by_topics]
            nums = " and ".join([", ".join(parts[:-1]), parts[-1]] if len(parts) > 2 else parts)
            s.append(
                f"Their measured coverage at a nominal 95\\% was {nums} ({cov.what}; "
                f"`{cov.source}` in mrrstats)."
            )
    if proc.ir_test:
        s.append(
            "Smucker et al."
            + _cite(_IR_STUDIES[:1], used)
            + " and Urbano et al."
            + _cite(_IR_STUDIES[1:], used)
            + " compare the paired tests on information retrieval runs."
        )
    return MethodsText(" ".join(s), tuple(used))


def combine(parts: Iterable[MethodsText]) -> MethodsText:
    """Several paragraphs (blank line apart) with the union of their references."""
    parts = list(parts)
    keys: list[str] = []
    for p in parts:
        keys += [k for k in p.keys if k not in keys]
    return MethodsText("\n\n".join(p.text for p in parts), tuple(keys))
