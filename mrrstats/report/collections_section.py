"""The report's section "Across collections": many systems over several collections.

Shown only when :func:`mrrstats.make_report` is given ``collections=``, so that a
report without it is what it was before. ``collections`` maps a collection's name
to its evaluation: ``(qrels, runs)`` (evaluated with the report's measures and
conventions), a per-query score frame (queries x systems) of the report's first
measure, or a mapping ``{measure: score frame}``. The systems compared are those
every collection has (at least two); a query some system lacks is left out of
its collection.

Per measure:

* :func:`mrrstats.critical_difference` of the per-query scores of the
  collections: each system's average rank with its two-level bootstrap interval,
  Friedman's test and the Iman-Davenport F, Nemenyi's critical difference, the
  pairwise p-values and the cliques, drawn as the critical-difference diagram
  (Demšar 2006);
* :func:`mrrstats.across_collections` of a reference system (the control
  system when it is among them, else the best average rank) against every other:
  on how many collections it is better (partial conjunctions, Dror et al. 2017)
  and the random-effects meta-analysis of :math:`d_z` (DerSimonian-Laird and
  REML, with the Q-profile interval of :math:`\\tau^2`).

Random numbers: one Generator of its own seeded with ``[seed, 30, 1]`` serves the
two-level bootstraps, measure by measure; the per-collection tests of the
meta-analysis are paired t tests (no random numbers). The other sections draw
the same numbers with or without this one.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping
from types import SimpleNamespace

import numpy as np
import pandas as pd

from ..errors import ParameterError, ParameterTypeError
from ..formatting import fixed, interval_cell, pvalue_text
from ..metrics.evaluation import evaluate
from ..model.scoretable import ScoreTable, as_score_table
from ..stats.critical import critical_difference
from ..stats.meta import across_collections
from ..stats.methods import MethodsText

__all__ = [
    "COLLECTIONS_TABLES",
    "collections_results",
    "collections_rows",
    "collections_pairs_rows",
    "collections_meta_rows",
    "critical_difference_view",
    "add_collections_cells",
    "load_collections",
]

#: The saved frames (``results/<name>.csv``).
COLLECTIONS_TABLES = (
    "collections_scores",
    "collections_ranks",
    "collections_tests",
    "collections_pairs",
    "collections_meta",
)
#: The pairwise test behind the cliques, and the between-collection variance estimators.
CD_TEST = "nemenyi"
TAU2_METHODS = ("DL", "REML")
_STREAM = [30, 1]  # the section's own Generator: default_rng([seed, 30, 1])


def _frames_of(name, value, measures):
    """``{measure: queries x systems frame}`` of one collection's input (not evaluated)."""
    if isinstance(value, Mapping):
        out = {}
        for m, v in value.items():
            if m in measures:
                out[m] = as_score_table(
                    v,
                    measure=m,
                    missing="drop",
                    min_systems=2,
                    min_queries=1,
                    name=f"collections[{name!r}][{m!r}]",
                ).to_frame()
        if not out:
            raise ParameterError(
                f"`collections[{name!r}]` gives none of the report's measures "
                f"{list(measures)} (has {list(value)})",
                name="collections",
            )
        return out
    table = (
        value
        if isinstance(value, ScoreTable)
        else as_score_table(
            value,
            measure=measures[0],
            missing="drop",
            min_systems=2,
            min_queries=1,
            name=f"collections[{name!r}]",
        )
    )
    return {measures[0]: table.to_frame()}


