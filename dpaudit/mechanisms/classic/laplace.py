"""The Laplace mechanism on a bounded sum (Dwork, McSherry, Nissim & Smith 2006).

Conventions and certified formulas: :mod:`dpaudit.mechanisms.classic.common`.
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit.util import validation
from dpaudit.claims import PureDP, claim_expression
from dpaudit.exact import laplace_epsilon
from dpaudit.mechanisms.capabilities import LogDensity
from dpaudit.mechanisms.classic.common import (LAPLACE_SCALE, BoundedSumMechanism,
                                               ClaimedLaplaceNoise)


class LaplaceMechanism(LogDensity, ClaimedLaplaceNoise, BoundedSumMechanism):
    """Laplace mechanism on a bounded sum: M(D) = Σ D + Z, Z ~ Lap(0, b), b = Δ/ε.

    Source: Dwork, McSherry, Nissim & Smith, TCC 2006; Dwork & Roth 2014, Thm 3.6.  Density
    ratio |ln p_D(y)/p_D′(y)| = ||y − q(D′)| − |y − q(D)||/b ≤ Δ/b = ε, so ε-DP.  The exact
    curve of a pair with shift s is δ(ε′) = 1 − e^{(ε′ − s/b)/2} (see
    :mod:`dpaudit.exact.laplace`); at the worst pair (s = Δ) the pure ε is exactly ε."""

    name = "laplace"
    family = "classic"
    scale_formula = LAPLACE_SCALE

    def derive(self) -> None:
        self.scale = self.scale_formula(epsilon=self.epsilon, Delta=self._sensitivity)

    def _subs(self) -> dict:
        return {"epsilon": self.epsilon, "Delta": self._sensitivity}

    def claim(self) -> PureDP:
        return PureDP(self.epsilon, expression=claim_expression(self.scale_formula),
                      substitutions={**self._subs(), self.scale_formula.name: self.scale})

    def sample(self, dataset, n, rng) -> np.ndarray:
        n = validation.draw_request(n, rng)
        return rng.laplace(self.query(dataset), self.scale, size=n)


    def log_density(self, dataset, outputs) -> np.ndarray:
        y = np.asarray(outputs, dtype=float)
        return -np.abs(y - self.query(dataset)) / self.scale - math.log(2 * self.scale)

    def exact_epsilon(self, d0, d1, delta: float = 0.0) -> float:
        return laplace_epsilon(delta, self._shift(d0, d1), self.scale)
