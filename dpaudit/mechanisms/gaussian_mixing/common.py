"""Shared pieces of the Gaussian mixing family (Lev et al.): certified formulas, validation of
matrix datasets, the literal sketch S·X + s·ξ, the matrix-normal log-density, and the numerical
inversions of the certified curves (Lemma 1 + Prop. 1, Theorem 1's ε̃).

Every formula is read from ``proofs/certificates/gaussian_mixing.json`` (derived in
``proofs/gaussian_mixing.py``); the functions here only evaluate and invert them.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import sympy as sp
from scipy.optimize import brentq

from dpaudit.util import validation
from dpaudit.claims.certificates import load_formula
from dpaudit.claims.conversions import optimal_rdp_to_dp
from dpaudit.mechanisms.parameters import Parameter

FAMILY = "gaussian_mixing"
NEIGHBOURING = ("zero-out: one row of the n × d data matrix is replaced by 0⃗ (the dataset with "
                "the row must meet the row bound and the scale bound)")

GAMMA = load_formula("gaussian_mixing", "gaussmix_gamma")            # (σ² + λ̄)/C²
SIGMA = load_formula("gaussian_mixing", "gaussmix_sigma")            # √(γC² − λ̄)
RDP_CURVE = load_formula("gaussian_mixing", "gaussmix_rdp")          # φ(α; k, γ), Lemma 1
TCDP_RHO = load_formula("gaussian_mixing", "gaussmix_tcdp_rho")      # k/(2γ²), Corollary 1
TCDP_OMEGA = load_formula("gaussian_mixing", "gaussmix_tcdp_omega")  # 2γ/5
CLOSED_DELTA = load_formula("gaussian_mixing", "gaussmix_dp_closed_form_delta")
SHEFFET_DELTA = load_formula("gaussian_mixing", "sheffet2019_delta")
TAU = load_formula("gaussian_mixing", "theorem1_tau")                # √(2 ln(3/δ))
LAMBDA_SCALE = load_formula("gaussian_mixing", "theorem1_lambda_scale")    # ηC²
LAMBDA_EPS = load_formula("gaussian_mixing", "theorem1_lambda_epsilon")    # √(2ln(3.75/δ))/η
T1_OBJECTIVE = load_formula("gaussian_mixing", "theorem1_objective")
T1_CLOSED = load_formula("gaussian_mixing", "theorem1_closed_form")
CKS = load_formula("gaussian_mixing", "cks_epsilon")                 # Proposition 1

#: largest number of Gaussian draws held at once by a sampler (sub-batches above it)
MAX_DRAWS = 1 << 22


# -- validation ------------------------------------------------------------------------------

def check_number(name: str, value, *, minimum: float = 0.0, strict: bool = True) -> float:
    return validation.number(name, value, minimum=minimum, strict_minimum=strict)


def check_int(name: str, value, minimum: int = 1) -> int:
    return validation.positive_int(name, value, minimum)


def check_mixing_delta(value) -> float:
    """δ of a Gaussian-mixing mechanism: in (0, 1) (every calibration divides by ln(1/δ))."""
    return validation.delta("delta", value, allow_zero=False)




def number_parameter(default: float, doc: str, *, name: str = "") -> Parameter:
    """A declared parameter > 0 (:func:`check_number`)."""
    return Parameter(default, check_number, doc, name=name)


def int_parameter(default: int, doc: str, minimum: int = 1) -> Parameter:
    """A declared whole-number parameter ≥ ``minimum`` (:func:`check_int`)."""
    return Parameter(default, lambda name, v: check_int(name, v, minimum), doc)




#: δ of a Gaussian-mixing mechanism, in (0, 1)
DELTA_PARAMETER = Parameter(1e-3, lambda name, v: check_mixing_delta(v), "δ ∈ (0, 1)")


def data_matrix(dataset, row_bound: float, *, width: int | None = None) -> np.ndarray:
    """The dataset as an n × d float matrix, or a ValueError naming the problem."""
    if dataset is None or isinstance(dataset, (str, bytes, dict)):
        raise ValueError(f"dataset must be an n × d matrix (a list of rows), got "
                         f"{type(dataset).__name__}")
    try:
        arr = np.asarray(dataset, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"dataset must be an n × d matrix of numbers: {exc}") from None
    if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ValueError(f"dataset must be an n × d matrix (a list of rows), got shape "
                         f"{arr.shape}")
    if width is not None and arr.shape[1] != width:
        raise ValueError(f"rows must have {width} entries, got {arr.shape[1]}")
    validation.finite_entries("dataset (rows × columns)", arr)
    norms = np.linalg.norm(arr, axis=1)
    over = np.flatnonzero(norms > row_bound * (1.0 + 1e-9))
    if over.size:
        i = int(over[0])
        raise ValueError(f"row {i} has norm {norms[i]:.6g} > row bound C = {row_bound:g} "
                         f"({over.size} such rows)")
    return arr


def lambda_min(matrix: np.ndarray) -> float:
    """λ_min(XᵀX) of a data matrix X."""
    return float(np.linalg.eigvalsh(matrix.T @ matrix)[0])


check_draw = validation.draw_request


def sketch(matrix: np.ndarray, k: int, noise_sd, n: int, rng) -> np.ndarray:
    """n draws of S·X + s·ξ (shape (n, k, d)), S ~ N(0, I_{k×rows}), ξ ~ N(0, I_{k×d});
    ``noise_sd`` is a number or an array of n per-draw standard deviations."""
    rows, d = matrix.shape
    sd = np.broadcast_to(np.asarray(noise_sd, dtype=float), (n,))
    out = np.empty((n, k, d))
    step = max(1, MAX_DRAWS // (k * (rows + d)))
    for start in range(0, n, step):  # sub-batches bound the memory; each is vectorised
        m = min(step, n - start)
        S = rng.standard_normal((m, k, rows))
        xi = rng.standard_normal((m, k, d))
        out[start:start + m] = S @ matrix + sd[start:start + m, None, None] * xi
    return out


def matrix_normal_logpdf(outputs: np.ndarray, cov: np.ndarray, k: int) -> np.ndarray:
    """Σ over the k rows of ln N(row; 0, cov), for outputs of shape (n, k·d)."""
    d = cov.shape[0]
    m = np.asarray(outputs, dtype=float).reshape(-1, k, d)
    L = np.linalg.cholesky(cov)
    z = np.linalg.solve(L, m.reshape(-1, d).T).T.reshape(m.shape)
    logdet = 2.0 * float(np.sum(np.log(np.diag(L))))
    return -0.5 * np.einsum("nkd,nkd->n", z, z) - 0.5 * k * (d * math.log(2 * math.pi) + logdet)


def formula_expression(*formulas) -> sp.Tuple:
    return sp.Tuple(*(sp.Eq(sp.Symbol(f.name), f.expression) for f in formulas))


# -- inverting the certified curves ----------------------------------------------------------

def rdp_value(alpha: float, k: int, gamma: float) -> float:
    """φ(α; k, γ) from the certified formula; ∞ where rounding puts α/γ at or above 1."""
    try:
        return RDP_CURVE(alpha=alpha, k=k, gamma=gamma)
    except (ValueError, ZeroDivisionError, OverflowError):
        return math.inf


def smallest_gamma(value, target: float, lo: float) -> float:
    """Smallest γ > lo with value(γ) ≤ target, for value decreasing in γ (bisection on ln γ);
    the returned γ satisfies value(γ) ≤ target."""
    start = lo * (1.0 + 1e-9)
    if value(start) <= target:
        return start
    hi = max(2.0 * lo, 1.0)
    while value(hi) > target:
        hi *= 2.0
        if hi > 1e12:
            raise ValueError(f"no γ ≤ 1e12 reaches ε = {target:g}")
    g = math.exp(brentq(lambda lg: value(math.exp(lg)) - target, math.log(start), math.log(hi),
                        xtol=1e-12, rtol=1e-12))
    while value(g) > target:  # the conservative side of the root
        g *= 1.0 + 1e-12
    return g


def lemma1_epsilon(gamma: float, k: int, delta: float) -> float:
    """ε(δ) of Lemma 1 + Proposition 1 at γ: min over α ∈ (1, γ) of the certified CKS formula
    applied to φ (clipped at 0, as Prop. 1 allows)."""
    conv = optimal_rdp_to_dp(lambda a: rdp_value(a, k, gamma), delta, alpha_range=(1.0, gamma),
                             alpha_max_inclusive=False)
    if not math.isfinite(conv.epsilon):
        return math.inf
    return max(0.0, CKS(epsilon_alpha=rdp_value(conv.alpha, k, gamma), alpha=conv.alpha,
                        delta=delta))


@functools.lru_cache(maxsize=256)
def gaussmix_gamma(epsilon: float, delta: float, k: int) -> float:
    """The smallest γ > 1 whose Lemma 1 + Prop. 1 bound at δ is ≤ ε (numerical inversion of
    the certified curve; ε(δ) decreases in γ because φ does, pointwise and on a wider range)."""
    return smallest_gamma(lambda g: lemma1_epsilon(g, k, delta), epsilon, 1.0)


def theorem1_epsilon(eta: float, gamma: float, k: int, delta: float) -> tuple[float, float]:
    """(ε̃(η, γ, k, δ), the minimising α) of Theorem 1, eq. (5): ε₁ + min over α ∈ (1, γ) of
    the certified objective (Prop. 1 on φ at δ/3), minimised numerically."""
    objective = lambda a: T1_OBJECTIVE(alpha=a, k=k, gamma=gamma, delta=delta)  # noqa: E731
    # T1_OBJECTIVE(α) = φ(α) + ln(1 − 1/α) − ln(α·δ/3)/(α − 1) = CKS(φ, α, δ/3); minimise it
    conv = optimal_rdp_to_dp(lambda a: rdp_value(a, k, gamma), delta / 3.0,
                             alpha_range=(1.0, gamma), alpha_max_inclusive=False)
    alpha = conv.alpha
    # the certified formula at the optimiser's α (equal up to ulps); clipped at 0 like Prop. 1
    # itself (a negative value would make ε̃ smaller than the λ̃ release's own ε₁)
    value = max(0.0, objective(alpha))
    return LAMBDA_EPS(eta=eta, delta=delta) + value, alpha


__all__ = ["FAMILY", "NEIGHBOURING", "check_number", "check_int", "check_mixing_delta",
           "DELTA_PARAMETER", "number_parameter", "int_parameter",
           "data_matrix", "lambda_min", "check_draw", "sketch", "matrix_normal_logpdf",
           "formula_expression", "rdp_value", "smallest_gamma", "lemma1_epsilon",
           "gaussmix_gamma", "theorem1_epsilon"]
