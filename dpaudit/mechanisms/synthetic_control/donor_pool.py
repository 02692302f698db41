"""Synthetic-control datasets: a donor pool X ∈ ℝ^{n×T} and a target series y.

Data model (Rho, Cummings & Misra, AISTATS 2023, §2.1, eq. (3)): every entry of X and y lies in
[−1, 1].  A dataset is written as a mapping ``{"X": n×T nested list, "y": length-T (or T₀)
list}``; :func:`as_donor_pool` turns it (or a :class:`DonorPool`) into a :class:`DonorPool` of
float arrays, checking shapes and finiteness only (the range is the mechanism's business,
:meth:`DonorPool.check_range`).

Neighbouring relation (§2.3): D = (X, y) and D′ = (X′, y) are neighbours when X and X′ differ
in at most one row (one donor's whole pre- and post-period series) and the target y is the
same — :func:`replace_one_donor`.

:class:`DonorPools` is the :class:`~dpaudit.neighbours.spaces.DatasetSpace` of such pairs for
fixed (n, T): random pairs (entries snapped to ±1 with probability 0.3), a continuous
parametrisation of the unit box for optimisers, and a ``hypothesis`` strategy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpaudit.util import validation
from dpaudit.neighbours.spaces import DatasetSpace


@dataclass(frozen=True, eq=False)
class DonorPool:
    """X (n×T floats) and y (length T, or T₀ when only the pre-period is given)."""

    X: np.ndarray
    y: np.ndarray

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    @property
    def T(self) -> int:
        return int(self.X.shape[1])

    def check_range(self, bound: float = 1.0) -> "DonorPool":
        """ValueError naming the first entry of X or y outside [−bound, bound] (eq. (3))."""
        for name, arr in (("X", self.X), ("y", self.y)):
            bad = np.argwhere(np.abs(arr) > bound)
            if bad.size:
                idx = tuple(int(i) for i in bad[0])
                raise ValueError(f"{name}{list(idx)} = {arr[idx]:g} is outside [−{bound:g}, "
                                 f"{bound:g}] (eq. (3) bounds every entry; {len(bad)} such "
                                 f"entries; rescale the data, out-of-range input is not "
                                 f"clipped)")
        return self

    def to_dict(self) -> dict:
        return {"X": self.X.tolist(), "y": self.y.tolist()}


def _array(value, name: str, ndim: int) -> np.ndarray:
    if value is None or isinstance(value, (str, bytes, dict)):
        raise ValueError(f"{name} must be a {'matrix' if ndim == 2 else 'vector'} of numbers, "
                         f"got {type(value).__name__}")
    try:
        arr = np.asarray(value)
    except ValueError as exc:
        raise ValueError(f"{name} must be a rectangular array of numbers: {exc}") from None
    if arr.dtype.kind not in "iuf":
        raise ValueError(f"{name} must contain only numbers, got dtype {arr.dtype}")
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got shape {arr.shape}")
    return validation.finite_entries(name, arr.astype(float))


def as_donor_pool(dataset) -> DonorPool:
    """A :class:`DonorPool` from a mapping {"X": …, "y": …} or a DonorPool (ValueError naming
    the problem: missing key, wrong shape, NaN, infinity)."""
    if isinstance(dataset, DonorPool):
        return dataset
    if not isinstance(dataset, dict):
        raise ValueError(f"a synthetic-control dataset is a mapping {{'X': n×T matrix, 'y': "
                         f"target series}}, got {type(dataset).__name__}")
    unknown = sorted(set(dataset) - {"X", "y"})
    missing = sorted({"X", "y"} - set(dataset))
    if unknown or missing:
        raise ValueError("dataset keys must be exactly 'X' and 'y'"
                         + (f"; missing {missing}" if missing else "")
                         + (f"; unknown {unknown}" if unknown else ""))
    return DonorPool(_array(dataset["X"], "X", 2), _array(dataset["y"], "y", 1))


def replace_one_donor(d0, d1) -> tuple[bool, str]:
    """Neighbours of §2.3: same shapes, the same target y, at most one donor row differs."""
    a, b = as_donor_pool(d0), as_donor_pool(d1)
    if a.X.shape != b.X.shape:
        return False, f"donor pools have different shapes {a.X.shape} and {b.X.shape}"
    if a.y.shape != b.y.shape or not np.array_equal(a.y, b.y):
        return False, "the target series y differs (neighbours share the target unit)"
    rows = np.flatnonzero(np.any(a.X != b.X, axis=1))
    if rows.size > 1:
        return False, f"{rows.size} donor rows differ ({rows[:5].tolist()}); at most one may"
    return True, ""


@dataclass(frozen=True)
class DonorPools(DatasetSpace):
    """Pairs (X, y), (X′, y) with X, X′ ∈ [−1, 1]^{n×T}, y ∈ [−1, 1]^T, one row replaced.

    Parametrisation (``dimension = 2 + nT + 2T``): x₀ picks the replaced row j, x₁ which
    dataset is d0, then the nT entries of X, the T entries of the new row x′_j, the T
    entries of y, each mapped affinely from [0, 1] onto [−1, 1]."""

    n: int
    T: int

    name = "donor-pools"

    def __post_init__(self):
        if int(self.n) != self.n or self.n < 1 or int(self.T) != self.T or self.T < 1:
            raise ValueError(f"need integers n >= 1 and T >= 1, got n={self.n!r}, T={self.T!r}")

    @property
    def dimension(self) -> int:
        return 2 + self.n * self.T + 2 * self.T

    def relation(self):
        return replace_one_donor

    def _pair(self, X, row, y, j: int, swap: bool):
        X = np.asarray(X, dtype=float).reshape(self.n, self.T)
        X1 = X.copy()
        X1[j] = np.asarray(row, dtype=float)
        a = {"X": X.tolist(), "y": [float(v) for v in y]}
        b = {"X": X1.tolist(), "y": [float(v) for v in y]}
        return (b, a) if swap else (a, b)

    def from_vector(self, x):
        x = self._unit(x, self.dimension)
        n, T = self.n, self.T
        j = self._index(x[0], n)
        entries = 2.0 * x[2:] - 1.0
        X = entries[:n * T]
        row = entries[n * T:n * T + T]
        y = entries[n * T + T:]
        return self._pair(X, row, y, j, bool(x[1] >= 0.5))

    def strategy(self):
        from hypothesis import strategies as st

        entry = st.one_of(st.sampled_from([-1.0, 0.0, 1.0]),
                          st.floats(-1.0, 1.0, allow_nan=False, allow_infinity=False))
        space = self

        @st.composite
        def pairs(draw):
            X = draw(st.lists(entry, min_size=space.n * space.T, max_size=space.n * space.T))
            row = draw(st.lists(entry, min_size=space.T, max_size=space.T))
            y = draw(st.lists(entry, min_size=space.T, max_size=space.T))
            j = draw(st.integers(0, space.n - 1))
            return space._pair(X, row, y, j, draw(st.booleans()))

        return pairs()

    def describe(self) -> str:
        return (f"donor pools X ∈ [−1, 1]^{{{self.n}×{self.T}}} with a target y ∈ [−1, 1]^{self.T}, "
                f"neighbours replace one donor row (target fixed)")


__all__ = ["DonorPool", "DonorPools", "as_donor_pool", "replace_one_donor"]
