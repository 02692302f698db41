"""dpaudit diff: certificates matched by name, not position; new and resolved violations,
newly unmet expectations, audits added and removed, new errors, and ε changes only when the
two certificates' own intervals do not overlap; the exit status and the PR comment."""

from __future__ import annotations

import dataclasses
import json
import textwrap
from pathlib import Path

import pytest

from dpaudit.results.records import exit_status
from dpaudit.api import run_suites
from dpaudit.cli.commands import main
from dpaudit.report.comparable import selects
from dpaudit.report.diff import diff_reports
from dpaudit.report.json_report import RunSummary, build_report
from dpaudit.results.options import RunOptions
from dpaudit.report.tightness import epsilon_interval

HEAD = """
[suite]
name = "tiny"
samples = 4000
seed = {seed}
"""
LAP = """
[[audit]]
search = false  # one pair per point: this file is about rendering them
name = "lap"
mechanism = "laplace"
params = {{ epsilon = {epsilon} }}
delta = [0.0, 1e-3]
"""
BUG = """
[[audit]]
search = false  # one pair per point: this file is about rendering them
name = "bug"
mechanism = "laplace-scale-epsilon"
params = { epsilon = 0.5 }
expect = "violation"
"""
CONTROL = """
[[audit]]
search = false  # one pair per point: this file is about rendering them
name = "control"
mechanism = "laplace-scale-epsilon"
params = {{ epsilon = {epsilon} }}
"""
GONE = """
[[audit]]
search = false  # one pair per point: this file is about rendering them
name = "gone"
mechanism = "geometric"
params = { epsilon = 1.0 }
"""
ADDED = """
[[audit]]
search = false  # one pair per point: this file is about rendering them
name = "added"
mechanism = "randomized-response"
params = { epsilon = 1.0 }
"""
NAN = """
[[audit]]
search = false  # one pair per point: this file is about rendering them
name = "nan-data"
mechanism = "laplace"
params = { epsilon = 1.0 }
[[audit.pairs]]
d0 = [nan]
d1 = [1.0]
"""


def _report(tmp_path: Path, name: str, text: str):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    run = run_suites([str(path)], workers=1)
    return build_report(run, command=f"test {name}", exit_status=exit_status(run))


@pytest.fixture(scope="module")
def edited(tmp_path_factory):
    """OLD and NEW of an edited suite: ``control`` now violates (ε = 0.5 < true 2), ``gone``
    removed, ``added`` and an erroring audit added, audits reordered."""
    root = tmp_path_factory.mktemp("diff")
    old = _report(root, "old.toml", HEAD.format(seed=5) + LAP.format(epsilon=1.0) + BUG
                  + CONTROL.format(epsilon=1.5) + GONE)
    new = _report(root, "new.toml", HEAD.format(seed=5) + ADDED + BUG
                  + CONTROL.format(epsilon=0.5) + LAP.format(epsilon=1.0) + NAN)
    return old, new


def test_edited_suite_diff_finds_exactly_the_edits(edited):
    old, new = edited
    diff = diff_reports(old, new)
    assert [c.where for c in diff.new_violations] == ["tiny / control / add-max-record @ δ=0"]
    assert diff.resolved_violations == ()
    assert [(p.where, p.old_verdict, p.new_verdict) for p in diff.newly_unmet] == [
        ("tiny / control", "consistent", "violation"),
        ("tiny / nan-data", None, "error")]
    assert diff.newly_met == ()
    assert diff.added_points == ("tiny / added", "tiny / nan-data")
    assert diff.removed_points == ("tiny / gone",)
    assert diff.added_pairs == diff.removed_pairs == ()
    assert diff.added_certificates == diff.removed_certificates == ()
    assert len(diff.new_errors) == 1 and "NaN" in diff.new_errors[0]
    assert diff.compared == 4  # lap ×2 δ, bug, control
    # control's privacy loss moved from ~0.67 to ~2: far outside both intervals; lap and bug
    # are the same audits (their numbers move only with the Bonferroni family): no change
    assert [c.where for c in diff.significant_changes] == [
        "tiny / control / add-max-record @ δ=0"]
    # one regression per problem: the unmet control (its new violation is the same
    # problem) and the new error (its unmet point is the same problem)
    assert len(diff.regressions) == 2 and diff.exit_status == 1
    assert diff.regressions[0].startswith("expectation newly unmet: tiny / control")
    assert diff.regressions[1].startswith("new error: tiny / nan-data")


