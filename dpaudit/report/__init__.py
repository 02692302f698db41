"""Reports of an audit run: JSON (the source of truth) and Markdown rendered from it."""

from dpaudit.report.json_report import build_report, read_json, to_jsonable, write_json
from dpaudit.report.markdown import render_markdown, write_markdown

__all__ = ["build_report", "read_json", "render_markdown", "to_jsonable", "write_json",
           "write_markdown"]
