"""dpaudit as a user installs it: session fixtures for the tests of the wheel and of the CI
examples (loaded by tests/conftest.py as a plugin).

* :func:`dpaudit_dist` — the wheel and the sdist, built by ``python -m build`` (the wheel from
  the sdist, as ``build`` does) from a copy of this checkout's files (``git ls-files``: tracked
  and new, not ignored — what a clone plus the working changes holds), and checked by
  ``twine check --strict``; the checkout itself is never written to.
* :func:`dpaudit_venv` — a fresh virtual environment in a temporary directory outside the
  repository (no ``--system-site-packages``, no ``PYTHONPATH``) holding
  ``dpaudit[ml,report] @ file:///…/dpaudit-VERSION-py3-none-any.whl``, pytest and pip: what a
  user who installs the wheel (or the CI examples, whose ``DPAUDIT_SPEC`` this is) does.  uv
  (the test extra's) creates it and installs, the dependencies resolved from pip's configured
  indexes and linked from uv's cache; without uv, ``python -m venv`` and pip.

Measured on the 2-core machine under load ~8 (benchmarks/RESULTS.md, "Test suite cost"):
creating the environment and installing took 51 CPU-s with pip (cache warm) and 15 CPU-s with
uv (cache warm; 16.5 CPU-s and 453 MB of downloads from a cold uv cache), the first imports'
bytecode included.  Both fixtures are built once per session (per xdist worker) and shared;
every test that uses them is ``slow``.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support import REPO

#: environment variables that would let the fresh environment see this checkout or this
#: pytest run instead of what it installed
SCRUBBED = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV", "PYTEST_ADDOPTS",
            "PYTEST_PLUGINS", "PYTEST_CURRENT_TEST", "CONDA_PREFIX")


def clean_environment(extra_path: Path | None = None) -> dict[str, str]:
    """``os.environ`` without :data:`SCRUBBED`, with ``extra_path`` first on ``PATH``."""
    env = {k: v for k, v in os.environ.items() if k not in SCRUBBED}
    if extra_path is not None:
        env["PATH"] = os.pathsep.join([str(extra_path), env.get("PATH", os.defpath)])
    return env


def run_checked(args: list[str], *, cwd: Path, env: dict[str, str], timeout: float,
                what: str) -> subprocess.CompletedProcess:
    """Run ``args``; a non-zero exit fails the test with the command's output."""
    result = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True,
                            timeout=timeout)
    if result.returncode != 0:
        pytest.fail(f"{what} exited {result.returncode}: {' '.join(map(str, args))}\n"
                    f"--- stdout ---\n{result.stdout[-4000:]}\n"
                    f"--- stderr ---\n{result.stderr[-4000:]}", pytrace=False)
    return result


def checkout_files() -> list[str]:
    """The checkout's files, relative to it: ``git ls-files -co --exclude-standard`` (tracked
    and new, not ignored; a tracked file deleted in the working tree is left out)."""
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("the wheel is built from a git checkout's files; this is not one")
    listing = subprocess.run(["git", "ls-files", "-z", "-co", "--exclude-standard"], cwd=REPO,
                             capture_output=True, check=True).stdout
    return [name for name in listing.decode().split("\0") if name and (REPO / name).is_file()]


def copy_checkout(destination: Path) -> Path:
    """Copy :func:`checkout_files` to ``destination``."""
    for name in checkout_files():
        target = destination / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, target)
    return destination


@dataclass(frozen=True)
class Dist:
    """The built distributions."""

    wheel: Path
    sdist: Path
    twine: str  #: what ``twine check --strict`` printed
    seconds: float  #: building and checking


