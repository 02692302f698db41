"""Progress of a run (dpaudit.audit.progress): plain [k/N] lines when stderr is not a terminal,
tqdm bars with only the noteworthy certificates above them on a terminal, the start line's
counts, the figure phase, --quiet, and silence from the Python API."""

from __future__ import annotations

import dataclasses
import io
import math

import pytest

from dpaudit.audit.progress import (BarProgress, CallbackProgress, LineProgress, RunCounts,
                                    RunProgress, as_run_progress, format_progress,
                                    make_progress, noteworthy)
from dpaudit.api import run_suites
from dpaudit.cli.commands import main

class Stream(io.StringIO):
    """A text stream that says whether it is a terminal."""

    def __init__(self, tty: bool):
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def test_start_line_uses_the_run_vocabulary():
    counts = RunCounts(suites=5, audit_points=69, tests=204, certificates=174, workers=2)
    assert counts.describe() == ("running 5 suites: 69 audit points, 204 tests, "
                                 "174 certificates on 2 workers")
    one = RunCounts(suites=1, audit_points=1, tests=1, certificates=1, workers=1,
                    only=("a*",), all_audit_points=3)
    assert one.describe() == ("running 1 suite: 1 audit point, 1 test, 1 certificate on "
                              "1 worker (--only 'a*': 1 of 3 audit points of these suites)")


def test_make_progress_picks_by_terminal_and_quiet():
    assert type(make_progress(Stream(True))) is BarProgress
    assert type(make_progress(Stream(False))) is LineProgress
    assert type(make_progress(Stream(True), quiet=True)) is RunProgress
    seen = []
    adapted = as_run_progress(seen.append)
    assert isinstance(adapted, CallbackProgress)
    adapted.record("r")
    assert seen == ["r"]
    assert type(as_run_progress(None)) is RunProgress
    with pytest.raises(TypeError, match="RunProgress or a callable"):
        as_run_progress(3)


def test_plain_lines_when_not_a_terminal(tiny_suite):
    stream = Stream(False)
    run = run_suites([str(tiny_suite)], workers=1, progress=make_progress(stream))
    lines = stream.getvalue().splitlines()
    assert "\r" not in stream.getvalue()
    assert lines[0].startswith(f"planning 1 suite file: {tiny_suite}")
    assert lines[1].startswith("planned tiny: 2 audit points, 4 tests in a family of 4 (")
    # both audits leave the mechanism's sensitivity at its default: one line each
    assert lines[2:4] == ["tiny/fine: parameters left at their defaults: sensitivity = 1",
                          "tiny/bug: parameters left at their defaults: sensitivity = 1"]
    assert lines[4] == "running 1 suite: 2 audit points, 4 tests, 2 certificates on 1 worker"
    records = lines[5:]
    assert [line.split(" ", 1)[0] for line in records] == ["[1/2]", "[2/2]"]
    assert records == [f"[{k}/2] {format_progress(r)}" for k, r in enumerate(run.records, 1)]
    by_audit = {r.audit: r for r in run.records}
    # a violation says whether its audit point expected it (a known bug) or not (a failure)
    bug = by_audit["bug"]
    assert bug.expect == "violation" and " violation (expected) (" in format_progress(bug)
    unexpected = format_progress(dataclasses.replace(bug, expect="consistent"))
    assert " VIOLATION (unexpected) (" in unexpected
    # a consistent one says what its test could have caught; an ∞ says so in words
    fine = by_audit["fine"]
    assert " consistent (" in format_progress(fine)
    assert "could detect ε ≥ " in format_progress(fine)
    lost = format_progress(dataclasses.replace(fine, detectable_epsilon=math.inf))
    assert lost.endswith("(no event of this test could certify a violation at these samples)")
    assert "could detect" not in lost and "inf" not in lost


def test_bar_on_a_terminal_prints_only_noteworthy_records(tiny_suite):
    stream = Stream(True)
    reporter = make_progress(stream)
    run = run_suites([str(tiny_suite)], workers=1, progress=reporter)
    reporter.phase("writing figures", 3)
    for _ in range(3):
        reporter.advance()
    reporter.close()
    text = stream.getvalue()
    assert "\r" in text  # a live bar
    assert "certificates: 100%" in text and "2/2" in text
    assert "writing figures: 100%" in text and "3/3" in text
    assert "running 1 suite: 2 audit points, 4 tests, 2 certificates on 1 worker" in text
    by_audit = {r.audit: r for r in run.records}
    assert noteworthy(by_audit["bug"]) and not noteworthy(by_audit["fine"])
    assert format_progress(by_audit["bug"]) in text
    assert "[tiny] fine " not in text


def test_figure_phase_lines():
    stream = Stream(False)
    reporter = LineProgress(stream)
    reporter.phase("writing figures to out", 2)
    reporter.advance()
    reporter.advance()
    reporter.phase("nothing to do", 0)
    lines = stream.getvalue().splitlines()
    assert lines[0] == "writing figures to out (2)"
    assert lines[1].startswith("writing figures to out: done (2/2, ")
    assert len(lines) == 2


def test_python_api_is_quiet(tiny_suite, capsys):
    run_suites([str(tiny_suite)], workers=1)
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == ""


@pytest.mark.slow
def test_cli_plain_lines_and_quiet(tiny_suite, tmp_path, capsys):
    assert main(["run", str(tiny_suite), "--out", str(tmp_path / "a"), "--workers", "1"]) == 0
    err = capsys.readouterr().err
    assert "running 1 suite: 2 audit points, 4 tests, 2 certificates on 1 worker" in err
    assert "[2/2] [tiny]" in err and "\r" not in err
    assert main(["run", str(tiny_suite), "--out", str(tmp_path / "b"), "--workers", "1",
                 "--quiet"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    lines = captured.out.splitlines()
    assert lines[0] == ("2 audit points, 2 pairs, 4 tests, 2 certificates: 1 violation (1 "
                        f"expected, 0 unexpected), 1 consistent (1 underpowered), 0 errors — "
                        f"{lines[0][-5:]}")
    # the headline is the run's last line
    assert lines[-1] == "PASS — 2/2 expectations met — 1 known bug detected, 0 unexpected " \
                        "violations"


def test_a_certificate_against_an_infinite_claim_is_not_called_consistent():
    """Issue 39, item 12: a vacuous audit's progress line said "consistent"."""
    import dataclasses

    from dpaudit.api import audit_mechanism
    from dpaudit.audit.progress import format_progress

    # δ = 0 stated (left out, δ is the claim's own: issue 36)
    (record,) = audit_mechanism("gaussian", params={"epsilon": 1.0, "delta": 1e-5},
                                delta=0.0, samples=2000, search=False).records
    assert record.claimed_epsilon == float("inf")
    line = format_progress(dataclasses.replace(record, verdict="consistent"))
    assert "vacuous (claim ε = ∞" in line and " consistent " not in line
