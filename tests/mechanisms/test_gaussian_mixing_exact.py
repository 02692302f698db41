"""Exact curves of Gaussian sketches and the GaussMix claims: closed forms against independent
numerics, Lemma 1's curve against the exact divergence, and the pair search."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from dpaudit.claims.certificates import load_formula
from dpaudit.exact.gaussian_general import GaussianProfile
from dpaudit.exact.gaussian_pairs import IsotropicGaussianProfile
from dpaudit.mechanisms.gaussian_mixing.sketch_profiles import (ChiSquareScaleMixtureProfile, ScaledChiSquareProfile,
                                  sketch_pair_profile, sketch_pair_renyi)
from dpaudit.mechanisms.gaussian_mixing.gaussmix import GaussMix
from dpaudit.mechanisms.gaussian_mixing.common import rdp_value
from dpaudit.mechanisms.gaussian_mixing.pair_search import search_gaussmix_pair


@pytest.mark.parametrize("k", [1, 3, 12])
@pytest.mark.parametrize("v0", [1.6, 0.55])
def test_scaled_chi_square_matches_isotropic_quadrature(k, v0):
    closed = ScaledChiSquareProfile(v0, 1.0, k)
    quad = IsotropicGaussianProfile(0.0, math.sqrt(v0), 0.0, 1.0, dim=k)
    for eps in (0.0, 0.2, 0.7, 1.5):
        a, b = closed.delta(eps), quad.delta(eps)
        assert a == pytest.approx(b, rel=1e-8, abs=1e-300)
    for alpha in (0.5, 1.0, 2.0, 3.5):
        assert closed.renyi(alpha) == pytest.approx(quad.renyi(alpha), rel=1e-10)
    if v0 < 1:  # the loss is bounded by (k/2) ln(v₁/v₀)
        assert closed.max_loss() == pytest.approx(0.5 * k * math.log(1 / v0))
        assert closed.delta(closed.max_loss() + 1e-6) == 0.0


@pytest.mark.slow
def test_rank_one_pair_equals_the_full_kronecker_profile():
    rng = np.random.default_rng(3)
    d, k = 3, 4
    X = rng.normal(size=(5, d))
    without = X[1:].T @ X[1:] + 0.5 * np.eye(d)
    with_row = without + np.outer(X[0], X[0])
    fast = sketch_pair_profile(with_row, without, k)
    full = GaussianProfile(np.zeros(k * d), np.kron(np.eye(k), with_row), np.zeros(k * d),
                           np.kron(np.eye(k), without))
    assert isinstance(fast, ScaledChiSquareProfile)
    for eps in (0.1, 0.6, 1.2):
        assert fast.delta(eps) == pytest.approx(full.delta(eps), rel=1e-8)
    for delta in (1e-2, 1e-5):
        assert fast.epsilon(delta) == pytest.approx(full.epsilon(delta), rel=1e-7)
        assert fast.reversed().epsilon(delta) == pytest.approx(full.reversed().epsilon(delta),
                                                               rel=1e-7)
    for alpha in (1.5, 2.0):
        assert sketch_pair_renyi(with_row, without, k, alpha) == pytest.approx(
            full.renyi(alpha), rel=1e-10)


def test_sketch_pair_routing_and_errors():
    eye = np.eye(2)
    assert sketch_pair_profile(eye, eye, 3).delta(0.0) == 0.0
    two = sketch_pair_profile(np.diag([2.0, 0.5]), eye, 2)
    assert isinstance(two, GaussianProfile)
    with pytest.raises(ValueError, match="positive definite"):
        sketch_pair_profile(eye, np.diag([1.0, 0.0]), 2)
    with pytest.raises(ValueError, match="k must be"):
        sketch_pair_profile(eye, eye, 0)
    with pytest.raises(ValueError, match="exceeds"):
        sketch_pair_profile(np.diag([2.0, 3.0]), eye, 300)


@pytest.mark.parametrize("k", [1, 5, 50])
def test_scale_mixture_quadrature_against_the_closed_form(k):
    closed = ScaledChiSquareProfile(1.7, 1.0, k)
    mixed = ChiSquareScaleMixtureProfile([0.0], [1.7], [0.0], [1.0], k)
    for eps in (0.0, 0.3, 1.0):
        assert mixed.delta(eps) == pytest.approx(closed.delta(eps), rel=mixed.tolerance.rtol)
    # a two-component mixture is between its components, and an atom at 0 is a mismatch
    atom = ChiSquareScaleMixtureProfile([math.log(0.01), math.log(0.99)], [0.0, 2.0],
                                        [0.0], [2.0], k)
    assert atom.mismatch() == pytest.approx(0.01) and atom.epsilon(0.005) == math.inf


def test_lemma1_is_the_exact_divergence_of_the_tightness_pair():
    for k, gamma in [(1, 3.0), (10, 3.0), (7, 12.5)]:
        mech = GaussMix(k=k, gamma=gamma, dim=2)
        pair = mech.worst_case_pairs()[0]
        claim = mech.claim()
        for alpha in (1.2, 2.0, 0.9 * gamma):
            exact = mech.exact_renyi(pair.d0, pair.d1, alpha)
            assert exact == pytest.approx(claim.rdp(alpha), rel=1e-10)
        assert mech.exact_renyi(pair.d0, pair.d1, 1.01 * gamma) == math.inf  # range ends at γ


def test_the_divergence_formula_of_the_certificate_is_the_exact_one():
    D = load_formula("gaussian_mixing", "gaussmix_divergence")
    rng = np.random.default_rng(5)
    for _ in range(5):
        X = rng.uniform(-1, 1, size=(4, 2))
        X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
        full = X.T @ X + 0.7 * np.eye(2)
        zeroed = full - np.outer(X[0], X[0])
        t = float(X[0] @ np.linalg.solve(full, X[0]))
        for alpha in (1.5, 2.0):
            if alpha * t < 1:
                assert D(alpha=alpha, k=6, t=t) == pytest.approx(
                    sketch_pair_renyi(full, zeroed, 6, alpha), rel=1e-10)
                # the direction that removes the row is the worse one (certificate, divergence)
                assert sketch_pair_renyi(zeroed, full, 6, alpha) <= \
                    sketch_pair_renyi(full, zeroed, 6, alpha) + 1e-12


@pytest.mark.slow
def test_random_pairs_never_exceed_lemma1():
    mech = GaussMix(k=4, gamma=4.0, lambda_bar=0.5, row_bound=1.0, dim=2)
    rng = np.random.default_rng(11)
    checked = 0
    for _ in range(200):
        X = rng.normal(size=(5, 2))
        X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
        if np.linalg.eigvalsh(X.T @ X)[0] < mech.lam:
            continue
        X0 = X.copy()
        X0[0] = 0.0
        for alpha in (1.5, 3.0):
            assert mech.exact_renyi(X, X0, alpha) <= mech.claim().rdp(alpha) * (1 + 1e-12)
        checked += 1
    assert checked > 50


@pytest.mark.slow
def test_pair_search_reaches_lemma1_and_no_further():
    mech = GaussMix(k=10, gamma=3.0, dim=2)
    found = search_gaussmix_pair(4, 2, row_bound=1.0, sigma=mech.sigma, lambda_bar=1.0, k=10,
                                 alpha=2.0, seed=0)
    assert found.t == pytest.approx(1 / 3.0, rel=1e-6)
    assert found.divergence == pytest.approx(rdp_value(2.0, 10, 3.0), rel=1e-6)
    assert found.divergence <= rdp_value(2.0, 10, 3.0) * (1 + 1e-12)
    ok, _ = mech.relation()(found.d0, found.d1)
    assert ok
    # without a scale bound the bound is loose: t ≤ C²/(C² + σ²) < 1/γ
    loose = search_gaussmix_pair(3, 2, row_bound=1.0, sigma=math.sqrt(3.0), lambda_bar=0.0,
                                 k=10, alpha=2.0, seed=0)
    assert loose.t == pytest.approx(1 / 4.0, rel=1e-5)


def test_closed_form_claim_is_exceeded_by_the_exact_curve():
    mech = GaussMix(k=1, gamma=3.0, claim="closed-form", dim=2)
    pair = mech.worst_case_pairs()[0]
    closed = 1 / 18 + math.sqrt(2 * math.log(1000)) / 3
    assert mech.claim().epsilon(1e-3) == pytest.approx(closed, rel=1e-9)
    assert mech.exact_epsilon(pair.d0, pair.d1, 1e-3) == pytest.approx(1.9734, abs=1e-3)
    # Lemma 1 + Prop. 1 and Sheffet 2019 are valid there; Corollary 1 + Prop. 2 too
    for claim in ("lemma1", "sheffet2019", "corollary1"):
        other = GaussMix(k=1, gamma=3.0, claim=claim, dim=2)
        assert other.claim().epsilon(1e-3) > mech.exact_epsilon(pair.d0, pair.d1, 1e-3)


def test_claim_formulas_come_from_the_certificate():
    mech = GaussMix(k=10, gamma=10.0, claim="all", dim=2)
    lemma1, tcdp, sheffet = mech.claim().claims
    assert lemma1.curve == load_formula("gaussian_mixing", "gaussmix_rdp").expression
    assert lemma1.alpha_range == (1.0, 10.0) and not lemma1.alpha_max_inclusive
    assert tcdp.rho == pytest.approx(10 / 200) and tcdp.omega == pytest.approx(4.0)
    bound = 2 * math.sqrt(20 * math.log(4 / 1e-3)) / 10 + 2 * math.log(4 / 1e-3) / 10
    assert sheffet.epsilon(1e-3) == pytest.approx(bound, rel=1e-9)
    sigma = load_formula("gaussian_mixing", "gaussmix_sigma")
    assert mech.sigma == pytest.approx(sigma(gamma=10.0, C=1.0, lambda_bar=1.0))
    # the tCDP claim is below Lemma 1's curve nowhere on (1, ω]
    for alpha in np.linspace(1.01, tcdp.omega, 20):
        assert lemma1.rdp(alpha) <= tcdp.rdp(alpha) + 1e-12
    expr = sp.sympify(load_formula("gaussian_mixing", "sheffet2019_delta").expression)
    assert sp.Symbol("epsilon") in expr.free_symbols
