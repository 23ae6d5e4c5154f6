"""``Comparison.to_latex``: the means and the pairs tables, names, columns, wide, marks,
caption and minus signs."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import mrrstats
from mrrstats.errors import ParameterError, ParameterTypeError
from mrrstats.stats.compare_latex import latex_number, latex_pvalue, mean_label


@pytest.fixture(scope="module")
def comparison():
    rng = np.random.default_rng(3)
    base = rng.random(30)
    df = pd.DataFrame(
        {
            "bm25": base,
            "dense_1": np.clip(base + 0.3, 0, 1),
            "x": np.clip(base + rng.normal(-0.1, 0.2, 30), 0, 1),
        }
    )
    return mrrstats.compare({"RR@10": df, "AP": df * 0.8}, n_resamples=1000, rng=1)


def _rows(tex: str) -> list[list[str]]:
    body = tex.split("\\midrule\n", 1)[1].split("\\bottomrule", 1)[0]
    return [line.removesuffix(" \\\\").split(" & ") for line in body.strip().splitlines()]


def _head(tex: str) -> list[str]:
    return tex.split("\\toprule\n", 1)[1].split("\n", 1)[0].removesuffix(" \\\\").split(" & ")


def _no_text_minus(tex: str) -> None:
    """Every minus sign of a number is $-$ (outside math, no bare '-' before a digit)."""
    text = re.sub(r"\$[^$]*\$", "", tex)  # drop math
    assert not re.search(r"(?<![\w-])-\d", text), text


def test_means_table_heads_columns_by_the_mean(comparison):
    tex = comparison.to_latex(label="tab:m")
    assert _head(tex) == [
        "",
        "System",
        "MRR@10",
        "MRR@10 rank",
        "MRR@10 group",
        "MAP",
        "MAP rank",
        "MAP group",
    ]
    assert tex.startswith("\\begin{table}\n") and tex.endswith("\\end{table}\n")
    assert "\\label{tab:m}" in tex
    means = comparison.means()
    rows = _rows(tex)
    assert [r[1] for r in rows] == ["bm25", "dense\\_1", "x"]
    for row, system in zip(rows, comparison.systems, strict=True):
        assert row[2].startswith(f"{means.loc[system, 'RR@10']:.4f}") or row[2].startswith(
            f"\\textbf{{{means.loc[system, 'RR@10']:.4f}}}"
        )
        # groups: italic letters; beaten systems: superscript upright letters
        assert re.fullmatch(r"\\textit\{[a-z]+\}", row[4])
        assert re.fullmatch(r"(\\textbf\{)?[0-9.]+\}?(\$\^\{\\mathrm\{[a-z]+\}\}\$)?", row[2])
    board = comparison.leaderboard("RR@10").loc[list(comparison.systems)]
    assert [r[4] for r in rows] == [f"\\textit{{{g}}}" for g in board["letters"]]
    _no_text_minus(tex)


def test_caption_states_queries_clusters_alpha_and_b(comparison):
    tex = comparison.to_latex()
    caption = re.search(r"\\caption\{(.*)\}\n", tex).group(1)
    assert "30 queries (not clustered)" in caption
    assert "$\\alpha = 0.05$" in caption and "alpha =" not in caption.replace("\\alpha =", "")
    assert "$B = 1{,}000$ random within-query permutations of the systems" in caption
    assert "seed = 1" in caption
    assert "italic" in caption and "Superscript upright letters" in caption

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.random(24), "b": rng.random(24)})
    clustered = mrrstats.compare(
        df,
        measure="RR",
        correction="holm",
        n_resamples=300,
        rng=2,
        clusters=np.arange(24) // 3,
        test="bootstrap",
    )
    cap = clustered.to_latex(table="pairs")
    assert "24 queries in 8 clusters (resampled per cluster)" in cap
    assert "$B = 300$ bootstrap resamples of the queries" in cap and "adjusted by Holm." in cap


def test_pairs_table(comparison):
    tex = comparison.to_latex(table="pairs")
    assert _head(tex) == ["Measure", "$a$", "$b$", "$a - b$", "95\\% CI", "$p$", "adj.\\ $p$"]
    rows = _rows(tex)
    frame = comparison.to_frame()
    assert len(rows) == len(frame) == 6
    for row, r in zip(rows, frame.itertuples(index=False), strict=True):
        assert row[0] == mean_label(r.measure)
        assert row[3] == latex_number(r.difference, 4) + ("$^{\\dagger}$" if r.reject else "")
        assert row[4] == f"[{latex_number(r.ci_low, 4)}, {latex_number(r.ci_high, 4)}]"
        b = comparison.results[r.measure].n_resamples
        assert row[5] == latex_pvalue(r.pvalue, b) and row[6] == latex_pvalue(r.pvalue_adjusted, b)
    assert any(r[3].startswith("$-$") for r in rows)  # a negative difference, typeset
    assert "$^{\\dagger}$: rejected after correction" in tex
    _no_text_minus(tex)
    # one measure: no measure column, the measure named in the caption
    ap = pd.DataFrame({"p": [0.1, 0.5, 0.2, 0.9], "q": [0.2, 0.1, 0.4, 0.3]})
    one = mrrstats.compare({"AP": ap}, test="t", correction="none").to_latex(table="pairs")
    assert _head(one)[0] == "$a$" and "Differences of the means of MAP" in one


def test_names_columns_and_wide(comparison):
    tex = comparison.to_latex(
        table="pairs",
        names={"bm25": "BM25 (ours)", "AP": "mean AP"},
        columns=["measure", "a", "b", "difference", "d_z", "wins"],
        wide=True,
    )
    assert tex.startswith("\\begin{table*}\n") and tex.endswith("\\end{table*}\n")
    assert _head(tex) == ["Measure", "$a$", "$b$", "$a - b$", "$d_z$", "W/T/L"]
    rows = _rows(tex)
    assert rows[0][:2] == ["MRR@10", "BM25 (ours)"] and rows[3][0] == "mean AP"
    assert all(re.fullmatch(r"\d+/\d+/\d+", r[5]) for r in rows)
    means = comparison.to_latex(columns=["mean", "group"], names={"RR@10": "MRR@10 (dev)"})
    assert _head(means) == ["", "System", "MRR@10 (dev)", "MRR@10 (dev) group", "MAP", "MAP group"]
    assert "\\begin{tabular}{llrlrl}" in means


def test_control_comparison_has_no_groups():
    df = pd.DataFrame(
        {
            "c": [0.1, 0.5, 0.2, 0.9, 0.3],
            "d": [0.4, 0.6, 0.3, 1.0, 0.5],
            "e": [0.0, 0.4, 0.1, 0.8, 0.2],
        }
    )
    c = mrrstats.compare(df, measure="RR", test="t", correction="holm", control="c")
    assert _head(c.to_latex()) == ["", "System", "MRR"]
    tex = c.to_latex(table="pairs")
    assert "each system $a$ against the control $b$ = c" in tex
    with pytest.raises(ParameterError, match="columns"):
        c.to_latex(columns=["mean", "rank"])


@pytest.mark.parametrize(
    "kwargs, error, name",
    [
        ({"table": "letters"}, ParameterError, "table"),
        ({"table": 3}, ParameterTypeError, "table"),
        ({"names": ["bm25"]}, ParameterTypeError, "names"),
        ({"names": {"bm25": 1}}, ParameterTypeError, "names"),
        ({"columns": "mean"}, ParameterTypeError, "columns"),
        ({"columns": []}, ParameterError, "columns"),
        ({"columns": ["mean", "mean"]}, ParameterError, "columns"),
        ({"table": "pairs", "columns": ["group"]}, ParameterError, "columns"),
        ({"wide": "yes"}, ParameterTypeError, "wide"),
    ],
)
def test_bad_arguments_are_refused(comparison, kwargs, error, name):
    with pytest.raises(error, match=name):
        comparison.to_latex(**kwargs)


def test_number_helpers():
    assert latex_number(-0.12345, 4) == "$-$0.1235" and latex_number(0.5, 2) == "0.50"
    assert latex_number(-np.inf, 4) == "$-\\infty$" and latex_number(np.inf, 4) == "$\\infty$"
    assert latex_number(-0.00001, 4) == "0.0000"  # no negative zero
    assert latex_pvalue(2.5e-4) == "$2.5 \\times 10^{-4}$" and latex_pvalue(0.0312) == "0.031"
    assert latex_pvalue(1e-20) == "$< 0.0001$" and latex_pvalue(1 / 100, 99) == "$\\le 0.010$"
    assert mean_label("RR@10") == "MRR@10" and mean_label("AP") == "MAP"
    assert mean_label("score") == "score"
