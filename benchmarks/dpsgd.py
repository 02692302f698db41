"""DP-SGD family (issue 25): the cost of each audit and the accuracy of the numerical curves.

Records in RESULTS.md (section "DP-SGD: audit cost and numerical-curve accuracy"):

1. ``dpaudit run audits/dpsgd.toml`` as a user runs it (a subprocess, ``--workers 2``): the whole
   run's wall time, and per audit the samples per side, the seconds of its tests (black-box +
   white-box, from results.json), the claim, the certified bounds, the pair's exact/numerical ε
   and the verdict;
2. the Poisson pair's numerical ε(δ): the PLD bracket of :func:`poisson_pld_epsilon` (optimistic
   and pessimistic estimates at discretisation 1e-5) against dp_accounting's own estimates at
   its default 1e-4 (the PLDAccountant the claim calls is the pessimistic one), with seconds;
3. the shuffle max-statistic curve (:class:`ShuffleMaxCurve`, one epoch): ε(δ), the change of
   δ(ε) and of ε(δ) when the grid is halved (the stated accuracy), and the seconds per curve.

Sizes are those of ``audits/dpsgd.toml``: n = 1000, b = 10 (q = 0.01, T = 100 steps,
one epoch), δ = 1e-3, σ ∈ {0.8, 2.0} (plus 0.5 and 1.2 for the curves).

Run: ``python benchmarks/dpsgd.py [--quick] [--no-write]``; ``--quick`` runs the suite at
``--profile quick`` (samples ×0.1) and the curves at σ ∈ {0.8, 2.0} only (27 s instead of
64 s on 2 cores; the Poisson audits' exact ε at discretisation 1e-5 dominates either way).  Needs the ``dpsgd`` extra (dp_accounting).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import markdown_table, record  # noqa: E402
from dpaudit.mechanisms.dpsgd.claim import dp_accounting_version, pld_accountant_epsilon  # noqa: E402
from dpaudit.mechanisms.dpsgd import curves  # noqa: E402
from dpaudit.mechanisms.dpsgd.curves import (  # noqa: E402
    FINE_DISCRETIZATION, GRID, ShuffleMaxCurve, poisson_pld_epsilon)

REPO = Path(__file__).resolve().parents[1]
SUITE = REPO / "audits" / "dpsgd.toml"
N, B, DELTA = 1000, 10, 1e-3
Q, T = B / N, N // B


def run_suite(quick: bool) -> tuple[float, list[list], int]:
    """(wall seconds, one row per audit, samples per side in the suite file)."""
    with tempfile.TemporaryDirectory() as out:
        cmd = [sys.executable, "-m", "dpaudit.cli", "run", str(SUITE), "--out", out,
               "--workers", "2", "-q"]
        if quick:
            cmd += ["--profile", "quick"]
        env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        start = time.perf_counter()
        done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, env=env)
        wall = time.perf_counter() - start
        if done.returncode not in (0, 1):
            raise SystemExit(f"dpaudit run failed ({done.returncode}):\n{done.stderr[-3000:]}")
        results = json.loads((Path(out) / "results.json").read_text(encoding="utf-8"))
    rows = []
    for k, point in enumerate(results["points"]):
        certs = [c for c in results["certificates"] if c["point"] == k]
        c = certs[0]
        seconds = sum(x["seconds"] or 0.0 for x in certs)
        rows.append([point["audit"], point["mechanism"].removeprefix("dpsgd-"),
                     point["parameters"].get("noise_multiplier"),
                     point["parameters"].get("accountant", "pld"), c["samples"],
                     seconds, c["claimed_epsilon"], c["epsilon_lower_bound"],
                     c["white_box_epsilon_lower_bound"],
                     c["exact_epsilon"] if c["exact_epsilon"] is not None else "—",
                     c["verdict"], point["expect"],
                     "yes" if point["met_expectation"] else "**no**"])
    return wall, rows, results


def timed(fn):
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def poisson_accuracy(sigmas) -> list[list]:
    from dp_accounting.pld import privacy_loss_distribution as pld

    rows = []
    for s in sigmas:
        poisson_pld_epsilon.cache_clear()
        curves._composed_pld.cache_clear()   # time the PLDs, not the cache
        fine, fine_s = timed(lambda s=s: poisson_pld_epsilon(s, Q, T, DELTA))

        def default(pessimistic: bool, s=s) -> float:
            dist = pld.from_gaussian_mechanism(s, pessimistic_estimate=pessimistic,
                                               sampling_prob=Q, use_connect_dots=pessimistic)
            return float(dist.self_compose(T).get_epsilon_for_delta(DELTA))
        (opt, pes), dflt_s = timed(lambda: (default(False), default(True)))
        pld_accountant_epsilon.cache_clear()
        acc = pld_accountant_epsilon(s, Q, T, DELTA)
        rows.append([s, fine.lower, fine.upper, fine.width, opt, pes, pes - opt, acc,
                     fine.upper <= pes and fine.lower >= opt, fine_s, dflt_s])
    return rows


def shuffle_accuracy(sigmas) -> list[list]:
    rows = []
    for s in sigmas:
        for label, hi, lo in (("shuffle MoG(2) vs MoG(1)", 2.0, 1.0),
                              ("balls-and-bins MoG(1) vs N(0)", 1.0, 0.0)):
            curve, build_s = timed(lambda s=s, hi=hi, lo=lo: ShuffleMaxCurve(hi, lo, s, T))
            eps, eps_s = timed(lambda c=curve: c.epsilon(DELTA))
            coarse = ShuffleMaxCurve(hi, lo, s, T, grid=(GRID + 1) // 2)
            rows.append([label, s, eps, curve.accuracy(eps), abs(eps - coarse.epsilon(DELTA)),
                         build_s + eps_s])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="suite at --profile quick, curves at σ ∈ {0.8, 2.0} only")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    sigmas = (0.8, 2.0) if args.quick else (0.5, 0.8, 1.2, 2.0)
    total = time.perf_counter()
    wall, audit_rows, results = run_suite(args.quick)
    summary = results["summary"]
    p_rows = poisson_accuracy(sigmas)
    s_rows = shuffle_accuracy(sigmas)
    total = time.perf_counter() - total
    title = "DP-SGD: audit cost and numerical-curve accuracy (benchmarks/dpsgd.py)"
    if args.quick:
        title += " — quick"
    body = f"""
