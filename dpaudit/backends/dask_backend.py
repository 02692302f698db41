"""The Dask backend: run a suite's certificates on a ``dask.distributed`` cluster.

* **Where.**  An existing cluster, by its scheduler address (:meth:`DaskBackend.connect`,
  ``dpaudit run --scheduler tcp://HOST:PORT``), or a ``LocalCluster`` of N worker processes
  started for the run and closed after it (:meth:`DaskBackend.local_cluster`, ``--cluster
  local:N``), or a ``distributed.Client`` you already hold (``DaskBackend(client)``).
* **What runs where.**  Each curve certificate is one task: it builds the mechanism, runs the
  selection pass (fits the statistics, keeps the events) and then counts the certification
  split through a :class:`~dpaudit.backends.dask_counter.DaskCounter`, which cuts a large split
  into chunk-range tasks across the workers and sums their counts (small certificates are
  counted in the task; the rule is in :mod:`dpaudit.backends.dask_counter`).  A sequential
  test's looks (:mod:`dpaudit.audit.rounds`) run one after the other inside its task, so a
  test that stops early costs one task and no round trip; only a look above the split rule's
  size sends chunk tasks.  The non-certifying jobs (dense exact curves, series) are one task
  each.  Larger certificates are submitted first.
* **What the workers need.**  dpaudit (same version) and numpy/scipy/scikit-learn importable,
  and the mechanism's code: registered mechanisms come with dpaudit; a ``module:Class``
  reference must be importable on the workers (installed, or on their ``PYTHONPATH``); code
  referenced by file path (``my_mech.py:Class``) is re-imported by the worker from that path,
  so the path must exist there (on a local cluster it does); objects given through the Python
  API (closures, lambdas, classes defined in a script) travel by value with cloudpickle.
* **Reproducibility.**  Every number is a function of the task's seed alone (chunked
  ``SeedSequence`` streams, integer counts): the records equal those of the local backend and
  of any number of workers, bit for bit except the timing fields.
* **Faults.**  Work is shipped as cloudpickled bytes; a worker that dies has its tasks
  recomputed elsewhere by Dask (same numbers); a chunk task that raised is retried
  ``retries`` times; a certificate task that still fails gives ``error`` records with the
  message.  An unreachable scheduler is a :class:`~dpaudit.backends.base.BackendError` after
  ``timeout`` seconds.  Ctrl-C (``KeyboardInterrupt``) cancels the run's tasks on the cluster
  (including the chunk tasks of running certificates) and re-raises; closing the backend
  closes a cluster it started.
* **A local cluster that pays** (:meth:`DaskBackend.local_cluster`, ``--cluster local:N``).
  Its workers run without the ``MALLOC_TRIM_THRESHOLD_`` that Dask's nannies set by default
  (``distributed.nanny.pre-spawn-environ``): setting it turns off glibc's adaptive mmap
  threshold, so every array above 128 KiB is a fresh ``mmap`` whose pages fault in one by one
  — 9× the page faults and a quarter more CPU time on a suite's certificates.  The cluster
  starts in a background thread while the run plans its suites, and its workers import the
  audit pipeline before the first task arrives (:func:`warm_worker`); the first use of the
  backend (``workers``, ``run``…) waits for both.  An existing cluster's workers are the
  deployment's business: start them with ``MALLOC_TRIM_THRESHOLD_`` unset (the Dask setting
  ``distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_: null``) for the same speed.
"""

from __future__ import annotations

import logging
import socket
import struct
import threading
import time
import uuid
from concurrent.futures import Future

import cloudpickle

from dpaudit.audit.procedures.base import run_test
from dpaudit.backends.base import Backend, BackendError, run_job
from dpaudit.results.records import describe_exception
from dpaudit.backends.dask_counter import DaskCounter
from dpaudit.util.processes import call_pickled

INSTALL_HINT = "pip install 'dpaudit[dask]'"
_ADDRESS_HINT = "(is it the scheduler's address, e.g. tcp://HOST:8786, not the dashboard's?)"
_HANDSHAKE_LIMIT = 1 << 20  # a Dask handshake is ~100 bytes; "HTTP/1.1" read as one: 3 EiB


def _import_distributed():
    try:
        import distributed
    except ImportError as exc:
        raise BackendError(f"the Dask backend needs dask.distributed ({INSTALL_HINT}): "
                           f"{exc}") from None
    return distributed


