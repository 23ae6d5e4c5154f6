r"""``compare``: the verb users call to compare systems on one or more measures.

:func:`compare` runs :func:`mrrstats.pairwise_tests` for every measure and
returns a :class:`Comparison` that prints as a table of pairs and exports
Markdown, LaTeX (significance superscripts, best value bold, a caption that
names every setting) and a stable JSON contract.

The JSON contract (``Comparison.to_dict()`` / ``to_json()``): an object with

* ``settings``: ``test``, ``correction``, ``alpha``, ``alternative``,
  ``n_resamples``, ``confidence_level``, ``ci_method``, ``seed``, ``missing``,
  ``control`` (null: all pairs), ``family`` (``"pairs"``: one correction per
  measure; ``"measures"``: one over all measures and pairs), ``family_size``
  (tests per correction), ``n_clusters`` (null: queries independent);
* ``measures`` (list of names) and ``systems`` (list of names);
* ``means``: ``{measure: {system: mean}}``;
* ``pairs``: a list with one object per pair and measure, with keys ``a``,
  ``b``, ``measure``, ``mean_a``, ``mean_b``, ``difference`` (``mean_a - mean_b``),
  ``ci_low``, ``ci_high``, ``statistic``, ``pvalue``, ``pvalue_adjusted``,
  ``reject``, ``reject_beyond_ci`` (rejected by a step-down procedure although the
  interval contains 0), ``test``, ``correction``, ``ci_method`` (how ``ci_low,
  ci_high`` were made: by default the correction's simultaneous interval, finite for
  two-sided tests), the marginal t interval ``marginal_low``, ``marginal_high``, plus
  ``pvalue_se``, ``d_z``, ``es_e``, ``wins``, ``ties``, ``losses``,
  ``prob_superiority``, ``n_queries``;
* ``leaderboard`` (all pairs only, else null): ``{measure: [{system, mean,
  rank, rank_low, rank_high, letters}]}``, ranks and compact letters from the
  same decisions as ``reject``;
* ``segments`` (with ``segment_by``, else null): ``rows`` (one per measure,
  segment and pair), ``means`` and the settings of the per-segment tests.

Numbers that are undefined or unbounded (NaN, one-sided infinite bounds) are
``null``.

Changed in 0.2: the settings key ``baseline`` is ``control`` and the pair key
``diff`` is ``difference`` (the names of :mod:`mrrstats.glossary`); ``reject_beyond_ci``
is new.
"""

from __future__ import annotations

import dataclasses
import json
import textwrap
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, overload

import numpy as np
import pandas as pd

from ..defaults import (
    ALPHA,
    ALTERNATIVE,
    CONFIDENCE_LEVEL,
    CORRECTION,
    MISSING,
    N_RESAMPLES,
    TEST,
    WORKERS,
)
from ..deprecation import renamed_attribute, renamed_parameters
from ..errors import ParameterError, ParameterTypeError
from ..formatting import fixed, json_number, latex_escape, letters, pvalue_text, text_table
from ..metrics.measures import higher_is_better
from ..model.scoretable import as_score_tables
from ..progress import tracked
from ..validation import (
    alpha_iv,
    alternative_iv,
    bool_iv,
    confidence_level_iv,
    int_iv,
    n_resamples_iv,
    rng_iv,
)
from .compare_latex import comparison_latex
from .corrections import adjust_pvalues
from .coverage import measured_coverage_note
from .designs import query_labels
from .leaderboard import leaderboard_frame
from .methods import MethodsText, methods_text
from .pairwise import pairwise_tests, pairwise_tests_in_family, pairwise_tests_over_measures
from .registry import (
    CORRECTIONS,
    TESTS,
    correction_label,
    correction_spec,
    interval_label,
    test_label,
    test_spec,
)
from .replicates import ReplicateComparison, replicate_tests
from .segments import SegmentComparison, segment_pairs

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any, Literal

    from numpy.typing import ArrayLike

    from .._typing import Alternative, Correction, Missing, Scores, Seed
    from .pairwise_result import PairwiseResult

__all__ = ["Comparison", "compare"]

# Labels live in the registry; these names stay for callers of the old private names.
_TEST_LABELS = {name: spec.label for name, spec in TESTS.items()}
_CORRECTION_LABELS = {name: spec.label for name, spec in CORRECTIONS.items()}


def _letters(k):
    """a, b, ..., z, aa, ab, ... for k systems."""
    return letters(k)


