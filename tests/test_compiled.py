"""mrrstats.compiled: numba's set-up without scipy.linalg, and nothing lost by it.

numba's first cache load imports ``scipy.linalg.cython_blas`` to see whether BLAS is at
hand; :func:`mrrstats.compiled._load_blas_alone` loads that extension module alone. In a
fresh process: a kernel runs without ``scipy.linalg`` being imported, numba still sees
BLAS (``np.dot`` compiles), and a later ``import scipy.linalg`` is whole, its
``cython_blas`` attribute the module numba found.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("numba")
pytest.importorskip("scipy")

CHILD = """
import sys
import numpy as np
from mrrstats.io import tokenizer
tokens = tokenizer.tokenize_bytes(b"q1 Q0 d1 1 2.5 tag\\nq1 Q0 d2 2 1.5 tag\\n", workers=1)
assert tokens is not None and tokens["score"].tolist() == [2.5, 1.5]
print("linalg after a kernel:", "scipy.linalg" in sys.modules)
import numba
import numba.np.arraymath
assert numba.np.arraymath._HAVE_BLAS

@numba.njit
def dot(a, b):
    return np.dot(a, b)

assert dot(np.arange(3.0), np.arange(3.0)) == 5.0
import scipy.linalg
import scipy.linalg.cython_blas as blas
assert scipy.linalg.cython_blas is blas is sys.modules["scipy.linalg.cython_blas"]
assert len(blas.__pyx_capi__) > 100
np.testing.assert_allclose(scipy.linalg.solve(np.eye(2) * 2, np.ones(2)), [0.5, 0.5])
print("ok")
"""


def test_kernels_load_without_scipy_linalg_and_scipy_linalg_stays_whole():
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "linalg after a kernel: False" in out.stdout
    assert out.stdout.strip().endswith("ok")


def test_nothing_is_done_when_scipy_linalg_is_there():
    code = (
        "import sys, scipy.linalg\n"
        "from mrrstats import compiled\n"
        "n = len(sys.meta_path)\n"
        "compiled._load_blas_alone()\n"
        "assert len(sys.meta_path) == n\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip() == "ok"
