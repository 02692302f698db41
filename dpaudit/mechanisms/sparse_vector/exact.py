"""Exact output laws, and exact pure ε of pairs, for sparse-vector (SVT) mechanisms.

Notation (Lyu, Su & Li, VLDB 2017): query answers q₁…q_m, threshold T, threshold noise
ρ ~ Lap(b_ρ), query noise νᵢ ~ Lap(b_ν) i.i.d. (b_ν = 0: no query noise, Alg. 5), cutoff c
(``None``: no cutoff).  Query i is answered ⊤ iff qᵢ + νᵢ ≥ T + ρ; after the c-th ⊤ the
algorithm stops and the remaining positions are "not answered".  Outputs are coded as in
:mod:`dpaudit.mechanisms.sparse_vector.mechanisms`: 1 = ⊤, 0 = ⊥, −1 = not answered.

Given ρ = r the answers are independent, so an output pattern a has probability

    P(a) = ∫ f_ρ(r) Π_{i answered} P(aᵢ | r) dr,
    P(⊤ | r) = 1 − F_ν(T + r − qᵢ),   P(⊥ | r) = F_ν(T + r − qᵢ),

a one-dimensional integral computed by :func:`scipy.integrate.quad` on the pieces between
its kinks (r = 0 and r = qᵢ − T) with ``epsabs=0, epsrel=1e-11`` (relative accuracy even for
small probabilities; all patterns sum to 1 within ~1e-10).  Without query noise (Alg. 5) the
answers are deterministic given ρ and P(a) = P(L < ρ ≤ U) in closed form, with
U = min_{⊤}(qᵢ − T) and L = max_{⊥}(qᵢ − T) (0 when L ≥ U: an impossible pattern).

For Alg. 3 (a ⊤ position releases the noisy value qᵢ + νᵢ) see :func:`svt_values_epsilon`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
from scipy import integrate

from dpaudit.exact.laplace import laplace_cdf, laplace_pdf
from dpaudit.mechanisms.noisy_max.exact import discrete_pair_epsilon

_QUAD = dict(epsabs=0.0, epsrel=1e-11, limit=200)

TOP, BOTTOM, UNANSWERED = 1, 0, -1




def _laplace_sf(x: float, b: float) -> float:
    return laplace_cdf(-x, b)


def svt_patterns(m: int, c: int | None) -> Iterator[tuple[int, ...]]:
    """Every reachable output pattern of m queries with cutoff c (``None``: no cutoff)."""
    if m < 1:
        raise ValueError(f"need at least one query, got m={m}")
    if c is not None and c < 1:
        raise ValueError(f"cutoff c must be >= 1 or None, got {c}")

    def extend(prefix: tuple[int, ...], tops: int):
        if len(prefix) == m:
            yield prefix
            return
        if c is not None and tops >= c:
            yield prefix + (UNANSWERED,) * (m - len(prefix))
            return
        yield from extend(prefix + (TOP,), tops + 1)
        yield from extend(prefix + (BOTTOM,), tops)

    yield from extend((), 0)


def pattern_count(m: int, c: int | None) -> int:
    """The number of patterns :func:`svt_patterns` yields: 2^m without a cutoff, else
    Σ_{j ≤ c} C(m, j) (fewer than c ⊤ among m, plus C(m, c) ways to stop at the c-th ⊤)."""
    if c is None or c >= m:
        return 2 ** m
    return sum(math.comb(m, j) for j in range(c + 1))


def _check(q, T, b_rho, b_nu):
    q = np.asarray(q, dtype=float)
    if q.ndim != 1 or q.size == 0 or not np.all(np.isfinite(q)):
        raise ValueError(f"query answers must be a non-empty 1-D vector of finite numbers, "
                         f"got {q!r}")
    if not (math.isfinite(b_rho) and b_rho > 0):
        raise ValueError(f"threshold noise scale b_rho must be > 0, got {b_rho!r}")
    if not (math.isfinite(b_nu) and b_nu >= 0):
        raise ValueError(f"query noise scale b_nu must be >= 0, got {b_nu!r}")
    return q, float(T)


def pattern_probability(pattern, q, T: float, b_rho: float, b_nu: float) -> float:
    """P(output = pattern) on query answers q (see the module docstring)."""
    q, T = _check(q, T, b_rho, b_nu)
    pattern = tuple(int(a) for a in pattern)
    if len(pattern) != q.size:
        raise ValueError(f"pattern has {len(pattern)} entries for {q.size} queries")
    answered = [(i, a) for i, a in enumerate(pattern) if a != UNANSWERED]
    if b_nu == 0.0:
        upper = min((q[i] - T for i, a in answered if a == TOP), default=math.inf)
        lower = max((q[i] - T for i, a in answered if a == BOTTOM), default=-math.inf)
        if lower >= upper:
            return 0.0
        cdf = lambda x: 0.0 if x == -math.inf else 1.0 if x == math.inf else laplace_cdf(x, b_rho)
        return max(0.0, cdf(upper) - cdf(lower))

    shifts = [(T - q[i], a == TOP) for i, a in answered]

    def integrand(r):
        value = laplace_pdf(r, b_rho)
        for shift, top in shifts:
            value *= _laplace_sf(r + shift, b_nu) if top else laplace_cdf(r + shift, b_nu)
        return value

    knots = sorted({0.0, *(-s for s, _ in shifts)})
    edges = [-math.inf, *knots, math.inf]
    return float(sum(integrate.quad(integrand, lo, hi, **_QUAD)[0]
                     for lo, hi in zip(edges[:-1], edges[1:])))


def pattern_probabilities(q, T: float, b_rho: float, b_nu: float,
                          c: int | None) -> dict[tuple[int, ...], float]:
    """{pattern: probability} over every reachable pattern (they sum to 1)."""
    q, T = _check(q, T, b_rho, b_nu)
    return {a: pattern_probability(a, q, T, b_rho, b_nu) for a in svt_patterns(q.size, c)}


def svt_pattern_epsilon(q0, q1, T: float, b_rho: float, b_nu: float, c: int | None,
                        delta: float = 0.0) -> float | None:
    """Exact ε(δ) of the pair for ⊤/⊥ outputs: max over patterns of |ln P₀/P₁| at δ = 0
    (``inf`` when a pattern is possible on one side only); δ > 0 via
    :func:`dpaudit.mechanisms.noisy_max.exact.discrete_pair_epsilon` (``None`` if unavailable)."""
    p0 = pattern_probabilities(q0, T, b_rho, b_nu, c)
    p1 = pattern_probabilities(q1, T, b_rho, b_nu, c)
    keys = list(p0)
    return discrete_pair_epsilon([p0[k] for k in keys], [p1[k] for k in keys], delta)


def worst_pattern(q0, q1, T: float, b_rho: float, b_nu: float, c: int | None):
    """(pattern, P₀, P₁, |ln P₀/P₁|) of the pattern attaining the pure ε of the pair."""
    p0 = pattern_probabilities(q0, T, b_rho, b_nu, c)
    p1 = pattern_probabilities(q1, T, b_rho, b_nu, c)
    best = None
    for a in p0:
        x, y = p0[a], p1[a]
        if x == 0 and y == 0:
            continue
        value = math.inf if (x == 0 or y == 0) else abs(math.log(x / y))
        if best is None or value > best[3]:
            best = (a, x, y, value)
    return best


# -- Alg. 3: released noisy values ----------------------------------------------------------------

def _gl_nodes(k: int = 12):
    x, w = np.polynomial.legendre.leggauss(k)
    return (x + 1.0) / 2.0, w / 2.0


_NODES, _WEIGHTS = _gl_nodes()


def svt_values_epsilon(q0, q1, T: float, b_rho: float, b_nu: float, c: int = 1, *,
                       cells: int = 20_000, tail_scales: float = 30.0) -> float | None:
    """Exact pure ε of the pair for Alg. 3 outputs (the ⊤ position carries qⱼ + νⱼ), c = 1.

    With c = 1 an output is either the atom "all ⊥", of probability
    A = ∫ f_ρ(r) Π_{i≤m} F_ν(T + r − qᵢ) dr, or (j, v): ⊥ on queries < j, value v at j, with
    density h_j(v) = f_ν(v − q_j) · G_j(v − T),  G_j(u) = ∫_{−∞}^{u} φ_j(r) dr,
    φ_j(r) = f_ρ(r) Π_{i<j} F_ν(T + r − qᵢ).  The ε of the pair is
    max(|ln A₀/A₁|, sup_{j,v} |ln h₀ⱼ(v)/h₁ⱼ(v)|).

    How the supremum is reached, and its tolerance:

    * below every kink (u < 0, u < qᵢ − T, v < qⱼ) φ_j is one exponential and the log-ratio
      is exactly the constant Σ_{i≤j}(q₁ᵢ − q₀ᵢ)/b_ν; as v → ∞ it tends to
      (q₀ⱼ − q₁ⱼ)/b_ν + ln(G₀ⱼ(∞)/G₁ⱼ(∞)), and K = ``tail_scales`` noise scales past the last
      kink it is within ~e^{−K} of that limit.  Both limits are included.
    * in between, G_j is accumulated over a grid of ``cells`` cells in u (the kinks are cell
      edges) by 12-point Gauss–Legendre per cell, from the closed-form left tail, in log space.
      φ_j is log-concave, so (ln G_j)′ = φ_j/G_j is decreasing, within [0, k_j] with
      k_j = 1/b_ρ + j/b_ν (its left limit), and (ln f_ν)′ = ±1/b_ν; the log-ratio is thus
      L = (2/b_ν + k_j)-Lipschitz and the grid maximum is within h·L/2 of the supremum
      (h = cell width; ≤ 1e-2 at the mechanism defaults, m = 6).  The three best cells
      (each sign) are then re-gridded 2000 times finer, so an interior maximum is found to
      ~1e-5; the rigorous guarantee remains the coarse bound.

    Returns ``None`` for c > 1 (the joint law of several released values is not implemented).
    """
    if c != 1:
        return None
    q0, T = _check(q0, T, b_rho, b_nu)
    q1, _ = _check(q1, T, b_rho, b_nu)
    if b_nu <= 0:
        raise ValueError("Alg. 3 needs query noise b_nu > 0")
    if q0.size != q1.size:
        raise ValueError("the two query vectors differ in length")
    m = q0.size
    atom0 = pattern_probability((BOTTOM,) * m, q0, T, b_rho, b_nu)
    atom1 = pattern_probability((BOTTOM,) * m, q1, T, b_rho, b_nu)
    best = abs(math.log(atom0 / atom1))
    for j in range(m):
        best = max(best, _values_sup(q0, q1, j, T, b_rho, b_nu, cells, tail_scales))
    return float(best)


def values_density(q, j: int, v: float, T: float, b_rho: float, b_nu: float) -> float:
    """h_j(v) of Alg. 3 with c = 1 (0-based position j): the density of "⊥ on every query
    before j, released value v at j", by quad (independent of the grid used above)."""
    q, T = _check(q, T, b_rho, b_nu)
    shifts = T - q[:j]

    def phi(r):
        value = laplace_pdf(r, b_rho)
        for s in shifts:
            value *= laplace_cdf(r + s, b_nu)
        return value

    u = float(v) - T
    knots = sorted(k for k in {0.0, *(-shifts)} if k < u)
    edges = [-math.inf, *knots, u]
    g = sum(integrate.quad(phi, lo, hi, **_QUAD)[0] for lo, hi in zip(edges[:-1], edges[1:]))
    return laplace_pdf(float(v) - q[j], b_nu) * g