def _collection_scores(collections, measures, ties, rel, queries):
    """``{collection: {measure: frame}}``: each collection evaluated or read."""
    if not isinstance(collections, Mapping):
        raise ParameterTypeError(
            "`collections` must be a mapping {collection: (qrels, runs)}, "
            "{collection: per-query scores} or {collection: {measure: "
            f"scores}}}}, got {type(collections).__name__}",
            name="collections",
        )
    if len(collections) < 2:
        raise ParameterError(
            f"`collections` needs at least 2 collections, got {len(collections)}",
            name="collections",
        )
    out = {}
    for name, value in collections.items():
        if not isinstance(name, str) or not name:
            raise ParameterTypeError(
                f"`collections` keys must be non-empty collection names, got {name!r}",
                name="collections",
            )
        if isinstance(value, tuple | list) and len(value) == 2:
            qrels, runs = value
            with warnings.catch_warnings():
                # a collection's left-out queries are counted in settings["collections"]
                warnings.simplefilter("ignore")
                ev = evaluate(qrels, runs, list(measures), ties=ties, rel=rel, queries=queries)
            out[name] = {m: ev.scores(m) for m in ev.measure_names}
        else:
            out[name] = _frames_of(name, value, measures)
    return out


def collections_results(
    collections,
    measures,
    systems,
    *,
    control,
    alpha,
    alternative,
    confidence_level,
    n_resamples,
    seed,
    ties,
    rel,
    queries,
):
    """``(frames, settings, methods)`` of the section: the saved frames (``{name: frame}``),
    ``settings["collections"]`` and the methods paragraphs ``[(heading, MethodsText)]``."""
    per = _collection_scores(collections, measures, ties, rel, queries)
    names = list(per)
    shared = [m for m in measures if all(m in per[c] for c in names)]
    if not shared:
        raise ParameterError(
            "`collections`: no measure of the report is given for every collection",
            name="collections",
        )
    common = set.intersection(*(set(per[c][m].columns) for c in names for m in shared))
    order = [s for s in systems if s in common] + sorted(
        s for s in common if s not in set(systems)
    )
    if len(order) < 2:
        raise ParameterError(
            f"`collections`: fewer than two systems are in every collection (common: {order})",
            name="collections",
        )
    gen = np.random.default_rng([seed, *_STREAM])
    scores_rows, ranks, tests, pairs, metas, texts, notes = [], [], [], [], [], [], []
    n_queries = {}
    reference = None
    for m in shared:
        frames = {}
        for c in names:
            f = per[c][m][order].dropna()
            f.attrs["measure"] = m
            frames[c] = f
            n_queries.setdefault(c, int(len(f)))
        short = [c for c, f in frames.items() if len(f) < 3]
        if short:
            raise ParameterError(
                f"`collections` {short} have fewer than 3 queries that every system has ({m})",
                name="collections",
            )
        cd = critical_difference(
            frames,
            test=CD_TEST,
            alpha=alpha,
            measure=m,
            confidence_level=confidence_level,
            n_resamples=n_resamples,
            rng=gen,
        )
        for c, f in frames.items():
            means = f.mean()
            rk = cd.ranks.loc[c]
            for s in order:
                scores_rows.append(
                    {
                        "measure": m,
                        "collection": c,
                        "n_queries": len(f),
                        "system": s,
                        "mean": float(means[s]),
                        "rank": float(rk[s]),
                    }
                )
        r = cd.to_frame().reset_index()
        r.insert(0, "measure", m)
        ranks.append(r)
        fr = cd.friedman
        tests.append(
            {
                "measure": m,
                "n_collections": cd.n_collections,
                "n_systems": cd.n_systems,
                "test": cd.test,
                "alpha": cd.alpha,
                "friedman": float(fr["statistic"]),
                "friedman_df": float(fr["df"]),
                "friedman_pvalue": float(fr["pvalue"]),
                "iman_davenport": float(fr["iman_davenport"]),
                "iman_davenport_dfn": float(fr["dfn"]),
                "iman_davenport_dfd": float(fr["dfd"]),
                "iman_davenport_pvalue": float(fr["iman_davenport_pvalue"]),
                "critical_difference": float(cd.critical_difference),
                "n_resamples": cd.n_resamples,
                "confidence_level": cd.confidence_level,
                "cliques": json.dumps([list(q) for q in cd.cliques]),
            }
        )
        p = cd.pairs.copy()
        p.insert(0, "measure", m)
        pairs.append(p)
        mt = cd.methods()
        texts.append(
            (
                f"Across collections ({m}): average ranks and the critical difference",
                MethodsText(
                    mt.text + " The bootstrap drew from numpy's Generator seeded with "
                    f"[{seed}, {', '.join(map(str, _STREAM))}] (the report's seed "
                    "and this section's stream; settings.json).",
                    mt.keys,
                ),
            )
        )
        # the meta-analysis: one reference system against every other
        if reference is None:
            reference = control if control in order else str(cd.average_ranks.index[0])
        first = True
        for other in order:
            if other == reference:
                continue
            try:
                res = across_collections(
                    {c: f[[reference, other]] for c, f in frames.items()},
                    test="t",
                    alternative=alternative,
                    alpha=alpha,
                    effect="d_z",
                    confidence_level=confidence_level,
                    measure=m,
                    tau2_methods=TAU2_METHODS,
                )
            except ParameterError as exc:
                notes.append(f"{m}, {reference} - {other}: not meta-analysed ({exc})")
                continue
            meta = res.meta.reset_index()
            meta.insert(0, "b", other)
            meta.insert(0, "a", reference)
            meta.insert(0, "measure", m)
            meta["k_hat_bonferroni"] = res.k_hat["bonferroni"]
            meta["k_hat_fisher"] = res.k_hat["fisher"]
            meta["n_collections"] = len(res.collections)
            meta["replicated"] = json.dumps(list(res.replicated))
            metas.append(meta)
            if first:
                texts.append(
                    (
                        f"Across collections ({m}): replicability and meta-analysis "
                        f"({reference} against each other system)",
                        res.methods(),
                    )
                )
                first = False
    frames_out = {
        "collections_scores": pd.DataFrame(scores_rows),
        "collections_ranks": pd.concat(ranks, ignore_index=True),
        "collections_tests": pd.DataFrame(tests),
        "collections_pairs": pd.concat(pairs, ignore_index=True),
    }
    if metas:
        frames_out["collections_meta"] = pd.concat(metas, ignore_index=True)
    settings = {
        "collections": names,
        "n_queries": n_queries,
        "measures": shared,
        "systems": order,
        "test": CD_TEST,
        "seed": [seed, *_STREAM],
        "n_resamples": n_resamples,
        "reference": reference,
        "meta": {
            "test": "t",
            "effect": "d_z",
            "alternative": alternative,
            "tau2_methods": list(TAU2_METHODS),
            "meta_test": "z",
            "tau2_interval": "Q-profile",
        },
        "notes": notes,
    }
    return frames_out, {"collections": settings}, texts


