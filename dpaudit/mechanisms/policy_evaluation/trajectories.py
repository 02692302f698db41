"""Datasets of trajectories under "replace one whole trajectory" (Balle et al. 2016, §2.1, §7).

A dataset is a list of m ≥ 1 trajectories, each a list of steps ``[state, reward]`` or
``[state, action, reward]`` (see :mod:`dpaudit.mechanisms.policy_evaluation.data`).  Neighbours have the
same m and, as multisets of trajectories, differ in at most one trajectory — which may change
every state it visits at once.

* :func:`replace_one_trajectory` — the relation as a predicate ``(d0, d1) -> (ok, reason)``.
* :class:`TrajectoryDatasets` — a :class:`~dpaudit.neighbours.spaces.DatasetSpace` of such
  pairs for the grey-box search of ``dpaudit check``: random pairs, a continuous
  parametrisation and a ``hypothesis`` strategy, all satisfying the relation.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass


from dpaudit.mechanisms.policy_evaluation.data import Trajectory
from dpaudit.neighbours.spaces import DatasetSpace


def _trajectory_key(traj) -> tuple:
    """A hashable record for a trajectory (validated :class:`Trajectory` or raw steps)."""
    if isinstance(traj, Trajectory):
        return traj.key()
    states, rewards, actions = [], [], []
    for step in traj:
        step = list(step)
        states.append(int(step[0]))
        rewards.append(float(step[-1]))
        actions.append(int(step[1]) if len(step) == 3 else None)
    return (tuple(states), tuple(rewards), tuple(actions))  # = Trajectory.key()


def replace_one_trajectory(d0, d1) -> tuple[bool, str]:
    """Same number m ≥ 1 of trajectories, and at most one trajectory differs (as multisets)."""
    try:
        a, b = Counter(_trajectory_key(x) for x in d0), Counter(_trajectory_key(x) for x in d1)
    except (TypeError, ValueError, IndexError) as exc:
        return False, f"datasets must be lists of trajectories: {exc}"
    m0, m1 = sum(a.values()), sum(b.values())
    if m0 != m1:
        return False, (f"replace-one-trajectory neighbours have the same number of "
                       f"trajectories; got {m0} and {m1}")
    if m0 == 0:
        return False, "datasets need at least one trajectory"
    differ = sum((a - b).values())
    if differ > 1:
        return False, f"{differ} trajectories differ (replace one trajectory: at most 1)"
    return True, ""


@dataclass(frozen=True)
class TrajectoryDatasets(DatasetSpace):
    """Datasets of ``min_size``..``max_size`` trajectories on states {0..n_states−1}, each of
    length 0..``max_length`` with rewards in [0, r_max]; neighbours replace one trajectory.

    Parametrisation (``dimension = 3 + (max_size + 1)(1 + 2·max_length)``): x₀ the size, x₁
    which trajectory is replaced, x₂ the direction; then, for each of the max_size base
    trajectories and the replacement, one coordinate for its length and 2·max_length for its
    states and rewards (rewards affinely onto [0, r_max], so snapping gives 0 or R_max)."""

    n_states: int
    r_max: float
    min_size: int = 1
    max_size: int = 3
    max_length: int = 4

    name = "trajectory-datasets"

    def __post_init__(self):
        if int(self.n_states) != self.n_states or self.n_states < 1:
            raise ValueError(f"n_states must be an integer >= 1, got {self.n_states!r}")
        if not (math.isfinite(self.r_max) and self.r_max > 0):
            raise ValueError(f"r_max must be a finite number > 0, got {self.r_max!r}")
        if not (1 <= self.min_size <= self.max_size):
            raise ValueError(f"need 1 <= min_size <= max_size, got {self.min_size}, "
                             f"{self.max_size}")
        if self.max_length < 0:
            raise ValueError(f"max_length must be >= 0, got {self.max_length}")

    @property
    def _per_trajectory(self) -> int:
        return 1 + 2 * self.max_length

    @property
    def dimension(self) -> int:
        return 3 + (self.max_size + 1) * self._per_trajectory

    def relation(self):
        return replace_one_trajectory

    def _trajectory(self, x) -> list:
        length = self._index(x[0], self.max_length + 1)
        states = x[1:1 + self.max_length]
        rewards = x[1 + self.max_length:1 + 2 * self.max_length]
        return [[self._index(states[t], self.n_states), float(rewards[t] * self.r_max)]
                for t in range(length)]

    def from_vector(self, x) -> tuple[list, list]:
        x = self._unit(x, self.dimension)
        size = self.min_size + self._index(x[0], self.max_size - self.min_size + 1)
        pos = self._index(x[1], size)
        k = self._per_trajectory
        trajs = [self._trajectory(x[3 + i * k:3 + (i + 1) * k]) for i in range(size)]
        new = self._trajectory(x[3 + self.max_size * k:3 + (self.max_size + 1) * k])
        other = trajs[:pos] + [new] + trajs[pos + 1:]
        return (other, trajs) if x[2] >= 0.5 else (trajs, other)

    def strategy(self):
        from hypothesis import strategies as st

        step = st.tuples(st.integers(0, self.n_states - 1),
                         st.one_of(st.sampled_from([0.0, float(self.r_max)]),
                                   st.floats(0.0, float(self.r_max), allow_nan=False)))
        trajectory = st.lists(step.map(list), min_size=0, max_size=self.max_length)
        space = self

        @st.composite
        def pairs(draw):
            size = draw(st.integers(space.min_size, space.max_size))
            base = draw(st.lists(trajectory, min_size=size, max_size=size))
            pos = draw(st.integers(0, size - 1))
            new = draw(trajectory)
            other = base[:pos] + [new] + base[pos + 1:]
            return (other, base) if draw(st.booleans()) else (base, other)

        return pairs()

    def describe(self) -> str:
        sizes = (f"{self.min_size}" if self.min_size == self.max_size
                 else f"{self.min_size}..{self.max_size}")
        return (f"{sizes} trajectories of length 0..{self.max_length} on states "
                f"0..{self.n_states - 1}, rewards in [0, {self.r_max:g}], replace-one-trajectory "
                f"neighbours")


__all__ = ["replace_one_trajectory", "TrajectoryDatasets"]
