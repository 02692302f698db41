"""Claims (RDP, zCDP, tCDP, GDP, privacy profiles), their conversions to (ε, δ) and their
composition, checked against closed forms, independent formulas and known orderings:

    exact analytic Gaussian ε(δ)  ≤  CKS on the RDP curve  <  Mironov on the RDP curve
                                  ≤  Bun–Steinke Prop. 1.3 (= Mironov optimised for ρα).
"""

from __future__ import annotations

import json
import math
import pickle

import numpy as np
import pytest
import sympy as sp
from scipy import integrate, stats

from dpaudit.claims import (ALPHA, EPSILON, GDP, RDP, TCDP, ZCDP, AllOf, ApproxDP,
                            PrivacyProfile, PureDP, analytic_gaussian_delta,
                            analytic_gaussian_epsilon, compose_approx_dp, compose_gdp,
                            compose_rdp, compose_zcdp, dp_to_gdp_mu,
                            gaussian_mechanism_zcdp_to_dp, gdp_to_dp_delta, gdp_to_dp_epsilon,
                            optimal_rdp_to_dp, pure_dp_to_approx_dp, rdp_to_dp_cks,
                            rdp_to_dp_mironov, tcdp_to_dp, zcdp_to_dp, zcdp_to_dp_bun_steinke,
                            zcdp_to_dp_cks)
from dpaudit.exact import discrete_epsilon, laplace_delta, laplace_epsilon
from dpaudit.mechanisms.classic import GaussianMechanism

SIGMA = sp.Symbol("sigma")
GAUSS_CURVE = ALPHA / (2 * SIGMA**2)
SIGMAS = [0.3, 0.5, 1.0, 2.0, 5.0, 20.0]
DELTAS = [1e-2, 1e-3, 1e-5, 1e-8, 1e-12]


def gaussian_rdp(sigma: float) -> RDP:
    return RDP(GAUSS_CURVE, {"sigma": sigma})


# -- the two RDP → DP formulas ---------------------------------------------------------------
@pytest.mark.parametrize("r,alpha,delta", [(0.3, 1.5, 1e-5), (2.0, 7.0, 1e-3), (0.01, 120.0, 1e-9)])
def test_rdp_conversion_formulas(r, alpha, delta):
    # Mironov 2017 Prop. 3
    assert rdp_to_dp_mironov(r, alpha, delta) == pytest.approx(
        r + math.log(1 / delta) / (alpha - 1), rel=1e-14)
    # CKS 2020 Prop. 12 in the commonly used form ε(α) + log((α−1)/α) − (log δ + log α)/(α−1)
    expected = r + math.log((alpha - 1) / alpha) - (math.log(delta) + math.log(alpha)) / (alpha - 1)
    assert rdp_to_dp_cks(r, alpha, delta) == pytest.approx(max(0.0, expected), rel=1e-13)
    # and in the form ε(α) + log(1 − 1/α) − log(αδ)/(α − 1)
    assert rdp_to_dp_cks(r, alpha, delta) == pytest.approx(
        max(0.0, r + math.log(1 - 1 / alpha) - math.log(alpha * delta) / (alpha - 1)), rel=1e-13)
    assert rdp_to_dp_cks(r, alpha, delta) < rdp_to_dp_mironov(r, alpha, delta)
    assert rdp_to_dp_cks(r, alpha, 0.0) == math.inf == rdp_to_dp_mironov(r, alpha, 0.0)


def test_rdp_cks_is_clipped_at_zero():
    # tiny divergence, large δ: the formula goes negative; (0, δ)-DP is what it implies
    assert rdp_to_dp_cks(1e-6, 2.0, 0.5) == 0.0


