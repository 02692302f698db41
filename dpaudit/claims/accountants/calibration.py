"""A noise calibration as a claim: the (ε, δ) a pipeline reports when its library chose σ.

A user who trains with a privacy *budget* rather than a noise multiplier — Opacus's
``make_private_with_epsilon``, which calls ``opacus.accountants.utils.get_noise_multiplier``;
dp_accounting's ``mechanism_calibration.calibrate_dp_mechanism`` — asks the library for σ such
that the run (q, T, sampler, relation) is (ε_target, δ_target)-DP by its accountant, trains at
that σ and reports (ε_target, δ_target).  That report is the claim audited here:

    CalibrationClaim:  ε(δ) = ε_target for δ ≥ δ_target, ∞ below (the (ε, δ)-DP claim
                       :class:`~dpaudit.claims.notions.ApproxDP` states),

recorded with the accountant, the σ its calibration returned, the library and its version.
The run trained at that σ has an ε(δ_target) of its own (the bracketed curve of its dominating
pair); a calibration whose σ gives the run a larger ε than the target **over-spends** the
budget — its accountant under-reports at the σ it chose (Opacus's GDP accountant does:
benchmarks/RESULTS.md, "accountants").

:func:`calibrated_claim` is the one place a calibration is run (the DP-SGD family's
``target_epsilon``, :mod:`dpaudit.conformance.calibration`, ``dpaudit accountants
--calibrate``): :class:`~.parameters.AccountantError` when the accountant cannot calibrate or
rejects the run, :class:`CalibrationFailed` (an AccountantError) when the library's search
itself fails or returns a σ that is not a finite positive number.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, replace

from dpaudit.claims.accountants.base import Accountant, Calibrates, quiet_library
from dpaudit.claims.accountants.parameters import AccountantError, AccountingParameters
from dpaudit.claims.accountants.registry import ACCOUNTANTS, get_accountant
from dpaudit.claims.base import Claim
from dpaudit.util import validation


class CalibrationFailed(AccountantError):
    """The library's calibration raised, or returned no usable σ (not a rejection of the
    run: the run is one the accountant analyses)."""


@dataclass(frozen=True)
class CalibrationClaim(Claim):
    """(ε_target, δ_target)-DP, the budget a calibration was asked for (module docstring);
    ``params.noise_multiplier`` is the σ it returned."""

    accountant: Accountant = field(default=None)
    params: AccountingParameters = field(default=None)
    target_epsilon: float = 1.0
    target_delta: float = 1e-5
    version: str = ""
    notion = "calibration"

    def epsilon(self, delta: float) -> float:
        delta = validation.delta("delta", delta)
        return self.target_epsilon if delta >= self.target_delta else math.inf

    @property
    def noise_multiplier(self) -> float:
        """σ as the calibration returned it."""
        return self.params.noise_multiplier

    def parameters(self) -> dict:
        return {"target_epsilon": self.target_epsilon, "target_delta": self.target_delta,
                **self.params.to_dict()}

    def describe(self) -> str:
        a = self.accountant
        return (f"{a.name} calibration ({a.distribution} {self.version}, {a.source}): "
                f"σ = {self.noise_multiplier:.6g} for ε = {self.target_epsilon:g} at "
                f"δ = {self.target_delta:g}; q={self.params.sample_rate:g}, "
                f"T={self.params.steps}, {self.params.sampler.value}, "
                f"{self.params.relation.value}")

    def to_dict(self) -> dict:
        out = super().to_dict()
        out.update(accountant=self.accountant.name, library=self.accountant.distribution,
                   version=self.version, source=self.accountant.source,
                   noise_multiplier=self.noise_multiplier)
        return out


@functools.lru_cache(maxsize=256)
def _calibrate(name: str, params: AccountingParameters, target_epsilon: float,
               delta: float) -> float:
    accountant = get_accountant(name)
    if not isinstance(accountant, Calibrates):
        raise AccountantError(f"accountant {name!r} has no noise calibration (calibrating: "
                              f"{', '.join(calibrating())})")
    accountant.check(params)
    try:
        with quiet_library():
            sigma = float(accountant.noise_multiplier(params, target_epsilon, delta))
    except AccountantError:
        raise
    except Exception as exc:  # the library's own failure, as one line
        raise CalibrationFailed(f"{name} calibration to ε = {target_epsilon:g} at "
                                f"δ = {delta:g} failed for q={params.sample_rate:g}, "
                                f"T={params.steps}: {type(exc).__name__}: {exc}") from None
    if not (math.isfinite(sigma) and sigma > 0):
        raise CalibrationFailed(f"{name} calibration to ε = {target_epsilon:g} at "
                                f"δ = {delta:g} returned σ = {sigma!r}")
    return sigma


def calibrated_claim(name: str, params: AccountingParameters, target_epsilon: float,
                     target_delta: float) -> CalibrationClaim:
    """Ask accountant ``name`` for σ at ``target_epsilon``, ``target_delta`` for the run
    ``params`` (its noise multiplier ignored) and return the claim the pipeline then reports
    (module docstring).  Computed once per argument tuple in a process.

    Raises:
      AccountantError: an unknown accountant, one that does not calibrate or rejects the run,
        a target ε that is not > 0 or a δ not in (0, 1); :class:`CalibrationFailed` when the
        library's search fails.
    """
    try:
        target_epsilon = validation.positive("target_epsilon", target_epsilon)
        target_delta = validation.delta("target_delta", target_delta, allow_zero=False)
    except ValueError as exc:
        raise AccountantError(str(exc)) from None
    accountant = get_accountant(name)
    sigma = _calibrate(name, params, float(target_epsilon), float(target_delta))
    return CalibrationClaim(accountant=accountant,
                            params=replace(params, noise_multiplier=sigma),
                            target_epsilon=float(target_epsilon),
                            target_delta=float(target_delta), version=accountant.version())


def calibrating() -> list[str]:
    """The names of every accountant that calibrates."""
    return [n for n, a in ACCOUNTANTS.items() if isinstance(a, Calibrates)]


__all__ = ["CalibrationClaim", "CalibrationFailed", "calibrated_claim", "calibrating"]
