"""DPSC_obj (Algorithm 3 of Rho, Cummings & Misra, AISTATS 2023): objective perturbation.

Step 1, exactly as printed, with the analyst's c (default: the eq. (3) bound
c = T₀(1 + √(16n − 15)) ≥ λ_|max|(2(X′X′ᵀ − XXᵀ)) derived in the certificate):

* if ε₁ > log(1 + 2c/λ + c²/λ²): ε₀ = ε₁ − log(1 + 2c/λ + c²/λ²), Δ = 0;
  else ε₀ = ε₁/2, Δ = c/(e^{ε₁/4} − 1) − λ;
* δ > 0: b ~ N(0, β²Iₙ), β = 4T₀√(8+n)√(2 log(2/δ) + 2ε₀)/ε₀;
  δ = 0: b ~ p(b; β) ∝ exp(−‖b‖₂/β), β = min{4T₀√(8+n)/ε₀, (c√n + 4T₀)/ε₀};
* f_obj = argmin (1/T₀)‖y − Xᵀf‖² + ((λ+Δ)/(2T₀))‖f‖² + (1/T₀)bᵀf
        = A⁻¹(2Xy − b) with A = 2XXᵀ + (λ + Δ)I (stationarity).

So given the data f_obj is an affine image of b: its density is p_b(2Xy − Aα)·det A
(``log_density``).  Two neighbours have different A unless X′X′ᵀ = XXᵀ, and then the privacy
loss is unbounded in α (certificate section ``theorem_3_10``): the Laplace branch has exact
pure ε = ∞, the Gaussian branch is a pair of Gaussians with different covariances
(exact curve: :class:`dpaudit.exact.GaussianProfile`).

Step 2 and the prediction are those of DPSC_out (:mod:`.synthetic_control`).
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from dpaudit.claims import ApproxDP, PureDP
from dpaudit.claims.certificates import load_formula
from dpaudit.exact import GaussianProfile, LaplaceProfile
from dpaudit.exact.l2_laplace import (L2LaplaceShiftProfile, l2_laplace_log_density,
                                      sample_l2_laplace)
from dpaudit.mechanisms.base import NeighbourPair, Parameter
from dpaudit.mechanisms.capabilities import LogDensity
from dpaudit.mechanisms.synthetic_control import pairs
from dpaudit.mechanisms.synthetic_control.mechanisms import (FAMILY, POST_SCALE,
                                                             RidgeRegressionMechanism, check_draw,
                                                             claim_expression, positive_number,
                                                             predict)

C_BOUND = load_formula(FAMILY, "c_bound")                  # T₀(1 + √(16n − 15))
THRESHOLD = load_formula(FAMILY, "obj_threshold")          # log(1 + 2c/λ + c²/λ²)
EPS0_LARGE = load_formula(FAMILY, "obj_eps0_large")        # ε₁ − threshold
EPS0_SMALL = load_formula(FAMILY, "obj_eps0_small")        # ε₁/2
DELTA_SMALL = load_formula(FAMILY, "obj_Delta_small")      # c/(e^{ε₁/4} − 1) − λ
BETA_LAPLACE = load_formula(FAMILY, "obj_beta_laplace")    # min{…}/ε₀
BETA_GAUSSIAN = load_formula(FAMILY, "obj_beta_gaussian")  # 4T₀√(8+n)√(2log(2/δ)+2ε₀)/ε₀


def _branch_delta(name: str, value) -> float:
    """δ ∈ [0, 1) selecting the noise branch."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) \
            or not (0.0 <= float(value) < 1.0):
        raise ValueError(f"{name} must lie in [0, 1) (0: Laplace branch, > 0: Gaussian "
                         f"branch), got {value!r}")
    return float(value)


def _optional_positive(name: str, value):
    return None if value is None else positive_number(name, value)


