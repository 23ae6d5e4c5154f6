"""The public API keeps one vocabulary (mrrstats.glossary) and one result shape.

The test walks ``mrrstats.__all__``, the public names of the modules it exports
(``blocked``, ``datasets``, ``plots``), the parameters of every public function and
method, and the fields, properties and methods of every public class, and fails on

* a retired name of a glossary concept (a second name for one concept),
* a result class without the common shape (``statistic``, ``pvalue``,
  ``confidence_interval(confidence_level=...)``, ``to_frame()``; ``seed`` when random),
* a result class that is not exported,
* a resampling function without ``workers`` or ``rng``, a random function that does
  not record the seed it drew with ``rng=None``,
* a public name of 0.1 that no longer imports, or a retired name that no longer works.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
import types
import warnings

import numpy as np
import pandas as pd
import pytest

import mrrstats
from mrrstats.deprecation import RENAMED, renamed_attribute
from mrrstats.glossary import GLOSSARY

# ---------------------------------------------------------------------------
# the public API, walked
# ---------------------------------------------------------------------------

PARAM_RETIRED = {old: t.name for t in GLOSSARY if t.kind in ("parameter", "both", "value")
                 for old in t.retired if t.kind != "value"}
ATTR_RETIRED = {old: t.name for t in GLOSSARY if t.kind in ("attribute", "both")
                for old in (*t.retired, *t.retired_attributes)}

#: (qualified public name, name) pairs where a retired spelling means something else.
ALLOWED = {
    ("plots.observed_vs_random", "baseline"): "the random-ranking baseline table",
    ("ReportData", "random_baseline"): "the random-ranking baseline table",
}


def _public_objects():
    """(qualified name, object) of every exported name, and of the exported modules' names."""
    out = []
    for name in mrrstats.__all__:
        obj = getattr(mrrstats, name)
        if isinstance(obj, types.ModuleType):
            for n in getattr(obj, "__all__", ()):
                out.append((f"{name}.{n}", getattr(obj, n)))
        else:
            out.append((name, obj))
    return out


PUBLIC = _public_objects()
CLASSES = [(q, o) for q, o in PUBLIC if inspect.isclass(o)]
FUNCTIONS = [(q, o) for q, o in PUBLIC if inspect.isfunction(o) or inspect.isbuiltin(o)
             or (callable(o) and not inspect.isclass(o) and not isinstance(o, types.ModuleType))]


def _signature(f):
    try:
        return inspect.signature(f)
    except (TypeError, ValueError):
        return None


def _members(cls):
    """(name, static object) of the public members of a class and its mrrstats bases."""
    out = {}
    for klass in reversed(cls.__mro__):
        if not klass.__module__.startswith("mrrstats"):
            continue
        for n, v in vars(klass).items():
            if not n.startswith("_") or n == "__init__":
                out[n] = v
    if dataclasses.is_dataclass(cls):
        for f in dataclasses.fields(cls):
            out.setdefault(f.name, f)
    return out


def _methods(cls):
    """Public methods (a dataclass's generated ``__init__`` is its fields: checked as such)."""
    for n, v in _members(cls).items():
        if n == "__init__" and dataclasses.is_dataclass(cls):
            continue
        fn = v.__func__ if isinstance(v, classmethod | staticmethod) else v
        if inspect.isfunction(fn):
            yield n, fn


def _attributes(cls):
    for n, v in _members(cls).items():
        if isinstance(v, renamed_attribute) or n == "__init__":
            continue
        yield n, v


def _params(f):
    sig = _signature(f)
    return [] if sig is None else [p for p in sig.parameters.values()
                                   if p.name not in ("self", "cls")]


def _all_classes_in_package():
    """Every public class defined in an mrrstats module (modules imported to find them)."""
    found = {}
    for info in pkgutil.walk_packages(mrrstats.__path__, "mrrstats."):
        if info.name.split(".")[-1].startswith("_") or ".cli" in info.name:
            continue
        mod = importlib.import_module(info.name)
        for n, o in vars(mod).items():
            if inspect.isclass(o) and o.__module__ == mod.__name__ and not n.startswith("_"):
                found[o] = f"{mod.__name__}.{n}"
    return found


# ---------------------------------------------------------------------------
# one name per concept
# ---------------------------------------------------------------------------

