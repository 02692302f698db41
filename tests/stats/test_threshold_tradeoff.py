"""Threshold rules bounded per direction (dpaudit.stats.threshold_tradeoff)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dpaudit.claims.tradeoff import GaussianFamily
from dpaudit.stats.threshold_tradeoff import (ThresholdRule, error_bounds, rule_bound,
                                              select_and_certify)


def test_gdp_rule_bound_is_the_closed_form():
    """For the GDP family the rejected μ is Φ⁻¹(1 − FPR_UB) − Φ⁻¹(FNR_UB)."""
    family = GaussianFamily(1e-5, 4.0)
    t = rule_bound(family, 0.2, 0.1)
    mu = stats.norm.isf(0.2) - stats.norm.ppf(0.1)
    assert family.mu(t) == pytest.approx(mu, rel=1e-4)


def test_reverse_rule_has_its_own_bounds():
    ins, outs = np.array([0.0, 0.1, 0.2]), np.array([1.0, 1.1, 1.2])
    fwd = error_bounds(ins, outs, ThresholdRule(0.5, True), 0.05)
    rev = error_bounds(ins, outs, ThresholdRule(0.5, False), 0.05)
    assert fwd[0] == pytest.approx(1.0) and rev[0] < 1.0  # the reverse rule makes no FP


def test_a_leak_in_the_reverse_direction_is_certified():
    """'In' scores lower than 'out' ones: only the reverse rule sees it, with its own
    bounds."""
    rng = np.random.default_rng(0)
    family = GaussianFamily(1e-5, 1.0)
    best, both = select_and_certify(family, rng.normal(-2, 1, 2000), rng.normal(0, 1, 2000),
                                    significance=0.05, rng=rng)
    assert not best.rule.forward and best.bound > 1.0


def test_null_scores_certify_at_most_at_the_nominal_rate():
    """Identical laws on both sides, 300 seeds: ε_LB > 0 at most at rate 0.1 (never |μ|:
    taking the absolute value of a negative forward μ would certify about half the time)."""
    family = GaussianFamily(1e-5, 1.0)
    hits = 0
    for seed in range(300):
        rng = np.random.default_rng(seed)
        best, _ = select_and_certify(family, rng.standard_normal(200),
                                     rng.standard_normal(200), significance=0.1, rng=rng)
        hits += best.bound > 0
    assert hits <= stats.binom.ppf(0.999, 300, 0.1)
