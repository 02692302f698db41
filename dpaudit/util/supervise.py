"""A supervised child process: code that may end its process, run where its end is seen.

``os._exit(0)`` and a fatal signal (SIGKILL, a segfault in a C extension) end a process
whatever Python does: no ``finally`` runs, no handler is called.  Run in the process whose
exit status CI reads, such an end *is* that status, 0 included.  :func:`supervise` forks, runs
a function in the child and waits in the parent; the child reports how it ended through an
inherited pipe just before it exits normally, so the parent can tell a finished child from one
that was ended:

* a child that reported is described by its reported status (:attr:`Ending.reported`), its
  own later exit status notwithstanding (an ``atexit`` handler of user code cannot change it);
* a child that ended without reporting — ``os._exit``, a fatal signal — is described by how it
  ended (:attr:`Ending.exit_code`, :attr:`Ending.signal`), for the caller to turn into an
  error.

Signals.  The child stays in the parent's process group, so Ctrl-C in a terminal (and
``kill -- -PGID``, GNU ``timeout``, CI runners' group signals) reaches both.  The parent never
stops for SIGINT or SIGTERM: it waits for the child.  A SIGINT or SIGTERM sent to the parent
alone (``kill PID``) must reach the child once, and a group signal must not reach it twice (a
second SIGINT would cut short the child's own writing of what it finished).  The child
therefore notes every signal it receives on a second pipe (:func:`signal.set_wakeup_fd`: the
signal's number, one byte, written by CPython's C-level handler the moment it arrives); a
signal the parent receives is forwarded only when no such note of the same signal came from
the child within :data:`FORWARD_AFTER` seconds.  A signal whose disposition is "ignore" when
:func:`supervise` is called stays ignored in both (a job started with ``&`` by a script).
The child dies with the parent (Linux ``PR_SET_PDEATHSIG``: SIGKILL; elsewhere a thread that
watches the parent's pid): a SIGKILLed ``dpaudit`` leaves no child running.

Trust: the child runs user code in its memory, so code written *to forge* the parent's outcome
(writing a report to the pipe) can; the parent guards against code that ends the process, and
accepts a report only from the child's own pid (not from a process user code forked).

Not on platforms without :func:`os.fork` (Windows): :func:`available` is False there and the
caller runs the function in its own process.
"""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import time
from dataclasses import dataclass, field
from typing import Callable

#: the signals the parent passes on to the child (and never stops for)
FORWARDED = (signal.SIGINT, signal.SIGTERM)
#: seconds the parent waits for the child's note of a signal before it forwards that signal
FORWARD_AFTER = 1.0


def available() -> bool:
    """Whether :func:`supervise` can run here (POSIX: :func:`os.fork` exists)."""
    return hasattr(os, "fork") and hasattr(signal, "SIGCHLD")


@dataclass(frozen=True)
class Ending:
    """How a supervised child ended.

    Attributes:
      reported: the exit status the child reported just before exiting normally, or None when
        it ended without reporting (``os._exit``, a fatal signal).
      exit_code: the child's own exit status, or None when a signal ended it.
      signal: the number of the signal that ended the child, or None.
      received: the stop signals (SIGINT, SIGTERM) the parent received while it waited, in
        order, by number: a child killed by one of them was stopped from outside.
      notes: what the child said about itself with :meth:`Reporter.note` (merged, in order).
    """

    reported: int | None
    exit_code: int | None
    signal: int | None
    received: tuple[int, ...] = ()
    notes: dict = field(default_factory=dict)

    @property
    def stopped(self) -> bool:
        """The child was ended by a stop signal that reached dpaudit from outside."""
        return self.signal is not None and self.signal in self.received


class Reporter:
    """The child's end of the report pipe: :meth:`note` tells the parent about the work so far
    (one JSON object per line); :func:`supervise` sends the final status itself."""

    def __init__(self, fd: int):
        self._fd = fd

    def note(self, **fields) -> None:
        """Send ``fields`` (JSON values) to the parent; never raises (a closed pipe, a parent
        gone: the note is lost, and the parent reads the ending from the process itself)."""
        self._send(fields)

    def _send(self, fields: dict) -> None:
        line = (json.dumps({"pid": os.getpid(), **fields}, default=str) + "\n").encode()
        try:
            while line:
                line = line[os.write(self._fd, line):]
        except OSError:
            pass


