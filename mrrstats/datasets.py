"""Bundled real data: every data set that ships inside the package.

* :func:`cast2021`: the five TREC CAsT 2021 organiser baseline runs and their
  graded qrels (daltonj/treccastweb @ 33846610, MIT); :func:`cast2021_judged`
  adds a simulated LLM judge and a human-labelled subset of the queries;
* :func:`trec7_scores`: the per-topic RR, AP and P@10 of the 103 TREC-7 ad hoc
  runs (50 topics), from J. Urbano et al. (julian-urbano/sigir2019-statistical
  @ dc9f891c, CC BY-SA 4.0);
* :func:`kg_graph`: the Nations, Kinship and UMLS link-prediction graphs
  (TimDettmers/ConvE @ f3c0eb28, MIT).

Each folder under ``mrrstats/data/`` carries its licence and a README with the
attribution. (``mrrstats.examples`` is a deprecated alias of this module.)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .agreement.judges import simulate_judge
from .errors import ParameterError, ParameterTypeError
from .io.trec import Qrels, read_qrels, read_score_matrix
from .validation import rng_iv

if TYPE_CHECKING:
    from typing import Literal

__all__ = ["ExampleData", "cast2021", "JudgedExample", "cast2021_judged", "KnowledgeGraph",
           "trec7_scores", "kg_graph", "TREC7_MEASURES", "KG_GRAPHS"]


TREC7_MEASURES = ("RR", "AP", "P@10")
KG_GRAPHS = ("nations", "kinship", "umls")
_TREC7_FILES = {"RR": "adhoc7_rr.csv", "AP": "adhoc7_ap.csv", "P@10": "adhoc7_p10.csv"}
_TREC7_ALIASES = {"rr": "RR", "recip_rank": "RR", "mrr": "RR", "ap": "AP", "map": "AP",
                  "p@10": "P@10", "p10": "P@10", "p_10": "P@10"}


def _data_root() -> Path:
    return Path(str(resources.files("mrrstats") / "data"))


def _trec7_scores_iv(measure):
    if not isinstance(measure, str):
        raise ParameterTypeError(f"`measure` must be a string, got {type(measure).__name__}")
    name = _TREC7_ALIASES.get(measure.strip().lower())
    if name is None:
        raise ParameterError(f"`measure` must be one of {list(TREC7_MEASURES)}, got {measure!r}")
    return name


def trec7_scores(measure: Literal["RR", "AP", "P@10"] = "RR") -> pd.DataFrame:
    """Per-topic scores of the 103 TREC-7 ad hoc runs on the 50 topics.

    Parameters
    ----------
    measure : {"RR", "AP", "P@10"}
        Reciprocal rank, average precision or precision at 10 (as computed by
        trec_eval; rounded to 4 decimals by the source). Lower-case aliases
        (``"rr"``, ``"map"``, ``"p10"``) are accepted.

    Returns
    -------
    pandas.DataFrame
        One row per topic (index ``query``, ``"1"`` to ``"50"``), one column
        per run (``run1`` ... ``run103``), float64;
        ``frame.attrs["measure"]`` holds the canonical measure name.

    Notes
    -----
    Data: J. Urbano, H. Lima and A. Hanjalic, "Statistical Significance
    Testing in Information Retrieval: An Empirical Analysis of Type I, Type II
    and Type III Errors", SIGIR 2019 (julian-urbano/sigir2019-statistical @
    dc9f891c, ``data/``), CC BY-SA 4.0.

    Examples
    --------
    >>> from mrrstats.datasets import trec7_scores
    >>> rr = trec7_scores("RR")
    >>> rr.shape, rr.attrs["measure"]
    ((50, 103), 'RR')
    >>> print(round(float((rr == 1).to_numpy().mean()), 3))
    0.538
    """
    name = _trec7_scores_iv(measure)
    frame = read_score_matrix(_data_root() / "trec7" / _TREC7_FILES[name])
    frame.attrs["measure"] = name
    return frame


@dataclass(frozen=True, eq=False)
class KnowledgeGraph:
    """A link-prediction graph with its standard splits.

    Attributes
    ----------
    name : str
    entities : tuple of str
        Entity labels, sorted; an entity's id is its position here.
    relations : tuple of str
        Relation labels, sorted; ids as for entities.
    train, valid, test : numpy.ndarray
        Integer arrays of shape ``(n, 3)``: ``head, relation, tail`` ids.
    path : pathlib.Path
        Folder of the bundled files.
    """

    name: str
    entities: tuple
    relations: tuple
    train: np.ndarray = field(repr=False)
    valid: np.ndarray = field(repr=False)
    test: np.ndarray = field(repr=False)
    path: Path = field(repr=False)

    @property
    def n_entities(self) -> int:
        return len(self.entities)

    @property
    def n_relations(self) -> int:
        return len(self.relations)

    def triples(self, split: str = "train") -> pd.DataFrame:
        """Labelled triples of one split (``"train"``, ``"valid"``, ``"test"`` or ``"all"``)."""
        if split == "all":
            ids = np.concatenate([self.train, self.valid, self.test])
        elif split in ("train", "valid", "test"):
            ids = getattr(self, split)
        else:
            raise ParameterError(
                f"`split` must be 'train', 'valid', 'test' or 'all', got {split!r}")
        ent = np.asarray(self.entities, dtype=object)
        rel = np.asarray(self.relations, dtype=object)
        return pd.DataFrame({"head": ent[ids[:, 0]], "relation": rel[ids[:, 1]],
                             "tail": ent[ids[:, 2]]})


def _kg_graph_iv(name):
    if not isinstance(name, str):
        raise ParameterTypeError(f"`name` must be a string, got {type(name).__name__}")
    key = name.strip().lower()
    if not isinstance(key, str | None) or key not in KG_GRAPHS:
        raise ParameterError(f"`name` must be one of {list(KG_GRAPHS)}, got {name!r}")
    return key


def kg_graph(name: Literal["nations", "kinship", "umls"] = "nations") -> KnowledgeGraph:
    """One of the bundled link-prediction graphs: Nations, Kinship or UMLS.

    Parameters
    ----------
    name : {"nations", "kinship", "umls"}

    Returns
    -------
    KnowledgeGraph
        Entities and relations are numbered in sorted label order; the
        splits are integer id arrays ``(head, relation, tail)``.

    Notes
    -----
    Data: T. Dettmers, P. Minervini, P. Stenetorp and S. Riedel,
    "Convolutional 2D Knowledge Graph Embeddings", AAAI 2018
    (TimDettmers/ConvE @ f3c0eb28), MIT licence.

    Examples
    --------
    >>> from mrrstats.datasets import kg_graph
    >>> g = kg_graph("nations")
    >>> g.n_entities, g.n_relations, g.train.shape, g.test.shape
    (14, 55, (1592, 3), (201, 3))
    """
    key = _kg_graph_iv(name)
    root = _data_root() / "kg" / key
    labelled = {}
    for split in ("train", "valid", "test"):
        labelled[split] = pd.read_csv(root / f"{split}.txt", sep="\t", header=None,
                                      names=["head", "relation", "tail"], dtype=str,
                                      keep_default_na=False)
    allt = pd.concat(labelled.values())
    entities = tuple(sorted(set(allt["head"]) | set(allt["tail"])))
    relations = tuple(sorted(set(allt["relation"])))
    e_id = {e: i for i, e in enumerate(entities)}
    r_id = {r: i for i, r in enumerate(relations)}
    ids = {s: np.column_stack([f["head"].map(e_id).to_numpy(np.int64),
                               f["relation"].map(r_id).to_numpy(np.int64),
                               f["tail"].map(e_id).to_numpy(np.int64)])
           for s, f in labelled.items()}
    return KnowledgeGraph(key, entities, relations, ids["train"], ids["valid"], ids["test"],
                          root)


@dataclass(frozen=True)
class ExampleData:
    """Paths of a bundled data set.

    Attributes
    ----------
    name : str
    qrels : pathlib.Path
    runs : list of pathlib.Path
    licence : pathlib.Path
    description : str
    """

    name: str
    qrels: Path
    runs: list
    licence: Path
    description: str


def cast2021() -> ExampleData:
    """The TREC CAsT 2021 organiser baselines (MIT licence, J. Dalton).

    Five document runs over 239 conversation turns and graded qrels (0-4) for
    the 158 judged turns.

    Examples
    --------
    >>> from mrrstats import datasets
    >>> data = datasets.cast2021()
    >>> [p.name for p in data.runs][:2], data.qrels.name
    (['org_convdr.run.gz', 'org_convdr_bert.run.gz'], 'trec-cast-qrels-docs.2021.qrel.gz')
    """
    root = _data_root() / "cast2021"
    runs = sorted((root / "runs").glob("*.run.gz"))
    return ExampleData(
        name="cast2021",
        qrels=root / "qrels" / "trec-cast-qrels-docs.2021.qrel.gz",
        runs=runs,
        licence=root / "LICENSE",
        description="TREC CAsT 2021 organiser baselines (daltonj/treccastweb @ 33846610, MIT)",
    )


@dataclass(frozen=True, eq=False)
class JudgedExample:
    """An evaluation with a simulated LLM judge and people labelling a subset of queries.

    Attributes
    ----------
    runs : list of pathlib.Path
    qrels : Qrels
        The full human qrels (for checking: a real study has only ``human_qrels``).
    judge_qrels : Qrels
        The judge's labels of every judged pair of every query.
    human_qrels : Qrels
        People's labels of the human-labelled queries only.
    confusion : pandas.DataFrame
        The judge's confusion matrix (rows: human grade, columns: judge grade).
    human_share : float
    seed : int or None
        The seed of the draws (None when a Generator was passed).
    description : str
    """

    runs: list
    qrels: object = field(repr=False)
    judge_qrels: object = field(repr=False)
    human_qrels: object = field(repr=False)
    confusion: pd.DataFrame = field(repr=False)
    human_share: float
    seed: int | None
    description: str


def cast2021_judged(flip: float = 1 / 12, human_share: float = 0.4, *,
                    rng: int = 2021) -> JudgedExample:
    """CAsT 2021 with a simulated LLM judge and a random human-labelled subset of queries.

    The judge moves each label to an adjacent grade with probability ``flip``
    (up 60 % of the time: :func:`mrrstats.agreement.judges.judge_confusion`),
    independently; ``human_share`` of the 158 judged queries, drawn at
    random, keep their human labels. Both draws use ``rng`` (by default the
    fixed seed 2021: the same data every call; ``None`` draws fresh entropy,
    recorded in ``seed``).

    Examples
    --------
    >>> from mrrstats import datasets
    >>> data = datasets.cast2021_judged()
    >>> len(data.judge_qrels.query_ids), len(data.human_qrels.query_ids)
    (158, 63)
    >>> print(data.confusion.round(3).to_string())
    judge      0      1      2      3      4
    human
    0      0.917  0.083  0.000  0.000  0.000
    1      0.033  0.917  0.050  0.000  0.000
    2      0.000  0.033  0.917  0.050  0.000
    3      0.000  0.000  0.033  0.917  0.050
    4      0.000  0.000  0.000  0.083  0.917
    """
    if not 0.0 < float(human_share) <= 1.0:
        raise ParameterError(f"`human_share` must be in (0, 1], got {human_share!r}")
    base = cast2021()
    qrels = read_qrels(base.qrels)
    gen, seed = rng_iv(rng)
    judge = simulate_judge(qrels, flip, rng=gen)
    ids = np.sort(np.asarray(qrels.query_ids, dtype=str))
    chosen = gen.choice(ids, size=max(2, round(human_share * ids.size)), replace=False)
    keep = np.isin(qrels.query.astype(str), chosen)
    human = Qrels(qrels.query[keep], qrels.doc[keep], qrels.grade[keep],
                  f"{qrels.source} (human-labelled subset, seed {seed})")
    return JudgedExample(base.runs, qrels, judge.qrels, human, judge.confusion,
                         float(human_share), seed,
                         f"{base.description}; judge flipping {flip:.3g} of the labels, people "
                         f"labelling {human_share:.0%} of the queries (seed {seed})")
