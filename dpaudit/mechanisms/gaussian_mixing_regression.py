"""Private regression with Gaussian mixing (Lev et al., §5) and the baselines it is compared with.

* :class:`LinearMixing` (``linear-mixing``, Algorithm 2): ModifiedGaussMix on the joint matrix
  [X, Y], then θ_Lin = (X̃ᵀX̃)⁻¹X̃ᵀỸ.
* :class:`GaussMixLogistic` (``gaussmix-logistic``, §5.2 / App. G): LinearMixing on the quadratic
  surrogate of the logistic loss.
* :class:`AdaSSP` (``adassp``, Algorithm 3, Wang 2018), :class:`Sheffet` (``sheffet``, Algorithm
  4, Sheffet 2017 Alg. 1), :class:`SheffetOurAnalysis` (``sheffet-our-analysis``, Algorithm 5)
  and :class:`ObjectivePerturbation` (``objective-perturbation``, Algorithm 6, Kifer et al.
  2012).

A dataset is an n × (d + 1) matrix whose rows are (xᵢ, yᵢ) with ‖xᵢ‖ ≤ C_X (``x_bound``) and
|yᵢ| ≤ C_Y (``y_bound``); for the logistic mechanisms yᵢ ∈ {−1, +1} (or 0 in a zeroed row).
Neighbours zero out one row (the record is the pair (xᵢ, yᵢ)).  Every output is θ ∈ ℝᵈ.

Sampling.  The sketch-based algorithms release a function of the Gram matrix W = M̃ᵀM̃ of the
sketched joint matrix M̃ = S[X, Y] + sξ, whose k rows are i.i.d. N(0, Σ), Σ = [X,Y]ᵀ[X,Y] + s²I;
so W ~ Wishart_k(Σ) exactly, and the samplers draw W by Bartlett's decomposition
(W = R B Bᵀ Rᵀ, R Rᵀ = Σ, B lower triangular with √χ²_{k−j} on the diagonal and N(0, 1)
below; for k < d + 1, B = Gᵀ with G ~ N(0, I_{k×(d+1)})): O(d²) per output, whatever n and k,
vectorised over the outputs.  :meth:`run_literal` runs each algorithm once exactly as printed
(S drawn explicitly) — the reproduction scripts use it, and the tests check that both laws
agree.  Every calibration comes from ``proofs/certificates/gaussian_mixing.json``.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from dpaudit.claims import ApproxDP
from dpaudit.claims.certificates import load_formula
from dpaudit.claims.conversions import optimal_rdp_to_dp
from dpaudit.exact.profile import GaussianShiftProfile
from dpaudit.mechanisms.base import Mechanism, NeighbourPair
from dpaudit.mechanisms.gaussian_mixing import (FAMILY, RDP_CURVE, ModifiedGaussMix, check_choice,
                                                check_delta, check_draw, check_int, check_number,
                                                data_matrix, formula_expression, lambda_min,
                                                lemma1_epsilon,
                                                rdp_value, sketch, smallest_gamma,
                                                theorem1_epsilon)
from dpaudit.mechanisms.registry import register
from dpaudit.neighbours.zero_out import zero_out_one_row

LM_ETA = load_formula("gaussian_mixing", "linear_mixing_eta")              # γ/√k
LM_ROW_BOUND = load_formula("gaussian_mixing", "linear_mixing_row_bound")  # √(C_X² + C_Y²)
SH_GAMMA = load_formula("gaussian_mixing", "sheffet_gamma")
SH_LAPLACE = load_formula("gaussian_mixing", "sheffet_laplace_scale")
SH_MARGIN = load_formula("gaussian_mixing", "sheffet_margin")
CKS = load_formula("gaussian_mixing", "cks_epsilon")
ADASSP_SIGMA = load_formula("gaussian_mixing", "adassp_sigma")
OP_SIGMA = load_formula("gaussian_mixing", "objpert_sigma")
OP_REG = load_formula("gaussian_mixing", "objpert_regulariser")

NEIGHBOURING = "zero-out: one record (xᵢ, yᵢ) — a row of [X, Y] — is replaced by 0⃗"


# -- shared pieces ----------------------------------------------------------------------------------

def wishart(gram: np.ndarray, noise_var, k: int, n: int, rng) -> np.ndarray:
    """n draws of Wishart_k(gram + vᵢI) (shape (n, p, p)); ``noise_var`` a number or (n,)."""
    p = gram.shape[0]
    a, U = np.linalg.eigh(gram)
    v = np.broadcast_to(np.asarray(noise_var, dtype=float), (n,))
    root = U[None, :, :] * np.sqrt(np.maximum(a[None, :] + v[:, None], 0.0))[:, None, :]
    if k >= p:
        B = np.zeros((n, p, p))
        rows, cols = np.tril_indices(p, -1)
        B[:, rows, cols] = rng.standard_normal((n, rows.size))
        idx = np.arange(p)
        B[:, idx, idx] = np.sqrt(rng.chisquare(k - idx, size=(n, p)))
    else:
        B = np.swapaxes(rng.standard_normal((n, k, p)), 1, 2)
    RB = root @ B
    return RB @ np.swapaxes(RB, 1, 2)


def solve_batched(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A⁻¹b for stacks (n, d, d), (n, d); least squares for the (rare) singular ones."""
    try:
        return np.linalg.solve(A, b[..., None])[..., 0]
    except np.linalg.LinAlgError:
        return np.stack([np.linalg.lstsq(Ai, bi, rcond=None)[0] for Ai, bi in zip(A, b)])