def test_no_retired_parameter_name():
    bad = []
    for q, f in FUNCTIONS:
        for p in _params(f):
            if p.name in PARAM_RETIRED and (q, p.name) not in ALLOWED:
                bad.append(f"{q}({p.name}=): use {PARAM_RETIRED[p.name]}=")
    for q, cls in CLASSES:
        for m, fn in _methods(cls):
            for p in _params(fn):
                if p.name in PARAM_RETIRED and (f"{q}.{m}", p.name) not in ALLOWED:
                    bad.append(f"{q}.{m}({p.name}=): use {PARAM_RETIRED[p.name]}=")
    assert not bad, "retired parameter names:\n" + "\n".join(sorted(set(bad)))


def test_no_retired_attribute_name():
    bad = [f"{q}.{n}: use .{ATTR_RETIRED[n]}" for q, cls in CLASSES
           for n, _ in _attributes(cls) if n in ATTR_RETIRED and (q, n) not in ALLOWED]
    assert not bad, "retired attribute names:\n" + "\n".join(sorted(set(bad)))


def test_every_retired_name_that_existed_still_works():
    """Names of 0.1 replaced by the glossary are registered as deprecated aliases."""
    was = {
        ("mrrstats.stats.power", "ttest_power", "sd"),
        ("mrrstats.baselines.scorer", "ranks_from_scorer", "filter"),
        ("mrrstats.baselines.scorer", "ranks_from_scorer", "chunk"),
        ("mrrstats.stats.estimation", "hodges_lehmann", "correct"),
        ("mrrstats.stats.estimation", "hodges_lehmann", "exact"),
    }
    names = {(fq.rsplit(".", 1)[-1], old) for fq, old in RENAMED}
    missing = [f"{mod}.{fn}({old}=)" for mod, fn, old in was if (fn, old) not in names]
    assert not missing, "no deprecated alias for: " + ", ".join(missing)


def test_renamed_parameter_warns_and_maps():
    from mrrstats.deprecation import renamed_parameters

    @renamed_parameters(zero_tolerance="atol")
    def f(a, *, atol=0.0):
        return a, atol

    # mrrstats' own class (a DeprecationWarning), which the test suite turns into errors
    with pytest.warns(mrrstats.MrrstatsDeprecationWarning, match=r"use atol="):
        assert f(1, zero_tolerance=0.25) == (1, 0.25)
    with pytest.raises(TypeError, match="both"):
        f(1, zero_tolerance=0.1, atol=0.2)
    assert list(inspect.signature(f).parameters) == ["a", "atol"]


# ---------------------------------------------------------------------------
# one result shape
# ---------------------------------------------------------------------------

def _has(cls, name):
    return name in dict(_members(cls))


def _is_result(cls):
    return cls.__name__.endswith(("Result", "Intervals", "Moments", "Sizes", "Comparison",
                                  "Agreement")) or _has(cls, "pvalue")


RESULTS = [(q, c) for q, c in CLASSES if _is_result(c) and q not in ("ReportResult",)]


@pytest.mark.parametrize("qual,cls", RESULTS, ids=[q for q, _ in RESULTS])
def test_result_shape(qual, cls):
    assert _has(cls, "to_frame"), f"{qual} has no to_frame()"
    if _has(cls, "pvalue"):
        missing = [n for n in ("statistic", "confidence_interval") if not _has(cls, n)]
        assert not missing, f"{qual}: a test result without {missing}"
    if _has(cls, "confidence_interval"):
        params = [p.name for p in _params(dict(_methods(cls))["confidence_interval"])]
        assert "confidence_level" in params, \
            f"{qual}.confidence_interval() takes {params}, not confidence_level="
    if _has(cls, "n_resamples"):
        assert _has(cls, "seed"), f"{qual} resamples but records no seed"


def test_every_result_class_is_exported():
    exported = {o for _, o in PUBLIC if inspect.isclass(o)}
    internal = {"TestSpec", "CorrectionSpec", "Term", "Measure", "MeasureSpec", "Counter",
                "Source"}
    bad = [path for cls, path in _all_classes_in_package().items()
           if _is_result(cls) and cls not in exported and cls.__name__ not in internal
           and not issubclass(cls, Warning | Exception)]
    assert not bad, "result classes not exported from mrrstats:\n" + "\n".join(sorted(bad))


