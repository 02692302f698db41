"""Floating-point Laplace samplers: the naive one (known bad) and a grid one (safe).

Mironov (CCS 2012, "On significance of the least significant bits for differential privacy")
showed that ``q + Laplace(b)`` computed in double precision is not ε-DP for any ε: the set of
doubles it can return depends on q (q + y is a multiple of 2⁻⁵³ whenever |q + y| < 1 and
q = 1, while 0 + y is not), so one output can reveal q with certainty.  Both mechanisms here
declare ``audit_representation = True``: their sampler *is* the implementation, and the
black-box audit reads the float64 representation of their outputs
(:mod:`dpaudit.distinguish.floating`).

* :class:`NaiveFloatLaplace` — ``rng.laplace(q, b)`` on doubles; claims ε-DP, true ε = ∞.
* :class:`GridLaplace` — ``q + g·round(Y/g)`` with
  Y ~ Lap(b) and g = 2⁻ᵏ: every output is a multiple of g on both sides (q is a multiple of g:
  records are integers), so the representation carries nothing, and the rounded noise is a
  discretised Laplace, ε-DP at ε = Δ/b (the ratio of two cells' probabilities shifted by
  Δ ∈ gℤ is at most e^{Δ/b}) — the approach of OpenDP's and Google's samplers.
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit.util import validation
from dpaudit.mechanisms.base import Parameter
from dpaudit.mechanisms.classic import LaplaceMechanism


class NaiveFloatLaplace(LaplaceMechanism):
    """q + Lap(Δ/ε) sampled on doubles (numpy's inverse-CDF Laplace), claims ε-DP; true ε = ∞.

    Source: Mironov, CCS 2012: the low bits of the double returned depend on q.  The value-only
    audit of the same sampler is the classic ``laplace`` (consistent); the representation audit
    certifies a violation on the shift-Δ pair."""

    name = "naive-float-laplace"
    family = "known_bad"
    known_bad = True
    literature = ("Mironov, CCS 2012: x + Laplace on doubles leaks x through the least "
                  "significant bits; true ε = ∞")
    audit_representation = True

    def true_epsilon(self) -> float:
        return math.inf

    def exact_epsilon(self, d0, d1, delta: float = 0.0):
        return None  # the real-valued curve is not this sampler's


class GridLaplace(LaplaceMechanism):
    """q + g·round(Lap(Δ/ε)/g), g = 2^−grid_bits, on integer-valued sums: ε-DP, floating-point safe.

    Outputs are multiples of g on every dataset (records are integers, so q is too): the
    representation carries nothing about q; the rounded noise is a discretised Laplace, whose
    cells shifted by Δ ∈ gℤ have probability ratios ≤ e^{Δ/b} (the discretisation used by
    OpenDP and Google's library)."""

    name = "grid-laplace"
    family = "known_bad"  # the correct side of the floating-point pair of the zoo
    audit_representation = True
    grid_bits = Parameter(10, validation.positive_int, "the grid is 2^-grid_bits")

    def validate_dataset(self, dataset):
        values = super().validate_dataset(dataset)
        if not np.all(np.asarray(values) == np.round(values)):
            raise ValueError(f"{self.name}: records must be integers (the sum must lie on the "
                             f"output grid), got {dataset!r}")
        return values

    def check_parameters_grid(self):
        if self._sensitivity != math.floor(self._sensitivity):
            raise ValueError(f"{self.name}: the sensitivity must be an integer (records are)")

    def derive(self) -> None:
        super().derive()
        self.check_parameters_grid()

    def dataset_space(self):
        """Integer records in [0, Δ], 1..6 of them, add/remove-one neighbours."""
        from dpaudit.neighbours.spaces import BoundedRecords
        return BoundedRecords(0.0, float(self._sensitivity), n_max=6, neighbouring="add-remove",
                              integer=True)

    def sample(self, dataset, n, rng) -> np.ndarray:
        n = validation.draw_request(n, rng)
        grid = 2.0 ** -int(self.params["grid_bits"])
        noise = np.round(rng.laplace(0.0, self.scale, size=n) / grid) * grid
        return self.query(dataset) + noise

    def exact_epsilon(self, d0, d1, delta: float = 0.0):
        return None  # discretised: the continuous Laplace curve is an approximation


__all__ = ["GridLaplace", "NaiveFloatLaplace"]
