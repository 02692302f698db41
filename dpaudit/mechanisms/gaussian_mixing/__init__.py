"""Gaussian mixing (GaussMix, ModifiedGaussMix), linear mixing regression and the baselines it is compared with.

Modules: :mod:`~.gaussmix`, :mod:`~.regression`, :mod:`~.baselines`, :mod:`~.common` (certified formulas, shared checks), :mod:`~.sketch_profiles` (exact privacy profiles of Gaussian sketches), :mod:`~.pair_search` (the adversarial pair search).

``MECHANISMS`` lists the family's registered mechanism classes; the registry
(:mod:`dpaudit.mechanisms.registry`) reads it through the families table
(:mod:`dpaudit.mechanisms.families`).
"""

from dpaudit.mechanisms.gaussian_mixing.baselines import (AdaSSP, ObjectivePerturbation, Sheffet,
                                                          SheffetOurAnalysis)
from dpaudit.mechanisms.gaussian_mixing.gaussmix import GaussMix, ModifiedGaussMix
from dpaudit.mechanisms.gaussian_mixing.regression import GaussMixLogistic, LinearMixing

MECHANISMS = (GaussMix, ModifiedGaussMix, LinearMixing, GaussMixLogistic, AdaSSP, Sheffet, SheffetOurAnalysis, ObjectivePerturbation,)

__all__ = ["MECHANISMS", "GaussMix", "ModifiedGaussMix", "LinearMixing", "GaussMixLogistic", "AdaSSP", "Sheffet", "SheffetOurAnalysis", "ObjectivePerturbation"]
