"""The sparse vector technique (Lyu, Su & Li 2017, Alg. 1) and the broken variants Alg. 3-6 of that paper.

Modules: :mod:`~.mechanisms`, :mod:`~.exact` (exact ⊤/⊥-pattern and released-value laws).

``MECHANISMS`` lists the family's registered mechanism classes; the registry
(:mod:`dpaudit.mechanisms.registry`) reads it through the families table
(:mod:`dpaudit.mechanisms.families`).
"""

from dpaudit.mechanisms.sparse_vector.mechanisms import SparseVector, SVTLyu3, SVTLyu4, SVTLyu5, SVTLyu6

MECHANISMS = (SparseVector, SVTLyu3, SVTLyu4, SVTLyu5, SVTLyu6,)

__all__ = ["MECHANISMS", "SparseVector", "SVTLyu3", "SVTLyu4", "SVTLyu5", "SVTLyu6"]
