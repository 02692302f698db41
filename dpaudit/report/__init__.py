"""Reports of an audit run, all rendered from the typed :class:`RunReport`: results.json (the
source of truth, read back by :func:`read_report`), summary.md, junit.xml, figures, and the
diff of two runs."""

from dpaudit.report.diff import RunDiff, diff_reports
from dpaudit.report.figures import Figures, write_figures
from dpaudit.report.json_report import (Provenance, RunReport, RunSummary, build_report,
                                        read_json, to_jsonable, write_json)
from dpaudit.report.junit import render_junit, write_junit
from dpaudit.report.markdown import render_markdown, write_markdown
from dpaudit.report.results_file import ResultsFileError, read_report

__all__ = ["Figures", "Provenance", "ResultsFileError", "RunDiff", "RunReport", "RunSummary",
           "build_report", "diff_reports", "read_json", "read_report", "render_junit",
           "render_markdown", "to_jsonable", "write_figures", "write_json", "write_junit",
           "write_markdown"]
