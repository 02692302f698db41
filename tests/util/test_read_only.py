"""Samplers get read-only copies of their datasets (issue 39, item 5): a leaky sampler (true
ε = 4, claim 1) that cleared its input after reading it passed as consistent, results.json
showed the pair as d0 = [0, 0], and the API changed the caller's arrays."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit import estimate_epsilon_lower_bound
from dpaudit.api import audit_sampler
from dpaudit.util.read_only import DatasetWriteError, read_only_copy


def clears_array(d, n, rng):
    value = float(np.sum(d))
    d[:] = 0  # writes to its input after reading it
    return value + rng.laplace(size=n) / 4.0  # true ε of ([0, 0], [0, 1]) is 4


def clears_list(d, n, rng):
    value = float(sum(d))
    d.clear()
    d.extend([0.0, 0.0])
    return value + rng.laplace(size=n) / 4.0


def test_writing_to_an_array_dataset_is_an_error_and_the_callers_arrays_are_untouched():
    d0, d1 = np.array([0.0, 0.0]), np.array([0.0, 1.0])
    (record,) = audit_sampler(clears_array, epsilon=1.0, pairs=[(d0, d1)],
                              samples=20_000).records
    assert record.verdict == "error" and "wrote to its dataset" in record.error
    assert d1.tolist() == [0.0, 1.0] and d1.flags.writeable
    assert np.asarray(record.pair.d1).tolist() == [0.0, 1.0]


def test_a_sampler_that_clears_a_list_is_judged_on_the_pair_as_given():
    d0, d1 = [0.0, 0.0], [0.0, 1.0]
    (record,) = audit_sampler(clears_list, epsilon=1.0, pairs=[(d0, d1)],
                              samples=20_000).records
    assert record.verdict == "violation" and record.epsilon_lower_bound > 1.0
    assert d1 == [0.0, 1.0] and np.asarray(record.pair.d1).tolist() == [0.0, 1.0]


def test_the_black_box_estimator_gives_read_only_copies_too():
    d0, d1 = np.array([0.0, 0.0]), np.array([0.0, 1.0])
    with pytest.raises(DatasetWriteError, match="wrote to its dataset"):
        estimate_epsilon_lower_bound(clears_array, d0, d1, samples=5_000, seed=1)
    assert d1.tolist() == [0.0, 1.0]


def test_copies_keep_values_and_types_and_are_made_once_per_array():
    array = np.arange(5.0)
    data = {"x": [1, (2, 3)], "y": array, "z": "s"}
    copy = read_only_copy(data)
    assert copy["x"] == [1, (2, 3)] and copy["z"] == "s" and copy["x"] is not data["x"]
    assert np.array_equal(copy["y"], array) and not copy["y"].flags.writeable
    assert read_only_copy(array) is copy["y"]  # reused by identity, not copied per call
    assert array.flags.writeable
