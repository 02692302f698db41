"""k-ary randomised response (Warner 1965; Kairouz, Oh & Viswanath 2014).

Conventions and certified formulas: :mod:`dpaudit.mechanisms.classic.common`.
"""

from __future__ import annotations

import numbers

import numpy as np

from dpaudit.util import validation
from dpaudit.claims import PureDP, claim_expression
from dpaudit.exact import discrete_epsilon
from dpaudit.mechanisms.base import Mechanism, NeighbourPair, Noise, OutputSpace, Parameter
from dpaudit.mechanisms.capabilities import (CalibratedNoise, DeterministicQuery, LogDensity,
                                             SearchableDatasets)
from dpaudit.mechanisms.classic.common import (EPSILON_PARAMETER, RR_P_OTHER, RR_P_TRUE,
                                               bounded_records)
from dpaudit.neighbours import NeighbourRelation, any_single_record
from dpaudit.neighbours.spaces import SingleCategorical


class RandomizedResponse(LogDensity, CalibratedNoise, DeterministicQuery, SearchableDatasets,
                         Mechanism):
    """k-ary randomized response (Warner 1965; k-RR of Kairouz, Oh & Viswanath 2016).

    One record v ∈ {0, …, k−1}; output v with probability p = e^ε/(e^ε + k − 1), otherwise one
    of the k − 1 other values uniformly, each with probability 1/(e^ε + k − 1).  The largest
    likelihood ratio is p/(1/(e^ε+k−1)) = e^ε, so ε-DP (local DP: neighbours replace the
    record); the exact ε of any pair v ≠ v′ at δ = 0 is ε."""

    name = "randomized-response"
    family = "classic"
    epsilon = EPSILON_PARAMETER
    k = Parameter(2, lambda name, v: validation.positive_int(name, v, minimum=2),
                  "number of values k ≥ 2")

    def relation(self) -> NeighbourRelation:
        return NeighbourRelation(
            "any-single-record",
            "replace the single record (local DP): any two values in {0, …, k−1}",
            any_single_record)

    def derive(self) -> None:
        self.p_true = RR_P_TRUE(epsilon=self.epsilon, k=self.k)

    def validate_dataset(self, dataset) -> int:
        if isinstance(dataset, np.ndarray) and dataset.ndim == 0:
            dataset = dataset.item()
        if isinstance(dataset, (list, tuple, np.ndarray)):
            if np.ndim(dataset) != 1 or len(dataset) != 1:
                raise ValueError(f"dataset must be one record (an int or a length-1 list), "
                                 f"got a sequence of shape {np.shape(dataset)}")
            dataset = dataset[0]
        if isinstance(dataset, bool) or not isinstance(dataset, numbers.Real):
            raise ValueError(f"record must be an integer in {{0..{self.k - 1}}}, got {dataset!r}")
        return int(bounded_records([dataset], 0, self.k - 1, integer=True)[0])

    def query(self, dataset) -> int:
        return self.validate_dataset(dataset)

    def dataset_space(self) -> SingleCategorical:
        return SingleCategorical(self.k)

    def noise(self) -> Noise:
        return Noise("randomized-response", {"p_true": self.claimed_value("p_true")},
                     options={"k": self.k}, probe=[0], source=f"claim: {RR_P_TRUE}")

    def claim(self) -> PureDP:
        return PureDP(self.epsilon, expression=claim_expression(RR_P_TRUE),
                      substitutions={"epsilon": self.epsilon, "k": self.k,
                                     "p_true": self.p_true})

    def worst_case_pairs(self) -> list[NeighbourPair]:
        return [NeighbourPair("flip-0-1", [0], [1],
                              "any two distinct values are equally hard; ratio e^ε at both")]

    def sample(self, dataset, n, rng) -> np.ndarray:
        v = self.validate_dataset(dataset)
        n = validation.draw_request(n, rng)
        keep = rng.random(n) < self.p_true
        other = (v + rng.integers(1, self.k, size=n, endpoint=False)) % self.k
        return np.where(keep, v, other).astype(np.int64)

    def log_probabilities(self, dataset) -> np.ndarray:
        """ln P[output = j], j = 0..k−1, from the p_true / p_other formulas."""
        v = self.validate_dataset(dataset)
        out = np.full(self.k, RR_P_OTHER.log_value(epsilon=self.epsilon, k=self.k))
        out[v] = RR_P_TRUE.log_value(epsilon=self.epsilon, k=self.k)
        return out

    def output_space(self, d0, d1) -> OutputSpace:
        """k outcomes: :meth:`log_probabilities` holds one entry per value."""
        return OutputSpace(self.k, f"k = {self.k} outputs")

    def log_density(self, dataset, outputs) -> np.ndarray:
        return self.log_probabilities(dataset)[np.asarray(outputs, dtype=np.int64)]

    def exact_epsilon(self, d0, d1, delta: float = 0.0) -> float:
        return discrete_epsilon(delta, self.log_probabilities(d0), self.log_probabilities(d1),
                                symmetric=True, log_probs=True)
