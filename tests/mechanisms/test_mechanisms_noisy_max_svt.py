"""Report-noisy-max and sparse-vector mechanisms: calibration from the sympy formulas, sample
laws against the exact ones, exact ε of the worst pairs, input validation, shapes."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate

from dpaudit.claims import PureDP
from dpaudit.mechanisms.noisy_max import exact as exact_nm
from dpaudit.mechanisms.sparse_vector import exact as exact_svt
from dpaudit.mechanisms.noisy_max import mechanisms as nm
from dpaudit.mechanisms.sparse_vector import mechanisms as svt
from dpaudit.mechanisms.registry import create_mechanism, get_mechanism_class

NAMES = {
    "noisy-max-laplace": nm.NoisyMaxLaplace,
    "noisy-max-exponential": nm.NoisyMaxExponential,
    "noisy-max-laplace-value": nm.NoisyMaxLaplaceValue,
    "noisy-max-exponential-value": nm.NoisyMaxExponentialValue,
    "sparse-vector": svt.SparseVector,
    "svt-lyu3": svt.SVTLyu3,
    "svt-lyu4": svt.SVTLyu4,
    "svt-lyu5": svt.SVTLyu5,
    "svt-lyu6": svt.SVTLyu6,
}
CORRECT = {"noisy-max-laplace", "noisy-max-exponential", "sparse-vector"}
N = 100_000


def rng(seed=0):
    return np.random.default_rng(seed)


def max_z(counts: np.ndarray, probs: np.ndarray, n: int) -> float:
    """Largest binomial z-score |k − np| / √(np(1−p)) over the outcomes with p > 0."""
    counts, probs = np.asarray(counts, float), np.asarray(probs, float)
    pos = probs > 0
    assert np.all(counts[~pos] == 0), "an outcome of probability 0 was sampled"
    p = probs[pos]
    return float(np.max(np.abs(counts[pos] - n * p) / np.sqrt(n * p * (1 - p))))


def pattern_counts(out: np.ndarray, patterns) -> np.ndarray:
    keys, counts = np.unique(out, axis=0, return_counts=True)
    table = {tuple(int(x) for x in k): c for k, c in zip(keys, counts)}
    unreachable = set(table) - set(patterns)
    assert not unreachable, f"unreachable patterns sampled: {unreachable}"
    return np.array([table.get(p, 0) for p in patterns])


# -- registry, claims, calibration ------------------------------------------------------------
def test_registry_names_flags_and_pairs():
    for name, cls in NAMES.items():
        assert get_mechanism_class(name) is cls
        mech = create_mechanism(name)
        assert mech.name == name
        assert mech.family == ("noisy_max" if name.startswith("noisy-max") else "sparse_vector")
        assert mech.known_bad == (name not in CORRECT)
        assert (mech.true_epsilon() is not None) == mech.known_bad
        assert mech.known_bad == bool(mech.literature)
        assert "ALL_DIFFER" in mech.neighbouring
        assert mech.describe()["claim"]["text"]
        pairs = mech.worst_case_pairs()
        assert 1 <= len(pairs) <= 3
        for pair in pairs:
            assert isinstance(pair.d0, list) and isinstance(pair.d1, list)
            assert all(type(x) in (int, float) for x in pair.d0 + pair.d1)
            q0, q1 = mech.validate_dataset(pair.d0), mech.validate_dataset(pair.d1)
            assert np.max(np.abs(q0 - q1)) <= 1.0
            assert pair.description


@pytest.mark.parametrize("name", sorted(NAMES))
def test_claim_carries_the_formulas_the_sampler_evaluates(name):
    mech = create_mechanism(name, epsilon=0.7, sensitivity=2.0)
    claim = mech.claim()
    assert isinstance(claim, PureDP)
    assert claim.eps == pytest.approx(0.7, rel=1e-12)  # the proof's loss at the scales = ε
    *scales, loss = claim.expression
    values = {sp.Symbol(k): v for k, v in claim.substitutions.items()}
    for eq in scales:  # every scale equation, evaluated at the parameters, is the sampler's
        attr = {"b": "scale"}.get(str(eq.lhs), str(eq.lhs))
        assert float(eq.rhs.subs(values)) == pytest.approx(getattr(mech, attr), rel=1e-14)
        assert claim.substitutions[str(eq.lhs)] == getattr(mech, attr)
    assert float(loss.rhs.subs(values)) == pytest.approx(claim.eps, rel=1e-14)
    json = claim.to_dict()
    assert "Eq(" in json["expression"] and json["latex"]


def test_noise_scales_match_lyu_et_al():
    eps, c = 0.8, 3
    s1 = svt.SparseVector(epsilon=eps, c=c)
    assert (s1.b_rho, s1.b_nu) == pytest.approx((2 / eps, 2 * c / (eps / 2)))
    s3 = svt.SVTLyu3(epsilon=eps, c=c)
    assert (s3.b_rho, s3.b_nu) == pytest.approx((2 / eps, c / (eps / 2)))
    s4 = svt.SVTLyu4(epsilon=eps, c=c)
    assert (s4.b_rho, s4.b_nu) == pytest.approx((4 / eps, 4 / (3 * eps)))
    s5 = svt.SVTLyu5(epsilon=eps)
    assert (s5.b_rho, s5.b_nu) == pytest.approx((2 / eps, 0.0))
    s6 = svt.SVTLyu6(epsilon=eps)
    assert (s6.b_rho, s6.b_nu) == pytest.approx((2 / eps, 2 / eps))
    assert nm.NoisyMaxLaplace(epsilon=eps, sensitivity=3).scale == pytest.approx(6 / eps)


def test_true_epsilons():
    assert nm.NoisyMaxLaplaceValue(epsilon=0.4, num_queries=7).true_epsilon() == \
        pytest.approx(7 * 0.4 / 2)
    for c in (1, 2, 5):
        assert svt.SVTLyu4(epsilon=0.3, c=c).true_epsilon() == pytest.approx((1 + 6 * c) / 4 * 0.3)
    for cls in (nm.NoisyMaxExponentialValue, svt.SVTLyu3, svt.SVTLyu5, svt.SVTLyu6):
        assert cls().true_epsilon() == math.inf
    for cls in (nm.NoisyMaxLaplace, nm.NoisyMaxExponential, svt.SparseVector):
        assert cls().true_epsilon() is None


# -- sample laws against the exact ones -------------------------------------------------------
@pytest.mark.parametrize("cls", [nm.NoisyMaxLaplace, nm.NoisyMaxExponential])
def test_argmax_frequencies_match_exact(cls):
    q = [0.0, 1.0, 2.0, 2.5, 4.0]
    mech = cls(epsilon=1.0)
    probs = mech.argmax_probabilities(q)
    assert probs.sum() == pytest.approx(1.0, abs=1e-9)
    out = mech.sample(q, N, rng(1))
    counts = np.bincount(out, minlength=len(q))
    assert max_z(counts, probs, N) < 5
    # power: the law at twice the noise scale is rejected by the same statistic
    wrong = type(mech)._argmax_probabilities(np.array(q), 2 * mech.scale)
    assert max_z(counts, wrong, N) > 5


@pytest.mark.slow
@pytest.mark.parametrize("cls,kwargs,q", [
    (svt.SparseVector, dict(c=2), [1.0, -1.0, 0.5, 2.0, 0.0, 1.0]),
    (svt.SVTLyu4, dict(c=1), [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    (svt.SVTLyu5, dict(threshold=0.3), [1.0, 1.0, 1.0, 0.0, 0.0, 0.0]),
    (svt.SVTLyu6, dict(threshold=-0.5), [1.0, 1.0, 1.0, -1.0, -1.0, -1.0]),
])
def test_svt_pattern_frequencies_match_exact(cls, kwargs, q):
    mech = cls(epsilon=1.0, **kwargs)
    probs = mech.pattern_probabilities(q)
    assert sum(probs.values()) == pytest.approx(1.0, abs=1e-9)
    patterns = list(probs)
    counts = pattern_counts(mech.sample(q, N, rng(2)), patterns)
    assert max_z(counts, np.array([probs[p] for p in patterns]), N) < 5
    if mech.b_nu > 0:  # power: a wrong query-noise scale is rejected
        wrong = exact_svt.pattern_probabilities(q, mech.threshold, mech.b_rho, 3 * mech.b_nu,
                                                mech.c)
        assert max_z(counts, np.array([wrong[p] for p in patterns]), N) > 5


@pytest.mark.slow
def test_svt_lyu3_outputs_match_exact_law():
    mech = svt.SVTLyu3(epsilon=1.0, num_queries=3)
    q = [0.0, 1.0, 0.0]
    out = mech.sample(q, N, rng(3))
    # the ⊤/⊥ skeleton has the law of the pattern version with the same scales
    skeleton = np.where(np.isfinite(out), 1, 0)
    seen_top = np.cumsum(np.isfinite(out), axis=1) - np.isfinite(out)
    skeleton[seen_top >= 1] = -1
    probs = exact_svt.pattern_probabilities(q, 0.0, mech.b_rho, mech.b_nu, 1)
    patterns = list(probs)
    assert max_z(pattern_counts(skeleton, patterns), [probs[p] for p in patterns], N) < 5
    # the released value at the first ⊤ has density h_j(v): compare bin masses
    first = np.argmax(np.isfinite(out), axis=1)
    for j in range(3):
        vals = out[np.isfinite(out[:, j]) & (first == j), j]
        edges = np.array([-4.0, -1.0, 0.0, 1.0, 2.0, 5.0])
        counts, _ = np.histogram(vals, bins=edges)
        mass = [integrate.quad(lambda v: exact_svt.values_density(q, j, v, 0.0, mech.b_rho,
                                                                  mech.b_nu), a, b)[0]
                for a, b in zip(edges[:-1], edges[1:])]
        assert max_z(counts, mass, N) < 5


def test_max_value_laws_match_closed_form_cdf():
    q = np.array([0.0, 1.0, 0.5])
    lap = nm.NoisyMaxLaplaceValue(epsilon=1.0, num_queries=3)
    ex = nm.NoisyMaxExponentialValue(epsilon=2.0, num_queries=3)
    cdf_lap = lambda t: np.prod(np.where(t - q < 0, 0.5 * np.exp((t - q) / lap.scale),
                                         1 - 0.5 * np.exp(-(t - q) / lap.scale)))
    cdf_exp = lambda t: np.prod(np.where(t > q, -np.expm1(-(t - q) / ex.scale), 0.0))
    for mech, cdf, logpdf in ((lap, cdf_lap, exact_nm.laplace_max_logpdf),
                              (ex, cdf_exp, exact_nm.exponential_max_logpdf)):
        out = mech.sample(q, N, rng(4))
        for t in (0.5, 1.2, 2.0, 4.0):
            p = cdf(t)
            assert abs(np.mean(out <= t) - p) <= 5 * math.sqrt(p * (1 - p) / N)  # p = 0: exact
        # the exact module's density integrates to the closed-form CDF
        lo = 1.0 if mech is ex else -30.0
        mass = integrate.quad(lambda t: math.exp(logpdf(np.array([t]), q, mech.scale)[0]),
                              lo, 2.0, points=[0.0, 0.5, 1.0], limit=200)[0]
        assert mass == pytest.approx(cdf(2.0) - cdf(lo), abs=1e-9)


# -- exact ε of the worst pairs ---------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(NAMES))
def test_worst_pairs_exact_epsilon_against_claim(name):
    mech = create_mechanism(name)
    claimed = mech.claim().epsilon(0.0)
    values = [mech.exact_epsilon(p.d0, p.d1) for p in mech.worst_case_pairs()]
    if name in CORRECT:
        assert all(0 < v <= claimed + 1e-9 for v in values)
        assert max(values) > 0.98 * claimed  # the pairs are near-worst, not arbitrary
    else:
        assert all(v > claimed for v in values)
        assert max(values) <= mech.true_epsilon() + 1e-6


@pytest.mark.slow
def test_known_exact_values_of_the_default_pairs():
    e = lambda mech, i=0: mech.exact_epsilon(mech.worst_case_pairs()[i].d0,
                                             mech.worst_case_pairs()[i].d1)
    for m in (2, 5):
        assert e(nm.NoisyMaxLaplaceValue(num_queries=m)) == pytest.approx(m / 2, abs=1e-6)
    assert e(nm.NoisyMaxExponential()) == pytest.approx(1.0, abs=1e-9)  # tight
    assert e(svt.SVTLyu3()) == pytest.approx(3.0, abs=1e-6)  # m·ε/2 with m = 6
    assert e(svt.SVTLyu4()) == pytest.approx(1.75, abs=1e-4)  # attains (1+6c)/4·ε
    assert e(svt.SVTLyu6()) == pytest.approx(2.90634, abs=1e-4)
    assert e(svt.SparseVector()) == pytest.approx(0.98956, abs=1e-4)
    assert e(nm.NoisyMaxExponentialValue()) == math.inf
    assert e(svt.SVTLyu5()) == math.inf


def test_support_mismatch_masses_are_large():
    ex = nm.NoisyMaxExponentialValue()
    pair = ex.worst_case_pairs()[0]
    assert ex.support_mismatch_mass(pair.d0, pair.d1) == pytest.approx((1 - math.exp(-1)) ** 3)
    assert np.mean(ex.sample(pair.d0, N, rng(5)) < 1) == pytest.approx(0.2525, abs=0.007)
    assert np.min(ex.sample(pair.d1, N, rng(6))) >= 1.0
    five = svt.SVTLyu5()
    pair = five.worst_case_pairs()[0]
    p0, p1 = five.pattern_probabilities(pair.d0), five.pattern_probabilities(pair.d1)
    mismatch = (0, 0, 0, 1, 1, 1)
    assert p0[mismatch] == 0.0 and p1[mismatch] == pytest.approx(1 - math.exp(-0.25))
    assert p1[mismatch] >= 0.15
    brief = svt.SVTLyu5(num_queries=2)
    assert brief.pattern_probabilities([1, 0])[(0, 1)] == 0.0
    assert brief.pattern_probabilities([0, 1])[(0, 1)] == pytest.approx((1 - math.exp(-0.5)) / 2)


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-2, 2), min_size=2, max_size=4),
       st.lists(st.sampled_from([-1.0, -0.5, 0.0, 0.5, 1.0]), min_size=4, max_size=4),
       st.sampled_from([0.3, 1.0, 2.5]))
def test_correct_noisy_max_never_exceeds_epsilon(q0, moves, eps):
    q1 = [a + d for a, d in zip(q0, moves)]
    for cls in (nm.NoisyMaxLaplace, nm.NoisyMaxExponential):
        assert cls(epsilon=eps).exact_epsilon(q0, q1) <= eps + 1e-9


@pytest.mark.slow
@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(-2, 2), min_size=4, max_size=4),
       st.lists(st.sampled_from([-1.0, 0.0, 1.0]), min_size=4, max_size=4),
       st.sampled_from([-1.0, 0.0, 1.5]), st.sampled_from([1, 2]))
def test_svt_exact_epsilon_respects_the_theory(q0, moves, threshold, c):
    q1 = [a + d for a, d in zip(q0, moves)]
    good = svt.SparseVector(epsilon=1.0, threshold=threshold, c=c, num_queries=4)
    assert good.exact_epsilon(q0, q1) <= 1.0 + 1e-9
    lee = svt.SVTLyu4(epsilon=1.0, threshold=threshold, c=c, num_queries=4)
    assert lee.exact_epsilon(q0, q1) <= lee.true_epsilon() + 1e-9


@pytest.mark.slow
def test_exact_epsilon_with_delta():
    mech = svt.SVTLyu6()
    pair = mech.worst_case_pairs()[2]
    e0 = mech.exact_epsilon(pair.d0, pair.d1)
    e1 = mech.exact_epsilon(pair.d0, pair.d1, delta=1e-3)
    e2 = mech.exact_epsilon(pair.d0, pair.d1, delta=1e-1)
    assert e0 > e1 > e2 >= 0
    lap = nm.NoisyMaxLaplace()
    pair = lap.worst_case_pairs()[0]
    assert lap.exact_epsilon(pair.d0, pair.d1, delta=0.05) < lap.exact_epsilon(pair.d0, pair.d1)
    five = svt.SVTLyu5()
    pair = five.worst_case_pairs()[0]
    assert five.exact_epsilon(pair.d0, pair.d1, delta=0.1) == math.inf  # mismatch mass 0.22
    assert five.exact_epsilon(pair.d0, pair.d1, delta=0.25) < math.inf
    for mech in (nm.NoisyMaxLaplaceValue(), nm.NoisyMaxExponentialValue(), svt.SVTLyu3()):
        pair = mech.worst_case_pairs()[0]
        assert mech.exact_epsilon(pair.d0, pair.d1, delta=1e-3) is None
    assert svt.SVTLyu3(c=2).exact_epsilon([0] * 6, [1] * 6) is None


# -- shapes, dtypes, determinism --------------------------------------------------------------
def test_sample_shapes_and_dtypes():
    q5 = [0.0, 1.0, 0.0, 2.0, 1.0]
    out = nm.NoisyMaxLaplace().sample(q5, 1000, rng())
    assert out.shape == (1000,) and out.dtype == np.int64 and set(out) <= set(range(5))
    out = nm.NoisyMaxExponential().sample([3.0], 10, rng())
    assert out.shape == (10,) and np.all(out == 0)
    out = nm.NoisyMaxLaplaceValue().sample(q5, 1000, rng())
    assert out.shape == (1000,) and out.dtype == np.float64
    out = nm.NoisyMaxExponentialValue().sample([0, 1, 0], 1000, rng())
    assert out.dtype == np.float64 and np.all(out >= 1.0)
    q6 = [0.0, 1.0, -1.0, 2.0, 0.0, 1.0]
    for cls in (svt.SparseVector, svt.SVTLyu4, svt.SVTLyu5, svt.SVTLyu6):
        out = cls().sample(q6, 5000, rng())
        assert out.shape == (5000, 6) and out.dtype == np.int8
        assert set(np.unique(out)) <= {-1, 0, 1}
    out = svt.SparseVector(c=2).sample(q6, 5000, rng())
    tops = np.cumsum(out == 1, axis=1)
    assert np.all(tops <= 2)
    after = np.concatenate([np.zeros((5000, 1), bool), tops[:, :-1] >= 2], axis=1)
    assert np.all((out == -1) == after)  # −1 exactly after the c-th ⊤
    assert np.any(out == -1)
    assert not np.any(svt.SVTLyu6().sample(q6, 5000, rng()) == -1)  # no cutoff
    out = svt.SVTLyu3().sample(q6, 5000, rng())
    assert out.shape == (5000, 6) and out.dtype == np.float64
    assert np.all(np.isfinite(out).sum(axis=1) <= 1) and np.any(np.isfinite(out))
    assert np.all(np.isneginf(out[~np.isfinite(out)]))
    assert nm.NoisyMaxLaplace().sample(q5, 0, rng()).shape == (0,)
    assert svt.SparseVector().sample(q6, 0, rng()).shape == (0, 6)


def test_sampling_is_reproducible_from_the_seed():
    for name in NAMES:
        mech = create_mechanism(name)
        d = mech.worst_case_pairs()[0].d0
        np.testing.assert_array_equal(mech.sample(d, 50, rng(9)), mech.sample(d, 50, rng(9)))


# -- validation -------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(NAMES))
def test_bad_parameters_raise(name):
    for bad in (0.0, -1.0, math.nan, math.inf, "x", True):
        with pytest.raises(ValueError, match="epsilon"):
            create_mechanism(name, epsilon=bad)
    with pytest.raises(ValueError, match="sensitivity"):
        create_mechanism(name, sensitivity=0.0)
    for bad in (0, -3, 2.5):
        with pytest.raises(ValueError, match="num_queries"):
            create_mechanism(name, num_queries=bad)
    with pytest.raises(ValueError, match="bad parameters"):
        create_mechanism(name, no_such_parameter=1)


def test_bad_svt_parameters_raise():
    for cls in (svt.SparseVector, svt.SVTLyu3, svt.SVTLyu4):
        for bad in (0, -1, 1.5, True):
            with pytest.raises(ValueError, match="c must"):
                cls(c=bad)
    for cls in (svt.SparseVector, svt.SVTLyu5):
        with pytest.raises(ValueError, match="threshold"):
            cls(threshold=math.nan)
    with pytest.raises(TypeError):  # Alg. 5 and 6 have no cutoff
        svt.SVTLyu6(c=2)


@pytest.mark.parametrize("name", sorted(NAMES))
def test_bad_datasets_raise(name):
    mech = create_mechanism(name)
    m = mech.num_queries or 5
    good = [0.0] * m
    cases = {
        "NaN": good[:-1] + [math.nan],
        "infinite": good[:-1] + [math.inf],
        "empty": [],
        "1-D": [good, good],
        "numeric": ["a"] * m,
    }
    for message, data in cases.items():
        with pytest.raises(ValueError, match=message):
            mech.sample(data, 10, rng())
    if mech.num_queries is not None:
        with pytest.raises(ValueError, match=f"num_queries={m}"):
            mech.validate_dataset(good + [0.0])
    with pytest.raises(ValueError, match="not neighbours"):
        mech.exact_epsilon(good, [2.0] + good[1:])
    with pytest.raises(ValueError, match="n \\(number of samples\\)"):
        mech.sample(good, -1, rng())


def test_argmax_accepts_any_length_unless_num_queries_given():
    assert nm.NoisyMaxLaplace().sample([1.0, 2.0], 5, rng()).shape == (5,)
    with pytest.raises(ValueError, match="num_queries=3"):
        nm.NoisyMaxLaplace(num_queries=3).sample([1.0, 2.0], 5, rng())
    with pytest.raises(ValueError, match="same shape"):
        nm.NoisyMaxLaplace().exact_epsilon([1.0, 2.0], [1.0, 2.0, 3.0])
