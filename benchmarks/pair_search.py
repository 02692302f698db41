"""Does a suite find the bugs its named pair cannot see?  (issues 23 and 36)

Bugs: every known-bad mechanism that declares a dataset space (the registered zoo and the
broken examples of :mod:`dpaudit.check.examples`) and the held-out-style bugs of
:mod:`heldout_cases` (partition selection, a ``np.unique`` domain, a bound from the data, an
unclipped sum, an int64 sum that wraps, a single-record shortcut).  Their
``worst_case_pairs()`` are hidden: the audit's one named pair is a random neighbouring pair of
the mechanism's dataset space, drawn per seed (a user's "natural" pair).  Each bug is audited
per seed through every route — ``api`` (:func:`dpaudit.audit_mechanism`), ``run``
(:func:`dpaudit.run_suites` on a suite file of one audit), ``check``
(:func:`dpaudit.check_mechanism`, all four steps: its verdict is what CI sees) and ``pytest``
(the ``dpaudit_audit`` fixture, one pytest session) — in three modes:

* **named** — ``search = false``: the named pair only;
* **random** — the search without the adversarial proposals (``search = { proposals =
  false }``): corners, extremes and random pairs, as before issue 36;
* **after** — the default search: the space's adversarial proposals first, then the rest.

A bug counts as *found* when the route's verdict is a violation; an ``error`` verdict is
counted apart (shown as "(k errors)"), never as found.  ``--twins N`` also audits
the correct twins of the held-out bugs at N seeds each (API route, default search) and counts
false violations.  Cost: median seconds per audit, and the load average beside them.

    python benchmarks/pair_search.py [--samples 100000] [--seeds 10] [--routes api,run,check,pytest]
                                     [--modes named,random,after] [--twins 200] [--no-write]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
from common import markdown_table, record

import heldout_cases
from dpaudit import audit_mechanism, check_mechanism, run_suites
from dpaudit.check import examples
from dpaudit.check.blackbox import audit_delta
from dpaudit.mechanisms import get_mechanism_class, mechanism_names
from dpaudit.mechanisms.capabilities import SearchableDatasets
from dpaudit.neighbours.pairs import NeighbourPair
from dpaudit.spec.coverage import SearchBudget

HERE = Path(__file__).resolve().parent
MODES = {"named": False, "random": SearchBudget(proposals=False), "after": SearchBudget()}
TOML_SEARCH = {"named": "false", "random": "{ proposals = false }", "after": "true"}


def zoo() -> list[tuple[str, type, str]]:
    """(label, class, reference a suite names it by) of every bug with a dataset space."""
    out = []
    for name in mechanism_names():
        cls = get_mechanism_class(name)
        if cls.known_bad and issubclass(cls, SearchableDatasets):
            out.append((name, cls, name))
    for cls in (examples.WrongSensitivitySum, examples.HalfScaleLaplace,
                examples.FirstRecordLeak, examples.LeakySizeClippedMean):
        out.append((f"examples.{cls.__name__}", cls, f"dpaudit.check.examples:{cls.__name__}"))
    for bug, _, _ in heldout_cases.CASES:
        out.append((f"heldout.{bug.name}", bug, f"{HERE / 'heldout_cases.py'}:{bug.__name__}"))
    return out


def natural_pair(mech, seed: int) -> NeighbourPair:
    """A random neighbouring pair of the mechanism's dataset space: the user's named pair."""
    space = mech.dataset_space()
    rng = np.random.default_rng([seed, 23])
    for _ in range(100):
        d0, d1 = space.random_pair(rng)
        try:
            ok = mech.check_pair(d0, d1)[0]
        except ValueError:  # a dataset the mechanism refuses (an unlisted category)
            ok = False
        if ok:
            return NeighbourPair("natural", d0, d1)
    raise RuntimeError("no neighbouring pair in 100 draws")


def with_named(cls, pair: NeighbourPair):
    """An instance of ``cls`` whose worst-case pair is ``pair`` (for ``dpaudit check``)."""
    sub = type(cls.__name__, (cls,), {"worst_case_pairs": lambda self: [pair]})
    return sub()


def via_api(cls, pair, delta, samples, seed, mode) -> str:
    result = audit_mechanism(cls(), pairs=[pair], delta=delta, samples=samples, seed=seed,
                             search=MODES[mode])
    return result.verdict


def via_check(cls, pair, delta, samples, seed, mode) -> str:
    return check_mechanism(with_named(cls, pair), samples=samples, seed=seed,
                           search=MODES[mode]).verdict


def via_run(ref, pair, delta, samples, seed, mode, folder: Path) -> str:
    suite = folder / f"suite-{seed}-{mode}.toml"
    suite.write_text(f'[suite]\nname = "s"\nsamples = {samples}\nseed = {seed}\n\n'
                     f'[[audit]]\nname = "a"\nmechanism = {json.dumps(ref)}\n'
                     f'delta = {delta!r}\nsearch = {TOML_SEARCH[mode]}\n'
                     f'[[audit.pairs]]\nname = "natural"\nd0 = {json.dumps(pair.d0)}\n'
                     f'd1 = {json.dumps(pair.d1)}\n', encoding="utf-8")
    run = run_suites([str(suite)])
    verdicts = {p.verdict for p in run.points}
    return next((v for v in ("error", "violation") if v in verdicts), "consistent")


PYTEST_FILE = '''
import json, sys
import pytest
sys.path.insert(0, {here!r})
from pair_search import zoo, MODES
from dpaudit.neighbours.pairs import NeighbourPair
CASES = json.loads({cases!r})
CLASSES = {{label: cls for label, cls, _ in zoo()}}


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case(dpaudit_audit, case):
    pair = NeighbourPair("natural", case["d0"], case["d1"])
    dpaudit_audit.mechanism(CLASSES[case["label"]](), pairs=[pair], delta=case["delta"],
                            samples=case["samples"], seed=case["seed"],
                            search=MODES[case["mode"]])
'''


def via_pytest(cases: list[dict], folder: Path) -> dict[str, str]:
    """One pytest session over every case: id → "violation" (the test failed on a
    certificate), "error" (it failed on an audit error) or "consistent"."""
    test = folder / "test_routes.py"
    test.write_text(PYTEST_FILE.format(here=str(HERE), cases=json.dumps(cases)),
                    encoding="utf-8")
    junit = folder / "junit.xml"
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider",
                    str(test), f"--junitxml={junit}", "-W", "ignore"], cwd=folder,
                   capture_output=True)
    found = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        cid = case.get("name").split("[", 1)[1].rstrip("]")
        failure = case.find("failure")
        text = "" if failure is None else (failure.get("message") or "") + (failure.text or "")
        found[cid] = ("consistent" if failure is None else  # the fixture: "dpaudit: <verdict>"
                      "error" if "dpaudit: error" in text else "violation")
    return found


def twins(seeds: int, samples: int) -> list[list]:
    """False violations of the held-out bugs' correct twins (API route, default search)."""
    rows = []
    for _, twin, _ in heldout_cases.CASES:
        false, errors, seconds = 0, 0, []
        for s in range(seeds):
            pair = natural_pair(twin(), 5000 + s)
            t0 = time.perf_counter()
            result = audit_mechanism(twin(), pairs=[pair], samples=samples, seed=5000 + s)
            seconds.append(time.perf_counter() - t0)
            false += result.verdict == "violation"
            errors += result.verdict == "error"
        rows.append([twin.name, f"{false}/{seeds}", errors, statistics.median(seconds)])
        print(rows[-1], flush=True)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--samples", type=int, default=100_000)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--routes", default="api,run,check,pytest")
    ap.add_argument("--modes", default="named,random,after")
    ap.add_argument("--only", default="", help="comma-separated labels (default: every bug)")
    ap.add_argument("--twins", type=int, default=0, help="seeds per correct twin (0: none)")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    routes, modes = args.routes.split(","), args.modes.split(",")
    cases = [c for c in zoo() if not args.only or c[0] in args.only.split(",")]
    found: dict[tuple, int] = {}
    errors: dict[tuple, int] = {}
    seconds: dict[tuple, list] = {}
    pytest_cases = []
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for label, cls, ref in cases:
            delta = audit_delta(cls().claim())
            for s in range(args.seeds):
                seed = 1000 + s
                pair = natural_pair(cls(), seed)
                for mode in modes:
                    for route in routes:
                        if route == "pytest":
                            pytest_cases.append({"id": f"{label}-{seed}-{mode}", "label": label,
                                                 "d0": pair.d0, "d1": pair.d1, "delta": delta,
                                                 "samples": args.samples, "seed": seed,
                                                 "mode": mode})
                            continue
                        t0 = time.perf_counter()
                        verdict = (via_run(ref, pair, delta, args.samples, seed, mode, folder)
                                   if route == "run" else
                                   {"api": via_api, "check": via_check}[route](
                                       cls, pair, delta, args.samples, seed, mode))
                        seconds.setdefault((label, route, mode), []).append(
                            time.perf_counter() - t0)
                        key = (label, route, mode)
                        found[key] = found.get(key, 0) + (verdict == "violation")
                        errors[key] = errors.get(key, 0) + (verdict == "error")
            print(label, {k[1:]: v for k, v in found.items() if k[0] == label},
                  {k[1:]: v for k, v in errors.items() if k[0] == label and v}, flush=True)
        if pytest_cases:
            for cid, verdict in via_pytest(pytest_cases, folder).items():
                label, _, mode = cid.rsplit("-", 2)
                key = (label, "pytest", mode)
                found[key] = found.get(key, 0) + (verdict == "violation")
                errors[key] = errors.get(key, 0) + (verdict == "error")
    header = ["bug", *[f"{route} {mode}" for route in routes for mode in modes]]
    def cell(label, r, m):
        text = f"{found.get((label, r, m), 0)}/{args.seeds}"
        wrong = errors.get((label, r, m), 0)
        return text + (f" ({wrong} errors)" if wrong else "")

    rows = [[label, *[cell(label, r, m) for r in routes for m in modes]]
            for label, _, _ in cases]
    totals = {(r, m): sum(found.get((label, r, m), 0) for label, _, _ in cases)
              for r in routes for m in modes}
    runs = args.seeds * len(cases)
    cost = {(r, m): statistics.median(v for (lab, rr, mm), vs in seconds.items()
                                      if rr == r and mm == m for v in vs)
            for r in routes for m in modes if r != "pytest" and cases}
    body = (f"Bugs with a dataset space, `worst_case_pairs()` hidden: each audit names one "
            f"random neighbouring pair of the space (per seed) — the known-bad zoo, the broken "
            f"examples and the held-out cases of `benchmarks/heldout_cases.py` — at "
            f"{args.samples} samples per side, family-wise 95 %, representation at its default, "
            f"seeds 1000–{999 + args.seeds}. Modes: 'named' = `search = false`; 'random' = the "
            f"search without the adversarial proposals (`search = {{ proposals = false }}`: "
            f"corners, extremes, {SearchBudget().candidates} random pairs); 'after' = the default "
            f"search (proposals first). Routes: `audit_mechanism`, `run_suites` on a suite of "
            f"one audit, `check_mechanism` (its overall verdict, grey-box replay included), the "
            f"pytest fixture.\n\nFound (a violation), all bugs: "
            + "; ".join(f"{r} {m} {totals[(r, m)]}/{runs}" for r in routes for m in modes)
            + f".\n\nMedian seconds per audit (load average {load:.1f} at the start: re-measure "
              f"on a quiet machine): "
            + "; ".join(f"{r} {m} {cost[(r, m)]:.2f}" for (r, m) in cost) + ".\n\n")
    body += markdown_table(header, rows)
    if args.twins:
        body += (f"\n\nFalse violations of the held-out bugs' correct twins (API route, default "
                 f"search, seeds 5000–{4999 + args.twins}, one random named pair each):\n\n")
        body += markdown_table(["twin", "false violations", "errors", "median s"],
                               twins(args.twins, args.samples))
    record("Pair search through every route: bugs with their pairs hidden, adversarial "
           "proposals (benchmarks/pair_search.py)", body, write=not args.no_write)


if __name__ == "__main__":
    main()