def _payload(fn, *args) -> bytes:
    try:
        return cloudpickle.dumps((fn, args))
    except Exception as exc:
        raise BackendError(f"cannot send {getattr(fn, '__name__', fn)!r} to the Dask cluster: "
                           f"{type(exc).__name__}: {exc}") from None


def _recv_exactly(sock: socket.socket, n: int, deadline: float) -> bytes:
    data = b""
    while len(data) < n:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("no Dask handshake within the timeout")
        sock.settimeout(left)
        try:
            chunk = sock.recv(n - len(data))
        except socket.timeout:
            raise TimeoutError("no Dask handshake within the timeout") from None
        if not chunk:
            raise ConnectionError("the connection was closed before a Dask handshake")
        data += chunk
    return data


def _probe(address: str, deadline: float) -> None:
    """Check that a Dask server answers at a ``tcp://`` ``address`` before ``deadline``.

    A Dask server speaks first: on connection it sends its handshake, one message framed as
    Dask's TCP comm frames every message (an 8-byte length, then frames of msgpack).  Read it
    with a size limit and decode it with Dask's own protocol; then answer with this side's
    handshake (so the scheduler sees an ordinary client hang up) and close.  Dask's own
    ``connect`` bounds only the TCP connect: an HTTP server (the dashboard) waits for a request
    while Dask waits for a handshake, forever, and a server that answers anything else has its
    first 8 bytes read as a length and allocated.  Other schemes (tls, inproc, ucx) are left
    to Dask.

    Raises:
      OSError, TimeoutError: nothing answers, or not a Dask server (the reason in the message).
    """
    from distributed.comm.addressing import parse_address, parse_host_port
    from distributed.protocol import dumps, loads
    from distributed.protocol.utils import pack_frames, unpack_frames

    scheme, location = parse_address(address)
    if scheme != "tcp":
        return
    host, port = parse_host_port(location)
    left = deadline - time.monotonic()
    try:
        sock = socket.create_connection((host, port), timeout=max(left, 0.01))
    except socket.timeout:
        raise TimeoutError("no connection within the timeout") from None
    with sock:
        size = _recv_exactly(sock, 8, deadline)
        (n,) = struct.unpack("Q", size)
        if not 0 < n <= _HANDSHAKE_LIMIT:
            raise ConnectionError(f"it answered {size!r}..., not the Dask protocol")
        try:
            handshake = loads(unpack_frames(_recv_exactly(sock, n, deadline)),
                              deserialize=False)
        except (OSError, TimeoutError):
            raise
        except Exception:
            handshake = None
        if not isinstance(handshake, dict):
            raise ConnectionError("it answered with something other than a Dask handshake")
        try:  # best effort: hang up as a client would, not in the middle of the handshake
            frames = pack_frames(dumps(dict(handshake)))
            sock.sendall(struct.pack("Q", len(frames)) + frames)
        except Exception:
            pass


_CLOSING_CLIENT = None


def _closing_client_class(distributed):
    """``distributed.Client`` that closes itself when its start fails: Dask closes a Client
    whose connect raised OSError only, so at a Dask server that is not a scheduler (a
    worker's address: a TypeError) the half-started Client, unreachable once its constructor
    raised, would be left to ``__del__`` (a traceback at exit)."""
    global _CLOSING_CLIENT
    if _CLOSING_CLIENT is None:
        class Client(distributed.Client):
            def start(self, **kwargs):
                try:
                    return super().start(**kwargs)
                except BaseException:
                    self.close()
                    raise

        _CLOSING_CLIENT = Client
    return _CLOSING_CLIENT


