"""Execution backends: where a run's certificates are computed.

:class:`Backend` is the contract (:mod:`dpaudit.backends.base`); :class:`LocalBackend` runs in
this process or a local process pool; :class:`~dpaudit.backends.dask_backend.DaskBackend` runs
on a ``dask.distributed`` cluster (``pip install 'dpaudit[dask]'``; imported lazily, so dpaudit
works without dask).  :func:`make_backend` and :func:`resolve_backend` turn CLI flags and the
Python API's ``backend=`` into a backend.  The records of a run do not depend on the backend.
"""

from typing import TYPE_CHECKING

from dpaudit.backends.base import Backend, BackendError
from dpaudit.backends.choose import make_backend, parse_cluster, resolve_backend

if TYPE_CHECKING:
    from dpaudit.backends.local import LocalBackend, default_workers


def __getattr__(name: str):
    """``LocalBackend`` and ``default_workers`` on first use (PEP 562): the local backend
    imports the audit pipeline, which ``dpaudit --help`` (``add_backend_arguments``) does not
    need."""
    if name in ("LocalBackend", "default_workers"):
        from dpaudit.backends import local

        return getattr(local, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["Backend", "BackendError", "LocalBackend", "default_workers", "make_backend",
           "parse_cluster", "resolve_backend"]
