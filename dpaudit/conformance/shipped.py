"""The shipped conformance grid: the runs `dpaudit accountants --grid` checks.

Poisson sampling under add/remove — the regime every accountant analyses — at noise
multipliers 0.8, 1 and 2, sampling rates 0.01 and 0.1, 10 and 100 steps, δ = 1e-5 (12 runs);
Poisson under replace-one (dp_accounting alone analyses it) at σ = 1, q = 0.1, T = 10; full
batches (q = 1) under both relations at σ = 2 and 5, T = 1 and 10 (dp_accounting; its issue
378).  Calibrations: targets ε = 1, 3 and 8 at q = 0.01, T = 100 and ε = 2 at q = 0.1, T = 10,
δ = 1e-5, by every calibrating accountant but the PLD ones (each of their bisection steps
recomputes a PLD: seconds) — dp_accounting's PLD once, at ε = 3.

Cost (benchmarks/RESULTS.md, "accountants"): dominated by the Poisson curves (two
single-step PLDs per (σ, q), seconds each at small σ) and Opacus's import of torch.
"""

from __future__ import annotations

import itertools

from dpaudit.claims.accountants import AccountingParameters
from dpaudit.conformance.grid import RunPoint

DELTA = 1e-5


def shipped_points() -> list[RunPoint]:
    """The grid's runs (module docstring), in a fixed order."""
    points = [RunPoint(AccountingParameters(s, q, t), DELTA)
              for s, q, t in itertools.product((0.8, 1.0, 2.0), (0.01, 0.1), (10, 100))]
    points.append(RunPoint(AccountingParameters(1.0, 0.1, 10, relation="replace-one"), DELTA))
    points += [RunPoint(AccountingParameters(s, 1.0, t, relation=r, sampler="full-batch"), DELTA)
               for s, t, r in itertools.product((2.0, 5.0), (1, 10),
                                                ("add-remove", "replace-one"))]
    return points


def shipped_calibrations() -> list[tuple[str, RunPoint, float]]:
    """(accountant, run, target ε) of the grid's calibrations (module docstring)."""
    cheap = ("opacus:rdp", "opacus:prv", "opacus:gdp", "dp_accounting:rdp")
    runs = [(0.01, 100, 1.0), (0.01, 100, 3.0), (0.01, 100, 8.0), (0.1, 10, 2.0)]
    out = [(name, RunPoint(AccountingParameters(1.0, q, t), DELTA), eps)
           for q, t, eps in runs for name in cheap]
    out.append(("dp_accounting:pld", RunPoint(AccountingParameters(1.0, 0.01, 100), DELTA),
                3.0))
    return out


__all__ = ["DELTA", "shipped_calibrations", "shipped_points"]
