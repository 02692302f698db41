"""DP synthetic control: ℓ₂-Laplace law and exact curves, data model, estimators, mechanisms,
pairs and the grey-box search, the §4 generator."""

import math

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.optimize import minimize

from dpaudit.exact import LaplaceProfile
from dpaudit.exact.laplace import laplace_delta
from dpaudit.exact.l2_laplace import (L2LaplaceShiftProfile, l2_laplace_log_density,
                                      sample_l2_laplace)
from dpaudit.mechanisms.registry import create_mechanism
from dpaudit.mechanisms.synthetic_control.mechanisms import ridge_coefficients
from dpaudit.mechanisms.synthetic_control.data import generate, rmse
from dpaudit.mechanisms.synthetic_control.pairs import (extremal_regression_pair,
                                                        max_obj_evidence, max_regression_shift,
                                                        obj_hockey_stick)
from dpaudit.mechanisms.synthetic_control.donor_pool import DonorPools, replace_one_donor

SMALL = dict(n=3, T=5, T0=3, lam=3.0)


# -- the ℓ₂-Laplace law -------------------------------------------------------------------------

@pytest.mark.parametrize("dim", [1, 3, 10])
def test_sampler_radius_follows_gamma_and_direction_is_uniform(dim):
    v = sample_l2_laplace(np.random.default_rng(dim), 40000, dim, 2.5)
    radius = np.linalg.norm(v, axis=1)
    assert stats.kstest(radius, stats.gamma(dim, scale=2.5).cdf).pvalue > 1e-3
    u = v[:, 0] / radius
    if dim == 1:
        assert stats.binomtest(int((u > 0).sum()), u.size).pvalue > 1e-3
    else:  # (u₁ + 1)/2 ~ Beta((d − 1)/2, (d − 1)/2) for a uniform direction
        law = stats.beta(0.5 * (dim - 1), 0.5 * (dim - 1))
        assert stats.kstest((u + 1) / 2, law.cdf).pvalue > 1e-3


def test_sampler_detects_a_wrong_radius_law():
    # a sampler drawing the radius from Gamma(d − 1) (a plausible bug) fails the same test
    rng = np.random.default_rng(0)
    radius = rng.gamma(2.0, 2.5, size=40000)
    assert stats.kstest(radius, stats.gamma(3, scale=2.5).cdf).pvalue < 1e-6


def test_log_density_is_normalised():
    # d = 1: Laplace; d = 2: integrate in polar coordinates
    x = np.linspace(-3, 3, 7)
    assert np.allclose(l2_laplace_log_density(x[:, None], 1.5),
                       stats.laplace(scale=1.5).logpdf(x))
    dens = lambda r: math.exp(float(l2_laplace_log_density(np.array([[r, 0.0]]), 0.7)[0]))
    total = integrate.quad(lambda r: 2 * math.pi * r * dens(r), 0, np.inf)[0]
    assert total == pytest.approx(1.0, rel=1e-9)


def test_shift_profile_matches_closed_form_in_one_dimension():
    prof = L2LaplaceShiftProfile(1, 1.3, 0.8)
    for eps in (0.0, 0.3, 1.0, 1.5):
        assert prof.delta(eps) == pytest.approx(laplace_delta(eps, 1.3, 0.8), rel=1e-10)
    assert prof.epsilon(0.0) == pytest.approx(1.3 / 0.8)


@pytest.mark.slow
@pytest.mark.parametrize("dim", [2, 5, 30])
def test_shift_profile_is_converged_and_matches_monte_carlo(dim):
    prof = L2LaplaceShiftProfile(dim, 2.0, 1.0)
    fine = L2LaplaceShiftProfile(dim, 2.0, 1.0, rho_nodes=300, rtol=1e-13)
    v = sample_l2_laplace(np.random.default_rng(7), 200000, dim, 1.0)
    loss = np.linalg.norm(v + np.r_[2.0, np.zeros(dim - 1)], axis=1) - np.linalg.norm(v, axis=1)
    for eps in (0.0, 0.5, 1.0):
        d = prof.delta(eps)
        assert d == pytest.approx(fine.delta(eps), rel=1e-8)
        mc = np.maximum(0.0, 1.0 - np.exp(eps - loss))
        assert abs(d - mc.mean()) < 5 * mc.std() / math.sqrt(mc.size) + 1e-12
    assert prof.delta(2.0) == 0.0 and prof.epsilon(0.0) == 2.0
    assert prof.epsilon(prof.delta(0.7)) == pytest.approx(0.7, abs=1e-8)


# -- data model, relation, validation ------------------------------------------------------------

