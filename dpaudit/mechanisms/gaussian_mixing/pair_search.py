"""Search over zero-out pairs for the largest exact divergence of a Gaussian sketch.

For GaussMix (rows of the output i.i.d. N(0, XᵀX + σ²I)) at fixed (n, d, k, σ), row bound C and
scale bound λ̄, :func:`search_gaussmix_pair` maximises the exact Rényi divergence
max(D_α(P_X‖P_X′), D_α(P_X′‖P_X)) over data matrices X (n × d, ‖xᵢ‖ ≤ C, λ_min(XᵀX) ≥ λ̄), with
X′ = X with its first row zeroed (every pair is of this form up to reordering the rows).  The
divergence is the closed form of :func:`dpaudit.mechanisms.gaussian_mixing.sketch_profiles.sketch_pair_renyi`, so the search
is exact in its objective and only heuristic in its optimisation: Nelder–Mead from random
starts (and from a scaled-identity start), on the parametrisation xᵢ = C·vᵢ / max(1, ‖vᵢ‖)
(every vᵢ ∈ ℝᵈ maps into the ball), with the scale bound as a penalty.  The result is the best
pair found, its divergence and t = x₁ᵀ(XᵀX + σ²I)⁻¹x₁ (Lemma 1 says t ≤ C²/(λ̄ + σ²)).
Reproducible: the starts come from ``numpy.random.default_rng(seed)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize

from dpaudit.mechanisms.gaussian_mixing.sketch_profiles import sketch_pair_renyi


@dataclass(frozen=True)
class SearchedPair:
    """The best pair found: X (with the record in row 0), X′ (row 0 zeroed), its divergence."""

    d0: list
    d1: list
    divergence: float
    t: float
    evaluations: int


def _rows_from_vector(v: np.ndarray, n: int, d: int, C: float) -> np.ndarray:
    v = v.reshape(n, d)
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    return C * v / np.maximum(1.0, norms)


def search_gaussmix_pair(n: int, d: int, *, row_bound: float, sigma: float, lambda_bar: float,
                         k: int, alpha: float, restarts: int = 6, seed: int = 0,
                         maxiter: int = 600) -> SearchedPair:
    """Maximise the exact D_α of GaussMix's zero-out pair (module docstring)."""
    if n < 1 or d < 1:
        raise ValueError(f"need n ≥ 1 and d ≥ 1, got n={n}, d={d}")
    C, lam, s2 = float(row_bound), float(lambda_bar), float(sigma) ** 2
    if s2 <= 0:
        raise ValueError("sigma must be > 0 (the covariances must be positive definite)")
    eye = np.eye(d)
    count = [0]

    def divergence(X):
        full = X.T @ X + s2 * eye
        zeroed = full - np.outer(X[0], X[0])
        return max(sketch_pair_renyi(full, zeroed, k, alpha),
                   sketch_pair_renyi(zeroed, full, k, alpha))

    def loss(v):
        count[0] += 1
        X = _rows_from_vector(v, n, d, C)
        short = lam - float(np.linalg.eigvalsh(X.T @ X)[0])
        if short > 1e-12 * max(1.0, lam):
            return 1e6 * (1.0 + short)       # infeasible: the scale bound fails
        value = divergence(X)
        return -value if math.isfinite(value) else -1e6

    rng = np.random.default_rng(seed)
    starts = []
    m = max(1, n // d)
    ident = np.vstack([np.eye(d)] * m + [np.zeros((n - m * d, d))]) if m * d <= n else None
    if ident is not None:
        starts.append(ident.ravel() * (1 + 1e-3 * rng.standard_normal(n * d)))
    starts += [rng.standard_normal(n * d) * 2.0 for _ in range(restarts)]
    best_x, best = None, math.inf
    for x0 in starts:
        res = minimize(loss, x0, method="Nelder-Mead",
                       options={"maxiter": maxiter, "xatol": 1e-9, "fatol": 1e-12})
        if res.fun < best:
            best_x, best = res.x, float(res.fun)
    X = _rows_from_vector(best_x, n, d, C)
    if best >= 1e5:
        raise ValueError(f"no {n} × {d} matrix with rows of norm ≤ {C:g} and λ_min(XᵀX) ≥ "
                         f"{lam:g} was found")
    X1 = X.copy()
    X1[0] = 0.0
    t = float(X[0] @ np.linalg.solve(X.T @ X + s2 * eye, X[0]))
    return SearchedPair(X.tolist(), X1.tolist(), -best, t, count[0])


__all__ = ["search_gaussmix_pair", "SearchedPair"]
