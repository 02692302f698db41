"""The dpsgd family's batch samplers and sampling: batch structure, the canary fast path
against the general simulation, clipping, views, the zero-out relation."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit.mechanisms.dpsgd.mechanisms import canary_structure, expand_gradients
from dpaudit.mechanisms.dpsgd.samplers import SAMPLERS
from dpaudit.mechanisms.registry import create_mechanism

N, STEPS, SIZE = 12, 4, 4000
NAMES = ["dpsgd-poisson", "dpsgd-shuffle", "dpsgd-balls-and-bins", "dpsgd-deterministic"]


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_every_record_in_one_batch_per_epoch_or_poisson_rate(name):
    sampler, rng = SAMPLERS[name], np.random.default_rng(1)
    sizes = sampler.epoch_sums(np.ones(N), STEPS, SIZE, rng)
    for i in (0, 5, N - 1):
        onehot = np.zeros(N)
        onehot[i] = 1.0
        member = sampler.epoch_sums(onehot, STEPS, SIZE, rng)
        if name == "poisson":
            assert abs(member.mean() - 1 / STEPS) < 0.02   # each step independently, q = 1/T
            assert member.sum(axis=1).max() > 1            # may be in several steps
        else:
            assert np.all(member.sum(axis=1) == 1)         # exactly one batch per epoch
            freq = member.mean(axis=0)
            if name == "deterministic":
                assert freq[i // (N // STEPS)] == 1.0
            else:                                          # uniform over the steps
                assert np.all(np.abs(freq - 1 / STEPS) < 0.03), freq
    if sampler.fixed_size:
        assert np.all(sizes == N // STEPS)
    elif name == "balls-and-bins":
        assert np.all(sizes.sum(axis=1) == N) and sizes.std() > 0
    else:
        assert abs(sizes.mean() - N / STEPS) < 0.05 and sizes.std() > 0


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_canary_fast_path_has_the_law_of_the_general_simulation(name):
    sampler, rng = SAMPLERS[name], np.random.default_rng(2)
    values = np.full(N, -1.0)
    values[7] = 1.0
    general = sampler.epoch_sums(values, STEPS, SIZE, rng)
    others, member = sampler.canary_epoch(N, STEPS, 7, SIZE, rng)
    fast = -1.0 * others + 1.0 * member
    assert np.allclose(general.mean(axis=0), fast.mean(axis=0), atol=0.12)
    assert np.allclose(general.std(axis=0), fast.std(axis=0), atol=0.12)
    assert np.allclose(general.max(axis=1).mean(), fast.max(axis=1).mean(), atol=0.1)


def test_canary_structure_and_multiset_datasets():
    assert canary_structure(np.array([0.0, 0.0, 3.0, 0.0])) == (0.0, 3.0, 2)
    assert canary_structure(np.array([3.0, 0.0, 0.0])) == (0.0, 3.0, 0)
    assert canary_structure(np.array([1.0, 1.0])) == (1.0, 1.0, 1)
    assert canary_structure(np.array([1.0, 2.0, 3.0])) is None
    assert expand_gradients({"values": [-1.0, 1.0], "counts": [2, 1]}).tolist() == [-1, -1, 1]
    with pytest.raises(ValueError, match="counts"):
        expand_gradients({"values": [1.0], "counts": [0]})


@pytest.mark.parametrize("name", NAMES)
def test_sample_shapes_clipping_views_and_pairs(name):
    m = create_mechanism(name, n=20, batch_size=5, epochs=2, noise_multiplier=1e-9,
                         clip_norm=2.0)
    (pair,) = m.worst_case_pairs()
    assert m.check_pair(pair.d0, pair.d1)[0]
    rng = np.random.default_rng(3)
    out = m.sample({"values": [0.0, 50.0], "counts": [19, 1]}, 500, rng)
    assert out.shape == (500, 8)
    # the canary's gradient 50 is clipped to C = 2: it adds 2 once per epoch (fixed batches)
    if name != "dpsgd-poisson":
        assert np.allclose(out.sum(axis=1), 4.0, atol=1e-6)
    final = create_mechanism(name, n=20, batch_size=5, epochs=2, noise_multiplier=1.0,
                             view="final")
    assert final.sample(pair.d0, 7, rng).shape == (7,)
    with pytest.raises(ValueError, match="n = 20"):
        m.sample([0.0] * 19, 2, rng)
    with pytest.raises(ValueError, match="divide"):
        create_mechanism(name, n=20, batch_size=3)


def test_zero_out_relation_refuses_a_substitution():
    m = create_mechanism("dpsgd-shuffle", n=4, batch_size=2)
    assert m.check_pair([1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0])[0]
    assert not m.check_pair([1.0, 0.0, 0.0, 0.0], [-1.0, 0.0, 0.0, 0.0])[0]
