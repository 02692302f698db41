"""False violations under the sequential default, with the dependent-draw samplers of issue 39
(item 4), through the Python API's full audit (``audit_sampler``: selection, repeated-draw
checks, sequential looks; ``representation = False``: the real-valued mechanism is audited, so
that float64 leaks of ``rng.laplace`` do not count as false violations).

* correct samplers (true ε ≤ 1, claim 1): Laplace(1), Laplace(1) clipped to [−0.5, 0.5]
  (heavy ties, independent draws) and binary randomized response at ε = 1 — the
  false-violation rate and how many audits the repeated-draw checks wrongly made an error;
* the four dependent-draw samplers of tests/distinguish/test_near_repeats.py (true ε = 1):
  each Laplace draw ×8 with one output pinned at 0.0, ×8 with 1e-9 jitter, ×8 clipped to
  [−4, 5], and half the draws repeated twice — how many are an error, carry a warning, or are
  certified above the true ε (silent over-certification: must be 0).

    python benchmarks/dependent_draws.py [--runs 300] [--samples 20000]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np
from common import markdown_table, record
from statsmodels.stats.proportion import proportion_confint

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "distinguish"))
from test_near_repeats import DEPENDENT  # noqa: E402  the samplers the tests pin

from dpaudit.api import audit_sampler  # noqa: E402


def laplace(d, n, rng):
    return float(d[0]) + rng.laplace(size=n)


def clipped_laplace(d, n, rng):
    return np.clip(float(d[0]) + rng.laplace(size=n), -0.5, 0.5)


def randomized_response(d, n, rng):
    keep = rng.random(n) < np.e / (1 + np.e)
    return np.where(keep, int(d[0]), 1 - int(d[0]))


CORRECT = [laplace, clipped_laplace, randomized_response]


def cp(k, n):
    lo, hi = proportion_confint(k, n, alpha=0.05, method="beta")
    return f"{k}/{n} ({100 * lo:.2f}–{100 * hi:.2f} %)"


def audit(sampler, seed, samples):
    pairs = [([0], [1])] if sampler is randomized_response else [([0.0], [1.0])]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (r,) = audit_sampler(sampler, epsilon=1.0, pairs=pairs, samples=samples, seed=seed,
                             representation=False).records
    return r, bool([w for w in caught if issubclass(w.category, RuntimeWarning)])


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=300)
    ap.add_argument("--samples", type=int, default=20_000)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    start = time.perf_counter()
    rows = []
    for sampler in CORRECT + DEPENDENT:
        counts = {"violation": 0, "error": 0, "consistent": 0, "warned": 0}
        drawn = 0
        for seed in range(args.runs):
            r, warned = audit(sampler, 20_000 + seed, args.samples)
            counts[r.verdict] += 1
            counts["warned"] += warned
            drawn += (r.sequential or {}).get("drawn", 0)
        rows.append([sampler.__name__, "correct" if sampler in CORRECT else "dependent",
                     cp(counts["violation"], args.runs), cp(counts["error"], args.runs),
                     counts["warned"], counts["consistent"],
                     f"{drawn / args.runs:,.0f}"])
        print(rows[-1], flush=True)
    seconds = time.perf_counter() - start
    body = (f"{args.runs} audits per sampler (suite seeds 20000…), budget {args.samples} "
            f"samples per side, sequential default (power target 1.1), 95 % confidence, "
            f"claim ε = 1, `representation = False`; intervals are Clopper–Pearson 95 %. "
            f"'violation' = certified above the claim: a false violation for a correct "
            f"sampler (true ε ≤ 1) and silent over-certification for a dependent one (its "
            f"true ε is 1); 'error' = the repeated-draw checks refused the sampler (a false "
            f"alarm for a correct one).  Before item 4's check the dependent samplers were "
            f"certified above 1 at 18–35 % of seeds with no warning.\n\n"
            + markdown_table(["sampler", "kind", "violation", "error", "warned",
                              "consistent", "mean drawn per side"], rows)
            + f"\n\nWall time {seconds:.0f} s (load average {os.getloadavg()[0]:.1f}: a loaded "
              f"machine; re-measure on a quiet one).")
    record(f"False violations and dependent draws under the sequential default, budget "
           f"{args.samples:,} (benchmarks/dependent_draws.py)", body, write=not args.no_write)


if __name__ == "__main__":
    main()
