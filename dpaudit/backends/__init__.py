"""Execution backends: where a run's certificates are computed.

:class:`Backend` is the contract (:mod:`dpaudit.backends.base`); :class:`LocalBackend` runs in
this process or a local process pool; :class:`~dpaudit.backends.dask_backend.DaskBackend` runs
on a ``dask.distributed`` cluster (``pip install 'dpaudit[dask]'``; imported lazily, so dpaudit
works without dask).  :func:`make_backend` and :func:`resolve_backend` turn CLI flags and the
Python API's ``backend=`` into a backend.  The records of a run do not depend on the backend.
"""

from dpaudit.backends.base import Backend, BackendError
from dpaudit.backends.choose import make_backend, parse_cluster, resolve_backend
from dpaudit.backends.local import LocalBackend, default_workers

__all__ = ["Backend", "BackendError", "LocalBackend", "default_workers", "make_backend",
           "parse_cluster", "resolve_backend"]
