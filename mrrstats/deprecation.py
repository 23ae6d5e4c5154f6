"""Retired names keep working for one release, with a warning that names the new one.

* :func:`renamed_parameters` -- a decorator: ``f(old=1)`` becomes ``f(new=1)`` with a
  :class:`~mrrstats.errors.MrrstatsDeprecationWarning`; the signature
  (``inspect.signature``, ``help``) shows only the new names.
* :class:`renamed_attribute` -- a class attribute: ``result.old`` returns ``result.new``
  with a :class:`~mrrstats.errors.MrrstatsDeprecationWarning`. It is the only way a
  retired name stays on a result: ``dir(result)``, ``dataclasses.fields`` and
  ``repr`` show the current names only.
* :func:`renamed_value` -- a string value of a parameter (``"monte carlo"`` ->
  ``"monte-carlo"``).
* :func:`warn_deprecated` -- every deprecation warning of mrrstats goes through it (one
  warning class, one wording of the release that removes the old form).

Frames (``to_frame()``, the tables functions return) carry the current column names
only: a retired column (``diff``, ``z``) is not kept beside its new name, so
``frame["diff"]`` is a ``KeyError``; select ``frame["difference"]``.

The names themselves are listed in :mod:`mrrstats.glossary`; ``tests/test_vocabulary.py``
reads :data:`RENAMED` to check that every retired name still works.

Examples
--------
>>> import warnings
>>> @renamed_parameters(zero_tolerance="atol")
... def f(a, *, atol=0.0):
...     return atol
>>> with warnings.catch_warnings(record=True) as w:
...     warnings.simplefilter("always")
...     f(1, zero_tolerance=0.5), str(w[0].message)
(0.5, 'f(zero_tolerance=) is deprecated; use atol= (the old name will be removed in mrrstats 0.3)')
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from .errors import MrrstatsDeprecationWarning, ParameterTypeError

__all__ = ["renamed_parameters", "renamed_attribute", "renamed_value", "warn_deprecated",
           "RENAMED", "REMOVED_IN"]

#: The release that removes the retired names.
REMOVED_IN = "0.3"

#: ``(qualified name, old) -> new`` for every renamed parameter and attribute (filled by the
#: decorators at import time).
RENAMED: dict[tuple[str, str], str] = {}

P = ParamSpec("P")
R = TypeVar("R")


def warn_deprecated(what: str, new: str, *, stacklevel: int = 2, form: str = "name") -> None:
    """Warn that ``what`` is deprecated and ``new`` replaces it.

    Parameters
    ----------
    what, new : str
        The retired form and its replacement, as the caller would write them.
    stacklevel : int, keyword-only
        As in :func:`warnings.warn`, counted from the caller of this function.
    form : str, keyword-only
        ``"name"`` or ``"form"``: the word the message uses for the retired thing.
    """
    warnings.warn(f"{what} is deprecated; use {new} (the old {form} will be removed in "
                  f"mrrstats {REMOVED_IN})", MrrstatsDeprecationWarning,
                  stacklevel=stacklevel + 1)


def renamed_parameters(**old_to_new: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorator: accept each ``old=`` keyword as ``new=``, with a DeprecationWarning.

    Passing both the old and the new name is a ``TypeError``.
    """

    def decorate(func: Callable[P, R]) -> Callable[P, R]:
        name = getattr(func, "__qualname__", func.__name__)
        for old, new in old_to_new.items():
            RENAMED[(f"{func.__module__}.{name}", old)] = new

        @functools.wraps(func)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            for old, new in old_to_new.items():
                if old in kwargs:
                    if new in kwargs:
                        raise ParameterTypeError(
                            f"{func.__name__}() got both `{old}` (deprecated) "
                            f"and `{new}`; pass `{new}` only")
                    warn_deprecated(f"{func.__name__}({old}=)", f"{new}=")
                    kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)

        wrapper.__renamed__ = dict(old_to_new)  # type: ignore[attr-defined]
        return wrapper

    return decorate


class renamed_attribute:  # noqa: N801 (used like a property)
    """Class attribute: the old name of an attribute, returning the new one with a warning.

    >>> import warnings
    >>> class R:
    ...     n_queries = 5
    ...     n = renamed_attribute("n_queries")
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     R().n
    5
    """

    def __init__(self, new: str) -> None:
        self.new = new

    def __set_name__(self, owner: type, name: str) -> None:
        self.old = name
        RENAMED[(f"{owner.__module__}.{owner.__qualname__}", name)] = self.new

    def __get__(self, obj: object, owner: type | None = None) -> Any:
        if obj is None:
            return self
        warn_deprecated(f"{type(obj).__name__}.{self.old}", f".{self.new}")
        return getattr(obj, self.new)


def renamed_value(value: Any, renames: dict[str, str], param: str) -> Any:
    """``renames.get(value, value)``, warning when ``value`` is a retired spelling.

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     renamed_value("monte carlo", {"monte carlo": "monte-carlo"}, "method")
    'monte-carlo'
    """
    if isinstance(value, str) and value in renames:
        warn_deprecated(f"`{param}={value!r}`", f"`{param}={renames[value]!r}`")
        return renames[value]
    return value
