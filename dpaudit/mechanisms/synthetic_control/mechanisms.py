"""Differentially private synthetic control (Rho, Cummings & Misra, AISTATS 2023).

Data (§2.1, eq. (3)): a donor pool X ∈ [−1, 1]^{n×T} and a target y ∈ [−1, 1]^T (or just its
pre-period y_pre ∈ [−1, 1]^{T₀}), written ``{"X": …, "y": …}``
(:mod:`dpaudit.mechanisms.synthetic_control.donor_pool`); out-of-range entries are an error, never clipped.
Neighbours (§2.3): one donor row replaced, the target fixed.  n, T, T₀ are public parameters.

Estimators.  f_reg = argmin_f (1/T₀)‖y_pre − X_preᵀf‖² + (λ/(2T₀))‖f‖² (eq. (4)), whose
minimiser is (X_preX_preᵀ + (λ/2)I)⁻¹X_pre y_pre (certificate section ``ridge``; the paper's
printed closed form with λ/(2T₀) is not the minimiser of its own objective — we implement the
objective).  Prediction ŷ_post = X_postᵀf.

Mechanisms (each calibration is read from ``proofs/certificates/synthetic_control.json``):

* ``dpsc-out-coefficients`` — Alg. 2 step 1: f_out = f_reg + v, v ~ p(v; a) ∝ exp(−‖v‖₂/a),
  a = 4T₀√(8+n)/(λε₁); claim ε₁-DP (Theorem 3.6).
* ``dpsc-post-data`` — step 2 of both algorithms: vec(X̃_post) = vec(X_post + W), W drawn
  *jointly* with density ∝ exp(−‖W‖_F/b), b = 2√(T−T₀)/ε₂ (the paper's "each entry i.i.d."
  contradicts its own density and its Lemma 3.9 proof; we follow the density); ε₂-DP.
* ``dpsc-out`` — Alg. 2 end to end: y_out = X̃_postᵀ f_out; (ε₁+ε₂)-DP (Theorem 3.1).
* ``dpsc-obj-coefficients`` — Alg. 3 step 1 (module :mod:`.synthetic_control_obj`).
* ``dpsc-obj`` — Alg. 3 end to end.

The ℓ₂-Laplace noise is drawn by :func:`dpaudit.exact.l2_laplace.sample_l2_laplace` (radius
Gamma(d, a), uniform direction).  Outputs given the data are ℓ₂-Laplace laws shifted by the
query (coefficients, post data), so ``log_density`` and ``exact_epsilon`` are available; the
products X̃_postᵀf of the end-to-end mechanisms have no closed-form density (black-box only).
"""

from __future__ import annotations

import numpy as np

from dpaudit.util import validation
from dpaudit.claims import PureDP, claim_expression
from dpaudit.claims.certificates import load_formula
from dpaudit.exact.l2_laplace import (L2LaplaceShiftProfile, l2_laplace_log_density,
                                      sample_l2_laplace)
from dpaudit.mechanisms.base import Mechanism, NeighbourPair, Noise, Parameter
from dpaudit.mechanisms.capabilities import (CalibratedNoise, GreyBoxQuery, LogDensity,
                                             SearchableDatasets)
from dpaudit.mechanisms.synthetic_control import pairs
from dpaudit.mechanisms.synthetic_control.donor_pool import (DonorPool, DonorPools, as_donor_pool,
                                                             replace_one_donor)
from dpaudit.neighbours import NeighbourRelation

FAMILY = "synthetic_control"
FREG_SENSITIVITY = load_formula(FAMILY, "freg_sensitivity")        # 4T₀√(8+n)/λ (Lemma 3.7)
FREG_SENSITIVITY_DIRECT = load_formula(FAMILY, "freg_sensitivity_direct")  # √(2T₀/λ)
OUT_SCALE = load_formula(FAMILY, "out_scale")                      # a = 4T₀√(8+n)/(λε₁)
POST_SENSITIVITY = load_formula(FAMILY, "post_sensitivity")        # 2√(T − T₀) (Lemma B.7)
POST_SCALE = load_formula(FAMILY, "post_scale")                    # b = 2√(T − T₀)/ε₂




