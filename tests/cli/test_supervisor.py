"""The ``dpaudit`` console script supervises the command it runs (issue 39, item 2): user code
that ends the process — ``os._exit(0)``, SIGKILL, at import or in a sampler — made
``dpaudit run --workers 1`` and ``dpaudit check`` exit 0 with no results; now the command
exits 2 with one line saying what ended it and where the reports stand, and the reports it
had written say the run is incomplete.  Where a worker process holds the user code
(``--workers 2``), such an end is an error of that test and the other audits still run
(tests/backends/test_worker_retry.py).  Each end-to-end case runs the real console script in
a subprocess; the line's other wordings are pinned on :func:`outcome` directly."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from dpaudit.cli.announce import results_signature
from dpaudit.cli.supervisor import outcome
from dpaudit.util.supervise import Ending

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="supervision needs os.fork")

DPAUDIT = Path(sys.executable).with_name("dpaudit")

CODE = {
    "enders.py": """\
        import os, signal, sys

        def os_exit(d, n, rng):
            os._exit(0)

        def sigkill(d, n, rng):
            os.kill(os.getpid(), signal.SIGKILL)
        """,
    "os_exit_on_import.py": """\
        import os
        os._exit(0)
        def sampler(d, n, rng):
            return d
        """,
}
SAMPLER = ('[suite]\nsamples = 2000\n[[audit]]\nname = "x"\nsampler = "{ref}"\n'
           'claim = {{ notion = "pure-dp", epsilon = 1.0 }}\nsearch = false\n'
           '[[audit.pairs]]\nd0 = [0]\nd1 = [1]\n')
OK_AUDIT = '[[audit]]\nname = "ok"\nmechanism = "laplace"\nsearch = false\n'
OK = '[suite]\nsamples = 2000\n' + OK_AUDIT
REFERENCES = {"os_exit": "enders.py:os_exit", "sigkill": "enders.py:sigkill",
              "os_exit_import": "os_exit_on_import.py:sampler"}


def project(tmp_path: Path, ender: str) -> Path:
    """A project whose audits/ holds a suite naming ``ender`` and a good suite after it."""
    (tmp_path / "pyproject.toml").write_text("")
    audits = tmp_path / "audits"
    audits.mkdir()
    for name, text in CODE.items():
        (audits / name).write_text(textwrap.dedent(text))
    (audits / "a_ender.toml").write_text(SAMPLER.format(ref=REFERENCES[ender]))
    (audits / "z_ok.toml").write_text(OK)
    return tmp_path


def dpaudit(cwd: Path, *argv: str, timeout: float = 300) -> subprocess.CompletedProcess:
    assert DPAUDIT.exists(), f"no console script at {DPAUDIT}: pip install -e ."
    return subprocess.run([str(DPAUDIT), *argv], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "PYTHONIOENCODING": "utf-8"})


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("dpaudit: error:")]


@pytest.mark.slow  # ~2 s on a quiet machine: one `dpaudit run` of a 2000-sample audit
def test_a_sampler_that_ends_the_process_is_exit_2_and_the_reports_say_incomplete(tmp_path):
    """Before: exit status 0 and placeholder reports."""
    root = project(tmp_path, "os_exit")
    done = dpaudit(root, "run", "audits", "--out", "out", "--workers", "1", "-q")
    assert done.returncode == 2, done.stdout + done.stderr
    (line,) = error_lines(done.stderr)
    assert line.startswith("dpaudit: error: user code ended the dpaudit process (exit status "
                           "0) before the run finished: ")
    assert ("out/results.json, summary.md, junit.xml and report.html say the run is "
            "incomplete (in progress, 0 of 3 tests finished)") in line
    assert "--workers 2" in line and "Traceback" not in done.stderr
    document = json.loads((root / "out" / "results.json").read_text())
    assert document["incomplete"]["reason"] == "in progress"
    assert document["summary"]["exit_status"] == 2
    assert "INCOMPLETE" in (root / "out" / "summary.md").read_text()
    assert "not run yet" in (root / "out" / "junit.xml").read_text()
    assert "INCOMPLETE" in (root / "out" / "report.html").read_text()


@pytest.mark.slow  # ~1.5 s: the suite's file ends the process at import
def test_os_exit_at_import_is_exit_2_saying_no_report_was_written(tmp_path):
    root = project(tmp_path, "os_exit_import")
    done = dpaudit(root, "run", "audits", "--out", "out", "-q")
    assert done.returncode == 2, done.stdout + done.stderr
    (line,) = error_lines(done.stderr)
    assert line == ("dpaudit: error: user code ended the dpaudit process (exit status 0) "
                    "before the run finished: it ended while the suites were loaded and "
                    "planned, before it wrote any report (out holds no reports); exit "
                    "status 2")
    assert not (root / "out" / "results.json").exists()


@pytest.mark.slow  # ~1.5 s: one `dpaudit check` whose first sampling step kills it
def test_dpaudit_check_of_a_sampler_killed_by_sigkill_is_exit_2(tmp_path):
    root = project(tmp_path, "sigkill")
    done = dpaudit(root / "audits", "check", REFERENCES["sigkill"], "--epsilon", "1",
                   "--pair", "[0]", "[1]", "--samples", "2000", "--json", "check.json")
    assert done.returncode == 2, done.stdout + done.stderr
    (line,) = error_lines(done.stderr)
    assert line.startswith("dpaudit: error: the dpaudit process was killed by SIGKILL (by "
                           "user code, or out of memory?) before `dpaudit check` finished: ")
    assert line.endswith("the steps printed above are the ones it finished; check.json was "
                         "not written; exit status 2")
    assert "[1/" in done.stdout and not (root / "audits" / "check.json").exists()


def test_the_line_tells_an_earlier_runs_reports_from_this_ones(tmp_path):
    """A run ended before it wrote a report leaves ``--out`` as it was: the line says whose
    reports are there (the signature taken when the run started is unchanged)."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "results.json").write_text("{}")
    notes = {"command": "run", "out": "out", "out_path": str(out), "workers": 1,
             "results_before": results_signature(str(out / "results.json"))}
    status, line = outcome(Ending(reported=None, exit_code=0, signal=None, notes=notes))
    assert status == 2
    assert line == ("dpaudit: error: user code ended the dpaudit process (exit status 0) "
                    "before the run finished: it ended while the suites were loaded and "
                    "planned, before it wrote any report (the reports in out are an earlier "
                    "run's); exit status 2")


