r"""The counter-based random stream of the resampling engine (Threefry-2x32-20).

Every random number of the sign-flip and bootstrap engines
(:mod:`mrrstats.stats.resampling`) is a pure function of a 64-bit key and a
counter: :math:`(x_0, x_1) = \mathrm{Threefry2x32_{20}}(k, (c_0, c_1))`
(Salmon, Moraes, Dror & Shaw, "Parallel random numbers: as easy as 1, 2, 3",
SC 2011; the generator JAX uses by default). Nothing is sequential, so

* a batch, a worker thread, a block of queries or a GPU computes the numbers
  of any resample ``r`` and query ``i`` on its own, and they are the same
  everywhere: the same seed gives the same p-values on NumPy, torch, CuPy,
  ``array_api_strict`` (CPU or GPU), in one piece or in blocks, with any
  number of workers;
* the user's ``rng`` (SPEC 7) is read once per test call: :func:`stream_key`
  draws one 64-bit ``random_raw()`` value and splits it into the two key
  words, and everything else follows from it.

Definitions (the one place they are written)
--------------------------------------------
The 64-bit output of a counter is :math:`h = x_0 + 2^{32} x_1`. Resample
numbers ``r`` are global (0, 1, ... over the whole test call, whatever the
batch), ``0 <= r < 2**32``; query numbers ``i`` are global too.

Sign flips (key :math:`k`, the sign-flip key)
    The sign of query ``i`` in resample ``r`` is kept (bit 1) when bit
    ``i % 64`` of :math:`h` for counter ``(r, i // 64)`` is set.
Multinomial bootstrap (key :math:`k \oplus` :data:`BOOTSTRAP_DOMAIN`)
    Draw ``k`` of resample ``r`` picks the query
    :math:`\lfloor h n / 2^{64} \rfloor` for counter ``(r, k)`` (Lemire's
    multiply-shift, computed as ``(x1 * n + ((x0 * n) >> 32)) >> 32`` so
    that no intermediate exceeds :math:`2^{63}`; the bias is below
    :math:`n / 2^{64}`). Requires ``n < 2**30`` queries.
Poisson bootstrap (key :math:`k \oplus` :data:`POISSON_DOMAIN`)
    The Poisson(1) weight of query ``i`` in resample ``r`` is the number of
    thresholds :data:`POISSON_THRESHOLDS` at most :math:`u`, the 32-bit word
    :math:`x_{i \bmod 2}` of counter ``(r, i // 2)`` (inversion of a 32-bit
    uniform against the exact integer thresholds
    :math:`\lfloor 2^{32} F(k) \rfloor`, :math:`F` the Poisson(1) CDF;
    weights run from 0 to 13).
Label permutations (key :math:`k \oplus` :data:`PERMUTATION_DOMAIN`)
    Resample ``r`` orders the ``n`` pooled items of two samples by :math:`h`
    of counter ``(r, i)`` (ties, probability below :math:`n^2/2^{65}`, by the
    item number); the first :math:`n_a` items form the first sample: a
    uniformly random split (the unpaired permutation test).

Implementations
---------------
* :func:`threefry2x32` and the ``*_xp`` functions use only array-API integer
  operations on ``int64`` arrays holding 32-bit values (add then mask,
  rotations from shifts and masks), so NumPy, torch, CuPy and
  ``array_api_strict`` all run them, on the device where the arrays live.
* :func:`signflip_bits` (64-bit words from a numba kernel, unpacked by
  ``numpy.unpackbits``), :func:`bootstrap_counts`, :func:`poisson_weights`
  are numba kernels (``uint64`` arithmetic, parallel over resamples with
  ``prange``, compiled on first use and cached on disk). Every resample is
  computed by one thread from its counters alone, so the output is identical
  for any number of ``workers``.

The tests check both against Random123's known-answer vectors and against
each other.
"""

from __future__ import annotations

import threading
from decimal import Decimal, getcontext

import numpy as np

from .. import compiled
from ..errors import ParameterError

