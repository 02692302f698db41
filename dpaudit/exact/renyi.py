"""Closed-form Rényi divergences D_α(P₀‖P₁) = (α−1)⁻¹ ln ∫ p₀^α p₁^{1−α} of Gaussian and
Laplace pairs.

General Gaussians (Gil, Alajaji & Linder 2013, Table 2; Pardo 2006): with Δ = μ₁ − μ₀ and
Σ_α = αΣ₁ + (1−α)Σ₀,

    D_α(N(μ₀,Σ₀) ‖ N(μ₁,Σ₁)) = (α/2) Δᵀ Σ_α⁻¹ Δ
                               − 1/(2(α−1)) · ln( det Σ_α / (det Σ₀^{1−α} det Σ₁^{α}) ),

valid when Σ_α ≻ 0 (always for α < 1); otherwise the integral diverges and D_α = ∞.  This
includes the covariance-only pairs (Δ = 0) of sketching mechanisms and reduces to αμ²/2 with
μ the Mahalanobis distance when Σ₀ = Σ₁.  α = 1 is the Kullback–Leibler divergence
½[tr(Σ₁⁻¹Σ₀) − d + ΔᵀΣ₁⁻¹Δ + ln det Σ₁ − ln det Σ₀].  Determinants are taken with
``slogdet`` and Σ_α⁻¹Δ with a Cholesky solve, so d up to a few hundred keeps ~1e-12 relative
accuracy for well-conditioned covariances (error ≈ cond(Σ_α)·1e-16 in general).

Laplace shift pair Lap(0,b) vs Lap(μb,b) (Mironov 2017, Table II):

    D_α = (α−1)⁻¹ ln( α/(2α−1) e^{(α−1)μ} + (α−1)/(2α−1) e^{−αμ} ),   α ≠ ½, 1,

with KL = μ + e^{−μ} − 1 and D_½ = −2 ln((1 + μ/2) e^{−μ/2}).  Laplace pairs with different
scales are handled exactly, piece by piece, by :class:`dpaudit.exact.laplace_pairs.LaplaceProfile`.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.linalg import cho_factor, cho_solve


def _check_alpha(alpha) -> float:
    alpha = float(alpha)
    if math.isnan(alpha) or alpha <= 0 or math.isinf(alpha):
        raise ValueError(f"alpha must be a finite number > 0, got {alpha!r}")
    return alpha


def gaussian_renyi(mean0, cov0, mean1, cov1, alpha: float) -> float:
    """D_α(N(mean0, cov0) ‖ N(mean1, cov1)) by the closed form above (∞ when Σ_α ⊁ 0).

    ``cov0``/``cov1`` must be symmetric positive definite (d × d); scalars are 1 × 1."""
    alpha = _check_alpha(alpha)
    m0 = np.atleast_1d(np.asarray(mean0, dtype=float))
    m1 = np.atleast_1d(np.asarray(mean1, dtype=float))
    c0 = np.atleast_2d(np.asarray(cov0, dtype=float))
    c1 = np.atleast_2d(np.asarray(cov1, dtype=float))
    d = m0.size
    if m1.size != d or c0.shape != (d, d) or c1.shape != (d, d):
        raise ValueError("means must have length d and covariances shape (d, d)")
    diff = m1 - m0
    s0, ld0 = np.linalg.slogdet(c0)
    s1, ld1 = np.linalg.slogdet(c1)
    if s0 <= 0 or s1 <= 0:
        raise ValueError("covariances must be positive definite")
    if alpha == 1.0:
        f1 = cho_factor(c1, lower=True)
        tr = float(np.trace(cho_solve(f1, c0)))
        quad = float(diff @ cho_solve(f1, diff))
        return 0.5 * (tr - d + quad + ld1 - ld0)
    ca = alpha * c1 + (1.0 - alpha) * c0
    ca = 0.5 * (ca + ca.T)
    if np.linalg.eigvalsh(ca)[0] <= 0:
        return math.inf
    fa = cho_factor(ca, lower=True)
    lda = 2.0 * float(np.sum(np.log(np.diag(fa[0]))))
    quad = float(diff @ cho_solve(fa, diff))
    return 0.5 * alpha * quad - (lda - (1.0 - alpha) * ld0 - alpha * ld1) / (2.0 * (alpha - 1.0))


def isotropic_gaussian_renyi(distance: float, scale0: float, scale1: float, dim: int,
                             alpha: float) -> float:
    """D_α(N(m₀, s₀²I_d) ‖ N(m₁, s₁²I_d)) with ‖m₁ − m₀‖ = ``distance``.

    With v_α = αs₁² + (1−α)s₀² (must be > 0, else ∞):
    D_α = αΔ²/(2v_α) − d/(2(α−1)) · [ln v_α − (1−α) ln s₀² − α ln s₁²];
    KL = d ln(s₁/s₀) + (d s₀² + Δ²)/(2s₁²) − d/2."""
    alpha = _check_alpha(alpha)
    s0, s1, dist, d = float(scale0), float(scale1), float(distance), int(dim)
    if alpha == 1.0:
        return d * math.log(s1 / s0) + (d * s0 * s0 + dist * dist) / (2 * s1 * s1) - d / 2.0
    va = alpha * s1 * s1 + (1.0 - alpha) * s0 * s0
    if va <= 0:
        return math.inf
    logdet = d * (math.log(va) - (1.0 - alpha) * 2 * math.log(s0) - alpha * 2 * math.log(s1))
    return alpha * dist * dist / (2.0 * va) - logdet / (2.0 * (alpha - 1.0))


def laplace_shift_renyi(mu: float, alpha: float) -> float:
    """D_α of Lap(0, b) vs Lap(μb, b) (Mironov 2017); symmetric in the pair."""
    alpha = _check_alpha(alpha)
    mu = abs(float(mu))
    if alpha == 1.0:
        return mu + math.expm1(-mu)
    if alpha == 0.5:
        return -2.0 * (math.log1p(mu / 2.0) - mu / 2.0)
    a, b = alpha / (2 * alpha - 1), (alpha - 1) / (2 * alpha - 1)
    # a e^{(α−1)μ} + b e^{−αμ}, in log space (a > 0; b < 0 only when ½ < α < 1)
    la = math.log(abs(a)) + (alpha - 1) * mu
    lb = math.log(abs(b)) - alpha * mu
    if a > 0 and b >= 0:
        total = np.logaddexp(la, lb)
    elif a > 0:
        total = la + math.log1p(-math.exp(lb - la))
    else:  # 0 < α < ½: a < 0 < b
        total = lb + math.log1p(-math.exp(la - lb))
    return float(total) / (alpha - 1.0)


__all__ = ["gaussian_renyi", "isotropic_gaussian_renyi", "laplace_shift_renyi"]