def test_diff_of_a_run_with_itself_is_empty(edited):
    old, _ = edited
    diff = diff_reports(old, old)
    assert diff.regressions == () and diff.exit_status == 0
    assert diff.compared == len(old.records)
    assert not (diff.new_violations or diff.resolved_violations or diff.significant_changes
                or diff.added_points or diff.removed_points or diff.new_errors)
    assert diff.to_markdown().startswith("## dpaudit diff: ✅ no regression")


def test_reverse_diff_resolves_and_removes(edited):
    old, new = edited
    diff = diff_reports(new, old)
    assert [c.where for c in diff.resolved_violations] == [
        "tiny / control / add-max-record @ δ=0"]
    assert [p.where for p in diff.newly_met] == ["tiny / control"]
    assert diff.removed_points == ("tiny / added", "tiny / nan-data")
    assert diff.regressions == ()  # removing audits is not a regression


def test_markdown_comment(edited):
    old, new = edited
    text = diff_reports(old, new).to_markdown()
    lines = text.splitlines()
    assert lines[0] == "## dpaudit diff: ❌ 2 regression(s)"
    assert "1 new violation(s)" in lines[2] and "1 significant ε change(s)" in lines[2]
    sections = [line for line in lines if line.startswith("### ")]
    assert sections == ["### Regressions", "### New violations",
                        "### Significant ε changes", "### Audit points added",
                        "### Audit points removed"]
    assert "| tiny / control / add-max-record @ δ=0 | 0.5 |" in text


def test_json_form_is_plain_json(edited):
    old, new = edited
    document = json.loads(json.dumps(diff_reports(old, new).to_json(), allow_nan=False))
    assert document["exit_status"] == 1 and len(document["regressions"]) == 2
    change = document["significant_changes"][0]
    assert change["old"]["interval"][1] < change["new"]["interval"][0]


def _selected(report, *patterns):
    """``report`` as an ``--only`` run of ``patterns`` gives it: the selected audit points,
    numbers unchanged (dpaudit.audit.select: selection happens after planning, so a selected
    audit's numbers are bit-identical to the full run's), ``only`` recorded."""
    from dpaudit.audit.select import AuditFilter

    run = report.run
    kept = [p for p in run.points if AuditFilter(patterns).matches(p.suite, p.audit)]
    run = dataclasses.replace(run, points=kept, options=RunOptions(only=patterns))
    return dataclasses.replace(report, run=run, summary=RunSummary.of(run, 0))


def test_an_only_run_against_a_full_baseline_compares_only_what_both_selected(edited):
    full, _ = edited
    only = _selected(full, "tiny/lap", "bug")
    assert {p.audit for p in only.run.points} == {"lap", "bug"}
    diff = diff_reports(full, only)
    # the deselected audits are not "removed": they are not compared, and the header says so
    assert diff.removed_points == diff.added_points == () and diff.regressions == ()
    assert diff.comparison.not_selected_new == ("tiny / control", "tiny / gone")
    assert diff.comparison.compared_points == 2 and diff.compared == 3  # lap ×2 δ, bug
    assert [d.text() for d in diff.comparison.differences] == [
        "selection (all audits → --only 'tiny/lap' 'bug')"]
    text = diff.to_markdown()
    assert "⚠️ The runs differ in selection (all audits → --only 'tiny/lap' 'bug')." in text
    assert ("Compared: the 2 audit points both runs selected. Not compared (neither added "
            "nor removed): 2 audit points of the old run that the new run's --only did not "
            "select.") in text
    assert "### Audit points removed" not in text
    assert "<details><summary>Not compared: not selected by the new run's --only (2 audit " \
           "points)</summary>" in text
    # the other way round: a full run against an --only baseline adds nothing either
    back = diff_reports(only, full)
    assert back.added_points == () and back.new_violations == () and back.regressions == ()
    assert back.comparison.not_selected_old == ("tiny / control", "tiny / gone")
    # a point the --only run did select but does not have is still a removal
    lap_only = _selected(full, "tiny/lap", "bug", "gone")
    lap_only = dataclasses.replace(lap_only, run=dataclasses.replace(
        lap_only.run, points=[p for p in lap_only.run.points if p.audit != "gone"]))
    assert diff_reports(full, lap_only).removed_points == ("tiny / gone",)
    # a suite file the new run did not run at all: removed, and the header names the file
    none = dataclasses.replace(full, run=dataclasses.replace(full.run, points=[], suites=[]))
    diff = diff_reports(full, none)
    assert len(diff.removed_points) == 4 and diff.comparison.suites_only_old == (("tiny", 4),)
    assert "Suites only the old run ran: tiny (4 audit points), listed as removed." in \
        diff.to_markdown()
    back = diff_reports(none, full)  # a new suite file: its points are added and judged
    assert len(back.added_points) == 4
    assert "Suites only the new run ran: tiny (4 audit points), listed as added." in \
        back.to_markdown()


