"""`dpaudit run` writes results.json first and always; a rendering or figure that fails costs
only its own file (exit status 2, the reason printed), never the computed certificates."""

from __future__ import annotations

import textwrap

import pytest

from dpaudit.cli.commands import main
from dpaudit.report.results_file import read_report

SUITE = """
[suite]
name = "reports"
samples = 2000

[[audit]]
name = "{name}"
mechanism = "laplace"
delta = [0.0, 0.01]
"""


def write_suite(tmp_path, name):
    path = tmp_path / "reports.toml"
    path.write_text(textwrap.dedent(SUITE.format(name=name)), encoding="utf-8")
    return path


@pytest.mark.slow
def test_a_failing_rendering_costs_only_its_own_file(tiny_suite, tmp_path, capsys):
    out = tmp_path / "out"
    (out / "report.html").mkdir(parents=True)  # report.html cannot be written
    assert main(["run", str(tiny_suite), "--out", str(out), "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert f"cannot write {out / 'report.html'}" in err
    for name in ("results.json", "summary.md", "junit.xml"):
        assert (out / name).is_file(), name
    assert len(read_report(out / "results.json").records) == 2
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]  # no temporaries left


@pytest.mark.slow
def test_a_very_long_audit_name_still_gets_its_figure(tmp_path):
    out = tmp_path / "out"
    name = "x" * 300  # a figure file named after it would exceed 255 bytes
    assert main(["run", str(write_suite(tmp_path, name)), "--out", str(out),
                 "--workers", "1"]) == 0
    (figure,) = (out / "figures").iterdir()
    assert len(figure.name) < 255
    curves = read_report(out / "results.json").curves_json()
    assert curves[0]["figure"] == f"figures/{figure.name}"
