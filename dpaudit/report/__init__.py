"""Reports of a run: results.json (the source of truth), summary.md, report.html and figures,
all rendered from the typed :class:`RunReport`."""

from dpaudit.report.figures import Figures, write_figures
from dpaudit.report.html import render_html, write_html
from dpaudit.report.json_report import (Provenance, RunReport, RunSummary, build_report,
                                        to_jsonable)
from dpaudit.report.markdown import render_markdown, write_markdown
from dpaudit.report.results_file import (ResultsFileError, read_document, read_report,
                                         write_results)

__all__ = ["Figures", "Provenance", "RunReport", "RunSummary", "ResultsFileError",
           "build_report", "read_document", "read_report", "render_html", "render_markdown",
           "to_jsonable", "write_figures", "write_html", "write_markdown", "write_results"]
