"""Keyed rows (dpaudit/neighbours/keyed_rows.py): the add/remove-one-user relation, the dataset
space's pairs (random, parametrised, hypothesis) and its named proposals, all neighbouring."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

from dpaudit.neighbours.keyed_rows import KeyedRowsSpace, add_remove_user, keyed_rows

SPACE = KeyedRowsSpace(keys=3, users=4, rows=3, lo=0.0, hi=1.0, max_partitions=1,
                       max_per_partition=1)


def test_relation_adds_or_removes_every_row_of_one_user():
    base = [[0, 0, 0.5], [1, 1, 0.25]]
    assert add_remove_user(base, base + [[2, 0, 1.0], [2, 2, 0.0]]) == (True, "")
    assert add_remove_user(base + [[2, 0, 1.0]], base)[0]          # either way round
    ok, why = add_remove_user(base, base + [[2, 0, 1.0], [3, 0, 1.0]])
    assert not ok and "2 users" in why
    ok, why = add_remove_user(base, base + [[1, 0, 1.0]])           # user 1 already there
    assert not ok and "both datasets" in why
    ok, why = add_remove_user(base, [[0, 0, 0.5], [1, 1, 0.3]])
    assert not ok and "not contained" in why
    assert not add_remove_user(base, base)[0]


def test_bad_rows_are_one_line_naming_the_row():
    with pytest.raises(ValueError, match=r"row 1 of a keyed dataset must be \[user, key, value\]"):
        keyed_rows([[0, 0, 1.0], [1, 2]])
    with pytest.raises(ValueError, match="row 0: the key must be an integer"):
        keyed_rows([[0, "a", 1.0]])
    with pytest.raises(ValueError, match="row 0: key 5 is outside the partition keys 0..2"):
        keyed_rows([[0, 5, 1.0]], keys=3)
    with pytest.raises(ValueError, match="row 0: the value must be a finite number"):
        keyed_rows([[0, 1, float("nan")]])
    assert keyed_rows(np.array([[1, 2, 0.5]])) == [(1, 2, 0.5)]
    assert not add_remove_user([[0, "a", 1]], [])[0]


def test_proposals_are_named_neighbouring_and_break_the_bounds():
    found = {name: (d0, d1) for name, d0, d1 in SPACE.proposals()}
    assert list(found) == ["user-in-many-partitions", "user-many-rows-one-partition",
                           "key-only-in-one-dataset", "value-above-clamp", "value-below-clamp",
                           "empty-partition", "empty-dataset", "extreme-value-small-partition"]
    for name, (d0, d1) in found.items():
        assert add_remove_user(d0, d1) == (True, ""), name
        assert len(d0) < len(d1), name
    added = lambda name: [r for r in found[name][1] if r not in found[name][0]]  # noqa: E731
    assert len({r[1] for r in added("user-in-many-partitions")}) > SPACE.max_partitions
    assert len(added("user-many-rows-one-partition")) > SPACE.max_per_partition
    key = added("key-only-in-one-dataset")[0][1]
    assert all(r[1] != key for r in found["key-only-in-one-dataset"][0])
    assert added("value-above-clamp")[0][2] > SPACE.max_value
    assert added("value-below-clamp")[0][2] < SPACE.min_value
    assert found["empty-dataset"][0] == []
    assert all(r[1] != 0 for r in found["empty-partition"][0])


def test_many_partitions_exceed_a_large_l0_bound_too():
    space = KeyedRowsSpace(keys=2, max_partitions=3)
    (_, d0, d1), = [p for p in space.proposals() if p[0] == "user-in-many-partitions"]
    assert len(d1) - len(d0) == 4


def test_random_and_parametrised_pairs_are_neighbouring():
    rng = np.random.default_rng(0)
    for _ in range(200):
        d0, d1 = SPACE.random_pair(rng)
        assert add_remove_user(d0, d1)[0], (d0, d1)
    for x in (np.zeros(SPACE.dimension), np.ones(SPACE.dimension)):
        d0, d1 = SPACE.from_vector(x)
        assert add_remove_user(d0, d1)[0]
    assert len(SPACE.from_vector(np.ones(SPACE.dimension))[0]) > len(
        SPACE.from_vector(np.zeros(SPACE.dimension))[0])


@settings(max_examples=60, deadline=None)
@given(SPACE.strategy())
def test_hypothesis_pairs_are_neighbouring(pair):
    assert add_remove_user(*pair)[0]


def test_integer_space_and_bad_spaces():
    space = KeyedRowsSpace(integer=True, lo=0, hi=10)
    d0, d1 = space.random_pair(np.random.default_rng(1))
    assert all(float(r[2]).is_integer() for r in d0 + d1)
    with pytest.raises(ValueError, match="keys must be an integer ≥ 2"):
        KeyedRowsSpace(keys=1)
    with pytest.raises(ValueError, match="lo < hi"):
        KeyedRowsSpace(lo=1.0, hi=0.0)
    with pytest.raises(ValueError, match="integer values need integer bounds"):
        KeyedRowsSpace(integer=True, hi=1.5)
    assert "8 named proposals first" in SPACE.describe()


def test_a_crowd_adds_the_partition_at_the_selection_edge():
    space = KeyedRowsSpace(crowd=6)
    (name, d0, d1), = [p for p in space.proposals() if p[0] == "crowded-partition"]
    assert len(d0) == 6 and {r[1] for r in d0 + d1} == {0} and add_remove_user(d0, d1)[0]
    with pytest.raises(ValueError, match="crowd must be an integer ≥ 0"):
        KeyedRowsSpace(crowd=-1)
