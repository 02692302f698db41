"""Differentially private synthetic control: DPSC_out and DPSC_obj.

Modules: :mod:`~.mechanisms` (DPSC_out), :mod:`~.objective` (DPSC_obj), :mod:`~.pairs` (standard pairs), :mod:`~.donor_pool` (the replace-one-donor relation), :mod:`~.data` (the experiment's data generator).

``MECHANISMS`` lists the family's registered mechanism classes; the registry
(:mod:`dpaudit.mechanisms.registry`) reads it through the families table
(:mod:`dpaudit.mechanisms.families`).
"""

from dpaudit.mechanisms.synthetic_control.mechanisms import DPSCOut, DPSCOutCoefficients, DPSCPostData
from dpaudit.mechanisms.synthetic_control.objective import DPSCObj, DPSCObjCoefficients

MECHANISMS = (DPSCOut, DPSCOutCoefficients, DPSCPostData, DPSCObj, DPSCObjCoefficients,)

__all__ = ["MECHANISMS", "DPSCOut", "DPSCOutCoefficients", "DPSCPostData", "DPSCObj", "DPSCObjCoefficients"]
