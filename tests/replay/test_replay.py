"""Grey-box replay of mechanisms and samplers: what it finds, and what it does not claim
(issue 36, item 3)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpaudit import laplace_on_grid
from dpaudit.check import examples
from dpaudit.mechanisms import create_mechanism
from dpaudit.mechanisms.sampler import with_dataset_space
from dpaudit.neighbours.pairs import NeighbourPair
from dpaudit.neighbours.spaces import BoundedRecords
from dpaudit.replay import Kind, Severity, replay_mechanism
from dpaudit.replay.compare import replay_pair


def kinds(report, severity=None):
    return {f.kind for f in report.findings if severity is None or f.severity is severity}


@pytest.mark.parametrize("name", ["laplace", "gaussian", "geometric", "exponential",
                                  "noisy-max-laplace", "sparse-vector", "randomized-response"])
def test_correct_mechanisms_show_no_violation(name):
    report = replay_mechanism(create_mechanism(name))
    assert report.verdict == "consistent", [f.describe() for f in report.findings]
    assert len(report.replays) >= 4


def test_a_wrong_sensitivity_is_a_violation_with_its_pair():
    report = replay_mechanism(examples.WrongSensitivitySum())
    (shift,) = report.of(Severity.VIOLATION)
    assert shift.kind is Kind.SHIFT and shift.example.shift == pytest.approx(2.0)
    assert "Δ = 1" in shift.text and "ratio 2" in shift.text
    assert report.sensitivity == 1.0 and report.verdict == "violation"


def test_a_noise_scale_taken_from_the_data_is_a_warning():
    report = replay_mechanism(examples.LeakySizeClippedMean(n_min=5))
    assert Kind.SCALE in kinds(report, Severity.WARNING)
    assert report.verdict == "consistent"  # a warning, not a proof of a leak


def clipped_mean(dataset, n, rng):
    """Clips with np.clip, which lets NaN through."""
    d = np.asarray(dataset, dtype=float)
    return laplace_on_grid(float(np.clip(d, 0.0, 1.0).mean()), 0.5, n, rng)


def test_nan_slipping_through_clipping_is_a_violation():
    report = replay_mechanism(clipped_mean, [([0.5, 0.5], [0.5, 0.5, math.nan])])
    (nan,) = report.of(Severity.VIOLATION)
    assert nan.kind is Kind.NONFINITE and nan.example.nonfinite == (0, nan.example.rows)


@with_dataset_space(BoundedRecords(0, 3, n_max=5, integer=True))
def group_counts(dataset, n, rng):
    """Draws noise once per value found in the data: control flow that depends on it."""
    values = sorted(set(dataset))
    out = np.zeros((n, 4))
    for v in values:
        out[:, v] = dataset.count(v) + rng.laplace(0, 1.0, n)
    return out


def test_a_draw_per_key_found_is_data_dependent_control_flow():
    report = replay_mechanism(group_counts, [([0, 1], [0, 1, 1])], sensitivity=1.0, norm="l1")
    flow = next(f for f in report.findings if f.kind is Kind.CONTROL_FLOW)
    assert flow.severity is Severity.WARNING and flow.example.calls[0] != flow.example.calls[1]
    assert report.to_dict()["findings"][0]["example"]["calls"]  # plain JSON, a run that ended
    assert flow.example.pair.name.startswith("proposal-") or flow.example.pair.name.startswith(
        "random-")
    # the named pair adds a record of a value already there: the same calls, and the shift
    # of that pair is the count's move, 1 = Δ
    named = report.replays[0]
    assert named.shift_is_query and named.shift == pytest.approx(1.0)
    assert report.verdict == "consistent"


def test_randomness_the_replay_cannot_see_is_said():
    own = np.random.default_rng(99)

    def ignores_rng(dataset, n, rng):  # a generator made before the run: not seen
        return sum(dataset) + own.laplace(0, 1, n)

    replay = replay_pair(ignores_rng, NeighbourPair("p", [0], [0, 1]))
    assert replay.unseen and not replay.shift_is_query
    report = replay_mechanism(ignores_rng, [([0], [0, 1])], sensitivity=1.0)
    assert Kind.UNSEEN in kinds(report, Severity.WARNING) and report.verdict == "consistent"


def test_legacy_global_numpy_is_recorded_and_replayed():
    def legacy(dataset, n, rng):
        return 10.0 * sum(dataset) + np.random.laplace(0, 1, n)

    report = replay_mechanism(legacy, [([0], [0, 1])], sensitivity=1.0)
    (shift,) = report.of(Severity.VIOLATION)
    assert shift.example.shift == pytest.approx(10.0)


def test_a_non_additive_release_is_not_compared_with_the_sensitivity():
    """Noisy max returns an index: rows move differently, so the shift says nothing of Δ."""
    replay = replay_pair(create_mechanism("noisy-max-laplace").sample,
                         NeighbourPair("p", [0.0, 0.0, 0.0], [1.0, 0.0, 0.0]), rows=64)
    assert not replay.shift_is_query


def test_code_that_raises_on_one_side_is_a_warning_and_bad_arguments_are_refused():
    def fragile(dataset, n, rng):
        return np.full(n, 1.0 / (len(dataset) - 1)) + rng.laplace(0, 1, n)

    report = replay_mechanism(fragile, [([0, 0], [0])])
    assert Kind.RAISES in kinds(report, Severity.WARNING)
    with pytest.raises(ValueError, match="needs pairs"):
        replay_mechanism(fragile)
    with pytest.raises(ValueError, match="norm"):
        replay_mechanism(fragile, [([0], [1])], norm="l3")


def test_slow_code_is_replayed_on_fewer_pairs_and_says_so():
    import time as clock

    @with_dataset_space(BoundedRecords(0.0, 1.0, n_max=4))
    def slow(dataset, n, rng):
        clock.sleep(0.01)
        return sum(dataset) + rng.laplace(0, 1, n)

    report = replay_mechanism(slow, [([0.0], [0.0, 1.0])], budget_seconds=0.01)
    assert len(report.replays) == 1  # the named pair always runs
    assert "budget of 0.01 s was spent before pair 'proposal-" in report.out_of_time
    assert report.to_dict()["out_of_time"] == report.out_of_time
