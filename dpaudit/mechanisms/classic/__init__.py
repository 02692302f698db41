"""Classic mechanisms: Laplace, Gaussian (classical and analytic calibration), randomised response, geometric, exponential.

Modules: :mod:`~.common` (certified formulas, bounded-sum base, record validation), one module per mechanism.

``MECHANISMS`` lists the family's registered mechanism classes; the registry
(:mod:`dpaudit.mechanisms.registry`) reads it through the families table
(:mod:`dpaudit.mechanisms.families`).
"""

from dpaudit.mechanisms.classic.exponential import ExponentialMechanism
from dpaudit.mechanisms.classic.gaussian import GaussianMechanism
from dpaudit.mechanisms.classic.geometric import GeometricMechanism
from dpaudit.mechanisms.classic.laplace import LaplaceMechanism
from dpaudit.mechanisms.classic.randomized_response import RandomizedResponse

MECHANISMS = (LaplaceMechanism, GaussianMechanism, RandomizedResponse, GeometricMechanism, ExponentialMechanism,)

__all__ = ["MECHANISMS", "LaplaceMechanism", "GaussianMechanism", "RandomizedResponse", "GeometricMechanism", "ExponentialMechanism"]
