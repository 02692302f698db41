"""The exponential mechanism over a finite candidate set (McSherry & Talwar 2007).

Conventions and certified formulas: :mod:`dpaudit.mechanisms.classic.common`.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import log_softmax

from dpaudit.util import validation
from dpaudit.claims import PureDP, claim_expression
from dpaudit.exact import discrete_epsilon
from dpaudit.mechanisms.base import Mechanism, NeighbourPair, Noise, OutputSpace, Parameter
from dpaudit.mechanisms.capabilities import (CalibratedNoise, GreyBoxQuery, LogDensity,
                                             SearchableDatasets)
from dpaudit.mechanisms.classic.common import EPSILON_PARAMETER, EXPONENTIAL_BETA, bounded_records
from dpaudit.neighbours import NeighbourRelation, linf
from dpaudit.neighbours.spaces import QueryAnswers


class ExponentialMechanism(LogDensity, CalibratedNoise, GreyBoxQuery, SearchableDatasets,
                           Mechanism):
    """Exponential mechanism (McSherry & Talwar, FOCS 2007) over m candidates.

    The dataset is the utility vector u ∈ ℝ^m (m ≥ 2); output i with probability
    ∝ exp(β uᵢ), β = ε/(2Δ).  If ‖u − u′‖∞ ≤ Δ each weight moves by a factor ≤ e^{ε/2} and the
    normaliser by ≤ e^{ε/2}, so ε-DP.  Sampled by the Gumbel-max trick: argmaxᵢ(β uᵢ + Gᵢ),
    G i.i.d. standard Gumbel, is exactly softmax(βu)-distributed.

    Worst pairs.  u = 0 vs u′ = (Δ, −Δ, …, −Δ) has exact ε = max(ln(m e^ε/(e^ε + m − 1)),
    ln((e^ε + m − 1)/m)) < ε, approaching ε as m grows.  With m = 2, u = (0, K),
    u′ = (Δ, K − Δ) the ratio of P[output 0] is e^ε(1 + y)/(e^ε + y), y = e^{βK}; choosing
    βK = ε + ln 100 gives exact ε = ln((1 + 100e^ε)/101) (0.994 at ε = 1), the largest of the
    three, while P[output 0] stays ≈ 1% on the u′ side so an auditor can still see it."""

    name = "exponential"
    family = "classic"
    _CHUNK = 1 << 22  # Gumbel entries drawn per block (bounds memory at 32 MiB)

    epsilon = EPSILON_PARAMETER
    _sensitivity = Parameter(1.0, validation.positive, "ℓ∞ sensitivity Δ of the utilities",
                             name="sensitivity")

    def relation(self) -> NeighbourRelation:
        return NeighbourRelation(
            f"linf<={self._sensitivity:g}",
            "utility vectors of equal length m with ‖u − u′‖∞ ≤ Δ", linf(self._sensitivity))

    def derive(self) -> None:
        self.beta = EXPONENTIAL_BETA(epsilon=self.epsilon, Delta=self._sensitivity)

    def validate_dataset(self, dataset) -> np.ndarray:
        return bounded_records(dataset, -np.inf, np.inf, min_len=2, what="utility")

    def query(self, dataset) -> np.ndarray:
        return self.validate_dataset(dataset)

    def sensitivity(self) -> float:
        """ℓ∞ sensitivity Δ of the utility vector."""
        return self._sensitivity

    sensitivity_norm = "linf"

    def dataset_space(self) -> QueryAnswers:
        """2..6 utilities in [−10Δ, 10Δ], neighbours with ‖u − u′‖∞ ≤ Δ."""
        d = self._sensitivity
        return QueryAnswers(d, 2, 6, lo=-10.0 * d, hi=10.0 * d)

    def noise(self) -> Noise:
        beta = self.claimed_value("beta")
        # u = (0, 1/β): P(output 1) = e/(1 + e) ≈ 0.73 at the claimed β, sensitive to β
        return Noise("exponential-mechanism", {"beta": beta}, probe=[0.0, 1.0 / beta],
                     source=f"claim: {EXPONENTIAL_BETA}")

    def claim(self) -> PureDP:
        return PureDP(self.epsilon, expression=claim_expression(EXPONENTIAL_BETA),
                      substitutions={"epsilon": self.epsilon, "Delta": self._sensitivity,
                                     "beta": self.beta})

    def worst_case_pairs(self) -> list[NeighbourPair]:
        d = self._sensitivity
        far = round((self.epsilon + math.log(100.0)) / self.beta, 6)
        return [
            NeighbourPair("m2-spread", [0.0, 0.0], [d, -d],
                          "m = 2: one utility up by Δ, the other down by Δ"),
            NeighbourPair("m10-spread", [0.0] * 10, [d] + [-d] * 9,
                          "m = 10: one utility up by Δ, all others down by Δ"),
            NeighbourPair("m2-far", [0.0, far], [d, far - d],
                          "m = 2 with the raised candidate far below the other "
                          "(βK = ε + ln 100): exact ε = ln((1 + 100e^ε)/101), near ε"),
        ]

    def log_probabilities(self, dataset) -> np.ndarray:
        return log_softmax(self.beta * self.validate_dataset(dataset))

    def sample(self, dataset, n, rng) -> np.ndarray:
        scores = self.beta * self.validate_dataset(dataset)
        n = validation.draw_request(n, rng)
        out = np.empty(n, dtype=np.int64)
        rows = max(1, self._CHUNK // scores.size)
        for start in range(0, n, rows):  # loop over memory blocks, vectorised inside
            stop = min(n, start + rows)
            g = rng.gumbel(size=(stop - start, scores.size))
            out[start:stop] = np.argmax(scores + g, axis=1)
        return out

    def output_space(self, d0, d1) -> OutputSpace:
        """m outcomes, one per candidate (the length of the utility vectors)."""
        m = max(np.size(d0), np.size(d1))
        return OutputSpace(m, f"m = {m} candidates")

    def log_density(self, dataset, outputs) -> np.ndarray:
        return self.log_probabilities(dataset)[np.asarray(outputs, dtype=np.int64)]

    def exact_epsilon(self, d0, d1, delta: float = 0.0) -> float:
        lp, lq = self.log_probabilities(d0), self.log_probabilities(d1)
        if lp.size != lq.size:
            raise ValueError(f"utility vectors must have the same length, got {lp.size} "
                             f"and {lq.size}")
        return discrete_epsilon(delta, lp, lq, symmetric=True, log_probs=True)
