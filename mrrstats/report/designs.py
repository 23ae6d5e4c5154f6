"""The report's optional sections beyond one run per system and p-values.

Each is computed only when :func:`mrrstats.make_report` is asked for it, with a
Generator of its own seeded from the report's seed, so that a report without
them is byte-identical to one made before they existed and the other
sections draw the same numbers with them:

* ``replicates={system: [run, ...]}`` -- "Several runs per system":
  :func:`mrrstats.replicate_tests` per measure (tests and intervals that count
  queries and seeds, the share of variance the seeds hold);
* ``calibration=True`` (or a number of simulated collections) -- "Which test
  fits these data": :func:`mrrstats.calibrate_tests` on the first measure;
* ``bayesian=True`` (``rope=`` for practical equivalence) -- "Probabilities
  instead of p-values": :func:`mrrstats.bayesian_comparison` (t posterior) per
  measure and pair.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import ParameterError
from ..formatting import fixed, pvalue_text
from ..stats.bayes import bayesian_comparison
from ..stats.registry import CORRECTION_NAMES, correction_label
from ..stats.replicates import replicate_tests
from ..stats.simulation import calibrate_tests, recommend_test

__all__ = ["DESIGN_SECTIONS", "design_settings", "design_frames", "replicates_rows",
           "calibration_rows", "bayesian_rows", "add_design_cells"]

#: The optional sections, in the order of the report, with their ``settings`` keys.
DESIGN_SECTIONS = ("replicates", "calibration", "bayesian")
_STREAM = {"replicates": 1, "calibration": 2, "bayesian": 3}  # own Generator per section
CALIBRATION_SIMULATIONS = 1000


def design_settings(replicates, calibration, bayesian, rope, systems):
    """``{key: settings}`` of the sections asked for (empty when none)."""
    out = {}
    if replicates is not None:
        if not hasattr(replicates, "items") or len(replicates) < 2:
            raise ParameterError("`replicates` must be a mapping {system: [run, ...]} of two "
                             "systems or more")
        rep = {str(s): [str(r) for r in runs] for s, runs in replicates.items()}
        unknown = [r for runs in rep.values() for r in runs if r not in systems]
        if unknown:
            raise ParameterError(f"`replicates` names runs that are not systems of the report: "
                             f"{unknown[:3]} (have {systems[:5]}...)")
        out["replicates"] = {"replicates": rep, "method": "bootstrap"}
    if calibration:
        n_sim = CALIBRATION_SIMULATIONS if calibration is True else int(calibration)
        if n_sim < 10:
            raise ParameterError(f"`calibration` must be True or at least 10 simulated "
                             f"collections, got {calibration!r}")
        out["calibration"] = {"n_simulations": n_sim, "n_resamples": 1000,
                              "differences": [0.02, 0.05, 0.1], "null_hypothesis": "means"}
    if bayesian or rope is not None:
        if rope is not None and not (isinstance(rope, int | float) and rope > 0):
            raise ParameterError(f"`rope` must be a positive number, got {rope!r}")
        out["bayesian"] = {"method": "t", "rope": None if rope is None else float(rope)}
    return out


def design_frames(scores, settings, pairs, workers=-1):
    """``{section: DataFrame}`` of the sections in ``settings`` (see the module docstring)."""
    cs = settings["comparison"]
    measures = list(settings["measures"])
    out = {}
    if "replicates" in settings:
        gen = np.random.default_rng([settings["seed"], 24, _STREAM["replicates"]])
        corr = cs["correction"] if cs["correction"] in CORRECTION_NAMES else "single-step"
        parts = []
        for m in measures:
            res = replicate_tests(scores[m], settings["replicates"]["replicates"],
                                  alternative=cs["alternative"], correction=corr,
                                  alpha=cs["alpha"], confidence_level=cs["confidence_level"],
                                  n_resamples=cs["n_resamples"], missing=cs["missing"],
                                  measure=m, workers=workers, rng=gen)
            f = res.to_frame()
            comp = res.components
            f["seed_std_a"] = np.sqrt(comp.loc[list(f["a"]), "seed_variance"].to_numpy())
            f["seed_std_b"] = np.sqrt(comp.loc[list(f["b"]), "seed_variance"].to_numpy())
            parts.append(f)
        out["replicates"] = pd.concat(parts, ignore_index=True)
    if "calibration" in settings:
        c = settings["calibration"]
        gen = np.random.default_rng([settings["seed"], 24, _STREAM["calibration"]])
        frame = scores[measures[0]].dropna()
        k = min(frame.shape[1], 8)
        # a correction from p-values (the single-step max-T needs the joint null): Holm
        pick = cs["correction"] if cs["correction"] in ("holm", "bonferroni", "bh") else "holm"
        corr = ("none",) if k == 2 else ("none", pick)
        res = calibrate_tests(frame, differences=tuple(c["differences"]),
                              corrections=tuple(dict.fromkeys(corr)), alpha=cs["alpha"],
                              alternative=cs["alternative"],
                              null_hypothesis=c["null_hypothesis"],
                              n_simulations=c["n_simulations"], n_resamples=c["n_resamples"],
                              measure=measures[0], workers=workers, rng=gen)
        t = res.to_frame()
        t.insert(0, "measure", measures[0])
        t["recommended"] = t["test"] == res.recommended_test
        out["calibration"] = t
    if "bayesian" in settings:
        rope = settings["bayesian"]["rope"]
        rows = []
        for m in measures:
            frame = scores[m].dropna()
            for a, b in pairs.loc[pairs["measure"] == m, ["a", "b"]].itertuples(index=False):
                r = bayesian_comparison(frame[a], frame[b], rope=rope,
                                        confidence_level=cs["confidence_level"]).to_frame()
                r.insert(0, "b", b)
                r.insert(0, "a", a)
                r.insert(0, "measure", m)
                rows.append(r)
        out["bayesian"] = pd.concat(rows, ignore_index=True).drop(columns=["n_resamples",
                                                                          "seed"])
    return out


# --------------------------------------------------------------------------
# tables
# --------------------------------------------------------------------------
def replicates_rows(data):
    f = data.replicates
    if f is None:
        return None
    s = data.settings
    rep = s["replicates"]["replicates"]
    rows = [[r.measure, r.a, r.b, fixed(r.difference), f"[{fixed(r.ci_low)}, "
             f"{fixed(r.ci_high)}]", pvalue_text(r.pvalue), pvalue_text(r.pvalue_adjusted),
             f"{100 * r.share_replicates:.0f}%", fixed(r.seed_std_a), fixed(r.seed_std_b)]
            for r in f.itertuples(index=False)]
    header = ["measure", "a", "b", "a - b", "interval", "p", "p adjusted",
              "seeds' share", "seed sd a", "seed sd b"]
    listed = "; ".join(f"{k}: {', '.join(v)}" for k, v in rep.items())
    cs = s["comparison"]
    caption = (
        f"Several runs per system ({listed}). For each pair of systems: the difference of "
        "the grand means over queries and runs, its interval and p-value from a two-stage "
        "studentised bootstrap that resamples the queries (kept paired) and, independently "
        "per system, its runs (mrrstats.replicate_tests), adjusted "
        f"({correction_label(f['correction'].iloc[0])}) over the pairs of systems; "
        f"{cs['n_resamples']} resamples, {cs['confidence_level']:.0%} intervals. 'seeds' "
        "share': the part of the variance of the difference that only more runs shrink; "
        "'seed sd': the standard deviation of a run's mean effect. Averaging the runs first "
        "or treating every (query, run) as a query ignores that share and rejects too often "
        "(benchmarks/results_replicates.md).")
    return header, rows, "lll" + "r" * 7, caption


def calibration_rows(data):
    t = data.calibration
    if t is None:
        return None
    c = data.settings["calibration"]
    cs = data.settings["comparison"]
    power_cols = [col for col in t.columns if col.startswith("power_")]
    rows = [[r["test"] + (" *" if r["recommended"] else ""), r["correction"],
             f"{r['type_I_error']:.3f} ± {2 * r['type_I_error_se']:.3f}"] +
            [f"{r[col]:.3f}" for col in power_cols] for _, r in t.iterrows()]
    header = ["test", "correction", "type I error (±2 SE)"] + \
        [f"power at {col[len('power_'):]}" for col in power_cols]
    _, text = recommend_test(t.drop(columns=["measure", "recommended"]), alpha=cs["alpha"],
                             n_simulations=c["n_simulations"])
    caption = (
        f"Which test fits these data ({t['measure'].iloc[0]}, {int(t['n_queries'].iloc[0])} "
        f"topics): {c['n_simulations']} simulated collections per row, drawn like these "
        "(per-system discrete margins chosen by AIC, Gaussian copula; Urbano & Nagler 2018) "
        "with every system moved to the same expected score (type I error; per comparison "
        "for 'none', family-wise otherwise) or the first system moved up by the difference "
        f"(power); alpha = {cs['alpha']:g}, {cs['alternative']}. Recommended (*): " + text)
    return header, rows, "ll" + "r" * (1 + len(power_cols)), caption


def bayesian_rows(data):
    f = data.bayesian
    if f is None:
        return None
    rope = data.settings["bayesian"]["rope"]
    rows = []
    for r in f.itertuples(index=False):
        row = [r.measure, r.a, r.b, fixed(r.difference), f"[{fixed(r.ci_low)}, "
               f"{fixed(r.ci_high)}]", f"{r.p_a_better:.3f}"]
        if rope is not None:
            row += [f"{r.p_a_practically_better:.3f}", f"{r.p_rope:.3f}",
                    f"{r.p_b_practically_better:.3f}"]
        rows.append(row)
    cl = data.settings["comparison"]["confidence_level"]
    header = ["measure", "a", "b", "a - b", f"{cl:.0%} credible interval", "P(a better)"]
    if rope is not None:
        header += [f"P(a - b > {rope:g})", f"P(-{rope:g} < a - b < {rope:g})",
                   f"P(a - b < -{rope:g})"]
    caption = (
        "Probabilities instead of p-values: the posterior of the mean difference over the "
        "population of queries under the non-informative prior (Student t with n - 1 degrees "
        "of freedom, location the mean difference, scale sd/sqrt(n); "
        "mrrstats.bayesian_comparison). P(a better) is one minus the one-sided t-test "
        "p-value; the credible interval equals the t interval in numbers, not in meaning."
        + ("" if rope is None else f" Region of practical equivalence: ±{rope:g}."))
    return header, rows, "lll" + "r" * (len(header) - 3), caption


DESIGN_ROWS = {"replicates": replicates_rows, "calibration": calibration_rows,
               "bayesian": bayesian_rows}


# --------------------------------------------------------------------------
# notebook cells
# --------------------------------------------------------------------------
_CELLS = {
    "replicates": ("## Several runs per system\n\nEach system was run several times (seeds or "
                   "folds). The table compares the systems, counting both the queries and "
                   "the runs as sources of variation.",
                   'display(Markdown((folder / "tables" / "replicates.md").read_text()))'),
    "calibration": ("## Which test fits these data\n\nEvery test's type I error and power on "
                    "simulated collections like this one (`calibration=`).",
                    'display(Markdown((folder / "tables" / "calibration.md").read_text()))'),
    "bayesian": ("## Probabilities instead of p-values\n\nThe posterior probability that each "
                 "system of a pair is better (`bayesian=`, `rope=`).",
                 'display(Markdown((folder / "tables" / "bayesian.md").read_text()))'),
}


def add_design_cells(nb, sections):
    """The cells of the optional sections, before section 10 (fixed cell ids)."""
    import nbformat

    cells = []
    for name in DESIGN_SECTIONS:
        if name in sections:
            md = nbformat.v4.new_markdown_cell(_CELLS[name][0])
            md["id"] = f"s-{name}"
            code = nbformat.v4.new_code_cell(_CELLS[name][1])
            code["id"] = name
            cells += [md, code]
    at = next((i for i, c in enumerate(nb.cells) if c.get("id") == "s7"), len(nb.cells))
    nb.cells[at:at] = cells
    return nb
