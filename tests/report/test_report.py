"""The report: regeneration of the committed example, determinism, content, validation."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest

import mrrstats
from mrrstats import cli
from mrrstats.datasets import trec7_scores
from mrrstats.report import load_report, make_report, recompute_report

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "reports" / "cast2021"
REPRODUCED = ["per_query.csv", "settings.json"]


def _tables(folder):
    return sorted(p.name for p in (folder / "tables").iterdir())


def _settings_with_current_versions(committed_text, regenerated_text):
    """The committed settings.json with its "versions" block replaced by this environment's.

    Everything else must match byte for byte; the versions only differ when the
    test runs with other package versions than the ones that made the example.
    """
    old = json.loads(committed_text)["versions"]
    new = json.loads(regenerated_text)["versions"]
    old_block = json.dumps({"versions": old}, indent=2)[2:-2]
    new_block = json.dumps({"versions": new}, indent=2)[2:-2]
    assert committed_text.count(old_block) == 1
    return committed_text.replace(old_block, new_block)


_NUMBER = re.compile(rb"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def _assert_same_content(new: Path, old: Path, rtol=1e-12):
    """Byte for byte, except floating-point numbers may differ in their last bits.

    numpy picks its exp/log/sum kernels by CPU (AVX2, AVX-512, AVX512_SPR...), and
    those differ in the last unit in the last place; a CSV written on one machine
    and regenerated on another can therefore differ in the 16th-17th digit. The
    text between numbers must match exactly, the numbers to ``rtol``.
    """
    a, b = new.read_bytes(), old.read_bytes()
    if a == b:
        return
    if new.suffix == ".npy":
        x, y = np.load(new), np.load(old)
        assert x.shape == y.shape and np.allclose(x, y, rtol=rtol, atol=0), new.name
        return
    assert _NUMBER.split(a) == _NUMBER.split(b), f"{new.name}: text differs"
    na, nb = _NUMBER.findall(a), _NUMBER.findall(b)
    assert len(na) == len(nb), new.name
    for u, v in zip(na, nb, strict=True):
        if u != v:
            assert np.isclose(float(u), float(v), rtol=rtol, atol=0), (new.name, u, v)


@pytest.mark.slow
def test_example_report_regenerates_byte_identical(tmp_path):
    out = tmp_path / "cast2021"
    assert cli.main(["report", "--example", "--out", str(out), "--quiet"]) == 0

    # tables/, results/, per_query.csv and settings.json reproduce the committed ones
    # byte for byte (up to last-bit float differences between CPUs); so do the
    # notebook and the page (cell ids are not random) when the
    # package versions are the committed ones
    assert _tables(out) == _tables(EXAMPLE)
    for sub in ("tables", "results"):
        names = sorted(p.name for p in (EXAMPLE / sub).iterdir())
        assert sorted(p.name for p in (out / sub).iterdir()) == names
        for name in names:
            _assert_same_content(out / sub / name, EXAMPLE / sub / name)
    _assert_same_content(out / "per_query.csv", EXAMPLE / "per_query.csv")
    committed = (EXAMPLE / "settings.json").read_text(encoding="utf-8")
    regenerated = (out / "settings.json").read_text(encoding="utf-8")
    assert regenerated == _settings_with_current_versions(committed, regenerated)
    if regenerated == committed:
        for name in ("report.ipynb", "report.html"):
            _assert_same_content(out / name, EXAMPLE / name)

    # settings.json: conventions, seed, B, versions and the SHA-256 of every input file
    s = json.loads(regenerated)
    data = mrrstats.datasets.cast2021()
    assert s["seed"] == 2021 and s["comparison"]["n_resamples"] == 10000
    assert s["comparison"]["test"] == "randomization" and s["comparison"]["correction"] == "single-step"
    assert {k: s["evaluation"][k] for k in ("ties", "rel", "queries", "max_depth")} == {
        "ties": "trec_eval", "rel": 1, "queries": "both", "max_depth": None}
    assert s["measures"] == ["RR", "nDCG@10", "AP"] and s["control"] == "org_manual_bm25.run"
    assert s["random_baseline"]["random"] == "retrieved"
    assert set(s["versions"]) == {"python", "mrrstats", "numpy", "scipy", "pandas",
                                  "statsmodels", "matplotlib"}
    assert s["versions"]["numpy"] == np.__version__ and s["versions"]["pandas"] == pd.__version__
    files = [s["input"]["qrels"]] + s["input"]["runs"]
    paths = [data.qrels] + list(data.runs)
    for rec, path in zip(files, paths, strict=True):
        assert rec["file"] == path.name
        assert rec["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()

    # the executed notebook: parameters injected as the first code cell, no errors
    nb = nbformat.read(out / "report.ipynb", as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code[0].metadata["tags"] == ["injected-parameters"]
    assert "title = 'TREC CAsT 2021 organiser baselines'" in code[0].source
    outputs = [o for c in code for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    # no warning printed into the page (e.g. a figure whose layout collapsed)
    assert not [o for o in outputs if o.output_type == "stream" and o.name == "stderr"]
    n_png = sum("image/png" in o.get("data", {}) for o in outputs)
    assert n_png >= 6

    # the HTML: every figure embedded as a PNG data URI, nothing fetched from the network
    html = (out / "report.html").read_text(encoding="utf-8")
    pngs = re.findall(r'<img[^>]+src="data:image/png;base64,([^"]+)"', html)
    assert len(pngs) == n_png
    for b64 in pngs:
        assert base64.b64decode(b64)[:8] == b"\x89PNG\r\n\x1a\n"
    assert not re.search(r'<(script|img|iframe|link)\b[^>]*\b(src|href)\s*=\s*["\']?(https?:)?//',
                         html, flags=re.I)
    assert not re.search(r"@import\s+url\(\s*['\"]?https?:", html)
    # the tables appear in the page
    assert "org_manual_ance_bert.run" in html and "<sup>abe</sup>" in html


def _score_files(tmp_path, systems):
    paths = {}
    for m, stem in (("RR", "rr"), ("AP", "ap")):
        frame = trec7_scores(m)[systems]
        p = tmp_path / f"adhoc7_{stem}.csv"
        frame.to_csv(p, index=False)  # the layout of the bundled matrices (no query column)
        paths[m] = p
    return paths


def test_scores_report_is_deterministic_and_uses_compare(tmp_path):
    systems = [f"run{i}" for i in (3, 9, 15, 36, 50, 77)]
    paths = _score_files(tmp_path, systems)
    args = dict(scores=[f"RR={paths['RR']}", f"AP={paths['AP']}"], n_resamples=2000, rng=7,
                notebook=False, progress=False)
    a = make_report(out=tmp_path / "a", **args)
    b = make_report(out=tmp_path / "b", **args)
    assert a.files == b.files
    for name in a.files:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name

    # the comparison table is mrrstats.compare's, with the documented Generator order
    direct = mrrstats.compare({"RR": trec7_scores("RR")[systems],
                               "AP": trec7_scores("AP")[systems]}, n_resamples=2000, rng=7)
    assert (tmp_path / "a" / "tables" / "comparison.md").read_text() == direct.to_markdown()

    # the methods paragraph of that comparison, and the BibTeX of every work it cites
    assert {"methods.md", "references.bib"} <= set(a.files)
    methods = (tmp_path / "a" / "methods.md").read_text(encoding="utf-8")
    m = direct.methods()
    assert methods.startswith("# Methods\n\n" + m.text + "\n") and m.latex in methods
    assert "$B = 2000$" in methods and "seed 7" in methods and "6 systems (15 pairs)" in methods
    bib = (tmp_path / "a" / "references.bib").read_text(encoding="utf-8")
    assert bib == m.bibtex and all(f"{{{k}," in bib for k in m.keys)

    # per_query.csv holds the input values exactly
    pq = pd.read_csv(tmp_path / "a" / "per_query.csv", dtype=str)
    assert list(pq.columns) == ["system", "query", "RR", "AP"]
    pq["RR"] = [float(v) for v in pq["RR"]]  # Python's float(): exact for repr() digits
    rr = pq.pivot(index="query", columns="system", values="RR")
    expected = trec7_scores("RR")[systems]
    np.testing.assert_array_equal(rr.loc[expected.index, systems].to_numpy(),
                                  expected.to_numpy())

    # no candidate counts: no random-ranking table, and settings.json says why
    assert "tables/random_baseline.md" not in a.files
    s = json.loads((tmp_path / "a" / "settings.json").read_text())
    assert s["random_baseline"] is None and "candidate counts" in s["random_baseline_note"]
    assert [r["file"] for r in s["input"]["scores"]] == ["adhoc7_rr.csv", "adhoc7_ap.csv"]
    assert s["input"]["scores"][0]["sha256"] == hashlib.sha256(
        paths["RR"].read_bytes()).hexdigest()
    # RR vs AP agreement over the 6 systems is ranking_agreement's
    agree = mrrstats.ranking_agreement({"RR": trec7_scores("RR")[systems],
                                        "AP": trec7_scores("AP")[systems]})
    row = agree[(agree.measure_a == "RR") & (agree.measure_b == "AP")].iloc[0]
    text = (tmp_path / "a" / "tables" / "agreement.md").read_text()
    assert f"| RR | AP | {row.tau:.3f} | {row.tau_ap:.3f} |" in text


def test_committed_example_tables_match_the_library():
    """The numbers in the committed tables come from the public functions."""
    data = recompute_report(EXAMPLE)
    for name, text in data.tables().items():
        assert (EXAMPLE / "tables" / name).read_text(encoding="utf-8") == text
    # load_report gives the saved results, exactly (nothing recomputed)
    saved = load_report(EXAMPLE)
    assert saved.comparison is None
    pd.testing.assert_frame_equal(saved.pairs, data.pairs, check_dtype=False, check_exact=True)
    frame = data.comparison.to_frame()
    pd.testing.assert_frame_equal(saved.pairs[list(frame.columns)], frame, check_dtype=False,
                                  check_exact=True)
    pd.testing.assert_frame_equal(saved.means, data.means, check_dtype=False, check_exact=True)
    assert saved.focus == data.focus
    ex = mrrstats.datasets.cast2021()
    ev = mrrstats.evaluate(ex.qrels, ex.runs, ["RR", "nDCG@10", "AP"])
    # per-query values are the Evaluation's
    for m in ("RR", "nDCG@10", "AP"):
        got = data.scores[m]
        want = ev.scores(m).loc[got.index, list(got.columns)]
        np.testing.assert_array_equal(got.to_numpy(), want.to_numpy())
    # the deterministic columns of the random-ranking table are evaluation_baseline's
    # (its p-values use another part of the random stream, so they are not compared)
    ref = mrrstats.evaluation_baseline(ev, random="retrieved", rng=0)
    got = data.random_baseline.loc[list(ref.index)]
    for col in ("observed", "expected", "std", "adjusted", "zscore"):
        np.testing.assert_allclose(got[col].to_numpy(float), ref[col].to_numpy(float),
                                   rtol=1e-12)
    # versus-control rows: system - control; the default single-step max-T adjusts over
    # the family of all pairs (one null for the whole table), so the rows keep the
    # all-pairs adjusted p-values and intervals
    vc = data.versus_control
    rr = vc[vc.measure == "RR"].set_index("system")
    means = ev.scores("RR").mean()
    for s, row in rr.iterrows():
        assert row["difference"] == pytest.approx(means[s] - means["org_manual_bm25.run"], abs=1e-12)
    r = data.comparison.results["RR"]
    assert r.correction == "single-step"
    adjusted = {frozenset(ab): p for *ab, p in zip(r.a, r.b, r.pvalue_adjusted, strict=True)}
    want = [adjusted[frozenset((s, "org_manual_bm25.run"))] for s in rr.index]
    np.testing.assert_array_equal(rr["pvalue_adjusted"].to_numpy(), want)
    assert len(rr) == len(ev.runs) - 1


def test_names_of_0_1_still_work(tmp_path):
    """baseline= (make_report, forest_differences), --baseline, ReportData.versus_baseline and
    a folder written by 0.1 (settings "baseline", results/versus_baseline.csv) keep working."""
    data = mrrstats.datasets.cast2021()
    runs = data.runs[:3]
    args = dict(measures="RR", n_resamples=199, rng=1, notebook=False, progress=False,
                clusters=None, multiverse=False)
    with pytest.warns(DeprecationWarning, match="use control="):
        old = make_report(data.qrels, runs, out=tmp_path / "old", baseline="org_convdr.run",
                          **args)
    new = make_report(data.qrels, runs, out=tmp_path / "new", control="org_convdr.run", **args)
    assert old.files == new.files and "results/versus_control.csv" in new.files
    for name in new.files:
        assert (tmp_path / "old" / name).read_bytes() == (tmp_path / "new" / name).read_bytes()
    with pytest.warns(DeprecationWarning, match=r"use \.versus_control"):
        assert new.data.versus_baseline is new.data.versus_control
    # the command line: --baseline is a hidden alias of --control
    assert cli.main(["report", str(data.qrels), *map(str, runs), "-m", "RR", "--baseline",
                     "org_convdr.run", "--n-resamples", "199", "--seed", "1", "--no-notebook",
                     "--clusters", "none", "--no-multiverse", "--quiet", "--out",
                     str(tmp_path / "cli")]) == 0
    assert (tmp_path / "cli" / "tables" / "versus_control.md").read_text() == \
        (tmp_path / "new" / "tables" / "versus_control.md").read_text()
    # a folder of 0.1: the old settings key, result file and column
    folder = tmp_path / "new"
    settings = json.loads((folder / "settings.json").read_text())
    settings = {("baseline" if k == "control" else k): v for k, v in settings.items()}
    (folder / "settings.json").write_text(json.dumps(settings, indent=2))
    vc = pd.read_csv(folder / "results" / "versus_control.csv")
    vc.rename(columns={"control_mean": "baseline_mean"}).to_csv(
        folder / "results" / "versus_baseline.csv", index=False)
    (folder / "results" / "versus_control.csv").unlink()
    loaded = load_report(folder)
    assert loaded.settings["control"] == "org_convdr.run"
    pd.testing.assert_frame_equal(loaded.versus_control, new.data.versus_control,
                                  check_exact=True)
    again = recompute_report(folder)
    assert again.tables()["versus_control.md"] == \
        (tmp_path / "old" / "tables" / "versus_control.md").read_text()


def test_interval_ends_in_tables():
    """A finite interval is printed with its two ends; an infinite end (a step-down
    compatible interval) is written open, never as 'inf', in Markdown and in LaTeX."""
    from mrrstats.formatting import interval_cell, latex_table

    assert interval_cell(-0.12153, 0.02671) == "[-0.1215, 0.0267]"
    assert interval_cell(-np.inf, -0.0) == "(-∞, 0.0000]"
    tex = latex_table(["CI"], [[interval_cell(0.0, np.inf)]], "r", "c", "tab:x")
    assert "[0.0000, $\\infty$)" in tex
    # the committed example: its tables show an infinite end only where an interval has one
    pairs = pd.read_csv(EXAMPLE / "results" / "pairs.csv")
    infinite = not np.isfinite(pairs[["ci_low", "ci_high"]].to_numpy(float)).all()
    for f in sorted((EXAMPLE / "tables").glob("*.*")):
        text = f.read_text(encoding="utf-8")
        assert "inf]" not in text and "[-inf" not in text, f.name
        if not infinite:
            assert "∞" not in text and "infty" not in text, f.name


def test_make_report_validation(tmp_path):
    data = mrrstats.datasets.cast2021()
    with pytest.raises(TypeError, match="`out`"):
        make_report(data.qrels, data.runs, out=None)
    with pytest.raises(TypeError, match="`rng`"):
        make_report(data.qrels, data.runs, out=tmp_path, rng=np.random.default_rng(1))
    with pytest.raises(ValueError, match="`random`"):
        make_report(data.qrels, data.runs, out=tmp_path, random="pool")
    with pytest.raises(ValueError, match="not both"):
        make_report(data.qrels, data.runs, scores=["x.csv"], out=tmp_path)
    with pytest.raises(ValueError, match="`qrels` and `runs` are required"):
        make_report(data.qrels, out=tmp_path)
    with pytest.raises(ValueError, match="`control` 'bm25' is not a system"):
        make_report(data.qrels, data.runs[:2], out=tmp_path, control="bm25", notebook=False,
                    progress=False, n_resamples=99, rng=1)
    with pytest.raises(TypeError, match="`control` must be a system name"):
        make_report(data.qrels, data.runs[:2], out=tmp_path, control=0, notebook=False)
    with pytest.raises(ValueError, match="`workers`"):
        make_report(data.qrels, data.runs[:2], out=tmp_path, workers=0, notebook=False)
    with pytest.raises(ValueError, match="`equivalence_margin`"):
        make_report(data.qrels, data.runs[:2], out=tmp_path, equivalence_margin=-1,
                    notebook=False)


def test_cli_report_errors(capsys):
    assert cli.main(["report", "--out", "x"]) == 2
    assert "need QRELS and at least two RUN files" in capsys.readouterr().err
    assert cli.main(["report", "--example", "--scores", "a.csv"]) == 2
    assert "not both" in capsys.readouterr().err


# --------------------------------------------------------------------------
# the page in a real browser (headless Chromium; skipped where there is none)
# --------------------------------------------------------------------------
def _chromium_or_skip():
    from mrrstats.report import browser

    if browser.find_chromium() is None:
        pytest.skip("no Chromium binary (apt-get install chromium)")
    return browser


def test_example_report_in_headless_chromium(tmp_path):
    browser = _chromium_or_skip()
    page = EXAMPLE / "report.html"
    seen = browser.check_page(page)
    html = page.read_text(encoding="utf-8")
    n_figures = len(re.findall(r"<img[^>]+src=\"data:image/png;base64,", html))
    assert seen["images"] == n_figures >= 8
    assert seen["broken"] == 0                   # every figure loads (naturalWidth > 0)
    assert seen["visible_code"] == 0             # code cells hidden by default
    assert seen["errors"] == []                  # no script error
    # figures are half the page width (within the page's margins)
    assert all(w <= 0.5 * seen["page_width"] + 1 for w in seen["figure_widths"])
    shot = browser.screenshot(page, tmp_path / "report.png", height=1600)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20000


@pytest.mark.slow
def test_show_code_keeps_code_cells_in_the_page(tmp_path):
    data = mrrstats.datasets.cast2021()
    res = make_report(data.qrels, data.runs[:3], out=tmp_path / "r", measures="RR",
                      n_resamples=199, rng=1, show_code=True, progress=False,
                      multiverse=False, clusters=None)
    html = (res.path / "report.html").read_text(encoding="utf-8")
    assert "class=\"highlight hl-ipython3" in html   # the code is in the page
    hidden = (EXAMPLE / "report.html").read_text(encoding="utf-8")
    assert "class=\"highlight hl-ipython3" not in hidden
    browser = _chromium_or_skip()
    assert browser.check_page(res.path / "report.html")["visible_code"] > 0


def test_template_only_draws_saved_results():
    """The notebook template loads the saved results: no test, resampling or seed in it."""
    from importlib import resources

    text = (resources.files("mrrstats.report") / "templates" / "report.ipynb").read_text(
        encoding="utf-8")
    nb = nbformat.reads(text, as_version=4)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert "load_report(folder)" in code
    for call in ("default_rng", ".choice(", "randomization_test", "bootstrap_ci", "compare(",
                 "randomized_tukey_hsd", "ttest_power", "evaluation_baseline",
                 "recompute_report", "hodges_lehmann", "equivalence_test",
                 "effect_size_intervals", "mixed_model", "mixed_vs_anova", "multiverse("):
        assert call not in code, call
    # every cell has a fixed id (no random id in the written notebook)
    assert all(c.get("id") for c in nb.cells)
    saved = load_report(EXAMPLE)
    with pytest.raises(ValueError, match="recompute_report"):
        saved.tables()