# ---------------------------------------------------------------------------
# resampling functions: workers, clusters, rng, seeds
# ---------------------------------------------------------------------------

#: Functions with ``n_resamples`` that run no compiled engine, with the reason.
NO_WORKERS = {
    "random_metric_moments": "scores permutations of one query's grades in NumPy",
    "random_baseline_test": "draws first-relevant ranks from their closed-form law",
    "evaluation_baseline": "as random_baseline_test",
    "randomization_power": "simulates whole experiments; each runs the t or sign-flip "
                           "test on a few queries",
    "equivalence_test": "TOST; the randomization variant has two one-sided tests of one "
                        "pair",
    "ppi_evaluate": "Gaussian multipliers of a small (queries x pairs) matrix in NumPy",
    "judge_agreement": "the decisions of decision_agreement (pairwise_tests inside)",
    "bayesian_comparison": "Dirichlet weights of the Bayesian bootstrap drawn in NumPy",
    "critical_difference": "multinomial query counts times a (queries x systems) matrix per "
                           "collection in NumPy",
    "reproducibility": "topic indices of four small (topics x measures) arrays in NumPy",
}

MUST_HAVE_CLUSTERS = ("randomization_test", "bootstrap_ci", "bootstrap_test", "pairwise_tests",
                      "compare", "randomized_tukey_hsd", "westfall_young", "rank_intervals")


def test_resampling_functions_take_workers_and_rng():
    bad = []
    for q, f in FUNCTIONS:
        names = [p.name for p in _params(f)]
        if "n_resamples" in names:
            if "rng" not in names:
                bad.append(f"{q}: n_resamples without rng")
            if "workers" not in names and q.split(".")[-1] not in NO_WORKERS:
                bad.append(f"{q}: n_resamples without workers")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("name", MUST_HAVE_CLUSTERS)
def test_clustered_designs_take_clusters(name):
    assert "clusters" in inspect.signature(getattr(mrrstats, name)).parameters


def test_rng_is_the_last_parameter():
    bad = [q for q, f in FUNCTIONS if "rng" in (names := [p.name for p in _params(f)])
           and names[-1] != "rng" and names[-1] not in ("kwargs",)]
    assert not bad, "rng should be the last parameter of: " + ", ".join(bad)


@pytest.fixture(scope="module")
def scores():
    rng = np.random.default_rng(7)
    X = rng.random((30, 4)).round(2)
    X[:, 0] += 0.15
    return pd.DataFrame(X, columns=list("abcd"), index=[f"q{i}" for i in range(30)])


def _seed_of(res):
    if isinstance(res, pd.DataFrame):
        return res.attrs.get("seed")
    return getattr(res, "seed", None)


