"""The synthetic data of the paper's experiments (Rho, Cummings & Misra 2023, §4 and App. A.1).

M_{i,t} = θᵢ·t and m_t = θ₀·t for t = 1, …, T with T = T₀ + 3; θᵢ i.i.d. truncated Gaussian
with mean 4, variance 1, support [3, 5]; every entry of Z and z i.i.d. truncated Gaussian with
mean 0, variance 0.1, support [−1, 1]; X = M + Z, y = m + z (eq. (1)).

Choices where the paper is silent (recorded in :class:`SyntheticControlData` and the report):

* θ₀ (the target's slope) is drawn from the same law as the donors' θᵢ;
* "mean 4, variance 1" and "mean 0, variance 0.1" are the *parent* normal's parameters,
  truncated to the support (the usual reading of "truncated Gaussian with …");
* rescaling to eq. (3)'s [−1, 1]: every series is divided by the data-independent bound
  B = 5T + 1 ≥ |θ t + noise| (a bound of the generator, so the rescaling reveals nothing about
  the data); X, y, M, m are returned on that scale, and RMSEs are reported on it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import truncnorm

THETA_MEAN, THETA_SD, THETA_SUPPORT = 4.0, 1.0, (3.0, 5.0)
NOISE_MEAN, NOISE_SD, NOISE_SUPPORT = 0.0, float(np.sqrt(0.1)), (-1.0, 1.0)
POST_PERIODS = 3


@dataclass(frozen=True)
class SyntheticControlData:
    """One generated dataset on the [−1, 1] scale, with its latent truth."""

    X: np.ndarray        # n × T donor pool (rescaled)
    y: np.ndarray        # length-T target (rescaled)
    M: np.ndarray        # n × T donor signal (rescaled)
    m: np.ndarray        # length-T target signal (rescaled)
    theta: np.ndarray    # (θ₀, θ₁, …, θₙ), original scale
    T0: int
    scale: float         # B: original = rescaled · B

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    @property
    def T(self) -> int:
        return int(self.X.shape[1])

    def dataset(self) -> dict:
        """The ``{"X": …, "y": …}`` mapping the mechanisms take."""
        return {"X": self.X, "y": self.y}


def truncated_normal(rng: np.random.Generator, mean: float, sd: float, support, size):
    """Draws from N(mean, sd²) truncated to ``support`` (the parent's mean and sd)."""
    lo, hi = (support[0] - mean) / sd, (support[1] - mean) / sd
    return truncnorm.rvs(lo, hi, loc=mean, scale=sd, size=size, random_state=rng)


def generate(n: int, T0: int, rng: np.random.Generator) -> SyntheticControlData:
    """One dataset of App. A.1 with n donors and T₀ pre-periods (T = T₀ + 3)."""
    if n < 1 or T0 < 1:
        raise ValueError(f"need n >= 1 and T0 >= 1, got n={n}, T0={T0}")
    T = T0 + POST_PERIODS
    t = np.arange(1, T + 1, dtype=float)
    theta = truncated_normal(rng, THETA_MEAN, THETA_SD, THETA_SUPPORT, n + 1)
    M = theta[1:, None] * t[None, :]
    m = theta[0] * t
    Z = truncated_normal(rng, NOISE_MEAN, NOISE_SD, NOISE_SUPPORT, (n, T))
    z = truncated_normal(rng, NOISE_MEAN, NOISE_SD, NOISE_SUPPORT, T)
    B = THETA_SUPPORT[1] * T + NOISE_SUPPORT[1]
    return SyntheticControlData(X=(M + Z) / B, y=(m + z) / B, M=M / B, m=m / B, theta=theta,
                                T0=int(T0), scale=float(B))


def rmse(predictions: np.ndarray, truth_post: np.ndarray) -> np.ndarray:
    """Eq. (7) per run: ‖ŷ − m_post‖₂/√(T − T₀) for each row of ``predictions``."""
    pred = np.atleast_2d(predictions)
    return np.linalg.norm(pred - truth_post[None, :], axis=1) / np.sqrt(pred.shape[1])


__all__ = ["SyntheticControlData", "generate", "rmse", "truncated_normal"]
