"""The high-dimensional (ℓ₂) Laplace law and the exact privacy curve of a shifted pair.

Law.  On ℝᵈ, p(v; a) = exp(−‖v‖₂/a) / Z_d(a) with Z_d(a) = aᵈ Γ(d) S_{d−1},
S_{d−1} = 2π^{d/2}/Γ(d/2) the area of the unit sphere (polar coordinates:
∫ exp(−r/a) r^{d−1} dr = Γ(d) aᵈ).  So ‖v‖₂ ~ Gamma(shape d, scale a), independent of the
direction v/‖v‖₂, which is uniform on the sphere; :func:`sample_l2_laplace` draws exactly
that (radius from the gamma law, direction = a normalised standard Gaussian vector).  This is
the density of Chaudhuri, Monteleoni & Sarwate (JMLR 2011) used by Rho, Cummings & Misra
(AISTATS 2023, §2.3, Algorithms 2–3).  For d = 1 it is Lap(0, a).

Shifted pair.  P₀ = μ₀ + V, P₁ = μ₁ + V with V ~ p(·; a) and ‖μ₀ − μ₁‖₂ = s.  With
v = x − μ₀, w = μ₀ − μ₁ the privacy loss is L = (‖v + w‖ − ‖v‖)/a ∈ [−s/a, s/a].  In units of
a, with ρ = ‖v‖/a ~ Gamma(d, 1), t = cos∠(v, w) (density ∝ (1 − t²)^{(d−3)/2} on [−1, 1] for
d ≥ 2, t = ±1 with probability ½ each for d = 1) and σ = s/a:

    L(ρ, t) = √(ρ² + 2ρσt + σ²) − ρ,

which decreases in ρ from σ to σt.  So for ε < σ the event {L > ε} is {ρ < ρ*(t)} with
ρ*(t) = (σ² − ε²)/(2(ε − σt)) when ε > σt, and all ρ when ε ≤ σt, and

    δ(ε) = P₀(L > ε) − e^ε P₁(L > ε)
         = E_t[ Γ_reg(d, ρ*(t)) ] − e^ε E_t[ ∫₀^{ρ*(t)} ρ^{d−1} e^{−√(ρ²+2ρσt+σ²)} dρ / Γ(d) ],

the first inner integral exact (regularised incomplete gamma), the second by Gauss–Legendre
panels split at the kink ρ = σ of the t → −1 limit, the outer one over the angle θ = arccos t
(weight sin^{d−2}θ, smooth) by adaptive Gauss–Legendre panels split where ρ* becomes infinite.  δ(ε) = 0 for ε ≥ σ (the pure ε of the pair is s/a,
attained as v points along w).  The pair is symmetric (v ↦ −v maps one direction onto the
other), so ``reversed()`` is itself.  Tolerance: checked in the tests against the closed form
for d = 1, against a grid twice as fine, and against Monte Carlo.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import gammainc, gammaincc, gammaln

from dpaudit.exact.profile import PrivacyProfile, Tolerance, gauss_legendre_panels


def l2_laplace_log_normaliser(dim: int, scale: float) -> float:
    """ln Z_d(a) = d ln a + ln Γ(d) + ln 2 + (d/2) ln π − ln Γ(d/2)."""
    d = int(dim)
    return (d * math.log(scale) + float(gammaln(d)) + math.log(2.0) + 0.5 * d * math.log(math.pi)
            - float(gammaln(0.5 * d)))


def l2_laplace_log_density(v, scale: float) -> np.ndarray:
    """ln p(v; a) for each row of ``v`` (shape (N, d)), the ℓ₂-Laplace density."""
    v = np.asarray(v, dtype=float)
    if v.ndim == 1:
        v = v[:, None]
    return -np.linalg.norm(v, axis=1) / scale - l2_laplace_log_normaliser(v.shape[1], scale)


def sample_l2_laplace(rng: np.random.Generator, n: int, dim: int, scale: float) -> np.ndarray:
    """n draws (shape (n, dim)) from p(v; a) ∝ exp(−‖v‖₂/a): radius ~ Gamma(dim, a), direction
    uniform on the sphere (a standard Gaussian vector divided by its norm)."""
    g = rng.standard_normal((int(n), int(dim)))
    norms = np.linalg.norm(g, axis=1)
    norms[norms == 0.0] = 1.0  # probability 0; keeps the output finite
    radius = rng.gamma(float(dim), float(scale), size=int(n))
    return g * (radius / norms)[:, None]


class L2LaplaceShiftProfile(PrivacyProfile):
    """μ₀ + V vs μ₁ + V, V ~ ℓ₂-Laplace(a) on ℝᵈ, ‖μ₀ − μ₁‖₂ = ``shift`` (module docstring)."""

    tolerance = Tolerance(1e-7, 1e-13)

    def __init__(self, dim: int, shift: float, scale: float, *, rho_nodes: int = 96,
                 rtol: float = 1e-10):
        dim, shift, scale = int(dim), float(shift), float(scale)
        if dim < 1:
            raise ValueError(f"dim must be >= 1, got {dim}")
        if not (math.isfinite(shift) and shift >= 0):
            raise ValueError(f"shift must be a finite number >= 0, got {shift!r}")
        if not (math.isfinite(scale) and scale > 0):
            raise ValueError(f"scale must be a finite number > 0, got {scale!r}")
        self.dim, self.shift, self.scale, self._rtol = dim, shift, scale, float(rtol)
        self.sigma = shift / scale
        self.name = f"l2-Laplace(d={dim}) shift {shift:.6g}, scale {scale:.6g}"
        # outer integral over the angle θ = arccos t with weight sin^{d−2}θ / ∫₀^π sin^{d−2}
        self._log_angle_norm = (0.5 * math.log(math.pi) + float(gammaln(0.5 * (dim - 1)))
                                - float(gammaln(0.5 * dim))) if dim > 1 else 0.0
        x, w = np.polynomial.legendre.leggauss(int(rho_nodes))
        self._x, self._w = 0.5 * (x + 1.0), 0.5 * w  # nodes and weights on [0, 1]
        # beyond this radius the Gamma(d, 1) tail is below 1e-18
        self._rho_max = float(_gamma_isf(dim, 1e-18))

    def reversed(self):
        return self

    def max_loss(self) -> float:
        return self.sigma

    def mismatch(self) -> float:
        return 0.0

    def _p1_part(self, upper: np.ndarray, t: np.ndarray) -> np.ndarray:
        """∫₀^{upper} ρ^{d−1} exp(−√(ρ² + 2ρσt + σ²)) dρ / Γ(d) for each (upper, t),
        Gauss–Legendre on [0, min(σ, upper)] and [min(σ, upper), upper]."""
        d, s = self.dim, self.sigma
        cut = np.minimum(s, upper)
        total = np.zeros_like(upper)
        for lo, hi in ((np.zeros_like(upper), cut), (cut, upper)):
            width = hi - lo
            rho = lo[:, None] + width[:, None] * self._x[None, :]
            arg = np.maximum(rho * rho + 2.0 * rho * s * t[:, None] + s * s, 0.0)
            with np.errstate(divide="ignore"):
                log_f = (d - 1) * np.log(rho) - np.sqrt(arg) - gammaln(d)
            total += width * (np.exp(log_f) @ self._w)
        return total

    def _conditional(self, eps: float, t: np.ndarray) -> np.ndarray:
        """P₀(L > ε | t) − e^ε P₁-part(L > ε | t) ≥ 0 (pointwise p₀ > e^ε p₁ on the event)."""
        s, d = self.sigma, self.dim
        gap = eps - s * t
        with np.errstate(divide="ignore", invalid="ignore"):
            star = np.where(gap > 0, (s * s - eps * eps) / (2.0 * np.where(gap > 0, gap, 1.0)),
                            np.inf)
        upper = np.minimum(star, self._rho_max)
        p0 = np.where(np.isinf(star), 1.0, gammainc(d, np.minimum(star, 1e300)))
        return np.maximum(p0 - math.exp(eps) * self._p1_part(upper, t), 0.0)

    def _delta(self, eps: float) -> float:
        s, d = self.sigma, self.dim
        if eps >= s or s == 0.0:
            return 0.0
        if d == 1:
            return float(0.5 * self._conditional(eps, np.array([-1.0, 1.0])).sum())
        norm = math.exp(self._log_angle_norm)

        def f(theta):
            weight = np.sin(theta) ** (d - 2) / norm
            return weight * self._conditional(eps, np.cos(theta))

        kink = math.acos(max(-1.0, min(1.0, eps / s)))  # ρ* becomes ∞ for t ≥ ε/σ
        value, _ = gauss_legendre_panels(f, [0.0, kink, math.pi], rtol=self._rtol)
        return max(float(value), 0.0)


def _gamma_isf(shape: float, q: float) -> float:
    """x with P(Gamma(shape, 1) > x) = q (bisection on the regularised upper gamma)."""
    lo, hi = 0.0, shape + 10.0
    while gammaincc(shape, hi) > q:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if gammaincc(shape, mid) > q:
            lo = mid
        else:
            hi = mid
    return hi


__all__ = ["L2LaplaceShiftProfile", "l2_laplace_log_density", "l2_laplace_log_normaliser",
           "sample_l2_laplace"]
