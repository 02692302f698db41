"""DP policy evaluation: data model, estimators, smooth bounds, DP-LSW/DP-LSL, the §6 chain."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from dpaudit.exact.gaussian_pairs import IsotropicGaussianProfile
from dpaudit.exact.profile import GaussianShiftProfile
from dpaudit.mechanisms.policy_evaluation import estimators as est
from dpaudit.mechanisms.policy_evaluation.chain import ChainMDP
from dpaudit.mechanisms.policy_evaluation.data import (batch_statistics, first_visit_returns,
                                            parse_dataset, parse_trajectory)
from dpaudit.mechanisms.registry import create_mechanism
from dpaudit.mechanisms.policy_evaluation.trajectories import TrajectoryDatasets, replace_one_trajectory

ONE = dict(n_states=1, f_max=1.0, gamma=0.9)


# -- data model ------------------------------------------------------------------------------

def test_first_visit_returns_by_hand():
    traj = parse_trajectory([[0, 0.0], [1, 1.0], [0, 1.0], [2, 0.5]], 3, 1.0, 0)
    visited, returns = first_visit_returns(traj, 0.5, 4)
    # G₃ = 0.5, G₂ = 1 + 0.25, G₁ = 1 + 0.625, G₀ = 0 + 0.8125
    assert visited.tolist() == [True, True, True, False]
    assert returns.tolist() == [0.8125, 1.625, 0.5, 0.0]


def test_counts_are_trajectories_not_visits_and_fmax_clips():
    data = parse_dataset([[[0, 1.0], [0, 1.0], [1, 1.0]], [[1, 0.0]], []], 2, 1.0)
    st = batch_statistics(data, 0.5, 2)
    assert st.m == 3 and st.counts.tolist() == [1, 2]
    assert np.allclose(st.returns, [1.75, 0.5])  # state 1: (1 + 0)/2
    clipped = batch_statistics(data, 0.5, 2, f_max=1.0)
    assert np.allclose(clipped.returns, [1.0, 0.5])


@pytest.mark.parametrize("dataset, message", [
    ([], "at least one trajectory"),
    ({"a": 1}, "list of trajectories"),
    ([[[0, float("nan")]]], "NaN"),
    ([[[0, 1.5]]], "outside [0, R_max]"),
    ([[[0, -0.1]]], "outside [0, R_max]"),
    ([[[3, 0.5]]], "not one of the integers 0..1"),
    ([[[0.5, 0.5]]], "not one of the integers"),
    ([[[0]]], "a step is [state, reward]"),
    ([[[0, 1, 2, 3]]], "a step is [state, reward]"),
    ([[[0, "x", 0.5]]], "action must be a finite number"),
    (["abc"], "must be a list of steps"),
])
def test_bad_datasets_are_named(dataset, message):
    with pytest.raises(ValueError, match=None) as info:
        parse_dataset(dataset, 2, 1.0)
    assert message in str(info.value)


def test_replace_one_trajectory_relation():
    a, b, c = [[0, 1.0]], [[1, 0.0]], [[0, 0.0], [1, 1.0]]
    assert replace_one_trajectory([a, b], [a, c])[0]
    assert replace_one_trajectory([a, b], [b, a])[0]  # order does not matter
    assert replace_one_trajectory([a], [a])[0]
    ok, why = replace_one_trajectory([a, b], [c, c])
    assert not ok and "2 trajectories differ" in why
    ok, why = replace_one_trajectory([a, b], [a])
    assert not ok and "same number" in why
    assert replace_one_trajectory([[[0, 1, 1.0]]], [[[0, 2, 1.0]]])[0]  # actions are records
    validated = parse_dataset([a, b], 2, 1.0)
    assert replace_one_trajectory(validated, [a, c])[0]  # validated and raw compare equal


def test_trajectory_space_pairs_are_neighbours():
    space = TrajectoryDatasets(3, 1.0, min_size=1, max_size=3, max_length=4)
    rng = np.random.default_rng(5)
    for _ in range(300):
        d0, d1 = space.random_pair(rng)
        assert replace_one_trajectory(d0, d1)[0]
        parse_dataset(d0, 3, 1.0), parse_dataset(d1, 3, 1.0)
    assert replace_one_trajectory(*space.from_vector(np.full(space.dimension, 0.3)))[0]


# -- estimators and smooth bounds -------------------------------------------------------------

def test_feature_matrices():
    agg = est.feature_matrix("aggregate-2", 5)
    assert agg.shape == (5, 3) and agg.sum(axis=0).tolist() == [2, 2, 1]
    assert np.array_equal(est.feature_matrix("tabular", 3), np.eye(3))
    for bad in ("aggregate-0", "pairs", [[1, 0]], [[np.nan], [1], [1]]):
        with pytest.raises(ValueError):
            est.feature_matrix(bad, 3)


def test_lsw_and_lsl_solve_their_objectives():
    rng = np.random.default_rng(1)
    phi = rng.normal(size=(5, 2))
    w = rng.random(5) + 0.2
    F = rng.random(5)
    theta = est.lsw_theta(phi, w, F)
    assert np.allclose(theta, np.linalg.pinv(np.sqrt(w)[:, None] * phi) @ (np.sqrt(w) * F))
    # LSL: θ^λ minimises J^λ_X of eq. (10), written from trajectories
    chain = ChainMDP(5, 0.5, 0.9)
    data = parse_dataset(chain.trajectories(7, rng), 5, 1.0)
    st = batch_statistics(data, 0.9, 5)
    rho, lam = rng.random(5), 3.0
    th = est.lsl_theta(phi, rho, st.counts, st.returns, st.m, lam)

    def J(t):
        total = 0.0
        for x in data:
            visited, ret = first_visit_returns(x, 0.9, 5)
            total += np.sum((rho * (ret - phi @ t) ** 2)[visited])
        return total / st.m + lam / (2 * st.m) * t @ t
    h = 1e-6
    grad = [(J(th + h * e) - J(th - h * e)) / (2 * h) for e in np.eye(2)]
    assert np.allclose(grad, 0.0, atol=1e-6)


def test_singular_lsw_design_is_refused():
    with pytest.raises(ValueError, match="full column rank"):
        create_mechanism("dp-lsw", n_states=3, features=[[1, 1], [1, 1], [1, 1]])


def _brute_psi_lsw(v, w, beta, radius):
    best = 0.0
    for k in range(radius + 1):
        ball = itertools.product(*[range(max(x - k, 0), x + k + 1) for x in v])
        phik = max(sum(wi / max(u, 1) ** 2 for wi, u in zip(w, vv)) for vv in ball)
        best = max(best, math.exp(-k * beta) * phik)
    return best


def test_psi_lsw_is_the_definition_and_both_algorithms_agree():
    w = np.array([1.0, 0.5])
    for v in itertools.product(range(5), repeat=2):
        for beta in (0.05, 0.7):
            ref = _brute_psi_lsw(v, w, beta, 8)  # sup over k is reached by k ≤ K_X
            assert est.psi_lsw(np.array(v), w, beta) == pytest.approx(ref, rel=1e-12)
            assert est.psi_lsw_scan(np.array(v), w, beta) == pytest.approx(ref, rel=1e-12)


def test_fast_and_literal_psi_agree_on_random_signatures():
    rng = np.random.default_rng(2)
    for _ in range(300):
        n, m = int(rng.integers(1, 6)), int(rng.integers(1, 3000))
        counts = rng.integers(0, m + 1, size=n)
        w, rho = rng.random(n) + 0.05, rng.random(n) + 0.05
        beta = float(10 ** rng.uniform(-4, 0.5))
        assert est.psi_lsw(counts, w, beta) == pytest.approx(
            est.psi_lsw_scan(counts, w, beta), rel=1e-12)
        c, r2 = est.lsl_constants(float(rng.uniform(0.5, 2)), rho, float(rng.uniform(5, 500)))
        assert est.psi_lsl(counts, rho, m, beta, c, r2) == pytest.approx(
            est.psi_lsl_scan(counts, rho, m, beta, c, r2), rel=1e-12)


def test_psi_is_beta_smooth_and_above_phi():
    rng = np.random.default_rng(3)
    for _ in range(500):
        n, m = int(rng.integers(1, 5)), int(rng.integers(2, 60))
        v = rng.integers(0, m + 1, size=n)
        u = np.clip(v + rng.integers(-1, 2, size=n), 0, m)
        w, rho = rng.random(n) + 0.05, rng.random(n) + 0.05
        beta = float(10 ** rng.uniform(-3, 0.3))
        a, b = est.psi_lsw(v, w, beta), est.psi_lsw(u, w, beta)
        assert abs(math.log(a / b)) <= beta * (1 + 1e-12)
        assert a >= np.sum(w / np.maximum(v, 1) ** 2) * (1 - 1e-12)
        c, r2 = est.lsl_constants(1.0, rho, 10.0)
        a, b = est.psi_lsl(v, rho, m, beta, c, r2), est.psi_lsl(u, rho, m, beta, c, r2)
        assert abs(math.log(a / b)) <= beta * (1 + 1e-12)


# -- the mechanisms --------------------------------------------------------------------------

@pytest.mark.parametrize("name, extra", [("dp-lsw", {}), ("dp-lsl", {"lam": 3.0})])
def test_local_sensitivity_bounds_hold_on_random_pairs(name, extra):
    """Corollary 3 / Corollary 8: ‖θ_X − θ_X′‖ ≤ bound(X) for every neighbour, both ways."""
    mech = create_mechanism(name, n_states=3, features="aggregate-2", gamma=0.8, r_max=1.0,
                            weights=[1.0, 0.5, 0.8], **extra)
    space = TrajectoryDatasets(3, 1.0, min_size=1, max_size=4, max_length=5)
    rng = np.random.default_rng(4)
    worst = 0.0
    pairs = [space.random_pair(rng) for _ in range(400)]
    pairs += [(p.d0, p.d1) for p in mech.worst_case_pairs()]
    for d0, d1 in pairs:
        gap = float(np.linalg.norm(mech.query(d0) - mech.query(d1)))
        for d in (d0, d1):
            worst = max(worst, gap / mech.local_sensitivity_bound(d))
    assert 0.05 < worst <= 1 + 1e-9


def test_lsw_bound_is_attained_by_the_sole_visitor_pair():
    mech = create_mechanism("dp-lsw", n_states=3, f_max=1.0)
    pair = mech.worst_case_pairs()[0]
    gap = np.linalg.norm(mech.query(pair.d0) - mech.query(pair.d1))
    assert gap == pytest.approx(mech.local_sensitivity_bound(pair.d0), rel=1e-12)
    assert gap == pytest.approx(mech.sensitivity(), rel=1e-12)


def test_sigma_is_the_certified_formula():
    mech = create_mechanism("dp-lsw", epsilon=2.0, delta=1e-3, n_states=2, f_max=1.0,
                            weights=[1.0, 4.0])
    alpha = 5 * math.sqrt(2 * math.log(2 / 1e-3)) / 2.0
    beta = 2.0 / (4 * 2 + 4 * math.log(2 / 1e-3))
    assert (mech.alpha, mech.beta) == (pytest.approx(alpha), pytest.approx(beta))
    data = [[[0, 1.0], [1, 1.0]], [[1, 0.0]], [[1, 0.5]]]
    counts = np.array([1, 3])
    psi = max(math.exp(-k * beta) * (1 / max(1 - k, 1) ** 2 + 4 / max(3 - k, 1) ** 2)
              for k in range(4))
    pinv = 1 / math.sqrt(1.0)  # Γ^{1/2}Φ = diag(1, 2): smallest singular value 1
    assert mech.noise_scale(data) == pytest.approx(alpha * 1.0 * pinv * math.sqrt(psi))
    assert mech.statistics(data).counts.tolist() == counts.tolist()
    lsl = create_mechanism("dp-lsl", epsilon=2.0, delta=1e-3, n_states=2, lam=5.0)
    c = 1.0 * 1.0 / math.sqrt(10.0)
    psi_l = max(math.exp(-k * beta) * (c * math.sqrt(min(1 + k, 3) + min(3 + k, 3))
                                       + math.sqrt(2)) ** 2 for k in range(4))
    expected = 2 * alpha * (1 / (1 - 0.9)) * 1.0 * math.sqrt(psi_l) / (5.0 - 1.0)
    assert lsl.noise_scale(data) == pytest.approx(expected)


@pytest.mark.parametrize("name, extra", [("dp-lsw", {}), ("dp-lsl", {"lam": 4.0})])
def test_sampler_law_and_log_density(name, extra):
    mech = create_mechanism(name, epsilon=5.0, delta=1e-3, n_states=2, f_max=1.0, **extra)
    data = mech.worst_case_pairs()[1].d0
    theta, sigma = mech.theta_sigma(data)
    out = mech.sample(data, 20000, np.random.default_rng(11))
    assert out.shape == (20000, 2)
    for j in range(2):
        assert stats.kstest(out[:, j], "norm", args=(theta[j], sigma)).pvalue > 1e-3
    ref = stats.multivariate_normal(theta, sigma ** 2 * np.eye(2)).logpdf(out[:5])
    assert np.allclose(mech.log_density(data, out[:5]), ref)
    again = mech.sample(data, 20000, np.random.default_rng(11))
    assert np.array_equal(out, again)


def test_exact_epsilon_is_the_isotropic_profile():
    mech = create_mechanism("dp-lsw", epsilon=10.0, delta=1e-3, **ONE)
    sole, drop = mech.worst_case_pairs()[:2]
    (t0, s0), (t1, s1) = mech.theta_sigma(sole.d0), mech.theta_sigma(sole.d1)
    assert s0 == s1 and abs(t0[0] - t1[0]) == pytest.approx(1.0)
    assert mech.exact_epsilon(sole.d0, sole.d1, 1e-3) == pytest.approx(
        GaussianShiftProfile(1.0 / s0).epsilon(1e-3), rel=1e-9)
    (t0, s0), (t1, s1) = mech.theta_sigma(drop.d0), mech.theta_sigma(drop.d1)
    assert s0 < s1  # the counts drop 2 → 1, so ψ (and σ) grow
    prof = IsotropicGaussianProfile(t0, s0, t1, s1).symmetric()
    assert mech.exact_epsilon(drop.d0, drop.d1, 1e-2) == pytest.approx(prof.epsilon(1e-2))
    assert mech.exact_epsilon(drop.d0, drop.d1, 1e-2) == pytest.approx(
        mech.exact_epsilon(drop.d1, drop.d0, 1e-2))


def test_finding_theorem6_fails_at_large_epsilon_and_holds_at_the_papers():
    big = create_mechanism("dp-lsw", epsilon=300.0, delta=0.1, **ONE)
    for pair in big.worst_case_pairs():
        assert big.exact_epsilon(pair.d0, pair.d1, 0.1) > 300.0  # a real violation
    paper = create_mechanism("dp-lsw", epsilon=0.1, delta=0.1, n_states=4, f_max=1.0,
                             gamma=0.99)
    for pair in paper.worst_case_pairs():
        assert paper.exact_epsilon(pair.d0, pair.d1, 0.1) == 0.0  # nothing to certify


def test_worst_case_pairs_are_neighbours_and_claims():
    for name, extra in (("dp-lsw", {}), ("dp-lsl", {"lam": 4.0})):
        for params in (dict(n_states=3), dict(n_states=3, f_max=0.5, gamma=0.5)):
            mech = create_mechanism(name, **params, **extra)
            names = [p.name for p in mech.worst_case_pairs()]
            assert len(set(names)) == len(names) >= 4
            for p in mech.worst_case_pairs():
                assert mech.check_pair(p.d0, p.d1) == (True, "")
            claim = mech.claim()
            assert claim.epsilon(0.1) == 1.0 and claim.epsilon(0.01) == math.inf
            assert mech.claimed_value("alpha") == pytest.approx(mech.alpha)


@pytest.mark.parametrize("params, message", [
    (dict(epsilon=0.0), "epsilon"), (dict(delta=1.0), "delta"), (dict(gamma=1.0), "gamma"),
    (dict(n_states=0), "n_states"), (dict(weights=[1.0, -1.0, 1.0]), "weights w"),
    (dict(constants="nrs"), "constants"), (dict(f_max=-1.0), "f_max"),
    (dict(constants="appendix", epsilon=6.0), "ε ≤ 5"),
])
def test_bad_parameters_are_named(params, message):
    with pytest.raises(ValueError) as info:
        create_mechanism("dp-lsw", **params)
    assert message in str(info.value)


def test_lsl_lambda_condition_is_an_error():
    with pytest.raises(ValueError, match="λ > ‖Φ‖²‖ρ‖∞ = 2"):
        create_mechanism("dp-lsl", n_states=4, features="aggregate-2", lam=2.0)
    with pytest.raises(ValueError, match="weights ρ"):
        create_mechanism("dp-lsl", n_states=2, weights=[0.5, 1.5])
    create_mechanism("dp-lsl", n_states=4, features="aggregate-2", lam=2.001)


def test_appendix_constants():
    mech = create_mechanism("dp-lsw", epsilon=5.0, delta=1e-3, constants="appendix", **ONE)
    assert mech.alpha == pytest.approx(15 * math.sqrt(2 * math.log(4e3)) / 5.0)
    assert mech.beta == pytest.approx(
        2 * math.log(2) * 5.0 / (5 * (1 + math.sqrt(2 * math.log(4e3))) ** 2))


# -- the §6 chain ----------------------------------------------------------------------------

def test_chain_values_by_dp_match_the_bellman_solve_and_closed_form():
    chain = ChainMDP(40, 0.5, 0.99)
    P, r = chain.transition_matrix()
    assert np.allclose(chain.values(), np.linalg.solve(np.eye(40) - 0.99 * P, r))
    k = 40 - np.arange(40)  # moves needed to reach the terminal state
    closed = (0.5 * 0.99 / (1 - 0.5 * 0.99)) ** k / 0.99
    assert np.allclose(chain.values(), closed)


def test_chain_statistics_match_its_trajectories():
    chain = ChainMDP(6, 0.5, 0.9)
    trajs = chain.trajectories(50, np.random.default_rng(9))
    direct = batch_statistics(parse_dataset(trajs, 6, 1.0), 0.9, 6)
    fast = chain.statistics(50, np.random.default_rng(9))
    assert direct.counts.tolist() == fast.counts.tolist()
    assert np.allclose(direct.sums, fast.sums)


def test_chain_monte_carlo_estimates_converge_to_the_exact_values():
    chain = ChainMDP(10, 0.5, 0.95)
    st = chain.statistics(40000, np.random.default_rng(13))
    p = chain.visit_probabilities()
    z = (st.counts - 40000 * p) / np.sqrt(40000 * p * (1 - p) + 1e-12)
    assert np.all(np.abs(z[:-1]) < 5) and st.counts[-1] == 40000
    se = 1.0 / np.sqrt(st.counts)  # returns lie in [0, 1]
    assert np.all(np.abs(st.returns - chain.values()) < 5 * se)
