"""A report folder on disk: per-query data, settings, saved results, and loading them.

* ``per_query.csv`` -- :func:`write_per_query` / :func:`read_per_query`: full
  precision (``repr``) floats, read back exactly;
* ``settings.json`` -- :func:`dump_json`, :func:`read_settings`, with
  :func:`versions` and :func:`file_record` (name and SHA-256 of each input);
* ``results/`` -- :func:`save_results` writes what the notebook draws,
  :func:`load_report` reads it back into a :class:`~mrrstats.report.data.ReportData`
  (nothing is recomputed).

Every file is written with fixed float digits and ``\\n`` line ends, and holds
no timestamp: equal inputs give byte-identical files.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..agreement.multiverse import MultiverseResult
from ..errors import InputError, ParameterError, ParameterTypeError
from ..version import __version__
from .collections_section import COLLECTIONS_TABLES, load_collections
from .data import STAT_COLUMNS, ReportData
from .judged_section import JUDGED_TABLES, load_judged

if TYPE_CHECKING:
    from .._typing import PathLike

__all__ = ["FORMAT_VERSION", "REPORT_FILES", "RESULT_TABLES", "MULTIVERSE_FRAMES",
           "write_per_query", "read_per_query", "versions", "file_record", "dump_json",
           "read_settings", "save_results", "load_report", "load_multiverse"]

FORMAT_VERSION = 1
VERSION_PACKAGES = ("mrrstats", "numpy", "scipy", "pandas", "statsmodels", "matplotlib")
#: Saved results of the analysis (what the notebook draws), under ``results/``.
RESULT_TABLES = ("pairs", "means", "versus_control", "random_baseline", "rr_summary",
                 "agreement", "power", "leaderboard", "clustered", "estimation", "mixed",
                 "replicates", "calibration", "bayesian")
#: Names of 0.1 read from older folders: result file -> its old name, column -> old name.
OLD_RESULT_FILES = {"versus_control": "versus_baseline"}
#: Columns of older report folders under their current names (a folder of 0.1/0.2 that
#: wrote both the retired and the current name keeps the current one).
OLD_COLUMNS = {"versus_control": {"baseline_mean": "control_mean", "diff": "difference"},
               "pairs": {"diff": "difference"}, "clustered": {"diff": "difference"},
               "estimation": {"diff": "difference"}, "random_baseline": {"z": "zscore"}}
MULTIVERSE_FRAMES = ("summary", "systems", "pairs")
#: Files every report folder contains (tables that do not apply are omitted).
REPORT_FILES = ("report.ipynb", "report.html", "per_query.csv", "settings.json",
                "tables/comparison.md", "tables/comparison.tex", "tables/comparison.json",
                "tables/pairs.md", "tables/pairs.tex")


def write_per_query(frame, path):
    # Full precision (repr) floats, '\n' line ends: byte-identical for equal inputs.
    text = frame.to_csv(index=False, lineterminator="\n", float_format=None)
    Path(path).write_text(text, encoding="utf-8", newline="")


def read_per_query(path, measures, systems, with_stats):
    # Every column as text, numbers converted by Python's float(): exact round trip of
    # the repr() digits written by write_per_query, whatever pandas' float parser.
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise InputError(f"not a per-query table written by make_report "
                         f"({type(exc).__name__})", source=str(path)) from None
    missing = [c for c in ["system", "query", *measures] if c not in frame.columns]
    if missing:
        raise ParameterError(f"{path}: columns {missing} missing")
    for m in measures:
        frame[m] = np.array([float(v) if v != "" else np.nan for v in frame[m]],
                            dtype=np.float64)
    scores = {}
    for m in measures:
        wide = frame.pivot(index="query", columns="system", values=m)
        order = list(dict.fromkeys(frame["query"]))
        wide = wide.reindex(index=order, columns=systems).astype(np.float64)
        wide = wide.dropna(how="all")
        wide.index.name = "query"
        wide.columns.name = None
        wide.attrs["measure"] = m
        scores[m] = wide
    stats = None
    if with_stats:
        stats = frame[["system", "query", *STAT_COLUMNS]].copy()
        for c in STAT_COLUMNS:
            stats[c] = stats[c].astype(np.int64)
    return scores, stats


def versions():
    import importlib.metadata as md

    out = {"python": ".".join(map(str, sys.version_info[:3]))}
    for pkg in VERSION_PACKAGES:
        if pkg == "mrrstats":
            out[pkg] = __version__
            continue
        try:
            out[pkg] = md.version(pkg)
        except md.PackageNotFoundError:  # pragma: no cover - all are dependencies
            out[pkg] = None
    return out


def _sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def file_record(source, **extra):
    """Name and SHA-256 of an input file; in-memory inputs have neither."""
    if isinstance(source, (str, os.PathLike)):
        p = Path(source)
        return {**extra, "file": p.name, "sha256": _sha256(p)}
    return {**extra, "file": None, "sha256": None, "source": type(source).__name__}


def dump_json(obj):
    return json.dumps(obj, indent=2, allow_nan=False, ensure_ascii=False) + "\n"


def _read_json(path: Path) -> dict:
    """The JSON object in ``path``, a file make_report wrote; InputError naming it if not."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError("file not found: not a folder written by make_report",
                         source=str(path)) from None
    except UnicodeDecodeError:
        raise InputError("not a text file (not UTF-8): not written by make_report",
                         source=str(path)) from None
    except OSError as exc:
        raise InputError(f"cannot be read ({exc.strerror or type(exc).__name__})",
                         source=str(path)) from None
    try:
        obj = json.loads(text)
    except ValueError as exc:
        line = getattr(exc, "lineno", None)
        raise InputError(f"not JSON ({getattr(exc, 'msg', exc)}): not written by make_report",
                         source=str(path), line=line) from None
    if not isinstance(obj, dict):
        raise InputError(f"not a JSON object (a {type(obj).__name__}): not written by "
                         "make_report", source=str(path))
    return obj