class ObjectivePerturbationMechanism(RidgeRegressionMechanism):
    """Shared part of DPSC_obj: step 1 of Algorithm 3, objective perturbation (module
    docstring).  Not registered itself."""

    epsilon1 = Parameter(1.0, positive_number, "privacy parameter ε₁ of step 1")
    #: declared here so DPSC_obj lists it before delta; the coefficients mechanism hides it
    epsilon2 = Parameter(1.0, positive_number, "privacy parameter ε₂ of step 2")
    delta = Parameter(0.0, _branch_delta, "δ ∈ [0, 1): 0 the Laplace branch, > 0 Gaussian")

    def worst_case_pairs(self) -> list[NeighbourPair]:
        """A flipped donor and the pair on which the objective's loss is unbounded."""
        return [pairs.flipped_donor_pair(self.n, self.T, self.T0),
                pairs.unbounded_loss_pair(self.n, self.T, self.T0)]
    c = Parameter(None, _optional_positive, "bound c on λ_|max|(2(X′X′ᵀ − XXᵀ)) "
                  "(None: the eq. (3) bound T₀(1 + √(16n − 15)))")

    def derive(self) -> None:
        super().derive()
        base = {**self._base_values(), "lam": self.lam, "epsilon1": self.epsilon1}
        self.resolve_parameter("c", C_BOUND(**base) if self.c is None else self.c)
        base["c"] = self.c
        self.threshold = THRESHOLD(**base)
        if self.epsilon1 > self.threshold:
            self.branch, self.epsilon0, self.reg_extra = "large", EPS0_LARGE(**base), 0.0
            formulas = [EPS0_LARGE]
        else:
            self.branch, self.epsilon0 = "small", EPS0_SMALL(**base)
            self.reg_extra = DELTA_SMALL(**base)
            formulas = [EPS0_SMALL, DELTA_SMALL]
        values = {**base, "epsilon0": self.epsilon0, "delta": self.delta}
        beta_formula = BETA_LAPLACE if self.delta == 0.0 else BETA_GAUSSIAN
        self.beta = beta_formula(**values)
        self.noise_law = "laplace" if self.delta == 0.0 else "gaussian"
        self._formulas = formulas + [beta_formula]
        self._values = {**values, "Delta_reg": self.reg_extra, "beta": self.beta}

    def _step1_claim_parts(self):
        return self._formulas, self._values

    def objective_matrix(self, X_pre: np.ndarray) -> np.ndarray:
        """A = 2X_preX_preᵀ + (λ + Δ)I, the Hessian of T₀·J^obj."""
        return 2.0 * X_pre @ X_pre.T + (self.lam + self.reg_extra) * np.eye(self.n)

    def affine_map(self, dataset) -> tuple[np.ndarray, np.ndarray]:
        """(A, 2Xy) of the dataset: f_obj = A⁻¹(2Xy − b) is affine in the noise b, with
        A = :meth:`objective_matrix` of the pre-period donors X and 2Xy from the target y."""
        X_pre, y_pre = self._pre(dataset)
        return self.objective_matrix(X_pre), 2.0 * X_pre @ y_pre

    def draw_b(self, rng, n: int) -> np.ndarray:
        if self.noise_law == "laplace":
            return sample_l2_laplace(rng, n, self.n, self.beta)
        return rng.normal(0.0, self.beta, size=(n, self.n))

    def coefficients(self, dataset, b: np.ndarray) -> np.ndarray:
        """f_obj = A⁻¹(2Xy − b) for each row b of noise."""
        A, lin = self.affine_map(dataset)
        return np.linalg.solve(A, (lin[None, :] - b).T).T

    def true_epsilon(self):
        """Laplace branch: the true pure ε is ∞ (certificate, section theorem_3_10)."""
        return math.inf if self.noise_law == "laplace" else None


