"""The posterior's claim (Lemmas 4.2-4.3 from the certificate), posterior sampling, input
validation, and Propose-Test-Sample (pass probability, exact ε, both variants)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from scipy.special import ndtr

from dpaudit.exact.renyi import gaussian_renyi
from dpaudit.mechanisms.registry import create_mechanism, mechanism_names
from dpaudit.mechanisms.sgld.claim import (LEMMA_4_2, LEMMA_4_3, paper_order,
                                           posterior_claim)

PAPER = dict(n=1149019, c=1165165.0, alpha=0.1, beta=1.0, x_h=1.8, x_l=0.9, gamma1=0.1)


def test_names_are_registered():
    assert {"sgld", "posterior", "propose-test-sample",
            "propose-test-sample-sgld"} <= set(mechanism_names())


def test_paper_posterior_claim_1_6_at_0_01():
    """Figure 1's caption: the posterior is (1.6, 0.01)-DP at the paper's parameters.  Lemma
    4.3 with Claim D.29's order ν = 1 + 2 ln(1/δ)/1.6 gives 0.806 ≤ 1.6; the best order 0.140."""
    claim = posterior_claim(**PAPER)
    nu = paper_order(1.6, 0.01)
    assert nu == pytest.approx(6.756462732, rel=1e-9)
    e1 = LEMMA_4_2(nu=nu, **PAPER)
    assert LEMMA_4_3(epsilon_1=e1, delta=0.01, nu=nu) == pytest.approx(0.80643, abs=1e-4)
    assert claim.epsilon(0.01) == pytest.approx(0.14035, abs=1e-4)
    assert claim.best_order(0.01) == pytest.approx(63.95, abs=0.05)
    assert claim.cks_epsilon(0.01) < claim.epsilon(0.01)


def test_claim_refuses_parameters_without_an_order():
    with pytest.raises(ValueError, match="no Rényi order"):
        posterior_claim(n=50, c=50.0, alpha=1.0, beta=1.0, x_h=1.8, x_l=0.9, gamma1=0.1)


def test_lemma_4_2_bounds_the_exact_divergence_on_the_audited_domain():
    """A sanity check of the given Lemma 4.2 on the audited instance: its ε₁(ν) is above the
    exact Rényi divergence (both directions) of the paper's pair and of random domain pairs."""
    mech = create_mechanism("posterior")
    claim = mech.claim()
    rng = np.random.default_rng(0)
    d1 = mech.validate_dataset(mech.worst_case_pairs()[0].d0)
    pairs = [(d1, mech.validate_dataset(mech.worst_case_pairs()[0].d1))]
    for _ in range(20):
        x = rng.uniform(mech.x_l, mech.x_h, mech.n)
        r = mech.c + rng.uniform(-1, 1, mech.n) * mech.n ** mech.gamma1
        a = np.stack([x, r * x], axis=1)
        b = a.copy()
        xb = rng.uniform(mech.x_l, mech.x_h)
        b[-1] = [xb, xb * (mech.c + rng.uniform(-1, 1) * mech.n ** mech.gamma1)]
        pairs.append((a, b))
    for nu in (2.01, 4.0, 5.7, 20.0):
        for a, b in pairs:
            assert mech.exact_renyi(a, b, nu) <= claim.rdp(nu)


def test_posterior_sampler_density_and_exact_curve():
    mech = create_mechanism("posterior")
    p = mech.worst_case_pairs()[0]
    mu, var = mech.posterior_law(p.d1)
    x = mech.sample(p.d1, 20000, np.random.default_rng(1))
    assert stats.kstest(x, lambda t: ndtr((t - mu) / math.sqrt(var))).pvalue > 1e-3
    assert mech.log_density(p.d1, [mu])[0] == pytest.approx(-0.5 * math.log(2 * math.pi * var))
    (m0, v0), (m1, v1) = mech.posterior_law(p.d0), mech.posterior_law(p.d1)
    assert mech.exact_renyi(p.d0, p.d1, 3.0) == pytest.approx(
        max(gaussian_renyi(m0, v0, m1, v1, 3.0), gaussian_renyi(m1, v1, m0, v0, 3.0)))
    assert 0 <= mech.exact_epsilon(p.d0, p.d1, 0.01) < 1e-3 < mech.claim().epsilon(0.01)


