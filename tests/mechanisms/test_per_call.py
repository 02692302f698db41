"""``dpaudit.per_call_sampler``: a function releasing one output per call as a sampler of n
(issue 26, item 4) — the same draws as a hand-written loop, the function's parameters passed
as the audit's params, in every route."""

from __future__ import annotations

import inspect

import cloudpickle
import numpy as np
import pytest

from dpaudit import per_call_sampler
from dpaudit.api import audit_sampler
from dpaudit.mechanisms.sampler import sampler_signature

GRID = 2.0 ** -20


@per_call_sampler
def noisy_count(dataset, rng, epsilon=1.0):
    """One float-safe release of len(dataset) with Laplace(1/epsilon) noise."""
    return float(len(dataset)) + GRID * round(rng.laplace(0.0, 1.0 / epsilon) / GRID)


def test_the_draws_of_a_hand_written_loop_with_the_params_as_keywords():
    got = noisy_count([1, 2], 500, np.random.default_rng(3), epsilon=0.5)
    rng = np.random.default_rng(3)
    want = np.array([noisy_count.per_call([1, 2], rng, epsilon=0.5) for _ in range(500)])
    assert got.shape == (500,) and got.dtype == float and np.array_equal(got, want)
    assert str(inspect.signature(noisy_count)) == "(dataset, n, rng, *, epsilon=1.0)"
    assert sampler_signature(noisy_count, "c").keywords == {"epsilon": 1.0}
    assert noisy_count.__name__ == "noisy_count" and "One float-safe" in noisy_count.__doc__


def test_vectors_numbers_of_mixed_kinds_and_functions_without_rng():
    vectors = per_call_sampler(lambda d, rng: rng.normal(size=3))
    assert vectors([0], 7, np.random.default_rng(0)).shape == (7, 3)
    mixed = iter([0, 0.5, 1])
    out = per_call_sampler(lambda d, rng: next(mixed))([0], 3, None)
    assert out.tolist() == [0.0, 0.5, 1.0]  # an int first does not truncate what follows
    own = per_call_sampler(lambda dataset, scale=1.0: scale)  # draws from its own generator
    assert own([0], 4, None, scale=2.0).tolist() == [2.0] * 4
    sizes = iter([1, 2])
    ragged = per_call_sampler(lambda d, rng: np.zeros(next(sizes)))
    with pytest.raises(ValueError, match=r"per_call_sampler\(<lambda>\): the calls returned "
                                         r"outputs numpy cannot stack"):
        ragged([0], 2, None)
    with pytest.raises(ValueError, match="must take the dataset as its first argument"):
        per_call_sampler(lambda: 0.0)


def test_it_crosses_to_workers_and_is_audited_with_params():
    clone = cloudpickle.loads(cloudpickle.dumps(noisy_count))
    assert np.array_equal(clone([0], 5, np.random.default_rng(1)),
                          noisy_count([0], 5, np.random.default_rng(1)))
    result = audit_sampler(noisy_count, {"notion": "pure-dp"}, [([0], [0, 0])],
                           params={"epsilon": 2.0}, samples=2000)
    assert result.verdict == "consistent"
    assert result.records[0].claim["text"] == "pure-dp(epsilon=2)"
