"""The exact law of cyclic SGLD on the one-dimensional linear-Gaussian model.

Setting (Section 4.2 and Lemma A.1 of "Can stochastic gradient Langevin dynamics provide
differential privacy for deep learning?").  For the Bayesian linear regression of eq. (4)
(prior N(0, α⁻¹), likelihood N(y; θx, β⁻¹)) one SGLD step (eq. 3) on a batch B of size b is

    θ' = θ + (η/2)[−αθ + (n/b) Σ_{i∈B} β xᵢ(yᵢ − θxᵢ)] + √η ξ
       = a_B θ + ρ_B + √η ξ,   a_B = 1 − (η/2)(α + (n/b) β Σ_B xᵢ²),
                               ρ_B = (η/2)(n/b) β Σ_B xᵢyᵢ,   ξ ~ N(0, 1),

an affine map plus independent Gaussian noise: a *Gaussian step* (A, B, V) : θ ↦ Aθ + B +
N(0, V).  Steps compose exactly — (A₂, B₂, V₂)∘(A₁, B₁, V₁) = (A₂A₁, A₂B₁ + B₂, A₂²V₁ + V₂)
— and a step repeated m times is, in closed form,

    (a, ρ, v)^m = (aᵐ, ρ·G(a, m), v·G(a², m)),   G(a, m) = Σ_{i<m} aⁱ = (1 − aᵐ)/(1 − a).

Cyclic SGLD shuffles the n records once and then cycles through the K = n/b batches.  On a
dataset of n identical records every batch gives the same step N = (a, ρ, η), so θ_T ~
N(μ_T, σ_T²) with θ₀ ~ N(m₀, v₀) pushed through N^T.  On a dataset where one record differs
(the pair D₁, D₂ of eq. 7) the batch holding the odd record gives a different step
O = (â, ρ̂, η), and it sits at batch position r, uniform on {0, …, K−1} because the shuffle is
uniform.  Given r, θ_T is Gaussian: with T = kK + s (0 ≤ s < K),

    law(θ_T | r) = P_{r,s} ∘ E_r^k (θ₀),   E_r = N^{K−1−r} ∘ O ∘ N^r   (one epoch),
    P_{r,s} = N^s if s ≤ r, else N^{s−r−1} ∘ O ∘ N^r                (the partial epoch),

so θ_T is the equal-weight mixture over r of K Gaussians (Lemma A.1 and Corollary A.1 of the
paper, for b = 1).  E_r^k is again closed form: its slope A_E = â a^{K−1} does not depend on
r, so E_r^k = (A_Eᵏ, B_r G(A_E, k), V_r G(A_E², k)).  Every component therefore costs O(1)
scalar operations at any T (no loop over steps, let alone over samples), vectorised over the
K components; :func:`step_by_step_law` is the plain O(T·K) recursion over steps, kept as the
reference the closed form is tested against.

Numerics.  For 0 < a < 1 (the paper's step size gives 1 − a = 1/(α + n x_h² β)), aᵐ and
G(a, m) are evaluated as exp(m·log1p(−(1 − a))) and −expm1(m·log1p(−(1 − a)))/(1 − a) with
1 − a passed in exactly (not recomputed as 1 − a), so neither loses precision when a is
within 10⁻⁷ of 1.  Other slopes (a ≤ 0, a ≥ 1: step sizes beyond the stable range) use
``numpy.power`` directly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def _geometric_sum(a: float, one_minus_a: float, m):
    """(aᵐ, G(a, m) = Σ_{i<m} aⁱ) for integer arrays m ≥ 0, accurate when a is close to 1."""
    m = np.asarray(m, dtype=float)
    if 0.0 < a < 1.0 and one_minus_a > 0.0:
        log_a = np.log1p(-one_minus_a)
        power = np.exp(m * log_a)
        return power, -np.expm1(m * log_a) / one_minus_a
    if a == 1.0:
        return np.ones_like(m), m.copy()
    power = np.power(a, m)
    return power, (1.0 - power) / one_minus_a


@dataclass(frozen=True)
class GaussianStep:
    """θ ↦ a·θ + b + N(0, v), with ``one_minus_a`` = 1 − a given exactly (see module doc)."""

    a: float
    b: float
    v: float
    one_minus_a: float

    def power(self, m):
        """(A, B, V) arrays of this step applied m times (m an integer array ≥ 0)."""
        A, G = _geometric_sum(self.a, self.one_minus_a, m)
        _, G2 = _geometric_sum(self.a * self.a, self.one_minus_a * (1.0 + self.a), m)
        return A, self.b * G, self.v * G2


def compose(outer, inner):
    """outer ∘ inner for (A, B, V) triples (arrays broadcast): inner is applied first."""
    Ao, Bo, Vo = outer
    Ai, Bi, Vi = inner
    return Ao * Ai, Ao * Bi + Bo, Ao * Ao * Vi + Vo


def push(step, mean0: float, var0: float):
    """(mean, variance) of A·θ₀ + B + N(0, V) for θ₀ ~ N(mean0, var0)."""
    A, B, V = step
    return A * mean0 + B, A * A * var0 + V


@dataclass(frozen=True)
class CyclicLaw:
    """Law of θ_T for cyclic SGLD with K batches, the common batch step ``normal`` and, if
    ``odd`` is not None, one batch (at a uniformly random position) with step ``odd``.

    ``mean0``, ``var0``: the law N(mean0, var0) of θ₀ (the prior N(0, α⁻¹) in the paper)."""

    batches: int
    normal: GaussianStep
    odd: GaussianStep | None
    mean0: float
    var0: float

    def components(self, steps: int):
        """(weights, means, variances) of θ_T at T = ``steps``: one Gaussian (arrays of
        length 1) without an odd batch, else K equal-weight components indexed by r."""
        steps = int(steps)
        if steps < 0:
            raise ValueError(f"steps must be ≥ 0, got {steps}")
        K = self.batches
        if self.odd is None:
            mean, var = push(self.normal.power(np.array([steps])), self.mean0, self.var0)
            return np.ones(1), mean, var
        k, s = divmod(steps, K)
        r = np.arange(K)
        N, O = self.normal, self.odd
        odd = (O.a, O.b, O.v)
        before = N.power(r)                       # N^r
        through = compose(odd, before)            # O ∘ N^r
        epoch = compose(N.power(K - 1 - r), through)
        # E_r^k: the slope A_E = â a^{K−1} is the same for every r
        a_pow, g_km1 = _geometric_sum(N.a, N.one_minus_a, K - 1)
        A_E = float(O.a * a_pow)
        one_minus_AE = float(O.one_minus_a + O.a * N.one_minus_a * g_km1)
        _, g2_km1 = _geometric_sum(N.a * N.a, N.one_minus_a * (1.0 + N.a), K - 1)
        # 1 − xy = (1 − x) + x(1 − y), and 1 − a^m = (1 − a)·G(a, m): no cancellation
        one_minus_AE2 = float(O.one_minus_a * (1.0 + O.a)
                              + O.a * O.a * N.one_minus_a * (1.0 + N.a) * g2_km1)
        Ak, Gk = _geometric_sum(A_E, one_minus_AE, k)
        _, G2k = _geometric_sum(A_E * A_E, one_minus_AE2, k)
        repeated = (np.full(K, float(Ak)), epoch[1] * Gk, epoch[2] * G2k)
        partial_odd = compose(N.power(np.maximum(s - r - 1, 0)), through)
        partial_normal = N.power(np.full(K, s))
        late = r < s                              # the odd batch already ran in this epoch
        partial = tuple(np.where(late, po, pn) for po, pn in zip(partial_odd, partial_normal))
        mean, var = push(compose(partial, repeated), self.mean0, self.var0)
        return np.full(K, 1.0 / K), mean, var


def step_by_step_law(batches: int, normal: GaussianStep, odd: GaussianStep | None,
                     mean0: float, var0: float, steps: int):
    """Reference: the same (weights, means, variances) by iterating the T steps one by one
    for every position r (O(T·K)); for tests of :meth:`CyclicLaw.components`."""
    K = batches
    if odd is None:
        mean, var = float(mean0), float(var0)
        for _ in range(steps):
            mean, var = normal.a * mean + normal.b, normal.a ** 2 * var + normal.v
        return np.ones(1), np.array([mean]), np.array([var])
    r = np.arange(K)
    mean, var = np.full(K, float(mean0)), np.full(K, float(var0))
    for t in range(steps):
        is_odd = (t % K) == r
        a = np.where(is_odd, odd.a, normal.a)
        b = np.where(is_odd, odd.b, normal.b)
        v = np.where(is_odd, odd.v, normal.v)
        mean, var = a * mean + b, a * a * var + v
    return np.full(K, 1.0 / K), mean, var


__all__ = ["GaussianStep", "CyclicLaw", "compose", "push", "step_by_step_law"]
