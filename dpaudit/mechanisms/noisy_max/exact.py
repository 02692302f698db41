"""Exact output laws, and exact pure ε of pairs, for report-noisy-max mechanisms.

For query answers q ∈ ℝᵐ and i.i.d. noise Z_i with density f and CDF F, the noisy maximum
M = maxᵢ (qᵢ + Zᵢ) and its index I = argmaxᵢ (qᵢ + Zᵢ) have

    P(I = i)  = ∫ f(x − qᵢ) Π_{j≠i} F(x − q_j) dx                     (argmax variants)
    f_M(t)    = Σᵢ f(t − qᵢ) Π_{j≠i} F(t − q_j)
              = Π_j F(t − q_j) · Σᵢ f(t − qᵢ)/F(t − qᵢ)                 (max-value variants)

The argmax integrals are computed by :func:`scipy.integrate.quad` on the pieces between the
kinks (the qᵢ), each with ``epsabs=0`` and ``epsrel=1e-11`` so that small probabilities keep
their relative accuracy; the probabilities sum to 1 within ~1e-10.

The exact pure ε of a pair (d₀, d₁) is the largest absolute log-ratio of the two output laws
over outcomes (probabilities for the argmax, densities for the value).  For the value variants
it is a supremum over t ∈ ℝ; each function below states how it is reached and its tolerance.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import integrate, optimize
from scipy.special import logsumexp

from dpaudit.exact.laplace import laplace_cdf, laplace_pdf

_QUAD = dict(epsabs=0.0, epsrel=1e-11, limit=200)


# -- noise laws (log-space, vectorised) -----------------------------------------------------------

def _laplace_logpdf(x, b):
    return -np.log(2.0 * b) - np.abs(x) / b


def _laplace_logcdf(x, b):
    x = np.asarray(x, dtype=float)
    with np.errstate(over="ignore"):
        return np.where(x < 0, -math.log(2.0) + x / b,
                        np.log1p(-0.5 * np.exp(-np.abs(x) / b)))




def _exponential_pdf(x, b):
    return math.exp(-x / b) / b if x >= 0 else 0.0


def _exponential_cdf(x, b):
    return -math.expm1(-x / b) if x > 0 else 0.0


# -- argmax ---------------------------------------------------------------------------------------

def _check_queries(q) -> np.ndarray:
    q = np.asarray(q, dtype=float)
    if q.ndim != 1 or q.size == 0 or not np.all(np.isfinite(q)):
        raise ValueError(f"query answers must be a non-empty 1-D vector of finite numbers, "
                         f"got {q!r}")
    return q


def _check_scale(b: float) -> float:
    b = float(b)
    if not math.isfinite(b) or b <= 0:
        raise ValueError(f"noise scale must be a finite number > 0, got {b!r}")
    return b


def _argmax_probabilities(q, b: float, pdf, cdf, pieces) -> np.ndarray:
    """P(argmaxᵢ (qᵢ + Zᵢ) = i) = ∫ f(x − qᵢ) Π_{j≠i} F(x − q_j) dx for every i, by quad over
    ``pieces`` (intervals on which the integrand is smooth)."""
    out = np.empty(q.size)
    for i in range(q.size):
        others = np.delete(q, i)

        def integrand(x, qi=q[i], others=others):
            value = pdf(x - qi, b)
            for qj in others:
                value *= cdf(x - qj, b)
            return value

        out[i] = sum(integrate.quad(integrand, lo, hi, **_QUAD)[0] for lo, hi in pieces)
    return out


def laplace_argmax_probabilities(q, b: float) -> np.ndarray:
    """P(argmaxᵢ (qᵢ + Lap(b)) = i) for every i, by quad on the pieces between the qᵢ."""
    q, b = _check_queries(q), _check_scale(b)
    edges = [-math.inf, *np.unique(q).tolist(), math.inf]
    return _argmax_probabilities(q, b, laplace_pdf, laplace_cdf,
                                 list(zip(edges[:-1], edges[1:])))


def exponential_argmax_probabilities(q, b: float) -> np.ndarray:
    """P(argmaxᵢ (qᵢ + Exp(scale b)) = i) for every i.

    The integrand vanishes below max(q) (some F(x − q_j) = 0 there, or f(x − qᵢ) = 0), and is
    smooth above it, so one quad over [max q, ∞) suffices."""
    q, b = _check_queries(q), _check_scale(b)
    return _argmax_probabilities(q, b, _exponential_pdf, _exponential_cdf,
                                 [(float(q.max()), math.inf)])


# -- discrete ε -----------------------------------------------------------------------------------

def discrete_pure_epsilon(p0, p1) -> float:
    """max over outcomes of |ln p0/p1|; ``inf`` if one side has mass where the other has none.

    Outcomes with probability 0 on both sides are ignored."""
    p0, p1 = np.asarray(p0, dtype=float), np.asarray(p1, dtype=float)
    if p0.shape != p1.shape:
        raise ValueError(f"probability vectors differ in shape: {p0.shape} vs {p1.shape}")
    both = (p0 > 0) & (p1 > 0)
    if np.any((p0 > 0) != (p1 > 0)):
        return math.inf
    if not np.any(both):
        return 0.0
    return float(np.max(np.abs(np.log(p0[both]) - np.log(p1[both]))))


def discrete_pair_epsilon(p0, p1, delta: float = 0.0) -> float | None:
    """Exact ε(δ) of two distributions on a finite set, symmetric in the pair.

    δ = 0: :func:`discrete_pure_epsilon`.  δ > 0: ``dpaudit.exact.discrete.discrete_epsilon``
    with ``symmetric=True`` (the larger of the two directions); ``None`` if that module is
    unavailable."""
    delta = float(delta)
    if not 0.0 <= delta < 1.0:
        raise ValueError(f"delta must lie in [0, 1), got {delta!r}")
    if delta == 0.0:
        return discrete_pure_epsilon(p0, p1)
    try:
        from dpaudit.exact.discrete import discrete_epsilon
    except ImportError:  # pragma: no cover - the module ships with dpaudit
        return None
    return float(discrete_epsilon(delta, p0, p1, symmetric=True))


# -- max value: Laplace ---------------------------------------------------------------------------

def laplace_max_logpdf(t, q, b: float) -> np.ndarray:
    """log f_M(t) for M = maxᵢ (qᵢ + Lap(b)), vectorised over t."""
    t = np.asarray(t, dtype=float)[..., None]
    x = t - np.asarray(q, dtype=float)
    log_cdf = _laplace_logcdf(x, b)
    return log_cdf.sum(axis=-1) + logsumexp(_laplace_logpdf(x, b) - log_cdf, axis=-1)


def laplace_max_value_epsilon(q0, q1, b: float, *, points: int = 200_001,
                              tail_scales: float = 30.0) -> float:
    """sup_t |ln f₀(t)/f₁(t)| for the max of independent shifted Laplace(b) variables.

    * For t < min(q₀ ∪ q₁) every factor is in its left (exponential) regime, so the log-ratio
      is exactly the constant (Σq₁ − Σq₀)/b there.
    * As t → ∞ it tends to ln Σe^{q₀ᵢ/b} − ln Σe^{q₁ᵢ/b}; beyond max q + K·b (K =
      ``tail_scales`` = 30) it differs from that limit by at most ~2m·e^{−K} ≈ 1e-12·m.
    * In between it is evaluated in log space on a uniform grid of ``points`` points, then the
      best grid cells are refined by bounded Brent search.  Writing
      f_M = Π_j F_j · Σᵢ fᵢ/Fᵢ with Laplace fᵢ/Fᵢ ∈ (0, 1/b], d/dt ln f_M ∈ [−2/b, m/b], so
      the log-ratio is (m+2)/b-Lipschitz and the grid maximum is within h·(m+2)/(2b) of the
      supremum, h = grid step: ≈ (spread/b + K)·(m+2)/(2·points)
      ≈ 7.5e-5·(m+2) for the defaults.  Refinement only raises the value.
    """
    q0, q1 = _check_queries(q0), _check_queries(q1)
    b = _check_scale(b)
    if q0.size != q1.size:
        raise ValueError("the two query vectors differ in length")
    left = (q1.sum() - q0.sum()) / b
    right = float(logsumexp(q0 / b) - logsumexp(q1 / b))
    lo = float(min(q0.min(), q1.min()))
    hi = float(max(q0.max(), q1.max())) + tail_scales * b

    def ratio(t):
        return laplace_max_logpdf(t, q0, b) - laplace_max_logpdf(t, q1, b)

    grid = np.linspace(lo, hi, points)
    best = max(abs(left), abs(right), _refined_abs_max(ratio, grid))
    return float(best)


def _refined_abs_max(fn, grid: np.ndarray, top: int = 3) -> float:
    """max |fn| on ``grid``, then Brent-refined on the cells around the ``top`` best points."""
    values = fn(grid)
    best = float(np.max(np.abs(values)))
    for sign in (1.0, -1.0):
        order = np.argsort(-sign * values)[:top]
        for k in order:
            lo, hi = grid[max(k - 1, 0)], grid[min(k + 1, grid.size - 1)]
            if hi <= lo:
                continue
            res = optimize.minimize_scalar(lambda t: -sign * float(fn(np.array([t]))[0]),
                                           bounds=(lo, hi), method="bounded",
                                           options={"xatol": 1e-12})
            best = max(best, abs(float(res.fun)))
    return best


# -- max value: exponential -----------------------------------------------------------------------

def exponential_max_logpdf(t, q, b: float) -> np.ndarray:
    """log f_M(t) for M = maxᵢ (qᵢ + Exp(scale b)) (−inf below max q), vectorised over t."""
    t = np.asarray(t, dtype=float)[..., None]
    x = t - np.asarray(q, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_cdf = np.where(x > 0, np.log(-np.expm1(-np.maximum(x, 1e-300) / b)), -np.inf)
        log_pdf = np.where(x >= 0, -math.log(b) - x / b, -np.inf)
        # Σᵢ f(xᵢ) Π_{j≠i} F(x_j), each term in log space (F(x_j) = 0 kills the term)
        terms = np.empty_like(x)
        for i in range(x.shape[-1]):
            terms[..., i] = log_pdf[..., i] + np.delete(log_cdf, i, axis=-1).sum(axis=-1)
        return logsumexp(terms, axis=-1)


def exponential_max_value_epsilon(q0, q1, b: float, *, points: int = 200_001,
                                  tail_scales: float = 40.0) -> float:
    """sup_t |ln f₀(t)/f₁(t)| for the max of independent shifted Exp(scale b) variables.

    The support of M is [max q, ∞).  It returns ``inf`` when the supports differ
    (max q₀ ≠ max q₁), and also when the numbers k₀, k₁ of queries tied at the maximum differ,
    because f_M(t) ∝ (t − max q)^{k−1} as t ↓ max q and the ratio is unbounded there.
    Otherwise it is the larger of the limit at t ↓ max q (Π of the non-tied F(max q − q_j)),
    the limit at t → ∞ (ln Σe^{q₀ᵢ/b} − ln Σe^{q₁ᵢ/b}), and a grid (log-spaced near max q,
    uniform beyond, ``points`` points each) refined by Brent search; the grid is a heuristic
    here (no global Lipschitz bound near the tied maximum), accurate to ~1e-6 in tests."""
    q0, q1 = _check_queries(q0), _check_queries(q1)
    b = _check_scale(b)
    if q0.size != q1.size:
        raise ValueError("the two query vectors differ in length")
    top0, top1 = float(q0.max()), float(q1.max())
    if top0 != top1:
        return math.inf
    ties0, ties1 = int(np.sum(q0 == top0)), int(np.sum(q1 == top1))
    if ties0 != ties1:
        return math.inf
    top = top0

    def below_top_logcdf(q):
        rest = q[q < top]
        return float(np.sum(np.log(-np.expm1(-(top - rest) / b)))) if rest.size else 0.0

    start = below_top_logcdf(q0) - below_top_logcdf(q1)
    right = float(logsumexp(q0 / b) - logsumexp(q1 / b))

    def ratio(t):
        return exponential_max_logpdf(t, q0, b) - exponential_max_logpdf(t, q1, b)

    spread = float(max(q0.max() - q0.min(), q1.max() - q1.min()))
    near = top + b * np.logspace(-9, 0, points)
    far = np.linspace(top + b, top + spread + tail_scales * b, points)
    best = max(abs(start), abs(right), _refined_abs_max(ratio, near), _refined_abs_max(ratio, far))
    return float(best)
