"""Threshold rules bounded per direction (dpaudit.stats.threshold_tradeoff)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import stats

from dpaudit.claims.tradeoff import ApproxDPFamily, GaussianFamily, ScaledProfileFamily
from dpaudit.stats.threshold_tradeoff import (ThresholdRule, approx_dp_epsilon, error_bounds,
                                              rule_bound, select_and_certify)


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
    objectives = {"eps-delta": ApproxDPFamily(1e-5), "gdp": GaussianFamily(1e-5, 1.0)}
    rules = select_and_certify(objectives, rng.normal(-2, 1, 2000), rng.normal(0, 1, 2000),
                               significance=0.05, delta=1e-5, rng=rng)
    best = max(rules, key=lambda x: approx_dp_epsilon(x.fpr_upper, x.fnr_upper, 1e-5))
    assert not best.rule.forward and approx_dp_epsilon(best.fpr_upper, best.fnr_upper,
                                                       1e-5) > 1.0
    assert {x.objective for x in rules} <= set(objectives) and 2 <= len(rules) <= 4


@pytest.mark.slow
def test_null_scores_certify_at_most_at_the_nominal_rate():
    """Identical laws on both sides, 300 seeds: a positive bound (the (ε, δ) conversion or
    the GDP family's t) at most at rate 0.1 (never |μ|: taking the absolute value of a
    negative forward μ would certify about half the time)."""
    objectives = {"eps-delta": ApproxDPFamily(1e-5), "gdp": GaussianFamily(1e-5, 1.0)}
    hits = 0
    for seed in range(300):
        rng = np.random.default_rng(seed)
        rules = select_and_certify(objectives, rng.standard_normal(200),
                                   rng.standard_normal(200), significance=0.1, delta=1e-5,
                                   rng=rng)
        hits += any(approx_dp_epsilon(x.fpr_upper, x.fnr_upper, 1e-5) > 0
                    or rule_bound(objectives["gdp"], x.fpr_upper, x.fnr_upper) > 0
                    for x in rules)
    assert hits <= stats.binom.ppf(0.999, 300, 0.1)


def test_eps_delta_conversion_is_the_two_sided_inequality():
    """(ε, δ)-DP forces FPR + e^ε FNR ≥ 1 − δ and FNR + e^ε FPR ≥ 1 − δ: the bound is the
    largest ε that one of them rules out, and the family's closed form agrees."""
    a, b, d = 0.079, 0.771, 1e-3
    expected = max(math.log((1 - d - a) / b), math.log((1 - d - b) / a))
    assert approx_dp_epsilon(a, b, d) == pytest.approx(expected, rel=1e-12)
    family = ApproxDPFamily(d)
    assert rule_bound(family, a, b) == pytest.approx(expected, rel=1e-12)
    eps = expected
    assert b < family.curve(eps * (1 - 1e-9))(a) and not b < family.curve(eps * (1 + 1e-9))(a)
    # the two inequalities at the bound: one of them is tight
    assert min(a + math.exp(eps) * b, b + math.exp(eps) * a) == pytest.approx(1 - d)


@pytest.mark.parametrize("fpr, fnr, expected", [
    (0.6, 0.6, 0.0),                     # neither logarithm positive
    (0.5, 0.5 - 1e-3, 0.0),              # 1 − δ − FPR ≤ FNR both ways
    (0.0, 0.5, math.inf),                # a certified zero FPR: no finite ε
    (1e-300, 0.5, math.log((1 - 1e-3 - 0.5) / 1e-300)),   # finite however small
    (0.999, 0.0, 0.0),                   # 1 − δ − FPR ≤ 0: nothing, even at FNR = 0
])
def test_eps_delta_conversion_edges(fpr, fnr, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value = approx_dp_epsilon(fpr, fnr, 1e-3)
    assert value == pytest.approx(expected) if math.isfinite(expected) else value == expected


def test_a_clopper_pearson_point_never_gives_infinity():
    """Zero errors observed: the upper bounds are > 0, the bound finite and growing like
    ln n (DESIGN.md's support-mismatch rule)."""
    rule = ThresholdRule(0.5, True)
    values = [approx_dp_epsilon(*error_bounds(np.ones(n), np.zeros(n), rule, 0.05), 1e-5)
              for n in (100, 10_000)]
    assert all(math.isfinite(v) for v in values)
    assert values[1] - values[0] == pytest.approx(math.log(100), rel=0.05)


def test_rule_bound_says_infinity_when_every_member_is_rejected():
    """A scaled-profile family keeps the floor 1 − δ(0) − α: a point below it rejects every
    member, reported as ∞ (never a search cap), without overflow warnings."""
    family = ScaledProfileFamily((0.0, 0.5, 1.0), (0.07, 1e-3, 1e-6), 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert rule_bound(family, 0.079, 0.771) == math.inf
        t = rule_bound(family, 0.079, 0.86)  # above the floor 0.851: a finite t
    assert 0 < t < math.inf and family.curve(t)(0.079) > 0.86 >= family.curve(t + 1e-4)(0.079)
