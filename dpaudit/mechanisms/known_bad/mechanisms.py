"""Known-bad zoo: published buggy variants whose real ε is known.

Each class keeps the *buggy* code path and the *claim the buggy code makes*, and states the
real ε from the literature in ``true_epsilon()`` — computed by a sympy expression derived from
the same (buggy) noise formula the sampler uses.  An auditor must flag these (or, when the bug
happens to add more noise than needed, must not: see ``laplace-scale-epsilon`` at ε > 1).
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit.util import validation
from dpaudit.claims import PureDP, claim_expression
from dpaudit.claims.certificates import load_formula
from dpaudit.exact import laplace_twofold_epsilon
from dpaudit.mechanisms.base import Parameter
from dpaudit.mechanisms.capabilities import LogDensity
from dpaudit.mechanisms.classic import LaplaceMechanism
from dpaudit.mechanisms.classic.common import (LAPLACE_SCALE, BoundedSumMechanism,
                                               ClaimedLaplaceNoise)

#: the bug: the Laplace scale is ε, not Δ/ε
BUGGY_LAPLACE_SCALE = load_formula("classic", "laplace_scale_epsilon_scale")  # b = ε


class LaplaceScaleEpsilon(LaplaceMechanism):
    """Laplace on a bounded sum with scale ε instead of Δ/ε; claims ε-DP.

    Source: Ding, Wang, Wang, Zhang & Kifer, CCS 2018 (StatDP ``histogram_eps``) and Bichsel,
    Steffen, Bogunovic & Vechev, IEEE S&P 2021 (DP-Sniper ``NoisyHist2``).  M(D) = Σ D + Lap(ε),
    so the true pure ε is Δ/b = Δ/ε (e.g. 10 at ε = 0.1, Δ = 1).  For ε² > Δ the mechanism is
    *more* private than claimed (a negative control); the default ε = 0.1 shows the bug.  The
    exact curve is the Laplace pair curve with b = ε."""

    name = "laplace-scale-epsilon"
    family = "known_bad"
    known_bad = True
    literature = ("Ding et al., CCS 2018 (StatDP histogram_eps); Bichsel et al., IEEE S&P 2021 "
                  "(DP-Sniper NoisyHist2): Laplace scale ε instead of Δ/ε, true ε = Δ/ε")
    scale_formula = BUGGY_LAPLACE_SCALE
    #: Δ/b at b = ε, i.e. Δ/ε (certified in proofs/classic.py)
    true_epsilon_formula = load_formula("classic", "laplace_scale_epsilon_true_epsilon")

    epsilon = Parameter(0.1, validation.positive, "the claimed ε > 0 (also the buggy scale)")

    def true_epsilon(self) -> float:
        return self.true_epsilon_formula(epsilon=self.epsilon, Delta=self._sensitivity)


class DoubleSpending(LogDensity, ClaimedLaplaceNoise, BoundedSumMechanism):
    """Releases the same bounded sum twice, each with fresh Lap(Δ/ε) noise, but claims ε total.

    Source: Cebere, Erb, Desfontaines, Bellet & Fitzsimons, dp-recorder / Re:cord-play
    (ObliviousAI/dp-recorder, ``tests/test_double_spending.py``; the MOSTLY AI bug): each
    release is ε-DP, but the two are charged as one.  Output (Σ D + Z₁, Σ D + Z₂), Zᵢ i.i.d.
    Lap(b), b = Δ/ε, shape (n, 2).  By composition the true pure ε is 2Δ/b = 2ε, and it is
    attained at the shift-Δ pair (both losses equal ε on y₁, y₂ ≤ q(D)).  Exact curve:
    δ₂(ε′) = 1 − (1 + w/4)e^{−w/2}, w = 2s/b − ε′ (:func:`dpaudit.exact.laplace_twofold_delta`)."""

    name = "double-spending"
    family = "known_bad"
    known_bad = True
    literature = ("Cebere et al., dp-recorder (Re:cord-play, arXiv 2602.17454) double-spending "
                  "MRE: two Lap(Δ/ε) releases charged as ε; true ε = 2ε by composition")
    scale_formula = LAPLACE_SCALE
    #: 2Δ/b at b = Δ/ε, i.e. 2ε (certified in proofs/classic.py)
    true_epsilon_formula = load_formula("classic", "double_spending_true_epsilon")

    def derive(self) -> None:
        self.scale = self.scale_formula(epsilon=self.epsilon, Delta=self._sensitivity)

    def claim(self) -> PureDP:
        return PureDP(self.epsilon, expression=claim_expression(self.scale_formula),
                      substitutions={"epsilon": self.epsilon, "Delta": self._sensitivity,
                                     self.scale_formula.name: self.scale})

    def true_epsilon(self) -> float:
        return self.true_epsilon_formula(epsilon=self.epsilon, Delta=self._sensitivity)

    def sample(self, dataset, n, rng) -> np.ndarray:
        q = self.query(dataset)
        n = validation.draw_request(n, rng)
        return rng.laplace(q, self.scale, size=(n, 2))


    def log_density(self, dataset, outputs) -> np.ndarray:
        y = np.asarray(outputs, dtype=float)
        return (-np.abs(y - self.query(dataset)) / self.scale).sum(axis=-1) \
            - 2 * math.log(2 * self.scale)

    def exact_epsilon(self, d0, d1, delta: float = 0.0) -> float:
        return laplace_twofold_epsilon(delta, self._shift(d0, d1), self.scale)
