"""The DP libraries people ship, audited as shipped: audits/external/*.toml → RESULTS.md.

Part 1 runs every external suite (diffprivlib, OpenDP, PyDP; a suite whose library is not
installed is listed as skipped) and tabulates per certificate: library and version, mechanism,
pair, claim, certified ε_LB (with the event), verdict, samples per side, seconds.  Part 2
(``--false-positive-runs R``) measures how often *correct* library mechanisms are flagged, as
``benchmarks/false_positives.py`` does for dpaudit's own: R audits per mechanism with seeds
10000…, 95% confidence, counting certificates above the claim (nominal rate ≤ 5 %).  The
correct mechanisms are the integer and grid samplers the suites found consistent (the
floating-point ones that leak through their low bits are not "correct", see
reports/external/README.md).

    python benchmarks/external.py [--workers 2] [--false-positive-runs 20] [--no-write]
"""

from __future__ import annotations

import argparse
import glob
import time
from pathlib import Path

from common import markdown_table, record

from dpaudit import estimate_epsilon_lower_bound
from dpaudit.api import run_suites
from dpaudit.mechanisms import create_mechanism
from dpaudit.mechanisms.external.common import library_version

ROOT = Path(__file__).resolve().parent.parent

#: correct library mechanisms for the false-positive rate: (name, params, δ, samples)
CORRECT = [("diffprivlib-geometric", {"epsilon": 1.0}, 0.0, 20_000),
           ("diffprivlib-snapping", {"epsilon": 1.0}, 0.0, 10_000),
           ("diffprivlib-binary", {"epsilon": 1.0}, 0.0, 20_000),
           ("opendp-laplace", {"scale": 1.0}, 0.0, 10_000),
           ("opendp-laplace-int", {"scale": 1.0}, 0.0, 10_000),
           ("pydp-laplace", {"epsilon": 1.0}, 0.0, 20_000),
           ("pydp-count", {"epsilon": 1.0}, 0.0, 20_000)]


def audit_section(args):
    rows, skipped = [], []
    start = time.perf_counter()
    run = run_suites(sorted(glob.glob(str(ROOT / "audits" / "external" / "*.toml"))),
                     workers=args.workers)
    for s in run.suites:
        if s.skipped or s.error:
            skipped.append(f"{Path(s.file).name}: {s.skipped or s.error}")
    for r in run.records:
        if r.notion != "dp":
            continue
        mech = create_mechanism(r.mechanism, **r.parameters)
        event = getattr(r.black_box, "event", "")
        rows.append([f"{mech.library} {library_version(mech.library)}", r.audit,
                     r.pair_name or "",
                     r.claimed_epsilon, r.epsilon_lower_bound, r.verdict, r.expect,
                     "✓" if r.met_expectation else "✗", r.samples, r.seconds,
                     "yes" if r.warnings else "", event[:70]])
    body = (f"`dpaudit run audits/external/*.toml` (workers {args.workers}) in "
            f"{time.perf_counter() - start:.0f} s; claim = the library's own (OpenDP: its "
            "privacy map at d_in); ε_LB = certified black-box lower bound at 95 % family-wise "
            "confidence per suite; 'rng ignored' = the record warns that the library draws "
            "from its own generator (not reproducible from the seed).\n\n"
            + ("Skipped: " + "; ".join(skipped) + "\n\n" if skipped else "")
            + markdown_table(["library", "audit", "pair", "claimed ε", "ε_LB", "verdict",
                              "expected", "", "samples", "s", "rng ignored", "event"], rows))
    record("External DP libraries as shipped (benchmarks/external.py)", body,
           write=not args.no_write)


def false_positive_section(args):
    rows = []
    for name, params, delta, samples in CORRECT:
        try:
            mech = create_mechanism(name, **params)
        except ImportError as exc:
            rows.append([name, "skipped", str(exc), "", "", ""])
            continue
        claimed = mech.claim().epsilon(delta)
        pair = mech.worst_case_pairs()[0]
        flagged, best, t = 0, 0.0, time.perf_counter()
        for seed in range(args.false_positive_runs):
            r = estimate_epsilon_lower_bound(mech.sampler(), pair.d0, pair.d1, delta=delta,
                                             samples=samples, confidence=0.95,
                                             seed=10_000 + seed, representation=True)
            flagged += r.epsilon > claimed
            best = max(best, r.epsilon)
        rows.append([f"{name} ({mech.library} {library_version(mech.library)})", pair.name,
                     claimed, best, f"{flagged}/{args.false_positive_runs}", samples,
                     (time.perf_counter() - t) / args.false_positive_runs])
        print(rows[-1], flush=True)
    body = (f"{args.false_positive_runs} audits per correct library mechanism (seeds 10000…, "
            "auto with the representation statistics, 95 % confidence); 'flagged' = "
            "certificate > the library's claimed ε (a false violation; nominal rate ≤ 5 %).\n\n"
            + markdown_table(["mechanism", "pair", "claimed ε", "max certificate", "flagged",
                              "samples", "s/run"], rows))
    record("False violations of correct library mechanisms (benchmarks/external.py)", body,
           write=not args.no_write)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--false-positive-runs", type=int, default=20)
    ap.add_argument("--skip-suites", action="store_true")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    if not args.skip_suites:
        audit_section(args)
    if args.false_positive_runs:
        false_positive_section(args)


if __name__ == "__main__":
    main()
