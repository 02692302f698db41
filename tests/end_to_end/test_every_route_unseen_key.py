"""Issue 36, "done when": a group-by whose worst case is "add a key not yet present", written
over string categories without hand encoding (``CategoricalRecords``, ``KeyedOutputs``), and
named with a pair that adds a record of a key already present, fails ``dpaudit run``, pytest
(the fixture and ``--dpaudit-suites``), the API and ``dpaudit check`` at every seed tried, with
the revealing datasets in the report; its correct twin passes them all.  Every route runs as
the user runs it: a subprocess in the project's folder (``tests/data/privstats/groups.py``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data" / "privstats"
NATURAL = (["a", "a", "b"], ["a", "a", "b", "b"])
SEEDS = (1, 2, 3)

SUITE = "".join(f"""
[[audit]]
name = "{name}"
sampler = "../privstats/groups.py:{name}"
claim = {{ notion = "pure-dp", epsilon = 1.0 }}
[[audit.pairs]]
d0 = {json.dumps(NATURAL[0])}
d1 = {json.dumps(NATURAL[1])}
""" for name in ("group_by", "histogram"))

TESTS = f"""
import pytest
from privstats.groups import group_by, histogram


@pytest.mark.parametrize("seed", {list(SEEDS)!r})
@pytest.mark.parametrize("fn", [group_by, histogram], ids=["group_by", "histogram"])
def test_groups(dpaudit_audit, fn, seed):
    dpaudit_audit.sampler(fn, {{"notion": "pure-dp", "epsilon": 1.0}}, [{NATURAL!r}],
                          samples=50000, seed=seed)
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("groups-project")
    shutil.copytree(DATA, root / "privstats")
    (root / "audits").mkdir()
    for seed in SEEDS:  # one suite file per seed (a suite's seed is its own)
        (root / "audits" / f"groups-{seed}.toml").write_text(
            f'[suite]\nname = "groups-{seed}"\nsamples = 50000\nseed = {seed}\n' + SUITE,
            encoding="utf-8")
    (root / "test_groups.py").write_text(TESTS, encoding="utf-8")
    return root


def _run(project: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=project, capture_output=True,
                          text=True, timeout=900)


def test_dpaudit_run_fails_every_seed_and_names_the_datasets(project):
    done = _run(project, "-m", "dpaudit.cli", "run", "audits/", "--out", "out", "--workers", "1")
    assert done.returncode == 1, done.stdout + done.stderr
    unmet = sorted(line for line in done.stdout.splitlines() if line.startswith("  unmet: "))
    assert unmet == [f"  unmet: groups-{s}/group_by: expected consistent, got violation"
                     for s in SEEDS]
    summary = (project / "out" / "summary.md").read_text(encoding="utf-8")
    table = summary.split("Unexpected violations", 1)[1]
    assert "searched-" in table and "(d0 = " in table


def test_pytest_fixture_and_suite_items_fail_every_seed(project):
    fixture = _run(project, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_groups.py")
    assert f"{len(SEEDS)} failed, {len(SEEDS)} passed" in fixture.stdout, fixture.stdout
    assert all(f"FAILED test_groups.py::test_groups[group_by-{s}]" in fixture.stdout
               for s in SEEDS)
    items = _run(project, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--dpaudit-suites",
                 "audits/")
    assert f"{len(SEEDS)} failed, {len(SEEDS)} passed" in items.stdout, items.stdout


@pytest.mark.parametrize("seed", SEEDS)
def test_dpaudit_check_fails_the_bug_and_passes_the_twin(project, seed):
    args = ["--epsilon", "1", "--pair", json.dumps(NATURAL[0]), json.dumps(NATURAL[1]),
            "--samples", "50000", "--seed", str(seed)]
    bug = _run(project, "-m", "dpaudit.cli", "check", "privstats/groups.py:group_by", *args)
    assert bug.returncode == 1, bug.stdout + bug.stderr
    assert "the mechanism leaks more than claimed" in bug.stdout
    assert "data-dependent control flow" in bug.stdout  # the replay's warning
    twin = _run(project, "-m", "dpaudit.cli", "check", "privstats/groups.py:histogram", *args)
    assert twin.returncode == 0, twin.stdout + twin.stderr


def test_the_api_fails_every_seed(project):
    code = (f"import sys; sys.path.insert(0, '.')\n"
            f"from dpaudit import audit_sampler\n"
            f"from privstats.groups import group_by, histogram\n"
            f"for fn in (group_by, histogram):\n"
            f"    print([audit_sampler(fn, epsilon=1.0, pairs=[{NATURAL!r}], samples=50000,\n"
            f"                         seed=s).verdict for s in {list(SEEDS)!r}])\n")
    done = _run(project, "-c", code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [repr(["violation"] * len(SEEDS)),
                                        repr(["consistent"] * len(SEEDS))]
