"""User code that tries to end the process: its exits become errors of the audit that ran it.

User code — a suite's module at import, a sampler, a mechanism's methods — may call
``sys.exit(0)`` or raise ``KeyboardInterrupt``.  Raised inside dpaudit's process, either
would stop the run as if dpaudit had decided to: ``sys.exit(0)`` in a sampler made
``dpaudit run`` exit 0 with no results, and a ``KeyboardInterrupt`` was reported as Ctrl-C
(issue 39, items 1 and 12).  Inside :func:`user_code`:

* ``SystemExit`` (``sys.exit``, ``exit()``, ``quit()``) becomes :class:`UserCodeExit`, an
  ``Exception``, so that the caller's error handling makes it an ``error`` of that audit (a
  malformed suite file when it happens while the file is read), exit status 2, and the other
  audits go on;
* a ``KeyboardInterrupt`` that no SIGINT or SIGTERM delivered (the block notes the signals
  it receives, in the main thread) becomes :class:`UserCodeExit` too; a real Ctrl-C or
  SIGTERM still stops the run.

* a standard stream (file descriptor 0, 1 or 2) that the block closed is opened again on
  /dev/null and the block is a :class:`UserCodeExit` (a sampler that closed fds 1 and 2 made
  the run exit 1 with no message).

Not covered here: ``os._exit`` and a fatal signal end the process whatever Python does; in a
worker process they cost that task only (the pool retries it once, then records an error),
in the calling process they end it.
"""

from __future__ import annotations

import contextlib
import signal
import threading


class UserCodeExit(RuntimeError):
    """User code called ``sys.exit`` or raised ``KeyboardInterrupt`` by itself."""


_STATE = threading.local()


@contextlib.contextmanager
def user_code(label: str):
    """Run the block as user code named ``label`` (see the module docstring)."""
    main = threading.current_thread() is threading.main_thread()
    noted: list[int] = []
    previous = {}
    if main and not getattr(_STATE, "depth", 0):
        for signum in (signal.SIGINT, signal.SIGTERM):
            try:
                handler = signal.getsignal(signum)
                previous[signum] = handler
                signal.signal(signum, _noting(handler, noted))
            except (ValueError, OSError, TypeError):  # not settable here
                previous.pop(signum, None)
    _STATE.depth = getattr(_STATE, "depth", 0) + 1
    streams = _open_streams()
    try:
        yield
        closed = streams - _open_streams()
        if closed:
            _reopen(closed)
            raise UserCodeExit(f"{label} closed the standard stream(s) "
                               f"{', '.join(_STREAMS[fd] for fd in sorted(closed))}; user code "
                               f"must not close them (they now lead to /dev/null)")
    except SystemExit as exc:
        raise UserCodeExit(f"{label} called sys.exit({exc.code!r}){_where(exc)}; user code "
                           f"must not end the process (raise an exception instead)") from None
    except KeyboardInterrupt as exc:
        if noted or getattr(_STATE, "signalled", False):
            raise
        raise UserCodeExit(f"{label} raised KeyboardInterrupt{_where(exc)}, but no Ctrl-C or "
                           f"SIGTERM was received; user code must not raise it") from None
    finally:
        _STATE.depth -= 1
        for signum, handler in previous.items():
            with contextlib.suppress(ValueError, OSError, TypeError):
                signal.signal(signum, handler)
        if noted and _STATE.depth:
            _STATE.signalled = True  # an outer block must let it through too
        if not _STATE.depth:
            _STATE.signalled = False


_STREAMS = {0: "stdin", 1: "stdout", 2: "stderr"}


def _open_streams() -> set[int]:
    """Which of file descriptors 0, 1 and 2 are open."""
    import os

    out = set()
    for fd in _STREAMS:
        try:
            os.fstat(fd)
        except OSError:
            continue
        out.add(fd)
    return out


def _reopen(fds) -> None:
    """Put /dev/null on the closed descriptors ``fds``, so that what dpaudit writes to them
    later (its reports' lines) cannot fail."""
    import os

    for fd in fds:
        null = os.open(os.devnull, os.O_RDWR)
        if null != fd:
            os.dup2(null, fd)
            os.close(null)


def _where(exc: BaseException) -> str:
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    return f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""


def _noting(handler, noted: list[int]):
    def handle(signum, frame):
        noted.append(signum)
        _STATE.signalled = True
        if callable(handler):
            return handler(signum, frame)
        if handler == signal.SIG_DFL and signum == signal.SIGINT:
            raise KeyboardInterrupt
        if handler == signal.SIG_DFL:
            signal.signal(signum, signal.SIG_DFL)
            signal.raise_signal(signum)
        return None
    return handle


def guarded(fn, label: str):
    """``fn`` run inside :func:`user_code` (``label`` names it in the message)."""
    import functools

    if getattr(fn, "__dpaudit_user_code__", False):
        return fn

    @functools.wraps(fn)
    def call(*args, **kwargs):
        with user_code(label):
            return fn(*args, **kwargs)

    call.__dpaudit_user_code__ = True
    return call


__all__ = ["UserCodeExit", "guarded", "user_code"]
