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

3. **Library adapters** (``--adapters``, issue 23): every float-valued adapter of
   diffprivlib, OpenDP and PyDP (float64 outputs) and the zoo's naive/grid Laplace pair through
   ``dpaudit.audit_mechanism`` (black box, representation on as the adapters declare): verdict,
   ε_LB and the certificate's ``floating_point`` flag; the false-violation rate of the float-safe
   ones over ``--fp-seeds`` seeds (nominal ≤ 5 %); and the selection overhead of the joint
   exponent × lowest-bit cells (lowest set bit only vs the default representation statistics).

    python benchmarks/floating_point.py [--seeds 10] [--samples 100000] [--no-write]
    python benchmarks/floating_point.py --histogram --label after [--seeds 10]
    python benchmarks/floating_point.py --adapters [--samples 200000] [--fp-seeds 40] [--quick]
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


#: float-valued samplers that are floating-point safe (outputs on one 2ᵏ grid for every input)
FLOAT_SAFE = [("grid-laplace", {"epsilon": 1.0}), ("diffprivlib-snapping", {}),
              ("opendp-laplace", {}), ("opendp-gaussian", {}), ("pydp-laplace", {})]


def _float_adapters():
    from dpaudit.mechanisms.registry import mechanism_names
    names = [n for n in mechanism_names() if n.split("-")[0] in ("diffprivlib", "opendp", "pydp")]
    out = []
    for name in names:
        mech = create_mechanism(name)
        pair = mech.worst_case_pairs()[0]
        if np.asarray(mech.sampler()(pair.d0, 20, np.random.default_rng(0))).dtype.kind == "f":
            out.append((name, {}))
    return out + [("naive-float-laplace", {"epsilon": 1.0}), ("grid-laplace", {"epsilon": 1.0})]


def _audit(name, params, samples, seed):
    """(verdict, ε_LB, floating_point of the best certificate, its event) of one black-box audit."""
    from dpaudit import audit_mechanism
    mech = create_mechanism(name, **params)
    claim = mech.claim()
    delta = 0.0 if claim.epsilon(0.0) < math.inf else (
        claim.parameters().get("delta") or 1e-3)
    result = audit_mechanism(name, params=params, samples=samples, seed=seed, white_box=False,
                             delta=delta)
    best = max((r for r in result.records if r.black_box is not None),
               key=lambda r: r.epsilon_lower_bound)
    cert = best.black_box
    return result.verdict, result.epsilon_lower_bound, cert.floating_point, cert.event


def _selection_overhead(samples, seeds):
    """Median selection seconds of naive-float-laplace with the lowest set bit only, and with
    the default representation statistics (same seeds)."""
    from dpaudit.distinguish import floating
    mech = create_mechanism("naive-float-laplace", epsilon=1.0)
    pair = mech.worst_case_pairs()[0]
    default = floating.representation_statistics.__defaults__
    times = {}
    for label, kinds in (("lowest set bit only", (floating.LowestSetBit,)),
                         ("default (+ joint cells)", floating.DEFAULT_STATISTICS)):
        floating.representation_statistics.__defaults__ = (default[0], kinds)
        runs = [estimate_epsilon_lower_bound(mech.sampler(), pair.d0, pair.d1, samples=samples,
                                             seed=900 + s, representation=True)
                for s in range(seeds)]
        times[label] = (statistics.median(r.selection_seconds for r in runs),
                        statistics.median(r.seconds for r in runs))
    floating.representation_statistics.__defaults__ = default
    return times


def adapters_section(args):
    import warnings
    warnings.simplefilter("ignore", RuntimeWarning)  # OpenDP / PyDP ignore the rng
    samples = 20_000 if args.quick else args.samples
    fp_seeds = 10 if args.quick else args.fp_seeds
    fp_samples = 20_000 if args.quick else args.fp_samples
    rows = []
    for name, params in _float_adapters():
        t = time.perf_counter()
        verdict, eps, fp, event = _audit(name, params, samples, 20261123)
        rows.append([name, verdict, eps, fp, event[:70], time.perf_counter() - t])
        print(rows[-1], flush=True)
    fp_rows = []
    for name, params in FLOAT_SAFE:
        verdicts = [_audit(name, params, fp_samples, 1000 + s) for s in range(fp_seeds)]
        bad = sum(v[0] == "violation" for v in verdicts)
        fp_rows.append([name, f"{bad}/{fp_seeds}", max(v[1] for v in verdicts),
                        sum(bool(v[2]) for v in verdicts)])
        print(fp_rows[-1], flush=True)
    overhead = _selection_overhead(200_000, 9)
    (s0, t0), (s1, t1) = overhead.values()
    body = (f"Machine: 2 cores (shared).  Command: `python benchmarks/floating_point.py --adapters"
            f"{' --quick' if args.quick else ''} --samples {samples} --fp-samples "
            f"{fp_samples} --fp-seeds {fp_seeds}`.  `dpaudit.audit_mechanism`, black "
            f"box only (white_box=False), worst-case pairs, 95 % confidence, the claim's own δ "
            f"(10⁻³ for zCDP claims), representation statistics on (the adapters declare "
            f"audit_representation).  Adapters and the zoo pair at {samples} samples per side, "
            f"seed 20261123; floating_point = the best certificate's event reads the float64 "
            f"representation.\n\n"
            + markdown_table(["mechanism", "verdict", "ε_LB", "floating_point", "event",
                              "seconds"], rows)
            + f"\n\nFalse violations of the float-safe samplers: {fp_seeds} seeds (1000…), "
            f"{fp_samples} samples per side each, nominal ≤ 5 %.\n\n"
            + markdown_table(["mechanism", "violations", "max ε_LB", "runs certifying with a "
                              "representation event"], fp_rows)
            + f"\n\nSelection overhead of the joint cells (naive-float-laplace, 200000 samples, "
            f"9 seeds, medians): selection {s0:.3f} s → {s1:.3f} s "
            f"({100 * (s1 / s0 - 1):+.0f} %), whole audit {t0:.3f} s → {t1:.3f} s "
            f"({100 * (t1 / t0 - 1):+.0f} %).")
    record("Floating point (issue 23): band-confined leaks, adapters and false violations "
           "(benchmarks/floating_point.py --adapters)", body, write=not args.no_write)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--samples", type=int, default=100_000)
    ap.add_argument("--histogram", action="store_true")
    ap.add_argument("--label", default="after")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--adapters", action="store_true")
    ap.add_argument("--fp-seeds", type=int, default=40)
    ap.add_argument("--fp-samples", type=int, default=200_000)
    ap.add_argument("--quick", action="store_true",
                    help="--adapters at 20000 samples and 10 false-violation seeds")
    args = ap.parse_args()
    if args.adapters:
        adapters_section(args)
        return
    (histogram_section if args.histogram else representation_section)(args)


if __name__ == "__main__":
    main()
