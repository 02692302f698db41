"""The one-run (ε, δ) test of Steinke, Nasr & Jagielski 2023 (dpaudit.stats.one_run)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpaudit.stats.one_run import (Guesses, count_correct, guess_grid, perfect_guess_ceiling,
                                   steinke_epsilon, steinke_p_value)


def test_p_value_at_delta_zero_is_the_binomial_tail():
    q = math.exp(1.0) / (1 + math.exp(1.0))
    assert steinke_p_value(1000, 50, 40, 1.0, 0.0) == pytest.approx(
        stats.binom.sf(39, 50, q), rel=1e-12)


def test_delta_term_matches_a_direct_evaluation():
    m, r, v, eps, delta = 500, 30, 25, 0.7, 1e-4
    q = math.exp(eps) / (1 + math.exp(eps))
    beta = sum(stats.binom.pmf(k, r, q) for k in range(v, r + 1))
    alpha = max((sum(stats.binom.pmf(k, r, q) for k in range(v - i, r + 1)) - beta) / i
                for i in range(1, v + 1))
    assert steinke_p_value(m, r, v, eps, delta) == pytest.approx(
        beta + alpha * 2 * m * delta, rel=1e-9)
    assert steinke_p_value(m, r, v, eps, delta) > steinke_p_value(m, r, v, eps, 0.0)


def test_epsilon_is_the_edge_of_rejection():
    s = 0.01
    eps = steinke_epsilon(1000, 100, 90, significance=s, delta=1e-5)
    assert eps > 0
    assert steinke_p_value(1000, 100, 90, eps, 1e-5) <= s
    assert steinke_p_value(1000, 100, 90, eps + 1e-4, 1e-5) > s


def test_perfect_guesses_reach_the_ceiling_and_no_further():
    s = 0.05
    eps = steinke_epsilon(1000, 100, 100, significance=s, delta=0.0)
    assert eps == pytest.approx(perfect_guess_ceiling(100, s), abs=1e-5)
    assert perfect_guess_ceiling(100, s) < math.log(100)


def test_chance_guesses_certify_nothing():
    assert steinke_epsilon(1000, 100, 50, significance=0.05, delta=1e-5) == 0.0


def test_count_correct_top_and_bottom():
    scores = np.array([5.0, 4.0, 3.0, 2.0, 1.0, 0.0])
    bits = np.array([1, 0, 1, 0, 0, 1], dtype=bool)
    assert count_correct(scores, bits, Guesses(2, 0)) == 1
    assert count_correct(scores, bits, Guesses(1, 2)) == 2  # 5.0 in (right), 1.0 and 0.0 out
    with pytest.raises(ValueError, match="guesses for"):
        count_correct(scores, bits, Guesses(4, 4))


def test_guess_grid_is_fixed_by_m_alone():
    grid = guess_grid(1000)
    assert [g.total for g in grid] == [10, 20, 50, 100, 200, 500]
    assert all(g.k_plus - g.k_minus in (0, 1) for g in grid)
    assert [g.k_minus for g in guess_grid(1000, two_sided=False)] == [0] * 6


def test_null_scores_certify_at_most_at_the_nominal_rate():
    """200 experiments with no signal at all: each certifies ε_LB > 0 with probability ≤ s."""
    s, hits = 0.1, 0
    grid = guess_grid(200)
    for seed in range(200):
        rng = np.random.default_rng(seed)
        bits = rng.random(200) < 0.5
        scores = rng.standard_normal(200)
        best = max(steinke_epsilon(200, g.total, count_correct(scores, bits, g),
                                   significance=s / len(grid), delta=0.0) for g in grid)
        hits += best > 0
    assert hits <= stats.binom.ppf(0.999, 200, s)
