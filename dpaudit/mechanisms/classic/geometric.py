"""The two-sided geometric mechanism on an integer bounded sum (Ghosh, Roughgarden & Sundararajan
2009).

Conventions and certified formulas: :mod:`dpaudit.mechanisms.classic.common`.
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit.util import validation
from dpaudit.claims import PureDP, claim_expression
from dpaudit.exact import discrete_epsilon
from dpaudit.mechanisms.base import NeighbourPair, Noise, OutputSpace, Parameter
from dpaudit.mechanisms.capabilities import CalibratedNoise, LogDensity
from dpaudit.mechanisms.classic.common import GEOMETRIC_ALPHA, BoundedSumMechanism, bounded_records
from dpaudit.neighbours import NeighbourRelation, add_remove_one
from dpaudit.neighbours.spaces import BoundedRecords


class GeometricMechanism(LogDensity, CalibratedNoise, BoundedSumMechanism):
    """Two-sided geometric mechanism (Ghosh, Roughgarden & Sundararajan, STOC 2009).

    Integer records in {0, …, Δ}; M(D) = Σ D + Z with P(Z = z) = (1−α)/(1+α)·α^{|z|},
    α = e^{−ε/Δ}; Z is drawn as G₁ − G₂ with G₁, G₂ i.i.d. geometric(1 − α).  Ratio of pmfs
    at shift s: α^{|y−s|−|y|} ≤ e^{εs/Δ}, so ε-DP for s ≤ Δ.  Exact curve: outcomes group by
    likelihood ratio into y ≤ 0, y = 1..s−1, y ≥ s (masses 1/(1+α), c α^j, α^s/(1+α) and
    mirrored), then :func:`dpaudit.exact.discrete_epsilon`."""

    name = "geometric"
    family = "classic"
    _sensitivity = Parameter(1, validation.positive_int, "integer sensitivity Δ ≥ 1: records "
                             "lie in {0, …, Δ}", name="sensitivity")

    def relation(self) -> NeighbourRelation:
        return NeighbourRelation(
            "add-remove-one",
            "add/remove one record; integer records in {0, …, Δ}, so the sum moves by ≤ Δ",
            add_remove_one)

    def derive(self) -> None:
        self.alpha = GEOMETRIC_ALPHA(epsilon=self.epsilon, Delta=self._sensitivity)

    def validate_dataset(self, dataset) -> np.ndarray:
        return bounded_records(dataset, 0, self._sensitivity, integer=True)

    def query(self, dataset) -> int:
        return int(self.validate_dataset(dataset).sum())

    def dataset_space(self) -> BoundedRecords:
        """Integer records in {0, …, Δ}, 1..6 of them, add/remove-one neighbours."""
        return BoundedRecords(0, int(self._sensitivity), n_max=6, neighbouring="add-remove",
                              integer=True)

    def noise(self) -> Noise:
        return Noise("geometric", {"alpha": self.claimed_value("alpha")},
                     source=f"claim: {GEOMETRIC_ALPHA}")

    def claim(self) -> PureDP:
        return PureDP(self.epsilon, expression=claim_expression(GEOMETRIC_ALPHA),
                      substitutions={"epsilon": self.epsilon, "Delta": self._sensitivity,
                                     "alpha": self.alpha})

    def worst_case_pairs(self) -> list[NeighbourPair]:
        return [NeighbourPair("add-max-record", [0, 0, 0], [0, 0, 0, self._sensitivity],
                              "adding one record of value Δ shifts the sum by Δ")]

    def sample(self, dataset, n, rng) -> np.ndarray:
        q = self.query(dataset)
        n = validation.draw_request(n, rng)
        p = 1.0 - self.alpha
        return (q + rng.geometric(p, size=n) - rng.geometric(p, size=n)).astype(np.int64)

    def log_density(self, dataset, outputs) -> np.ndarray:
        y = np.asarray(outputs, dtype=float)
        a = self.alpha
        return math.log1p(-a) - math.log1p(a) + np.abs(y - self.query(dataset)) * math.log(a)

    def output_space(self, d0, d1) -> OutputSpace:
        """s + 1 grouped outcomes (y ≤ 0, y = 1..s−1, y ≥ s) for a shift s = |q(d0) − q(d1)|
        of the sums (up to Δ for neighbours, more for a pair that is not)."""
        s = abs(self.query(d0) - self.query(d1))
        return OutputSpace(s + 1, f"{s + 1} grouped outcomes (a shift of {s} between the sums)")

    def exact_epsilon(self, d0, d1, delta: float = 0.0) -> float:
        s = abs(self.query(d0) - self.query(d1))
        if s == 0:
            return 0.0
        if self.alpha == 0.0:  # e^{−ε/Δ} underflowed: outputs are deterministic
            return math.inf if delta < 1.0 else 0.0
        la, l1pa = math.log(self.alpha), math.log1p(self.alpha)
        lc = math.log1p(-self.alpha) - l1pa
        j = np.arange(1, s)
        logp = np.concatenate(([-l1pa], lc + j * la, [s * la - l1pa]))
        logq = np.concatenate(([s * la - l1pa], lc + (s - j) * la, [-l1pa]))
        return discrete_epsilon(delta, logp, logq, symmetric=True, log_probs=True)
