"""Releases whose keys depend on the data, encoded without a hand-made category list
(issue 36, item 2), and a group-by as users write it failing its audit."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from dpaudit import laplace_on_grid
from dpaudit.api import audit_sampler
from dpaudit.mechanisms.keyed_outputs import UNLISTED_COLUMNS, KeyedOutputs
from dpaudit.mechanisms.per_call import per_call_sampler
from dpaudit.mechanisms.sampler import SearchableSampler, SamplerMechanism, with_dataset_space
from dpaudit.neighbours.categorical import CategoricalRecords
from dpaudit.claims import PureDP

GRID = 2.0 ** -32


def test_rows_keep_presence_apart_from_value():
    enc = KeyedOutputs(["a", "b"])
    rows = enc([{"a": 0.0}, {}, {"b": 2.5, "z": 4.0, "y": -1.0}])
    assert enc.columns() == ["released['a']", "value['a']", "released['b']", "value['b']",
                             *UNLISTED_COLUMNS]
    assert rows.tolist() == [[1, 0, 0, 0, 0, 0, 0, 0],      # a released at 0.0 ≠ suppressed
                             [0, 0, 0, 0, 0, 0, 0, 0],
                             [0, 0, 1, 2.5, 2, 3.0, -1.0, 4.0]]


def test_a_batch_of_arrays_with_nan_for_suppressed_encodes_alike():
    enc = KeyedOutputs([1, 2])
    rows = [{1: 3.0}, {1.0: 1.0, 2: 2.0, "other": 7.0}]   # 1 and 1.0 are one key
    batch = {1: np.array([3.0, 1.0]), 2: np.array([np.nan, 2.0]),
             "other": np.array([np.nan, 7.0])}
    assert np.array_equal(enc(rows), enc(batch))


@pytest.mark.parametrize("bad, fragment", [
    ([{"a": "x"}], "not a number"), ([{"a": np.nan}], "NaN"), ([[1.0]], "not a dict"),
    ({"a": [1.0], "b": [1.0, 2.0]}, "n values"), ("abc", "expected a list")])
def test_bad_releases_say_which(bad, fragment):
    with pytest.raises(ValueError, match=fragment):
        KeyedOutputs(["a"])(bad)
    with pytest.raises(ValueError, match="listed twice"):
        KeyedOutputs(["a", "a"])


GROUPS = KeyedOutputs(["a", "b", "c"])


@with_dataset_space(CategoricalRecords(["a", "b", "c"]))
def group_by(dataset, n, rng, epsilon=1.0, tau=3.0):
    """BUG (partition selection): a noisy count for every key found in the data, released
    above tau — a key present in one dataset only appears with positive probability."""
    releases = [{} for _ in range(n)]
    for key, count in Counter(dataset).items():
        noisy = laplace_on_grid(float(count), (1 + GRID) / epsilon, n, rng)
        for i in np.flatnonzero(noisy > tau):
            releases[i][key] = noisy[i]
    return GROUPS(releases)


def test_a_sampler_with_a_space_is_searched_and_its_pairs_checked():
    mech = SamplerMechanism(group_by, PureDP(1.0), "group_by", {}, [(["a"], ["a", "b"])])
    assert isinstance(mech, SearchableSampler) and "listed categories" in mech.neighbouring
    assert not mech.check_pair(["a"], ["b", "c", "a"])[0]
    plain = SamplerMechanism(lambda d, n, rng: rng.random(n), PureDP(1.0))
    assert type(plain) is SamplerMechanism


@pytest.mark.slow  # an audit of 20 000 samples per side
def test_partition_selection_as_users_write_it_fails_where_the_named_pair_passes():
    """The naive pair adds a record of a key already present: consistent.  The proposals add
    a key absent from the other dataset, and certify the violation, naming the pair."""
    result = audit_sampler(group_by, epsilon=1.0, pairs=[(["a", "a", "b"], ["a", "a", "b", "b"])],
                           samples=20_000, seed=1)
    named, *searched = result.points[0].tests
    assert named.certificates[0].verdict == "consistent"
    assert result.verdict == "violation"
    hit = max(searched, key=lambda t: t.certificates[0].bound)
    assert hit.search.source == "proposal" and "unseen" in hit.search.extra["proposal"]
    assert hit.search.extra["why"] and set(hit.pair.d1) - set(hit.pair.d0)
    off = audit_sampler(group_by, epsilon=1.0, pairs=[(["a", "a", "b"], ["a", "a", "b", "b"])],
                        samples=20_000, seed=1, search=False)
    assert off.verdict == "consistent"


@per_call_sampler(keys=["a", "b"])
@with_dataset_space(CategoricalRecords(["a", "b"]))
def one_release(dataset, rng, epsilon=1.0):
    return {k: c + rng.laplace(0, 1 / epsilon) for k, c in Counter(dataset).items()}


def test_per_call_sampler_encodes_dict_outputs_and_keeps_the_space():
    rows = one_release(["a", "a", "b"], 5, np.random.default_rng(0))
    assert rows.shape == (5, 2 * 2 + 4) and (rows[:, 0] == 1).all() and (rows[:, 2] == 1).all()
    assert isinstance(one_release.dataset_space, CategoricalRecords)
