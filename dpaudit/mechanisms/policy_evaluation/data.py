"""Trajectory datasets for policy evaluation (Balle, Gomrokchi & Precup 2016, §2.2).

A dataset X = (x₁, …, x_m), m ≥ 1, is a list of finite trajectories of a Markov reward process
on the states 𝒮 = {0, …, N − 1}.  A trajectory is a list of steps, each ``[s, r]`` or
``[s, a, r]`` (state, optional action, reward); the action never enters the estimators (the
policy is fixed) but is part of the record, so two trajectories that differ only in an action
are different records.  An empty trajectory (T = 0) visits no state.

Per trajectory x (first-visit Monte Carlo, eq. (3)):

* 𝒮_x — the states x visits; i_{x,s} — the first time x is in s;
* F_{x,s} = Σ_{t ≥ i_{x,s}} γ^{t − i_{x,s}} r_t, the first-visit return (0 if x avoids s).

Per dataset (eq. (4)): |X_s| = #{x ∈ X : s ∈ 𝒮_x} (trajectories, not visits), the signature
⟨X⟩ = (|X_s|)_s, F_X,s = Σ_{x ∈ X_s} F_{x,s}/|X_s| (0 if |X_s| = 0) and Γ_X = diag(ρ_s|X_s|/m).
:class:`BatchStatistics` holds exactly (m, ⟨X⟩, Σ_{x∈X_s} F_{x,s}) — everything both estimators
read.

Data bound (§2.2): every reward lies in [0, R_max], so 0 ≤ F_{x,s} ≤ R_max/(1 − γ).  A reward
outside [0, R_max], a NaN, a state outside 𝒮 or a malformed step is a ``ValueError`` naming
the trajectory and the step.  With a public F_max < R_max/(1 − γ) (end of §3.1) returns above
F_max are *clipped* to F_max (see :func:`batch_statistics`).
"""

from __future__ import annotations

import math
from collections.abc import Sized
from dataclasses import dataclass

import numpy as np

from dpaudit.util import validation


@dataclass(frozen=True)
class Trajectory:
    """One validated trajectory: integer ``states``, float ``rewards`` (same length T ≥ 0) and
    the ``actions`` (None entries where the step had none) kept only to identify the record."""

    states: tuple
    rewards: tuple
    actions: tuple

    def key(self) -> tuple:
        """Hashable identity of the record (for the neighbouring relation)."""
        return (self.states, self.rewards, self.actions)

    def to_list(self) -> list:
        return [[s, r] if a is None else [s, a, r]
                for s, a, r in zip(self.states, self.actions, self.rewards)]


def _step_number(value, what: str) -> float:
    return validation.number(what, value)


def parse_trajectory(raw, n_states: int, r_max: float, index: int) -> Trajectory:
    """A :class:`Trajectory` from ``[[s, r], …]`` / ``[[s, a, r], …]``, or a ValueError."""
    where = f"trajectory {index}"
    if isinstance(raw, Trajectory):  # already validated: re-check the ranges only
        if raw.states and (max(raw.states) >= n_states or max(raw.rewards) > r_max):
            raise ValueError(f"{where} has a state ≥ {n_states} or a reward above "
                             f"R_max = {r_max:g}")
        return raw
    if isinstance(raw, (str, bytes, dict)) or not isinstance(raw, Sized):
        raise ValueError(f"{where} must be a list of steps [state, reward] or "
                         f"[state, action, reward], got {type(raw).__name__}")
    states, rewards, actions = [], [], []
    for t, step in enumerate(raw):
        if isinstance(step, (str, bytes, dict)) or not isinstance(step, Sized) \
                or len(step) not in (2, 3):
            raise ValueError(f"{where}, step {t}: a step is [state, reward] or "
                             f"[state, action, reward], got {step!r}")
        s = _step_number(step[0], f"{where}, step {t}: the state")
        if not s.is_integer() or not 0 <= s < n_states:
            raise ValueError(f"{where}, step {t}: state {step[0]!r} is not one of the "
                             f"integers 0..{n_states - 1}")
        r = _step_number(step[-1], f"{where}, step {t}: the reward")
        if math.isnan(r):
            raise ValueError(f"{where}, step {t}: the reward is NaN")
        if not 0.0 <= r <= r_max:
            raise ValueError(f"{where}, step {t}: reward {r:g} is outside [0, R_max] = "
                             f"[0, {r_max:g}]")
        a = None
        if len(step) == 3:
            a = _step_number(step[1], f"{where}, step {t}: the action")
            if not a.is_integer():
                raise ValueError(f"{where}, step {t}: action {step[1]!r} is not an integer")
            a = int(a)
        states.append(int(s))
        rewards.append(r)
        actions.append(a)
    return Trajectory(tuple(states), tuple(rewards), tuple(actions))


