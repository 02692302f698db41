"""Exact privacy profiles (dpaudit.exact.profile / gaussian_pairs / mixtures / renyi) against
closed forms, independent numerical integration, an independent second method, and large
Monte-Carlo runs (δ̂(ε) = mean of (1 − e^{ε−L})₊ over 10⁶ draws from P₀, within 5 standard
errors; L computed from scipy's densities, not from the code under test)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

from dpaudit.exact import (DiscreteProfile, GaussianMixtureProfile, GaussianProfile,
                           GaussianShiftProfile, IsotropicGaussianProfile, LaplaceProfile,
                           NormalPairProfile, SymmetricProfile, equal_covariance_profile,
                           gaussian_delta, gaussian_epsilon, gaussian_renyi,
                           isotropic_gaussian_renyi, laplace_delta, laplace_epsilon,
                           laplace_shift_renyi, mahalanobis)

MC_N = 1_000_000


def _spd(rng, d, jitter=0.5):
    a = rng.standard_normal((d, d))
    return a @ a.T / d + jitter * np.eye(d)


def _rotation(rng, d):
    q, r = np.linalg.qr(rng.standard_normal((d, d)))
    return q * np.sign(np.diag(r))


def _mc_check(loss, eps_list, profile):
    """|δ̂(ε) − δ(ε)| < 5 standard errors for losses L drawn under P₀."""
    for eps in eps_list:
        v = np.maximum(0.0, -np.expm1(eps - loss))
        se = v.std() / math.sqrt(v.size)
        exact = profile.delta(eps)
        assert abs(v.mean() - exact) < 5 * se + 1e-12, (eps, v.mean(), exact, se)
        assert exact > 0  # the comparison is not vacuous


def _hockey_quad(p0, p1, eps, cuts):
    f = lambda x: max(0.0, p0(x) - math.exp(eps) * p1(x))  # noqa: E731
    return sum(integrate.quad(f, a, b, epsabs=1e-15, epsrel=1e-12, limit=400)[0]
               for a, b in zip(cuts[:-1], cuts[1:]))


# --- 1. equal covariance → GDP ------------------------------------------------------------------
def test_equal_covariance_is_gdp_with_mahalanobis_distance():
    rng = np.random.default_rng(0)
    cov = _spd(rng, 4)
    m0, m1 = rng.standard_normal(4), rng.standard_normal(4)
    mu = math.sqrt((m1 - m0) @ np.linalg.solve(cov, m1 - m0))
    prof = equal_covariance_profile(m0, m1, cov)
    assert prof.mu == pytest.approx(mu, rel=1e-12)
    general = GaussianProfile(m0, cov, m1, cov)
    assert general.method == "gdp"
    for eps in (0.0, 0.7, 3.0, 12.0):
        assert general.delta(eps) == pytest.approx(gaussian_delta(eps, mu), rel=1e-9)
    for delta in (1e-12, 1e-5, 1e-2):
        assert general.epsilon(delta) == pytest.approx(gaussian_epsilon(delta, mu), rel=1e-9)
    assert general.renyi(3.0) == pytest.approx(1.5 * mu * mu, rel=1e-10)


def test_mahalanobis_with_singular_covariance():
    cov = np.array([[1.0, 1.0], [1.0, 1.0]])
    assert mahalanobis([0, 0], [1, 1], cov) == pytest.approx(1.0)
    assert mahalanobis([0, 0], [1, 0], cov) == math.inf
    assert equal_covariance_profile([0, 0], [1, 0], cov).delta(5.0) == 1.0


# --- 2. isotropic, different variances ------------------------------------------------------------
def test_isotropic_equal_scales_is_gdp_and_quadrature_path_is_continuous():
    m0, m1 = np.zeros(3), np.array([0.6, -0.8, 0.0])  # distance 1
    same = IsotropicGaussianProfile(m0, 2.0, m1, 2.0)
    for eps in (0.0, 0.5, 2.0):
        assert same.delta(eps) == pytest.approx(gaussian_delta(eps, 0.5), rel=1e-12)
    # the χ²-quadrature path with s₁ → s₀ converges to the GDP curve (error ∝ s₁/s₀ − 1)
    for r in (1e-4, 1e-7):
        near = IsotropicGaussianProfile(m0, 1.0, m1, 1.0 + r)
        for eps in (0.5, 3.0):
            rel = abs(near.delta(eps) / gaussian_delta(eps, 1.0) - 1)
            assert rel < 50 * r


@pytest.mark.slow
@pytest.mark.parametrize("d", [2, 3, 6, 40])
@pytest.mark.parametrize("s0,s1", [(1.0, 1.3), (1.3, 1.0)])
def test_general_gaussian_reduces_to_isotropic(d, s0, s1):
    """Two independent methods: χ² quadrature (isotropic) vs Bromwich inversion / conditional
    quadrature (general), on randomly rotated coordinates; tails down to δ ~ 1e-16."""
    rng = np.random.default_rng(d)
    q = _rotation(rng, d)
    shift = np.zeros(d)
    shift[0] = 0.8
    m0, m1 = rng.standard_normal(d), None
    m1 = m0 + q @ shift
    iso = IsotropicGaussianProfile(m0, s0, m1, s1)
    gen = GaussianProfile(m0, s0 ** 2 * np.eye(d), m1, s1 ** 2 * q @ np.eye(d) @ q.T)
    for eps in (0.0, 0.5, 2.0, 8.0, 30.0) + ((60.0,) if d >= 6 else ()):
        a, b = iso.delta(eps), gen.delta(eps)
        assert a == pytest.approx(b, rel=1e-7, abs=1e-300)
        value, bound = gen.delta_with_error(eps)
        assert bound <= gen.tolerance.rtol * value + gen.tolerance.atol
    if s0 > s1:  # unbounded loss: a genuinely tiny δ is compared
        assert 0 < iso.delta(30.0) < 1e-6
    assert iso.renyi(2.0) == pytest.approx(gen.renyi(2.0), rel=1e-10)
    delta = 1e-6 if d == 2 else 1e-12  # (d = 2 is the slower conditional route)
    assert iso.epsilon(delta) == pytest.approx(gen.epsilon(delta), rel=1e-7)


@pytest.mark.slow
def test_isotropic_different_variances_matches_monte_carlo():
    rng = np.random.default_rng(1)
    d, s0, s1 = 5, 1.2, 1.0
    m0, m1 = np.zeros(d), np.full(d, 0.3)
    prof = IsotropicGaussianProfile(m0, s0, m1, s1)
    x = m0 + s0 * rng.standard_normal((MC_N, d))
    loss = (stats.multivariate_normal(m0, s0 ** 2 * np.eye(d)).logpdf(x)
            - stats.multivariate_normal(m1, s1 ** 2 * np.eye(d)).logpdf(x))
    _mc_check(loss, [0.0, 0.5, 1.5], prof)


def test_normal_pair_matches_quadrature():
    p = NormalPairProfile(0.0, 1.3, 0.7, 1.0)
    p0, p1 = stats.norm(0, 1.3).pdf, stats.norm(0.7, 1.0).pdf
    for eps in (0.0, 0.4, 1.5, 4.0):
        a, b = p._intervals(eps)
        cuts = sorted({-40.0, 40.0, *[v for v in np.r_[a, b] if np.isfinite(v)]})
        assert p.delta(eps) == pytest.approx(_hockey_quad(p0, p1, eps, cuts), rel=1e-9,
                                             abs=1e-15)
        r = p.reversed()
        ar, br = r._intervals(eps)
        cuts = sorted({-40.0, 40.0, *[v for v in np.r_[ar, br] if np.isfinite(v)]})
        assert r.delta(eps) == pytest.approx(_hockey_quad(p1, p0, eps, cuts), rel=1e-9,
                                             abs=1e-15)
    assert p.reversed().max_loss() < math.inf == p.max_loss()


def test_normal_pair_near_the_supremum_of_the_loss_matches_high_precision():
    """s₀ < s₁: {L > ε} shrinks to a point as ε → sup L, where P₀(I) ≈ e^ε P₁(I)."""
    import mpmath
    mpmath.mp.dps = 50
    p = NormalPairProfile(0.0, 1.0, 0.7, 1.3)
    m0, s0, m1, s1 = (mpmath.mpf(v) for v in ("0", "1", "0.7", "1.3"))
    A = 1 / (2 * s1 ** 2) - 1 / (2 * s0 ** 2)
    B = m0 / s0 ** 2 - m1 / s1 ** 2
    C = mpmath.log(s1 / s0) - m0 ** 2 / (2 * s0 ** 2) + m1 ** 2 / (2 * s1 ** 2)
    top = C - B * B / (4 * A)
    assert p.max_loss() == pytest.approx(float(top), rel=1e-14)
    for gap in ("1e-2", "1e-4", "1e-6"):
        eps = top - mpmath.mpf(gap)
        r = mpmath.sqrt((top - eps) / -A)
        lo, hi = -B / (2 * A) - r, -B / (2 * A) + r
        exact = (mpmath.ncdf((hi - m0) / s0) - mpmath.ncdf((lo - m0) / s0)
                 - mpmath.e ** eps * (mpmath.ncdf((hi - m1) / s1) - mpmath.ncdf((lo - m1) / s1)))
        # the input ε is rounded to a double: δ ∝ gap^{3/2} is that sensitive to it
        rel = 1e-9 + 3e-16 / float(gap)
        assert p.delta(float(eps)) == pytest.approx(float(exact), rel=rel)


# --- 3. general Gaussians -------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("d,method", [(2, "conditional"), (4, "contour")])
def test_covariance_only_pair_matches_monte_carlo_both_directions(d, method):
    rng = np.random.default_rng(10 + d)
    c0 = _spd(rng, d)
    b = rng.standard_normal((d, d))
    c1 = c0 + 0.8 * b @ b.T / d
    mean = np.zeros(d)
    for s0, s1, seed in ((c0, c1, 1), (c1, c0, 2)):
        prof = GaussianProfile(mean, s0, mean, s1)
        assert prof.method == method
        x = np.random.default_rng(seed).multivariate_normal(mean, s0, size=MC_N)
        loss = (stats.multivariate_normal(mean, s0).logpdf(x)
                - stats.multivariate_normal(mean, s1).logpdf(x))
        top = min(prof.loss_sup(), 2.0)  # compare where δ(ε) > 0
        eps_list = [0.0, 0.3 * top, 0.7 * top]
        _mc_check(loss, eps_list, prof)


@pytest.mark.slow
def test_conditional_and_contour_methods_agree():
    """The low-rank routes (one quadratic coordinate + a linear part; two quadratic
    coordinates and no linear part) against the Bromwich integral, both directions."""
    rng = np.random.default_rng(4)
    q = _rotation(rng, 3)
    one = GaussianProfile(np.zeros(3), np.eye(3), q @ np.array([0.2, 0.5, 0.3]),
                          q @ np.diag([1.7, 1.0, 1.0]) @ q.T)
    two = GaussianProfile(np.zeros(2), np.eye(2), np.array([0.4, -0.2]), np.diag([1.7, 0.6]))
    three = GaussianProfile(np.zeros(3), np.eye(3), np.array([0.4, -0.2, 0.5]),
                            np.diag([1.7, 0.6, 1.0]))
    assert three.method == "contour"
    for p in (one, one.reversed(), two, two.reversed()):
        assert p.method == "conditional"
        top = min(p.loss_sup(), 6.0)
        for eps in (0.0, 0.3 * top, 0.9 * top):
            auto, _ = p.delta_with_error(eps)
            contour, bound = p.delta_with_error(eps, method="contour")
            assert auto > 0
            assert auto == pytest.approx(contour, rel=1e-8)
            assert bound <= 1e-8 * contour


@pytest.mark.slow
def test_general_gaussian_with_shift_and_covariance_matches_monte_carlo():
    rng = np.random.default_rng(7)
    d = 3
    c0, c1 = _spd(rng, d), _spd(rng, d, jitter=0.8)
    m0, m1 = np.zeros(d), np.array([0.5, -0.3, 0.2])
    prof = GaussianProfile(m0, c0, m1, c1)
    x = rng.multivariate_normal(m0, c0, size=MC_N)
    loss = stats.multivariate_normal(m0, c0).logpdf(x) - stats.multivariate_normal(m1, c1).logpdf(x)
    _mc_check(loss, [0.0, 1.0, 2.5], prof)


def test_singular_and_projected_covariances():
    eye = np.eye(3)
    sing = GaussianProfile(np.zeros(3), eye, np.zeros(3), np.diag([1.0, 2.0, 0.0]))
    assert sing.singular and sing.delta(10.0) == 1.0 and sing.epsilon(0.5) == math.inf
    assert sing.renyi(0.5) == math.inf
    # a common null direction without a shift is projected out
    s0, s1 = np.diag([1.0, 2.0, 0.0]), np.diag([1.5, 2.0, 0.0])
    proj = GaussianProfile(np.zeros(3), s0, np.zeros(3), s1)
    ref = NormalPairProfile(0.0, 1.0, 0.0, math.sqrt(1.5))
    assert proj.delta(0.1) == pytest.approx(ref.delta(0.1), rel=1e-10)
    assert proj.renyi(2.0) == pytest.approx(ref.renyi(2.0), rel=1e-10)
    # ... but a shift along it makes the laws mutually singular
    assert GaussianProfile(np.zeros(3), s0, np.r_[0, 0, 1e-3], s1).delta(3.0) == 1.0
    # near-singular: large but finite loss, handled without error
    near = GaussianProfile(np.zeros(2), np.eye(2), np.zeros(2), np.diag([1.0, 1e-10]))
    assert not near.singular
    assert 0.99 < near.reversed().delta(1.0) < 1.0
    assert near.reversed().loss_sup() == pytest.approx(0.5 * math.log(1e10), rel=1e-6)


# --- 4. mixtures ------------------------------------------------------------------------------------
def test_one_component_mixture_is_the_gaussian_formula():
    p = GaussianMixtureProfile(1.0, 0.0, 2.0, 1.0, 1.5, 2.0)  # μ = 0.75
    for eps in (0.0, 0.3, 2.0, 8.0):
        assert p.delta(eps) == pytest.approx(gaussian_delta(eps, 0.75), rel=1e-9)
    assert p.epsilon(1e-10) == pytest.approx(gaussian_epsilon(1e-10, 0.75), rel=1e-8)
    q = GaussianMixtureProfile([0.3, 0.7], [0.0, 0.0], [1.3, 1.3], 1.0, 0.7, 1.0)
    n = NormalPairProfile(0.0, 1.3, 0.7, 1.0)
    for eps in (0.0, 1.0, 6.0, 25.0):
        assert q.delta(eps) == pytest.approx(n.delta(eps), rel=1e-9)


def _sgld_pair(j=2000):
    """A Gaussian vs an equal-weight mixture of j Gaussians (an SGLD step's laws)."""
    rng = np.random.default_rng(123)
    means = np.where(rng.random(j) < 0.1, 1.5, 0.0) + 0.05 * rng.standard_normal(j)
    return means, GaussianMixtureProfile(1.0, 0.0, 1.0, np.ones(j), means, 1.0)


@pytest.mark.slow
def test_mixture_matches_quadrature_and_monte_carlo_both_directions():
    means, p = _sgld_pair(200)
    p0 = stats.norm(0, 1).pdf
    p1 = lambda x: float(np.mean(stats.norm.pdf(x - means)))  # noqa: E731
    for eps in (0.0, 0.5 * p.max_loss(), 0.9 * p.max_loss()):
        a, b = p._intervals(eps)
        cuts = sorted({-15.0, 15.0, *[v for v in np.r_[a, b] if abs(v) < 15]})
        exact = p.delta(eps)
        assert exact > 0
        assert exact == pytest.approx(_hockey_quad(p0, p1, eps, cuts), rel=1e-9)
    rng = np.random.default_rng(5)
    x = rng.standard_normal(MC_N)
    few = means[::10]  # Monte Carlo on a 40-component pair (the loss costs n × components)
    dens1 = lambda t: np.mean(stats.norm.pdf(t[:, None] - few[None, :]), axis=1)  # noqa: E731
    sub = GaussianMixtureProfile(1.0, 0.0, 1.0, np.ones(few.size), few, 1.0)
    _mc_check(stats.norm.logpdf(x) - np.log(dens1(x)), [0.0, 0.5 * sub.max_loss()], sub)
    y = few[rng.integers(0, few.size, MC_N)] + rng.standard_normal(MC_N)
    _mc_check(np.log(dens1(y)) - stats.norm.logpdf(y), [0.0, 0.3, 1.0], sub.reversed())


def test_two_mixtures_with_many_roots_match_quadrature():
    w0, m0, s0 = [0.5, 0.5], [-2.0, 2.0], [0.5, 0.5]
    w1, m1, s1 = [0.3, 0.4, 0.3], [-2.5, 0.0, 2.4], [0.6, 1.0, 0.6]
    p = GaussianMixtureProfile(w0, m0, s0, w1, m1, s1)
    p0 = lambda x: sum(w * stats.norm.pdf(x, m, s) for w, m, s in zip(w0, m0, s0))  # noqa
    p1 = lambda x: sum(w * stats.norm.pdf(x, m, s) for w, m, s in zip(w1, m1, s1))  # noqa
    for eps in (0.0, 0.5, 1.0):
        a, b = p._intervals(eps)
        cuts = sorted({-12.0, 12.0, *np.r_[a, b]})
        assert len(a) >= (2 if eps < 1 else 1)  # several pieces of {L > ε}
        assert p.delta(eps) == pytest.approx(_hockey_quad(p0, p1, eps, cuts), rel=1e-9)
    # the reverse direction has an unbounded loss (P₁ has the wider component) …
    assert p.reversed().max_loss() == math.inf and p.max_loss() < 1.1
    # … and near sup L the single narrow piece still matches
    eps = p.max_loss() - 1e-3
    a, b = p._intervals(eps)
    assert p.delta(eps) == pytest.approx(_hockey_quad(p0, p1, eps, [-12.0, a[0], b[0], 12.0]),
                                         rel=1e-6)


@pytest.mark.slow
def test_mixture_is_fast_for_thousands_of_components():
    import time
    rng = np.random.default_rng(9)
    j = 5000
    p = GaussianMixtureProfile(np.ones(j), rng.normal(0, 0.3, j), 0.5, 1.0, 0.2, 0.6)
    t = time.perf_counter()
    eps = p.symmetric().epsilon(1e-6)
    assert 0 < eps < math.inf
    assert time.perf_counter() - t < 10.0


# --- Rényi ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("alpha", [0.3, 0.5, 1.0, 2.0, 3.5])
def test_gaussian_renyi_closed_form_matches_quadrature(alpha):
    m0, s0, m1, s1 = 0.0, 1.0, 0.8, 1.2
    if alpha == 1.0:
        f = lambda x: stats.norm.pdf(x, m0, s0) * (stats.norm.logpdf(x, m0, s0)  # noqa: E731
                                                    - stats.norm.logpdf(x, m1, s1))
        expected = integrate.quad(f, -30, 30, epsabs=0, epsrel=1e-12, limit=200)[0]
    else:
        f = lambda x: math.exp(alpha * stats.norm.logpdf(x, m0, s0)  # noqa: E731
                               + (1 - alpha) * stats.norm.logpdf(x, m1, s1))
        expected = math.log(integrate.quad(f, -30, 30, epsabs=0, epsrel=1e-12,
                                           limit=200)[0]) / (alpha - 1)
    assert gaussian_renyi(m0, s0 ** 2, m1, s1 ** 2, alpha) == pytest.approx(expected, rel=1e-9)
    assert isotropic_gaussian_renyi(0.8, s0, s1, 1, alpha) == pytest.approx(expected, rel=1e-9)
    mix = GaussianMixtureProfile(1.0, m0, s0, 1.0, m1, s1)
    assert mix.renyi(alpha) == pytest.approx(expected, rel=1e-8)


def test_gaussian_renyi_covariance_only_and_divergence():
    rng = np.random.default_rng(2)
    c0, c1 = _spd(rng, 5), _spd(rng, 5, jitter=1.0)
    g = GaussianProfile(np.zeros(5), c0, np.ones(5) * 0.1, c1)
    for alpha in (0.5, 1.0, 1.5, 2.0):
        closed = gaussian_renyi(np.zeros(5), c0, np.ones(5) * 0.1, c1, alpha)
        assert closed == pytest.approx(g.renyi_from_cgf(alpha), rel=1e-10)
    # αΣ₁ + (1−α)Σ₀ not positive definite → ∞ (both routes)
    s0, s1 = np.eye(2), np.diag([1.0, 0.25])  # α·0.25 + (1 − α) > 0 ⇔ α < 4/3
    assert gaussian_renyi([0, 0], s0, [0, 0], s1, 1.3) < math.inf
    assert gaussian_renyi([0, 0], s0, [0, 0], s1, 4.0 / 3.0 + 0.01) == math.inf
    assert GaussianProfile([0, 0], s0, [0, 0], s1).renyi_from_cgf(1.4) == math.inf
    assert GaussianProfile([0, 0], s0, [0, 0], s1).renyi_from_cgf(1.3) == pytest.approx(
        gaussian_renyi([0, 0], s0, [0, 0], s1, 1.3), rel=1e-12)
    mix = GaussianMixtureProfile(1.0, 0.0, 1.0, 1.0, 0.0, 0.5)
    assert mix.renyi(1.4) == math.inf and mix.renyi(1.3) < math.inf
    assert mix.renyi(1.3) == pytest.approx(isotropic_gaussian_renyi(0, 1, 0.5, 1, 1.3), rel=1e-8)


@pytest.mark.slow
def test_mixture_renyi_matches_quadrature():
    means, p = _sgld_pair(500)
    f = lambda x, a: math.exp(a * stats.norm.logpdf(x) + (1 - a) * np.log(  # noqa: E731
        np.mean(stats.norm.pdf(x - means))))
    for alpha in (0.5, 2.0, 4.0):
        q = integrate.quad(f, -25, 25, args=(alpha,), epsabs=0, epsrel=1e-12, limit=400)[0]
        assert p.renyi(alpha) == pytest.approx(math.log(q) / (alpha - 1), rel=1e-8)


# --- 5. Laplace and discrete ----------------------------------------------------------------------
def test_laplace_profile_matches_existing_closed_form_and_renyi():
    p = LaplaceProfile(0.0, 0.7, 0.91, 0.7)  # μ = 1.3
    for eps in (0.0, 0.5, 1.2, 1.3, 2.0):
        assert p.delta(eps) == pytest.approx(laplace_delta(eps, 0.91, 0.7), rel=1e-12, abs=1e-16)
    assert p.epsilon(0.0) == pytest.approx(1.3, rel=1e-12)
    for d in (1e-9, 1e-3, 0.2):
        assert p.epsilon(d) == pytest.approx(laplace_epsilon(d, 0.91, 0.7), rel=1e-9)
    for alpha in (0.3, 0.5, 0.8, 1.0, 2.0, 7.0):
        assert p.renyi(alpha) == pytest.approx(laplace_shift_renyi(1.3, alpha), rel=1e-12)


@pytest.mark.slow
def test_laplace_different_scales_matches_quadrature_and_monte_carlo():
    p = LaplaceProfile(0.0, 1.0, 0.5, 1.3)
    l0, l1 = stats.laplace(0, 1), stats.laplace(0.5, 1.3)
    for prof, (a, b), (la, lb) in ((p, (l0.pdf, l1.pdf), (l0.logpdf, l1.logpdf)),
                                   (p.reversed(), (l1.pdf, l0.pdf), (l1.logpdf, l0.logpdf))):
        for eps in (0.0, 0.5, 2.0):
            ia, ib = prof._intervals(eps)
            cuts = sorted({-80.0, 0.0, 0.5, 80.0, *[v for v in np.r_[ia, ib] if np.isfinite(v)]})
            assert prof.delta(eps) == pytest.approx(_hockey_quad(a, b, eps, cuts), rel=1e-9,
                                                    abs=1e-15)
        for alpha in (0.5, 2.0, 3.0):
            q = sum(integrate.quad(lambda x: math.exp(alpha * la(x) + (1 - alpha) * lb(x)),
                                   lo, hi, epsabs=0, epsrel=1e-13, limit=400)[0]
                    for lo, hi in ((-300, 0), (0, 0.5), (0.5, 300)))
            assert prof.renyi(alpha) == pytest.approx(math.log(q) / (alpha - 1), rel=1e-8)
    x = np.random.default_rng(3).laplace(0.5, 1.3, MC_N)
    _mc_check(stats.laplace(0.5, 1.3).logpdf(x) - stats.laplace(0, 1).logpdf(x),
              [0.0, 0.5, 2.0], p.reversed())
    assert p.max_loss() == pytest.approx(math.log(1.3) + 0.5 / 1.3)
    assert p.reversed().epsilon(0.0) == math.inf  # heavier tails on P₀: no pure ε
    assert p.epsilon(0.0) == pytest.approx(p.max_loss())


def test_discrete_profile_wraps_enumeration():
    p, q = [0.5, 0.3, 0.2, 0.0], [0.2, 0.3, 0.4, 0.1]
    fwd, bwd = DiscreteProfile(p, q), DiscreteProfile(p, q).reversed()
    assert fwd.delta(0.0) == pytest.approx(0.3)
    assert fwd.epsilon(0.0) == pytest.approx(math.log(2.5))
    assert bwd.mismatch() == pytest.approx(0.1)
    assert bwd.epsilon(0.05) == math.inf
    assert bwd.epsilon(0.1) == pytest.approx(math.log(2.0))  # exactly at the mismatch mass
    assert bwd.renyi(2.0) == math.inf and bwd.renyi(0.5) < math.inf
    a = 2.0
    assert fwd.renyi(a) == pytest.approx(
        math.log(sum(x ** a * y ** (1 - a) for x, y in zip(p, q) if x > 0)) / (a - 1))
    assert fwd.renyi(math.inf) == pytest.approx(math.log(2.5))
    sym = fwd.symmetric()
    assert isinstance(sym, SymmetricProfile)
    assert sym.epsilon(0.05) == math.inf and sym.epsilon(0.2) == max(fwd.epsilon(0.2),
                                                                     bwd.epsilon(0.2))


# --- the common contract -------------------------------------------------------------------------
def _profiles():
    return [GaussianShiftProfile(1.2),
            IsotropicGaussianProfile(np.zeros(4), 1.0, np.full(4, 0.4), 1.2),
            GaussianProfile(np.zeros(3), np.diag([1.0, 2.0, 0.5]), np.array([0.3, 0.0, -0.2]),
                            np.array([[1.3, 0.2, 0.0], [0.2, 1.6, 0.1], [0.0, 0.1, 0.6]])),
            GaussianMixtureProfile(np.ones(50), np.linspace(0, 1, 50), 0.8, 1.0, 0.3, 0.9),
            LaplaceProfile(0.0, 1.0, 0.5, 1.3),
            DiscreteProfile([0.6, 0.3, 0.1], [0.3, 0.3, 0.4])]


@pytest.mark.slow
@pytest.mark.parametrize("index", range(6))
def test_epsilon_inverts_delta_on_the_log_scale(index):
    prof = _profiles()[index].symmetric()
    tv = prof.total_variation()
    assert prof.epsilon(tv) == 0.0 and prof.epsilon(1.0) == 0.0
    # (the general-Gaussian profile is the slowest to invert; δ = 1e-12 for it is covered by
    # test_general_gaussian_reduces_to_isotropic)
    deltas = (1e-6, 1e-3, 0.5 * tv) if index == 2 else (1e-12, 1e-6, 1e-3, 0.5 * tv)
    for delta in deltas:
        eps = prof.epsilon(delta)
        assert 0 < eps < math.inf
        got = prof.delta(eps)
        if isinstance(prof.forward, DiscreteProfile):
            assert got <= delta + 1e-15 and prof.delta(eps * (1 - 1e-9)) > delta
        else:
            assert got == pytest.approx(delta, rel=1e-6)
    grid = prof.delta(np.linspace(0, 3, 13))
    assert grid.shape == (13,) and np.all(np.diff(grid) <= 1e-15)


def test_invalid_arguments_raise():
    g = GaussianShiftProfile(1.0)
    with pytest.raises(ValueError, match="eps"):
        g.delta(-0.1)
    with pytest.raises(ValueError, match="delta"):
        g.epsilon(-1e-3)
    with pytest.raises(ValueError, match="alpha"):
        g.renyi(0.0)
    with pytest.raises(ValueError, match="scales"):
        GaussianMixtureProfile(1.0, 0.0, 0.0, 1.0, 0.0, 1.0)
    with pytest.raises(ValueError):
        GaussianProfile(np.zeros(2), np.eye(3), np.zeros(2), np.eye(2))
    with pytest.raises(ValueError, match="scales"):
        IsotropicGaussianProfile(0.0, -1.0, 1.0, 1.0)
