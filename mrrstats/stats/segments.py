r"""Segments: per-segment means, intervals and tests, corrected across segments.

RAG questions by type, TREC topics by category, CAsT turns by conversation:
``compare(..., segment_by=...)`` answers "where does system A beat B?" with
one row per segment (and pair and measure): each system's mean with its t
interval, the mean difference with the interval of the test, the test's
p-value within the segment, and that p-value adjusted across the segments
(Holm by default; the family is the segments of one pair and measure, and its
size is in the table).

Names without a leading underscore are public within the package.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..errors import ParameterError, ParameterTypeError
from ..metrics.evaluation import Evaluation
from ..metrics.measures import measures_iv
from ..validation import confidence_level_iv, missing_iv
from .corrections import adjust_pvalues
from .designs import query_labels
from .intervals import t_interval as _t_interval
from .methods import MethodsText
from .methods_readers import methods_text
from .pairwise import pairwise_tests
from .registry import correction_label, correction_spec, test_label

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from .._typing import MeasuresInput, Missing

__all__ = ["SegmentComparison", "by_segment", "query_labels", "segment_pairs"]


def _mean_interval(x, cl):
    """Mean and two-sided t interval (NaN bounds below two queries)."""
    n = x.size
    m = float(x.mean()) if n else math.nan
    if n < 2:
        return m, math.nan, math.nan
    lo, hi = _t_interval(m, float(x.std(ddof=1)) / math.sqrt(n), n - 1, "two-sided", cl)
    return m, float(lo), float(hi)


@dataclass(frozen=True, eq=False)
class SegmentComparison:
    """Per-segment results of :func:`mrrstats.compare` with ``segment_by``.

    Attributes
    ----------
    frame : DataFrame
        One row per measure, segment and pair (see :meth:`to_frame`).
    means_frame : DataFrame
        One row per measure, segment and system: ``n_queries``, ``mean`` and
        its t interval ``ci_low``, ``ci_high``.
    segments : tuple
        Segment labels in order of first appearance.
    test : str
        The test run within each segment.
    segment_correction : str
        Correction across the segments of each pair and measure.
    alpha, confidence_level : float
    alternative : str
    n_resamples : int or None
        ``B`` of the test within each segment (for the tests that resample).
    seed : int or None
        The seed of :func:`mrrstats.compare` (None when a Generator was passed).
    """

    frame: pd.DataFrame = field(repr=False)
    means_frame: pd.DataFrame = field(repr=False)
    segments: tuple
    test: str
    segment_correction: str
    alpha: float
    confidence_level: float
    alternative: str = "two-sided"
    n_resamples: int | None = None
    seed: int | None = None

    def methods(self) -> MethodsText:
        """The methods paragraph and its references (:mod:`mrrstats.stats.methods`)."""
        return methods_text(self)

    def to_frame(self) -> pd.DataFrame:
        """Tidy table: one row per measure, segment and pair.

        Columns: ``measure, segment, n_queries, a, b, mean_a, a_low, a_high,
        mean_b, b_low, b_high, difference, ci_low, ci_high, statistic, pvalue,
        pvalue_adjusted, reject, family_size, test, correction``. ``ci_low,
        ci_high`` are the test's own marginal interval within the segment
        (``ci_method`` of the unadjusted test); ``pvalue_adjusted`` adjusts
        across the ``family_size`` segments of the pair and measure that
        could be tested (two queries or more).
        """
        return self.frame.copy()

    def caption(self) -> str:
        """One sentence naming the test, the correction across segments and alpha."""
        fam = self.frame["family_size"].max() if len(self.frame) else 0
        return (f"Per segment: mean per query with {self.confidence_level:.0%} t intervals; "
                f"{test_label(self.test)} within each segment; "
                f"{correction_label(self.segment_correction)} correction across the "
                f"{fam} segments of each pair and measure; alpha = {self.alpha:g}.")

    def to_markdown(self, *, digits: int = 4) -> str:
        """Markdown table (one row per segment and pair) with the caption below."""
        cols = ["measure", "segment", "n_queries", "a", "b", "mean_a", "mean_b", "difference",
                "ci_low", "ci_high", "pvalue", "pvalue_adjusted", "reject"]
        f = self.frame[cols]
        lines = ["| " + " | ".join(cols) + " |", "|" + "|".join(["---"] * len(cols)) + "|"]
        for row in f.itertuples(index=False):
            cells = [f"{v:.{digits}f}" if isinstance(v, float) else str(v) for v in row]
            lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
        return "\n".join(lines) + "\n\n" + self.caption() + "\n"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: settings, ``rows`` (the tidy table) and ``means``."""
        def clean(records):
            out = []
            for r in records:
                out.append({k: (None if isinstance(v, float) and not math.isfinite(v) else
                                (v.item() if hasattr(v, "item") else v))
                            for k, v in r.items()})
            return out
        return {"test": self.test, "segment_correction": self.segment_correction,
                "alpha": self.alpha, "confidence_level": self.confidence_level,
                "segments": [str(s) for s in self.segments],
                "rows": clean(self.frame.assign(segment=self.frame["segment"].astype(str))
                              .to_dict("records")),
                "means": clean(self.means_frame.assign(
                    segment=self.means_frame["segment"].astype(str)).to_dict("records"))}