__all__ = [
    "KEY_MASK",
    "BOOTSTRAP_DOMAIN",
    "POISSON_DOMAIN",
    "PERMUTATION_DOMAIN",
    "POISSON_THRESHOLDS",
    "MAX_RESAMPLES",
    "MAX_QUERIES",
    "stream_key",
    "as_key",
    "domain_key",
    "subkey",
    "threefry2x32",
    "threefry2x32_numba",
    "signflip_bits",
    "signflip_bits_xp",
    "bootstrap_counts",
    "bootstrap_indices_xp",
    "poisson_weights",
    "permutation_words",
    "poisson_weights_xp",
    "signflip_dot",
    "poisson_dot",
]

KEY_MASK = 0xFFFFFFFF
#: XORed into the two key words to give the bootstrap and Poisson keys (other domains)
BOOTSTRAP_DOMAIN = (0x9E3779B9, 0x7F4A7C15)
POISSON_DOMAIN = (0x85EBCA6B, 0xC2B2AE35)
PERMUTATION_DOMAIN = (0x27D4EB2F, 0x165667B1)
#: resample numbers are the first 32-bit counter word
MAX_RESAMPLES = 1 << 32
#: bootstrap draws: n * 2**32 must stay below 2**62 in the multiply-shift
MAX_QUERIES = 1 << 30

_PARITY = 0x1BD11BDA  # Skein's key-schedule parity constant
_ROT = (13, 15, 26, 6, 17, 29, 16, 24)


def _poisson_thresholds(kmax=12):
    r""":math:`\lfloor 2^{32} F(k) \rfloor`, :math:`k \le k_{max}`, F the Poisson(1) CDF.

    Computed with 60 significant digits, so the floors are exact.
    """
    getcontext().prec = 60
    e_inv = Decimal(1).exp() ** -1
    out, term, cdf = [], Decimal(1), Decimal(0)
    for k in range(kmax + 1):
        if k:
            term /= k
        cdf += term
        out.append(int((cdf * e_inv * (1 << 32)).to_integral_value(rounding="ROUND_FLOOR")))
    return tuple(out)


#: integer thresholds of the Poisson(1) inversion (13 values, the last is 2**32 - 1)
POISSON_THRESHOLDS = _poisson_thresholds()


# --------------------------------------------------------------------------
# keys
# --------------------------------------------------------------------------
def stream_key(gen):
    """The two 32-bit key words of one test call, from one 64-bit draw of ``gen``."""
    raw = int(gen.bit_generator.random_raw())
    return (raw & KEY_MASK, raw >> 32)


def as_key(gen_or_key):
    """A key from a Generator (one draw, :func:`stream_key`) or a ``(k0, k1)`` pair as is."""
    if isinstance(gen_or_key, np.random.Generator):
        return stream_key(gen_or_key)
    k0, k1 = gen_or_key
    return (int(k0) & KEY_MASK, int(k1) & KEY_MASK)


def subkey(key, j):
    """The key of sub-stream ``j`` (``0 <= j < 2**32``): Threefry of counter ``(j, 2**32 - 1)``.

    Used where each of many independent experiments (the power simulation)
    needs its own full stream of resamples.
    """
    x0, x1 = threefry2x32(key, np.array([int(j)], dtype=np.int64),
                          np.array([KEY_MASK], dtype=np.int64))
    return (int(x0[0]), int(x1[0]))


def domain_key(key, domain):
    """``key`` XOR ``domain`` word by word (the bootstrap and Poisson keys)."""
    return (key[0] ^ domain[0], key[1] ^ domain[1])


def _check_range(start, r, n=None):
    if start < 0 or start + r > MAX_RESAMPLES:
        raise ParameterError(f"resample numbers must lie in [0, 2**32), got {start}..{start + r}; "
                         "split the work into several calls")
    if n is not None and n >= MAX_QUERIES:
        raise ParameterError(
            f"the bootstrap draws indices among fewer than 2**30 queries, got {n}")


# --------------------------------------------------------------------------
# array-API implementation (int64 holding 32-bit values)
# --------------------------------------------------------------------------
def _rotl(x, s):
    return ((x << s) & KEY_MASK) | (x >> (32 - s))


