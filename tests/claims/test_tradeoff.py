"""Trade-off curves of claims and the families a canary bound is reported in."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpaudit.claims import GDP, ApproxDP, PureDP
from dpaudit.claims.conversions import gdp_to_dp_epsilon
from dpaudit.claims.tradeoff import (GaussianFamily, GaussianTradeOff, ProfileTradeOff,
                                     ScaledProfileFamily, claim_family, claim_profile_points)

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