#: the reporter of this process when it is a supervised child, else None
_REPORTER: Reporter | None = None


def reporter() -> Reporter | None:
    """This process's :class:`Reporter` when it is a supervised child, else None."""
    return _REPORTER


def supervise(child: Callable[[], int]) -> Ending:
    """Run ``child()`` in a forked child process and return how it ended (in the parent).

    In the child, ``child()``'s return value is reported and then the child exits with it
    (non-daemon threads joined and ``atexit`` handlers run, as at the interpreter's exit); the
    child never returns from this call.  An exception escaping ``child()`` is printed and reported
    as status 1 (a ``KeyboardInterrupt``: 130; ``SystemExit``: its code), as Python would exit.

    Must be called from the main thread of a process that runs no other thread (a fork copies
    only the calling thread).
    """
    watched = [s for s in FORWARDED if signal.getsignal(s) is not signal.SIG_IGN]
    status_r, status_w = os.pipe()
    notes_r, notes_w = os.pipe()
    os.set_blocking(notes_w, False)  # set_wakeup_fd's requirement
    blocked = [*watched, signal.SIGCHLD]
    previous_mask = signal.pthread_sigmask(signal.SIG_BLOCK, blocked)
    for stream in (sys.stdout, sys.stderr):  # nothing buffered is written twice
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):
            pass
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(status_r)
        os.close(notes_r)
        _die_with(parent)
        signal.set_wakeup_fd(notes_w)
        signal.pthread_sigmask(signal.SIG_SETMASK, previous_mask)
        _run_child(child, status_w)
    os.close(status_w)
    os.close(notes_w)
    try:
        return _wait(pid, watched, status_r, notes_r, previous_mask)
    finally:
        os.close(status_r)
        os.close(notes_r)


def _run_child(child: Callable[[], int], status_fd: int):
    """The child's side of :func:`supervise`: run, report, exit."""
    global _REPORTER
    import traceback

    _REPORTER = Reporter(status_fd)
    try:
        status = child()
    except SystemExit as exc:
        status = _code_of(exc)
    except KeyboardInterrupt:
        traceback.print_exc()
        status = 128 + int(signal.SIGINT)
    except BaseException:  # noqa: BLE001 - as the interpreter would: printed, status 1
        traceback.print_exc()
        status = 1
    status = int(status or 0)
    if not 0 <= status <= 255:  # the OS would keep its last 8 bits: 256 would read as 0
        status = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):
            pass
    _REPORTER._send({"exit": status})
    _exit(status)


def _exit(status: int):
    """End the child as the interpreter ends a process — non-daemon threads joined, ``atexit``
    handlers run (multiprocessing's finalizers among them: the resource tracker is told what
    was released), the standard streams flushed — without raising ``SystemExit``, which a
    caller of the console function could catch and carry on in the child."""
    import atexit

    try:
        shutdown = getattr(sys.modules.get("threading"), "_shutdown", None)
        if shutdown is not None:
            shutdown()
        atexit._run_exitfuncs()
    except BaseException:  # noqa: BLE001 - a Ctrl-C while joining threads: end anyway
        pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):
            pass
    os._exit(status)


def _code_of(exc: SystemExit) -> int:
    """The exit status Python gives ``raise SystemExit(code)``."""
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code
    print(exc.code, file=sys.stderr)
    return 1


