"""The Gaussian mechanism on a bounded sum: classical (Dwork & Roth 2014, Thm A.1) and
analytic (Balle & Wang 2018, Alg. 1) calibration.

Conventions and certified formulas: :mod:`dpaudit.mechanisms.classic.common`.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from scipy.optimize import brentq

from dpaudit.util import validation
from dpaudit.claims import ZCDP, AllOf, ApproxDP, claim_expression
from dpaudit.exact import gaussian_epsilon
from dpaudit.mechanisms.base import Noise, Parameter
from dpaudit.mechanisms.capabilities import CalibratedNoise, LogDensity
from dpaudit.mechanisms.classic.common import (GAUSSIAN_ANALYTIC_DELTA, GAUSSIAN_RHO,
                                               GAUSSIAN_SIGMA_CLASSICAL, BoundedSumMechanism)


def _open_unit_delta(name: str, value) -> float:
    """δ ∈ (0, 1), with this mechanism's historical message."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) \
            or not (0.0 < float(value) < 1.0):
        raise ValueError(f"{name} must lie in (0, 1), got {value!r}")
    return float(value)


def _calibration(name: str, value) -> str:
    if value not in ("analytic", "classical"):
        raise ValueError(f"{name} must be 'analytic' or 'classical', got {value!r}")
    return value


class GaussianMechanism(LogDensity, CalibratedNoise, BoundedSumMechanism):
    """Gaussian mechanism on a bounded sum: M(D) = Σ D + N(0, σ²).

    * ``calibration="classical"``: σ = Δ√(2 ln(1.25/δ))/ε (Dwork & Roth 2014, Thm A.1).  The
      theorem only covers ε < 1, so ε ≥ 1 is refused.
    * ``calibration="analytic"`` (default): Balle & Wang, ICML 2018, Alg. 1 — the smallest σ
      with Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) ≤ δ, found by brentq on the lambdified
      sympy expression.  Tight: the worst pair's exact ε at δ equals ε.

    Claim: (ε, δ)-DP and ρ-zCDP with ρ = Δ²/(2σ²) (Bun & Steinke 2016, Prop. 1.6).  Exact
    curve of a pair with shift s: δ(ε′) = Φ(μ/2 − ε′/μ) − e^{ε′} Φ(−μ/2 − ε′/μ), μ = s/σ."""

    name = "gaussian"
    family = "classic"

    parameter_order = ("epsilon", "delta", "sensitivity", "calibration")
    delta = Parameter(1e-5, _open_unit_delta, "δ in (0, 1)")
    calibration = Parameter("analytic", _calibration, "'analytic' (Balle & Wang) or "
                            "'classical' (Dwork & Roth, ε < 1)")

    def derive(self) -> None:
        eps, delta, sens = self.epsilon, self.delta, self._sensitivity
        if self.calibration == "classical" and eps >= 1.0:
            raise ValueError(f"calibration='classical' needs epsilon < 1 (Dwork & Roth Thm A.1 "
                             f"only covers ε < 1), got epsilon={eps}; use 'analytic'")
        if self.calibration == "classical":
            self.sigma = GAUSSIAN_SIGMA_CLASSICAL(epsilon=eps, delta=delta, Delta=sens)
        else:
            self.sigma = self._analytic_sigma(eps, delta, sens)
        self.rho = GAUSSIAN_RHO(Delta=sens, sigma=self.sigma)

    @staticmethod
    def _analytic_sigma(eps: float, delta: float, sens: float) -> float:
        """Smallest σ with GAUSSIAN_ANALYTIC_DELTA(σ) ≤ δ (the expression decreases in σ)."""
        f = lambda s: GAUSSIAN_ANALYTIC_DELTA(  # noqa: E731
            sigma=s, epsilon=eps, Delta=sens) - delta
        lo = hi = sens / eps
        while f(lo) <= 0:
            lo /= 2.0
        while f(hi) > 0:
            hi *= 2.0
        sigma = brentq(f, lo, hi, xtol=1e-15 * hi, rtol=1e-15, maxiter=500)
        while f(sigma) > 0:  # round up so the claim really holds at the returned σ
            sigma *= 1.0 + 1e-14
        return float(sigma)

    def claim(self) -> AllOf:
        if self.calibration == "classical":
            approx = ApproxDP(self.epsilon, self.delta,
                              expression=claim_expression(GAUSSIAN_SIGMA_CLASSICAL),
                              substitutions={"epsilon": self.epsilon, "delta": self.delta,
                                             "Delta": self._sensitivity,
                                             "sigma": self.sigma})
        else:
            achieved = GAUSSIAN_ANALYTIC_DELTA(epsilon=self.epsilon, sigma=self.sigma,
                                               Delta=self._sensitivity)
            approx = ApproxDP(self.epsilon, self.delta,
                              expression=claim_expression(GAUSSIAN_ANALYTIC_DELTA),
                              substitutions={"epsilon": self.epsilon, "sigma": self.sigma,
                                             "Delta": self._sensitivity,
                                             GAUSSIAN_ANALYTIC_DELTA.name: achieved})
        zcdp = ZCDP(self.rho, expression=claim_expression(GAUSSIAN_RHO),
                    substitutions={"Delta": self._sensitivity, "sigma": self.sigma,
                                   "rho": self.rho})
        return AllOf(claims=(approx, zcdp))

    def sample(self, dataset, n, rng) -> np.ndarray:
        n = validation.draw_request(n, rng)
        return rng.normal(self.query(dataset), self.sigma, size=n)

    def noise(self) -> Noise:
        return Noise("gaussian", {"sigma": self.claimed_value("sigma")},
                     source=f"claim ({self.calibration} calibration)")

    def log_density(self, dataset, outputs) -> np.ndarray:
        z = (np.asarray(outputs, dtype=float) - self.query(dataset)) / self.sigma
        return -0.5 * z * z - math.log(self.sigma * math.sqrt(2 * math.pi))

    def exact_epsilon(self, d0, d1, delta: float = 0.0) -> float:
        return gaussian_epsilon(delta, self._shift(d0, d1) / self.sigma)