def methods_section(texts):
    """The Markdown of the section's methods paragraphs and their citation keys."""
    keys, parts = [], []
    for heading, m in texts:
        parts.append(f"## {heading}\n\n{m.text}\n\n```latex\n{m.latex}\n```\n")
        keys += list(m.keys)
    return "\n".join(parts), tuple(dict.fromkeys(keys))


# --------------------------------------------------------------------------
# tables
# --------------------------------------------------------------------------
def _tests(data):
    t = getattr(data, "collections_tests", None)
    return None if t is None else t.set_index("measure")


def collections_rows(data):
    """Average ranks with their intervals, mean over the collections and cliques."""
    r = getattr(data, "collections_ranks", None)
    if r is None:
        return None
    t = _tests(data)
    s = data.settings["collections"]
    rows = []
    for x in r.itertuples(index=False):
        rows.append(
            [
                x.measure,
                x.system,
                f"{x.average_rank:.2f}",
                interval_cell(x.ci_low, x.ci_high, 2) if "ci_low" in r.columns else "--",
                fixed(x.mean),
                "" if pd.isna(x.clique) else str(x.clique),
            ]
        )
    tests = "; ".join(
        f"{m}: Friedman chi^2 = {row.friedman:.2f} ({int(row.friedman_df)} df), p = "
        f"{pvalue_text(row.friedman_pvalue)}; Iman-Davenport F = {row.iman_davenport:.2f} "
        f"({int(row.iman_davenport_dfn)}, {int(row.iman_davenport_dfd)} df), p = "
        f"{pvalue_text(row.iman_davenport_pvalue)}; CD = {row.critical_difference:.3f}"
        for m, row in t.iterrows()
    )
    row0 = t.iloc[0]
    caption = (
        f"Across collections: {len(s['systems'])} systems on {len(s['collections'])} "
        f"collections ({', '.join(s['collections'])}). Each system's average rank over the "
        "collections (1 = best; ranked on each collection's mean, ties averaged) with its "
        f"{row0.confidence_level:.0%} two-level bootstrap interval (collections, then queries "
        f"within each; B = {int(row0.n_resamples)}, Generator seeded with {s['seed']}), its "
        "mean over the collections and the cliques it belongs to (groups with no pair "
        f"significantly different by Nemenyi's test at alpha = {row0.alpha:g}; "
        f"mrrstats.critical_difference, Demšar 2006). {tests}."
        + (
            ""
            if getattr(data, "collections_meta", None) is not None or not s.get("notes")
            else " " + "; ".join(s["notes"]) + "."
        )
    )
    header = ["measure", "system", "average rank", "rank interval", "mean", "cliques"]
    return header, rows, "llrrrl", caption


