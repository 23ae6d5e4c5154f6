r"""One registry of the pairwise tests and multiplicity corrections.

Every place that names a test or a correction (``pairwise_tests``, ``compare``,
the report builder, the command line) reads this table: canonical name,
aliases, the label printed in captions, whether the test is per pair or a
family-wise procedure, whether its null distribution is discrete (so that its
smallest attainable p-value may not pass a corrected threshold), the
alternatives, options, designs (``clusters``, ``control``) it supports, and, for
each correction, the interval its table shows by default.

The default many-system procedure is a *correction*, ``"single-step"``: the
single-step max-T of the studentised mean differences under within-query
permutations of the systems (:func:`mrrstats.stats.familywise.maxt_single_step_fit`).
It is a correction rather than a test of its own because it answers the question
the corrections answer -- which of the family's pairs differ, with what error over
the family -- for the tests whose statistic is a mean difference (``"t"``,
``"randomization"``, ``"bootstrap"``, ``"bootstrap-t"``: :attr:`TestSpec.mean_difference`),
and it works with ``control`` the same way (many-to-one). Unlike Holm or BH it
needs the joint null of the statistics, not only their p-values
(:attr:`CorrectionSpec.joint_null`), and it gives finite simultaneous intervals
that exclude 0 exactly for the rejected pairs (:attr:`CorrectionSpec.interval`).
``"single-step-skew"`` is the same procedure with every pair's studentised difference
through Hall's (1992) skewness correction (asymmetric intervals that cover on skewed
measures).
Step-down procedures (Holm, Westfall-Young) show the single-step simultaneous
interval of their family and may reject beyond it (:attr:`CorrectionSpec.step_down`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ParameterError, ParameterTypeError

__all__ = [
    "TestSpec", "CorrectionSpec", "TESTS", "CORRECTIONS", "PAIR_TESTS", "FAMILY_TESTS",
    "TEST_NAMES", "CORRECTION_NAMES", "test_spec", "correction_spec", "test_label",
    "correction_label", "UnattainableSignificanceWarning", "INTERVAL_LABELS", "interval_label",
]

_ALL_SIDES = ("two-sided", "less", "greater")


class UnattainableSignificanceWarning(RuntimeWarning):
    """A discrete or Monte-Carlo test cannot reach the corrected threshold.

    Raised (as a warning) when the smallest p-value a test can attain (e.g.
    :math:`2 \\cdot 2^{-n}` for a two-sided sign test on :math:`n` untied
    queries, or :math:`1/(B+1)` for :math:`B` resamples) exceeds the threshold
    the correction needs for a first rejection, so nothing can be rejected.
    """


@dataclass(frozen=True)
class TestSpec:
    """A pairwise test or a family-wise procedure of :func:`mrrstats.pairwise_tests`."""

    __test__ = False  # not a pytest class

    name: str
    label: str
    aliases: tuple = ()
    family: bool = False
    discrete: bool = False
    alternatives: tuple = _ALL_SIDES
    correction: str | None = None  # the family-wise procedure's own correction name
    #: the decision-consistent intervals invert the test itself
    invertible: bool = False
    #: the statistic is a mean difference (the single-step max-T correction applies)
    mean_difference: bool = False
    #: query clusters resampled or flipped as units (``clusters=``)
    clusters: bool = False
    #: every system against one (``control=``): "allowed", "required" or "refused"
    control: str = "allowed"
    #: the keys of ``test_options`` it takes
    options: tuple = ()


@dataclass(frozen=True)
class CorrectionSpec:
    """A multiplicity correction across the pairs of one measure."""

    name: str
    label: str
    aliases: tuple = ()
    statsmodels: str | None = None  # method name for statsmodels.stats.multitest
    family_of: str | None = None  # set for the corrections of family-wise procedures
    controls: str = "FWER"
    #: adjusts with the joint (permutation) null of the statistics, not from p-values
    joint_null: bool = False
    #: the interval method its table shows by default (``ci=None``); see INTERVAL_LABELS
    interval: str = "marginal"
    #: a step-down procedure: it may reject a pair whose ``interval`` contains 0
    step_down: bool = False


TESTS = {s.name: s for s in (
    TestSpec("t", "paired t-test", ("ttest", "t-test", "paired-t"), invertible=True,
             mean_difference=True),
    TestSpec("wilcoxon", "Wilcoxon signed-rank test", discrete=True,
             options=("method", "zero_method", "correction")),
    TestSpec("sign", "sign test", discrete=True),
    TestSpec("randomization", "paired randomization test", ("fisher", "permutation"),
             discrete=True, invertible=True, mean_difference=True, clusters=True,
             options=("exact",)),
    TestSpec("bootstrap", "paired bootstrap shift test", mean_difference=True, clusters=True),
    TestSpec("bootstrap-t", "studentised paired bootstrap test",
             ("studentized-bootstrap", "bootstrap-studentized"), mean_difference=True,
             clusters=True),
    TestSpec("tukey", "randomised Tukey HSD", ("randomized-tukey", "tukey-hsd"), family=True,
             alternatives=("two-sided",), correction="tukey-hsd", clusters=True,
             control="refused"),
    TestSpec("maxt", "Westfall-Young step-down max-T", ("max-t", "westfall-young"),
             family=True, alternatives=("two-sided",), correction="westfall-young",
             clusters=True, options=("statistic",)),
    TestSpec("anova-hsd", "Tukey HSD (two-way ANOVA)", ("anova", "tukey-anova"), family=True,
             alternatives=("two-sided",), correction="tukey-hsd-anova", control="refused"),
    # many-to-one (needs a control): Dunnett (1955) with the two-way ANOVA error
    TestSpec("dunnett", "Dunnett's many-to-one test (two-way ANOVA)", ("dunnett-anova",),
             family=True, correction="dunnett", control="required"),
)}

CORRECTIONS = {s.name: s for s in (
    CorrectionSpec("single-step", "single-step max-T", ("single-step-maxt", "maxt-single-step"),
                   joint_null=True, interval="maxt-single-step"),
    CorrectionSpec("single-step-skew", "skewness-corrected single-step max-T",
                   ("hall", "single-step-hall", "skew-corrected"), joint_null=True,
                   interval="maxt-single-step-skew"),
    CorrectionSpec("holm", "Holm", statsmodels="holm", interval="bonferroni", step_down=True),
    CorrectionSpec("bonferroni", "Bonferroni", ("bonf",), statsmodels="bonferroni",
                   interval="bonferroni"),
    CorrectionSpec("bh", "Benjamini-Hochberg", ("fdr_bh", "benjamini-hochberg", "fdr"),
                   statsmodels="fdr_bh", controls="FDR", interval="fcr-by2005"),
    CorrectionSpec("none", "no correction", controls="none"),
    CorrectionSpec("tukey-hsd", "Tukey HSD family-wise", family_of="tukey",
                   interval="tukey-simultaneous"),
    CorrectionSpec("westfall-young", "Westfall-Young family-wise", family_of="maxt",
                   interval="maxt-single-step", step_down=True),
    CorrectionSpec("tukey-hsd-anova", "Tukey HSD family-wise", family_of="anova-hsd",
                   interval="studentized-range"),
    CorrectionSpec("dunnett", "Dunnett family-wise", family_of="dunnett",
                   interval="dunnett-simultaneous"),
)}

PAIR_TESTS = tuple(n for n, s in TESTS.items() if not s.family)
FAMILY_TESTS = tuple(n for n, s in TESTS.items() if s.family)
TEST_NAMES = PAIR_TESTS + FAMILY_TESTS
# The corrections a user may ask for (the family-wise ones come with their test).
CORRECTION_NAMES = tuple(n for n, s in CORRECTIONS.items() if s.family_of is None)

_TEST_ALIASES = {a: s.name for s in TESTS.values() for a in (s.name, *s.aliases)}
_CORRECTION_ALIASES = {a: s.name for s in CORRECTIONS.values() for a in (s.name, *s.aliases)}


def test_spec(test) -> TestSpec:
    """The :class:`TestSpec` of a test name or alias (case-insensitive).

    >>> test_spec("Permutation").name, test_spec("maxt").family
    ('randomization', True)
    """
    if not isinstance(test, str):
        raise ParameterTypeError(f"`test` must be a string, got {type(test).__name__}")
    name = _TEST_ALIASES.get(test.lower())
    if name is None:
        raise ParameterError(f"`test` must be one of {TEST_NAMES}, got {test!r}")
    return TESTS[name]


test_spec.__test__ = False  # type: ignore[attr-defined]  # not a pytest function


def correction_spec(correction) -> CorrectionSpec:
    """The :class:`CorrectionSpec` of a user correction name or alias (None is "none").

    >>> correction_spec("fdr").name, correction_spec(None).name
    ('bh', 'none')
    """
    if correction is None:
        return CORRECTIONS["none"]
    if not isinstance(correction, str):
        raise ParameterTypeError(f"`correction` must be a string or None, got {correction!r}")
    name = _CORRECTION_ALIASES.get(correction.lower())
    if name is None or CORRECTIONS[name].family_of is not None:
        raise ParameterError(f"`correction` must be one of {CORRECTION_NAMES} or None, "
                         f"got {correction!r}")
    return CORRECTIONS[name]


def test_label(name) -> str:
    """The caption label of a canonical test name (``"paired randomization test"``)."""
    return TESTS[name].label


test_label.__test__ = False  # type: ignore[attr-defined]


def correction_label(name) -> str:
    """The caption label of a canonical correction name (``"Holm"``); unknown names as is."""
    spec = CORRECTIONS.get(name)
    return spec.label if spec is not None else str(name)


# Interval methods of pairwise results (``ci_method``): the procedure part.
INTERVAL_LABELS = {
    "marginal": "marginal",
    "bonferroni": "Bonferroni simultaneous",
    "holm-sb2008": "Holm-compatible (Strassburger & Bretz 2008)",
    "fcr-by2005": "FCR-adjusted (Benjamini & Yekutieli 2005)",
    "maxt-step-down": "step-down max-T compatible (Strassburger & Bretz 2008)",
    "maxt-single-step": "single-step max-T simultaneous (within-query permutations)",
    "maxt-single-step-skew": "skewness-corrected single-step max-T simultaneous "
                             "(within-query permutations)",
    "tukey-simultaneous": "randomised Tukey HSD simultaneous",
    "studentized-range": "Tukey HSD simultaneous (studentised range)",
    "dunnett-simultaneous": "Dunnett simultaneous (many-to-one)",
    "t": "marginal paired t", "bca": "marginal BCa bootstrap",
    "percentile": "marginal percentile bootstrap", "basic": "marginal basic bootstrap",
    "studentized": "marginal studentized bootstrap",
    "bootstrap-t": "marginal studentized bootstrap",
}


def interval_label(ci_method) -> str:
    """Readable name of a pairwise result's ``ci_method``.

    >>> interval_label("holm-sb2008(randomization)")
    'Holm-compatible (Strassburger & Bretz 2008), inverting the paired randomization test'
    """
    m = str(ci_method)
    if m.endswith(")") and "(" in m:
        how, test = m[:-1].split("(", 1)
        if how in INTERVAL_LABELS and test in TESTS:
            return f"{INTERVAL_LABELS[how]}, inverting the {TESTS[test].label}"
    return INTERVAL_LABELS.get(m, m)
