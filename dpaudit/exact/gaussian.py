"""Exact privacy curve of a Gaussian shift pair.

For P = N(0, σ²) and Q = N(s, σ²) write μ = |s|/σ.  The privacy loss ln(p/q)(X) is
N(μ²/2, μ²) under P, and the hockey-stick divergence is (Balle & Wang 2018, Thm. 8)

    δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ),        ε ≥ 0.

The pair is symmetric (δ_{P‖Q} = δ_{Q‖P}), and this is the same curve as μ-Gaussian
differential privacy (Dong, Roth & Su 2019/2022, Cor. 2.13): a mechanism is μ-GDP iff it is
(ε, δ(ε))-DP for all ε ≥ 0.  Vector outputs reduce to the scalar case with μ = ‖s‖₂/σ.

Numerics: both terms are evaluated in log space with ``scipy.special.log_ndtr`` and combined as
δ = Φ(a)·(−expm1(ε + ln Φ(b) − ln Φ(a))), which keeps full relative precision far in the tail
(ε up to several hundred at moderate μ, δ down to ~1e-300).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq
from scipy.special import log_ndtr


def _check_mu(mu: float) -> float:
    mu = float(mu)
    if math.isnan(mu) or mu < 0:
        raise ValueError(f"mu (shift/σ) must be ≥ 0, got {mu!r}")
    return mu


def gaussian_log_delta(eps: float, mu: float) -> float:
    """ln δ(ε) of the Gaussian pair N(0, 1) vs N(μ, 1), for 0 < μ < ∞, computed in log space:
    ln[Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ)] (Balle & Wang 2018, Thm 8); −inf when δ underflows
    to 0."""
    a = mu / 2.0 - eps / mu
    b = -mu / 2.0 - eps / mu
    la = log_ndtr(a)
    if la == -math.inf:  # 0 ≤ δ ≤ Φ(a) = 0 (a huge ε: ln Φ(a) ≈ −ε²/2μ² underflows)
        return -math.inf
    lb = eps + log_ndtr(b)
    diff = lb - la  # < 0 for μ > 0
    if diff >= 0.0:  # only by round-off when δ is ~0 relative to Φ(a)
        return -math.inf
    return float(la + np.log(-np.expm1(diff)))


def gaussian_delta(eps, mu):
    """δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) of the pair N(0,σ²) vs N(μσ, σ²).

    ``eps`` may be a scalar or an array (ε ≥ 0); ``mu`` = |shift|/σ ≥ 0.  μ = 0 gives 0,
    μ = ∞ gives 1 (disjoint laws)."""
    mu = _check_mu(mu)
    eps_arr = np.asarray(eps, dtype=float)
    if np.any(np.isnan(eps_arr)) or np.any(eps_arr < 0):
        raise ValueError(f"eps must be ≥ 0, got {eps!r}")
    if mu == 0.0:
        out = np.zeros_like(eps_arr)
    elif math.isinf(mu):
        out = np.where(np.isinf(eps_arr), 0.0, 1.0)
    else:
        out = np.exp(np.vectorize(lambda e: gaussian_log_delta(e, mu) if math.isfinite(e)
                                  else -math.inf, otypes=[float])(eps_arr))
    return out if out.ndim else float(out)


def gaussian_epsilon(delta: float, mu: float) -> float:
    """Smallest ε ≥ 0 with δ(ε) ≤ ``delta`` for the Gaussian pair with μ = |shift|/σ.

    δ(ε) is continuous and strictly decreasing from δ(0) = 2Φ(μ/2) − 1 (the total variation)
    to 0, so the inverse is found by ``brentq`` on ln δ(ε) − ln δ.  δ = 0 gives ∞ for μ > 0
    (Gaussian pairs are not pure-DP); δ ≥ δ(0) gives 0."""
    mu = _check_mu(mu)
    delta = float(delta)
    if math.isnan(delta) or delta < 0:
        raise ValueError(f"delta must be ≥ 0, got {delta!r}")
    if mu == 0.0 or delta >= 1.0:
        return 0.0
    if math.isinf(mu) or delta == 0.0:
        return math.inf
    if gaussian_delta(0.0, mu) <= delta:
        return 0.0
    target = math.log(delta)
    # clip ln δ at −800 (δ underflows to 0 there) so brentq only sees finite values
    f = lambda e: max(gaussian_log_delta(e, mu), -800.0) - target  # noqa: E731
    hi = max(1.0, mu * mu)
    while f(hi) > 0:
        hi *= 2.0
        if hi > 1e6:  # pragma: no cover - δ below ~1e-300
            raise ValueError(f"delta={delta} too small to invert at mu={mu}")
    return float(brentq(f, 0.0, hi, xtol=1e-14, rtol=4 * np.finfo(float).eps, maxiter=500))
