"""Knowledge-graph triples in: the filter of other known answers (filtered protocol).

In the filtered link-prediction protocol (Bordes et al., NeurIPS 2013, as in
PyKEEN and LibKGE), when the tail of a test triple ``(h, r, t)`` is ranked, every
other entity ``t'`` with ``(h, r, t')`` in train, valid or test is removed from
the candidates (likewise for heads). :func:`kg_filter` builds those pairs from
the triples, in the ``exclude`` form :func:`mrrstats.ranks_from_scores` takes.
"""

from __future__ import annotations

import os
import zlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..errors import InputError, ParameterError, ParameterTypeError

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import PathLike

__all__ = ["KGFilter", "kg_filter", "read_triples"]


@dataclass(frozen=True, eq=False)
class KGFilter:
    """The filter of known answers for every test triple, on one side.

    Attributes
    ----------
    side : {"tail", "head", "both"}
        Which entity is predicted (``"both"``: every test triple twice, PyKEEN's
        default; the head rows first, then the tail rows).
    queries : numpy.ndarray of int64, shape (n, 3)
        The test triples as ``head, relation, tail`` ids (row ``i`` of the
        score matrix is query ``i``).
    true_index : numpy.ndarray of int64, shape (n,)
        The true candidate of each row (the tail, or the head).
    exclude : numpy.ndarray of int64, shape (m, 2)
        ``(row, candidate)`` pairs of known answers (the true one included,
        which :func:`mrrstats.ranks_from_scores` keeps in its row).
    entities, relations : tuple of str or None
        Labels of the ids when the triples were given as labels.
    sides : numpy.ndarray of str, shape (n,)
        The side each row predicts, ``"head"`` or ``"tail"``.
    """

    side: str
    queries: np.ndarray = field(repr=False)
    true_index: np.ndarray = field(repr=False)
    exclude: np.ndarray = field(repr=False)
    entities: tuple | None = field(default=None, repr=False)
    relations: tuple | None = field(default=None, repr=False)
    sides: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self):
        if self.sides is None:
            object.__setattr__(self, "sides", np.full(self.true_index.size, self.side,
                                                      dtype=object))

    @property
    def n_queries(self) -> int:
        return int(self.true_index.size)


def read_triples(source, *, name: str = "triples") -> np.ndarray:
    """Triples as an ``(n, 3)`` array: a path (TSV/whitespace ``head relation tail``),
    a DataFrame (first three columns) or an array-like of shape ``(n, 3)``."""
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        try:
            frame = pd.read_csv(path, sep=r"\s+", header=None, dtype=str, engine="python",
                                comment=None)
        except FileNotFoundError:
            raise InputError("file not found", source=path) from None
        except pd.errors.EmptyDataError:
            raise InputError("empty file: expected 'head relation tail' lines",
                             source=path) from None
        except pd.errors.ParserError as exc:
            raise InputError(f"not 'head relation tail' lines ({exc})", source=path) from None
        except (UnicodeDecodeError, OSError, EOFError, zlib.error) as exc:
            raise InputError(f"not a text file of 'head relation tail' lines "
                             f"({type(exc).__name__}: {str(exc)[:80]})", source=path) from None
        if frame.shape[1] != 3:
            raise InputError(f"expected 3 fields (head relation tail), found "
                             f"{frame.shape[1]}", source=path)
        if frame.isna().any().any():
            line = int(np.flatnonzero(frame.isna().any(axis=1).to_numpy())[0]) + 1
            raise InputError("expected 3 fields (head relation tail)", source=path,
                             line=line)
        return frame.to_numpy(dtype=object)
    if isinstance(source, pd.DataFrame):
        arr = source.iloc[:, :3].to_numpy()
    else:
        try:
            arr = np.asarray(source)
        except ValueError:
            raise ParameterError(f"`{name}` must be an (n, 3) array of triples", name=name) \
                from None
    if arr.ndim != 2 or arr.shape[1] != 3:
        raise ParameterError(f"`{name}` must have shape (n, 3) (head, relation, tail), "
                             f"got {arr.shape}", name=name)
    if arr.dtype.kind == "b" or arr.dtype.kind not in "iufUSO":
        raise ParameterTypeError(f"`{name}` must hold integer ids or labels, got dtype "
                                 f"{arr.dtype}", name=name)
    if arr.dtype.kind == "O":
        bad = [v for v in arr.ravel() if isinstance(v, float | np.floating)
               and (not np.isfinite(v) or v != np.floor(v))]
        if bad:
            raise ParameterError(f"`{name}` holds {bad[0]!r}: ids must be whole numbers or "
                                 "labels", name=name)
    if arr.dtype.kind == "f":
        if not np.isfinite(arr).all() or (arr != np.round(arr)).any():
            raise ParameterError(f"`{name}` must hold whole-number ids (no NaN, no fractions)",
                                 name=name)
        arr = arr.astype(np.int64)
    return arr


