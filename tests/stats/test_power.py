"""dpaudit.stats.power: the smallest ε a certificate's test detects with probability ≥ 1/2."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from dpaudit.stats.epsilon import epsilon_from_counts
from dpaudit.stats.power import (certification_probability, denominator_base_rate,
                                 detectable_epsilon, samples_to_detect)


def power(n, rate=0.1, claim=1.0, s=1e-3, delta=0.0):
    return detectable_epsilon(claim, samples=n, significance=s, delta=delta,
                              k_denominator=int(round(rate * n)))


def test_more_samples_detect_smaller_epsilon_and_tend_to_the_claim():
    values = [power(n) for n in (10 ** 3, 10 ** 4, 10 ** 5, 10 ** 6, 10 ** 7)]
    assert all(math.isfinite(v) for v in values)
    assert all(a > b for a, b in zip(values, values[1:]))
    assert all(v > 1.0 for v in values)
    assert values[-1] - 1.0 < 0.01


@pytest.mark.parametrize("delta", [0.0, 1e-3])
def test_always_above_the_claim_and_monotone_in_significance(delta):
    for rate in (0.001, 0.05, 0.3):
        loose = power(10 ** 5, rate=rate, s=0.05, delta=delta)
        strict = power(10 ** 5, rate=rate, s=1e-6, delta=delta)
        assert 1.0 < loose < strict < math.inf


def test_deterministic_and_certifies_at_the_median_count():
    n, s, claim, k_den = 50_000, 1e-3, 0.5, 5_000
    eps = detectable_epsilon(claim, samples=n, significance=s, delta=0.0, k_denominator=k_den)
    assert eps == detectable_epsilon(claim, samples=n, significance=s, delta=0.0,
                                     k_denominator=k_den)
    # at the detectable ε the numerator's median count certifies, just below it does not
    p = math.exp(eps) * k_den / n
    k_med = int(np.floor(n * p))
    at = [epsilon_from_counts(k, n, k_den, n, significance=s) for k in (k_med, k_med + 1)]
    assert max(at) > claim
    below = math.exp(eps - 0.01) * k_den / n
    assert epsilon_from_counts(int(np.ceil(n * below)), n, k_den, n, significance=s) < claim


def test_monte_carlo_power_is_about_one_half():
    n, s, claim, k_den = 20_000, 1e-2, 1.0, 2_000
    eps = detectable_epsilon(claim, samples=n, significance=s, delta=0.0, k_denominator=k_den)
    rng = np.random.default_rng(0)
    k_num = rng.binomial(n, math.exp(eps) * k_den / n, size=4000)
    rate = np.mean(epsilon_from_counts(k_num, n, k_den, n, significance=s) > claim)
    assert 0.45 < rate < 0.6


def test_degenerate_cases():
    assert power(1000, claim=math.inf) == math.inf
    assert power(1000, rate=0.5) == math.inf  # e^1 · 0.5 > 1: no event probability reaches it
    assert power(200, rate=0.0, s=1e-6) < math.inf  # zero count: base rate ≈ ln 2 / n
    assert denominator_base_rate(0, 1000) == pytest.approx(math.log(2) / 1000, rel=1e-3)
    with pytest.raises(ValueError):
        detectable_epsilon(1.0, samples=10, significance=0.7, delta=0.0, k_denominator=1)
    with pytest.raises(ValueError):
        detectable_epsilon(1.0, samples=10, significance=0.01, delta=0.0, k_denominator=11)


def test_sample_size_helper():
    n = samples_to_detect(1.1, 1.0, significance=1e-3, delta=0.0, rate=0.1)
    assert power(n) <= 1.1 < power(int(n * 0.9))


@pytest.mark.parametrize("delta", [0.0, 1e-3])
def test_power_curve_crosses_one_half_at_the_detectable_epsilon(delta):
    n, s, claim, k_den = 20_000, 1e-2, 1.0, 2_000
    eps = detectable_epsilon(claim, samples=n, significance=s, delta=delta, k_denominator=k_den)
    grid = np.array([claim, eps - 0.05, eps, eps + 0.05, eps + 1.0])
    p = certification_probability(grid, claim, samples=n, significance=s, delta=delta,
                                  k_denominator=k_den)
    assert p[2] == pytest.approx(0.5, abs=1e-9)
    assert p[0] < 0.01 and p[1] < 0.5 < p[3] and p[4] > 0.999
    dense = certification_probability(np.linspace(0, 3, 200), claim, samples=n,
                                      significance=s, delta=delta, k_denominator=k_den)
    assert np.all(np.diff(dense) >= -1e-12)


def test_power_curve_agrees_with_monte_carlo_and_degenerate_cases():
    n, s, claim, k_den = 20_000, 1e-2, 1.0, 2_000
    true_eps = detectable_epsilon(claim, samples=n, significance=s, delta=0.0,
                                  k_denominator=k_den) + 0.02
    p = certification_probability([true_eps], claim, samples=n, significance=s, delta=0.0,
                                  k_denominator=k_den)[0]
    rng = np.random.default_rng(1)
    k_num = rng.binomial(n, math.exp(true_eps) * k_den / n, size=4000)
    rate = np.mean(epsilon_from_counts(k_num, n, k_den, n, significance=s) > claim)
    assert abs(rate - p) < 0.05
    assert not certification_probability([1.0, 5.0], math.inf, samples=n, significance=s,
                                         delta=0.0, k_denominator=k_den).any()
    assert not certification_probability([1.0, 5.0], 1.0, samples=1000, significance=s,
                                         delta=0.0, k_denominator=500).any()  # e·0.5 > 1


# -- claims beyond what e^ε holds in a float (issue 27, item 1) ---------------------------

HUGE_CLAIMS = [709.0, 710.0, 800.0, 1e6, math.inf]
EDGE_DELTAS = [0.0, 1e-300, 1e-12, 0.5, 1.0 - 1e-12]


@pytest.mark.parametrize("delta", EDGE_DELTAS)
@pytest.mark.parametrize("claim", HUGE_CLAIMS)
@pytest.mark.parametrize("n, k_den", [(2_000, 0), (2_000, 1_000), (10 ** 9, 1), (10 ** 6, 10 ** 6)])
def test_a_claim_beyond_float_exp_is_undetectable_not_a_crash(claim, delta, n, k_den):
    """A finite detectable ε is ln((P* − δ)/p̂) ≤ ln(1/p̂) < ln(n/ln 2) ≈ 21 at n = 10⁹, so at
    a claim ≥ 709 it is ∞ (never an OverflowError, never nan), and the power curve is 0."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert detectable_epsilon(claim, samples=n, significance=1e-3, delta=delta,
                                  k_denominator=k_den) == math.inf
        curve = certification_probability([0.0, 1.0, 709.0, 710.0, 1e6, math.inf], claim,
                                          samples=n, significance=1e-3, delta=delta,
                                          k_denominator=k_den)
    assert curve.tolist() == [0.0] * 6


