"""Accountants as claims: the ε(δ) a privacy library reports for a DP-SGD run.

* :mod:`~.parameters` — what an accountant is asked (σ, q, T, sampler, relation) and its
  errors;
* :mod:`~.base` — the :class:`Accountant` contract and :class:`AccountantClaim`;
* :mod:`~.opacus_accountants`, :mod:`~.dp_accounting_accountants`,
  :mod:`~.other_accountants` — one module per library (Opacus; dp_accounting; prv_accountant
  and autodp);
* :mod:`~.registry` — every accountant by name; :func:`accountant_claim` and
  :func:`claim_from_spec`, the one way to build such a claim;
* :mod:`~.calibration` — a noise calibration as a claim (:func:`calibrated_claim`: the
  (ε, δ) a pipeline reports when its library chose σ for that budget).

The libraries are imported when an accountant is used, never by importing this package.
"""

from dpaudit.claims.accountants.base import Accountant, AccountantClaim, Calibrates
from dpaudit.claims.accountants.parameters import (AccountantError, AccountingParameters,
                                                   Relation, Sampler)
from dpaudit.claims.accountants.registry import (ACCOUNTANTS, accountant_claim,
                                                 claim_from_spec, get_accountant)
from dpaudit.claims.accountants.calibration import (CalibrationClaim, CalibrationFailed,
                                                    calibrated_claim, calibrating)

__all__ = ["ACCOUNTANTS", "Accountant", "AccountantClaim", "AccountantError",
           "AccountingParameters", "CalibrationClaim", "CalibrationFailed", "Calibrates",
           "Relation", "Sampler", "accountant_claim", "calibrated_claim", "calibrating",
           "claim_from_spec", "get_accountant"]
