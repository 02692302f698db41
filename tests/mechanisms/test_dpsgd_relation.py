"""The dpsgd family under replace-one, Poisson runs of any number of steps, and runs trained
with a budget (target_epsilon): the pairs, brackets, claims and samples each one states."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpaudit.exact import gaussian_epsilon
from dpaudit.mechanisms.registry import create_mechanism

pytest.importorskip("dp_accounting")


def _pair(m):
    (p,) = m.worst_case_pairs()
    d0, d1 = m.validate_dataset(p.d0), m.validate_dataset(p.d1)
    assert m.check_pair(d0, d1) == (True, "")
    return d0, d1


def test_replace_one_pair_is_c_against_minus_c_and_is_checked_positionally():
    m = create_mechanism("dpsgd-poisson", n=10, batch_size=1, relation="replace-one")
    d0, d1 = _pair(m)
    assert d0[-1] == 1.0 and d1[-1] == -1.0 and not np.any(d0[:-1]) and not np.any(d1[:-1])
    assert m.relation().name == "replace-one"
    # a permutation of the same records is two records replaced, not one
    swapped = d0.copy()
    swapped[[0, -1]] = swapped[[-1, 0]]
    ok, why = m.check_pair(d0, np.where(swapped == 1.0, -1.0, swapped))
    assert not ok and "exactly one" in why
    from dpaudit.mechanisms.dpsgd.datasets import one_record_replaced

    ok, why = one_record_replaced(d0, d0[:-1])
    assert not ok and "same size" in why
    assert create_mechanism("dpsgd-poisson", n=10, batch_size=1).relation().name == "zero-out"


@pytest.mark.slow
def test_poisson_replace_one_bracket_is_the_replace_adjacency_pair():
    from dpaudit.exact.subsampled_gaussian import subsampled_gaussian_bracket

    m = create_mechanism("dpsgd-poisson", n=10, batch_size=1, steps=1, noise_multiplier=3.0,
                         relation="replace-one")
    d0, d1 = _pair(m)
    bracket = m.epsilon_bracket(d0, d1, 1e-5)
    expected = subsampled_gaussian_bracket(3.0, 0.1, 1, 1e-5, "replace-one")
    assert (bracket.lower, bracket.upper) == (expected.lower, expected.upper)
    assert "replace-one" in bracket.method
    added = subsampled_gaussian_bracket(3.0, 0.1, 1, 1e-5, "add-remove")
    assert bracket.lower > added.upper + 0.05           # a different, larger pair (0.250 vs 0.175)
    # the pair's exact ε: the optimistic end at a finer discretisation
    assert bracket.lower - 1e-3 <= m.exact_epsilon(d0, d1, 1e-5) <= bracket.upper


def test_full_batch_replace_one_is_the_shift_two_root_t_over_sigma():
    for epochs in (1, 10):
        m = create_mechanism("dpsgd-deterministic", n=10, batch_size=10, epochs=epochs,
                             noise_multiplier=2.0, relation="replace-one")
        bracket = m.epsilon_bracket(*_pair(m), 1e-5)
        assert bracket.lower == bracket.upper
        assert bracket.lower == pytest.approx(
            gaussian_epsilon(1e-5, 2 * math.sqrt(epochs) / 2.0), rel=1e-12)
    # one step in all: the white-box density takes the outputs as a vector (was an AxisError)
    m = create_mechanism("dpsgd-deterministic", n=10, batch_size=10, noise_multiplier=2.0,
                         relation="replace-one")
    d0, d1 = _pair(m)
    x = m.sample(d0, 4, np.random.default_rng(0))
    assert x.shape == (4, 1)
    np.testing.assert_allclose(m.log_density(d0, x[:, 0]), m.log_density(d0, x))
    shift = m.log_density(d0, x) - m.log_density(d1, x)
    np.testing.assert_allclose(shift, (2 * x[:, 0]) / 2.0 ** 2)  # N(1, σ²) vs N(−1, σ²)


def test_claims_are_stated_for_the_relation():
    from dpaudit.claims.accountants import accountant_claim

    kw = dict(n=10, batch_size=10, noise_multiplier=2.0, relation="replace-one")
    gaussian = create_mechanism("dpsgd-deterministic", **kw, accountant="gaussian").claim()
    assert gaussian.epsilon(1e-5) == pytest.approx(gaussian_epsilon(1e-5, 2 / 2.0))
    pld = create_mechanism("dpsgd-deterministic", **kw, accountant="pld").claim()
    assert "replace-one" in pld.describe()
    assert pld.epsilon(1e-5) == pytest.approx(gaussian_epsilon(1e-5, 1.0), rel=1e-3)
    rdp = create_mechanism("dpsgd-deterministic", **kw, accountant="dp_accounting:rdp").claim()
    # the full batch (q = 1) is told as such, under the row's relation: issue 378's number
    assert rdp.params.sampler.value == "full-batch" and rdp.params.relation.value == "replace-one"
    assert rdp.epsilon(1e-5) == accountant_claim(
        "dp_accounting:rdp", noise_multiplier=2.0, sample_rate=1.0, steps=1,
        relation="replace-one", sampler="full-batch").epsilon(1e-5)
    with pytest.raises(ValueError, match="add/remove"):
        create_mechanism("dpsgd-deterministic", **kw, accountant="rdp").claim()
    with pytest.raises(ValueError, match="relation"):
        create_mechanism("dpsgd-poisson", relation="replace-two")


@pytest.mark.slow
def test_poisson_steps_are_independent_of_n_over_b():
    m = create_mechanism("dpsgd-poisson", n=100, batch_size=1, steps=10,
                         noise_multiplier=1e-9)
    assert (m.q, m.steps, m.params["steps"]) == (0.01, 10, 10)
    assert create_mechanism("dpsgd-poisson", n=100, batch_size=1, epochs=2).params["steps"] \
        == 200
    d0, _ = _pair(m)
    x = m.sample(d0, 200_000, np.random.default_rng(1))
    assert x.shape == (200_000, 10)
    rate = float(np.mean(x > 0.5))            # the canary's membership, q per step
    assert abs(rate - 0.01) < 4 * math.sqrt(0.01 * 0.99 / x.size)
    from dpaudit.exact.subsampled_gaussian import subsampled_gaussian_bracket

    m1 = create_mechanism("dpsgd-poisson", n=100, batch_size=1, steps=10)
    assert m1.epsilon_bracket(*_pair(m1), 1e-5).lower == \
        subsampled_gaussian_bracket(1.0, 0.01, 10, 1e-5).lower
    assert m1.claim().epsilon(1e-5) < 0.39       # the PLD accountant at T = 10, not 100
    with pytest.raises(ValueError, match="epochs or steps"):
        create_mechanism("dpsgd-poisson", n=100, batch_size=1, steps=10, epochs=2)


def test_a_budget_trains_at_the_calibrated_sigma_and_claims_the_budget():
    from dpaudit.claims.accountants import get_accountant

    m = create_mechanism("dpsgd-poisson", n=10, batch_size=1, steps=10,
                         accountant="dp_accounting:rdp", target_epsilon=2.0, target_delta=1e-5)
    claim = m.claim()
    assert claim.notion == "calibration" and claim.epsilon(1e-5) == 2.0
    assert claim.epsilon(1e-6) == math.inf
    sigma = m.params["noise_multiplier"]
    assert sigma == claim.noise_multiplier and 1.2 < sigma < 1.4
    reported = get_accountant("dp_accounting:rdp").epsilon(claim.params, 1e-5)
    assert 1.99 < reported <= 2.0 + 1e-6           # the calibration met its target
    assert create_mechanism("dpsgd-poisson").params["noise_multiplier"] == 1.0
    for bad, fragment in ((dict(noise_multiplier=1.0, target_epsilon=1.0, target_delta=1e-5),
                           "not both"),
                          (dict(target_epsilon=1.0), "target_delta"),
                          (dict(target_delta=1e-5), "with target_epsilon"),
                          (dict(accountant="rdp", target_epsilon=1.0, target_delta=1e-5),
                           "no noise calibration")):
        with pytest.raises(ValueError, match=fragment):
            create_mechanism("dpsgd-poisson", n=10, batch_size=1, **bad)
