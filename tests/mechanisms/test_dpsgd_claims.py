"""The dpsgd claims against dp_accounting (where both apply), and the certified formulas."""

from __future__ import annotations

import math

import pytest

from dpaudit.claims.certificates import load_formula
from dpaudit.exact import GaussianMixtureProfile
from dpaudit.mechanisms.dpsgd.claim import (ORDERS, mtz_epsilon, pld_accountant_epsilon,
                                            poisson_rdp_claim)
from dpaudit.mechanisms.dpsgd.curves import poisson_pld_epsilon
from dpaudit.mechanisms.registry import create_mechanism

dp_accounting = pytest.importorskip("dp_accounting")


@pytest.mark.parametrize("q, sigma, steps", [(0.01, 0.8, 100), (0.1, 2.0, 30), (0.001, 1.2, 1000)])
def test_rdp_claim_equals_dp_accountings_rdp_accountant(q, sigma, steps):
    from dp_accounting import rdp
    acc = rdp.RdpAccountant(list(ORDERS))
    acc.compose(dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)),
                steps)
    claim = poisson_rdp_claim(q, sigma, steps)
    for delta in (1e-3, 1e-5):
        assert claim.epsilon(delta) == pytest.approx(acc.get_epsilon(delta), rel=1e-9)


def test_rdp_curve_limits_monotonicity_and_fractional_orders():
    assert mtz_epsilon(5, 1.0, 2.0) == pytest.approx(5 / 8)           # q = 1: Gaussian α/(2σ²)
    assert mtz_epsilon(5, 1e-12, 2.0) == pytest.approx(0.0, abs=1e-9)  # q → 0: nothing leaks
    values = [mtz_epsilon(a, 0.05, 1.0) for a in range(2, 40)]
    assert all(b >= a for a, b in zip(values, values[1:]))
    claim = poisson_rdp_claim(0.05, 1.0, 10)
    assert claim.rdp(2.5) == claim.rdp(3.0) == 10 * mtz_epsilon(3, 0.05, 1.0)
    with pytest.raises(ValueError):
        claim.rdp(1000.0)


@pytest.mark.slow
def test_pld_claim_is_dp_accountings_pld_accountant_with_source_and_version():
    m = create_mechanism("dpsgd-shuffle", n=1000, batch_size=10, noise_multiplier=0.8)
    claim = m.claim()
    from dp_accounting.pld import pld_privacy_accountant
    acc = pld_privacy_accountant.PLDAccountant(dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE)
    acc.compose(dp_accounting.PoissonSampledDpEvent(0.01, dp_accounting.GaussianDpEvent(0.8)), 100)
    assert claim.epsilon(1e-3) == pytest.approx(acc.get_epsilon(1e-3), rel=1e-12)
    d = claim.to_dict()
    assert d["source"] == "dp_accounting.pld.PLDAccountant" and d["version"][0].isdigit()
    assert claim.epsilon(0.0) == math.inf
    # the PLD claim is tighter than the RDP one, both above the pair's numerical ε
    rdp = create_mechanism("dpsgd-shuffle", n=1000, batch_size=10, noise_multiplier=0.8,
                           accountant="rdp").claim()
    # (at discretisation 5e-5 the bracket is 2.5e-3 wide, T·5e-5/2, and costs ~2 s; the
    # curves' 1e-5, width 5e-4, costs ~20 s: benchmarks/dpsgd.py records it)
    bracket = poisson_pld_epsilon(0.8, 0.01, 100, 1e-3, discretization=5e-5)
    assert bracket.lower <= claim.epsilon(1e-3) <= rdp.epsilon(1e-3)
    assert 0 < bracket.width < 3e-3


@pytest.mark.slow
@pytest.mark.parametrize("sigma, q", [(0.8, 0.01), (0.5, 0.2), (2.0, 0.5)])
def test_one_step_pld_bracket_contains_direct_quadrature(sigma, q):
    """One Poisson step: dp_accounting's bracket and its PLD accountant against dpaudit's
    mixture profile.  Both hold at any discretisation; at 1e-3 the bracket is 5e-4 wide and a
    case costs ~1-2 s, where 1e-5 (the curves' default) costs 10-60 s at q ≥ 0.2."""
    exact = GaussianMixtureProfile([1 - q, q], [0.0, 1.0], [sigma, sigma],
                                   [1.0], [0.0], [sigma]).symmetric()
    for delta in (1e-2, 1e-4):
        bracket = poisson_pld_epsilon(sigma, q, 1, delta, discretization=1e-3)
        truth = exact.epsilon(delta)
        assert bracket.lower - 1e-6 <= truth <= bracket.upper + 1e-6
        assert bracket.width <= 5.1e-4
        assert pld_accountant_epsilon(sigma, q, 1, delta, 1e-3) >= truth - 1e-6


def test_gaussian_claim_is_the_deterministic_gdp():
    m = create_mechanism("dpsgd-deterministic", noise_multiplier=0.8, epochs=4,
                         accountant="gaussian")
    assert m.claim().mu == pytest.approx(math.sqrt(4) / 0.8)


def test_certified_formulas_match_their_numerical_twins():
    from scipy import stats
    log_f = load_formula("dpsgd", "shuffle_max_log_cdf")
    for c in (-1.0, 0.3, 2.5):
        want = stats.norm.logcdf((c - 2) / 0.7) + 99 * stats.norm.logcdf(c / 0.7)
        assert log_f(c=c, mu=2.0, sigma=0.7, T=100) == pytest.approx(want, rel=1e-9)
    term = load_formula("dpsgd", "mtz_log_term")
    assert math.exp(term(alpha=4, k=2, q=0.3, sigma=1.0)) == pytest.approx(
        6 * 0.7 ** 2 * 0.3 ** 2 * math.exp(1.0))
