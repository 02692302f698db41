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
