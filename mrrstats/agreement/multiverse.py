r"""Would the conclusion survive another convention? The convention multiverse.

:func:`multiverse` evaluates the same runs under every evaluation convention
that changes a number -- the tie convention, which queries count, the
relevance threshold, the cutoff, what a query without relevant documents
scores (the empty-target policy) and what an unjudged document counts as -- and
reports, per convention, the system
ordering and the significant pairs, and, against a reference convention,
which pairs flip order, which lose or gain significance, and how far each
system's mean moves (a "multiverse analysis", Steegen et al. 2016).
"""

from __future__ import annotations

import itertools
import warnings
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..defaults import ALPHA, N_RESAMPLES, WORKERS
from ..errors import ParameterError, ParameterTypeError, QueriesLeftOutWarning
from ..io.trec import qrels_iv, run_iv
from ..metrics import evaluate, parse_measure
from ..metrics.judged import UNJUDGED
from ..metrics.measures import higher_is_better, measures_iv
from ..model.ranking import TIES
from ..options import EMPTY_TARGET, QUERIES
from ..stats import pairwise_tests
from ..stats.methods_readers import methods_text
from ..validation import alpha_iv, choice_iv, int_iv, rng_iv

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Literal

    from matplotlib.axes import Axes

    from .._typing import MeasuresInput, QrelsInput, RunsInput, Seed
    from ..stats.methods import MethodsText

__all__ = ["MultiverseResult", "multiverse"]

_CONV = ["measure", "ties", "queries", "rel", "cutoff", "empty_target", "unjudged"]


@dataclass(frozen=True)
class MultiverseResult:
    """Result of :func:`multiverse`.

    Attributes
    ----------
    systems : DataFrame
        One row per convention x system: the convention columns
        (``measure``, ``ties``, ``queries``, ``rel``, ``cutoff``,
        ``empty_target``, ``unjudged``), ``system``,
        ``mean``, ``rank`` (1 = best), ``mean_shift`` (mean minus the mean under
        the reference convention of the same measure) and ``n_queries``.
    pairs : DataFrame
        One row per convention x pair: ``a``, ``b``, ``difference``,
        ``pvalue_adjusted``, ``significant``, ``flipped`` (the order of the
        pair differs from the reference), ``change`` (``"lost"``,
        ``"gained"``, ``"same"``).
    summary : DataFrame
        One row per convention: ``n_significant``, ``n_flipped``, ``n_lost``,
        ``n_gained``, ``max_abs_shift``, ``kendall_tau`` (of the system order
        with the reference), ``ordering`` (best first).
    reference : dict
        The reference convention of each measure.
    test, correction : str
    alpha : float
    n_resamples : int or None
        Resamples of a resampling test (None for the t, Wilcoxon and sign tests).
    seed : int or None
        The seed of the call: the integer given as ``rng``, or the one drawn when
        ``rng=None`` (pass it back as ``rng=`` to get the same tables); None when a
        Generator was given.
    """

    systems: pd.DataFrame
    pairs: pd.DataFrame
    summary: pd.DataFrame
    reference: dict
    test: str
    correction: str
    alpha: float
    n_resamples: int | None = None
    seed: int | None = None

    def methods(self) -> MethodsText:
        """The methods paragraph and its references (:mod:`mrrstats.stats.methods`)."""
        return methods_text(self)

    def to_frame(self) -> pd.DataFrame:
        """The tidy one-table view: the per-convention summary."""
        return self.summary.copy()

    def plot(self, ax: Axes | None = None, *, measure: str | None = None) -> Axes:
        """Mean of every system under every convention (one line per system).

        The reference convention is the first column; marker size shows the
        number of significant pairs is not drawn (see ``summary``). Returns the Axes.
        """
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(10, 4))
        sysf = self.systems
        if measure is None:
            measure = sysf["measure"].iloc[0]
        sysf = sysf[sysf["measure"] == measure]
        labels = (sysf[["ties", "queries", "rel", "cutoff", "empty_target", "unjudged"]]
                  .astype(str)
                  .agg("/".join, axis=1))
        sysf = sysf.assign(convention=labels.to_numpy())
        order = list(dict.fromkeys(sysf["convention"]))
        for name, g in sysf.groupby("system", sort=False):
            g = g.set_index("convention").reindex(order)
            ax.plot(range(len(order)), g["mean"].to_numpy(), marker="o", ms=3, label=name)
        ax.set_xticks(range(len(order)))
        ax.set_xticklabels(order, rotation=90, fontsize=6)
        ax.set_ylabel(f"mean {measure}")
        ax.set_xlabel("convention (ties/queries/rel/cutoff/empty target/unjudged)")
        ax.legend(fontsize=7)
        return ax


