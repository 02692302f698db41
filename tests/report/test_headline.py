"""The one-line verdict of a run (dpaudit.report.headline) and the vocabulary of its counts
(dpaudit.report.glossary): PASS or FAIL first, what failed by name, known bugs apart from
unexpected violations, plurals right, the four words defined once."""

from __future__ import annotations

from types import SimpleNamespace

from dpaudit.report.glossary import GLOSSARY, ReportCounts, glossary_lines, plural
from dpaudit.report.headline import headline, violation_kind


def _point(audit, expect, verdict, sweep=None):
    return SimpleNamespace(suite="s", audit=audit, expect=expect, verdict=verdict,
                           met_expectation=expect == verdict, sweep=sweep, tests=())


def _report(points, *, status=None, suites=(), series=(), incomplete=None):
    if status is None:
        status = 0 if all(p.met_expectation for p in points) else 1
    run = SimpleNamespace(points=list(points), suites=list(suites), series=list(series),
                          incomplete=incomplete)
    return SimpleNamespace(run=run, summary=SimpleNamespace(exit_status=status))


def test_a_passing_run_says_pass_and_counts_known_bugs_apart():
    points = [_point("ok", "consistent", "consistent"), _point("bug", "violation", "violation"),
              _point("bug2", "violation", "violation")]
    line = headline(_report(points))
    assert line.passed and line.mark == "✅"
    assert line.text() == ("PASS — 3/3 expectations met — 2 known bugs detected, "
                           "0 unexpected violations")


def test_a_failing_run_names_what_failed():
    sweep = SimpleNamespace(parameter="steps", value=2000)
    points = [_point("leaky", "consistent", "violation"),
              _point("missed", "violation", "consistent"),
              _point("broken", "consistent", "error", sweep=sweep),
              _point("bug", "violation", "violation")]
    suites = [SimpleNamespace(file="bad.toml", error="SuiteError: …")]
    series = [SimpleNamespace(suite="s", name="fig", error="ValueError: …")]
    line = headline(_report(points, status=2, suites=suites, series=series))
    assert not line.passed and line.mark == "❌"
    assert line.text() == (
        "FAIL — 1/4 expectations met — 1 known bug detected, 1 unexpected violation "
        "(s/leaky), 1 known bug not detected (s/missed), 3 errors (suite file bad.toml, "
        "s/broken[steps=2000], s/series fig)")


def test_many_names_are_cut_and_counted():
    points = [_point(f"leak{i}", "consistent", "violation") for i in range(5)]
    text = headline(_report(points)).text()
    assert text.endswith("5 unexpected violations (s/leak0, s/leak1, s/leak2 and 2 more)")


def test_no_audit_point_and_an_incomplete_run():
    suites = [SimpleNamespace(file="bad.toml", error="SuiteError: …")]
    assert headline(_report([], status=2, suites=suites)).text() == (
        "FAIL — no audit point ran — 0 known bugs detected, 0 unexpected violations, "
        "1 error (suite file bad.toml)")
    stopped = SimpleNamespace(tests_finished=57, tests_planned=208,
                              reason="interrupted by SIGTERM")
    points = [_point("bug", "violation", "violation"), _point("rest", "consistent", "error")]
    line = headline(_report(points, status=2, incomplete=stopped))
    assert line.status == "INCOMPLETE" and line.mark == "⚠️"
    assert line.text() == ("INCOMPLETE — 57 of 208 tests finished (interrupted by SIGTERM; "
                           "dpaudit run … --resume continues) — 1 known bug detected, "
                           "0 unexpected violations so far")


def test_violation_kind_splits_expected_from_unexpected():
    violation = SimpleNamespace(verdict="violation")
    consistent = SimpleNamespace(verdict="consistent")
    assert violation_kind(SimpleNamespace(expect="violation"), violation) == "expected"
    assert violation_kind(SimpleNamespace(expect="consistent"), violation) == "unexpected"
    assert violation_kind(SimpleNamespace(expect="violation"), consistent) is None


def test_plurals_and_the_glossary():
    assert plural(1, "certificate") == "1 certificate"
    assert plural(0, "error") == "0 errors"
    assert plural(1234, "test") == "1,234 tests"
    assert [t.word for t in GLOSSARY[:4]] == ["audit point", "pair", "test", "certificate"]
    assert all(line.count(": ") >= 1 for line in glossary_lines())


def test_counts_are_of_what_ran(shapes_run):
    counts = ReportCounts.of(shapes_run)
    assert counts.audit_points == len(shapes_run.points)
    assert counts.pairs == len({(p.key, t.pair_index) for p in shapes_run.points
                                for t in p.tests if t.certificates})
    assert counts.certificates == len(shapes_run.records)
    assert counts.tests == sum(s.tests_run for s in shapes_run.suites
                               if not (s.error or s.skipped))
    assert counts.text() == (f"{counts.audit_points} audit points · {counts.pairs} pairs · "
                             f"{counts.tests} tests · {counts.certificates} certificates")
