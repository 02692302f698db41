"""``--scheduler`` at something that is not a Dask scheduler (issue 27): a one-line error within
the connect timeout, never a hang or a traceback.

Reproduced before the fix: at a LocalCluster's dashboard (HTTP) port ``dpaudit run`` hung (the
HTTP server waits for a request, Dask's client for a handshake, neither bounded); at a plain TCP
server answering ``HTTP/1.1 400 ...`` Dask read "HTTP/1.1" as a little-endian frame length and
tried to allocate 3.5e18 bytes (a MemoryError traceback).  Every server here is on 127.0.0.1,
started and stopped by the test; every CLI run is a subprocess with ``timeout=60``, every
in-process connect a thread joined with a bound, so a hang fails the test instead of blocking.
"""

from __future__ import annotations

import socket
import socketserver
import subprocess
import sys
import threading
import time

import pytest

pytest.importorskip("distributed")

from dpaudit.backends import BackendError  # noqa: E402
from dpaudit.backends.dask_backend import DaskBackend  # noqa: E402

HINT = "(is it the scheduler's address, e.g. tcp://HOST:8786, not the dashboard's?)"

SUITE = """\
[suite]
samples = 20000
[[audit]]
name = "laplace"
mechanism = "laplace"
params = { epsilon = 1.0 }
"""


def run_cli(tmp_path, address):
    """``dpaudit run --scheduler ADDRESS`` in a subprocess: (status, stderr, seconds)."""
    (tmp_path / "suite.toml").write_text(SUITE)
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "dpaudit.cli", "run", "suite.toml", "--out",
                           "out", "--scheduler", address, "--quiet"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    return proc.returncode, proc.stderr, time.monotonic() - start


def assert_one_line_error(status, err, address):
    assert status == 2, err[-3000:]
    assert "Traceback" not in err, err[-3000:]
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err[-3000:]
    assert lines[0].startswith(f"dpaudit: error: cannot reach the Dask scheduler at {address}: ")
    assert lines[0].endswith(HINT)


def connect_bounded(address, timeout, bound=60.0):
    """``DaskBackend.connect`` in a daemon thread joined within ``bound`` seconds:
    (the exception it raised or None, seconds)."""
    box = {}

    def target():
        try:
            DaskBackend.connect(address, timeout=timeout).close()
        except BaseException as exc:  # noqa: BLE001 - reported to the test
            box["error"] = exc

    start = time.monotonic()
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(bound)
    assert not thread.is_alive(), f"DaskBackend.connect({address!r}) still running after {bound} s"
    return box.get("error"), time.monotonic() - start


class FakeServer(socketserver.ThreadingTCPServer):
    """A TCP server on 127.0.0.1 that is not Dask; ``behaviour`` says what it does with a
    connection: ``http`` reads a little and answers an HTTP 400, ``noise`` sends bytes whose
    first 8 read as an 18 EiB length, ``silent`` says nothing and keeps the connection open,
    ``hangup`` closes at once."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, behaviour):
        self.behaviour = behaviour
        self.stop = threading.Event()
        super().__init__(("127.0.0.1", 0), FakeHandler)

    @property
    def address(self):
        return f"tcp://127.0.0.1:{self.server_address[1]}"


class FakeHandler(socketserver.BaseRequestHandler):
    def handle(self):
        sock, server = self.request, self.server
        sock.settimeout(1.0)
        if server.behaviour == "http":
            try:
                sock.recv(4096)
            except OSError:
                pass
            sock.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n"
                         b"Connection: close\r\n\r\n")
        elif server.behaviour == "noise":
            sock.sendall(b"\xff" * 64)
            server.stop.wait(30)  # the peer decides when to hang up
        elif server.behaviour == "silent":
            server.stop.wait(30)


@pytest.fixture
def fake_server(request):
    server = FakeServer(request.param)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.stop.set()
        server.shutdown()
        server.server_close()
        thread.join(10)


@pytest.mark.slow  # over a second (the fast loop's rule)
@pytest.mark.parametrize("fake_server", ["http", "noise"], indirect=True)
def test_cli_at_a_tcp_server_that_is_not_dask_is_a_one_line_error(tmp_path, fake_server):
    status, err, seconds = run_cli(tmp_path, fake_server.address)
    assert_one_line_error(status, err, fake_server.address)
    assert "MemoryError" not in err and "EiB" not in err
    assert seconds < 30


@pytest.mark.slow  # over a second (the fast loop's rule)
@pytest.mark.parametrize("fake_server", ["http", "noise", "silent", "hangup"], indirect=True)
def test_connect_to_a_server_that_is_not_dask_fails_within_the_timeout(fake_server):
    before = set(threading.enumerate())
    error, seconds = connect_bounded(fake_server.address, timeout=1.0)
    assert isinstance(error, BackendError), repr(error)
    message = str(error)
    assert message.startswith(f"cannot reach the Dask scheduler at {fake_server.address}: ")
    assert message.endswith(HINT) and "\n" not in message
    assert seconds < 5, f"{seconds:.1f} s with a 1 s timeout"
    time.sleep(0.2)
    left = [t for t in set(threading.enumerate()) - before if t.is_alive()
            and not t.name.startswith(("Thread-", "ThreadPoolExecutor"))]
    assert not left, f"threads left running after a failed connect: {left}"


@pytest.mark.slow
def test_cli_with_nothing_listening_stays_fast(tmp_path):
    with socket.socket() as s:  # a free port nobody listens on
        s.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{s.getsockname()[1]}"
    status, err, seconds = run_cli(tmp_path, address)
    assert_one_line_error(status, err, address)
    assert seconds < 20


@pytest.fixture(scope="module")
def dashboard_cluster():
    from distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp",
                      host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster:
        yield cluster


@pytest.mark.slow
def test_cli_at_the_dashboard_port_is_a_one_line_error_not_a_hang(tmp_path, dashboard_cluster):
    port = dashboard_cluster.scheduler.http_server.port
    address = f"tcp://127.0.0.1:{port}"
    status, err, seconds = run_cli(tmp_path, address)
    assert_one_line_error(status, err, address)
    assert seconds < 30


@pytest.mark.slow
def test_the_scheduler_address_itself_still_connects(dashboard_cluster):
    backend = DaskBackend.connect(dashboard_cluster.scheduler_address, timeout=5.0)
    try:
        assert backend.workers == 1
    finally:
        backend.close()


@pytest.mark.slow
def test_a_worker_address_is_not_a_scheduler(dashboard_cluster):
    worker = next(iter(dashboard_cluster.scheduler.workers))
    error, seconds = connect_bounded(worker, timeout=2.0)
    assert isinstance(error, BackendError), repr(error)
    assert str(error).startswith(f"cannot reach the Dask scheduler at {worker}: ")
    assert seconds < 10