def pool(n=3, T=5, seed=0):
    rng = np.random.default_rng(seed)
    return {"X": rng.uniform(-1, 1, (n, T)).tolist(), "y": rng.uniform(-1, 1, T).tolist()}


@pytest.mark.parametrize("change, message", [
    (lambda d: d["X"][1].__setitem__(2, 1.5), "outside"),
    (lambda d: d["X"][0].__setitem__(0, float("nan")), "NaN"),
    (lambda d: d["y"].__setitem__(0, -2.0), r"y\[0\] = -2"),
    (lambda d: d.__setitem__("X", d["X"][:2]), "shape"),
    (lambda d: d.__setitem__("y", d["y"][:4]), "length"),
    (lambda d: d.pop("y"), "missing"),
])
def test_bad_datasets_are_refused_with_a_clear_message(change, message):
    mech = create_mechanism("dpsc-out-coefficients", **SMALL)
    d = pool()
    change(d)
    with pytest.raises(ValueError, match=message):
        mech.sample(d, 10, np.random.default_rng(0))


@pytest.mark.parametrize("name, params, message", [
    ("dpsc-out", dict(n=3, T=4, T0=3), "T0 \\+ 2"),
    ("dpsc-out", dict(lam=0.0), "lam"),
    ("dpsc-obj", dict(delta=1.0), "delta"),
    ("dpsc-obj-coefficients", dict(c=-1.0), "c must"),
    ("dpsc-post-data", dict(epsilon2=float("nan")), "epsilon2"),
])
def test_bad_parameters_are_refused(name, params, message):
    with pytest.raises(ValueError, match=message):
        create_mechanism(name, **params)


def test_relation_replaces_one_donor_and_keeps_the_target():
    a = pool()
    b = {"X": [row[:] for row in a["X"]], "y": list(a["y"])}
    b["X"][1] = [0.0] * 5
    assert replace_one_donor(a, b) == (True, "")
    b["X"][2][0] = 0.5
    assert not replace_one_donor(a, b)[0]
    c = {"X": a["X"], "y": [0.0] * 5}
    assert "target" in replace_one_donor(a, c)[1]
    space = DonorPools(3, 5)
    rng = np.random.default_rng(1)
    for _ in range(50):
        assert replace_one_donor(*space.random_pair(rng))[0]


# -- estimators ------------------------------------------------------------------------------------

def test_ridge_is_the_minimiser_of_the_stated_objective():
    d = pool(4, 7, seed=3)
    X, y, T0, lam = np.array(d["X"])[:, :5], np.array(d["y"])[:5], 5, 2.0
    J = lambda f: np.sum((y - X.T @ f) ** 2) / T0 + lam / (2 * T0) * f @ f  # noqa: E731
    best = minimize(J, np.zeros(4), method="BFGS", options={"gtol": 1e-12}).x
    assert np.allclose(ridge_coefficients(X, y, lam), best, atol=1e-6)
    printed = np.linalg.solve(X @ X.T + lam / (2 * T0) * np.eye(4), X @ y)
    assert J(printed) > J(best) + 1e-6   # the closed form printed in Lemmas 3.8/C.6 is not it


def test_objective_perturbation_solves_its_objective():
    mech = create_mechanism("dpsc-obj-coefficients", **SMALL, epsilon1=2.0)
    d = mech.validate_dataset(pool(seed=4))
    b = np.array([[0.3, -1.2, 2.0]])
    X, y, T0, reg = d.X[:, :3], d.y[:3], 3, mech.lam + mech.reg_extra
    J = lambda f: (np.sum((y - X.T @ f) ** 2) + reg / 2 * f @ f + b[0] @ f) / T0  # noqa: E731
    best = minimize(J, np.zeros(3), method="BFGS", options={"gtol": 1e-12}).x
    assert np.allclose(mech.coefficients(d, b)[0], best, atol=1e-6)


def test_algorithm_3_branches():
    low = create_mechanism("dpsc-obj-coefficients", **SMALL, epsilon1=1.0)
    high = create_mechanism("dpsc-obj-coefficients", **SMALL, epsilon1=10.0)
    c = 3 * (1 + math.sqrt(16 * 3 - 15))
    assert low.c == pytest.approx(c) and high.c == pytest.approx(c)
    thr = math.log((1 + c / 3.0) ** 2)
    assert low.branch == "small" and low.epsilon0 == 0.5
    assert low.reg_extra == pytest.approx(c / (math.exp(0.25) - 1) - 3.0) and low.reg_extra > 0
    assert high.branch == "large" and high.epsilon0 == pytest.approx(10.0 - thr)
    assert high.reg_extra == 0.0
    assert high.beta == pytest.approx(min(4 * 3 * math.sqrt(11) / high.epsilon0,
                                          (c * math.sqrt(3) + 12) / high.epsilon0))
    gauss = create_mechanism("dpsc-obj-coefficients", **SMALL, epsilon1=10.0, delta=1e-5)
    assert gauss.beta == pytest.approx(4 * 3 * math.sqrt(11) * math.sqrt(
        2 * math.log(2e5) + 2 * gauss.epsilon0) / gauss.epsilon0)
    assert create_mechanism("dpsc-obj-coefficients", **SMALL, c=1.0).c == 1.0


