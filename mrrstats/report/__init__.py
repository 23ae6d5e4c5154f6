"""Plots that draw result objects, and the report builder with its notebook template."""

from . import plots  # matplotlib is imported lazily inside each plot function
from .builder import (
                      ReportData,
                      ReportResult,
                      load_report,
                      make_report,
                      power_table,
                      recompute_report,
)

__all__ = ["plots", "ReportData", "ReportResult", "load_report", "make_report", "power_table",
           "recompute_report"]
