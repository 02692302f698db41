"""--only (dpaudit.audit.select and run_suites): globs on SUITE/AUDIT and AUDIT, selected
audits keep the full run's family and seeds (bit-identical numbers), a pattern that matches
nothing is a one-line error, and the filter is recorded in results.json."""

from __future__ import annotations

import json
import textwrap

import pytest

from dpaudit.api import run_suites
from dpaudit.audit.select import AuditFilter, SelectionError
from dpaudit.cli.commands import main
from dpaudit.report.results_file import read_report

SUITE = """
[suite]
name = "tiny"
samples = 2000
seed = 11

[[audit]]
name = "laplace-a"
mechanism = "laplace"
params = { epsilon = 1.0 }
delta = [0.0, 1e-3]

[[audit]]
name = "laplace-sweep"
mechanism = "laplace"
sweep = { epsilon = [0.5, 2.0] }

[[audit]]
name = "bug"
mechanism = "laplace-scale-epsilon"
params = { epsilon = 0.5 }
expect = "violation"
"""


@pytest.fixture
def suite(tmp_path):
    path = tmp_path / "tiny.toml"
    path.write_text(textwrap.dedent(SUITE), encoding="utf-8")
    return path


def test_patterns_match_suite_slash_audit_or_audit():
    f = AuditFilter(("classic/laplace-*", "sgld*"))
    assert f.matches("classic", "laplace-eps1")
    assert not f.matches("other", "laplace-eps1")
    assert f.matches("sgld", "pts-sgld")  # "sgld*" matches "sgld/pts-sgld"
    assert f.matches("x", "sgld-interim-leak")
    assert not f.matches("classic", "geometric")
    assert AuditFilter().matches("any", "thing")


def test_pattern_matching_nothing_names_it_and_some_audits():
    names = [("classic", f"audit-{i}") for i in range(20)]
    with pytest.raises(SelectionError) as info:
        AuditFilter(("classic/audit-1", "nope*")).check(names)
    message = str(info.value)
    assert "--only 'nope*' matches no audit" in message
    assert "classic/audit-0, classic/audit-1" in message and "(20 in all)" in message
    assert "\n" not in message


def _numbers(run):
    return {(r.audit, r.pair_index, None if r.sweep is None else r.sweep.index, r.notion,
             r.delta, r.alpha): (r.seed, r.samples, r.epsilon_lower_bound,
                                 r.white_box_epsilon_lower_bound, r.per_certificate_confidence,
                                 r.verdict) for r in run.records}


@pytest.mark.slow
def test_selected_audits_get_the_full_runs_numbers(suite):
    full = run_suites([str(suite)], workers=1)
    part = run_suites([str(suite)], workers=1, only=["tiny/laplace-s*", "bug"])
    assert {r.audit for r in part.records} == {"laplace-sweep", "bug"}
    assert part.suites[0].family_size == full.suites[0].family_size
    full_numbers = _numbers(full)
    part_numbers = _numbers(part)
    assert part_numbers == {k: full_numbers[k] for k in part_numbers}
    # two swept points and the bug, each its named pair and two searched ones
    assert len(part_numbers) == 3 * 3
    assert part.only == ("tiny/laplace-s*", "bug")
    assert len(part.outcomes) == 3


def test_suites_without_a_selected_audit_are_not_run(suite, tmp_path):
    other = tmp_path / "other.toml"
    other.write_text(textwrap.dedent(SUITE).replace('name = "tiny"', 'name = "other"'),
                     encoding="utf-8")
    run = run_suites([str(suite), str(other)], workers=1, only=["other/bug"])
    assert [s.name for s in run.suites] == ["other"]
    assert {(r.suite, r.audit) for r in run.records} == {("other", "bug")}


@pytest.mark.slow
def test_cli_records_the_filter_and_rejects_a_pattern_matching_nothing(suite, tmp_path,
                                                                      capsys):
    out = tmp_path / "out"
    assert main(["run", str(suite), "--out", str(out), "--workers", "1",
                 "--only", "bug", "--quiet"]) == 0
    report = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert report["options"]["only"] == ["bug"]
    read = read_report(out / "results.json")
    assert read.run.only == ("bug",)
    assert {r.audit for r in read.run.records} == {"bug"}
    assert "Only audits matching `bug`" in (out / "summary.md").read_text(encoding="utf-8")
    capsys.readouterr()
    assert main(["run", str(suite), "--out", str(tmp_path / "none"), "--workers", "1",
                 "--only", "classic/*"]) == 2
    err = capsys.readouterr().err
    assert "dpaudit: error: --only 'classic/*' matches no audit" in err
    assert "tiny/laplace-a" in err and "Traceback" not in err
    assert not (tmp_path / "none").exists()