def test_gaussian_rdp_curve_is_the_renyi_divergence():
    """α/(2σ²) is D_α(N(0,σ²)‖N(1,σ²)) (numerical integration), so the curve is the right one."""
    sigma = 1.5
    p, q = stats.norm(0, sigma), stats.norm(1, sigma)
    for alpha in [1.5, 3.0, 8.0]:
        integral = integrate.quad(
            lambda x: math.exp(alpha * p.logpdf(x) + (1 - alpha) * q.logpdf(x)),
            -60, 60, epsabs=0, epsrel=1e-12, limit=200)[0]
        assert math.log(integral) / (alpha - 1) == pytest.approx(
            gaussian_rdp(sigma).rdp(alpha), rel=1e-9)


# -- orderings on a grid -------------------------------------------------------------------
@pytest.mark.parametrize("sigma", SIGMAS)
def test_gaussian_orderings_exact_cks_mironov(sigma):
    claim = gaussian_rdp(sigma)
    rho = 1 / (2 * sigma**2)
    for delta in DELTAS:
        exact = analytic_gaussian_epsilon(delta, sigma)
        cks = claim.conversion(delta)
        mir = claim.conversion(delta, method="mironov")
        assert exact <= cks.epsilon < mir.epsilon
        # Mironov optimised over real α on the curve ρα is exactly Bun–Steinke Prop. 1.3
        assert mir.epsilon == pytest.approx(zcdp_to_dp_bun_steinke(rho, delta), rel=1e-9)
        assert mir.alpha == pytest.approx(1 + math.sqrt(math.log(1 / delta) / rho), rel=1e-4)
        # zCDP: min of the two routes, above the exact Gaussian, strictly below Bun–Steinke
        z = ZCDP(rho).epsilon(delta)
        assert z == pytest.approx(cks.epsilon, rel=1e-12)
        assert exact <= z < zcdp_to_dp_bun_steinke(rho, delta)
        assert z == zcdp_to_dp(rho, delta) == min(zcdp_to_dp_cks(rho, delta),
                                                  zcdp_to_dp_bun_steinke(rho, delta))
        # exact Gaussian-only conversion is the GDP curve with μ = √(2ρ) = 1/σ
        assert gaussian_mechanism_zcdp_to_dp(rho, delta) == pytest.approx(exact, rel=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("sigma,delta", [(0.5, 1e-5), (2.0, 1e-3), (20.0, 1e-12)])
def test_optimiser_beats_a_dense_brute_force_grid_and_is_self_consistent(sigma, delta):
    claim = gaussian_rdp(sigma)
    res = claim.conversion(delta)
    alphas = 1 + np.geomspace(1e-4, 1e7, 200_000)
    brute = min(rdp_to_dp_cks(a / (2 * sigma**2), a, delta) for a in alphas)
    assert res.epsilon <= brute * (1 + 1e-12)
    assert res.epsilon >= brute * (1 - 1e-6)  # the grid is dense: nothing much better exists
    # the reported α really achieves the reported ε
    assert rdp_to_dp_cks(claim.rdp(res.alpha), res.alpha, delta) == res.epsilon


def test_orders_restrict_the_optimisation():
    claim = gaussian_rdp(1.0)
    res = claim.conversion(1e-5, orders=[2, 3, 4])
    assert res.alpha in (2.0, 3.0, 4.0)
    assert res.epsilon == min(rdp_to_dp_cks(a / 2, a, 1e-5) for a in (2, 3, 4))
    assert res.epsilon > claim.epsilon(1e-5)
    with pytest.raises(ValueError, match="alpha"):
        claim.conversion(1e-5, orders=[0.5, 2])


# -- RDP claim mechanics -------------------------------------------------------------------
def test_rdp_claim_range_and_open_upper_end():
    gamma = 6.0
    # a GaussMix-style curve valid on (1, γ) and blowing up at γ
    claim = RDP(ALPHA / (2 * SIGMA**2) * sp.Symbol("gamma") / (sp.Symbol("gamma") - ALPHA),
                {"sigma": 2.0, "gamma": gamma}, alpha_range=(1, gamma), alpha_max_inclusive=False)
    assert claim.rdp(2.0) == pytest.approx(2 / 8 * 6 / 4)
    for bad in (1.0, 0.5, gamma, 7.0):
        with pytest.raises(ValueError, match="alpha"):
            claim.rdp(bad)
    res = claim.conversion(1e-5)
    assert 1 < res.alpha < gamma and math.isfinite(res.epsilon)
    # the restricted range costs: the unrestricted plain Gaussian curve does better
    assert res.epsilon > gaussian_rdp(2.0).epsilon(1e-5)
    # an inclusive upper end is evaluated there
    closed = RDP(GAUSS_CURVE, {"sigma": 0.5}, alpha_range=(1, 1.5))
    assert closed.rdp(1.5) == pytest.approx(3.0)
    assert closed.conversion(1e-8).alpha == pytest.approx(1.5)  # optimum wants α ≈ 4


def test_rdp_claim_callable_missing_values_and_json():
    c = RDP(lambda a: a / 2.0)
    assert c.epsilon(1e-5) == pytest.approx(gaussian_rdp(1.0).epsilon(1e-5), rel=1e-12)
    assert c.epsilon(0.0) == math.inf
    with pytest.raises(ValueError, match="sigma"):
        RDP(GAUSS_CURVE)
    with pytest.raises(ValueError, match="alpha_range"):
        RDP(GAUSS_CURVE, {"sigma": 1}, alpha_range=(3, 2))
    with pytest.raises(ValueError, match="alpha_range"):
        RDP(GAUSS_CURVE, {"sigma": 1}, alpha_range=(0.5, 2))
    d = gaussian_rdp(1.0).to_dict()
    json.dumps(d, allow_nan=False)
    assert d["curve"] == "alpha/(2*sigma**2)" and d["alpha_range"] == [1.0, "inf"]
    assert d["values"] == {"sigma": 1.0}
    for claim in (ZCDP(0.1), TCDP(0.1, math.inf), GDP(1.0), c,
                  PrivacyProfile(sp.exp(-EPSILON))):
        json.dumps(claim.to_dict(), allow_nan=False)


def test_symbolic_claims_pickle():
    """Claims cross process boundaries (the runner's process pool): the compiled curve is
    rebuilt on load."""
    r = compose_rdp(gaussian_rdp(2.0), TCDP(0.1, 9.0))
    back = pickle.loads(pickle.dumps(r))
    assert back == r and back.rdp(3.0) == r.rdp(3.0) and back.alpha_range == (1.0, 9.0)
    p = PrivacyProfile(sp.exp(-EPSILON) / 2)
    assert pickle.loads(pickle.dumps(p)).epsilon(1e-3) == p.epsilon(1e-3)
    assert p.epsilon(1e-3) == pytest.approx(math.log(500), rel=1e-15)


def test_nan_curve_is_an_error():
    with pytest.raises(ValueError, match="NaN"):
        optimal_rdp_to_dp(lambda a: math.nan, 1e-5)


# -- truncated CDP -------------------------------------------------------------------------
@pytest.mark.parametrize("rho,omega", [(0.1, 3.0), (0.5, 1.5), (0.01, 20.0)])
def test_tcdp_two_cases_and_continuity(rho, omega):
    L0 = (omega - 1) ** 2 * rho  # boundary in L = ln(1/δ)
    at = rho * (2 * omega - 1)
    below = tcdp_to_dp(rho, omega, math.exp(-L0 * (1 - 1e-9)))
    above = tcdp_to_dp(rho, omega, math.exp(-L0 * (1 + 1e-9)))
    assert below == pytest.approx(at, rel=1e-8) and above == pytest.approx(at, rel=1e-8)
    # each branch is Mironov at α = min(1 + √(L/ρ), ω)
    for L in (L0 / 3, 3 * L0):
        delta = math.exp(-L)
        alpha = min(1 + math.sqrt(L / rho), omega)
        assert tcdp_to_dp(rho, omega, delta) == pytest.approx(
            rdp_to_dp_mironov(rho * alpha, alpha, delta), rel=1e-12)
    assert tcdp_to_dp(rho, omega, math.exp(-L0 / 3)) == pytest.approx(
        zcdp_to_dp_bun_steinke(rho, math.exp(-L0 / 3)), rel=1e-12)
    far = math.exp(-3 * L0)
    assert tcdp_to_dp(rho, omega, far) > zcdp_to_dp_bun_steinke(rho, far)
    # the claim takes the CKS route on (1, ω] too, never worse
    claim = TCDP(rho, omega)
    for delta in DELTAS:
        assert claim.epsilon(delta) <= tcdp_to_dp(rho, omega, delta)
        assert claim.epsilon(delta) >= ZCDP(rho).epsilon(delta) * (1 - 1e-12)
    assert claim.rdp(omega) == pytest.approx(rho * omega)
    with pytest.raises(ValueError, match="alpha"):
        claim.rdp(omega * 1.01)


# -- Gaussian DP ---------------------------------------------------------------------------
@pytest.mark.parametrize("mu", [0.05, 0.5, 1.0, 3.0, 8.0])
@pytest.mark.parametrize("delta", [1e-2, 1e-5, 1e-10])
def test_gdp_round_trip(mu, delta):
    eps = GDP(mu).epsilon(delta)
    if eps == 0.0:  # δ above the total variation: nothing to invert
        assert gdp_to_dp_delta(mu, 0.0) <= delta
        return
    assert GDP(mu).delta(eps) == pytest.approx(delta, rel=1e-9)
    assert GDP(mu).delta(eps) <= delta  # the claim's ε is on the safe side
    back = dp_to_gdp_mu(eps, delta)
    assert back == pytest.approx(mu, rel=1e-9)
    assert gdp_to_dp_delta(back, eps) <= delta  # rounded to the safe side
    assert gdp_to_dp_delta(back * (1 + 1e-6), eps) > delta


def test_gdp_formula_independent_evaluation():
    mu, eps = 1.3, 0.7
    Phi = stats.norm.cdf
    assert gdp_to_dp_delta(mu, eps) == pytest.approx(
        Phi(-eps / mu + mu / 2) - math.exp(eps) * Phi(-eps / mu - mu / 2), rel=1e-12)
    assert gdp_to_dp_epsilon(mu, 1e-6) == GDP(mu).epsilon(1e-6)


def test_analytic_gaussian_is_gdp_and_matches_the_calibrated_mechanism():
    m = GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=2.0)
    assert analytic_gaussian_delta(1.0, m.sigma, 2.0) == pytest.approx(1e-5, rel=1e-9)
    assert analytic_gaussian_epsilon(1e-5, m.sigma, 2.0) == pytest.approx(1.0, rel=1e-9)
    assert analytic_gaussian_epsilon(1e-5, 3.0, 2.0) == gdp_to_dp_epsilon(2 / 3, 1e-5)
    assert dp_to_gdp_mu(1.0, 1e-5) == pytest.approx(2.0 / m.sigma, rel=1e-9)


