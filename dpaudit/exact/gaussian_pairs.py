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

3. **General Gaussians** N(μ₀, Σ₀) vs N(μ₁, Σ₁) (:class:`GaussianProfile`), including
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
   :meth:`GaussianProfile.delta_with_error` returns the bound actually achieved, which can
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
from scipy.optimize import brentq

from dpaudit.exact.mixtures import NormalPairProfile, gl_normal_piece
from dpaudit.exact.profile import (GaussianShiftProfile, PrivacyProfile, Tolerance,
                                   integrate_below_normal)
from dpaudit.exact.renyi import gaussian_renyi, isotropic_gaussian_renyi

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


# --- 3. general Gaussians -----------------------------------------------------------------------
class GaussianProfile(PrivacyProfile):
    """N(mean0, cov0) vs N(mean1, cov1), any dimension (module docstring, case 3).

    Attributes after construction: ``a``, ``b`` (coefficients of the non-degenerate quadratic
    coordinates), ``c`` and ``sigma2`` (variance of the purely linear part of L under P₀),
    ``singular`` (mutually singular pair)."""

    tolerance = Tolerance(1e-8, 1e-300)
    #: target for the rigorous aliasing + truncation bound, relative to δ
    TARGET = 1e-9
    #: cap on the number of trapezoidal nodes per δ evaluation
    MAX_NODES = 4_000_000

    def __init__(self, mean0, cov0, mean1, cov1):
        m0, m1 = np.atleast_1d(np.asarray(mean0, float)), np.atleast_1d(np.asarray(mean1, float))
        c0 = np.atleast_2d(np.asarray(cov0, float))
        c1 = np.atleast_2d(np.asarray(cov1, float))
        d = m0.size
        if m1.size != d or c0.shape != (d, d) or c1.shape != (d, d):
            raise ValueError("means must have length d and covariances shape (d, d)")
        if not (np.all(np.isfinite(c0)) and np.all(np.isfinite(c1))
                and np.all(np.isfinite(m0)) and np.all(np.isfinite(m1))):
            raise ValueError("means and covariances must be finite")
        self._args = (m0, 0.5 * (c0 + c0.T), m1, 0.5 * (c1 + c1.T))
        self.d = d
        self.name = f"N(μ0,Σ0) vs N(μ1,Σ1), d={d}"
        self._decompose()

    def reversed(self):
        m0, c0, m1, c1 = self._args
        return GaussianProfile(m1, c1, m0, c0)

    def _decompose(self):
        m0, c0, m1, c1 = self._args
        tiny = 64 * self.d * np.finfo(float).eps
        self.singular = False
        self._inner: PrivacyProfile | None = None
        w, u = np.linalg.eigh(c0 + c1)
        if w[-1] <= 0:
            raise ValueError("covariances must be positive semi-definite and not both zero")
        null = w <= tiny * w[-1]
        diff = m1 - m0
        if np.any(np.abs(u[:, null].T @ diff) > 1e-9 * math.sqrt(w[-1])):
            self.singular = True
            return
        T = u[:, ~null] / np.sqrt(w[~null])          # whitening of Σ₀ + Σ₁ on its range
        kappa, q = np.linalg.eigh(T.T @ c0 @ T)     # T'Σ₀T = Q diag(κ) Q', T'Σ₁T = I − that
        if np.any(kappa <= tiny) or np.any(kappa >= 1 - tiny):
            self.singular = True
            return
        mshift = q.T @ (T.T @ diff)
        lam = kappa / (1.0 - kappa)
        dlt = mshift / np.sqrt(1.0 - kappa)
        a = (2.0 * kappa - 1.0) / (2.0 * (1.0 - kappa))
        b = -np.sqrt(lam) * dlt
        self.full_rank = not null.any()
        quad = np.abs(a) > 1e-12
        self.a, self.b = a[quad], b[quad]
        self.sigma2 = float(np.sum(b[~quad] ** 2))
        self.c = float(np.sum(-0.5 * np.log(lam) + 0.5 * dlt ** 2))
        self._lam, self._dlt = lam, dlt
        if self.a.size == 0:
            self._inner = GaussianShiftProfile(math.sqrt(self.sigma2))
        elif self.a.size == 1 and self.sigma2 == 0.0:
            i = int(np.flatnonzero(quad)[0])
            self._inner = NormalPairProfile(0.0, math.sqrt(lam[i]), dlt[i], 1.0)
        if self._inner is not None:
            self.tolerance = self._inner.tolerance
        pos = self.a[self.a > 0]
        self.s_max = 1.0 / (2.0 * pos.max()) if pos.size else math.inf

    # -- the cumulant generating function of L under P₀ -------------------------------------------
    def K(self, s):
        """ln E_{P₀}[e^{sL}] (real or complex s with 1 − 2 Re(s) aᵢ > 0)."""
        s = np.asarray(s)
        one = 1.0 - 2.0 * s[..., None] * self.a
        terms = -0.5 * np.log(one) + (s[..., None] ** 2) * self.b ** 2 / (2.0 * one)
        return s * self.c + 0.5 * s * s * self.sigma2 + terms.sum(axis=-1)

    def _dK(self, c):
        one = 1.0 - 2.0 * c * self.a
        return (self.c + c * self.sigma2
                + float(np.sum(self.a / one + self.b ** 2 * c * (1.0 - c * self.a) / one ** 2)))

    def _d2K(self, c):
        u = 1.0 - 2.0 * c * self.a
        return self.sigma2 + float(np.sum(2.0 * self.a ** 2 / u ** 2 + self.b ** 2 * (
            1.0 / u + 4.0 * self.a * c * (1.0 - c * self.a) / u ** 3)))

    def loss_sup(self) -> float:
        """ess sup L under P₀: finite iff every aᵢ < 0 and there is no linear part."""
        if self.singular:
            return math.inf
        if self._inner is not None:
            return self._inner.max_loss()
        if self.sigma2 > 0 or np.any(self.a > 0):
            return math.inf
        return self.c + float(np.sum(-self.b ** 2 / (4.0 * self.a)))

    max_loss = loss_sup

    def mismatch(self):
        return 1.0 if self.singular else 0.0

    def _saddle(self, eps: float) -> float:
        phi1 = lambda c: self._dK(c) - eps - 1.0 / c - 1.0 / (1.0 + c)  # noqa: E731
        lo = 1e-300
        for lo_try in (1e-8, 1e-12, 1e-16, 1e-30):
            if phi1(lo_try) < 0:
                lo = lo_try
                break
        if math.isfinite(self.s_max):
            hi = self.s_max * (1.0 - 1e-12)
        else:
            hi = 1.0
            while phi1(hi) <= 0:
                hi *= 2.0
                if hi > 1e12:
                    return hi
        return brentq(phi1, lo, hi, xtol=1e-300, rtol=1e-12, maxiter=500)

    @property
    def method(self) -> str:
        """How δ(ε) is computed: 'singular', 'gdp', 'normal-pair', 'conditional' or 'contour'."""
        if self.singular:
            return "singular"
        if self._inner is not None:
            return "gdp" if isinstance(self._inner, GaussianShiftProfile) else "normal-pair"
        if (self.a.size == 1 and self.sigma2 > 0) or (self.a.size == 2 and self.sigma2 == 0):
            return "conditional"
        return "contour"

    def delta_with_error(self, eps: float, method: str | None = None) -> tuple[float, float]:
        """(δ(ε), error bound): the rigorous aliasing + truncation bound for the contour
        method, the quadrature estimate + truncated mass for the conditional one, rtol·δ for
        closed forms.  ``method='contour'`` forces the Bromwich integral (for cross-checks)."""
        if self.singular:
            return 1.0, 0.0
        if self._inner is not None:
            v = self._inner._delta(eps)
            return v, self.tolerance.rtol * v
        log_d, bound = self._log_delta_with_error(eps, method)
        return math.exp(log_d), bound

    def _log_delta_with_error(self, eps, method=None):
        if eps >= self.loss_sup():
            return -math.inf, 0.0
        method = method or self.method
        if method == "conditional" and self.a.size == 1:
            return self._conditional(eps, self._inner_linear, [])
        if method == "conditional":
            return self._conditional(eps, self._inner_quadratic, self._quadratic_kinks(eps))
        return self._contour(eps)

    # -- low-rank cases: condition on one quadratic coordinate, closed form inside ----------------
    def _conditional(self, eps, inner, kinks):
        """ln ∫ φ(w) exp(inner(w, ε)) dw (:func:`~dpaudit.exact.profile.integrate_below_normal`), with panel edges
        at the kinks of the inner function."""
        return integrate_below_normal(
            lambda w: inner(w, eps) - 0.5 * w * w - 0.5 * _LOG_2PI, 1.0, kinks, rtol=1e-12)

    def _inner_linear(self, w, eps):
        """ln E[(1 − e^{ε−L})₊ | w] for L | w ~ N(μ_w, σ²), μ_w = c + aw² + bw:
        Φ(u) − e^{ε−μ_w+σ²/2} Φ(u − σ), u = (μ_w − ε)/σ."""
        sig = math.sqrt(self.sigma2)
        mu = self.c + self.a[0] * w * w + self.b[0] * w
        u = (mu - eps) / sig
        la = special.log_ndtr(u)
        diff = eps - mu + 0.5 * self.sigma2 + special.log_ndtr(u - sig) - la
        with np.errstate(divide="ignore", invalid="ignore"):
            return la + np.log(-np.expm1(np.minimum(diff, 0.0)))

    def _quadratic_kinks(self, eps):
        """Values of w₁ where the inner set {a₂w₂² + b₂w₂ > t(w₁)} changes shape."""
        a1, b1 = self.a[0], self.b[0]
        a2, b2 = self.a[1], self.b[1]
        t_star = -b2 * b2 / (4.0 * a2)         # t at which the inner discriminant vanishes
        # a₁w² + b₁w + (c − ε + t*) = 0
        C = self.c - eps + t_star
        disc = b1 * b1 - 4 * a1 * C
        if disc <= 0:
            return [-b1 / (2 * a1)]
        q = -0.5 * (b1 + math.copysign(math.sqrt(disc), b1))   # stable quadratic formula
        k1, k2 = q / a1, (C / q if q != 0 else -q / a1)
        return [k1, k2, -b1 / (2 * a1)]

    def _inner_quadratic(self, w, eps):
        """ln E[(1 − e^{t−ℓ(v)})₊], v ~ N(0,1), ℓ(v) = a₂v² + b₂v, t = ε − c − a₁w² − b₁w.

        With centre v* = −b₂/(2a₂), D = b₂² + 4a₂t and half-width r = √D₊/(2|a₂|), the pieces
        of {ℓ > t} are parametrised by their distance s from an end point, where ℓ − t takes
        the cancellation-free form a₂ s(s + 2r) + D₋/(4a₂) (a₂ > 0: two half-lines from
        v* ± r) or |a₂| s(2r − s) (a₂ < 0: the interval [v* − r, v* + r]).  Each piece,
        clipped to |v| ≤ 20 (mass outside < 3e-89), is integrated by 12 × 24-point
        Gauss–Legendre panels of φ(v)·(−expm1(−(ℓ − t))): no difference of two masses is
        ever formed, so narrow pieces (ε near sup L) keep their relative precision."""
        a1, b1, a2, b2 = self.a[0], self.b[0], self.a[1], self.b[1]
        w = np.asarray(w, float)
        t = eps - self.c - a1 * w * w - b1 * w
        kinks = self._quadratic_kinks(eps)
        if len(kinks) == 3:  # D(w) = −4a₁a₂(w − k₁)(w − k₂): no cancellation near the kinks
            disc = -4.0 * a1 * a2 * (w - kinks[0]) * (w - kinks[1])
        else:
            disc = b2 * b2 + 4.0 * a2 * t
        r = np.sqrt(np.maximum(disc, 0.0)) / (2.0 * abs(a2))
        centre = -b2 / (2.0 * a2)
        if a2 > 0:
            kappa = np.maximum(-disc, 0.0) / (4.0 * a2)
            total = (gl_normal_piece(centre + r, +1.0, np.inf, a2, 2 * r, kappa)
                     + gl_normal_piece(centre - r, -1.0, np.inf, a2, 2 * r, kappa))
        else:
            total = np.where(disc > 0, gl_normal_piece(centre - r, +1.0, 2 * r, a2, -2 * r, 0.0), 0.0)
        with np.errstate(divide="ignore"):
            return np.log(total)

    # -- general case: Bromwich integral by the trapezoidal rule ---------------------------------
    def _log_F(self, c, eps):
        return float(self.K(c)) - c * eps - math.log(c) - math.log1p(c)

    def _contour(self, eps):
        c = self._saddle(eps)
        phi2 = self._d2K(c) + 1.0 / c ** 2 + 1.0 / (1.0 + c) ** 2          # (ln F)'' at c
        log_est = self._log_F(c, eps) - 0.5 * math.log(2.0 * math.pi * max(phi2, 1e-300))
        if math.isfinite(self.s_max):
            # Near the branch point s_max the aliasing bound forces a step h ∝ s_max − c.
            # Stepping back to s_max − min(s_max/2, p/ε) costs a factor ≈ e^p in the size of
            # the integrand relative to δ (so in truncation length and round-off); p = 1 + r/2
            # (the decay exponent of |F|) roughly minimises the number of nodes.
            p = min(1.0 + 0.5 * self.a.size, 8.0)
            c = min(c, self.s_max - min(0.5 * self.s_max, p / max(eps, 1e-300)))
            phi2 = self._d2K(c) + 1.0 / c ** 2 + 1.0 / (1.0 + c) ** 2
        ref = self._log_F(c, eps)                                             # ln F(c), real
        width = 1.0 / math.sqrt(max(phi2, 1e-300))
        dc = min(c, 0.5 * (self.s_max - c)) if math.isfinite(self.s_max) else c
        c2 = c + dc
        log_m2 = float(self.K(c2)) - c2 * eps                                # ln M(c′)e^{−c′ε}
        for _ in range(6):
            target = math.log(self.TARGET / 3.0) + log_est                  # per error term
            # q ≤ ½ and 2q ≤ e^target; r ≤ ½ and 2r·M(c′)e^{−c′ε} ≤ e^target
            h = min(2.0 * math.pi * c / max(math.log(2.0) - target, math.log(2.0)),
                    2.0 * math.pi * dc / max(log_m2 - target + math.log(2.0), math.log(2.0)),
                    0.5 * width)
            Y = 8.0 * width

            def log_trunc(y):
                # ∫_y^∞ |F| ≤ |M(c+iy)| e^{−cε} Π ρᵢ^{½} / (π y (1 + r/2)), using
                # |1 − 2(c+iu)aᵢ| ≥ (u/y)|1 − 2(c+iy)aᵢ|/ρᵢ for u ≥ y, ρᵢ² = 1 + (1−2caᵢ)²/(2yaᵢ)²
                rho2 = 1.0 + ((1.0 - 2.0 * c * self.a) / (2.0 * y * self.a)) ** 2
                return (float(np.real(self.K(c + 1j * y))) - c * eps - math.log(math.pi * y)
                        + 0.25 * float(np.sum(np.log(rho2))) - math.log1p(0.5 * self.a.size))
            while log_trunc(Y) > target and Y / h < self.MAX_NODES:
                Y *= 1.5
            n = int(min(self.MAX_NODES, math.ceil(Y / h)))
            total = 0.0
            for start in range(0, n + 1, 1 << 19):  # chunks bound the memory
                y = h * np.arange(start, min(n + 1, start + (1 << 19)))
                s = c + 1j * y
                logF = self.K(s) - s * eps - np.log(s) - np.log1p(s) - ref
                vals = np.real(np.exp(logF))
                if start == 0:
                    vals[0] *= 0.5
                total += float(vals.sum())
            total *= h / math.pi
            qn = math.exp(-2.0 * math.pi * c / h)
            rn = math.exp(-2.0 * math.pi * dc / h)
            bound = (qn / (1 - qn) + math.exp(log_m2) * rn / (1 - rn)
                     + math.exp(log_trunc(n * h)))
            log_delta = ref + math.log(total) if total > 0 else -math.inf
            if log_delta > -math.inf and bound <= self.TARGET * math.exp(log_delta):
                return log_delta, bound
            if n >= self.MAX_NODES:  # node budget exhausted: report the (honest) bound
                return log_delta, bound
            log_est = (log_delta if log_delta > -math.inf else log_est) - math.log(10.0)
        return log_delta, bound

    def _delta(self, eps):
        return self.delta_with_error(eps)[0]

    def _log_delta(self, eps):
        if self.singular:
            return 0.0
        if self._inner is not None:
            return self._inner._log_delta(eps)
        return self._log_delta_with_error(eps)[0]

    def total_variation(self):
        return 1.0 if self.singular else self._delta(0.0)

    def _renyi(self, alpha):
        if self.singular:
            return math.inf
        if self.full_rank:
            return gaussian_renyi(*self._args, alpha)
        return self.renyi_from_cgf(alpha)

    def renyi_from_cgf(self, alpha: float) -> float:
        """D_α = K(α − 1)/(α − 1) in the diagonal coordinates (∞ outside the domain of K);
        α = 1: KL = E_{P₀}[L] = c + Σ aᵢ."""
        if self.singular:
            return math.inf
        lam, dlt = self._lam, self._dlt
        a_all = (lam - 1.0) / 2.0
        b_all = -np.sqrt(lam) * dlt
        c = float(np.sum(-0.5 * np.log(lam) + 0.5 * dlt ** 2))
        if alpha == 1.0:
            return c + float(np.sum(a_all))
        s = alpha - 1.0
        one = 1.0 - 2.0 * s * a_all
        if np.any(one <= 0):
            return math.inf
        k = s * c + float(np.sum(-0.5 * np.log(one) + s * s * b_all ** 2 / (2.0 * one)))
        return k / s


__all__ = ["mahalanobis", "equal_covariance_profile", "IsotropicGaussianProfile",
           "GaussianProfile"]
