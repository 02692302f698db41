"""Cost and effect of the floating-point representation statistics, and the row-pattern fix.

Two sections, each written to RESULTS.md:

1. **Representation statistics** (``representation=True``: lowest set bit, trailing significand
   zeros, exponent; :mod:`dpaudit.distinguish.floating`).  On every case of the calibration
   benchmark (``benchmarks/calibration.py``) and on the known-bad zoo's worst-case pairs, the
   auto distinguisher is run with and without them (same seeds): seconds and ε_LB per run.
   The issue's bar: under 20 % more time, and ε_LB never lower.
2. **Histogram-like outputs** (``--histogram``): the 3-bin histogram (counts + two-sided
   geometric noise at ε = 1, add/remove one record in bin 2) and the zoo, ε_LB of ``auto``
   per seed.  Run once with this tree and once with the tree before the fix on ``PYTHONPATH``
   to get the before/after columns (``--label``).

    python benchmarks/floating_point.py [--seeds 10] [--samples 100000] [--no-write]
    python benchmarks/floating_point.py --histogram --label after [--seeds 10]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

import numpy as np
from common import markdown_table, record

from dpaudit import estimate_epsilon_lower_bound
from dpaudit.mechanisms import create_mechanism

ZOO = [("laplace-scale-epsilon", {"epsilon": 0.5}), ("double-spending", {"epsilon": 0.5}),
       ("noisy-max-laplace-value", {}), ("noisy-max-exponential-value", {}),
       ("svt-lyu3", {}), ("svt-lyu4", {}), ("svt-lyu5", {}), ("svt-lyu6", {}),
       ("naive-float-laplace", {"epsilon": 1.0}), ("grid-laplace", {"epsilon": 1.0})]


def histogram(dataset, n, rng):
    """3 counts + two-sided geometric noise (ε = 1 per count)."""
    p = 1 - math.exp(-1.0)
    return np.asarray(dataset, np.int64) + rng.geometric(p, (n, 3)) - rng.geometric(p, (n, 3))


def _timed(sampler, d0, d1, delta, samples, seed, **kw):
    t = time.perf_counter()
    r = estimate_epsilon_lower_bound(sampler, d0, d1, delta=delta, samples=samples, seed=seed,
                                     **kw)
    return r.epsilon, time.perf_counter() - t, r.event


def _targets():
    import calibration
    for name, desc, delta, _, sampler in calibration.cases():
        yield f"calibration {name}", sampler, 0, 1, delta
    for name, params in ZOO:
        mech = create_mechanism(name, **params)
        pair = mech.worst_case_pairs()[0]
        yield f"zoo {name}", mech.sampler(), pair.d0, pair.d1, 0.0


def representation_section(args):
    rows, ratios = [], []
    for label, sampler, d0, d1, delta in _targets():
        off, on = [], []
        for seed in range(args.seeds):
            off.append(_timed(sampler, d0, d1, delta, args.samples, 500 + seed))
            on.append(_timed(sampler, d0, d1, delta, args.samples, 500 + seed,
                             representation=True))
        t_off = statistics.median(t for _, t, _ in off)
        t_on = statistics.median(t for _, t, _ in on)
        lower = sum(b[0] < a[0] - 1e-12 for a, b in zip(off, on))
        ratios.append(t_on / t_off)
        rows.append([label, statistics.mean(e for e, _, _ in off),
                     statistics.mean(e for e, _, _ in on), f"{lower}/{args.seeds}",
                     t_off, t_on, f"{100 * (t_on / t_off - 1):+.0f}%", on[0][2][:60]])
        print(rows[-1], flush=True)
    body = (f"{args.seeds} seeds per row, {args.samples} samples per side, 95% confidence, "
            "auto distinguisher without and with the float64 representation statistics "
            "(same seeds).  'lower' = runs where ε_LB with them is below ε_LB without; time "
            "= median seconds per audit.  Median time ratio over all rows: "
            f"{statistics.median(ratios):.3f}.\n\n"
            + markdown_table(["target", "mean ε_LB (values)", "mean ε_LB (+representation)",
                              "lower", "s (values)", "s (+repr.)", "time", "event (seed 0, +repr.)"],
                             rows))
    record("Floating-point representation statistics: cost and effect "
           "(benchmarks/floating_point.py)", body, write=not args.no_write)


def histogram_section(args):
    rows = []
    targets = [("3-bin histogram, add/remove (output[2] ≤ 0 alone: ≈ 0.96)", histogram,
                [4, 0, 0], [4, 0, 1])]
    for name, params in ZOO[:8]:
        mech = create_mechanism(name, **params)
        pair = mech.worst_case_pairs()[0]
        targets.append((f"zoo {name}", mech.sampler(), pair.d0, pair.d1))
    for label, sampler, d0, d1 in targets:
        eps = [_timed(sampler, d0, d1, 0.0, 200_000, seed)[0] for seed in range(args.seeds)]
        rows.append([label, args.label, statistics.mean(eps), min(eps), max(eps)])
        print(rows[-1], flush=True)
    body = markdown_table(["target", "code", "mean ε_LB", "min", "max"], rows)
    record(f"Histogram-like outputs, row patterns: {args.label} (benchmarks/floating_point.py)",
           f"{args.seeds} seeds, 200000 samples per side, auto, 95% confidence.\n\n" + body,
           write=not args.no_write)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--samples", type=int, default=100_000)
    ap.add_argument("--histogram", action="store_true")
    ap.add_argument("--label", default="after")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    (histogram_section if args.histogram else representation_section)(args)


if __name__ == "__main__":
    main()
