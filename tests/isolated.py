"""Environments of their own for the libraries whose pins conflict with the test extra's.

SmartNoise SQL 1.0.10 needs ``opendp<0.15`` (the test extra pins 0.16.0 for the OpenDP
adapter); Tumult Core needs ``numpy<2``, ``pandas<2``, ``sympy<1.13`` and ``pyspark<3.6``.
:func:`environment` builds a virtual environment for one of pyproject's extras
(``smartnoise``, ``tumult-core``) with dpaudit's own runtime dependencies and pytest, the way
a user does (an install of the pinned distributions), and caches it under
``$DPAUDIT_ENV_CACHE`` (default ``~/.cache/dpaudit/envs``), keyed by a hash of the
requirements: the first test run pays the install, later runs reuse it.  dpaudit itself is not
installed there: :func:`run` puts this checkout on ``PYTHONPATH``, so the environment never
goes stale when the code changes.

**Installer.**  ``uv`` (the test extra's) when it is installed, else pip.  uv does not read
pip's configuration, so :func:`pip_sources` hands it pip's indexes, find-links and
constraints (``pip config list``: files and ``PIP_*`` variables) and uv picks the best version
across them as pip does (``--index-strategy unsafe-best-match``).  On 2 cores from a cold
cache uv builds the SmartNoise environment in ~10 s where pip takes ~140 s (benchmarks/
RESULTS.md); Tumult's ~60 s is mostly building pyspark's sdist.

**Built early, used late.**  This module is a pytest plugin of tests/conftest.py: once the
tests are selected (:func:`pytest_collection_modifyitems`, after ``-m``/``-k``) it calls
:func:`prepare` for the extras the selected tests name (``@pytest.mark.isolated("smartnoise")``)
and moves those tests to the end of the run: a detached ``python -m tests.isolated EXTRA ...`` builds the
environments while the rest of the suite runs, and a test that reaches :func:`environment`
first waits for it.  A build is made in a temporary folder and renamed into place when the
install succeeds, under a file lock per extra (the background builder, pytest-xdist workers
and a second pytest wait for one another), so a half-built environment is never used.  When
the installer cannot install (no network, no wheel for the platform) the caller skips,
naming the extra and the installer's last line.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CACHE = Path(os.environ.get("DPAUDIT_ENV_CACHE",
                            Path.home() / ".cache" / "dpaudit" / "envs"))


class EnvironmentUnavailable(RuntimeError):
    """The installer could not build the environment (the message ends with its last line)."""


#: what the tests run inside an environment besides dpaudit's dependencies: pytest (the
#: mechanism contract of tests/mechanisms/test_mechanism_contract.py), from the test extra
TEST_TOOLS = ("pytest",)

#: pip configuration keys and the uv option each becomes (the ones that say where
#: distributions come from)
PIP_SOURCES = {"index-url": "--index-url", "extra-index-url": "--extra-index-url",
               "find-links": "--find-links", "constraint": "--constraint"}


def requirements(extra: str) -> list[str]:
    """dpaudit's runtime dependencies, pytest as the test extra pins it, and the pins of
    ``extra`` (pyproject.toml)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    tools = [r for r in project["optional-dependencies"]["test"]
             if r.split(">")[0].split("=")[0].strip() in TEST_TOOLS]
    return (list(project["dependencies"]) + tools
            + list(project["optional-dependencies"][extra]))


def pip_sources() -> list[str]:
    """pip's configured sources (``pip config list``) as uv options.

    ``index-url`` is the last one pip lists (environment variables after files);
    ``extra-index-url``, ``find-links`` and ``constraint`` collect every value once, in
    order."""
    listed = subprocess.run([sys.executable, "-m", "pip", "config", "list"],
                            capture_output=True, text=True).stdout
    index, extra = None, []
    for line in listed.splitlines():
        key, _, value = line.partition("=")
        option = PIP_SOURCES.get(key.rsplit(".", 1)[-1])
        if option is None:
            continue
        for part in shlex.split(value.strip().strip("'\"")):
            if option == "--index-url":
                index = part
            elif (option, part) not in zip(extra[::2], extra[1::2]):
                extra += [option, part]
    return (["--index-url", index] if index else []) + extra


def uv_binary() -> str | None:
    """The ``uv`` executable of the ``uv`` distribution (test extra), or None."""
    try:
        from uv import find_uv_bin
        return find_uv_bin()
    except (ImportError, FileNotFoundError):
        return None


