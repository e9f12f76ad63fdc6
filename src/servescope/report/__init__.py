"""The static report site (``servescope report``): it reads documents and
analysis results and nothing but the CLI imports it."""

from servescope.report.site import ReportFiles, write_report

__all__ = ["ReportFiles", "write_report"]