@pytest.mark.parametrize("dataset, match", [
    ([[1.8, 3600.0]] * 1999 + [[float("nan"), 1.0]], "not finite"),
    ([[1.8, 3600.0]] * 1999, "1999 records"),
    ([[1.8, 3600.0]] * 1999 + [[2.0, 4000.0]], "outside"),
    ([[1.8, 3600.0]] * 1999 + [[1.0, 1.0]], "exceeds"),
    ([[1.8, 3600.0]] * 1999 + [[1.0, -1.0]], "> 0"),
    ([1.0, 2.0], r"\(n, 2\)"),
    ("data", "list"),
])
def test_bad_datasets_are_refused_clearly(dataset, match):
    for name in ("sgld", "posterior"):
        with pytest.raises(ValueError, match=match):
            create_mechanism(name).validate_dataset(dataset)


@pytest.mark.parametrize("params, match", [
    ({"minibatch": "random"}, "minibatch"), ({"batch_size": 3}, "divide"),
    ({"method": "fast"}, "method"), ({"method": "exact", "minibatch": "uniform"}, "cyclic"),
    ({"steps": -1}, "steps"), ({"steps": 1.5}, "integer"), ({"gamma1": 0.5}, "gamma1"),
    ({"x_l": 2.0}, "x_l"), ({"alpha": 0.0}, "alpha"), ({"step_size": -1.0}, "step_size"),
])
def test_bad_parameters_are_refused_clearly(params, match):
    with pytest.raises(ValueError, match=match):
        create_mechanism("sgld", **params)


def test_pair_is_neighbouring_and_sized():
    mech = create_mechanism("sgld")
    p = mech.worst_case_pairs()[0]
    assert mech.check_pair(p.d0, p.d1) == (True, "")
    assert mech.validate_dataset(p.d1).shape == (2000, 2)
    other = create_mechanism("sgld", x_l=1.0)
    with pytest.raises(ValueError, match="x_h/2"):
        other.worst_case_pairs()


# -- Propose-Test-Sample -----------------------------------------------------------------------

SMALL_PTS = dict(n1=3000, rho3=1.02)


@pytest.mark.slow
def test_pts_pass_probability_matches_the_algorithm():
    mech = create_mechanism("propose-test-sample", **SMALL_PTS)
    p = mech.worst_case_pairs()[0]
    prob, err = mech.pass_probability(*mech._common_ratio(p.d0))
    assert err < 1e-9
    for d in (p.d0, p.d1):
        x = mech.sample(d, 40000, np.random.default_rng(2))
        passed = np.isfinite(x).sum()
        # two-sided binomial test at a fixed seed
        assert stats.binomtest(int(passed), x.size, prob).pvalue > 1e-3


@pytest.mark.slow
def test_pts_exact_epsilon_is_the_law_at_rescaled_delta():
    mech = create_mechanism("propose-test-sample-sgld")
    p = mech.worst_case_pairs()[0]
    prob, _ = mech.pass_probability(*mech._common_ratio(p.d0))
    law = mech.law_profile(p.d0, p.d1)
    eps = mech.exact_epsilon(p.d0, p.d1, 0.02)
    assert law.delta(eps) == pytest.approx(0.02 / prob, rel=1e-6)
    assert eps > mech.claim().epsilon(0.02) == 5.0        # Claim 4.2: the claim fails
    post = create_mechanism("propose-test-sample")
    assert post.exact_epsilon(p.d0, p.d1, 0.02) < 5.0     # Claim 4.1 holds for this pair
    assert mech.steps_for(100000) == 38 * 100000


def test_pts_handles_general_datasets_and_bad_input():
    mech = create_mechanism("propose-test-sample", n1=200)
    rng = np.random.default_rng(4)
    data = np.stack([rng.uniform(-1, 3, 200), rng.normal(200 ** 1.02, 5, 200)], axis=1)
    x = mech.sample(data, 500, rng)
    assert x.shape == (500,) and np.all(np.isfinite(x) | (x == -np.inf))
    assert mech.exact_epsilon(data, data[::-1], 0.02) is None
    with pytest.raises(ValueError, match="not finite"):
        mech.validate_dataset([[1.0, float("nan")], [1.0, 2.0]])
    with pytest.raises(ValueError, match="rho1"):
        create_mechanism("propose-test-sample", rho1=1.6)
    with pytest.raises(ValueError, match="β"):
        create_mechanism("propose-test-sample", beta=1.0)
    with pytest.raises(ValueError, match="steps"):
        create_mechanism("propose-test-sample-sgld", steps=-3)
