"""Where the calibration studies find real per-topic score matrices.

The studies behind the documented defaults (Type I error, coverage, interval/decision
agreement) use every real TREC matrix at hand: ``$MRRSTATS_SHARED_DATA/score_matrices``
(default ``../shared/data`` beside the repository: TREC-5/6/7 ad hoc and TREC Web,
J. Urbano et al., CC BY-SA 4.0). Without it they run on the TREC-7 matrices the
package bundles (``mrrstats.datasets.trec7_scores``: RR, AP, P@10), and say so.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from mrrstats.datasets import trec7_scores
from mrrstats.io import read_score_matrix

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("MRRSTATS_SHARED_DATA", ROOT.parent / "shared" / "data")) \
    / "score_matrices"
BUNDLED = {"trec_adhoc/adhoc7_rr.csv": "RR", "trec_adhoc/adhoc7_ap.csv": "AP",
           "trec_adhoc/adhoc7_p10.csv": "P@10"}


def available(names=None):
    """The matrix names (``collection/file.csv``) that can be read here, in order."""
    if SHARED.is_dir():
        found = sorted(str(p.relative_to(SHARED)) for p in SHARED.glob("*/*.csv"))
    else:
        print(f"# {SHARED} not found: using the bundled TREC-7 matrices only", file=sys.stderr)
        found = sorted(BUNDLED)
    return found if names is None else [n for n in names if n in found]


def load(name):
    """One matrix as a DataFrame (rows = topics, columns = systems)."""
    path = SHARED / name
    if path.is_file():
        return read_score_matrix(path)
    return trec7_scores(BUNDLED[name])
