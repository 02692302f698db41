"""Exact privacy profiles of pairs of multivariate Gaussians.

Three constructions, from the most to the least structured:

1. **Equal covariance** N(μ₀, Σ) vs N(μ₁, Σ) (:func:`equal_covariance_profile`): the loss is
   N(μ²/2, μ²) with μ = ‖Σ^{−½}(μ₁ − μ₀)‖ (Mahalanobis), i.e. μ-GDP
   (:class:`~dpaudit.exact.profile.GaussianShiftProfile`).  A singular Σ is allowed; a shift
   outside its range makes the pair mutually singular (μ = ∞, δ ≡ 1).

2. **Isotropic, different means and variances** N(m₀, s₀²I_d) vs N(m₁, s₁²I_d)
   (:class:`IsotropicGaussianProfile`; the law of Gaussian output perturbation calibrated by
   smooth sensitivity).  With Δ = ‖m₁ − m₀‖, x the coordinate of X − m₀ along m₁ − m₀ and ρ
   the squared norm of the orthogonal part,

       L = d ln(s₁/s₀) + h̃(x) + kρ,   h̃(x) = −x²/(2s₀²) + (x − Δ)²/(2s₁²),
       k = 1/(2s₁²) − 1/(2s₀²),

   with x ~ N(0, s₀²), ρ ~ s₀²χ²_{d−1} under P₀ and x ~ N(Δ, s₁²), ρ ~ s₁²χ²_{d−1} under
   P₁.  Conditioning on x, {L > ε} is {ρ > t(x)} (k > 0) or {ρ < t(x)} (k < 0) with
   t(x) = (ε − h(x))/k, so

       δ(ε) = ∫ [φ₀(x) G_{d−1}(t(x)/s₀²) − e^ε φ₁(x) G_{d−1}(t(x)/s₁²)] dx,

   G the χ² survival (k > 0) or distribution function (k < 0).  The integrand is ≥ 0 for
   every x and bounded by φ₀(x); it is evaluated in log space and integrated over
   |x| ≤ K s₀ by adaptive Gauss–Legendre panels with edges at the roots of h(x) = ε (where
   t changes sign), K ≥ 12 grown until the neglected P₀ mass 2Φ̄(K) is ≤ 1e-12·δ
   (:func:`~dpaudit.exact.profile.integrate_below_normal`).  d = 1 is the closed-form
   :class:`~dpaudit.exact.mixtures.NormalPairProfile`; s₀ = s₁ is GDP.  No Monte Carlo.
   Tolerance: rtol 1e-8 (quadrature estimate ≤ 2e-11·δ, truncation ≤ 1e-12·δ), atol 1e-30.

3. **General Gaussians** N(μ₀, Σ₀) vs N(μ₁, Σ₁) (:class:`~dpaudit.exact.gaussian_general.GaussianProfile`), including
   zero-mean pairs that differ only in covariance.  Whitening by (Σ₀ + Σ₁)^{−½} and one
   symmetric eigendecomposition diagonalise both covariances at once: in the new coordinates
   P₀ = ⊗ N(0, κᵢ) and P₁ = ⊗ N(mᵢ, 1 − κᵢ), κᵢ ∈ (0, 1).  With λᵢ = κᵢ/(1 − κᵢ) and
   δᵢ = mᵢ/√(1 − κᵢ), under P₀ the loss is a generalized χ²,

       L = c + Σᵢ (aᵢ wᵢ² + bᵢ wᵢ),   aᵢ = (λᵢ − 1)/2,  bᵢ = −√λᵢ δᵢ,
       c = Σᵢ (−½ ln λᵢ + δᵢ²/2),      wᵢ iid N(0, 1),

   whose moment generating function is M(s) = exp(K(s)),
   K(s) = sc + Σᵢ [−½ ln(1 − 2saᵢ) + s²bᵢ²/(2(1 − 2saᵢ))], finite for 1 − 2 Re(s) aᵢ > 0.
   The hockey-stick divergence is the Bromwich (Laplace-inversion) integral of the payoff
   (1 − e^{ε−ℓ})₊, whose bilateral Laplace transform is e^{−sε}/(s(s+1)):

       δ(ε) = (1/2πi) ∫_{c−i∞}^{c+i∞} M(s) e^{−sε} / (s(s+1)) ds
            = (1/π) ∫₀^∞ Re F(c + iy) dy,        0 < c < 1/(2 max aᵢ⁺).

   (This is Gil-Pelaez/Imhof inversion applied to P₀(L > ε) − e^ε P₁(L > ε) at once, since
   M_{P₁}(s) = M(s − 1); the integrand decays like |y|^{−2−m/2}, m = #{aᵢ ≠ 0}.)  c is the
   saddle point of ln F on the real axis (stepped back to s_max − min(s_max/2, (1 + m/2)/ε)
   when the saddle crowds the branch point s_max = 1/(2 max aᵢ⁺)), so the integrand's scale
   is within a factor ≈ e^{1+m/2} of δ and tiny δ keep their relative precision.  The
   integral is computed by the trapezoidal rule with step h, truncated at Y = Nh, with a
   rigorous error bound (Poisson summation, using δ(ε′) ≤ M(c′)e^{−c′ε′} and δ ≤ 1; |F(c+iy)|
   is non-increasing in |y|):

       0 ≤ aliasing ≤ q/(1−q) + M(c′)e^{−c′ε}·r/(1−r),  q = e^{−2πc/h}, r = e^{−2π(c′−c)/h},
       |truncation| ≤ |M(c+iY)| e^{−cε} Πᵢρᵢ^{½} / (πY(1 + m/2)),  c < c′ < s_max,
       ρᵢ² = 1 + (1 − 2caᵢ)²/(2Yaᵢ)²  (from |1 − 2(c+iy)aᵢ| ≥ (y/Y)|1 − 2(c+iY)aᵢ|/ρᵢ);

   h and Y are chosen so that their sum is ≤ 1e-9·δ.  Stated tolerance rtol 1e-8, atol 1e-300;
   :meth:`~dpaudit.exact.gaussian_general.GaussianProfile.delta_with_error` returns the bound actually achieved, which can
   exceed 1e-9·δ only when the budget of 4·10⁶ nodes runs out (far tails, δ ≲ 1e-10, of pairs
   whose covariances differ little in some directions; seen up to ~5e-9·δ).  Low-rank cases
   avoid the slowly decaying integrand: one quadratic coordinate plus a linear part
   (m = 1, conditional on w₁ the loss is normal: a GDP-type closed form inside a 1-D
   quadrature), two quadratic coordinates and no linear part (m = 2, conditional on w₁ the
   set {L > ε} is one or two intervals in w₂: 1-D quadrature of a cancellation-free
   Gauss–Legendre inner integral); both with error estimates ≤ 2e-12·δ.  Special cases are
   routed to closed forms: all aᵢ = 0 is GDP; a single aᵢ ≠ 0 with no other loss coordinate
   is a :class:`~dpaudit.exact.mixtures.NormalPairProfile`.  A pair is *mutually singular*
   (δ ≡ 1)
   when one covariance is degenerate in a direction where the other is not (κᵢ within
   64·d·2⁻⁵² of 0 or 1), or when the shift has a component in a common null direction;
   common null directions without a shift are projected out.  One δ(ε) takes milliseconds
   to ~1 s (d = 50 is fast: the integrand decays like y^{−27}); eigenvalue ratios
   λᵢ ≈ 1e−12 lose ~4 digits of their relative accuracy, which shifts the curve accordingly.

Rényi divergences are closed forms (:mod:`dpaudit.exact.renyi`).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from dpaudit.exact.mixtures import NormalPairProfile
from dpaudit.exact.profile import (GaussianShiftProfile, PrivacyProfile, Tolerance,
                                   integrate_below_normal)
from dpaudit.exact.renyi import isotropic_gaussian_renyi

_LOG_2PI = math.log(2.0 * math.pi)


# --- 1. equal covariance ----------------------------------------------------------------------
def mahalanobis(mean0, mean1, cov) -> float:
    """‖Σ^{−½}(μ₁ − μ₀)‖ on the range of Σ; ∞ if the shift leaves the range of a singular Σ."""
    m0, m1 = np.atleast_1d(np.asarray(mean0, float)), np.atleast_1d(np.asarray(mean1, float))
    cov = np.atleast_2d(np.asarray(cov, float))
    if m0.shape != m1.shape or cov.shape != (m0.size, m0.size):
        raise ValueError("means must have length d and the covariance shape (d, d)")
    w, u = np.linalg.eigh(0.5 * (cov + cov.T))
    if w[-1] <= 0:
        raise ValueError("covariance must be positive semi-definite and non-zero")
    null = w <= 64 * m0.size * np.finfo(float).eps * w[-1]
    proj = u.T @ (m1 - m0)
    if np.any(np.abs(proj[null]) > 1e-9 * math.sqrt(w[-1])):
        return math.inf
    return float(math.sqrt(np.sum(proj[~null] ** 2 / w[~null])))


def equal_covariance_profile(mean0, mean1, cov) -> GaussianShiftProfile:
    """N(mean0, cov) vs N(mean1, cov): μ-GDP with μ the Mahalanobis distance (symmetric)."""
    return GaussianShiftProfile(mahalanobis(mean0, mean1, cov))


# --- 2. isotropic, different variances ----------------------------------------------------------
class IsotropicGaussianProfile(PrivacyProfile):
    """N(m₀, s₀²I_d) vs N(m₁, s₁²I_d) (module docstring, case 2).

    ``mean0``/``mean1`` are vectors of length d, or scalars with ``dim`` = d (then the shift is
    |mean1 − mean0| along one axis)."""

    tolerance = Tolerance(1e-8, 1e-30)

    def __init__(self, mean0, scale0: float, mean1, scale1: float, dim: int | None = None):
        m0, m1 = np.atleast_1d(np.asarray(mean0, float)), np.atleast_1d(np.asarray(mean1, float))
        if m0.shape != m1.shape:
            raise ValueError("means must have the same shape")
        d = int(dim) if dim is not None else m0.size
        if d < m0.size or d < 1:
            raise ValueError(f"dim must be ≥ len(mean) ≥ 1, got {dim!r}")
        s0, s1 = float(scale0), float(scale1)
        if not (s0 > 0 and s1 > 0 and math.isfinite(s0) and math.isfinite(s1)):
            raise ValueError("scales must be finite and > 0")
        self.dist, self.s0, self.s1, self.d = float(np.linalg.norm(m1 - m0)), s0, s1, d
        self._m0, self._m1 = m0, m1
        self.name = f"N(m0,{s0:.4g}²I) vs N(m1,{s1:.4g}²I), d={d}, |m1−m0|={self.dist:.4g}"
        self._inner: PrivacyProfile | None = None
        if s0 == s1:
            self._inner = GaussianShiftProfile(self.dist / s0)
        elif d == 1:
            self._inner = NormalPairProfile(0.0, s0, self.dist, s1)
        if self._inner is not None:
            self.tolerance = self._inner.tolerance
        self.k = 0.5 / s1 ** 2 - 0.5 / s0 ** 2
        self.c = d * math.log(s1 / s0)

    def reversed(self):
        return IsotropicGaussianProfile(self._m1, self.s1, self._m0, self.s0, dim=self.d)

    def _h(self, x):
        """h(x) = c + h̃(x): the loss at ρ = 0."""
        return self.c - 0.5 * (x / self.s0) ** 2 + 0.5 * ((x - self.dist) / self.s1) ** 2

    def _roots(self, eps):
        """Real roots of h(x) = ε (a quadratic with leading coefficient k)."""
        A, B = self.k, -self.dist / self.s1 ** 2
        C = self.c + 0.5 * (self.dist / self.s1) ** 2 - eps
        disc = B * B - 4 * A * C
        if disc <= 0:
            return []
        q = -0.5 * (B + math.copysign(math.sqrt(disc), B))
        return sorted(r for r in (q / A, C / q) if math.isfinite(r))

    def _integrand(self, eps):
        nu = self.d - 1
        s0, s1, k = self.s0, self.s1, self.k

        def f(x):
            t = (eps - self._h(x)) / k  # ρ-threshold: {L > ε} = {ρ > t} (k>0) or {ρ < t} (k<0)
            lphi0 = -0.5 * (x / s0) ** 2 - math.log(s0) - 0.5 * _LOG_2PI
            lphi1 = -0.5 * ((x - self.dist) / s1) ** 2 - math.log(s1) - 0.5 * _LOG_2PI
            with np.errstate(divide="ignore"):
                if k > 0:
                    tp = np.maximum(t, 0.0)
                    g0 = np.log(special.gammaincc(nu / 2, tp / (2 * s0 * s0)))
                    g1 = np.log(special.gammaincc(nu / 2, tp / (2 * s1 * s1)))
                else:
                    tp = np.maximum(t, 0.0)
                    g0 = np.log(special.gammainc(nu / 2, tp / (2 * s0 * s0)))
                    g1 = np.log(special.gammainc(nu / 2, tp / (2 * s1 * s1)))
            a = lphi0 + g0
            b = eps + lphi1 + g1
            with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
                val = a + np.log(-np.expm1(np.minimum(b - a, 0.0)))
            return np.where(a > -np.inf, val, -np.inf)
        return f

    def _log_delta_with_error(self, eps):
        kinks = list(self._roots(eps)) + [self.dist / (2 * self.k * self.s1 ** 2)]
        return integrate_below_normal(self._integrand(eps), self.s0, kinks)

    def delta_with_error(self, eps: float) -> tuple[float, float]:
        """(δ(ε), error estimate: quadrature estimate + neglected P₀ mass, see
        :func:`~dpaudit.exact.profile.integrate_below_normal`)."""
        if self._inner is not None:
            v = self._inner._delta(eps)
            return v, self.tolerance.rtol * v
        log_d, err = self._log_delta_with_error(eps)
        return math.exp(log_d), err

    def _delta(self, eps):
        return self.delta_with_error(eps)[0]

    def _log_delta(self, eps):
        if self._inner is not None:
            return self._inner._log_delta(eps)
        return self._log_delta_with_error(eps)[0]

    def max_loss(self):
        if self._inner is not None:
            return self._inner.max_loss()
        if self.s0 > self.s1:
            return math.inf
        return self.c + 0.5 * (self.dist / self.s1) ** 2 - (self.dist / self.s1 ** 2) ** 2 / (
            4 * self.k)

    def _renyi(self, alpha):
        return isotropic_gaussian_renyi(self.dist, self.s0, self.s1, self.d, alpha)


__all__ = ["mahalanobis", "equal_covariance_profile", "IsotropicGaussianProfile"]
