"""Where the calibration studies find real per-topic score matrices.

The studies behind the documented defaults (Type I error, coverage, interval/decision
agreement) use every real TREC matrix of the repository: the 27 of TREC-5/6/7 ad hoc and
TREC Web 2010/2011/2013 (J. Urbano et al., CC BY-SA 4.0), listed by
``tests/reference_data.py`` (``tests/data/score_matrices`` and the TREC-7 matrices the
package bundles in ``mrrstats/data/trec7``; provenance in ``tests/data/README.md``).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from mrrstats.io import read_score_matrix  # noqa: E402
from tests.reference_data import score_matrices  # noqa: E402

MATRICES = score_matrices()


def available(names=None):
    """The matrix names (``collection/file.csv``) of the repository, in order."""
    return list(MATRICES) if names is None else [n for n in names if n in MATRICES]


def load(name):
    """One matrix as a DataFrame (rows = topics, columns = systems)."""
    return read_score_matrix(MATRICES[name])
