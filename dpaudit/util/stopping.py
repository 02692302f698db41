"""How a run is asked to stop: Ctrl-C (SIGINT) and SIGTERM (what CI timeouts and ``kill``
send) both raise a :class:`KeyboardInterrupt` in the main thread, so that one code path stops
the workers and writes what was finished.

:class:`Terminated` is the KeyboardInterrupt of a SIGTERM.

:class:`StopRequests` (``with StopRequests() as stops``) handles both signals for a whole
command: they raise as above until :meth:`StopRequests.defer` is called (the work is done and
only its reports remain to be written); from then on a signal is only *noted*
(:attr:`StopRequests.signal`, the first one), so that no report is cut short, except inside
``with stops.interruptible():`` (a long, optional step, e.g. drawing figures), where it raises
again.
"""

from __future__ import annotations

import contextlib
import signal
import threading


class Terminated(KeyboardInterrupt):
    """Raised in the main thread when the process receives SIGTERM."""


def _raise_terminated(signum, frame):
    raise Terminated("SIGTERM")


class StopRequests:
    """SIGINT and SIGTERM for the duration of a ``with`` block (main thread only; elsewhere
    the signals keep their handlers and nothing is ever noted).

    Until :meth:`defer`: SIGINT raises KeyboardInterrupt, SIGTERM :class:`Terminated`.  After
    it: a signal is recorded and the code carries on; :attr:`signal` is the first one
    (``"SIGINT"`` / ``"SIGTERM"``, None if none came), :attr:`received` all of them.  Inside
    :meth:`interruptible` (deferred mode only) a signal is recorded *and* raised, and entering
    it once a signal was recorded raises at once.  On exit the previous handlers come back; a
    recorded signal is not re-raised: the caller exits with :func:`stop_status`.
    """

    def __init__(self):
        self.received: list[str] = []
        self._deferred = False
        self._raising = False
        self._previous: dict = {}

    @property
    def signal(self) -> str | None:
        return self.received[0] if self.received else None

    def __enter__(self) -> StopRequests:
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGINT, signal.SIGTERM):
                self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exc_info) -> None:
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)
        self._previous.clear()

    def defer(self) -> None:
        """From now on a signal is noted, not raised (outside :meth:`interruptible`)."""
        self._deferred = True

    @contextlib.contextmanager
    def interruptible(self):
        """A step that a signal may cut short (raising as before :meth:`defer`); skipped with
        the same exception when a signal was already noted."""
        if self.signal is not None:
            raise _exception(self.signal)
        raising, self._raising = self._raising, True
        try:
            yield
        finally:
            self._raising = raising

    def _handle(self, signum, frame) -> None:
        name = signal.Signals(signum).name
        if not self._deferred:
            raise _exception(name)
        self.received.append(name)
        if self._raising:
            self._raising = False  # one exception per step, even if a second signal follows
            raise _exception(name)


def _exception(name: str) -> KeyboardInterrupt:
    return Terminated("SIGTERM") if name == "SIGTERM" else KeyboardInterrupt()


def stop_signal(exc: BaseException) -> str:
    """``"SIGTERM"`` for :class:`Terminated`, else ``"SIGINT"`` (Ctrl-C)."""
    return "SIGTERM" if isinstance(exc, Terminated) else "SIGINT"


def stop_status(stop: BaseException | str) -> int:
    """The conventional exit status of a process stopped by a signal, 128 + its number: 143
    for :class:`Terminated` or ``"SIGTERM"``, 130 for another KeyboardInterrupt or
    ``"SIGINT"``."""
    name = stop if isinstance(stop, str) else stop_signal(stop)
    return 128 + int(signal.Signals[name])


__all__ = ["StopRequests", "Terminated", "stop_signal", "stop_status"]
