"""``report.html`` — one self-contained HTML page rendered from the typed run report.

:func:`render_html` turns a :class:`~dpaudit.report.json_report.RunReport` (what
results.json is written from, and what ``dpaudit.report.results_file.read_report`` reads back)
into one HTML document with the Jinja2 template ``templates/report.html.j2`` (autoescaped:
every name, message and expression from the run is escaped text).  The page needs nothing
else: the stylesheet and the ~60-line sorting/filtering script are inline, figures are inline
(see below), claims are presentation MathML (:mod:`dpaudit.report.mathml`).  It contains no
``src`` or ``href`` to any other address (a figure is a ``data:`` URI at most): opening it
makes no network request.

Order of the page: the headline (:mod:`dpaudit.report.headline`: PASS or FAIL and what
failed), the overview (expectations met, known bugs detected, unexpected violations, errors,
exact-only violations; the four counts of :mod:`dpaudit.report.glossary`), per suite file a
sortable, filterable table with one row per certificate (✓/✗ first; a violation of an audit
point that expects one is "detected as expected", not red; an unexpected one is red), per
audit a ``<details>`` section (claim as text and MathML, parameters, per pair its datasets,
its certificates — event, numerator, counts k/n per side, Clopper–Pearson bounds, per-bound
significance, confidence — and its power figure; then the audit's figures), series, errors
one line each, the glossary, provenance.

Figures.  The curve, sweep and series figures are the PNGs ``dpaudit run`` already drew
(:func:`dpaudit.report.figures.write_figures`), embedded as ``data:`` URIs when
``figure_dir`` (the directory results.json's figure paths are relative to) holds them;
otherwise they are drawn here as inline SVG (:mod:`dpaudit.report.svg`, by the same drawing
functions).  The power figures — one per pair with a consistent ε(δ) certificate — are inline
SVG drawn on one reused figure (:class:`dpaudit.report.power_figure.PowerPlot`).  Drawing
each figure once is what keeps writing the page of the default run to a few seconds.  Evidence
that draws a figure of itself (:meth:`~dpaudit.evidence.base.Evidence.figure`, e.g. a canary
audit's in/out score histogram) is inlined as SVG in its audit's section, captioned with its
description; the page never asks what kind of evidence it is.

Without matplotlib (the ``report`` extra) the page is complete except for the figures, and
says that they need ``dpaudit[report]``.
"""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import TYPE_CHECKING

from dpaudit.results.records import describe_exception
from dpaudit.results.series import SeriesResult
from dpaudit.results.sweep_curve import SweepCurve
from dpaudit.util.atomic import write_text_atomic
from dpaudit.util.numbers import format_number
from dpaudit.report import html_model
from dpaudit.report.figures import (curve_figure, matplotlib_available, series_figure,
                                    sweep_figure)
from dpaudit.report.json_report import RunReport
from dpaudit.report.power_figure import PowerPlot, pair_power_curves, power_caption
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


_PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def png_data_uri(figure_dir: str | os.PathLike | None, path: str | None) -> str | None:
    """The ``data:image/png;base64,…`` URI of the figure stored as ``path`` (relative to
    ``figure_dir``, as results.json holds it), or None when there is none to embed: no
    directory or path, a path that leads outside ``figure_dir``, an unreadable file, or a
    file that is not a PNG."""
    if figure_dir is None or not path:
        return None
    root = Path(figure_dir).resolve()
    file = (root / path).resolve()
    if not file.is_relative_to(root):
        return None
    try:
        data = file.read_bytes()
    except OSError:
        return None
    if not data.startswith(_PNG_MAGIC):
        return None
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


def _figure(draw, data, path: str | None, svg: _SvgMaker, figure_dir) -> dict:
    """A figure entry: the PNG already drawn for it (``path``) when ``figure_dir`` holds it,
    else drawn here as SVG."""
    image = png_data_uri(figure_dir, path)
    if image is not None:
        return {"svg": None, "img": image, "error": None}
    drawn, error = svg(draw, data)
    return {"svg": drawn, "img": None, "error": error}


def _attach_power(sections: list[dict], svg: _SvgMaker) -> None:
    """Put each pair's power figure (its consistent ε(δ) certificates) into its entry."""
    plot = None
    for section in sections:
        for pair in section["pairs"]:
            certificates = pair["test"].certificates
            try:
                curves = pair_power_curves(certificates)
                if not curves:
                    continue
                if plot is None:
                    plot = PowerPlot()
            except Exception as exc:  # noqa: BLE001 - reported on the page, the rest renders
                pair["power_error"] = describe_exception(exc)
                continue
            pair["power_svg"], pair["power_error"] = svg(plot.figure, curves)
            pair["power_caption"] = power_caption(curves)


