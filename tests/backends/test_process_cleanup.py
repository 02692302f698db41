"""No process outlives a stopped run (issue 17 item 3): after Ctrl-C, SIGTERM (what a CI
timeout sends first) or SIGKILL of `dpaudit run`, its pool workers, the fork server and the
resource tracker are all gone within seconds."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from tests.support import alive, descendants

SUITE = """
[suite]
name = "long"
samples = 100000000

[[audit]]
name = "a"
mechanism = "laplace"

[[audit]]
name = "b"
mechanism = "geometric"

[[audit]]
name = "c"
mechanism = "laplace"
params = { epsilon = 2.0 }
"""








@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("sig, reaped", [(signal.SIGINT, True), (signal.SIGTERM, True),
                                          (signal.SIGKILL, True), (signal.SIGKILL, False)],
                         ids=["SIGINT", "SIGTERM", "SIGKILL", "SIGKILL-unreaped"])
def test_a_stopped_run_leaves_no_process_behind(tmp_path, sig, reaped):
    """``reaped=False``: the killed run stays a zombie while its parent does not wait for it
    (a parent that reads the run's pipes to EOF first, issue 27 item 2): its workers must
    notice anyway, or that parent waits for ever.  (The console script's supervising process
    passes SIGTERM on and takes its child with it on SIGKILL: tests/cli/test_supervisor.py,
    tests/util/test_supervise.py.)

    Nothing is printed once the run is gone: the resource tracker, which unlinks the pool's
    semaphores after a SIGKILL, printed "There appear to be 5 leaked semaphore objects"
    (issue 39, item 12(d); :func:`dpaudit.util.processes._quiet_resource_tracker`)."""
    suite = tmp_path / "long.toml"
    suite.write_text(textwrap.dedent(SUITE), encoding="utf-8")
    code = "import sys; from dpaudit.cli.commands import main; sys.exit(main())"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, "run", str(suite), "--out", str(tmp_path / "out"),
         "--workers", "2", "-q"], stdout=subprocess.DEVNULL,
        stderr=(tmp_path / "stderr").open("w"),  # a file: nobody waits for its end
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline, family = time.monotonic() + 60, set()
        while time.monotonic() < deadline and len(family) < 4:  # tracker, server, 2 workers
            time.sleep(0.2)
            family |= descendants(proc.pid)
        assert len(family) >= 4, f"the pool did not start: {family}"
        time.sleep(1.0)  # the workers are sampling now
        family |= descendants(proc.pid)
        proc.send_signal(sig)
        if reaped:
            proc.wait(timeout=20)
        deadline = time.monotonic() + 10
        while alive(family) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not alive(family), f"left behind after {sig.name}: {sorted(alive(family))}"
        stderr = (tmp_path / "stderr").read_text()
        assert "resource_tracker" not in stderr and "Traceback" not in stderr, stderr
    finally:
        if proc.poll() is None:
            proc.kill()
        for pid in alive(descendants(proc.pid)):
            os.kill(pid, signal.SIGKILL)