def theta_from_gram(W: np.ndarray, d: int) -> np.ndarray:
    """θ = (X̃ᵀX̃)⁻¹X̃ᵀỸ from the joint Gram matrices W (n, d+1, d+1)."""
    return solve_batched(W[:, :d, :d], W[:, :d, d])


class RegressionMechanism(Mechanism):
    """Shared parts: bounds, dataset validation (rows (x, y)), zero-out, pairs, claims."""

    family = FAMILY
    neighbouring = NEIGHBOURING
    logistic = False

    def _common(self, epsilon, delta, x_bound, y_bound, dim, copies):
        self.epsilon = check_number("epsilon", epsilon)
        self.delta = check_delta(delta)
        self.cx = check_number("x_bound", x_bound)
        self.cy = check_number("y_bound", y_bound)
        self.dim, self.copies = check_int("dim", dim), check_int("copies", copies)

    def validate_dataset(self, dataset) -> np.ndarray:
        J = data_matrix(dataset, math.inf)
        if J.shape[1] < 2:
            raise ValueError(f"rows must be (x₁, …, x_d, y) with d ≥ 1, got {J.shape[1]} entries")
        xn = np.linalg.norm(J[:, :-1], axis=1)
        bad = np.flatnonzero(xn > self.cx * (1 + 1e-9))
        if bad.size:
            raise ValueError(f"row {bad[0]}: ‖x‖ = {xn[bad[0]]:.6g} exceeds x_bound = {self.cx:g}")
        y = J[:, -1]
        bound = 1.0 if self.logistic else self.cy
        if self.logistic:
            ok = (np.abs(y) == 1.0) | ((y == 0.0) & (xn == 0.0))
            if not ok.all():
                i = int(np.flatnonzero(~ok)[0])
                raise ValueError(f"row {i}: label y = {y[i]:g} must be −1 or +1 (0 only in a "
                                 f"zeroed row)")
        bad = np.flatnonzero(np.abs(y) > bound * (1 + 1e-9))
        if bad.size:
            raise ValueError(f"row {bad[0]}: |y| = {abs(y[bad[0]]):.6g} exceeds y_bound = "
                             f"{bound:g}")
        return J

    def relation(self):
        return zero_out_one_row

    def worst_case_pairs(self) -> list[NeighbourPair]:
        """Two pairs: ``joint-basis`` — m copies of a basis of the joint rows (C_X eⱼ, 0) and
        (0, C_Y) (Gram m·diag(C_X², …, C_Y²), the sketch's tightness construction on [X, Y]) with
        one (0, C_Y) record zeroed; ``influential-row`` — m records (C_X e₁, C_Y) on the line
        y = (C_Y/C_X)x₁, one (C_X eⱼ, 0) per other coordinate, and the record (C_X e₁, −C_Y),
        which is zeroed (it moves θ the most).  Logistic mechanisms use labels ±1 instead."""
        d, m, cx, cy = self.dim, self.copies, self.cx, self.cy
        e = cx * np.eye(d)
        if self.logistic:
            basis = [list(e[j]) + [1.0] for j in range(d)] + [list(e[0]) + [-1.0]]
            line, others, last = list(e[0]) + [1.0], 1.0, list(e[0]) + [-1.0]
        else:
            basis = [list(e[j]) + [0.0] for j in range(d)] + [[0.0] * d + [cy]]
            line, others, last = list(e[0]) + [cy], 0.0, list(e[0]) + [-cy]
        X1 = np.array(basis * m)
        X0 = X1.copy()
        X0[len(basis) - 1] = 0.0
        Y1 = np.array([line] * m + [list(e[j]) + [others] for j in range(1, d)] + [last])
        Y0 = Y1.copy()
        Y0[-1] = 0.0
        return [NeighbourPair("joint-basis", X1.tolist(), X0.tolist(),
                              f"{m} copies of a basis of joint rows; one copy of its last "
                              "record zeroed"),
                NeighbourPair("influential-row", Y1.tolist(), Y0.tolist(),
                              f"{m} records (C_X e₁, C_Y) plus (C_X e₁, −C_Y), which is zeroed: "
                              "the removed record moves θ the most")]

    def _claim(self, **subs) -> ApproxDP:
        return ApproxDP(self.epsilon, self.delta, expression=self._expression(),
                        substitutions={"epsilon": self.epsilon, "delta": self.delta, **subs})


