"""Trade-off curves of claims and the families a canary bound is reported in."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from dpaudit.claims import GDP, ApproxDP, PureDP
from dpaudit.claims.conversions import gdp_to_dp_epsilon
from dpaudit.claims.tradeoff import (ApproxDPFamily, GaussianFamily, GaussianTradeOff,
                                     ProfileTradeOff, ScaledProfileFamily, claim_family,
                                     claim_profile_points)

ALPHAS = np.linspace(0.0, 1.0, 101)


def test_gaussian_curve_is_the_gdp_tradeoff():
    f = GaussianTradeOff(1.0)
    assert f(0.0) == 1.0 and f(1.0) == 0.0
    assert f(0.5) == pytest.approx(0.5 - 0.3413447, abs=1e-6)  # Φ(−1)
    values = [f(a) for a in ALPHAS]
    assert all(x >= y - 1e-15 for x, y in zip(values, values[1:]))


def test_pure_dp_profile_curve():
    f = ProfileTradeOff((1.0,), (0.0,))
    for a in ALPHAS:
        assert f(a) == pytest.approx(max(0, 1 - math.e * a, (1 - a) / math.e))


def test_profile_of_a_gdp_claim_is_below_its_exact_curve():
    """Finitely many (ε, δ) points of μ-GDP give a curve ≤ G_μ (conservative) and close to
    it."""
    claim = GDP(1.0)
    eps, deltas = claim_profile_points(claim, 1e-5)
    profile, exact = ProfileTradeOff(eps, deltas), GaussianTradeOff(1.0)
    gaps = [exact(a) - profile(a) for a in ALPHAS]
    assert min(gaps) >= -1e-9
    assert max(gaps) < 0.05


def test_gdp_family_passes_through_the_claim_and_weakens():
    family = claim_family(GDP(0.9), 1e-5)
    assert isinstance(family, GaussianFamily)
    assert family.mu(family.claimed) >= 0.9
    assert gdp_to_dp_epsilon(family.mu(2.0), 1e-5) == pytest.approx(2.0, abs=1e-6)
    assert family.curve(1.0)(0.1) > family.curve(2.0)(0.1)


def test_other_claims_get_the_scaled_profile():
    family = claim_family(ApproxDP(1.0, 1e-6), 1e-5)
    assert isinstance(family, ScaledProfileFamily) and family.claimed == 1.0
    assert family.curve(1.0)(0.2) >= family.curve(1.5)(0.2)
    with pytest.raises(ValueError, match="no finite ε"):
        claim_family(ApproxDP(1.0, 1e-3), 1e-5)
    with pytest.raises(ValueError, match="nothing a canary audit can test"):
        claim_family(_ZeroClaim(), 1e-5)


class _ZeroClaim(PureDP):
    def epsilon(self, delta):
        return 0.0


def test_the_eps_delta_family_is_the_curve_of_eps_delta_dp():
    family = ApproxDPFamily(1e-3)
    for t in (0.0, 0.7, 3.0):
        f = family.curve(t)
        for a in ALPHAS:
            assert f(a) == pytest.approx(max(0.0, 1 - 1e-3 - math.exp(t) * a,
                                             math.exp(-t) * (1 - 1e-3 - a)), abs=1e-12)
    assert family.weakest() is None  # its limit is 0 on (0, 1]: no point lies below it


def test_weak_members_are_evaluated_without_overflow():
    """ε far beyond exp's range (a weak member of a scaled family): no warning, the value
    the formula gives in the limit."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f = ProfileTradeOff((0.0, 800.0, 5000.0), (0.07, 1e-6, 1e-12))
        assert f(0.0) == pytest.approx(1 - 1e-12)
        assert f(0.2) == pytest.approx(1 - 0.07 - 0.2)  # only the ε = 0 point is left
        assert ApproxDPFamily(1e-5).curve(900.0)(1e-300) == pytest.approx(0.0, abs=1e-12)


def test_a_scaled_profile_keeps_its_floor():
    """The points at ε = 0 do not scale: every member stays above 1 − δ(0) − α, the
    family's weakest() curve."""
    family = claim_family(GDP(1.0), 1e-5)
    assert family.weakest() is None  # GDP: G_μ → 0 as μ → ∞
    profile = ScaledProfileFamily((0.0, 0.5, 1.0), (0.07, 1e-3, 1e-6), 1.0)
    assert profile.floor_delta == 0.07
    for t in (1.0, 10.0, 1e4):
        for a in ALPHAS:
            assert profile.curve(t)(a) >= profile.weakest()(a) - 1e-12
    assert profile.weakest()(0.1) == pytest.approx(1 - 0.07 - 0.1)
