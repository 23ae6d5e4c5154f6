"""The compiled kernels of the file path (mrrstats/_native.c); everything else is in
pyproject.toml. The extension is optional: where it cannot be built (no C compiler, no
POSIX threads), the package installs without it and the same kernels run under numba."""

import os

from setuptools import Extension, setup

_ARGS = [] if os.name == "nt" else ["-O3", "-ffp-contract=off", "-pthread"]

setup(
    ext_modules=[
        Extension(
            "mrrstats._native",
            ["mrrstats/_native.c"],
            optional=True,
            extra_compile_args=_ARGS,
            extra_link_args=[] if os.name == "nt" else ["-pthread"],
        )
    ]
)
