"""Stochastic gradient Langevin dynamics on the linear-Gaussian model, posterior sampling and Propose-Test-Sample.

Modules: :mod:`~.mechanisms`, :mod:`~.propose_test_sample`, :mod:`~.claim` (certified formulas), :mod:`~.law` (exact cyclic-SGLD law), :mod:`~.simulation` (the simulator).

``MECHANISMS`` lists the family's registered mechanism classes; the registry
(:mod:`dpaudit.mechanisms.registry`) reads it through the families table
(:mod:`dpaudit.mechanisms.families`).
"""

from dpaudit.mechanisms.sgld.mechanisms import SGLD, PosteriorSampling
from dpaudit.mechanisms.sgld.propose_test_sample import ProposeTestSample, ProposeTestSampleSGLD

MECHANISMS = (SGLD, PosteriorSampling, ProposeTestSample, ProposeTestSampleSGLD,)

__all__ = ["MECHANISMS", "SGLD", "PosteriorSampling", "ProposeTestSample", "ProposeTestSampleSGLD"]
