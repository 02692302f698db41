"""A user's bounded sums (the new user of issue 23): records are meant to lie in [lower, upper]."""

import numpy as np

from dpaudit import (Mechanism, NeighbourPair, NeighbourRelation, Parameter, PureDP,
                     SearchableDatasets, laplace_on_grid)
from dpaudit.neighbours import add_remove_one
from dpaudit.neighbours.spaces import BoundedRecords


class _BoundedSum(SearchableDatasets, Mechanism):
    family = "privstats"
    epsilon = Parameter(1.0, None, "privacy parameter")
    lower = Parameter(0.0, None, "records are clipped to [lower, upper]")
    upper = Parameter(1.0, None, "records are clipped to [lower, upper]")

    def relation(self):
        return NeighbourRelation("add-remove-one", "add or remove one record", add_remove_one)

    def validate_dataset(self, dataset):
        records = np.asarray(dataset, dtype=float).ravel()
        if not np.isfinite(records).all():  # np.clip lets NaN through
            raise ValueError("records must be finite numbers")
        return records

    def claim(self):
        return PureDP(epsilon=self.epsilon)

    def dataset_space(self):
        # any real records may arrive; the sum clips them
        return BoundedRecords(-10.0, 10.0, n_max=6, min_size=1)

    def worst_case_pairs(self):
        base = [0.0, 0.0, 0.0]
        return [NeighbourPair("add-upper", base, base + [self.upper],
                              "adding a record at the upper bound")]

    def noise(self, total, n, rng):
        return laplace_on_grid(total, (self.upper - self.lower) / self.epsilon, n, rng)

    def sample(self, dataset, n, rng):
        return self.noise(self.total(self.validate_dataset(dataset)), n, rng)


class BoundedSumBuggy(_BoundedSum):
    """Clips the *total* to [n·lower, n·upper] instead of each record (the bug)."""

    name = "bounded-sum-buggy"

    def total(self, x):
        return float(np.clip(x.sum(), len(x) * self.lower, len(x) * self.upper))


class BoundedSum(_BoundedSum):
    """Clips each record to [lower, upper], then sums: sensitivity upper - lower."""

    name = "bounded-sum"

    def total(self, x):
        return float(np.clip(x, self.lower, self.upper).sum())


class BoundedSumNaiveFloat(BoundedSum):
    """The correct sum with ``total + rng.laplace(...)`` on doubles (Mironov 2012)."""

    name = "bounded-sum-naive-float"

    def noise(self, total, n, rng):
        return total + rng.laplace(0.0, (self.upper - self.lower) / self.epsilon, size=n)
