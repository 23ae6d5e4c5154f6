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
Judged     judged documents among the first min(k, retrieved) (none)         optional ``@k``
           / min(k, retrieved): ir_measures' ``Judged@k``
           (any grade counts as judged; ``rel`` does not apply)
Bpref      (1/R) sum over relevant retrieved d of           bpref           none
           1 - min(N_d, R) / min(N, R); N_d judged
           non-relevant above d, N judged non-relevant
Rprec      relevant in the top R / R                        Rprec           none
infAP      inferred AP (Yilmaz & Aslam 2006)                infAP           none
IPrec      interpolated precision at recall ``r``: the      iprec_at_recall required: a
           best precision at or below the rank where                        recall level
           recall reaches lround(r R) / R                                   ``IPrec@0.5``
SetP       relevant retrieved / retrieved                   set_P           none
SetR       relevant retrieved / R                           set_recall      none
SetF       (beta + 1) P R / (beta P + R), ``beta=1``        set_F           none
NumRet     documents retrieved (``rel`` does not apply)     num_ret         none
NumRel     judged relevant documents R                      num_rel         none
NumRelRet  relevant documents retrieved                     num_rel_ret     none
RBP        (1 - p) sum gain(d) p^(rank(d) - 1), gain the    rbp (p=0.9)     optional ``@k``
           grade over the topic's highest grade when that
           exceeds 1 (or 1 for grade >= ``rel`` if given)
RBPResid   RBP's residual: p^n + (1 - p) sum over           rbp_resid       optional ``@k``
           unjudged d of p^(rank(d) - 1) (0 if none)
Rndcg      mean nDCG at the boundaries between the grade    Rndcg           none
           levels of the ideal ranking
ERR        expected reciprocal rank, gdeval's: sum over     (gdeval err@k)  optional ``@k``
           ranks i of R_i prod_{j<i} (1 - R_j) / i,
           R = (2^grade - 1) / 2^4 (grades 1..4)
========== ================================================ =============== ==============

