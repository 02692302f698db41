"""The local backend: this process, or a pool of local worker processes.

This is what ``dpaudit run --workers W`` has always done
(:func:`dpaudit.audit.execute.execute_with_jobs` over
:func:`dpaudit.processes.process_pool`): one task per process at a time, each certificate
counted inside its task.
"""

from __future__ import annotations

from dpaudit.audit.execute import execute_with_jobs
from dpaudit.backends.base import Backend, Progress


class LocalBackend(Backend):
    """Run tasks in this process (``workers == 1``) or in ``workers`` local processes.

    Args:
      workers: local processes (>= 1).

    Raises:
      ValueError: ``workers`` is not a positive integer.
    """

    kind = "local"

    def __init__(self, workers: int = 1):
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers: expected a positive integer, got {workers!r}")
        self._workers = workers

    @property
    def workers(self) -> int:
        return self._workers

    def run(self, tasks, jobs, progress: Progress | None = None, on_task=None):
        return execute_with_jobs(tasks, jobs, workers=self._workers, progress=progress,
                                 on_task=on_task)

    def describe(self) -> str:
        return ("local: in-process" if self._workers == 1
                else f"local: {self._workers} processes")


__all__ = ["LocalBackend"]