# -- pure DP and privacy profiles ------------------------------------------------------------
@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
@pytest.mark.parametrize("delta", [0.0, 1e-4, 0.05, 0.9])
def test_pure_to_approx_is_randomized_response(eps, delta):
    p = np.array([math.exp(eps), 1.0]) / (1 + math.exp(eps))
    expected = discrete_epsilon(delta, p, p[::-1], symmetric=True)
    assert pure_dp_to_approx_dp(eps, delta) == pytest.approx(expected, rel=1e-12, abs=1e-15)
    assert PureDP(eps).epsilon(delta) == eps  # the claim keeps the conservative identity


def test_privacy_profile_inversion():
    mu = sp.Symbol("mu")
    Phi = lambda x: (1 + sp.erf(x / sp.sqrt(2))) / 2  # noqa: E731
    gdp_curve = Phi(-EPSILON / mu + mu / 2) - sp.exp(EPSILON) * Phi(-EPSILON / mu - mu / 2)
    prof = PrivacyProfile(gdp_curve, {"mu": 1.0})
    for delta in (1e-2, 1e-4, 1e-6):
        e = prof.epsilon(delta)
        assert e == pytest.approx(GDP(1.0).epsilon(delta), rel=1e-8)
        assert prof.delta(e) <= delta
    lap = PrivacyProfile(lambda e: laplace_delta(e, 1.0, 0.5))  # μ = 2
    for delta in (0.0, 1e-8, 1e-3, 0.3):
        e = lap.epsilon(delta)
        assert e == pytest.approx(laplace_epsilon(delta, 1.0, 0.5), rel=1e-12, abs=1e-12)
        assert lap.delta(e) <= delta
    assert lap.epsilon(0.99) == 0.0
    step = PrivacyProfile(lambda e: 0.1 if e < 1.5 else 0.0)  # a jump: the inverse is the jump
    assert step.epsilon(0.05) == pytest.approx(1.5, abs=1e-12) and step.epsilon(0.05) >= 1.5
    assert PrivacyProfile(lambda e: 0.5).epsilon(1e-3) == math.inf
    with pytest.raises(ValueError, match="delta"):
        PrivacyProfile(lambda e: 2.0).delta(0.0)


