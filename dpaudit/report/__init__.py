"""Reports of a run: results.json (the source of truth), summary.md and figures."""

from dpaudit.report.figures import Figures, write_figures
from dpaudit.report.json_report import (Provenance, RunReport, RunSummary, build_report,
                                        to_jsonable)
from dpaudit.report.markdown import render_markdown, write_markdown
from dpaudit.report.results_file import (ResultsFileError, read_document, read_report,
                                         write_results)

__all__ = ["Figures", "Provenance", "RunReport", "RunSummary", "ResultsFileError",
           "build_report", "read_document", "read_report", "render_markdown", "to_jsonable",
           "write_figures", "write_markdown", "write_results"]
