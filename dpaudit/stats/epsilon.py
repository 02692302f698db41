"""ε lower bounds from event counts.

If an event S has P₀ = P[M(D₀) ∈ S] and P₁ = P[M(D₁) ∈ S], (ε, δ)-DP requires
P₀ ≤ e^ε P₁ + δ, hence ε ≥ ln((P₀ − δ)/P₁).  Replacing P₀ by a lower confidence bound and P₁
by an upper one (each at significance s) gives a bound that holds with probability ≥ 1 − 2s:

    ε_LB = ln((LCB(k₀, n₀, s) − δ) / UCB(k₁, n₁, s)),   clipped below at 0.

A zero count on the denominator side (a support mismatch) still gives a finite bound:
UCB(0, n, s) = 1 − s^{1/n} ≈ ln(1/s)/n, so ε_LB ≈ ln(n·P₀/ln(1/s)) grows like ln n.
"""

from __future__ import annotations

import numpy as np

from dpaudit.stats.intervals import clopper_pearson_lower, clopper_pearson_upper


def epsilon_from_counts(k_num, n_num, k_den, n_den, *, delta: float = 0.0,
                        significance: float):
    """Certified ε lower bound from counts (vectorised over arrays of counts).

    ``k_num`` of ``n_num`` draws from the numerator side fell in the event, ``k_den`` of
    ``n_den`` from the denominator side; each Clopper–Pearson bound is taken at
    ``significance``.  Returns 0 where the bound is not positive."""
    lcb = np.asarray(clopper_pearson_lower(k_num, n_num, significance), dtype=float) - delta
    ucb = np.asarray(clopper_pearson_upper(k_den, n_den, significance), dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = np.where(lcb > 0, np.log(np.maximum(lcb, 1e-300)) - np.log(ucb), 0.0)
    eps = np.maximum(eps, 0.0)
    return eps if eps.ndim else float(eps)


def binary_renyi(p: float, q: float, alpha: float) -> float:
    """D_α(Bern(p) ‖ Bern(q)) = log(p^α q^{1−α} + (1−p)^α (1−q)^{1−α})/(α − 1), α > 1."""
    if alpha <= 1:
        raise ValueError(f"alpha must be > 1, got {alpha!r}")
    terms = []
    for a, b in ((p, q), (1.0 - p, 1.0 - q)):
        if a <= 0:
            continue
        if b <= 0:
            return float("inf")
        terms.append(alpha * np.log(a) + (1.0 - alpha) * np.log(b))
    return float(np.logaddexp.reduce(terms) / (alpha - 1.0))


def renyi_from_bounds(p_lower: float, q_upper: float, alpha: float) -> float:
    """Certified lower bound on max(D_α(P‖Q), D_α(Q‖P)) from one event S with
    P(S) ≥ p_lower and Q(S) ≤ q_upper.

    Data processing: D_α(P‖Q) ≥ D_α(Bern(P(S))‖Bern(Q(S))).  For fixed q the binary
    divergence is unimodal in p with minimum 0 at p = q (and likewise in q), so over the box
    {p ≥ p_lower, q ≤ q_upper} with p_lower > q_upper its minimum is at the corner
    (p_lower, q_upper); the same holds for D_α(Bern(q)‖Bern(p)).  0 when p_lower ≤ q_upper."""
    if p_lower <= q_upper:
        return 0.0
    return max(binary_renyi(p_lower, q_upper, alpha), binary_renyi(q_upper, p_lower, alpha))
