"""The supervised child (issue 39, item 2): how a child ended is known whatever ended it, and
stop signals reach it exactly once whether they were sent to the parent alone or to the whole
process group."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.support import REPO, alive

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="supervision needs os.fork")

#: a parent that supervises ``child`` (sys.argv[1] names it) and prints its Ending
SCRIPT = textwrap.dedent("""\
    import atexit, json, os, signal, sys, time
    from dpaudit.util.supervise import supervise

    log, what = sys.argv[1], sys.argv[2]

    def ready():
        open(log + ".ready", "w").close()

    def counting():
        got = []
        signal.signal(signal.SIGINT, lambda s, f: got.append("SIGINT"))
        signal.signal(signal.SIGTERM, lambda s, f: got.append("SIGTERM"))
        ready()
        deadline = time.monotonic() + 1.5
        while time.monotonic() < deadline:
            time.sleep(0.02)
        with open(log, "w") as fh:
            fh.write(",".join(got))
        return 7

    def os_exit():
        os._exit(0)

    def sigkill():
        os.kill(os.getpid(), signal.SIGKILL)

    def atexit_exit():
        atexit.register(lambda: os._exit(3))
        return 0

    def forking():
        if os.fork() == 0:  # a grandchild that reports a status as if it were the child
            from dpaudit.util.supervise import reporter
            reporter()._send({"exit": 0})
            os._exit(0)
        os.wait()
        os._exit(5)

    def raises():
        raise ValueError("boom")

    def ignoring():
        ready()
        time.sleep(1.0)
        return 4

    def sleeper():
        with open(log + ".pid", "w") as fh:  # renamed: the reader never sees it half-written
            fh.write(str(os.getpid()))
        os.rename(log + ".pid", log + ".ready")
        time.sleep(60)
        return 0

    def noting():
        from dpaudit.util.supervise import reporter
        reporter().note(step="one")
        reporter().note(out="somewhere")
        os._exit(1)

    ending = supervise(globals()[what])
    print(json.dumps({"reported": ending.reported, "exit_code": ending.exit_code,
                      "signal": ending.signal, "received": list(ending.received),
                      "stopped": ending.stopped, "notes": ending.notes}))
    """)


def start(tmp_path: Path, what: str, **kwargs) -> tuple[subprocess.Popen, Path]:
    script = tmp_path / "supervised.py"
    script.write_text(SCRIPT)
    log = tmp_path / "log"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, str(script), str(log), what], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, start_new_session=True, **kwargs)
    return proc, log


def finish(proc: subprocess.Popen) -> dict:
    import json

    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


def wait_ready(log: Path) -> None:
    deadline = time.monotonic() + 30
    while not Path(f"{log}.ready").exists():
        assert time.monotonic() < deadline, "the child never started"
        time.sleep(0.02)


@pytest.mark.slow
@pytest.mark.parametrize("sig, to", [(signal.SIGINT, "group"), (signal.SIGTERM, "parent")],
                         ids=["SIGINT-group", "SIGTERM-parent"])
def test_a_stop_signal_reaches_the_child_exactly_once(tmp_path, sig, to):
    """Sent to the process group (Ctrl-C, ``timeout``, CI), the child gets it directly and the
    parent does not forward a second one; sent to the parent alone (``kill PID``), it is
    forwarded.  (The child counts what it gets for 1.5 s after it is ready.)"""
    proc, log = start(tmp_path, "counting")
    wait_ready(log)
    if to == "group":
        os.killpg(proc.pid, sig)
    else:
        proc.send_signal(sig)
    ending = finish(proc)
    assert log.read_text() == sig.name
    assert ending["reported"] == 7 and ending["received"] == [int(sig)]


@pytest.mark.slow
def test_an_end_without_report_is_told_apart_from_a_reported_status(tmp_path):
    for what, expected in [
            ("os_exit", {"reported": None, "exit_code": 0, "signal": None}),
            ("sigkill", {"reported": None, "exit_code": None, "signal": int(signal.SIGKILL)}),
            ("atexit_exit", {"reported": 0, "exit_code": 3, "signal": None}),
            ("forking", {"reported": None, "exit_code": 5, "signal": None}),
            ("raises", {"reported": 1, "exit_code": 1, "signal": None})]:
        ending = finish(start(tmp_path, what)[0])
        assert {k: ending[k] for k in expected} == expected, what
        assert not ending["stopped"]


def test_notes_reach_the_parent_even_when_the_child_is_ended(tmp_path):
    ending = finish(start(tmp_path, "noting")[0])
    assert ending["notes"] == {"step": "one", "out": "somewhere"}
    assert ending["reported"] is None and ending["exit_code"] == 1


@pytest.mark.slow
def test_an_ignored_signal_stays_ignored(tmp_path):
    """A job started with SIGINT ignored (``cmd &`` in a script) ignores Ctrl-C, supervised
    as before."""
    proc, log = start(tmp_path, "ignoring",
                      preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    wait_ready(log)
    os.killpg(proc.pid, signal.SIGINT)
    assert finish(proc) | {"received": []} == {
        "reported": 4, "exit_code": 4, "signal": None, "received": [], "stopped": False,
        "notes": {}}


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_the_child_dies_with_its_parent(tmp_path):
    """A SIGKILLed parent (a CI timeout's last resort) leaves no child running."""
    proc, log = start(tmp_path, "sleeper")
    wait_ready(log)
    child = int(Path(f"{log}.ready").read_text())
    proc.kill()
    proc.wait(timeout=10)
    deadline = time.monotonic() + 10
    while alive([child]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive([child])