def _measure_name(base, cutoff):
    m = parse_measure(base)
    if cutoff is None or m.k is not None:
        return str(m)
    return f"{m}@{int(cutoff)}"


def _options_iv(values, name, check):
    """One option value or a list of them, each checked; duplicates dropped, order kept."""
    if values is None or isinstance(values, str | int | np.integer):
        values = [values]
    if not isinstance(values, list | tuple | np.ndarray) or (isinstance(values, np.ndarray)
                                                            and values.ndim != 1):
        raise ParameterTypeError(f"`{name}` must be a list of values, got "
                                 f"{type(values).__name__}", name=name)
    return list(dict.fromkeys(check(v) for v in values))


def multiverse(qrels: QrelsInput, runs: RunsInput, measures: MeasuresInput = ("RR",), *,
               ties: Sequence[str] = ("trec_eval", "optimistic", "pessimistic", "expected"),
               queries: Sequence[Literal["both", "qrels"]] = ("both", "qrels"),
               rels: Sequence[int] | None = None, cutoffs: Sequence[int | None] = (None, 10, 100),
               empty_targets: Sequence[Literal["neg", "pos", "skip"]] = ("neg", "pos", "skip"),
               unjudged: Sequence[Literal["nonrelevant", "condense",
                                        "relevant"]] = ("nonrelevant",),
               test: str = "t", correction: str = "holm", alpha: float = ALPHA,
               n_resamples: int = N_RESAMPLES, workers: int = WORKERS,
               rng: Seed = None) -> MultiverseResult:
    r"""Evaluate runs under every convention and report what changes.

    Parameters
    ----------
    qrels : path, DataFrame, dict or Qrels
    runs : runs as :func:`mrrstats.evaluate` takes them
    measures : str or sequence of str
        Base measures (``"RR"``, ``"nDCG"``, ...). A measure with its own
        cutoff (``"RR@10"``) is not varied over ``cutoffs``.
    ties : sequence of str, keyword-only
        Tie conventions (:data:`mrrstats.TIES`).
    queries : sequence of {"both", "qrels"}, keyword-only
    rels : sequence of int, optional, keyword-only
        Relevance thresholds; default every positive grade in the qrels.
    cutoffs : sequence of int or None, keyword-only
        ``None`` for no cutoff.
    empty_targets : sequence of {"neg", "pos", "skip"}, keyword-only
        What a counted query without any relevant document (grade >= the
        threshold) becomes (``empty_target=`` of :func:`mrrstats.evaluate`):
        0 for every measure (``"neg"``, trec_eval), 1 (``"pos"``) or left out
        (``"skip"``). Only varied where it changes a number: a convention
        whose queries all have a relevant document is evaluated under the
        first policy only (the others would repeat it row for row).
    unjudged : sequence of {"nonrelevant", "condense", "relevant"}, keyword-only
        What a retrieved document the qrels do not judge counts as
        (``unjudged=`` of :func:`mrrstats.evaluate`): non-relevant (trec_eval,
        the default and only value unless asked), removed before scoring
        (``"condense"``, Sakai 2007) or relevant (the upper end of
        :func:`mrrstats.judgment_bounds`).
    test, correction, alpha, n_resamples, workers : keyword-only
        As in :func:`mrrstats.pairwise_tests` (default: paired t-test with
        Holm's correction: deterministic, seed-free and fast over dozens of conventions;
        the package default, the single-step max-T, draws permutations).
    rng : None, int or numpy.random.Generator, keyword-only
        For resampling tests; one Generator feeds every convention in turn. The seed
        of the call is the result's ``seed``.

    Returns
    -------
    MultiverseResult

    Notes
    -----
    The reference convention of each measure is the first value of each
    option (by default trec_eval ties, queries in both, the lowest grade, no
    cutoff, empty queries scored 0). Queries missing from some run (``queries="both"``) are dropped
    from the tests of that convention.

    References
    ----------
    .. [1] Steegen, S., Tuerlinckx, F., Gelman, A. and Vanpaemel, W. (2016).
           Increasing transparency through a multiverse analysis.
           Perspectives on Psychological Science 11(5), 702-712.

    Examples
    --------
    A's second query ties its relevant document with a non-relevant one:
    trec_eval and pessimistic ties put it second, optimistic and expected
    ties (partly) first, and A overtakes B.

    >>> import mrrstats
    >>> qrels = {"q1": {"d1": 1}, "q2": {"d7": 1}, "q3": {"d3": 1}}
    >>> runs = {"A": {"q1": {"d1": 1.0}, "q2": {"d7": 0.5, "d9": 0.5},
    ...               "q3": {"d4": 0.9, "d5": 0.8, "d3": 0.7}},
    ...         "B": {"q1": {"d1": 1.0}, "q2": {"d9": 0.9, "d7": 0.8},
    ...               "q3": {"d4": 0.9, "d3": 0.8}}}
    >>> mv = mrrstats.multiverse(qrels, runs, "RR", cutoffs=(None,))
    >>> print(mv.summary.groupby("ties", sort=False)["n_flipped"].sum().to_dict())
    {'trec_eval': 0, 'optimistic': 2, 'pessimistic': 0, 'expected': 2}
    """
    alpha = alpha_iv(alpha)
    gen, seed = rng_iv(rng)
    if isinstance(measures, str):
        measures = (measures,)
    measures = [str(m) for m in measures_iv(measures)]
    qrels = qrels_iv(qrels)
    if rels is None:
        grades = np.unique(qrels.grade)
        rels = [int(g) for g in grades if g > 0] or [1]
    rels = _options_iv(rels, "rels", lambda r: int_iv(r, "rels"))
    cutoffs = _options_iv(cutoffs, "cutoffs", lambda c: int_iv(c, "cutoffs", allow_none=True))
    ties = _options_iv(ties, "ties", lambda t: choice_iv(t, "ties", TIES))
    queries = _options_iv(queries, "queries", lambda q: choice_iv(q, "queries", QUERIES))
    empty_targets = _options_iv(empty_targets, "empty_targets",
                                lambda e: choice_iv(e, "empty_targets", EMPTY_TARGET))
    unjudged = _options_iv(unjudged, "unjudged", lambda u: choice_iv(u, "unjudged", UNJUDGED))
    for e in empty_targets:
        if e == "error":
            raise ParameterError("`empty_targets` cannot hold 'error': it changes no number (it "
                             "stops the evaluation); use 'neg', 'pos' or 'skip'")
    unjudged = [unjudged] if isinstance(unjudged, str) else list(dict.fromkeys(unjudged))
    for u in unjudged:
        if not isinstance(u, str | None) or u not in UNJUDGED:
            raise ParameterError(f"`unjudged` values must be in {UNJUDGED}, got {u!r}")
    if not (ties and queries and rels and cutoffs and measures and empty_targets and unjudged):
        raise ParameterError("every option (`ties`, `queries`, `rels`, `cutoffs`, "
                         "`empty_targets`, `unjudged`, `measures`) needs at least one value")
    run_objs = _read_runs(runs)
    sys_rows, pair_rows = [], []  # type: ignore[var-annotated]
    names = {}  # type: ignore[var-annotated]
    for base in measures:
        for c in cutoffs:
            names.setdefault(_measure_name(base, c), (base, c))
    # the multiverse varies the query conventions on purpose and reports each one's
    # counts: the warning of each evaluation that leaves queries out would be noise
    quiet = partial(_quiet_evaluate, qrels, run_objs, list(names))
    for t, q, r, u in itertools.product(ties, queries, rels, unjudged):
        first = quiet(ties=t, rel=r, queries=q, empty_target=empty_targets[0], unjudged=u)
        # the other policies only where some counted query has no relevant document
        has_empty = any(first.counts[name].no_relevant for name in first.runs)
        for e in (empty_targets if has_empty else empty_targets[:1]):
            ev = first if e == empty_targets[0] else quiet(
                ties=t, rel=r, queries=q, empty_target=e, unjudged=u)
            resampled = _one_convention(ev, names, (t, q, r, e, u), sys_rows, pair_rows,
                                        test=test, correction=correction, alpha=alpha,
                                        n_resamples=n_resamples, workers=workers, gen=gen)
    systems = pd.DataFrame(sys_rows)
    pairs = pd.DataFrame(pair_rows)
    # the reference convention of each measure: first value of every option
    ref = {m: {"ties": ties[0], "queries": queries[0], "rel": rels[0],
               "cutoff": "none" if cutoffs[0] is None else int(cutoffs[0]),
               "empty_target": empty_targets[0], "unjudged": unjudged[0]} for m in measures}

    def is_ref(frame):
        mask = np.zeros(len(frame), bool)
        for m, conv in ref.items():
            sel = frame["measure"] == m
            for k, v in conv.items():
                sel &= frame[k] == v
            mask |= sel.to_numpy()
        return mask

    ref_sys = systems[is_ref(systems)].set_index(["measure", "system"])["mean"]
    systems["mean_shift"] = systems["mean"].to_numpy() - ref_sys.loc[
        list(zip(systems["measure"], systems["system"], strict=True))].to_numpy()
    ref_pairs = pairs[is_ref(pairs)].set_index(["measure", "a", "b"])
    idx = list(zip(pairs["measure"], pairs["a"], pairs["b"], strict=True))
    ref_diff = ref_pairs.loc[idx, "difference"].to_numpy()
    ref_sig = ref_pairs.loc[idx, "significant"].to_numpy()
    pairs["flipped"] = np.sign(pairs["difference"].to_numpy()) * np.sign(ref_diff) < 0
    sig = pairs["significant"].to_numpy()
    pairs["change"] = np.where(sig & ~ref_sig, "gained", np.where(~sig & ref_sig, "lost",
                                                                   "same"))
    summary = _summary(systems, pairs, ref)
    return MultiverseResult(systems, pairs, summary, ref, test, correction, alpha,
                            n_resamples=resampled, seed=seed)


