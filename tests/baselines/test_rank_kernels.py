"""The compiled rank kernel and the array-API path against the NumPy implementation.

The NumPy implementation (``_rank_chunks_numpy``, the one mrrstats shipped
before the kernel; itself tested against brute-force loops in
``test_linkpred.py``) is the reference: the kernel and the array-API path
must give the very same integer counts for every dtype, filter form, tie
pattern, non-finite policy, number of threads and chunk size.
"""

from __future__ import annotations

import numpy as np
import pytest

from mrrstats import ranks_from_negatives, ranks_from_scores
from mrrstats.baselines import linkpred as lp

# Each dtype compiles its own kernel (seconds each on a cold numba cache): the common
# ones run by default, the rest with the slow tests.
_SLOW = pytest.mark.slow
DTYPES = [np.float32, np.float64, np.int64] + [pytest.param(d, marks=_SLOW) for d in
                                               (np.float16, np.int8, np.int32, np.uint8, np.uint64)]


def _cuda_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


cuda_only = pytest.mark.skipif(not _cuda_available(), reason="needs torch with CUDA")


def _numpy_reference(scores, idx, exclude=None, nonfinite="raise"):
    S, i, kind, ex, nf, batch, _ = lp._ranks_from_scores_iv(scores, idx, exclude, nonfinite,
                                                            7, 1)
    return lp._rank_chunks_numpy(S, i, None, kind, ex, nf, batch, 1, S.shape[1])


def _same(a, b):
    np.testing.assert_array_equal(a.optimistic, b.optimistic)
    np.testing.assert_array_equal(a.pessimistic, b.pessimistic)
    np.testing.assert_array_equal(a.n_candidates, b.n_candidates)


def _problem(dtype, n=97, m=211, seed=0, nonfinite=True):
    rng = np.random.default_rng(seed)
    lo = 0 if np.issubdtype(dtype, np.unsignedinteger) else -6
    S = rng.integers(lo, lo + 12, size=(n, m)).astype(dtype)  # many ties
    if np.issubdtype(dtype, np.floating):
        S = (S / 4).astype(dtype)
        if nonfinite:
            k = n * m // 50
            r, c = rng.integers(0, n, k), rng.integers(0, m, k)
            S[r, c] = rng.choice([np.nan, -np.inf, np.inf], k).astype(dtype)
    idx = rng.integers(0, m, n)
    if np.issubdtype(dtype, np.floating):
        t = S[np.arange(n), idx]
        S[np.arange(n), idx] = np.where(np.isnan(t) | np.isneginf(t), 0, t)
    mask = rng.random((n, m)) < 0.05
    mask[np.arange(0, n, 3), idx[::3]] = True  # the true column marked: must be ignored
    pairs = np.argwhere(mask)
    pairs = np.concatenate([pairs, pairs[:17]])  # duplicates are harmless
    return S, idx, mask, pairs


@pytest.mark.parametrize("dtype", DTYPES)
def test_kernel_equals_numpy_for_every_dtype_filter_and_thread_count(dtype):
    S, idx, mask, pairs = _problem(dtype)
    floating = np.issubdtype(dtype, np.floating)
    for exclude in (None, mask, pairs):
        ref = _numpy_reference(S, idx, exclude, "exclude")
        for workers in (1, 2, -1):
            _same(ranks_from_scores(S, idx, exclude=exclude, nonfinite="exclude",
                                    workers=workers), ref)
        if floating:
            with pytest.raises(ValueError) as want:
                _numpy_reference(S, idx, exclude)
            for workers in (1, 2):
                with pytest.raises(ValueError) as got:
                    ranks_from_scores(S, idx, exclude=exclude, workers=workers)
                assert str(got.value) == str(want.value)
    # every tie convention follows from (o, p): check the realistic RR and expected RR too
    r = ranks_from_scores(S, idx, exclude=pairs, nonfinite="exclude")
    ref = _numpy_reference(S, idx, pairs, "exclude")
    for ties in ("optimistic", "pessimistic", "realistic", "expected"):
        np.testing.assert_array_equal(r.reciprocal_rank(ties), ref.reciprocal_rank(ties))