positive_number = validation.positive
positive_int = validation.positive_int
check_draw = validation.draw_request


def ridge_coefficients(X_pre: np.ndarray, y_pre: np.ndarray, lam: float) -> np.ndarray:
    """f_reg of eq. (4): argmin (1/T₀)‖y − Xᵀf‖² + (λ/(2T₀))‖f‖² = (XXᵀ + (λ/2)I)⁻¹Xy."""
    n = X_pre.shape[0]
    return np.linalg.solve(X_pre @ X_pre.T + 0.5 * lam * np.eye(n), X_pre @ y_pre)


class SyntheticControlMechanism(SearchableDatasets, Mechanism):
    """Shared data model: shapes, eq. (3) range checks, the replace-one-donor relation."""

    family = FAMILY

    n = Parameter(3, positive_int, "number of donors n")
    T = Parameter(5, positive_int, "number of periods T")
    T0 = Parameter(3, positive_int, "pre-intervention periods T₀ (T ≥ T₀ + 2)")

    def derive(self) -> None:
        if self.T < self.T0 + 2:
            raise ValueError(f"T must be at least T0 + 2 (the intervention at T0 + 1 < T), "
                             f"got T={self.T}, T0={self.T0}")
        self.P = self.T - self.T0  # post-period length

    def _base_values(self) -> dict:
        return {"n": self.n, "T": self.T, "T0": self.T0}

    def validate_dataset(self, dataset) -> DonorPool:
        pool = as_donor_pool(dataset)
        if pool.X.shape != (self.n, self.T):
            raise ValueError(f"X must have shape (n, T) = ({self.n}, {self.T}), got "
                             f"{pool.X.shape}")
        if pool.y.shape not in ((self.T,), (self.T0,)):
            raise ValueError(f"y must have length T = {self.T} (or T0 = {self.T0}: the "
                             f"pre-period only), got {pool.y.shape[0]}")
        return pool.check_range(1.0)

    def relation(self) -> NeighbourRelation:
        return NeighbourRelation(
            "replace-one-donor",
            "replace one donor's whole series (a row of X), target y fixed; every "
            "entry of X and y in [−1, 1] (eq. (3))", replace_one_donor)

    def dataset_space(self) -> DonorPools:
        return DonorPools(self.n, self.T)

    def pairs_size(self) -> tuple[int, str]:
        """Two worst-case pairs of two donor pools (X: n × T, y: T) each, and the n × n Gram
        matrix the extremal regression pair is computed with (issue 39, item 6: n = T = 3·10⁴
        asked for 6.7 GiB while planning)."""
        n, T = self.n, self.T
        return 2 * 2 * (n * T + T) + n * n, f"n = {n}, T = {T}"

    def _pre(self, dataset) -> tuple[np.ndarray, np.ndarray]:
        pool = self.validate_dataset(dataset)
        return pool.X[:, :self.T0], pool.y[:self.T0]

    def post_data(self, dataset) -> np.ndarray:
        return self.validate_dataset(dataset).X[:, self.T0:]


class RidgeRegressionMechanism(SyntheticControlMechanism):
    """Shared part of the mechanisms whose step 1 is ridge regression f_reg (eq. (4)) with
    parameter λ > 0.  Not registered itself."""

    lam = Parameter(3.0, positive_number, "ridge parameter λ > 0")

    def worst_case_pairs(self) -> list[NeighbourPair]:
        """The extremal regression pair (largest ‖Δf_reg‖₂ found, see
        :func:`~dpaudit.mechanisms.synthetic_control.pairs.extremal_regression_pair`) and the
        Lemma 3.8 example."""
        return [pairs.extremal_regression_pair(self.n, self.T, self.T0, self.lam),
                pairs.lemma_3_8_pair(self.n, self.T)]

    def regression(self, dataset) -> np.ndarray:
        """f_reg (eq. (4)) of the dataset."""
        X_pre, y_pre = self._pre(dataset)
        return ridge_coefficients(X_pre, y_pre, self.lam)


