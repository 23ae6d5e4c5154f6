"""The report's section "Across collections" (make_report(collections=...)): its numbers are
mrrstats.critical_difference's and mrrstats.across_collections' (which
tests/stats/test_critical.py and test_meta.py hold against scikit-posthocs, autorank and
R's metafor), Friedman's statistic is scipy's (as R's friedman.test), the methods go
into methods.md and references.bib, and a report without it is unchanged."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import mrrstats
from mrrstats.cli import main
from mrrstats.errors import ParameterError, ParameterTypeError
from mrrstats.report.analysis import recompute_report
from mrrstats.report.collections_section import COLLECTIONS_TABLES, TAU2_METHODS
from mrrstats.stats.references import REFERENCES

SEED = 11
B = 199


def _collection(rng, n_queries, shift):
    """TREC-like dicts of one collection: 3 systems, system x better by ``shift``."""
    qrels, runs = {}, {s: {} for s in ("x", "y", "z")}
    for i in range(n_queries):
        q = f"q{i}"
        qrels[q] = {f"d{j}": int(rng.random() < 0.3) for j in range(8)}
        qrels[q]["d0"] = 1
        for k, s in enumerate(runs):
            bonus = shift * (2 - k)
            runs[s][q] = {
                f"d{j}": float(rng.random() + (bonus if qrels[q][f"d{j}"] else 0))
                for j in range(8)
            }
    return qrels, runs


@pytest.fixture(scope="module")
def inputs():
    rng = np.random.default_rng(5)
    colls = {
        name: _collection(rng, n, shift)
        for name, n, shift in (
            ("alpha", 12, 0.3),
            ("beta", 10, 0.2),
            ("gamma", 14, 0.25),
            ("delta", 9, 0.1),
        )
    }
    return colls


@pytest.fixture(scope="module")
def report(inputs, tmp_path_factory):
    out = tmp_path_factory.mktemp("coll") / "report"
    qrels, runs = inputs["alpha"]
    res = mrrstats.make_report(
        qrels,
        runs,
        out=out,
        measures=["RR", "P@5"],
        n_resamples=B,
        rng=SEED,
        notebook=False,
        multiverse=False,
        progress=False,
        collections=inputs,
        alternative="two-sided",
    )
    return res


def _scores(inputs, measure):
    return {
        name: mrrstats.evaluate(q, r, [measure]).scores(measure) for name, (q, r) in inputs.items()
    }


def test_files_and_settings(report):
    files = set(report.files)
    assert {f"results/{n}.csv" for n in COLLECTIONS_TABLES} <= files
    assert {
        "tables/collections.md",
        "tables/collections.tex",
        "tables/collections_pairs.md",
        "tables/collections_meta.md",
    } <= files
    s = report.data.settings["collections"]
    assert s["collections"] == ["alpha", "beta", "gamma", "delta"]
    assert s["measures"] == ["RR", "P@5"] and s["systems"] == ["x", "y", "z"]
    assert s["seed"] == [SEED, 30, 1] and s["n_queries"] == {
        "alpha": 12,
        "beta": 10,
        "gamma": 14,
        "delta": 9,
    }


def test_numbers_are_the_apis(report, inputs):
    d = report.data
    gen = np.random.default_rng([SEED, 30, 1])  # the section's stream, measure by measure
    for m in ("RR", "P@5"):
        per = {c: f[["x", "y", "z"]].dropna() for c, f in _scores(inputs, m).items()}
        cd = mrrstats.critical_difference(per, alpha=0.05, measure=m, n_resamples=B, rng=gen)
        ranks = d.collections_ranks[d.collections_ranks["measure"] == m]
        np.testing.assert_allclose(ranks["average_rank"], cd.average_ranks.to_numpy())
        np.testing.assert_allclose(
            ranks[["ci_low", "ci_high"]], cd.rank_intervals[["ci_low", "ci_high"]].to_numpy()
        )
        t = d.collections_tests.set_index("measure").loc[m]
        assert t["critical_difference"] == pytest.approx(cd.critical_difference)
        assert json.loads(t["cliques"]) == [list(q) for q in cd.cliques]
        # Friedman's test of the collections' means: scipy (tie-corrected, as R's
        # friedman.test(means))
        means = np.array([[f[s].mean() for s in ("x", "y", "z")] for f in per.values()])
        ref = stats.friedmanchisquare(*means.T)
        assert t["friedman"] == pytest.approx(ref.statistic, rel=1e-12)
        assert t["friedman_pvalue"] == pytest.approx(ref.pvalue, rel=1e-10)
        pairs = d.collections_pairs[d.collections_pairs["measure"] == m]
        np.testing.assert_allclose(pairs["pvalue_adjusted"], cd.pairs["pvalue_adjusted"])
        # the meta-analysis: the best average rank (no control) against each other system
        ref_sys = str(cd.average_ranks.index[0])
        meta = d.collections_meta[d.collections_meta["measure"] == m]
        assert set(meta["a"]) == {ref_sys} and len(meta) == 2 * len(TAU2_METHODS)
        for other in [s for s in ("x", "y", "z") if s != ref_sys]:
            acr = mrrstats.across_collections(
                {c: f[[ref_sys, other]] for c, f in per.items()},
                alternative="two-sided",
                tau2_methods=TAU2_METHODS,
            )
            got = meta[meta["b"] == other].set_index("method")
            for col in (
                "estimate",
                "ci_low",
                "ci_high",
                "tau2",
                "tau2_ci_low",
                "tau2_ci_high",
                "pvalue",
            ):
                np.testing.assert_allclose(got[col], acr.meta[col], rtol=1e-12, atol=1e-15)
            assert (got["k_hat_bonferroni"] == acr.k_hat["bonferroni"]).all()


def test_methods_and_references(report):
    methods = (report.path / "methods.md").read_text(encoding="utf-8")
    bib = (report.path / "references.bib").read_text(encoding="utf-8")
    assert methods.startswith("# Methods\n\n")
    assert "## Across collections (RR): average ranks and the critical difference" in methods
    assert "replicability and meta-analysis" in methods
    assert "[2 collections" not in methods and f"seeded with [{SEED}, 30, 1]" in methods
    cited = set(re.findall(r"@([\w-]+)", methods.split("```latex")[0] + methods))
    cited &= set(REFERENCES)
    keys = set(re.findall(r"^@\w+\{([\w-]+),", bib, flags=re.M))
    assert {
        "friedman1937",
        "iman1980",
        "nemenyi1963",
        "demsar2006",
        "dror2017",
        "dersimonian1986",
        "viechtbauer2005",
        "viechtbauer2007",
    } <= keys
    assert cited <= keys  # every work named has its entry
    assert len(keys) == bib.count("\n@") + 1  # each entry once


def test_saved_and_recomputed(report):
    loaded = mrrstats.load_report(report.path)
    for name in COLLECTIONS_TABLES:
        pd.testing.assert_frame_equal(
            getattr(loaded, name), getattr(report.data, name), check_dtype=False
        )
    again = recompute_report(report.path).tables()
    for name in ("collections.md", "collections_pairs.md", "collections_meta.md"):
        assert again[name] == (report.path / "tables" / name).read_text(encoding="utf-8")
    assert "Friedman chi^2" in again["collections.md"]


def test_score_frames_and_control(inputs, tmp_path):
    rr = _scores(inputs, "RR")
    qrels, runs = inputs["alpha"]
    res = mrrstats.make_report(
        qrels,
        runs,
        out=tmp_path,
        measures="RR",
        n_resamples=B,
        rng=SEED,
        notebook=False,
        multiverse=False,
        progress=False,
        collections=rr,
        control="z",
    )
    meta = res.data.collections_meta
    assert set(meta["a"]) == {"z"} and set(meta["b"]) == {"x", "y"}
    assert res.data.settings["collections"]["reference"] == "z"


def test_clusters_as_collections(tmp_path):
    data = mrrstats.datasets.cast2021()
    res = mrrstats.make_report(
        data.qrels,
        data.runs,
        out=tmp_path,
        measures="nDCG@10",
        n_resamples=B,
        rng=1,
        notebook=False,
        multiverse=False,
        progress=False,
        collections="clusters",
    )
    r = res.data.collections_ranks.set_index("system")["average_rank"]
    # the 19 conversations of CAsT 2021 as collections: the critical_difference docstring's
    ev = mrrstats.evaluate(data.qrels, data.runs, ["nDCG@10"]).scores("nDCG@10")
    topics = ev.index.str.split("_").str[0]
    cd = mrrstats.critical_difference(
        {t: ev[topics == t] for t in topics.unique()}, n_resamples=99
    )
    pd.testing.assert_series_equal(r, cd.average_ranks, check_names=False)
    assert res.data.settings["collections"]["n_queries"]["106"] == int((topics == "106").sum())


def test_no_section_without_collections(inputs, tmp_path):
    qrels, runs = inputs["alpha"]
    res = mrrstats.make_report(
        qrels,
        runs,
        out=tmp_path,
        measures="RR",
        n_resamples=B,
        rng=SEED,
        notebook=False,
        multiverse=False,
        progress=False,
    )
    assert not any("collections" in f for f in res.files)
    assert "collections" not in res.data.settings and res.data.collections_ranks is None
    assert "Across collections" not in (tmp_path / "methods.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("collections", "words"),
    [
        ({"one": None}, "at least 2"),
        (["a", "b"], "mapping"),
        ("clusters", "clusters"),
        ("everything", "'clusters'"),
    ],
)
def test_bad_collections(inputs, tmp_path, collections, words):
    qrels, runs = inputs["alpha"]
    if isinstance(collections, dict):
        collections = {"one": inputs["beta"]}
    with pytest.raises((ParameterError, ParameterTypeError), match=words) as info:
        mrrstats.make_report(
            qrels,
            runs,
            out=tmp_path,
            measures="RR",
            n_resamples=B,
            rng=1,
            notebook=False,
            multiverse=False,
            progress=False,
            collections=collections,
        )
    assert "collections" in str(info.value)


def test_cli(tmp_path, capsys):
    rr = mrrstats.datasets.trec7_scores("RR").iloc[:, :4]  # four systems: a quick report
    argv = [
        "report",
        "--scores",
        f"RR={_csv(rr, tmp_path / 'all.csv')}",
        "--no-notebook",
        "--quiet",
        "--n-resamples",
        "99",
        "--seed",
        "3",
        "--out",
        str(tmp_path / "r"),
    ]
    for i in range(3):
        argv += [
            "--collection",
            f"c{i}={_csv(rr.iloc[15 * i : 15 * i + 15], tmp_path / f'{i}.csv')}",
        ]
    assert main(argv) == 0
    assert "tables/collections.md" in capsys.readouterr().out
    settings = json.loads((tmp_path / "r" / "settings.json").read_text(encoding="utf-8"))
    assert settings["collections"]["collections"] == ["c0", "c1", "c2"]
    # refused with one line naming the option: one collection, a spec without NAME=
    for bad in (argv[:-4], [*argv, "--collection", "c9"]):
        code = main(bad)
        err = capsys.readouterr().err
        assert code == 2 and len(err.strip().splitlines()) == 1 and "--collection" in err


def _csv(frame, path):
    frame.to_csv(path, index=False)
    return path


@pytest.mark.slow
def test_example_notebook_draws_the_diagram(tmp_path):
    assert (
        main(
            [
                "report",
                "--example",
                "--clusters-as-collections",
                "--quiet",
                "--no-multiverse",
                "--n-resamples",
                "199",
                "--out",
                str(tmp_path),
            ]
        )
        == 0
    )
    nb = json.loads((tmp_path / "report.ipynb").read_text(encoding="utf-8"))
    cell = next(c for c in nb["cells"] if c.get("id") == "collections")
    images = [o for o in cell["outputs"] if "image/png" in o.get("data", {})]
    assert len(images) == 3  # one diagram per measure (RR, nDCG@10, AP)
    assert not [o for o in cell["outputs"] if o.get("output_type") == "error"]
    assert "Across collections" in (tmp_path / "report.html").read_text(encoding="utf-8")


def test_left_out_queries_are_counted_and_shown(tmp_path):
    """queries="both" (trec_eval's default): judged queries a run did not retrieve for are
    left out with a QueriesLeftOutWarning, and the notebook says how many (issue #28)."""
    from mrrstats.errors import QueriesLeftOutWarning
    from mrrstats.report.notebook import add_left_out_cell, left_out_counts, template

    rng = np.random.default_rng(0)
    qrels = {f"q{i}": {d: int(rng.integers(0, 2)) for d in "abcdef"} for i in range(12)}
    runs = {
        s: {q: {d: float(rng.random()) for d in "abcdef"} for q in list(qrels)[:10]}
        for s in ("x", "y")
    }
    with pytest.warns(QueriesLeftOutWarning, match="2 of the 12 judged queries"):
        res = mrrstats.make_report(
            qrels,
            runs,
            out=tmp_path,
            measures="RR",
            n_resamples=99,
            rng=1,
            notebook=False,
            multiverse=False,
            progress=False,
        )
    assert left_out_counts(res.data.settings) == {"x": 2, "y": 2}
    nb = add_left_out_cell(template(), left_out_counts(res.data.settings))
    ids = [c.get("id") for c in nb.cells]
    assert ids[ids.index("setup") + 1] == "left-out"
    text = nb.cells[ids.index("left-out")].source
    assert "`x`: 2; `y`: 2" in text and 'queries="qrels"' in text
    # none left out (or queries="qrels"): no note, the notebook as before
    res2 = mrrstats.make_report(
        qrels,
        runs,
        out=tmp_path / "q",
        measures="RR",
        n_resamples=99,
        rng=1,
        notebook=False,
        multiverse=False,
        progress=False,
        queries="qrels",
    )
    assert left_out_counts(res2.data.settings) == {}


def test_a_pair_without_variation_is_named_not_meta_analysed(inputs, tmp_path):
    rr = {c: f.assign(w=f["x"] - 0.01) for c, f in _scores(inputs, "RR").items()}  # x - w = 0.01
    qrels, runs = inputs["alpha"]
    res = mrrstats.make_report(
        qrels,
        runs,
        out=tmp_path,
        measures="RR",
        n_resamples=B,
        rng=SEED,
        notebook=False,
        multiverse=False,
        progress=False,
        collections=rr,
        control="x",
    )
    notes = res.data.settings["collections"]["notes"]
    assert notes == [notes[0]] and notes[0].startswith("RR, x - w: not meta-analysed")
    assert set(res.data.collections_meta["b"]) == {"y", "z"}
    assert "x - w: not meta-analysed" in (tmp_path / "tables" / "collections_meta.md").read_text(
        encoding="utf-8"
    )


def _trec_files(qrels, runs, folder):
    """``(qrels path, [run paths])`` of TREC-format files holding the dicts."""
    folder.mkdir(parents=True, exist_ok=True)
    q = folder / "qrels.txt"
    q.write_text(
        "".join(f"{qid} 0 {d} {g}\n" for qid, docs in qrels.items() for d, g in docs.items()),
        encoding="utf-8",
    )
    paths = []
    for name, run in runs.items():
        lines = []
        for qid, docs in run.items():
            ranked = sorted(docs.items(), key=lambda kv: -kv[1])
            lines += [f"{qid} Q0 {d} {i + 1} {s!r} {name}\n" for i, (d, s) in enumerate(ranked)]
        path = folder / f"{name}.run"
        path.write_text("".join(lines), encoding="utf-8")
        paths.append(path)
    return q, paths


def test_cli_collections_of_qrels_and_runs(inputs, tmp_path, capsys):
    q0, runs0 = _trec_files(*inputs["alpha"], tmp_path / "main")
    argv = [
        "report",
        str(q0),
        *map(str, runs0),
        "-m",
        "RR",
        "--no-notebook",
        "--quiet",
        "--no-multiverse",
        "--n-resamples",
        "99",
        "--seed",
        "3",
        "--out",
        str(tmp_path / "r"),
    ]
    for name in ("beta", "gamma", "delta"):
        q, runs = _trec_files(*inputs[name], tmp_path / name)
        argv += ["--collection", f"{name}={q},{','.join(map(str, runs))}"]
    assert main(argv) == 0
    capsys.readouterr()
    s = json.loads((tmp_path / "r" / "settings.json").read_text(encoding="utf-8"))
    assert s["collections"]["collections"] == ["beta", "gamma", "delta"]
    assert s["collections"]["systems"] == ["x.run", "y.run", "z.run"]  # run file names
    assert s["collections"]["n_queries"] == {"beta": 10, "gamma": 14, "delta": 9}