def _random_calls(s):
    a, b = s["a"].to_numpy(), s["b"].to_numpy()
    data = mrrstats.datasets.cast2021()
    ev = mrrstats.evaluate(data.qrels, data.runs, ["RR"])
    calls = {
        "randomization_test": lambda: mrrstats.randomization_test(a, b, n_resamples=99),
        "bootstrap_ci": lambda: mrrstats.bootstrap_ci(a, b, n_resamples=99),
        "bootstrap_test": lambda: mrrstats.bootstrap_test(a, b, n_resamples=99),
        "pairwise_tests": lambda: mrrstats.pairwise_tests(s, n_resamples=99),
        "compare": lambda: mrrstats.compare(s, n_resamples=99),
        "randomized_tukey_hsd": lambda: mrrstats.randomized_tukey_hsd(s, n_resamples=99),
        "westfall_young": lambda: mrrstats.westfall_young(s, n_resamples=99),
        "discriminative_power": lambda: mrrstats.discriminative_power(s, n_resamples=99),
        "rank_intervals": lambda: mrrstats.rank_intervals(s, n_resamples=99),
        "unpaired_permutation_test": lambda: mrrstats.unpaired_permutation_test(
            a, b, n_resamples=99),
        "unpaired_bootstrap_ci": lambda: mrrstats.unpaired_bootstrap_ci(a, b, n_resamples=99),
        "effect_size_intervals": lambda: mrrstats.effect_size_intervals(a, b, n_resamples=99),
        "equivalence_test": lambda: mrrstats.equivalence_test(
            a, b, margin=0.05, test="randomization", n_resamples=99),
        "randomization_power": lambda: mrrstats.randomization_power(
            a - b, n_queries=10, n_simulations=20, n_resamples=99),
        "random_metric_moments": lambda: mrrstats.random_metric_moments(
            [1] + [0] * 40, "AP", method="monte-carlo", n_resamples=99),
        "random_baseline_test": lambda: mrrstats.random_baseline_test(
            [1.0, 0.5, 0.25, 1.0, 0.2], [100, 80, 90, 50, 60], method="monte-carlo",
            n_resamples=99),
        "correct_sampled_metric": lambda: mrrstats.correct_sampled_metric(
            [1, 3, 2, 10, 5], n_negatives=20, n_candidates=200, n_resamples=99),
        "blocked.randomization_test": lambda: mrrstats.blocked.randomization_test(
            a, b, n_resamples=99),
        "blocked.bootstrap_ci": lambda: mrrstats.blocked.bootstrap_ci(a, b, n_resamples=99),
    }
    calls["evaluation_baseline"] = lambda: mrrstats.evaluation_baseline(ev, n_resamples=99)
    judged = mrrstats.datasets.cast2021_judged()
    calls["ppi_evaluate"] = lambda: mrrstats.ppi_evaluate(
        judged.runs, judged.judge_qrels, judged.human_qrels, "RR", n_resamples=99)
    calls["judge_agreement"] = lambda: mrrstats.judge_agreement(
        judged.judge_qrels, judged.human_qrels, judged.runs, n_resamples=99)
    calls["simulate_judge"] = lambda: mrrstats.simulate_judge(judged.human_qrels, 0.1)
    calls["datasets.cast2021_judged"] = lambda: mrrstats.datasets.cast2021_judged(rng=None)
    # several runs, collections, Bayesian comparison, simulation
    reps = {"A": ["a", "b"], "B": ["c", "d"]}
    calls["replicate_tests"] = lambda: mrrstats.replicate_tests(s, reps, n_resamples=99)
    calls["across_collections"] = lambda: mrrstats.across_collections(
        {"x": s[["a", "b"]], "y": s[["c", "d"]]}, test="randomization")
    calls["critical_difference"] = lambda: mrrstats.critical_difference(
        {"x": s.iloc[:15], "y": s.iloc[15:]}, n_resamples=99)
    calls["bayesian_hierarchical_t"] = lambda: mrrstats.bayesian_hierarchical_t(
        [s["a"].iloc[:15] - s["b"].iloc[:15], s["a"].iloc[15:] - s["b"].iloc[15:]],
        n_chains=2, n_draws=100, n_warmup=50)
    calls["reproducibility"] = lambda: mrrstats.reproducibility(
        data.qrels, {"baseline": data.runs[0], "advanced": data.runs[1]},
        {"baseline": data.runs[2], "advanced": data.runs[3]}, measures=["RR"], n_resamples=99)
    calls["bayesian_comparison"] = lambda: mrrstats.bayesian_comparison(
        a, b, method="bootstrap", n_resamples=99)
    calls["simulate_collection"] = lambda: mrrstats.simulate_collection(
        s[["a", "b"]], n_queries=5)
    calls["simulate_replicates"] = lambda: mrrstats.simulate_replicates(s, n_replicates=2)
    calls["calibrate_tests"] = lambda: mrrstats.calibrate_tests(
        s[["a", "b"]], tests=["t"], n_simulations=5, differences=())
    calls["decision_agreement"] = lambda: mrrstats.decision_agreement(
        {"RR": s, "AP": s * 0.9 + 0.05}, "RR", "AP", n_resamples=99)
    calls["discriminative_power_table"] = lambda: mrrstats.discriminative_power_table(
        {"RR": s, "AP": s * 0.9}, n_resamples=99)
    return calls


def test_every_random_function_is_in_the_seed_table(scores):
    table = set(_random_calls(scores))
    bad = [q for q, f in FUNCTIONS if "rng" in [p.name for p in _params(f)]
           and q not in table and not q.startswith("plots.")
           and q not in ("make_report", "multiverse")]
    assert not bad, "random functions missing from the seed table: " + ", ".join(bad)


@pytest.fixture(scope="module")
def random_results(scores):
    """``{name: result}`` of every call of the seed table (an exception where it raised)."""
    out = {}
    for fname, call in _random_calls(scores).items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                out[fname] = call()
            except Exception as exc:  # noqa: BLE001 (reported by the tests, by name)
                out[fname] = exc
    return out


