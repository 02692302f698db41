"""A run that ends early writes what it finished, marked incomplete, and ``--resume`` continues
it with the numbers an uninterrupted run gives (issue 17 items 2 and 3)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dpaudit.audit.journal import JOURNAL_NAME, ResumeError, read_journal
from dpaudit.audit.progress import RunProgress
from dpaudit.api import RunInterrupted, run_suites
from dpaudit.cli.commands import main
from dpaudit.report.results_file import read_document, read_report
from tests.support import without_timings

SUITE = """
[suite]
name = "tiny"
samples = 2000
seed = 11

[[audit]]
name = "laplace"
mechanism = "laplace"

[[audit]]
name = "rr"
mechanism = "randomized-response"
search = false  # laplace's searched tests are enough to pin resuming a search

[[audit]]
name = "geometric"
mechanism = "geometric"
search = false

[[audit]]
name = "swept"
mechanism = "laplace"
search = false
sweep = { epsilon = [0.5, 1.0, 2.0] }
"""

SLOW_SAMPLER = """
import time
def sampler(d, n, rng):
    time.sleep(0.2 if n > 1000 else 0.0)  # the selection and certification draws
    return float(d[0]) + rng.laplace(0.0, 1.0, size=n)
"""


def slow_suite(tmp_path: Path, audits: int = 8) -> Path:
    (tmp_path / "slow.py").write_text(SLOW_SAMPLER, encoding="utf-8")
    text = '[suite]\nname = "slow"\nsamples = 2000\nseed = 3\n'
    for i in range(audits):
        text += (f'[[audit]]\nname = "a{i}"\nsampler = "slow.py:sampler"\n'
                 'claim = { notion = "pure-dp", epsilon = 1.0 }\n'
                 'representation = false\n'  # a float-naive sampler: about resuming
                 '[[audit.pairs]]\nd0 = [0.0]\nd1 = [1.0]\n')
    path = tmp_path / "slow.toml"
    path.write_text(text, encoding="utf-8")
    return path




def records(run) -> list:
    return without_timings([r.to_json() for r in run.records])


class StopAfter(RunProgress):
    """Ctrl-C after ``n`` records have been reported."""

    def __init__(self, n: int):
        self.n = n

    def record(self, record):
        self.n -= 1
        if self.n == 0:
            raise KeyboardInterrupt


@pytest.fixture
def suite(tmp_path) -> Path:
    path = tmp_path / "tiny.toml"
    path.write_text(SUITE, encoding="utf-8")
    return path


@pytest.mark.slow
def test_an_interrupted_run_carries_what_finished_and_resume_gives_the_same_numbers(
        suite, tmp_path):
    full = run_suites([suite])
    journal = tmp_path / "out" / JOURNAL_NAME
    with pytest.raises(RunInterrupted) as stopped:
        run_suites([suite], progress=StopAfter(3), journal=journal)
    partial = stopped.value.run
    assert stopped.value.signal == "SIGINT" and isinstance(stopped.value, KeyboardInterrupt)
    assert partial.incomplete.reason == "interrupted by SIGINT"
    # laplace's named pair (black- and white-box) and its two searched pairs (black-box)
    assert partial.incomplete.tests_finished == 2 + 1 + 1
    assert partial.incomplete.tests_planned == sum(s.tests for s in full.suites)
    finished = [r for r in partial.records if r.error is None]
    assert len(finished) == 3
    assert all("not run: the run was interrupted by SIGINT" in r.error
               for r in partial.records if r.error)
    assert records(full)[:3] == without_timings([r.to_json() for r in finished])
    assert [r.search is not None for r in finished] == [False, True, True]

    resumed = run_suites([suite], journal=journal, resume=True)
    assert resumed.incomplete is None
    assert records(resumed) == records(full)
    assert resumed.curves == full.curves  # typed figure data, no timings in them
    assert without_timings([s.to_json() for s in resumed.series]) == \
        without_timings([s.to_json() for s in full.series])


@pytest.mark.slow
def test_a_last_journal_line_cut_short_is_run_again(suite, tmp_path):
    journal = tmp_path / JOURNAL_NAME
    with pytest.raises(RunInterrupted):
        run_suites([suite], progress=StopAfter(2), journal=journal)
    with open(journal, "a", encoding="utf-8") as handle:
        handle.write('{"test": "half a li')  # a kill in the middle of a write
    _, finished, _ = read_journal(journal)
    assert len(finished) == 2
    resumed = run_suites([suite], journal=journal, resume=True)
    assert records(resumed) == records(run_suites([suite]))
    _, finished, _ = read_journal(journal)  # the cut line was dropped, the rest appended
    assert len(finished) == len({(r.audit, r.sweep, r.pair_index) for r in resumed.records})


@pytest.mark.slow  # over a second (the fast loop's rule)
def test_a_journal_line_nested_too_deeply_is_damaged_and_run_again(suite, tmp_path, capsys):
    """A line nested deeper than MAX_JSON_DEPTH is a damaged line, like one cut short: whether
    the JSON parser runs out of recursion on it (100 000 levels) or it parses and is a whole
    entry but for a curve nested 200 levels deep (which the run would walk recursively)."""
    out = tmp_path / "out"
    journal = out / JOURNAL_NAME
    with pytest.raises(RunInterrupted):
        run_suites([suite], progress=StopAfter(2), journal=journal)
    lines = journal.read_text(encoding="utf-8").splitlines(keepends=True)
    header, entries = lines[0], lines[1:]
    assert len(entries) == 2
    deep_curve = json.loads(entries[1])
    for _ in range(200):
        deep_curve["result"]["curve"] = [deep_curve["result"]["curve"]]
    full = records(run_suites([suite]))
    for damaged in ("[" * 100_000 + "]" * 100_000 + "\n", json.dumps(deep_curve) + "\n"):
        journal.write_text(header + entries[0] + damaged + entries[1], encoding="utf-8")
        _, finished, valid = read_journal(journal)
        assert len(finished) == 1 and valid == len((header + entries[0]).encode())
        assert main(["run", str(suite), "--out", str(out), "--workers", "1", "-q",
                     "--resume"]) == 0
        err = capsys.readouterr().err
        assert "Traceback" not in err
        assert without_timings(read_document(out / "results.json")["audits"]) == full
    journal.write_text("[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    with pytest.raises(ResumeError, match="is not a dpaudit run journal \\(nested deeper"):
        read_journal(journal)


def test_a_journal_of_a_different_run_is_refused(suite, tmp_path):
    journal = tmp_path / JOURNAL_NAME
    with pytest.raises(RunInterrupted):
        run_suites([suite], progress=StopAfter(1), journal=journal)
    with pytest.raises(ResumeError, match="--samples None → 5000"):
        run_suites([suite], samples=5000, journal=journal, resume=True)
    suite.write_text(SUITE.replace("seed = 11", "seed = 12"), encoding="utf-8")
    with pytest.raises(ResumeError, match=f"{suite} changed since it was interrupted"):
        run_suites([suite], journal=journal, resume=True)
    journal.write_text("not json\n", encoding="utf-8")
    with pytest.raises(ResumeError, match="is not a dpaudit run journal"):
        run_suites([suite], journal=journal, resume=True)


@pytest.mark.slow
def test_the_cli_refuses_a_changed_suite_and_resumes_nothing_gracefully(suite, tmp_path,
                                                                         capsys):
    out = tmp_path / "out"
    assert main(["run", str(suite), "--out", str(out), "--workers", "1", "-q",
                 "--resume"]) == 0  # nothing to resume: every test runs
    err = capsys.readouterr().err
    assert "no interrupted run to continue" in err
    assert not (out / JOURNAL_NAME).exists()  # a complete run leaves no journal
    with pytest.raises(RunInterrupted):
        run_suites([suite], progress=StopAfter(1), journal=out / JOURNAL_NAME)
    suite.write_text(SUITE + "\n# edited\n", encoding="utf-8")
    assert main(["run", str(suite), "--out", str(out), "--workers", "1", "-q",
                 "--resume"]) == 2
    err = capsys.readouterr().err
    assert f"cannot resume the run journalled in {out / JOURNAL_NAME}: {suite} changed" in err
    assert "Traceback" not in err


def wait_for_tests(journal: Path, n: int, process, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if journal.exists() and journal.read_text(encoding="utf-8").count("\n") > n:
            return
        assert process.poll() is None, process.communicate()
        time.sleep(0.05)
    raise AssertionError(f"the run did not journal {n} tests in {timeout} s")


def start_run(suite: Path, out: Path, *extra: str):
    return subprocess.Popen(
        [sys.executable, "-c", "import sys; from dpaudit.cli.commands import main; sys.exit(main())",
         "run", str(suite), "--out", str(out), *extra], cwd=suite.parent, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.slow
def test_sigterm_writes_an_incomplete_run_that_resume_completes(tmp_path):
    workers = "2"  # the in-process path is the killed run's below
    suite = slow_suite(tmp_path)
    out = tmp_path / "out"
    run = start_run(suite, out, "--workers", workers)
    wait_for_tests(out / JOURNAL_NAME, 2, run)
    run.send_signal(signal.SIGTERM)
    _, err = run.communicate(timeout=60)
    assert run.returncode == 143, err
    assert "interrupted by SIGTERM" in err and "--resume" in err and "Traceback" not in err

    document = json.loads((out / "results.json").read_text(encoding="utf-8"))
    incomplete = document["incomplete"]
    assert incomplete["reason"] == "interrupted by SIGTERM"
    assert 2 <= incomplete["tests_finished"] < incomplete["tests_planned"] == 8
    jsonschema = pytest.importorskip("jsonschema")
    from dpaudit.results.records import SCHEMA_FILE
    jsonschema.validate(document, json.loads(Path(SCHEMA_FILE).read_text(encoding="utf-8")))
    report = read_report(out / "results.json")
    assert report.run.incomplete.tests_finished == incomplete["tests_finished"]
    assert "⚠️ INCOMPLETE" in (out / "summary.md").read_text(encoding="utf-8").splitlines()[0]
    assert 'type="Incomplete"' in (out / "junit.xml").read_text(encoding="utf-8")
    assert "Incomplete run:" in (out / "report.html").read_text(encoding="utf-8")

    resumed = start_run(suite, out, "--workers", workers, "--resume")
    _, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err
    assert not (out / JOURNAL_NAME).exists()
    document = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert "incomplete" not in document
    full = run_suites([suite])
    assert without_timings(read_document(out / "results.json")["audits"]) == records(full)


@pytest.mark.slow
def test_a_killed_run_leaves_reports_that_say_so_and_resumes(tmp_path):
    suite = slow_suite(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / "summary.md").write_text("## ✅ the previous run's summary\n", encoding="utf-8")
    run = start_run(suite, out, "--workers", "1")
    wait_for_tests(out / JOURNAL_NAME, 2, run)
    os.kill(run.pid, signal.SIGKILL)
    run.communicate(timeout=30)
    summary = (out / "summary.md").read_text(encoding="utf-8")
    assert summary.startswith("## ⚠️ INCOMPLETE — 0 of 8 tests finished (in progress")
    records_at_start = read_document(out / "results.json")["audits"]
    assert all(r["error"].startswith("not run yet") for r in records_at_start)

    resumed = start_run(suite, out, "--workers", "1", "--resume")
    _, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err
    assert re.search(r"resuming: [2-8] of the certificates were finished", err), err
    full = run_suites([suite])
    assert without_timings(read_document(out / "results.json")["audits"]) == records(full)


@pytest.mark.slow
def test_resume_refuses_a_journal_when_the_code_the_suite_names_changed(tmp_path):
    """Only the TOML used to be fingerprinted: a sampler edited to leak between the interrupt
    and --resume mixed two samplers' numbers in a 'complete' run (issue 27, item 3)."""
    path = slow_suite(tmp_path, audits=3)
    journal = tmp_path / "out" / JOURNAL_NAME
    with pytest.raises(RunInterrupted):
        run_suites([path], progress=StopAfter(1), journal=journal)
    (tmp_path / "slow.py").write_text(SLOW_SAMPLER.replace("1.0, size=n", "0.01, size=n"),
                                      encoding="utf-8")
    sampler = (tmp_path / "slow.py").resolve()
    with pytest.raises(ResumeError, match=f"{re.escape(str(sampler))} changed since it was "
                                          f"interrupted"):
        run_suites([path], journal=journal, resume=True)


