r"""PyKEEN's rank-based metrics, their expectations and variances under random ranking.

The metrics of ``pykeen.metrics.ranking`` (PyKEEN 1.11), under PyKEEN's keys, computed
from the ranks :math:`r_i` of :math:`n` queries and their numbers of candidates
:math:`N_i` (the true one included). A random ranker puts the true candidate at a rank
uniform on :math:`1, \dots, N_i`, independently over queries: the expectations and
variances below are under that law (Berrendorf et al. 2022, arXiv:2203.07544).

====================================== ============================================ ===========
key (synonyms)                         value                                        E, V closed
====================================== ============================================ ===========
arithmetic_mean_rank (mean_rank, mr)   :math:`\bar r`                               yes
inverse_arithmetic_mean_rank (iamr)    :math:`1/\bar r`                             no
geometric_mean_rank (gmr)              :math:`(\prod r_i)^{1/n}`                    yes
inverse_geometric_mean_rank (igmr)     :math:`1/\mathrm{GMR}`                       no
harmonic_mean_rank (hmr)               :math:`n / \sum 1/r_i`                       no
inverse_harmonic_mean_rank (mrr)       :math:`\frac1n \sum 1/r_i` (MRR)             yes
median_rank, inverse_median_rank       the median of :math:`r_i`, its inverse       no
standard_deviation (std), variance     of the ranks (``ddof=0``)                    no
median_absolute_deviation (mad)        scipy's, ``scale="normal"``                  no
count                                  :math:`n`                                    no
hits_at_k (hits@k, h@k)                :math:`\frac1n \sum [r_i \le k]`             yes
adjusted_arithmetic_mean_rank (amr)    :math:`\mathrm{MR} / E[\mathrm{MR}]`         from MR
adjusted_arithmetic_mean_rank_index    :math:`1 - (\mathrm{MR} - 1)/(E[\mathrm{MR}]   from MR
(amri)                                 - 1)`
adjusted_geometric_mean_rank_index     :math:`(M - E[M]) / (1 - E[M])`, M = GMR     from GMR
adjusted_inverse_harmonic_mean_rank    :math:`(M - E[M]) / (1 - E[M])`, M = MRR     from MRR
(amrr, adjusted_mrr)
adjusted_hits_at_k (ah@k)              :math:`(M - E[M]) / (1 - E[M])`, M = Hits@k from Hits@k
z_arithmetic_mean_rank (zmr)           :math:`-(M - E[M]) / \sqrt{V[M]}`, M = MR    from MR
z_geometric_mean_rank (zgmr)           :math:`-(M - E[M]) / \sqrt{V[M]}`, M = GMR   from GMR
z_inverse_harmonic_mean_rank (zmrr)    :math:`(M - E[M]) / \sqrt{V[M]}`, M = MRR    from MRR
z_hits_at_k (zahk)                     :math:`(M - E[M]) / \sqrt{V[M]}`, M = Hits@k from Hits@k
====================================== ============================================ ===========

A z-score is signed so that larger is better (PyKEEN's convention: the z-scores of
decreasing metrics, MR and GMR, are negated). Closed forms: :math:`E[r_i] = (N_i +
1)/2`, :math:`V[r_i] = (N_i^2 - 1)/12`; :math:`E[1/r_i] = H(N_i)/N_i`, :math:`V[1/r_i] =
(N_i H_2(N_i) - H(N_i)^2)/N_i^2`; :math:`[r_i \le k] \sim` Bernoulli
:math:`(\min(k/N_i, 1))`; :math:`E[\mathrm{GMR}] = \prod_i E[r_i^{1/n}]` and
:math:`V[\mathrm{GMR}] = \prod_i E[r_i^{2/n}] - E[\mathrm{GMR}]^2`. A mean of
independent terms has the mean of their expectations and :math:`1/n^2` times the sum
of their variances. Divisions by an expectation or a standard deviation guard against
zero as PyKEEN does (by ``1e-12``).
"""

from __future__ import annotations

import math
import re

import numpy as np
from scipy import stats

from ..errors import ParameterError

__all__ = ["rank_metrics", "resolve_rank_metric", "RANK_METRIC_SYNONYMS"]

#: PyKEEN's safe-division guard (``pykeen.metrics.ranking.EPSILON``).
_EPSILON = 1.0e-12

