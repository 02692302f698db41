"""One numerical thread wherever a certified number is computed.

A BLAS or OpenMP library (OpenBLAS, MKL, the OpenMP of scikit-learn's gradient boosting) may
split a reduction over threads, and the order of a floating-point sum changes its last bits:
the same seed could then certify a different ε with ``--workers 1`` (the main process, with
every core's threads) than with ``--workers 2`` (pool workers).  So the numbers are computed
with one thread everywhere:

* :func:`one_numerical_thread` — a context manager that limits every loaded BLAS/OpenMP pool to
  one thread for its body (:mod:`threadpoolctl`) and restores the previous limits after it;
  :func:`dpaudit.audit.execute.run_task` (every route: suites, the Python API, the pytest
  plugin, local pools, Dask workers) and :func:`dpaudit.check.runner.check_mechanism` run in
  it;
* :func:`pin_process` — for a worker process: the environment variables for libraries it
  loads later, and a limit for those already loaded, for the process's lifetime.

No number depends on the machine's core count, the backend or the number of workers.
"""

from __future__ import annotations

import contextlib
import os

#: the variables BLAS/OpenMP libraries read when they are loaded
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
_process_limits = None  # keeps a worker process's limit alive for its lifetime


@contextlib.contextmanager
def one_numerical_thread():
    """Every loaded BLAS/OpenMP thread pool limited to one thread inside the block."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        yield


def pin_process() -> None:
    """One BLAS/OpenMP thread in this (worker) process, for its lifetime: the environment
    for libraries loaded later, a :mod:`threadpoolctl` limit for those already loaded."""
    global _process_limits
    for name in THREAD_VARIABLES:
        os.environ[name] = "1"
    from threadpoolctl import threadpool_limits

    _process_limits = threadpool_limits(limits=1)


__all__ = ["THREAD_VARIABLES", "one_numerical_thread", "pin_process"]
