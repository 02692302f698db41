"""Exact privacy curve of a pair of discrete (finite-support) output laws.

For probability vectors p (on D₀) and q (on D₁) over the same outcomes,

    δ_{p‖q}(ε) = Σᵢ max(0, pᵢ − e^ε qᵢ).

Outcomes with pᵢ > 0 = qᵢ (a support mismatch) contribute pᵢ for every ε, so no finite ε
reaches a δ below their total mass m∞: then ε = ∞.  Grouping outcomes with the same likelihood
ratio leaves δ unchanged, so infinite supports with a finite number of distinct ratios (e.g.
the two-sided geometric mechanism) can be passed as grouped masses.

Inverse.  Sort the finite log-ratios rᵢ = ln(pᵢ/qᵢ) in decreasing order, r₍₁₎ ≥ r₍₂₎ ≥ …,
and let P_k, Q_k be the cumulative sums of p and q over the first k.  On ε ∈ [r₍ₖ₊₁₎, r₍ₖ₎]
the outcomes with loss > ε are the first k, so δ(ε) = m∞ + P_k − e^ε Q_k there, and

    ε(δ) = max(0, ln(m∞ + P_J − δ) − ln Q_J),   J = #{k : δ(r₍ₖ₎) ≤ δ}.

This is exact (no root finding).  ``symmetric=True`` takes the worse direction:
max(δ_{p‖q}, δ_{q‖p}) and max(ε_{p‖q}, ε_{q‖p}), the ε of a DP pair.

Numerics: with ``log_probs=True`` the inputs are log-probabilities, and all ratios and
cumulative sums are handled in log space (``np.logaddexp.accumulate``), so pairs with ε ≈ 30
(probabilities ~1e-13) or far beyond keep their precision.
"""

from __future__ import annotations

import math

import numpy as np


def _logs(p, q, log_probs: bool):
    p = np.asarray(p, dtype=float).ravel()
    q = np.asarray(q, dtype=float).ravel()
    if p.shape != q.shape:
        raise ValueError(f"p and q must have the same length, got {p.size} and {q.size}")
    if np.any(np.isnan(p)) or np.any(np.isnan(q)):
        raise ValueError("p and q must not contain NaN")
    if log_probs:
        if np.any(p > 1e-9) or np.any(q > 1e-9):
            raise ValueError("log-probabilities must be ≤ 0")
        return p, q
    if np.any(p < 0) or np.any(q < 0):
        raise ValueError("probabilities must be ≥ 0")
    with np.errstate(divide="ignore"):
        return np.log(p), np.log(q)


def _one_sided_delta(eps: np.ndarray, lp: np.ndarray, lq: np.ndarray) -> np.ndarray:
    keep = lp > -np.inf
    lp, lq = lp[keep], lq[keep]
    r = lp - lq  # +inf where q = 0
    # max(0, p − e^ε q) = p·(−expm1(ε − r)) when r > ε, else 0
    x = np.minimum(eps[..., None] - r, 0.0)
    terms = np.where(eps[..., None] < r, np.exp(lp) * -np.expm1(x), 0.0)
    return terms.sum(axis=-1)


def discrete_delta(eps, p, q, *, symmetric: bool = False, log_probs: bool = False):
    """δ(ε) = Σ max(0, pᵢ − e^ε qᵢ) (ε ≥ 0, scalar or array); see the module docstring."""
    lp, lq = _logs(p, q, log_probs)
    e = np.asarray(eps, dtype=float)
    if np.any(np.isnan(e)) or np.any(e < 0):
        raise ValueError(f"eps must be ≥ 0, got {eps!r}")
    out = _one_sided_delta(e, lp, lq)
    if symmetric:
        out = np.maximum(out, _one_sided_delta(e, lq, lp))
    return out if out.ndim else float(out)


def _one_sided_epsilon(delta: float, lp: np.ndarray, lq: np.ndarray) -> float:
    keep = lp > -np.inf
    lp, lq = lp[keep], lq[keep]
    mismatch = lq == -np.inf
    m_inf = float(np.exp(lp[mismatch]).sum())
    if m_inf > delta:
        return math.inf
    lp, lq = lp[~mismatch], lq[~mismatch]
    if lp.size == 0:
        return 0.0
    r = lp - lq
    order = np.argsort(-r, kind="stable")
    r, lp, lq = r[order], lp[order], lq[order]
    log_P = np.logaddexp.accumulate(lp)  # ln P_k, k = 1..K
    log_Q = np.logaddexp.accumulate(lq)
    # δ at the breakpoints: δ(r₍ₖ₎) = m∞ + P_{k−1} − e^{r₍ₖ₎} Q_{k−1}
    P_prev = np.concatenate(([0.0], np.exp(log_P[:-1])))
    eQ_prev = np.concatenate(([0.0], np.exp(r[1:] + log_Q[:-1])))
    d_break = m_inf + P_prev - eQ_prev
    # δ(r₍ₖ₎) increases with k; J = last k with δ(r₍ₖ₎) ≤ δ (≥ 1 since δ(r₍₁₎) = m∞ ≤ δ)
    above = np.flatnonzero(d_break[1:] > delta)
    J = int(above[0]) + 1 if above.size else r.size
    num = m_inf + math.exp(log_P[J - 1]) - delta
    if num <= 0.0:
        return 0.0
    return max(0.0, math.log(num) - float(log_Q[J - 1]))


def discrete_epsilon(delta: float, p, q, *, symmetric: bool = False,
                     log_probs: bool = False) -> float:
    """Smallest ε ≥ 0 with Σ max(0, pᵢ − e^ε qᵢ) ≤ δ (∞ if a support mismatch outweighs δ).

    ``symmetric=True`` returns the larger of the two directions (the pair's DP ε)."""
    delta = float(delta)
    if math.isnan(delta) or delta < 0:
        raise ValueError(f"delta must be ≥ 0, got {delta!r}")
    lp, lq = _logs(p, q, log_probs)
    eps = _one_sided_epsilon(delta, lp, lq)
    if symmetric:
        eps = max(eps, _one_sided_epsilon(delta, lq, lp))
    return eps
