"""A test's looks (dpaudit.audit.rounds) and the stopping rule in every route (issue 24)."""

from __future__ import annotations

import math
from functools import partial

import numpy as np
import pytest

from dpaudit.audit.rounds import certify_in_rounds, predicted_size, stop_reason
from dpaudit.distinguish.lower_bound import estimate_privacy_curve_lower_bound
from dpaudit.stats.sequential import StoppingRule


def laplace(scale, dataset, n, rng):
    return dataset[0] + rng.laplace(0.0, scale, n)


def _estimate(sampler, *, samples, seed, confidence, white):
    assert not white
    return estimate_privacy_curve_lower_bound(sampler, [0.0], [1.0], deltas=(0.0,),
                                              samples=samples, seed=seed,
                                              confidence=confidence)


def _rounds(scale, claim, rule, samples=200_000, seed=7):
    return certify_in_rounds(partial(_estimate, partial(laplace, scale)), samples=samples,
                             seed=seed, confidence=0.99, white_box=False, claims=[claim],
                             renyi_claims=[], rule=rule)


@pytest.mark.slow
def test_fixed_n_is_the_fixed_n_certificate_bit_for_bit():
    rounds = _rounds(1.0, 1.0, StoppingRule(sequential=False), samples=30_000)
    direct = _estimate(partial(laplace, 1.0), samples=30_000, seed=7, confidence=0.99,
                       white=False)
    assert rounds.stopped == "fixed" and rounds.looks == (30_000,) and rounds.drawn == 30_000
    assert rounds.black.points[0].to_dict() == {**direct.points[0].to_dict(),
                                                "seconds": rounds.black.points[0].seconds,
                                                "selection_seconds":
                                                    rounds.black.points[0].selection_seconds}


def test_a_large_violation_stops_at_the_first_look():
    rounds = _rounds(0.25, 1.0, StoppingRule())  # true ε = 4 against a claim of 1
    assert rounds.stopped == "violation" and rounds.rounds == 1 and rounds.drawn == 1000
    assert rounds.black.points[0].epsilon > 1.0


def test_a_correct_mechanism_stops_at_its_power_target_long_before_the_budget():
    rounds = _rounds(1.0, 1.0, StoppingRule(power=1.2), samples=1_000_000)
    assert rounds.stopped == "power" and rounds.drawn < 250_000
    point = rounds.black.points[0]
    assert point.epsilon <= 1.0 and point.samples == rounds.samples == rounds.looks[-1]
    # the reported look spends less than the test's α; each look at least doubles
    assert 1 - point.confidence < 0.01
    assert all(b >= 2 * a for a, b in zip(rounds.looks, rounds.looks[1:]))


def test_without_a_power_target_a_consistent_test_spends_its_budget():
    rounds = _rounds(1.0, 1.0, StoppingRule(power=None), samples=100_000)
    assert rounds.stopped == "budget" and rounds.looks[-1] == 100_000
    assert rounds.looks[0] == 1000 and rounds.drawn == sum(rounds.looks)


def test_stop_reason_reads_the_larger_bound_and_the_renyi_claims():
    class P:  # a point / Rényi entry with the fields stop_reason reads
        def __init__(self, epsilon=0.0, divergence=0.0):
            self.epsilon, self.divergence = epsilon, divergence
            self.bound = max(epsilon, divergence)  # what a verdict compares (Evidence.bound)

    class C:
        def __init__(self, points, renyi=()):
            self.points, self.renyi = points, renyi

    rule = StoppingRule(power=None)
    assert stop_reason(C([P(0.5)]), C([P(1.5)]), [1.0], [], rule, last=False) == "violation"
    assert stop_reason(C([P(0.5)], [P(divergence=3.0)]), None, [1.0], [2.0], rule,
                       last=False) == "violation"
    assert stop_reason(C([P(0.5)]), None, [1.0], [], rule, last=False) is None
    assert stop_reason(C([P(0.5)]), None, [1.0], [], rule, last=True) == "budget"
    assert stop_reason(C([P(0.5)]), None, [1.0], [], StoppingRule(sequential=False),
                       last=True) == "fixed"


def test_the_predicted_size_extrapolates_the_excess_over_the_claim():
    rule = StoppingRule(power=1.1)
    # excess 0.4 at 1000 against 0.1 allowed: (0.4/0.1)^2 = 16x, padded by 60 %
    assert predicted_size(1000, [(1.0, 1.4)], rule) == math.ceil(1.6 * 16_000)
    assert predicted_size(1000, [(1.0, math.inf)], rule) is None
    assert predicted_size(1000, [], rule) is None
    assert predicted_size(1000, [(1.0, 1.4)], StoppingRule(power=None)) is None


def test_each_look_certifies_at_its_share_of_alpha():
    """The premise of the anytime-valid theorem (dpaudit.stats.sequential): the look reported
    was certified at α·n/(2N) when it stopped below the budget, at α minus what the earlier
    looks spent when it is the budget; per bound, that over the look's 2m bounds."""
    schedule, alpha = StoppingRule().schedule, 0.01
    early = _rounds(1.0, 1.0, StoppingRule(power=1.2), samples=1_000_000)
    late = _rounds(1.0, 1.0, StoppingRule(power=None), samples=100_000)
    assert early.stopped == "power" and late.stopped == "budget"
    for rounds in (early, late):
        spent = 0.0
        for size in rounds.looks[:-1]:
            spent += schedule.spend(alpha, size, rounds.budget, spent)
        share = schedule.spend(alpha, rounds.looks[-1], rounds.budget, spent)
        point = rounds.black.points[0]
        assert point.per_bound_significance * point.family_size == pytest.approx(share,
                                                                                 rel=1e-9)
        assert point.confidence == pytest.approx(1 - share, rel=1e-12)
    assert early.black.points[0].per_bound_significance * early.black.points[0].family_size \
        == pytest.approx(alpha * early.looks[-1] / 2e6, rel=1e-9)


def test_a_known_bug_is_looked_for_until_found_or_the_budget_is_spent():
    """An audit point expecting a violation never stops at the power target: a leak just
    above the claim (smaller than 1.1 × claim) is still looked for with the whole budget."""
    rounds = certify_in_rounds(partial(_estimate, partial(laplace, 1.0)), samples=100_000,
                               seed=7, confidence=0.99, white_box=False, claims=[1.0],
                               renyi_claims=[], rule=StoppingRule(power=1.2),
                               stop_on_power=False)
    assert rounds.stopped == "budget" and rounds.looks[-1] == 100_000
