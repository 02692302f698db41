"""The dpsgd family's exact and numerical curves and log-densities against Monte Carlo and
brute force."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from dpaudit.claims.certificates import load_formula
from dpaudit.exact import gaussian_epsilon
from dpaudit.mechanisms.dpsgd.curves import ShuffleMaxCurve, shuffle_max_curve
from dpaudit.mechanisms.registry import create_mechanism

LOG_F = load_formula("dpsgd", "shuffle_max_log_cdf")


def test_cube_event_masses_match_the_shuffle_sampler():
    """P[max_t g_t > c] on both sides of Chua et al.'s pair: Monte Carlo of the mechanism
    against the certified CDF (5-sigma binomial band)."""
    m = create_mechanism("dpsgd-shuffle", n=200, batch_size=10, noise_multiplier=0.7)
    (pair,) = m.worst_case_pairs()
    rng = np.random.default_rng(5)
    size = 40_000
    for data, shift in ((pair.d0, 2.0), (pair.d1, 1.0)):
        top = (m.sample(data, size, rng) + 10.0).max(axis=1)   # remove the common −b·C shift
        for c in (1.0, 2.0, 3.0):
            p = -math.expm1(LOG_F(c=c, mu=shift, sigma=0.7, T=20))
            assert abs(np.mean(top > c) - p) < 5 * math.sqrt(p * (1 - p) / size) + 1e-4


def test_max_curve_dominates_every_cube_event_and_is_accurate():
    curve = ShuffleMaxCurve(2.0, 1.0, 0.8, 100)
    for eps in (1.0, 3.0):
        cube = max(-math.expm1(LOG_F(c=c, mu=2.0, sigma=0.8, T=100))
                   - math.exp(eps) * -math.expm1(LOG_F(c=c, mu=1.0, sigma=0.8, T=100))
                   for c in np.linspace(0, 6, 601))
        assert curve.delta(eps) >= cube - 1e-9
        assert curve.delta(eps) <= cube + 1e-3     # cube events are (nearly) optimal for M
        assert curve.accuracy(eps) < 1e-8
    # with T = 1 the max is the coordinate itself: the Gaussian shift curve
    one = ShuffleMaxCurve(1.0, 0.0, 0.5, 1)
    assert one.epsilon(1e-3) == pytest.approx(gaussian_epsilon(1e-3, 2.0), abs=1e-6)


@pytest.mark.slow
def test_max_curve_delta_against_monte_carlo_of_the_max_likelihood_ratio():
    curve = shuffle_max_curve(2.0, 1.0, 0.8, 20)
    rng = np.random.default_rng(6)
    size = 200_000
    x = 0.8 * rng.standard_normal((size, 20))
    x[:, 0] += 2.0
    top = x.max(axis=1)
    log_p = np.interp(top, curve.c, curve.log_p)
    log_q = np.interp(top, curve.c, curve.log_q)
    for eps in (0.5, 2.0):
        mc = np.mean(np.maximum(0.0, -np.expm1(eps + log_q - log_p)))
        se = np.std(np.maximum(0.0, -np.expm1(eps + log_q - log_p))) / math.sqrt(size)
        assert abs(mc - curve.delta(eps)) < 5 * se + 1e-4


@pytest.mark.parametrize("name", ["dpsgd-poisson", "dpsgd-shuffle", "dpsgd-balls-and-bins",
                                  "dpsgd-deterministic"])
def test_log_density_is_the_brute_force_mixture(name):
    """T = 3, one epoch: the log-density against the mixture over every inclusion pattern."""
    m = create_mechanism(name, n=6, batch_size=2, noise_multiplier=0.9, clip_norm=1.5)
    (pair,) = m.worst_case_pairs()
    rng = np.random.default_rng(7)
    y = m.sample(pair.d0, 50, rng)
    v = -1.5 if name == "dpsgd-shuffle" else 0.0
    s = 0.9 * 1.5
    if name == "dpsgd-poisson":
        patterns = [(np.array(p), (1 / 3) ** sum(p) * (2 / 3) ** (3 - sum(p)))
                    for p in itertools.product((0, 1), repeat=3)]
    elif name == "dpsgd-deterministic":
        patterns = [(np.array([0, 0, 1]), 1.0)]
    else:
        patterns = [(np.eye(3)[t], 1 / 3) for t in range(3)]
    base = 2 * v if name == "dpsgd-shuffle" else 0.0
    dens = sum(w * stats.multivariate_normal(base + p * (1.5 - v), s * s * np.eye(3)).pdf(y)
               for p, w in patterns)
    assert np.allclose(m.log_density(pair.d0, y), np.log(dens), rtol=1e-9, atol=1e-9)


@pytest.mark.slow
def test_exact_epsilon_of_the_views_and_what_is_not_covered():
    det = create_mechanism("dpsgd-deterministic", n=100, batch_size=10, epochs=4,
                           noise_multiplier=2.0)
    (pair,) = det.worst_case_pairs()
    assert det.exact_epsilon(pair.d0, pair.d1, 1e-3) == pytest.approx(
        gaussian_epsilon(1e-3, 1.0))
    final = create_mechanism("dpsgd-shuffle", n=100, batch_size=10, epochs=4,
                             noise_multiplier=2.0, view="final")
    (pair,) = final.worst_case_pairs()
    assert final.exact_epsilon(pair.d0, pair.d1, 1e-3) == pytest.approx(
        gaussian_epsilon(1e-3, 4 / (2.0 * math.sqrt(40))))
    shuffle = create_mechanism("dpsgd-shuffle", n=100, batch_size=10, epochs=2)
    (pair,) = shuffle.worst_case_pairs()
    # several epochs: the E-epoch max-statistic lower bound (dpaudit/exact/shuffle_epochs.py)
    from dpaudit.exact.shuffle_epochs import shuffle_epochs_bracket

    assert shuffle.exact_epsilon(pair.d0, pair.d1, 1e-3) == shuffle_epochs_bracket(
        2.0, 1.0, 1.0, 10, 2, 1e-3).lower
    assert shuffle.exact_epsilon([0.5] * 99 + [1.0], [0.1] * 99 + [0.0], 1e-3) is None
