"""Clopper–Pearson bounds, ε from counts, family-wise splits: known counts → known numbers."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import stats as sst

from dpaudit.stats import (clopper_pearson_lower, clopper_pearson_upper, epsilon_from_counts,
                           holm_reject, split_significance)


def test_clopper_pearson_matches_beta_quantiles():
    for k, n, s in [(1, 10, 0.05), (37, 100, 0.01), (999, 1000, 0.025), (5, 10**6, 0.001)]:
        assert clopper_pearson_lower(k, n, s) == pytest.approx(sst.beta.ppf(s, k, n - k + 1),
                                                               rel=1e-10)
        assert clopper_pearson_upper(k, n, s) == pytest.approx(
            sst.beta.ppf(1 - s, k + 1, n - k), rel=1e-10)


def test_clopper_pearson_end_points_have_closed_forms():
    n, s = 1000, 0.05
    assert clopper_pearson_lower(0, n, s) == 0.0
    assert clopper_pearson_upper(n, n, s) == 1.0
    # P[Bin(n, p) = 0] = (1 − p)^n = s  ⇒  UCB(0) = 1 − s^{1/n};  symmetric for LCB(n)
    assert clopper_pearson_upper(0, n, s) == pytest.approx(1 - s ** (1 / n), rel=1e-12)
    assert clopper_pearson_lower(n, n, s) == pytest.approx(s ** (1 / n), rel=1e-12)


def test_clopper_pearson_vectorised_and_validated():
    up = clopper_pearson_upper(np.array([0, 5, 10]), 10, 0.05)
    assert up.shape == (3,) and up[-1] == 1.0 and np.all(np.diff(up) > 0)
    with pytest.raises(ValueError, match="0 <= k <= n"):
        clopper_pearson_lower(11, 10, 0.05)
    with pytest.raises(ValueError, match="significance"):
        clopper_pearson_upper(1, 10, 0.7)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 60), p=st.floats(0.001, 0.999), s=st.sampled_from([0.01, 0.05, 0.2]))
def test_clopper_pearson_coverage_is_exact_or_conservative(n, p, s):
    """P[UCB(K) < p] and P[LCB(K) > p] for K ~ Bin(n, p), computed exactly, are ≤ s."""
    ks = np.arange(n + 1)
    pmf = sst.binom.pmf(ks, n, p)
    assert pmf[clopper_pearson_upper(ks, n, s) < p].sum() <= s + 1e-9
    assert pmf[clopper_pearson_lower(ks, n, s) > p].sum() <= s + 1e-9


def test_epsilon_from_counts_known_value():
    k0, k1, n, s = 5000, 3000, 10000, 0.025
    expected = math.log(sst.beta.ppf(s, k0, n - k0 + 1) / sst.beta.ppf(1 - s, k1 + 1, n - k1))
    assert epsilon_from_counts(k0, n, k1, n, significance=s) == pytest.approx(expected, rel=1e-10)
    lcb = sst.beta.ppf(s, k0, n - k0 + 1)
    with_delta = math.log((lcb - 0.1) / sst.beta.ppf(1 - s, k1 + 1, n - k1))
    assert epsilon_from_counts(k0, n, k1, n, delta=0.1, significance=s) == pytest.approx(
        with_delta, rel=1e-10)


def test_epsilon_from_counts_is_zero_not_negative_or_nan():
    assert epsilon_from_counts(100, 1000, 200, 1000, significance=0.05) == 0.0
    assert epsilon_from_counts(0, 1000, 0, 1000, significance=0.05) == 0.0
    assert epsilon_from_counts(10, 1000, 0, 1000, delta=0.5, significance=0.05) == 0.0


def test_support_mismatch_is_finite_and_grows_like_log_n():
    values = [epsilon_from_counts(n // 2, n, 0, n, significance=0.025) for n in (10**3, 10**5, 10**7)]
    assert all(math.isfinite(v) and v > 0 for v in values)
    # ≈ ln(n · ½ / ln(1/s)): each factor 100 in n adds ≈ ln 100
    assert values[1] - values[0] == pytest.approx(math.log(100), abs=0.1)
    assert values[2] - values[1] == pytest.approx(math.log(100), abs=0.05)


@pytest.mark.slow
def test_split_significance_and_holm():
    assert split_significance(0.95, 10) == pytest.approx(0.005)
    with pytest.raises(ValueError, match="confidence"):
        split_significance(1.2, 3)
    with pytest.raises(ValueError, match="family size"):
        split_significance(0.95, 0)
    assert list(holm_reject([0.001, 0.03, 0.04], 0.05)) == [True, False, False]
    assert list(holm_reject([0.001, 0.02, 0.04], 0.05)) == [True, True, True]
    assert holm_reject([], 0.05).size == 0


def test_clopper_pearson_equals_statsmodels_beta_interval_bit_for_bit():
    """The bounds are scipy.special's inverse incomplete beta functions; they must be exactly
    the end points of statsmodels' proportion_confint(method="beta") at level 2s (what
    dpaudit used before, and what every recorded certificate was computed with)."""
    from statsmodels.stats.proportion import proportion_confint

    from dpaudit.stats.intervals import clopper_pearson_lower, clopper_pearson_upper

    rng = np.random.default_rng(2024)
    n = rng.integers(1, 3_000_000, 400)
    k = (rng.random(400) * (n + 1)).astype(int).clip(0, n)
    k[:20], k[20:40] = 0, n[20:40]
    s = 10 ** rng.uniform(-10, -1.4, 400)
    for ki, ni, si in zip(k, n, s):
        lower, upper = proportion_confint(int(ki), int(ni), alpha=2 * float(si), method="beta")
        want_lower = 0.0 if ki == 0 else float(np.nan_to_num(lower, nan=0.0))
        want_upper = 1.0 if ki == ni else float(np.nan_to_num(upper, nan=1.0))
        assert clopper_pearson_lower(int(ki), int(ni), float(si)) == want_lower
        assert clopper_pearson_upper(int(ki), int(ni), float(si)) == want_upper
    # vectorised calls give the scalar calls' values
    assert np.array_equal(clopper_pearson_lower(k, n, 1e-4),
                          [clopper_pearson_lower(int(a), int(b), 1e-4) for a, b in zip(k, n)])