def test_obj_sampler_matches_its_density():
    # n = 1: f_obj = (2xy − b)/A is Laplace(2xy/A, β/A); the log-density says the same
    mech = create_mechanism("dpsc-obj-coefficients", n=1, T=3, T0=1, lam=3.2, epsilon1=1.0)
    d = {"X": [[1.0, 0.5, 0.5]], "y": [1.0, 0.0, 0.0]}
    f = mech.sample(d, 40000, np.random.default_rng(2))[:, 0]
    A = 2 + 3.2
    law = stats.laplace(loc=2 / A, scale=mech.beta / A)
    assert stats.kstest(f, law.cdf).pvalue > 1e-3
    x = np.linspace(-5, 5, 9)
    assert np.allclose(mech.log_density(d, x[:, None]), law.logpdf(x))


def test_out_sampler_matches_its_law():
    mech = create_mechanism("dpsc-out-coefficients", **SMALL)
    d = pool(seed=5)
    out = mech.sample(d, 30000, np.random.default_rng(3))
    radius = np.linalg.norm(out - mech.query(d), axis=1)
    assert stats.kstest(radius, stats.gamma(3, scale=mech.scale).cdf).pvalue > 1e-3
    post = create_mechanism("dpsc-post-data", n=3, T=5, T0=3, epsilon2=0.5)
    r = np.linalg.norm(post.sample(d, 30000, np.random.default_rng(4)) - post.query(d), axis=1)
    assert stats.kstest(r, stats.gamma(6, scale=2 * math.sqrt(2) / 0.5).cdf).pvalue > 1e-3


def test_end_to_end_outputs_are_the_projection():
    mech = create_mechanism("dpsc-out", **SMALL, epsilon1=1e6, epsilon2=1e6)
    d = pool(seed=6)
    y = mech.sample(d, 5, np.random.default_rng(0))
    X = np.array(d["X"])
    f = ridge_coefficients(X[:, :3], np.array(d["y"])[:3], 3.0)
    assert y.shape == (5, 2) and np.allclose(y, X[:, 3:].T @ f, atol=1e-3)
    a = create_mechanism("dpsc-obj", **SMALL, delta=1e-5).sample(d, 7, np.random.default_rng(1))
    b = create_mechanism("dpsc-obj", **SMALL, delta=1e-5).sample(d, 7, np.random.default_rng(1))
    assert a.shape == (7, 2) and np.array_equal(a, b)


# -- sensitivity, pairs, exact curves ---------------------------------------------------------------

@pytest.mark.parametrize("lam", [0.5, 3.0, 6.0, 50.0])
def test_extremal_pair_attains_the_exact_sensitivity(lam):
    mech = create_mechanism("dpsc-out-coefficients", n=3, T=5, T0=3, lam=lam)
    p = extremal_regression_pair(3, 5, 3, lam)
    shift = np.linalg.norm(mech.query(p.d0) - mech.query(p.d1))
    expected = math.sqrt(2 * 3 / lam) if lam <= 6 else 4 * 3 / (6 + lam)
    assert shift == pytest.approx(expected, rel=1e-12)
    assert shift <= math.sqrt(2 * 3 / lam) + 1e-12 and shift < mech.sensitivity()


@pytest.mark.slow
def test_optimised_search_never_beats_the_proved_bound():
    for n, T0, lam in ((1, 1, 1.0), (2, 2, 1.0), (3, 2, 10.0)):
        shift, pair = max_regression_shift(n, T0 + 2, T0, lam, starts=4)
        assert shift <= math.sqrt(2 * T0 / lam) + 1e-9
        assert replace_one_donor(pair.d0, pair.d1)[0]
        if lam <= 2 * T0:   # the optimiser finds the exact sensitivity
            assert shift == pytest.approx(math.sqrt(2 * T0 / lam), rel=1e-6)


