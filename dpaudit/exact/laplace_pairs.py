"""Exact privacy profile of two Laplace laws with any locations and scales,
Lap(m₀, b₀) vs Lap(m₁, b₁).

An :class:`~dpaudit.exact.mixtures.IntervalProfile`: the privacy loss is linear between the
two locations, so the pieces of {L > ε} have exact end points (see the method in
:mod:`dpaudit.exact.mixtures`); Rényi divergences integrate a piecewise exponential exactly.
Equal scales reduce to :mod:`dpaudit.exact.laplace`.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import logsumexp

from dpaudit.exact.mixtures import IntervalProfile, Law1D
from dpaudit.exact.profile import log1mexp


class LaplaceProfile(IntervalProfile):
    """Lap(m₀, b₀) vs Lap(m₁, b₁), exactly (any locations and scales).

    L(x) = ln(b₁/b₀) − |x−m₀|/b₀ + |x−m₁|/b₁ is linear on the three pieces cut at m₀, m₁, so
    the pieces of {L > ε} have exact end points and δ(ε) = Σ Laplace-CDF differences in log
    space.  For b₀ = b₁ this is 1 − e^{(ε−μ)/2} (:mod:`dpaudit.exact.laplace`); for b₀ > b₁
    the loss is unbounded (no finite pure ε).  D_α: the integrand p₀^α p₁^{1−α} is a piecewise
    exponential, integrated exactly (∞ when α/b₀ + (1−α)/b₁ ≤ 0).  Tolerance rtol 1e-10."""

    def __init__(self, loc0: float, scale0: float, loc1: float, scale1: float):
        super().__init__(Law1D(1.0, loc0, scale0, "laplace"), Law1D(1.0, loc1, scale1, "laplace"))
        self.m0, self.b0, self.m1, self.b1 = (float(v) for v in (loc0, scale0, loc1, scale1))
        self.name = f"Lap({self.m0:.4g},{self.b0:.4g}) vs Lap({self.m1:.4g},{self.b1:.4g})"

    def reversed(self):
        return LaplaceProfile(self.m1, self.b1, self.m0, self.b0)

    def _pieces(self):
        """[(lo, hi, slope, intercept)] with L(x) = slope·x + intercept on (lo, hi)."""
        k1, k2 = sorted((self.m0, self.m1))
        out = []
        for lo, hi in ((-math.inf, k1), (k1, k2), (k2, math.inf)):
            if hi <= lo:
                continue
            mid = hi - 1.0 if math.isinf(lo) else (lo + 1.0 if math.isinf(hi) else 0.5 * (lo + hi))
            s0, s1 = math.copysign(1.0, mid - self.m0), math.copysign(1.0, mid - self.m1)
            slope = -s0 / self.b0 + s1 / self.b1
            icpt = math.log(self.b1 / self.b0) + s0 * self.m0 / self.b0 - s1 * self.m1 / self.b1
            out.append((lo, hi, slope, icpt))
        return out

    def _intervals(self, eps):
        a, b = [], []
        for lo, hi, slope, icpt in self._pieces():
            if slope == 0.0:
                if icpt > eps:
                    a.append(lo), b.append(hi)
                continue
            r = (eps - icpt) / slope
            lo2, hi2 = (max(lo, r), hi) if slope > 0 else (lo, min(hi, r))
            if hi2 > lo2:
                a.append(lo2), b.append(hi2)
        return np.asarray(a, float), np.asarray(b, float)

    def max_loss(self):
        """sup L: ∞ if b₀ > b₁ (L grows in the tails), else the larger value at the kinks."""
        if self.b0 > self.b1:
            return math.inf
        t = abs(self.m1 - self.m0)  # L(m₀) = ln(b₁/b₀) + t/b₁ ≥ L(m₁) = ln(b₁/b₀) − t/b₀
        return math.log(self.b1 / self.b0) + t / self.b1

    def _renyi(self, alpha):
        if alpha == 1.0:  # KL = ln(b₁/b₀) − 1 + (t + b₀ e^{−t/b₀})/b₁, t = |m₁ − m₀|
            t = abs(self.m1 - self.m0)
            return math.log(self.b1 / self.b0) - 1.0 + (t + self.b0 * math.exp(-t / self.b0)) / self.b1
        if alpha / self.b0 + (1 - alpha) / self.b1 <= 0:
            return math.inf
        logs = []
        c = -alpha * math.log(2 * self.b0) - (1 - alpha) * math.log(2 * self.b1)
        for lo, hi, _slope, _icpt in self._pieces():
            mid = hi - 1.0 if math.isinf(lo) else (lo + 1.0 if math.isinf(hi) else 0.5 * (lo + hi))
            s0, s1 = math.copysign(1.0, mid - self.m0), math.copysign(1.0, mid - self.m1)
            # exponent γx + κ of p₀^α p₁^{1−α} on this piece
            gamma = -alpha * s0 / self.b0 - (1 - alpha) * s1 / self.b1
            kappa = c + alpha * s0 * self.m0 / self.b0 + (1 - alpha) * s1 * self.m1 / self.b1
            logs.append(_log_int_exp_linear(gamma, kappa, lo, hi))
        return float(logsumexp(logs)) / (alpha - 1.0)


def _log_int_exp_linear(gamma: float, kappa: float, lo: float, hi: float) -> float:
    """ln ∫_lo^hi e^{γx + κ} dx (finite by the caller's check)."""
    if abs(gamma) < 1e-300:
        return kappa + math.log(hi - lo)
    if gamma > 0:  # ∫ = e^{γhi+κ}(1 − e^{−γ(hi−lo)})/γ
        return gamma * hi + kappa + float(log1mexp(-gamma * (hi - lo))) - math.log(gamma)
    return gamma * lo + kappa + float(log1mexp(gamma * (hi - lo))) - math.log(-gamma)


__all__ = ["LaplaceProfile"]