def _log_phi(r, q, j, T, b_rho, b_nu):
    """ln φ_j(r) = ln f_ρ(r) + Σ_{i<j} ln F_ν(T + r − qᵢ), vectorised."""
    out = -math.log(2 * b_rho) - np.abs(r) / b_rho
    for s in T - q[:j]:
        x = r + s
        out = out + np.where(x < 0, -math.log(2) + np.minimum(x, 0) / b_nu,
                             np.log1p(-0.5 * np.exp(-np.abs(x) / b_nu)))
    return out


def _log_cells(q, j, T, b_rho, b_nu, edges):
    """ln ∫ φ_j over each cell [edges[k], edges[k+1]] (12-point Gauss–Legendre, log space)."""
    width = np.diff(edges)
    log_phi = _log_phi(edges[:-1, None] + width[:, None] * _NODES[None, :], q, j, T, b_rho, b_nu)
    top = np.max(log_phi, axis=1)
    return top + np.log(np.sum(_WEIGHTS[None, :] * np.exp(log_phi - top[:, None]), axis=1)
                        * width)


def _log_G(q, j, T, b_rho, b_nu, edges, log_start=None):
    """ln G_j at every edge; ``log_start`` = ln G_j(edges[0]), or the closed-form left tail
    (valid when edges[0] lies below every kink: there φ_j(r) = exp(a + k r))."""
    if log_start is None:
        k = 1.0 / b_rho + j / b_nu
        a = -math.log(2 * b_rho) - j * math.log(2) + float(np.sum(T - q[:j])) / b_nu
        log_start = a + k * edges[0] - math.log(k)
    return np.logaddexp.accumulate(np.concatenate([[log_start],
                                                   _log_cells(q, j, T, b_rho, b_nu, edges)]))


