"""Exact privacy curves (dpaudit.exact) against closed forms, numerical integration,
high-precision arithmetic and Monte Carlo."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, special, stats

from dpaudit.exact import (discrete_delta, discrete_epsilon, gaussian_delta, gaussian_epsilon,
                           laplace_delta, laplace_epsilon, laplace_twofold_delta,
                           laplace_twofold_epsilon)


def _hockey_stick_quad(p0, p1, eps, points, lo=-60.0, hi=60.0):
    """∫ max(0, p0 − e^ε p1) by adaptive quadrature, split at the given kinks."""
    f = lambda x: max(0.0, p0(x) - math.exp(eps) * p1(x))  # noqa: E731
    cuts = sorted({lo, hi, *[c for c in points if lo < c < hi]})
    return sum(integrate.quad(f, a, b, epsabs=1e-14, epsrel=1e-12, limit=200)[0]
               for a, b in zip(cuts[:-1], cuts[1:]))


# -- Gaussian -------------------------------------------------------------------------------
@pytest.mark.parametrize("mu,eps", [(0.5, 0.0), (1.0, 0.3), (1.0, 1.0), (2.0, 2.5), (4.0, 6.0)])
def test_gaussian_delta_matches_numerical_integration(mu, eps):
    kink = mu / 2 - eps / mu  # privacy loss μ²/2 − μx equals ε here
    expected = _hockey_stick_quad(stats.norm(0, 1).pdf, stats.norm(mu, 1).pdf, eps, [kink],
                                  lo=-40, hi=40)
    assert gaussian_delta(eps, mu) == pytest.approx(expected, rel=1e-8, abs=1e-14)


def test_gaussian_delta_total_variation_and_edge_cases():
    # ε = 0: total variation 2Φ(μ/2) − 1
    assert gaussian_delta(0.0, 1.0) == pytest.approx(2 * stats.norm.cdf(0.5) - 1, rel=1e-14)
    assert gaussian_delta(3.0, 0.0) == 0.0
    assert gaussian_delta(3.0, math.inf) == 1.0
    arr = gaussian_delta(np.array([0.0, 1.0, 2.0]), 1.5)
    assert arr.shape == (3,) and np.all(np.diff(arr) < 0)
    with pytest.raises(ValueError, match="eps"):
        gaussian_delta(-1.0, 1.0)
    with pytest.raises(ValueError, match="mu"):
        gaussian_delta(1.0, -1.0)


@pytest.mark.parametrize("mu,eps", [(8.0, 30.0), (2.0, 12.0), (0.5, 5.0), (20.0, 150.0)])
def test_gaussian_delta_far_tail_matches_high_precision(mu, eps):
    mpmath.mp.dps = 60
    m, e = mpmath.mpf(mu), mpmath.mpf(eps)
    exact = mpmath.ncdf(m / 2 - e / m) - mpmath.exp(e) * mpmath.ncdf(-m / 2 - e / m)
    got = gaussian_delta(eps, mu)
    assert got > 0
    assert got == pytest.approx(float(exact), rel=1e-9)


def test_gaussian_delta_matches_privacy_loss_monte_carlo():
    # under P the privacy loss is N(μ²/2, μ²); δ(ε) = E[(1 − e^{ε − L})₊]
    rng = np.random.default_rng(11)
    mu, eps = 1.3, 0.7
    loss = rng.normal(mu * mu / 2, mu, size=1_000_000)
    v = np.maximum(0.0, -np.expm1(eps - loss))
    se = v.std() / math.sqrt(v.size)
    assert abs(v.mean() - gaussian_delta(eps, mu)) < 5 * se


@pytest.mark.parametrize("mu,delta", [(1.0, 1e-5), (0.268, 1e-5), (3.0, 1e-10),
                                      (0.1, 1e-3), (5.0, 1e-200)])
def test_gaussian_epsilon_inverts_delta(mu, delta):
    eps = gaussian_epsilon(delta, mu)
    assert 0 < eps < math.inf
    assert gaussian_delta(eps, mu) == pytest.approx(delta, rel=1e-8)
    assert gaussian_delta(eps * (1 - 1e-6), mu) > delta  # smallest such ε


def test_gaussian_epsilon_edge_cases():
    assert gaussian_epsilon(0.0, 1.0) == math.inf
    assert gaussian_epsilon(1e-5, 0.0) == 0.0
    assert gaussian_epsilon(0.5, 1.0) == 0.0  # δ above the total variation 0.383
    assert gaussian_epsilon(1e-5, math.inf) == math.inf
    with pytest.raises(ValueError, match="delta"):
        gaussian_epsilon(-0.1, 1.0)


@settings(max_examples=60, deadline=None)
@given(mu=st.floats(0.05, 20.0), log10_delta=st.floats(-14.0, -1.0))
def test_gaussian_roundtrip_property(mu, log10_delta):
    delta = 10.0 ** log10_delta
    eps = gaussian_epsilon(delta, mu)
    if eps == 0.0:
        assert gaussian_delta(0.0, mu) <= delta
    else:
        assert gaussian_delta(eps, mu) == pytest.approx(delta, rel=1e-7)


# -- Laplace --------------------------------------------------------------------------------
def _lap(loc, b):
    return lambda x: math.exp(-abs(x - loc) / b) / (2 * b)


@pytest.mark.parametrize("shift,scale,eps", [(1.0, 1.0, 0.0), (1.0, 1.0, 0.5), (2.0, 0.5, 3.0),
                                             (1.0, 0.1, 9.5), (1.0, 2.0, 0.49)])
def test_laplace_delta_matches_numerical_integration(shift, scale, eps):
    kink = (shift - eps * scale) / 2  # loss (|x−s| − |x|)/b equals ε here
    expected = _hockey_stick_quad(_lap(0, scale), _lap(shift, scale), eps, [0.0, shift, kink])
    assert laplace_delta(eps, shift, scale) == pytest.approx(expected, rel=1e-8, abs=1e-14)


def test_laplace_closed_forms():
    mu = 2.0 / 0.5
    assert laplace_epsilon(0.0, 2.0, 0.5) == mu  # pure ε = s/b
    assert laplace_delta(mu, 2.0, 0.5) == 0.0
    assert laplace_delta(0.0, 1.0, 1.0) == pytest.approx(1 - math.exp(-0.5))  # TV
    assert laplace_epsilon(0.1, 1.0, 1.0) == pytest.approx(1 + 2 * math.log(0.9))
    assert laplace_epsilon(0.5, 1.0, 1.0) == 0.0
    assert laplace_epsilon(1e-5, -3.0, 1.0) == pytest.approx(3 + 2 * math.log1p(-1e-5))
    for d in (1e-12, 1e-5, 0.01, 0.3):
        e = laplace_epsilon(d, 1.7, 0.6)
        assert laplace_delta(e, 1.7, 0.6) == pytest.approx(d, rel=1e-9)
    with pytest.raises(ValueError, match="scale"):
        laplace_delta(1.0, 1.0, 0.0)


def _twofold_by_nested_quadrature(eps, mu):
    """δ₂(ε) = ∫ p₀(x) δ₁(ε − L(x)) dx with δ₁ itself integrated numerically (b = 1, s = μ):
    independent of the closed forms under test."""
    p0, p1 = _lap(0.0, 1.0), _lap(mu, 1.0)

    def delta1(t):  # inner hockey-stick at a possibly negative ε = t
        kink = (mu - t) / 2
        return _hockey_stick_quad(p0, p1, t, [0.0, mu, kink], lo=-45, hi=45)

    loss = lambda x: abs(x - mu) - abs(x)  # noqa: E731
    f = lambda x: p0(x) * delta1(eps - loss(x))  # noqa: E731
    pts = sorted({0.0, mu, (mu - (eps - mu)) / 2, (mu - (eps + mu)) / 2})
    cuts = [-40.0] + [c for c in pts if -40 < c < 40] + [40.0]
    return sum(integrate.quad(f, a, b, epsabs=1e-12, epsrel=1e-10, limit=100)[0]
               for a, b in zip(cuts[:-1], cuts[1:]))


@pytest.mark.parametrize("mu,eps", [(1.3, 0.0), (1.3, 1.0), (1.0, 1.9)])
def test_laplace_twofold_matches_nested_integration(mu, eps):
    assert laplace_twofold_delta(eps, mu, 1.0) == pytest.approx(
        _twofold_by_nested_quadrature(eps, mu), rel=1e-7, abs=1e-12)


def test_laplace_twofold_matches_monte_carlo():
    rng = np.random.default_rng(5)
    mu, b = 1.3, 0.7
    s = mu * b
    x = rng.laplace(0.0, b, size=(1_000_000, 2))
    loss = ((np.abs(x - s) - np.abs(x)) / b).sum(axis=1)
    for eps in (0.0, 1.0, 2.4):
        v = np.maximum(0.0, -np.expm1(eps - loss))
        se = v.std() / math.sqrt(v.size)
        assert abs(v.mean() - laplace_twofold_delta(eps, s, b)) < 5 * se + 1e-12


@pytest.mark.parametrize("delta", [1e-14, 1e-8, 1e-3, 0.1, 0.4])
def test_laplace_twofold_epsilon_matches_lambert_w(delta):
    mu = 1.5
    w = -4.0 - 2.0 * special.lambertw(-2.0 * (1 - delta) * math.exp(-2.0), k=-1).real
    expected = max(0.0, 2 * mu - w)
    got = laplace_twofold_epsilon(delta, mu, 1.0)
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-9)
    if got > 0:
        assert laplace_twofold_delta(got, mu, 1.0) == pytest.approx(delta, rel=1e-9)


def test_laplace_twofold_pure_epsilon_is_twice_single():
    assert laplace_twofold_epsilon(0.0, 1.0, 0.5) == 4.0
    assert laplace_twofold_delta(4.0, 1.0, 0.5) == 0.0
    assert laplace_twofold_delta(3.999, 1.0, 0.5) > 0.0
    # two releases always leak at least as much as one
    for e in (0.0, 0.5, 1.5):
        assert laplace_twofold_delta(e, 1.0, 1.0) >= laplace_delta(e, 1.0, 1.0)


# -- discrete -------------------------------------------------------------------------------
def _brute_delta(eps, p, q):
    return sum(max(0.0, a - math.exp(eps) * b) for a, b in zip(p, q))


def _brute_epsilon(delta, p, q):
    """Bisection on the brute-force definition (δ(ε) is non-increasing)."""
    if _brute_delta(0.0, p, q) <= delta:
        return 0.0
    hi = 1.0
    while _brute_delta(hi, p, q) > delta:
        hi *= 2
        if hi > 100:  # probabilities ≥ 1e-6·… keep finite log-ratios below ~30
            return math.inf
    lo = 0.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if _brute_delta(mid, p, q) <= delta else (mid, hi)
    return hi


def test_discrete_delta_definition_and_symmetry():
    p = [0.5, 0.3, 0.2, 0.0]
    q = [0.2, 0.3, 0.4, 0.1]
    for eps in (0.0, 0.3, 0.9, 2.0):
        assert discrete_delta(eps, p, q) == pytest.approx(_brute_delta(eps, p, q), abs=1e-15)
        assert discrete_delta(eps, p, q, symmetric=True) == pytest.approx(
            max(_brute_delta(eps, p, q), _brute_delta(eps, q, p)), abs=1e-15)
    arr = discrete_delta(np.array([0.0, 0.5]), p, q)
    assert arr.shape == (2,)


def test_discrete_epsilon_closed_form_binary():
    # binary randomized response: p = (e^ε, 1)/(e^ε + 1); ε(δ) = ln((p₀ − δ)/q₀)
    e = 1.2
    p = np.array([math.exp(e), 1.0]) / (math.exp(e) + 1)
    q = p[::-1]
    assert discrete_epsilon(0.0, p, q) == pytest.approx(e, rel=1e-14)
    for d in (1e-6, 0.05, 0.2):
        assert discrete_epsilon(d, p, q, symmetric=True) == pytest.approx(
            math.log((p[0] - d) / q[0]), rel=1e-12)


def test_discrete_support_mismatch():
    p = [0.7, 0.3, 0.0]
    q = [0.6, 0.0, 0.4]  # outcome 1 never happens under q: mass 0.3 can't be explained
    assert discrete_epsilon(0.1, p, q) == math.inf
    assert discrete_epsilon(0.29, p, q) == math.inf
    assert discrete_epsilon(0.3, p, q) == pytest.approx(math.log(0.7 / 0.6))
    assert discrete_epsilon(0.3, p, q, symmetric=True) == math.inf  # 0.4 the other way
    assert discrete_epsilon(0.5, p, q, symmetric=True) == 0.0
    assert discrete_delta(100.0, p, q) == pytest.approx(0.3)


def test_discrete_log_space_large_epsilon():
    # ε = 30 randomized response given as log-probabilities (probabilities ~1e-13)
    e = 30.0
    lp = np.array([-math.log1p(math.exp(-e)), -e - math.log1p(math.exp(-e))])
    lq = lp[::-1]
    assert discrete_epsilon(0.0, lp, lq, log_probs=True) == pytest.approx(e, rel=1e-14)
    # ε(δ) = ln((p₀ − δ)/q₀) = e + ln(1 − δ(1 + e^{−e}))
    assert discrete_epsilon(0.5, lp, lq, log_probs=True) == pytest.approx(
        e + math.log1p(-0.5 * (1 + math.exp(-e))), rel=1e-14)
    # a ratio beyond double-precision range of plain probabilities
    lp2, lq2 = np.array([0.0, -800.0]), np.array([-800.0, 0.0])
    assert discrete_epsilon(0.0, lp2, lq2, log_probs=True, symmetric=True) == pytest.approx(800)
    assert discrete_epsilon(0.25, lp2, lq2, log_probs=True) == pytest.approx(
        800 + math.log(0.75), rel=1e-14)
    assert discrete_delta(799.0, lp2, lq2, log_probs=True) == pytest.approx(1 - math.exp(-1))


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(data=st.data(), k=st.integers(2, 6))
def test_discrete_epsilon_matches_bisection(data, k):
    w = st.one_of(st.just(0.0), st.floats(1e-6, 1.0))
    p = np.array(data.draw(st.lists(w, min_size=k, max_size=k)))
    q = np.array(data.draw(st.lists(w, min_size=k, max_size=k)))
    if p.sum() == 0 or q.sum() == 0:
        return
    p, q = p / p.sum(), q / q.sum()
    delta = data.draw(st.sampled_from([0.0, 1e-6, 0.01, 0.2]))
    got = discrete_epsilon(delta, p, q)
    want = _brute_epsilon(delta, list(p), list(q))
    if math.isinf(want) or math.isinf(got):
        assert got == want
    else:
        assert got == pytest.approx(want, abs=1e-9)
        assert discrete_delta(got, p, q) <= delta + 1e-12


def test_discrete_rejects_bad_input():
    with pytest.raises(ValueError, match="same length"):
        discrete_delta(0.0, [0.5, 0.5], [1.0])
    with pytest.raises(ValueError, match="≥ 0"):
        discrete_epsilon(0.0, [1.5, -0.5], [0.5, 0.5])
    with pytest.raises(ValueError, match="NaN"):
        discrete_epsilon(0.0, [np.nan, 1.0], [0.5, 0.5])
    with pytest.raises(ValueError, match="delta"):
        discrete_epsilon(-1.0, [0.5, 0.5], [0.5, 0.5])
