"""Fuzz the public API: every exported function called with one bad argument at a time.

A helper of ``tests/test_fuzz.py`` (not collected itself). For each function of
``mrrstats.__all__`` (and of ``mrrstats.blocked``) a small valid call is built
(:data:`VALID`); every parameter is then replaced, one at a time, by bad values derived
from its kind (read from the signature's default and the numpydoc type line): wrong
types, NaN, inf, negative, fractional, huge and empty values, unknown names, wrong
shapes, missing or binary files. Each call runs in a worker interpreter with a time limit and
is classified as

``ok``
    returned; a *silent acceptance* when the value is one that must be refused;
``refused``
    raised a :class:`mrrstats.MrrstatsError` whose message (or ``name``) names the
    parameter;
``internal``
    raised anything else (numpy's, pandas' or Python's own error), or a refusal that
    does not name the parameter;
``hang``
    did not finish within the time limit.
"""

from __future__ import annotations

import gzip
import inspect
import json
import os
import pickle
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

import mrrstats

HUGE = 10**12
# Time limits: generous, so that a loaded machine never reads as a hang. A call over
# TIMEOUT seconds is a hang (the largest accepted calls take about 2 s); the worker's
# first answer may take IMPORTS seconds more (a fresh interpreter importing mrrstats).
TIMEOUT = 120.0
IMPORTS = 120.0

# -- small valid inputs ---------------------------------------------------------------


