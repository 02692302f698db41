"""Issue 23, item 2: a floating-point violation stands apart from a value-level one in every
report — the CLI line, summary.md, junit.xml and report.html say "floating point", give the
value-level bound beside it, the event in words and the fixes; a value-level violation of the
same run is reported as before."""

from __future__ import annotations

import json

import pytest

from dpaudit.cli.commands import main

SUITE = """
[suite]
name = "fp"
samples = 20000
seed = 4

[[audit]]
name = "naive"
mechanism = "naive-float-laplace"
expect = "violation"
search = false

[[audit]]
name = "scale-bug"
mechanism = "laplace-scale-epsilon"
params = { epsilon = 0.5 }
expect = "violation"
search = false
"""


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    root = tmp_path_factory.mktemp("fp")
    (root / "fp.toml").write_text(SUITE, encoding="utf-8")
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert main(["run", str(root / "fp.toml"), "--out", str(root / "out"),
                     "--workers", "1"]) == 0
    return root / "out", err.getvalue()


def test_cli_line_says_floating_point_and_gives_the_value_level_bound(out):
    _, err = out
    naive = next(line for line in err.splitlines() if "] naive pair=" in line)
    assert " violation (expected) " in naive and "floating point: value-level ε_LB=" in naive
    assert "occur only on" in naive or "as frequent on" in naive
    bug = next(line for line in err.splitlines() if "] scale-bug pair=" in line)
    assert " violation (expected) " in bug and "floating point" not in bug


def test_summary_lists_floating_point_violations_apart(out):
    directory, _ = out
    text = (directory / "summary.md").read_text(encoding="utf-8")
    assert "### Floating-point violations" in text
    section = text.split("### Floating-point violations", 1)[1].split("###", 1)[0]
    assert "naive" in section and "scale-bug" not in section
    assert "value-level ε_LB" in section and "laplace_on_grid" in section
    # both audits expect their violation: detected as expected, not bold (not a failure)
    assert "| floating-point violation, detected as expected |" in text
    assert "| violation, detected as expected |" in text and "**violation**" not in text


def test_junit_and_html_say_floating_point(out):
    directory, _ = out
    junit = (directory / "junit.xml").read_text(encoding="utf-8")
    assert "floating-point violation (value-level ε_LB" not in junit  # met: no failure
    document = json.loads((directory / "results.json").read_text(encoding="utf-8"))
    from dpaudit.report.html_model import suite_tables
    from dpaudit.report.results_file import read_report

    rows = suite_tables(read_report(directory / "results.json"))[0]["rows"]
    naive = next(r for r in rows if r["audit"] == "naive")
    assert naive["verdict_text"].startswith("floating-point violation, detected as expected "
                                            "(value-level ε_LB")
    assert next(r for r in rows if r["audit"] == "scale-bug")["verdict_text"] == \
        "violation, detected as expected"
    assert document["summary"]["exit_status"] == 0


@pytest.mark.slow
def test_an_unmet_floating_point_violation_fails_junit_with_the_fixes(tmp_path):
    (tmp_path / "fp.toml").write_text(SUITE.replace('expect = "violation"\nsearch = false\n\n'
                                                    '[[audit]]\nname = "scale-bug"',
                                                    'search = false\n\n[[audit]]\n'
                                                    'name = "scale-bug"', 1), encoding="utf-8")
    assert main(["run", str(tmp_path / "fp.toml"), "--out", str(tmp_path / "out"), "-q",
                 "--workers", "1"]) == 1
    junit = (tmp_path / "out" / "junit.xml").read_text(encoding="utf-8")
    assert "floating-point violation (value-level ε_LB" in junit
    assert "laplace_on_grid" in junit


def test_report_html_says_where_a_searched_pair_came_from_and_what_was_not_searched(shapes_run):
    """SHAPES_SUITE's "scale-bug" has one searched test; its other audits say search = false."""
    from dpaudit.report.html_model import audit_sections
    from dpaudit.report.json_report import build_report

    report = build_report(shapes_run, command="dpaudit run roundtrip.toml", exit_status=2)
    entries = [c for section in audit_sections(report) for pair in section["pairs"]
               for c in pair["certificates"]]
    searched = [c for c in entries if c["search"]]
    assert searched and all(c["label"] == "scale-bug" for c in searched)
    assert searched[0]["search"].startswith("rank 1 of the pair search: a ")
    unsearched = [c for c in entries if c["label"] == "laplace-grid"]
    assert unsearched and all("only the named pairs were audited (search = false)"
                              in c["coverage"] for c in unsearched)
    assert all(c["coverage"] is None for c in entries if c["label"] == "scale-bug")
