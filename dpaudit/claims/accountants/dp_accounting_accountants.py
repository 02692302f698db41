"""Google's dp_accounting: its RDP and PLD accountants, on the DpEvent a DP-SGD run composes.

The run is the event users build (dp_accounting's own DP-SGD examples and TF Privacy's
``compute_dp_sgd_privacy_statement``, which calls these accountants):

* Poisson sampling — ``SelfComposedDpEvent(PoissonSampledDpEvent(q, GaussianDpEvent(σ)), T)``;
* full batch — ``SelfComposedDpEvent(GaussianDpEvent(σ), T)``;
* sampling without replacement — ``SelfComposedDpEvent(SampledWithoutReplacementDpEvent(n,
  b, GaussianDpEvent(σ)), T)``;

given to ``RdpAccountant(neighboring_relation=…)`` (``dp_accounting:rdp``, its default orders)
or ``PLDAccountant(neighboring_relation=…)`` (``dp_accounting:pld``, pessimistic estimate at its
default ``value_discretization_interval`` 1e-4), composed and asked ``get_epsilon(δ)``.
The relation maps to ``NeighboringRelation.ADD_OR_REMOVE_ONE`` or ``REPLACE_ONE``; an event
the accountant does not support for that relation (``accountant.supports(event)`` is False —
e.g. RDP with Poisson sampling under REPLACE_ONE) is an AccountantError carrying the
library's reason.

``GaussianDpEvent(σ)``'s docstring defines σ as the noise's standard deviation over the norm
bound C of each summed value, so under REPLACE_ONE the sum moves by up to 2C (dp_accounting
issue 378): :mod:`dpaudit.conformance` checks what each accountant makes of that.

Calibration: ``mechanism_calibration.calibrate_dp_mechanism`` over σ with a fresh accountant
of the same kind (its default tolerance 1e-6 in σ, bracket found from [0, 1] upwards).
"""

from __future__ import annotations

from typing import ClassVar

from dpaudit.claims.accountants.base import Accountant, Calibrates
from dpaudit.claims.accountants.parameters import (AccountantError, AccountingParameters,
                                                   Relation, Sampler)

#: dpaudit's method name -> the accountant class in dp_accounting
METHODS = {"rdp": "dp_accounting.rdp.RdpAccountant",
           "pld": "dp_accounting.pld.PLDAccountant"}


def dp_event(dpa, params: AccountingParameters, sigma: float | None = None):
    """The composed DpEvent of the run (module docstring)."""
    gaussian = dpa.GaussianDpEvent(params.noise_multiplier if sigma is None else sigma)
    if params.sampler is Sampler.FULL_BATCH:
        step = gaussian
    elif params.sampler is Sampler.POISSON:
        step = dpa.PoissonSampledDpEvent(params.sample_rate, gaussian)
    else:
        step = dpa.SampledWithoutReplacementDpEvent(params.dataset_size, params.batch_size,
                                                    gaussian)
    return dpa.SelfComposedDpEvent(step, params.steps)


class DpAccountingAccountant(Calibrates, Accountant):
    """dp_accounting's ``RdpAccountant`` or ``PLDAccountant`` (module docstring)."""

    distribution: ClassVar[str] = "dp-accounting"
    module: ClassVar[str] = "dp_accounting"
    relations = (Relation.ADD_REMOVE, Relation.REPLACE_ONE)
    samplers = (Sampler.POISSON, Sampler.FULL_BATCH, Sampler.WITHOUT_REPLACEMENT)

    def __init__(self, method: str):
        self.method = method
        self.name = f"dp_accounting:{method}"
        self.source = METHODS[method]

    def fresh(self, dpa, params: AccountingParameters):
        relation = (dpa.NeighboringRelation.ADD_OR_REMOVE_ONE
                    if params.relation is Relation.ADD_REMOVE
                    else dpa.NeighboringRelation.REPLACE_ONE)
        if self.method == "rdp":
            from dp_accounting.rdp import rdp_privacy_accountant

            return rdp_privacy_accountant.RdpAccountant(neighboring_relation=relation)
        from dp_accounting.pld import pld_privacy_accountant

        return pld_privacy_accountant.PLDAccountant(relation)

    def check(self, params: AccountingParameters) -> None:
        super().check(params)
        dpa = self.require()
        if not self.fresh(dpa, params).supports(dp_event(dpa, params)):
            raise AccountantError(
                f"{self.name} does not support {params.sampler.value} sampling under "
                f"{params.relation.value} (dp_accounting's accountant.supports(event) is "
                f"False for {type(dp_event(dpa, params).event).__name__})")

    def compute(self, params: AccountingParameters, delta: float) -> float:
        dpa = self.require()
        acc = self.fresh(dpa, params)
        acc.compose(dp_event(dpa, params))
        return acc.get_epsilon(delta)

    def noise_multiplier(self, params: AccountingParameters, target_epsilon: float,
                         delta: float) -> float:
        self.check(params)
        dpa = self.require()
        from dp_accounting import mechanism_calibration

        return float(mechanism_calibration.calibrate_dp_mechanism(
            lambda: self.fresh(dpa, params), lambda s: dp_event(dpa, params, s),
            target_epsilon, delta))


ACCOUNTANTS = tuple(DpAccountingAccountant(m) for m in METHODS)

__all__ = ["ACCOUNTANTS", "DpAccountingAccountant", "METHODS", "dp_event"]
