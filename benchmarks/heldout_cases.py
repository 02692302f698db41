"""Held-out-style bugs where DP libraries break (issue 36), each with a correct twin.

Written as a privacy engineer writes them — ε-DP claims, a dataset space, no hand-made
worst-case pair (the benchmark names a random pair of the space instead) — after the bug
classes of Casacuberta et al. (CCS 2022) and Cebere et al. (PETS 2026):

================================  ===============================  ==========================
bug                               its worst case                   correct twin
================================  ===============================  ==========================
:class:`PartitionSelection`       add a key not yet present         :class:`PublicHistogram`
:class:`UniqueHistogram`          add a value (``np.unique``)       :class:`DomainHistogram`
:class:`DataBoundMean`            a clipping bound from the data    :class:`ClippedMean`
:class:`UnclippedSum`             a huge value (the sum overflows)  :class:`ClippedSum`
:class:`Int64Sum`                 records near 2⁶² (int64 wraps)    :class:`ExactIntSum`
:class:`SingleRecordShortcut`     a single record                   :class:`NoisyMean`
================================  ===============================  ==========================

Every mechanism claims ε = 1 (pure DP) under add/remove one record, releases values on a grid
(:func:`dpaudit.laplace_on_grid`: 2⁻³², or 2¹⁵ for the sums of records up to 2⁶², so that its
float64 representation carries nothing but the value) and declares a dataset space.  The twins are ε-DP on every input they accept (they
refuse what they cannot handle: non-finite records, unlisted categories).
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from dpaudit import (CategoricalRecords, KeyedOutputs, Mechanism, NeighbourRelation, PureDP,
                     SearchableDatasets, laplace_on_grid)
from dpaudit.neighbours import add_remove_one
from dpaudit.neighbours.spaces import BoundedRecords

GRID = 2.0 ** -32
CATEGORIES = ["a", "b", "c", "d", "e"]
VALUES = list(range(10))


class _Case(SearchableDatasets, Mechanism):
    family = "heldout"
    epsilon = 1.0
    #: the random pair the benchmark names (set per seed by :func:`with_pair`)
    natural = None

    def __init__(self):
        super().__init__()

    def claim(self):
        return PureDP(epsilon=self.epsilon)

    def relation(self):
        return NeighbourRelation("add-remove-one", "add or remove one record", add_remove_one)

    def worst_case_pairs(self):
        if self.natural is None:
            raise ValueError(f"{self.name}: its pairs are hidden; the benchmark names one")
        return [self.natural]

    def _finite(self, dataset) -> np.ndarray:
        d = np.asarray(dataset, dtype=float).ravel()
        if not np.isfinite(d).all():
            raise ValueError("records must be finite")
        return d


def with_pair(cls, pair):
    """An instance of ``cls`` whose worst-case pair is ``pair`` (the user's named pair)."""
    mech = cls()
    mech.natural = pair
    return mech


# -- add a key not yet present ------------------------------------------------------------

KEYS = KeyedOutputs(CATEGORIES)


class PartitionSelection(_Case):
    """BUG: a noisy count for every category found in the data, released above τ = 3."""

    name = "partition-selection"
    known_bad = True

    def dataset_space(self):
        return CategoricalRecords(CATEGORIES, n_max=8)

    def sample(self, dataset, n, rng):
        releases = [{} for _ in range(n)]
        for key, count in Counter(dataset).items():
            noisy = laplace_on_grid(float(count), (1 + GRID) / self.epsilon, n, rng)
            for i in np.flatnonzero(noisy > 3.0):
                releases[i][key] = float(noisy[i])
        return KEYS(releases)


class PublicHistogram(_Case):
    """Correct: noisy counts of the listed categories, all released (L1 sensitivity 1)."""

    name = "public-histogram"

    def dataset_space(self):
        return CategoricalRecords(CATEGORIES, n_max=8)

    def validate_dataset(self, dataset):
        unknown = set(dataset) - set(CATEGORIES)
        if unknown:
            raise ValueError(f"unlisted categories {sorted(map(str, unknown))}")
        return list(dataset)

    def sample(self, dataset, n, rng):
        counts = Counter(self.validate_dataset(dataset))
        return KEYS({k: laplace_on_grid(float(counts[k]), (1 + GRID) / self.epsilon, n, rng)
                     for k in CATEGORIES})


# -- a domain computed from the data (np.unique) -------------------------------------------

VALUE_KEYS = KeyedOutputs(VALUES)


class UniqueHistogram(_Case):
    """BUG: a histogram over ``np.unique(dataset)``: a new value brings a new bin."""

    name = "unique-histogram"
    known_bad = True

    def dataset_space(self):
        return BoundedRecords(0, 9, n_max=8, min_size=1, integer=True)

    def sample(self, dataset, n, rng):
        d = self._finite(dataset)
        values, counts = np.unique(d, return_counts=True)
        return VALUE_KEYS({int(v): laplace_on_grid(float(c), (1 + GRID) / self.epsilon, n, rng)
                           for v, c in zip(values, counts)})


class DomainHistogram(UniqueHistogram):
    """Correct: the histogram over the public domain 0..9, every bin released."""

    name = "domain-histogram"
    known_bad = False

    def validate_dataset(self, dataset):
        d = self._finite(dataset)
        if np.any((d < 0) | (d > 9) | (d != np.round(d))):
            raise ValueError("records are integers in 0..9")
        return d

    def sample(self, dataset, n, rng):
        d = self.validate_dataset(dataset)
        return VALUE_KEYS({v: laplace_on_grid(float(np.sum(d == v)), (1 + GRID) / self.epsilon,
                                              n, rng) for v in VALUES})


# -- a clipping bound taken from the data ---------------------------------------------------

class DataBoundMean(_Case):
    """BUG: the clipping bound, and so the noise, is the largest record."""

    name = "data-bound-mean"
    known_bad = True

    def dataset_space(self):
        return BoundedRecords(0.0, 1.0, n_max=8, min_size=2)

    def sample(self, dataset, n, rng):
        d = self._finite(dataset)
        hi = float(np.max(np.abs(d)))
        return laplace_on_grid(float(np.clip(d, 0.0, hi).mean()), (hi / d.size + GRID)
                               / self.epsilon, n, rng)


class ClippedMean(_Case):
    """Correct: the mean of records clipped to [0, 1] over ≥ 2 records, Lap((1/2 + g)/ε)."""

    name = "clipped-mean"

    def dataset_space(self):
        return BoundedRecords(0.0, 1.0, n_max=8, min_size=2)

    def validate_dataset(self, dataset):
        d = self._finite(dataset)
        if d.size < 2:
            raise ValueError("at least 2 records")
        return d

    def sample(self, dataset, n, rng):
        d = self.validate_dataset(dataset)
        return laplace_on_grid(float(np.clip(d, 0.0, 1.0).mean()), (0.5 + GRID) / self.epsilon,
                               n, rng)


# -- a huge value ---------------------------------------------------------------------------

class UnclippedSum(_Case):
    """BUG: records are documented to lie in [0, 1] and summed as they come."""

    name = "unclipped-sum"
    known_bad = True

    def dataset_space(self):
        return BoundedRecords(0.0, 1.0, n_max=6, min_size=1)

    def sample(self, dataset, n, rng):
        total = float(np.sum(self._finite(dataset)))
        return laplace_on_grid(total, (1 + GRID) / self.epsilon, n, rng)


class ClippedSum(UnclippedSum):
    """Correct: each record clipped to [0, 1], then summed."""

    name = "clipped-sum"
    known_bad = False

    def validate_dataset(self, dataset):
        return self._finite(dataset)

    def sample(self, dataset, n, rng):
        total = float(np.clip(self.validate_dataset(dataset), 0.0, 1.0).sum())
        return laplace_on_grid(total, (1 + GRID) / self.epsilon, n, rng)


#: the declared bound of the integer sum: records are integers in [0, 2^62]
BIG = 2 ** 62
#: the grid a Laplace scale of 2⁶² + grid needs (dpaudit.mechanisms.float_safe refuses finer
#: ones: numpy draws Lap(2⁶²) with a resolution of about 2⁹)
BIG_GRID = 2.0 ** 15


class Int64Sum(_Case):
    """BUG: integer records in [0, 2⁶²] (a wide declared domain), summed by numpy in int64:
    two records near the top wrap the sum to a negative number."""

    name = "int64-sum"
    known_bad = True

    def dataset_space(self):
        return BoundedRecords(0, BIG, n_max=4, min_size=1, integer=True)

    def validate_dataset(self, dataset):
        d = np.asarray(dataset, dtype=np.int64)
        if np.any((d < 0) | (d > BIG)):
            raise ValueError("records are integers in [0, 2**62]")
        return d

    def sample(self, dataset, n, rng):
        total = int(self.validate_dataset(dataset).sum())  # BUG: wraps past 2**63 - 1
        return laplace_on_grid(float(total), (BIG + BIG_GRID) / self.epsilon, n, rng,
                               grid=BIG_GRID)


class ExactIntSum(Int64Sum):
    """Correct: the same records summed exactly (Python integers)."""

    name = "exact-int-sum"
    known_bad = False

    def sample(self, dataset, n, rng):
        total = sum(int(v) for v in self.validate_dataset(dataset))
        return laplace_on_grid(float(total), (BIG + BIG_GRID) / self.epsilon, n, rng,
                               grid=BIG_GRID)


# -- a single record --------------------------------------------------------------------------

class SingleRecordShortcut(_Case):
    """BUG: the noisy mean of records in [0, 1], with a shortcut returning the only record of
    a one-record dataset as it is (no noise)."""

    name = "single-record-shortcut"
    known_bad = True

    def dataset_space(self):
        return BoundedRecords(0.0, 1.0, n_max=6, min_size=1)

    def sample(self, dataset, n, rng):
        d = np.clip(self._finite(dataset), 0.0, 1.0)
        if d.size == 1:
            return np.full(n, float(d[0]))  # BUG
        return laplace_on_grid(float(d.mean()), (1.0 + GRID) / self.epsilon, n, rng)


class NoisyMean(SingleRecordShortcut):
    """Correct: the noisy mean on every dataset (the mean of ≥ 1 records in [0, 1] moves by at
    most 1 when one is added or removed: Lap((1 + g)/ε))."""

    name = "noisy-mean"
    known_bad = False

    def validate_dataset(self, dataset):
        return self._finite(dataset)

    def sample(self, dataset, n, rng):
        d = np.clip(self.validate_dataset(dataset), 0.0, 1.0)
        return laplace_on_grid(float(d.mean()), (1.0 + GRID) / self.epsilon, n, rng)


#: (bug, its correct twin, its worst case in words)
CASES = [(PartitionSelection, PublicHistogram, "add an unseen key"),
         (UniqueHistogram, DomainHistogram, "add an unseen value (np.unique)"),
         (DataBoundMean, ClippedMean, "a bound from the data"),
         (UnclippedSum, ClippedSum, "a huge value"),
         (Int64Sum, ExactIntSum, "integers near overflow"),
         (SingleRecordShortcut, NoisyMean, "a single record")]
