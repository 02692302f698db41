"""The analytics libraries as shipped — PipelineDP, SmartNoise SQL, Tumult Core — measured.

Run it in the environment of one library (their pins conflict, docs/external.md): the
adapters whose library imports there are measured, the others listed as not installed.

Part 1 (``--samples N``): per adapter, on its named pair, the certified ε_LB at the value
level (``representation=False``) and with the float64 representation statistics
(``representation=True``), each on its own seed, with the samples per side and seconds;
verdict = ε_LB > the library's claimed ε.  Part 2 (``--confirm``): each finding again at 10×
the samples with another seed.  Part 3 (``--false-positive-runs R``): R audits of each
float-safe primitive (seeds 10000…, named pair, representation on, 95 %), counting
certificates above the claim (nominal rate ≤ 5 %), with the Clopper–Pearson upper bound on
that rate.  Every section is appended to RESULTS.md
with the library versions and the machine's load (timings under load must be re-measured).

    python benchmarks/analytics.py [--samples 20000] [--confirm] [--false-positive-runs 100]
        [--only LABEL] [--fp-samples N]     # --samples 0: part 3 alone
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

from common import markdown_table, record

from dpaudit import estimate_epsilon_lower_bound
from dpaudit.mechanisms.external.common import LibraryMissing, library_version
from dpaudit.stats import clopper_pearson_upper
from dpaudit.mechanisms.registry import create_mechanism

#: (adapter, params, δ) measured in part 1
ADAPTERS = [
    ("pipelinedp-count", {}, 0.0), ("pipelinedp-sum", {}, 0.0), ("pipelinedp-mean", {}, 0.0),
    ("pipelinedp-variance", {}, 0.0), ("pipelinedp-count", {"public": False}, 1e-6),
    ("pipelinedp-select-partitions", {}, 1e-3),
    ("pipelinedp-count", {"noise": "gaussian"}, 1e-6),
    ("smartnoise-count", {"censor_dims": True, "keys": 2}, 1e-5),
    ("smartnoise-sum", {"censor_dims": True, "keys": 2}, 1e-5),
    ("smartnoise-avg", {"censor_dims": True, "keys": 2}, 1e-5),
    ("smartnoise-sum", {"censor_dims": False, "keys": 2}, 1e-6),
    ("smartnoise-count", {"censor_dims": False, "keys": 2}, 1e-6, "key-only-in-one-dataset"),
    ("smartnoise-sum", {"censor_dims": False, "keys": 2}, 1e-6, "key-only-in-one-dataset"),
    ("smartnoise-avg", {"censor_dims": False, "keys": 2}, 1e-6, "key-only-in-one-dataset"),
    ("tumult-laplace", {}, 0.0), ("tumult-geometric", {}, 0.0),
    ("tumult-discrete-gaussian", {}, 1e-3), ("tumult-gaussian", {}, 1e-3),
    ("tumult-gaussian", {"integer": True}, 1e-3),
]
#: the float-safe primitives of part 3: (adapter, params, δ, samples per side)
FLOAT_SAFE = [("pipelinedp-count", {"copies": 500}, 0.0, 5000),
              ("pipelinedp-sum", {"copies": 500}, 0.0, 2000),
              ("tumult-laplace", {}, 0.0, 2000), ("tumult-geometric", {}, 0.0, 2000),
              ("tumult-discrete-gaussian", {}, 1e-3, 1000),
              ("smartnoise-count", {"censor_dims": True, "keys": 2, "copies": 1000}, 1e-5, 1000),
              ("smartnoise-sum", {"censor_dims": False, "keys": 2, "copies": 500}, 1e-6, 1000)]


def _load() -> str:
    return "load %.1f" % os.getloadavg()[0]


def _pair(mech, proposal: str | None):
    if proposal is None:
        return mech.worst_case_pairs()[0]
    from dpaudit.neighbours.pairs import NeighbourPair
    for name, d0, d1 in mech.dataset_space().proposals():
        if name == proposal:
            return NeighbourPair(name, d0, d1)
    raise KeyError(proposal)


def _build(spec):
    name, params, delta, *rest = spec
    try:
        mech = create_mechanism(name, **params)
    except (LibraryMissing, ValueError) as exc:
        return None, str(exc).splitlines()[0]
    return (mech, delta, _pair(mech, rest[0] if rest else None)), ""


def _bound(mech, pair, delta, samples, seed, representation):
    start = time.perf_counter()
    r = estimate_epsilon_lower_bound(mech.sampler(), pair.d0, pair.d1, delta=delta,
                                     samples=samples, seed=seed, confidence=0.95,
                                     representation=representation)
    return r.epsilon, time.perf_counter() - start


def adapters_section(args, factor: int = 1, seed: int = 1, title: str = "") -> list:
    rows, missing, findings = [], [], []
    for spec in ADAPTERS:
        built, why = _build(spec)
        if built is None:
            missing.append(spec[0])
            continue
        mech, delta, pair = built
        if factor > 1 and spec not in args.findings:
            continue
        claimed = mech.claim().epsilon(delta)
        n = args.samples * factor
        value, t0 = _bound(mech, pair, delta, n, seed, False)
        floats, t1 = _bound(mech, pair, delta, n, seed + 1, True)
        verdict = "violation" if max(value, floats) > claimed else "consistent"
        if verdict == "violation":
            findings.append(spec)
        rows.append([f"{mech.library} {library_version(mech.library)}", mech.name,
                     ", ".join(f"{k}={v}" for k, v in spec[1].items()) or "defaults",
                     pair.name, delta, claimed, value, floats, verdict, n, seed,
                     round(t0 + t1, 1)])
        print(rows[-1], _load(), flush=True)
    if rows:
        body = (f"ε_LB at 95 % on the named pair, value level (seed s) and with the float64 "
                f"representation (seed s + 1); samples per side; seconds for both under "
                f"{_load()} (re-measure on a quiet machine).\n\n"
                + markdown_table(["library", "adapter", "params", "pair", "δ", "claimed ε",
                                  "ε_LB value", "ε_LB float", "verdict", "samples", "seed s",
                                  "s"], rows)
                + (f"\n\nNot measured here (library not installed or refusing the "
                   f"parameters): {', '.join(dict.fromkeys(missing))}" if missing else ""))
        record(title, body, write=not args.no_write)
    return findings


def _label(name: str, params: dict) -> str:
    shown = {k: v for k, v in params.items() if k != "copies"}
    return name + "".join(f" {k}={v}" for k, v in shown.items())


def false_positive_section(args):
    """Part 3; the section is re-recorded after each primitive, so a stopped run keeps the
    rows it finished.  'CP upper' is the one-sided 95 % Clopper–Pearson upper bound on the
    false-violation rate from flagged/runs."""
    rows, runs = [], args.false_positive_runs
    for name, params, delta, samples in FLOAT_SAFE:
        label = _label(name, params)
        if args.only and not any(pattern in label for pattern in args.only):
            continue
        samples = args.fp_samples or samples
        built, _ = _build((name, params, delta))
        if built is None:
            continue
        mech, delta, pair = built
        claimed = mech.claim().epsilon(delta)
        flagged, best, start = 0, 0.0, time.perf_counter()
        cpu = time.process_time()
        for seed in range(runs):
            eps, _ = _bound(mech, pair, delta, samples, args.first_seed + seed, True)
            flagged += eps > claimed
            best = max(best, eps)
            print(f"{label} seed {args.first_seed + seed}: ε_LB {eps:.4g} (claim {claimed:.4g}); "
                  f"flagged {flagged}/{seed + 1}", flush=True)
        upper = float(clopper_pearson_upper(flagged, runs, 0.05))
        rows.append([f"{label} ({mech.library} {library_version(mech.library)})", pair.name,
                     delta, claimed, best, f"{flagged}/{runs}", round(upper, 4), samples,
                     round((time.perf_counter() - start) / runs, 2),
                     round((time.process_time() - cpu) / runs, 2), _load()])
        print(rows[-1], flush=True)
        record(f"False violations of float-safe analytics primitives, with Clopper–Pearson "
               f"bounds: {args.lib} (benchmarks/analytics.py)",
               f"{runs} audits each (seeds {args.first_seed}…{args.first_seed + runs - 1}, the "
               f"named pair, "
               f"representation statistics on, 95 %); 'flagged' = certificate > the library's "
               f"claim (nominal ≤ 5 %); 'CP upper' = one-sided 95 % Clopper–Pearson upper bound "
               f"on the false-violation rate; samples per side per audit; wall and CPU "
               f"seconds per audit under nice -n 19 at the load given (re-measure wall time on "
               f"a quiet machine).\n\n"
               + markdown_table(["primitive", "pair", "δ", "claimed ε", "max certificate",
                                 "flagged", "CP upper", "samples", "wall s/run",
                                 "CPU s/run", "load at end"], rows),
               write=not args.no_write)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=20_000)
    ap.add_argument("--confirm", action="store_true")
    ap.add_argument("--false-positive-runs", type=int, default=0)
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--only", action="append", default=[],
                    help="part 3: only the primitives whose label contains this (repeatable)")
    ap.add_argument("--first-seed", type=int, default=10_000,
                    help="part 3: the first seed (runs are seeds first … first + runs − 1)")
    ap.add_argument("--fp-samples", type=int, default=0,
                    help="part 3: samples per side per audit (default: each primitive's)")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    mech = next((built[0] for m, *_ in ADAPTERS for built in [_build((m, {}, 0.0))[0]]
                 if built), None)
    lib = "none" if mech is None else f"{mech.library} {library_version(mech.library)}"
    args.lib = lib
    args.findings = [] if args.samples == 0 else adapters_section(
        args, title=f"Analytics libraries as shipped: {lib} (benchmarks/analytics.py)")
    if args.confirm and args.findings:
        adapters_section(args, factor=10, seed=101,
                         title=f"Analytics findings at 10x the samples, another seed: {lib} "
                               f"(benchmarks/analytics.py)")
    if args.false_positive_runs:
        false_positive_section(args)


if __name__ == "__main__":
    main()
