"""The one-run f-DP test of Mahloujifar, Melis & Chaudhuri (dpaudit.stats.one_run_fdp)."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit.claims.conversions import dp_to_gdp_mu
from dpaudit.claims.tradeoff import GaussianFamily, GaussianTradeOff
from dpaudit.stats.one_run import count_correct, guess_grid, steinke_epsilon
from dpaudit.stats.one_run_fdp import fdp_bound, fdp_rejects


def test_perfect_privacy_is_never_rejected_by_chance_counts():
    assert not fdp_rejects(GaussianTradeOff(0.0), 1000, 100, 50, 0.05)


def test_rejection_is_monotone_in_the_curve_and_the_counts():
    weak, strong = GaussianTradeOff(2.0), GaussianTradeOff(0.5)
    assert fdp_rejects(strong, 1000, 100, 95, 0.05)
    # a weaker curve (larger μ) is harder to reject; fewer correct guesses reject less
    assert not fdp_rejects(weak, 1000, 100, 80, 0.05)
    for v in range(50, 101, 5):
        if fdp_rejects(weak, 1000, 100, v, 0.05):
            assert fdp_rejects(strong, 1000, 100, v, 0.05)
            assert fdp_rejects(weak, 1000, 100, min(v + 1, 100), 0.05)


def test_bound_is_the_edge_of_rejection():
    family = GaussianFamily(1e-5, 4.0)
    t = fdp_bound(family, 1000, 100, 92, significance=0.01)
    assert t > 0
    assert fdp_rejects(family.curve(t), 1000, 100, 92, 0.01)
    assert not fdp_rejects(family.curve(t + 1e-3), 1000, 100, 92, 0.01)


def test_fdp_is_tighter_than_eps_delta_on_gaussian_scores():
    """The paper's claim, on the idealised Gaussian experiment: at the same counts the f-DP
    test certifies more than the (ε, δ) test."""
    delta = 1e-5
    mu = dp_to_gdp_mu(4.0, delta)
    family = GaussianFamily(delta, 4.0)
    rng = np.random.default_rng(0)
    bits = rng.random(1000) < 0.5
    scores = rng.standard_normal(1000) + mu * bits
    g = guess_grid(1000)[3]
    v = count_correct(scores, bits, g)
    f = fdp_bound(family, 1000, g.total, v, significance=0.05)
    e = steinke_epsilon(1000, g.total, v, significance=0.05, delta=delta)
    assert f > e > 0


def test_bad_counts_are_one_line():
    with pytest.raises(ValueError, match="correct <= guesses"):
        fdp_rejects(GaussianTradeOff(1.0), 10, 20, 5, 0.05)
