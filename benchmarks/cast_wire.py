"""What clusters=, family='measures', control= and segment_by= change in compare for the
bundled CAsT 2021 runs (trec_eval ties, rel >= 1; randomization test, Holm, B = 20000).

Run: PYTHONPATH=. python benchmarks/cast_wire.py   (writes benchmarks/results_cast_wire.md)
"""

from pathlib import Path

import mrrstats

MEASURES = ["RR", "nDCG@10", "AP"]


def n_sig(cmp):
    return {m: int(cmp.results[m].reject.sum()) for m in cmp.measures}


def main():
    d = mrrstats.datasets.cast2021()
    ev = mrrstats.evaluate(d.qrels, d.runs, MEASURES)
    queries = ev.scores("RR").index
    conv = {q: q.split("_")[0] for q in queries}
    kw = dict(n_resamples=20000, rng=2021)
    out = [f"# compare on CAsT 2021 ({len(queries)} turns, {len(set(conv.values()))} "
           "conversations; 5 runs, 10 pairs per measure)", ""]
    plain = mrrstats.compare(ev, **kw)
    clus = mrrstats.compare(ev, clusters=conv, **kw)
    fam = mrrstats.compare(ev, family="measures", **kw)
    famc = mrrstats.compare(ev, family="measures", clusters=conv, **kw)
    out += ["| setting | " + " | ".join(MEASURES) + " |", "|---|" + "---|" * len(MEASURES)]
    for name, c in [("queries independent, Holm per measure", plain),
                    ("one sign flip per conversation, Holm per measure", clus),
                    ("queries independent, one Holm over 3 x 10 = 30 tests", fam),
                    ("per conversation, one Holm over 30 tests", famc)]:
        s = n_sig(c)
        out.append(f"| {name} | " + " | ".join(f"{s[m]} of 10" for m in MEASURES) + " |")
    out += ["", "Significant pairs (randomization test, B = 20000, seed 2021).", ""]
    for m in MEASURES:
        a, b = plain.results[m], clus.results[m]
        flips = [f"{x} vs {y}: p {p:.4f} -> {q:.4f}"
                 for x, y, p, q, r1, r2 in zip(a.a, a.b, a.pvalue_adjusted, b.pvalue_adjusted,
                                               a.reject, b.reject, strict=True) if r1 != r2]
        out.append(f"{m}: decisions that change with clusters: "
                   + ("; ".join(flips) if flips else "none"))
    out.append("")
    for test in ("t", "maxt", "dunnett"):
        base = mrrstats.compare(ev, control="org_manual_bm25.run", test=test, **kw)
        out.append(f"control org_manual_bm25.run, test={test}: significant "
                   + ", ".join(f"{m} {v} of 4" for m, v in n_sig(base).items()))
    out.append("")
    board = plain.leaderboard("RR")
    out.append("Leaderboard RR (Holm decisions): "
               + "; ".join(f"{s} rank {r.rank_low}-{r.rank_high} group {r.letters}"
                           for s, r in board.iterrows()))
    seg = mrrstats.compare(ev, measure="RR", test="t",
                           segment_by={q: ("first turns" if int(q.split("_")[1]) <= 4
                                           else "later turns") for q in queries})
    f = seg.segments.to_frame()
    out.append("")
    out.append("Segments (turn <= 4 vs later), RR, paired t within segment, Holm across the 2 "
               f"segments: {int(f['reject'].sum())} of {len(f)} segment x pair tests "
               "significant")
    text = "\n".join(out) + "\n"
    Path(__file__).with_name("results_cast_wire.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