def threefry2x32(key, c0, c1):
    """Threefry-2x32 with 20 rounds on int64 arrays of 32-bit values: ``(x0, x1)``.

    ``key`` is a pair of Python ints; ``c0``, ``c1`` are integer arrays of
    one array-API namespace (broadcast together), values in ``[0, 2**32)``.
    """
    k0, k1 = int(key[0]) & KEY_MASK, int(key[1]) & KEY_MASK
    ks = (k0, k1, _PARITY ^ k0 ^ k1)
    x0 = (c0 + ks[0]) & KEY_MASK
    x1 = (c1 + ks[1]) & KEY_MASK
    for block in range(5):
        rot = _ROT[4 * (block % 2):4 * (block % 2) + 4]
        for s in rot:
            x0 = (x0 + x1) & KEY_MASK
            x1 = _rotl(x1, s) ^ x0
        j = block + 1
        x0 = (x0 + ks[j % 3]) & KEY_MASK
        x1 = (x1 + ks[(j + 1) % 3] + j) & KEY_MASK
    return x0, x1


def _namespace(xp):
    if xp is None:
        return np
    return xp


def signflip_bits_xp(key, start, r, n, *, offset=0, xp=None, device=None, dtype=None):
    """Sign bits (r, n) of resamples ``start..start+r-1``, queries ``offset..offset+n-1``.

    Array-API twin of :func:`signflip_bits` (same values): ``xp`` (default
    NumPy) and ``device`` say where, ``dtype`` the output type (default int64).
    """
    xp = _namespace(xp)
    _check_range(start, r)
    kw = {} if device is None else {"device": device}
    w0 = offset >> 6
    w1 = (offset + n + 63) >> 6 if n else w0
    rows = xp.arange(start, start + r, dtype=xp.int64, **kw)[:, None]
    words = xp.arange(w0, w1, dtype=xp.int64, **kw)[None, :]
    x0, x1 = threefry2x32(key, rows + 0 * words, words + 0 * rows)
    shifts = xp.arange(32, dtype=xp.int64, **kw)
    lo = (x0[:, :, None] >> shifts) & 1
    hi = (x1[:, :, None] >> shifts) & 1
    bits = xp.reshape(xp.concat([lo, hi], axis=2), (r, 64 * (w1 - w0)))
    first = offset - 64 * w0
    bits = bits[:, first:first + n]
    return bits if dtype is None else xp.astype(bits, dtype)


def bootstrap_indices_xp(key, start, r, n, *, xp=None, device=None):
    """Bootstrap draws (r, n) (query numbers, int64) with the bootstrap key of ``key``.

    Array-API twin of :func:`bootstrap_counts` (the counts of these indices).
    """
    xp = _namespace(xp)
    _check_range(start, r, n)
    kw = {} if device is None else {"device": device}
    bkey = domain_key(key, BOOTSTRAP_DOMAIN)
    rows = xp.arange(start, start + r, dtype=xp.int64, **kw)[:, None]
    draws = xp.arange(n, dtype=xp.int64, **kw)[None, :]
    x0, x1 = threefry2x32(bkey, rows + 0 * draws, draws + 0 * rows)
    return (x1 * n + ((x0 * n) >> 32)) >> 32


def poisson_weights_xp(key, start, r, n, *, offset=0, xp=None, device=None):
    """Poisson(1) weights (r, n) (int64) of queries ``offset..offset+n-1`` (Poisson key)."""
    xp = _namespace(xp)
    _check_range(start, r)
    kw = {} if device is None else {"device": device}
    pkey = domain_key(key, POISSON_DOMAIN)
    rows = xp.arange(start, start + r, dtype=xp.int64, **kw)[:, None]
    q = xp.arange(offset, offset + n, dtype=xp.int64, **kw)[None, :]
    x0, x1 = threefry2x32(pkey, rows + 0 * q, (q >> 1) + 0 * rows)
    odd = (q & 1) == 1
    u = xp.where(odd, x1, x0)
    w = xp.zeros_like(u)
    for t in POISSON_THRESHOLDS:
        w = w + xp.astype(u >= t, xp.int64)
    return w


# --------------------------------------------------------------------------
# numba kernels (uint64 arithmetic), compiled on first use and cached on disk
# --------------------------------------------------------------------------
_M = np.uint64(KEY_MASK)
_U = np.uint64