@dataclass(frozen=True, eq=False)
class Comparison:
    """Result of :func:`compare`.

    Attributes
    ----------
    results : dict of str -> PairwiseResult
        Per measure, the all-pairs result (see :func:`mrrstats.pairwise_tests`).
    measures : tuple of str
    systems : tuple of str
    test, correction, alternative, ci_method, missing : str
        ``correction`` is the requested one; tests that control the
        family-wise error themselves record theirs in each result.
    alpha, confidence_level : float
    n_resamples : int
    seed : int or None
        Seed or entropy that reproduces the result (None when a Generator was passed).
    control : str or None
        The system every other one was compared with (``control=``).
    family : {"pairs", "measures"}
        Whether the correction ran per measure or over all measures and pairs.
    family_size : int
        Number of tests in one correction family.
    n_clusters : int or None
        Query clusters resampled or flipped as units (``clusters=``).
    segments : SegmentComparison or None
        Per-segment results (``segment_by=``).
    """

    results: dict[str, PairwiseResult] = field(repr=False)
    measures: tuple[str, ...]
    systems: tuple[str, ...]
    test: str
    correction: str
    alpha: float
    alternative: str
    n_resamples: int
    confidence_level: float
    ci_method: str
    missing: str
    seed: int | None
    control: str | None = None
    family: str = "pairs"
    family_size: int | None = None
    n_clusters: int | None = None
    segments: SegmentComparison | None = field(default=None, repr=False)

    baseline = renamed_attribute("control")

    # -- tables ----------------------------------------------------------
    def methods(self) -> MethodsText:
        """The methods paragraph and its references (:mod:`mrrstats.stats.methods`)."""
        return methods_text(self)

    def to_frame(self) -> pd.DataFrame:
        """One row per pair and measure (columns as in the JSON ``pairs``)."""
        frames = [self.results[m].to_frame() for m in self.measures]
        frame = pd.concat(frames, ignore_index=True)
        frame["n_queries"] = np.concatenate(
            [np.full(len(self.results[m]), self.results[m].n_queries) for m in self.measures])
        return frame

    def means(self) -> pd.DataFrame:
        """DataFrame of means: one row per system, one column per measure."""
        data = {}
        for m in self.measures:
            r = self.results[m]
            mean = dict(zip(r.a, r.mean_a, strict=True))
            mean.update(zip(r.b, r.mean_b, strict=True))
            data[m] = [mean[s] for s in self.systems]
        frame = pd.DataFrame(data, index=pd.Index(self.systems, name="system"))
        frame.columns.name = "measure"
        return frame

    def _measure_iv(self, measure):
        if not isinstance(measure, str) or measure not in self.results:
            raise ParameterError(f"`measure` must be one of {list(self.results)}, got "
                                 f"{measure!r:.60}", name="measure")
        return measure

    def wins_matrix(self, measure: str) -> pd.DataFrame:
        """Boolean DataFrame: ``[x, y]`` is True when system x beats y significantly."""
        r = self.results[self._measure_iv(measure)]
        k = len(self.systems)
        pos = {s: i for i, s in enumerate(self.systems)}
        W = np.zeros((k, k), dtype=bool)
        hib = higher_is_better(measure)
        for a, b, diff, rej in zip(r.a, r.b, r.difference, r.reject, strict=True):
            if not rej or diff == 0:
                continue
            a_better = (diff > 0) == hib
            if self.alternative == "greater" and not a_better:
                continue
            if self.alternative == "less" and a_better:
                continue
            if a_better:
                W[pos[a], pos[b]] = True
            else:
                W[pos[b], pos[a]] = True
        return pd.DataFrame(W, index=list(self.systems), columns=list(self.systems))

    def leaderboard(self, measure: str | None = None) -> pd.DataFrame:
        r"""Ranks with their intervals and compact letters, from the same decisions.

        One row per system (best first): ``mean``, ``rank``, ``rank_low``,
        ``rank_high``, ``letters`` (systems sharing a letter are not
        significantly different). The rank interval of a system is
        :math:`[1 + \#\text{significantly better}, k -
        \#\text{significantly worse}]`; all of them hold simultaneously at
        the level of the decisions when the correction controls the
        family-wise error (Holm, Bonferroni, Tukey, max-T, ANOVA HSD; not BH
        or none). Not available with ``control`` (only :math:`k - 1` pairs).
        """
        if self.control is not None:
            raise ParameterError("a leaderboard needs all pairs; this comparison has only the "
                             f"pairs with the control {self.control!r}")
        m = self.measures[0] if measure is None else self._measure_iv(measure)
        f = leaderboard_frame(self.results[m], higher_is_better=higher_is_better(m))
        return f.sort_values(["rank", "rank_low"], kind="stable")

    def caption(self) -> str:
        """One sentence naming the test, sidedness, correction, alpha, B and seed."""
        return self._caption(latex=False)

    def _caption(self, latex: bool) -> str:
        """The caption; ``latex``: escaped, without the settings that
        :func:`~mrrstats.stats.compare_latex.comparison_latex` writes in math after it."""
        esc = latex_escape if latex else str
        r0 = self.results[self.measures[0]]
        corr = correction_label(r0.correction)
        side = {"two-sided": "two-sided", "greater": "one-sided (row system better)",
                "less": "one-sided (row system worse)"}[self.alternative]
        if r0.correction == "none":
            how = "no multiple-comparison correction"
        elif CORRECTIONS[r0.correction].joint_null:
            over = (f"the {self.family_size} tests of {len(self.measures)} measures x "
                    f"{len(r0)} pairs" if self.family == "measures"
                    else f"the {len(r0)} pairs of each measure")
            how = (f"{corr} over {over} (the systems' scores permuted within each query"
                   + (", in all measures at once)" if self.family == "measures" else ")"))
        elif self.family == "measures":
            how = (f"{corr} correction over the {self.family_size} tests of "
                   f"{len(self.measures)} measures x {len(r0)} pairs")
        else:
            how = f"{corr} correction over the {len(r0)} pairs of each measure"
        parts = [esc(f"{test_label(self.test)}, {side}"), esc(how)]
        if not latex:
            parts.append(f"alpha = {self.alpha:g}")
        if self.control is not None:
            parts.insert(1, f"each system against the control {esc(self.control)}")
        if self.n_clusters is not None and not latex:
            unit = "one sign flip" if self.test == "randomization" else "resampled"
            parts.append(f"queries in {self.n_clusters} clusters ({unit} per cluster)")
        if r0.n_resamples is not None and not latex:
            if r0.exact:
                parts.append(f"exact enumeration ({r0.n_resamples} sign vectors)")
            else:
                parts.append(f"B = {self.n_resamples}")
        if not latex and self.seed is not None and (
                r0.n_resamples is not None or self.ci_method in ("bca", "percentile", "basic")):
            parts.append(f"seed = {self.seed}")
        elif not latex and self.seed is None and r0.n_resamples is not None:
            parts.append("seed: caller's Generator")
        letters = ("Superscripts: the systems (by letter) that the row system beats "
                   "significantly after correction; best value in bold.")
        if self.control is None:
            fwer = CORRECTIONS[r0.correction].controls == "FWER" if r0.correction in \
                CORRECTIONS else False
            letters += (" Rank: interval of ranks from the same decisions"
                        + (" (simultaneous)" if fwer else " (not simultaneous: the "
                           "correction does not control the family-wise error)")
                        + "; group" + (" (italic letters)" if latex else "")
                        + ": systems sharing a letter are not significantly different.")
        if latex:
            letters = letters.replace("Superscripts:", "Superscript upright letters:")
        return "Mean per query; " + "; ".join(parts) + ". " + letters

    def _boards(self):
        """Per measure the leaderboard in system order, or None with a control."""
        if self.control is not None:
            return None
        return {m: leaderboard_frame(self.results[m], higher_is_better=higher_is_better(m))
                for m in self.measures}

    def _cells(self, fmt_value, fmt_sup, fmt_bold, digits, rank_sep="-"):
        letters = _letters(len(self.systems))
        means = self.means()
        boards = self._boards()
        rows = []
        for i, s in enumerate(self.systems):
            row = [letters[i], s]
            for m in self.measures:
                col = means[m]
                v = col.iloc[i]
                best = col.max() if higher_is_better(m) else col.min()
                text = fmt_value(f"{v:.{digits}f}")
                if v == best:
                    text = fmt_bold(text)
                beaten = self.wins_matrix(m).iloc[i].to_numpy()
                sup = "".join(letters[j] for j in np.flatnonzero(beaten))
                if sup:
                    text += fmt_sup(sup)
                row.append(text)
                if boards is not None:
                    b = boards[m].loc[s]
                    lo, hi = int(b["rank_low"]), int(b["rank_high"])
                    row.append(str(lo) if lo == hi else f"{lo}{rank_sep}{hi}")
                    row.append(str(b["letters"]))
            rows.append(row)
        return rows

    def _heads(self):
        out = []
        for m in self.measures:
            out.append(m)
            if self.control is None:
                one = len(self.measures) == 1
                out += ["rank" if one else f"{m} rank", "group" if one else f"{m} group"]
        return out

    def to_markdown(self, *, digits: int = 4) -> str:
        """Markdown table: one row per system, a column per measure, with superscripts."""
        digits = int_iv(digits, "digits", minimum=0, maximum=15)
        rows = self._cells(lambda t: t, lambda s: f"<sup>{s}</sup>", lambda t: f"**{t}**",
                           digits)
        head = ["", "system", *self._heads()]
        align = (["--:", ":-:", ":--"] if self.control is None else ["--:"]) * \
            len(self.measures)
        lines = ["| " + " | ".join(head) + " |",
                 "|" + "|".join([":--", ":--"] + align) + "|"]
        for row in rows:
            lines.append("| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |")
        lines.append("")
        lines.append(self.caption())
        text = "\n".join(lines) + "\n"
        if self.segments is not None:
            text += "\n" + self.segments.to_markdown(digits=digits)
        return text

    def to_latex(self, *, digits: int = 4, label: str | None = None,
                 table: Literal["means", "pairs"] = "means",
                 names: Mapping[str, str] | None = None, columns: Sequence[str] | None = None,
                 wide: bool = False) -> str:
        r"""LaTeX ``table`` (booktabs) with a caption that names every setting.

        Parameters
        ----------
        digits : int, keyword-only
            Decimals of means, differences and interval ends.
        label : str or None, keyword-only
            ``\label`` of the table.
        table : {"means", "pairs"}, keyword-only
            ``"means"``: one row per system, a column of means per measure (headed
            by the mean's name, ``MRR@10`` for ``RR@10``) with its rank interval
            and letter group. ``"pairs"``: one row per pair (and measure) with the
            difference of the means, its interval and the raw and adjusted p-values.
        names : mapping of str -> str or None, keyword-only
            Display names of systems and measures (``{"org_bm25.run": "BM25",
            "RR@10": "MRR@10"}``; plain text, escaped). Unmapped measures are
            headed by the name of their mean.
        columns : list of str or None, keyword-only
            The columns to show: for ``"means"`` among ``"mean"``, ``"rank"``,
            ``"group"`` (per measure); for ``"pairs"`` among ``"measure"``,
            ``"a"``, ``"b"``, ``"mean_a"``, ``"mean_b"``, ``"difference"``,
            ``"ci"``, ``"pvalue"``, ``"pvalue_adjusted"``, ``"d_z"``, ``"wins"``
            (default: measure (with several), a, b, difference, ci, pvalue,
            pvalue_adjusted).
        wide : bool, keyword-only
            ``table*`` (both columns of a two-column paper) instead of ``table``.

        Returns
        -------
        str

        Notes
        -----
        Marks (see :mod:`mrrstats.stats.compare_latex`): the systems a row beats
        significantly are superscript upright letters on its mean; compact-letter
        groups are italic letters in their own column; in the pairs table a rejected
        pair has a dagger on its difference (a double dagger when a step-down
        procedure rejects it although its interval contains 0). Every minus sign is
        ``$-$``. The caption gives the number of queries and their clustering,
        ``$\alpha$``, and :math:`B` with what one resample is.
        """
        digits = int_iv(digits, "digits", minimum=0, maximum=15)
        if label is not None and not isinstance(label, str):
            raise ParameterTypeError(f"`label` must be a string or None, got {label!r:.60}",
                                     name="label")
        return comparison_latex(self, digits=digits, label=label, table=table, names=names,
                                columns=columns, wide=wide, caption_of=self._caption)

    def to_string(self, *, digits: int = 4, wide: bool = False, width: int = 100) -> str:
        """Plain text (the CLI's ``--format table``, ``print(comparison)``).

        By default :meth:`to_table` (fits ``width`` columns); ``wide=True``
        (``--wide``): every column of every pair, one row per pair.
        """
        bool_iv(wide, "wide")
        if not wide:
            return self.to_table(width=width, digits=digits)
        digits = int_iv(digits, "digits", minimum=0, maximum=15)
        frame = self.to_frame()
        cols = ["measure", "a", "b", "mean_a", "mean_b", "difference", "ci_low", "ci_high",
                "pvalue", "pvalue_adjusted", "reject", "d_z", "wins", "ties", "losses"]
        if frame["reject_beyond_ci"].any():
            cols.insert(cols.index("reject") + 1, "reject_beyond_ci")
        with pd.option_context("display.width", 250, "display.max_columns", 50,
                               "display.max_rows", 100000,
                               "display.float_format", f"{{:.{digits}f}}".format):
            body = frame[cols].to_string(index=False)
            boards = self._boards()
            if boards is not None:
                for m in self.measures:
                    board = self.leaderboard(m)
                    body += f"\n\nLeaderboard ({m}):\n" + board.to_string()
            if self.segments is not None:
                seg = self.segments.to_frame()
                body += "\n\nSegments:\n" + seg[
                    ["measure", "segment", "n_queries", "a", "b", "mean_a", "mean_b",
                     "difference",
                     "ci_low", "ci_high", "pvalue", "pvalue_adjusted", "reject"]].to_string(
                        index=False) + "\n" + self.segments.caption()
        measured = measured_coverage_note(self.ci_method, self.confidence_level)
        if measured:
            measured = (f" Intervals: {interval_label(self.ci_method)}, {measured} "
                        "(mrrstats.defaults).")
        return (body + "\n\n" + self._plain_caption(boards=boards is not None) + measured
                + "\n")

    def __str__(self):
        return self.to_string()

    # -- JSON ------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The stable JSON contract (see the module documentation)."""
        pairs = []
        for m in self.measures:
            r = self.results[m]
            for q in range(len(r)):
                pairs.append({
                    "a": r.a[q], "b": r.b[q], "measure": m,
                    "mean_a": json_number(r.mean_a[q]), "mean_b": json_number(r.mean_b[q]),
                    "difference": json_number(r.difference[q]),
                    "ci_low": json_number(r.ci_low[q]), "ci_high": json_number(r.ci_high[q]),
                    "statistic": json_number(r.statistic[q]),
                    "pvalue": json_number(r.pvalue[q]), "pvalue_se": json_number(r.pvalue_se[q]),
                    "pvalue_adjusted": json_number(r.pvalue_adjusted[q]),
                    "reject": bool(r.reject[q]),
                    "reject_beyond_ci": bool(r.reject_beyond_ci[q]),  # type: ignore[index]
                    "test": r.test, "correction": r.correction, "ci_method": r.ci_method,
                    "marginal_low": json_number(None if r.marginal_low is None
                                                else r.marginal_low[q]),
                    "marginal_high": json_number(None if r.marginal_high is None
                                                 else r.marginal_high[q]),
                    "d_z": json_number(r.d_z[q]), "es_e": json_number(r.es_e[q]),
                    "wins": int(r.wins[q]), "ties": int(r.ties[q]), "losses": int(r.losses[q]),
                    "prob_superiority": json_number(r.prob_superiority[q]),
                    "n_queries": int(r.n_queries),
                })
        means = self.means()
        return {
            "settings": {
                "test": self.test, "correction": self.correction, "alpha": self.alpha,
                "alternative": self.alternative, "n_resamples": self.n_resamples,
                "confidence_level": self.confidence_level, "ci_method": self.ci_method,
                "seed": self.seed, "missing": self.missing, "control": self.control,
                "family": self.family, "family_size": self.family_size,
                "n_clusters": self.n_clusters,
            },
            "measures": list(self.measures),
            "systems": list(self.systems),
            "means": {m: {s: json_number(means.loc[s, m]) for s in self.systems}
                      for m in self.measures},
            "dropped_queries": {m: list(self.results[m].dropped_queries)
                                for m in self.measures},
            "pairs": pairs,
            "leaderboard": None if self.control is not None else {
                m: [{"system": s, "mean": json_number(r["mean"]), "rank": int(r["rank"]),
                     "rank_low": int(r["rank_low"]), "rank_high": int(r["rank_high"]),
                     "letters": str(r["letters"])}
                    for s, r in self.leaderboard(m).iterrows()] for m in self.measures},
            "segments": None if self.segments is None else self.segments.to_dict(),
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        """``json.dumps(self.to_dict())`` (strict JSON: no NaN or Infinity)."""
        int_iv(indent, "indent", minimum=0, maximum=64, allow_none=True)
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)
    # -- the terminal table ------------------------------------------------
    def to_table(self, *, width: int = 100, digits: int = 4) -> str:
        """Plain-text summary that fits ``width`` columns (``print(comparison)``, the CLI).

        Two blocks: each system's mean per measure with, in parentheses, the
        letters of the systems it beats significantly after correction; then
        every pair by letters: difference, confidence interval, raw and
        adjusted p-value, ``*`` when rejected (``(*)``: rejected by a step-down
        procedure beyond its simultaneous interval). :meth:`to_string` with
        ``wide=True`` (``mrrstats compare --wide``) gives every column.
        """
        width = int_iv(width, "width", minimum=20, maximum=10**5)
        digits = int_iv(digits, "digits", minimum=0, maximum=15)
        lines = self._means_block(width, digits) + self._pairs_block(digits)
        cl = f"{self.confidence_level:.0%} CI"
        beyond = any(self.results[m].reject_beyond_ci.any() for m in self.measures)  # type: ignore[union-attr]
        label = interval_label(self.ci_method)
        measured = measured_coverage_note(self.ci_method, self.confidence_level)
        if measured:
            label += f"; {measured}"
        note = (f"{self._plain_caption()} Means"
                f" per system, in parentheses the systems (by letter, or their number) it beats "
                f"significantly after correction; pairs: difference a - b with its {cl} "
                f"({label}), raw and adjusted p-value, * = rejected after correction"
                + ("; (*) = rejected by the step-down procedure although the simultaneous "
                   "interval contains 0" if beyond else "")
                + ". Every column: to_string(wide=True), mrrstats compare --wide.")
        lines.append("")
        lines += textwrap.wrap(note, width=width)
        return "\n".join(lines) + "\n"

    def _means_block(self, width, digits):
        """Lines of the means table (measures in blocks that fit ``width``)."""
        letters = _letters(len(self.systems))
        means = self.means()
        lead = max(len(s) for s in letters) + 2
        cells = {}
        for m in self.measures:
            wins = self.wins_matrix(m).to_numpy()
            col = []
            room = width - lead - 10  # a cell must fit beside a (shortened) name
            sep = "" if len(letters[-1]) == 1 else ","  # aa, ab, ... beyond 26 systems
            for i in range(len(self.systems)):
                beaten = sep.join(letters[j] for j in np.flatnonzero(wins[i]))
                if len(beaten) + digits + 6 > room:  # too many to list: their number
                    beaten = f"beats {int(wins[i].sum())}"
                col.append(fixed(means[m].iloc[i], digits) + (f" ({beaten})" if beaten else ""))
            cells[m] = col
        colw = {m: max(len(m), *(len(c) for c in cells[m])) for m in self.measures}
        name_w = max(len(s) for s in self.systems)
        # measures in blocks that fit; long system names are shortened to fit one measure
        blocks, cur = [], []
        for m in self.measures:
            if cur and lead + name_w + sum(colw[c] + 2 for c in [*cur, m]) > width:
                blocks.append(cur)
                cur = []
            cur.append(m)
        blocks.append(cur)
        room = width - lead - max(sum(colw[c] + 2 for c in b) for b in blocks)
        name_w = max(8, min(name_w, room))

        def short(s):
            return s if len(s) <= name_w else s[:name_w - 1] + "~"

        lines = []
        for b in blocks:
            lines.append(" " * lead + "system".ljust(name_w)
                         + "".join(("  " + m.rjust(colw[m])) for m in b))
            for i, s in enumerate(self.systems):
                lines.append(letters[i].ljust(lead) + short(s).ljust(name_w)
                             + "".join("  " + cells[m][i].rjust(colw[m]) for m in b))
            lines.append("")
        return lines

    def _pairs_block(self, digits):
        """Lines of the pairs table: difference, interval, p-values, decision."""
        letters = _letters(len(self.systems))
        head = ["measure", "pair", "a - b", f"{self.confidence_level:.0%} CI", "p", "p adj.",
                ""]
        rows = []
        pos = {s: i for i, s in enumerate(self.systems)}
        for m in self.measures:
            r = self.results[m]
            floor = None if r.exact else r.n_resamples  # a Monte-Carlo p-value's 1/(B+1)
            for q in range(len(r)):
                mark = ("(*)" if r.reject_beyond_ci[q] else "*") if r.reject[q] else ""
                rows.append([m, f"{letters[pos[r.a[q]]]} - {letters[pos[r.b[q]]]}",
                             fixed(r.difference[q], digits),
                             f"[{fixed(r.ci_low[q], digits)}, {fixed(r.ci_high[q], digits)}]",
                             pvalue_text(r.pvalue[q], floor),
                             pvalue_text(r.pvalue_adjusted[q], floor), mark])
        return text_table(head, rows, align="llrrrrl").splitlines()

    def _plain_caption(self, *, boards=False):
        """:meth:`caption` without what plain text cannot show (superscripts, bold).

        ``boards``: keep the sentence on the leaderboards (rank, group), which
        the wide text shows.
        """
        text = self.caption()
        i = text.find(" Superscripts")
        if i < 0:
            return text
        j = text.find("bold.", i)
        rest = text[j + len("bold."):] if (boards and j >= 0) else ""
        return text[:i] + rest


