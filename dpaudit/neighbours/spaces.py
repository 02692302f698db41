"""Dataset spaces: where to look for neighbouring pairs that break a claimed sensitivity.

A mechanism's worst-case pairs are what its proof says is hardest; a grey-box check must also
look *elsewhere*, because a bug (a clipping bound that does not match Δ, a query that reads a
record it should not) makes some other pair worse.  A :class:`DatasetSpace` describes the
datasets a mechanism accepts together with its neighbouring relation, and can produce
neighbouring pairs in four ways:

* ``proposals()`` — the named adversarial pairs where implementations break (an unseen
  category, the empty and single-record datasets, duplicates, the ends of the domain and just
  beyond, huge values, NaN and ∞, float sums that depend on order; :mod:`dpaudit.neighbours.proposals`),
  which the pair search screens before any random pair;
* ``random_pair(rng)`` — one random pair (coordinates are often snapped to the ends of their
  ranges, where sensitivity bugs live);
* ``from_vector(x)`` — a *continuous parametrisation*: every x in the unit box
  ``[0, 1]^dimension`` (clipped into it) maps to a valid neighbouring pair, so a numerical
  optimiser (Nelder–Mead, L-BFGS-B with ``bounds()``) can search over pairs;
* ``strategy()`` — a ``hypothesis`` strategy of pairs (imported lazily: hypothesis is only
  needed by the search that uses it).

Invariant: every pair the last three produce, and every proposal marked ``inside``, satisfies ``relation()`` (the predicates of
:mod:`dpaudit.neighbours.relations`), and its datasets are plain Python lists, so they can be
printed, written to JSON and given to any mechanism.

Spaces provided: :class:`BoundedRecords` (records in [lo, hi], sizes within a range,
add/remove-one or replace-one), :class:`QueryAnswers` (vectors of query answers in a box with
‖q − q′‖∞ ≤ Δ) and :class:`SingleCategorical` (one categorical record, local DP).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpaudit.neighbours.proposals import Proposal, bounded_record_proposals
from dpaudit.neighbours.relations import add_remove_one, any_single_record, linf, replace_one

#: probability that a coordinate of a random pair is snapped to an end of its range
SNAP = 0.3


class DatasetSpace:
    """Base class; subclasses define ``dimension``, ``from_vector``, ``strategy``,
    ``relation`` and ``describe``."""

    name = "abstract"

    @property
    def dimension(self) -> int:  # pragma: no cover - abstract
        raise NotImplementedError

    def bounds(self) -> list[tuple[float, float]]:
        """The box of the continuous parametrisation (the unit box)."""
        return [(0.0, 1.0)] * self.dimension

    def from_vector(self, x) -> tuple[list, list]:  # pragma: no cover - abstract
        """The neighbouring pair encoded by x (clipped into the unit box)."""
        raise NotImplementedError

    def proposals(self) -> list[Proposal]:
        """The named adversarial pairs of this space, tried before random ones
        (:mod:`dpaudit.neighbours.proposals`); none by default.  Each a
        :class:`~dpaudit.neighbours.proposals.Proposal` or a plain ``(name, d0, d1)`` tuple
        (read by :func:`~dpaudit.neighbours.proposals.proposals_of`)."""
        return []

    def random_pair(self, rng: np.random.Generator) -> tuple[list, list]:
        """A random neighbouring pair: ``from_vector`` of a uniform vector whose coordinates
        are each snapped to 0 or 1 with probability ``SNAP`` (extremes are where bugs are)."""
        x = rng.random(self.dimension)
        snap = rng.random(self.dimension) < SNAP
        x[snap] = rng.integers(0, 2, size=int(snap.sum()))
        return self.from_vector(x)

    def strategy(self):  # pragma: no cover - abstract
        """A hypothesis strategy of neighbouring pairs ``(d0, d1)``."""
        raise NotImplementedError

    def relation(self):  # pragma: no cover - abstract
        """The neighbouring relation ``(d0, d1) -> (ok, reason)`` every pair satisfies."""
        raise NotImplementedError

    def describe(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    @staticmethod
    def _unit(x, dimension: int) -> np.ndarray:
        x = np.asarray(x, dtype=float).ravel()
        if x.size != dimension:
            raise ValueError(f"expected a vector of length {dimension}, got {x.size}")
        return np.clip(np.nan_to_num(x, nan=0.5), 0.0, 1.0)

    @staticmethod
    def _index(u: float, count: int) -> int:
        """u ∈ [0, 1] → one of ``count`` integers 0..count−1 (equal-width cells)."""
        return min(int(u * count), count - 1)


def _plain_number(value, integer: bool):
    return int(value) if integer else float(value)


class RecordLists(DatasetSpace):
    """Datasets that are lists of ``min_size``..``n_max`` records, neighbours by
    ``neighbouring`` = ``"add-remove"`` (one dataset is the other with one record added, at
    any position) or ``"replace"`` (same size, one record replaced).  The part of
    :class:`BoundedRecords` and :class:`~dpaudit.neighbours.categorical.CategoricalRecords`
    that does not depend on what a record is; subclasses are dataclasses with the fields
    ``n_max``, ``min_size`` and ``neighbouring``.

    A pair is built from a *base* dataset of ``size`` records (the smaller one under
    add-remove; either under replace), a position and a new record; coordinate x₀ of the
    continuous parametrisation picks the size, x₁ the position, x₂ the direction.
    """

    n_max: int
    min_size: int
    neighbouring: str

    def _check_neighbouring(self) -> None:
        """Raise ValueError unless ``neighbouring`` is known and some size admits it."""
        if self.neighbouring not in ("add-remove", "replace"):
            raise ValueError(f"neighbouring must be 'add-remove' or 'replace', "
                             f"got {self.neighbouring!r}")
        smallest = max(self.min_size, 1 if self.neighbouring == "replace" else 0)
        largest = self.n_max - 1 if self.neighbouring == "add-remove" else self.n_max
        if self.min_size < 0 or smallest > largest:
            raise ValueError(f"no dataset sizes in {self.min_size}..{self.n_max} admit "
                             f"{self.neighbouring} neighbours")

    # sizes of the *base* dataset: the smaller one (add-remove) or both (replace)
    def _sizes(self) -> tuple[int, int]:
        if self.neighbouring == "add-remove":
            return self.min_size, self.n_max - 1
        return max(self.min_size, 1), self.n_max

    def relation(self):
        return add_remove_one if self.neighbouring == "add-remove" else replace_one

    def _size_and_position(self, x: np.ndarray) -> tuple[int, int]:
        """(the base dataset's size, the new record's position) from x₀ and x₁."""
        s_min, s_max = self._sizes()
        size = s_min + self._index(x[0], s_max - s_min + 1)
        slots = size + 1 if self.neighbouring == "add-remove" else size
        return size, (self._index(x[1], slots) if slots else 0)

    def _assemble(self, base: list, pos: int, new, swap: bool) -> tuple[list, list]:
        """(base, base with ``new`` inserted at / replacing ``pos``), swapped if ``swap``."""
        if self.neighbouring == "add-remove":
            other = base[:pos] + [new] + base[pos:]
        else:
            other = base[:pos] + [new] + base[pos + 1:]
        return (other, base) if swap else (base, other)


@dataclass(frozen=True)
class BoundedRecords(RecordLists):
    """Datasets of scalar records in [lo, hi] (integers if ``integer``), of sizes
    ``min_size``..``n_max``, under ``neighbouring`` = ``"add-remove"`` (one dataset is the
    other with one record added, at any position) or ``"replace"`` (same size, one record
    replaced).

    Parametrisation (``dimension = n_max + 3``): x₀ picks the size, x₁ the position of the
    added/replaced record, x₂ the direction (which dataset is d0), x₃… the records (affinely
    onto [lo, hi]; floored onto the integers when ``integer``) and the last coordinate the
    added/replacing record."""

    lo: float
    hi: float
    n_max: int = 6
    neighbouring: str = "add-remove"
    integer: bool = False
    min_size: int = 1

    name = "bounded-records"

    def __post_init__(self):
        if not (math.isfinite(self.lo) and math.isfinite(self.hi) and self.lo <= self.hi):
            raise ValueError(f"need finite lo <= hi, got [{self.lo}, {self.hi}]")
        self._check_neighbouring()
        if self.integer and (self.lo != math.floor(self.lo) or self.hi != math.floor(self.hi)):
            raise ValueError(f"integer records need integer bounds, got [{self.lo}, {self.hi}]")

    @property
    def dimension(self) -> int:
        return self.n_max + 3

    def proposals(self) -> list[Proposal]:
        """The records' adversarial pairs (:func:`~dpaudit.neighbours.proposals.bounded_record_proposals`)."""
        return bounded_record_proposals(self.lo, self.hi, self._sizes(),
                                        self.neighbouring == "add-remove", self.integer)

    def _record(self, u: float):
        if self.integer:
            lo, hi = int(self.lo), int(self.hi)
            return lo + self._index(u, hi - lo + 1)
        return float(self.lo + u * (self.hi - self.lo))

    def from_vector(self, x) -> tuple[list, list]:
        x = self._unit(x, self.dimension)
        size, pos = self._size_and_position(x)
        base = [self._record(u) for u in x[3:3 + size]]
        return self._assemble(base, pos, self._record(x[-1]), bool(x[2] >= 0.5))

    def strategy(self):
        from hypothesis import strategies as st

        s_min, s_max = self._sizes()
        if self.integer:
            record = st.integers(int(self.lo), int(self.hi))
        else:
            record = st.floats(self.lo, self.hi, allow_nan=False, allow_infinity=False)
        space = self

        @st.composite
        def pairs(draw):
            size = draw(st.integers(s_min, s_max))
            base = draw(st.lists(record, min_size=size, max_size=size))
            slots = size + 1 if space.neighbouring == "add-remove" else size
            pos = draw(st.integers(0, max(slots - 1, 0)))
            new = draw(record)
            swap = draw(st.booleans())
            return space._assemble([_plain_number(v, space.integer) for v in base], pos,
                                   _plain_number(new, space.integer), swap)

        return pairs()

    def describe(self) -> str:
        kind = "integer" if self.integer else "real"
        s_min, s_max = self._sizes()
        if self.neighbouring == "add-remove":
            return (f"{kind} records in [{self.lo:g}, {self.hi:g}], sizes {s_min}..{s_max + 1}, "
                    f"add/remove-one neighbours")
        return (f"{kind} records in [{self.lo:g}, {self.hi:g}], sizes {s_min}..{s_max}, "
                f"replace-one neighbours")


