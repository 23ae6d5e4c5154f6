"""The Arrow <-> numpy conversions of the TREC-file path without pandas
(mrrstats/io/hashing.py: arrow_to_numpy, numpy_to_arrow, strings_to_arrow) give what
Arrow's own conversions give. They differ from Arrow's only while pandas is not
imported, so they run in a fresh process, on Arrow arrays built there without pandas
(slices, casts and chunked arrays of the module's own conversions: ``pa.array`` and
reading Arrow's IPC format import pandas); the reference is Arrow's conversion, and
``pa.array``, of the same values in this process."""

from __future__ import annotations

import pickle
import subprocess
import sys

import numpy as np
import pyarrow as pa

SCRIPT = """
import pickle, sys
import numpy as np
import pyarrow as pa
from mrrstats.io.hashing import arrow_to_numpy, numpy_to_arrow, strings_to_arrow
numbers = [np.arange(10)[::3], np.array([1.5, 2.5], np.float32), np.array([], np.int64),
           np.array([1.5, -0.0, np.inf]), np.array([7], np.uint8)]
strings = [np.array(["a", "bc", ""], object), np.array(["é", "x"], object),
           np.array(["ab", "c"]), np.array(["a", "b"], object)[::-1]]
n = [numpy_to_arrow(v) for v in numbers]
s = [strings_to_arrow(v) for v in strings]
arrow = [n[0][1:], n[1], n[2], n[3], n[4], pa.chunked_array([n[3][1:], n[3]]),
         pa.chunked_array([s[0]]), s[0][1:], s[1].cast(pa.large_string()),
         n[2].cast(pa.string()), pa.chunked_array([s[1], s[0][2:]])]
got = [arrow_to_numpy(a) for a in arrow]
pandas = "pandas" in sys.modules
out = (numbers, strings, [a.to_pylist() for a in n], [a.to_pylist() for a in s],
       [str(a.type) for a in n + s], got, [x.flags.writeable for x in got], pandas)
sys.stdout.buffer.write(pickle.dumps(out))
"""


def test_conversions_without_pandas_are_arrows():
    numbers, strings, n, s, types, got, writable, pandas = pickle.loads(
        subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, check=True).stdout
    )
    assert not pandas  # the conversions were the module's own
    want_n = [pa.array(v) for v in numbers]
    want_s = [pa.array(v) for v in strings]
    assert n == [a.to_pylist() for a in want_n] and s == [a.to_pylist() for a in want_s]
    assert types == [str(a.type) for a in want_n + want_s]
    arrow = [
        want_n[0][1:],
        want_n[1],
        want_n[2],
        want_n[3],
        want_n[4],
        pa.chunked_array([want_n[3][1:], want_n[3]]),
        pa.chunked_array([want_s[0]]),
        want_s[0][1:],
        want_s[1].cast(pa.large_string()),
        want_n[2].cast(pa.string()),
        pa.chunked_array([want_s[1], want_s[0][2:]]),
    ]
    for a, x, w in zip(arrow, got, writable, strict=True):
        want = a.to_numpy(zero_copy_only=False)
        assert x.dtype == want.dtype and x.tolist() == want.tolist()
        assert [type(u) for u in x.tolist()] == [type(v) for v in want.tolist()]
        assert w == want.flags.writeable
    assert np.signbit(got[3][1])  # -0.0 kept
