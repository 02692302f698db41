"""The known-bad zoo beyond noisy max and SVT: published or classic bugs with their literature ε (the noisy-max value and SVT variants live in their own families and are flagged ``known_bad`` there).

Modules: :mod:`~.mechanisms`, :mod:`~.floating` (the naive floating-point Laplace and its
safe grid counterpart).

``MECHANISMS`` lists the family's registered mechanism classes; the registry
(:mod:`dpaudit.mechanisms.registry`) reads it through the families table
(:mod:`dpaudit.mechanisms.families`).
"""

from dpaudit.mechanisms.known_bad.floating import GridLaplace, NaiveFloatLaplace
from dpaudit.mechanisms.known_bad.mechanisms import LaplaceScaleEpsilon, DoubleSpending

MECHANISMS = (LaplaceScaleEpsilon, DoubleSpending, NaiveFloatLaplace, GridLaplace)

__all__ = ["MECHANISMS", "LaplaceScaleEpsilon", "DoubleSpending", "NaiveFloatLaplace",
           "GridLaplace"]