def _log_ratio(q0, q1, j, T, b_nu, u, log_g0, log_g1):
    v = u + T
    return (-np.abs(v - q0[j]) / b_nu + log_g0) - (-np.abs(v - q1[j]) / b_nu + log_g1)


def _values_sup(q0, q1, j, T, b_rho, b_nu, cells, tail_scales, refine=3, fine=2000):
    kinks = np.array(sorted({0.0, *(q0[:j] - T), *(q1[:j] - T), q0[j] - T, q1[j] - T}))
    lo = float(kinks[0]) - b_rho
    hi = float(kinks[-1]) + tail_scales * max(b_rho, b_nu)
    u = np.unique(np.concatenate([np.linspace(lo, hi, cells + 1), kinks]))
    log_g0 = _log_G(q0, j, T, b_rho, b_nu, u)
    log_g1 = _log_G(q1, j, T, b_rho, b_nu, u)
    ratio = _log_ratio(q0, q1, j, T, b_nu, u, log_g0, log_g1)
    left = float(np.sum(q1[: j + 1] - q0[: j + 1])) / b_nu
    right = (q0[j] - q1[j]) / b_nu + (log_g0[-1] - log_g1[-1])
    best = max(abs(left), abs(right), float(np.max(np.abs(ratio))))
    for sign in (1.0, -1.0):
        for k in np.argsort(-sign * ratio)[:refine]:
            a, b = max(k - 1, 0), min(k + 1, u.size - 1)
            sub = np.linspace(u[a], u[b], fine + 1)
            g0 = _log_G(q0, j, T, b_rho, b_nu, sub, log_g0[a])
            g1 = _log_G(q1, j, T, b_rho, b_nu, sub, log_g1[a])
            best = max(best, float(np.max(np.abs(_log_ratio(q0, q1, j, T, b_nu, sub, g0, g1)))))
    return best


def all_patterns_table(q, T, b_rho, b_nu, c) -> list[tuple[tuple[int, ...], float]]:
    """Patterns and probabilities as a list sorted by probability (for reports and tests)."""
    probs = pattern_probabilities(q, T, b_rho, b_nu, c)
    return sorted(probs.items(), key=lambda kv: -kv[1])


__all__ = ["TOP", "BOTTOM", "UNANSWERED", "pattern_count", "svt_patterns", "pattern_probability",
           "pattern_probabilities", "svt_pattern_epsilon", "worst_pattern", "svt_values_epsilon",
           "values_density", "all_patterns_table"]