#: Dask settings of the clusters :meth:`DaskBackend.local_cluster` starts (module docstring):
#: no ``MALLOC_TRIM_THRESHOLD_`` in the workers' environment
LOCAL_CLUSTER_CONFIG = {"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}


def warm_worker() -> None:
    """Import what a worker needs to run a test (run on every worker of a local cluster while
    the run plans): the first task then starts computing at once."""
    import dpaudit.audit.procedures.table  # noqa: F401  (the task, the claims, the suite's targets)
    import dpaudit.distinguish.lower_bound  # noqa: F401  (the certificate)


def _start_local_cluster(distributed, n_workers: int, threads_per_worker: int):
    """(client, cluster): a LocalCluster of ``n_workers`` processes on 127.0.0.1 with
    :data:`LOCAL_CLUSTER_CONFIG`, its workers warmed; closes what it started if it fails.

    Raises:
      BackendError: the cluster did not start.
    """
    import dask.config

    cluster = client = None
    try:
        # the nannies read the environment and the workers' config when they are created
        with dask.config.set(LOCAL_CLUSTER_CONFIG):
            cluster = distributed.LocalCluster(
                n_workers=n_workers, threads_per_worker=threads_per_worker, processes=True,
                host="127.0.0.1", dashboard_address=None, silence_logs=logging.ERROR,
                # no dashboard; the scheduler's HTTP routes on a free loopback port, not
                # 8787 (another cluster's port: Dask would warn and pick another)
                scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"})
        client = distributed.Client(cluster, set_as_default=False)
        client.run(warm_worker)
    except BaseException as exc:  # KeyboardInterrupt too: close what has started
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
        if not isinstance(exc, Exception):
            raise
        raise BackendError(f"cannot start a local Dask cluster of {n_workers} workers: "
                           f"{describe_exception(exc)}") from None
    return client, cluster


class DaskBackend(Backend):
    """Run tasks on the Dask cluster behind ``client`` (see the module docstring).

    Args:
      client: a connected ``distributed.Client``.
      cluster: a cluster this backend started and must close (``local_cluster``), else None.
      owns_client: close ``client`` on :meth:`close` (true for the constructors below).
      chunks_per_task, max_tasks_per_side, retries: how certification splits are cut into
        tasks and retried (:class:`~dpaudit.backends.dask_counter.DaskCounter`); ``retries``
        also applies to certificate tasks.
    """

    kind = "dask"

    def __init__(self, client, *, cluster=None, owns_client: bool = False,
                 chunks_per_task: int = 16, max_tasks_per_side: int = 512, retries: int = 2):
        self._client = client
        self._cluster = cluster
        self._starting: Future | None = None  # a local cluster starting in the background
        self._owns_client = owns_client
        self._options = dict(chunks_per_task=chunks_per_task,
                             max_tasks_per_side=max_tasks_per_side, retries=retries)
        DaskCounter(**self._options)  # validates the options
        self.retries = retries

    @property
    def client(self):
        """The ``distributed.Client`` (waits for a local cluster still starting).

        Raises:
          BackendError: the local cluster did not start.
        """
        self._wait_started()
        return self._client

    @property
    def cluster(self):
        """The cluster this backend started (waits for it), or None."""
        self._wait_started()
        return self._cluster

    def _wait_started(self) -> None:
        if self._starting is not None:
            self._client, self._cluster = self._starting.result()  # raises its BackendError
            self._starting = None

    @classmethod
    def connect(cls, address: str, *, timeout: float = 5.0, **options) -> "DaskBackend":
        """Connect to the scheduler at ``address`` (e.g. ``tcp://10.0.0.5:8786``).

        A ``tcp://`` address is first probed within ``timeout`` (:func:`_probe`): a Dask
        server must answer with its handshake, so the dashboard's HTTP port or any other
        service is refused without hanging or reading its bytes as a message length; then
        ``distributed.Client`` connects with the time left (each of its steps bounded by it).

        Raises:
          BackendError: dask.distributed is not installed, or no Dask scheduler answers at
            ``address`` within ``timeout`` seconds, in one line ("cannot reach the Dask
            scheduler at ADDRESS: REASON (is it the scheduler's address, e.g.
            tcp://HOST:8786, not the dashboard's?)").
        """
        distributed = _import_distributed()
        if not isinstance(address, str) or not address.strip():
            raise BackendError(f"expected a Dask scheduler address such as "
                               f"tcp://HOST:8786, got {address!r}")
        deadline = time.monotonic() + float(timeout)
        try:
            _probe(address, deadline)
            left = max(deadline - time.monotonic(), 0.1)
            client = _closing_client_class(distributed)(address, timeout=f"{left}s",
                                                        set_as_default=False)
        except Exception as exc:  # the protocol's MemoryError, AssertionError... included
            reason = " ".join(str(exc).split()) or type(exc).__name__
            raise BackendError(f"cannot reach the Dask scheduler at {address}: {reason} "
                               f"{_ADDRESS_HINT}") from None
        return cls(client, owns_client=True, **options)

    @classmethod
    def local_cluster(cls, n_workers: int, *, threads_per_worker: int = 1, wait: bool = True,
                      **options) -> "DaskBackend":
        """Start a ``LocalCluster`` of ``n_workers`` worker processes on 127.0.0.1 (one thread
        each, no dashboard, :data:`LOCAL_CLUSTER_CONFIG`) and import the audit pipeline on
        its workers; :meth:`close` shuts it down.

        Args:
          wait: return once the cluster runs; False: return at once and start it in a
            background thread (what ``dpaudit run --cluster`` does, while it plans): the
            backend's first use waits for it and raises its BackendError.

        Raises:
          BackendError: dask.distributed is not installed or (``wait``) the cluster did not
            start.
          ValueError: ``n_workers`` is not a positive integer.
        """
        if isinstance(n_workers, bool) or not isinstance(n_workers, int) or n_workers < 1:
            raise ValueError(f"n_workers: expected a positive integer, got {n_workers!r}")
        distributed = _import_distributed()
        backend = cls(None, owns_client=True, **options)
        starting: Future = Future()

        def start() -> None:
            try:
                starting.set_result(_start_local_cluster(distributed, n_workers,
                                                         threads_per_worker))
            except BaseException as exc:
                starting.set_exception(exc)

        backend._starting = starting
        threading.Thread(target=start, name="dpaudit-dask-cluster-start", daemon=True).start()
        if wait:
            try:
                backend._wait_started()
            except BaseException:  # KeyboardInterrupt while waiting: close it once started
                backend.close()
                raise
        return backend

    @property
    def workers(self) -> int:
        return len(self.client.scheduler_info(n_workers=-1).get("workers", {}))

    def describe(self) -> str:
        where = "local cluster" if self.cluster is not None else self.client.scheduler.address
        return f"dask: {where}, {self.workers} workers"

    #: seconds a run waits for the scheduler's first worker before it is an error (issue 39,
    #: item 9: a scheduler with no workers made a run wait forever)
    worker_wait: float = 60.0

    def _wait_for_a_worker(self) -> None:
        """Raise :class:`BackendError` when no worker joins within :attr:`worker_wait`."""
        try:
            self.client.wait_for_workers(1, timeout=self.worker_wait)
        except Exception as exc:  # distributed's TimeoutError, or a lost scheduler
            raise BackendError(
                f"the Dask scheduler at {self.client.scheduler.address} has no workers (none "
                f"joined within {self.worker_wait:g} s: {type(exc).__name__}); start some "
                f"(`dask worker ADDRESS`) or run locally with --workers N") from None

    def run(self, tasks, jobs, on_task=None):
        from distributed import Event, as_completed

        if tasks or jobs:
            self._wait_for_a_worker()
        run_id = uuid.uuid4().hex[:12]
        counter = DaskCounter(**self._options, cancel_event=f"dpaudit-cancel-{run_id}")
        futures = {}
        for k, job in enumerate(jobs):
            futures[self.client.submit(call_pickled, _payload(run_job, job),
                                       key=f"dpaudit-{run_id}-job-{k}", pure=False,
                                       retries=self.retries)] = ("job", k)
        # larger certificates first, so that a long one does not start last
        for rank, i in enumerate(sorted(range(len(tasks)), key=lambda i: -tasks[i].cost)):
            futures[self.client.submit(call_pickled, _payload(run_test, tasks[i], counter),
                                       key=f"dpaudit-{run_id}-task-{i}", pure=False,
                                       retries=self.retries,
                                       priority=-rank)] = ("task", i)
        results: list = [None] * len(tasks)
        job_results: list = [None] * len(jobs)
        try:
            for future in as_completed(list(futures), loop=self.client.loop):
                kind, i = futures[future]
                try:
                    value = future.result()
                except Exception as exc:  # a worker died too often, a task could not run
                    error = f"worker failed: {describe_exception(exc)}"
                    value = {"error": error} if kind == "job" else tasks[i].result(error=error)
                future.release()
                if kind == "job":
                    job_results[i] = value
                    continue
                results[i] = value
                if on_task:
                    on_task(i, value)
        except BaseException:  # KeyboardInterrupt above all: stop the cluster's work
            Event(counter.cancel_event, client=self.client).set()
            self.client.cancel(list(futures), force=True)
            raise
        return results, job_results

    def close(self) -> None:
        if self._starting is not None:  # wait for the start, then close what it started
            try:
                self._wait_started()
            except BackendError:  # it closed what it had started
                self._starting = None
                return
        if self._owns_client and self._client is not None:
            self._client.close()
            self._client = None
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None


__all__ = ["DaskBackend", "INSTALL_HINT", "LOCAL_CLUSTER_CONFIG", "warm_worker"]
