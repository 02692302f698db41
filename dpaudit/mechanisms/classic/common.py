"""Classic DP mechanisms: Laplace, Gaussian, randomized response, geometric, exponential.

Every noise parameter (Laplace scale b, Gaussian σ, keep-probability, geometric ratio α,
selection temperature β) is obtained by evaluating a module-level :class:`SymbolicFormula`,
and each claim carries that formula as the equation ``name = expression`` (a ``sympy.Tuple``
of ``Eq``, see :func:`claim_expression`) with the parameter values and the evaluated result in
``substitutions``.  Each mechanism knows the exact privacy curve of any pair of its datasets
(``exact_epsilon``), computed by :mod:`dpaudit.exact` from the same closed-form output laws
the sampler draws from.

Conventions: ``sample(dataset, n, rng)`` validates the dataset, draws n independent outputs in
one vectorised call, and returns float arrays for continuous outputs and int64 arrays for
discrete ones.  ``exact_epsilon(d0, d1, delta)`` is the smallest ε ≥ 0 such that both
sup_S P₀(S) − e^ε P₁(S) ≤ δ and the same with D₀, D₁ swapped.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.util import validation
from dpaudit.claims import SymbolicFormula
from dpaudit.claims.certificates import load_formula
from dpaudit.mechanisms.base import Mechanism, NeighbourPair, Parameter
from dpaudit.mechanisms.capabilities import CalibratedNoise, GreyBoxQuery, SearchableDatasets
from dpaudit.mechanisms.noise import Noise
from dpaudit.neighbours import NeighbourRelation, add_remove_one
from dpaudit.neighbours.spaces import BoundedRecords

#: formula symbols; Delta is the sensitivity Δ (the ``sensitivity`` parameter)
EPS, DELTA, SENS, SIGMA, K = sp.symbols("epsilon delta Delta sigma k")


#: every calibration is certified: derived and checked in proofs/classic.py, read from
#: proofs/certificates/classic.json (``dpaudit prove classic`` regenerates it)
LAPLACE_SCALE = load_formula("classic", "laplace_scale")  # b = Δ/ε
GAUSSIAN_SIGMA_CLASSICAL = load_formula("classic", "gaussian_sigma_classical")  # Δ√(2ln(1.25/δ))/ε
#: exact δ of N(0,σ²) vs N(Δ,σ²) at ε (Balle & Wang 2018, Thm 8); decreasing in σ (proved)
GAUSSIAN_ANALYTIC_DELTA = load_formula("classic", "gaussian_analytic_delta")
GAUSSIAN_RHO = load_formula("classic", "gaussian_rho")  # ρ = Δ²/(2σ²)
RR_P_TRUE = load_formula("classic", "rr_p_true")  # e^ε/(e^ε + k − 1)
RR_P_OTHER = load_formula("classic", "rr_p_other")  # 1/(e^ε + k − 1)
GEOMETRIC_ALPHA = load_formula("classic", "geometric_alpha")  # e^{−ε/Δ}
EXPONENTIAL_BETA = load_formula("classic", "exponential_beta")  # ε/(2Δ)






def bounded_records(dataset, lo: float, hi: float, *, integer: bool = False,
             min_len: int = 0, what: str = "record") -> np.ndarray:
    """A 1-D numeric array with every entry finite and in [lo, hi], or a ValueError."""
    if dataset is None or isinstance(dataset, (str, bytes, dict)):
        raise ValueError(f"dataset must be a 1-D sequence of numbers, got {type(dataset).__name__}")
    try:
        arr = np.asarray(dataset)
    except ValueError as exc:  # ragged nesting
        raise ValueError(f"dataset must be a 1-D sequence of numbers: {exc}") from None
    if arr.dtype.kind not in "iuf":
        raise ValueError(f"dataset must contain only numbers, got dtype {arr.dtype} "
                         f"(first entries {arr.ravel()[:3].tolist()})")
    if arr.ndim != 1:
        raise ValueError(f"dataset must be 1-D (one {what} per entry), got shape {arr.shape}")
    if arr.size < min_len:
        raise ValueError(f"dataset needs at least {min_len} {what}s, got {arr.size}")
    arr = arr.astype(float)
    validation.finite_entries("dataset", arr)
    bad = np.flatnonzero((arr < lo) | (arr > hi))
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"{what} {arr[i]:g} at index {i} is outside the allowed range "
                         f"[{lo:g}, {hi:g}] ({bad.size} such {what}s)")
    if integer:
        bad = np.flatnonzero(arr != np.round(arr))
        if bad.size:
            i = int(bad[0])
            raise ValueError(f"{what} {arr[i]:g} at index {i} is not an integer")
        return arr.astype(np.int64)
    return arr




# -- bounded sums (Laplace, Gaussian and the known-bad Laplace variants) ---------------------
#: the ε parameter every classic mechanism declares
EPSILON_PARAMETER = Parameter(1.0, validation.positive, "privacy parameter ε > 0")


class BoundedSumMechanism(GreyBoxQuery, SearchableDatasets, Mechanism):
    """Shared part of mechanisms releasing q(D) = Σ records, records in [0, Δ].

    Under add/remove-one-record neighbours |q(D) − q(D′)| ≤ Δ (the sensitivity), attained by
    adding a record of value Δ.  Not registered itself.  Parameters: ``epsilon`` and
    ``sensitivity`` (Δ, read as ``_sensitivity``: ``sensitivity()`` is the grey-box method)."""

    epsilon = EPSILON_PARAMETER
    _sensitivity = Parameter(1.0, validation.positive, "sensitivity Δ: records lie in [0, Δ]",
                             name="sensitivity")

    def relation(self) -> NeighbourRelation:
        return NeighbourRelation(
            "add-remove-one",
            "add/remove one record; records lie in [0, Δ] so the sum moves by ≤ Δ",
            add_remove_one)

    def validate_dataset(self, dataset) -> np.ndarray:
        return bounded_records(dataset, 0.0, self._sensitivity)

    def query(self, dataset) -> float:
        return float(self.validate_dataset(dataset).sum())

    def sensitivity(self) -> float:
        return self._sensitivity

    def dataset_space(self) -> BoundedRecords:
        """Records in [0, Δ], 1..6 of them, add/remove-one neighbours."""
        return BoundedRecords(0.0, float(self._sensitivity), n_max=6, neighbouring="add-remove")

    def _shift(self, d0, d1) -> float:
        return abs(self.query(d0) - self.query(d1))

    def worst_case_pairs(self) -> list[NeighbourPair]:
        return [NeighbourPair(
            "add-max-record", [0.0, 0.0, 0.0], [0.0, 0.0, 0.0, self._sensitivity],
            "adding one record of value Δ moves the sum by the full sensitivity Δ; the pair "
            "is a pure shift by Δ, the worst case of the noise-addition proof")]


class ClaimedLaplaceNoise(CalibratedNoise):
    """The calibration capability of a mechanism that adds i.i.d. Lap(b) noise to every output
    coordinate, b = ``scale_formula`` (a certified :class:`SymbolicFormula`): the noise law with
    the value of b the *claim* states (:meth:`Mechanism.claimed_value`), which
    :mod:`dpaudit.check.calibration` tests against the sampler's output."""

    scale_formula: SymbolicFormula

    def noise(self) -> Noise:
        name = self.scale_formula.name
        return Noise("laplace", {name: self.claimed_value(name)},
                     source=f"claim: {self.scale_formula}")
