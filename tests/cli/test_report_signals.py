"""Ctrl-C or SIGTERM once the audits are done never costs the reports (issue 27, "interrupts
during report writing"): the reports are finished -- without figures if drawing them was cut
short -- and the run exits 130 / 143 with one line saying so, never a traceback, and never
leaves the "not run yet" reports of the start of the run beside a complete results.json.

The signals are real ones: sent by the run to itself from inside a renderer (deterministic:
exactly the window between results.json and the last report), or by the test once
results.json is complete while slowed-down figures are drawn."""

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

from dpaudit.util.stopping import Terminated, stop_status

ROOT = Path(__file__).resolve().parents[2]

SUITE = """
[suite]
name = "signals"
samples = 2000
seed = 5
{audits}
"""
AUDIT = """
[[audit]]
name = "lap{i}"
mechanism = "laplace"
params = {{ epsilon = {eps} }}
delta = [0.0, 0.01]
"""

# Patches the renderers of the run it starts: DPAUDIT_TEST_SIGNALS="figure:SIGINT,junit:SIGTERM"
# makes the first figure / junit.xml / report.html of a finished (or, with "stopped-junit", a
# stopped) run send that signal to the run itself; DPAUDIT_TEST_SLOW_FIGURES sleeps per figure.
RUNNER = textwrap.dedent("""
    import os, signal, sys, time
    import dpaudit.report.figures as figures, dpaudit.report.html as html
    import dpaudit.report.junit as junit
    plan = dict(item.split(":") for item in os.environ.get("DPAUDIT_TEST_SIGNALS", "").split(",")
                if item)
    slow = float(os.environ.get("DPAUDIT_TEST_SLOW_FIGURES", "0"))

    def send(step):
        sig = plan.pop(step, None)
        if sig:
            os.kill(os.getpid(), signal.Signals[sig])

    def hooked(draw):
        def draw_hooked(*args, **kwargs):
            send("figure")
            time.sleep(slow)
            return draw(*args, **kwargs)
        return draw_hooked

    def render_hooked(step, render):
        def render_hooked(report, *args, **kwargs):
            incomplete = report.run.incomplete
            if incomplete is None:
                send(step)
            elif incomplete.reason.startswith("interrupted"):
                send("stopped-" + step)
            return render(report, *args, **kwargs)
        return render_hooked

    figures.draw_curve = hooked(figures.draw_curve)
    figures.draw_sweep = hooked(figures.draw_sweep)
    junit.write_junit = render_hooked("junit", junit.write_junit)
    html.write_html = render_hooked("html", html.write_html)
    from dpaudit.cli.commands import main
    sys.exit(main())
""")


def write_suite(folder: Path, audits: int = 3) -> Path:
    path = folder / "signals.toml"
    body = "".join(AUDIT.format(i=i, eps=1.0 + i) for i in range(audits))
    path.write_text(SUITE.format(audits=body), encoding="utf-8")
    return path