def _die_with(parent: int) -> None:
    """End this process (SIGKILL) as soon as ``parent`` ends."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        if libc.prctl(pr_set_pdeathsig, int(signal.SIGKILL), 0, 0, 0) == 0:
            if os.getppid() != parent:  # the parent ended before the request took effect
                os.kill(os.getpid(), signal.SIGKILL)
            return
    except (OSError, AttributeError):  # not Linux: no prctl
        pass
    import threading

    def watch():
        while os.getppid() == parent:
            time.sleep(0.5)
        os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=watch, daemon=True, name="dpaudit-parent-watch").start()


@dataclass
class _Forwarding:
    """The parent's bookkeeping of stop signals: which ones the child noted itself, which
    ones it must be sent (see the module docstring)."""

    pid: int
    received: list = field(default_factory=list)
    waiting: list = field(default_factory=list)  # [signum, deadline]: not yet seen by the child
    seen: list = field(default_factory=list)  # [signum, expiry]: child notes not yet matched
    echoes: list = field(default_factory=list)  # [signum, expiry]: notes of what we forwarded

    def parent_got(self, signum: int, now: float) -> None:
        self.received.append(signum)
        for item in self.seen:
            if item[0] == signum:  # the child got this one directly, before us
                self.seen.remove(item)
                return
        self.waiting.append([signum, now + FORWARD_AFTER])

    def child_got(self, signum: int, now: float) -> None:
        for queue in (self.echoes, self.waiting):
            for item in queue:
                if item[0] == signum:
                    queue.remove(item)
                    return
        self.seen.append([signum, now + FORWARD_AFTER])

    def forward_due(self, now: float) -> None:
        for item in [i for i in self.waiting if i[1] <= now]:
            self.waiting.remove(item)
            try:
                os.kill(self.pid, item[0])
            except ProcessLookupError:
                return
            self.echoes.append([item[0], now + FORWARD_AFTER])
        self.seen = [i for i in self.seen if i[1] > now]
        self.echoes = [i for i in self.echoes if i[1] > now]

    def timeout(self, now: float) -> float | None:
        return max(0.0, min(i[1] for i in self.waiting) - now) if self.waiting else None


def _wait(pid: int, watched: list, status_r: int, notes_r: int, mask) -> Ending:
    """The parent's side of :func:`supervise`: wait for ``pid``, forwarding stop signals."""
    own_r, own_w = os.pipe()
    for fd in (own_r, own_w, status_r, notes_r):
        os.set_blocking(fd, False)
    handlers = {s: signal.signal(s, _note_only) for s in [*watched, signal.SIGCHLD]}
    wakeup = signal.set_wakeup_fd(own_w)
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    forwarding, report = _Forwarding(pid), bytearray()
    try:
        while True:
            done, wait_status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            readable = [own_r, notes_r] + ([status_r] if status_r >= 0 else [])
            ready, _, _ = select.select(readable, [], [], forwarding.timeout(time.monotonic()))
            now = time.monotonic()
            for signum in (_drain(own_r) or b"") if own_r in ready else b"":
                if signum in watched:
                    forwarding.parent_got(signum, now)
            for signum in (_drain(notes_r) or b"") if notes_r in ready else b"":
                if signum in watched:
                    forwarding.child_got(signum, now)
            if status_r in ready:
                chunk = _drain(status_r)
                if chunk is None:  # every writer closed it
                    status_r = -1
                else:
                    report += chunk
            forwarding.forward_due(now)
    finally:
        signal.set_wakeup_fd(wakeup)
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
        os.close(own_r)
        os.close(own_w)
    if status_r >= 0:
        report += _drain(status_r) or b""
    return _ending(pid, wait_status, bytes(report), tuple(forwarding.received))


def _note_only(signum, frame) -> None:
    """The parent's handler: the signal's number reaches the wakeup pipe; nothing else."""


def _drain(fd: int) -> bytes | None:
    """Everything readable now from non-blocking ``fd``; None at end of file."""
    out = bytearray()
    while True:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            return bytes(out)
        if not chunk:
            return bytes(out) if out else None
        out += chunk


def _ending(pid: int, wait_status: int, report: bytes, received: tuple) -> Ending:
    """The :class:`Ending` of child ``pid`` from its wait status and its report lines."""
    notes, reported = {}, None
    for line in report.decode("utf-8", "replace").splitlines():
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict) or message.pop("pid", None) != pid:
            continue  # not the child's own (a process user code forked, a torn line)
        if isinstance(message.get("exit"), int) and not isinstance(message["exit"], bool):
            reported = message.pop("exit")
        notes.update(message)
    killed = os.WTERMSIG(wait_status) if os.WIFSIGNALED(wait_status) else None
    code = os.WEXITSTATUS(wait_status) if os.WIFEXITED(wait_status) else None
    return Ending(reported=reported, exit_code=code, signal=killed, received=received,
                  notes=notes)


__all__ = ["Ending", "FORWARD_AFTER", "FORWARDED", "Reporter", "available", "reporter",
           "supervise"]
