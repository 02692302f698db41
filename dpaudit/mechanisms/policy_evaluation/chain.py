"""The chain MDP of §6 of Balle, Gomrokchi & Precup (2016).

N transient states 0, …, N − 1 and an absorbing terminal state outside 𝒮.  From state s the
agent stays with probability p and moves one state to the right with probability 1 − p; moving
right from N − 1 reaches the terminal state, which pays reward 1 ("a reward of 1 when the agent
reaches the final, absorbing state, and 0 for all other states"); the episode then ends.

Choices where §6 is silent (see ``reports/policy_evaluation/README.md``):

* the absorbing state is *not* one of the N = 40 estimated states: its value is 0 by definition,
  no trajectory ever reports it, and keeping it in 𝒮 would give it p_s = 0 — a state whose
  weight w_s > 0 keeps DP-LSW's noise from vanishing (Theorem 11's 𝒮₀ term), contradicting the
  paper's statement that the private algorithms converge;
* the initial state is uniform on 𝒮 (``initial="uniform"``; ``"first"`` starts every episode in
  state 0, so every trajectory visits every state);
* the reward is received on the transition into the terminal state (r_t of the last step).

Sampling: the time G_s ≥ 1 spent in state s is Geometric(1 − p), independently over s, so a
trajectory started in s₀ is s₀ (G_{s₀} times), s₀ + 1 (G_{s₀+1} times), …; its first-visit
return at s ≥ s₀ is γ^{R_s − 1} with R_s = Σ_{j ≥ s} G_j (the reward arrives R_s − 1 steps
after the first visit).  :meth:`ChainMDP.statistics` reduces batches of trajectories to
(m, |X_s|, Σ F_{x,s}) without building them, from the same draws as :meth:`trajectories`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpaudit.mechanisms.policy_evaluation.data import BatchStatistics

CHUNK = 50_000  # trajectories per vectorised block


@dataclass(frozen=True)
class ChainMDP:
    """The §6 chain: ``n_states`` transient states, stay probability ``p``, discount ``gamma``,
    reward ``reward`` on reaching the terminal state, ``initial`` ∈ {"uniform", "first"}."""

    n_states: int = 40
    p: float = 0.5
    gamma: float = 0.99
    reward: float = 1.0
    initial: str = "uniform"

    def __post_init__(self):
        if int(self.n_states) != self.n_states or self.n_states < 1:
            raise ValueError(f"n_states must be an integer >= 1, got {self.n_states!r}")
        if not 0.0 <= self.p < 1.0:
            raise ValueError(f"the stay probability p must lie in [0, 1), got {self.p!r}")
        if not 0.0 < self.gamma < 1.0:
            raise ValueError(f"gamma must lie in (0, 1), got {self.gamma!r}")
        if not (math.isfinite(self.reward) and self.reward >= 0):
            raise ValueError(f"reward must be a finite number >= 0, got {self.reward!r}")
        if self.initial not in ("uniform", "first"):
            raise ValueError(f"initial must be 'uniform' or 'first', got {self.initial!r}")

    # -- exact values -----------------------------------------------------------------------
    def values(self) -> np.ndarray:
        """V^π by dynamic programming (backward along the chain, the Bellman equation solved
        state by state): V(N−1) = (1 − p)R/(1 − γp), V(s) = γ(1 − p)V(s + 1)/(1 − γp)."""
        v = np.empty(self.n_states)
        v[-1] = (1 - self.p) * self.reward / (1 - self.gamma * self.p)
        for s in range(self.n_states - 2, -1, -1):
            v[s] = self.gamma * (1 - self.p) * v[s + 1] / (1 - self.gamma * self.p)
        return v

    def transition_matrix(self) -> tuple[np.ndarray, np.ndarray]:
        """(P, r): the substochastic transition matrix among 𝒮 and the expected immediate
        reward, so that V = (I − γP)⁻¹ r (used to check :meth:`values`)."""
        n = self.n_states
        P = np.diag(np.full(n, self.p)) + np.diag(np.full(n - 1, 1 - self.p), k=1)
        r = np.zeros(n)
        r[-1] = (1 - self.p) * self.reward
        return P, r

    def visit_probabilities(self) -> np.ndarray:
        """p_s = P[a trajectory visits s] ((s + 1)/N for the uniform start, 1 for 'first')."""
        if self.initial == "first":
            return np.ones(self.n_states)
        return (np.arange(self.n_states) + 1.0) / self.n_states

    # -- sampling ---------------------------------------------------------------------------
    def _draw(self, m: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """Start states (m,) and holding times G (m, N), G ≥ 1."""
        if self.initial == "first":
            start = np.zeros(m, dtype=np.int64)
        else:
            start = rng.integers(0, self.n_states, size=m)
        hold = rng.geometric(1.0 - self.p, size=(m, self.n_states))
        return start, hold

    def trajectories(self, m: int, rng: np.random.Generator) -> list[list]:
        """m trajectories as lists of [state, reward] steps (one block: m ≤ CHUNK)."""
        if not 1 <= m <= CHUNK:
            raise ValueError(f"trajectories() draws 1..{CHUNK} trajectories at once, got {m}")
        start, hold = self._draw(m, rng)
        out = []
        for s0, g in zip(start, hold):  # building Python lists, one trajectory at a time
            states = np.repeat(np.arange(s0, self.n_states), g[s0:])
            rewards = np.zeros(states.size)
            rewards[-1] = self.reward
            out.append([[int(s), float(r)] for s, r in zip(states, rewards)])
        return out

    def _block_statistics(self, start, hold) -> BatchStatistics:
        remaining = np.cumsum(hold[:, ::-1], axis=1)[:, ::-1]  # R_s = Σ_{j ≥ s} G_j
        visited = np.arange(self.n_states)[None, :] >= start[:, None]
        returns = self.reward * np.power(self.gamma, remaining - 1.0)
        return BatchStatistics(int(start.size), visited.sum(axis=0).astype(np.int64),
                               np.where(visited, returns, 0.0).sum(axis=0))

    def statistics(self, m: int, rng: np.random.Generator) -> BatchStatistics:
        """Statistics of m fresh trajectories, drawn in blocks of ``CHUNK`` (vectorised)."""
        total = BatchStatistics(0, np.zeros(self.n_states, dtype=np.int64),
                                np.zeros(self.n_states))
        for size in [CHUNK] * (m // CHUNK) + ([m % CHUNK] if m % CHUNK else []):
            total = total.prefix(self._block_statistics(*self._draw(size, rng)))
        return total


__all__ = ["ChainMDP"]
