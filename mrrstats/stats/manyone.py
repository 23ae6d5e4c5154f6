r"""Many-to-one comparisons: Dunnett's distribution for a blocked (queries x systems) design.

Comparing :math:`m = k - 1` systems with one baseline on the same queries,
with the two-way ANOVA error :math:`V_E` (``df = (n - 1)(k - 1)``), the
statistics :math:`T_i = (\bar x_i - \bar x_0) / \sqrt{2 V_E / n}` are jointly
multivariate t with correlation 1/2 (Dunnett 1955). This module computes that
distribution deterministically by quadrature (no Monte Carlo):

.. math::

    P(\max_i |T_i| \le c) = \int_0^\infty f_S(s) \int \phi(w)
        \left[\Phi(\sqrt 2\, c s - w) - \Phi(-\sqrt 2\, c s - w)\right]^m dw\, ds,

with :math:`S = \sqrt{\chi^2_{df}/df}`: each :math:`T_i = (W + U_i) /
(\sqrt 2 S)` for independent standard normals :math:`W, U_i`. One-sided:
:math:`\Phi(\sqrt 2 c s - w)^m`. The inner integral uses Gauss-Hermite
nodes, the outer Gauss-Legendre nodes between the :math:`10^{-14}` and
:math:`1 - 10^{-14}` quantiles of :math:`S`; checked against
:func:`scipy.stats.dunnett` (quasi-Monte Carlo) in ``tests/stats/test_manyone.py``.

Names without a leading underscore are public within the package
(:mod:`mrrstats.stats.multiple` uses them for ``baseline=`` with
``test="dunnett"``).

References
----------
.. [1] Dunnett, C. W. (1955). A multiple comparison procedure for comparing
       several treatments with a control. JASA 50(272), 1096-1121.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, special, stats

__all__ = ["dunnett_cdf", "dunnett_sf", "dunnett_critical_value"]

_NW = 96  # Gauss-Hermite nodes (inner normal integral)
_NS = 160  # Gauss-Legendre nodes (outer chi integral)
_HERM = np.polynomial.hermite_e.hermegauss(_NW)  # weight exp(-w^2/2)
_LEG = np.polynomial.legendre.leggauss(_NS)


def _s_nodes(df):
    """Nodes and weights of the density of S = sqrt(chi2_df / df)."""
    if not math.isfinite(df):
        return np.array([1.0]), np.array([1.0])
    dist = stats.chi(df, scale=1.0 / math.sqrt(df))
    lo, hi = dist.ppf(1e-14), dist.isf(1e-14)
    x, w = _LEG
    s = 0.5 * (hi - lo) * x + 0.5 * (hi + lo)
    wt = 0.5 * (hi - lo) * w * dist.pdf(s)
    return s, wt / wt.sum()


def _tail_integral(c, m, df, alternative):
    """``P(max |T| > c)`` by quadrature of ``1 - (1 - tail)^m`` (accurate in the far tail)."""
    c = np.atleast_1d(np.asarray(c, dtype=np.float64))
    s, ws = _s_nodes(df)
    w, ww = _HERM
    ww = ww / ww.sum()
    x = math.sqrt(2.0) * c[:, None, None] * s[None, :, None]  # (C, S, 1)
    if alternative == "two-sided":
        tail = special.ndtr(w - x) + special.ndtr(-x - w)
    else:
        tail = special.ndtr(w - x)
    with np.errstate(divide="ignore"):  # tail = 1: log1p(-1) = -inf, q = 1
        q = -np.expm1(m * np.log1p(-np.clip(tail, 0.0, 1.0)))
    return np.clip((q * ww).sum(axis=2) @ ws, 0.0, 1.0)


def dunnett_cdf(c, m, df, alternative="two-sided"):
    r"""``P(max_i |T_i| <= c)`` (two-sided) or ``P(max_i T_i <= c)`` (one-sided).

    Parameters
    ----------
    c : array_like
        Cut-offs.
    m : int
        Number of comparisons with the baseline (``k - 1``).
    df : float
        Degrees of freedom of the error variance (``inf``: normal).
    alternative : {"two-sided", "greater", "less"}
        ``"greater"`` and ``"less"`` give the same one-sided distribution.
    """
    return 1.0 - _tail_integral(c, m, df, alternative)


def dunnett_sf(t, m, df, alternative="two-sided"):
    """Single-step Dunnett adjusted p-values: ``P(max |T| >= |t|)`` (or one-sided).

    Absolute error below 1e-14, relative error below 1e-6 for p >= 1e-10 and
    ``df >= 3`` (measured for ``m = 1`` against Student's t, see the tests).
    """
    t = np.asarray(t, dtype=np.float64)
    if alternative == "two-sided":
        q = np.abs(t)
    elif alternative == "greater":
        q = t
    else:
        q = -t
    flat = np.atleast_1d(q).ravel()
    out = np.ones(flat.size)
    finite = np.isfinite(flat)
    out[np.isposinf(flat)] = 0.0
    if finite.any():
        out[finite] = _tail_integral(flat[finite], m, df, alternative)
    return np.clip(out, 0.0, 1.0).reshape(np.shape(q))


def dunnett_critical_value(confidence_level, m, df, alternative="two-sided"):
    """The ``c`` with ``dunnett_cdf(c) = confidence_level`` (simultaneous intervals)."""
    def f(c):
        return float(dunnett_cdf(c, m, df, alternative)[0]) - confidence_level

    hi = 1.0
    while f(hi) < 0:
        hi *= 2.0
    return float(optimize.brentq(f, -10.0 if alternative != "two-sided" else 0.0, hi,
                                 xtol=1e-12, rtol=1e-12))
