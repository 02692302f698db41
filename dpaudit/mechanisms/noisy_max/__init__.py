"""Report noisy max (argmax and the published value-releasing variants) with Laplace or exponential noise.

Modules: :mod:`~.mechanisms` (the samplers and claims), :mod:`~.exact` (exact output laws and privacy curves).

``MECHANISMS`` lists the family's registered mechanism classes; the registry
(:mod:`dpaudit.mechanisms.registry`) reads it through the families table
(:mod:`dpaudit.mechanisms.families`).
"""

from dpaudit.mechanisms.noisy_max.mechanisms import NoisyMaxLaplace, NoisyMaxExponential, NoisyMaxLaplaceValue, NoisyMaxExponentialValue

MECHANISMS = (NoisyMaxLaplace, NoisyMaxExponential, NoisyMaxLaplaceValue, NoisyMaxExponentialValue,)

__all__ = ["MECHANISMS", "NoisyMaxLaplace", "NoisyMaxExponential", "NoisyMaxLaplaceValue", "NoisyMaxExponentialValue"]
