"""Per-query and aggregate conformance with trec_eval on real data.

Reference values: the expected outputs of trec_eval shipped with its own
regression tests (``tests/data/trec_eval_test``, usnistgov/trec_eval @ f4253652;
the command producing each file is the one in trec_eval's Makefile ``quicktest``
target, quoted per case below) and per-query ``trec_eval -q -m all_trec`` outputs
for the five TREC CAsT 2021 baselines (``tests/data/cast2021/expected``).
trec_eval prints 4 decimals, so a value matches when it is within half a unit of
the last printed digit.
"""

from __future__ import annotations

import gzip
import re
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

import mrrstats
from tests.conftest import record_conformance
from tests.reference_data import CAST_QRELS, data_path

TOL = 0.5e-4 + 1e-12

_PATTERNS = [
    (re.compile(r"^recip_rank$"), lambda m: "RR"),
    (re.compile(r"^map$"), lambda m: "AP"),
    (re.compile(r"^map_cut_(\d+)$"), lambda m: f"AP@{m.group(1)}"),
    (re.compile(r"^ndcg$"), lambda m: "nDCG"),
    (re.compile(r"^ndcg_cut_(\d+)$"), lambda m: f"nDCG@{m.group(1)}"),
    (re.compile(r"^P_(\d+)$"), lambda m: f"P@{m.group(1)}"),
    (re.compile(r"^recall_(\d+)$"), lambda m: f"R@{m.group(1)}"),
    (re.compile(r"^success_(\d+)$"), lambda m: f"Success@{m.group(1)}"),
    # trec_eval's other measures, under ir_measures' names (metrics.trec_measures)
    (re.compile(r"^bpref$"), lambda m: "Bpref"),
    (re.compile(r"^Rprec$"), lambda m: "Rprec"),
    (re.compile(r"^infAP$"), lambda m: "infAP"),
    (re.compile(r"^num_ret$"), lambda m: "NumRet"),
    (re.compile(r"^num_rel$"), lambda m: "NumRel"),
    (re.compile(r"^num_rel_ret$"), lambda m: "NumRelRet"),
    (re.compile(r"^set_P$"), lambda m: "SetP"),
    (re.compile(r"^set_recall$"), lambda m: "SetR"),
    (re.compile(r"^set_F$"), lambda m: "SetF"),
    (re.compile(r"^rbp$"), lambda m: "RBP(p=0.9)"),
    (re.compile(r"^rbp_resid$"), lambda m: "RBPResid(p=0.9)"),
    (re.compile(r"^Rndcg$"), lambda m: "Rndcg"),
    (re.compile(r"^iprec_at_recall_(\d\.\d+)$"), lambda m: f"IPrec@{m.group(1)}"),
]
# trec_eval's summary line of these is not the mean over queries but (name: (ours, stat))
_AGGREGATES = {"num_ret": ("NumRet", "sum"), "num_rel": ("NumRel", "sum"),
               "num_rel_ret": ("NumRelRet", "sum"), "gm_map": ("AP", "gmean"),
               "gm_bpref": ("Bpref", "gmean")}


def _our_name(trec_name: str) -> str | None:
    for pattern, make in _PATTERNS:
        m = pattern.match(trec_name)
        if m:
            return str(mrrstats.parse_measure(make(m)))  # canonical: IPrec@0.10 is IPrec@0.1
    return None


def read_trec_eval_output(path):
    """{measure: {query: value}} for the measures mrrstats implements, plus num_q."""
    opener = gzip.open if str(path).endswith(".gz") else open
    values: dict[str, dict[str, float]] = defaultdict(dict)
    num_q = None
    with opener(path, "rt") as fh:
        for line in fh:
            parts = line.split()
            if len(parts) != 3:
                continue
            name, query, value = parts
            if name == "num_q" and query == "all":
                num_q = int(value)
            ours = _our_name(name)
            if name in _AGGREGATES and query == "all":
                ours, stat = _AGGREGATES[name]
                values[f"{stat}:{ours}"][query] = float(value)
            elif ours is not None:
                values[ours][query] = float(value)
    return dict(values), num_q