@pytest.mark.parametrize("claim", HUGE_CLAIMS)
def test_sample_size_at_huge_claims(claim):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        needed = samples_to_detect(1.1 * claim, claim, significance=1e-3, delta=1e-6,
                                   rate=1e-3, start=2_000)
    # no sample size brings a detectable ε of ∞ down to a finite target; ∞ ≤ ∞ at once
    assert needed == (2_000 if math.isinf(claim) else None)


@pytest.mark.parametrize("delta", [0.0, 1e-12, 1.0 - 1e-12])
def test_the_power_curve_at_huge_true_epsilons_is_one_without_overflow_warnings(delta):
    """e^ε · p̂ + δ overflows to ∞ for a true ε > 709.78 and is clipped to probability 1."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        curve = certification_probability([709.0, 710.0, 800.0, 1e6, math.inf], 1.0,
                                          samples=10 ** 5, significance=1e-3, delta=delta,
                                          k_denominator=100)
    expected = 0.0 if delta > 0.5 else 1.0  # δ ≈ 1: e·UCB + δ ≥ 1, no count certifies
    assert curve.tolist() == [expected] * 5


def test_finite_claims_keep_their_exact_values():
    """The overflow guard leaves every finite case bit for bit as e^c · UCB + δ computes it."""
    from dpaudit.stats.intervals import clopper_pearson_upper

    for claim in (0.0, 0.1, 1.0, 5.0, 8.0):
        for delta in (0.0, 1e-6):
            n, k, s = 10 ** 6, 50, 1e-4
            got = detectable_epsilon(claim, samples=n, significance=s, delta=delta,
                                     k_denominator=k)
            threshold = math.exp(claim) * float(clopper_pearson_upper(k, n, s)) + delta
            assert (got == math.inf) == (threshold >= 1.0)
            assert math.isfinite(got) and got > claim


def test_the_certifying_count_is_the_smallest_count_whose_lower_bound_clears_the_threshold():
    """The vectorised search ends where a plain bisection does: the smallest k with
    LCB(k, n, s) > threshold (None when even k = n does not), at every size, including the
    brackets narrower than one search step and thresholds at 0, 1 and below 0."""
    from dpaudit.stats.intervals import clopper_pearson_lower
    from dpaudit.stats.power import _certifying_count

    def bisection(threshold, n, s):
        if float(clopper_pearson_lower(n, n, s)) <= threshold:
            return None
        if threshold < 0:
            return 0
        lo, hi = 0, n
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if float(clopper_pearson_lower(mid, n, s)) > threshold:
                hi = mid
            else:
                lo = mid
        return hi

    rng = np.random.default_rng(7)
    cases = [(threshold, n, 1e-6) for n in (1, 3, 64, 65, 123_457, 4_000_000)
             for threshold in (-0.1, 0.0, 0.02, 0.999, 1.0)]
    cases += [(float(t), int(n), 0.05) for t, n in zip(rng.random(6),
                                                       rng.integers(2, 10 ** 6, 6))]
    for case in cases:
        assert _certifying_count(*case) == bisection(*case), case
