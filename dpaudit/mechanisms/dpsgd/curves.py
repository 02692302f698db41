"""Numerical privacy curves of the ABLQ pairs, each with its stated accuracy.

* :func:`poisson_pld_epsilon` — the Poisson pair (the product over T steps of
  (1−q)N(0, σ²) + qN(Δ, σ²) against N(0, σ²), both directions) through dp_accounting's
  privacy-loss distribution at a fine discretisation: the *optimistic* estimate (losses rounded
  down) is a lower bound on the pair's ε(δ), the *pessimistic* one (rounded up, connect-the-dots)
  an upper bound; :class:`Bracket` holds both, so the stated accuracy is their gap.
* :class:`ShuffleMaxCurve` — Chua et al.'s shuffle lower-bound pair for one epoch,
  MoG(a₁) vs MoG(a₀) with MoG(a) = (1/T)Σ_t N(a·e_t, σ²I_T), seen through the max statistic
  M = max_t x_t (the cube events {M > c} of the paper): M's CDF is
  Φ((c − a)/σ)Φ(c/σ)^{T−1} (certified ``shuffle_max_log_cdf``, proofs/dpsgd.py) and
  δ(ε) = ∫ (p_M − e^ε q_M)₊ dc is integrated on a uniform grid of :data:`GRID` points over
  [min(a) − 10σ, max(a) + σ(√(2 ln T) + 10)] (the mass outside is below 1e-20).  Because M is a
  post-processing of the output, this ε(δ) is a **lower bound** on the shuffle pair's (and the
  shuffle mechanism's) ε(δ); its numerical accuracy (grid against a grid of half the points)
  is reported by :meth:`ShuffleMaxCurve.accuracy`, about 1e-9 in δ at the audited parameters.
"""

from __future__ import annotations

import functools
import math
import numpy as np
from scipy import optimize, special

from dpaudit.exact.subsampled_gaussian import Bracket, composed_pld

#: grid points of the shuffle max-statistic quadrature
GRID = 400_001
#: discretisation of the numerical Poisson PLD (dp_accounting's default is 1e-4)
FINE_DISCRETIZATION = 1e-5


def poisson_pld_lower(sigma: float, q: float, steps: int, delta: float,
                      discretization: float = FINE_DISCRETIZATION,
                      relation: str = "add-remove") -> float:
    """The optimistic end of :func:`poisson_pld_epsilon` alone (what ``exact_epsilon`` uses),
    at half its cost; ``relation`` "replace-one" for the pair (1−q)N(0, σ²) + qN(1, σ²) vs
    (1−q)N(0, σ²) + qN(−1, σ²) (:mod:`dpaudit.exact.subsampled_gaussian`)."""
    return float(composed_pld(sigma, q, int(steps), discretization, False, relation)
                 .get_epsilon_for_delta(delta))


@functools.lru_cache(maxsize=256)
def poisson_pld_epsilon(sigma: float, q: float, steps: int, delta: float,
                        discretization: float = FINE_DISCRETIZATION) -> Bracket:
    """ε(δ) of the T-fold Poisson pair with unit sensitivity and noise σ (module docstring)."""
    upper = composed_pld(sigma, q, int(steps), discretization, True)
    return Bracket(poisson_pld_lower(sigma, q, steps, delta, discretization),
                   float(upper.get_epsilon_for_delta(delta)))


def _log_max_density(c: np.ndarray, a: float, sigma: float, steps: int) -> np.ndarray:
    """ln of the density of max_t x_t under MoG(a) (the derivative checked in the proof)."""
    z0, za = c / sigma, (c - a) / sigma
    log_phi0 = -0.5 * z0 * z0 - 0.5 * math.log(2 * math.pi) - math.log(sigma)
    log_phia = -0.5 * za * za - 0.5 * math.log(2 * math.pi) - math.log(sigma)
    lc0, lca = special.log_ndtr(z0), special.log_ndtr(za)
    first = log_phia + (steps - 1) * lc0
    if steps == 1:
        return first
    second = math.log(steps - 1) + log_phi0 + lca + (steps - 2) * lc0
    return np.logaddexp(first, second)


class ShuffleMaxCurve:
    """δ(ε) and ε(δ) of (law of max under MoG(a_hi), law of max under MoG(a_lo)), both
    directions (module docstring)."""

    def __init__(self, a_hi: float, a_lo: float, sigma: float, steps: int, grid: int = GRID):
        self.a_hi, self.a_lo, self.sigma, self.steps = float(a_hi), float(a_lo), float(sigma), \
            int(steps)
        lo = min(a_hi, a_lo, 0.0) - 10 * sigma
        hi = max(a_hi, a_lo, 0.0) + sigma * (math.sqrt(2 * math.log(max(steps, 2))) + 10)
        self.c, self.dc = np.linspace(lo, hi, grid, retstep=True)
        self.log_p = _log_max_density(self.c, self.a_hi, self.sigma, self.steps)
        self.log_q = _log_max_density(self.c, self.a_lo, self.sigma, self.steps)
        self.grid = grid

    def delta(self, eps: float) -> float:
        """max of the two directions' hockey-stick divergences at ε (trapezoid rule)."""
        out = 0.0
        for lp, lq in ((self.log_p, self.log_q), (self.log_q, self.log_p)):
            f = np.exp(lp) * -np.expm1(np.minimum(eps + lq - lp, 0.0))
            out = max(out, float(np.trapezoid(f, dx=self.dc)))
        return out

    def epsilon(self, delta: float) -> float:
        """The smallest ε ≥ 0 with δ(ε) ≤ δ (brentq to 1e-9)."""
        if self.delta(0.0) <= delta:
            return 0.0
        hi = 1.0
        while self.delta(hi) > delta:
            hi *= 2.0
            if hi > 1e3:
                return math.inf
        return float(optimize.brentq(lambda e: self.delta(e) - delta, 0.0, hi, xtol=1e-9))

    def accuracy(self, eps: float) -> float:
        """|δ(ε) on this grid − δ(ε) on a grid of half the points|."""
        coarse = ShuffleMaxCurve(self.a_hi, self.a_lo, self.sigma, self.steps,
                                 grid=(self.grid + 1) // 2)
        return abs(self.delta(eps) - coarse.delta(eps))


@functools.lru_cache(maxsize=64)
def shuffle_max_curve(a_hi: float, a_lo: float, sigma: float, steps: int) -> ShuffleMaxCurve:
    return ShuffleMaxCurve(a_hi, a_lo, sigma, steps)


__all__ = ["Bracket", "FINE_DISCRETIZATION", "GRID", "ShuffleMaxCurve", "poisson_pld_epsilon",
           "poisson_pld_lower", "shuffle_max_curve"]