def _misaligned(mask, offset):
    """``mask`` copied into a buffer starting ``offset`` bytes past an 8-byte boundary."""
    n, m = mask.shape
    raw = np.zeros(n * m + 16, dtype=bool)
    start = (-raw.ctypes.data) % 8 + offset
    out = raw[start:start + n * m].reshape(n, m)
    out[...] = mask
    assert out.ctypes.data % 8 == offset
    return out


def _mask_cases(m, rng, idx):
    """Masks that reach every branch of the kernel's word scan of a row of width ``m``."""
    n = idx.size
    rows = np.arange(n)
    sparse = rng.random((n, m)) < 0.03
    dense = rng.random((n, m)) < 0.7  # many set entries per row
    edges = np.zeros((n, m), dtype=bool)  # the first and last bytes (partial words) of rows
    edges[:, :3] = True
    edges[:, -3:] = True
    edges[::4, -1] = False
    full = np.ones((n, m), dtype=bool)  # every row masked but its true candidate
    full[rows, idx] = False
    full_true = np.ones((n, m), dtype=bool)  # the true candidates masked too: ignored
    mixed = sparse.copy()
    mixed[::3] = full[::3]
    mixed[1::5] = dense[1::5]
    mixed[rows[::2], idx[::2]] = True  # true candidates marked: ignored
    return {"sparse": sparse, "dense": dense, "edges": edges, "full": full,
            "full with true": full_true, "mixed": mixed}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m", [1, 5, 8, 13, 64, 71, 130, 211])
def test_mask_path_equals_pairs_and_numpy_on_every_word_layout(dtype, m):
    # The kernel reads a mask row as aligned 8-byte words (64 bytes tested at once) and
    # takes the set ones back out of the row's counts: every width (partial words at both
    # ends, no whole word, several 64-byte blocks), every start address of the mask, dense
    # and all-but-true masks, masked true candidates and non-contiguous masks must give the
    # ranks of the pairs path and of the NumPy reference, bit for bit.
    S, idx, _, _ = _problem(dtype, n=37, m=m, seed=m)
    rng = np.random.default_rng(100 + m)
    try:
        import array_api_strict as xp
    except ImportError:
        xp = None
    floating = np.issubdtype(dtype, np.floating)
    for name, mask in _mask_cases(m, rng, idx).items():
        pairs = np.argwhere(mask)
        ref = _numpy_reference(S, idx, mask, "exclude")
        _same(_numpy_reference(S, idx, pairs, "exclude"), ref)
        layouts = [mask, np.asfortranarray(mask), np.repeat(mask, 2, axis=1)[:, ::2]]
        layouts += [_misaligned(mask, off) for off in range(1, 8)]
        for workers in (1, 2):
            by_pairs = ranks_from_scores(S, idx, exclude=pairs, nonfinite="exclude",
                                         workers=workers)
            _same(by_pairs, ref)
            for i, layout in enumerate(layouts):
                if i > 3 and workers == 2:
                    continue
                got = ranks_from_scores(S, idx, exclude=layout, nonfinite="exclude",
                                        workers=workers)
                _same(got, ref)
                for ties in ("optimistic", "pessimistic", "realistic", "expected"):
                    np.testing.assert_array_equal(got.reciprocal_rank(ties),
                                                  by_pairs.reciprocal_rank(ties))
        if xp is not None and dtype != np.float16:  # the array-API path: its own reading
            _same(_xp_ranks(xp, xp.asarray(S), idx, xp.asarray(mask), "exclude", 5), ref)
        if name == "full with true":
            assert np.all(ref.n_candidates == 1) and np.all(ref.pessimistic == 1)
        if floating:  # the same first NaN / -inf named, or none (all of them filtered)
            assert _error(_numpy_reference, S, idx, mask) == _error(
                _numpy_reference, S, idx, pairs)
            for exclude in (mask, pairs, _misaligned(mask, 3)):
                for workers in (1, 2):
                    assert _error(ranks_from_scores, S, idx, exclude=exclude,
                                  workers=workers) == _error(_numpy_reference, S, idx, mask)


def _error(f, *args, **kwargs):
    """The message of the ValueError ``f`` raises, or None."""
    try:
        f(*args, **kwargs)
    except ValueError as exc:
        return str(exc)
    return None


