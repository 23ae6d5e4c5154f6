"""Plots that draw result objects, and the reproducible report with its notebook.

* :mod:`.plots` -- the figures (one module per plot family);
* :func:`make_report` (:mod:`.builder`) -- evaluate, test and write a report
  folder, in steps: :mod:`.analysis` runs every analysis once, :mod:`.tables`
  renders the tables, :mod:`.storage` writes and reads the folder
  (:func:`load_report`), :mod:`.notebook` executes the notebook and exports
  the page; :mod:`.data` holds :class:`ReportData` and :class:`ReportResult`;
  :mod:`.sections` computes the newer sections.
"""

from typing import TYPE_CHECKING

from ..lazy import attach as _attach

# Public names are imported when first used (SPEC 1 lazy loading, mrrstats.lazy).
__getattr__, __dir__, _names = _attach(__name__, {
    "analysis": ["power_table", "recompute_report"],
    "builder": ["make_report"],
    "data": ["ReportData", "ReportResult"],
    "storage": ["REPORT_FILES", "load_report"],
}, submodules=["plots"])

if TYPE_CHECKING:  # the names of the table above, for type checkers
    from . import plots
    from .analysis import power_table, recompute_report
    from .builder import make_report
    from .data import ReportData, ReportResult
    from .storage import REPORT_FILES, load_report

__all__ = ["plots", "ReportData", "ReportResult", "load_report", "make_report", "power_table",
           "recompute_report", "REPORT_FILES"]
