"""Local process pools that are safe next to threaded numerical libraries.

Every process pool in dpaudit starts its workers with the ``forkserver`` method, never with a
plain ``fork`` of the calling process.  A forked child inherits the parent's OpenMP and BLAS
thread pools in whatever state they were (scikit-learn's gradient boosting, OpenBLAS), and the
first parallel region in the child can then wait forever on threads that do not exist there.
The fork server is a clean, single-threaded process started once; workers forked from it
import what they need, which is why everything a task carries must be picklable by reference
(registry names, plain data, module-level callables).
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor


def process_pool(max_workers: int) -> ProcessPoolExecutor:
    """A :class:`ProcessPoolExecutor` of ``max_workers`` processes from a clean fork server."""
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    return ProcessPoolExecutor(max_workers=max(1, int(max_workers)),
                               mp_context=multiprocessing.get_context(method))