@dataclass(frozen=True)
class Venv:
    """A fresh virtual environment with the wheel installed.

    Attributes:
      root: its directory (outside the repository).
      spec: the pip requirement it was installed from (the CI examples' ``DPAUDIT_SPEC``).
      env: the environment to run its commands in (its ``bin`` first on ``PATH``).
      seconds: creating it and installing.
    """

    root: Path
    spec: str
    env: dict[str, str] = field(repr=False)
    seconds: float

    @property
    def bin(self) -> Path:
        return self.root / "bin"

    @property
    def python(self) -> Path:
        return self.bin / "python"

    def run(self, args: list[str], cwd: Path, *, timeout: float = 300,
            check: bool = True) -> subprocess.CompletedProcess:
        """Run ``args`` (``dpaudit …``, ``python …``: found on this environment's PATH)."""
        if check:
            return run_checked(args, cwd=cwd, env=self.env, timeout=timeout,
                               what=f"{args[0]} in the fresh environment")
        return subprocess.run(args, cwd=cwd, env=self.env, capture_output=True, text=True,
                              timeout=timeout)


@pytest.fixture(scope="session")
def dpaudit_dist(tmp_path_factory) -> Dist:
    """The wheel and sdist of this checkout, built and checked once per session."""
    for module in ("build", "twine"):
        if importlib.util.find_spec(module) is None:
            pytest.fail(f"{module} is not installed: pip install -e '.[test]'", pytrace=False)
    start = time.perf_counter()
    source = copy_checkout(tmp_path_factory.mktemp("checkout"))
    dist = tmp_path_factory.mktemp("dist")
    env = clean_environment()
    run_checked([sys.executable, "-m", "build", "--outdir", str(dist), str(source)], cwd=dist,
                env=env, timeout=600, what="python -m build")
    (wheel,) = dist.glob("dpaudit-*.whl")
    (sdist,) = dist.glob("dpaudit-*.tar.gz")
    twine = run_checked([sys.executable, "-m", "twine", "check", "--strict", str(wheel),
                         str(sdist)], cwd=dist, env=env, timeout=120, what="twine check")
    return Dist(wheel=wheel, sdist=sdist, twine=twine.stdout + twine.stderr,
                seconds=time.perf_counter() - start)


def _create_and_install(root: Path, spec: str, env: dict[str, str]) -> None:
    """Create the environment at ``root`` and install ``spec`` and pytest into it.

    With ``uv`` (the test extra's; tests/isolated.py's :func:`~tests.isolated.uv_binary`):
    ``uv venv --seed`` (pip in it, for the CI workflows' ``pip install`` steps) and
    ``uv pip install`` from pip's configured sources (:func:`~tests.isolated.pip_sources`),
    the distributions linked from uv's cache; without uv: ``python -m venv`` and pip."""
    from tests.isolated import pip_sources, uv_binary

    uv = uv_binary()
    python = root / "bin" / "python"
    if uv is None:
        run_checked([sys.executable, "-m", "venv", str(root)], cwd=root.parent, env=env,
                    timeout=120, what="python -m venv")
        run_checked([str(python), "-m", "pip", "install", spec, "pytest"],
                    cwd=root.parent, env=env, timeout=900, what="pip install")
        return
    run_checked([uv, "venv", "-q", "--seed", "--python", sys.executable, str(root)],
                cwd=root.parent, env=env, timeout=120, what="uv venv")
    run_checked([uv, "pip", "install", "-q", "--python", str(python),
                 "--index-strategy", "unsafe-best-match", *pip_sources(), spec, "pytest"],
                cwd=root.parent, env=env, timeout=900, what="uv pip install")


@pytest.fixture(scope="session")
def dpaudit_venv(dpaudit_dist, tmp_path_factory) -> Venv:
    """A fresh virtual environment outside the repository with ``dpaudit[ml,report]`` (from the
    wheel), pytest and pip installed, once per session (:func:`_create_and_install`)."""
    root = tmp_path_factory.mktemp("fresh-venv") / "venv"
    assert not root.resolve().is_relative_to(REPO)
    start = time.perf_counter()
    spec = f"dpaudit[ml,report] @ {dpaudit_dist.wheel.resolve().as_uri()}"
    env = clean_environment(root / "bin")
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    _create_and_install(root, spec, env)
    return Venv(root=root, spec=spec, env=env, seconds=time.perf_counter() - start)