@overload
def compare(scores: Scores, *, test: str = TEST,
            correction: Correction | None = CORRECTION,
            alpha: float = ALPHA, n_resamples: int = N_RESAMPLES,
            confidence_level: float = CONFIDENCE_LEVEL, alternative: Alternative = ALTERNATIVE,
            measure: str | Sequence[str] | None = None, ci: str | None = None, atol: float = 0.0,
            missing: Missing = MISSING, batch: int | None = None,
            test_options: Mapping[str, Any] | None = None, control: str | int | None = None,
            family: Literal["pairs", "measures"] = "pairs",
            clusters: Mapping[str, Any] | ArrayLike | str | None = None,
            segment_by: Mapping[str, Any] | ArrayLike | str | None = None,
            segment_correction: str = "holm", progress: bool | None = None,
            replicates: None = None, workers: int = WORKERS,
            rng: Seed = None) -> Comparison: ...


@overload
def compare(scores: Scores, *, test: str = TEST,
            correction: Correction | None = CORRECTION,
            alpha: float = ALPHA, n_resamples: int = N_RESAMPLES,
            confidence_level: float = CONFIDENCE_LEVEL, alternative: Alternative = ALTERNATIVE,
            measure: str | Sequence[str] | None = None, ci: str | None = None, atol: float = 0.0,
            missing: Missing = MISSING, batch: int | None = None,
            test_options: Mapping[str, Any] | None = None, control: str | int | None = None,
            family: Literal["pairs", "measures"] = "pairs",
            clusters: Mapping[str, Any] | ArrayLike | str | None = None,
            segment_by: Mapping[str, Any] | ArrayLike | str | None = None,
            segment_correction: str = "holm", progress: bool | None = None,
            replicates: Mapping[str, Sequence[str]], workers: int = WORKERS,
            rng: Seed = None) -> ReplicateComparison: ...


