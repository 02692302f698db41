"""Step-by-step SGLD (eq. 3 of the SGLD-privacy paper; Welling & Teh 2011), vectorised over
many independent chains.

    θ_{j+1} = θ_j + (η_j/2)[∇ ln p(θ_j) + (n/b) Σ_{i∈B_j} ∇ ln p(y_i | θ_j)] + √η_j ξ_j,

with ξ_j ~ N(0, 1) and the batch B_j of b records chosen by

* ``"uniform"``: b indices drawn i.i.d. uniformly from {1, …, n} at every step (eq. 3's
  i_j ~ uniform{1, …, n}, with replacement);
* ``"cyclic"``: one uniform permutation per chain ("shuffle once"), cut into K = n/b
  consecutive batches that are used in order, cycling (Section 3.2); n must be divisible by b.

The model is given by its gradients only (:class:`Model`), so any differentiable log-prior and
log-likelihood can be simulated; :class:`LinearGaussianModel` is the Bayesian linear regression
of eq. (4).  One output is the parameter after T steps.  The chains' θ₀ are drawn from
``model.sample_initial``.  Cost O(T·chains); the cyclic permutations need chains × n indices,
so chains are processed in blocks of at most ``MAX_INDEX_CELLS / n``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

SCHEMES = ("cyclic", "uniform")
MAX_INDEX_CELLS = 1 << 23


class Model:
    """A differentiable Bayesian model for SGLD: subclasses give the gradients, vectorised."""

    def grad_log_prior(self, theta: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def grad_log_likelihood(self, theta, x, y) -> np.ndarray:  # pragma: no cover - abstract
        """∇θ ln p(y | x, θ) for arrays broadcasting θ (chains, 1) against x, y (chains, b)."""
        raise NotImplementedError

    def sample_initial(self, size: int, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError  # pragma: no cover - abstract


@dataclass(frozen=True)
class LinearGaussianModel(Model):
    """y = θx + N(0, β⁻¹), θ ~ N(0, α⁻¹) (eq. 4): ∇ ln p(θ) = −αθ, ∇ ln p(y|θ) = βx(y − θx);
    θ₀ is drawn from the prior (the initial law in the variances of Lemmas A.1-A.3)."""

    alpha: float
    beta: float

    def grad_log_prior(self, theta):
        return -self.alpha * theta

    def grad_log_likelihood(self, theta, x, y):
        return self.beta * x * (y - theta * x)

    def sample_initial(self, size, rng):
        return rng.normal(0.0, 1.0 / math.sqrt(self.alpha), size=size)


def simulate_sgld(model: Model, data, *, steps: int, chains: int, step_size: float,
                  batch_size: int = 1, scheme: str = "cyclic",
                  rng: np.random.Generator) -> np.ndarray:
    """θ_T of ``chains`` independent SGLD runs on ``data`` (an (n, 2) array of (x, y) rows)."""
    data = np.asarray(data, dtype=float)
    if data.ndim != 2 or data.shape[1] != 2:
        raise ValueError(f"data must be an (n, 2) array of (x, y) records, got {data.shape}")
    n = data.shape[0]
    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {SCHEMES}, got {scheme!r}")
    b = int(batch_size)
    if b < 1 or b > n:
        raise ValueError(f"batch_size must be between 1 and n = {n}, got {batch_size}")
    if scheme == "cyclic" and n % b:
        raise ValueError(f"cyclic SGLD needs n divisible by the batch size: n = {n}, b = {b}")
    steps, chains = int(steps), int(chains)
    if steps < 0 or chains < 0:
        raise ValueError("steps and chains must be ≥ 0")
    x, y = data[:, 0], data[:, 1]
    out = np.empty(chains)
    block = chains if scheme == "uniform" else max(1, MAX_INDEX_CELLS // n)
    scale, noise = 0.5 * step_size, math.sqrt(step_size)
    for start in range(0, chains, max(block, 1)):
        m = min(block, chains - start)
        theta = model.sample_initial(m, rng)
        if scheme == "cyclic":
            order = rng.permuted(np.tile(np.arange(n), (m, 1)), axis=1)
            batches = n // b
        for t in range(steps):
            if scheme == "cyclic":
                j = t % batches
                idx = order[:, j * b:(j + 1) * b]
            else:
                idx = rng.integers(0, n, size=(m, b))
            grad = model.grad_log_prior(theta) + (n / b) * model.grad_log_likelihood(
                theta[:, None], x[idx], y[idx]).sum(axis=1)
            theta = theta + scale * grad + noise * rng.standard_normal(m)
        out[start:start + m] = theta
    return out


__all__ = ["Model", "LinearGaussianModel", "simulate_sgld", "SCHEMES"]
