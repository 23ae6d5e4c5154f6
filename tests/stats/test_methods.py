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
    r"@(article|book|inproceedings|incollection|misc|phdthesis)\{([\w-]+),\n((?:  \w+ = \{.*\},?\n)+)\}",
    re.M,
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


# --- the results beyond the paired tests (mrrstats.stats.methods_readers) ---------------


def test_across_collections_names_collections_b_seed_and_meta_analysis(data):
    b, a = data
    frames = {
        "c1": pd.DataFrame({"A": a[:30], "B": b[:30]}),
        "c2": pd.DataFrame({"A": a[10:], "B": b[10:]}),
        "c3": pd.DataFrame({"A": a, "B": b}),
    }
    res = mrrstats.across_collections(frames, test="bootstrap", alpha=0.1, rng=7)
    m = res.methods()
    for needle in (
        "over 3 collections (30-40 queries each)",
        "paired bootstrap shift test",
        f"$B = {res.n_resamples}$",
        "seed 7",
        "$N = 3$",
        "Holm",
        "$\\alpha = 0.1$",
        "@dror2017",
        "@benjamini2008",
        "@dersimonian1986",
        "@paule1982",
        "DerSimonian-Laird",
        "Paule-Mandel",
        "standardised paired difference",
        "one-sided",
    ):
        assert needle in m.text, (needle, m.text)
    assert res.n_resamples == 10_000  # bootstrap_test's default B, as used per collection
    _check_citations(m)
    t = mrrstats.across_collections(frames, effect="difference", alternative="two-sided").methods()
    assert "$B" not in t.text and "seed" not in t.text and "mean paired difference" in t.text
    assert "Within each collection the paired t-test gave p-values" in t.text
    assert "@student1908" in t.text
    _check_citations(t)


def test_bayesian_comparison_names_its_model_rope_and_draws(data):
    b, a = data
    t = mrrstats.bayesian_comparison(a, b, rope=0.02, confidence_level=0.9).methods()
    for needle in ("40 queries", "$n - 1$", "@benavoli2017", "@kruschke2013", "$\\pm0.02$"):
        assert needle in t.text, (needle, t.text)
    assert "90\\% central posterior credible" in t.text and "ROPE" in t.text
    _check_citations(t)
    boot = mrrstats.bayesian_comparison(a, b, method="bootstrap", n_resamples=1500, rng=3)
    m = boot.methods()
    assert "$B = 1500$ Bayesian bootstrap draws (seed 3)" in m.text and "@rubin1981" in m.text
    assert "ROPE" not in m.text
    _check_citations(m)
    h = mrrstats.bayesian_hierarchical([0.1, 0.2, 0.05, 0.0], [0.05, 0.04, 0.06, 0.05]).methods()
    assert "over 4 collections" in h.text and "@gelman2013" in h.text
    _check_citations(h)


def test_segments_name_segments_correction_b_and_seed(data):
    b, a = data
    df = pd.DataFrame({"x": b, "y": a, "z": (a + b) / 2})
    c = mrrstats.compare(
        df,
        measure="RR",
        test="randomization",
        n_resamples=300,
        rng=4,
        segment_by=np.arange(40) % 2,
        segment_correction="bonferroni",
        alpha=0.1,
    )
    m = c.segments.methods()
    for needle in (
        "3 systems on RR within each of 2 segments (20 queries per segment)",
        "$B = 300$",
        "seed 4",
        "the 2 segments of each pair and measure",
        "@dunn1961",
        "$\\alpha = 0.1$",
        "@fisher1935",
    ):
        assert needle in m.text, (needle, m.text)
    _check_citations(m)
    t = mrrstats.compare(df, measure="RR", test="t", segment_by=np.arange(40) % 4)
    mt = t.segments.methods()
    assert "4 segments (10 queries per segment)" in mt.text and "$B" not in mt.text
    assert "@holm1979" in mt.text  # the default correction across segments
    _check_citations(mt)