def test_mask_entries_set_only_in_a_rows_last_partial_word():
    # by hand: 3 rows of 11 candidates (8 + 3 bytes: the last 3 are a partial word);
    # the true candidate is column 0 scoring 0.5
    S = np.array([[0.5, 0.1, 0.2, 0.9, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9, 1.0]] * 3,
                 dtype=np.float32)
    mask = np.zeros((3, 11), dtype=bool)
    mask[0, 10] = True  # 1.0 filtered: 0.6 .. 0.9 (5) above -> o = 6, p = 6, N = 10
    mask[1, 8:] = True  # 0.8, 0.9, 1.0 filtered: 0.6, 0.7, 0.9 above -> o = 4, N = 8
    mask[2, 0] = True  # the true candidate: never removed -> o = 7, N = 11
    for offset in range(8):
        r = ranks_from_scores(S, [0, 0, 0], exclude=_misaligned(mask, offset))
        assert r.optimistic.tolist() == [6.0, 4.0, 7.0]
        assert r.pessimistic.tolist() == [6.0, 4.0, 7.0]
        assert r.n_candidates.tolist() == [10, 8, 11]


def test_nonfinite_scores_under_a_mask_in_the_words_it_skips_and_reads():
    # NaN / -inf at masked positions (in a partial word, in a whole word) are fine; one
    # at an unmasked position in the same word is named
    S = np.zeros((2, 70), dtype=np.float64)
    S[:, 69] = np.nan  # last partial word of each row (70 = 64 + 6)
    S[:, 20] = -np.inf
    mask = np.zeros((2, 70), dtype=bool)
    mask[:, [20, 69]] = True
    r = ranks_from_scores(S, [0, 0], exclude=mask)
    assert r.n_candidates.tolist() == [68, 68] and r.pessimistic.tolist() == [68.0, 68.0]
    S[1, 21] = np.nan
    with pytest.raises(ValueError, match=r"`scores` is NaN at row 1, column 21;"):
        ranks_from_scores(S, [0, 0], exclude=mask)
    r = ranks_from_scores(S, [0, 0], exclude=mask, nonfinite="exclude")
    assert r.n_candidates.tolist() == [68, 67]


def test_kernel_nonfinite_errors_name_the_first_entry_in_row_order():
    S = np.zeros((40, 30), dtype=np.float32)
    S[25, 3] = -np.inf
    S[25, 1] = np.nan   # first of row 25
    S[31, 0] = np.nan
    S[12, 7] = np.nan   # filtered below: fine
    idx = np.full(40, 5)
    with pytest.raises(ValueError, match=r"`scores` is NaN at row 12, column 7"):
        ranks_from_scores(S, idx)
    for workers in (1, 2):
        with pytest.raises(ValueError, match=r"`scores` is NaN at row 25, column 1;"):
            ranks_from_scores(S, idx, exclude=[(12, 7)], workers=workers)
        with pytest.raises(ValueError, match=r"`scores` is -inf at row 25, column 3"):
            ranks_from_scores(S, idx, exclude=[(12, 7), (25, 1)], workers=workers)
    r = ranks_from_scores(S, idx, exclude=[(12, 7)], nonfinite="exclude")
    assert r.n_candidates[[12, 25, 31, 0]].tolist() == [29, 28, 29, 30]
    assert r.pessimistic[[12, 25, 31, 0]].tolist() == [29, 28, 29, 30]
    # +inf is an ordinary score
    S2 = np.array([[np.inf, 1.0, np.inf]], dtype=np.float16)
    r2 = ranks_from_scores(S2, [1])
    assert (r2.optimistic.tolist(), r2.pessimistic.tolist()) == ([3.0], [3.0])


@pytest.mark.parametrize(("s_dtype", "p_dtype"), [
    (np.float32, np.float64), (np.float64, np.float32)] + [
    pytest.param(*d, marks=_SLOW) for d in (
        (np.float16, np.float64), (np.float32, np.int64), (np.int32, np.float64),
        (np.int64, np.int32), (np.uint64, np.int64), (np.int8, np.int64))])