def collections_pairs_rows(data):
    """Every pair: rank difference, score difference, Nemenyi's p-value."""
    p = getattr(data, "collections_pairs", None)
    if p is None:
        return None
    has_ci = "ci_low" in p.columns
    rows = [
        [
            x.measure,
            x.system_a,
            x.system_b,
            f"{x.rank_difference:.2f}",
            interval_cell(x.rank_ci_low, x.rank_ci_high, 2) if has_ci else "--",
            fixed(x.difference),
            interval_cell(x.ci_low, x.ci_high) if has_ci else "--",
            pvalue_text(x.pvalue_adjusted),
            "yes" if x.reject else "no",
        ]
        for x in p.itertuples(index=False)
    ]
    caption = (
        "Across collections, every pair (a: the better average rank): the difference of "
        "average ranks (b - a) and of mean scores (a - b) over the collections with their "
        "two-level bootstrap intervals, and Nemenyi's p-value (single-step over the pairs)."
    )
    header = [
        "measure",
        "a",
        "b",
        "rank difference",
        "interval",
        "a - b",
        "interval",
        "p (Nemenyi)",
        "differ",
    ]
    return header, rows, "lllrrrrrl", caption


def collections_meta_rows(data):
    """The reference system against each other: replicability and the pooled effect."""
    f = getattr(data, "collections_meta", None)
    if f is None:
        return None
    s = data.settings["collections"]
    rows = [
        [
            x.measure,
            x.a,
            x.b,
            f"{x.k_hat_bonferroni} / {x.k_hat_fisher} of {x.n_collections}",
            x.method,
            f"{x.estimate:+.3f}",
            interval_cell(x.ci_low, x.ci_high, 3),
            pvalue_text(x.pvalue),
            f"{x.tau2:.4f} " + interval_cell(x.tau2_ci_low, x.tau2_ci_high, 4),
            f"{100 * x.i2:.0f}%",
            interval_cell(x.pi_low, x.pi_high, 3),
        ]
        for x in f.itertuples(index=False)
    ]
    side = {"two-sided": "different from", "greater": "better than", "less": "worse than"}[
        s["meta"]["alternative"]
    ]
    caption = (
        f"Across collections: {s['reference']} (a) against each other system (b). 'k of N': "
        f"on how many collections a is {side} b, by partial-conjunction tests of the "
        "per-collection paired t tests (Bonferroni / Fisher; Dror et al. 2017). The "
        "standardised paired difference d_z of each collection pooled by a random-effects "
        "meta-analysis (DerSimonian-Laird, REML): the pooled d_z with its normal interval and "
        "p-value, tau^2 (the between-collection variance) with its Q-profile interval, I^2 "
        "and the prediction interval of a new collection's d_z (mrrstats.across_collections, "
        "as R's metafor rma)." + ("" if not s.get("notes") else " " + "; ".join(s["notes"]) + ".")
    )
    header = [
        "measure",
        "a",
        "b",
        "k of N",
        "tau^2 method",
        "pooled d_z",
        "interval",
        "p",
        "tau^2 [Q-profile]",
        "I^2",
        "prediction",
    ]
    return header, rows, "lllrlrrrrrr", caption


