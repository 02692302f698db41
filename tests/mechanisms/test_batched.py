"""batched_sampler (dpaudit/mechanisms/batched.py): K outputs per call become a sampler, and
check_independence holds its false-alarm rate on independent batches and catches the
dependences a batch can have (noise shared within a call, a position-dependent copy)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from scipy import stats

from dpaudit.mechanisms.batched import batched_sampler, check_independence


def _independent(dataset, k, rng, scale=1.0):
    return float(dataset[0]) + rng.laplace(0.0, scale, size=k)


def _shared_noise(dataset, k, rng):  # one draw shared by the whole call: dependent copies
    return float(dataset[0]) + rng.laplace(0.0, 1.0, size=k) + rng.normal(0.0, 1.0)


def _first_copy_differs(dataset, k, rng):  # the first half of the copies has less noise
    scale = np.where(np.arange(k) < k // 2, 0.5, 1.0)
    return float(dataset[0]) + rng.laplace(0.0, 1.0, size=k) * scale


def test_calls_of_at_most_copies_outputs_make_n():
    calls = []

    @batched_sampler(copies=40)
    def fn(dataset, k, rng, scale=1.0):
        calls.append(k)
        return np.stack([np.full(k, float(dataset[0])), rng.laplace(0, scale, k)], axis=1)

    out = fn([2.0], 100, np.random.default_rng(0), scale=0.5)
    assert out.shape == (100, 2) and calls == [40, 40, 20] and np.all(out[:, 0] == 2.0)
    assert list(inspect.signature(fn).parameters) == ["dataset", "n", "rng", "scale"]
    assert fn.copies == 40 and fn.batched.__name__ == "fn"
    again = fn([2.0], 100, np.random.default_rng(0), scale=0.5)
    np.testing.assert_array_equal(out, again)              # reproducible from the rng
    assert fn([0.0], 0, np.random.default_rng(0)).shape[0] == 0


def test_a_call_with_the_wrong_count_is_one_line():
    bad = batched_sampler(lambda dataset, k, rng: np.zeros(k + 1), copies=5)
    with pytest.raises(ValueError, match=r"a call asked for 5 outputs returned shape \(6,\)"):
        bad([0.0], 10, np.random.default_rng(0))
    with pytest.raises(ValueError, match="copies must be an integer ≥ 1"):
        batched_sampler(_independent, copies=0)
    with pytest.raises(ValueError, match=r"must take \(dataset, k, rng"):
        batched_sampler(lambda dataset: 0.0)


def test_own_generator_functions_take_no_rng():
    sampler = batched_sampler(lambda dataset, k: np.arange(k, dtype=float), copies=3)
    np.testing.assert_array_equal(sampler([0], 5, None), [0, 1, 2, 0, 1])


@pytest.mark.slow
def test_independent_batches_pass_at_the_stated_rate():
    """200 checks at α = 0.05: the number failing is Binomial(200, ≤ 0.05) under the null, so
    more than 20 (P ≈ 0.005) fails this test."""
    failures = sum(not check_independence(_independent, [0.0], copies=20, calls=10,
                                          rng=np.random.default_rng(seed), alpha=0.05).passed
                   for seed in range(200))
    assert failures <= 20, failures
    assert stats.binom.sf(20, 200, 0.05) < 0.01


@pytest.mark.parametrize("fn", [_shared_noise, _first_copy_differs])
def test_dependent_batches_are_caught(fn):
    check = check_independence(fn, [0.0], copies=40, calls=50, rng=np.random.default_rng(1))
    assert not check.passed, check.describe()
    assert "DEPENDENT" in check.describe()


def test_check_needs_enough_copies_and_calls():
    with pytest.raises(ValueError, match="copies ≥ 4, calls ≥ 2"):
        check_independence(_independent, [0.0], copies=2, calls=5,
                           rng=np.random.default_rng(0))