def kg_filter(train: PathLike | pd.DataFrame | ArrayLike,
              valid: PathLike | pd.DataFrame | ArrayLike,
              test: PathLike | pd.DataFrame | ArrayLike, *, side: str = "tail") -> KGFilter:
    """The filtered-protocol exclusion pairs of every test triple.

    Parameters
    ----------
    train, valid, test : path, DataFrame or array of shape (n, 3)
        Triples ``head, relation, tail``: integer ids, or labels (then ids are
        positions in the sorted labels of all three splits). ``valid`` may be
        ``None``.
    side : {"tail", "head", "both"}, keyword-only
        Predict tails ``(h, r, ?)`` (default), heads ``(?, r, t)``, or both
        (``2n`` rows: the ``n`` head tasks, then the ``n`` tail tasks; ``.sides``
        says which is which), as PyKEEN's "both" reports them together.

    Returns
    -------
    KGFilter
        ``ranks_from_scores(scores, f.true_index, exclude=f.exclude)`` gives the
        filtered ranks when row ``i`` of ``scores`` scores every entity for
        query ``f.queries[i]``.

    Examples
    --------
    >>> import numpy as np
    >>> from mrrstats import kg_filter, ranks_from_scores
    >>> train = [(0, 0, 1), (0, 0, 2)]
    >>> test = [(0, 0, 3)]
    >>> f = kg_filter(train, None, test)
    >>> f.exclude.tolist()  # known tails of (0, 0, ?); 3 is the true one
    [[0, 1], [0, 2], [0, 3]]
    >>> scores = np.array([[0.1, 0.9, 0.8, 0.7]])  # entities 0..3
    >>> ranks_from_scores(scores, f.true_index, exclude=f.exclude).optimistic.tolist()
    [1.0]
    >>> kg_filter(train, None, test, side="both").sides.tolist()
    ['head', 'tail']
    """
    if not isinstance(side, str) or side not in ("tail", "head", "both"):
        raise ParameterError(f"`side` must be 'tail', 'head' or 'both', got {side!r}",
                             name="side")
    parts = {"train": read_triples(train, name="train"),
             "valid": None if valid is None else read_triples(valid, name="valid"),
             "test": read_triples(test, name="test")}
    given = {k: v for k, v in parts.items() if v is not None}
    numeric = all(np.issubdtype(v.dtype, np.integer) for v in given.values())
    entities = relations = None
    if numeric:
        ids = {k: v.astype(np.int64) for k, v in given.items()}
        if any((v < 0).any() for v in ids.values()):
            raise ParameterError("triple ids must be non-negative integers")
    else:
        stacked = np.concatenate([v.astype(str) for v in given.values()])
        entities = tuple(np.unique(np.concatenate((stacked[:, 0], stacked[:, 2]))).tolist())
        relations = tuple(np.unique(stacked[:, 1]).tolist())
        ent = pd.Index(entities)
        rel = pd.Index(relations)
        ids = {k: np.stack([ent.get_indexer(v[:, 0].astype(str)),
                            rel.get_indexer(v[:, 1].astype(str)),
                            ent.get_indexer(v[:, 2].astype(str))], axis=1).astype(np.int64)
               for k, v in given.items()}
    known = np.unique(np.concatenate(list(ids.values())), axis=0)
    test_ids = ids["test"]
    if side != "both":
        true_index, exclude = _filter_one_side(known, test_ids, side)
        return KGFilter(side, test_ids, true_index, exclude, entities, relations)
    n = test_ids.shape[0]
    head_true, head_ex = _filter_one_side(known, test_ids, "head")
    tail_true, tail_ex = _filter_one_side(known, test_ids, "tail")
    tail_ex = tail_ex + np.array([n, 0], dtype=np.int64)
    sides = np.array(["head"] * n + ["tail"] * n, dtype=object)
    return KGFilter("both", np.concatenate([test_ids, test_ids]),
                    np.concatenate([head_true, tail_true]),
                    np.concatenate([head_ex, tail_ex]), entities, relations, sides)


def _filter_one_side(known, test_ids, side):
    """``(true_index, exclude)`` of the test triples predicting ``side``."""
    a, b = (0, 2) if side == "tail" else (2, 0)  # key entity column, answer column
    n_rel = int(known[:, 1].max()) + 1
    key_known = known[:, a] * n_rel + known[:, 1]
    order = np.argsort(key_known, kind="stable")
    key_sorted = key_known[order]
    answers = known[order, b]
    key_test = test_ids[:, a] * n_rel + test_ids[:, 1]
    lo = np.searchsorted(key_sorted, key_test, side="left")
    hi = np.searchsorted(key_sorted, key_test, side="right")
    sizes = hi - lo
    rows = np.repeat(np.arange(test_ids.shape[0]), sizes)
    pos = np.repeat(lo - np.concatenate(([0], np.cumsum(sizes)[:-1])), sizes) + \
        np.arange(int(sizes.sum()))
    exclude = np.stack([rows, answers[pos]], axis=1).astype(np.int64)
    return test_ids[:, b].copy(), exclude