def _tf_py(k0, k1, k2, c0, c1):
    """Threefry-2x32-20 on uint64 words holding 32-bit values (``k2`` the parity word)."""
    x0 = (c0 + k0) & _M
    x1 = (c1 + k1) & _M
    x0, x1 = _r4a(x0, x1)
    x0 = (x0 + k1) & _M
    x1 = (x1 + k2 + _U(1)) & _M
    x0, x1 = _r4b(x0, x1)
    x0 = (x0 + k2) & _M
    x1 = (x1 + k0 + _U(2)) & _M
    x0, x1 = _r4a(x0, x1)
    x0 = (x0 + k0) & _M
    x1 = (x1 + k1 + _U(3)) & _M
    x0, x1 = _r4b(x0, x1)
    x0 = (x0 + k1) & _M
    x1 = (x1 + k2 + _U(4)) & _M
    x0, x1 = _r4a(x0, x1)
    x0 = (x0 + k2) & _M
    x1 = (x1 + k0 + _U(5)) & _M
    return x0, x1


def _r4a_py(x0, x1):
    x0 = (x0 + x1) & _M
    x1 = (((x1 << _U(13)) & _M) | (x1 >> _U(19))) ^ x0
    x0 = (x0 + x1) & _M
    x1 = (((x1 << _U(15)) & _M) | (x1 >> _U(17))) ^ x0
    x0 = (x0 + x1) & _M
    x1 = (((x1 << _U(26)) & _M) | (x1 >> _U(6))) ^ x0
    x0 = (x0 + x1) & _M
    x1 = (((x1 << _U(6)) & _M) | (x1 >> _U(26))) ^ x0
    return x0, x1


def _r4b_py(x0, x1):
    x0 = (x0 + x1) & _M
    x1 = (((x1 << _U(17)) & _M) | (x1 >> _U(15))) ^ x0
    x0 = (x0 + x1) & _M
    x1 = (((x1 << _U(29)) & _M) | (x1 >> _U(3))) ^ x0
    x0 = (x0 + x1) & _M
    x1 = (((x1 << _U(16)) & _M) | (x1 >> _U(16))) ^ x0
    x0 = (x0 + x1) & _M
    x1 = (((x1 << _U(24)) & _M) | (x1 >> _U(8))) ^ x0
    return x0, x1


def _tf_many_py(k0, k1, k2, c0, c1, out0, out1):
    """Threefry of 1-D uint64 counter arrays (for the known-answer tests)."""
    for j in range(c0.size):
        out0[j], out1[j] = _tf(k0, k1, k2, c0[j], c1[j])


def _words_py(k0, k1, k2, start, w0, out):
    """``out[j, w]`` = the 64-bit output :math:`h` of counter ``(start + j, w0 + w)``."""
    r, nw = out.shape
    for j in prange(r):
        c0 = _U(start + j)
        for w in range(nw):  # independent counters: a loop the compiler vectorises
            x0, x1 = _tf(k0, k1, k2, c0, _U(w0 + w))
            out[j, w] = x0 | (x1 << _U(32))


def _bootcounts_py(k0, k1, k2, start, out):
    """``out[j, :]`` = multinomial counts of resample ``start + j`` (float64, zeroed here)."""
    r, n = out.shape
    nn = _U(n)
    for j in prange(r):
        c0 = _U(start + j)
        buf = np.empty(n, dtype=np.uint64)
        for k in range(n):  # independent counters: a loop the compiler vectorises
            x0, x1 = _tf(k0, k1, k2, c0, _U(k))
            buf[k] = (x1 * nn + ((x0 * nn) >> _U(32))) >> _U(32)
        for q in range(n):
            out[j, q] = 0.0
        for k in range(n):
            out[j, buf[k]] += 1.0


def _poisson_py(k0, k1, k2, start, offset, thresholds, out):
    """``out[j, q]`` = Poisson(1) weight of query ``offset + q`` in resample ``start + j``."""
    r, n = out.shape
    nt = thresholds.size
    for j in prange(r):
        c0 = _U(start + j)
        q = 0
        while q < n:
            i = offset + q
            x0, x1 = _tf(k0, k1, k2, c0, _U(i >> 1))
            if i & 1:
                u = x1
            else:
                u = x0
            w = 0
            for t in range(nt):
                w += u >= thresholds[t]
            out[j, q] = w
            if (i & 1) == 0 and q + 1 < n:  # the odd neighbour shares the counter
                w = 0
                for t in range(nt):
                    w += x1 >= thresholds[t]
                out[j, q + 1] = w
                q += 2
            else:
                q += 1


