"""The ``dpaudit`` console script supervises the command it runs (issue 39, item 2): user code
that ends the process — ``os._exit(0)``, SIGKILL, at import or in a sampler — made
``dpaudit run --workers 1`` and ``dpaudit check`` exit 0 with no results; now the command
exits 2 with one line saying what ended it and where the reports stand, and the reports it
had written say the run is incomplete.  Where a worker process holds the user code
(``--workers 2``), the other audits and suite files still run.  Each case runs the real
console script in a subprocess."""

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

from dpaudit.report.results_file import read_document

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
    "sys_exit_on_import.py": """\
        import sys
        sys.exit(0)
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
              "os_exit_import": "os_exit_on_import.py:sampler",
              "sys_exit_import": "sys_exit_on_import.py:sampler"}


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


@pytest.mark.slow
@pytest.mark.parametrize("ender, ended", [
    ("os_exit", "user code ended the dpaudit process (exit status 0)"),
    ("sigkill", "the dpaudit process was killed by SIGKILL")])
def test_a_sampler_that_ends_the_process_is_exit_2_and_the_reports_say_incomplete(
        tmp_path, ender, ended):
    root = project(tmp_path, ender)
    done = dpaudit(root, "run", "audits", "--out", "out", "--workers", "1", "-q")
    assert done.returncode == 2, done.stdout + done.stderr
    (line,) = error_lines(done.stderr)
    assert line.startswith(f"dpaudit: error: {ended}") and "before the run finished" in line
    assert ("out/results.json, summary.md, junit.xml and report.html say the run is "
            "incomplete (in progress, 0 of 3 tests finished)") in line
    assert "--workers 2" in line and "Traceback" not in done.stderr
    document = json.loads((root / "out" / "results.json").read_text())
    assert document["incomplete"]["reason"] == "in progress"
    assert document["summary"]["exit_status"] == 2
    assert "INCOMPLETE" in (root / "out" / "summary.md").read_text()
    assert "not run yet" in (root / "out" / "junit.xml").read_text()
    assert "INCOMPLETE" in (root / "out" / "report.html").read_text()


@pytest.mark.slow
@pytest.mark.parametrize("ender", ["os_exit", "sigkill"])
def test_with_workers_the_sampler_is_an_error_of_its_audit_and_the_rest_runs(tmp_path,
                                                                             ender):
    root = project(tmp_path, ender)
    done = dpaudit(root, "run", "audits", "--out", "out", "--workers", "2", "--oversubscribe",
                   "-q")
    assert done.returncode == 2, done.stdout + done.stderr
    assert error_lines(done.stderr) == []  # the run finished: its own summary says it
    records = {r["suite"]: r for r in read_document(root / "out" / "results.json")["audits"]}
    assert records["z_ok"]["verdict"] == "consistent"
    assert records["a_ender"]["verdict"] == "error"
    assert "worker process died" in records["a_ender"]["error"]


@pytest.mark.slow
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


@pytest.mark.slow
def test_an_earlier_runs_reports_are_not_taken_for_this_ones(tmp_path):
    root = project(tmp_path, "os_exit_import")
    (root / "audits" / "a_ender.toml").rename(root / "a_ender.toml")
    assert dpaudit(root, "run", "audits", "--out", "out", "-q").returncode == 0
    (root / "a_ender.toml").rename(root / "audits" / "a_ender.toml")
    done = dpaudit(root, "run", "audits", "--out", "out", "-q")
    assert done.returncode == 2
    (line,) = error_lines(done.stderr)
    assert "before it wrote any report (the reports in out are an earlier run's)" in line


@pytest.mark.slow
def test_sys_exit_at_import_is_an_error_of_its_file_and_the_other_file_runs(tmp_path):
    root = project(tmp_path, "sys_exit_import")
    done = dpaudit(root, "run", "audits", "--out", "out", "--workers", "1", "-q")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "called sys.exit(0)" in done.stderr
    document = read_document(root / "out" / "results.json")
    assert [r["verdict"] for r in document["audits"]] == ["consistent"]
    assert document.get("incomplete") is None


@pytest.mark.slow
@pytest.mark.parametrize("ender", ["os_exit", "sigkill"])
def test_dpaudit_check_of_a_sampler_that_ends_the_process_is_exit_2(tmp_path, ender):
    root = project(tmp_path, ender)
    done = dpaudit(root / "audits", "check", REFERENCES[ender], "--epsilon", "1", "--pair",
                   "[0]", "[1]", "--samples", "2000", "--json", "check.json")
    assert done.returncode == 2, done.stdout + done.stderr
    (line,) = error_lines(done.stderr)
    assert "before `dpaudit check` finished: the steps printed above are the ones it " \
           "finished; check.json was not written; exit status 2" in line
    assert "[1/5] claim" in done.stdout


def test_a_finished_command_keeps_its_own_status_and_output(tmp_path):
    done = dpaudit(tmp_path, "--version")
    assert (done.returncode, done.stdout.strip(), done.stderr) == (0, "dpaudit 0.1.0", "")
    bad = dpaudit(tmp_path, "run", "missing.toml", "--out", "out")
    assert bad.returncode == 2 and "cannot read" in bad.stderr
    assert "before the run finished" not in bad.stderr


#: a sampler that takes a minute per call: the run is still testing when the signal comes
SLOW_SAMPLER = "import time\ndef sampler(d, n, rng):\n    time.sleep(60)\n    return d\n"


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("to", ["group", "parent"])
def test_a_stop_signal_stops_the_supervised_run_once(tmp_path, sig, to):
    """Ctrl-C (the process group) and a signal to the console script's pid alone both stop
    the run as before: what finished is written, marked interrupted by that signal, and the
    exit status is 128 + its number."""
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
        if to == "group":
            os.killpg(proc.pid, sig)
        else:
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