def test_random_functions_record_the_seed_they_drew(random_results):
    bad = []
    for fname, res in random_results.items():
        if isinstance(res, Exception):
            bad.append(f"{fname}: {type(res).__name__}: {res}")
            continue
        seed = _seed_of(res)
        if not isinstance(seed, int | np.integer):
            bad.append(f"{fname}: seed {seed!r}")
    assert not bad, "random functions called with rng=None record no integer seed:\n" + \
        "\n".join(bad)


def _result_names(res):
    """Every name a result shows: frame columns and index names (of ``to_frame()`` or of a
    returned frame), ``to_dict()`` keys, frame ``attrs``, public attributes and fields."""
    names = set()
    frames = []
    if isinstance(res, pd.DataFrame):
        frames.append(res)
    else:
        if hasattr(res, "to_frame"):
            frames.append(res.to_frame())
        if hasattr(res, "to_dict"):
            d = res.to_dict()
            names |= {k for k in d if isinstance(k, str)}
        if dataclasses.is_dataclass(res):
            names |= {f.name for f in dataclasses.fields(res)}
        names |= {n for n in dir(res) if not n.startswith("_")
                  and not isinstance(inspect.getattr_static(type(res), n, None),
                                     renamed_attribute)}
    for f in frames:
        names |= {c for c in f.columns if isinstance(c, str)}
        names |= {n for n in f.index.names if isinstance(n, str)}
        names |= {k for k in f.attrs if isinstance(k, str)}
    return names


def test_no_retired_name_in_results(scores, random_results):
    """Results show the current names only: a retired name is reachable through its
    deprecated alias (a renamed_attribute, warning), never as a column, key or field."""
    a, b = scores["a"].to_numpy(), scores["b"].to_numpy()
    data = mrrstats.datasets.cast2021()
    ev = mrrstats.evaluate(data.qrels, data.runs[:4], ["RR", "nDCG@10"])
    seg = {q: ("odd" if i % 2 else "even")
           for i, q in enumerate(ev.values[ev.runs[0]].index)}
    results = dict(random_results)
    results.update({
        "evaluate": ev,
        "compare(segment_by=)": mrrstats.compare(ev, measure="RR", test="t", segment_by=seg),
        "compare(...).segments": mrrstats.compare(ev, measure="RR", test="t",
                                                  segment_by=seg).segments,
        "by_segment": mrrstats.by_segment(ev, seg, measure="RR"),
        "paired_ttest": mrrstats.paired_ttest(a, b),
        "wilcoxon_test": mrrstats.wilcoxon_test(a, b),
        "sign_test": mrrstats.sign_test(a, b),
        "effect_sizes": mrrstats.effect_sizes(a, b),
        "hodges_lehmann": mrrstats.hodges_lehmann(a, b),
        "unpaired_ttest": mrrstats.unpaired_ttest(a, b),
        "anova_tukey_hsd": mrrstats.anova_tukey_hsd(scores),
        "ttest_power": mrrstats.ttest_power(difference=0.05, std=0.2, n_queries=50),
        "mixed_model": mrrstats.mixed_model(scores),
        "per_query_correlation": mrrstats.per_query_correlation(ev),
    })
    qrels = pd.DataFrame({"query": ["q1", "q2"], "doc": ["d2", "d1"], "grade": [1, 1]})
    run = pd.DataFrame({"query": ["q1"] * 3 + ["q2"] * 3, "doc": ["d1", "d2", "d3"] * 2,
                        "score": [3.0, 2.0, 1.0] * 2})
    results["move_first_relevant"] = mrrstats.move_first_relevant(qrels, {"r": run}, ranks=[1],
                                                                  measures=["RR"])
    results["perturbation_summary"] = mrrstats.perturbation_summary(
        results["move_first_relevant"])
    bad = []
    for fname, res in results.items():
        if isinstance(res, Exception):
            continue  # reported by test_random_functions_record_the_seed_they_drew
        retired = sorted(n for n in _result_names(res) if n in ATTR_RETIRED)
        bad += [f"{fname} ({type(res).__name__}): {n} -> {ATTR_RETIRED[n]}" for n in retired]
    assert not bad, "retired names in results:\n" + "\n".join(bad)


