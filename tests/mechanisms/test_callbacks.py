"""User callbacks that return the wrong kind of value (issue 26, item 4): each fails where it
returns, naming the callback and what it must return — or, where it is natural (a bool from a
relation predicate, ``(d0, d1)`` tuples from ``worst_case_pairs``, a plain predicate from
``relation()``), is accepted."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit import (Mechanism, NeighbourPair, NeighbourRelation, PureDP, SearchableDatasets,
                     laplace_on_grid)
from dpaudit.api import audit_mechanism, audit_sampler
from dpaudit.distinguish.learned import PrivacyLoss
from dpaudit.distinguish.sampling import SamplerError, draw
from dpaudit.mechanisms.callbacks import CallbackError
from dpaudit.neighbours.relations import verdict


def _same_size(d0, d1):
    return len(d0) == len(d1)  # a bool, not (ok, reason)


class Count(Mechanism):
    name = "callback-count"
    family = "user"

    def sample(self, dataset, n, rng):
        return laplace_on_grid(float(np.sum(dataset)), 1.0, n, rng)

    def claim(self):
        return PureDP(1.0)

    def worst_case_pairs(self):
        return [([0.0], [1.0])]  # a tuple: named pair-0

    def relation(self):
        return NeighbourRelation("same-size", "datasets of one size", _same_size)


def test_a_bool_predicate_and_tuple_pairs_are_accepted():
    mech = Count()
    assert mech.worst_case_pairs() == [NeighbourPair("pair-0", [0.0], [1.0], "")]
    assert mech.check_pair([0.0], [1.0]) == (True, "")
    assert mech.check_pair([0.0], [1.0, 2.0]) == (False,
                                                  "the relation 'same-size' rejects the pair")
    result = audit_mechanism(Count, samples=1000, search=False)
    assert result.verdict == "consistent"
    bad = audit_mechanism(Count, pairs=[([0.0], [1.0, 1.0])], samples=1000, search=False)
    assert bad.verdict == "error" and "the relation 'same-size' rejects the pair" in \
        bad.records[0].error


@pytest.mark.parametrize("value, ok", [(True, (True, "")), (np.bool_(False), None),
                                       ((False, "too far"), (False, "too far"))])
def test_predicate_results_are_normalised(value, ok):
    got = verdict(value, "r")
    assert got == ok if ok is not None else got[0] is False and "'r'" in got[1]


@pytest.mark.parametrize("value", [1, None, (True,), ("yes", "reason"), [True, ""]])
def test_other_predicate_results_name_the_relation(value):
    with pytest.raises(TypeError, match=r"predicate of neighbouring relation 'r' returned .*"
                                         r"it must return True/False or \(ok, reason\)"):
        verdict(value, "r")


class BadClaim(Count):
    name = "callback-bad-claim"

    def claim(self):
        return 1.0


class BadPairs(Count):
    name = "callback-bad-pairs"

    def worst_case_pairs(self):
        return NeighbourPair("one", [0.0], [1.0])  # not a list


class PredicateRelation(Count):
    name = "callback-predicate-relation"

    def relation(self):
        return _same_size  # a plain function, not a NeighbourRelation


class BadSpace(SearchableDatasets, Count):
    name = "callback-bad-space"

    def dataset_space(self):
        return [0.0, 1.0]


@pytest.mark.parametrize("cls, call, words", [
    (BadClaim, "claim", "BadClaim.claim() returned 1.0 (a float); it must return a claim"),
    (BadPairs, "worst_case_pairs", "BadPairs.worst_case_pairs() returned NeighbourPair("),
    (BadSpace, "dataset_space", "BadSpace.dataset_space() returned [0.0, 1.0] (a list); it "
                                "must return a dataset space"),
])
def test_wrong_return_types_name_the_callback(cls, call, words):
    with pytest.raises(CallbackError) as info:
        getattr(cls(), call)()
    assert words in str(info.value)


def test_a_plain_predicate_from_relation_is_a_relation_named_after_it():
    rel = PredicateRelation().relation()
    assert isinstance(rel, NeighbourRelation) and rel.name == "_same_size"
    assert PredicateRelation().check_pair([0.0], [1.0]) == (True, "")


def test_the_api_refuses_a_bad_claim_before_sampling():
    with pytest.raises(CallbackError, match=r"BadClaim.claim\(\) returned 1.0"):
        audit_mechanism(BadClaim, samples=1000)


def test_a_sampler_returning_none_is_named():
    def forgot_return(dataset, n, rng):
        rng.laplace(size=n)

    with pytest.raises(SamplerError, match="sampler forgot_return returned None on d0 for "
                                           "n=5; it must return n outputs"):
        draw(forgot_return, [0], 5, np.random.default_rng(0))
    result = audit_sampler(forgot_return, epsilon=1.0, pairs=[([0], [1])], samples=1000)
    assert result.verdict == "error" and "returned None" in result.records[0].error


def test_a_log_density_of_the_wrong_shape_is_named():
    class Dens:
        def log_density(self, dataset, outputs):
            return None

    loss = PrivacyLoss(Dens().log_density, [0], [1])
    with pytest.raises(ValueError, match=r"Dens.log_density\(dataset, outputs\) returned "
                                         r"NoneType .*for 3 outputs; it must return one "
                                         r"log-density per output"):
        loss(np.zeros(3))