#: PyKEEN's keys and synonyms (``synonyms`` of each class of pykeen.metrics.ranking), the
#: names without ``k`` for the Hits family; matched lower-case without ``_ - @`` and spaces.
RANK_METRIC_SYNONYMS = {
    "arithmetic_mean_rank": ("mean_rank", "mr"),
    "inverse_arithmetic_mean_rank": ("iamr",),
    "geometric_mean_rank": ("gmr",),
    "inverse_geometric_mean_rank": ("igmr",),
    "harmonic_mean_rank": ("hmr",),
    "inverse_harmonic_mean_rank": ("mean_reciprocal_rank", "mrr"),
    "median_rank": (),
    "inverse_median_rank": (),
    "standard_deviation": ("rank_std", "std"),
    "variance": ("rank_var", "var"),
    "median_absolute_deviation": ("rank_mad", "mad"),
    "count": ("rank_count",),
    "hits_at_k": ("h@k", "hits@k", "h@", "hits@", "hits_at_", "h_at_"),
    "adjusted_arithmetic_mean_rank": ("adjusted_mean_rank", "amr", "aamr"),
    "adjusted_arithmetic_mean_rank_index": ("adjusted_mean_rank_index", "amri", "aamri"),
    "adjusted_geometric_mean_rank_index": ("gmri", "agmri"),
    "adjusted_inverse_harmonic_mean_rank": (
        "amrr",
        "aihmr",
        "adjusted_mrr",
        "adjusted_mean_reciprocal_rank",
    ),
    "adjusted_hits_at_k": (
        "ahk",
        "ah@k",
        "ahits@k",
        "ah@",
        "ahits@",
        "ahits_at_",
        "ah_at_",
        "adjusted_hits_at_",
    ),
    "z_arithmetic_mean_rank": ("zamr", "zmr"),
    "z_geometric_mean_rank": ("zgmr",),
    "z_inverse_harmonic_mean_rank": ("zmrr", "zihmr"),
    "z_hits_at_k": ("z_hits_at_", "zahk"),
}


def _norm(name: str) -> str:
    return re.sub(r"[\s_@\-]", "", name.lower())


_LOOKUP: dict[str, str] = {}
for _key, _syn in RANK_METRIC_SYNONYMS.items():
    for _name in (_key, *_syn):
        _n = _norm(_name)
        _LOOKUP[_n] = _key
        if _key.endswith("_k") and _n.endswith("k"):  # 'hits_at_k' is also 'hits_at_' + k
            _LOOKUP[_n[:-1]] = _key


def resolve_rank_metric(name: str, default_k: int = 10) -> str:
    """PyKEEN's key of a metric name or synonym, case-insensitive: ``"amri"`` ->
    ``"adjusted_arithmetic_mean_rank_index"``, ``"hits@10"`` -> ``"hits_at_10"``,
    ``"zahk"`` -> ``"z_hits_at_10"`` (PyKEEN's default k is 10).

    >>> resolve_rank_metric("MRR"), resolve_rank_metric("h@3"), resolve_rank_metric("zmr")
    ('inverse_harmonic_mean_rank', 'hits_at_3', 'z_arithmetic_mean_rank')
    """
    if not isinstance(name, str):
        raise ParameterError(
            f"a metric name must be a str, got {type(name).__name__}", name="name"
        )
    n = _norm(name)
    m = re.fullmatch(r"(.*?)(\d+)", n)
    if m and m.group(1) in _LOOKUP and _LOOKUP[m.group(1)].endswith("_k"):
        return _LOOKUP[m.group(1)][:-1] + m.group(2)
    key = _LOOKUP.get(n)
    if key is None:
        raise ParameterError(
            f"unknown rank metric {name!r}; known: {', '.join(RANK_METRIC_SYNONYMS)}", name="name"
        )
    return key[:-1] + str(default_k) if key.endswith("_k") else key


def _safe_divide(x: float, y: float) -> float:
    return x / math.copysign(max(abs(y), _EPSILON), y)


def _harmonic_tables(n_max: int):
    j = np.arange(1, n_max + 1, dtype=np.float64)
    return np.cumsum(1.0 / j), np.cumsum(1.0 / j**2)


def _gmr_moments(n_candidates: np.ndarray) -> tuple[float, float]:
    """E[GMR] and V[GMR]: prod_i E[r_i^(1/n)], prod_i E[r_i^(2/n)] - E^2 (in logs)."""
    m = n_candidates.size
    x = np.log(np.arange(1, int(n_candidates.max()) + 1, dtype=np.float64))
    out = []
    for factor in (1.0, 2.0):
        lse = np.logaddexp.accumulate(factor * x / m)  # log sum_{j <= N} j^(factor/m)
        out.append(float(np.exp(np.sum(lse[n_candidates - 1] - np.log(n_candidates)))))
    return out[0], out[1] - out[0] ** 2


def _base_moments(ranks_n: np.ndarray, ks) -> dict[str, tuple[float, float]]:
    """(expectation, variance) of MR, GMR, MRR and Hits@k under uniform random ranks."""
    N = ranks_n
    n = N.size
    h1, h2 = _harmonic_tables(int(N.max()))
    Nf = N.astype(np.float64)
    out = {
        "arithmetic_mean_rank": (
            float(np.mean(0.5 * (Nf + 1))),
            float(np.sum((Nf**2 - 1) / 12.0)) / n**2,
        ),
        "geometric_mean_rank": _gmr_moments(N),
        "inverse_harmonic_mean_rank": (
            float(np.mean(h1[N - 1] / Nf)),
            float(np.sum(np.maximum((Nf * h2[N - 1] - h1[N - 1] ** 2) / Nf**2, 0.0))) / n**2,
        ),
    }
    for k in ks:
        p = np.minimum(k / Nf, 1.0)
        out[f"hits_at_{k}"] = (float(np.mean(p)), float(np.sum(p * (1 - p))) / n**2)
    return out


