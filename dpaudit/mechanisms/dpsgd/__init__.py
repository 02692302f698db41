"""DP-SGD's batch sampling: the ABLQ mechanism under Poisson, shuffled, balls-and-bins and
deterministic batches (Chua et al., ICML 2024 and NeurIPS 2024), audited against the Poisson
accountants' claims.

Modules: :mod:`~.mechanisms` (the mechanisms, their neighbouring relation, pairs and exact
laws), :mod:`~.samplers` (the batch samplers), :mod:`~.claim` (the accountants' claims: the
MTZ 2019 RDP derived in proofs/dpsgd.py, dp_accounting's PLD accountant, the deterministic
Gaussian), :mod:`~.curves` (numerical curves of the pairs).

``MECHANISMS`` lists the family's registered mechanism classes; the registry
(:mod:`dpaudit.mechanisms.registry`) reads it through the families table
(:mod:`dpaudit.mechanisms.families`).
"""

from dpaudit.mechanisms.dpsgd.mechanisms import (BallsAndBinsABLQ, DeterministicABLQ,
                                                 PoissonABLQ, ShuffleABLQ)

MECHANISMS = (PoissonABLQ, ShuffleABLQ, BallsAndBinsABLQ, DeterministicABLQ)

__all__ = ["MECHANISMS", "BallsAndBinsABLQ", "DeterministicABLQ", "PoissonABLQ", "ShuffleABLQ"]
