"""Cross-check of dpaudit's conversions against Google's ``dp_accounting`` (test-only
dependency, 0.6.0).

What each side computes:

* ``dp_accounting.rdp.RdpAccountant.get_epsilon_and_optimal_order`` calls
  ``rdp_privacy_accountant.compute_epsilon``, which for each order α > 1.01 in its order list
  uses the Canonne–Kamath–Steinke 2020 Prop. 12 bound ε(α) + log1p(−1/α) − ln(δα)/(α − 1)
  (clipped at 0; plus a KL shortcut returning 0 when δ² > 1 − e^{−ε(α)}, never triggered
  here) and returns the minimum over the list.  That is dpaudit's
  :func:`~dpaudit.claims.conversions.rdp_to_dp_cks`, so on the same orders the two must
  agree to rounding; dpaudit's continuous optimisation over α can only be tighter.  Both are
  conservative (upper bounds on the true ε(δ)).
* ``dp_accounting.pld.PLDAccountant`` discretises the privacy loss distribution with
  ``pessimistic_estimate=True`` (connect-the-dots for Gaussian, rounding up for Laplace), so
  its ε(δ) is an **upper bound**; the ``pessimistic_estimate=False`` PLD is a **lower bound**
  (optimistic rounding).  dpaudit's Gaussian (GDP / Balle–Wang) and Laplace ε(δ) are
  **exact** closed forms, so they must sit between the two.

Measured (value_discretization_interval = 1e-4): pessimistic PLD exceeds the exact Gaussian
ε(δ) by ≤ 3e-8 relative and the exact Laplace ε(δ) by ≤ 2e-9 relative; we assert < 1e-6.
The continuous RDP optimisation improves on dp-accounting's default orders by up to 6e-4
relative for the Gaussian and up to 5% for Laplace (its best orders lie beyond 1024).
"""

from __future__ import annotations

import math

import pytest
import sympy as sp

dp_accounting = pytest.importorskip("dp_accounting")
from dp_accounting import pld, rdp  # noqa: E402
from dp_accounting.pld import privacy_loss_distribution as pld_lib  # noqa: E402

from dpaudit.claims import ALPHA, RDP, ZCDP, analytic_gaussian_epsilon  # noqa: E402
from dpaudit.exact import laplace_epsilon  # noqa: E402

SIGMAS = [0.5, 1.0, 2.0, 5.0]           # Gaussian noise multiplier σ/Δ (Δ = 1)
LAPLACE_SCALES = [0.5, 1.0, 2.0, 5.0]   # Laplace scale b/Δ (Δ = 1), ε₀ = 1/b
DELTAS = [1e-3, 1e-5, 1e-8]
ORDERS = list(rdp.rdp_privacy_accountant.DEFAULT_RDP_ORDERS)
PLD_INTERVAL = 1e-4
PLD_REL_TOL = 1e-6

SIGMA, EPS0 = sp.Symbol("sigma"), sp.Symbol("epsilon_0")
GAUSS_CURVE = ALPHA / (2 * SIGMA**2)
# Mironov 2017, Prop. 6: the exact Rényi divergence of Lap(0, 1/ε₀) vs Lap(1, 1/ε₀)
LAPLACE_CURVE = EPS0 + sp.log(1 + (ALPHA - 1) * (sp.exp((1 - 2 * ALPHA) * EPS0) - 1)
                              / (2 * ALPHA - 1)) / (ALPHA - 1)


def _rdp_accountant(event) -> "rdp.RdpAccountant":
    acc = rdp.RdpAccountant(orders=ORDERS)
    acc.compose(event)
    return acc


def _check_rdp_agreement(claim: RDP, acc, exact_eps) -> None:
    # the RDP curves themselves agree at every order
    for a, r in zip(acc.orders, acc.rdp):
        assert claim.rdp(a) == pytest.approx(r, rel=1e-10)
    for delta in DELTAS:
        ref_eps, ref_order = acc.get_epsilon_and_optimal_order(delta)
        same_orders = claim.conversion(delta, orders=ORDERS)
        assert same_orders.epsilon == pytest.approx(ref_eps, rel=1e-6)
        assert same_orders.alpha == ref_order
        continuous = claim.conversion(delta)
        assert continuous.epsilon <= ref_eps * (1 + 1e-12)     # tighter or equal
        assert exact_eps(delta) <= continuous.epsilon * (1 + 1e-12)  # still a valid bound
        assert continuous.epsilon == claim.epsilon(delta)


