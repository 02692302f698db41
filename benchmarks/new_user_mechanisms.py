"""Five mechanisms a privacy engineer wrote for their own package (issue 36's story): a clipped
mean whose bound comes from the data, a group-by count released above a threshold (partition
selection), an exponential-mechanism median missing the 1/2, and two correct ones, each named
with the pair a naive engineer names.

As the engineer wrote them before issue 36: categories mapped to integers by hand (a, b, c,
d -> 0, 1, 2, 3) because dpaudit's dataset spaces were numeric, suppressed categories released
as 0.0 in a fixed list, the noise on dpaudit's grid.  ``FixedClipMean`` clips with np.clip and
does not refuse NaN records: the grey-box replay reports the NaN release (see
benchmarks/RESULTS.md).  Used by benchmarks/new_user_story.py.
"""
import numpy as np

from dpaudit import (Mechanism, NeighbourPair, NeighbourRelation, PureDP, SearchableDatasets,
                     laplace_on_grid)
from dpaudit.neighbours import add_remove_one
from dpaudit.neighbours.spaces import BoundedRecords

G = 2.0 ** -32
K = 4  # categories a, b, c, d


class _Base(SearchableDatasets, Mechanism):
    family = "mine"

    def __init__(self, epsilon=1.0):
        super().__init__(epsilon=epsilon)
        self.epsilon = float(epsilon)

    def claim(self):
        return PureDP(epsilon=self.epsilon)

    def relation(self):
        return NeighbourRelation("add-remove-one", "add or remove one record", add_remove_one)


class DataBoundMean(_Base):
    """BUG: the clipping bound (and so the noise) comes from the data."""
    name = "data-bound-mean"

    def sample(self, dataset, n, rng):
        d = np.asarray(dataset, dtype=float)
        hi = float(np.max(np.abs(d)))
        mean = float(np.clip(d, 0.0, hi).mean())
        return laplace_on_grid(mean, (hi / len(d) + G) / self.epsilon, n, rng)

    def dataset_space(self):
        return BoundedRecords(0.0, 1.0, n_max=8, min_size=2)

    def worst_case_pairs(self):
        return [NeighbourPair("naive", [0.2, 0.4, 0.6], [0.2, 0.4, 0.6, 0.8])]


class GroupByCount(_Base):
    """BUG: releases the noisy count of each category present in the data, if above tau."""
    name = "group-by-count"

    def sample(self, dataset, n, rng):
        d = np.asarray(dataset, dtype=int)
        out = np.zeros((n, K))
        for key in np.unique(d):
            noisy = laplace_on_grid(float(np.sum(d == key)), (1.0 + G) / self.epsilon, n, rng)
            out[:, key] = np.where(noisy > 3.0, noisy, 0.0)
        return out

    def dataset_space(self):
        return BoundedRecords(0, K - 1, n_max=6, min_size=1, integer=True)

    def worst_case_pairs(self):
        return [NeighbourPair("naive", [0, 0, 1], [0, 0, 1, 1])]


class ExpMedian(_Base):
    """BUG: exponential mechanism for the median with exp(eps*u), the 1/2 missing."""
    name = "exp-median"

    def sample(self, dataset, n, rng):
        d = np.asarray(dataset, dtype=int)
        c = np.arange(0, 11)
        u = -np.abs((d[None, :] < c[:, None]).sum(1) - (d[None, :] > c[:, None]).sum(1))
        p = np.exp(self.epsilon * (u - u.max()))
        return rng.choice(c, size=n, p=p / p.sum()).astype(float)

    def dataset_space(self):
        return BoundedRecords(0, 10, n_max=6, min_size=1, integer=True)

    def worst_case_pairs(self):
        return [NeighbourPair("naive", [1, 2, 3, 4], [1, 2, 3, 4, 5])]


class FixedClipMean(_Base):
    """Written as correct: mean of records clipped to [0, 1] over >= 2 records,
    Lap((1/2 + g)/eps) — but np.clip lets a NaN record through, and the release is NaN on the
    dataset that holds it (the grey-box replay's nonfinite-release finding, every route)."""
    name = "fixed-clip-mean"

    def validate_dataset(self, dataset):
        d = np.asarray(dataset, dtype=float)
        if d.size < 2:
            raise ValueError("need at least 2 records")
        return d

    def sample(self, dataset, n, rng):
        d = self.validate_dataset(dataset)
        return laplace_on_grid(float(np.clip(d, 0, 1).mean()), (0.5 + G) / self.epsilon, n, rng)

    def dataset_space(self):
        return BoundedRecords(0.0, 1.0, n_max=8, min_size=2)

    def worst_case_pairs(self):
        return [NeighbourPair("naive", [0.2, 0.4, 0.6], [0.2, 0.4, 0.6, 0.8])]


class PublicHistogram(_Base):
    """Correct: noisy counts of the K public categories, Lap((1 + g)/eps) each."""
    name = "public-histogram"

    def sample(self, dataset, n, rng):
        d = np.asarray(dataset, dtype=int)
        return np.stack([laplace_on_grid(float(np.sum(d == k)), (1.0 + G) / self.epsilon, n,
                                         rng) for k in range(K)], axis=1)

    def dataset_space(self):
        return BoundedRecords(0, K - 1, n_max=6, min_size=1, integer=True)

    def worst_case_pairs(self):
        return [NeighbourPair("naive", [0, 0, 1], [0, 0, 1, 1])]