``nDCG(gain=exp)@k`` is gdeval's ``ndcg@k``: gain 2^grade - 1 for grades above 0
(trec_eval's ``nDCG`` uses the grade itself).

The formulas of Bpref ... Rndcg follow trec_eval 10.0's ``m_*.c`` sources
(:mod:`mrrstats.metrics.trec_measures`); ``RBP(p=...)`` and ``SetF(beta=...)`` take
their parameter before the ``@`` as in ir_measures (``RBP(p=0.8,rel=2)@10``). trec_eval's
``rbp`` is ``RBP(p=0.9)``; ir_measures' bare ``RBP`` is ``RBP(p=0.8)``. trec_eval's
``gm_map`` is ``Evaluation.aggregate("gmean")`` of ``AP``; its summaries of ``num_ret``,
``num_rel`` and ``num_rel_ret`` are ``aggregate("sum")``.

``rel`` (default: the evaluation's ``rel``, itself 1 by default) is the minimum
grade that counts as relevant; grades <= 0 are never relevant. nDCG uses the
grades themselves as gains, whatever ``rel``, exactly as trec_eval does.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import ParameterError, ParameterTypeError

INF = float("inf")
#: trec_eval's floor under a per-query value before its logarithm (``MIN_GEO_MEAN``,
#: trec_eval.h): ``gm_map`` is exp(mean(log(max(AP, 1e-5)))).
GM_FLOOR = 1e-5

if TYPE_CHECKING:
    from .._typing import MeasuresInput

__all__ = ["Measure", "MeasureSpec", "SPECS", "parse_measure", "parse_measures", "measure_iv",
           "measures_iv",
           "higher_is_better", "mean_label"]


@dataclass(frozen=True)
class MeasureSpec:
    """What the toolkit knows about one measure family, as data (one place for each fact).

    Attributes
    ----------
    name : str
        Canonical name (``"RR"``, ``"nDCG"``, ...).
    aliases : tuple of str
        Lower-case names that parse to this measure besides ``name.lower()``.
    cutoff_required : bool
        Whether ``@k`` must be given (``P@k``).
    trec_eval, trec_eval_cut : str or None
        trec_eval's name without and with a cutoff (``recip_rank``; ``ndcg_cut``).
    higher_is_better : bool
        ``False`` only for ``Rank``.
    bounds : (float, float)
        The range of a per-query value (``(0, 1)``; ``(1, inf)`` for ``Rank``).
    no_relevant_retrieved : float
        The value of a query on which no relevant document is retrieved.
    mean_name : str
        The name of the mean over queries (``MRR``, ``MAP``).
    cutoff : {"rank", "recall", "none"}
        What ``@k`` means: a rank cutoff (a positive integer), a recall level in
        [0, 1] (``IPrec@0.1``), or nothing (the measure takes no ``@``).
    param, param_default : str or None, float or None
        The family's one numeric parameter (``p`` of ``RBP``, ``beta`` of ``SetF``)
        and its default (trec_eval's). ``param_shown``: whether the canonical
        name prints it when it has its default (``RBP(p=0.9)`` but ``SetF``).
        ``param_choices``: the words a non-numeric parameter takes (``gain`` of
        ``nDCG``: ``grade``, trec_eval's, or ``exp``, gdeval's 2^grade - 1).
    uses_rel : bool
        Whether ``rel`` applies (``False`` for ``Judged`` and ``NumRet``).
    count : bool
        A count per query (``NumRet``, ``NumRel``, ``NumRelRet``), not a score:
        ``empty_target="pos"`` leaves it alone and trec_eval sums it over queries.
    full_ranking : bool
        The value depends on the documents ranked after the last relevant one
        (how many there are, or which are unjudged).
    """

    name: str
    aliases: tuple = ()
    cutoff_required: bool = False
    trec_eval: str | None = None
    trec_eval_cut: str | None = None
    higher_is_better: bool = True
    bounds: tuple = (0.0, 1.0)
    no_relevant_retrieved: float = 0.0
    mean_name: str = ""
    cutoff: str = "rank"
    param: str | None = None
    param_default: float | str | None = None
    uses_rel: bool = True
    count: bool = False
    full_ranking: bool = False
    param_shown: bool = True
    param_choices: tuple = ()


SPECS = {s.name: s for s in (
    MeasureSpec("RR", ("mrr", "recip_rank", "reciprocal_rank", "rr"), False, "recip_rank",
                None, mean_name="MRR"),
    MeasureSpec("AP", ("map", "average_precision"), False, "map", "map_cut", mean_name="MAP"),
    MeasureSpec("nDCG", ("ndcg",), False, "ndcg", "ndcg_cut", mean_name="mean nDCG",
                param="gain", param_default="grade", param_shown=False,
                param_choices=("grade", "exp")),
    MeasureSpec("P", ("precision",), True, None, "P", mean_name="mean P"),
    MeasureSpec("R", ("recall",), True, None, "recall", mean_name="mean R"),
    MeasureSpec("Success", ("hits", "hit", "success", "hitrate", "hit_rate", "top_k_accuracy"),
                True, None, "success", mean_name="mean Success"),
    MeasureSpec("Rank", ("rank",), False, None, None, higher_is_better=False,
                bounds=(1.0, float("inf")), no_relevant_retrieved=float("inf"),
                mean_name="mean Rank"),
    MeasureSpec("Judged", ("judged", "judged_rate"), False, None, None,
                mean_name="mean Judged", uses_rel=False),
    # trec_eval's other measures (its m_*.c files), under ir_measures' names
    MeasureSpec("Bpref", ("bpref",), False, "bpref", None, mean_name="mean Bpref",
                cutoff="none"),
    MeasureSpec("Rprec", ("rprec", "r_prec", "r_precision"), False, "Rprec", None,
                mean_name="mean Rprec", cutoff="none"),
    MeasureSpec("infAP", ("infap", "inf_ap"), False, "infAP", None, mean_name="mean infAP",
                cutoff="none"),
    MeasureSpec("IPrec", ("iprec", "iprec_at_recall"), True, None, "iprec_at_recall",
                mean_name="mean IPrec", cutoff="recall"),
    MeasureSpec("SetP", ("setp", "set_p"), False, "set_P", None, mean_name="mean SetP",
                cutoff="none", full_ranking=True),
    MeasureSpec("SetR", ("setr", "set_r", "set_recall"), False, "set_recall", None,
                mean_name="mean SetR", cutoff="none"),
    MeasureSpec("SetF", ("setf", "set_f"), False, "set_F", None, mean_name="mean SetF",
                cutoff="none", param="beta", param_default=1.0, full_ranking=True,
                param_shown=False),
    MeasureSpec("NumRet", ("numret", "num_ret"), False, "num_ret", None, bounds=(0.0, INF),
                mean_name="mean NumRet", cutoff="none", uses_rel=False, count=True,
                full_ranking=True),
    MeasureSpec("NumRel", ("numrel", "num_rel"), False, "num_rel", None, bounds=(0.0, INF),
                mean_name="mean NumRel", cutoff="none", count=True),
    MeasureSpec("NumRelRet", ("numrelret", "num_rel_ret"), False, "num_rel_ret", None,
                bounds=(0.0, INF), mean_name="mean NumRelRet", cutoff="none", count=True),
    MeasureSpec("RBP", ("rbp",), False, "rbp", None, mean_name="mean RBP", param="p",
                param_default=0.9),
    MeasureSpec("RBPResid", ("rbpresid", "rbp_resid"), False, "rbp_resid", None,
                mean_name="mean RBPResid", param="p", param_default=0.9, full_ranking=True),
    MeasureSpec("Rndcg", ("rndcg",), False, "Rndcg", None, mean_name="mean Rndcg",
                cutoff="none", full_ranking=True),
    # gdeval.pl (TREC Web track 2010-2014)
    MeasureSpec("ERR", ("err",), False, None, None, mean_name="mean ERR", uses_rel=False),
)}
_ALIASES = {name.lower(): name for name in SPECS}
for _s in SPECS.values():
    _ALIASES.update({a: _s.name for a in _s.aliases})

# trec_eval's names with a cutoff: ``P_10``, ``ndcg_cut_10``, ``recall_100``, ``map_cut_5``...
_CUT_NAMES = {s.trec_eval_cut.lower(): s.name for s in SPECS.values() if s.trec_eval_cut}
_TREC_CUT = re.compile(r"^\s*(?P<name>[A-Za-z_]+?)_(?P<k>\d+(?:\.\d+)?)\s*$")

_PATTERN = re.compile(
    r"^\s*(?P<name>[A-Za-z_]+)\s*(?:\((?P<params>[^)]*)\))?\s*(?:@\s*(?P<k>[^\s]+))?\s*$")


@dataclass(frozen=True, order=True)
class Measure:
    """A ranking measure with its parameters.

    Attributes
    ----------
    name : str
        A family of :data:`SPECS` (``RR``, ``AP``, ``nDCG``, ``Bpref``, ...).
    k : int, float or None
        Cutoff: only the top ``k`` documents count (``None``: no cutoff); for
        ``IPrec`` the recall level in [0, 1].
    rel : int or None
        Minimum grade that counts as relevant; ``None`` takes the evaluation's
        default (``rel=1`` unless set).
    param : float or None
        The family's numeric parameter (``p`` of ``RBP``, ``beta`` of ``SetF``);
        filled with its default when not given.
    """

    name: str
    k: int | float | None = None
    rel: int | None = None
    param: float | str | None = None

    def __post_init__(self):
        if self.name not in SPECS:
            raise ParameterError(f"unknown measure {self.name!r}; known: {', '.join(SPECS)}")
        spec = SPECS[self.name]
        if self.k is not None:
            if spec.cutoff == "none":
                raise ParameterError(f"measure {self.name} takes no cutoff `@k`")
            if spec.cutoff == "recall":
                if isinstance(self.k, bool) or not isinstance(self.k, (int, float)) \
                        or not 0.0 <= self.k <= 1.0:
                    raise ParameterError(f"recall level of {self.name} must be a number in "
                                         f"[0, 1], got {self.k!r}")
                object.__setattr__(self, "k", float(self.k))
            elif isinstance(self.k, bool) or not isinstance(self.k, int) or self.k < 1:
                raise ParameterError(f"cutoff `k` of {self.name} must be a positive integer, "
                                     f"got {self.k!r}")
        if spec.cutoff_required and self.k is None:
            example = "0.5" if spec.cutoff == "recall" else "10"
            raise ParameterError(f"measure {self.name} needs a cutoff, e.g. "
                                 f"{self.name}@{example}")
        if self.rel is not None and not spec.uses_rel:
            raise ParameterError(f"{self.name} does not depend on relevance; it takes no `rel`")
        if self.rel is not None and (isinstance(self.rel, bool) or not isinstance(self.rel, int)
                                     or self.rel < 1):
            raise ParameterError(f"`rel` of {self.name} must be an integer >= 1, got {self.rel!r}")
        if spec.param is None:
            if self.param is not None:
                raise ParameterError(f"{self.name} takes no parameter besides `rel`")
            return
        value = spec.param_default if self.param is None else self.param
        if spec.param_choices:
            if value not in spec.param_choices:
                raise ParameterError(f"`{spec.param}` of {self.name} must be one of "
                                     f"{', '.join(spec.param_choices)}, got {value!r}")
            object.__setattr__(self, "param", value)
            return
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ParameterError(f"`{spec.param}` of {self.name} must be a number, "
                                 f"got {value!r}")
        value = float(value)
        if spec.param == "p" and not 0.0 < value < 1.0:
            raise ParameterError(f"`p` of {self.name} must be in (0, 1), got {value!r}")
        if spec.param == "beta" and not 0.0 <= value < INF:
            raise ParameterError(f"`beta` of {self.name} must be >= 0, got {value!r}")
        object.__setattr__(self, "param", value)

    def __str__(self) -> str:
        s = self.name
        params = []
        spec = self.spec
        if spec.param is not None and (spec.param_shown or self.param != spec.param_default):
            params.append((spec.param, self.param if isinstance(self.param, str)
                           else _num(self.param)))
        if self.rel is not None:
            params.append(("rel", str(self.rel)))
        if params:
            s += "(" + ",".join(f"{key}={value}" for key, value in sorted(params)) + ")"
        if self.k is not None:
            s += f"@{_num(self.k)}"
        return s

    def __repr__(self) -> str:
        return f"Measure({str(self)!r})"

    @property
    def trec_eval_name(self) -> str | None:
        """The name trec_eval prints for this measure (``None`` if it has none)."""
        spec = self.spec
        plain, cut = spec.trec_eval, spec.trec_eval_cut
        if spec.param is not None and self.param != spec.param_default:
            return None  # trec_eval prints its parameters nowhere
        if self.k is None:
            return plain
        if cut is None:
            return None
        return f"{cut}_{self.k:.2f}" if spec.cutoff == "recall" else f"{cut}_{self.k}"

    @property
    def spec(self) -> MeasureSpec:
        """The :class:`MeasureSpec` of this measure's family."""
        return SPECS[self.name]

    @property
    def higher_is_better(self) -> bool:
        return self.spec.higher_is_better

    @property
    def mean_label(self) -> str:
        """``MRR@10`` for ``RR@10``, ``MAP`` for ``AP``, ``mean nDCG@10`` for ``nDCG@10``."""
        return self.spec.mean_name + str(self)[len(self.name):]

    def with_rel(self, rel: int) -> Measure:
        """This measure with ``rel`` filled in where it was left to the default."""
        if self.rel is not None or not self.spec.uses_rel:
            return self
        return Measure(self.name, self.k, rel, self.param)


def _num(x) -> str:
    """A number as typed: ``10``, ``0.9``, ``1`` (shortest repr, no trailing ``.0``)."""
    if isinstance(x, int):
        return str(x)
    r = repr(float(x))
    return r[:-2] if r.endswith(".0") else r


def parse_measure(spec: str | Measure) -> Measure:
    """Parse a measure name such as ``"RR"``, ``"RR@10"``, ``"RR(rel=2)@10"``, ``"nDCG@10"``.

    Names are case-insensitive; the names users type elsewhere are read too
    (``MRR``, ``MRR@10``, ``recip_rank``, ``map``, ``HitRate@10``, ``Hits@10``,
    ``Recall@100``, and trec_eval's cut names ``P_10``, ``ndcg_cut_10``,
    ``map_cut_10``, ``recall_100``, ``success_10``); the result prints in
    canonical form. The aliases live in :data:`SPECS`. ir_measures' measure objects
    (``ir_measures.nDCG@10``, ``ir_measures.RR(rel=2)@10``) are read as they are, with
    ir_measures' defaults (its bare ``RBP`` is ``RBP(p=0.8)``).

    Examples
    --------
    >>> from mrrstats import parse_measure
    >>> parse_measure("rr(rel=2)@10")
    Measure('RR(rel=2)@10')
    >>> str(parse_measure("ndcg@10")), parse_measure("P@5").k
    ('nDCG@10', 5)
    >>> [str(parse_measure(s)) for s in ("MRR@10", "HitRate@5", "P_10", "ndcg_cut_10")]
    ['RR@10', 'Success@5', 'P@10', 'nDCG@10']
    """
    return measure_iv(spec, "spec")


def _from_ir_measures(obj) -> Measure:
    """An ir_measures measure object (``ir_measures.nDCG@10``, ``ir_measures.RBP``) as a
    :class:`Measure`; its defaults filled in where they differ from ours (``RBP``'s
    ``p=0.8``), ``nDCG(dcg='exp-log2')`` as ``nDCG(gain=exp)``."""
    params = dict(obj.params)
    name = _ALIASES.get(str(obj.NAME).lower())
    if name is None:
        raise ParameterError(f"ir_measures' {obj} has no counterpart here; known: "
                             f"{', '.join(SPECS)}")
    family = SPECS[name]
    if params.pop("judged_only", False):
        raise ParameterError(f"{obj}: judged_only=True is evaluate(unjudged='condense') here")
    k = params.pop("cutoff", None)
    if "recall" in params:
        k = params.pop("recall")
    rel = params.pop("rel", None)
    param = None
    if name == "nDCG" and "dcg" in params:
        dcg = params.pop("dcg")
        if dcg not in ("log2", "exp-log2"):
            raise ParameterError(f"{obj}: dcg={dcg!r} has no counterpart (log2, exp-log2)")
        param = "exp" if dcg == "exp-log2" else None
    elif family.param is not None:
        param = params.pop(family.param, None)
        if param is None:  # ir_measures' default, when it has one (RBP: p=0.8)
            default = getattr(obj.SUPPORTED_PARAMS.get(family.param), "default", None)
            param = default if isinstance(default, int | float) else None
    if params:
        raise ParameterError(f"{obj}: parameter {', '.join(params)} has no counterpart here")
    if name == "NumRet" and rel is not None:
        name = "NumRelRet"
    return Measure(name, k, rel, param)


def _is_ir_measures(obj) -> bool:
    return type(obj).__module__.split(".")[0] == "ir_measures" and hasattr(obj, "NAME")


def _parse_one(spec) -> Measure:
    if isinstance(spec, Measure):
        return spec
    if _is_ir_measures(spec):
        return _from_ir_measures(spec)
    if not isinstance(spec, str):
        raise ParameterTypeError(
            f"a measure must be a string such as 'RR@10', got {type(spec).__name__}")
    cut = _TREC_CUT.match(spec)
    if cut and cut.group("name").lower() in _CUT_NAMES:
        name = _CUT_NAMES[cut.group("name").lower()]
        return Measure(name, _cutoff(name, cut.group("k"), spec))
    m = _PATTERN.match(spec)
    if not m:
        raise ParameterError(f"cannot parse measure {spec!r}; expected e.g. 'RR', 'RR@10', "
                         "'RR(rel=2)@10', 'nDCG@10'")
    raw = m.group("name")
    name = _ALIASES.get(raw.lower())
    if name is None:
        raise ParameterError(f"unknown measure {raw!r} in {spec!r}; known: {', '.join(SPECS)}")
    rel = param = None
    family = SPECS[name]
    if m.group("params") is not None and m.group("params").strip():
        for part in m.group("params").split(","):
            key, sep, value = part.partition("=")
            key = key.strip()
            if sep and key == "rel":
                try:
                    rel = int(value.strip())
                except ValueError:
                    raise ParameterError(f"`rel` must be an integer in {spec!r}") from None
            elif sep and family.param is not None and key == family.param:
                if family.param_choices:
                    param = value.strip().lower()
                    continue
                try:
                    param = float(value.strip())
                except ValueError:
                    raise ParameterError(f"`{key}` must be a number in {spec!r}") from None
            else:
                what = "|".join(family.param_choices) or "<number>"
                known = "rel=<int>" if family.param is None else \
                    f"{family.param}={what} and rel=<int>"
                raise ParameterError(f"unknown parameter {part.strip()!r} in {spec!r}; "
                                     f"{name} takes {known}")
    if name == "NumRet" and rel is not None:  # ir_measures: NumRet(rel=1) is NumRelRet
        name = "NumRelRet"
    k = None if m.group("k") is None else _cutoff(name, m.group("k"), spec)
    return Measure(name, k, rel, param)


def _cutoff(name: str, text: str, spec: str):
    """The ``@k`` of ``name`` read from ``text``: an integer, or a recall level."""
    try:
        return float(text) if SPECS[name].cutoff == "recall" else int(text)
    except ValueError:
        what = "a recall level in [0, 1]" if SPECS[name].cutoff == "recall" \
            else "a positive integer"
        raise ParameterError(f"cutoff must be {what} in {spec!r}") from None


def parse_measures(specs: MeasuresInput) -> tuple[Measure, ...]:
    """Parse one measure or a sequence of them; duplicates are removed, order kept."""
    return measures_iv(specs, "specs")


def measure_iv(spec, name="measure") -> Measure:
    """One measure, parsed; a refusal names the parameter ``name``."""
    try:
        return _parse_one(spec)
    except ParameterTypeError as exc:
        raise ParameterTypeError(f"`{name}`: {exc}", name=name) from None
    except ParameterError as exc:
        raise ParameterError(f"`{name}`: {exc}", name=name) from None


def measures_iv(specs, name="measures") -> tuple[Measure, ...]:
    """One measure or a sequence of them, parsed; duplicates removed, order kept."""
    if isinstance(specs, (str, Measure)) or _is_ir_measures(specs):
        specs = [specs]
    if not isinstance(specs, Iterable) or isinstance(specs, Mapping):
        raise ParameterTypeError(f"`{name}` must be a measure name such as 'RR@10' or a list "
                                 f"of them, got {type(specs).__name__}", name=name)
    out: list[Measure] = []
    for spec in specs:
        m = measure_iv(spec, name)
        if m not in out:
            out.append(m)
    if not out:
        raise ParameterError(f"`{name}` is empty", name=name)
    return tuple(out)


def _family(measure) -> MeasureSpec | None:
    """The spec of a measure given as a Measure or a name; ``None`` for unknown names."""
    if isinstance(measure, Measure):
        return measure.spec
    try:
        return parse_measure(str(measure)).spec
    except (TypeError, ValueError):
        return None


def higher_is_better(measure) -> bool:
    """Whether larger values of ``measure`` are better (``True`` for names we do not know).

    >>> higher_is_better("RR@10"), higher_is_better("Rank")
    (True, False)
    """
    spec = _family(measure)
    return True if spec is None else spec.higher_is_better


def mean_label(measure) -> str:
    """The name of the mean of ``measure`` over queries (``MRR`` for ``RR``).

    >>> mean_label("RR@10"), mean_label("AP"), mean_label("nDCG@10"), mean_label("ERR@20")
    ('MRR@10', 'MAP', 'mean nDCG@10', 'mean ERR@20')
    """
    if isinstance(measure, Measure):
        return measure.mean_label
    try:
        return parse_measure(str(measure)).mean_label
    except (TypeError, ValueError):
        return f"mean {measure}"
