"""Soundness with repeated-draw detection (issue 27): correct mechanisms are not flagged more
often than the nominal 5 %, and a sampler that repeats each draw 8× is never silently
over-certified.

* ≥ 700 seeds for each of three correct families (Laplace, Gaussian, randomized response)
  on their worst-case pair: the false-violation rate (certificate > claimed ε) and the
  coverage-failure rate (certificate > the pair's exact ε), with Clopper–Pearson 95 %
  intervals, plus how many audits the repeated-draw checks wrongly stopped (must be 0).
* 100 seeds of the Laplace sampler with each draw repeated 8× (true ε = 1): how many are an
  error (SamplerError), a warning, or a certificate above the true ε (silent
  over-certification, must be 0).

    python benchmarks/repeated_draws.py [--runs 700] [--repeater-runs 100] [--samples 20000]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from common import markdown_table, record, worst_pair
from statsmodels.stats.proportion import proportion_confint

from dpaudit import estimate_epsilon_lower_bound
from dpaudit.distinguish.sampling import SamplerError

CORRECT = [
    ("laplace", {"epsilon": 1.0}, 0.0),
    ("gaussian", {"epsilon": 1.0, "delta": 1e-3}, 1e-3),
    ("randomized-response", {"epsilon": 1.0}, 0.0),
]


def repeated_laplace(d, n, rng):
    """Laplace(1) noise on d[0], each draw repeated 8× (true ε of ([0], [1]) is 1)."""
    m = -(-n // 8)
    return (float(d[0]) + rng.laplace(size=m)).repeat(8)[:n]


def cp(k, n):
    lo, hi = proportion_confint(k, n, alpha=0.05, method="beta")
    return f"{k}/{n} ({100 * lo:.2f}–{100 * hi:.2f} %)"


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=700)
    ap.add_argument("--repeater-runs", type=int, default=100)
    ap.add_argument("--samples", type=int, default=20_000)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    start = time.perf_counter()
    rows = []
    for name, params, delta in CORRECT:
        mech, claimed, pair, exact = worst_pair(name, params, delta)
        flagged = above_exact = stopped = 0
        best = 0.0
        for seed in range(args.runs):
            try:
                r = estimate_epsilon_lower_bound(mech.sampler(), pair.d0, pair.d1, delta=delta,
                                                 samples=args.samples, confidence=0.95,
                                                 seed=10_000 + seed)
            except SamplerError:
                stopped += 1
                continue
            flagged += r.epsilon > claimed
            above_exact += exact is not None and r.epsilon > exact
            best = max(best, r.epsilon)
        rows.append([f"{name} {params}", claimed, exact, best, cp(flagged, args.runs),
                     cp(above_exact, args.runs), f"{stopped}/{args.runs}"])
        print(rows[-1], flush=True)
    errors = warned = over = under = 0
    largest = 0.0
    for seed in range(args.repeater_runs):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                r = estimate_epsilon_lower_bound(repeated_laplace, [0.0], [1.0],
                                                 samples=args.samples, confidence=0.95,
                                                 seed=10_000 + seed)
            except SamplerError:
                errors += 1
                continue
        if caught:
            warned += 1
        elif r.epsilon > 1.0:
            over += 1
        else:
            under += 1
        largest = max(largest, r.epsilon)
    seconds = time.perf_counter() - start
    print([errors, warned, over, under], flush=True)
    body = (f"{args.runs} audits per family, seeds 10000…, {args.samples} samples per side "
            f"(selection split 20 %), 95 % confidence; intervals are Clopper–Pearson 95 %.  "
            "'flagged' = certificate > claimed ε (a false violation); 'above exact' = "
            "certificate > the pair's exact ε (a coverage failure); 'stopped' = audits the "
            "repeated-draw checks made an error (false alarms).\n\n"
            + markdown_table(["mechanism", "claimed ε", "exact ε of pair",
                              "largest certificate", "flagged", "above exact", "stopped"],
                             rows)
            + f"\n\nLaplace(1) with each draw repeated 8× (true ε = 1), {args.repeater_runs} "
            f"seeds, same samples: {errors} errors (SamplerError), {warned} warnings only, "
            f"{over} certificates above the true ε (silent over-certification), {under} "
            f"certificates ≤ 1.  Before this check: 25/100 certified above 1 "
            f"(95 % CI 16.9–34.7 %, max 2.23).  Wall time {seconds:.0f} s.")
    record("Repeated-draw detection: soundness and the 8× repeater "
           "(benchmarks/repeated_draws.py)", body, write=not args.no_write)


if __name__ == "__main__":
    main()
