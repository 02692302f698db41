"""The per-test time limit's primitive (issue 39, item 9: a sampler that sleeps forever hung
the run): the block ends with TimeLimitExceeded, an outer alarm survives it."""

from __future__ import annotations

import signal
import threading
import time

import pytest

from dpaudit.util.time_limit import TimeLimitExceeded, time_limit


def test_a_sleep_forever_ends_at_the_limit():
    start = time.monotonic()
    with pytest.raises(TimeLimitExceeded, match="time limit of 0.3 s"):
        with time_limit(0.3, "sampler x"):
            time.sleep(60)
    assert time.monotonic() - start < 5
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_a_python_loop_ends_at_the_limit():
    with pytest.raises(TimeLimitExceeded):
        with time_limit(0.3):
            while True:
                pass


def test_a_block_within_its_limit_is_untouched_and_no_limit_means_none():
    with time_limit(5.0):
        time.sleep(0.01)
    with time_limit(None):
        time.sleep(0.01)
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_an_outer_alarm_is_restored():
    fired = []
    previous = signal.signal(signal.SIGALRM, lambda *a: fired.append(1))
    try:
        signal.setitimer(signal.ITIMER_REAL, 2.0)
        with time_limit(5.0):
            time.sleep(0.05)
        left, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 1.0 < left < 2.0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_another_thread_runs_without_a_limit():
    done = []

    def work():
        with time_limit(0.05):
            time.sleep(0.2)
        done.append(True)

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert done == [True]
