r"""Clustered and stratified queries: the design and its resampling.

When queries come in clusters (the turns of a conversation, the questions
about one document) the exchangeable units are the clusters; with strata,
clusters are resampled within each stratum. :func:`design_iv` turns the
``clusters=`` / ``strata=`` labels into a :class:`Design`; the rest computes
with it: cluster-bootstrap sums (:func:`design_sums`), the leave-one-cluster-out
BCa acceleration (:func:`cluster_acceleration`), the cluster-robust standard
error (:func:`cluster_robust_se`) and the cluster bootstrap tests of many pairs
at once (:func:`cluster_bootstrap_rows`). :func:`query_labels` reads one label
per query from a mapping, a Series, an array or a frame column.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import ParameterError
from ..validation import asarray_iv
from .intervals import jackknife_acceleration
from .resampling import bootstrap_sums, mc_se
from .rows import signed_inf

__all__ = ["Design", "label_codes", "query_labels", "design_iv", "design_sums",
           "cluster_acceleration", "cluster_robust_se", "cluster_bootstrap_rows"]


@dataclass(frozen=True)
class Design:
    """Clusters (and strata) of the queries kept.

    ``codes``: cluster of each query, numbered by first appearance; ``sizes``:
    queries per cluster (int64); ``groups``: the cluster numbers of each
    stratum (in order of first appearance), or None without strata.
    """

    codes: np.ndarray
    sizes: np.ndarray
    groups: tuple | None

    @property
    def n_clusters(self):
        return int(self.sizes.size)

    @property
    def trivial(self):
        """Every query its own cluster and no strata: the plain (query) resampling."""
        return self.groups is None and self.sizes.size == self.codes.size

    def totals(self, x):
        """Per-cluster sums of the per-query values ``x`` (exact for singletons)."""
        return np.bincount(self.codes, weights=x, minlength=self.sizes.size)


def label_codes(labels, n, name):
    """Integer codes (first appearance) of one label per query; a clear error otherwise."""
    lab = labels.to_numpy() if hasattr(labels, "to_numpy") else asarray_iv(labels, name)
    if lab.ndim != 1 or lab.size != n:
        raise ParameterError(f"`{name}` must be 1-D with one label per query ({n}), got shape "
                         f"{lab.shape}")
    codes, _ = pd.factorize(lab, sort=False)
    if (codes < 0).any():
        i = int(np.flatnonzero(codes < 0)[0])
        raise ParameterError(f"`{name}` has a missing label at position {i}")
    return codes


def query_labels(labels, queries, *, name="segment_by", frame=None):
    """One label per query from a mapping, a Series, an aligned array or a frame column.

    Parameters
    ----------
    labels : mapping, Series, array_like or str
        ``{query: label}`` (or a Series indexed by query id); a 1-D array with
        one label per query in table order; or the name of a column of
        ``frame``.
    queries : sequence of str
        The table's query ids.
    frame : DataFrame, optional
        The input frame, for a column name.

    Returns
    -------
    ndarray of object
        The label of each query, in table order.
    """
    queries = [str(q) for q in queries]
    if isinstance(labels, str):
        if frame is None or labels not in getattr(frame, "columns", ()):
            raise ParameterError(f"`{name}`={labels!r} names no column of the score frame")
        labels = frame[labels]
    if isinstance(labels, pd.Series):
        labels = {str(k): v for k, v in labels.items()}
    if isinstance(labels, Mapping):
        lab = {str(k): v for k, v in labels.items()}
        absent = [q for q in queries if q not in lab or pd.isna(lab[q])]
        if absent:
            raise ParameterError(f"`{name}` has no label for {len(absent)} of {len(queries)} "
                             f"queries (e.g. {absent[:3]}); give every query one")
        return np.array([lab[q] for q in queries], dtype=object)
    arr = np.asarray(labels, dtype=object)
    if arr.ndim != 1 or arr.size != len(queries):
        raise ParameterError(f"`{name}` must be a mapping query -> label, a column name, or a "
                         f"1-D array with one label per query ({len(queries)}), got shape "
                         f"{arr.shape}")
    bad = pd.isna(arr)
    if bad.any():
        raise ParameterError(
            f"`{name}` has a missing label at position {int(np.flatnonzero(bad)[0])}")
    return arr


def design_iv(clusters, strata, n, keep=None):
    """Validate ``clusters`` / ``strata`` (one label per query before dropping) -> Design."""
    if clusters is None and strata is None:
        return None
    codes = np.arange(n) if clusters is None else label_codes(clusters, n, "clusters")
    st = None if strata is None else label_codes(strata, n, "strata")
    if keep is not None:
        codes = codes[keep]
        st = None if st is None else st[keep]
    codes = pd.factorize(codes, sort=False)[0]
    G = int(codes.max()) + 1 if codes.size else 0
    if G < 2:
        raise ParameterError(f"`clusters` must name at least 2 clusters, got {G}")
    sizes = np.bincount(codes, minlength=G).astype(np.int64)
    groups = None
    if st is not None:
        st_of = np.empty(G, dtype=np.int64)
        st_of[codes] = st
        bad = st_of[codes] != st
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ParameterError("`strata` must be constant within each cluster (query at "
                             f"position {i} differs from the rest of its cluster)")
        st_of = pd.factorize(st_of, sort=False)[0]
        groups = tuple(np.flatnonzero(st_of == h) for h in range(int(st_of.max()) + 1))
    return Design(codes, sizes, groups)


def design_sums(Y, design, n_resamples, batch, gen, workers=-1):
    r"""Cluster-bootstrap sums (m, B) of the per-cluster rows ``Y`` (m, G).

    Resample ``b`` draws clusters with replacement (multinomial counts
    :math:`c_{bg}`, the engine's :func:`~mrrstats.stats.resampling.bootstrap_sums`)
    and returns :math:`\sum_g c_{bg} Y_g`; with strata, each stratum draws its
    own number of clusters, stratum by stratum (all :math:`B` resamples of one
    stratum, then the next), so the result does not depend on ``batch``.
    """
    if design.groups is None:
        return bootstrap_sums(Y, n_resamples, batch, gen, workers)
    out = np.zeros((Y.shape[0], n_resamples))
    for g in design.groups:
        out += bootstrap_sums(Y[:, g], n_resamples, batch, gen, workers)
    return out


def cluster_acceleration(x, design):
    r"""BCa acceleration from the leave-one-cluster-out jackknife of the mean.

    :math:`\hat\theta_{(g)} = (S - S_g)/(n - n_g)` and :math:`\hat a = \sum U_g^3
    / (6 (\sum U_g^2)^{3/2})`, :math:`U_g = \bar\theta_{(\cdot)} - \hat\theta_{(g)}`;
    singleton clusters use the closed form of :func:`jackknife_acceleration`
    (the same value, without its rounding).
    """
    if design.sizes.size == x.size:
        return float(jackknife_acceleration(x[None, :])[0])
    S = design.totals(x)
    sz = design.sizes.astype(np.float64)
    theta = (S.sum() - S) / (x.size - sz)
    return float(jackknife_acceleration(-theta[None, :])[0])


def cluster_robust_se(D, design):
    r"""Cluster-robust (CR1-type) standard errors of the row means of ``D`` (P, n).

    :math:`\sqrt{G/(G-1) \sum_g (S_g - n_g \bar d)^2} / n` with cluster totals
    :math:`S_g`; :math:`s_d/\sqrt n` up to rounding for singleton clusters.
    """
    G = design.n_clusters
    S = np.stack([design.totals(row) for row in D])
    sz = design.sizes.astype(np.float64)
    mean = D.mean(axis=1)
    return np.sqrt(G / (G - 1.0) * ((S - sz * mean[:, None]) ** 2).sum(axis=1)) / D.shape[1]


def cluster_bootstrap_rows(D, design, alternative, method, n_resamples, batch, gen,
                           keep=False, workers=-1):
    """Cluster bootstrap tests of each row of ``D`` (P, n), one shared set of cluster draws.

    Returns ``(statistic, pvalue, pvalue_se, null, std_error)`` (arrays of P;
    ``null`` is the (B,) null of the one row with ``keep=True``, else None).
    """
    P, n = D.shape
    G = design.n_clusters
    S = np.stack([design.totals(row) for row in D])  # (P, G)
    sz = design.sizes.astype(np.float64)
    mean = D.mean(axis=1)
    scale = np.abs(D).mean(axis=1)
    crv = G / (G - 1.0)
    se = cluster_robust_se(D, design)
    studentized = method == "studentized"
    if studentized:
        const = se * math.sqrt(n) <= 1e-13 * np.abs(D).max(axis=1)  # no usable variance
        with np.errstate(divide="ignore", invalid="ignore"):
            obs = np.where(const, signed_inf(mean), mean / se)
        tol = 1e-12 * np.where(np.isfinite(obs), np.abs(obs), 0.0)
        Y = np.vstack([S, sz, S * S, S * sz, sz * sz])
    else:
        obs, tol = mean, 1e-12 * scale
        Y = np.vstack([S, sz])
    sums = design_sums(Y, design, n_resamples, batch, gen, workers)
    N = sums[P]
    m = sums[:P] / N
    num = m - mean[:, None]
    if studentized:
        Q, R, W = sums[P + 1:2 * P + 1], sums[2 * P + 1:3 * P + 1], sums[3 * P + 1]
        var = np.maximum(Q - 2.0 * m * R + m * m * W, 0.0) * crv / (N * N)
        se_b = np.sqrt(var)
        lim = 1e-12 * (scale[:, None] + 1e-300)
        tiny = np.abs(num) <= lim
        with np.errstate(divide="ignore", invalid="ignore"):
            null = np.where(se_b > lim, num / se_b, np.where(tiny, 0.0, signed_inf(num)))
    else:
        null = num
    if alternative == "two-sided":
        count = (np.abs(null) >= (np.abs(obs) - tol)[:, None]).sum(axis=1)
    elif alternative == "greater":
        count = (null >= (obs - tol)[:, None]).sum(axis=1)
    else:
        count = (null <= (obs + tol)[:, None]).sum(axis=1)
    p = np.minimum((count + 1.0) / (n_resamples + 1.0), 1.0)
    return obs, p, mc_se(p, n_resamples), (null[0] if keep else None), se
