"""The dpsgd family's BracketedEpsilon capability and its library accountants as claims."""

from __future__ import annotations

import math

import pytest

from dpaudit.exact import gaussian_epsilon
from dpaudit.mechanisms.capabilities import BracketedEpsilon, capabilities_of
from dpaudit.mechanisms.registry import create_mechanism

pytest.importorskip("dp_accounting", reason="the dpsgd family needs dp_accounting (the test "
                    "extra installs it)")
SMALL = dict(n=100, batch_size=10, noise_multiplier=0.8)


def _pair(m):
    (pair,) = m.worst_case_pairs()
    return pair.d0, pair.d1


def test_every_ablq_declares_the_bracket_and_deterministic_is_closed_form():
    m = create_mechanism("dpsgd-deterministic", **SMALL, epochs=3)
    assert "BracketedEpsilon" in capabilities_of(m) and isinstance(m, BracketedEpsilon)
    b = m.epsilon_bracket(*_pair(m), 1e-3)
    assert b.lower == b.upper == pytest.approx(gaussian_epsilon(1e-3, math.sqrt(3) / 0.8),
                                               abs=1e-12)
    assert "closed form" in b.method
    with pytest.raises(ValueError, match="delta"):
        m.epsilon_bracket(*_pair(m), 0.0)


@pytest.mark.slow  # two max-statistic curves: ~10 s on 2 cores
def test_shuffle_over_epochs_lies_between_the_max_statistic_and_deterministic_batches():
    """E = 3 epochs of shuffled batches: the lower end is the E-epoch max-statistic bound,
    which ``exact_epsilon`` now returns too (it returned None before); the upper end the
    deterministic batches' closed form."""
    m = create_mechanism("dpsgd-shuffle", **SMALL, epochs=3)
    d0, d1 = _pair(m)
    b = m.epsilon_bracket(d0, d1, 1e-3)
    lo, hi = b.lower, b.upper
    assert m.exact_epsilon(d0, d1, 1e-3) == lo
    one = create_mechanism("dpsgd-shuffle", **SMALL).exact_epsilon(d0, d1, 1e-3)
    assert one < lo < hi
    assert hi == pytest.approx(gaussian_epsilon(1e-3, math.sqrt(3) / 0.8), abs=1e-12)


def test_pairs_without_a_curve_are_none():
    m = create_mechanism("dpsgd-poisson", **SMALL)
    other = {"values": [0.5, 1.0], "counts": [99, 1]}
    assert m.epsilon_bracket(other, {"values": [0.5, 0.0], "counts": [99, 1]},
                             1e-3) is None
    same = {"values": [0.0, 1.0], "counts": [99, 1]}
    assert (m.epsilon_bracket(same, same, 1e-3).lower,
            m.epsilon_bracket(same, same, 1e-3).upper) == (0.0, 0.0)


def test_a_library_accountant_is_the_familys_claim():
    m = create_mechanism("dpsgd-poisson", n=10, batch_size=1, noise_multiplier=1.0,
                         accountant="dp_accounting:rdp")
    claim = m.claim()
    assert claim.notion == "accountant" and claim.params.sample_rate == 0.1
    assert claim.params.steps == 10 and claim.epsilon(1e-5) == pytest.approx(3.4416, abs=1e-3)
    with pytest.raises(ValueError, match="accountant must be one of"):
        create_mechanism("dpsgd-poisson", **SMALL, accountant="opacus:xyz")