# -- LinearMixing (Algorithm 2) ----------------------------------------------------------------------

@functools.lru_cache(maxsize=256)
def linear_mixing_gamma(epsilon: float, delta: float, k: int) -> float:
    """Algorithm 2, line 1: the smallest γ > 5/2 with ε̃(γ/√k, γ, k, δ) ≤ ε (bisection; ε̃
    decreases in γ: both its terms do, App. E)."""
    return smallest_gamma(lambda g: theorem1_epsilon(LM_ETA(gamma=g, k=k), g, k, delta)[0],
                          epsilon, 2.5)


@register
class LinearMixing(RegressionMechanism):
    """LinearMixing (Algorithm 2): γ from ε̃ ≤ ε with η = γ/√k, ModifiedGaussMix on [X, Y] with
    row bound √(C_X² + C_Y²), θ_Lin = (X̃ᵀX̃)⁻¹X̃ᵀỸ.  Claim (Theorem 2): (ε, δ)-DP.
    ``noise_level`` and ``first_branch`` as for :class:`ModifiedGaussMix`."""

    name = "linear-mixing"

    def __init__(self, epsilon: float = 1.0, delta: float = 1e-3, k: int = 50,
                 x_bound: float = 1.0, y_bound: float = 1.0, noise_level: str = "printed",
                 first_branch: str = "sqrt", dim: int = 1, copies: int = 4):
        self._common(epsilon, delta, x_bound, y_bound, dim, copies)
        self.k = check_int("k", k)
        super().__init__(epsilon=self.epsilon, delta=self.delta, k=self.k, x_bound=self.cx,
                         y_bound=self.cy, noise_level=noise_level, first_branch=first_branch,
                         dim=self.dim, copies=self.copies)
        self.gamma = linear_mixing_gamma(self.epsilon, self.delta, self.k)
        self.eta = LM_ETA(gamma=self.gamma, k=self.k)
        self.row_bound = LM_ROW_BOUND(C_X=self.cx, C_Y=self.cy)
        self.inner = ModifiedGaussMix(k=self.k, gamma=self.gamma, eta=self.eta,
                                      delta=self.delta, row_bound=self.row_bound,
                                      first_branch=first_branch, noise_level=noise_level)

    def _expression(self):
        return formula_expression(LM_ETA, LM_ROW_BOUND)

    def claim(self) -> ApproxDP:
        return self._claim(k=self.k, gamma=self.gamma, eta=self.eta, C=self.row_bound,
                           epsilon_tilde=self.inner.epsilon_tilde)

    def _theta(self, J, n, rng, y_scale=1.0):
        J = J.copy()
        J[:, -1] *= y_scale
        z = rng.standard_normal(n)
        sd = self.inner.noise_sd(lambda_min(J), z)
        return theta_from_gram(wishart(J.T @ J, sd ** 2, self.k, n, rng), J.shape[1] - 1)

    def sample(self, dataset, n, rng) -> np.ndarray:
        J = self.validate_dataset(dataset)
        return self._theta(J, check_draw(n, rng), rng)

    def run_literal(self, dataset, rng) -> np.ndarray:
        """One run as printed: z, λ̃, η̃, then S[X, Y] + η̃Cξ with S drawn explicitly, then OLS."""
        J = self.validate_dataset(dataset)
        sd = self.inner.noise_sd(lambda_min(J), rng.standard_normal(1))
        M = sketch(J, self.k, sd, 1, rng)[0]
        return np.linalg.lstsq(M[:, :-1], M[:, -1], rcond=None)[0]


