"""Where the real reference data of the tests and benchmarks lives: in this repository.

``tests/data/`` holds what only the tests and benchmarks read (trec_eval's regression
fixtures and source, the CAsT 2021 expected outputs, the TREC score matrices); the
pieces the package already ships in ``mrrstats/data/`` (the CAsT 2021 runs and qrels,
the TREC-7 matrices, the link-prediction graphs) are read there, not copied twice.
Provenance and licences: ``tests/data/README.md``. Nothing here skips: a missing file
is an error.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEST_DATA = ROOT / "tests" / "data"
PACKAGE_DATA = ROOT / "mrrstats" / "data"

# Logical paths (as in tests/data/README.md) served by the package's own copy.
_IN_PACKAGE: dict[tuple[str, ...], Path] = {
    ("kg",): PACKAGE_DATA / "kg",
    ("cast2021", "runs"): PACKAGE_DATA / "cast2021" / "runs",
    ("cast2021", "qrels"): PACKAGE_DATA / "cast2021" / "qrels",
    **{
        ("score_matrices", "trec_adhoc", f"adhoc7_{m}.csv"): PACKAGE_DATA
        / "trec7"
        / f"adhoc7_{m}.csv"
        for m in ("ap", "p10", "rr")
    },
}

CAST_QRELS = ("cast2021", "qrels", "trec-cast-qrels-docs.2021.qrel.gz")


def data_path(*parts: str) -> Path:
    """The repository's copy of the reference file or folder ``parts``.

    Raises
    ------
    FileNotFoundError
        When the repository has no such file: a test that needs it fails, never skips.
    """
    path = TEST_DATA.joinpath(*parts)
    for n in range(len(parts), 0, -1):
        base = _IN_PACKAGE.get(tuple(parts[:n]))
        if base is not None:
            path = base.joinpath(*parts[n:])
            break
    if not path.exists():
        raise FileNotFoundError(f"reference data missing from the repository: {path}")
    return path


def score_matrices() -> dict[str, Path]:
    """Every real TREC score matrix, ``{"trec_adhoc/adhoc5_ap.csv": path, ...}``, sorted.

    TREC-5/6/7 ad hoc (AP, P@10, RR) and TREC Web 2010/2011/2013 (AP, ERR@20, nDCG@20,
    P@10, P@20, RR): 27 matrices (Urbano et al., CC BY-SA 4.0).
    """
    names = [f"{p.parent.name}/{p.name}" for p in (TEST_DATA / "score_matrices").glob("*/*.csv")]
    names += [f"trec_adhoc/adhoc7_{m}.csv" for m in ("ap", "p10", "rr")]
    return {name: data_path("score_matrices", *name.split("/")) for name in sorted(names)}
