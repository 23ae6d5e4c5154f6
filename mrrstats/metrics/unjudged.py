"""Measures under each convention for unjudged documents (``evaluate(unjudged=...)``).

``"nonrelevant"`` (trec_eval), ``"condense"`` (Sakai 2007's condensed lists) and
``"relevant"`` (every unjudged retrieved document judged relevant: the upper end of
:func:`mrrstats.judgment_bounds`, in :mod:`mrrstats.metrics.bounds`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import ParameterError
from ..lazy import deferred
from .judged import UNJUDGED, condense, fill_unjudged
from .kernels import score_ranked_run
from .measures import measures_iv

if TYPE_CHECKING:
    import pandas as pd
else:  # imported when first used: the TREC-file path builds no DataFrame
    pd = deferred("pandas")

__all__ = ["score_with_unjudged", "UNJUDGED"]


def _grade_of(m, rel) -> int:
    """The grade an unjudged document gets so that it counts as relevant for ``m``."""
    if m.name == "nDCG":
        return 1
    return max(int(m.rel if m.rel is not None else rel), 1)


def score_with_unjudged(ranked, measures, *, rel: int, unjudged: str):
    """Per-query values of ``ranked`` with unjudged documents under ``unjudged``.

    Returns ``(values, ranked_used)``: the per-query frame and the ranking the
    values were computed on (the condensed one for ``"condense"``, for the
    documents retrieved). ``Judged@k`` is always the share of the ranking as
    retrieved. ``"relevant"`` gives each unjudged document the grade that
    makes it relevant for each measure (``rel``, or the measure's own; 1 for
    nDCG's gain).
    """
    measures = measures_iv(measures)
    if not isinstance(unjudged, str | None) or unjudged not in UNJUDGED:
        raise ParameterError(f"`unjudged` must be one of {UNJUDGED}, got {unjudged!r}")
    judged = [m for m in measures if m.name == "Judged"]
    rest = [m for m in measures if m.name != "Judged"]
    parts = [score_ranked_run(ranked, judged, rel=rel)] if judged else []
    used = ranked
    if unjudged == "condense":
        used = condense(ranked)
    if unjudged != "relevant" and rest:
        parts.append(score_ranked_run(used, rest, rel=rel))
    elif rest:
        for g in sorted({_grade_of(m, rel) for m in rest}):
            group = [m for m in rest if _grade_of(m, rel) == g]
            parts.append(score_ranked_run(fill_unjudged(ranked, g), group, rel=rel))
    if not parts:
        return score_ranked_run(ranked, measures, rel=rel), used
    frame = pd.concat(parts, axis=1)[[str(m) for m in measures]]
    frame.columns.name = "measure"
    return frame, used
