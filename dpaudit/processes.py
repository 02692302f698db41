"""Local process pools that are safe next to threaded numerical libraries.

Every process pool in dpaudit starts its workers with the ``forkserver`` method, never with a
plain ``fork`` of the calling process.  A forked child inherits the parent's OpenMP and BLAS
thread pools in whatever state they were (scikit-learn's gradient boosting, OpenBLAS), and the
first parallel region in the child can then wait forever on threads that do not exist there.
The fork server is a clean, single-threaded process started once; workers forked from it
import what they need, which is why everything a task carries must be picklable by reference
(registry names, plain data, module-level callables).

Each worker also limits OpenMP/BLAS to one thread: the pool already runs one worker per core,
and a worker whose gradient-boosting or BLAS call started a thread per core on top of that
would oversubscribe the machine (OpenMP's spinning threads make that far slower than serial).
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor

_THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
_limits = None  # keeps the threadpoolctl limit alive for the worker's lifetime


def _one_thread_per_worker() -> None:
    """Pool initializer: one OpenMP/BLAS thread in this worker process."""
    global _limits
    for name in _THREAD_VARIABLES:
        os.environ[name] = "1"  # for libraries loaded later in this worker
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # threadpoolctl comes with scikit-learn; without it, env vars only
        return
    _limits = threadpool_limits(limits=1)  # for libraries already loaded


def process_pool(max_workers: int) -> ProcessPoolExecutor:
    """A :class:`ProcessPoolExecutor` of ``max_workers`` processes from a clean fork server."""
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    return ProcessPoolExecutor(max_workers=max(1, int(max_workers)),
                               mp_context=multiprocessing.get_context(method),
                               initializer=_one_thread_per_worker)