def test_negatives_mixed_dtypes_compare_as_numpy_does(s_dtype, p_dtype):
    rng = np.random.default_rng(3)
    neg = rng.integers(0, 9, (60, 33)).astype(s_dtype)
    pos = rng.integers(0, 9, 60).astype(p_dtype)
    if np.issubdtype(p_dtype, np.floating):
        pos = (pos + np.where(rng.random(60) < 0.5, 0.0, 1e-9)).astype(p_dtype)  # not a tie
    S, p, nf, batch, _ = lp._ranks_from_negatives_iv(pos, neg, "raise", 5, 1)
    if np.issubdtype(S.dtype, np.floating) and not np.issubdtype(p.dtype, np.floating):
        p = p.astype(np.float64)
    ref = lp._rank_chunks_numpy(S, None, p, None, None, nf, batch, 1, S.shape[1] + 1)
    for workers in (1, 2):
        _same(ranks_from_negatives(pos, neg, workers=workers), ref)


def test_non_native_byte_order_and_strided_views_use_a_correct_path():
    S, idx, mask, pairs = _problem(np.float64, nonfinite=False)
    ref = _numpy_reference(S, idx, pairs)
    _same(ranks_from_scores(S.astype(">f8"), idx, exclude=pairs), ref)
    wide = np.repeat(S, 2, axis=1)[:, ::2]  # strided, not contiguous
    _same(ranks_from_scores(wide, idx, exclude=pairs), ref)
    _same(ranks_from_scores(np.asfortranarray(S), idx, exclude=mask), _numpy_reference(
        S, idx, mask))


def _child(conn):
    S, idx, mask, pairs = _problem(np.float32, nonfinite=False)
    r = ranks_from_scores(S, idx, exclude=mask, workers=2)
    conn.send((r.optimistic.tolist(), r.pessimistic.tolist()))
    conn.close()


def test_kernel_runs_in_a_process_forked_after_a_parallel_call():
    # numba's GNU OpenMP layer aborts a forked child that enters a parallel region;
    # the kernel then runs its one-thread twin instead
    import multiprocessing as mp

    S, idx, mask, pairs = _problem(np.float32, nonfinite=False)
    ref = ranks_from_scores(S, idx, exclude=mask, workers=2)  # the parent uses threads
    ctx = mp.get_context("fork")
    a, b = ctx.Pipe()
    p = ctx.Process(target=_child, args=(b,))
    p.start()
    assert a.poll(120), "the forked child did not answer"
    o, pe = a.recv()
    p.join(120)
    assert p.exitcode == 0
    assert o == ref.optimistic.tolist() and pe == ref.pessimistic.tolist()


def test_concurrent_calls_from_python_threads():
    from concurrent.futures import ThreadPoolExecutor

    S, idx, mask, pairs = _problem(np.float64, nonfinite=False)
    ref = _numpy_reference(S, idx, pairs)
    with ThreadPoolExecutor(4) as ex:
        for r in ex.map(lambda _: ranks_from_scores(S, idx, exclude=pairs), range(8)):
            _same(r, ref)


def test_empty_and_single_column():
    r = ranks_from_scores(np.zeros((0, 5), np.float32), np.zeros(0, np.int64))
    assert len(r) == 0
    r = ranks_from_scores(np.ones((3, 1)), [0, 0, 0])
    assert r.optimistic.tolist() == [1.0] * 3 and r.n_candidates.tolist() == [1] * 3


# --------------------------------------------------------------------------
# the array-API path
# --------------------------------------------------------------------------

def _xp_ranks(xp, S, idx, exclude=None, nonfinite="raise", batch=None):
    """The array-API path, called directly (CPU torch would otherwise use the kernel)."""
    return lp._ranks_from_scores_xp(xp, S, idx, exclude, nonfinite, batch, 1)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.int64])  # no float16
def test_array_api_strict_path_equals_numpy(dtype):
    xp = pytest.importorskip("array_api_strict")
    S, idx, mask, pairs = _problem(dtype, n=41, m=53)
    X = xp.asarray(S)
    for exclude, xexclude in ((None, None), (pairs, pairs), (mask, mask),
                              (mask, xp.asarray(mask))):
        ref = _numpy_reference(S, idx, exclude, "exclude")
        for batch in (None, 1, 6):
            _same(_xp_ranks(xp, X, idx, xexclude, "exclude", batch), ref)
            # the public function sends array_api_strict arrays to this path
        _same(ranks_from_scores(X, xp.asarray(idx), exclude=xexclude, nonfinite="exclude"),
              ref)
        if np.issubdtype(dtype, np.floating):
            with pytest.raises(ValueError) as want:
                _numpy_reference(S, idx, exclude)
            with pytest.raises(ValueError) as got:
                ranks_from_scores(X, idx, exclude=xexclude, batch=4)
            assert str(got.value) == str(want.value)


