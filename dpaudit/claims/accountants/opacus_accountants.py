"""Opacus's accountants (``opacus.accountants``): RDP, PRV and GDP, as a privacy engine reports.

``PrivacyEngine.get_epsilon(δ)`` asks the accountant built by
``create_accountant(mechanism)`` whose ``history`` holds one (σ, q, T) entry per
configuration its optimizer hook recorded; :class:`OpacusAccountant` builds the same accountant
with the history ``[(σ, q, T)]`` and calls ``get_epsilon(delta=δ)``.  Every Opacus accountant
analyses Poisson sampling under add/remove neighbours:

* ``opacus:rdp`` — ``RDPAccountant``: the sampled Gaussian's RDP (Mironov, Talwar & Zhang
  2019) over Opacus's default orders, converted to (ε, δ);
* ``opacus:prv`` — ``PRVAccountant``: Gopi, Lee & Wutschitz 2021, the upper end of its error
  bracket (``eps_error`` 0.01);
* ``opacus:gdp`` — ``GaussianAccountant``: the central-limit μ = q·√(T(e^{1/σ²} − 1)) of
  Bu, Dong, Long & Su 2020 (Opacus warns that it is an approximation, not a bound; issue 384,
  PR 400).

Calibration (:class:`~.base.Calibrates`): ``opacus.accountants.utils.get_noise_multiplier``
(the bisection Opacus's ``make_private_with_epsilon`` uses), with its default tolerance 0.01.
"""

from __future__ import annotations

import warnings
from typing import ClassVar

from dpaudit.claims.accountants.base import Accountant, Calibrates
from dpaudit.claims.accountants.parameters import AccountingParameters

#: dpaudit's method name -> Opacus's ``create_accountant(mechanism=...)`` name and class
METHODS = {"rdp": ("rdp", "RDPAccountant"), "prv": ("prv", "PRVAccountant"),
           "gdp": ("gdp", "GaussianAccountant")}


class OpacusAccountant(Calibrates, Accountant):
    """``opacus.accountants.create_accountant(method)`` holding ``[(σ, q, T)]``."""

    distribution: ClassVar[str] = "opacus"
    module: ClassVar[str] = "opacus.accountants"

    def __init__(self, method: str):
        self.method = method
        self.name = f"opacus:{method}"
        self.source = f"opacus.accountants.{METHODS[method][1]}"

    def compute(self, params: AccountingParameters, delta: float) -> float:
        from opacus.accountants import create_accountant

        acc = create_accountant(mechanism=METHODS[self.method][0])
        acc.history = [(params.noise_multiplier, params.sample_rate, params.steps)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return acc.get_epsilon(delta=delta)

    def noise_multiplier(self, params: AccountingParameters, target_epsilon: float,
                         delta: float) -> float:
        self.check(params)
        from opacus.accountants.utils import get_noise_multiplier

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return float(get_noise_multiplier(
                target_epsilon=target_epsilon, target_delta=delta,
                sample_rate=params.sample_rate, steps=params.steps,
                accountant=METHODS[self.method][0]))


ACCOUNTANTS = tuple(OpacusAccountant(m) for m in METHODS)

__all__ = ["ACCOUNTANTS", "METHODS", "OpacusAccountant"]
