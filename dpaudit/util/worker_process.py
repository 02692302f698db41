"""One worker process, reused for call after call, whose death is an error of the call it ran.

What the pytest plugin runs its collected suite files in (:mod:`dpaudit.pytest_plugin`):
user code — a suite's files at import, samplers, mechanisms' methods — may end the process it
runs in (``os._exit(0)``, a fatal signal), and in pytest's own process that ended the whole
session with exit status 0, no report and no junit.xml (issue 39, item 2).  A
:class:`WorkerProcess` runs each call in a single-worker pool of
:func:`dpaudit.util.processes.process_pool` (a fork-server worker; the call and its arguments
travel by cloudpickle), started on the first call and reused by the next ones, so the cost of
starting it is paid once per session; a worker that dies while a call runs makes that call
raise :class:`WorkerEnded` naming how it ended, and the next call gets a fresh worker.

Ctrl-C while a call runs stops the worker at once (:func:`~dpaudit.util.processes.stop_pool`)
and propagates.
"""

from __future__ import annotations

from concurrent.futures.process import BrokenProcessPool

from dpaudit.util.processes import (describe_exit, process_pool, stop_pool, submit,
                                    worker_processes)


class WorkerEnded(RuntimeError):
    """The worker process ended while it ran the call (``os._exit``, a fatal signal, the
    out-of-memory killer).

    Attributes:
      exit_code: its ``exitcode`` (negative: the signal that killed it), or None when it is
        not known.
    """

    def __init__(self, exit_code: int | None):
        self.exit_code = exit_code
        super().__init__(f"the worker process ended while it ran ({describe_exit(exit_code)})")


class WorkerProcess:
    """Calls in one worker process, started when first needed (see the module docstring);
    :meth:`close` (or the ``with`` block's end) stops it."""

    def __init__(self):
        self._pool = None

    def call(self, fn, *args):
        """``fn(*args)`` in the worker process; its result or its exception.

        Raises:
          WorkerEnded: the worker died while it ran the call.
          TypeError: ``fn`` or ``args`` cannot be sent (:func:`~dpaudit.util.processes.submit`).
        """
        if self._pool is None:
            self._pool = process_pool(1)
        try:
            future = submit(self._pool, fn, *args)
            return future.result()
        except BrokenProcessPool:
            processes = list(worker_processes(self._pool).values())
            self._discard()
            for process in processes:
                process.join(timeout=5)
            codes = [p.exitcode for p in processes if p.exitcode is not None]
            raise WorkerEnded(codes[0] if codes else None) from None
        except KeyboardInterrupt:
            self._discard(stop=True)
            raise

    def close(self) -> None:
        """Stop the worker (waiting for it to end)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    def _discard(self, stop: bool = False) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            if stop:
                stop_pool(pool)
            else:
                pool.shutdown(wait=False, cancel_futures=True)

    def __enter__(self) -> WorkerProcess:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


__all__ = ["WorkerEnded", "WorkerProcess"]
