"""What the plots take in: per-query scores through the package's one coercion, and
the systems to show."""

from __future__ import annotations

from ...errors import ParameterError
from ...metrics.evaluation import Evaluation
from ...model.scoretable import as_score_table
from .style import MAX_SERIES

__all__ = ["is_evaluation", "score_frame", "select_systems"]


def is_evaluation(x) -> bool:
    """Whether ``x`` is an :class:`mrrstats.Evaluation` (it carries candidate counts)."""
    return isinstance(x, Evaluation)


def score_frame(scores, measure, param="scores"):
    """Scores as (DataFrame rows = queries, columns = systems, measure name).

    The one coercion of the package (:func:`mrrstats.model.scoretable.as_score_table`);
    a query without a value for some system is left out for all of them, so
    every figure draws the same queries for every system.
    """
    table = as_score_table(scores, measure=measure, missing="drop", finite=False,
                           name=param)
    return table.to_frame(), table.measure


def select_systems(frame, systems, param="systems", limit=MAX_SERIES):
    """The columns of ``frame`` to draw: ``systems`` (checked) or all, at most ``limit``."""
    if systems is None:
        cols = list(frame.columns)
        if limit is not None and len(cols) > limit:
            raise ParameterError(f"`{param}`: {len(cols)} systems are too many for one panel "
                             f"(at most {limit}); choose some with systems=[...]")
        return cols
    if isinstance(systems, str):
        systems = [systems]
    cols = list(systems)
    missing = [s for s in cols if s not in frame.columns]
    if missing:
        raise ParameterError(f"`{param}`: unknown systems {missing}; have {list(frame.columns)}")
    if not cols:
        raise ParameterError(f"`{param}` must name at least one system")
    if limit is not None and len(cols) > limit:
        raise ParameterError(f"`{param}`: at most {limit} systems per panel, got {len(cols)}")
    return cols
