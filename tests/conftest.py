"""Shared fixtures of the whole test tree, and the ``slow`` mark of the end-to-end folder.

The layout mirrors the package (tests/suite/ ↔ dpaudit/suite/, tests/audit/ ↔ dpaudit/audit/,
…); tests of top-level modules (api, pipes, processes, validation, the pytest plugin) and of
the package's shape (test_architecture.py) sit at the top.  tests/end_to_end/ holds whole runs
of shipped suites and of the README: every test there is ``slow`` (see
:func:`pytest_collection_modifyitems`), so the inner loop ``pytest -m "not slow"`` skips them.

Session fixtures are built once per pytest process and shared: a test must treat their files
and objects as read-only (copy a suite file before editing it).

* :func:`tiny_suite` — the smallest useful suite: a correct Laplace mechanism and a known-bad
  one that is expected to be flagged (every expectation met, exit status 0);
* :func:`shapes_suite` / :func:`shapes_run` — a small suite with a record of every shape
  (a δ grid read off one test, a known-bad violation, a sweep, an RDP audit, an audit whose
  pair is not neighbouring and so errors), and one :class:`~dpaudit.results.run.AuditRun` of it.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

#: the wheel, the sdist and a fresh virtual environment with the wheel installed
#: (``dpaudit_dist``, ``dpaudit_venv``: see tests/installed.py); the environments of the
#: tests marked ``isolated``, built in the background while the rest runs (tests/isolated.py)
pytest_plugins = ("tests.installed", "tests.isolated")

#: a Laplace mechanism that keeps its promise and one with a published bug (scale ε instead
#: of 1/ε); 2 audit points, 4 tests (black box + white box each), 2 certificates.  No pair
#: search (search = false): the tests that use it are about runs and reports; the search is
#: pinned in tests/audit/test_pair_search_everywhere.py and by SHAPES_SUITE's "scale-bug"
TINY_SUITE = """
[suite]
name = "tiny"
samples = 2000
seed = 3

[[audit]]
name = "fine"
mechanism = "laplace"
params = { epsilon = 1.0 }
search = false

[[audit]]
name = "bug"
mechanism = "laplace-scale-epsilon"
params = { epsilon = 0.5 }
expect = "violation"
search = false
"""

#: one record of every shape results.json holds (a searched pair: "scale-bug"'s one test of
#: its pair search); the run's exit status is 2 (bad-pair errors)
SHAPES_SUITE = """
[suite]
name = "roundtrip"
samples = 3000
seed = 3

[[audit]]
name = "laplace-grid"
mechanism = "laplace"
params = { epsilon = 1.0 }
delta = [0.0, 0.001, 0.01]
note = "three δ read off one test"
search = false

[[audit]]
name = "scale-bug"
mechanism = "laplace-scale-epsilon"
params = { epsilon = 0.5 }
expect = "violation"
search = { keep = 1, candidates = 4 }

[[audit]]
name = "swept"
mechanism = "laplace"
sweep = { epsilon = [0.5, 2.0] }
search = false

[[audit]]
name = "gaussian-rdp"
mechanism = "gaussian"
alphas = [2.0, 8.0]
search = false

[[audit]]
name = "bad-pair"
mechanism = "laplace"
search = false
[[audit.pairs]]
name = "too-far"
d0 = [0.0]
d1 = [5.0]
"""

#: folders whose every test runs whole suites (or the README) end to end
END_TO_END = ("end_to_end",)


def pytest_collection_modifyitems(config, items):
    """Mark every test under tests/end_to_end/ ``slow``; explicit marks elsewhere stay."""
    here = Path(__file__).resolve().parent
    folders = [here / name for name in END_TO_END]
    for item in items:
        path = Path(str(item.path)).resolve()
        if any(path.is_relative_to(folder) for folder in folders):
            item.add_marker(pytest.mark.slow)


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    path.chmod(0o444)  # shared by every test of the session: read-only
    return path


@pytest.fixture(scope="session")
def tiny_suite(tmp_path_factory) -> Path:
    """tiny.toml (:data:`TINY_SUITE`), alone in its folder; read-only."""
    return _write(tmp_path_factory.mktemp("tiny-suite"), "tiny.toml", TINY_SUITE)


@pytest.fixture(scope="session")
def shapes_suite(tmp_path_factory) -> Path:
    """roundtrip.toml (:data:`SHAPES_SUITE`), alone in its folder; read-only."""
    return _write(tmp_path_factory.mktemp("shapes-suite"), "roundtrip.toml", SHAPES_SUITE)


@pytest.fixture(scope="session")
def shapes_run(shapes_suite):
    """The :class:`~dpaudit.results.run.AuditRun` of :func:`shapes_suite` on one worker."""
    from dpaudit.api import run_suites

    return run_suites([str(shapes_suite)], workers=1)