def _signflip_dot_py(k0, k1, k2, start, offset, hi, lo, g_hi, g_lo, kept):
    """Fused sign flips of one block: ``g_hi[j] += sum_q beta_jq hi[q]`` (and ``lo``, kept).

    Query ``offset + q`` of resample ``start + j`` gets bit ``(offset + q) % 64``
    of counter ``(start + j, (offset + q) // 64)``, as :func:`signflip_bits`.
    ``hi`` and ``lo`` are exact-split values, so every partial sum is exact and
    the order of the additions never matters.
    """
    r = g_hi.size
    m = hi.size
    for j in prange(r):
        c0 = _U(start + j)
        a_hi = 0.0
        a_lo = 0.0
        cnt = 0
        q = 0
        while q < m:
            i = offset + q
            x0, x1 = _tf(k0, k1, k2, c0, _U(i >> 6))
            h = x0 | (x1 << _U(32))
            b = i & 63
            stop = min(m, q + 64 - b)
            while q < stop:
                bit = (h >> _U(b)) & _U(1)
                f = float(bit)
                a_hi += f * hi[q]
                a_lo += f * lo[q]
                cnt += int(bit)
                q += 1
                b += 1
        g_hi[j] += a_hi
        g_lo[j] += a_lo
        kept[j] += cnt


def _poisson_dot_py(k0, k1, k2, start, offset, thresholds, hi, lo, s_hi, s_lo, wsum):
    """Fused Poisson weights of one block: ``s_hi[j] += sum_q w_jq hi[q]`` (and ``lo``, wsum).

    The weights are those of :func:`poisson_weights` (query ``offset + q``);
    exact-split data make every partial sum exact, in any order.
    """
    r = s_hi.size
    m = hi.size
    nt = thresholds.size
    for j in prange(r):
        c0 = _U(start + j)
        a_hi = 0.0
        a_lo = 0.0
        a_w = 0.0
        for q in range(m):  # a loop the compiler vectorises (the counter of an odd query is
            i = offset + q  # its even neighbour's, computed twice: cheaper than branching)
            x0, x1 = _tf(k0, k1, k2, c0, _U(i >> 1))
            u = x1 if i & 1 else x0
            w = 0
            for t in range(nt):
                w += u >= thresholds[t]
            f = float(w)
            a_hi += f * hi[q]
            a_lo += f * lo[q]
            a_w += f
        s_hi[j] += a_hi
        s_lo[j] += a_lo
        wsum[j] += a_w


prange = range  # numba.prange once compiled
_tf = _tf_py
_r4a = _r4a_py
_r4b = _r4b_py
_STATE: dict = {}
_BUILD = threading.Lock()
_THRESH = np.array(POISSON_THRESHOLDS, dtype=np.uint64)


def _kernels():
    """Compile (or load from numba's cache) the kernels; once per process."""
    global _tf, _r4a, _r4b, prange
    k = _STATE.get("kernels")
    if k is None:
        with _BUILD:
            k = _STATE.get("kernels")
            if k is None:
                import numba

                prange = numba.prange
                inline = numba.njit(cache=True, nogil=True, inline="always")
                _r4a = inline(_r4a_py)
                _r4b = inline(_r4b_py)
                _tf = inline(_tf_py)
                par = numba.njit(parallel=True, cache=True, nogil=True)
                ser = numba.njit(cache=True, nogil=True)
                k = {
                    "many": ser(_tf_many_py),
                    "words": (par(_words_py), ser(_words_py)),
                    "boot": (par(_bootcounts_py), ser(_bootcounts_py)),
                    "poisson": (par(_poisson_py), ser(_poisson_py)),
                    "signflip_dot": (par(_signflip_dot_py), ser(_signflip_dot_py)),
                    "poisson_dot": (par(_poisson_dot_py), ser(_poisson_dot_py)),
                }
                _STATE["kernels"] = k
    return k


def _launch(name, workers, *args):
    """Run kernel ``name`` on ``workers`` threads through :func:`mrrstats.compiled.launch`
    (its serial twin for one thread or after a fork under GNU OpenMP)."""
    compiled.launch(*_kernels()[name], workers, *args)


def _words(key):
    k0, k1 = int(key[0]) & KEY_MASK, int(key[1]) & KEY_MASK
    return _U(k0), _U(k1), _U(_PARITY ^ k0 ^ k1)


