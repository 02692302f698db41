"""Output that survives a closed pipe or a closed stream: ``dpaudit run audits/ 2>&1 | head -3``,
``dpaudit run audits/ >&-`` and ``… 2>&-`` must still run every audit and write every report.

When the reader of stdout or stderr goes away (``head`` exits, a CI log collector dies), the
next write raises :class:`BrokenPipeError`.  :class:`PipeSafeStream` wraps a text stream: the
first broken-pipe write points the stream's file descriptor at ``/dev/null`` (so the
interpreter's final flush cannot fail either) and every later write is dropped silently —
what the user can no longer read is lost, nothing else is.  :func:`pipe_safe_output` installs
the wrapper on ``sys.stdout`` and ``sys.stderr`` for the duration of a command, and gives a
stream that was closed when the process started (Python sets it to None) a ``/dev/null`` one.
"""

from __future__ import annotations

import contextlib
import os
import sys


class PipeSafeStream:
    """A text stream whose writes never raise :class:`BrokenPipeError`; every other attribute
    (``isatty``, ``fileno``, ``encoding``, …) is the wrapped stream's."""

    def __init__(self, stream):
        self._stream = stream
        self.pipe_closed = False

    def _closed_pipe(self) -> None:
        self.pipe_closed = True
        try:  # the interpreter flushes sys.stdout at exit: let that flush go to /dev/null
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())
            os.close(devnull)
        except (OSError, ValueError, AttributeError):
            pass

    def write(self, text: str) -> int:
        if self.pipe_closed:
            return len(text)
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._closed_pipe()
            return len(text)

    def flush(self) -> None:
        if self.pipe_closed:
            return
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._closed_pipe()

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _open_stream(stream):
    """``stream``, or — when the process started with that descriptor closed (``dpaudit run
    >&-``, ``2>&-``: Python then sets ``sys.stdout``/``sys.stderr`` to None) — a text stream
    to ``/dev/null``.  Opening it takes the lowest free descriptor, the closed one, so worker
    processes started later inherit a valid descriptor too."""
    if stream is not None:
        return stream, False
    return open(os.devnull, "w", encoding="utf-8"), True


@contextlib.contextmanager
def pipe_safe_output():
    """Within the block, ``sys.stdout`` and ``sys.stderr`` are :class:`PipeSafeStream`s; a
    stream that was closed when the process started writes to ``/dev/null``."""
    saved = sys.stdout, sys.stderr
    out, opened_out = _open_stream(saved[0])
    err, opened_err = _open_stream(saved[1])
    sys.stdout, sys.stderr = PipeSafeStream(out), PipeSafeStream(err)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
        for stream, opened in ((out, opened_out), (err, opened_err)):
            if opened:
                stream.close()


__all__ = ["PipeSafeStream", "pipe_safe_output"]