def _attach_evidence_figures(sections: list[dict], svg: _SvgMaker) -> None:
    """Put the figure each piece of evidence draws of itself
    (:meth:`~dpaudit.evidence.base.Evidence.figure`: a canary audit's score histogram, …)
    into its audit's section, captioned with its description; evidence without one adds
    nothing."""
    for section in sections:
        for pair in section["pairs"]:
            for certificate in pair["test"].certificates:
                for evidence in certificate.evidence:
                    drawn, error = svg(lambda e: e.figure(), evidence)
                    if drawn is not None or error is not None:
                        section["figures"].append({"caption": evidence.describe(),
                                                   "svg": drawn, "img": None,
                                                   "error": error})


def _attach_figures(sections: list[dict], report: RunReport, svg: _SvgMaker,
                    figure_dir) -> list[dict]:
    """Put each curve's figure into its audit's section and each pair's power figure into
    its pair's entry; return the series with their figures."""
    by_audit = {(s["suite_file"], s["audit"]): s for s in sections}
    for curve, path in report.curve_figures():
        section = by_audit.get((curve.suite_file, curve.audit))
        if section is None:
            continue
        if isinstance(curve, SweepCurve):
            caption = (f"ε over {curve.parameter} at δ = {format_number(curve.delta)}, "
                       f"pair {curve.pair}")
            entry = _figure(sweep_figure, curve, path, svg, figure_dir)
        else:
            sweep = curve.sweep
            caption = f"privacy curve of pair {curve.pair}" + (
                f" at {sweep.parameter} = {format_number(sweep.value)}" if sweep else "")
            entry = _figure(curve_figure, curve, path, svg, figure_dir)
        section["figures"].append({"caption": caption, **entry})
    _attach_evidence_figures(sections, svg)
    _attach_power(sections, svg)
    series = []
    for result, path in report.series_figures():
        entry = (_figure(series_figure, result, path, svg, figure_dir) if result.has_figure
                 else {"svg": None, "img": None, "error": None})
        series.append(_series_entry(result, entry["svg"], entry["img"], entry["error"]))
    return series


def _series_entry(result: SeriesResult, svg=None, img=None, error=None) -> dict:
    """A series as the template shows it: the result, and its figure (inline SVG, an
    embedded PNG, or why it could not be drawn)."""
    return {"result": result, "svg": svg, "img": img, "figure_error": error}


def render_html(report: RunReport, *, figures: bool = True,
                figure_dir: str | os.PathLike | None = None) -> str:
    """The report.html text of ``report``.

    Args:
      report: the typed run report (``build_report`` of a run, or read from results.json).
      figures: include the figures (needs matplotlib; without it, or with False, the page
        says where the figures would be).
      figure_dir: the directory the report's figure paths are relative to (results.json's):
        the PNGs found there are embedded instead of drawn again (module docstring).  None:
        every figure is drawn here.
    Returns:
      A complete HTML5 document (UTF-8 text).
    """
    sections = html_model.audit_sections(report)
    draw = figures and matplotlib_available()
    figures_error = None
    series = [_series_entry(result) for result in report.run.series]
    if draw:
        try:
            series = _attach_figures(sections, report, _SvgMaker(), figure_dir)
        except Exception as exc:  # noqa: BLE001 - e.g. a broken matplotlib: the page, no figures
            figures_error = describe_exception(exc)
            sections = html_model.audit_sections(report)
    run, prov = report.run, report.provenance
    samples = sorted({test.samples for point in run.points for test in point.tests})
    context = {
        "title": f"dpaudit report — {prov.command}",
        "overview": html_model.overview(report),
        "tables": html_model.suite_tables(report),
        "sections": sections,
        "series": series,
        "errors": html_model.error_lines(report),
        "glossary": html_model.glossary(),
        "provenance": prov,
        "run": {"profile": run.profile, "workers": run.workers, "backend": run.backend,
                "seconds": format_number(run.seconds, 3),
                "samples": (f"{samples[0]:,}" if len(samples) == 1 else
                            f"{samples[0]:,}–{samples[-1]:,}") if samples else "—"},
        "figures": draw and figures_error is None,
        "figures_missing": figures and not draw,
        "figures_error": figures_error,
    }
    return environment().get_template(TEMPLATE).render(**context)


def write_html(report: RunReport, path: str | os.PathLike, *, figures: bool = True,
               figure_dir: str | os.PathLike | None = None) -> Path:
    """Write :func:`render_html` of ``report`` to ``path`` atomically
    (:func:`dpaudit.util.atomic.write_text_atomic`: the old file or the complete new one, never a
    half-written page).  Returns the path.

    Raises:
      OSError: the directory cannot be created or written (nothing is left behind).
    """
    return write_text_atomic(path, render_html(report, figures=figures,
                                               figure_dir=figure_dir))


__all__ = ["TEMPLATE", "environment", "png_data_uri", "render_html", "write_html"]
