"""The common privacy-profile object: δ(ε), its inverse ε(δ) and Rényi divergences of a pair.

Contract.  A :class:`PrivacyProfile` describes one *ordered* pair of output laws P₀ (on D₀)
and P₁ (on D₁).  With the privacy loss L = ln(p₀/p₁) (+∞ where p₁ = 0) it provides

* ``delta(eps)``  — the hockey-stick divergence δ(ε) = sup_S P₀(S) − e^ε P₁(S)
  = E_{P₀}[(1 − e^{ε−L})₊], for ε ≥ 0 (scalar or array);
* ``epsilon(delta)`` — the smallest ε ≥ 0 with δ(ε) ≤ δ.  δ(ε) is continuous and
  non-increasing, from the total variation δ(0) = TV down to the support-mismatch mass
  m∞ = P₀(p₁ = 0) = lim_{ε→∞} δ(ε).  Hence ε(δ) = 0 when δ ≥ TV, ε(δ) = ∞ when δ < m∞,
  ε(m∞) = ess sup_{P₀} L on the common support (:meth:`max_loss`, possibly ∞), and otherwise
  the unique root of ln δ(ε) = ln δ, found by ``brentq`` on the log scale (so δ down to 1e-300
  keeps full relative precision); ε above :data:`EPS_MAX` is reported as ∞;
* ``renyi(alpha)`` — D_α(P₀‖P₁) = (α−1)⁻¹ ln ∫ p₀^α p₁^{1−α}, α ∈ (0, ∞]; α = 1 is the
  Kullback–Leibler divergence E_{P₀}[L], α = ∞ is ess sup L;
* ``tolerance`` — a :class:`Tolerance` (rtol, atol): every value returned by ``delta`` is
  within rtol·δ + atol of the true δ(ε).  ε(δ) then errs by at most
  (rtol·δ + atol)/|δ'(ε)| + 1e-12·(1 + ε), where δ'(ε) = −e^ε P₁(L > ε).

:meth:`PrivacyProfile.reversed` is the pair (P₁, P₀); :meth:`PrivacyProfile.symmetric`
combines both directions into the DP profile of the pair: δ = max(δ₀₁, δ₁₀),
ε = max(ε₀₁, ε₁₀), D_α = max of both directions.  Invariant: a profile is immutable and its
numbers depend only on its parameters.

This module also holds the closed-form wrappers (:class:`GaussianShiftProfile` for μ-GDP,
:class:`DiscreteProfile` for finite laws) and small log-space numerics shared by the others.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq
from scipy.special import log_ndtr, logsumexp, ndtr, ndtri

from dpaudit.exact.arguments import check_curve_delta
from dpaudit.exact.discrete import discrete_delta, discrete_epsilon
from dpaudit.exact.gaussian import gaussian_delta, gaussian_epsilon

#: ε(δ) larger than this is reported as ∞ (δ(EPS_MAX) is far below 1e-300 for every pair here)
EPS_MAX = 1.0e4
#: ln δ is clipped here inside the root finder (δ underflows below ~1e-320)
_LOG_FLOOR = -1000.0


@dataclass(frozen=True)
class Tolerance:
    """|δ̂(ε) − δ(ε)| ≤ rtol·δ(ε) + atol for every value a profile returns."""

    rtol: float
    atol: float = 0.0

    def worst(self, other: "Tolerance") -> "Tolerance":
        return Tolerance(max(self.rtol, other.rtol), max(self.atol, other.atol))

    def __str__(self) -> str:
        return f"rtol={self.rtol:.1g}, atol={self.atol:.1g}"


# --- log-space helpers ------------------------------------------------------------------------
def log1mexp(x):
    """ln(1 − eˣ) for x ≤ 0 (−inf at x = 0), accurate on both sides of −ln 2 (Mächler 2012)."""
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(x > -math.log(2.0), np.log(-np.expm1(np.minimum(x, 0.0))),
                       np.log1p(-np.exp(np.minimum(x, 0.0))))
    return out if out.ndim else float(out)


def log_hockey_piece(log_p0, log_p1, eps):
    """ln(P₀(A) − e^ε P₁(A)) from ln P₀(A), ln P₁(A); −inf when the difference is ≤ 0.

    Used on the connected pieces A of {L > ε}, where p₀ > e^ε p₁ pointwise, so the difference
    is ≥ 0 and is computed as P₀(A)·(−expm1(ε + ln P₁(A) − ln P₀(A))) without cancellation
    beyond that of the two masses themselves."""
    lp0, lp1 = np.asarray(log_p0, float), np.asarray(log_p1, float)
    diff = np.where(lp0 > -np.inf, eps + lp1 - np.where(lp0 > -np.inf, lp0, 0.0), 0.0)
    out = np.where((lp0 > -np.inf) & (diff < 0), lp0 + log1mexp(np.minimum(diff, 0.0)), -np.inf)
    return out if out.ndim else float(out)


def gauss_legendre_panels(f, edges, *, rtol=1e-11, atol=0.0, order=24, max_panels=20_000):
    """∫ f over [edges[0], edges[-1]] by adaptive, vectorised Gauss–Legendre panels.

    ``f`` maps an array of points to values.  Each panel is integrated with ``order`` and
    2·``order`` nodes; a panel is accepted when the two estimates differ by at most its share
    of rtol·|I| + atol or by at most rtol·∫_panel |f| (so the total error estimate is
    ≤ rtol·(|I| + ∫|f|) + atol, i.e. ≤ 2·rtol·|I| + atol for f ≥ 0); others are halved.  Returns (integral, error estimate = Σ|I₂ₙ − Iₙ| over the
    accepted panels).  ``edges`` must contain every kink of f (f is analytic inside panels)."""
    xn, wn = np.polynomial.legendre.leggauss(order)
    x2, w2 = np.polynomial.legendre.leggauss(2 * order)
    a = np.asarray(edges[:-1], float)
    b = np.asarray(edges[1:], float)
    keep = b > a
    a, b = a[keep], b[keep]
    total, err = 0.0, 0.0
    accepted = []
    for _ in range(60):
        if a.size == 0:
            break
        mid, half = 0.5 * (a + b), 0.5 * (b - a)
        vn = f((mid[:, None] + half[:, None] * xn).ravel()).reshape(a.size, order)
        v2 = f((mid[:, None] + half[:, None] * x2).ravel()).reshape(a.size, 2 * order)
        i_n = half * (vn @ wn)
        i_2 = half * (v2 @ w2)
        e = np.abs(i_2 - i_n)
        estimate = total + float(i_2.sum())
        budget = (rtol * abs(estimate) + atol) * (b - a) / max(edges[-1] - edges[0], 1e-300)
        local = half * (np.abs(v2) @ w2)                          # ∫|f| over the panel
        ok = (e <= np.maximum(budget, np.maximum(rtol, 64 * np.finfo(float).eps) * local)) | (
            half < 1e-13 * (1.0 + np.abs(mid)))
        total += float(i_2[ok].sum())
        err += float(e[ok].sum())
        accepted.append(int(ok.sum()))
        a, b = a[~ok], b[~ok]
        if a.size:
            m = 0.5 * (a + b)
            a, b = np.concatenate([a, m]), np.concatenate([m, b])
        if a.size + sum(accepted) > max_panels:
            mid, half = 0.5 * (a + b), 0.5 * (b - a)
            v2 = f((mid[:, None] + half[:, None] * x2).ravel()).reshape(a.size, 2 * order)
            rest = half * (v2 @ w2)
            total += float(rest.sum())
            err += float(np.abs(rest).sum())
            break
    return total, err


def integrate_below_normal(log_f, scale, kinks, rtol=1e-11):
    """(ln ∫ e^{log_f(x)} dx, error bound) for an integrand bounded by the N(0, scale²)
    density, integrated over |x| ≤ K·scale by adaptive Gauss–Legendre panels (edges every
    scale/4 and at ``kinks``).  K starts at 12 and grows (to at most 38) until the neglected
    mass 2Φ̄(K) is ≤ 1e-12 × the result, so deep tails keep their relative precision."""
    K = 12.0
    for _ in range(4):
        x = np.linspace(-K * scale, K * scale, 4001)
        shift = float(np.max(log_f(x)))
        if shift == -math.inf:
            return -math.inf, 0.0
        edges = np.unique(np.concatenate([np.linspace(-K * scale, K * scale, int(8 * K) + 1),
                                          [k for k in kinks if abs(k) < K * scale]]))
        val, err = gauss_legendre_panels(lambda t: np.exp(log_f(t) - shift), edges, rtol=rtol)
        if val <= 0:
            return -math.inf, 0.0
        log_val = shift + math.log(val)
        log_trunc = math.log(2.0) + float(log_ndtr(-K))
        if log_trunc <= log_val + math.log(1e-12) or K >= 38.0:
            return log_val, math.exp(shift) * err + math.exp(log_trunc)
        K = min(38.0, float(-ndtri(0.5e-13 * math.exp(log_val))) + 0.5)
    return log_val, math.exp(shift) * err + math.exp(log_trunc)


# --- the profile object ------------------------------------------------------------------------
class PrivacyProfile:
    """δ_{P₀‖P₁}(ε), ε(δ) and D_α(P₀‖P₁) of one ordered pair (see the module docstring).

    Subclasses implement ``_delta(eps)`` (scalar ε ≥ 0) and optionally ``_log_delta``,
    ``_renyi``, ``mismatch``, ``max_loss``, ``reversed`` and an exact ``epsilon``."""

    tolerance: Tolerance = Tolerance(1e-12)
    name = "pair"

    # -- subclass hooks ---------------------------------------------------------------------
    def _delta(self, eps: float) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    def _log_delta(self, eps: float) -> float:
        d = self._delta(eps)
        return math.log(d) if d > 0 else -math.inf

    def _renyi(self, alpha: float) -> float:  # pragma: no cover - abstract
        raise NotImplementedError(f"Rényi divergence not available for {self.name}")

    def mismatch(self) -> float:
        """m∞ = P₀(p₁ = 0) = lim_{ε→∞} δ(ε)."""
        return 0.0

    def max_loss(self) -> float:
        """ess sup_{P₀} L over {p₁ > 0}: the ε at which δ(ε) reaches m∞ (∞ if never)."""
        return math.inf

    def reversed(self) -> "PrivacyProfile":  # pragma: no cover - abstract
        raise NotImplementedError

    # -- public API ---------------------------------------------------------------------------
    def total_variation(self) -> float:
        """TV(P₀, P₁) = δ(0)."""
        return float(self._delta(0.0))

    def delta(self, eps):
        """δ(ε) = E_{P₀}[(1 − e^{ε−L})₊] for ε ≥ 0 (scalar → float, array → array)."""
        e = np.asarray(eps, dtype=float)
        if np.any(np.isnan(e)) or np.any(e < 0):
            raise ValueError(f"eps must be ≥ 0, got {eps!r}")
        flat = [self.mismatch() if math.isinf(v) else min(1.0, max(0.0, self._delta(float(v))))
                for v in e.ravel()]
        out = np.asarray(flat, dtype=float).reshape(e.shape)
        return out if out.ndim else float(out)

    def epsilon(self, delta: float) -> float:
        """Smallest ε ≥ 0 with δ(ε) ≤ ``delta`` (monotone inversion on the log scale)."""
        delta = check_curve_delta(delta)
        if delta >= 1.0:
            return 0.0
        m_inf = self.mismatch()
        if delta < m_inf:
            return math.inf
        if delta >= self.total_variation():
            return 0.0
        if delta <= m_inf:  # δ = m∞: reached exactly at the essential supremum of L
            return float(self.max_loss())
        target = math.log(delta)
        f = lambda e: max(self._log_delta(e), _LOG_FLOOR) - target  # noqa: E731
        lo, hi = 0.0, 1.0
        while f(hi) > 0:
            lo, hi = hi, 2.0 * hi
            if hi > EPS_MAX:
                return math.inf
        return float(brentq(f, lo, hi, xtol=1e-13, rtol=1e-13, maxiter=300))

    def renyi(self, alpha: float) -> float:
        """D_α(P₀‖P₁) for α ∈ (0, ∞]; α = 1 is KL, α = ∞ is ess sup L (may be ∞)."""
        alpha = float(alpha)
        if math.isnan(alpha) or alpha <= 0:
            raise ValueError(f"alpha must be > 0, got {alpha!r}")
        if math.isinf(alpha):
            return math.inf if self.mismatch() > 0 else float(self.max_loss())
        return float(self._renyi(alpha))

    def symmetric(self) -> "SymmetricProfile":
        """The DP profile of the pair: the worse of the two directions."""
        return SymmetricProfile(self, self.reversed())

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


PrivacyCurve = PrivacyProfile



class SymmetricProfile(PrivacyProfile):
    """Both directions of a pair: δ = max(δ₀₁, δ₁₀), ε = max(ε₀₁, ε₁₀), D_α = max."""

    def __init__(self, forward: PrivacyProfile, backward: PrivacyProfile):
        self.forward, self.backward = forward, backward
        self.tolerance = forward.tolerance.worst(backward.tolerance)
        self.name = f"max({forward.name}, reversed)"

    def _delta(self, eps):
        return max(self.forward._delta(eps), self.backward._delta(eps))

    def _log_delta(self, eps):
        return max(self.forward._log_delta(eps), self.backward._log_delta(eps))

    def mismatch(self):
        return max(self.forward.mismatch(), self.backward.mismatch())

    def max_loss(self):
        return max(self.forward.max_loss(), self.backward.max_loss())

    def total_variation(self):
        return max(self.forward.total_variation(), self.backward.total_variation())

    def epsilon(self, delta):
        return max(self.forward.epsilon(delta), self.backward.epsilon(delta))

    def renyi(self, alpha):
        return max(self.forward.renyi(alpha), self.backward.renyi(alpha))

    def reversed(self):
        return SymmetricProfile(self.backward, self.forward)


# --- closed-form wrappers -------------------------------------------------------------------------
class GaussianShiftProfile(PrivacyProfile):
    """N(0, σ²) vs N(μσ, σ²) (any dimension after whitening), i.e. μ-GDP.

    δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) (:mod:`dpaudit.exact.gaussian`, log space);
    D_α = αμ²/2; symmetric.  μ = ∞ is a mutually singular pair (δ ≡ 1).
    Tolerance: rtol 1e-12 (closed form)."""

    tolerance = Tolerance(1e-12)

    def __init__(self, mu: float):
        mu = float(mu)
        if math.isnan(mu) or mu < 0:
            raise ValueError(f"mu must be ≥ 0, got {mu!r}")
        self.mu = mu
        self.name = f"GDP(mu={mu:.6g})"

    def _delta(self, eps):
        return float(gaussian_delta(eps, self.mu))

    def _log_delta(self, eps):
        from dpaudit.exact.gaussian import gaussian_log_delta
        if self.mu == 0.0:
            return -math.inf
        if math.isinf(self.mu):
            return 0.0
        return gaussian_log_delta(eps, self.mu)

    def total_variation(self):
        return 1.0 if math.isinf(self.mu) else float(2.0 * ndtr(self.mu / 2.0) - 1.0)

    def mismatch(self):
        return 1.0 if math.isinf(self.mu) else 0.0

    def max_loss(self):
        return 0.0 if self.mu == 0.0 else math.inf

    def epsilon(self, delta):
        return gaussian_epsilon(check_curve_delta(delta), self.mu)

    def _renyi(self, alpha):
        return 0.5 * alpha * self.mu ** 2

    def reversed(self):
        return self


class DiscreteProfile(PrivacyProfile):
    """Finite laws p, q (probabilities or, with ``log_probs``, log-probabilities).

    δ(ε) = Σ (pᵢ − e^ε qᵢ)₊ and its exact inverse (:mod:`dpaudit.exact.discrete`);
    m∞ = Σ_{qᵢ=0} pᵢ; D_α = (α−1)⁻¹ ln Σ pᵢ^α qᵢ^{1−α} by enumeration in log space (∞ for
    α ≥ 1 when m∞ > 0).  Tolerance: rtol 1e-12 (exact enumeration)."""

    tolerance = Tolerance(1e-12, 1e-15)

    def __init__(self, p, q, *, log_probs: bool = False):
        p = np.asarray(p, dtype=float).ravel()
        q = np.asarray(q, dtype=float).ravel()
        if p.shape != q.shape:
            raise ValueError(f"p and q must have the same length, got {p.size} and {q.size}")
        with np.errstate(divide="ignore", invalid="ignore"):
            self.lp = p if log_probs else np.log(p)
            self.lq = q if log_probs else np.log(q)
        if np.any(np.isnan(self.lp)) or np.any(np.isnan(self.lq)):
            raise ValueError("probabilities must be ≥ 0 and not NaN")
        # the inputs as given, so that masses are summed without a log/exp round trip
        self._p, self._q, self._log = p, q, bool(log_probs)
        self.name = f"discrete({p.size} outcomes)"

    def _delta(self, eps):
        return float(discrete_delta(eps, self._p, self._q, log_probs=self._log))

    def mismatch(self):
        sel = (self.lp > -np.inf) & (self.lq == -np.inf)
        return float((np.exp(self._p) if self._log else self._p)[sel].sum())

    def max_loss(self):
        sel = (self.lp > -np.inf) & (self.lq > -np.inf)
        return float(np.max(self.lp[sel] - self.lq[sel])) if sel.any() else 0.0

    def epsilon(self, delta):
        delta = check_curve_delta(delta)
        if delta >= self.total_variation():  # exact 0 (the enumeration may round to ~1e-16)
            return 0.0
        m_inf = self.mismatch()
        if 0.0 < m_inf == delta < 1.0:  # discrete_epsilon re-sums m∞ via exp(log p): round-off
            return max(0.0, self.max_loss())
        return discrete_epsilon(delta, self._p, self._q, log_probs=self._log)

    def _renyi(self, alpha):
        on = self.lp > -np.inf
        if alpha >= 1.0 and np.any(on & (self.lq == -np.inf)):
            return math.inf
        both = on & (self.lq > -np.inf)
        lp, lq = self.lp[both], self.lq[both]
        if alpha == 1.0:
            return float(np.sum(np.exp(lp) * (lp - lq)))
        return float(logsumexp(alpha * lp + (1.0 - alpha) * lq) / (alpha - 1.0))

    def reversed(self):
        return DiscreteProfile(self._q, self._p, log_probs=self._log)


__all__ = ["PrivacyProfile", "PrivacyCurve", "SymmetricProfile", "Tolerance",
           "GaussianShiftProfile", "DiscreteProfile", "EPS_MAX", "log1mexp",
           "log_hockey_piece", "gauss_legendre_panels", "integrate_below_normal"]
