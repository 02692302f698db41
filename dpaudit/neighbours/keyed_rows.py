"""Keyed rows — (privacy id, partition key, value) — and their add/remove-one-user neighbours.

The analytics libraries (PipelineDP, Tumult, SmartNoise SQL) take a table whose rows belong to
*privacy units* (users) and fall into *partitions* (GROUP BY keys), and protect adding or
removing **every row of one user** — however many rows, in however many partitions: the
library itself bounds each user's contribution (at most ``L0`` partitions, at most ``Linf``
rows per partition, values clamped into ``[min_value, max_value]``) before it adds noise.
Those steps are where their privacy lives, so the pairs that break them are structural, not
a value moved by Δ.

A **dataset** here is a list of rows ``[user, key, value]``: ``user`` and ``key`` integers
(keys ``0..keys−1``), ``value`` a number.  :func:`add_remove_user` is the relation:
D′ = D ∪ R_u, where R_u is a non-empty multiset of rows all of user ``u`` and ``u`` has no row
in D (or the same with D and D′ swapped).

:class:`KeyedRowsSpace` is a :class:`~dpaudit.neighbours.spaces.DatasetSpace` of such pairs.
Besides random pairs and the unit-box parametrisation every space has, it **proposes** —
before any random pair — the neighbours where contribution bounding and partition selection
break (:meth:`KeyedRowsSpace.proposals`), each named so that a report says which proposal a
certified violation came from:

==============================  ==============================================================
``user-in-many-partitions``     the added user has one row (value at the clamp's far end) in
                                every key, more keys than ``max_partitions`` allows
``user-many-rows-one-partition``  the added user has ``max_per_partition + 2`` rows in key 0
``key-only-in-one-dataset``     the added user's one row has a key no other row has (the
                                partition exists in one dataset only: partition selection)
``value-above-clamp``,          the added user's one row lies far above (below) the clamping
``value-below-clamp``           bounds
``empty-partition``             key 0 is empty in D and holds the added user's row in D′ (a
                                public partition with no rows: a mean's or variance's count)
``empty-dataset``               D has no rows at all, D′ the added user's one row
``extreme-value-small-partition``  one user at the lower bound in key 0, the added user at the
                                upper bound (a mean of two moves the most)
``crowded-partition``           (when ``crowd`` > 0) ``crowd`` users in key 0, the added user
                                joins them: a partition at the edge of private selection or
                                of a censoring threshold, where keeping it is a coin flip
==============================  ==============================================================

Proposals are candidates like any other: :mod:`dpaudit.audit.pair_search` screens them on
their own samples with the random ones, and the ``keep`` best are certified, each a member of
the suite's Bonferroni family — a proposal costs screening samples, never significance.
Invariant (pinned by the tests): every pair any method returns satisfies
:func:`add_remove_user`, and its datasets are plain lists of ``[int, int, float]``.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import numpy as np

from dpaudit.neighbours.spaces import DatasetSpace

#: a keyed row: [user, key, value]
Row = list


def keyed_rows(dataset, keys: int | None = None) -> list[tuple[int, int, float]]:
    """``dataset`` as a list of ``(user, key, value)`` tuples, or ``ValueError`` naming the
    first bad row (not three entries; a user or key that is not an integer; a key outside
    ``0..keys−1``; a value that is not a finite number)."""
    if isinstance(dataset, np.ndarray):
        dataset = dataset.tolist()
    if not isinstance(dataset, (list, tuple)):
        raise ValueError(f"a keyed dataset is a list of rows [user, key, value], got "
                         f"{type(dataset).__name__}")
    out = []
    for i, row in enumerate(dataset):
        if isinstance(row, np.ndarray):
            row = row.tolist()
        if not isinstance(row, (list, tuple)) or len(row) != 3:
            raise ValueError(f"row {i} of a keyed dataset must be [user, key, value], got "
                             f"{row!r}")
        user, key, value = row
        for what, v in (("user", user), ("key", key)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer, float, np.floating)) \
                    or not float(v).is_integer():
                raise ValueError(f"row {i}: the {what} must be an integer, got {v!r}")
        if keys is not None and not 0 <= int(key) < keys:
            raise ValueError(f"row {i}: key {int(key)} is outside the partition keys "
                             f"0..{keys - 1}")
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer,
                                                             np.floating)) \
                or not math.isfinite(float(value)):
            raise ValueError(f"row {i}: the value must be a finite number, got {value!r}")
        out.append((int(user), int(key), float(value)))
    return out


def add_remove_user(d0, d1) -> tuple[bool, str]:
    """D′ = D ∪ R_u with R_u ≠ ∅ the rows of one user ``u`` absent from D (either way round)."""
    try:
        a, b = Counter(keyed_rows(d0)), Counter(keyed_rows(d1))
    except ValueError as exc:
        return False, str(exc)
    small, large = (a, b) if sum(a.values()) <= sum(b.values()) else (b, a)
    if small - large:
        return False, "add/remove-one-user: the smaller dataset is not contained in the larger"
    added = large - small
    if not added:
        return False, "add/remove-one-user: the datasets are equal (a user has ≥ 1 row)"
    users = {row[0] for row in added}
    if len(users) != 1:
        return False, (f"add/remove-one-user: the added rows belong to {len(users)} users "
                       f"({sorted(users)[:5]}), not one")
    (user,) = users
    if any(row[0] == user for row in small):
        return False, (f"add/remove-one-user: user {user} has rows in both datasets (all of a "
                       f"user's rows are added or removed together)")
    return True, ""


@dataclass(frozen=True)
class KeyedRowsSpace(DatasetSpace):
    """Pairs of keyed datasets under :func:`add_remove_user` (see the module docstring).

    Attributes:
      keys: partition keys ``0..keys−1`` (≥ 2).
      users: at most this many users in the smaller dataset (each with one row; ≥ 1).
      rows: at most this many rows of the added user (≥ 1).
      lo, hi: values of random rows lie in [lo, hi].
      min_value, max_value: the library's clamping bounds (proposals go beyond them; default
        ``lo``, ``hi``).
      max_partitions, max_per_partition: the library's contribution bounds L0 and Linf
        (proposals exceed them).
      integer: values are integers (rounded; ``lo``, ``hi`` and the bounds must be integers).
      crowd: users of the ``crowded-partition`` proposal's key (0: no such proposal); an
        adapter with private partition selection sets it near its selection threshold.

    Parametrisation (``dimension = 2 + 2·users + 1 + 2·rows``): x₀ the number of base users,
    x₁ the direction (which dataset is d0), then (key, value) of each base user's row, the
    added user's row count, and (key, value) of each of its rows.
    """

    keys: int = 3
    users: int = 4
    rows: int = 3
    lo: float = 0.0
    hi: float = 1.0
    min_value: float | None = None
    max_value: float | None = None
    max_partitions: int = 1
    max_per_partition: int = 1
    integer: bool = False
    crowd: int = 0

    name = "keyed-rows"

    def __post_init__(self):
        for what, value, low in (("keys", self.keys, 2), ("users", self.users, 1),
                                 ("rows", self.rows, 1), ("max_partitions",
                                                          self.max_partitions, 1),
                                 ("max_per_partition", self.max_per_partition, 1),
                                 ("crowd", self.crowd, 0)):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"keyed rows: {what} must be an integer ≥ {low}, got "
                                 f"{value!r}")
        if self.min_value is None:
            object.__setattr__(self, "min_value", self.lo)
        if self.max_value is None:
            object.__setattr__(self, "max_value", self.hi)
        numbers = (self.lo, self.hi, self.min_value, self.max_value)
        if not all(math.isfinite(v) for v in numbers) or not (
                self.lo < self.hi and self.min_value <= self.max_value):
            raise ValueError(f"keyed rows: need finite lo < hi and min_value <= max_value, "
                             f"got [{self.lo}, {self.hi}], [{self.min_value}, "
                             f"{self.max_value}]")
        if self.integer and not all(float(v).is_integer() for v in numbers):
            raise ValueError(f"keyed rows: integer values need integer bounds, got {numbers}")

    # -- the DatasetSpace contract ---------------------------------------------------------
    @property
    def dimension(self) -> int:
        return 2 + 2 * self.users + 1 + 2 * self.rows

    def relation(self):
        return add_remove_user

    def _value(self, u: float) -> float:
        v = self.lo + float(u) * (self.hi - self.lo)
        return float(round(v)) if self.integer else v

    def _pair(self, base: list, added: list, swap: bool) -> tuple[list, list]:
        d_small = [list(r) for r in base]
        d_large = d_small + [list(r) for r in added]
        return (d_large, d_small) if swap else (d_small, d_large)

    def from_vector(self, x) -> tuple[list, list]:
        x = self._unit(x, self.dimension)
        size = self._index(x[0], self.users + 1)
        base = [[i, self._index(x[2 + 2 * i], self.keys), self._value(x[3 + 2 * i])]
                for i in range(size)]
        at = 2 + 2 * self.users
        count = 1 + self._index(x[at], self.rows)
        cells = x[at + 1:]
        added = [[self.users, self._index(cells[2 * j], self.keys), self._value(cells[2 * j + 1])]
                 for j in range(count)]
        return self._pair(base, added, bool(x[1] >= 0.5))

    def strategy(self):
        from hypothesis import strategies as st

        value = (st.integers(int(self.lo), int(self.hi)).map(float) if self.integer else
                 st.floats(self.lo, self.hi, allow_nan=False, allow_infinity=False))
        key = st.integers(0, self.keys - 1)
        space = self

        @st.composite
        def pairs(draw):
            size = draw(st.integers(0, space.users))
            base = [[i, draw(key), draw(value)] for i in range(size)]
            count = draw(st.integers(1, space.rows))
            added = [[space.users, draw(key), draw(value)] for _ in range(count)]
            return space._pair(base, added, draw(st.booleans()))

        return pairs()

    def describe(self) -> str:
        kind = "integer" if self.integer else "real"
        return (f"keyed rows [user, key, value]: up to {self.users} users with one row each, "
                f"keys 0..{self.keys - 1}, {kind} values in [{self.lo:g}, {self.hi:g}]; add/"
                f"remove one user with up to {self.rows} rows (library bounds: "
                f"{self.max_partitions} partition(s), {self.max_per_partition} row(s) per "
                f"partition, values clamped to [{self.min_value:g}, {self.max_value:g}]); "
                f"{len(self.proposals())} named proposals first")

    # -- proposals: what breaks contribution bounding and partition selection ---------------
    def _far(self, above: bool) -> float:
        """A value well outside the clamping bounds (10 widths beyond, at least 10)."""
        width = max(self.max_value - self.min_value, 1.0)
        v = self.max_value + 10 * width if above else self.min_value - 10 * width
        return float(round(v)) if self.integer else float(v)

    def _per_key_base(self, skip: frozenset = frozenset()) -> list:
        """Two users in each key not in ``skip`` (values at the lower clamp bound)."""
        base, user = [], 0
        for key in range(self.keys):
            if key in skip:
                continue
            for _ in range(2):
                base.append([user, key, float(self.min_value)])
                user += 1
        return base

    def proposals(self) -> list[tuple[str, list, list]]:
        """The named pairs ``(name, d0, d1)`` to try before random ones (module docstring);
        in every pair d0 is the smaller dataset and d1 adds one user."""
        lo, hi = float(self.min_value), float(self.max_value)
        base = self._per_key_base()
        new = len(base)
        many_keys = max(self.keys, self.max_partitions + 1)
        out = [
            ("user-in-many-partitions", base,
             [[new, k % self.keys, hi] for k in range(many_keys)]),
            ("user-many-rows-one-partition", base,
             [[new, 0, hi] for _ in range(self.max_per_partition + 2)]),
            ("key-only-in-one-dataset", self._per_key_base(frozenset({self.keys - 1})),
             [[new, self.keys - 1, lo]]),
            ("value-above-clamp", base, [[new, 0, self._far(True)]]),
            ("value-below-clamp", base, [[new, 0, self._far(False)]]),
            ("empty-partition", self._per_key_base(frozenset({0})), [[new, 0, hi]]),
            ("empty-dataset", [], [[0, 0, hi]]),
            ("extreme-value-small-partition", [[0, 0, lo]], [[1, 0, hi]]),
        ]
        if self.crowd:
            out.append(("crowded-partition", [[i, 0, lo] for i in range(self.crowd)],
                        [[self.crowd, 0, hi]]))
        return [(name, *self._pair(b, added, False)) for name, b, added in out]


__all__ = ["KeyedRowsSpace", "Row", "add_remove_user", "keyed_rows"]