@pytest.mark.slow
@pytest.mark.parametrize("tamper", ["edited bound", "emptied result"])
def test_a_journal_entry_is_not_trusted_as_written(suite, tmp_path, tamper):
    """An entry whose ε_LB was edited (its digest no longer matches) or whose certificates
    were emptied (digest recomputed: it no longer fits its planned task) runs again: the
    resumed run gives the uninterrupted run's records, never a dropped audit or an edited
    number (issue 27, item 3)."""
    from dpaudit.audit.journal import entry_digest

    journal = tmp_path / JOURNAL_NAME
    with pytest.raises(RunInterrupted):
        run_suites([suite], progress=StopAfter(2), journal=journal)
    header, first, *rest = journal.read_text(encoding="utf-8").splitlines(keepends=True)
    entry = json.loads(first)
    if tamper == "edited bound":
        entry["result"]["certificates"][0]["epsilon_lower_bound"] = 42.0
    else:
        entry["result"]["certificates"] = []
        entry["sha256"] = entry_digest(entry["test"], entry["result"])
    journal.write_text(header + json.dumps(entry) + "\n" + "".join(rest), encoding="utf-8")
    resumed = run_suites([suite], journal=journal, resume=True)
    assert records(resumed) == records(run_suites([suite]))
    assert all(r.epsilon_lower_bound != 42.0 for r in resumed.records)


