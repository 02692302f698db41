"""Environments of their own for the libraries whose pins conflict with the test extra's.

SmartNoise SQL 1.0.10 needs ``opendp<0.15`` (the test extra pins 0.16.0 for the OpenDP
adapter); Tumult needs ``numpy<2``, ``pandas<2``, ``sympy<1.13`` and ``pyspark<3.6``, and
tmlt.analytics 0.21.0 needs ``tmlt.core<0.20``.  :func:`environment` builds a virtual
environment for one of pyproject's extras (``smartnoise``, ``tumult``, ``tumult-core``) with
dpaudit's own runtime dependencies, the way a user does (``pip install`` of the pinned
distributions), and caches it under ``$DPAUDIT_ENV_CACHE`` (default
``~/.cache/dpaudit/envs``), keyed by a hash of the requirements: the first test run pays the
install (measured in benchmarks/RESULTS.md), later runs reuse it.  dpaudit itself is not
installed there: :func:`run` puts this checkout on ``PYTHONPATH``, so the environment never
goes stale when the code changes.  A build is made in a temporary folder and renamed into
place when pip succeeds, under a file lock (pytest-xdist workers wait for one another), so a
half-built environment is never used.  When pip cannot install (no network, no wheel for the
platform) the caller skips, naming the extra and pip's last line.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CACHE = Path(os.environ.get("DPAUDIT_ENV_CACHE",
                            Path.home() / ".cache" / "dpaudit" / "envs"))


class EnvironmentUnavailable(RuntimeError):
    """pip could not build the environment (the message ends with pip's last line)."""


#: what the tests run inside an environment besides dpaudit's dependencies: pytest (the
#: mechanism contract of tests/mechanisms/test_mechanism_contract.py), from the test extra
TEST_TOOLS = ("pytest",)


def requirements(extra: str) -> list[str]:
    """dpaudit's runtime dependencies, pytest as the test extra pins it, and the pins of
    ``extra`` (pyproject.toml)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    tools = [r for r in project["optional-dependencies"]["test"]
             if r.split(">")[0].split("=")[0].strip() in TEST_TOOLS]
    return (list(project["dependencies"]) + tools
            + list(project["optional-dependencies"][extra]))


def environment(extra: str) -> Path:
    """The python executable of the cached environment for ``extra`` (built if missing).

    Raises:
      EnvironmentUnavailable: pip failed (the message names the extra)."""
    reqs = requirements(extra)
    key = hashlib.sha256("\n".join([sys.version, *reqs]).encode()).hexdigest()[:12]
    target = CACHE / f"{extra}-{key}"
    python = target / "bin" / "python"
    if (target / "ok").exists():
        return python
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f"{extra}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (target / "ok").exists():
            return python
        build = CACHE / f".{extra}-{key}.building"
        shutil.rmtree(build, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(build)], check=True)
        done = subprocess.run([str(build / "bin" / "python"), "-m", "pip", "install", "-q",
                               "--disable-pip-version-check", *reqs],
                              capture_output=True, text=True)
        if done.returncode != 0:
            shutil.rmtree(build, ignore_errors=True)
            lines = [line for line in (done.stderr or done.stdout).splitlines()
                     if line.strip() and "WARNING" not in line]
            raise EnvironmentUnavailable(f"pip cannot install the {extra} extra "
                                         f"({' '.join(reqs[-2:])}): "
                                         f"{lines[-1] if lines else 'no output'}")
        shutil.rmtree(target, ignore_errors=True)
        build.rename(target)
        (target / "ok").write_text("\n".join(reqs) + "\n")
    return python


def contract(python: Path, adapters: str) -> subprocess.CompletedProcess:
    """tests/mechanisms/test_mechanism_contract.py for the adapters matching ``adapters`` (a
    pytest ``-k`` expression), run by pytest inside the environment of ``python``."""
    return run(python, ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
                        "tests/mechanisms/test_mechanism_contract.py", "-k", adapters])


def run(python: Path, args: list[str], timeout: float = 600,
        cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``python args`` with this checkout first on ``PYTHONPATH`` (dpaudit from source)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONWARNINGS": "ignore"}
    return subprocess.run([str(python), *args], cwd=cwd or ROOT, env=env, text=True,
                          capture_output=True, timeout=timeout)
