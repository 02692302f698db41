"""Local process pools that are safe next to threaded numerical libraries.

Every process pool in dpaudit starts its workers with the ``forkserver`` method, never with a
plain ``fork`` of the calling process.  A forked child inherits the parent's OpenMP and BLAS
thread pools in whatever state they were (scikit-learn's gradient boosting, OpenBLAS), and the
first parallel region in the child can then wait forever on threads that do not exist there.
The fork server is a clean, single-threaded process started once; workers forked from it
import what they need.

Work goes in through :func:`submit`, which serialises the function and its arguments with
cloudpickle: closures, lambdas and classes defined in ``__main__`` (a script, a Jupyter
notebook) travel by value, everything importable by reference.

Workers never re-execute the caller's ``__main__``.  multiprocessing normally sends every
child the path (or module name) of the main script, and the child runs it again as
``__mp_main__`` so that pickles can find ``__main__`` functions; a script without an ``if
__name__ == "__main__":`` guard then starts its whole audit again in every worker and the pool
breaks.  The pool's processes (``_ForkServerProcess``, ``_SpawnProcess``) drop that entry from their preparation data;
they need nothing from ``__main__`` because cloudpickle carried it by value.  So
:func:`process_pool` works from a plain script without a guard, from ``python -m``, and from
Jupyter (whose main module has no file).

:func:`stop_pool` (Ctrl-C) terminates the workers at once.  Workers end themselves within :data:`WATCH_INTERVAL` seconds when the process that created
their pool disappears (killed by SIGKILL or a CI timeout): nothing is left running that no one
can collect.

Each worker also limits OpenMP/BLAS to one thread: the pool already runs one worker per core,
and a worker whose gradient-boosting or BLAS call started a thread per core on top of that
would oversubscribe the machine (OpenMP's spinning threads make that far slower than serial).
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.context
import multiprocessing.spawn
import os
import signal
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor

import cloudpickle

def _one_thread_per_worker() -> None:
    """Pool initializer: one OpenMP/BLAS thread in this worker process
    (:func:`dpaudit.util.threads.pin_process`)."""
    from dpaudit.util.threads import pin_process

    pin_process()


#: how often a worker checks that the process that started its pool is still alive (seconds)
WATCH_INTERVAL = 1.0


def owner_gone(owner: int) -> bool:
    """Whether process ``owner`` has ended: it no longer exists, its pid now belongs to another
    user's process, or it is a *zombie* — dead, but not yet reaped by its own parent (a
    SIGKILLed ``dpaudit run`` whose parent reads its pipes to EOF before waiting, as
    ``subprocess.run(capture_output=True)`` and CI runners do).  ``os.kill(owner, 0)`` succeeds
    on a zombie, so its state is read from ``/proc`` where there is one."""
    try:
        os.kill(owner, 0)
    except (ProcessLookupError, PermissionError):  # gone, or the pid was reused
        return True
    try:
        with open(f"/proc/{owner}/stat", encoding="ascii", errors="replace") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (OSError, IndexError):  # no /proc (not Linux), or it ended just now
        return False


def _exit_when_gone(owner: int) -> None:
    """Worker thread: end this worker as soon as ``owner`` (the process that created the pool)
    has ended (:func:`owner_gone`) — it was killed (SIGKILL, a CI timeout) and cannot collect
    results, so the worker must not keep a core and hundreds of MB busy as an orphan (and the
    fork server and the resource tracker, which last as long as a worker holds their pipes)."""
    while True:
        time.sleep(WATCH_INTERVAL)
        if owner_gone(owner):
            os._exit(1)


def _worker_setup(owner: int) -> None:
    """Pool initializer: one OpenMP/BLAS thread, and a watch on the pool's owner."""
    _one_thread_per_worker()
    threading.Thread(target=_exit_when_gone, args=(owner,), daemon=True,
                     name="dpaudit-owner-watch").start()


_MAIN_KEYS = ("init_main_from_path", "init_main_from_name")
_starting = threading.local()  # set while one of our processes is being started
_install_lock = threading.Lock()
_installed = False


def _install_main_filter() -> None:
    """Wrap :func:`multiprocessing.spawn.get_preparation_data` once: while one of this module's
    processes starts (in this thread), the main script's path and name are left out."""
    global _installed
    with _install_lock:
        if _installed:
            return
        original = multiprocessing.spawn.get_preparation_data

        def get_preparation_data(name):
            data = original(name)
            if getattr(_starting, "active", False):
                for key in _MAIN_KEYS:
                    data.pop(key, None)
            return data

        multiprocessing.spawn.get_preparation_data = get_preparation_data
        _installed = True


def _start_without_main(base_process, process_obj):
    """``base_process._Popen(process_obj)`` with the main script left out of the child's
    preparation data."""
    _starting.active = True
    try:
        return base_process._Popen(process_obj)
    finally:
        _starting.active = False