@tracked("mrrstats compare")
@renamed_parameters(zero_tolerance="atol", baseline="control")
def compare(scores: Scores, *, test: str = TEST,
            correction: Correction | None = CORRECTION,
            alpha: float = ALPHA, n_resamples: int = N_RESAMPLES,
            confidence_level: float = CONFIDENCE_LEVEL, alternative: Alternative = ALTERNATIVE,
            measure: str | Sequence[str] | None = None, ci: str | None = None, atol: float = 0.0,
            missing: Missing = MISSING, batch: int | None = None,
            test_options: Mapping[str, Any] | None = None, control: str | int | None = None,
            family: Literal["pairs", "measures"] = "pairs",
            clusters: Mapping[str, Any] | ArrayLike | str | None = None,
            segment_by: Mapping[str, Any] | ArrayLike | str | None = None,
            segment_correction: str = "holm", progress: bool | None = None,
            replicates: Mapping[str, Sequence[str]] | None = None, workers: int = WORKERS,
            rng: Seed = None) -> Comparison | ReplicateComparison:
    r"""Compare systems pairwise on one or more measures, with correction and CIs.

    Parameters
    ----------
    scores : DataFrame, dict of str -> DataFrame, or Evaluation
        Per-query scores: a DataFrame with one row per query and one column
        per system; a dict mapping measure names to such frames; or an
        :class:`mrrstats.Evaluation` (every evaluated measure, via
        ``Evaluation.scores(measure)``).
    test : str, keyword-only
        ``"t"``, ``"wilcoxon"``, ``"sign"``, ``"randomization"``,
        ``"bootstrap"``, ``"bootstrap-t"``, ``"tukey"``, ``"maxt"``,
        ``"anova-hsd"`` or ``"dunnett"`` (with ``control``; see
        :func:`mrrstats.pairwise_tests`).
    correction : {"single-step", "single-step-skew", "holm", "bonferroni", "bh", "none"} or None
        Adjustment across the pairs of each measure (the family is one
        measure's pairs; see ``family``). ``"single-step"`` (default): single-step
        max-T of the studentised differences under within-query permutations,
        with finite simultaneous intervals that exclude 0 exactly for the rejected
        pairs (see the table below and :func:`mrrstats.pairwise_tests`).
        ``"single-step-skew"``: the same with Hall's skewness correction of every
        pair's statistic (asymmetric intervals with better coverage on skewed
        measures, fewer rejections; queries only, no ``clusters``). Holm,
        Bonferroni and BH adjust the p-values; Holm's table shows the Bonferroni
        simultaneous interval and marks the pairs Holm rejects beyond it
        (``reject_beyond_ci``). Superseded by ``"tukey"``, ``"maxt"``,
        ``"anova-hsd"`` and ``"dunnett"``, which control the family-wise error
        themselves.
    alpha : float, keyword-only
    n_resamples : int, keyword-only
    confidence_level : float, keyword-only
    alternative : {"two-sided", "less", "greater"}, keyword-only
        One-sided alternatives are about the first system of each pair
        (``a`` precedes ``b`` in column order); their intervals have one
        infinite end.
    measure : str or list of str, optional, keyword-only
        Name of the measure of a single DataFrame (default
        ``frame.attrs["measure"]`` or ``"score"``), or the measures to take
        from a dict or an Evaluation (default all).
    ci : str or None, keyword-only
        Interval of the mean differences (see :func:`mrrstats.pairwise_tests`).
        By default the simultaneous interval of the correction's family:
        single-step max-T (it agrees with every decision), Bonferroni for Holm
        and Bonferroni, FCR-adjusted for BH. ``ci="consistent"`` gives intervals
        that agree with Holm's decisions (Strassburger & Bretz 2008: a rejected
        pair gets only a direction, ``[0, inf)``). Every pair also carries its
        marginal t interval (``marginal_low``, ``marginal_high``), chosen from
        measured coverage (below).
    atol : float, keyword-only
        A per-query difference :math:`|d| \le` ``atol`` is a tie (wins/ties/losses,
        the sign test).
    missing : {"raise", "drop"}, keyword-only
        A query missing for some system (NaN, e.g. a run that lacks it in an
        Evaluation) is an error by default; ``"drop"`` removes it from that
        measure for all systems and lists it in ``dropped_queries``.
    batch : int or None, keyword-only
        Resamples in memory at once (never changes results).
    test_options : dict, optional
        Passed to :func:`mrrstats.pairwise_tests`.
    control : str or int, optional, keyword-only
        Compare every system with this one only (:math:`k - 1` comparisons per
        measure, corrected over those: by default the many-to-one single-step
        max-T); ``test="maxt"`` gives the many-to-one step-down max-T and
        ``test="dunnett"`` Dunnett's test (see :func:`mrrstats.pairwise_tests`).
    family : {"pairs", "measures"}, keyword-only
        ``"pairs"`` (default): one correction per measure. ``"measures"``: one
        correction over all measures x pairs (the family size is in the
        caption and in ``settings.family_size``); the intervals then use that
        family. Needs a per-pair test. With the single-step correction one maximum
        over all measures x pairs, every resample permuting the systems of a query in
        all measures at once (the measures must hold the same queries).
    clusters : mapping, array_like or str, optional, keyword-only
        Cluster of each query (``{query: label}``, one label per query in
        table order, or a column of a DataFrame ``scores``), for the
        randomization (one sign flip per cluster) and bootstrap tests and the
        single-step correction (one permutation per cluster).
    segment_by : mapping, array_like or str, optional, keyword-only
        Segment of each query (same forms as ``clusters``): adds
        ``Comparison.segments``, per-segment means with t intervals and the
        test within each segment, adjusted across segments.
    segment_correction : str, keyword-only
        Correction across the segments of each pair and measure (default
        ``"holm"``).
    progress : bool or None, keyword-only
        A bar counting the resamples on standard error; default (None) only on
        an interactive terminal outside CI (:func:`mrrstats.progress.progress_enabled`).
        Never changes the result.
    replicates : mapping of str -> list of str, optional, keyword-only
        Several runs per system (seeds, folds): ``{system: [run, ...]}`` names
        the columns of ``scores`` that are runs of each system. The comparison
        is then :func:`mrrstats.replicate_tests` (one row per pair of systems,
        tests and intervals that count queries and replicates; ``test`` is
        its ``method``: ``"bootstrap"`` for the default test, or ``"t"``,
        ``"mixed"``), and a :class:`~mrrstats.ReplicateComparison` is returned.
    workers : int, keyword-only
        Threads of the resampling kernels (-1: all cores); never changes results.
    rng : None, int or numpy.random.Generator, keyword-only
        One Generator serves all measures, in order.

    Returns
    -------
    Comparison
        (:class:`~mrrstats.ReplicateComparison` with ``replicates``.)

    Notes
    -----
    The default, ``correction="single-step"``, chosen from measurements on the
    27 real TREC score matrices of ``tests/data/score_matrices`` (TREC-5/6/7 ad hoc and Web
    2010/2011/2013, six measures; ``benchmarks/calibration/single_step_default.py``):
    k = 10 systems (45 pairs), alpha = 0.05, R = 500 replicates per cell (Monte-Carlo
    SE 0.010). FWER: every topic's values shuffled among the systems (a real null);
    coverage: topics drawn with replacement, truth = the mean differences over all
    topics, all 45 intervals at once; rejected: mean rejected pairs of 45 in those
    replicates, and on the first 20 systems of every matrix (5,130 pairs).

    ==========================  =====  =====  ========  ========  ======  ======  ======
    procedure (interval)        FWER   FWER   coverage  coverage  reject  reject  reject
                                n=25   n=50   n=25      n=50      n=25    n=50    all
    ==========================  =====  =====  ========  ========  ======  ======  ======
    single-step max-T (own)     0.052  0.058  0.908     0.918     9.17    15.42   1027
    randomization + Holm        0.034  0.040  0.928     0.944     7.87    14.10   988
    (Bonferroni interval)
    randomised Tukey HSD        0.042  0.044  0.970     0.978     7.99    13.48   980
    step-down max-T (single-    0.054  0.062  0.906     0.924     9.69    16.21   1079
    step interval)
    ==========================  =====  =====  ========  ========  ======  ======  ======

    The single-step max-T holds its level on real nulls and rejects more pairs than
    randomization + Holm (on the full matrices Holm rejects 43 pairs it does not,
    it rejects 82 that Holm does not); none of its 5,130 intervals disagrees with its
    decision, and they are 1.86 times as wide as the marginal t interval (at most
    1.90). Their simultaneous coverage on resampled real data is below nominal
    (0.87-0.92 in two runs), as for every t-based interval here (Bonferroni t
    0.91-0.93): the misses come from skewed measures (ERR@20, RR), whose t statistics
    have heavier tails than the within-query permutations show. The randomised Tukey
    HSD covers (0.97) with one width for every pair; a studentised bootstrap max-T
    covers (0.97 at 25 topics) but rejects half as many pairs
    (``benchmarks/calibration/results_single_step_default.md``).

    Pooled over three runs of this design (2,120 replicates per cell), the default
    intervals cover 0.886 at 25 topics and 0.918 at 50 for a nominal 0.95 (0.785 at
    10 topics in the validity harness, ``benchmarks/results_validity.md``); the text
    and LaTeX tables, ``mrrstats compare`` and the report say so beside the nominal
    level ("95% simultaneous, 0.79 measured at 10 topics, 0.89 at 25, 0.92 at 50", read from
    ``mrrstats.stats.coverage.COVERAGE``). ``correction="single-step-skew"``
    (Hall's 1992 skewness correction of every pair's studentised difference, in
    every permutation with its own skewness; intervals inverted in closed form)
    covers 0.928 and 0.951 (1,620 replicates per cell) with an exact permutation
    level and no interval against its decision, but rejects 4-8% fewer pairs than the
    default (8.15 and 14.53 of 45 against 8.86 and 15.17; Holm 7.54 and 13.96) and
    980 of 5,130 on the full matrices (Holm 988): the default stays the more
    powerful procedure (``benchmarks/calibration/results_maxt_constructions.md``).

    Coverage of marginal 95% intervals of one pair's mean difference, measured
    on real TREC score matrices (``benchmarks/calibration/coverage_pair_ci.py``: 12 column
    pairs of TREC 5-7 ad hoc and Web 2010/2011, AP, RR, P@10, nDCG@20; ``n``
    topics resampled from the pair's topics, whose mean difference is the
    truth; R = 1000 replications, B = 999; one cell's Monte-Carlo SE 0.007):

    ======  =============  =============  =============  =============
    n       t              percentile     BCa            studentized
    ======  =============  =============  =============  =============
    25      0.945 (0.899)  0.924 (0.888)  0.917 (0.841)  0.938 (0.883)
    50      0.949 (0.936)  0.938 (0.924)  0.933 (0.888)  0.942 (0.911)
    ======  =============  =============  =============  =============

    Mean over the pairs (smallest in brackets). The t interval is the closest
    to nominal, so it is the marginal interval; BCa, the former default, is
    kept as ``ci="bca"``.

    Examples
    --------
    >>> import numpy as np, pandas as pd, mrrstats
    >>> rng = np.random.default_rng(0)
    >>> base = rng.random(40)
    >>> df = pd.DataFrame({"bm25": base, "dense": np.clip(base + 0.2, 0, 1),
    ...                    "rerank": np.clip(base + rng.normal(0.2, 0.1, 40), 0, 1)})
    >>> res = mrrstats.compare(df, measure="RR", n_resamples=2000, rng=1)
    >>> print(res.to_frame()[["a", "b", "reject"]].to_string(index=False))
       a      b  reject
    bm25  dense    True
    bm25 rerank    True
    dense rerank   False

    Every system against a control, with Dunnett's many-to-one test:

    >>> res = mrrstats.compare(df, measure="RR", control="bm25", test="dunnett")
    >>> print(res.to_frame()[["a", "b", "reject"]].to_string(index=False))
         a    b  reject
     dense bm25    True
    rerank bm25    True
    """
    if replicates is not None:
        method = {"randomization": "bootstrap"}.get(test, test)
        if not isinstance(method, str) or method not in ("bootstrap", "t", "mixed"):
            raise ParameterError("with `replicates`, `test` must be 'randomization' or "
                             f"'bootstrap' (two-stage bootstrap), 't' or 'mixed'; got {test!r}")
        return replicate_tests(scores, replicates, method=method,  # type: ignore[arg-type]
                               alternative=alternative, correction=correction, alpha=alpha,
                               confidence_level=confidence_level, n_resamples=n_resamples,
                               measure=measure, missing=missing, batch=batch,  # type: ignore[arg-type]
                               workers=workers, rng=rng)
    (frames, test, correction, alpha, n_resamples, cl, alternative, gen, seed, family,
     cluster_labels, segment_labels) = _compare_iv(
        scores, test, correction, alpha, n_resamples, confidence_level, alternative, rng,
        measure, missing, family, clusters, segment_by)
    try:
        segment_correction = correction_spec(segment_correction).name
    except (ParameterError, ParameterTypeError) as exc:
        raise type(exc)(f"`segment_correction`: {exc}", name="segment_correction") from None
    opts = dict(test=test, correction=correction, alpha=alpha, alternative=alternative,
                n_resamples=n_resamples, confidence_level=cl, ci=ci, atol=atol,
                control=control, batch=batch, missing=missing, test_options=test_options,
                workers=workers)
    results = _measure_results(frames, opts, family, cluster_labels, gen, seed)
    first = results[next(iter(results))]
    size = sum(len(r) for r in results.values()) if family == "measures" else len(first)
    segs = None
    if segment_labels:
        segs = segment_pairs(frames, segment_labels, test=test,
                             segment_correction=segment_correction, alpha=alpha,
                             alternative=alternative, n_resamples=n_resamples,
                             confidence_level=cl, atol=atol, batch=batch,
                             test_options=test_options, gen=gen, control=first.control,
                             clusters=cluster_labels or None)
        segs = dataclasses.replace(segs, seed=seed)
    return Comparison(results, tuple(results), tuple(first.systems), test, correction, alpha,
                      alternative, n_resamples, cl, first.ci_method, missing, seed,
                      control=first.control, family=family, family_size=size,
                      n_clusters=first.n_clusters, segments=segs)


