"""Choosing a backend from what a user typed: CLI flags or the Python API's ``backend=``.

* ``--workers W`` / ``workers=W``: :class:`~dpaudit.backends.local.LocalBackend` (W local
  processes; 1 runs in-process).
* ``--scheduler tcp://HOST:PORT`` / ``backend="tcp://HOST:PORT"`` (any ``scheme://`` address
  Dask understands): :meth:`DaskBackend.connect <dpaudit.backends.dask_backend.DaskBackend.
  connect>`.
* ``--cluster local:N`` / ``backend="local:N"``: a Dask ``LocalCluster`` of N worker
  processes started for the run (:meth:`DaskBackend.local_cluster
  <dpaudit.backends.dask_backend.DaskBackend.local_cluster>`).
* ``backend=`` a :class:`~dpaudit.backends.base.Backend` (used as is, not closed) or a
  ``distributed.Client`` (wrapped, not closed).
"""

from __future__ import annotations

import argparse
import re

from dpaudit.backends.base import Backend, BackendError

_LOCAL = re.compile(r"local:(\d+)")


def parse_cluster(text: str) -> int:
    """``"local:N"`` → N (>= 1).

    Raises:
      BackendError: anything else ("expected local:N ...").
    """
    match = _LOCAL.fullmatch(str(text).strip())
    if not match or int(match.group(1)) < 1:
        raise BackendError(f"expected a cluster such as local:4 (a Dask LocalCluster of 4 "
                           f"worker processes on this machine), got {text!r}")
    return int(match.group(1))


def add_backend_arguments(parser: argparse.ArgumentParser, workers_type) -> None:
    """Add ``--workers W`` | ``--scheduler ADDRESS`` | ``--cluster local:N`` (mutually
    exclusive) to ``dpaudit run``'s parser; ``workers_type`` parses ``--workers``."""
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--workers", type=workers_type, metavar="W",
                       help="local worker processes (default: the number of CPU cores; 1 runs "
                            "in-process)")
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="run on an existing Dask cluster, e.g. tcp://HOST:8786 (its workers "
                            "need dpaudit and the audited code importable); same numbers as "
                            "a local run")
    where.add_argument("--cluster", metavar="local:N", type=_cluster_argument,
                       help="start a Dask LocalCluster of N worker processes on this machine "
                            "for the run (closed at the end); same numbers as a local run")


def _cluster_argument(text: str) -> str:
    try:
        parse_cluster(text)
    except BackendError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def make_backend(*, scheduler: str | None = None, cluster: str | None = None,
                 workers: int = 1, timeout: float = 5.0) -> Backend:
    """The backend the CLI flags ask for (at most one of ``scheduler`` and ``cluster``).

    A local cluster starts in the background (:meth:`DaskBackend.local_cluster
    <dpaudit.backends.dask_backend.DaskBackend.local_cluster>` with ``wait=False``): a cluster
    that does not start is a BackendError at the backend's first use.

    Raises:
      BackendError: both given, a malformed cluster, dask missing, an unreachable scheduler.
    """
    if scheduler is not None and cluster is not None:
        raise BackendError("give at most one of a scheduler address and a local cluster")
    if scheduler is not None:
        from dpaudit.backends.dask_backend import DaskBackend
        return DaskBackend.connect(scheduler, timeout=timeout)
    if cluster is not None:  # started in the background while the run plans its suites
        from dpaudit.backends.dask_backend import DaskBackend
        return DaskBackend.local_cluster(parse_cluster(cluster), wait=False)
    from dpaudit.backends.local import LocalBackend
    return LocalBackend(workers)


def resolve_backend(backend, workers: int = 1, *, isolate: bool = False
                    ) -> tuple[Backend, bool]:
    """(backend, owned) for the Python API's ``backend=`` argument: ``owned`` is true when
    this call created it and must close it.  ``isolate``: local worker processes even for
    ``workers == 1`` (:class:`~dpaudit.backends.local.LocalBackend`); only without
    ``backend``.

    Raises:
      BackendError: an unusable value (with what is accepted), dask missing, an unreachable
        scheduler.
      ValueError: ``isolate`` with a ``backend``.
    """
    if isolate and backend is not None:
        raise ValueError("isolate=True runs the tests in local worker processes; a backend= "
                         "runs them where it runs them: give one or the other")
    if backend is None:  # as before backends existed: workers <= 1 runs in-process
        from dpaudit.backends.local import LocalBackend
        return LocalBackend(max(1, int(workers)), isolate=isolate), True
    if isinstance(backend, Backend):
        return backend, False
    if isinstance(backend, str):
        if "://" in backend:
            return make_backend(scheduler=backend), True
        if backend.startswith("local:"):
            return make_backend(cluster=backend), True
    if type(backend).__name__ == "Client" and type(backend).__module__.startswith("distributed"):
        from dpaudit.backends.dask_backend import DaskBackend
        return DaskBackend(backend), False
    raise BackendError(f"backend: expected a Backend, a distributed.Client, a scheduler "
                       f"address such as 'tcp://HOST:8786' or 'local:N', got {backend!r}")


__all__ = ["add_backend_arguments", "make_backend", "parse_cluster", "resolve_backend"]
