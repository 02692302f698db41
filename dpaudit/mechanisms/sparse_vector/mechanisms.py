"""The sparse vector technique (SVT): Lyu, Su & Li's correct Alg. 1 and its buggy variants.

Reference: M. Lyu, D. Su, N. Li, "Understanding the Sparse Vector Technique for Differential
Privacy", PVLDB 10(6), 2017 — Algorithms 1 and 3–6 (Fig. 1 of the paper; the noise scales below
agree with DP-Sniper's ``sparse_vector_technique.py`` and DP-Auditorium's ``SVT1``–``SVT6``).

A dataset is the vector q ∈ ℝᵐ of the m query answers (each of sensitivity Δ, parameter
``sensitivity``, default 1); ``num_queries`` fixes m and every dataset is checked against it.
Neighbouring (StatDP's ALL_DIFFER): ‖q − q′‖∞ ≤ Δ.

Common structure: threshold T (``threshold``), threshold noise ρ ~ Lap(b_ρ) drawn once, query
noise νᵢ ~ Lap(b_ν) per query; query i is ⊤ iff qᵢ + νᵢ ≥ T + ρ.  With a cutoff c the
algorithm stops after the c-th ⊤.  Output (one row per run, length m):

* ⊤/⊥ variants: int8 codes 1 = ⊤, 0 = ⊥, −1 = not answered (after the c-th ⊤);
* Alg. 3: float64, a ⊤ position holds the released noisy answer qᵢ + νᵢ, every other position
  (⊥ or not answered) holds −inf (the two are told apart by position: nothing after the c-th
  finite entry is answered).

Defaults: ε = 1, Δ = 1, T = 0, c = 1, m = 6.  T = 0 loses nothing: shifting T is the same as
shifting every answer the other way, and the worst-case pairs below were searched (exhaustively
over {0,1}ᵐ × {−1,0,1}ᵐ for m = 4, then over a two-block family s + [0]ᵏ[−g]^{m−k} vs
s + [1]ᵏ[−g−1]^{m−k} for m = 6, s ∈ {−1,…,4}, g ∈ {0,…,4}) with T = 0.

Every noise scale is evaluated from a :class:`SymbolicFormula` that the claim carries, next
to the privacy-loss formula of the algorithm's published proof (see
:func:`dpaudit.mechanisms.noisy_max.mechanisms.pure_claim`).
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from dpaudit.claims import PureDP, SymbolicFormula
from dpaudit.claims.certificates import load_formula
from dpaudit.mechanisms.base import Mechanism, NeighbourPair, Noise, OutputSpace, Parameter
from dpaudit.mechanisms.capabilities import CalibratedNoise, SearchableDatasets
from dpaudit.mechanisms.noisy_max.mechanisms import (AnswerVectorQuery, check_finite,
                                                     check_neighbours, check_positive_parameter,
                                                     check_sample_size, pure_claim, query_vector,
                                                     scaled_pairs)
from dpaudit.mechanisms.sparse_vector import exact
from dpaudit.neighbours.spaces import QueryAnswers

EPSILON, DELTA_Q, C, B_RHO, B_NU = sp.symbols("epsilon Delta c b_rho b_nu")


# -- calibrations (Lyu et al. 2017, Fig. 1) and the losses their proofs state --------------------
#   every formula is certified: derived and checked in proofs/sparse_vector.py, read from
#   proofs/certificates/sparse_vector.json (``dpaudit prove sparse_vector`` regenerates it)
#   Alg. 1: ε₁ = ε/2, ρ ~ Lap(Δ/ε₁), ε₂ = ε − ε₁, ν ~ Lap(2cΔ/ε₂)
ALG1_RHO = load_formula("sparse_vector", "alg1_b_rho")  # 2Δ/ε
ALG1_NU = load_formula("sparse_vector", "alg1_b_nu")  # 4cΔ/ε
ALG1_LOSS = load_formula("sparse_vector", "alg1_loss")  # Δ/b_ρ + 2cΔ/b_ν (Lyu et al. Thm 2)
#   Alg. 3 (Roth's notes): ε₁ = ε/2, ρ ~ Lap(Δ/ε₁), ν ~ Lap(cΔ/ε₂); releases qᵢ + νᵢ on ⊤
ALG3_RHO = load_formula("sparse_vector", "alg3_b_rho")  # 2Δ/ε
ALG3_NU = load_formula("sparse_vector", "alg3_b_nu")  # 2cΔ/ε
ALG3_LOSS = load_formula("sparse_vector", "alg3_loss")  # claimed Δ/b_ρ + cΔ/b_ν
#   Alg. 4 (Lee & Clifton): ε₁ = ε/4, ρ ~ Lap(Δ/ε₁), ν ~ Lap(Δ/ε₂), ε₂ = ε − ε₁; ⊤/⊥, cutoff c
ALG4_RHO = load_formula("sparse_vector", "alg4_b_rho")  # 4Δ/ε
ALG4_NU = load_formula("sparse_vector", "alg4_b_nu")  # 4Δ/(3ε), no factor c
ALG4_LOSS = load_formula("sparse_vector", "alg4_loss")  # claimed Δ/b_ρ + Δ/b_ν
ALG4_TRUE = load_formula("sparse_vector", "alg4_true_epsilon")  # Δ/b_ρ + 2cΔ/b_ν = (1+6c)ε/4
#   Alg. 5 (Stoddard et al.): ε₁ = ε/2, ρ ~ Lap(Δ/ε₁), no query noise, no cutoff
ALG5_RHO = load_formula("sparse_vector", "alg5_b_rho")  # 2Δ/ε
ALG5_LOSS = load_formula("sparse_vector", "alg5_loss")  # claimed 2Δ/b_ρ
#   Alg. 6 (Chen et al.): ε₁ = ε/2, ρ ~ Lap(Δ/ε₁), ν ~ Lap(Δ/ε₂), no cutoff
ALG6_RHO = load_formula("sparse_vector", "alg6_b_rho")  # 2Δ/ε
ALG6_NU = load_formula("sparse_vector", "alg6_b_nu")  # 2Δ/ε
ALG6_LOSS = load_formula("sparse_vector", "alg6_loss")  # claimed Δ/b_ρ + Δ/b_ν


class SVTBase(CalibratedNoise, AnswerVectorQuery, SearchableDatasets, Mechanism):
    """Shared part of the sparse-vector variants of Lyu, Su & Li (PVLDB 2017, Fig. 1): the
    dataset is the vector of m query answers, neighbours are ALL_DIFFER; a variant names its
    threshold/query noise formulas and the loss its proof claims.  Variants without a cutoff
    set ``has_cutoff = False`` and hide the ``c`` parameter (``c = None``).  Not registered."""

    family = "sparse_vector"
    parameter_order = ("epsilon", "threshold", "num_queries", "sensitivity", "c")
    rho_formula: SymbolicFormula
    nu_formula: SymbolicFormula | None = None
    loss_formula: SymbolicFormula
    has_cutoff = True

    epsilon = Parameter(1.0, check_positive_parameter, "privacy parameter ε > 0")
    threshold = Parameter(0.0, check_finite, "the public threshold T")
    num_queries = Parameter(6, lambda name, v: check_positive_parameter(name, v, integer=True),
                            "number of queries m")
    c = Parameter(1, lambda name, v: check_positive_parameter(name, v, integer=True),
                  "cutoff c: stop after c ⊤ answers")

    def derive(self) -> None:
        self._values = {"epsilon": self.epsilon, "Delta": self._sensitivity}
        if self.has_cutoff:
            self._values["c"] = self.c
        self.b_rho = self.rho_formula(**self._values)
        self.b_nu = self.nu_formula(**self._values) if self.nu_formula is not None else 0.0

    # -- contract ------------------------------------------------------------------------------
    def validate_dataset(self, dataset) -> np.ndarray:
        return query_vector(dataset, self.num_queries, self.name)


    def dataset_space(self) -> QueryAnswers:
        """m answers in T ± 10Δ, ‖q − q′‖∞ ≤ Δ."""
        d, t = self._sensitivity, self.threshold
        return QueryAnswers(d, self.num_queries, lo=t - 10.0 * d, hi=t + 10.0 * d)

    def noise(self) -> Noise:
        """Laplace threshold and query noise with the claim's b_rho (and b_nu); probed on
        answers spread around T (T + Δ·(i − (m−1)/2)) so the pattern law depends on both."""
        params = {"b_rho": self.claimed_value("b_rho")}
        if self.nu_formula is not None:
            params["b_nu"] = self.claimed_value("b_nu")
        m, d = self.num_queries, self._sensitivity
        probe = [self.threshold + d * (i - (m - 1) / 2) for i in range(m)]
        return Noise("svt-patterns", params, options={"threshold": self.threshold, "c": self.c},
                     probe=probe, source="claim: " + ", ".join(
                         str(f) for f in (self.rho_formula, self.nu_formula) if f is not None))

    def claim(self) -> PureDP:
        scales = [self.rho_formula] + ([self.nu_formula] if self.nu_formula else [])
        values = {"b_rho": self.b_rho}
        if self.nu_formula is not None:
            values["b_nu"] = self.b_nu
        return pure_claim(self.loss_formula, scales, self._values, values)

    def _run(self, dataset, n, rng):
        """(noisy answers, ⊤ mask, answered mask), each (n, m)."""
        q = self.validate_dataset(dataset)
        n = check_sample_size(n)
        rng = np.random.default_rng(rng)
        rho = rng.laplace(0.0, self.b_rho, size=n)
        noisy = q[None, :] + (rng.laplace(0.0, self.b_nu, size=(n, q.size)) if self.b_nu > 0
                              else np.zeros((n, q.size)))
        top = noisy >= self.threshold + rho[:, None]
        if self.c is None:
            answered = np.ones_like(top)
        else:
            tops_before = np.cumsum(top, axis=1) - top
            answered = tops_before < self.c
        return noisy, top, answered

    def sample(self, dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        """n runs, shape (n, m), int8: 1 = ⊤, 0 = ⊥, −1 = not answered."""
        _, top, answered = self._run(dataset, n, rng)
        return np.where(answered, top, -1).astype(np.int8)

    def output_space(self, d0, d1) -> OutputSpace | None:
        """The ⊤/⊥ patterns :meth:`exact_epsilon` enumerates (2^m without a cutoff), each a
        dict entry per side: measured (``getrusage`` of one ``exact_epsilon``) 469 B per
        pattern at m = 16 and 607 B at m = 18, costed as 300 + 17m bytes."""
        m = max(np.size(d0), np.size(d1))
        count = exact.pattern_count(m, self.c)
        return OutputSpace(count, f"{count} output patterns of m = {m} queries",
                           300 + 17 * m)

    def pattern_probabilities(self, dataset) -> dict[tuple[int, ...], float]:
        """Exact {output pattern: probability} (see :mod:`dpaudit.mechanisms.sparse_vector.exact`)."""
        return exact.pattern_probabilities(self.validate_dataset(dataset), self.threshold,
                                           self.b_rho, self.b_nu, self.c)

    def exact_epsilon(self, d0, d1, delta: float = 0.0) -> float | None:
        """Exact ε of the pair over ⊤/⊥ patterns (δ = 0: max |ln P₀/P₁|, ∞ on mismatch)."""
        q0, q1 = self.validate_dataset(d0), self.validate_dataset(d1)
        check_neighbours(q0, q1, self._sensitivity, self.name)
        return exact.svt_pattern_epsilon(q0, q1, self.threshold, self.b_rho, self.b_nu,
                                         self.c, delta)

    def pairs_size(self) -> tuple[int, str]:
        """At most 3 worst-case pairs, two datasets of m answers each (issue 39, item 6:
        ``num_queries = 10⁸`` built 6.3 GB of pairs before this was stated)."""
        return 3 * 2 * self.num_queries, f"num_queries = {self.num_queries}"

    # -- worst-case pair families (T = 0, c = 1; see the module docstring) -----------------------
    def _last_drops(self, s: float, g: float):
        """m−1 answers at s rise by Δ while the last, at s − g, falls by Δ."""
        m = self.num_queries
        return [s] * (m - 1) + [s - g], [s + 1] * (m - 1) + [s - g - 1]

    def _halves(self, s: float, g: float):
        """the first ⌈m/2⌉ answers, at s, rise by Δ; the rest, at s − g, fall by Δ."""
        m = self.num_queries
        k = (m + 1) // 2
        return [s] * k + [s - g] * (m - k), [s + 1] * k + [s - g - 1] * (m - k)


class SparseVector(SVTBase):
    """Sparse vector technique, Lyu, Su & Li 2017 Alg. 1 (the correct one); ε-DP.

    ε₁ = ε/2, ρ ~ Lap(Δ/ε₁); ε₂ = ε − ε₁, νᵢ ~ Lap(2cΔ/ε₂); ⊤ iff qᵢ + νᵢ ≥ T + ρ; stops
    after c ⊤.  StatDP ``SVT``; DP-Sniper ``SparseVectorTechnique1``."""

    name = "sparse-vector"
    rho_formula, nu_formula, loss_formula = ALG1_RHO, ALG1_NU, ALG1_LOSS

    def worst_case_pairs(self) -> list[NeighbourPair]:
        return scaled_pairs([
            ("last-drops-gap4", *self._last_drops(4, 4),
             "⊥ answers rise by Δ, the final ⊤ answer falls by Δ; pattern ⊥^{m−1}⊤ "
             "(exact ε 0.990·ε at the defaults, the largest found)"),
            ("last-drops", *self._last_drops(1, 1),
             "same shape closer to the threshold (exact ε 0.950·ε, ~9× more mass)"),
        ], self._sensitivity)


class SVTLyu3(SVTBase):
    """KNOWN BAD: SVT that releases the noisy answer on ⊤ — Lyu, Su & Li 2017 Alg. 3 (from
    Roth's lecture notes).

    ε₁ = ε/2, ρ ~ Lap(Δ/ε₁); ε₂ = ε − ε₁, νᵢ ~ Lap(cΔ/ε₂); on ⊤ outputs qᵢ + νᵢ; stops after c
    ⊤.  Claimed ε-DP; Lyu et al.: not ε′-DP for any finite ε′.  For a fixed number m of
    queries and c = 1 the exact ε is m·Δ/b_ν = m·ε/2 (attained for all answers moving by Δ
    together: below every answer the density ratio of (⊥^{j−1}, v) is e^{jΔ/b_ν}), so it grows
    without bound with m; at the defaults (m = 6) it is 3ε.  Output: float64 (n, m), ⊤
    positions hold the value, others −inf."""

    name = "svt-lyu3"
    known_bad = True
    literature = ("Lyu, Su & Li, PVLDB 2017, Alg. 3 (Roth's notes): not ε′-DP for any finite ε′ "
                  "(unbounded query streams); StatDP iSVT4, DP-Sniper SVT3, DP-Auditorium SVT3")
    rho_formula, nu_formula, loss_formula = ALG3_RHO, ALG3_NU, ALG3_LOSS

    def true_epsilon(self) -> float:
        return math.inf

    def sample(self, dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        """n runs, shape (n, m), float64: the noisy answer at ⊤ positions, −inf elsewhere."""
        noisy, top, answered = self._run(dataset, n, rng)
        return np.where(answered & top, noisy, -np.inf)

    def output_space(self, d0, d1) -> None:
        """None: the exact ε works on a fixed grid of released values, not a pattern table."""
        return None

    def exact_epsilon(self, d0, d1, delta: float = 0.0) -> float | None:
        """sup of the log density ratio over released outputs, c = 1 only (grid with a stated
        tolerance, see :func:`dpaudit.mechanisms.sparse_vector.exact.svt_values_epsilon`); None for c > 1 or δ > 0."""
        if delta != 0.0 or self.c != 1:
            return None
        q0, q1 = self.validate_dataset(d0), self.validate_dataset(d1)
        check_neighbours(q0, q1, self._sensitivity, self.name)
        return exact.svt_values_epsilon(q0, q1, self.threshold, self.b_rho, self.b_nu, self.c)

    def worst_case_pairs(self) -> list[NeighbourPair]:
        m = self.num_queries
        return scaled_pairs([
            ("all-up", [0] * m, [1] * m,
             "every answer rises by Δ; for released values below every answer the density "
             "ratio is e^{jΔ/b_ν} at position j: exact ε = m·ε/2 (c = 1), the largest possible"),
            ("last-drops", *self._last_drops(0, 0),
             "⊥ answers rise, the last falls (the Alg. 4 counterexample shape)"),
        ], self._sensitivity)


class SVTLyu4(SVTBase):
    """KNOWN BAD: SVT with Lee & Clifton's budget split — Lyu, Su & Li 2017 Alg. 4.

    ε₁ = ε/4, ρ ~ Lap(Δ/ε₁); ε₂ = ε − ε₁, νᵢ ~ Lap(Δ/ε₂) (no factor c); ⊤/⊥, stops after c ⊤.
    Claimed ε-DP; real ε = ε₁ + 2cε₂ = (1 + 6c)ε/4 (Lyu et al.; DP-Auditorium ``SVT4``).  At the
    defaults the pair ``last-drops-gap3`` already attains 1.75ε = the true value (to 5 digits)."""

    name = "svt-lyu4"
    known_bad = True
    literature = ("Lyu, Su & Li, PVLDB 2017, Alg. 4 (Lee & Clifton 2014): true ε = (1+6c)ε/4; "
                  "StatDP iSVT3, DP-Sniper SVT4, DP-Auditorium SVT4")
    rho_formula, nu_formula, loss_formula = ALG4_RHO, ALG4_NU, ALG4_LOSS

    def true_epsilon(self) -> float:
        return ALG4_TRUE(**{**self._values, "b_rho": self.b_rho, "b_nu": self.b_nu})

    def worst_case_pairs(self) -> list[NeighbourPair]:
        return scaled_pairs([
            ("last-drops-gap3", *self._last_drops(3, 3),
             "m−1 ⊥ answers rise by Δ, the ⊤ answer falls by Δ; pattern ⊥^{m−1}⊤: exact ε = "
             "1.7500·ε at the defaults (largest found; pattern probability ~8e-4)"),
            ("last-drops", *self._last_drops(0, 0),
             "same shape at the threshold: exact ε 1.742·ε with ~20× more mass (p ≈ 0.017)"),
        ], self._sensitivity)


class SVTLyu5(SVTBase):
    """KNOWN BAD: SVT without query noise and without cutoff — Lyu, Su & Li 2017 Alg. 5
    (Stoddard et al. 2014).

    ε₁ = ε/2, ρ ~ Lap(Δ/ε₁); ⊤ iff qᵢ ≥ T + ρ, every query answered.  Claimed ε-DP; real
    ε = ∞: given ρ the answers are deterministic, so on [½, −½,…] vs [−½, ½,…] (T = 0) the
    pattern ⊥…⊤… is impossible on d₀ and has probability P(−½Δ < ρ ≤ ½Δ) = 1 − e^{−ε/4}
    ≈ 0.221 on d₁ (the brief's integer pair [1, 0] vs [0, 1] gives P(0 < ρ ≤ Δ) ≈ 0.197)."""

    name = "svt-lyu5"
    known_bad = True
    literature = ("Lyu, Su & Li, PVLDB 2017, Alg. 5 (Stoddard et al. 2014): not ε′-DP for any "
                  "finite ε′; StatDP iSVT1, DP-Sniper SVT5, DP-Auditorium SVT5")
    rho_formula, loss_formula = ALG5_RHO, ALG5_LOSS
    has_cutoff = False
    c = None  # no cutoff: not a parameter

    def true_epsilon(self) -> float:
        return math.inf

    def worst_case_pairs(self) -> list[NeighbourPair]:
        m = self.num_queries
        k = (m + 1) // 2
        return scaled_pairs([
            ("swap-centred", [0.5] * k + [-0.5] * (m - k), [-0.5] * k + [0.5] * (m - k),
             "⊥^k⊤^{m−k} needs −Δ/2 < ρ ≤ Δ/2 on d1 and is impossible on d0: exact ε = ∞, "
             "mismatch mass 1 − e^{−ε/4} (0.221 at ε = 1)"),
            ("swap", [1] * k + [0] * (m - k), [0] * k + [1] * (m - k),
             "Lyu's counterexample shape: mismatch mass P(0 < ρ ≤ Δ) = (1 − e^{−ε/2})/2"),
        ], self._sensitivity)


class SVTLyu6(SVTBase):
    """KNOWN BAD: SVT without cutoff — Lyu, Su & Li 2017 Alg. 6 (Chen et al. 2015).

    ε₁ = ε/2, ρ ~ Lap(Δ/ε₁); ε₂ = ε − ε₁, νᵢ ~ Lap(Δ/ε₂); every query answered ⊤/⊥.  Claimed
    ε-DP; not ε′-DP for any finite ε′ over unbounded query streams.  For a fixed m the exact ε
    is finite and grows with m: 2.91ε for the defaults' best pair (m = 6)."""

    name = "svt-lyu6"
    known_bad = True
    literature = ("Lyu, Su & Li, PVLDB 2017, Alg. 6 (Chen et al. 2015): not ε′-DP for any finite "
                  "ε′ (unbounded query streams; finite and growing with m for m queries); StatDP "
                  "iSVT2, DP-Sniper SVT6, DP-Auditorium SVT6")
    rho_formula, nu_formula, loss_formula = ALG6_RHO, ALG6_NU, ALG6_LOSS
    has_cutoff = False
    c = None  # no cutoff: not a parameter

    def true_epsilon(self) -> float:
        return math.inf

    def worst_case_pairs(self) -> list[NeighbourPair]:
        return scaled_pairs([
            ("halves-gap4", *self._halves(2, 4),
             "first half rises by Δ (answered ⊥), second half falls by Δ (answered ⊤): "
             "exact ε 2.906·ε at the defaults (largest found; pattern probability ~3e-5)"),
            ("halves-gap1", *self._halves(1, 1),
             "same shape, exact ε 2.734·ε with pattern probability ~2e-3"),
            ("halves", *self._halves(0, 0),
             "same shape from all-zero answers: exact ε 2.617·ε, pattern probability ~7e-3"),
        ], self._sensitivity)


__all__ = ["SparseVector", "SVTLyu3", "SVTLyu4", "SVTLyu5", "SVTLyu6"]
