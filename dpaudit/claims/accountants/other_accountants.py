"""The two research accountants users call directly: prv_accountant and autodp.

* ``prv_accountant`` — Microsoft's ``prv_accountant.PRVAccountant`` (Gopi, Lee & Wutschitz,
  NeurIPS 2021) over ``PoissonSubsampledGaussianMechanism(σ, q)`` composed T times, with
  ``eps_error`` 0.01 and ``delta_error`` δ/1000 (the settings Opacus's copy of it uses);
  ``compute_epsilon`` returns (lower, estimate, upper) and the upper end is the library's
  statement, as in its README.  Poisson sampling, add/remove.
* ``autodp:rdp`` — ``autodp.mechanism_zoo.SubsampleGaussianMechanism({'prob': q, 'sigma': σ,
  'coeff': T})`` (Zhu & Wang 2019's Poisson-subsampled RDP, composed), ε from
  ``get_approxDP(δ)``.  Poisson sampling, add/remove.
"""

from __future__ import annotations

from typing import ClassVar

from dpaudit.claims.accountants.base import Accountant
from dpaudit.claims.accountants.parameters import AccountingParameters

#: prv_accountant's ε discretisation error (the one Opacus's PRV accountant uses)
PRV_EPS_ERROR = 0.01


class PrvAccountant(Accountant):
    """``prv_accountant.PRVAccountant`` (module docstring)."""

    name: ClassVar[str] = "prv_accountant"
    distribution: ClassVar[str] = "prv-accountant"
    module: ClassVar[str] = "prv_accountant"
    source: ClassVar[str] = "prv_accountant.PRVAccountant (upper end)"

    def compute(self, params: AccountingParameters, delta: float) -> float:
        from prv_accountant import PRVAccountant
        from prv_accountant.privacy_random_variables import PoissonSubsampledGaussianMechanism

        prv = PoissonSubsampledGaussianMechanism(noise_multiplier=params.noise_multiplier,
                                                 sampling_probability=params.sample_rate)
        acc = PRVAccountant(prvs=prv, max_self_compositions=params.steps,
                            eps_error=PRV_EPS_ERROR, delta_error=delta / 1000)
        return acc.compute_epsilon(delta=delta, num_self_compositions=[params.steps])[2]


class AutodpRdp(Accountant):
    """``autodp.mechanism_zoo.SubsampleGaussianMechanism`` (module docstring)."""

    name: ClassVar[str] = "autodp:rdp"
    distribution: ClassVar[str] = "autodp"
    module: ClassVar[str] = "autodp.mechanism_zoo"
    source: ClassVar[str] = "autodp.mechanism_zoo.SubsampleGaussianMechanism"

    def compute(self, params: AccountingParameters, delta: float) -> float:
        from autodp import mechanism_zoo

        mech = mechanism_zoo.SubsampleGaussianMechanism(
            {"prob": params.sample_rate, "sigma": params.noise_multiplier,
             "coeff": params.steps})
        return mech.get_approxDP(delta)


ACCOUNTANTS = (PrvAccountant(), AutodpRdp())

__all__ = ["ACCOUNTANTS", "AutodpRdp", "PRV_EPS_ERROR", "PrvAccountant"]