# -- composition ---------------------------------------------------------------------------
@pytest.mark.parametrize("k", [1, 4, 25])
def test_k_gaussians_compose(k):
    sigma, delta = 3.0, 1e-6
    rho = 1 / (2 * sigma**2)
    z = compose_zcdp(*[ZCDP(rho)] * k)
    assert z.rho == pytest.approx(k * rho, rel=1e-14)
    single = ZCDP(1 / (2 * (sigma / math.sqrt(k)) ** 2))
    assert z.epsilon(delta) == pytest.approx(single.epsilon(delta), rel=1e-12)
    exact = analytic_gaussian_epsilon(delta, sigma / math.sqrt(k))
    assert gaussian_mechanism_zcdp_to_dp(z.rho, delta) == pytest.approx(exact, rel=1e-10)
    # RDP: curves add symbolically
    r = compose_rdp(*[gaussian_rdp(sigma)] * k)
    assert r.rdp(7.0) == pytest.approx(k * 7.0 / (2 * sigma**2), rel=1e-14)
    assert r.epsilon(delta) == pytest.approx(gaussian_rdp(sigma / math.sqrt(k)).epsilon(delta),
                                             rel=1e-10)
    # GDP: √(Σμ²), exact
    g = compose_gdp(*[GDP(1 / sigma)] * k)
    assert g.mu == pytest.approx(math.sqrt(k) / sigma, rel=1e-14)
    assert g.epsilon(delta) == pytest.approx(exact, rel=1e-12)
    assert exact <= r.epsilon(delta)
    if k > 1:  # RDP composition beats basic composition of the exact per-step (ε, δ/k)
        basic = compose_approx_dp(
            *[ApproxDP(analytic_gaussian_epsilon(delta / k, sigma), delta / k)] * k)
        assert r.epsilon(delta) < basic.eps


