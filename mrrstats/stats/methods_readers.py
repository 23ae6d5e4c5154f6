"""Readers of :class:`~mrrstats.stats.methods.Facts` for the results beyond the paired tests.

The paragraphs are written by :func:`mrrstats.stats.methods.methods_text` from the
tables of :mod:`mrrstats.stats.methods`; this module only reads each result into
:class:`~mrrstats.stats.methods.Facts` (what was done, with the numbers), for
:func:`mrrstats.across_collections`, :func:`mrrstats.bayesian_comparison`,
segments of :func:`mrrstats.compare`, :func:`mrrstats.effect_size_intervals`,
:func:`mrrstats.rank_intervals`, prediction-powered inference, the random-ranking
baseline test and :func:`mrrstats.discriminative_power`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

from .methods import (
    CORRECTION_TEXT,
    PROCEDURES,
    Facts,
    _join,
    _num,
    _pairwise,
    _seed,
    register_readers,
    resample_unit,
)
from .methods import methods_text as methods_text  # the one generator, with these readers
from .registry import TESTS

__all__ = ["READERS", "methods_text"]


def _range(values: Any) -> str:
    """``"40"`` or ``"25-50"`` (the smallest and largest count)."""
    v = sorted({int(x) for x in values})
    if not v:
        return "?"
    return str(v[0]) if len(v) == 1 else f"{v[0]}-{v[-1]}"


def _test_label(test: str) -> str:
    spec = TESTS.get(test)
    return spec.label if spec is not None else test


#: tau^2 estimator -> (its name, its references)
_TAU2: dict[str, tuple[str, tuple[str, ...]]] = {
    "DL": ("DerSimonian-Laird", ("dersimonian1986",)),
    "PM": ("Paule-Mandel", ("paule1982",)),
    "REML": ("restricted maximum likelihood (REML)", ("viechtbauer2005",)),
    "SJ": ("Sidik-Jonkman", ("sidik2005",)),
}


def _across(r: Any) -> Facts:
    frame = r.collections
    methods = [str(m) for m in r.meta.index]
    tau2 = [_TAU2[m][0] for m in methods]
    knha = getattr(r, "meta_test", "z") == "knha"
    n = len(frame)
    tests = list(dict.fromkeys(str(t) for t in frame["test"]))
    b = getattr(r, "n_resamples", None)
    effect = (
        "standardised paired difference $d_z$ (variance $1/n + d_z^2/(2n)$)"
        if r.effect == "d_z"
        else "mean paired difference (variance $s_d^2/n$)"
    )
    return Facts(
        "partial-conjunction",
        alternative=r.alternative,
        n_resamples=b,
        seed=_seed(r) if b else None,
        correction="holm",
        alpha=r.alpha,
        interval="meta-knha" if knha else "meta-normal",
        confidence_level=r.confidence_level,
        subject=f"We compared two systems over {n} collections "
        f"({_range(frame['n_queries'])} queries each)",
        family=f"the {n} collections (Holm's procedure names the collections with an effect)",
        measured=False,
        notes=(
            (
                "Within each collection the "
                + _join([_test_label(t) for t in tests])
                + f" gave {'one-sided ' if r.alternative != 'two-sided' else ''}p-values",
                tuple(k for t in tests if t in PROCEDURES for k in PROCEDURES[t].cites),
            ),
            (
                "The partial-conjunction p-values $p^{u/N}$ of an effect on at least $u$ of the "
                f"$N = {n}$ collections were computed by Bonferroni (valid under any dependence "
                "between collections) and by Fisher (independent collections), and the number "
                "of collections with an effect estimated as "
                "$\\hat k = \\max\\{u : p^{u/N} \\le \\alpha\\}$",
                ("benjamini2008",),
            ),
            (
                f"The per-collection {effect} was pooled by a random-effects meta-analysis, "
                f"with the {_join(tau2)} "
                f"estimator{'s' if len(tau2) > 1 else ''} of the between-collection "
                "variance $\\tau^2$"
                + (" and the Knapp-Hartung t test of the pooled effect" if knha else ""),
                tuple(k for m in methods for k in _TAU2[m][1]) + (("knapp2003",) if knha else ()),
            ),
            (
                "Intervals of $\\tau^2$ were Q-profile intervals",
                ("viechtbauer2007",),
            ),
        ),
    )


def _bayes(r: Any) -> Facts:
    hier = r.method.startswith("hierarchical")
    mcmc = r.method == "hierarchical-t"
    notes: tuple[tuple[str, tuple[str, ...]], ...] = ()
    if r.rope is not None:
        notes = (
            (
                "Posterior probabilities that a system is practically better, or that the "
                f"two are practically equivalent, used a region of practical equivalence "
                f"(ROPE) of $\\pm{_num(float(r.rope))}$",
                ("kruschke2013", "benavoli2017"),
            ),
        )
    return Facts(
        f"bayes-{r.method}",
        None if hier else r.n_queries,
        n_resamples=r.n_resamples,
        seed=_seed(r),
        interval="credible",
        confidence_level=r.confidence_level,
        subject=f"We pooled the effects of two systems over {r.n_queries} collections"
        if hier
        else "",
        detail=f"{r.n_chains} chains of {r.n_draws} draws after {r.n_warmup} warm-up sweeps; "
        f"largest rank-normalised split $\\hat R$ {r.rhat:.3f}, smallest bulk effective "
        f"sample size {r.ess:.0f}"
        if mcmc
        else "",
        measured=False,
        notes=notes,
    )


def _segments(r: Any) -> Facts:
    frame = r.frame
    n_seg = len(r.segments)
    measures = list(dict.fromkeys(str(m) for m in frame["measure"]))
    systems = list(dict.fromkeys([*map(str, frame["a"]), *map(str, frame["b"])]))
    proc = r.test if r.test in PROCEDURES else "t"
    b = getattr(r, "n_resamples", None)
    random_test = bool(PROCEDURES[proc].resample)
    return Facts(
        proc,
        alternative=getattr(r, "alternative", None),
        n_resamples=b if random_test else None,
        seed=getattr(r, "seed", None) if random_test else None,
        correction=r.segment_correction,
        alpha=r.alpha,
        subject=f"We compared {len(systems)} systems on {_join(measures)} within each of "
        f"{n_seg} segments ({_range(frame['n_queries'])} queries per segment)",
        family=f"the {n_seg} segments of each pair and measure",
        measured=False,
        notes=(
            (
                f"Each system's mean has a {r.confidence_level:.0%} t interval within each "
                "segment, and each pair's difference the test's own interval".replace("%", "\\%"),
                (),
            ),
        ),
    )


def _effect_sizes(r: Any) -> Facts:
    return Facts(
        "effect-sizes",
        r.n_queries,
        n_resamples=r.n_resamples,
        seed=_seed(r),
        interval="bca",
        confidence_level=r.confidence_level,
        detail=f"differences within {_num(float(r.atol))} counted as ties",
        measured=False,
    )


def _ranks(r: Any) -> Facts:
    boot = r.n_resamples > 0 and math.isfinite(r.critical_value)
    n, g = getattr(r, "n_queries", None), getattr(r, "n_clusters", None)
    q = f" over {n} queries" if n is not None else ""
    q += f" in {g} clusters" if g is not None and q else ""
    return Facts(
        "rank-intervals",
        n_clusters=g,
        n_resamples=r.n_resamples if boot else None,
        seed=_seed(r) if boot else None,
        interval="rank-simultaneous",
        confidence_level=r.confidence_level,
        detail=(
            "the decisions of a max-|t| bootstrap of the queries"
            if boot
            else f"the decisions of the {_test_label(r.method)}"
        ),
        subject=f"We ranked {len(r.systems)} systems on {r.measure}{q}",
        measured=False,
    )


def _ppi(r: Any) -> Facts:
    k = len(r.system_names)
    pairs = k * (k - 1) // 2
    strata = f" in {len(r.strata)} strata" if r.strata else ""
    return Facts(
        "ppi",
        n_resamples=r.n_resamples,
        seed=_seed(r),
        correction="max-t-multiplier",
        interval="ppi",
        confidence_level=r.confidence_level,
        detail=f"{r.population} population of queries, {r.variance} rectifier variance",
        subject=f"We evaluated {k} systems on {_join(list(r.measures))} over "
        f"{r.n_queries} judge-labelled queries, {r.n_human} of them (a random sample"
        f"{strata}) also labelled by people",
        family=f"the {pairs} pairs of each measure (adjusted p-values)",
        measured=False,
    )


def _random_baseline(r: Any) -> Facts:
    mc = r.method != "exact"
    side = {"greater": "better than", "less": "worse than"}.get(r.alternative, "different from")
    return Facts(
        "random-baseline",
        n_resamples=r.n_resamples if mc else None,
        seed=_seed(r) if mc else None,
        detail=(
            "Monte Carlo p-value"
            if mc
            else "exact p-value, the null distribution a convolution of the per-query laws"
        )
        + f"; alternative: {side} random",
        subject=f"We compared the {r.measure} of {r.n_queries} queries with that of a "
        "uniformly random ranker",
        measured=False,
    )


def _power(r: Any) -> Facts:
    what = {"n_queries": "number of queries", "difference": "detectable difference"}.get(
        r.solved_for, r.solved_for
    )
    n = f"{r.n_queries_required} queries" if r.n_queries_required is not None else "queries"
    return Facts(
        "power-t",
        alternative=r.alternative,
        detail=f"solved for the {what}; difference {_num(float(r.difference))}, standard "
        f"deviation {_num(float(r.std))}, power {_num(round(float(r.power), 4))}, {n}, "
        f"$\\alpha = {r.alpha:g}$",
        subject="We planned the number of queries of a comparison of two systems",
        measured=False,
    )


def _simulated_power(r: Any) -> Facts:
    proc = "power-randomization" if r.test == "randomization" else "power-t-simulated"
    b = r.n_resamples if proc == "power-randomization" and not r.exact else None
    return Facts(
        proc,
        alternative=r.alternative,
        n_resamples=b,
        seed=_seed(r),
        detail=f"{r.n_simulations} simulated samples of {r.n_queries} queries, difference "
        f"{_num(float(r.difference))}, $\\alpha = {r.alpha:g}$",
        subject="We estimated by simulation the power of a comparison of two systems",
        measured=False,
    )


def _topic_set_size(r: Any) -> Facts:
    return Facts(
        "topic-set-size",
        alternative=r.alternative,
        detail=f"difference {_num(float(r.difference))}, power {_num(float(r.power))}, "
        f"$\\alpha = {r.alpha:g}$: {r.n_queries} queries",
        subject="We planned the number of queries of a new test collection",
        measured=False,
    )


def _calibration(r: Any) -> Facts:
    tests = list(dict.fromkeys(str(t) for t in r.table["test"]))
    corrs = [c for c in dict.fromkeys(str(c) for c in r.table["correction"]) if c != "none"]
    cites = tuple(k for t in tests if t in PROCEDURES for k in PROCEDURES[t].cites)
    notes: list[tuple[str, tuple[str, ...]]] = [
        ("The tests compared were the " + _join([_test_label(t) for t in tests]), cites)
    ]
    if corrs:
        phrases = [CORRECTION_TEXT.get(c, (c, ()))[0] for c in corrs]
        ccites = tuple(k for c in corrs for k in CORRECTION_TEXT.get(c, ("", ()))[1])
        notes.append(("The family-wise error was measured with " + _join(phrases), ccites))
    diffs = ", ".join(_num(float(d)) for d in r.differences)
    return Facts(
        "calibration",
        alternative=r.alternative,
        n_resamples=r.n_resamples or None,
        seed=_seed(r),
        detail=f"{r.n_simulations} simulated collections of {r.n_queries} queries; null "
        f"hypothesis: equal {r.null_hypothesis}; power at differences {diffs}; "
        f"$\\alpha = {r.alpha:g}$",
        subject=f"We calibrated the paired tests on {len(r.systems)} systems",
        measured=False,
        notes=tuple(notes),
    )


def _sampled(r: Any) -> Facts:
    boot = r.bootstrap
    return Facts(
        "sampled-metric",
        len(r.per_query),
        n_resamples=r.n_resamples if boot is not None else None,
        seed=_seed(r) if boot is not None else None,
        interval=boot.method if boot is not None else None,
        confidence_level=r.confidence_level if boot is not None else None,
        detail=f"{r.method} mapping, {r.n_negatives} sampled negatives per query",
        subject=f"We estimated the full-ranking {r.measure} of one system over "
        f"{len(r.per_query)} queries",
        measured=False,
    )


def _discriminative(r: Any) -> Facts:
    f = _pairwise(r.pairwise)
    return dataclasses.replace(
        f,
        measures=(r.measure,) if r.measure else f.measures,
        seed=_seed(r) if _seed(r) is not None else f.seed,
        correction=r.correction,
        alpha=r.alpha,
        interval=None,
        notes=(
            (
                f"The discriminative power of the measure is the share of the {r.n_pairs} "
                f"pairs found significant at $\\alpha = {r.alpha:g}$",
                ("sakai2006",),
            ),
        ),
    )


def _resamples(r: Any) -> int | None:
    """``B`` of a result whose test draws resamples (None for the t, Wilcoxon, sign tests)."""
    proc = PROCEDURES.get(r.test)
    draws = (proc is not None and bool(proc.resample)) or str(r.correction).startswith(
        "single-step"
    )
    return int(r.n_resamples) if r.n_resamples and draws else None


def _point_effects(r: Any) -> Facts:
    notes: tuple[tuple[str, tuple[str, ...]], ...] = ()
    if math.isfinite(float(r.es_e)):
        notes = (
            (
                "$ES_E$ divides the mean difference by the square root of the residual "
                "variance $V_E$ of the two-way system x query ANOVA of all systems",
                ("sakai2018",),
            ),
        )
    return Facts(
        "effect-sizes-point",
        r.n_queries,
        detail=f"differences within {_num(float(r.atol))} counted as ties",
        measured=False,
        notes=notes,
    )


def _judgment_bounds(r: Any) -> Facts:
    measures = tuple(str(m) for m in r.measures)
    flagged = tuple(r.flagged)
    n_q = r.per_query["query"].nunique() if len(r.per_query) else 0
    note = (
        f"Flagged as probably not pooled: {_join(list(flagged))}"
        if flagged
        else "No run was flagged as probably not pooled"
    )
    return Facts(
        "judgment-bounds",
        measured=False,
        subject=f"We bounded the {_join(list(measures))} of {len(r.runs)} runs over {n_q} queries",
        notes=(
            (
                "For RR, P, Success and nDCG every complete judgment of the unjudged "
                "documents gives a value between the two ends; for AP and R they are the two "
                "conventions' values only",
                (),
            ),
            (note, ()),
        ),
    )


def _decisions(r: Any) -> Facts:
    spec = TESTS.get(r.test)
    correction = None if spec is not None and spec.family else r.correction
    n_res = _resamples(r)
    return Facts(
        r.test,
        alternative="two-sided",
        n_resamples=n_res,
        seed=_seed(r) if n_res else None,
        correction=correction,
        alpha=r.alpha,
        family_size=r.n_pairs,
        measures=(r.measure_a, r.measure_b),
        subject=f"We compared the decisions of {r.measure_a} and {r.measure_b} on the "
        f"{r.n_pairs} pairs of systems, each pair tested under each measure (both measures "
        "with the same resamples)",
        family=f"the {r.n_pairs} pairs of each measure",
        resample=resample_unit(r.test, r.correction),
        measured=False,
        notes=(
            (
                "The decisions were then compared pair by pair: "
                f"{r.n_both} significant under both in the same direction, "
                f"{r.n_only_a} only under {r.measure_a}, {r.n_only_b} only under "
                f"{r.measure_b} and {r.n_reversed} reversed; the flip share is the share of "
                "the significant decisions that change with the measure",
                ("sakai2006",),
            ),
        ),
    )


def _multiverse(r: Any) -> Facts:
    summary = r.summary
    n_conv = len(summary)
    names = {
        "ties": "the tie convention",
        "queries": "the query set",
        "rel": "the relevance threshold",
        "cutoff": "the cutoff",
        "empty_target": "the convention for queries without relevant documents",
        "unjudged": "the convention for unjudged documents",
    }
    cols = [
        names[c] for c in names if c in summary.columns and summary[c].astype(str).nunique() > 1
    ]
    varied = _join(cols) if cols else "none of the conventions"
    systems = r.systems["system"].nunique() if len(r.systems) else 0
    measures = tuple(dict.fromkeys(str(m) for m in summary.get("measure", ())))
    spec = TESTS.get(r.test)
    correction = None if spec is not None and spec.family else r.correction
    n_res = _resamples(r)
    return Facts(
        "multiverse",
        n_resamples=n_res,
        seed=_seed(r) if n_res else None,
        correction=correction,
        alpha=r.alpha,
        measures=measures,
        subject=f"We evaluated {systems} systems on {_join(list(measures)) or 'the measures'}"
        f" under {n_conv} conventions (varying {varied})",
        family="the pairs of systems within each convention",
        resample=resample_unit(r.test, r.correction),
        measured=False,
        notes=(
            (
                "Within each convention every pair of systems was tested with the two-sided "
                + _test_label(r.test),
                PROCEDURES[r.test].cites if r.test in PROCEDURES else (),
            ),
            (
                "Each convention's system order was compared with the reference convention's "
                "by Kendall's $\\tau$",
                ("kendall1938",),
            ),
        ),
    )


def _judges(r: Any) -> Facts:
    lab = r.labels.iloc[0]
    notes: list[tuple[str, tuple[str, ...]]] = [
        (
            f"The labels of the {int(lab['n_pairs'])} (query, document) pairs both labelled "
            "were compared by Cohen's $\\kappa$ (unweighted, linearly and quadratically "
            f"weighted, and on relevance at grade $\\ge {int(r.rel)}$) and Krippendorff's "
            "$\\alpha$ (nominal, ordinal and interval)",
            ("cohen1960", "cohen1968", "hayes2007"),
        ),
    ]
    rk = r.rankings
    n_res = None
    if len(rk):
        spec = TESTS.get(r.test)
        correction = None if spec is not None and spec.family else r.correction
        corr = (
            ""
            if correction is None or correction == "none"
            else f", corrected by {CORRECTION_TEXT.get(correction, (correction, ()))[0]}"
        )
        cites = (
            ("kendall1938", "yilmaz2008")
            + (PROCEDURES[r.test].cites if r.test in PROCEDURES else ())
            + (CORRECTION_TEXT.get(str(correction), ("", ()))[1] if corr else ())
        )
        notes.append(
            (
                f"The conclusions under each set of labels ({_join(list(rk['measure']))} of "
                f"{int(rk['n_systems'].max())} systems) were compared by Kendall's $\\tau$ "
                "and $\\tau_{AP}$ between the system rankings and by the decisions of the "
                f"{_test_label(r.test)} on every pair of systems{corr} at "
                f"$\\alpha = {r.alpha:g}$",
                cites,
            )
        )
        n_res = _resamples(r)
    return Facts(
        "judge-agreement",
        n_resamples=n_res,
        seed=_seed(r) if n_res else None,
        subject="We compared an automatic judge's relevance labels with people's",
        resample=resample_unit(r.test, r.correction),
        measured=False,
        notes=tuple(notes),
    )


#: result class name -> the reader of its facts (registered with :func:`~.methods.facts_of`)
READERS: dict[str, Callable[[Any], Facts]] = {
    "AcrossCollectionsResult": _across,
    "BayesianComparison": _bayes,
    "HierarchicalComparison": _bayes,
    "SegmentComparison": _segments,
    "EffectSizeIntervals": _effect_sizes,
    "RankIntervals": _ranks,
    "PPIResult": _ppi,
    "RandomBaselineResult": _random_baseline,
    "DiscriminativePowerResult": _discriminative,
    "PowerResult": _power,
    "SimulatedPowerResult": _simulated_power,
    "TopicSetSizeResult": _topic_set_size,
    "SampledMetricResult": _sampled,
    "CalibrationResult": _calibration,
    "EffectSizes": _point_effects,
    "JudgmentBounds": _judgment_bounds,
    "DecisionAgreement": _decisions,
    "MultiverseResult": _multiverse,
    "JudgeAgreement": _judges,
}
register_readers(READERS)
