"""``.methods()`` of every test and comparison result: the paragraph names the numbers
actually used, and its BibTeX holds every work it cites."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import mrrstats
from mrrstats.errors import ParameterError, ParameterTypeError
from mrrstats.stats.methods import COVERAGE, MethodsText, combine, facts_of
from mrrstats.stats.references import REFERENCES, bibtex

_ENTRY = re.compile(
    r"@(article|book|inproceedings|phdthesis)\{([\w-]+),\n((?:  \w+ = \{.*\},?\n)+)\}", re.M
)


def _entries(bib: str) -> dict[str, str]:
    """key -> body of each BibTeX entry; fails on any text that is not an entry."""
    found = {m.group(2): m.group(3) for m in _ENTRY.finditer(bib)}
    rest = _ENTRY.sub("", bib)
    assert rest.strip() == "", f"not BibTeX: {rest[:200]!r}"
    return found


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text.replace("\\{", "").replace("\\}", ""):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def _check_citations(m: MethodsText) -> None:
    # Pandoc citations: [@key] or [@key1; @key2]
    cited = [
        k.strip()[1:]
        for group in re.findall(r"\[(@[\w-]+(?:; @[\w-]+)*)\]", m.text)
        for k in group.split(";")
    ]
    assert cited, m.text
    entries = _entries(m.bibtex)
    assert set(cited) == set(entries) == set(m.keys)
    for key, body in entries.items():
        assert "title = {" in body and "year = {" in body, key
        assert _balanced(body), key
    # the LaTeX form cites the same keys with \citep
    latex_keys = {
        k for group in re.findall(r"\\citep\{([\w,-]+)\}", m.latex) for k in group.split(",")
    }
    assert latex_keys == set(cited) and "[@" not in m.latex


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(11)
    base = rng.random(40)
    a = np.clip(base + rng.normal(0.08, 0.15, 40), 0, 1)
    return base, a


def test_every_reference_is_one_well_formed_entry():
    bib = bibtex(REFERENCES)
    entries = _entries(bib)
    assert set(entries) == set(REFERENCES)
    for key, entry in REFERENCES.items():
        assert entry.startswith("@") and entry.count(f"{{{key},") == 1
        assert _balanced(entry), key
    with pytest.raises(ParameterError, match="no reference"):
        bibtex(["nobody2000"])


def test_paired_tests_name_their_numbers(data):
    b, a = data
    t = mrrstats.paired_ttest(a, b, alternative="greater").methods()
    assert "40 queries" in t.text and "one-sided" in t.text and "t-test" in t.text
    assert "@student1908" in t.text
    # the t interval's coverage comes from the one table
    cov = COVERAGE["t"]
    assert f"{cov.by_topics[0][1]:.3f} with 25 topics" in t.text and cov.source in t.text
    _check_citations(t)

    w = mrrstats.wilcoxon_test(a, b).methods()
    assert "Wilcoxon signed-rank" in w.text and "two-sided" in w.text and "@hodges1963" in w.text
    _check_citations(w)

    s = mrrstats.sign_test(a, b).methods()
    res = mrrstats.sign_test(a, b)
    assert f"{res.wins} wins, {res.ties} ties and {res.losses} losses" in s.text
    _check_citations(s)


def test_resampling_tests_name_b_and_seed(data):
    b, a = data
    r = mrrstats.randomization_test(a, b, n_resamples=1234, rng=99)
    m = r.methods()
    assert "$B = 1234$" in m.text and "seed 99" in m.text and "40 queries" in m.text
    assert "@fisher1935" in m.text and "@phipson2010" in m.text
    _check_citations(m)
    exact = mrrstats.randomization_test(a[:8], b[:8], rng=1).methods()
    assert "enumerated exactly (all 256 sign vectors)" in exact.text and "$B" not in exact.text

    clustered = mrrstats.randomization_test(
        a, b, clusters=np.arange(40) // 4, rng=3, exact=False
    ).methods()
    assert "40 queries in 10 clusters" in clustered.text
    assert "one sign flip per cluster" in clustered.text

    bt = mrrstats.bootstrap_test(a, b, n_resamples=777, rng=5, clusters=np.arange(40) // 2)
    m = bt.methods()
    assert "$B = 777$" in m.text and "seed 5" in m.text and "20 clusters" in m.text
    assert "@field2007" in m.text
    _check_citations(m)

    ci = mrrstats.bootstrap_ci(a, b, n_resamples=555, rng=6, method="percentile").methods()
    assert "$B = 555$" in ci.text and "seed 6" in ci.text and "percentile" in ci.text
    assert "0.924 with 25 topics" in ci.text  # COVERAGE["percentile"]
    _check_citations(ci)


@pytest.mark.parametrize(
    "correction, cite, phrase",
    [
        ("single-step", "westfall1993", "family-wise error"),
        ("holm", "holm1979", "family-wise error"),
        ("bh", "benjamini1995", "false discovery rate"),
    ],
)
def test_comparison_names_correction_alpha_and_b(data, correction, cite, phrase):
    b, a = data
    df = pd.DataFrame({"x": b, "y": a, "z": (a + b) / 2})
    c = mrrstats.compare(
        df, measure="RR@10", correction=correction, alpha=0.1, n_resamples=400, rng=21
    )
    m = c.methods()
    for needle in (
        "3 systems (3 pairs)",
        "RR@10",
        "40 queries",
        "$B = 400$",
        "seed 21",
        "$\\alpha = 0.1$",
        f"@{cite}",
        phrase,
        "two-sided",
    ):
        assert needle in m.text, (needle, m.text)
    _check_citations(m)
    # the results of the comparison say the same
    assert facts_of(c.results["RR@10"]).n_resamples == 400
    assert (
        mrrstats.compare(df, measure="RR@10", correction=correction, n_resamples=400, rng=21)
        .results["RR@10"]
        .methods()
        .text.startswith("We compared 3 systems")
    )


def test_family_procedures_and_no_correction(data):
    b, a = data
    df = pd.DataFrame({"x": b, "y": a, "z": (a + b) / 2})
    tukey = mrrstats.compare(df, measure="AP", test="tukey", n_resamples=300, rng=2).methods()
    assert "randomised Tukey HSD" in tukey.text and "@carterette2012" in tukey.text
    assert "0.970 with 25 topics" in tukey.text
    none = mrrstats.compare(df, measure="AP", test="t", correction="none").methods()
    assert "No multiple-comparison correction" in none.text and "$B" not in none.text
    dunnett = mrrstats.compare(df, measure="AP", test="dunnett", control="x").methods()
    assert "each against the control x" in dunnett.text and "@dunnett1955" in dunnett.text
    family = mrrstats.compare(
        {"AP": df, "RR": df * 0.8}, test="t", correction="holm", family="measures"
    ).methods()
    assert "over all 6 tests (2 measures x 3 pairs, one family)" in family.text
    for m in (tukey, none, dunnett, family):
        _check_citations(m)


def test_other_results(data):
    b, a = data
    results = [
        mrrstats.unpaired_ttest(a, b[:30]),
        mrrstats.unpaired_permutation_test(a, b[:30], n_resamples=500, rng=4),
        mrrstats.unpaired_bootstrap_ci(a, b[:30], n_resamples=500, rng=4),
        mrrstats.hodges_lehmann(a, b),
        mrrstats.equivalence_test(a, b, margin=0.05),
        mrrstats.equivalence_test(a, b, margin=0.05, test="randomization", n_resamples=300, rng=8),
        mrrstats.mixed_model(pd.DataFrame({"x": b, "y": a, "z": (a + b) / 2})),
        mrrstats.replicate_tests(
            pd.DataFrame(
                {"a1": a, "a2": a * 0.9, "a3": a * 0.95, "b1": b, "b2": b * 1.1, "b3": b * 1.05}
            ),
            {"A": ["a1", "a2", "a3"], "B": ["b1", "b2", "b3"]},
            n_resamples=200,
            rng=3,
        ),
    ]
    texts = [r.methods() for r in results]
    assert "independent query sets of 40 and 30 queries" in texts[0].text
    assert "Welch" in texts[0].text and "$B = 500$" in texts[1].text
    assert "BCa" in texts[2].text and "measured coverage" not in texts[2].text  # unpaired
    assert "equivalence margin [$-$0.05, 0.05]" in texts[4].text
    assert "$B = 300$" in texts[5].text and "seed 8" in texts[5].text
    assert "REML" in texts[6].text and "120 observations" in texts[6].text
    assert "3 replicate runs per system" in texts[7].text and "$B = 200$" in texts[7].text
    for m in texts:
        _check_citations(m)
        assert str(m) == m.text
    both = combine(texts[:2])
    assert both.text.count("\n\n") == 1 and set(both.keys) == set(texts[0].keys) | set(
        texts[1].keys
    )


def test_unknown_result_is_refused():
    with pytest.raises(ParameterTypeError, match="no methods paragraph"):
        facts_of(object())


def test_many_collections_and_reproducibility():
    rng = np.random.default_rng(0)
    table = pd.DataFrame(
        rng.random((12, 4)), columns=list("abcd"), index=[f"c{i}" for i in range(12)]
    )
    for test, cite in (
        ("nemenyi", "nemenyi1963"),
        ("wilcoxon-holm", "benavoli2016"),
        ("conover", "conover1999"),
    ):
        m = mrrstats.critical_difference(table, test=test, alpha=0.1).methods()
        assert "4 systems on score over 12 collections" in m.text and f"@{cite}" in m.text
        assert "@friedman1937" in m.text and "$\\alpha = 0.1$" in m.text
        _check_citations(m)
    d = mrrstats.datasets.cast2021()
    runs = {mrrstats.read_run(r).name: r for r in d.runs}
    res = mrrstats.reproducibility(
        d.qrels,
        {"baseline": runs["org_convdr.run"], "advanced": runs["org_manual_ance.run"]},
        {"baseline": runs["org_convdr_bert.run"], "advanced": runs["org_manual_ance_bert.run"]},
        measures=["RR", "AP"],
        n_resamples=200,
        rng=4,
    )
    m = res.methods()
    assert "on RR and AP over 158 topics" in m.text and "with the measures of" in m.text
    assert "$B = 200$" in m.text and "seed 4" in m.text and "@breuer2020" in m.text
    _check_citations(m)


def test_references_agree_with_the_documentation_bibliography():
    """A key in both docs/references.bib and the package's bibliography names one work."""
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[2] / "docs" / "references.bib").read_text(
        encoding="utf-8"
    )
    entries = {m.group(1): m.group(0) for m in re.finditer(r"@\w+\{([\w-]+),.*?\n\}", docs, re.S)}
    shared = set(entries) & set(REFERENCES)
    assert {"holm1979", "smucker2007", "urbano2019"} <= shared

    def field(entry, name):
        m = re.search(name + r"\s*=\s*\{(.*?)\},?\n", entry, re.S)
        return m.group(1) if m else None

    for key in shared:
        for name in ("year", "pages", "number"):
            a, b = field(entries[key], name), field(REFERENCES[key], name)
            assert a is None or b is None or a == b, (key, name, a, b)


def test_bibliography_parses_with_pybtex():
    """pybtex (what sphinxcontrib-bibtex reads BibTeX with) reads every entry, with authors."""
    pybtex = pytest.importorskip("pybtex.database")
    data = pybtex.parse_string(bibtex(REFERENCES), "bibtex")
    assert set(data.entries) == set(REFERENCES)
    for key, entry in data.entries.items():
        assert entry.persons.get("author"), key
        assert entry.fields["title"] and entry.fields["year"].isdigit(), key