@dataclass(frozen=True)
class QueryAnswers(DatasetSpace):
    """Vectors q of m query answers in [lo, hi] (m from ``m_min``..``m_max``) and q′ with
    ‖q − q′‖∞ ≤ ``bound`` (q′ = clip(q + shift, lo, hi) with every |shiftᵢ| ≤ bound; clipping
    only shortens a shift).

    Parametrisation (``dimension = 1 + 2·m_max``): x₀ picks m, the next m_max coordinates the
    answers, the last m_max the shifts (2x − 1)·bound — so snapping to 0/1 gives the corner
    shifts ±bound and 0.5 no shift."""

    bound: float
    m_min: int
    m_max: int | None = None
    lo: float = -10.0
    hi: float = 10.0

    name = "query-answers"

    def __post_init__(self):
        if not (math.isfinite(self.bound) and self.bound > 0):
            raise ValueError(f"bound must be a finite number > 0, got {self.bound!r}")
        if self.m_max is None:
            object.__setattr__(self, "m_max", self.m_min)
        if not (1 <= self.m_min <= self.m_max):
            raise ValueError(f"need 1 <= m_min <= m_max, got {self.m_min}, {self.m_max}")
        if not (math.isfinite(self.lo) and math.isfinite(self.hi) and self.lo < self.hi):
            raise ValueError(f"need finite lo < hi, got [{self.lo}, {self.hi}]")

    @property
    def dimension(self) -> int:
        return 1 + 2 * self.m_max

    def relation(self):
        return linf(self.bound)

    def proposals(self) -> list[Proposal]:
        """Ties at the top of the box with one answer moved by the bound (noisy max and
        threshold code that breaks ties by index), and answers outside the box: a far one and a
        NaN (the StatDP patterns are the pair search's own, :mod:`dpaudit.audit.pair_search`)."""
        m, b = self.m_max, self.bound
        top = [float(self.hi)] * m
        out = [Proposal("ties-one-down", top, [float(self.hi) - b] + top[1:], "every answer "
                        "tied at hi, one moved down by the bound: ties broken by position")]
        if m >= 2:
            out.append(Proposal("ties-one-up", [float(self.hi) - b] * m,
                                [float(self.hi)] + [float(self.hi) - b] * (m - 1),
                                "tied answers, one moved up by the bound"))
        base = [0.5 * (self.lo + self.hi)] * m
        far = float(self.hi) + 100.0 * (self.hi - self.lo)
        out += [Proposal("far-answer", [far] + base[1:], [far - b] + base[1:], "an answer "
                         "far outside the box: exp(ε·u) overflows, a clip is missing",
                         inside=False),
                Proposal("nan-answer", base, [math.nan] + base[1:], "a NaN answer",
                         inside=False)]
        return out

    def _pair(self, q, shift) -> tuple[list, list]:
        q = np.asarray(q, dtype=float)
        q1 = np.clip(q + np.asarray(shift, dtype=float), self.lo, self.hi)
        return q.tolist(), q1.tolist()

    def from_vector(self, x) -> tuple[list, list]:
        x = self._unit(x, self.dimension)
        m = self.m_min + self._index(x[0], self.m_max - self.m_min + 1)
        q = self.lo + x[1:1 + m] * (self.hi - self.lo)
        shift = (2.0 * x[1 + self.m_max:1 + self.m_max + m] - 1.0) * self.bound
        return self._pair(q, shift)

    def strategy(self):
        from hypothesis import strategies as st

        b = self.bound
        answer = st.floats(self.lo, self.hi, allow_nan=False, allow_infinity=False)
        shift = st.one_of(st.sampled_from([-b, 0.0, b]),
                          st.floats(-b, b, allow_nan=False, allow_infinity=False))
        space = self

        @st.composite
        def pairs(draw):
            m = draw(st.integers(space.m_min, space.m_max))
            q = draw(st.lists(answer, min_size=m, max_size=m))
            s = draw(st.lists(shift, min_size=m, max_size=m))
            return space._pair(q, s)

        return pairs()

    def describe(self) -> str:
        m = (f"{self.m_min}" if self.m_min == self.m_max else f"{self.m_min}..{self.m_max}")
        return (f"{m} query answers in [{self.lo:g}, {self.hi:g}], neighbours with "
                f"‖q − q′‖∞ ≤ {self.bound:g}")