def check_against(expected_path, qrels, run, *, label, **kwargs):
    expected, num_q = read_trec_eval_output(expected_path)
    assert expected, f"no comparable measures in {expected_path}"
    measures = sorted({key.partition(":")[2] or key for key in expected})
    ev = mrrstats.evaluate(qrels, run, measures, **kwargs)
    (name,) = ev.runs
    per_q = ev.values[name]
    aggs = {stat: ev.aggregate(stat).loc[name] for stat in ("mean", "sum", "gmean")}
    compared = 0
    per_family: dict[str, int] = defaultdict(int)
    mismatches = []
    for key, by_query in expected.items():
        stat, _, measure = key.rpartition(":")
        for query, want in by_query.items():
            got = aggs[stat or "mean"][measure] if query == "all" else \
                per_q.loc[query, measure]
            compared += 1
            per_family[mrrstats.parse_measure(measure).name] += 1
            if not abs(got - want) <= TOL:
                mismatches.append((key, query, want, got))
    assert not mismatches, f"{len(mismatches)} mismatches, first: {mismatches[:5]}"
    # The evaluated query set is trec_eval's (num_q).
    if num_q is not None:
        assert ev.counts[name].evaluated == num_q
    # Every query trec_eval printed is one we evaluated, and vice versa.
    printed = {q for v in expected.values() for q in v if q != "all"}
    if printed:
        assert printed == set(per_q.index)
    record_conformance(label, compared)
    for family, n in per_family.items():
        record_conformance(f"measure {family}", n)
    return compared


def te(*parts):
    return data_path("trec_eval_test", *parts)


# Makefile: ./trec_eval test/qrels.test test/results.test | diff - test/out.test
def test_out_test_default_measures():
    n = check_against(te("out.test"), te("qrels.test"), te("results.test"), label="out.test")
    assert n >= 10


# Makefile: ./trec_eval -m all_trec test/qrels.test test/results.test | diff - test/out.test.a
def test_out_test_a_all_trec():
    check_against(te("out.test.a"), te("qrels.test"), te("results.test"), label="out.test.a")


# Makefile: ./trec_eval -m all_trec -q test/qrels.test test/results.test | diff - test/out.test.aq
def test_out_test_aq_per_query():
    n = check_against(te("out.test.aq"), te("qrels.test"), te("results.test"),
                      label="out.test.aq")
    assert n > 100


# The same, with the commented qrels (trec_eval treats '#' lines as comments).
def test_qrels_with_comments_same_as_plain():
    check_against(te("out.test.aq"), te("qrels.test.with-comments"), te("results.test"),
                  label="out.test.aq (qrels.test.with-comments)")


# Makefile: ./trec_eval -m all_trec -q -c test/qrels.test test/results.trunc | diff - test/out.test.aqc
def test_out_test_aqc_missing_queries_count_as_zero():
    n = check_against(te("out.test.aqc"), te("qrels.test"), te("results.trunc"),
                      label="out.test.aqc (-c)", queries="qrels")
    assert n > 100
    ev = mrrstats.evaluate(te("qrels.test"), te("results.trunc"), ["RR"], queries="qrels")
    counts = ev.counts["results.trunc"]
    assert counts.qrels_only == ("302",)
    assert ev.aggregate().loc["results.trunc", "RR"] == pytest.approx(0.1667, abs=TOL)


# Makefile: ./trec_eval -m all_trec -q -c -M100 test/qrels.test test/results.trunc | diff - test/out.test.aqcM
def test_out_test_aqcm_max_depth():
    check_against(te("out.test.aqcM"), te("qrels.test"), te("results.trunc"),
                  label="out.test.aqcM (-c -M100)", queries="qrels", max_depth=100)