class DPSCObjCoefficients(LogDensity, ObjectivePerturbationMechanism):
    """Alg. 3, step 1 (DPSC_obj): f_obj = A⁻¹(2X_pre y_pre − b); claims (ε₁, δ)-DP
    (Theorem 3.10 = D.1) — false in both noise branches (certificate, theorem_3_10).

    ``delta = 0`` selects the Laplace branch, ``delta > 0`` the Gaussian branch; ``c`` is the
    analyst's bound on λ_|max|(2(X′X′ᵀ − XXᵀ)), default the eq. (3) bound T₀(1 + √(16n − 15)).
    Exact curves: equal A (X′X′ᵀ = XXᵀ) → a shifted ℓ₂-Laplace pair in b-space; different A →
    ε(0) = ∞ for Laplace, the n = 1 Laplace pair with different scales, or the general
    Gaussian pair N(A⁻¹2Xy, β²A⁻²) vs N(A′⁻¹2X′y, β²A′⁻²)."""

    name = "dpsc-obj-coefficients"
    literature = "dpaudit proofs/synthetic_control.py, section theorem_3_10 (counterexample)"

    epsilon2 = None  # step 1 only: no ε₂

    def claim(self):
        formulas, values = self._step1_claim_parts()
        if self.delta == 0.0:
            return PureDP(self.epsilon1, expression=claim_expression(*formulas),
                          substitutions=values)
        return ApproxDP(self.epsilon1, self.delta, expression=claim_expression(*formulas),
                        substitutions=values)

    def sample(self, dataset, n, rng) -> np.ndarray:
        self.validate_dataset(dataset)
        n = check_draw(n, rng)
        return self.coefficients(dataset, self.draw_b(rng, n))

    def log_density(self, dataset, outputs) -> np.ndarray:
        A, lin = self.affine_map(dataset)
        alpha = np.asarray(outputs, dtype=float).reshape(-1, self.n)
        b = lin[None, :] - alpha @ A.T
        logdet = float(np.linalg.slogdet(A)[1])
        if self.noise_law == "laplace":
            return l2_laplace_log_density(b, self.beta) + logdet
        return (-0.5 * np.sum(b * b, axis=1) / self.beta ** 2
                - self.n * math.log(self.beta * math.sqrt(2 * math.pi)) + logdet)

    def profile(self, d0, d1):
        """The exact symmetric profile of the pair, or None when no closed form is known."""
        (A0, l0), (A1, l1) = self.affine_map(d0), self.affine_map(d1)
        if np.array_equal(A0, A1):
            shift = float(np.linalg.norm(l0 - l1))
            if self.noise_law == "laplace":
                return L2LaplaceShiftProfile(self.n, shift, self.beta)
        if self.noise_law == "gaussian":
            cov0 = self.beta ** 2 * np.linalg.inv(A0 @ A0)
            cov1 = self.beta ** 2 * np.linalg.inv(A1 @ A1)
            return GaussianProfile(np.linalg.solve(A0, l0), cov0,
                                   np.linalg.solve(A1, l1), cov1).symmetric()
        if self.n == 1:
            a0, a1 = float(A0[0, 0]), float(A1[0, 0])
            return LaplaceProfile(l0[0] / a0, self.beta / a0, l1[0] / a1,
                                  self.beta / a1).symmetric()
        return None

    def exact_epsilon(self, d0, d1, delta: float = 0.0) -> float | None:
        if self.noise_law == "laplace" and delta == 0.0:
            A0, A1 = self.affine_map(d0)[0], self.affine_map(d1)[0]
            if not np.array_equal(A0, A1):
                return math.inf   # the loss is unbounded (section theorem_3_10)
        prof = self.profile(d0, d1)
        return None if prof is None else prof.epsilon(delta)


class DPSCObj(ObjectivePerturbationMechanism):
    """Alg. 3 (DPSC_obj) end to end: y_obj = (X_post + W)ᵀ f_obj, b drawn first, then W
    (b_W = 2√(T−T₀)/ε₂).  Claims (ε₁ + ε₂, δ)-DP (Theorem 3.4) — false, see
    ``dpsc-obj-coefficients``.  ``delta`` selects the noise branch (0: Laplace)."""

    name = "dpsc-obj"

    def derive(self) -> None:
        super().derive()
        self.post_scale = POST_SCALE(**self._base_values(), epsilon2=self.epsilon2)

    def claim(self):
        formulas, values = self._step1_claim_parts()
        values = {**values, "epsilon2": self.epsilon2, "b_W": self.post_scale}
        expression = claim_expression(*formulas, POST_SCALE)
        total = self.epsilon1 + self.epsilon2
        if self.delta == 0.0:
            return PureDP(total, expression=expression, substitutions=values)
        return ApproxDP(total, self.delta, expression=expression, substitutions=values)

    def sample(self, dataset, n, rng) -> np.ndarray:
        post = self.post_data(dataset)
        n = check_draw(n, rng)
        coef = self.coefficients(dataset, self.draw_b(rng, n))
        W = sample_l2_laplace(rng, n, self.n * self.P, self.post_scale).reshape(n, self.n,
                                                                                  self.P)
        return predict(post, W, coef)


__all__ = ["DPSCObjCoefficients", "DPSCObj"]