class _SpawnProcess(multiprocessing.context.SpawnProcess):
    @staticmethod
    def _Popen(process_obj):  # noqa: N802 - multiprocessing's name
        return _start_without_main(multiprocessing.context.SpawnProcess, process_obj)


class _SpawnContext(multiprocessing.context.SpawnContext):
    Process = _SpawnProcess


if hasattr(multiprocessing.context, "ForkServerContext"):  # not on Windows
    class _ForkServerProcess(multiprocessing.context.ForkServerProcess):
        @staticmethod
        def _Popen(process_obj):  # noqa: N802 - multiprocessing's name
            return _start_without_main(multiprocessing.context.ForkServerProcess, process_obj)

    class _ForkServerContext(multiprocessing.context.ForkServerContext):
        Process = _ForkServerProcess


#: the ``-W`` option that silences the resource tracker's warnings about what it unlinks for a
#: killed process (see :func:`_quiet_resource_tracker`)
QUIET_TRACKER = "ignore:resource_tracker:UserWarning:multiprocessing.resource_tracker"


def _quiet_resource_tracker() -> None:
    """Start multiprocessing's resource tracker (when this process starts it) without its
    warnings about "leaked" semaphores.

    A pool's queues hold named semaphores that the resource tracker (a process of its own)
    unlinks if their owner ends without doing so.  When ``dpaudit`` is SIGKILLed — a CI
    timeout's last resort — the tracker does exactly that, and says so on the inherited
    stderr: "UserWarning: resource_tracker: There appear to be 5 leaked semaphore objects to
    clean up at shutdown" plus the warning's source line, after the run is gone (issue 39,
    item 12(d)).  Nothing is leaked — the unlinking *is* the cleanup — so the tracker is
    started with that warning ignored: it inherits this interpreter's ``-W`` options
    (:data:`sys.warnoptions`), to which :data:`QUIET_TRACKER` is added.  A tracker already
    running (started by other code of this process) keeps its options."""
    import sys

    if QUIET_TRACKER not in sys.warnoptions:
        sys.warnoptions.append(QUIET_TRACKER)


def process_pool(max_workers: int) -> ProcessPoolExecutor:
    """A :class:`ProcessPoolExecutor` of ``max_workers`` processes from a clean fork server,
    whose workers do not re-run the caller's ``__main__``; give it work with :func:`submit`."""
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    _install_main_filter()
    _quiet_resource_tracker()
    return ProcessPoolExecutor(max_workers=max(1, int(max_workers)),
                               mp_context=(_ForkServerContext() if method == "forkserver"
                                           else _SpawnContext()),
                               initializer=_worker_setup, initargs=(os.getpid(),))


def worker_processes(pool: ProcessPoolExecutor) -> dict:
    """``pool``'s worker processes started so far, by pid (a copy).  The
    :class:`multiprocessing.Process` objects stay valid after the pool broke or shut down,
    so their ``exitcode`` says how a worker ended."""
    return dict(getattr(pool, "_processes", None) or {})  # the stdlib pool's


def describe_exit(exit_code: int | None) -> str:
    """How a worker process ended, e.g. ``"killed by SIGKILL: out of memory?"``."""
    if exit_code is None:
        return "exit status unknown"
    if exit_code >= 0:
        return f"exit code {exit_code}"
    try:
        name = signal.Signals(-exit_code).name
    except ValueError:
        name = f"signal {-exit_code}"
    hint = ": out of memory?" if -exit_code == getattr(signal, "SIGKILL", 9) else ""
    return f"killed by {name}{hint}"


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """Stop ``pool`` now (Ctrl-C): cancel the work that has not started and terminate the
    workers instead of waiting for their running tasks, which can take minutes."""
    processes = list(worker_processes(pool).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        try:
            process.terminate()
        except (OSError, ValueError):  # already gone
            pass


def call_pickled(payload: bytes):
    """Worker side of :func:`submit`: unpickle ``(fn, args)`` and call ``fn(*args)``."""
    fn, args = cloudpickle.loads(payload)
    return fn(*args)


def submit(pool: ProcessPoolExecutor, fn, *args) -> Future:
    """``pool.submit(fn, *args)`` with ``fn`` and ``args`` serialised by cloudpickle.

    Raises:
      TypeError: something in ``fn`` or ``args`` cannot be serialised even by value (an open
        file, a lock, a generator); the message names it.
    """
    try:
        payload = cloudpickle.dumps((fn, args))
    except Exception as exc:
        raise TypeError(f"cannot send {getattr(fn, '__name__', fn)!r} to a worker process: "
                        f"{type(exc).__name__}: {exc} (use workers=1, or pass picklable "
                        f"objects)") from None
    return pool.submit(call_pickled, payload)
