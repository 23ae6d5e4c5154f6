"""The report's sections on LLM judges and unjudged documents.

Shown only when they apply, so that a report without them is what it was before:

* "An LLM judge and people": with ``make_report(..., judge_qrels=...)`` (the
  ``qrels`` being people's labels of a subset of the queries): the PPI++
  estimate of every system's human-label mean over all queries beside the
  human-only and judge-only intervals (:func:`mrrstats.ppi_evaluate`), and the
  judge's agreement with people (:func:`mrrstats.judge_agreement`).
* "Unjudged documents": when some run retrieves documents the qrels do not
  judge in its top 10: every run's value with them non-relevant (trec_eval) and
  relevant, and its Judged@10 (:func:`mrrstats.judgment_bounds`).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from ..agreement.judges import judge_agreement
from ..formatting import fixed, interval_text
from ..metrics.bounds import PoolingBiasWarning, judgment_bounds
from ..metrics.evaluation import evaluate
from ..stats.ppi import ppi_evaluate

__all__ = ["JUDGED_TABLES", "judged_results", "judge_rows", "bounds_rows", "add_judged_cells",
           "load_judged"]

#: The saved frames (``results/<name>.csv``).
JUDGED_TABLES = ("judge", "judge_pairs", "judgment_bounds")


def judged_results(qrels, runs, measures, *, judge_qrels, confidence_level, n_resamples,
                   seed, ties, rel):
    """``({name: frame}, settings)`` of the sections that apply (empty when none does)."""
    frames, settings = {}, {}
    judged = evaluate(qrels, runs, ["Judged@10"], ties=ties, rel=rel)
    if (judged.aggregate()["Judged@10"] < 1).any():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", PoolingBiasWarning)
            b = judgment_bounds(qrels, runs, measures, ties=ties, rel=rel)
        frames["judgment_bounds"] = b.systems
        settings["judgment_bounds"] = {"flagged": list(b.flagged),
                              "warnings": [str(w.message) for w in caught]}
    if judge_qrels is not None:
        res = ppi_evaluate(runs, judge_qrels, qrels, measures,
                           confidence_level=confidence_level, n_resamples=n_resamples,
                           rng=seed)
        ag = judge_agreement(judge_qrels, qrels, rel=rel)
        frames["judge"], frames["judge_pairs"] = res.systems, res.pairs
        lab = {k: (float(v) if isinstance(v, (float, np.floating)) else int(v))
               for k, v in ag.labels.iloc[0].items()}
        settings["judge"] = {"population": res.population, "n_queries": res.n_queries,
                             "n_human": res.n_human, "confidence_level": res.confidence_level,
                             "n_resamples": res.n_resamples, "seed": res.seed,
                             "labels": lab}
    return frames, settings


def judge_rows(data):
    """The PPI table: per measure and system, the three intervals side by side."""
    f = getattr(data, "judge", None)
    if f is None:
        return None
    s = data.settings["judge"]
    rows = []
    for (m, system), g in f.groupby(["measure", "system"], sort=False):
        by = g.set_index("method")
        p, h, j = by.loc["ppi"], by.loc["human"], by.loc["judge"]
        ratio = (p.ci_high - p.ci_low) / (h.ci_high - h.ci_low) if h.ci_high > h.ci_low \
            else float("nan")
        rows.append([m, system, fixed(p.estimate), interval_text(p.ci_low, p.ci_high, ".3f"),
                     interval_text(h.ci_low, h.ci_high, ".3f"),
                     interval_text(j.ci_low, j.ci_high, ".3f"), fixed(ratio, 2),
                     f"{int(p['rank'])} [{int(p.rank_low)}, {int(p.rank_high)}]"])
    lab = s["labels"]
    caption = (
        f"An LLM judge labelled all {s['n_queries']} queries, people {s['n_human']} of them. "
        "PPI++ (Angelopoulos et al. 2023, the finite-population difference estimator): the "
        "estimate of each system's mean under human labels over all queries, with its "
        f"{s['confidence_level']:.0%} interval, beside the interval from the human-labelled "
        "queries alone and the judge-only interval (which estimates the judge's mean, not "
        "the human one); ratio = PPI width / human-only width; rank with its simultaneous "
        f"interval (max-|t|, B = {s['n_resamples']}, seed = {s['seed']}). Valid when people "
        "labelled a random sample of the queries. The judge agrees with people on "
        f"{lab['n_pairs']} labels at Cohen's kappa {lab['kappa']:.3f} (quadratic "
        f"{lab['kappa_quadratic']:.3f}), Krippendorff's ordinal alpha "
        f"{lab['alpha_ordinal']:.3f}.")
    header = ["measure", "system", "PPI estimate", "PPI interval", "people only", "judge only",
              "ratio", "rank"]
    return header, rows, "ll" + "r" * 6, caption


def bounds_rows(data):
    """The unjudged-documents table: value, lower and upper per run and measure."""
    f = getattr(data, "judgment_bounds", None)
    if f is None:
        return None
    rows = [[r.measure, r.run, fixed(r.value), fixed(r.lower), fixed(r.upper),
             "yes" if r.guaranteed else "no",
             fixed(r.judged, 3) + (" (not pooled?)" if r.pooling_bias else "")]
            for r in f.itertuples(index=False)]
    caption = (
        "Unjudged documents: each run's mean with the documents the qrels do not judge "
        "counted non-relevant (trec_eval's value; the lower end) and relevant (the upper "
        "end), and the share of judged documents in its top 10 (Judged@10). For RR, P and "
        "Success every complete judgment lies between the two ends ('bound' = yes); for AP, "
        "R and nDCG they are the two conventions' values only. A run whose Judged@10 is far "
        "below the others' was probably not pooled: its values are the most biased.")
    header = ["measure", "run", "value", "lower", "upper", "bound", "Judged@10"]
    return header, rows, "ll" + "r" * 5, caption


_MARKDOWN = {
    "judge": (
        "## An LLM judge and people\n\nThe judge labelled every query, people a random "
        "subset. Prediction-powered inference (PPI++) estimates each system's mean under "
        "human labels over all queries from both: the judge's mean corrected by its error "
        "on the human-labelled queries. Its interval is valid whatever the judge's quality, "
        "and narrower than the human-only one when the judge is good; the judge-only "
        "interval is what trusting the judge would report."),
    "judgment_bounds": (
        "## Unjudged documents\n\nRuns retrieve documents no one judged; trec_eval counts "
        "them non-relevant. The bars show how far each mean could move if they were "
        "relevant."),
}
_CODE = {
    "judge": (
        'display(Markdown((folder / "tables" / "judge.md").read_text()))\n'
        "for m in dict.fromkeys(data.judge[\"measure\"]):\n"
        "    with mp.style_context():\n"
        "        ax = mp.judge_intervals(data.judge, measure=m)\n"
        "        plt.show()"),
    "judgment_bounds": (
        'display(Markdown((folder / "tables" / "judgment_bounds.md").read_text()))\n'
        "for m in dict.fromkeys(data.judgment_bounds[\"measure\"]):\n"
        "    with mp.style_context():\n"
        "        ax = mp.bound_bars(data.judgment_bounds, measure=m)\n"
        "        plt.show()"),
}


def load_judged(folder):
    """The saved frames of these sections (``results/<name>.csv``) that exist."""
    return {n: pd.read_csv(folder / f"{n}.csv") for n in JUDGED_TABLES
            if (folder / f"{n}.csv").is_file()}


def add_judged_cells(nb, names):
    """The sections of ``names`` (``"judge"``, ``"judgment_bounds"``), before the provenance."""
    import nbformat

    cells = []
    for name in ("judge", "judgment_bounds"):
        if name not in names:
            continue
        md = nbformat.v4.new_markdown_cell(_MARKDOWN[name])
        md["id"] = f"s-{name}"
        code = nbformat.v4.new_code_cell(_CODE[name])
        code["id"] = name  # fixed ids: the report is byte-reproducible
        cells += [md, code]
    at = next((i for i, c in enumerate(nb.cells) if c.get("id") == "s8"), len(nb.cells))
    nb.cells[at:at] = cells
    return nb
