"""``report.html`` — one self-contained HTML page rendered from the typed run report.

:func:`render_html` turns a :class:`~dpaudit.report.json_report.RunReport` (what
results.json is written from, and what ``dpaudit.report.results_file.read_report`` reads back)
into one HTML document with the Jinja2 template ``templates/report.html.j2`` (autoescaped:
every name, message and expression from the run is escaped text).  The page needs nothing
else: the stylesheet and the ~50-line sorting/filtering script are inline, figures are inline
SVG (:mod:`dpaudit.report.svg`, drawn by the same functions as the PNGs of
:mod:`dpaudit.report.figures`, plus :mod:`dpaudit.report.power_figure`), claims are
presentation MathML (:mod:`dpaudit.report.mathml`).  It contains no ``src`` or ``href`` to
any other address: opening it makes no network request.

Order of the page: overview (certificates by verdict, audits met/total, unmet expectations,
errors, exact-only violations), per suite file a sortable, filterable table with one row per
certificate (violations marked, class ``verdict-violation``), per audit a ``<details>``
section (claim as text and MathML, parameters, per certificate the pair and the certificate —
event, numerator, counts k/n per side, Clopper–Pearson bounds, per-bound significance,
confidence — and figures: the privacy curve with the exact curve where known and, per
consistent ε(δ) certificate, its power), series, errors one line each, provenance.

Without matplotlib (the ``report`` extra) the page is complete except for the figures, and
says that they need ``dpaudit[report]``.
"""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from dpaudit.atomic import write_text_atomic
from dpaudit.numbers import format_number
from dpaudit.results.records import describe_exception
from dpaudit.report import html_model
from dpaudit.report.figures import (curve_figure, matplotlib_available, series_figure,
                                    sweep_figure)
from dpaudit.report.json_report import RunReport
from dpaudit.report.power_figure import power_figure
from dpaudit.report.svg import figure_svg

if TYPE_CHECKING:
    import jinja2

TEMPLATE = "report.html.j2"


def environment() -> jinja2.Environment:
    """The Jinja2 environment of the report templates (package data of
    ``dpaudit.report``; autoescape on)."""
    import jinja2  # imported when a page is rendered, not by import dpaudit.api

    env = jinja2.Environment(loader=jinja2.PackageLoader("dpaudit.report", "templates"),
                             autoescape=jinja2.select_autoescape(["html", "j2"],
                                                                 default=True),
                             trim_blocks=True, lstrip_blocks=True,
                             undefined=jinja2.StrictUndefined)
    env.filters["num"] = format_number
    return env


class _SvgMaker:
    """Draws figures to inline SVG with ids unique in the document.  A figure that fails to
    draw (e.g. a name matplotlib cannot typeset) costs that figure only: the call returns
    ``(None, "ExceptionType: message")`` and the page shows the message in its place."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, draw, data) -> tuple[str | None, str | None]:
        try:
            figure = draw(data)
            if figure is None:
                return None, None
            self.count += 1
            return figure_svg(figure, prefix=f"fig{self.count}"), None
        except Exception as exc:  # noqa: BLE001 - reported on the page, the rest renders
            return None, describe_exception(exc)


def _attach_figures(sections: list[dict], report: RunReport, svg: _SvgMaker) -> list[dict]:
    """Put each curve's figure and each consistent dp certificate's power figure into its
    audit's section; return the series with their figures."""
    by_audit = {(s["suite_file"], s["audit"]): s for s in sections}
    for curve in report.curves_json():
        section = by_audit.get((curve.get("suite_file"), curve.get("audit")))
        if section is None:
            continue
        if curve.get("kind") == "sweep":
            caption = (f"ε over {curve['parameter']} at δ = {format_number(curve['delta'])}, "
                       f"pair {curve['pair']}")
            drawn, error = svg(sweep_figure, curve)
        else:
            sweep = curve.get("sweep")
            caption = f"privacy curve of pair {curve['pair']}" + (
                f" at {sweep['parameter']} = {format_number(sweep['value'])}"
                if sweep else "")
            drawn, error = svg(curve_figure, curve)
        section["figures"].append({"caption": caption, "svg": drawn, "error": error})
    for section in sections:
        for entry in section["certificates"]:
            certificate = entry["certificate"]
            if certificate.verdict == "consistent" and certificate.notion == "dp":
                draw = partial(power_figure, audit=entry["point"].audit,
                               pair=entry["test"].pair_name)
                entry["power_svg"], entry["power_error"] = svg(draw, certificate)
    series = []
    for s in report.series_json():
        drawn, error = ((None, None) if s.get("error") or not s.get("y")
                        else svg(series_figure, s))
        series.append({**s, "svg": drawn, "figure_error": error})
    return series


def render_html(report: RunReport, *, figures: bool = True) -> str:
    """The report.html text of ``report``.

    Args:
      report: the typed run report (``build_report`` of a run, or read from results.json).
      figures: draw the inline SVG figures (needs matplotlib; without it, or with False, the
        page says where the figures would be).
    Returns:
      A complete HTML5 document (UTF-8 text).
    """
    sections = html_model.audit_sections(report)
    draw = figures and matplotlib_available()
    series = (_attach_figures(sections, report, _SvgMaker()) if draw else
              [{**s, "svg": None, "figure_error": None} for s in report.series_json()])
    run, prov = report.run, report.provenance
    samples = sorted({test.samples for point in run.points for test in point.tests})
    context = {
        "title": f"dpaudit report — {prov.command}",
        "overview": html_model.overview(report),
        "tables": html_model.suite_tables(report),
        "sections": sections,
        "series": series,
        "errors": html_model.error_lines(report),
        "provenance": prov,
        "run": {"profile": run.profile, "workers": run.workers, "backend": run.backend,
                "seconds": format_number(run.seconds, 3),
                "samples": (f"{samples[0]:,}" if len(samples) == 1 else
                            f"{samples[0]:,}–{samples[-1]:,}") if samples else "—"},
        "figures": draw,
        "figures_missing": figures and not draw,
    }
    return environment().get_template(TEMPLATE).render(**context)


def write_html(report: RunReport, path: str | os.PathLike, *, figures: bool = True) -> Path:
    """Write :func:`render_html` of ``report`` to ``path`` atomically
    (:func:`dpaudit.atomic.write_text_atomic`: the old file or the complete new one, never a
    half-written page).  Returns the path.

    Raises:
      OSError: the directory cannot be created or written (nothing is left behind).
    """
    return write_text_atomic(path, render_html(report, figures=figures))


__all__ = ["TEMPLATE", "environment", "render_html", "write_html"]
