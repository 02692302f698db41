"""A faster first run (issue 37, item 5): `dpaudit run` says what it found as soon as the
audits are done, before the reports, and draws report.html's power figures in another process
while it draws the figures (dpaudit/cli/report_workers.py) — the same page either way."""

from __future__ import annotations

import dataclasses

import pytest

from dpaudit.cli.commands import main
from dpaudit.cli.report_workers import PowerFiguresElsewhere
from dpaudit.report.html import power_figures, render_html
from dpaudit.report.results_file import read_report
from tests.cli.test_run_reports import write_suite


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A small run's reports and what it printed."""
    tmp = tmp_path_factory.mktemp("run")
    out = tmp / "out"
    import contextlib
    import io

    err, std = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(std):
        status = main(["run", str(write_suite(tmp, "laplace-2")), "--out", str(out),
                       "--workers", "2"])
    return status, out, err.getvalue(), std.getvalue()


@pytest.mark.slow
def test_the_run_says_what_it_found_before_writing_the_reports(finished):
    status, out, err, std = finished
    assert status == 0
    early = next(line for line in err.splitlines() if line.startswith("audits done in "))
    headline = std.strip().splitlines()[-1]  # the run's last line, after the reports
    assert f": {headline}; writing the reports to {out}" in early
    assert err.index("audits done in ") < err.index("writing summary.md")


@pytest.mark.slow
def test_power_figures_drawn_elsewhere_make_the_same_page(finished):
    _, out, _, _ = finished
    report = read_report(out / "results.json")
    here = power_figures(report)
    assert here and all(entry.get("power_svg") for entry in here.values())
    elsewhere = PowerFiguresElsewhere(report, dataclasses.replace(report.run, workers=2,
                                                                  backend="local: 2 processes"))
    try:
        assert elsewhere.result() == here
    finally:
        elsewhere.close()
    assert render_html(report, figure_dir=out, power=here) == render_html(report,
                                                                          figure_dir=out)
    # one worker, or another backend: drawn in the page's own process
    for run in (dataclasses.replace(report.run, workers=1),
                dataclasses.replace(report.run, workers=2, backend="tcp://scheduler:8786")):
        assert PowerFiguresElsewhere(report, run).result() is None
