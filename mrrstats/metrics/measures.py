"""Measure names: parse ``RR(rel=2)@10``-style strings into :class:`Measure` objects.

The canonical string of a measure follows ir_measures' syntax and is used as a
key and column name everywhere (per-query frames, aggregates, reports, CLI).
It round-trips: ``str(parse_measure(s)) == s`` for every canonical ``s``, and
``parse_measure(str(m)) == m`` for every measure ``m``.

========== ================================================ =============== ==============
name       per-query value                                  trec_eval name  cutoff
========== ================================================ =============== ==============
RR         1 / rank of the first relevant document (0 if    recip_rank      optional ``@k``
           none is retrieved)
AP         average precision: sum of precision at each      map             optional ``@k``
           relevant retrieved document / number relevant                    (``map_cut_k``)
nDCG       DCG / ideal DCG with gain = grade (grades <= 0   ndcg            optional ``@k``
           give no gain), discount log2(rank + 1)                           (``ndcg_cut_k``)
P          relevant in the top k / k                        P_k             required
R          relevant in the top k / number relevant          recall_k        required
Success    1 if a relevant document is in the top k         success_k       required
Rank       rank of the first relevant document              (none)          optional ``@k``
           (``inf`` if none is retrieved in the top k)
========== ================================================ =============== ==============

``rel`` (default: the evaluation's ``rel``, itself 1 by default) is the minimum
grade that counts as relevant; grades <= 0 are never relevant. nDCG uses the
grades themselves as gains, whatever ``rel``, exactly as trec_eval does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Measure", "parse_measure", "parse_measures", "MEASURE_NAMES"]

# name -> (cutoff required?, trec_eval name without / with cutoff, higher is better)
_SPEC = {
    "RR": (False, "recip_rank", None),
    "AP": (False, "map", "map_cut"),
    "nDCG": (False, "ndcg", "ndcg_cut"),
    "P": (True, None, "P"),
    "R": (True, None, "recall"),
    "Success": (True, None, "success"),
    "Rank": (False, None, None),
}
MEASURE_NAMES = tuple(_SPEC)
_ALIASES = {name.lower(): name for name in _SPEC}
_ALIASES.update({"mrr": "RR", "recip_rank": "RR", "map": "AP", "ndcg": "nDCG",
                 "precision": "P", "recall": "R", "hits": "Success", "success": "Success",
                 "rank": "Rank"})

_PATTERN = re.compile(
    r"^\s*(?P<name>[A-Za-z_]+)\s*(?:\((?P<params>[^)]*)\))?\s*(?:@\s*(?P<k>[^\s]+))?\s*$")


@dataclass(frozen=True, order=True)
class Measure:
    """A ranking measure with its parameters.

    Attributes
    ----------
    name : str
        One of ``RR``, ``AP``, ``nDCG``, ``P``, ``R``, ``Success``, ``Rank``.
    k : int or None
        Cutoff: only the top ``k`` documents count (``None``: no cutoff).
    rel : int or None
        Minimum grade that counts as relevant; ``None`` takes the evaluation's
        default (``rel=1`` unless set).
    """

    name: str
    k: int | None = None
    rel: int | None = None

    def __post_init__(self):
        if self.name not in _SPEC:
            raise ValueError(f"unknown measure {self.name!r}; known: {', '.join(_SPEC)}")
        if self.k is not None and (not isinstance(self.k, int) or self.k < 1):
            raise ValueError(f"cutoff `k` of {self.name} must be a positive integer, "
                             f"got {self.k!r}")
        if _SPEC[self.name][0] and self.k is None:
            raise ValueError(f"measure {self.name} needs a cutoff, e.g. {self.name}@10")
        if self.rel is not None and (not isinstance(self.rel, int) or self.rel < 1):
            raise ValueError(f"`rel` of {self.name} must be an integer >= 1, got {self.rel!r}")

    def __str__(self) -> str:
        s = self.name
        if self.rel is not None:
            s += f"(rel={self.rel})"
        if self.k is not None:
            s += f"@{self.k}"
        return s

    def __repr__(self) -> str:
        return f"Measure({str(self)!r})"

    @property
    def trec_eval_name(self) -> str | None:
        """The name trec_eval prints for this measure (``None`` if it has none)."""
        _, plain, cut = _SPEC[self.name]
        if self.k is None:
            return plain
        return None if cut is None else f"{cut}_{self.k}"

    def with_rel(self, rel: int) -> Measure:
        """This measure with ``rel`` filled in where it was left to the default."""
        return self if self.rel is not None else Measure(self.name, self.k, rel)


def parse_measure(spec) -> Measure:
    """Parse a measure name such as ``"RR"``, ``"RR@10"``, ``"RR(rel=2)@10"``, ``"nDCG@10"``.

    Names are case-insensitive (``mrr``, ``map`` and ``recip_rank`` are accepted
    as aliases); the result prints in canonical form.

    Examples
    --------
    >>> from mrrstats import parse_measure
    >>> parse_measure("rr(rel=2)@10")
    Measure('RR(rel=2)@10')
    >>> str(parse_measure("ndcg@10")), parse_measure("P@5").k
    ('nDCG@10', 5)
    """
    if isinstance(spec, Measure):
        return spec
    if not isinstance(spec, str):
        raise TypeError(f"a measure must be a string such as 'RR@10', got {type(spec).__name__}")
    m = _PATTERN.match(spec)
    if not m:
        raise ValueError(f"cannot parse measure {spec!r}; expected e.g. 'RR', 'RR@10', "
                         "'RR(rel=2)@10', 'nDCG@10'")
    raw = m.group("name")
    name = _ALIASES.get(raw.lower())
    if name is None:
        raise ValueError(f"unknown measure {raw!r} in {spec!r}; known: {', '.join(_SPEC)}")
    rel = None
    if m.group("params") is not None and m.group("params").strip():
        for part in m.group("params").split(","):
            key, sep, value = part.partition("=")
            key = key.strip()
            if not sep or key != "rel":
                raise ValueError(f"unknown parameter {part.strip()!r} in {spec!r}; "
                                 "the only parameter is rel=<int>")
            try:
                rel = int(value.strip())
            except ValueError:
                raise ValueError(f"`rel` must be an integer in {spec!r}") from None
    k = None
    if m.group("k") is not None:
        try:
            k = int(m.group("k"))
        except ValueError:
            raise ValueError(f"cutoff must be a positive integer in {spec!r}") from None
    return Measure(name, k, rel)


def parse_measures(specs) -> tuple[Measure, ...]:
    """Parse one measure or a sequence of them; duplicates are removed, order kept."""
    if isinstance(specs, (str, Measure)):
        specs = [specs]
    out: list[Measure] = []
    for spec in specs:
        m = parse_measure(spec)
        if m not in out:
            out.append(m)
    if not out:
        raise ValueError("`measures` is empty")
    return tuple(out)
