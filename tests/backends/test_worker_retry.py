"""A dying worker loses only its own certificate, retried once (real processes, no mocks).

A worker process that dies (SIGKILL from the OOM killer or a user, a segfault, ``os._exit``)
breaks the whole ``ProcessPoolExecutor``; dpaudit re-runs the tasks that had not started, and
retries the ones that were running once each in a pool of their own
(:mod:`dpaudit.backends.pool_retry`).  Checked here: a sampler that kills its worker the first
time gives every record of a run where nothing died; one that always kills it makes exactly
its own records errors; a worker killed from outside mid-run costs nothing; jobs get the same
treatment; Ctrl-C during a retry still stops everything and leaves no process behind.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from dpaudit.audit.plan import plan_suite
from dpaudit.api import run_suites
from dpaudit.backends import LocalBackend
from dpaudit.suite.spec import load_suite
from tests.support import alive, descendants, without_timings

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not sys.platform.startswith("linux"),
                                 reason="SIGKILL and /proc")]

SAMPLERS = '''
import os, signal, time
from pathlib import Path

STATE = Path({state!r})

def fine(dataset, n, rng):
    return float(sum(dataset)) + rng.laplace(0.0, 1.0, size=n)

def dies_once(dataset, n, rng):
    """Kills its worker the first time it is ever called, then behaves like `fine`."""
    if not (STATE / "died").exists():
        (STATE / "died").write_text(str(os.getpid()))
        os.kill(os.getpid(), signal.SIGKILL)
    return fine(dataset, n, rng)

def always_dies(dataset, n, rng):
    with open(STATE / "deaths", "a") as fh:
        fh.write(f"{{os.getpid()}}\\n")
    os.kill(os.getpid(), signal.SIGKILL)

def slow(dataset, n, rng):
    time.sleep(0.3)
    return fine(dataset, n, rng)

def dies_once_then_crawls(dataset, n, rng):
    """Kills its worker the first time; afterwards (the retry) takes minutes."""
    if not (STATE / "died").exists():
        (STATE / "died").write_text(str(os.getpid()))
        os.kill(os.getpid(), signal.SIGKILL)
    (STATE / "retrying").write_text(str(os.getpid()))
    time.sleep(120)
    return fine(dataset, n, rng)
'''


def audit(name: str, sampler: str, epsilon: float = 1.0, d1: int = 1) -> str:
    return textwrap.dedent(f"""
        [[audit]]
        name = "{name}"
        sampler = "samplers.py:{sampler}"
        claim = {{ notion = "pure-dp", epsilon = {epsilon} }}
        [[audit.pairs]]
        d0 = [0]
        d1 = [{d1}]
        """)


def write_suite(tmp_path: Path, audits: list[str], samples: int = 5000) -> Path:
    state = tmp_path / "state"
    state.mkdir(exist_ok=True)
    (tmp_path / "samplers.py").write_text(SAMPLERS.format(state=str(state)))
    suite = tmp_path / "retry.toml"
    suite.write_text(f'[suite]\nname = "retry"\nsamples = {samples}\n' + "".join(audits))
    return suite




def comparable(records) -> list[dict]:
    return [without_timings(r.to_json()) for r in records]


def run(suite: Path, workers: int = 2):
    """The records of a run, and the records its progress callback saw."""
    seen = []
    result = run_suites([str(suite)], workers=workers, progress=seen.append)
    return result.records, seen


FOUR = [audit("fine-1", "fine"), audit("dies-once", "dies_once", 0.5),
        audit("fine-2", "fine", 2.0), audit("fine-3", "fine", 1.0, d1=2)]


def test_a_task_that_kills_its_worker_once_gives_the_numbers_of_a_run_where_nothing_died(
        tmp_path):
    suite = write_suite(tmp_path, FOUR)
    (tmp_path / "state" / "died").write_text("not this time")
    reference, _ = run(suite)
    (tmp_path / "state" / "died").unlink()
    records, seen = run(suite)
    assert (tmp_path / "state" / "died").exists()  # the worker really died
    assert [r.error for r in records] == [None] * 4
    assert comparable(records) == comparable(reference)
    assert [r.audit for r in records] == ["fine-1", "dies-once", "fine-2", "fine-3"]
    # progress: once per certificate, the retried one included, none twice
    assert sorted(r.audit for r in seen) == sorted(r.audit for r in records)


def test_a_task_that_always_kills_its_worker_is_the_only_error(tmp_path):
    suite = write_suite(tmp_path, [audit("fine-1", "fine"), audit("killer", "always_dies"),
                                   audit("fine-2", "fine", 2.0), audit("fine-3", "fine", 0.5)])
    records, seen = run(suite)
    by_audit = {r.audit: r for r in records}
    assert [r.audit for r in records] == ["fine-1", "killer", "fine-2", "fine-3"]
    assert by_audit["killer"].error == (
        "worker process died while running this test, and again when retried alone "
        "(killed by SIGKILL: out of memory?); the other tests were re-run")
    assert all(by_audit[a].error is None for a in ("fine-1", "fine-2", "fine-3"))
    assert by_audit["fine-3"].verdict == "violation"  # real certificates, not placeholders
    deaths = (tmp_path / "state" / "deaths").read_text().split()
    assert len(deaths) == 2 and len(set(deaths)) == 2  # once shared, once alone: no more
    assert len(seen) == 4


class Call:
    """A job of the pool: ``fn(*args)`` (the backend calls ``run()``)."""

    def __init__(self, fn, *args):
        self.fn, self.args = fn, args

    def run(self):
        return self.fn(*self.args)


def square(x):
    return x * x


def test_jobs_are_re_run_and_a_job_that_keeps_killing_its_worker_is_its_error(tmp_path):
    state = tmp_path / "state"
    state.mkdir()

    def job_dies_once(x):  # a closure: sent to the workers by value
        if not (state / "job-died").exists():
            (state / "job-died").write_text("")
            os.kill(os.getpid(), signal.SIGKILL)
        return {"value": x + 0.5}

    def job_always_dies():
        os.kill(os.getpid(), signal.SIGKILL)

    suite = write_suite(tmp_path, [audit("fine-1", "fine"), audit("fine-2", "fine", 2.0)])
    tasks, _ = plan_suite(load_suite(str(suite)))
    jobs = ([Call(square, k) for k in range(3)] + [Call(job_dies_once, 7), Call(job_always_dies)]
            + [Call(square, k) for k in range(3, 6)])
    tests, results = LocalBackend(2).run(tasks, jobs)
    assert results[:3] + results[5:] == [0, 1, 4, 9, 16, 25]
    assert results[3] == {"value": 7.5}
    assert results[4] == {"error": "worker process died while running this job, and again when "
                                   "retried alone (killed by SIGKILL: out of memory?); the other "
                                   "jobs were re-run"}
    assert [t.error for t in tests] == [None, None]


def pool_workers() -> set[int]:
    """pids of this process's pool workers: the children of its multiprocessing fork
    server (psutil if installed, else /proc)."""
    try:
        import psutil
    except ImportError:
        psutil = None
    if psutil is not None:
        out = set()
        for child in psutil.Process().children():
            try:
                if "forkserver" in " ".join(child.cmdline()):
                    out |= {p.pid for p in child.children()}
            except psutil.Error:
                pass
        return out
    table = {}
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{name}/stat") as fh:
                table[int(name)] = int(fh.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{name}/cmdline", "rb") as fh:
                if b"forkserver" in fh.read() and table[int(name)] == os.getpid():
                    table[int(name)] = -1  # mark the fork server
        except (OSError, ValueError, IndexError):
            pass
    servers = {pid for pid, parent in table.items() if parent == -1}
    return {pid for pid, parent in table.items() if parent in servers}


def test_a_worker_killed_from_outside_mid_run_costs_no_certificate(tmp_path):
    audits = [audit(f"slow-{k}", "slow", 1.0 + k / 4) for k in range(4)]  # ~2 s each
    suite = write_suite(tmp_path, audits)
    reference, _ = run(suite)
    killed = []

    def kill_one_worker():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            workers = pool_workers()
            if workers:
                time.sleep(1.0)  # its task is sampling now
                victim = min(workers)
                os.kill(victim, signal.SIGKILL)
                killed.append(victim)
                return
            time.sleep(0.05)

    killer = threading.Thread(target=kill_one_worker)
    killer.start()
    records, seen = run(suite)
    killer.join()
    assert killed, "no pool worker was found to kill"
    assert [r.error for r in records] == [None] * 4
    assert comparable(records) == comparable(reference)
    assert len(seen) == 4






def test_ctrl_c_during_a_retry_stops_everything_at_once(tmp_path):
    suite = write_suite(tmp_path, [audit("crawler", "dies_once_then_crawls"),
                                   audit("slow-1", "slow"), audit("slow-2", "slow", 2.0)])
    code = "import sys; from dpaudit.cli.commands import main; sys.exit(main())"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, "run", str(suite), "--out", str(tmp_path / "out"),
         "--workers", "2", "-q"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    retrying = tmp_path / "state" / "retrying"
    try:
        family, deadline = set(), time.monotonic() + 90
        while not retrying.exists():  # the crawler killed its worker and is being retried
            assert time.monotonic() < deadline and proc.poll() is None, "no retry started"
            family |= descendants(proc.pid)
            time.sleep(0.1)
        family |= descendants(proc.pid)
        assert int(retrying.read_text()) in family
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)  # not the crawler's two minutes
        deadline = time.monotonic() + 10
        while alive(family) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not alive(family), f"left behind after Ctrl-C: {sorted(alive(family))}"
    finally:
        if proc.poll() is None:
            proc.kill()
        for pid in alive(descendants(proc.pid)):
            os.kill(pid, signal.SIGKILL)
