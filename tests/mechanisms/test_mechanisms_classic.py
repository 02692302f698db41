"""Classic mechanisms and the two known-bad Laplace variants: calibration from the sympy
formulas, sample laws, input validation, exact ε of the worst pairs."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dpaudit.claims import AllOf, ApproxDP, PureDP, ZCDP
from dpaudit.exact import gaussian_delta, laplace_twofold_delta
from dpaudit.mechanisms import classic
from dpaudit.mechanisms.classic import common as classic_formulas
from dpaudit.mechanisms.known_bad import mechanisms as known_bad
from dpaudit.mechanisms.registry import get_mechanism_class

NAMES = {
    "laplace": classic.LaplaceMechanism,
    "gaussian": classic.GaussianMechanism,
    "randomized-response": classic.RandomizedResponse,
    "geometric": classic.GeometricMechanism,
    "exponential": classic.ExponentialMechanism,
    "laplace-scale-epsilon": known_bad.LaplaceScaleEpsilon,
    "double-spending": known_bad.DoubleSpending,
}


def rng(seed=0):
    return np.random.default_rng(seed)


def test_registry_names_and_flags():
    for name, cls in NAMES.items():
        assert get_mechanism_class(name) is cls
        mech = cls()
        assert mech.name == name
        assert mech.neighbouring and "\n" not in mech.neighbouring
        assert mech.known_bad == (name in ("laplace-scale-epsilon", "double-spending"))
        assert mech.family == ("known_bad" if mech.known_bad else "classic")
        assert (mech.true_epsilon() is not None) == mech.known_bad
        assert mech.describe()["claim"]["text"]
        for pair in mech.worst_case_pairs():  # plain lists, valid datasets
            assert isinstance(pair.d0, list) and isinstance(pair.d1, list)
            mech.validate_dataset(pair.d0), mech.validate_dataset(pair.d1)


# -- calibration comes from the symbolic formulas ---------------------------------------------
def test_laplace_scale_from_formula_and_claim_expression():
    m = classic.LaplaceMechanism(epsilon=0.5, sensitivity=2.0)
    assert m.scale == pytest.approx(4.0, rel=1e-15)
    c = m.claim()
    assert isinstance(c, PureDP) and c.eps == 0.5
    (eq,) = c.expression
    assert eq.lhs == sp.Symbol("b") and eq.rhs == classic_formulas.LAPLACE_SCALE.expression
    subs = {sp.Symbol(k): v for k, v in c.substitutions.items() if k != "b"}
    assert set(c.substitutions) == {"epsilon", "Delta", "b"}
    assert float(eq.rhs.subs(subs)) == pytest.approx(m.scale, rel=1e-15)
    assert c.to_dict()["substitutions"]["b"] == m.scale


def test_gaussian_classical_sigma_and_zcdp():
    m = classic.GaussianMechanism(epsilon=0.5, delta=1e-5, sensitivity=2.0,
                                  calibration="classical")
    assert m.sigma == pytest.approx(2.0 * math.sqrt(2 * math.log(1.25e5)) / 0.5, rel=1e-14)
    c = m.claim()
    assert isinstance(c, AllOf)
    approx, zcdp = c.claims
    assert isinstance(approx, ApproxDP) and (approx.eps, approx.delta) == (0.5, 1e-5)
    assert approx.expression[0].rhs == classic_formulas.GAUSSIAN_SIGMA_CLASSICAL.expression
    assert zcdp.expression[0].rhs == classic_formulas.GAUSSIAN_RHO.expression
    assert isinstance(zcdp, ZCDP) and zcdp.rho == pytest.approx(4.0 / (2 * m.sigma**2))
    # both claims hold, so ε(δ) is the better of the two: at δ = 1e-5 the zCDP claim, converted
    # by Canonne–Kamath–Steinke, beats the classical (0.5, 1e-5) calibration
    from dpaudit.claims.conversions import zcdp_to_dp
    assert c.epsilon(1e-5) == pytest.approx(min(0.5, zcdp_to_dp(zcdp.rho, 1e-5)), rel=1e-12)
    assert c.epsilon(1e-5) < 0.5
    assert c.epsilon(0.1) == pytest.approx(zcdp_to_dp(zcdp.rho, 0.1), rel=1e-12)


def _norm_delta(sigma, eps, sens):
    """Balle–Wang condition written with scipy.stats (independent of the sympy expression)."""
    return (stats.norm.cdf(sens / (2 * sigma) - eps * sigma / sens)
            - math.exp(eps) * stats.norm.cdf(-sens / (2 * sigma) - eps * sigma / sens))


@pytest.mark.parametrize("eps,delta,sens", [(1.0, 1e-5, 1.0), (0.5, 1e-6, 3.0), (4.0, 1e-3, 1.0)])
def test_gaussian_analytic_sigma_is_smallest_valid(eps, delta, sens):
    m = classic.GaussianMechanism(epsilon=eps, delta=delta, sensitivity=sens)
    assert _norm_delta(m.sigma, eps, sens) <= delta * (1 + 1e-9)
    assert _norm_delta(m.sigma * (1 - 1e-6), eps, sens) > delta
    approx = m.claim().claims[0]
    assert approx.expression[0].rhs == classic_formulas.GAUSSIAN_ANALYTIC_DELTA.expression
    assert approx.substitutions["delta_sigma"] <= delta
    if eps < 1:
        classical = classic.GaussianMechanism(epsilon=eps, delta=delta, sensitivity=sens,
                                              calibration="classical")
        assert m.sigma < classical.sigma


def test_gaussian_analytic_reference_value():
    # Balle & Wang 2018: ε = 1, δ = 1e-5, Δ = 1 needs σ ≈ 3.73 (classical would not apply)
    assert classic.GaussianMechanism(epsilon=1.0, delta=1e-5).sigma == pytest.approx(3.7306,
                                                                                    abs=1e-4)


# -- sample laws ------------------------------------------------------------------------------
def _within_5se(values, mean):
    return abs(values.mean() - mean) < 5 * values.std() / math.sqrt(values.size)


@pytest.mark.parametrize("cls,eps,sens,scale", [
    (classic.LaplaceMechanism, 0.5, 2.0, 4.0),
    (known_bad.LaplaceScaleEpsilon, 0.1, 1.0, 0.1),   # the bug: scale ε, not Δ/ε = 10
    (known_bad.LaplaceScaleEpsilon, 2.0, 1.0, 2.0),
])
def test_laplace_samples_have_the_formula_scale(cls, eps, sens, scale):
    m = cls(epsilon=eps, sensitivity=sens)
    data = [0.0, sens, sens / 2]
    y = m.sample(data, 200_000, rng(1))
    assert y.shape == (200_000,) and y.dtype == np.float64
    dev = np.abs(y - 1.5 * sens)  # |Lap(b)| ~ Exp(mean b)
    assert _within_5se(dev, scale)
    assert _within_5se(y, 1.5 * sens)


def test_gaussian_samples_have_sigma():
    m = classic.GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0)
    y = m.sample([1.0, 0.5], 200_000, rng(2))
    assert _within_5se(y, 1.5)
    sq = (y - 1.5) ** 2
    assert _within_5se(sq, m.sigma**2)


def _chisquare_pvalue(counts, probs):
    return stats.chisquare(counts, np.asarray(probs) * counts.sum()).pvalue


@pytest.mark.parametrize("k,value", [(2, 1), (5, 3)])
def test_randomized_response_frequencies(k, value):
    eps = 1.0
    m = classic.RandomizedResponse(epsilon=eps, k=k)
    y = m.sample(value, 100_000, rng(3))
    assert y.dtype == np.int64 and set(np.unique(y)) <= set(range(k))
    counts = np.bincount(y, minlength=k)
    probs = np.full(k, 1 / (math.exp(eps) + k - 1))
    probs[value] = math.exp(eps) / (math.exp(eps) + k - 1)
    assert _chisquare_pvalue(counts, probs) > 1e-4
    # power check: the law at ε·1.2 is rejected, so the test can fail
    wrong = np.full(k, 1 / (math.exp(1.2 * eps) + k - 1))
    wrong[value] = 1 - wrong.sum() + wrong[value]
    assert _chisquare_pvalue(counts, wrong) < 1e-6
    assert np.array_equal(m.sample([value], 10, rng(4)), m.sample(value, 10, rng(4)))


def _two_sided_geometric_bins(alpha, lo, hi):
    z = np.arange(lo, hi + 1)
    probs = (1 - alpha) / (1 + alpha) * alpha ** np.abs(z)
    tail = alpha ** (hi + 1) / (1 + alpha)  # P(Z ≥ hi + 1) = P(Z ≤ −(hi + 1))
    return np.concatenate(([tail], probs, [tail]))


@pytest.mark.parametrize("eps,sens", [(1.0, 1), (0.6, 3)])
def test_geometric_pmf(eps, sens):
    m = classic.GeometricMechanism(epsilon=eps, sensitivity=sens)
    q = 2 * sens
    z = m.sample([0, sens, sens], 200_000, rng(5)) - q
    assert z.dtype == np.int64
    lim = 12
    counts = np.concatenate(([np.sum(z < -lim)], np.bincount(np.clip(z, -lim, lim) + lim,
                                                              minlength=2 * lim + 1)[:],
                             [np.sum(z > lim)]))
    counts[1] -= counts[0]
    counts[-2] -= counts[-1]
    alpha = math.exp(-eps / sens)
    assert _chisquare_pvalue(counts, _two_sided_geometric_bins(alpha, -lim, lim)) > 1e-4
    wrong = _two_sided_geometric_bins(math.exp(-1.1 * eps / sens), -lim, lim)
    assert _chisquare_pvalue(counts, wrong) < 1e-6


def test_exponential_frequencies_and_chunking(monkeypatch):
    m = classic.ExponentialMechanism(epsilon=2.0, sensitivity=0.5)
    u = [0.0, 0.5, 1.0, -1.0]
    w = np.exp(2.0 / (2 * 0.5) * np.array(u))
    probs = w / w.sum()
    monkeypatch.setattr(classic.ExponentialMechanism, "_CHUNK", 4 * 1000 + 3)  # many blocks
    y = m.sample(u, 100_000, rng(6))
    assert y.shape == (100_000,) and y.dtype == np.int64
    counts = np.bincount(y, minlength=4)
    assert _chisquare_pvalue(counts, probs) > 1e-4
    flat = np.exp(1.0 * np.array(u)) / np.exp(1.0 * np.array(u)).sum()  # β halved
    assert _chisquare_pvalue(counts, flat) < 1e-6
    assert m.sample(u, 0, rng(0)).shape == (0,)


def test_double_spending_two_independent_releases():
    m = known_bad.DoubleSpending(epsilon=0.5)
    y = m.sample([1.0, 1.0], 200_000, rng(7))
    assert y.shape == (200_000, 2)
    for col in y.T:
        assert _within_5se(np.abs(col - 2.0), 2.0)  # Lap(Δ/ε = 2)
    r = np.corrcoef(y.T)[0, 1]
    assert abs(r) < 5 / math.sqrt(y.shape[0])


def test_double_spending_exact_curve_matches_its_own_samples():
    """Privacy-loss Monte Carlo from the sampler and log_density agrees with the exact δ₂."""
    m = known_bad.DoubleSpending(epsilon=1.0)
    d0, d1 = m.worst_case_pairs()[0].d0, m.worst_case_pairs()[0].d1
    y = m.sample(d0, 400_000, rng(8))
    loss = m.log_density(d0, y) - m.log_density(d1, y)
    for eps in (1.0, 1.8):
        v = np.maximum(0.0, -np.expm1(eps - loss))
        assert _within_5se(v, laplace_twofold_delta(eps, 1.0, m.scale))


def test_log_density_ratio_bounded_by_exact_pure_epsilon():
    r = rng(9)
    for m in (classic.LaplaceMechanism(epsilon=0.7), classic.GeometricMechanism(epsilon=0.7),
              classic.RandomizedResponse(epsilon=0.7, k=3), classic.ExponentialMechanism(0.7)):
        for pair in m.worst_case_pairs():
            y = m.sample(pair.d0, 20_000, r)
            loss = np.abs(m.log_density(pair.d0, y) - m.log_density(pair.d1, y))
            exact = m.exact_epsilon(pair.d0, pair.d1, 0.0)
            assert loss.max() <= exact + 1e-9
            assert loss.max() >= exact - 1e-6  # the worst outcome is common enough to be seen


# -- exact ε of the worst pairs ---------------------------------------------------------------
def _only_pair(m):
    (pair,) = m.worst_case_pairs()
    return pair.d0, pair.d1


def test_exact_epsilon_worst_pairs_correct_mechanisms():
    e = 0.8
    m = classic.LaplaceMechanism(epsilon=e, sensitivity=2.0)
    d0, d1 = _only_pair(m)
    assert m.exact_epsilon(d0, d1) == pytest.approx(e, rel=1e-14)
    assert m.exact_epsilon(d0, d1, 1e-3) == pytest.approx(e + 2 * math.log1p(-1e-3))

    g = classic.GaussianMechanism(epsilon=e, delta=1e-6)
    d0, d1 = _only_pair(g)
    assert g.exact_epsilon(d0, d1, 1e-6) == pytest.approx(e, abs=1e-9)  # analytic is tight
    assert g.exact_epsilon(d0, d1, 0.0) == math.inf
    gc = classic.GaussianMechanism(epsilon=e, delta=1e-6, calibration="classical")
    assert gc.exact_epsilon(d0, d1, 1e-6) < 0.9 * e  # classical is slack
    assert gaussian_delta(g.exact_epsilon(d0, d1, 1e-6), 1 / g.sigma) <= 1e-6 * (1 + 1e-9)

    for k in (2, 7):
        rr = classic.RandomizedResponse(epsilon=e, k=k)
        d0, d1 = _only_pair(rr)
        assert rr.exact_epsilon(d0, d1) == pytest.approx(e, rel=1e-12)
        p, q = math.exp(e) / (math.exp(e) + k - 1), 1 / (math.exp(e) + k - 1)
        assert rr.exact_epsilon(d0, d1, 0.01) == pytest.approx(math.log((p - 0.01) / q))

    for sens in (1, 4):
        geo = classic.GeometricMechanism(epsilon=e, sensitivity=sens)
        d0, d1 = _only_pair(geo)
        assert geo.exact_epsilon(d0, d1) == pytest.approx(e, rel=1e-12)
        assert geo.exact_epsilon([0, 0], [0, 0]) == 0.0
        assert geo.exact_epsilon([0], [sens, sens]) == pytest.approx(2 * e)  # not neighbours


def test_exact_epsilon_exponential_pairs():
    e = 1.0
    m = classic.ExponentialMechanism(epsilon=e)
    got = {p.name: m.exact_epsilon(p.d0, p.d1) for p in m.worst_case_pairs()}
    x = math.exp(e)
    assert got["m2-spread"] == pytest.approx(math.log((x + 1) / 2), rel=1e-12)
    assert got["m10-spread"] == pytest.approx(max(math.log(10 * x / (x + 9)),
                                                  math.log((x + 9) / 10)), rel=1e-12)
    assert got["m2-far"] == pytest.approx(math.log((1 + 100 * x) / 101), rel=1e-5)
    assert got["m2-spread"] < got["m10-spread"] < got["m2-far"] < e
    with pytest.raises(ValueError, match="same length"):
        m.exact_epsilon([0.0, 0.0], [0.0, 0.0, 0.0])


@settings(max_examples=40, deadline=None)
@given(u=st.lists(st.floats(-5, 5), min_size=2, max_size=6),
       shift=st.lists(st.floats(-1, 1), min_size=6, max_size=6),
       eps=st.floats(0.1, 5.0))
def test_exponential_exact_epsilon_never_exceeds_claim(u, shift, eps):
    m = classic.ExponentialMechanism(epsilon=eps)
    u1 = [a + b for a, b in zip(u, shift)]  # ‖u − u′‖∞ ≤ Δ = 1
    assert m.exact_epsilon(u, u1) <= m.claim().epsilon(0.0) + 1e-9


def test_known_bad_true_epsilon_and_exact():
    bad = known_bad.LaplaceScaleEpsilon()  # default ε = 0.1 → true 10 (NoisyHist2)
    assert bad.true_epsilon() == pytest.approx(10.0)
    d0, d1 = _only_pair(bad)
    assert bad.exact_epsilon(d0, d1) == pytest.approx(10.0)
    assert bad.claim().epsilon(0.0) == 0.1
    neg = known_bad.LaplaceScaleEpsilon(epsilon=1.5)  # negative control: 1/1.5 < 1.5
    assert neg.true_epsilon() == pytest.approx(1 / 1.5)
    assert neg.exact_epsilon(d0, d1) < neg.claim().epsilon(0.0)
    assert known_bad.LaplaceScaleEpsilon(epsilon=0.5, sensitivity=2.0).true_epsilon() == 4.0

    ds = known_bad.DoubleSpending(epsilon=0.7, sensitivity=3.0)
    assert ds.true_epsilon() == pytest.approx(1.4)
    d0, d1 = _only_pair(ds)
    assert ds.exact_epsilon(d0, d1) == pytest.approx(1.4)
    assert ds.exact_epsilon(d0, d1, 1e-6) > ds.claim().epsilon(1e-6)
    assert ds.exact_epsilon(d0, d1, 1e-6) == pytest.approx(1.4, abs=1e-5)


# -- bad input --------------------------------------------------------------------------------
BAD_DATASETS = [
    ("laplace", [0.0, float("nan")], "NaN"),
    ("laplace", [0.0, 1.5], r"1\.5 at index 1 is outside"),
    ("laplace", [[0.0, 1.0]], "1-D"),
    ("laplace", ["a", "b"], "only numbers"),
    ("laplace", "0.5", "1-D sequence"),
    ("gaussian", [0.0, float("inf")], "infinite"),
    ("gaussian", [-0.1], "outside"),
    ("geometric", [0, 0.5], "not an integer"),
    ("geometric", [0, 2], "outside"),
    ("randomized-response", 2, "outside"),
    ("randomized-response", [0, 1], "length-1"),
    ("randomized-response", 0.5, "not an integer"),
    ("randomized-response", "1", "integer"),
    ("exponential", [1.0], "at least 2"),
    ("exponential", [0.0, float("nan")], "NaN"),
    ("double-spending", [2.0], "outside"),
    ("laplace-scale-epsilon", [float("nan")], "NaN"),
]


@pytest.mark.parametrize("name,dataset,match", BAD_DATASETS)
def test_bad_dataset_raises_helpful_error(name, dataset, match):
    m = NAMES[name]()
    with pytest.raises(ValueError, match=match):
        m.validate_dataset(dataset)
    with pytest.raises(ValueError, match=match):
        m.sample(dataset, 10, rng())


BAD_PARAMS = [
    ("laplace", dict(epsilon=0.0), "epsilon"),
    ("laplace", dict(epsilon=-1.0), "epsilon"),
    ("laplace", dict(sensitivity=0.0), "sensitivity"),
    ("laplace", dict(epsilon=float("nan")), "epsilon"),
    ("gaussian", dict(delta=0.0), "delta"),
    ("gaussian", dict(delta=1.0), "delta"),
    ("gaussian", dict(epsilon=1.0, calibration="classical"), "epsilon < 1"),
    ("gaussian", dict(calibration="renyi"), "calibration"),
    ("randomized-response", dict(k=1), "k"),
    ("randomized-response", dict(k=2.5), "k"),
    ("geometric", dict(sensitivity=1.5), "sensitivity"),
    ("exponential", dict(sensitivity=-2.0), "sensitivity"),
    ("laplace-scale-epsilon", dict(epsilon=0.0), "epsilon"),
    ("double-spending", dict(sensitivity=float("inf")), "sensitivity"),
]


@pytest.mark.parametrize("name,params,match", BAD_PARAMS)
def test_bad_parameters_raise_naming_the_parameter(name, params, match):
    with pytest.raises(ValueError, match=match):
        NAMES[name](**params)


def test_bad_sample_arguments():
    m = classic.LaplaceMechanism()
    with pytest.raises(ValueError, match="n must be"):
        m.sample([0.0], -1, rng())
    with pytest.raises(TypeError, match="Generator"):
        m.sample([0.0], 5, 42)
    assert m.sample([], 3, rng()).shape == (3,)  # the empty dataset is valid (sum 0)


@pytest.mark.parametrize("name", sorted(NAMES))
def test_validated_datasets_are_accepted_again(name):
    """The runner passes validate_dataset(d) back into sample/exact_epsilon: must round-trip."""
    m = NAMES[name]()
    for pair in m.worst_case_pairs():
        v0, v1 = m.validate_dataset(pair.d0), m.validate_dataset(pair.d1)
        assert np.array_equal(np.asarray(m.validate_dataset(v0)), np.asarray(v0))
        assert m.exact_epsilon(v0, v1, 0.0) == m.exact_epsilon(pair.d0, pair.d1, 0.0)
        a, b = m.sample(v0, 50, rng(3)), m.sample(pair.d0, 50, rng(3))
        assert np.array_equal(a, b)