def rank_metrics(
    ranks, n_candidates=None, ks=(1, 3, 5, 10), *, moments: bool = True
) -> dict[str, float]:
    """PyKEEN's rank-based metrics of ``ranks`` (and, with ``n_candidates``, the adjusted
    and z-scored ones, and ``expected_<key>`` / ``variance_<key>`` under random ranking).

    Parameters
    ----------
    ranks : array_like
        One rank per query (>= 1; realistic ranks may end in ``.5``).
    n_candidates : array_like of int, optional
        Candidates per query, the true one included.
    ks : sequence of int
        The cutoffs of the Hits family.
    moments : bool, keyword-only
        Whether to add the expectations and variances.

    Returns
    -------
    dict of str -> float
        Keyed as PyKEEN keys its results (``hits_at_10``, ``z_hits_at_10``, ...).

    Examples
    --------
    >>> from mrrstats.baselines.rank_metrics import rank_metrics
    >>> m = rank_metrics([1, 2, 4], [10, 10, 10], ks=(1,))
    >>> round(m["inverse_harmonic_mean_rank"], 4), round(m["z_inverse_harmonic_mean_rank"], 4)
    (0.5833, 1.9125)
    """
    r = np.asarray(ranks, dtype=np.float64).ravel()
    out: dict[str, float] = {
        "arithmetic_mean_rank": float(np.mean(r)),
        "inverse_arithmetic_mean_rank": float(1.0 / np.mean(r)),
        "geometric_mean_rank": float(stats.gmean(r)),
        "inverse_geometric_mean_rank": float(1.0 / stats.gmean(r)),
        "harmonic_mean_rank": float(stats.hmean(r)),
        "inverse_harmonic_mean_rank": float(np.mean(1.0 / r)),
        "median_rank": float(np.median(r)),
        "inverse_median_rank": float(1.0 / np.median(r)),
        "standard_deviation": float(np.std(r)),
        "variance": float(np.var(r)),
        "median_absolute_deviation": float(stats.median_abs_deviation(r, scale="normal")),
        "count": float(r.size),
    }
    for k in ks:
        out[f"hits_at_{k}"] = float(np.mean(r <= k))
    if n_candidates is None:
        return out
    N = np.asarray(n_candidates).ravel().astype(np.int64)
    base = _base_moments(N, ks)
    derived: dict[str, tuple[str, float, float]] = {}  # key -> (base key, scale, offset)
    for key, (mean, var) in base.items():
        increasing = key.startswith(("inverse", "hits"))
        scale = _safe_divide(1.0, math.sqrt(var))
        scale = scale if increasing else -scale
        zkey = "z_" + key
        derived[zkey] = (key, scale, -scale * mean)
        if key != "arithmetic_mean_rank":
            adj = {
                "geometric_mean_rank": "adjusted_geometric_mean_rank_index",
                "inverse_harmonic_mean_rank": "adjusted_inverse_harmonic_mean_rank",
            }.get(key, "adjusted_" + key)
            s = _safe_divide(1.0, 1.0 - mean)
            derived[adj] = (key, s, -s * mean)
    mean_mr = base["arithmetic_mean_rank"][0]
    derived["adjusted_arithmetic_mean_rank"] = (
        "arithmetic_mean_rank",
        _safe_divide(1.0, mean_mr),
        0.0,
    )
    s = _safe_divide(1.0, 1.0 - mean_mr)
    derived["adjusted_arithmetic_mean_rank_index"] = ("arithmetic_mean_rank", s, -s * mean_mr)
    order = [
        "adjusted_arithmetic_mean_rank",
        "adjusted_arithmetic_mean_rank_index",
        "adjusted_geometric_mean_rank_index",
        "adjusted_inverse_harmonic_mean_rank",
        *[f"adjusted_hits_at_{k}" for k in ks],
        "z_arithmetic_mean_rank",
        "z_geometric_mean_rank",
        "z_inverse_harmonic_mean_rank",
        *[f"z_hits_at_{k}" for k in ks],
    ]
    for key in order:
        b, scale, offset = derived[key]
        out[key] = scale * out[b] + offset
    if moments:
        for key, (mean, var) in base.items():
            out[f"expected_{key}"] = mean
            out[f"variance_{key}"] = var
        for key in order:
            b, scale, offset = derived[key]
            mean, var = base[b]
            out[f"expected_{key}"] = scale * mean + offset
            out[f"variance_{key}"] = scale**2 * var
    return out
