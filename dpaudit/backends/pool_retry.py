"""Running calls in a process pool so that a dying worker loses only its own call.

When one worker process of a :class:`~concurrent.futures.ProcessPoolExecutor` dies (the OS's
out-of-memory killer, a segfault in a C library, ``os._exit`` in user code, SIGKILL), the
executor is *broken*: it terminates its other workers and fails every pending future with
``BrokenProcessPool``, whether the call had started or was still queued.  :func:`run_calls`
recovers from that:

* **Queued calls are re-run free.**  A call that had not started when the pool broke cannot
  have killed it; it goes to a fresh pool with the other such calls, as often as needed.
* **Running calls are retried once, alone.**  The calls that were running when the pool broke
  (one of them killed its worker; the executor killed the others) are each run again in a
  single-process pool of their own, so a second death is blamed on exactly that call; it then
  becomes a :class:`WorkerDied` failure carrying the worker's exit status.
* **Which calls were running** is known from a marker file per call that the worker creates
  when the call starts and removes when it returns; a call whose file is left when the pool
  broke was running.  (``Future.running()`` cannot tell: it is already true for the call the
  executor queued beyond its workers, and every future is finished once the pool is broken.)
  A broken pool in which no call finished and none was marked (a worker that died before its
  call started, e.g. at start-up) sends every unfinished call to the alone-retry, so the
  rounds always end.

Retried calls are the same ``(fn, args)``, so a call that draws from a seed in its arguments
gives the numbers it would have given the first time.  Each call's outcome is reported exactly
once, through ``done``.  Any exception escaping (Ctrl-C, a ``done`` that raised) stops every
pool of the run at once (:func:`dpaudit.util.processes.stop_pool`) before it propagates.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from concurrent.futures import FIRST_COMPLETED, as_completed, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, Callable

from dpaudit.util.processes import (describe_exit, process_pool, stop_pool, submit,
                                     worker_processes)

#: ``done(index, result, error)``: ``error`` is None when ``calls[index]`` returned ``result``
Done = Callable[[int, Any, "BaseException | None"], None]


class WorkerDied(RuntimeError):
    """A call whose worker process died while it ran, in the shared pool and again alone.

    Attributes:
      exit_code: the second worker's ``exitcode`` (negative: the signal that killed it), or
        None when it is not known.
    """

    def __init__(self, exit_code: int | None):
        self.exit_code = exit_code
        super().__init__(f"worker process died while running it, and again when retried "
                         f"alone ({describe_exit(exit_code)})")


@dataclass(frozen=True)
class _Marked:
    """Worker side: ``fn(*args)`` with the file ``directory/key`` present while it runs."""

    fn: Callable
    directory: str
    key: int

    @property
    def __name__(self) -> str:  # what dpaudit.util.processes.submit names in its errors
        return getattr(self.fn, "__name__", repr(self.fn))

    def __call__(self, *args):
        path = os.path.join(self.directory, str(self.key))
        with open(path, "w") as fh:
            fh.write(str(os.getpid()))
        try:
            return self.fn(*args)
        finally:  # not reached when the worker is killed: the file stays
            os.remove(path)


def run_calls(calls: list[tuple[Callable, tuple]], *, workers: int, done: Done) -> None:
    """Run ``fn(*args)`` for every ``(fn, args)`` of ``calls`` in pools of up to ``workers``
    processes, submitted in list order, and report each outcome once through ``done``.

    ``done(k, result, None)`` when ``calls[k]`` returned; ``done(k, None, exc)`` when it raised
    ``exc`` (in the worker, or while its result travelled back), or with a
    :class:`WorkerDied` when its worker died both in the shared pool and alone.

    Raises:
      TypeError: a call cannot be sent to a worker (:func:`dpaudit.util.processes.submit`).
      KeyboardInterrupt: Ctrl-C; every pool of the run was stopped first.
    """
    live: list = []  # pools to stop if anything escapes
    directory = tempfile.mkdtemp(prefix="dpaudit-running-")
    try:
        pending, alone = list(range(len(calls))), []
        while pending:
            pending, suspects = _shared_round(pending, calls, workers, done, live, directory)
            alone += suspects
        _alone_rounds(sorted(alone), calls, workers, done, live)
    except BaseException:
        for pool in live:
            stop_pool(pool)
        raise
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _shared_round(pending, calls, workers, done, live, directory):
    """Run ``pending`` in one fresh pool; return (calls to re-run free, calls to retry alone)."""
    pool = process_pool(min(workers, len(pending)))
    live.append(pool)
    futures = {}
    for k in pending:
        fn, args = calls[k]
        try:
            futures[submit(pool, _Marked(fn, directory, k), *args)] = k
        except BrokenProcessPool:  # broke while submitting: the rest never started
            break
    unfinished, progressed = set(pending[len(futures):]), False
    for future in as_completed(futures):
        k = futures[future]
        try:
            result = future.result()
        except BrokenProcessPool:
            unfinished.add(k)
            continue
        except Exception as exc:  # raised in the worker, or its result did not travel back
            progressed = True
            done(k, None, exc)
            continue
        progressed = True
        done(k, result, None)
    pool.shutdown(wait=True)
    live.remove(pool)
    started = {k for k in unfinished if os.path.exists(os.path.join(directory, str(k)))}
    for k in started:
        os.remove(os.path.join(directory, str(k)))
    if unfinished and not started and not progressed:
        started = set(unfinished)  # nothing ran and nothing finished: no free re-run
    return ([k for k in pending if k in unfinished and k not in started],
            [k for k in pending if k in started])


def _alone_rounds(alone, calls, workers, done, live):
    """Run each call of ``alone`` in a single-process pool of its own, up to ``workers`` such
    pools at a time; a broken pool is that call's :class:`WorkerDied`."""
    queue, running = list(alone), {}
    while queue or running:
        while queue and len(running) < max(1, workers):
            k = queue.pop(0)
            fn, args = calls[k]
            pool = process_pool(1)
            live.append(pool)
            future = submit(pool, fn, *args)
            running[future] = (k, pool, list(worker_processes(pool).values()))
        finished, _ = wait(running, return_when=FIRST_COMPLETED)
        for future in finished:
            k, pool, processes = running.pop(future)
            result, error = None, None
            try:
                result = future.result()
            except Exception as exc:
                error = exc
            pool.shutdown(wait=True)  # joins the worker: its exit code is known after this
            live.remove(pool)
            if isinstance(error, BrokenProcessPool):
                error = WorkerDied(processes[0].exitcode if processes else None)
            done(k, result, error)


__all__ = ["Done", "WorkerDied", "describe_exit", "run_calls"]
