r"""The vocabulary of mrrstats: one name per concept, in one table.

Every public function, result class, result column and command-line option
uses the names below (``tests/test_vocabulary.py`` walks the public API and
fails on a retired name, a result without the common shape, or an unexported
result class). A name is scipy's or numpy's where one of them has the concept;
otherwise it is ours, and the table says why.

Retired names still work for one release: a function called with one gets a
:class:`~mrrstats.errors.MrrstatsDeprecationWarning` (a ``DeprecationWarning``) naming
the new one (:mod:`mrrstats.deprecation`), and a result attribute under its old name
does the same. Frames (``to_frame()`` and the tables functions return) carry the
current column names only: a retired column such as ``diff`` or ``z`` is gone, not
kept beside its new name.

The table renders itself (:func:`glossary_frame`, :func:`glossary_rst`), so the
documentation shows exactly what the test enforces.

Examples
--------
>>> from mrrstats.glossary import GLOSSARY, term_of
>>> term_of("zero_tolerance").name, term_of("chunk").name
('atol', 'candidate_batch')
>>> len(GLOSSARY) >= 20
True
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

__all__ = ["Term", "GLOSSARY", "RETIRED", "term_of", "glossary_frame", "glossary_rst",
           "RESULT_SHAPE"]


@dataclass(frozen=True)
class Term:
    """One concept and its one name.

    Attributes
    ----------
    name : str
        The name used everywhere (parameter, attribute, column, option ``--name``
        with ``-`` for ``_``).
    meaning : str
        What it means, in one sentence.
    retired : tuple of str
        Names that meant the same thing before; accepted for one release with a
        ``DeprecationWarning`` (parameters and attributes), never in a signature.
    kind : str
        ``"parameter"``, ``"attribute"`` (a field of results or a frame column),
        ``"both"``, or ``"value"`` (a string value of a parameter, e.g. a method name).
    source : str
        Where the name comes from (``"scipy"``, ``"numpy"``, ``"ours"``: then why).
    retired_attributes : tuple of str
        Names retired only as result attributes or frame columns (``n``, which stays a
        fine parameter name elsewhere).
    """

    name: str
    meaning: str
    retired: tuple = ()
    kind: str = "both"
    source: str = "ours"
    retired_attributes: tuple = ()


#: The concepts, in the order the documentation lists them.
GLOSSARY = (
    # -- data and conventions ---------------------------------------------------
    Term("measure", "A measure's canonical name (``\"RR@10\"``), one per result or call.",
         kind="both"),
    Term("measures", "Several measures' canonical names."),
    Term("n_queries", "The number of queries (topics) a statistic is computed over.",
         retired=("n_topics", "n_query", "num_queries"), kind="both", retired_attributes=("n",),
         source="ours: `n` alone is ambiguous beside counts of pairs, resamples and systems"),
    Term("n_nonzero", "The number of queries whose paired difference is not a tie "
         "(``|d| > atol``), used by the sign and signed-rank statistics.",
         retired=("n_untied", "n_nontied"), kind="attribute"),
    Term("exclude", "(query, candidate) entries left out of a ranking: the known true "
         "answers of the filtered link-prediction protocol.",
         retired=("filter", "known", "filtered", "mask"), kind="parameter",
         source="ours: `filter` shadows a builtin; PyKEEN's `filtered` is a flag"),
    Term("control", "The system every other system is compared with (many-to-one "
         "comparisons: Dunnett, many-to-one max-T).",
         retired=("baseline", "baseline_system", "reference_system"), kind="both",
         source="scipy (scipy.stats.dunnett(control=)); `baseline` means the random-ranking "
                "baseline in mrrstats"),
    # -- sizes of work ---------------------------------------------------------
    Term("batch", "How many items (resamples, query rows or queries) one step holds in "
         "memory; it never changes a number.",
         retired=("batch_size", "chunk_size", "block_size"), kind="parameter",
         source="scipy (scipy.stats.bootstrap(batch=))"),
    Term("candidate_batch", "How many candidates a scorer is asked to score per call "
         "(ranks_from_scorer); it never changes a number.",
         retired=("chunk",), kind="parameter"),
    Term("workers", "Threads of the compiled kernels (-1: all cores); results never "
         "depend on it.", retired=("n_jobs", "threads", "n_threads", "num_threads"),
         kind="parameter", source="scipy (scipy.fft, scipy.optimize: workers=)"),
    # -- randomness ------------------------------------------------------------
    Term("rng", "None, an integer seed or a numpy Generator (SPEC 7).",
         retired=("seed", "random_state", "random_seed"), kind="parameter",
         source="scipy / SPEC 7"),
    Term("seed", "The integer seed a random result was computed with (drawn when "
         "``rng=None``; pass it back as ``rng=`` to reproduce), or None when a Generator "
         "was given.", retired=("rng_seed",), kind="attribute"),
    Term("n_resamples", "Resamples (permutations, sign flips, bootstrap draws) of a "
         "Monte-Carlo procedure.", retired=("n_permutations", "n_bootstrap", "B",
                                            "n_samples", "iterations"),
         source="scipy"),
    Term("monte-carlo", "The method value of an estimate from random resamples.",
         retired=("monte carlo", "montecarlo", "mc", "monte_carlo"), kind="value"),
    # -- tolerances ------------------------------------------------------------
    Term("atol", "Absolute tolerance: values within it count as equal (a paired "
         "difference ``|d| <= atol`` is a tie).",
         retired=("zero_tolerance", "tol", "tolerance", "eps"), kind="parameter",
         source="numpy (numpy.isclose(atol=))"),
    # -- tests and results -----------------------------------------------------
    Term("alternative", "\"two-sided\", \"less\" or \"greater\" (a better than b).",
         retired=("sidedness", "tail", "tails"), source="scipy"),
    Term("statistic", "The test statistic.", retired=("stat", "test_statistic"),
         kind="attribute", source="scipy"),
    Term("pvalue", "The p-value.", retired=("p_value", "p", "pval"), kind="attribute",
         source="scipy"),
    Term("pvalue_adjusted", "The p-value adjusted for multiplicity (column of pairwise "
         "tables).", retired=("p_adjusted", "padj", "p_adj", "adjusted_pvalue"),
         kind="attribute"),
    Term("reject_beyond_ci", "A pair a step-down procedure (Holm, step-down max-T) rejects "
         "although the single-step simultaneous interval that its table shows contains 0: "
         "the step-down is more powerful than its interval (column of pairwise tables).",
         kind="attribute"),
    Term("difference", "mean(a) - mean(b), the paired or unpaired mean difference.",
         retired=("diff", "mean_diff", "delta", "mean_difference"),
         kind="attribute"),
    Term("standard_error", "The standard error of an estimate.",
         retired=("std_error", "stderr", "se", "std_err"), kind="attribute",
         source="scipy (BootstrapResult.standard_error)"),
    Term("std", "A standard deviation.", retired=("sd", "stdev", "std_dev"),
         source="numpy (numpy.std)"),
    Term("zscore", "A standardised statistic (estimate minus its null mean, over its null "
         "standard deviation).", retired=("zstatistic", "z", "z_score", "zstat"),
         kind="attribute", source="scipy (scipy.stats.zscore)"),
    Term("confidence_level", "Level of every interval.", retired=("level", "conf_level",
                                                                  "cl"),
         source="scipy"),
    Term("alpha", "Significance level of a decision (``reject``).",
         retired=("significance_level", "sig_level")),
    Term("ci_low", "Lower end of an interval in a frame column (``low`` on an interval "
         "object).", retired=("ci_lower", "lower_ci", "lcl"), kind="attribute"),
    Term("ci_high", "Upper end of an interval in a frame column (``high`` on an interval "
         "object).", retired=("ci_upper", "upper_ci", "ucl"), kind="attribute"),
    Term("margin", "The equivalence margin of TOST: (-margin, margin) or (low, high).",
         retired=("equivalence_bounds", "bounds"), kind="both"),
    Term("null_distribution", "Values of the statistic under the null (a test result "
         "that resamples keeps them).", retired=("null", "null_dist"), kind="attribute",
         source="scipy (PermutationTestResult.null_distribution)"),
    Term("bootstrap_distribution", "Bootstrap values of the statistic.",
         retired=("boot_distribution", "bootstrap_values"), kind="attribute",
         source="scipy (BootstrapResult.bootstrap_distribution)"),
    Term("correction", "The multiple-testing correction across pairs (``\"holm\"``, ...); "
         "never a continuity correction.", retired=("adjust", "p_adjust", "multitest")),
    Term("continuity", "Apply the continuity correction to a normal approximation "
         "(Wilcoxon, Hodges-Lehmann).", retired=("correct",), kind="parameter",
         source="ours: scipy's `correction=` would clash with the multiple-testing "
                "correction"),
    Term("method", "How an interval or p-value is computed (\"bca\", \"exact\", "
         "\"approx\", ...).", retired=("kind_of_interval", "ci_type"), source="scipy"),
)

#: retired name -> the Term that replaced it
RETIRED = {old: t for t in GLOSSARY for old in (*t.retired, *t.retired_attributes)}

#: What every result class holds (tests/test_vocabulary.py checks it):
#: a test result (one with ``pvalue``) has all of these; every result has ``to_frame``.
RESULT_SHAPE = ("statistic", "pvalue", "confidence_interval", "to_frame")


def term_of(name: str) -> Term:
    """The :class:`Term` a (current or retired) name belongs to.

    >>> term_of("std_error").name
    'standard_error'
    """
    for t in GLOSSARY:
        if name == t.name:
            return t
    if name in RETIRED:
        return RETIRED[name]
    raise KeyError(f"{name!r} is not in the glossary")


def glossary_frame():
    """The glossary as a DataFrame (name, meaning, retired, kind, source)."""
    return pd.DataFrame([{"name": t.name, "meaning": t.meaning,
                          "retired": ", ".join(t.retired), "kind": t.kind,
                          "source": t.source} for t in GLOSSARY])


def glossary_rst() -> str:
    """The glossary as a reStructuredText list table (for the documentation)."""
    lines = [".. list-table::", "   :header-rows: 1", "   :widths: 18 52 20 10", "",
             "   * - name", "     - meaning", "     - retired names", "     - source"]
    for t in GLOSSARY:
        retired = ", ".join(f"``{r}``" for r in t.retired) or "--"
        lines += [f"   * - ``{t.name}``", f"     - {t.meaning}", f"     - {retired}",
                  f"     - {t.source}"]
    return "\n".join(lines) + "\n"
