"""Where a run's tasks execute: the :class:`Backend` contract.

A backend takes the planned work of a run — the tests (:class:`~dpaudit.audit.procedures.base.Task`,
each computed by its own ``run()``, :func:`dpaudit.audit.procedures.base.run_test`, whatever its
kind of audit) and the non-certifying jobs of
:func:`dpaudit.audit.plan.plan_jobs` (objects whose ``run()`` never raises) — and returns their
results in plan order.  Backends differ only in *where* the work runs (this process, local
worker processes, a Dask cluster); every test's numbers are functions of the task alone (its
seed, its samples), so the results of a run are identical, bit for bit except the timing
fields, whatever the backend and its number of workers.

Backends sit above the audit: they import the task and its executor, and the audit run
(:func:`dpaudit.audit.run.run_audits`) receives a backend from its caller — the CLI, the
Python API or the pytest plugin — and never imports this package.

A backend may hold resources (a process pool, a cluster connection, a cluster it started):
use it as a context manager, or call :meth:`Backend.close`.
"""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Callable, Protocol

if TYPE_CHECKING:  # imported where used: dpaudit --help imports this module for BackendError
    from dpaudit.audit.procedures.base import Task
    from dpaudit.results.hierarchy import TestResult

#: called as ``on_task(i, result)`` when ``tasks[i]`` has finished
TaskDone = Callable[[int, "TestResult"], None]


class Job(Protocol):
    """Non-certifying work of a run (:class:`~dpaudit.audit.sweeps.DenseExactJob`,
    :class:`~dpaudit.audit.sweeps.SeriesJob`): ``run()`` returns a picklable result (a plain
    dict, or a typed value such as :class:`~dpaudit.results.series.SeriesResult`), never
    raises."""

    def run(self) -> object: ...


def run_job(job: Job) -> object:
    """``job.run()``: the module-level function a worker process calls."""
    return job.run()


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
    def run(self, tasks: list[Task], jobs: list[Job], on_task: TaskDone | None = None
            ) -> tuple[list[TestResult], list]:
        """Run ``tasks`` and ``jobs``.

        Args:
          tasks: the tests to compute.
          jobs: non-certifying work (dense exact curves, series).
          on_task: called once per finished task, ``on_task(i, result)``, in completion
            order (the run's journal and progress).

        Returns:
          (one :class:`~dpaudit.results.hierarchy.TestResult` per task, in task order; one
          result per job, in job order).  A task whose worker failed gives a result whose
          every certificate is an ``error`` (:meth:`~dpaudit.audit.procedures.base.Task.result`); a job
          whose worker failed gives ``{"error": message}``.
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


def worker_error(exc: BaseException, what: str = "job") -> str:
    """The ``error`` of a task (``what="test"``) or job whose worker failed with ``exc``."""
    from dpaudit.backends.pool_retry import WorkerDied, describe_exit
    from dpaudit.results.records import describe_exception

    if isinstance(exc, WorkerDied):
        return (f"worker process died while running this {what}, and again when retried "
                f"alone ({describe_exit(exc.exit_code)}); the other {what}s were re-run")
    return f"worker failed: {describe_exception(exc)}"


__all__ = ["Backend", "BackendError", "Job", "TaskDone", "run_job", "worker_error"]