@dataclass(frozen=True)
class SingleCategorical(DatasetSpace):
    """One record with a value in {0, …, k−1} (local DP): any two records are neighbours.
    Datasets are length-1 lists.  Parametrisation (``dimension = 2``): the two values."""

    k: int

    name = "single-categorical"

    def __post_init__(self):
        if int(self.k) != self.k or self.k < 2:
            raise ValueError(f"k must be an integer >= 2, got {self.k!r}")

    @property
    def dimension(self) -> int:
        return 2

    def relation(self):
        return any_single_record

    def proposals(self) -> list[Proposal]:
        """The first and last values, and values just outside {0, …, k−1}."""
        return [Proposal("first-vs-last", [0], [self.k - 1], "the two ends of the domain"),
                Proposal("just-above-k", [0], [self.k], "a value one past the last category",
                         inside=False),
                Proposal("negative-value", [0], [-1], "a negative value: an index from the "
                         "end of an array", inside=False)]

    def from_vector(self, x) -> tuple[list, list]:
        x = self._unit(x, 2)
        return [self._index(x[0], self.k)], [self._index(x[1], self.k)]

    def strategy(self):
        from hypothesis import strategies as st

        value = st.integers(0, self.k - 1)
        return st.tuples(value, value).map(lambda v: ([v[0]], [v[1]]))

    def describe(self) -> str:
        return f"one categorical record in {{0, …, {self.k - 1}}} (local DP: any two records)"


__all__ = ["DatasetSpace", "RecordLists", "BoundedRecords", "QueryAnswers", "SingleCategorical"]
