"""The Gaussian mixing mechanisms: samplers against their laws, the noise-level logic of
Algorithm 1, the γ searches, the regression samplers against literal runs, bad input, and the
suite end to end at CI sample counts."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpaudit.suite.spec import load_suite
from dpaudit.cli.commands import main
from dpaudit.mechanisms.gaussian_mixing.baselines import (
    AdaSSP, ObjectivePerturbation, Sheffet, SheffetOurAnalysis, lemma1_gamma)
from dpaudit.mechanisms.gaussian_mixing.common import (matrix_normal_logpdf,
                                                       theorem1_epsilon)
from dpaudit.mechanisms.gaussian_mixing.gaussmix import (GaussMix,
                                                         ModifiedGaussMix)
from dpaudit.mechanisms.gaussian_mixing.regression import (GaussMixLogistic,
                                                           LinearMixing,
                                                           linear_mixing_gamma,
                                                           wishart)
from dpaudit.mechanisms.registry import create_mechanism, mechanism_names
from dpaudit.report.results_file import read_document
from tests.support import REPO

SUITE = REPO / "audits" / "gaussian_mixing.toml"
NAMES = ["gaussmix", "modified-gaussmix", "linear-mixing", "gaussmix-logistic", "adassp",
         "sheffet", "sheffet-our-analysis", "objective-perturbation"]


def test_registered_names_and_pairs_are_neighbours():
    assert set(NAMES) <= set(mechanism_names())
    for name in NAMES:
        mech = create_mechanism(name)
        assert mech.family == "gaussian_mixing" and mech.neighbouring
        for pair in mech.worst_case_pairs():
            ok, reason = mech.check_pair(pair.d0, pair.d1)
            assert ok, (name, pair.name, reason)
        mech.claim().epsilon(1e-3)


def test_gaussmix_rows_have_the_stated_covariance():
    X = np.array([[1.0, 0.0], [0.6, 0.8], [0.0, 0.5]])
    mech = GaussMix(k=3, sigma=1.2, lambda_bar=0.0, dim=2)
    out = mech.sample(X, 40000, np.random.default_rng(1)).reshape(-1, 2)
    cov = X.T @ X + 1.44 * np.eye(2)
    a, U = np.linalg.eigh(cov)
    for i in range(2):  # projections on the eigenvectors are N(0, aᵢ): KS on the squares
        q = (out @ U[:, i]) ** 2 / a[i]
        assert stats.kstest(q, "chi2", args=(1,)).pvalue > 1e-3
    assert abs(np.mean((out @ U[:, 0]) * (out @ U[:, 1]))) < 0.02  # uncorrelated
    # the white-box density is the product of k row densities
    o = out.reshape(-1, 6)[:5]
    rows = o.reshape(5, 3, 2)
    expected = stats.multivariate_normal(np.zeros(2), cov).logpdf(rows.reshape(-1, 2))
    assert np.allclose(mech.log_density(X, o), expected.reshape(5, 3).sum(axis=1))


def test_gaussmix_parameters():
    assert GaussMix(gamma=3.0, lambda_bar=1.0).sigma == pytest.approx(math.sqrt(2.0))
    assert GaussMix(sigma=3.0, gamma=None, lambda_bar=0.0, row_bound=2.0).gamma == \
        pytest.approx(9.0 / 4.0)
    with pytest.raises(ValueError, match="exactly one"):
        GaussMix(sigma=1.0, gamma=3.0)
    # a target (ε, δ): the smallest γ whose Lemma 1 + Prop. 1 bound meets it
    target = GaussMix(k=10, epsilon=1.0, delta=1e-5, lambda_bar=0.0)
    assert target.claim().epsilon(1e-5) <= 1.0 + 1e-9
    assert GaussMix(k=10, gamma=target.gamma * (1 - 1e-6), lambda_bar=0.0).claim().epsilon(
        1e-5) > 1.0
    assert target.sigma == pytest.approx(math.sqrt(target.gamma))
    with pytest.raises(ValueError, match="target"):
        GaussMix(epsilon=1.0)
    with pytest.raises(ValueError, match="γ = .* > 1"):
        GaussMix(sigma=0.5, gamma=None, lambda_bar=0.0)
    with pytest.raises(ValueError, match="5/2"):
        GaussMix(gamma=2.0, claim="corollary1")
    with pytest.raises(ValueError, match="claim"):
        GaussMix(claim="nope")
    with pytest.raises(ValueError, match="k must be"):
        GaussMix(k=0)


@pytest.mark.parametrize("dataset,match", [
    ([[1.0, float("nan")]], "NaN"),
    ([[1.0, float("inf")]], "infinite"),
    ([[2.0, 0.0]], "row bound"),
    ([1.0, 0.0], "n × d"),
    ("abc", "n × d"),
])
def test_gaussmix_bad_datasets(dataset, match):
    with pytest.raises(ValueError, match=match):
        GaussMix().sample(dataset, 3, np.random.default_rng(0))


def test_relation_needs_zero_out_and_the_scale_bound():
    rel = GaussMix(gamma=3.0, lambda_bar=1.0).relation()
    assert rel([[1, 0], [0, 1]], [[0, 0], [0, 1]])[0]
    assert not rel([[1, 0], [0, 1]], [[0.5, 0], [0, 1]])[0]          # not zeroed
    assert not rel([[1, 0], [0, 1]], [[0, 0], [0, 0]])[0]            # two rows differ
    ok, reason = rel([[1, 0], [0, 0.5]], [[0, 0], [0, 0.5]])
    assert not ok and "λ̄" in reason                                    # scale bound fails


def test_modified_gaussmix_noise_levels():
    C = 10.0
    printed = ModifiedGaussMix(k=5, gamma=30.0, eta=1.0, delta=1e-3, row_bound=C)
    normal = ModifiedGaussMix(k=5, gamma=30.0, eta=1.0, delta=1e-3, row_bound=C,
                              noise_level="normalised")
    lam = 4 * C * C
    z = printed.tau - 0.5  # λ̃ = λ − ηC²(τ − z) = 400 − 50 > γ
    assert printed.noise_sd(lam, z) == 0.0                         # printed: noise off
    # normalised: η̃² = γ − λ̃/C² = 30 − 3.5, so (λ + η̃²C²)/C² = γ + η(τ − z) ≥ γ
    eff = (lam + normal.noise_sd(lam, z) ** 2) / C ** 2
    assert eff == pytest.approx(30.0 + 0.5, rel=1e-12)
    low = printed.noise_sd(0.0, -3.0)                              # λ̃ = 0: η̃ = √γ
    assert low == pytest.approx(math.sqrt(30.0) * C)
    # first branch (γ ≤ τ): √γ·C by default, γ·C as printed
    first = ModifiedGaussMix(k=5, gamma=3.0, eta=1.0, delta=1e-3)
    assert first.gamma <= first.tau
    assert first.noise_sd(5.0, 0.0) == pytest.approx(math.sqrt(3.0))
    assert ModifiedGaussMix(k=5, gamma=3.0, eta=1.0, delta=1e-3,
                            first_branch="printed").noise_sd(5.0, 0.0) == pytest.approx(3.0)
    with pytest.raises(ValueError, match="5/2"):
        ModifiedGaussMix(gamma=2.0)
    with pytest.raises(ValueError, match="γ/√k"):
        ModifiedGaussMix(k=4, gamma=10.0, eta=1.0, claim="closed-form")


def test_modified_gaussmix_sampler_and_density_agree():
    mech = ModifiedGaussMix(k=4, gamma=30.0, eta=1.0, delta=1e-2, row_bound=10.0)
    X = np.array([[10.0], [10.0]])
    out = mech.sample(X, 60000, np.random.default_rng(4))
    r = np.sum(out ** 2, axis=1)
    # the law of ‖M‖² is the χ²₄ scale mixture of noise_mixture: compare CDFs at a few points
    logw, v = mech.noise_mixture(200.0, nodes=200)
    w = np.exp(logw)
    for q in np.quantile(r, [0.1, 0.5, 0.9]):
        cdf = float(np.sum(w * stats.chi2.cdf(q / (200.0 + v), 4)))
        assert abs(cdf - np.mean(r <= q)) < 0.01
    # the log-density integrates the same mixture
    o = out[:3]
    mix = np.array([np.log(np.sum(w * np.exp([matrix_normal_logpdf(o[i:i + 1], np.array(
        [[200.0 + vv]]), 4)[0] for vv in v]))) for i in range(3)])
    assert np.allclose(mech.log_density(X, o), mix, rtol=1e-6)


def test_theorem1_epsilon_and_the_gamma_searches():
    e1, alpha = theorem1_epsilon(2.0, 20.0, 10, 1e-3)
    assert 1 < alpha < 20 and e1 > math.sqrt(2 * math.log(3750)) / 2.0
    g = linear_mixing_gamma(1.0, 1e-3, 20)
    value = lambda gg: theorem1_epsilon(gg / math.sqrt(20), gg, 20, 1e-3)[0]  # noqa: E731
    assert value(g) <= 1.0 < value(g * (1 - 1e-6))                 # the smallest γ
    assert value(2 * g) < value(g)                                 # decreasing
    g5 = lemma1_gamma(1.0, 1e-3, 20)
    assert 1 < g5 < g


def test_wishart_sampler_has_the_right_law():
    rng = np.random.default_rng(2)
    G = np.array([[2.0, 0.5], [0.5, 1.0]])
    for k in (1, 5):                       # k < p uses the direct draw, k ≥ p Bartlett
        W = wishart(G, 0.3, k, 40000, rng)
        assert np.allclose(W.mean(axis=0), k * (G + 0.3 * np.eye(2)), rtol=0.03)
        direct = rng.standard_normal((40000, k, 2)) @ np.linalg.cholesky(G + 0.3 * np.eye(2)).T
        W2 = np.swapaxes(direct, 1, 2) @ direct
        assert stats.ks_2samp(W[:, 0, 1], W2[:, 0, 1]).pvalue > 1e-3


@pytest.mark.slow
@pytest.mark.parametrize("mech", [
    LinearMixing(epsilon=2.0, delta=1e-2, k=6),
    Sheffet(epsilon=4.0, delta=1e-2, k=6),
    SheffetOurAnalysis(epsilon=4.0, delta=1e-2, k=6),
])
def test_vectorised_regression_samplers_match_literal_runs(mech):
    J = np.array([[1.0, 0.2], [0.5, 0.4], [0.8, -0.3], [0.0, 1.0]])
    rng = np.random.default_rng(7)
    fast = mech.sample(J, 3000, rng)[:, 0]
    literal = np.array([mech.run_literal(J, rng)[0] for _ in range(3000)])
    assert stats.ks_2samp(fast, literal).pvalue > 1e-3


def test_adassp_and_objective_perturbation():
    J = np.array([[1.0, 1.0], [0.5, 0.4], [0.8, 0.9], [1.0, -1.0]])
    ada = AdaSSP(epsilon=1e4, delta=1e-3)           # almost no noise: θ ≈ OLS
    theta = ada.sample(J, 200, np.random.default_rng(0))
    ols = np.linalg.lstsq(J[:, :1], J[:, 1], rcond=None)[0]
    assert np.median(theta) == pytest.approx(ols[0], abs=0.05)
    stats_mech = AdaSSP(epsilon=1.0, delta=1e-3, release="statistics")
    pair = stats_mech.worst_case_pairs()[1]
    mu = 1.0 / math.sqrt(3 * math.log(6 / 1e-3))       # certificate entry adassp_mu
    from dpaudit.exact.profile import GaussianShiftProfile
    assert stats_mech.exact_epsilon(pair.d0, pair.d1, 1e-3) == pytest.approx(
        GaussianShiftProfile(mu).epsilon(1e-3), rel=1e-9)
    op = ObjectivePerturbation(epsilon=1.0, delta=1e-3, dim=2)
    L = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, -1.0], [0.6, 0.8, 1.0]])
    b = np.random.default_rng(1).normal(size=(50, 2)) * op.sigma
    th = op.minimise(L[:, :2], L[:, 2], b)
    A = L[:, 2:3] * L[:, :2]
    p = 1 / (1 + np.exp(th @ A.T))
    grad = -(p @ A) + b + op.reg * th
    assert np.max(np.abs(grad)) < 1e-8
    with pytest.raises(ValueError, match="label"):
        op.sample([[0.5, 0.5, 0.3]], 2, np.random.default_rng(0))
    with pytest.raises(ValueError, match="x_bound"):
        ada.sample([[2.0, 0.0]], 2, np.random.default_rng(0))
    with pytest.raises(ValueError, match="y_bound"):
        ada.sample([[1.0, 3.0]], 2, np.random.default_rng(0))


def test_logistic_surrogate_pipelines():
    g = GaussMixLogistic(epsilon=2.0, delta=1e-2, k=8)
    b0, b1, b2 = g.coefficients
    assert b1 > 0 > b2 and g.scale > 0        # concave fit of the log-likelihood
    J = np.array([[1.0, 1.0], [0.5, -1.0], [0.8, 1.0]])
    a = g.sample(J, 5000, np.random.default_rng(3))
    other = GaussMixLogistic(epsilon=2.0, delta=1e-2, k=8, pipeline="section-5.2")
    assert other.cy == pytest.approx(abs(g.scale)) and other.gamma == g.gamma
    b = other.sample(J, 5000, np.random.default_rng(3))
    assert np.isfinite(a).all() and np.isfinite(b).all()


@pytest.mark.parametrize("name,params,match", [
    ("linear-mixing", {"epsilon": 0.0}, "epsilon"),
    ("linear-mixing", {"delta": 1.0}, "delta"),
    ("sheffet", {"noise": "x"}, "noise"),
    ("adassp", {"release": "x"}, "release"),
    ("gaussmix-logistic", {"pipeline": "x"}, "pipeline"),
])
def test_bad_parameters(name, params, match):
    with pytest.raises(ValueError, match=match):
        create_mechanism(name, **params)


@pytest.mark.slow
def test_suite_parses_and_its_violations_are_certified(tmp_path):
    suite = load_suite(SUITE)
    assert {a.mechanism for a in suite.audits} == set(NAMES)
    # the two expected violations, end to end through the runner (CI sample counts)
    small = tmp_path / "violations.toml"
    small.write_text(
        '[suite]\nname = "gm-ci"\nseed = 7\n'
        '[[audit]]\nname = "closed-form"\nmechanism = "gaussmix"\n'
        'params = { k = 1, gamma = 3.0, claim = "closed-form", dim = 2 }\n'
        'delta = 1e-3\ndistinguisher = "statistics"\nsamples = 1000000\nexpect = "violation"\n'
        '[[audit]]\nname = "printed"\nmechanism = "modified-gaussmix"\n'
        'params = { k = 50, gamma = 200.0, eta = 1.0, delta = 1e-2, row_bound = 100.0, '
        'copies = 2 }\n'
        'delta = 1e-2\ndistinguisher = "statistics"\nsamples = 60000\nexpect = "violation"\n'
        '[[audit]]\nname = "normalised"\nmechanism = "modified-gaussmix"\n'
        'params = { k = 50, gamma = 200.0, eta = 1.0, delta = 1e-2, row_bound = 100.0, '
        'copies = 2, noise_level = "normalised" }\n'
        'delta = 1e-2\ndistinguisher = "statistics"\nsamples = 20000\n',
        encoding="utf-8")
    out = tmp_path / "out"
    assert main(["run", str(small), "--out", str(out), "--workers", "1"]) == 0
    report = read_document(out / "results.json")
    assert report["summary"]["unmet_expectations"] == []
    for r in report["audits"]:
        if r["exact_epsilon"] not in (None, "inf"):
            tol = 1e-3 if r["mechanism"] == "modified-gaussmix" else 1e-9
            assert r["epsilon_lower_bound"] <= r["exact_epsilon"] + tol
            assert r["white_box_epsilon_lower_bound"] <= r["exact_epsilon"] + tol