@functools.lru_cache(maxsize=16)
def logistic_surrogate(Q: float) -> tuple[float, float, float]:
    """(b₀, b₁, b₂) of q(s) ≈ −ln(1 + e^{−s}) on [−Q, Q] (least squares on 4001 equispaced
    points; the paper leaves the fit and 𝓘 = [−Q, Q] open)."""
    s = np.linspace(-Q, Q, 4001)
    b2, b1, b0 = np.polyfit(s, -np.logaddexp(0.0, -s), 2)
    return float(b0), float(b1), float(b2)


@register
class GaussMixLogistic(LinearMixing):
    """DP logistic regression via the quadratic surrogate (§5.2, App. G): with
    q(s) = b₀ + b₁s + b₂s² ≈ −ln(1 + e^{−s}) on [−Q, Q] (least-squares fit), minimising the
    surrogate loss is OLS with response −(b₁/(2b₂))·Y.  ``pipeline="appendix-g"`` (default):
    θ̂ = −(b₁/(2b₂))·θ_Lin with LinearMixing run on (X, Y), C_Y = 1; ``"section-5.2"``:
    LinearMixing run on (X, −(b₁/(2b₂))Y) with C_Y = |b₁/(2b₂)|.  Labels yᵢ ∈ {−1, +1}.
    Claim: (ε, δ)-DP (Theorem 2 and post-processing)."""

    name = "gaussmix-logistic"
    logistic = True

    def __init__(self, epsilon: float = 1.0, delta: float = 1e-3, k: int = 50,
                 x_bound: float = 1.0, Q: float = 4.0, pipeline: str = "appendix-g",
                 noise_level: str = "printed", first_branch: str = "sqrt", dim: int = 1,
                 copies: int = 4):
        Q = check_number("Q", Q)
        pipeline = check_choice("pipeline", pipeline, ("appendix-g", "section-5.2"))
        b0, b1, b2 = logistic_surrogate(Q)
        self.scale = -b1 / (2.0 * b2)
        y_bound = 1.0 if pipeline == "appendix-g" else abs(self.scale)
        super().__init__(epsilon=epsilon, delta=delta, k=k, x_bound=x_bound, y_bound=y_bound,
                         noise_level=noise_level, first_branch=first_branch, dim=dim,
                         copies=copies)
        self.params = {"epsilon": self.epsilon, "delta": self.delta, "k": self.k,
                       "x_bound": self.cx, "Q": Q, "pipeline": pipeline,
                       "noise_level": noise_level, "first_branch": first_branch,
                       "dim": self.dim, "copies": self.copies}
        self.pipeline, self.Q, self.coefficients = pipeline, Q, (b0, b1, b2)

    def sample(self, dataset, n, rng) -> np.ndarray:
        J = self.validate_dataset(dataset)
        n = check_draw(n, rng)
        if self.pipeline == "appendix-g":
            return self.scale * self._theta(J, n, rng)
        return self._theta(J, n, rng, y_scale=self.scale)


# -- AdaSSP (Algorithm 3) -------------------------------------------------------------------------------

@register
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

    def __init__(self, epsilon: float = 1.0, delta: float = 1e-3, x_bound: float = 1.0,
                 y_bound: float = 1.0, rho: float = 0.05, release: str = "theta", dim: int = 1,
                 copies: int = 4):
        self._common(epsilon, delta, x_bound, y_bound, dim, copies)
        self.rho = check_number("rho", rho)
        self.release = check_choice("release", release, ("theta", "statistics"))
        super().__init__(epsilon=self.epsilon, delta=self.delta, x_bound=self.cx,
                         y_bound=self.cy, rho=self.rho, release=self.release, dim=self.dim,
                         copies=self.copies)
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

