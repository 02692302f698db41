"""The anytime-valid schedule (dpaudit.stats.sequential) and the stopping rule's contract."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpaudit.stats.sequential import FIRST_LOOK, Schedule, StoppingRule


def test_first_look_is_a_512th_of_the_budget_but_never_below_the_floor():
    s = Schedule()
    assert s.first_look(1_000_000) == 1954
    assert s.first_look(100_000) == FIRST_LOOK
    assert s.first_look(7_999) == 7_999  # below growth x floor: one look, the fixed-n test
    assert Schedule(fixed=True).first_look(1_000_000) == 1_000_000


def test_next_look_grows_2x_to_8x_and_jumps_to_the_budget_past_half_of_it():
    s = Schedule()
    assert s.next_look(2_000, 1_000_000) == 16_000  # geometric without a prediction
    assert s.next_look(2_000, 1_000_000, predicted=5_000) == 5_000  # shorter step
    assert s.next_look(2_000, 1_000_000, predicted=2_500) == 4_000  # at least 2x
    assert s.next_look(2_000, 1_000_000, predicted=900_000) == 16_000  # never longer than 8x
    assert s.next_look(100_000, 1_000_000) == 1_000_000  # 800k >= budget/2: the budget
    with pytest.raises(ValueError, match="budget"):
        s.next_look(1_000_000, 1_000_000)


def test_spending_never_exceeds_alpha_whatever_the_path():
    """(1) of the module docstring on every path the looks can take: the looks below the
    budget spend < alpha/2 and the budget look takes the rest, so every path spends alpha at
    most (exactly alpha when it reaches the budget)."""
    s, alpha, budget = Schedule(), 0.05 / 98, 1_000_000
    rng = np.random.default_rng(0)
    for _ in range(500):
        size, spent = s.first_look(budget), 0.0
        while True:
            spent += s.spend(alpha, size, budget, spent)
            if size >= budget:
                break
            assert spent < alpha / 2
            predicted = int(rng.integers(size, 10 * size)) if rng.random() < 0.7 else None
            size = s.next_look(size, budget, predicted)
        assert spent == pytest.approx(alpha, rel=1e-12) and spent <= alpha * (1 + 1e-12)


def test_the_budget_look_uses_the_tests_own_seed_and_earlier_looks_distinct_children():
    s = Schedule()
    assert s.seed(1234, 3, 1_000_000, 1_000_000) == 1234
    seeds = {s.seed(1234, r, n, 1_000_000) for r, n in enumerate((1954, 15632, 125056))}
    assert len(seeds) == 3 and 1234 not in seeds and 1235 not in seeds
    assert all(0 <= x < 2 ** 63 for x in seeds)
    assert s.seed(1234, 0, 1954, 1_000_000) == s.seed(1234, 0, 1954, 1_000_000)  # reproducible


@pytest.mark.parametrize("bad", [1.0, 0.5, -2, math.inf, math.nan, True, "1.1"])
def test_power_must_be_a_number_above_one(bad):
    with pytest.raises(ValueError, match="power must be a number > 1"):
        StoppingRule(power=bad)


def test_require_power_needs_a_target_and_flags_must_be_bools():
    with pytest.raises(ValueError, match="require_power"):
        StoppingRule(power=None, require_power=True)
    with pytest.raises(ValueError, match="sequential must be true or false"):
        StoppingRule(sequential="yes")


def test_underpowered_is_a_consistent_dp_certificate_above_the_target():
    rule = StoppingRule(power=1.1)
    assert rule.is_underpowered("consistent", "dp", 1.0, 1.2) is True
    assert rule.is_underpowered("consistent", "dp", 1.0, math.inf) is True
    assert rule.is_underpowered("consistent", "dp", 1.0, None) is True
    assert rule.is_underpowered("consistent", "dp", 1.0, 1.09) is False
    for args in (("violation", "dp", 1.0, 5.0), ("error", "dp", 1.0, 5.0),
                 ("consistent", "rdp", 1.0, 5.0), ("consistent", "dp", math.inf, 5.0)):
        assert rule.is_underpowered(*args) is None
    assert StoppingRule(power=None).is_underpowered("consistent", "dp", 1.0, 9.0) is None
    assert StoppingRule.from_json(rule.to_json()) == rule and StoppingRule.from_json(None) is None


@pytest.mark.parametrize("budget", [1_000, 2_000, 20_000, 200_000, 10**6, 10**9])
def test_the_budget_is_the_last_look_and_a_test_draws_less_than_twice_it(budget):
    """Issue 39, item 13: 29 000 drawn at a budget of 20 000.  The budget is the size of the
    largest (last) look; every look draws fresh samples, so the total is the sum of the looks:
    < 2 × the budget on every path the schedule allows (here the longest: 2× growth)."""
    from dpaudit.report.glossary import GLOSSARY
    from dpaudit.stats.sequential import Schedule

    schedule = Schedule()
    for predicted in (None, "slow"):
        looks = [schedule.first_look(budget)]
        while looks[-1] < budget:
            wanted = 2 * looks[-1] if predicted == "slow" else None
            looks.append(schedule.next_look(looks[-1], budget, wanted))
        assert looks[-1] == budget and max(looks) == budget
        assert sum(looks) < 2 * budget
    (term,) = [t for t in GLOSSARY if t.word == "budget"]
    assert "largest (and last) look" in term.meaning and "less than 2×" in term.meaning
