"""Every dataset space proposes its adversarial pairs (issue 36, item 1): named, neighbours
whenever inside the declared domain, deterministic, and outside it only where marked."""

from __future__ import annotations

import math

import pytest

from dpaudit.neighbours.categorical import CategoricalRecords
from dpaudit.neighbours.proposals import (Proposal, as_proposal, bounded_record_proposals,
                                          proposals_of)
from dpaudit.neighbours.spaces import BoundedRecords, QueryAnswers, SingleCategorical

SPACES = [BoundedRecords(0.0, 1.0), BoundedRecords(0, 4, integer=True, min_size=0),
          BoundedRecords(-1.0, 1.0, n_max=4, neighbouring="replace"),
          BoundedRecords(0.0, 2.0 ** 40, n_max=3),
          QueryAnswers(1.0, 2, 6), SingleCategorical(3),
          CategoricalRecords(["a", "b", "c"]),
          CategoricalRecords([0, 1, 2, 3], neighbouring="replace", min_size=1, n_max=4),
          CategoricalRecords({"country": ["fr", "de"], "device": ["ios", "web"]}, n_max=4)]


def _inside(space, d) -> bool:
    if isinstance(space, BoundedRecords):
        return all(math.isfinite(v) and space.lo <= v <= space.hi for v in d) and \
            space.min_size <= len(d) <= space.n_max
    if isinstance(space, QueryAnswers):
        return all(math.isfinite(v) and space.lo <= v <= space.hi for v in d)
    if isinstance(space, SingleCategorical):
        return all(0 <= v < space.k for v in d)
    return True


@pytest.mark.parametrize("space", SPACES, ids=lambda s: s.describe())
def test_proposals_are_named_neighbours_and_say_where_they_lie(space):
    proposals = space.proposals()
    assert proposals, "every built-in space proposes adversarial pairs"
    names = [p.name for p in proposals]
    assert len(names) == len(set(names))
    assert space.proposals() == proposals  # deterministic: no random draw
    for p in proposals:
        assert isinstance(p.d0, list) and isinstance(p.d1, list) and p.d0 != p.d1 and p.why
        if p.inside:
            assert space.relation()(p.d0, p.d1)[0], p
            assert _inside(space, p.d0) and _inside(space, p.d1), p
        else:
            assert not (_inside(space, p.d0) and _inside(space, p.d1)), p


def test_records_propose_where_implementations_break():
    real = {p.name: p for p in BoundedRecords(0.0, 1.0, n_max=6).proposals()}
    assert {"single-record", "largest-size-at-hi", "add-duplicate", "add-new-value",
            "binade-edge", "sum-order", "just-above-hi", "huge-value", "nan-record",
            "inf-record"} <= set(real)
    assert math.isnan(real["nan-record"].d1[-1]) and real["huge-value"].d1[-1] > 1e300
    # the sum-order pair lists its small records first: summed left to right they add up
    # before the large one, so the float sum moves by more than the one record added
    d0, d1 = real["sum-order"].d0, real["sum-order"].d1
    added = d1[0]
    assert sorted(d1) == sorted(d0 + [added]) and sum(d1) - sum(d0) > 2 * added
    ints = {p.name: p for p in BoundedRecords(0, 4, integer=True, min_size=0).proposals()}
    assert ints["empty-vs-one-hi"].d0 == [] and ints["empty-vs-one-hi"].d1 == [4]
    assert ints["int64-overflow"].d1[-1] == 2 ** 63 - 1 and not ints["int64-overflow"].inside
    assert all(isinstance(v, int) for p in ints.values() for v in p.d0 + p.d1)


def test_categorical_proposals_add_a_category_the_other_dataset_lacks():
    space = CategoricalRecords(["a", "b", "c"])
    by_name = {p.name: p for p in space.proposals()}
    unseen = by_name["add-unseen-category"]
    assert set(unseen.d1) - set(unseen.d0) == {"b"}
    fresh = by_name["add-unlisted-category"]
    assert fresh.d1[-1] == "unseen-1" and fresh.d1[-1] not in space.categories
    assert by_name["empty-vs-one"].d0 == []
    keyed = CategoricalRecords({"country": ["fr", "de"], "device": ["ios", "web"]})
    names = {p.name for p in keyed.proposals()}
    assert {"add-unseen-category-country", "add-unseen-category-device",
            "add-unlisted-category-device"} <= names
    closed = CategoricalRecords(["a", "b"], open_domain=False)
    assert not any("unlisted" in p.name for p in closed.proposals())


def test_bounded_record_proposals_respect_the_sizes():
    for p in bounded_record_proposals(0.0, 1.0, (2, 3), True, False):
        if p.inside:
            assert 2 <= len(p.d0) <= 3 and len(p.d1) == len(p.d0) + 1


def test_a_space_may_return_plain_tuples():
    """(name, d0, d1) tuples — the form of another branch's keyed-rows space — read as
    proposals inside the domain; anything else is one clear error."""
    assert as_proposal(("x", [0], [0, 1])) == Proposal("x", [0], [0, 1], "x")
    assert as_proposal(("x", [0], [0, 1], "why")).why == "why"
    with pytest.raises(ValueError, match="proposals\\(\\) must give"):
        as_proposal(["x", [0], [0, 1]])
    assert proposals_of(SingleCategorical(3)) == SingleCategorical(3).proposals()
