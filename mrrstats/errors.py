"""The errors mrrstats raises on purpose (one place for each class).

Every refusal at the public boundary is a :class:`MrrstatsError`; each class also
derives from the built-in exception a caller would catch for the same problem
(``ValueError`` for a bad value, ``TypeError`` for a bad type, ``MemoryError`` for a
request that cannot fit), so ``except ValueError`` code written against numpy or
scipy keeps working.
"""

from __future__ import annotations

__all__ = ["MrrstatsError", "InputError", "ParameterError", "ParameterTypeError",
           "ResourceError", "MrrstatsDeprecationWarning", "QueriesLeftOutWarning",
           "ConvergenceWarning"]


class MrrstatsError(Exception):
    """Base class of every error mrrstats raises on purpose."""


class InputError(MrrstatsError, ValueError):
    """Bad input data: names the file (or object), the line and the problem.

    Attributes
    ----------
    source : str or None
        File name or a description of the in-memory object.
    line : int or None
        1-based line number in ``source`` where the problem was found.
    problem : str
        What is wrong, in one sentence.
    """

    def __init__(self, problem: str, *, source: str | None = None,
                 line: int | None = None) -> None:
        self.source = source
        self.line = line
        self.problem = problem
        where = ""
        if source is not None:
            where = f"{source}"
            if line is not None:
                where += f", line {line}"
            where += ": "
        super().__init__(f"{where}{problem}")


class ParameterError(MrrstatsError, ValueError):
    """A parameter's value is not allowed; the message names the parameter in backticks.

    Attributes
    ----------
    name : str or None
        The parameter's name.
    """

    def __init__(self, message: str, *, name: str | None = None) -> None:
        self.name = name
        super().__init__(message)


class ParameterTypeError(MrrstatsError, TypeError):
    """A parameter has a type that is not allowed; the message names the parameter."""

    def __init__(self, message: str, *, name: str | None = None) -> None:
        self.name = name
        super().__init__(message)


class ResourceError(MrrstatsError, MemoryError):
    """A request that cannot fit, refused up front with the memory it would need.

    Attributes
    ----------
    name : str or None
        The parameter that makes the request too large.
    needed : int or None
        Bytes the request would need.
    """

    def __init__(self, message: str, *, name: str | None = None,
                 needed: int | None = None) -> None:
        self.name = name
        self.needed = needed
        super().__init__(message)


class MrrstatsDeprecationWarning(DeprecationWarning):
    """A retired name or form was used; the message names its replacement.

    Every deprecation warning mrrstats emits is this class (through
    :mod:`mrrstats.deprecation`), so a caller (or a test suite) can silence or raise
    mrrstats' own deprecations without touching those of numpy, pandas or scipy::

        warnings.filterwarnings("error", category=MrrstatsDeprecationWarning)
    """


class QueriesLeftOutWarning(UserWarning):
    """Queries left out of the means: judged queries a run has no results for
    (``queries="both"``, trec_eval's default) or queries without any relevant
    document (``empty_target="skip"``). The message says how many and the option
    that counts them (``queries="qrels"``, ``empty_target="neg"``); the ids are in
    ``QueryCounts.qrels_only`` and ``no_relevant``.
    """


class ConvergenceWarning(RuntimeWarning):
    """A sampler's chains may not have converged (R-hat above 1.01 or a bulk effective
    sample size under 400, Vehtari et al. 2021): the message gives both and the
    parameters that run longer chains. Its own class, so that a caller can raise or
    silence it alone (it is a :class:`RuntimeWarning`, as before)."""
