"""The exact law of cyclic SGLD (closed form vs the step-by-step recursion and vs the
simulator), the uniform scheme's moments, the fast mixture log-density and the exact profile."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from scipy.special import ndtr

from dpaudit.exact.mixture_density import MixtureLogDensity
from dpaudit.exact.mixtures import Law1D
from dpaudit.mechanisms.registry import create_mechanism
from dpaudit.mechanisms.sgld.mechanisms import cyclic_law, expand_records
from dpaudit.mechanisms.sgld.law import GaussianStep, step_by_step_law
from dpaudit.mechanisms.sgld.simulation import LinearGaussianModel, simulate_sgld

SMALL = dict(n=120, c=120.0, alpha=1.0, beta=1.0, x_h=1.8, x_l=0.9, gamma1=0.1)


def small_sgld(**kw):
    return create_mechanism("sgld", **{**SMALL, **kw})


def pair(mech):
    p = mech.worst_case_pairs()[0]
    return mech.validate_dataset(p.d0), mech.validate_dataset(p.d1)


@pytest.mark.parametrize("batch_size", [1, 2, 4])
@pytest.mark.parametrize("steps", [0, 1, 29, 30, 31, 59, 60, 151, 300])
def test_closed_form_matches_step_by_step(batch_size, steps):
    mech = small_sgld(batch_size=batch_size, steps=steps)
    for data in pair(mech):
        law = mech.law(data)
        w, m, v = law.components(steps)
        w2, m2, v2 = step_by_step_law(law.batches, law.normal, law.odd, law.mean0, law.var0,
                                      steps)
        np.testing.assert_allclose(w, w2)
        np.testing.assert_allclose(m, m2, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(v, v2, rtol=1e-12)


@pytest.mark.parametrize("a", [-0.6, 0.3, 1.0, 1.02])
def test_closed_form_for_any_slope(a):
    # step sizes outside the paper's stable range: slopes ≤ 0, = 1 and > 1
    normal = GaussianStep(a, 0.7, 0.2, 1.0 - a)
    odd = GaussianStep(a / 2 + 0.1, 0.3, 0.2, 1.0 - (a / 2 + 0.1))
    from dpaudit.mechanisms.sgld.law import CyclicLaw
    law = CyclicLaw(5, normal, odd, 0.4, 2.0)
    for steps in (0, 3, 5, 17, 40):
        got = law.components(steps)
        want = step_by_step_law(5, normal, odd, 0.4, 2.0, steps)
        np.testing.assert_allclose(got[1], want[1], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(got[2], want[2], rtol=1e-10)


def test_equal_records_give_one_gaussian_and_uniform_scheme_agrees():
    mech = small_sgld(steps=250)
    d1, _ = pair(mech)
    w, m, v = mech.components(d1)
    assert w.size == 1
    uniform = small_sgld(steps=250, minibatch="uniform")
    assert uniform.law(d1) is None and uniform.log_density is None
    x = uniform.sample(d1, 20000, np.random.default_rng(3))
    # on equal records the batch choice does not matter: the law is the same Gaussian
    assert stats.kstest(x, lambda t: ndtr((t - m[0]) / math.sqrt(v[0]))).pvalue > 1e-3


@pytest.mark.parametrize("steps", [7, 45, 133])
def test_exact_sampler_matches_the_simulator(steps):
    """KS test of the step-by-step simulator (own permutation per chain) against the mixture
    CDF of the closed form, at small n and T."""
    mech = create_mechanism("sgld", **{**SMALL, "n": 12, "c": 5.0, "gamma1": 0.3,
                                       "steps": steps})
    exact = create_mechanism("sgld", **{**SMALL, "n": 12, "c": 5.0, "gamma1": 0.3,
                                        "steps": steps, "method": "simulate"})
    _, d2 = pair(mech)
    w, m, v = mech.components(d2)
    s = np.sqrt(v)
    cdf = lambda t: np.sum(w * ndtr((np.asarray(t)[:, None] - m) / s), axis=1)  # noqa: E731
    x = exact.sample(d2, 30000, np.random.default_rng(steps))
    assert stats.kstest(x, cdf).pvalue > 1e-3
    y = mech.sample(d2, 30000, np.random.default_rng(steps + 1))
    assert stats.kstest(y, cdf).pvalue > 1e-3
    # and the test has power: the Gaussian of D₁ is rejected
    d1, _ = pair(mech)
    _, m1, v1 = mech.components(d1)
    if steps == 45:
        assert stats.kstest(x, lambda t: ndtr((t - m1[0]) / math.sqrt(v1[0]))).pvalue < 1e-6


def test_uniform_scheme_moments():
    """Uniform minibatches on D₂: the slope/offset of each step are i.i.d. and independent of
    θ, so E θ and E θ² follow exact recursions; the simulator must match them."""
    mech = small_sgld(n=10, c=3.0, gamma1=0.3, steps=60, minibatch="uniform")
    _, d2 = pair(mech)
    law = cyclic_law(d2, batch_size=1, step_size=mech.step_size, alpha=mech.alpha,
                     beta=mech.beta)
    N, O, n = law.normal, law.odd, 10
    ea = (n - 1) / n * N.a + O.a / n
    eb = (n - 1) / n * N.b + O.b / n
    ea2 = (n - 1) / n * N.a ** 2 + O.a ** 2 / n
    eab = (n - 1) / n * N.a * N.b + O.a * O.b / n
    eb2 = (n - 1) / n * N.b ** 2 + O.b ** 2 / n
    m1, m2 = 0.0, 1.0 / mech.alpha
    for _ in range(60):
        m1, m2 = ea * m1 + eb, ea2 * m2 + 2 * eab * m1 + eb2 + mech.step_size
    x = mech.sample(d2, 40000, np.random.default_rng(5))
    var = m2 - m1 ** 2
    assert abs(x.mean() - m1) < 5 * math.sqrt(var / x.size)
    assert abs(x.var() / var - 1) < 5 * math.sqrt(2 / x.size)


def test_simulator_is_generic_and_checks_its_input():
    model = LinearGaussianModel(1.0, 2.0)
    data = np.array([[1.0, 2.0], [0.5, 1.5], [1.2, 0.3], [0.9, 1.1]])
    out = simulate_sgld(model, data, steps=5, chains=7, step_size=0.01, batch_size=2,
                        scheme="cyclic", rng=np.random.default_rng(0))
    assert out.shape == (7,) and np.all(np.isfinite(out))
    with pytest.raises(ValueError, match="divisible"):
        simulate_sgld(model, data, steps=1, chains=1, step_size=0.1, batch_size=3,
                      rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="scheme"):
        simulate_sgld(model, data, steps=1, chains=1, step_size=0.1, scheme="random",
                      rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"\(n, 2\)"):
        simulate_sgld(model, data[:, 0], steps=1, chains=1, step_size=0.1,
                      rng=np.random.default_rng(0))


@pytest.mark.slow
def test_mixture_log_density_interpolation_is_accurate():
    mech = create_mechanism("sgld", steps=24000)
    _, d2 = pair(mech)
    w, m, v = mech.components(d2)
    dens = MixtureLogDensity(w, m, np.sqrt(v))
    assert not dens.exact and dens.max_error < 1e-9
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.normal(m.mean(), 6 * math.sqrt(v.max()), 3000),
                        [m.min() - 1.0, m.max() + 1.0]])   # two points outside the grid
    exact = Law1D(w, m, np.sqrt(v)).log_pdf(x)
    assert np.max(np.abs(dens(x) - exact)) < 1e-8


@pytest.mark.slow
def test_exact_profile_shape_and_components_merge():
    mech = create_mechanism("sgld", steps=0)
    d1, d2 = pair(mech)
    assert mech.exact_epsilon(d1, d2, 0.01) == 0.0
    eps = {t: create_mechanism("sgld", steps=t).exact_epsilon(d1, d2, 0.01)
           for t in (2000, 26000, 100000)}
    claim = mech.claim().epsilon(0.01)
    assert eps[2000] < claim < eps[26000] and eps[100000] < 1e-3
    assert eps[26000] == pytest.approx(8.1918, abs=2e-3)


def test_separation_series_matches_direct_computation():
    mech = small_sgld(n=20, c=20.0, gamma1=0.3)
    d1, d2 = pair(mech)
    steps = [0, 7, 40, 200]
    got = mech.series("separation", d1, d2, steps)["y"]
    law1, law2 = mech.law(d1), mech.law(d2)
    for t, y in zip(steps, got):
        _, m0, _ = step_by_step_law(law1.batches, law1.normal, None, 0.0, 1.0, t)
        _, m1, v1 = step_by_step_law(law2.batches, law2.normal, law2.odd, 0.0, 1.0, t)
        assert y == pytest.approx(np.mean((m0[0] - m1) ** 2 / v1), rel=1e-9, abs=1e-15)
    with pytest.raises(ValueError, match="unknown series"):
        mech.series("nope", d1, d2, steps)


def test_khat_is_lemma_a4():
    mech = create_mechanism("sgld")
    S = mech.alpha + mech.n * mech.x_h ** 2 * mech.beta
    lam = 1 - mech.step_size / 2 * S
    direct = math.log(1 / (1 + (1 - lam ** 2) / (mech.alpha * mech.step_size))) / (
        2 * mech.n * math.log(lam)) - 1
    assert mech.khat() == pytest.approx(direct, rel=1e-12)
    assert mech.paper_steps() == (math.ceil(direct) + 1) * mech.n


def test_compact_dataset_form():
    rows = expand_records({"rows": [[1.0, 2.0], [0.5, 1.0]], "counts": [3, 1]})
    assert rows.shape == (4, 2) and rows[-1].tolist() == [0.5, 1.0]
    for bad, match in (({"rows": [[1, 2]]}, "keys"),
                       ({"rows": [[1, 2]], "counts": [0]}, "≥ 1"),
                       ({"rows": [[1, 2]], "counts": [1.5]}, "integers"),
                       ([1.0, 2.0], r"\(n, 2\)")):
        with pytest.raises(ValueError, match=match):
            expand_records(bad)


def test_normal_pair_profile_far_from_zero():
    """Core fix: NormalPairProfile wrote L(x) = Ax² + Bx + C around 0, so means of 10⁶ with
    scales of 10⁻⁴ cancelled catastrophically (the posterior pair of the paper's instance got
    ε(0.01) = 514 instead of 0).  It now works in u = x − m₀."""
    from dpaudit.exact.mixtures import NormalPairProfile
    far = NormalPairProfile(1e6, 5e-4, 1e6 + 1e-3, 5.1e-4).symmetric()
    near = NormalPairProfile(0.0, 5e-4, 1e-3, 5.1e-4).symmetric()
    for delta in (1e-3, 1e-2, 0.1):
        assert far.epsilon(delta) == pytest.approx(near.epsilon(delta), rel=1e-4)
    P = dict(n=1149019, c=1165165.0, alpha=0.1, beta=1.0, x_h=1.8, x_l=0.9, gamma1=0.1)
    post = create_mechanism("posterior", **P)
    p = post.worst_case_pairs()[0]
    assert post.exact_epsilon(p.d0, p.d1, 0.01) < 1e-3
