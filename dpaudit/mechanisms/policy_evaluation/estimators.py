"""LSW and LSL estimators and the smooth upper bounds of DP-LSW / DP-LSL (Balle et al. 2016).

Non-private estimators, from :class:`~dpaudit.mechanisms.policy_evaluation.data.BatchStatistics`:

* LSW, eq. (8): θ^w_X = (ΦᵀΓΦ)⁻¹ΦᵀΓF_X = (Γ^{1/2}Φ)^†Γ^{1/2}F_X, Γ = diag(w), w_s > 0 fixed;
  needs Γ^{1/2}Φ of full column rank (a ``ValueError`` otherwise).
* LSL, eq. (11): θ^λ_X = (ΦᵀΓ_XΦ + (λ/2m)I)⁻¹ΦᵀΓ_XF_X, Γ_X = diag(ρ_s|X_s|/m), λ > 0.

Smooth upper bounds (every formula is read from ``proofs/certificates/policy_evaluation.json``):

* ψ^w_X = max_{0≤k≤K_X} e^{−kβ} Σ_s w_s/max{|X_s| − k, 1}² (Algorithm 1, eq. (9), Lemma 5);
* ψ^λ_X = max_{0≤k≤m} e^{−kβ} (c_λ√(Σ_s ρ_s min{|X_s| + k, m}) + ‖ρ‖₂)² (Algorithm 2, eq. (12),
  Lemma 9).

Each is computed two ways.  ``*_scan`` is the paper's literal O(K_X·N) / O(m·N) scan over k
(chunked).  :func:`psi_lsw` / :func:`psi_lsl` give the same maximum in O(N log N): between
consecutive breakpoints (k = |X_s| − 1 for LSW, k = m − |X_s| for LSL) the function of k is
log-convex for LSW (a sum of log-convex terms e^{−kβ}w_s(|X_s| − k)^{−2} and e^{−kβ}w_s), so its
maximum over a piece is at an end, and log-concave for LSL (2 ln(c_λ√(a + bk) + ‖ρ‖₂) − kβ), so
its integer maximum is next to the stationary point; only those k are evaluated.  The tests check
both against each other on exhaustive small lattices and on large random signatures.
"""

from __future__ import annotations

import math
import re

import numpy as np
import sympy as sp

from dpaudit.claims.certificates import load_formula

FAMILY = "policy_evaluation"
ALPHA = load_formula(FAMILY, "alpha")
BETA = load_formula(FAMILY, "beta")
ALPHA_APPENDIX = load_formula(FAMILY, "alpha_appendix")
BETA_APPENDIX = load_formula(FAMILY, "beta_appendix")
LSW_SIGMA = load_formula(FAMILY, "lsw_sigma")
LSL_SIGMA = load_formula(FAMILY, "lsl_sigma")
LSL_C = load_formula(FAMILY, "lsl_c")
LSW_SENSITIVITY = load_formula(FAMILY, "lsw_sensitivity_bound")
LSL_SENSITIVITY = load_formula(FAMILY, "lsl_sensitivity_bound")
LSW_PHI_TERM = load_formula(FAMILY, "lsw_phi_term")
LSL_COUNT_TERM = load_formula(FAMILY, "lsl_count_term")
LSL_PHI = load_formula(FAMILY, "lsl_phi")

_CHUNK = 4096  # values of k per block of the literal scans


def _vectorised(formula):
    """numpy version of a certified per-state formula (Max/Min elementwise)."""
    names = formula.inputs
    fn = sp.lambdify([sp.Symbol(n) for n in names], formula.expression,
                     modules=[{"Max": np.maximum, "Min": np.minimum}, "numpy"])

    def call(**values):
        return fn(*[values[n] for n in names])
    return call


_phi_term = _vectorised(LSW_PHI_TERM)      # w / max(v − k, 1)²
_count_term = _vectorised(LSL_COUNT_TERM)  # ρ · min(v + k, m)
_lsl_phi = _vectorised(LSL_PHI)            # (c √S + ‖ρ‖₂)²


# -- features ------------------------------------------------------------------------------------