def test_a_reported_status_or_a_stop_from_outside_is_passed_on():
    assert outcome(Ending(reported=0, exit_code=0, signal=None)) == (0, None)
    assert outcome(Ending(reported=3, exit_code=0, signal=None)) == (3, None)  # atexit's end
    term = int(signal.SIGTERM)
    assert outcome(Ending(reported=None, exit_code=None, signal=term, received=(term,))) == \
        (128 + term, "dpaudit: stopped by SIGTERM")
    status, line = outcome(Ending(reported=None, exit_code=None, signal=int(signal.SIGSEGV),
                                  notes={"command": "accountants"}))
    assert status == 2 and line.startswith(
        "dpaudit: error: the dpaudit process was killed by SIGSEGV (a crash in user code or "
        "a C extension?) before `dpaudit accountants` finished")


@pytest.mark.slow
def test_a_finished_command_keeps_its_own_status_and_output(tmp_path):
    done = dpaudit(tmp_path, "--version")
    assert (done.returncode, done.stdout.strip(), done.stderr) == (0, "dpaudit 0.1.0", "")
    bad = dpaudit(tmp_path, "run", "missing.toml", "--out", "out")
    assert bad.returncode == 2 and "cannot read" in bad.stderr
    assert "before the run finished" not in bad.stderr


#: a sampler that takes a minute per call: the run is still testing when the signal comes
SLOW_SAMPLER = "import time\ndef sampler(d, n, rng):\n    time.sleep(60)\n    return d\n"


@pytest.mark.slow  # ~3 s: a run stopped while it samples
def test_a_stop_signal_stops_the_supervised_run_once(tmp_path):
    """SIGTERM to the console script's pid alone (``kill PID``, a CI runner) stops the run as
    before: the supervising process passes it on once, what finished is written, marked
    interrupted by it, and the exit status is 143.  (The process group's signal, Ctrl-C,
    reaching both: tests/util/test_supervise.py.)"""
    sig = signal.SIGTERM
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "slow.py").write_text(SLOW_SAMPLER)
    (tmp_path / "slow.toml").write_text(SAMPLER.format(ref="slow.py:sampler") + OK_AUDIT)
    out = tmp_path / "out"
    proc = subprocess.Popen([str(DPAUDIT), "run", "slow.toml", "--out", "out", "--workers", "1"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not (out / "results.json").exists():  # the tests have started
            assert time.monotonic() < deadline and proc.poll() is None, proc.stderr.read()
            time.sleep(0.1)
        time.sleep(0.5)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 128 + int(sig), err
    assert f"interrupted by {sig.name}" in err and "interrupted again" not in err
    assert "Traceback" not in err and error_lines(err) == []
    document = json.loads((out / "results.json").read_text())
    assert document["incomplete"]["reason"] == f"interrupted by {sig.name}"
