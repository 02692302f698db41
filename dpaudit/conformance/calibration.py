"""Noise calibration against the bracketed curve: ε(returned σ) must not exceed the target.

A calibration asks a library for the smallest noise multiplier σ whose ε(δ) meets a target ε
for a run's q and T (Opacus's ``get_noise_multiplier``, dp_accounting's
``calibrate_dp_mechanism``: :class:`~dpaudit.claims.accountants.Calibrates`).  The run trained
at that σ has ε(δ) ≥ the bracket's lower end at σ
(:func:`dpaudit.exact.subsampled_gaussian.subsampled_gaussian_bracket`); when that lower end
exceeds the target, the calibration **over-spends** (:attr:`~.verdicts.Verdict.UNDER_REPORTS`,
the same word: the accountant behind it under-reports at the σ it chose).  Within the bracket
it is ``WITHIN``, above it ``CONSISTENT``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from dpaudit.claims.accountants import (AccountantError, CalibrationFailed, Calibrates,
                                        calibrated_claim, get_accountant)
from dpaudit.conformance.grid import RunPoint, true_bracket
from dpaudit.conformance.verdicts import Verdict, judge


@dataclass(frozen=True)
class CalibrationRow:
    """One calibration: the target, the σ returned, the run's ε bracket at that σ."""

    accountant: str
    version: str
    point: RunPoint
    target_epsilon: float
    verdict: Verdict
    sigma: float = math.nan
    lower: float = math.nan
    upper: float = math.nan
    message: str = ""
    seconds: float = field(default=0.0, compare=False)

    def describe(self) -> str:
        p = self.point.params
        head = (f"{self.accountant} calibration to ε = {self.target_epsilon:g} at "
                f"q={p.sample_rate:g}, T={p.steps}, δ={self.point.delta:g}")
        if self.verdict in (Verdict.REJECTED, Verdict.ERROR):
            return f"{head}: {self.verdict.value}: {self.message}"
        return (f"{head}: σ = {self.sigma:.5g}, whose ε ∈ [{self.lower:.4g}, {self.upper:.4g}]"
                f": {self.verdict.value}")

    def to_dict(self) -> dict:
        def num(x):
            return None if math.isnan(x) else (str(x) if math.isinf(x) else x)
        return {"accountant": self.accountant, "version": self.version,
                "point": {k: v for k, v in self.point.to_dict().items()
                          if k != "noise_multiplier"},
                "target_epsilon": self.target_epsilon, "verdict": self.verdict.value,
                "sigma": num(self.sigma), "lower": num(self.lower), "upper": num(self.upper),
                "message": self.message, "seconds": round(self.seconds, 3)}


def check_calibration(name: str, point: RunPoint, target_epsilon: float) -> CalibrationRow:
    """Calibrate with accountant ``name`` and judge the σ it returns (module docstring);
    ``point.params.noise_multiplier`` is ignored.  The calibration is
    :func:`~dpaudit.claims.accountants.calibrated_claim` (the one a suite's calibrated DP-SGD
    run makes).  Never raises for a library's failure."""
    start = time.perf_counter()
    accountant = get_accountant(name)

    def row(verdict, **kw):
        return CalibrationRow(name, accountant.version(), point, target_epsilon, verdict,
                              seconds=time.perf_counter() - start, **kw)

    if not isinstance(accountant, Calibrates):
        return row(Verdict.REJECTED, message=f"{name} has no noise calibration")
    try:
        claim = calibrated_claim(name, point.params, target_epsilon, point.delta)
    except CalibrationFailed as exc:
        return row(Verdict.ERROR, message=str(exc))
    except AccountantError as exc:
        return row(Verdict.REJECTED, message=str(exc))
    sigma = claim.noise_multiplier
    at_sigma = RunPoint(claim.params, point.delta)
    try:
        lower, upper = true_bracket(at_sigma)
    except (ValueError, ImportError) as exc:
        return row(Verdict.ERROR, sigma=sigma, message=f"no curve: {exc}")
    return row(judge(target_epsilon, lower, upper), sigma=sigma, lower=lower, upper=upper)


__all__ = ["CalibrationRow", "check_calibration"]
