"""Sequential certification (issue 24): what stopping early saves, and that it stays valid.

Three measurements, each recorded in RESULTS.md:

* ``false`` — correct mechanisms audited *sequentially* (dpaudit.audit.rounds: looks of
  growing size, stop on a certified violation, at the power target 1.1 or at the budget) on
  their worst-case pair against their own claim, ``--runs`` seeds each at confidence 0.95:
  how many runs certify a (false) violation (nominal ≤ 5 %), how many certificates exceed the
  pair's exact ε (coverage failures, nominal ≤ 5 %), how the runs stopped and the samples
  they drew per side.
* ``run`` — the default run (``dpaudit run audits/``) at ``--seeds`` suite seeds, fixed n
  (``--fixed-n``) against sequential: outputs drawn per side in all (black- and white-box,
  every look), wall time, expectations met, verdicts that differ.
* ``power`` — from the sequential default runs: the share of consistent ε(δ) certificates
  that reached the power target within the shipped budgets.

    python benchmarks/sequential.py false [--runs 200] [--budget 200000]
    python benchmarks/sequential.py run [--seeds 0 1 2] [--workers 2]
    (add --no-write to print only)
"""

from __future__ import annotations

import argparse
import collections
import json
import statistics
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

from common import markdown_table, record, worst_pair

ROOT = Path(__file__).resolve().parents[1]

CORRECT = [
    ("laplace", {"epsilon": 1.0}, 0.0),
    ("gaussian", {"epsilon": 1.0, "delta": 1e-3}, 1e-3),
    ("randomized-response", {"epsilon": 1.0}, 0.0),
    ("sparse-vector", {"epsilon": 1.0}, 0.0),  # a vector output (6 answers)
]


def _estimate(sampler, d0, d1, delta, *, samples, seed, confidence, white):
    from dpaudit.distinguish.lower_bound import estimate_privacy_curve_lower_bound

    return estimate_privacy_curve_lower_bound(sampler, d0, d1, deltas=(delta,),
                                              samples=samples, seed=seed,
                                              confidence=confidence)


def false_violations(args) -> None:
    from dpaudit.audit.rounds import certify_in_rounds
    from dpaudit.stats.sequential import StoppingRule

    rows = []
    for name, params, delta in CORRECT:
        mech, claimed, pair, exact = worst_pair(name, params, delta)
        estimate = partial(_estimate, mech.sampler(), pair.d0, pair.d1, delta)
        flagged = above = 0
        stops, drawn = collections.Counter(), []
        for seed in range(args.runs):
            rounds = certify_in_rounds(estimate, samples=args.budget, seed=20_000 + seed,
                                       confidence=0.95, white_box=False, claims=[claimed],
                                       renyi_claims=[], rule=StoppingRule())
            eps = rounds.black.points[0].epsilon
            flagged += eps > claimed
            above += exact is not None and eps > exact
            stops[rounds.stopped] += 1
            drawn.append(rounds.drawn)
        rows.append([f"{name} {params}", delta, claimed, exact, f"{flagged}/{args.runs}",
                     f"{above}/{args.runs}",
                     ", ".join(f"{k} {v}" for k, v in sorted(stops.items())),
                     int(statistics.median(drawn)), max(drawn)])
        print(rows[-1], flush=True)
    table = markdown_table(["mechanism", "δ", "claimed ε", "exact ε", "false violations",
                            "ε_LB > exact ε", "stopped", "median drawn/side", "max drawn/side"],
                           rows)
    record("Sequential certification: false violations and coverage", f"""
Correct mechanisms audited sequentially (looks from max(1000, budget/512) growing 2–8×,
stopping on a certified violation, at the power target 1.1 × claim, or at the budget of
{args.budget:,} per side) on their worst-case pair against their own claim, {args.runs} seeds
each, confidence 0.95 (nominal rate of either failure ≤ 5 %).

{table}
""", write=not args.no_write)


def _run(seed: int, fixed: bool, workers: int, out: Path) -> tuple[float, int]:
    cmd = [sys.executable, "-m", "dpaudit.cli", "run", "audits/", "--out", str(out), "-q",
           "--seed", str(seed), "--workers", str(workers)] + (["--fixed-n"] if fixed else [])
    start = time.perf_counter()
    status = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True).returncode
    return time.perf_counter() - start, status


def _summary(path: Path) -> dict:
    from dpaudit.report import read_report

    records = read_report(str(path)).records
    tests, consistent, powered = {}, 0, 0
    for r in records:
        tests.setdefault((r.suite_file, r.audit, str(r.parameters), r.pair_index, r.seed), r)
        if r.notion == "dp" and r.verdict == "consistent" and r.underpowered is not None:
            consistent += 1
            powered += r.underpowered is False
    drawn = 0
    for r in tests.values():
        per_side = r.sequential.drawn if r.sequential else r.samples
        drawn += per_side * (2 if r.white_box is not None else 1)
    return {"drawn": drawn, "met": sum(r.met_expectation for r in records),
            "records": len(records), "consistent": consistent, "powered": powered,
            "verdicts": {(r.suite_file, r.audit, str(r.parameters), r.pair_index,
                          r.delta, r.alpha): r.verdict for r in records}}


def default_runs(args) -> None:
    rows, ratios, walls, powered = [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in args.seeds:
            got = {}
            for fixed in (True, False):
                out = Path(tmp) / f"s{seed}-{'fixed' if fixed else 'seq'}"
                seconds, status = _run(seed, fixed, args.workers, out)
                got[fixed] = (seconds, status, _summary(out / "results.json"))
            (tf, sf, f), (ts, ss, s) = got[True], got[False]
            differ = sum(f["verdicts"].get(k) != v for k, v in s["verdicts"].items())
            rows.append([seed, f"{f['drawn']:,}", f"{s['drawn']:,}",
                         f["drawn"] / s["drawn"], tf, ts, tf / ts,
                         f"{f['met']}/{f['records']} (exit {sf})",
                         f"{s['met']}/{s['records']} (exit {ss})", differ,
                         f"{s['powered']}/{s['consistent']}"])
            ratios.append(f["drawn"] / s["drawn"])
            walls.append(tf / ts)
            powered.append(s["powered"] / max(s["consistent"], 1))
            print(rows[-1], flush=True)
    table = markdown_table(["suite seed", "drawn/side fixed n", "drawn/side sequential",
                            "samples ratio", "wall fixed (s)", "wall sequential (s)",
                            "wall ratio", "met fixed", "met sequential",
                            "verdicts that differ", "powered (sequential)"], rows)
    record("Sequential certification: the default run", f"""
`dpaudit run audits/ --seed S --workers {args.workers}` with `--fixed-n` and without (the
default: sequential, power target 1.1), {len(args.seeds)} suite seed(s), one after the other on
the same machine.  "drawn/side" counts every output drawn per side by every test (black- and
white-box, every look; the pair searches' screening is not included).  "powered" is the share
of consistent ε(δ) certificates whose detectable ε reached 1.1 × their claim.

{table}

Median samples ratio {statistics.median(ratios):.2f}×, median wall-time ratio
{statistics.median(walls):.2f}×, median share powered {statistics.median(powered):.0%}.
""", write=not args.no_write)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    sub = ap.add_subparsers(dest="what", required=True)
    f = sub.add_parser("false")
    f.add_argument("--runs", type=int, default=200)
    f.add_argument("--budget", type=int, default=200_000)
    r = sub.add_parser("run")
    r.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    r.add_argument("--workers", type=int, default=2)
    for p in (f, r):
        p.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    {"false": false_violations, "run": default_runs}[args.what](args)


if __name__ == "__main__":
    main()
