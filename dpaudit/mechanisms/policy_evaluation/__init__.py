"""Differentially private policy evaluation: DP-LSW and DP-LSL.

Modules: :mod:`~.mechanisms`, :mod:`~.estimators` (the LSW/LSL estimators and certified formulas), :mod:`~.data` (trajectory datasets), :mod:`~.chain` (the experiment's Markov chain data generator), :mod:`~.trajectories` (the replace-one-trajectory relation and dataset space).

``MECHANISMS`` lists the family's registered mechanism classes; the registry
(:mod:`dpaudit.mechanisms.registry`) reads it through the families table
(:mod:`dpaudit.mechanisms.families`).
"""

from dpaudit.mechanisms.policy_evaluation.mechanisms import DPLSW, DPLSL

MECHANISMS = (DPLSW, DPLSL,)

__all__ = ["MECHANISMS", "DPLSW", "DPLSL"]
