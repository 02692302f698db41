"""Report formats as an open table: what ``dpaudit run`` writes after a run and ``dpaudit report
--format`` re-renders from a results.json, registered like mechanism families.

A format is a :class:`ReportFormat` subclass — a ``name`` (what ``--format`` says), the
``filename`` it writes in the output directory, a one-line ``description`` (``--help``),
whether a run writes it ``by_default``, and :meth:`~ReportFormat.write`, which renders a
:class:`~dpaudit.report.json_report.RunReport` to a path atomically
(:func:`dpaudit.util.atomic.write_text_atomic`: never a half-written file) given a
:class:`RenderContext` (where figures and links are).  :meth:`~ReportFormat.unavailable` says
why it cannot be written in this installation (checked before anything is written).

The built-in formats, in the order a run writes them: ``md`` (summary.md), ``junit``
(junit.xml), ``html`` (report.html) and — on request only — ``comment`` (comment.md, the
pull-request comment cut to fit).  A package adds one with :func:`register_report_format` or
an entry point::

    [project.entry-points."dpaudit.report_formats"]
    sarif = "my_package.sarif:SarifFormat"        # the class's name must be "sarif"

results.json is not a format: it is the run's source of truth, written first by every run and
read by every format (:mod:`dpaudit.report.results_file`).
"""

from __future__ import annotations

import abc
import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from dpaudit.util.plugins import EntryPointRows

ENTRY_POINT_GROUP = "dpaudit.report_formats"


@dataclass(frozen=True)
class RenderContext:
    """Where a report's surroundings are.

    Attributes:
      out: the directory the report is written to.
      link_dir: the directory summary.md's figure links start from (as the user gave it;
        :func:`dpaudit.report.markdown.link_base`).
      figure_dir: where the figures results.json names were drawn (next to results.json).
      figures_drawn: whether they were (a stopped run draws none; report.html then draws no
        figure of its own either).
      results: the results.json the report was read from or written to, or None.
      link: where the full report is (a CI run's page), for the pull-request comment.
      comment_limit: the most characters of the pull-request comment.
      power: report.html's power figures when drawn already, in another process
        (:func:`dpaudit.report.html.power_figures`); None: the page draws them.
    """

    out: Path
    link_dir: str | Path
    figure_dir: Path
    figures_drawn: bool = True
    results: Path | None = None
    link: str | None = None
    comment_limit: int | None = None
    power: dict | None = None


class ReportFormat(abc.ABC):
    """One kind of report file (module docstring)."""

    name: ClassVar[str] = ""
    filename: ClassVar[str] = ""
    description: ClassVar[str] = ""
    by_default: ClassVar[bool] = False  # written by every `dpaudit run` and bare `report`

    def unavailable(self) -> str | None:
        """Why this format cannot be written in this installation (a missing optional
        dependency), or None."""
        return None

    @abc.abstractmethod
    def write(self, report, path: Path, context: RenderContext) -> Path:
        """Render ``report`` to ``path`` atomically and return the path."""


class MarkdownFormat(ReportFormat):
    name, filename, by_default = "md", "summary.md", True
    description = "summary.md: every audit point, its verdict and certificates"

    def write(self, report, path, context):
        from dpaudit.report.markdown import link_base, write_markdown

        return write_markdown(report, path, out_dir=link_base(context.link_dir))


class JUnitFormat(ReportFormat):
    name, filename, by_default = "junit", "junit.xml", True
    description = "junit.xml: one test case per audit point, for CI test views"

    def write(self, report, path, context):
        from dpaudit.report.junit import write_junit

        return write_junit(report, path)


class HtmlFormat(ReportFormat):
    name, filename, by_default = "html", "report.html", True
    description = "report.html: one self-contained page with its figures"

    def unavailable(self):
        try:
            importlib.import_module("dpaudit.report.html")  # Jinja2 and the template
        except ImportError as exc:
            return f"the HTML report is not available in this installation ({exc})"
        return None

    def write(self, report, path, context):
        from dpaudit.report.html import write_html

        return write_html(report, path, figure_dir=context.figure_dir,
                          figures=context.figures_drawn, power=context.power)


class CommentFormat(ReportFormat):
    name, filename = "comment", "comment.md"
    description = ("comment.md: diff.md (beside results.json) and summary.md cut to fit a "
                   "pull-request comment")

    def write(self, report, path, context):
        from dpaudit.report.comment import GITHUB_COMMENT_LIMIT, write_comment
        from dpaudit.report.markdown import link_base, render_markdown

        diff = None if context.results is None else context.results.parent / "diff.md"
        sections = [diff.read_text(encoding="utf-8") if diff is not None and diff.is_file()
                    else "", render_markdown(report, out_dir=link_base(context.link_dir))]
        return write_comment(sections, path, limit=context.comment_limit or
                             GITHUB_COMMENT_LIMIT, link=context.link)


_FORMATS: dict[str, type[ReportFormat]] = {}


def register_report_format(cls: type[ReportFormat]) -> type[ReportFormat]:
    """Add a format class to the table under its ``name`` (usable as a decorator).

    Raises:
      ValueError: not a ReportFormat subclass with a name and a file name, a file name that
        is not a plain name or is results.json, or a name or file taken by another class.
    """
    if not (isinstance(cls, type) and issubclass(cls, ReportFormat)) or not cls.name \
            or not cls.filename:
        raise ValueError(f"{cls!r} is not a ReportFormat subclass with a name and a filename")
    if Path(cls.filename).name != cls.filename or cls.filename == "results.json":
        raise ValueError(f"report format {cls.name!r}: filename must be a plain file name "
                         f"other than results.json, got {cls.filename!r}")
    held = _FORMATS.get(cls.name)
    if held is not None and held is not cls:
        raise ValueError(f"report format {cls.name!r} is already {held.__qualname__}")
    clash = [f for f in _FORMATS.values() if f.filename == cls.filename and f is not cls]
    if clash:
        raise ValueError(f"report format {cls.name!r}: {cls.filename} is already written by "
                         f"{clash[0].name!r}")
    _FORMATS[cls.name] = cls
    return cls


for _cls in (MarkdownFormat, JUnitFormat, HtmlFormat, CommentFormat):
    register_report_format(_cls)


_PLUGINS = EntryPointRows(ENTRY_POINT_GROUP, "name", register_report_format)


def report_formats() -> dict[str, ReportFormat]:
    """Every format by name, built-ins first (in the order a run writes them)."""
    _PLUGINS.load()
    return {name: cls() for name, cls in _FORMATS.items()}


def default_report_formats() -> tuple[str, ...]:
    """The names a run writes, and ``dpaudit report`` without ``--format``."""
    return tuple(name for name, fmt in report_formats().items() if fmt.by_default)


__all__ = ["ENTRY_POINT_GROUP", "CommentFormat", "HtmlFormat", "JUnitFormat", "MarkdownFormat",
           "RenderContext", "ReportFormat", "default_report_formats", "register_report_format",
           "report_formats"]