def _quiet_evaluate(qrels, runs, measures, **conventions):
    """:func:`evaluate` under one convention, its left-out-queries warning silenced
    (the multiverse records every convention's counts)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", QueriesLeftOutWarning)
        return evaluate(qrels, runs, measures, **conventions)


def _one_convention(ev, names, convention, sys_rows, pair_rows, *, test, correction, alpha,
                    n_resamples, workers, gen):
    """Means, ranks and pairwise tests of one evaluated convention, appended to the rows;
    returns the tests' ``n_resamples`` (None for a test that does not resample)."""
    t, q, r, e, u = convention
    resampled = None
    for mname, (base, c) in names.items():
        frame = ev.scores(mname)
        frame.attrs["measure"] = mname
        res = pairwise_tests(frame, test=test, correction=correction, alpha=alpha,
                             n_resamples=n_resamples, missing="drop", workers=workers,
                             rng=gen)
        resampled = res.n_resamples
        conv = {"measure": base, "ties": t, "queries": q, "rel": r,
                "cutoff": "none" if c is None else int(c), "empty_target": e, "unjudged": u}
        hib = higher_is_better(mname)
        means = frame.mean(axis=0)
        key = means if hib else -means
        for s in frame.columns:
            sys_rows.append({**conv, "system": s, "mean": float(means[s]),
                             "rank": 1 + int((key > key[s]).sum()),
                             "n_queries": int(frame[s].notna().sum())})
        for a, b, d, p, rej in zip(res.a, res.b, res.difference, res.pvalue_adjusted,
                                   res.reject, strict=True):
            pair_rows.append({**conv, "a": a, "b": b, "difference": float(d),
                              "pvalue_adjusted": float(p), "significant": bool(rej)})
    return resampled


