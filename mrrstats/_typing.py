"""Type aliases of the public API, for annotations only.

Modules import them under ``if TYPE_CHECKING:`` (with ``from __future__ import
annotations``), so they cost nothing at run time: this module is read by type checkers
(and numpy/pandas are imported here freely).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, TypeAlias

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from .io.trec import Qrels, Run
from .metrics.evaluation import Evaluation
from .metrics.measures import Measure
from .model.scoretable import ScoreTable

__all__ = ["Alternative", "ArrayLike", "BlockSource", "BootstrapMethod", "Correction",
           "FloatArray", "IntArray", "MeasuresInput", "Missing", "PathLike", "QrelsInput",
           "RunInput", "RunsInput", "Scores", "Seed", "TableLike"]

#: A file path.
PathLike: TypeAlias = str | os.PathLike[str]
#: ``rng=``: a seed, a :class:`numpy.random.Generator`, or None (fresh entropy).
Seed: TypeAlias = int | np.random.Generator | None
#: ``alternative=`` of the tests and intervals.
Alternative: TypeAlias = Literal["two-sided", "less", "greater"]
#: ``correction=`` of the many-system comparisons.
Correction: TypeAlias = Literal["single-step", "single-step-skew", "holm", "bonferroni", "bh",
                                "none"]
#: ``method=`` of the bootstrap intervals.
BootstrapMethod: TypeAlias = Literal["bca", "percentile", "basic"]
#: ``missing=``: refuse (default) or drop queries with a missing score.
Missing: TypeAlias = Literal["raise", "drop"]
#: Per-query scores of several systems, as :func:`mrrstats.model.as_score_table` takes
#: them: a score table, an Evaluation, a queries-by-systems frame, a Series, an array,
#: a path, or a mapping of measure (or system) -> one of these.
Scores: TypeAlias = (ScoreTable | Evaluation | pd.DataFrame | pd.Series | Mapping[str, Any]
                     | ArrayLike | PathLike)
FloatArray: TypeAlias = NDArray[np.float64]
IntArray: TypeAlias = NDArray[np.int64]

#: An Arrow or polars table, a ranx object or a Dask collection: optional libraries whose
#: types are not required here (the doors check them at run time).
TableLike: TypeAlias = Any
#: Relevance judgments as :func:`mrrstats.read_qrels` takes them.
QrelsInput: TypeAlias = Qrels | PathLike | pd.DataFrame | Mapping[str, Any] | TableLike
#: One run as :func:`mrrstats.read_run` takes it.
RunInput: TypeAlias = Run | PathLike | pd.DataFrame | Mapping[str, Any] | TableLike
#: A run, a list of runs, or ``{name: run}``, as :func:`mrrstats.evaluate` takes them.
RunsInput: TypeAlias = RunInput | Sequence[RunInput] | Mapping[str, RunInput]
#: One measure or several: ``"RR"``, ``"nDCG@10"``, a :class:`~mrrstats.Measure`, or a
#: sequence of them.
MeasuresInput: TypeAlias = str | Measure | Sequence[str | Measure]
#: Per-query scores read in blocks (:mod:`mrrstats.blocked`): an array or memmap, a
#: Parquet path, a DataFrame, an iterable of blocks, or a Dask array/DataFrame.
BlockSource: TypeAlias = ArrayLike | PathLike | pd.DataFrame | Iterable[ArrayLike] | TableLike
