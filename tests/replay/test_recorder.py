"""Recording and replaying numpy randomness (issue 36, item 3)."""

from __future__ import annotations

import random

import numpy as np

from dpaudit.replay.recorder import RecordingGenerator, Session


def _run(session, fn):
    rng = session.generator()
    with session.active():
        return fn(rng)


def draws(shift):
    def fn(rng):
        return (rng.laplace(shift, 1.0, 3), np.random.normal(size=2),
                np.random.default_rng(123).integers(0, 100, 2),
                rng.choice(4, p=[0.25] * 4 if shift == 0 else [0.1, 0.2, 0.3, 0.4]))
    return fn


def test_a_replay_couples_every_source_call_by_call():
    record = Session(7)
    a = _run(record, draws(0.0))
    assert [(d.source, d.method) for d in record.log] == [
        ("rng", "laplace"), ("np.random", "normal"), ("default_rng#1", "integers"),
        ("rng", "choice")]
    assert record.log[0].arguments == {"loc": 0.0, "scale": 1.0, "size": 3.0}
    replay = Session(7, record.log)
    b = _run(replay, draws(2.5))
    assert replay.diverged_at is None
    assert np.allclose(b[0] - a[0], 2.5)          # the same Laplace noise, moved by loc
    assert np.array_equal(b[1], a[1]) and np.array_equal(b[2], a[2])
    assert replay.log[3].arguments["p"] != record.log[3].arguments["p"]


def test_a_different_call_ends_the_coupling_and_is_located():
    record = Session(1)
    _run(record, lambda rng: (rng.normal(), rng.normal()))
    replay = Session(1, record.log)
    _run(replay, lambda rng: (rng.normal(), rng.laplace(), rng.normal()))
    assert replay.diverged_at == 1 and len(replay.log) == 3


def test_the_callers_global_state_is_left_as_it_was():
    np.random.seed(5)
    random.seed(5)
    before = (np.random.random(), random.random())
    np.random.seed(5)
    random.seed(5)
    session = Session(3)
    _run(session, lambda rng: (np.random.random(), random.random()))
    assert session.python_random
    assert (np.random.random(), random.random()) == before
    assert np.random.default_rng is not None and not isinstance(np.random.default_rng(0),
                                                                 RecordingGenerator)


def test_a_recording_generator_is_a_generator_and_nested_calls_are_not_recorded():
    session = Session(0)
    rng = session.generator()
    assert isinstance(rng, np.random.Generator)
    with session.active():
        rng.permutation(10)
        rng.choice(10, size=3, replace=False)
    assert [d.method for d in session.log] == ["permutation", "choice"]
