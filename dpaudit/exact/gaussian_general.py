"""Exact privacy profiles of two Gaussians with general covariances, N(μ₀, Σ₀) vs N(μ₁, Σ₁).

The third construction of :mod:`dpaudit.exact.gaussian_pairs` (see its docstring for the
method and the tolerances): the privacy-loss law by characteristic-function inversion, with
the conditional and contour evaluations cross-checked in the tests.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special
from scipy.optimize import brentq

from dpaudit.exact.mixtures import NormalPairProfile, gl_normal_piece
from dpaudit.exact.profile import (GaussianShiftProfile, PrivacyProfile, Tolerance,
                                   integrate_below_normal)
from dpaudit.exact.renyi import gaussian_renyi

_LOG_2PI = math.log(2.0 * math.pi)


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


__all__ = ["GaussianProfile"]