def test_array_api_strict_negatives_and_validation():
    xp = pytest.importorskip("array_api_strict")
    rng = np.random.default_rng(8)
    neg = rng.integers(0, 5, (30, 12)).astype(np.float32)
    pos = rng.integers(0, 5, 30).astype(np.float32)
    ref = ranks_from_negatives(pos, neg)
    _same(ranks_from_negatives(xp.asarray(pos), xp.asarray(neg), batch=7), ref)
    _same(ranks_from_negatives(pos, xp.asarray(neg)), ref)
    with pytest.raises(ValueError, match="`scores` must be a 2-D array"):
        ranks_from_scores(xp.asarray(pos), [0])
    with pytest.raises(TypeError, match="`scores` must hold real numbers"):
        ranks_from_scores(xp.asarray(neg > 1), np.zeros(30, np.int64))
    with pytest.raises(ValueError, match=r"`true_index` must lie in \[0, 12\)"):
        ranks_from_scores(xp.asarray(neg), np.full(30, 12))
    with pytest.raises(ValueError, match="true candidate of query 2 is nan"):
        bad = neg.copy()
        bad[2, 0] = np.nan
        ranks_from_scores(xp.asarray(bad), np.zeros(30, np.int64), nonfinite="exclude")


def test_torch_cpu_array_api_path_equals_numpy_and_public_torch_input():
    torch = pytest.importorskip("torch")
    import array_api_compat.torch as xp

    for dtype in (np.float16, np.float32, np.float64, np.int64):
        S, idx, mask, pairs = _problem(dtype, n=51, m=37, seed=5)
        T = torch.from_numpy(S)
        for exclude, texclude in ((pairs, torch.from_numpy(pairs)),
                                  (mask, torch.from_numpy(mask))):
            ref = _numpy_reference(S, idx, exclude, "exclude")
            for batch in (None, 5):
                _same(_xp_ranks(xp, T, torch.from_numpy(idx), texclude, "exclude", batch),
                      ref)
            # the public door: a CPU tensor is viewed in place and counted by the kernel
            _same(ranks_from_scores(T, torch.from_numpy(idx), exclude=texclude,
                                    nonfinite="exclude"), ref)
    # bfloat16 has no NumPy dtype: a clear error
    with pytest.raises(TypeError, match="bfloat16"):
        ranks_from_scores(torch.zeros((2, 3), dtype=torch.bfloat16), [0, 1])


def test_xp_chunk_rows_come_from_free_memory():
    torch = pytest.importorskip("torch")
    from mrrstats.baselines import _rank_xp

    T = torch.zeros((1000, 5000))
    rows = _rank_xp.rows_per_chunk(T, 1000, 5000)
    assert 1 <= rows <= 1000
    assert rows == min(1000, _rank_xp.free_bytes(T) // 2 // (5000 * 16))


@pytest.mark.requires_cuda
@cuda_only
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int64])
def test_cuda_ranks_equal_numpy(dtype):
    import torch

    S, idx, mask, pairs = _problem(dtype, n=301, m=1009, seed=11)
    T = torch.from_numpy(S).cuda()
    for exclude, dexclude in ((pairs, pairs), (mask, torch.from_numpy(mask).cuda())):
        ref = _numpy_reference(S, idx, exclude, "exclude")
        for batch in (None, 17):
            _same(ranks_from_scores(T, torch.from_numpy(idx).cuda(), exclude=dexclude,
                                    nonfinite="exclude", batch=batch), ref)
    S, idx, mask, pairs = _problem(dtype, n=301, m=1009, seed=12, nonfinite=False)
    T = torch.from_numpy(S).cuda()
    _same(ranks_from_negatives(T[:, 0], T[:, 1:]), ranks_from_negatives(S[:, 0], S[:, 1:]))
