"""Accountants × runs against the bracketed curve: exact-curve conformance, no sampling.

A :class:`RunPoint` is one DP-SGD run at one δ (σ, q, T, relation, sampler — the
:class:`~dpaudit.claims.accountants.AccountingParameters` — and δ).  For each accountant and
point, :func:`check_accountant` asks the accountant's library for ε(δ) and compares it with the
bracket lower ≤ ε(δ) ≤ upper of the run's dominating pair
(:func:`dpaudit.exact.subsampled_gaussian.subsampled_gaussian_bracket`); the verdict is
:func:`~.verdicts.judge`'s.  An accountant below the *lower* end is a violation, whatever the
bracket's width: the lower end is rigorous (the optimistic PLD of a realisable pair).

:func:`run_conformance` does every accountant × point; a library that rejects a run or fails
on it gives that row's ``REJECTED`` or ``ERROR`` and never stops the others.  Rows are
plain frozen values with ``to_dict``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from dpaudit.claims.accountants import (AccountantError, AccountingParameters,
                                        get_accountant)
from dpaudit.conformance.verdicts import Verdict, judge
from dpaudit.exact.subsampled_gaussian import subsampled_gaussian_bracket


@dataclass(frozen=True)
class RunPoint:
    """One run (its accounting parameters) at one δ."""

    params: AccountingParameters
    delta: float

    def describe(self) -> str:
        return f"{self.params.describe()}, δ={self.delta:g}"

    def to_dict(self) -> dict:
        return {**self.params.to_dict(), "delta": self.delta}


def true_bracket(point: RunPoint) -> tuple[float, float]:
    """(lower, upper) on the run's ε(δ) (module docstring)."""
    p = point.params
    b = subsampled_gaussian_bracket(p.noise_multiplier, p.sample_rate, p.steps, point.delta,
                                    p.relation.value, p.sampler.value)
    return b.lower, b.upper


@dataclass(frozen=True)
class ConformanceRow:
    """One accountant at one point: its ε, the bracket, the verdict (and why, if no number)."""

    accountant: str
    version: str
    point: RunPoint
    verdict: Verdict
    reported: float = math.nan
    lower: float = math.nan
    upper: float = math.nan
    message: str = ""
    seconds: float = field(default=0.0, compare=False)

    @property
    def shortfall(self) -> float:
        """lower − reported (> 0 when the accountant under-reports), relative to lower."""
        return (self.lower - self.reported) / self.lower if self.lower > 0 else 0.0

    def describe(self) -> str:
        if self.verdict in (Verdict.REJECTED, Verdict.ERROR):
            return f"{self.accountant} at {self.point.describe()}: {self.verdict.value}: " \
                   f"{self.message}"
        text = (f"{self.accountant} ε = {self.reported:.4g} at {self.point.describe()}; "
                f"the run's ε ∈ [{self.lower:.4g}, {self.upper:.4g}]: {self.verdict.value}")
        if self.verdict is Verdict.UNDER_REPORTS:
            text += f" ({100 * self.shortfall:.1f} % below the lower end)"
        return text

    def to_dict(self) -> dict:
        def num(x):
            return None if math.isnan(x) else (str(x) if math.isinf(x) else x)
        return {"accountant": self.accountant, "version": self.version,
                "point": self.point.to_dict(), "verdict": self.verdict.value,
                "reported": num(self.reported), "lower": num(self.lower),
                "upper": num(self.upper), "message": self.message,
                "seconds": round(self.seconds, 3)}


def check_accountant(name: str, point: RunPoint,
                     bracket: tuple[float, float] | None = None) -> ConformanceRow:
    """One row (module docstring); ``bracket`` reuses a curve already computed for the
    point.  Never raises for a library's failure."""
    start = time.perf_counter()
    accountant = get_accountant(name)
    version = accountant.version()

    def row(verdict, **kw):
        return ConformanceRow(name, version, point, verdict,
                              seconds=time.perf_counter() - start, **kw)

    try:
        accountant.check(point.params)
    except AccountantError as exc:
        return row(Verdict.REJECTED, message=str(exc))
    try:
        reported = accountant.epsilon(point.params, point.delta)
    except AccountantError as exc:
        return row(Verdict.ERROR, message=str(exc))
    try:
        lower, upper = bracket if bracket is not None else true_bracket(point)
    except (ValueError, ImportError) as exc:
        return row(Verdict.ERROR, reported=reported, message=f"no curve: {exc}")
    return row(judge(reported, lower, upper), reported=reported, lower=lower, upper=upper)


def run_conformance(accountants, points) -> list[ConformanceRow]:
    """Every accountant × every point (module docstring), the curve computed once per
    point."""
    rows = []
    for point in points:
        try:
            bracket = true_bracket(point)
        except (ValueError, ImportError) as exc:
            bracket, failure = None, str(exc)
        for name in accountants:
            if bracket is None:
                rows.append(ConformanceRow(name, get_accountant(name).version(), point,
                                           Verdict.ERROR, message=f"no curve: {failure}"))
            else:
                rows.append(check_accountant(name, point, bracket))
    return rows


__all__ = ["ConformanceRow", "RunPoint", "check_accountant", "run_conformance",
           "true_bracket"]