def _read_runs(runs):
    if isinstance(runs, dict) and runs and all(isinstance(v, dict) for v in runs.values()) \
            and all(isinstance(v2, dict) for v in runs.values() for v2 in v.values()):
        return runs  # {name: {query: {doc: score}}}: evaluate reads it
    if isinstance(runs, (list, tuple)):
        return [run_iv(r) for r in runs]
    return runs


def _kendall_tau(order_a, order_b):
    pos = {s: i for i, s in enumerate(order_b)}
    x = [pos[s] for s in order_a]
    n = len(x)
    conc = disc = 0
    for i in range(n):
        for j in range(i + 1, n):
            if x[i] < x[j]:
                conc += 1
            elif x[i] > x[j]:
                disc += 1
    return (conc - disc) / (n * (n - 1) / 2) if n > 1 else 1.0


def _summary(systems, pairs, ref):
    rows = []
    refs = {}
    for keys, g in systems.groupby(_CONV, sort=False):
        conv = dict(zip(_CONV, keys, strict=True))
        if all(conv[k] == v for k, v in ref[conv["measure"]].items()):
            refs[conv["measure"]] = tuple(g.sort_values(["rank", "system"])["system"])
    for keys, g in systems.groupby(_CONV, sort=False):
        p = pairs
        for k, v in zip(_CONV, keys, strict=True):
            p = p[p[k] == v]
        order = tuple(g.sort_values(["rank", "system"])["system"])
        ref_order = refs.get(keys[0], order)
        rows.append({**dict(zip(_CONV, keys, strict=True)),
                     "n_significant": int(p["significant"].sum()),
                     "n_flipped": int(p["flipped"].sum()),
                     "n_lost": int((p["change"] == "lost").sum()),
                     "n_gained": int((p["change"] == "gained").sum()),
                     "max_abs_shift": float(g["mean_shift"].abs().max()),
                     "kendall_tau": _kendall_tau(order, ref_order),
                     "ordering": " > ".join(order)})
    return pd.DataFrame(rows)
