"""A user's group-by counts over string categories (the new user of issue 36)."""

from collections import Counter

import numpy as np

from dpaudit import CategoricalRecords, KeyedOutputs, laplace_on_grid, with_dataset_space

CATEGORIES = ["a", "b", "c"]
RELEASES = KeyedOutputs(CATEGORIES)
SPACE = CategoricalRecords(CATEGORIES)
GRID = 2.0 ** -32


@with_dataset_space(SPACE)
def group_by(dataset, n, rng, epsilon=1.0, tau=3.0):
    """Partition selection as written: a noisy count for every key found, released above
    tau.  A key present in one dataset only is released with positive probability: not ε-DP."""
    releases = [{} for _ in range(n)]
    for key, count in Counter(dataset).items():
        noisy = laplace_on_grid(float(count), (1 + GRID) / epsilon, n, rng)
        for i in np.flatnonzero(noisy > tau):
            releases[i][key] = noisy[i]
    return RELEASES(releases)


@with_dataset_space(SPACE)
def histogram(dataset, n, rng, epsilon=1.0):
    """The correct twin: noisy counts of the listed categories, all released (L1
    sensitivity 1); records of other categories are refused."""
    unknown = set(dataset) - set(CATEGORIES)
    if unknown:
        raise ValueError(f"unlisted categories {sorted(unknown)}")
    counts = Counter(dataset)
    return RELEASES({k: laplace_on_grid(float(counts[k]), (1 + GRID) / epsilon, n, rng)
                     for k in CATEGORIES})
