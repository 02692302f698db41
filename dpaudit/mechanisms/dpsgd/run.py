"""The DP-SGD run an accountant is told about: the family's parameters in accountants' words.

Every accountant is asked about a run (:class:`~dpaudit.claims.accountants.AccountingParameters`)
— the noise multiplier σ, the rate q = b/n, the T steps, the neighbouring relation and the
sampler.  Whatever the family's batch sampler, the run a pipeline *reports* is the one every
DP-SGD accountant analyses: Poisson sampling at q = b/n over all T steps (a pipeline that
shuffles and reports that number claims exactly this; Chua et al. 2024).  At q = 1 (b = n)
Poisson sampling is the full batch, and the accountant is told so when it analyses full batches
(dp_accounting does, under both relations; Opacus's accountants know only Poisson sampling, for
which rate 1 is the same event).

:func:`calibrated_run` is the family's ``target_epsilon``: the pipeline trains with a privacy
budget rather than a noise multiplier (Opacus's ``make_private_with_epsilon``,
dp_accounting's ``calibrate_dp_mechanism``), so σ is what the accountant's calibration returns
for (ε_target, δ_target) at the run's q, T and relation, and the claim is that budget
(:class:`~dpaudit.claims.accountants.CalibrationClaim`).
"""

from __future__ import annotations

from dpaudit.claims.accountants import (ACCOUNTANTS, AccountingParameters, CalibrationClaim,
                                        Sampler, calibrated_claim, calibrating)

#: the family's own claim names that stand for a library accountant (calibration)
LIBRARY_NAMES = {"pld": "dp_accounting:pld"}


def accounting_parameters(accountant: str | None, *, sigma: float, q: float, steps: int,
                          relation: str) -> AccountingParameters:
    """The run (module docstring) as ``accountant`` is asked about it (``None``: any)."""
    sampler = Sampler.POISSON
    if q == 1.0:
        known = ACCOUNTANTS.get(LIBRARY_NAMES.get(accountant, accountant))
        if known is None or Sampler.FULL_BATCH in known.samplers:
            sampler = Sampler.FULL_BATCH
    return AccountingParameters(sigma, q, steps, relation=relation, sampler=sampler)


def calibrated_run(accountant: str, *, q: float, steps: int, relation: str,
                   target_epsilon: float, target_delta: float) -> CalibrationClaim:
    """The claim of the run whose σ ``accountant``'s calibration chose for (ε_target,
    δ_target) (module docstring); its ``noise_multiplier`` is that σ.

    Raises:
      ValueError: ``accountant`` does not calibrate, or the library rejects or fails on the
        run (an :class:`~dpaudit.claims.accountants.AccountantError`, one line).
    """
    name = LIBRARY_NAMES.get(accountant, accountant)
    if name not in calibrating():
        raise ValueError(f"target_epsilon: the accountant {accountant!r} has no noise "
                         f"calibration; calibrating accountants: "
                         f"{', '.join(['pld', *calibrating()])}")
    run = accounting_parameters(name, sigma=1.0, q=q, steps=steps, relation=relation)
    return calibrated_claim(name, run, target_epsilon, target_delta)


__all__ = ["LIBRARY_NAMES", "accounting_parameters", "calibrated_run"]