def _with_samples(report, samples: int, profile: str):
    """``report`` with every test at ``samples`` per side and ``profile`` recorded."""
    run = report.run
    points = [p.with_tests(dataclasses.replace(t, samples=samples) for t in p.tests).judged()
              for p in run.points]
    run = dataclasses.replace(run, points=points, options=RunOptions(profile=profile))
    return dataclasses.replace(report, run=run)


def test_other_samples_are_not_compared_for_epsilon_and_the_header_says_why(edited):
    old, new = edited
    assert diff_reports(old, new).significant_changes  # at equal samples: control moved
    quick = _with_samples(new, 400, "quick")
    diff = diff_reports(old, quick)
    assert diff.significant_changes == ()  # other samples: not a measure of one quantity
    assert diff.comparison.samples_differ == diff.compared == 4
    # verdicts are still compared: the new violation of control is still a regression
    assert [c.where for c in diff.new_violations] == ["tiny / control / add-max-record @ δ=0"]
    assert diff.regressions and diff.exit_status == 1
    text = diff.to_markdown()
    assert "⚠️ The runs differ in profile (default → quick)." in text
    assert ("Samples per side differ for 4 of the 4 certificates in both runs: their ε_LB "
            "differ by design and are not compared (ε is compared for the other 0).") in text
    assert "a run with fewer samples has less power" in text
    assert "| tiny / control / add-max-record @ δ=0 (samples 4,000 → 400) | 0.5 |" in text
    document = diff.to_json()["comparison"]
    assert document["differences"] == [{"what": "profile", "old": "default", "new": "quick"}]
    assert document["samples_differ"] == 4


def test_same_settings_say_so(edited):
    old, _ = edited
    notes = diff_reports(old, old).comparison.notes(len(old.records))
    assert notes == ["Same settings (profile, samples, seeds, selection, dpaudit version): "
                     "every certificate in both runs is compared."]


def test_selection_rule_is_the_only_option_s():
    """dpaudit.report.comparable.selects (report may not import dpaudit.audit) decides as
    dpaudit.audit.select.AuditFilter does."""
    from types import SimpleNamespace

    from dpaudit.audit.select import AuditFilter

    names = [("classic", "laplace-eps1"), ("classic", "svt-lyu3"), ("sgld", "posterior"),
             ("sgld", "sgld-interim-leak")]
    for patterns in [(), ("classic/*",), ("sgld*",), ("posterior", "classic/svt-*"),
                     ("*/laplace-eps?",), ("nothing",)]:
        report = SimpleNamespace(run=SimpleNamespace(only=patterns))
        for suite, audit in names:
            assert selects(report, suite, audit) == AuditFilter(patterns).matches(suite, audit)


def test_interval_brackets_the_certified_bound(edited):
    old, _ = edited
    for record in old.records:
        interval = epsilon_interval(record)
        assert interval is not None
        bound = max(record.epsilon_lower_bound, record.white_box_epsilon_lower_bound or 0)
        assert interval.lower == pytest.approx(bound, rel=1e-9, abs=1e-12)
        assert interval.lower <= interval.upper
        if record.exact_epsilon is not None:  # here the intervals cover the exact ε
            assert interval.lower <= record.exact_epsilon <= interval.upper


@pytest.mark.slow
def test_seed_change_is_not_significant_but_claim_change_is(tmp_path):
    def suite(seed, epsilon):
        return (HEAD.format(seed=seed) + LAP.format(epsilon=epsilon) + BUG
                + CONTROL.format(epsilon=1.5))

    one = _report(tmp_path, "one.toml", suite(1, 1.0))
    two = _report(tmp_path, "two.toml", suite(2, 1.0))
    assert [r.epsilon_lower_bound for r in one.records] != \
        [r.epsilon_lower_bound for r in two.records]
    diff = diff_reports(one, two)
    assert diff.compared == len(one.records) == 4
    assert diff.significant_changes == () and diff.regressions == ()
    eps2 = _report(tmp_path, "eps2.toml", suite(1, 2.0))
    diff = diff_reports(one, eps2)
    assert {c.where for c in diff.significant_changes} == {
        "tiny / lap / add-max-record @ δ=0", "tiny / lap / add-max-record @ δ=0.001"}
    for change in diff.significant_changes:
        assert change.old_interval.upper < change.new_interval.lower
        assert change.old.claimed_epsilon == 1.0 and change.new.claimed_epsilon == 2.0
    assert diff.regressions == ()


