r"""A training-loop accumulator: batches in, one :class:`Evaluation` out, per-query state.

torchmetrics' retrieval metrics keep every prediction until ``compute()`` and
gather them all across processes (67 GB on sparse query indexes, torchmetrics
#3290; ``RetrievalPrecision`` hanging under DDP, #813). :class:`Accumulator`
evaluates each query as soon as it is complete and keeps only its measures and
four counts, so its memory grows with the number of queries, never with the
predictions, and the state that two processes exchange is a few arrays of
per-query numbers.

``compute()`` returns exactly what one call of :func:`mrrstats.evaluate_flat`
on all the batches together returns (same defaults, same values to the last
bit), so :func:`mrrstats.compare`, the baselines and the report take it.
Link-prediction ranks (:class:`mrrstats.LinkPredictionRanks`, from
:func:`mrrstats.ranks_from_scores` or :func:`mrrstats.ranks_from_negatives`)
are accumulated the same way, and ``compute()`` then returns their
concatenation.

When is a query complete?

* ``split_queries=False`` (default): every batch holds whole queries. A query
  is evaluated in the batch that brings it; its rows are then dropped. A query
  id seen in the batch before raises at once, one seen in any earlier batch at
  ``compute()`` (ids must be unique across batches: offset per-batch ids, e.g.
  ``indexes + n_queries_so_far``; torchmetrics would silently merge them).
* ``split_queries=True``: a query's rows may come in several consecutive
  batches. The rows of the queries of the latest batch are held (on the arrays'
  own device) until a batch arrives that does not contain them; ``compute()``
  evaluates the held ones too without releasing them, and :meth:`merge`,
  :meth:`all_gather` and :meth:`flush` take them as complete. Memory: the rows
  of about one batch.

Document ids are global row numbers (rows counted across batches), as in one
call of :func:`evaluate_flat` on the concatenated batches; they only matter under
``ties="trec_eval"`` and for ``num_rel_ret`` under ``max_depth``. Each
accumulator counts its own rows from 0, so a merged ``ties="trec_eval"`` result
equals the evaluations of each process's rows on their own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..defaults import EMPTY_TARGET, EXCEPTIONS, REL
from ..devices import to_numpy
from ..errors import InputError, ParameterError, ParameterTypeError
from ..io.flat import as_host_array
from ..model.ranking import TIES
from .evaluation import Evaluation, QueryCounts, empty_target_iv, evaluate_flat, warn_skipped
from .flat_xp import flat_namespace
from .measures import measures_iv

if TYPE_CHECKING:
    from typing import Any

    from numpy.typing import ArrayLike

    from .._typing import MeasuresInput
    from ..baselines.linkpred import LinkPredictionRanks

__all__ = ["Accumulator"]

_FLAT = "mrrstats.metrics.evaluation.evaluate_flat"
#: evaluate_flat's documented departures from the package defaults (torchmetrics')
_EMPTY_TARGET = EMPTY_TARGET
_TIES = EXCEPTIONS[(_FLAT, "ties")][0]
_STATS = ("num_ret", "num_rel", "num_rel_ret", "num_judged")
#: Per-query chunks are joined when this many have piled up (many small batches).
_MAX_CHUNKS = 64


def _detach_flat(a, xp):
    if callable(getattr(a, "detach", None)):  # torch: requires_grad tensors
        a = a.detach()
    return xp.reshape(a, (-1,))


def _decimal_key(xp, rows):
    """A key whose ascending order is the byte order of the rows' decimal strings
    ("1" < "10" < "100" < "11" < "2"): digits padded with zeros, shorter first."""
    top = int(xp.max(rows)) if rows.shape[0] else 0
    digits = len(str(max(top, 0)))
    length = xp.ones_like(rows)
    for j in range(1, digits):
        length = length + xp.astype(rows >= 10 ** j, rows.dtype)
    scale = xp.ones_like(rows)
    for j in range(1, digits):
        scale = xp.where(length <= digits - j, scale * 10, scale)
    return rows * scale * (digits + 1) + length


def _as_host_or_device(preds, target, indexes):
    """``(xp, P, T, I)``: the arrays flattened in their own namespace (array-API arrays
    of one library and device), or as NumPy arrays on the host."""
    xp = flat_namespace(preds, target, indexes)
    if xp is not None:
        return xp, _detach_flat(preds, xp), _detach_flat(target, xp), _detach_flat(indexes, xp)
    import array_api_compat.numpy as xp_numpy

    return (xp_numpy, as_host_array(preds, "preds"), as_host_array(target, "target"),
            as_host_array(indexes, "indexes"))


class Accumulator:
    r"""Accumulate per-query measures over batches (torchmetrics' ``update``/``compute``).

    Parameters
    ----------
    measures : str or sequence of str, optional
        As in :func:`mrrstats.evaluate_flat`; default ``("RR",)``.
    empty_target : {"neg", "pos", "skip", "error"}, keyword-only
        A query without a relevant row (default ``"neg"``: scored 0, as
        evaluate_flat and torchmetrics' ``empty_target_action``; ``"skip"``
        leaves it out with a :class:`mrrstats.QueriesLeftOutWarning`).
    ties : str, keyword-only
        Tie convention (default ``"expected"``, as evaluate_flat; ``"rank"`` is not
        available: flat rows have no rank column).
    rel : int, keyword-only
        Minimum relevant grade.
    max_depth : int, optional, keyword-only
    name : str, keyword-only
        The run's name in the result.
    split_queries : bool, keyword-only
        False (default): each batch holds whole queries. True: a query's rows may
        span consecutive batches (held until a batch without them; see the module).

    Notes
    -----
    State per query: its id (int64 for integer ``indexes``, else a string), one
    float64 per measure and four int64 counts (documents ranked, relevant,
    relevant ranked, judged) -- 88 bytes with 6 measures and integer ids; a
    pickled state holds exactly these arrays (``tests/metrics/test_accumulator.py``
    measures it). Queries are evaluated by :func:`evaluate_flat` itself, on
    the device of the arrays when they are array-API arrays (torch, CuPy, JAX).

    Examples
    --------
    >>> import numpy as np, mrrstats
    >>> acc = mrrstats.Accumulator(["RR", "nDCG@10"])
    >>> rng = np.random.default_rng(0)
    >>> for step in range(3):                       # 4 queries x 10 candidates a batch
    ...     preds = rng.random(40)
    ...     target = rng.random(40) < 0.2
    ...     indexes = np.repeat(np.arange(4) + 4 * step, 10)
    ...     acc.update(preds, target, indexes)
    >>> ev = acc.compute()                        # an Evaluation, as evaluate_flat's
    >>> print(ev.counts["run"], round(float(ev.aggregate().loc["run", "RR"]), 4))
    12 evaluated; 0 in qrels only; 0 in run only (unjudged); 2 without relevant (scored 0) 0.4508
    """

    def __init__(self, measures: MeasuresInput | None = None, *, empty_target: str = _EMPTY_TARGET,  # type: ignore[assignment]
                 ties: str = _TIES, rel: int = REL, max_depth: int | None = None,  # type: ignore[assignment]
                 name: str = "run", split_queries: bool = False) -> None:
        if not isinstance(ties, str | None) or ties not in TIES or ties == "rank":
            allowed = ", ".join(repr(t) for t in TIES if t != "rank")
            raise ParameterError(f"`ties` must be one of {allowed} (flat rows have no rank "
                             f"column), got {ties!r}")
        if isinstance(rel, bool) or not isinstance(rel, int | np.integer) or rel < 1:
            raise ParameterError(f"`rel` must be an integer >= 1, got {rel!r}")
        if max_depth is not None and (isinstance(max_depth, bool) or not isinstance(
                max_depth, int | np.integer) or max_depth < 1):
            raise ParameterError(f"`max_depth` must be None or an integer >= 1, got {max_depth!r}")
        if not isinstance(name, str):
            raise ParameterTypeError(f"`name` must be a str, got {type(name).__name__}")
        if not isinstance(split_queries, bool):
            raise ParameterTypeError(
                f"`split_queries` must be True or False, got {split_queries!r}")
        self.measures = tuple(measures_iv(("RR",) if measures is None else measures))
        self.empty_target = empty_target_iv(empty_target)
        self.ties = ties
        self.rel = int(rel)
        self.max_depth = None if max_depth is None else int(max_depth)
        self.name = name
        self.split_queries = split_queries
        self.reset()

    # -- state -----------------------------------------------------------------
    def reset(self) -> None:
        """Forget every batch (torchmetrics' ``reset``)."""
        self._mode: str | None = None  # "flat" or "ranks", fixed by the first update
        self._ids_kind: str | None = None  # "int" or "str"
        self._chunks: list[Any] = []  # (ids, values (n, k), stats (n, 4)) or ranks (o, p, n)
        self._rows = 0  # rows seen: the next batch's first global row number
        self._held: tuple[Any, ...] | None = None  # split_queries: (xp, P, T, I, R) of the latest
        self._last_ids = None  # whole-query batches: the previous batch's query ids
        self._ranks_type: Any = None  # LinkPredictionRanks (not imported: baselines use metrics)

    def _settings(self) -> tuple:
        return (tuple(str(m) for m in self.measures), self.empty_target, self.ties, self.rel,
                self.max_depth, self.name, self.split_queries)

    def __getstate__(self) -> dict:
        """The per-query arrays (joined), held rows as NumPy arrays, and the settings."""
        held = None
        if self._held is not None:
            held = tuple(to_numpy(a) for a in self._held[1:])
        return {"settings": self._settings(), "mode": self._mode, "ids_kind": self._ids_kind,
                "chunks": self._joined(), "rows": self._rows, "held": held,
                "last_ids": self._last_ids, "ranks_type": self._ranks_type}

    def __setstate__(self, state) -> None:
        measures, empty_target, ties, rel, max_depth, name, split = state["settings"]
        self.__init__(list(measures), empty_target=empty_target, ties=ties, rel=rel,  # type: ignore[misc]
                      max_depth=max_depth, name=name, split_queries=split)
        self._mode, self._ids_kind = state["mode"], state["ids_kind"]
        self._chunks = [state["chunks"]] if state["chunks"] is not None else []
        self._rows, self._last_ids = state["rows"], state["last_ids"]
        self._ranks_type = state["ranks_type"]
        if state["held"] is not None:
            import array_api_compat.numpy as xp_numpy

            self._held = (xp_numpy, *state["held"])

    def _joined(self):
        """The chunks as one tuple of arrays (None when empty); the list becomes it."""
        if not self._chunks:
            return None
        if len(self._chunks) > 1:
            self._chunks = [tuple(np.concatenate(parts) if parts[0] is not None else None
                                  for parts in zip(*self._chunks, strict=True))]
        return self._chunks[0]

    def _add(self, chunk) -> None:
        self._chunks.append(chunk)
        if len(self._chunks) >= _MAX_CHUNKS:
            self._joined()

    def _set_mode(self, mode: str) -> None:
        if self._mode is None:
            self._mode = mode
        elif self._mode != mode:
            raise ParameterTypeError(
                f"this accumulator holds {self._mode} updates; ranks and flat "
                "(preds, target, indexes) batches cannot be mixed")

    @property
    def n_queries(self) -> int:
        """Queries evaluated so far (without the held ones)."""
        chunk = self._joined()
        return 0 if chunk is None else int(chunk[0].size)

    def __repr__(self) -> str:
        held = "" if self._held is None else f", {int(self._held[3].shape[0])} rows held"
        return (f"Accumulator({', '.join(str(m) for m in self.measures)}; "
                f"{self.n_queries} queries{held}; ties={self.ties!r}, "
                f"empty_target={self.empty_target!r})")

    # -- updates ---------------------------------------------------------------
    def update(self, preds: ArrayLike | LinkPredictionRanks, target: ArrayLike | None = None,
               indexes: ArrayLike | None = None) -> None:
        """Add one batch: flat ``preds, target, indexes`` rows, or link-prediction ranks.

        Parameters
        ----------
        preds : array or LinkPredictionRanks
            Scores of the rows (as :func:`mrrstats.evaluate_flat`: NumPy or any
            array-API array, any float dtype, ``requires_grad`` or not), or the
            ranks of a batch of link-prediction queries (then nothing else).
        target : array
            Grade of each row (bool or integer).
        indexes : array
            Query id of each row (integers, or strings in a NumPy array).
        """
        if _is_ranks(preds):
            if target is not None or indexes is not None:
                raise ParameterTypeError("update(ranks) takes the ranks alone")
            self._set_mode("ranks")
            n = preds.n_candidates  # type: ignore[union-attr]
            if self._chunks and (self._chunks[0][2] is None) != (n is None):
                raise ParameterError("some batches have `n_candidates` and some do not")
            self._ranks_type = type(preds)
            self._add((preds.optimistic, preds.pessimistic, n))  # type: ignore[union-attr]
            return
        if target is None or indexes is None:
            raise ParameterTypeError("update() takes `preds, target, indexes`, or one "
                            "LinkPredictionRanks")
        xp, P, T, Iq = _as_host_or_device(preds, target, indexes)
        n = int(P.shape[0])
        if not (n == int(T.shape[0]) == int(Iq.shape[0])):
            raise ParameterError("`preds`, `target` and `indexes` must have the same number of "
                             f"elements, got {n}, {int(T.shape[0])} and {int(Iq.shape[0])}")
        # integer ids stay int64 in the state; any other ids are kept as evaluate_flat's
        # strings (array-API indexes are integers: flat_namespace takes no others)
        kind = "int" if not isinstance(Iq, np.ndarray) or Iq.dtype.kind in "iu" else "str"
        if self._ids_kind not in (None, kind):
            raise ParameterTypeError(
                f"`indexes` were {self._ids_kind} ids in earlier batches, now "
                f"{kind} ids")
        self._set_mode("flat")
        self._ids_kind = kind
        if n == 0:
            return
        from array_api_compat import device

        R = xp.arange(self._rows, self._rows + n, dtype=xp.int64, device=device(P))
        self._rows += n
        if not self.split_queries:
            chunk = self._evaluate_rows(xp, P, T, Iq, R)
            if self._last_ids is not None:
                again = np.isin(chunk[0], self._last_ids)
                if again.any():
                    raise InputError(
                        f"query {chunk[0][again][0]!r} of this batch was in the batch before; "
                        "with split_queries=False every batch holds whole queries with ids "
                        "unique across batches (offset per-batch ids, or pass "
                        "split_queries=True)", source="<indexes>")
            self._last_ids = chunk[0]
            self._add(chunk)
            return
        if self._held is None:
            self._held = (xp, P, T, Iq, R)
            return
        hx, hP, hT, hI, hR = self._held
        if hx is not xp:
            raise ParameterTypeError("a query's rows must come from one array library and device")
        keep = _member(xp, hI, Iq)
        done = ~keep
        if bool(xp.any(done)):
            self._add(self._evaluate_rows(xp, hP[done], hT[done], hI[done], hR[done]))
        self._held = (xp, xp.concat((hP[keep], P)), xp.concat((hT[keep], T)),
                      xp.concat((hI[keep], Iq)), xp.concat((hR[keep], R)))

    def flush(self) -> None:
        """Take every held query as complete: evaluate it and release its rows."""
        if self._held is not None:
            xp, P, T, Iq, R = self._held
            self._held = None
            self._add(self._evaluate_rows(xp, P, T, Iq, R))

    def _evaluate_rows(self, xp, P, T, Iq, R) -> tuple:
        """``(ids, values, stats)`` of whole queries, through :func:`evaluate_flat`."""
        if self.ties == "trec_eval" or self.max_depth is not None:
            # document ids are row numbers: place the rows so that the batch's own row
            # numbers sort (as decimal strings) as their global ones do
            sigma = xp.argsort(_decimal_key(xp, xp.arange(
                int(P.shape[0]), dtype=R.dtype, device=_device(R))), stable=True)
            tau = xp.argsort(_decimal_key(xp, R), stable=True)
            perm = xp.take(tau, xp.argsort(sigma, stable=True))
            P, T, Iq = xp.take(P, perm), xp.take(T, perm), xp.take(Iq, perm)
        ev = evaluate_flat(P, T, Iq, list(self.measures), empty_target="neg", ties=self.ties,
                           rel=self.rel, max_depth=self.max_depth, name=self.name)
        frame = ev.values[self.name]
        ids = np.asarray(frame.index, dtype=str)
        if self._ids_kind == "int":
            ids = ids.astype(np.int64)
        values = frame.to_numpy(dtype=np.float64)
        stats = ev.query_stats[list(_STATS)].to_numpy(dtype=np.int64)
        return ids, values, stats

    # -- several processes -----------------------------------------------------
    def merge(self, other: Accumulator) -> Accumulator:
        """Add the queries of ``other`` (another process's state); returns ``self``.

        Held queries of both are taken as complete (``other`` is not changed). A
        query id in both raises at :meth:`compute`.
        """
        if not isinstance(other, Accumulator):
            raise ParameterTypeError(f"`other` must be an Accumulator, got {type(other).__name__}")
        if other._settings()[:-1] != self._settings()[:-1]:
            raise ParameterError("`other` was made with other settings: "
                             f"{other._settings()[:-1]} vs {self._settings()[:-1]}")
        if other._mode is None:
            return self
        self._set_mode(other._mode)
        if self._ids_kind not in (None, other._ids_kind):
            raise ParameterTypeError("`other` has query ids of another kind "
                            f"({other._ids_kind}, here {self._ids_kind})")
        self._ids_kind = other._ids_kind
        self._ranks_type = self._ranks_type or other._ranks_type
        self.flush()
        chunk = other._joined()
        if other._held is not None:
            xp, P, T, Iq, R = other._held
            self._add(other._evaluate_rows(xp, P, T, Iq, R))
        if chunk is not None:
            if self._mode == "ranks" and self._chunks and \
                    (self._chunks[0][2] is None) != (chunk[2] is None):
                raise ParameterError("some parts have `n_candidates` and some do not")
            self._add(chunk)
        self._last_ids = None
        return self

    def all_gather(self, group: Any = None) -> Accumulator:
        """The merged state of every process of a ``torch.distributed`` group.

        Every process calls it (a collective: ``torch.distributed.all_gather_object``
        of the small per-query state) and gets the same new accumulator, processes
        in rank order; ``self`` is flushed but otherwise unchanged.
        """
        import torch.distributed as dist

        self.flush()
        states = [None] * dist.get_world_size(group)
        dist.all_gather_object(states, self, group=group)
        out = self._empty_like()
        for state in states:
            out.merge(state)  # type: ignore[arg-type]
        return out

    def _empty_like(self) -> Accumulator:
        measures, empty_target, ties, rel, max_depth, name, split = self._settings()
        return Accumulator(list(measures), empty_target=empty_target, ties=ties, rel=rel,
                           max_depth=max_depth, name=name, split_queries=split)

    # -- the result ------------------------------------------------------------
    def compute(self) -> Evaluation | LinkPredictionRanks:
        """The :class:`Evaluation` of every query so far (held ones included), as one
        :func:`mrrstats.evaluate_flat` call on all the rows; for ranks, their
        :class:`~mrrstats.LinkPredictionRanks` in update (and merge) order."""
        if self._mode is None:
            raise ParameterError("nothing to compute: no batch was added")
        if self._mode == "ranks":
            o, p, n = self._joined()
            return self._ranks_type(o, p, n)  # LinkPredictionRanks
        chunks = list(self._chunks)
        if self._held is not None:
            xp, P, T, Iq, R = self._held
            chunks.append(self._evaluate_rows(xp, P, T, Iq, R))
        if not chunks:
            raise ParameterError("nothing to compute: every batch was empty")
        ids = np.concatenate([c[0] for c in chunks]).astype(str)
        values = np.concatenate([c[1] for c in chunks])
        stats = np.concatenate([c[2] for c in chunks])
        order = np.argsort(ids, kind="stable")  # byte order, as evaluate_flat
        ids, values, stats = ids[order], values[order], stats[order]
        twice = ids[1:] == ids[:-1]
        if twice.any():
            raise InputError(
                f"query {ids[1:][twice][0]!r} was evaluated twice (in two batches, or in two "
                "merged accumulators): query ids must be unique across batches and "
                "processes, or a query's rows must come in consecutive batches with "
                "split_queries=True", source="<indexes>")
        return self._evaluation(ids, values, stats)

    def _evaluation(self, ids, values, stats) -> Evaluation:
        """The Evaluation of ``evaluate_flat``: the ``empty_target`` policy applied."""
        empty = stats[:, 1] == 0
        no_rel = tuple(ids[empty].tolist())
        if empty.any():
            if self.empty_target == "error":
                shown = ", ".join(repr(q) for q in no_rel[:3]) + (", ..." if len(no_rel) > 3
                                                                   else "")
                raise InputError(
                    f"run {self.name!r}: {int(empty.sum())} queries have no relevant "
                    f"document (grade >= {self.rel}): [{shown}]"
                    f" ({len(no_rel)}) (pass empty_target='neg', 'pos' or 'skip')",
                    source="<target>")
            if self.empty_target == "pos":
                values = values.copy()
                values[empty] = 1.0
            elif self.empty_target == "skip":
                ids, values, stats = ids[~empty], values[~empty], stats[~empty]
                warn_skipped(self.name, no_rel)
        names = [str(m) for m in self.measures]
        query = pd.Index(ids.tolist(), dtype="str", name="query")
        frame = pd.DataFrame(values, index=query, columns=pd.Index(names, name="measure"))
        # built as evaluate_flat builds it (column dtypes included)
        st = pd.DataFrame({"query": np.asarray(ids.tolist(), dtype=object)})
        for i, col in enumerate(_STATS):
            st[col] = stats[:, i]
        st.insert(0, "run", self.name)
        counts = QueryCounts(len(ids), (), (), no_rel, self.empty_target)
        settings = {"ties": self.ties, "rel": self.rel, "queries": "both",
                    "max_depth": self.max_depth, "empty_target": self.empty_target}
        return Evaluation(measures=self.measures, runs=(self.name,), values={self.name: frame},
                          counts={self.name: counts}, query_stats=st, settings=settings)


def _is_ranks(x) -> bool:
    """A :class:`mrrstats.LinkPredictionRanks` (by its fields)."""
    return all(hasattr(x, a) for a in ("optimistic", "pessimistic", "n_candidates"))


def _device(a):
    from array_api_compat import device

    return device(a)


def _member(xp, ids, among):
    """Boolean mask: which ``ids`` occur in ``among`` (sorted search, on the device)."""
    u = xp.sort(xp.unique_values(among))
    pos = xp.searchsorted(u, ids)
    pos = xp.where(pos < u.shape[0], pos, xp.zeros_like(pos))
    return xp.take(u, pos) == ids