# Makefile: ./trec_eval -m all_trec -mrelstring.20 -q -l2 test/qrels.rel_level test/results.test | diff - test/out.test.aql
def test_out_test_aql_relevance_level_2():
    check_against(te("out.test.aql"), te("qrels.rel_level"), te("results.test"),
                  label="out.test.aql (-l2)", rel=2)


# Makefile: ./trec_eval -q ... -m P.5,7,3 -m recall.20,2000 ... -mndcg_cut.10,20,23.4
#           -msuccess.2,5,20 test/qrels.test test/results.test | diff - test/out.test.meas_params
def test_out_test_meas_params():
    expected, _ = read_trec_eval_output(te("out.test.meas_params"))
    assert {"P@3", "P@5", "P@7", "nDCG@10", "nDCG@20", "nDCG@23", "Success@2", "Success@5",
            "Success@20", "R@20", "R@2000"} <= set(expected)
    check_against(te("out.test.meas_params"), te("qrels.test"), te("results.test"),
                  label="out.test.meas_params")


# trec_eval test/qrels.comment.test test/results.comment.test | diff - test/out.comment.test
# (real TREC RAG 2024 data; document ids contain '#').
def test_out_comment_test_doc_ids_with_hash():
    check_against(te("out.comment.test"), te("qrels.comment.test"), te("results.comment.test"),
                  label="out.comment.test")
    ev = mrrstats.evaluate(te("qrels.comment.test"), te("results.comment.test"), ["RR"])
    assert ev.aggregate().iloc[0]["RR"] == pytest.approx(0.8595, abs=TOL)


CAST_RUNS = ["org_convdr", "org_convdr_bert", "org_manual_ance", "org_manual_ance_bert",
             "org_manual_bm25"]


# trec_eval -q -m all_trec -l{1,2} qrels run (tests/data/cast2021/expected/*.all_trec.q.l*.txt.gz)
@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("run", CAST_RUNS)
def test_cast2021_per_query(run, level):
    expected = data_path("cast2021", "expected", f"{run}.all_trec.q.l{level}.txt.gz")
    n = check_against(expected, data_path(*CAST_QRELS),
                      data_path("cast2021", "runs", f"{run}.run.gz"),
                      label=f"cast2021 -l{level}", rel=level)
    assert n > 158 * 20


def test_cast2021_bundled_copy_matches_summary():
    """The bundled example data gives trec_eval's summary table (summary_trec_eval10_l1.tsv)."""
    path = data_path("cast2021", "summary_trec_eval10_l1.tsv")
    lines = path.read_text().splitlines()
    header = lines[0].split("\t")
    data = mrrstats.datasets.cast2021()
    ev = mrrstats.evaluate(data.qrels, data.runs, ["RR", "AP", "P@10", "nDCG", "nDCG@10",
                                                   "Success@1", "Success@10"])
    agg = ev.aggregate()
    names = {"recip_rank": "RR", "map": "AP", "P_10": "P@10", "ndcg": "nDCG",
             "ndcg_cut_10": "nDCG@10", "success_1": "Success@1", "success_10": "Success@10"}
    compared = 0
    for line in lines[1:]:
        row = dict(zip(header, line.split("\t"), strict=True))
        run = row["run"] + ".run"
        assert ev.counts[run].evaluated == int(row["num_q"])
        stats = ev.query_stats[ev.query_stats["run"] == run]
        assert stats["num_ret"].sum() == int(row["num_ret"])
        assert stats["num_rel"].sum() == int(row["num_rel"])
        assert stats["num_rel_ret"].sum() == int(row["num_rel_ret"])
        for trec_name, ours in names.items():
            assert abs(agg.loc[run, ours] - float(row[trec_name])) <= TOL
            compared += 1
    record_conformance("cast2021 summary (bundled data)", compared)
    assert compared == 35