@pytest.mark.slow
def test_resume_refuses_a_journal_when_a_module_the_named_file_imports_changed(tmp_path):
    """Issue 39, item 8: only the named file was fingerprinted; a helper module it imports
    changed between the interrupt and --resume and the run mixed two versions (10/16 points
    met against 0/16 fresh)."""
    import uuid

    helper = f"noise_{uuid.uuid4().hex[:8]}"  # a module name no other test imported
    (tmp_path / f"{helper}.py").write_text("SCALE = 1.0\n", encoding="utf-8")
    path = slow_suite(tmp_path, audits=3)
    (tmp_path / "slow.py").write_text(
        f"from {helper} import SCALE\n" + SLOW_SAMPLER.replace("1.0, size=n", "SCALE, size=n"),
        encoding="utf-8")
    journal = tmp_path / "out" / JOURNAL_NAME
    with pytest.raises(RunInterrupted):
        run_suites([path], progress=StopAfter(1), journal=journal)
    (tmp_path / f"{helper}.py").write_text("SCALE = 0.01\n", encoding="utf-8")
    changed = re.escape(str((tmp_path / f"{helper}.py").resolve()))
    with pytest.raises(ResumeError, match=f"{changed} changed since it was interrupted"):
        run_suites([path], journal=journal, resume=True)
