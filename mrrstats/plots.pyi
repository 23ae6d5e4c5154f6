# ``import mrrstats.plots`` is :mod:`mrrstats.report.plots` (a module alias made at run time
# by mrrstats.lazy.alias_modules); this stub tells type checkers the same.
from .report.plots import *  # noqa: F403
from .report.plots import __all__ as __all__
