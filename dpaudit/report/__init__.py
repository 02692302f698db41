"""Reports of an audit run, all rendered from the typed :class:`RunReport`: results.json (the
source of truth, read back by :func:`read_report`), summary.md, report.html, junit.xml,
figures, and the diff of two runs."""

from dpaudit.report.diff import RunDiff, diff_reports
from dpaudit.report.figures import Figures, write_figures
from dpaudit.report.html import render_html, write_html
from dpaudit.report.json_report import (Provenance, RunReport, RunSummary, build_report,
                                        to_jsonable)
from dpaudit.report.junit import render_junit, write_junit
from dpaudit.report.markdown import render_markdown, write_markdown
from dpaudit.report.results_file import (ResultsFileError, read_document, read_report,
                                         write_results)

__all__ = ["Figures", "Provenance", "ResultsFileError", "RunDiff", "RunReport", "RunSummary",
           "build_report", "diff_reports", "read_document", "read_report", "render_html",
           "render_junit", "render_markdown", "to_jsonable", "write_figures", "write_html",
           "write_junit", "write_markdown", "write_results"]
