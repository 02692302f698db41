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


ALIKE = """
[suite]
name = "alike"
samples = 2000

[[audit]]
name = "{first}"
mechanism = "gaussian"
params = {{ epsilon = 1.0, delta = 1e-5 }}
delta = [1e-6, 1e-3]

[[audit]]
name = "{second}"
mechanism = "gaussian"
params = {{ epsilon = 3.0, delta = 1e-5 }}
delta = [1e-6, 1e-3]
"""


@pytest.mark.slow
@pytest.mark.parametrize("first, second", [("lap 1", "lap/1"), ("ε=1", "δ=1"),
                                           ("Lap", "lap")])  # the last: case-insensitive disks
def test_audit_names_that_slug_alike_get_a_figure_each(tmp_path, first, second):
    suite = tmp_path / "alike.toml"
    suite.write_text(textwrap.dedent(ALIKE.format(first=first, second=second)),
                     encoding="utf-8")
    out = tmp_path / "out"
    assert main(["run", str(suite), "--out", str(out), "--workers", "1"]) == 0
    curves = read_report(out / "results.json").curves_json()
    assert [c["audit"] for c in curves] == [first, second]
    paths = [c["figure"] for c in curves]
    assert len({p.lower() for p in paths}) == 2, paths
    assert sorted(p.name for p in (out / "figures").iterdir()) == sorted(
        p.removeprefix("figures/") for p in paths)
    # each audit's figure is its own: the title drawn into it names its audit (ε = 1 vs 3)
    summary = (out / "summary.md").read_text(encoding="utf-8")
    for curve in curves:
        line = next(x for x in summary.splitlines() if x.startswith(f"- `{curve['audit']}`"))
        assert curve["figure"].replace(" ", "%20") in line


@pytest.mark.slow
def test_a_figures_symlink_leading_outside_out_is_refused(tmp_path, capsys):
    outside = tmp_path / "outside"
    outside.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    (out / "figures").symlink_to(outside, target_is_directory=True)
    suite = tmp_path / "alike.toml"
    suite.write_text(textwrap.dedent(ALIKE.format(first="a", second="b")), encoding="utf-8")
    assert main(["run", str(suite), "--out", str(out), "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert list(outside.iterdir()) == []  # nothing written outside --out
    (line,) = [x for x in err.splitlines() if "figures" in x and "error" in x]
    assert "symbolic link" in line and "outside" in line
    for name in ("results.json", "summary.md", "junit.xml", "report.html"):
        assert (out / name).is_file(), name
    assert [c.get("figure") for c in read_report(out / "results.json").curves_json()] == [
        None, None]


@pytest.mark.slow
def test_an_earlier_runs_figures_do_not_stay_beside_the_new_reports(tmp_path):
    """A figure the new run did not draw (an earlier run's, or a planted link) is removed
    from DIR/figures, never left unlinked beside the new reports (issue 27, item 4)."""
    from dpaudit.cli.commands import main

    suite = tmp_path / "curve.toml"
    suite.write_text('[suite]\nname = "curve"\nsamples = 2000\n\n[[audit]]\nname = "g"\n'
                     'mechanism = "gaussian"\ndelta = [1e-6, 1e-3]\nwhite_box = false\n',
                     encoding="utf-8")
    out = tmp_path / "out"
    (out / "figures").mkdir(parents=True)
    stale = out / "figures" / "old__audit__pair.png"
    stale.write_bytes(b"\x89PNG stale")
    outside = tmp_path / "outside.png"
    outside.write_bytes(b"keep me")
    (out / "figures" / "planted.png").symlink_to(outside)
    notes = out / "figures" / "notes.txt"  # not a figure: left alone
    notes.write_text("mine", encoding="utf-8")
    assert main(["run", str(suite), "--out", str(out), "--workers", "1", "-q"]) == 0
    names = sorted(p.name for p in (out / "figures").iterdir())
    assert names == ["curve__g__add-max-record.png", "notes.txt"]
    assert outside.read_bytes() == b"keep me"