def _measure_results(frames, opts, family, cluster_labels, gen, seed):
    """Per measure the pairwise result (one Generator, in order), with the same systems."""
    if family == "measures" and CORRECTIONS[opts["correction"]].joint_null:
        # one max-T over measures x pairs: the same permutations for every measure
        results = pairwise_tests_over_measures(frames, clusters=cluster_labels, rng=gen,
                                               **opts)
    else:
        fam = None
        if family == "measures" and opts["correction"] != "none":
            fam = _family_decisions(frames, opts, cluster_labels, gen)
        results = {m: pairwise_tests_in_family(frame, None if fam is None else fam[m],
                                               clusters=cluster_labels.get(m), rng=gen, **opts)
                   for m, frame in frames.items()}
    first = next(iter(results))
    for m, r in results.items():
        if tuple(r.systems) != tuple(results[first].systems):
            raise ParameterError(f"measure {m!r} has systems {list(r.systems)}, but {first!r} has "
                             f"{list(results[first].systems)}: every measure must compare the "
                             "same systems")
    return {m: dataclasses.replace(r, measure=m, seed=seed) for m, r in results.items()}


def _family_decisions(frames, opts, cluster_labels, gen):
    """One correction over all measures x pairs: each measure's share of the decisions.

    The tests run once here, on a copy of the generator, and again (identically)
    in :func:`compare`, which then builds the intervals for the whole family.
    """
    alpha, cl, correction = opts["alpha"], opts["confidence_level"], opts["correction"]
    replay = np.random.Generator(type(gen.bit_generator)())
    replay.bit_generator.state = gen.bit_generator.state
    pvals = {}
    for m, frame in frames.items():
        r = pairwise_tests(frame, **{**opts, "correction": "none", "ci": "none"},
                           clusters=cluster_labels.get(m), rng=replay)
        pvals[m] = r.pvalue
    allp = np.concatenate(list(pvals.values()))
    p_adj, reject = adjust_pvalues(allp, correction, alpha)
    reject_ci = reject if 1.0 - cl == alpha else adjust_pvalues(allp, correction, 1.0 - cl)[1]
    out, pos = {}, 0
    for m, p in pvals.items():
        sl = slice(pos, pos + p.size)
        out[m] = {"p_adj": p_adj[sl], "reject": reject[sl], "reject_ci": reject_ci[sl],
                  "m": allp.size, "r_ci": int(reject_ci.sum())}
        pos += p.size
    return out