def segment_pairs(tables, labels, *, test, segment_correction, alpha, alternative,
                  n_resamples, confidence_level, atol, batch, test_options, gen,
                  control=None, clusters=None):
    """Run ``test`` within every segment and adjust across segments (see the module).

    ``tables``: ``{measure: ScoreTable}``; ``labels``: one segment label per
    query of the tables (an array when every table has the same queries), or
    ``{measure: labels}``; ``clusters``: the same for cluster labels, or None.
    Tests draw from ``gen`` segment by segment, measure by measure.
    """
    corr = correction_spec(segment_correction).name
    by_m = labels if isinstance(labels, dict) else {m: labels for m in tables}
    cl_by_m = clusters if isinstance(clusters, dict) or clusters is None else \
        {m: clusters for m in tables}
    segs = list(dict.fromkeys(x for lab in by_m.values() for x in lab.tolist()))
    rows, mrows = [], []
    for m, table in tables.items():
        labels = by_m[m]
        clusters = None if cl_by_m is None else cl_by_m.get(m)
        X = table.values
        for s in segs:
            idx = np.flatnonzero(labels == s)
            for j, sysname in enumerate(table.systems):
                mean, lo, hi = _mean_interval(X[idx, j], confidence_level)
                mrows.append({"measure": m, "segment": s, "system": sysname,
                              "n_queries": int(idx.size), "mean": mean, "ci_low": lo,
                              "ci_high": hi})
            extra = {}
            if control is not None:
                extra["control"] = control
            if clusters is not None:
                extra["clusters"] = clusters[idx]
            testable = idx.size >= 2 and (clusters is None
                                          or np.unique(clusters[idx].astype(str)).size >= 2)
            if testable:
                frame = pd.DataFrame(X[idx], columns=list(table.systems))
                r = pairwise_tests(frame, test=test, correction="none", alpha=alpha,
                                   alternative=alternative, n_resamples=n_resamples,
                                   confidence_level=confidence_level,
                                   atol=atol, batch=batch,
                                   test_options=test_options, rng=gen, **extra)
                part = r.to_frame()[["a", "b", "mean_a", "mean_b", "difference", "ci_low",
                                     "ci_high", "statistic", "pvalue"]]
            else:  # fewer than two queries (or clusters): means only, no test
                names = list(table.systems)
                if control is None:
                    pairs = [(names[i], names[j]) for i in range(len(names))
                             for j in range(i + 1, len(names))]
                else:
                    pairs = [(a, control) for a in names if a != control]
                col = dict(zip(names, X[idx].mean(axis=0) if idx.size else
                               np.full(len(names), np.nan), strict=True))
                part = pd.DataFrame({"a": [a for a, _ in pairs], "b": [b for _, b in pairs],
                                     "mean_a": [col[a] for a, _ in pairs],
                                     "mean_b": [col[b] for _, b in pairs]})
                part["difference"] = part["mean_a"] - part["mean_b"]
                for c in ("ci_low", "ci_high", "statistic", "pvalue"):
                    part[c] = np.nan
            part.insert(0, "n_queries", int(idx.size))
            part.insert(0, "segment", s)
            part.insert(0, "measure", m)
            rows.append(part)
    frame = pd.concat(rows, ignore_index=True)
    # the system intervals beside each pair
    mf = pd.DataFrame(mrows)
    key = mf.set_index(["measure", "segment", "system"])
    for side in ("a", "b"):
        ix = pd.MultiIndex.from_arrays([frame["measure"], frame["segment"], frame[side]])
        frame[f"{side}_low"] = key["ci_low"].reindex(ix).to_numpy()
        frame[f"{side}_high"] = key["ci_high"].reindex(ix).to_numpy()
    # correction across segments, per measure and pair
    frame["pvalue_adjusted"] = np.nan
    frame["reject"] = False
    frame["family_size"] = 0
    for _, g in frame.groupby(["measure", "a", "b"], sort=False):
        ok = g.index[g["pvalue"].notna()]
        if len(ok):
            p_adj, rej = adjust_pvalues(frame.loc[ok, "pvalue"].to_numpy(), corr, alpha)
            frame.loc[ok, "pvalue_adjusted"] = p_adj
            frame.loc[ok, "reject"] = rej
        frame.loc[g.index, "family_size"] = len(ok)
    frame["test"] = test
    frame["correction"] = corr
    cols = ["measure", "segment", "n_queries", "a", "b", "mean_a", "a_low", "a_high",
            "mean_b", "b_low", "b_high", "difference", "ci_low", "ci_high", "statistic",
            "pvalue", "pvalue_adjusted", "reject", "family_size", "test", "correction"]
    frame = frame[cols]
    frame["reject"] = frame["reject"].astype(bool)
    return SegmentComparison(frame, mf, tuple(segs), test, corr, alpha, confidence_level,
                             alternative, n_resamples)


