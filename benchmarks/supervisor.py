"""The cost of the console script's supervision (issue 39, item 2; dpaudit/cli/supervisor.py):
the same command run by the ``dpaudit`` console script (the command in a forked child that the
parent waits for) and unsupervised (``python -c "…commands.main()"``, what the console script
ran before), interleaved A/B rounds, wall time of the whole process as CI sees it.

Workloads: ``dpaudit check laplace --samples 2000`` (its five steps) and ``dpaudit run`` of a
one-audit suite (laplace, 2 000 samples per side, no search, ``--workers 1``).  Beside them the
supervision alone: :func:`dpaudit.util.supervise.supervise` of a function that returns at once,
in a process that has imported the CLI (the fork of that process, the pipe and the wait).

    python benchmarks/supervisor.py [--rounds 7] [--no-write]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import markdown_table, record

CONSOLE = str(Path(sys.executable).with_name("dpaudit"))
UNSUPERVISED = [sys.executable, "-c",
                "import sys; from dpaudit.cli.commands import main; sys.exit(main())"]
SUITE = ('[suite]\nsamples = 2000\n[[audit]]\nname = "lap"\nmechanism = "laplace"\n'
         'search = false\nwhite_box = false\n')
FORK_ONLY = r"""
import time, statistics, json
import dpaudit.cli.commands  # what the console script's parent holds when it forks
from dpaudit.util.supervise import supervise
times = []
for _ in range(30):
    start = time.perf_counter()
    ending = supervise(lambda: 0)
    times.append(time.perf_counter() - start)
    assert ending.reported == 0
print(json.dumps(statistics.median(times)))
"""


def timed(command: list[str], cwd: str) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}: {done.stderr[-2000:]}")
    return seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    load_before = os.getloadavg()
    workloads = {
        "dpaudit check laplace --samples 2000": ["check", "laplace", "--samples", "2000"],
        "dpaudit run (one audit, 2 000 samples, --workers 1)":
            ["run", "suite.toml", "--out", "out", "--workers", "1", "-q"],
    }
    times = {(w, mode): [] for w in workloads for mode in ("supervised", "unsupervised")}
    with tempfile.TemporaryDirectory() as cwd:
        Path(cwd, "suite.toml").write_text(SUITE)
        for r in range(args.rounds):
            for name, argv in workloads.items():
                order = ("supervised", "unsupervised") if r % 2 == 0 else \
                    ("unsupervised", "supervised")
                for mode in order:
                    command = [CONSOLE, *argv] if mode == "supervised" else [*UNSUPERVISED,
                                                                             *argv]
                    times[(name, mode)].append(timed(command, cwd))
    fork = float(subprocess.run([sys.executable, "-c", FORK_ONLY], check=True,
                                capture_output=True, text=True).stdout.strip())
    load_after = os.getloadavg()
    rows = []
    for name in workloads:
        a, b = times[(name, "supervised")], times[(name, "unsupervised")]
        rows.append([name, f"{statistics.median(b):.2f}", f"{statistics.median(a):.2f}",
                     f"{statistics.median(a) / statistics.median(b):.3f}",
                     f"{statistics.median([x - y for x, y in zip(a, b)]):+.3f}"])
    body = (f"{args.rounds} interleaved A/B rounds per workload (the order alternates), wall "
            f"time of the whole command as CI sees it; supervised: the `dpaudit` console "
            f"script; unsupervised: `python -c` calling `dpaudit.cli.commands.main` (the "
            f"console script before).  The supervision alone (fork of the process that "
            f"imported the CLI, pipe, wait; median of 30): {fork * 1000:.1f} ms.  Load average "
            f"{load_before[0]:.1f} before, {load_after[0]:.1f} after on 2 cores shared with "
            f"other sessions: the per-command differences are within the noise of such a "
            f"machine; re-measure on a quiet one.\n\n"
            + markdown_table(["command", "unsupervised median s", "supervised median s",
                              "ratio", "median paired difference s"], rows))
    record("The console script's supervision: the cost (benchmarks/supervisor.py)", body,
           write=not args.no_write)


if __name__ == "__main__":
    main()
