"""The space of many categorical records (issue 36, item 2): strings, tuples and dicts,
searched with unseen categories."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpaudit.neighbours.categorical import CategoricalRecords

SPACES = [CategoricalRecords(["a", "b", "c"]),
          CategoricalRecords([0, 1, 2, 3], neighbouring="replace", min_size=1, n_max=4),
          CategoricalRecords([("x", 1), ("y", 2)], n_max=3),
          CategoricalRecords({"country": ["fr", "de"], "device": ["ios", "android", "web"]},
                             n_max=4, open_domain=False)]


def _valid(space, pair):
    d0, d1 = pair
    assert space.relation()(d0, d1)[0], pair
    s_min, s_max = space.min_size, space.n_max
    for d in pair:
        assert isinstance(d, list) and s_min <= len(d) <= s_max
        for record in d:
            if isinstance(space.categories, dict):
                assert set(record) == set(space.categories)
                for field, value in record.items():
                    assert value in space.categories[field] + space.unseen(field)
            else:
                assert record in space.categories + space.unseen()


@pytest.mark.parametrize("space", SPACES, ids=lambda s: s.describe())
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_every_pair_is_a_neighbouring_pair_of_the_space(space, data):
    _valid(space, data.draw(space.strategy()))
    x = data.draw(st.lists(st.floats(-1.0, 2.0), min_size=space.dimension,
                           max_size=space.dimension))
    _valid(space, space.from_vector(x))
    _valid(space, space.random_pair(np.random.default_rng(data.draw(st.integers(0, 99)))))


def test_random_pairs_add_unseen_categories():
    space = CategoricalRecords(["a", "b", "c"])
    rng = np.random.default_rng(0)
    added = []
    for _ in range(400):
        d0, d1 = space.random_pair(rng)
        big, small = (d1, d0) if len(d1) > len(d0) else (d0, d1)
        added += [r for r in set(big) if big.count(r) > small.count(r)]
    assert {"a", "b", "c", "unseen-1", "unseen-2"} <= set(added)
    assert sum(r not in set(space.categories) for r in added) > 20  # often enough


def test_unseen_values_per_type():
    assert CategoricalRecords(["unseen-1", "x"]).unseen() == ("unseen-2", "unseen-3")
    assert CategoricalRecords([3, 7]).unseen() == (8, 9)
    assert CategoricalRecords([1.5, 2.5]).unseen() == ()  # no obvious fresh float
    assert CategoricalRecords(["a", "b"], open_domain=False).unseen() == ()


@pytest.mark.parametrize("args, fragment", [
    ((["a"],), "at least 2 categories"), ((["a", "a"],), "duplicate"),
    (("abc",), "expected a list of categories"), (({},), "no fields"),
    ((["a", "b"], 0, 0, "add-remove"), "no dataset sizes"),
    ((["a", "b"], 4, 0, "swap"), "neighbouring must be")])
def test_bad_spaces_say_why(args, fragment):
    with pytest.raises(ValueError, match=fragment):
        CategoricalRecords(*args)


def test_describe_and_hash():
    space = CategoricalRecords({"country": ["fr", "de"]}, n_max=3)
    assert "country (2 categories) or unseen ones" in space.describe()
    assert hash(space) == hash(CategoricalRecords({"country": ["fr", "de"]}, n_max=3))
