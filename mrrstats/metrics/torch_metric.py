r"""A torchmetrics ``Metric`` over the :class:`~mrrstats.Accumulator`, for Lightning users.

:class:`TorchMetric` is the :class:`~mrrstats.Accumulator` in torchmetrics' clothes:
``update(preds, target, indexes)`` evaluates each batch's queries at once (through
:func:`mrrstats.evaluate_flat`, on the tensors' device), and the metric keeps only
their per-query results, as three torchmetrics states registered with
``dist_reduce_fx="cat"``: the query ids (int64), the measures (float64, one per
query and measure) and the four counts (int64: documents ranked, relevant,
relevant ranked, judged). torchmetrics' own synchronisation (``sync``,
``sync_context``, ``merge_state``, Lightning's ``sync_dist``) gathers them across
processes; predictions are never kept nor exchanged.

``compute()`` returns the means over the queries as a dict ``{measure name:
0-d float64 tensor}`` (what Lightning's ``self.log_dict`` takes; ``Rank`` is its
median, as :meth:`mrrstats.Evaluation.aggregate`); :meth:`TorchMetric.evaluation`
returns the full :class:`~mrrstats.Evaluation`, equal to that of one
:func:`mrrstats.evaluate_flat` call on all the batches.

torchmetrics is imported with this module (``import mrrstats`` never imports it
nor torch). Without torchmetrics the class exists but refuses to be built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..defaults import REL
from ..errors import ParameterTypeError
from .accumulator import _EMPTY_TARGET, _TIES, Accumulator

if TYPE_CHECKING:
    import torch
    from numpy.typing import ArrayLike
    from torchmetrics import Metric as _Base

    from .._typing import MeasuresInput
    from .evaluation import Evaluation
else:
    try:
        from torchmetrics import Metric as _Base
    except ImportError:  # the class stays importable; building one says what to install

        class _Base:
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                raise ImportError(
                    "mrrstats.TorchMetric needs torchmetrics (and torch): "
                    "pip install 'mrrstats[peers]'"
                )


__all__ = ["TorchMetric"]

#: state name -> dtype name (torch), in registration order
_STATES = (("query_ids", "int64"), ("query_values", "float64"), ("query_stats", "int64"))


class TorchMetric(_Base):
    r"""A ``torchmetrics.Metric`` of per-query measures (``update``/``compute``/``reset``).

    Parameters
    ----------
    measures : str or sequence of str, optional
        As in :func:`mrrstats.evaluate_flat`; default ``("RR",)``.
    empty_target : {"neg", "pos", "skip", "error"}, keyword-only
        A query without a relevant row (default ``"neg"``, torchmetrics'
        ``empty_target_action`` default).
    ties : str, keyword-only
        Tie convention (default ``"expected"``, as evaluate_flat).
    rel : int, keyword-only
        Minimum relevant grade.
    max_depth : int, optional, keyword-only
    name : str, keyword-only
        The run's name in :meth:`evaluation`.
    **kwargs
        torchmetrics' own (``dist_sync_fn``, ``process_group``, ``sync_on_compute``, ...).

    Notes
    -----
    Every batch holds whole queries with integer ids unique across batches and
    processes (offset per-batch ids, e.g. ``indexes + n_queries_so_far``; a
    repeated id raises at ``compute()``), as :class:`~mrrstats.Accumulator` with
    ``split_queries=False``. Under ``ties="trec_eval"`` or ``max_depth`` document ids
    are the rows' numbers on each process, as for the Accumulator.

    Examples
    --------
    >>> import torch, mrrstats                                  # doctest: +SKIP
    >>> metric = mrrstats.TorchMetric(["RR", "nDCG@10"])        # doctest: +SKIP
    >>> metric.update(torch.tensor([0.9, 0.1, 0.4, 0.8]), torch.tensor([0, 1, 1, 0]),
    ...               torch.tensor([0, 0, 1, 1]))               # doctest: +SKIP
    >>> metric.compute()["RR"]                                  # doctest: +SKIP
    tensor(0.5000, dtype=torch.float64)
    """

    is_differentiable = False
    higher_is_better = True
    full_state_update = False
    # the torchmetrics states (add_state): lists of 1-d tensors, or tensors once synced
    query_ids: Any
    query_values: Any
    query_stats: Any
    rows: Any

    def __init__(
        self,
        measures: MeasuresInput | None = None,
        *,
        empty_target: str = _EMPTY_TARGET,
        ties: str = _TIES,  # type: ignore[assignment]
        rel: int = REL,
        max_depth: int | None = None,
        name: str = "run",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        import torch

        # validates the settings, evaluates each batch and numbers its rows
        self._acc = Accumulator(
            measures, empty_target=empty_target, ties=ties, rel=rel, max_depth=max_depth, name=name
        )
        for state, _ in _STATES:
            self.add_state(state, default=[], dist_reduce_fx="cat")
        # rows seen by this process (document ids under ties="trec_eval"); a sum state so
        # that forward()'s reset-update-merge keeps counting
        self.add_state("rows", default=torch.tensor(0, dtype=torch.int64), dist_reduce_fx="sum")
        self._row_offset: int | None = None  # set during forward()

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The measures of this batch alone (``compute()`` of it), accumulating it too
        (torchmetrics' ``forward``); its rows are numbered after the accumulated ones."""
        self._row_offset = int(self.rows)
        try:
            return super().forward(*args, **kwargs)
        finally:
            self._row_offset = None

    @property
    def measures(self) -> tuple:
        """The measures, as parsed (:class:`mrrstats.Measure`)."""
        return self._acc.measures

    def update(self, preds: ArrayLike, target: ArrayLike, indexes: ArrayLike) -> None:
        """Evaluate one batch of whole queries and keep their per-query results.

        Parameters
        ----------
        preds : tensor or array
            Scores of the rows (any float dtype, any device, ``requires_grad`` or not).
        target : tensor or array
            Grade of each row (bool or integer).
        indexes : tensor or array
            Query id of each row (integers).
        """
        import torch

        acc = self._acc
        before = int(self.rows)
        # forward() updates a reset state: its rows follow the accumulated ones
        start = acc._rows = before + (self._row_offset or 0)
        acc.update(preds, target, indexes)
        chunk = acc._joined()
        acc._chunks = []
        if acc._ids_kind == "str":
            acc.reset()
            raise ParameterTypeError("`indexes` must be integers (query ids in a tensor)")
        self.rows = torch.tensor(before + acc._rows - start, dtype=torch.int64, device=self.device)
        if chunk is None:
            return
        ids, values, stats = chunk
        for (state, dtype), a in zip(_STATES, (ids, values, stats), strict=True):
            getattr(self, state).append(
                torch.tensor(
                    np.ascontiguousarray(a).reshape(-1),
                    dtype=getattr(torch, dtype),
                    device=self.device,
                )
            )

    def compute(self) -> dict[str, torch.Tensor]:
        """``{measure name: mean over the queries}`` as 0-d float64 tensors (``Rank``:
        median), synced across processes; what ``self.log_dict`` takes."""
        import torch

        means = self._evaluation().aggregate().iloc[0]
        return {
            str(m): torch.tensor(float(means[str(m)]), dtype=torch.float64, device=self.device)
            for m in self.measures
        }

    def evaluation(self) -> Evaluation:
        """The :class:`~mrrstats.Evaluation` of every query so far, synced across
        processes as ``compute()`` is: one :func:`mrrstats.evaluate_flat` call's result."""
        with self.sync_context(
            dist_sync_fn=self.dist_sync_fn,
            should_sync=self._to_sync,
            should_unsync=self._should_unsync,
        ):
            return self._evaluation()

    def reset(self) -> None:
        """Forget every batch (torchmetrics' ``reset``)."""
        super().reset()
        self._acc.reset()

    def _sync_dist(self, dist_sync_fn: Any = None, process_group: Any = None) -> None:
        # a process without queries sends empty tensors of the states' own dtypes
        # (torchmetrics would send float32 ones, promoting the int64 ids)
        import torch

        for state, dtype in _STATES:
            value = getattr(self, state)
            if isinstance(value, list) and not value:
                setattr(
                    self, state, [torch.zeros(0, dtype=getattr(torch, dtype), device=self.device)]
                )
        if dist_sync_fn is None:
            super()._sync_dist(process_group=process_group)
        else:
            super()._sync_dist(dist_sync_fn, process_group=process_group)

    def _state_array(self, state: str) -> np.ndarray:
        import torch

        value = getattr(self, state)
        if isinstance(value, list):
            value = torch.cat(value) if value else torch.zeros(0)
        return value.detach().cpu().numpy()

    def _evaluation(self) -> Evaluation:
        ids = self._state_array("query_ids").astype(np.int64)
        values = self._state_array("query_values").astype(np.float64)
        stats = self._state_array("query_stats").astype(np.int64)
        acc = self._acc._empty_like()
        if self._update_count or ids.size:
            acc._mode, acc._ids_kind = "flat", "int"
        if ids.size:
            acc._chunks = [(ids, values.reshape(ids.size, -1), stats.reshape(ids.size, -1))]
        return acc.compute()  # type: ignore[return-value]
