"""The share of mrrstats' public callables that are fully annotated.

"Public": the names in ``mrrstats.__all__`` and in the ``__all__`` of the submodules it
exports (``mrrstats.blocked``, ``mrrstats.plots``, ``mrrstats.datasets``), and the public
methods and properties of the classes they export (defined in mrrstats; ``__init__``
counts when the class defines one). "Fully annotated": every parameter except
``self``/``cls`` and the return carry an annotation (``inspect.signature`` on the
unwrapped callable; properties: the getter's return).

Run ``python tests/_typing/annotation_coverage.py`` to print the share and the callables
still missing annotations; ``tests/test_typing.py`` asserts the share.
"""

from __future__ import annotations

import inspect
import types
import warnings
from collections.abc import Callable, Iterator


def _complete(func: Callable[..., object]) -> bool:
    func = inspect.unwrap(func)
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):  # a builtin: nothing to check
        return True
    params = [p for name, p in sig.parameters.items() if name not in ("self", "cls")]
    if any(p.annotation is inspect.Parameter.empty for p in params):
        return False
    return sig.return_annotation is not inspect.Signature.empty


def _own(obj: object) -> bool:
    return getattr(obj, "__module__", "").startswith("mrrstats")


def _class_members(cls: type) -> Iterator[tuple[str, bool]]:
    for klass in cls.__mro__:
        if not klass.__module__.startswith("mrrstats"):
            continue
        for name, value in vars(klass).items():
            if name.startswith("_") and name != "__init__":
                continue
            qual = f"{cls.__module__}.{cls.__qualname__}.{name}"
            if isinstance(value, property):
                yield qual, value.fget is None or _complete_return(value.fget)
            elif isinstance(value, (staticmethod, classmethod)):
                yield qual, _complete(value.__func__)
            elif isinstance(value, types.FunctionType):
                if name == "__init__" and getattr(value, "__module__", "") != cls.__module__:
                    continue  # a dataclass's generated __init__ is annotated by its fields
                yield qual, _complete(value)


def _complete_return(func: Callable[..., object]) -> bool:
    return inspect.signature(inspect.unwrap(func)).return_annotation is not inspect.Signature.empty


def public_callables() -> dict[str, bool]:
    """``{qualified name: fully annotated}`` for every public function and method."""
    import mrrstats

    out: dict[str, bool] = {}
    seen: set[type] = set()

    def visit(owner: str, name: str, obj: object) -> None:
        if isinstance(obj, type):
            if obj in seen or not _own(obj):
                return
            seen.add(obj)
            for qual, ok in _class_members(obj):
                out.setdefault(qual, ok)
        elif isinstance(obj, types.ModuleType):
            for sub in getattr(obj, "__all__", ()):
                visit(obj.__name__, sub, getattr(obj, sub))
        elif callable(obj) and _own(obj):
            out.setdefault(f"{owner}.{name}", _complete(obj))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for name in mrrstats.__all__:
            visit("mrrstats", name, getattr(mrrstats, name))
    return out


def share() -> tuple[int, int]:
    """``(fully annotated, public)`` counts."""
    found = public_callables()
    return sum(found.values()), len(found)


if __name__ == "__main__":
    found = public_callables()
    missing = sorted(name for name, ok in found.items() if not ok)
    for name in missing:
        print("missing:", name)
    done = len(found) - len(missing)
    print(f"{done} of {len(found)} public callables fully annotated "
          f"({100 * done / len(found):.1f}%)")
