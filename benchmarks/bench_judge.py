"""Benchmark: coverage and width of prediction-powered intervals on real runs.

Data: the five TREC CAsT 2021 organiser runs and their graded qrels (158 judged
queries, grades 0-4; bundled as ``mrrstats.datasets.cast2021``). The real
qrels are the human labels; the "all-query human value" of a system (or pair)
is its mean (difference) over the 158 queries under them, the estimand of
``ppi_evaluate(population="finite")``.

Each replicate

1. draws an LLM judge: every qrels label moves to an adjacent grade with
   probability ``flip`` (up 60 % of the time, down 40 %; the ends move to their
   one neighbour), independently (``mrrstats.simulate_judge`` with
   ``judge_confusion(grades, flip)``); ``flip = 1/12`` is a good judge (ordinal
   alpha ~0.9, exact agreement 92 %), ``flip = 1/4`` a mediocre one (exact
   agreement 75 %, of the order of the weaker LLMJudge submissions, Rahmani
   et al. 2025; Thomas et al. 2024 report kappa 0.2-0.65 for LLM labellers);
2. draws the human-labelled queries: a simple random sample of a share (20 %,
   30 %, 50 %) of the 158 queries (``--strata``: a stratified sample, the strata
   being terciles of the judge's number of relevant documents per query, with
   proportional allocation);
3. computes RR and nDCG@10 of every run under the judge's labels (all queries)
   and the human labels (sampled queries), and ``ppi_scores`` (the engine of
   ``ppi_evaluate``) with ``variance="moderated"`` (the default) and
   ``variance="sample"`` (``--populations``: finite, the default, and/or infinite);
4. records whether each interval (5 systems, 10 pairs; PPI, human-only,
   judge-only) covers the all-query human value, and its width.

One judge draw serves the three shares (a fresh subset each), so a replicate
costs about 0.2 s and 600 replicates (the default) about 4 minutes.

The runs are ranked once (trec_eval's order does not depend on the labels) and
each replicate only re-labels the ranked documents, so a replicate costs
milliseconds.

Writes ``benchmarks/results_judge.md`` (and ``results_judge.json``).

Usage: python benchmarks/bench_judge.py [--reps 600] [--flips 0.0833 0.25]
       [--shares 0.2 0.3 0.5] [--populations finite infinite]
       [--variances moderated sample] [--seed 23] [--strata]
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np
import pandas as pd

import mrrstats
from mrrstats.agreement.judges import judge_confusion, simulate_judge
from mrrstats.io.trec import Qrels, read_qrels, read_run
from mrrstats.metrics.kernels import compute_measures
from mrrstats.model.ranking import judged_from_qrels, rank_run
from mrrstats.stats.ppi import ppi_scores

MEASURES = ("RR", "nDCG@10")
HERE = Path(__file__).resolve().parent


def _setup():
    data = mrrstats.datasets.cast2021()
    qrels = read_qrels(data.qrels)
    qids = np.sort(np.asarray(qrels.query_ids, dtype=str))
    # rank once: a qrels whose "grade" is the qrels row gives each ranked row its qrels row
    index_qrels = Qrels(qrels.query, qrels.doc, np.arange(len(qrels), dtype=np.int64),
                        qrels.source)
    runs = {}
    for path in data.runs:
        run = read_run(path)
        ranked = rank_run(index_qrels, run)
        ids = ranked.query_ids.astype(str)
        keep = np.isin(ids, qids)
        assert keep.all() or True
        runs[run.name] = (ranked, ids)
    return qrels, qids, runs


def _scores(qrels, qids, runs, grades):
    """{measure: DataFrame (queries x runs)} under ``grades`` (one per qrels row)."""
    lab = Qrels(qrels.query, qrels.doc, grades, "bench")
    judged_all = judged_from_qrels(lab)
    out = {m: {} for m in MEASURES}
    for name, (ranked, ids) in runs.items():
        g = ranked.grades
        rows = np.where(np.isnan(g), -1, g).astype(np.int64)
        gr = np.where(rows >= 0, grades[np.maximum(rows, 0)], np.nan).astype(np.float64)
        pos = np.searchsorted(judged_all.query_ids.astype(str), ids)
        pos = np.where((pos < judged_all.query_ids.size)
                       & (judged_all.query_ids.astype(str)[np.minimum(
                           pos, judged_all.query_ids.size - 1)] == ids), pos, -1)
        judged = judged_all.take(pos)
        vals = compute_measures(MEASURES, offsets=ranked.offsets, grades=gr, judged=judged)
        for m in MEASURES:
            out[m][name] = pd.Series(vals[m], index=ids)
    return {m: pd.DataFrame(v).loc[qids] for m, v in out.items()}


def _strata(judge_scores_rel, qids):
    """Terciles of the judge's number of relevant documents per query."""
    ranks = judge_scores_rel.rank(method="first")
    return pd.Series(np.minimum((3 * (ranks - 1) // len(ranks)).astype(int), 2).to_numpy(),
                     index=qids)


def _sample(gen, qids, share, strata):
    n = max(2, round(share * qids.size))
    if strata is None:
        return np.sort(gen.choice(qids, size=n, replace=False))
    chosen = []
    for h in np.unique(strata.to_numpy()):
        members = qids[strata.to_numpy() == h]
        nh = max(2, round(share * members.size))
        chosen.append(gen.choice(members, size=nh, replace=False))
    return np.sort(np.concatenate(chosen))


def _replicate(gen, qrels, qids, runs, truth_scores, truth, flip, shares, use_strata,
               populations, variances):
    """One judge draw and, for each share, one human-labelled subset: coverage rows."""
    judge = simulate_judge(qrels, judge_confusion(range(5), flip), rng=gen)
    jscores = _scores(qrels, qids, runs, judge.qrels.grade)
    strata = None
    if use_strata:
        jq = judged_from_qrels(judge.qrels)
        nrel = pd.Series(jq.num_rel(1), index=jq.query_ids.astype(str)).loc[qids]
        strata = _strata(nrel, qids)
    rows = []
    for share in shares:
        chosen = _sample(gen, qids, share, strata)
        human = {m: truth_scores[m].loc[chosen] for m in MEASURES}
        for population in populations:
            for variance in variances:
                res = ppi_scores(human, jscores, population=population, variance=variance,
                                 n_resamples=99, rng=gen,
                                 strata=None if strata is None else strata.to_dict())
                for kind, f, key in (("system", res.systems, "estimate"),
                                     ("pair", res.pairs, "difference")):
                    if variance != variances[0]:
                        f = f[f.method == "ppi"]
                    target = f["system"] if kind == "system" else f["a"] + " - " + f["b"]
                    value = np.array([truth[(m, t)] for m, t in
                                      zip(f.measure, target, strict=True)])
                    method = np.where(f.method == "ppi", "ppi-" + variance, f.method)
                    rows.append(pd.DataFrame({
                        "population": population, "share": share, "kind": kind,
                        "target": target.to_numpy(), "measure": f.measure.to_numpy(),
                        "method": method,
                        "covered": ((f.ci_low <= value) & (value <= f.ci_high)).to_numpy(),
                        "width": (f.ci_high - f.ci_low).to_numpy(),
                        "error": (f[key] - value).to_numpy(),
                        "moderated": f.moderated.to_numpy(),
                        "fallback": f.fallback.to_numpy(),
                        "n_discordant": f.n_discordant.to_numpy()}))
    return pd.concat(rows, ignore_index=True), judge.flip_rate


def _truth(truth_scores):
    out = {}
    for m, f in truth_scores.items():
        mean = f.mean()
        for s in f.columns:
            out[(m, s)] = float(mean[s])
        cols = list(f.columns)
        for i in range(len(cols)):
            for j in range(i + 1, len(cols)):
                out[(m, f"{cols[i]} - {cols[j]}")] = float(mean[cols[i]] - mean[cols[j]])
    return out


def _summarise(frame, reps):
    """Per (population, flip, share, kind, measure, method, target): coverage and widths."""
    g = frame.groupby(["population", "flip", "share", "strata", "kind", "measure", "method",
                       "target"], sort=False)
    per_target = g.agg(coverage=("covered", "mean"), width=("width", "median"),
                       bias=("error", "mean"), moderated=("moderated", "mean"),
                       fallback=("fallback", "mean"),
                       n_discordant=("n_discordant", "median")).reset_index()
    human = per_target[per_target.method == "human"].set_index(
        ["population", "flip", "share", "strata", "kind", "measure", "target"])["width"]
    per_target["width_ratio"] = per_target.apply(
        lambda r: r.width / human.loc[(r.population, r.flip, r.share, r.strata, r.kind,
                                       r.measure, r.target)], axis=1)
    se = math.sqrt(0.95 * 0.05 / reps)
    per_target["within_mc"] = (per_target.coverage - 0.95).abs() <= 2.576 * se
    return per_target


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=600)
    ap.add_argument("--flips", type=float, nargs="+", default=[1 / 12, 0.25])
    ap.add_argument("--shares", type=float, nargs="+", default=[0.2, 0.3, 0.5])
    ap.add_argument("--populations", nargs="+", default=["finite"],
                    choices=["finite", "infinite"])
    ap.add_argument("--variances", nargs="+", default=["moderated", "sample"],
                    choices=["moderated", "sample"])
    ap.add_argument("--seed", type=int, default=23)
    ap.add_argument("--strata", action="store_true", help="also a stratified design")
    ap.add_argument("--results", default=str(HERE / "results_judge.md"))
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    qrels, qids, runs = _setup()
    truth_scores = _scores(qrels, qids, runs, qrels.grade)
    truth = _truth(truth_scores)
    gen = np.random.default_rng(args.seed)
    parts, flip_rates = [], {}
    designs = [False, True] if args.strata else [False]
    for flip in args.flips:
        for use_strata in designs:
            rates = []
            for _ in range(args.reps):
                rows, rate = _replicate(gen, qrels, qids, runs, truth_scores, truth, flip,
                                        args.shares, use_strata, args.populations,
                                        args.variances)
                rows["flip"], rows["strata"] = flip, use_strata
                parts.append(rows)
                rates.append(rate)
            flip_rates[flip] = float(np.mean(rates))
            print(f"flip {flip:.3f} strata {use_strata}: {time.perf_counter() - t0:.0f} s",
                  flush=True)
    frame = pd.concat(parts, ignore_index=True)
    per_target = _summarise(frame, args.reps)
    elapsed = time.perf_counter() - t0
    _write(per_target, args, flip_rates, elapsed)


def _write(per_target, args, flip_rates, elapsed):
    se = math.sqrt(0.95 * 0.05 / args.reps)
    cmd = (f"python benchmarks/bench_judge.py --reps {args.reps} --seed {args.seed}"
           f" --populations {' '.join(args.populations)}"
           f"{' --strata' if args.strata else ''}")
    lines = ["# Prediction-powered intervals on TREC CAsT 2021", "",
             f"`{cmd}` ({elapsed / 60:.1f} min on the shared 2-core machine). 5 runs, 158 "
             "queries, grades 0-4; human labels = the real qrels; the all-query human value "
             "is the target. Each replicate draws one judge and, for each share, one "
             "human-labelled subset. Nominal level 0.95; Monte-Carlo standard error of a "
             f"coverage {se:.4f} ({args.reps} replicates per cell); 'in band' = share of "
             "the targets (5 systems, or 10 pairs) whose coverage is within 2.576 standard "
             "errors (99 %) of 0.95; 'min' and 'max' over the targets. Widths are medians "
             "over replicates; 'ratio' = median width / median human-only width of the "
             "same target (median and max over the targets). `ppi-moderated` is the default "
             "(`variance=\"moderated\"`), `ppi-sample` the plain sample variance "
             "(`variance=\"sample\"`, ppi_py's); 'floored' and 'fallback': share of the "
             "intervals whose rectifier variance was raised to the pooled floor, or that "
             "fell back to the human-only estimate; 'disc.': median number of discordant "
             "labelled queries.",
             "", "Observed judge flip rates: " + ", ".join(
                 f"{k:.4f} -> {v:.4f}" for k, v in flip_rates.items()), ""]
    agg = per_target.groupby(["population", "flip", "share", "strata", "kind", "measure",
                              "method"], sort=False).agg(
        coverage=("coverage", "mean"), min_cov=("coverage", "min"),
        max_cov=("coverage", "max"), in_band=("within_mc", "mean"),
        width=("width", "median"), ratio=("width_ratio", "median"),
        max_ratio=("width_ratio", "max"), floored=("moderated", "mean"),
        fallback=("fallback", "mean"), disc=("n_discordant", "median")).reset_index()
    for population in args.populations:
        sub = agg[agg.population == population].drop(columns="population")
        lines += [f"## population = \"{population}\"", "",
                  "| flip | share | strata | kind | measure | method | coverage | min | max |"
                  " in band | median width | ratio (median) | ratio (max) | floored | "
                  "fallback | disc. |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in sub.itertuples(index=False):
            lines.append(f"| {r.flip:.3f} | {r.share:.1f} | {'yes' if r.strata else 'no'} | "
                         f"{r.kind} | {r.measure} | {r.method} | {r.coverage:.3f} | "
                         f"{r.min_cov:.3f} | {r.max_cov:.3f} | {r.in_band:.2f} | "
                         f"{r.width:.4f} | {r.ratio:.3f} | {r.max_ratio:.3f} | "
                         f"{r.floored:.2f} | {r.fallback:.3f} | {r.disc:.0f} |")
        lines.append("")
    Path(args.results).write_text("\n".join(lines) + "\n")
    per_target.to_json(Path(args.results).with_suffix(".json"), orient="records", indent=1)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