COLLECTIONS_ROWS = {
    "collections": collections_rows,
    "collections_pairs": collections_pairs_rows,
    "collections_meta": collections_meta_rows,
}


# --------------------------------------------------------------------------
# the diagram, the cells, loading
# --------------------------------------------------------------------------
def critical_difference_view(data, measure):
    """What :func:`mrrstats.plots.critical_difference_plot` draws, from the saved frames."""
    r = data.collections_ranks
    r = r[r["measure"] == measure]
    t = data.collections_tests.set_index("measure").loc[measure]
    sc = data.collections_scores
    sc = sc[sc["measure"] == measure]
    return SimpleNamespace(
        average_ranks=pd.Series(r["average_rank"].to_numpy(), index=list(r["system"])),
        cliques=tuple(tuple(q) for q in json.loads(t["cliques"])),
        critical_difference=float(t["critical_difference"]),
        test=str(t["test"]),
        alpha=float(t["alpha"]),
        ranks=sc.pivot(index="collection", columns="system", values="rank"),
    )


_MARKDOWN = (
    "## Across collections\n\nThe same systems on several collections. The critical-difference "
    "diagram (Demšar 2006) places each system at its average rank over the collections; a bar "
    "joins systems that Nemenyi's test does not tell apart. The second table asks, for one "
    "system against each other, on how many collections it is better and how large the "
    "effect is over collections (a random-effects meta-analysis)."
)
_CODE = (
    'display(Markdown((folder / "tables" / "collections.md").read_text()))\n'
    "from mrrstats.report.collections_section import critical_difference_view\n"
    'for m in dict.fromkeys(data.collections_ranks["measure"]):\n'
    "    with mp.style_context():\n"
    "        ax = mp.critical_difference_plot(critical_difference_view(data, m))\n"
    '        ax.set_title(f"{m}: " + ax.get_title(), fontsize=8.5)\n'
    "        plt.show()\n"
    'display(Markdown((folder / "tables" / "collections_pairs.md").read_text()))\n'
    "if data.collections_meta is not None:\n"
    '    display(Markdown((folder / "tables" / "collections_meta.md").read_text()))'
)


def load_collections(folder):
    """The saved frames of this section (``results/<name>.csv``) that exist."""
    return {
        n: pd.read_csv(
            folder / f"{n}.csv",
            dtype={"collection": str, "system": str, "a": str, "b": str, "clique": str},
        )
        for n in COLLECTIONS_TABLES
        if (folder / f"{n}.csv").is_file()
    }


def add_collections_cells(nb):
    """The section, before the provenance (fixed cell ids)."""
    import nbformat

    md = nbformat.v4.new_markdown_cell(_MARKDOWN)
    md["id"] = "s-collections"
    code = nbformat.v4.new_code_cell(_CODE)
    code["id"] = "collections"
    at = next((i for i, c in enumerate(nb.cells) if c.get("id") == "s8"), len(nb.cells))
    nb.cells[at:at] = [md, code]
    return nb


def combined_methods(texts) -> MethodsText:
    """One :class:`MethodsText` of the section's paragraphs (for ``references.bib``)."""
    _, keys = methods_section(texts)
    return MethodsText("\n\n".join(m.text for _, m in texts), keys)