def threefry2x32_numba(key, c0, c1):
    """The numba kernel's Threefry-2x32-20 of 1-D counter arrays: ``(x0, x1)`` uint64."""
    c0 = np.ascontiguousarray(c0, dtype=np.uint64)
    c1 = np.ascontiguousarray(c1, dtype=np.uint64)
    out0 = np.empty(c0.size, dtype=np.uint64)
    out1 = np.empty(c0.size, dtype=np.uint64)
    _kernels()["many"](*_words(key), c0, c1, out0, out1)
    return out0, out1


def signflip_bits(key, start, r, n, *, offset=0, workers=-1):
    """Sign bits (r, n), uint8, of resamples ``start..start+r-1`` and queries ``offset..``.

    Bit 1 keeps the sign (see the module docstring for the definition).
    """
    _check_range(start, r)
    if not (r and n):
        return np.zeros((r, n), dtype=np.uint8)
    w0 = offset >> 6
    words = np.empty((r, ((offset + n + 63) >> 6) - w0), dtype="<u8")
    _launch("words", workers, *_words(key), int(start), w0, words)
    first = offset - 64 * w0
    bits = np.unpackbits(words.view(np.uint8), axis=1, bitorder="little", count=first + n)
    return bits[:, first:] if first else bits


def bootstrap_counts(key, start, r, n, *, workers=-1):
    """Multinomial counts (r, n), float64, of resamples ``start..start+r-1`` (bootstrap key)."""
    _check_range(start, r, n)
    out = np.empty((r, n), dtype=np.float64)
    if r and n:
        _launch("boot", workers, *_words(domain_key(key, BOOTSTRAP_DOMAIN)), int(start), out)
    return out


def permutation_words(key, start, r, n, *, workers=-1):
    """64-bit words (r, n), uint64, of resamples ``start..start+r-1`` (permutation key).

    Word ``i`` of resample ``r`` is :math:`h` of counter ``(r, i)``; sorting a
    row gives a uniformly random permutation of the ``n`` items.
    """
    _check_range(start, r)
    out = np.empty((r, n), dtype="<u8")
    if r and n:
        _launch("words", workers, *_words(domain_key(key, PERMUTATION_DOMAIN)), int(start), 0,
                out)
    return out


def poisson_weights(key, start, r, n, *, offset=0, dtype=np.float64, workers=-1):
    """Poisson(1) weights (r, n) of queries ``offset..offset+n-1`` (Poisson key)."""
    _check_range(start, r)
    out = np.empty((r, n), dtype=dtype)
    if r and n:
        _launch("poisson", workers, *_words(domain_key(key, POISSON_DOMAIN)), int(start),
                int(offset), _THRESH, out)
    return out


def signflip_dot(key, start, hi, lo, g_hi, g_lo, kept, *, offset=0, workers=-1):
    """Add the sign-flip products of one block to ``g_hi``, ``g_lo`` (float64) and ``kept``.

    Resamples ``start .. start + len(g_hi) - 1``, queries ``offset ..
    offset + len(hi) - 1``: ``g_hi[j] += bits[j] @ hi`` with the bits of
    :func:`signflip_bits`, without materialising them (``kept``: int64, the
    kept signs). ``hi`` and ``lo`` must be exact-split values.
    """
    _check_range(start, g_hi.size)
    if g_hi.size and hi.size:
        _launch("signflip_dot", workers, *_words(key), int(start), int(offset),
                np.ascontiguousarray(hi, dtype=np.float64),
                np.ascontiguousarray(lo, dtype=np.float64), g_hi, g_lo, kept)


def poisson_dot(key, start, hi, lo, s_hi, s_lo, wsum, *, offset=0, workers=-1):
    """Add the Poisson-weighted sums of one block to ``s_hi``, ``s_lo``, ``wsum`` (float64).

    ``s_hi[j] += poisson_weights(key, start + j, ...) @ hi`` for queries
    ``offset ..``, without materialising the weights (Poisson key of ``key``).
    """
    _check_range(start, s_hi.size)
    if s_hi.size and hi.size:
        _launch("poisson_dot", workers, *_words(domain_key(key, POISSON_DOMAIN)), int(start),
                int(offset), _THRESH, np.ascontiguousarray(hi, dtype=np.float64),
                np.ascontiguousarray(lo, dtype=np.float64), s_hi, s_lo, wsum)
