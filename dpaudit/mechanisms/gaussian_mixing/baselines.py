"""The baselines the Gaussian mixing paper compares LinearMixing with (App. H, I).

* :class:`AdaSSP` (``adassp``, Algorithm 3, Wang 2018),
* :class:`Sheffet` (``sheffet``, Algorithm 4 = Sheffet 2017, Alg. 1) and
  :class:`SheffetOurAnalysis` (``sheffet-our-analysis``, Algorithm 5),
* :class:`ObjectivePerturbation` (``objective-perturbation``, Algorithm 6, Kifer et al. 2012).

Datasets, neighbours and outputs as in :mod:`dpaudit.mechanisms.gaussian_mixing.regression`
(rows (x, y), zero-out, θ ∈ ℝᵈ); every calibration comes from
``proofs/certificates/gaussian_mixing.json``.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from dpaudit.claims import ApproxDP
from dpaudit.claims.certificates import load_formula
from dpaudit.exact.profile import GaussianShiftProfile
from dpaudit.mechanisms.gaussian_mixing.common import (CKS, RDP_CURVE, check_draw,
                                                       formula_expression, int_parameter,
                                                       lambda_min, lemma1_epsilon,
                                                       number_parameter, sketch, smallest_gamma)
from dpaudit.mechanisms.gaussian_mixing.regression import (LM_ROW_BOUND, RegressionMechanism,
                                                           solve_batched, theta_from_gram, wishart)
from dpaudit.mechanisms.parameters import choice_parameter

SH_GAMMA = load_formula("gaussian_mixing", "sheffet_gamma")
SH_LAPLACE = load_formula("gaussian_mixing", "sheffet_laplace_scale")
SH_MARGIN = load_formula("gaussian_mixing", "sheffet_margin")
ADASSP_SIGMA = load_formula("gaussian_mixing", "adassp_sigma")
OP_SIGMA = load_formula("gaussian_mixing", "objpert_sigma")
OP_REG = load_formula("gaussian_mixing", "objpert_regulariser")


# -- AdaSSP (Algorithm 3) -------------------------------------------------------------------------------

class AdaSSP(RegressionMechanism):
    """AdaSSP (Algorithm 3, Wang 2018): private λ_min, XᵀX and Xᵀy, each with Gaussian noise
    √(ln(6/δ))·Δ/(ε/3), then θ = (XᵀX~ + λI)⁻¹Xᵀy~ with the adaptive ridge
    λ = max{0, √(d ln(6/δ) ln(2d²/ρ))·C_X²/(ε/3) − λ̃_min}.  ρ (undefined in the paper) is a
    failure probability of Wang's analysis; default 0.05.  Claim: (ε, δ)-DP.

    ``release="theta"`` (default) outputs θ; ``"statistics"`` outputs what Algorithm 3 says it
    "privately releases": (λ_min + σz, the upper triangle of XᵀX + σξ₁, Xᵀy + σ′ξ₂) (the shift
    and the clipping of λ̃_min are post-processing).  That vector is a Gaussian shift, so its
    exact curve is μ-GDP with μ² = Σ (change / noise scale)² (:meth:`exact_epsilon`); at the
    worst pair μ = ε/√(3 ln(6/δ)) (certificate entry ``adassp_mu``)."""

    name = "adassp"

    parameter_order = ("epsilon", "delta", "x_bound", "y_bound", "rho", "release", "dim",
                       "copies")
    rho = number_parameter(0.05, "failure probability ρ of Wang's analysis")
    release = choice_parameter("theta", ("theta", "statistics"), "what is released")

    def derive(self) -> None:
        self.sd_xx = ADASSP_SIGMA(delta=self.delta, epsilon=self.epsilon, Delta=self.cx ** 2)
        self.sd_xy = ADASSP_SIGMA(delta=self.delta, epsilon=self.epsilon,
                                  Delta=self.cx * self.cy)
        self.shift = math.log(6.0 / self.delta) / (self.epsilon / 3.0) * self.cx ** 2

    def _expression(self):
        return formula_expression(ADASSP_SIGMA)

    def claim(self) -> ApproxDP:
        return self._claim(sigma_xx=self.sd_xx, sigma_xy=self.sd_xy, rho=self.rho)

    def statistics(self, dataset) -> np.ndarray:
        """The noiseless released vector (λ_min(XᵀX), upper triangle of XᵀX, Xᵀy)."""
        J = self.validate_dataset(dataset)
        X, y = J[:, :-1], J[:, -1]
        G = X.T @ X
        return np.concatenate([[lambda_min(X)], G[np.triu_indices(X.shape[1])], X.T @ y])

    def _scales(self, d: int) -> np.ndarray:
        return np.concatenate([[self.sd_xx], np.full(d * (d + 1) // 2, self.sd_xx),
                               np.full(d, self.sd_xy)])

    def exact_epsilon(self, d0, d1, delta: float = 0.0) -> float | None:
        """``release="statistics"``: the released vector is a Gaussian shift, so the pair is
        μ-GDP with μ = ‖(q(D₀) − q(D₁))/scales‖ (exact); None for ``"theta"``."""
        if self.release != "statistics":
            return None
        q0, q1 = self.statistics(d0), self.statistics(d1)
        d = self.validate_dataset(d0).shape[1] - 1
        mu = float(np.linalg.norm((q0 - q1) / self._scales(d)))
        return float(GaussianShiftProfile(mu).epsilon(delta))

    def sample(self, dataset, n, rng) -> np.ndarray:
        J = self.validate_dataset(dataset)
        n = check_draw(n, rng)
        X, y = J[:, :-1], J[:, -1]
        d = X.shape[1]
        lam_noisy = lambda_min(X) + self.sd_xx * rng.standard_normal(n)
        upper = np.triu(rng.standard_normal((n, d, d)))
        xty = X.T @ y + self.sd_xy * rng.standard_normal((n, d))
        if self.release == "statistics":
            iu = np.triu_indices(d)
            return np.hstack([lam_noisy[:, None],
                              (X.T @ X)[iu] + self.sd_xx * upper[:, iu[0], iu[1]], xty])
        lam_t = np.maximum(lam_noisy - self.shift, 0.0)
        base = (math.sqrt(d * math.log(6.0 / self.delta) * math.log(2.0 * d * d / self.rho))
                * self.cx ** 2 / (self.epsilon / 3.0))
        ridge = np.maximum(0.0, base - lam_t)
        sym = upper + np.swapaxes(np.triu(upper, 1), 1, 2)      # ξ₁ ~ N_sym(0, I_d)
        xtx = X.T @ X + self.sd_xx * sym + ridge[:, None, None] * np.eye(d)
        return solve_batched(xtx, xty)


# -- Sheffet 2017 (Algorithms 4 and 5) -------------------------------------------------------------------

class Sheffet(RegressionMechanism):
    """Sheffet's algorithm (Algorithm 4; Sheffet 2017, Alg. 1 with the zero-out factor 2):
    γ = 4C²/ε·(√(2k ln(8/δ)) + 2 ln(8/δ)), C² = C_X² + C_Y²; if λ_min([X,Y]ᵀ[X,Y]) > γ + z +
    4C² ln(1/δ)/ε, z ~ Lap(4C²/ε), return OLS on S[X, Y], else on S[X, Y] + noise·ξ with
    noise = √γ (``noise="sqrt"``, Sheffet's original w = √γ; default) or γ as printed
    (``"printed"``).  Claim: (ε, δ)-DP."""

    name = "sheffet"

    parameter_order = ("epsilon", "delta", "k", "x_bound", "y_bound", "noise", "dim", "copies")
    k = int_parameter(50, "sketch size k")
    noise = choice_parameter("sqrt", ("sqrt", "printed"), "noise √γ (Sheffet) or γ (printed)")

    def derive(self) -> None:
        self.C = LM_ROW_BOUND(C_X=self.cx, C_Y=self.cy)
        self.gamma = self._gamma()
        self.laplace = SH_LAPLACE(C=self.C, epsilon=self.epsilon)
        self.margin = SH_MARGIN(C=self.C, delta=self.delta, epsilon=self.epsilon)

    def _gamma(self) -> float:
        return SH_GAMMA(C=self.C, epsilon=self.epsilon, k=self.k, delta=self.delta)

    def _expression(self):
        return formula_expression(SH_GAMMA, SH_LAPLACE, SH_MARGIN)

    def claim(self) -> ApproxDP:
        return self._claim(k=self.k, gamma=self.gamma, b=self.laplace, m=self.margin)

    def noise_var(self, lam: float, z) -> np.ndarray:
        passed = lam > self.gamma + np.asarray(z, float) + self.margin
        level = self.gamma if self.noise == "sqrt" else self.gamma ** 2
        return np.where(passed, 0.0, level)

    def sample(self, dataset, n, rng) -> np.ndarray:
        J = self.validate_dataset(dataset)
        n = check_draw(n, rng)
        v = self.noise_var(lambda_min(J), rng.laplace(0.0, self.laplace, n))
        return theta_from_gram(wishart(J.T @ J, v, self.k, n, rng), J.shape[1] - 1)

    def run_literal(self, dataset, rng) -> np.ndarray:
        J = self.validate_dataset(dataset)
        v = self.noise_var(lambda_min(J), rng.laplace(0.0, self.laplace, 1))
        M = sketch(J, self.k, np.sqrt(v), 1, rng)[0]
        return np.linalg.lstsq(M[:, :-1], M[:, -1], rcond=None)[0]


@functools.lru_cache(maxsize=256)
def lemma1_gamma(epsilon: float, delta: float, k: int) -> float:
    """Algorithm 5, line 3: the smallest γ > 1 with min_{1<α<γ} Prop.1(φ(α; k, γ)) ≤ ε/2."""
    return smallest_gamma(lambda g: lemma1_epsilon(g, k, delta), epsilon / 2.0, 1.0)


class SheffetOurAnalysis(Sheffet):
    """Sheffet's algorithm with the paper's analysis (Algorithm 5): γ is the smallest γ > 1 with
    min_{1<α<γ}{φ(α;k,γ) + ln(1 − 1/α) − ln(αδ)/(α − 1)} ≤ ε/2 (Lemma 1 + Prop. 1).  That γ is
    Lemma 1's C⁻²(σ² + λ̄); ``gamma_units="printed"`` (default) uses it as printed in lines 5 and
    9 (where Algorithm 4's γ is a variance), ``"scaled"`` uses γ·(C_X² + C_Y²) there."""

    name = "sheffet-our-analysis"

    parameter_order = ("epsilon", "delta", "k", "x_bound", "y_bound", "noise", "dim", "copies",
                       "gamma_units")
    gamma_units = choice_parameter("printed", ("printed", "scaled"), "units of γ in lines 5, 9")

    def _gamma(self) -> float:
        g = lemma1_gamma(self.epsilon, self.delta, self.k)
        self.gamma_lemma1 = g
        return g * (self.C ** 2 if self.gamma_units == "scaled" else 1.0)

    def _expression(self):
        return formula_expression(RDP_CURVE, CKS, SH_LAPLACE, SH_MARGIN)

    def claim(self) -> ApproxDP:
        return self._claim(k=self.k, gamma=self.gamma, gamma_lemma1=self.gamma_lemma1,
                           b=self.laplace, m=self.margin)


# -- objective perturbation (Algorithm 6) ------------------------------------------------------------

class ObjectivePerturbation(RegressionMechanism):
    """Objective perturbation (Algorithm 6; Kifer, Smith & Thakurta 2012): b ~ N(0, σ²I),
    σ = √(4ε + 8 ln(2/δ))·C_X/ε, Δ = C_X²/(2ε), θ̃ = argmin (1/n)Σℓ(yᵢxᵢᵀθ) + bᵀθ/n +
    Δ‖θ‖²/(2n) with the logistic loss ℓ(s) = ln(1 + e^{−s}) (the paper prints its negative, a
    sign typo).  The minimiser is found by damped Newton steps, vectorised over the outputs
    (strongly convex: modulus Δ/n), to a gradient norm ≤ 1e-10.  Labels ±1.  Claim: (ε, δ)-DP."""

    name = "objective-perturbation"
    logistic = True

    cy = 1.0  # labels ±1: C_Y = 1, not a parameter

    def derive(self) -> None:
        self.sigma = OP_SIGMA(epsilon=self.epsilon, delta=self.delta, C=self.cx)
        self.reg = OP_REG(C=self.cx, epsilon=self.epsilon)

    def _expression(self):
        return formula_expression(OP_SIGMA, OP_REG)

    def claim(self) -> ApproxDP:
        return self._claim(sigma=self.sigma, Delta=self.reg)

    def minimise(self, X: np.ndarray, y: np.ndarray, b: np.ndarray) -> np.ndarray:
        """argmin_θ Σᵢ ℓ(yᵢxᵢᵀθ) + bᵀθ + Δ‖θ‖²/2 for each row of b (n times the objective)."""
        A = y[:, None] * X                                   # rows yᵢxᵢ
        n_out, d = b.shape
        theta = np.zeros((n_out, d))

        def objective(th, bb):
            return (np.logaddexp(0.0, -th @ A.T).sum(axis=1) + np.einsum("nd,nd->n", bb, th)
                    + 0.5 * self.reg * np.einsum("nd,nd->n", th, th))
        tol = 1e-10 * (1.0 + np.abs(b).max(axis=1))
        active = np.arange(n_out)
        for _ in range(100):
            th, bb = theta[active], b[active]
            s = th @ A.T                                     # (active, rows)
            p = 0.5 * (1.0 - np.tanh(0.5 * s))               # σ(−s) = −ℓ′(s)
            grad = -(p @ A) + bb + self.reg * th
            keep = np.max(np.abs(grad), axis=1) > tol[active]
            active, th, bb, grad, p = active[keep], th[keep], bb[keep], grad[keep], p[keep]
            if active.size == 0:
                break
            w = p * (1.0 - p)
            H = np.einsum("nr,ri,rj->nij", w, A, A) + self.reg * np.eye(d)
            step = solve_batched(H, grad)
            t = np.ones(active.size)
            f0 = objective(th, bb)
            slope = np.einsum("nd,nd->n", grad, step)
            for _ in range(30):                              # backtracking (Armijo)
                f1 = objective(th - t[:, None] * step, bb)
                bad = f1 > f0 - 0.25 * t * slope + 1e-13 * np.abs(f0)
                if not bad.any():
                    break
                t = np.where(bad, 0.5 * t, t)
            theta[active] = th - t[:, None] * step
        return theta

    def sample(self, dataset, n, rng) -> np.ndarray:
        J = self.validate_dataset(dataset)
        n = check_draw(n, rng)
        b = self.sigma * rng.standard_normal((n, J.shape[1] - 1))
        return self.minimise(J[:, :-1], J[:, -1], b)


__all__ = ["AdaSSP", "Sheffet", "SheffetOurAnalysis", "ObjectivePerturbation",
           "lemma1_gamma"]