def read_settings(path) -> dict:
    """The ``settings.json`` of a report folder (its format checked).

    A folder of mrrstats 0.1 names the control system ``"baseline"``: it is
    given as ``"control"`` too (and ``"baseline"`` kept, for its notebook).
    """
    path = Path(path)
    settings = _read_json(path / "settings.json")
    if settings.get("format") != FORMAT_VERSION:
        raise ParameterError(f"{path / 'settings.json'}: unknown report format "
                         f"{settings.get('format')!r}")
    if "control" not in settings and "baseline" in settings:
        settings["control"] = settings["baseline"]
    return settings


def save_results(data, folder):
    """Write what the notebook draws under ``folder``; returns the relative file names."""
    written = []
    for name in RESULT_TABLES:
        frame = getattr(data, name)
        if frame is None:
            continue
        index = name in ("random_baseline", "rr_summary")
        text = frame.to_csv(index=index, lineterminator="\n", float_format=None)
        (folder / f"{name}.csv").write_text(text, encoding="utf-8", newline="")
        written.append(f"results/{name}.csv")
    if data.null_distribution is not None:
        with open(folder / "null_distribution.npy", "wb") as fh:
            np.save(fh, np.ascontiguousarray(data.null_distribution, dtype="<f8"),
                    allow_pickle=False)
        written.append("results/null_distribution.npy")
    for name, frame in (("segments", data.segments), ("segment_means", data.segment_means),
                        *((n, getattr(data, n)) for n in JUDGED_TABLES),
                        *((n, getattr(data, n)) for n in COLLECTIONS_TABLES)):
        if frame is not None:
            text = frame.to_csv(index=False, lineterminator="\n", float_format=None)
            (folder / f"{name}.csv").write_text(text, encoding="utf-8", newline="")
            written.append(f"results/{name}.csv")
    mv = data.multiverse
    if mv is not None:
        for name in MULTIVERSE_FRAMES:
            text = getattr(mv, name).to_csv(index=False, lineterminator="\n",
                                            float_format=None)
            (folder / f"multiverse_{name}.csv").write_text(text, encoding="utf-8", newline="")
            written.append(f"results/multiverse_{name}.csv")
    manifest = {"focus": _json_floats(data.focus), "notes": list(data.notes),
                "power": None if data.power is None else dict(data.power.attrs),
                "multiverse": None if mv is None else {
                    "reference": mv.reference, "test": mv.test, "correction": mv.correction,
                    "alpha": mv.alpha}}
    (folder / "results.json").write_text(dump_json(manifest), encoding="utf-8", newline="")
    written.append("results/results.json")
    return written


def _json_floats(obj):
    """Non-finite floats as the strings "inf", "-inf", "nan" (strict JSON has none)."""
    if isinstance(obj, dict):
        return {k: _json_floats(v) for k, v in obj.items()}
    if isinstance(obj, float) and not math.isfinite(obj):
        return "nan" if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    return obj


def _float_fields(obj, names=("ci_low", "ci_high")):
    """Undo :func:`_json_floats` for the interval bounds."""
    if obj is None:
        return None
    return {k: (float(v) if k in names else v) for k, v in obj.items()}