def parse_dataset(dataset, n_states: int, r_max: float) -> list[Trajectory]:
    """The validated list of trajectories (m ≥ 1), or a ValueError naming the problem."""
    if dataset is None or isinstance(dataset, (str, bytes, dict)) \
            or not isinstance(dataset, Sized):
        raise ValueError(f"a dataset is a list of trajectories (each a list of [state, reward] "
                         f"steps), got {type(dataset).__name__}")
    if len(dataset) == 0:
        raise ValueError("a dataset needs at least one trajectory (m ≥ 1)")
    return [parse_trajectory(x, n_states, r_max, i) for i, x in enumerate(dataset)]


def first_visit_returns(traj: Trajectory, gamma: float, n_states: int
                        ) -> tuple[np.ndarray, np.ndarray]:
    """(visited, F): the boolean indicator of 𝒮_x and F_{x,s} (0 where x avoids s).

    G_t = r_t + γ G_{t+1} is the discounted return from time t (one backward pass); F_{x,s} is
    G at the first visit i_{x,s}."""
    visited = np.zeros(n_states, dtype=bool)
    returns = np.zeros(n_states)
    if not traj.states:
        return visited, returns
    rewards = np.asarray(traj.rewards, dtype=float)
    g = np.empty_like(rewards)
    acc = 0.0
    for t in range(rewards.size - 1, -1, -1):  # loop over steps of one trajectory
        acc = rewards[t] + gamma * acc
        g[t] = acc
    states, first = np.unique(np.asarray(traj.states), return_index=True)
    visited[states] = True
    returns[states] = g[first]
    return visited, returns


@dataclass(frozen=True)
class BatchStatistics:
    """m, the signature ⟨X⟩ (``counts``) and the per-state sums of first-visit returns."""

    m: int
    counts: np.ndarray
    sums: np.ndarray

    @property
    def n_states(self) -> int:
        return int(self.counts.size)

    @property
    def returns(self) -> np.ndarray:
        """F_X ∈ ℝ^𝒮 (eq. (4)): the mean first-visit return per state, 0 where unvisited."""
        return np.divide(self.sums, np.maximum(self.counts, 1))

    def prefix(self, other: "BatchStatistics") -> "BatchStatistics":
        """Statistics of the concatenation of two batches."""
        return BatchStatistics(self.m + other.m, self.counts + other.counts,
                               self.sums + other.sums)


def batch_statistics(trajectories, gamma: float, n_states: int,
                     f_max: float | None = None) -> BatchStatistics:
    """Statistics of validated trajectories.

    With a public ``f_max`` every first-visit return is clipped to [0, f_max] before it is
    averaged.  Clipping — rather than refusing the dataset — is the choice made here because
    (i) it is a fixed per-record map, so the neighbouring relation and every bound of the
    privacy proof (Lemma 2: |F_{x,s}| ≤ F_max) hold for the clipped data, whatever the raw
    returns are; (ii) refusing would make the mechanism's behaviour (an error or an output)
    depend on whether some private trajectory exceeds F_max, which itself leaks."""
    counts = np.zeros(n_states, dtype=np.int64)
    sums = np.zeros(n_states)
    for traj in trajectories:
        visited, returns = first_visit_returns(traj, gamma, n_states)
        if f_max is not None:
            returns = np.minimum(returns, f_max)
        counts += visited
        sums += returns
    return BatchStatistics(len(trajectories), counts, sums)


__all__ = ["Trajectory", "BatchStatistics", "parse_trajectory", "parse_dataset",
           "first_visit_returns", "batch_statistics"]
