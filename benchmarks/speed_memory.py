"""Estimator wall time against plain numpy sampling, and memory from 10⁶ to 10⁸ samples.

Speed: for a few zoo mechanisms, the median (over ``--repeats``) wall time of
``estimate_epsilon_lower_bound`` at n samples per side, divided by the median time to draw the
same 2n outputs with the mechanism's own vectorised sampler in two plain numpy calls.
Memory: the estimator runs in a fresh subprocess per sample size; after the imports the
process's peak resident set size is reset (``/proc/self/clear_refs``, Linux), so the reported
peak (VmHWM) is the high-water mark *during* the estimator, next to the resident size before.

    python benchmarks/speed_memory.py [--samples 1000000 10000000] [--large 1e8]
                                      [--memory 1e6 1e7 1e8]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

import numpy as np
from common import markdown_table, record

from dpaudit import estimate_epsilon_lower_bound
from dpaudit.mechanisms import create_mechanism

SPEED = [
    ("laplace", {"epsilon": 1.0}),
    ("randomized-response", {"epsilon": 1.0}),
    ("noisy-max-laplace", {"epsilon": 0.5}),
    ("double-spending", {"epsilon": 0.5}),
]

LIMITS = """\
The selection split is min(0.2 n, 10⁶) outputs per side: its cost (drawing, fitting the
statistics and, for continuous vector outputs, a logistic regression on 5·10⁴ rows, then
sorting every statistic's values on both sides to score thresholds) does not shrink with n
beyond 5·10⁶, while the certification split is one streamed pass that only counts events.
The last column is the certification pass alone against plain sampling: where it is near 1,
the estimator's overhead is the fixed selection cost, and the total ratio falls towards it as n
grows.  Vector outputs (double spending: 2 coordinates, ~10 fitted statistics plus the
classifier) pay the most for selection."""

MEMORY_CHILD = r"""
import json, sys, time
from dpaudit import estimate_epsilon_lower_bound
from dpaudit.mechanisms import create_mechanism

def status_kb(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])

m = create_mechanism("laplace", epsilon=1.0)
p = m.worst_case_pairs()[0]
base = status_kb("VmRSS")
with open("/proc/self/clear_refs", "w") as fh:  # reset the peak (VmHWM) to the current RSS
    fh.write("5")
t = time.perf_counter()
r = estimate_epsilon_lower_bound(m.sampler(), p.d0, p.d1, samples=int(sys.argv[1]), seed=1)
print(json.dumps({"base_kb": base, "peak_kb": status_kb("VmHWM"),
                  "seconds": time.perf_counter() - t, "epsilon": r.epsilon}))
"""


def speed(samples_list, repeats, large, large_repeats):
    """Rows per (mechanism, n); ``large`` adds n for the vector-output mechanism only."""
    rows = []
    for name, params in SPEED:
        mech = create_mechanism(name, **params)
        pair = mech.worst_case_pairs()[0]
        sampler = mech.sampler()
        sizes = [(n, repeats) for n in samples_list]
        if name == "double-spending":
            sizes += [(int(n), large_repeats) for n in large]
        for n, repeats in sizes:
            est, plain, sel = [], [], []
            for rep in range(repeats):
                rng = np.random.default_rng(rep)
                t = time.perf_counter()
                sampler(pair.d0, n, rng)
                sampler(pair.d1, n, rng)
                plain.append(time.perf_counter() - t)
                t = time.perf_counter()
                r = estimate_epsilon_lower_bound(sampler, pair.d0, pair.d1, samples=n, seed=rep)
                est.append(time.perf_counter() - t)
                sel.append(r.selection_seconds)
            e, p, s = statistics.median(est), statistics.median(plain), statistics.median(sel)
            rows.append([name, n, e, p, e / p, s, (e - s) / p])
            print(rows[-1], flush=True)
    misses = [f"{r[0]} at {r[1]:.0e} ({r[4]:.2f}×)" for r in rows if r[4] > 2.0]
    target = ("Target (issue 2) — estimator ≤ 2× plain sampling: "
              f"{len(rows) - len(misses)}/{len(rows)} rows"
              + ("; missed by " + ", ".join(misses) if misses else "") + ".")
    return markdown_table(["mechanism", "samples/side", "estimator s (median)",
                           "plain numpy s (median)", "ratio", "of which selection s",
                           "certification / plain numpy"], rows) + "\n\n" + target


def memory(sizes):
    rows = []
    for n in sizes:
        out = subprocess.run([sys.executable, "-c", MEMORY_CHILD, str(int(n))],
                             capture_output=True, text=True, check=True)
        d = json.loads(out.stdout)
        rows.append([f"{int(n):.0e}", d["base_kb"] / 1024, d["peak_kb"] / 1024,
                     (d["peak_kb"] - d["base_kb"]) / 1024, d["seconds"], d["epsilon"]])
        print(rows[-1], flush=True)
    return markdown_table(["samples/side", "RSS before MiB", "peak RSS during MiB",
                           "growth MiB", "seconds", "ε_LB (Laplace ε=1)"], rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--samples", type=int, nargs="+", default=[1_000_000, 10_000_000])
    ap.add_argument("--memory", type=float, nargs="+", default=[1e6, 1e7, 1e8])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--large", type=float, nargs="*", default=[1e8],
                    help="extra sizes for double spending only (the fixed selection cost)")
    ap.add_argument("--large-repeats", type=int, default=3)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    body = ("### Wall time\n\n" + speed(args.samples, args.repeats, args.large, args.large_repeats) + "\n\n" + LIMITS
            + "\n\n### Memory (Laplace, one subprocess per size)\n\n" + memory(args.memory))
    record("Estimator speed and memory (benchmarks/speed_memory.py)", body,
           write=not args.no_write)


if __name__ == "__main__":
    main()