def by_segment(evaluation: Evaluation,
               segment_by: Mapping[str, Any] | pd.Series | Callable[[str], Any], *,
               measure: MeasuresInput | None = None, confidence_level: float = 0.95,
               missing: Missing = "raise") -> pd.DataFrame:
    """Per-segment means with t intervals, per run, of an :class:`Evaluation`.

    Parameters
    ----------
    evaluation : Evaluation
        The result of :func:`mrrstats.evaluate` (or ``evaluate_flat``).
    segment_by : mapping, Series or callable
        ``{query: segment}``, a Series indexed by query id, or a function
        ``query -> segment``.
    measure : str or sequence of str, optional
        The measures to summarise; all evaluated measures by default.
    confidence_level : float, default 0.95
        Two-sided level of the t interval (the same interval as
        ``compare(..., segment_by=...)``).
    missing : {'raise', 'drop'}, default 'raise'
        A query without a segment raises a ``ValueError`` naming a few, or
        (``'drop'``) is left out.

    Returns
    -------
    DataFrame
        One row per run, measure and segment: ``run, measure, segment,
        n_queries, mean, ci_low, ci_high`` (bounds NaN below two queries).
        Segments in order of first appearance.

    Examples
    --------
    >>> import mrrstats
    >>> from mrrstats.stats.segments import by_segment
    >>> ev = mrrstats.evaluate({"1_1": {"a": 1}, "1_2": {"b": 1}, "2_1": {"a": 1}},
    ...                        {"1_1": ["a", "b"], "1_2": ["a", "b"], "2_1": ["b", "a"]},
    ...                        ["RR"])
    >>> by_segment(ev, lambda q: q.split("_")[0])[["segment", "n_queries", "mean"]]
      segment  n_queries  mean
    0       1          2  0.75
    1       2          1  0.50
    """
    cl = confidence_level_iv(confidence_level)
    missing = missing_iv(missing)
    if not isinstance(evaluation, Evaluation):
        raise ParameterTypeError(f"`evaluation` must be an Evaluation (from mrrstats.evaluate), "
                                 f"got {type(evaluation).__name__}", name="evaluation")
    names = list(evaluation.measure_names) if measure is None else \
        [str(m) for m in measures_iv(measure, "measure")]
    rows = []
    for run in evaluation.runs:
        values = evaluation.values[run]
        unknown = [m for m in names if m not in values.columns]
        if unknown:
            raise ParameterError(f"`measure`: {unknown} not evaluated; have "
                                 f"{evaluation.measure_names}", name="measure")
        queries = [str(q) for q in values.index]
        if callable(segment_by) and not isinstance(segment_by, (Mapping, pd.Series)):
            labels = np.array([segment_by(q) for q in queries], dtype=object)
        else:
            lab = segment_by
            if isinstance(lab, pd.Series):
                lab = lab.to_dict()
            if not isinstance(lab, Mapping):
                raise ParameterTypeError(
                    "`segment_by` must be a mapping query -> segment, a Series "
                    f"or a callable, got {type(segment_by).__name__}")
            lab = {str(k): v for k, v in lab.items()}
            labels = np.array([lab.get(q) for q in queries], dtype=object)
        absent = pd.isna(labels)
        if absent.any():
            if missing == "raise":
                few = [q for q, a in zip(queries, absent, strict=True) if a][:3]
                raise ParameterError(f"`segment_by` has no segment for {int(absent.sum())} of "
                                 f"{len(queries)} queries of run {run!r} (e.g. {few}); give "
                                 "every query one or pass missing='drop'")
        segs = list(dict.fromkeys(labels[~absent].tolist()))
        for m in names:
            col = values[m].to_numpy(dtype=float)
            for s in segs:
                x = col[(labels == s) & ~absent]
                x = x[~np.isnan(x)]
                mean, lo, hi = _mean_interval(x, cl)
                rows.append({"run": run, "measure": m, "segment": s,
                             "n_queries": int(x.size), "mean": mean, "ci_low": lo,
                             "ci_high": hi})
    return pd.DataFrame(rows, columns=["run", "measure", "segment", "n_queries", "mean",
                                       "ci_low", "ci_high"])
