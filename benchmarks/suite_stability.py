"""How often does each audit of the shipped suites meet its expectation?  (CI flake rates.)

Every suite in ``audits/`` is run with ``--seeds`` different seeds at its default sample
counts, exactly as ``dpaudit run`` runs it (same family-wise confidence, same workers).  For
each audit the table gives how many runs met its expectation and the margin that decides it:
for an expected **violation**, the smallest over runs of max(ε_LB)/claimed ε (must stay > 1;
the closer to 1, the more fragile the detection); for an expected **consistent** audit, the
largest over runs of max(ε_LB)/claimed ε (must stay ≤ 1; a false violation is bounded by the
suite's confidence, so values near 1 are expected only where the claim is tight).  An audit
that does not meet its expectation in every run is a flaky CI gate and is listed first.

    python benchmarks/suite_stability.py [--seeds 10] [--workers 2] [--no-write] [SUITE ...]
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import time
from pathlib import Path

from common import markdown_table, record

from dpaudit.api import run_suites

AUDITS = Path(__file__).resolve().parent.parent / "audits"


def _ratio(record: dict) -> float | None:
    bounds = [v for v in (record.get("epsilon_lower_bound"),
                          record.get("white_box_epsilon_lower_bound")) if v is not None]
    claimed = record.get("claimed_epsilon")
    if not bounds or claimed is None:
        return None
    if claimed <= 0:
        return math.inf if max(bounds) > 0 else 0.0
    return max(bounds) / claimed


def _label(row: dict) -> str:
    """The audit's name, with the swept parameter's value for one point of a sweep."""
    sweep = row.get("sweep")
    if not sweep:
        return row["audit"]
    return f"{row['audit']} [{sweep['parameter']}={sweep['value']}]"


def stability(suites: list[Path], seeds: int, workers: int):
    outcomes: dict[tuple[str, str], dict] = {}
    seconds = []
    for seed in range(1, seeds + 1):
        start = time.perf_counter()
        run = run_suites([str(s) for s in suites], seed=seed, workers=workers)
        seconds.append(time.perf_counter() - start)
        records = [dataclasses.asdict(r) for r in run.records]  # plain dicts, ∞ kept
        for outcome in (dataclasses.asdict(o) for o in run.outcomes):
            key = (outcome["suite"], _label(outcome))
            entry = outcomes.setdefault(key, {"expect": outcome["expect"], "met": 0,
                                              "runs": 0, "ratios": [], "errors": 0})
            entry["runs"] += 1
            entry["met"] += bool(outcome["met_expectation"])
            entry["errors"] += outcome["verdict"] == "error"
            ratios = [_ratio(r) for r in records
                      if (r["suite"], _label(r)) == key and r["verdict"] != "error"]
            ratios = [x for x in ratios if x is not None]
            if ratios:
                entry["ratios"].append(max(ratios))
        print(f"seed {seed}: {seconds[-1]:.1f} s", flush=True)
    rows = []
    for (suite, audit), e in outcomes.items():
        decisive = (min(e["ratios"]) if e["expect"] == "violation" else max(e["ratios"])) \
            if e["ratios"] else float("nan")
        rows.append([suite, audit, e["expect"], f"{e['met']}/{e['runs']}",
                     "min" if e["expect"] == "violation" else "max", decisive, e["errors"]])
    rows.sort(key=lambda r: (int(r[3].split("/")[0]) == int(r[3].split("/")[1]), r[0], r[1]))
    return rows, seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("suites", nargs="*", type=Path)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    suites = args.suites or sorted(AUDITS.glob("*.toml"))
    rows, seconds = stability(suites, args.seeds, args.workers)
    flaky = [r for r in rows if r[3].split("/")[0] != r[3].split("/")[1]]
    table = markdown_table(["suite", "audit", "expect", "met", "over runs",
                            "max ε_LB / claimed ε", "errors"], rows)
    body = (f"{args.seeds} seeds (1…{args.seeds}) per suite, each suite at its default sample "
            f"counts and family-wise confidence, {args.workers} workers; "
            f"{len(rows)} audits (a swept audit counts once per point) in {len(suites)} suites; median {sorted(seconds)[len(seconds) // 2]:.0f} s "
            f"per run of all suites.  'max ε_LB / claimed ε' is, per run, the largest ratio over "
            "the audit's certificates (black- or white-box), then its minimum over runs for an "
            "expected violation and its maximum for an expected consistent audit.\n\n"
            f"Audits not meeting their expectation in every run: {len(flaky)}"
            + (" — " + ", ".join(f"{r[0]}/{r[1]} ({r[3]})" for r in flaky) if flaky else "")
            + ".\n\n" + table)
    record("Stability of the shipped suites' expectations (benchmarks/suite_stability.py)",
           body, write=not args.no_write)


if __name__ == "__main__":
    main()
