"""The local backend: this process, or a pool of local worker processes.

With one worker every task and job runs in this process, in plan order (unless ``isolate``:
then in one worker process).  With more, they run in
a :func:`dpaudit.util.processes.process_pool` (fork-server workers, safe beside threaded BLAS), one
at a time per process, larger tasks first so that a long one does not start last; results come
back in plan order whatever the completion order, so the number of workers cannot change a
number.  A worker process that dies loses only its own task or job
(:mod:`dpaudit.backends.pool_retry`: the others are re-run; it is retried once alone and
becomes an ``error`` result if that worker dies too).
"""

from __future__ import annotations

import os

from dpaudit.audit.procedures.base import run_test
from dpaudit.backends.base import Backend, Job, TaskDone, run_job, worker_error
from dpaudit.backends.pool_retry import run_calls
from dpaudit.results.hierarchy import TestResult


class LocalBackend(Backend):
    """Run tasks in this process (``workers == 1``) or in ``workers`` local processes.

    Args:
      workers: local processes (>= 1).
      isolate: run every task in a worker process, even with one worker or one task (a task
        whose user code ends its process — ``os._exit``, a fatal signal — is then an
        ``error`` of that task, never the end of this process).

    Raises:
      ValueError: ``workers`` is not a positive integer.
    """

    kind = "local"

    def __init__(self, workers: int = 1, *, isolate: bool = False):
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers: expected a positive integer, got {workers!r}")
        self._workers = workers
        self._isolate = bool(isolate)

    @property
    def workers(self) -> int:
        return self._workers

    def run(self, tasks, jobs: list[Job], on_task: TaskDone | None = None
            ) -> tuple[list[TestResult], list]:
        results: list = [None] * len(tasks)
        job_results: list = [None] * len(jobs)

        def finished(i, result):
            results[i] = result
            if on_task:
                on_task(i, result)

        if not self._isolate and (self._workers <= 1 or len(tasks) + len(jobs) <= 1):
            for i, task in enumerate(tasks):
                finished(i, run_test(task))
            for k, job in enumerate(jobs):
                job_results[k] = job.run()
            return results, job_results
        order = sorted(range(len(tasks)), key=lambda i: -tasks[i].cost)
        units = [("job", k) for k in range(len(jobs))] + [("task", i) for i in order]
        calls = [(run_job, (jobs[k],)) if kind == "job" else (run_test, (tasks[k],))
                 for kind, k in units]

        def done(u, result, error):
            kind, i = units[u]
            if kind == "job":
                job_results[i] = result if error is None else {"error": worker_error(error)}
            else:
                finished(i, result if error is None
                         else tasks[i].result(error=worker_error(error, "test")))

        run_calls(calls, workers=min(self._workers, len(units)), done=done)
        return results, job_results

    def describe(self) -> str:
        if self._workers == 1:
            return "local: 1 process" if self._isolate else "local: in-process"
        return f"local: {self._workers} processes"


def default_workers() -> int:
    """Local cores available to this process."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


__all__ = ["LocalBackend", "default_workers"]