def start(suite: Path, out: Path, *extra: str, signals: str = "", slow: float = 0.0):
    env = dict(os.environ, DPAUDIT_TEST_SIGNALS=signals, DPAUDIT_TEST_SLOW_FIGURES=str(slow),
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT),
                                                        os.environ.get("PYTHONPATH")])))
    return subprocess.Popen([sys.executable, "-c", RUNNER, "run", str(suite), "--out", str(out),
                             "--workers", "1", *extra], cwd=suite.parent, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def assert_finished_reports(out: Path, *, figures: bool) -> dict:
    """Every report is the finished run's (whole, none of them "not run yet" or incomplete),
    with figure links exactly when ``figures``; no temporary file is left."""
    document = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert "incomplete" not in document
    assert "not run" not in json.dumps(document) and document["summary"]["audits"] > 0
    summary = (out / "summary.md").read_text(encoding="utf-8")
    junit = (out / "junit.xml").read_text(encoding="utf-8")
    html = (out / "report.html").read_text(encoding="utf-8")
    for name, text, incomplete in (("summary.md", summary, "INCOMPLETE"),
                                   ("junit.xml", junit, 'type="Incomplete"'),
                                   ("report.html", html, "Incomplete run:")):
        assert "not run yet" not in text and incomplete not in text, name
    assert junit.rstrip().endswith("</testsuites>") and html.rstrip().endswith("</html>")
    linked = [c.get("figure") for c in document["curves"] if c.get("figure")]
    assert bool(linked) == figures, linked
    assert ("figures/" in summary) == figures
    assert not [p for p in out.rglob("*.tmp")], "a temporary was left behind"
    return document


@pytest.mark.slow
@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("step", ["figure", "junit", "html"])
def test_a_signal_while_writing_finishes_the_reports_and_exits_with_its_status(tmp_path, sig,
                                                                               step):
    out = tmp_path / "out"
    run = start(write_suite(tmp_path), out, signals=f"{step}:{sig}")
    _, err = run.communicate(timeout=120)
    assert run.returncode == stop_status(sig) == (130 if sig == "SIGINT" else 143), err
    assert "Traceback" not in err
    cut = step == "figure"
    assert (f"dpaudit: interrupted by {sig} while writing the reports: the run completed and "
            f"its reports are written{', without figures' if cut else ';'}") in err, err
    assert_finished_reports(out, figures=not cut)


@pytest.mark.slow
def test_a_second_signal_while_writing_leaves_no_report_unfinished(tmp_path):
    out = tmp_path / "out"
    run = start(write_suite(tmp_path), out, signals="figure:SIGTERM,junit:SIGINT,html:SIGTERM")
    _, err = run.communicate(timeout=120)
    assert run.returncode == 143, err  # the first signal's status
    assert "Traceback" not in err and "interrupted by SIGTERM while writing the reports" in err
    assert_finished_reports(out, figures=False)


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_from_outside_once_results_json_is_complete(tmp_path, sig):
    """As a user or a CI timeout would: sent once results.json no longer says the run is in
    progress, while the (slowed-down) figures are being drawn."""
    out = tmp_path / "out"
    run = start(write_suite(tmp_path, audits=4), out, slow=1.0)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            document = json.loads((out / "results.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            document = {"incomplete": True}
        if "incomplete" not in document:
            break
        assert run.poll() is None, run.communicate()
        time.sleep(0.02)
    else:
        raise AssertionError("results.json was never complete")
    run.send_signal(sig)
    _, err = run.communicate(timeout=60)
    assert run.returncode == 128 + sig, err
    assert "Traceback" not in err
    assert f"interrupted by {sig.name} while writing the reports" in err, err
    assert_finished_reports(out, figures=False)


@pytest.mark.slow
def test_a_second_signal_while_a_stopped_run_writes_its_reports(tmp_path):
    """Stopped by SIGINT during the audits, then SIGTERM while writing what finished: the
    reports still all say incomplete (none is left "not run yet"), exit status 130."""
    from tests.audit.test_resume import slow_suite, wait_for_tests
    from dpaudit.audit.journal import JOURNAL_NAME

    suite = slow_suite(tmp_path)
    out = tmp_path / "out"
    run = start(suite, out, signals="stopped-junit:SIGTERM")
    wait_for_tests(out / JOURNAL_NAME, 2, run)
    run.send_signal(signal.SIGINT)
    _, err = run.communicate(timeout=60)
    assert run.returncode == 130, err
    assert "Traceback" not in err
    assert "interrupted again by SIGTERM while writing the reports" in err, err
    document = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert document["incomplete"]["reason"] == "interrupted by SIGINT"
    for name in ("summary.md", "junit.xml", "report.html"):
        text = (out / name).read_text(encoding="utf-8")
        assert "not run yet" not in text and "in progress" not in text, name
    assert "⚠️ INCOMPLETE" in (out / "summary.md").read_text(encoding="utf-8")
    assert 'type="Incomplete"' in (out / "junit.xml").read_text(encoding="utf-8")
    assert "Incomplete run:" in (out / "report.html").read_text(encoding="utf-8")


# -- StopRequests, in-process ---------------------------------------------------------------

def test_stop_requests_raise_until_deferred_then_note():
    from dpaudit.util.stopping import StopRequests

    with StopRequests() as stops:
        with pytest.raises(Terminated):
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(1)
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)
        assert stops.signal is None
        stops.defer()
        os.kill(os.getpid(), signal.SIGTERM)
        os.kill(os.getpid(), signal.SIGINT)
        assert stops.received == ["SIGTERM", "SIGINT"] and stops.signal == "SIGTERM"
    assert signal.getsignal(signal.SIGTERM) is not stops._handle
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_stop_requests_cut_an_interruptible_step_short_once():
    from dpaudit.util.stopping import StopRequests

    with StopRequests() as stops:
        stops.defer()
        with pytest.raises(KeyboardInterrupt):
            with stops.interruptible():
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(1)
        os.kill(os.getpid(), signal.SIGTERM)  # after the step: noted only
        assert stops.received == ["SIGINT", "SIGTERM"]
        with pytest.raises(KeyboardInterrupt):  # a signal came already: skipped at once
            with stops.interruptible():
                raise AssertionError("not skipped")