def _compare_iv(scores, test, correction, alpha, n_resamples, confidence_level, alternative,
                rng, measure, missing, family, clusters, segment_by):
    spec = test_spec(test)
    test = spec.name
    correction = correction_spec(correction).name
    alpha = alpha_iv(alpha)
    n_resamples = n_resamples_iv(n_resamples)
    cl = confidence_level_iv(confidence_level)
    alternative_iv(alternative)
    if alternative not in spec.alternatives:
        raise ParameterError(f"`alternative` must be 'two-sided' for test={test!r}")
    if not isinstance(missing, str) or missing not in ("raise", "drop"):
        raise ParameterError(f"`missing` must be 'raise' or 'drop', got {missing!r}")
    if measure is not None and not isinstance(measure, str):
        if not isinstance(measure, list | tuple) or not all(isinstance(m, str) for m in measure):
            raise ParameterTypeError("`measure` must be a string or a list of strings")
    if isinstance(scores, pd.DataFrame) and measure is not None and not isinstance(measure,
                                                                                 str):
        raise ParameterTypeError("`measure` must be a single name when `scores` is a DataFrame")
    if not isinstance(family, str) or family not in ("pairs", "measures"):
        raise ParameterError(f"`family` must be 'pairs' or 'measures', got {family!r}")
    if family == "measures" and spec.family:
        raise ParameterError(f"family='measures' needs a per-pair test and a correction; "
                         f"test={test!r} controls the error within each measure")
    # label columns of a frame (clusters='conversation') leave the score columns
    frame = scores if isinstance(scores, pd.DataFrame) else None
    drop = [c for c in (clusters, segment_by) if isinstance(c, str)]
    if drop:
        if frame is None or any(c not in frame.columns for c in drop):
            raise ParameterError(f"`clusters`/`segment_by` {drop} name no column of `scores` "
                             "(a column name needs a DataFrame)")
        scores = frame.drop(columns=drop)
    tables = as_score_tables(scores, measures=measure, missing=missing, min_systems=2,
                             min_queries=2)
    frames = tables
    cluster_labels, segment_labels = {}, {}
    for m, t in tables.items():
        if clusters is not None:
            cluster_labels[m] = query_labels(clusters, t.queries, name="clusters", frame=frame)
        if segment_by is not None:
            segment_labels[m] = query_labels(segment_by, t.queries, name="segment_by",
                                             frame=frame)
    gen, seed = rng_iv(rng)
    return (frames, test, correction, alpha, n_resamples, cl, alternative, gen, seed, family,
            cluster_labels, segment_labels)