@pytest.mark.slow
def test_greybox_search_reports_the_largest_ratio():
    from dpaudit.check.greybox import search_sensitivity

    mech = create_mechanism("dpsc-out-coefficients", n=2, T=4, T0=2, lam=2.0)
    res = search_sensitivity(mech, random_pairs=200, hypothesis_examples=30,
                             optimiser_starts=2, optimiser_evaluations=100)
    assert not res.violated
    assert res.ratio == pytest.approx(math.sqrt(2 * 2 / 2.0) / (4 * 2 * math.sqrt(10) / 2.0))

    class Broken(type(mech)):   # claims the (false) sensitivity √(2T₀/λ)/2
        def sensitivity(self):
            return 0.5 * math.sqrt(2 * self.T0 / self.lam)

    bad = search_sensitivity(Broken(n=2, T=4, T0=2, lam=2.0), random_pairs=50,
                             hypothesis_examples=10, optimiser_starts=1)
    assert bad.violated and bad.ratio == pytest.approx(2.0)


def test_exact_epsilon_of_the_pairs():
    out = create_mechanism("dpsc-out-coefficients", n=1, T=3, T0=1, lam=1.0)
    p = out.worst_case_pairs()[0]
    assert out.exact_epsilon(p.d0, p.d1, 0.0) == pytest.approx(math.sqrt(2) / 12)
    post = create_mechanism("dpsc-post-data", n=1, T=3, T0=1, epsilon2=0.7)
    p = post.worst_case_pairs()[0]
    assert post.exact_epsilon(p.d0, p.d1, 0.0) == pytest.approx(0.7)
    lap = create_mechanism("dpsc-obj-coefficients", n=1, T=3, T0=1, lam=3.2)
    flip, unbounded = lap.worst_case_pairs()
    assert lap.exact_epsilon(unbounded.d0, unbounded.d1, 0.0) == math.inf
    assert lap.true_epsilon() == math.inf
    # equal A (the n = 1 flip): a shifted Laplace pair in b-space, ‖2(X − X′)y‖ = 4
    assert lap.exact_epsilon(flip.d0, flip.d1, 0.0) == pytest.approx(4 / lap.beta)
    # different A, δ > 0: Laplace pair with scales β/A, β/A′
    ref = LaplaceProfile(0.0, lap.beta / 3.2, 2 / 5.2, lap.beta / 5.2).symmetric()
    assert lap.exact_epsilon(unbounded.d0, unbounded.d1, 1e-3) == pytest.approx(
        ref.epsilon(1e-3))
    gauss = create_mechanism("dpsc-obj-coefficients", n=1, T=3, T0=1, lam=4.0, delta=1e-5)
    assert gauss.exact_epsilon(unbounded.d0, unbounded.d1, 1e-5) > 10 * gauss.epsilon1


def test_evidence_search_finds_a_violating_pair_at_paper_size():
    mech = create_mechanism("dpsc-obj-coefficients", n=10, T=13, T0=10, lam=10.0)
    noise = sample_l2_laplace(np.random.default_rng(0), 4000, 10, 1.0)
    flip, unbounded = mech.worst_case_pairs()
    v = [mech.validate_dataset(x) for x in (flip.d0, flip.d1, unbounded.d0, unbounded.d1)]
    assert obj_hockey_stick(mech, v[0], v[1], 1.0, noise) > 0.005
    assert obj_hockey_stick(mech, v[2], v[3], 1.0, noise) < 1e-3
    small = create_mechanism("dpsc-obj-coefficients", n=3, T=5, T0=3, lam=3.0)
    delta_hat, pair = max_obj_evidence(small, samples=4000, starts=2, maxiter=10)
    assert delta_hat > 0 and replace_one_donor(pair.d0, pair.d1)[0]


# -- the §4 generator --------------------------------------------------------------------------------

def test_generator_follows_appendix_a():
    data = generate(50, 10, np.random.default_rng(0))
    assert data.X.shape == (50, 13) and data.y.shape == (13,) and data.T0 == 10
    assert np.all((data.theta >= 3) & (data.theta <= 5))
    assert np.all(np.abs(data.X) <= 1) and np.all(np.abs(data.y) <= 1)
    noise = (data.X - data.M) * data.scale
    assert np.all(np.abs(noise) <= 1)
    law = stats.truncnorm(-1 / math.sqrt(0.1), 1 / math.sqrt(0.1), scale=math.sqrt(0.1))
    assert stats.kstest(noise.ravel(), law.cdf).pvalue > 1e-3
    t = np.arange(1, 14)
    assert np.allclose(data.M * data.scale, data.theta[1:, None] * t[None, :])
    assert rmse(data.m[None, 10:], data.m[10:])[0] == 0.0
    mech = create_mechanism("dpsc-out", n=50, T=13, T0=10, lam=10.0)
    assert mech.sample(data.dataset(), 3, np.random.default_rng(0)).shape == (3, 3)
