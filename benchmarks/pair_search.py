"""Does a suite find the bugs its named pair cannot see?  (issue 23)

For every known-bad mechanism that declares a dataset space (the registered zoo and the broken
examples of :mod:`dpaudit.check.examples`), ``worst_case_pairs()`` is hidden: the audit's one
named pair is a random neighbouring pair of the mechanism's dataset space (drawn per seed, as
a user's "natural" pair that need not be the worst case).  Each mechanism is audited through
the pipeline every route runs (:func:`dpaudit.audit_mechanism`, a suite of one audit:
:func:`~dpaudit.audit.plan.plan_suite`, a backend, the judgement) twice per seed:

* **before** — ``search=False``: the named pair only (what suites, pytest and the Python API
  audited before issue 23);
* **after** — the default: the named pair plus the ``keep`` pairs the pair search finds
  (:mod:`dpaudit.audit.pair_search`), all in one Bonferroni family at 95 %.

A bug counts as *found* when the audit point's verdict is a violation (never expected here:
every mechanism is known to be bad).  Cost: the seconds of each audit.

    python benchmarks/pair_search.py [--samples 100000] [--seeds 10] [--no-write]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from common import markdown_table, record

from dpaudit import audit_mechanism
from dpaudit.check import examples
from dpaudit.check.blackbox import audit_delta
from dpaudit.spec.coverage import SearchBudget
from dpaudit.mechanisms import get_mechanism_class, mechanism_names
from dpaudit.mechanisms.capabilities import SearchableDatasets


def zoo() -> list[tuple[str, object]]:
    """(name, instance) of every known-bad mechanism with a dataset space."""
    out = []
    for name in mechanism_names():
        cls = get_mechanism_class(name)
        if cls.known_bad and issubclass(cls, SearchableDatasets):
            out.append((name, cls()))
    for cls in (examples.WrongSensitivitySum, examples.HalfScaleLaplace,
                examples.FirstRecordLeak, examples.LeakySizeClippedMean):
        mech = cls() if cls is not examples.LeakySizeClippedMean else cls(n_min=50)
        out.append((f"examples.{cls.__name__}", mech))
    return out


def natural_pair(mech, seed: int):
    """A random neighbouring pair of the mechanism's dataset space: the user's named pair."""
    space = mech.dataset_space()
    rng = np.random.default_rng([seed, 23])
    for _ in range(100):
        d0, d1 = space.random_pair(rng)
        if mech.check_pair(d0, d1)[0]:
            return {"name": "natural", "d0": d0, "d1": d1}
    raise RuntimeError("no neighbouring pair in 100 draws")


def audit(mech, pair, delta, samples, seed, search) -> tuple[bool, float, float]:
    """(violation?, largest certified bound, seconds) of one audit."""
    t0 = time.perf_counter()
    result = audit_mechanism(mech, pairs=[pair], delta=delta, samples=samples, seed=seed,
                             search=search)
    seconds = time.perf_counter() - t0
    bound = max(c.bound for p in result.points for _, c in p.certificates()
                if c.bound is not None)
    return result.verdict == "violation", bound, seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--samples", type=int, default=100_000)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    rows, totals = [], {"before": 0, "after": 0}
    for name, mech in zoo():
        claim = mech.claim()
        delta = audit_delta(claim)
        found = {"before": 0, "after": 0}
        best = {"before": 0.0, "after": 0.0}
        seconds = {"before": [], "after": []}
        for s in range(args.seeds):
            seed = 1000 + s
            pair = natural_pair(mech, seed)
            for mode, search in (("before", False), ("after", SearchBudget())):
                hit, bound, took = audit(mech, pair, delta, args.samples, seed, search)
                found[mode] += hit
                best[mode] = max(best[mode], bound)
                seconds[mode].append(took)
        for mode in totals:
            totals[mode] += found[mode]
        rows.append([name, claim.epsilon(delta), f"{found['before']}/{args.seeds}",
                     best["before"], f"{found['after']}/{args.seeds}", best["after"],
                     statistics.median(seconds["before"]), statistics.median(seconds["after"])])
        print(rows[-1], flush=True)
    runs = args.seeds * len(rows)
    body = (f"Known-bad mechanisms with a dataset space, `worst_case_pairs()` hidden: each "
            f"audit names one random neighbouring pair of the dataset space (per seed) and "
            f"runs through `audit_mechanism` — the pipeline of every route — at "
            f"{args.samples} samples per side, family-wise 95 %, representation at its default. "
            f"'before' = `search=False` (the named pair only, as suites, pytest and the API "
            f"audited before issue 23); 'after' = the default search "
            f"({SearchBudget().candidates} random candidates, the space's corners and "
            f"extreme pairs, keep {SearchBudget().keep}). {args.seeds} seeds each; seconds "
            f"are medians per audit.\n\nFound (a certified violation): before "
            f"{totals['before']}/{runs} audits, after {totals['after']}/{runs}.\n\n")
    body += markdown_table(["mechanism", "claimed ε", "found before", "best bound before",
                            "found after", "best bound after", "s before", "s after"], rows)
    record("Pair search through a suite: known-bad zoo with its pairs hidden "
           "(benchmarks/pair_search.py)", body, write=not args.no_write)


if __name__ == "__main__":
    main()