class DPSCOutCoefficients(LogDensity, CalibratedNoise, GreyBoxQuery, RidgeRegressionMechanism):
    """Alg. 2, step 1 (DPSC_out): f_out = f_reg + v, v ~ ℓ₂-Laplace(a), a = 4T₀√(8+n)/(λε₁).

    Claim ε₁-DP (Theorem 3.6 = B.1).  Grey-box: ``query`` is f_reg, ``sensitivity`` is Lemma
    3.7's 4T₀√(8+n)/λ (ℓ₂).  The output law is f_reg(D) + ℓ₂-Laplace(a), so a pair's exact
    curve is that of a shifted ℓ₂-Laplace pair (:class:`L2LaplaceShiftProfile`)."""

    name = "dpsc-out-coefficients"
    sensitivity_norm = "l2"

    epsilon1 = Parameter(1.0, positive_number, "privacy parameter ε₁ of step 1")

    def derive(self) -> None:
        super().derive()
        self.scale = OUT_SCALE(**self._values())

    def _values(self) -> dict:
        return {**self._base_values(), "lam": self.lam, "epsilon1": self.epsilon1}

    def claim(self) -> PureDP:
        return PureDP(self.epsilon1, expression=claim_expression(FREG_SENSITIVITY, OUT_SCALE),
                      substitutions={**self._values(), "a": self.scale,
                                     "Delta_f": FREG_SENSITIVITY(**self._values())})

    def query(self, dataset) -> np.ndarray:
        return self.regression(dataset)

    def sensitivity(self) -> float:
        return FREG_SENSITIVITY(**self._values())

    def noise(self) -> Noise:
        return Noise("l2-laplace", {"a": self.claimed_value("a")},
                     source=f"claim: {OUT_SCALE}")

    def sample(self, dataset, n, rng) -> np.ndarray:
        f = self.regression(dataset)
        n = check_draw(n, rng)
        return f[None, :] + sample_l2_laplace(rng, n, self.n, self.scale)

    def log_density(self, dataset, outputs) -> np.ndarray:
        out = np.asarray(outputs, dtype=float).reshape(-1, self.n)
        return l2_laplace_log_density(out - self.regression(dataset)[None, :], self.scale)

    def profile(self, d0, d1) -> L2LaplaceShiftProfile:
        shift = float(np.linalg.norm(self.regression(d0) - self.regression(d1)))
        return L2LaplaceShiftProfile(self.n, shift, self.scale)

    def exact_epsilon(self, d0, d1, delta: float = 0.0) -> float:
        return self.profile(d0, d1).epsilon(delta)


