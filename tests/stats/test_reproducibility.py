"""reproducibility: repro_eval's measures (Breuer et al. 2020), equal to repro_eval 0.5.0.

The original experiment is two bundled TREC CAsT 2021 runs (baseline org_convdr, advanced
org_manual_ance); the reproduction reruns each with seeded noise on its scores (the same
documents, reordered as a non-deterministic rerun would). Replicability: the first ten
conversations (their qrels) are the original collection, the other nine the new one.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

import mrrstats

M = ["AP", "nDCG", "P@10", "RR", "nDCG@10"]
RUNS = ("baseline", "advanced")


def _write_run(path, run, seed=None, topics=None):
    f = mrrstats.read_run(run).to_frame()
    if topics is not None:
        f = f[f["query"].str.split("_").str[0].isin(topics)]
    if seed is not None:
        rng = np.random.default_rng(seed)
        gap = f.groupby("query")["score"].transform(lambda s: (s.max() - s.min()) / len(s))
        f = f.assign(score=f["score"] + rng.normal(0, 2.0, len(f)) * gap)
    f = f.sort_values(["query", "score"], ascending=[True, False])
    f["rank"] = f.groupby("query").cumcount() + 1
    with open(path, "w") as fh:
        for r in f.itertuples():
            fh.write(f"{r.query} Q0 {r.doc} {r.rank} {r.score:.8f} rep\n")
    return str(path)


def _write_qrels(path, qrels, topics):
    with gzip.open(qrels, "rt") as fh, open(path, "w") as out:
        for line in fh:
            if line.split()[0].split("_")[0] in topics:
                out.write(line)
    return str(path)


@pytest.fixture(scope="module")
def experiment(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("repro")
    d = mrrstats.datasets.cast2021()
    runs = {mrrstats.read_run(r).name: r for r in d.runs}
    ob, oa = runs["org_convdr.run"], runs["org_manual_ance.run"]
    rep = {
        "baseline": _write_run(tmp / "rb.run", ob, 1),
        "advanced": _write_run(tmp / "ra.run", oa, 2),
    }
    conv = sorted({q.split("_")[0] for q in mrrstats.read_run(ob).to_frame()["query"]})
    first, second = conv[:10], conv[10:]
    rpl = {
        "qrels": _write_qrels(tmp / "q1.txt", d.qrels, first),
        "reproduced_qrels": _write_qrels(tmp / "q2.txt", d.qrels, second),
        "original": {
            "baseline": _write_run(tmp / "ob2.run", ob, topics=first),
            "advanced": _write_run(tmp / "oa2.run", oa, topics=first),
        },
        "reproduced": {
            "baseline": _write_run(tmp / "rb2.run", ob, topics=second),
            "advanced": _write_run(tmp / "ra2.run", oa, topics=second),
        },
    }
    return {
        "qrels": str(d.qrels),
        "original": {"baseline": str(ob), "advanced": str(oa)},
        "reproduced": rep,
        "replicability": rpl,
    }


# repro_eval 0.5.0 on the experiment above (pytrec_eval per-topic scores):
#   from repro_eval.Evaluator import RpdEvaluator, RplEvaluator
#   ev = RpdEvaluator(qrels_orig_path=QRELS, run_b_orig_path=OB, run_a_orig_path=OA,
#                     run_b_rep_path=RB, run_a_rep_path=RA)
#   ev.trim(); ev.evaluate()
#   ev.ktu(), ev.rbo(), ev.rmse(), ev.nrmse(), ev.er(), ev.dri(), ev.ttest()
#   rl = RplEvaluator(qrels_orig_path=Q1, qrels_rpl_path=Q2, run_b_orig_path=OB2, ...)
#   rl.trim(); rl.evaluate(); rl.er(), rl.dri(), rl.ttest()
RPD = {
    "ktu": {"baseline": 0.17787068320941166, "advanced": 0.18288638395840207},
    "rbo": {"baseline": 0.8742679142825407, "advanced": 0.8747748266897887},
    "rmse": {
        "baseline": [
            0.02034717432137396,
            0.03058245196896257,
            0.04500351603704097,
            0.23372405756188963,
            0.04835027042966699,
        ],
        "advanced": [
            0.030045441464940974,
            0.04473917138096635,
            0.0631454018290477,
            0.20585581841709993,
            0.06363049722775592,
        ],
    },
    "nrmse": {
        "baseline": [
            0.024646496905120222,
            0.04176751580955115,
            0.056625196031901776,
            0.2562687444182321,
            0.061922060369914024,
        ],
        "advanced": [
            0.039234589279417996,
            0.06633585168674623,
            0.0826617916599552,
            0.2212561525004951,
            0.08686553776204,
        ],
    },
    "er": [
        0.9529427823244001,
        0.9849086454542653,
        1.0149999999999997,
        0.875982661329385,
        0.987361676789906,
    ],
    "delta_ri": [
        0.010760776352357504,
        0.0005946662626009069,
        -0.010801526335292855,
        0.02216463745047531,
        -0.005603120852398724,
    ],
    "pvalues": {
        "baseline": [
            0.08741473820053092,
            0.04952045436797201,
            0.033460875919200224,
            0.605307454805025,
            0.02343544521739091,
        ],
        "advanced": [
            0.014865666031999944,
            0.07251469412696922,
            0.25813581198477503,
            0.1091676789798833,
            0.03627182297979668,
        ],
    },
}
RPL = {
    "er": [
        1.152527666290259,
        0.9066607943547637,
        1.4452624839948784,
        1.2439780664831357,
        1.1801978462498228,
    ],
    "delta_ri": [
        -0.02664483960062658,
        0.04408266251950743,
        -0.11440677966101681,
        -0.050554051358007474,
        -0.06199349734223436,
    ],
    "pvalues": {
        "baseline": [
            0.6832220055723192,
            0.6121764098950471,
            0.9441613307721375,
            0.6717261469819173,
            0.8654621218863959,
        ],
        "advanced": [
            0.44477961870982663,
            0.8096921040766315,
            0.37342717601483605,
            0.9717205973142619,
            0.44927718796415894,
        ],
    },
}


def test_reproducibility_equals_repro_eval_pasted(experiment):
    res = mrrstats.reproducibility(
        experiment["qrels"],
        experiment["original"],
        experiment["reproduced"],
        measures=M,
        n_resamples=None,
    )
    assert res.kind == "reproducibility" and list(res.measures) == M
    for r in RUNS:
        assert res.ktu[r] == pytest.approx(RPD["ktu"][r], abs=1e-12)
        assert res.rbo[r] == pytest.approx(RPD["rbo"][r], abs=1e-12)
        np.testing.assert_allclose(res.rmse.loc[r, M], RPD["rmse"][r], rtol=1e-10)
        np.testing.assert_allclose(res.nrmse.loc[r, M], RPD["nrmse"][r], rtol=1e-10)
        np.testing.assert_allclose(res.pvalues.loc[r, M], RPD["pvalues"][r], rtol=1e-9)
    np.testing.assert_allclose(res.er[M], RPD["er"], rtol=1e-10)
    np.testing.assert_allclose(res.delta_ri[M], RPD["delta_ri"], rtol=1e-9, atol=1e-15)


def test_replicability_equals_repro_eval_pasted(experiment):
    rpl = experiment["replicability"]
    res = mrrstats.reproducibility(
        rpl["qrels"],
        rpl["original"],
        rpl["reproduced"],
        measures=M,
        reproduced_qrels=rpl["reproduced_qrels"],
        n_resamples=None,
    )
    assert res.kind == "replicability" and res.ktu is None and res.rmse is None
    assert res.n_queries["original"] != res.n_queries["reproduced"]
    np.testing.assert_allclose(res.er[M], RPL["er"], rtol=1e-10)
    np.testing.assert_allclose(res.delta_ri[M], RPL["delta_ri"], rtol=1e-9, atol=1e-15)
    for r in RUNS:
        np.testing.assert_allclose(res.pvalues.loc[r, M], RPL["pvalues"][r], rtol=1e-9)


def test_equals_repro_eval_live(experiment):
    pytest.importorskip("repro_eval")
    from repro_eval.Evaluator import RpdEvaluator, RplEvaluator

    o, p = experiment["original"], experiment["reproduced"]
    ev = RpdEvaluator(
        qrels_orig_path=experiment["qrels"],
        run_b_orig_path=o["baseline"],
        run_a_orig_path=o["advanced"],
        run_b_rep_path=p["baseline"],
        run_a_rep_path=p["advanced"],
    )
    ev.trim()
    ev.evaluate()
    res = mrrstats.reproducibility(experiment["qrels"], o, p, measures=M, n_resamples=None)
    for r in RUNS:
        assert res.ktu[r] == pytest.approx(ev.ktu()[r], abs=1e-12)
        assert res.rbo[r] == pytest.approx(ev.rbo()[r], abs=1e-12)
        for m in M:
            assert res.rmse.loc[r, m] == pytest.approx(ev.rmse()[r][m], rel=1e-10, abs=1e-15)
            assert res.nrmse.loc[r, m] == pytest.approx(ev.nrmse()[r][m], rel=1e-10, abs=1e-15)
            assert res.pvalues.loc[r, m] == pytest.approx(ev.ttest()[r][m], rel=1e-9)
    for m in M:
        assert res.er[m] == pytest.approx(ev.er()[m], rel=1e-10)
        assert res.delta_ri[m] == pytest.approx(ev.dri()[m], rel=1e-9, abs=1e-15)
    rpl = experiment["replicability"]
    rl = RplEvaluator(
        qrels_orig_path=rpl["qrels"],
        qrels_rpl_path=rpl["reproduced_qrels"],
        run_b_orig_path=rpl["original"]["baseline"],
        run_a_orig_path=rpl["original"]["advanced"],
        run_b_rep_path=rpl["reproduced"]["baseline"],
        run_a_rep_path=rpl["reproduced"]["advanced"],
    )
    rl.trim()
    rl.evaluate()
    res = mrrstats.reproducibility(
        rpl["qrels"],
        rpl["original"],
        rpl["reproduced"],
        measures=M,
        reproduced_qrels=rpl["reproduced_qrels"],
        n_resamples=None,
    )
    for m in M:
        assert res.er[m] == pytest.approx(rl.er()[m], rel=1e-10)
        for r in RUNS:
            assert res.pvalues.loc[r, m] == pytest.approx(rl.ttest()[r][m], rel=1e-9)


def test_identical_reproduction_is_perfect(experiment):
    o = experiment["original"]
    res = mrrstats.reproducibility(
        experiment["qrels"], o, dict(o), measures=["AP", "RR"], n_resamples=200, rng=0
    )
    assert (res.ktu == 1).all()
    # repro_eval's RBO counts the overlap down to depth 1000: a list of L < 1000 documents
    # reproduced exactly scores sum_i p^i min(i + 1, L)/(i + 1) / sum_i p^i, not 1
    w = 0.95 ** np.arange(1000)
    lengths = mrrstats.read_run(o["baseline"]).to_frame().groupby("query").size()
    per = res.rbo_per_topic["baseline"]
    want = [
        (w * np.minimum(np.arange(1, 1001), lengths[t]) / np.arange(1, 1001)).sum() / w.sum()
        for t in per.index
    ]
    np.testing.assert_allclose(per.to_numpy(), want, rtol=1e-12)
    assert (res.rmse.to_numpy() == 0).all() and (res.pvalues.to_numpy() == 1).all()
    assert (res.er == 1).all() and (res.delta_ri == 0).all()
    iv = res.intervals
    np.testing.assert_allclose(iv[["er_low", "er_high"]].to_numpy(), 1.0)


def test_bootstrap_intervals(experiment):
    a = mrrstats.reproducibility(
        experiment["qrels"],
        experiment["original"],
        experiment["reproduced"],
        measures=["AP", "nDCG@10"],
        n_resamples=500,
        rng=4,
    )
    b = mrrstats.reproducibility(
        experiment["qrels"],
        experiment["original"],
        experiment["reproduced"],
        measures=["AP", "nDCG@10"],
        n_resamples=500,
        rng=4,
    )
    assert a.intervals.equals(b.intervals) and a.seed == 4
    iv = a.intervals
    assert ((iv["er_low"] <= a.er) & (a.er <= iv["er_high"])).all()
    assert ((iv["delta_ri_low"] <= a.delta_ri) & (a.delta_ri <= iv["delta_ri_high"])).all()
    frame = a.to_frame()
    assert {"er", "delta_ri", "er_low", "pvalue_baseline", "rmse_advanced"} <= set(frame)
    assert "ER" in a.summary()


def test_bad_input_is_refused(experiment):
    o, p = experiment["original"], experiment["reproduced"]
    with pytest.raises(mrrstats.ParameterError, match="`reproduced`"):
        mrrstats.reproducibility(experiment["qrels"], o, {"baseline": p["baseline"]})
    with pytest.raises(mrrstats.ParameterTypeError, match="`original`"):
        mrrstats.reproducibility(experiment["qrels"], [o["baseline"]], p)
    with pytest.raises(mrrstats.ParameterError, match="rbo_p"):
        mrrstats.reproducibility(experiment["qrels"], o, p, rbo_p=1.5)
    with pytest.raises(mrrstats.MrrstatsError, match="queries"):
        mrrstats.reproducibility(experiment["qrels"], o, p, queries="all")
    assert Path(p["baseline"]).exists()