def _ab(n=16, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.choice([0.0, 0.25, 1 / 3, 0.5, 1.0], n)
    b = np.clip(a + rng.choice([-0.25, 0.0, 0.25, 0.5], n), 0, 1)
    return a, b


def _scores(n=16, k=3, seed=0):
    rng = np.random.default_rng(seed)
    support = np.array([0.0, 0.2, 0.25, 1 / 3, 0.5, 1.0])
    base = rng.integers(0, 6, n)
    cols = {f"s{j}": support[np.clip(base + rng.integers(-1, 2, n) + (j % 2), 0, 5)]
            for j in range(k)}
    frame = pd.DataFrame(cols, index=[f"q{i}" for i in range(n)])
    frame.attrs["measure"] = "RR"
    return frame


def _measures():
    rr = _scores()
    ap = _scores(seed=1) * 0.9
    ap.attrs["measure"] = "AP"
    return {"RR": rr, "AP": ap}


def _qrels():
    return {f"q{i}": {f"d{i}": 1, f"d{i + 1}": 0, f"d{i + 3}": 2} for i in range(8)}


def _runs():
    docs = [f"d{j}" for j in range(12)]
    out = {}
    for s in range(3):
        rng = np.random.default_rng(s)
        out[f"r{s}"] = {f"q{i}": {str(d): 6.0 - r for r, d in enumerate(rng.permutation(docs)[:6])}
                        for i in range(8)}
    return out


def _ev():
    return mrrstats.evaluate(_qrels(), _runs(), ["RR", "AP"])


def _files(kind):
    d = Path(tempfile.mkdtemp(prefix="mrrfuzz"))
    if kind == "qrels":
        p = d / "qrels.txt"
        p.write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 1\n")
    elif kind == "run":
        p = d / "run.txt"
        p.write_text("q1 Q0 d1 1 0.9 bm25\nq1 Q0 d2 2 0.8 bm25\nq2 Q0 d3 1 0.7 bm25\n")
    elif kind == "matrix":
        p = d / "scores.csv"
        p.write_text("query,a,b\nq1,0.5,1.0\nq2,0.25,0.5\nq3,1.0,1.0\n")
    elif kind == "report":
        p = d / "report"
    return p


def _judged():
    qrels = _qrels()
    judge = {q: {d: (g if d != f"d{i}" else 0) for d, g in rel.items()}
             for i, (q, rel) in enumerate(qrels.items())}
    human = dict(list(qrels.items())[:5])
    return _runs(), judge, human


def _scorer():
    W = np.random.default_rng(0).random((4, 6))
    return (lambda q, c: W[q][:, c]), np.arange(4), [1, 3, 0, 2]


def _sampled():
    rng = np.random.default_rng(0)
    full = rng.integers(1, 101, 40)
    above = rng.hypergeometric(full - 1, 100 - full, 10)
    return above + 1


def _decisions():
    sig = np.zeros((3, 3), bool)
    sig[0, 2] = sig[2, 0] = True
    return sig


R = {"n_resamples": 99, "rng": 1}

#: name -> () -> (args, kwargs) of one small valid call
VALID: dict[str, Callable[[], tuple[tuple, dict]]] = {
    "read_score_matrix": lambda: ((_files("matrix"),), {}),
    "evaluate": lambda: ((_qrels(), _runs(), ["RR", "AP"]), {}),
    "evaluate_flat": lambda: ((np.array([0.2, 0.3, 0.5, 0.1, 0.3, 0.5]),
                               np.array([0, 0, 1, 0, 1, 1], bool),
                               np.array([0, 0, 0, 1, 1, 1])), {}),
    "read_qrels": lambda: ((_files("qrels"),), {}),
    "read_run": lambda: ((_files("run"),), {}),
    "kg_filter": lambda: (([(0, 0, 1), (0, 0, 2)], None, [(0, 0, 3)]), {}),
    "parse_measure": lambda: (("RR@10",), {}),
    "parse_measures": lambda: ((["RR", "AP@5"],), {}),
    "score_ranked_run": lambda: ((mrrstats.rank_run(_qrels(), _runs()["r0"]), ["RR", "AP"]),
                                 {}),
    "score_rankings": lambda: (([[0, 1, 0, 1]], ["RR", "AP"]), {"judged": [[1, 1, 0]]}),
    "rank_run": lambda: ((_qrels(), _runs()["r0"]), {}),
    "adjusted_mrr": lambda: ((0.4, 10), {}),
    "evaluation_baseline": lambda: ((_ev(),), {"n_resamples": 99, "rng": 1}),
    "expected_ap": lambda: ((10, 2), {}),
    "expected_bpref": lambda: ((10, 2), {"n_nonrelevant": 5}),
    "expected_rbp": lambda: ((10, 2), {"p": 0.8, "k": 5}),
    "expected_mrr": lambda: ((10, 2), {}),
    "expected_rank": lambda: ((10, 2), {}),
    "expected_rr": lambda: ((10, 2), {}),
    "expected_success": lambda: ((10, 2), {"k": 3}),
    "random_baseline_counts": lambda: ((_ev(),), {"random": "retrieved"}),
    "random_baseline_test": lambda: (([1.0, 0.5, 0.25, 1.0], [10, 10, 8, 12]), dict(R)),
    "random_metric_moments": lambda: (([1, 1, 0, 0, 0], "AP"), {"rng": 1}),
    "variance_mrr": lambda: ((10, 2), {}),
    "variance_rank": lambda: ((10, 2), {}),
    "variance_rr": lambda: ((10, 2), {}),
    "variance_success": lambda: ((10, 2), {"k": 3}),
    "ranks_from_negatives": lambda: (([0.5, 0.9], [[0.7, 0.5, 0.1], [0.1, 0.2, 0.3]]), {}),
    "ranks_from_scores": lambda: ((np.array([[0.9, 0.5, 0.5, 0.1], [0.2, 0.8, 0.8, 0.8]]),
                                   [1, 3]), {}),
    "ranks_from_scorer": lambda: (_scorer(), {"n_candidates": 6}),
    "correct_sampled_metric": lambda: ((_sampled(), 10, 100), dict(R)),
    "bootstrap_ci": lambda: (_ab(), dict(R)),
    "bootstrap_test": lambda: (_ab(), dict(R)),
    "effect_sizes": lambda: (_ab(), {}),
    "paired_ttest": lambda: (_ab(), {}),
    "randomization_test": lambda: (_ab(), dict(R)),
    "residual_variance": lambda: ((_scores(),), {}),
    "blocked_anova": lambda: ((_scores(),), {}),
    "sign_test": lambda: (_ab(), {}),
    "wilcoxon_test": lambda: (_ab(), {}),
    "anova_tukey_hsd": lambda: ((_scores(),), {}),
    "discriminative_power": lambda: ((_scores(),), dict(R)),
    "pairwise_tests": lambda: ((_scores(),), dict(R)),
    "randomized_tukey_hsd": lambda: ((_scores(),), dict(R)),
    "westfall_young": lambda: ((_scores(),), dict(R)),
    "randomization_power": lambda: ((_ab()[0] - _ab()[1],),
                                    {"n_simulations": 20, "n_resamples": 49, "rng": 1}),
    "topic_set_size": lambda: ((_scores(),), {"difference": 0.1}),
    "ttest_power": lambda: ((), {"difference": 0.1, "std": 0.3, "n_queries": 50}),
    "compare": lambda: ((_scores(),), dict(R)),
    "by_segment": lambda: ((_ev(), lambda q: int(q[1:]) % 2), {"measure": "RR"}),
    "replicate_tests": lambda: ((_scores(k=4), {"A": ["s0", "s1"], "B": ["s2", "s3"]}),
                                dict(R)),
    "simulate_replicates": lambda: ((_scores(),), {"rng": 1}),
    "across_collections": lambda: (({m: f[["s0", "s1"]] for m, f in _measures().items()},),
                                   {"rng": 1}),
    "critical_difference": lambda: (({f"c{i}": _scores(n=6, k=4, seed=i) for i in range(4)},),
                                    dict(R)),
    "reproducibility": lambda: ((_qrels(), {"baseline": _runs()["r0"], "advanced": _runs()["r1"]},
                                 {"baseline": _runs()["r1"], "advanced": _runs()["r2"]}),
                                dict(R)),
    "bayesian_comparison": lambda: (_ab(), {"rng": 1, "n_resamples": 200}),
    "bayesian_hierarchical": lambda: (([28, 8, -3, 7], [15, 10, 16, 11]), {"n_grid": 200}),
    "bayesian_hierarchical_t": lambda: (([[0.1, -0.2, 0.3, 0.05], [0.2, 0.0, 0.1, -0.1],
                                          [0.3, 0.1, 0.2, 0.0]],),
                                        {"n_draws": 40, "n_warmup": 10, "rng": 1}),
    "calibrate_tests": lambda: ((_scores(k=2),), {"tests": ["t"], "n_simulations": 10,
                                                  "n_resamples": 49, "rng": 1}),
    "simulate_collection": lambda: ((_scores(),), {"n_queries": 20, "rng": 1}),
    "effect_size_intervals": lambda: (_ab(), dict(R)),
    "equivalence_test": lambda: (_ab(), {"margin": 0.1, "rng": 1}),
    "hodges_lehmann": lambda: (_ab(), {}),
    "unpaired_bootstrap_ci": lambda: ((_ab()[0], _ab(12, 1)[1]), dict(R)),
    "unpaired_permutation_test": lambda: ((_ab()[0], _ab(12, 1)[1]), dict(R)),
    "unpaired_ttest": lambda: ((_ab()[0], _ab(12, 1)[1]), {}),
    "mixed_model": lambda: ((_scores(),), {}),
    "mixed_vs_anova": lambda: ((_scores(),), {}),
    "compact_letter_display": lambda: ((_decisions(),), {"means": [3, 2, 1]}),
    "rank_intervals": lambda: ((_scores(),), dict(R)),
    "agreement_matrix": lambda: ((mrrstats.ranking_agreement(_measures()),), {}),
    "decision_agreement": lambda: ((_measures(), "RR", "AP"), dict(R)),
    "discriminative_power_table": lambda: ((_measures(),), dict(R)),
    "per_query_correlation": lambda: ((_measures(),), {}),
    "perfect_rr_disagreement": lambda: ((_measures(),), {}),
    "ranking_agreement": lambda: ((_measures(),), {}),
    "swapped_pairs": lambda: ((_measures(), "RR", "AP"), {}),
    "tau_ap": lambda: (([4, 3, 2, 1], [3, 4, 2, 1]), {}),
    "mrr_vs_map": lambda: ((_ev(),), {}),
    "rr_diagnostics": lambda: ((_scores(),), {}),
    "add_relevant": lambda: ((_qrels(), _runs()), {"n": (1,), "measures": ("RR",)}),
    "move_first_relevant": lambda: ((_qrels(), _runs()), {"ranks": (1, 2),
                                                          "measures": ("RR",)}),
    "perturbation_summary": lambda: ((mrrstats.move_first_relevant(
        _qrels(), _runs(), ranks=(1,), measures=("RR",)),), {}),
    "swap_relevant": lambda: ((_qrels(), _runs()), {"measures": ("RR",)}),
    "multiverse": lambda: ((_qrels(), _runs()), {"ties": ("trec_eval",), "queries": ("both",),
                                                 "cutoffs": (None, 5),
                                                 "empty_targets": ("neg",), "rng": 1}),
    "ppi_evaluate": lambda: (_judged(), {"measures": "RR", "n_resamples": 99, "rng": 1}),
    "judge_agreement": lambda: (_judged()[1:] + (_judged()[0],), {"test": "t", "rng": 1}),
    "simulate_judge": lambda: ((_qrels(), 0.2), {"rng": 1}),
    "judgment_bounds": lambda: ((_qrels(), _runs()), {"measures": ["RR"]}),
    "load_report": None,  # built from make_report's output in the child
    "make_report": lambda: ((_qrels(), _runs()), {"out": _files("report"), "notebook": False,
                                                  "n_resamples": 99, "multiverse": False,
                                                  "rng": 1}),
    "blocked.randomization_test": lambda: (_ab(), dict(R)),
    "blocked.bootstrap_ci": lambda: (_ab(), dict(R)),
    # not a function: the constructor whose instance the Accumulator methods are tried on
    "Accumulator": lambda: ((["RR", "nDCG@10"],), {}),
}


_REPORT: list = []


def _load_report_call():
    if not _REPORT:  # one report per child, read by every call
        args, kwargs = VALID["make_report"]()
        mrrstats.make_report(*args, **kwargs)
        _REPORT.append(kwargs["out"])
    return (_REPORT[0],), {}


def valid_call(name, profile="fast"):
    head, _, _ = name.partition(".")
    if head in METHOD_OF:  # the result of its function, then the method's own arguments
        args, kwargs = VALID[METHOD_OF[head]]()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = function(METHOD_OF[head])(*args, **kwargs)
        kwargs = dict(METHOD_ARGS.get(name, {}))
        if name == "Accumulator.merge":
            kwargs["other"] = mrrstats.Accumulator(["RR", "nDCG@10"])
        return (result,), kwargs
    if name == "load_report":
        if profile == "quick":  # every quick case is refused before the folder is read
            return (Path(tempfile.mkdtemp(prefix="mrrfuzz")),), {}
        return _load_report_call()
    return VALID[name]()


#: result class -> the function of :data:`VALID` whose result it is (its methods are fuzzed
#: on that result)
METHOD_OF = {
    "Evaluation": "evaluate", "Measure": "parse_measure",
    "RandomBaselineResult": "random_baseline_test",
    "RandomMetricMoments": "random_metric_moments", "LinkPredictionRanks": "ranks_from_scores",
    "SampledMetricResult": "correct_sampled_metric", "PairwiseResult": "pairwise_tests",
    "Comparison": "compare", "ReplicateComparison": "replicate_tests",
    "AcrossCollectionsResult": "across_collections", "BayesianComparison": "bayesian_comparison",
    "HierarchicalComparison": "bayesian_hierarchical_t",
    "CriticalDifferenceResult": "critical_difference", "ReproducibilityResult": "reproducibility",
    "EffectSizeIntervals": "effect_size_intervals", "EquivalenceResult": "equivalence_test",
    "HodgesLehmannResult": "hodges_lehmann", "UnpairedResult": "unpaired_ttest",
    "MixedModelResult": "mixed_model", "TTestResult": "paired_ttest",
    "WilcoxonResult": "wilcoxon_test", "SignTestResult": "sign_test",
    "RandomizationTestResult": "randomization_test", "BootstrapTestResult": "bootstrap_test",
    "BootstrapCIResult": "bootstrap_ci", "SimulatedPowerResult": "randomization_power",
    "PPIResult": "ppi_evaluate", "Accumulator": "Accumulator",
}
#: methods left out: ``Accumulator.all_gather`` needs a running torch.distributed group
NOT_FUZZED = {"Accumulator.all_gather"}
#: arguments a method needs for its valid call
METHOD_ARGS = {"Evaluation.scores": {"measure": "RR"}, "LinkPredictionRanks.hits": {"k": 1},
               "LinkPredictionRanks.hits_at": {"k": 1}, "Measure.with_rel": {"rel": 2},
               "LinkPredictionRanks.metric": {"name": "hits_at_10"},
               "PPIResult.confidence_interval": {"a": "r0"},
               "CriticalDifferenceResult.hierarchical": {"a": "s0", "b": "s1", "rng": 1},
               "LinkPredictionRanks.baseline_test": {"rng": 1},
               "CriticalDifferenceResult.significant": {"a": "s0", "b": "s1"},
               "Comparison.wins_matrix": {"measure": "RR"},
               "Accumulator.update": {"preds": np.array([0.2, 0.3, 0.5, 0.1]),
                                      "target": np.array([0, 1, 1, 0]),
                                      "indexes": np.array([0, 0, 1, 1])},
               "Accumulator.merge": {"other": None}}  # None: a fresh Accumulator (below)


def function(name):
    head, _, rest = name.partition(".")
    if head in METHOD_OF and rest:  # a method of a result class: the function on the class
        return getattr(getattr(mrrstats, head), rest)
    obj = mrrstats
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def public_methods():
    """Every public method with parameters of the result classes of :data:`METHOD_OF`."""
    out = []
    for cls_name in METHOD_OF:
        cls = getattr(mrrstats, cls_name)
        for m, v in vars(cls).items():
            if not m.startswith("_") and inspect.isfunction(v) and \
                    len(inspect.signature(v).parameters) > 1 and \
                    f"{cls_name}.{m}" not in NOT_FUZZED:
                out.append(f"{cls_name}.{m}")
    return out


def public_functions(methods=True):
    """Every exported function (mrrstats.__all__, mrrstats.blocked.__all__) and, with
    ``methods``, every public method with parameters of the result classes."""
    names = [n for n in mrrstats.__all__ if inspect.isfunction(getattr(mrrstats, n))]
    names += [f"blocked.{n}" for n in mrrstats.blocked.__all__
              if inspect.isfunction(getattr(mrrstats.blocked, n))]
    return names + (public_methods() if methods else [])


# -- bad values from a parameter's kind --------------------------------------------


def doc_types(fn):
    """``{parameter: type line}`` from a numpydoc Parameters section."""
    doc = inspect.getdoc(fn) or ""
    m = re.search(r"Parameters\n-+\n(.*?)(\n\w[\w ]*\n-+\n|\Z)", doc, re.S)
    out = {}
    for line in (m.group(1) if m else "").splitlines():
        hit = re.match(r"(\w+(?:, \w+)*) : (.*)", line)
        if hit:
            for p in hit.group(1).split(", "):
                out[p] = hit.group(2)
    return out


def kind_of(param, doc):
    default = param.default
    t = doc.get(param.name, "").lower()
    if isinstance(default, bool) or t.startswith("bool"):
        return "bool"
    if t.startswith("{") or (isinstance(default, str) and not t.startswith(("str or seq",
                                                                             "sequence"))):
        return "choice"
    if param.name in {"rng", "workers", "batch", "progress", "out", "path", "source"}:
        return param.name if param.name != "source" else "path"
    if isinstance(default, int) or t.startswith("int"):
        return "int"
    if isinstance(default, float) or t.startswith(("float", "number", "real")):
        return "float"
    return "data"


@dataclass(frozen=True)
class Bad:
    label: str
    value: object
    must_refuse: bool  # a value no parameter of this kind may accept


_BIN = object()  # placeholders: a binary (gzip + noise) or an empty file, written in the child
_EMPTY = object()


def bad_values(kind, profile="fast"):
    common = [Bad("object", object(), True)]
    if kind == "int":
        vals = [Bad("nan", float("nan"), True), Bad("fraction", 2.5, True),
                Bad("negative", -1, True), Bad("zero", 0, False), Bad("huge", HUGE, False),
                Bad("string", "3", True), Bad("bool", True, True)]
        if profile == "slow":
            vals += [Bad("inf", float("inf"), True), Bad("2**63", 2**63, False),
                     Bad("-huge", -HUGE, True), Bad("array", np.array([1, 2]), False)]
    elif kind == "float":
        vals = [Bad("nan", float("nan"), True), Bad("inf", float("inf"), False),
                Bad("negative", -1.5, False), Bad("string", "0.5", True),
                Bad("huge", 1e300, False)]
        if profile == "slow":
            vals += [Bad("-inf", -float("inf"), False), Bad("bool", True, True),
                     Bad("array", np.array([0.1, 0.2]), False), Bad("zero", 0.0, False)]
    elif kind == "choice":
        vals = [Bad("unknown", "no-such-name", True), Bad("number", 3, True),
                Bad("empty", "", True)]
        if profile == "slow":
            vals += [Bad("none", None, False), Bad("list", ["two-sided"], True)]
    elif kind == "bool":
        vals = [Bad("string", "yes", True), Bad("number", 2, True)]
    elif kind == "rng":
        vals = [Bad("negative", -1, True), Bad("string", "seed", True), Bad("float", 1.5, True)]
    elif kind == "workers":
        vals = [Bad("zero", 0, True), Bad("fraction", 1.5, True), Bad("string", "all", True)]
    elif kind == "batch":
        vals = [Bad("zero", 0, True), Bad("negative", -5, True), Bad("fraction", 2.5, True),
                Bad("huge", HUGE, False)]
    elif kind == "progress":
        vals = [Bad("string", "yes", True)]
    elif kind == "path":
        vals = [Bad("missing", "/nonexistent/mrrfuzz/x.txt", True), Bad("number", 3, True),
                Bad("binary", _BIN, True)]
    elif kind == "out":  # a folder written: a missing one is created
        vals = [Bad("number", 3, True), Bad("binary", _BIN, False)]
    else:  # data
        vals = [Bad("none", None, False), Bad("empty", [], False), Bad("string", "abc", False),
                Bad("nan", np.array([np.nan, 0.5, 1.0]), False),
                Bad("2d", np.ones((3, 3)), False), Bad("3d", np.ones((2, 2, 2)), False),
                Bad("binary", _BIN, False), Bad("emptyfile", _EMPTY, False)]
        if profile == "slow":
            vals += [Bad("inf", np.array([np.inf, 0.5, 1.0]), False),
                     Bad("strings", np.array(["x", "y", "z"]), False),
                     Bad("ragged", [[1.0], [1.0, 2.0]], False), Bad("dict", {"a": 1}, False),
                     Bad("scalar", 0.5, False), Bad("negative", np.array([-1.0, -2.0]), False)]
    return common + vals


#: parameters that may take any object (callables, labels, ...): no must-refuse check
FREE = {"by_segment.segment_by", "make_report.title", "compare.segment_by",
        "make_report.segment_by", "evaluate_flat.name", "read_run.name"}
#: (parameter, label) pairs where the "bad" value is in fact allowed
ALLOWED = {("workers", "negative"), ("decimals", "negative"), ("difference", "negative"),
           ("effects", "negative"), ("mrr", "negative"), ("unretrieved", "number")}


@dataclass(frozen=True)
class Case:
    function: str
    param: str | None  # None: the valid call itself
    label: str
    kind: str
    must_refuse: bool


#: functions whose every accepted call runs a whole analysis: the fast profile tries only
#: the values they must refuse
SLOW_FUNCTIONS = {"make_report", "load_report"}


def cases(profile="fast", functions=None):
    """The calls of a profile: ``"quick"`` (the valid call and every value that must be
    refused: the default test run), ``"fast"`` (every bad value of its kind) or ``"slow"``
    (more values per kind)."""
    values = "fast" if profile == "quick" else profile
    out = []
    for name in functions or public_functions():
        fn = function(name)
        doc = doc_types(fn)
        if not (profile == "quick" and name in SLOW_FUNCTIONS):
            out.append(Case(name, None, "valid", "", False))
        for p in inspect.signature(fn).parameters.values():
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.name == "self":
                continue
            kind = kind_of(p, doc)
            picked = []
            for bad in bad_values(kind, values):
                must = (bad.must_refuse and f"{name}.{p.name}" not in FREE
                        and (p.name, bad.label) not in ALLOWED)
                if not must and profile == "fast" and name in SLOW_FUNCTIONS:
                    continue
                picked.append(Case(name, p.name, bad.label, kind, must))
            if profile == "quick":  # one value that must be refused, in turn, and a huge one
                must = [c for c in picked if c.must_refuse]
                picked = [c for c in picked if c.label == "huge" and name not in SLOW_FUNCTIONS]
                if must:
                    picked.insert(0, must[len(out) % len(must)])
            out += picked
    return out


#: explicit values of cases labelled ``"value:<i>"`` (sent to the worker)
EXPLICIT: list = []


def slots(functions=None):
    """``(function, parameter, kind)`` of every parameter of every public function."""
    out = []
    for name in functions or public_functions():
        fn = function(name)
        doc = doc_types(fn)
        for p in inspect.signature(fn).parameters.values():
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.name != "self":
                out.append((name, p.name, kind_of(p, doc)))
    return out


def run_values(calls, *, timeout=TIMEOUT):
    """Outcomes of ``[(function, parameter, value)]``: the values drawn by hypothesis."""
    EXPLICIT[:] = [v for _, _, v in calls]
    todo = [Case(f, p, f"value:{i}", "", False) for i, (f, p, _) in enumerate(calls)]
    return run(todo, profile="fast", timeout=timeout)


class Sleeper:
    """A callable that never returns in time (the suite's own check that hangs are caught)."""

    SECONDS = 3600.0  # far beyond TIMEOUT: a hang on any machine

    def __call__(self, *args, **kwargs):
        time.sleep(self.SECONDS)


def _value(case, profile):
    if case.label.startswith("value:"):
        return EXPLICIT[int(case.label[6:])]
    for bad in bad_values(case.kind, "slow" if profile == "slow" else "fast"):
        if bad.label == case.label:
            if bad.value is _BIN:
                p = Path(tempfile.mkdtemp(prefix="mrrfuzz")) / "binary.gz"
                p.write_bytes(gzip.compress(bytes(range(256)) * 4) + bytes(range(256)))
                return p
            if bad.value is _EMPTY:
                p = Path(tempfile.mkdtemp(prefix="mrrfuzz")) / "empty.txt"
                p.write_bytes(b"")
                return p
            return bad.value
    raise KeyError(case.label)


def _call(case, profile):
    args, kwargs = valid_call(case.function, profile)
    fn = function(case.function)
    if case.param is not None:
        sig = inspect.signature(fn)
        bound = sig.bind_partial(*args, **kwargs)
        bound.arguments[case.param] = _value(case, profile)
        args, kwargs = bound.args, bound.kwargs
    return fn(*args, **kwargs)


def names_param(exc, param):
    """The refusal names the parameter (or, for bad data, the source it was read from)."""
    text = str(exc)
    if isinstance(exc, mrrstats.InputError) and exc.source is not None:
        return True
    stem = param[:-1] if param.endswith("s") else param  # `run` for runs, `test` for tests
    return (getattr(exc, "name", None) == param or f"`{param}" in text
            or re.search(rf"\b({re.escape(param)}|{re.escape(stem)})\b", text) is not None)


def classify(case, profile):
    """Run one case here; return (outcome, detail)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _call(case, profile)
    except mrrstats.MrrstatsError as exc:
        if case.param is None:
            return "internal", f"valid call refused: {type(exc).__name__}: {exc}"
        if names_param(exc, case.param):
            return "refused", f"{type(exc).__name__}: {exc}"
        return "internal", f"refusal does not name `{case.param}`: {type(exc).__name__}: {exc}"
    except Exception as exc:  # noqa: BLE001 - the point is to catch everything
        tb = traceback.extract_tb(exc.__traceback__)
        where = f"{tb[-1].filename.split('site-packages/')[-1]}:{tb[-1].lineno}" if tb else ""
        return "internal", f"{type(exc).__name__}: {str(exc)[:200]} [{where}]"
    if case.must_refuse:
        return "silent", "accepted"
    return "ok", ""


# -- running cases in a worker interpreter with a time limit ---------------------------


def run(case_list, *, profile="fast", timeout=TIMEOUT):
    """Outcomes ``{case: (outcome, detail, seconds)}``.

    The calls run one after another in a worker: a fresh interpreter (not a fork of this
    one, whose thread pools a fork would inherit), so that what one call loads the next
    reuses. A call over ``timeout`` seconds is killed with its worker and recorded as a
    hang; a new worker takes the calls after it.
    """
    results = {}
    todo = list(case_list)
    scratch = tempfile.mkdtemp(prefix="mrrfuzz")  # every file the calls write, removed after
    try:
        while todo:
            done = _run_worker(todo, profile, timeout, results, scratch)
            todo = todo[done:]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return results


def _run_worker(todo, profile, timeout, results, scratch):
    """Run ``todo`` in one worker until a call hangs; return how many were settled."""
    root = str(Path(__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [root] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]),
        TMPDIR=scratch)
    job = pickle.dumps((profile, [(c.function, c.param, c.label, c.kind, c.must_refuse)
                                  for c in todo], list(EXPLICIT)))
    proc = subprocess.Popen([sys.executable, "-m", "tests.fuzz_api", "--worker"], cwd=root,
                            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    proc.stdin.write(job)
    proc.stdin.close()
    fd = proc.stdout.fileno()
    settled, buf, started = 0, b"", False
    while settled < len(todo):
        # the first answer also waits for the worker's imports
        ready, _, _ = select.select([fd], [], [], timeout if started else timeout + IMPORTS)
        if not ready:
            proc.kill()
            results[todo[settled]] = ("hang", f"over {timeout:g} s", timeout)
            settled += 1
            break
        chunk = os.read(fd, 65536)
        if not chunk:  # the worker died (a crash of the interpreter itself)
            results[todo[settled]] = ("internal", "the process died", 0.0)
            settled += 1
            break
        buf += chunk
        while b"\n" in buf and settled < len(todo):
            line, buf = buf.split(b"\n", 1)
            if line == b"ready":
                started = True
                continue
            outcome, detail, secs = json.loads(line)
            results[todo[settled]] = (outcome, detail, secs)
            settled += 1
    proc.stdout.close()
    proc.wait()
    return settled


def _worker():
    """The worker's side: read the job from stdin, answer one JSON line per call."""
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # whatever the library prints goes to stderr, not into the answers
    profile, rows, explicit = pickle.loads(sys.stdin.buffer.read())
    EXPLICIT[:] = explicit
    out.write("ready\n")
    out.flush()
    for row in rows:
        case = Case(*row)
        t0 = time.perf_counter()
        try:
            outcome, detail = classify(case, profile)
        except BaseException as exc:  # noqa: BLE001
            outcome, detail = "internal", f"{type(exc).__name__}: {exc}"
        out.write(json.dumps([outcome, detail[:400], time.perf_counter() - t0]) + "\n")
        out.flush()


def summary(results):
    counts = {"ok": 0, "refused": 0, "internal": 0, "hang": 0, "silent": 0}
    for outcome, _, _ in results.values():
        counts[outcome] += 1
    counts["calls"] = len(results)
    counts["functions"] = len({c.function for c in results})
    return counts


def findings(results):
    return sorted(f"{c.function}({c.param}={c.label}): {o}: {d}"
                  for c, (o, d, _) in results.items() if o in ("internal", "hang", "silent"))


if __name__ == "__main__" and sys.argv[1:] == ["--worker"]:
    _worker()
elif __name__ == "__main__":  # python -m tests.fuzz_api [quick|fast|slow] [function ...]
    prof = sys.argv[1] if len(sys.argv) > 1 else "fast"
    fns = sys.argv[2:] or None
    t0 = time.perf_counter()
    res = run(cases(prof, fns), profile=prof)
    print("\n".join(findings(res)))
    per_fn = {}
    for c, (_, _, secs) in res.items():
        per_fn[c.function] = per_fn.get(c.function, 0.0) + secs
    print(sorted(((round(v, 1), k) for k, v in per_fn.items()), reverse=True)[:25])
    print(summary(res), f"{time.perf_counter() - t0:.1f} s")