class DPSCPostData(LogDensity, CalibratedNoise, GreyBoxQuery, SyntheticControlMechanism):
    """Step 2 of Algs. 2 and 3: vec(X̃_post) = vec(X_post) + vec(W), W ∝ exp(−‖W‖_F/b) jointly,
    b = 2√(T − T₀)/ε₂.  Claim ε₂-DP (Lemma 3.9); sensitivity 2√(T − T₀) (Lemma B.7), attained
    by a donor whose post-period flips from +1 to −1.  Output: the n(T − T₀) entries of X̃_post,
    row-major."""

    name = "dpsc-post-data"

    def worst_case_pairs(self) -> list[NeighbourPair]:
        """A donor whose post-period flips from +1 to −1 (attains Lemma B.7's sensitivity),
        and the Lemma 3.8 example."""
        return [pairs.post_flip_pair(self.n, self.T, self.T0),
                pairs.lemma_3_8_pair(self.n, self.T)]
    sensitivity_norm = "l2"

    epsilon2 = Parameter(1.0, positive_number, "privacy parameter ε₂ of step 2")

    def derive(self) -> None:
        super().derive()
        self.scale = POST_SCALE(**self._values())

    def _values(self) -> dict:
        return {**self._base_values(), "epsilon2": self.epsilon2}

    def claim(self) -> PureDP:
        return PureDP(self.epsilon2, expression=claim_expression(POST_SENSITIVITY, POST_SCALE),
                      substitutions={**self._values(), "b_W": self.scale,
                                     "Delta_post": POST_SENSITIVITY(**self._values())})

    def query(self, dataset) -> np.ndarray:
        return self.post_data(dataset).ravel()

    def sensitivity(self) -> float:
        return POST_SENSITIVITY(**self._values())

    def noise(self) -> Noise:
        return Noise("l2-laplace", {"b_W": self.claimed_value("b_W")},
                     source=f"claim: {POST_SCALE}")

    def sample(self, dataset, n, rng) -> np.ndarray:
        q = self.query(dataset)
        n = check_draw(n, rng)
        return q[None, :] + sample_l2_laplace(rng, n, q.size, self.scale)

    def log_density(self, dataset, outputs) -> np.ndarray:
        q = self.query(dataset)
        out = np.asarray(outputs, dtype=float).reshape(-1, q.size)
        return l2_laplace_log_density(out - q[None, :], self.scale)

    def exact_epsilon(self, d0, d1, delta: float = 0.0) -> float:
        shift = float(np.linalg.norm(self.query(d0) - self.query(d1)))
        return L2LaplaceShiftProfile(self.n * self.P, shift, self.scale).epsilon(delta)


def predict(post: np.ndarray, W: np.ndarray, f: np.ndarray) -> np.ndarray:
    """y = (X_post + W)ᵀ f for each draw: post (n, P), W (N, n, P), f (N, n) → (N, P)."""
    return np.einsum("nip,ni->np", post[None, :, :] + W, f)


class DPSCOut(RidgeRegressionMechanism):
    """Alg. 2 (DPSC_out) end to end: y_out = (X_post + W)ᵀ(f_reg + v) ∈ ℝ^{T−T₀}.

    v ~ ℓ₂-Laplace(a) on ℝⁿ, a = 4T₀√(8+n)/(λε₁); W ∝ exp(−‖W‖_F/b) on ℝ^{n×(T−T₀)},
    b = 2√(T−T₀)/ε₂ (v drawn first, then W).  Claim (ε₁ + ε₂)-DP (Theorem 3.1: composition of
    Theorem 3.6 and Lemma 3.9, then post-processing)."""

    name = "dpsc-out"

    epsilon1 = Parameter(1.0, positive_number, "privacy parameter ε₁ of step 1")
    epsilon2 = Parameter(1.0, positive_number, "privacy parameter ε₂ of step 2")

    def derive(self) -> None:
        super().derive()
        self.scale = OUT_SCALE(**self._values())
        self.post_scale = POST_SCALE(**self._values())

    def _values(self) -> dict:
        return {**self._base_values(), "lam": self.lam, "epsilon1": self.epsilon1,
                "epsilon2": self.epsilon2}

    def claim(self) -> PureDP:
        return PureDP(self.epsilon1 + self.epsilon2,
                      expression=claim_expression(OUT_SCALE, POST_SCALE),
                      substitutions={**self._values(), "a": self.scale,
                                     "b_W": self.post_scale})

    def sample(self, dataset, n, rng) -> np.ndarray:
        f = self.regression(dataset)
        post = self.post_data(dataset)
        n = check_draw(n, rng)
        coef = f[None, :] + sample_l2_laplace(rng, n, self.n, self.scale)
        W = sample_l2_laplace(rng, n, self.n * self.P, self.post_scale).reshape(n, self.n,
                                                                                  self.P)
        return predict(post, W, coef)


__all__ = ["DPSCOutCoefficients", "DPSCPostData", "DPSCOut", "SyntheticControlMechanism",
           "ridge_coefficients", "predict", "claim_expression"]