def test_compose_mechanism_claims_and_mixed_rdp():
    m = GaussianMechanism(epsilon=1.0, delta=1e-5)
    c = m.claim()
    assert isinstance(c, AllOf)
    assert compose_zcdp([c] * 3).rho == pytest.approx(3 * m.rho)
    approx = compose_approx_dp(c, c, PureDP(0.5))
    assert (approx.eps, approx.delta) == (pytest.approx(2.5), pytest.approx(2e-5))
    assert isinstance(compose_approx_dp(PureDP(0.5), PureDP(1.0)), PureDP)
    with pytest.raises(ValueError, match="delta"):
        compose_approx_dp(ApproxDP(1, 0.6), ApproxDP(1, 0.6))
    with pytest.raises(TypeError):
        compose_zcdp(PureDP(1.0))
    # different σ under the same symbol: renamed per claim, values preserved
    mixed = compose_rdp(gaussian_rdp(1.0), gaussian_rdp(3.0), ZCDP(0.2), TCDP(0.1, 9.0))
    assert mixed.rdp(4.0) == pytest.approx(4 / 2 + 4 / 18 + 0.8 + 0.4, rel=1e-14)
    assert mixed.alpha_range == (1.0, 9.0) and mixed.alpha_max_inclusive
    opened = compose_rdp(RDP(lambda a: a, alpha_range=(1, 9), alpha_max_inclusive=False),
                         TCDP(0.1, 9.0))
    assert not opened.alpha_max_inclusive
    with pytest.raises(ValueError, match="alpha"):
        opened.rdp(9.0)
    with pytest.raises(ValueError, match="alpha_range"):
        compose_rdp(RDP(lambda a: a, alpha_range=(5, 9)), TCDP(0.1, 3.0))
    json.dumps(mixed.to_dict(), allow_nan=False)
    assert compose_gdp(GDP(0.3), GDP(0.4)).mu == pytest.approx(0.5)


