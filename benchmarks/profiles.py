"""Wall time of ``--profile quick`` against the default profile, and whether quick still meets
every shipped expectation.

Both profiles run every suite in ``audits/`` in this one process, exactly as ``dpaudit run
audits/`` does (same workers, seeds and families; no figures).  For each run: wall time,
where it went (planning = loading the suites and building their worst-case pairs, up to the
start of the first task; tasks = from there to the last certificate; the rest = judging and
the ε-over-sweep curves), the CPU seconds of this process and its worker processes (less
sensitive than wall time to other load on a shared machine; the 1-minute load average before
each run is listed), the samples per side summed over the (audit point, pair) tasks ("pairs";
each draws its samples once per test, twice with a white-box test), and how many audit points
met their expectation.  ``quick`` scales every audit's samples by 0.1 but never below its
``min_samples`` (the audits whose expected violation needs more).

    python benchmarks/profiles.py [--workers 2] [--keep DIR] [--no-write]

``--keep DIR`` writes DIR/PROFILE/results.json, e.g. to compare the default profile's numbers
with another revision's.
"""

from __future__ import annotations

import argparse
import multiprocessing.forkserver as forkserver
import os
import resource
import time
from pathlib import Path

from common import markdown_table, record

from dpaudit.backends.local import default_workers
from dpaudit.audit.progress import RunCounts, RunProgress
from dpaudit.results.records import exit_status
from dpaudit.results.options import PROFILES
from dpaudit.api import run_suites
from dpaudit.report.json_report import build_report
from dpaudit.report.results_file import write_results

AUDITS = Path(__file__).resolve().parent.parent / "audits"


class Clock(RunProgress):
    """Timestamps of the run's events (seconds since construction)."""

    def __init__(self):
        self.t0 = time.perf_counter()
        self.started_at = None
        self.last_record_at = None
        self.counts: RunCounts | None = None

    def started(self, counts):
        self.started_at = time.perf_counter() - self.t0
        self.counts = counts

    def record(self, record):
        self.last_record_at = time.perf_counter() - self.t0


def cpu_seconds() -> float:
    """User + system CPU time of this process, its finished children and the finished
    children of multiprocessing's fork server (dpaudit's pool workers are forked from it, so
    RUSAGE_CHILDREN alone misses them; Linux /proc)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
    pid = getattr(getattr(forkserver, "_forkserver", None), "_forkserver_pid", None)
    if pid:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            pass
    return total


def run_profile(profile: str, workers: int, keep: Path | None) -> dict:
    paths = sorted(str(p) for p in AUDITS.glob("*.toml"))
    load = os.getloadavg()[0]
    cpu = cpu_seconds()
    clock = Clock()
    run = run_suites(paths, profile=profile, workers=workers, progress=clock)
    cpu = cpu_seconds() - cpu
    tests = {(r.suite_file, r.audit_index, r.pair_index, None if r.sweep is None
              else r.sweep.index): r.samples for r in run.records}
    if keep is not None:
        report = build_report(run, command=f"benchmarks/profiles.py ({profile})",
                              exit_status=exit_status(run))
        write_results(report, keep / profile / "results.json")
    return {"profile": profile, "seconds": run.seconds, "cpu": cpu, "load": load,
            "planning": clock.started_at,
            "tasks": (clock.last_record_at or clock.started_at) - clock.started_at,
            "samples": sum(tests.values()), "tests": len(tests),
            "certificates": len(run.records),
            "met": sum(o.met_expectation for o in run.outcomes), "points": len(run.outcomes),
            "unmet": [f"{o.suite}/{o.audit}" for o in run.outcomes if not o.met_expectation]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=default_workers())
    parser.add_argument("--keep", type=Path, help="write DIR/PROFILE/results.json")
    parser.add_argument("--no-write", action="store_true", help="do not update RESULTS.md")
    args = parser.parse_args()
    results = [run_profile(p, args.workers, args.keep) for p in ("default", "quick")]
    default, quick = results
    rows = [[r["profile"], f"×{PROFILES[r['profile']]:g}", f"{r['samples']:,}", r["tests"],
             r["certificates"], f"{r['seconds']:.1f}", f"{r['planning']:.1f}",
             f"{r['tasks']:.1f}", f"{r['cpu']:.1f}", f"{r['load']:.1f}",
             f"{r['met']}/{r['points']}",
             ", ".join(r["unmet"]) or "—"] for r in results]
    table = markdown_table(["profile", "scale", "samples per side (sum over pairs)", "pairs",
                            "certificates", "wall s", "planning s", "tasks s", "CPU s",
                            "load before", "expectations met", "unmet"], rows)
    ratio = quick["seconds"] / default["seconds"]
    body = (f"`dpaudit run audits/` with each profile, one after the other in one process "
            f"(default first), {args.workers} workers, no figures.  Quick takes "
            f"{ratio:.2f}× the default's wall time and {quick['cpu'] / default['cpu']:.2f}× "
            f"its CPU time with {quick['samples'] / default['samples']:.2f}× its samples.  "
            f"Wall times depend on the other load of the shared machine (load average "
            f"column); the CPU ratio much less.\n\n{table}\n")
    record("Profiles: quick against default (benchmarks/profiles.py)", body,
           write=not args.no_write)


if __name__ == "__main__":
    main()
