"""Lazy loading of the package's public names (Scientific Python SPEC 1).

``import mrrstats`` loads none of pandas, scipy.stats, statsmodels, pyarrow, numba or
matplotlib: a package's ``__init__`` lists its public names and the submodule that
defines each, and :func:`attach` gives it the module-level ``__getattr__`` and
``__dir__`` that import a submodule the first time one of its names is used
(``mrrstats.compare`` imports :mod:`mrrstats.stats.compare`, nothing else). Names are
then bound on the package, so later look-ups cost nothing. ``from mrrstats import X``,
``dir(mrrstats)`` and ``from mrrstats import *`` work as with eager imports, and so does
an attribute path to any submodule (``mrrstats.stats.bootstrap``, ``mrrstats.glossary``),
imported when first reached.

Two things eager imports did for free are kept here:

* a submodule named like the function it exports (``mrrstats.stats.compare`` defines
  ``compare``): when the import system binds the submodule on its package, the package
  keeps the function, as the eager ``from .compare import compare`` left it;
* module paths kept for old code (``import mrrstats.plots``): :func:`alias_modules`
  makes them import their target when first imported, and a deprecated alias never
  gets bound on the package, so every attribute access keeps warning.

The idea is lazy_loader's (``lazy.attach``); the code is ours and short.

Examples
--------
In a package's ``__init__.py``:

>>> __getattr__, __dir__, __all__ = attach(  # doctest: +SKIP
...     __name__, {"compare": ["Comparison", "compare"], "bootstrap": ["bootstrap_ci"]},
...     submodules=["blocked"])
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
import types

__all__ = ["attach", "alias_modules"]


class _LazyPackage(types.ModuleType):
    """A package whose lazily exported names stay bound to the objects it exports."""

    def __setattr__(self, name, value):
        lazy = self.__dict__.get("__lazy_attrs__", {})
        if name in self.__dict__.get("__lazy_hidden__", ()):
            return  # a deprecated alias: every access goes through __getattr__ (and warns)
        if isinstance(value, types.ModuleType) and name in lazy:
            # the import system binding submodule ``name`` on the package; the package
            # exports the attribute ``name`` of a submodule (the function, not its module)
            module_name, attr = lazy[name]
            if value.__name__ == module_name and hasattr(value, attr):
                value = getattr(value, attr)
        super().__setattr__(name, value)


def attach(package_name: str, submod_attrs: dict | None = None, *, submodules=()):
    """``__getattr__``, ``__dir__`` and ``__all__`` of a lazily loaded package.

    Parameters
    ----------
    package_name : str
        The package's ``__name__``.
    submod_attrs : dict
        ``{submodule: [names]}``: the public names each submodule (relative to the
        package, dotted for deeper ones: ``"stats.bootstrap"``) defines.
    submodules : iterable of str
        Submodules exported as themselves (``mrrstats.datasets``).

    Returns
    -------
    __getattr__, __dir__, __all__
        Assign them at the package's top level. ``__all__`` lists the submodules and the
        names in the order given.
    """
    attrs = {name: (f"{package_name}.{module}", name)
             for module, names in (submod_attrs or {}).items() for name in names}
    modules = {name: f"{package_name}.{name}" for name in submodules}
    names = [*modules, *attrs]
    package = sys.modules[package_name]
    package.__class__ = _LazyPackage
    package.__dict__["__lazy_attrs__"] = attrs
    package.__dict__["__lazy_submodules__"] = modules

    def __getattr__(name):
        if name in modules:
            value = importlib.import_module(modules[name])
        elif name in attrs:
            module_name, attr = attrs[name]
            value = getattr(importlib.import_module(module_name), attr)
        elif not name.startswith("__") and _is_submodule(f"{package_name}.{name}"):
            # any other submodule (mrrstats.glossary, mrrstats.stats.bootstrap): reachable
            # as an attribute, as it was when the package imported everything
            value = importlib.import_module(f"{package_name}.{name}")
        else:
            raise AttributeError(f"module {package_name!r} has no attribute {name!r}")
        setattr(package, name, value)
        return value

    def __dir__():
        return sorted(set(names) | set(package.__dict__))

    return __getattr__, __dir__, names


def _is_submodule(fullname: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(fullname) is not None


class _AliasFinder:
    """Imports an old module path as the module that replaced it (a meta path finder and
    its loader; not derived from ``importlib.abc``, whose import costs more than this)."""

    def __init__(self, aliases: dict):
        self.aliases = dict(aliases)

    def find_spec(self, fullname, path=None, target=None):
        if fullname in self.aliases:
            return importlib.machinery.ModuleSpec(fullname, self)
        return None

    def create_module(self, spec):
        return None  # a placeholder, replaced in sys.modules by exec_module

    def exec_module(self, module):
        # the import system returns what sys.modules holds after this call (the target)
        sys.modules[module.__name__] = importlib.import_module(self.aliases[module.__name__])


def alias_modules(package_name: str, aliases: dict, *, deprecated=()) -> None:
    """Make ``import <package>.<old>`` import the module ``aliases[old]`` (lazily).

    ``import mrrstats.plots`` then gives :mod:`mrrstats.report.plots` itself (the same
    module object), imported only then. Names in ``deprecated`` are never bound as
    attributes of the package, so that its ``__getattr__`` sees (and warns about)
    every access.
    """
    full = {f"{package_name}.{old}": new for old, new in aliases.items()}
    for finder in sys.meta_path:
        if isinstance(finder, _AliasFinder):
            finder.aliases.update(full)
            break
    else:
        sys.meta_path.append(_AliasFinder(full))
    package = sys.modules[package_name]
    hidden = set(package.__dict__.get("__lazy_hidden__", ())) | set(deprecated)
    package.__dict__["__lazy_hidden__"] = frozenset(hidden)


class _Deferred:
    """A module imported when one of its attributes is first read (see :func:`deferred`)."""

    __slots__ = ("_name",)

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr):
        return getattr(importlib.import_module(self._name), attr)

    def __repr__(self) -> str:
        return f"<deferred module {self._name!r}>"


def deferred(name: str):
    """Module ``name``, imported the first time one of its attributes is read.

    For pandas in the modules of the path from TREC files to the measures
    (``mrrstats evaluate QRELS RUN`` never builds a DataFrame, so it never imports
    pandas: 0.3 s of a fresh process). Such a module binds ``pd = deferred("pandas")``
    and imports pandas under ``if TYPE_CHECKING:`` for the type checker. Each attribute
    read is a look-up in ``sys.modules`` once pandas is imported.
    """
    module = sys.modules.get(name)
    return module if module is not None else _Deferred(name)


def is_instance(obj, module: str, name: str) -> bool:
    """``isinstance(obj, module.name)`` without importing ``module``: an object cannot
    be an instance of a class of a module nobody imported (a file path is not a
    DataFrame, and asking must not cost pandas' import)."""
    loaded = sys.modules.get(module)
    return loaded is not None and isinstance(obj, getattr(loaded, name))