# -- the command line -------------------------------------------------------------------------

def _run(tmp_path: Path, name: str, text: str, *extra: str) -> tuple[int, Path]:
    path = tmp_path / f"{name}.toml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    out = tmp_path / name
    return main(["run", str(path), "--out", str(out), "--workers", "1", *extra]), out


@pytest.mark.slow
def test_diff_and_baseline_commands(tmp_path, capsys):
    base = HEAD.format(seed=5) + BUG
    status, old = _run(tmp_path, "old", base + CONTROL.format(epsilon=1.5))
    assert status == 0
    status, same = _run(tmp_path, "same", base + CONTROL.format(epsilon=1.5),
                        "--baseline", str(old / "results.json"))
    assert status == 0
    assert (same / "diff.md").read_text(encoding="utf-8").startswith(
        "## dpaudit diff: ✅ no regression")
    status, new = _run(tmp_path, "new", base + CONTROL.format(epsilon=0.5), "--baseline",
                       str(old))  # a directory stands for its results.json
    assert status == 1
    out = capsys.readouterr().out
    assert "baseline: 1 regression(s)" in out and "diff.md" in out
    diff_md = (new / "diff.md").read_text(encoding="utf-8")
    assert diff_md.startswith("## dpaudit diff: ❌ 1 regression(s)")

    assert main(["diff", str(old), str(same)]) == 0
    assert capsys.readouterr().out.startswith("## dpaudit diff: ✅ no regression")
    assert main(["diff", str(old), str(new), "--format", "json"]) == 1
    assert json.loads(capsys.readouterr().out)["exit_status"] == 1
    target = tmp_path / "comment.md"
    assert main(["diff", str(old), str(new), "--out", str(target)]) == 1
    assert target.read_text(encoding="utf-8") == diff_md


@pytest.mark.slow
def test_baseline_of_an_only_run_and_of_a_quick_run_say_what_differs(tmp_path, capsys):
    text = HEAD.format(seed=5) + LAP.format(epsilon=1.0) + BUG + CONTROL.format(epsilon=1.5)
    status, full = _run(tmp_path, "full", text)
    assert status == 0
    status, only = _run(tmp_path, "only", text, "--only", "tiny/lap", "--baseline", str(full))
    assert status == 0
    out = capsys.readouterr().out
    assert "0 audit point(s) added, 0 removed" in out
    assert "  ⚠️ The runs differ in selection (all audits → --only 'tiny/lap')." in out
    comment = (only / "diff.md").read_text(encoding="utf-8")
    assert "### Audit points removed" not in comment
    assert "2 audit points of the old run that the new run's --only did not select" in comment
    status, quick = _run(tmp_path, "quick", text, "--profile", "quick", "--baseline",
                         str(full))
    assert status == 0
    out = capsys.readouterr().out
    assert "  ⚠️ The runs differ in profile (default → quick)." in out
    comment = (quick / "diff.md").read_text(encoding="utf-8")
    assert "0 significant ε change(s)" in comment
    assert "Samples per side differ for 4 of the 4 certificates in both runs" in comment
    assert "PASS — 3/3 expectations met" in out.splitlines()[-1]


@pytest.mark.slow
def test_baseline_keeps_exit_status_2_for_errors(tmp_path):
    status, old = _run(tmp_path, "old", HEAD.format(seed=5) + BUG)
    status, new = _run(tmp_path, "new", HEAD.format(seed=5) + BUG + NAN, "--baseline", str(old))
    assert status == 2 and (new / "diff.md").exists()


def test_unreadable_inputs_exit_2_with_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    assert main(["diff", str(bad), str(tmp_path / "missing.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not JSON" in err and "Traceback" not in err
    suite = tmp_path / "s.toml"
    suite.write_text(textwrap.dedent(HEAD.format(seed=1) + BUG), encoding="utf-8")
    out = tmp_path / "out"
    assert main(["run", str(suite), "--out", str(out), "--baseline", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dpaudit: error: --baseline:") and err.count("\n") == 1
    assert not out.exists()  # the baseline is read before anything runs
