"""Exceptions raised for bad input."""

from __future__ import annotations

__all__ = ["InputError"]


class InputError(ValueError):
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

    def __init__(self, problem: str, *, source: str | None = None, line: int | None = None):
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