@pytest.mark.parametrize("sigma", SIGMAS)
def test_gaussian_rdp_to_dp_matches_rdp_accountant(sigma):
    """Conservative vs conservative: dpaudit's CKS conversion of α/(2σ²) equals dp-accounting's
    on its own order list (rel 1e-6, same optimal order) and is ≤ it with continuous α; both
    stay above the exact Gaussian ε(δ) (a lower envelope)."""
    claim = RDP(GAUSS_CURVE, {"sigma": sigma})
    acc = _rdp_accountant(dp_accounting.GaussianDpEvent(noise_multiplier=sigma))
    _check_rdp_agreement(claim, acc, lambda d: analytic_gaussian_epsilon(d, sigma))
    # a zCDP claim with ρ = 1/(2σ²) goes the same route
    for delta in DELTAS:
        assert ZCDP(1 / (2 * sigma**2)).epsilon(delta) == pytest.approx(
            claim.epsilon(delta), rel=1e-12)


@pytest.mark.parametrize("scale", LAPLACE_SCALES)
def test_laplace_rdp_to_dp_matches_rdp_accountant(scale):
    """Same as for the Gaussian on the Laplace RDP curve (Mironov Prop. 6); exact Laplace
    ε(δ) = max(0, 1/b + 2 ln(1 − δ)) is the lower envelope."""
    claim = RDP(LAPLACE_CURVE, {"epsilon_0": 1 / scale})
    acc = _rdp_accountant(dp_accounting.LaplaceDpEvent(noise_multiplier=scale))
    _check_rdp_agreement(claim, acc, lambda d: laplace_epsilon(d, 1.0, scale))


def _pld_epsilon(make, delta) -> float:
    return make().get_epsilon_for_delta(delta)


@pytest.mark.slow
@pytest.mark.parametrize("sigma", SIGMAS)
def test_exact_gaussian_against_pld(sigma):
    """Exact (dpaudit, GDP μ = 1/σ) vs PLD upper bound (PLDAccountant, pessimistic
    connect-the-dots) and PLD lower bound (optimistic privacy buckets): lower ≤ exact ≤ upper,
    and the upper bound is within PLD_REL_TOL = 1e-6 relative (measured ≤ 3e-8)."""
    acc = pld.PLDAccountant(value_discretization_interval=PLD_INTERVAL)
    acc.compose(dp_accounting.GaussianDpEvent(noise_multiplier=sigma))
    optimistic = pld_lib.from_gaussian_mechanism(
        sigma, pessimistic_estimate=False, use_connect_dots=False,
        value_discretization_interval=PLD_INTERVAL)
    for delta in DELTAS:
        exact = analytic_gaussian_epsilon(delta, sigma)
        upper = acc.get_epsilon(delta)
        lower = optimistic.get_epsilon_for_delta(delta)
        assert lower <= exact <= upper
        assert (upper - exact) / exact < PLD_REL_TOL


@pytest.mark.parametrize("scale", LAPLACE_SCALES)
def test_exact_laplace_against_pld(scale):
    """Exact (dpaudit.exact.laplace_epsilon) vs PLD upper bound (PLDAccountant with
    LaplaceDpEvent, pessimistic) and optimistic lower bound: lower ≤ exact ≤ upper, upper
    within 1e-6 relative (measured ≤ 2e-9)."""
    acc = pld.PLDAccountant(value_discretization_interval=PLD_INTERVAL)
    acc.compose(dp_accounting.LaplaceDpEvent(noise_multiplier=scale))
    optimistic = pld_lib.from_laplace_mechanism(
        scale, pessimistic_estimate=False, value_discretization_interval=PLD_INTERVAL)
    for delta in DELTAS:
        exact = laplace_epsilon(delta, 1.0, scale)
        upper = acc.get_epsilon(delta)
        lower = optimistic.get_epsilon_for_delta(delta)
        assert lower <= exact <= upper
        assert (upper - exact) / exact < PLD_REL_TOL
        assert math.isfinite(upper)
