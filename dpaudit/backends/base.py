"""Where a run's tasks execute: the :class:`Backend` contract.

A backend takes the planned work of a run — the curve-certificate :class:`~dpaudit.audit.plan.
Task`\\ s and the non-certifying jobs of :func:`dpaudit.audit.plan.plan_jobs` — and returns
their results in task order.  Backends differ only in *where* the work runs (this process,
local worker processes, a Dask cluster); every task's numbers are functions of the task alone
(its seed, its samples), so the records of a run are identical, bit for bit except the timing
fields, whatever the backend and its number of workers.

A backend may hold resources (a process pool, a cluster connection, a cluster it started):
use it as a context manager, or call :meth:`Backend.close`.
"""

from __future__ import annotations

import abc
from typing import Callable

from dpaudit.audit.plan import Task
from dpaudit.audit.records import CertificateRecord

Progress = Callable[[CertificateRecord], None]
#: called as ``on_task(i, records, curve)`` when ``tasks[i]`` has finished
TaskDone = Callable[[int, list, "dict | None"], None]


class BackendError(RuntimeError):
    """A backend cannot be set up (a scheduler that cannot be reached, dask not installed, a
    malformed cluster specification); the message is one line naming the problem."""


class Backend(abc.ABC):
    """Runs tasks and jobs; see the module docstring for the contract."""

    #: short name written in provenance ("local", "dask")
    kind: str = "backend"

    @property
    @abc.abstractmethod
    def workers(self) -> int:
        """How many workers run tasks (processes or cluster workers) right now."""

    @abc.abstractmethod
    def run(self, tasks: list[Task], jobs: list[tuple], progress: Progress | None = None,
            on_task: TaskDone | None = None
            ) -> tuple[list[CertificateRecord], list[dict], list]:
        """Run ``tasks`` and ``jobs`` ((function, args) pairs of module-level functions that
        never raise).

        Args:
          tasks: the curve certificates to compute.
          jobs: non-certifying work (dense exact curves, series).
          progress: called once per record, in completion order, as tasks finish.
          on_task: called once per finished task, ``on_task(i, records, curve)``, in
            completion order, before ``progress`` sees its records (a run's journal).

        Returns:
          (records in task order then δ then α, curve data of the tasks that have a figure,
          job results in job order).  A task whose worker failed gives ``error`` records; a
          job whose worker failed gives ``{"error": message}``.
        """

    def describe(self) -> str:
        """One line for provenance, e.g. ``"local: 2 processes"``."""
        return f"{self.kind}: {self.workers} workers"

    def close(self) -> None:
        """Release what the backend holds (idempotent)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


__all__ = ["Backend", "BackendError", "Progress", "TaskDone"]