@register
class Sheffet(RegressionMechanism):
    """Sheffet's algorithm (Algorithm 4; Sheffet 2017, Alg. 1 with the zero-out factor 2):
    γ = 4C²/ε·(√(2k ln(8/δ)) + 2 ln(8/δ)), C² = C_X² + C_Y²; if λ_min([X,Y]ᵀ[X,Y]) > γ + z +
    4C² ln(1/δ)/ε, z ~ Lap(4C²/ε), return OLS on S[X, Y], else on S[X, Y] + noise·ξ with
    noise = √γ (``noise="sqrt"``, Sheffet's original w = √γ; default) or γ as printed
    (``"printed"``).  Claim: (ε, δ)-DP."""

    name = "sheffet"

    def __init__(self, epsilon: float = 1.0, delta: float = 1e-3, k: int = 50,
                 x_bound: float = 1.0, y_bound: float = 1.0, noise: str = "sqrt", dim: int = 1,
                 copies: int = 4):
        self._common(epsilon, delta, x_bound, y_bound, dim, copies)
        self.k = check_int("k", k)
        self.noise = check_choice("noise", noise, ("sqrt", "printed"))
        super().__init__(epsilon=self.epsilon, delta=self.delta, k=self.k, x_bound=self.cx,
                         y_bound=self.cy, noise=self.noise, dim=self.dim, copies=self.copies)
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


@register
class SheffetOurAnalysis(Sheffet):
    """Sheffet's algorithm with the paper's analysis (Algorithm 5): γ is the smallest γ > 1 with
    min_{1<α<γ}{φ(α;k,γ) + ln(1 − 1/α) − ln(αδ)/(α − 1)} ≤ ε/2 (Lemma 1 + Prop. 1).  That γ is
    Lemma 1's C⁻²(σ² + λ̄); ``gamma_units="printed"`` (default) uses it as printed in lines 5 and
    9 (where Algorithm 4's γ is a variance), ``"scaled"`` uses γ·(C_X² + C_Y²) there."""

    name = "sheffet-our-analysis"

    def __init__(self, epsilon: float = 1.0, delta: float = 1e-3, k: int = 50,
                 x_bound: float = 1.0, y_bound: float = 1.0, noise: str = "sqrt",
                 gamma_units: str = "printed", dim: int = 1, copies: int = 4):
        self.gamma_units = check_choice("gamma_units", gamma_units, ("printed", "scaled"))
        super().__init__(epsilon=epsilon, delta=delta, k=k, x_bound=x_bound, y_bound=y_bound,
                         noise=noise, dim=dim, copies=copies)
        self.params["gamma_units"] = self.gamma_units

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

@register
class ObjectivePerturbation(RegressionMechanism):
    """Objective perturbation (Algorithm 6; Kifer, Smith & Thakurta 2012): b ~ N(0, σ²I),
    σ = √(4ε + 8 ln(2/δ))·C_X/ε, Δ = C_X²/(2ε), θ̃ = argmin (1/n)Σℓ(yᵢxᵢᵀθ) + bᵀθ/n +
    Δ‖θ‖²/(2n) with the logistic loss ℓ(s) = ln(1 + e^{−s}) (the paper prints its negative, a
    sign typo).  The minimiser is found by damped Newton steps, vectorised over the outputs
    (strongly convex: modulus Δ/n), to a gradient norm ≤ 1e-10.  Labels ±1.  Claim: (ε, δ)-DP."""

    name = "objective-perturbation"
    logistic = True

    def __init__(self, epsilon: float = 1.0, delta: float = 1e-3, x_bound: float = 1.0,
                 dim: int = 1, copies: int = 4):
        self._common(epsilon, delta, x_bound, 1.0, dim, copies)
        super().__init__(epsilon=self.epsilon, delta=self.delta, x_bound=self.cx, dim=self.dim,
                         copies=self.copies)
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


__all__ = ["LinearMixing", "GaussMixLogistic", "AdaSSP", "Sheffet", "SheffetOurAnalysis",
           "ObjectivePerturbation", "wishart", "linear_mixing_gamma", "lemma1_gamma",
           "logistic_surrogate"]
