"""Bundled example data: the five TREC CAsT 2021 baseline runs and their qrels."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

__all__ = ["ExampleData", "cast2021"]


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
    root = Path(str(resources.files("mrrstats") / "data" / "cast2021"))
    runs = sorted((root / "runs").glob("*.run.gz"))
    return ExampleData(
        name="cast2021",
        qrels=root / "qrels" / "trec-cast-qrels-docs.2021.qrel.gz",
        runs=runs,
        licence=root / "LICENSE",
        description="TREC CAsT 2021 organiser baselines (daltonj/treccastweb @ 33846610, MIT)",
    )
