"""Reports of an audit run, all rendered from the typed :class:`RunReport`: results.json (the
source of truth), summary.md, report.html and figures."""

from dpaudit.report.figures import Figures, write_figures
from dpaudit.report.html import render_html, write_html
from dpaudit.report.json_report import (Provenance, RunReport, RunSummary, build_report,
                                        read_json, to_jsonable, write_json)
from dpaudit.report.markdown import render_markdown, write_markdown

__all__ = ["Figures", "Provenance", "RunReport", "RunSummary", "build_report", "read_json",
           "render_html", "render_markdown", "to_jsonable", "write_figures", "write_html",
           "write_json", "write_markdown"]