def test_effect_sizes_and_rank_intervals(data):
    b, a = data
    e = mrrstats.effect_size_intervals(a, b, n_resamples=999, rng=5, confidence_level=0.9)
    m = e.methods()
    assert "40 queries" in m.text and "$B = 999$" in m.text and "seed 5" in m.text
    assert "90\\% bias-corrected" in m.text and "@steiger1997" in m.text
    _check_citations(m)
    df = pd.DataFrame({"x": b, "y": a, "z": (a + b) / 2})
    r = mrrstats.rank_intervals(df, n_resamples=800, rng=6).methods()
    assert "We ranked 3 systems" in r.text and "over 40 queries" in r.text
    assert "$B = 800$" in r.text and "seed 6" in r.text and "@mogstad2024" in r.text
    _check_citations(r)
    clustered = mrrstats.rank_intervals(df, n_resamples=200, rng=1, clusters=np.arange(40) // 4)
    mc = clustered.methods()
    assert "40 queries in 10 clusters" in mc.text and "@field2007" in mc.text
    tukey = mrrstats.pairwise_tests(df, test="tukey", n_resamples=200, rng=2)
    d = mrrstats.rank_intervals(df, decisions=tukey).methods()
    assert "decisions of the" in d.text and "$B" not in d.text
    _check_citations(d)


def test_ppi_names_human_and_judge_queries():
    from mrrstats.stats.ppi import ppi_scores

    rng = np.random.default_rng(0)
    truth = rng.uniform(size=(200, 3)) + [0.0, 0.1, 0.2]
    judge = pd.DataFrame(truth + rng.normal(0, 0.1, truth.shape), columns=["a", "b", "c"])
    human = pd.DataFrame(truth, columns=["a", "b", "c"]).iloc[:60]
    m = ppi_scores({"RR": human}, {"RR": judge}, n_resamples=700, rng=1).methods()
    for needle in (
        "3 systems on RR over 200 judge-labelled queries, 60 of them",
        "$B = 700$",
        "seed 1",
        "the 3 pairs of each measure",
        "@angelopoulos2023ppi",
        "@angelopoulos2023ppipp",
        "PPI++",
    ):
        assert needle in m.text, (needle, m.text)
    _check_citations(m)
    assert "eprint = {2311.01453}" in m.bibtex


def test_random_baseline_and_discriminative_power(data):
    exact = mrrstats.random_baseline_test([1.0, 0.5, 1.0], [5, 5, 5]).methods()
    assert "RR of 3 queries" in exact.text and "exact p-value" in exact.text
    assert "$B" not in exact.text and exact.keys == () and exact.bibtex == ""
    rng = np.random.default_rng(2)
    mc = mrrstats.random_baseline_test(
        rng.choice([1.0, 0.5, 0.25], 300),
        np.full(300, 50),
        method="monte-carlo",
        n_resamples=999,
        rng=3,
    ).methods()
    assert "300 queries" in mc.text and "$B = 999$ random rankings (seed 3)" in mc.text
    _check_citations(mc)
    b, a = data
    df = pd.DataFrame({"x": b, "y": a, "z": (a + b) / 2})
    dp = mrrstats.discriminative_power(
        df, n_resamples=600, rng=8, correction="holm", alpha=0.1
    ).methods()
    for needle in (
        "3 systems (3 pairs)",
        "40 queries",
        "$B = 600$",
        "seed 8",
        "@sakai2006",
        "@holm1979",
        "$\\alpha = 0.1$",
        "share of the 3 pairs",
    ):
        assert needle in dp.text, (needle, dp.text)
    _check_citations(dp)


def test_every_result_with_a_reader_has_methods():
    from mrrstats.stats.methods import _READERS
    from mrrstats.stats.methods_readers import READERS

    assert set(READERS) <= set(_READERS)  # registered with the one generator
    for name in _READERS:
        cls = getattr(mrrstats, name)  # every result with a paragraph is exported
        assert callable(getattr(cls, "methods", None)), name
    # the result classes of issue 30 item 3
    assert {
        "AcrossCollectionsResult",
        "BayesianComparison",
        "SegmentComparison",
        "EffectSizeIntervals",
        "RankIntervals",
        "PPIResult",
        "RandomBaselineResult",
        "DiscriminativePowerResult",
    } <= set(_READERS)


def test_power_designs_name_their_inputs():
    p = mrrstats.ttest_power(difference=0.05, std=0.2, power=0.8, alpha=0.01).methods()
    for needle in (
        "solved for the number of queries",
        "difference 0.05",
        "standard deviation 0.2",
        "power 0.8",
        "$\\alpha = 0.01$",
        "@student1908",
        "two-sided",
    ):
        assert needle in p.text, (needle, p.text)
    n = mrrstats.ttest_power(difference=0.05, std=0.2, power=0.8, alpha=0.01).n_queries_required
    assert f"{n} queries" in p.text
    _check_citations(p)
    rng = np.random.default_rng(0)
    pilot = rng.normal(0.03, 0.2, 30)
    s = mrrstats.randomization_power(
        pilot, n_queries=40, difference=0.05, n_simulations=60, n_resamples=250, rng=1
    ).methods()
    for needle in (
        "60 simulated samples of 40 queries",
        "difference 0.05",
        "$B = 250$",
        "seed 1",
        "@fisher1935",
    ):
        assert needle in s.text, (needle, s.text)
    _check_citations(s)
    t = mrrstats.randomization_power(pilot, test="t", n_simulations=20, rng=2).methods()
    assert "paired t-test" in t.text and "$B" not in t.text and "30 queries" in t.text
    pilot_matrix = pd.DataFrame(rng.random((30, 4)))
    ts = mrrstats.topic_set_size(pilot_matrix, difference=0.05, power=0.9)
    m = ts.methods()
    assert f"{ts.n_queries} queries" in m.text and "power 0.9" in m.text and "ANOVA" in m.text
    _check_citations(m)


def test_sampled_metric_names_negatives_b_and_seed():
    rng = np.random.default_rng(0)
    res = mrrstats.correct_sampled_metric(
        rng.integers(1, 20, 100), 99, np.full(100, 5000), n_resamples=500, rng=2
    )
    m = res.methods()
    for needle in (
        "over 100 queries",
        "99 sampled negatives per query",
        "bias-variance",
        "$B = 500$",
        "seed 2",
        "BCa",
    ):
        assert needle in m.text, (needle, m.text)
    _check_citations(m)


def test_calibration_names_tests_corrections_simulations_b_and_seed():
    rr = mrrstats.datasets.trec7_scores("RR")[["run8", "run9", "run1"]]
    cal = mrrstats.calibrate_tests(
        rr,
        tests=["t", "randomization"],
        corrections=["none", "holm"],
        n_queries=30,
        n_simulations=20,
        n_resamples=100,
        differences=(0.03,),
        rng=5,
    )
    m = cal.methods()
    for needle in (
        "3 systems",
        "20 simulated collections of 30 queries",
        "$B = 100$",
        "seed 5",
        "differences 0.03",
        "paired t-test and paired randomization test",
        "@urbano2019",
        "@holm1979",
        "$\\alpha = 0.05$",
    ):
        assert needle in m.text, (needle, m.text)
    _check_citations(m)