Sizes: n = {N}, b = {B} (q = {Q:g}, T = {T} steps, one epoch), δ = {DELTA:g}; dp_accounting
{dp_accounting_version()}.  Whole benchmark {total:.0f} s.

**Audits.** `dpaudit run audits/dpsgd.toml --workers 2{' --profile quick' if args.quick else ''}`
(a subprocess): **{wall:.1f} s wall** for {summary['audits']} audits, {summary['certificates']}
certificates (each a black-box and a white-box test of the canary pair; no pair search: the
family has no dataset space); {summary['audits_met']}/{summary['audits']} expectations met.  Seconds are the sum of
each audit's tests (black-box + white-box, sampling included, in a worker); samples are per
side.  ε_LB: black-box certified bound; white-box: the likelihood-ratio bound; exact: the
pair's ε (Poisson: optimistic end of the PLD bracket; shuffle, balls-and-bins: the
max-statistic lower-bound curve; deterministic: closed form).

{markdown_table(["audit", "sampler", "σ", "claim", "samples/side", "s", "claimed ε", "ε_LB",
                 "white-box ε_LB", "exact ε", "verdict", "expected", "met"], audit_rows)}

**Poisson pair, numerical ε(δ = {DELTA:g}).** The bracket [optimistic, pessimistic] at
discretisation {FINE_DISCRETIZATION:g} (what `exact_epsilon` uses: its lower end) against
dp_accounting's optimistic/pessimistic estimates at its default 1e-4, and the claim
(PLDAccountant, pessimistic, 1e-4).  "nested": the fine bracket lies inside the default one.
Observed: each bracket's width is 5e-4 at 1e-5 and 5e-3 at 1e-4 at every σ (T·discretisation/2).

{markdown_table(["σ", "fine lower", "fine upper", "fine width", "default optimistic",
                 "default pessimistic", "default width", "PLDAccountant (claim)", "nested",
                 "fine s", "default s"], p_rows)}

**Shuffle max-statistic curve** (Chua et al.'s lower-bound pair, one epoch, T = {T}): ε(δ) on
the {GRID:,}-point grid; Δδ = |δ(ε) − δ(ε) on the half grid| at that ε (the stated
accuracy); Δε = the change of ε(δ) on the half grid; seconds to build the curve and invert.

{markdown_table(["pair", "σ", "ε(δ)", "Δδ on the half grid", "Δε on the half grid", "s"], s_rows)}
"""
    record(title, body, write=not args.no_write)


if __name__ == "__main__":
    main()