def test_query_stats_match_trec_eval_counts():
    """num_ret / num_rel / num_rel_ret per query equal trec_eval's (out.test.aq)."""
    want = defaultdict(dict)
    for line in te("out.test.aq").read_text().splitlines():
        name, query, value = line.split()
        if name in ("num_ret", "num_rel", "num_rel_ret") and query != "all":
            want[query][name] = int(value)
    ev = mrrstats.evaluate(te("qrels.test"), te("results.test"), ["RR"])
    stats = ev.query_stats.set_index("query")
    for query, row in want.items():
        for name, value in row.items():
            assert stats.loc[query, name] == value
    record_conformance("out.test.aq counts", sum(len(r) for r in want.values()))
    assert np.all(stats["num_judged"] > 0)


# trec_eval -q -m all_trec [-l2 | -M50 | -c] on the bundled CAsT runs with qrels where every
# third judgment is -1 ("pooled, not judged"): tests/data/trec_eval_extra/README.md
EXTRA = Path(__file__).resolve().parents[1] / "data" / "trec_eval_extra"
BUNDLED_RUNS = Path(mrrstats.__file__).resolve().parent / "data" / "cast2021" / "runs"


@pytest.mark.parametrize("expected, run, kwargs", [
    ("org_manual_bm25.sampled.all_trec.q.txt.gz", "org_manual_bm25", {}),
    ("org_convdr.sampled.all_trec.q.l2.txt.gz", "org_convdr", {"rel": 2}),
    ("org_manual_bm25.sampled.all_trec.q.M50.txt.gz", "org_manual_bm25", {"max_depth": 50}),
])
def test_sampled_qrels_pooled_unjudged(expected, run, kwargs):
    n = check_against(EXTRA / expected, EXTRA / "cast2021.qrels.sampled.gz",
                      BUNDLED_RUNS / f"{run}.run.gz", label="cast2021 sampled qrels", **kwargs)
    assert n > 10_000  # 158 queries x 65 measures, and the summaries


def test_sampled_qrels_missing_queries_count_as_zero():
    frame = mrrstats.read_run(BUNDLED_RUNS / "org_convdr.run.gz").to_frame()
    trunc = frame[~frame["query"].astype(str).str.match(r"1[01]")]
    n = check_against(EXTRA / "org_convdr.trunc.sampled.all_trec.q.c.txt.gz",
                      EXTRA / "cast2021.qrels.sampled.gz", {"convdr.trunc": trunc},
                      label="cast2021 sampled qrels (-c)", queries="qrels")
    assert n > 10_000  # 158 queries x 65 measures, and the summaries


# gdeval.pl (TREC Web track) ERR@k and nDCG@k (gain 2^g - 1) per topic on two CAsT runs:
# tests/data/gdeval/README.md (gdeval prints 5 decimals)
GDEVAL = Path(__file__).resolve().parents[1] / "data" / "gdeval"


@pytest.mark.parametrize("k", [20, 10])
@pytest.mark.parametrize("run", ["org_manual_bm25", "org_convdr"])
def test_gdeval_per_topic(run, k):
    lines = (GDEVAL / f"{run}.gdeval.k{k}.csv").read_text().splitlines()
    assert lines[0] == f"runid,topic,ndcg@{k},err@{k}"
    data = mrrstats.datasets.cast2021()
    ev = mrrstats.evaluate(data.qrels, BUNDLED_RUNS / f"{run}.run.gz",
                           [f"nDCG(gain=exp)@{k}", f"ERR@{k}"])
    per_q = ev.values[ev.runs[0]]
    compared = 0
    for line in lines[1:]:
        _, topic, ndcg, err = line.split(",")
        query = f"{int(topic) // 1000}_{int(topic) % 1000}"
        assert abs(per_q.loc[query, f"nDCG(gain=exp)@{k}"] - float(ndcg)) <= 0.5e-5 + 1e-12
        assert abs(per_q.loc[query, f"ERR@{k}"] - float(err)) <= 0.5e-5 + 1e-12
        compared += 2
    assert compared == 2 * 158
    record_conformance("gdeval.pl (cast2021)", compared)
    for family in ("nDCG(gain=exp)", "ERR"):
        record_conformance(f"measure {family}", compared // 2)