# -- bad input -----------------------------------------------------------------------------
@pytest.mark.parametrize("make,word", [
    (lambda: PureDP(0.0), "epsilon"),
    (lambda: ApproxDP(1.0, 1.0), "delta"),
    (lambda: ApproxDP(1.0, -0.1), "delta"),
    (lambda: ZCDP(0.0), "rho"),
    (lambda: ZCDP(-1.0), "rho"),
    (lambda: TCDP(0.0, 2.0), "rho"),
    (lambda: TCDP(0.1, 1.0), "omega"),
    (lambda: GDP(0.0), "mu"),
    (lambda: ZCDP(0.1).epsilon(1.0), "delta"),
    (lambda: TCDP(0.1, 2.0).epsilon(-1e-3), "delta"),
    (lambda: gaussian_rdp(1.0).epsilon(1.5), "delta"),
    (lambda: gaussian_rdp(1.0).rdp(1.0), "alpha"),
    (lambda: ZCDP(0.1).rdp(0.9), "alpha"),
    (lambda: tcdp_to_dp(0.1, 0.5, 1e-5), "omega"),
    (lambda: zcdp_to_dp(0.0, 1e-5), "rho"),
    (lambda: rdp_to_dp_cks(0.1, 1.0, 1e-5), "alpha"),
    (lambda: dp_to_gdp_mu(0.0, 1e-5), "eps"),
    (lambda: gdp_to_dp_delta(1.0, -1.0), "eps"),
    (lambda: pure_dp_to_approx_dp(-1.0, 1e-5), "eps"),
    (lambda: optimal_rdp_to_dp(lambda a: a, 1e-5, method="nope"), "method"),
])
def test_bad_input_names_the_parameter(make, word):
    with pytest.raises(ValueError, match=word):
        make()


# -- conversions at claims beyond what e^ε holds in a float (issue 27, item 1) ------------

@pytest.mark.parametrize("delta", [1e-300, 1e-12, 0.5, 1.0 - 1e-12])
@pytest.mark.parametrize("eps", [709.0, 710.0, 800.0, 1e6, math.inf])
def test_conversions_at_huge_epsilon_are_exact_limits_not_overflows(eps, delta):
    from dpaudit.claims.conversions import gdp_to_dp_delta, pure_dp_to_approx_dp, tcdp_to_dp

    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # ε + ln(1 − δ(1 + e^−ε)): e^−ε underflows to 0, so ε + ln(1 − δ) (ε-DP needs a
        # finite ε: ∞ is refused with a message, by design)
        if math.isfinite(eps):
            assert pure_dp_to_approx_dp(eps, delta) == eps + math.log1p(-delta)
        # δ_μ(ε) of 1-GDP at a huge ε: 0 (ln δ ≈ −ε²/2), never nan
        assert gdp_to_dp_delta(1.0, eps) == 0.0
        assert gdp_to_dp_delta(1.0, 1e300) == 0.0
        # (ρ, ω)-tCDP with (ω − 1)² beyond a float: the first branch, ρ + 2√(ρL)
        rho = 1.0 if math.isinf(eps) else eps
        L = -math.log(delta)
        assert tcdp_to_dp(rho, 1e200, delta) == rho + 2.0 * math.sqrt(rho * L)
        assert tcdp_to_dp(rho, 1e200, delta) == tcdp_to_dp(rho, math.inf, delta)
