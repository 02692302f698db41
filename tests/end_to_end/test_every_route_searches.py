"""Issue 23, "done when": a user's buggy mechanism with a dataset space and only its natural
pair fails ``dpaudit run``, pytest (the fixture and the suite items) and ``dpaudit check``
alike, and its correct, float-safe twin passes all of them; the same correct sum released as
``total + rng.laplace`` on doubles fails every route as a *floating-point* violation that says
what to do.

The user's package is ``tests/data/privstats`` (copied into a temporary project): a bounded
sum that clips the *total* to [n·lower, n·upper] instead of each record, whose natural pair
(add one record at the upper bound) cannot see the bug — only the pair search can.  Every
route runs as the user runs it: a subprocess in the project's folder.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data" / "privstats"
MECHANISMS = {"buggy": "BoundedSumBuggy", "correct": "BoundedSum",
              "naive-float": "BoundedSumNaiveFloat"}

SUITE = """
[suite]
name = "privstats"
samples = 100000
seed = 1
""" + "".join(f"""
[[audit]]
name = "{name}"
mechanism = "privstats.bounded_sum:{cls}"
""" for name, cls in MECHANISMS.items())

TESTS = "".join(f"""
def test_{name.replace('-', '_')}(dpaudit_audit):
    from privstats.bounded_sum import {cls}
    dpaudit_audit.mechanism({cls}, samples=100000)
""" for name, cls in MECHANISMS.items())


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("user-project")
    shutil.copytree(DATA, root / "privstats")
    (root / "audits").mkdir()
    (root / "audits" / "mine.toml").write_text(SUITE, encoding="utf-8")
    (root / "test_mine.py").write_text(TESTS, encoding="utf-8")
    return root


def _run(project: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=project, capture_output=True,
                          text=True, timeout=600)


def test_dpaudit_run_fails_the_bug_and_the_doubles_and_passes_the_twin(project):
    done = _run(project, "-m", "dpaudit.cli", "run", "audits/", "--out", "out", "--workers", "1")
    assert done.returncode == 1, done.stdout + done.stderr
    unmet = [line for line in done.stdout.splitlines() if line.startswith("  unmet: ")]
    assert sorted(unmet) == ["  unmet: privstats/buggy: expected consistent, got violation",
                             "  unmet: privstats/naive-float: expected consistent, got "
                             "violation"]
    # the bug is found by a searched pair; the natural pair alone stays consistent
    buggy = [line for line in done.stderr.splitlines() if "] buggy pair=" in line]
    assert any("pair=add-upper" in line and " consistent " in line for line in buggy)
    assert any("pair=searched-" in line and " VIOLATION (unexpected) " in line
               for line in buggy)


def test_pytest_fixture_and_suite_items_agree(project):
    fixture = _run(project, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_mine.py")
    assert "2 failed, 1 passed" in fixture.stdout, fixture.stdout
    assert "FAILED test_mine.py::test_buggy" in fixture.stdout
    assert "FAILED test_mine.py::test_naive_float" in fixture.stdout
    assert "FLOATING-POINT VIOLATION" in fixture.stdout and "laplace_on_grid" in fixture.stdout
    items = _run(project, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--dpaudit-suites",
                 "audits/")
    assert "2 failed, 1 passed" in items.stdout, items.stdout
    assert "FAILED audits/mine.toml::buggy" in items.stdout


@pytest.mark.parametrize("name, status, text", [
    ("buggy", 1, "the mechanism leaks more than claimed"),
    ("correct", 0, "could detect ε ≥"),
    ("naive-float", 1, "the float64 outputs leak (value-level ε_LB"),
])
def test_dpaudit_check_agrees(project, name, status, text):
    done = _run(project, "-m", "dpaudit.cli", "check",
                f"privstats.bounded_sum:{MECHANISMS[name]}", "--samples", "100000")
    assert done.returncode == status, done.stdout + done.stderr
    black_box = next(line for line in done.stdout.splitlines() if "black-box" in line)
    assert text in black_box, black_box
