"""Exact privacy curves of Laplace shift pairs, single and two-fold.

Single pair.  P = Lap(0, b), Q = Lap(s, b), μ = |s|/b.  The privacy loss ln(p/q)(x) =
(|x − s| − |x|)/b equals μ for x ≤ 0, −μ for x ≥ s and μ − 2x/b in between (s > 0).  For
0 ≤ ε < μ the set {loss > ε} is {x < t} with t = (s − εb)/2, and

    δ(ε) = P(X < t) − e^ε Q(X < t) = (1 − ½e^{−t/b}) − e^ε·½e^{−(s−t)/b} = 1 − e^{(ε − μ)/2},

δ(ε) = 0 for ε ≥ μ.  (The same formula holds for −μ ≤ ε < μ; for ε < −μ it is 1 − e^ε.)
Inverse: ε(δ) = max(0, μ + 2 ln(1 − δ)); ε(0) = μ.  The pair is symmetric.

Two-fold product.  P = Lap(0, b)², Q = Lap(s, b)² (the same value released twice with
independent noise).  The loss is L₁ + L₂ with Lᵢ i.i.d.; under P each Lᵢ has an atom ½ at +μ,
an atom ½e^{−μ} at −μ and density ¼e^{(ℓ−μ)/2} on (−μ, μ).  Conditioning on L₁,

    δ₂(ε) = E[δ₁(ε − L₁)]
          = ½ δ₁(ε − μ) + ½e^{−μ} δ₁(ε + μ) + ∫_{−μ}^{μ} ¼e^{(ℓ−μ)/2} δ₁(ε − ℓ) dℓ,

with δ₁ the single-pair curve extended to negative arguments as above.  For 0 ≤ ε < 2μ the
middle atom contributes 0, and with w = 2μ − ε the other two terms integrate to

    δ₂(ε) = 1 − (1 + w/4) e^{−w/2},       and δ₂(ε) = 0 for ε ≥ 2μ.

So the pure ε is 2μ (basic composition is tight here).  The inverse solves
(1 + w/4)e^{−w/2} = 1 − δ, i.e. w = −4 − 2·W₋₁(−2(1 − δ)e^{−2}) with W₋₁ the lower Lambert-W
branch; it is computed by ``brentq`` on the expm1/log1p form (full precision for tiny δ) and
the Lambert form is kept as a cross-check in the tests.  This derivation is checked against
direct numerical integration and Monte Carlo in ``tests/exact/test_exact_gaussian_discrete.py``.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq

from dpaudit.exact.arguments import check_curve_delta


def _mu(shift: float, scale: float) -> float:
    shift, scale = float(shift), float(scale)
    if not math.isfinite(shift):
        raise ValueError(f"shift must be finite, got {shift!r}")
    if not (math.isfinite(scale) and scale > 0):
        raise ValueError(f"scale must be a finite number > 0, got {scale!r}")
    return abs(shift) / scale


def _check_eps(eps) -> np.ndarray:
    arr = np.asarray(eps, dtype=float)
    if np.any(np.isnan(arr)) or np.any(arr < 0):
        raise ValueError(f"eps must be ≥ 0, got {eps!r}")
    return arr



def laplace_pdf(x: float, b: float) -> float:
    """Density of Lap(0, b) at x."""
    return math.exp(-abs(x) / b) / (2.0 * b)


def laplace_cdf(x: float, b: float) -> float:
    """P(Lap(0, b) ≤ x)."""
    return 0.5 * math.exp(x / b) if x < 0 else 1.0 - 0.5 * math.exp(-x / b)


def laplace_delta(eps, shift: float, scale: float):
    """δ(ε) = 1 − e^{(ε − μ)/2} for 0 ≤ ε < μ = |shift|/scale, else 0 (Lap(0,b) vs Lap(s,b))."""
    mu = _mu(shift, scale)
    e = _check_eps(eps)
    out = np.where(e < mu, -np.expm1((np.minimum(e, mu) - mu) / 2.0), 0.0)
    return out if out.ndim else float(out)


def laplace_epsilon(delta: float, shift: float, scale: float) -> float:
    """Smallest ε ≥ 0 with δ(ε) ≤ δ: ε = max(0, μ + 2 ln(1 − δ)), μ = |shift|/scale."""
    mu = _mu(shift, scale)
    delta = check_curve_delta(delta)
    if delta >= 1.0:
        return 0.0
    return max(0.0, mu + 2.0 * math.log1p(-delta))


def laplace_twofold_delta(eps, shift: float, scale: float):
    """δ₂(ε) = 1 − (1 + w/4)e^{−w/2}, w = 2μ − ε, for 0 ≤ ε < 2μ; 0 beyond (see module doc)."""
    mu = _mu(shift, scale)
    e = _check_eps(eps)
    w = np.maximum(2.0 * mu - e, 0.0)
    out = np.where(w > 0, -np.expm1(np.log1p(w / 4.0) - w / 2.0), 0.0)
    return out if out.ndim else float(out)


def laplace_twofold_epsilon(delta: float, shift: float, scale: float) -> float:
    """Smallest ε ≥ 0 with δ₂(ε) ≤ δ for two independent Laplace releases of a shift pair.

    δ = 0 gives 2μ.  Otherwise w ∈ (0, 2μ] solves −expm1(log1p(w/4) − w/2) = δ (the left side
    increases strictly in w), and ε = 2μ − w (0 if δ ≥ δ₂(0))."""
    mu = _mu(shift, scale)
    delta = check_curve_delta(delta)
    if delta >= 1.0 or mu == 0.0:
        return 0.0
    if delta == 0.0:
        return 2.0 * mu
    g = lambda w: -math.expm1(math.log1p(w / 4.0) - w / 2.0) - delta  # noqa: E731
    if g(2.0 * mu) <= 0.0:
        return 0.0
    w = brentq(g, 0.0, 2.0 * mu, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=500)
    return max(0.0, 2.0 * mu - float(w))