def _install(build: Path, reqs: list[str]) -> subprocess.CompletedProcess:
    uv = uv_binary()
    if uv is None:
        subprocess.run([sys.executable, "-m", "venv", str(build)], check=True)
        return subprocess.run([str(build / "bin" / "python"), "-m", "pip", "install", "-q",
                               "--disable-pip-version-check", *reqs],
                              capture_output=True, text=True)
    made = subprocess.run([uv, "venv", "-q", "--python", sys.executable, str(build)],
                          capture_output=True, text=True)
    if made.returncode != 0:
        return made
    return subprocess.run([uv, "pip", "install", "-q", "--python", str(build / "bin" / "python"),
                           "--index-strategy", "unsafe-best-match", *pip_sources(), *reqs],
                          capture_output=True, text=True)


def _target(extra: str) -> tuple[Path, list[str]]:
    reqs = requirements(extra)
    key = hashlib.sha256("\n".join([sys.version, *reqs]).encode()).hexdigest()[:12]
    return CACHE / f"{extra}-{key}", reqs


def ready(extra: str) -> bool:
    """The environment of ``extra`` is built (:func:`environment` returns at once)."""
    return (_target(extra)[0] / "ok").exists()


def environment(extra: str) -> Path:
    """The python executable of the cached environment for ``extra`` (built if missing;
    waits while another process builds it).

    Raises:
      EnvironmentUnavailable: the installer failed (the message names the extra)."""
    target, reqs = _target(extra)
    python = target / "bin" / "python"
    if (target / "ok").exists():
        return python
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f"{extra}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (target / "ok").exists():
            return python
        build = CACHE / f".{extra}-{target.name.rsplit('-', 1)[1]}.building"
        shutil.rmtree(build, ignore_errors=True)
        done = _install(build, reqs)
        if done.returncode != 0:
            shutil.rmtree(build, ignore_errors=True)
            lines = [line for line in (done.stderr or done.stdout).splitlines()
                     if line.strip() and "WARNING" not in line]
            raise EnvironmentUnavailable(f"cannot install the {extra} extra "
                                         f"({' '.join(reqs[-2:])}): "
                                         f"{lines[-1] if lines else 'no output'}")
        shutil.rmtree(target, ignore_errors=True)
        build.rename(target)
        (target / "ok").write_text("\n".join(reqs) + "\n")
    return python


def prepare(extras) -> subprocess.Popen | None:
    """Start building the environments of ``extras`` that are not built yet, in a detached
    ``python -m tests.isolated`` (one after another, so that at most one install competes
    with the tests for the cores); its output goes to ``CACHE/build.log``.  None when every
    one is built."""
    missing = sorted({extra for extra in extras if not ready(extra)})
    if not missing:
        return None
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / "build.log", "a") as log:
        return subprocess.Popen([sys.executable, "-m", "tests.isolated", *missing], cwd=ROOT,
                                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)


@pytest.hookimpl(trylast=True)  # after the -m / -k deselection
def pytest_collection_modifyitems(config, items):
    """Run the tests marked ``isolated(extra, ...)`` last and start building their
    environments now (:func:`prepare`), unless the run only collects."""
    isolated = [item for item in items if item.get_closest_marker("isolated")]
    if not isolated:
        return
    if not config.option.collectonly:
        prepare({extra for item in isolated
                 for extra in item.get_closest_marker("isolated").args})
    items[:] = [item for item in items if item not in isolated] + isolated


def contract(python: Path, adapters: str) -> subprocess.CompletedProcess:
    """tests/mechanisms/test_mechanism_contract.py for the adapters matching ``adapters`` (a
    pytest ``-k`` expression), run by pytest inside the environment of ``python``."""
    return run(python, ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
                        "tests/mechanisms/test_mechanism_contract.py", "-k", adapters])


def once_per_session(tmp_path_factory, name: str, produce) -> Path:
    """A folder that ``produce(folder)`` fills once per test session, whichever pytest-xdist
    worker asks first: the others wait on a file lock and reuse it (a module-scope fixture is
    otherwise run once per worker that runs one of the module's tests).  The folder is under
    the session's shared temporary root (the parent of a worker's base, the base itself
    without xdist), so no session sees another's; ``produce`` raising leaves no folder."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent
    folder = root / f"once-{name}"
    with open(root / f"once-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / "ok").exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            produce(folder)
            (folder / "ok").write_text("done\n")
    return folder


def run(python: Path, args: list[str], timeout: float = 600,
        cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``python args`` with this checkout first on ``PYTHONPATH`` (dpaudit from source)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONWARNINGS": "ignore"}
    return subprocess.run([str(python), *args], cwd=cwd or ROOT, env=env, text=True,
                          capture_output=True, timeout=timeout)


if __name__ == "__main__":  # the background builder of prepare()
    import time

    for name in sys.argv[1:]:
        start = time.monotonic()
        try:
            environment(name)
            print(f"{name}: ready in {time.monotonic() - start:.1f} s", flush=True)
        except EnvironmentUnavailable as exc:  # the test that needs it skips with this line
            print(f"{name}: {exc}", flush=True)
