"""Exact privacy profiles of one-dimensional pairs whose set {L > ε} is a finite union of
intervals: Gaussian mixtures (a single Gaussian vs a mixture, two mixtures, two normals with
different variances), and the interval machinery (:class:`IntervalProfile`) that
:mod:`dpaudit.exact.laplace_pairs` builds Laplace pairs with different scales on.

Method.  For a 1-D pair the optimal event of the hockey-stick divergence is
S_ε = {x : L(x) > ε}, L = ln p₀ − ln p₁, so

    δ(ε) = Σ_{pieces A of S_ε} P₀(A) − e^ε P₁(A),

and each piece's masses are closed-form CDF differences (Φ, or the Laplace CDF, per
component, combined with logsumexp).  The sum is evaluated piece by piece in log space
(:func:`~dpaudit.exact.profile.log_hockey_piece`): no quadrature is needed for δ once the
end points of the pieces are known.  Whatever end points are used, the value is
P₀(S) − e^ε P₁(S) for some event S, so it never exceeds the true δ(ε): a missed piece can
only make the result smaller.

End points.  Normal vs normal: the roots of a quadratic (stable formula).  Laplace vs
Laplace: L is linear between the two locations, so the roots are exact.  Mixtures: L is
tabulated once on a grid of spacing min(scale)/16 over [min(m − 12s), max(m + 12s)]; every
local extremum of L on the grid is refined by vectorised golden-section search and inserted,
so a pair of roots is missed only if L has two extrema inside one grid cell; the sign changes
of L − ε are refined by vectorised bisection to machine precision.  The pieces are clipped to
that range, which drops at most P₀(outside) ≤ Φ̄(12) ≈ 2e-33.  Densities are always evaluated
as logsumexp over components, so mixtures of 10³–10⁴ equal-weight Gaussians (the law of an
SGLD step) take milliseconds per δ.

Rényi.  D_α by vectorised adaptive Gauss–Legendre quadrature of exp(α ln p₀ + (1−α) ln p₁)
on panels of the grid (relative error estimate 1e-10), with the tails extended until
negligible; divergence of the integral (α > 1 and p₁ with lighter tails) is detected
analytically from the dominant tail components and returned as ∞.  Laplace pairs: exact,
∫ of a piecewise exponential.

Tolerances (``tolerance`` attribute).  Normal and Laplace pairs: rtol 1e-10 (cancellation
between the two masses of a piece; a normal pair's narrow piece near sup L is integrated
directly in a cancellation-free form).  Mixtures: rtol 1e-9, atol 1e-30, except within
≈1e-4 of sup L (when L is bounded), where a piece of width w loses ≈ 1e-16/(w²|L''|) relative
precision (the masses P₀(A) and e^ε P₁(A) then agree to many digits; the conditioning of δ
itself in ε is of the same order there).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import log_ndtr, logsumexp

from dpaudit.exact.profile import (PrivacyProfile, Tolerance, gauss_legendre_panels,
                                   log1mexp, log_hockey_piece)
from dpaudit.exact.renyi import isotropic_gaussian_renyi

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_GRID_TAIL = 12.0          # range half-width in component scales (Φ̄(12) ≈ 1.8e-33)
_GRID_PER_SCALE = 16       # grid points per smallest component scale
_GRID_MAX = 2_000_000
_CHUNK = 1 << 22           # grid points × components evaluated at once


# --- one-dimensional laws --------------------------------------------------------------------
def _log_cdf_std_laplace(z):
    z = np.asarray(z, float)
    return np.where(z < 0, math.log(0.5) + np.minimum(z, 0.0),
                    np.log1p(-0.5 * np.exp(-np.maximum(z, 0.0))))


def _log_std_mass(za, zb, log_cdf):
    """ln(F(zb) − F(za)) for a symmetric standard law with log-CDF ``log_cdf`` (za ≤ zb),
    using the upper tail when za ≥ 0 so neither side cancels catastrophically."""
    za, zb = np.broadcast_arrays(np.asarray(za, float), np.asarray(zb, float))
    flip = za >= 0
    lo = np.where(flip, -zb, za)
    hi = np.where(flip, -za, zb)
    lhi, llo = log_cdf(hi), log_cdf(lo)
    with np.errstate(invalid="ignore"):
        out = lhi + log1mexp(np.minimum(llo - lhi, 0.0))
    return np.where(hi > lo, out, -np.inf)


_GL_X, _GL_W = np.polynomial.legendre.leggauss(24)
_GL_SUB = 12


def gl_normal_piece(v0, direction, s_max, qa, qb, qc, mean=0.0, sd=1.0, clip=20.0):
    """∫ N(v; mean, sd²)·(−expm1(−q(s))) ds over v = v0 + direction·s, s ∈ [0, s_max],
    restricted to |v − mean| ≤ clip·sd (mass outside < 3e-89 for clip = 20), where
    q(s) = qa·s·(s + qb) + qc ≥ 0 is the loss above its threshold written in a
    cancellation-free form.  12 × 24-point Gauss–Legendre panels; arrays broadcast."""
    v0, s_max, qb, qc = np.broadcast_arrays(*(np.asarray(x, float) for x in (v0, s_max, qb, qc)))
    lo_v, hi_v = mean - clip * sd, mean + clip * sd
    if direction > 0:
        lo, hi = np.maximum(0.0, lo_v - v0), np.minimum(s_max, hi_v - v0)
    else:
        lo, hi = np.maximum(0.0, v0 - hi_v), np.minimum(s_max, v0 - lo_v)
    hi = np.maximum(hi, lo)
    width = (hi - lo) / _GL_SUB
    starts = lo[..., None] + width[..., None] * np.arange(_GL_SUB)
    s = starts[..., None] + (width[..., None, None] / 2) * (_GL_X + 1.0)
    q = qa * s * (s + qb[..., None, None]) + qc[..., None, None]
    z = (v0[..., None, None] + direction * s - mean) / sd
    f = np.exp(-0.5 * z * z - _LOG_SQRT_2PI) / sd * -np.expm1(-np.maximum(q, 0.0))
    return (f @ _GL_W).sum(axis=-1) * width / 2


class Law1D:
    """A finite mixture Σ wⱼ K((x − mⱼ)/sⱼ)/sⱼ with K the standard normal or Laplace density."""

    def __init__(self, weights, means, scales, kind: str = "normal"):
        w = np.atleast_1d(np.asarray(weights, float))
        m = np.atleast_1d(np.asarray(means, float))
        s = np.atleast_1d(np.asarray(scales, float))
        w, m, s = np.broadcast_arrays(w, m, s)
        if kind not in ("normal", "laplace"):
            raise ValueError(f"kind must be 'normal' or 'laplace', got {kind!r}")
        if not (np.all(np.isfinite(m)) and np.all(np.isfinite(s)) and np.all(s > 0)):
            raise ValueError("means must be finite and scales finite and > 0")
        if not (np.all(np.isfinite(w)) and np.all(w >= 0) and w.sum() > 0):
            raise ValueError("weights must be ≥ 0 with a positive sum")
        keep = w > 0
        self.log_w = np.log(w[keep] / w.sum())
        self.means, self.scales, self.kind = m[keep].copy(), s[keep].copy(), kind
        self._log_norm = self.log_w - np.log(self.scales) - (
            _LOG_SQRT_2PI if kind == "normal" else math.log(2.0))

    @property
    def size(self) -> int:
        return self.means.size

    def log_pdf(self, x) -> np.ndarray:
        x = np.asarray(x, float)
        flat = x.ravel()
        out = np.empty(flat.size)
        step = max(1, _CHUNK // self.size)
        for i in range(0, flat.size, step):
            z = (flat[i:i + step, None] - self.means) / self.scales
            k = -0.5 * z * z if self.kind == "normal" else -np.abs(z)
            out[i:i + step] = logsumexp(self._log_norm + k, axis=1)
        return out.reshape(x.shape)

    def log_mass(self, a, b) -> np.ndarray:
        """ln P([a, b]) for arrays of interval ends (±inf allowed)."""
        a, b = np.atleast_1d(np.asarray(a, float)), np.atleast_1d(np.asarray(b, float))
        za = (a[:, None] - self.means) / self.scales
        zb = (b[:, None] - self.means) / self.scales
        log_cdf = log_ndtr if self.kind == "normal" else _log_cdf_std_laplace
        return logsumexp(self.log_w + _log_std_mass(za, zb, log_cdf), axis=1)

    def support_range(self, tail: float = _GRID_TAIL) -> tuple[float, float]:
        """[min(m − tail·s), max(m + tail·s)]: P(outside) ≤ Φ̄(tail) for normal mixtures."""
        return (float(np.min(self.means - tail * self.scales)),
                float(np.max(self.means + tail * self.scales)))


# --- the common interval-based profile ----------------------------------------------------------
class IntervalProfile(PrivacyProfile):
    """δ(ε) = Σ_pieces P₀(A) − e^ε P₁(A) over the pieces of {L > ε} (see the module doc).
    Subclasses provide ``_intervals(eps) -> (a, b)`` arrays."""

    tolerance = Tolerance(1e-10)

    def __init__(self, law0: Law1D, law1: Law1D):
        self.law0, self.law1 = law0, law1

    def loss(self, x) -> np.ndarray:
        """The privacy loss L(x) = ln p₀(x) − ln p₁(x)."""
        return self.law0.log_pdf(x) - self.law1.log_pdf(x)

    def _intervals(self, eps: float):  # pragma: no cover - abstract
        raise NotImplementedError

    def _log_delta(self, eps):
        a, b = self._intervals(eps)
        if len(a) == 0:
            return -math.inf
        pieces = log_hockey_piece(self.law0.log_mass(a, b), self.law1.log_mass(a, b), eps)
        return float(logsumexp(pieces)) if np.any(pieces > -np.inf) else -math.inf

    def _delta(self, eps):
        return math.exp(self._log_delta(eps))


def _runs(above: np.ndarray, roots: np.ndarray, lo: float, hi: float):
    """Pieces where ``above`` holds on consecutive grid points; ``roots[i]`` is the crossing
    between points i and i+1."""
    change = np.flatnonzero(above[1:] != above[:-1])
    starts = [lo] if above[0] else []
    ends = []
    for i in change:
        (starts if above[i + 1] else ends).append(roots[i])
    if above[-1]:
        ends.append(hi)
    return np.asarray(starts, float), np.asarray(ends, float)


class GaussianMixtureProfile(IntervalProfile):
    """P₀ = Σ wⱼ N(mⱼ, sⱼ²) vs P₁ = Σ vₖ N(nₖ, tₖ²) on the real line (either may have one
    component).  δ(ε) exact up to rtol 1e-9 + atol 1e-30 (module docstring); the computed
    value is never above the true δ by more than the rounding of the masses."""

    tolerance = Tolerance(1e-9, 1e-30)

    def __init__(self, weights0, means0, scales0, weights1, means1, scales1):
        super().__init__(Law1D(weights0, means0, scales0), Law1D(weights1, means1, scales1))
        self.name = f"mixture({self.law0.size} vs {self.law1.size} normals)"
        self._grid = None

    def reversed(self):
        l0, l1 = self.law0, self.law1
        return GaussianMixtureProfile(np.exp(l1.log_w), l1.means, l1.scales,
                                      np.exp(l0.log_w), l0.means, l0.scales)

    # -- grid of L with its refined extrema (cached; independent of ε) ------------------------
    def grid(self):
        if self._grid is not None:
            return self._grid
        lo0, hi0 = self.law0.support_range()
        lo1, hi1 = self.law1.support_range()
        lo, hi = min(lo0, lo1), max(hi0, hi1)
        s_min = min(self.law0.scales.min(), self.law1.scales.min())
        n = int(min(_GRID_MAX, max(257, math.ceil((hi - lo) / s_min * _GRID_PER_SCALE) + 1)))
        x = np.linspace(lo, hi, n)
        g = self.loss(x)
        # local extrema on the grid → refine in [x_{i−1}, x_{i+1}] and insert
        inner = np.arange(1, n - 1)
        is_max = (g[inner] >= g[inner - 1]) & (g[inner] >= g[inner + 1])
        is_min = (g[inner] <= g[inner - 1]) & (g[inner] <= g[inner + 1])
        extra = []
        for sign, sel in ((1.0, is_max), (-1.0, is_min)):
            idx = inner[sel]
            if idx.size:
                extra.append(self._golden(x[idx - 1], x[idx + 1], sign))
        if extra:
            xe = np.concatenate(extra)
            x = np.concatenate([x, xe])
            g = np.concatenate([g, self.loss(xe)])
            order = np.argsort(x, kind="stable")
            x, g = x[order], g[order]
        self._grid = (x, g)
        return self._grid

    def _golden(self, a, b, sign, iters: int = 80):
        """Vectorised golden-section search for the max (sign=+1) / min (−1) of L on [a, b]."""
        r = (math.sqrt(5.0) - 1.0) / 2.0
        a, b = a.copy(), b.copy()
        c, d = b - r * (b - a), a + r * (b - a)
        fc, fd = sign * self.loss(c), sign * self.loss(d)
        for _ in range(iters):
            left = fc > fd  # maximum in [a, d]
            b = np.where(left, d, b)
            a = np.where(left, a, c)
            c_new = b - r * (b - a)
            d_new = a + r * (b - a)
            c, d = c_new, d_new
            fc, fd = sign * self.loss(c), sign * self.loss(d)
            if np.all(b - a <= 1e-14 * (1.0 + np.abs(a))):
                break
        return 0.5 * (a + b)

    def _bisect(self, a, b, eps, iters: int = 70):
        fa = self.loss(a) - eps
        for _ in range(iters):
            m = 0.5 * (a + b)
            fm = self.loss(m) - eps
            same = np.sign(fm) == np.sign(fa)
            a, fa = np.where(same, m, a), np.where(same, fm, fa)
            b = np.where(same, b, m)
            if np.all(b - a <= 4e-16 * (1.0 + np.abs(a))):
                break
        return 0.5 * (a + b)

    def _intervals(self, eps):
        x, g = self.grid()
        above = g > eps
        cross = np.flatnonzero(above[1:] != above[:-1])
        roots = np.full(x.size - 1, np.nan)
        if cross.size:
            roots[cross] = self._bisect(x[cross], x[cross + 1], eps)
        return _runs(above, roots, x[0], x[-1])

    def _tail_limit(self, side: int) -> float:
        """lim L(x) as x → side·∞ (+inf, a finite limit, or −inf), from the dominant
        components: the largest scale, then the outermost mean on that side."""
        parts = []
        for law in (self.law0, self.law1):
            s = law.scales.max()
            top = law.scales >= s * (1 - 1e-12)
            m = side * np.max(side * law.means[top])
            at = top & (law.means == m)
            parts.append((s, m, float(logsumexp(law.log_w[at]))))
        (s0, m0, w0), (s1, m1, w1) = parts
        if s0 != s1:
            return math.inf if s0 > s1 else -math.inf
        if m0 != m1:
            return math.inf if side * (m0 - m1) > 0 else -math.inf
        return w0 - w1

    def max_loss(self):
        """sup L: the grid maximum (which contains the refined local maxima) or a tail limit."""
        limits = [self._tail_limit(-1), self._tail_limit(+1)]
        if max(limits) == math.inf:
            return math.inf
        x, g = self.grid()
        return float(max(g.max(), *limits))

    # -- Rényi ------------------------------------------------------------------------------
    def _tail_converges(self, alpha: float) -> bool:
        coeffs = []
        for law in (self.law0, self.law1):
            s = law.scales.max()
            top = law.scales >= s * (1 - 1e-12)
            coeffs.append((s, law.means[top].max(), law.means[top].min()))
        (s0, hi0, lo0), (s1, hi1, lo1) = coeffs
        quad = -0.5 * (alpha / s0 ** 2 + (1 - alpha) / s1 ** 2)
        scale = 0.5 * (alpha / s0 ** 2 + abs(1 - alpha) / s1 ** 2)
        if quad < -1e-12 * scale:
            return True
        if quad > 1e-12 * scale:
            return False
        lin_right = alpha * hi0 / s0 ** 2 + (1 - alpha) * hi1 / s1 ** 2
        lin_left = alpha * lo0 / s0 ** 2 + (1 - alpha) * lo1 / s1 ** 2
        return lin_right < 0 < lin_left

    def _renyi(self, alpha):
        if alpha > 1 and not self._tail_converges(alpha):
            return math.inf
        x, g = self.grid()
        lo, hi = float(x[0]), float(x[-1])
        if alpha == 1.0:
            def f(t):
                lp0 = self.law0.log_pdf(t)
                return np.exp(lp0) * (lp0 - self.law1.log_pdf(t))
            shift = 0.0
        else:
            def e(t):
                return alpha * self.law0.log_pdf(t) + (1 - alpha) * self.law1.log_pdf(t)
            shift = float(np.max(e(x)))
            for _ in range(60):  # widen until the integrand at the ends is negligible
                ends = e(np.array([lo, hi])) - shift
                if ends[0] < -80 and ends[1] < -80:
                    break
                w = 0.5 * (hi - lo)
                lo, hi = (lo - w if ends[0] >= -80 else lo), (hi + w if ends[1] >= -80 else hi)
            f = lambda t: np.exp(e(t) - shift)  # noqa: E731
        s_min = min(self.law0.scales.min(), self.law1.scales.min())
        n_panels = int(min(20_000, max(64, (hi - lo) / s_min)))
        total, _ = gauss_legendre_panels(f, np.linspace(lo, hi, n_panels + 1), rtol=1e-11)
        if alpha == 1.0:
            return total
        return (math.log(total) + shift) / (alpha - 1.0)


class NormalPairProfile(IntervalProfile):
    """N(m₀, s₀²) vs N(m₁, s₁²) on the real line, exactly.

    L(x) = ln(s₁/s₀) − (x−m₀)²/(2s₀²) + (x−m₁)²/(2s₁²) is quadratic, so {L > ε} is a
    half-line, an interval, the complement of an interval, ∅ or ℝ, with end points from the
    stable quadratic formula; δ(ε) = Σ_pieces Φ-differences in log space.  D_α closed form
    (:func:`~dpaudit.exact.renyi.isotropic_gaussian_renyi` with d = 1).  L is unbounded above
    (ε(0) = ∞) unless s₀ < s₁, when sup L = C − B²/(4A).  A, B, C are the coefficients in
    u = x − m₀ (no cancellation when |m₀| ≫ s₀).  Tolerance rtol 1e-10."""

    def __init__(self, mean0: float, scale0: float, mean1: float, scale1: float):
        super().__init__(Law1D(1.0, mean0, scale0), Law1D(1.0, mean1, scale1))
        self.m0, self.s0, self.m1, self.s1 = (float(v) for v in (mean0, scale0, mean1, scale1))
        self.name = f"N({self.m0:.4g},{self.s0:.4g}²) vs N({self.m1:.4g},{self.s1:.4g}²)"
        # L(x) = A u² + B u + C in u = x − m₀: written around m₀ so that means far from 0
        # relative to the scales (e.g. 10⁶ ± 10⁻⁴) do not cancel catastrophically in B and C
        self.shift = self.m0
        d = self.m1 - self.m0
        self.A = 0.5 / self.s1 ** 2 - 0.5 / self.s0 ** 2
        self.B = -d / self.s1 ** 2
        self.C = math.log(self.s1 / self.s0) + 0.5 * (d / self.s1) ** 2

    def reversed(self):
        return NormalPairProfile(self.m1, self.s1, self.m0, self.s0)

    def _log_delta(self, eps):
        """Closed form, except when {L > ε} is a short interval near the maximum of L (s₀ < s₁,
        ε close to sup L), where P₀(I) ≈ e^ε P₁(I): then ∫_I p₀(1 − e^{ε−L}) is integrated
        directly with L − ε = |A| s(2r − s), r = √((sup L − ε)/|A|), s = x − (x* − r)."""
        if self.A < 0:
            gap = self.max_loss() - eps
            if gap <= 0:
                return -math.inf
            r = math.sqrt(gap / -self.A)
            lo = self.shift - self.B / (2 * self.A) - r
            lp0 = float(self.law0.log_mass(lo, lo + 2 * r)[0])
            lp1 = float(self.law1.log_mass(lo, lo + 2 * r)[0])
            if eps + lp1 - lp0 > math.log(0.5):
                val = float(gl_normal_piece(lo, 1.0, 2 * r, self.A, -2 * r, 0.0,
                                            mean=self.m0, sd=self.s0))
                return math.log(val) if val > 0 else -math.inf
        return super()._log_delta(eps)

    def _intervals(self, eps):
        a, b = self._intervals_u(eps)
        return a + self.shift, b + self.shift       # ±inf stay infinite

    def _intervals_u(self, eps):
        A, B, C = self.A, self.B, self.C - eps
        inf = math.inf
        if A == 0.0:  # equal scales: L is linear
            if B == 0:
                return (np.array([-inf]), np.array([inf])) if C > 0 else (np.array([]),) * 2
            r = -C / B
            return (np.array([r]), np.array([inf])) if B > 0 else (np.array([-inf]), np.array([r]))
        disc = B * B - 4 * A * C
        if disc <= 0:
            return (np.array([-inf]), np.array([inf])) if A > 0 else (np.array([]),) * 2
        q = -0.5 * (B + math.copysign(math.sqrt(disc), B))
        r1, r2 = sorted((q / A, C / q if q != 0 else -q / A))
        if A > 0:
            return np.array([-inf, r2]), np.array([r1, inf])
        return np.array([r1]), np.array([r2])

    def max_loss(self):
        return self.C - self.B ** 2 / (4 * self.A) if self.A < 0 else math.inf

    def _renyi(self, alpha):
        return isotropic_gaussian_renyi(abs(self.m1 - self.m0), self.s0, self.s1, 1, alpha)


__all__ = ["Law1D", "IntervalProfile", "GaussianMixtureProfile", "NormalPairProfile"]
