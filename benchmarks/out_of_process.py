"""The cost of running user code out of process (issue 39, items 1-2): the Python API's
default (one worker: the tests run in the calling process) against the same audits in a
one-process pool (a fork-server worker: what running every test out of process would cost),
interleaved, same seeds.  The numbers must be identical; the wall times are what moving
in-process runs out of process would cost per audit.

    python benchmarks/out_of_process.py [--audits 5] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

from common import markdown_table, record

CHILD = r"""
import sys, time, json
from dpaudit.api import audit_mechanism
from dpaudit.backends.local import LocalBackend
if sys.argv[1] == "pool":
    def run(self, tasks, jobs, on_task=None):
        from dpaudit.audit.procedures.base import run_test
        from dpaudit.backends.pool_retry import run_calls
        results = [None] * len(tasks)
        def done(u, result, error):
            results[u] = result
            if on_task:
                on_task(u, result)
        run_calls([(run_test, (t,)) for t in tasks], workers=1, done=done)
        return results, [j.run() for j in jobs]
    LocalBackend.run = run
n = int(sys.argv[2])
start = time.perf_counter()
bounds = [[r.epsilon_lower_bound for r in audit_mechanism("laplace", samples=20000, seed=i).records]
          for i in range(n)]
print(json.dumps({"seconds": (time.perf_counter() - start) / n, "bounds": bounds}))
"""


def once(mode: str, audits: int) -> dict:
    import json

    out = subprocess.run([sys.executable, "-c", CHILD, mode, str(audits)], check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--audits", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    times = {"in-process": [], "pool": []}
    bounds = {}
    for _ in range(args.rounds):
        for mode in ("in-process", "pool"):
            got = once("pool" if mode == "pool" else "inproc", args.audits)
            times[mode].append(got["seconds"])
            bounds.setdefault(mode, got["bounds"])
    same = bounds["in-process"] == bounds["pool"]
    rows = [[mode, f"{statistics.median(t):.2f}", ", ".join(f"{x:.2f}" for x in t)]
            for mode, t in times.items()]
    ratio = statistics.median(times["pool"]) / statistics.median(times["in-process"])
    body = (f"`audit_mechanism('laplace', samples=20000)` ({args.audits} audits per process, "
            f"{args.rounds} interleaved rounds; the whole audit: planning, the named pair and "
            f"the pair search, sequential looks).  Numbers identical both ways: {same}.  "
            f"Median cost of running the tests out of process: {ratio:.1f}× per audit.  Load "
            f"average {os.getloadavg()[0]:.1f}: re-measure on a quiet machine.  The default "
            f"`dpaudit run audits/` already runs its tests in worker processes (one per core); "
            f"only parsing and planning run user code in the calling process there.\n\n"
            + markdown_table(["where the tests run", "median s per audit", "rounds"], rows))
    record("Running user code out of process: the cost (benchmarks/out_of_process.py)", body,
           write=not args.no_write)


if __name__ == "__main__":
    main()