def feature_matrix(features, n_states: int) -> np.ndarray:
    """Φ ∈ ℝ^{N×d}: ``"tabular"`` (I_N), ``"aggregate-K"`` (states s ↦ feature ⌊s/K⌋: K adjacent
    states share one value; §6 uses K = 2) or an explicit N×d matrix (list of rows)."""
    if isinstance(features, str):
        if features == "tabular":
            return np.eye(n_states)
        match = re.fullmatch(r"aggregate-(\d+)", features)
        if match and int(match.group(1)) >= 1:
            width = int(match.group(1))
            d = -(-n_states // width)
            phi = np.zeros((n_states, d))
            phi[np.arange(n_states), np.arange(n_states) // width] = 1.0
            return phi
        raise ValueError(f"features must be 'tabular', 'aggregate-K' (K ≥ 1) or an N×d matrix, "
                         f"got {features!r}")
    try:
        phi = np.asarray(features, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"features must be an N×d matrix of numbers: {exc}") from None
    if phi.ndim != 2 or phi.shape[0] != n_states or phi.shape[1] < 1:
        raise ValueError(f"features must be an N×d matrix with N = n_states = {n_states} rows, "
                         f"got shape {phi.shape}")
    if not np.all(np.isfinite(phi)):
        raise ValueError("features contain NaN or infinite entries")
    return phi


def weights_vector(weights, n_states: int, what: str, *, positive: bool) -> np.ndarray:
    """Regression weights: ``None`` (all 1) or N numbers (> 0 for w; in [0, 1] for ρ)."""
    if weights is None:
        return np.ones(n_states)
    try:
        vec = np.asarray(weights, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{what} must be a list of {n_states} numbers: {exc}") from None
    if vec.shape != (n_states,) or not np.all(np.isfinite(vec)):
        raise ValueError(f"{what} must be {n_states} finite numbers, got shape {vec.shape}")
    if positive and np.any(vec <= 0):
        raise ValueError(f"{what} must all be > 0 (Γ = diag(w) must be invertible), got "
                         f"{vec.tolist()}")
    if not positive and (np.any(vec < 0) or np.any(vec > 1) or not np.any(vec > 0)):
        raise ValueError(f"{what} must lie in [0, 1], not all 0, got {vec.tolist()}")
    return vec


# -- non-private estimators ---------------------------------------------------------------------

def lsw_design(phi: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, float]:
    """(A, ‖A^†‖) for A = Γ^{1/2}Φ; ``ValueError`` unless A has full column rank."""
    a = np.sqrt(w)[:, None] * phi
    sv = np.linalg.svd(a, compute_uv=False)
    if sv.size < phi.shape[1] or sv[-1] <= 1e-12 * max(sv[0], 1e-300):
        raise ValueError(f"ΦᵀΓΦ is singular (Γ^{{1/2}}Φ has rank < d = {phi.shape[1]}): LSW "
                         f"needs Φ of full column rank (eq. (8))")
    return a, float(1.0 / sv[-1])


def lsw_theta(phi: np.ndarray, w: np.ndarray, returns: np.ndarray) -> np.ndarray:
    """θ^w_X of eq. (8), as the least-squares solution of Γ^{1/2}Φθ ≈ Γ^{1/2}F_X."""
    a, _ = lsw_design(phi, w)
    theta, *_ = np.linalg.lstsq(a, np.sqrt(w) * returns, rcond=None)
    return theta


def lsl_theta(phi: np.ndarray, rho: np.ndarray, counts: np.ndarray, returns: np.ndarray,
              m: int, lam: float) -> np.ndarray:
    """θ^λ_X of eq. (11): (ΦᵀΓ_XΦ + (λ/2m)I)⁻¹ΦᵀΓ_XF_X."""
    gx = rho * counts / m
    lhs = phi.T @ (gx[:, None] * phi) + (lam / (2.0 * m)) * np.eye(phi.shape[1])
    return np.linalg.solve(lhs, phi.T @ (gx * returns))


# -- DP-LSW smooth bound ------------------------------------------------------------------------

def _lsw_log_terms(ks: np.ndarray, counts: np.ndarray, w: np.ndarray, beta: float) -> np.ndarray:
    """ln(e^{−kβ} φ^w_k) for each k in ``ks`` (rows)."""
    terms = _phi_term(k=ks[:, None].astype(float), v=counts[None, :].astype(float), w=w[None, :])
    return -ks * beta + np.log(np.sum(terms, axis=1))


def psi_lsw_scan(counts, w, beta: float) -> float:
    """Algorithm 1, line 3, literally: max over k = 0..K_X (O(K_X·N), chunked over k)."""
    counts, w = np.asarray(counts, dtype=np.int64), np.asarray(w, dtype=float)
    top = int(counts.max()) if counts.size else 0
    best = -np.inf
    for start in range(0, top + 1, _CHUNK):
        ks = np.arange(start, min(top, start + _CHUNK - 1) + 1)
        best = max(best, float(np.max(_lsw_log_terms(ks, counts, w, beta))))
    return math.exp(best)


def psi_lsw(counts, w, beta: float) -> float:
    """ψ^w_X, the same maximum as :func:`psi_lsw_scan`, evaluated at the piece ends
    {0, K_X} ∪ {|X_s| − 1} only (log-convex between them; see the module docstring)."""
    counts, w = np.asarray(counts, dtype=np.int64), np.asarray(w, dtype=float)
    top = int(counts.max()) if counts.size else 0
    ks = np.unique(np.concatenate(([0, top], np.clip(counts - 1, 0, top))))
    return math.exp(float(np.max(_lsw_log_terms(ks, counts, w, beta))))


# -- DP-LSL smooth bound ------------------------------------------------------------------------

def lsl_constants(phi_norm: float, rho: np.ndarray, lam: float) -> tuple[float, float]:
    """(c_λ, ‖ρ‖₂) of Algorithm 2."""
    return (LSL_C(Phi_norm=phi_norm, rho_inf=float(np.max(rho)), lam=lam),
            float(np.linalg.norm(rho)))


def _lsl_log_terms(ks, counts, rho, m, beta, c, rho2) -> np.ndarray:
    s = np.sum(_count_term(k=ks[:, None].astype(float), v=counts[None, :].astype(float),
                           rho=rho[None, :], m=float(m)), axis=1)
    return -ks * beta + np.log(_lsl_phi(S=s, c_lambda=c, rho_2=rho2))


def psi_lsl_scan(counts, rho, m: int, beta: float, c: float, rho2: float) -> float:
    """Algorithm 2, line 3, literally: max over k = 0..m (O(m·N), chunked over k)."""
    counts, rho = np.asarray(counts, dtype=np.int64), np.asarray(rho, dtype=float)
    best = -np.inf
    for start in range(0, m + 1, _CHUNK):
        ks = np.arange(start, min(m, start + _CHUNK - 1) + 1)
        best = max(best, float(np.max(_lsl_log_terms(ks, counts, rho, m, beta, c, rho2))))
    return math.exp(best)


def psi_lsl(counts, rho, m: int, beta: float, c: float, rho2: float) -> float:
    """ψ^λ_X, the same maximum as :func:`psi_lsl_scan`: on each piece between the
    breakpoints k = m − |X_s| the sum S_k = a + bk is linear and 2 ln(c√S_k + ‖ρ‖₂) − kβ is
    concave, so the integer maximum is at a piece end or next to the stationary point
    y* = √S = (−β‖ρ‖₂ + √(β²‖ρ‖₂² + 4βc²b))/(2βc)."""
    counts, rho = np.asarray(counts, dtype=np.int64), np.asarray(rho, dtype=float)
    ends = np.unique(np.concatenate(([0, m], np.clip(m - counts, 0, m))))
    cand = [ends]
    for lo, hi in zip(ends[:-1], ends[1:]):
        slope = float(np.sum(rho[counts + lo < m]))
        if slope <= 0.0:
            continue
        s_lo = float(np.sum(rho * np.minimum(counts + lo, m)))
        y = (-beta * rho2 + math.sqrt((beta * rho2)**2 + 4 * beta * c * c * slope)) / (
            2 * beta * c)
        k_star = lo + (y * y - s_lo) / slope
        if np.isfinite(k_star):
            near = np.floor(k_star) + np.arange(-1, 3)
            cand.append(np.clip(near, lo, hi).astype(np.int64))
    ks = np.unique(np.concatenate(cand))
    return math.exp(float(np.max(_lsl_log_terms(ks, counts, rho, m, beta, c, rho2))))


__all__ = ["feature_matrix", "weights_vector", "lsw_design", "lsw_theta", "lsl_theta",
           "psi_lsw", "psi_lsw_scan", "psi_lsl", "psi_lsl_scan", "lsl_constants"]