def test_retired_attribute_warns_with_mrrstats_class(scores):
    res = mrrstats.bootstrap_ci(scores["a"], scores["b"], n_resamples=99, rng=1)
    assert "n" not in dir(res) or isinstance(
        inspect.getattr_static(type(res), "n"), renamed_attribute)
    with pytest.warns(mrrstats.MrrstatsDeprecationWarning, match=r"use \.n_queries"):
        assert res.n == res.n_queries
    with warnings.catch_warnings():
        warnings.simplefilter("error", mrrstats.MrrstatsDeprecationWarning)
        with pytest.raises(mrrstats.MrrstatsDeprecationWarning):
            res.n  # noqa: B018 (the access is the test)


# ---------------------------------------------------------------------------
# nothing public is lost
# ---------------------------------------------------------------------------

PUBLIC_0_1 = (
    "InputError read_score_matrix datasets blocked QUERIES Evaluation QueryCounts evaluate "
    "evaluate_flat EMPTY_TARGET Qrels Run read_qrels read_run KGFilter kg_filter Measure "
    "parse_measure parse_measures score_ranked_run score_rankings TIES RankedRun rank_run "
    "FirstRelevantRank RandomBaselineResult RandomMetricMoments adjusted_mrr "
    "evaluation_baseline expected_ap expected_mrr expected_rank expected_rr expected_success "
    "random_baseline_counts random_baseline_test random_metric_moments variance_mrr "
    "variance_rank variance_rr variance_success LinkPredictionRanks ranks_from_negatives "
    "ranks_from_scores ranks_from_scorer SampledMetricResult correct_sampled_metric "
    "ConfidenceInterval bootstrap_ci bootstrap_test effect_sizes paired_ttest "
    "randomization_test residual_variance sign_test wilcoxon_test PairwiseResult "
    "anova_tukey_hsd discriminative_power pairwise_tests randomized_tukey_hsd westfall_young "
    "randomization_power topic_set_size ttest_power Comparison compare by_segment "
    "EffectSizeIntervals EquivalenceResult HodgesLehmannResult UnpairedResult "
    "effect_size_intervals equivalence_test hodges_lehmann unpaired_bootstrap_ci "
    "unpaired_permutation_test unpaired_ttest MixedModelResult mixed_model mixed_vs_anova "
    "RankIntervals compact_letter_display rank_intervals DecisionAgreement agreement_matrix "
    "decision_agreement discriminative_power_table per_query_correlation "
    "perfect_rr_disagreement ranking_agreement swapped_pairs tau_ap mrr_vs_map rr_diagnostics "
    "add_relevant move_first_relevant perturbation_summary swap_relevant MultiverseResult "
    "multiverse plots ReportData ReportResult load_report make_report"
).split()


@pytest.mark.parametrize("name", PUBLIC_0_1)
def test_public_names_of_0_1_still_import(name):
    assert name in mrrstats.__all__
    assert getattr(mrrstats, name) is not None


def test_the_glossary_renders():
    from mrrstats.glossary import glossary_frame, glossary_rst

    frame = glossary_frame()
    assert frame["name"].is_unique
    assert len(frame) == len(GLOSSARY)
    assert glossary_rst().count("   * - ``") == len(GLOSSARY)
    retired = [r for t in GLOSSARY for r in (*t.retired, *t.retired_attributes)]
    assert len(retired) == len(set(retired)), "a retired name belongs to two concepts"
    clash = set(retired) & {t.name for t in GLOSSARY}
    assert clash <= {"seed"}, f"a retired name is also a current name: {clash}"


def test_command_line_options_use_the_glossary_names():
    """``--name`` of every command is the parameter's name (``-`` for ``_``); ``--seed``
    is the command line's spelling of ``rng`` (an integer only). A retired option may stay
    as a hidden alias (argparse.SUPPRESS help) for one release."""
    import argparse

    from mrrstats.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    bad = []
    for cmd, p in sub.choices.items():
        for action in p._actions:
            if action.help == argparse.SUPPRESS:
                continue
            for opt in action.option_strings:
                name = opt.lstrip("-").replace("-", "_")
                if name in PARAM_RETIRED and name != "seed":
                    bad.append(f"mrrstats {cmd} {opt}: use --{PARAM_RETIRED[name]}")
    assert not bad, "\n".join(bad)
