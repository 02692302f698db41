"""How a run is asked to stop: Ctrl-C (SIGINT) and SIGTERM (what CI timeouts and ``kill``
send) both raise a :class:`KeyboardInterrupt` in the main thread, so that one code path stops
the workers and writes what was finished.

:class:`Terminated` is the KeyboardInterrupt of a SIGTERM; :func:`sigterm_interrupts` installs
the handler for the duration of a ``with`` block (main thread only; elsewhere it does nothing).
"""

from __future__ import annotations

import contextlib
import signal
import threading


class Terminated(KeyboardInterrupt):
    """Raised in the main thread when the process receives SIGTERM."""


def _raise_terminated(signum, frame):
    raise Terminated("SIGTERM")


@contextlib.contextmanager
def sigterm_interrupts():
    """Within the block, SIGTERM raises :class:`Terminated` in the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def stop_signal(exc: BaseException) -> str:
    """``"SIGTERM"`` for :class:`Terminated`, else ``"SIGINT"`` (Ctrl-C)."""
    return "SIGTERM" if isinstance(exc, Terminated) else "SIGINT"


def stop_status(stop: BaseException | str) -> int:
    """The conventional exit status of a process stopped by a signal, 128 + its number: 143
    for :class:`Terminated` or ``"SIGTERM"``, 130 for another KeyboardInterrupt or
    ``"SIGINT"``."""
    name = stop if isinstance(stop, str) else stop_signal(stop)
    return 128 + int(signal.Signals[name])


__all__ = ["Terminated", "sigterm_interrupts", "stop_signal", "stop_status"]