def _read_csv(path, index):
    # pandas' default float parser round-trips the repr() digits written above
    # (checked in tests/report/test_report.py against the in-memory results, exactly)
    return pd.read_csv(path, index_col=0 if index else None)


def load_report(path: PathLike, *, progress: bool = False) -> ReportData:
    """Load a report's saved results (nothing is recomputed).

    Parameters
    ----------
    path : path
        A folder written by :func:`mrrstats.make_report` (of this version or 0.1).
    progress : bool, keyword-only
        Unused (kept for compatibility: loading runs no analysis).

    Returns
    -------
    ReportData
        The per-query data, the settings and the saved results of the
        analysis (``results/``); ``comparison`` is None (its tables are the
        files in ``tables/``).
    """
    if not isinstance(path, str | os.PathLike):
        raise ParameterTypeError(f"`path` must be a report folder, got {type(path).__name__}",
                                 name="path")
    if progress is not None and not isinstance(progress, bool):
        raise ParameterTypeError(f"`progress` must be True or False, got {progress!r:.60}",
                                 name="progress")
    path = Path(path)
    if not path.is_dir():
        raise ParameterError(f"`path` must be a folder written by make_report, got {path} "
                             f"(not a folder)", name="path")
    settings = read_settings(path)
    missing = [k for k in ("evaluated_measures", "systems", "input")
               if k not in settings]
    if missing or not isinstance(settings["input"], dict) or "kind" not in settings["input"]:
        raise InputError(f"settings {missing or ['input.kind']} missing: not written by "
                         "make_report", source=str(path / "settings.json"))
    if not (path / "results" / "results.json").is_file():
        raise ParameterError(f"{path}: no saved results (results/results.json); make the report "
                         "again with this version of mrrstats")
    scores, stats = read_per_query(path / "per_query.csv", settings["evaluated_measures"],
                                   settings["systems"], settings["input"]["kind"] == "runs")
    res = path / "results"
    manifest = _read_json(res / "results.json")
    tables = {}
    for name in RESULT_TABLES:
        f = res / f"{name}.csv"
        if not f.is_file() and name in OLD_RESULT_FILES:
            f = res / f"{OLD_RESULT_FILES[name]}.csv"
        t = _read_csv(f, name in ("random_baseline", "rr_summary")) if f.is_file() else None
        tables[name] = t
        if t is not None and name in OLD_COLUMNS:
            old = {o: n for o, n in OLD_COLUMNS[name].items() if o in t.columns}
            t = t.drop(columns=[o for o, n in old.items() if n in t.columns])
            tables[name] = t.rename(columns=old)
    if tables["power"] is not None and manifest.get("power"):
        tables["power"].attrs.update(manifest["power"])
    if tables["agreement"] is not None:
        tables["agreement"].attrs["measures"] = list(settings["measures"])
    null = None
    if (res / "null_distribution.npy").is_file():
        null = np.load(res / "null_distribution.npy", allow_pickle=False)
    segs = {name: (pd.read_csv(res / f"{name}.csv", dtype={"segment": str})
                   if (res / f"{name}.csv").is_file() else None)
            for name in ("segments", "segment_means")}
    return ReportData(multiverse=load_multiverse(res, manifest), **load_judged(res),
                      **load_collections(res),
                      segments=segs["segments"], segment_means=segs["segment_means"],
                      leaderboard=tables["leaderboard"], clustered=tables["clustered"],
                      estimation=tables["estimation"], mixed=tables["mixed"],
                      replicates=tables["replicates"], calibration=tables["calibration"],
                      bayesian=tables["bayesian"],
                      scores=scores, query_stats=stats, settings=settings, comparison=None,
                      versus_control=tables["versus_control"],
                      random_baseline=tables["random_baseline"],
                      rr_summary=tables["rr_summary"], agreement=tables["agreement"],
                      notes=tuple(manifest.get("notes", ())), pairs=tables["pairs"],
                      means=tables["means"], focus=_float_fields(manifest.get("focus")),
                      null_distribution=null, power=tables["power"])


def load_multiverse(folder, manifest):
    """The saved :class:`MultiverseResult` of a report, or None."""
    meta = manifest.get("multiverse")
    if not meta:
        return None
    frames = {}
    for name in MULTIVERSE_FRAMES:
        frame = pd.read_csv(folder / f"multiverse_{name}.csv", dtype={"cutoff": str})
        frames[name] = frame
    return MultiverseResult(frames["systems"], frames["pairs"], frames["summary"],
                            meta["reference"], meta["test"], meta["correction"],
                            meta["alpha"])
