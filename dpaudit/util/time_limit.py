"""A time limit for one test: the block ends with :class:`TimeLimitExceeded` after ``seconds``.

A sampler that sleeps or loops forever hung a run silently (issue 39, item 9).
:func:`time_limit` arms ``ITIMER_REAL`` for the block; its ``SIGALRM`` handler raises
:class:`TimeLimitExceeded` — an ``Exception``, so the task's error handling makes it an
``error`` of that test, and the other tests go on.  Python runs the handler between bytecodes,
so a sleep (``time.sleep`` is interrupted), a Python loop and most numpy calls (which return
to Python between chunks) are ended; a single C call that never returns to Python is not (a
process of its own, killed from outside, is the only cure for that).

Only the main thread of a process can receive signals: in another thread (a Dask worker's
task thread) the block runs without a limit.  An alarm armed around the block (by an outer
limit) is restored, with the time the block used taken off it.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time


#: the time limit of one test, in seconds, when neither the suite nor the run sets one: far
#: above any test of the shipped suites (the longest, Opacus's, takes about a minute on two
#: quiet cores), well inside a CI job's hour
DEFAULT_TIME_LIMIT = 1800.0


def check_time_limit(value, name: str = "time_limit") -> float:
    """``value`` as a time limit in seconds: a finite number > 0.

    Raises:
      ValueError: anything else (the message names ``name``)."""
    import math

    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name}: expected a number of seconds > 0, got {value!r}")
    return float(value)


class TimeLimitExceeded(Exception):
    """The block ran longer than its time limit."""


@contextlib.contextmanager
def time_limit(seconds: float | None, label: str = "the test"):
    """Run the block with a limit of ``seconds`` (None or ≤ 0: no limit)."""
    if not seconds or seconds <= 0 or threading.current_thread() is not threading.main_thread():
        yield
        return
    outer_delay, _ = signal.getitimer(signal.ITIMER_REAL)
    started = time.monotonic()

    def expire(signum, frame):
        raise TimeLimitExceeded(f"{label} ran longer than its time limit of {seconds:g} s "
                                f"(time_limit in the suite, --time-limit on the command line)")

    previous = signal.signal(signal.SIGALRM, expire)
    delay = seconds if not outer_delay else min(seconds, outer_delay)
    signal.setitimer(signal.ITIMER_REAL, delay)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer_delay:
            left = outer_delay - (time.monotonic() - started)
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-3))


__all__ = ["DEFAULT_TIME_LIMIT", "TimeLimitExceeded", "check_time_limit", "time_limit"]
